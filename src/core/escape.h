/*
 * escape.h - the %XX string escaping of the profile format
 * (docs/profile-format.md, "Lexical rules").
 *
 * Every byte <= 0x20, '%' and every byte >= 0x7f is written as %XX (upper-case
 * hex), so a field never contains a space, a newline or a non-ASCII byte and
 * fields can be split on single spaces. The empty string is written as "%".
 *
 * No libc: the encoder runs in the runtime's signal handlers and crash
 * paths, and in the Valgrind tool. It is async-signal-safe and touches only
 * its arguments.
 */
#ifndef WITCH_CORE_ESCAPE_H
#define WITCH_CORE_ESCAPE_H

#include <stddef.h>

/* Byte c as it is written: 1 byte (itself) or 3 (%XX) in out. */
size_t core_escape_byte(unsigned char c, char out[3]);

/*
 * Escape the NUL-terminated src (NULL counts as empty) into dst.
 * Writes at most cap bytes including a terminating NUL (when cap > 0) and
 * returns the number of bytes written before the NUL. A %XX triplet is never
 * split: when src does not fit, the output is a valid escaped prefix and the
 * return value is less than core_escape_len(src).
 */
size_t core_escape(char *dst, size_t cap, const char *src);

/* Length of the escaped form of src, without the NUL. */
size_t core_escape_len(const char *src);

/*
 * Decode an escaped field in place. "%" alone becomes the empty string.
 * Returns 0, or -1 when a '%' is not followed by two hex digits or encodes
 * a NUL byte (which a C string cannot hold); s is unspecified after -1.
 */
int core_unescape(char *s);

#endif
