/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "nicname.h"
#include "policy.h"
#include "nftgen.h"

#define T		"inet " NFTGEN_TABLE
#define B		"bridge " NFTGEN_TABLE
#define IFNAME_MAX	15	/* IFNAMSIZ without the NUL */
#define KNAME_MAX	255	/* a set or chain name in the kernel */
#define QUOTE_MAX	64
#define JB_GW_LIST_TEXT	64	/* "443,80,...": eight ports and commas */

/* one static element: a network, and a protocol and port unless ANY */
struct sel {
	uint32_t		 net;
	uint8_t			 plen;
	enum egress_proto	 proto;
	uint16_t		 port;
};

struct ctr {
	const struct nftgen_container	*c;
	char				 id[NFTGEN_IDENT_MAX];
};

static const char *const base_chains[] = {
	"forward", "input", "postrouting", "prerouting", NFTGEN_REFUSE_CHAIN
};

/* names reach messages before they are validated: keep them printable */
static const char *
quote(const char *s, char *buf, size_t len)
{
	size_t	i;

	if (s == NULL)
		return "(null)";
	for (i = 0; s[i] != '\0' && i < QUOTE_MAX && i + 1 < len; i++)
		buf[i] = (s[i] > ' ' && s[i] < 0x7f && s[i] != '"') ? s[i] :
		    '?';
	buf[i] = '\0';
	return buf;
}

static uint32_t
mask(unsigned int len)
{
	return len == 0 ? 0 : 0xffffffffU << (32 - len);
}

static char *
addr_fmt(uint32_t a, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%u.%u.%u.%u", a >> 24, a >> 16 & 0xff,
	    a >> 8 & 0xff, a & 0xff);
	return buf;
}

static const char *
proto_name(enum egress_proto p)
{
	return p == EGRESS_PROTO_UDP ? "udp" : "tcp";
}

int
nftgen_ident(const char *name, char *buf, size_t len, char *err,
    size_t errlen)
{
	char	q[QUOTE_MAX + 1];
	size_t	i, n;

	n = name == NULL ? 0 : strnlen(name, NFTGEN_NAME_MAX + 1);
	if (n == 0 || n > NFTGEN_NAME_MAX)
		return errtext(err, errlen, "container name \"%s\": must be "
		    "1-%d characters", quote(name, q, sizeof(q)),
		    NFTGEN_NAME_MAX);
	for (i = 0; i < n; i++) {
		char c = name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (i > 0 && ((c >= '0' && c <= '9') || c == '-')))
			continue;
		return errtext(err, errlen, "container name \"%s\": must be "
		    "a letter, then letters, digits and hyphens",
		    quote(name, q, sizeof(q)));
	}
	if (name[n - 1] == '-')
		return errtext(err, errlen, "container name \"%s\": may not "
		    "end with a hyphen", quote(name, q, sizeof(q)));
	if (len < n + 1)
		return errtext(err, errlen, "container name \"%s\": no room",
		    quote(name, q, sizeof(q)));
	for (i = 0; i < n; i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	buf[n] = '\0';
	return 0;
}

static int
ctr_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ctr *)a)->id, ((const struct ctr *)b)->id);
}

static int
ctr_addr_cmp(const void *a, const void *b)
{
	const struct ctr	*x = *(const struct ctr *const *)a;
	const struct ctr	*y = *(const struct ctr *const *)b;

	if (x->c->addr != y->c->addr)
		return x->c->addr < y->c->addr ? -1 : 1;
	/* names the pair in a message the same way every time */
	return strcmp(x->id, y->id);
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* group by protocol and port, then by network: a cover sorts first */
static int
sel_group_cmp(const void *a, const void *b)
{
	const struct sel	*x = a, *y = b;

	if (x->proto != y->proto)
		return x->proto < y->proto ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->net != y->net)
		return x->net < y->net ? -1 : 1;
	return (x->plen > y->plen) - (x->plen < y->plen);
}

/* the order the rules show */
static int
sel_out_cmp(const void *a, const void *b)
{
	const struct sel	*x = a, *y = b;

	if (x->net != y->net)
		return x->net < y->net ? -1 : 1;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	if (x->proto != y->proto)
		return x->proto < y->proto ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

static int
covers(const struct sel *k, const struct sel *e)
{
	return k->plen <= e->plen && (e->net & mask(k->plen)) == k->net;
}

/*
 * Drop every element inside another of its protocol and port.  Networks
 * nest or are disjoint, so after sel_group_cmp the elements kept are
 * disjoint and ascending, and only the last one kept can cover the next.
 */
static size_t
sel_merge(struct sel *v, size_t n)
{
	size_t	i, o = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), sel_group_cmp);
	for (i = 0; i < n; i++) {
		if (o > 0 && v[o - 1].proto == v[i].proto &&
		    v[o - 1].port == v[i].port && covers(&v[o - 1], &v[i]))
			continue;
		v[o++] = v[i];
	}
	return o;
}

/* is e inside one of the disjoint, ascending any-protocol networks? */
static int
any_covers(const struct sel *any, size_t nany, const struct sel *e)
{
	size_t	lo = 0, hi = nany, mid;

	/* the last network starting at or below e is the only candidate */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (any[mid].net <= e->net)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && covers(&any[lo - 1], e);
}

static int
entry_check(const struct ctr *t, size_t i, char *err, size_t errlen)
{
	const struct egress_entry	*e = &t->c->entries[i];
	char				 a[16];

	switch (e->kind) {
	case EGRESS_NAME:
	case EGRESS_WILDCARD:
		return 0;
	case EGRESS_ADDR:
	case EGRESS_CIDR:
		break;
	default:
		return errtext(err, errlen, "container %s: entry %zu has an "
		    "unknown kind", t->c->name, i);
	}
	if (e->prefixlen > 32 || (e->kind == EGRESS_ADDR && e->prefixlen != 32)
	    || (e->addr & ~mask(e->prefixlen)) != 0)
		return errtext(err, errlen, "container %s: entry %zu: %s/%u "
		    "is not a network", t->c->name, i,
		    addr_fmt(e->addr, a, sizeof(a)), (unsigned)e->prefixlen);
	if ((e->port == 0) != (e->proto == EGRESS_PROTO_ANY) ||
	    (e->proto != EGRESS_PROTO_ANY && e->proto != EGRESS_PROTO_TCP &&
	    e->proto != EGRESS_PROTO_UDP))
		return errtext(err, errlen, "container %s: entry %zu: a port "
		    "goes with tcp or udp, no port with any protocol",
		    t->c->name, i);
	return 0;
}

