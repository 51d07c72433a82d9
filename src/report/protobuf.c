/*
 * protobuf.c - a protocol buffers writer (see protobuf.h).
 */
#include "report/grow.h"
#include "report/protobuf.h"

#include <stdlib.h>
#include <string.h>

#define WIRE_VARINT 0
#define WIRE_LEN 2
#define VARINT_MAX 10		/* bytes of a 64-bit varint */

/* v as a varint into out (VARINT_MAX bytes at least); its length. */
static size_t encode(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	/* Seven bits a byte, low ones first; the top bit says more follow. */
	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

static int room(struct wr_pb *pb, size_t n)
{
	if (pb->failed)
		return -1;
	if (wr_grow((void **)&pb->buf, &pb->cap, pb->len + n, 1)) {
		pb->failed = 1;
		return -1;
	}
	return 0;
}

void wr_pb_varint(struct wr_pb *pb, uint64_t v)
{
	if (!room(pb, VARINT_MAX))
		pb->len += encode(pb->buf + pb->len, v);
}

static void key(struct wr_pb *pb, uint32_t field, int wire)
{
	wr_pb_varint(pb, (uint64_t)field << 3 | (uint64_t)wire);
}

void wr_pb_uint(struct wr_pb *pb, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	key(pb, field, WIRE_VARINT);
	wr_pb_varint(pb, v);
}

void wr_pb_bytes(struct wr_pb *pb, uint32_t field, const void *data, size_t n)
{
	key(pb, field, WIRE_LEN);
	wr_pb_varint(pb, n);
	if (!room(pb, n)) {
		memcpy(pb->buf + pb->len, data, n);
		pb->len += n;
	}
}

size_t wr_pb_begin(const struct wr_pb *pb)
{
	return pb->len;
}

void wr_pb_end(struct wr_pb *pb, uint32_t field, size_t mark)
{
	unsigned char head[2 * VARINT_MAX];
	size_t body = pb->len - mark, n;

	if (pb->failed)
		return;
	n = encode(head, (uint64_t)field << 3 | WIRE_LEN);
	n += encode(head + n, body);
	if (room(pb, n))
		return;
	memmove(pb->buf + mark + n, pb->buf + mark, body);
	memcpy(pb->buf + mark, head, n);
	pb->len += n;
}

void wr_pb_free(struct wr_pb *pb)
{
	free(pb->buf);
	pb->buf = NULL;
	pb->len = pb->cap = 0;
}
