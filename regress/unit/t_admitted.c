/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* jb-netd's record of what it admitted (admitted.h) */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "admitted.h"

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))
#define T0		1000

static const char *const WWW[] = { "www.test", "www.test" };

static struct nftgen_elem
el(uint32_t addr, enum egress_proto proto, uint16_t port)
{
	struct nftgen_elem	e;

	memset(&e, 0, sizeof(e));
	e.addr = addr;
	e.proto = proto;
	e.port = port;
	return e;
}

ATF_TC_WITHOUT_HEAD(repeat_skipped);
ATF_TC_BODY(repeat_skipped, tc)
{
	struct nftgen_elem	v[2];
	unsigned int		t;

	admitted_clear();
	v[0] = el(IP(198, 51, 100, 10), EGRESS_PROTO_TCP, 8080);
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0), 1);
	ATF_CHECK_EQ(t, 62);
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, t, T0), 0);
	/* asked again 10 s later: 52 s left covers ttl 2 + 60 - slack */
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 10), 0);
	/* 40 s later only 22 s are left: sent again */
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 40), 1);
	ATF_CHECK_EQ(t, 62);
	/* another container, port or protocol is its own element */
	v[0] = el(IP(198, 51, 100, 10), EGRESS_PROTO_TCP, 8080);
	v[1] = el(IP(198, 51, 100, 10), EGRESS_PROTO_UDP, 8080);
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-b", v, 2, &t, T0 + 10), 2);
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 2, &t, T0 + 10), 1);
	ATF_CHECK_EQ(v[0].proto, EGRESS_PROTO_UDP);
}

ATF_TC_WITHOUT_HEAD(never_shortened);
ATF_TC_BODY(never_shortened, tc)
{
	struct nftgen_elem	v[2];
	unsigned int		t;

	admitted_clear();
	/* the pool admitted it for a day */
	v[0] = el(IP(198, 51, 100, 14), EGRESS_PROTO_TCP, 8080);
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, 86400, T0), 0);
	/* a DNS answer for it costs nothing */
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 5), 0);
	/* sent with a new address beside it: the day is kept */
	v[1] = el(IP(198, 51, 100, 15), EGRESS_PROTO_TCP, 8080);
	t = 86400;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 2, &t, T0 + 86350), 2);
	ATF_CHECK_EQ(t, 86400);
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 2, 3600, T0 + 86350), 0);
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 2, &t, T0 + 86360), 0);
	/* a shorter admission noted later never moves the end back */
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, 10, T0 + 86360), 0);
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 86400), 0);
	/* 10 s left of the hour: 10 + slack < 62, sent with 62 */
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 89940), 1);
	ATF_CHECK_EQ(t, 62);
}

ATF_TC_WITHOUT_HEAD(raised_to_longest);
ATF_TC_BODY(raised_to_longest, tc)
{
	struct nftgen_elem	v[2];
	unsigned int		t;

	admitted_clear();
	v[0] = el(IP(192, 0, 2, 1), EGRESS_PROTO_ANY, 0);
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, 100, T0), 0);
	/* 100 s left, 300 wanted: sent, and 300 kept */
	t = 300;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0), 1);
	ATF_CHECK_EQ(t, 300);
	/* 90 s left covers 20: only the new element is sent, with 20 */
	v[1] = el(IP(192, 0, 2, 2), EGRESS_PROTO_ANY, 0);
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, 100, T0), 0);
	t = 20;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 2, &t, T0 + 10), 1);
	ATF_CHECK_EQ(v[0].addr, IP(192, 0, 2, 2));
	ATF_CHECK_EQ(t, 20);
}

ATF_TC_WITHOUT_HEAD(expired_and_cleared);
ATF_TC_BODY(expired_and_cleared, tc)
{
	struct nftgen_elem	v[1];
	unsigned int		t;

	admitted_clear();
	v[0] = el(IP(203, 0, 113, 10), EGRESS_PROTO_TCP, 7);
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, 62, T0), 0);
	ATF_CHECK_EQ(admitted_count(), 1);
	/* noting anything drops what has expired */
	v[0].port = 8;
	ATF_CHECK_EQ(admitted_note("jb-a", WWW, v, 1, 62, T0 + 100), 0);
	ATF_CHECK_EQ(admitted_count(), 1);
	v[0].port = 7;
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 100), 1);
	/* the table changed: nothing is known */
	admitted_clear();
	v[0].port = 8;
	t = 62;
	ATF_CHECK_EQ(admitted_filter("jb-a", v, 1, &t, T0 + 101), 1);
	ATF_CHECK_EQ(admitted_count(), 0);
}

