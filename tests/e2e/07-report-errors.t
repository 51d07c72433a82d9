#!/bin/sh
# witch report on missing, empty, truncated and corrupt profiles: one line,
# non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"

# witch spy writes the same format as witch record and needs no debug
# registers, so this test runs on any machine.
"$WITCH" spy --quiet -o "$TMP/good" -- "$PROGS/passthrough" </dev/null >/dev/null 2>&1
good=$(ls "$TMP"/good/*.witch)
"$WITCH" report "$good" >/dev/null
ok $? "a real profile reads"

expect_error "no profile given" 'no profile given' "$WITCH" report
expect_error "missing file" 'nothing-here' "$WITCH" report "$TMP/nothing-here"
mkdir "$TMP/empty"
expect_error "directory without profiles" 'no witch profiles in' "$WITCH" report "$TMP/empty"
size=$(wc -c <"$good")
head -c $((size / 2)) "$good" >"$TMP/trunc.witch"
expect_error "truncated profile" 'truncated' "$WITCH" report "$TMP/trunc.witch"
head -c $((size - 3)) "$good" >"$TMP/trunc2.witch"
expect_error "profile missing its last bytes" 'trunc2.witch' "$WITCH" report "$TMP/trunc2.witch"
sed 's/^n 1 0 /n 1 7 /' "$good" >"$TMP/parent.witch"
expect_error "bad parent" 'parent.witch' "$WITCH" report "$TMP/parent.witch"
sed 's/^WITCH-PROFILE 1/WITCH-PROFILE 99/' "$good" >"$TMP/version.witch"
expect_error "future version" 'version' "$WITCH" report "$TMP/version.witch"
head -c 3000 /dev/urandom >"$TMP/random.witch"
expect_error "random bytes" 'random.witch' "$WITCH" report "$TMP/random.witch"
expect_error "bad format option" 'format' "$WITCH" report --format=xml "$good"

# -o FILE: the report stdout would have shown, written whole or not at all.
"$WITCH" report --format=json "$good" >"$TMP/stdout.json"
"$WITCH" report --format=json -o "$TMP/out.json" "$good" >"$TMP/o.stdout"
ok $? "witch report -o FILE"
cmp -s "$TMP/stdout.json" "$TMP/out.json"
ok $? "-o writes what stdout would show"
is "$(wc -c <"$TMP/o.stdout")" 0 "and nothing on stdout"
echo before >"$TMP/keep.json"
expect_error "-o with a corrupt profile" 'random.witch' "$WITCH" report -o "$TMP/keep.json" "$TMP/random.witch"
is "$(cat "$TMP/keep.json")" before "a failed report leaves the file it would replace as it was"
is "$(ls "$TMP" | grep -c 'keep.json.')" 0 "and no temporary file"
expect_error "-o into a missing directory" 'no-such-dir/r.json' "$WITCH" report -o "$TMP/no-such-dir/r.json" "$good"
expect_error "-o naming a directory" 'is a directory' "$WITCH" report -o "$TMP" "$good"
expect_error "-o without a file" 'needs a value' "$WITCH" report "$good" -o
# A device is written in place, never replaced by a file; a link's
# target is replaced, the link kept.
"$WITCH" report -o /dev/null "$good"
ok $? "-o /dev/null"
is "$(stat -c %F /dev/null)" "character special file" "/dev/null is still a device"
expect_error "-o /dev/full" 'No space left' "$WITCH" report -o /dev/full "$good"
is "$(stat -c %F /dev/full)" "character special file" "/dev/full is still a device"
"$WITCH" report --format=json "$good" -o /dev/stdout >"$TMP/devstdout.json"
cmp -s "$TMP/stdout.json" "$TMP/devstdout.json"
ok $? "-o /dev/stdout writes to stdout"
echo old >"$TMP/real.json"
ln -s real.json "$TMP/link.json"
"$WITCH" report --format=json -o "$TMP/link.json" "$good"
is "$(stat -c %F "$TMP/link.json")" "symbolic link" "-o through a symbolic link keeps the link"
cmp -s "$TMP/stdout.json" "$TMP/real.json"
ok $? "and replaces its target"
done_testing
