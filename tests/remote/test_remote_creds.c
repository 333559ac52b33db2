/* The remote backend's credential chain, configuration, retry modes and
 * metrics, against local stand-ins for IMDSv2, the container endpoint,
 * STS and DynamoDB (aws_standin.py, on 127.0.0.1, selected through the
 * SDKs' environment variables).  The stand-in recomputes every DynamoDB
 * and STS request's SigV4 signature with botocore: each provider's
 * credentials are checked against botocore's signature for the request.
 *
 * Documented behaviour matched:
 *  - chain order and sources: "AWS SDKs and Tools standardized credential
 *    providers" (docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html)
 *  - IMDSv2: PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds,
 *    then X-aws-ec2-metadata-token (sdkref feature-imds-credentials.html)
 *  - container provider: _RELATIVE_URI / _FULL_URI, _AUTHORIZATION_TOKEN(_FILE)
 *    (sdkref feature-container-credentials.html)
 *  - assume role: role_arn + source_profile, web_identity_token_file
 *    (sdkref feature-assume-role-credentials.html); credential_process
 *    (sdkref feature-process-credentials.html)
 *  - retry_mode standard (retry quota) and adaptive, max_attempts
 *    (sdkref feature-retry-behavior.html)
 *  - the config file format (sdkref file-format.html). */
#include "remote/cred.h"
#include "remote/remote.h"
#include "remote/retry.h"

#include <ddb/ddb.h>
#include <ddb/remote.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONTAINER_AUTH "Basic container-secret-auth"
#define WEB_TOKEN "eyJ.web-identity.token"

static pid_t standin_pid;
static int port;
static char dir[256];

static void write_file(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

typedef struct body {
    char *p;
    size_t len;
} body;

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
    body *b = ud;
    char *q = realloc(b->p, b->len + s * n);
    assert_non_null(q);
    memcpy(q + b->len, p, s * n);
    b->p = q;
    b->len += s * n;
    return s * n;
}

/* GET a control path of the stand-in; the JSON answer (NULL when none). */
static json_t *ctl(const char *path)
{
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    CURL *c = curl_easy_init();
    body b = {NULL, 0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_cleanup(c);
    json_t *j = b.p ? json_loadb(b.p, b.len, 0, NULL) : NULL;
    free(b.p);
    return j;
}

static void ctl0(const char *path)
{
    json_decref(ctl(path));
}

static size_t log_len(void)
{
    json_t *l = ctl("/_log");
    size_t n = json_array_size(l);
    json_decref(l);
    return n;
}

/* Entry i of the log counted from the end (0 = last) of the given kind. */
static json_t *last_of(const char *kind, size_t back)
{
    json_t *l = ctl("/_log");
    for (size_t i = json_array_size(l); i-- > 0;) {
        json_t *e = json_array_get(l, i);
        if (strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0 && back-- == 0) {
            json_incref(e);
            json_decref(l);
            return e;
        }
    }
    json_decref(l);
    return NULL;
}

static const char *const AWS_VARS[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CREDENTIAL_EXPIRATION", "AWS_PROFILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_EC2_METADATA_DISABLED", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB",
    "AWS_ENDPOINT_URL_STS", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE",
    "AWS_USE_FIPS_ENDPOINT", "AWS_USE_DUALSTACK_ENDPOINT", "AWS_CA_BUNDLE"};

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof AWS_VARS / sizeof *AWS_VARS; i++)
        unsetenv(AWS_VARS[i]);
    char p[512];
    snprintf(p, sizeof p, "%s/config", dir);
    setenv("AWS_CONFIG_FILE", p, 1);
    snprintf(p, sizeof p, "%s/credentials", dir);
    setenv("AWS_SHARED_CREDENTIALS_FILE", p, 1);
    write_file("config", "");
    write_file("credentials", "");
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    snprintf(p, sizeof p, "http://127.0.0.1:%d/sts/", port);
    setenv("AWS_ENDPOINT_URL_STS", p, 1);
    ctl0("/_ctl?mode=ok&expiry=3600&throttle=0");
    return 0;
}

static char uri[128];

static ddb_remote *open_ok(const char *query)
{
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/%s", port, query ? query : "");
    ddb_remote *r = NULL;
    ddb_error err = {0};
    if (ddbi_remote_open_with(uri, NULL, &r, &err))
        fail_msg("open %s: %s", uri, err.message);
    return r;
}

/* One ListTables; the DynamoDB log entry of it must carry a signature
 * botocore agrees with, made with an access key id starting with prefix. */
static void list_signed_by(ddb_remote *r, const char *prefix)
{
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    ddb_error err = {0};
    if (ddbi_remote_list_tables(r, a, &names, &n, &err))
        fail_msg("ListTables: %s", err.message);
    ddb_arena_free(a);
    json_t *e = last_of("dynamodb", 0);
    assert_non_null(e);
    const char *akid = json_string_value(json_object_get(e, "akid"));
    if (!akid || strncmp(akid, prefix, strlen(prefix)) != 0)
        fail_msg("signed by %s, expected %s...", akid ? akid : "(none)", prefix);
    assert_true(json_is_true(json_object_get(e, "sig_ok")));
    json_decref(e);
}

