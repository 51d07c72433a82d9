/*
 * analysis.c - DeadSpy, RedSpy and LoadSpy, byte by byte.
 *
 * Every byte of memory has in its shadow the context handle of the access
 * the next one is judged against:
 *
 *   dead    the store whose bytes nobody has read yet (pending: its bit is
 *           set in the chunk's bitmap). A store over such a byte makes it
 *           waste, a load makes it use and clears the bit.
 *   silent  the last store (0: none). A store writing the bytes already
 *           there is waste, one that changes them is use.
 *   load    the last load and the byte it returned (0: none). A load
 *           returning the same bytes is waste, different bytes use.
 *           Stores in between do not matter: values are compared.
 *
 * Consecutive bytes with the same previous context form one event: they
 * are judged together, like the sampled crafts judge the overlap of the
 * trapping access with the watched one, and count once in the pair.
 * Floating-point values (the watched access's dtype) also match within
 * the relative tolerance: approximate waste, counted apart.
 *
 * Implicit stack accesses (push/pop/call/ret) are judged but never
 * watched, because the sampled crafts cannot sample them either.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_vki.h"

#include <emmintrin.h>

#include "spy.h"

enum verdict { USE, WASTE, APPROX };

static inline void tally(SpyPair *p, UWord bytes, enum verdict v)
{
	p->count++;
	if (v == WASTE)
		p->waste += bytes;
	else if (v == APPROX)
		p->approx += bytes;
	else
		p->use += bytes;
}

static inline void rec(SpyThread *t, UInt watch, UInt trap, UWord bytes, enum verdict v)
{
	tally(spy_pair(&t->pairs, watch, trap), bytes, v);
}

/* rec for a helper that has its site's slot: the site's memo counts its
 * events while they go to one pair. DeadSpy and LoadSpy use it; RedSpy's
 * stores change pair too often (xz, bzip2, gzip: 4-7 % slower with it in
 * bench/spy-ab), so it keeps rec and the pair cache. */
static inline void rec_at(SpySite *slot, SpyThread *t, UInt watch, UInt trap, UWord bytes,
			  enum verdict v)
{
	SpyMemo *m = &slot->memo;

	if (UNLIKELY(m->t != t || m->p.watch != watch || m->p.trap != trap)) {
		spy_memo_flush(m);
		m->t = t;
		m->p.watch = watch;
		m->p.trap = trap;
	}
	tally(&m->p, bytes, v);
}

/* ---- comparison ---- */

static inline double dabs(double x)
{
	return x < 0 ? -x : x;
}

static Bool close_enough(double a, double b)
{
	double m;

	if (a != a || b != b)
		return a != a && b != b;
	if (a - a != 0 || b - b != 0)	/* infinities */
		return a == b;
	m = dabs(a) > dabs(b) ? dabs(a) : dabs(b);
	return dabs(a - b) <= spy_cfg.approx * m;
}

typedef ULong __attribute__((may_alias, aligned(1))) ULong_u;
typedef UInt __attribute__((may_alias, aligned(1))) UInt_u;

static inline Bool same_bytes(const UChar *x, const UChar *y, SizeT n)
{
	SizeT k;

	switch (n) {
	case 8:
		return *(const ULong_u *)x == *(const ULong_u *)y;
	case 4:
		return *(const UInt_u *)x == *(const UInt_u *)y;
	case 1:
		return *x == *y;
	default:
		for (k = 0; k < n && x[k] == y[k]; k++)
			;
		return k == n;
	}
}

static enum verdict judge_approx(const UChar *old, const UChar *now, Addr base, SizeT n,
				 UChar dtype);

/*
 * Judge n bytes that were `old` and are now `now`; the run starts at
 * address base and its watched access held dtype. Floating-point elements
 * wholly inside the run (aligned to their size) may match within the
 * tolerance; partly covered ones must match exactly.
 */
static inline enum verdict judge(const UChar *old, const UChar *now, Addr base, SizeT n,
				 UChar dtype)
{
	if (same_bytes(old, now, n))
		return WASTE;
	if (spy_cfg.approx <= 0 || dtype == DT_INT)
		return USE;
	return judge_approx(old, now, base, n, dtype);
}

