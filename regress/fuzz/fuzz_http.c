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
 * libFuzzer target for jb-incus's HTTP response parser.  The first two
 * bytes choose the parser options and how the rest is cut into reads;
 * the same input parsed in one piece must give the same result, so a
 * framing decision that depends on where a read ended is caught too.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct result {
	enum http_parse		 st;
	size_t			 used;
	struct http_response	*resp;
};

static void
parse(struct result *res, const uint8_t *data, size_t len, size_t step,
    int head, size_t max)
{
	struct http_parser	p;
	size_t			off = 0, n, used;

	http_parser_init(&p, head, max);
	res->st = HTTP_PARSE_MORE;
	while (off < len) {
		n = len - off < step ? len - off : step;
		res->st = http_parser_feed(&p, data + off, n, &used);
		if (used > n)
			abort();
		off += used;
		if (res->st != HTTP_PARSE_MORE)
			break;
		if (used != n)
			abort();
	}
	if (res->st == HTTP_PARSE_MORE)
		res->st = http_parser_eof(&p);
	if (res->st == HTTP_PARSE_ERROR && http_parser_error(&p) == NULL)
		abort();
	res->used = off;
	res->resp = http_parser_take(&p);
	if ((res->st == HTTP_PARSE_DONE) != (res->resp != NULL))
		abort();
	http_parser_free(&p);
}

static void
check(const struct http_response *r, size_t max)
{
	size_t	i;

	if (r->status < 100 || r->status > 999 || r->bodylen > max ||
	    r->body == NULL || r->body[r->bodylen] != '\0' ||
	    r->nheaders > HTTP_MAX_HEADERS)
		abort();
	for (i = 0; i < r->nheaders; i++)
		if (strpbrk(r->headers[i].value, "\r\n") != NULL ||
		    *r->headers[i].name == '\0' ||
		    http_response_header(r, r->headers[i].name) == NULL)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct result	a, b;
	size_t		step, max;
	int		head;

	if (len < 2)
		return 0;
	step = 1 + (data[0] & 0x3f);
	head = data[0] & 0x40;
	max = data[1] & 0x80 ? 64 + (data[1] & 0x7f) * 8 : HTTP_MAX_BODY;
	data += 2;
	len -= 2;

	parse(&a, data, len, step, head, max);
	parse(&b, data, len, len ? len : 1, head, max);
	/* after an error the count of bytes taken means nothing */
	if (a.st != b.st || (a.st == HTTP_PARSE_DONE && a.used != b.used))
		abort();
	if (a.resp != NULL) {
		check(a.resp, max);
		if (a.resp->status != b.resp->status ||
		    a.resp->bodylen != b.resp->bodylen ||
		    a.resp->nheaders != b.resp->nheaders ||
		    a.resp->keepalive != b.resp->keepalive ||
		    memcmp(a.resp->body, b.resp->body, a.resp->bodylen) != 0)
			abort();
	}
	http_response_free(a.resp);
	http_response_free(b.resp);
	return 0;
}