/* ---- The INI format ------------------------------------------------------------- */

static void test_ini_edge_cases(void **state)
{
    (void)state;
    static const char cfg[] = "# comment\r\n; another\n"
                               "[default]\nregion = us-east-1\n"
                               "[profile   dev  ]  # trailing comment\r\n"
                               "Region=eu-west-1 ; inline comment\n"
                               "output : json\n"
                               "role_arn = arn:aws:iam::123456789012:role/x#y\n"
                               "s3 =\n  max_concurrent_requests = 20\n  addressing_style = path\n"
                               "[dev]\nregion = ignored-no-profile-prefix\n"
                               "[sso-session dev]\nregion = ignored-too\n"
                               "[profile dev]\nregion = eu-central-1\n";
    ddbi_profile p = {0};
    p.name = strdup("dev");
    ddb_error err = {0};
    assert_int_equal(ddbi_ini_parse(cfg, strlen(cfg), "config", "profile", "dev", true, &p, &err), 0);
    assert_true(p.found);
    assert_string_equal(ddbi_profile_get(&p, "region"), "eu-central-1"); /* later section adds, later key wins */
    assert_string_equal(ddbi_profile_get(&p, "output"), "json");
    assert_string_equal(ddbi_profile_get(&p, "role_arn"), "arn:aws:iam::123456789012:role/x#y");
    assert_string_equal(ddbi_profile_get(&p, "s3"), "\nmax_concurrent_requests = 20\naddressing_style = path");
    ddbi_profile_free(&p);

    /* the credentials file names profiles without "profile " */
    static const char crd[] = "[dev]\naws_access_key_id=AKID\n[default]\naws_access_key_id=OTHER\n";
    p.name = strdup("dev");
    assert_int_equal(ddbi_ini_parse(crd, strlen(crd), "credentials", NULL, "dev", true, &p, &err), 0);
    assert_string_equal(ddbi_profile_get(&p, "aws_access_key_id"), "AKID");
    ddbi_profile_free(&p);

    p.name = strdup("dev");
    assert_int_equal(ddbi_ini_parse("key = v\n", 8, "cfgfile", "profile", "dev", true, &p, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "cfgfile line 1"));
    assert_int_equal(ddbi_ini_parse("[a]\njunk\n", 9, "cfgfile", "profile", "dev", true, &p, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "line 2"));
    ddbi_profile_free(&p);
}

static void test_ini_more_edge_cases(void **state)
{
    (void)state;
    /* [profile default] is the default profile too; tabs in the header;
     * keys compared lower-case; an empty value is "absent" */
    static const char cfg[] = "[profile\tdefault]\nAWS_ACCESS_KEY_ID=AKIAUP\nregion=\n";
    ddbi_profile p = {0};
    p.name = strdup("default");
    ddb_error err = {0};
    assert_int_equal(ddbi_ini_parse(cfg, strlen(cfg), "config", "profile", "default", true, &p, &err), 0);
    assert_true(p.found);
    assert_string_equal(ddbi_profile_get(&p, "aws_access_key_id"), "AKIAUP");
    assert_null(ddbi_profile_get(&p, "region"));
    ddbi_profile_free(&p);
    /* an unclosed section header */
    p.name = strdup("x");
    assert_int_equal(ddbi_ini_parse("[profile x\n", 11, "f", "profile", "x", true, &p, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "malformed section header"));
    ddbi_profile_free(&p);

    /* the credentials file wins over the config file for the same key */
    write_file("config", "[profile dev]\naws_access_key_id = FROMCONFIG\nregion = eu-north-1\n");
    write_file("credentials", "[dev]\naws_access_key_id = FROMCREDS\n");
    ddbi_aws_files f;
    assert_int_equal(ddbi_aws_files_init(&f, &err), 0);
    assert_int_equal(ddbi_profile_load(&f, "dev", &p, &err), 0);
    assert_string_equal(ddbi_profile_get(&p, "aws_access_key_id"), "FROMCREDS");
    assert_string_equal(ddbi_profile_get(&p, "region"), "eu-north-1");
    ddbi_profile_free(&p);
    ddbi_aws_files_free(&f);
}

static void test_iso8601(void **state)
{
    (void)state;
    int64_t t;
    assert_int_equal(ddbi_iso8601_parse("1970-01-01T00:00:00Z", &t), 0);
    assert_int_equal(t, 0);
    assert_int_equal(ddbi_iso8601_parse("2016-02-25T06:03:31Z", &t), 0);
    assert_int_equal(t, 1456380211);
    assert_int_equal(ddbi_iso8601_parse("2016-02-25T06:03:31.123Z", &t), 0); /* STS sends fractions */
    assert_int_equal(t, 1456380211);
    assert_int_equal(ddbi_iso8601_parse("2016-02-25T08:03:31+02:00", &t), 0);
    assert_int_equal(t, 1456380211);
    assert_int_not_equal(ddbi_iso8601_parse("2016-02-25 06:03", &t), 0);
    assert_int_not_equal(ddbi_iso8601_parse("2016-13-25T06:03:31Z", &t), 0);
    assert_int_not_equal(ddbi_iso8601_parse("2016-02-25T06:03:31", &t), 0);
}

