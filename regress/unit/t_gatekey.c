/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* user.jailbee.gate: how long a member leaves the gate to the creator */

#include <stdint.h>

#include <atf-c.h>

#include "gate.h"

ATF_TC_WITHOUT_HEAD(creator_window);
ATF_TC_BODY(creator_window, tc)
{
	int64_t	until = 0;

	ATF_CHECK(gate_by_creator("creator:1000", 1000, &until) == 1);
	ATF_CHECK_EQ(until, 1000 + GATE_CREATOR_SECS);
	ATF_CHECK(gate_by_creator("creator:1000", 1000 + GATE_CREATOR_SECS -
	    1, &until) == 1);
	/* past the window the member adds the gate itself */
	ATF_CHECK(gate_by_creator("creator:1000", 1000 + GATE_CREATOR_SECS,
	    &until) == 0);
	/* a creator's clock a little ahead is taken, far ahead is not */
	ATF_CHECK(gate_by_creator("creator:1030", 1000, &until) == 1);
	ATF_CHECK(gate_by_creator("creator:99999", 1000, &until) == 0);
}

ATF_TC_WITHOUT_HEAD(not_the_creators);
ATF_TC_BODY(not_the_creators, tc)
{
	int64_t	until = 0;

	ATF_CHECK(gate_by_creator(NULL, 1000, &until) == 0);
	ATF_CHECK(gate_by_creator("", 1000, &until) == 0);
	ATF_CHECK(gate_by_creator("creator", 1000, &until) == 0);
	ATF_CHECK(gate_by_creator("creator:", 1000, &until) == 0);
	ATF_CHECK(gate_by_creator("creator:-5", 1000, &until) == 0);
	ATF_CHECK(gate_by_creator("creator:10x", 1000, &until) == 0);
	ATF_CHECK(gate_by_creator("creator:99999999999999999999", 1000,
	    &until) == 0);
	ATF_CHECK(gate_by_creator("member:1000", 1000, &until) == 0);
	ATF_CHECK_EQ(until, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, creator_window);
	ATF_TP_ADD_TC(tp, not_the_creators);
	return atf_no_error();
}
