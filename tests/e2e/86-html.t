#!/bin/sh
# witch report --format=html and witch compare --format=html: the page of
# each kind of profile (spy's dead stores, rvn, loop, causal, cpi, and a
# comparison), opened in headless Chromium, loads with no console message,
# draws the report's top finding (read from an element its script makes,
# and held against the text report), and is not blank on screen; the page
# of a profile with 100,000 calling contexts is drawn in under 2 s, and
# nothing in a profile can end the page's script. A page whose script
# fails, and one that shows nothing, are caught: the checks can fail.
# (Sharing profiles' page: 91-html-share.t, with the same helpers,
# html-lib.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/html-lib.sh"

needs_chromium

# Spy's dead stores on the demo: the pairs page.
"$WITCH" spy --tool=dead -o "$TMP/dead" -- "$PROGS/demo" 5 >/dev/null 2>&1
ok $? "(witch spy --tool=dead profiles the demo)"
"$WITCH" report --format=html -o "$TMP/dead.html" "$TMP/dead" 2>"$TMP/err"
ok $? "witch report --format=html -o FILE writes a page"
is "$(cat "$TMP/err")" "" "and says nothing"
"$WITCH" report "$TMP/dead" >"$TMP/dead.txt"
like "$("$WITCH" report --format=html "$TMP/dead" | head -n 1)" '^<!DOCTYPE html>$' "without -o, the page goes to stdout"

# First the checks themselves: a page whose script fails, drawn hidden.
sed -e 's|^witch.draw((d, app) => {|&no_such_function();|' -e 's|</style>|body { visibility: hidden; }&|' \
	"$TMP/dead.html" >"$TMP/broken.html"
is "$(grep -c 'no_such_function\|visibility: hidden' "$TMP/broken.html")" 2 "(a copy of the page, broken)"

# rvn: pairs of computations.
"$WITCH" spy --tool=rvn -o "$TMP/rvn" -- "$PROGS/rvn_pow" bad 2000 >/dev/null 2>&1
ok $? "(witch spy --tool=rvn profiles rvn_pow)"
"$WITCH" report --format=html -o "$TMP/rvn.html" "$TMP/rvn" && "$WITCH" report "$TMP/rvn" >"$TMP/rvn.txt"
ok $? "rvn: a page"

# loop: the flagged loop, first, with its lines marked in its source.
"$WITCH" spy --tool=loop -o "$TMP/loop" -- "$PROGS/loop_scan" bad 200 100 >/dev/null 2>&1
ok $? "(witch spy --tool=loop profiles loop_scan)"
"$WITCH" report --format=html -o "$TMP/loop.html" "$TMP/loop" && "$WITCH" report "$TMP/loop" >"$TMP/loop.txt"
ok $? "loop: a page"

# causal: a profile written by hand, hot.c:10 gaining 0.6 x its line
# speedup and cold.c:20 0.2 x, two experiments a point, 2 % apart.
mkdir "$TMP/causal"
awk 'BEGIN {
	OFS = "\t"
	print "witch-causal", "version=1", "pid=7", "command=./app"
	print "startup", "time=1700000000000000000"
	print "progress", "name=app.c:42", "kind=throughput"
	split("hot.c:10 cold.c:20", lines, " "); k["hot.c:10"] = 0.6; k["cold.c:20"] = 0.2
	for (l = 1; l <= 2; l++) for (s = 0; s <= 10; s++) for (r = 0; r < 2; r++) {
		sp = s / 10; line = lines[l]
		printf "experiment\tselected=%s\tspeedup=%.2f\tduration=100000000\tselected-samples=100\n", line, sp
		printf "throughput-point\tname=app.c:42\tdelta=%d\n", (1 + 0.02 * r) * 100000 / (1 - k[line] * sp) + 0.5
	}
	print "end", "status=exit:0", "complete=1"
}' >"$TMP/causal/causal.7"
printf 'witch-causal-lines\t1\nmodule\t0\t/bin/app\nline\t0\thot.c:10\thot_loop\n' >"$TMP/causal/.causal-lines"
"$WITCH" report --format=html -o "$TMP/causal.html" "$TMP/causal" && "$WITCH" report "$TMP/causal" >"$TMP/causal.txt" &&
	"$WITCH" report --format=json "$TMP/causal" >"$TMP/causal.json"
