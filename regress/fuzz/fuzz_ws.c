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
 * libFuzzer target for jb-incus's websocket frame decoder.  The first
 * byte chooses the message cap and how the rest is cut into reads; the
 * input decoded in one piece must give the same messages, control
 * frames and verdict.  Every text message that passes is checked again
 * by a separate UTF-8 decoder, every message against the cap, and each
 * message, framed anew by the encoder, must decode to itself.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ws.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct out {
	uint8_t	*p;
	size_t	 len;
	size_t	 cap;
};

static void
put(struct out *o, const void *data, size_t len)
{
	if (o->len + len > o->cap) {
		o->cap = (o->len + len) * 2 + 64;
		if ((o->p = realloc(o->p, o->cap)) == NULL)
			abort();
	}
	if (len > 0)
		memcpy(o->p + o->len, data, len);
	o->len += len;
}

/* Code point by code point, unlike the decoder's byte ranges. */
static int
utf8_ok(const uint8_t *s, size_t n)
{
	size_t		i = 0, k, need;
	uint32_t	cp, min;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) {
			need = 1;
			cp = s[i] & 0x1f;
			min = 0x80;
		} else if ((s[i] & 0xf0) == 0xe0) {
			need = 2;
			cp = s[i] & 0x0f;
			min = 0x800;
		} else if ((s[i] & 0xf8) == 0xf0) {
			need = 3;
			cp = s[i] & 0x07;
			min = 0x10000;
		} else
			return 0;
		if (n - i - 1 < need)
			return 0;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += need + 1;
	}
	return 1;
}

struct result {
	struct out	 log;		/* what was reported */
	struct out	 msg;
	int		 msgop;
	int		 error;
	uint16_t	 code;
};

static void
event(struct result *r, const struct ws_event *ev, uint64_t max)
{
	uint8_t	tag[4];

	switch (ev->type) {
	case WS_EV_MORE:
		break;
	case WS_EV_DATA:
		if (ev->opcode != WS_OP_TEXT && ev->opcode != WS_OP_BINARY)
			abort();
		if (r->msgop != 0 && ev->opcode != r->msgop)
			abort();
		r->msgop = ev->opcode;
		put(&r->msg, ev->data, ev->len);
		if (r->msg.len > max)
			abort();
		if (!ev->last)
			break;
		if (ev->opcode == WS_OP_TEXT && !utf8_ok(r->msg.p, r->msg.len))
			abort();
		tag[0] = ev->opcode == WS_OP_TEXT ? 'T' : 'B';
		put(&r->log, tag, 1);
		put(&r->log, &r->msg.len, sizeof(r->msg.len));
		put(&r->log, r->msg.p, r->msg.len);
		r->msg.len = 0;
		r->msgop = 0;
		break;
	case WS_EV_PING:
	case WS_EV_PONG:
	case WS_EV_CLOSE:
		if (ev->len > WS_MAX_CONTROL)
			abort();
		if (ev->type == WS_EV_CLOSE && ev->code != WS_CLOSE_NO_STATUS &&
		    (!ws_close_code_ok(ev->code) ||
		    !utf8_ok(ev->data, ev->len)))
			abort();
		tag[0] = ev->type == WS_EV_PING ? 'P' :
		    ev->type == WS_EV_PONG ? 'O' : 'C';
		tag[1] = (uint8_t)(ev->code >> 8);
		tag[2] = (uint8_t)ev->code;
		put(&r->log, tag, 3);
		put(&r->log, &ev->len, sizeof(ev->len));
		put(&r->log, ev->data, ev->len);
		break;
	case WS_EV_ERROR:
		if (ev->error == NULL)
			abort();
		r->error = 1;
		r->code = ev->code;
		break;
	}
}

static void
run(struct result *r, const uint8_t *data, size_t len, size_t step,
    uint64_t max)
{
	struct ws_decoder	d;
	struct ws_event		ev;
	size_t			off = 0, end, used, n;

	memset(r, 0, sizeof(*r));
	ws_decoder_init(&d, max);
	while (off < len && !r->error) {
		end = len - off < step ? len : off + step;
		while (off < end && !r->error) {
			n = end - off;
			used = ws_decode(&d, data + off, n, &ev);
			if (used > n || (ev.type == WS_EV_MORE && used != n) ||
			    (ev.type != WS_EV_ERROR && ev.type != WS_EV_MORE &&
			    used == 0))
				abort();
			event(r, &ev, max);
			off += used;
		}
	}
}

/* A message framed anew decodes to itself. */
static void
reencode(const struct result *r, uint64_t max)
{
	struct result	 again;
	struct out	 f = { NULL, 0, 0 };
	uint8_t		 h[WS_MAX_HEADER];
	size_t		 off = 0, n;

	while (off < r->log.len) {
		memcpy(&n, r->log.p + off + (r->log.p[off] == 'T' ||
		    r->log.p[off] == 'B' ? 1 : 3), sizeof(n));
		if (r->log.p[off] == 'T' || r->log.p[off] == 'B') {
			put(&f, h, ws_frame_header(h, r->log.p[off] == 'T' ?
			    WS_OP_TEXT : WS_OP_BINARY, 1, n, NULL));
			put(&f, r->log.p + off + 1 + sizeof(n), n);
			off += 1 + sizeof(n) + n;
		} else
			off += 3 + sizeof(n) + n;
	}
	run(&again, f.p, f.len, f.len ? f.len : 1, max);
	if (again.error)
		abort();
	free(again.log.p);
	free(again.msg.p);
	free(f.p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct result	a, b;
	size_t		step;
	uint64_t	max;

	if (len < 1)
		return 0;
	step = 1 + (data[0] & 0x1f);
	max = data[0] & 0x20 ? 16 + (data[0] >> 6) * 100 : WS_MAX_MESSAGE;
	data++;
	len--;

	run(&a, data, len, step, max);
	run(&b, data, len, len ? len : 1, max);
	if (a.error != b.error || a.code != b.code || a.log.len != b.log.len ||
	    (a.log.len > 0 && memcmp(a.log.p, b.log.p, a.log.len) != 0))
		abort();
	reencode(&a, max);
	free(a.log.p);
	free(a.msg.p);
	free(b.log.p);
	free(b.msg.p);
	return 0;
}
