#!/bin/sh
# witch spy gives back the memory Valgrind's core fills at start-up and
# nothing reads (src/spy/trim.c): each thread's 1 MB stack in Valgrind but
# what it uses, and the pages of zeros in the core's table of 500 threads.
# Read from /proc while spy_idle's threads wait, against the same runs with
# --witch-trim=no.
. "$(dirname "$0")/lib.sh"

p=$PROGS/spy_idle
mkfifo "$TMP/in" || exit 1

# The resident kB of each Valgrind stack in smaps: a 1 MiB writable
# anonymous mapping between two inaccessible ones.
stacks_rss() {
	perl -ne '
		if (/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(\S*)/) {
			push @m, { lo => hex($1), hi => hex($2), perm => $3, name => $4 };
		} elsif (/^Rss:\s+(\d+)/) {
			$m[-1]{rss} = $1;
		}
		END {
			for my $i (1 .. $#m - 1) {
				my ($b, $s, $a) = @m[$i - 1, $i, $i + 1];
				print "$s->{rss}\n" if $s->{hi} - $s->{lo} == 1 << 20 && $s->{perm} =~ /^rw/ &&
					$s->{name} eq "" && $b->{perm} =~ /^---/ && $b->{hi} == $s->{lo} &&
					$a->{perm} =~ /^---/ && $a->{lo} == $s->{hi};
			}
		}' "$1"
}

# idle NAME THREADS [VALGRIND_OPTS]: run spy_idle under witch spy until its
# threads wait; NAME.stacks and NAME.hwm (kB) from the valgrind process, then
# NAME.out and NAME.rc once it ended.
idle() {
	VALGRIND_OPTS=${3:-} "$WITCH" spy --quiet --tool=dead -o "$TMP/$1.d" -- "$p" "$2" \
		<"$TMP/in" >"$TMP/$1.out" &
	w=$!
	exec 3>"$TMP/in"
	i=0
	while ! grep -q ready "$TMP/$1.out" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	v=$(grep -l "^PPid:[[:space:]]*$w\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
	stacks_rss "/proc/$v/smaps" >"$TMP/$1.stacks"
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$v/status" >"$TMP/$1.hwm"
	exec 3>&-
	wait $w
	echo $? >"$TMP/$1.rc"
}

idle trim 3
is "$(cat "$TMP/trim.rc") $(tr '\n' ' ' <"$TMP/trim.out")" "0 ready done " \
	"spy_idle runs under witch spy: its output and exit status"
is "$(wc -l <"$TMP/trim.stacks")" 4 "four Valgrind stacks: the main thread's and three more"
is "$(awk '$1 > 128' "$TMP/trim.stacks" | wc -l)" 0 \
	"each keeps at most 128 kB resident ($(tr '\n' ' ' <"$TMP/trim.stacks")kB)"

idle whole 3 --witch-trim=no
is "$(cat "$TMP/whole.rc") $(tr '\n' ' ' <"$TMP/whole.out")" "0 ready done " \
	"with --witch-trim=no as well"
is "$(awk '$1 == 1024' "$TMP/whole.stacks" | wc -l)" 4 \
	"whose stacks are all resident: the test means something"
within "$(($(cat "$TMP/whole.hwm") - $(cat "$TMP/trim.hwm")))" 2048 100000 \
	"the peak is lower by 2 MB or more (kB)"

# One thread: its stack gives back 0.9 MB; the thread table the rest.
idle one 0
idle one-whole 0 --witch-trim=no
is "$(cat "$TMP/one.rc") $(cat "$TMP/one-whole.rc") $(wc -l <"$TMP/one.stacks")" "0 0 1" \
	"spy_idle 0: one thread, one stack"
within "$(($(cat "$TMP/one-whole.hwm") - $(cat "$TMP/one.hwm")))" 1800 100000 \
	"its peak is lower by 1.8 MB or more, 0.9 MB of it not the stack (kB)"

done_testing
