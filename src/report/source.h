/*
 * source.h - source files read at report time, each once, split into
 * lines: the text beside an instruction (witch cpi) and the excerpts
 * around the sites an HTML report shows.
 */
#ifndef WITCH_REPORT_SOURCE_H
#define WITCH_REPORT_SOURCE_H

#include <stddef.h>

struct wr_source_file {
	char *path;
	char *text;		/* the file, lines split at their ends; NULL when unreadable */
	char **line;		/* line[i]: line i + 1 */
	size_t nlines;
	int error;		/* why it is unreadable (errno), 0 when read */
};

struct wr_sources {
	struct wr_source_file *files;
	size_t n, cap;
};

/* Files larger than this are not read (EFBIG): no source is that long. */
#define WR_SOURCE_MAX (1L << 26)

/* The file at path, read on first use (its error set when it cannot
 * be); NULL only when out of memory. */
const struct wr_source_file *wr_source(struct wr_sources *s, const char *path);

/* Line `line` (from 1) of the file at path; NULL when unreadable or
 * beyond its end. */
const char *wr_source_line(struct wr_sources *s, const char *path, int line);

void wr_sources_free(struct wr_sources *s);

#endif
