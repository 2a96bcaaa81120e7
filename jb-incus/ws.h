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
 * The client side of RFC 6455 websockets, for Incus's exec streams.
 *
 * Three layers:
 *  - ws_decoder: a pure, incremental decoder of the frames a server
 *    sends (feed bytes, get one event at a time).  It never touches a
 *    socket, so it is unit tested and fuzzed.  Payload is handed out
 *    in place as it arrives, never gathered, so a frame's size costs
 *    no memory; only control frames (at most 125 bytes) are buffered.
 *  - the handshake: headers for the upgrade request and the check of
 *    the server's 101 answer (Sec-WebSocket-Accept).
 *  - ws_conn: a websocket over the bufferevent of a 101 response
 *    (http_response_take_bev): masked frames out, pings answered, the
 *    close handshake, and reading paused on request (backpressure).
 *
 * No extension is negotiated, so frames with RSV bits are refused.
 */

#ifndef JB_WS_H
#define JB_WS_H

#include <stddef.h>
#include <stdint.h>

#define WS_OP_CONT		0x0
#define WS_OP_TEXT		0x1
#define WS_OP_BINARY		0x2
#define WS_OP_CLOSE		0x8
#define WS_OP_PING		0x9
#define WS_OP_PONG		0xa

#define WS_CLOSE_NORMAL		1000
#define WS_CLOSE_GOING_AWAY	1001
#define WS_CLOSE_PROTOCOL	1002
#define WS_CLOSE_NO_STATUS	1005	/* never sent: "there was none" */
#define WS_CLOSE_ABNORMAL	1006	/* never sent: "no close frame" */
#define WS_CLOSE_BAD_DATA	1007
#define WS_CLOSE_TOO_BIG	1009

#define WS_MAX_HEADER		14
#define WS_MAX_CONTROL		125
#define WS_MAX_MESSAGE		(16 * 1024 * 1024)
#define WS_KEY_LEN		24	/* base64 of 16 bytes */

enum ws_event_type {
	WS_EV_MORE,	/* every byte fed was taken; nothing to report */
	WS_EV_DATA,	/* a piece of a text or binary message */
	WS_EV_PING,
	WS_EV_PONG,
	WS_EV_CLOSE,	/* the peer's close frame; the decoder is done */
	WS_EV_ERROR	/* a protocol violation; close with code */
};

struct ws_event {
	enum ws_event_type	 type;
	int			 opcode;	/* DATA: WS_OP_TEXT/BINARY */
	int			 last;		/* DATA: ends a message */
	const uint8_t		*data;		/* see below */
	size_t			 len;
	uint16_t		 code;		/* CLOSE, ERROR */
	const char		*error;		/* ERROR */
};
/*
 * DATA points into the bytes fed, PING, PONG and CLOSE (the reason) into
 * the decoder: both are valid until the next call.  A message may come
 * as any number of DATA events, empty ones included; the one with last
 * set ends it.  A CLOSE without a status code reports WS_CLOSE_NO_STATUS.
 */

enum ws_dstate {
	WSD_HEADER,
	WSD_PAYLOAD,
	WSD_CLOSED,
	WSD_ERROR
};

/* UTF-8 validation across pieces of a message */
struct ws_utf8 {
	int		 need;		/* continuation bytes due */
	uint8_t		 lo;		/* range of the next one */
	uint8_t		 hi;
};

/* Opaque in spirit; public so that it can live on the stack in tests. */
struct ws_decoder {
	enum ws_dstate	 state;
	uint8_t		 hdr[WS_MAX_HEADER];
	size_t		 hdrlen;
	int		 opcode;	/* of the current frame */
	int		 fin;
	uint64_t	 remain;	/* payload bytes left in the frame */
	int		 msg_op;	/* message in progress, or 0 */
	uint64_t	 msglen;
	uint64_t	 max_message;
	uint8_t		 ctl[WS_MAX_CONTROL];
	size_t		 ctllen;
	struct ws_utf8	 utf8;		/* of the text message */
	const char	*error;
	uint16_t	 error_code;
};

/* max_message: 0 means WS_MAX_MESSAGE */
void		 ws_decoder_init(struct ws_decoder *, uint64_t);
size_t		 ws_decode(struct ws_decoder *, const void *, size_t,
		    struct ws_event *);

/* Encoding: a header (mask NULL: unmasked) and the XOR of a payload. */
size_t		 ws_frame_header(uint8_t *, int, int, uint64_t,
		    const uint8_t *);
void		 ws_mask(uint8_t *, size_t, const uint8_t *, size_t);
int		 ws_close_code_ok(unsigned int);

/* The handshake. */
struct http_request;
struct http_response;

int		 ws_request_upgrade(struct http_request *, char *);
const char	*ws_response_check(const struct http_response *,
		    const char *);
int		 ws_accept_value(const char *, char *, size_t);

/* A websocket on an upgraded stream. */
struct bufferevent;
struct ws_conn;

struct ws_conn_cbs {
	/* a piece of a message; opcode and last as in ws_event */
	void	(*data)(void *, int, const void *, size_t, int);
	/*
	 * The stream is over: the peer's close frame (code), end of stream
	 * without one (WS_CLOSE_ABNORMAL) or an error (why is set).  Nothing
	 * more is delivered; the connection is still to be freed.
	 */
	void	(*closed)(void *, int, const char *);
	/* optional: the output fell to the low mark given to ws_conn_new */
	void	(*drained)(void *);
};

struct ws_conn	*ws_conn_new(struct bufferevent *, uint64_t, size_t,
		    const struct ws_conn_cbs *, void *);
void		 ws_conn_free(struct ws_conn *);
int		 ws_conn_send(struct ws_conn *, int, const void *, size_t);
int		 ws_conn_close(struct ws_conn *, unsigned int, const char *);
void		 ws_conn_pause(struct ws_conn *, int);
size_t		 ws_conn_outlen(const struct ws_conn *);
int		 ws_conn_is_open(const struct ws_conn *);

#endif /* JB_WS_H */
