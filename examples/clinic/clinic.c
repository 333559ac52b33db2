/* clinic — seed 002 on the embedded engine (schema: schemas/clinic.h).
 *
 * Part 1: patients, doctors, rooms and equipment in one table.  A patient's
 * partition holds the patient and one item per doctor treating them (an
 * adjacency list); GSI1 inverts those edges (a doctor's patients) and is
 * overloaded: the same index holds the doctor's profile, rooms and
 * equipment, so one Query returns all of a doctor's schedule.
 *
 * Part 2: the same workload on two provisioned tables, one keyed by date,
 * one keyed by patient, and the per-partition load each ends up with.
 *
 * Part 3 (embedded engine only): throttle mode, the date-keyed table next
 * to the same key write-sharded over 16 partition keys (DDB_WRITE_SHARDS):
 * the write rate each sustains under the same provisioned capacity, and the
 * day's check-ins read back from the 16 shards in one typed query, in order.
 * The seconds are simulated (ddb_options.clock_ms), so the numbers are exact.
 *
 *   clinic [DIR]      DIR: database directory (default: in the build tree) */
#include "clinic_ddb.h"
#include "example.h"

#include <stdio.h>
#include <string.h>

static void print_schedule(const clinic_schedule_result *r, const ddb_capacity *cap)
{
    char cost[EX_COST_SIZE];
    printf("  one Query, %s:\n", ex_cost(cap, cost));
    for (size_t i = 0; i < r->doctor_count; i++)
        printf("    doctor     %s  %s (%s)\n", r->doctor[i].doctor_id, r->doctor[i].name, r->doctor[i].specialty);
    for (size_t i = 0; i < r->equipment_count; i++)
        printf("    equipment  %s  %s\n", r->equipment[i].serial, r->equipment[i].kind);
    for (size_t i = 0; i < r->treatment_count; i++)
        printf("    patient    %s  %s, %s since %s\n", r->treatment[i].patient_id, r->treatment[i].patient_name,
               r->treatment[i].reason, r->treatment[i].since);
    for (size_t i = 0; i < r->room_count; i++)
        printf("    room       %s  %s wing, %d bed%s\n", r->room[i].room_id, r->room[i].wing, r->room[i].beds,
               r->room[i].beds == 1 ? "" : "s");
}

/* ---- part 2: one workload, two keys ---- */

enum { VISITS = 800 };

static const char *const TODAY = "2024-03-04";

/* The partitions of a table: items, consumed units, share of the writes. */
static void print_partitions(ddb *db, const char *table, ddb_arena *a, double per_partition_wcu)
{
    ddb_error err = {0};
    ddb_partition_stats *ps;
    size_t np;
    EX_CHECK(ddb_table_stats(db, table, a, &ps, &np, &err));
    double total = 0, busiest = 0;
    for (size_t i = 0; i < np; i++) {
        total += ps[i].write_units;
        busiest = ps[i].write_units > busiest ? ps[i].write_units : busiest;
    }
    printf("  %s, %zu partitions:\n", table, np);
    printf("    partition  hash range                          items     WCU     RCU  writes\n");
    for (size_t i = 0; i < np; i++)
        printf("    %9zu  %016llx-%016llx  %5llu  %6g  %6g  %5.1f%%\n", i, (unsigned long long)ps[i].hash_lo,
               (unsigned long long)ps[i].hash_hi, (unsigned long long)ps[i].item_count, ps[i].write_units,
               ps[i].read_units, 100 * ps[i].write_units / total);
    /* a partition serves its share of the provisioned throughput, so the
     * busiest one caps the whole table */
    printf("    busiest partition: %.1f%% of the writes; at %g WCU/s per partition the table takes\n"
           "    at most %.0f writes/s of this workload before it throttles\n",
           100 * busiest / total, per_partition_wcu, per_partition_wcu * total / busiest);
}

