#!/bin/sh
# witch spy --tool=rvn finds redundant computation, loads and stores by
# value numbering, on programs whose redundancy is known (tests/progs/
# rvn_*.c), each against its fixed version: the bad version's redundancy
# at the marked line (in the calling context, for pow in libm) is at
# least 5 times what the fixed version has left in the whole program;
# a program of fresh operands stays at 5 % or less. --burst judges
# bursts of instructions only; --by=value finds what an instruction
# repeats from the same operand values.
. "$(dirname "$0")/lib.sh"

# rvn DIR PROG ARGS...: witch spy --tool=rvn into DIR, its JSON in DIR.json
rvn() {
	d=$1 p=$2
	shift 2
	"$WITCH" spy --quiet --tool=rvn -o "$d" -- "$PROGS/$p" "$@" >"$d.out"
	ok $? "witch spy --tool=rvn $p $*"
	"$WITCH" report --format=json --top=100000 "$d" >"$d.json"
}
marked() { line_of "$TOP/tests/progs/$1.c" "rvn: marked"; }
# at JSON KIND FILE LINE: redundant KIND events whose redundant context
# passes through FILE:LINE
at() {
	jq --arg k "$2" --arg f "$3" --argjson l "$4" \
		'[.pairs[] | select(.kind == $k and any(.again[]; (.file // "" | endswith($f)) and .line == $l)) | .redundant] | add // 0' "$1"
}
# in_prog JSON KIND PROG: redundant KIND events whose redundant context
# passes through the program's own source
in_prog() {
	jq --arg k "$2" --arg f "$3.c" \
		'[.pairs[] | select(.kind == $k and any(.again[]; .file // "" | endswith($f))) | .redundant] | add // 0' "$1"
}

# check PROG KIND ARGS: the bad version's KIND redundancy at the marked
# line is at least 5x what the fixed version has left, and the same output
check() {
	p=$1 k=$2
	shift 2
	rvn "$TMP/$p-bad" "$p" bad "$@"
	rvn "$TMP/$p-fixed" "$p" fixed "$@"
	is "$(cat "$TMP/$p-bad.out")" "$(cat "$TMP/$p-fixed.out")" "$p: bad and fixed compute the same"
	is "$(cat "$TMP/$p-bad.out")" "$("$PROGS/$p" bad "$@")" "$p: the output passes through"
	bad=$(at "$TMP/$p-bad.json" "$k" "$p.c" "$(marked "$p")")
	fixed=$(in_prog "$TMP/$p-fixed.json" "$k" "$p")
	diag "$p: $k redundant at the marked line $bad, in the fixed program $fixed"
	within "$bad" 100 1e12 "$p: redundant $k at the marked line ($p.c:$(marked "$p"))"
	within "$bad" "$((5 * fixed))" 1e12 "$p: at least 5x what the fixed version has left ($fixed)"
}

check rvn_stencil computation 20
check rvn_pow computation 50000
check rvn_store store 40
check rvn_recompute computation 50000

# Cases whose redundancy is known exactly (tests/progs/rvn_cases.c), at
# their marked lines; each number is what the tool found before it was
# mended, and is wrong.
for c in bytes rebytes half unaligned swap carry again invariant contexts writeback commute; do
	rvn "$TMP/case-$c" rvn_cases $c 1000
done
case_at() { # JSON-CASE KIND MARK
	at "$TMP/case-$1.json" "$2" rvn_cases.c "$(line_of "$TOP/tests/progs/rvn_cases.c" "rvn: $3\\b")"
}
is "$(case_at bytes load bytes)" 0 "a byte loop reading each byte once: no load redundant (750)"
is "$(case_at rebytes load bytes)" 1000 "... reading them twice: the second pass's 1000 (1750)"
is "$(case_at half load half)" 0 "an 8-byte load after a store to its high half: not redundant (999)"
is "$(case_at unaligned computation unaligned)" 0 "8-byte loads 3 bytes into cells never written: no product redundant (999)"
is "$(case_at swap computation swap)" 0 "x with y's low byte, y with x's: two numbers (1000)"
within "$(case_at carry computation carry)" 0 1 "the carry before inc counts in setc's number (1001)"
is "$(case_at again computation again)" 999 "an instruction's product again two results on: among its last 4 (750)"
is "$(case_at invariant computation invariant)" 999 "a loop of one block recomputing x*y: each again but the first, not unrolled (250)"
is "$(case_at contexts load contexts)" 1999 "one load from two callers in turn: the same instruction (0 by handle alone)"
is "$(case_at writeback store writeback)" 1000 "each element stored back as it was: every store redundant"
is "$(case_at commute computation commute)" 1000 "y + x after x + y: the operands in either order (0 in their order)"
first=$(jq -r --argjson l "$(line_of "$TOP/tests/progs/rvn_cases.c" "rvn: writeback\\b")" \
	'[.pairs[] | select(.kind == "store" and .again[0].line == $l)][0].first[0].line' "$TMP/case-writeback.json")
