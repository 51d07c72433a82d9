/*
 * cmd_report.c - witch report: read profiles, merge, symbolize, render.
 *
 * Every failure is one line on stderr that starts with "witch report: ",
 * says what is wrong and what to do, and makes the exit status 1; those of
 * --fail-above make it 2, so that a CI job tells a misused gate (2) and
 * an unreadable profile (1) from waste above the limit (3).
 */
#include "cli/oneline.h"
#include "cli/commands.h"
#include "cli/report_gate.h"
#include "cli/report_out.h"
#include "report/causal_analysis.h"
#include "report/causal_profile.h"
#include "report/causal_render.h"
#include "report/cpi.h"
#include "report/html/html.h"
#include "report/loop.h"
#include "report/ranks.h"
#include "report/render.h"
#include "report/report.h"
#include "report/share.h"
#include "report/symbolize.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE "usage: witch report [--format=text|json|html|coz|folded|pprof] " \
	"[--folded-by=first|second] [--top=N] [--pid=PID] [--rank=N] [--by-rank] " \
	"[--function=NAME] [--ghz=F] [--fail-above=FRACTION] [-o FILE] PROFILE|DIR..."

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_COZ, FORMAT_FOLDED, FORMAT_PPROF, FORMAT_HTML };

/* The formats of weighted stacks (report/stacks.h), and their names. */
static int stacks_format(enum format f)
{
	return f == FORMAT_FOLDED || f == FORMAT_PPROF;
}

static const char *stacks_name(enum format f)
{
	return f == FORMAT_PPROF ? "--format=pprof" : "--format=folded";
}

struct report_opts {
	enum format format;
	size_t top;
	int top_given;
	const char *top_arg;	/* --top's value, checked by check_top */
	uint64_t pid;		/* 0: every process */
	int64_t rank;		/* -1: every rank */
	int by_rank;		/* --by-rank: each pair's spread over the ranks */
	const char *function;	/* witch cpi: only this function */
	double ghz;		/* witch cpi: the frequency for estimated CPI; 0: the profile's */
	int folded_second;	/* --folded-by=second: stacks (folded, pprof) of the pairs'
				   second contexts */
	int folded_by_given;
	const char *fail_above;	/* --fail-above's value as given; NULL: no gate */
	double limit;		/* its fraction */
	const char *out;	/* -o FILE; NULL: stdout */
	char **paths;		/* argv's strings, not copies */
	int npaths;
};

/* One line on stderr, whatever the paths it quotes hold (cli/oneline.h). */
#define fail(...) cli_fail("witch report", 1, __VA_ARGS__)
#define gate_fail(...) cli_fail("witch report", GATE_MISUSE, __VA_ARGS__)

