/*
 * What the kernel and the allocator do to memory, for witch spy:
 *
 *   fill_buf() stores N bytes that read(2) overwrites unread (dead, killed
 *   by the system call); consume() reads what read(2) wrote (use); the
 *   bytes fill_out() stores are read by write(2) (use).
 *
 *   store_a() writes a heap block that is freed; malloc hands the same
 *   block to store_b(), which writes the same bytes: no pair may link the
 *   two owners (free clears the block's history). The same for a block
 *   realloc moves away, and for stack frames: stack_f()'s locals are dead
 *   when it returns, stack_g() reuses the place.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096
#define BLOCK 256
#define SKIP 32		/* free() keeps its own links at the start */

static char buf[N], out[N];

__attribute__((noipa)) static void fill_buf(char v)
{
	for (int i = 0; i < N; i++)
		buf[i] = (char)(v + i);
}

__attribute__((noipa)) static long consume(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		s += buf[i];
	return s;
}

__attribute__((noipa)) static void fill_out(char v)
{
	for (int i = 0; i < N; i++)
		out[i] = (char)(v ^ i);
}

__attribute__((noipa)) static void store_a(char *p)
{
	for (int i = SKIP; i < BLOCK; i++)
		p[i] = 7;
}

__attribute__((noipa)) static void store_b(char *p)
{
	for (int i = SKIP; i < BLOCK; i++)
		p[i] = 7;
}

__attribute__((noipa)) static void store_c(char *p)
{
	for (int i = SKIP; i < BLOCK; i++)
		p[i] = 9;
}

__attribute__((noipa)) static void store_d(char *p)
{
	for (int i = SKIP; i < BLOCK; i++)
		p[i] = 9;
}

__attribute__((noipa)) static int stack_f(void)
{
	volatile char x[256];

	for (int i = 0; i < 256; i++)
		x[i] = (char)i;
	return x[0];
}

__attribute__((noipa)) static int stack_g(void)
{
	volatile char y[256];

	for (int i = 0; i < 256; i++)
		y[i] = (char)i;
	return y[0];
}

int main(void)
{
	int in = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);
	char *a, *b, *c, *d, *moved;
	long s;

	if (in < 0 || null < 0)
		return 1;
	fill_buf(1);
	if (read(in, buf, N) != N)
		return 1;
	s = consume();
	fill_out(2);
	if (write(null, out, N) != N)
		return 1;

	a = malloc(BLOCK);
	store_a(a);
	free(a);
	b = malloc(BLOCK);
	store_b(b);

	c = malloc(BLOCK);
	store_c(c);
	moved = realloc(c, 1 << 20);
	d = malloc(BLOCK);
	store_d(d);

	s += stack_f();
	s += stack_g();
	printf("%ld heap reused: %s %s\n", s, a == b ? "yes" : "no", c == d ? "yes" : "no");
	free(b);
	free(d);
	free(moved);
	return 0;
}
