/*
 * lines.c - the line table the CLI writes (docs/causal.md section 1): in-scope
 * modules, source lines, address ranges and breakpoint progress points.
 *
 * Loaded once at start (malloc is fine there). Modules are matched against
 * the loaded objects by real path; the ranges of resolved modules are
 * published as one sorted array of run-time ranges, which the sample path
 * searches without locks.
 */
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "causal/causal.h"

struct range {
	uintptr_t lo, hi;
	int line;
};

struct module {
	char *path;		/* real path */
	int resolved;
	uintptr_t bias;
	struct range *ranges;	/* link-time */
	int nranges, cap;
};

struct rt_table {
	struct range *r;
	int n;
	uintptr_t text_lo[64], text_hi[64];	/* executable segments of the modules */
	int ntext;
};

int wc_nlines;
struct wc_line *wc_lines;
uint64_t *wc_line_samples;
uint64_t *wc_line_callers;
int wc_nbps;
struct wc_bp wc_bps[WC_MAX_BREAKPOINTS];

static struct module *mods;
static int nmods;
static struct {
	int module;
	uintptr_t addr;
} bp_link[WC_MAX_BREAKPOINTS];
static struct rt_table *table;	/* published (atomic pointer) */

static char *read_all(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 1 << 16;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* Split a line in place at tabs; returns the number of fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

static char *dup_real(const char *path)
{
	char buf[PATH_MAX];

	return strdup(realpath(path, buf) ? buf : path);
}

int wc_lines_load(const char *path)
{
	char *text = read_all(path), *line, *save = NULL, *f[6];
	int n, header = 0;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = split(line, f, 6);
		if (!header) {
			if (n < 2 || strcmp(f[0], "witch-causal-lines") || strcmp(f[1], "1"))
				goto bad;
			header = 1;
		} else if (!strcmp(f[0], "module") && n >= 3) {
			int id = atoi(f[1]);

			if (id < 0 || id > 4096)
				goto bad;
			if (id >= nmods) {
				struct module *m = realloc(mods, sizeof(*m) * (size_t)(id + 1));

				if (!m)
					goto bad;
				memset(m + nmods, 0, sizeof(*m) * (size_t)(id + 1 - nmods));
				mods = m;
				nmods = id + 1;
			}
			mods[id].path = dup_real(f[2]);
		} else if (!strcmp(f[0], "line") && n >= 3) {
			int id = atoi(f[1]);

			if (id < 0 || id > 10000000)
				goto bad;
			if (id >= wc_nlines) {
				struct wc_line *l = realloc(wc_lines, sizeof(*l) * (size_t)(id + 1));

				if (!l)
					goto bad;
				memset(l + wc_nlines, 0, sizeof(*l) * (size_t)(id + 1 - wc_nlines));
				wc_lines = l;
				wc_nlines = id + 1;
			}
			wc_lines[id].loc = strdup(f[2]);
			wc_lines[id].function = strdup(n >= 4 ? f[3] : "");
		} else if (!strcmp(f[0], "range") && n >= 5) {
			int m = atoi(f[1]), id = atoi(f[4]);
			struct module *mod;

			if (m < 0 || m >= nmods || id < 0 || id >= wc_nlines)
				goto bad;
			mod = &mods[m];
			if (mod->nranges == mod->cap) {
				int cap = mod->cap ? mod->cap * 2 : 256;
				struct range *r = realloc(mod->ranges, sizeof(*r) * (size_t)cap);

				if (!r)
					goto bad;
				mod->ranges = r;
				mod->cap = cap;
			}
			mod->ranges[mod->nranges].lo = strtoull(f[2], NULL, 16);
			mod->ranges[mod->nranges].hi = strtoull(f[3], NULL, 16);
			mod->ranges[mod->nranges].line = id;
			mod->nranges++;
		} else if (!strcmp(f[0], "progress") && n >= 4) {
			int m = atoi(f[1]);

			if (m < 0 || m >= nmods)
				goto bad;
			if (wc_nbps < WC_MAX_BREAKPOINTS) {
				struct wc_bp *bp = &wc_bps[wc_nbps];

				bp_link[wc_nbps].module = m;
				bp_link[wc_nbps].addr = strtoull(f[2], NULL, 16);
				strncpy(bp->name, f[3], WC_NAME_MAX - 1);
				for (bp->point = 0; strcmp(wc_bps[bp->point].name, bp->name);)
					bp->point++;
				wc_nbps++;
			}
		}
		/* Unknown records are for newer readers. */
	}
	free(text);
	if (!header)
		return -1;
	wc_line_samples = calloc((size_t)(wc_nlines ? wc_nlines : 1), sizeof(uint64_t));
	wc_line_callers = calloc((size_t)(wc_nlines ? wc_nlines : 1), sizeof(uint64_t));
	return wc_line_samples && wc_line_callers ? 0 : -1;
bad:
	free(text);
	return -1;
}

