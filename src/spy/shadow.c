/*
 * shadow.c - the shadow memory: for every byte of the client's memory a
 * 32-bit context handle (0: no history), and for LoadSpy the byte it held
 * when last loaded; for rvn, two 32-bit words per 4-byte cell (rvn.h).
 *
 * Two levels, filled lazily: a primary table of pointers indexed by the
 * address's 64 KiB chunk, covering the low 128 GiB where Valgrind puts the
 * client's code, heap, mappings and stacks, and a small hash table for the
 * rare chunks above. A chunk exists only once something was recorded in it;
 * chunks wholly cleared (munmap, large free) go back to a free list.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "spy.h"
#include "rvn.h"

UInt *sh_primary[SH_PRIMARY];

static SizeT chunk_bytes;
static int mode;		/* enum spy_tool */
static UInt **free_chunks;	/* a stack of released chunks */
static UWord nfree, free_cap;
static ULong in_use;

/* Chunks above the primary table: open addressing on the chunk index. */
static struct aux_ent {
	UWord key;		/* chunk index + 1; 0 = empty */
	UInt *chunk;
} *aux;
static UWord aux_mask, aux_used;

void sh_init(int tool)
{
	mode = tool;
	chunk_bytes = SH_CHUNK * sizeof(UInt);
	if (tool == SPY_RVN)
		chunk_bytes = SH_CHUNK / RVN_CELL * RVN_CELL_SHADOW;
	if (tool == SPY_DEAD)
		chunk_bytes += SH_CHUNK / 8 + 8;	/* +8: pend_get reads a word at the last byte */
}

static UWord aux_hash(UWord k)
{
	k *= 0x9E3779B97F4A7C15ULL;
	return k ^ (k >> 29);
}

static void aux_grow(void)
{
	struct aux_ent *old = aux;
	UWord old_n = aux ? aux_mask + 1 : 0, i, n = old_n ? old_n * 2 : 64;

	aux = VG_(calloc)("witchspy.shadow.aux", n, sizeof(*aux));
	aux_mask = n - 1;
	for (i = 0; i < old_n; i++) {
		UWord h;

		if (!old[i].key)
			continue;
		for (h = aux_hash(old[i].key) & aux_mask; aux[h].key; h = (h + 1) & aux_mask)
			;
		aux[h] = old[i];
	}
	if (old)
		VG_(free)(old);
}

static struct aux_ent *aux_find(UWord idx, Bool create)
{
	UWord key = idx + 1, h;

	if (!aux) {
		if (!create)
			return NULL;
		aux_grow();
	}
	for (h = aux_hash(key) & aux_mask; aux[h].key; h = (h + 1) & aux_mask)
		if (aux[h].key == key)
			return &aux[h];
	if (!create)
		return NULL;
	if (2 * (aux_used + 1) > aux_mask) {
		aux_grow();
		for (h = aux_hash(key) & aux_mask; aux[h].key; h = (h + 1) & aux_mask)
			;
	}
	aux[h].key = key;
	aux[h].chunk = NULL;
	aux_used++;
	return &aux[h];
}

UInt *sh_aux(Addr a, Bool create)
{
	struct aux_ent *e = aux_find(a >> SH_CHUNK_BITS, create);

	return e ? e->chunk : NULL;
}

static UInt *new_chunk(void)
{
	UInt *c;

	in_use++;
	if (nfree) {
		c = free_chunks[--nfree];
		VG_(memset)(c, 0, chunk_bytes);
		return c;
	}
	/* Fresh anonymous memory is zero. */
	c = VG_(am_shadow_alloc)(chunk_bytes);
	if (!c)
		VG_(out_of_memory_NORETURN)("witchspy: shadow memory", chunk_bytes);
	return c;
}

static void release_chunk(UInt *c)
{
	in_use--;
	if (nfree == free_cap) {
		free_cap = free_cap ? 2 * free_cap : 64;
		free_chunks = VG_(realloc)("witchspy.shadow.free", free_chunks,
					   free_cap * sizeof(*free_chunks));
	}
	free_chunks[nfree++] = c;
}

UInt *sh_alloc(Addr a)
{
	UWord i = a >> SH_CHUNK_BITS;
	struct aux_ent *e;

	if (i < SH_PRIMARY) {
		if (!sh_primary[i])
			sh_primary[i] = new_chunk();
		return sh_primary[i];
	}
	e = aux_find(i, True);
	if (!e->chunk)
		e->chunk = new_chunk();
	return e->chunk;
}

ULong sh_chunks_in_use(void)
{
	return in_use;
}

ULong sh_bytes_in_use(void)
{
	return in_use * chunk_bytes;
}

/* The slot holding chunk index i, or NULL when there is none. */
static UInt **chunk_slot(UWord i)
{
	struct aux_ent *e;

	if (i < SH_PRIMARY)
		return &sh_primary[i];
	e = aux_find(i, False);
	return e ? &e->chunk : NULL;
}

