/*
 * share_text.c - tool share's report for people: the pairs of contexts
 * that shared cache lines, false sharing and true sharing ranked
 * together by how often they were seen per second of the threads' CPU
 * time, each with the lines it was seen on and what they hold.
 */
#include "report/render.h"
#include "report/report.h"
#include "report/share.h"
#include "report/symbolize.h"

#include <stdint.h>
#include <string.h>

#define LINES_SHOWN 3	/* lines per pair; the rest are summed */

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_counts(FILE *out, const struct wr_report *r)
{
	fprintf(out, "samples: %llu (stores published to the other threads %llu, to the thread's "
		"own frames %llu); watches on other threads' stores: %llu (ended untripped %llu); "
		"traps: %llu\n", (unsigned long long)wr_stat(r, "samples", NULL),
		(unsigned long long)wr_stat(r, "shared_samples", NULL),
		(unsigned long long)wr_stat(r, "private_samples", NULL),
		(unsigned long long)wr_stat(r, "share_watches", NULL),
		(unsigned long long)wr_stat(r, "share_expired", NULL),
		(unsigned long long)wr_stat(r, "traps", NULL));
}

static void print_totals(FILE *out, const struct wr_report *r)
{
	const struct wr_shares *sh = r->shares;

	fprintf(out, "sharing: %.1f per CPU-second (false sharing %.1f, true sharing %.1f), over "
		"%.2f s of the threads' CPU time\n",
		wr_share_rate(r, sh->false_milli + sh->true_milli), wr_share_rate(r, sh->false_milli),
		wr_share_rate(r, sh->true_milli), wr_share_cpu_seconds(r));
}

/* " (adjacent+8)", " (block+8)" or nothing: what byte off of l is. */
static void print_place(FILE *out, struct wr_symbolizer *s, const struct wr_report *r,
			const struct wr_share_line *l, unsigned off)
{
	struct wr_share_at at;

	wr_share_at(s, r, l, off, &at);
	if (at.place == WR_PLACE_VARIABLE) {
		fputs(" (", out);
		wr_text_printable(out, at.variable);
		fprintf(out, "+%llu)", (unsigned long long)at.offset);
	} else if (at.place == WR_PLACE_HEAP) {
		fprintf(out, " (block+%llu)", (unsigned long long)at.offset);
	}
}

static int print_line(FILE *out, struct wr_symbolizer *s, const struct wr_report *r,
		      const struct wr_share_line *l, int several)
{
	const struct wr_frame *f;
	long n;

	if (l->module >= 0) {
		fputs("    line ", out);
		wr_text_printable(out, wr_basename(r->mods[l->module].path));
		fprintf(out, "+0x%llx", (unsigned long long)l->line);
	} else {
		fprintf(out, "    line 0x%llx", (unsigned long long)l->line);
	}
	if (l->module < 0 && l->block) {
		fprintf(out, ", in a heap block of %llu %s", (unsigned long long)l->block_size,
			plural(l->block_size, "byte", "bytes"));
		if (l->site != WR_NONE) {
			if ((n = wr_sym_context(s, l->site, &f)) < 0)
				return -1;
			fputs(" allocated at ", out);
			wr_text_chain(out, r, f, n);
		}
	}
	fprintf(out, ": store at bytes %u-%u", l->woff, l->woff + l->wlen - 1);
	print_place(out, s, r, l, l->woff);
	fprintf(out, ", other access at bytes %u-%u", l->toff, l->toff + l->tlen - 1);
	print_place(out, s, r, l, l->toff);
	if (several)
		fprintf(out, "   (%.1f per CPU-second, %llu %s)", wr_share_rate(r, l->weight_milli),
			(unsigned long long)l->count, plural(l->count, "trap", "traps"));
	fputc('\n', out);
	return 0;
}

