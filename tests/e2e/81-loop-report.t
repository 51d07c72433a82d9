#!/bin/sh
# witch report on tool loop's profiles, written by hand with known
# numbers: two processes, one with two threads, whose loops merge by
# (module, header) and calling context and whose loads merge by
# instruction; flagged loops first (one exactly at RI), ranked by
# redundant reads; text and JSON; one-line errors on malformed loop
# lines, on profiles of different thresholds, and from witch compare.
. "$(dirname "$0")/lib.sh"

# The loops' headers and loads are code of witch itself, which has debug
# information: main calling wr_ratio (A), wr_stat (B), wr_redundancy (C)
# and wr_kind_name (D). A leaf is the instruction's own address; main's
# node, and A's when it calls B, are return addresses inside them.
MAIN=$(printf '%x' $((0x$(sym main) + 1)))
A=$(sym wr_ratio)
A1=$(printf '%x' $((0x$A + 1)))
B=$(sym wr_stat)
C=$(sym wr_redundancy)
D=$(sym wr_kind_name)

[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$D" ] && [ -n "$(sym main)" ]
ok $? "witch's own functions to make contexts of"

# profile PID THRESHOLDS "READS IN-LOOPS UNTRACKED LOOPS-UNTRACKED" THREAD...:
# a whole loop profile on stdout. Loops 0 (A, a.c:10-20), 1 (B, b.c:30-40),
# 2 (C, b.c:32-36, nested in 1) and 3 (D, d.c:50). Every thread has the
# nodes 1 main, 2 main>A, 3 main>B, 4 main>C, 5 main>D, 6 main>A(return
# address), 7 main>A>B; a THREAD is "TID;RECORD;RECORD...".
profile() {
	_pid=$1 _th=$2 _stats=$3
	shift 3
	{
		printf 'WITCH-PROFILE 1\ntool loop\nthresholds %s\nsource exhaustive\nrate_hz 0\n' "$_th"
		printf 'period 0\nregisters 0\npid %s\nstart_ns 1\nend_ns 2\nstatus complete\n' "$_pid"
		printf 'arg 0 ./app\nmodule 0 - 0 %s\n' "$MODULE"
		printf 'loop 2 0 %s 1 1 32 36 /src/b.c\n' "$C"
		printf 'loop 0 0 %s -1 0 10 20 /src/a.c\n' "$A"
		printf 'loop 1 0 %s -1 0 30 40 /src/b.c\n' "$B"
		printf 'loop 3 0 %s -1 0 50 50 /src/d.c\n' "$D"
		# shellcheck disable=SC2086
		printf 'stat reads %s\nstat reads_in_loops %s\nstat reads_untracked %s\nstat loops_untracked %s\nstat loops 4\n' $_stats
		for _t in "$@"; do
			echo "$_t" | awk -F';' -v M="$MAIN" -v A="$A" -v A1="$A1" -v B="$B" -v C="$C" -v D="$D" '{
				print "thread", $1, 8, NF - 1
				print "n 0 -1 -1 0 0"; print "n 1 0 0", M, 0
				print "n 2 1 0", A, 0; print "n 3 1 0", B, 0; print "n 4 1 0", C, 0
				print "n 5 1 0", D, 0; print "n 6 1 0", A1, 0; print "n 7 6 0", B, 0
				for (i = 2; i <= NF; i++) print $i
			}'
		done
	} | awk '{ print } END { print "end", NR }'
}

# Loop A: 2 + 1 invocations... in two threads of pid 101: data-intensive
# 100 + 100, redundant 85 + 75 = 160 of 200, exactly RI = 0.8: flagged.
# Loop C (nested in B): 10 of 10, flagged. Loop B, in both processes: 16
# of 60, not flagged. Loop D read nothing. A's loads: its own instruction
# (1000 + 1200) and wr_stat's, from two contexts (500 + 100).
T11="11;l 0 2 1 100 100 85 2000 1700;l 1 3 2 50 40 10 1000 300;x 0 2 2 1000;x 0 2 7 500"
T12="12;l 0 2 1 100 100 75 2000 1500;l 2 4 5 20 10 10 500 450;x 0 2 2 1200;x 2 4 4 450;x 0 2 3 100"
T21="21;l 1 3 1 30 20 6 600 100;l 3 5 1 1 0 0 0 0;x 1 3 3 400"
mkdir "$TMP/two"
profile 101 "10 0.9 0.8" "10000 6000 7 0" "$T11" "$T12" >"$TMP/two/app-101.witch"
profile 202 "10 0.9 0.8" "5000 2000 0 2" "$T21" >"$TMP/two/app-202.witch"

