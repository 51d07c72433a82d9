/*
 * outname.c - output file names (outname.h).
 */
#include "core/fmt.h"
#include "core/outname.h"

#define MAX_IMAGES 1000	/* execs of one process that each leave a file */

void core_outname_put(const struct core_outname *o, unsigned n, char *dst, size_t cap)
{
	struct core_fmt f;

	core_fmt_init(&f, dst, cap - 1, NULL, NULL);
	core_fmt_str(&f, o->dir);
	core_fmt_str(&f, "/");
	core_fmt_str(&f, o->stem);
	core_fmt_bytes(&f, &o->sep, 1);
	core_fmt_u64(&f, o->pid);
	if (n) {
		core_fmt_bytes(&f, &o->sep, 1);
		core_fmt_u64(&f, n);
	}
	core_fmt_str(&f, o->suffix);
	dst[f.len] = 0;
}

unsigned core_outname_free(const struct core_outname *o, char *dst, size_t cap,
			   int (*exists)(const char *path))
{
	unsigned n;

	for (n = 0; n < MAX_IMAGES - 1; n++) {
		core_outname_put(o, n, dst, cap);
		if (!exists(dst))
			return n;
	}
	core_outname_put(o, n, dst, cap);
	return n;
}
