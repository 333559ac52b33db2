#!/usr/bin/env python3
"""DynamoDB's legacy parameters (AttributesToGet, Expected with
ConditionalOperator, AttributeUpdates, KeyConditions, QueryFilter, ScanFilter)
sent by boto3, with its own parameter validation off, the way an older mapper
sends them: their results and DynamoDB's validation words.  Each case names
its source: the API reference / developer guide page, or dynalite's
validation tests (test/*.js of dynalite, written to pass against DynamoDB).

usage: test_legacy.py DDB_TOOL WORKDIR                      against `ddb serve`
       test_legacy.py --dynalite DYNALITE_SH DIR            against dynalite (the
                                                            cases marked dyn=True)
exit 77 = skipped (no boto3; no node for dynalite)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Dynalite, Server  # noqa: E402

import sdk  # noqa: E402  (exit 77 without boto3)
import expect  # noqa: E402
from expect import check, failures, wait_active  # noqa: E402

DYNALITE = False
INVALID = "One or more parameter values were invalid: "


def fails(what, code, starts, fn, dyn=True, **kw):
    """expect.fails, for a case dynalite answers as DynamoDB does (dyn) or
    against the server only."""
    return None if DYNALITE and not dyn else expect.fails(what, code, starts, fn, **kw)


def S(s):
    return {"S": s}


def N(n):
    return {"N": str(n)}


def K(p, s):
    return {"pk": S(p), "sk": N(s)}


def cond(op, *vals):
    c = {"ComparisonOperator": op}
    if vals:
        c["AttributeValueList"] = list(vals)
    return c


def run(c):
    t = "Legacy"
    c.create_table(TableName=t, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "N"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
    wait_active(lambda name: c.describe_table(TableName=name)["Table"]["TableStatus"], t)
    put, get, upd, dele = c.put_item, c.get_item, c.update_item, c.delete_item
    base = dict(K("a", 1), s=S("hello"), n=N(5), ss={"SS": ["x", "y"]}, l={"L": [S("e")]}, b={"B": b"ab"})
    put(TableName=t, Item=base)

    # --- mixing expression and non-expression members (dynalite test/getItem.js, updateItem.js,
    # query.js, scan.js: "Can not use both expression and non-expression parameters ...")
    fails("GetItem AttributesToGet + ProjectionExpression", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
          get, TableName=t, Key=K("a", 1), AttributesToGet=["s"], ProjectionExpression="s")
    fails("UpdateItem both forms", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}",
          upd, TableName=t, Key=K("a", 1), AttributeUpdates={"x": {"Value": S("1")}}, Expected={"s": {"Exists": False}},
          UpdateExpression="SET y = :v", ConditionExpression="attribute_exists(s)",
          ExpressionAttributeValues={":v": S("1")})
    fails("PutItem Expected + ConditionExpression", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {Expected} Expression parameters: {ConditionExpression}",
          put, TableName=t, Item=K("a", 2), Expected={"s": {"Exists": False}},
          ConditionExpression="attribute_exists(s)")
    fails("Query QueryFilter + FilterExpression", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {QueryFilter} Expression parameters: {FilterExpression, KeyConditionExpression}",
          c.query, TableName=t, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S("a")},
          FilterExpression="attribute_exists(s)", QueryFilter={"s": cond("NOT_NULL")})
    fails("Scan ScanFilter + ConditionalOperator + FilterExpression", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {ScanFilter, ConditionalOperator} Expression parameters: {FilterExpression}",
          c.scan, TableName=t, FilterExpression="attribute_exists(s)", ScanFilter={"s": cond("NOT_NULL")},
          ConditionalOperator="OR")
    # ExtendDB's dual-target tests (tests/test_conditional_operator.py, messages captured from
    # DynamoDB): ConditionalOperator is a non-expression parameter of the writes too, and needs
    # two or more conditions; the table name is checked before either rule
    fails("UpdateItem both forms with ConditionalOperator", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {AttributeUpdates, Expected, ConditionalOperator} Expression parameters: {UpdateExpression, "
          "ConditionExpression}",
          upd, TableName=t, Key=K("a", 1), AttributeUpdates={"x": {"Value": S("1")}}, Expected={"s": {"Exists": False}},
          ConditionalOperator="AND", UpdateExpression="SET y = :v", ConditionExpression="attribute_exists(s)",
          ExpressionAttributeValues={":v": S("1")}, dyn=False)
    fails("DeleteItem ConditionalOperator + ConditionExpression", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {ConditionalOperator} Expression parameters: {ConditionExpression}",
          dele, TableName=t, Key=K("a", 1), ConditionalOperator="AND", ConditionExpression="attribute_exists(pk)",
          dyn=False)
    fails("ConditionalOperator without conditions", "ValidationException",
          "ConditionalOperator cannot be used without Filter or Expected",
          c.scan, TableName=t, ConditionalOperator="OR", dyn=False)
    fails("ConditionalOperator before the missing key condition", "ValidationException",
          "ConditionalOperator cannot be used without Filter or Expected",
          c.query, TableName=t, ConditionalOperator="AND", dyn=False)
    fails("ConditionalOperator over one condition", "ValidationException",
          "ConditionalOperator can only be used when Filter or Expected has two or more elements",
          put, TableName=t, Item=K("a", 2), ConditionalOperator="AND", Expected={"s": {"Exists": False}}, dyn=False)
    fails("the table name first", "ValidationException",
          "1 validation error detected: Value 'aa' at 'tableName' failed to satisfy constraint",
          put, TableName="aa", Item=K("a", 2), ConditionalOperator="AND", ConditionExpression="attribute_exists(pk)",
          dyn=False)
    r = c.query(TableName=t, KeyConditions={"pk": cond("EQ", S("a"))}, ProjectionExpression="s")
    check(r["Items"] == [{"s": S("hello")}], "KeyConditions with a ProjectionExpression: %r" % r)
    fails("names without an expression", "ValidationException",
          "ExpressionAttributeNames can only be specified when using expressions",
          put, TableName=t, Item=K("a", 2), Expected={"s": {"Exists": False}}, ExpressionAttributeNames={"#s": "s"})
    fails("values without an expression (Scan)", "ValidationException",
          "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null",
          c.scan, TableName=t, ExpressionAttributeValues={":v": S("a")})
    fails("values without an expression (UpdateItem)", "ValidationException",
          "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and "
          "ConditionExpression are null",
          upd, TableName=t, Key=K("a", 1), AttributeUpdates={"x": {"Value": S("1")}},
          ExpressionAttributeValues={":v": S("a")})

    # --- AttributesToGet (API_GetItem; dynalite test/getItem.js, batchGetItem.js)
    it = get(TableName=t, Key=K("a", 1), AttributesToGet=["s", "n", "missing"])["Item"]
    check(it == {"s": S("hello"), "n": N(5)}, "GetItem AttributesToGet: %r" % it)
    fails("AttributesToGet twice", "ValidationException", INVALID + "Duplicate value in attribute name: s",
          get, TableName=t, Key=K("a", 1), AttributesToGet=["s", "s"])
    r = c.batch_get_item(RequestItems={t: {"Keys": [K("a", 1)], "AttributesToGet": ["pk", "ss"]}})
    check(r["Responses"][t] == [{"pk": S("a"), "ss": {"SS": ["x", "y"]}}], "BatchGetItem AttributesToGet: %r" % r)
    fails("BatchGetItem both forms", "ValidationException",
          "Can not use both expression and non-expression parameters in the same request: Non-expression "
          "parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
          c.batch_get_item, RequestItems={t: {"Keys": [K("a", 1)], "AttributesToGet": ["s"],
                                              "ProjectionExpression": "s"}})

    # --- Expected: Exists / Value (LegacyConditionalParameters.Expected; API_ExpectedAttributeValue)
    fails("Exists false on a present attribute", "ConditionalCheckFailedException", "The conditional request failed",
          put, TableName=t, Item=K("a", 1), Expected={"s": {"Exists": False}})
    put(TableName=t, Item=dict(base, v=N(1)), Expected={"s": {"Value": S("hello")}, "zz": {"Exists": False}})
    put(TableName=t, Item=base, Expected={"s": {"Value": S("hello"), "Exists": True}})
    fails("Value differs", "ConditionalCheckFailedException", "The conditional request failed",
          put, TableName=t, Item=base, Expected={"s": {"Value": S("other")}})
    # dynalite test/putItem.js (validateAttributeConditions): DynamoDB's words for each misuse
    fails("Exists true without Value", "ValidationException",
          INVALID + "Value must be provided when Exists is true for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {"Exists": True}})
    fails("neither Exists nor Value", "ValidationException",
          INVALID + "Value must be provided when Exists is null for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {}})
    fails("Exists false with Value", "ValidationException",
          INVALID + "Value cannot be used when Exists is false for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {"Exists": False, "Value": S("x")}})
    fails("Exists with ComparisonOperator", "ValidationException",
          INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {"Exists": True, "ComparisonOperator": "NOT_NULL"}})
    fails("Value with AttributeValueList", "ValidationException",
          INVALID + "Value and AttributeValueList cannot be used together for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {"Value": S("x"), "AttributeValueList": [S("x")],
                                                       "ComparisonOperator": "EQ"}})
    fails("AttributeValueList without ComparisonOperator", "ValidationException",
          INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {"AttributeValueList": [S("x")]}})
    fails("EQ without a value", "ValidationException",
          INVALID + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: s",
          put, TableName=t, Item=base, Expected={"s": {"ComparisonOperator": "EQ"}})
    fails("EQ with two values", "ValidationException",
          INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator",
          put, TableName=t, Item=base, Expected={"s": cond("EQ", S("a"), S("b"))})
    fails("NULL with a value", "ValidationException",
          INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator",
          put, TableName=t, Item=base, Expected={"s": cond("NULL", S("a"))})
    fails("BETWEEN with one value", "ValidationException",
          INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator",
          put, TableName=t, Item=base, Expected={"n": cond("BETWEEN", N(1))})
    fails("values of two types", "ValidationException",
          INVALID + "AttributeValues inside AttributeValueList must be of same type",
          put, TableName=t, Item=base, Expected={"n": cond("BETWEEN", N(1), S("9"))})
    fails("BETWEEN upside down", "ValidationException",
          "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
          put, TableName=t, Item=base, Expected={"n": cond("BETWEEN", N(9), N(1))})
    fails("unknown operator", "ValidationException",
          "1 validation error detected: Value 'ABOUT' at 'expected.s.member.comparisonOperator' failed to satisfy "
          "constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, "
          "LE, BEGINS_WITH, GE, CONTAINS]",
          put, TableName=t, Item=base, Expected={"s": cond("ABOUT", S("x"))})
    fails("unknown ConditionalOperator", "ValidationException",
          "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member "
          "must satisfy enum value set: [OR, AND]",
          put, TableName=t, Item=base, Expected={"s": {"Exists": False}}, ConditionalOperator="XOR")

    # every comparison operator, true and false (LegacyConditionalParameters.Conditions;
    # API_Condition: a value of another type than the attribute's does not match)
    ops = [("EQ", "s", [S("hello")], [S("Hello")]), ("NE", "s", [S("x")], [S("hello")]),
           ("LE", "n", [N(5)], [N(4)]), ("LT", "n", [N(6)], [N(5)]), ("GE", "n", [N(5)], [N(6)]),
           ("GT", "n", [N(4)], [N(5)]), ("NOT_NULL", "s", [], None), ("NULL", "zz", [], None),
           ("NOT_NULL", "zz", None, []), ("NULL", "s", None, []),
           ("CONTAINS", "s", [S("ell")], [S("xyz")]), ("CONTAINS", "ss", [S("x")], [S("z")]),
           ("CONTAINS", "l", [S("e")], [S("f")]), ("NOT_CONTAINS", "s", [S("xyz")], [S("ell")]),
           ("BEGINS_WITH", "s", [S("he")], [S("el")]), ("BEGINS_WITH", "b", [{"B": b"a"}], [{"B": b"b"}]),
           ("IN", "n", [N(1), N(5)], [N(1), N(2)]), ("BETWEEN", "n", [N(1), N(5)], [N(6), N(9)]),
           ("EQ", "ss", [{"SS": ["y", "x"]}], [{"SS": ["x"]}]), ("LT", "s", [S("z")], [N(9)])]
    for op, attr, yes, no in ops:
        if yes is not None:
            put(TableName=t, Item=base, Expected={attr: cond(op, *yes)})
        if no is not None:
            fails("%s %s %r is false" % (attr, op, no), "ConditionalCheckFailedException",
                  "The conditional request failed", put, TableName=t, Item=base, Expected={attr: cond(op, *no)})
    # ConditionalOperator (LegacyConditionalParameters.Expected: "use the ConditionalOperator
    # parameter to OR the conditions instead")
    either = {"s": {"Value": S("nope")}, "n": {"Value": N(5)}}
    fails("AND of a false and a true", "ConditionalCheckFailedException", "The conditional request failed",
          put, TableName=t, Item=base, Expected=either)
    if not DYNALITE:   # dynalite 3.2.2's OR gives up at the first false condition
        put(TableName=t, Item=base, Expected=either, ConditionalOperator="OR")
    # DeleteItem's Expected (API_DeleteItem)
    put(TableName=t, Item=K("d", 1))
    fails("DeleteItem Expected false", "ConditionalCheckFailedException", "The conditional request failed",
          dele, TableName=t, Key=K("d", 1), Expected={"pk": {"Exists": False}})
    dele(TableName=t, Key=K("d", 1), Expected={"pk": {"Value": S("d")}})
    check("Item" not in get(TableName=t, Key=K("d", 1)), "DeleteItem with a true Expected deletes")

    # --- AttributeUpdates (LegacyConditionalParameters.AttributeUpdates; API_AttributeValueUpdate)
    r = upd(TableName=t, Key=K("u", 1), ReturnValues="ALL_NEW",
            AttributeUpdates={"p": {"Value": S("v")}, "c": {"Action": "ADD", "Value": N(2)},
                              "set": {"Action": "ADD", "Value": {"SS": ["a", "b"]}},
                              "lst": {"Action": "ADD", "Value": {"L": [N(1)]}}})
    check(r["Attributes"] == {"pk": S("u"), "sk": N(1), "p": S("v"), "c": N(2), "set": {"SS": ["a", "b"]},
                              "lst": {"L": [N(1)]}}, "AttributeUpdates on a new item: %r" % r)
    r = upd(TableName=t, Key=K("u", 1), ReturnValues="ALL_NEW",
            AttributeUpdates={"p": {"Action": "DELETE"}, "c": {"Action": "ADD", "Value": N(-5)},
                              "set": {"Action": "DELETE", "Value": {"SS": ["a", "zz"]}},
                              "lst": {"Action": "ADD", "Value": {"L": [N(2)]}}, "q": {"Action": "PUT", "Value": N(7)}},
            Expected={"c": {"Value": N(2)}})
    check(r["Attributes"] == {"pk": S("u"), "sk": N(1), "c": N(-3), "set": {"SS": ["b"]},
                              "lst": {"L": [N(1), N(2)]}, "q": N(7)}, "AttributeUpdates on a stored item: %r" % r)
    fails("UpdateItem Expected false", "ConditionalCheckFailedException", "The conditional request failed",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"q": {"Value": N(8)}}, Expected={"q": cond("GT", N(7))})
    check(get(TableName=t, Key=K("u", 1))["Item"]["q"] == N(7), "a failed condition changes nothing")
    # no update at all (API_UpdateItem: "adds a new item to the table if it does not already
    # exist"; ReturnValues ALL_NEW / ALL_OLD: the item after / before the call)
    r = upd(TableName=t, Key=K("u", 2), AttributeUpdates={}, ReturnValues="ALL_NEW")
    check(r.get("Attributes") == K("u", 2), "no update, ALL_NEW of a new item: %r" % r)
    r = upd(TableName=t, Key=K("u", 2), ReturnValues="ALL_OLD")
    check(r.get("Attributes") == K("u", 2), "no update, ALL_OLD of the stored item: %r" % r)
    r = upd(TableName=t, Key=K("u", 3), ReturnValues="ALL_OLD")
    check("Attributes" not in r, "no update, ALL_OLD of a new item: %r" % r)
    r = upd(TableName=t, Key=K("u", 1), AttributeUpdates={}, ReturnValues="UPDATED_NEW")
    check(DYNALITE or "Attributes" not in r, "no update, UPDATED_NEW: %r" % r)   # dynalite answers {}
    # dynalite test/updateItem.js: DynamoDB's words for each misuse
    fails("PUT without a value", "ValidationException",
          INVALID + "Only DELETE action is allowed when no attribute value is specified",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"q": {"Action": "PUT"}})
    fails("DELETE with a string", "ValidationException",
          INVALID + "DELETE action with value is not supported for the type S",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"q": {"Action": "DELETE", "Value": S("x")}})
    fails("ADD of a string", "ValidationException", INVALID + "ADD action is not supported for the type S",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"q": {"Action": "ADD", "Value": S("x")}})
    fails("unknown Action", "ValidationException",
          "1 validation error detected: Value 'MERGE' at 'attributeUpdates.q.member.action' failed to satisfy "
          "constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"q": {"Action": "MERGE", "Value": S("x")}}, dyn=False)
    fails("ADD of a number to a set", "ValidationException", "Type mismatch for attribute to update",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"set": {"Action": "ADD", "Value": N(1)}})
    # dynalite test/updateItem.js: a set of another type deleted from a set, a set from a number
    fails("DELETE of an NS from an SS", "ValidationException", "Type mismatch for attribute to update",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"set": {"Action": "DELETE", "Value": {"NS": ["1"]}}})
    fails("DELETE of an NS from a number", "ValidationException", "Type mismatch for attribute to update",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"c": {"Action": "DELETE", "Value": {"NS": ["1"]}}})
    fails("ADD of an SS to a number", "ValidationException", "Type mismatch for attribute to update",
          upd, TableName=t, Key=K("u", 1), AttributeUpdates={"c": {"Action": "ADD", "Value": {"SS": ["1"]}}})
    # ExtendDB's tests/test_validation_precedence.py (captured from DynamoDB): Expected's
    # structure is checked before the table's existence
    fails("Expected's structure before the table", "ValidationException", INVALID,
          put, TableName="NoSuchTable", Item=K("a", 1), Expected={"s": {"ComparisonOperator": "EQ"}})
    fails("a key attribute", "ValidationException", INVALID + "Cannot update attribute sk. This attribute is part "
          "of the key", upd, TableName=t, Key=K("u", 1), AttributeUpdates={"sk": {"Value": N(2)}})

    # --- Query: KeyConditions and QueryFilter (LegacyConditionalParameters.KeyConditions,
    # .QueryFilter; API_Query)
    for i in range(1, 6):
        put(TableName=t, Item=dict(K("q", i), odd=N(i % 2), name=S("item%d" % i)))
    r = c.query(TableName=t, KeyConditions={"pk": cond("EQ", S("q")), "sk": cond("BETWEEN", N(2), N(4))})
    check([x["sk"] for x in r["Items"]] == [N(2), N(3), N(4)], "KeyConditions BETWEEN: %r" % r["Items"])
    r = c.query(TableName=t, KeyConditions={"pk": cond("EQ", S("q")), "sk": cond("GT", N(3))},
                QueryFilter={"odd": cond("EQ", N(1))}, AttributesToGet=["sk"], ScanIndexForward=False)
    check(r["Items"] == [{"sk": N(5)}] and r["ScannedCount"] == 2, "KeyConditions + QueryFilter: %r" % r)
    r = c.query(TableName=t, KeyConditions={"pk": cond("EQ", S("q"))}, ConditionalOperator="OR",
                QueryFilter={"odd": cond("EQ", N(0)), "name": cond("BEGINS_WITH", S("item5"))})
    check(DYNALITE or [x["sk"] for x in r["Items"]] == [N(2), N(4), N(5)], "QueryFilter OR: %r" % r["Items"])
    r = c.query(TableName=t, KeyConditions={"pk": cond("EQ", S("q"))}, FilterExpression="odd = :o",
                ExpressionAttributeValues={":o": N(1)}, Select="COUNT")
    check(r["Count"] == 3, "KeyConditions with a FilterExpression: %r" % r)
    fails("NE in KeyConditions", "ValidationException",
          "Attempted conditional constraint is not an indexable operation",
          c.query, TableName=t, KeyConditions={"pk": cond("EQ", S("q")), "sk": cond("NE", N(2))})
    fails("three KeyConditions", "ValidationException", "Conditions can be of length 1 or 2 only",
          c.query, TableName=t, KeyConditions={"pk": cond("EQ", S("q")), "sk": cond("GT", N(2)),
                                               "odd": cond("EQ", N(1))})
    fails("KeyConditions without the partition key", "ValidationException",
          "Query condition missed key schema element: pk",
          c.query, TableName=t, KeyConditions={"sk": cond("EQ", N(2))})
    fails("KeyConditions of the wrong type", "ValidationException",
          INVALID + "Condition parameter type does not match schema type",
          c.query, TableName=t, KeyConditions={"pk": cond("EQ", N(1))})
    fails("KeyConditions GT on the partition key", "ValidationException", "Query key condition not supported",
          c.query, TableName=t, KeyConditions={"pk": cond("GT", S("q"))})
    fails("QueryFilter on a key", "ValidationException",
          "QueryFilter can only contain non-primary key attributes: Primary key attribute: sk",
          c.query, TableName=t, KeyConditions={"pk": cond("EQ", S("q"))}, QueryFilter={"sk": cond("EQ", N(1))})
    fails("Query without any key condition", "ValidationException",
          "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
          c.query, TableName=t, QueryFilter={"odd": cond("EQ", N(1))})

    # --- Scan: ScanFilter (LegacyConditionalParameters.ScanFilter; API_Scan)
    r = c.scan(TableName=t, ScanFilter={"odd": cond("EQ", N(1)), "name": cond("IN", S("item1"), S("item3"))})
    check(sorted(x["sk"]["N"] for x in r["Items"]) == ["1", "3"], "ScanFilter AND: %r" % r["Items"])
    r = c.scan(TableName=t, ScanFilter={"odd": cond("NULL")}, Select="COUNT")
    check(r["Count"] == 4, "ScanFilter NULL: %r" % r)   # a/1 and u/1..3 have no odd
    fails("ScanFilter LE on a set", "ValidationException",
          INVALID + "ComparisonOperator LE is not valid for SS AttributeValue type",
          c.scan, TableName=t, ScanFilter={"ss": cond("LE", {"SS": ["x"]})})
    # API_Condition, CONTAINS: "an AttributeValue element of type String, Number, or Binary
    # (not a set type)"; dynalite test/scan.js
    fails("ScanFilter CONTAINS a set", "ValidationException",
          INVALID + "ComparisonOperator CONTAINS is not valid for SS AttributeValue type",
          c.scan, TableName=t, ScanFilter={"ss": cond("CONTAINS", {"SS": ["x"]})})
    fails("ScanFilter BEGINS_WITH a number", "ValidationException",
          INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
          c.scan, TableName=t, ScanFilter={"n": cond("BEGINS_WITH", N(1))})
    fails("ScanFilter without ComparisonOperator", "ValidationException",
          "1 validation error detected: Value null at 'scanFilter.n.member.comparisonOperator' failed to satisfy "
          "constraint: Member must not be null",
          c.scan, TableName=t, ScanFilter={"n": {"AttributeValueList": [N(1)]}})
    fails("ScanFilter IN without values", "ValidationException",
          INVALID + "Invalid number of argument(s) for the IN ComparisonOperator",
          c.scan, TableName=t, ScanFilter={"n": {"ComparisonOperator": "IN", "AttributeValueList": []}})


def client(endpoint):
    return sdk.client(endpoint, validate=False)


def main():
    global DYNALITE
    if sys.argv[1] == "--dynalite":
        DYNALITE = True
        with Dynalite(sys.argv[2], sys.argv[3]) as d:
            run(client(d.endpoint))
    else:
        with Server(sys.argv[1], sys.argv[2]) as s:
            run(client(s.endpoint))
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
