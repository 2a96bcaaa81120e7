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
 * The audit journal's record (auditrec.c): one schema, in order; no
 * terminal byte and no huge value gets in; the filters of jbctl audit.
 */

#include <string.h>

#include <atf-c.h>

#include "auditrec.h"

static void
rec(struct audit_rec *r, const char *action, const char *ctr)
{
	memset(r, 0, sizeof(*r));
	r->when = 1767225600;		/* 2026-01-01T00:00:00Z */
	r->actor = "uid:1000";
	r->container = ctr;
	r->repo = "jb-demo";
	r->action = action;
	r->decision = "accept";
}

ATF_TC_WITHOUT_HEAD(schema);
ATF_TC_BODY(schema, tc)
{
	struct audit_rec	r;
	char			line[AUDIT_LINE_MAX];

	rec(&r, "net.loose", "jb-demo-main");
	r.reason = "for 5m";
	audit_str(&r, "until", "2026-01-01T00:05:00Z");
	audit_num(&r, "count", 42);
	ATF_REQUIRE(audit_format(&r, line, sizeof(line)) > 0);
	ATF_CHECK_STREQ(line, "{\"time\":\"2026-01-01T00:00:00Z\","
	    "\"actor\":\"uid:1000\",\"container\":\"jb-demo-main\","
	    "\"repo\":\"jb-demo\",\"action\":\"net.loose\","
	    "\"decision\":\"accept\",\"reason\":\"for 5m\","
	    "\"until\":\"2026-01-01T00:05:00Z\",\"count\":42}");
	/* no reason: no key; NULL container: "" */
	rec(&r, "start", NULL);
	ATF_REQUIRE(audit_format(&r, line, sizeof(line)) > 0);
	ATF_CHECK_STREQ(line, "{\"time\":\"2026-01-01T00:00:00Z\","
	    "\"actor\":\"uid:1000\",\"container\":\"\",\"repo\":\"jb-demo\","
	    "\"action\":\"start\",\"decision\":\"accept\"}");
	/* too small a buffer: refused, not cut */
	ATF_CHECK_EQ(audit_format(&r, line, 20), -1);
}

ATF_TC_WITHOUT_HEAD(hostile);
ATF_TC_BODY(hostile, tc)
{
	struct audit_rec	r;
	char			line[AUDIT_LINE_MAX], big[4096];
	size_t			i;

	rec(&r, "net.dns-refused", "jb-demo-main");
	/* terminal bytes: ESC, CSI, BEL, a newline, a lone byte */
	audit_str(&r, "top", "a\033[31mb\xc2\x9b" "c\007d\ne\xff");
	ATF_REQUIRE(audit_format(&r, line, sizeof(line)) > 0);
	ATF_CHECK(strstr(line, "\"top\":\"a?[31mb??c?d?e?\"") != NULL);
	for (i = 0; line[i] != '\0'; i++)
		ATF_CHECK((unsigned char)line[i] >= 0x20 &&
		    (unsigned char)line[i] != 0x7f);
	/* a huge value is cut at AUDIT_VALUE_MAX, marked "..." */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rec(&r, "mount", big);
	ATF_REQUIRE(audit_format(&r, line, sizeof(line)) > 0);
	ATF_CHECK(strstr(line, big) == NULL);
	big[AUDIT_VALUE_MAX - 3] = '\0';
	ATF_CHECK(strstr(line, big) != NULL);
	strlcat(big, "...\"", sizeof(big));
	ATF_CHECK(strstr(line, big) != NULL);
	/* a multi-byte character cut in half becomes '?', never half */
	memset(big, 'y', AUDIT_VALUE_MAX - 4);
	memcpy(big + AUDIT_VALUE_MAX - 4, "\xe2\x82\xac\xe2\x82\xac", 7);
	rec(&r, "mount", big);
	ATF_REQUIRE(audit_format(&r, line, sizeof(line)) > 0);
	ATF_CHECK(strstr(line, "y\xe2\x82\xac...\"") == NULL);
	ATF_CHECK(strstr(line, "y?...\"") != NULL ||
	    strstr(line, "y??...\"") != NULL);
	/* every value at its most, each byte escaped, still fits a line */
	memset(big, '"', AUDIT_VALUE_MAX);
	big[AUDIT_VALUE_MAX] = '\0';
	rec(&r, big, big);
	r.actor = r.repo = r.decision = r.reason = big;
	for (i = 0; i < AUDIT_EXTRA_MAX + 2; i++)
		audit_str(&r, "k", big);
	ATF_CHECK(audit_format(&r, line, sizeof(line)) > 0);
}

