#!/bin/sh
# witch spy --tool=loop finds loops whose iterations re-read what earlier
# iterations read (Prometheus): exact invocations and iterations of loops
# with known trip counts (tests/progs/loop_trips.c); Prometheus's first
# bug, a scan of one list for each value of another, flagged, and its
# fixed version not; an outer repetition of the whole scan not flagged
# for the scan's redundancy; read sets per thread; a forked child's own
# profile; a read set too large for its table said so; the program's
# SIGCHLD delivered while a module's loops are found; matrices read down
# their columns.
. "$(dirname "$0")/lib.sh"

# loop DIR PROG ARGS...: witch spy --tool=loop into DIR, its JSON in DIR.json
loop() {
	d=$1 p=$2
	shift 2
	"$WITCH" spy --quiet --tool=loop -o "$d" -- "$PROGS/$p" "$@" >"$d.out"
	ok $? "witch spy --tool=loop $p $*"
	is "$(cat "$d.out")" "$("$PROGS/$p" "$@")" "$p $*: the output passes through"
	"$WITCH" report --format=json "$d" >"$d.json"
}
marked() { line_of "$TOP/tests/progs/$1.c" "/\* loop: $2"; }
# at JSON PROG MARK FIELD: FIELD summed over the contexts of the loop
# that begins on PROG's line marked MARK
at() {
	jq --arg f "$2.c" --argjson l "$(marked "$2" "$3")" \
		"[.loops[] | select((.file // \"\" | endswith(\$f)) and .first_line == \$l) | .$4] | add // 0" "$1"
}
# flagged JSON PROG MARK: true when any context of that loop is flagged
flagged() {
	jq --arg f "$2.c" --argjson l "$(marked "$2" "$3")" \
		'[.loops[] | select((.file // "" | endswith($f)) and .first_line == $l) | .flagged] | any' "$1"
}

# Exact counts.
loop "$TMP/trips" loop_trips
counts() { echo "$(at "$TMP/trips.json" loop_trips "$1" invocations) $(at "$TMP/trips.json" loop_trips "$1" iterations)"; }
is "$(counts outer)" "3 21" "nested loops: the outer one, 3 calls of 7 iterations"
is "$(counts inner)" "21 105" "nested loops: the inner one, 21 invocations of 5"
is "$(counts caller)" "1 4" "a loop calling a function"
is "$(counts callee)" "4 24" "... whose own loop runs 6 times per call"
is "$(counts once)" "1 1" "a loop of one iteration"
is "$(counts rec)" "15 30" "a loop in a recursive function: every instance counted"
is "$(counts calls)" "1 3" "main's loop"
is "$(jq '[.loops[] | select(.file // "" | endswith("loop_trips.c")) | select(.first_line == '"$(marked loop_trips inner)"') | .parent.first_line] | unique | .[0]' "$TMP/trips.json")" \
	"$(marked loop_trips outer)" "the inner loop is nested in the outer one"
is "$(jq -r '[.loops[] | select(.first_line == '"$(marked loop_trips callee)"' and (.file // "" | endswith("loop_trips.c"))) | .context[0:3] | map(.function) | join(" ")][0]' "$TMP/trips.json")" \
	"callee caller main" "the callee's loop in its calling context, leaf first"

# Prometheus's first bug, and its fix.
loop "$TMP/bad" loop_scan bad 2000 500
loop "$TMP/fixed" loop_scan fixed 2000 500
is "$(flagged "$TMP/bad.json" loop_scan bug)" true "the scan for each wanted value is flagged"
# gcc splits the scan into two natural loops (a found value and a missed
# one go back to different headers): the outer part is the one flagged.
ratio=$(jq --argjson l "$(marked loop_scan bug)" '[.loops[] | select(.first_line == $l and (.file // "" | endswith("loop_scan.c"))) | .ratio] | max' "$TMP/bad.json")
diag "bad: ratio $ratio"
within "$ratio" 0.95 1 "nearly all its data-intensive iterations are redundant"
line=$(jq -r '[.loops[] | select(.flagged and .first_line == '"$(marked loop_scan bug)"' and (.file // "" | endswith("loop_scan.c"))) | .top_reads[0].line][0]' "$TMP/bad.json")
is "$line" "$(($(marked loop_scan bug) + 2))" "its top redundant load is the haystack's, two lines below"
is "$(jq '[.loops[] | select(.file // "" | endswith("loop_scan.c")) | .flagged] | any' "$TMP/fixed.json")" false \
	"the fixed version has no flagged loop"