is "$first" "$(line_of "$TOP/tests/progs/rvn_cases.c" "rvn: readback")" \
	"... first the load that read the number there, not the store that put it"

# The pairs say which computation came first: the stencil's column sum
# redone at the marked line was first made a point or two before, on the
# line below it.
first=$(jq -r --argjson l "$(marked rvn_stencil)" '[.pairs[] | select(.kind == "computation" and .again[0].line == $l)][0].first[0].line' "$TMP/rvn_stencil-bad.json")
is "$first" "$(($(marked rvn_stencil) + 1))" "stencil: the redundant sum was first computed on the next line, for the next column"

rvn "$TMP/fresh" rvn_fresh x 100000
within "$(json "$TMP/fresh.json" '.totals.redundancy')" 0 0.05 "fresh operands: 5 % redundant or less"
is "$(json "$TMP/fresh.json" '.tool + " " + .by')" "rvn symbol" "the profile says what it is"

# Bursts: a million instructions judged, then a million not, and again;
# the redundancy is that of the bursts, and pow's is found there.
"$WITCH" spy --quiet --tool=rvn --burst=1,1 -o "$TMP/b" -- "$PROGS/rvn_pow" bad 50000 >"$TMP/b.out"
ok $? "witch spy --tool=rvn --burst=1,1"
is "$(cat "$TMP/b.out")" "$(cat "$TMP/rvn_pow-bad.out")" "bursts: the same output"
"$WITCH" report --format=json --top=100000 "$TMP/b" >"$TMP/b.json"
all=$(json "$TMP/b.json" '.totals.stats.instructions')
judged=$(json "$TMP/b.json" '.totals.stats.instructions_judged')
diag "bursts: $judged of $all instructions judged in $(json "$TMP/b.json" '.totals.stats.bursts') bursts"
within "$judged" "$((all * 4 / 10))" "$((all * 6 / 10))" "bursts: about half of the instructions judged"
within "$(json "$TMP/b.json" '.totals.stats.bursts')" 3 1000 "bursts: several"
within "$(at "$TMP/b.json" computation rvn_pow.c "$(marked rvn_pow)")" 1000 1e12 "bursts: pow's redundancy found"
like "$("$WITCH" report "$TMP/b" | sed -n 4p)" "^instructions observed: [0-9.]+% \\([0-9]+ of [0-9]+, in [0-9]+ bursts\\)$" \
	"the text report says how much was observed"
