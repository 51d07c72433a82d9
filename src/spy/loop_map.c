/*
 * loop_map.c - the loops of each module, and where a translation needs a
 * loop point.
 *
 * A module's loops come from its machine code: the first time a
 * translation is made in a module, `witch loops` (src/cli/module_loops.c)
 * writes its map into the map directory (--witch-loops=DIR), unless a map
 * of the same file (path, inode, size, time) by the same witch is there
 * already: the processes of one run, and the ranks of a job, share them.
 * The map is by link-time offset; a translation's instruction is looked
 * up by its module (spy_module_of) and its offset there.
 *
 * A loop point goes where an iteration begins (a header) and where
 * control leaves a loop (an exit: a block outside it that one of its
 * blocks leads to); nowhere else can the running loops change, but at
 * calls and returns, which the shadow stack sees. Each distinct block
 * belongs to its innermost loop (the deepest that lists it); a header
 * heads its outermost loop, should a map list two loops at one header.
 */
#include "pub_tool_basics.h"
#include "pub_tool_deduppoolalloc.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "spy.h"
#include "loop.h"
#include "addrmap.h"
#include "core/escape.h"

/* Offsets in a module, below OFFSET_END (a map past it is refused): 16
 * bytes a range, and the maps of a large program hold tens of thousands. */
#define OFFSET_END 0xffffffffULL
static const HChar past_4g[] = "an offset past 4 GiB (a module that large is not watched)";

typedef struct {
	UInt lo, hi;
	LoopDesc *loop;
} Range;

typedef struct LoopMod {
	HChar *path;
	Range *blocks;		/* distinct blocks, by lo, each its innermost loop */
	UInt nblocks, cap_blocks;
	Range *heads;		/* lo: a header; by lo, each its outermost loop */
	UInt nheads;
	Range *exits;		/* lo: where control leaves a loop */
	UInt nexits, cap_exits;
} LoopMod;

static LoopDesc **loops;	/* by id, over all modules */
static UInt nloops, cap_loops;
static LoopMod **of_spy;	/* by spy module index: its map, or NULL */
static Bool *of_spy_known;
static Int nof_spy;

static const HChar *map_dir;	/* where maps are, by module */
static const HChar *finder;	/* witch, to run `witch loops` */
static ULong finder_key;	/* which witch wrote them */
static UInt nunmapped;		/* modules whose loops could not be found */

static SpyAddrMap points;

static void *grow(void *v, UInt *cap, UInt n, SizeT size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 16;
	return VG_(realloc)("witchspy.loopmap", v, *cap * size);
}

/* r[0..n) in a block of its own size; r is freed (the doubling's slack
 * goes back to the arena). */
static Range *fit(Range *r, UInt n)
{
	Range *f = VG_(malloc)("witchspy.loopmap", (n ? n : 1) * sizeof(Range));

	if (n)
		VG_(memcpy)(f, r, n * sizeof(Range));
	VG_(free)(r);
	return f;
}

/* The maps' file names, each kept once: a map repeats its loops' files. */
static DedupPoolAlloc *names;

static const HChar *intern(const HChar *s)
{
	if (!names)
		names = VG_(newDedupPA)(16384, 1, VG_(malloc), "witchspy.loopmap", VG_(free));
	return VG_(allocEltDedupPA)(names, VG_(strlen)(s) + 1, s);
}

/* The next space-separated field of *p, NUL-terminated in place. */
static HChar *field(HChar **p)
{
	HChar *s = *p, *e;

	if (!*s)
		return NULL;
	e = VG_(strchr)(s, ' ');
	if (e) {
		*e = 0;
		*p = e + 1;
	} else {
		*p = s + VG_(strlen)(s);
	}
	return s;
}

static Bool hex(HChar *s, Addr *v)
{
	HChar *end;

	if (!s || !*s)
		return False;
	*v = (Addr)VG_(strtoull16)(s, &end);
	return *end == 0;
}

static Bool dec(HChar *s, Long *v)
{
	HChar *end;

	if (!s || !*s)
		return False;
	*v = VG_(strtoll10)(s, &end);
	return *end == 0;
}

