#!/usr/bin/env python3
"""`ddb serve` and global secondary indexes with multi-attribute keys, driven
by boto3 and, when it is installed, the AWS CLI: CreateTable, UpdateTable and
DescribeTable with a KeySchema of several HASH and several RANGE elements,
items written and queried through such an index, pages, Scan, errors, the
definition read back by a restarted server, and the ddb tool on its
directory (describe, query --key-condition, check, export and import).

DynamoDB's rules, as the developer guide's "Multi-attribute keys pattern"
(GSI.DesignPattern.MultiAttributeKeys.html) and the API reference's
KeySchemaElement / CreateGlobalSecondaryIndexAction ("Global secondary index
supports up to 4 partition and up to 4 sort keys") give them: the HASH
elements (up to four) are hashed together, the RANGE elements (up to four)
order the items in declared order, each attribute by its own type; a Query
gives every HASH attribute with equality and the RANGE attributes left to
right, equality on each but the last one named; an item missing any key
attribute is not in the index; a table's and an LSI's KeySchema keep at
most two elements (API_CreateTable, API_LocalSecondaryIndex).

usage: test_multi_key.py DDB_TOOL WORKDIR     (exit 77 = skipped: no boto3)
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server  # noqa: E402

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError:
    print("skipped: boto3 is not installed (Debian python3-boto3)")
    sys.exit(77)

DDB, WORK = sys.argv[1], sys.argv[2]

KEY_SCHEMA = [{"AttributeName": "tid", "KeyType": "HASH"}, {"AttributeName": "rgn", "KeyType": "HASH"},
              {"AttributeName": "round", "KeyType": "RANGE"}, {"AttributeName": "bracket", "KeyType": "RANGE"}]
ATTRS = [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "tid", "AttributeType": "S"},
         {"AttributeName": "rgn", "AttributeType": "S"}, {"AttributeName": "round", "AttributeType": "N"},
         {"AttributeName": "bracket", "AttributeType": "S"}]


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="AKIDMULTI",
                        aws_secret_access_key="multi-secret",
                        config=Config(retries={"max_attempts": 1}, parameter_validation=False))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def error_of(fn, **kw):
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    raise AssertionError("expected an error from %s(%s)" % (fn.__name__, kw))


def create(c):
    c.create_table(TableName="Matches", BillingMode="PAY_PER_REQUEST", AttributeDefinitions=ATTRS,
                   KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                   GlobalSecondaryIndexes=[{"IndexName": "ByRound", "KeySchema": KEY_SCHEMA,
                                            "Projection": {"ProjectionType": "ALL"}}])


def described(c):
    t = c.describe_table(TableName="Matches")["Table"]
    x = t["GlobalSecondaryIndexes"][0]
    check(x["KeySchema"] == KEY_SCHEMA, x["KeySchema"])
    check(sorted(t["AttributeDefinitions"], key=lambda a: a["AttributeName"]) ==
          sorted(ATTRS, key=lambda a: a["AttributeName"]), t["AttributeDefinitions"])


def item(i, tid, rgn, rnd, bracket=None):
    it = {"id": {"S": i}, "tid": {"S": tid}, "rgn": {"S": rgn}, "round": {"N": rnd}}
    if bracket is not None:
        it["bracket"] = {"S": bracket}
    return it


def ids(c, cond, values, forward=True, limit=None):
    out, start, pages = [], None, 0
    while True:
        kw = {"TableName": "Matches", "IndexName": "ByRound", "KeyConditionExpression": cond,
              "ExpressionAttributeValues": values, "ScanIndexForward": forward}
        if limit:
            kw["Limit"] = limit
        if start:
            kw["ExclusiveStartKey"] = start
        r = c.query(**kw)
        out += [i["id"]["S"] for i in r["Items"]]
        start, pages = r.get("LastEvaluatedKey"), pages + 1
        if start:
            # every index key attribute and the table's key
            check(sorted(start) == ["bracket", "id", "rgn", "round", "tid"], start)
        if not start or pages > 50:
            return out


def queries(c):
    for it in [item("m1", "t1", "eu", "10", "a"), item("m2", "t1", "eu", "2", "ab"), item("m3", "t1", "eu", "2", "a"),
               item("m4", "t1", "eu", "-1", "z"), item("o1", "t1", "us", "2", "a"), item("s1", "t1", "eu", "2")]:
        c.put_item(TableName="Matches", Item=it)
    v = {":t": {"S": "t1"}, ":r": {"S": "eu"}}
    check(ids(c, "tid = :t AND rgn = :r", v) == ["m4", "m3", "m2", "m1"], "numbers as numbers, then bytes")
    check(ids(c, "rgn = :r AND tid = :t", v, forward=False, limit=1) == ["m1", "m2", "m3", "m4"], "backward pages")
    v2 = dict(v, **{":n": {"N": "2"}, ":a": {"S": "a"}})
    r = c.query(TableName="Matches", IndexName="ByRound",
                KeyConditionExpression="tid = :t AND rgn = :r AND #n = :n AND bracket > :a",
                ExpressionAttributeNames={"#n": "round"}, ExpressionAttributeValues=v2)
    check([i["id"]["S"] for i in r["Items"]] == ["m2"], r["Items"])
    check(c.scan(TableName="Matches", IndexName="ByRound")["Count"] == 5, "the item without bracket is not indexed")
    # PartiQL on the index (a Scan with the WHERE as its filter)
    r = c.execute_statement(Statement='SELECT id FROM "Matches"."ByRound" WHERE tid = ? AND rgn = ? AND round = ?',
                            Parameters=[{"S": "t1"}, {"S": "eu"}, {"N": "2"}])
    check(sorted(i["id"]["S"] for i in r["Items"]) == ["m2", "m3"], r["Items"])
    # a sort attribute skipped, and a partition attribute missing
    code, msg = error_of(c.query, TableName="Matches", IndexName="ByRound",
                         KeyConditionExpression="tid = :t AND rgn = :r AND bracket = :a",
                         ExpressionAttributeValues={":t": {"S": "t1"}, ":r": {"S": "eu"}, ":a": {"S": "a"}})
    check(code == "ValidationException" and "left to right" in msg, msg)
    code, msg = error_of(c.query, TableName="Matches", IndexName="ByRound", KeyConditionExpression="tid = :t",
                         ExpressionAttributeValues={":t": {"S": "t1"}})
    check(code == "ValidationException" and msg == "Query condition missed key schema element: rgn", msg)
    # a key attribute of another type
    code, msg = error_of(c.put_item, TableName="Matches", Item=dict(item("x", "t1", "eu", "1", "a"),
                                                                     rgn={"N": "1"}))
    check(code == "ValidationException" and
          "Type mismatch for Index Key rgn Expected: S Actual: N IndexName: ByRound" in msg, msg)


def definitions(c):
    # UpdateTable: a multi-attribute index created over the items there, then deleted
    c.update_table(TableName="Matches", AttributeDefinitions=ATTRS,
                   GlobalSecondaryIndexUpdates=[{"Create": {
                       "IndexName": "ByRegion", "Projection": {"ProjectionType": "KEYS_ONLY"},
                       "KeySchema": [{"AttributeName": "rgn", "KeyType": "HASH"},
                                     {"AttributeName": "tid", "KeyType": "HASH"},
                                     {"AttributeName": "bracket", "KeyType": "RANGE"}]}}])
    r = c.query(TableName="Matches", IndexName="ByRegion", KeyConditionExpression="rgn = :r AND tid = :t",
                ExpressionAttributeValues={":t": {"S": "t1"}, ":r": {"S": "eu"}})
    got = [i["id"]["S"] for i in r["Items"]]
    # (m1 and m3 have equal index keys: in the order of their table keys)
    check(sorted(got[:2]) == ["m1", "m3"] and got[2:] == ["m2", "m4"], r["Items"])
    check(all(sorted(i) == ["bracket", "id", "rgn", "tid"] for i in r["Items"]), "KEYS_ONLY: the keys")
    c.update_table(TableName="Matches", GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByRegion"}}])
    # not for a local secondary index
    code, msg = error_of(c.create_table, TableName="Lsi", BillingMode="PAY_PER_REQUEST", AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "s", "AttributeType": "S"},
        {"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "s", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{"IndexName": "Lsi1", "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
            {"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "RANGE"},
            {"AttributeName": "b", "KeyType": "RANGE"}]}])
    check(code == "ValidationException" and "less than or equal to 2" in msg, msg)
    # five HASH elements
    five = [{"AttributeName": n, "KeyType": "HASH"} for n in "abcde"]
    code, msg = error_of(c.create_table, TableName="Five", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in "abcdep"],
                         KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                         GlobalSecondaryIndexes=[{"IndexName": "Gsi5", "KeySchema": five,
                                                  "Projection": {"ProjectionType": "ALL"}}])
    check(code == "ValidationException" and "up to 4 partition and up to 4 sort keys" in msg, msg)


def awscli(endpoint):
    aws = shutil.which("aws")
    if not aws:
        print("the AWS CLI is not installed: its part is skipped")
        return
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDMULTI", AWS_SECRET_ACCESS_KEY="multi-secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_MAX_ATTEMPTS="1")

    def run(*args):
        p = subprocess.run([aws, "--endpoint-url", endpoint, "--output", "json", "dynamodb"] + list(args),
                           capture_output=True, text=True, env=env, timeout=120)
        check(p.returncode == 0, "aws %s: %s" % (args[0], p.stderr))
        return json.loads(p.stdout)

    t = run("describe-table", "--table-name", "Matches")["Table"]
    check(t["GlobalSecondaryIndexes"][0]["KeySchema"] == KEY_SCHEMA, t)
    r = run("query", "--table-name", "Matches", "--index-name", "ByRound", "--key-condition-expression",
            "tid = :t AND rgn = :r", "--expression-attribute-values", json.dumps({":t": {"S": "t1"},
                                                                                  ":r": {"S": "eu"}}))
    check([i["id"]["S"] for i in r["Items"]] == ["m4", "m3", "m2", "m1"], r)


def tool(*args):
    p = subprocess.run([DDB] + list(args), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "ddb %s: %s" % (" ".join(args), p.stderr))
    return p.stdout


def tool_ids(db):
    out = tool("--db", db, "query", "Matches", "--index", "ByRound", "--key-condition", "tid = :t AND rgn = :r",
               "--values", json.dumps({":t": {"S": "t1"}, ":r": {"S": "eu"}}))
    return [json.loads(line)["id"]["S"] for line in out.splitlines()]


def tools_and_export(db):
    """The ddb tool on the server's directory: describe, query, check; then
    export and import into a fresh table with the same index."""
    check("(tid (S), rgn (S)), (round (N), bracket (S))" in tool("--db", db, "describe", "Matches"), "describe")
    check(tool_ids(db) == ["m4", "m3", "m2", "m1"], "ddb query --key-condition")
    check("all clean" in tool("--db", db, "check"), "ddb check")
    dump = os.path.join(WORK, "matches.jsonl")
    tool("--db", db, "export", "Matches", dump)
    with Server(DDB, os.path.join(WORK, "imported")) as s:
        create(client(s.endpoint))
        db2 = s.db
    tool("--db", db2, "import", "Matches", dump)
    check(tool_ids(db2) == ["m4", "m3", "m2", "m1"], "the index of the imported items")
    check("all clean" in tool("--db", db2, "check"), "ddb check after the import")


def main():
    with Server(DDB, os.path.join(WORK, "multi")) as s:
        c = client(s.endpoint)
        create(c)
        described(c)
        queries(c)
        definitions(c)
        awscli(s.endpoint)
        db = s.db
    # the definition and the index entries are kept in the database directory
    with Server(DDB, os.path.join(WORK, "multi"), db=db, fresh=False) as s:
        c = client(s.endpoint)
        described(c)
        check(ids(c, "tid = :t AND rgn = :r", {":t": {"S": "t1"}, ":r": {"S": "eu"}}) == ["m4", "m3", "m2", "m1"],
              "after a restart")
    tools_and_export(db)
    print("ok")


if __name__ == "__main__":
    main()
