#!/usr/bin/env python3
"""`ddb serve` driven by boto3 on the READ side (tests/trial/music): the
error a careless reader gets for an invalid Scan, Query or BatchGetItem,
checked against DynamoDB's words; each case names the documentation page
(API reference action) it follows.  boto3's own parameter validation is
off, so requests reach the server as written.

usage: test_serve_reads.py DDB_TOOL WORKDIR       (exit 77 = skipped: no boto3)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "serve"))
from serve_proc import Server  # noqa: E402

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError:
    print("skipped: boto3 is not installed (Debian python3-boto3)")
    sys.exit(77)

DDB, WORK = sys.argv[1], sys.argv[2]
failures = []


def fails(what, code, starts, fn, **kw):
    """fn(**kw) must fail with exception `code` and a message starting with `starts`."""
    try:
        fn(**kw)
    except ClientError as e:
        got = (e.response["Error"]["Code"], e.response["Error"]["Message"])
        if not (got[0] == code and got[1].startswith(starts)):
            failures.append(what)
            print("FAIL: %s: got %r, want (%r, %r...)" % (what, got, code, starts))
        return
    failures.append(what)
    print("FAIL: %s: no error (want %s)" % (what, code))


def K(i):
    return {"pk": {"S": "p"}, "sk": {"S": "s%03d" % i}}


def run(c):
    c.create_table(TableName="Music", BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}])
    for i in range(5):
        c.put_item(TableName="Music", Item=K(i))
    V = {":p": {"S": "p"}}

    # API_Scan, Segment / TotalSegments: either needs the other; the message names the missing one
    # (DynamoDB's words as dynalite's validations/scan.js and other emulators written against it have them)
    fails("Segment without TotalSegments", "ValidationException",
          "The TotalSegments parameter is required but was not present in the request when Segment parameter is "
          "present", c.scan, TableName="Music", Segment=0)
    fails("TotalSegments without Segment", "ValidationException",
          "The Segment parameter is required but was not present in the request when parameter TotalSegments is "
          "present", c.scan, TableName="Music", TotalSegments=2)
    # API_Scan, Segment: "must be less than the value provided for TotalSegments"
    fails("Segment >= TotalSegments", "ValidationException",
          "The Segment parameter is zero-based and must be less than parameter TotalSegments", c.scan,
          TableName="Music", Segment=4, TotalSegments=4)
    # API_Scan, TotalSegments: "Valid Range: Minimum value of 1. Maximum value of 1000000."
    fails("TotalSegments over 1000000", "ValidationException",
          "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must "
          "have value less than or equal to 1000000", c.scan, TableName="Music", Segment=0, TotalSegments=1000001)
    # the union of the segments is the whole table, each item once
    seen = []
    for seg in range(3):
        seen += [i["sk"]["S"] for i in c.scan(TableName="Music", Segment=seg, TotalSegments=3)["Items"]]
    if sorted(seen) != ["s%03d" % i for i in range(5)]:
        failures.append("segments")
        print("FAIL: segments: %r" % seen)

    # API_BatchGetItem: "If you request more than 100 items, BatchGetItem returns a ValidationException"
    # (over 100 keys of one table break the request model's Keys constraint, as DynamoDB reports it)
    fails("101 keys", "ValidationException", "1 validation error detected", c.batch_get_item,
          RequestItems={"Music": {"Keys": [K(i) for i in range(101)]}})
    # API_BatchGetItem: a key twice
    fails("one key twice", "ValidationException", "Provided list of item keys contains duplicates",
          c.batch_get_item, RequestItems={"Music": {"Keys": [K(1), K(1)]}})

    # API_Query, Select: COUNT with a projection (DynamoDB's words as ExtendDB's dual-target
    # tests measured them, tests/test_wording_parity_validation.py)
    fails("COUNT with a projection", "ValidationException",
          "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count",
          c.query,
          TableName="Music", Select="COUNT", ProjectionExpression="sk", KeyConditionExpression="pk = :p",
          ExpressionAttributeValues=V)
    # API_Query, IndexName
    fails("no such index", "ValidationException", "The table does not have the specified index: Nope", c.query,
          TableName="Music", IndexName="Nope", KeyConditionExpression="pk = :p", ExpressionAttributeValues=V)
    # API_Query, KeyConditionExpression: the partition key takes an equality only
    fails("begins_with on the partition key", "ValidationException", "Query key condition not supported", c.query,
          TableName="Music", KeyConditionExpression="begins_with(pk, :p)", ExpressionAttributeValues=V)
    # API_Query, ExclusiveStartKey: the table's whole key, inside the condition's partition
    fails("start key without the sort key", "ValidationException", "The provided starting key is invalid", c.query,
          TableName="Music", ExclusiveStartKey={"pk": {"S": "p"}}, KeyConditionExpression="pk = :p",
          ExpressionAttributeValues=V)
    fails("start key of another partition", "ValidationException",
          "The provided starting key is outside query boundaries based on provided conditions", c.query,
          TableName="Music", ExclusiveStartKey={"pk": {"S": "q"}, "sk": {"S": "a"}},
          KeyConditionExpression="pk = :p", ExpressionAttributeValues=V)
    # API_GetItem: legacy and expression parameters together
    fails("AttributesToGet with ProjectionExpression", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request", c.get_item,
          TableName="Music", Key=K(1), AttributesToGet=["sk"], ProjectionExpression="sk")
    # a cursor resumes exactly: Limit 2 from the first page's LastEvaluatedKey
    r1 = c.query(TableName="Music", KeyConditionExpression="pk = :p", ExpressionAttributeValues=V, Limit=2)
    r2 = c.query(TableName="Music", KeyConditionExpression="pk = :p", ExpressionAttributeValues=V, Limit=2,
                 ExclusiveStartKey=r1["LastEvaluatedKey"])
    if [i["sk"]["S"] for i in r2["Items"]] != ["s002", "s003"]:
        failures.append("cursor")
        print("FAIL: cursor: %r" % r2["Items"])


def main():
    with Server(DDB, WORK) as s:
        c = boto3.client("dynamodb", endpoint_url=s.endpoint, region_name="us-east-1", aws_access_key_id="trial",
                         aws_secret_access_key="trial",
                         config=Config(retries={"max_attempts": 1}, parameter_validation=False))
        run(c)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
