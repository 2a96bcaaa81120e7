/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* what jb-netd knows the egress gateway holds (gwknown.h) */

#include <stdint.h>
#include <stdio.h>

#include <atf-c.h>

#include "gwknown.h"

#define A1	0xc6120001U	/* 198.18.0.1 */
#define A2	0xc6120002U
#define T0	1000

/* held only once the ADMIT that carried it is confirmed */
ATF_TC_WITHOUT_HEAD(confirmed_only);
ATF_TC_BODY(confirmed_only, tc)
{
	struct gwknown	*k = gwknown_new();

	ATF_REQUIRE(k != NULL);
	ATF_CHECK(!gwknown_held(k, "c1", "www.test", A1, T0, 0));
	gwknown_note(k, "c1", "www.test", A1, T0 + 300, 5);
	ATF_CHECK(!gwknown_held(k, "c1", "www.test", A1, T0, 0));
	ATF_CHECK(!gwknown_held(k, "c1", "www.test", A1, T0, 4));
	ATF_CHECK(gwknown_held(k, "c1", "www.test", A1, T0, 5));
	ATF_CHECK(gwknown_held(k, "c1", "www.test", A1, T0, 9));
	/* noted again under a newer ADMIT: waits for that one */
	gwknown_note(k, "c1", "www.test", A1, T0 + 300, 10);
	ATF_CHECK(!gwknown_held(k, "c1", "www.test", A1, T0, 9));
	ATF_CHECK(gwknown_held(k, "c1", "www.test", A1, T0, 10));
	/* the numbers wrap round */
	gwknown_note(k, "c1", "www.test", A2, T0 + 300, 0xfffffffeU);
	ATF_CHECK(gwknown_held(k, "c1", "www.test", A2, T0, 3));
	gwknown_free(k);
}

/* the container, the name and the address each count */
ATF_TC_WITHOUT_HEAD(keyed);
ATF_TC_BODY(keyed, tc)
{
	struct gwknown	*k = gwknown_new();

	gwknown_note(k, "c1", "www.test", A1, T0 + 300, 1);
	ATF_CHECK(gwknown_held(k, "c1", "www.test", A1, T0, 1));
	ATF_CHECK(!gwknown_held(k, "c2", "www.test", A1, T0, 1));
	ATF_CHECK(!gwknown_held(k, "c1", "other.test", A1, T0, 1));
	ATF_CHECK(!gwknown_held(k, "c1", "www.test", A2, T0, 1));
	/* "c1" "x.y" is not "c1x" ".y" */
	gwknown_note(k, "c1", "x.y", A1, T0 + 300, 1);
	ATF_CHECK(!gwknown_held(k, "c1x", ".y", A1, T0, 1));
	gwknown_free(k);
}

/* an admission ending within the margin is not held */
ATF_TC_WITHOUT_HEAD(ending);
ATF_TC_BODY(ending, tc)
{
	struct gwknown	*k = gwknown_new();

	gwknown_note(k, "c1", "www.test", A1, T0 + GWKNOWN_MARGIN + 1, 1);
	ATF_CHECK(gwknown_held(k, "c1", "www.test", A1, T0, 1));
	ATF_CHECK(!gwknown_held(k, "c1", "www.test", A1, T0 + 1, 1));
	gwknown_free(k);
}

/* a full table forgets (and is then waited for again), never errs */
/* until when: the confirmed note's end, else 0 (on its way or unknown) */
ATF_TC_WITHOUT_HEAD(until);
ATF_TC_BODY(until, tc)
{
	struct gwknown	*k = gwknown_new();

	ATF_REQUIRE(k != NULL);
	ATF_CHECK_EQ(gwknown_until(k, "c1", "www.test", A1, 7), 0);
	gwknown_note(k, "c1", "www.test", A1, T0 + 300, 7);
	ATF_CHECK_EQ(gwknown_until(k, "c1", "www.test", A1, 6), 0);
	ATF_CHECK_EQ(gwknown_until(k, "c1", "www.test", A1, 7), T0 + 300);
	ATF_CHECK_EQ(gwknown_until(k, "c1", "www.test", A2, 7), 0);
	/* sent again: on its way until confirmed, with its new end */
	gwknown_note(k, "c1", "www.test", A1, T0 + 600, 8);
	ATF_CHECK_EQ(gwknown_until(k, "c1", "www.test", A1, 7), 0);
	ATF_CHECK_EQ(gwknown_until(k, "c1", "www.test", A1, 8), T0 + 600);
	gwknown_free(k);
}

ATF_TC_WITHOUT_HEAD(bounded);
ATF_TC_BODY(bounded, tc)
{
	struct gwknown	*k = gwknown_new();
	char		 host[32];
	uint32_t	 i, held = 0;

	for (i = 0; i < 4 * GWKNOWN_SLOTS; i++) {
		(void)snprintf(host, sizeof(host), "h%u.test", i);
		gwknown_note(k, "c1", host, A1, T0 + 300 + i, 1);
	}
	for (i = 0; i < 4 * GWKNOWN_SLOTS; i++) {
		(void)snprintf(host, sizeof(host), "h%u.test", i);
		held += (uint32_t)gwknown_held(k, "c1", host, A1, T0, 1);
	}
	ATF_CHECK(held <= GWKNOWN_SLOTS);
	ATF_CHECK(held > GWKNOWN_SLOTS / 2);
	/* the newest are kept rather than the soonest to end */
	(void)snprintf(host, sizeof(host), "h%u.test", 4 * GWKNOWN_SLOTS - 1);
	ATF_CHECK(gwknown_held(k, "c1", host, A1, T0, 1));
	gwknown_free(k);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, confirmed_only);
	ATF_TP_ADD_TC(tp, keyed);
	ATF_TP_ADD_TC(tp, ending);
	ATF_TP_ADD_TC(tp, until);
	ATF_TP_ADD_TC(tp, bounded);
	return atf_no_error();
}