static struct egress_entry
ent(const char *text)
{
	struct egress_entry	e;
	char			err[256];

	ATF_REQUIRE_MSG(policy_parse_entry(text, &e, err, sizeof(err)) == 0,
	    "%s", err);
	return e;
}

/*
 * Narrowing: an element no allowed name justifies any more is reported,
 * the others are kept with their latest end, and an element two names
 * answered stays while one of them is allowed.
 */
ATF_TC_WITHOUT_HEAD(narrowed);
ATF_TC_BODY(narrowed, tc)
{
	static const char *const names[] = { "www.test", "a.wild.test",
	    "b.wild.test", "www.test" };
	struct nftgen_elem	 v[4];
	struct egress_entry	 before[3], after[3];
	struct admitted_kept	*k;
	size_t			 nk;

	admitted_clear();
	before[0] = ent("www.test:8080");
	before[1] = ent("*.wild.test:8080");
	before[2] = ent("www.test");
	v[0] = el(IP(198, 51, 100, 10), EGRESS_PROTO_TCP, 8080);
	v[1] = el(IP(198, 51, 100, 12), EGRESS_PROTO_TCP, 8080);
	/* a.wild.test and b.wild.test share an address */
	v[2] = el(IP(198, 51, 100, 12), EGRESS_PROTO_TCP, 8080);
	v[3] = el(IP(198, 51, 100, 10), EGRESS_PROTO_ANY, 0);
	ATF_REQUIRE_EQ(admitted_note("jb-a", names, v, 3, 62, T0), 0);
	ATF_REQUIRE_EQ(admitted_note("jb-a", names + 3, v + 3, 1, 300, T0),
	    0);
	/* the same entries, reordered: nothing to take out */
	after[0] = before[2];
	after[1] = before[0];
	after[2] = before[1];
	ATF_CHECK_EQ(admitted_keep("jb-a", after, 3, T0 + 1, &k, &nk), 0);
	ATF_CHECK(k == NULL);
	/* the wildcard goes: its address is out, www.test's two stay */
	ATF_CHECK_EQ(admitted_keep("jb-a", before, 1, T0 + 1, &k, &nk), 1);
	ATF_REQUIRE_EQ(nk, 1);
	ATF_CHECK_EQ(k[0].el.addr, IP(198, 51, 100, 10));
	ATF_CHECK_EQ(k[0].el.port, 8080);
	ATF_CHECK_EQ(k[0].until, T0 + 62);
	free(k);
	after[0] = before[0];
	after[1] = before[2];
	ATF_CHECK_EQ(admitted_keep("jb-a", after, 2, T0 + 1, &k, &nk), 1);
	ATF_CHECK_EQ(nk, 2);
	free(k);
	/* a port changed: the element with the old port is not justified */
	after[0] = ent("www.test:8081");
	after[1] = before[1];
	ATF_CHECK_EQ(admitted_keep("jb-a", after, 2, T0 + 1, &k, &nk), 1);
	ATF_REQUIRE_EQ(nk, 1);
	ATF_CHECK_EQ(k[0].el.addr, IP(198, 51, 100, 12));
	free(k);
	/* nothing is changed until pruned; another container is its own */
	ATF_CHECK_EQ(admitted_count(), 4);
	ATF_CHECK_EQ(admitted_keep("jb-b", after, 0, T0 + 1, &k, &nk), 0);
	/* everything goes: emptied, nothing admitted again */
	ATF_CHECK_EQ(admitted_keep("jb-a", NULL, 0, T0 + 1, &k, &nk), 1);
	ATF_CHECK(k == NULL);
	ATF_CHECK_EQ(nk, 0);
	/* pruned to the wildcard alone: a and b stay, www.test's go */
	admitted_prune("jb-a", before + 1, 1);
	ATF_CHECK_EQ(admitted_count(), 2);
	ATF_CHECK_EQ(admitted_keep("jb-a", before + 1, 1, T0 + 1, &k, &nk),
	    0);
	/* expired records justify nothing and need no emptying */
	ATF_CHECK_EQ(admitted_keep("jb-a", NULL, 0, T0 + 62, &k, &nk), 0);
	admitted_forget("jb-a");
	ATF_CHECK_EQ(admitted_count(), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, narrowed);
	ATF_TP_ADD_TC(tp, repeat_skipped);
	ATF_TP_ADD_TC(tp, never_shortened);
	ATF_TP_ADD_TC(tp, raised_to_longest);
	ATF_TP_ADD_TC(tp, expired_and_cleared);
	return atf_no_error();
}
