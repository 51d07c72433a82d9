#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "runtime/modules.h"

struct scan {
	struct wt_module *mods;
	int n, max;
};

static void hex(char *dst, const unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 20; i++) {
		dst[2 * i] = "0123456789abcdef"[src[i] >> 4];
		dst[2 * i + 1] = "0123456789abcdef"[src[i] & 15];
	}
	dst[2 * i] = 0;
}

/* NT_GNU_BUILD_ID from a mapped PT_NOTE segment. */
static void build_id(struct wt_module *m, const char *note, size_t size)
{
	size_t off = 0;

	while (off + sizeof(ElfW(Nhdr)) <= size) {
		const ElfW(Nhdr) *nh = (const void *)(note + off);
		size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;
		const char *p = note + off + sizeof(*nh);

		if (off + sizeof(*nh) + name + desc > size)
			return;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(p, "GNU", 4)) {
			hex(m->build_id, (const unsigned char *)p + name, nh->n_descsz);
			return;
		}
		off += sizeof(*nh) + name + desc;
	}
}

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
			build_id(m, (const char *)(m->bias + ph->p_vaddr), ph->p_memsz);
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
