/*
 * cpuprobe.h - what this CPU does that changes how traps read (witch
 * doctor): how it reports a watched hit inside a rep string instruction,
 * and whether programs here use AVX-512 masked accesses.
 */
#ifndef WITCH_CPUPROBE_H
#define WITCH_CPUPROBE_H

#include <stddef.h>

struct string_hits {
	int traps;		/* traps for 8 watched bytes stored by one rep stosb */
	long past;		/* at the first: how far RDI was past the watched bytes */
};

/* Store 4 KiB with rep stosb over an 8-byte write watchpoint in its
 * middle: 0 and *r, or -1 with why in err. */
int probe_string_hits(struct string_hits *r, char *err, size_t errlen);

/* 1 when the CPU and the kernel give programs AVX-512 (glibc then stores
 * and loads with 64-byte and masked instructions). */
int cpu_has_avx512(void);

/* The fast-string features the CPU announces ("ERMS FSRM"), or "none". */
const char *cpu_fast_strings(void);

#endif
