/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <linux/filter.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <event2/dns.h>
#include <event2/dns_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dnswire.h"
#include "log.h"
#include "netd_nft.h"
#include "netd_notice.h"
#include "netd_pool.h"
#include "nftgen.h"
#include "policy.h"
#include "privnet.h"
#include "resolver.h"
#include "upstream.h"

#define TYPE_A		1

static const struct netd_state		*state;
struct blocked				 resolver_blocked;
struct blocked				 resolver_private;
static char				 upstream[64];
/* resolver.private_networks */
static struct privnet			 privnets[PRIVNET_MAX];
static size_t				 nprivnets;

/* one question asked upstream for one container */
struct resolver_lookup {
	TAILQ_ENTRY(resolver_lookup)	 entry;
	resolver_cb			 cb;	/* NULL: its asker left */
	void				*arg;
	uint32_t			 src;	/* the container, host order */
	char				 name[EGRESS_NAME_MAX + 2];
	/* answered from the cache in a moment, or once the gateway has it */
	uint32_t			 addrs[DNSWIRE_ANSWERS_MAX];
	int				 naddrs;
	uint32_t			 ttl;
	/* nonzero: the admission the gateway must confirm first */
	uint32_t			 ticket;
	struct event			 wait_ev;
};
static TAILQ_HEAD(, resolver_lookup)	 lookups =
    TAILQ_HEAD_INITIALIZER(lookups);
static size_t				 nlookups;
static struct event_base		*rbase;

/*
 * A small cache of upstream answers with addresses, shared by the
 * containers (each answer is still checked against the asker's own
 * allowlist): a container asking one name over and over costs upstream
 * nothing, and no entry outlives its TTL or RESOLVER_CACHE_TTL; answers
 * with a TTL under RESOLVER_CACHE_MIN are not kept.
 */
struct cached {
	char		 name[EGRESS_NAME_MAX + 2];	/* lowercased */
	uint32_t	 addrs[DNSWIRE_ANSWERS_MAX];
	int		 naddrs;
	int64_t		 until;		/* 0: empty */
};
static struct cached			 cache[RESOLVER_CACHE];

const char *
resolver_upstream(void)
{
	return upstream;
}

static const struct netd_ctr *
ctr_by_addr(uint32_t a)
{
	size_t	i;

	for (i = 0; i < state->n; i++)
		if (state->v[i].addr == a)
			return &state->v[i];
	return NULL;
}

int
resolver_is_container(uint32_t a)
{
	return ctr_by_addr(a) != NULL;
}

int
resolver_admissible(const struct netd_ctr *c, uint32_t a)
{
	return privnet_admissible(a, c->e, c->n, privnets, nprivnets);
}

size_t
resolver_screen(const struct netd_ctr *c, const char *name, uint32_t *addrs,
    size_t n)
{
	struct in_addr	 in;
	char		 what[EGRESS_NAME_MAX + 24], a[INET_ADDRSTRLEN];
	size_t		 i, k = 0;

	for (i = 0; i < n; i++) {
		if (resolver_admissible(c, ntohl(addrs[i]))) {
			addrs[k++] = addrs[i];
			continue;
		}
		in.s_addr = addrs[i];
		(void)inet_ntop(AF_INET, &in, a, sizeof(a));
		log_info("resolver: %s for %s answered %s, a %s address no "
		    "entry and no resolver.private_networks range covers: "
		    "not admitted", name, c->name, a,
		    privnet_range(ntohl(addrs[i])));
		(void)snprintf(what, sizeof(what), "%s %s", a, name);
		/* out of memory: the refusal stands, unrecorded */
		(void)blocked_add(&resolver_private, c->name, what, 1,
		    (int64_t)time(NULL), (int64_t)time(NULL));
	}
	return k;
}

static void
respond(struct evdns_server_request *req, int err)
{
	if (evdns_server_request_respond(req, err) == -1)
		log_warnx("resolver: cannot send an answer");
}

