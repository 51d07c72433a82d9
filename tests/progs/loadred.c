/*
 * Silent loads: find() searches the same unchanging linked list again and
 * again, loading the same keys and links each time. stream() reads a
 * buffer that refill() has just filled with fresh values: never redundant.
 */
#include <stdio.h>
#include <stdlib.h>

#define NODES 2000
#define BUF (16 * 1024)

struct node {
	long key;
	struct node *next;
};

static struct node nodes[NODES];
static long buf[BUF];

__attribute__((noipa)) static struct node *find(struct node *h, long key)
{
	while (h && h->key != key) /* SEARCH_LINE */
		h = h->next; /* SEARCH_NEXT */
	return h;
}

__attribute__((noipa)) static void refill(long *b, long n, long base)
{
	for (long i = 0; i < n; i++)
		b[i] = base + i;
}

__attribute__((noipa)) static long stream(const long *b, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += b[i]; /* STREAM_LINE */
	return s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5000;
	long s = 0;

	/* Visit the nodes in the order 0, 7, 14, ... (mod NODES, which 7
	 * does not divide): a list whose links jump around memory. */
	for (long i = 0; i < NODES; i++) {
		long at = i * 7 % NODES, next = (i + 1) * 7 % NODES;

		nodes[at].key = i * 3;
		nodes[at].next = i + 1 < NODES ? &nodes[next] : NULL;
	}
	for (int r = 0; r < reps; r++) {
		for (long q = 0; q < 100; q++) {
			struct node *n = find(&nodes[0], (q * 37 % NODES) * 3);

			s += n ? n->key : -1;
		}
		refill(buf, BUF, r * BUF);
		s += stream(buf, BUF);
	}
	printf("%ld\n", s);
	return 0;
}