static void hot_partition_demo(ddb *db, ddb_arena *a)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE], cost2[EX_COST_SIZE];
    printf("\nPart 2: one workload, two partition keys\n");
    /* provisioned throughput sizes the table: 6000 / 3000 + 2000 / 1000 = 4 partitions */
    ddb_table_def by_date = visits_by_date_table.def, by_patient = visits_by_patient_table.def;
    by_date.rcu = by_patient.rcu = 6000;
    by_date.wcu = by_patient.wcu = 2000;
    EX_CHECK(ddb_create_table(db, &by_date, &err));
    EX_CHECK(ddb_create_table(db, &by_patient, &err));
    EX_CHECK(visits_by_date_open(db, &err)); /* they exist now: this checks them against the schema */
    EX_CHECK(visits_by_patient_open(db, &err));
    printf("  tables VisitsByDate and VisitsByPatient, each provisioned with 6000 RCU and 2000 WCU\n");
    printf("  workload: %d patients check in on %s (one visit item each), then the front desk\n"
           "  reads each visit once (one GetItem each)\n\n",
           VISITS, TODAY);

    static struct visit_by_date d[VISITS];
    static struct visit_by_patient p[VISITS];
    for (int i = 0; i < VISITS; i++) {
        d[i] = (struct visit_by_date){.visit_no = 1};
        strcpy(d[i].date, TODAY);
        snprintf(d[i].patient_id, sizeof d[i].patient_id, "p-%04d", i + 1);
        snprintf(d[i].doctor_id, sizeof d[i].doctor_id, "d-%02d", i % 3 + 1);
        strcpy(d[i].reason, i % 4 ? "follow-up" : "first visit");
        p[i] = (struct visit_by_patient){.visit_no = 1};
        memcpy(p[i].patient_id, d[i].patient_id, sizeof p[i].patient_id);
        memcpy(p[i].date, d[i].date, sizeof p[i].date);
        memcpy(p[i].doctor_id, d[i].doctor_id, sizeof p[i].doctor_id);
        memcpy(p[i].reason, d[i].reason, sizeof p[i].reason);
    }
    /* the writes go in BatchWriteItem calls of 25: still one write (1 WCU) per visit */
    ddb_capacity cap, sum_d = {0}, sum_p = {0};
    EX_CHECK(visit_by_date_batch_put(db, d, VISITS, &ex_total, &cap, &err));
    sum_d.write = cap.write;
    EX_CHECK(visit_by_patient_batch_put(db, p, VISITS, &ex_total, &cap, &err));
    sum_p.write = cap.write;
    for (int i = 0; i < VISITS; i++) {
        char pid[16];
        snprintf(pid, sizeof pid, "p-%04d", i + 1);
        struct visit_by_date got_d;
        struct visit_by_patient got_p;
        EX_CHECK(visit_by_date_get(db, TODAY, pid, 1, EX_READS(&cap), a, &got_d, &err));
        sum_d.read += cap.read;
        EX_CHECK(visit_by_patient_get(db, pid, TODAY, 1, EX_READS(&cap), a, &got_p, &err));
        sum_p.read += cap.read;
        ddb_arena_reset(a);
    }
    printf("  the same cost on both: VisitsByDate %s, VisitsByPatient %s\n", ex_cost(&sum_d, cost),
           ex_cost(&sum_p, cost2));
    /* by patient, a patient's visits are one partition, in date order */
    visit_by_patient_page vp;
    EX_CHECK(visit_by_patient_visits_between(db, "p-0042", "2024-03-01", "2024-03-31", EX_READS(&cap), a, &vp, &err));
    printf("  visits of p-0042 in March (visit_by_patient_visits_between: SK BETWEEN dates): %zu, %s\n", vp.count,
           ex_cost(&cap, cost));
    EX_CHECK(visit_by_patient_visits(db, "p-0042", visit_by_patient_visits_visit_no(DDB_ENT_SK_EQ, TODAY, 1),
                                     EX_READS(&cap), a, &vp, &err));
    printf("  visit 1 of p-0042 on %s (level visit_no, EQ: the whole sort key): %zu, reason %s\n", TODAY, vp.count,
           vp.count ? vp.items[0].reason : "-");
    printf("  but not the same load per partition:\n\n");
    print_partitions(db, "VisitsByDate", a, 2000 / 4);
    printf("\n");
    print_partitions(db, "VisitsByPatient", a, 2000 / 4);
}