/*
 * The static entries of t split into any-protocol networks and
 * network . protocol . port elements, merged and in output order.
 */
static int
static_sets(const struct ctr *t, struct sel **anyp, size_t *nanyp,
    struct sel **portp, size_t *nportp, char *err, size_t errlen)
{
	const struct egress_entry	*e;
	struct sel			*any, *port, s;
	size_t				 i, nany = 0, nport = 0, o;

	*anyp = *portp = NULL;
	*nanyp = *nportp = 0;
	if (t->c->nentries == 0)
		return 0;
	any = calloc(t->c->nentries, sizeof(*any));
	port = calloc(t->c->nentries, sizeof(*port));
	if (any == NULL || port == NULL) {
		free(any);
		free(port);
		return errtext(err, errlen, "out of memory");
	}
	for (i = 0; i < t->c->nentries; i++) {
		e = &t->c->entries[i];
		if (entry_check(t, i, err, errlen) == -1) {
			free(any);
			free(port);
			return -1;
		}
		if (e->kind != EGRESS_ADDR && e->kind != EGRESS_CIDR)
			continue;
		s.net = e->addr;
		s.plen = e->prefixlen;
		s.proto = e->proto;
		s.port = e->port;
		if (e->port == 0)
			any[nany++] = s;
		else
			port[nport++] = s;
	}
	nany = sel_merge(any, nany);
	for (i = o = 0; i < nport; i++)
		if (!any_covers(any, nany, &port[i]))
			port[o++] = port[i];
	nport = sel_merge(port, o);
	if (nport > 0)
		qsort(port, nport, sizeof(*port), sel_out_cmp);
	*anyp = any;
	*nanyp = nany;
	*portp = port;
	*nportp = nport;
	return 0;
}

static void
emit_sels(FILE *f, uint32_t src, const struct sel *v, size_t n)
{
	char	a[16], s[16];
	size_t	i;

	addr_fmt(src, s, sizeof(s));
	for (i = 0; i < n; i++) {
		fprintf(f, "%s%s . %s", i > 0 ? ", " : "", s,
		    addr_fmt(v[i].net, a, sizeof(a)));
		if (v[i].plen != 32)
			fprintf(f, "/%u", (unsigned)v[i].plen);
		if (v[i].port != 0)
			fprintf(f, " . %s . %u", proto_name(v[i].proto),
			    (unsigned)v[i].port);
		else
			/* staticany's: every protocol */
			fprintf(f, " . 0-255");
	}
}

/* "add element" or "delete element" of n static elements of t, if any */
static void
emit_elems(FILE *f, const char *verb, const char *set, const struct ctr *t,
    const struct sel *v, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "%s element " T " %s { ", verb, set);
	emit_sels(f, t->c->addr, v, n);
	fprintf(f, " }\n");
}

/*
 * The chains every strict container shares.  A container is its source
 * address: its verdict in map ctrs (accept when loose, chain strict when
 * strict), its entries the elements of static and staticany and what the
 * resolver admitted the elements of allow and allowany, each keyed by
 * that address first.  So the table's rules are the same for any number
 * of containers, and a switch, an override or a new container is a few
 * element changes.
 */
static void
emit_shared(FILE *f, const struct nftgen_net *net)
{
	fprintf(f, "\tchain strict {\n"
	    "\t\tip saddr . ip daddr . meta l4proto . th dport @static "
	    "accept\n"
	    "\t\tip saddr . ip daddr . meta l4proto @staticany accept\n");
	if (net->ngw > 0)
		fprintf(f, "\t\tudp dport 443 jump " NFTGEN_REFUSE_CHAIN "\n"
		    "\t\tudp dport 443 reject with icmpx admin-prohibited\n");
	fprintf(f, "\t\tip saddr . ip daddr . meta l4proto . th dport @allow "
	    "accept\n"
	    "\t\tip saddr . ip daddr @allowany accept\n"
	    "\t\tjump " NFTGEN_REFUSE_CHAIN "\n"
	    "\t\tmeta l4proto tcp reject with tcp reset\n"
	    "\t\treject with icmpx admin-prohibited\n"
	    "\t}\n");
	if (net->ngw > 0) {
		char	h[16];

		fprintf(f, "\tchain gw {\n"
		    "\t\tip saddr . ip daddr . meta l4proto . th dport "
		    "@static return\n"
		    "\t\tip saddr . ip daddr . meta l4proto @staticany "
		    "return\n"
		    "\t\tmeta l4proto tcp dnat ip to %s:%u\n"
		    "\t}\n", addr_fmt(net->host, h, sizeof(h)),
		    (unsigned)net->gw_port);
	}
}

/* the static entries of t as elements of the shared sets */
static int
emit_static_fill(FILE *f, const char *verb, const struct ctr *t, char *err,
    size_t errlen)
{
	struct sel	*any, *port;
	size_t		 nany, nport;

	if (static_sets(t, &any, &nany, &port, &nport, err, errlen) == -1)
		return -1;
	emit_elems(f, verb, "static", t, port, nport);
	emit_elems(f, verb, "staticany", t, any, nany);
	free(any);
	free(port);
	return 0;
}

/* the element of map ctrs for t: accept when loose, its chain if strict */
static void
emit_verdict(FILE *f, const struct ctr *t)
{
	char	a[16];

	addr_fmt(t->c->addr, a, sizeof(a));
	if (t->c->mode == NFTGEN_STRICT)
		fprintf(f, "%s : jump strict", a);
	else
		fprintf(f, "%s : accept", a);
}

