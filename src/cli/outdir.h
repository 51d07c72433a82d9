/*
 * outdir.h - what the measuring commands share: their output directory and
 * where witch's own files are installed.
 */
#ifndef WITCH_OUTDIR_H
#define WITCH_OUTDIR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Create DIR (and its parents), prove it is writable, and remove the
 * profiles (and valgrind logs) of an earlier run: under a launcher, only
 * those of this host and rank (cli/job.h), the other ranks' being this
 * run's. Puts its absolute path in abs. On failure prints one line
 * starting with `who` and returns 2.
 */
int outdir_prepare(const char *who, const char *dir, char *abs, size_t cap);

/* outdir_prepare for one of two runs into DIR (witch cpi --run): of the
 * earlier profiles, only those of tool (this rank's) are removed. */
int outdir_prepare_run(const char *who, const char *dir, char *abs, size_t cap, const char *tool);

/*
 * Would outdir_prepare succeed? Checks without creating anything, so a
 * command can report a bad -o before other refusals and still leave no
 * directory behind. Same messages and return value as outdir_prepare.
 */
int outdir_check(const char *who, const char *dir);

/* Remove the files of DIR whose names match. */
void outdir_remove(const char *dir, int (*match)(const char *name));

/* witch spy's valgrind logs: valgrind-PID.log (this rank's under a
 * launcher: valgrind-hHOST-rRANK-PID.log). */
int outdir_is_valgrind_log(const char *name);

/* Profiles in DIR (under a launcher: this rank's); *unsampled sums their
 * threads_unsampled (may be NULL). */
int outdir_count_profiles(const char *dir, uint64_t *unsampled);

/* Whether dir holds a profile of tool that is this process's (under a
 * launcher: of its host and rank). */
int outdir_has_tool(const char *dir, const char *tool);

/* witch record's and witch spy's last line: n profiles in dir (as the
 * user named it) and how to see them; under a launcher, rank 0's alone,
 * for all ranks. */
void outdir_say_profiles(const char *who, int n, const char *dir);

/* This witch's own executable, absolute. Returns 0 or -1. */
int witch_self(char *path, size_t cap);

/* witch's library directory, ../lib/witch beside this executable, both in
 * the build tree and after `make install`. Returns 0 or -1. */
int witch_libdir(char *dir, size_t cap);

#endif
