#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "profile/escape.h"
#include "profile/writer.h"

int wp_out_open(struct wp_out *o, const char *tmp_path)
{
	o->len = 0;
	o->lines = 0;
	o->failed = 0;
	o->fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return o->fd < 0 ? -1 : 0;
}

static void flush(struct wp_out *o)
{
	size_t off = 0;

	while (off < o->len && !o->failed) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->failed = 1;
		else
			off += (size_t)n;
	}
	o->len = 0;
}

static void put_bytes(struct wp_out *o, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(o->buf) - o->len, k = n < room ? n : room;

		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
		if (o->len == sizeof(o->buf))
			flush(o);
	}
}

void wp_put(struct wp_out *o, const char *s)
{
	put_bytes(o, s, strlen(s));
}

static void put_base(struct wp_out *o, uint64_t v, unsigned base)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	put_bytes(o, tmp + i, sizeof(tmp) - (size_t)i);
}

void wp_put_u64(struct wp_out *o, uint64_t v)
{
	put_base(o, v, 10);
}

void wp_put_i64(struct wp_out *o, int64_t v)
{
	if (v < 0) {
		put_bytes(o, "-", 1);
		put_base(o, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		put_base(o, (uint64_t)v, 10);
	}
}

void wp_put_hex(struct wp_out *o, uint64_t v)
{
	put_base(o, v, 16);
}

void wp_put_fixed3(struct wp_out *o, double v)
{
	uint64_t m;
	char frac[4];

	if (!(v > 0))		/* also maps NaN to 0 */
		v = 0;
	if (v > 1e15)
		v = 1e15;
	m = (uint64_t)(v * 1000.0 + 0.5);
	put_base(o, m / 1000, 10);
	frac[0] = '.';
	frac[1] = (char)('0' + m / 100 % 10);
	frac[2] = (char)('0' + m / 10 % 10);
	frac[3] = (char)('0' + m % 10);
	put_bytes(o, frac, 4);
}

void wp_put_esc(struct wp_out *o, const char *s)
{
	char tmp[1024];

	/* Escape in bounded pieces; %XX sequences never straddle a piece. */
	if (!*s) {
		put_bytes(o, "%", 1);
		return;
	}
	while (*s) {
		char piece[300];
		size_t n = 0;

		while (s[n] && n < sizeof(piece) - 1) {
			piece[n] = s[n];
			n++;
		}
		piece[n] = 0;
		put_bytes(o, tmp, wp_escape(tmp, sizeof(tmp), piece));
		s += n;
	}
}

void wp_sp(struct wp_out *o)
{
	put_bytes(o, " ", 1);
}

void wp_endl(struct wp_out *o)
{
	put_bytes(o, "\n", 1);
	o->lines++;
}

int wp_out_close(struct wp_out *o, const char *tmp_path, const char *final_path)
{
	uint64_t lines = o->lines;

	wp_put(o, "end ");
	wp_put_u64(o, lines);
	wp_endl(o);
	flush(o);
	if (close(o->fd) < 0)
		o->failed = 1;
	o->fd = -1;
	if (o->failed || rename(tmp_path, final_path) < 0) {
		unlink(tmp_path);
		return -1;
	}
	return 0;
}
