#!/bin/sh
# OptiWISE's Figure 1 in C (tests/progs/cpi_fig1.c): the inner loop runs
# 256 iterations per invocation, the outer loop once; the load that
# misses the caches costs far more per execution than anything else in
# the function (its block too), where the inner loop holds as many samples. And a divide
# (tests/progs/cpi_skid.c): the samples its time brings land on the
# instruction after it (docs/cpi.md, "Where a sample lands"), and are
# given back to it. Timing bounds are wide: a load missing the caches
# costs 100-300 ns, the inner loop's instructions well under 1 ns.
. "$(dirname "$0")/lib.sh"

"$WITCH" cpi -q --rate=2000 -o "$TMP/f" -- "$PROGS/cpi_fig1" >/dev/null 2>"$TMP/err"
is "$?" 0 "witch cpi runs Figure 1's program"
"$WITCH" report --format=json --function=kernel "$TMP/f" >"$TMP/j" 2>/dev/null
ok $? "witch report --function=kernel"
src=$TOP/tests/progs/cpi_fig1.c
load_line=$(line_of "$src" 'cpi: load')

is "$(jq -r '[.loops[]] | sort_by(.depth) | map("\(.depth) \(.invocations) \(.iterations_per_invocation)") |
	join(", ")' "$TMP/j")" "0 1 300000, 1 300000 256" \
	"the outer loop: 1 invocation of 300000 iterations; the inner: 256 per invocation, 300000 times"
inner_head=$(jq -r '.loops[] | select(.depth == 1) | .head' "$TMP/j")
inner_tail=$(jq -r '.loops[] | select(.depth == 1) | .tail' "$TMP/j")
# The load: the instruction of its line that reads memory (lea computes an address).
load=$(jq -r --argjson l "$load_line" '.instructions[] | select(.line == $l and (.disassembly | test("\\(")) and
	(.disassembly | startswith("lea") | not)) |
	"\(.offset) \(.ns_per_execution)"' "$TMP/j")
load_ns=$(echo "$load" | cut -d' ' -f2)
most=$(jq -r '[.instructions[] | select(.samples > 0)] | max_by(.ns_per_execution) | .offset' "$TMP/j")
is "$most" "$(echo "$load" | cut -d' ' -f1)" "the load has the highest time per execution in the function ($load_ns ns)"
inner_max=$(jq -r --argjson h "$inner_head" --argjson t "$inner_tail" \
	'[.instructions[] | select(.offset >= $h and .offset <= $t) | .ns_per_execution] | max' "$TMP/j")
within "$(awk -v a="$load_ns" -v b="$inner_max" 'BEGIN { print (b > 0 ? a / b : 1e9) }')" 10 1e12 \
	"... at least 10x any of the inner loop's instructions (worst $inner_max ns)"
within "$load_ns" 20 2000 "a cache miss costs tens to hundreds of nanoseconds"
is "$(jq -r --argjson h "$inner_head" '.blocks[] | select(.head == $h) | .executions' "$TMP/j")" 76800000 \
	"the inner loop's block: 256 x 300000 executions"
block=$(jq -r '[.blocks[] | select(.samples > 0)] | max_by(.ns_per_execution) | "\(.head) \(.tail)"' "$TMP/j")
within "$(echo "$load" | cut -d' ' -f1)" "${block% *}" "${block#* }" \
	"the block with the highest time per execution holds the load"
"$WITCH" report --function=kernel "$TMP/f" >"$TMP/t" 2>/dev/null
# The text rounds to two decimals: within 0.01 of the JSON's.
per_iter=$(jq -r '.loops[] | select(.depth == 1) | .ns_per_iteration' "$TMP/j")
within "$(awk -v h="$(printf '0x%x<-0x%x' "$inner_head" "$inner_tail")" '$1 == h { print $6 + 0 }' "$TMP/t")" \
	"$(awk -v v="$per_iter" 'BEGIN { print v - 0.01 }')" "$(awk -v v="$per_iter" 'BEGIN { print v + 0.01 }')" \
	"the text's loop table gives the inner loop's time per iteration"
line=$(jq -r '[.lines[] | select(.samples > 0)] | max_by(.ns_per_execution) | .line' "$TMP/j")
is "$line" "$load_line" "its line has the highest time per execution of the function's lines"
"$WITCH" report --function=kernel "$TMP/f" >"$TMP/t" 2>/dev/null
like "$(grep -A2 'cpi: load' "$TMP/t" | tail -n +2)" 'xor .*\(%' "the text report shows the load under its source line"
like "$(sed -n '/kernel (cpi_fig1): its basic blocks, by time/,/^$/p' "$TMP/t")" \
	"$(printf '^.? +%x +%x +cpi_fig1.c:[0-9-]+ +300000 ' ${block% *} ${block#* })" \
	"the text report's table of the function's blocks shows the load's, 300000 executions"

"$WITCH" cpi -q --rate=2000 -o "$TMP/d" -- "$PROGS/cpi_skid" div >/dev/null 2>&1
"$WITCH" report --format=json --function=divide "$TMP/d" >"$TMP/dj" 2>/dev/null
div=$(jq -r '.instructions[] | select(.disassembly | test("^div")) | .offset' "$TMP/dj")
after=$(jq -r --argjson d "$div" '[.instructions[] | select(.offset > $d)] | min_by(.offset) | .offset' "$TMP/dj")
is "$(jq -r '.instructions | max_by(.landed) | .offset' "$TMP/dj")" "$after" \
	"a divide's samples land on the instruction after it"
is "$(jq -r '.instructions | max_by(.ns_per_execution) | .offset' "$TMP/dj")" "$div" \
	"and are given back to it: the divide has the highest time per execution"
done_testing