"$WITCH" report --format=json "$TMP/two" >"$TMP/json" 2>"$TMP/err"
ok $? "two processes, three threads report as JSON"
is "$(cat "$TMP/err")" "" "no warnings"
is "$(json "$TMP/json" '.tool')" loop "tool loop"
is "$(json "$TMP/json" '.thresholds | tojson')" '{"a":10,"r":0.9,"ri":0.8}' "the thresholds, as written"
is "$(json "$TMP/json" '.totals | [.reads, .reads_in_loops, .redundant_reads, .reads_untracked, .loops_untracked] | map(tostring) | join(" ")')" \
	"15000 8000 4050 7 2" "totals: reads and reads in loops summed, redundant reads of every loop, what was not tracked"
is "$(json "$TMP/json" '.totals | [.loops, .loops_reading, .loops_flagged, .threads] | map(tostring) | join(" ")')" \
	"4 3 2 3" "loops in their contexts, those that read, those flagged, threads"
is "$(json "$TMP/json" '[.loops[] | .function + ":" + (.flagged | tostring) + ":" + (.redundant_reads | tostring)] | join(" ")')" \
	"wr_ratio:true:3200 wr_redundancy:true:450 wr_stat:false:400 wr_kind_name:false:0" \
	"flagged loops first, then the others, each by redundant reads; JSON keeps the loop that read nothing"
is "$(json "$TMP/json" '.loops[0] | [.invocations, .iterations, .data_iterations, .redundant_iterations, .ratio, .reads, .redundant_reads] | map(tostring) | join(" ")')" \
	"2 200 200 160 0.8 4000 3200" "loop A's counters summed over two threads; its ratio exactly RI flags it"
is "$(json "$TMP/json" '.loops[2] | [.invocations, .iterations, .data_iterations, .redundant_iterations, .reads, .redundant_reads] | map(tostring) | join(" ")')" \
	"3 80 60 16 1600 400" "loop B's summed over two processes"
is "$(json "$TMP/json" '.loops[2] | [.ratio, .reads_per_iteration, .redundant_share] | map(tostring) | join(" ")')" \
	"0.266667 20 0.25" "ratio, reads per iteration, share of redundant reads"
is "$(json "$TMP/json" '.loops[0] | [.file, .first_line, .last_line, .header == "0x'"$A"'", .module == "'"$BIN"'", .depth] | map(tostring) | join(" ")')" \
	"/src/a.c 10 20 true true 0" "a loop's file and lines from its loop line, its header and module"
is "$(json "$TMP/json" '.loops[0].context | map(.function) | join(" ")')" "wr_ratio main" \
	"its calling context, leaf (the header) first"
is "$(json "$TMP/json" '.loops[0].context[0] | [has("file"), has("line"), has("linkage_name"), has("inlined"), .offset == "0x'"$A"'"] | map(tostring) | join(" ")')" \
	"true true true true true" "frames as in the other profiles"
is "$(json "$TMP/json" '[.loops[] | .parent | tojson] | join(" ")')" \
	'null {"file":"/src/b.c","first_line":30,"last_line":40} null null' "the nested loop names its parent's lines"
is "$(json "$TMP/json" '[.loops[0].top_reads[] | .function + ":" + (.redundant_reads | tostring)] | join(" ")')" \
	"wr_ratio:2200 wr_stat:600" "top reads: loads merged across threads and, by instruction, across contexts"
like "$(json "$TMP/json" '.loops[0].top_reads[0] | .file + ":" + (.line | tostring)')" 'metrics\.c:[0-9]+$' \
	"with their file and line"
