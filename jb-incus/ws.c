/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include <sha1.h>

#include "b64.h"
#include "http.h"
#include "ws.h"

#define WS_GUID		"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/*
 * The frame decoder.
 */

void
ws_decoder_init(struct ws_decoder *d, uint64_t max_message)
{
	memset(d, 0, sizeof(*d));
	d->state = WSD_HEADER;
	d->max_message = max_message ? max_message : WS_MAX_MESSAGE;
}

static void
utf8_reset(struct ws_utf8 *u)
{
	u->need = 0;
	u->lo = 0x80;
	u->hi = 0xbf;
}

/*
 * RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
 * The state carries a character split between pieces of a message.
 */
static int
utf8_feed(struct ws_utf8 *u, const uint8_t *p, size_t n)
{
	size_t	i;
	uint8_t	c;

	for (i = 0; i < n; i++) {
		c = p[i];
		if (u->need > 0) {
			if (c < u->lo || c > u->hi)
				return -1;
			u->need--;
			u->lo = 0x80;
			u->hi = 0xbf;
			continue;
		}
		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			u->need = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			u->need = 2;
			if (c == 0xe0)
				u->lo = 0xa0;
			else if (c == 0xed)
				u->hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			u->need = 3;
			if (c == 0xf0)
				u->lo = 0x90;
			else if (c == 0xf4)
				u->hi = 0x8f;
		} else
			return -1;
	}
	return 0;
}

