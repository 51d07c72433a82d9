/*
 * unwind.c - calling contexts from a signal context, with libunwind.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>

#include "runtime/runtime.h"

void wt_unwind_init(void)
{
	/* Per-thread caches avoid libunwind's global lock inside handlers;
	 * the loader's lock is watched (loaderlock.c). */
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	wt_loader_lock_find();
}

/*
 * Fill pcs[] leaf first from the interrupted context: pcs[0] is the context
 * PC, the rest are return addresses. Also report the bounds of the function
 * holding the context PC (0 when unknown). Returns the number of frames (0
 * when the loader's lock is busy: wt_loader_busy).
 */
int wt_unwind(ucontext_t *uc, uintptr_t *pcs, int max, uintptr_t *proc_start,
	      uintptr_t *proc_end)
{
	unw_cursor_t cur;
	unw_proc_info_t pi;
	unw_word_t ip;
	int n = 0;

	*proc_start = *proc_end = 0;
	if (wt_loader_busy() ||
	    unw_init_local2(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	if (unw_get_proc_info(&cur, &pi) == 0) {
		*proc_start = pi.start_ip;
		*proc_end = pi.end_ip;
	}
	do {
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		pcs[n++] = ip;
	} while (n < max && unw_step(&cur) > 0);
	return n;
}

/* The bounds of the function holding ip, from its unwind information.
 * Returns 0, or -1 when there is none. */
int wt_proc_bounds(uintptr_t ip, uintptr_t *start, uintptr_t *end)
{
	unw_proc_info_t pi;

	if (wt_loader_busy() || unw_get_proc_info_by_ip(unw_local_addr_space, ip, &pi, NULL) < 0 ||
	    ip < pi.start_ip || ip >= pi.end_ip)
		return -1;
	*start = pi.start_ip;
	*end = pi.end_ip;
	return 0;
}
