#!/usr/bin/env python3
"""`ddb serve` driven by boto3 (Debian python3-boto3): a scripted session
(tables with a GSI and an LSI, conditional writes, paginated queries,
transactions, TTL, streams) and the protocol's error cases.  Each
behaviour cites the DynamoDB documentation page it follows.

usage: test_boto3.py DDB_TOOL WORKDIR       (exit 77 = skipped: no boto3)
"""
import http.client
import json
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server, wait_for  # noqa: E402

from sdk import client, error_of  # noqa: E402  (exit 77 without boto3)

DDB, WORK = sys.argv[1], sys.argv[2]
NOW = 1700000000  # --now: the server's clock (TTL, stream record times)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def session(c, s):
    # CreateTable with a GSI, an LSI and a stream (API_CreateTable).
    d = c.create_table(
        TableName="Music",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t}
                              for a, t in (("Artist", "S"), ("Song", "S"), ("Genre", "S"), ("Year", "N"))],
        KeySchema=[{"AttributeName": "Artist", "KeyType": "HASH"}, {"AttributeName": "Song", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "ByGenre",
                                 "KeySchema": [{"AttributeName": "Genre", "KeyType": "HASH"},
                                               {"AttributeName": "Year", "KeyType": "RANGE"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "ByYear",
                                "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"},
                                              {"AttributeName": "Year", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        Tags=[{"Key": "team", "Value": "audio"}])["TableDescription"]
    check(d["TableStatus"] == "ACTIVE" and d["TableName"] == "Music", d)
    check([x["IndexName"] for x in d["GlobalSecondaryIndexes"]] == ["ByGenre"], d)
    check([x["IndexName"] for x in d["LocalSecondaryIndexes"]] == ["ByYear"], d)
    # the waiter polls DescribeTable until ACTIVE (API_DescribeTable)
    c.get_waiter("table_exists").wait(TableName="Music")
    check(c.list_tables()["TableNames"] == ["Music"], "ListTables")
    # API_CreateTable: ResourceInUseException for an existing table
    code, _, _ = error_of(c.create_table, TableName="Music",
                          AttributeDefinitions=[{"AttributeName": "Artist", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "Artist", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST")
    check(code == "ResourceInUseException", code)
    arn = d["TableArn"]
    check(c.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "audio"}], "tags")

    # BatchWriteItem (API_BatchWriteItem): everything processed
    songs = [("Acme", "s%02d" % i, "rock" if i % 2 else "jazz", 1990 + i) for i in range(10)]
    r = c.batch_write_item(RequestItems={"Music": [
        {"PutRequest": {"Item": {"Artist": {"S": a}, "Song": {"S": s}, "Genre": {"S": g}, "Year": {"N": str(y)}}}}
        for a, s, g, y in songs]})
    check(r["UnprocessedItems"] == {}, r)

    # Conditional put (Expressions.ConditionExpressions): attribute_not_exists fails on an existing item
    code, msg, _ = error_of(c.put_item, TableName="Music",
                            Item={"Artist": {"S": "Acme"}, "Song": {"S": "s00"}},
                            ConditionExpression="attribute_not_exists(Artist)")
    check((code, msg) == ("ConditionalCheckFailedException", "The conditional request failed"), (code, msg))
    # ReturnValuesOnConditionCheckFailure ALL_OLD: the stored item comes with the error (API_PutItem)
    code, _, resp = error_of(c.put_item, TableName="Music", Item={"Artist": {"S": "Acme"}, "Song": {"S": "s00"}},
                             ConditionExpression="attribute_not_exists(Artist)",
                             ReturnValuesOnConditionCheckFailure="ALL_OLD")
    check(code == "ConditionalCheckFailedException" and resp["Item"]["Genre"] == {"S": "jazz"}, resp)
    # UpdateItem with a condition and ReturnValues UPDATED_NEW (API_UpdateItem)
    r = c.update_item(TableName="Music", Key={"Artist": {"S": "Acme"}, "Song": {"S": "s01"}},
                      UpdateExpression="SET Plays = if_not_exists(Plays, :z) + :one",
                      ConditionExpression="Genre = :g",
                      ExpressionAttributeValues={":z": {"N": "0"}, ":one": {"N": "1"}, ":g": {"S": "rock"}},
                      ReturnValues="UPDATED_NEW", ReturnConsumedCapacity="TOTAL")
    check(r["Attributes"] == {"Plays": {"N": "1"}}, r)
    check(r["ConsumedCapacity"]["TableName"] == "Music" and r["ConsumedCapacity"]["CapacityUnits"] > 0, r)
    # ReturnValues ALL_OLD on PutItem (API_PutItem)
    r = c.put_item(TableName="Music", Item={"Artist": {"S": "Acme"}, "Song": {"S": "s02"}, "Genre": {"S": "jazz"},
                                            "Year": {"N": "1992"}, "Note": {"S": "remaster"}},
                   ReturnValues="ALL_OLD")
    check(r["Attributes"]["Year"] == {"N": "1992"} and "Note" not in r["Attributes"], r)
    # ReturnConsumedCapacity INDEXES: each index under GlobalSecondaryIndexes or
    # LocalSecondaryIndexes (API_ConsumedCapacity: "The amount of throughput
    # consumed on each global index affected by the operation", "... on each
    # local index"), both written when an item's Year changes (then put back)
    for year in ("1993", "1992"):
        r = c.put_item(TableName="Music", Item={"Artist": {"S": "Acme"}, "Song": {"S": "s02"}, "Genre": {"S": "jazz"},
                                                "Year": {"N": year}, "Note": {"S": "remaster"}},
                       ReturnConsumedCapacity="INDEXES")
        cc = r["ConsumedCapacity"]
        check(list(cc.get("GlobalSecondaryIndexes", {})) == ["ByGenre"] and
              list(cc.get("LocalSecondaryIndexes", {})) == ["ByYear"] and cc["Table"]["CapacityUnits"] > 0, cc)
    # unused ExpressionAttributeNames (Expressions.ExpressionAttributeNames)
    code, msg, _ = error_of(c.get_item, TableName="Music", Key={"Artist": {"S": "Acme"}, "Song": {"S": "s02"}},
                            ProjectionExpression="Note", ExpressionAttributeNames={"#x": "Year"})
    check(code == "ValidationException" and "unused in expressions: keys: {#x}" in msg, msg)
    r = c.get_item(TableName="Music", Key={"Artist": {"S": "Acme"}, "Song": {"S": "s02"}},
                   ProjectionExpression="Note, #y", ExpressionAttributeNames={"#y": "Year"}, ConsistentRead=True)
    check(r["Item"] == {"Note": {"S": "remaster"}, "Year": {"N": "1992"}}, r)
    check("Item" not in c.get_item(TableName="Music", Key={"Artist": {"S": "Nobody"}, "Song": {"S": "x"}}),
          "GetItem of a missing item has no Item (API_GetItem)")

    # Query with pagination (Query.Pagination): Limit 3 -> pages of 3, 3, 3, 1 and a last empty one
    p = c.get_paginator("query")
    pages = list(p.paginate(TableName="Music", KeyConditionExpression="Artist = :a",
                            ExpressionAttributeValues={":a": {"S": "Acme"}}, PaginationConfig={"PageSize": 3}))
    check([pg["Count"] for pg in pages] == [3, 3, 3, 1], [pg["Count"] for pg in pages])
    check([i["Song"]["S"] for pg in pages for i in pg["Items"]] == ["s%02d" % i for i in range(10)], "order")
    check(pages[0]["LastEvaluatedKey"] == {"Artist": {"S": "Acme"}, "Song": {"S": "s02"}}, pages[0])
    # GSI query, descending, with a filter (ScanIndexForward, FilterExpression)
    r = c.query(TableName="Music", IndexName="ByGenre", KeyConditionExpression="Genre = :g AND #y > :y",
                FilterExpression="attribute_exists(Plays)", ExpressionAttributeNames={"#y": "Year"},
                ExpressionAttributeValues={":g": {"S": "rock"}, ":y": {"N": "1990"}}, ScanIndexForward=False)
    check((r["Count"], r["ScannedCount"]) == (1, 5) and r["Items"][0]["Song"]["S"] == "s01", r)
    # LSI with KEYS_ONLY projection
    r = c.query(TableName="Music", IndexName="ByYear", KeyConditionExpression="Artist = :a AND #y BETWEEN :l AND :h",
                ExpressionAttributeNames={"#y": "Year"},
                ExpressionAttributeValues={":a": {"S": "Acme"}, ":l": {"N": "1993"}, ":h": {"N": "1994"}})
    check([sorted(i) for i in r["Items"]] == [["Artist", "Song", "Year"]] * 2, r)
    # Select COUNT (API_Query Select)
    r = c.query(TableName="Music", KeyConditionExpression="Artist = :a", Select="COUNT",
                ExpressionAttributeValues={":a": {"S": "Acme"}})
    check(r["Count"] == 10 and "Items" not in r, r)
    # parallel scan: the segments cover the table once (Scan.ParallelScan)
    seen = []
    for seg in range(3):
        seen += [i["Song"]["S"] for pg in c.get_paginator("scan").paginate(TableName="Music", Segment=seg,
                                                                          TotalSegments=3)
                 for i in pg["Items"]]
    check(sorted(seen) == ["s%02d" % i for i in range(10)], seen)

    # Transactions (transaction-apis): a write, a cancelled write with reasons, a read
    c.transact_write_items(TransactItems=[
        {"Put": {"TableName": "Music", "Item": {"Artist": {"S": "Beta"}, "Song": {"S": "t1"}}}},
        {"Update": {"TableName": "Music", "Key": {"Artist": {"S": "Acme"}, "Song": {"S": "s03"}},
                    "UpdateExpression": "SET Plays = :p", "ExpressionAttributeValues": {":p": {"N": "7"}}}},
        {"ConditionCheck": {"TableName": "Music", "Key": {"Artist": {"S": "Acme"}, "Song": {"S": "s04"}},
                            "ConditionExpression": "attribute_exists(Song)"}}], ClientRequestToken="tok-1")
    # API_TransactWriteItems: the same ClientRequestToken again is answered without writing again;
    # with another request it is IdempotentParameterMismatchException
    c.transact_write_items(TransactItems=[
        {"Put": {"TableName": "Music", "Item": {"Artist": {"S": "Beta"}, "Song": {"S": "t1"}}}},
        {"Update": {"TableName": "Music", "Key": {"Artist": {"S": "Acme"}, "Song": {"S": "s03"}},
                    "UpdateExpression": "SET Plays = :p", "ExpressionAttributeValues": {":p": {"N": "7"}}}},
        {"ConditionCheck": {"TableName": "Music", "Key": {"Artist": {"S": "Acme"}, "Song": {"S": "s04"}},
                            "ConditionExpression": "attribute_exists(Song)"}}], ClientRequestToken="tok-1")
    code, _, _ = error_of(c.transact_write_items, TransactItems=[
        {"Put": {"TableName": "Music", "Item": {"Artist": {"S": "Beta"}, "Song": {"S": "t2"}}}}],
        ClientRequestToken="tok-1")
    check(code == "IdempotentParameterMismatchException", code)
    code, msg, resp = error_of(c.transact_write_items, TransactItems=[
        {"Delete": {"TableName": "Music", "Key": {"Artist": {"S": "Beta"}, "Song": {"S": "t1"}}}},
        {"ConditionCheck": {"TableName": "Music", "Key": {"Artist": {"S": "Acme"}, "Song": {"S": "s04"}},
                            "ConditionExpression": "attribute_exists(Plays)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}])
    check(code == "TransactionCanceledException", code)
    check(msg == "Transaction cancelled, please refer cancellation reasons for specific reasons "
                 "[None, ConditionalCheckFailed]", msg)
    check([x["Code"] for x in resp["CancellationReasons"]] == ["None", "ConditionalCheckFailed"], resp)
    check(resp["CancellationReasons"][1]["Item"]["Song"] == {"S": "s04"} and
          "Item" not in resp["CancellationReasons"][0], resp)
    r = c.transact_get_items(TransactItems=[
        {"Get": {"TableName": "Music", "Key": {"Artist": {"S": "Beta"}, "Song": {"S": "t1"}}}},
        {"Get": {"TableName": "Music", "Key": {"Artist": {"S": "Acme"}, "Song": {"S": "s03"}},
                 "ProjectionExpression": "Plays"}},
        {"Get": {"TableName": "Music", "Key": {"Artist": {"S": "Nobody"}, "Song": {"S": "x"}}}}])
    check(r["Responses"] == [{"Item": {"Artist": {"S": "Beta"}, "Song": {"S": "t1"}}},
                             {"Item": {"Plays": {"N": "7"}}}, {}], r)
    r = c.batch_get_item(RequestItems={"Music": {"Keys": [{"Artist": {"S": "Beta"}, "Song": {"S": "t1"}},
                                                          {"Artist": {"S": "Zed"}, "Song": {"S": "x"}}]}})
    check(r["Responses"] == {"Music": [{"Artist": {"S": "Beta"}, "Song": {"S": "t1"}}]} and
          r["UnprocessedKeys"] == {}, r)

    # TTL (TTL.html): an expired item is deleted by the sweeper as the service; until then reads may
    # still return it, as DynamoDB's do (tests/serve/test_control.py holds that case)
    c.update_time_to_live(TableName="Music", TimeToLiveSpecification={"Enabled": True, "AttributeName": "Expires"})
    check(c.describe_time_to_live(TableName="Music")["TimeToLiveDescription"] ==
          {"TimeToLiveStatus": "ENABLED", "AttributeName": "Expires"}, "DescribeTimeToLive")
    c.put_item(TableName="Music", Item={"Artist": {"S": "Gone"}, "Song": {"S": "old"},
                                        "Expires": {"N": str(NOW - 3600)}})
    wait_for(lambda: "Item" not in c.get_item(TableName="Music", Key={"Artist": {"S": "Gone"}, "Song": {"S": "old"}}),
             "the sweeper deleting the expired item")

    # Streams (API_streams_GetRecords, Streams.html record shape)
    st = client(s.endpoint, "dynamodbstreams")
    streams = st.list_streams(TableName="Music")["Streams"]
    check(len(streams) == 1 and streams[0]["TableName"] == "Music", streams)
    sd = st.describe_stream(StreamArn=streams[0]["StreamArn"])["StreamDescription"]
    check(sd["StreamStatus"] == "ENABLED" and sd["StreamViewType"] == "NEW_AND_OLD_IMAGES", sd)
    it = st.get_shard_iterator(StreamArn=sd["StreamArn"], ShardId=sd["Shards"][0]["ShardId"],
                               ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = []

    def read_until_ttl_remove():
        nonlocal it
        r = st.get_records(ShardIterator=it, Limit=4)
        records.extend(r["Records"])
        it = r["NextShardIterator"]
        return any(x.get("userIdentity") for x in records)
    wait_for(read_until_ttl_remove, "the TTL deletion's stream record")
    names = [x["eventName"] for x in records]
    check(names[:10] == ["INSERT"] * 10 and names[10] == "MODIFY", names)
    mod = records[10]["dynamodb"]
    check(mod["OldImage"].get("Plays") is None and mod["NewImage"]["Plays"] == {"N": "1"}, mod)
    check(mod["ApproximateCreationDateTime"].timestamp() == NOW, mod)
    last = records[-1]
    check(last["eventName"] == "REMOVE" and last["userIdentity"] ==
          {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}, last)
    # AFTER_SEQUENCE_NUMBER resumes after a checkpoint
    seq = records[10]["dynamodb"]["SequenceNumber"]
    it2 = st.get_shard_iterator(StreamArn=sd["StreamArn"], ShardId=sd["Shards"][0]["ShardId"],
                                ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=seq)["ShardIterator"]
    r = st.get_records(ShardIterator=it2, Limit=1)
    check(len(seq) == 21 and int(r["Records"][0]["dynamodb"]["SequenceNumber"]) == int(seq) + 1, r)

    # a disabled stream keeps its view type; its shard is closed (API_streams_DescribeStream)
    c.update_table(TableName="Music", StreamSpecification={"StreamEnabled": False})
    sd = st.describe_stream(StreamArn=sd["StreamArn"])["StreamDescription"]
    check(sd["StreamStatus"] == "DISABLED" and sd["StreamViewType"] == "NEW_AND_OLD_IMAGES" and
          "EndingSequenceNumber" in sd["Shards"][0]["SequenceNumberRange"], sd)

    # UpdateTable: a new GSI is backfilled (GSI.OnlineOps)
    d = c.update_table(TableName="Music",
                       AttributeDefinitions=[{"AttributeName": "Plays", "AttributeType": "N"}],
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "ByPlays", "KeySchema": [{"AttributeName": "Plays", "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}}])["TableDescription"]
    check(sorted(x["IndexName"] for x in d["GlobalSecondaryIndexes"]) == ["ByGenre", "ByPlays"], d)
    r = c.query(TableName="Music", IndexName="ByPlays", KeyConditionExpression="Plays = :p",
                ExpressionAttributeValues={":p": {"N": "7"}})
    check([i["Song"]["S"] for i in r["Items"]] == ["s03"], r)

    # UpdateTable deletes a GSI (API_UpdateTable, GlobalSecondaryIndexUpdates
    # Delete); a Query of the deleted index is then a ValidationException
    # ("The table does not have the specified index", API_Query)
    d = c.update_table(TableName="Music",
                       GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByPlays"}}])["TableDescription"]
    check([x["IndexName"] for x in d["GlobalSecondaryIndexes"]] == ["ByGenre"], d)
    code, msg, _ = error_of(c.query, TableName="Music", IndexName="ByPlays", KeyConditionExpression="Plays = :p",
                            ExpressionAttributeValues={":p": {"N": "7"}})
    check(code == "ValidationException" and "specified index" in msg, (code, msg))

    # DescribeLimits, DescribeEndpoints
    check(c.describe_limits()["TableMaxReadCapacityUnits"] == 40000, "DescribeLimits")
    check(c.describe_endpoints()["Endpoints"][0]["CachePeriodInMinutes"] == 1440, "DescribeEndpoints")

    # API_UpdateItem: without an UpdateExpression the item is created with its key alone
    key = {"Artist": {"S": "Solo"}, "Song": {"S": "x"}}
    c.update_item(TableName="Music", Key=key)
    check(c.get_item(TableName="Music", Key=key)["Item"] == key, "UpdateItem without UpdateExpression")

    # DeleteTable, then ResourceNotFoundException (API_DeleteTable)
    check(c.delete_table(TableName="Music")["TableDescription"]["TableStatus"] == "DELETING", "DeleteTable")
    code, _, _ = error_of(c.describe_table, TableName="Music")
    check(code == "ResourceNotFoundException", code)


def raw(endpoint, target, body, headers=None):
    host = endpoint.split("//")[1]
    conn = http.client.HTTPConnection(host, timeout=60)
    h = {"Content-Type": "application/x-amz-json-1.0"}
    if target:
        h["X-Amz-Target"] = target
    h.update(headers or {})
    conn.request("POST", "/", body=body, headers=h)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data


def protocol_errors(s):
    # Programming.Errors: SerializationException for a body that is not JSON
    st, h, body = raw(s.endpoint, "DynamoDB_20120810.ListTables", b"{not json")
    e = json.loads(body)
    check(st == 400 and e["__type"] == "com.amazon.coral.service#SerializationException", (st, e))
    # the SDKs check x-amz-crc32 (CRC-32 of the body) and read x-amzn-RequestId
    check(int(h["x-amz-crc32"]) == zlib.crc32(body), h)
    check(len(h["x-amzn-requestid"]) == 52, h)
    st, _, body = raw(s.endpoint, "DynamoDB_20120810.NoSuchThing", b"{}")
    check(st == 400 and json.loads(body)["__type"] == "com.amazon.coral.service#UnknownOperationException", body)
    st, _, body = raw(s.endpoint, None, b"{}")
    check(st == 400 and "UnknownOperationException" in json.loads(body)["__type"], body)
    # a missing required member (API_Operations: Common Errors, ValidationException)
    st, _, body = raw(s.endpoint, "DynamoDB_20120810.DescribeTable", b"{}")
    e = json.loads(body)
    check(st == 400 and e["__type"] == "com.amazon.coral.validate#ValidationException" and
          e["message"] == "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: "
                          "Member must not be null", e)
    # ServiceQuotas: 16 MB request size -> 413
    st, _, body = raw(s.endpoint, "DynamoDB_20120810.ListTables", b" " * (16 * 1024 * 1024 + 1))
    check(st == 413, st)
    # the server still answers on a new connection
    st, _, body = raw(s.endpoint, "DynamoDB_20120810.ListTables", b"{}")
    check(st == 200 and json.loads(body) == {"TableNames": []}, body)


def auth_session(work):
    keys = os.path.join(work, "keys")
    with open(keys, "w") as f:
        f.write("# access keys ddb serve accepts\nAKIDSERVETEST serve-secret\n")
    with Server(DDB, os.path.join(work, "auth"), ["--auth", keys]) as s:
        check(client(s.endpoint).list_tables()["TableNames"] == [], "signed request accepted")
        # CommonErrors: InvalidSignatureException / UnrecognizedClientException
        code, _, _ = error_of(client(s.endpoint, secret="wrong").list_tables)
        check(code == "InvalidSignatureException", code)
        code, msg, _ = error_of(client(s.endpoint, key="AKIDUNKNOWN").list_tables)
        check((code, msg) == ("UnrecognizedClientException", "The security token included in the request is invalid."),
              (code, msg))
        st, _, body = raw(s.endpoint, "DynamoDB_20120810.ListTables", b"{}")
        check(st == 400 and "MissingAuthenticationTokenException" in json.loads(body)["__type"], body)


def listen_rules(work):
    """Safe by default: a non-loopback address needs --auth or --insecure."""
    import subprocess
    db = os.path.join(work, "listen-db")
    p = subprocess.run([DDB, "--db", db, "serve", "--listen", "0.0.0.0:0"], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 2 and "is not a loopback address: give --auth FILE" in p.stderr, (p.returncode, p.stderr))
    with Server(DDB, os.path.join(work, "insecure"), ["--insecure"], listen="0.0.0.0:0") as s:
        check(client(s.endpoint).list_tables()["TableNames"] == [], "--insecure")


def body_budget(work):
    """--body-memory bounds the request bodies held at once: beyond it a
    request is answered with a ThrottlingException (which the SDKs retry,
    Programming.Errors "Error retries and exponential backoff"), and the
    memory comes back when a request ends."""
    import socket
    with Server(DDB, os.path.join(work, "budget"), ["--body-memory", "16"]) as s:
        total = 12 * 1024 * 1024
        head = b'{"x":"'
        first = head + b"a" * (10 * 1024 * 1024)
        rest = b"a" * (total - len(first) - 2) + b'"}'
        a = socket.create_connection(("127.0.0.1", s.port), timeout=120)
        a.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                  b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n" % total + first)
        big = b'{"Padding":"' + b"b" * (10 * 1024 * 1024) + b'"}'
        seen = {}

        def throttled():
            st, _, body = raw(s.endpoint, "DynamoDB_20120810.ListTables", big)
            seen["last"] = (st, body[:200])
            return st == 400 and json.loads(body)["__type"].endswith("#ThrottlingException")
        wait_for(throttled, "a ThrottlingException while another body holds the budget", tries=200)
        a.sendall(rest)
        reply = b""
        while b'"TableNames"' not in reply:
            chunk = a.recv(65536)
            check(chunk, "connection A closed: %r" % reply[:300])
            reply += chunk
        check(reply.startswith(b"HTTP/1.1 200"), reply[:200])
        a.close()
        st, _, body = raw(s.endpoint, "DynamoDB_20120810.ListTables", big)
        check(st == 200, (st, body[:200]))


def main():
    with Server(DDB, os.path.join(WORK, "session"), now=NOW) as s:
        session(client(s.endpoint), s)
        protocol_errors(s)
        rc = s.stop()
    check(rc == 0, "SIGTERM: clean exit, got %s" % rc)
    auth_session(WORK)
    listen_rules(WORK)
    body_budget(WORK)
    print("ok")


if __name__ == "__main__":
    main()
