/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* jb-netd's DNS wire format: one query in, its answer out (dnswire.c) */

#include <arpa/inet.h>

#include <stdint.h>
#include <string.h>

#include <atf-c.h>

#include "dnswire.h"

/* www.test A IN, id 0xbeef, RD, with an EDNS OPT record after it */
static const uint8_t www_a[] = {
	0xbe, 0xef, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01,
	3, 'w', 'W', 'w', 4, 't', 'e', 's', 't', 0,
	0x00, 0x01, 0x00, 0x01,
	0x00, 0x00, 0x29, 0x04, 0xd0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static int
parse(const uint8_t *m, size_t len, struct dnswire_query *q)
{
	return dnswire_query_parse(m, len, q);
}

ATF_TC_WITHOUT_HEAD(query);
ATF_TC_BODY(query, tc)
{
	struct dnswire_query	q;

	ATF_REQUIRE_EQ(parse(www_a, sizeof(www_a), &q), DNSWIRE_NOERROR);
	ATF_CHECK_EQ(q.id, 0xbeef);
	ATF_CHECK_EQ(q.rd, 1);
	ATF_CHECK_EQ(q.opcode, 0);
	ATF_CHECK_EQ(q.qtype, DNSWIRE_TYPE_A);
	ATF_CHECK_EQ(q.qclass, DNSWIRE_CLASS_IN);
	/* case as asked: the policy folds it, the answer echoes it */
	ATF_CHECK_STREQ(q.name, "wWw.test");
	ATF_CHECK_EQ(q.questionlen, 14);
	ATF_CHECK(memcmp(q.question, www_a + 12, 14) == 0);
	/* no OPT record: the same question */
	ATF_REQUIRE_EQ(parse(www_a, 12 + 14, &q), DNSWIRE_NOERROR);
	ATF_CHECK_STREQ(q.name, "wWw.test");
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	struct dnswire_query	q;
	uint8_t			m[600];
	size_t			i, off;

	/* no header: nothing to answer */
	ATF_CHECK_EQ(parse(www_a, 11, &q), -1);
	ATF_CHECK_EQ(parse(www_a, 0, &q), -1);
	/* a header but the question cut anywhere: FORMERR, id kept */
	for (i = 12; i < 12 + 14; i++) {
		ATF_CHECK_EQ_MSG(parse(www_a, i, &q), DNSWIRE_FORMERR,
		    "cut at %zu", i);
		ATF_CHECK_EQ(q.id, 0xbeef);
		ATF_CHECK_EQ(q.questionlen, 0);
	}
	memcpy(m, www_a, sizeof(www_a));
	m[2] |= 0x80;		/* a response */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	memcpy(m, www_a, sizeof(www_a));
	m[2] = 0x10 | 0x01;	/* opcode 2, STATUS */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_NOTIMP);
	ATF_CHECK_EQ(q.opcode, 2);
	memcpy(m, www_a, sizeof(www_a));
	m[5] = 2;		/* two questions */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	m[5] = 0;		/* none */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	memcpy(m, www_a, sizeof(www_a));
	m[7] = 1;		/* an answer record in a query */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	memcpy(m, www_a, sizeof(www_a));
	m[12] = 0xc0;		/* a compression pointer */
	m[13] = 12;
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	memcpy(m, www_a, sizeof(www_a));
	m[14] = '.';		/* "w.w" as one label */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	m[14] = '\n';
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	m[14] = 0xc3;
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);
	memcpy(m, www_a, sizeof(www_a));
	m[12] = 0x40;		/* an extended label type */
	ATF_CHECK_EQ(parse(m, sizeof(www_a), &q), DNSWIRE_FORMERR);

	/* 255 bytes on the wire is the most: 4 x 63-byte labels is 257 */
	memcpy(m, www_a, 12);
	off = 12;
	for (i = 0; i < 4; i++) {
		m[off++] = 63;
		memset(m + off, 'a', 63);
		off += 63;
	}
	m[off++] = 0;
	memset(m + off, 0, 4);
	m[off + 1] = 1;
	m[off + 3] = 1;
	ATF_CHECK_EQ(parse(m, off + 4, &q), DNSWIRE_FORMERR);
	/* 3 x 63 + one of 61: 255 with the root, text 253 */
	off = 12 + 3 * 64;
	m[off] = 61;
	memset(m + off + 1, 'b', 61);
	off += 62;
	m[off++] = 0;
	memset(m + off, 0, 4);
	m[off + 1] = 1;
	m[off + 3] = 1;
	ATF_REQUIRE_EQ(parse(m, off + 4, &q), DNSWIRE_NOERROR);
	ATF_CHECK_EQ(strlen(q.name), DNSWIRE_TEXT_MAX);
	ATF_CHECK_EQ(q.questionlen, 255 + 4);
	/* one more byte in the last label is too many */
	m[12 + 3 * 64] = 62;
	ATF_CHECK_EQ(parse(m, off + 5, &q), DNSWIRE_FORMERR);
}