/* The whole file, NUL-terminated; NULL when it cannot be read. */
static HChar *read_all(const HChar *path)
{
	SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
	struct vg_stat st;
	HChar *buf;
	Long got = 0;
	Int fd;

	if (sr_isError(r))
		return NULL;
	fd = (Int)sr_Res(r);
	if (VG_(fstat)(fd, &st) != 0) {
		VG_(close)(fd);
		return NULL;
	}
	buf = VG_(malloc)("witchspy.loopmap", st.size + 1);
	while (got < st.size) {
		Int k = VG_(read)(fd, buf + got, (Int)(st.size - got));

		if (k <= 0)
			break;
		got += k;
	}
	VG_(close)(fd);
	buf[got] = 0;
	return buf;
}

static Int cmp_range(const void *a, const void *b)
{
	const Range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* The innermost first (blocks); for heads the same order, read
	 * from the other end. */
	return x->loop->depth > y->loop->depth ? -1 : x->loop->depth < y->loop->depth;
}

/* Sort, and keep one range per lo: the first (blocks: innermost) or the
 * last (heads: outermost). */
static UInt sort_unique(Range *r, UInt n, Bool keep_last)
{
	UInt i, k = 0;

	VG_(ssort)(r, n, sizeof(Range), cmp_range);
	for (i = 0; i < n; i++) {
		if (k && r[k - 1].lo == r[i].lo) {
			if (keep_last)
				r[k - 1] = r[i];
			continue;
		}
		r[k++] = r[i];
	}
	return k;
}

static void finish_module(LoopMod *m, UInt first_loop)
{
	UInt i, n = 0;

	m->nblocks = sort_unique(m->blocks, m->nblocks, False);
	m->blocks = fit(m->blocks, m->nblocks);
	m->heads = VG_(malloc)("witchspy.loopmap", (nloops - first_loop + 1) * sizeof(Range));
	for (i = first_loop; i < nloops; i++) {
		m->heads[n].lo = m->heads[n].hi = (UInt)loops[i]->header;
		m->heads[n++].loop = loops[i];
	}
	m->nheads = sort_unique(m->heads, n, True);
	m->nexits = sort_unique(m->exits, m->nexits, False);
	m->exits = fit(m->exits, m->nexits);
}

/* The map in buf, read from path, of one module; its loops numbered on
 * from those of the modules before it. NULL, after a warning, when the
 * map is not one: nothing of it is kept. Nothing points into buf. */
