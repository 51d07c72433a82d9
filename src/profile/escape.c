/*
 * escape.c - %XX escaping of profile strings. See escape.h.
 *
 * No libc calls at all: the encoder runs in the runtime's signal handlers and
 * crash paths, and the writer is meant to link into the Valgrind tool too,
 * which has no libc.
 */
#include "profile/escape.h"

static const char hex_upper[] = "0123456789ABCDEF";

static int must_escape(unsigned char c)
{
	return c <= 0x20 || c == '%' || c >= 0x7f;
}

size_t wp_escape_len(const char *src)
{
	size_t n = 0;

	if (!src || !*src)
		return 1;
	for (; *src; src++)
		n += must_escape((unsigned char)*src) ? 3 : 1;
	return n;
}

size_t wp_escape(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	if (cap == 0)
		return 0;
	if (!src || !*src) {
		if (cap > 1)
			dst[n++] = '%';
		dst[n] = '\0';
		return n;
	}
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;

		if (must_escape(c)) {
			if (cap - n < 4)	/* triplet plus the NUL */
				break;
			dst[n++] = '%';
			dst[n++] = hex_upper[c >> 4];
			dst[n++] = hex_upper[c & 0xf];
		} else {
			if (cap - n < 2)
				break;
			dst[n++] = (char)c;
		}
	}
	dst[n] = '\0';
	return n;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int wp_unescape(char *s)
{
	char *out = s;

	if (s[0] == '%' && s[1] == '\0') {
		s[0] = '\0';
		return 0;
	}
	while (*s) {
		if (*s != '%') {
			*out++ = *s++;
			continue;
		}
		/* s[1] may be the NUL; then s[2] is never read. */
		int hi = hex_value(s[1]);
		int lo = hi < 0 ? -1 : hex_value(s[2]);

		if (lo < 0 || (hi | lo) == 0)
			return -1;
		*out++ = (char)(hi << 4 | lo);
		s += 3;
	}
	*out = '\0';
	return 0;
}
