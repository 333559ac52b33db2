#!/usr/bin/env python3
"""Walls between rooms, checked on the object files of libddb or ddbgen.

Usage: check_layers.py [--tree runtime|generator] [--src DIR] NM OBJECT...
       OBJECT: the objects of the library, as built (an argument may hold
       several, separated by ";"); DIR: the tree's sources (runtime/src or
       generator/), whose #include lines are held to the same room order;
       --tree: which table of rooms applies (runtime when left out)

For every object, `nm` lists the symbols it defines and the ones it uses;
a use of a symbol another file of the library defines is a call (or a
reference) from that file to the other.  The check fails on
  - a loop: files that reach each other through such calls, directly or
    round a longer circle (each loop is printed with its calls),
  - a call against the allowed direction between rooms (the tables below),
  - a file in a folder that is no room of the table,
  - (runtime) a call of LMDB that changes a database (mdb_put, mdb_del,
    mdb_drop, mdb_cursor_put, mdb_cursor_del) from any file but the commit
    log's (engine/clog_kv.c, whose ddbi_kv_* every change goes through so
    that the commit log records it, and engine/clog_record.c, its replay).
A file's room is the longest room of the table that its folder (under
DIR, or under the object's src/ folder) is or lies in: runtime/src/entity/
reads/get.c is in room entity/reads.  With --src, an #include of a header
of another room against that order fails too; an include is found by its
path from DIR ("core/codec.h") or, for a bare name ("ir.h"), by the one
header of the tree with that name.
"""
import os
import re
import subprocess
import sys

ENTITY = {"core", "expr", "api"}

# LMDB's calls that change a database, and the only files that may make them.
LMDB_WRITES = {"mdb_put", "mdb_del", "mdb_drop", "mdb_cursor_put", "mdb_cursor_del"}
LMDB_WRITERS = {"engine/clog_kv.c", "engine/clog_record.c"}

# Which rooms each room may call (besides itself), per tree.
TABLES = {
    # core <- expr <- engine <- streams; json -> core; remote -> core, expr,
    # json; api -> engine, streams, remote; the entity rooms -> api and below
    # (the public API, api/expr_cache.h, api/records.h), each entity room
    # also the entity rooms under it: core <- reads <- tx <- writes <- migrate.
    "runtime": {
        "core": set(),
        "expr": {"core"},
        "engine": {"core", "expr"},
        "streams": {"core", "expr", "engine"},
        "json": {"core"},
        "remote": {"core", "expr", "json"},
        "api": {"core", "expr", "json", "engine", "streams", "remote"},
        "entity": ENTITY,
        "entity/core": ENTITY | {"entity"},
        "entity/reads": ENTITY | {"entity", "entity/core"},
        "entity/tx": ENTITY | {"entity", "entity/core", "entity/reads"},
        "entity/writes": ENTITY | {"entity", "entity/core", "entity/reads", "entity/tx"},
        "entity/migrate": ENTITY | {"entity", "entity/core", "entity/reads", "entity/tx", "entity/writes"},
    },
    # ddbgen's stages: base <- front; base <- ir <- decl <- check;
    # ir <- plan; ir <- render; main -> all.
    "generator": {
        "base": set(),
        "front": {"base"},
        "ir": {"base"},
        "decl": {"base", "ir"},
        "check": {"base", "ir", "decl"},
        "plan": {"base", "ir"},
        "render": {"base", "ir"},
        "main": {"base", "front", "ir", "decl", "check", "plan", "render"},
    },
}

def room_of(folder, rooms):
    """The longest room that folder ("entity/reads") is or lies in, or None."""
    best = None
    for r in rooms:
        if (folder == r or folder.startswith(r + "/")) and (best is None or len(r) > len(best)):
            best = r
    return best


def sources(src):
    """Every .c and .h under src, as paths relative to it ("core/codec.h")."""
    out = []
    for folder, dirs, names in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(folder, src)
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                out.append(name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}")
    return sorted(out)


def include_problems(src, rooms):
    problems = []
    files = sources(src)
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    for f in files:
        room = room_of(os.path.dirname(f), rooms)
        if room is None:
            continue  # reported by the call check when it is built
        with open(os.path.join(src, f), encoding="utf-8") as text:
            for n, line in enumerate(text, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                header = m.group(1)
                if "/" in header:
                    found = header if header in files else None
                else:
                    same = [g for g in by_name.get(header, []) if os.path.dirname(g) == os.path.dirname(f)]
                    named = same or by_name.get(header, [])
                    if len(named) > 1:
                        problems.append(f"{f}:{n}: includes {header}, a name that {len(named)} headers bear")
                        continue
                    found = named[0] if named else None
                if found is None:
                    continue  # a header from outside the tree
                target = room_of(os.path.dirname(found), rooms)
                if target is None or target == room or target in rooms[room]:
                    continue
                problems.append(f"{f}:{n}: includes {found}: room {room} may not use room {target}")
    return problems


def source_of(obj, known):
    """'.../ddb.dir/src/entity/reads/get.c.o' -> 'entity/reads/get.c';
    '.../ddbgen_core.dir/ir/lower.c.o' -> 'ir/lower.c': the longest end of
    the object's path that names a source of known (the files under --src),
    else what follows its src/ folder."""
    m = re.search(r"\.dir/(.+?)\.o(bj)?$", obj)
    if not m:
        sys.exit(f"check_layers: cannot tell the source of {obj}")
    parts = m.group(1).split("/")
    for i in range(len(parts)):
        if "/".join(parts[i:]) in known:
            return "/".join(parts[i:])
    if "src" in parts[:-1]:
        parts = parts[parts.index("src") + 1:]
    return "/".join(parts)


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
    src, tree = None, "runtime"
    while len(argv) > 2 and argv[1] in ("--src", "--tree"):
        if argv[1] == "--src":
            src = argv[2]
        else:
            tree = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) < 3 or tree not in TABLES:
        sys.exit(__doc__)
    rooms = TABLES[tree]
    nm = argv[1]
    objs = [o for arg in argv[2:] for o in arg.split(";") if o]  # CMake hands a list as one argument
    files = {}
    owner = {}
    known = set(sources(src)) if src else set()
    for obj in objs:
        name = source_of(obj, known)
        defined, used = symbols(nm, obj)
        files[name] = (room_of(os.path.dirname(name), rooms), used)
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
    problems = include_problems(src, rooms) if src else []
    for f, targets in sorted(graph.items()):
        room = files[f][0]
        if room is None:
            problems.append(f"{f}: its folder is no room of the {tree} table of {os.path.basename(argv[0])}")
            continue
        for g in sorted(targets):
            r = files[g][0]
            if r is not None and r != room and r not in rooms[room]:
                problems.append(f"{f} -> {g} ({why[(f, g)]}): room {room} may not call room {r}")
    if tree == "runtime":
        for f, (room, used) in sorted(files.items()):
            for s in sorted(used & LMDB_WRITES):
                if f not in LMDB_WRITERS:
                    problems.append(f"{f}: calls {s}: a change to LMDB goes through ddbi_kv_* (engine/clog_kv.c), "
                                    "so that the commit log records it")
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
