/* The remote-endpoint benchmarks' workload (see remote_work.h): the table,
 * its load, the timed operations and dynalite's start.  Calls the public
 * API of <ddb/ddb.h> and bx.h only. */
#include "remote_work.h"

#include "bx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DATA_LEN 150

const char *const rw_op_names[RW_N_OPS] = {"put", "get", "query (100 items)"};

typedef struct tctx {
    rw_side *s;
    ddb_arena *a;
    ddb_error err;
} tctx;

int rw_fail(const char *what, int rc, const ddb_error *err)
{
    fprintf(stderr, "%s: %s (%s)\n", what, ddb_strerror(rc), err ? err->message : "");
    return -1;
}

static ddb_item *make_item(ddb_arena *a, uint32_t i, uint64_t version)
{
    char pk[16], sk[16];
    uint8_t data[DATA_LEN];
    snprintf(pk, sizeof pk, "user#%08u", i / RW_PER_PART);
    snprintf(sk, sizeof sk, "order#%04u", i % RW_PER_PART);
    for (int k = 0; k < DATA_LEN; k++)
        data[k] = (uint8_t)(i * 13 + version * 7 + (uint64_t)k);
    ddb_item *it = ddb_item_new(a);
    if (!it || ddb_item_set_s(it, "pk", pk) || ddb_item_set_s(it, "sk", sk) ||
        ddb_item_set_i64(it, "version", (int64_t)version) || ddb_item_set_b(it, "data", data, DATA_LEN))
        return NULL;
    return it;
}

int rw_load(ddb *db)
{
    ddb_error err = {0};
    ddb_table_def def = {.name = RW_TABLE, .key = {.pk = "pk", .pk_type = DDB_TS, .sk = "sk", .sk_type = DDB_TS}};
    int rc = ddb_create_table(db, &def, &err);
    if (rc)
        return rw_fail("create table", rc, &err);
    ddb_arena *a = ddb_arena_new();
    for (uint32_t base = 0; !rc && base < RW_ITEMS; base += 25) {
        ddb_arena_reset(a);
        ddb_batch_write_op ops[25];
        size_t n = 0;
        for (uint32_t i = base; i < base + 25 && i < RW_ITEMS; i++)
            ops[n++] = (ddb_batch_write_op){.table = RW_TABLE, .put = make_item(a, i, 0)};
        rc = ddb_batch_write(db, ops, n, DDB_CAPACITY_NONE, NULL, &err);
    }
    ddb_arena_free(a);
    return rc ? rw_fail("load", rc, &err) : 0;
}

void *rw_thread_open(void *side, int id)
{
    (void)id;
    tctx *t = calloc(1, sizeof *t);
    if (!t || !(t->a = ddb_arena_new())) {
        free(t);
        return NULL;
    }
    t->s = side;
    return t;
}

void rw_thread_close(void *vt)
{
    tctx *t = vt;
    ddb_arena_free(t->a);
    free(t);
}

static int op_put(void *vt, uint64_t *rng)
{
    tctx *t = vt;
    ddb_arena_reset(t->a);
    ddb_item *it = make_item(t->a, (uint32_t)(bx_rand(rng) % RW_ITEMS),
                             __atomic_add_fetch(&t->s->version, 1, __ATOMIC_RELAXED));
    if (!it)
        return rw_fail("put: item", DDB_ENOMEM, NULL);
    int rc = ddb_put_item(t->s->db, RW_TABLE, it, NULL, NULL, NULL, &t->err);
    return rc ? rw_fail("put", rc, &t->err) : 0;
}

static int op_get(void *vt, uint64_t *rng)
{
    tctx *t = vt;
    ddb_arena_reset(t->a);
    uint32_t i = (uint32_t)(bx_rand(rng) % RW_ITEMS);
    char pk[16], sk[16];
    snprintf(pk, sizeof pk, "user#%08u", i / RW_PER_PART);
    snprintf(sk, sizeof sk, "order#%04u", i % RW_PER_PART);
    ddb_item *key = ddb_item_new(t->a), *out;
    if (!key || ddb_item_set_s(key, "pk", pk) || ddb_item_set_s(key, "sk", sk))
        return rw_fail("get: key", DDB_ENOMEM, NULL);
    int rc = ddb_get_item(t->s->db, RW_TABLE, key, NULL, t->a, &out, NULL, &t->err);
    if (rc)
        return rw_fail("get", rc, &t->err);
    const ddb_value *d = ddb_item_get(out, "data");
    return d && d->len == DATA_LEN ? 0 : rw_fail("get: no data", DDB_ECORRUPT, NULL);
}

static int op_query(void *vt, uint64_t *rng)
{
    tctx *t = vt;
    ddb_arena_reset(t->a);
    char pk[16];
    snprintf(pk, sizeof pk, "user#%08u", (uint32_t)(bx_rand(rng) % RW_PARTS));
    ddb_query_params q = {.table = RW_TABLE, .pk = ddb_v_str(t->a, pk)};
    ddb_page pg;
    int rc = ddb_query(t->s->db, &q, t->a, &pg, &t->err);
    if (rc)
        return rw_fail("query", rc, &t->err);
    if (pg.count != RW_PER_PART || pg.last_key) {
        fprintf(stderr, "query: %zu items%s, expected %u in one page\n", pg.count, pg.last_key ? " and more" : "",
                RW_PER_PART);
        return -1;
    }
    return 0;
}

int (*const rw_op_fns[RW_N_OPS])(void *, uint64_t *) = {op_put, op_get, op_query};

int rw_start_dynalite(const char *script, const char *dir, char *uri, size_t cap, long *pid)
{
    char cmd[2048], out[1024] = "";
    snprintf(cmd, sizeof cmd, "sh '%s' start '%s' %d", script, dir, (int)getpid());
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(stderr, "cannot run %s\n", script);
        return -1;
    }
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        out[strcspn(out, "\n")] = '\0';
        printf("dynalite cannot run here: %s\nNothing to compare: install Node.js and npm "
               "(apt-get install nodejs npm) or pass --uri of a running DynamoDB-compatible endpoint.\n",
               strncmp(out, "SKIP: ", 6) == 0 ? out + 6 : out);
        return 77;
    }
    int port;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(out, "%d %ld", &port, pid) != 2) {
        fprintf(stderr, "%s start failed (status %d): %s\n", script, st, out);
        return -1;
    }
    snprintf(uri, cap, "http://127.0.0.1:%d", port);
    return 0;
}
