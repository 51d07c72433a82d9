/*
 * debug_files.c - the system's detached debug files stay unread.
 *
 * For every library it loads, Valgrind's core looks for the library's
 * detached debug file under /usr/lib/debug (Debian's libc6-dbg, the
 * -dbgsym packages) and reads its names and line tables. glibc's is
 * compressed DWARF: inflating it costs every run some 17 MB at its peak
 * and doubles Valgrind's start-up (docs/spy.md). These tools use neither
 * the names nor the lines: witch report and the loop finder read debug
 * information themselves (libdw), and the tool needs only what a library
 * carries itself: its CFI (.eh_frame) to unwind, and its exported names
 * (free, realloc, main). witch cpi's counting run does use the names, to
 * find the function a call site is in, and still reads them.
 *
 * The core opens every ELF image it reads through one function; the link
 * (spy.mk, --wrap) routes its calls here where the installed Valgrind has
 * it. A file refused looks to the core like a debug file not installed.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"

#include "spy.h"

#ifdef SPY_WRAP_IMG_OPEN

#define SYSTEM_DEBUG_DIR "/usr/lib/debug/"

void *__real_vgModuleLocal_img_from_local_file(const HChar *path);
void *__wrap_vgModuleLocal_img_from_local_file(const HChar *path);

void *__wrap_vgModuleLocal_img_from_local_file(const HChar *path)
{
	if (spy_cfg.tool != SPY_COUNT &&
	    !VG_(strncmp)(path, SYSTEM_DEBUG_DIR, sizeof(SYSTEM_DEBUG_DIR) - 1))
		return NULL;
	return __real_vgModuleLocal_img_from_local_file(path);
}

#endif
