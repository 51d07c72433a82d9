/*
 * A corpus of loop performance bugs, each with its fix, and clean loops,
 * for witch spy --tool=loop (bench/loop, tests/e2e/83-loop-corpus.t):
 *
 *   loop_bugs CASE bad|fixed [N]
 *
 * C ports of Prometheus's Table III bugs and classic C ones:
 *   subtract  remove from a list every value of another, most of them not
 *             in it, scanning it from its start for each (Table III bug
 *             1, removeAll); fixed: mark the values to remove in a table,
 *             then one pass
 *   addall    add sorted values one at a time to an ordered array set,
 *             each add searching it from its start (bug 3, addAll);
 *             fixed: append all, sort once, drop duplicates
 *   unique    add values to a list that must stay unique, each add walking
 *             the linked list in contains() (bug 5); fixed: a set beside
 *             the list
 *   ordmap    remove keys from an ordered map kept as a sorted array, each
 *             removal finding the key from the start (bug 8); fixed: a
 *             binary search for each
 *   strlen    strlen() in the loop condition; fixed: the length once
 *   keyword   a linear lookup of each token in a table of C and C++
 *             keywords (lengths and first letters compared first); fixed:
 *             a hash of the keywords, built once
 * and clean loops (bad and fixed alike):
 *   stream    a sum over fresh data
 *   stencil   a 2-D five-point stencil, time steps over two grids
 *   hashbuild building a hash table of fresh keys
 *
 * Each loop that judges a case is marked `loop: CASE-bad` or
 * `loop: CASE-fixed` on its first line. Every case prints a checksum,
 * the same for bad and fixed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

static long n = 2000;

/* A value sequence with repeats, the same for every case. */
static int val(long i)
{
	return (int)((i * 7919 + 13) % (3 * n));
}

/* ---- subtract ---- */

NOIPA static long subtract_bad(int *a, long na, const int *b, long nb)
{
	for (long k = 0; k < nb; k++) { /* loop: subtract-bad */
		long i = 0;

		while (i < na && a[i] != b[k])
			i++;
		if (i < na) {
			memmove(a + i, a + i + 1, sizeof(int) * (size_t)(na - i - 1));
			na--;
		}
	}
	return na;
}

NOIPA static long subtract_fixed(int *a, long na, const int *b, long nb, unsigned char *gone)
{
	long w = 0;

	memset(gone, 0, (size_t)(3 * n));
	for (long k = 0; k < nb; k++)
		gone[b[k]] = 1;
	for (long i = 0; i < na; i++) { /* loop: subtract-fixed */
		if (!gone[a[i]])
			a[w++] = a[i];
		else
			gone[a[i]] = 0;	/* removeAll removes one per value here */
	}
	return w;
}

static long subtract(int bad)
{
	int *a = malloc(sizeof(int) * (size_t)n), *b = malloc(sizeof(int) * (size_t)n / 2);
	unsigned char *gone = malloc((size_t)(3 * n));
	long r, s = 0;

	for (long i = 0; i < n; i++)
		a[i] = (int)i * 3 % (int)(3 * n);
	/* Most values to remove are not there (one in ten is): the bad
	 * version scans the whole list for each. */
	for (long k = 0; k < n / 2; k++)
		b[k] = (int)((k * 6 + (k % 10 ? 1 : 0)) % (3 * n));
	r = bad ? subtract_bad(a, n, b, n / 2) : subtract_fixed(a, n, b, n / 2, gone);
	for (long i = 0; i < r; i++)
		s += a[i];
	free(a);
	free(b);
	free(gone);
	return r * 1000003 + s;
}

/* ---- addall ---- */

