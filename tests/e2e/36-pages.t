#!/bin/sh
# --watch=pages (page protection and single steps, where debug registers
# do not fire) must not change what the program sees: the kernel reads and
# writes watched pages (syscall user dispatch exposes them first), a
# program's own handlers run (on witch's alternate stack), the
# program's own SIGSEGV handler still gets its own faults, witch's own TLS
# is never protected, and fork, exec
# and threads are covered by the other tests on such machines. Forced with
# --watch=pages, so this runs on any machine.
. "$(dirname "$0")/lib.sh"

p=$PROGS/pagesys
# 24000 rounds (0.4 s natively): with 6000 a run took 13-22 samples and
# 3-16 system calls met watched pages, and a clean-clone CI run met none;
# with 24000, 15-36 (six runs).
"$p" 24000 >"$TMP/n.out"
ok $? "pagesys runs natively"
"$WITCH" record --quiet --watch=pages -o "$TMP/p" -- "$p" 24000 >"$TMP/w.out"
ok $? "under --watch=pages: no EFAULT, no short transfer, its own faults caught"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "same output"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
within "$(json "$TMP/r.json" '.totals.traps')" 1 1e9 "watches judged"
within "$(json "$TMP/r.json" '.totals.stats.syscalls_stepped')" 1 1e9 \
	"system calls met watched pages (and ran with them exposed, the watches kept)"
within "$(json "$TMP/r.json" '.totals.stats.false_faults')" 1 1e12 "false faults are counted"

# Loads from TLS: the page witch's handlers read first is never protected.
"$PROGS/tlsload" 2000000 >"$TMP/tn.out"
"$WITCH" record --quiet --watch=pages --craft=load -o "$TMP/t" -- "$PROGS/tlsload" 2000000 >"$TMP/tw.out"
ok $? "loads from thread-local storage under --watch=pages: no crash"
cmp -s "$TMP/tn.out" "$TMP/tw.out"; ok $? "same output"

# Loads through libc's own data (errno's slot): witch's handlers give the
# pages back before they touch errno (3 runs; before, 1 in 3 died).
for i in 1 2 3; do
	"$WITCH" record --quiet --watch=pages --craft=load -o "$TMP/e$i" -- "$PROGS/errnoload" >"$TMP/ew.out"
	ok $? "loads of errno under --watch=pages, run $i: no crash"
done

# A program with a signal handler of its own: its handlers run on witch's
# alternate stack, so the stack pages stay watched (dead locals found), and
# the handler still runs every time.
"$PROGS/stackdead" 400 >"$TMP/sn.out"
"$WITCH" record --quiet --watch=pages -o "$TMP/s" -- "$PROGS/stackdead" 400 >"$TMP/sw.out"
ok $? "stackdead under --watch=pages"
cmp -s "$TMP/sn.out" "$TMP/sw.out"; ok $? "same output: its handler ran as often ($(cut -d' ' -f2 "$TMP/sw.out") times)"
"$WITCH" report --format=json "$TMP/s" >"$TMP/s.json"
is "$(json "$TMP/s.json" '.pairs[0].watch[0].function')" rounds "the dead store to a local is found"
within "$(json "$TMP/s.json" '.totals.traps')" 10 1e9 "watches on the stack are judged"

# Samples follow the program's own time, not the time its faults cost: a
# sweep that faults on every store of a watched page and a computation of
# the same native length get about the same share of samples (they got
# 78 % and 22 % when the timer counted witch's time as the program's), and
# the program gets about 250 samples per second of its own CPU time
# (twice that, then).
k=$("$PROGS/phases" calibrate)
"$PROGS/phases" 2000 "$k" >"$TMP/pn.out" 2>"$TMP/pn.cpu"
"$WITCH" record --quiet --watch=pages --registers=4 --rate=250 -o "$TMP/ph" -- "$PROGS/phases" 2000 "$k" >"$TMP/pw.out" 2>/dev/null
ok $? "phases under --watch=pages"
"$WITCH" report --format=json "$TMP/ph" >"$TMP/ph.json"
samples=$(json "$TMP/ph.json" '.totals.stats.samples')
swept=$(json "$TMP/ph.json" '.totals.stats.watchpoints_armed')
expect=$(awk '{ printf "%d", $1 * 250 }' "$TMP/pn.cpu")
in_witch=$(json "$TMP/ph.json" '.totals.stats.samples_in_witch_time')
# The figures go into the check's name: prove -f prints it when it fails.
# phases draws each round's length: with rounds of one length, which
# divides the 4 ms tick the timer fires on, the share came out 0.31-0.60.
within "$(awk -v a="$swept" -v n="$samples" 'BEGIN { print n ? a / n : 0 }')" 0.35 0.70 \
	"the sweep's share of samples is about its share of the program's time (0.5; $swept of $samples samples, $in_witch in witch's time, spin $k, $(cat "$TMP/pn.cpu") s natively)"
within "$samples" "$((expect / 2))" "$((expect * 3 / 2))" "samples follow the program's CPU time"
within "$in_witch" 1 1e9 \
	"timer expiries in witch's time are counted"

# A rate above 250 Hz is lowered, and the run says so.
"$WITCH" record --watch=pages --rate=1000 -o "$TMP/q" -- "$PROGS/nodead" 5 >/dev/null 2>"$TMP/err"
ok $? "--rate=1000 with --watch=pages runs"
like "$(head -n 1 "$TMP/err")" 'samples at most 250 times a second' "and says the rate is lowered"
# A handler of the program's that jumps out (siglongjmp from SIGALRM) must
# not run inside witch's: it left witch's state half-way, and the program
# died of a fault on a watched page (3 runs of 3 before; the signal waits
# now, thread.c's install). The read the alarm ends runs in kernelio.c's
# stub when its buffer is watched.
"$PROGS/alarmjump" 200 >"$TMP/an.out"
for i in 1 2 3; do
	"$WITCH" record --quiet --watch=pages -o "$TMP/a$i" -- "$PROGS/alarmjump" 200 >"$TMP/aw.out"
	ok $? "alarmjump under --watch=pages, run $i: no crash"
	cmp -s "$TMP/an.out" "$TMP/aw.out"; ok $? "same output: $(cat "$TMP/aw.out")"
done

done_testing
