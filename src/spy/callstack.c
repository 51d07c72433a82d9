/*
 * callstack.c - a shadow call stack per thread, built from the superblocks'
 * jump kinds and kept honest by the stack pointer (as callgrind does).
 *
 * A call pushes (return address, SP at the callee's entry). Returns are
 * not trusted to match calls: whenever the stack pointer is above a
 * frame's slot, that frame is gone, whether by ret, longjmp, exceptions
 * or a tail-called function returning for its caller. A signal handler
 * runs above a marker so that its frames, possibly on another stack, do
 * not unwind the interrupted code's.
 *
 * The context of an access is the path of return addresses down to the
 * current frame plus the accessing instruction, interned in the CCT. Each
 * accessing instruction caches its leaf node for the last two calling
 * contexts it was judged in: the common case costs a comparison.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"

#include "spy.h"
#include "loop.h"

SpyThread *spy_threads;
SpyThread *spy_cur;
UInt spy_cur_node;
Addr spy_cur_limit = ~(Addr)0;

static SpyThread **by_tid;	/* live threads by Valgrind ThreadId */
static UInt ntids;

static SpyThread *new_thread(ThreadId tid)
{
	SpyThread *t = VG_(calloc)("witchspy.thread", 1, sizeof(*t));

	t->tid = tid;
	t->lwpid = 0;
	t->cap = 64;
	t->f = VG_(malloc)("witchspy.frames", t->cap * sizeof(SpyFrame));
	spy_pairs_init(&t->pairs);
	t->next = spy_threads;
	spy_threads = t;
	if (spy_cfg.tool == SPY_COUNT)
		cnt_thread_new(t);
	return t;
}

SpyThread *spy_thread(ThreadId tid)
{
	if (tid >= ntids) {
		UInt n = tid + 16;

		by_tid = VG_(realloc)("witchspy.tids", by_tid, n * sizeof(*by_tid));
		VG_(memset)(by_tid + ntids, 0, (n - ntids) * sizeof(*by_tid));
		ntids = n;
	}
	if (!by_tid[tid])
		by_tid[tid] = new_thread(tid);
	return by_tid[tid];
}

UInt spy_thread_node(SpyThread *t)
{
	return t->depth ? t->f[t->depth - 1].node : SPY_ROOT;
}

/* Refresh the mirrors the instrumentation reads. */
static void mirror(SpyThread *t)
{
	if (t != spy_cur)
		return;
	spy_cur_node = spy_thread_node(t);
	if (t->depth > t->sigbase)
		spy_cur_limit = t->f[t->depth - 1].slot;
	else if (t->nsig && !t->sig[t->nsig - 1].alt)
		spy_cur_limit = t->sig[t->nsig - 1].sp - 1;
	else
		spy_cur_limit = ~(Addr)0;
}

void spy_thread_switch(ThreadId tid)
{
	SpyThread *t = spy_thread(tid);

	if (!t->lwpid) {
		t->lwpid = VG_(gettid)();	/* we run on the client thread's own */
		spy_trim_thread_start();
	}
	spy_cur = t;
	mirror(t);
	loop_switch(t);
}

void spy_threads_live(void (*fn)(ThreadId tid))
{
	UInt i;

	for (i = 0; i < ntids; i++)
		if (by_tid[i])
			fn((ThreadId)i);
}

void spy_thread_exit(ThreadId tid)
{
	/* The record stays on spy_threads for the profile; a later thread
	 * with the same ThreadId gets a new one. */
	if (tid < ntids && by_tid[tid]) {
		if (spy_cfg.tool == SPY_COUNT)
			cnt_thread_exit(by_tid[tid]);
		loop_thread_exit(by_tid[tid]);
		if (spy_cur == by_tid[tid]) {
			spy_cur = NULL;
			loop_switch(NULL);
		}
		by_tid[tid] = NULL;
	}
}

/* After fork only the forking thread exists, and the child starts a
 * profile of its own: drop every other thread and all pairs. */
