/*
 * modules.c - the ELF objects loaded in this process (modules.h).
 */
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "core/buildid.h"
#include "runtime/modules.h"

struct scan {
	struct wt_module *mods;
	int n, max;
};

static int one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	struct wt_module *m;
	int i;

	(void)size;
	if (s->n >= s->max)
		return 1;
	m = &s->mods[s->n];
	memset(m, 0, sizeof(*m));
	m->id = -1;
	m->bias = info->dlpi_addr;
	if (info->dlpi_name && info->dlpi_name[0]) {
		strncpy(m->path, info->dlpi_name, sizeof(m->path) - 1);
	} else if (s->n == 0) {
		ssize_t k = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);

		m->path[k > 0 ? k : 0] = 0;
	}
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && m->nseg < WT_MAX_SEGMENTS) {
			m->lo[m->nseg] = m->bias + ph->p_vaddr;
			m->hi[m->nseg] = m->bias + ph->p_vaddr + ph->p_memsz;
			m->nseg++;
		} else if (ph->p_type == PT_NOTE && !m->build_id[0]) {
			core_build_id((const void *)(m->bias + ph->p_vaddr), ph->p_memsz, m->build_id);
		}
	}
	if (m->nseg)
		s->n++;
	return 0;
}

int wt_modules_scan(struct wt_module *mods, int max)
{
	struct scan s = { mods, 0, max };

	dl_iterate_phdr(one, &s);
	return s.n;
}

int wt_modules_find(struct wt_module *mods, int n, uintptr_t pc)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < mods[i].nseg; j++)
			if (pc >= mods[i].lo[j] && pc < mods[i].hi[j])
				return i;
	return -1;
}
