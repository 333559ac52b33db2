/* tracker_main.c — a user's program on the module ddbgen generates from
 * schemas/tracker.h (an issue tracker), run on the embedded engine and
 * through the remote backend (ddb serve).  Each check names the DynamoDB
 * behaviour it holds the product to (Developer Guide page) or the
 * docs/SCHEMA.md section for ddbgen's own promises.
 *
 * usage: tracker_main [URI]   (file:DIR or http://HOST:PORT; default $DDB_TEST_URI);
 * exit 0 = every check held. */
#include "tracker_ddb.h"

#include "../trial_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t now_ms = 1764165845000; /* 2025-11-26T14:04:05Z */
static int64_t test_clock(void *ctx)
{
    (void)ctx;
    return now_ms;
}

static void projects(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    struct project p = {.key = "CORE", .title = "Core", .slug = "core"};
    OK(project_create(db, &p, NULL, NULL, &err));
    /* a declared update never creates its item (docs/SCHEMA.md "Declared updates") */
    RC(DDB_ENOTFOUND, stats_opened(db, "CORE", 1, NULL, a, NULL, NULL, &err));
    struct stats st = {.project = "CORE"};
    OK(stats_create(db, &st, NULL, NULL, &err));
    /* docs/SCHEMA.md "Versions", "Defaults and timestamps" */
    CHECK(p.version == 1 && p.created_ms == now_ms, "v%u created %" PRId64, (unsigned)p.version, p.created_ms);
    /* DDB_UNIQUE (docs/SCHEMA.md "Unique fields at run time") */
    struct project other = {.key = "WEB", .title = "Web", .slug = "core"};
    RC(DDB_ECONDITION, project_create(db, &other, NULL, NULL, &err));
    other.slug = "web";
    OK(project_create(db, &other, NULL, NULL, &err));

    /* Declared update: UpdateItem SET, ReturnValues ALL_NEW
     * (Developer Guide: "Update expressions", WorkingWithItems.html#WorkingWithItems.ReturnValues) */
    struct project after;
    OK(project_rename(db, "CORE", "Core platform", NULL, a, &after, NULL, &err));
    CHECK(strcmp(after.title, "Core platform") == 0 && after.version == 2, "rename: %s v%u", after.title,
          (unsigned)after.version);
    CHECK(after.slug && strcmp(after.slug, "core") == 0, "rename kept the slug");
    /* An UpdateItem on a missing key with attribute_exists fails the condition
     * (Expressions.ConditionExpressions.html "Preventing overwrites") */
    RC(DDB_ENOTFOUND, project_rename(db, "NOPE", "x", NULL, a, NULL, NULL, &err));

    /* Conditional put: a false ConditionExpression writes nothing
     * (Expressions.ConditionExpressions.html) */
    OK(project_archive(db, "WEB", true, false, NULL, a, NULL, NULL, &err));
    RC(DDB_ECONDITION, project_archive(db, "WEB", true, false, NULL, a, NULL, NULL, &err));
    struct project web;
    OK(project_get(db, "WEB", NULL, a, &web, &err));
    web.title[0] = 'w';
    RC(DDB_ECONDITION, project_put_if_active(db, &web, false, NULL, NULL, &err));
    RC(DDB_ECONDITION, project_delete_if_active(db, "WEB", false, NULL, NULL, &err));
    /* optimistic locking: a stale version is refused, the stored item comes back
     * (DynamoDBMapper.OptimisticLocking.html; ReturnValuesOnConditionCheckFailure ALL_OLD) */
    struct project stale = p; /* version 1 */
    struct project cur;
    bool found = false;
    ddb_ent_opts co = {.current = &cur, .current_found = &found, .current_arena = a};
    RC(DDB_ECONDITION, project_update_fields(db, &stale, project_mask(PROJECT_F_TITLE), &co, NULL, &err));
    CHECK(found && cur.version == 2 && strcmp(cur.title, "Core platform") == 0, "current v%u", (unsigned)cur.version);

    /* a get projected to one field: the mask says what came back
     * (Expressions.ProjectionExpressions.html: only the named attributes are returned) */
    ddb_ent_mask only = project_mask(PROJECT_F_TITLE), got_mask;
    ddb_ent_read_opts po = {.fields = &only, .mask = &got_mask};
    struct project pp;
    OK(project_get(db, "CORE", &po, a, &pp, &err));
    CHECK(strcmp(pp.title, "Core platform") == 0 && ddb_ent_mask_has(&got_mask, PROJECT_FN_TITLE) &&
              !ddb_ent_mask_has(&got_mask, PROJECT_FN_SLUG) && pp.slug == NULL,
          "projected get");
    /* the slug moves: the old value is free again (docs/SCHEMA.md "Unique fields at run time") */
    after.slug = "platform";
    OK(project_update_fields(db, &after, project_mask(PROJECT_F_SLUG), NULL, NULL, &err));
    struct project third = {.key = "OLD", .title = "Old", .slug = "core"};
    OK(project_create(db, &third, NULL, NULL, &err));
    OK(project_delete(db, "OLD", NULL, NULL, &err));
    RC(DDB_ENOTFOUND, project_get(db, "OLD", NULL, a, &pp, &err));
}

