/* ddb — the command-line tool over libddb's public API (internal header).
 *
 * Every command is a function taking the parsed options; the shared parts
 * (option parsing, opening the database, reading keys and values, printing
 * items) live in cli.c, opts.c and output.c.  Exit status: 0 success, 1
 * failure (an error, an item not found, problems found), 2 usage error. */
#ifndef DDB_CLI_H
#define DDB_CLI_H

#include <ddb/ddb.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <zlib.h>

#define EXIT_USAGE 2

/* ---- options (opts.c) ---- */

typedef struct opt_spec {
    const char *name;  /* long name without "--" */
    char shortc;       /* 0 = none */
    int nargs;         /* 0 flag, 1 or 2 values */
    bool repeat;       /* may be given several times */
    const char *arg;   /* placeholder in --help */
    const char *help;
} opt_spec;

#define OPTS_MAX 48
#define OPTS_VALUES 64

typedef struct opts {
    const opt_spec *spec[OPTS_MAX];      /* the command's options, then the global ones */
    size_t n_spec;
    int count[OPTS_MAX];                 /* times each option was given */
    const char *val[OPTS_MAX][OPTS_VALUES][2];
    const char *pos[32];                 /* positional arguments */
    size_t npos;
} opts;

typedef struct command command;

/* The shared state of one run. */
typedef struct cli {
    const char *prog;      /* "ddb" */
    const command *cmd;    /* the command being run */
    const char *uri;       /* --db / $DDB_URI */
    const char *model;     /* --model / $DDB_MODEL: the model-aware commands (cmd_model.c) */
    int format;            /* FMT_* */
    bool have_now;
    int64_t now_ms;        /* --now */
    bool verbose;          /* --verbose: each remote request on stderr */
    ddb *db;
    opts o;
} cli;

enum { FMT_DEFAULT = 0, FMT_JSON, FMT_TABLE };

struct command {
    const char *name;
    int (*run)(cli *c);
    const char *args;      /* "TABLE [FILE]" for usage lines */
    const char *summary;   /* one line for `ddb --help` */
    const char *details;   /* paragraphs for `ddb CMD --help` */
    const opt_spec *spec;  /* NULL-name terminated */
    int min_pos, max_pos;  /* positional arguments */
    bool reads_only;       /* opens the embedded engine read-only (ddb_options.read_only) */
};

/* Parse argv (after the command name) into c->o with spec plus the global
 * options; prints the usage error itself.  0 or EXIT_USAGE; 1 with --help
 * printed (the caller exits 0). */
