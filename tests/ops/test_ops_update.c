/* UpdateItem through the engine: every result is stored and read back.
 *
 * Behaviour matched (DynamoDB documentation, and dynalite 3.2.2 where the
 * documentation is silent; each case names which):
 *  - an update of an absent item creates it from its key (API UpdateItem);
 *    operands such as "SET x = pk" see the key attributes (dynalite);
 *  - every operand reads the item as it was before the update; SET past
 *    the end of a list appends, in index order, after REMOVE shifted the
 *    remaining elements: [0,1,2] + "SET l[10] = :a, l[7] = :b REMOVE l[0]"
 *    -> [1,2,b,a] (dynalite, byte for byte);
 *  - DELETE that empties a set removes the attribute (documentation, and
 *    dynalite); DELETE on an absent attribute does nothing;
 *  - REMOVE of a list index past the end does nothing (dynalite);
 *  - ADD creates a missing number (from 0) or set, and the item (API
 *    UpdateItem "ADD");
 *  - UPDATED_OLD / UPDATED_NEW return only the attributes the actions name,
 *    list elements compacted in order (dynalite: "SET l[1] = :x, l[0] = :y"
 *    returns {"l": [y, x]}). */
#include "ops_util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void test_update_creates_item(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    EXPECT_RC(DDB_OK, update(fx, T_OPS, K(fx, "a", "1"), "SET n = :one, s = :s, x = pk ADD c :one", NULL,
                             "{':one':{'N':'1'},':s':{'S':'x'}}", DDB_RETURN_ALL_NEW, &res, err));
    const char *created = "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'1'},'s':{'S':'x'},'x':{'S':'a'},'c':{'N':'1'}}";
    expect_item(fx, res.attributes, created);
    expect_units(res.capacity.total, 1);
    expect_units(res.capacity.table_write, 1);
    expect_stored(fx, T_OPS, K(fx, "a", "1"), created);

    /* ALL_OLD of a creating update: nothing */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, K(fx, "b", "1"), "ADD c :one", NULL, "{':one':{'N':'1'}}", DDB_RETURN_ALL_OLD,
                             &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_stored(fx, T_OPS, K(fx, "b", "1"), "{'pk':{'S':'b'},'sk':{'S':'1'},'c':{'N':'1'}}");

    /* ALL_OLD of an update of an existing item: the whole old item */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, K(fx, "a", "1"), "SET s = :s", NULL, "{':s':{'S':'y'}}", DDB_RETURN_ALL_OLD,
                             &res, err));
    expect_item(fx, res.attributes, created);

    /* an update whose actions only remove creates nothing and returns
     * nothing, nested paths included (DynamoDB's answer, issue 11 item 15;
     * changed deliberately: this used to create the key-only item) */
    EXPECT_RC(DDB_OK, update(fx, T_HASH, J(fx, "{'pk':{'S':'h'}}"), "REMOVE gone, x.y", NULL, NULL, DDB_RETURN_ALL_NEW,
                             &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_stored(fx, T_HASH, J(fx, "{'pk':{'S':'h'}}"), NULL);
    expect_clean(fx, T_OPS, 2, 0);
    expect_clean(fx, T_HASH, 0, 0);
}

static void test_update_scalars(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    EXPECT_RC(DDB_OK, put(fx, T_OPS,
                          J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'10'},'s':{'S':'abc'},'f':{'BOOL':true},"
                                "'z':{'NULL':true},'b':{'B':'AAE='}}"),
                          NULL, NULL, DDB_RETURN_NONE, &res, err));
    /* n - :d reads the old n (10), not the new one (12.5) */
    EXPECT_RC(DDB_OK,
              update(fx, T_OPS, k,
                     "SET n = n + :d, m = n - :d, s2 = if_not_exists(s, :x), s3 = if_not_exists(nope, :x), "
                     "b = :b REMOVE z, f",
                     NULL, "{':d':{'N':'2.5'},':x':{'S':'x'},':b':{'B':'/w=='}}", DDB_RETURN_UPDATED_OLD, &res, err));
    expect_item(fx, res.attributes, "{'n':{'N':'10'},'z':{'NULL':true},'f':{'BOOL':true},'b':{'B':'AAE='}}");
    expect_stored(fx, T_OPS, k,
                  "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'12.5'},'m':{'N':'7.5'},'s':{'S':'abc'},"
                  "'s2':{'S':'abc'},'s3':{'S':'x'},'b':{'B':'/w=='}}");

    /* atomic counter: ADD to a number, to a missing attribute (from 0) */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "ADD n :neg, cnt :one", NULL, "{':neg':{'N':'-12.5'},':one':{'N':'1'}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, "{'n':{'N':'0'},'cnt':{'N':'1'}}");
    EXPECT_RC(DDB_OK,
              update(fx, T_OPS, k, "ADD cnt :one", NULL, "{':one':{'N':'1'}}", DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, "{'cnt':{'N':'2'}}");
    /* SET with arithmetic on a counter, 38 digits of precision kept */
    EXPECT_RC(DDB_OK,
              update(fx, T_OPS, k, "SET cnt = cnt + :big", NULL,
                     "{':big':{'N':'99999999999999999999999999999999999997'}}", DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, "{'cnt':{'N':'99999999999999999999999999999999999999'}}");
    /* names substitute for reserved words */
    EXPECT_RC(DDB_OK, ddb_update_item(fx->db, T_OPS, k, XN(fx, DDB_EXPR_UPDATE, "SET #s = :v", "{'#s':{'S':'status'}}"),
                                      &(ddb_write_opts){.values = J(fx, "{':v':{'S':'on'}}")}, NULL, NULL, err));
    expect_stored(
        fx, T_OPS, k,
        "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'0'},'m':{'N':'7.5'},'s':{'S':'abc'},"
        "'s2':{'S':'abc'},'s3':{'S':'x'},'b':{'B':'/w=='},'cnt':{'N':'99999999999999999999999999999999999999'},"
        "'status':{'S':'on'}}");
}

/* ---- atomic counters under concurrency ---- */

#define CNT_THREADS 4
#define CNT_ADDS 25

typedef struct counter_arg {
    ops_fx *fx;
    const ddb_expr *add;
    const ddb_item *key, *values;
    int64_t seen[CNT_ADDS];
    int failures;
} counter_arg;

static void *counter_thread(void *p)
{
    counter_arg *c = p;
    ddb_arena *a = ddb_arena_new();
    for (int i = 0; i < CNT_ADDS; i++) {
        ddb_write_result res;
        ddb_error err = {0};
        ddb_write_opts o = {.return_values = DDB_RETURN_UPDATED_NEW, .values = c->values};
        if (ddb_update_item(c->fx->db, T_OPS, c->key, c->add, &o, a, &res, &err) ||
            ddb_value_to_i64(ddb_item_get(res.attributes, "c"), &c->seen[i]))
            c->failures++;
        ddb_arena_reset(a);
    }
    ddb_arena_free(a);
    return NULL;
}

/* Concurrent ADDs (group commit: several in one LMDB transaction) never
 * lose an increment, and each sees a distinct value. */
static void test_update_counters_concurrent(void **state)
{
    ops_fx *fx = *state;
    counter_arg args[CNT_THREADS];
    pthread_t th[CNT_THREADS];
    const ddb_expr *add = UPD(fx, "ADD c :one");
    const ddb_item *key = K(fx, "counter", "1"), *values = J(fx, "{':one':{'N':'1'}}");
    for (int i = 0; i < CNT_THREADS; i++) {
        args[i] = (counter_arg){.fx = fx, .add = add, .key = key, .values = values};
        assert_int_equal(pthread_create(&th[i], NULL, counter_thread, &args[i]), 0);
    }
    for (int i = 0; i < CNT_THREADS; i++)
        pthread_join(th[i], NULL);
    bool seen[CNT_THREADS * CNT_ADDS + 1] = {false};
    for (int i = 0; i < CNT_THREADS; i++) {
        assert_int_equal(args[i].failures, 0);
        for (int j = 0; j < CNT_ADDS; j++) {
            int64_t v = args[i].seen[j];
            assert_true(v >= 1 && v <= CNT_THREADS * CNT_ADDS);
            assert_false(seen[v]);
            seen[v] = true;
        }
    }
    char want[128];
    snprintf(want, sizeof want, "{'pk':{'S':'counter'},'sk':{'S':'1'},'c':{'N':'%d'}}", CNT_THREADS * CNT_ADDS);
    expect_stored(fx, T_OPS, key, want);
}

static void test_update_nested_maps(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    EXPECT_RC(DDB_OK, put(fx, T_OPS,
                          J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'m':{'M':{'a':{'M':{'b':{'N':'1'}}},'c':{'S':'x'}}}}"),
                          NULL, NULL, DDB_RETURN_NONE, &res, err));
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET m.a.b = m.a.b + :one, m.a.d = :v, m.e = :v REMOVE m.c", NULL,
                             "{':one':{'N':'1'},':v':{'L':[{'S':'v'}]}}", DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes,
                "{'m':{'M':{'a':{'M':{'b':{'N':'2'},'d':{'L':[{'S':'v'}]}}},'e':{'L':[{'S':'v'}]}}}}");
    const char *now = "{'pk':{'S':'a'},'sk':{'S':'1'},"
                      "'m':{'M':{'a':{'M':{'b':{'N':'2'},'d':{'L':[{'S':'v'}]}}},'e':{'L':[{'S':'v'}]}}}}";
    expect_stored(fx, T_OPS, k, now);
    /* UPDATED_OLD of a nested path: the old value at that path only */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET m.a.b = :v, m.a.d[0] = :w", NULL, "{':v':{'S':'B'},':w':{'S':'w'}}",
                             DDB_RETURN_UPDATED_OLD, &res, err));
    expect_item(fx, res.attributes, "{'m':{'M':{'a':{'M':{'b':{'N':'2'},'d':{'L':[{'S':'v'}]}}}}}}");
    now = "{'pk':{'S':'a'},'sk':{'S':'1'},"
          "'m':{'M':{'a':{'M':{'b':{'S':'B'},'d':{'L':[{'S':'w'}]}}},'e':{'L':[{'S':'v'}]}}}}";
    expect_stored(fx, T_OPS, k, now);
    /* a missing parent map, a path through a scalar: refused, nothing written */
    EXPECT_ERR(DDB_EVALIDATION, "The document path provided in the update expression is invalid for update",
               update(fx, T_OPS, k, "SET m.q.r = :v", NULL, "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "The document path provided in the update expression is invalid for update",
               update(fx, T_OPS, k, "SET m.a.b.c = :v", NULL, "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "The document path provided in the update expression is invalid for update",
               update(fx, T_OPS, k, "SET m.e.x = :v", NULL, "{':v':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    expect_stored(fx, T_OPS, k, now);
    /* a whole map replaced, then a key named with a placeholder */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET m = :m", NULL, "{':m':{'M':{}}}", DDB_RETURN_NONE, &res, err));
    EXPECT_RC(DDB_OK, ddb_update_item(fx->db, T_OPS, k, XN(fx, DDB_EXPR_UPDATE, "SET m.#k = :v", "{'#k':{'S':'a.b'}}"),
                                      &(ddb_write_opts){.values = J(fx, "{':v':{'N':'5'}}")}, NULL, NULL, err));
    expect_stored(fx, T_OPS, k, "{'pk':{'S':'a'},'sk':{'S':'1'},'m':{'M':{'a.b':{'N':'5'}}}}");
}

static void test_update_lists(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    const char *key = "'pk':{'S':'a'},'sk':{'S':'1'}";
    char want[512];
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'l':{'L':[{'N':'0'},{'N':'1'},{'N':'2'}]}}"),
                          NULL, NULL, DDB_RETURN_NONE, &res, err));
    /* past the end appends (in index order); REMOVE shifts what follows */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET l[10] = :a, l[7] = :b REMOVE l[0]", NULL,
                             "{':a':{'S':'ten'},':b':{'S':'seven'}}", DDB_RETURN_ALL_NEW, &res, err));
    snprintf(want, sizeof want, "{%s,'l':{'L':[{'N':'1'},{'N':'2'},{'S':'seven'},{'S':'ten'}]}}", key);
    expect_item(fx, res.attributes, want);
    expect_stored(fx, T_OPS, k, want);
    /* indexes name the old elements: both removals and a replacement.
     * DynamoDB removes the two old elements ("REMOVE RelatedItems[1],
     * RelatedItems[2]" in the developer guide); dynalite removes one after
     * the other (l[2] of the shifted list) and keeps "seven": not matched. */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET l[3] = :x REMOVE l[0], l[2]", NULL, "{':x':{'S':'TEN'}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    /* UPDATED_NEW projects the named paths on the new item: l[0] is now 2,
     * l[2] and l[3] are past its end (dynalite returns the same) */
    expect_item(fx, res.attributes, "{'l':{'L':[{'N':'2'}]}}");
    snprintf(want, sizeof want, "{%s,'l':{'L':[{'N':'2'},{'S':'TEN'}]}}", key);
    expect_stored(fx, T_OPS, k, want);
    /* UPDATED_OLD / UPDATED_NEW of several elements: compacted, in order */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET l[1] = :x, l[0] = :y", NULL, "{':x':{'S':'x'},':y':{'S':'y'}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, "{'l':{'L':[{'S':'y'},{'S':'x'}]}}");
    /* REMOVE past the end: nothing happens */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "REMOVE l[99]", NULL, NULL, DDB_RETURN_NONE, &res, err));
    snprintf(want, sizeof want, "{%s,'l':{'L':[{'S':'y'},{'S':'x'}]}}", key);
    expect_stored(fx, T_OPS, k, want);
    /* list_append at both ends (one end per update: DynamoDB refuses
     * list_append nested in a function), if_not_exists for a new list */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k,
                             "SET l = list_append(:front, l), n = list_append(if_not_exists(n, :empty), :back)", NULL,
                             "{':front':{'L':[{'N':'1'}]},':back':{'L':[{'BOOL':false},{'NULL':true}]},':empty':{'L':[]}}",
                             DDB_RETURN_NONE, &res, err));
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET l = list_append(l, :back)", NULL,
                             "{':back':{'L':[{'BOOL':false},{'NULL':true}]}}", DDB_RETURN_NONE, &res, err));
    snprintf(want, sizeof want,
             "{%s,'l':{'L':[{'N':'1'},{'S':'y'},{'S':'x'},{'BOOL':false},{'NULL':true}]},"
             "'n':{'L':[{'BOOL':false},{'NULL':true}]}}",
             key);
    expect_stored(fx, T_OPS, k, want);
    /* nested lists; removing every element leaves an empty list */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET n[1] = :inner", NULL, "{':inner':{'L':[{'N':'7'}]}}", DDB_RETURN_NONE,
                             &res, err));
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET n[1][5] = :v REMOVE n[0]", NULL, "{':v':{'N':'8'}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, "{'n':{'L':[{'L':[{'N':'7'},{'N':'8'}]}]}}");
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "REMOVE n[0]", NULL, NULL, DDB_RETURN_ALL_NEW, &res, err));
    snprintf(want, sizeof want,
             "{%s,'l':{'L':[{'N':'1'},{'S':'y'},{'S':'x'},{'BOOL':false},{'NULL':true}]},'n':{'L':[]}}", key);
    expect_item(fx, res.attributes, want);
    expect_stored(fx, T_OPS, k, want);
    /* an index into something that is not a list, into a missing list, ADD to a list */
    EXPECT_ERR(DDB_EVALIDATION, "The document path provided in the update expression is invalid for update",
               update(fx, T_OPS, k, "SET nope[0] = :v", NULL, "{':v':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "The document path provided in the update expression is invalid for update",
               update(fx, T_OPS, k, "SET l[1][0] = :v", NULL, "{':v':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(
        DDB_EVALIDATION, "Incorrect operand type for operator or function; operator or function: list_append",
        update(fx, T_OPS, k, "SET l = list_append(l, :v)", NULL, "{':v':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    expect_stored(fx, T_OPS, k, want);
}

static void test_update_sets(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    EXPECT_RC(DDB_OK, put(fx, T_OPS,
                          J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'ss':{'SS':['a','b']},'ns':{'NS':['1','2']},"
                                "'bs':{'BS':['AQ==']},'m':{'M':{}}}"),
                          NULL, NULL, DDB_RETURN_NONE, &res, err));
    /* ADD: union (duplicates collapse), numbers compared numerically */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "ADD ss :cd, ns :n, bs :b, m.tags :ab", NULL,
                             "{':cd':{'SS':['c','d','a']},':n':{'NS':['3','2.0']},':b':{'BS':['Ag==']},"
                             "':ab':{'SS':['a','b']}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes,
                "{'ss':{'SS':['a','b','c','d']},'ns':{'NS':['1','2','3']},'bs':{'BS':['AQ==','Ag==']},"
                "'m':{'M':{'tags':{'SS':['a','b']}}}}");
    /* DELETE: difference; elements absent from the set are ignored */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "DELETE ss :ab, ns :n, m.tags :x", NULL,
                             "{':ab':{'SS':['a','b','zz']},':n':{'NS':['1.00']},':x':{'SS':['x']}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes,
                "{'ss':{'SS':['c','d']},'ns':{'NS':['2','3']},'m':{'M':{'tags':{'SS':['a','b']}}}}");
    /* DELETE of every element removes the attribute; DELETE on an absent
     * attribute does nothing; UPDATED_NEW then holds nothing, as none of
     * the paths exists any more (dynalite: "Attributes": {}) */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "DELETE ss :cd, bs :b, nope :cd, m.tags :ab", NULL,
                             "{':cd':{'SS':['c','d']},':b':{'BS':['AQ==','Ag==']},':ab':{'SS':['a','b']}}",
                             DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, NULL);
    const char *now = "{'pk':{'S':'a'},'sk':{'S':'1'},'ns':{'NS':['2','3']},'m':{'M':{}}}";
    expect_stored(fx, T_OPS, k, now);
    /* ADD of a set to a missing attribute creates it */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "ADD ss :cd", NULL, "{':cd':{'SS':['c','d']}}", DDB_RETURN_NONE, &res, err));
    /* mixing set types, ADD/DELETE of a set to a number */
    EXPECT_ERR(DDB_EVALIDATION, "An operand in the update expression has an incorrect data type",
               update(fx, T_OPS, k, "ADD ss :n", NULL, "{':n':{'NS':['1']}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "An operand in the update expression has an incorrect data type",
               update(fx, T_OPS, k, "DELETE ns :s", NULL, "{':s':{'SS':['1']}}", DDB_RETURN_NONE, &res, err));
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET num = :one", NULL, "{':one':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "An operand in the update expression has an incorrect data type",
               update(fx, T_OPS, k, "ADD num :s", NULL, "{':s':{'NS':['1']}}", DDB_RETURN_NONE, &res, err));
    expect_stored(fx, T_OPS, k,
                  "{'pk':{'S':'a'},'sk':{'S':'1'},'ns':{'NS':['2','3']},'m':{'M':{}},'ss':{'SS':['c','d']},"
                  "'num':{'N':'1'}}");
}

