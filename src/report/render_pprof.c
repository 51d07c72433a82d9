/*
 * render_pprof.c - the report as a pprof profile: a gzipped
 * perftools.profiles.Profile message (profile.proto), for `go tool
 * pprof`, and the viewers that read its format.
 *
 * The samples are the contexts of the folded stacks (stacks.c), with the
 * same weights: those of the contexts that read as one folded stack sum
 * to that stack's rounded weight exactly, as each takes the rounded
 * running sum up to it minus that before it. Each context node is a
 * Location: its code's address in its module (the ELF virtual address,
 * as if each module were loaded at its link address), its function and
 * source line, and the functions inlined there as Lines before it,
 * innermost first, as profile.proto orders them. Each module is a
 * Mapping, named by its path and build-id, whose functions are given:
 * pprof does not symbolize them again.
 */
#include "report/grow.h"
#include "report/map.h"
#include "report/protobuf.h"
#include "report/render.h"
#include "report/report.h"
#include "report/stacks.h"
#include "report/symbolize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_COMMENT = 13,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

struct line {
	uint32_t function;	/* index into functions */
	int line;
};

struct location {
	int32_t module;		/* -1: none */
	uint64_t addr;
	size_t first_line, nlines;	/* into lines */
};

struct function {
	uint32_t name, system_name, file;	/* into strings */
};

struct pprof {
	const struct wr_report *r;
	struct wr_symbolizer *s;
	struct wr_pb pb;	/* the Profile, samples first */
	char **strings;		/* [0] is "", as profile.proto wants */
	size_t nstrings, cap_strings;
	struct wr_map string_map;	/* (hash, probe) -> index */
	struct function *functions;
	size_t nfunctions, cap_functions;
	struct wr_map function_map;	/* (name | system_name << 32, file) -> index */
	struct location *locations;
	size_t nlocations, cap_locations;
	struct wr_map location_map;	/* (module + 1, addr) -> index */
	struct line *lines;
	size_t nlines, cap_lines;
	uint64_t *ids;		/* one sample's location ids, leaf first */
	size_t cap_ids;
	uint64_t *limits;	/* per module: past its highest address; 0 when unused */
};

/* The string's index in the table, added if new; -1 when out of memory.
 * Hashes that collide take the next probe. */
static int64_t string(struct pprof *p, const char *str)
{
	uint64_t h = wr_hash_str(WR_HASH_INIT, str), probe;
	uint32_t i;

	for (probe = 0; wr_map_get(&p->string_map, h, probe, &i); probe++)
		if (!strcmp(p->strings[i], str))
			return i;
	if (p->nstrings >= UINT32_MAX ||
	    wr_grow((void **)&p->strings, &p->cap_strings, p->nstrings + 1, sizeof(*p->strings)) ||
	    !(p->strings[p->nstrings] = strdup(str)))
		return -1;
	if (wr_map_put(&p->string_map, h, probe, (uint32_t)p->nstrings)) {
		free(p->strings[p->nstrings]);
		return -1;
	}
	return (int64_t)p->nstrings++;
}

/* The frame's function's index, added if new; -1 when out of memory. */
static int64_t function(struct pprof *p, const struct wr_frame *fr)
{
	char label[512];
	int64_t name = string(p, wr_stack_frame_name(p->r, fr, label, sizeof(label)));
	int64_t system_name = fr->linkage ? string(p, fr->linkage) : name;
	int64_t file = string(p, fr->file ? fr->file : "");
	uint64_t a = (uint64_t)name | (uint64_t)system_name << 32;
	uint32_t i;

	if (name < 0 || system_name < 0 || file < 0)
		return -1;
	if (wr_map_get(&p->function_map, a, (uint64_t)file, &i))
		return i;
	if (wr_grow((void **)&p->functions, &p->cap_functions, p->nfunctions + 1,
		    sizeof(*p->functions)) ||
	    wr_map_put(&p->function_map, a, (uint64_t)file, (uint32_t)p->nfunctions))
		return -1;
	p->functions[p->nfunctions] =
		(struct function){ (uint32_t)name, (uint32_t)system_name, (uint32_t)file };
	return (int64_t)p->nfunctions++;
}

