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
 * The kernel's answer to RTM_GETLINK of one name (nicstale.c), built
 * here byte for byte as rtnetlink sends it: a veth whose peer is on the
 * host is a leftover, one whose peer is in a container's namespace, or
 * any other kind, is not; no such interface, the kernel's other errors
 * and an answer to another request, each with its reason.
 */

#include <sys/socket.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <errno.h>
#include <string.h>

#include <atf-c.h>

#include "nicstale.h"
#include "nlbuf.h"

#define SEQ	777

/* an RTM_NEWLINK of index 42, kind (NULL: none), netnsid or -1 */
static size_t
link_msg(unsigned char *out, uint32_t seq, const char *kind, int nsid)
{
	struct nlmsghdr		h;
	struct ifinfomsg	ifi;
	struct mb		m;
	uint32_t		mtu = 1500;

	memset(&m, 0, sizeof(m));
	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	ifi.ifi_index = 42;
	put(&m, IFLA_IFNAME, "jbc0ad50002", 12);
	put(&m, IFLA_MTU, &mtu, sizeof(mtu));
	if (kind != NULL) {
		open_nest(&m, IFLA_LINKINFO);
		put(&m, IFLA_INFO_KIND, kind, strlen(kind) + 1);
		close_nest(&m);
	}
	if (nsid >= 0)
		put(&m, IFLA_LINK_NETNSID, &nsid, sizeof(nsid));
	memset(&h, 0, sizeof(h));
	h.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(ifi)) + m.len);
	h.nlmsg_type = RTM_NEWLINK;
	h.nlmsg_seq = seq;
	memcpy(out, &h, sizeof(h));
	memcpy(out + NLMSG_HDRLEN, &ifi, sizeof(ifi));
	memcpy(out + NLMSG_LENGTH(sizeof(ifi)), m.b, m.len);
	return h.nlmsg_len;
}

static size_t
error_msg(unsigned char *out, uint32_t seq, int error)
{
	struct nlmsghdr	h;
	struct nlmsgerr	e;

	memset(&h, 0, sizeof(h));
	memset(&e, 0, sizeof(e));
	h.nlmsg_len = NLMSG_LENGTH(sizeof(e));
	h.nlmsg_type = NLMSG_ERROR;
	h.nlmsg_seq = seq;
	e.error = error;
	memcpy(out, &h, sizeof(h));
	memcpy(out + NLMSG_HDRLEN, &e, sizeof(e));
	return h.nlmsg_len;
}

ATF_TC_WITHOUT_HEAD(leftover);
ATF_TC_BODY(leftover, tc)
{
	unsigned char	b[8192 + 64];
	char		err[256];
	size_t		n;
	int		index = 0;

	n = link_msg(b, SEQ, "veth", -1);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)),
	    NICSTALE_LEFT);
	ATF_CHECK_EQ(index, 42);
}

ATF_TC_WITHOUT_HEAD(not_leftovers);
ATF_TC_BODY(not_leftovers, tc)
{
	unsigned char	b[8192 + 64];
	char		err[256];
	size_t		n;
	int		index = 0;

	/* a running container's: its peer is in the container's netns */
	n = link_msg(b, SEQ, "veth", 3);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)),
	    NICSTALE_LIVE);
	/* not a veth, or of no kind said */
	n = link_msg(b, SEQ, "bridge", -1);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)),
	    NICSTALE_LIVE);
	n = link_msg(b, SEQ, "vethx", -1);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)),
	    NICSTALE_LIVE);
	n = link_msg(b, SEQ, NULL, -1);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)),
	    NICSTALE_LIVE);
	ATF_CHECK_EQ(index, 0);
	/* none of that name */
	n = error_msg(b, SEQ, -ENODEV);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)),
	    NICSTALE_NONE);
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	unsigned char	b[8192 + 64];
	char		err[256];
	size_t		n;
	int		index = 0;

	n = error_msg(b, SEQ, -EPERM);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)), -1);
	ATF_CHECK_STREQ(err, "the kernel: Operation not permitted");
	/* the answer to another request is not this one's */
	n = link_msg(b, SEQ + 1, "veth", -1);
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)), -1);
	ATF_CHECK_STREQ(err, "no answer to the netlink request");
	/* cut short: the link's header is not all there */
	n = link_msg(b, SEQ, "veth", -1);
	((struct nlmsghdr *)(void *)b)->nlmsg_len = NLMSG_HDRLEN + 4;
	ATF_CHECK_EQ(nicstale_parse(b, n, SEQ, &index, err, sizeof(err)), -1);
	ATF_CHECK_STREQ(err, "a short netlink link");
	ATF_CHECK_EQ(index, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, leftover);
	ATF_TP_ADD_TC(tp, not_leftovers);
	ATF_TP_ADD_TC(tp, refused);
	return atf_no_error();
}