int opts_parse(cli *c, const command *cmd, int argc, char **argv);
const char *opt_get(const cli *c, const char *name);
const char *opt_get2(const cli *c, const char *name); /* the second value of a 2-value option */
int opt_count(const cli *c, const char *name);
const char *opt_nth(const cli *c, const char *name, int i);
void usage_command(const command *cmd, FILE *f);
/* "ddb CMD: <message>" on stderr, then a hint; returns EXIT_USAGE. */
int usage_error(const cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- shared helpers (cli.c) ---- */

/* Open c->uri (once); 1 after printing the error. */
int cli_open(cli *c);
/* "ddb CMD: <what>: <message>" on stderr; returns 1. */
int cli_fail(const cli *c, const ddb_error *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cli_failf(const cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The bytes of file path, NUL-terminated (malloc'd; *len of them), read
 * only when it has at most max; NULL otherwise, *why saying why. */
char *cli_read_file(const char *path, size_t max, size_t *len, const char **why);
/* The JSON document in file path (what names it in messages: "the plan"),
 * read only when it is at most max bytes; NULL after an error printed. */
json_t *cli_load_json(const cli *c, const char *path, size_t max, const char *what);
/* --sync MODE (full, lazy, none) into *out, left as it is without the
 * option; a usage error (returns its status, 2) for another word. */
int cli_sync_mode(const cli *c, ddb_sync_mode *out);
/* Numbers on the command line. */
int parse_u64(const char *s, uint64_t *out);
/* A key-typed value from command-line text: S as is, N validated, B base64. */
int cli_key_value(cli *c, ddb_arena *a, const char *attr, ddb_type t, const char *text, ddb_value **out);
/* The key item of a get/delete: --key JSON, or --pk/--sk against the table's key schema. */
int cli_key_item(cli *c, ddb_arena *a, const ddb_table_desc *d, ddb_item **out);
/* --values (DynamoDB JSON) and --names (plain JSON strings) for expressions. */
int cli_values(cli *c, ddb_arena *a, ddb_item **values, ddb_item **names);
/* Prepare an expression from option name (NULL when not given). */
int cli_expr(cli *c, const char *option, ddb_expr_kind kind, const ddb_item *names, ddb_expr **out);
/* Describe the table (arena a); 1 after printing the error. */
int cli_describe(cli *c, const char *table, ddb_arena *a, ddb_table_desc **out);
/* Is stderr a terminal (progress lines)? */
bool cli_progress_tty(void);
/* Progress on a terminal ("ddb export: 1200 items"): at most 5 updates a second. */
typedef struct progress {
    bool on;
    const char *what;
    double last;
} progress;
void progress_show(progress *p, uint64_t n, bool final);

/* ---- input lines (line_reader.c) ---- */

/* No line of an export comes near this: an item is at most 400 KB. */
#define LINE_MAX_BYTES (32 << 20)

typedef struct line_reader {
    gzFile f;
    const char *src;          /* the file name, or "<stdin>" */
    char *buf;
    size_t cap, start, scan, len;
    bool eof;
    unsigned long no;         /* number of the last line returned */
    char error[600];          /* why lr_open/lr_next/lr_rewind failed */
    unsigned long error_line; /* the line at fault; 0 when the input failed after line no */
} line_reader;

/* path "-" is standard input.  0, or -1 with r->error set. */
int lr_open(line_reader *r, const char *path);
/* The next line: *line (NUL-terminated after *n bytes, which may hold NUL
 * bytes; the newline and a CR before it removed).  1 a line, 0 the end of
 * the input, -1 an error: unreadable, damaged or truncated gzip data, a
 * line over LINE_MAX_BYTES (r->error names the file and line). */
int lr_next(line_reader *r, char **line, size_t *n);
/* After a line that is not what it should be: for gzip input, read the
 * rest of the stream, since damaged data can decode to such a line before
 * zlib notices.  -1 with r->error when the stream is damaged, else 0 (the
 * reader is then at its end). */
int lr_check_rest(line_reader *r);
/* Back to the first line (not for standard input). */
int lr_rewind(line_reader *r);
void lr_close(line_reader *r);

/* ---- output (output.c) ---- */

/* A value as plain JSON (S as a string, N as a number, B as base64,
 * sets and lists as arrays, maps as objects) appended to a growing buffer. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;
void sb_add(sbuf *b, const char *s, size_t n);
void sb_str(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_json_string(sbuf *b, const char *s, size_t n);
void sb_plain_value(sbuf *b, const ddb_value *v);
/* A table cell: S as itself, the rest as plain JSON, cut at 40 characters (b is reset first). */
void sb_cell(sbuf *b, const ddb_value *v);
void sb_free(sbuf *b);

/* Items as DynamoDB JSON lines or as a table (key attributes first). */
typedef struct item_printer {
    cli *c;
    FILE *out;
    const ddb_table_desc *d;  /* key attribute order; may be NULL */
    bool table;
    /* table mode buffers rows until the end: */
    ddb_item **rows;
    size_t n, cap;
    ddb_arena *a;
} item_printer;
void printer_init(item_printer *p, cli *c, FILE *out, const ddb_table_desc *d, int default_format);
/* 0, or 1 after printing an error. */
int printer_item(item_printer *p, const ddb_item *it);
int printer_end(item_printer *p);
void printer_discard(item_printer *p); /* after an error: print nothing more */
/* One item as one line of compact DynamoDB JSON (malloc'd). */
char *item_json_line(const ddb_item *it, ddb_error *err);

/* ---- shapes of DynamoDB's API (shapes.c) ---- */

/* TableDescription: name, key schema, attribute definitions, indexes,
 * counts, billing, stream and TTL (sd may be NULL).  A new reference. */
json_t *table_shape(const ddb_table_desc *d, const ddb_stream_desc *sd);
/* "ALL", "KEYS_ONLY", "INCLUDE" (ProjectionType). */
const char *projection_name(ddb_projection p);
/* One stream record as DynamoDB Streams' Record (eventID, eventName,
 * dynamodb {Keys, NewImage, OldImage, SequenceNumber, ...}, userIdentity). */
json_t *stream_record_shape(const ddb_stream_record *r);

/* ---- commands ---- */

int cmd_tables(cli *c);
int cmd_describe(cli *c);
int cmd_create_table(cli *c);
int cmd_delete_table(cli *c);
int cmd_update_table(cli *c);
int cmd_get(cli *c);
int cmd_put(cli *c);
int cmd_delete(cli *c);
int cmd_query(cli *c);
int cmd_scan(cli *c);
int cmd_export(cli *c);
int cmd_import(cli *c);
int cmd_stats(cli *c);
int cmd_stream(cli *c);
int cmd_sweep(cli *c);
int cmd_check(cli *c);
int cmd_update(cli *c);
int cmd_migrate(cli *c);
int cmd_migrate_status(cli *c, const char *table); /* ddb migrate status TABLE (cmd_migrate_status.c) */
int cmd_migrate_model(cli *c, const char *table);  /* ddb migrate model TABLE */
int cmd_migrate_baseline(cli *c, const char *table, const char *path); /* ddb migrate baseline TABLE MODEL.json */
int cmd_serve(cli *c); /* serve/cmd_serve.c */

extern const command ddb_commands[];
extern const size_t ddb_n_commands;
/* With --model: get, query, put, create, update, delete and patterns by
 * entity and field names (cmd_model.c). */
extern const command ddb_model_commands[];
extern const size_t ddb_n_model_commands;

#endif
