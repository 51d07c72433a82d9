/*
 * buildid.c - the GNU build id from an ELF note segment (buildid.h).
 */
#include <stdint.h>

#include "core/buildid.h"

#define NOTE_HEADER 12		/* namesz, descsz, type: 32 bits each */
#define NT_GNU_BUILD_ID 3

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

int core_build_id(const void *note, size_t size, char out[CORE_BUILD_ID_HEX])
{
	const unsigned char *p = note;
	size_t off = 0, i;

	while (off + NOTE_HEADER <= size) {
		uint32_t namesz = u32_at(p + off), descsz = u32_at(p + off + 4);
		size_t name = (namesz + 3) & ~3u, desc = (descsz + 3) & ~3u;
		const unsigned char *n = p + off + NOTE_HEADER;

		if (off + NOTE_HEADER + name + desc > size)
			return 0;
		if (u32_at(p + off + 8) == NT_GNU_BUILD_ID && namesz == 4 && n[0] == 'G' &&
		    n[1] == 'N' && n[2] == 'U' && n[3] == 0) {
			for (i = 0; i < descsz && i < (CORE_BUILD_ID_HEX - 1) / 2; i++) {
				out[2 * i] = "0123456789abcdef"[n[name + i] >> 4];
				out[2 * i + 1] = "0123456789abcdef"[n[name + i] & 15];
			}
			out[2 * i] = 0;
			return 1;
		}
		off += NOTE_HEADER + name + desc;
	}
	return 0;
}
