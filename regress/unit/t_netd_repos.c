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
 * The repo override layer: its file, add and rm, and how it is
 * merged into each container of the repo beside the config and the
 * container's own overrides.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "netd_repos.h"
#include "netd_state.h"

static void
repos_ok(const char *text, struct netd_repos *rs)
{
	char	err[1024] = "";

	memset(rs, 0, sizeof(*rs));
	ATF_REQUIRE_MSG(netd_repos_parse("r", text, strlen(text), rs, err,
	    sizeof(err)) == 0, "refused: %s", err);
}

static void
repos_bad(const char *text, size_t len, const char *want)
{
	struct netd_repos	rs;
	char			err[1024] = "";

	memset(&rs, 0, sizeof(rs));
	ATF_REQUIRE_MSG(netd_repos_parse("r", text, len, &rs, err,
	    sizeof(err)) == -1, "accepted: %s", text);
	ATF_CHECK_MSG(strstr(err, want) != NULL, "\"%s\" lacks \"%s\"", err,
	    want);
	ATF_CHECK_EQ(rs.n, 0);
}

static void
state_ok(const char *text, struct netd_state *st)
{
	char	err[1024] = "";

	memset(st, 0, sizeof(*st));
	ATF_REQUIRE_MSG(netd_state_parse("f", text, strlen(text), st, err,
	    sizeof(err)) == 0, "refused: %s", err);
}

/* entry i of c, canonical */
static const char *
ent(const struct netd_ctr *c, size_t i)
{
	static char	buf[EGRESS_FMT_MAX];

	ATF_REQUIRE(i < c->n);
	return policy_entry_fmt(&c->e[i], buf, sizeof(buf));
}

ATF_TC_WITHOUT_HEAD(file_round_trip);
ATF_TC_BODY(file_round_trip, tc)
{
	struct netd_repos	 rs, again;
	const struct netd_repo	*r;
	char			*out, *out2;

	repos_ok("# comment\n\nproj WWW.Example.com:443 10.0.0.0/8:53/udp\n"
	    "other-2 *.example.org\n", &rs);
	ATF_REQUIRE_EQ(rs.n, 2);
	ATF_REQUIRE((r = netd_repos_find(&rs, "proj")) != NULL);
	ATF_CHECK_EQ(r->n, 2);
	ATF_CHECK(netd_repos_find(&rs, "pro") == NULL);
	ATF_REQUIRE((out = netd_repos_fmt(&rs)) != NULL);
	ATF_CHECK(strstr(out, "\nproj www.example.com:443 "
	    "10.0.0.0/8:53/udp\nother-2 *.example.org\n") != NULL);
	repos_ok(out, &again);
	ATF_REQUIRE((out2 = netd_repos_fmt(&again)) != NULL);
	ATF_CHECK_STREQ(out, out2);
	free(out);
	free(out2);
	netd_repos_free(&rs);
	netd_repos_free(&again);
}

ATF_TC_WITHOUT_HEAD(file_refused);
ATF_TC_BODY(file_refused, tc)
{
	repos_bad("proj 300.1.2.3\n", 15, "r:1: ");
	repos_bad("proj 300.1.2.3\n", 15, "300.1.2.3");
	repos_bad("# x\nProj a.example\n", 19, "r:2: repo \"Proj\"");
	repos_bad("-x a.example\n", 13, "repo \"-x\"");
	repos_bad("proj a.example\nproj b.example\n", 30, "listed twice");
	repos_bad("proj a.example A.example\n", 25, "listed twice");
	repos_bad("proj\n", 5, "has no entry");
	repos_bad("proj a.example\0\n", 16, "a NUL byte");
}

