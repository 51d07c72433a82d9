/*
 * modules.h - the ELF objects loaded in this process, so that addresses are
 * stored as (module, offset) and survive ASLR.
 */
#ifndef WITCH_MODULES_H
#define WITCH_MODULES_H

#include <stdint.h>

#include "core/buildid.h"

#define WT_MAX_MODULES 512
#define WT_MAX_SEGMENTS 16

struct wt_module {
	char path[512];
	char build_id[CORE_BUILD_ID_HEX];	/* "" if none */
	uintptr_t bias;
	int nseg;
	uintptr_t lo[WT_MAX_SEGMENTS], hi[WT_MAX_SEGMENTS];
	int used;		/* referenced by a node: gets a module line */
	int id;			/* id in the profile, -1 until used */
};

/* Snapshot the loaded modules (not async-signal-safe: dl_iterate_phdr). */
int wt_modules_scan(struct wt_module *mods, int max);
/* Index of the module holding address pc, or -1. */
int wt_modules_find(struct wt_module *mods, int n, uintptr_t pc);

#endif
