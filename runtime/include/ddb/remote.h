/* <ddb/remote.h> — opening the remote backend with explicit settings.
 *
 * ddb_open("dynamodb://eu-west-1", ...) and ddb_open("http://host:port",
 * ...) reach DynamoDB or a compatible endpoint with every setting taken
 * from the URI's query, the environment and the shared AWS files, as the
 * AWS SDKs take them.  ddb_open_remote() does the same with settings given
 * in code first: a field left zero / NULL falls back to the URI, then to
 * the environment and the shared files, then to the default.
 * docs/REMOTE.md lists every setting with its environment variable and
 * profile key.
 *
 * Credentials come from the first source of the AWS SDKs' standard chain
 * that has them:
 *   1. explicit: access_key_id + secret_access_key (+ session_token) below
 *      or in the URI's query;
 *   2. environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN;
 *   3. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
 *      (AWS_ROLE_SESSION_NAME) -> STS AssumeRoleWithWebIdentity (EKS IRSA);
 *   4. the shared files (~/.aws/credentials, ~/.aws/config; AWS_PROFILE,
 *      AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE): static keys,
 *      role_arn with source_profile / credential_source -> STS AssumeRole,
 *      credential_process;
 *   5. the container endpoint (ECS, EKS Pod Identity):
 *      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI, with
 *      AWS_CONTAINER_AUTHORIZATION_TOKEN or _TOKEN_FILE;
 *   6. EC2 instance metadata with IMDSv2 session tokens (unless
 *      AWS_EC2_METADATA_DISABLED=true; AWS_EC2_METADATA_SERVICE_ENDPOINT).
 * The source is resolved once, when the handle is opened; temporary
 * credentials are refreshed from it before they expire (by one thread,
 * while the others keep signing with the valid ones), and a failed refresh
 * keeps the cached credentials until they expire.  When no source has
 * credentials, opening fails with DDB_EINVAL and a message naming every
 * source tried and why it had none.  An http:// endpoint (dynalite, a local
 * Alternator) without credentials gets a fixed dummy pair instead, and
 * consults the network sources (3, 5, 6) only when their environment
 * variables name them.
 */
#ifndef DDB_REMOTE_PUBLIC_H
#define DDB_REMOTE_PUBLIC_H

#include <ddb/ddb.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libddb.so, like every public declaration (see ddb.h). */
#pragma GCC visibility push(default)

/* What one request did, given to ddb_remote_options.on_request once per
 * request (after its last attempt), from the thread that made it. */
typedef struct ddb_request_metrics {
    const char *operation;     /* DynamoDB's name: "PutItem", "Query", ... */
    const char *table;         /* TableName, the first table of a batch or transaction; NULL when none */
    long http_status;          /* of the last attempt; 0 when no response came (network failure) */
    int result;                /* DDB_OK or the DDB_E* code the request ended with */
    unsigned attempts;         /* attempts sent (1 = no retry) */
    unsigned throttles;        /* attempts answered with a throttling error */
    uint64_t latency_us;       /* from the first attempt to the end, backoff included */
    double consumed_capacity;  /* CapacityUnits the response reported (0 when it reported none) */
} ddb_request_metrics;

typedef void (*ddb_request_fn)(const ddb_request_metrics *m, void *ctx);

/* Settings of a remote handle.  Zero / NULL: the URI's query parameter of
 * the same name (?region=eu-west-1&timeout_ms=2000), then the environment
 * and the profile, then the default shown. */
typedef struct ddb_remote_options {
    const char *region;            /* AWS_REGION, AWS_DEFAULT_REGION, profile region; dynamodb://REGION; "us-east-1" */
    const char *profile;           /* AWS_PROFILE; "default" */
    const char *access_key_id;     /* explicit credentials (the chain above otherwise) */
    const char *secret_access_key;
    const char *session_token;
    const char *retry_mode;        /* "legacy" (default), "standard", "adaptive"; AWS_RETRY_MODE, profile retry_mode */
    uint32_t connect_timeout_ms;   /* 3000 */
    uint32_t timeout_ms;           /* 30000: one attempt of one request, all included */
    uint32_t max_attempts;         /* AWS_MAX_ATTEMPTS, profile max_attempts; 10 (legacy) or 3 */
    uint32_t retry_base_ms;        /* 25: delay before retry n is uniform in [0, min(cap, base * 2^n)] */
    uint32_t retry_cap_ms;         /* 5000 (legacy), 20000 (standard, adaptive) */
    uint32_t table_wait_ms;        /* 120000: CreateTable/DeleteTable wait for ACTIVE / gone */
    uint32_t pool;                 /* 8: idle connections kept (more are opened when needed) */
    ddb_request_fn on_request;     /* called once per request (NULL: none) */
    void *on_request_ctx;
    /* The handle's clock (ddb_clock_ms: created-at / updated-at stamps of
     * the entity layer), as ddb_options.clock_ms; NULL: the system clock.
     * Request signing always uses the system clock (DynamoDB refuses a
     * signature more than 5 minutes off). */
    int64_t (*clock_ms)(void *clock_ctx);
    void *clock_ctx;
} ddb_remote_options;

/* Open the remote backend.  uri: http://HOST[:PORT][/PATH][?OPTIONS],
 * https://..., dynamodb://REGION[?OPTIONS], or NULL: the endpoint from
 * AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL or the profile's
 * endpoint_url, else DynamoDB in the region (FIPS / dual-stack when
 * use_fips_endpoint / use_dualstack_endpoint ask for it).  ro may be NULL.
 * DDB_EINVAL for a malformed URI or setting, or no credentials (the
 * message names every source tried); the error of a source that is
 * configured but fails (an STS error, a credential_process exit status,
 * an unreadable token file); DDB_ENOMEM. */
int ddb_open_remote(const char *uri, const ddb_remote_options *ro, ddb **out, ddb_error *err);

/* ---- SigV4, for servers that check what clients sign ----------------------- */

typedef struct ddb_http_header {
    const char *name;  /* any case */
    const char *value;
} ddb_http_header;

/* A request as its signer saw it (AWS's "Create a signed AWS API request"). */
typedef struct ddb_sigv4_input {
    const char *method;              /* "POST" */
    const char *path;                /* URI-encoded path, "/" when empty */
    const char *query;               /* URI-encoded query without '?'; NULL or "" when none */
    const ddb_http_header *headers;  /* the signed headers (SignedHeaders), with their values */
    size_t n_headers;
    const void *payload;
    size_t payload_len;
    const char *access_key_id;
    const char *secret_access_key;
    const char *region;              /* of the credential scope */
    const char *service;             /* of the credential scope ("dynamodb") */
    const char *amz_date;            /* X-Amz-Date, "YYYYMMDDTHHMMSSZ" */
} ddb_sigv4_input;

/* The SigV4 signature of the request (64 lower-case hex digits + NUL into
 * out): what the remote backend's signer puts after "Signature=", so a
 * server compares it with the client's.  DDB_EINVAL for a malformed date,
 * missing parts or more than 64 headers; DDB_ENOMEM. */
int ddb_sigv4_signature(const ddb_sigv4_input *in, char out[65], ddb_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
