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
 * A container's policy as Incus holds it (user.jailbee.* keys) and as
 * jb-netd enforces it, each from the other: a round trip keeps mode,
 * deadline, the config's entries with their agents and the overrides;
 * a key that is not what the suite writes is refused, naming it; a
 * missing or stale mode is strict.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "netd_record.h"

#define NOW	1900000000LL

static struct jb_policy *
pol(const char *net, long long until, const char *egress, const char *extra)
{
	static struct jb_policy	p;

	memset(&p, 0, sizeof(p));
	(void)strlcpy(p.name, "jb-a", sizeof(p.name));
	(void)strlcpy(p.ipv4, "10.213.0.9", sizeof(p.ipv4));
	(void)strlcpy(p.prefix, "jb", sizeof(p.prefix));
	(void)strlcpy(p.net, net, sizeof(p.net));
	p.loose_until = until;
	p.has_egress = 1;
	(void)strlcpy(p.egress, egress, sizeof(p.egress));
	(void)strlcpy(p.egress_extra, extra, sizeof(p.egress_extra));
	return &p;
}

static void
to_ok(const struct jb_policy *p, struct netd_ctr *c)
{
	char	err[512] = "";

	ATF_REQUIRE_MSG(netd_record_to_ctr(p, NOW, c, err, sizeof(err)) == 0,
	    "refused: %s", err);
}

static void
to_bad(const struct jb_policy *p, const char *want)
{
	struct netd_ctr	c;
	char		err[512] = "";

	ATF_REQUIRE_MSG(netd_record_to_ctr(p, NOW, &c, err, sizeof(err)) ==
	    -1, "accepted: \"%s\" \"%s\"", p->egress, p->egress_extra);
	ATF_CHECK_MSG(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err,
	    want);
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	struct netd_ctr		c;
	struct jb_policy	back;
	char			err[256];

	to_ok(pol("loose", NOW + 60, "www.example.com:443 ~fake=api.fake.dev "
	    "10.0.0.0/8:53/udp", "192.0.2.7:8080 *.example.org"), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_LOOSE);
	ATF_CHECK_EQ(c.deadline, NOW + 60);
	ATF_CHECK_EQ(c.n, 5);
	ATF_CHECK_EQ(c.nover, 2);
	ATF_CHECK_STREQ(c.repo, "jb");
	ATF_CHECK_STREQ(c.e[1].agent, "fake");
	ATF_REQUIRE(netd_record_from_ctr(&c, &back, err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(back.name, "jb-a");
	ATF_CHECK_STREQ(back.ipv4, "10.213.0.9");
	ATF_CHECK_STREQ(back.net, "loose");
	ATF_CHECK_EQ(back.loose_until, NOW + 60);
	ATF_CHECK_STREQ(back.egress, "www.example.com:443 ~fake=api.fake.dev "
	    "10.0.0.0/8:53/udp");
	ATF_CHECK_STREQ(back.egress_extra, "192.0.2.7:8080 *.example.org");
	netd_ctr_free(&c);

	/* none at all: strict, nothing allowed */
	to_ok(pol("strict", 0, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_STRICT);
	ATF_CHECK_EQ(c.n, 0);
	ATF_REQUIRE(netd_record_from_ctr(&c, &back, err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(back.egress, "");
	ATF_CHECK_STREQ(back.egress_extra, "");
	netd_ctr_free(&c);
}

/* what Incus says of the mode never opens more than it says */
ATF_TC_WITHOUT_HEAD(mode_fails_closed);
ATF_TC_BODY(mode_fails_closed, tc)
{
	struct netd_ctr	c;

	/* loose, no revert */
	to_ok(pol("loose", 0, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_LOOSE);
	ATF_CHECK_EQ(c.deadline, 0);
	netd_ctr_free(&c);
	/* its deadline passed while nobody enforced it: strict */
	to_ok(pol("loose", NOW - 1, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_STRICT);
	ATF_CHECK_EQ(c.deadline, 0);
	netd_ctr_free(&c);
	to_ok(pol("loose", NOW, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_STRICT);
	netd_ctr_free(&c);
	/* a deadline jb-incus could not read comes as -1 */
	to_ok(pol("loose", -1, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_STRICT);
	netd_ctr_free(&c);
	/* no key, or one the suite never writes */
	to_ok(pol("", NOW + 60, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_STRICT);
	netd_ctr_free(&c);
	to_ok(pol("LOOSE", NOW + 60, "", ""), &c);
	ATF_CHECK_EQ(c.mode, NFTGEN_STRICT);
	netd_ctr_free(&c);
}

/* a key is read as a line of the cache file is: every entry checked */
ATF_TC_WITHOUT_HEAD(bad_keys);
ATF_TC_BODY(bad_keys, tc)
{
	to_bad(pol("strict", 0, "300.1.2.3:80", ""), "300.1.2.3:80");
	to_bad(pol("strict", 0, "", "www.example.com:99999"), "99999");
	/* a second line, or a field of the line, hidden in a key */
	to_bad(pol("strict", 0, "a.example\njb-b 10.213.0.8 loose 0", ""),
	    "byte 0x0a");
	to_bad(pol("strict", 0, "", "+10.0.0.0/8"), "starts with '+'");
	to_bad(pol("strict", 0, "", "~fake=10.0.0.0/8"), "starts with '~'");
	to_bad(pol("strict", 0, "@other", ""), "starts with '@'");
	to_bad(pol("strict", 0, "#x", ""), "starts with '#'");
	to_bad(pol("strict", 0, "a.example  b.example", ""),
	    "separated by one space");
	to_bad(pol("strict", 0, " a.example", ""), "separated by one space");
	to_bad(pol("strict", 0, "a.example ", ""), "separated by one space");
	to_bad(pol("strict", 0, "~Bad Agent=a.example", ""), "");
	/* no address: nothing to enforce it on */
	{
		struct jb_policy	*p = pol("strict", 0, "", "");

		p->ipv4[0] = '\0';
		to_bad(p, "no address");
		p = pol("strict", 0, "", "");
		(void)strlcpy(p->ipv4, "10.213.0.x", sizeof(p->ipv4));
		to_bad(p, "10.213.0.x");
		p = pol("strict", 0, "", "");
		(void)strlcpy(p->name, "jb a", sizeof(p->name));
		to_bad(p, "not a container name");
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, round_trip);
	ATF_TP_ADD_TC(tp, mode_fails_closed);
	ATF_TP_ADD_TC(tp, bad_keys);
	return atf_no_error();
}
