/*
 * loop_text.c - tool loop's report for people: what was judged and by
 * which thresholds, then the loops, flagged ones first, each with where
 * it is, how it was called, its counters and the loads it re-read.
 *
 * Loops that read nothing are left out here (they cannot re-read; the
 * JSON report keeps them).
 */
#include "report/loop.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdlib.h>
#include <string.h>

#define NAME_CAP	512
#define SITE_WIDTH	32	/* alignment of the loads' columns stops growing here */

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static double percent(uint64_t part, uint64_t whole)
{
	return 100.0 * wr_ratio(part, whole);
}

/* "app.c:12-20", "app.c:12", "app.c" or "??": where a loop is. */
static const char *loop_lines(const struct wr_loop *lp, char *buf, size_t cap)
{
	const char *file = lp->file ? wr_basename(lp->file) : "??";

	if (!lp->first_line)
		snprintf(buf, cap, "%s", file);
	else if (lp->first_line == lp->last_line)
		snprintf(buf, cap, "%s:%u", file, lp->first_line);
	else
		snprintf(buf, cap, "%s:%u-%u", file, lp->first_line, lp->last_line);
	return buf;
}

/* The thresholds in words, on three lines: what each one decides. */
static void print_thresholds(FILE *out, const struct wr_report *r)
{
	const struct wp_thresholds *t = &r->thresholds;
	char buf[96];

	fprintf(out, "thresholds %s: an iteration of at least %llu %s is data-intensive, and "
		"redundant\n", wr_loop_thresholds(t, buf, sizeof(buf)), (unsigned long long)t->a,
		plural(t->a, "read", "reads"));
	fprintf(out, "  when at least %g%% of its reads were of an (address, value) an earlier "
		"iteration read;\n", 100.0 * t->r / WP_BILLION);
	fprintf(out, "  a loop is flagged when at least %g%% of its data-intensive iterations are "
		"redundant\n", 100.0 * t->ri / WP_BILLION);
}

static void print_totals(FILE *out, const struct wr_report *r)
{
	const struct wr_loops *l = r->loops;
	uint64_t reads = wr_stat(r, "reads", NULL), in_loops = wr_stat(r, "reads_in_loops", NULL);
	uint64_t v;

	fprintf(out, "reads: %llu, %llu in loops (%.1f%%), %llu redundant (%.1f%% of all reads)\n",
		(unsigned long long)reads, (unsigned long long)in_loops, percent(in_loops, reads),
		(unsigned long long)l->redundant_reads, percent(l->redundant_reads, reads));
	if ((v = wr_stat(r, "reads_untracked", NULL)))
		fprintf(out, "note: %llu %s not tracked: a loop's read set was full, so %s could not "
			"be found redundant later\n", (unsigned long long)v,
			plural(v, "read was", "reads were"), plural(v, "it", "they"));
	if ((v = wr_stat(r, "loops_untracked", NULL)))
		fprintf(out, "note: %llu %s of loop headers not counted: more loops were active at "
			"once than a thread keeps track of\n", (unsigned long long)v,
			plural(v, "visit", "visits"));
	if ((v = wr_stat(r, "reads_unattributed", NULL)))
		fprintf(out, "note: %llu redundant %s counted for %s loops but not by load: more "
			"nestings of loops ran than a run tells apart\n", (unsigned long long)v,
			plural(v, "read was", "reads were"), plural(v, "its", "their"));
	if ((v = wr_stat(r, "modules_unmapped", NULL)))
		fprintf(out, "note: the loops of %llu %s could not be found (`witch loops` made no map; "
			"witch spy -v shows why), so none of %s loops were watched\n", (unsigned long long)v,
			plural(v, "module", "modules"), plural(v, "its", "their"));
	fprintf(out, "loops: %zu flagged, of %zu that read (each loop once per calling context)\n",
		l->nflagged, l->nreading);
}

/* "#1  flagged  find  (app.c:12-20)" and the context below it. */
static int print_head(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		      const struct wr_loop_row *row, size_t rank)
{
	const struct wr_loop *lp = &r->loops->loops[row->loop];
	const struct wr_frame *f;
	char name[NAME_CAP], where[NAME_CAP];
	long n = wr_sym_context(s, row->ctx, &f);

	if (n < 0)
		return -1;
	fprintf(out, "\n#%zu  %s", rank + 1, row->flagged ? "flagged  " : "");
	if (n > 0)
		wr_text_printable(out, wr_text_frame_label(r, &f[0], 1, name, sizeof(name)));
	else
		fprintf(out, "0x%llx", (unsigned long long)lp->header);
	fputs("  (", out);
	wr_text_printable(out, loop_lines(lp, where, sizeof(where)));
	fprintf(out, ")   %llu of %llu %s redundant (%.1f%%)\n",
		(unsigned long long)row->redundant_reads, (unsigned long long)row->reads,
		plural(row->reads, "read", "reads"), percent(row->redundant_reads, row->reads));
	fputs("    context:         ", out);
	wr_text_chain(out, r, f, n);
	fputc('\n', out);
	if (lp->parent != WR_NONE) {
		fputs("    nested:          in loop at ", out);
		wr_text_printable(out, loop_lines(&r->loops->loops[lp->parent], where, sizeof(where)));
		fputc('\n', out);
	}
	return 0;
}

