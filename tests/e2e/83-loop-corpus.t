#!/bin/sh
# witch spy --tool=loop on its corpus (tests/progs/loop_bugs.c): C ports
# of Prometheus's Table III bugs and classic C ones, each flagged at its
# marked loop, each fix not flagged; clean loops (streaming, a stencil, a
# hash-table build) not flagged. Nothing in the program's own source is
# flagged but the bugs.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/tests/progs/loop_bugs.c
# run CASE VERSION: witch spy --tool=loop, the report's JSON in $TMP/CASE-VERSION.json
run() {
	d=$TMP/$1-$2
	"$WITCH" spy --quiet --tool=loop -o "$d" -- "$PROGS/loop_bugs" "$1" "$2" >"$d.out"
	ok $? "witch spy --tool=loop loop_bugs $1 $2"
	is "$(cat "$d.out")" "$("$PROGS/loop_bugs" "$1" "$2")" "$1 $2: the output passes through"
	"$WITCH" report --format=json "$d" >"$d.json"
}
# flagged CASE VERSION: the first lines of the loops flagged in the
# program's own source, sorted, on one line
flagged() {
	jq -r '[.loops[] | select(.flagged and (.file // "" | endswith("loop_bugs.c"))) | .first_line] | unique | map(tostring) | join(" ")' \
		"$TMP/$1-$2.json"
}

for c in subtract addall unique ordmap strlen keyword; do
	run "$c" bad
	is "$(flagged "$c" bad)" "$(line_of "$SRC" "/\\* loop: $c-bad")" "$c: the bug is flagged at its loop, and nothing else"
	run "$c" fixed
	is "$(flagged "$c" fixed)" "" "$c: the fix has no flagged loop"
done
for c in stream stencil hashbuild; do
	run "$c" bad
	is "$(flagged "$c" bad)" "" "$c: a clean loop is not flagged"
done

done_testing
