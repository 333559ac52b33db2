/* Entity names against the names their table generates: the mixed batch
 * (the type t_batch, t_batch_new, t_batch_run, t_batch_put_<e>,
 * t_batch_delete_<e>), an entity named like its table (t_scan, t_migrate,
 * t_table), and one entity's functions against another's. */
#include <ddb/schema.h>

DDB_TABLE(t, "Things", DDB_PRIMARY("PK", "SK"));

/* struct t_batch: the mixed batch's type; its pattern 'run': t_batch_run */
struct DDB_ENTITY(t, "TBatch")
       DDB_KEY("table", "B#{id}", "B")
       DDB_PATTERN("run", "table")
t_batch {
    char id[16];
};

struct DDB_ENTITY(t, "Memo")
       DDB_KEY("table", "M#{id}", "M")
memo {
    char id[16];
};

/* t_batch_delete_memo: the mixed batch's delete of a Memo */
struct DDB_ENTITY(t, "TBatchDelete")
       DDB_KEY("table", "D#{id}", "D")
       DDB_PATTERN("memo", "table")
t_batch_delete {
    char id[16];
};

/* t_scan, t_migrate: the table's; t_batch_put: TBatch's t_batch_put */
struct DDB_ENTITY(t, "T")
       DDB_KEY("table", "X#{id}", "X")
t {
    char id[16];
};