/*
 * Admit addrs for c through each matching entry: its port and protocol,
 * or any (port 0).  Returns 0, or -1 with nothing admitted.
 */
static int
admit(const struct netd_ctr *c, const char *name, const uint32_t *addrs,
    int count, int ttl, uint32_t *ticket)
{
	struct nftgen_elem	*el;
	const char		**names;
	size_t			 idx[64], nm, i, n = 0;
	int			 j, rc;
	unsigned int		 timeout;
	char			 err[512];

	nm = policy_name_allowed(c->e, c->n, name, idx, 64);
	if (nm > 64)
		nm = 64;
	if (nm == 0 || count <= 0)
		return nm == 0 ? -1 : 0;
	if ((el = calloc(nm * (size_t)count, sizeof(*el))) == NULL)
		return -1;
	if ((names = calloc(nm * (size_t)count, sizeof(*names))) == NULL) {
		free(el);
		return -1;
	}
	for (j = 0; j < count; j++)
		for (i = 0; i < nm; i++) {
			names[n] = name;
			el[n].addr = ntohl(addrs[j]);
			el[n].port = c->e[idx[i]].port;
			el[n].proto = c->e[idx[i]].proto;
			n++;
		}
	timeout = (unsigned int)(ttl > 0 ? ttl : 1) + RESOLVER_GRACE;
	if (timeout > NFTGEN_TIMEOUT_MAX)
		timeout = NFTGEN_TIMEOUT_MAX;
	rc = netd_nft_admit(c->name, el, names, n, timeout, ticket, err,
	    sizeof(err));
	free(names);
	free(el);
	if (rc == -1)
		log_warnx("resolver: %s for %s: cannot admit: %s",
		    name, c->name, err);
	return rc;
}

/* name lowercased, without its trailing dot, into out */
static void
cache_key(const char *name, char *out, size_t len)
{
	size_t	i;

	(void)strlcpy(out, name, len);
	for (i = 0; out[i] != '\0'; i++)
		if (out[i] >= 'A' && out[i] <= 'Z')
			out[i] = (char)(out[i] - 'A' + 'a');
	if (i > 0 && out[i - 1] == '.')
		out[i - 1] = '\0';
}

