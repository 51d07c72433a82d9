#!/bin/sh
# witch compare: redundancy of each side and the difference, how many of the
# reference's top pairs the other side found, share errors, rank
# correlation; pairs match on source sites (or full contexts).
. "$(dirname "$0")/lib.sh"

# Errors first, on witch spy profiles (same format, no debug registers needed).
"$WITCH" spy --quiet --tool=dead -o "$TMP/ea" -- "$PROGS/listing2" 20 >/dev/null
"$WITCH" spy --quiet --tool=dead -o "$TMP/eb" -- "$PROGS/listing2" 20 >/dev/null
"$WITCH" spy --quiet --tool=silent -o "$TMP/es" -- "$PROGS/silent" 20 >/dev/null
expect_error "different kinds" 'measures dead stores but .* measures silent stores' "$WITCH" compare "$TMP/ea" "$TMP/es"
expect_error "one profile" 'give two profiles' "$WITCH" compare "$TMP/ea"
expect_error "bad --top" '--top needs a positive whole number' "$WITCH" compare --top=0 "$TMP/ea" "$TMP/eb"
expect_error "unknown option" "unknown option '--format=xml'" "$WITCH" compare --format=xml "$TMP/ea" "$TMP/eb"
expect_error "an option holding a newline" "unknown option '--x.y'" "$WITCH" compare --"$(printf 'x\ny')" "$TMP/ea" "$TMP/eb"
expect_error "missing profile" 'nothing-here' "$WITCH" compare "$TMP/ea" "$TMP/nothing-here"
printf 'garbage\n' >"$TMP/bad.witch"
expect_error "corrupt profile" 'bad.witch is not a witch profile' "$WITCH" compare "$TMP/bad.witch" "$TMP/eb"

# Reweighing a side by the other's weight per watched site: against
# itself it changes nothing; two exhaustive runs of one program agree.
"$WITCH" compare --format=json "$TMP/ea" "$TMP/ea" >"$TMP/self.json"
is "$(json "$TMP/self.json" '.reweighted_redundancy == .reference.redundancy')" true \
	"a profile reweighted by its own sites is itself"
is "$(json "$TMP/self.json" '.reweighted_coverage')" 1 "and covers all of itself"
is "$(json "$TMP/self.json" '.reweighted_reference == .reference.redundancy')" true \
	"the reference on all of its own sites is the reference"
like "$(json "$TMP/self.json" '.watched_sites[0].site')" "^first \\(listing2.c:18\\) \\[listing2\\+0x[0-9a-f]+\\]$" \
	"the heaviest watched site is named by its source and its instruction"
"$WITCH" compare --format=json "$TMP/ea" "$TMP/eb" >"$TMP/ab.json"
within "$(json "$TMP/ab.json" '.reweighted_redundancy - .reference.redundancy | if . < 0 then -. else . end')" 0 0.0001 \
	"two exhaustive runs: reweighted equals the reference"
"$WITCH" compare "$TMP/ea" "$TMP/eb" >"$TMP/ab.txt"
# Two runs differ by a few bytes of start-up (stack and environment
# layout), so the difference prints as +0.0 or -0.0.
like "$(cat "$TMP/ab.txt")" "dead fraction with the reference's weight for each watched site: 50.0% \\([-+]0.0 points; those sites hold 100.0% of the reference's judged bytes\\)" \
	"text: the reweighted line"
like "$(cat "$TMP/ab.txt")" "on those sites the reference says 50.0%: the verdicts there differ by [-+]0.0 points, the sites never watched account for the other [-+]0.0" \
	"text: the verdicts' share of the difference and the unwatched sites'"
