# spy-lib.sh - helpers for the witch spy tests (sourced after lib.sh).
#
# The exhaustive tools count every access of the whole process, glibc's
# start-up included, so exact assertions are made on the pairs whose two
# leaf instructions lie in functions of the test program. `spy_pairs` reads
# the raw profile (the report lists only pairs with waste) and names each
# leaf by the program's symbol table: offsets in profiles are ELF virtual
# addresses, the numbers nm prints.

# spy_pairs PROGRAM DIR: "watch_fn trap_fn waste use count approx" per
# pair; functions outside PROGRAM are "?".
spy_pairs() {
	nm -S --defined-only "$1" >"$TMP/spy.nm" || return 1
	for f in "$2"/*.witch; do
		awk -v prog="$1" '
		function hex(s,   i, v) {
			v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function fn(node,   off, i) {
			if (!(node in nmod) || nmod[node] != pmod) return "?"
			off = noff[node]
			for (i = 1; i <= nsym; i++) if (off >= lo[i] && off < hi[i]) return name[i]
			return "?"
		}
		FNR == NR {
			if ($3 ~ /^[tTwW]$/ && NF == 4) { nsym++; lo[nsym] = hex($1); hi[nsym] = lo[nsym] + hex($2); name[nsym] = $4 }
			next
		}
		$1 == "module" { p = $5; gsub(/%2F/, "/", p); if (p == prog) pmod = $2 }
		$1 == "thread" { split("", nmod); split("", noff) }
		$1 == "n" { nmod[$2] = $4; noff[$2] = hex($5) }
		$1 == "p" { print fn($2), fn($3), $4, $5, $6, (NF > 6 ? $7 : 0) }
		' "$TMP/spy.nm" "$f"
	done
}

# spy_run TOOL PROGRAM DIR: run PROGRAM under witch spy --tool=TOOL into
# DIR; assert that it ran and printed what it prints natively; its pairs
# (spy_pairs) go to DIR.pairs.
spy_run() {
	"$WITCH" spy --quiet --tool="$1" -o "$3" -- "$2" >"$3.out"
	ok $? "witch spy --tool=$1 runs ${2##*/}"
	is "$(cat "$3.out")" "$("$2")" "${2##*/}'s output passes through"
	spy_pairs "$2" "$3" >"$3.pairs"
}

# spy_sum PAIRS-FILE WATCH_FN TRAP_FN: "waste use count approx" summed
# over the pairs.
spy_sum() {
	awk -v w="$2" -v t="$3" '$1 == w && $2 == t { a += $3; b += $4; c += $5; d += $6 }
		END { printf "%d %d %d %d\n", a, b, c, d }' "$1"
}

# The directory holding witchspy, for running valgrind directly.
spy_libdir() { echo "$(dirname "$WITCH")/../lib/witch"; }
