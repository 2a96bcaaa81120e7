/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* The resolver's refused names: counted, bounded, forgotten. */

#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "blocked.h"
#include "siphash.h"

ATF_TC_WITHOUT_HEAD(counts);
ATF_TC_BODY(counts, tc)
{
	struct blocked	b;

	memset(&b, 0, sizeof(b));
	ATF_CHECK(blocked_note(&b, "c1", "GitHub.com", 100) == 1);
	ATF_CHECK(blocked_note(&b, "c1", "github.com", 105) == 0);
	ATF_CHECK(blocked_note(&b, "c2", "github.com", 106) == 1);
	ATF_REQUIRE(b.n == 2);
	ATF_CHECK_STREQ(b.v[0].what, "github.com");
	ATF_CHECK(b.v[0].count == 2);
	ATF_CHECK(b.v[0].first == 100);
	ATF_CHECK(b.v[0].last == 105);
	/* what is not a plain name is counted, never kept */
	ATF_CHECK(blocked_note(&b, "c1", "a b\x1b[2J", 107) == 1);
	ATF_CHECK(blocked_note(&b, "c1", "\xff\xfe", 108) == 0);
	/* what egress_allow would not take as a name is odd too */
	ATF_CHECK(blocked_note(&b, "c1", "_ldap._tcp.example", 109) == 0);
	ATF_CHECK(blocked_note(&b, "c1", "a..b", 109) == 0);
	ATF_CHECK(blocked_note(&b, "c1", "10.0.0.1", 109) == 0);
	ATF_CHECK_STREQ(b.v[2].what, BLOCKED_ODD);
	ATF_CHECK(b.v[2].count == 5);
	ATF_CHECK(blocked_forget(&b, "c1") == 2);
	ATF_REQUIRE(b.n == 1);
	ATF_CHECK_STREQ(b.v[0].ctr, "c2");
	blocked_free(&b);
}

/* a flood of distinct names keeps BLOCKED_MAX, the most recent ones */
ATF_TC_WITHOUT_HEAD(bounded);
ATF_TC_BODY(bounded, tc)
{
	struct blocked	b;
	char		name[64];
	int		i;

	memset(&b, 0, sizeof(b));
	for (i = 0; i < 20000; i++) {
		(void)snprintf(name, sizeof(name), "n%d.example", i);
		ATF_REQUIRE(blocked_note(&b, "c", name, i) >= 0);
	}
	ATF_CHECK(b.n == BLOCKED_MAX);
	ATF_CHECK(b.evicted == 20000 - BLOCKED_MAX);
	for (i = 0; i < (int)b.n; i++)
		ATF_CHECK(b.v[i].last >= 20000 - BLOCKED_MAX);
	blocked_free(&b);
}

/* the journal's summary: since the last one, per container */
ATF_TC_WITHOUT_HEAD(summary);
ATF_TC_BODY(summary, tc)
{
	struct blocked		b;
	struct blocked_sum	s;
	int			i;

	memset(&b, 0, sizeof(b));
	blocked_summary(&b, "c1", &s);
	ATF_CHECK(s.count == 0 && s.distinct == 0 && s.top[0] == '\0');
	for (i = 0; i < 3; i++)
		ATF_REQUIRE(blocked_note(&b, "c1", "a.example", i) >= 0);
	ATF_REQUIRE(blocked_note(&b, "c1", "b.example", 4) >= 0);
	ATF_REQUIRE(blocked_note(&b, "c1", "\033]0;x\007", 5) >= 0);
	ATF_REQUIRE(blocked_note(&b, "c2", "c.example", 6) >= 0);
	blocked_summary(&b, "c1", &s);
	ATF_CHECK(s.count == 5);
	ATF_CHECK(s.distinct == 3);
	ATF_CHECK_STREQ(s.top, "a.example");
	ATF_CHECK(s.topcount == 3);
	/* a new summary starts: nothing since */
	blocked_summary(&b, "c1", &s);
	ATF_CHECK(s.count == 0 && s.distinct == 0);
	/* the other container's is its own; the totals stay for net log */
	blocked_summary(&b, "c2", &s);
	ATF_CHECK(s.count == 1 && s.distinct == 1);
	ATF_CHECK_STREQ(s.top, "c.example");
	ATF_REQUIRE(blocked_note(&b, "c1", "\033]0;x\007", 7) >= 0);
	ATF_REQUIRE(blocked_note(&b, "c1", "b.example", 8) >= 0);
	ATF_REQUIRE(blocked_note(&b, "c1", "\001", 9) >= 0);
	blocked_summary(&b, "c1", &s);
	ATF_CHECK(s.count == 3 && s.distinct == 2);
	ATF_CHECK_STREQ(s.top, BLOCKED_ODD);
	ATF_CHECK(s.topcount == 2);
	ATF_CHECK(b.v[0].count == 3);
	blocked_free(&b);
}

