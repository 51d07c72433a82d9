/*
 * escape.c - %XX escaping of profile strings. See escape.h.
 */
#include "core/escape.h"

static const char hex_upper[] = "0123456789ABCDEF";

static int must_escape(unsigned char c)
{
	return c <= 0x20 || c == '%' || c >= 0x7f;
}

size_t core_escape_byte(unsigned char c, char out[3])
{
	if (!must_escape(c)) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '%';
	out[1] = hex_upper[c >> 4];
	out[2] = hex_upper[c & 0xf];
	return 3;
}

size_t core_escape_len(const char *src)
{
	size_t n = 0;

	if (!src || !*src)
		return 1;
	for (; *src; src++)
		n += must_escape((unsigned char)*src) ? 3 : 1;
	return n;
}

size_t core_escape(char *dst, size_t cap, const char *src)
{
	size_t n = 0, k, i;
	char e[3];

	if (cap == 0)
		return 0;
	if (!src || !*src) {
		if (cap > 1)
			dst[n++] = '%';
		dst[n] = '\0';
		return n;
	}
	for (; *src; src++) {
		k = core_escape_byte((unsigned char)*src, e);
		if (cap - n < k + 1)	/* the byte, or its triplet, plus the NUL */
			break;
		for (i = 0; i < k; i++)
			dst[n++] = e[i];
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

int core_unescape(char *s)
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