void spy_threads_after_fork(ThreadId tid)
{
	SpyThread *t, *keep = tid < ntids ? by_tid[tid] : NULL, *next;

	spy_memos_drop();
	for (t = spy_threads; t; t = next) {
		next = t->next;
		if (t == keep)
			continue;
		VG_(free)(t->f);
		spy_pairs_free(&t->pairs);
		cnt_thread_free(t);
		loop_thread_free(t);
		VG_(free)(t);
	}
	VG_(memset)(by_tid, 0, ntids * sizeof(*by_tid));
	spy_threads = NULL;
	if (keep) {
		spy_pairs_free(&keep->pairs);
		spy_pairs_init(&keep->pairs);
		keep->lwpid = VG_(gettid)();
		keep->next = NULL;
		spy_threads = keep;
		by_tid[tid] = keep;
	}
	spy_cur = keep;
	if (keep)
		mirror(keep);
}

static void pop(SpyThread *t)
{
	SpyFrame *f = &t->f[--t->depth];

	if (UNLIKELY(f->realloc_pending))
		spy_realloc_done(t, f);
	if (f->call)
		cnt_frame_popped(t, f);
	if (t->loop)
		loop_frames_popped(t);
}

/* Drop the frames the stack pointer has left behind. */
void spy_unwind(SpyThread *t, Addr sp)
{
	for (;;) {
		if (t->depth > t->sigbase && t->f[t->depth - 1].slot < sp) {
			pop(t);
			continue;
		}
		/* SP back at or above where the signal struck: the handler was
		 * left without sigreturn (longjmp). */
		if (t->depth == t->sigbase && t->nsig && !t->sig[t->nsig - 1].alt &&
		    t->sig[t->nsig - 1].sp <= sp) {
			t->nsig--;
			t->sigbase = t->sig[t->nsig].prev_base;
			if (t->loop)
				loop_frames_popped(t);
			continue;
		}
		break;
	}
	mirror(t);
}

UInt spy_context_at(SpyThread *t, Addr pc)
{
	return spy_cct_child(spy_thread_node(t), pc, DT_INT);
}

/* At the start of a superblock whose SP rose above the innermost frame. */
VG_REGPARM(1) void spy_sb_returned(Addr sp)
{
	spy_unwind(spy_cur, sp);
}

/* Within a superblock the context does not change (a call ends it), so
 * the node of its entry is the running thread's now. */
UInt spy_site_resolve(SpySite *s)
{
	UInt node = spy_cur_node, h = s->handle, n = s->node;

	if (s->alt_node == node) {
		s->handle = s->alt_handle;
	} else {
		s->handle = spy_handle(spy_cct_child(node, s->pc, (UChar)s->dtype));
	}
	s->node = node;
	s->alt_handle = h;
	s->alt_node = n;
	return s->handle;
}

SpyFrame *spy_frame_push(SpyThread *t, Addr ret, Addr sp, UInt node)
{
	SpyFrame *f;

	/* A frame at or below this slot is over: the call reuses its place.
	 * (t is the running thread, whose limit spy_cur_limit mirrors.) */
	if (sp >= spy_cur_limit)
		spy_unwind(t, sp + 1);
	if (t->depth == t->cap) {
		t->cap *= 2;
		t->f = VG_(realloc)("witchspy.frames", t->f, t->cap * sizeof(SpyFrame));
	}
	f = &t->f[t->depth];
	f->ret = ret;
	f->slot = sp;
	f->node = node;
	f->realloc_pending = 0;
	f->call = NULL;
	t->depth++;
	mirror(t);
	return f;
}

/* At the end of a superblock ending in a call; sp points at the pushed
 * return address. */