static void test_role_chain_and_sources(void **state)
{
    (void)state;
    /* role -> role -> keys, and credential_source = Environment */
    write_file("credentials", "[base]\naws_access_key_id = AKIABASE002\naws_secret_access_key = base2\n");
    write_file("config", "[profile outer]\nrole_arn = arn:aws:iam::123456789012:role/outer\nsource_profile = inner\n"
                         "[profile inner]\nrole_arn = arn:aws:iam::123456789012:role/inner\nsource_profile = base\n"
                         "[profile envrole]\nrole_arn = arn:aws:iam::123456789012:role/env\n"
                         "credential_source = Environment\n"
                         "[profile loop1]\nrole_arn = arn:aws:iam::1:role/a\nsource_profile = loop2\n"
                         "[profile loop2]\nrole_arn = arn:aws:iam::1:role/b\nsource_profile = loop1\n"
                         "[profile unsigned]\nrole_arn = arn:aws:iam::1:role/c\nsource_profile = stranger\n"
                         "[profile stranger]\naws_access_key_id = AKIASTRANGER\naws_secret_access_key = unknown\n"
                         "[profile sso]\nsso_session = corp\nsso_account_id = 1\n");
    ctl0("/_ctl?akid=AKIABASE002&secret=base2");
    setenv("AWS_PROFILE", "outer", 1);
    ddb_remote *r = open_ok(NULL);
    json_t *outer = last_of("sts", 0), *inner = last_of("sts", 1);
    assert_string_equal(json_string_value(json_object_get(inner, "role")), "arn:aws:iam::123456789012:role/inner");
    assert_string_equal(json_string_value(json_object_get(inner, "akid")), "AKIABASE002");
    assert_string_equal(json_string_value(json_object_get(outer, "role")), "arn:aws:iam::123456789012:role/outer");
    assert_true(json_is_true(json_object_get(outer, "sig_ok"))); /* signed with the inner role's credentials */
    json_decref(outer);
    json_decref(inner);
    list_signed_by(r, "ASIASTS");
    ddbi_remote_close(r);

    setenv("AWS_PROFILE", "envrole", 1);
    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL); /* no keys in the environment */
    assert_non_null(strstr(err.message, "AWS_ACCESS_KEY_ID not set"));

    setenv("AWS_PROFILE", "loop1", 1);
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "a cycle?"));

    setenv("AWS_PROFILE", "unsigned", 1); /* STS refuses: its error is the open's */
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "HTTP 403: AccessDenied: not authorized"));

    setenv("AWS_PROFILE", "sso", 1);
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "IAM Identity Center"));
}

static void test_uri_options_and_expiration_variable(void **state)
{
    (void)state;
    write_file("credentials", "[dev]\naws_access_key_id = AKIADEV0002\naws_secret_access_key = dev2\n");
    ctl0("/_ctl?akid=AKIADEV0002&secret=dev2");
    ddb_remote *r = open_ok("?profile=dev&retry_mode=standard");
    assert_string_equal(ddbi_remote_cred_source(r), "profile dev");
    assert_int_equal(ddbi_retry_get_mode(ddbi_remote_retry(r)), DDBI_RETRY_STANDARD);
    list_signed_by(r, "AKIADEV");
    ddbi_remote_close(r);

    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/?retry_mode=bogus", port);
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "retry_mode"));

    setenv("AWS_ACCESS_KEY_ID", "AKIAEXP", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "exp", 1);
    setenv("AWS_CREDENTIAL_EXPIRATION", "yesterday", 1);
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/", port);
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "AWS_CREDENTIAL_EXPIRATION"));
}

static void test_ddb_verbose(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --verbose --db http://127.0.0.1:%d tables 2>&1", DDB_TOOL, port);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[1024] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    if (!strstr(out, "ddb: ListTables table=- status=200 attempts=1 throttles=0 latency="))
        fail_msg("ddb --verbose printed: %s", out);
}

/* ---- Each source ---------------------------------------------------------------- */

static void test_env(void **state)
{
    (void)state;
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV0001", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env/secret+key", 1);
    setenv("AWS_SESSION_TOKEN", "env-session-token", 1);
    ctl0("/_ctl?akid=AKIAENV0001&secret=env/secret%2Bkey");
    ddb_remote *r = open_ok(NULL);
    assert_string_equal(ddbi_remote_cred_source(r), "environment");
    list_signed_by(r, "AKIAENV");
    json_t *e = last_of("dynamodb", 0);
    assert_string_equal(json_string_value(json_object_get(e, "token")), "env-session-token");
    json_decref(e);
    ddbi_remote_close(r);
}

