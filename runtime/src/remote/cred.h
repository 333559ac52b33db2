/* remote/: AWS credentials and shared configuration for the remote backend
 * (internal): the shared files' profiles (cred_ini.c), the sources of the
 * standard chain (cred_env.c, cred_sts.c, cred_profile.c, cred_process.c,
 * cred_container.c, cred_imds.c), their small HTTP client (cred_http.c)
 * and response parsing (cred_parse.c), and the chain with its refreshing
 * cache (cred_chain.c).  These files may call core/ (errors), sigv4.h,
 * libcurl and jansson; nothing here knows DynamoDB. */
#ifndef DDB_REMOTE_CRED_H
#define DDB_REMOTE_CRED_H

#include <ddb/ddb.h>

#include <stdbool.h>
#include <stdint.h>

/* ---- Credentials -------------------------------------------------------------- */

typedef struct ddbi_creds {
    char *akid, *secret, *token; /* token NULL for long-term keys */
    int64_t expires;             /* Unix seconds; 0: never */
} ddbi_creds;

/* Copies of the strings into c (cleared first).  DDB_EINVAL when akid or
 * secret is missing or empty (what names the source). */
int ddbi_creds_set(ddbi_creds *c, const char *what, const char *akid, const char *secret, const char *token,
                   int64_t expires, ddb_error *err);
int ddbi_creds_copy(ddbi_creds *dst, const ddbi_creds *src, ddb_error *err);
/* Wipe the secret and free. */
void ddbi_creds_clear(ddbi_creds *c);

/* ---- Shared config and credentials files (cred_ini.c) ------------------------------ */

/* Bounds: a file of at most 1 MiB, 4096 settings per profile. */
#define DDBI_INI_MAX_FILE (1u << 20)

/* The settings of one profile: the config file's [profile NAME] (or
 * [default]) overlaid by the credentials file's [NAME]. */
typedef struct ddbi_profile {
    char *name;
    char **keys, **vals; /* keys lower-cased; n entries */
    size_t n;
    bool found;          /* some file has the section */
} ddbi_profile;

/* Where the files are: AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE or
 * ~/.aws/config / ~/.aws/credentials (a leading "~/" is $HOME). */
typedef struct ddbi_aws_files {
    char *config, *credentials;
} ddbi_aws_files;

int ddbi_aws_files_init(ddbi_aws_files *f, ddb_error *err);
void ddbi_aws_files_free(ddbi_aws_files *f);

/* Parse text (len bytes) as an AWS shared file and add the settings of
 * section name to p.  prefix: the config file's naming: "profile"
 * ([profile NAME], [default]) or "services" ([services NAME]); NULL: the
 * credentials file's ([NAME]).  overwrite:
 * replace settings p already has.  path names the file in errors:
 * DDB_EINVAL for a line that is neither a section, a setting, a comment nor
 * a continuation. */
int ddbi_ini_parse(const char *text, size_t len, const char *path, const char *prefix, const char *name,
                   bool overwrite, ddbi_profile *p, ddb_error *err);
/* Load profile name from both files (a missing file is no error).
 * Credentials file settings win. */
int ddbi_profile_load(const ddbi_aws_files *f, const char *name, ddbi_profile *p, ddb_error *err);
/* The config file's [services name] section (service-specific settings,
 * each a nested value: "dynamodb =\n  endpoint_url = ..."). */
int ddbi_services_load(const ddbi_aws_files *f, const char *name, ddbi_profile *p, ddb_error *err);
/* key's value inside a nested value ("\nendpoint_url = x\n...") into out;
 * -1 when absent or longer than cap - 1. */
int ddbi_ini_nested(const char *value, const char *key, char *out, size_t cap);
/* A setting, NULL when absent (or empty). */
const char *ddbi_profile_get(const ddbi_profile *p, const char *key);
void ddbi_profile_free(ddbi_profile *p);

/* ---- Parsing responses (cred_parse.c) --------------------------------------------- */

/* "2016-02-25T06:03:31Z" (fraction and +HH:MM offsets accepted) -> Unix seconds. */
int ddbi_iso8601_parse(const char *s, int64_t *out);
/* The JSON the container endpoint, IMDS and credential_process answer:
 * AccessKeyId, SecretAccessKey, Token or SessionToken, Expiration. */
int ddbi_creds_from_json(const char *what, const char *body, size_t len, ddbi_creds *c, ddb_error *err);
/* STS's XML answer to AssumeRole / AssumeRoleWithWebIdentity. */
int ddbi_creds_from_sts_xml(const char *what, const char *body, size_t len, ddbi_creds *c, ddb_error *err);
/* STS's <ErrorResponse>: "Code: Message" into out (empty when none). */
void ddbi_sts_error_text(const char *body, size_t len, char *out, size_t cap);

