#!/usr/bin/env python3
"""The answers whose items ddb serve writes as text (tools/ddb/serve/reply_direct.c,
jwrite.c) next to members built as JSON (ConsumedCapacity, UnprocessedKeys):
GetItem (found, missing, with capacity), Query (every page member, Limit and
LastEvaluatedKey, Select COUNT, capacity), Scan with a projection,
BatchGetItem over two tables with missing keys, TransactGetItems, and the
Attributes of UpdateItem, PutItem and DeleteItem (ReturnValues).  Each answer must be one JSON
object without duplicate members, its x-amz-crc32 must match, and its items
must be exactly what was written (every type, unicode, control characters; the request parser refuses NUL).
Plain HTTP from the standard library (and serve_proc.py to run the server):
no SDK, never skipped.

    test_direct_replies.py DDB WORKDIR
"""
import json
import os
import sys
import urllib.error
import urllib.request
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def no_duplicates(pairs):
    names = [k for k, _ in pairs]
    if len(names) != len(set(names)):
        raise ValueError("duplicate members: %r" % names)
    return dict(pairs)


def call(endpoint, op, body):
    req = urllib.request.Request(endpoint, data=json.dumps(body).encode(), method="POST", headers={
        "X-Amz-Target": "DynamoDB_20120810." + op, "Content-Type": "application/x-amz-json-1.0"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            crc = r.headers.get("x-amz-crc32")
    except urllib.error.HTTPError as e:
        raise RuntimeError("%s answered %d: %s" % (op, e.code, e.read()[:500])) from None
    check(crc == str(zlib.crc32(raw)), "%s: x-amz-crc32 %s matches the body" % (op, crc))
    return json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates)


def item(pk, sk, extra=None):
    it = {"pk": {"S": pk}, "sk": {"N": str(sk)}}
    it.update(extra or {})
    return it


EVERY_TYPE = {
    "s": {"S": "h\u00e9llo \"q\" \\ / \u20ac \U0001F600 \x01\x1f\n\t\x7f end"},
    "n": {"N": "-12345678901234567890123456789012345678"},
    "small": {"N": "0.000001"},
    "b": {"B": "AAEC/w=="},
    "t": {"BOOL": True},
    "f": {"BOOL": False},
    "z": {"NULL": True},
    "l": {"L": [{"S": ""}, {"N": "1"}, {"L": []}, {"M": {}}]},
    "m": {"M": {"k\u00e9y": {"M": {"deep": {"SS": ["a", "b"]}}}, "": {"S": "empty name"}}},
    "ss": {"SS": ["x", "\u00fc"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": ["AQ==", "AQI="]},
    "es": {"S": ""},
}


def run(endpoint):
    for t, keys in (("tab1", [("pk", "S", "HASH"), ("sk", "N", "RANGE")]), ("tab2", [("pk", "S", "HASH")])):
        call(endpoint, "CreateTable", {
            "TableName": t, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": n, "AttributeType": ty} for n, ty, _ in keys],
            "KeySchema": [{"AttributeName": n, "KeyType": k} for n, _, k in keys]})
    items = [item("p", i, EVERY_TYPE if i == 1 else {"i": {"N": str(i)}}) for i in range(5)]
    for it in items:
        call(endpoint, "PutItem", {"TableName": "tab1", "Item": it})
    call(endpoint, "PutItem", {"TableName": "tab2", "Item": {"pk": {"S": "only"}}})

    r = call(endpoint, "GetItem", {"TableName": "tab1", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}})
    check(r == {"Item": items[1]}, "GetItem of every type: %r" % r)
    r = call(endpoint, "GetItem", {"TableName": "tab1", "Key": {"pk": {"S": "p"}, "sk": {"N": "9"}}})
    check(r == {}, "GetItem of a missing item: %r" % r)
    r = call(endpoint, "GetItem", {"TableName": "tab1", "Key": {"pk": {"S": "p"}, "sk": {"N": "2"}},
                                   "ReturnConsumedCapacity": "TOTAL"})
    check(r.get("Item") == items[2] and r.get("ConsumedCapacity", {}).get("TableName") == "tab1",
          "GetItem with ConsumedCapacity: %r" % r)
    r = call(endpoint, "GetItem", {"TableName": "tab1", "Key": {"pk": {"S": "p"}, "sk": {"N": "9"}},
                                   "ReturnConsumedCapacity": "TOTAL"})
    check(set(r) == {"ConsumedCapacity"}, "GetItem of a missing item with ConsumedCapacity: %r" % r)

    q = {"TableName": "tab1", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}
    r = call(endpoint, "Query", q)
    check(r == {"Items": items, "Count": 5, "ScannedCount": 5}, "Query of the partition: %r" % r)
    r = call(endpoint, "Query", dict(q, Limit=2, ReturnConsumedCapacity="TOTAL"))
    check(r.get("Items") == items[:2] and r.get("Count") == 2 and r.get("ScannedCount") == 2 and
          r.get("LastEvaluatedKey") == {"pk": {"S": "p"}, "sk": {"N": "1"}} and "ConsumedCapacity" in r,
          "Query page with LastEvaluatedKey and ConsumedCapacity: %r" % r)
    r = call(endpoint, "Query", dict(q, Select="COUNT"))
    check(r == {"Count": 5, "ScannedCount": 5}, "Query Select COUNT: %r" % r)
    r = call(endpoint, "Query", dict(q, KeyConditionExpression="pk = :p AND sk > :s",
                                     ExpressionAttributeValues={":p": {"S": "p"}, ":s": {"N": "9"}}))
    check(r == {"Items": [], "Count": 0, "ScannedCount": 0}, "Query matching nothing: %r" % r)

    r = call(endpoint, "Scan", {"TableName": "tab1", "ProjectionExpression": "sk, s"})
    want = sorted([{"sk": it["sk"], **({"s": it["s"]} if "s" in it else {})} for it in items],
                  key=lambda x: x["sk"]["N"])
    check(sorted(r.get("Items", []), key=lambda x: x["sk"]["N"]) == want and r.get("Count") == 5,
          "Scan with a projection: %r" % r)

    r = call(endpoint, "BatchGetItem", {"RequestItems": {
        "tab1": {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "3"}}, {"pk": {"S": "p"}, "sk": {"N": "9"}},
                        {"pk": {"S": "p"}, "sk": {"N": "1"}}]},
        "tab2": {"Keys": [{"pk": {"S": "none"}}]}}, "ReturnConsumedCapacity": "TOTAL"})
    got = sorted(r.get("Responses", {}).get("tab1", []), key=lambda x: x["sk"]["N"])
    check(got == [items[1], items[3]] and r["Responses"].get("tab2") == [] and r.get("UnprocessedKeys") == {} and
          "ConsumedCapacity" in r, "BatchGetItem over two tables: %r" % r)
    r = call(endpoint, "TransactGetItems", {"TransactItems": [
        {"Get": {"TableName": "tab1", "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}},
        {"Get": {"TableName": "tab2", "Key": {"pk": {"S": "none"}}}},
        {"Get": {"TableName": "tab2", "Key": {"pk": {"S": "only"}}}}]})
    check(r == {"Responses": [{"Item": items[1]}, {}, {"Item": {"pk": {"S": "only"}}}]}, "TransactGetItems: %r" % r)

    key4 = {"pk": {"S": "p"}, "sk": {"N": "4"}}
    r = call(endpoint, "UpdateItem", {"TableName": "tab1", "Key": key4, "UpdateExpression": "SET s = :s",
                                      "ExpressionAttributeValues": {":s": EVERY_TYPE["s"]}, "ReturnValues": "ALL_NEW",
                                      "ReturnConsumedCapacity": "TOTAL"})
    items[4] = dict(items[4], s=EVERY_TYPE["s"])
    check(r.get("Attributes") == items[4] and "ConsumedCapacity" in r, "UpdateItem ALL_NEW: %r" % r)
    r = call(endpoint, "PutItem", {"TableName": "tab1", "Item": items[3], "ReturnValues": "ALL_OLD"})
    check(r == {"Attributes": items[3]}, "PutItem ALL_OLD: %r" % r)
    r = call(endpoint, "PutItem", {"TableName": "tab1", "Item": item("p", 7), "ReturnValues": "ALL_OLD"})
    check(r == {}, "PutItem ALL_OLD of a new item: %r" % r)
    r = call(endpoint, "DeleteItem", {"TableName": "tab1", "Key": key4, "ReturnValues": "ALL_OLD"})
    check(r == {"Attributes": items[4]}, "DeleteItem ALL_OLD: %r" % r)
    r = call(endpoint, "BatchGetItem", {"RequestItems": {"tab2": {"Keys": [{"pk": {"S": "only"}}]}}})
    check(r == {"Responses": {"tab2": [{"pk": {"S": "only"}}]}, "UnprocessedKeys": {}}, "BatchGetItem: %r" % r)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    with Server(sys.argv[1], sys.argv[2]) as s:
        run(s.endpoint)
    print("%d failure(s)" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