/* the element of map gwctrs for a strict container */
static void
emit_gw_verdict(FILE *f, const struct ctr *t)
{
	char	a[16];

	fprintf(f, "%s : jump gw", addr_fmt(t->c->addr, a, sizeof(a)));
}

/*
 * A set of refused connection attempts: source, destination, protocol
 * and port, each with a packet counter.  The kernel holds at most
 * NFTGEN_REFUSED_SIZE elements (a flood beyond that is refused all the
 * same, only not counted until jb-netd has read the set); an update
 * refreshes the element's timeout, so what is left of it tells when it
 * was last hit.
 */
static void
emit_refused_set(FILE *f, int which)
{
	fprintf(f, "\tset " NFTGEN_REFUSED_SET "%d {\n"
	    "\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service\n"
	    "\t\tsize %d\n"
	    "\t\tflags dynamic,timeout\n"
	    "\t\tcounter\n"
	    "\t\ttimeout %ds\n"
	    "\t}\n", which, NFTGEN_REFUSED_SIZE, NFTGEN_REFUSED_TIMEOUT);
}

/* the rule of chain refuse that counts into set refused<which> */
static void
emit_refuse_rule(FILE *f, int which, int inblock)
{
	if (inblock)
		fprintf(f, "\tchain " NFTGEN_REFUSE_CHAIN " {\n\t\t");
	else
		fprintf(f, "add rule " T " " NFTGEN_REFUSE_CHAIN " ");
	fprintf(f, "meta l4proto { tcp, udp } update @" NFTGEN_REFUSED_SET
	    "%d { ip saddr . ip daddr . meta l4proto . th dport }\n", which);
	if (inblock)
		fprintf(f, "\t}\n");
}

/* the base sets, declared (if absent) before anything refers to them */
static void
emit_base_sets(FILE *f, const struct nftgen_net *net)
{
	fprintf(f, "table " T " {\n"
	    "\tmap ctrs {\n"
	    "\t\ttype ipv4_addr : verdict\n"
	    "\t}\n"
	    "\tset strictdns {\n"
	    "\t\ttype ipv4_addr\n"
	    "\t}\n"
	    "\tset allow {\n"
	    "\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service\n"
	    "\t\tflags timeout\n"
	    "\t}\n"
	    "\tset allowany {\n"
	    "\t\ttype ipv4_addr . ipv4_addr\n"
	    "\t\tflags timeout\n"
	    "\t}\n"
	    "\tset static {\n"
	    "\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service\n"
	    "\t\tflags interval\n"
	    "\t}\n"
	    "\tset staticany {\n"
	    "\t\ttype ipv4_addr . ipv4_addr . inet_proto\n"
	    "\t\tflags interval\n"
	    "\t}\n");
	if (net->ngw > 0)
		fprintf(f, "\tmap gwctrs {\n"
		    "\t\ttype ipv4_addr : verdict\n"
		    "\t}\n"
		    "\tset gwports {\n"
		    "\t\ttype inet_service\n"
		    "\t}\n");
	emit_refused_set(f, 0);
	emit_refused_set(f, 1);
	fprintf(f, "\tchain " NFTGEN_REFUSE_CHAIN " {\n"
	    "\t}\n"
	    "}\n");
}

static void
emit_base(FILE *f, const struct nftgen_net *net)
{
	const char	*br = net->bridge;
	char		 a[16], h[16];

	addr_fmt(net->host, h, sizeof(h));
	fprintf(f, "\tchain forward {\n"
	    "\t\ttype filter hook forward priority filter; policy accept;\n"
	    "\t\tiifname \"%s\" meta nfproto ipv6 drop\n"
	    "\t\toifname \"%s\" meta nfproto ipv6 drop\n"
	    "\t\tct state established,related accept\n"
	    "\t\toifname \"%s\" drop\n"
	    "\t\tiifname \"%s\" ip saddr vmap @ctrs\n"
	    "\t\tiifname \"%s\" reject with icmpx admin-prohibited\n"
	    "\t}\n", br, br, br, br, br);
	emit_refuse_rule(f, 0, 1);

	fprintf(f, "\tchain input {\n"
	    "\t\ttype filter hook input priority filter; policy accept;\n"
	    "\t\tiifname \"%s\" meta nfproto ipv6 drop\n"
	    "\t\tiifname \"%s\" ct state established,related accept\n"
	    "\t\tiifname \"%s\" udp dport 67 accept\n", br, br, br);
	if (net->dns_port == 53)
		fprintf(f, "\t\tiifname \"%s\" ip daddr %s meta l4proto "
		    "{ tcp, udp } th dport 53 accept\n", br, h);
	else
		fprintf(f, "\t\tiifname \"%s\" ip daddr %s meta l4proto "
		    "{ tcp, udp } th dport { %u, %u } accept\n", br, h,
		    net->dns_port < 53 ? (unsigned)net->dns_port : 53,
		    net->dns_port < 53 ? 53 : (unsigned)net->dns_port);
	if (net->ngw > 0)
		fprintf(f, "\t\tiifname \"%s\" ip daddr %s tcp dport %u "
		    "ct status dnat accept\n", br, h, (unsigned)net->gw_port);
	if (net->proxy_port != 0)
		fprintf(f, "\t\tiifname \"%s\" ip saddr @strictdns ip daddr "
		    "%s tcp dport %u accept\n", br, h,
		    (unsigned)net->proxy_port);
	fprintf(f, "\t\tiifname \"%s\" drop\n"
	    "\t}\n", br);

	fprintf(f, "\tchain prerouting {\n"
	    "\t\ttype nat hook prerouting priority dstnat; policy accept;\n"
	    "\t\tiifname \"%s\" ip saddr @strictdns udp dport 53 dnat ip "
	    "to %s:%u\n"
	    "\t\tiifname \"%s\" ip saddr @strictdns tcp dport 53 dnat ip "
	    "to %s:%u\n", br, h, (unsigned)net->dns_port, br, h,
	    (unsigned)net->dns_port);
	if (net->ngw > 0)
		fprintf(f, "\t\tiifname \"%s\" tcp dport @gwports ip saddr "
		    "vmap @gwctrs\n", br);
	fprintf(f, "\t}\n");

	fprintf(f, "\tchain postrouting {\n"
	    "\t\ttype nat hook postrouting priority srcnat; policy accept;\n"
	    "\t\tiifname \"%s\" oifname != \"%s\" ip saddr %s/%u masquerade\n"
	    "\t}\n", br, br, addr_fmt(net->subnet, a, sizeof(a)),
	    (unsigned)net->prefixlen);
}

