#!/usr/bin/env python3
"""`ddb serve`'s control plane, streams and TTL as DynamoDB answers them
(issue 23, sections 2, 3 and 5), driven by boto3 with its own parameter
validation off, the way a suite written against DynamoDB drives it.  Each
case names its source: a page of the DynamoDB API Reference or developer
guide, or ScyllaDB's Alternator suite test/alternator/test_streams.py
(written to pass on DynamoDB; "Alternator" below).

usage: test_control.py DDB_TOOL WORKDIR       (exit 77 = skipped: no boto3)
"""
import http.client
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server, wait_for  # noqa: E402

import sdk  # noqa: E402  (exit 77 without boto3)

DDB, WORK = sys.argv[1], sys.argv[2]
NOW = 1700000000  # --now: the server's clock
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def client(endpoint, service="dynamodb"):
    return sdk.client(endpoint, service, validate=False)


def error_of(fn, **kw):
    """fn(**kw) must fail: its code and message."""
    return sdk.error_of(fn, **kw)[:2]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


class Serving(Server):
    """A server whose shutdown must be clean (exit status 0: under ASan, no leak or error report)."""

    def __exit__(self, exc, *rest):
        rc = self.stop()
        if exc is None:
            check(rc == 0, "ddb serve exited with status %s (its log: %s)" % (rc, self.log.name))


def keys(pk="p", sk=None):
    attrs = [{"AttributeName": pk, "AttributeType": "S"}]
    schema = [{"AttributeName": pk, "KeyType": "HASH"}]
    if sk:
        attrs.append({"AttributeName": sk, "AttributeType": "S"})
        schema.append({"AttributeName": sk, "KeyType": "RANGE"})
    return {"AttributeDefinitions": attrs, "KeySchema": schema}


# ---- streams ----------------------------------------------------------------