static void test_profile_static(void **state)
{
    (void)state;
    write_file("credentials", "[default]\naws_access_key_id = AKIADEF\naws_secret_access_key = def\n"
                              "[dev]\naws_access_key_id = AKIADEV0001\naws_secret_access_key = dev-secret\n");
    write_file("config", "[profile dev]\nregion = eu-west-3\n");
    ctl0("/_ctl?akid=AKIADEV0001&secret=dev-secret");
    setenv("AWS_PROFILE", "dev", 1);
    ddb_remote *r = open_ok(NULL);
    assert_string_equal(ddbi_remote_cred_source(r), "profile dev");
    assert_string_equal(ddbi_remote_region(r), "eu-west-3"); /* region from the profile */
    list_signed_by(r, "AKIADEV");
    ddbi_remote_close(r);

    setenv("AWS_PROFILE", "missing", 1);
    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "profile missing not found"));
}

static void test_profile_assume_role(void **state)
{
    (void)state;
    write_file("credentials", "[base]\naws_access_key_id = AKIABASE001\naws_secret_access_key = base-secret\n");
    write_file("config", "[profile app]\nrole_arn = arn:aws:iam::123456789012:role/app\nsource_profile = base\n"
                         "role_session_name = test-session\n");
    ctl0("/_ctl?akid=AKIABASE001&secret=base-secret");
    setenv("AWS_PROFILE", "app", 1);
    ddb_remote *r = open_ok(NULL);
    json_t *e = last_of("sts", 0);
    assert_string_equal(json_string_value(json_object_get(e, "action")), "AssumeRole");
    assert_string_equal(json_string_value(json_object_get(e, "akid")), "AKIABASE001");
    assert_true(json_is_true(json_object_get(e, "sig_ok"))); /* STS request signed as botocore signs it */
    json_decref(e);
    list_signed_by(r, "ASIASTS");
    ddbi_remote_close(r);

    /* STS refusing is the open's error */
    write_file("config", "[profile app]\nrole_arn = arn:aws:iam::123456789012:role/app\nsource_profile = nokeys\n"
                         "[profile nokeys]\nregion = x\n");
    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "nokeys has no credentials"));
}

static void test_profile_process(void **state)
{
    (void)state;
    write_file("config", "[default]\ncredential_process = printf '{\"Version\": 1, \"AccessKeyId\": \"AKIAPROC001\", "
                         "\"SecretAccessKey\": \"proc-secret\", \"SessionToken\": \"proc-token\", "
                         "\"Expiration\": \"2099-01-01T00:00:00Z\"}'\n");
    ctl0("/_ctl?akid=AKIAPROC001&secret=proc-secret");
    ddb_remote *r = open_ok(NULL);
    list_signed_by(r, "AKIAPROC");
    ddbi_remote_close(r);

    write_file("config", "[default]\ncredential_process = sh -c 'exit 3'\n");
    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "exit status 3"));
}

static void test_web_identity(void **state)
{
    (void)state;
    write_file("token", WEB_TOKEN "\n");
    char p[512];
    snprintf(p, sizeof p, "%s/token", dir);
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", p, 1);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/eks", 1);
    ddb_remote *r = open_ok(NULL);
    assert_string_equal(ddbi_remote_cred_source(r), "web identity");
    json_t *e = last_of("sts", 0);
    assert_string_equal(json_string_value(json_object_get(e, "action")), "AssumeRoleWithWebIdentity");
    json_decref(e);
    list_signed_by(r, "ASIASTS");
    ddbi_remote_close(r);

    /* configured but the token file is missing: an error, not the next source */
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "/nonexistent/token", 1);
    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EIO);
    assert_int_equal(err.code, DDB_EIO);
    assert_non_null(strstr(err.message, "/nonexistent/token"));
}

static void set_container(void)
{
    char p[512];
    snprintf(p, sizeof p, "http://127.0.0.1:%d/container/creds", port);
    setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", p, 1);
    write_file("auth", CONTAINER_AUTH "\n");
    snprintf(p, sizeof p, "%s/auth", dir);
    setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", p, 1);
}

static void test_container(void **state)
{
    (void)state;
    set_container();
    ddb_remote *r = open_ok(NULL);
    assert_string_equal(ddbi_remote_cred_source(r), "container");
    list_signed_by(r, "ASIACONT");
    ddbi_remote_close(r);

    setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/creds", 1);
    ddb_error err = {0};
    ddb_remote *r2 = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r2, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "must be https or name a loopback"));
}

static void set_imds(void)
{
    char p[128];
    snprintf(p, sizeof p, "http://127.0.0.1:%d", port);
    unsetenv("AWS_EC2_METADATA_DISABLED");
    setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", p, 1);
}

