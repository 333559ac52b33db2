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


def main():
    with Server(sys.argv[1], sys.argv[2]) as s:
        A.ENDPOINT = s.endpoint
        run()
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
