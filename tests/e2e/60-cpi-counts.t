#!/bin/sh
# witch cpi counts exactly: loops with known trip counts (nested, calling
# a function, in a recursive function, of one iteration, OptiWISE Figure
# 6's back edges to one header with Table I's three loops and as one, no
# loop through the return path of a call that never returns)
# give exact invocations and iterations; instructions below a call and
# below recursion are Algorithm 1's; and the counting run counts the same
# whether Valgrind builds its translations from several blocks or not.
. "$(dirname "$0")/lib.sh"

p=$PROGS/cpi_loops
"$WITCH" cpi -q -o "$TMP/c" -- "$p" >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "witch cpi runs cpi_loops"
is "$("$p")" "$(cat "$TMP/out")" "its output passes through, once"
"$WITCH" report --format=json "$TMP/c" >"$TMP/j" 2>/dev/null
ok $? "witch report --format=json reads both runs"

# loops FUNCTION: "depth invocations iterations blocks" per loop, outermost first
loops() {
	jq -r --arg f "$1" '[.loops[] | select(.function == $f)] | sort_by(.depth) |
		map("\(.depth) \(.invocations) \(.iterations) \(.blocks)") | join(", ")' "$TMP/j"
}
fn() { jq -r --arg f "$1" ".functions[] | select(.function == \$f) | $2" "$TMP/j"; }

is "$(loops nested)" "0 1 7 3, 1 7 91 1" "nested: outer 7 iterations once, inner 13 per invocation, 7 times"
is "$(jq -r '.loops[] | select(.function == "nested" and .depth == 1) | .iterations_per_invocation' "$TMP/j")" \
	13 "nested: 13 iterations per invocation"
is "$(loops calls)" "0 1 50 2" "a loop calling a function: 50 iterations, once"
is "$(fn leaf .executions)" 52 "the function it calls: 50 invocations (and dispatch()'s 2)"
is "$(( $(fn calls .inclusive_instructions) - $(fn calls .instructions) ))" "$(( $(fn leaf .instructions) * 50 / 52 ))" \
	"the caller's instructions with callees are its own plus the callee's (Algorithm 1)"
is "$(loops recurse)" "0 10 30 1" "recursion 10 deep: its loop, 3 iterations in each of 10 calls"
is "$(fn recurse .executions)" 10 "recursion: 10 invocations"
is "$(fn recurse .inclusive_instructions)" "$(fn recurse .instructions)" \
	"recursion: below itself it counts once (its instructions, not ten nested sums)"
# Computed calls: recursion through a pointer counts once below itself,
# and the one call site in dispatch() gets what ran below each callee.
is "$(fn recurse_ptr .executions)" 12 "recursion through a pointer: 2 calls of 6 deep"
is "$(fn recurse_ptr .inclusive_instructions)" "$(fn recurse_ptr .instructions)" \
	"recursion through a pointer: below itself it counts once"
is "$(( $(fn dispatch .inclusive_instructions) - $(fn dispatch .instructions) ))" \
	"$(( $(fn leaf .instructions) * 2 / 52 + $(fn recurse_ptr .instructions) ))" \
	"a computed call site's callees: 2 calls of leaf() (of its 52) and all of recurse_ptr's"
is "$(loops once)" "0 20 20 1" "a loop of one iteration: 20 invocations, 20 iterations"
is "$(loops fig6_split)" "0 1 41 7, 1 41 81 4, 2 81 481 2" \
	"Figure 6 with Table I's frequencies: loops Z, Y in Z, X in Y, from five back edges"
is "$(jq -r '[.loops[] | select(.function == "fig6_split")] | map(.head) | unique | length' "$TMP/j")" 1 \
	"Figure 6: the three loops share their header"
is "$(loops fig6_merged)" "0 1 31 6" "two back edges to one header, taken alike: one loop of 31 iterations"
is "$(loops noreturn_loop)" "" "a call that never returns: its return site, though entered before it, heads no loop"

# The counting run alone, with and without Valgrind's chasing of jumps
# and calls, && joins and unrolled loops: the same records.
for chase in yes no; do
	mkdir "$TMP/$chase"
	VALGRIND_LIB="$TOP/build/lib/witch" valgrind -q --vex-guest-chase=$chase --tool=witchspy \
		--witch-tool=count --witch-out="$TMP/$chase" -- "$p" >/dev/null 2>&1
	grep '^[iec] ' "$TMP/$chase"/*.witch | sort >"$TMP/$chase.rec"
	grep -q '^stat inexact_translations 0$' "$TMP/$chase"/*.witch
	ok $? "--vex-guest-chase=$chase: every translation counted exactly"
done
# strings(): a rep string op executes once however often it repeats, and
# its repetitions are no edge.
prog=$(awk -v p="$p" '$1 == "module" && $5 == p { print $2 }' "$TMP/yes"/*.witch)
for op in "rep stos" "repz cmpsb"; do
	off=$(objdump -d --no-show-raw-insn "$p" | awk -v op="$op" '/<strings>:$/ { on = 1; next }
		on && NF == 0 { exit } on && index($0, op) { sub(/:$/, "", $1); print $1; exit }')
	for chase in yes no; do
		is "$(sed 's/^[^:]*://' "$TMP/$chase.rec" |
			awk -v m="$prog" -v o="$off" '$1 == "i" && $2 == m && $3 == o { print $5 }')" 30 \
			"strings, chase=$chase: the $op executes 30 times"
		is "$(sed 's/^[^:]*://' "$TMP/$chase.rec" |
			awk -v m="$prog" -v o="$off" '$1 == "e" && $2 == m && $3 == o && $5 == o')" "" \
			"strings, chase=$chase: the $op's repetitions are no edge"
	done
done
[ -s "$TMP/yes.rec" ] && cmp -s "$TMP/yes.rec" "$TMP/no.rec"
ok $? "the same executions, edges and calls with chasing as without ($(wc -l <"$TMP/yes.rec") records)"
done_testing
