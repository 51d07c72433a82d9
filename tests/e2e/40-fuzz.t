#!/bin/sh
# The profile reader survives arbitrary bytes: libFuzzer (with ASan and
# UBSan) mutates real profiles for a fixed time and finds no crash, leak or
# undefined behaviour.
. "$(dirname "$0")/lib.sh"

f=$TOP/build/fuzz/fuzz_reader
[ -x "$f" ]; ok $? "the fuzzer is built (make fuzz)"
mkdir "$TMP/corpus"
cp "$TOP"/tests/fuzz/corpus/* "$TMP/corpus/"
"$f" -max_total_time="${WITCH_FUZZ_SECONDS:-8}" -seed=1 -rss_limit_mb=1024 -timeout=10 \
	-artifact_prefix="$TMP/" "$TMP/corpus" >"$TMP/log" 2>&1
st=$?
ok $st "fuzzing the reader for ${WITCH_FUZZ_SECONDS:-8} s finds nothing (exit $st)"
[ $st -eq 0 ] || tail -n 30 "$TMP/log" | sed 's/^/# /'
runs=$(grep -o 'Done [0-9]* runs' "$TMP/log" | grep -o '[0-9]*')
within "${runs:-0}" 1000 1e12 "it ran many inputs"
done_testing