static void test_imds(void **state)
{
    (void)state;
    set_imds();
    size_t before = log_len();
    ddb_remote *r = open_ok(NULL);
    assert_string_equal(ddbi_remote_cred_source(r), "instance metadata");
    json_t *l = ctl("/_log");
    /* a session token first, then the role's credentials with it */
    assert_string_equal(json_string_value(json_object_get(json_array_get(l, before), "kind")), "imds-token");
    assert_string_equal(json_string_value(json_object_get(json_array_get(l, before + 1), "kind")), "imds");
    json_decref(l);
    list_signed_by(r, "ASIAIMDS");
    ddbi_remote_close(r);
}

/* Answers that are not credentials: clear errors, nothing half-set. */
static void test_bad_answers(void **state)
{
    (void)state;
    ddbi_creds c = {0};
    ddb_error err = {0};
    assert_int_equal(ddbi_creds_from_json("x", "not json", 8, &c, &err), DDB_EINVAL);
    static const char noerr[] = "{\"Code\":\"AssumeRoleUnauthorizedAccess\",\"Message\":\"no role\"}";
    assert_int_equal(ddbi_creds_from_json("imds", noerr, strlen(noerr), &c, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "AssumeRoleUnauthorizedAccess: no role"));
    static const char badexp[] = "{\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\",\"Expiration\":\"soon\"}";
    assert_int_equal(ddbi_creds_from_json("x", badexp, strlen(badexp), &c, &err), DDB_EINVAL);
    static const char v2[] = "{\"Version\":2,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"}";
    assert_int_equal(ddbi_creds_from_json("credential_process", v2, strlen(v2), &c, &err), DDB_EINVAL);
    assert_null(c.akid);
    static const char nocred[] = "<AssumeRoleResponse><AssumeRoleResult></AssumeRoleResult></AssumeRoleResponse>";
    assert_int_equal(ddbi_creds_from_sts_xml("sts", nocred, strlen(nocred), &c, &err), DDB_EINVAL);
    static const char ent[] = "<R><Credentials><AccessKeyId>AK</AccessKeyId><SecretAccessKey>a&amp;b&lt;c"
                              "</SecretAccessKey><SessionToken>t</SessionToken>"
                              "<Expiration>2030-01-01T00:00:00Z</Expiration></Credentials></R>";
    assert_int_equal(ddbi_creds_from_sts_xml("sts", ent, strlen(ent), &c, &err), 0);
    assert_string_equal(c.secret, "a&b<c"); /* XML entities decoded */
    assert_int_equal(c.expires, 1893456000);
    ddbi_creds_clear(&c);
    char text[100];
    static const char er[] = "<ErrorResponse><Error><Code>ExpiredTokenException</Code><Message>Token expired"
                             "</Message></Error></ErrorResponse>";
    ddbi_sts_error_text(er, strlen(er), text, sizeof text);
    assert_string_equal(text, "ExpiredTokenException: Token expired");

    /* the container endpoint failing on the first fetch fails the open */
    set_container();
    ctl0("/_ctl?mode=fail");
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/", port);
    ddb_remote *r = NULL;
    assert_int_equal(ddbi_remote_open_with(uri, NULL, &r, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "HTTP 500"));
}

/* ---- The chain -------------------------------------------------------------------- */

static void test_chain_order(void **state)
{
    (void)state;
    set_imds();
    set_container();
    write_file("credentials", "[default]\naws_access_key_id = AKIAPROF001\naws_secret_access_key = prof\n");
    write_file("token", WEB_TOKEN);
    char p[512];
    snprintf(p, sizeof p, "%s/token", dir);
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", p, 1);
    setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/eks", 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV0002", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env2", 1);
    /* each source in turn, taken away after it was chosen */
    static const char *const expect[] = {"environment", "web identity", "profile default", "container",
                                         "instance metadata"};
    for (int i = 0; i < 5; i++) {
        ddb_remote *r = open_ok(NULL);
        assert_string_equal(ddbi_remote_cred_source(r), expect[i]);
        ddbi_remote_close(r);
        if (i == 0) {
            unsetenv("AWS_ACCESS_KEY_ID");
            unsetenv("AWS_SECRET_ACCESS_KEY");
        } else if (i == 1) {
            unsetenv("AWS_WEB_IDENTITY_TOKEN_FILE");
        } else if (i == 2) {
            write_file("credentials", "");
        } else {
            unsetenv("AWS_CONTAINER_CREDENTIALS_FULL_URI");
        }
    }
}

static void test_nothing_found_names_every_source(void **state)
{
    (void)state;
    ddb_remote *r = NULL;
    ddb_error err = {0};
    assert_int_equal(ddbi_remote_open_with("https://dynamodb.eu-west-1.amazonaws.com", NULL, &r, &err), DDB_EINVAL);
    static const char *const sources[] = {"explicit settings", "environment", "web identity", "shared files",
                                          "container", "instance metadata"};
    for (size_t i = 0; i < 6; i++)
        if (!strstr(err.message, sources[i]))
            fail_msg("%s not named in: %s", sources[i], err.message);
}

/* ---- Refresh ------------------------------------------------------------------------ */

typedef struct lister {
    ddb_remote *r;
    int rc;
    char akid[64];
} lister;

