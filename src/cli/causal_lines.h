/*
 * causal_lines.h - the line table `witch causal` hands to the runtime
 * (docs/causal.md §1): which address ranges of which in-scope binaries
 * belong to which source line, read from DWARF with libdw.
 *
 * Code inlined from an out-of-scope file is charged to the innermost call
 * site that is in scope, so that a loop calling memcpy-like inline helpers
 * from system headers shows up as the loop's line.
 */
#ifndef WITCH_CLI_CAUSAL_LINES_H
#define WITCH_CLI_CAUSAL_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/causal_strtab.h"

struct causal_range {
	uint64_t start, end;	/* link-time addresses, [start, end) */
	uint32_t line;		/* into lines */
};

/* One row of the DWARF line table, kept to resolve FILE:LINE arguments;
 * in the order libdw gives them (by address within a unit). */
struct causal_row {
	uint64_t addr;
	uint32_t file;		/* into files */
	uint32_t line : 31;	/* 0: code of no line */
	uint32_t stmt : 1;	/* a statement begins here (DWARF is_stmt) */
};

struct causal_module {
	char *path;		/* canonical (realpath) */
	struct causal_range *ranges;
	size_t nranges, cap_ranges;
	struct causal_row *rows;
	size_t nrows, cap_rows;
};

struct causal_line {
	uint32_t module;
	uint32_t file;		/* into files */
	uint32_t lineno;
	uint32_t function;	/* into files' table too; UINT32_MAX: unknown */
};

struct causal_bp {
	uint32_t module;
	uint64_t addr;
	uint32_t name;		/* into files: "file.c:123" as the debug info spells it */
	uint32_t function;	/* into files: the function it is in; UINT32_MAX: unknown */
};

#define CAUSAL_NEAR_MAX 6

/* A --progress line: where its visits start, and what to say about it. */
struct causal_point {
	uint32_t name;		/* into files: "file.c:123" */
	size_t first, n;	/* its addresses: bps[first .. first + n) */
	uint64_t again;		/* one of them a visit begun at another may pass; 0: none */
	uint32_t near[CAUSAL_NEAR_MAX];	/* line ids of in-scope lines near it, nearest first */
	size_t nnear;
};

struct causal_lines {
	/* Source scope: patterns matched against whole paths and their
	 * trailing components (fnmatch); none: every non-system file. */
	char **scope;
	size_t nscope;
	int *scope_hits;	/* per pattern: matched some file */

	struct causal_module *mods;
	size_t nmods;
	struct causal_line *lines;
	size_t nlines, cap_lines;
	struct causal_bp *bps;
	size_t nbps;
	struct causal_point *points;
	size_t npoints;

	struct rc_strtab files;	/* file paths and function names */
	struct rc_strtab locs;	/* "file:line" -> line id (same index as lines) */
	signed char *file_scope;	/* per files id: -1 unknown, 0 out, 1 in */
	size_t cap_file_scope;
};

/* Whether a source path is a system header or library source, out of the
 * default scope (/usr/include, /usr/lib, ...). */
int causal_system_path(const char *path);

/* Whether pattern names path: the whole path, or its last components. */
int causal_path_matches(const char *pattern, const char *path);

/* Set the scope before adding modules; the strings are copied. */
int causal_lines_set_scope(struct causal_lines *t, char *const *patterns, size_t n);

/*
 * Read the DWARF of the binary at path (or its separate debug file) and
 * add its in-scope lines and ranges. -1 with a one-line reason in err:
 * not an ELF file, no line information; -2 when it has no debug
 * information at all (the message suggests -g), and then the table is as
 * it was, so the caller may go on without this binary.
 */
int causal_lines_add_module(struct causal_lines *t, const char *path, char *err, size_t errlen);

/* After the last module: sort, merge and trim the ranges; check that every
 * --scope pattern matched a file. -1 with the reason in err. */
int causal_lines_finish(struct causal_lines *t, char *err, size_t errlen);

/* Resolve "FILE:LINE" to the addresses where its visits start
 * (progress_places.h) and add them as one progress point; at most
 * CAUSAL_MAX_PROGRESS_ADDRS addresses in all. -1 with the reason in err. */
int causal_lines_add_progress(struct causal_lines *t, const char *spec, char *err, size_t errlen);

/* "0x1234 in f()": where bp counts; "0x1234 in f(), 0x1250 in g()": where
 * point pt does. */
void causal_lines_place_text(const struct causal_lines *t, const struct causal_bp *bp, char *buf,
			     size_t cap);
void causal_lines_places_text(const struct causal_lines *t, const struct causal_point *pt,
			      char *buf, size_t cap);

/* Resolve "FILE:LINE" to an in-scope line id. -1 with the reason in err. */
int causal_lines_find_line(const struct causal_lines *t, const char *spec, uint32_t *id,
		       char *err, size_t errlen);

/* The text format of docs/causal.md §1. -1 on a write error. */
int causal_lines_write(const struct causal_lines *t, FILE *out);

/* Ranges over all modules. */
size_t causal_lines_nranges(const struct causal_lines *t);

void causal_lines_free(struct causal_lines *t);

#endif