ATF_TC_WITHOUT_HEAD(answer);
ATF_TC_BODY(answer, tc)
{
	struct dnswire_query	q;
	uint8_t			out[DNSWIRE_ANSWER_MAX];
	uint32_t		a[2];
	int			n;

	ATF_REQUIRE_EQ(parse(www_a, sizeof(www_a), &q), DNSWIRE_NOERROR);
	a[0] = htonl(0xc6336410);	/* 198.51.100.16 */
	a[1] = htonl(0xc6336411);
	n = dnswire_answer(&q, DNSWIRE_NOERROR, a, 2, 62, out, sizeof(out));
	ATF_REQUIRE_EQ(n, 12 + 14 + 2 * 16);
	ATF_CHECK(out[0] == 0xbe && out[1] == 0xef);
	ATF_CHECK_EQ(out[2], 0x81);	/* QR, RD */
	ATF_CHECK_EQ(out[3], 0x80);	/* RA, NOERROR */
	ATF_CHECK(out[4] == 0 && out[5] == 1 && out[6] == 0 && out[7] == 2);
	ATF_CHECK(out[8] == 0 && out[9] == 0 && out[10] == 0 && out[11] == 0);
	ATF_CHECK(memcmp(out + 12, www_a + 12, 14) == 0);
	ATF_CHECK(memcmp(out + 26, "\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3e"
	    "\x00\x04\xc6\x33\x64\x10", 16) == 0);
	ATF_CHECK(memcmp(out + 42 + 12, "\xc6\x33\x64\x11", 4) == 0);
	/* the answer parses as no query: it is a response */
	ATF_CHECK_EQ(parse(out, (size_t)n, &q), DNSWIRE_FORMERR);

	ATF_REQUIRE_EQ(parse(www_a, sizeof(www_a), &q), DNSWIRE_NOERROR);
	/* NXDOMAIN carries no records whatever it is given */
	n = dnswire_answer(&q, DNSWIRE_NXDOMAIN, a, 2, 62, out, sizeof(out));
	ATF_REQUIRE_EQ(n, 12 + 14);
	ATF_CHECK_EQ(out[3], 0x83);
	ATF_CHECK(out[6] == 0 && out[7] == 0);
	/* too small a buffer, too many records */
	ATF_CHECK_EQ(dnswire_answer(&q, DNSWIRE_NOERROR, a, 2, 1, out, 57),
	    -1);
	ATF_CHECK_EQ(dnswire_answer(&q, DNSWIRE_NOERROR, a,
	    DNSWIRE_ANSWERS_MAX + 1, 1, out, sizeof(out)), -1);

	/* FORMERR of a cut question: the header alone, the id kept */
	ATF_REQUIRE_EQ(parse(www_a, 15, &q), DNSWIRE_FORMERR);
	n = dnswire_answer(&q, DNSWIRE_FORMERR, NULL, 0, 0, out, sizeof(out));
	ATF_REQUIRE_EQ(n, 12);
	ATF_CHECK(out[0] == 0xbe && out[1] == 0xef && out[3] == 0x81);
	ATF_CHECK(out[4] == 0 && out[5] == 0);
	/* and no record can hang off a question that is not there */
	ATF_CHECK_EQ(dnswire_answer(&q, DNSWIRE_NOERROR, a, 1, 1, out,
	    sizeof(out)), -1);
}