is "$(jq '.loops[0].flagged' "$TMP/bad.json")" true "flagged loops come first"

# A second run into the same directory finds the loops in the maps the
# first one left (the same files, by the same witch): none written anew.
ls -i "$TMP/bad/cfg" | sort >"$TMP/maps1"
"$WITCH" spy --quiet --tool=loop -o "$TMP/bad" -- "$PROGS/loop_scan" bad 2000 500 >"$TMP/again.out"
ok $? "a second run into the same directory"
ls -i "$TMP/bad/cfg" | sort >"$TMP/maps2"
cmp -s "$TMP/maps1" "$TMP/maps2"; ok $? "... reads the maps the first run wrote, without writing them again"
cmp -s "$TMP/again.out" "$TMP/bad.out"; ok $? "... its output the program's"
"$WITCH" report --format=json "$TMP/bad" >"$TMP/again.json"
# (The program's own: libc's start-up loops vary with the environment.)
mine='[.loops[] | select(.file // "" | endswith("loop_scan.c")) | [.first_line, .invocations, .iterations, .reads, .redundant_reads, .flagged]]'
is "$(jq -c "$mine" "$TMP/again.json")" "$(jq -c "$mine" "$TMP/bad.json")" \
	"... and the program's loops as the first run's, exactly"
# A damaged map (cut short on disk) is no reason to stop the program: its
# module goes unwatched, the profile says so, and the map goes, for the
# next run to write anew.
cp -r "$TMP/bad" "$TMP/dmg"
pmap=$(grep -lx "module $PROGS/loop_scan" "$TMP/dmg/cfg"/*.map)
sed -i '$d' "$pmap"
"$WITCH" spy --quiet --tool=loop -o "$TMP/dmg" -- "$PROGS/loop_scan" bad 2000 500 >"$TMP/dmg.out" 2>"$TMP/dmg.err"
is "$?,$(cmp -s "$TMP/dmg.out" "$TMP/bad.out" && echo same)" 0,same "a damaged map: the program's exit status and output"
is "$(sed -n 's/^stat modules_unmapped //p' "$TMP/dmg"/*.witch)" 1 "... its module counted as unwatched"
[ ! -e "$pmap" ]; ok $? "... and the damaged map removed"
# Offsets are kept in 32 bits: a map with one past 4 GiB (no module is
# that large) is refused like a damaged one, in one line that says why.
cp -r "$TMP/bad" "$TMP/big4g"
pmap=$(grep -lx "module $PROGS/loop_scan" "$TMP/big4g/cfg"/*.map)
sed -i '0,/^b /s/^b \([0-9a-f]*\) [0-9a-f]*$/b \1 100000000/' "$pmap"
VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind --log-file="$TMP/big4g.log" --tool=witchspy \
	--witch-tool=loop --witch-loops="$TMP/big4g/cfg" --witch-loop-finder="$WITCH" \
	--witch-out="$TMP/big4g" "$PROGS/loop_scan" bad 200 50 >/dev/null
like "$(grep -c 'past 4 GiB' "$TMP/big4g.log"),$(grep 'past 4 GiB' "$TMP/big4g.log")" \
	"^1,.*loops-[0-9a-f]+\.map:[0-9]+: an offset past 4 GiB \(a module that large is not watched\)" \
	"a map's offset past 4 GiB: refused in one line"
"$WITCH" spy --tool=loop --run=loops -o "$TMP/run" -- /bin/true 2>"$TMP/run.err"
is "$?,$(wc -l <"$TMP/run.err" | tr -d ' ')" 2,1 "--run (the old two runs' option) is refused in one line"

# The CI gate: any flagged loop fails it.
"$WITCH" report --fail-above=0.5 "$TMP/bad" >/dev/null 2>"$TMP/gate.err"
is $? 3 "--fail-above: a flagged loop fails the gate"
like "$(cat "$TMP/gate.err")" "^witch report: [0-9]+ loops? flagged, --fail-above allows none$" "... and says so in one line"
"$WITCH" report --fail-above=0.5 "$TMP/fixed" >/dev/null 2>&1
is $? 0 "--fail-above: the fixed program passes"
"$WITCH" report --format=folded "$TMP/bad" >/dev/null 2>"$TMP/folded.err"
is $? 1 "--format=folded refuses a loop profile"

# A repetition of the whole scan: the scan is still flagged, the
# repetition is not (its iterations repeat a flagged loop's reads).
loop "$TMP/rep" loop_scan bad 2000 500 4
is "$(flagged "$TMP/rep.json" loop_scan bug)" true "repeated: the scan is flagged"
is "$(flagged "$TMP/rep.json" loop_scan repeat)" false "the repetition around it is not"
is "$(at "$TMP/rep.json" loop_scan repeat iterations)" 4 "the repetition's 4 iterations"

# Matrices read down their columns (tests/progs/loop_columns.c): each
# iteration reads the bytes or ints beside those the iteration before
# read, in the same 8-byte words, which an earlier loop read too.
# --exact-parts judges each part of a word by when it was read: no pass
# re-reads within itself, and the frame loop that repeats the passes
# re-reads everything after its first frame.
"$WITCH" spy --quiet --tool=loop --exact-parts -o "$TMP/col" -- "$PROGS/loop_columns" image 8 >/dev/null
ok $? "witch spy --tool=loop --exact-parts loop_columns image 8"
"$WITCH" report --format=json "$TMP/col" >"$TMP/col.json"
is "$(at "$TMP/col.json" loop_columns columns redundant_reads)" 0 "a pass down a byte image's columns re-reads nothing"
is "$(flagged "$TMP/col.json" loop_columns columns)" false "... and is not flagged"
is "$(at "$TMP/col.json" loop_columns rows redundant_reads)" 0 "nor does the pass along its rows"
is "$(at "$TMP/col.json" loop_columns frames redundant_reads)" $((7 * 2 * 64 * 64)) "the frame loop re-reads both passes' reads from its second frame on"
is "$(flagged "$TMP/col.json" loop_columns frames)" true "... and is flagged"
is "$(json "$TMP/col.json" '.totals.stats.exact_parts')" 1 "the profile says its parts were judged apart"
# By default a word's bytes share one time (docs/spy.md): the column
# pass is found to re-read (7 of 8 iterations), and claims the frame
# loop's reads.
loop "$TMP/colw" loop_columns image 8
is "$(flagged "$TMP/colw.json" loop_columns columns)" true "without --exact-parts, the column pass looks re-reading"
is "$(flagged "$TMP/colw.json" loop_columns frames)" false "... and claims the frame loop's reads"
is "$(json "$TMP/colw.json" '.totals.stats.exact_parts')" 0 "... and the profile says so"
# The same over a wrap of the loop clock (8 million iteration starts):
# the split words' older parts keep their order among the loops' starts.
"$WITCH" spy --quiet --tool=loop --exact-parts -o "$TMP/colr" -- "$PROGS/loop_columns" image 1100 >/dev/null
"$WITCH" report --format=json "$TMP/colr" >"$TMP/colr.json"
is "$(at "$TMP/colr.json" loop_columns columns redundant_reads)" 0 "1100 frames, past the clock's wrap: the column pass still re-reads nothing"
is "$(at "$TMP/colr.json" loop_columns frames redundant_reads)" $((1099 * 2 * 64 * 64)) "... and the frame loop every frame after the first"
# C = A B for 48 x 48 ints: the loop over C's columns re-reads A's row,
# half its reads, and B's columns (ints side by side) once; the dot
# product re-reads nothing (by default: 162432 and 54144).
"$WITCH" spy --quiet --tool=loop --exact-parts -o "$TMP/mm" -- "$PROGS/loop_columns" matmul >/dev/null
"$WITCH" report --format=json "$TMP/mm" >"$TMP/mm.json"
is "$(at "$TMP/mm.json" loop_columns cols redundant_reads)" $((48 * 47 * 48)) "matrix product: the column loop re-reads A's row, and nothing else"
is "$(at "$TMP/mm.json" loop_columns cols redundant_iterations)" 0 "... half of each iteration: none redundant"
is "$(at "$TMP/mm.json" loop_columns dot redundant_reads)" 0 "the dot product re-reads nothing"

# A stripped program: its functions are bounded by their call frame
# entries, not by the instructions that ran (which a never-run error path
# cuts in pieces), so the scan is still one loop of one function.
strip -o "$TMP/loop_scan-stripped" "$PROGS/loop_scan"
"$WITCH" spy --quiet --tool=loop -o "$TMP/str" -- "$TMP/loop_scan-stripped" bad 2000 500 >/dev/null
ok $? "witch spy --tool=loop on a stripped program"
"$WITCH" report --format=json "$TMP/str" >"$TMP/str.json"
is "$(jq '[.loops[] | select(.flagged and (.module // "" | endswith("loop_scan-stripped")))] | length' "$TMP/str.json")" 1 \
	"stripped: the scan is flagged"
within "$(jq '.totals.reads_in_loops / .totals.reads' "$TMP/str.json")" 0.9 1 "stripped: nearly every read is in a loop"

# Per thread: each thread's scan is flagged; one pass over a table that
# the other thread read too is not re-reading.
loop "$TMP/thr" loop_threads threads
is "$(jq '[.loops[] | select(.depth == 0 and .first_line == '"$(marked loop_threads scan)"' and (.file // "" | endswith("loop_threads.c")))] | length' "$TMP/thr.json")" 1 \
	"both threads' scans: one loop in one context"
is "$(jq '[.loops[] | select(.depth == 0 and .first_line == '"$(marked loop_threads scan)"' and (.file // "" | endswith("loop_threads.c"))) | .invocations] | add' "$TMP/thr.json")" 2 \
	"... invoked once per thread"
is "$(flagged "$TMP/thr.json" loop_threads scan)" true "... flagged"
is "$(at "$TMP/thr.json" loop_threads once redundant_reads)" 0 "a single pass per thread re-reads nothing"
# The threads run the same loads, whose counts are kept per load and
# loop and handed from thread to thread: each loop's loads, where all
# are listed, still add up to its redundant reads.
is "$(jq '[.loops[] | select(.redundant_reads > 0 and (.top_reads | length) < 5)
	| select(.redundant_reads != ([.top_reads[].redundant_reads] | add))] | length' "$TMP/thr.json")" 0 \
	"each loop's redundant reads are its loads'"
within "$(jq '[.loops[] | select(.redundant_reads > 0 and (.top_reads | length) < 5)] | length' "$TMP/thr.json")" 2 1000 \
	"... (checked in that many loops)"

# A forked child writes its own profile, with its own loops.
loop "$TMP/fork" loop_threads fork
is "$(ls "$TMP/fork"/*.witch | wc -l)" 2 "parent and child: two profiles"
n=0
for f in "$TMP/fork"/*.witch; do
	"$WITCH" report --format=json "$f" >"$f.json"
	[ "$(flagged "$f.json" loop_threads scan)" = true ] && n=$((n + 1))
done
is "$n" 1 "the child's scan is flagged in its profile only"

# Threads and forks over a run (tests/progs/loop_life.c). A thread that
# ran a loop and was joined before a fork leaves nothing the child's new
# thread could take for its own (the child crashed so).
loop "$TMP/lf" loop_life forkthread
is "$(ls "$TMP/lf"/*.witch | wc -l)" 2 "a fork after a thread's loop, a loop in the child's thread: two profiles"
# A fork in the middle of an iteration: the child's iteration counts
# from the fork, the parent's whole.
loop "$TMP/lm" loop_life forkmid
for f in "$TMP/lm"/*.witch; do
	"$WITCH" report --format=json "$f" >"$f.json"
	at "$f.json" loop_life outer reads
done | sort -n >"$TMP/lm.reads"
within "$(sed -n 1p "$TMP/lm.reads")" 0 4095 "a fork mid-iteration: the child's loop counts less than a pass of its own"
within "$(sed -n 2p "$TMP/lm.reads")" 49152 1e9 "... and the parent's all four iterations of three passes"
# A signal handler runs in the frame it interrupted: its loop is one of
# its own, and ends with it; the loops it interrupted go on (they ended
# at each signal, and began again after it).
"$WITCH" spy --quiet --tool=loop -o "$TMP/lsig" -- "$PROGS/loop_life" signal 3000 >/dev/null 2>"$TMP/lsig.err"
ok $? "witch spy --tool=loop loop_life signal 3000"
"$WITCH" report --format=json "$TMP/lsig" >"$TMP/lsig.json"
nsig=$(sed -n 's/ signals$//p' "$TMP/lsig.err")
within "$nsig" 10 1e9 "... a timer interrupted the loops ($nsig times)"
is "$(at "$TMP/lsig.json" loop_life rounds invocations)" 1 "... which ran on: the outer loop once"
is "$(at "$TMP/lsig.json" loop_life each invocations)" 3000 "... the inner once per outer iteration"
is "$(at "$TMP/lsig.json" loop_life handler invocations)" "$nsig" "... the handler's loop once per signal"

# Past the chunks' limit (here 16), chunks that only hold what was
# forgotten (no loop was active since) serve new addresses: twelve scans
# of fresh mappings, one after another, are all judged.
loop "$TMP/lfr" loop_life fresh 12
mkdir "$TMP/lfr16"
VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind -q --tool=witchspy --witch-tool=loop \
	--witch-loops="$TMP/lfr/cfg" --witch-loop-finder="$WITCH" --witch-loop-chunks=16 \
	--witch-out="$TMP/lfr16" "$PROGS/loop_life" fresh 12 >/dev/null
"$WITCH" report --format=json "$TMP/lfr16" >"$TMP/lfr16.json"
is "$(json "$TMP/lfr16.json" '.totals.reads_untracked')" 0 "past the chunks' limit, forgotten chunks serve new reads: none untracked"
is "$(at "$TMP/lfr16.json" loop_life scan redundant_reads)" "$(at "$TMP/lfr.json" loop_life scan redundant_reads)" \
	"... and the scans count as without the limit"
# A thread's read set goes when it ends: eight threads one after another,
# each reading 16 MiB in a loop, take no more than two.
for k in 2 8; do
	"$TOP/build/bench/measure" "$WITCH" spy --quiet --tool=loop -o "$TMP/pool$k" -- "$PROGS/loop_life" pool $k \
		3>"$TMP/pool$k.m" >/dev/null
done
within "$(($(cut -d' ' -f2 "$TMP/pool8.m") - $(cut -d' ' -f2 "$TMP/pool2.m")))" -1e9 65536 \
	"ended threads' read sets are freed: 8 threads peak within 64 MiB of 2"

# A read set past its limit (here one chunk of 64 KiB; LOOP_READ_CHUNKS_MAX
# by default) stops growing, and the report says so: witchspy run by
# hand with the maps of the runs before.
mkdir "$TMP/big"
VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind -q --tool=witchspy --witch-tool=loop \
	--witch-loops="$TMP/bad/cfg" --witch-loop-finder="$WITCH" --witch-loop-chunks=1 \
	--witch-out="$TMP/big" "$PROGS/loop_scan" bad 40000 3 >/dev/null
ok $? "witchspy --witch-loop-chunks=1"
"$WITCH" report --format=json "$TMP/big" >"$TMP/big.json"
within "$(json "$TMP/big.json" '.totals.reads_untracked')" 1 1e12 "a read set past its limit stops growing"
like "$("$WITCH" report "$TMP/big")" "not tracked" "and the report says so"

# Nestings of loops past the limit (here one; LOOP_STACKS_MAX by default)
# still count for their loops, but not by load, and the report says so.
for n in 1 1048576; do
	mkdir "$TMP/st$n"
	VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind -q --tool=witchspy --witch-tool=loop \
		--witch-loops="$TMP/bad/cfg" --witch-loop-finder="$WITCH" --witch-loop-stacks=$n \
		--witch-out="$TMP/st$n" "$PROGS/loop_scan" bad 3000 3 >/dev/null
	ok $? "witchspy --witch-loop-stacks=$n"
	"$WITCH" report --format=json "$TMP/st$n" >"$TMP/st$n.json"
done
# The program's own loops (the loader's read its environment), each with
# all its loads listed (fewer than five).
own='.loops[] | select(.file // "" | endswith("loop_scan.c"))'
loop_counts() { jq -c "[$own | [.header, .depth, .iterations, .redundant_reads]] | sort" "$1"; }
short() { jq "[$own | select((.top_reads | length) < 5 and .redundant_reads > ([.top_reads[].redundant_reads] | add // 0))] | length" "$1"; }
is "$(loop_counts "$TMP/st1.json")" "$(loop_counts "$TMP/st1048576.json")" \
	"past the nestings' limit, every loop counts the same"
within "$(json "$TMP/st1.json" '.totals.reads_unattributed')" 1 1e12 "... but some reads count for no load"
is "$(json "$TMP/st1048576.json" '.totals.reads_unattributed')" 0 "... which all do within it"
within "$(short "$TMP/st1.json")" 1 1000 "... so a loop's loads add up to less than its redundant reads"
is "$(short "$TMP/st1048576.json")" 0 "... which they do not within it"
like "$("$WITCH" report "$TMP/st1")" "counted for (its|their) loops but not by load" "and the report says so"

# A child of the program's that ends while a module's loops are found
# (here zlib's, opened by the program, whose finder kills the child
# first) signals the program as it would without witch: the finder runs
# with SIGCHLD's action untouched, and sends none itself. The program's
# second thread waits in read(2), where SIGCHLD is not blocked. The
# finder is slow (0.2 s a module): the tool waits for it all the same.
mkdir -p "$TMP/chld/cfg"
cat >"$TMP/finder" <<'EOF'
#!/bin/sh
case "$*" in
*libz.so*)
	pid=$(cat "$CHLD_PID")
	kill -KILL "$pid"
	n=0
	while [ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" != Z ] && [ $n -lt 3000 ]; do
		sleep 0.01
		n=$((n + 1))
	done ;;
esac
sleep 0.2
exec "$WITCH" "$@"
EOF
chmod +x "$TMP/finder"
CHLD_PID="$TMP/chld/pid" WITCH="$WITCH" VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind -q \
	--tool=witchspy --witch-tool=loop --witch-loops="$TMP/chld/cfg" --witch-loop-finder="$TMP/finder" \
	--witch-out="$TMP/chld" "$PROGS/loop_sigchld" "$TMP/chld/pid" >"$TMP/chld.out"
is "$?,$(cat "$TMP/chld.out")" "0,$("$PROGS/loop_sigchld")" "a SIGCHLD while loops are found is the program's"
grep -lq "libz" "$TMP/chld/cfg"/*.map
ok $? "... zlib's loops were found then"
is "$(sed -n 's/^stat modules_unmapped //p' "$TMP/chld"/*.witch | sort -n | tail -1)" 0 \
	"... and every module's, each waited for"
# Nor does the finder's end signal the program (exec made its exit
# signal SIGCHLD again, which the program then got).
mkdir -p "$TMP/nochld/cfg"
VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind -q --tool=witchspy --witch-tool=loop \
	--witch-loops="$TMP/nochld/cfg" --witch-loop-finder="$WITCH" --witch-out="$TMP/nochld" \
	"$PROGS/loop_sigchld" none >"$TMP/nochld.out"
is "$?,$(cat "$TMP/nochld.out")" "0,0 SIGCHLD" "no child, no SIGCHLD: the finder's ends signal nobody"

# witchspy itself refuses the loop tool without where its maps go.
VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind --tool=witchspy --witch-tool=loop /bin/true \
	>/dev/null 2>"$TMP/nomap.err"
ok $((! $?)) "witchspy --witch-tool=loop without --witch-loops fails"
like "$(cat "$TMP/nomap.err")" "needs --witch-loops=DIR and --witch-loop-finder" "... and says what it needs"

# Loops that cannot be found (a finder that writes no map) leave the
# program as it is: its output and exit status, a warning in Valgrind's
# log, and the profile counts the modules without loops.
mkdir "$TMP/nf"
VALGRIND_LIB="$(dirname "$WITCH")/../lib/witch" valgrind --log-file="$TMP/nf.log" --tool=witchspy \
	--witch-tool=loop --witch-loops="$TMP/nf" --witch-loop-finder=/bin/false --witch-out="$TMP/nf" \
	"$PROGS/loop_scan" bad 200 50 >"$TMP/nf.out" 2>"$TMP/nf.err"
is "$?,$(cat "$TMP/nf.out")" "0,$("$PROGS/loop_scan" bad 200 50)" "no maps: the program's output and exit status"
is "$(wc -c <"$TMP/nf.err" | tr -d ' ')" 0 "... nothing on its stderr"
like "$(cat "$TMP/nf.log")" "warning: cannot find the loops of .*loop_scan" "... a warning in Valgrind's log"
within "$(sed -n 's/^stat modules_unmapped //p' "$TMP/nf"/*.witch)" 2 100 "... and the profile counts the modules without loops"
like "$("$WITCH" report "$TMP/nf")" "note: the loops of [0-9]+ modules could not be found" "... which the report notes"

done_testing
