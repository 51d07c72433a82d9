/*
 * test_protobuf.c - the protocol buffers writer that pprof profiles are
 * made with (src/report/protobuf.c): the wire format's bytes for varints,
 * strings, nested messages and packed runs.
 */
#include <stdint.h>
#include <string.h>

#include "report/protobuf.h"
#include "tap.h"

/* Does pb hold exactly the n bytes of want? */
static int holds(const struct wr_pb *pb, const unsigned char *want, size_t n)
{
	return !pb->failed && pb->len == n && !memcmp(pb->buf, want, n);
}

static void test_varints(void)
{
	static const unsigned char v150[] = { 0x08, 0x96, 0x01 };
	static const unsigned char big[] = { 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff, 0x01 };
	static const unsigned char high_field[] = { 0x80, 0x01, 0x7f };
	struct wr_pb pb = { 0 };

	wr_pb_uint(&pb, 1, 150);
	tap_ok(holds(&pb, v150, sizeof(v150)), "field 1 = 150: key 08, then 96 01, low bits first");
	wr_pb_free(&pb);

	wr_pb_uint(&pb, 1, 0);
	tap_ok(pb.len == 0, "0 is proto3's default: nothing written");

	wr_pb_uint(&pb, 2, UINT64_MAX);
	tap_ok(holds(&pb, big, sizeof(big)), "2^64 - 1 (an int64's -1) takes ten bytes");
	wr_pb_free(&pb);

	wr_pb_uint(&pb, 16, 127);
	tap_ok(holds(&pb, high_field, sizeof(high_field)), "field 16's key takes two bytes");
	wr_pb_free(&pb);
}

static void test_lengths(void)
{
	static const unsigned char str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	static const unsigned char empty[] = { 0x32, 0x00 };
	static const unsigned char nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const unsigned char packed[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	unsigned char long_body[3 + 200];
	struct wr_pb pb = { 0 };
	char text[200];
	size_t mark, inner;

	wr_pb_bytes(&pb, 2, "testing", 7);
	tap_ok(holds(&pb, str, sizeof(str)), "a string: key, length, bytes");
	wr_pb_free(&pb);

	wr_pb_bytes(&pb, 6, "", 0);
	tap_ok(holds(&pb, empty, sizeof(empty)), "an empty string is written (string_table[0])");
	wr_pb_free(&pb);

	mark = wr_pb_begin(&pb);
	wr_pb_uint(&pb, 1, 150);
	wr_pb_end(&pb, 3, mark);
	tap_ok(holds(&pb, nested, sizeof(nested)), "a nested message gets its key and length in front");
	wr_pb_free(&pb);

	mark = wr_pb_begin(&pb);
	wr_pb_varint(&pb, 3);
	wr_pb_varint(&pb, 270);
	wr_pb_varint(&pb, 86942);
	wr_pb_end(&pb, 4, mark);
	tap_ok(holds(&pb, packed, sizeof(packed)), "a packed run: one key, the length of all its varints");
	wr_pb_free(&pb);

	/* A body of 203 bytes: its length takes two bytes, and a message
	 * before it stays where it is. */
	memset(text, 'x', sizeof(text));
	wr_pb_uint(&pb, 1, 150);
	mark = wr_pb_begin(&pb);
	inner = wr_pb_begin(&pb);
	wr_pb_bytes(&pb, 1, text, sizeof(text));
	wr_pb_end(&pb, 5, inner);
	wr_pb_end(&pb, 2, mark);
	long_body[0] = 0x0a;
	long_body[1] = 0xc8;
	long_body[2] = 0x01;
	memset(long_body + 3, 'x', 200);
	tap_ok(pb.len == 3 + 3 + 3 + sizeof(long_body) && !memcmp(pb.buf, "\x08\x96\x01", 3) &&
		       !memcmp(pb.buf + 3, "\x12\xce\x01", 3) && !memcmp(pb.buf + 6, "\x2a\xcb\x01", 3) &&
		       !memcmp(pb.buf + 9, long_body, sizeof(long_body)),
	       "nested twice, past 127 bytes: two-byte lengths, each level moved up once");
	wr_pb_free(&pb);
}

int main(void)
{
	test_varints();
	test_lengths();
	return tap_done();
}
