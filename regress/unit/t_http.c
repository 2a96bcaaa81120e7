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
 * Unit tests of jb-incus's HTTP response parser: framing, limits and
 * rejection of malformed input, fed in every possible split.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "http.h"

struct outcome {
	enum http_parse		 st;
	size_t			 used;		/* bytes consumed in total */
	struct http_response	*resp;
	char			 error[128];
};

/* Feed in pieces of at most step bytes (0: all at once), then EOF if asked. */
static void
run(struct outcome *o, const char *in, size_t len, size_t step, size_t max,
    int head, int eof)
{
	struct http_parser	p;
	size_t			off = 0, n, used;

	memset(o, 0, sizeof(*o));
	http_parser_init(&p, head, max);
	o->st = HTTP_PARSE_MORE;
	while (off < len) {
		n = step == 0 || len - off < step ? len - off : step;
		o->st = http_parser_feed(&p, in + off, n, &used);
		ATF_REQUIRE(used <= n);
		off += used;
		if (o->st != HTTP_PARSE_MORE)
			break;
		ATF_REQUIRE_EQ(used, n);
	}
	if (o->st == HTTP_PARSE_MORE && eof)
		o->st = http_parser_eof(&p);
	o->used = off;
	if (o->st == HTTP_PARSE_ERROR)
		snprintf(o->error, sizeof(o->error), "%s",
		    http_parser_error(&p));
	o->resp = http_parser_take(&p);
	http_parser_free(&p);
}

/* Split at every offset: the result must not depend on where reads end. */
static void
run_splits(const char *in, size_t len, size_t max, enum http_parse want,
    const char *body, size_t bodylen)
{
	struct http_parser	p;
	struct http_response	*r;
	enum http_parse		 st;
	size_t			 i, u1, u2;

	for (i = 0; i <= len; i++) {
		http_parser_init(&p, 0, max);
		u2 = 0;
		st = http_parser_feed(&p, in, i, &u1);
		if (st == HTTP_PARSE_MORE && i < len)
			st = http_parser_feed(&p, in + i, len - i, &u2);
		ATF_REQUIRE_EQ_MSG(st, want, "split at %zu: %s", i,
		    http_parser_error(&p));
		if (want == HTTP_PARSE_DONE) {
			ATF_REQUIRE_EQ_MSG(u1 + u2, len, "split at %zu", i);
			r = http_parser_take(&p);
			ATF_REQUIRE(r != NULL);
			ATF_REQUIRE_EQ(r->bodylen, bodylen);
			ATF_REQUIRE(memcmp(r->body, body, bodylen) == 0);
			ATF_REQUIRE_EQ(r->body[bodylen], '\0');
			http_response_free(r);
		}
		http_parser_free(&p);
	}
}

static void
expect_error(const char *in, const char *why)
{
	struct outcome	o;

	run(&o, in, strlen(in), 0, 0, 0, 1);
	ATF_REQUIRE_EQ_MSG(o.st, HTTP_PARSE_ERROR, "accepted: %s", in);
	ATF_REQUIRE_MATCH(why, o.error);
	ATF_REQUIRE(o.resp == NULL);
	/* byte by byte it must fail the same way */
	run(&o, in, strlen(in), 1, 0, 0, 1);
	ATF_REQUIRE_EQ_MSG(o.st, HTTP_PARSE_ERROR, "accepted bytewise: %s",
	    in);
	ATF_REQUIRE_MATCH(why, o.error);
}

