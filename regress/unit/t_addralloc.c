/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* container addresses: outside DHCP, never held, never leased */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "addralloc.h"

#define IP(a, b, c, d)	(((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))
#define CONF		"/etc/jailbee/jailbeed.yaml"

static void
pool(struct addr_pool *p, uint32_t host, uint32_t plen)
{
	char	why[256];

	ATF_REQUIRE_MSG(addr_pool_init(p, host, plen, why, sizeof(why)) == 0,
	    "%s", why);
}

static uint32_t
pick(struct addr_pool *p)
{
	uint32_t	a = 0;
	char		why[512];

	ATF_REQUIRE_MSG(addr_pool_pick(p, "jbbr0", CONF, &a, why,
	    sizeof(why)) == 0, "%s", why);
	return a;
}

static void
full(struct addr_pool *p, const char *want)
{
	uint32_t	a = 0;
	char		why[512];

	ATF_REQUIRE(addr_pool_pick(p, "jbbr0", CONF, &a, why,
	    sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, want) != NULL, "got \"%s\", want \"%s\"",
	    why, want);
}

ATF_TC_WITHOUT_HEAD(highest_outside_dhcp);
ATF_TC_BODY(highest_outside_dhcp, tc)
{
	struct addr_pool	p;

	pool(&p, IP(10, 213, 0, 1), 24);
	addr_pool_dhcp(&p, IP(10, 213, 0, 2), IP(10, 213, 0, 33));
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 254));
	addr_pool_held(&p, IP(10, 213, 0, 254));
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 253));
	/* a lease nobody holds still keeps dnsmasq from giving it out */
	addr_pool_leased(&p, IP(10, 213, 0, 253));
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 252));
	/* outside the subnet: nothing to do with us */
	addr_pool_held(&p, IP(10, 214, 0, 252));
	addr_pool_leased(&p, IP(192, 0, 2, 1));
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 252));
	addr_pool_free(&p);
}

/* each pick starts below the last: a just-freed address comes last */
ATF_TC_WITHOUT_HEAD(rotation);
ATF_TC_BODY(rotation, tc)
{
	struct addr_pool	p;
	uint32_t		a;
	char			why[256];

	pool(&p, IP(10, 213, 0, 1), 24);
	addr_pool_dhcp(&p, IP(10, 213, 0, 2), IP(10, 213, 0, 33));
	ATF_REQUIRE_EQ(addr_pool_pick_below(&p, IP(10, 213, 0, 254), "jbbr0",
	    CONF, &a, why, sizeof(why)), 0);
	ATF_CHECK_EQ(a, IP(10, 213, 0, 253));
	/* the bottom of the static range wraps round to the top */
	ATF_REQUIRE_EQ(addr_pool_pick_below(&p, IP(10, 213, 0, 34), "jbbr0",
	    CONF, &a, why, sizeof(why)), 0);
	ATF_CHECK_EQ(a, IP(10, 213, 0, 254));
	/* held ones are skipped on the way; outside the subnet: the top */
	addr_pool_held(&p, IP(10, 213, 0, 100));
	ATF_REQUIRE_EQ(addr_pool_pick_below(&p, IP(10, 213, 0, 101), "jbbr0",
	    CONF, &a, why, sizeof(why)), 0);
	ATF_CHECK_EQ(a, IP(10, 213, 0, 99));
	ATF_REQUIRE_EQ(addr_pool_pick_below(&p, IP(192, 0, 2, 1), "jbbr0",
	    CONF, &a, why, sizeof(why)), 0);
	ATF_CHECK_EQ(a, IP(10, 213, 0, 254));
	/* the only free one is the one below: it is still found */
	for (a = IP(10, 213, 0, 34); a <= IP(10, 213, 0, 254); a++)
		if (a != IP(10, 213, 0, 200))
			addr_pool_held(&p, a);
	ATF_REQUIRE_EQ(addr_pool_pick_below(&p, IP(10, 213, 0, 200), "jbbr0",
	    CONF, &a, why, sizeof(why)), 0);
	ATF_CHECK_EQ(a, IP(10, 213, 0, 200));
	addr_pool_free(&p);
}

