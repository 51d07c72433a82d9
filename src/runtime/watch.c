/*
 * watch.c - the watchpoint engine: debug-register slots programmed through
 * perf breakpoint events, and the handler for their traps.
 *
 * A watch slot goes FREE -> WATCH -> FREE: the probe (probe.c) fills it
 * right after the sampled access executed, and it watches those bytes until
 * the next access traps and the craft judges it.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/perf.h"
#include "runtime/hit.h"
#include "runtime/runtime.h"

static int modify_broken;	/* kernel without PERF_EVENT_IOC_MODIFY_ATTRIBUTES */

/* Registers the kernel lets one thread use: open breakpoints until it refuses. */
int wt_debug_registers(void)
{
	static long probe_target[8];
	int fds[8], n = 0, i;

	while (n < 8) {
		fds[n] = core_perf_breakpoint(HW_BREAKPOINT_W, (uintptr_t)&probe_target[n], 8, 0);
		if (fds[n] < 0)
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

unsigned wt_watch_piece_of(uintptr_t ea, unsigned size, uint64_t own, uint64_t r,
			   uintptr_t *piece)
{
	uint64_t left = own;
	unsigned at, len = 8, k;
	uintptr_t byte;

	if (!own)
		return 0;
	/* The (r mod count)-th byte of those own selects. */
	for (k = (unsigned)(r % (unsigned)__builtin_popcountll(own)); k; k--)
		left &= left - 1;
	at = (unsigned)__builtin_ctzll(left);
	byte = ea + at;
	/* Debug registers watch naturally aligned 1, 2, 4 or 8 bytes: the
	 * largest such piece that holds the byte and lies in the access,
	 * all of it selected. */
	for (;;) {
		*piece = byte & ~(uintptr_t)(len - 1);
		if (len == 1 || (*piece >= ea && *piece + len <= ea + size &&
				 (~own & ((1ULL << len) - 1) << (*piece - ea)) == 0))
			return len;
		len >>= 1;
	}
}

unsigned wt_watch_piece(uintptr_t ea, unsigned size, uint64_t r, uintptr_t *piece)
{
	if (!size)
		size = 1;
	return wt_watch_piece_of(ea, size, size >= 64 ? ~0ULL : (1ULL << size) - 1, r, piece);
}

int wt_slot_program(struct wt_thread *t, struct wt_slot *s, int bp_type, uintptr_t addr,
		    unsigned len)
{
	struct perf_event_attr a;

	if (wt_pages_mode)
		return wt_pages_program(t, s, bp_type, addr, len);
	if (s->fd >= 0 && !modify_broken) {
		core_perf_breakpoint_attr(&a, bp_type, addr, len);
		if (ioctl(s->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0)
			goto done;
		if (errno == ENOTTY)
			modify_broken = 1;
	}
	/* First use of the slot, or fall back to close and reopen. */
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
	s->fd = core_perf_breakpoint(bp_type, addr, len, 1);
	if (s->fd < 0)
		return -1;
	if (core_perf_route(s->fd, wt_sig_trap, t->tid) < 0) {
		close(s->fd);
		s->fd = -1;
		return -1;
	}
done:
	s->bp_type = bp_type;
	s->addr = addr;
	s->len = len;
	return 0;
}

void wt_slot_disable(struct wt_thread *t, struct wt_slot *s)
{
	if (wt_pages_mode)
		wt_pages_release(t, s);
	if (s->fd >= 0)
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	s->state = WT_SLOT_FREE;
}

void wt_slots_close(struct wt_thread *t)
{
	int i;

	for (i = 0; i < t->nslots; i++) {
		if (wt_pages_mode)
			wt_pages_release(t, &t->slot[i]);
		if (t->slot[i].fd >= 0)
			close(t->slot[i].fd);
		t->slot[i].fd = -1;
		t->slot[i].state = WT_SLOT_FREE;
	}
	if (t->probe.reg.fd >= 0)
		close(t->probe.reg.fd);
	t->probe.reg.fd = -1;
	t->probe.state = WT_PROBE_IDLE;
}

unsigned wt_occupied(const struct wt_thread *t)
{
	unsigned m = 0;
	int i;

	for (i = 0; i < t->nslots; i++)
		if (t->slot[i].state != WT_SLOT_FREE)
			m |= 1u << i;
	return m;
}

/*
 * The unwinder reads the target's stack, and also libc's and the dynamic
 * loader's data (dl_iterate_phdr's lock, __libc_single_threaded) that the
 * program reads too: a load sampled there was watched, the unwinder tripped
 * it in every handler, and each trap's own unwinding queued the next (xz
 * under --craft=load never ended). Every watch is paused while the handler
 * unwinds or looks up a function. So is the probe's breakpoint: the
 * unwinder runs libunwind's code, where a program that unwinds itself
 * gets its samples, and a probe waiting on a loop of libunwind's tripped
 * in every handler's unwinding, dozens of times, each trap a signal:
 * 15000 queued for ever, and the program crawled (tests/progs/unwinds at
 * --spread=16).
 */
#define PAUSED_PROBE (1u << WT_MAX_SLOTS)

unsigned wt_pause_watches(struct wt_thread *t)
{
	unsigned paused = 0;
	int i;

	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		/* --watch=pages: handlers run with the pages exposed. */
		if (s->fd < 0 || s->state != WT_SLOT_WATCH)
			continue;
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
		paused |= 1u << i;
	}
	if (t->probe.reg.fd >= 0 && t->probe.state != WT_PROBE_IDLE && !wt_pages_mode) {
		ioctl(t->probe.reg.fd, PERF_EVENT_IOC_DISABLE, 0);
		paused |= PAUSED_PROBE;
	}
	return paused;
}

/* Those paused that still wait: a probe may have moved on meanwhile (its
 * new breakpoint is on already) or ended. */
void wt_resume_watches(struct wt_thread *t, unsigned paused)
{
	int i;

	for (i = 0; i < t->nslots; i++)
		if ((paused & (1u << i)) && t->slot[i].state == WT_SLOT_WATCH)
			ioctl(t->slot[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	if ((paused & PAUSED_PROBE) && t->probe.state != WT_PROBE_IDLE)
		ioctl(t->probe.reg.fd, PERF_EVENT_IOC_ENABLE, 0);
}

void wt_slot_free(struct wt_thread *t, struct wt_slot *s)
{
	wt_slot_disable(t, s);
	wt_reservoir_freed(&t->reservoir, wt_occupied(t));
}

/* The watched bytes hold rip: a jump (or call) through them came here. */
static int jumped_through(const struct wt_slot *s, uintptr_t rip)
{
	uintptr_t target;

	return s->len == sizeof(target) &&
	       wt_read_target(&target, s->addr, sizeof(target)) == 0 && target == rip;
}

/* The trap of an access watched from before it ran, at rip: its own? A
 * jump through memory lands where the pointer it read points. */
static int own_trap(const struct wt_slot *s, uintptr_t rip)
{
	if (rip == s->acc.pc || rip == s->acc.pc + s->acc.len)
		return 1;
	return (s->acc.flags & WD_CONTROL) && jumped_through(s, rip);
}

/*
 * A trap at a function's entry on watched bytes that are not the pushed
 * return address: a jump or call through them got here, reading them
 * (pcs[0] is the entry). The watched jump itself when one was watched (a
 * PLT stub's), else a load named by the call the return address follows.
 * 0 when the bytes do not lead here: the trap stays unjudged.
 */
static int load_by_jump(const struct wt_slot *s, uintptr_t *pcs, struct wd_access *acc)
{
	if (!jumped_through(s, pcs[0]))
		return 0;
	if (s->acc.flags & WD_CONTROL) {
		*acc = s->acc;
	} else {
		memset(acc, 0, sizeof(*acc));
		acc->pc = pcs[1] - 1;
		acc->kind = WD_LOAD;
		acc->size = 8;
		acc->flags = WD_CONTROL;
		acc->base = acc->index = WD_REG_NONE;	/* its address: disp alone */
		acc->scale = 1;
		acc->addr_bytes = 8;
		acc->disp = (int64_t)s->addr;
	}
	pcs[0] = acc->pc;
	return 1;
}

/* The watch of slot s, as hit.c sees it. */
void wt_slot_watched(const struct wt_thread *t, const struct wt_slot *s, struct wt_watched *w)
{
	w->lo = s->addr;
	w->len = s->len;
	w->base = s->ea;
	w->size = s->acc.size < sizeof(s->value) ? s->acc.size : sizeof(s->value);
	w->writes_only = s->bp_type == HW_BREAKPOINT_W;
	w->fs_base = t->fs_base;
	w->gs_base = t->gs_base;
	w->last_rip = s->seen_rip;
	w->last_rcx = s->seen_rcx;
}

void wt_slot_seen(struct wt_slot *s, const ucontext_t *uc)
{
	s->seen_rip = uc ? (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
	s->seen_rcx = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RCX] : 0;
}

/*
 * Find the instruction that trapped, and the bytes it accessed (hit.c).
 * A trap right at a function's entry came from the instruction that got
 * there: the `call` pushing its return address onto watched stack bytes,
 * or a jump or call through watched bytes that hold this address, a load.
 * That one is the watched jump again when a jump through memory (a PLT
 * stub's through its GOT slot) was watched; otherwise it is named by the
 * call that the return address follows (exactly it for `call *ptr`).
 * Neither: the trap stays unjudged (WT_HIT_UNKNOWN).
 */
static enum wt_hit_result trapping_access(struct wt_thread *t, const struct wt_slot *s,
					  const ucontext_t *uc, uintptr_t *pcs, int n,
					  uintptr_t start, uintptr_t end, struct wt_hit *h)
{
	struct wt_watched w;
	struct wd_access acc;
	enum wt_hit_result r;

	wt_slot_watched(t, s, &w);
	if (n > 0) {
		r = wt_hit_find(t->pc_cache, uc, start, end, &w, h);
		if (r != WT_HIT_UNKNOWN) {
			pcs[0] = h->acc.pc;
			return r;
		}
	}
	if (n > 1 && start && pcs[0] == start) {
		uintptr_t rsp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];

		if (s->addr >= rsp + 8 || rsp >= s->addr + s->len) {
			if (!load_by_jump(s, pcs, &acc))
				return WT_HIT_UNKNOWN;
			return wt_hit_plain(&acc, uc, s->addr, 1, &w, h);
		}
		memset(&acc, 0, sizeof(acc));
		acc.pc = pcs[1] - 1;
		acc.kind = WD_STORE;
		acc.size = 8;
		acc.flags = WD_IMPLICIT | WD_CONTROL;
		pcs[0] = pcs[1] - 1;	/* inside the call instruction */
		return wt_hit_plain(&acc, uc, rsp, 1, &w, h);
	}
	return WT_HIT_UNKNOWN;
}

void wt_watch_trap(struct wt_thread *t, struct wt_slot *s, ucontext_t *uc)
{
	uintptr_t pcs[WT_MAX_FRAMES], start, end;
	struct wt_hit hit;
	unsigned paused;
	int n;

	if (s->skip_self) {
		/* The sampled access (watched from before it ran) touching
		 * its own bytes: it is the sample, not the next access. */
		s->skip_self = 0;
		if (own_trap(s, (uintptr_t)uc->uc_mcontext.gregs[REG_RIP])) {
			t->st.self_traps++;
			wt_slot_seen(s, uc);
			wt_craft_armed(t, s);
			return;
		}
	}
	if (wt_own_code((uintptr_t)uc->uc_mcontext.gregs[REG_RIP])) {
		/* A wrapper of witch's, its frame on the stack the program
		 * left: not the program's access, and a watch there would
		 * trap at each call. It ends unjudged. */
		t->st.traps_witch++;
		wt_attrib_abandoned(&t->cct.nodes[s->watch_node]);
		wt_slot_free(t, s);
		return;
	}
	paused = wt_pause_watches(t);
	n = wt_unwind(uc, pcs, WT_MAX_FRAMES, &start, &end);
	if (n == WT_MAX_FRAMES)
		t->cct.frames_truncated++;
	switch (trapping_access(t, s, uc, pcs, n, start, end, &hit)) {
	case WT_HIT:
		if (!wt_craft_judge(t, s, &hit, wt_cct_path(&t->cct, pcs, n)))
			wt_slot_free(t, s);
		else
			wt_slot_seen(s, uc);
		break;
	case WT_HIT_MASKED_OFF:
		/* Its mask kept it off the watched bytes: the watch waits on. */
		t->st.traps_masked_off++;
		wt_slot_seen(s, uc);
		break;
	default:
		t->st.traps_unresolved++;
		wt_slot_free(t, s);
		break;
	}
	wt_resume_watches(t, paused);
}

void wt_on_trap(struct wt_thread *t, int fd, ucontext_t *uc)
{
	int i;

	if (fd == t->probe.reg.fd) {
		wt_probe_fired(t, uc);
		return;
	}
	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if (s->fd != fd)
			continue;
		if (s->state == WT_SLOT_WATCH)
			wt_watch_trap(t, s, uc);
		else
			t->st.traps_lost++;	/* queued before the slot was freed */
		return;
	}
	t->st.traps_lost++;
}
