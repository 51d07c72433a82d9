#!/bin/sh
# witch spy and memory it does not see being written: system calls count as
# accesses (read(2) writes, write(2) reads), and memory released by free,
# realloc or a returning function forgets its history, so reuse makes no
# pair between the old and the new owner (for stack frames only with
# --stack=clear: by default they keep it, as witch record's watchpoints do).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/spy_kernel
"$WITCH" spy --quiet --tool=dead --stack=clear -o "$TMP/d" -- "$p" >"$TMP/out"
ok $? "witch spy --tool=dead runs spy_kernel"
is "$(cat "$TMP/out")" "0 heap reused: yes yes" "the freed blocks were reused (the test means something)"
spy_pairs "$p" "$TMP/d" >"$TMP/pairs"
is "$(spy_sum "$TMP/pairs" fill_buf '?' | cut -d' ' -f1,2)" "4096 0" \
	"fill_buf's 4096 bytes are dead, overwritten by read(2)"
is "$(spy_sum "$TMP/pairs" '?' consume | cut -d' ' -f1,2)" "0 4096" \
	"consume reads the 4096 bytes read(2) wrote"
is "$(spy_sum "$TMP/pairs" fill_out '?' | cut -d' ' -f1,2)" "0 4096" \
	"write(2) reads fill_out's 4096 bytes: used"
"$WITCH" report --format=json --top=0 "$TMP/d" >"$TMP/r.json"
like "$(json "$TMP/r.json" '[.pairs[] | select(.watch[0].function == "fill_buf")][0].trap[0].function')" \
	'read' "the killing store is the read system call"
is "$(awk '$1 == "stack_f" && $2 == "stack_g"' "$TMP/pairs" | wc -l)" 0 \
	"a returned function's locals do not pair with the next function's"

"$WITCH" spy --quiet --tool=silent --stack=clear -o "$TMP/s" -- "$p" >/dev/null
ok $? "witch spy --tool=silent runs spy_kernel"
spy_pairs "$p" "$TMP/s" >"$TMP/spairs"
is "$(awk '$1 == "store_a" && $2 == "store_b"' "$TMP/spairs" | wc -l)" 0 \
	"a freed block's new owner writing the same bytes is not silent"
is "$(awk '$1 == "store_c" && $2 == "store_d"' "$TMP/spairs" | wc -l)" 0 \
	"nor after realloc moved the block away"
is "$(awk '$1 == "stack_f" && $2 == "stack_g"' "$TMP/spairs" | wc -l)" 0 \
	"nor for stack frames with --stack=clear"
"$WITCH" spy --quiet --tool=silent -o "$TMP/s2" -- "$p" >/dev/null
spy_pairs "$p" "$TMP/s2" >"$TMP/s2pairs"
is "$(spy_sum "$TMP/s2pairs" stack_f stack_g | cut -d' ' -f1)" 256 \
	"by default a returned frame keeps its history: stack_f -> stack_g silent"

# Without clearing (the tool's own options), those pairs appear: the
# assertions above can fail.
mkdir -p "$TMP/k"
VALGRIND_LIB=$(spy_libdir) valgrind -q --tool=witchspy --witch-tool=silent --witch-out="$TMP/k" \
	--witch-heap=keep --witch-stack=keep "$p" >/dev/null 2>&1
spy_pairs "$p" "$TMP/k" >"$TMP/kpairs"
is "$(spy_sum "$TMP/kpairs" store_a store_b | cut -d' ' -f1)" 224 "--witch-heap=keep: store_a -> store_b silent"
is "$(spy_sum "$TMP/kpairs" store_c store_d | cut -d' ' -f1)" 224 "--witch-heap=keep: store_c -> store_d silent"
is "$(spy_sum "$TMP/kpairs" stack_f stack_g | cut -d' ' -f1)" 256 "--witch-stack=keep: stack_f -> stack_g silent"
done_testing