/*
 * A container's elements of the bridge table: its port, MAC and address
 * in set ports, its port and MAC in set macs.
 */
static void
emit_port(FILE *f, const struct ctr *t, int with_addr)
{
	char	ifn[JB_NIC_IFNAME_LEN], mac[JB_NIC_MAC_LEN], a[16];

	jb_nic_ifname(t->c->addr, ifn, sizeof(ifn));
	jb_nic_mac(t->c->addr, mac, sizeof(mac));
	fprintf(f, "\"%s\" . %s", ifn, mac);
	if (with_addr)
		fprintf(f, " . %s", addr_fmt(t->c->addr, a, sizeof(a)));
}

/* "verb element" of one container in both sets of the bridge table */
static void
emit_port_elems(FILE *f, const char *verb, const struct ctr *t)
{
	fprintf(f, "%s element " B " ports { ", verb);
	emit_port(f, t, 1);
	fprintf(f, " }\n%s element " B " macs { ", verb);
	emit_port(f, t, 0);
	fprintf(f, " }\n");
}

/*
 * One base chain of the bridge table: a frame from a container's port
 * passes only with the MAC and address that port was given; the rest
 * is dropped.  DHCP, which a container sends before it has its address,
 * only towards the host (dnsmasq), and only with the port's MAC.
 */
static void
emit_guard(FILE *f, const char *hook)
{
	fprintf(f, "\tchain %s {\n"
	    "\t\ttype filter hook %s priority filter; policy accept;\n"
	    "\t\tiifname != \"" JB_NIC_IFNAME_PREFIX "*\" accept\n"
	    "\t\tether type ip iifname . ether saddr . ip saddr @ports "
	    "accept\n"
	    "\t\tether type arp iifname . ether saddr . arp saddr ip @ports "
	    "iifname . arp saddr ether . arp saddr ip @ports accept\n"
	    "\t\tether type ip6 iifname . ether saddr @macs accept\n",
	    hook, hook);
	if (strcmp(hook, "input") == 0)
		fprintf(f, "\t\tip saddr 0.0.0.0 ip daddr 255.255.255.255 "
		    "udp sport 68 udp dport 67 iifname . ether saddr @macs "
		    "accept\n");
	fprintf(f, "\t\tdrop\n"
	    "\t}\n");
}

/*
 * The bridge table, whole: its sets emptied and filled with every
 * container's elements, its chains made again.  Its own transaction
 * text, placed after the inet table's in the same transaction.
 */
static void
emit_bridge(FILE *f, const struct ctr *v, size_t nc)
{
	size_t	i;

	fprintf(f, "table " B " {\n"
	    "\tset ports {\n"
	    "\t\ttype ifname . ether_addr . ipv4_addr\n"
	    "\t}\n"
	    "\tset macs {\n"
	    "\t\ttype ifname . ether_addr\n"
	    "\t}\n"
	    "}\n"
	    "flush table " B "\n"
	    "flush set " B " ports\n"
	    "flush set " B " macs\n"
	    "table " B " {\n");
	emit_guard(f, "input");
	emit_guard(f, "forward");
	fprintf(f, "}\n");
	if (nc == 0)
		return;
	fprintf(f, "add element " B " ports { ");
	for (i = 0; i < nc; i++) {
		fprintf(f, "%s", i > 0 ? ", " : "");
		emit_port(f, &v[i], 1);
	}
	fprintf(f, " }\nadd element " B " macs { ");
	for (i = 0; i < nc; i++) {
		fprintf(f, "%s", i > 0 ? ", " : "");
		emit_port(f, &v[i], 0);
	}
	fprintf(f, " }\n");
}

static int
net_check(const struct nftgen_net *net, char *err, size_t errlen)
{
	char		 q[QUOTE_MAX + 1], a[16];
	size_t		 i, n;
	uint32_t	 m;

	n = net->bridge == NULL ? 0 : strnlen(net->bridge, IFNAME_MAX + 1);
	if (n == 0 || n > IFNAME_MAX)
		return errtext(err, errlen, "bridge \"%s\": an interface name "
		    "has 1-%d characters", quote(net->bridge, q, sizeof(q)),
		    IFNAME_MAX);
	for (i = 0; i < n; i++) {
		char c = net->bridge[i];

		if ((c < 'a' || c > 'z') && (c < 'A' || c > 'Z') &&
		    (c < '0' || c > '9') && c != '-' && c != '_' && c != '.')
			return errtext(err, errlen, "bridge \"%s\": use "
			    "letters, digits, '-', '_' and '.'",
			    quote(net->bridge, q, sizeof(q)));
	}
	m = mask(net->prefixlen);
	if (net->prefixlen < 1 || net->prefixlen > 30 ||
	    (net->subnet & ~m) != 0)
		return errtext(err, errlen, "bridge subnet %s/%u: need a "
		    "network address with a prefix of 1-30",
		    addr_fmt(net->subnet, a, sizeof(a)),
		    (unsigned)net->prefixlen);
	if ((net->host & m) != net->subnet || net->host == net->subnet ||
	    net->host == (net->subnet | ~m))
		return errtext(err, errlen, "host address %s is not a host "
		    "of the bridge subnet", addr_fmt(net->host, a, sizeof(a)));
	if (net->dns_port == 0)
		return errtext(err, errlen, "resolver port must be 1-65535");
	if (net->proxy_port != 0 && (net->proxy_port == 53 ||
	    net->proxy_port == net->dns_port ||
	    net->proxy_port == net->gw_port))
		return errtext(err, errlen, "proxy port %u: the bridge "
		    "address's DNS or gateway port", (unsigned)net->proxy_port);
	if (net->ngw > 0 && (net->gw_ports == NULL || net->gw_port == 0))
		return errtext(err, errlen, "the gateway needs its port and "
		    "the ports it serves");
	for (i = 0; i < net->ngw; i++)
		if (net->gw_ports[i] == 0 || net->gw_ports[i] == 53)
			return errtext(err, errlen, "gateway port %u: must be "
			    "1-65535 and not DNS's", (unsigned)net->gw_ports[i]);
	return 0;
}

