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
 * Placeholders replaced by values in request heads (jb-egress/subst.c):
 * only in header values, only in the named header, Basic pairs decoded
 * and re-encoded, nothing added where no placeholder was sent, and a
 * value that could split a header never put in.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "subst.h"

#define PH	"jbsecret-0123456789abcdef0123456789abcdef"
#define PH2	"jbsecret-fedcba9876543210fedcba9876543210"
#define VAL	"ghp_RealValue123"

static const struct subst_secret every[] = {
	{ PH, VAL, NULL },
};
static const struct subst_secret authonly[] = {
	{ PH, VAL, "Authorization" },
};

/* the head h through s[0..n): its result, or NULL when refused */
static char *
run(const char *h, const struct subst_secret *s, size_t n, uint32_t *used)
{
	static char	out[SUBST_HEAD_MAX];
	long		l;

	l = subst_head(h, strlen(h), s, n, out, sizeof(out) - 1, used);
	if (l == -1)
		return NULL;
	out[l] = '\0';
	return out;
}

ATF_TC_WITHOUT_HEAD(plain);
ATF_TC_BODY(plain, tc)
{
	uint32_t	u;
	const char	*r;

	r = run("GET /x HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Authorization: Bearer " PH "\r\n\r\n", every, 1, &u);
	ATF_REQUIRE(r != NULL);
	ATF_CHECK_STREQ("GET /x HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Authorization: Bearer " VAL "\r\n\r\n", r);
	ATF_CHECK_EQ(u, 1);

	/* every header when none is named, twice in one value too */
	r = run("POST / HTTP/1.1\r\nHost: a.example\r\nX-Api-Key: " PH
	    "\r\nX-Both: " PH "," PH "\r\n\r\n", every, 1, &u);
	ATF_CHECK_STREQ("POST / HTTP/1.1\r\nHost: a.example\r\nX-Api-Key: "
	    VAL "\r\nX-Both: " VAL "," VAL "\r\n\r\n", r);

	/* two secrets, each its own */
	{
		const struct subst_secret two[] = {
			{ PH, VAL, NULL }, { PH2, "other", NULL } };

		r = run("GET / HTTP/1.1\r\nA: " PH2 "\r\nB: " PH "\r\n\r\n",
		    two, 2, &u);
		ATF_CHECK_STREQ("GET / HTTP/1.1\r\nA: other\r\nB: " VAL
		    "\r\n\r\n", r);
		ATF_CHECK_EQ(u, 3);
		r = run("GET / HTTP/1.1\r\nA: " PH2 "\r\n\r\n", two, 2, &u);
		ATF_CHECK_EQ(u, 2);
	}
}

/* nothing is added where the container did not send the placeholder */
ATF_TC_WITHOUT_HEAD(nothing_added);
ATF_TC_BODY(nothing_added, tc)
{
	const char	*h = "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			    "Authorization: Bearer other\r\nX: jbsecret-\r\n\r\n";
	uint32_t	 u = 99;
	const char	*r;

	r = run(h, every, 1, &u);
	ATF_CHECK_STREQ(h, r);
	ATF_CHECK_EQ(u, 0);
	r = run("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", every, 1, &u);
	ATF_CHECK_STREQ("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", r);
}

/* the request line and header names are never touched */
ATF_TC_WITHOUT_HEAD(line_and_names);
ATF_TC_BODY(line_and_names, tc)
{
	const char	*h = "GET /?k=" PH " HTTP/1.1\r\nHost: a.example\r\n"
			    PH ": x\r\n\r\n";
	uint32_t	 u;

	ATF_CHECK_STREQ(h, run(h, every, 1, &u));
	ATF_CHECK_EQ(u, 0);
}

/* a named header: only there, whatever its case */
ATF_TC_WITHOUT_HEAD(named_header);
ATF_TC_BODY(named_header, tc)
{
	uint32_t	u;

	ATF_CHECK_STREQ("GET / HTTP/1.1\r\nX-Leak: " PH "\r\n"
	    "authorization: token " VAL "\r\n\r\n",
	    run("GET / HTTP/1.1\r\nX-Leak: " PH "\r\n"
	    "authorization: token " PH "\r\n\r\n", authonly, 1, &u));
	ATF_CHECK_EQ(u, 1);
	ATF_CHECK_STREQ("GET / HTTP/1.1\r\nX-Leak: " PH "\r\n\r\n",
	    run("GET / HTTP/1.1\r\nX-Leak: " PH "\r\n\r\n", authonly, 1, &u));
	ATF_CHECK_EQ(u, 0);
	/* a longer name that starts with it is another header */
	ATF_CHECK_STREQ("GET / HTTP/1.1\r\nAuthorizationX: " PH "\r\n\r\n",
	    run("GET / HTTP/1.1\r\nAuthorizationX: " PH "\r\n\r\n", authonly,
	    1, &u));
}

