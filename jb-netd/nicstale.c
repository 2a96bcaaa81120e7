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
 * A leftover host interface under a new container's NIC name, found and
 * removed over the kernel's routing netlink socket: one RTM_GETLINK of
 * the name, and an RTM_DELLINK of its index when it is a veth whose peer
 * is on the host too.  A running container's veth has its peer in the
 * container's namespace, which the kernel says (IFLA_LINK_NETNSID); a
 * new container's own is made by Incus only once jb-netd has opened its
 * start gate, after this.
 */

#include <sys/socket.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nicname.h"
#include "nicstale.h"

#define NICSTALE_BUF	8192

/*
 * The attribute of type in [p, p + len): its payload and *plen, or NULL.
 * Headers are copied out: what the kernel (or a fuzzer) gives need not be
 * aligned for them.
 */
static const unsigned char *
attr_find(const unsigned char *p, size_t len, uint16_t type, size_t *plen)
{
	struct nlattr	a;
	size_t		step;

	while (len >= NLA_HDRLEN) {
		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return NULL;
		if ((a.nla_type & NLA_TYPE_MASK) == type) {
			*plen = a.nla_len - NLA_HDRLEN;
			return p + NLA_HDRLEN;
		}
		step = NLA_ALIGN((size_t)a.nla_len);
		if (step >= len)
			break;
		len -= step;
		p += step;
	}
	return NULL;
}

/* is the kind in IFLA_LINKINFO's payload [p, p + len) "veth"? */
static int
is_veth(const unsigned char *p, size_t len)
{
	const unsigned char	*k;
	size_t			 n;

	if ((k = attr_find(p, len, IFLA_INFO_KIND, &n)) == NULL)
		return 0;
	/* "veth", with or without its NUL */
	return (n == 4 || (n == 5 && k[4] == '\0')) &&
	    memcmp(k, "veth", 4) == 0;
}

/*
 * The next message of request seq in [*p, *p + *len): its header into h,
 * its payload's start returned, *p and *len past it; NULL at the end or
 * at a message that does not fit.
 */
static const unsigned char *
msg_next(const unsigned char **p, size_t *len, uint32_t seq,
    struct nlmsghdr *h)
{
	const unsigned char	*m;
	size_t			 step;

	while (*len >= NLMSG_HDRLEN) {
		memcpy(h, *p, sizeof(*h));
		if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > *len)
			return NULL;
		m = *p;
		step = NLMSG_ALIGN((size_t)h->nlmsg_len);
		if (step > *len)
			step = *len;
		*p += step;
		*len -= step;
		if (h->nlmsg_seq == seq)
			return m + NLMSG_HDRLEN;
	}
	return NULL;
}

int
nicstale_parse(const void *buf, size_t len, uint32_t seq, int *index,
    char *err, size_t errlen)
{
	const unsigned char	*p = buf, *d, *li;
	struct nlmsghdr		 h;
	struct nlmsgerr		 e;
	struct ifinfomsg	 ifi;
	size_t			 alen, lilen, n;

	while ((d = msg_next(&p, &len, seq, &h)) != NULL) {
		if (h.nlmsg_type == NLMSG_ERROR) {
			if (h.nlmsg_len < NLMSG_LENGTH(sizeof(e))) {
				(void)snprintf(err, errlen, "a short netlink "
				    "error");
				return -1;
			}
			memcpy(&e, d, sizeof(e));
			if (e.error == -ENODEV)
				return NICSTALE_NONE;
			(void)snprintf(err, errlen, "the kernel: %s",
			    e.error == 0 ? "an acknowledgement, no link" :
			    strerror(-e.error));
			return -1;
		}
		if (h.nlmsg_type != RTM_NEWLINK)
			continue;
		if (h.nlmsg_len < NLMSG_LENGTH(NLMSG_ALIGN(sizeof(ifi)))) {
			(void)snprintf(err, errlen, "a short netlink link");
			return -1;
		}
		memcpy(&ifi, d, sizeof(ifi));
		d += NLMSG_ALIGN(sizeof(ifi));
		alen = h.nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(ifi)));
		li = attr_find(d, alen, IFLA_LINKINFO, &lilen);
		if (li == NULL || !is_veth(li, lilen) ||
		    attr_find(d, alen, IFLA_LINK_NETNSID, &n) != NULL)
			return NICSTALE_LIVE;
		*index = ifi.ifi_index;
		return NICSTALE_LEFT;
	}
	(void)snprintf(err, errlen, "no answer to the netlink request");
	return -1;
}