NOIPA static long addall_bad(int *set, const int *v, long nv)
{
	long ns = 0;

	for (long k = 0; k < nv; k++) { /* loop: addall-bad */
		long i = 0;

		while (i < ns && set[i] < v[k])
			i++;
		if (i < ns && set[i] == v[k])
			continue;
		memmove(set + i + 1, set + i, sizeof(int) * (size_t)(ns - i));
		set[i] = v[k];
		ns++;
	}
	return ns;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

NOIPA static long addall_fixed(int *set, const int *v, long nv)
{
	long ns = 0;

	memcpy(set, v, sizeof(int) * (size_t)nv);
	qsort(set, (size_t)nv, sizeof(int), cmp_int);
	for (long i = 0; i < nv; i++) /* loop: addall-fixed */
		if (!ns || set[ns - 1] != set[i])
			set[ns++] = set[i];
	return ns;
}

static long addall(int bad)
{
	int *v = malloc(sizeof(int) * (size_t)n), *set = malloc(sizeof(int) * (size_t)n);
	long ns, s = 0;

	/* Sorted, with duplicates: each add walks the whole set. */
	for (long i = 0; i < n; i++)
		v[i] = (int)(i / 2 * 3);
	ns = bad ? addall_bad(set, v, n) : addall_fixed(set, v, n);
	for (long i = 0; i < ns; i++)
		s += set[i] * (i + 1);
	free(v);
	free(set);
	return ns * 1000003 + s;
}

/* ---- unique ---- */

struct node {
	int v;
	struct node *next;
};

NOIPA static int contains(const struct node *p, int v)
{
	while (p && p->v != v)
		p = p->next;
	return p != NULL;
}

NOIPA static long unique_bad(struct node *pool, const int *v, long nv)
{
	struct node *head = NULL, **tail = &head;
	long len = 0;

	for (long k = 0; k < nv; k++) { /* loop: unique-bad */
		if (contains(head, v[k]))
			continue;
		pool[len].v = v[k];
		pool[len].next = NULL;
		*tail = &pool[len++];
		tail = &(*tail)->next;
	}
	return len;
}

NOIPA static long unique_fixed(struct node *pool, const int *v, long nv, unsigned char *in)
{
	struct node *head = NULL, **tail = &head;
	long len = 0;

	memset(in, 0, (size_t)(3 * n));
	for (long k = 0; k < nv; k++) { /* loop: unique-fixed */
		if (in[v[k]])
			continue;
		in[v[k]] = 1;
		pool[len].v = v[k];
		pool[len].next = NULL;
		*tail = &pool[len++];
		tail = &(*tail)->next;
	}
	return len;
}

static long unique(int bad)
{
	int *v = malloc(sizeof(int) * (size_t)n);
	struct node *pool = malloc(sizeof(struct node) * (size_t)n);
	unsigned char *in = malloc((size_t)(3 * n));
	long len, s = 0;

	for (long i = 0; i < n; i++)
		v[i] = val(i) % (int)(n / 2 + 1);
	len = bad ? unique_bad(pool, v, n) : unique_fixed(pool, v, n, in);
	for (long i = 0; i < len; i++)
		s += pool[i].v * (i + 1);
	free(v);
	free(pool);
	free(in);
	return len * 1000003 + s;
}

/* ---- ordmap ---- */

NOIPA static long ordmap_bad(int *keys, long nk, const int *gone, long ng)
{
	for (long k = 0; k < ng; k++) { /* loop: ordmap-bad */
		long i = 0;

		while (i < nk && keys[i] < gone[k])
			i++;
		if (i < nk && keys[i] == gone[k]) {
			memmove(keys + i, keys + i + 1, sizeof(int) * (size_t)(nk - i - 1));
			nk--;
		}
	}
	return nk;
}

NOIPA static long ordmap_fixed(int *keys, long nk, const int *gone, long ng)
{
	for (long k = 0; k < ng; k++) { /* loop: ordmap-fixed */
		long lo = 0, hi = nk;

		while (lo < hi) {
			long mid = (lo + hi) / 2;

			if (keys[mid] < gone[k])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nk && keys[lo] == gone[k]) {
			memmove(keys + lo, keys + lo + 1, sizeof(int) * (size_t)(nk - lo - 1));
			nk--;
		}
	}
	return nk;
}

static long ordmap(int bad)
{
	int *keys = malloc(sizeof(int) * (size_t)n), *gone = malloc(sizeof(int) * (size_t)n / 8);
	long nk, s = 0;

	for (long i = 0; i < n; i++)
		keys[i] = (int)(2 * i);
	/* From the end: each removal shifts few keys, and the bad search
	 * walks nearly all of them. */
	for (long k = 0; k < n / 8; k++)
		gone[k] = (int)(2 * (n - 1 - 3 * k));
	nk = bad ? ordmap_bad(keys, n, gone, n / 8) : ordmap_fixed(keys, n, gone, n / 8);
	for (long i = 0; i < nk; i++)
		s += keys[i];
	free(keys);
	free(gone);
	return nk * 1000003 + s;
}

/* ---- strlen ---- */

NOIPA static long upper_bad(char *out, const char *s)
{
	long i;

	for (i = 0; i < (long)strlen(s); i++) /* loop: strlen-bad */
		out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
	out[i] = 0;
	return i;
}

NOIPA static long upper_fixed(char *out, const char *s)
{
	long i, len = (long)strlen(s);

	for (i = 0; i < len; i++) /* loop: strlen-fixed */
		out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
	out[i] = 0;
	return i;
}

static long strlen_case(int bad)
{
	char *s = malloc((size_t)n + 1), *out = malloc((size_t)n + 1);
	long len, h = 0;

	for (long i = 0; i < n; i++)
		s[i] = (char)('a' + val(i) % 26);
	s[n] = 0;
	len = bad ? upper_bad(out, s) : upper_fixed(out, s);
	for (long i = 0; i < len; i++)
		h = h * 31 + out[i];
	free(s);
	free(out);
	return h;
}

/* ---- keyword ---- */

static const char *const keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
	"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
	"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
	"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas",
	"_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
	"_Static_assert", "_Thread_local", "alignas", "alignof", "bool", "catch", "class",
	"constexpr", "decltype", "delete", "explicit", "export", "false", "friend", "mutable",
	"namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public",
	"template", "this", "throw", "true", "try", "typename", "using", "virtual",
};
#define NKEYWORDS (long)(sizeof(keywords) / sizeof(keywords[0]))