/* ---- part 3: write sharding in throttle mode ---- */

enum { OFFERED_PER_S = 2400, SECONDS = 4, TICKS_PER_S = 100 };

static int64_t sim_ms = INT64_C(1709510400000); /* 2024-03-04 00:00:00 UTC */

static int64_t sim_clock(void *ctx)
{
    (void)ctx;
    return sim_ms;
}

typedef struct rate {
    int accepted, throttled;
    int first_throttle; /* writes accepted before the first DDB_ETHROTTLED; -1: none */
    int after_first_s;  /* accepted after the first second (the bucket starts full: a burst) */
} rate;

static void count(rate *r, int rc, bool steady, ddb_error *err)
{
    if (rc == DDB_ETHROTTLED) {
        if (r->first_throttle < 0)
            r->first_throttle = r->accepted;
        r->throttled++;
    } else {
        ex_check(rc, err, "put a check-in");
        r->accepted++;
        r->after_first_s += steady;
    }
}

static void write_sharding_demo(ddb_arena *a)
{
    if (strstr(ex_dir(), "://"))
        return; /* throttle mode is the embedded engine's */
    char dir[4200];
    snprintf(dir, sizeof dir, "file:%s-throttle", ex_dir());
    /* no fsync per write: this part measures throughput units, not durability */
    ddb_options o = {.throttle = true, .clock_ms = sim_clock, .sync = DDB_SYNC_NONE};
    ddb *db;
    ddb_error err = {0};
    EX_CHECK(ddb_open(dir, &o, &db, &err));
    int rc = ddb_delete_table(db, "VisitsByDate", &err);
    if (rc != DDB_ENOTABLE)
        EX_CHECK(rc);
    if ((rc = ddb_delete_table(db, "CheckIns", &err)) != DDB_ENOTABLE)
        EX_CHECK(rc);
    ddb_table_def plain = visits_by_date_table.def, sharded = check_ins_table.def;
    plain.rcu = sharded.rcu = 6000;
    plain.wcu = sharded.wcu = 2000;
    EX_CHECK(ddb_create_table(db, &plain, &err));
    EX_CHECK(ddb_create_table(db, &sharded, &err));
    EX_CHECK(visits_by_date_open(db, &err));
    EX_CHECK(check_ins_open(db, &err));
    printf("\nPart 3: write sharding in throttle mode (simulated seconds)\n");
    printf("  VisitsByDate (DATE#{date}) and CheckIns (DATE#{date}, DDB_WRITE_SHARDS(\"table\", 16, \"hash\")),\n"
           "  each provisioned with 6000 RCU and 2000 WCU: 4 partitions of 500 WCU/s\n");
    printf("  workload: %d check-ins a second on %s for %d seconds, offered to both tables;\n"
           "  a throttled write is dropped (a client would back off and retry)\n\n",
           OFFERED_PER_S, TODAY, SECONDS);
    rate rp = {0, 0, -1, 0}, rs = {0, 0, -1, 0};
    int n = 0;
    for (int tick = 0; tick < SECONDS * TICKS_PER_S; tick++, sim_ms += 1000 / TICKS_PER_S) {
        for (int i = 0; i < OFFERED_PER_S / TICKS_PER_S; i++, n++) {
            struct visit_by_date v = {.visit_no = (uint16_t)(1 + n / 10000)};
            struct check_in c = {.visit_no = v.visit_no};
            strcpy(v.date, TODAY);
            strcpy(c.date, TODAY);
            snprintf(v.patient_id, sizeof v.patient_id, "p-%04d", n % 10000);
            memcpy(c.patient_id, v.patient_id, sizeof c.patient_id);
            snprintf(v.doctor_id, sizeof v.doctor_id, "d-%02d", n % 3 + 1);
            memcpy(c.doctor_id, v.doctor_id, sizeof c.doctor_id);
            strcpy(v.reason, "check-in");
            strcpy(c.reason, "check-in");
            bool steady = tick >= TICKS_PER_S;
            count(&rp, visit_by_date_put(db, &v, NULL, NULL, &err), steady, &err);
            count(&rs, check_in_put(db, &c, NULL, NULL, &err), steady, &err);
        }
    }
    printf("  %-13s %9s %9s %16s %22s\n", "table", "accepted", "throttled", "sustained rate", "first throttle after");
    double sp = (double)rp.after_first_s / (SECONDS - 1), ss = (double)rs.after_first_s / (SECONDS - 1);
    printf("  %-13s %9d %9d %14.0f/s %15d writes\n", "VisitsByDate", rp.accepted, rp.throttled, sp,
           rp.first_throttle);
    if (rs.first_throttle < 0)
        printf("  %-13s %9d %9d %14.0f/s %22s\n", "CheckIns", rs.accepted, rs.throttled, ss, "never");
    else
        printf("  %-13s %9d %9d %14.0f/s %15d writes\n", "CheckIns", rs.accepted, rs.throttled, ss,
               rs.first_throttle);
    printf("  (sustained: writes accepted per second after the first, whose full token buckets allow a burst)\n");
    printf("  the plain key is capped at one partition's share, 500 WCU/s; the sharded one spreads the day\n"
           "  over the table's partitions: %.1fx the sustained write rate\n\n",
           sp > 0 ? ss / sp : 0);
    /* the day comes back in one typed query: every shard, merged in sort-key order */
    check_in_page pg;
    ddb_capacity pcap;
    size_t total = 0, pages = 0;
    ddb_capacity sum = {0};
    char prev[40] = "", first[40] = "", last[40] = "";
    bool ordered = true;
    ddb_ent_read_opts q = {.page_size = 1000, .return_capacity = DDB_CAPACITY_TOTAL, .capacity = &pcap};
    do {
        EX_CHECK(check_in_table(db, "2024-03-04", check_in_table_all(), &q, a, &pg, &err));
        for (size_t i = 0; i < pg.count; i++) {
            char k[40];
            snprintf(k, sizeof k, "%s#%04u", pg.items[i].patient_id, pg.items[i].visit_no);
            ordered &= strcmp(prev, k) < 0;
            snprintf(prev, sizeof prev, "%s", k);
            if (!total)
                snprintf(first, sizeof first, "%s", k);
            snprintf(last, sizeof last, "%s", k);
            total++;
        }
        sum.read += pcap.read;
        q.cursor = pg.cursor;
        pages++;
        sim_ms += 1000; /* reads are throttled too: one page a second stays within 750 RCU/s */
    } while (q.cursor);
    char cost[EX_COST_SIZE];
    printf("  the day's check-ins from CheckIns in one typed query (check_in_table, %zu pages of up to\n"
           "  1000): %zu items from the 16 shards, %s by sort key (%s ... %s), %s\n",
           pages, total, ordered ? "in order" : "NOT in order", first, last, ex_cost(&sum, cost));
    printf("  `ddb stats VisitsByDate` and `ddb stats CheckIns` on %s-throttle draw the per-second timeline\n",
           ex_dir());
    ddb_close(db);
}