static int64_t
mono(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static struct cached *
cache_find(const char *name)
{
	char	key[EGRESS_NAME_MAX + 2];
	int64_t	now = mono();
	size_t	i;

	cache_key(name, key, sizeof(key));
	for (i = 0; i < RESOLVER_CACHE; i++)
		if (cache[i].until > now && strcmp(cache[i].name, key) == 0)
			return &cache[i];
	return NULL;
}

static void
cache_put(const char *name, const uint32_t *addrs, int n, uint32_t ttl)
{
	struct cached	*c = NULL;
	int64_t		 now = mono();
	size_t		 i;

	if (n <= 0 || ttl < RESOLVER_CACHE_MIN)
		return;
	if (n > DNSWIRE_ANSWERS_MAX)
		n = DNSWIRE_ANSWERS_MAX;
	if (ttl > RESOLVER_CACHE_TTL)
		ttl = RESOLVER_CACHE_TTL;
	/* the name's own slot, else an empty one, else the soonest to end */
	if ((c = cache_find(name)) == NULL)
		for (i = 0; i < RESOLVER_CACHE; i++)
			if (c == NULL || cache[i].until <= now ||
			    cache[i].until < c->until) {
				c = &cache[i];
				if (c->until <= now)
					break;
			}
	cache_key(name, c->name, sizeof(c->name));
	memcpy(c->addrs, addrs, (size_t)n * sizeof(addrs[0]));
	c->naddrs = n;
	c->until = now + (int64_t)ttl;
}

int
resolver_cache_get(const char *name, uint32_t *addrs, int max)
{
	struct cached	*c;
	int		 n;

	if ((c = cache_find(name)) == NULL)
		return 0;
	n = c->naddrs < max ? c->naddrs : max;
	memcpy(addrs, c->addrs, (size_t)n * sizeof(addrs[0]));
	return n;
}

void
resolver_cache_add(const char *name, const uint32_t *addrs, int n,
    uint32_t ttl)
{
	cache_put(name, addrs, n, ttl);
}

static void
lookup_end(struct resolver_lookup *l)
{
	TAILQ_REMOVE(&lookups, l, entry);
	nlookups--;
	free(l);
}

/* the answer held in l, to its asker, and the lookup ends */
static void
give(struct resolver_lookup *l)
{
	const struct netd_ctr	*c;

	if (l->ticket != 0)
		evtimer_del(&l->wait_ev);
	if (l->cb != NULL) {
		if ((c = ctr_by_addr(l->src)) == NULL)
			l->cb(DNS_ERR_REFUSED, l->name, NULL, 0, 0, l->arg);
		else {
			log_debug("resolver: %s for %s: %d address(es), ttl "
			    "%u", l->name, c->name, l->naddrs, l->ttl);
			l->cb(DNS_ERR_NONE, l->name, l->addrs, l->naddrs,
			    (int)l->ttl, l->arg);
			/* exact allowed names are pooled and pinned */
			netd_pool_feed(c, l->name, l->addrs, l->naddrs);
		}
	}
	lookup_end(l);
}

/* the gateway did not say it holds the admission in time */
static void
wait_over(evutil_socket_t fd, short what, void *arg)
{
	struct resolver_lookup	*l = arg;

	log_warnx("resolver: %s: the egress gateway did not confirm the "
	    "admission within %d s: answered anyway; connections through "
	    "the gateway are refused until it does", l->name,
	    RESOLVER_ADMIT_WAIT);
	give(l);
}

void
resolver_admitted(uint32_t seq)
{
	struct resolver_lookup	*l, *next;

	for (l = TAILQ_FIRST(&lookups); l != NULL; l = next) {
		next = TAILQ_NEXT(l, entry);
		if (l->ticket != 0 && (int32_t)(seq - l->ticket) >= 0)
			give(l);
	}
}

static void
answered(int rcode, const uint32_t *addresses, int count, uint32_t uttl,
    void *arg)
{
	struct resolver_lookup	*l = arg;
	int			 ttl = uttl > 0x7fffffffU ? 0x7fffffff : (int)uttl;
	const struct netd_ctr	*c;
	uint32_t		 kept[DNSWIRE_ANSWERS_MAX], ticket;
	struct timeval		 tv = { RESOLVER_ADMIT_WAIT, 0 };

	if (rcode == DNSWIRE_NOERROR && l->naddrs == 0)
		cache_put(l->name, addresses, count, uttl);
	if (l->cb == NULL)
		goto out;
	/* the container may have gone or changed while upstream answered */
	if ((c = ctr_by_addr(l->src)) == NULL) {
		l->cb(DNS_ERR_REFUSED, l->name, NULL, 0, 0, l->arg);
		goto out;
	}
	if (rcode != DNSWIRE_NOERROR) {
		l->cb(rcode == DNSWIRE_NXDOMAIN ? DNS_ERR_NOTEXIST :
		    DNS_ERR_SERVERFAILED, l->name, NULL, 0, 0, l->arg);
		goto out;
	}
	/* the addresses no entry or range lets out are no answer */
	if (count > DNSWIRE_ANSWERS_MAX)
		count = DNSWIRE_ANSWERS_MAX;
	if (count > 0)
		memcpy(kept, addresses, (size_t)count * sizeof(kept[0]));
	if (count > 0 && (count = (int)resolver_screen(c, l->name, kept,
	    (size_t)count)) == 0) {
		l->cb(DNS_ERR_NOTEXIST, l->name, NULL, 0, 0, l->arg);
		goto out;
	}
	if (admit(c, l->name, kept, count, ttl, &ticket) == -1) {
		/* an answer the kernel would refuse is no answer */
		l->cb(DNS_ERR_SERVERFAILED, l->name, NULL, 0, 0, l->arg);
		goto out;
	}
	if (count > 0)
		memcpy(l->addrs, kept, (size_t)count * sizeof(kept[0]));
	l->naddrs = count;
	l->ttl = (uint32_t)ttl;
	if ((l->ticket = ticket) == 0) {
		give(l);
		return;
	}
	/* a connection made on the answer must find the gateway ready */
	evtimer_assign(&l->wait_ev, rbase, wait_over, l);
	evtimer_add(&l->wait_ev, &tv);
	return;
out:
	lookup_end(l);
}

/* a cached answer, given from the event loop as upstream's would be */
static void
from_cache(evutil_socket_t fd, short what, void *arg)
{
	struct resolver_lookup	*l = arg;

	answered(DNSWIRE_NOERROR, l->addrs, l->naddrs, l->ttl, l);
}

/* ctr's questions waiting upstream */
static size_t
pending_of(uint32_t src)
{
	struct resolver_lookup	*l;
	size_t			 n = 0;

	TAILQ_FOREACH(l, &lookups, entry)
		if (l->src == src)
			n++;
	return n;
}

int
resolver_ask(uint32_t src, const char *name, int qtype, resolver_cb cb,
    void *arg, struct resolver_lookup **lp)
{
	const struct netd_ctr	*c;
	struct resolver_lookup	*l;
	struct cached		*hit;
	int			 rc;

	if ((c = ctr_by_addr(src)) == NULL)
		/* not a container of ours: nothing to answer */
		return DNS_ERR_REFUSED;
	if (policy_name_allowed(c->e, c->n, name, NULL, 0) == 0) {
		log_debug("resolver: %s for %s: not allowed", name,
		    c->name);
#ifndef JB_BENCH_NOCOUNT	/* regress/bench/netcount's other jb-netd */
		/* out of memory: the refusal stands, uncounted */
		(void)blocked_note(&resolver_blocked, c->name, name,
		    (int64_t)time(NULL));
		netd_notice(c->name);
#endif
		return DNS_ERR_NOTEXIST;
	}
	if (qtype != TYPE_A || strlen(name) > EGRESS_NAME_MAX + 1)
		/* no data: IPv6 and the rest are not let out */
		return DNS_ERR_NONE;
	/* one container's flood waits on its own share only */
	if (nlookups >= RESOLVER_PENDING_MAX ||
	    pending_of(src) >= RESOLVER_PENDING_CTR)
		/* not logged: a flood would flood the log */
		return DNS_ERR_SERVERFAILED;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return DNS_ERR_SERVERFAILED;
	l->cb = cb;
	l->arg = arg;
	l->src = src;
	(void)strlcpy(l->name, name, sizeof(l->name));
	/* known to the asker before the answer may come */
	if (lp != NULL)
		*lp = l;
	if ((hit = cache_find(name)) != NULL) {
		struct timeval	now = { 0, 0 };

		memcpy(l->addrs, hit->addrs, sizeof(l->addrs));
		l->naddrs = hit->naddrs;
		l->ttl = (uint32_t)(hit->until - mono());
		if (lp == NULL) {
			/*
			 * No asker holds the lookup: go on now, without
			 * a turn of the event loop (the same steps as
			 * from_cache).  cb runs before this returns
			 * unless the answer waits for the gateway.
			 */
			TAILQ_INSERT_TAIL(&lookups, l, entry);
			nlookups++;
			answered(DNSWIRE_NOERROR, l->addrs, l->naddrs, l->ttl,
			    l);
			return RESOLVER_PENDING;
		}
		rc = event_base_once(rbase, -1, EV_TIMEOUT, from_cache, l,
		    &now);
	} else
		rc = upstream_ask(l->name, answered, l);
	if (rc == -1) {
		if (lp != NULL)
			*lp = NULL;
		free(l);
		return DNS_ERR_SERVERFAILED;
	}
	TAILQ_INSERT_TAIL(&lookups, l, entry);
	nlookups++;
	return RESOLVER_PENDING;
}

void
resolver_forget(struct resolver_lookup *l)
{
	l->cb = NULL;
}

/* the UDP server's answer, once upstream has spoken */
static void
udp_answered(int rcode, const char *name, const uint32_t *addrs, int count,
    int ttl, void *arg)
{
	struct evdns_server_request	*req = arg;

	if (rcode == DNS_ERR_NONE && count > 0 &&
	    evdns_server_request_add_a_reply(req, name, count, addrs,
	    ttl) == -1)
		rcode = DNS_ERR_SERVERFAILED;
	respond(req, rcode);
}

static void
asked(struct evdns_server_request *req, void *arg)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)(void *)&ss;
	struct evdns_server_question *q;
	uint32_t		 src;
	int			 rc;

	memset(&ss, 0, sizeof(ss));
	if (evdns_server_request_get_requesting_addr(req,
	    (struct sockaddr *)&ss, sizeof(ss)) == -1 ||
	    ss.ss_family != AF_INET) {
		respond(req, DNS_ERR_REFUSED);
		return;
	}
	src = ntohl(sin->sin_addr.s_addr);
	if (req->nquestions != 1) {
		respond(req, ctr_by_addr(src) == NULL ? DNS_ERR_REFUSED :
		    DNS_ERR_FORMAT);
		return;
	}
	q = req->questions[0];
	if ((rc = resolver_ask(src, q->name, q->type, udp_answered, req,
	    NULL)) != RESOLVER_PENDING)
		respond(req, rc);
}

