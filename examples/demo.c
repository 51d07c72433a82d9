/*
 * demo - a small image pipeline with the kind of waste witch finds.
 *
 * Each frame, blur() clears its output buffer and then writes every pixel
 * again: the clearing stores are dead. scale() writes a preview buffer that
 * is only shown every fourth frame: three frames out of four its stores are
 * dead too, killed by the next scale(). histogram() reads what blur() wrote:
 * those stores are used.
 */
#include <stdio.h>
#include <stdlib.h>

#define W 512
#define H 512
#define FRAMES 4000

static float image[H][W], blurred[H][W], preview[H][W];
static unsigned hist[256];

__attribute__((noipa)) static void clear(float *p, long n, float v)
{
	for (long i = 0; i < n; i++)
		p[i] = v;
}

__attribute__((noipa)) static void blur(void)
{
	clear(&blurred[0][0], (long)W * H, 0.0f);	/* wasted: every pixel is set below */
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			blurred[y][x] = (image[y][x] * 6 + image[(y + 1) % H][x] +
					 image[y][(x + 1) % W]) / 8;
}

__attribute__((noipa)) static void scale(float gain)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			preview[y][x] = blurred[y][x] * gain;
}

__attribute__((noipa)) static double show(void)
{
	double s = 0;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			s += preview[y][x];
	return s;
}

__attribute__((noipa)) static void histogram(void)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			hist[(unsigned)blurred[y][x] & 255]++;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : FRAMES;
	double shown = 0;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			image[y][x] = (float)((x * 7 + y * 13) % 256);
	for (int f = 0; f < frames; f++) {
		blur();
		histogram();
		scale(1.0f + (float)f / frames);
		if (f % 4 == 0)
			shown += show();
	}
	printf("hist[0] = %u, hist[128] = %u, shown = %.0f\n", hist[0], hist[128], shown);
	return 0;
}
