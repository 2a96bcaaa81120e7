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
 * jb-netd: the only process that keeps a capability (CAP_NET_ADMIN), and
 * the only one that touches the kernel packet filter.  It stays uid 0
 * because nftables netlink checks the capability, not the uid.
 *
 * At start it rebuilds table inet jailbee for the suite's bridge from its
 * durable state (<state_dir>/netd/containers): each known container
 * strict (its allowlist, then reject) or loose, every other source on
 * the bridge refused, new connections into it dropped, the host reachable
 * only for DHCP and DNS.  The parent then sets or forgets containers, one
 * atomic transaction each, written down before it is answered.  The
 * table stays when jb-netd exits, so the suite fails closed.  Names are
 * enforced through the resolver (resolver.c).
 */

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/capability.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errtext.h"
#include "atomicfile.h"
#include "log.h"
#include "nicname.h"
#include "netd_ct.h"
#include "netd_nft.h"
#include "netd_repos.h"
#include "netd_pool.h"
#include "netd_refused.h"
#include "netd_state.h"
#include "nftgen.h"
#include "refused.h"
#include "proc.h"
#include "resolver.h"
#include "sandbox_procs.h"
#include "testhook.h"
#include "netd.h"
#include "netd_gw.h"
#include "netd_proxy.h"
#include "netd_notice.h"
#include "netd_gate.h"
#include "nicstale.h"
#include "gate.h"

struct nftgen_net	 net;
struct netd_state	 cur;
struct netd_repos	 repos;
int			 statefd = -1;
char			 statepath[PATH_MAX];
char			 statedir[PATH_MAX];
struct event		 revert_ev;
static struct event		 summary_ev;	/* refused names, for the journal */
static struct event		 refused_ev;	/* read the refused flows */

/* refused names are summed up for the audit journal so often */
#define SUMMARY_SECS	jb_test_secs(60, 5)

/* the bridge's IPv4 address and prefix, as the kernel has them */
static int
bridge_addr(const char *bridge, struct nftgen_net *n)
{
	struct ifaddrs	*ifa, *i;
	uint32_t	 mask;
	int		 found = 0;

	if (getifaddrs(&ifa) == -1)
		return -1;
	for (i = ifa; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_netmask == NULL ||
		    i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, bridge) != 0)
			continue;
		n->host = ntohl(((struct sockaddr_in *)(void *)
		    i->ifa_addr)->sin_addr.s_addr);
		mask = ntohl(((struct sockaddr_in *)(void *)
		    i->ifa_netmask)->sin_addr.s_addr);
		n->prefixlen = mask ? 32 - __builtin_ctz(mask) : 0;
		n->subnet = n->host & mask;
		found = 1;
	}
	freeifaddrs(ifa);
	return found ? 0 : -1;
}

/*
 * Containers reach their allowed hosts through the host's routing, so
 * forwarding must be on; what may be forwarded is the table's business.
 */
static void
forwarding_on(const char *name)
{
	int	fd;
	char	c = '0';

	if ((fd = open("/proc/sys/net/ipv4/ip_forward", O_RDWR | O_CLOEXEC))
	    == -1) {
		log_warn("%s: /proc/sys/net/ipv4/ip_forward", name);
		return;
	}
	if (read(fd, &c, 1) == 1 && c == '0') {
		if (pwrite(fd, "1\n", 2, 0) != 2)
			log_warn("%s: cannot turn IPv4 forwarding on: "
			    "containers cannot reach allowed hosts", name);
		else
			log_info("%s: IPv4 forwarding turned on; the table "
			    "decides what is forwarded", name);
	}
	close(fd);
}

/*
 * Every SUMMARY_SECS, per container, the names refused since the last
 * summary, as one audit record: a flood is one line a period, never a
 * line per query.
 */
static void
summary_fire(int fd, short event, void *arg)
{
	struct child		*c = arg;
	struct timeval		 tv = { SUMMARY_SECS, 0 };
	struct blocked_sum	 sum;
	struct jb_netd_audit	 ev;
	size_t			 i;

	size_t			 k;
	static const char *const kinds[] = { "dns-refused", "conn-refused",
	    "dns-private", "name-refused" };
	struct blocked *const	 tables[] = { &resolver_blocked, &netd_refused,
	    &resolver_private, &netd_gw_refused };

	(void)netd_refused_drain(&cur, time(NULL));
	for (i = 0; i < cur.n; i++)
		for (k = 0; k < NELEM(tables); k++) {
			blocked_summary(tables[k], cur.v[i].name, &sum);
			if (sum.count == 0)
				continue;
			memset(&ev, 0, sizeof(ev));
			(void)strlcpy(ev.name, cur.v[i].name, sizeof(ev.name));
			(void)strlcpy(ev.repo, cur.v[i].repo, sizeof(ev.repo));
			(void)strlcpy(ev.kind, kinds[k], sizeof(ev.kind));
			ev.count = sum.count;
			ev.distinct = sum.distinct;
			(void)strlcpy(ev.top, sum.top, sizeof(ev.top));
			ev.topcount = sum.topcount;
			if (imsgev_compose(&c->iev, IMSG_NETD_AUDIT, 0, 0, -1,
			    &ev, sizeof(ev)) == -1)
				fatal("%s: compose", c->name);
		}
	evtimer_add(&summary_ev, &tv);
}