static const char *const titles[] = {"crash on start", "typo in help", "slow search", "login loops",
                                     "dark mode",      "export csv",   "flaky test",  "memory leak"};
static const char *const prios[] = {"P0", "P3", "P1", "P0", "P3", "P2", "P1", "P0"};

static void issues(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    for (int i = 0; i < 8; i++) {
        struct issue is = {.project = "CORE", .status = i % 2 ? "open" : "triage", .points = i};
        strcpy(is.title, titles[i]);
        if (i != 5)
            strcpy(is.priority, prios[i]);
        if (i % 3 == 0)
            is.assignee = i == 6 ? "bob" : "ann";
        OK(issue_create(db, &is, NULL, NULL, &err));
        /* DDB_AUTO_ID per project, DDB_DEFAULT (docs/SCHEMA.md "Generated ids", "Defaults") */
        CHECK(is.number == (uint32_t)i + 1, "auto id %u", (unsigned)is.number);
        CHECK(i != 5 || strcmp(is.priority, "P2") == 0, "default priority %s", is.priority);
        OK(stats_opened(db, "CORE", 1, NULL, a, NULL, NULL, &err));
    }
    struct issue web1 = {.project = "WEB", .title = "404 page", .status = "open", .priority = "P1"};
    OK(issue_create(db, &web1, NULL, NULL, &err));
    CHECK(web1.number == 1, "ids are per project: %u", (unsigned)web1.number);

    /* access pattern, sort-key levels (Query.KeyConditionExpressions.html):
     * = on the whole key, BETWEEN inclusive at both ends, < and >= ranges */
    issue_page pg;
    OK(issue_table(db, "CORE", issue_table_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 8 && pg.items[0].number == 1 && pg.items[7].number == 8, "all issues: %zu", pg.count);
    OK(issue_table(db, "CORE", issue_table_number(DDB_ENT_SK_EQ, 4), NULL, a, &pg, &err));
    CHECK(pg.count == 1 && strcmp(pg.items[0].title, "login loops") == 0, "number = 4: %zu", pg.count);
    OK(issue_table(db, "CORE", issue_table_number_between(3, 5), NULL, a, &pg, &err));
    CHECK(pg.count == 3 && pg.items[0].number == 3 && pg.items[2].number == 5, "3..5: %zu", pg.count);
    OK(issue_table(db, "CORE", issue_table_number(DDB_ENT_SK_LT, 3), NULL, a, &pg, &err));
    CHECK(pg.count == 2, "< 3: %zu", pg.count);
    OK(issue_table(db, "CORE", issue_table_number(DDB_ENT_SK_GE, 7), NULL, a, &pg, &err));
    CHECK(pg.count == 2 && pg.items[0].number == 7, ">= 7: %zu", pg.count);
    /* ScanIndexForward=false reads in descending order (Query.html "Key condition expressions") */
    ddb_ent_read_opts back = {.backward = true, .page_size = 3};
    OK(issue_table(db, "CORE", issue_table_all(), &back, a, &pg, &err));
    CHECK(pg.count == 3 && pg.items[0].number == 8 && pg.cursor, "backward page");

    /* a paged query resumes from LastEvaluatedKey (Query.Pagination.html) */
    ddb_ent_read_opts po = {.page_size = 3};
    uint32_t seen = 0, last = 0;
    bool ordered = true;
    int pages = 0;
    do {
        OK(issue_table(db, "CORE", issue_table_all(), &po, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++) {
            ordered &= pg.items[i].number > last;
            last = pg.items[i].number;
        }
        seen += (uint32_t)pg.count;
        po.cursor = pg.cursor;
    } while (pg.cursor && ++pages < 20);
    CHECK(seen == 8 && ordered, "pages: %u issues", (unsigned)seen);

    /* the status index: levels on a two-hole sort key, begins_with */
    OK(issue_by_status(db, "CORE", "triage", issue_by_status_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 4 && strcmp(pg.items[0].priority, "P0") == 0, "triage: %zu", pg.count);
    OK(issue_by_status(db, "CORE", "triage", issue_by_status_priority(DDB_ENT_SK_EQ, "P0"), NULL, a, &pg,
                       &err));
    CHECK(pg.count == 1 && pg.items[0].number == 1, "triage P0: %zu", pg.count);
    OK(issue_by_status(db, "CORE", "open", issue_by_status_number(DDB_ENT_SK_GT, "P0", 0), NULL, a, &pg, &err));
    CHECK(pg.count == 2 && pg.items[0].number == 4 && pg.items[1].number == 8, "open P0 > 0: %zu", pg.count);
    OK(issue_by_status(db, "CORE", "open", issue_by_status_priority(DDB_ENT_SK_BEGINS, "P"), NULL, a, &pg,
                       &err));
    CHECK(pg.count == 4, "open begins P: %zu", pg.count);
    /* declared query: priority <= :p on the index */
    OK(issue_urgent(db, "CORE", "open", "P1", NULL, a, &pg, &err));
    CHECK(pg.count == 2, "open urgent <= P1: %zu", pg.count); /* 4 and 8 (P0) */

    /* declared query with a filter: Count is after the filter, ScannedCount before
     * (Query.FilterExpression.html) */
    OK(issue_numbered(db, "CORE", 2, 7, 4, NULL, a, &pg, &err));
    CHECK(pg.count == 3 && pg.scanned_count == 6, "numbered 2..7 points >= 4: %zu of %zu", pg.count,
          pg.scanned_count);
    ddb_ent_read_opts cnt = {.count_only = true};
    /* Select=COUNT returns the count, no items (Query.html "Counting the items in the results") */
    OK(issue_numbered(db, "CORE", 1, 8, 0, &cnt, a, &pg, &err));
    CHECK(pg.count == 8 && pg.items == NULL, "count only: %zu", pg.count);

    /* INCLUDE projection on the sparse ByAssignee index (GSI.html "Attribute projections") */
    OK(issue_assigned_to(db, "ann", issue_assigned_to_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 2, "ann's: %zu", pg.count); /* 1 and 4 */
    if (pg.count == 2) {
        CHECK(ddb_ent_mask_has(&pg.masks[0], ISSUE_FN_TITLE) && !ddb_ent_mask_has(&pg.masks[0], ISSUE_FN_POINTS),
              "INCLUDE: title, no points");
        CHECK(pg.items[1].number == 4 && strcmp(pg.items[1].project, "CORE") == 0, "keys parsed back");
    }
    OK(issue_assigned_to(db, "ann", issue_assigned_to_number(DDB_ENT_SK_LE, "CORE", 3), NULL, a, &pg, &err));
    CHECK(pg.count == 1 && pg.items[0].number == 1, "ann's <= 3: %zu", pg.count);

    /* declared scan with segments: the segments partition the table
     * (Scan.html "Parallel scan") */
    size_t total = 0;
    for (uint32_t s = 0; s < 3; s++) {
        ddb_ent_read_opts so = {.page_size = 2};
        int guard = 0;
        do {
            OK(issue_unassigned(db, s, 3, &so, a, &pg, &err));
            total += pg.count;
            so.cursor = pg.cursor;
        } while (pg.cursor && ++guard < 50);
    }
    CHECK(total == 6, "unassigned over 3 segments: %zu", total); /* CORE 2,3,5,6,8 + WEB 1 */
    OK(issue_unassigned(db, 0, 0, NULL, a, &pg, &err));
    CHECK(pg.count == 6, "unassigned whole: %zu", pg.count);
    RC(DDB_EVALIDATION, issue_unassigned(db, 3, 3, NULL, a, &pg, &err));

    /* declared updates guarded by a condition */
    struct issue is;
    OK(issue_move(db, "CORE", 3, "open", "P1", "triage", NULL, a, &is, NULL, &err));
    CHECK(is.status && strcmp(is.status, "open") == 0 && is.version == 2, "moved v%u", (unsigned)is.version);
    RC(DDB_ECONDITION, issue_move(db, "CORE", 3, "open", "P1", "triage", NULL, a, &is, NULL, &err));
    OK(issue_by_status(db, "CORE", "open", issue_by_status_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 5, "moved onto open: %zu", pg.count);
    /* its ByStatus sort key was rendered with its priority (a "SET status = :to" alone
     * used to render "{priority}#..." with no priority: ddbgen now refuses it) */
    OK(issue_by_status(db, "CORE", "open", issue_by_status_priority(DDB_ENT_SK_EQ, "P1"), NULL, a, &pg, &err));
    CHECK(pg.count == 1 && pg.items[0].number == 3, "moved issue under P1: %zu", pg.count);
    /* ADD to a string set, twice the same element: a set (Expressions.UpdateExpressions.html#...ADD) */
    char *l1[] = {"ui", "bug"}, *l2[] = {"bug"};
    OK(issue_label(db, "CORE", 2, (ddb_string_set){l1, 2}, NULL, a, &is, NULL, &err));
    OK(issue_label(db, "CORE", 2, (ddb_string_set){l2, 1}, NULL, a, &is, NULL, &err));
    CHECK(is.labels.count == 2, "labels %zu", is.labels.count);
    OK(issue_estimate(db, "CORE", 2, 13, NULL, a, &is, NULL, &err));
    CHECK(is.points == 13 && is.version == 4, "estimate: %d v%u", is.points, (unsigned)is.version);

    /* close issue 2: status cleared by update_fields takes it off the sparse index
     * (bp-indexes-general-sparse-indexes.html) */
    OK(issue_close(db, "CORE", 2, "2025-11-26T15:00:00Z", NULL, a, &is, NULL, &err));
    RC(DDB_ECONDITION, issue_stamp_closed(db, "CORE", 2, "2025-11-26T15:00:01Z", NULL, a, &is, NULL, &err));
    OK(issue_by_status(db, "CORE", "open", issue_by_status_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 4, "closed left open: %zu", pg.count);
    /* closed with update_fields (status NULL) likewise: issue 6 */
    OK(issue_get(db, "CORE", 6, NULL, a, &is, &err));
    is.status = NULL;
    OK(issue_update_fields_if_in_status(db, &is, issue_mask(ISSUE_F_STATUS), "open", NULL, NULL, &err));
    OK(issue_by_status(db, "CORE", "open", issue_by_status_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 3, "6 closed too: %zu", pg.count);
    /* reopened by update_fields: back on the index under its priority */
    is.status = "open";
    OK(issue_update_fields(db, &is, issue_mask(ISSUE_F_STATUS), NULL, NULL, &err));
    OK(issue_by_status(db, "CORE", "open", issue_by_status_priority(DDB_ENT_SK_EQ, "P2"), NULL, a, &pg, &err));
    CHECK(pg.count == 1 && pg.items[0].number == 6, "6 reopened under P2: %zu", pg.count);
    OK(issue_get(db, "CORE", 2, NULL, a, &is, &err));
    CHECK(is.status == NULL && is.closed_at && strcmp(is.closed_at, "2025-11-26T15:00:00Z") == 0, "closed");
    OK(stats_closed(db, "CORE", -1, 1, NULL, a, NULL, NULL, &err));

    /* batch get: missing keys are not returned (API_BatchGetItem: "not found ... not returned") */
    struct issue keys[3] = {{.project = "CORE", .number = 3}, {.project = "CORE", .number = 99},
                            {.project = "WEB", .number = 1}};
    struct issue out[3];
    bool fnd[3];
    ddb_ent_mask masks[3];
    ddb_ent_mask tm = issue_mask(ISSUE_F_TITLE);
    ddb_ent_read_opts bo = {.fields = &tm};
    OK(issue_batch_get(db, keys, 3, &bo, a, out, masks, fnd, &err));
    CHECK(fnd[0] && !fnd[1] && fnd[2] && strcmp(out[2].title, "404 page") == 0 &&
              !ddb_ent_mask_has(&masks[0], ISSUE_FN_POINTS),
          "batch get");
}

static void comments(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    struct comment cs[30];
    for (int i = 0; i < 30; i++)
        cs[i] = (struct comment){.project = "CORE", .issue = (uint32_t)(i % 3 + 1), .posted_ms = now_ms + i,
                                 .author = "ann", .body = "+1"};
    /* BatchWriteItem takes 25 requests; the module splits (API_BatchWriteItem) */
    OK(comment_batch_put(db, cs, 30, NULL, NULL, &err));
    comment_page cp;
    OK(comment_table(db, "CORE", comment_table_issue(DDB_ENT_SK_EQ, 1), NULL, a, &cp, &err));
    CHECK(cp.count == 10, "comments on 1: %zu", cp.count);
    OK(comment_table(db, "CORE", comment_table_posted_ms_between(2, now_ms + 4, now_ms + 10), NULL, a,
                     &cp, &err));
    CHECK(cp.count == 3, "comments on 2 in a window: %zu", cp.count); /* +4, +7, +10 */

    /* the board collection: project + issues + comments, paged with a cursor */
    ddb_ent_read_opts o = {.page_size = 7};
    size_t np = 0, ni = 0, nc = 0, pages = 0;
    trk_board_result r;
    do {
        OK(trk_query_board(db, "CORE", NULL, &o, a, &r, &err));
        np += r.project_count;
        ni += r.issue_count;
        nc += r.comment_count;
        o.cursor = r.page.cursor;
    } while (r.page.cursor && ++pages < 50);
    CHECK(np == 1 && ni == 8 && nc == 30, "board: %zu projects %zu issues %zu comments", np, ni, nc);

    /* batch delete, then the issue's comments are gone */
    struct comment del[10];
    for (int i = 0; i < 10; i++)
        del[i] = cs[i * 3];
    OK(comment_batch_delete(db, del, 10, NULL, NULL, &err));
    OK(comment_table(db, "CORE", comment_table_issue(DDB_ENT_SK_EQ, 1), NULL, a, &cp, &err));
    CHECK(cp.count == 0, "deleted comments on 1: %zu", cp.count);
}

static void notices_stats_tx(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    /* TTL: an expired item is not read (docs/SCHEMA.md "TTL") */
    struct notice n1 = {.user = "ann", .text = "assigned #1", .expires = 4102444800};
    struct notice n2 = {.user = "ann", .text = "old", .expires = 1764028800};
    OK(notice_create(db, &n1, NULL, NULL, &err));
    OK(notice_create(db, &n2, NULL, NULL, &err));
    CHECK(strlen(n1.id) == 36 && strcmp(n1.id, n2.id) != 0, "uuids");
    notice_page np;
    OK(notice_table(db, "ann", notice_table_all(), NULL, a, &np, &err));
    CHECK(np.count == 1 && strcmp(np.items[0].text, "assigned #1") == 0, "unexpired notices: %zu", np.count);
    struct notice g;
    RC(DDB_ENOTFOUND, notice_get(db, "ann", n2.id, NULL, a, &g, &err));

    /* the counter shards: 8 opened, 1 closed */
    struct stats st;
    OK(stats_get(db, "CORE", NULL, a, &st, &err));
    CHECK(st.open_count == 7 && st.events == 9, "stats %" PRId64 " / %" PRId64, st.open_count, st.events);
    strcpy(st.description, "core counters");
    OK(stats_update_fields(db, &st, stats_mask(STATS_F_DESCRIPTION), NULL, NULL, &err));
    ddb_ent_mask hot = stats_mask(STATS_F_OPEN_COUNT), sm;
    ddb_ent_read_opts ho = {.fields = &hot, .mask = &sm};
    OK(stats_get(db, "CORE", &ho, a, &st, &err));
    CHECK(st.open_count == 7 && !ddb_ent_mask_has(&sm, STATS_FN_DESCRIPTION), "hot shard only");

    /* TransactWriteItems: all or nothing (transaction-apis.html) */
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    struct issue is = {.project = "CORE", .title = "tx issue", .status = "triage"};
    struct issue is10 = {.project = "CORE", .title = "tx issue 2", .status = "triage"};
    struct comment c = {.project = "CORE", .issue = 9, .posted_ms = 1, .author = "bob"};
    OK(issue_tx_create(tx, &is, NULL, &err));
    OK(issue_tx_create(tx, &is10, NULL, &err));
    OK(comment_tx_create(tx, &c, NULL, &err));
    OK(stats_tx_opened(tx, "CORE", 1, NULL, &err));
    OK(project_tx_check_active(tx, "CORE", false, NULL, &err));
    OK(ddb_ent_tx_commit(tx, NULL, NULL, &err));
    /* several creates of one scope draw consecutive ids (docs/SCHEMA.md "Generated ids") */
    CHECK(is.number == 9 && is10.number == 10, "tx auto ids %u %u", (unsigned)is.number, (unsigned)is10.number);
    tx = ddb_ent_tx_new(db, a, &err);
    struct issue is2 = {.project = "WEB", .title = "never", .status = "triage"};
    OK(issue_tx_create(tx, &is2, NULL, &err));
    OK(stats_tx_opened(tx, "WEB", 1, NULL, &err));
    OK(project_tx_check_active(tx, "WEB", false, NULL, &err)); /* WEB is archived */
    RC(DDB_ECANCELED, ddb_ent_tx_commit(tx, NULL, NULL, &err));
    issue_page pg;
    OK(issue_table(db, "WEB", issue_table_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 1, "cancelled tx wrote nothing: %zu", pg.count);
    OK(stats_get(db, "CORE", NULL, a, &st, &err));
    CHECK(st.open_count == 8 && st.events == 10, "stats after tx %" PRId64, st.open_count);

    /* batch delete of issues, table scan with segments sees every entity once */
    struct issue dk[3] = {{.project = "CORE", .number = 9}, {.project = "WEB", .number = 1},
                          {.project = "CORE", .number = 10}};
    OK(issue_batch_delete(db, dk, 3, NULL, NULL, &err));
    /* clearing the assignee with patch takes the issue off the sparse ByAssignee index */
    struct issue i4;
    OK(issue_get(db, "CORE", 4, NULL, a, &i4, &err));
    i4.assignee = NULL;
    OK(issue_patch(db, &i4, NULL, NULL, &err));
    OK(issue_assigned_to(db, "ann", issue_assigned_to_all(), NULL, a, &pg, &err));
    CHECK(pg.count == 1 && pg.items[0].number == 1, "ann's after patch: %zu", pg.count);
    size_t issues = 0, projects = 0, comments = 0, notices = 0, stats = 0;
    for (uint32_t s = 0; s < 4; s++) {
        ddb_ent_read_opts so = {.page_size = 5};
        trk_scan_result sr;
        int guard = 0;
        do {
            OK(trk_scan(db, s, 4, &so, a, &sr, &err));
            issues += sr.issue_count;
            projects += sr.project_count;
            comments += sr.comment_count;
            notices += sr.notice_count;
            stats += sr.stats_count;
            so.cursor = sr.page.cursor;
        } while (sr.page.cursor && ++guard < 100);
    }
    CHECK(issues == 8 && projects == 2 && comments == 21, "scan: %zu issues %zu projects %zu comments", issues,
          projects, comments);
    /* the expired notice is not scanned (docs/SCHEMA.md "TTL"); the sharded Stats is one entity */
    CHECK(notices == 1 && stats == 1, "scan: %zu notices %zu stats", notices, stats);
}

/* Requests DynamoDB refuses: each a ValidationException there, DDB_EVALIDATION here, and
 * nothing written. */
static void refusals(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    issue_page pg;
    /* "The BETWEEN operator requires upper bound to be greater than or equal to lower bound"
     * (Query.KeyConditionExpressions.html: BETWEEN a AND b needs a <= b) */
    RC(DDB_EVALIDATION, issue_table(db, "CORE", issue_table_number_between(5, 3), NULL, a, &pg, &err));
    RC(DDB_EVALIDATION, issue_numbered(db, "CORE", 7, 2, 0, NULL, a, &pg, &err));
    /* "Consistent reads are not supported on global secondary indexes" (GSI.html "Reading data from a GSI") */
    ddb_ent_read_opts cons = {.consistent = true};
    RC(DDB_EVALIDATION, issue_by_status(db, "CORE", "open", issue_by_status_all(), &cons, a, &pg, &err));
    OK(issue_table(db, "CORE", issue_table_all(), &cons, a, &pg, &err));
    /* TotalSegments is 1 to 1,000,000; Segment is below it (API_Scan "TotalSegments") */
    RC(DDB_EVALIDATION, issue_scan(db, 0, 1000001, NULL, a, &pg, &err));
    OK(issue_scan(db, 999999, 1000000, NULL, a, &pg, &err));
    /* BatchGetItem with the same key twice: "Provided list of item keys contains duplicates"
     * (API_BatchGetItem, ValidationException) */
    struct issue dup[2] = {{.project = "CORE", .number = 3}, {.project = "CORE", .number = 3}};
    struct issue out[2];
    bool fnd[2];
    RC(DDB_EVALIDATION, issue_batch_get(db, dup, 2, NULL, a, out, NULL, fnd, &err));
    /* BatchWriteItem with the same key twice (API_BatchWriteItem: "ValidationException ... There
     * are more than one request for the same item") */
    struct comment twice[2] = {{.project = "CORE", .issue = 3, .posted_ms = 5, .author = "x"},
                               {.project = "CORE", .issue = 3, .posted_ms = 5, .author = "y"}};
    RC(DDB_EVALIDATION, comment_batch_put(db, twice, 2, NULL, NULL, &err));
    struct comment gone;
    RC(DDB_ENOTFOUND, comment_get(db, "CORE", 3, 5, NULL, a, &gone, &err));
    /* ADD of a set holding duplicates: "Input collection contains duplicates"
     * (Expressions.UpdateExpressions.html; a set's elements are unique, DataModel/HowItWorks.NamingRulesDataTypes.html "Sets") */
    char *dl[] = {"x", "x"};
    RC(DDB_EVALIDATION, issue_label(db, "CORE", 3, (ddb_string_set){dl, 2}, NULL, a, NULL, NULL, &err));
    /* two operations on one item in a transaction: "Transaction request cannot include multiple
     * operations on one item" (transaction-apis.html, TransactWriteItems ValidationException) */
    ddb_ent_tx *tx = ddb_ent_tx_new(db, a, &err);
    OK(issue_tx_estimate(tx, "CORE", 3, 11, NULL, &err));
    OK(issue_tx_estimate(tx, "CORE", 3, 12, NULL, &err));
    RC(DDB_EVALIDATION, ddb_ent_tx_commit(tx, NULL, NULL, &err));
    struct issue is;
    OK(issue_get(db, "CORE", 3, NULL, a, &is, &err));
    CHECK(is.points == 2, "nothing written by the refused tx: %d", is.points);
    /* the caller's filter may not use the generated names (docs/SCHEMA.md "Declared queries and scans") */
    ddb_item *fv = ddb_item_new(a);
    ddb_item_set_i64(fv, ":ddb_min", 1);
    ddb_ent_read_opts fo = {.filter = "points > :ddb_min", .filter_values = fv};
    RC(DDB_EINVAL, issue_numbered(db, "CORE", 1, 8, 0, &fo, a, &pg, &err));
}

/* ConsumedCapacity of typed calls (read-write-capacity-mode / ProvisionedThroughput.html:
 * a read of an item up to 4 KB is 1 RCU strongly consistent, 0.5 eventually consistent;
 * a write up to 1 KB is 1 WCU; GSI.html "Global secondary indexes: write capacity": an
 * update that changes an attribute projected into an index costs a write there too, an
 * index the item is not on costs nothing). */
static void capacity(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    ddb_capacity cap;
    struct issue is;
    ddb_ent_read_opts ro = {.return_capacity = DDB_CAPACITY_TOTAL, .capacity = &cap};
    OK(issue_get(db, "CORE", 3, &ro, a, &is, &err));
    CHECK(cap.read == 0.5 && cap.total == 0.5, "eventual get: %g", cap.read);
    ro.consistent = true;
    OK(issue_get(db, "CORE", 3, &ro, a, &is, &err));
    CHECK(cap.read == 1.0, "consistent get: %g", cap.read);
    /* issue 3 is open (on ByStatus, ALL) and unassigned (not on ByAssignee) */
    memset(&cap, 0, sizeof cap);
    ddb_ent_opts wo = {.return_capacity = DDB_CAPACITY_INDEXES};
    OK(issue_estimate(db, "CORE", 3, 5, &wo, a, NULL, &cap, &err));
    double by_status = -1, by_assignee = 0;
    for (size_t i = 0; i < cap.n_indexes; i++) {
        if (!strcmp(cap.indexes[i].name, "ByStatus"))
            by_status = cap.indexes[i].write;
        if (!strcmp(cap.indexes[i].name, "ByAssignee"))
            by_assignee = cap.indexes[i].write;
    }
    CHECK(cap.table_write == 1.0 && by_status == 1.0 && by_assignee == 0 && cap.total == 2.0,
          "estimate: table %g ByStatus %g ByAssignee %g total %g", cap.table_write, by_status, by_assignee, cap.total);
}

/* Limit with a filter and with Select=COUNT: a page evaluates at most Limit items, the filter
 * runs after, a page may hold fewer and still have a LastEvaluatedKey; paging on sums to the
 * whole count (Query.FilterExpression.html, Query.Pagination.html, Query.html "Limiting the
 * number of items in the result set"). */
static void limits_and_ranges(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    issue_page pg;
    ddb_ent_read_opts cnt = {.count_only = true};
    OK(issue_numbered(db, "CORE", 1, 8, 4, &cnt, a, &pg, &err));
    size_t whole = pg.count, paged = 0, scanned = 0;
    CHECK(whole == 6, "points >= 4: %zu", whole); /* 2 (13), 3 (5), 5, 6, 7, 8 */
    ddb_ent_read_opts po = {.page_size = 3};
    int pages = 0;
    do {
        OK(issue_numbered(db, "CORE", 1, 8, 4, &po, a, &pg, &err));
        CHECK(pg.count <= 3 && pg.scanned_count <= 3, "page %zu of %zu", pg.count, pg.scanned_count);
        paged += pg.count;
        scanned += pg.scanned_count;
        po.cursor = pg.cursor;
    } while (pg.cursor && ++pages < 20);
    /* ScannedCount counts every item the key condition reads: the 8 issues and the 20
     * comments of issues 2 and 3, whose keys ("ISSUE#000002#C#...") sort inside the range */
    CHECK(paged == whole && scanned == 28, "filtered pages: %zu (scanned %zu)", paged, scanned);
    ddb_ent_read_opts cp = {.count_only = true, .page_size = 3};
    paged = 0;
    pages = 0;
    do {
        OK(issue_table(db, "CORE", issue_table_all(), &cp, a, &pg, &err));
        CHECK(pg.count <= 3, "count page %zu", pg.count);
        paged += pg.count;
        cp.cursor = pg.cursor;
    } while (pg.cursor && ++pages < 20);
    CHECK(paged == 8, "counted pages: %zu", paged);

    /* a collection page narrowed by a sort-key range: one issue's comments
     * (Query.KeyConditionExpressions.html: begins_with on the sort key) */
    ddb_ent_range one = {.op = DDB_SK_BEGINS_WITH, .lo = ddb_v_str(a, "ISSUE#000002#")};
    trk_board_result r;
    OK(trk_query_board(db, "CORE", &one, NULL, a, &r, &err));
    CHECK(r.comment_count == 10 && r.issue_count == 0 && r.project_count == 0, "board range: %zu comments",
          r.comment_count);
    /* the issue and its thread: begins_with "ISSUE#000003" (an issue's key is a prefix of its comments') */
    ddb_ent_range thread = {.op = DDB_SK_BEGINS_WITH, .lo = ddb_v_str(a, "ISSUE#000003")};
    OK(trk_query_board(db, "CORE", &thread, NULL, a, &r, &err));
    CHECK(r.issue_count == 1 && r.issue[0].number == 3 && r.comment_count == 10, "thread of 3: %zu + %zu",
          r.issue_count, r.comment_count);
    /* a filter that drops every item of a page still pages on */
    ddb_item *fn = ddb_item_new(a), *fv = ddb_item_new(a);
    ddb_item_set_s(fn, "#a", "author");
    ddb_item_set_s(fv, ":a", "bob");
    ddb_ent_read_opts fo = {.filter = "#a = :a", .filter_names = fn, .filter_values = fv, .page_size = 4};
    size_t bobs = 0;
    pages = 0;
    do {
        OK(trk_query_board(db, "CORE", NULL, &fo, a, &r, &err));
        bobs += r.comment_count + r.issue_count + r.project_count;
        fo.cursor = r.page.cursor;
    } while (r.page.cursor && ++pages < 50);
    CHECK(bobs == 1, "bob's on the board: %zu", bobs);
}

int main(int argc, char **argv)
{
    const char *uri = trial_uri(argc, argv);
    if (!uri)
        return 2;
    ddb_options opts = {.clock_ms = test_clock};
    ddb *db = trial_open(uri, &opts);
    if (!db)
        return 1;
    ddb_error err = {0};
    ddb_arena *a = ddb_arena_new();
    int rc = trk_open(db, &err);
    CHECK(rc == 0, "trk_open: %s", err.message);
    if (rc == 0) {
        projects(db, a);
        issues(db, a);
        comments(db, a);
        notices_stats_tx(db, a);
        refusals(db, a);
        capacity(db, a);
        limits_and_ranges(db, a);
    }
    return trial_done(argv[0], db, a);
}