/* the query jb-netd sends upstream, its case mixed by random bits */
ATF_TC_WITHOUT_HEAD(ask);
ATF_TC_BODY(ask, tc)
{
	static const uint8_t want[] = {
		0xbe, 0xef, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
		3, 'w', 'W', 'w', 4, 't', 'E', 's', 'T', 0, 0, 1, 0, 1
	};
	uint8_t	out[DNSWIRE_HEADER + DNSWIRE_NAME_MAX + 4];
	char	name[32];
	uint8_t	rnd[1] = { 0xa2 };	/* bits 1, 5 and 7: W, E and T */
	char	big[300];

	(void)strlcpy(name, "WWW.test", sizeof(name));
	dnswire_mix_case(name, rnd, sizeof(rnd));
	ATF_CHECK_STREQ(name, "wWw.tEsT");
	ATF_REQUIRE_EQ(dnswire_ask(0xbeef, "wWw.tEsT", DNSWIRE_TYPE_A, out,
	    sizeof(out)), (int)sizeof(want));
	ATF_CHECK(memcmp(out, want, sizeof(want)) == 0);
	/* one trailing dot is the root */
	ATF_CHECK_EQ(dnswire_ask(0xbeef, "wWw.tEsT.", DNSWIRE_TYPE_A, out,
	    sizeof(out)), (int)sizeof(want));
	ATF_CHECK(memcmp(out, want, sizeof(want)) == 0);
	ATF_CHECK_EQ(dnswire_ask(1, "a..b", 1, out, sizeof(out)), -1);
	ATF_CHECK_EQ(dnswire_ask(1, ".", 1, out, sizeof(out)), -1);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ATF_CHECK_EQ(dnswire_ask(1, big, 1, out, sizeof(out)), -1);
	ATF_CHECK_EQ(dnswire_ask(1, "www.test", 1, out, 20), -1);
}

/* the reply to an asked query: any other is ignored, case included */
ATF_TC_WITHOUT_HEAD(reply);
ATF_TC_BODY(reply, tc)
{
	uint8_t		 ask[64], msg[256];
	uint32_t	 addrs[4], ttl;
	size_t		 len;
	int		 asklen, n;

	asklen = dnswire_ask(0x1234, "wWw.tEsT", DNSWIRE_TYPE_A, ask,
	    sizeof(ask));
	ATF_REQUIRE(asklen > 0);
	/* the reply: a CNAME, then two A records, compressed owners */
	memcpy(msg, ask, (size_t)asklen);
	msg[2] = 0x81;
	msg[3] = 0x80;
	msg[7] = 3;
	len = (size_t)asklen;
	{
		static const uint8_t rr[] = {
			0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 50, 0, 4,
			1, 'x', 0xc0, 16,
			0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4,
			198, 18, 1, 10,
			0xc0, 12, 0, 1, 0, 1, 0, 0, 1, 0, 0, 4,
			198, 18, 1, 11,
		};

		memcpy(msg + len, rr, sizeof(rr));
		len += sizeof(rr);
	}
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len, ask, (size_t)asklen,
	    addrs, 4, &n, &ttl), DNSWIRE_NOERROR);
	ATF_REQUIRE_EQ(n, 2);
	ATF_CHECK_EQ(addrs[0], htonl(0xc612010a));
	ATF_CHECK_EQ(addrs[1], htonl(0xc612010b));
	ATF_CHECK_EQ(ttl, 30);
	/* at most max records are taken */
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len, ask, (size_t)asklen,
	    addrs, 1, &n, &ttl), DNSWIRE_NOERROR);
	ATF_CHECK_EQ(n, 1);
	/* a record cut short: SERVFAIL, nothing taken */
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len - 2, ask, (size_t)asklen,
	    addrs, 4, &n, &ttl), DNSWIRE_SERVFAIL);
	/* the question in another case: not our reply */
	msg[DNSWIRE_HEADER + 2] = 'w';
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len, ask, (size_t)asklen,
	    addrs, 4, &n, &ttl), -1);
	ATF_CHECK_EQ(n, 0);
	msg[DNSWIRE_HEADER + 2] = 'W';
	/* another id */
	msg[1] = 0x35;
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len, ask, (size_t)asklen,
	    addrs, 4, &n, &ttl), -1);
	msg[1] = 0x34;
	/* a query, not a response */
	msg[2] = 0x01;
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len, ask, (size_t)asklen,
	    addrs, 4, &n, &ttl), -1);
	msg[2] = 0x81;
	/* shorter than the question */
	ATF_CHECK_EQ(dnswire_reply_parse(msg, (size_t)asklen - 1, ask,
	    (size_t)asklen, addrs, 4, &n, &ttl), -1);
	/* NXDOMAIN: the code, no address */
	msg[3] = 0x83;
	ATF_CHECK_EQ(dnswire_reply_parse(msg, len, ask, (size_t)asklen,
	    addrs, 4, &n, &ttl), DNSWIRE_NXDOMAIN);
	ATF_CHECK_EQ(n, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ask);
	ATF_TP_ADD_TC(tp, reply);
	ATF_TP_ADD_TC(tp, query);
	ATF_TP_ADD_TC(tp, refused);
	ATF_TP_ADD_TC(tp, answer);
	return atf_no_error();
}
