#!/bin/sh
# WITCH Listing 2: dead stores separated by a million other stores are found,
# and the dead pair first() KILLED_BY second() is the top pair.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --rate=1000 -o "$TMP/p" -- "$PROGS/listing2" >"$TMP/out"
ok $? "witch record runs listing2"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
ok $? "witch report --format=json"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function')" first "top pair: watched store in first()"
is "$(json "$TMP/r.json" '.pairs[0].trap[0].function')" second "top pair: killed by a store in second()"
within "$(json "$TMP/r.json" '.pairs[0].share')" 0.90 1.0 "the top pair holds nearly all the waste"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].file | split("/") | last')" listing2.c "source file of the dead store"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].line')" \
	"$(line_of "$TOP/tests/progs/listing2.c" 'array\[i\] = v;')" "source line of the dead store"
# first's stores are dead, second's are read by checksum(): about half.
within_todo_with_pages "$(json "$TMP/r.json" '.totals.redundancy')" 0.35 0.65 "dead fraction of listing2"
"$WITCH" report "$TMP/p" >"$TMP/r.txt"
like "$(cat "$TMP/r.txt")" 'first .*KILLED_BY.* second' "text report shows first KILLED_BY second"
done_testing
