#!/bin/sh
# Run examples on the embedded engine and through the remote backend against
# a private `ddb serve` (DDB_TEST_URI, set by tests/serve/with_serve.py), and
# compare their output (same_output.sh): the generated modules work
# unchanged against the server, multi-attribute index keys included.
#   with_serve.py DDB WORKDIR sh against_serve.sh WORK_DIR EXAMPLE_BINARY...
set -u
work=$1
shift
mkdir -p "$work"
. "$(dirname "$0")/same_output.sh"
status=0
for bin in "$@"; do
    same_output "$bin" "$DDB_TEST_URI" "$work" || status=1
done
exit $status
