/*
 * excerpt.c - source excerpts for the HTML pages (page.h): the lines
 * around a site, read now from the file the debug info names, or why
 * they cannot be shown.
 */
#include "report/html/page.h"
#include "report/render.h"
#include "report/source.h"
#include "report/symbolize.h"

#include <string.h>

static void put_head(FILE *data, const char *path, int first, int last)
{
	fputs("{\"path\":", data);
	wr_json_string(data, path);
	fprintf(data, ",\"mark\":[%d,%d]", first, last);
}

/* Why lines first.. of f cannot be shown, or NULL when they can. */
static const char *unreadable(const struct wr_source_file *f, int first, char *buf, size_t cap)
{
	if (!f->text)
		return strerror(f->error);
	if (first < 1 || (size_t)first > f->nlines) {
		snprintf(buf, cap, "the file has %zu lines, not line %d: it changed since the profile",
			 f->nlines, first);
		return buf;
	}
	return NULL;
}

/* The excerpt of a file known to be readable there. */
static void put_lines(FILE *data, const struct wr_source_file *f, int first, int last)
{
	int from, to, i;

	if (last < first)
		last = first;
	if (last - first >= HTML_RANGE_MAX)
		last = first + HTML_RANGE_MAX - 1;
	from = first > HTML_AROUND ? first - HTML_AROUND : 1;
	to = last + HTML_AROUND;
	if ((size_t)to > f->nlines)
		to = (int)f->nlines;
	fprintf(data, ",\"first\":%d,\"text\":[", from);
	for (i = from; i <= to; i++) {
		if (i > from)
			fputc(',', data);
		wr_json_string(data, f->line[i - 1]);
	}
	fputs("]}", data);
}

void html_excerpt(FILE *data, struct wr_sources *src, const char *path, int first, int last)
{
	const struct wr_source_file *f = path ? wr_source(src, path) : NULL;
	const char *why;
	char buf[128];

	put_head(data, path, first, last);
	if (!path || !f) {
		fputs(",\"error\":", data);
		wr_json_string(data, path ? "out of memory" : "no source file in the debug information");
		fputc('}', data);
	} else if ((why = unreadable(f, first, buf, sizeof(buf)))) {
		fputs(",\"error\":", data);
		wr_json_string(data, why);
		fputc('}', data);
	} else {
		put_lines(data, f, first, last);
	}
}

/* Why frame fr's source cannot be shown (into buf), or NULL when it can;
 * *file is its file then. */
static const char *frame_source(struct wr_symbolizer *s, struct wr_sources *src,
				const struct wr_frame *fr, const struct wr_source_file **file,
				char *buf, size_t cap)
{
	const char *path = wr_sym_frame_path(s, fr), *why;
	char lines[128];

	if (!path || !fr->line)
		why = "no source line in the debug information";
	else if (!(*file = wr_source(src, path)))
		why = "out of memory";
	else if (!(why = unreadable(*file, fr->line, lines, sizeof(lines))))
		return NULL;
	if (path && fr->line)
		snprintf(buf, cap, "%s: %s", path, why);
	else
		snprintf(buf, cap, "%s", why);
	return buf;
}

int html_context_excerpt(FILE *data, struct wr_symbolizer *s, struct wr_sources *src,
			 uint32_t ctx)
{
	const struct wr_source_file *file = NULL;
	const struct wr_frame *f;
	char leaf[512], buf[512];
	const char *why = NULL;
	long n = wr_sym_context(s, ctx, &f), i;

	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		why = frame_source(s, src, &f[i], &file, i ? buf : leaf, sizeof(buf));
		if (!why)
			break;
	}
	if (i == n) {
		fputs("{\"frame\":null,\"error\":", data);
		wr_json_string(data, n ? leaf : "no frames");
		fputc('}', data);
		return 0;
	}
	put_head(data, file->path, f[i].line, f[i].line);
	fprintf(data, ",\"frame\":%ld,\"function\":", i);
	wr_json_string(data, f[i].function);
	if (i) {
		fputs(",\"leaf_error\":", data);
		wr_json_string(data, leaf);
	}
	put_lines(data, file, f[i].line, f[i].line);
	return 0;
}
