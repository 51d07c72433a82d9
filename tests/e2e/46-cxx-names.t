#!/bin/sh
# C++ functions are named as their users write them (img::Buf::fill(long),
# not fill or _ZN3img3Buf4fillEl), from DWARF and from the symbol table
# alike: witch report's text and JSON, witch compare across a binary
# rebuilt without -g, witch causal's line table and witch cpi.
# tests/progs/cxxnames.cc has a namespace, a member function, a function
# template, two overloads and two lambdas, one inlined; witch spy judges
# every store, so the pairs are exact.
. "$(dirname "$0")/lib.sh"

src=$TOP/tests/progs/cxxnames.cc
l_clear=$(line_of "$src" 'store: clear')
l_fill=$(line_of "$src" 'store: fill')
l_lambda=$(line_of "$src" 'store: called lambda')
l_inlined=$(line_of "$src" 'store: inlined lambda')
# Both builds under one name: witch compare matches modules by file name.
mkdir "$TMP/g" "$TMP/n"
cp "$PROGS/cxxnames" "$TMP/g/cxxnames"
cp "$PROGS/cxxnames-nodebug" "$TMP/n/cxxnames"

"$WITCH" spy --quiet --tool=dead -o "$TMP/sg" -- "$TMP/g/cxxnames" 20 >/dev/null
is $? 0 "witch spy on the program built with -g"
"$WITCH" spy --quiet --tool=dead -o "$TMP/sn" -- "$TMP/n/cxxnames" 20 >/dev/null
is $? 0 "and built without"

# Text: the one-line chain in short, the frames in full.
"$WITCH" report "$TMP/sg" >"$TMP/g.txt"
like "$(cat "$TMP/g.txt")" "  main → img::clear \\(cxxnames.cc:$l_clear\\)  KILLED_BY  main → img::Buf::fill \\(cxxnames.cc:$l_fill\\)" \
	"the chain names the template and the member function in short"
like "$(cat "$TMP/g.txt")" "KILLED_BY  main → main::\\{lambda\\(int\\)#2\\}::operator\\(\\) \\(cxxnames.cc:$l_lambda\\)" \
	"and the lambda by the function it is in"
like "$(cat "$TMP/g.txt")" "watch: main::\\{lambda\\}::operator\\(\\) +cxxnames.cc:$l_inlined .*\\(inlined\\)" \
	"an inlined lambda too, without the number DWARF does not record"
like "$(cat "$TMP/g.txt")" "watch: img::clear<double>\\(img::Buf&\\) +cxxnames.cc:$l_clear " \
	"the frames name the template with its arguments and parameters"
like "$(cat "$TMP/g.txt")" "trap: +img::mark\\(img::Buf&, double\\) +cxxnames.cc:" \
	"and an overload by its parameters"

# JSON: the name and the linkage name it came from.
"$WITCH" report --format=json "$TMP/sg" >"$TMP/g.json"
"$WITCH" report --format=json "$TMP/sn" >"$TMP/n.json"
watched='[.pairs[] | select(.share > 0.1) | .watch[0].function] | sort | join("; ")'
is "$(json "$TMP/g.json" "$watched")" \
	"img::Buf::fill(long); img::clear<double>(img::Buf&); img::mark(img::Buf&, double); img::mark(img::Buf&, int); main::{lambda}::operator()" \
	"JSON: the five dead stores' functions, qualified, with their parameters"
is "$(json "$TMP/g.json" '[.pairs[].watch[] | select(.function == "img::Buf::fill(long)") | .linkage_name] | unique | join(" ")')" \
	"_ZN3img3Buf4fillEl" "JSON: with the linkage name beside"
is "$(json "$TMP/g.json" '[.pairs[].watch[] | select(.function == "main") | .linkage_name] | unique | map(tostring) | join(" ")')" \
	"null" "JSON: main has none"
# Inlined frames are DWARF's alone.
names='[.pairs[] | select(.share > 0.1) | [.watch[], .trap[]] | map(select(.inlined | not) | .function) | join(" <- ")] | sort | join("; ")'
is "$(json "$TMP/n.json" "$names")" "$(json "$TMP/g.json" "$names")" \
	"without -g, the symbol table gives every frame the same names as DWARF"
