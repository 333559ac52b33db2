/* remote/: the remote backend's settings from the environment and the
 * shared config file, as the AWS SDKs read them: the profile (AWS_PROFILE),
 * region, endpoint URL (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL,
 * [services NAME] dynamodb endpoint_url, endpoint_url), retry_mode, max_attempts, ca_bundle, and the FIPS and
 * dual-stack DynamoDB endpoints.  The environment wins over the profile.
 * May call core/ and cred.h. */
#include "remote/remote_config.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ddbi_remote_config_load(const char *profile, ddbi_remote_config *cfg, ddb_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    const char *name = profile && *profile ? profile : ddbi_env("AWS_PROFILE");
    cfg->profile_named = name != NULL;
    int rc = ddbi_aws_files_init(&cfg->files, err);
    if (!rc)
        rc = ddbi_profile_load(&cfg->files, name ? name : "default", &cfg->profile, err);
    if (rc) {
        ddbi_aws_files_free(&cfg->files);
        return rc;
    }
    const char *services = ddbi_profile_get(&cfg->profile, "services");
    ddbi_profile sv;
    if (services && !(rc = ddbi_services_load(&cfg->files, services, &sv, err))) {
        const char *ddb = ddbi_profile_get(&sv, "dynamodb");
        if (ddb && ddbi_ini_nested(ddb, "endpoint_url", cfg->service_endpoint, sizeof cfg->service_endpoint))
            cfg->service_endpoint[0] = '\0';
        ddbi_profile_free(&sv);
    }
    if (rc)
        ddbi_remote_config_free(cfg);
    return rc;
}

void ddbi_remote_config_free(ddbi_remote_config *cfg)
{
    ddbi_profile_free(&cfg->profile);
    ddbi_aws_files_free(&cfg->files);
}

const char *ddbi_remote_config_get(const ddbi_remote_config *cfg, const char *env_name, const char *key)
{
    const char *v = env_name ? ddbi_env(env_name) : NULL;
    return v ? v : ddbi_profile_get(&cfg->profile, key);
}

bool ddbi_remote_config_flag(const ddbi_remote_config *cfg, const char *env_name, const char *key)
{
    const char *v = ddbi_remote_config_get(cfg, env_name, key);
    return v && strcasecmp(v, "true") == 0;
}

const char *ddbi_remote_config_endpoint(const ddbi_remote_config *cfg)
{
    if (ddbi_env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS") &&
        strcasecmp(ddbi_env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true") == 0)
        return NULL;
    const char *v = ddbi_env("AWS_ENDPOINT_URL_DYNAMODB");
    if (!v)
        v = ddbi_env("AWS_ENDPOINT_URL");
    if (!v && cfg->service_endpoint[0])
        v = cfg->service_endpoint;
    return v ? v : ddbi_profile_get(&cfg->profile, "endpoint_url");
}

void ddbi_remote_dynamodb_host(const char *region, bool fips, bool dualstack, char *out, size_t cap)
{
    bool cn = strncmp(region, "cn-", 3) == 0;
    snprintf(out, cap, "dynamodb%s.%s.%s", fips ? "-fips" : "", region,
             dualstack ? (cn ? "api.amazonwebservices.com.cn" : "api.aws") : (cn ? "amazonaws.com.cn" : "amazonaws.com"));
}
