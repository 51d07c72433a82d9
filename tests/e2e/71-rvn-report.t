#!/bin/sh
# witch report on tool rvn's profiles, written by hand with known numbers:
# two processes, one with two threads, whose pairs merge by context and
# kind; the totals, the ranking and the shares in JSON and text; one-line
# errors on profiles that break the format's rules for rvn, and on witch
# spy's rvn options (refused before anything runs: no Valgrind needed).
. "$(dirname "$0")/lib.sh"

# The contexts are code of witch itself, which has debug information:
# main calling wr_ratio (A), wr_stat (B) and wr_redundancy (C). A leaf is
# the instruction's own address, main's node a return address inside it.
MAIN=$(printf '%x' $((0x$(sym main) + 1)))
A=$(sym wr_ratio)
B=$(sym wr_stat)
C=$(sym wr_redundancy)

# profile PID BY STATS THREADS...: a whole rvn profile on stdout. STATS
# is "computations redundant loads redundant stores redundant dropped";
# each thread is "TID NODE-ORDER R-LINES", NODE-ORDER the letters of its
# leaf nodes in id order (ids 2, 3, 4 after the root 0 and main 1), and
# R-LINES "first again kind count" lines in those letters, ';'-separated.
profile() {
	_pid=$1 _by=$2 _stats=$3
	shift 3
	{
		printf 'WITCH-PROFILE 1\ntool rvn\n'
		[ -n "$_by" ] && printf 'by %s\n' "$_by"
		printf 'source exhaustive\nrate_hz 0\nperiod 0\nregisters 0\npid %s\n' "$_pid"
		printf 'start_ns 1\nend_ns 2\nstatus complete\narg 0 ./app\nmodule 0 - 0 %s\n' "$MODULE"
		# shellcheck disable=SC2086
		printf 'stat computations %s\nstat redundant_computations %s\nstat loads %s\nstat redundant_loads %s\nstat stores %s\nstat redundant_stores %s\nstat dropped %s\n' $_stats
		for _t in "$@"; do
			thread "$_t"
		done
	} | awk '{ print } END { print "end", NR }'
}

# thread "TID ORDER R-LINES"
thread() {
	echo "$1" | awk -v A="$A" -v B="$B" -v C="$C" -v M="$MAIN" '{
		tid = $1; order = $2; sub(/^[^ ]+ [^ ]+ /, ""); n = split($0, rs, ";")
		addr["A"] = A; addr["B"] = B; addr["C"] = C
		print "thread", tid, 2 + length(order), n
		print "n 0 -1 -1 0 0"; print "n 1 0 0", M, 0
		for (i = 1; i <= length(order); i++) {
			l = substr(order, i, 1); id[l] = i + 1
			print "n", i + 1, 1, 0, addr[l], 0
		}
		for (i = 1; i <= n; i++) {
			split(rs[i], f, " ")
			print "r", id[f[1]], id[f[2]], f[3], f[4]
		}
	}'
}