static void zero_words(UInt *w, SizeT n)
{
	for (; n && ((UWord)w & 7); n--)
		*w++ = 0;
	for (; n >= 2; n -= 2, w += 2)
		*(ULong *)w = 0;
	if (n)
		*w = 0;
}

/* The words of chunk offset off on: one per byte, rvn's a cell's per 4. */
static UWord word_of(UWord off)
{
	return mode == SPY_RVN ? off / RVN_CELL * (RVN_CELL_SHADOW / sizeof(UInt)) : off;
}

/* Forget [off, off + n) of chunk c (rvn: whole cells). DeadSpy only needs
 * the pending bits cleared, a 32nd of the bytes (this runs at every
 * return). */
static void forget(UInt *c, UWord off, SizeT n)
{
	UChar *bits;
	UWord end;

	if (mode != SPY_DEAD) {
		zero_words(c + word_of(off), word_of(off + n) - word_of(off));
		return;
	}
	bits = sh_bits(c);
	end = off + n;
	for (; off < end && (off & 7); off++)
		bits[off >> 3] &= (UChar)~(1u << (off & 7));
	for (; off + 8 <= end; off += 8)
		bits[off >> 3] = 0;
	for (; off < end; off++)
		bits[off >> 3] &= (UChar)~(1u << (off & 7));
}

static void clear_range(Addr a, SizeT len)
{
	while (len) {
		UWord i = a >> SH_CHUNK_BITS, off = a & (SH_CHUNK - 1);
		SizeT n = SH_CHUNK - off < len ? SH_CHUNK - off : len;
		UInt **slot = chunk_slot(i);

		if (slot && *slot) {
			if (n == SH_CHUNK) {
				release_chunk(*slot);
				*slot = NULL;
			} else {
				forget(*slot, off, n);
			}
		}
		a += n;
		len -= n;
	}
}

void sh_clear(Addr a, SizeT len)
{
	Addr end = a + len, top = (Addr)SH_PRIMARY << SH_CHUNK_BITS;
	UWord i;

	/* rvn's numbers fill 4-byte cells (rvn_run.c): a cell goes whole. */
	if (mode == SPY_RVN && len) {
		a &= ~(Addr)(RVN_CELL - 1);
		end = (end + RVN_CELL - 1) & ~(Addr)(RVN_CELL - 1);
		if (!end)
			end = ~(Addr)0;
	}

	if (end < a)
		end = ~(Addr)0;
	if (a < top)
		clear_range(a, (end < top ? end : top) - a);
	if (end <= top || !aux)
		return;
	if (a < top)
		a = top;
	/* Above the table, visit the chunks that exist rather than the range,
	 * which may be huge (a reservation of terabytes). */
	for (i = 0; i <= aux_mask; i++) {
		Addr lo, hi, base;

		if (!aux[i].key || !aux[i].chunk)
			continue;
		base = (aux[i].key - 1) << SH_CHUNK_BITS;
		lo = base > a ? base : a;
		hi = base + SH_CHUNK < end ? base + SH_CHUNK : end;
		if (lo < hi)
			clear_range(lo, hi - lo);
	}
}

/* The bytes the shadow keeps together: rvn's cells, else one. */
static UWord unit(void)
{
	return mode == SPY_RVN ? RVN_CELL : 1;
}

/* The shadow of the unit at from, to the unit at to. */
static void copy_unit(Addr from, Addr to)
{
	UInt *src = sh_chunk(from), *dst;
	UWord fo = from & (SH_CHUNK - 1), to_off = to & (SH_CHUNK - 1), w;

	if (!src) {
		dst = sh_chunk(to);
		if (dst)
			forget(dst, to_off, unit());
		return;
	}
	dst = sh_chunk_w(to);
	for (w = 0; w < word_of(unit()); w++)
		dst[word_of(to_off) + w] = src[word_of(fo) + w];
	if (mode == SPY_DEAD) {
		UChar bit = (sh_bits(src)[fo >> 3] >> (fo & 7)) & 1;

		sh_bits(dst)[to_off >> 3] = (UChar)((sh_bits(dst)[to_off >> 3] & ~(1u << (to_off & 7))) |
						    (UInt)bit << (to_off & 7));
	}
}

/* mremap moved memory (pages): its history moves with it. Rare: unit by
 * unit. */
void sh_copy(Addr from, Addr to, SizeT len)
{
	SizeT i, u = unit();

	if (from == to)
		return;
	if (to > from && to < from + len) {
		for (i = len; i >= u; i -= u)
			copy_unit(from + i - u, to + i - u);
	} else {
		for (i = 0; i + u <= len; i += u)
			copy_unit(from + i, to + i);
	}
}
