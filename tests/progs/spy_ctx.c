/*
 * Calling contexts for witch spy: the same store instruction reached from
 * two callers gives two contexts; after a longjmp out of nested calls and
 * after a signal handler ran, contexts are those of the code running.
 *
 *   via_a -> leaf_store   KILLED_BY   via_b -> leaf_store   (512 bytes)
 *   via_b -> leaf_store   KILLED_BY   main -> after         (512 bytes)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

#define N 64

static long a[N];
static jmp_buf jb;
static volatile long sink;
static volatile sig_atomic_t handled;

__attribute__((noipa)) static void leaf_store(long v)
{
	for (int i = 0; i < N; i++)
		a[i] = v;
}

/* The increments after the calls keep them calls, not tail jumps. */
__attribute__((noipa)) static void via_a(long v)
{
	leaf_store(v);
	sink++;
}

__attribute__((noipa)) static void via_b(long v)
{
	leaf_store(v);
	sink++;
}

__attribute__((noipa)) static void deeper(int x)
{
	if (x)
		longjmp(jb, 1);
	sink++;
}

__attribute__((noipa)) static void deep(int x)
{
	deeper(x);
	sink++;
}

__attribute__((noipa)) static void after(long v)
{
	for (int i = 0; i < N; i++)
		a[i] = v;
}

static void on_signal(int sig)
{
	handled = sig;
}

int main(void)
{
	signal(SIGUSR1, on_signal);
	via_a(1);
	via_b(2);
	if (!setjmp(jb))
		deep(1);
	raise(SIGUSR1);
	after(3);
	printf("%ld %d\n", a[N - 1], (int)handled);
	return 0;
}