/* ---- HTTP for the credential sources (cred_http.c) --------------------------------- */

#define DDBI_CRED_MAX_BODY (64u << 10)

typedef struct ddbi_cred_reply {
    long status;
    char *body; /* NUL-terminated; at most DDBI_CRED_MAX_BODY bytes */
    size_t len;
} ddbi_cred_reply;

/* One request: method "GET" / "PUT" / "POST", header lines "Name: value",
 * body (NULL: none).  Never through a proxy for link-local and loopback
 * hosts.  Any HTTP status is DDB_OK; DDB_ENET / DDB_ETIMEOUT with curl's
 * text otherwise (what names the source). */
int ddbi_cred_http(const char *what, const char *method, const char *url, const char *const *headers,
                   size_t n_headers, const char *body, long timeout_ms, ddbi_cred_reply *rep, ddb_error *err);
void ddbi_cred_reply_free(ddbi_cred_reply *rep);

/* ---- The sources ------------------------------------------------------------------- */

/* What the sources are given. */
typedef struct ddbi_cred_ctx {
    const ddbi_aws_files *files;
    const char *profile; /* the profile's name */
    bool profile_named;  /* by AWS_PROFILE or the options: it must exist */
    const char *region;  /* for STS */
    long timeout_ms;     /* for network sources */
    bool local;          /* an http:// endpoint: network sources only when named */
} ddbi_cred_ctx;

/* Every source returns DDB_OK with credentials, DDB_ENOTFOUND when it is
 * not configured (err->message says why: the chain quotes it), or the
 * error of a configured source that failed. */
typedef int (*ddbi_cred_source_fn)(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);

int ddbi_cred_env(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);
int ddbi_cred_web_identity(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);
/* arg: the profile name (NULL: ctx->profile). */
int ddbi_cred_profile(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);
int ddbi_cred_container(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);
int ddbi_cred_imds(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);
/* arg: the command line (run with /bin/sh -c). */
int ddbi_cred_process(const ddbi_cred_ctx *ctx, const void *arg, ddbi_creds *out, ddb_error *err);

/* STS (cred_sts.c): the endpoint is AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL
 * or https://sts.REGION.amazonaws.com (.cn in China). */
typedef struct ddbi_sts_role {
    const char *role_arn, *session_name, *external_id;
    uint32_t duration_s; /* 0: STS's default */
} ddbi_sts_role;
int ddbi_sts_assume_role(const ddbi_cred_ctx *ctx, const ddbi_creds *with, const ddbi_sts_role *role,
                         ddbi_creds *out, ddb_error *err);
int ddbi_sts_assume_role_web_identity(const ddbi_cred_ctx *ctx, const ddbi_sts_role *role, const char *token,
                                      ddbi_creds *out, ddb_error *err);

/* A bounded read of a whole small file (token files): DDB_ENOTFOUND when
 * it does not exist, DDB_EIO when unreadable, DDB_ELIMIT when over max. */
int ddbi_read_small_file(const char *what, const char *path, size_t max, char **out, size_t *len, ddb_error *err);
/* A source that is configured cannot answer "not configured": turns
 * DDB_ENOTFOUND into code (in err too); other results pass through. */
int ddbi_cred_required(ddb_error *err, int rc, int code);
/* A non-empty environment variable or NULL. */
const char *ddbi_env(const char *name);

/* ---- The chain and its cache (cred_chain.c) --------------------------------------- */

typedef struct ddbi_cred_cache ddbi_cred_cache;

/* Seconds before expiry when a refresh is due, and when cached
 * credentials stop being used. */
#define DDBI_CRED_REFRESH_S 300
#define DDBI_CRED_MARGIN_S 10

/* Resolve the chain (explicit may be NULL) and fetch once.  The context's
 * strings are copied.  DDB_EINVAL naming every source tried when none has
 * credentials; with allow_none (a local endpoint) *out is NULL then. */
int ddbi_cred_chain_open(const ddbi_cred_ctx *ctx, const ddbi_creds *explicit_creds, bool allow_none,
                         ddbi_cred_cache **out, ddb_error *err);
void ddbi_cred_cache_free(ddbi_cred_cache *c);
/* Credentials to sign one request with (a copy: ddbi_creds_clear it). */
int ddbi_cred_cache_get(ddbi_cred_cache *c, ddbi_creds *out, ddb_error *err);
/* The source in use ("environment", "profile dev", ...). */
const char *ddbi_cred_cache_source(const ddbi_cred_cache *c);

#endif
