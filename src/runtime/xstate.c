/*
 * xstate.c - opmask registers from a signal frame's XSAVE area.
 *
 * The kernel writes the extended state of a user signal frame in the
 * standard (non-compacted) XSAVE format: the 512-byte FXSAVE area, whose
 * software-reserved bytes say whether an XSAVE area follows and how large
 * it is, then the XSAVE header, then each component at the offset CPUID
 * leaf 0xD gives it. A component whose bit is clear in the header's
 * XSTATE_BV is in its initial state: for the opmask registers, all zero.
 */
#include <cpuid.h>
#include <string.h>

#include "runtime/xstate.h"

#define XCR0_AVX512 0xe0	/* opmask, ZMM_Hi256, Hi16_ZMM */

static unsigned opmask_offset;

unsigned wx_opmask_offset(void)
{
	return opmask_offset;
}

void wx_set_opmask_offset(unsigned offset)
{
	opmask_offset = offset;
}

void wx_init(void)
{
	unsigned a, b, c, d, xcr0_lo, xcr0_hi;

	opmask_offset = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	__asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
	if ((xcr0_lo & XCR0_AVX512) != XCR0_AVX512)
		return;
	__cpuid_count(0xd, WX_OPMASK_BIT, a, b, c, d);
	if (a >= 64)
		opmask_offset = b;
}

int wx_opmask(const ucontext_t *uc, unsigned k, uint64_t *mask)
{
	const uint8_t *x = (const uint8_t *)uc->uc_mcontext.fpregs;
	uint32_t magic, xstate_size;
	uint64_t xfeatures, present;

	if (!x || !opmask_offset || k > 7)
		return 0;
	memcpy(&magic, x + WX_SW_BYTES, sizeof(magic));
	memcpy(&xfeatures, x + WX_SW_BYTES + 8, sizeof(xfeatures));
	memcpy(&xstate_size, x + WX_SW_BYTES + 16, sizeof(xstate_size));
	if (magic != WX_MAGIC1 || !(xfeatures >> WX_OPMASK_BIT & 1) ||
	    xstate_size < opmask_offset + 64)
		return 0;
	memcpy(&present, x + WX_HEADER, sizeof(present));
	if (!(present >> WX_OPMASK_BIT & 1)) {
		*mask = 0;
		return 1;
	}
	memcpy(mask, x + opmask_offset + 8 * k, sizeof(*mask));
	return 1;
}
