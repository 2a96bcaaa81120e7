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
 * A set of refused flows as the kernel dumps it over netlink (nlset.c):
 * messages built here byte for byte as nf_tables sends them, the
 * elements read from them, the kernel's error and a broken message
 * refused with their reasons, and the bound on how many are kept.
 */

#include <sys/socket.h>

#include <arpa/inet.h>

#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "nlbuf.h"
#include "nlset.h"

#define SEQ	4242

static void
put_be64(struct mb *m, uint16_t type, uint64_t v)
{
	v = htobe64(v);
	put(m, type, &v, sizeof(v));
}

static size_t
msg_begin(struct mb *m, uint16_t type)
{
	struct nlmsghdr	h;
	struct nfgenmsg	g;
	size_t		at = m->len;

	memset(&h, 0, sizeof(h));
	h.nlmsg_type = type;
	h.nlmsg_seq = SEQ;
	memcpy(m->b + m->len, &h, sizeof(h));
	m->len += NLMSG_HDRLEN;
	if (type == (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSETELEM)) {
		memset(&g, 0, sizeof(g));
		g.nfgen_family = NFPROTO_INET;
		memcpy(m->b + m->len, &g, sizeof(g));
		m->len += NLMSG_ALIGN(sizeof(g));
	}
	return at;
}

static void
msg_end(struct mb *m, size_t at)
{
	struct nlmsghdr	h;

	memcpy(&h, m->b + at, sizeof(h));
	h.nlmsg_len = (uint32_t)(m->len - at);
	memcpy(m->b + at, &h, sizeof(h));
}

/* one element: src . dst . proto . port, its counter and expiration */
static void
elem(struct mb *m, const char *src, const char *dst, uint8_t proto,
    uint16_t port, uint64_t packets, uint64_t expires_ms, int listed)
{
	unsigned char	key[16];

	memset(key, 0, sizeof(key));
	(void)inet_pton(AF_INET, src, key);
	(void)inet_pton(AF_INET, dst, key + 4);
	key[8] = proto;
	key[12] = port >> 8;
	key[13] = port & 0xff;
	open_nest(m, NFTA_LIST_ELEM);
	open_nest(m, NFTA_SET_ELEM_KEY);
	put(m, NFTA_DATA_VALUE, key, sizeof(key));
	close_nest(m);
	put_be64(m, NFTA_SET_ELEM_TIMEOUT, 600000);
	put_be64(m, NFTA_SET_ELEM_EXPIRATION, expires_ms);
	/* older kernels: one expression; newer: a list of them */
	if (listed) {
		open_nest(m, NFTA_SET_ELEM_EXPRESSIONS);
		open_nest(m, NFTA_LIST_ELEM);
	} else
		open_nest(m, NFTA_SET_ELEM_EXPR);
	put(m, NFTA_EXPR_NAME, "counter", 8);
	open_nest(m, NFTA_EXPR_DATA);
	put_be64(m, NFTA_COUNTER_BYTES, packets * 60);
	put_be64(m, NFTA_COUNTER_PACKETS, packets);
	close_nest(m);
	close_nest(m);
	if (listed)
		close_nest(m);
	close_nest(m);
}

static void
dump(struct mb *m)
{
	size_t	at;

	memset(m, 0, sizeof(*m));
	at = msg_begin(m, NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSETELEM);
	put(m, NFTA_SET_ELEM_LIST_TABLE, "jailbee", 8);
	put(m, NFTA_SET_ELEM_LIST_SET, "refused0", 9);
	open_nest(m, NFTA_SET_ELEM_LIST_ELEMENTS);
	elem(m, "10.20.0.5", "198.18.0.7", 6, 8080, 3, 590500, 0);
	elem(m, "10.20.0.6", "198.18.0.8", 1, 0, 9, 1000, 0);	/* icmp */
	elem(m, "10.20.0.6", "9.9.9.9", 17, 53, 12, 42000, 1);
	close_nest(m);
	msg_end(m, at);
	at = msg_begin(m, NLMSG_DONE);
	m->len += 4;
	msg_end(m, at);
}

/* one element of set allowany: src . dst, any protocol, no counter */
static void
elem_addrs(struct mb *m, const char *src, const char *dst)
{
	unsigned char	key[8];

	(void)inet_pton(AF_INET, src, key);
	(void)inet_pton(AF_INET, dst, key + 4);
	open_nest(m, NFTA_LIST_ELEM);
	open_nest(m, NFTA_SET_ELEM_KEY);
	put(m, NFTA_DATA_VALUE, key, sizeof(key));
	close_nest(m);
	put_be64(m, NFTA_SET_ELEM_TIMEOUT, 600000);
	put_be64(m, NFTA_SET_ELEM_EXPIRATION, 7000);
	close_nest(m);
}

static void
dump_init(struct nlset_dump *d, struct refused_elem *v, size_t max)
{
	memset(d, 0, sizeof(*d));
	d->v = v;
	d->max = max;
	d->seq = SEQ;
}

