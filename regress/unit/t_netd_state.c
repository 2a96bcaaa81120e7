/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* jb-netd's durable state: the file format and the container set */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "netd_state.h"

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))

static void
parse_ok(const char *text, struct netd_state *st)
{
	char	err[1024] = "";

	memset(st, 0, sizeof(*st));
	ATF_REQUIRE_MSG(netd_state_parse("f", text, strlen(text), st, err,
	    sizeof(err)) == 0, "refused: %s", err);
}

static void
parse_bad(const char *text, const char *want)
{
	struct netd_state	st;
	char			err[1024] = "";

	memset(&st, 0, sizeof(st));
	ATF_REQUIRE_MSG(netd_state_parse("f", text, strlen(text), &st, err,
	    sizeof(err)) == -1, "accepted: %s", text);
	ATF_CHECK_MSG(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err,
	    want);
	ATF_CHECK_EQ(st.n, 0);
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	struct netd_state	 st, again;
	const char		*in =
	    "# a comment\n"
	    "\n"
	    "jb-a 10.213.0.254 strict 0 www.example.com:443 *.example.org "
	    "10.0.0.0/8:53/udp 192.0.2.7\n"
	    "jb-b 10.213.0.253 loose 1900000000\n";
	char			*out, *out2;

	parse_ok(in, &st);
	ATF_REQUIRE_EQ(st.n, 2);
	ATF_CHECK_STREQ(st.v[0].name, "jb-a");
	ATF_CHECK_EQ(st.v[0].addr, IP(10, 213, 0, 254));
	ATF_CHECK_EQ(st.v[0].mode, NFTGEN_STRICT);
	ATF_CHECK_EQ(st.v[0].n, 4);
	ATF_CHECK_EQ(st.v[0].e[1].kind, EGRESS_WILDCARD);
	ATF_CHECK_EQ(st.v[0].e[2].proto, EGRESS_PROTO_UDP);
	ATF_CHECK_EQ(st.v[1].mode, NFTGEN_LOOSE);
	ATF_CHECK_EQ(st.v[1].deadline, 1900000000);
	ATF_REQUIRE((out = netd_state_fmt(&st)) != NULL);
	parse_ok(out, &again);
	ATF_REQUIRE((out2 = netd_state_fmt(&again)) != NULL);
	ATF_CHECK_STREQ(out, out2);
	ATF_CHECK(strstr(out, "jb-a 10.213.0.254 strict 0 "
	    "www.example.com:443 *.example.org 10.0.0.0/8:53/udp 192.0.2.7\n")
	    != NULL);
	free(out);
	free(out2);
	netd_state_free(&st);
	netd_state_free(&again);
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	parse_bad("jb-a 10.213.0.254 strict\n", "f:1: expected NAME IPV4");
	parse_bad("\njb-a 10.213.0.254 open 0\n", "f:2: container jb-a: mode");
	parse_bad("jb-a 10.213.0.2540 strict 0\n", "not an IPv4 address");
	parse_bad("jb-a 10.213.0.254 strict -5\n", "is not a time");
	parse_bad("jb-a 10.213.0.254 strict 0 foo:99999\n",
	    "port must be 1-65535");
	parse_bad("Bad_Name 10.213.0.254 strict 0\n", "f:1:");
	parse_bad("jb-a 10.213.0.254 strict 0\njb-a 10.213.0.253 strict 0\n",
	    "f:2: container jb-a is listed twice");
	{
		struct netd_state	st;
		char			err[256] = "";

		memset(&st, 0, sizeof(st));
		ATF_CHECK(netd_state_parse("f", "a 10.0.0.2 strict 0\0\n", 21,
		    &st, err, sizeof(err)) == -1);
		ATF_CHECK(strstr(err, "f:1: a NUL byte") != NULL);
	}
}