static enum verdict judge_approx(const UChar *old, const UChar *now, Addr base, SizeT n,
				 UChar dtype)
{
	SizeT esz, k;

	esz = dtype == DT_F32 ? 4 : 8;
	for (k = 0; k < n;) {
		if ((base + k) % esz == 0 && k + esz <= n) {
			double x, y;

			if (esz == 4) {
				float fx, fy;

				VG_(memcpy)(&fx, old + k, 4);
				VG_(memcpy)(&fy, now + k, 4);
				x = fx;
				y = fy;
			} else {
				VG_(memcpy)(&x, old + k, 8);
				VG_(memcpy)(&y, now + k, 8);
			}
			if (!close_enough(x, y))
				return USE;
			k += esz;
		} else {
			if (old[k] != now[k])
				return USE;
			k++;
		}
	}
	return APPROX;
}

/* ---- DeadSpy ----
 * A byte has a pending store when its bit is set in the chunk's bitmap; its
 * handle is then the store's context. Loads over bytes with nothing pending
 * (the common case) only read the bitmap, an eighth of the memory. */

/*
 * The pending bits of up to PEND_MAX bytes: a 16- or 32-byte vector access
 * is decided like a scalar one, not byte by byte (demo's blur and scale
 * store 16 bytes at a time). Up to 8 bytes, the two bitmap bytes are read
 * and written as bytes: a word read right after a write of the
 * neighbouring bits (consecutive accesses) cannot be forwarded from the
 * store, which makes perl slower with words throughout (bench/spy-ab).
 * The chunk has 8 bytes of slack after its bitmap for the word read at
 * its last byte.
 */
#define PEND_MAX 32

static inline ULong pend_mask(SizeT n)
{
	return (1ULL << n) - 1;
}

/* Pending bits of the n <= PEND_MAX bytes at chunk offset off, lowest first. */
static inline UInt pend_get(const UChar *bits, UWord off, SizeT n)
{
	const UChar *b = bits + (off >> 3);

	if (LIKELY(n <= 8)) {
		UInt lo = b[0];

		/* Two byte loads, not one 16-bit load gcc would merge them to:
		 * each forwards from a byte pend_set or pend_clr just wrote. */
		__asm__("" : "+r"(lo));
		return ((lo | (UInt)b[1] << 8) >> (off & 7)) & (UInt)pend_mask(n);
	}
	return (UInt)((*(const ULong_u *)b >> (off & 7)) & pend_mask(n));
}

static inline void pend_set(UChar *bits, UWord off, SizeT n)
{
	UChar *b = bits + (off >> 3);
	ULong m = pend_mask(n) << (off & 7);

	if (LIKELY(n <= 8)) {
		b[0] |= (UChar)m;
		b[1] |= (UChar)(m >> 8);
		return;
	}
	*(ULong_u *)b |= m;
}

static inline void pend_clr(UChar *bits, UWord off, SizeT n)
{
	UChar *b = bits + (off >> 3);
	ULong m = pend_mask(n) << (off & 7);

	if (LIKELY(n <= 8)) {
		b[0] &= (UChar)~m;
		b[1] &= (UChar)~(m >> 8);
		return;
	}
	*(ULong_u *)b &= ~m;
}

/* Do the n handles at c hold one value? */
static inline Bool one_writer(const UInt *c, SizeT n)
{
	SizeT i;

	for (i = 1; i < n && c[i] == c[0]; i++)
		;
	return i == n;
}

static inline Bool pend_any(const UChar *bits, UWord off, SizeT n)
{
	for (; n >= PEND_MAX; off += PEND_MAX, n -= PEND_MAX)
		if (pend_get(bits, off, PEND_MAX))
			return True;
	return n && pend_get(bits, off, n);
}

static inline void pend_write(UChar *bits, UWord off, SizeT n, Bool set)
{
	for (; n; ) {
		SizeT k = n < PEND_MAX ? n : PEND_MAX;

		if (set)
			pend_set(bits, off, k);
		else
			pend_clr(bits, off, k);
		off += k;
		n -= k;
	}
}

static inline Bool pend_bit(const UChar *bits, UWord off)
{
	return (bits[off >> 3] >> (off & 7)) & 1;
}

