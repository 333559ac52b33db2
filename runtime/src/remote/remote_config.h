/* remote/: the remote backend's settings from the environment and the
 * shared AWS config file (remote_config.c; internal). */
#ifndef DDB_REMOTE_CONFIG_H
#define DDB_REMOTE_CONFIG_H

#include "remote/cred.h"

typedef struct ddbi_remote_config {
    ddbi_aws_files files;
    ddbi_profile profile; /* the selected profile's settings (found may be false) */
    bool profile_named;   /* by the options or AWS_PROFILE */
    char service_endpoint[1024]; /* endpoint_url of dynamodb in the profile's [services NAME] ("": none) */
} ddbi_remote_config;

/* Select the profile (profile, else AWS_PROFILE, else "default") and load
 * its settings.  DDB_EINVAL for a malformed file. */
int ddbi_remote_config_load(const char *profile, ddbi_remote_config *cfg, ddb_error *err);
void ddbi_remote_config_free(ddbi_remote_config *cfg);
/* The environment variable (env_name may be NULL), else the profile's key. */
const char *ddbi_remote_config_get(const ddbi_remote_config *cfg, const char *env_name, const char *key);
/* Such a setting is "true" (any case). */
bool ddbi_remote_config_flag(const ddbi_remote_config *cfg, const char *env_name, const char *key);
/* AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, the endpoint_url of
 * dynamodb in the profile's services section, or the profile's
 * endpoint_url (none when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true). */
const char *ddbi_remote_config_endpoint(const ddbi_remote_config *cfg);
/* DynamoDB's host name in region: dynamodb[-fips].REGION.amazonaws.com
 * (.com.cn in China), dual-stack under api.aws. */
void ddbi_remote_dynamodb_host(const char *region, bool fips, bool dualstack, char *out, size_t cap);

#endif