static LoopMod *parse(const HChar *path, HChar *buf)
{
	HChar *p = buf, *line;
	UInt lineno = 0, first_loop = nloops, i;
	LoopMod *m = NULL;
	LoopDesc *cur = NULL;
	Bool ended = False;
	const HChar *why;

#define BAD(what) do { why = (what); goto bad; } while (0)

	while (*p && !ended) {
		HChar *nl = VG_(strchr)(p, '\n'), *kind;

		line = p;
		if (nl) {
			*nl = 0;
			p = nl + 1;
		} else {
			p += VG_(strlen)(p);
		}
		lineno++;
		kind = field(&line);
		if (!kind)
			BAD("empty line");
		if (lineno == 1) {
			if (VG_(strcmp)(kind, "witch-loops") || VG_(strcmp)(line, "1"))
				BAD("not a loop map of version 1");
			continue;
		}
		if (!VG_(strcmp)(kind, "end")) {
			ended = True;
		} else if (!VG_(strcmp)(kind, "module")) {
			if (m)
				BAD("a map holds one module");
			if (!*line)
				BAD("a module line needs a path");
			m = VG_(calloc)("witchspy.loopmap", 1, sizeof(*m));
			m->path = VG_(strdup)("witchspy.loopmap", line);
			if (core_unescape(m->path))
				BAD("a module path with a bad %XX escape");
		} else if (!VG_(strcmp)(kind, "f")) {
			/* A function with loops: the exits say all a translation
			 * needs of it. */
			if (!m)
				BAD("an f line comes after a module line");
		} else if (!VG_(strcmp)(kind, "loop")) {
			Long id, parent, depth, first, last;
			Addr header;
			HChar *file;

			if (!m || !dec(field(&line), &id) || !hex(field(&line), &header) ||
			    !dec(field(&line), &parent) || !dec(field(&line), &depth) ||
			    !dec(field(&line), &first) || !dec(field(&line), &last) ||
			    !(file = field(&line)) || *line)
				BAD("a loop line is `loop ID HEADER PARENT DEPTH FIRST LAST FILE`");
			if (header >= OFFSET_END)
				BAD(past_4g);
			if (id != (Long)(nloops - first_loop) || parent >= id || parent < -1 || depth < 0)
				BAD("loop ids must count up from 0, parents come first");
			cur = VG_(calloc)("witchspy.loopmap", 1, sizeof(*cur));
			cur->id = nloops;
			cur->header = header;
			cur->parent = parent >= 0 ? loops[first_loop + parent] : NULL;
			cur->depth = (UInt)depth;
			cur->first_line = (Int)first;
			cur->last_line = (Int)last;
			if (core_unescape(file))
				BAD("a file name with a bad %XX escape");
			cur->file = intern(file);
			loops = (LoopDesc **)grow(loops, &cap_loops, nloops, sizeof(*loops));
			loops[nloops++] = cur;
		} else if (!VG_(strcmp)(kind, "b")) {
			Addr lo, hi;

			if (!cur || !hex(field(&line), &lo) || !hex(field(&line), &hi) || *line ||
			    hi <= lo)
				BAD("a b line is `b LO HI` after a loop line");
			if (hi >= OFFSET_END)
				BAD(past_4g);
			m->blocks = (Range *)grow(m->blocks, &m->cap_blocks, m->nblocks, sizeof(Range));
			m->blocks[m->nblocks++] = (Range){ (UInt)lo, (UInt)hi, cur };
		} else if (!VG_(strcmp)(kind, "e")) {
			Addr at;

			if (!cur || !hex(field(&line), &at) || *line)
				BAD("an e line is `e OFFSET` after a loop line");
			if (at >= OFFSET_END)
				BAD(past_4g);
			m->exits = (Range *)grow(m->exits, &m->cap_exits, m->nexits, sizeof(Range));
			m->exits[m->nexits++] = (Range){ (UInt)at, (UInt)at + 1, cur };
		} else {
			BAD("unknown line");
		}
	}
	if (!ended)
		BAD("no end line: the map is truncated");
	if (!m)
		BAD("no module line");
	finish_module(m, first_loop);
	return m;
#undef BAD
bad:
	VG_(umsg)("witchspy: warning: %s:%u: %s; its module's loops are not watched\n", path, lineno,
		  why);
	for (i = first_loop; i < nloops; i++)
		VG_(free)(loops[i]);
	nloops = first_loop;
	if (m) {
		VG_(free)(m->path);
		VG_(free)(m->blocks);
		VG_(free)(m->exits);
		VG_(free)(m);
	}
	return NULL;
}

