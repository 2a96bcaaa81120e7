/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * Unit tests of jb-incus's websocket client: the frame decoder (lengths,
 * fragments, control frames, limits, UTF-8, every split), the encoder,
 * the handshake key, and a ws_conn against a scripted server on a
 * socketpair.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include <atf-c.h>

#include "ws.h"

/* A byte string that grows. */
struct buf {
	uint8_t	*p;
	size_t	 len;
	size_t	 cap;
};

static void
buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2 + 64;
		ATF_REQUIRE((b->p = realloc(b->p, b->cap)) != NULL);
	}
	if (len > 0)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void
buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* A frame as a server sends it: unmasked. */
static void
frame(struct buf *b, int fin, int opcode, const void *data, size_t len)
{
	uint8_t	h[WS_MAX_HEADER];

	buf_add(b, h, ws_frame_header(h, opcode, fin, len, NULL));
	buf_add(b, data, len);
}

static void
raw(struct buf *b, const char *bytes, size_t len)
{
	buf_add(b, bytes, len);
}

/*
 * What a decoder made of its input, independent of how the input was
 * cut: each complete message as "T<len>:" or "B<len>:" and its bytes,
 * control frames as "P", "O" (pong) or "C<code>" with their payload,
 * and "E<code>" at an error.
 */
struct transcript {
	struct buf	 out;
	struct buf	 msg;
	int		 msgop;
	int		 error;
	uint16_t	 code;
	char		 why[128];
	size_t		 used;		/* bytes taken in total */
};

static void
tr_tag(struct transcript *t, const char *tag, size_t n, const void *data)
{
	char	s[32];

	snprintf(s, sizeof(s), "%s%zu:", tag, n);
	buf_add(&t->out, s, strlen(s));
	buf_add(&t->out, data, n);
	buf_add(&t->out, "|", 1);
}

static void
tr_event(struct transcript *t, const struct ws_event *ev)
{
	char	tag[16];

	switch (ev->type) {
	case WS_EV_MORE:
		break;
	case WS_EV_DATA:
		ATF_REQUIRE(ev->opcode == WS_OP_TEXT ||
		    ev->opcode == WS_OP_BINARY);
		/* every piece of one message carries the message's opcode */
		if (t->msgop != 0)
			ATF_REQUIRE_EQ(ev->opcode, t->msgop);
		t->msgop = ev->opcode;
		buf_add(&t->msg, ev->data, ev->len);
		if (ev->last) {
			tr_tag(t, ev->opcode == WS_OP_TEXT ? "T" : "B",
			    t->msg.len, t->msg.p);
			t->msg.len = 0;
			t->msgop = 0;
		}
		break;
	case WS_EV_PING:
	case WS_EV_PONG:
		ATF_REQUIRE(ev->len <= WS_MAX_CONTROL);
		tr_tag(t, ev->type == WS_EV_PING ? "P" : "O", ev->len,
		    ev->data);
		break;
	case WS_EV_CLOSE:
		snprintf(tag, sizeof(tag), "C%u/", ev->code);
		tr_tag(t, tag, ev->len, ev->data);
		break;
	case WS_EV_ERROR:
		ATF_REQUIRE(ev->error != NULL);
		t->error = 1;
		t->code = ev->code;
		snprintf(t->why, sizeof(t->why), "%s", ev->error);
		snprintf(tag, sizeof(tag), "E%u", ev->code);
		tr_tag(t, tag, 0, "");
		break;
	}
}

/* Feed in pieces of step bytes (0: all at once). */
static void
decode(struct transcript *t, const uint8_t *in, size_t len, size_t step,
    uint64_t max)
{
	struct ws_decoder	d;
	struct ws_event		ev;
	size_t			off = 0, n, end, used;

	memset(t, 0, sizeof(*t));
	ws_decoder_init(&d, max);
	while (off < len && !t->error) {
		end = step == 0 || len - off < step ? len : off + step;
		/* a piece is fed until taken, one event per call */
		while (off < end && !t->error) {
			n = end - off;
			used = ws_decode(&d, in + off, n, &ev);
			ATF_REQUIRE(used <= n);
			if (ev.type == WS_EV_MORE)
				ATF_REQUIRE_EQ(used, n);
			else if (ev.type != WS_EV_ERROR)
				ATF_REQUIRE(used > 0);
			tr_event(t, &ev);
			off += used;
		}
	}
	t->used = off;
	/* an error sticks */
	if (t->error) {
		used = ws_decode(&d, in, len, &ev);
		ATF_REQUIRE_EQ(ev.type, WS_EV_ERROR);
		ATF_REQUIRE_EQ(used, 0);
	}
}

static void
tr_free(struct transcript *t)
{
	buf_free(&t->out);
	buf_free(&t->msg);
}

static int
tr_is(const struct transcript *t, const void *want, size_t len)
{
	if (t->out.len == len && memcmp(t->out.p, want, len) == 0)
		return 1;
	fprintf(stderr, "transcript: %.*s\nexpected:   %.*s\n",
	    (int)t->out.len, t->out.p ? (char *)t->out.p : "", (int)len,
	    (const char *)want);
	return 0;
}

