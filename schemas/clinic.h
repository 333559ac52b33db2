/* clinic.h — seed 002: adjacency lists, an inverted GSI, GSI overloading,
 * and what a partition key does to the load on partitions.
 *
 * Table Clinic (PK / SK), one partition per patient:
 *   PATIENT#p-0001 / PATIENT#p-0001   the patient
 *   PATIENT#p-0001 / DOCTOR#d-01      a treatment: the patient-doctor edge
 *                                     (adjacency list: the patient's doctors)
 * GSI1 inverts the edges and is overloaded with other types of a doctor:
 *   DOCTOR#d-01 / PROFILE             the doctor
 *   DOCTOR#d-01 / PATIENT#p-0001      a treatment: the doctor's patients
 *   DOCTOR#d-01 / ROOM#r-101          a room assigned to the doctor
 *   DOCTOR#d-01 / EQUIPMENT#e-9001    equipment the doctor holds
 * so one Query returns a doctor with patients, rooms and equipment (the
 * collection "schedule").  Not every item is in GSI1: patients are not, and
 * an unassigned room has no doctor (sparse).
 *
 * The hot-partition demonstration: the same visits, keyed two ways.
 *   VisitsByDate     DATE#2024-03-04 / p-0001#0001   dates make few, hot partitions
 *   VisitsByPatient  PATIENT#p-0001 / 2024-03-04#0001   patients spread the load
 *   CheckIns         DATE#2024-03-04.0 ... .15 / p-0001#0001
 *                    still keyed by date, but write-sharded: each day's
 *                    check-ins spread over 16 partition keys (DDB_WRITE_SHARDS),
 *                    read back in one typed query (scatter-gather) */
#ifndef CLINIC_H
#define CLINIC_H

#include <ddb/schema.h>

DDB_TABLE(clinic, "Clinic",
          DDB_PRIMARY("PK", "SK"),
          DDB_GSI("GSI1", "GSI1PK", "GSI1SK"));

struct DDB_ENTITY(clinic, "Patient")
       DDB_KEY("table", "PATIENT#{patient_id}", "PATIENT#{patient_id}")
       DDB_COLLECTION("chart", "table")
patient {
    char patient_id[16];
    char name[64];
    char birth_date[11];
};

struct DDB_ENTITY(clinic, "Doctor")
       DDB_KEY("table", "DOCTOR#{doctor_id}", "DOCTOR#{doctor_id}")
       DDB_KEY("GSI1", "DOCTOR#{doctor_id}", "PROFILE")
       DDB_PATTERN("profile", "GSI1")
       DDB_COLLECTION("schedule", "GSI1")
doctor {
    char doctor_id[16];
    char name[64];
    char specialty[32];
};

/* The edge of the adjacency list, in the patient's partition; GSI1 holds it
 * the other way round. */
struct DDB_ENTITY(clinic, "Treatment")
       DDB_KEY("table", "PATIENT#{patient_id}", "DOCTOR#{doctor_id}")
       DDB_KEY("GSI1", "DOCTOR#{doctor_id}", "PATIENT#{patient_id}")
       DDB_PATTERN("of_doctor", "GSI1")
       DDB_COLLECTION("chart", "table")
       DDB_COLLECTION("schedule", "GSI1")
       DDB_QUERY("treated_since", "of_doctor", "", "since >= :date")
treatment {
    char patient_id[16];
    char doctor_id[16];
    char patient_name[64];   /* duplicated from the patient: immutable enough */
    char doctor_name[64];
    char since[11];
    char reason[64];
};

struct DDB_ENTITY(clinic, "Room")
       DDB_KEY("table", "ROOM#{room_id}", "ROOM#{room_id}")
       DDB_KEY("GSI1", "DOCTOR#{doctor_id}", "ROOM#{room_id}")
       DDB_PATTERN("of_doctor", "GSI1")
       DDB_COLLECTION("schedule", "GSI1")
room {
    char room_id[16];
    char *doctor_id;         /* NULL: unassigned, and then not in GSI1 */
    char wing[16];
    int32_t beds;
};

struct DDB_ENTITY(clinic, "Equipment")
       DDB_KEY("table", "EQUIPMENT#{serial}", "EQUIPMENT#{serial}")
       DDB_KEY("GSI1", "DOCTOR#{doctor_id}", "EQUIPMENT#{serial}")
       DDB_PATTERN("of_doctor", "GSI1")
       DDB_COLLECTION("schedule", "GSI1")
equipment {
    char serial[16];
    char *doctor_id;
    char kind[32];
};

/* ---- one workload, two partition keys ---- */

DDB_TABLE(visits_by_date, "VisitsByDate", DDB_PRIMARY("PK", "SK"));
DDB_TABLE(visits_by_patient, "VisitsByPatient", DDB_PRIMARY("PK", "SK"));
DDB_TABLE(check_ins, "CheckIns", DDB_PRIMARY("PK", "SK"));

struct DDB_ENTITY(visits_by_date, "VisitByDate")
       DDB_KEY("table", "DATE#{date}", "{patient_id}#{visit_no:04}")
       DDB_HEAT_OK("table", "the hot-partition demonstration: it is meant to throttle")
visit_by_date {
    char date[11];
    char patient_id[16];
    uint16_t visit_no;
    char doctor_id[16];
    char reason[64];
};

struct DDB_ENTITY(visits_by_patient, "VisitByPatient")
       DDB_KEY("table", "PATIENT#{patient_id}", "{date}#{visit_no:04}")
       DDB_PATTERN("visits", "table")
       DDB_QUERY("visits_between", "visits", "date BETWEEN :from AND :to")
visit_by_patient {
    char patient_id[16];
    char date[11];
    uint16_t visit_no;
    char doctor_id[16];
    char reason[64];
};

/* The date key again, write-sharded: a hash of the item's primary key picks
 * one of 16 partition keys per day, so a get by date, patient and visit
 * finds it and a query of the day reads all 16, merged in sort-key order.
 * (16 rather than 8: the engine, like DynamoDB, places partition keys by a
 * hash, and more keys spread more evenly over the table's partitions.) */
struct DDB_ENTITY(check_ins, "CheckIn")
       DDB_KEY("table", "DATE#{date}", "{patient_id}#{visit_no:04}")
       DDB_WRITE_SHARDS("table", 16, "hash")
check_in {
    char date[11];
    char patient_id[16];
    uint16_t visit_no;
    char doctor_id[16];
    char reason[64];
};

#endif
