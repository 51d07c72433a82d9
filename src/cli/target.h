/*
 * target.h - checks on the program to be measured, before it runs, so that
 * a user learns at once why preloading cannot work.
 */
#ifndef WITCH_TARGET_H
#define WITCH_TARGET_H

#include <stddef.h>

/* Find `name` like execvp does. Returns 0 and fills path, or -1 with a
 * one-line reason in err. */
int target_resolve(const char *name, char *path, size_t cap, char *err, size_t errlen);

/* 0 when LD_PRELOAD can reach the program; -1 with the reason otherwise
 * (statically linked, setuid, not an executable format we understand). */
int target_preloadable(const char *path, char *err, size_t errlen);

#endif
