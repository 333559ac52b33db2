/* Option parsing and --help for every command: "--name VALUE",
 * "--name=VALUE", "-x VALUE", two-value options ("--sk-between A B"),
 * repeatable options, "--" ends the options. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const opt_spec globals[] = {
    {"db", 0, 1, false, "URI", "the database: file:DIR[?mode=ro] or DIR (default: $DDB_URI)"},
    {"output", 'o', 1, false, "FORMAT", "json (DynamoDB JSON lines) or table (readable)"},
    {"now", 0, 1, false, "SECONDS", "the time (epoch seconds) TTL and stream records use"},
    {"model", 0, 1, false, "FILE", "the schema's model (ddbgen --emit-model): entity commands (default: $DDB_MODEL)"},
    {"help", 'h', 0, false, NULL, "show this help"},
};
#define N_GLOBALS (sizeof globals / sizeof *globals)

/* spec entries of cmd, then the globals, as one list */
static size_t all_specs(const command *cmd, const opt_spec **list, size_t cap)
{
    size_t n = 0;
    for (const opt_spec *s = cmd ? cmd->spec : NULL; s && s->name && n < cap; s++)
        list[n++] = s;
    for (size_t i = 0; i < N_GLOBALS && n < cap; i++)
        list[n++] = &globals[i];
    return n;
}

static void print_opts(FILE *f, const opt_spec *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const opt_spec *s = list[i];
        char left[64];
        int w = s->shortc ? snprintf(left, sizeof left, "  -%c, --%s", s->shortc, s->name)
                          : snprintf(left, sizeof left, "  --%s", s->name);
        if (s->arg && w > 0 && (size_t)w < sizeof left)
            snprintf(left + w, sizeof left - (size_t)w, s->nargs == 2 ? " %s %s" : " %s", s->arg,
                     s->nargs == 2 ? s->arg : "");
        fprintf(f, "%-28s %s%s\n", left, s->help, s->repeat ? " (repeatable)" : "");
    }
}

void usage_command(const command *cmd, FILE *f)
{
    fprintf(f, "usage: ddb %s%s%s [options]\n\n%s.\n", cmd->name, *cmd->args ? " " : "", cmd->args, cmd->summary);
    if (cmd->details && *cmd->details)
        fprintf(f, "\n%s", cmd->details);
    const opt_spec *list[OPTS_MAX];
    size_t n = 0;
    for (const opt_spec *s = cmd->spec; s && s->name && n < OPTS_MAX; s++)
        list[n++] = s;
    if (n) {
        fprintf(f, "\nOptions:\n");
        print_opts(f, list, n);
    }
    n = 0;
    for (size_t i = 0; i < N_GLOBALS; i++)
        list[n++] = &globals[i];
    fprintf(f, "\nGlobal options:\n");
    print_opts(f, list, n);
}

int usage_error(const cli *c, const char *fmt, ...)
{
    fprintf(stderr, "ddb%s%s: ", c->cmd ? " " : "", c->cmd ? c->cmd->name : "");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (c->cmd)
        fprintf(stderr, "\nTry 'ddb %s --help'.\n", c->cmd->name);
    else
        fprintf(stderr, "\nTry 'ddb --help'.\n");
    return EXIT_USAGE;
}

static int find(const opt_spec *const *list, size_t n, const char *name, size_t len, char shortc)
{
    for (size_t i = 0; i < n; i++)
        if (shortc ? list[i]->shortc == shortc
                   : strlen(list[i]->name) == len && strncmp(list[i]->name, name, len) == 0)
            return (int)i;
    return -1;
}

int opts_parse(cli *c, const command *cmd, int argc, char **argv)
{
    const opt_spec *list[OPTS_MAX];
    size_t n = all_specs(cmd, list, OPTS_MAX);
    opts *o = &c->o;
    memset(o, 0, sizeof *o);
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || a[1] == '\0') {
            if (o->npos == sizeof o->pos / sizeof *o->pos)
                return usage_error(c, "too many arguments");
            o->pos[o->npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = true;
            continue;
        }
        const char *inline_val = NULL;
        int k;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            k = find(list, n, a + 2, len, 0);
            if (eq)
                inline_val = eq + 1;
        } else {
            k = a[2] ? -1 : find(list, n, NULL, 0, a[1]);
        }
        if (k < 0)
            return usage_error(c, "unknown option %s", a);
        const opt_spec *s = list[k];
        if (o->count[k] && !s->repeat)
            return usage_error(c, "option --%s given twice", s->name);
        if (o->count[k] == OPTS_VALUES)
            return usage_error(c, "option --%s given too often", s->name);
        int slot = o->count[k]++;
        if (s->nargs == 0) {
            if (inline_val)
                return usage_error(c, "option --%s takes no value", s->name);
            continue;
        }
        for (int v = 0; v < s->nargs; v++) {
            const char *val = v == 0 && inline_val ? inline_val : NULL;
            if (!val) {
                if (i + 1 >= argc)
                    return usage_error(c, "option --%s needs %s", s->name,
                                       s->nargs == 2 ? "two values" : "a value");
                val = argv[++i];
            }
            o->val[k][slot][v] = val;
        }
    }
    memcpy(o->spec, list, n * sizeof *list);
    o->n_spec = n;
    int h = find(list, n, "help", 4, 0);
    if (h >= 0 && o->count[h]) {
        usage_command(cmd, stdout);
        return 1;
    }
    if ((int)o->npos < cmd->min_pos)
        return usage_error(c, "missing %s", cmd->args);
    if (cmd->max_pos >= 0 && (int)o->npos > cmd->max_pos)
        return usage_error(c, "unexpected argument '%s'", o->pos[cmd->max_pos]);
    return 0;
}

static int index_of(const cli *c, const char *name)
{
    for (size_t i = 0; i < c->o.n_spec; i++)
        if (strcmp(c->o.spec[i]->name, name) == 0)
            return (int)i;
    return -1;
}

const char *opt_get(const cli *c, const char *name)
{
    int k = index_of(c, name);
    return k >= 0 && c->o.count[k] ? c->o.val[k][0][0] : NULL;
}

const char *opt_get2(const cli *c, const char *name)
{
    int k = index_of(c, name);
    return k >= 0 && c->o.count[k] ? c->o.val[k][0][1] : NULL;
}

int opt_count(const cli *c, const char *name)
{
    int k = index_of(c, name);
    return k >= 0 ? c->o.count[k] : 0;
}

const char *opt_nth(const cli *c, const char *name, int i)
{
    int k = index_of(c, name);
    return k >= 0 && i < c->o.count[k] ? c->o.val[k][i][0] : NULL;
}
