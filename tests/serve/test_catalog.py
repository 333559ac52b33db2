#!/usr/bin/env python3
"""`ddb serve` and table definitions (issue 22 section 1), driven by boto3:
a CreateTable or UpdateTable that DynamoDB refuses is refused with a
ValidationException and stores nothing, and after every one the server
keeps serving every table, also after a restart; a definition damaged on
disk is that table's problem only.  The limits are
DynamoDB's: API_Projection.html (NonKeyAttributes members 1..255 bytes),
API_KeySchemaElement.html (AttributeName 1..255 bytes),
HowItWorks.NamingRulesDataTypes.html (UTF-8 bytes are counted).

usage: test_catalog.py DDB_TOOL WORKDIR       (exit 77 = skipped: no boto3)
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server  # noqa: E402

import sdk  # noqa: E402  (exit 77 without boto3)

DDB, WORK = sys.argv[1], sys.argv[2]


def client(endpoint):
    return sdk.client(endpoint, validate=False)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def error_of(fn, **kw):
    """fn(**kw) must fail: its code, message and ResponseMetadata."""
    code, msg, response = sdk.error_of(fn, **kw)
    return code, msg, response["ResponseMetadata"]


def ok_works(c, n):
    c.put_item(TableName="Okay", Item={"pk": {"S": "k%d" % n}})
    check(c.get_item(TableName="Okay", Key={"pk": {"S": "k%d" % n}})["Item"] == {"pk": {"S": "k%d" % n}}, "Ok table")


def index_table(name, local, nonkey):
    """CreateTable arguments: table (a, c) with one index projecting nonkey."""
    x = {"IndexName": "idx", "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [nonkey]}}
    kw = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
          "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"},
                                   {"AttributeName": "c", "AttributeType": "S"}]}
    if local:
        kw["AttributeDefinitions"].append({"AttributeName": "b", "AttributeType": "S"})
        kw["KeySchema"] = [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}]
        x["KeySchema"] = [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "c", "KeyType": "RANGE"}]
        kw["LocalSecondaryIndexes"] = [x]
    else:
        kw["KeySchema"] = [{"AttributeName": "a", "KeyType": "HASH"}]
        x["KeySchema"] = [{"AttributeName": "c", "KeyType": "HASH"}]
        kw["GlobalSecondaryIndexes"] = [x]
    return kw


def main():
    s = Server(DDB, WORK)
    s.start()
    try:
        c = client(s.endpoint)
        c.create_table(TableName="Okay", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        n = 0
        # the reproduction: 256 bytes (ASCII, or 128 x "é") in a GSI's or an LSI's projection
        for local in (False, True):
            for bad in ("x" * 256, "\u00e9" * 128):
                code, msg, meta = error_of(c.create_table, **index_table("bad", local, bad))
                check(code == "ValidationException" and meta["HTTPStatusCode"] == 400, (code, msg))
                check("Member must have length less than or equal to 255" in msg, msg)
                check("bad" not in c.list_tables()["TableNames"], "nothing stored")
                n += 1
                ok_works(c, n)
        # 255 bytes (and 127 x "é" + "x") are accepted, and load again after a restart
        for i, good in enumerate(("x" * 255, "\u00e9" * 127 + "x")):
            for local in (False, True):
                name = "good%d%s" % (i, "L" if local else "G")
                c.create_table(**index_table(name, local, good))
        # UpdateTable: a GSI whose projection names 256 bytes is refused the same way
        code, msg, _ = error_of(
            c.update_table, TableName="Okay",
            AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "late", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["\u00e9" * 128]}}}])
        check(code == "ValidationException" and "less than or equal to 255" in msg, (code, msg))
        # one index created or deleted per UpdateTable (DynamoDB: "Subscriber limit exceeded: Only 1 online
        # index can be created or deleted simultaneously per table", quoted in taoensso/faraday issue 80):
        # two are refused and neither is created
        gsi = lambda n: {"Create": {"IndexName": n, "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}}
        code, msg, _ = error_of(c.update_table, TableName="Okay",
                                AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                                GlobalSecondaryIndexUpdates=[gsi("two1"), gsi("two2")])
        check(code == "LimitExceededException" and "Only 1 online index" in msg, (code, msg))
        check("GlobalSecondaryIndexes" not in c.describe_table(TableName="Okay")["Table"], "no index created")
        # UpdateTimeToLive: 256 bytes refused (API_TimeToLiveSpecification.html: AttributeName 1..255)
        code, msg, _ = error_of(c.update_time_to_live, TableName="Okay",
                                TimeToLiveSpecification={"Enabled": True, "AttributeName": "\u00e9" * 128})
        check(code == "ValidationException", (code, msg))
        # two AttributeDefinitions of one name (DynamoDB's answer as pynamodb's tests, run against it, show)
        kw = index_table("dupdefs", False, "p")
        kw["AttributeDefinitions"].append({"AttributeName": "c", "AttributeType": "N"})
        code, msg, _ = error_of(c.create_table, **kw)
        check(code == "ValidationException" and "Cannot have two attributes with the same name" in msg, (code, msg))
        # duplicate index names and duplicate NonKeyAttributes (API_CreateTable, API_Projection)
        kw = index_table("dupidx", False, "p")
        kw["GlobalSecondaryIndexes"].append(dict(kw["GlobalSecondaryIndexes"][0]))
        code, msg, _ = error_of(c.create_table, **kw)
        check(code == "ValidationException" and "Duplicate index name: idx" in msg, (code, msg))
        kw = index_table("dupinc", False, "p")
        kw["GlobalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"] = ["p", "q", "p"]
        code, msg, _ = error_of(c.create_table, **kw)
        check(code == "ValidationException" and "Duplicate" in msg, (code, msg))
        # tags (API_Tag.html: keys 1..128 characters, values 0..256, at most 50): a CreateTable refused
        # for its tags creates no table
        for tags in ([{"Key": "k" * 129, "Value": "v"}], [{"Key": "k", "Value": "\u00e9" * 257}],
                     [{"Key": "k%d" % i, "Value": ""} for i in range(51)]):
            kw = index_table("tagged", False, "p")
            kw["Tags"] = tags
            code, msg, _ = error_of(c.create_table, **kw)
            check(code in ("ValidationException", "LimitExceededException"), (code, msg))
            check("tagged" not in c.list_tables()["TableNames"], "no table for refused tags")
        kw = index_table("tagged", False, "p")
        kw["Tags"] = [{"Key": "\u00e9" * 128, "Value": "\u00e9" * 256}]
        c.create_table(**kw)
        c.delete_table(TableName="tagged")
        ok_works(c, 100)
    finally:
        check(s.stop() == 0, "clean shutdown")
    s = Server(DDB, WORK, fresh=False)
    s.start()
    try:
        c = client(s.endpoint)
        ok_works(c, 101)
        names = c.list_tables()["TableNames"]
        check(names == ["Okay", "good0G", "good0L", "good1G", "good1L"], names)
        for name in names[1:]:
            d = c.describe_table(TableName=name)["Table"]
            x = (d.get("GlobalSecondaryIndexes") or d.get("LocalSecondaryIndexes"))[0]
            got = x["Projection"]["NonKeyAttributes"][0]
            check(len(got.encode()) == 255, (name, len(got.encode())))
    finally:
        check(s.stop() == 0, "clean shutdown")
    damaged_definition()
    print("ok")


def damaged_definition():
    """A table whose stored definition is damaged on disk is that table's problem only: the server
    starts, the table answers a non-retryable 400 naming it, the other tables read and write,
    `ddb check` reports it, and DeleteTable (`ddb delete-table`) is the way out."""
    if not shutil.which("mdb_load"):
        print("skipped the damaged definition: mdb_load (Debian lmdb-utils) is not installed")
        return
    s = Server(DDB, WORK, fresh=False)
    s.start()
    try:
        c = client(s.endpoint)
        c.create_table(**index_table("Hurt", False, "p"))
        c.put_item(TableName="Hurt", Item={"a": {"S": "x"}, "c": {"S": "y"}})
    finally:
        check(s.stop() == 0, "clean shutdown")
    # damage the stored definition "t/Hurt" through LMDB (mdb_load -T: key and value lines)
    subprocess.run(["mdb_load", "-T", "-s", "meta", s.db], input=b"t/Hurt\n\\01garbage\n", check=True)
    s = Server(DDB, WORK, fresh=False)
    s.start()
    try:
        c = client(s.endpoint)
        code, msg, meta = error_of(c.get_item, TableName="Hurt", Key={"a": {"S": "x"}})
        check(meta["HTTPStatusCode"] == 400 and code == "TableDamagedException", (code, msg, meta))
        check("table Hurt" in msg and "delete-table" in msg, msg)
        # an SDK with its default retries does not retry it (a 5xx would be retried)
        retrying = sdk.client(s.endpoint, retries={"mode": "standard", "max_attempts": 3})
        code, msg, meta = error_of(retrying.put_item, TableName="Hurt", Item={"a": {"S": "z"}})
        check(meta["HTTPStatusCode"] == 400 and meta["RetryAttempts"] == 0, meta)
        ok_works(c, 200)  # the other tables read and write, after the damage was seen
        check("Hurt" in c.list_tables()["TableNames"], "listed")
    finally:
        check(s.stop() == 0, "clean shutdown")
    out = subprocess.run([DDB, "--db", s.db, "check"], capture_output=True, text=True)
    check(out.returncode == 1 and "table Hurt" in out.stdout and "does not decode" in out.stdout, out)
    check("table Okay: ok" in out.stdout, out.stdout)
    out = subprocess.run([DDB, "--db", s.db, "export", "Okay"], capture_output=True, text=True)
    check(out.returncode == 0 and '"k200"' in out.stdout, out)
    out = subprocess.run([DDB, "--db", s.db, "delete-table", "Hurt"], capture_output=True, text=True)
    check(out.returncode == 0, out)
    out = subprocess.run([DDB, "--db", s.db, "check"], capture_output=True, text=True)
    check(out.returncode == 0, out)


main()