/*
 * Judge the bytes of [off, off + n) in chunk c that a store left pending,
 * against the access of context h: each run of bytes from one writer is
 * one event. A load also ends their pending state (clear).
 */
static inline void judge_pending(SpyThread *t, UInt *c, UChar *bits, UWord off, SizeT n, UInt h,
				 enum verdict v, Bool clear)
{
	UWord i = off, end = off + n, j;

	while (i < end) {
		UInt w;

		if (!pend_bit(bits, i)) {
			i++;
			continue;
		}
		w = c[i];
		for (j = i + 1; j < end && pend_bit(bits, j) && c[j] == w; j++)
			;
		rec(t, w, h, j - i, v);
		if (clear)
			pend_write(bits, i, j - i, False);
		i = j;
	}
}

/* Bytes [off, off + n) of chunk c are loaded by context h. */
static void dead_load_seg(SpyThread *t, UInt *c, UWord off, SizeT n, UInt h)
{
	judge_pending(t, c, sh_bits(c), off, n, h, USE, True);
}

/* Bytes [off, off + n) of chunk c are stored by context h; now is h, or 0
 * for an implicit store (judged, not watched). */
static void dead_store_seg(SpyThread *t, UInt *c, UWord off, SizeT n, UInt h, UInt now)
{
	UChar *bits = sh_bits(c);
	UWord i, end = off + n;

	judge_pending(t, c, bits, off, n, h, WASTE, False);
	if (now)
		for (i = off; i < end; i++)
			c[i] = now;
	pend_write(bits, off, n, now != 0);
}

static void dead_load_range(SpyThread *t, Addr a, SizeT len, UInt h)
{
	while (len) {
		UWord off = a & (SH_CHUNK - 1);
		SizeT n = SH_CHUNK - off < len ? SH_CHUNK - off : len;
		UInt *c = sh_chunk(a);

		if (c && pend_any(sh_bits(c), off, n))
			dead_load_seg(t, c, off, n, h);
		a += n;
		len -= n;
	}
}

static void dead_store_range(SpyThread *t, Addr a, SizeT len, UInt h, UInt now)
{
	while (len) {
		UWord off = a & (SH_CHUNK - 1);
		SizeT n = SH_CHUNK - off < len ? SH_CHUNK - off : len;
		UInt *c = now ? sh_chunk_w(a) : sh_chunk(a);

		if (c)
			dead_store_seg(t, c, off, n, h, now);
		a += n;
		len -= n;
	}
}

static __attribute__((noinline)) void dead_load_slow(Addr a, UWord flags, SpySite *slot);

/* A load of n bytes at a found pending bits p in chunk c: most often one
 * store wrote them all, the pair the site's memo holds. Apart from the
 * common load so that that one needs no stack frame. */
static __attribute__((noinline)) void dead_load_pending(Addr a, SizeT n, SpySite *slot, UInt *c,
							UInt p)
{
	UWord off = a & (SH_CHUNK - 1);
	UInt h = spy_site_cached(slot);

	if (p == pend_mask(n) && h && one_writer(c + off, n)) {
		rec_at(slot, spy_cur, c[off], h, n, USE);
		pend_clr(sh_bits(c), off, n);
		return;
	}
	dead_load_slow(a, n, slot);
}

/*
 * Most loads touch no pending byte: decided here without a call, so
 * without a stack frame. Most of the others read what one store wrote, in
 * a pair the cache holds (perl: 1.0 of 4.6 billion loads find a pending
 * store): dead_load_pending, and the rest, or a site's first use in a
 * context, dead_load_slow.
 */
VG_REGPARM(3) void spy_dead_load(Addr a, UWord flags, SpySite *slot)
{
	SizeT n = ACC_SIZE(flags);
	UWord off = a & (SH_CHUNK - 1), i = a >> SH_CHUNK_BITS;
	UInt *c, p;

	if (LIKELY(i < SH_PRIMARY && n <= PEND_MAX && off + n <= SH_CHUNK)) {
		c = sh_primary[i];
		if (!c)
			return;
		p = pend_get(sh_bits(c), off, n);
		if (!p)
			return;
		dead_load_pending(a, n, slot, c, p);
		return;
	}
	dead_load_slow(a, flags, slot);
}