int
ws_close_code_ok(unsigned int code)
{
	/* 1004 is reserved, 1005, 1006 and 1015 must never be sent */
	return (code >= 1000 && code <= 1003) ||
	    (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

static size_t
dec_fail(struct ws_decoder *d, struct ws_event *ev, uint16_t code,
    const char *why)
{
	d->state = WSD_ERROR;
	d->error = why;
	d->error_code = code;
	ev->type = WS_EV_ERROR;
	ev->code = code;
	ev->error = why;
	return 0;
}

static size_t
header_size(const uint8_t *h)
{
	switch (h[1] & 0x7f) {
	case 126:
		return 4;
	case 127:
		return 10;
	default:
		return 2;
	}
}

/* The first two bytes: is this frame acceptable here at all? */
static const char *
check_start(struct ws_decoder *d)
{
	int	op = d->hdr[0] & 0x0f, fin = d->hdr[0] & 0x80;

	if (d->hdr[0] & 0x70)
		return "reserved bits set without an extension";
	switch (op) {
	case WS_OP_CONT:
	case WS_OP_TEXT:
	case WS_OP_BINARY:
	case WS_OP_CLOSE:
	case WS_OP_PING:
	case WS_OP_PONG:
		break;
	default:
		return "unknown opcode";
	}
	if (d->hdr[1] & 0x80)
		return "masked frame from the server";
	if (op & 0x8) {
		if (!fin)
			return "fragmented control frame";
		if ((d->hdr[1] & 0x7f) > WS_MAX_CONTROL)
			return "control frame longer than 125 bytes";
	} else if (op == WS_OP_CONT && d->msg_op == 0)
		return "continuation frame outside a message";
	else if (op != WS_OP_CONT && d->msg_op != 0)
		return "new message inside a fragmented one";
	return NULL;
}

/* The header is complete: returns an error or NULL. */
static const char *
start_frame(struct ws_decoder *d, uint16_t *code)
{
	uint64_t	n = d->hdr[1] & 0x7f;
	size_t		i;

	*code = WS_CLOSE_PROTOCOL;
	if (n == 126) {
		n = (uint64_t)d->hdr[2] << 8 | d->hdr[3];
		if (n < 126)
			return "frame length not minimally encoded";
	} else if (n == 127) {
		for (n = 0, i = 2; i < 10; i++)
			n = n << 8 | d->hdr[i];
		if (n >> 63)
			return "frame length over 2^63";
		if (n <= 0xffff)
			return "frame length not minimally encoded";
	}
	d->opcode = d->hdr[0] & 0x0f;
	d->fin = (d->hdr[0] & 0x80) != 0;
	d->remain = n;
	d->hdrlen = 0;
	if (d->opcode & 0x8) {
		d->ctllen = 0;
		return NULL;
	}
	if (d->opcode != WS_OP_CONT) {
		d->msg_op = d->opcode;
		d->msglen = 0;
		utf8_reset(&d->utf8);
	}
	if (n > d->max_message - d->msglen) {
		*code = WS_CLOSE_TOO_BIG;
		return "message too big";
	}
	d->msglen += n;
	return NULL;
}

/*
 * A frame whose payload is all in: a control frame, or an empty data
 * frame.  Returns 1 when ev holds an event to report.
 */
static int
end_frame(struct ws_decoder *d, struct ws_event *ev)
{
	struct ws_utf8	u;

	d->state = WSD_HEADER;
	switch (d->opcode) {
	case WS_OP_PING:
	case WS_OP_PONG:
		ev->type = d->opcode == WS_OP_PING ? WS_EV_PING : WS_EV_PONG;
		ev->data = d->ctl;
		ev->len = d->ctllen;
		return 1;
	case WS_OP_CLOSE:
		if (d->ctllen == 1) {
			dec_fail(d, ev, WS_CLOSE_PROTOCOL,
			    "close frame with a one-byte payload");
			return 1;
		}
		ev->code = WS_CLOSE_NO_STATUS;
		ev->data = d->ctl;
		if (d->ctllen >= 2) {
			ev->code = (uint16_t)(d->ctl[0] << 8 | d->ctl[1]);
			ev->data = d->ctl + 2;
			ev->len = d->ctllen - 2;
			if (!ws_close_code_ok(ev->code)) {
				dec_fail(d, ev, WS_CLOSE_PROTOCOL,
				    "invalid close code");
				return 1;
			}
			utf8_reset(&u);
			if (utf8_feed(&u, ev->data, ev->len) == -1 ||
			    u.need != 0) {
				dec_fail(d, ev, WS_CLOSE_BAD_DATA,
				    "close reason is not UTF-8");
				return 1;
			}
		}
		ev->type = WS_EV_CLOSE;
		d->state = WSD_CLOSED;
		return 1;
	default:
		if (!d->fin)
			return 0;
		if (d->msg_op == WS_OP_TEXT && d->utf8.need != 0) {
			dec_fail(d, ev, WS_CLOSE_BAD_DATA,
			    "text message ends inside a UTF-8 sequence");
			return 1;
		}
		ev->type = WS_EV_DATA;
		ev->opcode = d->msg_op;
		ev->last = 1;
		ev->data = d->ctl;	/* any valid pointer */
		ev->len = 0;
		d->msg_op = 0;
		return 1;
	}
}

/* Payload of a data frame: handed out in place. */
static size_t
data_piece(struct ws_decoder *d, const uint8_t *p, size_t n,
    struct ws_event *ev)
{
	size_t	take = n < d->remain ? n : (size_t)d->remain;
	int	last;

	last = d->fin && take == d->remain;
	if (d->msg_op == WS_OP_TEXT && (utf8_feed(&d->utf8, p, take) == -1 ||
	    (last && d->utf8.need != 0)))
		return dec_fail(d, ev, WS_CLOSE_BAD_DATA,
		    "text message is not UTF-8");
	d->remain -= take;
	ev->type = WS_EV_DATA;
	ev->opcode = d->msg_op;
	ev->last = last;
	ev->data = p;
	ev->len = take;
	if (d->remain == 0) {
		d->state = WSD_HEADER;
		if (d->fin)
			d->msg_op = 0;
	}
	return take;
}

/*
 * Take bytes up to and including the first event; returns how many.
 * WS_EV_MORE means all were taken.
 */
size_t
ws_decode(struct ws_decoder *d, const void *buf, size_t len,
    struct ws_event *ev)
{
	const uint8_t	*p = buf;
	const char	*why;
	size_t		 off = 0, need, take;
	uint16_t	 code;

	memset(ev, 0, sizeof(*ev));
	ev->type = WS_EV_MORE;
	for (;;) {
		switch (d->state) {
		case WSD_ERROR:
			return dec_fail(d, ev, d->error_code, d->error);
		case WSD_CLOSED:
			if (off < len)
				return dec_fail(d, ev, WS_CLOSE_PROTOCOL,
				    "data after the close frame");
			return off;
		case WSD_HEADER:
			if (off == len)
				return off;
			need = d->hdrlen < 2 ? 2 : header_size(d->hdr);
			take = need - d->hdrlen;
			if (take > len - off)
				take = len - off;
			memcpy(d->hdr + d->hdrlen, p + off, take);
			d->hdrlen += take;
			off += take;
			if (d->hdrlen == 2 && (why = check_start(d)) != NULL)
				return dec_fail(d, ev, WS_CLOSE_PROTOCOL, why);
			if (d->hdrlen < 2 || d->hdrlen < header_size(d->hdr))
				continue;
			if ((why = start_frame(d, &code)) != NULL)
				return dec_fail(d, ev, code, why);
			d->state = WSD_PAYLOAD;
			if (d->remain == 0 && end_frame(d, ev))
				return ev->type == WS_EV_ERROR ? 0 : off;
			continue;
		case WSD_PAYLOAD:
			if (off == len)
				return off;
			if (!(d->opcode & 0x8)) {
				take = data_piece(d, p + off, len - off, ev);
				return ev->type == WS_EV_ERROR ? 0 : off + take;
			}
			take = len - off < d->remain ? len - off :
			    (size_t)d->remain;
			memcpy(d->ctl + d->ctllen, p + off, take);
			d->ctllen += take;
			d->remain -= take;
			off += take;
			if (d->remain == 0 && end_frame(d, ev))
				return ev->type == WS_EV_ERROR ? 0 : off;
			continue;
		}
	}
}

/*
 * Encoding.
 */

size_t
ws_frame_header(uint8_t *h, int opcode, int fin, uint64_t len,
    const uint8_t *mask)
{
	size_t	n = 0;
	uint8_t	m = mask != NULL ? 0x80 : 0;
	int	i;

	h[n++] = (fin ? 0x80 : 0) | (opcode & 0x0f);
	if (len < 126)
		h[n++] = m | (uint8_t)len;
	else if (len <= 0xffff) {
		h[n++] = m | 126;
		h[n++] = (uint8_t)(len >> 8);
		h[n++] = (uint8_t)len;
	} else {
		h[n++] = m | 127;
		for (i = 7; i >= 0; i--)
			h[n++] = (uint8_t)(len >> (i * 8));
	}
	if (mask != NULL) {
		memcpy(h + n, mask, 4);
		n += 4;
	}
	return n;
}

/*
 * offset: where p starts within the payload, for masking in pieces.
 * Eight bytes at a time (the key repeated), then the rest one by one.
 */
void
ws_mask(uint8_t *p, size_t len, const uint8_t *key, size_t offset)
{
	uint8_t		k8[8];
	uint64_t	k, w;
	size_t		i;

	for (i = 0; i < sizeof(k8); i++)
		k8[i] = key[(offset + i) & 3];
	memcpy(&k, k8, sizeof(k));
	for (i = 0; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		w ^= k;
		memcpy(p + i, &w, sizeof(w));
	}
	for (; i < len; i++)
		p[i] ^= key[(offset + i) & 3];
}

/*
 * The handshake.
 */

int
ws_accept_value(const char *key, char *out, size_t outlen)
{
	uint8_t		 md[SHA1_DIGEST_LENGTH];
	SHA1_CTX	 ctx;
	char		*s;
	int		 rv = -1;

	/* 20 bytes of SHA-1 are 28 of base64 */
	if (outlen < 29 || asprintf(&s, "%s%s", key, WS_GUID) == -1)
		return -1;
	/*
	 * libmd and our own base64, not OpenSSL: a jb-incus talking to the
	 * local socket is built without it (jb-incus-tls has it, for https)
	 */
	SHA1Init(&ctx);
	SHA1Update(&ctx, (const uint8_t *)s, strlen(s));
	SHA1Final(md, &ctx);
	if (b64_encode(md, sizeof(md), out, outlen, 1) == 28)
		rv = 0;
	free(s);
	return rv;
}

/* key receives WS_KEY_LEN + 1 bytes: keep it for ws_response_check. */
int
ws_request_upgrade(struct http_request *r, char *key)
{
	unsigned char	raw[16];

	arc4random_buf(raw, sizeof(raw));
	if (b64_encode(raw, sizeof(raw), key, WS_KEY_LEN + 1, 1) !=
	    WS_KEY_LEN)
		return -1;
	if (http_request_header(r, "Connection", "Upgrade") == -1 ||
	    http_request_header(r, "Upgrade", "websocket") == -1 ||
	    http_request_header(r, "Sec-WebSocket-Version", "13") == -1 ||
	    http_request_header(r, "Sec-WebSocket-Key", key) == -1)
		return -1;
	return 0;
}

static int
has_token(const char *v, const char *tok)
{
	size_t	n = strlen(tok), len;

	while (*v != '\0') {
		v += strspn(v, " \t,");
		len = strcspn(v, ",");
		while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
			len--;
		if (len == n && strncasecmp(v, tok, n) == 0)
			return 1;
		v += strcspn(v, ",");
	}
	return 0;
}

/* Is this the server's consent to our upgrade?  NULL when it is. */
const char *
ws_response_check(const struct http_response *resp, const char *key)
{
	const char	*v;
	char		 want[32];

	if (resp->status != 101)
		return "the server did not switch protocols";
	if ((v = http_response_header(resp, "Upgrade")) == NULL ||
	    strcasecmp(v, "websocket") != 0)
		return "101 answer without Upgrade: websocket";
	if ((v = http_response_header(resp, "Connection")) == NULL ||
	    !has_token(v, "upgrade"))
		return "101 answer without Connection: upgrade";
	if (ws_accept_value(key, want, sizeof(want)) == -1)
		return "out of memory";
	if ((v = http_response_header(resp, "Sec-WebSocket-Accept")) == NULL ||
	    strcmp(v, want) != 0)
		return "wrong Sec-WebSocket-Accept";
	/* we offered neither: the framing would be one we do not speak */
	if (http_response_header(resp, "Sec-WebSocket-Extensions") != NULL)
		return "extension imposed by the server";
	if (http_response_header(resp, "Sec-WebSocket-Protocol") != NULL)
		return "subprotocol imposed by the server";
	return NULL;
}

/*
 * A websocket over a bufferevent.
 */

struct ws_conn {
	struct bufferevent	*bev;
	struct ws_decoder	 dec;
	struct ws_conn_cbs	 cbs;
	void			*arg;
	int			 sent_close;
	int			 wdead;		/* writing failed */
	int			 closed;	/* cbs.closed has run */
	int			 eof;		/* no more input comes */
	char			*eof_error;
	int			 paused;
	int			 busy;		/* in our callbacks */
	int			 dead;		/* freed while busy */
};

static void
ws_destroy(struct ws_conn *ws)
{
	bufferevent_free(ws->bev);
	free(ws->eof_error);
	free(ws);
}

static void
ws_leave(struct ws_conn *ws)
{
	if (--ws->busy == 0 && ws->dead)
		ws_destroy(ws);
}

static void
report_closed(struct ws_conn *ws, int code, const char *why)
{
	if (ws->closed || ws->dead)
		return;
	ws->closed = 1;
	bufferevent_disable(ws->bev, EV_READ);
	ws->cbs.closed(ws->arg, code, why);
}

/* A frame of ours: masked with a fresh key, as RFC 6455 5.3 demands. */
static int
send_frame(struct ws_conn *ws, int opcode, const void *data, size_t len)
{
	struct evbuffer		*out = bufferevent_get_output(ws->bev);
	struct evbuffer_iovec	 v;
	uint8_t			 h[WS_MAX_HEADER], key[4];
	size_t			 hlen;

	if (ws->wdead) {
		errno = EPIPE;
		return -1;
	}
	arc4random_buf(key, sizeof(key));
	hlen = ws_frame_header(h, opcode, 1, len, key);
	if (len > SIZE_MAX - hlen) {
		errno = EMSGSIZE;
		return -1;
	}
	/* one contiguous piece: a frame is queued whole or not at all */
	if (evbuffer_reserve_space(out, hlen + len, &v, 1) != 1)
		return -1;
	memcpy(v.iov_base, h, hlen);
	if (len > 0) {
		memcpy((uint8_t *)v.iov_base + hlen, data, len);
		ws_mask((uint8_t *)v.iov_base + hlen, len, key, 0);
	}
	v.iov_len = hlen + len;
	return evbuffer_commit_space(out, &v, 1);
}

static void
send_close(struct ws_conn *ws, unsigned int code, const char *reason)
{
	uint8_t	b[WS_MAX_CONTROL];
	size_t	n = 0, rl;

	if (ws->sent_close)
		return;
	ws->sent_close = 1;
	if (code != WS_CLOSE_NO_STATUS) {
		b[n++] = (uint8_t)(code >> 8);
		b[n++] = (uint8_t)code;
		rl = reason ? strlen(reason) : 0;
		if (rl > sizeof(b) - n)
			rl = sizeof(b) - n;
		if (rl > 0)
			memcpy(b + n, reason, rl);
		n += rl;
	}
	send_frame(ws, WS_OP_CLOSE, b, n);
}

static void
handle(struct ws_conn *ws, const struct ws_event *ev)
{
	switch (ev->type) {
	case WS_EV_MORE:
	case WS_EV_PONG:
		break;
	case WS_EV_DATA:
		if (!ws->closed)
			ws->cbs.data(ws->arg, ev->opcode, ev->data, ev->len,
			    ev->last);
		break;
	case WS_EV_PING:
		if (!ws->sent_close)
			send_frame(ws, WS_OP_PONG, ev->data, ev->len);
		break;
	case WS_EV_CLOSE:
		/* echo the code; the server then ends the stream */
		send_close(ws, ev->code, NULL);
		report_closed(ws, ev->code, NULL);
		break;
	case WS_EV_ERROR:
		send_close(ws, ev->code, ev->error);
		ws->eof = 1;
		report_closed(ws, WS_CLOSE_ABNORMAL, ev->error);
		break;
	}
}

/* Deliver what is buffered, then the end of the stream once reached. */
static void
pump(struct ws_conn *ws)
{
	struct evbuffer	*in = bufferevent_get_input(ws->bev);
	struct ws_event	 ev;
	unsigned char	*p;
	size_t		 n, used;

	while (!ws->closed && !ws->paused && !ws->dead &&
	    (n = evbuffer_get_contiguous_space(in)) > 0) {
		p = evbuffer_pullup(in, n);
		used = ws_decode(&ws->dec, p, n, &ev);
		/* the event may point into p: drain only after it */
		handle(ws, &ev);
		evbuffer_drain(in, used);
	}
	if (ws->eof && !ws->paused)
		report_closed(ws, WS_CLOSE_ABNORMAL, ws->eof_error);
}

static void
ws_readcb(struct bufferevent *bev, void *arg)
{
	struct ws_conn	*ws = arg;

	ws->busy++;
	pump(ws);
	ws_leave(ws);
}

static void
ws_writecb(struct bufferevent *bev, void *arg)
{
	struct ws_conn	*ws = arg;

	ws->busy++;
	if (ws->cbs.drained != NULL && !ws->closed && !ws->dead)
		ws->cbs.drained(ws->arg);
	ws_leave(ws);
}

static void
ws_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct ws_conn	*ws = arg;
	struct evbuffer	*out = bufferevent_get_output(bev);
	int		 saved = errno;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	ws->busy++;
	if (what & BEV_EVENT_WRITING) {
		/*
		 * The peer reads no more (it may close right after its
		 * last frame, before our pong gets there), but what it sent
		 * before is still to be read: only writing ends here.
		 */
		ws->wdead = 1;
		evbuffer_drain(out, evbuffer_get_length(out));
		bufferevent_disable(bev, EV_WRITE);
	} else if (!ws->eof) {
		ws->eof = 1;
		if ((what & BEV_EVENT_ERROR) && saved != 0)
			ws->eof_error = strdup(strerror(saved));
		bufferevent_disable(bev, EV_READ);
		pump(ws);
	}
	ws_leave(ws);
}

/*
 * Takes over bev (from a 101 response, its callbacks cleared) and
 * whatever it already holds.  lowmark: output size at which drained runs.
 */
struct ws_conn *
ws_conn_new(struct bufferevent *bev, uint64_t max_message, size_t lowmark,
    const struct ws_conn_cbs *cbs, void *arg)
{
	struct ws_conn	*ws;

	if ((ws = calloc(1, sizeof(*ws))) == NULL)
		return NULL;
	ws->bev = bev;
	ws->cbs = *cbs;
	ws->arg = arg;
	ws_decoder_init(&ws->dec, max_message);
	bufferevent_setcb(bev, ws_readcb, ws_writecb, ws_eventcb, ws);
	bufferevent_setwatermark(bev, EV_WRITE, lowmark, 0);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	/* frames that came with the 101 answer wait in the input already */
	if (evbuffer_get_length(bufferevent_get_input(bev)) > 0)
		bufferevent_trigger(bev, EV_READ, BEV_TRIG_IGNORE_WATERMARKS |
		    BEV_TRIG_DEFER_CALLBACKS);
	return ws;
}

/* Immediate: unsent output is dropped and the stream is closed. */
void
ws_conn_free(struct ws_conn *ws)
{
	if (ws == NULL)
		return;
	if (ws->busy > 0) {
		ws->dead = 1;
		bufferevent_disable(ws->bev, EV_READ | EV_WRITE);
		return;
	}
	ws_destroy(ws);
}

int
ws_conn_send(struct ws_conn *ws, int opcode, const void *data, size_t len)
{
	if (ws->sent_close || ws->wdead || ws->closed || ws->dead ||
	    (opcode != WS_OP_TEXT && opcode != WS_OP_BINARY)) {
		errno = EPIPE;
		return -1;
	}
	return send_frame(ws, opcode, data, len);
}

/* Our close frame; the stream ends when the server's answer comes. */
int
ws_conn_close(struct ws_conn *ws, unsigned int code, const char *reason)
{
	if (!ws_close_code_ok(code)) {
		errno = EINVAL;
		return -1;
	}
	if (ws->closed || ws->dead) {
		errno = EPIPE;
		return -1;
	}
	send_close(ws, code, reason);
	return 0;
}

/* Backpressure: while paused, nothing is read from the stream. */
void
ws_conn_pause(struct ws_conn *ws, int on)
{
	on = on != 0;
	if (ws->dead || ws->closed || ws->paused == on)
		return;
	ws->paused = on;
	if (on) {
		bufferevent_disable(ws->bev, EV_READ);
		return;
	}
	if (!ws->eof)
		bufferevent_enable(ws->bev, EV_READ);
	/* from the loop: the caller may be inside one of its callbacks */
	if (ws->eof || evbuffer_get_length(bufferevent_get_input(ws->bev)) > 0)
		bufferevent_trigger(ws->bev, EV_READ,
		    BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
}

size_t
ws_conn_outlen(const struct ws_conn *ws)
{
	return evbuffer_get_length(bufferevent_get_output(ws->bev));
}

int
ws_conn_is_open(const struct ws_conn *ws)
{
	return !ws->sent_close && !ws->wdead && !ws->closed && !ws->dead;
}
