/*
 * Exact DeadSpy arithmetic for implicit stores (push, call): redzone()
 * stores 8 bytes just below the stack pointer, then pushes over them
 * unread, N times: 8N dead bytes, the store KILLED_BY the push. A push is
 * judged but never watched, so the pop after it and the next round's
 * store find nothing pending. pushes() pushes and pops N times over bytes
 * nothing stored: no pair at all.
 */
#include <stdio.h>

#define N 1000

/* The loops are in assembly: no compiled store of a counter below the
 * stack pointer can join the pairs. n > 0. */
__attribute__((noipa)) static void redzone(long n)
{
	__asm__ volatile("1:\n\t"
			 "movq %0, -8(%%rsp)\n\t"
			 "pushq %0\n\t"
			 "popq %0\n\t"
			 "decq %0\n\t"
			 "jnz 1b"
			 : "+r"(n) : : "memory", "cc");
}

__attribute__((noipa)) static void pushes(long n)
{
	__asm__ volatile("1:\n\t"
			 "pushq %0\n\t"
			 "popq %0\n\t"
			 "decq %0\n\t"
			 "jnz 1b"
			 : "+r"(n) : : "memory", "cc");
}

int main(void)
{
	redzone(N);
	pushes(N);
	puts("pushed");
	return 0;
}