static __attribute__((noinline)) void dead_load_slow(Addr a, UWord flags, SpySite *slot)
{
	SizeT n = ACC_SIZE(flags);
	UWord off = a & (SH_CHUNK - 1);
	UInt *c;

	if (UNLIKELY(off + n > SH_CHUNK)) {
		dead_load_range(spy_cur, a, n, spy_site_handle(slot));
		return;
	}
	c = sh_chunk(a);
	if (!c)
		return;
	if (LIKELY(n <= PEND_MAX)) {
		UChar *bits = sh_bits(c);
		UInt p = pend_get(bits, off, n);

		if (!p)
			return;
		/* One store pending on all the bytes: one use. */
		if (p == pend_mask(n) && one_writer(c + off, n)) {
			rec_at(slot, spy_cur, c[off], spy_site_handle(slot), n, USE);
			pend_clr(bits, off, n);
			return;
		}
	} else if (!pend_any(sh_bits(c), off, n)) {
		return;
	}
	dead_load_seg(spy_cur, c, off, n, spy_site_handle(slot));
}

static __attribute__((noinline)) void dead_store_slow(Addr a, UWord flags, SpySite *slot);

/* A store of n bytes at a by context h over pending bits p in chunk c:
 * most often bytes one store left (waste), the pair the site's memo holds. */
static __attribute__((noinline)) void dead_store_pending(Addr a, SizeT n, SpySite *slot, UInt h,
							 UInt *c, UInt p)
{
	UWord off = a & (SH_CHUNK - 1);
	SizeT k;

	if (p == pend_mask(n) && one_writer(c + off, n)) {
		rec_at(slot, spy_cur, c[off], h, n, WASTE);
		spy_st.bytes_accessed += n;
		for (k = 0; k < n; k++)
			c[off + k] = h;
		return;	/* the bits stay set: pending again */
	}
	dead_store_slow(a, n, slot);
}

/*
 * Most stores cover no pending byte in a chunk that exists: decided here
 * without a call. Most of the others are waste over one earlier store
 * (perl: 1.3 of 2.4 billion stores): dead_store_pending. The rest, and a
 * site's first use in a context, in dead_store_slow. Deciding the waste
 * apart spares listing2, where nearly every store is waste, the slow
 * path's checks.
 */
VG_REGPARM(3) void spy_dead_store(Addr a, UWord flags, SpySite *slot)
{
	SizeT n = ACC_SIZE(flags), k;
	UWord off = a & (SH_CHUNK - 1), i = a >> SH_CHUNK_BITS;
	UInt *c, h, p;
	UChar *bits;

	if (UNLIKELY(i >= SH_PRIMARY || n > PEND_MAX || off + n > SH_CHUNK)) {
		dead_store_slow(a, flags, slot);
		return;
	}
	c = sh_primary[i];
	if (flags & ACC_IMPLICIT) {
		/* A push or call is judged, never watched: over bytes with
		 * nothing pending it does nothing, and needs no context (the
		 * slow path looks one up first: in sqlite3, 36 of 79 million
		 * lookups, each a cache miss). */
		if (c && pend_get(sh_bits(c), off, n))
			dead_store_slow(a, flags, slot);
		return;
	}
	h = spy_site_cached(slot);
	if (UNLIKELY(!c || !h)) {
		dead_store_slow(a, flags, slot);
		return;
	}
	bits = sh_bits(c);
	p = pend_get(bits, off, n);
	if (p) {
		dead_store_pending(a, n, slot, h, c, p);
		return;
	}
	spy_st.bytes_accessed += n;
	for (k = 0; k < n; k++)
		c[off + k] = h;
	pend_set(bits, off, n);
}

