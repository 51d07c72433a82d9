/*
 * elf_code.h - the bytes of a program's code as its ELF file holds them,
 * at link-time addresses: what the CLI decodes without running anything.
 */
#ifndef WITCH_CLI_ELF_CODE_H
#define WITCH_CLI_ELF_CODE_H

#include <stddef.h>
#include <stdint.h>

/* Copy len bytes at link-time address vaddr of the ELF file at path, all
 * inside one executable segment's file bytes, to out. -1 with the reason
 * in err. */
int elf_code_read(const char *path, uint64_t vaddr, size_t len, uint8_t *out, char *err,
		  size_t errlen);

#endif