# Calls are not followed between bursts: each burst reads its frames off
# the stack. Every context a burst found a redundancy in is one the
# exhaustive run found it in too (none cut short, none made up). But the
# loader's: its symbol hashing runs one instruction for every lookup, of
# which the table keeps the last few, so a burst, starting afresh, finds
# two lookups of one name that the whole run had forgotten between.
contexts() {
	jq -r '.pairs[] | .again | map("\(.function):\(.line)") | join(" < ")' "$1" | grep -v '_dl_' | sort -u
}
contexts "$TMP/rvn_pow-bad.json" >"$TMP/all.ctx"
contexts "$TMP/b.json" >"$TMP/b.ctx"
within "$(wc -l <"$TMP/b.ctx")" 3 1e9 "bursts: redundancy found in several contexts"
is "$(comm -23 "$TMP/b.ctx" "$TMP/all.ctx" | head -3)" "" "bursts: every context is one of the exhaustive run's"
# Each phase has translations of its own: a switch has them all made
# again, so more bursts make more translations (without the discard, the
# code translated between bursts would run unjudged in the next burst).
"$WITCH" spy --quiet --tool=rvn --burst=1,20 -o "$TMP/b1" -- "$PROGS/rvn_pow" bad 50000 >/dev/null
one=$(sed -n 's/^stat superblocks //p' "$TMP"/b1/*.witch)
within "$(sed -n 's/^stat superblocks //p' "$TMP"/b/*.witch)" "$((one + 20))" 1e12 \
	"bursts: $(json "$TMP/b.json" '.totals.stats.bursts') bursts translate the code again at each switch, more than one burst does"

# The discarded translations' space comes back only when Valgrind
# recycles the whole sector holding them: bursts keep to 2 sectors, which
# they recycle, where Valgrind's 32 let dead code fill 800 MB (sqlite3,
# --burst=1,10). Small sectors here, so that a short run fills them; a
# build without the limit allocates 9 and recycles none. (Not with
# --stats=yes: Valgrind 3.19 then divides by a full sector's live
# translations, which a switch can leave at none, and dies of SIGFPE.)
PERL_HASH_SEED=0 VALGRIND_OPTS="--avg-transtab-entry-size=50 -v" "$WITCH" spy -v --tool=rvn \
	--burst=1,1 -o "$TMP/sec" -- perl -e 'my %h; for my $i (1..40000) { $h{$i % 997} .= chr(65 + $i % 26);
		my @k = sort keys %h if $i % 5000 == 0 } print length(join "", values %h), "\n"' \
	>"$TMP/sec.out" 2>"$TMP/sec.log"
is "$(cat "$TMP/sec.out")" 40000 "bursts of a perl run: its output"
within "$(grep -c 'TT/TC: recycle sector' "$TMP/sec.log")" 1 1e9 "bursts: sectors of translations recycled"
is "$(sed -n 's/.*TT\/TC: recycle sector //p' "$TMP/sec.log" | sort -un | tr '\n' ' ')" "0 1 " \
	"bursts: ... two of them, 0 and 1"

# Per thread: two threads compute the same sums of squares once each,
# then the main thread twice; only the main thread's second is redundant.
rvn "$TMP/th" rvn_threads 3
# by FUNCTION [DIR]: redundant computations at the marked line under FUNCTION
by() {
	jq --argjson l "$(marked rvn_threads)" --arg f "$1" \
		'[.pairs[] | select(.kind == "computation" and .again[0].line == $l and any(.again[]; .function == $f)) | .redundant] | add // 0' "${2:-$TMP/th}.json"
}
is "$(by worker)" 0 "per thread: a thread is not redundant with another"
within "$(by main)" 6 6 "per thread: the main thread's second sum (3 products, 3 additions)"
# One thread after the other: Valgrind gives the second the first's
# ThreadId, and it is still another thread.
rvn "$TMP/ths" rvn_threads 3 serial
is "$(by worker "$TMP/ths")" 0 "per thread: a thread started after another ended is another"

# A forked child counts from the fork: spy_dead fork does its work, forks,
# and the child does it again, without the parent's start-up.
"$WITCH" spy --quiet --tool=rvn -o "$TMP/fk" -- "$PROGS/spy_dead" fork >/dev/null
ok $? "witch spy --tool=rvn, a program that forks"
set -- $(for f in "$TMP"/fk/*.witch; do
	echo "$(sed -n 's/^pid //p' "$f") $(sed -n 's/^stat computations //p' "$f")"
done | sort -n | awk '{ print $2 }')
diag "computations: parent $1, child $2"
ok "$([ $# -eq 2 ] && [ "$2" -lt "$1" ]; echo $?)" "the child's profile counts from the fork"

for bad in "--tool=dead --burst=1,2" "--tool=rvn --burst=1" "--tool=rvn --burst=0,5" "--tool=rvn --burst=1,x"; do
	# shellcheck disable=SC2086
	"$WITCH" spy $bad -o "$TMP/e" -- "$PROGS/rvn_fresh" >/dev/null 2>"$TMP/err"
	is "$?,$(wc -l <"$TMP/err")" 2,1 "witch spy $bad: one line, exit 2: $(cat "$TMP/err")"
done

# By value: pow's results repeat from the same base in its last calls;
# the memoized version calls it once per base.
"$WITCH" spy --quiet --tool=rvn --by=value -o "$TMP/v-bad" -- "$PROGS/rvn_pow" bad 50000 >/dev/null
ok $? "witch spy --tool=rvn --by=value"
"$WITCH" spy --quiet --tool=rvn --by=value -o "$TMP/v-fixed" -- "$PROGS/rvn_pow" fixed 50000 >/dev/null
"$WITCH" report --format=json --top=100000 "$TMP/v-bad" >"$TMP/v-bad.json"
"$WITCH" report --format=json --top=100000 "$TMP/v-fixed" >"$TMP/v-fixed.json"
is "$(json "$TMP/v-bad.json" '.by')" value "by value"
vb=$(at "$TMP/v-bad.json" computation rvn_pow.c "$(marked rvn_pow)")
vf=$(in_prog "$TMP/v-fixed.json" computation rvn_pow)
diag "by value: pow's repeats at the marked line $vb, in the fixed program $vf"
within "$vb" 1000 1e12 "by value: pow's repeated results found under the marked line"
within "$vb" "$((5 * vf))" 1e12 "by value: at least 5x what the fixed version has left"
done_testing
