/*
 * writer.h - writes profile lines (docs/profile-format.md) with write(2)
 * from a fixed buffer: no malloc, no stdio, so it also works on a crash
 * path. Used by the runtime and, later, the Valgrind tool.
 */
#ifndef WITCH_WRITER_H
#define WITCH_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* The most accesses a timer sample may stand for (--spread): the CLI,
 * the runtime and the reader hold profiles to it. */
#define WP_MAX_SPREAD 64
#define WP_MAX_SPREAD_TEXT "64"
/* A timer sample stands for one of the next 16 accesses by default: in
 * bench/accuracy that brought more programs within 5 points of the spy
 * than the next access alone, at up to 2 more breakpoints a sample
 * (probe.c's PASS_BREAKPOINTS; the README's --spread paragraph has the
 * runs). */
#define WP_DEFAULT_SPREAD 16
#define WP_DEFAULT_SPREAD_TEXT "16"

/* How many instructions ahead a timer sample may find its access
 * (--reach; 0: as far as the walk goes). The defaults, and the most the
 * CLI, the runtime and the reader accept. Stores are sampled within 8
 * instructions and loads without a limit: in bench/accuracy the reach
 * brought the dead and silent rows closer to the spy and the load rows
 * further from it (the README's --reach paragraph has the runs). */
#define WP_DEFAULT_REACH 8
#define WP_DEFAULT_REACH_TEXT "8"
#define WP_DEFAULT_LOAD_REACH 0
#define WP_DEFAULT_LOAD_REACH_TEXT "0"
#define WP_DEFAULT_REACH_FOR(is_load) ((is_load) ? WP_DEFAULT_LOAD_REACH : WP_DEFAULT_REACH)
#define WP_MAX_REACH 4096
#define WP_MAX_REACH_TEXT "4096"

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