VG_REGPARM(2) void spy_on_call(SpyCallSite *cs, Addr sp)
{
	SpyThread *t = spy_cur;
	UInt parent, node;

	if (sp >= spy_cur_limit)
		spy_unwind(t, sp + 1);
	parent = spy_thread_node(t);
	if (cs->parent == parent) {
		node = cs->child;
	} else {
		ULong dropped = spy_nodes_dropped;

		node = spy_cct_child(parent, cs->ret, DT_INT);
		/* A full tree's stand-in is not the child: count each drop. */
		if (dropped == spy_nodes_dropped) {
			cs->parent = parent;
			cs->child = node;
		}
	}
	spy_frame_push(t, cs->ret, sp, node);
}

void spy_signal_enter(ThreadId tid, Bool alt)
{
	SpyThread *t = spy_thread(tid);
	SpySigMark *m;

	if (t->nsig == SPY_MAX_SIGNEST)
		return;
	spy_unwind(t, VG_(get_SP)(tid));
	m = &t->sig[t->nsig++];
	m->sp = VG_(get_SP)(tid);
	m->prev_base = t->sigbase;
	m->base = t->depth;
	m->alt = alt;
	t->sigbase = t->depth;
	mirror(t);
}

void spy_signal_leave(ThreadId tid)
{
	SpyThread *t = spy_thread(tid);
	SpySigMark *m;

	if (!t->nsig)
		return;
	m = &t->sig[--t->nsig];
	while (t->depth > m->base)
		pop(t);
	t->sigbase = m->prev_base;
	if (t->loop)
		loop_frames_popped(t);
	mirror(t);
}

/* ---- frames from the stack itself ---- */

/* The growing buffers of spy_stack_rebuild's traces. */
static Addr *trace_ips, *trace_sps;
static UInt trace_cap;

/*
 * Valgrind's stack trace of the thread (CFI, else frame pointers): entry
 * 0 is where it is, entry k > 0 one byte into the call that made frame
 * k - 1, at the stack pointer that call left: so the frame it made has
 * the return address one byte further and its slot 8 bytes below. The
 * unwinder may go on past the outermost frame into whatever the stack
 * holds: the trace ends at an entry outside executable memory or whose
 * stack pointer is not above the one inside it. Returns the frames.
 */
static UInt stack_trace(ThreadId tid)
{
	UInt n, k;

	for (;;) {
		if (!trace_cap) {
			trace_cap = 4096;
			trace_ips = VG_(malloc)("witchspy.trace", trace_cap * sizeof(Addr));
			trace_sps = VG_(malloc)("witchspy.trace", trace_cap * sizeof(Addr));
		}
		n = VG_(get_StackTrace)(tid, trace_ips, trace_cap, trace_sps, NULL, 0);
		if (n < trace_cap)
			break;
		trace_cap *= 2;	/* deep recursion: all of it */
		trace_ips = VG_(realloc)("witchspy.trace", trace_ips, trace_cap * sizeof(Addr));
		trace_sps = VG_(realloc)("witchspy.trace", trace_sps, trace_cap * sizeof(Addr));
	}
	for (k = 1; k < n; k++) {
		const NSegment *seg = VG_(am_find_nsegment)(trace_ips[k] + 1);

		if (!seg || !seg->hasX || (k > 1 && trace_sps[k] <= trace_sps[k - 1]))
			break;
	}
	return k - 1;
}

void spy_stack_rebuild(ThreadId tid)
{
	SpyThread *t = spy_thread(tid);
	UInt n = stack_trace(tid), node = SPY_ROOT, k;

	/* The frames it had, and the signals it was in, are stale. */
	t->depth = t->sigbase = t->nsig = 0;
	while (t->cap < n) {
		t->cap *= 2;
		t->f = VG_(realloc)("witchspy.frames", t->f, t->cap * sizeof(SpyFrame));
	}
	for (k = n; k >= 1; k--) {
		SpyFrame *f = &t->f[t->depth++];

		VG_(memset)(f, 0, sizeof(*f));
		f->ret = trace_ips[k] + 1;
		f->slot = trace_sps[k] - 8;
		f->node = node = spy_cct_child(node, f->ret, DT_INT);
	}
	mirror(t);
}
