/*
 * cmd_causal.c - `witch causal`: COZ-style causal profiling. Reads the
 * program's DWARF (the runtime never does), writes the line table of
 * docs/causal.md into the output directory, runs the program with
 * libwitchcausal.so preloaded, and says afterwards whether the run
 * measured anything. Runs into one directory accumulate: witch report
 * merges them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/causal_lines.h"
#include "cli/causal_notes.h"
#include "cli/number.h"
#include "cli/perfcheck.h"
#include "cli/oneline.h"
#include "cli/optfail.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/job.h"
#include "cli/outdir.h"
#include "cli/target.h"
#include "core/contract.h"
#include "report/causal_analysis.h"
#include "report/causal_profile.h"

#define WHO "witch causal"
#define LIB "libwitchcausal.so"

static const char usage_text[] =
	"usage: witch causal [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM with causal profiling (COZ): during a run, experiments\n"
	"virtually speed up one source line at a time by slowing everything else\n"
	"down, and measure how the program's progress changes. Progress is counted\n"
	"at COZ_PROGRESS points (#include <coz.h> or <witch.h>), at --progress lines,\n"
	"or by whole runs (--end-to-end). Each process leaves DIR/causal.PID; runs\n"
	"into the same directory accumulate. See the result with: witch report DIR\n"
	"\n"
	"  -o, --output=DIR         output directory (default witch-PROGRAM-causal)\n"
	"  --progress=FILE:LINE     count visits to this line as progress (with\n"
	"                           breakpoints where they start, no recompiling);\n"
	"                           may be repeated\n"
	"  --end-to-end             the measure is the whole run's time: one\n"
	"                           experiment per run, no progress point needed;\n"
	"                           repeat the run many times\n"
	"  --scope=FILE             only lines of matching source files are sped up\n"
	"                           (a path, its last components, or a glob; may be\n"
	"                           repeated; default: every file of the program\n"
	"                           except system headers and libraries)\n"
	"  --binary-scope=PATH      also profile the lines of this shared library\n"
	"                           (needs its debug information); may be repeated\n"
	"  --line=FILE:LINE         every experiment speeds up this line\n"
	"  --speedup=PCT            every experiment uses this line speedup, 0 to 100\n"
	"  --speedups=PCT,PCT,...   draw line speedups from this list (default: 0 to\n"
	"                           100 in steps of 5); 0 % baselines are added\n"
	"                           when the list has none\n"
	"  --period=NS              sampling period in nanoseconds (default " CAUSAL_DEFAULT_PERIOD_TEXT ")\n"
	"  --delay-budget=PCT       the pauses of virtual speedups take at most about\n"
	"                           PCT % of the run's time (default " CAUSAL_DEFAULT_DELAY_BUDGET_TEXT "; 100: no\n"
	"                           limit): a higher budget runs more experiments a\n"
	"                           run and slows a multithreaded program more\n"
	"  --no-follow              profile only PROGRAM's own process, not the\n"
	"                           programs it runs or the children it forks\n"
	"  -q, --quiet              no summary after the run\n";

struct causal_opts {
	const char *outdir;
	char **progress, **scope, **binaries;
	size_t nprogress, nscope, nbinaries;
	const char *line;
	long speedup;		/* -1: random */
	char speedups[128];	/* "" or a checked list such as "0,25,50" */
	long period;		/* 0: the runtime's default */
	long delay_budget;	/* 0: the runtime's default */
	int end_to_end, no_follow, quiet;
};

/* One line on stderr, whatever the paths it quotes hold (cli/oneline.h). */
#define fail(...) cli_fail(WHO, 2, __VA_ARGS__)

