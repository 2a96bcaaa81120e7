/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* the ranges a DNS answer does not open on its own (privnet.h) */

#include <stdint.h>
#include <string.h>

#include <atf-c.h>

#include "privnet.h"

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))

/* every special range, at its first and last address and just outside */
ATF_TC_WITHOUT_HEAD(ranges);
ATF_TC_BODY(ranges, tc)
{
	static const struct {
		uint32_t	 a;
		const char	*want;		/* NULL: public */
	} t[] = {
		{ IP(0, 0, 0, 0), "unspecified" },
		{ IP(0, 255, 255, 255), "unspecified" },
		{ IP(1, 0, 0, 0), NULL },
		{ IP(9, 255, 255, 255), NULL },
		{ IP(10, 0, 0, 0), "private" },
		{ IP(10, 255, 255, 255), "private" },
		{ IP(11, 0, 0, 0), NULL },
		{ IP(100, 63, 255, 255), NULL },
		{ IP(100, 64, 0, 0), "CGNAT" },
		{ IP(100, 127, 255, 255), "CGNAT" },
		{ IP(100, 128, 0, 0), NULL },
		{ IP(126, 255, 255, 255), NULL },
		{ IP(127, 0, 0, 1), "loopback" },
		{ IP(127, 255, 255, 255), "loopback" },
		{ IP(128, 0, 0, 0), NULL },
		{ IP(169, 253, 255, 255), NULL },
		{ IP(169, 254, 169, 254), "link-local" },
		{ IP(169, 254, 0, 0), "link-local" },
		{ IP(169, 255, 0, 0), NULL },
		{ IP(172, 15, 255, 255), NULL },
		{ IP(172, 16, 0, 0), "private" },
		{ IP(172, 31, 255, 255), "private" },
		{ IP(172, 32, 0, 0), NULL },
		{ IP(192, 0, 0, 8), "reserved" },
		{ IP(192, 0, 1, 0), NULL },
		{ IP(192, 167, 255, 255), NULL },
		{ IP(192, 168, 0, 1), "private" },
		{ IP(192, 168, 255, 255), "private" },
		{ IP(192, 169, 0, 0), NULL },
		{ IP(198, 17, 255, 255), NULL },
		{ IP(198, 18, 0, 0), "benchmark" },
		{ IP(198, 19, 255, 255), "benchmark" },
		{ IP(198, 20, 0, 0), NULL },
		{ IP(223, 255, 255, 255), NULL },
		{ IP(224, 0, 0, 1), "multicast" },
		{ IP(239, 255, 255, 250), "multicast" },
		{ IP(240, 0, 0, 0), "reserved" },
		{ IP(255, 255, 255, 255), "reserved" },
		{ IP(8, 8, 8, 8), NULL },
		{ IP(93, 184, 216, 34), NULL },
	};
	const char	*r;
	size_t		 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		r = privnet_range(t[i].a);
		if (t[i].want == NULL)
			ATF_CHECK_MSG(r == NULL, "%08x: %s, want public",
			    t[i].a, r);
		else
			ATF_CHECK_MSG(r != NULL && strcmp(r, t[i].want) == 0,
			    "%08x: %s, want %s", t[i].a, r ? r : "public",
			    t[i].want);
	}
}

static struct egress_entry
entry(enum egress_kind kind, uint32_t addr, uint8_t prefixlen)
{
	struct egress_entry	e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.addr = addr;
	e.prefixlen = prefixlen;
	return e;
}

