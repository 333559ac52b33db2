/* api/: the private directories of "mem:" databases (ddb_open("mem:")):
 * made on tmpfs (/dev/shm) when the machine has one, so a test's database
 * lives in memory, else under $TMPDIR or /tmp; removed with everything in
 * it when the handle closes.  Calls core/ (errors) and the C library. */
#include "api/api.h"
#include "core/error.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where the directory goes: /dev/shm when it is a writable directory. */
static const char *temp_base(void)
{
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK | X_OK) == 0)
        return "/dev/shm";
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

int ddbi_temp_dir_new(char **out, ddb_error *err)
{
    const char *base = temp_base();
    size_t n = strlen(base) + sizeof "/ddb-mem-XXXXXX";
    char *dir = malloc(n);
    if (!dir)
        return ddbi_fail_oom(err, "ddb_open");
    snprintf(dir, n, "%s/ddb-mem-XXXXXX", base);
    if (!mkdtemp(dir)) {
        int e = errno;
        free(dir);
        return ddbi_fail(err, DDB_EIO, "ddb_open: mem: cannot make a private directory in %s: %s", base,
                         strerror(e));
    }
    *out = dir;
    return DDB_OK;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* best effort: the rest is still removed */
    return 0;
}

void ddbi_temp_dir_remove(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
