/*
 * debuginfo.h - where the DWARF of a binary is, as the report finds it.
 */
#ifndef WITCH_DEBUGINFO_H
#define WITCH_DEBUGINFO_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

/*
 * 1 when `path` has DWARF line information, in itself or in a separate
 * debug file (.gnu_debuglink, /usr/lib/debug/.build-id); *where says which
 * file. 0 when it has none; -1 when path is not an ELF file we can open.
 */
int wr_debuginfo(const char *path, char *where, size_t cap);

/* A libdwfl session for ELF files reported at their link-time addresses,
 * their separate debug files found the standard way; NULL when out of
 * memory. */
Dwfl *wr_dwfl_offline(void);

/* The ELF file at path, alone in such a session of its own (*dwflp, for
 * dwfl_end), at its link-time addresses; NULL, and *dwflp NULL, when it is
 * no ELF file we can open or memory is short. */
Dwfl_Module *wr_dwfl_open(Dwfl **dwflp, const char *path);

#endif
