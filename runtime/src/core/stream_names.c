/* core/: the names of stream views and events (public:
 * ddb_stream_view_name, ddb_stream_event_name, ddb_stream_view_parse),
 * shared by the streams room and the remote backend.  Calls only the C
 * library. */
#include <ddb/ddb.h>

#include <strings.h>

static const char *const view_names[] = {"NONE", "KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};

const char *ddb_stream_view_name(ddb_stream_view v)
{
    return (unsigned)v < sizeof view_names / sizeof *view_names ? view_names[v] : "?";
}

const char *ddb_stream_event_name(ddb_stream_event e)
{
    switch (e) {
    case DDB_STREAM_INSERT: return "INSERT";
    case DDB_STREAM_MODIFY: return "MODIFY";
    case DDB_STREAM_REMOVE: return "REMOVE";
    default: return "?";
    }
}

int ddb_stream_view_parse(const char *s, ddb_stream_view *out)
{
    for (size_t i = 0; s && i < sizeof view_names / sizeof *view_names; i++)
        if (strcasecmp(s, view_names[i]) == 0) {
            *out = (ddb_stream_view)i;
            return DDB_OK;
        }
    return DDB_EINVAL;
}