static ULong mix(ULong h, ULong v)
{
	UInt i;

	for (i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;	/* FNV-1a */
	return h;
}

/* Run `witch loops -o map path`, its messages into err. */
static void find_loops(const HChar *path, const HChar *map, const HChar *err)
{
	const HChar *argv[] = { finder, "loops", "-o", map, path, NULL };

	spy_run_child(argv, err);
}

/* The loops of the module at path: its map, written first if need be;
 * NULL when it is no file, or its map cannot be made. */
static LoopMod *module_map(const HChar *path)
{
	struct vg_stat st;
	ULong key = 0xcbf29ce484222325ULL;
	const HChar *c;
	HChar *map, *err, *buf;
	LoopMod *mod;
	SizeT n;

	if (sr_isError(VG_(stat)(path, &st)) || !VKI_S_ISREG(st.mode))
		return NULL;	/* the vdso, a deleted file */
	for (c = path; *c; c++)
		key = (key ^ (UChar)*c) * 0x100000001b3ULL;
	key = mix(mix(mix(mix(mix(mix(key, st.dev), st.ino), st.size), st.mtime), st.mtime_nsec),
		  finder_key);
	n = VG_(strlen)(map_dir) + 48;
	map = VG_(malloc)("witchspy.loopmap", n);
	err = VG_(malloc)("witchspy.loopmap", n);
	VG_(snprintf)(map, n, "%s/loops-%016llx.map", map_dir, key);
	VG_(snprintf)(err, n, "%s/loops-%016llx.err", map_dir, key);
	buf = read_all(map);
	if (!buf) {
		find_loops(path, map, err);
		buf = read_all(map);
	}
	if (!buf) {
		nunmapped++;
		VG_(umsg)("witchspy: warning: cannot find the loops of %s: `witch loops` wrote no %s "
			  "(its messages: %s)\n", path, map, err);
		VG_(free)(map);
		VG_(free)(err);
		return NULL;
	}
	VG_(unlink)(err);
	VG_(free)(err);
	mod = parse(map, buf);
	if (!mod) {
		/* Not a map (damaged on disk): the next run writes it anew. */
		VG_(unlink)(map);
		nunmapped++;
	}
	VG_(free)(buf);
	VG_(free)(map);
	return mod;
}

void loop_map_init(const HChar *dir, const HChar *witch)
{
	struct vg_stat st;

	map_dir = dir;
	finder = witch;
	if (sr_isError(VG_(stat)(witch, &st))) {
		VG_(fmsg)("witchspy: cannot find %s, which finds the loops; give --witch-loop-finder=WITCH "
			  "as witch spy --tool=loop does\n", witch);
		VG_(exit)(1);
	}
	finder_key = mix(mix(mix(0, st.ino), st.size), st.mtime) ^ st.mtime_nsec;
}

UInt loop_map_unmapped(void)
{
	return nunmapped;
}

UInt loop_map_count(void)
{
	return nloops;
}

LoopDesc *loop_map_loop(UInt id)
{
	return id < nloops ? loops[id] : NULL;
}

/* How many ranges of r[0..n) (sorted) begin at or before off. */
static UInt at_or_before(const Range *r, UInt n, Addr off)
{
	UInt lo = 0, hi = n;

	while (lo < hi) {
		UInt mid = (lo + hi) / 2;

		if (r[mid].lo <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The range of r[0..n) holding off, or NULL. */
static const Range *find(const Range *r, UInt n, Addr off)
{
	UInt k = at_or_before(r, n, off);

	return k && off < r[k - 1].hi ? &r[k - 1] : NULL;
}

/* The range of r[0..n) beginning at off, or NULL. */
static const Range *find_exact(const Range *r, UInt n, Addr off)
{
	UInt k = at_or_before(r, n, off);

	return k && r[k - 1].lo == off ? &r[k - 1] : NULL;
}

/* The map of the spy module m, found once. */
static LoopMod *map_module(Int m)
{
	if (m < 0)
		return NULL;
	if (m >= nof_spy) {
		Int n = m + 16;

		of_spy = VG_(realloc)("witchspy.loopmap", of_spy, n * sizeof(*of_spy));
		of_spy_known = VG_(realloc)("witchspy.loopmap", of_spy_known, n * sizeof(Bool));
		VG_(memset)(of_spy_known + nof_spy, 0, (n - nof_spy) * sizeof(Bool));
		nof_spy = n;
	}
	if (!of_spy_known[m]) {
		of_spy[m] = module_map(spy_mods[m].path);
		of_spy_known[m] = True;
	}
	return of_spy[m];
}

LoopPoint *loop_map_point(Addr pc)
{
	Int sm = spy_module_of(pc);
	LoopMod *m = map_module(sm);
	const Range *r, *head;
	LoopPoint *p;
	Addr off;

	if (!m)
		return NULL;
	off = pc - spy_mods[sm].bias;
	head = find_exact(m->heads, m->nheads, off);
	if (!head && !find_exact(m->exits, m->nexits, off))
		return NULL;
	p = spy_addrmap_get(&points, pc);
	if (p)
		return p;
	r = find(m->blocks, m->nblocks, off);
	p = VG_(calloc)("witchspy.looppoint", 1, sizeof(*p));
	p->pc = pc;
	p->inner = r ? r->loop : NULL;
	p->head = head ? head->loop : NULL;
	spy_addrmap_put(&points, pc, p);
	return p;
}