static void help(void)
{
	printf("%s\n\n"
	       "Read the profiles written by witch record (files, or directories\n"
	       "of *.witch files), merge identical calling contexts across\n"
	       "threads and processes, and rank the pairs of contexts by waste.\n"
	       "Causal profiles (witch causal: causal.PID files, or a directory\n"
	       "of them) are merged across runs and their lines ranked by impact.\n"
	       "\n"
	       "  --format=text|json  text for people (default), JSON for tools\n"
	       "  --format=html       one self-contained HTML page to open in a browser\n"
	       "                      (with -o FILE): tables, flame graph, plots, source\n"
	       "  --format=coz        causal profiles only: coz's profile.coz format,\n"
	       "                      for coz's viewer\n"
	       "  --format=folded     folded stacks (frame;frame weight, root first) for\n"
	       "                      flamegraph.pl, inferno or speedscope: each pair's\n"
	       "                      waste in bytes (rvn: redundant executions) on its\n"
	       "                      first context; witch cpi: CPU time in ns\n"
	       "  --format=pprof      the same stacks and weights as a pprof profile\n"
	       "                      (profile.proto, gzipped) for go tool pprof, with\n"
	       "                      addresses, source lines and inlined functions;\n"
	       "                      binary: give -o FILE (such as -o out.pb.gz)\n"
	       "  --folded-by=first|second\n"
	       "                      which context of each pair the stacks (folded,\n"
	       "                      pprof) are: first (default: the watched access;\n"
	       "                      rvn's first) or second (the trapping access;\n"
	       "                      rvn's again)\n"
	       "  --top=N             show the N pairs (causal: lines) with the most\n"
	       "                      waste (impact), (cpi) N rows of each table, or\n"
	       "                      (spy --tool=loop) N loops; default 10 (JSON of\n"
	       "                      cpi and loop profiles: all; HTML: 100), 0 shows all\n"
	       "  --pid=PID           only the process PID (default: all merged)\n"
	       "  --rank=N            only the processes of rank N of a parallel job\n"
	       "                      (mpirun, srun; default: all ranks merged)\n"
	       "  --by-rank           under each pair, its waste across the ranks: min,\n"
	       "                      median, max and the ranks at the ends (JSON: and\n"
	       "                      per rank), so that a rank wasting more stands out\n"
	       "  --function=NAME     witch cpi profiles: one function, its loops, lines, blocks and\n"
	       "                      instructions; NAME as the report shows it (img::Buf::fill(long)\n"
	       "                      or img::Buf::fill) or its symbol (_ZN3img3Buf4fillEl)\n"
	       "  --ghz=F             witch cpi profiles: estimate CPI at F GHz (default: the\n"
	       "                      nominal frequency of the machine the sampled run ran on)\n"
	       "  --fail-above=FRACTION\n"
	       "                      for CI: exit 3, after the report and one line on\n"
	       "                      stderr, when the redundancy (the headline fraction;\n"
	       "                      rvn: of computations) is above FRACTION, a decimal\n"
	       "                      in [0, 1] or a percentage (0.10 or 10%%); record and\n"
	       "                      spy profiles only; exit 2 when it cannot apply\n"
	       "  -o FILE             write the report to FILE (whole, or not at all)\n"
	       "                      instead of stdout\n"
	       "  -h, --help          show this help\n", USAGE);
}

static int parse_top(const char *s, size_t *top)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > SIZE_MAX)
		return -1;
	*top = (size_t)v;
	return 0;
}

static int set_option(struct report_opts *o, const char *name, const char *val)
{
	if (!strcmp(name, "--format")) {
		if (!strcmp(val, "text"))
			o->format = FORMAT_TEXT;
		else if (!strcmp(val, "json"))
			o->format = FORMAT_JSON;
		else if (!strcmp(val, "coz"))
			o->format = FORMAT_COZ;
		else if (!strcmp(val, "folded"))
			o->format = FORMAT_FOLDED;
		else if (!strcmp(val, "pprof"))
			o->format = FORMAT_PPROF;
		else if (!strcmp(val, "html"))
			o->format = FORMAT_HTML;
		else
			return fail("unknown format '%s'; use --format=text, --format=json, --format=html, "
				    "--format=folded, --format=pprof or (causal profiles) --format=coz",
				    val);
		return 0;
	}
	if (!strcmp(name, "--folded-by")) {
		if (strcmp(val, "first") && strcmp(val, "second"))
			return fail("--folded-by=%s is not a choice; use --folded-by=first (the "
				    "pairs' first contexts) or --folded-by=second", val);
		o->folded_second = !strcmp(val, "second");
		o->folded_by_given = 1;
		return 0;
	}
	if (!strcmp(name, "--fail-above")) {
		if (gate_parse(val, &o->limit))
			return gate_fail("--fail-above=%s is not a fraction; give a decimal in [0, 1] "
					 "or a percentage, such as 0.10 or 10%%", val);
		o->fail_above = val;
		return 0;
	}
	if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
		o->out = val;
		return 0;
	}
	if (!strcmp(name, "--function")) {
		if (!*val)
			return fail("--function needs a function's name (as the report shows it, in full or short, or its symbol)");
		o->function = val;
		return 0;
	}
	if (!strcmp(name, "--ghz")) {
		char *end;

		o->ghz = strtod(val, &end);
		if (!*val || *end || !(o->ghz >= 0.1 && o->ghz <= 20))
			return fail("--ghz=%s is not a frequency; give the CPU's nominal frequency in GHz, "
				    "such as 2.4", val);
		return 0;
	}
	if (!strcmp(name, "--rank")) {
		size_t rank;

		if (parse_top(val, &rank) || rank > INT64_MAX)
			return fail("--rank needs a rank, a whole number from 0, not '%s'", val);
		o->rank = (int64_t)rank;
		return 0;
	}
	if (!strcmp(name, "--pid")) {
		size_t pid;

		if (parse_top(val, &pid) || pid == 0)
			return fail("--pid needs a process id, not '%s'", val);
		o->pid = pid;
		return 0;
	}
	o->top_arg = val;
	o->top_given = 1;
	return 0;
}

