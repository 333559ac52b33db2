/* remote/: credential_process of a profile: run the command through
 * /bin/sh -c, read its standard output (at most 64 KiB,
 * within a minute), and take the JSON it prints ({"Version": 1,
 * "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"}).  A
 * non-zero exit status is an error naming the command's status.
 * May call core/ and POSIX. */
#include "remote/cred.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROCESS_TIMEOUT_MS 60000

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ddbi_cred_process(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err)
{
    (void)ctx;
    const char *cmd = arg;
    int fds[2];
    if (pipe(fds) != 0)
        return ddbi_fail(err, DDB_EIO, "credential_process: pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return ddbi_fail(err, DDB_EIO, "credential_process: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char *buf = malloc(DDBI_CRED_MAX_BODY + 1);
    size_t len = 0;
    bool too_long = false, timed_out = false;
    long long deadline = now_ms() + PROCESS_TIMEOUT_MS;
    while (buf) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int pr = poll(&p, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            timed_out = pr == 0;
            break;
        }
        ssize_t n = read(fds[0], buf + len, DDBI_CRED_MAX_BODY + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len > DDBI_CRED_MAX_BODY) {
            too_long = true;
            break;
        }
    }
    close(fds[0]);
    if (!buf || too_long || timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int rc;
    if (!buf)
        rc = ddbi_fail_oom(err, "credential_process");
    else if (timed_out)
        rc = ddbi_fail(err, DDB_ETIMEOUT, "credential_process \"%.200s\" did not finish within %d s", cmd,
                       PROCESS_TIMEOUT_MS / 1000);
    else if (too_long)
        rc = ddbi_fail(err, DDB_ELIMIT, "credential_process \"%.200s\" printed more than %u bytes", cmd,
                       DDBI_CRED_MAX_BODY);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        rc = ddbi_fail(err, DDB_EINVAL, "credential_process \"%.200s\" failed (%s %d)", cmd,
                       WIFEXITED(status) ? "exit status" : "signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    else {
        buf[len] = '\0';
        rc = ddbi_creds_from_json("credential_process", buf, len, out, err);
    }
    if (buf)
        memset(buf, 0, len);
    free(buf);
    return rc;
}
