#!/bin/sh
# The whole test suite: a normal build (gcc) and an ASan+UBSan build (clang,
# which also builds and briefly runs the libFuzzer targets).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
JOBS=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$JOBS"
(cd build && ctest --output-on-failure -j"$JOBS")
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDDB_SANITIZE=ON -DDDB_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$JOBS")
