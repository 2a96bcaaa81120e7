/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* the cluster mailbox: its ids, requests and answers */

#include <stdint.h>
#include <string.h>

#include <atf-c.h>

#include "membox.h"

ATF_TC_WITHOUT_HEAD(ids);
ATF_TC_BODY(ids, tc)
{
	char	id[96], asker[64];
	int64_t	t = 0;

	ATF_REQUIRE(membox_id(id, sizeof(id), "m1", 1700000000, 7) == 0);
	ATF_CHECK_STREQ(id, "m1.1700000000.7");
	ATF_REQUIRE(membox_id_parse(id, asker, sizeof(asker), &t) == 0);
	ATF_CHECK_STREQ(asker, "m1");
	ATF_CHECK_EQ(t, 1700000000);
	/* a member's name is a host name: nothing to split a key on */
	ATF_CHECK(membox_id(id, sizeof(id), "m.1", 1, 1) == -1);
	ATF_CHECK(membox_id(id, sizeof(id), "", 1, 1) == -1);
	ATF_CHECK(membox_id(id, 8, "m1", 1700000000, 7) == -1);
	ATF_CHECK(membox_id_parse("m1.17x.7", asker, sizeof(asker), &t) == -1);
	ATF_CHECK(membox_id_parse("m1.17", asker, sizeof(asker), &t) == -1);
	ATF_CHECK(membox_id_parse(".17.7", asker, sizeof(asker), &t) == -1);
	ATF_CHECK(membox_id_parse("m/1.17.7", asker, sizeof(asker), &t) ==
	    -1);
	ATF_CHECK(membox_id_parse("m1.17.7.8", asker, sizeof(asker), &t) ==
	    -1);
	ATF_CHECK(membox_id_parse("m1.1999999999999999999.7", asker,
	    sizeof(asker), &t) == -1);
}

ATF_TC_WITHOUT_HEAD(asks);
ATF_TC_BODY(asks, tc)
{
	char	v[128], name[64], since[MEMBOX_SINCE_MAX];
	int	verb = 0;

	ATF_REQUIRE(membox_ask_format(v, sizeof(v), MEMBOX_LOG, "p-feat",
	    "10m") == 0);
	ATF_CHECK_STREQ(v, "log p-feat 10m");
	ATF_REQUIRE(membox_ask_parse(v, &verb, name, sizeof(name), since,
	    sizeof(since)) == 0);
	ATF_CHECK_EQ(verb, MEMBOX_LOG);
	ATF_CHECK_STREQ(name, "p-feat");
	ATF_CHECK_STREQ(since, "10m");
	ATF_REQUIRE(membox_ask_format(v, sizeof(v), MEMBOX_REFRESH, "p-feat",
	    "") == 0);
	ATF_CHECK_STREQ(v, "refresh p-feat");
	ATF_REQUIRE(membox_ask_parse(v, &verb, name, sizeof(name), since,
	    sizeof(since)) == 0);
	ATF_CHECK_EQ(verb, MEMBOX_REFRESH);
	ATF_CHECK_STREQ(since, "");
	ATF_CHECK(membox_ask_format(v, sizeof(v), 9, "p-feat", "") == -1);
	ATF_CHECK(membox_ask_format(v, sizeof(v), MEMBOX_LOG, "p feat", "") ==
	    -1);
	ATF_CHECK(membox_ask_format(v, sizeof(v), MEMBOX_LOG, "p", "1;x") ==
	    -1);
	ATF_CHECK(membox_ask_parse("strict p-feat", &verb, name, sizeof(name),
	    since, sizeof(since)) == -1);
	ATF_CHECK(membox_ask_parse("log", &verb, name, sizeof(name), since,
	    sizeof(since)) == -1);
	ATF_CHECK(membox_ask_parse("log p-feat ", &verb, name, sizeof(name),
	    since, sizeof(since)) == -1);
	ATF_CHECK(membox_ask_parse("log ../x", &verb, name, sizeof(name),
	    since, sizeof(since)) == -1);
	ATF_CHECK(membox_ask_parse("log p-feat 1m 2m", &verb, name,
	    sizeof(name), since, sizeof(since)) == -1);
}

