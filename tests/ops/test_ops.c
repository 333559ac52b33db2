/* The engine's operations on expressions, end to end: UpdateItem,
 * conditional writes, ReturnValues, index maintenance, batches,
 * transactions, Query/Scan with filters and projections, and the consumed
 * capacity of each.  One group per file. */
#include "ops_util.h"

#include <stdlib.h>

int main(void)
{
    int failed = 0;
    failed += _cmocka_run_group_tests("update", ops_update_tests, ops_update_count, NULL, NULL);
    failed += _cmocka_run_group_tests("index", ops_index_tests, ops_index_count, NULL, NULL);
    failed += _cmocka_run_group_tests("cond", ops_cond_tests, ops_cond_count, NULL, NULL);
    failed += _cmocka_run_group_tests("batch", ops_batch_tests, ops_batch_count, NULL, NULL);
    failed += _cmocka_run_group_tests("tx", ops_tx_tests, ops_tx_count, NULL, NULL);
    failed += _cmocka_run_group_tests("query", ops_query_tests, ops_query_count, NULL, NULL);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
