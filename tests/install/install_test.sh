#!/bin/sh
# The installed package, used the way another project would use it.
#
#   install_test.sh CMAKE BUILD_DIR WORK_DIR C_COMPILER GENERATOR PKG_CONFIG
#
# 1. cmake --install BUILD_DIR into WORK_DIR/prefix.
# 2. project/ (find_package(ddbgen) + ddbgen_add_module) configured and built
#    against that prefix; its program's output must be expected.txt.
# 3. Incremental builds: nothing reruns when nothing changed; ddbgen reruns
#    when a template, the ddbgen executable, the schema or a header the schema
#    includes changes, and an unchanged output recompiles nothing.
# 4. The prefix is moved (it is relocatable); the installed ddbgen run by hand
#    (no --templates, no -I: it finds both from its own location), then
#    main.c and the generated module compiled with
#    `pkg-config --cflags --libs ddbgen`; same output.
# 5. json_use.c, a consumer of the installed <ddb/json.h>, built the same way.
set -eu
CMAKE=$1 BUILD=$2 WORK=$3 CC=$4 GEN=$5 PKG_CONFIG=$6
HERE=$(cd "$(dirname "$0")" && pwd)

rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "cmake --install $BUILD --prefix $WORK/prefix"
"$CMAKE" --install "$BUILD" --prefix "$WORK/prefix" >install.log || { cat install.log; fail "install"; }
for f in bin/ddbgen include/ddb/ddb.h include/ddb/expr.h include/ddb/entity.h include/ddb/schema.h include/ddb/json.h \
         share/ddbgen/templates/module.h.mustache; do
    [ -e "prefix/$f" ] || fail "not installed: $f"
done
PC=$(find prefix -name ddbgen.pc)
CFG=$(find prefix -name ddbgenConfig.cmake)
if [ -z "$PC" ] || [ -z "$CFG" ] || [ ! -e "$(dirname "$CFG")/ddbgenConfigVersion.cmake" ]; then
    fail "ddbgen.pc / ddbgenConfig.cmake / ddbgenConfigVersion.cmake missing"
fi
for f in README.md SCHEMA.md ARCHITECTURE.md MODEL.md STREAMS.md REMOTE.md SERVER.md CONFORMANCE.md USING.md TOUR.md ENGINE.md TOOL.md PERFORMANCE.md; do   # the documentation, with the headers (docs/)
    [ -s "prefix/share/doc/ddbgen/$f" ] || fail "not installed: share/doc/ddbgen/$f"
done

step "configure and build project/ with find_package(ddbgen)"
cp -R "$HERE/project" src
"$CMAKE" -S src -B build -G "$GEN" -DCMAKE_C_COMPILER="$CC" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
    -DCMAKE_BUILD_TYPE=Debug >configure.log 2>&1 || { cat configure.log; fail "configure"; }
grep -q "^ddbgen_DIR:PATH=$WORK/prefix/" build/CMakeCache.txt || fail "find_package(ddbgen) found another ddbgen"
build() { # build LOG: build, keep the log
    "$CMAKE" --build build >"$1" 2>&1 || { cat "$1"; fail "build ($1)"; }
}
build build1.log
grep -q "ddbgen schemas/todo.h" build1.log || { cat build1.log; fail "ddbgen did not run"; }
[ -f build/ddbgen/todo_db/todo_ddb.h ] || fail "generated header not in the build tree"
cp build/ddbgen/todo_db/todo_ddb.c generated1.c
(mkdir run && cd run && ../build/todo >../out.txt) || fail "the program failed"
diff -u "$HERE/expected.txt" out.txt || fail "unexpected output"

