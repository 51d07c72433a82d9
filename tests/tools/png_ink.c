/*
 * png_ink.c - how much of a PNG image is not its background: for the
 * HTML report's test, which screenshots each page with headless Chromium
 * and must tell a drawn page from a blank one.
 *
 *   png_ink FILE.png
 *
 * prints "WIDTHxHEIGHT ink FRACTION colours N": the fraction of pixels
 * whose colour is not the most common one (the background) and how many
 * colours there are. 8-bit RGB and RGBA images without interlacing, as
 * Chromium writes them; anything else is an error (exit 2, one line).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int fail(const char *path, const char *why)
{
	fprintf(stderr, "png_ink: %s: %s\n", path, why);
	return 2;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 1 << 16)))
			break;
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undo each row's filter (PNG §9) in place; -1 on an unknown filter. */
static int unfilter(unsigned char *raw, uint32_t w, uint32_t h, unsigned bpp)
{
	size_t stride = (size_t)w * bpp, y, x;

	for (y = 0; y < h; y++) {
		unsigned char *row = raw + y * (stride + 1) + 1, *up = y ? row - stride - 1 : NULL;
		int type = row[-1];

		for (x = 0; x < stride; x++) {
			int a = x >= bpp ? row[x - bpp] : 0, b = up ? up[x] : 0;
			int c = up && x >= bpp ? up[x - bpp] : 0;

			if (type == 1)
				row[x] += a;
			else if (type == 2)
				row[x] += b;
			else if (type == 3)
				row[x] += (a + b) / 2;
			else if (type == 4)
				row[x] += paeth(a, b, c);
			else if (type)
				return -1;
		}
	}
	return 0;
}

/* Colours counted in an open-addressing table (the count of each). */
struct slot {
	uint32_t colour, count;
};

int main(int argc, char **argv)
{
	static const unsigned char sig[8] = { 137, 'P', 'N', 'G', '\r', '\n', 26, '\n' };
	unsigned char *png, *idat = NULL, *raw;
	size_t len, nidat = 0, pos = 8, x, nslots, colours = 0;
	uint32_t w = 0, h = 0, best = 0, i;
	unsigned bpp = 0;
	uLongf rawlen;
	struct slot *t;

	if (argc != 2) {
		fprintf(stderr, "usage: png_ink FILE.png\n");
		return 2;
	}
	png = slurp(argv[1], &len);
	if (!png || len < 8 || memcmp(png, sig, 8))
		return fail(argv[1], "not a PNG file");
	while (pos + 12 <= len) {
		uint32_t n = be32(png + pos);
		const unsigned char *type = png + pos + 4, *data = png + pos + 8;

		if (n > len - pos - 12)
			return fail(argv[1], "truncated");
		if (!memcmp(type, "IHDR", 4) && n >= 13) {
			w = be32(data);
			h = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12])
				return fail(argv[1], "not an 8-bit RGB or RGBA image without interlacing");
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			if (!(idat = realloc(idat, nidat + n + 1)))
				return fail(argv[1], "out of memory");
			memcpy(idat + nidat, data, n);
			nidat += n;
		}
		pos += 12 + n;
	}
	if (!w || !h || !bpp || w > 1 << 14 || h > 1 << 14)
		return fail(argv[1], "no usable IHDR chunk");
	rawlen = (uLongf)h * ((uLongf)w * bpp + 1);
	raw = malloc(rawlen);
	if (!raw || uncompress(raw, &rawlen, idat, nidat) != Z_OK ||
	    rawlen != (uLongf)h * ((uLongf)w * bpp + 1) || unfilter(raw, w, h, bpp))
		return fail(argv[1], "its image data does not decode");
	for (nslots = 1; nslots < 2 * (size_t)w * h; nslots <<= 1)
		;
	t = calloc(nslots, sizeof(*t));
	if (!t)
		return fail(argv[1], "out of memory");
	for (i = 0; i < h; i++)
		for (x = 0; x < w; x++) {
			const unsigned char *p = raw + i * ((size_t)w * bpp + 1) + 1 + x * bpp;
			uint32_t c = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
			size_t s = (c * 2654435761u) & (nslots - 1);

			while (t[s].count && t[s].colour != c)
				s = (s + 1) & (nslots - 1);
			if (!t[s].count++) {
				t[s].colour = c;
				colours++;
			}
			if (t[s].count > best)
				best = t[s].count;
		}
	printf("%ux%u ink %.6f colours %zu\n", w, h, 1 - (double)best / ((double)w * h), colours);
	return 0;
}
