#!/bin/sh
# Every bad input to witch record gets one line on stderr saying what is
# wrong, a non-zero exit, and no profile left behind as if valid.
. "$(dirname "$0")/lib.sh"

expect_error "no command" 'no program given' "$WITCH" record
expect_error "no subcommand" 'no command given' "$WITCH"
expect_error "unknown subcommand" "unknown command 'frobnicate'" "$WITCH" frobnicate
expect_error "command not found" 'no-such-program-xyz: command not found' \
	"$WITCH" record -- no-such-program-xyz
expect_error "missing path" 'No such file' "$WITCH" record -- ./does/not/exist
printf 'int main(){return 0;}\n' >"$TMP/plain.c"
cc -o "$TMP/noexec" "$TMP/plain.c" && chmod -x "$TMP/noexec"
expect_error "not executable" 'is not executable' "$WITCH" record -- "$TMP/noexec"
expect_error "a directory" 'is a directory' "$WITCH" record -- "$TMP"
if cc -static -o "$TMP/static" "$TMP/plain.c" 2>/dev/null; then
	expect_error "statically linked" 'statically linked.*dynamically linked' \
		"$WITCH" record -- "$TMP/static"
else
	ok 1 "cannot build a static program to test with (libc6-dev's libc.a missing?)"
fi
cp "$PROGS/nodead" "$TMP/suid" && chown nobody "$TMP/suid" && chmod u+s "$TMP/suid"
expect_error "setuid" 'setuid.*ignores LD_PRELOAD' "$WITCH" record -- "$TMP/suid"
printf 'just text\n' >"$TMP/text" && chmod +x "$TMP/text"
expect_error "not a program" 'neither an ELF program nor a #! script' "$WITCH" record -- "$TMP/text"
expect_error "unknown craft" "unknown craft 'deadly'" "$WITCH" record --craft=deadly -- "$PROGS/nodead"
expect_error "bad rate" '--rate=fast is not a rate' "$WITCH" record --rate=fast -- "$PROGS/nodead"
expect_error "bad registers" '--registers=9' "$WITCH" record --registers=9 -- "$PROGS/nodead"
expect_error "unknown option" "unknown option '--frob'" "$WITCH" record --frob -- "$PROGS/nodead"
# What the user typed may hold a newline: the message quotes it on one line
expect_error "an option holding a newline" "unknown option '--x.y'" "$WITCH" record --"$(printf 'x\ny')" -- "$PROGS/nodead"
mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
if [ "$(id -u)" -eq 0 ]; then
	# root writes anywhere: use a path below a regular file instead
	expect_error "unwritable output" 'cannot create output directory' \
		"$WITCH" record -o "$TMP/text/sub" -- "$PROGS/nodead" 1
else
	expect_error "unwritable output" 'cannot (write to|create) output directory' \
		"$WITCH" record -o "$TMP/ro/sub" -- "$PROGS/nodead" 1
fi
expect_error "an output directory holding a newline" 'cannot create output directory .*/text/x.y' \
	"$WITCH" record -o "$TMP/text/x$(printf '\ny')" -- "$PROGS/nodead" 1
expect_error "perf_event_open refused" 'perf_event_open was refused.*perf_event_paranoid' \
	"$PROGS/deny_perf" 13 "$WITCH" record --watch=registers -o "$TMP/x1" -- "$PROGS/nodead" 1
expect_error "no debug registers" 'no hardware debug registers available' \
	"$PROGS/deny_perf" 28 "$WITCH" record --watch=registers -o "$TMP/x2" -- "$PROGS/nodead" 1
[ ! -e "$TMP/x1" ] && [ ! -e "$TMP/x2" ]; ok $? "refused runs leave no output directory behind"
# Without perf events at all, page protection and the POSIX CPU timer
# stand in: the run goes on, and says how it watches.
"$PROGS/deny_perf" 13 "$WITCH" record -o "$TMP/x3" -- "$PROGS/nodead" 1 >/dev/null 2>"$TMP/err"
ok $? "perf_event_open refused, default --watch=auto: the run goes on"
like "$(head -n 1 "$TMP/err")" 'perf_event_open was refused.*watching with page protection' \
	"and its first line says why and how it watches"
[ -n "$(ls "$TMP/x3" 2>/dev/null)" ]; ok $? "and writes a profile"
expect_error "bad --watch" '--watch=sometimes: give auto, registers or pages' \
	"$WITCH" record --watch=sometimes -- "$PROGS/nodead" 1
done_testing
