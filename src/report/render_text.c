/*
 * render_text.c - the report for people.
 *
 * Each finding is a pair of calling contexts: first on one line, root
 * first, as a quick way to recognise it, then leaf first with a source line
 * per frame, which is what one needs to go and fix it. Every number says
 * what it counts and what it is a fraction of.
 */
#include "report/names.h"
#include "report/ranks.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARROW		" \xe2\x86\x92 "	/* U+2192 RIGHTWARDS ARROW */
#define ELLIPSIS	"\xe2\x80\xa6"		/* U+2026 */
#define CHAIN_HEAD	3	/* root-side functions kept in a long chain */
#define CHAIN_TAIL	4	/* leaf-side ones */
#define DETAIL_HEAD	24	/* leaf-side frames kept in a deep context */
#define DETAIL_TAIL	4	/* root-side ones */
#define MAX_LISTED	8	/* pids, and tids per pid, listed by number */
#define LABEL_WIDTH	40	/* alignment stops growing here */
#define LOC_WIDTH	28
#define NAME_CAP	512	/* a short name; the full ones are not copied */

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static double bytes(uint64_t milli)
{
	return (double)milli / 1000.0;
}

/* Text from profiles and debug info may hold control bytes. */
void wr_text_printable(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* Quoted for a POSIX shell when needed, so that it can be pasted. */
static void put_shell_word(FILE *out, const char *s)
{
	const char *c;

	for (c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789%+,-./:=@_^", *c))
			break;
	if (*s && !*c) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (c = s; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", out);
		else
			fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c,
			      out);
	}
	fputc('\'', out);
}

static const char *module_label(const struct wr_report *r, int32_t module)
{
	const char *base;

	if (module < 0)
		return NULL;
	base = wr_basename(r->mods[module].path);
	return *base ? base : "?";
}

/* The function, or where the code is when its name is unknown. Short:
 * without template arguments and parameters, for the one-line chain. */
const char *wr_text_frame_label(const struct wr_report *r, const struct wr_frame *f, int brief,
			       char *buf, size_t cap)
{
	const char *mod = module_label(r, f->module);

	if (f->function)
		return brief ? wr_short_name(f->function, buf, cap) : f->function;
	if (mod)
		snprintf(buf, cap, "%s+0x%llx", mod,
			 (unsigned long long)f->offset);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)f->offset);
	return buf;
}

static const char *frame_location(const struct wr_frame *f, char *buf,
				  size_t cap)
{
	if (!f->file)
		return "??";
	if (f->line)
		snprintf(buf, cap, "%s:%d", wr_basename(f->file), f->line);
	else
		snprintf(buf, cap, "%s", wr_basename(f->file));
	return buf;
}

void wr_text_source(FILE *out, const struct wr_report *r)
{
	const char *src = r->source;

	if (r->tool->exhaustive) {
		int bursts;

		wr_stat(r, "instructions_judged", &bursts);
		if (bursts)
			fprintf(out, "exhaustive in bursts (every %s of a burst observed)", r->tool->access);
		else
			fprintf(out, "exhaustive (every %s observed)", r->tool->access);
		return;
	}
	if (!strcmp(src, "pmu"))
		src = "PMU";
	if (r->mixed_rates)
		fprintf(out, "%s sampling at mixed rates", src);
	else if (r->rate_hz)
		fprintf(out, "%s sampling at %llu Hz", src,
			(unsigned long long)r->rate_hz);
	else if (!strcmp(r->source, "timer"))
		fprintf(out, "timer sampling every %llu ns of CPU time",
			(unsigned long long)r->period);
	else
		fprintf(out, "%s sampling every %llu events", src,
			(unsigned long long)r->period);
	if (r->spread > 1)
		fprintf(out, ", each sample one of the next %llu %ss", (unsigned long long)r->spread,
			r->tool->access);
	if (r->reach)
		fprintf(out, " within %llu instructions", (unsigned long long)r->reach);
}

