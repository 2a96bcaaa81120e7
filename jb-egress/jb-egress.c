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
 * jb-egress: the egress gateway.  A strict container's TCP connections
 * to the gateway's ports that no address entry admits are sent here by
 * jb-netd's table (DNAT to the bridge address); for each one it reads
 * the TLS ClientHello or the HTTP request heads and admits it only when
 * the name is on the container's allowlist for that port and the
 * destination is an address the resolver gave the container for that
 * name (gwpolicy.c), then splices it to the destination (conn.c).
 *
 * Runs as its own user, no capability, no file; its listening socket
 * comes from the parent, its policy from jb-netd through the parent.
 */

#include <sys/resource.h>

#include <arpa/inet.h>

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ca.h"
#include "egress.h"
#include "egsecrets.h"
#include "gwpolicy.h"
#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "testhook.h"
#include "tlsconf.h"

struct egress_stats	 stats;
struct child		*chld;
static struct event	 expire_ev;

static int64_t
mono(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void
expire_fire(int fd, short ev, void *arg)
{
	struct timeval	tv = { 30, 0 };

	gwpol_expire(mono());
	evtimer_add(&expire_ev, &tv);
}

static void
status(struct child *c, uint32_t rid)
{
	(void)snprintf(c->detail, sizeof(c->detail), "gateway: %zu "
	    "container(s), %zu admission(s), %zu connection(s) open "
	    "(%zu terminated), %zu secret(s), %llu admitted, %llu refused; "
	    "proxy: %zu open", gwpol_count(), gwpol_notes(), stats.open,
	    mitmc_open(), egsec_count(), (unsigned long long)stats.admitted,
	    (unsigned long long)stats.refused, proxy_open());
	child_status_reply(c, rid);
}

static int
dispatch(struct child *c, struct imsg *imsg)
{
	struct jb_egress_listen	 l;
	struct jb_egress_policy	 p;
	struct jb_egress_admit	 a;
	struct jb_egress_admitted ad;
	struct jb_egress_resolved r;
	struct jb_egress_secret	 sec;
	struct jb_egress_ca	 ca;
	struct jb_egress_fresh	 fr;
	struct ca		*cap;
	char			 err[512];
	uint32_t		 i;
	int			 fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_EGRESS_LISTEN:
		if (imsg_get_data(imsg, &l, sizeof(l)) == -1 ||
		    (fd = imsg_get_fd(imsg)) == -1)
			fatalx("bad EGRESS_LISTEN");
		if (strcmp(l.kind, "transparent") == 0)
			conn_listen(fd);
		else if (strcmp(l.kind, "proxy") == 0)
			proxy_listen(fd);
		else
			fatalx("bad EGRESS_LISTEN");
		return 0;
	case IMSG_EGRESS_RESOLVED:
		if (imsg_get_data(imsg, &r, sizeof(r)) == -1)
			fatalx("bad EGRESS_RESOLVED");
		r.why[sizeof(r.why) - 1] = '\0';
		proxy_resolved(&r);
		return 0;
	case IMSG_EGRESS_POLICY:
		if (imsg_get_data(imsg, &p, sizeof(p)) == -1)
			fatalx("bad EGRESS_POLICY");
		/* a part the gateway cannot read: it keeps the last policy */
		if (gwpol_part(&p, err, sizeof(err)) == -1)
			log_warnx("policy %u not taken: %s", p.gen, err);
		else if (p.flags & JB_EGRESS_END)
			log_debug("policy %u: %zu container(s)", p.gen,
			    gwpol_count());
		return 0;
	case IMSG_EGRESS_SECRET:
		if (imsg_get_data(imsg, &sec, sizeof(sec)) == -1)
			fatalx("bad EGRESS_SECRET");
		if (egsec_part(&sec, err, sizeof(err)) == -1)
			log_warnx("secrets not taken: %s", err);
		explicit_bzero(&sec, sizeof(sec));
		return 0;
	case IMSG_EGRESS_FRESH:
		if (imsg_get_data(imsg, &fr, sizeof(fr)) == -1)
			fatalx("bad EGRESS_FRESH");
		conn_fresh(fr.id);
		return 0;
	case IMSG_EGRESS_CA_GET:
		if (imsg_get_data(imsg, &ca, sizeof(ca)) == -1)
			fatalx("bad EGRESS_CA_GET");
		if ((cap = egsec_ca(ca.ctr)) == NULL ||
		    strlcpy(ca.pem, ca_cert_pem(cap), sizeof(ca.pem)) >=
		    sizeof(ca.pem)) {
			child_done(c, imsg_get_id(imsg), 0, "the gateway could "
			    "not make the container's CA");
			return 0;
		}
		if (imsgev_compose(&c->iev, IMSG_EGRESS_CA, imsg_get_id(imsg),
		    0, -1, &ca, sizeof(ca)) == -1)
			fatal("compose");
		child_done(c, imsg_get_id(imsg), 1, NULL);
		return 0;
	case IMSG_EGRESS_ADMIT:
		if (imsg_get_data(imsg, &a, sizeof(a)) == -1 ||
		    a.naddr > JB_EGRESS_ADMIT_MAX)
			fatalx("bad EGRESS_ADMIT");
		for (i = 0; i < a.naddr; i++)
			if (gwpol_admit(a.name, a.host, a.addr[i],
			    mono() + a.ttl) == -1)
				log_warnx("%s: %s: too many admissions held: "
				    "not noted, its connections are refused",
				    a.name, a.host);
		/* the resolver's answer waits for this */
		if (a.seq != 0) {
			ad.seq = a.seq;
			if (imsgev_compose(&c->iev, IMSG_EGRESS_ADMITTED, 0, 0,
			    -1, &ad, sizeof(ad)) == -1)
				fatal("compose");
		}
		return 0;
	}
	return -1;
}

int
main(int argc, char *argv[])
{
	static struct child	 c;
	struct child_args	 a;
	struct passwd		*pw;
	struct timeval		 tv = { 30, 0 };

	child_init(&c, "jb-egress", argc, argv, &a);
	chld = &c;
	if (a.ngw == 0)
		fatalx("%s: no gateway ports given (-G)", c.name);
	if ((pw = getpwnam(JB_USER_EGRESS)) == NULL)
		fatalx("%s: user %s does not exist; run regress/setup-host "
		    "(make deps) to create it", c.name, JB_USER_EGRESS);
	conn_limits();
	proxy_init(a.gw_ports, a.ngw);
	/*
	 * OpenSSL's configuration is read now, while files can be opened,
	 * and so is the trust store for the secrets' hosts opened: no file
	 * access later.  Both are applied at their first use (the first
	 * container CA or terminated connection): a gateway that never
	 * terminates one holds neither, nor libcrypto's error strings and
	 * libssl's tables (tlsconf.h).
	 */
	tlsconf_read();
	if (a.ca != NULL)
		(void)mitmc_init(a.ca);
	priv_drop(c.name, pw, JB_SSHD_CHROOT, NULL, 0);
	evtimer_set(&expire_ev, expire_fire, NULL);
	evtimer_add(&expire_ev, &tv);
	sandbox_jb_egress(a.gw_ports, a.ngw);
	(void)strlcpy(c.detail, "gateway: waiting for its socket and policy",
	    sizeof(c.detail));
	c.dispatch = dispatch;
	c.status = status;
	c.fdrecv = 1;
	child_run(&c);
}
