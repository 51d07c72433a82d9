#!/bin/sh
# Rust functions are named as their users write them, and as Rust's own
# backtraces do: rustnames::grid::Grid::fill, not fill or
# _ZN9rustnames4grid4Grid4fill17h903e71f8222ac943E (no hash), for both
# of rustc's manglings: legacy, and v0, whose names also carry generic
# arguments and number closures (rustnames::splat::<u32>,
# rustnames::main::{closure#0}). From DWARF and from the symbol table
# alike, in witch report's text and JSON, with the linkage name in JSON.
# tests/progs/rustnames.rs has a module's struct and its method, a trait
# method, a generic function instantiated twice and a closure; witch spy
# judges every store, so the pairs are exact. The Makefile builds it only
# where rustc is installed: CI does not install it (see 46-cxx-names.t
# for C++, and tests/unit/test_names.c for a checked-in list of Rust
# symbols, which runs everywhere).
. "$(dirname "$0")/lib.sh"

if [ ! -x "$PROGS/rustnames" ]; then
	skip "rustc is not installed: apt-get install rustc"
	done_testing
	exit
fi

src=$TOP/tests/progs/rustnames.rs
l_fill=$(line_of "$src" 'store: fill')
l_paint=$(line_of "$src" 'store: paint')
l_splat=$(line_of "$src" 'store: splat')
l_closure=$(line_of "$src" 'store: closure')
paint='<rustnames::grid::Stripes as rustnames::grid::Paint>::paint'
# The pairs with more than 1% of the waste: "watched <- trapping" functions.
pairs='[.pairs[] | select(.share > 0.01) | "\(.watch[0].function) <- \(.trap[0].function)"] | unique | join("; ")'

# ere TEXT: TEXT as an extended regular expression matching itself.
ere() { printf '%s' "$1" | sed 's/[][(){}.*+?|^$\\]/\\&/g'; }

# check BUILD MANGLING FILL SPLAT-U32 SPLAT-F32 CLOSURE LINKAGE-RE: witch
# spy --tool=dead on build/progs/BUILD, as built (-g) and stripped of its
# debug information, and what witch report names its functions.
check() {
	b=$1 m=$2 fill=$3 splat_u32=$4 splat_f32=$5 closure=$6 linkage_re=$7
	cp "$PROGS/$b" "$TMP/$b"
	"$WITCH" spy --quiet --tool=dead -o "$TMP/s-$b" -- "$TMP/$b" 20 >/dev/null
	is $? 0 "$m: witch spy on the program built with -g"
	objcopy --strip-debug "$PROGS/$b" "$TMP/n/$b"
	"$WITCH" spy --quiet --tool=dead -o "$TMP/n-$b" -- "$TMP/n/$b" 20 >/dev/null
	is $? 0 "$m: and with its debug information stripped"

	# Text: the one-line chain in short, the frames in full.
	"$WITCH" report "$TMP/s-$b" >"$TMP/$b.txt"
	like "$(cat "$TMP/$b.txt")" \
		"rustnames::main → $(ere "$fill") \\(rustnames.rs:$l_fill\\)  KILLED_BY  .* → rustnames::main → $(ere "$paint") \\(rustnames.rs:$l_paint\\)" \
		"$m: the chain names the method and the trait's method"
	like "$(cat "$TMP/$b.txt")" "KILLED_BY  .* → rustnames::main → $(ere "$closure") \\(rustnames.rs:$l_closure\\)" \
		"$m: and the closure by the function it is in"
	like "$(cat "$TMP/$b.txt")" "rustnames::main → rustnames::splat \\(rustnames.rs:$l_splat\\)  KILLED_BY" \
		"$m: and the generic function in short"
	like "$(cat "$TMP/$b.txt")" "watch: $(ere "$splat_u32") +rustnames.rs:$l_splat " \
		"$m: the frames name it in full"
	grep -Eq '(::h[0-9a-f]{16}|_ZN|_R[A-Z])' "$TMP/$b.txt"
	ok $((!$?)) "$m: nothing mangled, no hash"

	# JSON: the names and the linkage names they came from.
	"$WITCH" report --top=0 --format=json "$TMP/s-$b" >"$TMP/$b.json"
	"$WITCH" report --top=0 --format=json "$TMP/n-$b" >"$TMP/n-$b.json"
	is "$(json "$TMP/$b.json" "$pairs")" \
		"$(printf '%s\n' "$fill <- $paint" "$paint <- $closure" "$splat_f32 <- $fill" \
			"$splat_u32 <- $splat_f32" | LC_ALL=C sort | paste -sd ';' | sed 's/;/; /g')" \
		"$m: JSON: the four kinds of pairs, each function named in full"
	linkage=$(json "$TMP/$b.json" "[.pairs[].watch[] | select(.function == \"$fill\") | .linkage_name] | unique | join(\" \")")
	like "$linkage" "$linkage_re" "$m: JSON: with the linkage name beside"
	nm "$PROGS/$b" | grep -q " $linkage\$"
	ok $? "$m: the program's own symbol"
	is "$(json "$TMP/$b.json" "[.pairs[] | select(.share > 0.01) | .watch[0], .trap[0] | select(.function == \"$splat_u32\" or .function == \"$splat_f32\") | .linkage_name] | unique | length")" \
		2 "$m: JSON: the two instances of the generic function by two symbols"
	is "$(json "$TMP/n-$b.json" "$pairs")" "$(json "$TMP/$b.json" "$pairs")" \
		"$m: without debug information, the symbol table gives the same names"
	is "$(json "$TMP/n-$b.json" '[.pairs[] | select(.share > 0.01) | .watch[0].file] | unique | map(tostring) | join(" ")')" \
		"null" "$m: (the names did not come from DWARF there)"
}

mkdir "$TMP/n"
# Legacy mangling is rustc's default (naming it needs -Z unstable-options).
if nm "$PROGS/rustnames" | grep -q ' _ZN9rustnames4main17h'; then
	check rustnames legacy rustnames::grid::Grid::fill rustnames::splat rustnames::splat \
		'rustnames::main::{{closure}}' '^_ZN9rustnames4grid4Grid4fill17h[0-9a-f]{16}E$'
else
	skip "rustc's default mangling is not legacy (any more)"
fi
if [ -x "$PROGS/rustnames-v0" ]; then
	check rustnames-v0 v0 '<rustnames::grid::Grid>::fill' 'rustnames::splat::<u32>' 'rustnames::splat::<f32>' \
		'rustnames::main::{closure#0}' '^_RNvMNtCs[0-9A-Za-z_]+_9rustnames4gridNtB[0-9A-Za-z_]*_4Grid4fill$'
else
	skip "this rustc does not accept -C symbol-mangling-version=v0 (1.59 on does)"
fi

done_testing
