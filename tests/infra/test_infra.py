#!/usr/bin/env python3
"""ddbgen --emit-infra, checked with the real tools' parsers and by creating
the tables: for the six seed schemas and tests/infra/infra_schema.h (which
states a stream, provisioned throughput, deletion protection, TTL, INCLUDE
and KEYS_ONLY GSIs, an LSI, a numeric key and names that need escaping):

1. cloudformation: every resource and property is checked against AWS's
   CloudFormation resource specification (the npm package @aws-cdk/cfnspec,
   AWS::DynamoDB::Table): names, types, required properties.
2. terraform: the HCL is parsed by @cdktf/hcl2json (HashiCorp's HCL parser,
   compiled for Node) and must hold exactly the table the create-table input
   describes, in aws_dynamodb_table's argument names.
3. create-table / update-time-to-live: the AWS CLI creates each table from
   the output (`aws dynamodb create-table --cli-input-json file://...`)
   against `ddb serve`; DescribeTable must give back the definition
   (API_CreateTable, API_DescribeTable, API_UpdateTimeToLive).
   The same outputs come from the schema's model file (--emit-model).
4. Round trip: each CloudFormation resource's Properties, sent as a
   CreateTable request (boto3) (StreamSpecification gains StreamEnabled, the TTL goes
   to UpdateTimeToLive, as AWS::DynamoDB::Table's documentation maps them),
   describes the same as the create-table output's table.

usage: test_infra.py DDBGEN DDB_TOOL SOURCE_DIR WORKDIR NPM_DIR
(exit 77 = skipped: no aws CLI, node or npm)
"""
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DDBGEN, DDB, SRC, WORK, NPM = sys.argv[1:6]
sys.path.insert(0, os.path.join(SRC, "tests", "serve"))
from serve_proc import Server  # noqa: E402
import node_env  # noqa: E402

if not shutil.which("aws"):
    print("SKIP: the AWS CLI is not installed (Debian awscli)")
    sys.exit(77)
try:
    import boto3
    from botocore.config import Config
except ImportError:
    print("SKIP: boto3 is not installed (Debian python3-boto3)")
    sys.exit(77)
MODULES = node_env.install(NPM, {"@aws-cdk/cfnspec": "2.72.1", "@cdktf/hcl2json": "0.21.0"})

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def ddbgen(schema, fmt, table=None):
    cmd = [DDBGEN, "-I", os.path.join(SRC, "schemas"), "--emit-infra", fmt, schema]
    if table:
        cmd[-1:-1] = ["--infra-table", table]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("ddbgen %s failed (%d): %s" % (" ".join(cmd[1:]), p.returncode, p.stderr))
    return p.stdout


# ---- 1. CloudFormation against the resource specification ------------------

SPEC = json.load(open(os.path.join(MODULES, "@aws-cdk", "cfnspec", "spec", "specification.json")))
PRIMITIVE = {"String": str, "Boolean": bool, "Long": int, "Integer": int, "Double": (int, float), "Json": dict}


def check_value(where, value, prop, rtype):
    """value against one property specification of resource type rtype."""
    if "PrimitiveType" in prop:
        ok = isinstance(value, PRIMITIVE[prop["PrimitiveType"]]) and not (
            prop["PrimitiveType"] != "Boolean" and isinstance(value, bool))
        check(ok, "%s: %r is not a %s" % (where, value, prop["PrimitiveType"]))
    elif prop.get("Type") == "List":
        check(isinstance(value, list), "%s: not a list" % where)
        for i, item in enumerate(value if isinstance(value, list) else []):
            if "PrimitiveItemType" in prop:
                check_value("%s[%d]" % (where, i), item, {"PrimitiveType": prop["PrimitiveItemType"]}, rtype)
            else:
                check_object("%s[%d]" % (where, i), item, SPEC["PropertyTypes"]["%s.%s" % (rtype, prop["ItemType"])],
                             rtype)
    else:
        check_object(where, value, SPEC["PropertyTypes"]["%s.%s" % (rtype, prop["Type"])], rtype)


def check_object(where, obj, spec, rtype):
    check(isinstance(obj, dict), "%s: not an object" % where)
    props = spec.get("Properties", {})
    for name, value in (obj.items() if isinstance(obj, dict) else []):
        check(name in props, "%s: %s is not a property of %s" % (where, name, rtype))
        if name in props:
            check_value("%s.%s" % (where, name), value, props[name], rtype)
    for name, p in props.items():
        if p.get("Required"):
            check(isinstance(obj, dict) and name in obj, "%s: required %s is missing" % (where, name))