static int print_pair(FILE *out, struct wr_symbolizer *s, const struct wr_report *r, size_t rank)
{
	static const char *const tags[2] = { "store:", "other:" };
	const struct wr_shares *sh = r->shares;
	uint32_t p = r->ranked[rank];
	const struct wr_pair *pr = &r->pairs[p];
	size_t from = sh->pair_lines[p], to = sh->pair_lines[p + 1], i;
	uint64_t rest = 0, rest_count = 0;

	fprintf(out, "\n#%zu  %.1f%% of sharing   %s, %.1f per CPU-second   (%llu %s)\n", rank + 1,
		100.0 * wr_share(r, pr), wr_share_kind_name(pr->kind),
		wr_share_rate(r, pr->waste_milli), (unsigned long long)pr->count,
		plural(pr->count, "trap", "traps"));
	if (wr_text_contexts(out, r, s, pr, wr_share_relation(pr->kind), tags))
		return -1;
	for (i = from; i < to; i++) {
		const struct wr_share_line *l = &sh->lines[sh->by_pair[i]];

		if (i - from < LINES_SHOWN) {
			if (print_line(out, s, r, l, to - from > 1))
				return -1;
			continue;
		}
		rest += l->weight_milli;
		rest_count += l->count;
	}
	if (to - from > LINES_SHOWN)
		fprintf(out, "    and %zu more lines (%.1f per CPU-second, %llu %s)\n",
			to - from - LINES_SHOWN, wr_share_rate(r, rest), (unsigned long long)rest_count,
			plural(rest_count, "trap", "traps"));
	return 0;
}

void wr_share_reading(FILE *out)
{
	fputs("reading it: a finding is a sampled store and another thread's access to the "
	      "same 64-byte cache\n"
	      "line within that thread's next sampling period: false sharing when their bytes "
	      "differ, true\n"
	      "sharing when they overlap. Its rate is how often per second of the threads' CPU "
	      "time such an\n"
	      "access followed a sampled store, each 8-byte word of the line counted (one word is "
	      "watched,\n"
	      "drawn at random); it grows with --rate: compare the findings of one profile, or of "
	      "profiles\n"
	      "taken at the same rate. False sharing goes when the data each thread writes get "
	      "lines of\n"
	      "their own (padding, alignment); true sharing when threads share less (per-thread "
	      "copies).\n", out);
}

int wr_share_render_text(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			 size_t top)
{
	size_t shown = top && top < r->nwaste ? top : r->nwaste, i;
	uint64_t shown_weight = 0;

	fprintf(out, "witch report: %s (%s), ", r->tool->what, r->tool->method);
	wr_text_source(out, r);
	fprintf(out, ", %zu %s, %zu %s\n", r->nprocs, plural(r->nprocs, "process", "processes"),
		r->nthreads, plural(r->nthreads, "thread", "threads"));
	wr_text_processes(out, r);
	wr_text_command(out, r);
	print_counts(out, r);
	wr_text_caveats(out, r);
	print_totals(out, r);
	if (r->shares->most_threads < 2) {
		fputs("\nnothing to find: sharing needs two threads of one process, and each "
		      "process here had one\n", out);
		return 0;
	}
	if (!r->nwaste) {
		fprintf(out, "\nno sharing found: no thread accessed the cache line of another's "
			"sampled store (%llu %s)\n",
			(unsigned long long)wr_stat(r, "share_watches", NULL),
			plural(wr_stat(r, "share_watches", NULL), "watch", "watches"));
		return 0;
	}
	for (i = 0; i < shown; i++) {
		if (print_pair(out, s, r, i))
			return -1;
		shown_weight += r->pairs[r->ranked[i]].waste_milli;
	}
	if (shown < r->nwaste)
		fprintf(out, "\nshowing %zu of %zu pairs (%.1f%% of all sharing); --top=N shows more\n",
			shown, r->nwaste, 100.0 * wr_ratio(shown_weight, wr_total_weight(r)));
	fputc('\n', out);
	wr_share_reading(out);
	return 0;
}
