/*
 * outname.c - output file names (outname.h).
 */
#include "core/fmt.h"
#include "core/outname.h"

#define MAX_IMAGES 1000	/* execs of one process that each leave a file */

static int ranked(const struct core_job *j)
{
	return j && j->rank >= 0;
}

void core_outname_put(const struct core_outname *o, unsigned n, char *dst, size_t cap)
{
	struct core_fmt f;
	const char *h;

	core_fmt_init(&f, dst, cap - 1, NULL, NULL);
	core_fmt_str(&f, o->dir);
	core_fmt_str(&f, "/");
	core_fmt_str(&f, o->stem);
	if (ranked(o->job)) {
		core_fmt_bytes(&f, &o->sep, 1);
		core_fmt_str(&f, "h");
		for (h = o->job->host; *h; h++) {
			char c = core_job_name_char(*h);

			core_fmt_bytes(&f, &c, 1);
		}
		core_fmt_bytes(&f, &o->sep, 1);
		core_fmt_str(&f, "r");
		core_fmt_u64(&f, (uint64_t)o->job->rank);
	}
	core_fmt_bytes(&f, &o->sep, 1);
	core_fmt_u64(&f, o->pid);
	if (n) {
		core_fmt_bytes(&f, &o->sep, 1);
		core_fmt_u64(&f, n);
	}
	core_fmt_str(&f, o->suffix);
	dst[f.len] = 0;
}

unsigned core_outname_free(const struct core_outname *o, char *dst, size_t cap,
			   int (*exists)(const char *path))
{
	unsigned n;

	for (n = 0; n < MAX_IMAGES - 1; n++) {
		core_outname_put(o, n, dst, cap);
		if (!exists(dst))
			return n;
	}
	core_outname_put(o, n, dst, cap);
	return n;
}

static size_t length(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The start of the digits that end at end (exclusive), or end: none. */
static size_t digits_before(const char *s, size_t end)
{
	while (end > 0 && is_digit(s[end - 1]))
		end--;
	return end;
}

/* Whether <sep>r<digits> ends at end; its start in *at and value in *rank. */
static int rank_before(const char *s, size_t end, char sep, size_t *at, uint64_t *rank)
{
	size_t d = digits_before(s, end), i;

	if (d == end || d < 2 || s[d - 1] != 'r' || s[d - 2] != sep || end - d > 18)
		return 0;
	*rank = 0;
	for (i = d; i < end; i++)
		*rank = *rank * 10 + (uint64_t)(s[i] - '0');
	*at = d - 2;
	return 1;
}

long core_outname_rank_tail(const char *name, char sep, const char *suffix, uint64_t *rank)
{
	size_t n = length(name), m = length(suffix), end, d, at, k;

	if (n <= m)
		return -1;
	for (k = 0; k < m; k++)
		if (name[n - m + k] != suffix[k])
			return -1;
	end = n - m;
	/* PID, or N after it: one or two groups of digits. */
	for (k = 0; k < 2; k++) {
		d = digits_before(name, end);
		if (d == end || d == 0 || name[d - 1] != sep)
			return -1;
		end = d - 1;
		if (rank_before(name, end, sep, &at, rank))
			return (long)at;
	}
	return -1;
}

int core_outname_of_job(const char *name, char sep, const char *suffix, const struct core_job *job)
{
	uint64_t rank;
	long at = core_outname_rank_tail(name, sep, suffix, &rank);
	size_t h = length(job->host), i;

	if (!ranked(job) || at < 0 || rank != (uint64_t)job->rank || (size_t)at < h + 2)
		return 0;
	/* <sep>h<host> right before the tail. */
	for (i = 0; i < h; i++)
		if (name[(size_t)at - h + i] != core_job_name_char(job->host[i]))
			return 0;
	return name[(size_t)at - h - 1] == 'h' && name[(size_t)at - h - 2] == sep;
}
