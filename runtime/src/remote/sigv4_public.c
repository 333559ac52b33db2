/* remote/: ddb_sigv4_signature(), the public face of the SigV4 signer for
 * servers that verify requests (`ddb serve --auth`): the same code signs
 * and checks.  Calls sigv4.c and core/. */
#include <ddb/remote.h>

#include "core/error.h"
#include "remote/sigv4.h"

#include <string.h>

#define MAX_SIGNED_HEADERS 64

int ddb_sigv4_signature(const ddb_sigv4_input *in, char out[65], ddb_error *err)
{
    if (!in || !out || !in->method || !in->headers || !in->secret_access_key || !in->region || !in->service)
        return ddbi_fail(err, DDB_EINVAL, "ddb_sigv4_signature: method, headers, secret key, region and service are "
                                          "required");
    if (in->n_headers > MAX_SIGNED_HEADERS)
        return ddbi_fail(err, DDB_EINVAL, "SigV4: more than %d signed headers", MAX_SIGNED_HEADERS);
    ddb_sigv4_header h[MAX_SIGNED_HEADERS];
    for (size_t i = 0; i < in->n_headers; i++)
        h[i] = (ddb_sigv4_header){in->headers[i].name, in->headers[i].value};
    ddb_sigv4_request req = {in->method, in->path && *in->path ? in->path : "/", in->query, h, in->n_headers,
                             in->payload, in->payload_len, NULL};
    ddb_sigv4_key key = {in->access_key_id && *in->access_key_id ? in->access_key_id : "-", in->secret_access_key,
                         in->region, in->service};
    ddb_buf auth = {0};
    int rc = ddbi_sigv4_sign(&req, &key, in->amz_date, &auth, NULL, err);
    if (!rc) {
        const char *sig = strstr((const char *)auth.p, "Signature=");
        if (sig && strlen(sig + 10) == 64)
            memcpy(out, sig + 10, 65);
        else
            rc = ddbi_fail(err, DDB_EINVAL, "SigV4: no signature computed");
    }
    ddbi_buf_free(&auth);
    return rc;
}