ATF_TC_WITHOUT_HEAD(filters);
ATF_TC_BODY(filters, tc)
{
	struct audit_filter	f;
	const char		*l = "{\"time\":\"2026-01-01T00:00:00Z\","
				    "\"actor\":\"SHA256:abc\",\"container\":"
				    "\"jb-demo-main\",\"repo\":\"jb-demo\","
				    "\"action\":\"net.egress.add\","
				    "\"decision\":\"accept\"}";

	memset(&f, 0, sizeof(f));
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	f.action = "net";
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	f.action = "net.egress";
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	f.action = "net.egress.add";
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	/* a prefix only at a '.' */
	f.action = "ne";
	ATF_CHECK_EQ(audit_match(l, &f), 0);
	f.action = "net.egress.a";
	ATF_CHECK_EQ(audit_match(l, &f), 0);
	f.action = "mount";
	ATF_CHECK_EQ(audit_match(l, &f), 0);
	f.action = NULL;
	f.container = "jb-demo-main";
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	f.container = "jb-demo";
	ATF_CHECK_EQ(audit_match(l, &f), 0);
	f.container = NULL;
	f.actor = "SHA256:abc";
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	f.actor = "uid:0";
	ATF_CHECK_EQ(audit_match(l, &f), 0);
	f.actor = NULL;
	f.cutoff = "2026-01-01T00:00:00Z";
	ATF_CHECK_EQ(audit_match(l, &f), 1);
	f.cutoff = "2026-01-01T00:00:01Z";
	ATF_CHECK_EQ(audit_match(l, &f), 0);
	/* with a filter, what is not a journal object never passes */
	f.cutoff = "2000";
	ATF_CHECK_EQ(audit_match("not json", &f), 0);
	ATF_CHECK_EQ(audit_match("[1,2]", &f), 0);
	ATF_CHECK_EQ(audit_match("{\"time\":5}", &f), 0);
}

ATF_TC_WITHOUT_HEAD(text);
ATF_TC_BODY(text, tc)
{
	char	buf[AUDIT_LINE_MAX];

	ATF_REQUIRE(audit_text("{\"time\":\"2026-01-01T00:00:00Z\","
	    "\"actor\":\"uid:1000\",\"container\":\"jb-demo-main\","
	    "\"repo\":\"jb-demo\",\"action\":\"mount\",\"decision\":"
	    "\"refuse\",\"reason\":\"no such kind\",\"kind\":\"cache\","
	    "\"exit\":1}", buf, sizeof(buf)) > 0);
	ATF_CHECK_STREQ(buf, "2026-01-01T00:00:00Z uid:1000 mount "
	    "jb-demo-main refuse (no such kind) kind=cache exit=1");
	/* empty fields show as -, a line written by hand stays safe */
	ATF_REQUIRE(audit_text("{\"time\":\"t\",\"actor\":\"\",\"action\":"
	    "\"a\\u001b[2J\",\"decision\":\"accept\",\"x\\u0007\":\"\\u009b\"}",
	    buf, sizeof(buf)) > 0);
	ATF_CHECK_STREQ(buf, "t - a?[2J - accept x?=??");
	ATF_CHECK_EQ(audit_text("nope", buf, sizeof(buf)), -1);
	ATF_CHECK_EQ(audit_text("{\"time\":\"t\"}", buf, 4), -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, schema);
	ATF_TP_ADD_TC(tp, hostile);
	ATF_TP_ADD_TC(tp, filters);
	ATF_TP_ADD_TC(tp, text);
	return atf_no_error();
}
