/*
 * elf_code.c - code bytes from an ELF file's executable PT_LOAD segments,
 * found by their program headers (sections may be stripped).
 */
#include "cli/elf_code.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int elf_code_read(const char *path, uint64_t vaddr, size_t len, uint8_t *out, char *err,
		  size_t errlen)
{
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n)) {
		snprintf(err, errlen, "cannot read %s as an ELF file: %s", path, elf_errmsg(-1));
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		if (pread(fd, out, len, (off_t)(ph.p_offset + (vaddr - ph.p_vaddr))) == (ssize_t)len)
			ret = 0;
		else
			snprintf(err, errlen, "cannot read the code of %s at 0x%llx", path,
				 (unsigned long long)vaddr);
		goto out;
	}
	snprintf(err, errlen, "%s has no code at 0x%llx-0x%llx", path, (unsigned long long)vaddr,
		 (unsigned long long)(vaddr + len));
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