/* a high DHCP range, or two ranges: the addresses between are used */
ATF_TC_WITHOUT_HEAD(dhcp_anywhere);
ATF_TC_BODY(dhcp_anywhere, tc)
{
	struct addr_pool	p;
	uint32_t		a;

	pool(&p, IP(10, 213, 0, 1), 24);
	addr_pool_dhcp(&p, IP(10, 213, 0, 200), IP(10, 213, 0, 254));
	addr_pool_dhcp(&p, IP(10, 213, 0, 2), IP(10, 213, 0, 9));
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 199));
	for (a = IP(10, 213, 0, 11); a <= IP(10, 213, 0, 199); a++)
		addr_pool_held(&p, a);
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 10));
	addr_pool_held(&p, IP(10, 213, 0, 10));
	full(&p, "all 190 outside its DHCP range are held; choose a larger "
	    "network.subnet in " CONF);
	addr_pool_free(&p);
}

/* the bridge's own address, the network and the broadcast never */
ATF_TC_WITHOUT_HEAD(reserved);
ATF_TC_BODY(reserved, tc)
{
	struct addr_pool	p;

	pool(&p, IP(10, 1, 2, 6), 30);		/* .4 net .5 .6 host .7 */
	ATF_CHECK_EQ(pick(&p), IP(10, 1, 2, 5));
	addr_pool_held(&p, IP(10, 1, 2, 5));
	full(&p, "all 1 outside");
	addr_pool_free(&p);

	pool(&p, IP(10, 213, 0, 254), 24);	/* the host at the top */
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 253));
	addr_pool_free(&p);
}

/* the default bridge: Incus leases .2-.254 when no range is set */
ATF_TC_WITHOUT_HEAD(all_dhcp);
ATF_TC_BODY(all_dhcp, tc)
{
	struct addr_pool	p;

	pool(&p, IP(10, 213, 0, 1), 24);
	addr_pool_dhcp(&p, IP(10, 213, 0, 2), IP(10, 213, 0, 254));
	full(&p, "bridge jbbr0 leases every address of 10.213.0.0/24 by "
	    "DHCP");
	addr_pool_free(&p);

	/* a range reaching outside the subnet is clipped, not wrapped */
	pool(&p, IP(10, 213, 0, 1), 24);
	addr_pool_dhcp(&p, IP(10, 212, 255, 0), IP(10, 213, 0, 100));
	addr_pool_dhcp(&p, IP(10, 213, 0, 250), IP(10, 214, 0, 5));
	addr_pool_dhcp(&p, IP(10, 213, 0, 9), IP(10, 213, 0, 3)); /* empty */
	ATF_CHECK_EQ(pick(&p), IP(10, 213, 0, 249));
	addr_pool_free(&p);
}

/* stale leases are counted in the message that names the key */
ATF_TC_WITHOUT_HEAD(full_of_leases);
ATF_TC_BODY(full_of_leases, tc)
{
	struct addr_pool	p;
	uint32_t		a;

	pool(&p, IP(10, 213, 0, 1), 24);
	addr_pool_dhcp(&p, IP(10, 213, 0, 2), IP(10, 213, 0, 33));
	for (a = IP(10, 213, 0, 34); a <= IP(10, 213, 0, 254); a++)
		if (a % 2)
			addr_pool_leased(&p, a);
		else
			addr_pool_held(&p, a);
	/* held wins over leased: .35 counts as held */
	addr_pool_held(&p, IP(10, 213, 0, 35));
	full(&p, "no free address left in 10.213.0.0/24 on bridge jbbr0: "
	    "all 221 outside its DHCP range are held (109 of them by leases "
	    "dnsmasq keeps for deleted containers until they expire); "
	    "choose a larger network.subnet in " CONF);
	addr_pool_free(&p);
}

/* a /20 holds thousands: every one is given once, highest first */
ATF_TC_WITHOUT_HEAD(large);
ATF_TC_BODY(large, tc)
{
	struct addr_pool	p;
	uint32_t		a, prev, n = 0;

	pool(&p, IP(10, 214, 0, 1), 20);
	addr_pool_dhcp(&p, IP(10, 214, 0, 2), IP(10, 214, 0, 33));
	prev = IP(10, 214, 16, 0);
	for (;;) {
		char	why[512];

		if (addr_pool_pick(&p, "jbbr0", CONF, &a, why,
		    sizeof(why)) == -1) {
			ATF_CHECK(strstr(why, "all 4061 outside") != NULL);
			break;
		}
		ATF_REQUIRE(a < prev && a >= IP(10, 214, 0, 34));
		addr_pool_held(&p, a);
		prev = a;
		n++;
	}
	ATF_CHECK_EQ(n, 4096 - 3 - 32);
	ATF_CHECK_EQ(prev, IP(10, 214, 0, 34));
	addr_pool_free(&p);

	/* the largest the pool takes: the top of a /16 */
	pool(&p, IP(172, 16, 0, 1), 16);
	ATF_CHECK_EQ(pick(&p), IP(172, 16, 255, 254));
	addr_pool_free(&p);
}