ATF_TC_WITHOUT_HEAD(add_rm);
ATF_TC_BODY(add_rm, tc)
{
	struct netd_repos	rs;
	char			err[1024] = "", *out;

	memset(&rs, 0, sizeof(rs));
	ATF_REQUIRE(netd_repos_add(&rs, "proj", "a.example:80", err,
	    sizeof(err)) == 0);
	ATF_CHECK(netd_repos_add(&rs, "proj", "A.example:80/tcp", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "a repo override of proj already allows")
	    != NULL);
	ATF_CHECK(netd_repos_add(&rs, "proj", "a.example:99999", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "\"a.example:99999\"") != NULL);
	ATF_CHECK(netd_repos_add(&rs, "Bad Key", "a.example", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "not a container prefix") != NULL);
	ATF_REQUIRE(netd_repos_add(&rs, "other", "a.example:80", err,
	    sizeof(err)) == 0);
	ATF_CHECK_EQ(rs.n, 2);

	/* rm: 0 for what the layer lacks, the last one drops the repo */
	ATF_CHECK(netd_repos_rm(&rs, "proj", "b.example:80", err,
	    sizeof(err)) == 0);
	ATF_CHECK(netd_repos_rm(&rs, "nope", "a.example:80", err,
	    sizeof(err)) == 0);
	ATF_CHECK(netd_repos_rm(&rs, "proj", "a.example:0", err,
	    sizeof(err)) == -1);
	ATF_CHECK(netd_repos_rm(&rs, "proj", "A.EXAMPLE:80", err,
	    sizeof(err)) == 1);
	ATF_CHECK(netd_repos_find(&rs, "proj") == NULL);
	ATF_REQUIRE((out = netd_repos_fmt(&rs)) != NULL);
	ATF_CHECK(strstr(out, "proj") == NULL);
	ATF_CHECK(strstr(out, "other a.example:80\n") != NULL);
	free(out);
	netd_repos_free(&rs);
}

