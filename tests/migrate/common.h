/* The nested struct every version of the migration test schema shares. */
#ifndef MIGRATE_COMMON_H
#define MIGRATE_COMMON_H
struct home {
    char city[32];
    char zip[12];
};
#endif
