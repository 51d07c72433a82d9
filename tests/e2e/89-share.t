#!/bin/sh
# witch record --craft=share: a thread's sampled stores are watched by the
# other threads. Two threads incrementing adjacent counters of one cache
# line share it falsely, at the increment, in both threads' contexts; in a
# heap block, the line is named by the call that allocated it; padded to
# lines of their own, nothing is found; one counter incremented atomically
# by both is true sharing; a table all threads only read is nothing; a
# process with one thread has nothing to find. The runs take the same CPU
# time whether the threads run side by side or take turns on one core.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

p=$PROGS/share
src=$TOP/tests/progs/share.c
if [ "$WATCH_MODE" = pages ]; then
	expect_error "--craft=share without debug registers that fire" 'debug registers|breakpoints' \
		"$WITCH" record --craft=share -o "$TMP/refused" -- "$p" one 10
	done_testing
	exit
fi

# record MODE MS DIR [OPTIONS]: its output as the program's alone (which
# does not depend on how long it runs), and the JSON report in DIR.json.
# 1000 samples a second of each thread's CPU time, where traps are counted:
# dozens, where the default rate would give a handful.
record() {
	_m=$1 _ms=$2 _d=$3
	shift 3
	"$p" "$_m" 1 >"$TMP/$_m.native"
	"$WITCH" record --quiet --craft=share "$@" -o "$_d" -- "$p" "$_m" "$_ms" >"$TMP/$_m.out"
	ok $? "$_m: witch record --craft=share runs it"
	cmp -s "$TMP/$_m.native" "$TMP/$_m.out"; ok $? "$_m: same output as without witch"
	"$WITCH" report --format=json --top=0 "$_d" >"$_d.json"
}

# The weight per CPU-second of the pairs JQ selects.
rate() { jq "[.pairs[] | select($2) | .per_cpu_second] | add // 0" "$1"; }
traps() { jq "[.pairs[] | select($2) | .traps] | add // 0" "$1"; }
at() { echo ".kind == \"$1\" and .first[0].function == \"$2\" and .second[0].function == \"$2\" and .first[1].function == \"$3\" and .second[1].function == \"$3\""; }

# False sharing: each thread's counter, 8 bytes apart in one line.
record false 300 "$TMP/f" --rate=1000
bump=$(at false bump counting)
within "$(traps "$TMP/f.json" "$bump")" 5 100000 "false: false sharing at bump, in both threads' contexts (counting -> bump)"
false_rate=$(rate "$TMP/f.json" "$bump")
within "$false_rate" 1 1e9 "false: it has a rate per CPU-second"
# Noise, below: a twentieth of this false sharing.
noise=$(awk -v r="$false_rate" 'BEGIN { print r / 20 }')
is "$(jq '.totals.true_per_cpu_second' "$TMP/f.json")" 0 "false: no true sharing"
is "$(jq -r "[.pairs[] | select($bump) | .lines[0].first.variable, .lines[0].second.variable] | unique | join(\" \")" "$TMP/f.json")" \
	adjacent "false: the line is the variable adjacent's"