static void *list_thread(void *arg)
{
    lister *l = arg;
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    ddb_error err = {0};
    l->rc = ddbi_remote_list_tables(l->r, a, &names, &n, &err);
    ddb_arena_free(a);
    return NULL;
}

static void test_refresh_does_not_block_others(void **state)
{
    (void)state;
    set_container();
    ctl0("/_ctl?expiry=120"); /* inside the refresh window: every use wants a refresh */
    ddb_remote *r = open_ok(NULL);
    json_t *e = last_of("container", 0);
    json_decref(e);
    ctl0("/_ctl?mode=hang");
    lister a = {r, -1, ""};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, list_thread, &a), 0);
    /* wait until that thread's refresh is stuck in the container endpoint */
    for (;;) {
        json_t *c = last_of("container", 0);
        bool hanging = c && strcmp(json_string_value(json_object_get(c, "mode")), "hang") == 0;
        json_decref(c);
        if (hanging)
            break;
        usleep(10000);
    }
    /* meanwhile, other requests go on with the cached credentials */
    for (int i = 0; i < 3; i++)
        list_signed_by(r, "ASIACONT");
    ctl0("/_ctl?mode=ok");
    ctl0("/_release");
    pthread_join(t, NULL);
    assert_int_equal(a.rc, 0);
    ddbi_remote_close(r);
}

static size_t count_of(const char *kind)
{
    json_t *l = ctl("/_log");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(l); i++)
        n += strcmp(json_string_value(json_object_get(json_array_get(l, i), "kind")), kind) == 0;
    json_decref(l);
    return n;
}

static void test_refresh_when_due_not_at_every_request(void **state)
{
    (void)state;
    set_container();
    ctl0("/_ctl?expiry=120"); /* every answer is already inside the refresh window */
    ddb_remote *r = open_ok(NULL);
    size_t fetched = count_of("container");
    list_signed_by(r, "ASIACONT"); /* due: refreshed once */
    assert_int_equal(count_of("container"), fetched + 1);
    for (int i = 0; i < 3; i++)
        list_signed_by(r, "ASIACONT"); /* the fresh ones are due too: not asked again at once */
    assert_int_equal(count_of("container"), fetched + 1);
    ddbi_remote_close(r);
}

static void test_failed_refresh_keeps_valid_credentials(void **state)
{
    (void)state;
    set_container();
    ctl0("/_ctl?expiry=120");
    ddb_remote *r = open_ok(NULL);
    ctl0("/_ctl?mode=fail");
    list_signed_by(r, "ASIACONT"); /* the refresh failed, the cached credentials still serve */
    json_t *c = last_of("container", 0);
    assert_string_equal(json_string_value(json_object_get(c, "mode")), "fail");
    json_decref(c);
    ddbi_remote_close(r);

    /* credentials that expired: the failed refresh is the request's error */
    ctl0("/_ctl?mode=ok&expiry=5");
    r = open_ok(NULL);
    ctl0("/_ctl?mode=fail");
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    ddb_error err = {0};
    assert_int_not_equal(ddbi_remote_list_tables(r, a, &names, &n, &err), 0);
    assert_non_null(strstr(err.message, "expired and refreshing them failed"));
    ddb_arena_free(a);
    ddbi_remote_close(r);
}

/* ---- Retry modes and metrics -------------------------------------------------------- */

typedef struct seen {
    unsigned calls, attempts, throttles;
    long status;
    int result;
    char op[32], table[32];
    double capacity;
} seen;

static void on_request(const ddb_request_metrics *m, void *ctx)
{
    seen *s = ctx;
    s->calls++;
    s->attempts = m->attempts;
    s->throttles = m->throttles;
    s->status = m->http_status;
    s->result = m->result;
    s->capacity = m->consumed_capacity;
    snprintf(s->op, sizeof s->op, "%s", m->operation);
    snprintf(s->table, sizeof s->table, "%s", m->table ? m->table : "");
}

static ddb_remote *open_with_metrics(seen *s, const char *mode)
{
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/?retry_base_ms=1&retry_cap_ms=2", port);
    ddb_remote_options o = {0};
    o.on_request = on_request;
    o.on_request_ctx = s;
    o.retry_mode = mode;
    ddb_remote *r = NULL;
    ddb_error err = {0};
    if (ddbi_remote_open_with(uri, &o, &r, &err))
        fail_msg("open: %s", err.message);
    return r;
}

static int list(ddb_remote *r, ddb_error *err)
{
    ddb_arena *a = ddb_arena_new();
    const char **names;
    size_t n;
    int rc = ddbi_remote_list_tables(r, a, &names, &n, err);
    ddb_arena_free(a);
    return rc;
}

