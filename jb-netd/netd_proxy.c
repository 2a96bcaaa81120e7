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
 * The explicit proxy's names (jb-egress's CONNECT and absolute-URI
 * requests): jb-egress has no resolver of its own, so it asks here,
 * through the parent.  A name is asked of the suite's upstream only for
 * a strict container whose allowlist admits it, and the answer is
 * screened by the resolver's rule (resolver_screen: an address in a
 * range that is not public is left out unless the container's
 * allowlist or resolver.private_networks covers it, and counted where
 * the resolver counts its own).  The resolver's cache of answers is
 * shared: a name asked again within its TTL is answered from it, still
 * screened for the asker.  Nothing enters the kernel's sets: the proxy,
 * not the container, connects to the address.
 */

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnswire.h"
#include "log.h"
#include "netd.h"
#include "netd_proxy.h"
#include "policy.h"
#include "privnet.h"
#include "resolver.h"
#include "upstream.h"

#define PROXY_PENDING_MAX	128	/* questions waiting upstream */

struct ask {
	struct child	*c;
	uint32_t	 qid;
	char		 name[JB_INSTANCE_MAX];
	uint32_t	 addr;
	char		 host[256];
};

static size_t	pending;

static void
reply(struct child *c, uint32_t qid, const uint32_t *addrs, size_t n,
    int fixable, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void
reply(struct child *c, uint32_t qid, const uint32_t *addrs, size_t n,
    int fixable, const char *fmt, ...)
{
	struct jb_egress_resolved	r;
	va_list				ap;
	size_t				i;

	memset(&r, 0, sizeof(r));
	r.qid = qid;
	r.fixable = fixable;
	if (n > JB_EGRESS_ADMIT_MAX)
		n = JB_EGRESS_ADMIT_MAX;
	for (i = 0; i < n; i++)
		r.addr[i] = ntohl(addrs[i]);
	r.naddr = (uint32_t)n;
	r.ok = n > 0;
	if (fmt != NULL) {
		va_start(ap, fmt);
		(void)vsnprintf(r.why, sizeof(r.why), fmt, ap);
		va_end(ap);
	}
	if (imsgev_compose(&c->iev, IMSG_EGRESS_RESOLVED, 0, 0, -1, &r,
	    sizeof(r)) == -1)
		fatal("compose");
}

/* the container by name, strict, still at the address it had */
static const struct netd_ctr *
ctr_of(const char *name, uint32_t addr)
{
	const struct netd_ctr	*c;

	if ((c = netd_state_find(&cur, name)) == NULL || c->addr != addr ||
	    c->mode != NFTGEN_STRICT)
		return NULL;
	return c;
}

/* the answer's addresses, screened for the container, as the reply */
static void
screened(struct child *ch, uint32_t qid, const struct netd_ctr *c,
    const char *host, const uint32_t *addrs, size_t n)
{
	uint32_t	 kept[DNSWIRE_ANSWERS_MAX];
	struct in_addr	 in;
	char		 a[INET_ADDRSTRLEN];

	if (n > DNSWIRE_ANSWERS_MAX)
		n = DNSWIRE_ANSWERS_MAX;
	memcpy(kept, addrs, n * sizeof(kept[0]));
	in.s_addr = kept[0];
	(void)inet_ntop(AF_INET, &in, a, sizeof(a));
	if ((n = resolver_screen(c, host, kept, n)) == 0)
		reply(ch, qid, NULL, 0, 0, "it answered %s, a %s address no "
		    "entry and no resolver.private_networks range covers", a,
		    privnet_range(ntohl(in.s_addr)));
	else
		reply(ch, qid, kept, n, 0, NULL);
}

static void
answered(int rcode, const uint32_t *addrs, int count, uint32_t ttl,
    void *arg)
{
	struct ask		*q = arg;
	const struct netd_ctr	*c;

	pending--;
	if (rcode == DNSWIRE_NOERROR && count > 0)
		resolver_cache_add(q->host, addrs, count, ttl);
	if ((c = ctr_of(q->name, q->addr)) == NULL)
		reply(q->c, q->qid, NULL, 0, 0, "the container is no longer "
		    "strict at that address");
	else if (rcode == DNSWIRE_NXDOMAIN)
		reply(q->c, q->qid, NULL, 0, 0, "no such name (NXDOMAIN "
		    "from the upstream resolver)");
	else if (rcode != DNSWIRE_NOERROR || count <= 0)
		reply(q->c, q->qid, NULL, 0, 0, "the upstream resolver gave "
		    "no IPv4 address");
	else
		screened(q->c, q->qid, c, q->host, addrs, (size_t)count);
	free(q);
}

void
netd_proxy_resolve(struct child *ch, struct imsg *imsg)
{
	struct jb_egress_resolve	 r;
	const struct netd_ctr		*c;
	struct in_addr			 in;
	struct ask			*q;
	uint32_t			 cached[DNSWIRE_ANSWERS_MAX];
	int				 n;

	if (imsg_get_data(imsg, &r, sizeof(r)) == -1)
		fatalx("%s: malformed EGRESS_RESOLVE", ch->name);
	r.name[sizeof(r.name) - 1] = '\0';
	r.ipv4[sizeof(r.ipv4) - 1] = '\0';
	r.host[sizeof(r.host) - 1] = '\0';
	if (inet_pton(AF_INET, r.ipv4, &in) != 1 ||
	    (c = ctr_of(r.name, ntohl(in.s_addr))) == NULL) {
		reply(ch, r.qid, NULL, 0, 0, "not a strict container of the "
		    "suite");
		return;
	}
	if (!policy_valid_hostname(r.host) ||
	    policy_name_allowed(c->e, c->n, r.host, NULL, 0) == 0) {
		reply(ch, r.qid, NULL, 0, 1, "no egress_allow entry admits "
		    "the name");
		return;
	}
	/* an answer the resolver keeps, for this container's screen */
	if ((n = resolver_cache_get(r.host, cached, DNSWIRE_ANSWERS_MAX)) > 0) {
		screened(ch, r.qid, c, r.host, cached, (size_t)n);
		return;
	}
	if (pending >= PROXY_PENDING_MAX || upstream_count() == 0 ||
	    (q = calloc(1, sizeof(*q))) == NULL) {
		reply(ch, r.qid, NULL, 0, 0, "the resolver is busy or has no "
		    "upstream");
		return;
	}
	q->c = ch;
	q->qid = r.qid;
	(void)strlcpy(q->name, r.name, sizeof(q->name));
	q->addr = ntohl(in.s_addr);
	(void)strlcpy(q->host, r.host, sizeof(q->host));
	if (upstream_ask(q->host, answered, q) == -1) {
		free(q);
		reply(ch, r.qid, NULL, 0, 0, "cannot ask the upstream "
		    "resolver");
		return;
	}
	pending++;
}
