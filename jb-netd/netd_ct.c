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
 * Cutting a container's established flows: its
 * conntrack entries are deleted, so the next packet of a loose-era
 * connection is no longer "established" and meets the strict chain.
 */

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "netd_ct.h"

struct collect {
	struct nf_conntrack	**v;
	size_t			  n, cap;
	uint32_t		  addr;		/* network order */
	int			  nomem;
};

static int
collect_cb(enum nf_conntrack_msg_type type, struct nf_conntrack *ct,
    void *arg)
{
	struct collect		*c = arg;
	struct nf_conntrack	**nv, *copy;

	if (nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC) != c->addr &&
	    nfct_get_attr_u32(ct, ATTR_REPL_IPV4_DST) != c->addr)
		return NFCT_CB_CONTINUE;
	if (c->n == c->cap) {
		if ((nv = reallocarray(c->v, c->cap ? c->cap * 2 : 16,
		    sizeof(*nv))) == NULL) {
			c->nomem = 1;
			return NFCT_CB_STOP;
		}
		c->v = nv;
		c->cap = c->cap ? c->cap * 2 : 16;
	}
	if ((copy = nfct_clone(ct)) == NULL) {
		c->nomem = 1;
		return NFCT_CB_STOP;
	}
	c->v[c->n++] = copy;
	return NFCT_CB_CONTINUE;
}

int
netd_ct_flush(uint32_t addr)
{
	struct nfct_handle	*h;
	struct collect		 c;
	uint32_t		 family = AF_INET;
	size_t			 i;
	int			 rc = 0;

	memset(&c, 0, sizeof(c));
	c.addr = htonl(addr);
	if ((h = nfct_open(CONNTRACK, 0)) == NULL)
		return -1;
	nfct_callback_register(h, NFCT_T_ALL, collect_cb, &c);
	if (nfct_query(h, NFCT_Q_DUMP, &family) == -1 || c.nomem)
		rc = -1;
	nfct_callback_unregister(h);
	for (i = 0; i < c.n; i++) {
		/* gone already (timed out, closed) is as good */
		(void)nfct_query(h, NFCT_Q_DESTROY, c.v[i]);
		nfct_destroy(c.v[i]);
	}
	free(c.v);
	nfct_close(h);
	return rc;
}