static __attribute__((noinline)) void dead_store_slow(Addr a, UWord flags, SpySite *slot)
{
	SizeT n = ACC_SIZE(flags), i;
	UWord off = a & (SH_CHUNK - 1);
	UInt h = spy_site_handle(slot), now = flags & ACC_IMPLICIT ? 0 : h, p;
	UInt *c;
	UChar *bits;

	if (now)
		spy_st.bytes_accessed += n;
	if (UNLIKELY(off + n > SH_CHUNK || n > PEND_MAX)) {
		dead_store_range(spy_cur, a, n, h, now);
		return;
	}
	c = now ? sh_chunk_w(a) : sh_chunk(a);
	if (!c)
		return;
	bits = sh_bits(c);
	p = pend_get(bits, off, n);
	if (UNLIKELY(p)) {
		/* One store pending on all the bytes: one waste. */
		if (p != pend_mask(n) || !one_writer(c + off, n)) {
			dead_store_seg(spy_cur, c, off, n, h, now);
			return;
		}
		rec_at(slot, spy_cur, c[off], h, n, WASTE);
		if (!now) {
			pend_clr(bits, off, n);
			return;
		}
	}
	if (now) {
		for (i = 0; i < n; i++)
			c[off + i] = now;
		pend_set(bits, off, n);
	}
}

/* ---- RedSpy ---- */

/*
 * Stores of n bytes `nv` at a by context h, whose bytes before were `old`
 * (NULL: memory still holds them, the store has not run). Runs of bytes
 * with the same previous writer are judged together. Old bytes are read
 * only where there is a previous writer: memory that became unreadable
 * lost its history (mprotect), so this never faults.
 */
static void silent_range(SpyThread *t, Addr a, SizeT len, UInt h, UInt now, const UChar *old,
			 const UChar *nv)
{
	UWord off0 = a & (SH_CHUNK - 1);

	/* Common case: one chunk, one previous writer (or none). */
	if (LIKELY(off0 + len <= SH_CHUNK && now)) {
		UInt *c = sh_chunk_w(a) + off0, w = c[0];
		SizeT i;

		for (i = 1; i < len && c[i] == w; i++)
			;
		if (i == len) {
			if (w)
				rec(t, w, h, len, judge(old ? old : (const UChar *)a, nv, a, len,
							spy_node(w)->dtype));
			for (i = 0; i < len; i++)
				c[i] = now;
			return;
		}
	}
	while (len) {
		UWord off = a & (SH_CHUNK - 1);
		SizeT n = SH_CHUNK - off < len ? SH_CHUNK - off : len, i = 0, j;
		UInt *c = now ? sh_chunk_w(a) : sh_chunk(a);
		const UChar *o = old ? old : (const UChar *)a;

		if (c) {
			c += off;
			while (i < n) {
				UInt w = c[i];

				if (!w) {
					c[i++] = now;
					continue;
				}
				for (j = i + 1; j < n && c[j] == w; j++)
					;
				rec(t, w, h, j - i,
				    judge(o + i, nv + i, a + i, j - i, spy_node(w)->dtype));
				for (; i < j; i++)
					c[i] = now;
			}
		}
		a += n;
		nv += n;
		if (old)
			old += n;
		len -= n;
	}
}

static void silent_store(Addr a, SizeT n, UWord flags, UInt h, const UChar *nv)
{
	UInt now = flags & ACC_IMPLICIT ? 0 : h;

	if (now)
		spy_st.bytes_accessed += n;
	silent_range(spy_cur, a, n, h, now, NULL, nv);
}

void spy_silent_store(Addr a, UWord flags, SpySite *slot, ULong v0)
{
	silent_store(a, ACC_SIZE(flags), flags, spy_site_handle(slot), (const UChar *)&v0);
}

void spy_silent_store16(Addr a, SpySite *slot, ULong v0, ULong v1)
{
	ULong v[2] = { v0, v1 };

	silent_store(a, 16, 0, spy_site_handle(slot), (const UChar *)v);
}

void spy_silent_store32(Addr a, SpySite *slot, ULong v0, ULong v1, ULong v2, ULong v3)
{
	ULong v[4] = { v0, v1, v2, v3 };

	silent_store(a, 32, 0, spy_site_handle(slot), (const UChar *)v);
}

/*
 * Stores whose value the IR does not show (x87 80-bit stores, fxsave...):
 * keep the old bytes before, compare after. Only bytes with history are
 * read; the others need no comparison.
 */
#define SNAP_MAX 4096
static UChar snap_bytes[SNAP_MAX];
static Addr snap_addr;
static SizeT snap_len;

