#!/bin/sh
# witch spy --tool=loop runs the program once, under witchspy's loop tool,
# which has `witch loops` write each module's loops (found in its machine
# code) into DIR/cfg the first time it meets the module's code. Bad
# thresholds get one line and exit 2. The maps are checked on a program of
# known loops, and `witch loops` on its own.
. "$(dirname "$0")/lib.sh"

p=$PROGS/loop_nest
src=$TOP/tests/progs/loop_nest.c

for bad in "--tool=loop --thresholds=0,0.9,0.8" "--tool=loop --thresholds=10,1.5,0.8" \
	"--tool=loop --thresholds=abc" "--thresholds=10,0.9,0.8" "--tool=rvn --thresholds=10,0.9,0.8" \
	"--tool=loop --thresholds=10,0.9" "--tool=loop --thresholds=10,0.9,0.8,1" \
	"--tool=loop --thresholds=10,0%,0.8" "--tool=loop --thresholds=10,0.9,101%" \
	"--tool=loop --thresholds=10,-0.5,0.8" "--tool=loop --thresholds=10,nan,0.8" \
	"--tool=loop --thresholds=10,0.9," "--tool=loop --thresholds=-1,0.9,0.8"; do
	# shellcheck disable=SC2086
	"$WITCH" spy $bad -o "$TMP/bad" -- "$p" >/dev/null 2>"$TMP/err"
	is "$?,$(wc -l <"$TMP/err" | tr -d ' ')" 2,1 "witch spy $bad: one line, exit 2: $(cat "$TMP/err")"
done
[ ! -e "$TMP/bad" ]; ok $? "bad options leave no output directory"
expect_error "--thresholds without its value" "^witch spy: --thresholds needs three thresholds" \
	"$WITCH" spy --tool=loop --thresholds
like "$("$WITCH" spy --thresholds=5,0.9,0.8 -- "$p" 2>&1)" "^witch spy: --thresholds applies to --tool=loop, not --tool=dead$" \
	"--thresholds without --tool=loop says which tool it belongs to"
like "$("$WITCH" spy --tool=rvn --exact-parts -- "$p" 2>&1)" "^witch spy: --exact-parts applies to --tool=loop, not --tool=rvn$" \
	"--exact-parts without --tool=loop says which tool it belongs to"
"$WITCH" spy --help >"$TMP/help"
like "$(cat "$TMP/help")" '--tool=dead\|silent\|load\|rvn\|loop' "--help lists the loop tool"
like "$(cat "$TMP/help")" '--thresholds=A,R,RI' "--help explains --thresholds"
like "$(cat "$TMP/help")" '--exact-parts +loop: judge each part' "--help explains --exact-parts"

# A valgrind that notes each command line, to see what the runs are given.
real=$(command -v valgrind)
mkdir "$TMP/bin"
cat >"$TMP/bin/valgrind" <<EOS
#!/bin/sh
printf '%s\n' "\$*" >>"$TMP/vg.args"
exec "$real" "\$@"
EOS
chmod +x "$TMP/bin/valgrind"

PATH=$TMP/bin:$PATH "$WITCH" spy --tool=loop --thresholds=5,90%,0.75 -o "$TMP/l" -- "$p" 30 \
	>"$TMP/l.out" 2>"$TMP/l.err"
st=$?
is "$(wc -l <"$TMP/vg.args" | tr -d ' ')" 1 "one run under Valgrind"
like "$(sed -n 1p "$TMP/vg.args")" \
	"^--tool=witchspy --witch-tool=loop --witch-loops=$TMP/l/cfg --witch-loop-finder=$(readlink -f "$WITCH") --witch-thresholds=5,0.9,0.75 --witch-out=$TMP/l " \
	"it watches loops whose maps go to DIR/cfg, written by this witch, with the thresholds as decimals (90% is 0.9), into DIR"
