/* migrate: apply a migration plan (ddbgen --plan-migration) to a database.
 *
 * The plan says what changes; the new schema's generated module says how
 * items look now.  The module is given as a shared library (--module
 * LIB.so: the generated <schema>_ddb.c, and the transforms the plan asks
 * for, linked with libddb.so).  Everything runs inside that library's
 * libddb: the database is opened with its ddb_open, and the plan applied
 * with the generated <table>_migrate (ddb_ent_migrate) — one copy of
 * libddb for the whole migration, whatever this tool is linked with.
 * Per entity of the plan the descriptor <entity>_entity is looked up, the
 * old form <entity>_old_entity when the module has it (ddbgen --old-model),
 * and for a "transform" entity <entity>_transform (ddb_ent_transform_fn:
 * ddbgen's adapter around the user's typed <entity>_from_old, or the
 * user's own).  An entity's "claims" (fields now DDB_UNIQUE) go into its
 * step; a dry run lists the values two stored items hold (and fails).
 * A "delete" entity (removed from the schema) is a step by name alone; a
 * renamed one's step names its old name ("renamed_from").
 *
 * Progress: a bar on a terminal (items scanned/total, moved, rewritten, capacity,
 * rate, ETA), plain lines every 5 seconds otherwise; a final report.
 * Calls the public entity API through the library, jansson and libdl. */
#include "cli.h"

#include <ddb/entity.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define PLAN_MAX_BYTES (16 << 20)
#define PLAN_MAX_ENTITIES 64

typedef int (*table_migrate_fn)(ddb *, const char *, const ddb_ent_migration_step *, size_t,
                                const ddb_ent_migrate_opts *, ddb_arena *, ddb_ent_migrate_report *, ddb_error *);

/* The library's own libddb functions. */
typedef struct lib {
    void *h;
    int (*open)(const char *, const ddb_options *, ddb **, ddb_error *);
    void (*close)(ddb *);
    ddb_arena *(*arena_new)(void);
    void (*arena_free)(ddb_arena *);
} lib;

typedef struct bar {
    bool tty;
    double t0, last;
    const char *table;
    uint64_t kill_after; /* DDB_MIGRATE_KILL_AFTER (0: none) */
} bar;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_progress(void *ctx, const ddb_ent_progress *p)
{
    bar *b = ctx;
    /* tests: DDB_MIGRATE_KILL_AFTER=N stops the run by SIGKILL at the first
     * checkpoint past N items scanned (the checkpoint is stored before the
     * progress is reported), as a crash there would */
    if (b->kill_after && p->scanned >= b->kill_after && strcmp(p->step ? p->step : "", "dry run")) {
        fprintf(stderr, "ddb migrate: DDB_MIGRATE_KILL_AFTER: killed at %" PRIu64 " items scanned\n", p->scanned);
        raise(SIGKILL);
    }
    double t = now_s(), el = t - b->t0;
    if (t - b->last < (b->tty ? 0.2 : 5.0))
        return;
    b->last = t;
    double frac = p->total ? (double)p->scanned / (double)p->total : 0;
    if (frac > 1)
        frac = 1;
    /* a resumed migration's counts go on from its checkpoint; the rate is this run's */
    double rate = el > 0 && p->scanned > p->scanned_before ? (double)(p->scanned - p->scanned_before) / el : 0;
    double eta = rate > 0 && p->total > p->scanned ? (double)(p->total - p->scanned) / rate : 0;
    uint64_t rewritten = p->done - p->moved - p->deleted;
    if (p->step && !strcmp(p->step, "check claims"))
        rewritten = 0; /* the check rewrites nothing: done counts the claims found */
    char eta_s[32];
    snprintf(eta_s, sizeof eta_s, "%d:%02d", (int)(eta / 60), (int)eta % 60);
    if (b->tty) {
        char hashes[21];
        int n = (int)(frac * 20);
        for (int i = 0; i < 20; i++)
            hashes[i] = i < n ? '#' : '.';
        hashes[20] = '\0';
        fprintf(stderr, "\rddb migrate: %s %s [%u/%u] [%s] %3d%% %" PRIu64 "/%" PRIu64 " items, %" PRIu64
                        " moved, %" PRIu64 " rewritten, %.0f CU, %.0f items/s, ETA %s ",
                b->table, p->entity, p->step_no, p->n_steps, hashes, (int)(frac * 100), p->scanned, p->total,
                p->moved, rewritten, p->capacity, rate, eta_s);
    } else {
        /* the report's words: moved (to a new key), rewritten (under its key), already in their new form */
        fprintf(stderr, "ddb migrate: %s %s step %u/%u%s%s: %" PRIu64 "/%" PRIu64 " items scanned, %" PRIu64
                        " moved, %" PRIu64 " rewritten, %" PRIu64 " already in their new form, %" PRIu64
                        " deleted, %" PRIu64 " unique values %s, %.0f CU, %.0f items/s, ETA %s\n",
                b->table, p->entity, p->step_no, p->n_steps, p->step ? " " : "", p->step ? p->step : "", p->scanned,
                p->total, p->moved, rewritten, p->skipped, p->deleted, p->claimed,
                p->step && !strcmp(p->step, "dry run") ? "to claim" : "claimed", p->capacity, rate, eta_s);
    }
    fflush(stderr);
}

