#!/usr/bin/env python3
"""The runtime's walls, checked on its object files.

Usage: check_layers.py [--src DIR] NM OBJECT...
       OBJECT: the objects of libddb, as built (an argument may hold
       several, separated by ";"); DIR: runtime/src, whose #include lines
       are held to the same room order

For every object, `nm` lists the symbols it defines and the ones it uses;
a use of a symbol another runtime file defines is a call (or a reference)
from that file to the other.  The check fails on
  - a loop: files that reach each other through such calls, directly or
    round a longer circle (each loop is printed with its calls), and
  - a call against the allowed direction between rooms:
        core <- expr <- engine <- streams
        remote -> core, expr
        api -> engine, streams, remote (and everything below)
        entity -> api and below (the public API, api/expr_cache.h, api/records.h)
A file's room is the folder of its source under runtime/src (the first
one, for a file in a folder of a room).  With --src,
an #include "room/file.h" against that order fails too; the one exception
is api/backend.h (the backend interface: types only), which the backends
include to build their operations tables.
"""
import os
import re
import subprocess
import sys

# Which rooms each room may call (besides itself).
ALLOWED = {
    "core": set(),
    "expr": {"core"},
    "engine": {"core", "expr"},
    "streams": {"core", "expr", "engine"},
    "remote": {"core", "expr"},
    "api": {"core", "expr", "engine", "streams", "remote"},
    "entity": {"core", "expr", "api"},
}


# Headers a room may include although it may not call their room.
INCLUDE_EXCEPTIONS = {"api/backend.h": {"engine", "streams", "remote"}}


def include_problems(src):
    problems = []
    for folder, dirs, names in sorted(os.walk(src)):
        dirs.sort()
        rel = os.path.relpath(folder, src)
        if rel == ".":
            continue
        room = rel.split(os.sep)[0]
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            shown = f"{rel.replace(os.sep, '/')}/{name}"
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([^/"]+)/([^"]+)"', line)
                    if not m:
                        continue
                    target, header = m.group(1), f"{m.group(1)}/{m.group(2)}"
                    if target == room or target in ALLOWED.get(room, set()):
                        continue
                    if room in INCLUDE_EXCEPTIONS.get(header, set()):
                        continue
                    problems.append(f"{shown}:{n}: includes {header}: room {room} may not use room {target}")
    return problems


def room_and_name(obj):
    """'.../src/engine/read.c.o' -> ('engine', 'engine/read.c');
    '.../src/entity/reads/get.c.o' -> ('entity', 'entity/reads/get.c')."""
    m = re.search(r"/src/(([^/]+)(/[^/]+)*)/([^/]+?)\.o(bj)?$", obj)
    if not m:
        sys.exit(f"check_layers: cannot tell the room of {obj}")
    return m.group(2), f"{m.group(1)}/{m.group(4)}"


def symbols(nm, obj):
    out = subprocess.run([nm, "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind.upper() in "TDBRGSCVW" and kind != "w":
            defined.add(name)
    return defined, used


def loops(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    src = None
    if len(argv) > 2 and argv[1] == "--src":
        src, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) < 3:
        sys.exit(__doc__)
    nm = argv[1]
    objs = [o for arg in argv[2:] for o in arg.split(";") if o]  # CMake hands a list as one argument
    files = {}
    owner = {}
    for obj in objs:
        room, name = room_and_name(obj)
        defined, used = symbols(nm, obj)
        files[name] = (room, used)
        for s in defined:
            owner[s] = name
    graph = {f: set() for f in files}
    why = {}
    for f, (room, used) in files.items():
        for s in sorted(used):
            g = owner.get(s)
            if g and g != f:
                graph[f].add(g)
                why.setdefault((f, g), s)
    problems = include_problems(src) if src else []
    for f, targets in sorted(graph.items()):
        room = files[f][0]
        if room not in ALLOWED:
            problems.append(f"{f}: room {room} is not in the layer table of {os.path.basename(argv[0])}")
            continue
        for g in sorted(targets):
            r = files[g][0]
            if r != room and r not in ALLOWED[room]:
                problems.append(f"{f} -> {g} ({why[(f, g)]}): room {room} may not call room {r}")
    for comp in loops(graph):
        calls = [f"{f} -> {g} ({why[(f, g)]})" for f in comp for g in sorted(graph[f]) if g in comp]
        problems.append("loop between " + ", ".join(comp) + ":\n    " + "\n    ".join(calls))
    for p in problems:
        print(p)
    print(f"check_layers: {len(files)} files, {sum(len(t) for t in graph.values())} calls between files, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