static void test_metrics_callback(void **state)
{
    (void)state;
    seen s = {0};
    ddb_remote *r = open_with_metrics(&s, NULL);
    ddb_error err = {0};
    ctl0("/_ctl?throttle=2");
    assert_int_equal(list(r, &err), 0);
    assert_int_equal(s.calls, 1);
    assert_string_equal(s.op, "ListTables");
    assert_string_equal(s.table, "");
    assert_int_equal(s.attempts, 3);
    assert_int_equal(s.throttles, 2);
    assert_int_equal(s.status, 200);
    assert_int_equal(s.result, 0);

    ddb_arena *a = ddb_arena_new();
    ddb_item *item = ddb_item_new(a);
    assert_non_null(item);
    ddb_item_set_s(item, "Artist", "No One You Know");
    ddb_write_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(ddbi_remote_put_item(r, "Music", item, NULL, a, &res, &err), 0);
    assert_int_equal(s.calls, 2);
    assert_string_equal(s.op, "PutItem");
    assert_string_equal(s.table, "Music");
    assert_true(s.capacity == 1.0);
    ddb_arena_free(a);
    ddbi_remote_close(r);
}

static void test_retry_standard_quota(void **state)
{
    (void)state;
    seen s = {0};
    ddb_remote *r = open_with_metrics(&s, "standard");
    ddb_error err = {0};
    ctl0("/_ctl?throttle=100000");
    /* standard: 3 attempts by default; each failed request spends 2 retries x 5 tokens of 500 */
    for (int i = 0; i < 50; i++) {
        assert_int_equal(list(r, &err), DDB_ETHROTTLED);
        assert_int_equal(s.attempts, 3);
    }
    assert_int_equal(ddbi_retry_quota(ddbi_remote_retry(r)), 0);
    assert_int_equal(list(r, &err), DDB_ETHROTTLED);
    assert_int_equal(s.attempts, 1); /* the quota is spent: no retry */
    assert_non_null(strstr(err.message, "retry quota"));
    ctl0("/_ctl?throttle=0");
    assert_int_equal(list(r, &err), 0);
    assert_int_equal(ddbi_retry_quota(ddbi_remote_retry(r)), 1); /* a success without retry gives 1 back */
    ddbi_remote_close(r);
}

static void test_retry_adaptive_limits_rate(void **state)
{
    (void)state;
    seen s = {0};
    ddb_remote *r = open_with_metrics(&s, "adaptive");
    ddb_error err = {0};
    assert_true(ddbi_retry_send_rate(ddbi_remote_retry(r)) == 0); /* no limit before a throttle */
    ctl0("/_ctl?throttle=2");
    assert_int_equal(list(r, &err), 0);
    assert_int_equal(s.throttles, 2);
    double rate = ddbi_retry_send_rate(ddbi_remote_retry(r));
    assert_true(rate > 0); /* throttling switched the client-side rate limiter on */
    ddbi_remote_close(r);
}

/* Proxies and the CA bundle reach libcurl: http_proxy / no_proxy as curl
 * reads them, AWS_CA_BUNDLE as CURLOPT_CAINFO. */
static void test_proxy_and_ca_bundle(void **state)
{
    (void)state;
    setenv("AWS_ACCESS_KEY_ID", "AKIAPROXY01", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "proxy", 1);
    ctl0("/_ctl?akid=AKIAPROXY01&secret=proxy");
    char p[128];
    snprintf(p, sizeof p, "http://127.0.0.1:%d", port);
    setenv("http_proxy", p, 1);
    ddb_remote *r = NULL;
    ddb_error err = {0};
    assert_int_equal(ddbi_remote_open_with("http://dynamodb.invalid:8000", NULL, &r, &err), 0);
    list_signed_by(r, "AKIAPROXY");
    json_t *e = last_of("dynamodb", 0);
    assert_true(json_is_true(json_object_get(e, "proxied")));
    assert_string_equal(json_string_value(json_object_get(e, "host")), "dynamodb.invalid:8000");
    json_decref(e);
    ddbi_remote_close(r);

    setenv("no_proxy", "dynamodb.invalid", 1); /* direct: the name does not resolve */
    assert_int_equal(ddbi_remote_open_with("http://dynamodb.invalid:8000", NULL, &r, &err), 0);
    assert_int_equal(list(r, &err), DDB_ENET);
    ddbi_remote_close(r);
    unsetenv("http_proxy");
    unsetenv("no_proxy");

    setenv("AWS_CA_BUNDLE", "/nonexistent/ca-bundle.pem", 1);
    snprintf(p, sizeof p, "https://127.0.0.1:%d", port);
    assert_int_equal(ddbi_remote_open_with(p, NULL, &r, &err), 0);
    assert_int_equal(list(r, &err), DDB_ENET);
    if (!strstr(err.message, "/nonexistent/ca-bundle.pem"))
        fail_msg("the CA bundle is not named: %s", err.message);
    ddbi_remote_close(r);
}

/* ---- Configuration ------------------------------------------------------------------- */