/* the kernel's sets of refused flows hold little: read them often */
static void
refused_fire(int fd, short event, void *arg)
{
	struct timeval	tv = { REFUSED_DRAIN_SECS, 0 };

	(void)netd_refused_drain(&cur, time(NULL));
	evtimer_add(&refused_ev, &tv);
}


static void
netd_set(struct child *c, struct imsg *imsg)
{
	struct jb_netd_ctr	*m;
	struct netd_ctr		 nc;
	struct netd_state	 next;
	char			 err[JB_ERR_TEXT_MAX], name[JB_INSTANCE_MAX];
	char			 nic[JB_NIC_IFNAME_LEN];
	uint32_t		 addr;
	int			 rc;

	if ((m = malloc(sizeof(*m))) == NULL)
		fatal("%s: malloc", c->name);
	if (imsg_get_data(imsg, m, sizeof(*m)) == -1)
		fatalx("%s: malformed NETD_SET", c->name);
	if (netd_ctr_from_msg(m, &nc, err, sizeof(err)) == -1) {
		free(m);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	free(m);
	/* being made now: Incus may not have it yet (netd_sync_forget) */
	nc.fresh = 1;
	(void)strlcpy(name, nc.name, sizeof(name));
	addr = nc.addr;
	if (netd_state_copy(&cur, &next) == -1 ||
	    netd_state_put(&next, &nc) == -1)
		fatal("%s: out of memory", c->name);
	if (state_commit(&next, err, sizeof(err)) == -1) {
		log_warnx("%s: container %s stays as it was: %s", c->name,
		    name, err);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	log_info("%s: container %s enforced", c->name, name);
	/* what a cut-short start left under its NIC's name would fail it */
	jb_nic_ifname(addr, nic, sizeof(nic));
	if ((rc = nicstale_drop(addr, err, sizeof(err))) == 1)
		log_warnx("%s: host interface %s removed: a veth pair with "
		    "both ends on the host, left by a start that was cut "
		    "short", name, nic);
	else if (rc == -1)
		log_warnx("%s: host interface %s: %s", name, nic, err);
	netd_gate_open(name);
	child_done(c, imsg_get_id(imsg), 1, NULL);
	netd_pool_resolve(name);
}

/*
 * apply: the config's egress_allow as it is now, for a container jb-netd
 * holds; its address, mode, deadline and own overrides stay (an override
 * the config now grants is dropped: it would be there twice).  When an
 * entry of the old config is gone, a strict container's established
 * connections are cut, as net strict cuts them.
 */
static void
netd_config(struct child *c, struct imsg *imsg)
{
	struct jb_netd_ctr	*m;
	struct netd_ctr		 nc, *t;
	struct netd_state	 next;
	struct in_addr		 in;
	char			 err[JB_ERR_TEXT_MAX], name[JB_INSTANCE_MAX];
	char			 e[EGRESS_FMT_MAX], why[256];
	uint32_t		 addr;
	size_t			 i;
	int			 narrowed = 0, strict;

	if ((m = malloc(sizeof(*m))) == NULL)
		fatal("%s: malloc", c->name);
	if (imsg_get_data(imsg, m, sizeof(*m)) == -1)
		fatalx("%s: malformed NETD_CONFIG", c->name);
	m->name[sizeof(m->name) - 1] = '\0';
	if ((t = netd_state_find(&cur, m->name)) == NULL) {
		free(m);
		child_done(c, imsg_get_id(imsg), 0, "jb-netd holds no policy "
		    "for this container: make it strict first (jbctl net "
		    "strict)");
		return;
	}
	/* what jb-netd holds, never what the message says */
	in.s_addr = htonl(t->addr);
	(void)inet_ntop(AF_INET, &in, m->ipv4, sizeof(m->ipv4));
	(void)strlcpy(m->mode, t->mode == NFTGEN_STRICT ? "strict" : "loose",
	    sizeof(m->mode));
	m->deadline = t->deadline;
	if (netd_ctr_from_msg(m, &nc, err, sizeof(err)) == -1) {
		free(m);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	free(m);
	for (i = t->n - t->nover; i < t->n; i++)
		if (netd_ctr_override_add(&nc, policy_entry_fmt(&t->e[i], e,
		    sizeof(e)), why, sizeof(why)) == -1)
			log_info("%s: %s: override %s dropped: %s", c->name,
			    nc.name, e, why);
	for (i = 0; i < netd_ctr_ncfg(t); i++)
		if (netd_ctr_find(&nc, &t->e[i]) == -1)
			narrowed = 1;
	nc.fresh = t->fresh;
	addr = t->addr;
	strict = t->mode == NFTGEN_STRICT;
	(void)strlcpy(name, nc.name, sizeof(name));
	if (netd_state_copy(&cur, &next) == -1 ||
	    netd_state_put(&next, &nc) == -1)
		fatal("%s: out of memory", c->name);
	if (state_commit(&next, err, sizeof(err)) == -1) {
		log_warnx("%s: container %s stays as it was: %s", c->name,
		    name, err);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	if (narrowed && strict && netd_ct_flush(addr) == -1) {
		child_done(c, imsg_get_id(imsg), 0, "applied, but established "
		    "connections could not be cut (conntrack)");
		return;
	}
	log_info("%s: container %s: egress_allow applied", c->name, name);
	child_done(c, imsg_get_id(imsg), 1, NULL);
	netd_pool_resolve(name);
}

static void
netd_forget(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	t;
	struct netd_state	next;
	char			err[JB_ERR_TEXT_MAX];

	if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("%s: malformed NETD_FORGET", c->name);
	t.name[sizeof(t.name) - 1] = '\0';
	if (netd_state_copy(&cur, &next) == -1)
		fatal("%s: out of memory", c->name);
	if (netd_state_forget(&next, t.name) == 0) {
		netd_state_free(&next);
		netd_gate_close(t.name);
		child_done(c, imsg_get_id(imsg), 1, NULL);
		return;
	}
	if (state_commit(&next, err, sizeof(err)) == -1) {
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	netd_pool_forget(t.name);
	(void)blocked_forget(&resolver_blocked, t.name);
	(void)blocked_forget(&netd_refused, t.name);
	netd_gate_close(t.name);
	log_info("%s: container %s forgotten", c->name, t.name);
	child_done(c, imsg_get_id(imsg), 1, NULL);
}

/*
 * The parent's start-up sync: Incus has no such container.  One set in
 * this run is being made (its policy comes before Incus has it) and
 * stays; any other is forgotten, which only ever refuses more.
 */
static void
netd_sync_forget(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	 t;
	struct netd_state	 next;
	struct netd_ctr		*k;
	char			 err[JB_ERR_TEXT_MAX];

	if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("%s: malformed NETD_SYNC_FORGET", c->name);
	t.name[sizeof(t.name) - 1] = '\0';
	if ((k = netd_state_find(&cur, t.name)) == NULL || k->fresh) {
		if (k == NULL)
			netd_gate_close(t.name);
		child_done(c, imsg_get_id(imsg), 1, NULL);
		return;
	}
	if (netd_state_copy(&cur, &next) == -1)
		fatal("%s: out of memory", c->name);
	(void)netd_state_forget(&next, t.name);
	if (state_commit(&next, err, sizeof(err)) == -1) {
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	netd_pool_forget(t.name);
	(void)blocked_forget(&resolver_blocked, t.name);
	(void)blocked_forget(&netd_refused, t.name);
	netd_gate_close(t.name);
	log_info("%s: container %s: Incus no longer has it; its policy, "
	    "table elements and pool are gone", c->name, t.name);
	child_done(c, imsg_get_id(imsg), 1, NULL);
}

/*
 * The kernel refused the delta that makes t strict.  Fail closed: t is
 * strict in what is written down whatever happens next, and the whole
 * table is made again in one transaction.  -1: that was refused too (err
 * says why), the kernel still holds t as it was; the parent stops it.
 */
static int
mode_strict_rebuild(struct child *c, struct netd_ctr *t, char *err,
    size_t errlen)
{
	char	e[JB_ERR_TEXT_MAX - 200], e2[256];

	log_warnx("%s: %s: the switch to strict was refused (%s): the whole "
	    "table is made again", c->name, t->name, err);
	t->mode = NFTGEN_STRICT;
	t->deadline = 0;
	if (state_save(&cur, e2, sizeof(e2)) == -1)
		log_warnx("%s: %s", c->name, e2);
	testhook_refuse();
	if (netd_nft_apply(&net, &cur, 1, e, sizeof(e)) == -1) {
		snprintf(err, errlen, "nftables refused the switch and the "
		    "whole table's rebuild: %s", e);
		return -1;
	}
	return 0;
}

/*
 * net loose / net strict: the table changes the container's verdict
 * only (netd_nft_mode), so a switch costs the same for any allowlist;
 * cur changes in place, and back if the change cannot be written down.
 */
static void
netd_mode(struct child *c, struct imsg *imsg)
{
	struct jb_netd_mode	 m;
	struct netd_ctr		*t;
	char			 err[JB_ERR_TEXT_MAX], e2[JB_ERR_TEXT_MAX - 96];
	enum nftgen_mode	 was, mode;
	int64_t			 wasdl;
	int			 strict;

	if (imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("%s: malformed NETD_MODE", c->name);
	m.name[sizeof(m.name) - 1] = '\0';
	m.mode[sizeof(m.mode) - 1] = '\0';
	strict = strcmp(m.mode, "strict") == 0;
	if ((!strict && strcmp(m.mode, "loose") != 0) || m.deadline < 0)
		fatalx("%s: NETD_MODE: bad mode or deadline", c->name);
	if ((t = netd_state_find(&cur, m.name)) == NULL) {
		snprintf(err, sizeof(err), "jb-netd holds no policy for %s "
		    "(made before jb-netd enforced policies?): destroy and "
		    "recreate it", m.name);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	was = t->mode;
	wasdl = t->deadline;
	mode = strict ? NFTGEN_STRICT : NFTGEN_LOOSE;
	testhook_refuse();
	if (netd_nft_mode(&net, t->name, mode, e2, sizeof(e2)) == -1) {
		if (strict && mode_strict_rebuild(c, t, e2, sizeof(e2)) == 0)
			goto enforced;
		snprintf(err, sizeof(err), "%s stays %s: %s", m.name,
		    was == NFTGEN_STRICT ? "strict" : "loose", e2);
		log_warnx("%s: %s", c->name, err);
		if (strict && was == NFTGEN_LOOSE) {
			/* the kernel still lets it out: the parent stops it */
			(void)strlcpy(m.mode, "loose", sizeof(m.mode));
			m.deadline = wasdl;
			if (imsgev_compose(&c->iev, IMSG_NETD_MODE_ENTRY,
			    imsg_get_id(imsg), 0, -1, &m, sizeof(m)) == -1)
				fatal("%s: compose", c->name);
		}
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	t->mode = mode;
	t->deadline = strict ? 0 : m.deadline;
	if (state_save(&cur, e2, sizeof(e2)) == -1) {
		char	e3[256];

		/* enforced, not recorded: put the kernel back as well */
		if (netd_nft_mode(&net, t->name, was, e3, sizeof(e3)) == -1)
			log_warnx("cannot restore the table: %s", e3);
		t->mode = was;
		t->deadline = wasdl;
		snprintf(err, sizeof(err), "%s stays %s: %s", m.name,
		    was == NFTGEN_STRICT ? "strict" : "loose", e2);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
enforced:
	if (strict && netd_ct_flush(t->addr) == -1) {
		child_done(c, imsg_get_id(imsg), 0, "strict, but its established "
		    "connections could not be cut (conntrack)");
		return;
	}
	revert_arm();
	log_info("%s: container %s is %s", c->name, m.name, m.mode);
	/* pinned from the pool at once, strip when loose; then fresh names */
	netd_pool_pin(m.name, imsg_get_id(imsg));
	child_done(c, imsg_get_id(imsg), 1, NULL);
	if (strict)
		netd_pool_refresh(m.name, 0);
}

/* where entry i of t comes from, as ls and status name it */
const char *
entry_origin(const struct netd_ctr *t, size_t i)
{
	static char	buf[sizeof("agent:") + EGRESS_AGENT_MAX];

	/* a feature's entry: its name */
	if (i < netd_ctr_ncfg(t) && t->e[i].agent[0] == ':')
		return t->e[i].agent + 1;
	if (i < netd_ctr_ncfg(t) && t->e[i].agent[0] != '\0') {
		(void)snprintf(buf, sizeof(buf), "agent:%s", t->e[i].agent);
		return buf;
	}
	if (i < netd_ctr_ncfg(t))
		return "config";
	if (i < t->n - t->nover)
		return "repo-override";
	return "container";
}

/* net status: one container as CTR, its ALLOWs and its ADDRs */
static void
status_ctr(struct child *c, uint32_t rid, const struct netd_ctr *t)
{
	struct jb_net_ctr	 m;
	struct jb_net_allow	 al;
	struct in_addr		 in;
	char			 e[EGRESS_FMT_MAX];
	size_t			 i;

	memset(&m, 0, sizeof(m));
	(void)strlcpy(m.name, t->name, sizeof(m.name));
	in.s_addr = htonl(t->addr);
	(void)inet_ntop(AF_INET, &in, m.ipv4, sizeof(m.ipv4));
	(void)strlcpy(m.mode, t->mode == NFTGEN_STRICT ? "strict" : "loose",
	    sizeof(m.mode));
	m.deadline = t->mode == NFTGEN_STRICT ? 0 : t->deadline;
	(void)strlcpy(m.repo, t->repo, sizeof(m.repo));
	m.npool = (uint32_t)netd_pool_count(t->name);
	netd_pool_broken(t->name, m.broken, sizeof(m.broken));
	if (imsgev_compose(&c->iev, IMSG_NETD_CTR, rid, 0, -1, &m,
	    sizeof(m)) == -1)
		fatal("%s: compose", __func__);
	for (i = 0; i < t->n; i++) {
		memset(&al, 0, sizeof(al));
		(void)strlcpy(al.name, t->name, sizeof(al.name));
		(void)strlcpy(al.entry, policy_entry_fmt(&t->e[i], e,
		    sizeof(e)), sizeof(al.entry));
		(void)strlcpy(al.origin, entry_origin(t, i),
		    sizeof(al.origin));
		(void)nftgen_path(&net, &t->e[i], al.path, sizeof(al.path));
		if (imsgev_compose(&c->iev, IMSG_NETD_ALLOW, rid, 0, -1, &al,
		    sizeof(al)) == -1)
			fatal("%s: compose", __func__);
	}
	netd_pool_status(c, rid, t->name);
}

/*
 * net status: the named container, or with name "" every container
 * (prefix: of that repo only).  jb-netd holding no policy for a named
 * one is said as a CTR without a mode: every packet from it is refused.
 */
static void
netd_status(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	 q;
	struct jb_net_ctr	 m;
	struct netd_ctr		*t;
	uint32_t		 rid = imsg_get_id(imsg);
	size_t			 i;

	if (imsg_get_data(imsg, &q, sizeof(q)) == -1)
		fatalx("%s: malformed NETD_STATUS", c->name);
	q.name[sizeof(q.name) - 1] = '\0';
	q.prefix[sizeof(q.prefix) - 1] = '\0';
	if (q.name[0] == '\0') {
		for (i = 0; i < cur.n; i++)
			if (q.prefix[0] == '\0' ||
			    strcmp(cur.v[i].repo, q.prefix) == 0)
				status_ctr(c, rid, &cur.v[i]);
		child_done(c, rid, 1, NULL);
		return;
	}
	if ((t = netd_state_find(&cur, q.name)) == NULL) {
		memset(&m, 0, sizeof(m));
		(void)strlcpy(m.name, q.name, sizeof(m.name));
		(void)strlcpy(m.broken, "jb-netd holds no policy for it: "
		    "every packet from it is refused", sizeof(m.broken));
		if (imsgev_compose(&c->iev, IMSG_NETD_CTR, rid, 0, -1, &m,
		    sizeof(m)) == -1)
			fatal("%s: compose", __func__);
	} else
		status_ctr(c, rid, t);
	child_done(c, rid, 1, NULL);
}

/* for ls: each container's mode as enforced now, not as it was created */
static void
netd_modes(struct child *c, struct imsg *imsg)
{
	struct jb_netd_mode	m;
	size_t			i;

	for (i = 0; i < cur.n; i++) {
		memset(&m, 0, sizeof(m));
		(void)strlcpy(m.name, cur.v[i].name, sizeof(m.name));
		(void)strlcpy(m.mode, cur.v[i].mode == NFTGEN_LOOSE ? "loose" :
		    "strict", sizeof(m.mode));
		m.deadline = cur.v[i].deadline;
		if (imsgev_compose(&c->iev, IMSG_NETD_MODE_ENTRY,
		    imsg_get_id(imsg), 0, -1, &m, sizeof(m)) == -1)
			fatal("%s: compose", c->name);
	}
	child_done(c, imsg_get_id(imsg), 1, NULL);
}

/*
 * doctor: the kernel holds table inet jailbee with its map ctrs,
 * and an element in it for every container jb-netd holds (without one,
 * every packet of the container is refused, so it fails closed, but it
 * does not work)
 */
static void
netd_check(struct child *c, struct imsg *imsg)
{
	struct jb_netd_check	 k;
	struct in_addr		 in;
	const char		*out, *p;
	char			 a[INET_ADDRSTRLEN], el[INET_ADDRSTRLEN + 4];
	char			 err[256];
	size_t			 i;
	int			 found;

	if (imsg_get_len(imsg) != 0)
		fatalx("%s: NETD_CHECK with a payload", c->name);
	memset(&k, 0, sizeof(k));
	k.nctr = (uint32_t)cur.n;
	if ((out = netd_nft_list("list map inet jailbee ctrs", err,
	    sizeof(err))) == NULL) {
		(void)strlcpy(k.err, err, sizeof(k.err));
		k.nmissing = k.nctr;
	} else {
		k.table = 1;
		/* each element is printed "ADDR : verdict" */
		for (i = 0; i < cur.n; i++) {
			in.s_addr = htonl(cur.v[i].addr);
			(void)inet_ntop(AF_INET, &in, a, sizeof(a));
			(void)snprintf(el, sizeof(el), "%s : ", a);
			found = 0;
			for (p = out; !found && (p = strstr(p, el)) != NULL;
			    p++)
				if (p == out || p[-1] == ' ' || p[-1] == '\t' ||
				    p[-1] == '{' || p[-1] == '\n')
					found = 1;
			if (found)
				continue;
			if (k.nmissing++ > 0)
				(void)strlcat(k.missing, ", ", sizeof(k.missing));
			(void)strlcat(k.missing, cur.v[i].name,
			    sizeof(k.missing));
		}
	}
	netd_nft_drain();
	/* each container's port in the bridge table, or it sends nothing */
	if ((out = netd_nft_list("list set bridge jailbee ports", err,
	    sizeof(err))) == NULL) {
		(void)strlcpy(k.berr, err, sizeof(k.berr));
		k.nbmissing = k.nctr;
	} else {
		k.bridge = 1;
		/* each element is printed "\"PORT\" . MAC . ADDR" */
		for (i = 0; i < cur.n; i++) {
			jb_nic_ifname(cur.v[i].addr, a, sizeof(a));
			(void)snprintf(el, sizeof(el), "\"%s\"", a);
			if (strstr(out, el) != NULL)
				continue;
			if (k.nbmissing++ > 0)
				(void)strlcat(k.bmissing, ", ",
				    sizeof(k.bmissing));
			(void)strlcat(k.bmissing, cur.v[i].name,
			    sizeof(k.bmissing));
		}
	}
	netd_nft_drain();
	if (imsgev_compose(&c->iev, IMSG_NETD_CHECKED, imsg_get_id(imsg), 0,
	    -1, &k, sizeof(k)) == -1)
		fatal("%s: compose", c->name);
	child_done(c, imsg_get_id(imsg), 1, NULL);
}

/* one entry of a table of refusals to the parent */
static void
block_send(struct child *c, uint32_t rid, const struct blocked_entry *e,
    const char *kind, const struct netd_pool_name *names, size_t nnames)
{
	struct jb_net_block	b;
	struct refused_elem	r;

	memset(&b, 0, sizeof(b));
	(void)strlcpy(b.name, e->ctr, sizeof(b.name));
	(void)strlcpy(b.kind, kind, sizeof(b.kind));
	(void)strlcpy(b.what, e->what, sizeof(b.what));
	b.count = e->count;
	b.first = e->first;
	b.last = e->last;
	if (strcmp(kind, "priv") == 0)
		;	/* an address no entry is made for by a suggestion */
	else if (strcmp(kind, "name") == 0)
		netd_gw_allow(e, b.allow, sizeof(b.allow));
	else if (strcmp(kind, "dns") != 0) {
		memset(&r, 0, sizeof(r));
		if (refused_unwhat(e->what, &r) == 0)
			(void)refused_allow(&r, netd_pool_name_of(names,
			    nnames, r.dst), b.allow, sizeof(b.allow));
	} else if (strcmp(e->what, BLOCKED_ODD) != 0)
		(void)strlcpy(b.allow, e->what, sizeof(b.allow));
	if (imsgev_compose(&c->iev, IMSG_NETD_BLOCK, rid, 0, -1, &b,
	    sizeof(b)) == -1)
		fatal("%s: compose", c->name);
}

/* net log, net suggest: the names and connections refused to one */
static void
netd_blocked(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	 q;
	struct netd_pool_name	*names;
	const struct blocked	*bl = &resolver_blocked;
	size_t			 i, nnames;

	if (imsg_get_data(imsg, &q, sizeof(q)) == -1)
		fatalx("%s: malformed NETD_BLOCKED", c->name);
	q.name[sizeof(q.name) - 1] = '\0';
	for (i = 0; i < bl->n; i++)
		if (strcmp(bl->v[i].ctr, q.name) == 0)
			block_send(c, imsg_get_id(imsg), &bl->v[i], "dns",
			    NULL, 0);
	/* answers left out: "ADDR NAME", nothing to suggest */
	bl = &resolver_private;
	for (i = 0; i < bl->n; i++)
		if (strcmp(bl->v[i].ctr, q.name) == 0)
			block_send(c, imsg_get_id(imsg), &bl->v[i], "priv",
			    NULL, 0);
	/* what the kernel counted until now, then by name where known */
	(void)netd_refused_drain(&cur, time(NULL));
	nnames = netd_pool_names(q.name, &names);
	bl = &netd_refused;
	for (i = 0; i < bl->n; i++)
		if (strcmp(bl->v[i].ctr, q.name) == 0)
			block_send(c, imsg_get_id(imsg), &bl->v[i], "conn",
			    names, nnames);
	free(names);
	/* what the egress gateway refused, by name */
	bl = &netd_gw_refused;
	for (i = 0; i < bl->n; i++)
		if (strcmp(bl->v[i].ctr, q.name) == 0)
			block_send(c, imsg_get_id(imsg), &bl->v[i], "name",
			    NULL, 0);
	child_done(c, imsg_get_id(imsg), 1, NULL);
}

/* net refresh: resolve now; PIN and DONE once everything answered */
static void
netd_refresh(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	t;

	if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("%s: malformed NETD_REFRESH", c->name);
	t.name[sizeof(t.name) - 1] = '\0';
	netd_pool_refresh(t.name, imsg_get_id(imsg));
}

static int
netd_dispatch(struct child *c, struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_NETD_SET:
		netd_set(c, imsg);
		return 0;
	case IMSG_NETD_FORGET:
		netd_forget(c, imsg);
		return 0;
	case IMSG_NETD_MODE:
		netd_mode(c, imsg);
		return 0;
	case IMSG_NETD_STATUS:
		netd_status(c, imsg);
		return 0;
	case IMSG_NETD_EGRESS:
		netd_egress(c, imsg);
		return 0;
	case IMSG_NETD_EGRESS_EDIT:
		netd_egress_edit(c, imsg);
		return 0;
	case IMSG_NETD_MODES:
		netd_modes(c, imsg);
		return 0;
	case IMSG_NETD_CHECK:
		netd_check(c, imsg);
		return 0;
	case IMSG_EGRESS_REFUSED:
		netd_gw_refusal(c, imsg);
		return 0;
	case IMSG_EGRESS_RESOLVE:
		netd_proxy_resolve(c, imsg);
		return 0;
	case IMSG_EGRESS_ADMITTED:
		netd_gw_admitted(c, imsg);
		return 0;
	case IMSG_NETD_BLOCKED:
		netd_blocked(c, imsg);
		return 0;
	case IMSG_NETD_CONFIG:
		netd_config(c, imsg);
		return 0;
	case IMSG_NETD_SYNC_FORGET:
		netd_sync_forget(c, imsg);
		return 0;
	case IMSG_NETD_REFRESH:
		netd_refresh(c, imsg);
		return 0;
	case IMSG_NETD_PINNED:
		netd_pool_pinned(imsg);
		return 0;
	case IMSG_NETD_RECORD_GET:
		netd_record_get(c, imsg);
		return 0;
	case IMSG_NETD_RESTORE:
		netd_restore(c, imsg);
		return 0;
	default:
		return -1;
	}
}

static struct event	gw_ev;
static struct timeval	gw_now;

/*
 * From now on the gateway hears of every change and admission; the
 * pool's addresses are admitted again only now, so that the gateway
 * hears of those too (a client that cached an answer across the
 * restart reaches it by name as before).
 */
static void
gw_start(int fd, short ev, void *arg)
{
	netd_gw_init(arg);
	netd_gw_push(&cur);
	netd_pool_start();
}

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct in_addr		 in;
	char			 err[1024], host[INET_ADDRSTRLEN];
	char			 gatedir[PATH_MAX];
	static const int	 keep[] = { CAP_NET_ADMIN };
	static uint32_t		 reverted[256];
	size_t			 nreverted = 0, i;
	int			 nfound;

	child_init(&c, "jb-netd", argc, argv, &a);
	if (a.bridge == NULL)
		fatalx("%s: no bridge given (-b)", c.name);
	if (a.state_dir == NULL)
		fatalx("%s: no state directory given (-S)", c.name);
	memset(&net, 0, sizeof(net));
	net.bridge = a.bridge;
	net.dns_port = RESOLVER_PORT;
	/* the egress gateway's ports: its listener's is the suite's own */
	net.gw_ports = a.gw_ports;
	net.ngw = a.ngw;
	net.gw_port = JB_EGRESS_PORT;
	net.proxy_port = a.proxy_port;
	if (bridge_addr(a.bridge, &net) == -1)
		fatalx("%s: bridge %s has no IPv4 address: without it no "
		    "container can be fenced in, so the suite does not start "
		    "(regress/setup-host creates it)", c.name, a.bridge);
	if ((size_t)snprintf(statepath, sizeof(statepath), "%s/netd/%s",
	    a.state_dir, STATE_FILE) >= sizeof(statepath) ||
	    (size_t)snprintf(statedir, sizeof(statedir), "%s/netd",
	    a.state_dir) >= sizeof(statedir))
		fatalx("%s: state_dir too long", c.name);
	{
		char	dir[PATH_MAX];

		(void)snprintf(dir, sizeof(dir), "%s/netd", a.state_dir);
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			fatal("%s: mkdir %s", c.name, dir);
		if ((statefd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		    O_NOFOLLOW)) == -1)
			fatal("%s: %s", c.name, dir);
	}
	forwarding_on(c.name);
	state_load(c.name);
	{
		char	dir[PATH_MAX];

		(void)snprintf(dir, sizeof(dir), "%s/netd", a.state_dir);
		netd_pool_init(&c, statefd, dir, &cur);
	}
	/* deadlines that passed while the suite was down apply now */
	{
		time_t	now = time(NULL);

		nreverted = 0;
		for (i = 0; i < cur.n; i++)
			if (cur.v[i].mode == NFTGEN_LOOSE &&
			    cur.v[i].deadline != 0 &&
			    cur.v[i].deadline <= now) {
				log_info("%s: %s: its loose deadline passed "
				    "while the suite was down: strict", c.name,
				    cur.v[i].name);
				cur.v[i].mode = NFTGEN_STRICT;
				cur.v[i].deadline = 0;
				if (nreverted < NELEM(reverted))
					reverted[nreverted++] = cur.v[i].addr;
			}
	}
	if (netd_nft_init(err, sizeof(err)) == -1)
		fatalx("%s: %s", c.name, err);
	if (a.socket == NULL || gate_dir(a.socket, gatedir,
	    sizeof(gatedir)) == -1)
		fatalx("%s: no control socket path given (-S), or too long: "
		    "the start gates live beside it", c.name);
	netd_gate_init(c.name, gatedir);
	priv_drop(c.name, NULL, NULL, keep, 1);
	/* from here on, however jb-netd ends (but a crash) no gate stays */
	if (atexit(netd_gate_close_all) != 0)
		fatalx("%s: atexit", c.name);
	/* a table left by a run before, emptied or written by another */
	if ((nfound = netd_nft_chains_found()) >= 0)
		log_info("%s: table inet %s found at start with %d chain(s): "
		    "replaced whole by the policy of the %zu recorded "
		    "container(s)", c.name, NFTGEN_TABLE, nfound, cur.n);
	testhook_refuse();
	if (netd_nft_apply(&net, &cur, 1, err, sizeof(err)) == -1) {
		log_warnx("%s: the recorded containers cannot be enforced "
		    "(%s): every container stays refused", c.name, err);
		netd_state_free(&cur);
		if (netd_nft_apply(&net, &cur, 1, err, sizeof(err)) == -1)
			fatalx("%s: cannot install table inet %s: %s", c.name,
			    NFTGEN_TABLE, err);
	}
	for (i = 0; i < nreverted; i++)
		if (netd_ct_flush(reverted[i]) == -1)
			log_warnx("%s: cannot flush conntrack", c.name);
	if (nreverted > 0 && state_save(&cur, err, sizeof(err)) == -1)
		log_warnx("%s: %s", c.name, err);
	/* after the table: until it exists no DNS is redirected here */
	if (resolver_init(c.base, net.host, RESOLVER_PORT, a.upstream, a.privnets, &cur,
	    err, sizeof(err)) == -1 || resolver_tcp_init(c.base, net.host,
	    RESOLVER_PORT, err, sizeof(err)) == -1)
		fatalx("%s: %s", c.name, err);
	in.s_addr = htonl(net.host);
	inet_ntop(AF_INET, &in, host, sizeof(host));
	(void)snprintf(c.detail, sizeof(c.detail), "table inet %s on %s "
	    "(%s/%u): %zu container(s) enforced; resolver %s:%u, upstream %s",
	    NFTGEN_TABLE, a.bridge, host, net.prefixlen, cur.n, host,
	    RESOLVER_PORT, resolver_upstream());
	log_info("%s: %s", c.name, c.detail);
	c.dispatch = netd_dispatch;
	evtimer_set(&revert_ev, revert_fire, &c);
	revert_arm();
	netd_notice_init(&c);
	evtimer_set(&summary_ev, summary_fire, &c);
	summary_fire(-1, 0, &c);
	evtimer_set(&refused_ev, refused_fire, &c);
	refused_fire(-1, 0, &c);
	/* the gateway's first snapshot, once the channel is up */
	evtimer_set(&gw_ev, gw_start, &c);
	evtimer_add(&gw_ev, &gw_now);
	sandbox_jb_netd(a.state_dir, gatedir);
	child_run(&c);
}