/* a special address passes only under an ADDR or CIDR entry, or a range */
ATF_TC_WITHOUT_HEAD(admissible);
ATF_TC_BODY(admissible, tc)
{
	struct egress_entry	e[3];
	struct privnet		v[2];

	/* public: always, with no entry and no range */
	ATF_CHECK_EQ(privnet_admissible(IP(93, 184, 216, 34), NULL, 0, NULL,
	    0), 1);
	ATF_CHECK_EQ(privnet_admissible(IP(169, 254, 169, 254), NULL, 0,
	    NULL, 0), 0);
	ATF_CHECK_EQ(privnet_admissible(IP(10, 9, 0, 5), NULL, 0, NULL, 0),
	    0);
	/* a name or wildcard entry covers no address */
	memset(e, 0, sizeof(e));
	e[0].kind = EGRESS_WILDCARD;
	(void)strlcpy(e[0].name, "wild.test", sizeof(e[0].name));
	e[1] = entry(EGRESS_ADDR, IP(10, 9, 0, 5), 32);
	e[2] = entry(EGRESS_CIDR, IP(192, 168, 4, 0), 22);
	ATF_CHECK_EQ(privnet_admissible(IP(10, 9, 0, 5), e, 3, NULL, 0), 1);
	ATF_CHECK_EQ(privnet_admissible(IP(10, 9, 0, 6), e, 3, NULL, 0), 0);
	ATF_CHECK_EQ(privnet_admissible(IP(192, 168, 7, 255), e, 3, NULL, 0),
	    1);
	ATF_CHECK_EQ(privnet_admissible(IP(192, 168, 8, 0), e, 3, NULL, 0),
	    0);
	ATF_CHECK_EQ(privnet_admissible(IP(169, 254, 169, 254), e, 3, NULL,
	    0), 0);
	/* resolver.private_networks */
	v[0].net = IP(169, 254, 169, 254);
	v[0].prefixlen = 32;
	v[1].net = IP(198, 18, 0, 0);
	v[1].prefixlen = 15;
	ATF_CHECK_EQ(privnet_admissible(IP(169, 254, 169, 254), NULL, 0, v,
	    2), 1);
	ATF_CHECK_EQ(privnet_admissible(IP(169, 254, 169, 253), NULL, 0, v,
	    2), 0);
	ATF_CHECK_EQ(privnet_admissible(IP(198, 19, 2, 10), NULL, 0, v, 2),
	    1);
	ATF_CHECK_EQ(privnet_admissible(IP(10, 0, 0, 1), e, 1, v, 2), 0);
}

/* jailbeed's -P: comma-separated, each checked, nothing half taken */
ATF_TC_WITHOUT_HEAD(parse);
ATF_TC_BODY(parse, tc)
{
	struct privnet	v[PRIVNET_MAX];
	char		why[256];
	size_t		n = 99;

	ATF_REQUIRE(privnet_parse("", v, PRIVNET_MAX, &n, why,
	    sizeof(why)) == 0);
	ATF_CHECK_EQ(n, 0);
	ATF_REQUIRE_MSG(privnet_parse("10.1.0.0/16,169.254.169.254/32", v,
	    PRIVNET_MAX, &n, why, sizeof(why)) == 0, "%s", why);
	ATF_REQUIRE_EQ(n, 2);
	ATF_CHECK_EQ(v[0].net, IP(10, 1, 0, 0));
	ATF_CHECK_EQ(v[0].prefixlen, 16);
	ATF_CHECK_EQ(v[1].net, IP(169, 254, 169, 254));
	ATF_CHECK_EQ(v[1].prefixlen, 32);
	ATF_CHECK(privnet_parse("10.1.0.1/16", v, PRIVNET_MAX, &n, why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "resolver.private_networks: 10.1.0.1/16: host "
	    "bits are set: the subnet is 10.1.0.0/16");
	ATF_CHECK(privnet_parse("10.0.0.0/8,,", v, PRIVNET_MAX, &n, why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "resolver.private_networks: : not a subnet "
	    "A.B.C.D/N (e.g. 10.213.0.0/24)");
	ATF_CHECK(privnet_parse("10.0.0.0/8,10.0.0.0/8", v, 1, &n, why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "resolver.private_networks: at most 1 ranges of "
	    "A.B.C.D/N");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ranges);
	ATF_TP_ADD_TC(tp, admissible);
	ATF_TP_ADD_TC(tp, parse);
	return atf_no_error();
}