void wr_text_processes(FILE *out, const struct wr_report *r)
{
	size_t i, j;

	fputs(r->nthreads > 1 ? "merged:" : "from:", out);
	for (i = 0; i < r->nprocs && i < MAX_LISTED; i++) {
		const struct wr_process *p = &r->procs[i];

		fprintf(out, "%s pid %llu (%s", i ? "," : "",
			(unsigned long long)p->pid,
			plural(p->ntids, "tid", "tids"));
		for (j = 0; j < p->ntids && j < MAX_LISTED; j++)
			fprintf(out, " %llu", (unsigned long long)p->tids[j]);
		if (p->ntids > MAX_LISTED)
			fprintf(out, " and %zu more", p->ntids - MAX_LISTED);
		if (p->incomplete)
			fputs("; incomplete: written on a crash path", out);
		fputc(')', out);
	}
	if (r->nprocs > MAX_LISTED)
		fprintf(out, " and %zu more processes", r->nprocs - MAX_LISTED);
	fputc('\n', out);
	wr_text_ranks(out, r);
}

static int same_command(const struct wr_process *a, const struct wr_process *b)
{
	size_t i;

	if (a->nargs != b->nargs)
		return 0;
	for (i = 0; i < a->nargs; i++)
		if (strcmp(a->args[i], b->args[i]))
			return 0;
	return 1;
}

void wr_text_command(FILE *out, const struct wr_report *r)
{
	const struct wr_process *p = &r->procs[0];
	size_t i, others = 0;

	fputs("command:", out);
	for (i = 0; i < p->nargs; i++) {
		fputc(' ', out);
		put_shell_word(out, p->args[i]);
	}
	if (!p->nargs)
		fputs(" (not recorded)", out);
	for (i = 1; i < r->nprocs; i++)
		others += !same_command(p, &r->procs[i]);
	if (others)
		fprintf(out, "   (pid %llu; %zu other %s ran other commands)",
			(unsigned long long)p->pid, others,
			plural(others, "process", "processes"));
	fputc('\n', out);
}

/* ", NAME VALUE" for a stat that some profile had (and, if asked, > 0). */
static void stat_item(FILE *out, const struct wr_report *r, const char *stat,
		      const char *fmt, int only_nonzero, int *first)
{
	int present;
	uint64_t v = wr_stat(r, stat, &present);

	if (!present || (only_nonzero && !v))
		return;
	fputs(*first ? " (" : ", ", out);
	fprintf(out, fmt, (unsigned long long)v);
	*first = 0;
}

static void print_counts(FILE *out, const struct wr_report *r)
{
	const struct wr_tool *t = r->tool;
	char fmt[64];
	int first = 1;
	uint64_t v;
	int present;

	if (t->exhaustive) {
		uint64_t judged = wr_stat(r, "instructions_judged", &present), all;

		if (present) {
			/* rvn --burst: the redundancy is that of the bursts. */
			all = wr_stat(r, "instructions", NULL);
			fprintf(out, "%ss observed: %.1f%% (%llu of %llu, in %llu %s)\n", t->access,
				100.0 * (double)judged / (double)(all ? all : 1), (unsigned long long)judged,
				(unsigned long long)all, (unsigned long long)wr_stat(r, "bursts", NULL),
				plural(wr_stat(r, "bursts", NULL), "burst", "bursts"));
			return;
		}
		v = wr_stat(r, "bytes_accessed", &present);
		fprintf(out, "%ss observed: all", t->access);
		/* Bytes are what the access tools judge; rvn counts instructions. */
		if (present && !t->counts_executions)
			fprintf(out, "; bytes %s: %llu", t->accessed,
				(unsigned long long)v);
		fputc('\n', out);
		return;
	}
	fprintf(out, "samples: %llu",
		(unsigned long long)wr_stat(r, "samples", NULL));
	snprintf(fmt, sizeof(fmt), "no %s found after %%llu", t->access);
	stat_item(out, r, "samples_no_access", fmt, 0, &first);
	snprintf(fmt, sizeof(fmt), "%s out of reach %%llu", t->access);
	stat_item(out, r, "samples_out_of_reach", fmt, 1, &first);
	snprintf(fmt, sizeof(fmt), "implicit %ss skipped %%llu", t->access);
	stat_item(out, r, "samples_skipped_implicit", fmt, 0, &first);
	stat_item(out, r, "samples_reservoir_dropped",
		  "not watched (reservoir full) %llu", 1, &first);
	stat_item(out, r, "pmu_samples_other", "other accesses or ops %llu", 1, &first);
	stat_item(out, r, "pmu_samples_lost", "lost %llu", 1, &first);
	fputs(first ? "" : ")", out);
	fprintf(out, "; watchpoints armed: %llu",
		(unsigned long long)wr_stat(r, "watchpoints_armed", NULL));
	fprintf(out, "; traps: %llu",
		(unsigned long long)wr_stat(r, "traps", NULL));
	first = 1;
	stat_item(out, r, "traps_unresolved", "unresolved %llu", 0, &first);
	stat_item(out, r, "traps_lost", "lost %llu", 1, &first);
	fputs(first ? "" : ")", out);
	fputc('\n', out);
}

