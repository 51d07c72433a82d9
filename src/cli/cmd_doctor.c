/*
 * cmd_doctor.c - `witch doctor [PROGRAM]`: what this machine (and program)
 * can do, each item OK or missing with the fix. Exit status 0 when
 * `witch record` can run.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/cpuprobe.h"
#include "cli/perfcheck.h"
#include "cli/target.h"
#include "core/perf.h"
#include "report/debuginfo.h"

static int blocking;	/* a missing item that stops witch record */

static void item(int ok, int needed, const char *what, const char *detail)
{
	printf("  %-8s %s%s%s\n", ok ? "OK" : needed ? "MISSING" : "missing", what,
	       detail && *detail ? ": " : "", detail ? detail : "");
	if (!ok && needed)
		blocking = 1;
}

static void check_paranoid(void)
{
	char msg[256];
	int v = perf_paranoid();

	if (v == -99) {
		item(0, 1, "perf_event_paranoid", "cannot read /proc/sys/kernel/perf_event_paranoid "
						  "(no perf events in this kernel?)");
		return;
	}
	snprintf(msg, sizeof(msg), "%d (%s)", v,
		 geteuid() == 0 ? "root: not limited"
		 : v <= 2 ? "user-space events allowed"
			  : "too strict for users: sysctl kernel.perf_event_paranoid=2, or run as root");
	item(geteuid() == 0 || v <= 2, 1, "perf_event_paranoid", msg);
}

static void check_sampling(void)
{
	struct sigevent ev;
	timer_t t;
	int fd = core_perf_task_clock(1000000);

	item(fd >= 0, 0, "perf task-clock sampling",
	     fd >= 0 ? "rates above 250 Hz use it (~46 us a sample on a VM)" : strerror(errno));
	if (fd >= 0)
		close(fd);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_NONE;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t) == 0) {
		item(1, 1, "POSIX CPU-time timers", "the default sample source (up to 250 Hz)");
		timer_delete(t);
	} else {
		item(0, 1, "POSIX CPU-time timers", strerror(errno));
	}
}

static int pages_only;	/* record runs, with --watch=pages */

static void check_registers(void)
{
	char err[512], msg[128], why[512];
	int n = perf_debug_registers(err, sizeof(err));

	if (n >= 2) {
		snprintf(msg, sizeof(msg), "%d (one leads samples to their access, %d watch)", n,
			 n - 1);
		item(1, 1, "hardware debug registers", msg);
		return;
	}
	/* Without them, page protection stands in (witch record --watch=pages). */
	pages_only = perf_page_watch_ok(why, sizeof(why)) == 0;
	item(0, !pages_only, "hardware debug registers", n < 0 || !n ? err : "only one is free; need two");
	item(pages_only, 1, "page-protection watches (--watch=pages)",
	     pages_only ? "witch record uses them instead: slower per trap, and they watch only "
			  "while a program has one thread"
			: why);
}

/* witch causal --progress counts visits with them where registers do not fire. */
static void check_uprobes(void)
{
	char err[512];
	int ok = perf_uprobes_ok(err, sizeof(err)) == 0;

	item(ok, 0, "uprobes", ok ? "a test uprobe counted every call (witch causal --progress "
				    "uses them where hardware breakpoints do not fire)"
				  : err);
}

static void check_modify(void)
{
	static long target[2];
	struct perf_event_attr a;
	int fd = core_perf_breakpoint(HW_BREAKPOINT_W, (uintptr_t)&target[0], 8, 0), ok;

	if (fd < 0) {
		item(0, 0, "fast watchpoint modification", "no breakpoint could be opened");
		return;
	}
	core_perf_breakpoint_attr(&a, HW_BREAKPOINT_W, (uintptr_t)&target[1], 8);
	a.disabled = 1;
	ok = ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0;
	close(fd);
	item(ok, 0, "fast watchpoint modification",
	     ok ? "PERF_EVENT_IOC_MODIFY_ATTRIBUTES works"
		: "kernel lacks PERF_EVENT_IOC_MODIFY_ATTRIBUTES (4.17+): witch closes and reopens "
		  "breakpoints instead, which is slower");
}