static void print_counters(FILE *out, const struct wr_report *r, const struct wr_loop_row *row)
{
	char ri[24];

	fprintf(out, "    invocations:     %llu\n", (unsigned long long)row->invocations);
	fprintf(out, "    iterations:      %llu, %.1f reads each\n",
		(unsigned long long)row->iterations,
		row->iterations ? (double)row->reads / (double)row->iterations : 0.0);
	fprintf(out, "    data-intensive:  %llu, of which redundant %llu", (unsigned long long)row->data_iterations,
		(unsigned long long)row->redundant_iterations);
	if (row->data_iterations)
		fprintf(out, ": ratio %.2f %s RI %s", wr_ratio(row->redundant_iterations,
							   row->data_iterations),
			row->flagged ? ">=" : "<", wr_loop_fraction(r->thresholds.ri, ri, sizeof(ri)));
	fputc('\n', out);
}

/* The row's top redundant loads: function, file:line, redundant reads. */
static int print_loads(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		       uint32_t rowi)
{
	struct wr_loop_site sites[WR_LOOP_TOP_READS];
	char names[WR_LOOP_TOP_READS][NAME_CAP], where[WR_LOOP_TOP_READS][NAME_CAP];
	int wname = 8, wwhere = 4;
	long n = wr_loop_top_reads(s, r, rowi, sites, WR_LOOP_TOP_READS), i;

	if (n <= 0)
		return (int)n;
	for (i = 0; i < n; i++) {
		struct wr_frame fr = { .function = sites[i].function, .module = sites[i].module,
				       .offset = sites[i].offset };
		const char *name = wr_text_frame_label(r, &fr, 1, names[i], NAME_CAP);

		if (name != names[i])
			snprintf(names[i], NAME_CAP, "%s", name);
		if (!sites[i].file)
			snprintf(where[i], NAME_CAP, "??");
		else if (sites[i].line)
			snprintf(where[i], NAME_CAP, "%s:%d", wr_basename(sites[i].file), sites[i].line);
		else
			snprintf(where[i], NAME_CAP, "%s", wr_basename(sites[i].file));
		if ((int)strlen(names[i]) > wname)
			wname = (int)strlen(names[i]) < SITE_WIDTH ? (int)strlen(names[i]) : SITE_WIDTH;
		if ((int)strlen(where[i]) > wwhere)
			wwhere = (int)strlen(where[i]) < SITE_WIDTH ? (int)strlen(where[i]) : SITE_WIDTH;
	}
	fputs("    top redundant loads:\n", out);
	for (i = 0; i < n; i++) {
		char line[2 * NAME_CAP + 64];

		snprintf(line, sizeof(line), "      %-*s  %-*s  %llu", wname, names[i], wwhere,
			 where[i], (unsigned long long)sites[i].redundant_reads);
		wr_text_printable(out, line);
		fputc('\n', out);
	}
	return 0;
}

int wr_loop_render_text(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			size_t top)
{
	const struct wr_loops *l = r->loops;
	size_t i, shown = 0;

	fprintf(out, "witch report: %s (%s), %zu %s, %zu %s\n", r->tool->what, r->tool->method,
		r->nprocs, plural(r->nprocs, "process", "processes"), r->nthreads,
		plural(r->nthreads, "thread", "threads"));
	wr_text_processes(out, r);
	wr_text_command(out, r);
	print_thresholds(out, r);
	print_totals(out, r);
	if (!l->nreading) {
		fputs("\nno loop read anything\n", out);
		return 0;
	}
	if (!l->nflagged)
		fputs("\nno loop flagged; the loops with the most redundant reads:\n", out);
	for (i = 0; i < l->nrows && (!top || shown < top); i++) {
		uint32_t rowi = l->ranked[i];
		const struct wr_loop_row *row = &l->rows[rowi];

		if (!row->reads)
			continue;
		if (print_head(out, r, s, row, shown))
			return -1;
		print_counters(out, r, row);
		if (print_loads(out, r, s, rowi))
			return -1;
		shown++;
	}
	if (shown < l->nreading)
		fprintf(out, "\nshowing %zu of %zu loops that read; --top=N shows more\n", shown,
			l->nreading);
	return 0;
}
