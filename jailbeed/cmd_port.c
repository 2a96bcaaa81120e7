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
 * jbctl port to-container|to-host NAME PORT, port ls [NAME], port rm
 * HANDLE NAME.  Every argument is checked here, and again by
 * jb-incus, which alone builds the proxy device.  A host address off
 * 127/8 is taken only from --host-address, and said as a warning: the
 * forward then opens the host's network to the container (to-container)
 * or the container to the host's network (to-host).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "log.h"
#include "portspec.h"
#include "ports.h"

struct pjob {
	struct repo_ctx	*ctx;
	char		 name[JB_INSTANCE_MAX];
	struct jb_port	 q;
	struct jb_port	*found;		/* rm: the forwards HANDLE names */
	size_t		 nfound;
	int		 declared;	/* rm: a host_ports one */
};

static void
pjob_free(void *arg)
{
	struct pjob	*pj = arg;

	repo_ctx_free(pj->ctx);
	free(pj->found);
	free(pj);
}

static void
port_end(struct req *r, int ok, const char *err)
{
	job_end(r->arg, ok, "%s", err);
}

static void
add_answer(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct pjob	*pj = job->state;

	ports_msg_get(imsg, &pj->q);
}

static void
add_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct pjob	*pj = job->state;
	char		 d[160];

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	job_progress(job, "%s: forward %s: %s%s", pj->name, pj->q.device,
	    ports_describe(&pj->q, d, sizeof(d)), pj->q.dir ==
	    PORT_TO_CONTAINER ? " (it bypasses the network filter)" : "");
	(void)job_reply(job, IMSG_CTL_PORT, &pj->q, sizeof(pj->q), -1);
	job_end(job, 1, NULL);
}