step "incremental builds"
reran() { grep -q "ddbgen schemas/todo.h" "$1"; }
compiled() { grep -q "Building C object" "$1"; }
build build2.log
if reran build2.log || compiled build2.log; then cat build2.log; fail "a no-op build did work"; fi
sleep 1
touch prefix/share/ddbgen/templates/module.c.mustache
build build3.log
reran build3.log || { cat build3.log; fail "no rerun after a template changed"; }
! compiled build3.log || { cat build3.log; fail "same output, yet recompiled"; }
sleep 1
touch prefix/bin/ddbgen
build build4.log
reran build4.log || { cat build4.log; fail "no rerun after ddbgen changed"; }
! compiled build4.log || { cat build4.log; fail "same output, yet recompiled"; }
sleep 1
echo '#define TODO_EXTRA 1' >src/schemas/extra.h
sed 's|#include <ddb/schema.h>|#include <ddb/schema.h>\n#include "extra.h"|' "$HERE/project/schemas/todo.h" \
    >src/schemas/todo.h
build build5.log
reran build5.log || { cat build5.log; fail "no rerun after the schema changed"; }
sleep 1
echo '#define TODO_EXTRA 2' >src/schemas/extra.h
build build6.log
reran build6.log || { cat build6.log; fail "no rerun after a header the schema includes changed"; }
build build7.log
! reran build7.log || { cat build7.log; fail "a no-op build reran ddbgen"; }

step "relocated prefix: ddbgen by hand, pkg-config"
mv prefix moved
PC=$(find moved -name ddbgen.pc)
PKG_CONFIG_PATH="$WORK/$(dirname "$PC")"
export PKG_CONFIG_PATH
DDBGEN=$("$PKG_CONFIG" --variable=ddbgen ddbgen)
LIBDIR=$("$PKG_CONFIG" --variable=libdir ddbgen)
[ -x "$DDBGEN" ] || fail "pkg-config --variable=ddbgen: '$DDBGEN'"
mkdir hand
(cd "$HERE/project" && "$DDBGEN" -o "$WORK/hand" schemas/todo.h) || fail "ddbgen -o"
cmp hand/todo_ddb.c generated1.c || fail "by hand and by ddbgen_add_module differ"
(cd "$HERE/project" && "$DDBGEN" --emit-model "$WORK/hand/todo.model.json" schemas/todo.h &&
    "$DDBGEN" --check-compat "$WORK/hand/todo.model.json" schemas/todo.h) || fail "--emit-model, --check-compat"
echo '/* from the installed templates */' >>moved/share/ddbgen/templates/module.c.mustache
mkdir hand2
(cd "$HERE/project" && "$DDBGEN" -o "$WORK/hand2" schemas/todo.h) || fail "ddbgen -o (2)"
grep -q "from the installed templates" hand2/todo_ddb.c || fail "the installed ddbgen ignored its templates"
# shellcheck disable=SC2046 # pkg-config output is a list of words
"$CC" -std=c11 -Wall -Wextra -Werror -o hand/todo -Ihand -I"$HERE/project/schemas" \
    "$HERE/project/main.c" hand/todo_ddb.c $("$PKG_CONFIG" --cflags --libs ddbgen) -Wl,-rpath,"$LIBDIR" ||
    fail "compile with pkg-config"
(mkdir run2 && cd run2 && ../hand/todo >../out2.txt) || fail "the pkg-config program failed"
diff -u "$HERE/expected.txt" out2.txt || fail "unexpected output (pkg-config)"

step "<ddb/json.h> from the installed tree (with jansson's headers)"
# shellcheck disable=SC2046 # pkg-config output is a list of words
"$CC" -std=c11 -pedantic -Wall -Wextra -Werror -o hand/json_use "$HERE/json_use.c" \
    $("$PKG_CONFIG" --cflags --libs ddbgen) $("$PKG_CONFIG" --cflags jansson) -Wl,-rpath,"$LIBDIR" ||
    fail "compile json_use.c with pkg-config"
hand/json_use >json_out.txt || fail "json_use failed"
echo '{"price":{"N":"1.5"},"tags":{"SS":["a","b"]}}' | diff -u - json_out.txt || fail "unexpected output (json_use)"
echo "ok"
