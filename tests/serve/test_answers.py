#!/usr/bin/env python3
"""The long tail of `ddb serve`'s answers (issue 23, section 6), sent as raw
HTTP requests so that the body is exactly what a careless client sends:
attribute values of the wrong JSON type and bad base64 are DynamoDB's
SerializationException in its words, a NUL character in a string value is
kept, table names are checked as DynamoDB checks them, missing tables are
ResourceNotFoundException, TagResource / UntagResource answer an empty body.
Each case names its source: the API reference page, or dynalite's validation
tests (test/*.js, written to pass against DynamoDB), or ScyllaDB's
test/alternator (run against DynamoDB).

usage: test_answers.py DDB_TOOL WORKDIR                      against `ddb serve`
       test_answers.py --dynalite DYNALITE_SH DIR            against dynalite (the
                                                             cases marked dyn=True)
exit 77 = skipped (no node for dynalite)
"""
import json
import os
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Dynalite, Server  # noqa: E402
from expect import check, failures, wait_active  # noqa: E402

DYNALITE = False
ENDPOINT = None
INVALID = "One or more parameter values were invalid: "


def call(op, body):
    """POST body (a dict, or raw text) to operation op: (status, raw body, parsed body or None)."""
    data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    req = urllib.request.Request(ENDPOINT, data=data, headers={
        "X-Amz-Target": "DynamoDB_20120810." + op, "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Date": "20260101T000000Z",
        "Authorization": "AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=0"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        raw = e.read().decode()
        status = e.code
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = None
    return status, raw, parsed


def error(what, op, body, exception, starts, dyn=True):
    """op(body) must answer 400 with `exception` and a message starting with `starts`."""
    if DYNALITE and not dyn:
        return
    status, raw, j = call(op, body)
    j = j or {}
    typ = j.get("__type", "").split("#")[-1]
    msg = j.get("message", j.get("Message", "")) or ""
    check(status == 400 and typ == exception and msg.startswith(starts),
          "%s: got %s %r, want %s (%r...)" % (what, status, raw[:300], exception, starts))


def status(table):
    return ((call("DescribeTable", {"TableName": table})[2] or {}).get("Table") or {}).get("TableStatus")


def create(body):
    ok("CreateTable " + body["TableName"], "CreateTable", body)
    wait_active(status, body["TableName"])


def ok(what, op, body):
    status, raw, j = call(op, body)
    check(status == 200, "%s: got %s %r" % (what, status, raw[:300]))
    return j


def run():
    t = "Answers"
    create({
        "TableName": t, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    key = {"pk": {"S": "a"}}

    # --- SerializationException: the request deserializer's words (dynalite
    # validations and test/putItem.js; ScyllaDB test_number.py test_number_in_json:
    # {"N": 123} is a SerializationException on DynamoDB)
    ser = "SerializationException"
    error("a number as a JSON number", "PutItem", {"TableName": t, "Item": dict(key, n={"N": 5})}, ser,
          "NUMBER_VALUE cannot be converted to String")
    error("a decimal as a JSON number", "UpdateItem",
          {"TableName": t, "Key": key, "UpdateExpression": "SET a = :v",
           "ExpressionAttributeValues": {":v": {"N": 1.5}}},
          ser, "DECIMAL_VALUE cannot be converted to String")
    error("a boolean as S", "PutItem", {"TableName": t, "Item": dict(key, s={"S": True})}, ser,
          "TRUE_VALUE cannot be converted to String")
    error("an object as S", "GetItem", {"TableName": t, "Key": {"pk": {"S": {}}}}, ser,
          "Start of structure or map found where not expected")
    error("B of 3 characters", "PutItem", {"TableName": t, "Item": dict(key, b={"B": "abc"})}, ser,
          "Base64 encoded length is expected a multiple of 4 bytes but found: 3")
    error("B with a bad character", "PutItem", {"TableName": t, "Item": dict(key, b={"B": "ab=c"})}, ser,
          "Invalid last non-pad Base64 character dectected")
    error("a BS element of bad base64", "PutItem", {"TableName": t, "Item": dict(key, b={"BS": ["AAAA", "a"]})}, ser,
          "Base64 encoded length is expected a multiple of 4 bytes but found: 1")
    error("a number as B", "PutItem", {"TableName": t, "Item": dict(key, b={"B": 5})}, ser,
          "only base-64-encoded strings are convertible to bytes")
    error("SS as a string", "PutItem", {"TableName": t, "Item": dict(key, s={"SS": "x"})}, ser,
          "Unexpected field type")
    error("an attribute as a string", "PutItem", {"TableName": t, "Item": dict(key, s="x")}, ser,
          "Unexpected value type in payload")
    error("an item as an array", "PutItem", {"TableName": t, "Item": [key]}, ser,
          "Unrecognized collection type java.util.Map<java.lang.String, "
          "com.amazonaws.dynamodb.v20120810.AttributeValue>")
    error("a number inside a map", "PutItem", {"TableName": t, "Item": dict(key, m={"M": {"x": {"N": 1}}})}, ser,
          "NUMBER_VALUE cannot be converted to String")
    error("a number in a batch key", "BatchGetItem", {"RequestItems": {t: {"Keys": [{"pk": {"N": 1}}]}}}, ser,
          "NUMBER_VALUE cannot be converted to String")
    error("a number in a legacy Expected value", "PutItem",
          {"TableName": t, "Item": key, "Expected": {"x": {"Value": {"N": 1}}}}, ser,
          "NUMBER_VALUE cannot be converted to String")
    # an attribute named like a member ("Value", "Item") is just a name
    ok("attributes named Item and Value", "PutItem",
       {"TableName": t, "Item": dict(key, Item={"S": "i"}, Value={"N": "1"}),
        "Expected": {"Item": {"ComparisonOperator": "NULL"}}})
    error("malformed JSON", "PutItem", '{"TableName": "%s", "Item": {' % t, ser, "")

    # --- a NUL character is a character of a string value (API_AttributeValue: S is any
    # UTF-8 string; dynalite stores it)
    ok("an S holding U+0000", "PutItem", '{"TableName": "%s", "Item": {"pk": {"S": "n\\u0000ul"}, '
                                         '"v": {"S": "a\\u0000b"}}}' % t)
    j = ok("read it back", "GetItem", '{"TableName": "%s", "Key": {"pk": {"S": "n\\u0000ul"}}}' % t)
    check((j or {}).get("Item", {}).get("v") == {"S": "a\u0000b"}, "the NUL is kept: %r" % j)
    # ExtendDB's dual-target tests (tests/test_nul_strings.py, measured on DynamoDB): NUL sorts
    # as the byte 0x00 in a key and is not its escape text
    create({
        "TableName": "Nul", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]})
    nul, soh, escape_text = "\u0000", "\u0001", "\\u0000"   # the escape text: six characters
    sort_keys = [nul, soh, " ", escape_text, "a"]
    for sk in sort_keys:
        ok("put sk %r" % sk, "PutItem", {"TableName": "Nul", "Item": {"pk": {"S": "a" + nul + "b"}, "sk": {"S": sk}}})
    j = ok("query the partition", "Query", {"TableName": "Nul", "KeyConditionExpression": "pk = :p",
                                            "ExpressionAttributeValues": {":p": {"S": "a" + nul + "b"}}})
    check([i["sk"]["S"] for i in (j or {}).get("Items", [])] == sort_keys, "NUL sorts first, as a byte: %r" % j)
    j = ok("begins_with NUL", "Query", {"TableName": "Nul", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
                                        "ExpressionAttributeValues": {":p": {"S": "a" + nul + "b"}, ":s": {"S": nul}}})
    check([i["sk"]["S"] for i in (j or {}).get("Items", [])] == [nul], "begins_with a NUL: %r" % j)
    # ExclusiveStartKey of another partition (dynalite test/query.js, written against DynamoDB)
    error("ExclusiveStartKey of another partition", "Query",
          {"TableName": "Nul", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "x"}},
           "ExclusiveStartKey": {"pk": {"S": "y"}, "sk": {"S": "a"}}}, "ValidationException",
          "The provided starting key is outside query boundaries based on provided conditions")
    # index keys of the wrong type, NULL included, by PutItem and by UpdateItem (dynalite
    # test/putItem.js, test/updateItem.js: "Type mismatch for Index Key c Expected: S Actual: N
    # IndexName: index1")
    create({
        "TableName": "Idx", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "g", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{"IndexName": "gix", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}]})
    mismatch = INVALID + "Type mismatch for Index Key g Expected: S Actual: "
    error("a number as an index key", "PutItem", {"TableName": "Idx", "Item": {"pk": {"S": "a"}, "g": {"N": "1"}}},
          "ValidationException", mismatch + "N IndexName: gix")
    error("NULL as an index key", "PutItem", {"TableName": "Idx", "Item": {"pk": {"S": "a"}, "g": {"NULL": True}}},
          "ValidationException", mismatch + "NULL IndexName: gix")
    error("an update making the index key a number", "UpdateItem",
          {"TableName": "Idx", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET g = :v",
           "ExpressionAttributeValues": {":v": {"N": "1"}}}, "ValidationException", mismatch + "N IndexName: gix")
    error("a table name holding U+0000", "GetItem", '{"TableName": "Ans\\u0000wers", "Key": {"pk": {"S": "a"}}}',
          "ValidationException", "", dyn=False)

    # --- table names (dynalite validations: TableName's pattern and length, the item
    # operations in the validator's list, DescribeTable / DeleteTable in their own words)
    error("GetItem of a 2-character table", "GetItem", {"TableName": "ab", "Key": key}, "ValidationException",
          "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have "
          "length greater than or equal to 3")
    error("Query of a table name with ';'", "Query",
          {"TableName": "a;b", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}},
          "ValidationException", "1 validation error detected: Value 'a;b' at 'tableName' failed to satisfy "
          "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
    error("PutItem of 'a;'", "PutItem", {"TableName": "a;", "Item": key}, "ValidationException",
          "2 validation errors detected: Value 'a;' at 'tableName' failed to satisfy constraint: Member must satisfy "
          "regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a;' at 'tableName' failed to satisfy constraint: "
          "Member must have length greater than or equal to 3")
    error("DescribeTable of a 2-character table", "DescribeTable", {"TableName": "ab"}, "ValidationException",
          "TableName must be at least 3 characters long and at most 255 characters long")

    # --- a table's ARN in place of its name; an index's ARN is not a table (ExtendDB's
    # dual-target tests/test_table_arn_as_name.py)
    if not DYNALITE:
        arn = ok("DescribeTable", "DescribeTable", {"TableName": t})["Table"]["TableArn"]
        ok("PutItem by ARN", "PutItem", {"TableName": arn, "Item": {"pk": {"S": "by-arn"}}})
        j = ok("GetItem by ARN", "GetItem", {"TableName": arn, "Key": {"pk": {"S": "by-arn"}}}) or {}
        check(j.get("Item") == {"pk": {"S": "by-arn"}}, "GetItem by ARN: %r" % j)
        ok("TransactWriteItems by ARN", "TransactWriteItems",
           {"TransactItems": [{"Put": {"TableName": arn, "Item": {"pk": {"S": "by-arn2"}}}}]})
        j = ok("BatchGetItem by ARN", "BatchGetItem",
               {"RequestItems": {arn: {"Keys": [{"pk": {"S": "by-arn"}}]}}}) or {}
        check(j.get("Responses", {}).get(arn) == [{"pk": {"S": "by-arn"}}], "BatchGetItem echoes the ARN: %r" % j)
        ok("BatchWriteItem by ARN", "BatchWriteItem",
           {"RequestItems": {arn: [{"DeleteRequest": {"Key": {"pk": {"S": "by-arn2"}}}}]}})
        error("an index ARN as a table name", "GetItem",
              {"TableName": arn + "/index/some-index", "Key": {"pk": {"S": "by-arn"}}}, "ValidationException", "")

    # --- missing tables (API_Query, API_UpdateTable: ResourceNotFoundException)
    error("Query of a missing table", "Query",
          {"TableName": "Missing", "KeyConditionExpression": "pk = :p",
           "ExpressionAttributeValues": {":p": {"S": "a"}}},
          "ResourceNotFoundException", "")
    error("UpdateTable of a missing table", "UpdateTable",
          {"TableName": "Missing", "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}},
          "ResourceNotFoundException", "", dyn=False)
    # ExtendDB's dual-target tests/test_expression_attribute_map_validation.py (captured from
    # DynamoDB): an empty name, an empty ExpressionAttributeValues entry
    error("an empty ExpressionAttributeNames value", "GetItem",
          {"TableName": t, "Key": key, "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": ""}},
          "ValidationException", "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a",
          dyn=False)
    error("an empty ExpressionAttributeValues entry", "Scan",
          {"TableName": t, "FilterExpression": "foo = :v", "ExpressionAttributeValues": {":v": {}}},
          "ValidationException", "ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, "
          "must contain exactly one of the supported datatypes for key :v")
    # dynalite test/getItem.js: names without an expression
    error("ExpressionAttributeNames without an expression", "GetItem",
          {"TableName": t, "Key": key, "ExpressionAttributeNames": {"#a": "a"}}, "ValidationException",
          "ExpressionAttributeNames can only be specified when using expressions")

    # --- transactions take names and values without an expression, unlike the single-item
    # operations (ExtendDB's dual-target tests, tests/test_transact_expression_validation.py,
    # messages captured from DynamoDB); dynalite has no transactions
    if not DYNALITE:
        ok("TransactWriteItems Put with names and values and no expression", "TransactWriteItems",
           {"TransactItems": [{"Put": {"TableName": t, "Item": {"pk": {"S": "tx"}},
                                       "ExpressionAttributeNames": {"#n": "foo"},
                                       "ExpressionAttributeValues": {":v": {"N": "1"}}}}]})
        ok("TransactGetItems Get with names and no projection", "TransactGetItems",
           {"TransactItems": [{"Get": {"TableName": t, "Key": {"pk": {"S": "tx"}},
                                       "ExpressionAttributeNames": {"#n": "foo"}}}]})
        # a key of the wrong type cancels, with that action's ValidationError (ExtendDB's
        # dual-target tests/test_transaction_operations.py, measured on DynamoDB)
        status, raw, j = call("TransactWriteItems", {"TransactItems": [
            {"Put": {"TableName": t, "Item": {"pk": {"S": "tx2"}}}},
            {"Delete": {"TableName": t, "Key": {"pk": {"N": "1"}}}}]})
        j = j or {}
        check(status == 400 and j.get("__type", "").endswith("#TransactionCanceledException") and
              [r.get("Code") for r in j.get("CancellationReasons", [])] == ["None", "ValidationError"],
              "a key of the wrong type in a transaction: %s %r" % (status, raw[:300]))
        status, raw, j = call("TransactGetItems", {"TransactItems": [
            {"Get": {"TableName": t, "Key": {"pk": {"S": "tx"}}}},
            {"Get": {"TableName": t, "Key": {"pk": {"N": "1"}}}}]})
        j = j or {}
        check(status == 400 and j.get("__type", "").endswith("#TransactionCanceledException") and
              [r.get("Code") for r in j.get("CancellationReasons", [])] == ["None", "ValidationError"] and
              j.get("Message", "").startswith("Transaction cancelled, please refer cancellation reasons for specific "
                                              "reasons [None, ValidationError]"),
              "a key of the wrong type in TransactGetItems: %s %r" % (status, raw[:300]))
        error("an unused name with a condition", "TransactWriteItems",
              {"TransactItems": [{"Put": {"TableName": t, "Item": {"pk": {"S": "tx"}},
                                          "ConditionExpression": "attribute_exists(pk)",
                                          "ExpressionAttributeNames": {"#n": "foo"}}}]},
              "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#n}")

    # --- a number that is not one: the text echoed as it is (ExtendDB's dual-target
    # tests/test_update_item_number_validation.py; dynalite's validations)
    error("N of 12e", "UpdateItem", {"TableName": t, "Key": key, "UpdateExpression": "SET bad = :v",
                                     "ExpressionAttributeValues": {":v": {"N": "12e"}}}, "ValidationException",
          "ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a numeric value: 12e",
          dyn=False)
    error("NS holding abc", "PutItem", {"TableName": t, "Item": dict(key, ns={"NS": ["1", "abc"]})},
          "ValidationException", "The parameter cannot be converted to a numeric value: abc")
    error("AttributeUpdates N not_a_num", "UpdateItem",
          {"TableName": t, "Key": key, "AttributeUpdates": {"bad": {"Value": {"N": "not_a_num"}, "Action": "PUT"}}},
          "ValidationException", "The parameter cannot be converted to a numeric value: not_a_num")

    # --- Select with a projection: the member given, "only the Count", Query's COUNT with the
    # validator's prefix (ExtendDB's dual-target tests, tests/test_wording_parity_validation.py,
    # measured on DynamoDB)
    error("Query COUNT with a projection", "Query",
          {"TableName": t, "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}},
           "Select": "COUNT", "ProjectionExpression": "pk"}, "ValidationException",
          "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count",
          dyn=False)
    error("Scan COUNT with a projection", "Scan", {"TableName": t, "Select": "COUNT", "ProjectionExpression": "pk"},
          "ValidationException", "Cannot specify the ProjectionExpression when choosing to get only the Count",
          dyn=False)
    error("Scan ALL_ATTRIBUTES with AttributesToGet", "Scan",
          {"TableName": t, "Select": "ALL_ATTRIBUTES", "AttributesToGet": ["pk"]}, "ValidationException",
          "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES", dyn=False)

    # --- ConsumedCapacity: CapacityUnits alone, no read / write split, for the single-item,
    # batch and read operations (ExtendDB's dual-target tests/test_consumed_capacity_shape.py,
    # measured on DynamoDB)
    for op, body in (("GetItem", {"TableName": t, "Key": key}), ("PutItem", {"TableName": t, "Item": key}),
                     ("Scan", {"TableName": t, "Select": "COUNT"}),
                     ("BatchGetItem", {"RequestItems": {t: {"Keys": [key]}}})):
        for granularity in ("TOTAL", "INDEXES"):
            j = ok("%s %s" % (op, granularity), op, dict(body, ReturnConsumedCapacity=granularity)) or {}
            cc = j.get("ConsumedCapacity")
            cc = cc[0] if isinstance(cc, list) else cc or {}
            check("CapacityUnits" in cc and "ReadCapacityUnits" not in cc and "WriteCapacityUnits" not in cc and
                  "ReadCapacityUnits" not in cc.get("Table", {}), "%s %s capacity shape: %r" % (op, granularity, cc))

    # --- TagResource / UntagResource: HTTP 200 with an empty body (API_TagResource,
    # API_UntagResource: "If the action is successful, the service sends back an HTTP
    # 200 response with an empty HTTP body.")
    if not DYNALITE:
        arn = ok("DescribeTable", "DescribeTable", {"TableName": t})["Table"]["TableArn"]
        status, raw, _ = call("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})
        check(status == 200 and raw == "", "TagResource's body: %s %r" % (status, raw))
        status, raw, _ = call("UntagResource", {"ResourceArn": arn, "TagKeys": ["k"]})
        check(status == 200 and raw == "", "UntagResource's body: %s %r" % (status, raw))


def main():
    global DYNALITE, ENDPOINT
    if sys.argv[1] == "--dynalite":
        DYNALITE = True
        with Dynalite(sys.argv[2], sys.argv[3]) as d:
            ENDPOINT = d.endpoint
            run()
    else:
        with Server(sys.argv[1], sys.argv[2]) as s:
            ENDPOINT = s.endpoint
            run()
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