static json_t *read_plan(cli *c, const char *path)
{
    json_t *plan = cli_load_json(c, path, PLAN_MAX_BYTES, "the plan");
    if (!plan)
        return NULL;
    const char *fmt = json_string_value(json_object_get(plan, "format"));
    if (!fmt || strcmp(fmt, "ddbgen-migration-plan") || json_integer_value(json_object_get(plan, "version")) != 1 ||
        !json_is_string(json_object_get(plan, "id")) || !json_is_array(json_object_get(plan, "tables"))) {
        cli_failf(c, "%s is not a migration plan of version 1 (write it with ddbgen --plan-migration)", path);
        json_decref(plan);
        return NULL;
    }
    return plan;
}

static void *sym(void *h, const char *prefix, const char *suffix)
{
    char name[300];
    snprintf(name, sizeof name, "%s%s", prefix, suffix);
    return dlsym(h, name);
}

static int load_lib(cli *c, const char *path, lib *l)
{
    memset(l, 0, sizeof *l);
    if (!(l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return cli_failf(c, "cannot load the module %s: %s", path, dlerror());
    *(void **)&l->open = dlsym(l->h, "ddb_open");
    *(void **)&l->close = dlsym(l->h, "ddb_close");
    *(void **)&l->arena_new = dlsym(l->h, "ddb_arena_new");
    *(void **)&l->arena_free = dlsym(l->h, "ddb_arena_free");
    if (!l->open || !l->close || !l->arena_new || !l->arena_free)
        return cli_failf(c, "the module %s is not linked with libddb.so (no ddb_open in it)", path);
    return 0;
}

static void print_report(const ddb_ent_migrate_report *r, const char *table, bool dry)
{
    printf("%s: %s%s%" PRIu64 " items scanned, %" PRIu64 " moved to a new key, %" PRIu64 " rewritten, %" PRIu64
           " already in their new form, %.0f capacity units%s\n",
           table, dry ? "dry run (nothing written): " : "", r->resumed ? "resumed from its checkpoint; " : "",
           r->scanned, r->moved, r->rewritten, r->unchanged, r->capacity,
           dry ? " (the reads, and the writes the run would make, estimated)" : "");
    if (r->history_note)
        fprintf(stderr, "ddb migrate: %s: note: %s\n", table, r->history_note);
    if (r->deleted)
        printf("%s: %" PRIu64 " items of removed entities %s\n", table, r->deleted, dry ? "to delete" : "deleted");
    for (size_t i = 0; i < r->n_samples; i++)
        printf("  %s\n", r->samples[i]);
    if (r->verified)
        printf("%s: %" PRIu64 " unique values claimed, each checked (every stored value has its claim)\n", table,
               r->verified);
    else if (r->claimed && dry)
        printf("%s: %" PRIu64 " unique values to claim\n", table, r->claimed);
    for (size_t i = 0; i < r->n_duplicates; i++)
        printf("  duplicate: %s\n", r->duplicates[i]);
    if (r->duplicates_found > r->n_duplicates)
        printf("  (and %" PRIu64 " more duplicates)\n", r->duplicates_found - r->n_duplicates);
}

/* An entity's "claims" (the fields now DDB_UNIQUE) into its step. */
static int plan_claims(cli *c, const char *ec, const json_t *list, const char ***out, ddb_ent_migration_step *step)
{
    size_t n = json_array_size(list);
    if (!n)
        return 0;
    if (!(*out = calloc(n, sizeof **out)))
        return cli_failf(c, "out of memory");
    for (size_t k = 0; k < n; k++)
        if (!((*out)[k] = json_string_value(json_array_get(list, k))))
            return cli_failf(c, "%s: a claim of the plan is not a field name", ec);
    step->claims = *out;
    step->n_claims = n;
    return 0;
}

/* One table of the plan. */
static int migrate_table(cli *c, const lib *l, ddb *db, const char *id, const json_t *t, const ddb_ent_migrate_opts *base)
{
    const char *cname = json_string_value(json_object_get(t, "cname"));
    const char *name = json_string_value(json_object_get(t, "table"));
    if (!cname || !name)
        return cli_failf(c, "a table of the plan has no cname or table");
    table_migrate_fn fn;
    *(void **)&fn = sym(l->h, cname, "_migrate");
    if (!fn)
        return cli_failf(c, "the module has no %s_migrate: was it generated from the plan's new schema?", cname);
    size_t i;
    json_t *x;
    bool keep = opt_count(c, "keep-indexes") > 0 || base->dry_run;
    json_array_foreach(json_object_get(t, "drop_indexes"), i, x)
        fprintf(stderr, "ddb migrate: %s: index %s is no longer declared; %s\n", name, json_string_value(x),
                keep ? "it is left in place" : "it is deleted when the migration ends");
    const json_t *ents = json_object_get(t, "entities");
    size_t n = json_array_size(ents);
    if (n > PLAN_MAX_ENTITIES)
        return cli_failf(c, "%s: %zu entities in the plan, at most %d", name, n, PLAN_MAX_ENTITIES);
    ddb_ent_migration_step steps[PLAN_MAX_ENTITIES];
    ddb_ent_rename *renames[PLAN_MAX_ENTITIES] = {0};
    const char **claims[PLAN_MAX_ENTITIES] = {0};
    int rc = 0;
    json_t *e;
    json_array_foreach(ents, i, e) {
        const char *ec = json_string_value(json_object_get(e, "cname"));
        const char *how = json_string_value(json_object_get(e, "migration"));
        memset(&steps[i], 0, sizeof steps[i]);
        if (!ec || !how) {
            rc = cli_failf(c, "%s: an entity of the plan has no cname or migration", name);
            break;
        }
        if (!strcmp(how, "delete")) { /* a removed entity: its items are deleted, by name */
            if (!(steps[i].removed = json_string_value(json_object_get(e, "entity")))) {
                rc = cli_failf(c, "%s: the plan's delete step of %s names no entity", name, ec);
                break;
            }
            continue;
        }
        steps[i].renamed_from = json_string_value(json_object_get(e, "renamed_from"));
        if (!(steps[i].entity = sym(l->h, ec, "_entity"))) {
            rc = cli_failf(c, "the module has no %s_entity", ec);
            break;
        }
        /* the old form, when the module holds ddbgen's old forms (<schema>_old.c, --old-model) */
        steps[i].old_entity = sym(l->h, ec, "_old_entity");
        if (!strcmp(how, "transform") && !(*(void **)&steps[i].transform = sym(l->h, ec, "_transform"))) {
            rc = cli_failf(c, "the plan needs a transform for %s: build the module with the old forms (ddbgen "
                              "--old-model, or ddbgen_add_module DEPLOYED_MODEL) and define %s_from_old, or define "
                              "int %s_transform(void *ctx, const ddb_item *stored, const void *old_obj, void "
                              "*new_obj, ddb_arena *a, ddb_error *err)",
                           ec, ec, ec);
            break;
        }
        const json_t *rn = json_object_get(e, "renames");
        size_t nr = json_array_size(rn);
        if (nr && !(renames[i] = calloc(nr, sizeof *renames[i]))) {
            rc = cli_failf(c, "out of memory");
            break;
        }
        for (size_t k = 0; k < nr; k++) {
            renames[i][k].from = json_string_value(json_object_get(json_array_get(rn, k), "from"));
            renames[i][k].to = json_string_value(json_object_get(json_array_get(rn, k), "to"));
            if (!renames[i][k].from || !renames[i][k].to) {
                rc = cli_failf(c, "%s: a rename of the plan lacks from or to", ec);
                break;
            }
        }
        steps[i].renames = renames[i];
        steps[i].n_renames = nr;
        if (rc || (rc = plan_claims(c, ec, json_object_get(e, "claims"), &claims[i], &steps[i])))
            break;
    }
    if (!rc) {
        const char *kill = getenv("DDB_MIGRATE_KILL_AFTER");
        bar b = {.tty = cli_progress_tty(), .t0 = now_s(), .table = name,
                 .kill_after = kill ? strtoull(kill, NULL, 10) : 0};
        ddb_ent_migrate_opts o = *base;
        o.drop_indexes = json_array_size(json_object_get(t, "drop_indexes")) > 0 && !keep;
        o.progress = on_progress;
        o.progress_ctx = &b;
        ddb_arena *a = l->arena_new();
        ddb_ent_migrate_report r;
        ddb_error err = {0};
        int mrc = a ? fn(db, id, steps, n, &o, a, &r, &err) : DDB_ENOMEM;
        if (b.tty)
            fputc('\n', stderr);
        if (mrc)
            rc = cli_failf(c, "%s: %s (%d); run it again to resume from its checkpoint", name, err.message, mrc);
        else
            print_report(&r, name, base->dry_run);
        if (!mrc && r.duplicates_found)
            rc = cli_failf(c, "%s: %" PRIu64 " values of unique fields are held by two items: change one of each "
                              "pair, then migrate",
                           name, r.duplicates_found);
        if (a)
            l->arena_free(a);
    }
    for (size_t k = 0; k < n && k < PLAN_MAX_ENTITIES; k++) {
        free(renames[k]);
        free(claims[k]);
    }
    return rc;
}

int cmd_migrate(cli *c)
{
    if (c->o.npos == 2 && !strcmp(c->o.pos[0], "status"))
        return cmd_migrate_status(c, c->o.pos[1]);
    if (c->o.npos == 2 && !strcmp(c->o.pos[0], "model"))
        return cmd_migrate_model(c, c->o.pos[1]);
    if (c->o.npos == 3 && !strcmp(c->o.pos[0], "baseline"))
        return cmd_migrate_baseline(c, c->o.pos[1], c->o.pos[2]);
    if (c->o.npos != 1)
        return usage_error(c, "give the plan (ddb migrate PLAN.json), or ddb migrate status|model TABLE, or ddb "
                              "migrate baseline TABLE MODEL.json");
    const char *module = opt_get(c, "module");
    if (!module)
        return usage_error(c, "--module LIB.so is required (the new schema's generated module)");
    if (!c->uri || !*c->uri)
        return usage_error(c, "no database: give --db URI (file:DIR or DIR) or set DDB_URI");
    ddb_ent_migrate_opts o = {.dry_run = opt_count(c, "dry-run") > 0, .samples = 5};
    uint64_t v;
    if (opt_get(c, "capacity")) {
        char *end;
        o.max_capacity = strtod(opt_get(c, "capacity"), &end);
        if (*end || o.max_capacity <= 0)
            return usage_error(c, "--capacity needs a positive number of capacity units per second");
    }
    if (opt_get(c, "samples")) {
        if (parse_u64(opt_get(c, "samples"), &v) || v > 1000)
            return usage_error(c, "--samples needs a number from 0 to 1000");
        o.samples = (size_t)v;
    }
    if (opt_get(c, "page-size")) {
        if (parse_u64(opt_get(c, "page-size"), &v) || !v || v > 100000)
            return usage_error(c, "--page-size needs a number from 1 to 100000");
        o.page_size = (uint32_t)v;
    }
    json_t *plan = read_plan(c, c->o.pos[0]);
    if (!plan)
        return 1;
    /* the model the plan takes the data to (one line of JSON text), recorded
     * in each table's history: the next plan starts from it */
    const json_t *model = json_object_get(plan, "model");
    o.record_model = json_string_value(model);
    o.record_model_len = json_string_length(model);
    lib l;
    int rc = load_lib(c, module, &l);
    ddb *db = NULL;
    if (!rc) {
        char uri[4200];
        bool remote = strstr(c->uri, "://") != NULL;
        snprintf(uri, sizeof uri, "%s%s", remote || !strncmp(c->uri, "file:", 5) ? "" : "file:", c->uri);
        ddb_error err = {0};
        ddb_options opts = {0};
        if (cli_sync_mode(c, &opts.sync))
            rc = 2;
        else if (l.open(uri, &opts, &db, &err))
            rc = cli_fail(c, &err, "cannot open %s", c->uri);
    }
    const char *id = json_string_value(json_object_get(plan, "id"));
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(plan, "tables"), i, t) {
        if (rc)
            break;
        rc = migrate_table(c, &l, db, id, t, &o);
    }
    if (!rc && !json_array_size(json_object_get(plan, "tables")))
        printf("nothing to migrate: the plan changes no stored items\n");
    if (db)
        l.close(db);
    if (l.h)
        dlclose(l.h);
    json_decref(plan);
    return rc;
}
