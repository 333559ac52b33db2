/* Lines of a file or of standard input, plain or gzip-compressed (zlib
 * reads both), for import: a line may hold NUL bytes (it is returned with
 * its length), is at most LINE_MAX_BYTES long, and a damaged or truncated
 * gzip stream is reported as such, never passed on as a short line. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 65536

int lr_open(line_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    bool std = strcmp(path, "-") == 0;
    r->src = std ? "<stdin>" : path;
    if (!(r->buf = malloc(r->cap = 4 * CHUNK))) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    errno = 0;
    r->f = std ? gzdopen(0, "rb") : gzopen(path, "rb");
    if (!r->f) {
        snprintf(r->error, sizeof r->error, "cannot read %s: %s", std ? "standard input" : path,
                 strerror(errno ? errno : ENOMEM));
        return -1;
    }
    return 0;
}

/* The end of the input: a clean end, or the gzip error that stopped it
 * (after line r->no; with drained, somewhere after it). */
static int at_end_of(line_reader *r, bool drained)
{
    int zerr = Z_OK;
    const char *msg = gzerror(r->f, &zerr);
    if (zerr == Z_OK || zerr == Z_STREAM_END)
        return 0;
    if (zerr == Z_ERRNO)
        snprintf(r->error, sizeof r->error, "%s: read error after line %lu: %s", r->src, r->no, strerror(errno));
    else if (zerr == Z_MEM_ERROR)
        snprintf(r->error, sizeof r->error, "%s: out of memory after line %lu", r->src, r->no);
    else {
        size_t n = strlen(r->src);
        if (strncmp(msg, r->src, n) == 0 && msg[n] == ':') /* zlib names the file too */
            msg += n + 1 + (msg[n + 1] == ' ');
        char after[48] = "";
        if (!drained)
            snprintf(after, sizeof after, " after line %lu", r->no);
        snprintf(r->error, sizeof r->error, "%s: gzip error%s: %s (the file is damaged or truncated)", r->src, after,
                 msg);
    }
    return -1;
}

static int at_end(line_reader *r)
{
    return at_end_of(r, false);
}

int lr_check_rest(line_reader *r)
{
    if (gzdirect(r->f))
        return 0;
    char tmp[CHUNK];
    while (gzread(r->f, tmp, sizeof tmp) > 0)
        ;
    r->eof = true;
    r->start = r->scan = r->len = 0;
    return at_end_of(r, true);
}

int lr_next(line_reader *r, char **line, size_t *n)
{
    for (;;) {
        char *nl = memchr(r->buf + r->scan, '\n', r->len - r->scan);
        size_t end = nl ? (size_t)(nl - r->buf) : r->len;
        if (end - r->start > LINE_MAX_BYTES) {
            snprintf(r->error, sizeof r->error,
                     "%s:%lu: the line is longer than %d MiB (an item of 400 KB needs far less): is this a JSON-lines file?",
                     r->src, r->no + 1, LINE_MAX_BYTES >> 20);
            r->error_line = r->no + 1;
            return -1;
        }
        if (!nl && r->eof && at_end(r)) /* what follows the last newline of a damaged stream is no line */
            return -1;
        if (nl || (r->eof && r->start < r->len)) {
            *line = r->buf + r->start;
            *n = end - r->start;
            r->buf[end] = '\0'; /* the newline, or the room kept after the data */
            r->start = r->scan = nl ? end + 1 : end;
            if (*n && (*line)[*n - 1] == '\r')
                (*line)[--*n] = '\0';
            r->no++;
            return 1;
        }
        if (r->eof)
            return 0;
        /* keep the partial line, read more */
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
        r->scan = r->len;
        if (r->cap - r->len < CHUNK + 1) {
            size_t nc = r->cap * 2;
            char *nb = realloc(r->buf, nc);
            if (!nb) {
                snprintf(r->error, sizeof r->error, "%s: out of memory reading line %lu", r->src, r->no + 1);
                return -1;
            }
            r->buf = nb;
            r->cap = nc;
        }
        int got = gzread(r->f, r->buf + r->len, CHUNK);
        if (got <= 0)
            r->eof = true; /* the end, or an error: at_end tells */
        else
            r->len += (size_t)got;
    }
}

int lr_rewind(line_reader *r)
{
    r->start = r->scan = r->len = 0;
    r->eof = false;
    r->no = 0;
    if (gzrewind(r->f) != 0) {
        snprintf(r->error, sizeof r->error, "%s: cannot read the input again", r->src);
        return -1;
    }
    return 0;
}

void lr_close(line_reader *r)
{
    if (r->f)
        gzclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}