/* validate, identify and sort the containers */
static int
ctrs_load(const struct nftgen_net *net, const struct nftgen_container *c,
    size_t nc, struct ctr **vp, char *err, size_t errlen)
{
	struct ctr	 *v, **byaddr = NULL;
	uint32_t	  m = mask(net->prefixlen);
	size_t		  i;
	char		  a[16];

	*vp = NULL;
	if (nc == 0)
		return 0;
	if ((v = calloc(nc, sizeof(*v))) == NULL ||
	    (byaddr = calloc(nc, sizeof(*byaddr))) == NULL) {
		free(v);
		return errtext(err, errlen, "out of memory");
	}
	for (i = 0; i < nc; i++) {
		v[i].c = &c[i];
		byaddr[i] = &v[i];
		if (nftgen_ident(c[i].name, v[i].id, sizeof(v[i].id), err,
		    errlen) == -1)
			goto fail;
		if (c[i].mode != NFTGEN_STRICT && c[i].mode != NFTGEN_LOOSE) {
			errtext(err, errlen, "container %s: unknown mode",
			    c[i].name);
			goto fail;
		}
		if ((c[i].addr & m) != net->subnet || c[i].addr == net->subnet
		    || c[i].addr == (net->subnet | ~m) ||
		    c[i].addr == net->host) {
			errtext(err, errlen, "container %s: address %s is not "
			    "a container address in the bridge subnet",
			    c[i].name, addr_fmt(c[i].addr, a, sizeof(a)));
			goto fail;
		}
		if (c[i].nentries > 0 && c[i].entries == NULL) {
			errtext(err, errlen, "container %s: no entries",
			    c[i].name);
			goto fail;
		}
	}
	qsort(v, nc, sizeof(*v), ctr_cmp);
	for (i = 1; i < nc; i++)
		if (strcmp(v[i - 1].id, v[i].id) == 0) {
			errtext(err, errlen, "container %s is listed twice",
			    v[i].c->name);
			goto fail;
		}
	for (i = 0; i < nc; i++)
		byaddr[i] = &v[i];
	qsort(byaddr, nc, sizeof(*byaddr), ctr_addr_cmp);
	for (i = 1; i < nc; i++)
		if (byaddr[i - 1]->c->addr == byaddr[i]->c->addr) {
			errtext(err, errlen, "containers %s and %s share the "
			    "address %s", byaddr[i - 1]->c->name,
			    byaddr[i]->c->name,
			    addr_fmt(byaddr[i]->c->addr, a, sizeof(a)));
			goto fail;
		}
	free(byaddr);
	*vp = v;
	return 0;
fail:
	free(byaddr);
	free(v);
	return -1;
}

/* the sets and maps of the table, beside the gateway's */
static const char *const table_sets[] = {
	"allow", "allowany", "ctrs", NFTGEN_REFUSED_SET "0",
	NFTGEN_REFUSED_SET "1", "static", "staticany", "strictdns"
};

/* is this set or chain name one the new ruleset declares? */
static int
declared(const char *name, int is_set, int gw)
{
	size_t	i;

	if (is_set) {
		if (gw && (strcmp(name, "gwctrs") == 0 ||
		    strcmp(name, "gwports") == 0))
			return 1;
		for (i = 0; i < sizeof(table_sets) / sizeof(table_sets[0]); i++)
			if (strcmp(name, table_sets[i]) == 0)
				return 1;
		return 0;
	}
	for (i = 0; i < sizeof(base_chains) / sizeof(base_chains[0]); i++)
		if (strcmp(name, base_chains[i]) == 0)
			return 1;
	return strcmp(name, "strict") == 0 || (gw && strcmp(name, "gw") == 0);
}

/* delete what the table holds and the new ruleset does not declare */
static int
emit_deletes(FILE *f, const char *const *names, size_t nnames, int is_set,
    int gw, char *err, size_t errlen)
{
	const char	**s;
	char		  q[QUOTE_MAX + 1];
	size_t		  i, j, len;

	if (nnames == 0)
		return 0;
	if (names == NULL)
		return errtext(err, errlen, "present %s names missing",
		    is_set ? "set" : "chain");
	if ((s = calloc(nnames, sizeof(*s))) == NULL)
		return errtext(err, errlen, "out of memory");
	for (i = 0; i < nnames; i++) {
		len = names[i] == NULL ? 0 : strnlen(names[i], KNAME_MAX + 1);
		for (j = 0; j < len; j++) {
			char c = names[i][j];

			if ((c < 'a' || c > 'z') && (c < 'A' || c > 'Z') &&
			    (c < '0' || c > '9') && c != '_')
				break;
		}
		if (len == 0 || len > KNAME_MAX || j < len ||
		    (names[i][0] >= '0' && names[i][0] <= '9')) {
			free(s);
			return errtext(err, errlen, "%s \"%s\" in table " T
			    " was not made by jb-netd; delete the table by "
			    "hand", is_set ? "set" : "chain",
			    quote(names[i], q, sizeof(q)));
		}
		s[i] = names[i];
	}
	qsort(s, nnames, sizeof(*s), str_cmp);
	for (i = 0; i < nnames; i++) {
		if ((i > 0 && strcmp(s[i - 1], s[i]) == 0) ||
		    declared(s[i], is_set, gw))
			continue;
		fprintf(f, "delete %s " T " %s\n", is_set ? "set" : "chain",
		    s[i]);
	}
	free(s);
	return 0;
}