/* The location of one context node, whose n frames (its function last,
 * those inlined into it before) are fr; its index, added if new, or -1
 * when out of memory. */
static int64_t location(struct pprof *p, const struct wr_frame *fr, long n)
{
	uint64_t mod = (uint64_t)(fr->module + 1);
	struct location *l;
	uint32_t i;
	long k;

	if (wr_map_get(&p->location_map, mod, fr->addr, &i))
		return i;
	if (wr_grow((void **)&p->locations, &p->cap_locations, p->nlocations + 1,
		    sizeof(*p->locations)) ||
	    wr_grow((void **)&p->lines, &p->cap_lines, p->nlines + (size_t)n, sizeof(*p->lines)))
		return -1;
	l = &p->locations[p->nlocations];
	*l = (struct location){ fr->module, fr->addr, p->nlines, (size_t)n };
	for (k = 0; k < n; k++) {
		int64_t f = function(p, &fr[k]);

		if (f < 0)
			return -1;
		p->lines[p->nlines++] = (struct line){ (uint32_t)f, fr[k].line };
	}
	if (fr->module >= 0 && fr->addr >= p->limits[fr->module])
		p->limits[fr->module] = fr->addr + 1;
	if (wr_map_put(&p->location_map, mod, fr->addr, (uint32_t)p->nlocations))
		return -1;
	return (int64_t)p->nlocations++;
}

/* A Sample: context ctx's locations, leaf first, and its value. */
static int sample(struct pprof *p, uint32_t ctx, uint64_t value)
{
	/* A context without frames carries its weight on one unknown one,
	 * as its folded stack does. */
	static const struct wr_frame unknown = { .module = -1 };
	const struct wr_frame *fr;
	long n = wr_sym_context(p->s, ctx, &fr), i, j;
	size_t nids = 0, k, mark, packed;

	if (n < 0)
		return -1;
	if (n == 0) {
		fr = &unknown;
		n = 1;
	}
	for (i = 0; i < n; i = j) {
		int64_t l;

		for (j = i + 1; j < n && !fr[j].first; j++)
			;
		if ((l = location(p, &fr[i], j - i)) < 0 ||
		    wr_grow((void **)&p->ids, &p->cap_ids, nids + 1, sizeof(*p->ids)))
			return -1;
		p->ids[nids++] = (uint64_t)l + 1;
	}
	mark = wr_pb_begin(&p->pb);
	packed = wr_pb_begin(&p->pb);
	for (k = 0; k < nids; k++)
		wr_pb_varint(&p->pb, p->ids[k]);
	wr_pb_end(&p->pb, SAMPLE_LOCATION_ID, packed);
	packed = wr_pb_begin(&p->pb);
	wr_pb_varint(&p->pb, value > INT64_MAX ? INT64_MAX : value);
	wr_pb_end(&p->pb, SAMPLE_VALUE, packed);
	wr_pb_end(&p->pb, PROFILE_SAMPLE, mark);
	return 0;
}

/*
 * Every context of every stack with its share of the stack's rounded
 * weight; contexts that would weigh 0 are left out, as are the folded
 * lines of 0. Entries of one context (several pairs) are one sample.
 */
static int samples(struct pprof *p, const struct wr_stacks *st)
{
	size_t i, j, k, end;

	for (i = 0; i < st->n; i = end) {
		uint64_t sum = 0, shown = 0;

		end = wr_stacks_end(st, i);
		for (j = i; j < end; j = k) {
			uint64_t now;

			for (k = j; k < end && st->v[k].ctx == st->v[j].ctx; k++)
				sum = wr_stacks_add(sum, st->v[k].weight);
			now = wr_stacks_whole(st, sum);
			if (now > shown && sample(p, st->v[j].ctx, now - shown))
				return -1;
			shown = now;
		}
	}
	return 0;
}