struct scan {
	char exe[PATH_MAX];
	struct rt_table *t;
};

static int on_object(struct dl_phdr_info *info, size_t size, void *p)
{
	struct scan *s = p;
	char real[PATH_MAX];
	const char *name = info->dlpi_name;
	int i, j;

	(void)size;
	if (!name || !*name)
		name = s->exe;
	if (!realpath(name, real))
		return 0;
	for (i = 0; i < nmods; i++) {
		if (!mods[i].path || strcmp(mods[i].path, real))
			continue;
		if (!mods[i].resolved) {
			mods[i].bias = info->dlpi_addr;
			mods[i].resolved = 1;
		}
		for (j = 0; j < info->dlpi_phnum; j++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[j];

			if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && s->t->ntext < 64) {
				s->t->text_lo[s->t->ntext] = info->dlpi_addr + ph->p_vaddr;
				s->t->text_hi[s->t->ntext] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
				s->t->ntext++;
			}
		}
	}
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Tables replaced by a rescan stay allocated: a handler may be reading one. */
void wc_lines_resolve(void)
{
	struct scan s;
	struct rt_table *t;
	int i, j, n = 0;
	ssize_t k;

	t = calloc(1, sizeof(*t));
	if (!t)
		return;
	k = readlink("/proc/self/exe", s.exe, sizeof(s.exe) - 1);
	s.exe[k > 0 ? k : 0] = 0;
	s.t = t;
	dl_iterate_phdr(on_object, &s);
	for (i = 0; i < nmods; i++)
		if (mods[i].resolved)
			n += mods[i].nranges;
	t->r = malloc(sizeof(*t->r) * (size_t)(n ? n : 1));
	if (!t->r) {
		free(t);
		return;
	}
	for (i = 0; i < nmods; i++) {
		if (!mods[i].resolved)
			continue;
		for (j = 0; j < mods[i].nranges; j++) {
			t->r[t->n] = mods[i].ranges[j];
			t->r[t->n].lo += mods[i].bias;
			t->r[t->n].hi += mods[i].bias;
			t->n++;
		}
	}
	qsort(t->r, (size_t)t->n, sizeof(*t->r), by_lo);
	for (i = 0; i < wc_nbps; i++) {
		struct module *m = &mods[bp_link[i].module];

		if (m->resolved && !wc_bps[i].resolved) {
			wc_bps[i].addr = bp_link[i].addr + m->bias;
			wc_bps[i].resolved = 1;
		}
	}
	__atomic_store_n(&table, t, __ATOMIC_RELEASE);
}

int wc_lines_unresolved(void)
{
	int i, n = 0;

	for (i = 0; i < nmods; i++)
		n += mods[i].path && !mods[i].resolved;
	return n;
}

int wc_line_of(uintptr_t pc)
{
	struct rt_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	int lo = 0, hi;

	if (!t)
		return -1;
	hi = t->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (t->r[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->r[lo].lo <= pc && pc < t->r[lo].hi)
		return t->r[lo].line;
	return -1;
}

/* Does a call instruction end right before `ra`? The bytes are in-scope code. */
static int after_call(const struct rt_table *t, uintptr_t ra)
{
	const unsigned char *p = (const unsigned char *)ra;
	int i, ok = 0;

	for (i = 0; i < t->ntext; i++)
		if (ra - 7 >= t->text_lo[i] && ra <= t->text_hi[i])
			ok = 1;
	if (!ok)
		return 0;
	if (p[-5] == 0xe8)					/* call rel32 */
		return 1;
	if (p[-2] == 0xff && ((p[-1] & 0xf8) == 0xd0 || ((p[-1] & 0xf8) == 0x10 &&
							  (p[-1] & 7) != 4 && (p[-1] & 7) != 5)))
		return 1;					/* call *%reg, call *(%reg) */
	if (p[-3] == 0xff && (p[-2] & 0xf8) == 0x50 && (p[-2] & 7) != 4)
		return 1;					/* call *d8(%reg) */
	if (p[-4] == 0xff && p[-3] == 0x54)
		return 1;					/* call *d8(sib) */
	if (p[-6] == 0xff && (p[-5] == 0x15 || ((p[-5] & 0xf8) == 0x90 && (p[-5] & 7) != 4)))
		return 1;					/* call *d32(%rip|%reg) */
	if (p[-7] == 0xff && (p[-6] == 0x94 || p[-6] == 0x14))
		return 1;					/* call *d32(sib) */
	return 0;
}

int wc_line_from_stack(const uint64_t *words, size_t n)
{
	struct rt_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	size_t i;
	int line;

	if (!t)
		return -1;
	for (i = 0; i < n; i++) {
		uintptr_t w = (uintptr_t)words[i];

		if (w < 4096)
			continue;
		line = wc_line_of(w - 1);
		if (line >= 0 && after_call(t, w))
			return line;
	}
	return -1;
}
