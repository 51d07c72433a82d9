#!/bin/sh
# SilentCraft: out[i] += in[i] * k with 90 % of in[] zero is a silent-store
# site (>= 75 %); a site storing fresh values every time is not (<= 10 %).
. "$(dirname "$0")/lib.sh"
needs_debug_registers

src=$TOP/tests/progs/silent.c
"$WITCH" record --quiet --craft=silent --rate=1000 -o "$TMP/p" -- "$PROGS/silent" >/dev/null
ok $? "witch record --craft=silent"
"$WITCH" report --format=json --top=0 "$TMP/p" >"$TMP/r.json"
is "$(json "$TMP/r.json" '.tool')" silent "JSON tool says silent"
# site fraction: waste / (waste + approximate waste + use) over pairs watched at a line
site() {
	jq -r --argjson l "$1" '[.pairs[] | select(.watch[0].line == $l)] |
		(map(.waste_bytes) | add // 0) as $w | (map(.use_bytes + .approx_waste_bytes) | add // 0) as $u |
		if $w + $u > 0 then $w / ($w + $u) else -1 end' "$TMP/r.json"
}
within "$(site "$(line_of "$src" SILENT_SITE)")" 0.75 1.0 "silent fraction of the axpy site"
within "$(site "$(line_of "$src" FRESH_SITE)")" 0 0.10 "silent fraction of the fresh-value site"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function')" axpy "top pair is in axpy()"
"$WITCH" report "$TMP/p" >"$TMP/r.txt"
like "$(cat "$TMP/r.txt")" 'axpy .*REDUNDANTLY_WRITTEN_BY.* axpy' "text report: REDUNDANTLY_WRITTEN_BY"
done_testing
