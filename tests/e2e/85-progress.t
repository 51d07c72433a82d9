#!/bin/sh
# witch spy and witch cpi's counting run show a progress line on stderr
# when it is a terminal (script(1) gives them one): rewritten in place
# ('\r'), at most twice a second, erased before the program writes there
# and before witch's summary, so that the screen ends up holding what it
# would without it; nothing with --quiet, and not a byte when stderr is
# not a terminal.
. "$(dirname "$0")/lib.sh"

if ! command -v script >/dev/null || ! script -qfec true /dev/null >/dev/null 2>&1; then
	echo "ok - # SKIP script (util-linux) is missing or cannot open a terminal"
	_n=$((_n + 1))
	done_testing
	exit
fi

p=$PROGS/progress
cd "$TMP" || exit 1

# tty OUT CMD: CMD on a terminal, everything it wrote there in OUT; the
# exit status is CMD's.
tty() {
	out=$1
	shift
	script -qfec "$*" /dev/null </dev/null >"$out"
}

# screen FILE: what a terminal shows after those bytes, '\r' returning to
# the line's start and overwriting (trailing blanks dropped).
screen() {
	awk 'BEGIN { RS = "\n" }
	{
		sub(/\r$/, ""); n = split($0, seg, "\r"); line = ""
		for (i = 1; i <= n; i++)
			line = seg[i] substr(line, length(seg[i]) + 1)
		sub(/ +$/, "", line); print line
	}' "$1"
}

# lines RE FILE: how many progress lines matching RE FILE holds.
lines() { tr '\r' '\n' <"$2" | grep -Ec -- "$1"; }

spy_re='^witch spy: [0-9]+\.[0-9] s, [0-9]+(\.[0-9]+)? ?[kMGTPE]? blocks, shadow [0-9]+ MiB *$'
cpi_re='^witch cpi: [0-9]+\.[0-9] s, [0-9]+(\.[0-9]+)? ?[kMGTPE]? instructions *$'
sum_re='^witch spy: 1 profile in'
native=$(printf 'start\nworking\ndone 1\nend')

# 3 s under the dead tool: lines at 0.5 s, 1 s, ... (Valgrind's start
# counts too), never closer.
tty "$TMP/spy.tty" "'$WITCH' spy -o '$TMP/s' -- '$p' 3"
is "$?" 5 "on a terminal: the program's exit status passes through"
n=$(lines "$spy_re" "$TMP/spy.tty")
within "$n" 2 7 "progress lines like 'witch spy: 1.5 s, 21.9 M blocks, shadow 2 MiB' in a 3 s run"
gaps=$(tr '\r' '\n' <"$TMP/spy.tty" | grep -E -- "$spy_re" |
	awk '{ t = $3 + 0; if (NR > 1 && t - last < 0.49) bad++; last = t } END { print bad + 0 }')
is "$gaps" 0 "at most two a second: their times 0.5 s apart or more"
grep -q "$(printf '\r')witch spy: [0-9]" "$TMP/spy.tty"
ok $? "each starts with a carriage return"
is "$(screen "$TMP/spy.tty")" "$native
witch spy: 1 profile in $TMP/s; see them with: witch report $TMP/s" \
	"the screen holds the program's output and the summary, no progress left over"

# stdout a terminal, stderr a file: not a byte more than without it.
"$p" 0.3 >/dev/null 2>"$TMP/native.err"
tty "$TMP/file.tty" "'$WITCH' spy -o '$TMP/f' -- '$p' 1.5 2>'$TMP/file.err'"
is "$?" 5 "stderr a file: the exit status passes through"
printf 'witch spy: 1 profile in %s; see them with: witch report %s\n' "$TMP/f" "$TMP/f" \
	>>"$TMP/native.err"
cmp -s "$TMP/file.err" "$TMP/native.err"
ok $? "stderr a file: it holds the program's stderr and the summary, byte for byte"
grep -q 'witch spy: [0-9.]* s' "$TMP/file.tty"
ok $((! $?)) "and the terminal on stdout gets no progress line"

tty "$TMP/quiet.tty" "'$WITCH' spy --quiet -o '$TMP/q' -- '$p' 1.5"
is "$?" 5 "--quiet: the exit status passes through"
is "$(cat -v "$TMP/quiet.tty")" "$(printf '%s\n' "$native" | sed 's/$/^M/')" \
	"--quiet on a terminal: the program's output only"

# witch cpi: its sampled run runs natively, its counting run counts
# instructions.
tty "$TMP/cpi.tty" "'$WITCH' cpi -o '$TMP/c' -- '$p' 1.5"
is "$?" 5 "witch cpi on a terminal: the exit status passes through"
n=$(lines "$cpi_re" "$TMP/cpi.tty")
within "$n" 1 6 "the counting run shows progress lines like 'witch cpi: 1.0 s, 1.52 G instructions'"
like "$(screen "$TMP/cpi.tty")" "^$native
witch cpi: sampled run [0-9.]+ s .*; see them with: witch report $TMP/c\$" \
	"the screen: the program's output once and the summary, no progress left over"
tty "$TMP/cpiq.tty" "'$WITCH' cpi -q -o '$TMP/cq' -- '$p' 1.5"
grep -q 'witch cpi' "$TMP/cpiq.tty"
ok $((! $?)) "witch cpi -q: no progress line"

# --tool=loop: its one run shows its superblocks and read sets.
tty "$TMP/loop.tty" "'$WITCH' spy --tool=loop -o '$TMP/l' -- '$p' 1"
is "$?" 5 "witch spy --tool=loop on a terminal: the exit status passes through"
n=$(lines "$spy_re" "$TMP/loop.tty")
ok $((n < 1)) "its run shows progress ($n lines)"
n=$(lines '^witch spy: [0-9.]+ s, [0-9.]+ ?[kMGTPE]? instructions *$' "$TMP/loop.tty")
is "$n" 0 "and no counting run's before it"
like "$(screen "$TMP/loop.tty")" "^$native
witch spy: 1 profile in $TMP/l;" "and leaves the screen clean"

done_testing
