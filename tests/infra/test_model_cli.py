#!/usr/bin/env python3
"""`ddb --model` (the model-aware commands) on the six seed schemas: each
seed example program fills a database through its generated module; then,
with the model from ddbgen --emit-model:

1. `patterns` lists every entity of the model with its access patterns.
2. Every stored entity is read back by `get ENTITY FIELD=VALUE...` (its key
   fields taken from the stored item) as plain JSON whose fields hold the
   stored attributes' values.
3. Writing each of them back with `put ENTITY JSON` leaves every table
   exactly as the generated module wrote it (keys, type attribute, derived
   attributes, shard items), but for what a put changes by design: a
   version field counts up, an updated-at field is stamped anew.
4. `query` of the primary key's partition returns the entities `get` read.
5. Mistakes are errors that say what to do: an unknown entity or field, a
   missing key field, a value too long for its char[N].

usage: test_model_cli.py DDB_TOOL DDBGEN SOURCE_DIR EXAMPLES_BUILD_DIR WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

DDB, DDBGEN, SRC, EXAMPLES, WORK = (os.path.abspath(a) for a in sys.argv[1:6])
SEEDS = ["clinic", "orders", "orgs", "products", "reservations", "services"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def ddb(db, *args, model=None, ok=True):
    cmd = [DDB, "--db", db] + (["--model", model] if model else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, DDB_MODEL=""))
    if ok and p.returncode != 0:
        raise SystemExit("%s failed (%d): %s" % (" ".join(cmd[1:]), p.returncode, p.stderr))
    return p


def plain(v):
    """A DynamoDB JSON value as the plain JSON the tool prints."""
    (t, x), = v.items()
    if t == "N":
        return float(x)
    if t in ("S", "BOOL", "B"):
        return x
    if t == "M":
        return {k: plain(y) for k, y in x.items()}
    if t == "L":
        return [plain(y) for y in x]
    return sorted(float(y) if t == "NS" else y for y in x)


def same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def scan(db, table):
    p = ddb(db, "scan", table, ok=False)
    if p.returncode and "does not exist" in p.stderr:
        return []  # a table the example never created
    if p.returncode:
        raise SystemExit("scan %s failed: %s" % (table, p.stderr))
    out = p.stdout
    return sorted((json.loads(l) for l in out.splitlines() if l.strip()), key=lambda i: json.dumps(i, sort_keys=True))


def seed(name):
    db, model_path = os.path.join(WORK, name + "-db"), os.path.join(WORK, name + ".model.json")
    shutil.rmtree(db, ignore_errors=True)
    p = subprocess.run([os.path.join(EXAMPLES, name, name), db], capture_output=True, text=True)
    check(p.returncode == 0, "%s: the example failed: %s" % (name, p.stderr[-500:]))
    subprocess.run([DDBGEN, "-I", os.path.join(SRC, "schemas"), "--emit-model", model_path,
                    os.path.join(SRC, "schemas", name + ".h")], check=True)
    model = json.load(open(model_path))
    tables = {t["cname"]: t for t in model["tables"]}

    listed = ddb(db, "patterns", model=model_path).stdout
    for e in model["entities"]:
        check(("%s (table " % e["name"]) in listed, "%s: patterns does not list %s" % (name, e["name"]))

    before = {t["name"]: scan(db, t["name"]) for t in model["tables"]}
    changing = set()  # attributes a put changes by design
    for e in model["entities"]:
        table = tables[e["table"]]
        type_attr = table.get("type_attribute", "Type")
        by_attr = {f["attr"]: f for f in e["fields"]}
        for f in e["fields"]:
            if "version" in f or "updated_at" in f:
                changing.add(f["attr"])
        primary = [k for k in e["keys"] if k["index"] == "table"][0]
        key_fields = list(dict.fromkeys(primary["pk"]["uses"] + (primary["sk"]["uses"] if "sk" in primary else [])))
        seen, read = set(), 0
        for item in before[table["name"]]:
            if item.get(type_attr, {}).get("S") != e["name"]:
                continue
            fields = {f["name"]: item.get(f["attr"]) for f in e["fields"]}
            if any(fields.get(k) is None for k in key_fields):
                continue  # a shard item that carries only part of the entity
            args = []
            for k in key_fields:
                (t, v), = fields[k].items()
                args.append("%s=%s" % (k, v))
            if tuple(args) in seen or len(seen) >= 20:  # 20 of each entity: bounded time
                continue
            seen.add(tuple(args))
            got = ddb(db, "get", e["name"], *args, model=model_path, ok=False)
            check(got.returncode == 0, "%s: get %s %s: %s" % (name, e["name"], args, got.stderr))
            if got.returncode:
                continue
            obj = json.loads(got.stdout)
            for fname, v in obj.items():
                f = next(x for x in e["fields"] if x["name"] == fname)
                stored = [i for i in before[table["name"]] if f["attr"] in i and all(
                    i.get(by_attr_k["attr"]) == fields[by_attr_k["name"]] for by_attr_k in
                    (x for x in e["fields"] if x["name"] in key_fields))]
                check(any(same(plain(i[f["attr"]]), v) for i in stored),
                      "%s: get %s %s: field %s = %r is not what is stored" % (name, e["name"], args, fname, v))
            put = ddb(db, "put", e["name"], got.stdout.strip(), model=model_path, ok=False)
            check(put.returncode == 0, "%s: put %s: %s" % (name, e["name"], put.stderr))
            q = ddb(db, "query", e["name"], *[a for a in args if a.split("=")[0] in primary["pk"]["uses"]],
                    model=model_path, ok=False)
            check(q.returncode == 0 and any(json.loads(l).items() >= {k: obj[k] for k in key_fields if k in obj}.items()
                                            for l in q.stdout.splitlines()),
                  "%s: query %s did not return %s: %s" % (name, e["name"], args, q.stderr))
            read += 1
        print("  %s.%s: %d read and written back" % (name, e["name"], read))

    for t in model["tables"]:
        after = scan(db, t["name"])
        strip = lambda items: [{k: v for k, v in i.items() if k not in changing} for i in items]
        check(strip(after) == strip(before[t["name"]]),
              "%s: table %s changed after writing every entity back" % (name, t["name"]))

    # 5. mistakes
    e = model["entities"][0]
    p = ddb(db, "get", "NoSuchEntity", "a=b", model=model_path, ok=False)
    check(p.returncode == 1 and "has no entity 'NoSuchEntity'" in p.stderr, "%s: unknown entity: %r" % (name, p.stderr))
    p = ddb(db, "get", e["name"], model=model_path, ok=False)
    check(p.returncode == 1 and "key needs" in p.stderr, "%s: missing key field: %r" % (name, p.stderr))
    p = ddb(db, "put", e["name"], '{"no_such_field": 1}', model=model_path, ok=False)
    check(p.returncode == 1 and "has no field 'no_such_field'" in p.stderr, "%s: unknown field: %r" % (name, p.stderr))
    chars = [f for f in e["fields"] if f["ctype"].startswith("char[")]
    if chars:
        p = ddb(db, "put", e["name"], json.dumps({chars[0]["name"]: "x" * (chars[0]["max_len"] + 1)}),
                model=model_path, ok=False)
        check(p.returncode == 1 and "holds at most %d bytes" % chars[0]["max_len"] in p.stderr,
              "%s: too long: %r" % (name, p.stderr))
    print("ok: %s" % name)


os.makedirs(WORK, exist_ok=True)
p = subprocess.run([DDB, "--db", WORK, "patterns"], capture_output=True, text=True, env=dict(os.environ, DDB_MODEL=""))
check(p.returncode == 2 and "needs the schema's model" in p.stderr, "patterns without a model: %r" % p.stderr)
for s in SEEDS:
    seed(s)
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