/* open_memstream sets *bufp only at fclose, so it is read after */
static int
stream_close(FILE *f, char **bufp, int failed, char **out, char *err,
    size_t errlen)
{
	int	bad = ferror(f);

	if (fclose(f) != 0 || bad || failed) {
		free(*bufp);
		*bufp = NULL;
		return failed ? -1 : errtext(err, errlen, "out of memory");
	}
	*out = *bufp;
	return 0;
}

int
nftgen_ruleset(const struct nftgen_net *net, const struct nftgen_container *c,
    size_t nc, const struct nftgen_present *present, char **out, char *err,
    size_t errlen)
{
	struct ctr	*v;
	FILE		*f;
	char		*buf = NULL;
	size_t		 len = 0, i, nstrict = 0;
	int		 failed = 0;

	*out = NULL;
	if (net_check(net, err, errlen) == -1 ||
	    ctrs_load(net, c, nc, &v, err, errlen) == -1)
		return -1;
	if ((f = open_memstream(&buf, &len)) == NULL) {
		free(v);
		return errtext(err, errlen, "out of memory");
	}
	fprintf(f, "# " T ": generated by jb-netd, applied as one "
	    "transaction\n");
	/*
	 * emptied before the deletes: their elements jump to chains; what
	 * the resolver admitted goes too, the table being made again
	 */
	emit_base_sets(f, net);
	fprintf(f, "flush table " T "\n"
	    "flush map " T " ctrs\n"
	    "flush set " T " strictdns\n"
	    "flush set " T " allow\n"
	    "flush set " T " allowany\n"
	    "flush set " T " static\n"
	    "flush set " T " staticany\n");
	if (net->ngw > 0)
		fprintf(f, "flush map " T " gwctrs\n"
		    "flush set " T " gwports\n");
	if (present != NULL &&
	    (emit_deletes(f, present->sets, present->nsets, 1, net->ngw > 0,
	    err, errlen) == -1 ||
	    emit_deletes(f, present->chains, present->nchains, 0,
	    net->ngw > 0, err, errlen) == -1))
		failed = 1;
	fprintf(f, "table " T " {\n");
	if (!failed) {
		emit_shared(f, net);
		emit_base(f, net);
	}
	fprintf(f, "}\n");
	for (i = 0; i < nc && !failed; i++)
		if (emit_static_fill(f, "add", &v[i], err, errlen) == -1)
			failed = 1;
	if (nc > 0 && !failed) {
		fprintf(f, "add element " T " ctrs { ");
		for (i = 0; i < nc; i++) {
			fprintf(f, "%s", i > 0 ? ", " : "");
			emit_verdict(f, &v[i]);
		}
		fprintf(f, " }\n");
	}
	for (i = 0; i < nc && !failed; i++) {
		char	a[16];

		if (v[i].c->mode != NFTGEN_STRICT)
			continue;
		fprintf(f, "%s%s", nstrict++ == 0 ? "add element " T
		    " strictdns { " : ", ", addr_fmt(v[i].c->addr, a,
		    sizeof(a)));
	}
	if (nstrict > 0)
		fprintf(f, " }\n");
	if (net->ngw > 0 && !failed) {
		fprintf(f, "add element " T " gwports { ");
		for (i = 0; i < net->ngw; i++)
			fprintf(f, "%s%u", i > 0 ? ", " : "",
			    (unsigned)net->gw_ports[i]);
		fprintf(f, " }\n");
		for (i = nstrict = 0; i < nc; i++) {
			if (v[i].c->mode != NFTGEN_STRICT)
				continue;
			fprintf(f, "%s", nstrict++ == 0 ? "add element " T
			    " gwctrs { " : ", ");
			emit_gw_verdict(f, &v[i]);
		}
		if (nstrict > 0)
			fprintf(f, " }\n");
	}
	if (!failed)
		emit_bridge(f, v, nc);
	free(v);
	return stream_close(f, &buf, failed, out, err, errlen);
}

/* "allow { SRC . DST . PROTO . PORT" or "allowany { SRC . DST": unclosed */
static void
dyn_key(uint32_t src, uint32_t dst, enum egress_proto proto, uint16_t port,
    char *key, size_t len)
{
	char	s[16], a[16];

	addr_fmt(src, s, sizeof(s));
	addr_fmt(dst, a, sizeof(a));
	if (proto == EGRESS_PROTO_ANY)
		(void)snprintf(key, len, "allowany { %s . %s", s, a);
	else
		(void)snprintf(key, len, "allow { %s . %s . %s . %u", s, a,
		    proto_name(proto), (unsigned)port);
}

static int
elem_cmp(const void *a, const void *b)
{
	const struct nftgen_elem	*x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->proto != y->proto)
		return x->proto < y->proto ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

