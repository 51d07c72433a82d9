#!/bin/sh
# witch causal --progress=FILE:LINE on lines an -O2 build spreads out
# (tests/progs/causal_visits.c): a line whose lowest address is hoisted
# before its loop, a line over a condition, both arms and after them, a
# line of a static inline function called twice a round, the line of a
# loop's header. Each counts the visits the COZ_PROGRESS_NAMED on the same
# line counts, within 1 %: both are exact counts, which an experiment's
# two snapshots of a visit can only split at its start or end. And a line
# that never runs: one line that names where it counted and the lines near
# it that ran; a line a goto enters midway: a warning that visits may
# count twice.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/tests/progs/causal_visits.c
PROG=$PROGS/causal_visits
ROUNDS=10000

if [ -z "$(progress_counters)" ]; then
	skip "counting --progress visits: $("$PROGS/dr_probe"); $("$PROGS/uprobe_probe")"
	done_testing
	exit
fi

# places DIR: the addresses the line table counts the --progress line at
places() { awk -F'\t' '$1 == "progress" { print $3 }' "$1/.causal-lines" | tr '\n' ' '; }
# lowest LINE: the line's lowest address in the line table of the DWARF
lowest() {
	LC_ALL=C readelf -W --debug-dump=decodedline "$PROG" |
		awk -v l="$1" '$1 == "causal_visits.c" && $2 == l { print $3 }' | sort | head -n 1 |
		sed 's/^0x0*//'
}
# visits DIR NAME-FILTER: the visits witch report gives the matching point
visits() { json "$1.json" "[.progress_points[] | select($2) | .visits] | add // 0"; }

for mode in hoisted split inlined header; do
	line=$(line_of "$SRC" "visits: $mode")
	"$WITCH" causal -q -o "$TMP/$mode" --progress="causal_visits.c:$line" -- \
		"$PROG" "$mode" "$ROUNDS" >/dev/null 2>"$TMP/$mode.err"
	is "$?:$(cat "$TMP/$mode.err")" 0: "$mode: causal_visits.c:$line runs, nothing said"
	"$WITCH" report --format=json "$TMP/$mode" >"$TMP/$mode.json" 2>/dev/null
	nc=$(visits "$TMP/$mode" ".name == \"$mode\"")
	nb=$(visits "$TMP/$mode" ".name | endswith(\"causal_visits.c:$line\")")
	diag "$mode: --progress at $(places "$TMP/$mode")(lowest address $(lowest "$line")): $nb visits, COZ_PROGRESS_NAMED $nc"
	within "$nc" 1000 "$((ROUNDS * 2))" "$mode: the COZ_PROGRESS_NAMED counts visits in experiments"
	within "$nb" "$((nc - nc / 100))" "$((nc + nc / 100))" "$mode: --progress counts the same visits"
done
# What makes each line hard, as the line table has it.
hoisted=$(line_of "$SRC" "visits: hoisted")
case " $(places "$TMP/hoisted")" in
*" $(lowest "$hoisted") "*) ok 1 "hoisted: the line's lowest address is not where visits start" ;;
*) ok 0 "hoisted: the line's lowest address is not where visits start" ;;
esac
is "$(places "$TMP/inlined" | wc -w)" 2 "inlined: one place in each inlined copy of the line"

line=$(line_of "$SRC" "visits: never")
"$WITCH" causal -o "$TMP/never" --progress="causal_visits.c:$line" -- \
	"$PROG" never "$ROUNDS" >/dev/null 2>"$TMP/never.err"
is $? 0 "never: the program's exit status passes through"
is "$(wc -l <"$TMP/never.err" | tr -d ' ')" 1 "never: one line on stderr"
like "$(cat "$TMP/never.err")" "^witch causal: --progress=causal_visits.c:$line was never reached: no visit of [^ ]*causal_visits.c:$line at 0x[0-9a-f]+ in never\(\) during the experiments; lines near it that ran: ([^ ]*causal_visits.c:[0-9]+, )*[^ ]*causal_visits.c:$((line - 2))[, ]" \
	"never: it names the line, where it counted and the line near it that ran"

line=$(line_of "$SRC" "visits: again")
"$WITCH" causal -o "$TMP/again" --progress="causal_visits.c:$line" -- \
	"$PROG" again 2000 >/dev/null 2>"$TMP/again.err"
is "$(places "$TMP/again" | wc -w)" 2 "again: visits start at the line's first statement and at the label"
like "$(head -n 1 "$TMP/again.err")" "^witch causal: warning: --progress=causal_visits.c:$line: a visit of [^ ]*causal_visits.c:$line that starts elsewhere may pass 0x[0-9a-f]+ in again\(\) too, and then counts twice$" \
	"again: a warning says which visits count twice"
"$WITCH" causal -q -o "$TMP/again-q" --progress="causal_visits.c:$line" -- \
	"$PROG" again 200 >/dev/null 2>"$TMP/again-q.err"
is "$(grep -c warning "$TMP/again-q.err")" 0 "again: -q leaves the warning out"
done_testing