/*
 * libevent's DNS server (2.1) reads through a null pointer when a
 * datagram is shorter than a DNS header (12 bytes): its parser's error
 * path frees a request it has not made yet.  One such datagram from a
 * container would end jb-netd, so the kernel drops them before the
 * socket: the filter sees the UDP header (8 bytes) and what follows.
 */
static int
short_dropped(int fd)
{
	static struct sock_filter	code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 8 + DNSWIRE_HEADER, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog		prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof(prog));
}

int
resolver_init(struct event_base *base, uint32_t host, uint16_t port,
    const char *up, const char *priv, const struct netd_state *st, char *err,
    size_t errlen)
{
	struct sockaddr_in	 sin;
	int			 fd;

	state = st;
	rbase = base;
	if (priv != NULL && privnet_parse(priv, privnets, PRIVNET_MAX,
	    &nprivnets, err, errlen) == -1)
		return -1;
	if (upstream_init(base, up, err, errlen) == -1)
		return -1;
	if (up != NULL && *up != '\0')
		(void)strlcpy(upstream, up, sizeof(upstream));
	else {
		/* only the nameservers: never the host's /etc/hosts */
		if (upstream_count() == 0) {
			/* allowed names fail (SERVFAIL), others NXDOMAIN */
			log_warnx("no nameserver in /etc/resolv.conf "
			    "and no resolver.upstream in jailbeed.yaml: "
			    "containers can resolve no name");
			(void)strlcpy(upstream, "none", sizeof(upstream));
		} else
			(void)strlcpy(upstream, "/etc/resolv.conf",
			    sizeof(upstream));
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1) {
		snprintf(err, errlen, "resolver socket: %s", strerror(errno));
		return -1;
	}
	if (short_dropped(fd) == -1) {
		snprintf(err, errlen, "resolver: cannot filter short "
		    "datagrams: %s", strerror(errno));
		close(fd);
		return -1;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(host);
	sin.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		snprintf(err, errlen, "resolver: cannot listen on udp port %u "
		    "of the bridge address: %s", (unsigned)port,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (evdns_add_server_port_with_base(base, fd, 0, asked, NULL) ==
	    NULL) {
		snprintf(err, errlen, "cannot serve DNS");
		close(fd);
		return -1;
	}
	return 0;
}
