/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* the one syntax of a container prefix, a container name, an image alias */

#include <string.h>

#include <atf-c.h>

#include "names.h"

static char *
repeat(char *buf, int c, size_t n)
{
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

ATF_TC_WITHOUT_HEAD(prefix);
ATF_TC_BODY(prefix, tc)
{
	char	buf[64];

	ATF_CHECK(name_prefix_ok("jailbee"));
	ATF_CHECK(name_prefix_ok("a"));
	ATF_CHECK(name_prefix_ok("0-x-"));
	ATF_CHECK(name_prefix_ok(repeat(buf, 'p', NAME_PREFIX_MAX)));
	ATF_CHECK(!name_prefix_ok(repeat(buf, 'p', NAME_PREFIX_MAX + 1)));
	ATF_CHECK(!name_prefix_ok(""));
	ATF_CHECK(!name_prefix_ok("-x"));
	ATF_CHECK(!name_prefix_ok("X"));
	ATF_CHECK(!name_prefix_ok("a_b"));
	ATF_CHECK(!name_prefix_ok("a.b"));
	ATF_CHECK(!name_prefix_ok("../etc"));
}

ATF_TC_WITHOUT_HEAD(instance);
ATF_TC_BODY(instance, tc)
{
	char	buf[80];

	ATF_CHECK(name_instance_ok("jailbee-feat"));
	ATF_CHECK(name_instance_ok("a"));
	ATF_CHECK(name_instance_ok(repeat(buf, 'i', NAME_INSTANCE_MAX)));
	ATF_CHECK(!name_instance_ok(repeat(buf, 'i', NAME_INSTANCE_MAX + 1)));
	ATF_CHECK(!name_instance_ok(""));
	ATF_CHECK(!name_instance_ok("-a"));
	ATF_CHECK(!name_instance_ok("a-"));
	ATF_CHECK(!name_instance_ok("a/b"));
	ATF_CHECK(!name_instance_ok("A"));
}

ATF_TC_WITHOUT_HEAD(alias);
ATF_TC_BODY(alias, tc)
{
	char	buf[80];

	ATF_CHECK(name_alias_ok("jailbee-base"));
	ATF_CHECK(name_alias_ok("Deb_12.x"));
	ATF_CHECK(name_alias_ok(repeat(buf, 'a', NAME_ALIAS_MAX)));
	ATF_CHECK(!name_alias_ok(repeat(buf, 'a', NAME_ALIAS_MAX + 1)));
	ATF_CHECK(!name_alias_ok(""));
	ATF_CHECK(!name_alias_ok("-x"));
	ATF_CHECK(!name_alias_ok(".x"));
	ATF_CHECK(!name_alias_ok("a/b"));
	ATF_CHECK(!name_alias_ok("a b"));
}

/* which member's suite enforces an instance, by its Incus location */
ATF_TC_WITHOUT_HEAD(member_here);
ATF_TC_BODY(member_here, tc)
{
	/* no cluster.member: every instance seen is enforced here */
	ATF_CHECK(name_member_here("", "m2"));
	ATF_CHECK(name_member_here("", ""));
	/* Incus not clustered: the instance is on this machine */
	ATF_CHECK(name_member_here("m1", "none"));
	ATF_CHECK(name_member_here("m1", ""));
	ATF_CHECK(name_member_here("m2", "m2"));
	ATF_CHECK(!name_member_here("m1", "m2"));
	ATF_CHECK(!name_member_here("m2", "m22"));
	ATF_CHECK(!name_member_here("m22", "m2"));
	ATF_CHECK(!name_member_here("m2", "M2"));
	/* a location jb-incus could not take whole: nobody's */
	ATF_CHECK(!name_member_here("m2", "?"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, prefix);
	ATF_TP_ADD_TC(tp, instance);
	ATF_TP_ADD_TC(tp, alias);
	ATF_TP_ADD_TC(tp, member_here);
	return atf_no_error();
}
