/*
 * flame.c - the flame graph's data (page.h): folded stacks, as
 * render_folded.c writes them, turned into one tree with each frame name
 * once, which a page draws from without splitting a string:
 *
 *   {"total":W,"names":[...],"nodes":[parent,name,value, ...]}
 *
 * Node i + 1 is nodes[3i], nodes[3i + 1], nodes[3i + 2]: the node it is
 * a child of (0: the root, the whole of W), its name's index, and the
 * weight of the stacks through it. A node comes after its parent.
 */
#include "report/html/page.h"
#include "report/grow.h"
#include "report/map.h"
#include "report/render.h"

#include <stdlib.h>
#include <string.h>

struct node {
	uint32_t parent, name;
	uint64_t value;
};

struct flame {
	char **names;		/* into the folded text */
	size_t nnames, cap_names;
	struct wr_map name_map;	/* (hash, collisions) -> name */
	struct node *nodes;	/* nodes[0] is the root */
	size_t n, cap;
	struct wr_map kid_map;	/* (parent, name) -> node */
};

/* The index of name, added if new; -1 when out of memory. Strings with
 * one hash get a slot each, as merge.c's do. */
static int64_t intern(struct flame *f, char *name)
{
	uint64_t h = wr_hash_str(WR_HASH_INIT, name), k;
	uint32_t idx;

	for (k = 0; wr_map_get(&f->name_map, h, k, &idx); k++)
		if (!strcmp(f->names[idx], name))
			return idx;
	if (f->nnames >= UINT32_MAX ||
	    wr_grow((void **)&f->names, &f->cap_names, f->nnames + 1, sizeof(*f->names)) ||
	    wr_map_put(&f->name_map, h, k, (uint32_t)f->nnames))
		return -1;
	f->names[f->nnames] = name;
	return (int64_t)f->nnames++;
}

/* The child of parent named name, added if new; -1 when out of memory. */
static int64_t child(struct flame *f, uint32_t parent, char *name)
{
	int64_t id = intern(f, name);
	uint32_t idx;

	if (id < 0)
		return -1;
	if (wr_map_get(&f->kid_map, parent, (uint64_t)id, &idx))
		return idx;
	if (f->n >= UINT32_MAX || wr_grow((void **)&f->nodes, &f->cap, f->n + 1, sizeof(*f->nodes)) ||
	    wr_map_put(&f->kid_map, parent, (uint64_t)id, (uint32_t)f->n))
		return -1;
	f->nodes[f->n].parent = parent;
	f->nodes[f->n].name = (uint32_t)id;
	f->nodes[f->n].value = 0;
	return (int64_t)f->n++;
}

/* One "a;b;c weight" line (cut into pieces where it is). */
static int add_line(struct flame *f, char *line)
{
	char *sp = strrchr(line, ' '), *frame, *next;
	uint64_t w;
	int64_t node = 0;

	if (!sp)
		return 0;
	*sp = 0;
	w = strtoull(sp + 1, NULL, 10);
	f->nodes[0].value += w;
	for (frame = line; frame; frame = next) {
		next = strchr(frame, ';');
		if (next)
			*next++ = 0;
		if ((node = child(f, (uint32_t)node, frame)) < 0)
			return -1;
		f->nodes[node].value += w;
	}
	return 0;
}

static void put(FILE *data, const struct flame *f)
{
	size_t i;

	fprintf(data, "{\"total\":%llu,\"names\":[", (unsigned long long)f->nodes[0].value);
	for (i = 0; i < f->nnames; i++) {
		if (i)
			fputc(',', data);
		wr_json_string(data, f->names[i]);
	}
	fputs("],\"nodes\":[", data);
	for (i = 1; i < f->n; i++)
		fprintf(data, "%s%u,%u,%llu", i > 1 ? "," : "", f->nodes[i].parent, f->nodes[i].name,
			(unsigned long long)f->nodes[i].value);
	fputs("]}", data);
}

int html_flame(FILE *data, int (*folded)(FILE *out, void *arg), void *arg)
{
	struct flame f = { 0 };
	char *text = NULL, *line, *next;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret = -1;

	if (!mem)
		return -1;
	ret = folded(mem, arg);
	if (fclose(mem) || ret) {
		ret = -1;
		goto out;
	}
	ret = -1;
	if (wr_grow((void **)&f.nodes, &f.cap, 1, sizeof(*f.nodes)))
		goto out;
	memset(&f.nodes[0], 0, sizeof(f.nodes[0]));
	f.n = 1;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (add_line(&f, line))
			goto out;
	}
	put(data, &f);
	ret = 0;
out:
	free(f.names);
	free(f.nodes);
	wr_map_free(&f.name_map);
	wr_map_free(&f.kid_map);
	free(text);
	return ret;
}