def all_records(st, arn):
    sd = st.describe_stream(StreamArn=arn)["StreamDescription"]
    it = st.get_shard_iterator(StreamArn=arn, ShardId=sd["Shards"][0]["ShardId"],
                               ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return st.get_records(ShardIterator=it)["Records"]


def streams(c, st):
    d = c.create_table(TableName="St1", BillingMode="PAY_PER_REQUEST",
                       StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
                       **keys("p", "c"))["TableDescription"]
    arn, label = d["LatestStreamArn"], d["LatestStreamLabel"]
    # API_TableDescription: the label is the stream's creation time, the ARN ends with it
    check(arn.endswith("/stream/" + label) and label == "2023-11-14T22:13:20.000", d)
    check(st.list_streams(TableName="St1")["Streams"] == [{"StreamArn": arn, "TableName": "St1", "StreamLabel": label}],
          "ListStreams")

    # DescribeStream paging (API_streams_DescribeStream; Alternator list_shards: a start at the
    # last shard returns no shards, Limit bounds the page)
    sd = st.describe_stream(StreamArn=arn, Limit=1)["StreamDescription"]
    check(len(sd["Shards"]) == 1 and "LastEvaluatedShardId" not in sd, sd)
    shard = sd["Shards"][0]
    check(sd["CreationRequestDateTime"].timestamp() == NOW, sd)
    sd2 = st.describe_stream(StreamArn=arn, ExclusiveStartShardId=shard["ShardId"])["StreamDescription"]
    check(sd2["Shards"] == [], sd2)
    # Alternator test_describe_stream_with_nonexistent_last_shard: a start after every shard, none
    sd2 = st.describe_stream(StreamArn=arn, ExclusiveStartShardId="zzzzzzzzzzzzzzzzzzzz")["StreamDescription"]
    check(sd2["Shards"] == [], sd2)
    check(error_of(st.describe_stream, StreamArn=arn, Limit=0)[0] == "ValidationException", "Limit 0")

    # GetShardIterator (API_streams_GetShardIterator; Alternator test_get_shard_iterator): the
    # StartingSequenceNumber of an empty shard is valid for AT_ and AFTER_SEQUENCE_NUMBER
    start = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    check(start.isdecimal() and len(start) >= 21, start)
    for t in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        check(st.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=t,
                                    SequenceNumber=start)["ShardIterator"], t)
        check(error_of(st.get_shard_iterator, StreamArn=arn, ShardId=shard["ShardId"],
                       ShardIteratorType=t)[0] == "ValidationException", "no SequenceNumber")
        check(error_of(st.get_shard_iterator, StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=t,
                       SequenceNumber="sdfsafglldfngjdafnasdf")[0] == "ValidationException", "bad SequenceNumber")
        check(error_of(st.get_shard_iterator, StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=t,
                       SequenceNumber="9" * 30)[0] == "ValidationException", "SequenceNumber beyond the shard")
    for t in ("TRIM_HORIZON", "LATEST"):
        check(error_of(st.get_shard_iterator, StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=t,
                       SequenceNumber=start)[0] == "ValidationException", "SequenceNumber with " + t)
    check(error_of(st.get_shard_iterator, StreamArn=arn, ShardId="shardId-nope",
                   ShardIteratorType="LATEST")[0] == "ResourceNotFoundException", "unknown shard")

    # AT_SEQUENCE_NUMBER of a record reads it again, AFTER_ the next one (Alternator
    # test_streams_at_sequence_number)
    c.put_item(TableName="St1", Item={"p": {"S": "a"}, "c": {"S": "1"}})
    c.put_item(TableName="St1", Item={"p": {"S": "a"}, "c": {"S": "2"}})
    recs = all_records(st, arn)
    check([r["dynamodb"]["Keys"]["c"]["S"] for r in recs] == ["1", "2"], recs)
    seq1 = recs[0]["dynamodb"]["SequenceNumber"]
    for t, want in (("AT_SEQUENCE_NUMBER", ["1", "2"]), ("AFTER_SEQUENCE_NUMBER", ["2"])):
        it = st.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=t,
                                   SequenceNumber=seq1)["ShardIterator"]
        got = [r["dynamodb"]["Keys"]["c"]["S"] for r in st.get_records(ShardIterator=it)["Records"]]
        check(got == want, (t, got))

    # No-op writes (Streams.html: a PutItem or UpdateItem that changes no data writes no record;
    # Alternator do_updates_1: a second identical put and a delete of a missing item leave
    # nothing, an UpdateItem creating an item is an INSERT, test_streams_updateitem_old_image_empty_item:
    # an UpdateItem with only the key creates the item)
    c.put_item(TableName="St1", Item={"p": {"S": "a"}, "c": {"S": "1"}})            # identical: nothing
    c.delete_item(TableName="St1", Key={"p": {"S": "zz"}, "c": {"S": "missing"}})   # missing: nothing
    c.update_item(TableName="St1", Key={"p": {"S": "a"}, "c": {"S": "1"}},
                  UpdateExpression="REMOVE nothing_here")                              # no change: nothing
    c.update_item(TableName="St1", Key={"p": {"S": "b"}, "c": {"S": "1"}})            # creates it: INSERT
    recs = all_records(st, arn)
    check([(r["eventName"], r["dynamodb"]["Keys"]["p"]["S"]) for r in recs] ==
          [("INSERT", "a"), ("INSERT", "a"), ("INSERT", "b")], recs)

    # Enabling an enabled stream, changing its view, disabling a disabled one: ValidationException
    # (Alternator test_streams_enable_on_enabled, test_streams_change_type,
    # test_streams_disable_on_disabled)
    code, msg = error_of(c.update_table, TableName="St1",
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    check(code == "ValidationException" and msg == "Table already has an enabled stream: TableName: St1", msg)
    code, msg = error_of(c.update_table, TableName="St1",
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    check(code == "ValidationException" and re.search("already", msg), msg)
    c.update_table(TableName="St1", StreamSpecification={"StreamEnabled": False})
    sd = st.describe_stream(StreamArn=arn)["StreamDescription"]
    check(sd["StreamStatus"] == "DISABLED" and sd["StreamLabel"] == label, sd)
    code, msg = error_of(c.update_table, TableName="St1", StreamSpecification={"StreamEnabled": False})
    check(code == "ValidationException" and re.search("stream.*disable", msg), msg)

    # A new stream per enablement: a new label and ARN (API_TableDescription LatestStreamLabel);
    # the old ARN names a stream that is gone here
    d = c.update_table(TableName="St1", StreamSpecification={"StreamEnabled": True,
                                                             "StreamViewType": "NEW_IMAGE"})["TableDescription"]
    check(d["LatestStreamLabel"] > label and d["LatestStreamArn"] != arn, d)
    sd = st.describe_stream(StreamArn=d["LatestStreamArn"])["StreamDescription"]
    check(sd["StreamStatus"] == "ENABLED" and sd["StreamViewType"] == "NEW_IMAGE", sd)
    check(error_of(st.describe_stream, StreamArn=arn)[0] == "ResourceNotFoundException", "the old stream ARN")
    c.delete_table(TableName="St1")


# ---- the control plane --------------------------------------------------------

def control(c, s):
    # CreateTable: a real CreationDateTime, a UUID TableId, BillingModeSummary
    # (API_TableDescription, API_BillingModeSummary)
    d = c.create_table(TableName="Ct1", BillingMode="PAY_PER_REQUEST", **keys())["TableDescription"]
    check(d["CreationDateTime"].timestamp() == NOW and UUID.match(d["TableId"]), d)
    check(d["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST" and
          d["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"].timestamp() == NOW, d)
    check(d["DeletionProtectionEnabled"] is False, d)
    table_id = d["TableId"]
    check(c.describe_table(TableName="Ct1")["Table"]["TableId"] == table_id, "TableId kept")

    # UpdateTable: to PROVISIONED and back (API_UpdateTable BillingMode, ProvisionedThroughput)
    code, msg = error_of(c.update_table, TableName="Ct1", BillingMode="PROVISIONED")
    check(code == "ValidationException" and "ProvisionedThroughput must be specified" in msg, msg)
    code, msg = error_of(c.update_table, TableName="Ct1", BillingMode="PAY_PER_REQUEST",
                         ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    check(code == "ValidationException" and "PAY_PER_REQUEST" in msg, msg)
    d = c.update_table(TableName="Ct1", BillingMode="PROVISIONED",
                       ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 4})["TableDescription"]
    check(d["BillingModeSummary"]["BillingMode"] == "PROVISIONED" and
          d["ProvisionedThroughput"]["ReadCapacityUnits"] == 5 and
          d["ProvisionedThroughput"]["WriteCapacityUnits"] == 4, d)
    code, msg = error_of(c.update_table, TableName="Ct1",
                         ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 4})
    check(code == "ValidationException" and msg.startswith("The provisioned throughput for the table will not change"),
          msg)
    d = c.update_table(TableName="Ct1", ProvisionedThroughput={"ReadCapacityUnits": 9, "WriteCapacityUnits": 9})
    check(d["TableDescription"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 9, d)
    d = c.update_table(TableName="Ct1", BillingMode="PAY_PER_REQUEST")["TableDescription"]
    check(d["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST", d)
    # the same billing mode again changes nothing (Alternator test_latest_stream_arn does it)
    c.update_table(TableName="Ct1", BillingMode="PAY_PER_REQUEST")
    # a table with a GSI turns PROVISIONED only with the index's throughput (API_UpdateTable;
    # dynalite answers the same words), which ddb serve cannot set
    c.create_table(TableName="Ct3", BillingMode="PAY_PER_REQUEST", AttributeDefinitions=[
        {"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    code, msg = error_of(c.update_table, TableName="Ct3", BillingMode="PROVISIONED",
                         ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    check(code == "ValidationException" and msg == "One or more parameter values were invalid: "
          "ProvisionedThroughput must be specified for index: byG", msg)

    # Deletion protection (the developer guide's "Using deletion protection", API_DeleteTable)
    c.create_table(TableName="Ct2", BillingMode="PAY_PER_REQUEST", DeletionProtectionEnabled=True, **keys())
    check(c.describe_table(TableName="Ct2")["Table"]["DeletionProtectionEnabled"] is True, "protected")
    code, msg = error_of(c.delete_table, TableName="Ct2")
    check(code == "ValidationException" and msg == "Resource cannot be deleted as it is currently protected "
          "against deletion. Disable deletion protection first.", msg)
    c.update_table(TableName="Ct2", DeletionProtectionEnabled=False)
    # DeleteTable answers the description with TableStatus DELETING (API_DeleteTable)
    d = c.delete_table(TableName="Ct2")["TableDescription"]
    check(d["TableStatus"] == "DELETING" and d["TableName"] == "Ct2", d)

    # Unknown operations: UnknownOperationException with a message
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    conn.request("POST", "/", body="{}", headers={"X-Amz-Target": "DynamoDB_20120810.NoSuchThing",
                                                 "Content-Type": "application/x-amz-json-1.0"})
    r = conn.getresponse()
    body = json.loads(r.read())
    check(r.status == 400 and body["__type"].endswith("#UnknownOperationException") and body["message"], body)
    conn.close()
    return table_id


def terraform_lifecycle(c):
    """The calls the Terraform AWS provider's aws_dynamodb_table makes on create, read, update and
    destroy (its resource reads DescribeTable until ACTIVE, then the continuous backups, TTL and
    tags), each answered with the API Reference's shape."""
    c.create_table(TableName="Tfm", BillingMode="PAY_PER_REQUEST", Tags=[{"Key": "env", "Value": "test"}], **keys())
    c.get_waiter("table_exists").wait(TableName="Tfm", WaiterConfig={"Delay": 1, "MaxAttempts": 5})
    b = c.describe_continuous_backups(TableName="Tfm")["ContinuousBackupsDescription"]
    check(b == {"ContinuousBackupsStatus": "ENABLED",
                "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}, b)
    b = c.update_continuous_backups(TableName="Tfm", PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})["ContinuousBackupsDescription"]
    check(b["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED", b)
    b = c.describe_continuous_backups(TableName="Tfm")["ContinuousBackupsDescription"]
    check(b["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED", b)
    check(c.describe_time_to_live(TableName="Tfm")["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}, "TTL")
    arn = c.describe_table(TableName="Tfm")["Table"]["TableArn"]
    check(c.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}], "tags")
    c.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "db"}])
    c.untag_resource(ResourceArn=arn, TagKeys=["env"])
    check(c.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "db"}], "tags updated")
    k = c.describe_kinesis_streaming_destination(TableName="Tfm")
    check(k["TableName"] == "Tfm" and k["KinesisDataStreamDestinations"] == [], k)
    ci = c.describe_contributor_insights(TableName="Tfm")
    check(ci["TableName"] == "Tfm" and ci["ContributorInsightsStatus"] == "DISABLED", ci)
    lim = c.describe_limits()
    check(lim["TableMaxReadCapacityUnits"] == 40000, lim)
    check(c.describe_endpoints()["Endpoints"][0]["CachePeriodInMinutes"] == 1440, "DescribeEndpoints")
    c.update_table(TableName="Tfm", BillingMode="PROVISIONED",
                   ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2})
    c.delete_table(TableName="Tfm")
    c.get_waiter("table_not_exists").wait(TableName="Tfm", WaiterConfig={"Delay": 1, "MaxAttempts": 5})
    code, _ = error_of(c.describe_continuous_backups, TableName="Tfm")
    check(code == "TableNotFoundException", code)


# ---- TTL visibility -------------------------------------------------------------

def ttl_table(c):
    c.create_table(TableName="Tt1", BillingMode="PAY_PER_REQUEST",
                   StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
                   **keys("p", "c"))
    c.update_time_to_live(TableName="Tt1", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    c.put_item(TableName="Tt1", Item={"p": {"S": "x"}, "c": {"S": "old"}, "exp": {"N": str(NOW - 60)}})
    c.put_item(TableName="Tt1", Item={"p": {"S": "x"}, "c": {"S": "new"}})


def ttl_visibility():
    key = {"p": {"S": "x"}, "c": {"S": "old"}}
    # The default: expired items stay readable until the sweeper deletes them (TTL.html: "Items
    # that have expired, but haven't yet been deleted by TTL, still appear in reads, queries, and
    # scans"); here the sweeper is off, so they stay.
    with Serving(DDB, os.path.join(WORK, "ttl"), now=NOW, sweep_ms=0) as s:
        c = client(s.endpoint)
        ttl_table(c)
        check("Item" in c.get_item(TableName="Tt1", Key=key), "an expired item is still read")
        q = c.query(TableName="Tt1", KeyConditionExpression="p = :p", ExpressionAttributeValues={":p": {"S": "x"}})
        check(q["Count"] == 2, q)
        check(c.scan(TableName="Tt1")["Count"] == 2, "scan")
        # users filter on the attribute (TTL.html)
        q = c.query(TableName="Tt1", KeyConditionExpression="p = :p", FilterExpression="attribute_not_exists(exp) "
                    "OR exp > :now", ExpressionAttributeValues={":p": {"S": "x"}, ":now": {"N": str(NOW)}})
        check([i["c"]["S"] for i in q["Items"]] == ["new"], q)
        db = s.db
    # The sweeper deletes it (within --sweep-ms) with a service-made REMOVE record
    # (TTL.html, API_streams_Record userIdentity {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"})
    with Serving(DDB, os.path.join(WORK, "ttl"), now=NOW, db=db, fresh=False) as s:
        c, st = client(s.endpoint), client(s.endpoint, "dynamodbstreams")
        wait_for(lambda: "Item" not in c.get_item(TableName="Tt1", Key=key), "the sweeper's deletion")
        arn = c.describe_table(TableName="Tt1")["Table"]["LatestStreamArn"]
        last = all_records(st, arn)[-1]
        check(last["eventName"] == "REMOVE" and last["dynamodb"]["Keys"] == key and
              last["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}, last)
    # --ttl-hide-expired: reads hide them at once (ddb_options.ttl_reads HIDE)
    with Serving(DDB, os.path.join(WORK, "ttl-hide"), now=NOW, sweep_ms=0, args=["--ttl-hide-expired"]) as s:
        c = client(s.endpoint)
        ttl_table(c)
        check("Item" not in c.get_item(TableName="Tt1", Key=key), "hidden at once")
        check(c.scan(TableName="Tt1")["Count"] == 1, "scan hides it")


def main():
    with Serving(DDB, os.path.join(WORK, "control"), now=NOW) as s:
        c, st = client(s.endpoint), client(s.endpoint, "dynamodbstreams")
        streams(c, st)
        table_id = control(c, s)
        terraform_lifecycle(c)
        db = s.db
    # the TableId and creation time are kept in the database directory
    with Serving(DDB, os.path.join(WORK, "control"), now=NOW + 100, db=db, fresh=False) as s:
        t = client(s.endpoint).describe_table(TableName="Ct1")["Table"]
        check(t["TableId"] == table_id and t["CreationDateTime"].timestamp() == NOW, t)
    ttl_visibility()
    print("ok")


if __name__ == "__main__":
    main()
