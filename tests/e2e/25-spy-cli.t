#!/bin/sh
# witch spy passes the program's stdin, stdout, stderr, arguments and exit
# status through, explains what it cannot do in one line, and keeps
# Valgrind's own messages to itself.
. "$(dirname "$0")/lib.sh"

p=$PROGS/spy_exit
printf 'one\ntwo words\n' >"$TMP/in"
"$p" 3 0 'a b' '' 'c"d' <"$TMP/in" >"$TMP/n.out" 2>"$TMP/n.err"
native=$?
"$WITCH" spy --quiet -o "$TMP/p" -- "$p" 3 0 'a b' '' 'c"d' <"$TMP/in" >"$TMP/w.out" 2>"$TMP/w.err"
is "$?" "$native" "exit status passes through ($native)"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "stdout is identical (stdin and arguments passed)"
cmp -s "$TMP/n.err" "$TMP/w.err"; ok $? "stderr is identical: no Valgrind chatter"
is "$(ls "$TMP/p" | grep -c '\.witch$')" 1 "one profile for one process"
is "$(grep '^arg ' "$TMP/p"/*.witch | cut -d' ' -f3- | tr '\n' '|')" \
	"$p|3|0|a%20b|%|c\"d|" "the profile records the command line"

"$p" 0 15 </dev/null >/dev/null 2>&1
native=$?
"$WITCH" spy --quiet -o "$TMP/p2" -- "$p" 0 15 </dev/null >/dev/null 2>&1
is "$?" "$native" "death by SIGTERM passes through ($native)"

"$WITCH" spy -o "$TMP/p3" -- "$p" 0 </dev/null >/dev/null 2>"$TMP/summary"
like "$(cat "$TMP/summary")" "^witch spy: 1 profile in $TMP/p3" "without --quiet, a summary line names the profile"
cd "$TMP" && "$WITCH" spy --quiet --tool=silent -- "$p" </dev/null >/dev/null 2>&1
ok $? "default output directory"
is "$(ls "$TMP/witch-spy_exit-redspy" | grep -c '\.witch$')" 1 "default directory is witch-PROGRAM-TOOLspy"

# A program with an instruction Valgrind cannot decode: one clear line.
"$WITCH" spy --quiet -o "$TMP/x" -- "$PROGS/spy_avx512" >/dev/null 2>"$TMP/x.err"
rc=$?
ok $((rc == 0)) "AVX-512 program: non-zero exit ($rc)"
is "$(wc -l <"$TMP/x.err")" 1 "AVX-512 program: one line on stderr"
like "$(cat "$TMP/x.err")" '^witch spy: Valgrind cannot run .*spy_avx512.*instruction.*0x62' \
	"AVX-512 program: the line says why, with the instruction bytes"
ls "$TMP/x" | grep -q '^valgrind-.*\.log$'; ok $? "the failed run keeps Valgrind's log"
"$WITCH" spy --quiet -o "$TMP/x" -- "$p" 0 </dev/null >/dev/null 2>"$TMP/x2.err"
is "$?" 0 "a later run in the same directory succeeds"
is "$(cat "$TMP/x2.err")" "to stderr" "and is not blamed on the earlier run's log (only the program's stderr)"
is "$(ls "$TMP/x")" "$(ls "$TMP/x" | grep '\.witch$')" "the earlier log is gone"

"$WITCH" spy --tool=bogus -- "$p" 2>"$TMP/e1"
is "$?" 2 "unknown tool: exit 2"
like "$(cat "$TMP/e1")" "^witch spy: unknown tool 'bogus'" "unknown tool: one line"
expect_error "a tool holding a newline" "unknown tool 'a.b'" "$WITCH" spy --tool="$(printf 'a\nb')" -- "$p"
"$WITCH" spy 2>"$TMP/e2"
like "$(cat "$TMP/e2")" '^witch spy: no program given' "no program: one line"
"$WITCH" spy -- "$TMP/nonexistent" 2>"$TMP/e3"
is "$?" 2 "missing program: exit 2"
like "$(cat "$TMP/e3")" '^witch spy: .*nonexistent: No such file' "missing program: one line"
"$WITCH" spy --approx=2 -- "$p" 2>"$TMP/e4"
like "$(cat "$TMP/e4")" '^witch spy: --approx=2 is not a tolerance' "bad --approx: one line"
"$WITCH" spy --stack=drop -- "$p" 2>"$TMP/e5"
like "$(cat "$TMP/e5")" '^witch spy: --stack=drop is not a choice' "bad --stack: one line"
is "$(cat "$TMP/e1" "$TMP/e2" "$TMP/e3" "$TMP/e4" "$TMP/e5" | wc -l)" 5 "each error is exactly one line"
# Detached debug files (libc6-dbg) stay unread: the spies use neither
# their names nor their lines, and inflating glibc's cost Valgrind 17 MB
# (docs/spy.md). witch cpi's counting run names functions, and reads them.
valgrind -v --tool=none -- "$p" 0 </dev/null >/dev/null 2>"$TMP/vg.none"
if grep -q 'Considering /usr/lib/debug/' "$TMP/vg.none"; then
	"$WITCH" spy -v -o "$TMP/pd" -- "$p" 0 </dev/null >/dev/null 2>"$TMP/vg.spy"
	grep -q 'Reading syms from .*/libc\.so' "$TMP/vg.spy"; ok $? "spy -v: Valgrind reads libc"
	grep -q 'Considering /usr/lib/debug/' "$TMP/vg.spy"; ok $((! $?)) "... but not a detached debug file"
	mkdir "$TMP/pc"
	VALGRIND_LIB=$TOP/build/lib/witch valgrind -v --tool=witchspy --witch-tool=count \
		--witch-out="$TMP/pc" -- "$p" 0 </dev/null >/dev/null 2>"$TMP/vg.count"
	grep -q 'Considering /usr/lib/debug/' "$TMP/vg.count"; ok $? "the counting run reads them"
else
	skip "detached debug files left unread: none is installed here (libc6-dbg)"
fi

# Installed: the tool and the Valgrind files it needs come along.
make -s -C "$TOP" install PREFIX="$TMP/inst" >"$TMP/make.log" 2>&1
ok $? "make install PREFIX=..."
"$TMP/inst/bin/witch" spy --quiet -o "$TMP/pi" -- "$p" 0 </dev/null >/dev/null 2>"$TMP/ierr"
ok $? "installed witch spies"
is "$(ls "$TMP/pi" | grep -c '\.witch$')" 1 "the installed witch spy writes a profile"
"$WITCH" spy --help >"$TMP/help"
like "$(cat "$TMP/help")" '--tool=dead\|silent\|load' "--help lists the tools"
done_testing