def check_cloudformation(name, doc):
    check(doc.get("AWSTemplateFormatVersion") == "2010-09-09", "%s: AWSTemplateFormatVersion" % name)
    for logical, res in doc["Resources"].items():
        check(logical.isalnum(), "%s: logical id %r is not alphanumeric" % (name, logical))
        rtype = res["Type"]
        check(rtype in SPEC["ResourceTypes"], "%s: unknown resource type %s" % (name, rtype))
        check_object("%s.%s" % (name, logical), res["Properties"], SPEC["ResourceTypes"][rtype], rtype)


# ---- 2. Terraform through HashiCorp's HCL parser ----------------------------

def hcl_to_json(path):
    script = ("const h=require('@cdktf/hcl2json');const fs=require('fs');"
              "h.parse(process.argv[1], fs.readFileSync(process.argv[1],'utf8'))"
              ".then(j=>process.stdout.write(JSON.stringify(j)))"
              ".catch(e=>{process.stderr.write(String(e));process.exit(1)})")
    p = subprocess.run(["node", "-e", script, path], capture_output=True, text=True,
                       env=dict(os.environ, NODE_PATH=MODULES))
    if p.returncode != 0:
        raise SystemExit("hcl2json could not parse %s: %s" % (path, p.stderr))
    return template_literals(json.loads(p.stdout))


def template_literals(v):
    """Strings as Terraform evaluates a template with no interpolation: the
    escapes "$${" and "%%{" stand for "${" and "%{" (hcl2json keeps them)."""
    if isinstance(v, str):
        return v.replace("$${", "${").replace("%%{", "%{")
    if isinstance(v, list):
        return [template_literals(x) for x in v]
    if isinstance(v, dict):
        return {k: template_literals(x) for k, x in v.items()}
    return v


def terraform_of(req, ttl):
    """The aws_dynamodb_table arguments that describe the CreateTable request req."""
    def key(ks, kt):
        return [k["AttributeName"] for k in ks if k["KeyType"] == kt]

    def index(x, gsi):
        o = {"name": x["IndexName"], "projection_type": x["Projection"]["ProjectionType"]}
        if len(key(x["KeySchema"], "HASH")) > 1 or len(key(x["KeySchema"], "RANGE")) > 1:
            # a multi-attribute key: one key_schema block per attribute, in order
            o["key_schema"] = [{"attribute_name": k["AttributeName"], "key_type": k["KeyType"]}
                               for k in x["KeySchema"]]
            return o
        if gsi:
            o["hash_key"] = key(x["KeySchema"], "HASH")[0]
        if key(x["KeySchema"], "RANGE"):
            o["range_key"] = key(x["KeySchema"], "RANGE")[0]
        if "NonKeyAttributes" in x["Projection"]:
            o["non_key_attributes"] = x["Projection"]["NonKeyAttributes"]
        if "ProvisionedThroughput" in x:
            o["read_capacity"] = x["ProvisionedThroughput"]["ReadCapacityUnits"]
            o["write_capacity"] = x["ProvisionedThroughput"]["WriteCapacityUnits"]
        return o

    t = {"name": req["TableName"], "billing_mode": req["BillingMode"],
         "hash_key": key(req["KeySchema"], "HASH")[0],
         "attribute": [{"name": a["AttributeName"], "type": a["AttributeType"]} for a in req["AttributeDefinitions"]]}
    if key(req["KeySchema"], "RANGE"):
        t["range_key"] = key(req["KeySchema"], "RANGE")[0]
    if "ProvisionedThroughput" in req:
        t["read_capacity"] = req["ProvisionedThroughput"]["ReadCapacityUnits"]
        t["write_capacity"] = req["ProvisionedThroughput"]["WriteCapacityUnits"]
    if "StreamSpecification" in req:
        t["stream_enabled"] = True
        t["stream_view_type"] = req["StreamSpecification"]["StreamViewType"]
    if req.get("DeletionProtectionEnabled"):
        t["deletion_protection_enabled"] = True
    if req.get("GlobalSecondaryIndexes"):
        t["global_secondary_index"] = [index(x, True) for x in req["GlobalSecondaryIndexes"]]
    if req.get("LocalSecondaryIndexes"):
        t["local_secondary_index"] = [index(x, False) for x in req["LocalSecondaryIndexes"]]
    if ttl:
        t["ttl"] = [{"attribute_name": ttl, "enabled": True}]
    return t


