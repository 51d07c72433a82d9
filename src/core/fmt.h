/*
 * fmt.h - a formatter into a caller's buffer, for every file witch writes
 * from a preloaded runtime or the Valgrind tool: no libc (the tool has
 * none), no malloc and no locks, so handlers and crash paths can use it.
 *
 * With a sink, a full buffer goes to the sink and output is never cut;
 * without one, the buffer holds all there is and what does not fit is
 * cut off (a record written with one write(2), a path).
 */
#ifndef WITCH_CORE_FMT_H
#define WITCH_CORE_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Takes n bytes at p: 0, or -1 when they could not go (to a file: a
 * failed write). */
typedef int core_sink(void *ctx, const char *p, size_t n);

struct core_fmt {
	char *buf;
	size_t len, cap;
	core_sink *sink;	/* NULL: cut at cap */
	void *ctx;
	int failed;		/* the sink failed once: the rest is dropped */
};

void core_fmt_init(struct core_fmt *f, char *buf, size_t cap, core_sink *sink, void *ctx);
void core_fmt_bytes(struct core_fmt *f, const char *s, size_t n);
void core_fmt_str(struct core_fmt *f, const char *s);
void core_fmt_u64(struct core_fmt *f, uint64_t v);
void core_fmt_i64(struct core_fmt *f, int64_t v);
void core_fmt_hex(struct core_fmt *f, uint64_t v);	/* lower case, no 0x */
void core_fmt_esc(struct core_fmt *f, const char *s);	/* %XX-escaped (escape.h) */
/* A count of thousandths as "<whole>.<3 digits>". */
void core_fmt_milli(struct core_fmt *f, uint64_t thousandths);
/* Hand what the buffer holds to the sink. 0, or -1 when the sink failed. */
int core_fmt_flush(struct core_fmt *f);

/* v in thousandths, rounded: negative and NaN count 0, and at most 1e15
 * is taken (a profile's metrics are never near it). */
uint64_t core_milli(double v);

#endif