int main(int argc, char **argv)
{
    ddb_error err = {0};
    char cost[EX_COST_SIZE];
    const ddb_schema_table *tables[] = {&clinic_table, &visits_by_date_table, &visits_by_patient_table};
    ddb *db = ex_open(argc, argv, EX_DEFAULT_DIR, NULL, tables, 3);
    ddb_arena *a = ddb_arena_new();
    EX_CHECK(clinic_open(db, &err));

    printf("Part 1: adjacency list and an overloaded GSI (table Clinic)\n\n");
    struct doctor doctors[] = {
        {"d-01", "Dr. Amara Okafor", "cardiology"},
        {"d-02", "Dr. Lena Fischer", "pediatrics"},
        {"d-03", "Dr. Rui Costa", "orthopedics"},
    };
    struct patient patients[] = {
        {"p-0001", "Juan Perez", "1961-07-02"},
        {"p-0002", "Mei Tanaka", "1984-01-19"},
        {"p-0003", "Noah Schmidt", "2016-10-05"},
        {"p-0004", "Aisha Bello", "1990-03-27"},
    };
    struct treatment treatments[] = {
        {"p-0001", "d-01", "", "", "2021-05-10", "arrhythmia"},
        {"p-0001", "d-03", "", "", "2023-09-01", "knee replacement"},
        {"p-0002", "d-01", "", "", "2022-02-14", "hypertension"},
        {"p-0003", "d-02", "", "", "2017-01-20", "check-ups"},
        {"p-0004", "d-01", "", "", "2024-01-08", "chest pain"},
        {"p-0004", "d-02", "", "", "2024-02-02", "prenatal care"},
    };
    struct room rooms[] = {
        {"r-101", "d-01", "east", 2},
        {"r-102", "d-01", "east", 1},
        {"r-201", "d-02", "west", 4},
        {"r-301", NULL, "north", 6},
    };
    struct equipment equipment[] = {
        {"e-9001", "d-01", "ECG monitor"},
        {"e-9002", "d-02", "ultrasound"},
        {"e-9003", "d-03", "x-ray viewer"},
    };
    for (size_t i = 0; i < sizeof doctors / sizeof *doctors; i++)
        EX_CHECK(doctor_create(db, &doctors[i], NULL, NULL, &err));
    for (size_t i = 0; i < sizeof patients / sizeof *patients; i++)
        EX_CHECK(patient_create(db, &patients[i], NULL, NULL, &err));
    for (size_t i = 0; i < sizeof treatments / sizeof *treatments; i++) {
        /* the edge carries both names (duplicated: they rarely change) */
        struct treatment *t = &treatments[i];
        struct patient p;
        struct doctor d;
        EX_CHECK(patient_get(db, t->patient_id, NULL, a, &p, &err));
        EX_CHECK(doctor_get(db, t->doctor_id, NULL, a, &d, &err));
        strcpy(t->patient_name, p.name);
        strcpy(t->doctor_name, d.name);
        EX_CHECK(treatment_create(db, t, NULL, NULL, &err));
    }
    for (size_t i = 0; i < sizeof rooms / sizeof *rooms; i++)
        EX_CHECK(room_create(db, &rooms[i], NULL, NULL, &err));
    for (size_t i = 0; i < sizeof equipment / sizeof *equipment; i++)
        EX_CHECK(equipment_create(db, &equipment[i], NULL, NULL, &err));
    printf("Wrote 3 doctors, 4 patients, 6 treatments, 4 rooms (one unassigned), 3 pieces of equipment\n");

    /* the adjacency list: a patient and their doctors, one partition */
    clinic_chart_result chart;
    ddb_capacity cap;
    EX_CHECK(clinic_query_chart(db, "p-0001", NULL, EX_READS(&cap), a, &chart, &err));
    printf("\nPatient p-0001 with their doctors (Query PK = \"PATIENT#p-0001\"), %s:\n", ex_cost(&cap, cost));
    for (size_t i = 0; i < chart.patient_count; i++)
        printf("    patient    %s  %s, born %s\n", chart.patient[i].patient_id, chart.patient[i].name,
               chart.patient[i].birth_date);
    for (size_t i = 0; i < chart.treatment_count; i++)
        printf("    doctor     %s  %s, %s since %s\n", chart.treatment[i].doctor_id, chart.treatment[i].doctor_name,
               chart.treatment[i].reason, chart.treatment[i].since);

    /* the same edges inverted by GSI1: a doctor's patients */
    treatment_page tp;
    EX_CHECK(treatment_of_doctor(db, "d-01", treatment_of_doctor_all(), EX_READS(&cap), a, &tp, &err));
    printf("\nPatients of d-01 (GSI1: GSI1PK = \"DOCTOR#d-01\" AND begins_with(GSI1SK, \"PATIENT#\")), %s:\n",
           ex_cost(&cap, cost));
    for (size_t i = 0; i < tp.count; i++)
        printf("    %s  %s, %s\n", tp.items[i].patient_id, tp.items[i].patient_name, tp.items[i].reason);

    /* a declared query: the same partition, filtered (the schema's DDB_QUERY) */
    EX_CHECK(treatment_treated_since(db, "d-01", "2022-01-01", EX_READS(&cap), a, &tp, &err));
    printf("\nOf those, treated since 2022 (treatment_treated_since: filter since >= :date): %zu of %zu read, %s:\n",
           tp.count, tp.scanned_count, ex_cost(&cap, cost));
    for (size_t i = 0; i < tp.count; i++)
        printf("    %s  %s, since %s\n", tp.items[i].patient_id, tp.items[i].patient_name, tp.items[i].since);

    /* GSI overloading: profile, patients, rooms, equipment under one doctor */
    clinic_schedule_result sched;
    EX_CHECK(clinic_query_schedule(db, "d-01", NULL, EX_READS(&cap), a, &sched, &err));
    printf("\nEverything of d-01 (GSI1PK = \"DOCTOR#d-01\": four item types in one index partition)\n");
    print_schedule(&sched, &cap);

    room_page rp;
    EX_CHECK(room_of_doctor(db, "d-01", room_of_doctor_all(), EX_READS(&cap), a, &rp, &err));
    printf("\nOnly the rooms of d-01 (begins_with(GSI1SK, \"ROOM#\")): %zu, %s\n", rp.count, ex_cost(&cap, cost));
    EX_CHECK(room_of_doctor(db, "d-01", room_of_doctor_room_id(DDB_ENT_SK_EQ, "r-102"), EX_READS(&cap), a, &rp,
                            &err));
    printf("Room r-102 of d-01 (room_of_doctor_room_id, EQ: GSI1SK = \"ROOM#r-102\"): %zu, %s wing\n", rp.count,
           rp.count ? rp.items[0].wing : "-");

    /* not every item is in GSI1: only those with its partition key */
    ddb_page all, idx;
    EX_CHECK(ddb_scan(db, &(ddb_scan_params){.table = "Clinic"}, a, &all, &err));
    EX_CHECK(ddb_scan(db, &(ddb_scan_params){.table = "Clinic", .index = "GSI1"}, a, &idx, &err));
    printf("\nThe table holds %zu items, GSI1 %zu: patients and the unassigned room r-301 are not in it\n",
           all.count, idx.count);
    rooms[3].doctor_id = "d-02";
    EX_CHECK(room_update_fields(db, &rooms[3], room_mask(ROOM_F_DOCTOR_ID), &ex_indexes, &cap, &err));
    printf("Assign r-301 to d-02 (the room gains GSI1 keys): %s\n", ex_cost(&cap, cost));
    EX_CHECK(clinic_query_schedule(db, "d-02", NULL, EX_READS(&cap), a, &sched, &err));
    printf("Everything of d-02 now\n");
    print_schedule(&sched, &cap);

    ddb_arena_reset(a);
    hot_partition_demo(db, a);
    ddb_arena_reset(a);
    write_sharding_demo(a);
    ddb_arena_free(a);
    ddb_close(db);
    return 0;
}