# ---- 3 and 4. Tables created from the outputs on ddb serve -------------------

ENV = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDINFRATEST", AWS_SECRET_ACCESS_KEY="infra-secret",
           AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/nonexistent/config",
           AWS_SHARED_CREDENTIALS_FILE="/nonexistent/credentials", AWS_EC2_METADATA_DISABLED="true",
           AWS_MAX_ATTEMPTS="1")


def aws(endpoint, *args):
    p = subprocess.run(["aws", "--endpoint-url", endpoint, "--output", "json", "dynamodb"] + list(args),
                       capture_output=True, text=True, env=ENV, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise SystemExit("aws dynamodb %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return json.loads(p.stdout) if p.stdout.strip() else {}


def boto(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDINFRATEST", aws_secret_access_key="infra-secret",
                        config=Config(retries={"max_attempts": 1}))


def described(endpoint, table):
    """What DescribeTable / DescribeTimeToLive say of the definition."""
    c = boto(endpoint)
    d = c.describe_table(TableName=table)["Table"]

    def idx(xs):
        out = []
        for x in xs or []:
            o = {"IndexName": x["IndexName"], "KeySchema": x["KeySchema"], "Projection": x["Projection"]}
            if "ProvisionedThroughput" in x:
                pt = x["ProvisionedThroughput"]
                o["ProvisionedThroughput"] = [pt.get("ReadCapacityUnits"), pt.get("WriteCapacityUnits")]
            out.append(o)
        return sorted(out, key=lambda o: o["IndexName"])
    ttl = c.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    pt = d.get("ProvisionedThroughput", {})
    return {"KeySchema": d["KeySchema"],
            "AttributeDefinitions": sorted(d["AttributeDefinitions"], key=lambda a: a["AttributeName"]),
            "GlobalSecondaryIndexes": idx(d.get("GlobalSecondaryIndexes")),
            "LocalSecondaryIndexes": idx(d.get("LocalSecondaryIndexes")),
            "Billing": d.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED" if pt.get(
                "ReadCapacityUnits") else "PAY_PER_REQUEST"),
            "Throughput": [pt.get("ReadCapacityUnits") or 0, pt.get("WriteCapacityUnits") or 0],
            "Stream": d.get("StreamSpecification"),
            "DeletionProtection": d.get("DeletionProtectionEnabled", False),
            "TTL": [ttl.get("TimeToLiveStatus"), ttl.get("AttributeName")]}


def expected_description(req, ttl):
    def idx(xs, gsi):
        out = []
        for x in xs or []:
            o = {"IndexName": x["IndexName"], "KeySchema": x["KeySchema"], "Projection": x["Projection"]}
            if gsi and "ProvisionedThroughput" in req:
                o["ProvisionedThroughput"] = [x["ProvisionedThroughput"]["ReadCapacityUnits"],
                                              x["ProvisionedThroughput"]["WriteCapacityUnits"]]
            out.append(o)
        return sorted(out, key=lambda o: o["IndexName"])
    pt = req.get("ProvisionedThroughput", {})
    return {"KeySchema": req["KeySchema"],
            "AttributeDefinitions": sorted(req["AttributeDefinitions"], key=lambda a: a["AttributeName"]),
            "GlobalSecondaryIndexes": idx(req.get("GlobalSecondaryIndexes"), True),
            "LocalSecondaryIndexes": idx(req.get("LocalSecondaryIndexes"), False),
            "Billing": req["BillingMode"],
            "Throughput": [pt.get("ReadCapacityUnits", 0), pt.get("WriteCapacityUnits", 0)],
            "Stream": req.get("StreamSpecification"),
            "DeletionProtection": req.get("DeletionProtectionEnabled", False),
            "TTL": ["ENABLED", ttl] if ttl else ["DISABLED", None]}


def normalise_gsi_throughput(desc):
    """ddb serve may describe an on-demand GSI with 0/0 throughput, as DynamoDB does."""
    for x in desc["GlobalSecondaryIndexes"]:
        if x.get("ProvisionedThroughput") == [0, 0]:
            del x["ProvisionedThroughput"]
    return desc


