/*
 * outfile.h - a preloaded runtime's output file, written atomically: to a
 * temporary name first, renamed into place when complete, so that the
 * CLI and the reports never read half a profile. Async-signal-safe (the
 * crash path writes too).
 */
#ifndef WITCH_CORE_OUTFILE_H
#define WITCH_CORE_OUTFILE_H

#include <stddef.h>

/* Create (or empty) tmp, appended to: an fd, or -1. */
int core_outfile_create(const char *tmp);

/* Write all n bytes at p to fd, through EINTR: 0, or -1. */
int core_outfile_write(int fd, const char *p, size_t n);

/* core_outfile_write as a formatter's sink (core/fmt.h); ctx points to the fd. */
int core_outfile_sink(void *ctx, const char *p, size_t n);

/* Close fd and rename tmp to path; when anything failed (failed, or the
 * close, or the rename), remove tmp instead. 0, or -1. */
int core_outfile_commit(int fd, int failed, const char *tmp, const char *path);

/* Whether a file is there: for core_outname_free. */
int core_outfile_exists(const char *path);

#endif
