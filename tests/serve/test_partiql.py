#!/usr/bin/env python3
"""PartiQL in `ddb serve` (ExecuteStatement, BatchExecuteStatement,
ExecuteTransaction) driven by boto3, then once by the AWS CLI's
`aws dynamodb execute-statement`.  Each case cites the DynamoDB page it
follows:

  SELECT      https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
  INSERT      https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
  UPDATE      https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
  DELETE      https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html
  functions   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-functions.html
  operators   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-operators.html
  data types  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.data-types.html
  batches     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.batching.html
  transactions https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.transactions.html
  API         API_ExecuteStatement, API_BatchExecuteStatement, API_ExecuteTransaction
Error wordings are DynamoDB's as DynamoDB Local (which mirrors them) spells
them in its ValidationExceptionMessages.

usage: test_partiql.py DDB_TOOL WORKDIR       (exit 77 = skipped: no boto3)
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server  # noqa: E402

from sdk import client, error_of  # noqa: E402  (exit 77 without boto3)

DDB, WORK = sys.argv[1], sys.argv[2]
WELL_FORMED = "Statement wasn't well formed, can't be processed: "
KEYS = "Where clause does not contain a mandatory equality on all key attributes"


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def setup(c):
    c.create_table(
        TableName="Music",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t}
                              for a, t in (("Artist", "S"), ("SongTitle", "S"), ("Genre", "S"), ("Year", "N"))],
        KeySchema=[{"AttributeName": "Artist", "KeyType": "HASH"},
                   {"AttributeName": "SongTitle", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "ByGenre",
                                 "KeySchema": [{"AttributeName": "Genre", "KeyType": "HASH"},
                                               {"AttributeName": "Year", "KeyType": "RANGE"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST")
    c.create_table(TableName="Counters", AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
                   KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST")


def run(c, statement, **kw):
    return c.execute_statement(Statement=statement, **kw)


def insert_and_types(c):
    # INSERT with every PartiQL literal (data types page: 'string', numbers,
    # TRUE/FALSE, NULL, [list], {'map': ...}, <<string set>>, <<number set>>);
    # a write answers an empty Items list
    r = run(c, "INSERT INTO \"Music\" VALUE {'Artist': 'Acme Band', 'SongTitle': 'PartiQL Rocks', "
               "'Year': 2020, 'Price': -1.50, 'Genre': 'rock', 'Awards': {'Grammys': [2020, 2018]}, "
               "'Tags': <<'a', 'b'>>, 'Ratings': <<5, 3>>, 'Live': TRUE, 'Remix': FALSE, 'Notes': NULL, "
               "'Quote': 'it''s'}")
    check(r["Items"] == [], r)
    item = c.get_item(TableName="Music", Key={"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "PartiQL Rocks"}})
    want = {"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "PartiQL Rocks"}, "Year": {"N": "2020"},
            "Price": {"N": "-1.5"}, "Genre": {"S": "rock"},
            "Awards": {"M": {"Grammys": {"L": [{"N": "2020"}, {"N": "2018"}]}}},
            "Tags": {"SS": ["a", "b"]}, "Ratings": {"NS": ["3", "5"]}, "Live": {"BOOL": True},
            "Remix": {"BOOL": False}, "Notes": {"NULL": True}, "Quote": {"S": "it's"}}
    got = item["Item"]
    got["Ratings"]["NS"].sort()
    check(got == want, got)
    # parameters (API_ExecuteStatement: Parameters), a binary one included
    run(c, "INSERT INTO Music VALUE {'Artist': ?, 'SongTitle': ?, 'Data': ?, 'Year': ?, 'Genre': 'jazz'}",
        Parameters=[{"S": "Acme Band"}, {"S": "Blue"}, {"B": b"\x00\x01"}, {"N": "1999"}])
    for title, year, genre in (("Cold", 2001, "rock"), ("Dawn", 2005, "pop"), ("Echo", 2010, "rock")):
        run(c, "INSERT INTO Music VALUE {'Artist': 'Acme Band', 'SongTitle': ?, 'Year': ?, 'Genre': ?}",
            Parameters=[{"S": title}, {"N": str(year)}, {"S": genre}])
    # the item itself as a parameter (a map AttributeValue)
    run(c, "insert into Music value ?", Parameters=[{"M": {"Artist": {"S": "Zed"}, "SongTitle": {"S": "Alpha"},
                                                          "Year": {"N": "1980"}, "Plays": {"N": "7"}}}])
    # INSERT of a key that exists: DuplicateItemException (INSERT page;
    # API_ExecuteStatement errors)
    code, msg, _ = error_of(run, c=c, statement="INSERT INTO Music VALUE {'Artist': 'Zed', 'SongTitle': 'Alpha'}")
    check((code, msg) == ("DuplicateItemException", "Duplicate primary key exists in table"), (code, msg))
    # an item without its key, a key of another type (DynamoDB's PartiQL
    # messages, as DynamoDB Local's ValidationExceptionMessages spells them)
    code, msg, _ = error_of(run, c=c, statement="INSERT INTO Music VALUE {'Artist': 'Zed'}")
    check((code, msg) == ("ValidationException", "Key attribute should be present in the item: Key SongTitle"), msg)
    code, msg, _ = error_of(run, c=c, statement="UPDATE Music SET a = 1 WHERE Artist = 1 AND SongTitle = 'x'")
    check(msg == "Key attribute's data type should match its data type in table's schema: Key Artist", msg)
    code, msg, _ = error_of(run, c=c, statement="INSERT INTO Music VALUES ('a', 'b')")
    check(code == "ValidationException" and msg.startswith("Unsupported operation: Inserting multiple items"), msg)


def titles(items):
    return [i["SongTitle"]["S"] for i in items]


def select(c):
    # an equality on the partition key is a Query, in sort-key order (SELECT page)
    r = run(c, "SELECT * FROM Music WHERE Artist = 'Acme Band'")
    check(titles(r["Items"]) == ["Blue", "Cold", "Dawn", "Echo", "PartiQL Rocks"], r["Items"])
    # sort-key conditions and ORDER BY ... DESC
    r = run(c, "SELECT SongTitle FROM \"Music\" WHERE \"Artist\" = 'Acme Band' AND SongTitle BETWEEN 'B' AND 'D'")
    check(r["Items"] == [{"SongTitle": {"S": "Blue"}}, {"SongTitle": {"S": "Cold"}}], r["Items"])
    r = run(c, "SELECT SongTitle FROM Music WHERE Artist = 'Acme Band' AND begins_with(SongTitle, 'P')")
    check(titles(r["Items"]) == ["PartiQL Rocks"], r)
    r = run(c, "SELECT SongTitle FROM Music WHERE Artist = 'Acme Band' AND SongTitle > 'Cold' "
               "ORDER BY SongTitle DESC")
    check(titles(r["Items"]) == ["PartiQL Rocks", "Echo", "Dawn"], r)
    r = run(c, "SELECT * FROM Music WHERE Artist = 'Acme Band' AND Year >= 2005")
    check(titles(r["Items"]) == ["Dawn", "Echo", "PartiQL Rocks"], r)
    # a projection of document paths
    r = run(c, "SELECT Awards.Grammys[1], Year FROM Music WHERE Artist = ? AND SongTitle = ?",
            Parameters=[{"S": "Acme Band"}, {"S": "PartiQL Rocks"}])
    check(r["Items"] == [{"Awards": {"M": {"Grammys": {"L": [{"N": "2018"}]}}}, "Year": {"N": "2020"}}], r)
    # anything else is a Scan with the WHERE clause as its filter
    every = run(c, "SELECT * FROM Music")["Items"]
    check(len(every) == 6, every)
    cases = [
        ("Artist = 'Zed' OR Year < 2000", {"Alpha", "Blue"}),
        ("NOT Artist = 'Acme Band'", {"Alpha"}),
        ("Year IN [1999, 2010, 3000]", {"Blue", "Echo"}),
        ("Year NOT IN (1999, 2010)", {"Alpha", "Cold", "Dawn", "PartiQL Rocks"}),
        ("Notes IS NULL", {"PartiQL Rocks"}),
        ("Plays IS NOT MISSING", {"Alpha"}),
        ("Genre IS MISSING", {"Alpha"}),
        ("contains(Tags, 'b')", {"PartiQL Rocks"}),
        ("attribute_type(Data, 'B')", {"Blue"}),
        ("size(SongTitle) > 4", {"Alpha", "PartiQL Rocks"}),
        ("Year BETWEEN 2001 AND 2005 AND Genre <> 'pop'", {"Cold"}),
        ("Year NOT BETWEEN 1981 AND 2019", {"Alpha", "PartiQL Rocks"}),
        ("Live = TRUE", {"PartiQL Rocks"}),
        ("Awards.Grammys[0] = 2020", {"PartiQL Rocks"}),
        ("Tags = <<'b', 'a'>>", {"PartiQL Rocks"}),
        ("Awards = {'Grammys': [2020, 2018]}", {"PartiQL Rocks"}),
        ("Artist = 'Acme Band' OR Artist = 'Zed'", {"Alpha", "Blue", "Cold", "Dawn", "Echo", "PartiQL Rocks"}),
        ("(Year > 2000 AND Year < 2006) OR Plays = 7", {"Alpha", "Cold", "Dawn"}),
        ("Year IS NUMERIC AND NOT (Genre IS STRING)", {"Alpha"}),
    ]
    for where, want in cases:
        got = {i["SongTitle"]["S"] for i in run(c, "SELECT * FROM Music WHERE " + where)["Items"]}
        check(got == want, (where, got, want))
    # "Music"."ByGenre": an index, queried on its own key
    r = run(c, "SELECT SongTitle, Year FROM \"Music\".\"ByGenre\" WHERE Genre = 'rock' AND Year > 2000")
    check(titles(r["Items"]) == ["Cold", "Echo", "PartiQL Rocks"], r)
    r = run(c, "SELECT * FROM \"Music\".\"ByGenre\" WHERE Genre = 'rock' ORDER BY Year DESC")
    check(titles(r["Items"]) == ["PartiQL Rocks", "Echo", "Cold"], r)
    # a strongly consistent read of a GSI is refused (API_Query: ConsistentRead)
    code, msg, _ = error_of(run, c=c, statement="SELECT * FROM \"Music\".\"ByGenre\" WHERE Genre = 'rock'",
                            ConsistentRead=True)
    check(code == "ValidationException", (code, msg))
    r = run(c, "SELECT * FROM Music WHERE Artist = 'Zed'", ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    check(r["ConsumedCapacity"]["TableName"] == "Music" and r["ConsumedCapacity"]["CapacityUnits"] == 1.0, r)


def paging(c):
    # Limit and NextToken (API_ExecuteStatement: Limit is the items evaluated;
    # NextToken continues the same statement)
    for stmt in ("SELECT * FROM Music WHERE Artist = 'Acme Band'", "SELECT * FROM Music WHERE Year > 1990"):
        whole = run(c, stmt)["Items"]
        pages, token = [], None
        while True:
            kw = {"Limit": 2}
            if token:
                kw["NextToken"] = token
            r = run(c, stmt, **kw)
            check(len(r["Items"]) <= 2, r)
            pages += r["Items"]
            token = r.get("NextToken")
            if not token:
                break
            check("LastEvaluatedKey" in r, r)
        check(pages == whole, (stmt, pages, whole))
    token = run(c, "SELECT * FROM Music", Limit=1)["NextToken"]
    code, msg, _ = error_of(run, c=c, statement="SELECT * FROM Music WHERE Year > 0", NextToken=token)
    check((code, msg) == ("ValidationException", "NextToken does not match request"), (code, msg))
    stmt = "SELECT * FROM Music WHERE Artist = ?"
    token = run(c, stmt, Limit=1, Parameters=[{"S": "Acme Band"}])["NextToken"]
    code, msg, _ = error_of(run, c=c, statement=stmt, NextToken=token, Parameters=[{"S": "Zed"}])
    check((code, msg) == ("ValidationException", "NextToken does not match request"), (code, msg))
    code, msg, _ = error_of(run, c=c, statement="SELECT * FROM Music", NextToken="bm90IGEgdG9rZW4=")
    check((code, msg) == ("ValidationException", "Invalid NextToken"), (code, msg))


def update_delete(c):
    key = "WHERE Artist = 'Acme Band' AND SongTitle = 'Cold'"
    # SET / REMOVE, a nested path, arithmetic, list_append, set_add and
    # set_delete, RETURNING (UPDATE page)
    r = run(c, "UPDATE Music SET Plays = 1 SET Meta = {'tags': ['x']} REMOVE Genre " + key + " RETURNING ALL NEW *")
    check(r["Items"] == [{"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Cold"}, "Year": {"N": "2001"},
                          "Plays": {"N": "1"}, "Meta": {"M": {"tags": {"L": [{"S": "x"}]}}}}], r)
    r = run(c, "UPDATE Music SET Plays = Plays + 2, Meta.tags[0] = 'y' " + key + " RETURNING MODIFIED OLD *")
    check(r["Items"] == [{"Plays": {"N": "1"}, "Meta": {"M": {"tags": {"L": [{"S": "x"}]}}}}], r)
    run(c, "UPDATE Music SET Meta.tags = list_append(Meta.tags, ['z']) " + key)
    r = run(c, "UPDATE Music SET Tags = set_add(Tags, <<'n', 'm'>>) " + key + " RETURNING MODIFIED NEW *")
    check(r["Items"] == [{"Tags": {"SS": ["m", "n"]}}], r)
    run(c, "UPDATE Music SET Tags = set_delete(Tags, <<'m'>>) " + key)
    item = c.get_item(TableName="Music", Key={"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Cold"}})["Item"]
    check(item["Plays"] == {"N": "3"} and item["Tags"] == {"SS": ["n"]} and "Genre" not in item, item)
    check(item["Meta"] == {"M": {"tags": {"L": [{"S": "y"}, {"S": "z"}]}}}, item)
    r = run(c, "UPDATE Music SET Plays = 0 " + key)
    check(r["Items"] == [], r)
    # UPDATE of an item that does not exist: ConditionalCheckFailedException
    code, msg, _ = error_of(run, c=c, statement="UPDATE Music SET Plays = 1 WHERE Artist = 'Nobody' AND "
                                                "SongTitle = 'None'")
    check(code == "ConditionalCheckFailedException", (code, msg))
    check(c.get_item(TableName="Music", Key={"Artist": {"S": "Nobody"}, "SongTitle": {"S": "None"}}).get("Item")
          is None, "the failed UPDATE created an item")
    # a condition besides the key; ReturnValuesOnConditionCheckFailure ALL_OLD
    # (API_ExecuteStatement) puts the stored item in the exception
    code, msg, resp = error_of(run, c=c, statement="UPDATE Music SET Plays = 5 " + key + " AND Plays > 100",
                               ReturnValuesOnConditionCheckFailure="ALL_OLD")
    check(code == "ConditionalCheckFailedException" and resp["Item"]["Plays"] == {"N": "0"}, (code, resp))
    run(c, "UPDATE Music SET Plays = 5 " + key + " AND Plays < 100")
    # a full key is required (UPDATE / DELETE: "must resolve to a single primary key value")
    for stmt in ("UPDATE Music SET Plays = 1 WHERE Artist = 'Acme Band'",
                 "DELETE FROM Music WHERE Artist = 'Acme Band'",
                 "UPDATE Music SET Plays = 1 WHERE Artist = 'Acme Band' OR SongTitle = 'Cold'"):
        code, msg, _ = error_of(run, c=c, statement=stmt)
        check((code, msg) == ("ValidationException", KEYS), (stmt, code, msg))
    code, msg, _ = error_of(run, c=c, statement="UPDATE Music SET Tags = set_add(Plays, <<'a'>>) " + key)
    check(msg == "The first argument to SET_ADD must equal the assignment value", msg)
    # DELETE: RETURNING ALL OLD *; a missing item is a success; an item the
    # condition does not match is ConditionalCheckFailedException (DELETE page)
    code, msg, _ = error_of(run, c=c, statement="DELETE FROM Music " + key + " AND Plays = 6")
    check(code == "ConditionalCheckFailedException", (code, msg))
    code, msg, _ = error_of(run, c=c, statement="DELETE FROM Music " + key + " AND (Plays = 6 OR Plays IS MISSING)")
    check(code == "ConditionalCheckFailedException", (code, msg))
    r = run(c, "DELETE FROM Music " + key + " AND (Plays = 5 OR Plays IS MISSING) RETURNING ALL OLD *")
    check(len(r["Items"]) == 1 and r["Items"][0]["SongTitle"] == {"S": "Cold"}, r)
    r = run(c, "DELETE FROM Music " + key)
    check(r["Items"] == [], r)
    r = run(c, "DELETE FROM Music " + key + " AND Plays = 5")
    check(r["Items"] == [], r)
    code, msg, _ = error_of(run, c=c, statement="DELETE FROM Music " + key + " RETURNING ALL NEW *")
    check(msg == "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE "
                 "statements.", msg)


def errors(c, raw):
    cases = [
        ("SLECT * FROM Music", WELL_FORMED + "Expected data manipulation"),
        ("SELECT * FROM Music WHERE", None),
        ("SELECT * FROM Music WHERE Artist = 'x' garbage", None),
        ("SELECT * FROM Music WHERE Artist = 'unterminated", None),
        ("SELECT a, * FROM Music", "Other attributes should not be present in the projection when '*' is used."),
        ("SELECT a, a FROM Music", "Duplicate identifiers in select clause: a"),
        ("SELECT * FROM Music WHERE a = MISSING", "MISSING must be compared using IS operator"),
        ("SELECT * FROM Music ORDER BY Artist", "Must have WHERE clause in the statement when using ORDER BY clause."),
        ("SELECT * FROM Music WHERE Year = 1 ORDER BY SongTitle",
         "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."),
        ("SELECT * FROM Music WHERE Artist = 'a' ORDER BY Year",
         "Variable reference Year in ORDER BY clause must be part of the primary key"),
        ("SELECT * FROM Music WHERE Tags = <<>>", "Empty bags are not supported"),
        ("SELECT * FROM Music WHERE Tags = <<1, 'a'>>",
         "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"),
        ("SELECT * FROM Music WHERE a IS FOO", None),
        ("INSERT INTO Music VALUE {'Artist': 'a', 'SongTitle': 'b'} RETURNING ALL OLD *",
         "RETURNING is not supported in INSERT"),
        ("SELECT * FROM Music WHERE Artist = ?", "Number of parameters in request and statement don't match."),
        ("SELECT * FROM Music WHERE " + "(" * 100 + "a = 1" + ")" * 100, None),
    ]
    for stmt, want in cases:
        code, msg, _ = error_of(run, c=c, statement=stmt)
        check(code == "ValidationException", (stmt, code, msg))
        check(msg == want if want else msg.startswith(WELL_FORMED) or "IS operator" in msg, (stmt, msg))
    code, msg, _ = error_of(run, c=c, statement="SELECT * FROM Nope")
    check(code == "ResourceNotFoundException", (code, msg))
    code, msg, _ = error_of(run, c=c, statement="SELECT * FROM \"Music\".\"Nope\"")
    check(code == "ValidationException", (code, msg))
    code, msg, _ = error_of(run, c=c, statement="SELECT * FROM Music WHERE Artist = ?",
                            Parameters=[{"S": "a"}, {"S": "b"}])
    check(msg == "Number of parameters in request and statement don't match.", msg)
    code, msg, _ = error_of(run, c=c, statement="EXISTS(SELECT * FROM Music WHERE Artist = 'a' AND SongTitle = 'b')")
    check(msg == "EXISTS can only be used in ExecuteTransaction write requests.", msg)
    # the statement's length, 1 to 8192 (API_ExecuteStatement: Statement)
    code, msg, _ = error_of(run, c=raw, statement="SELECT * FROM Music WHERE a = '" + "x" * 8200 + "'")
    check(code == "ValidationException" and "8192" in msg, (code, msg))
    code, msg, _ = error_of(run, c=raw, statement="")
    check(code == "ValidationException", (code, msg))
    code, msg, _ = error_of(run, c=raw, statement="SELECT * FROM Music", Parameters=[])
    check(code == "ValidationException", (code, msg))


def batch(c):
    # BatchExecuteStatement: each statement answered in place, its errors
    # included (API_BatchExecuteStatement, API_BatchStatementResponse)
    r = c.batch_execute_statement(Statements=[
        {"Statement": "INSERT INTO Counters VALUE {'id': 1, 'n': 0}"},
        {"Statement": "INSERT INTO Counters VALUE {'id': ?, 'n': 0}", "Parameters": [{"N": "2"}]},
        {"Statement": "SLECT nothing"},
        {"Statement": "INSERT INTO Counters VALUE {'id': 3, 'n': 0}"},
    ], ReturnConsumedCapacity="TOTAL")
    # ConsumedCapacity (TOTAL) outside a transaction has no read/write split (ExtendDB
    # tests/test_consumed_capacity_shape.py, measured on DynamoDB)
    check(r["ConsumedCapacity"] == [{"TableName": "Counters", "CapacityUnits": 3.0}], r)
    r = r["Responses"]
    check(len(r) == 4 and r[0] == {"TableName": "Counters"} and r[1] == {"TableName": "Counters"}, r)
    check(r[2]["Error"] == {"Code": "ValidationError", "Message": WELL_FORMED + "Expected data manipulation"}, r)
    check(r[3] == {"TableName": "Counters"}, r)
    r = c.batch_execute_statement(Statements=[{"Statement": "UPDATE Counters SET n = n + 1 WHERE id = 1"}])
    check(r["Responses"] == [{"TableName": "Counters"}], r)
    r = c.batch_execute_statement(Statements=[
        {"Statement": "INSERT INTO Counters VALUE {'id': 1, 'n': 0}"},
        {"Statement": "UPDATE Counters SET n = 9 WHERE id = 7"},
        {"Statement": "DELETE FROM Counters WHERE id = 2 AND n = 3", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
    ])["Responses"]
    check(r[0]["Error"] == {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}, r)
    check(r[1]["Error"]["Code"] == "ConditionalCheckFailed", r)
    check(r[2]["Error"]["Code"] == "ConditionalCheckFailed" and r[2]["Error"]["Item"]["id"] == {"N": "2"}, r)
    r = c.batch_execute_statement(Statements=[
        {"Statement": "SELECT * FROM Counters WHERE id = 1"},
        {"Statement": "SELECT n FROM Counters WHERE id = 5"},
        {"Statement": "SELECT * FROM Counters WHERE id = 2 AND n = 0", "ConsistentRead": True},
        {"Statement": "SELECT * FROM Counters WHERE n = 0"},
    ])["Responses"]
    check(r[0] == {"TableName": "Counters", "Item": {"id": {"N": "1"}, "n": {"N": "1"}}}, r)
    check(r[1] == {"TableName": "Counters"}, r)
    check(r[2] == {"TableName": "Counters", "Item": {"id": {"N": "2"}, "n": {"N": "0"}}}, r)
    check(r[3]["Error"] == {"Code": "ValidationError", "Message": KEYS}, r)
    # one item twice in a batch (API_BatchGetItem / API_BatchWriteItem's rule,
    # which DynamoDB Local applies to PartiQL batches too)
    for stmts in (["SELECT * FROM Counters WHERE id = 1", "SELECT n FROM Counters WHERE id = 1 AND n > 0"],
                  ["UPDATE Counters SET n = 1 WHERE id = 1", "DELETE FROM Counters WHERE id = 1"]):
        code, msg, _ = error_of(c.batch_execute_statement, Statements=[{"Statement": s} for s in stmts])
        check((code, msg) == ("ValidationException", "Provided list of item keys contains duplicates"), (code, msg))
    # a batch is all reads or all writes (batching page)
    code, msg, _ = error_of(c.batch_execute_statement, Statements=[
        {"Statement": "SELECT * FROM Counters WHERE id = 1"},
        {"Statement": "DELETE FROM Counters WHERE id = 1"}])
    check((code, msg) == ("ValidationException", "Read and write requests together in the same batch is not "
                                                 "supported."), (code, msg))


def transactions(c):
    # ExecuteTransaction: writes and EXISTS checks in one TransactWriteItems
    # (transactions page; API_ExecuteTransaction)
    r = c.execute_transaction(TransactStatements=[
        {"Statement": "INSERT INTO Counters VALUE {'id': 10, 'n': 1}"},
        {"Statement": "UPDATE Counters SET n = n + 10 WHERE id = 1"},
        {"Statement": "EXISTS(SELECT * FROM Counters WHERE id = 2 AND n = 0)"},
        {"Statement": "DELETE FROM Counters WHERE id = ?", "Parameters": [{"N": "3"}]},
    ])
    check(r["Responses"] == [], r)
    got = c.execute_statement(Statement="SELECT * FROM Counters WHERE id = 1")["Items"]
    check(got == [{"id": {"N": "1"}, "n": {"N": "11"}}], got)
    # ClientRequestToken: the same transaction again is answered without
    # writing again (API_ExecuteTransaction: ClientRequestToken)
    for _ in range(2):
        c.execute_transaction(ClientRequestToken="partiql-token-1", TransactStatements=[
            {"Statement": "UPDATE Counters SET n = n + 1 WHERE id = 10"}])
    got = c.execute_statement(Statement="SELECT n FROM Counters WHERE id = 10")["Items"]
    check(got == [{"n": {"N": "2"}}], got)
    run(c, "UPDATE Counters SET n = 1 WHERE id = 10")
    # a cancelled transaction: one reason per statement; an INSERT of an
    # existing key is DuplicateItem (API_CancellationReason)
    code, msg, resp = error_of(c.execute_transaction, TransactStatements=[
        {"Statement": "INSERT INTO Counters VALUE {'id': 10, 'n': 1}"},
        {"Statement": "UPDATE Counters SET n = 0 WHERE id = 1"},
        {"Statement": "EXISTS(SELECT * FROM Counters WHERE id = 2 AND n = 99)",
         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
    ])
    check(code == "TransactionCanceledException", (code, msg))
    reasons = resp["CancellationReasons"]
    check([x["Code"] for x in reasons] == ["DuplicateItem", "None", "ConditionalCheckFailed"], reasons)
    check(reasons[0]["Message"] == "Duplicate primary key exists in table", reasons)
    check(reasons[2]["Item"] == {"id": {"N": "2"}, "n": {"N": "0"}}, reasons)
    got = c.execute_statement(Statement="SELECT * FROM Counters WHERE id = 1")["Items"]
    check(got == [{"id": {"N": "1"}, "n": {"N": "11"}}], got)
    # reads: one TransactGetItems, one response per statement
    r = c.execute_transaction(TransactStatements=[
        {"Statement": "SELECT * FROM Counters WHERE id = 10"},
        {"Statement": "SELECT n FROM Counters WHERE id = 99"},
    ], ReturnConsumedCapacity="TOTAL")
    check(r["Responses"] == [{"Item": {"id": {"N": "10"}, "n": {"N": "1"}}}, {}], r)
    check(r["ConsumedCapacity"][0]["TableName"] == "Counters", r)
    for stmts, want in (
            (["SELECT * FROM Counters WHERE n = 1"], KEYS),
            (["SELECT * FROM Counters WHERE id = 1", "DELETE FROM Counters WHERE id = 1"],
             "ExecuteTransaction API does not support both read and write operations in the same request."),
            (["SELECT * FROM \"Music\".\"ByGenre\" WHERE Genre = 'x'"],
             "Reads on indices are not supported within transactions.")):
        code, msg, _ = error_of(c.execute_transaction, TransactStatements=[{"Statement": s} for s in stmts])
        check(code == "ValidationException" and (want is None or msg == want), (stmts, code, msg))


def awscli(endpoint):
    # the AWS CLI's execute-statement, once
    aws = shutil.which("aws")
    if not aws:
        print("aws CLI not installed: its case skipped")
        return
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDPARTIQL", AWS_SECRET_ACCESS_KEY="partiql-secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="")
    out = subprocess.run([aws, "dynamodb", "execute-statement", "--endpoint-url", endpoint, "--output", "json",
                          "--statement", "SELECT SongTitle FROM Music WHERE Artist = ?",
                          "--parameters", '[{"S": "Zed"}]'],
                         env=env, capture_output=True, text=True, timeout=120)
    check(out.returncode == 0, out.stderr)
    check(json.loads(out.stdout)["Items"] == [{"SongTitle": {"S": "Alpha"}}], out.stdout)


def main():
    with Server(DDB, WORK) as s:
        c, raw = client(s.endpoint), client(s.endpoint, validate=False)
        setup(c)
        insert_and_types(c)
        select(c)
        paging(c)
        update_delete(c)
        errors(c, raw)
        batch(c)
        transactions(c)
        awscli(s.endpoint)
        rc = s.stop()
    check(rc == 0, "server exit status %s" % rc)
    print("ok")


if __name__ == "__main__":
    main()
