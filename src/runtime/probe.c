/*
 * probe.c - from a timer sample to the access it stands for (see struct
 * wt_probe in runtime.h). Runs in the sample and trap handlers.
 */
#include <linux/hw_breakpoint.h>

#include "runtime/hit.h"
#include "runtime/runtime.h"
#include "runtime/share.h"

#define LOOKAHEAD_INSNS 64
#define MAX_HOPS 8	/* jumps, calls, returns and breakpoints followed per sample */
#define MAX_SKIPS 32	/* push/pop/leave passed per walk (they cost no trap) */
/*
 * Breakpoints a sample may set only to pass over more accesses (--spread:
 * at a jump whose flags are not computed yet); past them the draw is made
 * again among the accesses passed. Each costs a trap; allowing none left
 * the draw short of its spread after slow code, and allowing more gained
 * no accuracy in bench/accuracy for more traps (docs/results.md).
 */
#define PASS_BREAKPOINTS 2
#define X86_RESUME_FLAG 0x10000	/* EFLAGS.RF: no instruction breakpoint on the next one */

static uintptr_t rip(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

void wt_probe_cancel(struct wt_thread *t)
{
	struct wt_probe *p = &t->probe;

	if (p->state != WT_PROBE_IDLE)
		wt_slot_disable(t, &p->reg);
	p->state = WT_PROBE_IDLE;
}

/*
 * A breakpoint at `at`, for the walk from the interrupted context uc. At
 * the interrupted PC itself (the walk went round a loop back to it) a
 * debug register would fire at once, for the instance the thread is at,
 * not the next one the walk reached: the resume flag lets that instance
 * run (the kernel restores RF from the signal frame; a probe's own trap
 * set it already). Single steps (--watch=pages) run the instruction first.
 */
static void arm(struct wt_thread *t, int state, uintptr_t at, ucontext_t *uc)
{
	struct wt_probe *p = &t->probe;

	if (wt_slot_program(t, &p->reg, HW_BREAKPOINT_X, at, 0) < 0) {
		t->st.arm_failed++;
		wt_probe_cancel(t);
		return;
	}
	p->state = state;
	if (!wt_pages_mode && at == rip(uc))
		uc->uc_mcontext.gregs[REG_EFL] |= X86_RESUME_FLAG;
}

/* Are uc's registers those right before acc? Only where the walk started. */
static int registers_at(const struct wt_probe *p, const struct wd_access *acc,
			const ucontext_t *uc)
{
	return !p->walk.moved && acc->pc == rip(uc);
}

/* The access the sample stands for: count it in its context (mu), and
 * let the reservoir decide whether a register will watch it. Returns 0
 * when it will (p->target_slot says which). */
static int sampled(struct wt_thread *t, const struct wd_access *acc)
{
	struct wt_probe *p = &t->probe;
	int j;

	p->node = wt_cct_child(&t->cct, p->walk.parent_node, acc->pc);
	wt_attrib_sampled(&t->cct.nodes[p->node]);
	if (wt_cfg.craft == WT_CRAFT_SHARE) {
		/* Published, for the other threads' registers. */
		p->acc = *acc;
		p->target_slot = -1;
		return 0;
	}
	j = wt_reservoir_choose(&t->reservoir, wt_occupied(t), wt_rand(&t->rng));
	if (j < 0) {
		t->st.samples_reservoir_dropped++;
		wt_probe_cancel(t);
		return -1;
	}
	p->acc = *acc;
	p->target_slot = j;
	return 0;
}

/*
 * Watch the sampled access's bytes at ea in the slot the reservoir chose;
 * uc holds its registers (before or after it: an opmask it uses it does
 * not write), or is NULL. A masked access is watched where its mask
 * selected, and one whose mask selected nothing stands for no access.
 */
static void watch_at(struct wt_thread *t, uintptr_t ea, int skip_self, const ucontext_t *uc)
{
	struct wt_probe *p = &t->probe;
	struct wt_slot *s;
	uint64_t own = wt_hit_own_bytes(&p->acc, uc);
	uintptr_t base;
	unsigned len = wt_watch_piece_of(ea, p->acc.size, own, wt_rand(&t->rng), &base);
	int type = wt_cfg.craft == WT_CRAFT_SILENT ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;

	wt_probe_cancel(t);
	if (!len) {
		t->st.samples_no_access++;
		return;
	}
	if (wt_cfg.craft == WT_CRAFT_SHARE) {
		wt_share_publish(t, &p->acc, ea, own, base, p->node, uc);
		return;
	}
	s = &t->slot[p->target_slot];
	if (s->state != WT_SLOT_FREE)
		wt_attrib_abandoned(&t->cct.nodes[s->watch_node]);
	s->state = WT_SLOT_FREE;
	if (wt_slot_program(t, s, type, base, len) < 0) {
		t->st.arm_failed++;
		wt_slot_free(t, s);
		return;
	}
	s->acc = p->acc;
	s->ea = ea;
	s->own = own;
	wt_slot_seen(s, uc);
	s->watch_node = p->node;
	s->skip_self = skip_self;
	s->state = WT_SLOT_WATCH;
	s->value_before = 0;
	if (skip_self)
		wt_craft_before(t, s);
	else
		wt_craft_armed(t, s);
	wt_attrib_armed(&t->cct.nodes[s->watch_node]);
	t->st.watchpoints_armed++;
}

/*
 * Accesses whose address cannot be computed after they ran: string ops
 * (they repeat, moving rdi/rsi) and instructions that overwrite their own
 * address registers (the pointer chase mov 8(%rax),%rax). They are watched
 * from right before they run, and their own access is skipped.
 */
static int needs_before(const struct wd_access *acc)
{
	return (acc->flags & (WD_STRING | WD_WRITES_ADDR_REG)) &&
	       !(acc->flags & (WD_IMPLICIT | WD_VSIB | WD_CONTROL));
}

/*
 * Which element of string instruction acc the sample watches. A sample
 * that interrupted it midway watches the next, or with --spread the one
 * p->walk.skip on: such samples are spread over its elements by the time each
 * takes. A sample the walk brought to it before it started (with --spread,
 * one whose draw fell within its elements) stands for all of them: the
 * time before the instruction is no more the first element's than the
 * last's, so it watches one drawn at random. Watching the first made a rep
 * stos that clears a struct look as dead as its first field (sqlite3's
 * parser). Overlapping movs keeps the first: a later element of one side
 * can be touched by the other side before its turn, which the watch would
 * take for the sampled access itself.
 */
static uint64_t string_element(struct wt_thread *t, const struct wd_access *acc,
			       const ucontext_t *uc)
{
	uintptr_t rsi = (uintptr_t)uc->uc_mcontext.gregs[REG_RSI];
	uintptr_t rdi = (uintptr_t)uc->uc_mcontext.gregs[REG_RDI];
	uint64_t n = wd_string_count(acc, uc), k;

	if (t->probe.state == WT_PROBE_BEFORE && t->probe.acc.pc == acc->pc)
		k = n >= 2 ? wt_rand(&t->rng) % n : 0;
	else
		k = (uint64_t)t->probe.walk.skip;
	if (!acc->size || k >= n)
		return 0;
	if (acc->string_op == WD_STR_MOVS && (rsi > rdi ? rsi - rdi : rdi - rsi) / acc->size < n)
		return 0;
	return k;
}

/* Such an access about to run (registers in uc are its own). */
static void sample_before(struct wt_thread *t, const struct wd_access *acc, const ucontext_t *uc)
{
	uintptr_t ea;

	if (!(acc->flags & WD_STRING)) {
		ea = wd_effective_address(acc, uc, t->fs_base, t->gs_base);
	} else if (!wd_string_element(acc, uc, wt_craft_wants_store(),
				      string_element(t, acc, uc), &ea)) {
		t->st.samples_no_access++;
		wt_probe_cancel(t);
		return;
	}
	if (sampled(t, acc) == 0)
		watch_at(t, ea, 1, uc);
}

/*
 * The walk goes on in the function holding pc, whose calling context
 * (without the leaf) is parent. Returns 0, or -1 when pc is in no function
 * the unwinder knows.
 */
static int enter(struct wt_thread *t, uintptr_t pc, uint32_t parent)
{
	struct wt_probe *p = &t->probe;
	unsigned paused;
	int bounded;

	/* witch's wrappers (a call to read goes to sysbuf.c's): their
	 * accesses are not the program's. */
	if (wt_own_code(pc))
		return -1;
	paused = wt_pause_watches(t);	/* it reads the loader's data */
	bounded = wt_proc_bounds(pc, &p->walk.proc_start, &p->walk.proc_end);

	wt_resume_watches(t, paused);
	p->walk.parent_node = parent;
	return bounded;
}

/* What one step of the walk did: found where it goes on (*pc), or ended
 * the sample's probe (an access watched or waited for, or none to be). */
enum step { STEP_ON, STEP_DONE, STEP_NONE, STEP_REDRAW /* draw again (--spread) */ };

/* Into the callee at *pc of call acc: its context has the call in it (a
 * call into a shared library goes on at its PLT stub). */
static enum step call_into(struct wt_thread *t, const struct wd_access *acc, uintptr_t *pc)
{
	struct wt_probe *p = &t->probe;

	p->walk.hops++;
	return enter(t, *pc, wt_cct_child(&t->cct, p->walk.parent_node, acc->pc + acc->len)) < 0
		       ? STEP_NONE : STEP_ON;
}

static enum step into_callee(struct wt_thread *t, const struct wd_access *acc, uintptr_t *pc)
{
	*pc = acc->target;
	return call_into(t, acc, pc);
}

/* Back in the caller, at the return address the context holds (the leaf's
 * caller, or the call the walk followed). */
static enum step to_caller(struct wt_thread *t, uintptr_t *pc)
{
	struct wt_probe *p = &t->probe;
	const struct wt_cct_node *n = &t->cct.nodes[p->walk.parent_node];

	p->walk.hops++;
	if (!p->walk.parent_node)
		return STEP_NONE;
	*pc = n->pc;
	return enter(t, *pc, n->parent) < 0 ? STEP_NONE : STEP_ON;
}

/* An indirect jump through memory at a RIP-relative address (a PLT stub's
 * through the GOT) needs no register to follow. */
static int rip_relative(const struct wd_access *acc)
{
	return acc->target_reg == WD_REG_NONE && acc->base == REG_RIP && acc->index == WD_REG_NONE;
}

/* Indirect jump or call acc, with registers uc as of right before it (any,
 * when rip_relative). A jump out of the function is a tail call: the callee
 * returns to the same caller. */
static enum step indirect(struct wt_thread *t, const struct wd_access *acc,
			  ucontext_t *uc, uintptr_t *pc)
{
	struct wt_probe *p = &t->probe;

	if (acc->target_reg != WD_REG_NONE)
		*pc = (uintptr_t)uc->uc_mcontext.gregs[acc->target_reg];
	else if (wt_read_target(pc, wd_effective_address(acc, uc, t->fs_base, t->gs_base),
				sizeof(*pc)) < 0)
		return STEP_NONE;
	if (acc->flags & WD_INDIRECT_CALL)
		return call_into(t, acc, pc);
	p->walk.hops++;
	if ((*pc < p->walk.proc_start || *pc >= p->walk.proc_end) && enter(t, *pc, p->walk.parent_node) < 0)
		return STEP_NONE;
	return STEP_ON;
}

/*
 * A rep string instruction is as many accesses as its count (rcx) says,
 * and the --spread draw counts them one by one: passed over as one, a rep
 * stos that clears 64 words after slow code got as many samples as the
 * one store after it (wide stos: 47 % silent for the truth's 97 %). So it
 * is passed over only with its registers at hand. Repe/repne scas and cmps
 * stop at a match no register tells in advance: they count as one.
 */
static int counted_string(const struct wd_access *acc)
{
	return (acc->flags & WD_STRING) && acc->rep && acc->string_op != WD_STR_SCAS &&
	       acc->string_op != WD_STR_CMPS;
}

/*
 * Access acc, n accesses in the draw (a rep string instruction's count,
 * else 1), is not the one the sample stands for (--spread: p->walk.skip more
 * to pass over): the walk goes on after it. One that jumps (a jump or call
 * through memory, for loads) goes on at its target, which needs registers
 * as of right before it in uc.
 */
static enum step pass_over(struct wt_thread *t, const struct wd_access *acc,
			   ucontext_t *uc, uintptr_t *pc, uint64_t n)
{
	t->probe.walk.skip -= (int)n;
	t->probe.walk.passed += (int)n;
	if (acc->flags & (WD_INDIRECT_JMP | WD_INDIRECT_CALL))
		return indirect(t, acc, uc, pc);
	if (acc->flags & WD_CONTROL)
		return STEP_NONE;
	*pc = acc->pc + acc->len;
	return STEP_ON;
}

/* --reach: the sample's access comes too far on; it stands for none. */
static void out_of_reach(struct wt_thread *t)
{
	t->st.samples_out_of_reach++;
	wt_probe_cancel(t);
}

/* --reach: could the walk on from pc find an access within what is left
 * of its reach? Not when the code there, straight on, has none that near
 * and nothing that could lead to one. */
static int maybe_in_reach(const struct wt_probe *p, uintptr_t pc)
{
	struct wd_access a;
	int n;

	if (pc < p->walk.proc_start || pc >= p->walk.proc_end)
		return 1;	/* another function: the walk decides */
	switch (wd_find_next_access_n(pc, p->walk.proc_end, wt_craft_wants_store(), p->walk.reach + 1, &a,
				      &n)) {
	case WD_NOT_FOUND:
		return 0;
	case WD_FOUND:
		return n <= p->walk.reach;
	default:
		return n < p->walk.reach;	/* a jump, call or push to go on from */
	}
}

/*
 * acc needs the registers right before it: a conditional jump's flags,
 * or an access whose address they give. Until the thread is there, a
 * breakpoint waits for it.
 */
static enum step with_registers(struct wt_thread *t, const struct wd_access *acc,
				ucontext_t *uc, uintptr_t *pc)
{
	struct wt_probe *p = &t->probe;

	/* Passed over, an access needs no registers; only a jump does. */
	if (p->walk.skip > 0 && !(acc->flags & WD_CONTROL) && !counted_string(acc))
		return pass_over(t, acc, uc, pc, 1);
	if (!registers_at(p, acc, uc)) {
		/* A breakpoint costs a trap: not for a jump both of whose
		 * ways run out of reach. */
		if (wt_cfg.reach && !p->walk.reached && (acc->flags & WD_COND_JMP) &&
		    !maybe_in_reach(p, acc->target) && !maybe_in_reach(p, acc->pc + acc->len)) {
			out_of_reach(t);
			return STEP_DONE;
		}
		/* Past PASS_BREAKPOINTS, no breakpoint only to pass over
		 * more accesses: the draw is made again among those passed
		 * since the registers were at hand. */
		if (p->walk.skip > 0 && p->walk.passed > 0) {
			if (p->walk.pass_breakpoints == PASS_BREAKPOINTS)
				return STEP_REDRAW;
			p->walk.pass_breakpoints++;
		}
		p->acc = *acc;
		arm(t, WT_PROBE_BEFORE, acc->pc, uc);
		return STEP_DONE;
	}
	if (acc->flags & WD_COND_JMP) {
		p->walk.hops++;
		*pc = wd_branch_taken(acc, uc) ? acc->target : acc->pc + acc->len;
		return *pc < p->walk.proc_start || *pc >= p->walk.proc_end ? STEP_NONE : STEP_ON;
	}
	if (p->walk.skip > 0) {
		/* A rep string instruction the draw passes whole; else the
		 * sample stands for one of its elements (string_element). */
		uint64_t n = counted_string(acc) ? wd_string_count(acc, uc) : 1;

		if ((uint64_t)p->walk.skip >= n)
			return pass_over(t, acc, uc, pc, n);
	}
	sample_before(t, acc, uc);
	return STEP_DONE;
}

/* A conditional or indirect jump, or an indirect call: followed now when
 * the registers it needs are at hand, else from right before it. */
static enum step branch(struct wt_thread *t, const struct wd_access *acc, ucontext_t *uc,
			uintptr_t *pc)
{
	if ((acc->flags & (WD_INDIRECT_JMP | WD_INDIRECT_CALL)) &&
	    (registers_at(&t->probe, acc, uc) || rip_relative(acc)))
		return indirect(t, acc, uc, pc);
	return with_registers(t, acc, uc, pc);
}

/* The next access of the wanted kind is one no watch is set on as found:
 * an implicit, string, VSIB or self-addressed one (WD_SKIPPED). */
static enum step skipped(struct wt_thread *t, const struct wd_access *acc,
			 ucontext_t *uc, uintptr_t *pc, int *skips)
{
	/* A call's push (and an indirect call's load of its target) is
	 * never sampled: the walk goes on into the callee. */
	if (acc->flags & WD_DIRECT_CALL)
		return into_callee(t, acc, pc);
	if (acc->flags & WD_INDIRECT_CALL)
		return branch(t, acc, uc, pc);
	if ((acc->flags & WD_IMPLICIT) && !(acc->flags & WD_CONTROL)) {
		/* push, pop, leave: never sampled, as the spy never watches
		 * them; the next access is after */
		*pc = acc->pc + acc->len;
		return ++*skips > MAX_SKIPS ? STEP_NONE : STEP_ON;
	}
	/* One of the accesses to pass over, whatever kind. */
	if (t->probe.walk.skip > 0 && !(acc->flags & WD_CONTROL) && !counted_string(acc))
		return pass_over(t, acc, uc, pc, 1);
	if (!needs_before(acc)) {
		t->st.samples_skipped_implicit++;
		wt_probe_cancel(t);
		return STEP_DONE;
	}
	return with_registers(t, acc, uc, pc);
}

/*
 * Walk from pc; uc holds the registers as of rip(uc). The sample stands
 * for the next access of the wanted kind the thread will make, wherever
 * it is (with --spread=N, for one of the next N drawn at random, p->walk.skip
 * being how many to pass over: a timer lands before an access in
 * proportion to the time since the one before it, and drawing among N
 * neighbours gives each of them the mean of their times instead of its
 * own; the N end early where passing over one more would need more
 * breakpoints than PASS_BREAKPOINTS, and the draw is then made among those
 * passed since the last): the walk
 * follows jumps, calls and returns to it. Stopping at a
 * call or a return would give the accesses that follow one no samples from
 * the time before it, and those after a long stretch of other code (a
 * store after a call to a function that stores nothing) too few.
 */
static void walk(struct wt_thread *t, uintptr_t pc, ucontext_t *uc)
{
	struct wt_probe *p = &t->probe;
	struct wd_access acc;
	enum step step = STEP_NONE;
	int skips = 0, redrawn = 0;
	const uintptr_t start_pc = pc;
	struct wt_walk start;

	p->walk.moved = 0;
	p->walk.passed = 0;
	start = p->walk;	/* for a draw made again (STEP_REDRAW) */
	/* Each access passed over may take a jump more to reach the next. */
	while (p->walk.hops < MAX_HOPS + wt_cfg.spread) {
		int limited = wt_cfg.reach && !p->walk.reached;
		int lim = limited && p->walk.reach < LOOKAHEAD_INSNS ? p->walk.reach + 1 : LOOKAHEAD_INSNS;
		int before;
		enum wd_find f = wd_find_next_access_n(pc, p->walk.proc_end, wt_craft_wants_store(), lim,
						      &acc, &before);

		/* What it found comes after `before` instructions on the way:
		 * out of reach, or what is left of it is past that one. The
		 * reach is the first access's: --spread's draw among those
		 * after it goes as far as it needs. */
		if (limited) {
			if (before > p->walk.reach) {
				out_of_reach(t);
				return;
			}
			p->walk.reach -= before + 1;
			if (f == WD_FOUND || (f == WD_SKIPPED && !(acc.flags & WD_IMPLICIT)))
				p->walk.reached = 1;
		}
		switch (f) {
		case WD_FOUND:
			if (!(acc.flags & WD_CONTROL) && !wt_craft_reads_before(&acc)) {
				if (p->walk.skip > 0) {
					step = pass_over(t, &acc, uc, &pc, 1);
					break;
				}
				if (sampled(t, &acc) == 0)
					arm(t, WT_PROBE_ACCESS, acc.pc + acc.len, uc);
				return;
			}
			/* A jump through memory (a PLT stub's through the
			 * GOT) never reaches the instruction after it, and a
			 * read-modify-write has overwritten what LoadCraft
			 * needs: both are watched from right before they run. */
			step = with_registers(t, &acc, uc, &pc);
			break;
		case WD_SKIPPED:
			step = skipped(t, &acc, uc, &pc, &skips);
			break;
		case WD_BRANCH:
			step = branch(t, &acc, uc, &pc);
			break;
		case WD_CALL:
			step = into_callee(t, &acc, &pc);
			break;
		case WD_RETURN:
			step = to_caller(t, &pc);
			break;
		default:
			step = STEP_NONE;
			break;
		}
		if (step == STEP_REDRAW && !redrawn++) {
			/* The same way again, to one of the accesses passed:
			 * only the walk goes back to where it started (the
			 * register and what it waits for are the probe's). */
			int passed = p->walk.passed;

			p->walk = start;
			p->walk.skip = (int)(wt_rand(&t->rng) % (uint64_t)passed);
			pc = start_pc;
			skips = 0;
			continue;
		}
		if (step == STEP_DONE)
			return;
		if (step != STEP_ON)
			break;
		p->walk.moved = 1;
	}
	t->st.samples_no_access++;
	wt_probe_cancel(t);
}

void wt_probe_start(struct wt_thread *t, const uintptr_t *pcs, int n, uintptr_t proc_start,
		    uintptr_t proc_end, ucontext_t *uc)
{
	struct wt_probe *p = &t->probe;

	if (p->state != WT_PROBE_IDLE) {
		/* A probe still waiting at the next sample never fires (the
		 * thread took another path, or faulted). */
		t->st.probes_missed++;
		wt_probe_cancel(t);
	}
	/* Following jumps inside one function keeps the call stack: only
	 * the leaf changes, so remember the context without it. */
	p->walk.parent_node = n > 1 ? wt_cct_path(&t->cct, pcs + 1, n - 1) : 0;
	p->walk.proc_start = proc_start;
	p->walk.proc_end = proc_end;
	p->walk.hops = 0;
	p->walk.pass_breakpoints = 0;
	p->walk.reach = wt_cfg.reach;
	p->walk.reached = 0;
	if (wt_own_code(pcs[0])) {
		/* In a wrapper of witch's: the program's time is elsewhere. */
		t->st.samples_no_access++;
		return;
	}
	/* No draw without --spread: the default's random stream stays as it was. */
	p->walk.skip = wt_cfg.spread > 1 ? (int)(wt_rand(&t->rng) % (uint64_t)wt_cfg.spread) : 0;
	walk(t, pcs[0], uc);
}

void wt_probe_executed(struct wt_thread *t, uint32_t parent, const struct wd_access *acc,
		       uintptr_t ea)
{
	t->probe.walk.parent_node = parent;
	if (sampled(t, acc) == 0)
		watch_at(t, ea, 0, NULL);
}

void wt_probe_fired(struct wt_thread *t, ucontext_t *uc)
{
	struct wt_probe *p = &t->probe;

	t->st.probe_traps++;
	switch (p->state) {
	case WT_PROBE_BEFORE:
		if (rip(uc) != p->acc.pc)
			break;
		/* The walk resumes at the instruction, now with its registers;
		 * it was counted on the way there. */
		p->walk.hops++;
		p->walk.reach++;
		walk(t, p->acc.pc, uc);
		return;
	case WT_PROBE_ACCESS:
		if (rip(uc) != p->acc.pc + p->acc.len)
			break;
		watch_at(t, wd_effective_address(&p->acc, uc, t->fs_base, t->gs_base), 0, uc);
		return;
	default:
		t->st.traps_lost++;
		return;
	}
	t->st.probes_missed++;
	wt_probe_cancel(t);
}
