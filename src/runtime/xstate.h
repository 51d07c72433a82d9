/*
 * xstate.h - registers that a signal frame keeps only in its XSAVE area:
 * the AVX-512 opmask registers k0-k7, which say which elements a masked
 * access touched.
 *
 * Async-signal-safe: reads the frame the kernel wrote, nothing else.
 */
#ifndef WITCH_XSTATE_H
#define WITCH_XSTATE_H

#include <stdint.h>
#include <ucontext.h>

/* Where this CPU's XSAVE layout keeps the opmask state, from CPUID; once,
 * outside any handler. Without AVX-512 (or its state enabled by the OS)
 * no opmask is ever read. */
void wx_init(void);

/* Byte offset of the opmask registers in the XSAVE area, 0 when none. A
 * unit test sets it to describe a CPU it does not run on. */
unsigned wx_opmask_offset(void);
void wx_set_opmask_offset(unsigned offset);

/*
 * Opmask register k (0..7) as the signal frame of uc holds it: 1 and its
 * value in *mask, or 0 when the frame has no such state (a CPU without
 * AVX-512, or a frame in the legacy FXSAVE format). A frame whose opmask
 * state is in its initial configuration holds zeros.
 */
int wx_opmask(const ucontext_t *uc, unsigned k, uint64_t *mask);

/* The same frame layout, for building synthetic contexts in tests. */
#define WX_SW_BYTES 464		/* struct _fpx_sw_bytes in the FXSAVE area's unused tail */
#define WX_MAGIC1 0x46505853u	/* FP_XSTATE_MAGIC1: an XSAVE area follows */
#define WX_HEADER 512		/* XSAVE header: XSTATE_BV, the components present */
#define WX_OPMASK_BIT 5		/* XSAVE state component 5: k0-k7 */

#endif
