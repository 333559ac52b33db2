#!/usr/bin/env python3
"""`ddb serve` driven by the AWS CLI (Debian awscli): a scripted session
whose transcript (each command, its exit status, its JSON output or error
line) must equal awscli.expected.  The server runs with a fixed clock
(--now), so TTL and stream record times are the same on every run.

usage: test_awscli.py DDB_TOOL WORKDIR [--update]   (exit 77 = skipped: no aws)
Behaviours follow the DynamoDB API Reference pages named in the comments.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_proc import Server, wait_for  # noqa: E402

AWS = shutil.which("aws")
if not AWS:
    print("skipped: the AWS CLI is not installed (Debian awscli)")
    sys.exit(77)

DDB, WORK = sys.argv[1], sys.argv[2]
UPDATE = "--update" in sys.argv
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "awscli.expected")
NOW = 1700000000
SHARD = "shardId-00000000000000000001-00000001"

# Every step: a title and the aws arguments.  {arn} / {iter} are filled in.
STEPS = [
    # API_CreateTable: GSI + LSI + stream; the table is ACTIVE at once
    ("create a table with a GSI, an LSI and a stream",
     ["dynamodb", "create-table", "--table-name", "Orders",
      "--attribute-definitions", "AttributeName=pk,AttributeType=S", "AttributeName=sk,AttributeType=S",
      "AttributeName=status,AttributeType=S", "AttributeName=total,AttributeType=N",
      "--key-schema", "AttributeName=pk,KeyType=HASH", "AttributeName=sk,KeyType=RANGE",
      "--global-secondary-indexes",
      "IndexName=ByStatus,KeySchema=[{AttributeName=status,KeyType=HASH},{AttributeName=sk,KeyType=RANGE}],"
      "Projection={ProjectionType=ALL}",
      "--local-secondary-indexes",
      "IndexName=ByTotal,KeySchema=[{AttributeName=pk,KeyType=HASH},{AttributeName=total,KeyType=RANGE}],"
      "Projection={ProjectionType=KEYS_ONLY}",
      "--billing-mode", "PAY_PER_REQUEST",
      "--stream-specification", "StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES",
      "--query", "TableDescription.[TableName,TableStatus,GlobalSecondaryIndexes[].IndexName,"
                 "LocalSecondaryIndexes[].IndexName,StreamSpecification]"]),
    ("wait until it exists", ["dynamodb", "wait", "table-exists", "--table-name", "Orders"]),
    ("list the tables", ["dynamodb", "list-tables"]),
    # API_BatchWriteItem
    ("write five orders in one batch",
     ["dynamodb", "batch-write-item", "--request-items", json.dumps({"Orders": [
         {"PutRequest": {"Item": {"pk": {"S": "C#1"}, "sk": {"S": "O#%d" % i},
                                  "status": {"S": "open" if i % 2 else "shipped"}, "total": {"N": str(10 * i)}}}}
         for i in range(1, 6)]})]),
    # API_PutItem: a failed ConditionExpression is ConditionalCheckFailedException
    ("put only if absent (it exists)",
     ["dynamodb", "put-item", "--table-name", "Orders", "--item", '{"pk":{"S":"C#1"},"sk":{"S":"O#1"}}',
      "--condition-expression", "attribute_not_exists(pk)"]),
    # API_UpdateItem: condition + ReturnValues ALL_NEW
    ("update with a condition",
     ["dynamodb", "update-item", "--table-name", "Orders", "--key", '{"pk":{"S":"C#1"},"sk":{"S":"O#1"}}',
      "--update-expression", "SET #s = :new ADD notes :n", "--condition-expression", "#s = :old",
      "--expression-attribute-names", '{"#s":"status"}',
      "--expression-attribute-values", '{":new":{"S":"shipped"},":old":{"S":"open"},":n":{"SS":["gift"]}}',
      "--return-values", "ALL_NEW"]),
    ("the same update again (the condition now fails)",
     ["dynamodb", "update-item", "--table-name", "Orders", "--key", '{"pk":{"S":"C#1"},"sk":{"S":"O#1"}}',
      "--update-expression", "SET #s = :new", "--condition-expression", "#s = :old",
      "--expression-attribute-names", '{"#s":"status"}',
      "--expression-attribute-values", '{":new":{"S":"shipped"},":old":{"S":"open"}}']),
    ("get it back", ["dynamodb", "get-item", "--table-name", "Orders", "--consistent-read",
                     "--key", '{"pk":{"S":"C#1"},"sk":{"S":"O#1"}}']),
    # Query.Pagination: Limit 2 gives a LastEvaluatedKey to start the next page from
    ("first page of a query (limit 2)",
     ["dynamodb", "query", "--table-name", "Orders", "--key-condition-expression", "pk = :p",
      "--expression-attribute-values", '{":p":{"S":"C#1"}}', "--limit", "2", "--no-paginate",
      "--query", "{Keys: Items[].sk.S, Count: Count, Last: LastEvaluatedKey}"]),
    ("next page",
     ["dynamodb", "query", "--table-name", "Orders", "--key-condition-expression", "pk = :p",
      "--expression-attribute-values", '{":p":{"S":"C#1"}}', "--limit", "2", "--no-paginate",
      "--exclusive-start-key", '{"pk":{"S":"C#1"},"sk":{"S":"O#2"}}',
      "--query", "{Keys: Items[].sk.S, Count: Count, Last: LastEvaluatedKey}"]),
    ("the CLI's own paging reads every page (page size 2)",
     ["dynamodb", "query", "--table-name", "Orders", "--key-condition-expression", "pk = :p",
      "--expression-attribute-values", '{":p":{"S":"C#1"}}', "--page-size", "2", "--query", "Items[].sk.S"]),
    ("query the GSI", ["dynamodb", "query", "--table-name", "Orders", "--index-name", "ByStatus",
                       "--key-condition-expression", "#s = :s", "--expression-attribute-names", '{"#s":"status"}',
                       "--expression-attribute-values", '{":s":{"S":"open"}}', "--query", "Items[].sk.S"]),
    ("query the LSI backwards", ["dynamodb", "query", "--table-name", "Orders", "--index-name", "ByTotal",
                                 "--key-condition-expression", "pk = :p AND #t >= :t", "--no-scan-index-forward",
                                 "--expression-attribute-names", '{"#t":"total"}',
                                 "--expression-attribute-values", '{":p":{"S":"C#1"},":t":{"N":"30"}}',
                                 "--query", "Items"]),
    # Expressions.ExpressionAttributeNames: a reserved word needs a #name
    ("a reserved word as a bare name", ["dynamodb", "query", "--table-name", "Orders",
                                        "--key-condition-expression", "pk = :p AND total >= :t",
                                        "--expression-attribute-values", '{":p":{"S":"C#1"},":t":{"N":"30"}}']),
    # transaction-apis: all or nothing, with cancellation reasons
    ("a transaction", ["dynamodb", "transact-write-items", "--client-request-token", "tx-1", "--transact-items",
                       json.dumps([{"Put": {"TableName": "Orders",
                                            "Item": {"pk": {"S": "C#2"}, "sk": {"S": "O#1"}, "total": {"N": "5"}}}},
                                   {"Delete": {"TableName": "Orders",
                                               "Key": {"pk": {"S": "C#1"}, "sk": {"S": "O#5"}}}}])]),
    ("a cancelled transaction", ["dynamodb", "transact-write-items", "--transact-items",
                                 json.dumps([{"Put": {"TableName": "Orders",
                                                      "Item": {"pk": {"S": "C#3"}, "sk": {"S": "O#1"}}}},
                                             {"ConditionCheck": {"TableName": "Orders",
                                                                 "Key": {"pk": {"S": "C#2"}, "sk": {"S": "O#1"}},
                                                                 "ConditionExpression": "#t > :t",
                                                                 "ExpressionAttributeNames": {"#t": "total"},
                                                                 "ExpressionAttributeValues": {":t": {"N": "100"}}}}])]),
    ("read in a transaction", ["dynamodb", "transact-get-items", "--transact-items",
                               json.dumps([{"Get": {"TableName": "Orders",
                                                    "Key": {"pk": {"S": "C#2"}, "sk": {"S": "O#1"}}}},
                                           {"Get": {"TableName": "Orders",
                                                    "Key": {"pk": {"S": "C#3"}, "sk": {"S": "O#1"}}}}])]),
    # TTL.html: expired items disappear from reads at once, the sweeper deletes them
    ("enable TTL", ["dynamodb", "update-time-to-live", "--table-name", "Orders",
                    "--time-to-live-specification", "Enabled=true,AttributeName=expires"]),
    ("describe TTL", ["dynamodb", "describe-time-to-live", "--table-name", "Orders"]),
    ("an order that expired an hour ago",
     ["dynamodb", "put-item", "--table-name", "Orders",
      "--item", '{"pk":{"S":"C#9"},"sk":{"S":"O#1"},"expires":{"N":"%d"}}' % (NOW - 3600)]),
    ("it is not there", ["dynamodb", "get-item", "--table-name", "Orders", "--key", '{"pk":{"S":"C#9"},"sk":{"S":"O#1"}}']),
    # Streams: ListStreams, DescribeStream, GetShardIterator, GetRecords
    ("list the streams", ["dynamodbstreams", "list-streams"]),
    ("describe the stream", ["dynamodbstreams", "describe-stream", "--stream-arn", "{arn}"]),
    ("read the stream", ["dynamodbstreams", "get-records", "--shard-iterator", "{iter}",
                         "--query", "Records[].[eventName, dynamodb.SequenceNumber, dynamodb.Keys.pk.S, "
                                    "dynamodb.Keys.sk.S, userIdentity.Type]"]),
    ("delete the table", ["dynamodb", "delete-table", "--table-name", "Orders",
                          "--query", "TableDescription.[TableName,TableStatus]"]),
    ("describe a missing table", ["dynamodb", "describe-table", "--table-name", "Orders"]),
]


def run(endpoint, args):
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLITEST", AWS_SECRET_ACCESS_KEY="cli-secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/nonexistent/config",
               AWS_SHARED_CREDENTIALS_FILE="/nonexistent/credentials", AWS_EC2_METADATA_DISABLED="true",
               AWS_MAX_ATTEMPTS="1")
    p = subprocess.run([AWS, "--endpoint-url", endpoint, "--output", "json"] + args, capture_output=True,
                       text=True, env=env, timeout=120)
    err = [line for line in p.stderr.splitlines() if line.strip()]
    return p.returncode, p.stdout.strip(), err


def main():
    out = []
    with Server(DDB, WORK, now=NOW) as s:
        arn = None
        for title, args in STEPS:
            if "{iter}" in args:
                # the sweeper deletes the expired order in the background: read once its record is there
                def swept():
                    rc, o, _ = run(s.endpoint, ["dynamodbstreams", "get-shard-iterator", "--stream-arn", arn,
                                                "--shard-id", SHARD, "--shard-iterator-type", "TRIM_HORIZON"])
                    it = json.loads(o)["ShardIterator"]
                    rc, o, _ = run(s.endpoint, ["dynamodbstreams", "get-records", "--shard-iterator", it])
                    return any(r.get("userIdentity") for r in json.loads(o)["Records"])
                wait_for(swept, "the TTL deletion's stream record", tries=100)
                rc, o, _ = run(s.endpoint, ["dynamodbstreams", "get-shard-iterator", "--stream-arn", arn,
                                            "--shard-id", SHARD, "--shard-iterator-type", "TRIM_HORIZON"])
                args = [json.loads(o)["ShardIterator"] if a == "{iter}" else a for a in args]
            args = [arn if a == "{arn}" else a for a in args]
            rc, o, err = run(s.endpoint, args)
            out.append("== %s\n$ aws %s\nexit %d\n" % (title, " ".join(args[:2]), rc))
            if o:
                out.append(o + "\n")
            out.extend(e + "\n" for e in err)
            if title == "list the streams":
                arn = json.loads(o)["Streams"][0]["StreamArn"]
        rc = s.stop()
    out.append("== SIGTERM\nexit %d\n" % rc)
    text = "".join(out)
    if UPDATE:
        with open(EXPECTED, "w") as f:
            f.write(text)
        print("wrote", EXPECTED)
        return 0
    with open(EXPECTED) as f:
        want = f.read()
    if text != want:
        with open(os.path.join(WORK, "awscli.actual"), "w") as f:
            f.write(text)
        subprocess.run(["diff", "-u", EXPECTED, os.path.join(WORK, "awscli.actual")])
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
