/*
 * trim.c - give back the pages Valgrind's core filled at start-up that
 * nothing reads: a tenth of the peak of a small program's run.
 *
 * - The thread table. The core allocates a record for each of its
 *   --max-threads (500) threads and clears every byte of it: 3.6 MB, where
 *   a thread's record is two pages, about one of them only zeros.
 * - The tool's zero-initialised data, whose start-up fills some with
 *   zeros: the core's table of 24 translation sectors, 2 in use (0.4 MB).
 * - A thread's own stack in Valgrind, 1 MB, which the core fills with a
 *   marker to see how deep it has grown. Its sanity check reads the
 *   marker in the lowest 4 KB; a Valgrind thread uses some 10 KB.
 *
 * A page given back (madvise MADV_DONTNEED) is private anonymous memory
 * and reads as zeros when touched again, so a page of zeros keeps its
 * content, and the stack below the running frame is dead. All run on
 * the thread itself, with the core's lock held; the table and the data,
 * before a second thread exists.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_guest.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex.h"

#include "spy.h"

#define PAGE ((Addr)VKI_PAGE_SIZE)
#define MADV_DONTNEED 4	/* Linux's, not among the tool's headers */

/* The core's table of ThreadStates, in pub_core_threadstate.h. */
extern UChar *VG_(threads);
/* The linker's bounds of the tool's zero-initialised data. */
extern UChar __bss_start[], _end[];

/* A ThreadState holds the guest state, its two shadows and VEX's spill
 * area, and more: what the table spans at least. */
#define THREAD_RECORD_MIN (3 * sizeof(VexGuestArchState) + LibVEX_N_SPILL_BYTES)

/* The marker bytes the core reads at the bottom of a Valgrind stack,
 * rounded up, and how much below the running frame stays. */
#define STACK_MARKER 0xDEADBEEFu
#define STACK_MARKER_KEPT (2 * PAGE)
#define STACK_KEPT_BELOW (16 * PAGE)

static void give_back(Addr a, SizeT len)
{
	if (len)
		VG_(do_syscall)(__NR_madvise, a, len, MADV_DONTNEED, 0, 0, 0);
}

static Bool zeros(Addr page)
{
	const ULong *w = (const ULong *)page;
	UInt i;

	for (i = 0; i < PAGE / sizeof(*w); i++)
		if (w[i])
			return False;
	return True;
}

/* The pages of zeros in [lo, end), page-aligned, given back: only those
 * resident (reading the others would map them), a run per system call. */
static void give_back_zeros(Addr lo, Addr end)
{
	static UChar resident[256];
	Addr at, p, run = 0;
	UInt n, i;

	for (at = lo; at < end; at += n * PAGE) {
		n = (end - at) / PAGE < sizeof(resident) ? (end - at) / PAGE : sizeof(resident);
		if (sr_isError(VG_(do_syscall)(__NR_mincore, at, n * PAGE, (Addr)resident, 0, 0, 0)))
			return;
		for (i = 0; i < n; i++) {
			p = at + i * PAGE;
			if ((resident[i] & 1) && zeros(p)) {
				if (!run)
					run = p;
				continue;
			}
			if (run)
				give_back(run, p - run);
			run = 0;
		}
	}
	if (run)
		give_back(run, end - run);
}

static void trim_thread_table(void)
{
	give_back_zeros(VG_PGROUNDUP((Addr)VG_(threads)),
			VG_PGROUNDDN((Addr)VG_(threads) + VG_N_THREADS * THREAD_RECORD_MIN));
}

/* The tool's own zero-initialised data past its file's last page, when
 * that is memory of Valgrind's own (not file-backed: a page given back
 * there would read the file again). */
static void trim_own_bss(void)
{
	Addr lo = VG_PGROUNDUP((Addr)__bss_start), end = VG_PGROUNDDN((Addr)_end);
	const NSegment *seg = VG_(am_find_nsegment)(lo);

	if (lo < end && seg && seg->kind == SkAnonV && seg->start <= lo && seg->end + 1 >= end)
		give_back_zeros(lo, end);
}

/* Whether a is in one of Valgrind's guard pages. */
static Bool guard_at(Addr a)
{
	const NSegment *g = VG_(am_find_nsegment)(a);

	return g && g->kind == SkAnonV && !g->hasR && !g->hasW && !g->hasX;
}

/* The core's stacks are guarded on both sides and start with its
 * marker: no other memory the tool runs on (the start-up stack in the
 * core's own data) is given back. */
static Bool valgrind_stack(const NSegment *seg)
{
	const UInt *w = (const UInt *)seg->start;
	UInt i;

	if (seg->kind != SkAnonV || !seg->hasW || !guard_at(seg->start - 1) || !guard_at(seg->end + 1))
		return False;
	for (i = 0; i < PAGE / sizeof(*w); i++)
		if (w[i] != STACK_MARKER)
			return False;
	return True;
}

static void trim_own_stack(void)
{
	Addr sp = (Addr)&sp;
	const NSegment *seg = VG_(am_find_nsegment)(sp);
	Addr lo, hi;

	if (!seg || !valgrind_stack(seg))
		return;
	lo = seg->start + STACK_MARKER_KEPT;
	hi = VG_PGROUNDDN(sp) - STACK_KEPT_BELOW;
	if (hi > lo && hi < sp)
		give_back(lo, hi - lo);
}

void spy_trim_thread_start(void)
{
	static Bool table_done;

	if (!spy_cfg.trim)
		return;
	if (!table_done) {
		table_done = True;
		trim_thread_table();
		trim_own_bss();
	}
	trim_own_stack();
}