ATF_TC_WITHOUT_HEAD(answers_round_trip);
ATF_TC_BODY(answers_round_trip, tc)
{
	static struct membox_out	o;
	struct jb_ctl_text		t;
	struct jb_net_block		b;
	struct jb_net_resolved		r;
	static struct jb_output		out;
	struct membox_rec		rec;
	size_t				pos = 0;

	memset(&o, 0, sizeof(o));
	memset(&t, 0, sizeof(t));
	/* a container's bytes: an escape, a tab, a newline, a % */
	strlcpy(t.text, "p-feat: \033]0;x\a\tline\n100%", sizeof(t.text));
	ATF_REQUIRE(membox_put(&o, IMSG_CTL_PROGRESS, &t, sizeof(t), 0) == 0);
	memset(&b, 0, sizeof(b));
	strlcpy(b.name, "p-feat", sizeof(b.name));
	strlcpy(b.kind, "conn", sizeof(b.kind));
	strlcpy(b.what, "10.1.2.3:8081/tcp", sizeof(b.what));
	b.count = 3;
	b.first = 1700000000;
	b.last = 1700000060;
	ATF_REQUIRE(membox_put(&o, IMSG_CTL_NET_BLOCK, &b, sizeof(b), 0) == 0);
	memset(&r, 0, sizeof(r));
	strlcpy(r.name, "p-feat", sizeof(r.name));
	strlcpy(r.host, "www.test", sizeof(r.host));
	r.answered = 1;
	r.pooled = 2;
	ATF_REQUIRE(membox_put(&o, IMSG_CTL_NET_RESOLVED, &r, sizeof(r), 0) ==
	    0);
	memset(&out, 0, sizeof(out));
	out.which = 1;
	out.len = 5;
	memcpy(out.data, "a\0b\nc", 5);
	ATF_REQUIRE(membox_put(&o, IMSG_CTL_OUTPUT, &out, sizeof(out), 0) ==
	    0);
	ATF_REQUIRE(membox_put(&o, IMSG_CTL_END, NULL, 0, 0) == 0);
	/* nothing raw: one line a record, printable ASCII */
	ATF_CHECK(strchr(o.buf, '\033') == NULL);
	ATF_CHECK_EQ(o.len, strlen(o.buf));

	ATF_REQUIRE_EQ(membox_next(o.buf, &pos, &rec), 1);
	ATF_CHECK_EQ(rec.type, IMSG_CTL_PROGRESS);
	ATF_CHECK_STREQ(rec.u.text.text, t.text);
	ATF_REQUIRE_EQ(membox_next(o.buf, &pos, &rec), 1);
	ATF_CHECK_EQ(rec.type, IMSG_CTL_NET_BLOCK);
	ATF_CHECK(memcmp(&rec.u.block, &b, sizeof(b)) == 0);
	ATF_REQUIRE_EQ(membox_next(o.buf, &pos, &rec), 1);
	ATF_CHECK_EQ(rec.type, IMSG_CTL_NET_RESOLVED);
	ATF_CHECK(memcmp(&rec.u.resolved, &r, sizeof(r)) == 0);
	ATF_REQUIRE_EQ(membox_next(o.buf, &pos, &rec), 1);
	ATF_CHECK_EQ(rec.type, IMSG_CTL_OUTPUT);
	ATF_CHECK_EQ(rec.u.output.len, 5);
	ATF_CHECK(memcmp(rec.u.output.data, "a\0b\nc", 5) == 0);
	ATF_REQUIRE_EQ(membox_next(o.buf, &pos, &rec), 1);
	ATF_CHECK_EQ(rec.type, IMSG_CTL_END);
	ATF_CHECK_EQ(membox_next(o.buf, &pos, &rec), 0);
}

ATF_TC_WITHOUT_HEAD(answers_malformed);
ATF_TC_BODY(answers_malformed, tc)
{
	struct membox_rec	rec;
	size_t			pos;
	const char		*bad[] = {
		"p\tno newline",
		"x\tunknown tag\n",
		"p\traw \033 byte\n",
		"p\tbad %1\n",
		"p\tbad %zz\n",
		"p\ta NUL %00 inside\n",
		"p\ttwo\tfields\n",
		"b\tp-feat\tconn\t1.2.3.4:1/tcp\t-1\t0\t0\t\n",
		"b\t../x\tconn\tw\t1\t0\t0\t\n",
		"b\tp-feat\tconn\tw\t1\t0\t0\n",
		"r\tp-feat\twww.test\t2\t0\n",
		"o\t3\tdata\n",
		"z\textra\n",
	};
	size_t			i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pos = 0;
		ATF_CHECK_MSG(membox_next(bad[i], &pos, &rec) == -1, "%s",
		    bad[i]);
	}
}

ATF_TC_WITHOUT_HEAD(answers_bounded);
ATF_TC_BODY(answers_bounded, tc)
{
	static struct membox_out	o;
	struct jb_ctl_text		t;
	int				i, n = 0;

	memset(&o, 0, sizeof(o));
	memset(&t, 'x', sizeof(t.text) - 1);
	t.text[sizeof(t.text) - 1] = '\0';
	for (i = 0; i < 20; i++)
		if (membox_put(&o, IMSG_CTL_PROGRESS, &t, sizeof(t), 256) == 0)
			n++;
	/* what did not fit is counted, and room is left for the end */
	ATF_CHECK(n > 0 && n < 20);
	ATF_CHECK_EQ(o.dropped, (size_t)(20 - n));
	ATF_CHECK(o.len + 256 < sizeof(o.buf));
	ATF_CHECK(membox_put(&o, IMSG_CTL_END, NULL, 0, 0) == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ids);
	ATF_TP_ADD_TC(tp, asks);
	ATF_TP_ADD_TC(tp, answers_round_trip);
	ATF_TP_ADD_TC(tp, answers_malformed);
	ATF_TP_ADD_TC(tp, answers_bounded);
	return atf_no_error();
}