/* the acknowledgement of request seq (an error message of error 0) */
static int
acked(const void *buf, size_t len, uint32_t seq, char *err, size_t errlen)
{
	const unsigned char	*p = buf, *d;
	struct nlmsghdr		 h;
	struct nlmsgerr		 e;

	while ((d = msg_next(&p, &len, seq, &h)) != NULL) {
		if (h.nlmsg_type != NLMSG_ERROR)
			continue;
		if (h.nlmsg_len < NLMSG_LENGTH(sizeof(e)))
			break;
		memcpy(&e, d, sizeof(e));
		/* gone in between is what was wanted */
		if (e.error == 0 || e.error == -ENODEV)
			return 0;
		(void)snprintf(err, errlen, "the kernel: %s",
		    strerror(-e.error));
		return -1;
	}
	(void)snprintf(err, errlen, "no acknowledgement of the netlink "
	    "request");
	return -1;
}

/* one request on s, its answer into buf: its length, or -1 */
static ssize_t
ask(int s, const void *req, size_t len, void *buf, char *err,
    size_t errlen)
{
	struct sockaddr_nl	sa;
	ssize_t			n;

	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (sendto(s, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) !=
	    (ssize_t)len) {
		(void)snprintf(err, errlen, "netlink send: %s",
		    strerror(errno));
		return -1;
	}
	do
		n = recv(s, buf, NICSTALE_BUF, 0);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		(void)snprintf(err, errlen, "netlink receive: %s",
		    n == 0 ? "closed" : strerror(errno));
	return n <= 0 ? -1 : n;
}

int
nicstale_drop(uint32_t addr, char *err, size_t errlen)
{
	struct {
		struct nlmsghdr		h;
		struct ifinfomsg	ifi;
		unsigned char		attrs[64];
	}			 req;
	struct nlattr		 a;
	unsigned char		 buf[NICSTALE_BUF];
	char			 name[JB_NIC_IFNAME_LEN];
	uint32_t		 seq = (uint32_t)time(NULL);
	ssize_t			 n;
	size_t			 nlen;
	int			 s, rc, index = 0;

	jb_nic_ifname(addr, name, sizeof(name));
	nlen = strlen(name) + 1;
	if ((s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_ROUTE)) == -1) {
		(void)snprintf(err, errlen, "netlink socket: %s",
		    strerror(errno));
		return -1;
	}
	memset(&req, 0, sizeof(req));
	a.nla_len = (uint16_t)(NLA_HDRLEN + nlen);
	a.nla_type = IFLA_IFNAME;
	memcpy(req.attrs, &a, sizeof(a));
	memcpy(req.attrs + NLA_HDRLEN, name, nlen);
	req.h.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(req.ifi)) +
	    NLA_ALIGN(a.nla_len));
	req.h.nlmsg_type = RTM_GETLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = seq;
	req.ifi.ifi_family = AF_UNSPEC;
	if ((n = ask(s, &req, req.h.nlmsg_len, buf, err, errlen)) == -1 ||
	    (rc = nicstale_parse(buf, (size_t)n, seq, &index, err,
	    errlen)) == -1) {
		close(s);
		return -1;
	}
	if (rc != NICSTALE_LEFT) {
		close(s);
		return 0;
	}
	/* by its index: the one just seen, not a later one of that name */
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.h.nlmsg_type = RTM_DELLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.h.nlmsg_seq = ++seq;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = index;
	if ((n = ask(s, &req, req.h.nlmsg_len, buf, err, errlen)) == -1) {
		close(s);
		return -1;
	}
	close(s);
	return acked(buf, (size_t)n, seq, err, errlen) == -1 ? -1 : 1;
}