static int push(char ***arr, size_t *n, char *s)
{
	char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -1;
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

/* A percentage, "35" or "35%", of the first len bytes of s. */
static int parse_pct(const char *s, size_t len, long *out)
{
	char pct[32];

	if (len && s[len - 1] == '%')
		len--;
	if (len >= sizeof(pct))
		return -1;
	memcpy(pct, s, len);
	pct[len] = '\0';
	return cli_long(pct, 0, 100, out);
}

/* "0,25,50%" into "0,25,50": at most CAUSAL_MAX_SPEEDUPS, each a percentage. */
static int parse_speedups(const char *list, char *norm, size_t cap)
{
	const char *p = list, *comma;
	size_t used = 0;
	int n = 0;
	long v;

	do {
		comma = strchr(p, ',');
		if (parse_pct(p, comma ? (size_t)(comma - p) : strlen(p), &v) || ++n > CAUSAL_MAX_SPEEDUPS)
			return -1;
		used += (size_t)snprintf(norm + used, cap - used, "%s%ld", used ? "," : "", v);
		if (used >= cap)
			return -1;
		p = comma + 1;
	} while (comma);
	return 0;
}

static int parse(int argc, char **argv, struct causal_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "progress", required_argument, NULL, 'P' },
		{ "end-to-end", no_argument, NULL, 'E' },
		{ "scope", required_argument, NULL, 's' },
		{ "binary-scope", required_argument, NULL, 'b' },
		{ "line", required_argument, NULL, 'l' },
		{ "speedup", required_argument, NULL, 'S' },
		{ "speedups", required_argument, NULL, 'L' },
		{ "period", required_argument, NULL, 'p' },
		{ "delay-budget", required_argument, NULL, 'B' },
		{ "no-follow", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_optval vals[] = { CLI_OPTVAL_OUTPUT, { 0, NULL } };
	int c;

	memset(o, 0, sizeof(*o));
	o->speedup = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'P':
			if (push(&o->progress, &o->nprogress, optarg))
				return fail("out of memory");
			break;
		case 'E':
			o->end_to_end = 1;
			break;
		case 's':
			if (!*optarg)
				return fail("--scope needs a source file name, such as --scope=app.c");
			if (push(&o->scope, &o->nscope, optarg))
				return fail("out of memory");
			break;
		case 'b':
			if (push(&o->binaries, &o->nbinaries, optarg))
				return fail("out of memory");
			break;
		case 'l':
			o->line = optarg;
			break;
		case 'S':
			if (parse_pct(optarg, strlen(optarg), &o->speedup))
				return fail("--speedup=%s is not a speedup; give a percentage from 0 to "
					    "100, such as --speedup=25", optarg);
			break;
		case 'L':
			if (parse_speedups(optarg, o->speedups, sizeof(o->speedups)))
				return fail("--speedups=%s is not a list of speedups; give up to "
					    CAUSAL_MAX_SPEEDUPS_TEXT " percentages from 0 to 100 separated "
					    "by commas, such as --speedups=0,25,50", optarg);
			break;
		case 'p':
			if (cli_long(optarg, 10000, 10000000000L, &o->period))
				return fail("--period=%s is not a period; give nanoseconds between "
					    "samples, 10000 to 10000000000", optarg);
			break;
		case 'B':
			if (parse_pct(optarg, strlen(optarg), &o->delay_budget) || !o->delay_budget)
				return fail("--delay-budget=%s is not a budget; give the percentage of the "
					    "run the pauses may take, 1 to 100, such as --delay-budget=10",
					    optarg);
			break;
		case 'F':
			o->no_follow = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			return cli_option_fail(WHO, WHO, "+o:qh", vals, argv);
		}
	}
	if (o->speedup >= 0 && *o->speedups)
		return fail("--speedup fixes one speedup and --speedups gives a list to draw from; "
			    "give one of them");
	if (optind >= argc)
		return fail("no program given; usage: witch causal [OPTIONS] -- PROGRAM [ARGS...]");
	return 0;
}

static int is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return ok;
}