#define TR_IS(t, s)	tr_is((t), (s), sizeof(s) - 1)

/*
 * Every way of cutting the input in two, and byte by byte, must give
 * the transcript of the input in one piece.
 */
static void
all_splits(const struct buf *in, uint64_t max)
{
	struct transcript	whole, t;
	struct ws_decoder	d;
	struct ws_event		ev;
	size_t			i, off, used;

	decode(&whole, in->p, in->len, 0, max);
	decode(&t, in->p, in->len, 1, max);
	ATF_REQUIRE(tr_is(&t, whole.out.p, whole.out.len));
	tr_free(&t);
	for (i = 0; i <= in->len; i++) {
		memset(&t, 0, sizeof(t));
		ws_decoder_init(&d, max);
		off = 0;
		while (off < in->len && !t.error) {
			/* first everything before i, then the rest */
			used = ws_decode(&d, in->p + off, off < i ? i - off :
			    in->len - off, &ev);
			tr_event(&t, &ev);
			off += used;
		}
		ATF_REQUIRE_MSG(tr_is(&t, whole.out.p, whole.out.len),
		    "split at %zu", i);
		tr_free(&t);
	}
	tr_free(&whole);
}

static void
expect_error(const struct buf *in, uint64_t max, uint16_t code,
    const char *why)
{
	struct transcript	t;

	decode(&t, in->p, in->len, 0, max);
	ATF_REQUIRE_MSG(t.error, "accepted");
	ATF_REQUIRE_EQ(t.code, code);
	ATF_REQUIRE_MATCH(why, t.why);
	tr_free(&t);
	decode(&t, in->p, in->len, 1, max);
	ATF_REQUIRE_MSG(t.error, "accepted byte by byte");
	ATF_REQUIRE_EQ(t.code, code);
	ATF_REQUIRE_MATCH(why, t.why);
	tr_free(&t);
}

ATF_TC_WITHOUT_HEAD(lengths);
ATF_TC_BODY(lengths, tc)
{
	static const size_t	 sizes[] = { 0, 1, 125, 126, 127, 65535,
	    65536, 70000 };
	struct buf		 in = { 0 }, want = { 0 };
	struct transcript	 t;
	uint8_t			*data;
	size_t			 i, j, hl;
	char			 tag[32];

	ATF_REQUIRE((data = malloc(70000)) != NULL);
	for (j = 0; j < 70000; j++)
		data[j] = (uint8_t)(j * 7 + (j >> 9));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		in.len = want.len = 0;
		frame(&in, 1, WS_OP_BINARY, data, sizes[i]);
		/* the header takes 2, 4 or 10 bytes */
		hl = sizes[i] < 126 ? 2 : sizes[i] < 65536 ? 4 : 10;
		ATF_REQUIRE_EQ(in.len, hl + sizes[i]);
		snprintf(tag, sizeof(tag), "B%zu:", sizes[i]);
		buf_add(&want, tag, strlen(tag));
		buf_add(&want, data, sizes[i]);
		buf_add(&want, "|", 1);
		decode(&t, in.p, in.len, 0, 0);
		ATF_REQUIRE(tr_is(&t, want.p, want.len));
		ATF_REQUIRE_EQ(t.used, in.len);
		tr_free(&t);
		decode(&t, in.p, in.len, 1, 0);
		ATF_REQUIRE(tr_is(&t, want.p, want.len));
		tr_free(&t);
		decode(&t, in.p, in.len, 4093, 0);
		ATF_REQUIRE(tr_is(&t, want.p, want.len));
		tr_free(&t);
	}
	free(data);
	buf_free(&in);
	buf_free(&want);
}