ATF_TC_WITHOUT_HEAD(elements);
ATF_TC_BODY(elements, tc)
{
	struct mb		 m;
	struct nlset_dump	 d;
	struct refused_elem	 v[8];
	char			 err[256] = "";

	dump(&m);
	dump_init(&d, v, 8);
	ATF_REQUIRE_MSG(nlset_parse(&d, m.b, m.len, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_CHECK(d.done);
	ATF_REQUIRE_EQ(d.n, 2);		/* the icmp one is not counted */
	ATF_CHECK_EQ(v[0].src, 0x0a140005);
	ATF_CHECK_EQ(v[0].dst, 0xc6120007);
	ATF_CHECK_EQ(v[0].proto, EGRESS_PROTO_TCP);
	ATF_CHECK_EQ(v[0].port, 8080);
	ATF_CHECK_EQ(v[0].packets, 3);
	ATF_CHECK_EQ(v[0].expires, 590);
	ATF_CHECK_EQ(v[1].proto, EGRESS_PROTO_UDP);
	ATF_CHECK_EQ(v[1].dst, 0x09090909);
	ATF_CHECK_EQ(v[1].port, 53);
	ATF_CHECK_EQ(v[1].packets, 12);
	ATF_CHECK_EQ(v[1].expires, 42);
}

/* messages of another request are not ours; no more than max are kept */
ATF_TC_WITHOUT_HEAD(bounded);
ATF_TC_BODY(bounded, tc)
{
	struct mb		 m;
	struct nlset_dump	 d;
	struct refused_elem	 v[1];
	char			 err[256] = "";

	dump(&m);
	dump_init(&d, v, 1);
	ATF_REQUIRE(nlset_parse(&d, m.b, m.len, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(d.n, 1);
	ATF_CHECK(d.done);
	dump_init(&d, v, 1);
	d.seq = SEQ + 1;
	ATF_REQUIRE(nlset_parse(&d, m.b, m.len, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(d.n, 0);
	ATF_CHECK(!d.done);
}

/*
 * What the resolver admitted: allowany's key of two addresses is any
 * protocol; a dump read whole grows its array as the elements come
 */
ATF_TC_WITHOUT_HEAD(admitted_whole);
ATF_TC_BODY(admitted_whole, tc)
{
	struct mb		 m;
	struct nlset_dump	 d;
	char			 err[256] = "";
	size_t			 at, i;

	memset(&m, 0, sizeof(m));
	at = msg_begin(&m, NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWSETELEM);
	put(&m, NFTA_SET_ELEM_LIST_TABLE, "jailbee", 8);
	put(&m, NFTA_SET_ELEM_LIST_SET, "allowany", 9);
	open_nest(&m, NFTA_SET_ELEM_LIST_ELEMENTS);
	for (i = 0; i < 70; i++)
		elem_addrs(&m, i % 2 ? "10.20.0.5" : "10.20.0.6",
		    "93.184.216.34");
	close_nest(&m);
	msg_end(&m, at);
	at = msg_begin(&m, NLMSG_DONE);
	m.len += 4;
	msg_end(&m, at);

	memset(&d, 0, sizeof(d));
	d.max = 2;
	d.grow = 1;
	d.seq = SEQ;
	ATF_REQUIRE((d.v = calloc(d.max, sizeof(*d.v))) != NULL);
	ATF_REQUIRE_MSG(nlset_parse(&d, m.b, m.len, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_CHECK(d.done);
	ATF_REQUIRE_EQ(d.n, 70);
	ATF_CHECK(d.max >= 70);
	ATF_CHECK_EQ(d.v[1].src, 0x0a140005);
	ATF_CHECK_EQ(d.v[69].dst, 0x5db8d822);
	ATF_CHECK_EQ(d.v[69].proto, EGRESS_PROTO_ANY);
	ATF_CHECK_EQ(d.v[69].port, 0);
	ATF_CHECK_EQ(d.v[69].expires, 7);

	/* a dump it cannot hold is an error that says so */
	d.n = d.max = NLSET_GROW_MAX / 2 + 1;
	d.done = 0;
	ATF_CHECK(nlset_parse(&d, m.b, m.len, err, sizeof(err)) == -1);
	ATF_CHECK(d.toobig);
	ATF_CHECK_MSG(strstr(err, "more than 2097153 elements") != NULL,
	    "%s", err);
	free(d.v);
}

ATF_TC_WITHOUT_HEAD(refusals);
ATF_TC_BODY(refusals, tc)
{
	struct mb		 m;
	struct nlset_dump	 d;
	struct refused_elem	 v[4];
	struct nlmsgerr		 e;
	char			 err[256] = "";
	size_t			 at, cut;

	/* the kernel's error, in its words */
	memset(&m, 0, sizeof(m));
	at = msg_begin(&m, NLMSG_ERROR);
	memset(&e, 0, sizeof(e));
	e.error = -ENOENT;
	memcpy(m.b + m.len, &e, sizeof(e));
	m.len += sizeof(e);
	msg_end(&m, at);
	dump_init(&d, v, 4);
	ATF_CHECK(nlset_parse(&d, m.b, m.len, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "the kernel said: No such file or "
	    "directory") != NULL, "%s", err);

	/* a message cut inside an element, its length patched to fit */
	dump(&m);
	for (cut = 40; cut < 200; cut += 7) {
		struct nlmsghdr	h;
		struct mb	c;

		memcpy(&c, &m, sizeof(c));
		memcpy(&h, c.b, sizeof(h));
		h.nlmsg_len = (uint32_t)cut;
		memcpy(c.b, &h, sizeof(h));
		dump_init(&d, v, 4);
		err[0] = '\0';
		if (nlset_parse(&d, c.b, cut, err, sizeof(err)) == -1)
			ATF_CHECK_MSG(strstr(err, "does not parse") != NULL,
			    "cut at %zu: %s", cut, err);
		ATF_CHECK(d.n <= 2);
	}
	/* a header longer than what was read */
	dump(&m);
	dump_init(&d, v, 4);
	ATF_CHECK(nlset_parse(&d, m.b, 20, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "does not parse") != NULL, "%s", err);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, elements);
	ATF_TP_ADD_TC(tp, bounded);
	ATF_TP_ADD_TC(tp, admitted_whole);
	ATF_TP_ADD_TC(tp, refusals);
	return atf_no_error();
}
