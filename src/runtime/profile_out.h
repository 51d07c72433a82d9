/*
 * profile_out.h - turns the runtime's per-thread trees into a profile file.
 */
#ifndef WITCH_PROFILE_OUT_H
#define WITCH_PROFILE_OUT_H

#include <stddef.h>

void wt_profile_reset(void);	/* start of a process image (init, fork child) */
void wt_count_unsampled_thread(void);
/* Write <outdir>/<program>-<pid>.witch (core/outname.h); complete=0 on a
 * crash path.
 * When path is not NULL, the file's name is copied there. */
int wt_profile_write(int complete, char *path_out, size_t cap);

#endif