ATF_TC_WITHOUT_HEAD(put_replaces);
ATF_TC_BODY(put_replaces, tc)
{
	struct netd_state	 st;
	struct netd_ctr		 c;
	struct jb_netd_ctr	 m;
	char			 err[512];

	parse_ok("a 10.0.0.2 strict 0\nb 10.0.0.3 strict 0\n", &st);
	/* same address, new name: Incus gave it to the newer container */
	memset(&m, 0, sizeof(m));
	strlcpy(m.name, "c", sizeof(m.name));
	strlcpy(m.ipv4, "10.0.0.3", sizeof(m.ipv4));
	strlcpy(m.mode, "loose", sizeof(m.mode));
	memcpy(m.entries, "x.test:80\0" "10.1.0.0/16", 22);
	m.nentries = 2;
	ATF_REQUIRE_MSG(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_CHECK_EQ(c.n, 2);
	ATF_REQUIRE(netd_state_put(&st, &c) == 0);
	ATF_CHECK_EQ(st.n, 2);
	ATF_CHECK(netd_state_find(&st, "b") == NULL);
	ATF_CHECK(netd_state_find(&st, "c") != NULL);
	ATF_CHECK_EQ(netd_state_forget(&st, "a"), 1);
	ATF_CHECK_EQ(netd_state_forget(&st, "a"), 0);
	ATF_CHECK_EQ(st.n, 1);
	/* a bad entry refuses the whole message, naming it */
	memcpy(m.entries, "x.test:0\0", 9);
	m.nentries = 1;
	ATF_CHECK(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "x.test:0") != NULL);
	/* entries that run off the end of the message */
	memset(m.entries, 'a', sizeof(m.entries));
	ATF_CHECK(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "truncated") != NULL);
	netd_state_free(&st);
}

