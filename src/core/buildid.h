/*
 * buildid.h - an ELF object's GNU build id, which the reports use to find
 * its debug information and to tell two builds apart. The runtime reads
 * the notes from the loaded image, the Valgrind tool from the file; both
 * hand them here. Freestanding.
 */
#ifndef WITCH_CORE_BUILDID_H
#define WITCH_CORE_BUILDID_H

#include <stddef.h>

#define CORE_BUILD_ID_HEX 41	/* 20 bytes in hex, and the NUL */

/* The build id among the notes of one PT_NOTE segment (size bytes at
 * note): in hex into out, and 1; 0 when there is none (out untouched). */
int core_build_id(const void *note, size_t size, char out[CORE_BUILD_ID_HEX]);

#endif