/* git over HTTPS: Basic base64(user:placeholder) */
ATF_TC_WITHOUT_HEAD(basic_pair);
ATF_TC_BODY(basic_pair, tc)
{
	char		in[512], want[512], enc[256];
	const char	*r;
	uint32_t	u;
	long		l;

	l = subst_b64_encode((const unsigned char *)"git:" PH,
	    strlen("git:" PH), enc, sizeof(enc));
	ATF_REQUIRE(l > 0);
	enc[l] = '\0';
	(void)snprintf(in, sizeof(in), "GET /r.git/info/refs HTTP/1.1\r\n"
	    "Host: git.example\r\nAuthorization: Basic %s\r\n\r\n", enc);
	l = subst_b64_encode((const unsigned char *)"git:" VAL,
	    strlen("git:" VAL), enc, sizeof(enc));
	enc[l] = '\0';
	(void)snprintf(want, sizeof(want), "GET /r.git/info/refs HTTP/1.1\r\n"
	    "Host: git.example\r\nAuthorization: Basic %s\r\n\r\n", enc);
	r = run(in, authonly, 1, &u);
	ATF_CHECK_STREQ(want, r);
	ATF_CHECK_EQ(u, 1);
	ATF_CHECK_STREQ("Z2l0OmdocF9SZWFsVmFsdWUxMjM=", enc);

	/* a Basic pair without the placeholder stays as it was */
	r = run("GET / HTTP/1.1\r\nAuthorization: Basic Z2l0OnB3\r\n\r\n",
	    authonly, 1, &u);
	ATF_CHECK_STREQ("GET / HTTP/1.1\r\nAuthorization: Basic Z2l0OnB3"
	    "\r\n\r\n", r);
	ATF_CHECK_EQ(u, 0);
	/* not base64: replaced as text, which finds nothing here */
	r = run("GET / HTTP/1.1\r\nAuthorization: Basic !!!!\r\n\r\n",
	    authonly, 1, &u);
	ATF_CHECK_STREQ("GET / HTTP/1.1\r\nAuthorization: Basic !!!!\r\n\r\n",
	    r);
}

ATF_TC_WITHOUT_HEAD(base64);
ATF_TC_BODY(base64, tc)
{
	static const char	*v[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};
	unsigned char	d[16];
	char		e[16];
	size_t		i;
	long		l;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		l = subst_b64_encode((const unsigned char *)v[i][0],
		    strlen(v[i][0]), e, sizeof(e));
		ATF_REQUIRE(l >= 0);
		e[l] = '\0';
		ATF_CHECK_STREQ(v[i][1], e);
		if (i == 0)
			continue;
		l = subst_b64_decode(v[i][1], strlen(v[i][1]), d, sizeof(d));
		ATF_REQUIRE_EQ((size_t)l, strlen(v[i][0]));
		ATF_CHECK(memcmp(d, v[i][0], (size_t)l) == 0);
	}
	ATF_CHECK_EQ(subst_b64_decode("Zg=", 3, d, sizeof(d)), -1);
	ATF_CHECK_EQ(subst_b64_decode("Z=g=", 4, d, sizeof(d)), -1);
	ATF_CHECK_EQ(subst_b64_decode("=Zg=", 4, d, sizeof(d)), -1);
	ATF_CHECK_EQ(subst_b64_decode("Zm9vYmFy", 8, d, 5), -1);
	ATF_CHECK_EQ(subst_b64_encode((const unsigned char *)"foo", 3, e, 3),
	    -1);
}

/* a value that could end or split a header is never put in */
ATF_TC_WITHOUT_HEAD(bad_values);
ATF_TC_BODY(bad_values, tc)
{
	const char		*h = "GET / HTTP/1.1\r\nA: " PH "\r\n\r\n";
	struct subst_secret	 s = { PH, NULL, NULL };
	uint32_t		 u;

	s.value = "a\r\nX-Injected: 1";
	ATF_CHECK(run(h, &s, 1, &u) == NULL);
	s.value = "";
	ATF_CHECK(run(h, &s, 1, &u) == NULL);
	s.value = "caf\xc3\xa9";
	ATF_CHECK(run(h, &s, 1, &u) == NULL);
	ATF_CHECK_EQ(subst_value_trim("tok\n", 4), 3);
	ATF_CHECK_EQ(subst_value_trim("tok\r\n", 5), 3);
	ATF_CHECK_EQ(subst_value_trim("tok", 3), 3);
	ATF_CHECK(subst_value_ok("tok en", 6));
	ATF_CHECK(!subst_value_ok("tok\n", 4));
}

/* what is not a head is refused, and a result that does not fit */
ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	char		out[64];
	uint32_t	u;
	const char	*h;

	ATF_CHECK(run("GET / HTTP/1.1\r\nA: b\r\n", every, 1, &u) == NULL);
	ATF_CHECK(run("GET / HTTP/1.1\nA: b\n\n", every, 1, &u) == NULL);
	ATF_CHECK(run("GET / HTTP/1.1\r\nno colon\r\n\r\n", every, 1, &u) ==
	    NULL);
	ATF_CHECK(run("\r\n", every, 1, &u) == NULL);
	ATF_CHECK(run("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n", every, 1,
	    &u) == NULL);
	h = "GET / HTTP/1.1\r\nA: " PH "\r\n\r\n";
	ATF_CHECK_EQ(subst_head(h, strlen(h), every, 1, out, 30, &u), -1);
	ATF_CHECK_EQ(u, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, plain);
	ATF_TP_ADD_TC(tp, nothing_added);
	ATF_TP_ADD_TC(tp, line_and_names);
	ATF_TP_ADD_TC(tp, named_header);
	ATF_TP_ADD_TC(tp, basic_pair);
	ATF_TP_ADD_TC(tp, base64);
	ATF_TP_ADD_TC(tp, bad_values);
	ATF_TP_ADD_TC(tp, refused);
	return atf_no_error();
}