void spy_silent_snap(Addr a, UWord size)
{
	SizeT i;

	snap_addr = a;
	snap_len = size <= SNAP_MAX ? size : 0;
	for (i = 0; i < snap_len; i++) {
		UInt *c = sh_chunk(a + i);

		if (c && c[(a + i) & (SH_CHUNK - 1)])
			snap_bytes[i] = *(const UChar *)(a + i);
	}
}

void spy_silent_after(Addr a, UWord size, SpySite *slot)
{
	UChar now[SNAP_MAX];
	UInt h = spy_site_handle(slot);

	spy_st.bytes_accessed += size;
	if (a != snap_addr || size != snap_len || !size) {
		/* Too large to keep: the bytes are written, not judged. */
		snap_len = 0;
		while (size) {
			sh_chunk_w(a)[a & (SH_CHUNK - 1)] = h;
			a++;
			size--;
		}
		return;
	}
	snap_len = 0;
	VG_(memcpy)(now, (const void *)a, size);
	silent_range(spy_cur, a, size, h, h, snap_bytes, now);
}

/* ---- LoadSpy ----
 * A shadow word holds the last load's handle (upper 24 bits) and the byte it
 * returned (lower 8): one memory access per byte instead of two. */

#define LOAD_HANDLE(w) ((w) >> 8)

static UChar old_bytes[SNAP_MAX];

/* A load of len bytes at a by context h (the handle in slot; not
 * implicit) that returned nv. */
static void load_range(SpyThread *t, Addr a, SizeT len, SpySite *slot, UInt h, const UChar *nv)
{
	UWord off0 = a & (SH_CHUNK - 1);
	UInt hv = h << 8;

	spy_st.bytes_accessed += len;
	/* Common case: one chunk, one previous load (or none). */
	if (LIKELY(off0 + len <= SH_CHUNK && len <= 32)) {
		UInt *c = sh_chunk_w(a) + off0, w = LOAD_HANDLE(c[0]);
		SizeT i;

		for (i = 1; i < len && LOAD_HANDLE(c[i]) == w; i++)
			;
		if (i == len) {
			if (w) {
				UChar old[32];

				for (i = 0; i < len; i++)
					old[i] = (UChar)c[i];
				rec_at(slot, t, w, h, len, judge(old, nv, a, len, spy_node(w)->dtype));
			}
			for (i = 0; i < len; i++)
				c[i] = hv | nv[i];
			return;
		}
	}
	while (len) {
		UWord off = a & (SH_CHUNK - 1);
		SizeT n = SH_CHUNK - off < len ? SH_CHUNK - off : len, i = 0, j, k;
		UInt *c = sh_chunk_w(a) + off;

		while (i < n) {
			UInt w = LOAD_HANDLE(c[i]);

			for (j = i + 1; j < n && LOAD_HANDLE(c[j]) == w; j++)
				;
			if (w) {
				for (k = i; k < j; k++)
					old_bytes[k - i] = (UChar)c[k];
				rec_at(slot, t, w, h, j - i,
				    judge(old_bytes, nv + i, a + i, j - i, spy_node(w)->dtype));
			}
			for (; i < j; i++)
				c[i] = hv | nv[i];
		}
		a += n;
		nv += n;
		len -= n;
	}
}

/* After a load whose value the IR does not show: it succeeded, so memory
 * is readable and still holds what it read. */
void spy_load_mem(Addr a, UWord size, SpySite *slot)
{
	UChar buf[SNAP_MAX];

	if (size > SNAP_MAX)
		size = SNAP_MAX;
	VG_(memcpy)(buf, (const void *)a, size);
	load_range(spy_cur, a, size, slot, spy_site_handle(slot), buf);
}

/*
 * A load of n = 4, 8, 16 or 32 bytes within one chunk, all from one
 * previous load (or none): four shadow words at a time, as one 16-byte
 * vector (gcc's vector extensions, SSE2 on amd64). A word equals
 * (previous handle << 8 | new byte) exactly where the byte is unchanged, so
 * one xor per vector tells both whether the previous handle is the same
 * throughout and whether the bytes are. False, with the shadow untouched,
 * when the bytes had more than one previous load (load_range's case).
 * Demo's 4- and 16-byte float loads take this path. Loads over several
 * previous loads stay with load_range: a vector path for those made of
 * whole 4-byte groups (demo's blur: image[y][x + 1 .. x + 4]) does not
 * make demo faster under bench/spy-ab --tool=load.
 */
