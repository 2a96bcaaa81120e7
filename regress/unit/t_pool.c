/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* jb-netd's cumulative pool: upsert, eviction, pins and its file */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "pool.h"

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))
#define T0		1900000000

static size_t
count(const struct pool *p, const char *ctr, const char *name)
{
	size_t	i, n = 0;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->v[i].ctr, ctr) == 0 &&
		    (name == NULL || strcmp(p->v[i].name, name) == 0))
			n++;
	return n;
}

ATF_TC_WITHOUT_HEAD(upsert);
ATF_TC_BODY(upsert, tc)
{
	struct pool	p;

	memset(&p, 0, sizeof(p));
	ATF_CHECK_EQ(pool_upsert(&p, "jb-a", "Rot.Test.", IP(198, 51, 100, 14),
	    T0), 1);
	ATF_CHECK_STREQ(p.v[0].name, "rot.test");
	ATF_CHECK_EQ(pool_upsert(&p, "jb-a", "rot.test", IP(198, 51, 100, 14),
	    T0 + 60), 0);
	ATF_CHECK_EQ(p.n, 1);
	ATF_CHECK_EQ(p.v[0].first, T0);
	ATF_CHECK_EQ(p.v[0].last, T0 + 60);
	/* an older answer never moves last back */
	ATF_CHECK_EQ(pool_upsert(&p, "jb-a", "rot.test", IP(198, 51, 100, 14),
	    T0), 0);
	ATF_CHECK_EQ(p.v[0].last, T0 + 60);
	/* the same address for another name or container is its own */
	ATF_CHECK_EQ(pool_upsert(&p, "jb-a", "www.test", IP(198, 51, 100, 14),
	    T0), 1);
	ATF_CHECK_EQ(pool_upsert(&p, "jb-b", "rot.test", IP(198, 51, 100, 14),
	    T0), 1);
	ATF_CHECK_EQ(p.n, 3);
	/* not a host name */
	ATF_CHECK_EQ(pool_upsert(&p, "jb-a", "bad_name", 1, T0), -1);
	ATF_CHECK_EQ(pool_upsert(&p, "jb-a", "", 1, T0), -1);
	pool_free(&p);
}

ATF_TC_WITHOUT_HEAD(evict);
ATF_TC_BODY(evict, tc)
{
	struct pool	p;
	uint32_t	i;

	memset(&p, 0, sizeof(p));
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "rot.test", IP(192, 0, 2, 1), T0)
	    == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "rot.test", IP(192, 0, 2, 2),
	    T0 + POOL_WINDOW) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "www.test", IP(192, 0, 2, 3), T0)
	    == 1);
	/* within the window: kept */
	ATF_CHECK_EQ(pool_evict(&p, "jb-a", "rot.test", T0 + POOL_WINDOW), 0);
	/* one second past it: gone, but only under the name asked */
	ATF_CHECK_EQ(pool_evict(&p, "jb-a", "rot.test",
	    T0 + POOL_WINDOW + 1), 1);
	ATF_CHECK_EQ(count(&p, "jb-a", "rot.test"), 1);
	ATF_CHECK_EQ(count(&p, "jb-a", "www.test"), 1);
	ATF_CHECK_EQ(p.v[0].addr == IP(192, 0, 2, 2) ||
	    p.v[1].addr == IP(192, 0, 2, 2), 1);

	/* beyond POOL_PER_NAME, the least recently seen go */
	for (i = 0; i < POOL_PER_NAME + 5; i++)
		ATF_REQUIRE(pool_upsert(&p, "jb-a", "cdn.test",
		    IP(203, 0, 113, i), T0 + i) == 1);
	ATF_CHECK_EQ(pool_evict(&p, "jb-a", "cdn.test", T0 + 100), 5);
	ATF_CHECK_EQ(count(&p, "jb-a", "cdn.test"), POOL_PER_NAME);
	for (i = 0; i < p.n; i++)
		if (strcmp(p.v[i].name, "cdn.test") == 0)
			ATF_CHECK(p.v[i].last >= T0 + 5);
	pool_free(&p);
}

