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
 * jb-egress's pure parts: the ClientHello's server name (tlshello.c),
 * HTTP request heads and chunked bodies (httphead.c), and the policy it
 * decides by (gwpolicy.c): what is admitted, and every refusal with its
 * reason.
 */

#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "gwpolicy.h"
#include "httphead.h"
#include "tlshello.h"

/* a ClientHello like mkhello.py's: name (NULL: none), pad, ech, records */
static size_t
hello(uint8_t *out, size_t max, const char *name, size_t pad, int ech,
    size_t rec)
{
	static uint8_t	hs[80 * 1024];
	uint8_t		exts[72 * 1024], *e = exts, *b;
	size_t		n, len, i, off;

	if (name != NULL) {
		n = strlen(name);
		*e++ = 0; *e++ = 0;		/* server_name */
		*e++ = (uint8_t)((n + 5) >> 8); *e++ = (uint8_t)(n + 5);
		*e++ = (uint8_t)((n + 3) >> 8); *e++ = (uint8_t)(n + 3);
		*e++ = 0;
		*e++ = (uint8_t)(n >> 8); *e++ = (uint8_t)n;
		memcpy(e, name, n);
		e += n;
	}
	if (ech) {
		*e++ = 0xfe; *e++ = 0x0d; *e++ = 0; *e++ = 4;
		memset(e, 1, 4);
		e += 4;
	}
	if (pad > 0) {
		*e++ = 0; *e++ = 21;
		*e++ = (uint8_t)(pad >> 8); *e++ = (uint8_t)pad;
		memset(e, 0, pad);
		e += pad;
	}
	b = hs + 4;
	*b++ = 3; *b++ = 3;
	memset(b, 7, 32);
	b += 32;
	*b++ = 0;			/* session id */
	*b++ = 0; *b++ = 2; *b++ = 0xc0; *b++ = 0x2f;
	*b++ = 1; *b++ = 0;		/* compression */
	n = (size_t)(e - exts);
	*b++ = (uint8_t)(n >> 8); *b++ = (uint8_t)n;
	memcpy(b, exts, n);
	b += n;
	len = (size_t)(b - hs);
	hs[0] = 1;
	hs[1] = (uint8_t)((len - 4) >> 16);
	hs[2] = (uint8_t)((len - 4) >> 8);
	hs[3] = (uint8_t)(len - 4);
	for (i = 0, off = 0; i < len; i += rec) {
		n = len - i < rec ? len - i : rec;
		ATF_REQUIRE(off + 5 + n <= max);
		out[off++] = 0x16; out[off++] = 3; out[off++] = 1;
		out[off++] = (uint8_t)(n >> 8); out[off++] = (uint8_t)n;
		memcpy(out + off, hs + i, n);
		off += n;
	}
	return off;
}

static uint8_t	buf[100 * 1024];
static char	name[TLSHELLO_NAME_MAX + 1];

ATF_TC_WITHOUT_HEAD(tls_name);
ATF_TC_BODY(tls_name, tc)
{
	size_t	len, i, used;

	len = hello(buf, sizeof(buf), "WWW.Test.", 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), &used),
	    TLSHELLO_NAME);
	ATF_CHECK_STREQ(name, "www.test");
	ATF_CHECK_EQ(used, len);
	/* every cut short of the end asks for more, none is refused */
	for (i = 0; i < len; i++)
		ATF_CHECK_EQ_MSG(tlshello_parse(buf, i, name, sizeof(name),
		    NULL), TLSHELLO_MORE, "cut at %zu", i);
	/* what follows the ClientHello is not its business */
	buf[len] = 0x17;
	ATF_CHECK_EQ(tlshello_parse(buf, len + 1, name, sizeof(name), NULL),
	    TLSHELLO_NAME);
}

ATF_TC_WITHOUT_HEAD(tls_records);
ATF_TC_BODY(tls_records, tc)
{
	size_t	len;

	/* over 16 KiB, in two records */
	len = hello(buf, sizeof(buf), "www.test", 20000, 0, 16384);
	ATF_REQUIRE(len > 20000);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_NAME);
	ATF_CHECK_STREQ(name, "www.test");
	ATF_CHECK_EQ(tlshello_parse(buf, 16384 + 5 + 3, name, sizeof(name),
	    NULL), TLSHELLO_MORE);
	/* many small records */
	len = hello(buf, sizeof(buf), "a.wild.test", 300, 0, 7);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_NAME);
	ATF_CHECK_STREQ(name, "a.wild.test");
	/* too long in all */
	len = hello(buf, sizeof(buf), "www.test", TLSHELLO_MAX, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_TOOBIG);
}