static void
do_add(struct job *job)
{
	struct pjob	*pj = job->state;
	struct jb_port	*q = &pj->q;
	const char	*hp = job_opt(job, "host-port");
	const char	*proto = job_opt(job, "proto");
	const char	*ha = job_opt(job, "host-address");
	const char	*ca = job_opt(job, "container-address");
	int		 tohost = job->cmd.id == CMD_PORT_TO_HOST;
	const char	*verb = tohost ? "port to-host" : "port to-container";

	memset(q, 0, sizeof(*q));
	(void)strlcpy(q->name, pj->name, sizeof(q->name));
	q->dir = tohost ? PORT_TO_HOST : PORT_TO_CONTAINER;
	if ((q->port = port_number(job->args[1])) == 0) {
		job_end(job, 0, "%s: port \"%.32s\": expected a number from 1 "
		    "to 65535", verb, job->args[1]);
		return;
	}
	(void)strlcpy(q->proto, proto ? proto : "tcp", sizeof(q->proto));
	if (proto != NULL && !port_proto_ok(proto)) {
		job_end(job, 0, "%s: --proto \"%.32s\": expected tcp or udp",
		    verb, proto);
		return;
	}
	if (hp == NULL)
		q->host_port = q->port;
	else if (tohost && strcmp(hp, "auto") == 0)
		q->host_port = 0;
	else if ((q->host_port = port_number(hp)) == 0) {
		job_end(job, 0, "%s: --host-port \"%.32s\": expected a number "
		    "from 1 to 65535%s", verb, hp, tohost ? " or auto" : "");
		return;
	}
	if (tohost && q->host_port != 0 && q->host_port < PORT_HOST_MIN) {
		job_end(job, 0, "%s: host port %u is privileged: give "
		    "--host-port N (%d or above) or --host-port auto", verb,
		    q->host_port, PORT_HOST_MIN);
		return;
	}
	(void)strlcpy(q->host_address, ha ? ha : PORT_LOOPBACK,
	    sizeof(q->host_address));
	(void)strlcpy(q->container_address, ca ? ca : PORT_LOOPBACK,
	    sizeof(q->container_address));
	if (ha != NULL && !port_addr_ok(ha)) {
		job_end(job, 0, "%s: --host-address \"%.64s\": expected an IPv4 "
		    "address literal such as 127.0.0.1", verb, ha);
		return;
	}
	if (ca != NULL && !port_addr_ok(ca)) {
		job_end(job, 0, "%s: --container-address \"%.64s\": expected an "
		    "IPv4 address literal such as 127.0.0.1", verb, ca);
		return;
	}
	if (!port_addr_loopback(q->host_address)) {
		/* only ever from --host-address: the default is loopback */
		q->nonlocal = 1;
		job_progress(job, "warning: %s", tohost ? "the forward listens "
		    "on a host address that is not loopback: the container's "
		    "service is open to whatever reaches that address" :
		    "the forward connects to a host address that is not "
		    "loopback: the container reaches it past its network "
		    "filter");
	}
	(void)port_device(q->device, sizeof(q->device), q->dir, q->proto,
	    q->port, NULL);
	if (req_send(PROC_INCUS, IMSG_INCUS_PORT_ADD, q, sizeof(*q), -1,
	    add_answer, add_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
ls_port(struct req *r, struct imsg *imsg)
{
	struct jb_port	p;

	ports_msg_get(imsg, &p);
	(void)job_reply(r->arg, IMSG_CTL_PORT, &p, sizeof(p), -1);
}

static void
do_ls(struct job *job)
{
	struct pjob		*pj = job->state;
	struct jb_incus_target	 t;

	memset(&t, 0, sizeof(t));
	if (job->nargs > 0)
		(void)strlcpy(t.name, pj->name, sizeof(t.name));
	else if (pj->ctx != NULL && pj->ctx->have_conf)
		(void)strlcpy(t.prefix, pj->ctx->conf.container_prefix,
		    sizeof(t.prefix));
	else {
		job_end(job, 0, "port ls: no JailBee checkout here: name a "
		    "container, or run it in a checkout");
		return;
	}
	if (req_send(PROC_INCUS, IMSG_INCUS_PORT_LIST, &t, sizeof(t), -1,
	    ls_port, port_end, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
rm_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct pjob	*pj = job->state;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	job_progress(job, "%s: forward %s removed%s", pj->name,
	    pj->found[0].device, pj->declared ? "; host_ports declares it: "
	    "the next start or apply attaches it again" : "");
	job_end(job, 1, NULL);
}

/* HANDLE: a device, a host_ports name or a container port */
static void
rm_seen(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct pjob	*pj = job->state;
	struct jb_port	 p, *v;
	const char	*h = job->args[0];

	ports_msg_get(imsg, &p);
	if (strcmp(p.device, h) != 0 &&
	    !(strncmp(p.device, PORT_CFG_PREFIX, strlen(PORT_CFG_PREFIX)) ==
	    0 && strcmp(p.device + strlen(PORT_CFG_PREFIX), h) == 0) &&
	    !(port_number(h) != 0 && p.port == port_number(h)))
		return;
	if ((v = reallocarray(pj->found, pj->nfound + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	pj->found = v;
	pj->found[pj->nfound++] = p;
}

static void
rm_listed(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct pjob	*pj = job->state;
	char		 devs[512];
	size_t		 i;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	if (pj->nfound == 0) {
		job_end(job, 0, "port rm: %s has no forward \"%.64s\" (a "
		    "device, a host_ports name or a container port; see jbctl "
		    "port ls %s)", pj->name, job->args[0], job->args[1]);
		return;
	}
	if (pj->nfound > 1) {
		devs[0] = '\0';
		for (i = 0; i < pj->nfound; i++) {
			if (i > 0)
				(void)strlcat(devs, ", ", sizeof(devs));
			(void)strlcat(devs, pj->found[i].device, sizeof(devs));
		}
		job_end(job, 0, "port rm: \"%.64s\" names %zu forwards of %s "
		    "(%s): give the device", job->args[0], pj->nfound,
		    pj->name, devs);
		return;
	}
	if (pj->ctx != NULL && pj->ctx->have_conf)
		for (i = 0; i < pj->ctx->conf.host_ports.n; i++)
			if (strncmp(pj->found[0].device, PORT_CFG_PREFIX,
			    strlen(PORT_CFG_PREFIX)) == 0 &&
			    strcmp(pj->found[0].device +
			    strlen(PORT_CFG_PREFIX),
			    pj->ctx->conf.host_ports.v[i].name) == 0)
				pj->declared = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_PORT_REMOVE, &pj->found[0],
	    sizeof(pj->found[0]), -1, NULL, rm_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
do_rm(struct job *job)
{
	struct pjob		*pj = job->state;
	struct jb_incus_target	 t;

	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, pj->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_PORT_LIST, &t, sizeof(t), -1,
	    rm_seen, rm_listed, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
port_named(struct job *job, struct repo_ctx *ctx)
{
	struct pjob	*pj;
	const struct cmd *def = cmd_find(job->cmd.id);
	const char	*arg;

	if ((pj = calloc(1, sizeof(*pj))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	pj->ctx = ctx;
	job->state = pj;
	job->free_state = pjob_free;
	if (def != NULL && def->name_arg > 0 && def->name_arg <= job->nargs) {
		arg = job->args[def->name_arg - 1];
		/* over SSH, the container the remote gate found */
		if (job->remote_found)
			(void)strlcpy(pj->name, job->remote_in.name,
			    sizeof(pj->name));
		else if (repo_container_name(ctx, arg, pj->name,
		    sizeof(pj->name)) == -1) {
			job_end(job, 0, "%s: not a container name", arg);
			return;
		}
		audit_target(job, pj->name, ctx);
		if (job->cmd.id != CMD_PORT_LS)
			audit_detail(job, job->cmd.id == CMD_PORT_RM ?
			    "handle" : "port", job->args[job->cmd.id ==
			    CMD_PORT_RM ? 0 : 1]);
	}
	switch (job->cmd.id) {
	case CMD_PORT_TO_CONTAINER:
	case CMD_PORT_TO_HOST:
		do_add(job);
		break;
	case CMD_PORT_LS:
		do_ls(job);
		break;
	case CMD_PORT_RM:
		do_rm(job);
		break;
	default:
		job_end(job, 0, "not a port command");
	}
}

void
cmd_port(struct job *job)
{
	repo_resolve_brief(job, job->cmd.id == CMD_PORT_LS && job->nargs == 0,
	    port_named);
}
