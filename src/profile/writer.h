/*
 * writer.h - writes profile lines (docs/profile-format.md) with write(2)
 * from a fixed buffer: no malloc, no stdio, so it also works on a crash
 * path. Used by the runtime and, later, the Valgrind tool.
 */
#ifndef WITCH_WRITER_H
#define WITCH_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct wp_out {
	int fd;
	int failed;
	size_t len;
	uint64_t lines;
	char buf[1 << 16];
};

int wp_out_open(struct wp_out *o, const char *tmp_path);
void wp_put(struct wp_out *o, const char *s);
void wp_put_u64(struct wp_out *o, uint64_t v);
void wp_put_i64(struct wp_out *o, int64_t v);
void wp_put_hex(struct wp_out *o, uint64_t v);
void wp_put_fixed3(struct wp_out *o, double v);	/* non-negative, 3 decimals */
void wp_put_esc(struct wp_out *o, const char *s);	/* %XX-escaped string */
void wp_sp(struct wp_out *o);
void wp_endl(struct wp_out *o);
/* Write the `end` line, flush, close and rename tmp_path to final_path.
 * Returns 0, or -1 (and removes tmp_path) if anything failed. */
int wp_out_close(struct wp_out *o, const char *tmp_path, const char *final_path);

#endif