ATF_TC_WITHOUT_HEAD(content_length);
ATF_TC_BODY(content_length, tc)
{
	const char	 in[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: application/json\r\n"
	    "X-Incus-Mode:   0640  \r\n"
	    "Content-Length: 11\r\n"
	    "\r\n"
	    "{\"a\":\"b\"}\r\n";
	struct outcome	 o;

	run(&o, in, sizeof(in) - 1, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.used, sizeof(in) - 1);
	ATF_REQUIRE_EQ(o.resp->status, 200);
	ATF_REQUIRE_EQ(o.resp->minor, 1);
	ATF_REQUIRE_STREQ(o.resp->reason, "OK");
	ATF_REQUIRE_EQ(o.resp->nheaders, 3);
	ATF_REQUIRE_STREQ(http_response_header(o.resp, "content-type"),
	    "application/json");
	ATF_REQUIRE_STREQ(http_response_header(o.resp, "x-incus-mode"),
	    "0640");
	ATF_REQUIRE(http_response_header(o.resp, "X-Missing") == NULL);
	ATF_REQUIRE_EQ(o.resp->bodylen, 11);
	ATF_REQUIRE_STREQ(o.resp->body, "{\"a\":\"b\"}\r\n");
	ATF_REQUIRE(o.resp->keepalive);
	http_response_free(o.resp);

	run_splits(in, sizeof(in) - 1, 0, HTTP_PARSE_DONE,
	    "{\"a\":\"b\"}\r\n", 11);
}

ATF_TC_WITHOUT_HEAD(chunked);
ATF_TC_BODY(chunked, tc)
{
	/* extensions, upper and lower case hex, leading zeros, trailers */
	const char	 in[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: Chunked\r\n"
	    "\r\n"
	    "5;name=value;flag\r\n"
	    "hello\r\n"
	    "000A ; ext=\"quoted ; semi\"\r\n"
	    ", chunked!\r\n"
	    "1\r\n"
	    "\n\r\n"
	    "0;last\r\n"
	    "X-Trailer: yes\r\n"
	    "\r\n";
	const char	 body[] = "hello, chunked!\n";
	struct outcome	 o;

	run(&o, in, sizeof(in) - 1, 0, 0, 0, 0);
	ATF_REQUIRE_EQ_MSG(o.st, HTTP_PARSE_DONE, "%s", o.error);
	ATF_REQUIRE_EQ(o.used, sizeof(in) - 1);
	ATF_REQUIRE_EQ(o.resp->bodylen, sizeof(body) - 1);
	ATF_REQUIRE_STREQ(o.resp->body, body);
	ATF_REQUIRE(o.resp->keepalive);
	/* trailers are checked but not merged into the headers */
	ATF_REQUIRE(http_response_header(o.resp, "X-Trailer") == NULL);
	http_response_free(o.resp);

	run_splits(in, sizeof(in) - 1, 0, HTTP_PARSE_DONE, body,
	    sizeof(body) - 1);
	run(&o, in, sizeof(in) - 1, 1, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_STREQ(o.resp->body, body);
	http_response_free(o.resp);
	run(&o, in, sizeof(in) - 1, 7, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_STREQ(o.resp->body, body);
	http_response_free(o.resp);
}

ATF_TC_WITHOUT_HEAD(chunked_binary);
ATF_TC_BODY(chunked_binary, tc)
{
	/* chunk data may hold CR, LF and NUL: it is counted, not scanned */
	const char	 in[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"
	    "6\r\n\r\n\0a\n\r\r\n0\r\n\r\n";
	const char	 body[] = "\r\n\0a\n\r";

	run_splits(in, sizeof(in) - 1, 0, HTTP_PARSE_DONE, body,
	    sizeof(body) - 1);
}

ATF_TC_WITHOUT_HEAD(bare_lf);
ATF_TC_BODY(bare_lf, tc)
{
	const char	 in[] = "HTTP/1.1 404 Not Found\n"
	    "Content-Length: 3\n\nabc";
	struct outcome	 o;

	run(&o, in, sizeof(in) - 1, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.resp->status, 404);
	ATF_REQUIRE_STREQ(o.resp->reason, "Not Found");
	ATF_REQUIRE_STREQ(o.resp->body, "abc");
	http_response_free(o.resp);
}

ATF_TC_WITHOUT_HEAD(until_eof);
ATF_TC_BODY(until_eof, tc)
{
	const char	 in[] = "HTTP/1.1 200 OK\r\n\r\nstream until close";
	struct outcome	 o;

	run(&o, in, sizeof(in) - 1, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_MORE);
	run(&o, in, sizeof(in) - 1, 3, 0, 0, 1);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_STREQ(o.resp->body, "stream until close");
	ATF_REQUIRE(!o.resp->keepalive);
	http_response_free(o.resp);
}

ATF_TC_WITHOUT_HEAD(keepalive_rules);
ATF_TC_BODY(keepalive_rules, tc)
{
	struct outcome	 o;
	const char	*c1 = "HTTP/1.1 200 OK\r\nConnection: Close\r\n"
	    "Content-Length: 0\r\n\r\n";
	const char	*c2 = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
	const char	*c3 = "HTTP/1.0 200 OK\r\nConnection: foo, keep-alive"
	    "\r\nContent-Length: 0\r\n\r\n";
	const char	*c4 = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
	    "\r\nContent-Length: 10\r\n\r\n0\r\n\r\n";

	run(&o, c1, strlen(c1), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE(!o.resp->keepalive);
	http_response_free(o.resp);
	run(&o, c2, strlen(c2), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE(!o.resp->keepalive);
	http_response_free(o.resp);
	run(&o, c3, strlen(c3), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE(o.resp->keepalive);
	http_response_free(o.resp);
	/* chunked wins over Content-Length, and the connection is dropped */
	run(&o, c4, strlen(c4), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.resp->bodylen, 0);
	ATF_REQUIRE(!o.resp->keepalive);
	http_response_free(o.resp);
}

ATF_TC_WITHOUT_HEAD(no_body);
ATF_TC_BODY(no_body, tc)
{
	struct outcome	 o;
	const char	*r204 = "HTTP/1.1 204 No Content\r\n\r\nNEXT";
	const char	*r304 = "HTTP/1.1 304 Not Modified\r\n"
	    "Content-Length: 99\r\n\r\n";
	const char	*head = "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n";

	run(&o, r204, strlen(r204), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.used, strlen(r204) - 4);
	ATF_REQUIRE_EQ(o.resp->bodylen, 0);
	ATF_REQUIRE_STREQ(o.resp->body, "");
	http_response_free(o.resp);
	run(&o, r304, strlen(r304), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	http_response_free(o.resp);
	run(&o, head, strlen(head), 0, 0, 1, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.resp->bodylen, 0);
	http_response_free(o.resp);
	/* the same without HEAD waits for the 99 bytes */
	run(&o, head, strlen(head), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_MORE);
}

ATF_TC_WITHOUT_HEAD(interim_and_upgrade);
ATF_TC_BODY(interim_and_upgrade, tc)
{
	struct outcome	 o;
	char		 buf[2048];
	const char	*cont = "HTTP/1.1 100 Continue\r\n\r\n"
	    "HTTP/1.1 102 Processing\r\nX-A: 1\r\n\r\n"
	    "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
	const char	*up = "HTTP/1.1 101 Switching Protocols\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x02{}";
	size_t		 i, len;

	run(&o, cont, strlen(cont), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.resp->status, 201);
	ATF_REQUIRE(http_response_header(o.resp, "X-A") == NULL);
	ATF_REQUIRE_STREQ(o.resp->body, "ok");
	http_response_free(o.resp);

	/* after 101 the rest is the new protocol's: left unconsumed */
	run(&o, up, strlen(up), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.resp->status, 101);
	ATF_REQUIRE_EQ(o.used, strlen(up) - 4);
	http_response_free(o.resp);

	/* endless interim responses are cut off */
	len = 0;
	for (i = 0; i <= HTTP_MAX_INTERIM; i++)
		len += snprintf(buf + len, sizeof(buf) - len,
		    "HTTP/1.1 100 Continue\r\n\r\n");
	run(&o, buf, len, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("interim", o.error);
}

ATF_TC_WITHOUT_HEAD(back_to_back);
ATF_TC_BODY(back_to_back, tc)
{
	const char	 in[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nA"
	    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nB";
	struct outcome	 o;

	/* one response per parser: the second is not eaten by the first */
	run(&o, in, sizeof(in) - 1, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.used, (sizeof(in) - 1) / 2);
	ATF_REQUIRE_STREQ(o.resp->body, "A");
	http_response_free(o.resp);
}

ATF_TC_WITHOUT_HEAD(bad_status);
ATF_TC_BODY(bad_status, tc)
{
	expect_error("HTTP/2 200 OK\r\n\r\n", "status");
	expect_error("HTTP/1.1 20 OK\r\n\r\n", "status");
	expect_error("HTTP/1.1 200OK\r\n\r\n", "status");
	expect_error("HTTP/1.1 099 Low\r\n\r\n", "status");
	expect_error("HTTP/1.x 200 OK\r\n\r\n", "status");
	expect_error("ICY 200 OK\r\n\r\n", "status");
	expect_error("\r\n", "status");
	expect_error("HTTP/1.1 200 O\x01K\r\n\r\n", "status");
}

ATF_TC_WITHOUT_HEAD(bad_headers);
ATF_TC_BODY(bad_headers, tc)
{
	expect_error("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", "header");
	expect_error("HTTP/1.1 200 OK\r\nName : v\r\n\r\n", "header name");
	expect_error("HTTP/1.1 200 OK\r\n: v\r\n\r\n", "header");
	expect_error("HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n", "folding");
	expect_error("HTTP/1.1 200 OK\r\nA: b\x7f\r\n\r\n", "header value");
	expect_error("HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n", "stray CR");
	expect_error("HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n", "stray CR");
	expect_error("HTTP/1.1 200 OK\r\nA\x01: b\r\n\r\n", "header name");
}

ATF_TC_WITHOUT_HEAD(nul_in_header);
ATF_TC_BODY(nul_in_header, tc)
{
	const char	 in[] = "HTTP/1.1 200 OK\r\nA: b\0c\r\n\r\n";
	struct outcome	 o;

	run(&o, in, sizeof(in) - 1, 0, 0, 0, 1);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
}

ATF_TC_WITHOUT_HEAD(bad_framing);
ATF_TC_BODY(bad_framing, tc)
{
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n",
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
	    "Content-Length: 2\r\n\r\n", "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: "
	    "99999999999999999999999\r\n\r\n", "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
	    "Transfer-Encoding");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked"
	    "\r\n\r\n", "Transfer-Encoding");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", "Transfer-Encoding");
}

ATF_TC_WITHOUT_HEAD(good_duplicate_length);
ATF_TC_BODY(good_duplicate_length, tc)
{
	const char	*in = "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n"
	    "content-length: 2\r\n\r\nhi";
	struct outcome	 o;

	run(&o, in, strlen(in), 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_STREQ(o.resp->body, "hi");
	http_response_free(o.resp);
}

ATF_TC_WITHOUT_HEAD(bad_chunks);
ATF_TC_BODY(bad_chunks, tc)
{
#define TE	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	expect_error(TE "zz\r\n", "chunk size");
	expect_error(TE "\r\n", "chunk size");
	expect_error(TE ";ext\r\n", "chunk size");
	expect_error(TE "5 x\r\nhello\r\n0\r\n\r\n", "chunk size");
	expect_error(TE "-5\r\nhello\r\n0\r\n\r\n", "chunk size");
	expect_error(TE "3\r\nhelloX\r\n0\r\n\r\n", "CRLF after chunk");
	expect_error(TE "5\r\nhelloX\r\n0\r\n\r\n", "CRLF after chunk");
	expect_error(TE "5;a\x01\r\nhello\r\n0\r\n\r\n", "extension");
	expect_error(TE "1\rx\r\n", "stray CR");
	expect_error(TE "fffffffffffffffffff\r\n", "too large");
	expect_error(TE "0\r\nBad Trailer\r\n\r\n", "header");
	/* truncated streams */
	expect_error(TE "5\r\nhel", "closed");
	expect_error(TE "5\r\nhello\r\n", "closed");
	expect_error(TE "0\r\n", "closed");
#undef TE
}

ATF_TC_WITHOUT_HEAD(eof);
ATF_TC_BODY(eof, tc)
{
	struct outcome	o;

	run(&o, "", 0, 0, 0, 0, 1);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("before a response", o.error);
	expect_error("HTTP/1.1 200 O", "closed in the middle");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc",
	    "closed in the middle");
}

ATF_TC_WITHOUT_HEAD(head_cap);
ATF_TC_BODY(head_cap, tc)
{
	struct outcome	 o;
	char		*in;
	size_t		 len, i;

	/* one huge header line */
	in = malloc(HTTP_MAX_HEAD + 100);
	ATF_REQUIRE(in != NULL);
	len = snprintf(in, 100, "HTTP/1.1 200 OK\r\nX-Big: ");
	memset(in + len, 'a', HTTP_MAX_HEAD);
	run(&o, in, len + HTTP_MAX_HEAD, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("head too large", o.error);
	run(&o, in, len + HTTP_MAX_HEAD, 1000, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("head too large", o.error);
	free(in);

	/* many small lines whose sum is too much */
	in = malloc(HTTP_MAX_HEAD * 2);
	ATF_REQUIRE(in != NULL);
	len = snprintf(in, 100, "HTTP/1.1 200 OK\r\n");
	for (i = 0; len < HTTP_MAX_HEAD + 10; i++)
		len += snprintf(in + len, 1100, "X-%zu: %01000d\r\n",
		    i % (HTTP_MAX_HEADERS / 2), 0);
	run(&o, in, len, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("head too large", o.error);

	/* just under the cap passes */
	len = snprintf(in, 100, "HTTP/1.1 200 OK\r\nX-Big: ");
	memset(in + len, 'b', HTTP_MAX_HEAD - len - 6);
	len = HTTP_MAX_HEAD - 6;
	memcpy(in + len, "\r\n\r\n", 4);
	len += 4;
	run(&o, in, len, 0, 0, 0, 0);
	ATF_REQUIRE_EQ_MSG(o.st, HTTP_PARSE_MORE, "%s", o.error);
	run(&o, in, len, 0, 0, 0, 1);
	ATF_REQUIRE_EQ_MSG(o.st, HTTP_PARSE_DONE, "%s", o.error);
	http_response_free(o.resp);

	/* too many headers */
	len = snprintf(in, 100, "HTTP/1.1 200 OK\r\n");
	for (i = 0; i <= HTTP_MAX_HEADERS; i++)
		len += snprintf(in + len, 100, "X-%zu: v\r\n", i);
	run(&o, in, len, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("too many headers", o.error);
	free(in);
}

ATF_TC_WITHOUT_HEAD(chunk_line_cap);
ATF_TC_BODY(chunk_line_cap, tc)
{
	struct outcome	 o;
	char		*in;
	size_t		 len;

	in = malloc(HTTP_MAX_CHUNKLINE + 200);
	ATF_REQUIRE(in != NULL);
	len = snprintf(in, 200, "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n1;");
	memset(in + len, 'e', HTTP_MAX_CHUNKLINE);
	run(&o, in, len + HTTP_MAX_CHUNKLINE, 100, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("chunk size line too long", o.error);
	free(in);
}

ATF_TC_WITHOUT_HEAD(body_cap);
ATF_TC_BODY(body_cap, tc)
{
	struct outcome	 o;
	char		 buf[512];
	size_t		 len;
	int		 n;

	/* Content-Length over the cap fails before any body byte */
	n = snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n"
	    "Content-Length: %d\r\n\r\n", HTTP_MAX_BODY + 1);
	run(&o, buf, n, 0, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("too large", o.error);

	/* a caller's smaller cap */
	n = snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 11\r\n\r\n0123456789A");
	run(&o, buf, n, 0, 10, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	run(&o, buf, n, 0, 11, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	http_response_free(o.resp);

	/* chunks adding up past the cap */
	n = snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"
	    "6\r\n012345\r\n5\r\n6789A\r\n0\r\n\r\n");
	run(&o, buf, n, 0, 10, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("too large", o.error);
	run(&o, buf, n, 0, 11, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_STREQ(o.resp->body, "0123456789A");
	http_response_free(o.resp);

	/* a body read until close */
	len = snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n\r\n"
	    "0123456789A");
	run(&o, buf, len, 2, 10, 0, 1);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_ERROR);
	ATF_REQUIRE_MATCH("too large", o.error);
}

ATF_TC_WITHOUT_HEAD(large_body);
ATF_TC_BODY(large_body, tc)
{
	struct outcome	 o;
	char		*in;
	size_t		 hl, n = 3 * 1024 * 1024 + 7, i;

	in = malloc(n + 100);
	ATF_REQUIRE(in != NULL);
	hl = snprintf(in, 100, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
	    "\r\n", n);
	for (i = 0; i < n; i++)
		in[hl + i] = (char)(i * 7);
	run(&o, in, hl + n, 65536, 0, 0, 0);
	ATF_REQUIRE_EQ(o.st, HTTP_PARSE_DONE);
	ATF_REQUIRE_EQ(o.resp->bodylen, n);
	ATF_REQUIRE(memcmp(o.resp->body, in + hl, n) == 0);
	http_response_free(o.resp);
	free(in);
}

ATF_TC_WITHOUT_HEAD(escape);
ATF_TC_BODY(escape, tc)
{
	char	*s;

	s = http_escape("config.user.jailbee.repo eq a/b&c=d%e");
	ATF_REQUIRE(s != NULL);
	ATF_REQUIRE_STREQ(s,
	    "config.user.jailbee.repo%20eq%20a%2Fb%26c%3Dd%25e");
	free(s);
	s = http_escape("AZaz09-._~\xc3\xa9+");
	ATF_REQUIRE_STREQ(s, "AZaz09-._~%C3%A9%2B");
	free(s);
	s = http_escape("");
	ATF_REQUIRE_STREQ(s, "");
	free(s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, content_length);
	ATF_TP_ADD_TC(tp, chunked);
	ATF_TP_ADD_TC(tp, chunked_binary);
	ATF_TP_ADD_TC(tp, bare_lf);
	ATF_TP_ADD_TC(tp, until_eof);
	ATF_TP_ADD_TC(tp, keepalive_rules);
	ATF_TP_ADD_TC(tp, no_body);
	ATF_TP_ADD_TC(tp, interim_and_upgrade);
	ATF_TP_ADD_TC(tp, back_to_back);
	ATF_TP_ADD_TC(tp, bad_status);
	ATF_TP_ADD_TC(tp, bad_headers);
	ATF_TP_ADD_TC(tp, nul_in_header);
	ATF_TP_ADD_TC(tp, bad_framing);
	ATF_TP_ADD_TC(tp, good_duplicate_length);
	ATF_TP_ADD_TC(tp, bad_chunks);
	ATF_TP_ADD_TC(tp, eof);
	ATF_TP_ADD_TC(tp, head_cap);
	ATF_TP_ADD_TC(tp, chunk_line_cap);
	ATF_TP_ADD_TC(tp, body_cap);
	ATF_TP_ADD_TC(tp, large_body);
	ATF_TP_ADD_TC(tp, escape);
	return atf_no_error();
}