/* The keywords with their lengths and first letters, compared first
 * (keyword_bad). */
static struct {
	size_t len;
	char first;
	const char *name;
} kwlen[NKEYWORDS];

NOIPA static long keyword_bad(const char *const *tok, long nt)
{
	long hits = 0;

	for (long k = 0; k < NKEYWORDS; k++) {
		kwlen[k].len = strlen(keywords[k]);
		kwlen[k].first = keywords[k][0];
		kwlen[k].name = keywords[k];
	}
	for (long t = 0; t < nt; t++) { /* loop: keyword-bad */
		size_t len = strlen(tok[t]);
		char first = tok[t][0];

		for (long k = 0; k < NKEYWORDS; k++)
			if (kwlen[k].len == len && kwlen[k].first == first &&
			    !memcmp(tok[t], kwlen[k].name, len)) {
				hits += k + 1;
				break;
			}
	}
	return hits;
}

static unsigned kw_hash(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h & 255;
}

NOIPA static long keyword_fixed(const char *const *tok, long nt)
{
	signed char slot[256];
	long hits = 0;

	memset(slot, -1, sizeof(slot));
	for (long k = 0; k < NKEYWORDS; k++) {
		unsigned h = kw_hash(keywords[k]);

		while (slot[h] >= 0)
			h = (h + 1) & 255;
		slot[h] = (signed char)k;
	}
	for (long t = 0; t < nt; t++) { /* loop: keyword-fixed */
		for (unsigned h = kw_hash(tok[t]); slot[h] >= 0; h = (h + 1) & 255)
			if (!strcmp(tok[t], keywords[slot[h]])) {
				hits += slot[h] + 1;
				break;
			}
	}
	return hits;
}

