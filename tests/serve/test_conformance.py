#!/usr/bin/env python3
"""Cases an independent conformance suite (written to pass on DynamoDB)
found `ddb serve` answering otherwise, each sent as raw HTTP through
test_answers.py's call()/error() and each citing where DynamoDB's answer
was measured: ExtendDB's tests/*.py (messages captured from DynamoDB).

usage: test_conformance.py DDB_TOOL WORKDIR
May call: test_answers (its helpers), serve_proc, expect.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_answers as A  # noqa: E402
from expect import failures  # noqa: E402
from serve_proc import Server  # noqa: E402

VAL = "ValidationException"


def run():
    t = "Conformance"
    A.create({
        "TableName": t, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    key = {"pk": {"S": "k1"}}
    A.ok("seed", "PutItem", {"TableName": t, "Item": dict(key, foo={"S": "a"})})

    # A JSON null inside a string set: ExtendDB tests/test_attribute_value_validation.py
    # ::TestStringSetWithNullSpecificMessage ("An string set" is DynamoDB's own wording)
    for op, body in [("PutItem", {"TableName": t, "Item": dict(key, bad={"SS": ["a", None]})}),
                     ("GetItem", {"TableName": t, "Key": {"pk": {"SS": ["a", None]}}})]:
        A.error("null in SS (%s)" % op, op, body, VAL,
                A.INVALID + "An string set may not have a null string as a member")

    # ExpressionAttributeNames / Values keys are checked before the expression
    # uses them, the length before the syntax: ExtendDB
    # tests/test_expression_attribute_map_validation.py (test_name_key_invalid_char,
    # test_name_key_too_long, test_name_key_length_before_syntax, test_value_key_too_long)
    get = {"TableName": t, "Key": key, "ProjectionExpression": "#a"}
    A.error("a name key with a '-'", "GetItem", dict(get, ExpressionAttributeNames={"#a-b": "foo"}), VAL,
            'ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"')
    A.error("a name key of 256 bytes", "GetItem", dict(get, ExpressionAttributeNames={"#" + "a" * 255: "foo"}),
            VAL, "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key "
            "that is too long; size of key: 256")
    A.error("a long name key with a '-'", "GetItem",
            dict(get, ExpressionAttributeNames={"#" + "a" * 255 + "-x": "foo"}), VAL,
            "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key "
            "that is too long; size of key: 258")
    A.error("a value key of 256 bytes", "Scan",
            {"TableName": t, "FilterExpression": "foo = :v", "ExpressionAttributeValues": {":" + "a" * 255: {"S": "x"}}},
            VAL, "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key "
            "that is too long;")

    # Nesting: a stored value nests at most 32 levels, in DynamoDB's words; a
    # value used only by a condition is not held to it. ExtendDB
    # tests/test_item_operations.py::TestNestingDepth
    # (test_put_item_one_over_limit_map_rejected, test_put_item_deep_eav_in_condition_accepted,
    # test_update_item_deep_eav_in_condition_accepted,
    # test_update_item_legacy_expected_with_deep_value_accepted)
    def deep(levels):
        v = {"S": "leaf"}
        for _ in range(levels):
            v = {"M": {"a": v}}
        return v
    nest = "Nesting Levels have exceeded supported limits"
    A.ok("31 maps deep", "PutItem", {"TableName": t, "Item": {"pk": {"S": "d31"}, "deep": deep(31)}})
    A.error("32 maps deep", "PutItem", {"TableName": t, "Item": {"pk": {"S": "d32"}, "deep": deep(32)}}, VAL, nest)
    A.error("32 maps deep by SET", "UpdateItem",
            {"TableName": t, "Key": key, "UpdateExpression": "SET deep = :d", "ExpressionAttributeValues": {":d": deep(32)}},
            VAL, nest)
    A.ok("a deep value in a condition only", "PutItem",
         {"TableName": t, "Item": {"pk": {"S": "dc"}}, "ConditionExpression": "attribute_not_exists(pk) OR :d = :d",
          "ExpressionAttributeValues": {":d": deep(32)}})
    A.ok("a deep value in an UpdateItem condition", "UpdateItem",
         {"TableName": t, "Key": key, "UpdateExpression": "SET x = :s", "ConditionExpression": ":d = :d",
          "ExpressionAttributeValues": {":s": {"S": "x"}, ":d": deep(32)}})
    A.error("a deep value in Expected", "UpdateItem",
            {"TableName": t, "Key": key, "AttributeUpdates": {"x": {"Action": "PUT", "Value": {"S": "y"}}},
             "Expected": {"deep": {"Value": deep(32)}}}, "ConditionalCheckFailedException", "The conditional request failed")

    # TransactWriteItems validates every action before it runs any: the first
    # action that fails validation is the ValidationError, the others "None",
    # no condition evaluated (ScyllaDB test/alternator/test_transact.py::
    # test_transact_write_cancellation_reasons_validationerror)
    put = lambda item, **kw: {"Put": dict({"TableName": t, "Item": item}, **kw)}
    status, raw, j = A.call("TransactWriteItems", {"TransactItems": [
        put({"pk": {"N": "7"}}), put({"pk": {"N": "8"}}),
        put({"pk": {"S": "tx-v"}}, ConditionExpression="attribute_exists(pk)")]})
    codes = [x.get("Code") for x in (j or {}).get("CancellationReasons", [])]
    A.check(status == 400 and codes == ["ValidationError", "None", "None"],
            "validation reasons: got %s %r" % (status, raw[:300]))
    # Over 4 MB of items (API_TransactWriteItems: "The aggregate size of the
    # items in the transaction cannot exceed 4 MB"): ScyllaDB
    # test/alternator/test_transact.py::test_transact_write_items_put_5MB finds
    # "size cannot exceed" in DynamoDB's message, which speaks of the payload
    A.error("a 5 MB transaction", "TransactWriteItems", {"TransactItems": [
        put({"pk": {"S": "big%d" % i}, "x": {"S": "x" * 100000}}) for i in range(50)]}, VAL,
        "Transaction payload size cannot exceed 4 MB")

    # A name in an expression starts with a letter; "_" and digits only follow
    # (ScyllaDB test/alternator/test_update_expression.py::
    # test_update_expression_name_token, which quotes DynamoDB's message)
    for bad in ("_123", "_abc"):
        A.error("a name starting with _ (%s)" % bad, "UpdateItem",
                {"TableName": t, "Key": key, "UpdateExpression": "SET %s = :v" % bad,
                 "ExpressionAttributeValues": {":v": {"N": "3"}}},
                VAL, 'Invalid UpdateExpression: Syntax error; token: "_", near: "SET %s' % bad)
    A.ok("a name with _ inside", "UpdateItem", {"TableName": t, "Key": key, "UpdateExpression": "SET A123_ = :v",
                                                  "ExpressionAttributeValues": {":v": {"N": "3"}}})

    # A parallel Scan's ExclusiveStartKey must lie in its segment (ScyllaDB
    # test/alternator/test_scan.py::test_scan_parallel_with_exclusive_start_key):
    # of 1000000 segments, segment 0 holds almost no key
    bad = ["0", "1", "2", "3"]
    miss = 0
    for k in bad:
        status, raw, j = A.call("Scan", {"TableName": t, "TotalSegments": 1000000, "Segment": 0,
                                         "ExclusiveStartKey": {"pk": {"S": k}}})
        miss += status == 400 and "does not map to the provided Segment and TotalSegments" in raw
    A.check(miss == len(bad), "ExclusiveStartKey outside the segment: %d of %d refused" % (miss, len(bad)))
    # ... and a key of the segment is taken: each key's own segment of 2
    for k in bad:
        ok = sum(A.call("Scan", {"TableName": t, "TotalSegments": 2, "Segment": seg,
                                 "ExclusiveStartKey": {"pk": {"S": k}}})[0] == 200 for seg in (0, 1))
        A.check(ok == 1, "ExclusiveStartKey %s: taken by %d of 2 segments" % (k, ok))

    # An UpdateItem with nothing to update still checks its Key against the
    # schema: an attribute beyond the key is refused, nothing is stored
    # (ScyllaDB test/alternator/test_item.py::test_update_item_wrong_key_type)
    for extra in ({"AttributeUpdates": {}}, {}):
        A.error("a spurious key attribute, nothing to update %r" % extra, "UpdateItem",
                dict({"TableName": t, "Key": {"pk": {"S": "spur"}, "sk": {"S": "b"}}}, **extra), VAL,
                "The provided key element does not match the schema")
    status, raw, j = A.call("GetItem", {"TableName": t, "Key": {"pk": {"S": "spur"}}})
    A.check(status == 200 and "Item" not in (j or {}), "a refused UpdateItem stored nothing: %s %r" % (status, raw[:200]))

    # BatchGetItem: ProjectionExpression for one table and AttributesToGet for
    # another mix the two kinds of parameters across the request (ExtendDB
    # tests/test_batch_operations.py::TestBatchGetItemExpressionParamMix)
    t2 = "Conformance2"
    A.create({"TableName": t2, "BillingMode": "PAY_PER_REQUEST",
              "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
              "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    mix = ("Can not use both expression and non-expression parameters in the same request: "
           "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
    other = {"Keys": [{"id": {"S": "b"}}], "AttributesToGet": ["id"]}
    A.error("a projection and AttributesToGet in two tables", "BatchGetItem",
            {"RequestItems": {t: {"Keys": [key], "ProjectionExpression": "pk"}, t2: other}}, VAL, mix)
    A.error("a projection with names and AttributesToGet in two tables", "BatchGetItem",
            {"RequestItems": {t: {"Keys": [key], "ProjectionExpression": "#p", "ExpressionAttributeNames": {"#p": "pk"}},
                              t2: other}}, VAL, mix)
    A.error("names alone and AttributesToGet in two tables", "BatchGetItem",
            {"RequestItems": {t: {"Keys": [key], "ExpressionAttributeNames": {"#p": "pk"}}, t2: other}}, VAL,
            "ExpressionAttributeNames can only be specified when using expressions")
    A.ok("AttributesToGet in both tables", "BatchGetItem",
         {"RequestItems": {t: {"Keys": [key], "AttributesToGet": ["pk"]}, t2: other}})

    # An attribute name of 65536 bytes is refused wherever it is named: in
    # ExpressionAttributeNames for a projection or a condition, in
    # AttributesToGet (ScyllaDB test/alternator/test_limits.py::
    # test_limit_attribute_length_nonkey_bad: "6553[56]" in DynamoDB's message)
    long = "n" * 65536
    big = "Attribute name is too large, must be less than 65536 bytes"
    A.error("a long name in a projection", "GetItem",
            {"TableName": t, "Key": key, "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": long}}, VAL, big)
    A.error("a long name in AttributesToGet", "GetItem", {"TableName": t, "Key": key, "AttributesToGet": [long]}, VAL, big)
    A.error("a long name in a condition", "UpdateItem",
            {"TableName": t, "Key": key, "UpdateExpression": "SET a = :v", "ConditionExpression": "#n = :v",
             "ExpressionAttributeNames": {"#n": long}, "ExpressionAttributeValues": {":v": {"N": "1"}}}, VAL, big)
    A.ok("a name of 65535 bytes", "GetItem",
         {"TableName": t, "Key": key, "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": long[1:]}})


def main():
    with Server(sys.argv[1], sys.argv[2]) as s:
        A.ENDPOINT = s.endpoint
        run()
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