ATF_TC_WITHOUT_HEAD(payload_in_place);
ATF_TC_BODY(payload_in_place, tc)
{
	struct buf		in = { 0 };
	struct ws_decoder	d;
	struct ws_event		ev;
	size_t			used;

	/* data is handed out where it lies, not copied */
	frame(&in, 1, WS_OP_BINARY, "0123456789", 10);
	ws_decoder_init(&d, 0);
	used = ws_decode(&d, in.p, 5, &ev);
	ATF_REQUIRE_EQ(ev.type, WS_EV_DATA);
	ATF_REQUIRE_EQ(used, 5);
	ATF_REQUIRE(ev.data == in.p + 2);
	ATF_REQUIRE_EQ(ev.len, 3);
	ATF_REQUIRE(!ev.last);
	used = ws_decode(&d, in.p + 5, in.len - 5, &ev);
	ATF_REQUIRE_EQ(ev.type, WS_EV_DATA);
	ATF_REQUIRE(ev.data == in.p + 5);
	ATF_REQUIRE_EQ(ev.len, 7);
	ATF_REQUIRE(ev.last);
	ATF_REQUIRE_EQ(used, in.len - 5);
	/* one event per call: the second frame waits for the next call */
	in.len = 0;
	frame(&in, 1, WS_OP_TEXT, "a", 1);
	frame(&in, 1, WS_OP_TEXT, "b", 1);
	used = ws_decode(&d, in.p, in.len, &ev);
	ATF_REQUIRE_EQ(used, 3);
	ATF_REQUIRE_EQ(ev.type, WS_EV_DATA);
	used = ws_decode(&d, in.p + 3, in.len - 3, &ev);
	ATF_REQUIRE_EQ(used, 3);
	ATF_REQUIRE(ev.last && ev.len == 1 && ev.data[0] == 'b');
	used = ws_decode(&d, in.p, 0, &ev);
	ATF_REQUIRE_EQ(ev.type, WS_EV_MORE);
	ATF_REQUIRE_EQ(used, 0);
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(bad_lengths);
ATF_TC_BODY(bad_lengths, tc)
{
	struct buf	in = { 0 };

	/* 16-bit form for what fits in 7 bits */
	raw(&in, "\x82\x7e\x00\x7d", 4);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "minimally");
	in.len = 0;
	/* 64-bit form for what fits in 16 bits */
	raw(&in, "\x82\x7f\x00\x00\x00\x00\x00\x00\xff\xff", 10);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "minimally");
	in.len = 0;
	/* the most significant bit must be 0 */
	raw(&in, "\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 10);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "2\\^63");
	in.len = 0;
	/* 2^63 - 1 is legal framing but far over any cap */
	raw(&in, "\x82\x7f\x7f\xff\xff\xff\xff\xff\xff\xff", 10);
	expect_error(&in, 0, WS_CLOSE_TOO_BIG, "too big");
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(masked_refused);
ATF_TC_BODY(masked_refused, tc)
{
	struct buf	in = { 0 };
	uint8_t		h[WS_MAX_HEADER], key[4] = { 1, 2, 3, 4 };
	char		p[] = "abc";

	/* servers must not mask (RFC 6455 5.1) */
	buf_add(&in, h, ws_frame_header(h, WS_OP_TEXT, 1, 3, key));
	ws_mask((uint8_t *)p, 3, key, 0);
	buf_add(&in, p, 3);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "masked");
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(bad_opcodes);
ATF_TC_BODY(bad_opcodes, tc)
{
	struct buf	in = { 0 };
	uint8_t		b[2];
	int		op, rsv;

	for (op = 0; op < 16; op++) {
		if (op <= 2 || (op >= 8 && op <= 10))
			continue;
		in.len = 0;
		b[0] = 0x80 | op;
		b[1] = 0;
		buf_add(&in, b, 2);
		expect_error(&in, 0, WS_CLOSE_PROTOCOL, "opcode");
	}
	for (rsv = 0x10; rsv <= 0x40; rsv <<= 1) {
		in.len = 0;
		b[0] = 0x80 | rsv | WS_OP_BINARY;
		b[1] = 0;
		buf_add(&in, b, 2);
		expect_error(&in, 0, WS_CLOSE_PROTOCOL, "reserved");
	}
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(fragments);
ATF_TC_BODY(fragments, tc)
{
	struct buf		in = { 0 };
	struct transcript	t;

	frame(&in, 0, WS_OP_TEXT, "Hel", 3);
	frame(&in, 0, WS_OP_CONT, "", 0);
	frame(&in, 0, WS_OP_CONT, "lo", 2);
	frame(&in, 1, WS_OP_CONT, "!", 1);
	frame(&in, 0, WS_OP_BINARY, "\x00\x01", 2);
	frame(&in, 1, WS_OP_CONT, "\x02", 1);
	/* an empty message is a message: Incus's end of stream */
	frame(&in, 1, WS_OP_TEXT, "", 0);
	frame(&in, 0, WS_OP_BINARY, "", 0);
	frame(&in, 1, WS_OP_CONT, "", 0);
	decode(&t, in.p, in.len, 0, 0);
	ATF_REQUIRE(TR_IS(&t, "T6:Hello!|B3:\x00\x01\x02|T0:|B0:|"));
	tr_free(&t);
	all_splits(&in, 0);
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(control_inside_fragments);
ATF_TC_BODY(control_inside_fragments, tc)
{
	struct buf		in = { 0 };
	struct transcript	t;
	struct ws_decoder	d;
	struct ws_event		ev;
	size_t			off = 0;
	int			order[8], n = 0;

	frame(&in, 0, WS_OP_TEXT, "ab", 2);
	frame(&in, 1, WS_OP_PING, "p1", 2);
	frame(&in, 0, WS_OP_CONT, "cd", 2);
	frame(&in, 1, WS_OP_PONG, "", 0);
	frame(&in, 1, WS_OP_CONT, "ef", 2);
	frame(&in, 1, WS_OP_CLOSE, "\x03\xe8" "bye", 5);
	decode(&t, in.p, in.len, 0, 0);
	ATF_REQUIRE(TR_IS(&t, "P2:p1|O0:|T6:abcdef|C1000/3:bye|"));
	tr_free(&t);
	all_splits(&in, 0);

	/* and in the order they came */
	ws_decoder_init(&d, 0);
	while (off < in.len && n < 8) {
		off += ws_decode(&d, in.p + off, in.len - off, &ev);
		order[n++] = ev.type;
	}
	ATF_REQUIRE_EQ(n, 6);
	ATF_REQUIRE(order[0] == WS_EV_DATA && order[1] == WS_EV_PING &&
	    order[2] == WS_EV_DATA && order[3] == WS_EV_PONG &&
	    order[4] == WS_EV_DATA && order[5] == WS_EV_CLOSE);
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(bad_fragments);
ATF_TC_BODY(bad_fragments, tc)
{
	struct buf	in = { 0 };

	frame(&in, 1, WS_OP_CONT, "x", 1);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "outside a message");
	in.len = 0;
	frame(&in, 0, WS_OP_TEXT, "x", 1);
	frame(&in, 1, WS_OP_BINARY, "y", 1);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "inside a fragmented");
	in.len = 0;
	/* a control frame may not be fragmented ... */
	frame(&in, 0, WS_OP_PING, "x", 1);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "fragmented control");
	in.len = 0;
	/* ... nor longer than 125 */
	raw(&in, "\x89\x7e\x00\x7e", 4);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "125");
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(oversized);
ATF_TC_BODY(oversized, tc)
{
	struct buf		in = { 0 };
	struct transcript	t;
	char			data[200];

	memset(data, 'z', sizeof(data));
	frame(&in, 1, WS_OP_BINARY, data, 100);
	decode(&t, in.p, in.len, 0, 100);
	ATF_REQUIRE(!t.error);
	tr_free(&t);
	in.len = 0;
	frame(&in, 1, WS_OP_BINARY, data, 101);
	expect_error(&in, 100, WS_CLOSE_TOO_BIG, "too big");
	/* the cap is on the message, whatever its fragments */
	in.len = 0;
	frame(&in, 0, WS_OP_TEXT, data, 60);
	frame(&in, 1, WS_OP_PING, "", 0);
	frame(&in, 1, WS_OP_CONT, data, 41);
	expect_error(&in, 100, WS_CLOSE_TOO_BIG, "too big");
	/* and counts afresh for the next message */
	in.len = 0;
	frame(&in, 1, WS_OP_TEXT, data, 60);
	frame(&in, 1, WS_OP_TEXT, data, 60);
	decode(&t, in.p, in.len, 0, 100);
	ATF_REQUIRE(!t.error);
	tr_free(&t);
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(ping_pong_close);
ATF_TC_BODY(ping_pong_close, tc)
{
	struct buf		in = { 0 };
	struct transcript	t;
	char			big[125];

	memset(big, 'k', sizeof(big));
	frame(&in, 1, WS_OP_PING, "keepalive", 9);
	frame(&in, 1, WS_OP_PING, big, sizeof(big));
	frame(&in, 1, WS_OP_PONG, "x", 1);
	frame(&in, 1, WS_OP_CLOSE, "", 0);
	decode(&t, in.p, in.len, 0, 0);
	ATF_REQUIRE_EQ(t.out.len, 13 + 131 + 5 + 9);
	ATF_REQUIRE(memcmp(t.out.p, "P9:keepalive|P125:kkk", 21) == 0);
	ATF_REQUIRE(memcmp(t.out.p + t.out.len - 15, "|O1:x|C1005/0:|",
	    15) == 0);
	tr_free(&t);
	all_splits(&in, 0);

	/* nothing may follow the close frame */
	frame(&in, 1, WS_OP_TEXT, "late", 4);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "after the close");

	in.len = 0;
	frame(&in, 1, WS_OP_CLOSE, "\x03", 1);
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "one-byte");
	in.len = 0;
	frame(&in, 1, WS_OP_CLOSE, "\x03\xed", 2);	/* 1005 */
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "close code");
	in.len = 0;
	frame(&in, 1, WS_OP_CLOSE, "\x03\xe7", 2);	/* 999 */
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "close code");
	in.len = 0;
	frame(&in, 1, WS_OP_CLOSE, "\x07\xd0", 2);	/* 2000 */
	expect_error(&in, 0, WS_CLOSE_PROTOCOL, "close code");
	in.len = 0;
	frame(&in, 1, WS_OP_CLOSE, "\x0f\xa0" "ok", 4);	/* 4000 */
	decode(&t, in.p, in.len, 0, 0);
	ATF_REQUIRE(TR_IS(&t, "C4000/2:ok|"));
	tr_free(&t);
	in.len = 0;
	frame(&in, 1, WS_OP_CLOSE, "\x03\xe8\xc3", 3);
	expect_error(&in, 0, WS_CLOSE_BAD_DATA, "UTF-8");
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(utf8);
ATF_TC_BODY(utf8, tc)
{
	/* 2, 3 and 4 byte forms, and the edges of the legal ranges */
	static const char	 good[] = "a\xc3\xa9" "\xe2\x82\xac"
	    "\xf0\x9f\x90\x9d" "\xed\x9f\xbf" "\xee\x80\x80"
	    "\xf4\x8f\xbf\xbf" "\xe0\xa0\x80" "\xf0\x90\x80\x80";
	static const char *const bad[] = {
		"\xc0\x80",		/* overlong NUL */
		"\xc1\xbf",
		"\xe0\x9f\xbf",		/* overlong 3-byte */
		"\xed\xa0\x80",		/* surrogate */
		"\xf0\x8f\xbf\xbf",	/* overlong 4-byte */
		"\xf4\x90\x80\x80",	/* above U+10FFFF */
		"\xf5\x80\x80\x80",
		"\xff",
		"\x80",			/* lone continuation */
		"\xc3\x28",
		"\xe2\x82",		/* cut short */
	};
	struct buf		 in = { 0 };
	struct transcript	 t;
	size_t			 i, n = sizeof(good) - 1;

	frame(&in, 1, WS_OP_TEXT, good, n);
	decode(&t, in.p, in.len, 0, 0);
	ATF_REQUIRE(!t.error);
	tr_free(&t);
	all_splits(&in, 0);
	/* a character split between fragments */
	for (i = 0; i <= n; i++) {
		in.len = 0;
		frame(&in, 0, WS_OP_TEXT, good, i);
		frame(&in, 1, WS_OP_CONT, good + i, n - i);
		decode(&t, in.p, in.len, 0, 0);
		ATF_REQUIRE_MSG(!t.error, "fragment at %zu: %s", i, t.why);
		tr_free(&t);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		in.len = 0;
		frame(&in, 1, WS_OP_TEXT, bad[i], strlen(bad[i]));
		expect_error(&in, 0, WS_CLOSE_BAD_DATA, "UTF-8");
	}
	/* binary messages are bytes, not text */
	in.len = 0;
	frame(&in, 1, WS_OP_BINARY, "\xff\xc0\x80", 3);
	decode(&t, in.p, in.len, 0, 0);
	ATF_REQUIRE(!t.error);
	tr_free(&t);
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(every_split);
ATF_TC_BODY(every_split, tc)
{
	struct buf	in = { 0 };
	char		data[300];
	size_t		i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)i;
	frame(&in, 1, WS_OP_PING, "keepalive", 9);
	frame(&in, 1, WS_OP_BINARY, data, 300);
	frame(&in, 0, WS_OP_BINARY, data, 126);
	frame(&in, 1, WS_OP_PING, "", 0);
	frame(&in, 1, WS_OP_CONT, data + 126, 2);
	frame(&in, 1, WS_OP_TEXT, "", 0);
	frame(&in, 1, WS_OP_TEXT, "caf\xc3\xa9", 5);
	frame(&in, 1, WS_OP_CLOSE, "\x03\xe8", 2);
	all_splits(&in, 0);
	/* errors, too, do not depend on the cut */
	in.len = 0;
	frame(&in, 1, WS_OP_BINARY, data, 130);
	raw(&in, "\x82\xfe", 2);
	all_splits(&in, 0);
	buf_free(&in);
}