typedef UInt v4u __attribute__((vector_size(16)));
typedef UInt v4u_u __attribute__((vector_size(16), aligned(4), may_alias));
typedef ULong v2q __attribute__((vector_size(16)));

static inline Bool any_bits(v4u x)
{
	v2q q = (v2q)x;

	return (q[0] | q[1]) != 0;
}

static inline v4u bytes_to_words(const UChar *p)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i b = _mm_cvtsi32_si128(*(const UInt_u *)p);

	return (v4u)_mm_unpacklo_epi16(_mm_unpacklo_epi8(b, zero), zero);
}

static inline Bool load_words(SpyThread *t, UInt *c, Addr a, SizeT n, SpySite *slot, UInt h,
			      const UChar *nv)
{
	UInt w = LOAD_HANDLE(c[0]);
	const v4u hmask = { ~0xffu, ~0xffu, ~0xffu, ~0xffu };
	v4u want = { w << 8, w << 8, w << 8, w << 8 };
	v4u hv = { h << 8, h << 8, h << 8, h << 8 };
	v4u other = { 0, 0, 0, 0 }, changed = { 0, 0, 0, 0 }, x;
	SizeT k;

	for (k = 0; k < n; k += 4) {
		x = *(const v4u_u *)(c + k) ^ want;
		other |= x & hmask;
		changed |= x ^ bytes_to_words(nv + k);
	}
	if (any_bits(other))
		return False;
	spy_st.bytes_accessed += n;
	if (w) {
		enum verdict v = any_bits(changed) ? USE : WASTE;

		/* The tolerance last: the node is a cache miss. */
		if (v == USE && spy_cfg.approx > 0 && spy_node(w)->dtype != DT_INT) {
			UChar old[32];

			for (k = 0; k < n; k++)
				old[k] = (UChar)c[k];
			v = judge_approx(old, nv, a, n, spy_node(w)->dtype);
		}
		rec_at(slot, t, w, h, n, v);
	}
	for (k = 0; k < n; k += 4)
		*(v4u_u *)(c + k) = hv | bytes_to_words(nv + k);
	return True;
}

/* n bytes at a, loaded by context h (the handle in slot), that returned
 * the bytes at nv: load_words where it can. */
static inline void load_n(Addr a, SizeT n, SpySite *slot, UInt h, const UChar *nv)
{
	UWord off = a & (SH_CHUNK - 1);

	if (LIKELY(off + n <= SH_CHUNK) &&
	    load_words(spy_cur, sh_chunk_w(a) + off, a, n, slot, h, nv))
		return;
	load_range(spy_cur, a, n, slot, h, nv);
}

/* A load of 1 to 8 bytes, the bytes as an integer. 4 and 8 bytes go
 * through load_words; the other sizes, within a chunk and from one previous
 * load, are decided here (no byte-wise copies to stall on). */
VG_REGPARM(3) void spy_load_value(Addr a, UWord flags, SpySite *slot, ULong v0)
{
	SizeT n = ACC_SIZE(flags), i;
	UWord off = a & (SH_CHUNK - 1);
	UInt h = spy_site_handle(slot), hv = h << 8, *c, w;
	ULong old;

	if (n == 4 || n == 8) {
		load_n(a, n, slot, h, (const UChar *)&v0);
		return;
	}
	if (UNLIKELY(off + n > SH_CHUNK || n > 8)) {
		load_range(spy_cur, a, n, slot, h, (const UChar *)&v0);
		return;
	}
	c = sh_chunk_w(a) + off;
	w = LOAD_HANDLE(c[0]);
	old = (UChar)c[0];
	for (i = 1; i < n; i++) {
		if (UNLIKELY(LOAD_HANDLE(c[i]) != w)) {
			load_range(spy_cur, a, n, slot, h, (const UChar *)&v0);
			return;
		}
		old |= (ULong)(UChar)c[i] << (8 * i);
	}
	spy_st.bytes_accessed += n;
	if (n < 8)
		v0 &= (1ULL << (8 * n)) - 1;
	if (w) {
		enum verdict v = old == v0 ? WASTE : USE;

		/* The tolerance first: the node is a cache miss. */
		if (v == USE && spy_cfg.approx > 0 && spy_node(w)->dtype != DT_INT)
			v = judge_approx((const UChar *)&old, (const UChar *)&v0, a, n,
					 spy_node(w)->dtype);
		rec_at(slot, spy_cur, w, h, n, v);
	}
	for (i = 0; i < n; i++)
		c[i] = hv | (UChar)(v0 >> (8 * i));
}