static int value_type(struct pprof *p, uint32_t field, const char *type, const char *unit)
{
	int64_t t = string(p, type), u = string(p, unit);
	size_t mark = wr_pb_begin(&p->pb);

	if (t < 0 || u < 0)
		return -1;
	wr_pb_uint(&p->pb, VALUE_TYPE_TYPE, (uint64_t)t);
	wr_pb_uint(&p->pb, VALUE_TYPE_UNIT, (uint64_t)u);
	wr_pb_end(&p->pb, field, mark);
	return 0;
}

/* Module m's Mapping, numbered m + 1. */
static int mapping(struct pprof *p, size_t m)
{
	const struct wr_module *mod = &p->r->mods[m];
	int64_t file = string(p, mod->path);
	int64_t build_id = string(p, mod->build_id ? mod->build_id : "");
	int dwarf = wr_sym_module_has_dwarf(p->s, (int32_t)m);
	size_t mark = wr_pb_begin(&p->pb);

	if (file < 0 || build_id < 0)
		return -1;
	wr_pb_uint(&p->pb, MAPPING_ID, m + 1);
	wr_pb_uint(&p->pb, MAPPING_MEMORY_LIMIT, p->limits[m]);
	wr_pb_uint(&p->pb, MAPPING_FILENAME, (uint64_t)file);
	wr_pb_uint(&p->pb, MAPPING_BUILD_ID, (uint64_t)build_id);
	wr_pb_uint(&p->pb, MAPPING_HAS_FUNCTIONS, 1);
	wr_pb_uint(&p->pb, MAPPING_HAS_FILENAMES, dwarf);
	wr_pb_uint(&p->pb, MAPPING_HAS_LINE_NUMBERS, dwarf);
	wr_pb_uint(&p->pb, MAPPING_HAS_INLINE_FRAMES, dwarf);
	wr_pb_end(&p->pb, PROFILE_MAPPING, mark);
	return 0;
}

/*
 * The Mapping of each module with locations. The program's comes first,
 * as profile.proto wants (pprof names the profile after it): the module
 * named as the first process's command, when one is.
 */
static int mappings(struct pprof *p)
{
	const struct wr_report *r = p->r;
	size_t m, main = r->nmods;

	if (r->nprocs && r->procs[0].nargs)
		for (m = 0; m < r->nmods && main == r->nmods; m++)
			if (p->limits[m] && !strcmp(wr_basename(r->mods[m].path),
						    wr_basename(r->procs[0].args[0])))
				main = m;
	if (main < r->nmods && mapping(p, main))
		return -1;
	for (m = 0; m < r->nmods; m++)
		if (p->limits[m] && m != main && mapping(p, m))
			return -1;
	return 0;
}

static void locations(struct pprof *p)
{
	size_t i, k;

	for (i = 0; i < p->nlocations; i++) {
		const struct location *l = &p->locations[i];
		size_t mark = wr_pb_begin(&p->pb);

		wr_pb_uint(&p->pb, LOCATION_ID, i + 1);
		wr_pb_uint(&p->pb, LOCATION_MAPPING_ID, (uint64_t)(l->module + 1));
		wr_pb_uint(&p->pb, LOCATION_ADDRESS, l->addr);
		for (k = l->first_line; k < l->first_line + l->nlines; k++) {
			size_t line = wr_pb_begin(&p->pb);

			wr_pb_uint(&p->pb, LINE_FUNCTION_ID, p->lines[k].function + 1);
			wr_pb_uint(&p->pb, LINE_LINE, (uint64_t)(int64_t)p->lines[k].line);
			wr_pb_end(&p->pb, LOCATION_LINE, line);
		}
		wr_pb_end(&p->pb, PROFILE_LOCATION, mark);
	}
}

