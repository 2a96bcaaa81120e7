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
 * jbctl net status [NAME | --all]: the whole boundary of each
 * container.  jb-netd says the policy it enforces (mode, deadline, each
 * allow entry and its origin, the pooled addresses of each allowed name
 * and until when, what is broken) as structured messages; jb-incus says
 * the port forwards, which bypass that policy.  Both are collected, then
 * sent to jbctl container by container: CTR, ALLOWs, ADDRs, PORTs.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "log.h"
#include "netstatus.h"
#include "ports.h"
#include "secrets.h"

struct nstat {
	struct jb_incus_target	 t;
	struct jb_net_ctr	*ctr;
	size_t			 nctr;
	struct jb_net_allow	*allow;
	size_t			 nallow;
	struct jb_net_addr	*addr;
	size_t			 naddr;
	struct jb_port		*port;
	size_t			 nport;
	/* the checkout's secrets, for its own containers */
	struct jb_net_secret	*sec;
	size_t			 nsec;
	char			 prefix[NAME_PREFIX_MAX + 2];	/* "P-" */
};

static void
nstat_free(void *arg)
{
	struct nstat	*ns = arg;

	free(ns->ctr);
	free(ns->allow);
	free(ns->addr);
	free(ns->port);
	free(ns->sec);
	free(ns);
}

/* append one element of size sz to *v (n of them) */
static void *
grow(void *v, size_t *n, size_t sz)
{
	void	*nv;

	if ((nv = reallocarray(v, *n + 1, sz)) == NULL)
		fatal("%s", __func__);
	(*n)++;
	return nv;
}

