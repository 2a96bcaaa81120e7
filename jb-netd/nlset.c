/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
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
#include <time.h>
#include <unistd.h>

#include "nlset.h"

#define NLSET_BUF	32768		/* one read of the dump */
#define KEY_LEN		16		/* ipv4, ipv4, proto, port: 4 each */
#define KEY_LEN_ADDRS	8		/* ipv4, ipv4: any protocol */

/* an attribute inside [p, end): its payload, or NULL if malformed */
struct nla_it {
	const unsigned char	*p, *end;
};

static int
nla_next(struct nla_it *it, uint16_t *type, const unsigned char **pay,
    size_t *plen)
{
	struct nlattr	a;
	size_t		left = (size_t)(it->end - it->p), step;

	if (left == 0)
		return 0;
	if (left < NLA_HDRLEN)
		return -1;
	memcpy(&a, it->p, sizeof(a));
	if (a.nla_len < NLA_HDRLEN || a.nla_len > left)
		return -1;
	*type = a.nla_type & NLA_TYPE_MASK;
	*pay = it->p + NLA_HDRLEN;
	*plen = a.nla_len - NLA_HDRLEN;
	step = NLA_ALIGN(a.nla_len);
	it->p += step > left ? left : step;
	return 1;
}

static void
nla_init(struct nla_it *it, const unsigned char *p, size_t len)
{
	it->p = p;
	it->end = p + len;
}

static uint64_t
be64_at(const unsigned char *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* a counter expression's packets, if e is one */
static int
expr_packets(const unsigned char *e, size_t elen, uint64_t *packets)
{
	struct nla_it		 it, in;
	const unsigned char	*pay, *data = NULL;
	size_t			 plen, dlen = 0;
	uint16_t		 t;
	int			 r, counter = 0;

	nla_init(&it, e, elen);
	while ((r = nla_next(&it, &t, &pay, &plen)) == 1) {
		if (t == NFTA_EXPR_NAME)
			counter = plen >= 8 && memcmp(pay, "counter", 8) == 0;
		else if (t == NFTA_EXPR_DATA) {
			data = pay;
			dlen = plen;
		}
	}
	if (r == -1)
		return -1;
	if (!counter || data == NULL)
		return 0;
	nla_init(&in, data, dlen);
	while ((r = nla_next(&in, &t, &pay, &plen)) == 1)
		if (t == NFTA_COUNTER_PACKETS && plen == 8)
			*packets = be64_at(pay);
	return r;
}

static int
elem_parse(struct nlset_dump *d, const unsigned char *p, size_t len)
{
	struct nla_it		 it, in;
	struct refused_elem	 e;
	const unsigned char	*pay, *key = NULL;
	size_t			 plen, klen = 0;
	uint16_t		 t, t2;
	uint32_t		 a;
	int			 r;

	memset(&e, 0, sizeof(e));
	e.expires = -1;
	nla_init(&it, p, len);
	while ((r = nla_next(&it, &t, &pay, &plen)) == 1) {
		switch (t) {
		case NFTA_SET_ELEM_KEY:
			nla_init(&in, pay, plen);
			while ((r = nla_next(&in, &t2, &pay, &plen)) == 1)
				if (t2 == NFTA_DATA_VALUE && (plen == KEY_LEN
				    || plen == KEY_LEN_ADDRS)) {
					key = pay;
					klen = plen;
				}
			if (r == -1)
				return -1;
			break;
		case NFTA_SET_ELEM_EXPIRATION:
			if (plen != 8)
				return -1;
			e.expires = (int64_t)(be64_at(pay) / 1000);
			break;
		case NFTA_SET_ELEM_EXPR:
			if (expr_packets(pay, plen, &e.packets) == -1)
				return -1;
			break;
		case NFTA_SET_ELEM_EXPRESSIONS:
			nla_init(&in, pay, plen);
			while ((r = nla_next(&in, &t2, &pay, &plen)) == 1)
				if (t2 == NFTA_LIST_ELEM && expr_packets(pay,
				    plen, &e.packets) == -1)
					return -1;
			if (r == -1)
				return -1;
			break;
		}
	}
	if (r == -1 || key == NULL)
		return -1;
	if (klen == KEY_LEN_ADDRS)
		e.proto = EGRESS_PROTO_ANY;
	else switch (key[8]) {
	case 6:
		e.proto = EGRESS_PROTO_TCP;
		break;
	case 17:
		e.proto = EGRESS_PROTO_UDP;
		break;
	default:
		return 0;		/* not one a strict chain counts */
	}
	memcpy(&a, key, 4);
	e.src = ntohl(a);
	memcpy(&a, key + 4, 4);
	e.dst = ntohl(a);
	if (klen == KEY_LEN)
		e.port = (uint16_t)(key[12] << 8 | key[13]);
	if (d->grow && d->n == d->max) {
		struct refused_elem	*nv;
		size_t			 nmax = d->max * 2;

		if (nmax > NLSET_GROW_MAX || (nv = reallocarray(d->v, nmax,
		    sizeof(*nv))) == NULL) {
			d->toobig = 1;
			return -1;
		}
		d->v = nv;
		d->max = nmax;
	}
	if (d->n < d->max)
		d->v[d->n++] = e;
	return 0;
}

static int
msg_parse(struct nlset_dump *d, const unsigned char *p, size_t len)
{
	struct nla_it		 it, in;
	const unsigned char	*pay;
	size_t			 plen, elen;
	const unsigned char	*ep;
	uint16_t		 t, t2;
	int			 r;

	if (len < sizeof(struct nfgenmsg))
		return -1;
	nla_init(&it, p + NLMSG_ALIGN(sizeof(struct nfgenmsg)),
	    len - (len < NLMSG_ALIGN(sizeof(struct nfgenmsg)) ? len :
	    NLMSG_ALIGN(sizeof(struct nfgenmsg))));
	while ((r = nla_next(&it, &t, &pay, &plen)) == 1) {
		if (t != NFTA_SET_ELEM_LIST_ELEMENTS)
			continue;
		nla_init(&in, pay, plen);
		while ((r = nla_next(&in, &t2, &ep, &elen)) == 1)
			if (t2 == NFTA_LIST_ELEM && elem_parse(d, ep, elen) ==
			    -1)
				return -1;
		if (r == -1)
			return -1;
	}
	return r;
}

int
nlset_parse(struct nlset_dump *d, const void *buf, size_t len, char *err,
    size_t errlen)
{
	const unsigned char	*p = buf;
	struct nlmsghdr		 h;
	struct nlmsgerr		 e;
	size_t			 step;

	while (len > 0 && !d->done) {
		if (len < NLMSG_HDRLEN)
			goto bad;
		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len)
			goto bad;
		if (h.nlmsg_seq != d->seq)
			goto next;
		if (h.nlmsg_type == NLMSG_DONE)
			d->done = 1;
		else if (h.nlmsg_type == NLMSG_ERROR) {
			if (h.nlmsg_len < NLMSG_HDRLEN + sizeof(e))
				goto bad;
			memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
			if (e.error == 0) {
				d->done = 1;
				break;
			}
			(void)snprintf(err, errlen, "refused flows: the kernel "
			    "said: %s", strerror(e.error < 0 ? -e.error :
			    e.error));
			return -1;
		} else if (h.nlmsg_type == (NFNL_SUBSYS_NFTABLES << 8 |
		    NFT_MSG_NEWSETELEM) && msg_parse(d, p + NLMSG_HDRLEN,
		    h.nlmsg_len - NLMSG_HDRLEN) == -1)
			goto bad;
next:
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step > len)
			step = len;
		p += step;
		len -= step;
	}
	return 0;
