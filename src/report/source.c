/*
 * source.c - source files read once, split into lines (source.h).
 */
#include "report/source.h"
#include "report/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read f->path whole and split it; f->error says why not. */
static void read_file(struct wr_source_file *f)
{
	FILE *in = fopen(f->path, "r");
	long size = -1;
	size_t i, n;

	if (!in) {
		f->error = errno;
		return;
	}
	if (fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		/* A directory, or a pipe: nothing to show. */
		f->error = errno ? errno : EINVAL;
	} else if (size > WR_SOURCE_MAX) {
		f->error = EFBIG;
	} else if (!(f->text = malloc((size_t)size + 1)) ||
		   fread(f->text, 1, (size_t)size, in) != (size_t)size) {
		f->error = f->text ? EIO : ENOMEM;
		free(f->text);
		f->text = NULL;
	}
	fclose(in);
	if (!f->text)
		return;
	f->text[size] = 0;
	for (i = 0, n = 1; i < (size_t)size; i++)
		n += f->text[i] == '\n';
	f->line = calloc(n, sizeof(*f->line));
	if (!f->line) {
		free(f->text);
		f->text = NULL;
		f->error = ENOMEM;
		return;
	}
	f->line[f->nlines++] = f->text;
	for (i = 0; i < (size_t)size; i++)
		if (f->text[i] == '\n') {
			f->text[i] = 0;
			if (i + 1 < (size_t)size)
				f->line[f->nlines++] = f->text + i + 1;
		}
}

const struct wr_source_file *wr_source(struct wr_sources *s, const char *path)
{
	struct wr_source_file *f;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	if (wr_grow((void **)&s->files, &s->cap, s->n + 1, sizeof(*s->files)))
		return NULL;
	f = &s->files[s->n];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	s->n++;
	read_file(f);
	return f;
}

const char *wr_source_line(struct wr_sources *s, const char *path, int line)
{
	const struct wr_source_file *f;

	if (!path || line < 1 || !(f = wr_source(s, path)) || !f->text)
		return NULL;
	return (size_t)line <= f->nlines ? f->line[line - 1] : NULL;
}

void wr_sources_free(struct wr_sources *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->files[i].path);
		free(s->files[i].text);
		free(s->files[i].line);
	}
	free(s->files);
	memset(s, 0, sizeof(*s));
}
