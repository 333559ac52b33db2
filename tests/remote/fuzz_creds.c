/* libFuzzer target: what the credential chain reads from files and the
 * network — the shared config / credentials files (INI), the JSON of IMDS,
 * the container endpoint and credential_process, STS's XML answers and
 * errors, ISO 8601 times.  Whatever the bytes, the result is a value or an
 * error code with a message; nothing is read past the input. */
#include "remote/cred.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_error(const ddb_error *err, int rc)
{
    if (rc && (err->code != rc || !memchr(err->message, '\0', sizeof err->message)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    ddb_error err;
    static const char *const prefixes[] = {"profile", "services", NULL};
    for (int i = 0; i < 3; i++) {
        ddbi_profile p = {0};
        p.name = strdup("default");
        memset(&err, 0, sizeof err);
        int rc = ddbi_ini_parse(text, size, "fuzz", prefixes[i], "default", true, &p, &err);
        check_error(&err, rc);
        for (size_t k = 0; k < p.n; k++) {
            char out[64];
            if (!p.keys[k] || !p.vals[k])
                __builtin_trap();
            (void)ddbi_ini_nested(p.vals[k], "endpoint_url", out, sizeof out);
        }
        ddbi_profile_free(&p);
    }
    ddbi_creds c = {0};
    memset(&err, 0, sizeof err);
    check_error(&err, ddbi_creds_from_json("fuzz", text, size, &c, &err));
    ddbi_creds_clear(&c);
    memset(&err, 0, sizeof err);
    check_error(&err, ddbi_creds_from_sts_xml("fuzz", text, size, &c, &err));
    ddbi_creds_clear(&c);
    char msg[128];
    ddbi_sts_error_text(text, size, msg, sizeof msg);
    char *z = malloc(size + 1); /* NUL-terminated copy for the time parser */
    if (z) {
        memcpy(z, data, size);
        z[size] = '\0';
        int64_t t;
        (void)ddbi_iso8601_parse(z, &t);
        free(z);
    }
    return 0;
}
