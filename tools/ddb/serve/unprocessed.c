/* ddb serve --unprocessed FRACTION: a test aid that leaves a drawn part of
 * every BatchWriteItem and BatchGetItem unprocessed, as DynamoDB does when
 * a table's throughput is exceeded (API_BatchWriteItem: the failed
 * operations come back in UnprocessedItems; API_BatchGetItem: in
 * UnprocessedKeys), so that a client's retry loop runs against this
 * server.  Each request of a batch is left with probability FRACTION,
 * drawn with erand48 from a state seeded by --fault-seed (one server, one
 * client, the same requests left every run).  Calls libc only. */
#include "serve.h"

#include <stdlib.h>
#include <string.h>

void serve_unprocessed_init(serve_unprocessed *u, double fraction, uint64_t seed)
{
    memset(u, 0, sizeof *u);
    u->fraction = fraction;
    u->rng[0] = 0x330e; /* srand48's low word, then the seed */
    u->rng[1] = (unsigned short)(seed & 0xffff);
    u->rng[2] = (unsigned short)(seed >> 16 & 0xffff);
    pthread_mutex_init(&u->mu, NULL);
}

void serve_unprocessed_free(serve_unprocessed *u)
{
    pthread_mutex_destroy(&u->mu);
}

size_t serve_unprocessed_draw(serve_unprocessed *u, bool *left, size_t n)
{
    memset(left, 0, n * sizeof *left);
    if (!(u->fraction > 0))
        return 0;
    size_t k = 0;
    pthread_mutex_lock(&u->mu);
    for (size_t i = 0; i < n; i++)
        if ((left[i] = erand48(u->rng) < u->fraction))
            k++;
    pthread_mutex_unlock(&u->mu);
    return k;
}