ATF_TC_WITHOUT_HEAD(forget_prune);
ATF_TC_BODY(forget_prune, tc)
{
	struct pool		p;
	struct egress_entry	e[2];
	char			err[256];

	memset(&p, 0, sizeof(p));
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "rot.test", 1, T0) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "www.test", 2, T0) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "a.wild.test", 3, T0) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-b", "rot.test", 1, T0) == 1);
	ATF_REQUIRE(policy_parse_entry("rot.test:443", &e[0], err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(policy_parse_entry("*.wild.test", &e[1], err,
	    sizeof(err)) == 0);
	/* only exact NAME entries keep a name: the wildcard does not */
	ATF_CHECK_EQ(pool_prune(&p, "jb-a", e, 2), 2);
	ATF_CHECK_EQ(count(&p, "jb-a", NULL), 1);
	ATF_CHECK_EQ(count(&p, "jb-a", "rot.test"), 1);
	ATF_CHECK_EQ(count(&p, "jb-b", NULL), 1);
	ATF_CHECK_EQ(pool_forget(&p, "jb-b", NULL), 1);
	ATF_CHECK_EQ(pool_forget(&p, "jb-a", "www.test"), 0);
	ATF_CHECK_EQ(pool_forget(&p, "jb-a", "rot.test"), 1);
	ATF_CHECK_EQ(p.n, 0);
	pool_free(&p);
}

ATF_TC_WITHOUT_HEAD(pin);
ATF_TC_BODY(pin, tc)
{
	struct pool	 p;
	char		*s;

	memset(&p, 0, sizeof(p));
	ATF_REQUIRE((s = pool_pin(&p, "jb-a")) != NULL);
	ATF_CHECK_STREQ(s, "");
	free(s);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "www.test", IP(198, 51, 100, 10),
	    T0) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "rot.test", IP(198, 51, 100, 15),
	    T0 + 9) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-a", "rot.test", IP(198, 51, 100, 14),
	    T0) == 1);
	ATF_REQUIRE(pool_upsert(&p, "jb-b", "other.test", IP(198, 51, 100, 13),
	    T0) == 1);
	/* by name, then address: seen times do not reorder it */
	ATF_REQUIRE((s = pool_pin(&p, "jb-a")) != NULL);
	ATF_CHECK_STREQ(s, "198.51.100.14 rot.test\n198.51.100.15 rot.test\n"
	    "198.51.100.10 www.test\n");
	free(s);
	pool_free(&p);
}

ATF_TC_WITHOUT_HEAD(file);
ATF_TC_BODY(file, tc)
{
	struct pool	 p, q;
	char		 err[512];
	char		*a, *b;
	const char	*in = "# comment\n\n"
	    "jb-a rot.test 198.51.100.14 1900000000 1900000060\n"
	    "jb-a rot.test 198.51.100.15 1900000060 1900000060\n";

	memset(&p, 0, sizeof(p));
	memset(&q, 0, sizeof(q));
	ATF_REQUIRE_MSG(pool_parse("f", in, strlen(in), &p, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_REQUIRE_EQ(p.n, 2);
	ATF_CHECK_EQ(p.v[0].addr, IP(198, 51, 100, 14));
	ATF_CHECK_EQ(p.v[0].first, 1900000000);
	ATF_CHECK_EQ(p.v[0].last, 1900000060);
	ATF_REQUIRE((a = pool_fmt(&p)) != NULL);
	ATF_REQUIRE(pool_parse("g", a, strlen(a), &q, err, sizeof(err)) == 0);
	ATF_REQUIRE((b = pool_fmt(&q)) != NULL);
	ATF_CHECK_STREQ(a, b);
	free(a);
	free(b);
	pool_free(&q);
	pool_free(&p);
}

ATF_TC_WITHOUT_HEAD(file_bad);
ATF_TC_BODY(file_bad, tc)
{
	struct {
		const char	*in, *want;
	} t[] = {
		{ "jb-a rot.test 198.51.100.14 1 2 3\n", "f:1: want" },
		{ "jb-a rot.test 198.51.100.14 1\n", "f:1: want" },
		{ "\njb_a rot.test 198.51.100.14 1 2\n", "f:2: " },
		{ "jb-a Rot.test 198.51.100.14 1 2\n", "lower-case host" },
		{ "jb-a rot.test. 198.51.100.14 1 2\n", "lower-case host" },
		{ "jb-a *.test 198.51.100.14 1 2\n", "lower-case host" },
		{ "jb-a rot.test 198.51.100.014 1 2\n", "not an IPv4" },
		{ "jb-a rot.test ::1 1 2\n", "not an IPv4" },
		{ "jb-a rot.test 198.51.100.14 2 1\n", "FIRST not after" },
		{ "jb-a rot.test 198.51.100.14 -1 2\n", "seconds since" },
		{ "jb-a rot.test 198.51.100.14 01 2\n", "seconds since" },
		{ "jb-a rot.test 198.51.100.14 1 99999999999999999999\n",
		    "seconds since" },
		{ "jb-a rot.test 198.51.100.14 1 2\n"
		    "jb-a rot.test 198.51.100.14 3 4\n", "f:2: the same entry" },
	};
	struct pool	p;
	char		err[512];
	size_t		i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&p, 0, sizeof(p));
		err[0] = '\0';
		ATF_CHECK_MSG(pool_parse("f", t[i].in, strlen(t[i].in), &p,
		    err, sizeof(err)) == -1, "accepted %s", t[i].in);
		ATF_CHECK_MSG(strstr(err, t[i].want) != NULL,
		    "\"%s\" lacks \"%s\"", err, t[i].want);
		ATF_CHECK_EQ(p.n, 0);
	}
	/* a NUL byte inside a line */
	memset(&p, 0, sizeof(p));
	ATF_CHECK(pool_parse("f", "jb-a r\0t 1.2.3.4 1 2\n", 21, &p, err,
	    sizeof(err)) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, upsert);
	ATF_TP_ADD_TC(tp, evict);
	ATF_TP_ADD_TC(tp, forget_prune);
	ATF_TP_ADD_TC(tp, pin);
	ATF_TP_ADD_TC(tp, file);
	ATF_TP_ADD_TC(tp, file_bad);
	return atf_no_error();
}
