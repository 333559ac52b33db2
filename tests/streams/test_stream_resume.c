/* A consumer that checkpoints survives SIGKILL: it is killed in the middle
 * of its work (twice), restarted from its checkpoint, and in the end has
 * processed every record; a record is processed twice only when it came
 * after the last checkpoint before a kill. */
#include "stream_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T "Resume"
#define BATCH 7

static char dir[512], out_path[600], ckpt_path[600];

static uint64_t read_checkpoint(void)
{
    FILE *f = fopen(ckpt_path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

static void write_checkpoint(uint64_t seq)
{
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp", ckpt_path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%llu\n", (unsigned long long)seq) < 0 || fflush(f) || fsync(fileno(f)) || fclose(f) ||
        rename(tmp, ckpt_path))
        _exit(3);
}

/* The consumer: process (append "seq\n" to the output) a batch, then
 * checkpoint it; until stop_at is processed.  Runs in a child process. */
static void consume(uint64_t stop_at)
{
    ddb *db = su_reopen(dir, NULL, NULL);
    ddb_error err = {0};
    ddb_stream_iter *it;
    if (ddb_stream_iter_open(db, T, DDB_STREAM_AFTER_SEQUENCE, read_checkpoint(), &it, &err))
        _exit(4);
    int fd = open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    ddb_arena *a = ddb_arena_new();
    ddb_stream_record r[BATCH];
    uint64_t last = ddb_stream_iter_position(it);
    while (last < stop_at) {
        size_t n = 0;
        ddb_arena_reset(a);
        if (ddb_stream_read(it, BATCH, a, r, &n, &err))
            _exit(5);
        for (size_t i = 0; i < n; i++) {
            char line[32];
            int len = snprintf(line, sizeof line, "%" PRIu64 "\n", r[i].seq);
            if (write(fd, line, (size_t)len) != len)
                _exit(6);
            last = r[i].seq;
        }
        if (n)
            write_checkpoint(ddb_stream_iter_position(it));
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    close(fd);
    ddb_stream_iter_close(it);
    ddb_arena_free(a);
    ddb_close(db);
    _exit(0);
}

static size_t lines(void)
{
    FILE *f = fopen(out_path, "r");
    size_t n = 0;
    int ch;
    while (f && (ch = fgetc(f)) != EOF)
        n += ch == '\n';
    if (f)
        fclose(f);
    return n;
}

static void write_records(int from, int to)
{
    ddb *db = su_reopen(dir, NULL, NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    for (int i = from; i <= to; i++) {
        char sk[16];
        snprintf(sk, sizeof sk, "%06d", i);
        if (ddb_put_item(db, T, su_item(a, "PK", 's', "r", "SK", 's', sk, NULL), NULL, NULL, NULL, &err))
            fail_msg("put: %s", err.message);
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    ddb_close(db);
}

/* Start a consumer, kill it once it has processed at least min_lines in
 * total; the checkpoint at the time of the kill. */
static uint64_t run_and_kill(size_t min_lines, uint64_t stop_at)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        consume(stop_at);
    for (int i = 0; i < 20000 && lines() < min_lines; i++) {
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0));
    return read_checkpoint();
}

static void run_to_end(uint64_t stop_at)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        consume(stop_at);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_resume_after_sigkill(void **state)
{
    (void)state;
    ddb *db = su_open("resume", NULL, NULL, dir, sizeof dir);
    su_table(db, T, DDB_STREAM_KEYS_ONLY, NULL);
    ddb_close(db);
    snprintf(out_path, sizeof out_path, "%s.out", dir);
    snprintf(ckpt_path, sizeof ckpt_path, "%s.ckpt", dir);
    unlink(out_path);
    unlink(ckpt_path);

    write_records(1, 1500);
    uint64_t c1 = run_and_kill(300, 1500);
    write_records(1501, 3000); /* the stream grows while nobody reads */
    uint64_t c2 = run_and_kill(lines() + 400, 3000);
    run_to_end(3000);
    assert_true(c1 > 0 && c2 >= c1);

    /* every record processed; a repeat only after a checkpoint, by less than a batch */
    unsigned *seen = calloc(3001, sizeof *seen);
    FILE *f = fopen(out_path, "r");
    assert_non_null(f);
    unsigned long long s;
    uint64_t prev = 0;
    size_t repeats = 0;
    while (fscanf(f, "%llu", &s) == 1) {
        assert_true(s >= 1 && s <= 3000);
        if (s <= prev) { /* a restart: it resumes right after a checkpoint */
            assert_true(s == c1 + 1 || s == c2 + 1);
            assert_true(prev - s < BATCH);
        } else if (prev) {
            assert_int_equal(s, prev + 1); /* in order, nothing skipped */
        }
        seen[s]++;
        prev = s;
    }
    fclose(f);
    for (uint64_t i = 1; i <= 3000; i++) {
        if (seen[i] == 0)
            fail_msg("record %" PRIu64 " was never processed", i);
        if (seen[i] > 1) {
            /* processed again: it came after the checkpoint of a kill */
            assert_true((i > c1 && i <= c1 + BATCH) || (i > c2 && i <= c2 + BATCH));
            repeats++;
        }
        if (i <= c1)
            assert_int_equal(seen[i], 1);
    }
    assert_true(repeats <= 2 * BATCH); /* at most one batch per kill */
    assert_int_equal(read_checkpoint(), 3000);
    free(seen);
    unlink(out_path);
    unlink(ckpt_path);
    su_rmdir(dir);
}

/* The text checkpoint (ddb_stream_iter_checkpoint / _resume, the form a
 * remote iterator needs) is the decimal sequence number on the embedded
 * engine and resumes right after it. */
static void test_text_checkpoint(void **state)
{
    (void)state;
    ddb *db = su_open("ckpt", NULL, NULL, dir, sizeof dir);
    su_table(db, T, DDB_STREAM_KEYS_ONLY, NULL);
    ddb_arena *a = ddb_arena_new();
    ddb_error err = {0};
    for (int i = 0; i < 3; i++) {
        char pk[8];
        snprintf(pk, sizeof pk, "p%d", i);
        SU_OK(ddb_put_item(db, T, su_item(a, "PK", 's', pk, "SK", 's', "s", NULL), NULL, a, NULL, &err));
    }
    ddb_stream_iter *it;
    SU_OK(ddb_stream_iter_open(db, T, DDB_STREAM_TRIM_HORIZON, 0, &it, &err));
    ddb_stream_record r[2];
    size_t n;
    SU_OK(ddb_stream_read(it, 2, a, r, &n, &err));
    assert_int_equal(n, 2);
    char ck[32], tiny[2];
    SU_OK(ddb_stream_iter_checkpoint(it, ck, sizeof ck, &err));
    assert_string_equal(ck, "2");
    assert_int_equal(ddb_stream_iter_checkpoint(it, tiny, 1, &err), DDB_ELIMIT);
    assert_string_equal(tiny, "");
    assert_string_equal(err.message, "ddb_stream_iter_checkpoint: the checkpoint needs 2 bytes, the buffer has 1");
    ddb_stream_iter_close(it);
    SU_OK(ddb_stream_iter_resume(db, T, ck, &it, &err));
    SU_OK(ddb_stream_read(it, 2, a, r, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(r[0].seq, 3);
    ddb_stream_iter_close(it);
    /* not a checkpoint of this backend */
    it = (ddb_stream_iter *)&err;
    assert_int_equal(ddb_stream_iter_resume(db, T, "ddb-streams-1;shardId-1>5", &it, &err), DDB_EINVAL);
    assert_null(it);
    assert_non_null(strstr(err.message, "is not a checkpoint of the embedded backend"));
    assert_int_equal(ddb_stream_iter_resume(db, T, "123456789012345678901", &it, &err), DDB_EINVAL);
    ddb_arena_free(a);
    ddb_close(db);
    su_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_resume_after_sigkill),
                                       cmocka_unit_test(test_text_checkpoint)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
