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
 * The explicit proxy's reading of a request head (proxyhead.c): the
 * port a CONNECT or absolute-URI target names, and the origin-form
 * head an absolute-URI request becomes, with the hop-by-hop headers
 * left out and "Connection: close" added.
 */

#include <string.h>

#include <atf-c.h>

#include "httphead.h"
#include "proxyhead.h"

static uint16_t
port(const char *s)
{
	return proxyhead_port(s, strlen(s));
}

ATF_TC_WITHOUT_HEAD(ports);
ATF_TC_BODY(ports, tc)
{
	ATF_CHECK_EQ(port("CONNECT www.test:443 HTTP/1.1\r\n"
	    "Host: www.test:443\r\n\r\n"), 443);
	/* a Host without the port does not hide the target's */
	ATF_CHECK_EQ(port("CONNECT www.test:8443 HTTP/1.1\r\n"
	    "Host: www.test\r\n\r\n"), 8443);
	ATF_CHECK_EQ(port("GET http://www.test/ HTTP/1.1\r\n"
	    "Host: www.test\r\n\r\n"), 80);
	ATF_CHECK_EQ(port("GET http://www.test:8080/x HTTP/1.1\r\n"
	    "Host: www.test\r\n\r\n"), 8080);
	ATF_CHECK_EQ(port("GET http://www.test/x HTTP/1.1\r\n"
	    "Host: www.test:81\r\n\r\n"), 81);
	ATF_CHECK_EQ(port("GET HTTP://WWW.TEST?q HTTP/1.1\r\n\r\n"), 80);
	/* no port, a bad one, no proxy target */
	ATF_CHECK_EQ(port("CONNECT www.test HTTP/1.1\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("CONNECT www.test:99999 HTTP/1.1\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("CONNECT www.test:0 HTTP/1.1\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("CONNECT www.test:44a HTTP/1.1\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("GET / HTTP/1.1\r\nHost: www.test\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("GET https://www.test/ HTTP/1.1\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("GET http:///x HTTP/1.1\r\n\r\n"), 0);
	ATF_CHECK_EQ(port("GARBAGE"), 0);
	ATF_CHECK_EQ(port(""), 0);
}

static void
origin(const char *in, const char *want)
{
	char	out[512];
	long	n;

	n = proxyhead_origin(in, strlen(in), out, sizeof(out));
	if (want == NULL) {
		ATF_CHECK_EQ_MSG(n, -1, "%s", in);
		return;
	}
	ATF_REQUIRE_MSG(n >= 0, "%s", in);
	out[n] = '\0';
	ATF_CHECK_STREQ(out, want);
}

ATF_TC_WITHOUT_HEAD(origin_form);
ATF_TC_BODY(origin_form, tc)
{
	origin("GET http://www.test/a/b?c=d HTTP/1.1\r\nHost: www.test\r\n"
	    "User-Agent: curl\r\n\r\n",
	    "GET /a/b?c=d HTTP/1.1\r\nHost: www.test\r\nUser-Agent: curl\r\n"
	    "Connection: close\r\n\r\n");
	/* no path, a query alone, a fragment */
	origin("GET http://www.test HTTP/1.0\r\n\r\n",
	    "GET / HTTP/1.0\r\nConnection: close\r\n\r\n");
	origin("HEAD http://www.test:8080?x HTTP/1.1\r\n\r\n",
	    "HEAD /?x HTTP/1.1\r\nConnection: close\r\n\r\n");
	origin("GET http://www.test/p#frag HTTP/1.1\r\n\r\n",
	    "GET /p HTTP/1.1\r\nConnection: close\r\n\r\n");
	/* hop-by-hop headers are the proxy's, not the server's */
	origin("POST http://www.test/ HTTP/1.1\r\nHost: www.test\r\n"
	    "Proxy-Connection: Keep-Alive\r\nconnection: keep-alive\r\n"
	    "Keep-Alive: 5\r\nProxy-Authorization: Basic eA==\r\n"
	    "Content-Length: 3\r\n\r\n",
	    "POST / HTTP/1.1\r\nHost: www.test\r\nContent-Length: 3\r\n"
	    "Connection: close\r\n\r\n");
	/* not absolute-URI request heads */
	origin("GET / HTTP/1.1\r\nHost: www.test\r\n\r\n", NULL);
	origin("CONNECT www.test:443 HTTP/1.1\r\n\r\n", NULL);
	origin("GET http://www.test/ HTTP/1.1\r\nHost: www.test\r\n", NULL);
	origin("GET http://www.test/ HTTP/1.1", NULL);
	origin("", NULL);
}

ATF_TC_WITHOUT_HEAD(too_small);
ATF_TC_BODY(too_small, tc)
{
	const char	*in = "GET http://www.test/ HTTP/1.1\r\n\r\n";
	char		 out[64];
	size_t		 i;

	/* every size below what it needs is refused, never overrun */
	for (i = 0; i < 37; i++)
		ATF_CHECK_EQ(proxyhead_origin(in, strlen(in), out, i), -1);
	ATF_CHECK_EQ(proxyhead_origin(in, strlen(in), out, 37), 37);
}

/* what httphead_parse lets through with CONNECT allowed, the proxy reads */
ATF_TC_WITHOUT_HEAD(with_httphead);
ATF_TC_BODY(with_httphead, tc)
{
	const char	*s = "CONNECT Www.Test:443 HTTP/1.1\r\n"
	    "Host: www.test\r\nProxy-Connection: Keep-Alive\r\n\r\n";
	struct httphead	 h;
	char		 why[128];

	ATF_REQUIRE_EQ(httphead_parse(s, strlen(s), HTTPHEAD_CONNECT_OK, &h,
	    why, sizeof(why)), 1);
	ATF_CHECK(h.connect);
	ATF_CHECK_STREQ(h.host, "www.test");
	/* the Host names no port: the target's counts */
	ATF_CHECK_EQ(h.port, 0);
	ATF_CHECK_EQ(proxyhead_port(s, h.headlen), 443);
	/* without the flag the gateway's port refuses CONNECT */
	ATF_CHECK_EQ(httphead_parse(s, strlen(s), 0, &h, why, sizeof(why)),
	    -1);
	ATF_CHECK_STREQ(why, "CONNECT is for the proxy port");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ports);
	ATF_TP_ADD_TC(tp, origin_form);
	ATF_TP_ADD_TC(tp, too_small);
	ATF_TP_ADD_TC(tp, with_httphead);
	return atf_no_error();
}