/* The line table, progress breakpoints and fixed line, or an error. */
static int build_lines(const struct causal_opts *o, const char *target, struct causal_lines *t,
		       long *fixed_line)
{
	char err[2048];
	uint32_t id;
	size_t i;
	int no_debug = 0;

	if (causal_lines_set_scope(t, o->scope, o->nscope))
		return fail("out of memory");
	if (is_elf(target)) {
		/* A program from a distribution rarely has debug information,
		 * its libraries often do (libc6-dbg): with --binary-scope, go
		 * on with theirs, and say so once they have loaded. */
		no_debug = causal_lines_add_module(t, target, err, sizeof(err));
		if (no_debug && !(no_debug == -2 && o->nbinaries))
			return fail("%s", err);
	} else if (!o->nbinaries) {
		return fail("%s is a #! script: name the program whose lines to profile with "
			    "--binary-scope=PATH", target);
	}
	for (i = 0; i < o->nbinaries; i++) {
		if (access(o->binaries[i], R_OK))
			return fail("--binary-scope=%s: %s", o->binaries[i], strerror(errno));
		if (!is_elf(o->binaries[i]))
			return fail("--binary-scope=%s is not an ELF program or library",
				    o->binaries[i]);
		if (causal_lines_add_module(t, o->binaries[i], err, sizeof(err)))
			return fail("%s", err);
	}
	if (no_debug)
		fprintf(stderr, WHO ": warning: %s has no debug information; only the lines of the "
				"--binary-scope libraries are sped up\n", target);
	if (causal_lines_finish(t, err, sizeof(err)))
		return fail("%s", err);
	for (i = 0; i < o->nprogress; i++)
		if (causal_lines_add_progress(t, o->progress[i], err, sizeof(err)))
			return fail("--progress=%s: %s", o->progress[i], err);
	*fixed_line = -1;
	if (o->line) {
		if (causal_lines_find_line(t, o->line, &id, err, sizeof(err)))
			return fail("--line=%s: %s", o->line, err);
		*fixed_line = id;
	}
	return 0;
}

/*
 * --progress lines count visits with an execute breakpoint where one fires
 * (the hardware counts, the cheapest), else with a uprobe (a software
 * breakpoint: a kernel trap a visit, and it needs CAP_PERFMON); *uprobes
 * says which. Neither: a one-line error with both reasons.
 */
static int progress_counter(const struct causal_opts *o, int *uprobes)
{
	char bp_err[512], up_err[512];

	*uprobes = 0;
	if (!o->nprogress || perf_debug_registers(bp_err, sizeof(bp_err)) > 0)
		return 0;
	if (perf_uprobes_ok(up_err, sizeof(up_err)) < 0)
		return fail("--progress needs hardware breakpoints or uprobes: %s; and %s; or mark "
			    "progress with COZ_PROGRESS, or use --end-to-end", bp_err, up_err);
	*uprobes = 1;
	return 0;
}

/* Write the table beside the profiles, atomically: a concurrent run must
 * never read half of it. */
static int write_lines(const struct causal_lines *t, const char *outdir, char *path, size_t cap)
{
	char tmp[PATH_MAX + 64];
	FILE *f;
	int bad;

	snprintf(path, cap, "%s/" CAUSAL_LINES_FILE, outdir);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return fail("cannot write %s: %s", tmp, strerror(errno));
	bad = causal_lines_write(t, f);
	bad |= fclose(f);
	if (bad || rename(tmp, path)) {
		unlink(tmp);
		return fail("cannot write %s: %s", path, strerror(errno));
	}
	return 0;
}

static void setenv_num(const char *name, long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", v);
	setenv(name, num, 1);
}

static void set_env(const char *lib, const char *outdir, const char *lines,
		    const struct causal_opts *o, long fixed_line, int uprobes)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 2];

	snprintf(buf, sizeof(buf), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", buf, 1);
	setenv(ENV_OUT, outdir, 1);
	setenv(ENV_CAUSAL_LINES, lines, 1);
	/* Never inherit a setting the user did not give this run. */
	if (o->end_to_end)
		setenv(ENV_CAUSAL_END_TO_END, "1", 1);
	else
		unsetenv(ENV_CAUSAL_END_TO_END);
	if (fixed_line >= 0)
		setenv_num(ENV_CAUSAL_FIXED_LINE, fixed_line);
	else
		unsetenv(ENV_CAUSAL_FIXED_LINE);
	if (o->speedup >= 0)
		setenv_num(ENV_CAUSAL_FIXED_SPEEDUP, o->speedup);
	else
		unsetenv(ENV_CAUSAL_FIXED_SPEEDUP);
	if (*o->speedups)
		setenv(ENV_CAUSAL_SPEEDUPS, o->speedups, 1);
	else
		unsetenv(ENV_CAUSAL_SPEEDUPS);
	if (uprobes)
		setenv(ENV_CAUSAL_PROGRESS_COUNTER, "uprobe", 1);
	else
		unsetenv(ENV_CAUSAL_PROGRESS_COUNTER);
	if (o->period)
		setenv_num(ENV_CAUSAL_PERIOD_NS, o->period);
	else
		unsetenv(ENV_CAUSAL_PERIOD_NS);
	if (o->delay_budget)
		setenv_num(ENV_CAUSAL_DELAY_BUDGET, o->delay_budget);
	else
		unsetenv(ENV_CAUSAL_DELAY_BUDGET);
	if (o->no_follow)
		setenv(ENV_NO_FOLLOW, "1", 1);
	else
		unsetenv(ENV_NO_FOLLOW);
}