static void
ns_netd(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct nstat	*ns = job->state;
	struct jb_net_ctr	*c;
	struct jb_net_allow	*a;
	struct jb_net_addr	*d;

	switch (imsg_get_type(imsg)) {
	case IMSG_NETD_CTR:
		ns->ctr = grow(ns->ctr, &ns->nctr, sizeof(*ns->ctr));
		c = &ns->ctr[ns->nctr - 1];
		if (imsg_get_data(imsg, c, sizeof(*c)) == -1)
			fatalx("jb-netd: malformed NETD_CTR");
		c->name[sizeof(c->name) - 1] = '\0';
		c->ipv4[sizeof(c->ipv4) - 1] = '\0';
		c->mode[sizeof(c->mode) - 1] = '\0';
		c->repo[sizeof(c->repo) - 1] = '\0';
		c->broken[sizeof(c->broken) - 1] = '\0';
		break;
	case IMSG_NETD_ALLOW:
		ns->allow = grow(ns->allow, &ns->nallow, sizeof(*ns->allow));
		a = &ns->allow[ns->nallow - 1];
		if (imsg_get_data(imsg, a, sizeof(*a)) == -1)
			fatalx("jb-netd: malformed NETD_ALLOW");
		a->name[sizeof(a->name) - 1] = '\0';
		a->entry[sizeof(a->entry) - 1] = '\0';
		a->origin[sizeof(a->origin) - 1] = '\0';
		break;
	case IMSG_NETD_ADDR:
		ns->addr = grow(ns->addr, &ns->naddr, sizeof(*ns->addr));
		d = &ns->addr[ns->naddr - 1];
		if (imsg_get_data(imsg, d, sizeof(*d)) == -1)
			fatalx("jb-netd: malformed NETD_ADDR");
		d->name[sizeof(d->name) - 1] = '\0';
		d->host[sizeof(d->host) - 1] = '\0';
		d->ipv4[sizeof(d->ipv4) - 1] = '\0';
		break;
	default:
		fatalx("jb-netd: %s in reply to NETD_STATUS",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

static void
ns_port(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct nstat	*ns = job->state;
	struct jb_port	*p;

	ns->port = grow(ns->port, &ns->nport, sizeof(*ns->port));
	p = &ns->port[ns->nport - 1];
	ports_msg_get(imsg, p);
}

/* one container's CTR and what belongs to it */
static void
ns_send(struct job *job, const struct jb_net_ctr *c)
{
	struct nstat	*ns = job->state;
	size_t		 i;

	(void)job_reply(job, IMSG_CTL_NET_CTR, c, sizeof(*c), -1);
	for (i = 0; i < ns->nallow; i++)
		if (strcmp(ns->allow[i].name, c->name) == 0)
			(void)job_reply(job, IMSG_CTL_NET_ALLOW, &ns->allow[i],
			    sizeof(ns->allow[i]), -1);
	for (i = 0; i < ns->naddr; i++)
		if (strcmp(ns->addr[i].name, c->name) == 0)
			(void)job_reply(job, IMSG_CTL_NET_ADDR, &ns->addr[i],
			    sizeof(ns->addr[i]), -1);
	for (i = 0; i < ns->nport; i++)
		if (strcmp(ns->port[i].name, c->name) == 0)
			(void)job_reply(job, IMSG_CTL_PORT, &ns->port[i],
			    sizeof(ns->port[i]), -1);
	for (i = 0; i < ns->nsec && ns->prefix[0] != '\0' &&
	    strncmp(c->name, ns->prefix, strlen(ns->prefix)) == 0; i++) {
		(void)strlcpy(ns->sec[i].name, c->name,
		    sizeof(ns->sec[i].name));
		(void)job_reply(job, IMSG_CTL_NET_SECRET, &ns->sec[i],
		    sizeof(ns->sec[i]), -1);
	}
}

static void
ns_ports_done(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct nstat		*ns = job->state;
	struct jb_net_ctr	 c;
	size_t			 i, j;

	if (!ok) {
		job_end(job, 0, "port forwards: %s", err);
		return;
	}
	for (i = 0; i < ns->nctr; i++)
		ns_send(job, &ns->ctr[i]);
	/* forwards of a container jb-netd does not know: said all the same */
	for (i = 0; i < ns->nport; i++) {
		for (j = 0; j < ns->nctr; j++)
			if (strcmp(ns->ctr[j].name, ns->port[i].name) == 0)
				break;
		if (j < ns->nctr)
			continue;
		for (j = 0; j < i; j++)
			if (strcmp(ns->port[j].name, ns->port[i].name) == 0)
				break;
		if (j < i)
			continue;
		memset(&c, 0, sizeof(c));
		(void)strlcpy(c.name, ns->port[i].name, sizeof(c.name));
		(void)strlcpy(c.repo, ns->port[i].prefix, sizeof(c.repo));
		(void)strlcpy(c.broken, "jb-netd holds no policy for it: every "
		    "packet from it is refused", sizeof(c.broken));
		ns_send(job, &c);
	}
	job_end(job, 1, NULL);
}

static void	ns_ports(struct job *);

static void
ns_netd_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	ns_ports(job);
}

/* then the port forwards jb-incus knows, and each container is sent */
static void
ns_ports(struct job *job)
{
	struct nstat	*ns = job->state;

	if (req_send(PROC_INCUS, IMSG_INCUS_PORT_LIST, &ns->t, sizeof(ns->t),
	    -1, ns_port, ns_ports_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

/* the names, hosts and headers of conf's secrets; never a value */
static void
ns_secret(struct nstat *ns, const struct rc_secret *r, const char *why)
{
	struct jb_net_secret	*s;
	int			 j;

	ns->sec = grow(ns->sec, &ns->nsec, sizeof(*ns->sec));
	s = &ns->sec[ns->nsec - 1];
	memset(s, 0, sizeof(*s));
	(void)strlcpy(s->secret, r->name, sizeof(s->secret));
	for (j = 0; j < r->nhosts; j++) {
		if (j > 0)
			(void)strlcat(s->hosts, ", ", sizeof(s->hosts));
		(void)strlcat(s->hosts, r->hosts[j], sizeof(s->hosts));
	}
	(void)strlcpy(s->header, r->header, sizeof(s->header));
	(void)strlcpy(s->why, why, sizeof(s->why));
}

static void
ns_secrets(struct nstat *ns, const struct repoconf *conf)
{
	struct rc_secret	 gh;
	char			 why[sizeof(ns->sec->why)];
	int			 i;

	(void)snprintf(ns->prefix, sizeof(ns->prefix), "%s-",
	    conf->container_prefix);
	for (i = 0; i < conf->nsecrets; i++)
		ns_secret(ns, &conf->secrets[i], "");
	/* github.token: put in like the others, or why it is not given */
	if (github_secret(conf, &gh, why, sizeof(why)) == 1)
		ns_secret(ns, &gh, "");
	else if (why[0] != '\0')
		ns_secret(ns, &gh, why);
}

/*
 * A container another cluster member runs: its mode and deadline as
 * Incus holds them (no allow list or addresses: that member's jb-netd
 * has them), then its port forwards.
 */
void
net_status_away(struct job *job, const struct jb_policy *p,
    const struct repo_ctx *ctx)
{
	struct nstat		*ns;
	struct jb_net_ctr	*c;

	if ((ns = calloc(1, sizeof(*ns))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	job->state = ns;
	job->free_state = nstat_free;
	if (ctx != NULL && ctx->have_conf)
		ns_secrets(ns, &ctx->conf);
	(void)strlcpy(ns->t.name, p->name, sizeof(ns->t.name));
	ns->ctr = grow(ns->ctr, &ns->nctr, sizeof(*ns->ctr));
	c = &ns->ctr[0];
	memset(c, 0, sizeof(*c));
	(void)strlcpy(c->name, p->name, sizeof(c->name));
	(void)strlcpy(c->ipv4, p->ipv4, sizeof(c->ipv4));
	(void)strlcpy(c->mode, strcmp(p->net, "loose") == 0 ? "loose" :
	    "strict", sizeof(c->mode));
	c->deadline = strcmp(p->net, "loose") == 0 && p->loose_until > 0 ?
	    p->loose_until : 0;
	(void)strlcpy(c->repo, p->prefix, sizeof(c->repo));
	ns_ports(job);
}

void
net_status(struct job *job, const char *name, const struct repo_ctx *ctx)
{
	struct nstat	*ns;
	int		 all = job_opt(job, "all") != NULL;

	if (all && name != NULL) {
		job_end(job, 0, "net status: --all and NAME exclude each other: "
		    "give one");
		return;
	}
	if ((ns = calloc(1, sizeof(*ns))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	job->state = ns;
	job->free_state = nstat_free;
	if (ctx != NULL && ctx->have_conf)
		ns_secrets(ns, &ctx->conf);
	if (name != NULL)
		(void)strlcpy(ns->t.name, name, sizeof(ns->t.name));
	else if (!all) {
		if (ctx == NULL || !ctx->have_conf) {
			job_end(job, 0, "net status: no JailBee checkout here: "
			    "name a container, give --all, or run it in a "
			    "checkout");
			return;
		}
		(void)strlcpy(ns->t.prefix, ctx->conf.container_prefix,
		    sizeof(ns->t.prefix));
	}
	if (req_send(PROC_NETD, IMSG_NETD_STATUS, &ns->t, sizeof(ns->t), -1,
	    ns_netd, ns_netd_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-netd");
}
