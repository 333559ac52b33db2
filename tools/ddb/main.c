/* ddb — browse and change a ddb database from the command line.
 *
 *   ddb [--db URI] [-o json|table] [--now SECONDS] [--model FILE] [--verbose] COMMAND [ARGS] */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define KEY_OPTS                                                                                                      \
    {"pk", 0, 1, false, "VALUE", "partition key value (typed by the table's key schema; B as base64)"},               \
        {"sk", 0, 1, false, "VALUE", "sort key value"},                                                               \
        {"key", 0, 1, false, "JSON", "the key as DynamoDB JSON, e.g. '{\"PK\":{\"S\":\"a\"}}'"}
#define EXPR_OPTS                                                                                                     \
    {"values", 0, 1, false, "JSON", "ExpressionAttributeValues as DynamoDB JSON, e.g. '{\":v\":{\"N\":\"1\"}}'"},     \
        {"names", 0, 1, false, "JSON", "ExpressionAttributeNames, e.g. '{\"#n\":\"name\"}'"}

static const opt_spec no_opts[] = {{NULL, 0, 0, false, NULL, NULL}};

static const opt_spec describe_opts[] = {{NULL, 0, 0, false, NULL, NULL}};

static const opt_spec create_opts[] = {
    {"pk", 0, 1, false, "NAME:TYPE", "partition key attribute and type (S, N or B)"},
    {"sk", 0, 1, false, "NAME:TYPE", "sort key attribute and type"},
    {"gsi", 0, 1, true, "NAME:PK:TYPE[:SK:TYPE]", "a global secondary index (projection ALL)"},
    {"lsi", 0, 1, true, "NAME:SK:TYPE", "a local secondary index (projection ALL)"},
    {"stream", 0, 1, false, "VIEW", "KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES"},
    {"ttl", 0, 1, false, "ATTR", "the TTL attribute (epoch seconds)"},
    {"rcu", 0, 1, false, "N", "provisioned read capacity (default: on demand)"},
    {"wcu", 0, 1, false, "N", "provisioned write capacity"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec update_opts[] = {
    {"stream", 0, 1, false, "VIEW", "enable or switch the stream (KEYS_ONLY ... NEW_AND_OLD_IMAGES), or NONE"},
    {"retention-hours", 0, 1, false, "H", "keep stream records H hours (default 24)"},
    {"retention-bytes", 0, 1, false, "N", "keep at most N bytes of stream records"},
    {"ttl", 0, 1, false, "ATTR", "enable TTL on ATTR"},
    {"no-ttl", 0, 0, false, NULL, "disable TTL"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec get_opts[] = {
    KEY_OPTS,
    {"consistent", 0, 0, false, NULL, "strongly consistent read"},
    {"projection", 0, 1, false, "EXPR", "ProjectionExpression"},
    {"names", 0, 1, false, "JSON", "ExpressionAttributeNames, e.g. '{\"#n\":\"name\"}'"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec put_opts[] = {
    {"condition", 0, 1, false, "EXPR", "ConditionExpression every item must meet"},
    EXPR_OPTS,
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec item_update_opts[] = {
    KEY_OPTS,
    {"update", 0, 1, false, "EXPR", "UpdateExpression, e.g. 'SET #n = :n REMOVE old'"},
    {"condition", 0, 1, false, "EXPR", "ConditionExpression"},
    EXPR_OPTS,
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec delete_opts[] = {
    KEY_OPTS,
    {"condition", 0, 1, false, "EXPR", "ConditionExpression"},
    EXPR_OPTS,
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec query_opts[] = {
    {"pk", 0, 1, false, "VALUE", "partition key value (of the index with --index)"},
    {"sk-eq", 0, 1, false, "VALUE", "sort key = VALUE"},
    {"sk-lt", 0, 1, false, "VALUE", "sort key < VALUE"},
    {"sk-le", 0, 1, false, "VALUE", "sort key <= VALUE"},
    {"sk-gt", 0, 1, false, "VALUE", "sort key > VALUE"},
    {"sk-ge", 0, 1, false, "VALUE", "sort key >= VALUE"},
    {"sk-begins", 0, 1, false, "PREFIX", "begins_with(sort key, PREFIX)"},
    {"sk-between", 0, 2, false, "V", "sort key BETWEEN the two values"},
    {"index", 0, 1, false, "NAME", "query a secondary index"},
    {"key-condition", 0, 1, false, "EXPR", "KeyConditionExpression (instead of --pk and --sk-*; the form for an index "
                                           "with a multi-attribute key)"},
    {"filter", 0, 1, false, "EXPR", "FilterExpression"},
    {"projection", 0, 1, false, "EXPR", "ProjectionExpression"},
    EXPR_OPTS,
    {"limit", 0, 1, false, "N", "print at most N items"},
    {"desc", 0, 0, false, NULL, "descending sort key order"},
    {"consistent", 0, 0, false, NULL, "strongly consistent read"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec scan_opts[] = {
    {"index", 0, 1, false, "NAME", "scan a secondary index"},
    {"filter", 0, 1, false, "EXPR", "FilterExpression"},
    {"projection", 0, 1, false, "EXPR", "ProjectionExpression"},
    EXPR_OPTS,
    {"limit", 0, 1, false, "N", "print at most N items"},
    {"segment", 0, 2, false, "N", "parallel scan: segment I of TOTAL (--segment I TOTAL)"},
    {"consistent", 0, 0, false, NULL, "strongly consistent read"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec serve_opts[] = {
    {"listen", 0, 1, false, "HOST:PORT", "address to listen on (default 127.0.0.1:8000; port 0 picks a free one)"},
    {"auth", 0, 1, false, "FILE", "verify SigV4 signatures against the access keys in FILE"},
    {"insecure", 0, 0, false, NULL, "allow a non-loopback address without --auth"},
    {"sync", 0, 1, false, "MODE", "durability: full (default), lazy or none"},
    {"log-level", 0, 1, false, "LEVEL", "none, error, warn, info (default: a line per request), debug (and bodies)"},
    {"port-file", 0, 1, false, "FILE", "write the bound port to FILE once listening"},
    {"threads", 0, 1, false, "N", "worker threads (default 4)"},
    {"max-connections", 0, 1, false, "N", "open connections at most (default 1024)"},
    {"max-per-address", 0, 1, false, "N", "open connections from one client address at most (default 0: no limit)"},
    {"timeout", 0, 1, false, "SECONDS", "close idle connections after; the next request is due within (default 60)"},
    {"request-timeout", 0, 1, false, "SECONDS", "a request's headers and body are due within (default 30)"},
    {"response-timeout", 0, 1, false, "SECONDS", "an answer must be computed and read within (default 60)"},
    {"tls-cert", 0, 1, false, "FILE", "serve HTTPS with this certificate (PEM; with --tls-key)"},
    {"tls-key", 0, 1, false, "FILE", "the certificate's private key (PEM)"},
    {"sweep-ms", 0, 1, false, "MS", "TTL sweep and stream trim interval (default 1000; 0 = off)"},
    {"ttl-hide-expired", 0, 0, false, NULL, "reads hide expired items at once (default: until the sweep deletes them)"},
    {"body-memory", 0, 1, false, "MB", "request bodies (and their decoding) held in memory at once, at most (default 512)"},
    {"region", 0, 1, false, "REGION", "region named in ARNs (default us-east-1)"},
    {"no-verify", 0, 0, false, NULL, "serve without checking the database first (ddb check's checks, read once)"},
    {"unprocessed", 0, 1, false, "FRACTION", "tests: leave each request of a batch unprocessed with this probability"},
    {"fault-seed", 0, 1, false, "N", "tests: the seed of --unprocessed's draws (default 1)"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec export_opts[] = {{NULL, 0, 0, false, NULL, NULL}};

static const opt_spec import_opts[] = {
    {"create", 0, 1, false, "PK:TYPE[,SK:TYPE]", "create the table with this key schema if it does not exist"},
    {"resume", 0, 1, false, "LINE", "skip the lines before LINE (imported by an earlier run that stopped there)"},
    {"atomic", 0, 0, false, NULL, "all or nothing: a failure rolls back what was written (FILE only)"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec stats_opts[] = {
    {"top", 0, 1, false, "N", "how many partition keys to list (default 10)"},
    {"svg", 0, 1, false, "FILE", "draw the partitions' heat into an SVG picture"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec stream_opts[] = {
    {"from", 0, 1, false, "POSITION", "trim_horizon (default), latest, at:SEQ or after:SEQ"},
    {"checkpoint", 0, 1, false, "FILE",
     "resume after the position in FILE (a sequence number; per shard on a remote table); write it after each batch"},
    {"follow", 'f', 0, false, NULL, "keep waiting for new records (until interrupted)"},
    {"interval", 0, 1, false, "MS", "poll interval with --follow (default 500)"},
    {"limit", 0, 1, false, "N", "stop after N records"},
    {"opensearch-bulk", 0, 0, false, NULL, "print OpenSearch bulk API NDJSON (ids <pk>#<sk>)"},
    {"index", 0, 1, false, "NAME", "the OpenSearch index (default: the table name in lower case)"},
    {NULL, 0, 0, false, NULL, NULL}};

static const opt_spec migrate_opts[] = {
    {"module", 0, 1, false, "LIB.so", "the new schema's generated module (and the plan's transforms), linked with libddb.so"},
    {"dry-run", 'n', 0, false, NULL, "read and count only: what would change, with samples; nothing is written"},
    {"capacity", 0, 1, false, "CU", "hold the rate under CU capacity units (reads and writes) per second"},
    {"samples", 0, 1, false, "N", "with --dry-run: how many changed keys to show (default 5)"},
    {"page-size", 0, 1, false, "N", "items scanned per page, one checkpoint a page (default 200)"},
    {"keep-indexes", 0, 0, false, NULL, "leave the indexes the plan drops in place"},
    {NULL, 0, 0, false, NULL, NULL}};

const command ddb_commands[] = {
    {"tables", cmd_tables, "", "List the tables", "", no_opts, 0, 0, true},
    {"describe", cmd_describe, "TABLE", "Show a table's key schema, indexes, stream, TTL and size",
     "With -o json: DynamoDB's DescribeTable shape.\n", describe_opts, 1, 1, true},
    {"create-table", cmd_create_table, "TABLE", "Create a table",
     "Types are S, N or B.  Example:\n"
     "  ddb create-table Shop --pk PK:S --sk SK:S --gsi GSI1:GSI1PK:S:GSI1SK:S --stream NEW_AND_OLD_IMAGES\n",
     create_opts, 1, 1, false},
    {"delete-table", cmd_delete_table, "TABLE", "Delete a table with its items, indexes and stream", "", no_opts, 1,
     1, false},
    {"update-table", cmd_update_table, "TABLE", "Switch a table's stream or TTL attribute",
     "Stream records already written stay readable until retention trims them.\n", update_opts, 1, 1, false},
    {"get", cmd_get, "TABLE", "Read one item by its key",
     "Prints the item as DynamoDB JSON (or a table with -o table); exit status 1\n"
     "when there is no such item.\n",
     get_opts, 1, 1, true},
    {"put", cmd_put, "TABLE [ITEM | -]", "Write items given as DynamoDB JSON",
     "ITEM is one item as DynamoDB JSON; without it (or with -) items are read\n"
     "from standard input, one per line.  An item replaces the one with its key.\n",
     put_opts, 1, 2, false},
    {"update", cmd_update, "TABLE", "Change one item by its key with an UpdateExpression",
     "Prints the item as it is after the update (DynamoDB JSON).  Fixes a stored item\n"
     "without its module (a duplicate a migration stopped at, say).\n"
     "Example:\n"
     "  ddb update Club --pk GUEST#g7 --sk GUEST --update 'SET #n = :n' --names '{\"#n\":\"nick\"}' \\\n"
     "      --values '{\":n\":{\"S\":\"nick7\"}}'\n",
     item_update_opts, 1, 1, false},
    {"delete", cmd_delete, "TABLE", "Delete one item by its key", "", delete_opts, 1, 1, false},
    {"query", cmd_query, "TABLE", "Read one item collection of the table or of an index",
     "Reads every page; the sort key condition is at most one of the --sk-* options.\n"
     "Example:\n"
     "  ddb query Shop --pk ORG#acme --sk-begins USER# --filter 'logins > :n' --values '{\":n\":{\"N\":\"3\"}}'\n",
     query_opts, 1, 1, true},
    {"scan", cmd_scan, "TABLE", "Read a whole table or index in partition-hash order", "", scan_opts, 1, 1, true},
    {"export", cmd_export, "TABLE [FILE]", "Write every item in DynamoDB's JSON-lines export format",
     "One {\"Item\": {...}} per line, as DynamoDB's export to S3 writes them (to\n"
     "standard output without FILE).  Shows progress when standard error is a terminal.\n",
     export_opts, 1, 2, true},
    {"import", cmd_import, "TABLE [FILE | -]", "Load items in DynamoDB's JSON-lines export format",
     "Reads {\"Item\": {...}} lines (gzip-compressed files too, as DynamoDB exports\n"
     "them; blank lines are skipped) and writes them in batches of 25.  Shows\n"
     "progress when standard error is a terminal.\n"
     "\n"
     "Any other line is an error naming its line number, as is a write that fails\n"
     "or a damaged gzip stream; the import stops there with exit status 1 and says\n"
     "which lines were imported: every item before the line at fault, none from it\n"
     "on.  Fix that line and run again with --resume LINE to continue.\n"
     "\n"
     "With --atomic (FILE only), nothing is imported unless everything is: every\n"
     "line is read and converted to an item before the first write, then items are\n"
     "written in transactions of at most 100 items and 4 MB, saving the version\n"
     "each one replaces in a temporary undo log; when a transaction fails, those\n"
     "before it are undone newest first (replaced items put back, new ones\n"
     "deleted).  Readers may see the import while it runs, nothing else should\n"
     "write its items meanwhile, and a table's stream records the writes and their\n"
     "undoing.\n",
     import_opts, 1, 2, false},
    {"stats", cmd_stats, "TABLE", "Partitions, hottest keys, item collection and index sizes",
     "Per partition: its hash range, items, bytes, the capacity consumed since the\n"
     "table was created (recorded by every writable handle when it closes) and the\n"
     "writes in the retained stream.  Then the largest item collections, the most\n"
     "written partition keys (from the stream) and the index sizes.\n",
     stats_opts, 1, 1, true},
    {"stream", cmd_stream, "TABLE", "Read a table's change stream as JSON lines",
     "Records in DynamoDB Streams' shape, one per line.  A consumer that keeps a\n"
     "--checkpoint file resumes where it stopped: records are printed before the\n"
     "checkpoint moves past them (none is lost; after a crash, those printed since\n"
     "the last checkpoint are printed again).\n",
     stream_opts, 1, 1, true},
    {"sweep", cmd_sweep, "[TABLE]", "Delete expired items (TTL) now",
     "Each deletion is a REMOVE stream record made by the service.\n", no_opts, 0, 1, false},
    {"serve", cmd_serve, "", "Serve the database over DynamoDB's HTTP API, for every AWS SDK",
     "An HTTP/1.1 server speaking DynamoDB's JSON protocol (DynamoDB_20120810 and\n"
     "DynamoDBStreams_20120810) over the embedded engine in --db DIR; the same\n"
     "directory stays usable by other processes meanwhile.  Listens on loopback\n"
     "unless told otherwise: another address needs --auth FILE (lines of\n"
     "\"ACCESS_KEY_ID SECRET_ACCESS_KEY\") or --insecure.  Prints the address it\n"
     "listens on; SIGTERM or SIGINT stop it cleanly.  docs/SERVER.md lists the\n"
     "operations and every difference from DynamoDB.\n"
     "Example:\n"
     "  ddb --db ./data serve --listen 127.0.0.1:8000 &\n"
     "  aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000\n",
     serve_opts, 0, 0, false},
    {"migrate", cmd_migrate, "PLAN.json | status TABLE",
     "Apply a migration plan (ddbgen --plan-migration) to the stored items, or show a table's migrations",
     "Rewrites every stored item the plan names in the new schema's form, each\n"
     "moved in one transaction, with a checkpoint stored with the table after each\n"
     "page: run the same command again after an interruption and it resumes.\n"
     "While it runs, the new module's <table>_open refuses the table (DDB_EMODEL,\n"
     "a migration is in progress).  The new schema's generated module is loaded\n"
     "from --module (a shared library built from <schema>_ddb.c and, for entities\n"
     "the plan marks \"transform\", your <entity>_transform functions, linked with\n"
     "libddb.so).  Progress: a bar on a terminal, lines every 5 seconds otherwise.\n"
     "Example:\n"
     "  ddbgen --plan-migration deployed.model.json --plan-out plan.json schemas/app.h\n"
     "  ddb --db ./data migrate --module ./libapp_module.so --dry-run plan.json\n"
     "  ddb --db ./data migrate --module ./libapp_module.so --capacity 500 plan.json\n"
     "`ddb migrate status TABLE` shows the migration in progress (plan, step, counts),\n"
     "the model version the data is in and the last applied plans.\n",
     migrate_opts, 1, 2, false},
    {"check", cmd_check, "[DIR]", "Verify every table's indexes and stream",
     "Exit status 0 when every table is clean, 1 when problems were found, 2 when\n"
     "the check could not run.\n",
     no_opts, 0, 1, true},
};
const size_t ddb_n_commands = sizeof ddb_commands / sizeof *ddb_commands;

static void usage(FILE *f)
{
    fprintf(f, "usage: ddb [--db URI] [-o json|table] [--now SECONDS] [--verbose] COMMAND [ARGS]\n\n"
               "Browse and change a ddb database: the embedded engine in a directory\n"
               "(file:DIR or DIR), or DynamoDB and compatible engines (http://HOST:PORT,\n"
               "https://HOST, dynamodb://REGION) for the table and item commands.\n"
               "The read commands (tables, describe, get, query, scan, export, stats,\n"
               "stream, check) open a directory read-only (as file:DIR?mode=ro does):\n"
               "they change nothing in it, and need no permission to write it.\n"
               "--verbose prints each request to a remote endpoint on stderr (operation,\n"
               "table, HTTP status, attempts, throttles, latency, consumed capacity).\n\nCommands:\n");
    for (size_t i = 0; i < ddb_n_commands; i++)
        fprintf(f, "  %-13s %s\n", ddb_commands[i].name, ddb_commands[i].summary);
    fprintf(f, "\nWith --model FILE (the schema's model, ddbgen --emit-model; or $DDB_MODEL), by\n"
               "entity and field names, items as plain JSON:\n");
    for (size_t i = 0; i < ddb_n_model_commands; i++)
        fprintf(f, "  %-13s %s\n", ddb_model_commands[i].name, ddb_model_commands[i].summary);
    fprintf(f, "\nRun 'ddb COMMAND --help' for a command's options.\n"
               "Exit status: 0 success, 1 failure (an error, no such item, problems found),\n"
               "2 usage error.\n");
}

int main(int argc, char **argv)
{
    cli c;
    memset(&c, 0, sizeof c);
    c.prog = "ddb";
    c.uri = getenv("DDB_URI");
    c.model = getenv("DDB_MODEL") && *getenv("DDB_MODEL") ? getenv("DDB_MODEL") : NULL;
    /* global options before the command */
    int i = 1;
    const char *db = NULL, *out = NULL, *now = NULL, *model = NULL;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
            c.verbose = true;
        else if (strcmp(a, "--db") == 0)
            dst = &db;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            dst = &out;
        else if (strcmp(a, "--now") == 0)
            dst = &now;
        else if (strcmp(a, "--model") == 0)
            dst = &model;
        else if (strncmp(a, "--model=", 8) == 0)
            model = a + 8;
        else if (strncmp(a, "--db=", 5) == 0)
            db = a + 5;
        else if (strncmp(a, "--output=", 9) == 0)
            out = a + 9;
        else if (strncmp(a, "--now=", 6) == 0)
            now = a + 6;
        else
            return usage_error(&c, "unknown option %s", a);
        if (dst) {
            if (i + 1 >= argc)
                return usage_error(&c, "option %s needs a value", a);
            *dst = argv[++i];
        }
    }
    if (i >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (model)
        c.model = model;
    /* --model given after the command also counts */
    for (int k = i + 1; k + 1 < argc && !model; k++)
        if (strcmp(argv[k], "--model") == 0)
            c.model = argv[k + 1];
    for (size_t k = 0; k < ddb_n_commands; k++)
        if (strcmp(argv[i], ddb_commands[k].name) == 0)
            c.cmd = &ddb_commands[k];
    for (size_t k = 0; k < ddb_n_model_commands; k++)
        if (strcmp(argv[i], ddb_model_commands[k].name) == 0 && (c.model || !c.cmd))
            c.cmd = &ddb_model_commands[k];
    if (!c.cmd)
        return usage_error(&c, "unknown command '%s'", argv[i]);
    if (!c.model && c.cmd >= ddb_model_commands && c.cmd < ddb_model_commands + ddb_n_model_commands)
        return usage_error(&c, "%s needs the schema's model: --model FILE (ddbgen --emit-model) or $DDB_MODEL",
                           argv[i]);
    int rc = opts_parse(&c, c.cmd, argc - i - 1, argv + i + 1);
    if (rc)
        return rc == 1 ? 0 : rc;
    /* the same options after the command win */
    if (opt_get(&c, "db"))
        db = opt_get(&c, "db");
    if (opt_get(&c, "output"))
        out = opt_get(&c, "output");
    if (opt_get(&c, "now"))
        now = opt_get(&c, "now");
    if (opt_get(&c, "model"))
        c.model = opt_get(&c, "model");
    if (db)
        c.uri = db;
    if (out) {
        if (strcmp(out, "json") == 0)
            c.format = FMT_JSON;
        else if (strcmp(out, "table") == 0)
            c.format = FMT_TABLE;
        else
            return usage_error(&c, "--output is json or table, not '%s'", out);
    }
    if (now) {
        char *end;
        double s = strtod(now, &end);
        if (*end || end == now || s < 0 || s > 9e15)
            return usage_error(&c, "--now takes epoch seconds, not '%s'", now);
        c.have_now = true;
        c.now_ms = (int64_t)(s * 1000.0);
    }
    rc = c.cmd->run(&c);
    ddb_close(c.db);
    return rc;
}
