/*
 * protobuf.h - the little of the protocol buffers wire format that
 * writing a pprof profile takes: varints, length-delimited fields
 * (strings and nested messages) and packed repeated varints.
 *
 * A message is written into one growing buffer. A nested message, whose
 * length comes before it, is written in place after wr_pb_begin() and
 * given its key and length by wr_pb_end(), which moves it up by the few
 * bytes they take. A failed allocation makes the buffer stick in error:
 * callers write on and look once, at the end.
 */
#ifndef WITCH_REPORT_PROTOBUF_H
#define WITCH_REPORT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct wr_pb {
	unsigned char *buf;
	size_t len, cap;
	int failed;		/* out of memory: what is in buf is not the message */
};

/* Field value v as a varint (wire type 0); nothing when v is 0, proto3's
 * default. int64 fields take their value cast: two's complement. */
void wr_pb_uint(struct wr_pb *pb, uint32_t field, uint64_t v);

/* A string or bytes field (wire type 2), written even when empty: a
 * repeated string's empty entries count. */
void wr_pb_bytes(struct wr_pb *pb, uint32_t field, const void *data, size_t n);

/* Start a nested message or a packed run of varints; returns the mark
 * that wr_pb_end() takes. */
size_t wr_pb_begin(const struct wr_pb *pb);

/* End what began at mark as field (wire type 2): its key and length go
 * in front of it. */
void wr_pb_end(struct wr_pb *pb, uint32_t field, size_t mark);

/* A varint alone: an element of a packed run. */
void wr_pb_varint(struct wr_pb *pb, uint64_t v);

void wr_pb_free(struct wr_pb *pb);

#endif