ATF_TC_WITHOUT_HEAD(encoder);
ATF_TC_BODY(encoder, tc)
{
	uint8_t	h[WS_MAX_HEADER], key[4] = { 0xde, 0xad, 0xbe, 0xef };
	uint8_t	p[10], q[10];
	size_t	n;
	int	i;

	n = ws_frame_header(h, WS_OP_TEXT, 1, 5, key);
	ATF_REQUIRE_EQ(n, 6);
	ATF_REQUIRE(memcmp(h, "\x81\x85\xde\xad\xbe\xef", 6) == 0);
	n = ws_frame_header(h, WS_OP_BINARY, 0, 126, key);
	ATF_REQUIRE_EQ(n, 8);
	ATF_REQUIRE(memcmp(h, "\x02\xfe\x00\x7e", 4) == 0);
	n = ws_frame_header(h, WS_OP_BINARY, 1, 65536, NULL);
	ATF_REQUIRE_EQ(n, 10);
	ATF_REQUIRE(memcmp(h, "\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00",
	    10) == 0);
	n = ws_frame_header(h, WS_OP_CLOSE, 1, 0, NULL);
	ATF_REQUIRE(n == 2 && h[0] == 0x88 && h[1] == 0);

	/* the RFC's example: "Hello" masked with 37 fa 21 3d */
	memcpy(p, "Hello", 5);
	ws_mask(p, 5, (const uint8_t *)"\x37\xfa\x21\x3d", 0);
	ATF_REQUIRE(memcmp(p, "\x7f\x9f\x4d\x51\x58", 5) == 0);
	/* masking in pieces equals masking at once, and undoes itself */
	for (i = 0; i < 10; i++)
		p[i] = q[i] = (uint8_t)(i * 31);
	ws_mask(p, 10, key, 0);
	ws_mask(q, 3, key, 0);
	ws_mask(q + 3, 7, key, 3);
	ATF_REQUIRE(memcmp(p, q, 10) == 0);
	ws_mask(p, 10, key, 0);
	for (i = 0; i < 10; i++)
		ATF_REQUIRE_EQ(p[i], (uint8_t)(i * 31));
}