void spy_load_value16(Addr a, SpySite *slot, ULong v0, ULong v1)
{
	ULong v[2] = { v0, v1 };

	load_n(a, 16, slot, spy_site_handle(slot), (const UChar *)v);
}

void spy_load_value32(Addr a, SpySite *slot, ULong v0, ULong v1, ULong v2, ULong v3)
{
	ULong v[4] = { v0, v1, v2, v3 };

	load_n(a, 32, slot, spy_site_handle(slot), (const UChar *)v);
}

/* ---- compare-and-swap, judged after it ran ----
 * old_lo/old_hi are the bytes it read; when it stored (ACC_STORED), memory
 * now holds the bytes it wrote. */
void spy_cas(Addr a, UWord flags, SpySite *slot, ULong old_lo, ULong old_hi)
{
	SizeT n = ACC_SIZE(flags);
	ULong old[2] = { old_lo, old_hi };
	Bool stored = (flags & ACC_STORED) != 0;
	UInt h = spy_site_handle(slot);

	switch (spy_cfg.tool) {
	case SPY_DEAD:
		dead_load_range(spy_cur, a, n, h);
		if (stored) {
			spy_st.bytes_accessed += n;
			dead_store_range(spy_cur, a, n, h, h);
		}
		break;
	case SPY_SILENT:
		if (stored) {
			UChar now[16];

			spy_st.bytes_accessed += n;
			VG_(memcpy)(now, (const void *)a, n);
			silent_range(spy_cur, a, n, h, h, (const UChar *)old, now);
		}
		break;
	case SPY_LOAD:
		load_range(spy_cur, a, n, slot, h, (const UChar *)old);
		break;
	}
}

/* ---- the kernel, on behalf of a thread (system call buffers) ---- */

/* The system call instruction that is running, in its calling context. */
static UInt syscall_context(SpyThread *t)
{
	Addr ip = VG_(get_IP)(t->tid);

	spy_unwind(t, VG_(get_SP)(t->tid));
	/* The guest IP may already be past `syscall` (0f 05). */
	if (ip >= 2 && VG_(am_is_valid_for_client)(ip - 2, 2, VKI_PROT_READ) &&
	    ((const UChar *)ip)[-2] == 0x0f && ((const UChar *)ip)[-1] == 0x05)
		ip -= 2;
	return spy_context_at(t, ip);
}

void spy_kernel_read(SpyThread *t, Addr a, SizeT len)
{
	if (spy_cfg.tool != SPY_DEAD || !len)
		return;
	spy_st.kernel_bytes_read += len;
	dead_load_range(t, a, len, syscall_context(t));
}

void spy_kernel_write(SpyThread *t, Addr a, SizeT len)
{
	UInt h;

	/* LoadSpy compares values: what the kernel wrote shows in the next
	 * load's bytes. */
	if (!len || spy_cfg.tool == SPY_LOAD)
		return;
	spy_st.kernel_bytes_written += len;
	h = syscall_context(t);
	if (spy_cfg.tool == SPY_DEAD) {
		spy_st.bytes_accessed += len;
		dead_store_range(t, a, len, h, h);
		return;
	}
	/* RedSpy: the old bytes are gone, so the kernel's write is not judged;
	 * it becomes the previous writer of the next store. */
	while (len) {
		UWord off = a & (SH_CHUNK - 1);
		SizeT n = SH_CHUNK - off < len ? SH_CHUNK - off : len, i;
		UInt *c = sh_chunk_w(a) + off;

		for (i = 0; i < n; i++)
			c[i] = h;
		a += n;
		len -= n;
	}
}