/* What the numbers do not cover, said once rather than hidden. */
void wr_text_caveats(FILE *out, const struct wr_report *r)
{
	uint64_t v;

	if ((v = wr_stat(r, "nodes_dropped", NULL)))
		fprintf(out, "note: %llu calling-context %s not recorded (the "
			"tree was full); their samples count in the totals only\n",
			(unsigned long long)v, plural(v, "node", "nodes"));
	if ((v = wr_stat(r, "threads_unsampled", NULL)))
		fprintf(out, "note: %llu %s could not be sampled (out of file "
			"descriptors or memory)\n", (unsigned long long)v,
			plural(v, "thread", "threads"));
	if (r->mixed_rates)
		fputs("note: the processes were sampled at different rates; "
		      "their samples are weighted alike\n", out);
	if ((v = wr_stat(r, "dropped", NULL)))
		fprintf(out, "note: %llu value %s forgotten (the table keeps each instruction's "
			"last few): what repeats an older one is not counted\n", (unsigned long long)v,
			plural(v, "number", "numbers"));
}

/* Tool rvn: redundant executions over all executions, per kind and for
 * all kinds together. */
static void print_kind_totals(FILE *out, const struct wr_report *r)
{
	struct wr_kind_total t[WR_KINDS + 1];
	char label[32];
	size_t i;

	wr_kind_totals(r, t);
	for (i = 0; i <= WR_KINDS; i++) {
		if (i < WR_KINDS)
			snprintf(label, sizeof(label), "%ss:", t[i].kind);
		else
			snprintf(label, sizeof(label), "%s kinds:", t[i].kind);
		fprintf(out, "redundant %-14s %5.1f%%  (%llu of %llu)\n", label,
			100.0 * wr_ratio(t[i].redundant, t[i].all), (unsigned long long)t[i].redundant,
			(unsigned long long)t[i].all);
	}
}

static void print_fraction(FILE *out, const struct wr_report *r)
{
	const struct wr_tool *t = r->tool;
	const char *unit = t->exhaustive ? "bytes" : "sample-weighted bytes";
	uint64_t all;
	int present;

	if (r->waste_milli + r->use_milli + r->approx_milli == 0) {
		fprintf(out, "%s: unknown: %s (waste 0 + use 0 %s)\n",
			t->fraction, t->exhaustive ? "no access was judged"
			: "no watchpoint was resolved", unit);
		return;
	}
	if (r->approx_milli == 0) {
		fprintf(out, "%s: %.1f%% of observed bytes (waste %.1f / (waste %.1f "
			"+ use %.1f) %s, WITCH Eq. 1 over %s)\n", t->fraction,
			100.0 * wr_redundancy(r->waste_milli, r->use_milli),
			bytes(r->waste_milli), bytes(r->waste_milli),
			bytes(r->use_milli), unit,
			t->exhaustive ? "all judged accesses" : "resolved watchpoints");
	} else {
		uint64_t sum = r->waste_milli + r->approx_milli + r->use_milli;

		fprintf(out, "%s: %.1f%% exactly + %.1f%% approximately (floating point) of "
			"observed bytes (waste %.1f + approximate waste %.1f of %.1f %s, "
			"WITCH Eq. 1 over %s)\n", t->fraction,
			100.0 * (double)r->waste_milli / (double)sum,
			100.0 * (double)r->approx_milli / (double)sum,
			bytes(r->waste_milli), bytes(r->approx_milli), bytes(sum), unit,
			t->exhaustive ? "all judged accesses" : "resolved watchpoints");
	}
	all = wr_stat(r, "bytes_accessed", &present);
	if (t->exhaustive && present && all)
		fprintf(out, "%s: %.1f%% of all bytes %s (waste %.1f / %llu "
			"bytes %s)\n", t->fraction,
			100.0 * bytes(r->waste_milli) / (double)all,
			t->accessed, bytes(r->waste_milli),
			(unsigned long long)all, t->accessed);
}