ATF_TC_WITHOUT_HEAD(mask_words);
ATF_TC_BODY(mask_words, tc)
{
	const uint8_t	key[4] = { 0x12, 0x9a, 0xe5, 0x07 };
	uint8_t		p[64], q[64];
	size_t		len, off, i;

	/* every length and starting offset: the same as byte by byte */
	for (len = 0; len <= sizeof(p); len++)
		for (off = 0; off < 8; off++) {
			for (i = 0; i < len; i++)
				p[i] = q[i] = (uint8_t)(i * 7 + len);
			ws_mask(p, len, key, off);
			for (i = 0; i < len; i++)
				q[i] ^= key[(off + i) & 3];
			ATF_REQUIRE(memcmp(p, q, len) == 0);
		}
}

ATF_TC_WITHOUT_HEAD(handshake);
ATF_TC_BODY(handshake, tc)
{
	char	out[32];

	/* RFC 6455 section 1.3 */
	ATF_REQUIRE_EQ(ws_accept_value("dGhlIHNhbXBsZSBub25jZQ==", out,
	    sizeof(out)), 0);
	ATF_REQUIRE_STREQ(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
	ATF_REQUIRE_EQ(ws_accept_value("x", out, 28), -1);

	ATF_REQUIRE(ws_close_code_ok(1000));
	ATF_REQUIRE(ws_close_code_ok(1003));
	ATF_REQUIRE(!ws_close_code_ok(1004));
	ATF_REQUIRE(!ws_close_code_ok(1005));
	ATF_REQUIRE(!ws_close_code_ok(1006));
	ATF_REQUIRE(ws_close_code_ok(1011));
	ATF_REQUIRE(!ws_close_code_ok(1015));
	ATF_REQUIRE(!ws_close_code_ok(2999));
	ATF_REQUIRE(ws_close_code_ok(3000));
	ATF_REQUIRE(ws_close_code_ok(4999));
	ATF_REQUIRE(!ws_close_code_ok(5000));
	ATF_REQUIRE(!ws_close_code_ok(0));
}

/*
 * ws_conn against a scripted server on a socketpair: the server side is
 * plain blocking I/O on the other end.
 */
struct client {
	struct buf	 got;		/* as in a transcript */
	struct buf	 msg;
	int		 closed;
	int		 code;
	char		 why[128];
	int		 pause_after;	/* messages, then pause */
	int		 messages;
	struct ws_conn	*ws;
};

static void
cl_data(void *arg, int opcode, const void *data, size_t len, int last)
{
	struct client	*c = arg;
	char		 tag[32];

	buf_add(&c->msg, data, len);
	if (!last)
		return;
	snprintf(tag, sizeof(tag), "%c%zu:", opcode == WS_OP_TEXT ? 'T' : 'B',
	    c->msg.len);
	buf_add(&c->got, tag, strlen(tag));
	buf_add(&c->got, c->msg.p, c->msg.len);
	buf_add(&c->got, "|", 1);
	c->msg.len = 0;
	if (++c->messages == c->pause_after)
		ws_conn_pause(c->ws, 1);
}

static void
cl_closed(void *arg, int code, const char *why)
{
	struct client	*c = arg;

	c->closed++;
	c->code = code;
	snprintf(c->why, sizeof(c->why), "%s", why ? why : "");
}

static const struct ws_conn_cbs cl_cbs = { cl_data, cl_closed, NULL };

#define GOT_IS(c, s)	((c)->got.len == sizeof(s) - 1 && \
			    memcmp((c)->got.p, (s), sizeof(s) - 1) == 0)