bad:
	if (d->toobig)
		(void)snprintf(err, errlen, "refused flows: more than %zu "
		    "elements, or no memory for them", d->max);
	else
		(void)snprintf(err, errlen, "refused flows: a netlink message "
		    "that does not parse");
	return -1;
}

static size_t
put_attr(unsigned char *b, size_t off, uint16_t type, const char *s)
{
	struct nlattr	a;
	size_t		l = strlen(s) + 1;

	a.nla_len = (uint16_t)(NLA_HDRLEN + l);
	a.nla_type = type;
	memcpy(b + off, &a, sizeof(a));
	memcpy(b + off + NLA_HDRLEN, s, l);
	return off + NLA_ALIGN(a.nla_len);
}

int
nlset_read(const char *table, const char *set, size_t max,
    struct refused_elem **out, size_t *np, char *err, size_t errlen)
{
	struct nlset_dump	 d;
	struct sockaddr_nl	 sa;
	struct nlmsghdr		 h;
	struct nfgenmsg		 g;
	unsigned char		 req[256], *buf = NULL;
	size_t			 off;
	ssize_t			 n;
	int			 s = -1;

	*out = NULL;
	*np = 0;
	if (strlen(table) > 64 || strlen(set) > 64) {
		(void)snprintf(err, errlen, "set %.64s: name too long", set);
		return -1;
	}
	memset(&d, 0, sizeof(d));
	d.max = max > 0 ? max : 64;
	d.grow = max == 0;
	d.seq = (uint32_t)time(NULL);
	if ((d.v = calloc(d.max, sizeof(*d.v))) == NULL ||
	    (buf = malloc(NLSET_BUF)) == NULL) {
		(void)snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memset(req, 0, sizeof(req));
	off = NLMSG_HDRLEN;
	memset(&g, 0, sizeof(g));
	g.nfgen_family = NFPROTO_INET;
	g.version = NFNETLINK_V0;
	memcpy(req + off, &g, sizeof(g));
	off += NLMSG_ALIGN(sizeof(g));
	off = put_attr(req, off, NFTA_SET_ELEM_LIST_TABLE, table);
	off = put_attr(req, off, NFTA_SET_ELEM_LIST_SET, set);
	memset(&h, 0, sizeof(h));
	h.nlmsg_len = (uint32_t)off;
	h.nlmsg_type = NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETSETELEM;
	h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h.nlmsg_seq = d.seq;
	memcpy(req, &h, sizeof(h));

	if ((s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_NETFILTER)) == -1) {
		(void)snprintf(err, errlen, "set %s: netlink socket: %s",
		    set, strerror(errno));
		goto fail;
	}
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (sendto(s, req, off, 0, (struct sockaddr *)&sa, sizeof(sa)) !=
	    (ssize_t)off) {
		(void)snprintf(err, errlen, "set %s: netlink send: %s", set,
		    strerror(errno));
		goto fail;
	}
	/* a full d.v is all that is wanted: the rest of the dump is not read */
	while (!d.done && (d.grow || d.n < d.max)) {
		if ((n = recv(s, buf, NLSET_BUF, 0)) == -1) {
			if (errno == EINTR)
				continue;
			(void)snprintf(err, errlen, "set %s: netlink receive: "
			    "%s", set, strerror(errno));
			goto fail;
		}
		if (n == 0) {
			(void)snprintf(err, errlen, "set %s: the netlink "
			    "socket closed", set);
			goto fail;
		}
		if (nlset_parse(&d, buf, (size_t)n, err, errlen) == -1)
			goto fail;
	}
	close(s);
	free(buf);
	if (d.n == 0) {
		free(d.v);
		d.v = NULL;
	}
	*out = d.v;
	*np = d.n;
	return 0;
fail:
	if (s != -1)
		close(s);
	free(buf);
	free(d.v);
	return -1;
}