int
nftgen_admit(const char *name, uint32_t src, const struct nftgen_elem *el,
    size_t n, unsigned int timeout, char **out, char *err, size_t errlen)
{
	struct nftgen_elem	*v;
	char			 id[NFTGEN_IDENT_MAX], key[96];
	FILE			*f;
	char			*buf = NULL;
	size_t			 len = 0, i;

	*out = NULL;
	if (nftgen_ident(name, id, sizeof(id), err, errlen) == -1)
		return -1;
	if (timeout < 1 || timeout > NFTGEN_TIMEOUT_MAX)
		return errtext(err, errlen, "container %s: timeout %u s is "
		    "not 1-%d", name, timeout, NFTGEN_TIMEOUT_MAX);
	if (n == 0 || el == NULL)
		return errtext(err, errlen, "container %s: no addresses to "
		    "admit", name);
	for (i = 0; i < n; i++)
		if (el[i].proto == EGRESS_PROTO_ANY ? el[i].port != 0 :
		    (el[i].proto != EGRESS_PROTO_TCP &&
		    el[i].proto != EGRESS_PROTO_UDP) || el[i].port == 0)
			return errtext(err, errlen, "container %s: element "
			    "%zu: a port goes with tcp or udp, no port with "
			    "any protocol", name, i);
	if ((v = calloc(n, sizeof(*v))) == NULL)
		return errtext(err, errlen, "out of memory");
	memcpy(v, el, n * sizeof(*v));
	qsort(v, n, sizeof(*v), elem_cmp);
	if ((f = open_memstream(&buf, &len)) == NULL) {
		free(v);
		return errtext(err, errlen, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (i > 0 && elem_cmp(&v[i - 1], &v[i]) == 0)
			continue;
		dyn_key(src, v[i].addr, v[i].proto, v[i].port, key,
		    sizeof(key));
		fprintf(f, "add element " T " %s timeout %us }\n"
		    "delete element " T " %s }\n"
		    "add element " T " %s timeout %us }\n",
		    key, timeout, key, key, timeout);
	}
	free(v);
	return stream_close(f, &buf, 0, out, err, errlen);
}

static int
entries_equal(const struct nftgen_container *a,
    const struct nftgen_container *b)
{
	const struct egress_entry	*x, *y;
	size_t				 i;

	if (a->nentries != b->nentries)
		return 0;
	/* the same list: a switch compares nothing, whatever its length */
	if (a->entries == b->entries)
		return 1;
	for (i = 0; i < a->nentries; i++) {
		x = &a->entries[i];
		y = &b->entries[i];
		if (x->kind != y->kind || x->proto != y->proto ||
		    x->port != y->port || x->prefixlen != y->prefixlen ||
		    x->addr != y->addr || strcmp(x->name, y->name) != 0)
			return 0;
	}
	return 1;
}

/* "verb element" of the elements of a (ascending) that b lacks, t's */
static int
emit_sel_diff(FILE *f, const char *verb, const char *set, const struct ctr *t,
    const struct sel *a, size_t na, const struct sel *b, size_t nb,
    char *err, size_t errlen)
{
	struct sel	*d;
	size_t		 i, j = 0, nd = 0;
	int		 r;

	if (na == 0)
		return 0;
	if ((d = calloc(na, sizeof(*d))) == NULL)
		return errtext(err, errlen, "out of memory");
	for (i = 0; i < na; i++) {
		r = 1;
		while (j < nb && (r = sel_out_cmp(&b[j], &a[i])) < 0)
			j++;
		if (j >= nb || r != 0)
			d[nd++] = a[i];
	}
	emit_elems(f, verb, set, t, d, nd);
	free(d);
	return 0;
}

/* a container in the old list, the new one, or both */
struct pair {
	const struct ctr	*o, *n;
	int			 restatic;	/* its static entries changed */
};

static int
same_verdict(const struct pair *p)
{
	return p->o != NULL && p->n != NULL && p->o->c->addr == p->n->c->addr
	    && p->o->c->mode == p->n->c->mode;
}

static int
same_port(const struct pair *p)
{
	return p->o != NULL && p->n != NULL && p->o->c->addr == p->n->c->addr;
}

static int
same_dns(const struct pair *p)
{
	return p->o != NULL && p->n != NULL && p->o->c->addr == p->n->c->addr
	    && p->o->c->mode == NFTGEN_STRICT && p->n->c->mode == NFTGEN_STRICT;
}

/* the static element changes of a container in both lists */
static int
emit_restatic(FILE *f, const struct pair *p, int add, char *err, size_t errlen)
{
	struct sel	*oany, *oport, *nany, *nport;
	size_t		 noany, noport, nnany, nnport;
	const char	*verb = add ? "add" : "delete";
	int		 rc = -1;

	if (static_sets(p->o, &oany, &noany, &oport, &noport, err, errlen)
	    == -1)
		return -1;
	if (static_sets(p->n, &nany, &nnany, &nport, &nnport, err, errlen)
	    == -1)
		goto out;
	if (add)
		rc = emit_sel_diff(f, verb, "static", p->n, nport, nnport,
		    oport, noport, err, errlen) == -1 ||
		    emit_sel_diff(f, verb, "staticany", p->n, nany, nnany,
		    oany, noany, err, errlen) == -1 ? -1 : 0;
	else
		rc = emit_sel_diff(f, verb, "static", p->o, oport, noport,
		    nport, nnport, err, errlen) == -1 ||
		    emit_sel_diff(f, verb, "staticany", p->o, oany, noany,
		    nany, nnany, err, errlen) == -1 ? -1 : 0;
	free(nany);
	free(nport);
out:
	free(oany);
	free(oport);
	return rc;
}

/*
 * What the resolver admitted from src, gone: each element the kernel held
 * when jb-netd read the sets (dyn) is added and deleted in the same
 * transaction, so one that timed out since is no error.
 */
static void
emit_purge(FILE *f, uint32_t src, const struct nftgen_dyn *dyn, size_t ndyn)
{
	char	key[96];
	size_t	i;

	for (i = 0; i < ndyn; i++) {
		if (dyn[i].src != src)
			continue;
		dyn_key(src, dyn[i].dst, dyn[i].proto, dyn[i].port, key,
		    sizeof(key));
		fprintf(f, "add element " T " %s timeout 1s }\n"
		    "delete element " T " %s }\n", key, key);
	}
}

static int
emit_delta(FILE *f, const struct nftgen_net *net, struct pair *p, size_t np,
    const struct nftgen_dyn *dyn, size_t ndyn, char *err, size_t errlen)
{
	char	a[16];
	size_t	i;

	/* what leaves the maps first: an address may pass to another */
	for (i = 0; i < np; i++) {
		if (p[i].o == NULL)
			continue;
		if (!same_port(&p[i]))
			emit_port_elems(f, "delete", p[i].o);
		addr_fmt(p[i].o->c->addr, a, sizeof(a));
		if (!same_verdict(&p[i]))
			fprintf(f, "delete element " T " ctrs { %s }\n", a);
		if (p[i].o->c->mode == NFTGEN_STRICT && !same_dns(&p[i])) {
			fprintf(f, "delete element " T " strictdns { %s }\n",
			    a);
			if (net->ngw > 0)
				fprintf(f, "delete element " T " gwctrs { %s "
				    "}\n", a);
		}
	}
	for (i = 0; i < np; i++)
		if (p[i].restatic &&
		    emit_restatic(f, &p[i], 0, err, errlen) == -1)
			return -1;
	for (i = 0; i < np; i++) {
		if (p[i].n != NULL)
			continue;
		if (emit_static_fill(f, "delete", p[i].o, err, errlen) == -1)
			return -1;
		emit_purge(f, p[i].o->c->addr, dyn, ndyn);
	}
	/* an address new to the table starts with nothing admitted */
	for (i = 0; i < np; i++) {
		if (p[i].o != NULL)
			continue;
		emit_purge(f, p[i].n->c->addr, dyn, ndyn);
		if (emit_static_fill(f, "add", p[i].n, err, errlen) == -1)
			return -1;
	}
	for (i = 0; i < np; i++)
		if (p[i].restatic &&
		    emit_restatic(f, &p[i], 1, err, errlen) == -1)
			return -1;
	for (i = 0; i < np; i++) {
		if (p[i].n == NULL)
			continue;
		if (!same_verdict(&p[i])) {
			fprintf(f, "add element " T " ctrs { ");
			emit_verdict(f, p[i].n);
			fprintf(f, " }\n");
		}
		if (p[i].n->c->mode == NFTGEN_STRICT && !same_dns(&p[i])) {
			fprintf(f, "add element " T " strictdns { %s }\n",
			    addr_fmt(p[i].n->c->addr, a, sizeof(a)));
			if (net->ngw > 0) {
				fprintf(f, "add element " T " gwctrs { ");
				emit_gw_verdict(f, p[i].n);
				fprintf(f, " }\n");
			}
		}
		if (p[i].n->c->flush_dynamic)
			emit_purge(f, p[i].n->c->addr, dyn, ndyn);
		/* the port sends only once its policy is in place */
		if (!same_port(&p[i]))
			emit_port_elems(f, "add", p[i].n);
	}
	return 0;
}

int
nftgen_delta(const struct nftgen_net *net, const struct nftgen_container *oc,
    size_t noc, const struct nftgen_container *nc, size_t nnc,
    const struct nftgen_dyn *dyn, size_t ndyn, char **out, char *err,
    size_t errlen)
{
	struct ctr	*ov = NULL, *nv = NULL;
	struct pair	*p = NULL;
	FILE		*f;
	char		*buf = NULL;
	size_t		 len = 0, i = 0, j = 0, np = 0;
	int		 r, failed = 0;

	*out = NULL;
	if (net_check(net, err, errlen) == -1 ||
	    ctrs_load(net, oc, noc, &ov, err, errlen) == -1)
		return -1;
	if (ctrs_load(net, nc, nnc, &nv, err, errlen) == -1) {
		free(ov);
		return -1;
	}
	if (ndyn > 0 && dyn == NULL) {
		failed = errtext(err, errlen, "dynamic elements missing");
		goto out;
	}
	if (noc + nnc > 0 && (p = calloc(noc + nnc, sizeof(*p))) == NULL) {
		failed = errtext(err, errlen, "out of memory");
		goto out;
	}
	/*
	 * Both lists are sorted by identifier: pair them up.  A container
	 * whose address changed leaves and comes back, its elements being
	 * keyed by the address.
	 */
	while (i < noc || j < nnc) {
		r = i >= noc ? 1 : j >= nnc ? -1 : strcmp(ov[i].id, nv[j].id);
		if (r == 0 && ov[i].c->addr != nv[j].c->addr)
			r = -1;
		p[np].o = r <= 0 ? &ov[i++] : NULL;
		p[np].n = r >= 0 ? &nv[j++] : NULL;
		p[np].restatic = p[np].o != NULL && p[np].n != NULL &&
		    !entries_equal(p[np].o->c, p[np].n->c);
		if (p[np].o == NULL || p[np].n == NULL || p[np].restatic ||
		    !same_verdict(&p[np]) || p[np].n->c->flush_dynamic)
			np++;
	}
	if ((f = open_memstream(&buf, &len)) == NULL) {
		failed = errtext(err, errlen, "out of memory");
		goto out;
	}
	if (emit_delta(f, net, p, np, dyn, ndyn, err, errlen) == -1)
		failed = 1;
	failed = stream_close(f, &buf, failed, out, err, errlen);
out:
	free(p);
	free(ov);
	free(nv);
	return failed ? -1 : 0;
}

int
nftgen_refuse_swap(int which, char **out)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 len = 0;

	*out = NULL;
	if ((f = open_memstream(&buf, &len)) == NULL)
		return -1;
	fprintf(f, "flush chain " T " " NFTGEN_REFUSE_CHAIN "\n");
	emit_refuse_rule(f, which != 0, 0);
	return stream_close(f, &buf, 0, out, NULL, 0);
}

char *
nftgen_path(const struct nftgen_net *net, const struct egress_entry *e,
    char *buf, size_t len)
{
	char	ports[JB_GW_LIST_TEXT];
	size_t	i, o = 0;
	int	gw = 0;

	ports[0] = '\0';
	for (i = 0; i < net->ngw && o < sizeof(ports); i++) {
		o += (size_t)snprintf(ports + o, sizeof(ports) - o, "%s%u",
		    i > 0 ? "," : "", (unsigned)net->gw_ports[i]);
		if (e->proto == EGRESS_PROTO_TCP && e->port == net->gw_ports[i])
			gw = 1;
	}
	if (e->kind == EGRESS_ADDR || e->kind == EGRESS_CIDR)
		(void)snprintf(buf, len, "kernel, by address");
	else if (gw)
		(void)snprintf(buf, len, "gateway, by name and address");
	else if (net->ngw > 0 && e->port == 0)
		(void)snprintf(buf, len, "gateway on %s by name and address; "
		    "kernel elsewhere by the addresses the resolver gave", ports);
	else
		(void)snprintf(buf, len, "kernel, by the addresses the "
		    "resolver gave");
	return buf;
}