/* Frames every program or thread starts with: noise in the one-liner. */
static int is_startup(const struct wr_frame *f)
{
	static const char *const names[] = {
		"_start", "__libc_start_main", "__libc_start_main_impl",
		"__libc_start_call_main", "start_thread", "clone", "clone3", "__clone", "__clone3",
	};
	size_t i;

	for (i = 0; f->function && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f->function, names[i]))
			return 1;
	return 0;
}

void wr_text_chain(FILE *out, const struct wr_report *r,
			const struct wr_frame *f, long n)
{
	char buf[NAME_CAP];
	long k;

	if (n == 0) {
		fputs("(no frames)", out);
		return;
	}
	while (n > 1 && is_startup(&f[n - 1]))
		n--;
	for (k = 0; k < n; k++) {
		if (n > CHAIN_HEAD + CHAIN_TAIL + 1 && k == CHAIN_HEAD) {
			fputs(ARROW ELLIPSIS, out);
			k = n - CHAIN_TAIL - 1;
			continue;
		}
		if (k)
			fputs(ARROW, out);
		wr_text_printable(out, wr_text_frame_label(r, &f[n - 1 - k], 1, buf, sizeof(buf)));
	}
	if (f[0].file) {
		fputs(" (", out);
		wr_text_printable(out, frame_location(&f[0], buf, sizeof(buf)));
		fputc(')', out);
	}
}

static void widths(const struct wr_report *r, const struct wr_frame *f,
		   long n, int *wlabel, int *wloc)
{
	char buf[64];
	long i;

	for (i = 0; i < n; i++) {
		int l = (int)strlen(wr_text_frame_label(r, &f[i], 0, buf, sizeof(buf)));
		int c = (int)strlen(frame_location(&f[i], buf, sizeof(buf)));

		if (l > *wlabel)
			*wlabel = l < LABEL_WIDTH ? l : LABEL_WIDTH;
		if (c > *wloc)
			*wloc = c < LOC_WIDTH ? c : LOC_WIDTH;
	}
}

static void print_frame(FILE *out, const struct wr_report *r,
			const char *tag, const struct wr_frame *f,
			int wlabel, int wloc)
{
	char lbuf[64], cbuf[64], line[4096];
	const char *mod = module_label(r, f->module);
	int n;

	n = snprintf(line, sizeof(line), "    %-6s %-*s  %-*s", tag, wlabel,
		     wr_text_frame_label(r, f, 0, lbuf, sizeof(lbuf)), wloc,
		     frame_location(f, cbuf, sizeof(cbuf)));
	if (n > 0 && (size_t)n < sizeof(line) && f->first)
		n += snprintf(line + n, sizeof(line) - n, "  [%s%s0x%llx]",
			      mod ? mod : "", mod ? "+" : "",
			      (unsigned long long)f->offset);
	if (n > 0 && (size_t)n < sizeof(line) && f->inlined)
		snprintf(line + n, sizeof(line) - n, "  (inlined)");
	n = (int)strlen(line);
	while (n > 0 && line[n - 1] == ' ')
		line[--n] = '\0';
	wr_text_printable(out, line);
	fputc('\n', out);
}

static void print_frames(FILE *out, const struct wr_report *r,
			 const char *tag, const struct wr_frame *f, long n,
			 int wlabel, int wloc)
{
	long i;

	for (i = 0; i < n; i++) {
		if (n > DETAIL_HEAD + DETAIL_TAIL + 1 && i == DETAIL_HEAD) {
			fprintf(out, "           %s %ld more frames\n", ELLIPSIS,
				n - DETAIL_HEAD - DETAIL_TAIL);
			i = n - DETAIL_TAIL - 1;
			continue;
		}
		print_frame(out, r, i ? "" : tag, &f[i], wlabel, wloc);
	}
	if (n == 0)
		fprintf(out, "    %-6s (no frames)\n", tag);
}

