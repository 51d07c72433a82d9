#!/bin/sh
# witch doctor: reports each capability as OK or missing with the fix; exit
# status 0 exactly when witch record can run.
. "$(dirname "$0")/lib.sh"

"$WITCH" doctor "$PROGS/demo" >"$TMP/out"
st=$?
out=$(cat "$TMP/out")
if debug_registers_fire; then
	ok $st "doctor on this machine and a good program: exit 0"
	like "$out" 'OK +hardware debug registers: [2-8] ' "counts the debug registers"
	like "$out" 'witch record can run here' "concludes"
else
	ok $st "debug registers that do not fire, pages stand in: doctor exits 0"
	like "$out" 'missing +hardware debug registers: ' "says the registers do not fire"
	like "$out" 'OK +page-protection watches' "and that page protection stands in"
	like "$out" 'witch record can run here, with --watch=pages' "concludes"
fi
like "$out" 'perf_event_paranoid: -?[0-9]' "shows perf_event_paranoid"
if uprobes_count; then
	like "$out" 'OK +uprobes: a test uprobe counted every call' "uprobes count (witch causal --progress without debug registers)"
else
	like "$out" 'missing +uprobes: ' "says why uprobes do not count: $("$PROGS/uprobe_probe")"
fi
like "$out" 'fast watchpoint modification' "checks PERF_EVENT_IOC_MODIFY_ATTRIBUTES"
like "$out" 'PMU memory sampling' "checks the PMU's memory events"
# How the CPU reports a hit inside rep stosb, against a probe of its own.
if debug_registers_fire; then
	hits=$("$PROGS/dr_probe" rep-stosb)
	if [ "$hits" -ge 8 ]; then
		like "$out" 'OK +string-instruction hits: per element \(8 traps' "string hits per element, as the probe counted ($hits)"
	else
		like "$out" "OK +string-instruction hits: per group \\($hits traps?.*RDI [0-9]+ bytes past" "string hits per group, as the probe counted ($hits)"
	fi
else
	like "$out" 'missing +string-instruction hits: not probed' "string hits not probed without debug registers"
fi
if grep -qw avx512f /proc/cpuinfo; then
	like "$out" 'OK +AVX-512: masked stores and loads' "AVX-512, as /proc/cpuinfo says"
else
	like "$out" 'missing +AVX-512: not on this CPU' "no AVX-512, as /proc/cpuinfo says"
fi
like "$out" 'valgrind' "checks valgrind"
like "$out" 'OK +debug info: .*demo' "finds the program's debug info"

strip -o "$TMP/stripped" "$PROGS/demo"
"$WITCH" doctor "$TMP/stripped" >"$TMP/out"
st=$?
if debug_registers_fire; then ok $st "a program without debug info can still be recorded"; fi
like "$(cat "$TMP/out")" 'missing +debug info: none' "but doctor says it has no debug info"

printf 'int main(){return 0;}\n' >"$TMP/s.c"
if cc -static -o "$TMP/static" "$TMP/s.c" 2>/dev/null; then
	"$WITCH" doctor "$TMP/static" >"$TMP/out"
	[ $? -ne 0 ]; ok $? "a static program: non-zero exit"
	like "$(cat "$TMP/out")" 'MISSING .*statically linked' "says why"
else
	ok 1 "cannot build a static program (libc.a missing)"
fi
cp "$PROGS/demo" "$TMP/suid" && chown nobody "$TMP/suid" && chmod u+s "$TMP/suid"
"$WITCH" doctor "$TMP/suid" >"$TMP/out"
[ $? -ne 0 ]; ok $? "a setuid program of another user: non-zero exit"
like "$(cat "$TMP/out")" 'MISSING .*setuid' "says the loader ignores LD_PRELOAD for it"

# Without perf events, page protection and POSIX timers still make record run.
"$PROGS/deny_perf" 13 "$WITCH" doctor >"$TMP/out"
ok $? "perf_event_open refused: record still runs, with pages: exit 0"
like "$(cat "$TMP/out")" 'missing +hardware debug registers: perf_event_open was refused' "says why registers are missing"
like "$(cat "$TMP/out")" 'can run here, with --watch=pages' "and how record runs"
like "$(cat "$TMP/out")" 'missing +uprobes: perf_event_open was refused' "and why uprobes are"
# Uprobes need CAP_PERFMON, whatever perf_event_paranoid allows.
if [ "$(id -u)" = 0 ] && setpriv --bounding-set=-all --inh-caps=-all true 2>/dev/null; then
	setpriv --bounding-set=-all --inh-caps=-all "$WITCH" doctor >"$TMP/out"
	like "$(cat "$TMP/out")" 'missing +uprobes: uprobe events were refused \(Permission denied\): they need root or CAP_PERFMON' \
		"without CAP_PERFMON: uprobes missing, and why"
fi
done_testing