/* A causal profile of this process's (under a launcher: of its rank,
 * the other ranks' being theirs: cli/job.h). */
static int ours(const char *name)
{
	return rc_is_profile_name(name) && cli_job_file(name, '.', "");
}

/* The causal profiles already in the directory, to tell this run's apart. */
struct seen {
	char name[64];
	struct timespec mtime;
	off_t size;
};

static size_t snapshot(const char *dir, struct seen **out)
{
	char path[PATH_MAX + 300];
	struct seen *s = NULL, *a;
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!ours(de->d_name) || strlen(de->d_name) >= sizeof(s->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !(a = realloc(s, (n + 1) * sizeof(*s))))
			continue;
		s = a;
		snprintf(s[n].name, sizeof(s[n].name), "%s", de->d_name);
		s[n].mtime = st.st_mtim;
		s[n].size = st.st_size;
		n++;
	}
	if (d)
		closedir(d);
	*out = s;
	return n;
}

static int unchanged(const struct seen *s, size_t n, const char *name, const struct stat *st)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return s[i].size == st->st_size && s[i].mtime.tv_sec == st->st_mtim.tv_sec &&
			       s[i].mtime.tv_nsec == st->st_mtim.tv_nsec;
	return 0;
}

/*
 * Read the causal profiles this run wrote (new or changed since the
 * snapshot) into p; *older counts the others. Unreadable ones are reported.
 */
static size_t read_new_profiles(const char *dir, const struct seen *before, size_t nbefore,
				struct rc_profile *p, size_t *older)
{
	char path[PATH_MAX + 300], err[1024], *text;
	struct dirent *de;
	struct stat st;
	size_t n = 0, len;
	DIR *d = opendir(dir);
	FILE *f;

	*older = 0;
	while (d && (de = readdir(d))) {
		if (!ours(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st))
			continue;
		if (unchanged(before, nbefore, de->d_name, &st)) {
			(*older)++;
			continue;
		}
		n++;
		f = fopen(path, "rb");
		text = NULL;
		len = 0;
		if (f) {
			text = malloc((size_t)st.st_size + 1);
			len = text ? fread(text, 1, (size_t)st.st_size + 1, f) : 0;
			fclose(f);
		}
		if (!text || rc_read_text(p, text, len, path, err, sizeof(err)))
			fprintf(stderr, WHO ": warning: %s\n",
				text ? err : "cannot read a profile this run wrote");
		free(text);
	}
	if (d)
		closedir(d);
	return n;
}