static void
loop_for(struct event_base *base, int ms)
{
	struct timeval	tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* Read one client frame (masked, as it must be) from fd. */
static int
read_client_frame(int fd, int *opcode, uint8_t *payload, size_t *len)
{
	uint8_t	h[14], key[4];
	size_t	n, got;
	ssize_t	r;

	if (read(fd, h, 2) != 2 || !(h[1] & 0x80))
		return -1;
	*opcode = h[0] & 0x0f;
	n = h[1] & 0x7f;
	if (n == 126) {
		if (read(fd, h + 2, 2) != 2)
			return -1;
		n = h[2] << 8 | h[3];
	}
	if (n > *len || read(fd, key, 4) != 4)
		return -1;
	for (got = 0; got < n; got += r)
		if ((r = read(fd, payload + got, n - got)) <= 0)
			return -1;
	ws_mask(payload, n, key, 0);
	*len = n;
	return 0;
}

static void
server_send(int fd, int fin, int opcode, const void *data, size_t len)
{
	struct buf	b = { 0 };

	frame(&b, fin, opcode, data, len);
	ATF_REQUIRE_EQ(write(fd, b.p, b.len), (ssize_t)b.len);
	buf_free(&b);
}

static struct ws_conn *
pair(struct event_base *base, struct client *c, int *srv, const void *early,
    size_t earlylen)
{
	struct bufferevent	*bev;
	int			 sv[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE((bev = bufferevent_socket_new(base, sv[0],
	    BEV_OPT_CLOSE_ON_FREE)) != NULL);
	evutil_make_socket_nonblocking(sv[0]);
	*srv = sv[1];
	/*
	 * As after a 101 answer: frames the server sent at once were read
	 * with the answer and wait in the input, no callback set.
	 */
	if (earlylen > 0) {
		ATF_REQUIRE_EQ(write(sv[1], early, earlylen),
		    (ssize_t)earlylen);
		bufferevent_enable(bev, EV_READ);
		loop_for(base, 50);
		bufferevent_disable(bev, EV_READ);
		ATF_REQUIRE_EQ(evbuffer_get_length(bufferevent_get_input(bev)),
		    earlylen);
	}
	memset(c, 0, sizeof(*c));
	c->ws = ws_conn_new(bev, 1000, 0, &cl_cbs, c);
	ATF_REQUIRE(c->ws != NULL);
	return c->ws;
}

ATF_TC_WITHOUT_HEAD(conn_exchange);
ATF_TC_BODY(conn_exchange, tc)
{
	struct event_base	*base;
	struct client		 c;
	struct buf		 early = { 0 };
	uint8_t			 p[200];
	size_t			 n;
	int			 srv, op;

	ATF_REQUIRE((base = event_base_new()) != NULL);
	frame(&early, 1, WS_OP_PING, "keepalive", 9);
	frame(&early, 1, WS_OP_BINARY, "early", 5);
	pair(base, &c, &srv, early.p, early.len);
	server_send(srv, 0, WS_OP_BINARY, "ab", 2);
	server_send(srv, 1, WS_OP_PING, "p", 1);
	server_send(srv, 1, WS_OP_CONT, "c", 1);
	server_send(srv, 1, WS_OP_TEXT, "", 0);
	ATF_REQUIRE_EQ(ws_conn_send(c.ws, WS_OP_BINARY, "xyz", 3), 0);
	loop_for(base, 100);
	ATF_REQUIRE_MSG(GOT_IS(&c, "B5:early|B3:abc|T0:|"), "got %.*s",
	    (int)c.got.len, c.got.p ? (char *)c.got.p : "");

	/* pings are answered in order, with their payload, masked */
	n = sizeof(p);
	ATF_REQUIRE(read_client_frame(srv, &op, p, &n) == 0);
	ATF_REQUIRE(op == WS_OP_BINARY && n == 3 && memcmp(p, "xyz", 3) == 0);
	n = sizeof(p);
	ATF_REQUIRE(read_client_frame(srv, &op, p, &n) == 0);
	ATF_REQUIRE(op == WS_OP_PONG && n == 9 &&
	    memcmp(p, "keepalive", 9) == 0);
	n = sizeof(p);
	ATF_REQUIRE(read_client_frame(srv, &op, p, &n) == 0);
	ATF_REQUIRE(op == WS_OP_PONG && n == 1 && p[0] == 'p');

	/* the server's close is echoed, then reported */
	server_send(srv, 1, WS_OP_CLOSE, "\x03\xe9" "away", 6);
	loop_for(base, 100);
	ATF_REQUIRE_EQ(c.closed, 1);
	ATF_REQUIRE_EQ(c.code, 1001);
	ATF_REQUIRE_STREQ(c.why, "");
	n = sizeof(p);
	ATF_REQUIRE(read_client_frame(srv, &op, p, &n) == 0);
	ATF_REQUIRE(op == WS_OP_CLOSE && n == 2 && p[0] == 0x03 &&
	    p[1] == 0xe9);
	ATF_REQUIRE(!ws_conn_is_open(c.ws));
	ATF_REQUIRE_EQ(ws_conn_send(c.ws, WS_OP_BINARY, "late", 4), -1);
	close(srv);
	loop_for(base, 20);
	ATF_REQUIRE_EQ(c.closed, 1);
	ws_conn_free(c.ws);
	buf_free(&c.got);
	buf_free(&c.msg);
	buf_free(&early);
	event_base_free(base);
}

ATF_TC_WITHOUT_HEAD(conn_pause_and_end);
ATF_TC_BODY(conn_pause_and_end, tc)
{
	struct event_base	*base;
	struct client		 c;
	uint8_t			 p[200];
	size_t			 n;
	int			 srv, op;

	ATF_REQUIRE((base = event_base_new()) != NULL);
	pair(base, &c, &srv, NULL, 0);
	c.pause_after = 1;
	server_send(srv, 1, WS_OP_BINARY, "one", 3);
	server_send(srv, 1, WS_OP_BINARY, "two", 3);
	server_send(srv, 1, WS_OP_BINARY, "three", 5);
	close(srv);	/* end of stream without a close frame */
	loop_for(base, 100);
	/* paused: neither the rest nor the end is delivered */
	ATF_REQUIRE(GOT_IS(&c, "B3:one|"));
	ATF_REQUIRE_EQ(c.closed, 0);
	ws_conn_pause(c.ws, 0);
	loop_for(base, 100);
	ATF_REQUIRE(GOT_IS(&c, "B3:one|B3:two|B5:three|"));
	ATF_REQUIRE_EQ(c.closed, 1);
	ATF_REQUIRE_EQ(c.code, WS_CLOSE_ABNORMAL);
	ATF_REQUIRE_STREQ(c.why, "");
	ws_conn_free(c.ws);
	buf_free(&c.got);
	buf_free(&c.msg);

	/* a protocol error: closed with 1002 on the wire, reported why */
	pair(base, &c, &srv, NULL, 0);
	server_send(srv, 1, WS_OP_BINARY, "ok", 2);
	ATF_REQUIRE_EQ(write(srv, "\x82\xff", 2), 2);
	loop_for(base, 100);
	ATF_REQUIRE(GOT_IS(&c, "B2:ok|"));
	ATF_REQUIRE_EQ(c.closed, 1);
	ATF_REQUIRE_MATCH("masked", c.why);
	n = sizeof(p);
	ATF_REQUIRE(read_client_frame(srv, &op, p, &n) == 0);
	ATF_REQUIRE(op == WS_OP_CLOSE && n >= 2 && p[0] == 0x03 &&
	    p[1] == 0xea);
	ws_conn_free(c.ws);
	close(srv);
	buf_free(&c.got);
	buf_free(&c.msg);

	/* our close first: the stream ends at the server's answer */
	pair(base, &c, &srv, NULL, 0);
	ATF_REQUIRE_EQ(ws_conn_close(c.ws, 1000, "done"), 0);
	ATF_REQUIRE_EQ(ws_conn_close(c.ws, 1005, NULL), -1);
	ATF_REQUIRE(!ws_conn_is_open(c.ws));
	loop_for(base, 50);
	n = sizeof(p);
	ATF_REQUIRE(read_client_frame(srv, &op, p, &n) == 0);
	ATF_REQUIRE(op == WS_OP_CLOSE && n == 6 &&
	    memcmp(p, "\x03\xe8" "done", 6) == 0);
	ATF_REQUIRE_EQ(c.closed, 0);
	server_send(srv, 1, WS_OP_CLOSE, "\x03\xe8", 2);
	loop_for(base, 50);
	ATF_REQUIRE_EQ(c.closed, 1);
	ATF_REQUIRE_EQ(c.code, 1000);
	ws_conn_free(c.ws);
	close(srv);
	buf_free(&c.got);
	buf_free(&c.msg);
	event_base_free(base);
}

/*
 * Our pong fails (the server no longer reads), yet what the server sent
 * afterwards, its end of stream included, is still delivered: Incus
 * closes a stream right after its last frame.
 */
ATF_TC_WITHOUT_HEAD(conn_write_fails);
ATF_TC_BODY(conn_write_fails, tc)
{
	struct event_base	*base;
	struct client		 c;
	int			 srv;

	signal(SIGPIPE, SIG_IGN);
	ATF_REQUIRE((base = event_base_new()) != NULL);
	pair(base, &c, &srv, NULL, 0);
	server_send(srv, 1, WS_OP_PING, "keepalive", 9);
	ATF_REQUIRE(shutdown(srv, SHUT_RD) == 0);
	loop_for(base, 50);
	ATF_REQUIRE_EQ(c.closed, 0);
	ATF_REQUIRE(!ws_conn_is_open(c.ws));
	ATF_REQUIRE_EQ(ws_conn_send(c.ws, WS_OP_BINARY, "x", 1), -1);
	server_send(srv, 1, WS_OP_BINARY, "tail", 4);
	server_send(srv, 1, WS_OP_TEXT, "", 0);
	close(srv);
	loop_for(base, 50);
	ATF_REQUIRE(GOT_IS(&c, "B4:tail|T0:|"));
	ATF_REQUIRE_EQ(c.closed, 1);
	ATF_REQUIRE_EQ(c.code, WS_CLOSE_ABNORMAL);
	ATF_REQUIRE_STREQ(c.why, "");
	ws_conn_free(c.ws);
	buf_free(&c.got);
	buf_free(&c.msg);
	event_base_free(base);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lengths);
	ATF_TP_ADD_TC(tp, payload_in_place);
	ATF_TP_ADD_TC(tp, bad_lengths);
	ATF_TP_ADD_TC(tp, masked_refused);
	ATF_TP_ADD_TC(tp, bad_opcodes);
	ATF_TP_ADD_TC(tp, fragments);
	ATF_TP_ADD_TC(tp, control_inside_fragments);
	ATF_TP_ADD_TC(tp, bad_fragments);
	ATF_TP_ADD_TC(tp, oversized);
	ATF_TP_ADD_TC(tp, ping_pong_close);
	ATF_TP_ADD_TC(tp, utf8);
	ATF_TP_ADD_TC(tp, every_split);
	ATF_TP_ADD_TC(tp, encoder);
	ATF_TP_ADD_TC(tp, mask_words);
	ATF_TP_ADD_TC(tp, handshake);
	ATF_TP_ADD_TC(tp, conn_exchange);
	ATF_TP_ADD_TC(tp, conn_pause_and_end);
	ATF_TP_ADD_TC(tp, conn_write_fails);
	return atf_no_error();
}