def usage_errors():
    """Choices a format cannot express are usage errors (exit 2) that say what to do."""
    schema = os.path.join(HERE, "infra_schema.h")
    cases = [(["--emit-infra", "yaml"], "unknown format 'yaml'; use cloudformation, terraform, create-table or"),
             (["--emit-infra", "create-table"], "takes one table and the schema has several: add --infra-table"),
             (["--emit-infra", "terraform", "--infra-table", "Nope"],
              "the schema has no table 'Nope' (it has 'Events', 'Audit.log-2')"),
             (["--emit-infra", "update-time-to-live", "--infra-table", "audit"], "needs a table with a DDB_TTL field")]
    for args, words in cases:
        p = subprocess.run([DDBGEN] + args + [schema], capture_output=True, text=True)
        check(p.returncode == 2 and words in p.stderr and p.stdout == "",
              "ddbgen %s: exit %d, stderr %r" % (" ".join(args), p.returncode, p.stderr))


def main():
    usage_errors()
    schemas = sorted(glob.glob(os.path.join(SRC, "schemas", "*.h"))) + [os.path.join(HERE, "infra_schema.h")]
    os.makedirs(WORK, exist_ok=True)
    with Server(DDB, os.path.join(WORK, "serve")) as srv:
        for schema in schemas:
            name = os.path.basename(schema)
            cfn = json.loads(ddbgen(schema, "cloudformation"))
            # the model file (--emit-model) carries the same tables
            model = os.path.join(WORK, name + ".model.json")
            subprocess.run([DDBGEN, "-I", os.path.join(SRC, "schemas"), "--emit-model", model, schema], check=True)
            check(json.loads(ddbgen(model, "cloudformation")) == cfn, "%s: the model's CloudFormation differs" % name)
            check_cloudformation(name, cfn)
            tf_path = os.path.join(WORK, name + ".tf")
            with open(tf_path, "w") as f:
                f.write(ddbgen(schema, "terraform"))
            tf = hcl_to_json(tf_path)["resource"]["aws_dynamodb_table"]
            for logical, res in cfn["Resources"].items():
                props = res["Properties"]
                table = props["TableName"]
                req = json.loads(ddbgen(schema, "create-table", table))
                ttl = props.get("TimeToLiveSpecification", {}).get("AttributeName")
                # 2. the HCL holds this table, exactly
                tf_tables = [body[0] for body in tf.values() if body[0]["name"] == table]
                check(len(tf_tables) == 1, "%s: terraform has %d resources for %s" % (name, len(tf_tables), table))
                if tf_tables:
                    got, want = tf_tables[0], terraform_of(req, ttl)
                    check(got == want, "%s %s: terraform\n  got  %s\n  want %s" % (name, table, got, want))
                # 3. created by the AWS CLI from the create-table output
                path = os.path.join(WORK, table + ".create.json")
                with open(path, "w") as f:
                    json.dump(req, f)
                aws(srv.endpoint, "create-table", "--cli-input-json", "file://" + path)
                if ttl:
                    ttl_path = os.path.join(WORK, table + ".ttl.json")
                    with open(ttl_path, "w") as f:
                        f.write(ddbgen(schema, "update-time-to-live", table))
                    aws(srv.endpoint, "update-time-to-live", "--cli-input-json", "file://" + ttl_path)
                want = expected_description(req, ttl)
                got = normalise_gsi_throughput(described(srv.endpoint, table))
                check(got == want, "%s %s: described\n  got  %s\n  want %s" % (name, table, got, want))
                # 4. the CloudFormation resource, created as its documentation maps it
                api = {k: v for k, v in props.items() if k != "TimeToLiveSpecification"}
                api["TableName"] = table + "-cfn"
                if "StreamSpecification" in api:
                    api["StreamSpecification"] = dict(api["StreamSpecification"], StreamEnabled=True)
                boto(srv.endpoint).create_table(**api)
                if ttl:
                    boto(srv.endpoint).update_time_to_live(
                        TableName=table + "-cfn", TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl})
                cfn_got = normalise_gsi_throughput(described(srv.endpoint, table + "-cfn"))
                check(cfn_got == got, "%s %s: CloudFormation round trip\n  got  %s\n  want %s" %
                      (name, table, cfn_got, got))
            print("ok: %s (%d tables)" % (name, len(cfn["Resources"])))
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)


main()
