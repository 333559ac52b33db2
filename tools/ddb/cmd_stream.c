/* stream: tail a table's change stream as DynamoDB Streams JSON records or
 * as OpenSearch bulk-API NDJSON (document ids <pk>#<sk>), optionally with a
 * checkpoint file so that a restarted consumer resumes where it stopped. */
#include "cli.h"

#include <ddb/json.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 100

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The checkpoint: ddb_stream_iter_checkpoint() after the last record
 * written out (a sequence number on a directory; per-shard positions on a
 * remote table).  Replaced atomically (write, fsync, rename). */
#define CKPT_MAX (1u << 20)

static int checkpoint_read(const char *path, char **text)
{
    *text = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    char *buf = malloc(CKPT_MAX + 1);
    size_t n = buf ? fread(buf, 1, CKPT_MAX + 1, f) : 0;
    fclose(f);
    if (!buf)
        return -1;
    if (n > CKPT_MAX) {
        free(buf);
        return -2;
    }
    buf[n] = '\0';
    while (n && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    *text = buf;
    return 0;
}

static int checkpoint_write(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    int rc = write(fd, text, n) == (ssize_t)n && write(fd, "\n", 1) == 1 && fsync(fd) == 0 ? 0 : -1;
    if (close(fd) != 0)
        rc = -1;
    if (!rc)
        rc = rename(tmp, path);
    return rc;
}

static int print_record(cli *c, const ddb_stream_record *r)
{
    json_t *o = stream_record_shape(r);
    if (!o)
        return cli_failf(c, "out of memory");
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return cli_failf(c, "out of memory");
    printf("%s\n", s);
    free(s);
    return 0;
}

/* A key value as document-id text: S itself, N its canonical text, B base64. */
static void id_part(sbuf *b, const ddb_value *v)
{
    if (!v)
        return;
    if (v->type == DDB_TS || v->type == DDB_TN) {
        sb_add(b, v->u.s, v->len);
    } else if (v->type == DDB_TB) {
        char *t = malloc(DDB_JSON_BASE64_LEN(v->len) + 1);
        if (t) {
            ddb_json_base64_encode(v->u.b, v->len, t);
            sb_str(b, t);
            free(t);
        }
    }
}

static int print_bulk(cli *c, const ddb_table_desc *d, const char *index, const ddb_stream_record *r)
{
    sbuf id = {0}, out = {0};
    id_part(&id, ddb_item_get(r->keys, d->def.key.pk));
    if (d->def.key.sk) {
        sb_add(&id, "#", 1);
        id_part(&id, ddb_item_get(r->keys, d->def.key.sk));
    }
    bool del = r->event == DDB_STREAM_REMOVE;
    if (!del && !r->new_image) {
        sb_free(&id);
        return cli_failf(c,
                         "record %s has no NewImage (the stream's view type is %s): --opensearch-bulk "
                         "needs NEW_IMAGE or NEW_AND_OLD_IMAGES",
                         r->sequence_number, ddb_stream_view_name(r->view));
    }
    sb_printf(&out, "{\"%s\":{\"_index\":", del ? "delete" : "index");
    sb_json_string(&out, index, strlen(index));
    sb_str(&out, ",\"_id\":");
    sb_json_string(&out, id.p ? id.p : "", id.len);
    sb_str(&out, "}}\n");
    if (!del) {
        sb_plain_value(&out, ddb_item_map(r->new_image));
        sb_add(&out, "\n", 1);
    }
    fwrite(out.p, 1, out.len, stdout);
    sb_free(&id);
    sb_free(&out);
    return 0;
}

static int trimmed_hint(cli *c, int rc, const ddb_error *e)
{
    if (e->code == DDB_ETRIMMED)
        fprintf(stderr, "ddb %s: those records are lost; --from trim_horizon starts at the oldest retained one\n",
                c->cmd->name);
    return rc;
}

static int parse_from(cli *c, const char *s, ddb_stream_position *pos, uint64_t *seq)
{
    *seq = 0;
    if (!s || strcmp(s, "trim_horizon") == 0)
        *pos = DDB_STREAM_TRIM_HORIZON;
    else if (strcmp(s, "latest") == 0)
        *pos = DDB_STREAM_LATEST;
    else if (strncmp(s, "at:", 3) == 0 && !parse_u64(s + 3, seq))
        *pos = DDB_STREAM_AT_SEQUENCE;
    else if (strncmp(s, "after:", 6) == 0 && !parse_u64(s + 6, seq))
        *pos = DDB_STREAM_AFTER_SEQUENCE;
    else
        return usage_error(c, "--from is trim_horizon, latest, at:SEQ or after:SEQ, not '%s'", s);
    return 0;
}

static int write_checkpoint(cli *c, const ddb_stream_iter *it, const char *path)
{
    char *text = malloc(CKPT_MAX);
    ddb_error e = {0};
    if (!text)
        return cli_failf(c, "out of memory");
    int rc = ddb_stream_iter_checkpoint(it, text, CKPT_MAX, &e) ? cli_fail(c, &e, NULL) : 0;
    if (!rc && checkpoint_write(path, text))
        rc = cli_failf(c, "cannot write the checkpoint %s: %s", path, strerror(errno));
    free(text);
    return rc;
}

int cmd_stream(cli *c)
{
    const char *table = c->o.pos[0], *ckpt = opt_get(c, "checkpoint");
    ddb_stream_position pos = DDB_STREAM_TRIM_HORIZON;
    uint64_t seq = 0, interval = 500, limit = 0;
    bool follow = opt_count(c, "follow") > 0, bulk = opt_count(c, "opensearch-bulk") > 0;
    if (parse_from(c, opt_get(c, "from"), &pos, &seq))
        return EXIT_USAGE;
    if (opt_get(c, "interval") && (parse_u64(opt_get(c, "interval"), &interval) || !interval))
        return usage_error(c, "--interval takes milliseconds (a positive whole number)");
    if (opt_get(c, "limit") && (parse_u64(opt_get(c, "limit"), &limit) || !limit))
        return usage_error(c, "--limit takes a positive whole number");
    if (opt_get(c, "index") && !bulk)
        return usage_error(c, "--index names the OpenSearch index: it goes with --opensearch-bulk");
    char *resume = NULL;
    if (ckpt) {
        int r = checkpoint_read(ckpt, &resume);
        if (r)
            return cli_failf(c, "checkpoint %s: %s", ckpt, r == -2 ? "longer than 1 MiB" : strerror(errno));
    }
    if (cli_open(c))
        return 1;
    ddb_arena *a = ddb_arena_new(), *da = ddb_arena_new();
    ddb_table_desc *d = NULL;
    int rc = a && da ? cli_describe(c, table, da, &d) : cli_failf(c, "out of memory");
    char index[256];
    if (!rc) {
        snprintf(index, sizeof index, "%s", opt_get(c, "index") ? opt_get(c, "index") : d->def.name);
        if (!opt_get(c, "index"))
            for (char *p = index; *p; p++)
                *p = (char)tolower((unsigned char)*p);
    }
    ddb_stream_iter *it = NULL;
    ddb_error e = {0};
    if (!rc && (resume ? ddb_stream_iter_resume(c->db, table, resume, &it, &e)
                       : ddb_stream_iter_open(c->db, table, pos, seq, &it, &e)))
        rc = trimmed_hint(c, resume && e.code == DDB_EINVAL ? cli_failf(c, "checkpoint %s: %s", ckpt, e.message)
                                                            : cli_fail(c, &e, NULL), &e);
    free(resume);
    if (!rc && follow) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    uint64_t printed = 0;
    ddb_stream_record recs[BATCH];
    while (!rc && !stop_requested) {
        size_t max = BATCH, n = 0;
        if (limit && limit - printed < max)
            max = (size_t)(limit - printed);
        ddb_arena_reset(a);
        if (ddb_stream_read(it, max, a, recs, &n, &e)) {
            rc = trimmed_hint(c, cli_fail(c, &e, NULL), &e);
            break;
        }
        for (size_t i = 0; i < n && !rc; i++)
            rc = bulk ? print_bulk(c, d, index, &recs[i]) : print_record(c, &recs[i]);
        if (rc)
            break;
        printed += n;
        /* out first, then the checkpoint: a crash in between repeats, never loses */
        if (n && fflush(stdout) != 0) {
            rc = cli_failf(c, "cannot write the output: %s", strerror(errno));
            break;
        }
        if (n && ckpt && (rc = write_checkpoint(c, it, ckpt)))
            break;
        if (limit && printed >= limit)
            break;
        if (n == 0) {
            if (!follow)
                break;
            struct timespec ts = {(time_t)(interval / 1000), (long)(interval % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_arena_free(da);
    return rc;
}