static void summary(const struct causal_opts *o, const char *argv0, const char *outdir,
		    const struct seen *before, size_t nbefore, const struct causal_notes *notes)
{
	struct rc_profile p;
	struct rc_analysis a;
	size_t n, older, unreached = 0;

	memset(&p, 0, sizeof(p));
	n = read_new_profiles(outdir, before, nbefore, &p, &older);
	if (!n) {
		fprintf(stderr, WHO ": %s ended without writing a causal profile to %s (it may have "
				"been killed before witch could write, or used exec without exit)\n",
			argv0, o->outdir);
	} else if (rc_analyze(&p, &a) == 0) {
		/* Where a --progress line was not reached, what it counted at
		 * says more than how to add a progress point. */
		if (a.status != RC_NO_EXPERIMENTS)
			unreached = causal_notes_unreached(notes, &p, &a, WHO);
		if (a.status == RC_NO_PROGRESS && !o->end_to_end) {
			if (!unreached)
				fprintf(stderr, WHO ": %s\n", rc_guidance);
		} else if (a.status == RC_NO_EXPERIMENTS && !o->quiet)
			fprintf(stderr, WHO ": no experiment finished: %s ended too soon; run it on a "
					"longer input, or repeat the run (runs into %s accumulate)\n",
				argv0, o->outdir);
		else if (!o->quiet && !cli_job_quiet())
			fprintf(stderr, WHO ": %zu experiment%s in this run%s; see them with: witch "
					"report %s\n",
				a.nexps, a.nexps == 1 ? "" : "s",
				older ? " (merged with earlier runs' profiles there)" : "", o->outdir);
		rc_analysis_free(&a);
	}
	rc_profile_free(&p);
}

int cmd_causal(int argc, char **argv)
{
	char path[PATH_MAX], err[1024], lib[PATH_MAX], outdir[PATH_MAX], defdir[PATH_MAX];
	char lines_path[PATH_MAX + 32];
	struct causal_opts o;
	struct causal_lines t;
	struct causal_notes notes = { 0 };
	struct seen *before = NULL;
	size_t nbefore;
	const char *base;
	long fixed_line;
	int status, rc, uprobes = 0;

	memset(&t, 0, sizeof(t));
	rc = parse(argc, argv, &o);
	if (rc)
		goto out;
	argv += optind;
	rc = 2;
	if (cli_job_not_launcher(WHO, argv[0], err, sizeof(err)) < 0 ||
	    target_resolve(argv[0], path, sizeof(path), err, sizeof(err)) < 0 ||
	    target_preloadable(path, err, sizeof(err)) < 0 || perf_task_clock_ok(err, sizeof(err)) < 0) {
		fail("%s", err);
		goto out;
	}
	rc = build_lines(&o, path, &t, &fixed_line);
	if (rc)
		goto out;
	if (causal_notes_take(&notes, &t, o.progress)) {
		rc = fail("out of memory");
		goto out;
	}
	rc = progress_counter(&o, &uprobes);
	if (rc)
		goto out;
	rc = 2;
	if (witch_libdir(lib, sizeof(lib)) < 0 ||
	    (size_t)snprintf(lib + strlen(lib), sizeof(lib) - strlen(lib), "/" LIB) >=
		    sizeof(lib) - strlen(lib) ||
	    access(lib, R_OK) < 0) {
		fail("cannot find " LIB " next to this witch (%s); reinstall witch", lib);
		goto out;
	}
	if (!o.outdir) {
		base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		snprintf(defdir, sizeof(defdir), "witch-%s-causal", base);
		o.outdir = defdir;
	}
	rc = outdir_prepare(WHO, o.outdir, outdir, sizeof(outdir));
	if (rc)
		goto out;
	rc = write_lines(&t, outdir, lines_path, sizeof(lines_path));
	if (rc)
		goto out;
	causal_lines_free(&t);
	set_env(lib, outdir, lines_path, &o, fixed_line, uprobes);
	/* Said once nothing can fail any more: an error stays one line. */
	if (uprobes && !o.quiet)
		fprintf(stderr, WHO ": --progress counts visits with uprobes (hardware breakpoints "
				"do not work here; see witch doctor)\n");
	if (!o.quiet)
		causal_notes_warn(&notes, WHO);
	nbefore = snapshot(outdir, &before);
	status = launch_and_wait(path, argv, WHO);
	if (status < 0) {
		rc = 127;
		goto out;
	}
	summary(&o, argv[0], outdir, before, nbefore, &notes);
	causal_notes_free(&notes);
	free(before);
	free(o.progress);
	free(o.scope);
	free(o.binaries);
	exit_like(status);
out:
	free(before);
	causal_notes_free(&notes);
	causal_lines_free(&t);
	free(o.progress);
	free(o.scope);
	free(o.binaries);
	return rc;
}