ok $? "causal: a page"

# cpi: the tables, and the code of the functions that took the most time.
"$WITCH" cpi -o "$TMP/cpi" -- "$PROGS/cpi_fig1" >/dev/null 2>&1
ok $? "(witch cpi profiles cpi_fig1)"
"$WITCH" report --format=html -o "$TMP/cpi.html" "$TMP/cpi" && "$WITCH" report "$TMP/cpi" >"$TMP/cpi.txt"
ok $? "cpi: a page"

# compare: the sampled and the exhaustive side by side.
"$WITCH" spy --tool=dead -o "$TMP/dead3" -- "$PROGS/demo" 3 >/dev/null 2>&1
ok $? "(a second dead profile)"
"$WITCH" compare --format=html -o "$TMP/compare.html" "$TMP/dead3" "$TMP/dead" &&
	"$WITCH" compare --format=json "$TMP/dead3" "$TMP/dead" >"$TMP/compare.json"
ok $? "witch compare --format=html -o FILE writes a page"
expect_error "compare: an unknown format" "unknown option '--format=yaml'.*--format=text\\|json\\|html" \
	"$WITCH" compare --format=yaml "$TMP/dead3" "$TMP/dead"
"$WITCH" compare -o "$TMP/compare.txt" "$TMP/dead3" "$TMP/dead" && "$WITCH" compare "$TMP/dead3" "$TMP/dead" >"$TMP/compare.out"
ok $? "(witch compare -o FILE, and to stdout)"
cmp -s "$TMP/compare.txt" "$TMP/compare.out"
ok $? "compare: -o FILE writes what stdout gets"
expect_error "compare: -o into a missing directory" "cannot write $TMP/none/c\\.html" \
	"$WITCH" compare -o "$TMP/none/c.html" "$TMP/dead3" "$TMP/dead"

# 100,000 calling contexts: main, 100 functions under it, and under each
# 500 functions of witch itself at two offsets, each context the watch of
# one pair; its command line tries to end the page's script.
mkdir "$TMP/big"
nm --defined-only "$BIN" | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort -u | awk -v module="$MODULE" -v main="$(sym main)" '
function hex(s,    i, v) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
{ f[n++] = hex($1) }
END {
	mid = 100; leaves = 500
	printf "WITCH-PROFILE 1\ntool dead\nsource timer\nrate_hz 250\nperiod 0\nregisters 0\npid 7\n"
	printf "start_ns 1\nend_ns 2\nstatus complete\narg 0 ./big\narg 1 </script><b%%20id=injected>x</b>\n"
	printf "module 0 - 0 %s\nstat samples 100000\nstat watchpoints_armed 100000\nstat traps 100000\n", module
	printf "thread 7 %d %d\n", 2 + mid + mid * leaves * 2, mid * leaves * 2
	printf "n 0 -1 -1 0 0\nn 1 0 0 %x 0\n", hex(main) + 1
	id = 2
	for (i = 0; i < mid; i++)
		printf "n %d 1 0 %x 0\n", id++, f[i] + 1
	for (i = 0; i < mid; i++)
		for (j = 0; j < leaves; j++)
			for (k = 0; k < 2; k++)
				printf "n %d %d 0 %x 0\n", id++, 2 + i, f[j] + k
	for (c = 2 + mid; c < id; c++)
		printf "p %d %d %d.000 %d.000 1\n", c, c + 1 < id ? c + 1 : 2 + mid, c * 7919 % 97 + 1, c % 3
}' | awk '{ print } END { print "end", NR }' >"$TMP/big/big-7.witch"
"$WITCH" report --format=html -o "$TMP/big.html" "$TMP/big" && "$WITCH" report "$TMP/big" >"$TMP/big.txt"
ok $? "100,000 contexts: a page"
is "$("$WITCH" report --format=json --top=1 "$TMP/big" | jq .totals.pairs_with_waste)" 100000 \
	"(the profile reads: 100,000 pairs of waste, each its own context's)"