/* net egress add|rm: overrides follow the config's entries, marked "+" */
ATF_TC_WITHOUT_HEAD(overrides);
ATF_TC_BODY(overrides, tc)
{
	struct netd_state	 st, again;
	char			 err[1024] = "", *out, *out2;
	struct netd_ctr		*c;

	parse_ok("jb-a 10.213.0.254 strict 0 www.example.com:443 "
	    "+192.0.2.7:80 +*.example.org\n", &st);
	c = &st.v[0];
	ATF_CHECK_EQ(c->n, 3);
	ATF_CHECK_EQ(c->nover, 2);
	ATF_REQUIRE((out = netd_state_fmt(&st)) != NULL);
	ATF_CHECK(strstr(out, "strict 0 www.example.com:443 +192.0.2.7:80 "
	    "+*.example.org\n") != NULL);
	parse_ok(out, &again);
	ATF_REQUIRE((out2 = netd_state_fmt(&again)) != NULL);
	ATF_CHECK_STREQ(out, out2);
	free(out);
	free(out2);
	netd_state_free(&again);

	/* additive: the config's entries cannot be removed or repeated */
	ATF_CHECK(netd_ctr_override_rm(c, "www.example.com:443", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "\"www.example.com:443\" comes from "
	    "egress_allow") != NULL);
	ATF_CHECK(netd_ctr_override_add(c, "WWW.example.com:443", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "egress_allow in its config already allows")
	    != NULL);
	ATF_CHECK(netd_ctr_override_add(c, "192.0.2.7:80", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "an override already allows") != NULL);
	ATF_CHECK(netd_ctr_override_add(c, "300.1.2.3:80", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "\"300.1.2.3:80\"") != NULL);
	ATF_CHECK(netd_ctr_override_rm(c, "192.0.2.8:80", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "not an override of jb-a") != NULL);
	ATF_CHECK_EQ(c->n, 3);
	ATF_CHECK_EQ(c->nover, 2);

	ATF_REQUIRE(netd_ctr_override_rm(c, "192.0.2.7:80", err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(netd_ctr_override_add(c, "10.0.0.0/8:53/udp", err,
	    sizeof(err)) == 0);
	ATF_CHECK_EQ(c->n, 3);
	ATF_CHECK_EQ(c->nover, 2);
	ATF_REQUIRE((out = netd_state_fmt(&st)) != NULL);
	ATF_CHECK(strstr(out, "strict 0 www.example.com:443 +*.example.org "
	    "+10.0.0.0/8:53/udp\n") != NULL);
	free(out);
	netd_state_free(&st);

	/* a config entry after an override is no file jb-netd wrote */
	parse_bad("jb-a 10.213.0.254 strict 0 +192.0.2.7 192.0.2.8\n",
	    "after an override");
}

/*
 * An enabled agent's egress_allow: config entries tagged with the agent,
 * "~AGENT=ENTRY" in the file; one the config already has stays the
 * config's; a bad agent name refuses the message or the line.
 */
ATF_TC_WITHOUT_HEAD(agent_origins);
ATF_TC_BODY(agent_origins, tc)
{
	struct netd_state	 st, again;
	struct netd_ctr		 c, *t;
	struct jb_netd_ctr	 m;
	char			 err[1024] = "", *out, *out2;

	memset(&m, 0, sizeof(m));
	strlcpy(m.name, "jb-a", sizeof(m.name));
	strlcpy(m.ipv4, "10.0.0.2", sizeof(m.ipv4));
	strlcpy(m.mode, "strict", sizeof(m.mode));
	/* config x.test:80; fake: y.test, x.test:80 again; aider: z.test */
	memcpy(m.entries, "x.test:80\0y.test\0x.test:80\0z.test", 34);
	memcpy(m.agents, "\0fake\0fake\0aider", 17);
	m.nentries = 4;
	ATF_REQUIRE_MSG(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_REQUIRE_EQ(c.n, 3);
	ATF_CHECK_EQ(netd_ctr_ncfg(&c), 3);
	ATF_CHECK_STREQ(c.e[0].agent, "");
	ATF_CHECK_STREQ(c.e[1].agent, "fake");
	ATF_CHECK_STREQ(c.e[2].agent, "aider");
	memset(&st, 0, sizeof(st));
	ATF_REQUIRE(netd_state_put(&st, &c) == 0);
	/* an override after them; the file keeps every origin */
	ATF_REQUIRE(netd_ctr_override_add(&st.v[0], "w.test", err,
	    sizeof(err)) == 0);
	ATF_CHECK(netd_ctr_override_add(&st.v[0], "y.test", err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "an agent's egress_allow") != NULL, "%s",
	    err);
	ATF_REQUIRE((out = netd_state_fmt(&st)) != NULL);
	ATF_CHECK_MSG(strstr(out, "jb-a 10.0.0.2 strict 0 x.test:80 "
	    "~fake=y.test ~aider=z.test +w.test\n") != NULL, "%s", out);
	parse_ok(out, &again);
	t = &again.v[0];
	ATF_CHECK_EQ(t->n, 4);
	ATF_CHECK_EQ(t->nover, 1);
	ATF_CHECK_STREQ(t->e[1].agent, "fake");
	ATF_CHECK_STREQ(t->e[3].agent, "");
	ATF_REQUIRE((out2 = netd_state_fmt(&again)) != NULL);
	ATF_CHECK_STREQ(out, out2);
	free(out);
	free(out2);
	netd_state_free(&again);
	netd_state_free(&st);

	/* a bad agent name: the message, and a line of the file */
	memcpy(m.agents, "\0Fake!\0\0\0", 10);
	ATF_CHECK(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "agent name \"Fake!\"") != NULL, "%s",
	    err);
	parse_bad("a 10.0.0.2 strict 0 ~-x=y.test\n", "agent name \"-x\"");
	parse_bad("a 10.0.0.2 strict 0 ~fake\n", "~AGENT=ENTRY");
	parse_bad("a 10.0.0.2 strict 0 +w.test ~fake=y.test\n",
	    "before the overrides");
	parse_bad("a 10.0.0.2 strict 0 ~fake=y.test:0\n", "y.test:0");
	/* github.enabled's tag: kept in the file, the override names it */
	memset(&m.entries, 0, sizeof(m.entries));
	memset(&m.agents, 0, sizeof(m.agents));
	memcpy(m.entries, "api.github.com:443", 19);
	memcpy(m.agents, JB_EGRESS_FROM_GITHUB, sizeof(JB_EGRESS_FROM_GITHUB));
	m.nentries = 1;
	ATF_REQUIRE_MSG(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_CHECK_STREQ(c.e[0].agent, ":github");
	memset(&st, 0, sizeof(st));
	ATF_REQUIRE(netd_state_put(&st, &c) == 0);
	ATF_CHECK(netd_ctr_override_add(&st.v[0], "api.github.com:443", err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "github.enabled in its config") != NULL,
	    "%s", err);
	ATF_REQUIRE((out = netd_state_fmt(&st)) != NULL);
	ATF_CHECK_MSG(strstr(out, " ~:github=api.github.com:443\n") != NULL,
	    "%s", out);
	parse_ok(out, &again);
	ATF_CHECK_STREQ(again.v[0].e[0].agent, ":github");
	free(out);
	netd_state_free(&again);
	netd_state_free(&st);
	/* no other tag of that form */
	parse_bad("a 10.0.0.2 strict 0 ~:gitlab=y.test\n",
	    "agent name \":gitlab\"");
	memcpy(m.entries, "x.test:80\0y.test\0x.test:80\0z.test", 34);
	m.nentries = 4;

	/* agents run off the end of the message */
	memset(m.agents, 'a', sizeof(m.agents));
	ATF_CHECK(netd_ctr_from_msg(&m, &c, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "truncated") != NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, round_trip);
	ATF_TP_ADD_TC(tp, refused);
	ATF_TP_ADD_TC(tp, put_replaces);
	ATF_TP_ADD_TC(tp, overrides);
	ATF_TP_ADD_TC(tp, agent_origins);
	return atf_no_error();
}
