/*
 * test_visit_starts.c - where visits of a line start (src/cli/visit_starts.c),
 * on a loop written here in bytes whose blocks are marked as the line's
 * or another line's code: a candidate hoisted before the loop, a later
 * statement of the same visit (with and without another line's code
 * scheduled before it), two inlined copies back to back, a statement a
 * jump enters midway, and a copy without statement rows.
 */
#include "tap.h"
#include "cli/visit_starts.h"

/*
 * B0 1000 xor eax,eax           the line (hoisted set-up)
 * B1 1002 inc eax; je 1007      another line: the loop's header
 * B2 1006 nop                   the line
 * B3 1007 nop; cmp eax,10; jl   the line, entered from B1 too (or, with
 *                               je 1006, only through B2)
 * B4 100d ret                   another line
 */
static const uint8_t code[] = {
	0x31, 0xc0,		/* 1000 xor eax,eax */
	0xff, 0xc0,		/* 1002 inc eax */
	0x74, 0x01,		/* 1004 je 1007 */
	0x90,			/* 1006 nop */
	0x90,			/* 1007 nop */
	0x83, 0xf8, 0x0a,	/* 1008 cmp eax,10 */
	0x7c, 0xf5,		/* 100b jl 1002 */
	0xc3,			/* 100d ret */
};

/*
 * The starts of candidates at B0, B2 and B3 (their copies copy[], their
 * statement rows stmt[]; the je jumping over B2 when skip), other[]
 * marking the blocks of other lines: S, a start; A, a start that visits
 * begun elsewhere pass too; -, neither.
 */
static const char *run(int skip, const char *other, const uint32_t *copy, const int *stmt)
{
	static const uint64_t cuts[] = { 0x1006, 0x1007 };
	static char out[4];
	uint8_t bytes[sizeof(code)];
	struct flow_code c = { 0x1000, bytes, sizeof(bytes) };
	struct visit_cand v[3];
	struct flow f;
	int i;

	__builtin_memcpy(bytes, code, sizeof(code));
	bytes[5] = skip ? 0x01 : 0x00;
	if (flow_build(&f, &c, 1, 0x1000, cuts, 2) || f.nb != 5 || f.nloops != 1)
		return "no flow";
	for (i = 0; i < 3; i++) {
		v[i].block = (uint32_t)(i ? i + 1 : 0);
		v[i].copy = copy[i];
		v[i].stmt = stmt[i];
	}
	if (visit_starts(&f, other, v, 3))
		return "out of memory";
	for (i = 0; i < 3; i++)
		out[i] = v[i].again ? 'A' : v[i].start ? 'S' : '-';
	out[3] = '\0';
	flow_free(&f);
	return out;
}

#define IS(got, want, ...) tap_ok(!__builtin_strcmp(got, want), __VA_ARGS__)

int main(void)
{
	static const uint32_t one[] = { 0, 0, 0 }, two[] = { 0, 0, 1 };
	static const int all[] = { 1, 1, 1 }, none[] = { 0, 0, 0 }, first[] = { 1, 1, 0 };
	const char *r;

	r = run(1, "\0\1\0\0\1", one, all);
	IS(r, "-SA", "the loop's header is another line's: the candidate before the loop is "
		     "hoisted set-up; the first in it starts visits; the one a jump from another "
		     "line enters starts visits too, and visits from the first pass it (%s)", r);
	r = run(1, "\0\1\0\0\1", two, all);
	IS(r, "-SS", "two inlined copies in a row: each starts its own visits (%s)", r);
	r = run(1, "\0\1\0\0\1", one, first);
	IS(r, "-S-", "only statement rows count: B3's is none (%s)", r);
	r = run(1, "\0\1\0\0\1", one, none);
	IS(r, "-SA", "a copy without statement rows: all its rows count (%s)", r);
	r = run(0, "\0\1\1\0\1", one, all);
	IS(r, "-S-", "B3 reached only through B2, whose code is another line's: a later "
		     "statement of B2's visit (%s)", r);
	r = run(1, "\0\1\1\0\1", one, all);
	IS(r, "-SS", "and with the jump into B3, a start of its own (%s)", r);
	r = run(1, "\0\0\0\0\0", one, all);
	IS(r, "S--", "a loop of the line's own code: visits start before it, once (%s)", r);
	return tap_done();
}