is "$(json "$TMP/json" '.loops[3].top_reads | length')" 0 "a loop with no x records has no top reads"

"$WITCH" report --format=json --top=2 "$TMP/two" >"$TMP/json2"
is "$(json "$TMP/json2" '.loops | length')" 2 "--top=2 keeps the first two"

"$WITCH" report "$TMP/two" >"$TMP/text" 2>"$TMP/err"
ok $? "the same as text"
is "$(cat "$TMP/err")" "" "no warnings"
like "$(head -n 1 "$TMP/text")" '^witch report: loops that re-read \(read sets, exhaustive\), 2 processes, 3 threads$' \
	"the header names the tool, processes and threads"
like "$(cat "$TMP/text")" 'thresholds 10,0\.9,0\.8: an iteration of at least 10 reads is data-intensive' "the thresholds"
like "$(cat "$TMP/text")" 'reads: 15000, 8000 in loops \(53\.3%\), 4050 redundant \(27\.0% of all reads\)' "the totals"
like "$(cat "$TMP/text")" 'note: 7 reads were not tracked: a loop.s read set was full' "untracked reads are said"
like "$(cat "$TMP/text")" 'note: 2 visits of loop headers not counted' "and untracked loop header visits"
is "$(grep '^#' "$TMP/text" | sed 's/  */ /g')" "#1 flagged wr_ratio (a.c:10-20) 3200 of 4000 reads redundant (80.0%)
#2 flagged wr_redundancy (b.c:32-36) 450 of 500 reads redundant (90.0%)
#3 wr_stat (b.c:30-40) 400 of 1600 reads redundant (25.0%)" \
	"flagged loops first, ranked by redundant reads; the loop that read nothing left out"
like "$(grep -A1 '^#1 ' "$TMP/text" | tail -n 1)" '^    context: +main → wr_ratio \(metrics\.c:[0-9]+\)$' "the calling context on one line"
like "$(grep -A2 '^#2 ' "$TMP/text" | tail -n 1)" '^    nested: +in loop at b\.c:30-40$' "the nested loop's parent"
like "$(grep -A4 '^#1 ' "$TMP/text" | tail -n 2 | tr '\n' '|')" '^    iterations: +200, 20\.0 reads each\|    data-intensive: +200, of which redundant 160: ratio 0\.80 >= RI 0\.8\|$' \
	"iterations, reads per iteration, the ratio against RI"
like "$(grep -A7 '^#1 ' "$TMP/text" | tail -n 3 | tr '\n' '|')" '^    top redundant loads:\|      wr_ratio +metrics\.c:[0-9]+ +2200\|      wr_stat +metrics\.c:[0-9]+ +600\|$' \
	"the top redundant loads with their lines"
like "$(grep -A4 '^#3 ' "$TMP/text" | tail -n 1)" 'ratio 0\.27 < RI 0\.8' "an unflagged loop's ratio is below RI"

"$WITCH" report --top=1 "$TMP/two" >"$TMP/text1"
like "$(tail -n 1 "$TMP/text1")" '^showing 1 of 3 loops that read; --top=N shows more$' "--top=1 shows one loop and says so"

# RI just above loop A's ratio: A is no longer flagged and ranks after C.
mkdir "$TMP/ri"
profile 101 "10 0.9 0.81" "10000 6000 7 0" "$T11" "$T12" >"$TMP/ri/app-101.witch"
profile 202 "10 0.9 0.81" "5000 2000 0 2" "$T21" >"$TMP/ri/app-202.witch"
"$WITCH" report --format=json "$TMP/ri" >"$TMP/json3"
is "$(json "$TMP/json3" '[.loops[] | .function + ":" + (.flagged | tostring)] | join(" ")')" \
	"wr_redundancy:true wr_ratio:false wr_stat:false wr_kind_name:false" "RI 0.81: 160 of 200 is below it"