# Every page in one Chromium: a start costs more than a page.
open_pages broken "$TMP/broken.html" dead "$TMP/dead.html" rvn "$TMP/rvn.html" loop "$TMP/loop.html" \
	causal "$TMP/causal.html" cpi "$TMP/cpi.html" compare "$TMP/compare.html" big "$TMP/big.html"

# The broken page: the checks can fail.
chromium_ran broken
like "$(cat "$TMP/broken.console")" 'no_such_function' "a failing script is caught: its error is a console message"
[ -z "$(first_pair "$TMP/broken.dom")" ]
ok $? "and the pairs it did not draw are missed"
within "$(ink broken)" 0 0.001 "a page that shows nothing is caught as blank"


# dead: the pairs page.
drawn dead
top=$(top_pair "$TMP/dead.txt")
like "$top" 'KILLED_BY' "(the text report's top pair: $top)"
is "$(first_pair "$TMP/dead.dom")" "$top" "dead: the top pair is drawn, as the text report names it"
# The watched store's line, from the text report's "(demo.c:LINE)".
wl=$(printf '%s\n' "$top" | grep -o '(demo\.c:[0-9]*)' | head -n 1 | tr -dc 0-9)
src=$(sed -n "${wl}p" "$TOP/examples/demo.c")
like "$(cat "$TMP/dead.dom")" "<figcaption>watch site: in [^,]*, [^<]*/examples/demo\\.c:$wl<" \
	"dead: the watched store's source is shown"
grep -qF "<span class=\"hit\"><span class=\"ln\">$wl</span><span>$src</span>" "$TMP/dead.dom"
ok $? "dead: its line ($wl), marked, as it is in the file"
like "$(cat "$TMP/dead.dom")" '<svg class="flame"' "dead: a flame graph is drawn"
like "$(cat "$TMP/dead.dom")" '<text [^>]*>clear</text>' "dead: with the dead store's function in it"

# rvn: pairs of computations.
drawn rvn
is "$(first_pair "$TMP/rvn.dom")" "$(top_pair "$TMP/rvn.txt")" "rvn: the top pair is drawn, as the text report names it"
like "$(cat "$TMP/rvn.dom")" 'class="label">redundant computations: ' "rvn: the redundant computations"

# loop: the flagged loop, first, with its lines marked in its source.
drawn loop
want=$(sed -n 's/^#1  \(flagged  [^ ]*  ([^)]*)\).*/\1/p' "$TMP/loop.txt")
like "$want" '^flagged  count_bad  \(loop_scan\.c:[0-9]+-[0-9]+\)$' "(the text report's top loop: $want)"
got=$(grep -o '<span class="rank">#1</span><span class="rel">flagged</span><span class="fn">[^<]*</span> <span class="loc">([^<]*)' \
	"$TMP/loop.dom" | sed 's|<span class="rank">#1</span><span class="rel">||; s|</span><span class="fn">|  |; s|</span> <span class="loc">|  |')
is "$got" "$want" "loop: the flagged loop is drawn first, as the text report names it"
first=$(printf '%s' "$want" | sed 's/.*:\([0-9]*\)-.*/\1/') last=$(printf '%s' "$want" | sed 's/.*-\([0-9]*\))$/\1/')
hits=$(grep -o '<span class="hit"><span class="ln">[0-9]*</span>' "$TMP/loop.dom" | tr -dc '0-9\n' | tr '\n' ' ')
is "$hits" "$(seq "$first" "$last" | tr '\n' ' ')" "loop: its lines are marked in its source"