ATF_TC_WITHOUT_HEAD(sync_layers);
ATF_TC_BODY(sync_layers, tc)
{
	struct netd_state	 st, cp;
	struct netd_repos	 rs;
	struct netd_ctr		*a, *b, *x;
	char			 err[1024] = "", *out;

	state_ok("p-a 10.213.0.254 strict 0 @p c.example:443 +o.example:80\n"
	    "p-b 10.213.0.253 strict 0 @p\n"
	    "x-a 10.213.0.252 strict 0 @x c.example:443\n"
	    "old 10.213.0.251 strict 0\n", &st);
	repos_ok("p r.example:80 c.example:443 o.example:80\n", &rs);
	ATF_REQUIRE(netd_repos_sync(&st, &rs, err, sizeof(err)) == 0);
	a = netd_state_find(&st, "p-a");
	b = netd_state_find(&st, "p-b");
	x = netd_state_find(&st, "x-a");
	/* config, then what only the layer has, then its own */
	ATF_REQUIRE_EQ(a->n, 3);
	ATF_CHECK_EQ(netd_ctr_ncfg(a), 1);
	ATF_CHECK_EQ(a->nrepo, 1);
	ATF_CHECK_STREQ(ent(a, 1), "r.example:80");
	ATF_CHECK_STREQ(ent(a, 2), "o.example:80");
	ATF_REQUIRE_EQ(b->n, 3);
	ATF_CHECK_EQ(b->nrepo, 3);
	ATF_CHECK_EQ(x->n, 1);
	ATF_CHECK_EQ(netd_state_find(&st, "old")->n, 0);

	/* the layer is not written with the containers; @repo is */
	ATF_REQUIRE((out = netd_state_fmt(&st)) != NULL);
	ATF_CHECK(strstr(out, "p-a 10.213.0.254 strict 0 @p c.example:443 "
	    "+o.example:80\n") != NULL);
	ATF_CHECK(strstr(out, "p-b 10.213.0.253 strict 0 @p\n") != NULL);
	ATF_CHECK(strstr(out, "old 10.213.0.251 strict 0\n") != NULL);
	free(out);

	/* a repo entry is no container override: neither add nor rm */
	ATF_CHECK(netd_ctr_override_add(a, "r.example:80", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "a repo override") != NULL);
	ATF_CHECK(netd_ctr_override_rm(a, "r.example:80", err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "net egress rm --repo") != NULL);

	/* the container's own copy goes; the layer's stays */
	ATF_REQUIRE(netd_ctr_override_rm(a, "o.example:80", err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(netd_repos_sync(&st, &rs, err, sizeof(err)) == 0);
	ATF_REQUIRE_EQ(a->n, 3);
	ATF_CHECK_EQ(a->nover, 0);
	ATF_CHECK_EQ(a->nrepo, 2);
	ATF_CHECK_STREQ(ent(a, 2), "o.example:80");

	/* the layer goes: so do its entries, from every container */
	ATF_REQUIRE(netd_repos_rm(&rs, "p", "r.example:80", err,
	    sizeof(err)) == 1);
	ATF_REQUIRE(netd_repos_sync(&st, &rs, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(a->n, 2);
	ATF_CHECK_EQ(b->n, 2);
	ATF_CHECK_STREQ(ent(b, 0), "c.example:443");

	/* a copy grows as the original does (room for doubling) */
	ATF_REQUIRE(netd_state_copy(&st, &cp) == 0);
	x = netd_state_find(&cp, "p-b");
	ATF_REQUIRE(netd_ctr_override_add(x, "1.2.3.4", err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(netd_ctr_override_add(x, "1.2.3.5", err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(netd_ctr_override_add(x, "1.2.3.6", err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(netd_repos_sync(&cp, &rs, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(x->n, 5);
	ATF_CHECK_STREQ(ent(x, 4), "1.2.3.6");
	netd_state_free(&cp);
	netd_state_free(&st);
	netd_repos_free(&rs);
}

ATF_TC_WITHOUT_HEAD(state_repo_key);
ATF_TC_BODY(state_repo_key, tc)
{
	struct netd_state	st;
	char			err[1024] = "";

	memset(&st, 0, sizeof(st));
	ATF_CHECK(netd_state_parse("f", "a 10.0.0.2 strict 0 x.example @p\n",
	    33, &st, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "f:1: repo \"@p\"") != NULL);
	ATF_CHECK(netd_state_parse("f", "a 10.0.0.2 strict 0 @p @q\n", 26,
	    &st, err, sizeof(err)) == -1);
	ATF_CHECK(netd_state_parse("f", "a 10.0.0.2 strict 0 @P\n", 23, &st,
	    err, sizeof(err)) == -1);
	ATF_CHECK(netd_repo_key_ok("jb-1"));
	ATF_CHECK(!netd_repo_key_ok(""));
	ATF_CHECK(!netd_repo_key_ok("-jb"));
	ATF_CHECK(!netd_repo_key_ok("jb/1"));
}

ATF_TC_WITHOUT_HEAD(entry_eq);
ATF_TC_BODY(entry_eq, tc)
{
	static const char *const same[][2] = {
		{ "A.Example:80/tcp", "a.example:80" },
		{ "www.example.com.", "www.example.com" },
		{ "*.Wild.example", "*.wild.example" },
		{ "10.0.0.0/8:53/UDP", "10.0.0.0/8:53/udp" },
	};
	static const char *const differ[][2] = {
		{ "a.example", "a.example:80" },
		{ "a.example:80", "a.example:80/udp" },
		{ "*.a.example", "a.example" },
		{ "10.0.0.0/8", "10.0.0.0/16" },
		{ "192.0.2.7", "192.0.2.8" },
		{ "b.example:80", "a.example:80" },
	};
	struct egress_entry	a, b;
	char			err[256];
	char			fa[EGRESS_FMT_MAX], fb[EGRESS_FMT_MAX];
	size_t			i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		ATF_REQUIRE(policy_parse_entry(same[i][0], &a, err,
		    sizeof(err)) == 0);
		ATF_REQUIRE(policy_parse_entry(same[i][1], &b, err,
		    sizeof(err)) == 0);
		ATF_CHECK_MSG(netd_entry_eq(&a, &b), "%s", same[i][0]);
	}
	/* equal exactly when the canonical texts are */
	for (i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
		ATF_REQUIRE(policy_parse_entry(differ[i][0], &a, err,
		    sizeof(err)) == 0);
		ATF_REQUIRE(policy_parse_entry(differ[i][1], &b, err,
		    sizeof(err)) == 0);
		ATF_CHECK_MSG(!netd_entry_eq(&a, &b), "%s", differ[i][0]);
		ATF_CHECK(strcmp(policy_entry_fmt(&a, fa, sizeof(fa)),
		    policy_entry_fmt(&b, fb, sizeof(fb))) != 0);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, file_round_trip);
	ATF_TP_ADD_TC(tp, file_refused);
	ATF_TP_ADD_TC(tp, add_rm);
	ATF_TP_ADD_TC(tp, sync_layers);
	ATF_TP_ADD_TC(tp, state_repo_key);
	ATF_TP_ADD_TC(tp, entry_eq);
	return atf_no_error();
}