like "$(json "$TMP/n.json" '[.pairs[].trap[0].function] | join(";")')" 'main::\{lambda\(int\)#2\}::operator\(\)\(int\) const' \
	"the lambda too"
is "$(json "$TMP/n.json" '[.pairs[] | select(.share > 0.1) | .watch[0].file] | unique | map(tostring) | join(" ")')" "null" \
	"(the names did not come from DWARF there)"

# witch compare: the binary without debug information against the one with.
"$WITCH" compare --format=json "$TMP/sn" "$TMP/sg" >"$TMP/c.json"
ok $? "witch compare of the two builds"
is "$(json "$TMP/c.json" '"\(.found) of \(.top)"')" "5 of 5" "every pair of the one is found in the other"
# Nearly every judged byte's watched site is found on the other side: a
# rare run finds fewer than all, for a reason not yet known, and then
# prints the comparison.
within "$(json "$TMP/c.json" '.reweighted_coverage')" 0.99 1 "and the watched sites of nearly all judged bytes"
[ "$(json "$TMP/c.json" '.reweighted_coverage')" = 1 ] || diag "coverage below 1: $(jq -c '.' "$TMP/c.json" | head -c 2000)"
like "$(json "$TMP/c.json" '.pairs[] | select(.pair | startswith("img::Buf::fill")) | .pair')" \
	'^img::Buf::fill\(long\) \(cxxnames\+0x[0-9a-f]+\) => img::mark\(img::Buf&, int\) \(cxxnames\+0x[0-9a-f]+\)$' \
	"pairs are named by function and code offset where one side has no source lines"
"$WITCH" compare --format=json "$TMP/sg" "$TMP/sg" >"$TMP/self.json"
like "$(json "$TMP/self.json" '.pairs[0].pair')" '^[^ ]+\([^)]*\) \(cxxnames.cc:[0-9]+\) => ' \
	"and by source line where both have them"

# witch causal's line table names each line's function the same way.
"$WITCH" causal --end-to-end -o "$TMP/c" -- "$TMP/g/cxxnames" 20 >/dev/null 2>&1
ok $? "witch causal --end-to-end"
fn_of() { grep "^line	[0-9]*	[^	]*cxxnames.cc:$1	" "$TMP/c/.causal-lines" | cut -f4; }
is "$(fn_of "$l_fill")" "img::Buf::fill(long)" "causal lines: the member function"
is "$(fn_of "$l_clear")" "img::clear<double>(img::Buf&)" "causal lines: the template"
is "$(fn_of "$l_lambda")" "main::{lambda(int)#2}::operator()(int) const" "causal lines: the lambda"
is "$(fn_of "$l_inlined")" "main::{lambda}::operator()" "causal lines: the inlined lambda"

# witch cpi: full names in the functions table and JSON, short ones
# where a row ends in "in f()"; --function takes either, or the symbol.
"$WITCH" cpi -q --rate=2000 -o "$TMP/p" -- "$TMP/g/cxxnames" 300 >/dev/null 2>&1
ok $? "witch cpi"
"$WITCH" report --top=0 "$TMP/p" >"$TMP/p.txt"
like "$(cat "$TMP/p.txt")" " img::mark\\(img::Buf&, int\\) \\(cxxnames\\)" "cpi: the functions table names them in full"
like "$(cat "$TMP/p.txt")" "cxxnames.cc:$l_fill in img::Buf::fill\\(\\)" "cpi: a line in the function, in short"
"$WITCH" report --format=json --top=0 "$TMP/p" >"$TMP/p.json"
is "$(json "$TMP/p.json" '.functions[] | select(.function == "img::Buf::fill(long)") | .linkage_name')" \
	"_ZN3img3Buf4fillEl" "cpi JSON: the linkage name beside"
for f in 'img::Buf::fill(long)' img::Buf::fill _ZN3img3Buf4fillEl; do
	"$WITCH" report --format=json --function="$f" "$TMP/p" >"$TMP/f.json"
	is "$(json "$TMP/f.json" '[.functions[].function] | join(" ")')" "img::Buf::fill(long)" "cpi --function=$f"
done
expect_error "cpi --function of a function that did not run" "no function img::Buf::nothing ran" \
	"$WITCH" report --function=img::Buf::nothing "$TMP/p"

done_testing