# causal: the lines, ranked, each with its points and its fitted slope.
drawn causal
want=$(sed -n 's/^#1  \([^ ]*\)  in \([^ ]*\) .*/\1 in \2/p' "$TMP/causal.txt")
is "$(grep -o '<h3>#1 <span class="fn">[^<]*</span> in [^<]*' "$TMP/causal.dom" | sed 's|<h3>#1 <span class="fn">||; s|</span>||')" \
	"$want" "causal: the top line is plotted first, as the text report ranks it ($want)"
is "$(grep -o 'class="point"' "$TMP/causal.dom" | wc -l)" "$(json "$TMP/causal.json" '[.lines[].points[]] | length')" \
	"causal: a dot for each point"
is "$(grep -o 'class="spread"' "$TMP/causal.dom" | wc -l)" \
	"$(json "$TMP/causal.json" '[.lines[].points[] | select(.program_speedup_stderr > 0)] | length')" \
	"causal: each point's spread, where it has one"
is "$(grep -o 'class="fit"' "$TMP/causal.dom" | wc -l)" "$(json "$TMP/causal.json" '.lines | length')" \
	"causal: and each line's fitted slope"

# cpi: the tables, and the code of the functions that took the most time.
drawn cpi
want=$(sed -n '/^source lines, by time/{n;n;p;q;}' "$TMP/cpi.txt" | sed 's/.*  \([^ ]*:[0-9]*\) in .*/\1/')
is "$(section_of 3 "$TMP/cpi.dom" | grep -o '<span class="loc">[^<]*</span>' | head -n 1 | sed 's/<[^>]*>//g')" "$want" \
	"cpi: the source line that took the most time tops its table, as in the text report ($want)"
want=$(sed -n 's/^\([^ ]*\) ([^)]*): its instructions, with their source lines$/\1/p' "$TMP/cpi.txt")
is "$(section_of 4 "$TMP/cpi.dom" | grep -o '<summary><span class="fn">[^<]*' | head -n 1 | sed 's/.*>//')" "$want" \
	"cpi: the code of the function whose own code took the most time ($want)"
like "$(section_of 4 "$TMP/cpi.dom")" '<tr class="srcline">.*cpi_fig1\.c:25</span></td><td class="text">[^<]*x \^= table' \
	"cpi: with its source lines"
like "$(section_of 1 "$TMP/cpi.dom")" '<span style="background: hsl' "cpi: time per execution coloured"

# compare: the sampled and the exhaustive side by side.
drawn compare
want=$(json "$TMP/compare.json" '.pairs[0].pair')
is "$(section_of 1 "$TMP/compare.dom" | grep -o '<td><span class="fn">[^<]*' | head -n 1 | sed 's/.*>//; s/&gt;/>/g')" \
	"$want" "compare: the reference's top pair first ($want)"
like "$(cat "$TMP/compare.dom")" '<h3>sampled: DeadSpy, exhaustive</h3>.*<h3>reference: DeadSpy, exhaustive</h3>' \
	"compare: both sides, side by side"

# 100,000 calling contexts.
drawn big
within "$(sed -n 's/.*<html [^>]*data-render-ms="\([0-9.]*\)".*/\1/p' "$TMP/big.dom")" 0 2000 \
	"100,000 contexts: drawn in under 2000 ms since the page was opened"
is "$(first_pair "$TMP/big.dom")" "$(top_pair "$TMP/big.txt")" "100,000 contexts: the top pair is drawn"
like "$(grep -o '<g transform="translate' "$TMP/big.dom" | wc -l)" '^[0-9]{2,}$' \
	"100,000 contexts: the flame graph is drawn"
like "$(cat "$TMP/big.dom")" 'command: \./big &lt;/script&gt;&lt;b id=injected&gt;x&lt;/b&gt;' \
	"a command line with </script> in it is shown as text"
! grep -q 'id="injected"' "$TMP/big.dom"
ok $? "and makes no element"

done_testing