static long keyword(int bad)
{
	static const char *const idents[] = { "x", "count", "buf", "len", "i", "node", "p" };
	const char **tok = malloc(sizeof(char *) * (size_t)n);
	char *text = malloc((size_t)n * 10), *w = text;
	long r;

	/* The tokens of a source text: fresh bytes, as a lexer reads them. */
	for (long i = 0; i < n; i++) {
		const char *t = i % 10 ? idents[val(i) % 7] : keywords[val(i) % NKEYWORDS];

		tok[i] = w;
		w = stpcpy(w, t) + 1;
	}
	r = bad ? keyword_bad(tok, n) : keyword_fixed(tok, n);
	free(tok);
	free(text);
	return r;
}

/* ---- clean loops ---- */

NOIPA static double stream_sum(const double *a, long len)
{
	double s = 0;

	for (long i = 0; i < len; i++) /* loop: stream */
		s += a[i] * 0.5;
	return s;
}

static long stream(void)
{
	long len = 64 * n;
	double *a = malloc(sizeof(double) * (size_t)len);

	for (long i = 0; i < len; i++)
		a[i] = (double)(i % 1000);
	len = (long)stream_sum(a, len);
	free(a);
	return len;
}

NOIPA static void stencil_step(double *dst, const double *src, long w)
{
	for (long y = 1; y < w - 1; y++) /* loop: stencil */
		for (long x = 1; x < w - 1; x++)
			dst[y * w + x] = 0.2 * (src[y * w + x] + src[y * w + x - 1] + src[y * w + x + 1] +
						src[(y - 1) * w + x] + src[(y + 1) * w + x]);
}

static long stencil(void)
{
	long w = 64;
	double *a = calloc((size_t)(w * w), sizeof(double)), *b = calloc((size_t)(w * w), sizeof(double));
	double s = 0;

	for (long i = 0; i < w * w; i++)
		a[i] = (double)(i % 97);
	for (long t = 0; t < n / 100 + 2; t++) { /* loop: steps */
		stencil_step(b, a, w);
		stencil_step(a, b, w);
	}
	for (long i = 0; i < w * w; i++)
		s += a[i];
	free(a);
	free(b);
	return (long)s;
}

struct entry {
	long key, value;
};

NOIPA static long hash_build(struct entry *t, long mask, long count)
{
	long used = 0;

	for (long i = 0; i < count; i++) { /* loop: hashbuild */
		long key = i * 2654435761L + 1, h = (key ^ (key >> 13)) & mask;

		while (t[h].key && t[h].key != key)
			h = (h + 1) & mask;
		used += !t[h].key;
		t[h].key = key;
		t[h].value = i;
	}
	return used;
}

static long hashbuild(void)
{
	long mask = 1;

	while (mask < 4 * n)
		mask <<= 1;
	struct entry *t = calloc((size_t)mask, sizeof(struct entry));
	long used = hash_build(t, mask - 1, 2 * n);

	free(t);
	return used;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int bad = argc > 2 && !strcmp(argv[2], "bad");
	long r;

	if (argc < 3 || (!bad && strcmp(argv[2], "fixed"))) {
		fprintf(stderr, "usage: loop_bugs CASE bad|fixed [N]\n");
		return 2;
	}
	if (argc > 3)
		n = atol(argv[3]);
	if (n < 16) {
		fprintf(stderr, "loop_bugs: N must be 16 or more\n");
		return 2;
	}
	if (!strcmp(c, "subtract"))
		r = subtract(bad);
	else if (!strcmp(c, "addall"))
		r = addall(bad);
	else if (!strcmp(c, "unique"))
		r = unique(bad);
	else if (!strcmp(c, "ordmap"))
		r = ordmap(bad);
	else if (!strcmp(c, "strlen"))
		r = strlen_case(bad);
	else if (!strcmp(c, "keyword"))
		r = keyword(bad);
	else if (!strcmp(c, "stream"))
		r = stream();
	else if (!strcmp(c, "stencil"))
		r = stencil();
	else if (!strcmp(c, "hashbuild"))
		r = hashbuild();
	else {
		fprintf(stderr, "loop_bugs: no case %s\n", c);
		return 2;
	}
	printf("%ld\n", r);
	return 0;
}