like "$(cat "$TMP/ab.txt")" "reference's heaviest watched sites" "text: the watched sites table"
# demo's histogram loads a pixel (redundant: scale loads it again) and then
# its bucket (changed since): one line, two watched sites with verdicts of
# their own, which the samples weigh differently.
"$WITCH" spy --quiet --tool=load -o "$TMP/dl" -- "$PROGS/demo" 3 >/dev/null
"$WITCH" compare --format=json "$TMP/dl" "$TMP/dl" >"$TMP/dl.json"
is "$(json "$TMP/dl.json" '[.watched_sites[].site | select(startswith("histogram (demo.c:"))] | length')" 2 \
	"two loads on one line are two watched sites"
is "$(json "$TMP/dl.json" '[.watched_sites[] | select(.site | startswith("histogram (demo.c:")) | .reference_redundancy] | sort | map(tostring) | join(",")')" "0,1" \
	"one all waste, one all use"

needs_debug_registers

# A run that judged nothing (a program too short for a sample)
# has nothing to reweigh: JSON null, and no line or table in the text.
"$WITCH" record --quiet -o "$TMP/none" -- true >/dev/null
"$WITCH" compare --format=json "$TMP/none" "$TMP/none" >"$TMP/none.json"
is "$(json "$TMP/none.json" '.reweighted_redundancy')" null "nothing judged: no reweighted redundancy"
is "$(json "$TMP/none.json" '.reweighted_reference')" null "and no reference on its sites"
"$WITCH" compare "$TMP/none" "$TMP/none" >"$TMP/none.txt"
ok "$(grep -c "weight for each watched site\|on those sites\|heaviest watched sites" "$TMP/none.txt")" "nothing judged: no reweighted line, no table"

"$WITCH" record --quiet --rate=2000 -o "$TMP/a" -- "$PROGS/fig2" 30 >/dev/null
"$WITCH" record --quiet --rate=2000 -o "$TMP/b" -- "$PROGS/fig2" 30 >/dev/null
"$WITCH" compare --format=json "$TMP/a" "$TMP/b" >"$TMP/c.json"
ok $? "witch compare --format=json"
is "$(json "$TMP/c.json" '.found')" 3 "both runs find the three dead sites"
is "$(json "$TMP/c.json" '.top')" 3 "the reference has three pairs"
# Two sampled runs: each dead fraction varies by ~2.5 points (sd) with the
# few hundred traps Figure 2's long-lived watchpoints give.
within_todo_with_pages "$(json "$TMP/c.json" '.difference_points | if . < 0 then -. else . end')" 0 15 "dead fractions agree"
within "$(json "$TMP/c.json" '[.pairs[].error_points | if . < 0 then -. else . end] | max')" 0 12 "share errors are small"
within "$(json "$TMP/c.json" '.spearman')" 0.4 1 "rank correlation"
like "$(json "$TMP/c.json" '.pairs[0].pair')" '^dead_a \(fig2.c:[0-9]+\) => live_a \(fig2.c:[0-9]+\)$' "pairs are named by source site"
"$WITCH" compare --full-contexts --format=json "$TMP/a" "$TMP/b" >"$TMP/f.json"
like "$(json "$TMP/f.json" '.pairs[0].pair')" 'dead_a .* <- main \(fig2.c:[0-9]+\).* => ' "--full-contexts names every frame"
"$WITCH" compare "$TMP/a" "$TMP/b" >"$TMP/c.txt"
like "$(cat "$TMP/c.txt")" 'found by the sampled run: 3 of 3' "text output"

# Without debug info, pairs are code addresses in the module, which match
# between runs of the same binary (not one "??" for everything).
cp "$PROGS/listing2" "$TMP/stripped" && strip "$TMP/stripped"
"$WITCH" record --quiet --rate=2000 -o "$TMP/n1" -- "$TMP/stripped" >/dev/null
"$WITCH" record --quiet --rate=2000 -o "$TMP/n2" -- "$TMP/stripped" >/dev/null
"$WITCH" compare --format=json "$TMP/n1" "$TMP/n2" >"$TMP/n.json"
like "$(json "$TMP/n.json" '.pairs[0].pair')" '^\?\? \(stripped\+0x[0-9a-f]+\) => \?\? \(stripped\+0x[0-9a-f]+\)$' \
	"no debug info: a pair is named by module and offset"
is "$(json "$TMP/n.json" '.found')" "$(json "$TMP/n.json" '.top')" "and the two runs' pairs match"

done_testing