is "$(jq -r "[.pairs[] | select($bump) | .lines[] | [.first.offset, .second.offset] | sort | map(tostring) | join(\",\")] | unique | join(\" \")" "$TMP/f.json")" \
	"0,8" "false: the two accesses are at bytes 0 and 8 of the line"
"$WITCH" report "$TMP/f" >"$TMP/f.txt"
ok $? "false: the text report"
like "$(cat "$TMP/f.txt")" 'counting → bump \(share\.c:[0-9]+\)  FALSE_SHARING_WITH  counting → bump \(share\.c:[0-9]+\)' \
	"false: the text report names the pair FALSE_SHARING_WITH"
like "$(cat "$TMP/f.txt")" 'store at bytes 0-7 \(adjacent\+0\), other access at bytes 8-15 \(adjacent\+8\)' \
	"false: and the variable and the offsets in the line"
like "$(cat "$TMP/f.txt")" 'per CPU-second' "false: and the rate per CPU-second"
like "$(cat "$TMP/f.txt")" 'reading it: ' "false: and how to read it"

# The same in a heap block: the allocating call.
record heap 300 "$TMP/h" --rate=1000
mline=$(line_of "$src" 'malloc(2 \* sizeof')
within "$(traps "$TMP/h.json" "$(at false bump counting)")" 5 100000 "heap: false sharing at bump"
is "$(jq -r "[.pairs[] | .lines[] | .heap_block | select(. != null) | \"\(.bytes) \(.allocated_at[0].function) \(.allocated_at[0].line)\"] | unique | join(\" \")" "$TMP/h.json")" \
	"16 main $mline" "heap: the line is in a 16-byte block allocated at main (share.c:$mline)"
"$WITCH" report "$TMP/h" >"$TMP/h.txt"
like "$(cat "$TMP/h.txt")" "in a heap block of 16 bytes allocated at main \\(share\\.c:$mline\\): store at bytes [0-9]+-[0-9]+ \\(block\\+0\\), other access at bytes [0-9]+-[0-9]+ \\(block\\+8\\)" \
	"heap: the text report names the block and the offsets in it"

# Padded: the same threads, each counter on a line of its own.
record padded 300 "$TMP/pd" --rate=1000
within "$(jq '.totals.per_cpu_second' "$TMP/pd.json")" 0 "$noise" \
	"padded: nothing above noise"
is "$(traps "$TMP/pd.json" "$(at false bump counting)")" 0 "padded: no sharing at bump"

# True sharing: one counter, incremented atomically by both.
record true 300 "$TMP/t" --rate=1000
shared=$(at true bump_shared atomic_counting)
within "$(traps "$TMP/t.json" "$shared")" 5 100000 "true: true sharing at bump_shared, in both threads' contexts"
is "$(jq '.totals.false_per_cpu_second' "$TMP/t.json")" 0 "true: no false sharing"
is "$(jq -r "[.pairs[] | select($shared) | .lines[] | .first.variable, .second.variable] | unique | join(\" \")" "$TMP/t.json")" \
	shared_counter "true: the line is the variable shared_counter's"
"$WITCH" report "$TMP/t" >"$TMP/t.txt"
like "$(cat "$TMP/t.txt")" 'TRUE_SHARING_WITH' "true: the text report names the pair TRUE_SHARING_WITH"

# False sharing is listed before true sharing, whatever their weights.
"$WITCH" report --format=json "$TMP/t" "$TMP/f" >"$TMP/tf.json" 2>"$TMP/tf.err"
ok $? "the true and false runs merge in one report"
is "$(jq -r '[.pairs[].kind] | (map(select(. == "false")) | length) as $f | .[0:$f] | unique | join(" ")' "$TMP/tf.json")" \
	false "false sharing first, then true sharing"

# A table four threads only read: each writes to a line of its own.
record table 150 "$TMP/tb" --rate=1000
is "$(jq '.totals.threads' "$TMP/tb.json")" 5 "table: the main thread and four readers"
within "$(jq '.totals.per_cpu_second' "$TMP/tb.json")" 0 "$noise" \
	"table: nothing above noise (reads only)"
within "$(jq '.totals.stats.share_watches' "$TMP/tb.json")" 100 1e9 "table: though the readers watched each other's stores"

# One thread: nothing to find, said so.
record one 100 "$TMP/o"
"$WITCH" report "$TMP/o" >"$TMP/o.txt"
like "$(cat "$TMP/o.txt")" 'nothing to find: sharing needs two threads of one process' \
	"one thread: the report says there is nothing to find"

# Processes are followed as by the other crafts, and --no-follow stops it.
"$WITCH" record --quiet --craft=share -o "$TMP/sh" -- sh -c '"$0" false 100' "$p" >/dev/null
ok $? "a shell running it"
is "$(jq '.totals.threads' "$("$WITCH" report --format=json "$TMP/sh" >"$TMP/sh.json"; echo "$TMP/sh.json")")" 4 \
	"the shell's thread and the program's three, in two profiles"
"$WITCH" record --quiet --craft=share --no-follow -o "$TMP/nf" -- sh -c '"$0" false 100' "$p" >/dev/null
ok $? "--no-follow"
is "$(ls "$TMP/nf" | wc -l | tr -d ' ')" 1 "--no-follow: the shell's profile only"

# Bad input: options of other crafts, and reports that do not apply.
expect_error "--craft=share --approx" '--approx .*--craft=share compares no values' \
	"$WITCH" record --craft=share --approx=0.1 -o "$TMP/bad" -- "$p" one 10
expect_error "--craft=share --watch=pages" '--craft=share .*page protection' \
	"$WITCH" record --craft=share --watch=pages -o "$TMP/bad" -- "$p" one 10
[ ! -e "$TMP/bad" ]; ok $? "no output directory is left by bad options"
expect_error "--fail-above on a share profile" '--fail-above applies to' \
	"$WITCH" report --fail-above=0.1 "$TMP/f"
expect_error "compare on a share profile" 'compare takes dead, silent or load profiles' \
	"$WITCH" compare "$TMP/f" "$TMP/t"
done_testing
