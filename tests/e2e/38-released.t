#!/bin/sh
# Memory the program releases ends the watches on it, unjudged
# (src/runtime/heap.c), as witch spy forgets released memory: the next
# owner clearing the block must not kill the old owner's last stores.
# Before heap.c, that false pair was 56 % of reuse's dead bytes with free,
# and present with realloc and munmap too.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

src="$(dirname "$0")/../progs/reuse.c"
last=$(line_of "$src" "the last writes")
clear=$(line_of "$src" "the clear")

# check HOW REPS
check() {
	how=$1 reps=$2
	"$PROGS/reuse" "$how" "$reps" >"$TMP/native-$how"
	"$WITCH" record --quiet --craft=dead --rate=4000 -o "$TMP/p-$how" -- "$PROGS/reuse" "$how" "$reps" >"$TMP/out-$how"
	ok $? "witch record --craft=dead reuse $how"
	cmp -s "$TMP/native-$how" "$TMP/out-$how"
	ok $? "reuse $how: same output as without witch"
	"$WITCH" report --format=json --top=100000 "$TMP/p-$how" >"$TMP/r-$how.json"
	is "$(json "$TMP/r-$how.json" "[.pairs[] | select(.watch[0].line == $last and .trap[0].line == $clear)] | length")" 0 \
		"reuse $how: no pair of the old owner's last writes with the next owner's clear"
	within "$(json "$TMP/r-$how.json" '.totals.stats.watches_released')" 1 100000000 \
		"reuse $how: watches ended by the release"
}

if registers_only "watches ended by free, realloc and munmap"; then
	check free 20000000
	check realloc 10000000
	check munmap 250000
fi
done_testing
