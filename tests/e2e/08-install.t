#!/bin/sh
# `make install PREFIX=DIR` installs a witch that works from DIR alone.
. "$(dirname "$0")/lib.sh"

make -s -C "$TOP" install PREFIX="$TMP/inst" >"$TMP/make.log" 2>&1
ok $? "make install PREFIX=..."
[ -x "$TMP/inst/bin/witch" ]; ok $? "bin/witch installed"
[ -f "$TMP/inst/lib/witch/libwitch.so" ]; ok $? "lib/witch/libwitch.so installed"
cp "$PROGS/listing2" "$TMP/app"
"$TMP/inst/bin/witch" spy --quiet -o "$TMP/s" -- "$TMP/app" 300 >/dev/null
ok $? "installed witch spy runs its valgrind tool"
is "$("$TMP/inst/bin/witch" report --format=json "$TMP/s" | jq -r .tool)" deadspy "and its profile reads"
needs_debug_registers
"$TMP/inst/bin/witch" record --quiet -o "$TMP/p" -- "$TMP/app" 300 >/dev/null
ok $? "installed witch records"
"$TMP/inst/bin/witch" report --format=json "$TMP/p" >"$TMP/r.json"
ok $? "installed witch reports"
is "$(json "$TMP/r.json" '.tool')" dead "profile from the installed runtime"
done_testing
