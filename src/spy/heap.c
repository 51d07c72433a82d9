/*
 * heap.c - freed heap blocks forget their history.
 *
 * witchspy keeps the program's own allocator (glibc malloc), so that the
 * program runs the code, and the stores inside malloc, that `witch record`
 * sees. It recognises glibc's free and realloc by their entry addresses and
 * clears the shadow of the block being released, read from glibc's chunk
 * header: a block reused by a later malloc then does not pair its new
 * accesses with the old owner's. free() runs after the clear, so its own
 * stores (tcache links) are recorded like any other.
 *
 * realloc only releases the old block when it moves it: the frame of the
 * call remembers the block, and the return (ret with RAX) decides.
 *
 * Other allocators (jemalloc, tcmalloc, custom pools) are not recognised:
 * their blocks keep their history across reuse.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_vki.h"

#include "spy.h"

UInt spy_reallocs_pending;

static Bool is_glibc(Addr pc, const HChar *name)
{
	DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), pc);
	const HChar *so = di ? VG_(DebugInfo_get_soname)(di) : NULL;

	if (so && !VG_(strncmp)(so, "libc.so", 7))
		return True;
	/* A static program carries glibc's internal names. */
	return !VG_(strncmp)(name, "__libc_", 7);
}

int spy_heap_fn_at(Addr pc)
{
	const HChar *name;
	int kind;

	if (!spy_cfg.heap_clear || !VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), pc, &name))
		return HEAP_NONE;
	if (!VG_(strcmp)(name, "free") || !VG_(strcmp)(name, "__libc_free") ||
	    !VG_(strcmp)(name, "cfree") || !VG_(strcmp)(name, "__free"))
		kind = HEAP_FREE;
	else if (!VG_(strcmp)(name, "realloc") || !VG_(strcmp)(name, "__libc_realloc"))
		kind = HEAP_REALLOC;
	else
		return HEAP_NONE;
	return is_glibc(pc, name) ? kind : HEAP_NONE;
}

/*
 * Usable bytes of the glibc block at p, or 0 when p does not look like
 * one. The size field is the word before p: chunk size | flags (bit 1:
 * mmapped, released by munmap, which clears it anyway). An in-use chunk
 * also owns the first word of the next chunk, hence size - 8.
 */
static SizeT block_size(Addr p)
{
	SizeT sz;

	if (!p || (p & 15) || !VG_(am_is_valid_for_client)(p - 8, 8, VKI_PROT_READ))
		return 0;
	sz = *(const SizeT *)(p - 8);
	if (sz & 2)
		return 0;
	sz &= ~(SizeT)7;
	if (sz < 32 || sz > ((SizeT)1 << 40) ||
	    !VG_(am_is_valid_for_client)(p, sz - 8, VKI_PROT_NONE))
		return 0;
	return sz - 8;
}

static void release(Addr p, SizeT n)
{
	if (!n)
		return;
	sh_clear(p, n);
	spy_st.frees++;
}

VG_REGPARM(1) void spy_free_enter(Addr p)
{
	release(p, block_size(p));
}

/* At realloc's first instruction: the innermost frame is the call to it. */
VG_REGPARM(2) void spy_realloc_enter(Addr p, SizeT size)
{
	SpyThread *t = spy_cur;
	SpyFrame *f;

	if (!p || t->depth <= t->sigbase)
		return;
	f = &t->f[t->depth - 1];
	if (f->realloc_pending)
		return;
	f->realloc_size = block_size(p);
	if (!f->realloc_size)
		return;
	f->realloc_pending = 1;
	f->realloc_p = p;
	f->realloc_new = size;
	spy_reallocs_pending++;
}

/* A frame with a pending realloc is gone without its return being seen
 * (longjmp out of it): nothing is known, nothing is cleared. */
void spy_realloc_done(SpyThread *t, SpyFrame *f)
{
	(void)t;
	f->realloc_pending = 0;
	spy_reallocs_pending--;
}

/* After a `ret` while some realloc is pending: sp is the stack pointer
 * after the return, rax the value returned. */
VG_REGPARM(2) void spy_on_ret(Addr rax, Addr sp)
{
	SpyThread *t = spy_cur;
	UInt i;

	for (i = t->depth; i > t->sigbase && t->f[i - 1].slot < sp; i--) {
		SpyFrame *f = &t->f[i - 1];

		if (!f->realloc_pending)
			continue;
		/* Moved (new address) or freed (size 0 returns NULL). */
		if ((rax && rax != f->realloc_p) || (!rax && f->realloc_new == 0))
			release(f->realloc_p, f->realloc_size);
		spy_realloc_done(t, f);
	}
}