# Profiles judged by different thresholds do not merge.
mkdir "$TMP/mixed"
cp "$TMP/two/app-101.witch" "$TMP/mixed/"
cp "$TMP/ri/app-202.witch" "$TMP/mixed/"
expect_error "different thresholds" 'app-202\.witch judged loops with --thresholds=10,0\.9,0\.81 but .*app-101\.witch with --thresholds=10,0\.9,0\.8; .*separately' \
	"$WITCH" report "$TMP/mixed"

# Malformed loop profiles: the file and the line.
mkdir "$TMP/bad"
good="$TMP/two/app-202.witch"
lineof() { grep -n -- "$1" "$good" | head -n 1 | cut -d: -f1; }
L=$(lineof '^l 1 3 ')
sed 's/^l 1 3 1 30 20 6 600 100$/l 1 3 1 30 20 6 600/' "$good" >"$TMP/bad/fields.witch"
expect_error "an l line without a field" "fields\\.witch:$L: l line has 8 fields where 9 were expected" \
	"$WITCH" report "$TMP/bad/fields.witch"
sed 's/^l 1 3 1 30 20 6 600 100$/l 9 3 1 30 20 6 600 100/' "$good" >"$TMP/bad/unknown.witch"
expect_error "an l line of an unknown loop" "unknown\\.witch:$L: unknown loop 9" \
	"$WITCH" report "$TMP/bad/unknown.witch"
X=$(lineof '^x 1 3 ')
sed 's/^x 1 3 3 400$/x 7 3 3 400/' "$good" >"$TMP/bad/unknown-x.witch"
expect_error "an x line of an unknown loop" "unknown-x\\.witch:$X: unknown loop 7" \
	"$WITCH" report "$TMP/bad/unknown-x.witch"
sed 's/^l 1 3 1 30 20 6 600 100$/l 1 3 1 30 20 21 600 100/' "$good" >"$TMP/bad/iters.witch"
expect_error "more redundant iterations than data-intensive ones" "iters\\.witch:$L: 21 redundant iterations among 20 data-intensive ones" \
	"$WITCH" report "$TMP/bad/iters.witch"
sed 's/^l 1 3 1 30 20 6 600 100$/l 1 3 1 30 31 6 600 100/' "$good" >"$TMP/bad/data.witch"
expect_error "more data-intensive iterations than iterations" "data\\.witch:$L: 31 data-intensive iterations among 30 iterations" \
	"$WITCH" report "$TMP/bad/data.witch"
sed 's/^l 1 3 1 30 20 6 600 100$/l 1 3 1 30 20 6 600 601/' "$good" >"$TMP/bad/reads.witch"
expect_error "more redundant reads than reads" "reads\\.witch:$L: 601 redundant reads among 600 reads" \
	"$WITCH" report "$TMP/bad/reads.witch"
grep -v '^thresholds ' "$good" | awk '!/^end / { print } /^end / { print "end", NR - 1 }' >"$TMP/bad/nothresholds.witch"
expect_error "a loop profile without thresholds" 'nothresholds\.witch has no thresholds line' \
	"$WITCH" report "$TMP/bad/nothresholds.witch"

expect_error "witch compare on loop profiles" 'compare takes .*dead, silent or load profiles.*tool loop' \
	"$WITCH" compare "$TMP/two" "$TMP/two"
# Two instructions of one line with equal counts: the line's offset is
# the first instruction's, whichever the profile lists first.
for order in "x 3 5 2 10;x 3 5 6 10" "x 3 5 6 10;x 3 5 2 10"; do
	d="$TMP/tie$(echo "$order" | cut -c7)"
	mkdir "$d"
	profile 303 "10 0.9 0.8" "100 100 0 0" "13;l 3 5 1 10 10 10 100 20;$order" >"$d/app-303.witch"
	"$WITCH" report --format=json "$d" | jq -r '.loops[0].top_reads | map(.offset) | join(" ")' >"$d.off"
done
is "$(cat "$TMP/tie2.off")" "$(cat "$TMP/tie6.off")" "a line's offset does not depend on the profile's order"
is "$(cat "$TMP/tie2.off")" "0x$A" "... it is the first instruction's"

done_testing
