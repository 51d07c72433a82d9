/*
 * cpi_code.c - what an instruction and a source line say: the bytes of an
 * instruction from its module's file (the loadable segment holding its
 * offset), disassembled by Zydis, and the text of a source line.
 *
 * A module's file is used only when its build id is the one profiled (or
 * none was recorded): a rebuilt program's bytes at the same offset are
 * other instructions.
 */
#include "report/cpi.h"
#include "report/report.h"
#include "report/source.h"
#include "core/buildid.h"

#include <Zydis/Zydis.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct code_module {
	int state;		/* 0: not tried, 1: usable, -1: not */
	int fd;
	size_t nph;
	GElf_Phdr *ph;		/* PT_LOAD segments */
};

struct code {
	struct code_module *mods;
	size_t nmods;
	struct wr_sources src;
};

static struct code *code_of(struct cpi *c)
{
	struct code *k = c->code;

	if (!k) {
		k = c->code = calloc(1, sizeof(*k));
		if (k) {
			k->nmods = c->r->nmods;
			k->mods = calloc(k->nmods ? k->nmods : 1, sizeof(*k->mods));
			if (!k->mods) {
				free(k);
				k = c->code = NULL;
			}
		}
	}
	return k;
}

/* The file's loadable segments, if its build id is the profiled one. */
static void open_module(struct code_module *cm, const struct wr_module *m)
{
	char id[CORE_BUILD_ID_HEX] = "";
	size_t n, i;
	Elf *elf;

	cm->state = -1;
	cm->fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (cm->fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(cm->fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n))
		goto fail;
	cm->ph = calloc(n ? n : 1, sizeof(*cm->ph));
	if (!cm->ph)
		goto fail;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD) {
			cm->ph[cm->nph++] = ph;
		} else if (ph.p_type == PT_NOTE && !id[0] && ph.p_filesz <= 65536) {
			char *note = malloc(ph.p_filesz ? ph.p_filesz : 1);

			if (note && pread(cm->fd, note, ph.p_filesz, (off_t)ph.p_offset) ==
					    (ssize_t)ph.p_filesz)
				core_build_id(note, ph.p_filesz, id);
			free(note);
		}
	}
	if (m->build_id && strcmp(id, m->build_id))
		goto fail;
	elf_end(elf);
	cm->state = 1;
	return;
fail:
	if (elf)
		elf_end(elf);
	close(cm->fd);
	cm->fd = -1;
}

void cpi_disassemble(struct cpi *c, uint32_t insn, char *buf, size_t cap)
{
	const struct cpi_insn *in = &c->insns[insn];
	struct code *k = code_of(c);
	struct code_module *cm;
	ZydisDisassembledInstruction zi;
	unsigned char bytes[16];
	size_t i;

	buf[0] = 0;
	if (!k || in->module < 0 || (size_t)in->module >= k->nmods)
		return;
	cm = &k->mods[in->module];
	if (!cm->state)
		open_module(cm, &c->r->mods[in->module]);
	if (cm->state < 0)
		return;
	for (i = 0; i < cm->nph; i++) {
		const GElf_Phdr *ph = &cm->ph[i];

		if (in->offset < ph->p_vaddr || in->offset + in->len > ph->p_vaddr + ph->p_filesz)
			continue;
		if (pread(cm->fd, bytes, in->len, (off_t)(in->offset - ph->p_vaddr + ph->p_offset)) !=
			    (ssize_t)in->len ||
		    !ZYAN_SUCCESS(ZydisDisassembleATT(ZYDIS_MACHINE_MODE_LONG_64, in->offset, bytes,
						      in->len, &zi)))
			return;
		snprintf(buf, cap, "%s", zi.text);
		return;
	}
}

const char *cpi_source_line(struct cpi *c, const char *file, int line)
{
	struct code *k = code_of(c);

	return k ? wr_source_line(&k->src, file, line) : NULL;
}

void cpi_code_free(struct cpi *c)
{
	struct code *k = c->code;
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nmods; i++) {
		if (k->mods[i].state > 0)
			close(k->mods[i].fd);
		free(k->mods[i].ph);
	}
	wr_sources_free(&k->src);
	free(k->mods);
	free(k);
	c->code = NULL;
}