[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$(sym main)" ]
ok $? "witch's own functions to make contexts of"

# (A, B, c): 300 + 100 + 200 = 600; (A, C, l): 150 + 100 = 250;
# (B, C, s): 100; (A, B, l): 50 -- the same contexts as the first pair,
# another kind. 1000 in all. Thread 12 numbers its nodes in another order.
mkdir "$TMP/two"
profile 101 symbol "4000 400 2000 150 1000 100 3" \
	"11 ABC A B c 300;A C l 150" "12 CBA A B c 100;B C s 100" >"$TMP/two/app-101.witch"
profile 202 symbol "1000 200 1000 150 500 0 0" \
	"21 ABC A B c 200;A C l 100;A B l 50" >"$TMP/two/app-202.witch"

"$WITCH" report --format=json "$TMP/two" >"$TMP/json" 2>"$TMP/err"
ok $? "two processes, three threads report as JSON"
is "$(cat "$TMP/err")" "" "no warnings"
is "$(json "$TMP/json" '.tool + " " + .by')" "rvn symbol" "tool rvn, by symbol"
is "$(json "$TMP/json" '.totals | [.computations, .redundant, .loads, .redundant_loads, .stores, .redundant_stores, .all, .all_redundant] | map(tostring) | join(" ")')" \
	"5000 600 3000 300 1500 100 9500 1000" "totals per kind and all kinds, summed over the processes"
is "$(json "$TMP/json" '.totals | [.redundancy, .load_redundancy, .store_redundancy, .all_redundancy] | map(tostring) | join(" ")')" \
	"0.12 0.1 0.066667 0.105263" "redundancy: redundant over all, per kind and together"
is "$(json "$TMP/json" '.totals | [.dropped, .threads, .pairs_found, .redundant_in_pairs] | map(tostring) | join(" ")')" \
	"3 3 4 1000" "dropped numbers, threads, pairs and what they account for"
is "$(json "$TMP/json" '[.pairs[] | .kind + ":" + (.redundant | tostring) + ":" + (.share | tostring)] | join(" ")')" \
	"computation:600:0.6 load:250:0.25 store:100:0.1 load:50:0.05" \
	"pairs merged by contexts and kind, ranked by redundant executions, with their shares"
is "$(json "$TMP/json" '[.pairs[] | (.first[0].function + ">" + .again[0].function)] | join(" ")')" \
	"wr_ratio>wr_stat wr_ratio>wr_redundancy wr_stat>wr_redundancy wr_ratio>wr_stat" \
	"each pair's first and again leaf frames"
is "$(json "$TMP/json" '.pairs[0].first | map(.function) | join(" ")')" "wr_ratio main" \
	"full contexts, leaf first"
is "$(json "$TMP/json" '.pairs[0].again[0] | [has("file"), has("line"), has("linkage_name"), has("inlined"), .module == "'"$BIN"'", .offset == "0x'"$B"'"] | map(tostring) | join(" ")')" \
	"true true true true true true" "frames as in the other profiles: file, line, module, offset"
like "$(json "$TMP/json" '.pairs[0].first[0].file')" 'metrics\.c$' "with their source file"

"$WITCH" report --format=json --top=2 "$TMP/two" >"$TMP/json2"
is "$(json "$TMP/json2" '.pairs | length')" 2 "--top=2 keeps the two largest pairs"

"$WITCH" report "$TMP/two" >"$TMP/text" 2>"$TMP/err"
ok $? "the same as text"
is "$(cat "$TMP/err")" "" "no warnings"
like "$(head -n 1 "$TMP/text")" '^witch report: redundant computation \(RVN, exhaustive, by symbol\), .*2 processes, 3 threads' \
	"the header names the tool, by, processes and threads"
like "$(cat "$TMP/text")" 'redundant computations: +12\.0%  \(600 of 5000\)' "computations' redundancy"
like "$(cat "$TMP/text")" 'redundant loads: +10\.0%  \(300 of 3000\)' "loads' redundancy"
like "$(cat "$TMP/text")" 'redundant stores: +6\.7%  \(100 of 1500\)' "stores' redundancy"
like "$(cat "$TMP/text")" 'redundant all kinds: +10\.5%  \(1000 of 9500\)' "all kinds together"
like "$(cat "$TMP/text")" 'note: 3 value numbers forgotten' "the dropped numbers are said"
is "$(grep '^#' "$TMP/text" | sed 's/  */ /g')" "#1 60.0% of redundant executions (computation, 600 redundant)
#2 25.0% of redundant executions (load, 250 redundant)
#3 10.0% of redundant executions (store, 100 redundant)
#4 5.0% of redundant executions (load, 50 redundant)" "every pair ranked, with its kind, count and share"
like "$(grep -A1 '^#1 ' "$TMP/text" | tail -n 1)" '^  main → wr_ratio \(metrics\.c:[0-9]+\)  REDUNDANT_WITH  main → wr_stat \(metrics\.c:[0-9]+\)$' \
	"the pair's contexts on one line, joined by REDUNDANT_WITH"
like "$(grep -A4 '^#1 ' "$TMP/text" | sed -n 3,5p | tr '\n' '|')" '^    first: +wr_ratio .*\|    +main .*\|    again: +wr_stat ' \
	"then each context in full, first and again"

"$WITCH" report --top=1 "$TMP/two" >"$TMP/text1"
like "$(tail -n 1 "$TMP/text1")" '^showing 1 of 4 pairs with redundant executions \(60\.0% of all redundant executions\); --top=N shows more' \
	"--top=1 shows one pair and says how much the rest hold"

# Profiles that break the rules for rvn: one line, non-zero exit.
mkdir "$TMP/bad"
good="$TMP/two/app-202.witch"
sed 's/^tool rvn$/tool deadspy/; /^by /d; /^r /d; s/^thread 21 5 3$/thread 21 5 1/; /^n 4 /a p 2 3 8.000 0.000 1' "$good" |
	awk '!/^end / { print } /^end / { print "end", NR - 1 }' >"$TMP/bad/dead.witch"
"$WITCH" report "$TMP/bad/dead.witch" >/dev/null 2>&1
ok $? "(a dead profile made the same way reads)"
sed 's/^p 2 3 8.000 0.000 1$/r 2 3 c 1/' "$TMP/bad/dead.witch" >"$TMP/bad/r-in-dead.witch"
expect_error "an r line in a dead profile" 'r-in-dead\.witch:[0-9]+: an r line in a profile of tool deadspy' \
	"$WITCH" report "$TMP/bad/r-in-dead.witch"
sed 's/^r 2 4 l 100$/p 2 4 8.000 0.000 1/' "$good" >"$TMP/bad/p-in-rvn.witch"
expect_error "a p line in an rvn profile" 'p-in-rvn\.witch:[0-9]+: a p line in a profile of tool rvn' \
	"$WITCH" report "$TMP/bad/p-in-rvn.witch"
sed 's/^r 2 4 l 100$/r 2 4 x 100/' "$good" >"$TMP/bad/kind.witch"
expect_error "a kind that is not c, l or s" "kind\\.witch:[0-9]+: bad kind 'x'" "$WITCH" report "$TMP/bad/kind.witch"
sed 's/^r 2 4 l 100$/r 2 4 l 0/' "$good" >"$TMP/bad/zero.witch"
expect_error "count 0" 'zero\.witch:[0-9]+: redundant count 0' "$WITCH" report "$TMP/bad/zero.witch"
profile 303 "" "1 0 1 0 1 0 0" "31 AB A B c 1" >"$TMP/bad/no-by.witch"
expect_error "an rvn profile without by" 'no-by\.witch has no by line' "$WITCH" report "$TMP/bad/no-by.witch"
sed 's/^tool deadspy$/tool deadspy\nby symbol/' "$TMP/bad/dead.witch" |
	awk '!/^end / { print } /^end / { print "end", NR - 1 }' >"$TMP/bad/by-in-dead.witch"
expect_error "by in a dead profile" 'by-in-dead\.witch:3: a by line in a profile of tool deadspy' \
	"$WITCH" report "$TMP/bad/by-in-dead.witch"
sed 's/^by symbol$/by colour/' "$good" >"$TMP/bad/by-colour.witch"
expect_error "by neither symbol nor value" "by-colour\\.witch:3: unknown by 'colour'" \
	"$WITCH" report "$TMP/bad/by-colour.witch"
grep -v '^stat loads ' "$good" | awk '!/^end / { print } /^end / { print "end", NR - 1 }' >"$TMP/bad/no-loads.witch"
expect_error "an rvn profile without its loads" 'no-loads\.witch has no stat loads' \
	"$WITCH" report "$TMP/bad/no-loads.witch"
sed 's/^stat redundant_stores 0$/stat redundant_stores 501/' "$good" >"$TMP/bad/more.witch"
expect_error "more redundant stores than stores" 'more\.witch counts 501 redundant_stores among 500 stores' \
	"$WITCH" report "$TMP/bad/more.witch"

# By symbol and by value are different measures.
mkdir "$TMP/mixed"
cp "$TMP/two/app-101.witch" "$TMP/mixed/"
profile 202 value "1000 200 1000 150 500 0 0" "21 ABC A B c 200" >"$TMP/mixed/app-202.witch"
expect_error "by symbol and by value together" 'numbered values by value but .* by symbol; .*separately' \
	"$WITCH" report "$TMP/mixed"
"$WITCH" report --format=json "$TMP/mixed/app-202.witch" >"$TMP/json3"
is "$(json "$TMP/json3" '.by')" value "by value on its own reports"

expect_error "witch compare on rvn profiles" 'compare takes .*dead, silent or load profiles' \
	"$WITCH" compare "$TMP/two" "$TMP/two"

# witch spy's options for rvn, refused before anything runs.
expect_error "--by=bogus" "^witch spy: --by=bogus is not a choice" "$WITCH" spy --tool=rvn --by=bogus -- /bin/true
expect_error "--by with --tool=dead" '^witch spy: --by=value applies to --tool=rvn, not --tool=dead' \
	"$WITCH" spy --tool=dead --by=value -- /bin/true
expect_error "--history=0" '^witch spy: --history=0 is not a history length' \
	"$WITCH" spy --tool=rvn --by=value --history=0 -- /bin/true
expect_error "--history=65" '^witch spy: --history=65 is not a history length' \
	"$WITCH" spy --tool=rvn --by=value --history=65 -- /bin/true
expect_error "--history with --by=symbol" '^witch spy: --history=8 applies to --tool=rvn --by=value only' \
	"$WITCH" spy --tool=rvn --by=symbol --history=8 -- /bin/true
expect_error "--history with rvn's default, by symbol" '^witch spy: --history=8 applies to --tool=rvn --by=value only' \
	"$WITCH" spy --tool=rvn --history=8 -- /bin/true
expect_error "an unknown tool names rvn among the choices" "^witch spy: unknown tool 'rvm'; .*--tool=rvn" \
	"$WITCH" spy --tool=rvm -- /bin/true
"$WITCH" spy --help >"$TMP/help"
like "$(cat "$TMP/help")" '--tool=dead\|silent\|load\|rvn' "--help lists rvn"
like "$(cat "$TMP/help")" '--by=symbol\|value' "and --by"
done_testing
