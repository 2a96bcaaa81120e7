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
 * host_ports at new, start and apply: what the config declares
 * becomes port-cfg-<name> proxy devices, one jb-incus request at a time.
 * A forward bypasses the network filter (the container reaches a host
 * service through incusd, not through its NIC), so each one attached is
 * said, and one to a host address off 127/8 is said as a warning.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "portspec.h"
#include "ports.h"

struct pattach {
	struct job		*job;
	char			 name[JB_INSTANCE_MAX];
	char			 prefix[48];
	struct rc_port		*want;		/* the config's, copied */
	size_t			 nwant;
	struct jb_port		*have;		/* port-cfg-* the container has */
	size_t			 nhave;
	size_t			 next;		/* the step being done */
	int			 reconcile;
	int			 found;
	char			 state[16];
	ports_cb		 cb;
	void			*arg;
};

static void	pa_step(struct pattach *);

const char *
ports_describe(const struct jb_port *p, char *buf, size_t len)
{
	if (p->proto[0] == '\0')
		(void)snprintf(buf, len, "%s (changed outside JailBee)",
		    p->device);
	else if (p->dir == PORT_TO_HOST)
		(void)snprintf(buf, len, "host %s:%u -> container %s:%u/%s",
		    p->host_address, p->host_port, p->container_address,
		    p->port, p->proto);
	else
		(void)snprintf(buf, len, "container %s:%u -> host %s:%u/%s",
		    p->container_address, p->port, p->host_address,
		    p->host_port, p->proto);
	return buf;
}

static void
pa_end(struct pattach *pa, int ok, const char *err)
{
	struct job	*job = pa->job;
	ports_cb	 cb = pa->cb;
	void		*arg = pa->arg;

	free(pa->want);
	free(pa->have);
	free(pa);
	cb(job, ok, err, arg);
}

/* a config entry as the device it makes */
static void
pa_port(const struct pattach *pa, const struct rc_port *w, struct jb_port *p)
{
	memset(p, 0, sizeof(*p));
	(void)strlcpy(p->name, pa->name, sizeof(p->name));
	(void)port_device(p->device, sizeof(p->device), PORT_TO_CONTAINER,
	    w->proto, (uint32_t)w->port, w->name);
	p->dir = PORT_TO_CONTAINER;
	(void)strlcpy(p->proto, w->proto, sizeof(p->proto));
	p->port = (uint32_t)w->port;
	(void)strlcpy(p->container_address, w->container_address,
	    sizeof(p->container_address));
	p->host_port = (uint32_t)w->host_port;
	(void)strlcpy(p->host_address, w->host_address,
	    sizeof(p->host_address));
	/* written in the file is asked for by name */
	p->nonlocal = w->host_address_set;
}

static int
pa_same(const struct jb_port *a, const struct jb_port *b)
{
	return a->port == b->port && a->host_port == b->host_port &&
	    strcmp(a->proto, b->proto) == 0 &&
	    strcmp(a->host_address, b->host_address) == 0 &&
	    strcmp(a->container_address, b->container_address) == 0;
}

/* the device of have[i] as declared now, or NULL */
static const struct rc_port *
pa_declared(const struct pattach *pa, const char *device)
{
	size_t	i;

	for (i = 0; i < pa->nwant; i++)
		if (strcmp(device + strlen(PORT_CFG_PREFIX),
		    pa->want[i].name) == 0)
			return &pa->want[i];
	return NULL;
}

static void
pa_done(struct req *r, int ok, const char *err)
{
	struct pattach	*pa = r->arg;

	if (!ok) {
		pa_end(pa, 0, err);
		return;
	}
	pa->next++;
	pa_step(pa);
}

static void
pa_added(struct req *r, struct imsg *imsg)
{
	struct pattach	*pa = r->arg;
	struct jb_port	 p;
	char		 d[160];

	if (imsg_get_type(imsg) != IMSG_INCUS_PORT ||
	    imsg_get_data(imsg, &p, sizeof(p)) == -1)
		fatalx("jb-incus: malformed PORT");
	p.device[sizeof(p.device) - 1] = '\0';
	p.proto[sizeof(p.proto) - 1] = '\0';
	p.host_address[sizeof(p.host_address) - 1] = '\0';
	p.container_address[sizeof(p.container_address) - 1] = '\0';
	job_progress(pa->job, "%s: forward %s: %s (host_ports; it bypasses "
	    "the network filter)", pa->name, p.device, ports_describe(&p, d,
	    sizeof(d)));
	if (!port_addr_loopback(p.host_address))
		job_progress(pa->job, "warning: %s: forward %s reaches %s on "
		    "the host's network, not its loopback", pa->name,
		    p.device, p.host_address);
}

/*
 * Steps 0..nhave-1 remove what apply no longer wants; nhave..
 * nhave+nwant-1 add what is missing.
 */