static int
kept(const struct blocked *b, const char *ctr, const char *what)
{
	size_t	i;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->v[i].ctr, ctr) == 0 &&
		    strcmp(b->v[i].what, what) == 0)
			return 1;
	return 0;
}

/* the least recently asked gives way, also after a forget reordered */
ATF_TC_WITHOUT_HEAD(recency);
ATF_TC_BODY(recency, tc)
{
	struct blocked	b;
	char		name[64];
	int		i;

	memset(&b, 0, sizeof(b));
	ATF_REQUIRE(blocked_note(&b, "c1", "a.example", 1) == 1);
	ATF_REQUIRE(blocked_note(&b, "c1", "b.example", 2) == 1);
	ATF_REQUIRE(blocked_note(&b, "c2", "x.example", 3) == 1);
	ATF_REQUIRE(blocked_note(&b, "c1", "c.example", 4) == 1);
	ATF_REQUIRE(blocked_forget(&b, "c2") == 1);
	/* asked again: a is now the most recent, b the oldest */
	ATF_REQUIRE(blocked_note(&b, "c1", "a.example", 5) == 0);
	for (i = 0; (size_t)i < BLOCKED_MAX - 3; i++) {
		(void)snprintf(name, sizeof(name), "n%d.example", i);
		ATF_REQUIRE(blocked_note(&b, "c3", name, 6) == 1);
	}
	ATF_REQUIRE(b.n == BLOCKED_MAX && b.evicted == 0);
	ATF_REQUIRE(blocked_note(&b, "c3", "new1.example", 7) == 1);
	ATF_CHECK(!kept(&b, "c1", "b.example"));
	ATF_CHECK(kept(&b, "c1", "a.example") && kept(&b, "c1", "c.example"));
	ATF_REQUIRE(blocked_note(&b, "c3", "new2.example", 7) == 1);
	ATF_CHECK(!kept(&b, "c1", "c.example"));
	ATF_CHECK(kept(&b, "c1", "a.example"));
	ATF_CHECK(b.evicted == 2);
	/* a counted again after all that is found, not added */
	ATF_CHECK(blocked_note(&b, "c1", "a.example", 8) == 0);
	ATF_CHECK(blocked_note(&b, "c3", "new1.example", 8) == 0);
	ATF_CHECK(b.n == BLOCKED_MAX);
	blocked_free(&b);
	/* freed: a new note starts a new table */
	ATF_CHECK(blocked_note(&b, "c1", "a.example", 9) == 1);
	ATF_CHECK(b.n == 1);
	blocked_free(&b);
}

/* the reference vectors of SipHash-2-4 (key 00..0f, input 00..len-1) */
ATF_TC_WITHOUT_HEAD(siphash);
ATF_TC_BODY(siphash, tc)
{
	uint8_t	key[SIPHASH_KEY], in[64];
	size_t	i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)i;
	ATF_CHECK_EQ(siphash24(key, in, 0), 0x726fdb47dd0e0e31ULL);
	ATF_CHECK_EQ(siphash24(key, in, 1), 0x74f839c593dc67fdULL);
	ATF_CHECK_EQ(siphash24(key, in, 8), 0x93f5f5799a932462ULL);
	ATF_CHECK_EQ(siphash24(key, in, 15), 0xa129ca6149be45e5ULL);
	ATF_CHECK_EQ(siphash24(key, in, 63), 0x958a324ceb064572ULL);
}

/* two tables get two keys: one's collisions are not the other's */
ATF_TC_WITHOUT_HEAD(keyed);
ATF_TC_BODY(keyed, tc)
{
	struct blocked	a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ATF_REQUIRE(blocked_note(&a, "c1", "x.test", 1) == 1);
	ATF_REQUIRE(blocked_note(&b, "c1", "x.test", 1) == 1);
	ATF_CHECK(memcmp(a.key, b.key, sizeof(a.key)) != 0);
	blocked_free(&a);
	blocked_free(&b);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, siphash);
	ATF_TP_ADD_TC(tp, keyed);
	ATF_TP_ADD_TC(tp, counts);
	ATF_TP_ADD_TC(tp, bounded);
	ATF_TP_ADD_TC(tp, summary);
	ATF_TP_ADD_TC(tp, recency);
	return atf_no_error();
}
