#!/usr/bin/env python3
"""`ddb serve` driven by boto3 the way a test suite written against DynamoDB
drives it (tests/trial): validation errors (exception and DynamoDB's words
first), limits, pagination, conditions, transactions, UpdateItem's return
values, numbers, empty values, sets, reserved words.  Each case names the
DynamoDB documentation page it follows (developer guide page or API
reference action).  boto3's own parameter validation is off, so requests
reach the server as a careless program would send them.

usage: test_serve_dynamodb.py DDB_TOOL WORKDIR       (exit 77 = skipped: no boto3)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from serve_proc import Server  # noqa: E402

try:
    import boto3
    from botocore.config import Config
    from expect import check, fails, failures  # noqa: E402  (needs botocore)
except ImportError:
    print("skipped: boto3 is not installed (Debian python3-boto3)")
    sys.exit(77)

DDB, WORK = sys.argv[1], sys.argv[2]


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="trial",
                        aws_secret_access_key="trial",
                        config=Config(retries={"max_attempts": 1}, parameter_validation=False))


def K(p, s):
    return {"pk": {"S": p}, "sk": {"N": str(s)}}


def run(c):
    c.create_table(TableName="Trial", BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "N"},
                                         {"AttributeName": "g", "AttributeType": "S"},
                                         {"AttributeName": "k", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                   GlobalSecondaryIndexes=[{"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "ALL"}},
                                           {"IndexName": "ByK", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    put, get, upd = c.put_item, c.get_item, c.update_item

    # --- empty values and sets (HowItWorks.NamingRulesDataTypes, "Sets": "DynamoDB does
    # not support empty sets, however, empty string and binary values are allowed within a set";
    # empty String/Binary non-key attributes are allowed, key attributes are not)
    put(TableName="Trial", Item=dict(K("e", 1), s={"S": ""}, b={"B": b""}, ss={"SS": [""]}))
    check(get(TableName="Trial", Key=K("e", 1))["Item"]["ss"] == {"SS": [""]}, "a set holding an empty string")
    fails("empty key string", "ValidationException",
          "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
          "empty string value. Key: pk", put, TableName="Trial", Item=K("", 1))
    fails("empty GSI key string", "ValidationException",
          "One or more parameter values are not valid. A value specified for a secondary index key is not "
          "supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ByG, "
          "IndexKey: g", put, TableName="Trial", Item=dict(K("e", 2), g={"S": ""}))
    # the words of DynamoDB's set errors, double space and article included (as dynalite's
    # validation tests, written against DynamoDB, record them)
    for t, words in (("SS", "An string set  may not be empty"), ("NS", "An number set  may not be empty"),
                     ("BS", "Binary sets should not be empty")):
        fails("empty %s" % t, "ValidationException", "One or more parameter values were invalid: " + words,
              put, TableName="Trial", Item=dict(K("e", 3), x={t: []}))
        fails("empty %s in a map" % t, "ValidationException", "One or more parameter values were invalid: " + words,
              put, TableName="Trial", Item=dict(K("e", 3), m={"M": {"x": {t: []}}}))
    # Expressions.ExpressionAttributeValues: a bad value is named by its placeholder
    fails("empty SS placeholder", "ValidationException",
          "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: "
          "An string set  may not be empty for key :v",
          upd, TableName="Trial", Key=K("e", 1), UpdateExpression="SET x = :v",
          ExpressionAttributeValues={":v": {"SS": []}})
    # DELETE of a set's last element removes the attribute (Expressions.UpdateExpressions, "DELETE")
    upd(TableName="Trial", Key=K("e", 4), UpdateExpression="ADD t :s", ExpressionAttributeValues={":s": {"SS": ["x"]}})
    r = upd(TableName="Trial", Key=K("e", 4), UpdateExpression="DELETE t :s",
            ExpressionAttributeValues={":s": {"SS": ["x"]}}, ReturnValues="ALL_NEW")
    check("t" not in r["Attributes"], "the emptied set is removed: %r" % r)

    # --- numbers (HowItWorks.NamingRulesDataTypes, "Number": 38 digits of precision,
    # 1E-130 .. 9.9999999999999999999999999999999999999E+125, leading and trailing zeroes trimmed)
    put(TableName="Trial", Item=dict(K("n", 1), a={"N": "-0"}, b={"N": "1.50"}, c={"N": "1e2"}, d={"N": "00012"},
                                     e={"N": "9.9999999999999999999999999999999999999E+125"}, f={"N": "-1E-130"}))
    it = get(TableName="Trial", Key=K("n", 1))["Item"]
    check((it["a"], it["b"], it["c"], it["d"]) == ({"N": "0"}, {"N": "1.5"}, {"N": "100"}, {"N": "12"}),
          "canonical numbers: %r" % it)
    check(it["e"]["N"] == "99999999999999999999999999999999999999" + "0" * 88 and it["f"]["N"] == "-0." + "0" * 129 + "1",
          "the extremes survive: %r" % it)
    fails("39 digits", "ValidationException", "Attempting to store more than 38 significant digits in a Number",
          put, TableName="Trial", Item=dict(K("n", 2), x={"N": "1" * 39}))
    fails("overflow", "ValidationException",
          "Number overflow. Attempting to store a number with magnitude larger than supported range",
          put, TableName="Trial", Item=dict(K("n", 2), x={"N": "1E126"}))
    fails("underflow", "ValidationException",
          "Number underflow. Attempting to store a number with magnitude smaller than supported range",
          put, TableName="Trial", Item=dict(K("n", 2), x={"N": "1E-131"}))
    fails("NaN", "ValidationException", "The parameter cannot be converted to a numeric value",
          put, TableName="Trial", Item=dict(K("n", 2), x={"N": "NaN"}))
    # arithmetic is decimal, not binary floating point (Expressions.UpdateExpressions, "SET ... +")
    r = upd(TableName="Trial", Key=K("n", 3), UpdateExpression="SET x = :a + :b",
            ExpressionAttributeValues={":a": {"N": "0.1"}, ":b": {"N": "0.2"}}, ReturnValues="UPDATED_NEW")
    check(r["Attributes"] == {"x": {"N": "0.3"}}, "0.1 + 0.2: %r" % r)

    # --- reserved words and names (ReservedWords; Expressions.ExpressionAttributeNames)
    fails("reserved word", "ValidationException",
          "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status",
          upd, TableName="Trial", Key=K("e", 1), UpdateExpression="SET status = :a",
          ExpressionAttributeValues={":a": {"N": "1"}})
    r = upd(TableName="Trial", Key=K("e", 1), UpdateExpression="SET #s = :a", ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":a": {"S": "on"}}, ReturnValues="UPDATED_NEW")
    check(r["Attributes"] == {"status": {"S": "on"}}, "#s for status: %r" % r)
    fails("unused value", "ValidationException", "Value provided in ExpressionAttributeValues unused in expressions: "
          "keys: {:b}", upd, TableName="Trial", Key=K("e", 1), UpdateExpression="SET x = :a",
          ExpressionAttributeValues={":a": {"N": "1"}, ":b": {"N": "2"}})
    fails("undefined value", "ValidationException", "Invalid UpdateExpression: An expression attribute value used in "
          "expression is not defined; attribute value: :nope", upd, TableName="Trial", Key=K("e", 1),
          UpdateExpression="SET x = :nope")

    # --- keys and UpdateItem (API_UpdateItem; API_GetItem)
    fails("update a key", "ValidationException", "One or more parameter values were invalid: Cannot update attribute "
          "sk. This attribute is part of the key", upd, TableName="Trial", Key=K("e", 1), UpdateExpression="SET sk = :a",
          ExpressionAttributeValues={":a": {"N": "1"}})
    fails("key of the wrong type", "ValidationException", "One or more parameter values were invalid: Type mismatch "
          "for key sk expected: N actual: S", get, TableName="Trial", Key={"pk": {"S": "e"}, "sk": {"S": "1"}})
    fails("incomplete key", "ValidationException", "The provided key element does not match the schema",
          get, TableName="Trial", Key={"pk": {"S": "e"}})
    fails("overlapping paths", "ValidationException", "Invalid UpdateExpression: Two document paths overlap with each "
          "other; must remove or rewrite one of these paths; path one: [m], path two: [m, b]",
          upd, TableName="Trial", Key=K("e", 1), UpdateExpression="SET m = :a, m.b = :a",
          ExpressionAttributeValues={":a": {"N": "1"}})
    fails("operand missing", "ValidationException",
          "The provided expression refers to an attribute that does not exist in the item",
          upd, TableName="Trial", Key=K("e", 1), UpdateExpression="SET z = nope + :a",
          ExpressionAttributeValues={":a": {"N": "1"}})
    # ReturnValues (API_UpdateItem, "ReturnValues"): UPDATED_* hold only the updated attributes
    key = K("rv", 1)
    upd(TableName="Trial", Key=key, UpdateExpression="SET c = :one, keep = :one", ExpressionAttributeValues={":one": {"N": "1"}})
    # each call adds 1 to c (1 before the first): NONE makes it 2, ALL_OLD sees 2, ...
    expect = {"NONE": None, "ALL_OLD": {"c": "2", "keep": "1"}, "UPDATED_OLD": {"c": "3"},
              "ALL_NEW": {"c": "5", "keep": "1"}, "UPDATED_NEW": {"c": "6"}}
    for rv in ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"):
        r = upd(TableName="Trial", Key=key, UpdateExpression="SET c = c + :one", ExpressionAttributeValues={":one": {"N": "1"}},
                ReturnValues=rv)
        got = r.get("Attributes")
        if got is not None:
            got = {k: v["N"] for k, v in got.items() if k not in ("pk", "sk")}
        check(got == expect[rv], "ReturnValues %s: %r" % (rv, r.get("Attributes")))
    fails("PutItem ReturnValues ALL_NEW", "ValidationException", "ReturnValues can only be ALL_OLD or NONE",
          put, TableName="Trial", Item=K("rv", 2), ReturnValues="ALL_NEW")
    # a failed condition returns the stored item when asked (API_DeleteItem,
    # ReturnValuesOnConditionCheckFailure)
    resp = fails("condition", "ConditionalCheckFailedException", "The conditional request failed",
                 c.delete_item, TableName="Trial", Key=key, ConditionExpression="c = :x",
                 ExpressionAttributeValues={":x": {"N": "42"}}, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    check(resp is not None and resp.get("Item", {}).get("c") == {"N": "6"}, "the stored item with the failure")

    # --- limits (ServiceQuotas: item 400 KB, partition key 2048 bytes)
    fails("item over 400 KB", "ValidationException", "Item size has exceeded the maximum allowed size",
          put, TableName="Trial", Item=dict(K("big", 1), d={"S": "x" * (400 * 1024)}))
    fails("partition key over 2048 bytes", "ValidationException", "One or more parameter values were invalid: "
          "Size of hashkey has exceeded the maximum size limit of2048 bytes",
          put, TableName="Trial", Item=K("x" * 2049, 1))
    fails("26 writes in a batch", "ValidationException", "1 validation error detected",
          c.batch_write_item, RequestItems={"Trial": [{"PutRequest": {"Item": K("b", i)}} for i in range(26)]})
    fails("one item twice in a batch", "ValidationException", "Provided list of item keys contains duplicates",
          c.batch_write_item, RequestItems={"Trial": [{"PutRequest": {"Item": K("b", 1)}},
                                                      {"DeleteRequest": {"Key": K("b", 1)}}]})

    # API_BatchGetItem: "A single operation can retrieve up to 16 MB of data"; the rest of the keys
    # come back in UnprocessedKeys, with the request's other members, to be sent again
    blob = "x" * (390 * 1024)
    for i in range(50):
        put(TableName="Trial", Item={"pk": {"S": "bg"}, "sk": {"N": str(i)}, "d": {"S": blob}})
    request = {"Trial": {"Keys": [{"pk": {"S": "bg"}, "sk": {"N": str(i)}} for i in range(50)],
                         "ProjectionExpression": "sk, #d", "ExpressionAttributeNames": {"#d": "d"}}}
    got, rounds = [], 0
    while request and rounds < 10:
        r = c.batch_get_item(RequestItems=request)
        part = r["Responses"].get("Trial", [])
        check(sum(len(x["d"]["S"]) for x in part) <= 16 * 1024 * 1024, "a response holds at most 16 MB")
        got += [int(x["sk"]["N"]) for x in part]
        request = r["UnprocessedKeys"]
        check(rounds > 0 or request, "the first response is partial")
        check(not request or request["Trial"].get("ProjectionExpression") == "sk, #d",
              "UnprocessedKeys keep the request's members: %r" % {k: v for k, v in request.get("Trial", {}).items()
                                                                  if k != "Keys"})
        rounds += 1
    check(sorted(got) == list(range(50)), "every key answered once: %r" % sorted(got))

    # --- queries and pagination (Query.Pagination; Query.FilterExpression: Limit counts
    # items evaluated before the filter, and a page may be empty yet have a LastEvaluatedKey)
    for i in range(10):
        put(TableName="Trial", Item={"pk": {"S": "pg"}, "sk": {"N": str(i)}, "odd": {"BOOL": i % 2 == 1}})
    r = c.query(TableName="Trial", KeyConditionExpression="pk = :p", FilterExpression="odd = :t", Limit=2,
                ExpressionAttributeValues={":p": {"S": "pg"}, ":t": {"BOOL": True}})
    check((r["Count"], r["ScannedCount"], r["LastEvaluatedKey"]) == (1, 2, {"pk": {"S": "pg"}, "sk": {"N": "1"}}),
          "Limit before the filter: %r" % r)
    r = c.query(TableName="Trial", KeyConditionExpression="pk = :p AND sk > :s", FilterExpression="odd = :f", Limit=1,
                ExpressionAttributeValues={":p": {"S": "pg"}, ":s": {"N": "0"}, ":f": {"BOOL": False}})
    check(r["Count"] == 0 and "LastEvaluatedKey" in r, "an empty page that is not the last: %r" % r)
    seen, start = [], None
    while True:
        kw = {"ExclusiveStartKey": start} if start else {}
        r = c.query(TableName="Trial", KeyConditionExpression="pk = :p", Limit=3, ScanIndexForward=False,
                    ExpressionAttributeValues={":p": {"S": "pg"}}, **kw)
        seen += [int(i["sk"]["N"]) for i in r["Items"]]
        start = r.get("LastEvaluatedKey")
        if not start:
            break
    check(seen == list(range(9, -1, -1)), "backward pages: %r" % seen)
    fails("filter on a key", "ValidationException", "Filter Expression can only contain non-primary key attributes: "
          "Primary key attribute: sk", c.query, TableName="Trial", KeyConditionExpression="pk = :p",
          FilterExpression="sk > :s", ExpressionAttributeValues={":p": {"S": "pg"}, ":s": {"N": "1"}})
    fails("key condition without the partition key", "ValidationException",
          "Query condition missed key schema element: pk", c.query, TableName="Trial",
          KeyConditionExpression="sk = :s", ExpressionAttributeValues={":s": {"N": "1"}})
    fails("Limit 0", "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy "
          "constraint: Member must have value greater than or equal to 1", c.query, TableName="Trial",
          KeyConditionExpression="pk = :p", Limit=0, ExpressionAttributeValues={":p": {"S": "pg"}})
    fails("consistent read on a GSI", "ValidationException",
          "Consistent reads are not supported on global secondary indexes", c.query, TableName="Trial",
          IndexName="ByG", ConsistentRead=True, KeyConditionExpression="g = :g",
          ExpressionAttributeValues={":g": {"S": "x"}})

    # API_Query, Select: a GSI cannot fetch from its table, so ALL_ATTRIBUTES needs an ALL projection
    # (DynamoDB's words as quoted in localstack issue #805, observed with boto3 on DynamoDB)
    for op, kw in ((c.query, {"KeyConditionExpression": "k = :k", "ExpressionAttributeValues": {":k": {"S": "x"}}}),
                   (c.scan, {})):
        fails("Select ALL_ATTRIBUTES on a KEYS_ONLY GSI (%s)" % op.__name__, "ValidationException",
              "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global "
              "secondary index ByK because its projection type is not ALL", op, TableName="Trial", IndexName="ByK",
              Select="ALL_ATTRIBUTES", **kw)
    r = c.query(TableName="Trial", IndexName="ByG", Select="ALL_ATTRIBUTES", KeyConditionExpression="g = :g",
                ExpressionAttributeValues={":g": {"S": "none"}})
    check(r["Count"] == 0, "ALL_ATTRIBUTES on an ALL GSI is fine: %r" % r)

    # API_Query / API_Scan, Select: on a local secondary index that does not project every
    # attribute, ALL_ATTRIBUTES -- or a ProjectionExpression naming an attribute it does not
    # hold -- fetches each item from the table, its read units counted on the table
    c.create_table(TableName="TrialLsi", BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": a, "AttributeType": t}
                                         for a, t in (("pk", "S"), ("sk", "S"), ("at", "N"))],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                   LocalSecondaryIndexes=[{"IndexName": "ByAt", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                              {"AttributeName": "at", "KeyType": "RANGE"}],
                                           "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    for i in range(3):
        put(TableName="TrialLsi", Item={"pk": {"S": "p"}, "sk": {"S": "s%d" % i}, "at": {"N": str(10 - i)},
                                        "body": {"S": "text %d" % i}})
    kc = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}
    r = c.query(TableName="TrialLsi", IndexName="ByAt", **kc)
    check([sorted(i) for i in r["Items"]] == [["at", "pk", "sk"]] * 3, "KEYS_ONLY by default: %r" % r["Items"])
    r = c.query(TableName="TrialLsi", IndexName="ByAt", Select="ALL_ATTRIBUTES", ReturnConsumedCapacity="INDEXES", **kc)
    check([i.get("body", {}).get("S") for i in r["Items"]] == ["text 2", "text 1", "text 0"],
          "ALL_ATTRIBUTES fetches the items, in index order: %r" % r["Items"])
    check(r["ConsumedCapacity"].get("Table", {}).get("CapacityUnits", 0) > 0, "the fetches are read from the table: %r"
          % r["ConsumedCapacity"])
    r = c.query(TableName="TrialLsi", IndexName="ByAt", ProjectionExpression="sk, body", **kc)
    check(r["Items"][0] == {"sk": {"S": "s2"}, "body": {"S": "text 2"}}, "a projection fetches: %r" % r["Items"][0])
    r = c.scan(TableName="TrialLsi", IndexName="ByAt", Select="ALL_ATTRIBUTES")
    check(sorted(i["body"]["S"] for i in r["Items"]) == ["text 0", "text 1", "text 2"], "Scan fetches too: %r" % r)

    # --- transactions (API_TransactWriteItems: CancellationReasons, one per action, in order)
    fails("one item twice in a transaction", "ValidationException",
          "Transaction request cannot include multiple operations on one item",
          c.transact_write_items, TransactItems=[{"Put": {"TableName": "Trial", "Item": K("t", 1)}},
                                                 {"Delete": {"TableName": "Trial", "Key": K("t", 1)}}])
    resp = fails("cancelled transaction", "TransactionCanceledException",
                 "Transaction cancelled, please refer cancellation reasons for specific reasons "
                 "[None, ConditionalCheckFailed, None]", c.transact_write_items, TransactItems=[
                     {"Put": {"TableName": "Trial", "Item": K("t", 1)}},
                     {"ConditionCheck": {"TableName": "Trial", "Key": K("pg", 1), "ConditionExpression": "odd = :f",
                                         "ExpressionAttributeValues": {":f": {"BOOL": False}},
                                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
                     {"Update": {"TableName": "Trial", "Key": K("t", 2), "UpdateExpression": "SET a = :a",
                                 "ExpressionAttributeValues": {":a": {"N": "1"}}}}])
    if resp:
        reasons = resp.get("CancellationReasons", [])
        check([x["Code"] for x in reasons] == ["None", "ConditionalCheckFailed", "None"], "reasons %r" % reasons)
        check(len(reasons) == 3 and reasons[1].get("Item", {}).get("odd") == {"BOOL": True}, "the stored item")
    check("Item" not in get(TableName="Trial", Key=K("t", 1)), "a cancelled transaction writes nothing")


def main():
    with Server(DDB, WORK) as s:
        run(client(s.endpoint))
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
