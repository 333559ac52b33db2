#!/usr/bin/env python3
"""NoSQL Workbench models both ways (ddbgen --emit-workbench and
--import-workbench):

1. A model written by hand in Workbench's format (workbench/library.json:
   key aliases that are only attribute names, a GSI, a map, zero-padded
   numbers) becomes exactly workbench/library.expected.h, whose templates
   come from the sample items, and ddbgen accepts that draft.
2. Round trip, for the six seed schemas and infra_schema.h: schema ->
   Workbench model -> draft schema (accepted by ddbgen) -> Workbench model
   again holds the same tables, key attributes, GSIs and projections,
   billing mode, facets with their key aliases and attributes, and the same
   key attributes in each facet's sample item (so the GSI key templates came
   back too).  What a Workbench model cannot hold is the known loss: map and
   list attributes (a TODO in the draft) and LSIs (a warning on export).
3. A file that is not a Workbench model is a usage error naming what is
   missing, and 300 seeded mutations of library.json (members dropped or
   replaced by values of other JSON types) each end in a draft or a usage
   error: never a crash (the ASan build runs this too).

usage: test_workbench.py DDBGEN SOURCE_DIR WORKDIR
"""
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DDBGEN, SRC, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(args, cwd=None):
    return subprocess.run([DDBGEN] + args, capture_output=True, text=True, cwd=cwd)


def hand_written():
    p = run(["--import-workbench", "workbench/library.json"], cwd=HERE)
    check(p.returncode == 0, "import of library.json: exit %d %s" % (p.returncode, p.stderr))
    with open(os.path.join(HERE, "workbench", "library.expected.h")) as f:
        check(p.stdout == f.read(), "library.json's draft differs from library.expected.h:\n" + p.stdout)
    v = run(["--emit-model", os.devnull, os.path.join(HERE, "workbench", "library.expected.h")])
    check(v.returncode == 0, "ddbgen rejects library.expected.h: %s" % v.stderr)


def summary(model):
    """What a round trip must keep, table by table."""
    out = []
    for t in model["DataModel"]:
        types = {a["AttributeName"]: a["AttributeType"] for a in t["NonKeyAttributes"]}
        kept = lambda names: sorted(n for n in names if types.get(n) not in ("M", "L"))
        facets = []
        for f in t["TableFacets"]:
            item = (f.get("TableData") or [{}])[0]
            keys = [t["KeyAttributes"]["PartitionKey"]["AttributeName"]]
            keys += [t["KeyAttributes"]["SortKey"]["AttributeName"]] if "SortKey" in t["KeyAttributes"] else []
            for g in t.get("GlobalSecondaryIndexes", []):
                keys += [k["AttributeName"] for k in g["KeyAttributes"].values()]
            facets.append({"name": f["FacetName"], "alias": f["KeyAttributeAlias"],
                           "attributes": kept(f["NonKeyAttributes"]),
                           "sample keys": {k: item[k] for k in keys if k in item}})
        out.append({"table": t["TableName"], "keys": t["KeyAttributes"],
                    "gsis": t.get("GlobalSecondaryIndexes", []), "billing": t.get("BillingMode"),
                    "throughput": t.get("ProvisionedCapacitySettings"),
                    "attributes": kept(types), "facets": facets})
    return out


def round_trip(schema):
    name = os.path.basename(schema)
    first, draft, second = (os.path.join(WORK, name + x) for x in (".wb.json", ".draft.h", ".wb2.json"))
    p = run(["-I", os.path.join(SRC, "schemas"), "--emit-workbench", first, schema])
    check(p.returncode == 0, "%s: --emit-workbench exit %d %s" % (name, p.returncode, p.stderr))
    has_lsi = "DDB_LSI" in open(schema).read()
    check(("no local secondary indexes" in p.stderr) == has_lsi, "%s: the LSI warning: %r" % (name, p.stderr))
    p = run(["--import-workbench", "--draft-out", draft, first])
    check(p.returncode == 0, "%s: --import-workbench exit %d %s" % (name, p.returncode, p.stderr))
    p = run(["--emit-workbench", second, draft])
    check(p.returncode == 0, "%s: ddbgen rejects its draft: %s" % (name, p.stderr))
    if p.returncode == 0:
        a, b = summary(json.load(open(first))), summary(json.load(open(second)))
        check(a == b, "%s: round trip differs\n  first  %s\n  second %s" % (name, a, b))
    print("ok: %s" % name)


def not_a_model():
    bad = os.path.join(WORK, "not_a_model.json")
    with open(bad, "w") as f:
        json.dump({"DataModel": [{"KeyAttributes": {}}]}, f)
    p = run(["--import-workbench", bad])
    check(p.returncode == 2 and 'DataModel[0]: no "TableName"' in p.stderr and p.stdout == "",
          "not a model: exit %d %r" % (p.returncode, p.stderr))


def mutations():
    import random
    rng = random.Random(int(os.environ.get("DDB_WORKBENCH_SEED", "22")))
    base = json.load(open(os.path.join(HERE, "workbench", "library.json")))
    others = [None, 0, -1, 1.5, "", "x" * 300, [], {}, True, ["a", 1], {"S": "v"}]

    def nodes(v, out):
        out.append(v)
        for c in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else []):
            nodes(c, out)
        return out
    path = os.path.join(WORK, "mutated.json")
    for round_no in range(150):
        doc = json.loads(json.dumps(base))
        for _ in range(rng.randint(1, 4)):
            containers = [n for n in nodes(doc, []) if isinstance(n, (dict, list)) and n]
            c = rng.choice(containers)
            k = rng.choice(list(c.keys())) if isinstance(c, dict) else rng.randrange(len(c))
            if isinstance(c, dict) and rng.random() < 0.3:
                del c[k]
            else:
                c[k] = rng.choice(others)
        with open(path, "w") as f:
            json.dump(doc, f)
        p = run(["--import-workbench", path])
        check(p.returncode in (0, 2) and "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
              "mutation %d (DDB_WORKBENCH_SEED): exit %d %s" % (round_no, p.returncode, p.stderr[-400:]))
        if failures:
            break


os.makedirs(WORK, exist_ok=True)
hand_written()
mutations()
for s in sorted(glob.glob(os.path.join(SRC, "schemas", "*.h"))) + [os.path.join(HERE, "infra_schema.h")]:
    round_trip(s)
not_a_model()
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
