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
#include "report/grow.h"
#include "report/report.h"
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

struct source {
	char *path;
	char *text;		/* the file, lines split at their ends */
	char **line;		/* line[i]: line i + 1 */
	size_t nlines;
};

struct code {
	struct code_module *mods;
	size_t nmods;
	struct source *src;
	size_t nsrc, cap_src;
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

static struct source *read_source(struct code *k, const char *path)
{
	struct source *s;
	FILE *f;
	long size;
	size_t i, n;

	for (i = 0; i < k->nsrc; i++)
		if (!strcmp(k->src[i].path, path))
			return &k->src[i];
	if (wr_grow((void **)&k->src, &k->cap_src, k->nsrc + 1, sizeof(*k->src)))
		return NULL;
	s = &k->src[k->nsrc++];
	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	f = fopen(path, "r");
	if (!s->path || !f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || size > (1L << 26) ||
	    fseek(f, 0, SEEK_SET) || !(s->text = malloc((size_t)size + 1)) ||
	    fread(s->text, 1, (size_t)size, f) != (size_t)size) {
		if (f)
			fclose(f);
		free(s->text);
		s->text = NULL;
		return s;
	}
	fclose(f);
	s->text[size] = 0;
	for (i = 0, n = 1; i < (size_t)size; i++)
		n += s->text[i] == '\n';
	s->line = calloc(n, sizeof(*s->line));
	if (!s->line)
		return s;
	s->line[s->nlines++] = s->text;
	for (i = 0; i < (size_t)size; i++)
		if (s->text[i] == '\n') {
			s->text[i] = 0;
			if (i + 1 < (size_t)size)
				s->line[s->nlines++] = s->text + i + 1;
		}
	return s;
}

const char *cpi_source_line(struct cpi *c, const char *file, int line)
{
	struct code *k = code_of(c);
	struct source *s;

	if (!k || !file || line < 1)
		return NULL;
	s = read_source(k, file);
	return s && s->line && (size_t)line <= s->nlines ? s->line[line - 1] : NULL;
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
	for (i = 0; i < k->nsrc; i++) {
		free(k->src[i].path);
		free(k->src[i].text);
		free(k->src[i].line);
	}
	free(k->mods);
	free(k->src);
	free(k);
	c->code = NULL;
}
