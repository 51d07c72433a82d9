/*
 * uprobe.h - count executions of an instruction of this process with a
 * uprobe (the kernel's `uprobe` perf PMU). Shared by libwitchcausal.so,
 * which counts --progress visits with it where hardware breakpoints do not
 * fire, and the CLI, which checks that it counts.
 */
#ifndef WITCH_CORE_UPROBE_H
#define WITCH_CORE_UPROBE_H

#include <stddef.h>
#include <stdint.h>

/* The uprobe PMU's perf type, or -1 when this kernel has none. */
int core_uprobe_type(void);

/* The file mapped at run-time address addr of this process and addr's
 * offset in it; -1 (errno ENOENT) when no file is mapped there. */
int core_file_offset(uintptr_t addr, char *path, size_t cap, uint64_t *off);

/* A counting uprobe (no signal) on the instruction at run-time address
 * addr, inherited by the threads this one creates: a perf fd whose read
 * gives the executions, or -1 with errno (ENODEV: no uprobe PMU). The
 * file's path goes to path (cap bytes), which must outlive the event: the
 * kernel reads it again at every thread creation, and a creation whose
 * copy of the event cannot be made fails. */
int core_uprobe_open(uintptr_t addr, char *path, size_t cap);

#endif
