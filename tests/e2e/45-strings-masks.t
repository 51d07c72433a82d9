#!/bin/sh
# Stores that CPUs report apart from plain ones: memset's rep stosb, whose
# watched hit comes per byte here (AMD) and once per group of bytes on
# Intel CPUs with fast strings, and AVX-512 masked stores, which span 64
# bytes and write what their opmask selects (issue 28). The trap decoding
# itself is checked CPU by CPU in tests/unit/test_hit.c.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

# WITCH Listing 1: a 128 KiB table cleared with memset after every block.
if [ "$WATCH_MODE" = pages ]; then
	skip "Listing 1 under --watch=pages: it steps each byte of a page memset clears ($("$PROGS/dr_probe"))"
else
	for craft in dead silent; do
		"$WITCH" record --quiet --craft=$craft -o "$TMP/$craft" -- "$PROGS/listing1" >"$TMP/$craft.out"
		ok $? "record --craft=$craft runs listing1"
		is "$(cat "$TMP/$craft.out")" "$("$PROGS/listing1")" "its output passes through"
		"$WITCH" report --format=json --top=0 "$TMP/$craft" >"$TMP/$craft.json"
		# memset's own watches only: a sample that lands on one of the
		# program's 8-byte stores between two memsets outweighs eight of
		# memset's 1-byte ones, and is judged "not $craft", rightly.
		within "$(json "$TMP/$craft.json" '[.pairs[] | select(.watch[0].function | test("memset"))]
			| (map(.waste_bytes) | add) / (map(.waste_bytes + .use_bytes + .approx_waste_bytes) | add)')" 0.95 1.0 \
			"$craft: memset's stores over the table are $craft"
		like "$(json "$TMP/$craft.json" '.pairs[0].watch[0].function + " " + .pairs[0].trap[0].function')" \
			'memset.* .*memset' "$craft: the top pair is memset and memset again"
		is "$(json "$TMP/$craft.json" '.pairs[0].watch[1].line')" \
			"$(line_of "$TOP/tests/progs/listing1.c" 'memset(regs_used')" "$craft: called from Listing 1's memset line"
		within "$(json "$TMP/$craft.json" '.totals.stats.traps_unresolved / (.totals.traps + 1)')" 0 0.02 \
			"$craft: traps in memset are all resolved"
	done
fi
# The exhaustive truth agrees: memset's bytes are all dead (a few blocks).
"$WITCH" spy --quiet --tool=dead -o "$TMP/spy2" -- "$PROGS/listing1" 50 >/dev/null
ok $? "witch spy --tool=dead runs listing1 50"
"$WITCH" report --format=json "$TMP/spy2" >"$TMP/spy2.json"
within "$(json "$TMP/spy2.json" '.totals.redundancy')" 0.95 1.0 "the spy: memset's stores are dead too"

# AVX-512: a store masked to one half of a line never touches the other.
if ! grep -qw avx512bw /proc/cpuinfo; then
	skip "AVX-512 masked stores: this CPU has no AVX512BW ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
elif [ "$WATCH_MODE" = pages ]; then
	skip "AVX-512 masked stores under --watch=pages: not checked"
else
	# 100 million rounds, 0.8 s: the default 20 million gave some 11
	# samples, and one run in 20 with the other core busy had none of
	# store_high's killed by store_all.
	"$WITCH" record --quiet --craft=dead -o "$TMP/avx" -- "$PROGS/avx512_masked" 100000000 >"$TMP/avx.out"
	ok $? "record --craft=dead runs avx512_masked"
	is "$(cat "$TMP/avx.out")" "$("$PROGS/avx512_masked" 100000000)" "its output passes through"
	"$WITCH" report --format=json --top=0 "$TMP/avx" >"$TMP/avx.json"
	pair() { json "$TMP/avx.json" "[.pairs[] | select(.watch[0].function == \"$1\" and .trap[0].function == \"$2\") | .waste_bytes] | add // 0"; }
	is "$(pair store_low store_high)" 0 "store_high never kills store_low's half"
	is "$(pair store_high store_low)" 0 "store_low never kills store_high's half"
	within "$(pair store_low store_all)" 1 1e12 "store_low's half is killed by store_all"
	within "$(pair store_high store_all)" 1 1e12 "store_high's half is killed by store_all"
	within "$(json "$TMP/avx.json" '.totals.redundancy')" 0.7 1.0 "nearly all of it is dead"
fi
done_testing
