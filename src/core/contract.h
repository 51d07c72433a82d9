/*
 * contract.h - what the CLI tells the preloaded runtimes, and what both
 * hold each other to: the environment variables `witch record` sets for
 * libwitch.so and `witch causal` for libwitchcausal.so, the tuning
 * defaults and limits that the CLI, the runtimes and the profile reader
 * all check against, and the names of the files the runtimes (and witch
 * spy) leave for the CLI and the reports to find. Only the CLI sets these
 * variables (and it checks their values), so a runtime takes its default
 * for one it cannot read.
 */
#ifndef WITCH_CORE_CONTRACT_H
#define WITCH_CORE_CONTRACT_H

/* --- the files in the output directory ------------------------------------ */

/* witch record's and witch spy's profiles: PROGRAM-PID.witch, then
 * PROGRAM-PID-N.witch for the Nth image an exec put in that process;
 * each written as NAME.tmp and renamed when complete. */
#define PROFILE_SUFFIX ".witch"
#define PROFILE_TMP_SUFFIX ".tmp"
/* witch causal's: causal.PID, then causal.PID.N; written as
 * .causal.PID[.N].tmp. */
#define CAUSAL_PROFILE_STEM "causal"
/* The line table witch causal hands its runtime, kept beside the
 * profiles for the report's function names (docs/causal.md). */
#define CAUSAL_LINES_FILE ".causal-lines"

/* --- witch spy --tool=rvn, the witchspy Valgrind tool --------------------- */

/* --by=value compares a result with its instruction's last N results. */
#define RVN_HISTORY_DEFAULT 16
#define RVN_HISTORY_MAX 64
/* --burst=ON,OFF: each in millions of guest instructions. */
#define RVN_BURST_MAX 1000000

/* --- witch spy --tool=loop ------------------------------------------------ */

/* --thresholds=A,R,RI (Prometheus's): reads that make an iteration
 * data-intensive, the share of them redundant that makes it redundant,
 * and the share of redundant data-intensive iterations that flags a loop. */
#define LOOP_A_DEFAULT 10
#define LOOP_R_DEFAULT 0.9
#define LOOP_RI_DEFAULT 0.8
/* More reads than any iteration makes would flag nothing. */
#define LOOP_A_MAX 1000000000L
/* Loops active at once in one thread (nesting and recursion); deeper
 * loops' header visits are counted in the stat loops_untracked only. */
#define LOOP_MAX_ACTIVE 32
/* Chunks of a thread's read set, each 128 KiB for 64 KiB of memory read
 * in loops (341 MiB for 170 MiB), and as much again where its words split
 * (--exact-parts, loop_reads.h); reads past them are not tracked. */
#define LOOP_READ_CHUNKS_MAX 2730
/* Distinct nestings of loops in calling contexts that a run tells apart
 * for its loads' counts, at most 32 bytes each with their hash slots
 * (loop_stacks.c); past them, loops still count their redundant reads,
 * but not by load. */
#define LOOP_STACKS_MAX (1u << 20)

/* --- both runtimes ------------------------------------------------------ */

#define ENV_OUT "WITCH_OUT"		/* output directory: exists, writable */
#define ENV_NO_FOLLOW "WITCH_NO_FOLLOW"	/* set: only the first process, not its children */

/* --- witch record, libwitch.so ------------------------------------------- */

#define ENV_CRAFT "WITCH_CRAFT"		/* dead, silent or load */
#define ENV_WATCH "WITCH_WATCH"		/* registers or pages */
#define ENV_SOURCE "WITCH_SOURCE"	/* timer or pmu */
#define ENV_RATE "WITCH_RATE"		/* timer: samples per second of CPU time */
#define ENV_PERIOD "WITCH_PERIOD"	/* timer: CPU ns per sample; pmu: events per sample; 0: none */
#define ENV_SPREAD "WITCH_SPREAD"	/* --spread */
#define ENV_REACH "WITCH_REACH"		/* --reach */
#define ENV_REGISTERS "WITCH_REGISTERS"	/* debug registers to use */
#define ENV_APPROX "WITCH_APPROX"	/* relative tolerance of floating-point equality */

#define RECORD_DEFAULT_RATE 200
#define RECORD_DEFAULT_RATE_TEXT "200"
#define RECORD_MAX_REGISTERS 4
#define RECORD_DEFAULT_APPROX 0.01
#define RECORD_DEFAULT_APPROX_TEXT "0.01"

/* The most accesses a timer sample may stand for (--spread): the reader
 * holds profiles to it too. */