ATF_TC_WITHOUT_HEAD(pool_refused);
ATF_TC_BODY(pool_refused, tc)
{
	struct addr_pool	p;
	char			why[256];

	ATF_CHECK(addr_pool_init(&p, IP(10, 0, 0, 1), 8, why,
	    sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "10.0.0.1/8: containers get addresses in a "
	    "/16 to a /30") != NULL);
	ATF_CHECK(addr_pool_init(&p, IP(10, 0, 0, 1), 31, why,
	    sizeof(why)) == -1);
	ATF_CHECK(addr_pool_init(&p, IP(10, 213, 0, 0), 24, why,
	    sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "not a host address") != NULL);
	ATF_CHECK(addr_pool_init(&p, IP(10, 213, 0, 255), 24, why,
	    sizeof(why)) == -1);
}

static void
cidr_ok(const char *s, int hostok, uint32_t want, uint32_t wantlen)
{
	uint32_t	a = 0, n = 0;
	char		why[256];

	ATF_CHECK_MSG(addr_cidr_parse(s, hostok, 16, 24, &a, &n, why,
	    sizeof(why)) == 0, "%s: %s", s, why);
	ATF_CHECK_EQ_MSG(a, want, "%s", s);
	ATF_CHECK_EQ_MSG(n, wantlen, "%s", s);
}

static void
cidr_bad(const char *s, int hostok, const char *want)
{
	uint32_t	a = 7, n = 7;
	char		why[256];

	why[0] = '\0';
	ATF_CHECK_MSG(addr_cidr_parse(s, hostok, 16, 24, &a, &n, why,
	    sizeof(why)) == -1, "%s taken", s);
	ATF_CHECK_MSG(strstr(why, want) != NULL, "%s: got \"%s\", want "
	    "\"%s\"", s, why, want);
	ATF_CHECK(a == 7 && n == 7);
}

ATF_TC_WITHOUT_HEAD(cidr);
ATF_TC_BODY(cidr, tc)
{
	cidr_ok("10.213.0.0/24", 0, IP(10, 213, 0, 0), 24);
	cidr_ok("10.214.16.0/20", 0, IP(10, 214, 16, 0), 20);
	cidr_ok("172.16.0.0/16", 0, IP(172, 16, 0, 0), 16);
	cidr_ok("10.213.0.1/24", 1, IP(10, 213, 0, 1), 24);

	cidr_bad("10.213.0.1/24", 0, "host bits are set: the subnet is "
	    "10.213.0.0/24");
	cidr_bad("10.214.17.0/20", 0, "the subnet is 10.214.16.0/20");
	cidr_bad("10.0.0.0/8", 0, "/8 is outside /16 to /24");
	cidr_bad("10.213.0.0/25", 0, "/25 is outside /16 to /24");
	cidr_bad("10.213.0.0", 0, "not a subnet A.B.C.D/N");
	cidr_bad("10.213.0.0/", 0, "not a subnet");
	cidr_bad("10.213.0.0/024", 0, "not a subnet");
	cidr_bad("10.213.0.0/24x", 0, "not a subnet");
	cidr_bad("10.213.0.0/+24", 0, "not a subnet");
	cidr_bad("10.213.0.0/99999999999", 0, "not a subnet");
	cidr_bad("10.213.000.0/24", 0, "not a subnet");
	cidr_bad("10.213.0/24", 0, "not a subnet");
	cidr_bad(" 10.213.0.0/24", 0, "not a subnet");
	cidr_bad("/24", 0, "not a subnet");
	cidr_bad("10.213.0.0/24/24", 0, "not a subnet");
	cidr_bad("", 0, "not a subnet");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, highest_outside_dhcp);
	ATF_TP_ADD_TC(tp, dhcp_anywhere);
	ATF_TP_ADD_TC(tp, rotation);
	ATF_TP_ADD_TC(tp, reserved);
	ATF_TP_ADD_TC(tp, all_dhcp);
	ATF_TP_ADD_TC(tp, full_of_leases);
	ATF_TP_ADD_TC(tp, large);
	ATF_TP_ADD_TC(tp, pool_refused);
	ATF_TP_ADD_TC(tp, cidr);
	return atf_no_error();
}
