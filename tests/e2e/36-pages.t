#!/bin/sh
# --watch=pages (page protection and single steps, where debug registers
# do not fire) must not change what the program sees: the kernel reads and
# writes watched pages (syscall user dispatch exposes them first), the
# program's own SIGSEGV handler still gets its own faults, witch's own TLS
# is never protected, and fork, exec
# and threads are covered by the other tests on such machines. Forced with
# --watch=pages, so this runs on any machine.
. "$(dirname "$0")/lib.sh"

p=$PROGS/pagesys
"$p" 6000 >"$TMP/n.out"
ok $? "pagesys runs natively"
"$WITCH" record --quiet --watch=pages -o "$TMP/p" -- "$p" 6000 >"$TMP/w.out"
ok $? "under --watch=pages: no EFAULT, no short transfer, its own faults caught"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "same output"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
within "$(json "$TMP/r.json" '.totals.traps')" 1 1e9 "watches judged"
within "$(json "$TMP/r.json" '.totals.stats.watches_ended')" 1 1e9 \
	"system calls met watched pages (and ended their watches)"
within "$(json "$TMP/r.json" '.totals.stats.false_faults')" 1 1e12 "false faults are counted"

# Loads from TLS: the page witch's handlers read first is never protected.
"$PROGS/tlsload" 2000000 >"$TMP/tn.out"
"$WITCH" record --quiet --watch=pages --craft=load -o "$TMP/t" -- "$PROGS/tlsload" 2000000 >"$TMP/tw.out"
ok $? "loads from thread-local storage under --watch=pages: no crash"
cmp -s "$TMP/tn.out" "$TMP/tw.out"; ok $? "same output"

# A rate the POSIX CPU timer cannot give is lowered, and the run says so.
"$WITCH" record --watch=pages --rate=1000 -o "$TMP/q" -- "$PROGS/nodead" 5 >/dev/null 2>"$TMP/err"
ok $? "--rate=1000 with --watch=pages runs"
like "$(head -n 1 "$TMP/err")" 'samples at most 250 times a second' "and says the rate is lowered"
done_testing