ATF_TC_WITHOUT_HEAD(tls_refused);
ATF_TC_BODY(tls_refused, tc)
{
	size_t	len;

	len = hello(buf, sizeof(buf), NULL, 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_NONAME);
	ATF_CHECK_STREQ(tlshello_str(TLSHELLO_NONAME),
	    "ClientHello without a server name (SNI)");
	len = hello(buf, sizeof(buf), "public.test", 0, 1, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_ECH);
	ATF_CHECK_STREQ(name, "");
	/* a name with a byte no host name has */
	len = hello(buf, sizeof(buf), "www.te_st", 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	/* and what was read of it before the bad byte is no name */
	ATF_CHECK_STREQ(name, "");
	/* an empty label: two dots at the end, within, or one at the start */
	len = hello(buf, sizeof(buf), "wsepww..", 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	ATF_CHECK_STREQ(name, "");
	len = hello(buf, sizeof(buf), "evil..www.test", 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	len = hello(buf, sizeof(buf), ".www.test", 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	/* a label over 63 bytes */
	len = hello(buf, sizeof(buf),
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    ".test", 0, 0, 16384);
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	len = hello(buf, sizeof(buf), "www.test", 0, 0, 16384);
	/* not a handshake record; not a ClientHello; a wrong length */
	buf[0] = 0x17;
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	ATF_CHECK_EQ(tlshello_parse(buf, 1, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	buf[0] = 0x16;
	buf[5] = 2;
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	buf[5] = 1;
	buf[len - 1 - 8] ^= 0xff;	/* inside the name: still parses */
	buf[5 + 4 + 2 + 32] = 40;	/* a session id over 32 */
	ATF_CHECK_EQ(tlshello_parse(buf, len, name, sizeof(name), NULL),
	    TLSHELLO_BAD);
	ATF_CHECK_EQ(tlshello_parse((const uint8_t *)"GET / HTTP/1.1\r\n", 16,
	    name, sizeof(name), NULL), TLSHELLO_BAD);
}

static int
head(const char *s, struct httphead *h, char *why)
{
	return httphead_parse(s, strlen(s), 0, h, why, 128);
}

ATF_TC_WITHOUT_HEAD(http_heads);
ATF_TC_BODY(http_heads, tc)
{
	struct httphead	h;
	char		why[128];
	const char	*two = "GET / HTTP/1.1\r\nHost: www.test\r\n\r\n"
			    "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n";

	ATF_REQUIRE_EQ(head("GET /x HTTP/1.1\r\nHost: WWW.Test:80\r\n"
	    "Accept: */*\r\n\r\n", &h, why), 1);
	ATF_CHECK_STREQ(h.host, "www.test");
	ATF_CHECK_EQ(h.port, 80);
	ATF_CHECK_STREQ(h.method, "GET");
	/* pipelined: the first head ends where the second begins */
	ATF_REQUIRE_EQ(head(two, &h, why), 1);
	ATF_CHECK_STREQ(h.host, "www.test");
	ATF_REQUIRE_EQ(head(two + h.headlen, &h, why), 1);
	ATF_CHECK_STREQ(h.host, "other.test");
	ATF_CHECK_EQ(head("GET / HTTP/1.1\r\nHost: www.test\r\n", &h, why), 0);
	ATF_REQUIRE_EQ(head("POST / HTTP/1.1\r\nHost: a.test\r\n"
	    "Content-Length: 12\r\n\r\n", &h, why), 1);
	ATF_CHECK_EQ(h.length, 12);
	ATF_REQUIRE_EQ(head("POST / HTTP/1.1\r\nHost: a.test\r\n"
	    "Transfer-Encoding: Chunked\r\n\r\n", &h, why), 1);
	ATF_CHECK_EQ(h.chunked, 1);
	ATF_REQUIRE_EQ(head("GET http://www.test/x HTTP/1.1\r\n"
	    "Host: www.test\r\n\r\n", &h, why), 1);
	ATF_CHECK_EQ(h.absolute, 1);
}

ATF_TC_WITHOUT_HEAD(http_refused);
ATF_TC_BODY(http_refused, tc)
{
	static const struct {
		const char	*head, *why;
	} bad[] = {
		{ "GET / HTTP/1.1\r\n\r\n", "no Host header" },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n",
		    "two Host headers" },
		{ "GET / HTTP/1.1\r\nHost: 10.0.0.1_\r\n\r\n",
		    "a Host that is not a DNS name" },
		{ "GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n",
		    "a Host that is not a DNS name" },
		{ "GET / HTTP/1.1\nHost: a.test\r\n\r\n", "a bare LF" },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\n x: y\r\n\r\n",
		    "a folded header line" },
		{ "GET / HTTP/1.1\r\nHost : a.test\r\n\r\n",
		    "a bad header name" },
		{ "GET / HTTP/2.0\r\nHost: a.test\r\n\r\n",
		    "not an HTTP/1.0 or 1.1 request line" },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\n\r\n",
		    "CONNECT is for the proxy port" },
		{ "GET http://b.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		    "the target and Host name different hosts" },
		{ "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n",
		    "both Content-Length and Transfer-Encoding" },
		{ "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\n"
		    "Content-Length: 1\r\n\r\n", "a bad Content-Length" },
		{ "POST / HTTP/1.1\r\nHost: a.test\r\n"
		    "Transfer-Encoding: gzip, chunked\r\n\r\n",
		    "a transfer coding other than chunked" },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\nUpgrade: websocket\r\n\r\n",
		    "a protocol upgrade" },
	};
	struct httphead	h;
	char		why[128], *big;
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ATF_CHECK_EQ_MSG(head(bad[i].head, &h, why), -1, "%s",
		    bad[i].head);
		ATF_CHECK_STREQ_MSG(why, bad[i].why, "%s", bad[i].head);
	}
	ATF_REQUIRE((big = malloc(HTTPHEAD_MAX + 1)) != NULL);
	memset(big, 'a', HTTPHEAD_MAX);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	big[HTTPHEAD_MAX] = '\0';
	ATF_CHECK_EQ(head(big, &h, why), -1);
	ATF_CHECK_STREQ(why, "a request head over 16 KiB");
	free(big);
	/* CONNECT where the caller allows it */
	ATF_REQUIRE_EQ(httphead_parse("CONNECT a.test:443 HTTP/1.1\r\n\r\n",
	    31, HTTPHEAD_CONNECT_OK, &h, why, sizeof(why)), 1);
	ATF_CHECK_STREQ(h.host, "a.test");
	ATF_CHECK_EQ(h.port, 443);
}

ATF_TC_WITHOUT_HEAD(http_chunked);
ATF_TC_BODY(http_chunked, tc)
{
	struct httpchunk	c;
	const char		*body = "5;x=1\r\nhello\r\n0\r\nT: 1\r\n\r\nGET";
	size_t			i;
	long			n = 0, r;

	httpchunk_init(&c);
	ATF_CHECK_EQ(httpchunk_feed(&c, body, strlen(body)),
	    (long)strlen(body) - 3);
	ATF_CHECK(c.done);
	/* the same byte by byte */
	httpchunk_init(&c);
	for (i = 0; i < strlen(body) && !c.done; i++) {
		ATF_REQUIRE((r = httpchunk_feed(&c, body + i, 1)) >= 0);
		n += r;
	}
	ATF_CHECK_EQ(n, (long)strlen(body) - 3);
	httpchunk_init(&c);
	ATF_CHECK_EQ(httpchunk_feed(&c, "5\r\nhelloX", 9), -1);
	httpchunk_init(&c);
	ATF_CHECK_EQ(httpchunk_feed(&c, "zz\r\n", 4), -1);
	httpchunk_init(&c);
	ATF_CHECK_EQ(httpchunk_feed(&c, "11111111111111111\r\n", 19), -1);
}

static void
part(uint32_t gen, int flags, const char *ctr, const char *ip,
    const char *entries, size_t len, uint32_t n)
{
	struct jb_egress_policy	p;
	char			err[256];

	memset(&p, 0, sizeof(p));
	p.gen = gen;
	p.flags = (uint32_t)flags;
	(void)strlcpy(p.name, ctr, sizeof(p.name));
	(void)strlcpy(p.ipv4, ip, sizeof(p.ipv4));
	memcpy(p.entries, entries, len);
	p.nentries = n;
	ATF_REQUIRE_MSG(gwpol_part(&p, err, sizeof(err)) == 0, "%s", err);
}

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

ATF_TC_WITHOUT_HEAD(policy);
ATF_TC_BODY(policy, tc)
{
	static const char	 e1[] = "www.test\0*.wild.test:443\0"
				     "10.0.0.0/8\0udp.test:443/udp";
	const struct gw_ctr	*c;
	uint32_t		 ctr = IP(10, 213, 0, 5), www = IP(198, 18, 1, 10);

	gwpol_clear();
	part(1, JB_EGRESS_BEGIN | JB_EGRESS_END, "c1", "10.213.0.5", e1,
	    sizeof(e1), 4);
	ATF_REQUIRE(gwpol_find(ctr) != NULL);
	/* the address and UDP entries are not the gateway's */
	ATF_CHECK_EQ(gwpol_find(ctr)->n, 2);
	ATF_CHECK_EQ(gwpol_check(ctr, "www.test", www, 443, 100, &c),
	    GW_NOT_ADMITTED);
	ATF_REQUIRE(gwpol_admit("c1", "www.test", www, 160) == 0);
	ATF_CHECK_EQ(gwpol_check(ctr, "www.test", www, 443, 100, &c),
	    GW_ADMIT);
	ATF_CHECK_STREQ(c->name, "c1");
	ATF_CHECK_EQ(gwpol_check(ctr, "www.test", www, 80, 100, &c),
	    GW_ADMIT);
	/* another name on the same address */
	ATF_CHECK_EQ(gwpol_check(ctr, "other.test", www, 443, 100, &c),
	    GW_NOT_ALLOWED);
	/* the allowed name to an address the resolver did not give */
	ATF_CHECK_EQ(gwpol_check(ctr, "www.test", www + 1, 443, 100, &c),
	    GW_NOT_ADMITTED);
	/* run out */
	ATF_CHECK_EQ(gwpol_check(ctr, "www.test", www, 443, 160, &c),
	    GW_NOT_ADMITTED);
	/* a wildcard: on its port, under its domain, never the domain */
	ATF_REQUIRE(gwpol_admit("c1", "a.wild.test", www, 1000) == 0);
	ATF_REQUIRE(gwpol_admit("c1", "wild.test", www, 1000) == 0);
	ATF_CHECK_EQ(gwpol_check(ctr, "a.wild.test", www, 443, 100, &c),
	    GW_ADMIT);
	ATF_CHECK_EQ(gwpol_check(ctr, "a.wild.test", www, 80, 100, &c),
	    GW_NOT_ALLOWED);
	ATF_CHECK_EQ(gwpol_check(ctr, "wild.test", www, 443, 100, &c),
	    GW_NOT_ALLOWED);
	/* another source */
	ATF_CHECK_EQ(gwpol_check(ctr + 1, "www.test", www, 443, 100, &c),
	    GW_UNKNOWN);
	ATF_CHECK_EQ(gwpol_notes(), 3);
	gwpol_expire(170);
	ATF_CHECK_EQ(gwpol_notes(), 2);
	/* the container's address goes to another: its admissions go */
	part(2, JB_EGRESS_BEGIN | JB_EGRESS_END, "c2", "10.213.0.5", e1,
	    sizeof(e1), 4);
	ATF_CHECK_EQ(gwpol_notes(), 0);
	ATF_CHECK_EQ(gwpol_check(ctr, "a.wild.test", www, 443, 100, &c),
	    GW_NOT_ADMITTED);
	gwpol_clear();
}

ATF_TC_WITHOUT_HEAD(policy_parts);
ATF_TC_BODY(policy_parts, tc)
{
	struct jb_egress_policy	p;
	char			err[256];

	gwpol_clear();
	/* a snapshot in parts holds only once its last part came */
	part(1, JB_EGRESS_BEGIN, "c1", "10.213.0.5", "a.test", 7, 1);
	ATF_CHECK_EQ(gwpol_count(), 0);
	part(1, 0, "c1", "10.213.0.5", "b.test", 7, 1);
	part(1, JB_EGRESS_END, "c2", "10.213.0.6", "c.test", 7, 1);
	ATF_CHECK_EQ(gwpol_count(), 2);
	ATF_CHECK_EQ(gwpol_find(IP(10, 213, 0, 5))->n, 2);
	/* a bad part: refused, named, and the policy stays */
	memset(&p, 0, sizeof(p));
	p.gen = 2;
	p.flags = JB_EGRESS_BEGIN | JB_EGRESS_END;
	(void)strlcpy(p.name, "c3", sizeof(p.name));
	(void)strlcpy(p.ipv4, "10.213.0.7", sizeof(p.ipv4));
	memcpy(p.entries, "bad entry!", 11);
	p.nentries = 1;
	ATF_CHECK_EQ(gwpol_part(&p, err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "container c3: ") == err);
	ATF_CHECK_EQ(gwpol_count(), 2);
	/* a part outside a snapshot */
	p.flags = 0;
	(void)strlcpy(p.entries, "a.test", sizeof(p.entries));
	ATF_CHECK_EQ(gwpol_part(&p, err, sizeof(err)), -1);
	ATF_CHECK_STREQ(err, "policy part 2 outside a snapshot");
	gwpol_clear();
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, tls_name);
	ATF_TP_ADD_TC(tp, tls_records);
	ATF_TP_ADD_TC(tp, tls_refused);
	ATF_TP_ADD_TC(tp, http_heads);
	ATF_TP_ADD_TC(tp, http_refused);
	ATF_TP_ADD_TC(tp, http_chunked);
	ATF_TP_ADD_TC(tp, policy);
	ATF_TP_ADD_TC(tp, policy_parts);
	return atf_no_error();
}
