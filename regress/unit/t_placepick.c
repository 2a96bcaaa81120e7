/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* new on a cluster without --target: the member it places on */

#include <atf-c.h>

#include "placepick.h"

ATF_TC_WITHOUT_HEAD(fewest);
ATF_TC_BODY(fewest, tc)
{
	struct place_member	m[] = {
		{ "m1", 1, 1, 4 }, { "m2", 1, 1, 1 }, { "m3", 1, 1, 2 },
	};

	ATF_CHECK_EQ(place_pick(m, 3, "m1"), 1);
	ATF_CHECK_EQ(place_pick(m, 3, NULL), 1);
}

/* a tie goes to this member, else to the first listed */
ATF_TC_WITHOUT_HEAD(tie);
ATF_TC_BODY(tie, tc)
{
	struct place_member	m[] = {
		{ "m1", 1, 1, 1 }, { "m2", 1, 1, 0 }, { "m3", 1, 1, 0 },
	};

	ATF_CHECK_EQ(place_pick(m, 3, "m3"), 2);
	ATF_CHECK_EQ(place_pick(m, 3, "m1"), 1);
	ATF_CHECK_EQ(place_pick(m, 3, "m9"), 1);
}

/* offline, manual or group-only members, and unknown counts, never */
ATF_TC_WITHOUT_HEAD(excluded);
ATF_TC_BODY(excluded, tc)
{
	struct place_member	m[] = {
		{ "m1", 0, 1, 0 }, { "m2", 1, 0, 0 }, { "m3", 1, 1, -1 },
		{ "m4", 1, 1, 7 },
	};

	ATF_CHECK_EQ(place_pick(m, 4, "m1"), 3);
	ATF_CHECK_EQ(place_pick(m, 3, "m1"), -1);
	ATF_CHECK_EQ(place_pick(m, 0, "m1"), -1);
	ATF_CHECK(place_automatic(NULL));
	ATF_CHECK(place_automatic(""));
	ATF_CHECK(place_automatic("all"));
	ATF_CHECK(!place_automatic("manual"));
	ATF_CHECK(!place_automatic("group"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, fewest);
	ATF_TP_ADD_TC(tp, tie);
	ATF_TP_ADD_TC(tp, excluded);
	return atf_no_error();
}
