/*
 * symbolize.h - calling contexts to functions and source lines, with libdw.
 *
 * One context node can become several frames: when the code at its address
 * was inlined, each inlined function is a frame of its own, innermost first,
 * marked inlined, followed by the function it was inlined into.
 */
#ifndef WITCH_REPORT_SYMBOLIZE_H
#define WITCH_REPORT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct wr_report;

struct wr_frame {
	const char *function;	/* as people know it (names.h); NULL when unknown */
	const char *linkage;	/* the mangled name it came from; NULL when none */
	const char *file;	/* source file as in the debug info; NULL */
	int line;		/* 0 when unknown */
	int inlined;		/* inlined into the next frame (no call) */
	int first;		/* first frame of its context node */
	int32_t module;		/* report module index, -1 when none */
	uint64_t offset;	/* the context node's offset (not minus 1) */
	uint64_t addr;		/* the code it names: offset, or a caller's
				   offset - 1, inside its call */
};

struct wr_symbolizer;

/*
 * Modules are opened when first needed; warnings about them (missing file,
 * changed build-id) go to warn, one line each, once per module.
 */
struct wr_symbolizer *wr_sym_new(const struct wr_report *r, FILE *warn);
void wr_sym_free(struct wr_symbolizer *s);

/*
 * The frames of context ctx, leaf first (frame 0 is the accessing
 * instruction), without the root. Stores a pointer valid until the next
 * call and returns the count, or -1 when out of memory.
 */
long wr_sym_context(struct wr_symbolizer *s, uint32_t ctx,
		    const struct wr_frame **frames);

/*
 * Symbolize the contexts of the top ranked pairs (0: all) now, so that
 * warnings about modules come before any output. Returns -1 when out of
 * memory.
 */
int wr_sym_ranked(struct wr_symbolizer *s, size_t top);

/* What one address is: the ELF symbol holding it, and its source line. */
struct wr_addr_info {
	const char *function;	/* the symbol's function (names.h), NULL when none */
	const char *linkage;	/* the symbol's name when mangled, else NULL */
	uint64_t start, end;	/* the symbol's offsets in the module (end: past it);
				   without one, the call frame entry's (stripped
				   code's function); 0, 0 when unknown */
	const char *file;	/* NULL when unknown */
	int line;		/* 0 when unknown */
};

/* Fill *info for the code at offset in module (an offset, not a return
 * address). Strings live as long as the symbolizer. A symbol lookup
 * searches the whole table: with_symbol 0 skips it (function NULL). */
void wr_sym_addr(struct wr_symbolizer *s, int32_t module, uint64_t offset, int with_symbol,
		 struct wr_addr_info *info);

/* The variable (an ELF data symbol) holding offset in module: 1 with its
 * name (as people know it; valid as long as the symbolizer) and its
 * start offset, or 0 when none does. */
int wr_sym_data(struct wr_symbolizer *s, int32_t module, uint64_t offset, const char **name,
		uint64_t *start);

/* Is the module's file readable and the one profiled (a build-id that
 * matches, or none recorded)? Opens it if need be. */
int wr_sym_module_ok(struct wr_symbolizer *s, int32_t module);

/* Does the module have DWARF (its frames get source lines)? Opens it if
 * need be; 0 when it cannot be read. */
int wr_sym_module_has_dwarf(struct wr_symbolizer *s, int32_t module);

/* The frame's source file as a path from here (joined to its compilation
 * directory when the debug info names it relatively, as it names most),
 * for reading it; NULL when unknown. Lives as long as the symbolizer. */
const char *wr_sym_frame_path(struct wr_symbolizer *s, const struct wr_frame *f);

/* Last path component, for short labels. */
const char *wr_basename(const char *path);

#endif