static void test_endpoint_and_region_from_configuration(void **state)
{
    (void)state;
    char p[128];
    snprintf(p, sizeof p, "http://127.0.0.1:%d", port);
    setenv("AWS_ENDPOINT_URL_DYNAMODB", p, 1);
    setenv("AWS_REGION", "ap-south-1", 1);
    ddb *db = NULL;
    ddb_error err = {0};
    assert_int_equal(ddb_open_remote(NULL, NULL, &db, &err), 0);
    const char **names;
    size_t n;
    ddb_arena *a = ddb_arena_new();
    assert_int_equal(ddb_list_tables(db, a, &names, &n, &err), 0);
    ddb_arena_free(a);
    ddb_close(db);

    unsetenv("AWS_ENDPOINT_URL_DYNAMODB");
    /* service-specific endpoints of the config file: [services NAME] with a
     * nested dynamodb setting, over the profile's global endpoint_url */
    char cfgtext[512];
    snprintf(cfgtext, sizeof cfgtext,
             "[default]\nservices = local\nendpoint_url = http://127.0.0.1:1/\n"
             "[services local]\ns3 =\n  endpoint_url = http://127.0.0.1:2/\n"
             "dynamodb =\n  endpoint_url = http://127.0.0.1:%d/\n",
             port);
    write_file("config", cfgtext);
    ddb_remote *rs = NULL;
    assert_int_equal(ddbi_remote_open_with(NULL, NULL, &rs, &err), 0);
    snprintf(p, sizeof p, "http://127.0.0.1:%d/", port);
    assert_string_equal(ddbi_remote_endpoint(rs), p);
    ddbi_remote_close(rs);
    write_file("config", "[default]\nendpoint_url = http://127.0.0.1:1/\n");
    assert_int_equal(ddbi_remote_open_with(NULL, NULL, &rs, &err), 0);
    assert_string_equal(ddbi_remote_endpoint(rs), "http://127.0.0.1:1/");
    ddbi_remote_close(rs);
    write_file("config", "");

    setenv("AWS_ACCESS_KEY_ID", "AKIAX", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "x", 1);
    write_file("config", "[default]\nuse_fips_endpoint = true\n");
    ddb_remote *r = NULL;
    assert_int_equal(ddbi_remote_open_with("dynamodb://us-west-2", NULL, &r, &err), 0);
    assert_string_equal(ddbi_remote_endpoint(r), "https://dynamodb-fips.us-west-2.amazonaws.com/");
    ddbi_remote_close(r);
    setenv("AWS_USE_DUALSTACK_ENDPOINT", "true", 1);
    write_file("config", "");
    assert_int_equal(ddbi_remote_open_with(NULL, NULL, &r, &err), 0);
    assert_string_equal(ddbi_remote_endpoint(r), "https://dynamodb.ap-south-1.api.aws/");
    ddbi_remote_close(r);
    setenv("AWS_MAX_ATTEMPTS", "0", 1);
    assert_int_equal(ddbi_remote_open_with(NULL, NULL, &r, &err), DDB_EINVAL);
    assert_non_null(strstr(err.message, "max_attempts"));
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    snprintf(dir, sizeof dir, "/tmp/ddb-creds-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    int fds[2];
    if (pipe(fds))
        return 1;
    standin_pid = fork();
    if (standin_pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execlp("python3", "python3", STANDIN_PY, CONTAINER_AUTH, WEB_TOKEN, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    if (!f || fscanf(f, "%d", &port) != 1) {
        fprintf(stderr, "the AWS stand-in (python3 with botocore) did not start\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_ini_edge_cases, setup),
        cmocka_unit_test_setup(test_ini_more_edge_cases, setup),
        cmocka_unit_test_setup(test_iso8601, setup),
        cmocka_unit_test_setup(test_role_chain_and_sources, setup),
        cmocka_unit_test_setup(test_uri_options_and_expiration_variable, setup),
        cmocka_unit_test_setup(test_ddb_verbose, setup),
        cmocka_unit_test_setup(test_env, setup),
        cmocka_unit_test_setup(test_profile_static, setup),
        cmocka_unit_test_setup(test_profile_assume_role, setup),
        cmocka_unit_test_setup(test_profile_process, setup),
        cmocka_unit_test_setup(test_web_identity, setup),
        cmocka_unit_test_setup(test_container, setup),
        cmocka_unit_test_setup(test_imds, setup),
        cmocka_unit_test_setup(test_bad_answers, setup),
        cmocka_unit_test_setup(test_chain_order, setup),
        cmocka_unit_test_setup(test_nothing_found_names_every_source, setup),
        cmocka_unit_test_setup(test_refresh_does_not_block_others, setup),
        cmocka_unit_test_setup(test_refresh_when_due_not_at_every_request, setup),
        cmocka_unit_test_setup(test_failed_refresh_keeps_valid_credentials, setup),
        cmocka_unit_test_setup(test_metrics_callback, setup),
        cmocka_unit_test_setup(test_retry_standard_quota, setup),
        cmocka_unit_test_setup(test_retry_adaptive_limits_rate, setup),
        cmocka_unit_test_setup(test_endpoint_and_region_from_configuration, setup),
        cmocka_unit_test_setup(test_proxy_and_ca_bundle, setup),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kill(standin_pid, SIGTERM);
    waitpid(standin_pid, NULL, 0);
    fclose(f);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return rc;
}
