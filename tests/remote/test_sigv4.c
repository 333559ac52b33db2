/* AWS Signature Version 4, checked against the examples AWS publishes in
 * its documentation:
 *  - "Create a signed AWS API request" (IAM ListUsers, 20150830T123600Z,
 *    AKIDEXAMPLE / wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY): canonical
 *    request, its hash, string to sign, signature, Authorization header;
 *  - "Examples of how to derive a signing key" (20120215, us-east-1, iam);
 *  - Amazon S3's "Signature calculations for the Authorization header"
 *    GET Object example (examplebucket, Range: bytes=0-9, 20130524).
 * Then the canonicalisation rules those examples do not exercise. */
#include "remote/sigv4.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

static void test_iam_list_users(void **state)
{
    (void)state;
    const ddb_sigv4_header h[] = {{"Host", "iam.amazonaws.com"},
                                  {"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                                  {"X-Amz-Date", "20150830T123600Z"}};
    /* query given out of order: canonical form sorts it */
    ddb_sigv4_request req = {"GET", "/", "Version=2010-05-08&Action=ListUsers", h, 3, "", 0, NULL};
    ddb_sigv4_key key = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "iam"};
    ddb_buf creq = {0}, sh = {0}, auth = {0}, sts = {0};
    ddb_error err = {0};
    assert_int_equal(ddbi_sigv4_canonical_request(&req, &creq, &sh, &err), 0);
    assert_string_equal((char *)creq.p, "GET\n"
                                        "/\n"
                                        "Action=ListUsers&Version=2010-05-08\n"
                                        "content-type:application/x-www-form-urlencoded; charset=utf-8\n"
                                        "host:iam.amazonaws.com\n"
                                        "x-amz-date:20150830T123600Z\n"
                                        "\n"
                                        "content-type;host;x-amz-date\n"
                                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_string_equal((char *)sh.p, "content-type;host;x-amz-date");
    char hash[DDB_SHA256_HEX];
    ddbi_sha256_hex(creq.p, creq.len, hash);
    assert_string_equal(hash, "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
    assert_int_equal(ddbi_sigv4_sign(&req, &key, "20150830T123600Z", &auth, &sts, &err), 0);
    assert_string_equal((char *)sts.p, "AWS4-HMAC-SHA256\n"
                                       "20150830T123600Z\n"
                                       "20150830/us-east-1/iam/aws4_request\n"
                                       "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
    assert_string_equal((char *)auth.p, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
                                        "SignedHeaders=content-type;host;x-amz-date, "
                                        "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
    ddbi_buf_free(&creq);
    ddbi_buf_free(&sh);
    ddbi_buf_free(&auth);
    ddbi_buf_free(&sts);
}

static void hexs(const unsigned char *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        static const char d[] = "0123456789abcdef";
        out[2 * i] = d[p[i] >> 4];
        out[2 * i + 1] = d[p[i] & 15];
    }
    out[2 * n] = '\0';
}

static void test_signing_key(void **state)
{
    (void)state;
    ddb_sigv4_key key = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "iam"};
    unsigned char k[32];
    char hex[65];
    ddb_error err = {0};
    assert_int_equal(ddbi_sigv4_signing_key(&key, "20120215", k, &err), 0);
    hexs(k, 32, hex);
    assert_string_equal(hex, "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
    assert_int_equal(ddbi_sigv4_signing_key(&key, "2012021", k, &err), DDB_EINVAL);
}

static void test_s3_get_object(void **state)
{
    (void)state;
    const ddb_sigv4_header h[] = {
        {"Host", "examplebucket.s3.amazonaws.com"},
        {"Range", "bytes=0-9"},
        {"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"x-amz-date", "20130524T000000Z"}};
    ddb_sigv4_request req = {"GET", "/test.txt", NULL, h, 4, NULL, 0, NULL};
    ddb_sigv4_key key = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1", "s3"};
    ddb_buf auth = {0}, sts = {0};
    ddb_error err = {0};
    assert_int_equal(ddbi_sigv4_sign(&req, &key, "20130524T000000Z", &auth, &sts, &err), 0);
    assert_string_equal((char *)sts.p, "AWS4-HMAC-SHA256\n"
                                       "20130524T000000Z\n"
                                       "20130524/us-east-1/s3/aws4_request\n"
                                       "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    assert_non_null(strstr((char *)auth.p,
                           "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                           "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
    ddbi_buf_free(&auth);
    ddbi_buf_free(&sts);
}

static void test_canonical_rules(void **state)
{
    (void)state;
    /* names lower-cased and sorted, values trimmed with inner runs of
     * spaces collapsed, a repeated header joined with commas in request
     * order, a pair without '=' gets one, payload hashed */
    const ddb_sigv4_header h[] = {{"X-Amz-Date", "20150830T123600Z"},
                                  {"My-Header1", "   a   b   c  "},
                                  {"host", "example.amazonaws.com"},
                                  {"My-Header2", "value2"},
                                  {"my-header2", "value1"}};
    ddb_sigv4_request req = {"POST", NULL, "b=2&a&a=1", h, 5, "Action=x", 8, NULL};
    ddb_buf creq = {0}, sh = {0};
    ddb_error err = {0};
    assert_int_equal(ddbi_sigv4_canonical_request(&req, &creq, &sh, &err), 0);
    char payload[DDB_SHA256_HEX], want[1024];
    ddbi_sha256_hex("Action=x", 8, payload);
    snprintf(want, sizeof want,
             "POST\n/\na=&a=1&b=2\nhost:example.amazonaws.com\nmy-header1:a b c\nmy-header2:value2,value1\n"
             "x-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n%s",
             payload);
    assert_string_equal((char *)creq.p, want);
    assert_string_equal((char *)sh.p, "host;my-header1;my-header2;x-amz-date");
    ddbi_buf_free(&creq);
    ddbi_buf_free(&sh);

    /* a precomputed payload hash is used as given */
    ddb_sigv4_request unsigned_req = {"PUT", "/k", "", h, 1, NULL, 0, "UNSIGNED-PAYLOAD"};
    assert_int_equal(ddbi_sigv4_canonical_request(&unsigned_req, &creq, NULL, &err), 0);
    assert_non_null(strstr((char *)creq.p, "\nx-amz-date\nUNSIGNED-PAYLOAD"));
    ddbi_buf_free(&creq);
}

static void test_errors(void **state)
{
    (void)state;
    const ddb_sigv4_header h[] = {{"host", "x"}};
    const ddb_sigv4_header bad[] = {{"", "x"}};
    ddb_sigv4_request req = {"POST", "/", "", h, 1, "{}", 2, NULL};
    ddb_sigv4_key key = {"AKID", "secret", "us-east-1", "dynamodb"};
    ddb_buf out = {0};
    ddb_error err = {0};
    assert_int_equal(ddbi_sigv4_sign(&req, &key, "2015-08-30T12:36:00Z", &out, NULL, &err), DDB_EINVAL);
    assert_int_equal(err.code, DDB_EINVAL);
    assert_int_equal(ddbi_sigv4_sign(&req, &key, NULL, &out, NULL, &err), DDB_EINVAL);
    ddb_sigv4_key nokey = {NULL, "secret", "us-east-1", "dynamodb"};
    assert_int_equal(ddbi_sigv4_sign(&req, &nokey, "20150830T123600Z", &out, NULL, &err), DDB_EINVAL);
    ddb_sigv4_key noregion = {"AKID", "secret", NULL, "dynamodb"};
    assert_int_equal(ddbi_sigv4_sign(&req, &noregion, "20150830T123600Z", &out, NULL, &err), DDB_EINVAL);
    ddb_sigv4_request badreq = {"POST", "/", "", bad, 1, "{}", 2, NULL};
    assert_int_equal(ddbi_sigv4_sign(&badreq, &key, "20150830T123600Z", &out, NULL, &err), DDB_EINVAL);
    assert_int_equal(out.len, 0);
    ddbi_buf_free(&out);
    char d[17];
    ddbi_sigv4_amz_date(1440938160LL, d); /* 2015-08-30 12:36:00 UTC */
    assert_string_equal(d, "20150830T123600Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iam_list_users), cmocka_unit_test(test_signing_key),
        cmocka_unit_test(test_s3_get_object),  cmocka_unit_test(test_canonical_rules),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
