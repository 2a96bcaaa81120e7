/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* destroy's guard output on a cluster clone: the tips taken out */

#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "guardtips.h"

#define A40	"0123456789abcdef0123456789abcdef01234567"
#define A64	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static struct guard_tip	tips[GUARD_TIPS_MAX];

ATF_TC_WITHOUT_HEAD(tips_and_rest);
ATF_TC_BODY(tips_and_rest, tc)
{
	char	rest[256], why[128];
	size_t	n;

	ATF_REQUIRE(guard_tips_parse("changed:  M file\ntip " A40 " main\n"
	    "tip " A64 " feat/x y\n", tips, &n, rest, sizeof(rest), why,
	    sizeof(why)) == 0);
	ATF_REQUIRE_EQ(n, 2);
	ATF_CHECK_STREQ(tips[0].oid, A40);
	ATF_CHECK_STREQ(tips[0].branch, "main");
	ATF_CHECK_STREQ(tips[1].oid, A64);
	ATF_CHECK_STREQ(tips[1].branch, "feat/x y");
	ATF_CHECK_STREQ(rest, "changed:  M file\n");
	ATF_REQUIRE(guard_tips_parse("", tips, &n, rest, sizeof(rest), why,
	    sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 0);
	ATF_CHECK_STREQ(rest, "");
	/* no newline at the end */
	ATF_REQUIRE(guard_tips_parse("tip " A40 " b", tips, &n, rest,
	    sizeof(rest), why, sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 1);
	ATF_CHECK_STREQ(tips[0].branch, "b");
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	char	rest[256], why[128], big[GUARD_TIPS_MAX * 60 + 64];
	size_t	n, i, off = 0;

	ATF_CHECK(guard_tips_parse("tip 0123 main\n", tips, &n, rest,
	    sizeof(rest), why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "a tip that is not a commit id");
	ATF_CHECK(guard_tips_parse("tip " A40 "\n", tips, &n, rest,
	    sizeof(rest), why, sizeof(why)) == -1);
	ATF_CHECK(guard_tips_parse("tip " A40 " \n", tips, &n, rest,
	    sizeof(rest), why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "a tip line without a branch");
	/* upper case, a 41st digit: not an id */
	ATF_CHECK(guard_tips_parse("tip 0123456789ABCDEF0123456789abcdef01234567 "
	    "m\n", tips, &n, rest, sizeof(rest), why, sizeof(why)) == -1);
	ATF_CHECK(guard_tips_parse("tip " A40 "8 m\n", tips, &n, rest,
	    sizeof(rest), why, sizeof(why)) == -1);
	for (i = 0; i <= GUARD_TIPS_MAX; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off,
		    "tip " A40 " b%zu\n", i);
	ATF_CHECK(guard_tips_parse(big, tips, &n, rest, sizeof(rest), why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "more than 64 branches");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, tips_and_rest);
	ATF_TP_ADD_TC(tp, refused);
	return atf_no_error();
}