static void
pa_step(struct pattach *pa)
{
	const struct rc_port	*w;
	struct jb_port		 p;
	size_t			 i;

	for (; pa->next < pa->nhave; pa->next++) {
		if (!pa->reconcile)
			continue;
		w = pa_declared(pa, pa->have[pa->next].device);
		if (w != NULL) {
			pa_port(pa, w, &p);
			if (pa_same(&p, &pa->have[pa->next]))
				continue;
		}
		job_progress(pa->job, "%s: forward %s: %s", pa->name,
		    pa->have[pa->next].device, w == NULL ? "no longer in "
		    "host_ports: removed" : "changed in host_ports: replaced");
		pa->have[pa->next].proto[0] = '\0';	/* gone */
		if (req_send(PROC_INCUS, IMSG_INCUS_PORT_REMOVE,
		    &pa->have[pa->next], sizeof(pa->have[pa->next]), -1, NULL,
		    pa_done, pa) == NULL)
			pa_end(pa, 0, "cannot reach jb-incus");
		return;
	}
	for (; pa->next < pa->nhave + pa->nwant; pa->next++) {
		w = &pa->want[pa->next - pa->nhave];
		pa_port(pa, w, &p);
		for (i = 0; i < pa->nhave; i++)
			if (strcmp(pa->have[i].device, p.device) == 0 &&
			    pa->have[i].proto[0] != '\0')
				break;
		if (i < pa->nhave)
			continue;
		if (req_send(PROC_INCUS, IMSG_INCUS_PORT_ADD, &p, sizeof(p),
		    -1, pa_added, pa_done, pa) == NULL)
			pa_end(pa, 0, "cannot reach jb-incus");
		return;
	}
	pa_end(pa, 1, NULL);
}

/* jb-incus's PORT, its strings ended */
void
ports_msg_get(struct imsg *imsg, struct jb_port *p)
{
	if (imsg_get_type(imsg) != IMSG_INCUS_PORT ||
	    imsg_get_data(imsg, p, sizeof(*p)) == -1)
		fatalx("jb-incus: malformed PORT");
	p->name[sizeof(p->name) - 1] = '\0';
	p->device[sizeof(p->device) - 1] = '\0';
	p->proto[sizeof(p->proto) - 1] = '\0';
	p->container_address[sizeof(p->container_address) - 1] = '\0';
	p->host_address[sizeof(p->host_address) - 1] = '\0';
	p->prefix[sizeof(p->prefix) - 1] = '\0';
	p->state[sizeof(p->state) - 1] = '\0';
}

static void
pa_have(struct req *r, struct imsg *imsg)
{
	struct pattach	*pa = r->arg;
	struct jb_port	 p, *v;

	ports_msg_get(imsg, &p);
	if (strncmp(p.device, PORT_CFG_PREFIX, strlen(PORT_CFG_PREFIX)) != 0)
		return;
	/* a device changed by hand counts as declared otherwise */
	if (p.proto[0] == '\0')
		(void)strlcpy(p.proto, "?", sizeof(p.proto));
	if ((v = reallocarray(pa->have, pa->nhave + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	pa->have = v;
	pa->have[pa->nhave++] = p;
}

static void
pa_listed(struct req *r, int ok, const char *err)
{
	struct pattach	*pa = r->arg;

	if (!ok) {
		pa_end(pa, 0, err);
		return;
	}
	pa->next = 0;
	pa_step(pa);
}

static void
pa_inst(struct req *r, struct imsg *imsg)
{
	struct pattach		*pa = r->arg;
	struct jb_instance	 in;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &in, sizeof(in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	in.name[sizeof(in.name) - 1] = '\0';
	in.prefix[sizeof(in.prefix) - 1] = '\0';
	if (strcmp(in.name, pa->name) != 0)
		return;
	pa->found = 1;
	if (strcmp(in.prefix, pa->prefix) != 0)
		pa->found = -1;
}

static void
pa_checked(struct req *r, int ok, const char *err)
{
	struct pattach		*pa = r->arg;
	struct jb_incus_target	 t;

	if (!ok || pa->found == 0) {
		pa_end(pa, 0, ok ? "no such container" : err);
		return;
	}
	/* another repo's container: its own config decides its forwards */
	if (pa->found == -1 || (pa->nwant == 0 && !pa->reconcile)) {
		pa_end(pa, 1, NULL);
		return;
	}
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, pa->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_PORT_LIST, &t, sizeof(t), -1,
	    pa_have, pa_listed, pa) == NULL)
		pa_end(pa, 0, "cannot reach jb-incus");
}

void
ports_config_attach(struct job *job, const struct repoconf *conf,
    const char *name, int reconcile, ports_cb cb, void *arg)
{
	struct pattach		*pa;
	struct jb_incus_target	 t;

	if ((pa = calloc(1, sizeof(*pa))) == NULL) {
		cb(job, 0, "out of memory", arg);
		return;
	}
	pa->job = job;
	pa->cb = cb;
	pa->arg = arg;
	pa->reconcile = reconcile;
	(void)strlcpy(pa->name, name, sizeof(pa->name));
	(void)strlcpy(pa->prefix, conf->container_prefix, sizeof(pa->prefix));
	if (conf->host_ports.n > 0) {
		if ((pa->want = reallocarray(NULL, conf->host_ports.n,
		    sizeof(*pa->want))) == NULL) {
			free(pa);
			cb(job, 0, "out of memory", arg);
			return;
		}
		memcpy(pa->want, conf->host_ports.v,
		    conf->host_ports.n * sizeof(*pa->want));
		pa->nwant = conf->host_ports.n;
	}
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1, pa_inst,
	    pa_checked, pa) == NULL)
		pa_end(pa, 0, "cannot reach jb-incus");
}
