/* export in DynamoDB's JSON-lines export format: one
 * {"Item": {<attribute>: <DynamoDB JSON value>, ...}} per line, what
 * DynamoDB's export to S3 writes (DYNAMODB_JSON) and its import reads, so
 * data moves between the embedded engine and DynamoDB (import: cmd_import.c). */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int cmd_export(cli *c)
{
    if (cli_open(c))
        return 1;
    const char *table = c->o.pos[0], *path = c->o.npos > 1 ? c->o.pos[1] : NULL;
    ddb_error e = {0};
    ddb_arena *ar[2] = {ddb_arena_new(), ddb_arena_new()};
    FILE *out = path && strcmp(path, "-") != 0 ? fopen(path, "w") : stdout;
    int rc = 0;
    if (!ar[0] || !ar[1])
        rc = cli_failf(c, "out of memory");
    else if (!out)
        rc = cli_failf(c, "cannot write %s: %s", path, strerror(errno));
    progress pg = {cli_progress_tty(), "export", 0};
    uint64_t n = 0;
    const ddb_item *start = NULL;
    for (int page = 0; !rc; page++) {
        ddb_arena *a = ar[page & 1];
        ddb_arena_reset(a);
        ddb_scan_params s = {.table = table, .start_key = start};
        ddb_page p;
        if (ddb_scan(c->db, &s, a, &p, &e)) {
            rc = cli_fail(c, &e, NULL);
            break;
        }
        for (size_t i = 0; i < p.count && !rc; i++) {
            char *line = item_json_line(p.items[i], &e);
            if (!line) {
                rc = cli_fail(c, &e, "item %" PRIu64, n + 1);
                break;
            }
            if (fprintf(out, "{\"Item\":%s}\n", line) < 0)
                rc = cli_failf(c, "cannot write %s: %s", path ? path : "the output", strerror(errno));
            free(line);
            n++;
            progress_show(&pg, n, false);
        }
        if (!p.last_key)
            break;
        start = p.last_key;
    }
    if (out == stdout) {
        if (fflush(stdout) != 0 && !rc)
            rc = cli_failf(c, "cannot write the output: %s", strerror(errno));
    } else if (out && fclose(out) != 0 && !rc) {
        rc = cli_failf(c, "cannot write %s: %s", path, strerror(errno));
    }
    if (!rc)
        progress_show(&pg, n, true);
    ddb_arena_free(ar[0]);
    ddb_arena_free(ar[1]);
    return rc;
}
