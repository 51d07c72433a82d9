/*
 * load.c - turn the paths given to witch report into a merged report.
 *
 * A path is a profile or a directory of them (witch record -o DIR). Files
 * are read one at a time and merged at once, so memory holds the merged
 * result and one profile, not every profile.
 */
#include "report/causal_profile.h"
#include "report/report.h"
#include "profile/reader.h"
#include "core/contract.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SUFFIX		PROFILE_SUFFIX
#define TMP_SUFFIX	PROFILE_SUFFIX PROFILE_TMP_SUFFIX

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* Paths go into one-line messages: no control bytes. */
static const char *printable(char *dst, size_t cap, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < cap; i++)
		dst[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	dst[i] = '\0';
	return dst;
}

/* The same file named twice (or by a file and its directory) counts once. */
static int already_loaded(struct wr_map *seen, const char *path)
{
	struct stat st;
	uint32_t dummy;

	if (stat(path, &st))
		return 0;	/* let the reader explain */
	if (wr_map_get(seen, st.st_dev, st.st_ino, &dummy))
		return 1;
	wr_map_put(seen, st.st_dev, st.st_ino, 0);
	return 0;
}

/* What a reading does with each profile. */
struct each {
	wr_profile_fn *fn;
	void *ctx;
	struct wr_map seen;
};

static int load_file(struct each *e, const char *path, char *err, size_t errlen)
{
	struct wp_profile *p;
	int ret;

	if (already_loaded(&e->seen, path))
		return 0;
	if (wp_read(path, &p, err, errlen))
		return -1;
	ret = e->fn(e->ctx, p, err, errlen);
	wp_free(p);
	return ret;
}

int wr_selected(const struct wr_report *r, const struct wp_profile *p)
{
	return (!r->only_pid || p->pid == r->only_pid) &&
	       (r->only_rank < 0 || p->rank == r->only_rank);
}

static int merge_selected(void *ctx, const struct wp_profile *p, char *err, size_t errlen)
{
	struct wr_report *r = ctx;

	if (!wr_selected(r, p))
		return 0;
	r->nloaded++;
	return wr_merge(r, p, err, errlen);
}

static int compare_names(const void *a, const void *b)
{
	/* app-9 before app-10. */
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

/* The directory's *.witch files, sorted, as paths; counts *.witch.tmp. */
static int list_dir(const char *dir, char ***out, size_t *nout, size_t *ntmp,
		    char *err, size_t errlen)
{
	char shown[512];
	char **names = NULL;
	size_t n = 0, cap = 0;
	const char *sep = ends_with(dir, "/") || !*dir ? "" : "/";
	struct dirent *de;
	DIR *d;

	*ntmp = 0;
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "cannot open directory %s: %s",
			 printable(shown, sizeof(shown), dir), strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char *path;

		if (ends_with(de->d_name, TMP_SUFFIX))
			(*ntmp)++;
		if (!ends_with(de->d_name, SUFFIX))
			continue;
		if (n == cap) {
			char **a = realloc(names, (cap ? cap * 2 : 16) *
					   sizeof(*names));

			if (!a)
				goto oom;
			names = a;
			cap = cap ? cap * 2 : 16;
		}
		if (asprintf(&path, "%s%s%s", dir, sep, de->d_name) < 0)
			goto oom;
		names[n++] = path;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	*out = names;
	*nout = n;
	return 0;
oom:
	closedir(d);
	free_names(names, n);
	snprintf(err, errlen, "out of memory while listing %s",
		 printable(shown, sizeof(shown), dir));
	return -1;
}

static int load_dir(struct each *e, const char *dir, char *err, size_t errlen)
{
	char shown[512];
	char **names;
	size_t i, n, ntmp;
	int ret = 0;

	if (list_dir(dir, &names, &n, &ntmp, err, errlen))
		return -1;
	printable(shown, sizeof(shown), dir);
	if (n == 0 && ntmp > 0) {
		snprintf(err, errlen, "no finished witch profiles in %s, only "
			 "%zu unfinished .witch.tmp file%s: witch record was "
			 "killed while writing; re-run it", shown, ntmp,
			 ntmp == 1 ? "" : "s");
		ret = -1;
	} else if (n == 0 && rc_path_is_causal(dir)) {
		snprintf(err, errlen, "%s holds witch causal profiles, not witch record or "
			 "witch spy ones; show them with `witch report %s`", shown, shown);
		ret = -1;
	} else if (n == 0) {
		snprintf(err, errlen, "no witch profiles in %s (did witch "
			 "record write there?)", shown);
		ret = -1;
	}
	for (i = 0; i < n && !ret; i++)
		ret = load_file(e, names[i], err, errlen);
	free_names(names, n);
	return ret;
}

int wr_load_each(char *const *paths, int npaths, wr_profile_fn *fn, void *ctx,
		 char *err, size_t errlen)
{
	struct each e = { fn, ctx, { 0 } };
	int i, ret = 0;

	for (i = 0; i < npaths && !ret; i++) {
		struct stat st;

		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode))
			ret = load_dir(&e, paths[i], err, errlen);
		else
			ret = load_file(&e, paths[i], err, errlen);
	}
	wr_map_free(&e.seen);
	return ret;
}

int wr_load(struct wr_report *r, char *const *paths, int npaths,
	    char *err, size_t errlen)
{
	return wr_load_each(paths, npaths, merge_selected, r, err, errlen);
}