/* Refused updates write nothing: the item, and the table, stay as they were. */
static void test_update_errors_write_nothing(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'n':{'N':'1'},'s':{'S':'t'}}"), NULL, NULL,
                          DDB_RETURN_NONE, &res, err));
    const char *before = table_state(fx, T_OPS);
    EXPECT_ERR(DDB_EVALIDATION, "Cannot update attribute sk. This attribute is part of the key",
               update(fx, T_OPS, k, "SET sk = :v", NULL, "{':v':{'S':'2'}}", DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "Cannot update attribute pk. This attribute is part of the key",
               update(fx, T_OPS, k, "REMOVE pk", NULL, NULL, DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "An operand in the update expression has an incorrect data type",
               update(fx, T_OPS, k, "SET n = n + :one, x = :one ADD s :one", NULL, "{':one':{'N':'1'}}",
                      DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "The provided expression refers to an attribute that does not exist in the item",
               update(fx, T_OPS, k, "SET x = nope", NULL, NULL, DDB_RETURN_NONE, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "An expression attribute value used in expression is not defined",
               update(fx, T_OPS, k, "SET x = :undefined", NULL, "{':one':{'N':'1'}}", DDB_RETURN_NONE, &res, err));
    /* an empty set written by SET, a string grown past 400 KB */
    ddb_item *empty_set = ddb_item_new(fx->a);
    ddb_item_set(empty_set, ":e", ddb_v_set(fx->a, DDB_TSS));
    EXPECT_RC(DDB_EVALIDATION, ddb_update_item(fx->db, T_OPS, k, UPD(fx, "SET e = :e"),
                                               &(ddb_write_opts){.values = empty_set}, NULL, NULL, err));
    EXPECT_RC(DDB_OK, put(fx, T_OPS, sized(fx, "{'pk':{'S':'big'},'sk':{'S':'1'}}", 409600), NULL, NULL,
                          DDB_RETURN_NONE, &res, err));
    const char *with_big = table_state(fx, T_OPS);
    /* UpdateItem's words (API_UpdateItem.html) */
    EXPECT_ERR(DDB_ELIMIT,
               "Item size to update has exceeded the maximum allowed size (item of 409601 bytes, limit 409600 bytes)",
               update(fx, T_OPS, K(fx, "big", "1"), "SET x = :x", NULL, "{':x':{'S':''}}", DDB_RETURN_NONE, &res, err));
    assert_string_equal(table_state(fx, T_OPS), with_big);
    EXPECT_RC(DDB_OK, del(fx, T_OPS, K(fx, "big", "1"), NULL, NULL, DDB_RETURN_NONE, &res, err));
    assert_string_equal(table_state(fx, T_OPS), before);
    /* ReturnValues other than NONE / ALL_OLD on PutItem and DeleteItem */
    EXPECT_ERR(DDB_EVALIDATION, "ReturnValues can only be ALL_OLD or NONE",
               put(fx, T_OPS, K(fx, "a", "1"), NULL, NULL, DDB_RETURN_ALL_NEW, &res, err));
    EXPECT_ERR(DDB_EVALIDATION, "ReturnValues can only be ALL_OLD or NONE",
               del(fx, T_OPS, K(fx, "a", "1"), NULL, NULL, DDB_RETURN_UPDATED_OLD, &res, err));
    assert_string_equal(table_state(fx, T_OPS), before);
}

/* ReturnValues of every write kind; capacity of each (1 KB items). */
static void test_return_values(void **state)
{
    ops_fx *fx = *state;
    ddb_write_result res;
    ddb_item *k = K(fx, "a", "1");
    const char *v1 = "{'pk':{'S':'a'},'sk':{'S':'1'},'v':{'N':'1'},'w':{'S':'w'}}";
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, v1), NULL, NULL, DDB_RETURN_ALL_OLD, &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_units(res.capacity.total, 1);
    EXPECT_RC(DDB_OK, put(fx, T_OPS, J(fx, "{'pk':{'S':'a'},'sk':{'S':'1'},'v':{'N':'2'}}"), NULL, NULL,
                          DDB_RETURN_ALL_OLD, &res, err));
    expect_item(fx, res.attributes, v1);
    /* NONE returns nothing; UPDATED_OLD of attributes that did not exist: nothing */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET x = :x", NULL, "{':x':{'S':'x'}}", DDB_RETURN_NONE, &res, err));
    expect_item(fx, res.attributes, NULL);
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET y = :x", NULL, "{':x':{'S':'y'}}", DDB_RETURN_UPDATED_OLD, &res, err));
    expect_item(fx, res.attributes, NULL);
    /* UPDATED_NEW of a REMOVE: nothing */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "REMOVE y", NULL, NULL, DDB_RETURN_UPDATED_NEW, &res, err));
    expect_item(fx, res.attributes, NULL);
    /* ALL_NEW / UPDATED_OLD / UPDATED_NEW */
    EXPECT_RC(DDB_OK, update(fx, T_OPS, k, "SET v = v + :one REMOVE x", NULL, "{':one':{'N':'1'}}",
                             DDB_RETURN_UPDATED_OLD, &res, err));
    expect_item(fx, res.attributes, "{'v':{'N':'2'},'x':{'S':'x'}}");
    EXPECT_RC(DDB_OK,
              update(fx, T_OPS, k, "SET v = v + :one", NULL, "{':one':{'N':'1'}}", DDB_RETURN_ALL_NEW, &res, err));
    expect_item(fx, res.attributes, "{'pk':{'S':'a'},'sk':{'S':'1'},'v':{'N':'4'}}");
    /* DeleteItem ALL_OLD: the item; of an absent item: nothing, still 1 WCU */
    EXPECT_RC(DDB_OK, del(fx, T_OPS, k, NULL, NULL, DDB_RETURN_ALL_OLD, &res, err));
    expect_item(fx, res.attributes, "{'pk':{'S':'a'},'sk':{'S':'1'},'v':{'N':'4'}}");
    expect_units(res.capacity.total, 1);
    EXPECT_RC(DDB_OK, del(fx, T_OPS, k, NULL, NULL, DDB_RETURN_ALL_OLD, &res, err));
    expect_item(fx, res.attributes, NULL);
    expect_units(res.capacity.total, 1);
    expect_units(res.capacity.write, 1);
    expect_units(res.capacity.read, 0);
    expect_stored(fx, T_OPS, k, NULL);
}

const struct CMUnitTest ops_update_tests[] = {
    cmocka_unit_test_setup_teardown(test_update_creates_item, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_update_scalars, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_update_counters_concurrent, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_update_nested_maps, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_update_lists, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_update_sets, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_update_errors_write_nothing, ops_setup, ops_teardown),
    cmocka_unit_test_setup_teardown(test_return_values, ops_setup, ops_teardown),
};
const size_t ops_update_count = sizeof ops_update_tests / sizeof *ops_update_tests;