/* --top's value, checked once the profiles' kind is known: what it
 * counts (pairs, lines, rows) depends on it. */
static int check_top(struct report_opts *o, const char *rows)
{
	if (o->top_arg && parse_top(o->top_arg, &o->top))
		return fail("--top needs a whole number of %s to show, not '%s' (0 shows all)", rows,
			    o->top_arg);
	return 0;
}

/*
 * Options may come before or after the paths; "--" ends them, for a
 * profile whose name starts with '-'. Returns 0 to go on, the exit
 * status after an error, -1 after --help.
 */
static int parse_options(int argc, char **argv, struct report_opts *o)
{
	int i, ret, only_paths = 0;

	o->format = FORMAT_TEXT;
	o->top = 10;
	o->top_given = 0;
	o->top_arg = NULL;
	o->pid = 0;
	o->rank = -1;
	o->by_rank = 0;
	o->function = NULL;
	o->ghz = 0;
	o->folded_second = 0;
	o->folded_by_given = 0;
	o->fail_above = NULL;
	o->limit = 0;
	o->out = NULL;
	o->npaths = 0;
	o->paths = calloc((size_t)argc + 1, sizeof(*o->paths));
	if (!o->paths)
		return fail("out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char name[24];
		const char *eq;

		if (only_paths || a[0] != '-' || !a[1]) {
			o->paths[o->npaths++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_paths = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help();
			return -1;
		}
		if (!strcmp(a, "--by-rank")) {
			o->by_rank = 1;
			continue;
		}
		eq = strchr(a, '=');
		snprintf(name, sizeof(name), "%.*s",
			 (int)(eq ? (size_t)(eq - a) : strlen(a)), a);
		if (strcmp(name, "--format") && strcmp(name, "--top") && strcmp(name, "--pid") &&
		    strcmp(name, "--rank") &&
		    strcmp(name, "--function") && strcmp(name, "--ghz") && strcmp(name, "--folded-by") &&
		    strcmp(name, "--fail-above") && strcmp(name, "-o") && strcmp(name, "--output"))
			return fail("unknown option '%s'; %s", a, USAGE);
		/* The gate's misuse is told apart from a failed report. */
		if (!eq && i + 1 == argc)
			return cli_fail("witch report", strcmp(name, "--fail-above") ? 1 : GATE_MISUSE,
					"%s needs a value; %s", a, USAGE);
		if ((ret = set_option(o, name, eq ? eq + 1 : argv[++i])))
			return ret;
	}
	if (o->npaths == 0)
		return fail("no profile given; %s", USAGE);
	if (o->folded_by_given && !stacks_format(o->format))
		return fail("--folded-by applies to --format=folded and --format=pprof");
	/* Binary on a terminal would garble it and help no one. */
	if (o->format == FORMAT_PPROF && !o->out && isatty(STDOUT_FILENO))
		return fail("--format=pprof writes a binary file; name it with -o FILE, such as "
			    "-o out.pb.gz (or redirect stdout)");
	if (o->format == FORMAT_HTML && !o->top_arg)
		o->top = WR_HTML_TOP;
	if (o->by_rank && o->rank >= 0)
		return fail("--by-rank compares all the ranks; drop --rank=%lld, or --by-rank",
			    (long long)o->rank);
	if (o->by_rank && o->format != FORMAT_TEXT && o->format != FORMAT_JSON)
		return fail("--by-rank applies to --format=text and --format=json");
	return 0;
}

/* Tool loop: its loops rather than pairs (report/loop.h). JSON is for
 * tools: every loop unless --top says otherwise, as for witch cpi. */
static int render_loops(const struct report_opts *o, struct wr_report *r,
			struct wr_symbolizer *s)
{
	size_t top = o->format == FORMAT_JSON && !o->top_given ? 0 : o->top;

	if (wr_loop_sym_shown(s, r, top))
		return -1;
	if (o->format == FORMAT_HTML)
		return wr_html_loops(stdout, r, s, top);
	return o->format == FORMAT_JSON ? wr_loop_render_json(stdout, r, s, top)
					: wr_loop_render_text(stdout, r, s, top);
}

/* Tool share: pairs with the cache lines they shared (report/share.h). */
static int render_shares(const struct report_opts *o, const struct wr_report *r,
			 struct wr_symbolizer *s)
{
	if (o->format == FORMAT_HTML)
		return wr_html_share(stdout, r, s, o->top);
	return o->format == FORMAT_JSON ? wr_share_render_json(stdout, r, s, o->top)
					: wr_share_render_text(stdout, r, s, o->top);
}

static int render(const struct report_opts *o, struct wr_report *r)
{
	struct wr_symbolizer *s = wr_sym_new(r, stderr);
	int ret;

	if (!s)
		return fail("out of memory");
	/* Warnings about missing or changed modules before the report. */
	if (r->loops) {
		ret = render_loops(o, r, s);
		goto done;
	}
	ret = wr_sym_ranked(s, stacks_format(o->format) ? 0 : o->top);
	if (!ret && o->format == FORMAT_FOLDED)
		ret = wr_render_folded(stdout, r, s, o->folded_second);
	else if (!ret && o->format == FORMAT_PPROF)
		ret = wr_render_pprof(stdout, r, s, o->folded_second);
	else if (!ret && r->shares)
		ret = render_shares(o, r, s);
	else if (!ret && o->format == FORMAT_JSON)
		ret = wr_render_json(stdout, r, s, o->top);
	else if (!ret && o->format == FORMAT_HTML)
		ret = wr_html_pairs(stdout, r, s, o->top);
	else if (!ret)
		ret = wr_render_text(stdout, r, s, o->top);
done:
	wr_sym_free(s);
	if (ret && !ferror(stdout))
		return fail("out of memory while symbolizing");
	/* A full disk or a closed pipe must not look like success. */
	if (fflush(stdout) || ferror(stdout))
		return fail("cannot write the report: %s", strerror(errno));
	return 0;
}

/* A causal profile, or a directory of causal profiles and no *.witch ones. */
static int causal_path(const char *path)
{
	return rc_path_is_causal(path) && !rc_dir_has_witch_profiles(path);
}

static int causal_report(const struct report_opts *o)
{
	struct rc_profile p;
	struct rc_analysis a;
	char err[1024];
	int ret = 0;

	memset(&p, 0, sizeof(p));
	memset(&a, 0, sizeof(a));
	p.one_rank = o->rank >= 0;
	p.rank = (uint64_t)o->rank;
	if (o->pid || o->by_rank)
		ret = fail("--pid and --by-rank apply to witch record and spy profiles; a causal "
			   "report merges all runs (--rank=N: one rank's; name single causal "
			   "profiles to report fewer)");
	else if (rc_load(&p, o->paths, o->npaths, err, sizeof(err)))
		ret = fail("%s", err);
	else if (rc_analyze(&p, &a))
		ret = fail("out of memory");
	else if (a.status == RC_NO_EXPERIMENTS)
		ret = fail("no experiment finished in %zu run%s of %s: the program ended too soon "
			   "(experiments last at least a few milliseconds each); run it on a longer "
			   "input, or repeat runs into the same directory (they accumulate)",
			   p.nruns, p.nruns == 1 ? "" : "s", o->paths[0]);
	else if (a.status == RC_NO_PROGRESS)
		ret = fail("%s", rc_guidance);
	if (!ret) {
		if (o->format != FORMAT_COZ)
			rc_render_warnings(stderr, &p, &a);
		if (o->format == FORMAT_COZ)
			ret = rc_render_coz(stdout, &p);
		else if (o->format == FORMAT_JSON)
			ret = rc_render_json(stdout, &p, &a, o->top);
		else if (o->format == FORMAT_HTML)
			ret = wr_html_causal(stdout, &p, &a, o->top);
		else
			ret = rc_render_text(stdout, &p, &a, o->top);
		if (ret || fflush(stdout) || ferror(stdout))
			ret = fail("cannot write the report: %s", strerror(errno));
	}
	rc_analysis_free(&a);
	rc_profile_free(&p);
	return ret;
}

/* witch cpi's two runs: joined, analyzed and shown (report/cpi.h). */
static int cpi_report(const struct report_opts *o)
{
	struct cpi_render_opts ro = { o->top, o->function, o->ghz };
	struct wr_symbolizer *s = NULL;
	struct cpi *c = cpi_new();
	char err[1024];
	int ret = 0;

	if (!c)
		return fail("out of memory");
	if (o->pid)
		ret = fail("--pid does not apply to witch cpi profiles: its two runs have different "
			   "processes; name the profiles to report fewer (or --rank=N, a rank's)");
	else if (o->by_rank)
		ret = fail("--by-rank compares the pairs of record and spy profiles; witch cpi's "
			   "show one rank with --rank=N");
	else if (o->format == FORMAT_COZ)
		ret = fail("--format=coz is for causal profiles (witch causal); %s holds witch cpi's",
			   o->paths[0]);
	else if (stacks_format(o->format) && o->folded_second)
		ret = fail("--folded-by=second applies to the pairs of record and spy profiles; "
			   "witch cpi's stacks are those of its samples");
	else if (stacks_format(o->format) && (o->function || o->ghz))
		ret = fail("--function and --ghz do not apply to %s, which shows every "
			   "sampled stack", stacks_name(o->format));
	else if ((c->r->only_rank = o->rank, cpi_load(c, o->paths, o->npaths, err, sizeof(err))))
		ret = fail("%s", err);
	/* The sampled run's stacks need no analysis of the code. */
	else if (!(s = wr_sym_new(c->r, stderr)) || (!stacks_format(o->format) && cpi_analyze(c, s)))
		ret = fail("out of memory");
	else if (o->function && cpi_function_named(c, o->function) == CPI_NONE)
		ret = fail("no function %s ran in these profiles; `witch report %s` lists the functions",
			   o->function, o->paths[0]);
	if (!ret && stacks_format(o->format)) {
		if ((o->format == FORMAT_FOLDED ? wr_render_folded_time(stdout, c->r, s)
						: wr_render_pprof_time(stdout, c->r, s)) &&
		    !ferror(stdout))
			ret = fail("out of memory");
		else if (fflush(stdout) || ferror(stdout))
			ret = fail("cannot write the report: %s", strerror(errno));
	} else if (!ret) {
		if (!ro.ghz)
			ro.ghz = c->nominal_khz / 1e6;
		/* JSON is for tools: every row unless asked. */
		if (o->format == FORMAT_JSON && !o->top_given)
			ro.top = 0;
		if (o->format == FORMAT_HTML)
			ret = wr_html_cpi(stdout, c, &ro);
		else
			ret = o->format == FORMAT_JSON ? cpi_render_json(stdout, c, &ro)
						       : cpi_render_text(stdout, c, &ro);
		if (ret || fflush(stdout) || ferror(stdout))
			ret = fail("cannot write the report: %s", strerror(errno));
	}
	wr_sym_free(s);
	cpi_free(c);
	return ret;
}

/* The report of o's profiles, on stdout; its exit status. */
static int report(struct report_opts *o)
{
	struct wr_report *r = NULL;
	char err[1024];
	int ret = 0, i, ncausal = 0, ncpi = 0;

	for (i = 0; i < o->npaths; i++)
		ncpi += cpi_path(o->paths[i]);
	if (ncpi) {
		if (ncpi < o->npaths)
			ret = fail("witch cpi profiles and other profiles cannot be reported together; "
				   "run witch report on each kind separately");
		else if (o->fail_above)
			ret = gate_fail("--fail-above applies to record and spy profiles, whose "
					"redundancy it compares; %s holds witch cpi's, which measure time",
					o->paths[0]);
		else
			ret = check_top(o, "rows of each table") ? 1 : cpi_report(o);
		free(o->paths);
		return ret;
	}
	if (o->function || o->ghz) {
		ret = fail("--function and --ghz apply to witch cpi profiles, which %s does not hold",
			   o->paths[0]);
		free(o->paths);
		return ret;
	}
	for (i = 0; i < o->npaths; i++)
		ncausal += causal_path(o->paths[i]);
	if (ncausal && ncausal < o->npaths)
		ret = fail("causal profiles and witch record profiles cannot be reported together; "
			   "run witch report on each kind separately");
	else if (ncausal && o->fail_above)
		ret = gate_fail("--fail-above applies to record and spy profiles, whose redundancy it "
				"compares; %s holds causal profiles, which measure speedups", o->paths[0]);
	else if (ncausal && stacks_format(o->format))
		ret = fail("%s needs calling contexts, which causal profiles do not "
			   "record; %s holds causal profiles", stacks_name(o->format), o->paths[0]);
	else if (ncausal)
		ret = check_top(o, "lines") ? 1 : causal_report(o);
	else if (o->format == FORMAT_COZ)
		ret = fail("--format=coz is for causal profiles (witch causal); %s holds none",
			   o->paths[0]);
	if (ret || ncausal || (ret = check_top(o, "pairs"))) {
		free(o->paths);
		return ret;
	}
	r = wr_report_new();
	if (!r)
		ret = fail("out of memory");
	else if ((r->only_pid = o->pid, r->only_rank = o->rank,
		  wr_load(r, o->paths, o->npaths, err, sizeof(err))))
		ret = fail("%s", err);
	else if (o->pid && !r->nloaded)
		ret = fail("no profile of process %llu%s in the given paths; `witch report --format=json` "
			   "lists the processes", (unsigned long long)o->pid,
			   o->rank >= 0 ? " of that rank" : "");
	else if (o->rank >= 0 && !r->nloaded)
		ret = fail("no profile of rank %lld in the given paths; `witch report --format=json` "
			   "lists the ranks", (long long)o->rank);
	else if (wr_report_finish(r))
		ret = fail("out of memory");
	else if (o->by_rank && r->loops)
		ret = fail("--by-rank compares pairs; %s holds loops (tool loop): compare ranks with "
			   "--rank=N", o->paths[0]);
	else if (o->by_rank && wr_by_rank(r, o->top, err, sizeof(err)))
		ret = fail("%s", err);
	else if (r->loops && stacks_format(o->format))
		ret = fail("%s stacks pairs of contexts; %s holds loops (tool loop): use "
			   "--format=text or json", stacks_name(o->format), o->paths[0]);
	else if (o->fail_above && !gate_figure(r))
		ret = gate_fail("--fail-above applies to the waste tools' profiles (dead, silent, load, "
				"their spies, rvn) and to loop profiles; %s holds tool %s's", o->paths[0],
				r->tool->name);
	else if (!(ret = render(o, r)) && o->fail_above)
		/* After the report: a failing build shows why. */
		ret = gate_judge(r, o->fail_above, o->limit);
	wr_report_free(r);
	free(o->paths);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct report_out out;
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret) {
		free(o.paths);
		return ret < 0 ? 0 : ret;
	}
	if (o.out && report_out_open(&out, "witch report", o.out)) {
		free(o.paths);
		return 1;
	}
	ret = report(&o);
	/* A report above the gate's limit is complete: it shows why. */
	if (o.out && report_out_close(&out, "witch report", ret == 0 || ret == GATE_ABOVE))
		ret = 1;
	return ret;
}
