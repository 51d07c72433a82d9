/*
 * fmt.c - the formatter of fmt.h. Freestanding: witchspy links it too.
 */
#include "core/escape.h"
#include "core/fmt.h"

void core_fmt_init(struct core_fmt *f, char *buf, size_t cap, core_sink *sink, void *ctx)
{
	f->buf = buf;
	f->len = 0;
	f->cap = cap;
	f->sink = sink;
	f->ctx = ctx;
	f->failed = 0;
}

int core_fmt_flush(struct core_fmt *f)
{
	if (f->sink && f->len && !f->failed && f->sink(f->ctx, f->buf, f->len) < 0)
		f->failed = 1;
	if (f->sink)
		f->len = 0;
	return f->failed ? -1 : 0;
}

void core_fmt_bytes(struct core_fmt *f, const char *s, size_t n)
{
	while (n) {
		size_t room = f->cap - f->len, k = n < room ? n : room;

		if (!k && !f->sink)
			return;		/* full: the rest is cut */
		__builtin_memcpy(f->buf + f->len, s, k);
		f->len += k;
		s += k;
		n -= k;
		if (f->len == f->cap)
			core_fmt_flush(f);
	}
}

static size_t length(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

void core_fmt_str(struct core_fmt *f, const char *s)
{
	core_fmt_bytes(f, s, length(s));
}

static void put_base(struct core_fmt *f, uint64_t v, unsigned base)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	core_fmt_bytes(f, tmp + i, sizeof(tmp) - (size_t)i);
}

void core_fmt_u64(struct core_fmt *f, uint64_t v)
{
	put_base(f, v, 10);
}

void core_fmt_i64(struct core_fmt *f, int64_t v)
{
	if (v < 0) {
		core_fmt_bytes(f, "-", 1);
		put_base(f, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		put_base(f, (uint64_t)v, 10);
	}
}

void core_fmt_hex(struct core_fmt *f, uint64_t v)
{
	put_base(f, v, 16);
}

void core_fmt_esc(struct core_fmt *f, const char *s)
{
	char e[3];

	if (!s || !*s) {
		core_fmt_bytes(f, "%", 1);
		return;
	}
	for (; *s; s++)
		core_fmt_bytes(f, e, core_escape_byte((unsigned char)*s, e));
}

void core_fmt_milli(struct core_fmt *f, uint64_t m)
{
	char frac[4];

	put_base(f, m / 1000, 10);
	frac[0] = '.';
	frac[1] = (char)('0' + m / 100 % 10);
	frac[2] = (char)('0' + m / 10 % 10);
	frac[3] = (char)('0' + m % 10);
	core_fmt_bytes(f, frac, 4);
}

uint64_t core_milli(double v)
{
	if (!(v > 0))		/* also maps NaN to 0 */
		v = 0;
	if (v > 1e15)
		v = 1e15;
	return (uint64_t)(v * 1000.0 + 0.5);
}