int wr_text_contexts(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		     const struct wr_pair *pr, const char *relation, const char *const tags[2])
{
	const struct wr_frame *tf;
	struct wr_frame *wf;
	long nw, nt;
	int wlabel = 8, wloc = 4;

	/* The symbolizer's array is reused by the next call: copy. */
	nw = wr_sym_context(s, pr->watch, &tf);
	if (nw < 0)
		return -1;
	wf = malloc((size_t)(nw ? nw : 1) * sizeof(*wf));
	if (!wf)
		return -1;
	memcpy(wf, tf, (size_t)nw * sizeof(*wf));
	nt = wr_sym_context(s, pr->trap, &tf);
	if (nt < 0) {
		free(wf);
		return -1;
	}
	fputs("  ", out);
	wr_text_chain(out, r, wf, nw);
	fprintf(out, "  %s  ", relation);
	wr_text_chain(out, r, tf, nt);
	fputc('\n', out);
	widths(r, wf, nw, &wlabel, &wloc);
	widths(r, tf, nt, &wlabel, &wloc);
	print_frames(out, r, tags[0], wf, nw, wlabel, wloc);
	print_frames(out, r, tags[1], tf, nt, wlabel, wloc);
	free(wf);
	return 0;
}

static void print_waste_head(FILE *out, const struct wr_report *r, const struct wr_pair *pr,
			     size_t rank)
{
	fprintf(out, "\n#%zu  %.1f%% of waste   (waste %.1f, ", rank + 1,
		100.0 * wr_share(r, pr), bytes(pr->waste_milli));
	if (pr->approx_milli)
		fprintf(out, "approximate waste %.1f, ", bytes(pr->approx_milli));
	fprintf(out, "use %.1f, %llu %s)\n", bytes(pr->use_milli),
		(unsigned long long)pr->count, r->tool->exhaustive
		? plural(pr->count, "occurrence", "occurrences")
		: plural(pr->count, "trap", "traps"));
}

static int print_pair(FILE *out, const struct wr_report *r,
		      struct wr_symbolizer *s, size_t rank)
{
	static const char *const access_tags[2] = { "watch:", "trap:" };
	/* The instruction that computed a value first, and the one that
	 * computed it again. */
	static const char *const value_tags[2] = { "first:", "again:" };
	const struct wr_pair *pr = &r->pairs[r->ranked[rank]];
	int ret;

	if (!r->tool->counts_executions) {
		print_waste_head(out, r, pr, rank);
		ret = wr_text_contexts(out, r, s, pr, r->tool->relation, access_tags);
	} else {
		fprintf(out, "\n#%zu  %.1f%% of redundant executions   (%s, %llu redundant)\n",
			rank + 1, 100.0 * wr_share(r, pr), wr_kind_name(pr->kind),
			(unsigned long long)pr->count);
		ret = wr_text_contexts(out, r, s, pr, r->tool->relation, value_tags);
	}
	wr_text_pair_ranks(out, r, rank);
	return ret;
}

int wr_render_text(FILE *out, const struct wr_report *r,
		   struct wr_symbolizer *s, size_t top)
{
	/* A pair with no waste is not a finding, only a denominator. */
	size_t shown = top && top < r->nwaste ? top : r->nwaste;
	const char *weight = r->tool->counts_executions ? "redundant executions" : "waste";
	uint64_t shown_weight = 0;
	size_t i;

	fprintf(out, "witch report: %s (%s", r->tool->what, r->tool->method);
	if (r->by)
		fprintf(out, ", by %s", r->by);
	fputs("), ", out);
	wr_text_source(out, r);
	fprintf(out, ", %zu %s, %zu %s\n", r->nprocs,
		plural(r->nprocs, "process", "processes"), r->nthreads,
		plural(r->nthreads, "thread", "threads"));
	wr_text_processes(out, r);
	wr_text_command(out, r);
	print_counts(out, r);
	wr_text_caveats(out, r);
	if (r->tool->counts_executions)
		print_kind_totals(out, r);
	else
		print_fraction(out, r);

	if (!r->nwaste) {
		fprintf(out, "\nno %s observed", r->tool->what);
		if (!r->tool->exhaustive && !wr_stat(r, "samples", NULL))
			fputs(" (no sample was taken: the program may have run "
			      "too briefly, or its threads could not be "
			      "sampled)", out);
		fputc('\n', out);
		return 0;
	}
	for (i = 0; i < shown; i++) {
		if (print_pair(out, r, s, i))
			return -1;
		shown_weight += wr_weight(r, &r->pairs[r->ranked[i]]);
	}
	if (shown < r->nwaste)
		fprintf(out, "\nshowing %zu of %zu pairs with %s (%.1f%% of all %s); --top=N shows "
			"more\n", shown, r->nwaste, weight,
			100.0 * wr_ratio(shown_weight, wr_total_weight(r)), weight);
	return 0;
}