/*
 * How the CPU reports a watched hit inside rep stos/movs, and whether
 * AVX-512 masked accesses run here: both change what a trap's context
 * says, and witch reads either (docs: "On Intel CPUs").
 */
static void check_cpu(void)
{
	char err[256], msg[512];
	struct string_hits h;
	int avx512 = cpu_has_avx512();

	if (pages_only || probe_string_hits(&h, err, sizeof(err)) < 0) {
		item(0, 0, "string-instruction hits", pages_only ? "not probed: no debug registers" : err);
	} else {
		if (h.traps >= 8)
			snprintf(msg, sizeof(msg), "per element (%d traps for 8 watched bytes of one rep "
				 "stosb; fast strings: %s)", h.traps, cpu_fast_strings());
		else
			snprintf(msg, sizeof(msg), "per group (%d trap%s for 8 watched bytes of one rep "
				 "stosb, RDI %ld bytes past them; fast strings: %s): witch judges the "
				 "bytes such an instruction has stored so far", h.traps,
				 h.traps == 1 ? "" : "s", h.past, cpu_fast_strings());
		item(1, 0, "string-instruction hits", msg);
	}
	item(avx512, 0, "AVX-512", avx512 ? "masked stores and loads are judged by the bytes their "
					    "opmask selects; witch spy (Valgrind 3.19) cannot run "
					    "programs that use it"
					  : "not on this CPU: glibc uses AVX2 and rep string code here");
}

static void check_pmu(void)
{
	char err[512], detail[1024];
	int ok = perf_memory_sampling_ok(1, 0, err, sizeof(err)) == 0;

	snprintf(detail, sizeof(detail), "%s; witch record samples with CPU-time timers, which "
		 "weigh accesses by the time before them", err);
	item(ok, 0, "PMU memory sampling",
	     ok ? "witch record --source=pmu samples stores and loads by count" : detail);
}

static void check_valgrind(void)
{
	char line[128] = "";
	FILE *p = popen("valgrind --version 2>/dev/null", "r");

	if (p) {
		if (!fgets(line, sizeof(line), p))
			line[0] = 0;
		pclose(p);
	}
	line[strcspn(line, "\n")] = 0;
	item(line[0] != 0, 0, "valgrind", line[0] ? line : "not found: apt-get install valgrind "
							   "(witch spy needs it)");
}

static void check_program(const char *name)
{
	char path[PATH_MAX], err[1024], where[PATH_MAX + 64];
	struct stat st;
	int dbg;

	printf("\n%s:\n", name);
	if (target_resolve(name, path, sizeof(path), err, sizeof(err)) < 0) {
		item(0, 1, "found", err);
		return;
	}
	item(1, 1, "found", path);
	if (target_preloadable(path, err, sizeof(err)) < 0) {
		item(0, 1, "witch record can preload into it", err);
		return;
	}
	item(1, 1, "dynamically linked, not setuid", "");
	if (stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
		item(1, 0, "setuid/setgid bit", "set, but you own it: preloading works");
	dbg = wr_debuginfo(path, where, sizeof(where));
	if (dbg == 1)
		item(1, 0, "debug info", where);
	else if (dbg == 0)
		item(0, 0, "debug info", "none: reports show function names from the symbol table, "
					 "not file:line (build with -g, or install its -dbgsym package)");
	else
		item(0, 0, "debug info", "a script or not an ELF file: checked the interpreter only");
}

int cmd_doctor(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: witch doctor [PROGRAM]\n\nChecks what witch needs on this machine "
		       "(and for PROGRAM); exit status 0 when witch record can run.\n");
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "witch doctor: give at most one program; usage: witch doctor [PROGRAM]\n");
		return 2;
	}
	printf("witch doctor: this machine\n");
	check_paranoid();
	check_sampling();
	check_registers();
	check_uprobes();
	check_modify();
	check_cpu();
	check_pmu();
	check_valgrind();
	if (argc == 2)
		check_program(argv[1]);
	printf("\n%s\n", blocking ? "witch record cannot run here: fix the MISSING items above"
			 : pages_only ? "witch record can run here, with --watch=pages"
				      : "witch record can run here");
	return blocking ? 1 : 0;
}
