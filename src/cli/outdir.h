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
 * profiles (and valgrind logs) of an earlier run. Puts its absolute path
 * in abs. On failure prints one line starting with `who` and returns 2.
 */
int outdir_prepare(const char *who, const char *dir, char *abs, size_t cap);

/*
 * Would outdir_prepare succeed? Checks without creating anything, so a
 * command can report a bad -o before other refusals and still leave no
 * directory behind. Same messages and return value as outdir_prepare.
 */
int outdir_check(const char *who, const char *dir);

/* Remove the files of DIR whose names match. */
void outdir_remove(const char *dir, int (*match)(const char *name));

/* witch spy's valgrind logs: valgrind-PID.log. */
int outdir_is_valgrind_log(const char *name);

/* Profiles in DIR; *unsampled sums their threads_unsampled (may be NULL). */
int outdir_count_profiles(const char *dir, uint64_t *unsampled);

/* witch's library directory, ../lib/witch beside this executable, both in
 * the build tree and after `make install`. Returns 0 or -1. */
int witch_libdir(char *dir, size_t cap);

#endif