like "$(sed -n 1p "$TMP/vg.args")" "--trace-children=yes .* $p 30$" "it runs the program with its arguments"
is "$st" 0 "the exit status is the program's"
is "$(cat "$TMP/l.out")" "$("$p" 30)" "its output passes through, once"
like "$(cat "$TMP/l.err")" "^witch spy: 1 profile in $TMP/l" "one summary line"
is "$(wc -l <"$TMP/l.err" | tr -d ' ')" 1 "and nothing else on stderr"
is "$(sed -n 's/^tool //p' "$TMP/l"/*.witch)" loop "the profile is of tool loop"
PATH=$TMP/bin:$PATH "$WITCH" spy --quiet --tool=loop --exact-parts -o "$TMP/lx" -- "$p" 3 >/dev/null
like "$(sed -n 2p "$TMP/vg.args")" " --witch-thresholds=10,0.9,0.8 --witch-exact-parts=yes " \
	"--exact-parts goes to the tool"

map=$(grep -lx "module $p" "$TMP/l/cfg"/*.map)
[ -s "$map" ]; ok $? "the program's loop map is in DIR/cfg"
is "$(sed -n 1p "$map")" "witch-loops 1" "the map starts with its header"
is "$(tail -n 1 "$map")" "end" "and ends with end"
"$WITCH" loops "$p" >"$TMP/loops.out"
is "$?,$(cmp -s "$TMP/loops.out" "$map" && echo same)" 0,same "witch loops PROGRAM prints the same map"
# Its grammar: ids 0.. in order, a parent written before its children at
# one level less deep, every loop after an f line holding its header and
# with at least one b line, one of them starting at the header; its exits
# (e lines) in its function.
is "$(awk '
	function hex(s,   i, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function close_loop() { if (cur != "" && !nb) bad = bad " loop " cur " has no block"
		if (cur != "" && !athead) bad = bad " loop " cur " has no block at its header" }
	NR == 1 || $1 == "end" { next }
	$1 == "module" { close_loop(); cur = ""; inmod = 1; flo = -1; next }
	$1 == "f" { close_loop(); cur = ""; if (!inmod || NF != 3) bad = bad " f at " NR; flo = hex($2); fhi = hex($3); next }
	$1 == "loop" {
		close_loop()
		if (NF != 8 || $2 != n) bad = bad " id " $2 " at " NR
		h = hex($3)
		if (flo < 0 || h < flo || h >= fhi) bad = bad " header of " $2 " outside its f"
		if ($4 == -1) { if ($5 != 0) bad = bad " depth of " $2 }
		else if (!($4 in depth) || $4 >= $2 || $5 != depth[$4] + 1 || fof[$4] != flo) bad = bad " parent of " $2
		depth[$2] = $5; fof[$2] = flo; cur = $2; nb = 0; athead = 0; n++; next
	}
	$1 == "b" { if (cur == "" || NF != 3 || hex($2) >= hex($3)) bad = bad " b at " NR
		nb++; if (hex($2) == h) athead = 1; next }
	$1 == "e" { if (cur == "" || NF != 2 || hex($2) < flo || hex($2) >= fhi) bad = bad " e at " NR; next }
	{ bad = bad " line " NR }
	END { close_loop(); print (n > 0 && bad == "") ? "ok" : "bad:" bad }' "$map")" ok \
	"the map is well formed: ids, parents, depths, functions and blocks agree"

# The program's own loops, named by its symbol table: main's, nest's two
# (the inner nested in the outer) and single's. "function depth
# parent-function first-line file" each.
nm --defined-only "$p" >"$TMP/nm"
awk -v prog="$p" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function fn(off,   i, best) {
		best = "?"
		for (i = 1; i <= nsym; i++) if (addr[i] <= off && (best == "?" || addr[i] > baddr)) { best = name[i]; baddr = addr[i] }
		return best
	}
	FNR == NR { if ($2 ~ /^[tT]$/) { nsym++; addr[nsym] = hex($1); name[nsym] = $3 }; next }
	$1 == "module" { mine = ($2 == prog) }
	mine && $1 == "loop" { f[$2] = fn(hex($3)); n = split($8, parts, "/")
		print f[$2], $5, ($4 == -1 ? "-" : f[$4]), $6, parts[n] }
	' "$TMP/nm" "$map" | sort >"$TMP/mine"
outer=$(line_of "$src" '/\* NEST-OUTER')
inner=$(line_of "$src" '/\* NEST-INNER')
single=$(line_of "$src" '/\* SINGLE')
is "$(grep -v '^main ' "$TMP/mine" | tr '\n' '|')" \
	"nest 0 - $outer loop_nest.c|nest 1 nest $inner loop_nest.c|single 0 - $single loop_nest.c|" \
	"the map holds nest's outer loop, its inner loop nested in it, and single's loop, at their lines"
is "$(grep -c '^main 0 - ' "$TMP/mine")" 1 "and main's loop"
grep -lq '^module .*libc\.so' "$TMP/l/cfg"/*.map; ok $? "the libraries that ran have their maps too"
[ -z "$(ls "$TMP/l/cfg" | grep -v '^loops-[0-9a-f]\{16\}\.map$')" ]; ok $? "DIR/cfg holds maps alone: no log, no half-written map"

# Stdin is the program's.
echo 1000 | "$WITCH" spy -q --tool=loop -o "$TMP/s" -- "$PROGS/cpi_runs" >"$TMP/s.out" 2>/dev/null
is "$?,$(cat "$TMP/s.out")" "3,$(echo 1000 | "$PROGS/cpi_runs")" "piped stdin reaches the program"

PATH=$TMP/bin:$PATH "$WITCH" spy -q --tool=loop --no-follow -o "$TMP/nf" -- "$p" >/dev/null 2>&1
is "$(tail -n 1 "$TMP/vg.args" | grep -c -- '--trace-children=no --witch-follow=no')" 1 "--no-follow reaches Valgrind"

# A program Valgrind cannot run: one line, exit 2.
"$WITCH" spy --tool=loop -o "$TMP/x" -- "$PROGS/spy_avx512" >/dev/null 2>"$TMP/x.err"
is "$?,$(wc -l <"$TMP/x.err" | tr -d ' ')" 2,1 "Valgrind cannot run it: one line, exit 2"
like "$(cat "$TMP/x.err")" '^witch spy: Valgrind cannot run .*spy_avx512' "the line says why"

# witch loops on its own: -o writes the file whole; bad input, one line.
"$WITCH" loops -o "$TMP/own.map" "$p"
is "$?,$(cmp -s "$TMP/own.map" "$map" && echo same)" 0,same "witch loops -o FILE writes the map there"
[ -z "$(ls "$TMP" | grep 'own\.map\.tmp')" ]; ok $? "... and leaves no temporary file"
for bad in "" "$p $p" "$TMP/none" "$TOP/README.md" "-o $TMP/no/such/dir/x.map $p" "--bogus $p"; do
	# shellcheck disable=SC2086
	"$WITCH" loops $bad >/dev/null 2>"$TMP/err"
	is "$?,$(wc -l <"$TMP/err" | tr -d ' ')" 2,1 "witch loops $bad: one line, exit 2: $(cat "$TMP/err")"
done
like "$("$WITCH" loops --help)" '^usage: witch loops \[-o FILE\] MODULE' "witch loops --help"
like "$("$WITCH" --help 2>&1)" 'loops +list the loops' "witch --help lists it"

# The finder is given its paths as they are, with no shell between: a
# directory named with a space and a quote gets its maps all the same.
odd="$TMP/it's a dir"
"$WITCH" spy --quiet --tool=loop -o "$odd" -- "$p" 30 >/dev/null
ok $? "witch spy --tool=loop -o \"$odd\""
grep -lqx "module $p" "$odd/cfg"/*.map; ok $? "... the program's map is in its cfg"
is "$(sed -n 's/^stat modules_unmapped //p' "$odd"/*.witch)" 0 "... and every module's loops were found"

done_testing
