#!/bin/sh
# The whole test suite: a normal build (gcc) and an ASan+UBSan build (clang,
# which also builds and briefly runs the libFuzzer targets), both with
# warnings as errors.  First, Release builds with gcc and clang (the library,
# the tools, the examples and the benchmarks), so the build types a user
# picks keep building.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
JOBS=$(nproc 2>/dev/null || echo 2)
for cc in gcc clang; do
    CC=$cc cmake -S . -B build-release-$cc -DCMAKE_BUILD_TYPE=Release -DDDB_WERROR=ON -DDDB_BUILD_TESTS=OFF >/dev/null
    cmake --build build-release-$cc -j"$JOBS"
done
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDDB_WERROR=ON >/dev/null
cmake --build build -j"$JOBS"
(cd build && ctest --output-on-failure -j"$JOBS")
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDDB_SANITIZE=ON -DDDB_WERROR=ON -DDDB_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$JOBS")