static void functions(struct pprof *p)
{
	size_t i;

	for (i = 0; i < p->nfunctions; i++) {
		const struct function *f = &p->functions[i];
		size_t mark = wr_pb_begin(&p->pb);

		wr_pb_uint(&p->pb, FUNCTION_ID, i + 1);
		wr_pb_uint(&p->pb, FUNCTION_NAME, f->name);
		wr_pb_uint(&p->pb, FUNCTION_SYSTEM_NAME, f->system_name);
		wr_pb_uint(&p->pb, FUNCTION_FILENAME, f->file);
		wr_pb_end(&p->pb, PROFILE_FUNCTION, mark);
	}
}

/* The whole Profile message: its value's type, the samples, the tables
 * they refer to, and a comment saying what the profile is. */
static int encode(struct pprof *p, const struct wr_stacks *st, const char *type,
		  const char *unit, const char *comment)
{
	int64_t c;
	size_t i;

	if (string(p, "") != 0 || value_type(p, PROFILE_SAMPLE_TYPE, type, unit) ||
	    samples(p, st) || mappings(p) || (c = string(p, comment)) < 0)
		return -1;
	locations(p);
	functions(p);
	for (i = 0; i < p->nstrings; i++)
		wr_pb_bytes(&p->pb, PROFILE_STRING_TABLE, p->strings[i], strlen(p->strings[i]));
	wr_pb_uint(&p->pb, PROFILE_COMMENT, (uint64_t)c);
	return p->pb.failed ? -1 : 0;
}

/* data, gzipped (profile.proto: on disk, the profile is), into out. */
static int gzip_to(FILE *out, const unsigned char *data, size_t n)
{
	unsigned char chunk[1 << 16];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: the largest window, with a gzip header and trailer. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)data;
	do {
		/* avail_in is 32 bits: feed a profile of any size in parts. */
		if (!z.avail_in && n) {
			z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
			n -= z.avail_in;
		}
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, n || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (ret == Z_STREAM_ERROR ||
		    fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out)
			break;
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

static int render(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		  const struct wr_stacks *st, const char *type, const char *unit,
		  const char *comment)
{
	struct pprof p;
	size_t i;
	int ret;

	memset(&p, 0, sizeof(p));
	p.r = r;
	p.s = s;
	p.limits = calloc(r->nmods ? r->nmods : 1, sizeof(*p.limits));
	ret = p.limits ? encode(&p, st, type, unit, comment) : -1;
	if (!ret)
		ret = gzip_to(out, p.pb.buf, p.pb.len);
	wr_pb_free(&p.pb);
	for (i = 0; i < p.nstrings; i++)
		free(p.strings[i]);
	free(p.strings);
	wr_map_free(&p.string_map);
	free(p.functions);
	wr_map_free(&p.function_map);
	free(p.locations);
	wr_map_free(&p.location_map);
	free(p.lines);
	free(p.ids);
	free(p.limits);
	return ret;
}

int wr_render_pprof(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, int second)
{
	struct wr_stacks st = { 0 };
	char comment[256];
	int ret = wr_stacks_of_pairs(&st, r, s, second);

	snprintf(comment, sizeof(comment), "witch: %s (%s), %s on the %s context of each pair",
		 r->tool->what, r->tool->method,
		 r->tool->counts_executions ? "redundant executions" : "waste in bytes",
		 second ? "second" : "first");
	if (!ret)
		ret = r->tool->counts_executions
			      ? render(out, r, s, &st, "redundant", "executions", comment)
			      : render(out, r, s, &st, "waste", "bytes", comment);
	wr_stacks_free(&st);
	return ret;
}

int wr_render_pprof_time(FILE *out, const struct wr_report *r, struct wr_symbolizer *s)
{
	struct wr_stacks st = { 0 };
	int ret = wr_stacks_of_time(&st, r, s);

	if (!ret)
		ret = render(out, r, s, &st, "cpu", "nanoseconds",
			     "witch cpi: the sampled run's CPU time of each context, its own samples'");
	wr_stacks_free(&st);
	return ret;
}
