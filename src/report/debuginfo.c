#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>

#include "report/debuginfo.h"
#include "report/symbolize.h"

static char *debuginfo_path;	/* libdwfl's default search path */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static const Dwfl_Callbacks offline = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

Dwfl *wr_dwfl_offline(void)
{
	return dwfl_begin(&offline);
}

int wr_debuginfo(const char *path, char *where, size_t cap)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	const char *mainfile = NULL, *debugfile = NULL;
	int found = -1;

	if (!dwfl)
		return -1;
	mod = dwfl_report_elf(dwfl, "target", path, -1, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod) {
		found = dwfl_module_getdwarf(mod, &bias) != NULL;
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
		snprintf(where, cap, "%s", debugfile ? debugfile : mainfile ? mainfile : path);
	}
	dwfl_end(dwfl);
	return found;
}

Dwfl_Module *wr_dwfl_open(Dwfl **dwflp, const char *path)
{
	Dwfl *dwfl = wr_dwfl_offline();
	Dwfl_Module *mod;

	*dwflp = NULL;
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	/* add_p_vaddr with base 0: module addresses are ELF vaddrs. */
	mod = dwfl_report_elf(dwfl, wr_basename(path), path, -1, 0, true);
	if (dwfl_report_end(dwfl, NULL, NULL) || !mod) {
		dwfl_end(dwfl);
		return NULL;
	}
	*dwflp = dwfl;
	return mod;
}
