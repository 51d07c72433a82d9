#!/bin/sh
# witch report --format=html on sharing profiles (witch record
# --craft=share): two threads incrementing adjacent counters, in a
# variable and in a heap block, reported together. The page, opened in
# headless Chromium, loads with no console message and is not blank; it
# draws the top finding, false sharing at bump, as the text report names
# it (contexts, kind, traps, and each cache line with its bytes, the
# variable or heap block there and the call that allocated the block),
# the header's counts, the source around the store and the allocation,
# and a flame graph. (86-html.t checks that these checks can fail.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/html-lib.sh"

p=$PROGS/share
src=$TOP/tests/progs/share.c
if ! debug_registers_fire; then
	skip "--craft=share needs debug registers that fire: $("$PROGS/dr_probe")"
	done_testing
	exit
fi
needs_chromium

# 1000 samples a second of each thread's CPU time: dozens of traps.
for m in false heap; do
	"$WITCH" record --quiet --craft=share --rate=1000 -o "$TMP/$m" -- "$p" "$m" 300 >/dev/null
	ok $? "(witch record --craft=share profiles share $m)"
done
"$WITCH" report --format=html -o "$TMP/share.html" "$TMP/false" "$TMP/heap" 2>"$TMP/err"
ok $? "witch report --format=html -o FILE writes a page of sharing profiles"
is "$(cat "$TMP/err")" "" "and says nothing"
like "$("$WITCH" report --format=html "$TMP/false" "$TMP/heap" | head -n 1)" '^<!DOCTYPE html>$' \
	"without -o, the page goes to stdout"
"$WITCH" report "$TMP/false" "$TMP/heap" >"$TMP/share.txt"
ok $? "(the text report)"

open_pages share "$TMP/share.html"
drawn share
dom=$(cat "$TMP/share.dom")
top=$(top_pair "$TMP/share.txt")
like "$top" '^counting → bump \(share\.c:[0-9]+\)  FALSE_SHARING_WITH  counting → bump \(share\.c:[0-9]+\)$' \
	"(the text report's top pair: $top)"
is "$(first_pair "$TMP/share.dom")" "$top" "the top pair is drawn, as the text report names it"
# "#1  P% of sharing   false sharing, R per CPU-second   (N traps)"
want=$(sed -n 's/^#1 .*   \(false sharing\), [0-9.]* per CPU-second   \((.*)\)$/\1 \2/p' "$TMP/share.txt")
like "$want" '^false sharing \([0-9]+ traps?\)$' "(its kind and traps in the text report: $want)"
got=$(grep -o '<span class="kind [a-z]*">[^<]*</span><span class="chain">[^<]*</span><span class="rel">[^<]*</span><span class="chain">[^<]*</span><span class="meta">[^<]*' \
	"$TMP/share.dom" | head -n 1 | sed 's|<span class="kind [a-z]*">\([^,<]*\),.*<span class="meta">  \(.*\)|\1 \2|')
is "$got" "$want" "and its kind and traps, as the text report gives them"

# Its lines: "line WHERE: store at bytes B (OBJECT), other access at bytes
# B (OBJECT)", at most three in the text report, drawn in the same order.
sed -n '/^#1 /,/^$/p' "$TMP/share.txt" | sed -n 's/^    \(line .*\)/\1/p' | sed 's/   ([0-9.]* per CPU-second, [0-9]* traps\{0,1\})$//' \
	>"$TMP/lines.txt"
printf '%s' "$dom" | grep -o '<tr><td><span class="chain">[^<]*</span></td><td><span class="bytes">[^<]*</span></td><td><span class="bytes">[^<]*' |
	sed 's|<tr><td><span class="chain">\([^<]*\)</span></td><td><span class="bytes">\([^<]*\)</span></td><td><span class="bytes">\(.*\)|line \1: store at bytes \2, other access at bytes \3|' |
	head -n "$(wc -l <"$TMP/lines.txt")" >"$TMP/lines.dom"
like "$(cat "$TMP/lines.txt")" 'store at bytes' "(the text report's lines of the top pair: $(wc -l <"$TMP/lines.txt"))"
is "$(cat "$TMP/lines.dom")" "$(cat "$TMP/lines.txt")" "its cache lines are drawn as the text report names them"
like "$(cat "$TMP/lines.dom")" 'store at bytes 0-7 \(adjacent\+0\), other access at bytes 8-15 \(adjacent\+8\)' \
	"the variable's line: adjacent's bytes 0-7 and 8-15"
mline=$(line_of "$src" 'malloc(2 \* sizeof')
like "$(cat "$TMP/lines.dom")" "in a heap block of 16 bytes allocated at main \\(share\\.c:$mline\\): store at bytes [0-9]+-[0-9]+ \\(block\\+0\\), other access at bytes [0-9]+-[0-9]+ \\(block\\+8\\)" \
	"the heap block's line: the block, the call that allocated it, block+0 and block+8"

# The header's counts, as the text report writes them.
# (The page writes 1,234 where the text report writes 1234.)
is "$(printf '%s' "$dom" | grep -o '<p class="meta">samples: [^<]*' | sed 's/<p class="meta">//; :a; s/\([0-9]\),\([0-9]\{3\}\)/\1\2/; ta')" \
	"$(grep '^samples: ' "$TMP/share.txt")" "the samples, watches and traps, as the text report counts them"
is "$(printf '%s' "$dom" | grep -o '<p class="meta">command: [^<]*' | sed 's/<p class="meta">//')" \
	"$(grep '^command: ' "$TMP/share.txt")" "the command"
like "$dom" '<div class="big">[0-9.]+</div><div class="label">false sharing per CPU-second</div>' \
	"the rate of false sharing"

# Source: the store's line and the allocating call's, marked.
bl=$(line_of "$src" '(\*c)++;')
like "$dom" "<figcaption>store site: in bump, [^<]*/tests/progs/share\\.c:$bl<" "the store's source is shown"
grep -qF "<span class=\"hit\"><span class=\"ln\">$bl</span><span>$(sed -n "${bl}p" "$src")</span>" "$TMP/share.dom"
ok $? "its line ($bl), marked, as it is in the file"
like "$dom" "<figcaption>the heap block's allocation: in main, [^<]*/tests/progs/share\\.c:$mline<" \
	"and the source of the call that allocated the heap block"
like "$dom" '<svg class="flame"' "a flame graph is drawn"
like "$dom" '<text [^>]*>bump</text>' "with bump in it"
done_testing