#define RECORD_MAX_SPREAD 64
#define RECORD_MAX_SPREAD_TEXT "64"
/* A timer sample stands for one of the next 16 accesses by default: in
 * bench/accuracy that brought more programs within 5 points of the spy
 * than the next access alone, at up to 2 more breakpoints a sample
 * (probe.c's PASS_BREAKPOINTS; docs/results.md has the runs). */
#define RECORD_DEFAULT_SPREAD 16
#define RECORD_DEFAULT_SPREAD_TEXT "16"

/* How many instructions ahead a timer sample may find its access
 * (--reach; 0: as far as the walk goes), and the most the reader accepts.
 * Stores are sampled within 8 instructions and loads without a limit: in
 * bench/accuracy the reach brought the dead and silent rows closer to the
 * spy and the load rows further from it (docs/results.md has the runs). */
#define RECORD_DEFAULT_REACH 8
#define RECORD_DEFAULT_REACH_TEXT "8"
#define RECORD_DEFAULT_LOAD_REACH 0
#define RECORD_DEFAULT_LOAD_REACH_TEXT "0"
#define RECORD_DEFAULT_REACH_FOR(is_load) ((is_load) ? RECORD_DEFAULT_LOAD_REACH : RECORD_DEFAULT_REACH)
#define RECORD_MAX_REACH 4096
#define RECORD_MAX_REACH_TEXT "4096"

/* --- witch cpi: libwitch.so in its sampled run (docs/cpi.md) --------------- */

/* 1: time samples only: no probe, no watchpoints; each sample adds the
 * thread's CPU time since its previous sample to its calling context.
 * WITCH_CRAFT is not read then; WITCH_RATE is. */
#define ENV_SAMPLES_ONLY "WITCH_SAMPLES_ONLY"
#define ENV_NOMINAL_KHZ "WITCH_NOMINAL_KHZ"	/* the CPU's nominal frequency, for the profile */

/* The most the cheap POSIX CPU timer gives (one tick at HZ=250). */
#define CPI_DEFAULT_RATE 250
#define CPI_DEFAULT_RATE_TEXT "250"

/* --- witch causal, libwitchcausal.so (docs/causal.md section 1) ------------ */

#define ENV_CAUSAL_LINES "WITCH_CAUSAL_LINES"			/* path of the line table */
#define ENV_CAUSAL_END_TO_END "WITCH_CAUSAL_END_TO_END"		/* 1: one experiment a run */
#define ENV_CAUSAL_FIXED_LINE "WITCH_CAUSAL_FIXED_LINE"		/* a line id: every experiment's */
#define ENV_CAUSAL_FIXED_SPEEDUP "WITCH_CAUSAL_FIXED_SPEEDUP"	/* 0..100: every experiment's */
#define ENV_CAUSAL_SPEEDUPS "WITCH_CAUSAL_SPEEDUPS"		/* "0,25,50": draw from these */
#define ENV_CAUSAL_PERIOD_NS "WITCH_CAUSAL_PERIOD_NS"		/* sampling period */
#define ENV_CAUSAL_DELAY_BUDGET "WITCH_CAUSAL_DELAY_BUDGET"	/* % of the run the pauses may take */
#define ENV_CAUSAL_PROGRESS_COUNTER "WITCH_CAUSAL_PROGRESS_COUNTER"	/* uprobe: count progress
									   points with uprobes */
/* Set by bench/causal only: experiment length and cool-off. */
#define ENV_CAUSAL_MIN_EXPERIMENT_NS "WITCH_CAUSAL_MIN_EXPERIMENT_NS"	/* 0: 50 periods */
#define ENV_CAUSAL_COOLOFF_NS "WITCH_CAUSAL_COOLOFF_NS"

#define CAUSAL_MAX_PROGRESS_ADDRS 4	/* `progress` records counted: the debug registers */
#define CAUSAL_MAX_SPEEDUPS 21		/* as many as 0 to 100 % in steps of 5 */
#define CAUSAL_MAX_SPEEDUPS_TEXT "21"
#define CAUSAL_DEFAULT_PERIOD_NS 1000000
#define CAUSAL_DEFAULT_PERIOD_TEXT "1000000"
#define CAUSAL_MIN_PERIOD_NS 100000	/* the runtime samples no faster */
#define CAUSAL_DEFAULT_DELAY_BUDGET 5
#define CAUSAL_DEFAULT_DELAY_BUDGET_TEXT "5"
#define CAUSAL_DEFAULT_COOLOFF_NS 10000000

#endif
