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
 * jbctl mount KIND NAME [--for DUR | --no-revert], unmount KIND NAME,
 * mount ls NAME, apply NAME.  An optional mount is the device
 * optional-<kind>; its deadline is jb-mountd's.  A second mount of an
 * attached kind moves only the deadline: the source and the read-only
 * flag stay as they were attached (the seed says so).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "cmdtab.h"
#include "duration.h"
#include "limits_run.h"
#include "log.h"
#include "policyrec.h"
#include "mount_ssh.h"
#include "mounts.h"
#include "mountspec.h"
#include "netstatus.h"
#include "ports.h"

struct mjob {
	struct repo_ctx			*ctx;
	char				 name[JB_INSTANCE_MAX];
	const struct rc_optional	*opt;
	char				 device[JB_DEVICE_MAX];
	int				 attached;
	int64_t				 until;
	struct jb_mount_deadline	*dl;
	size_t				 ndl;
	/* a remote mount_roots grant: the root's spelling, flag */
	char				 root[PATH_MAX];
	int				 root_readonly;
};

static void
mjob_free(void *arg)
{
	struct mjob	*m = arg;

	repo_ctx_free(m->ctx);
	free(m->dl);
	free(m);
}

static const char *
when(int64_t until, char *buf, size_t len)
{
	char	left[32];
	time_t	t = (time_t)until;
	char	hms[32];

	if (until == 0)
		return "no deadline (--no-revert or no default)";
	strftime(hms, sizeof(hms), "%H:%M:%SZ", gmtime(&t));
	(void)snprintf(buf, len, "until %s (%s)", hms,
	    mnt_left(until, time(NULL), left, sizeof(left)));
	return buf;
}

static void
generic_done(struct req *r, int ok, const char *err)
{
	job_end(r->arg, ok, "%s", err);
}

/* record the deadline, or drop an old one when there is none */
static void
deadline_record(struct job *job, void (*next)(struct req *, int,
    const char *))
{
	struct mjob			*m = job->state;
	struct jb_mount_deadline	 d;

	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.name, m->name, sizeof(d.name));
	(void)strlcpy(d.kind, m->opt->kind, sizeof(d.kind));
	d.until = m->until;
	/* Incus holds it too: a restart without jb-mountd's file keeps it */
	policy_mount_deadline(&d, next, job);
}

static void
mount_recorded(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct mjob	*m = job->state;
	char		 b[64];

	if (!ok) {
		job_end(job, 0, "mount %s on %s: attached, but its deadline "
		    "was not recorded (%s): unmount it to be sure", m->opt->kind,
		    m->name, err);
		return;
	}
	job_progress(job, "%s %s on %s at %s, %s", m->attached ?
	    "already attached: moved the deadline of" : "attached",
	    m->opt->kind, m->name, m->opt->m.container, when(m->until, b,
	    sizeof(b)));
	job_end(job, 1, NULL);
}

static void
mount_attached(struct job *job, int ok, const char *err, void *arg)
{
	if (!ok) {
		job_end(job, 0, "mount %s: %s", job->args[0], err);
		return;
	}
	deadline_record(job, mount_recorded);
}

static void
disk_seen(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct mjob	*m = job->state;
	struct jb_disk	 d;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-incus: malformed DISK");
	d.device[sizeof(d.device) - 1] = '\0';
	if (strcmp(d.device, m->device) == 0)
		m->attached = 1;
}

static void
mount_listed(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct mjob		*m = job->state;
	struct mount_spec	 s;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	if (m->attached) {
		deadline_record(job, mount_recorded);
		return;
	}
	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.name, m->name, sizeof(s.name));
	(void)strlcpy(s.device, m->device, sizeof(s.device));
	(void)strlcpy(s.host, m->opt->m.host, sizeof(s.host));
	(void)strlcpy(s.container, m->opt->m.container, sizeof(s.container));
	(void)snprintf(s.reserved, sizeof(s.reserved), "/home/dev/%s",
	    m->ctx->conf.container_prefix);
	(void)snprintf(s.what, sizeof(s.what), "optional_mounts.%s",
	    m->opt->kind);
	s.readonly = m->opt->m.readonly;
	if (m->root[0] != '\0') {
		/* the root's spelling, read-only if either is */
		(void)strlcpy(s.host, m->root, sizeof(s.host));
		(void)strlcpy(s.exact, m->root, sizeof(s.exact));
		s.readonly = m->root_readonly;
	}
	mount_attach(job, &s, mount_attached, NULL);
}

static void
list_disks(struct job *job, req_msg_cb on_msg, req_done_cb on_done)
{
	struct mjob		*m = job->state;
	struct jb_incus_target	 t;

	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, m->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_LIST, &t, sizeof(t), -1,
	    on_msg, on_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
roots_granted(struct job *job, const char *source, int readonly)
{
	struct mjob	*m = job->state;

	(void)strlcpy(m->root, source, sizeof(m->root));
	m->root_readonly = readonly;
	job_progress(job, "mount %s: granted by remote.ssh.mount_roots %s%s",
	    m->opt->kind, source, readonly ? " (read-only)" : "");
	list_disks(job, disk_seen, mount_listed);
}

static void
do_mount(struct job *job)
{
	struct mjob	*m = job->state;
	struct repoconf	*c = &m->ctx->conf;
	const char	*forv = job_opt(job, "for");
	int		 norevert = job_opt(job, "no-revert") != NULL;
	char		 known[512], err[256];
	int64_t		 secs = 0;
	size_t		 i;

	for (i = 0; i < c->optional_mounts.n; i++)
		if (strcmp(c->optional_mounts.v[i].kind, job->args[0]) == 0)
			m->opt = &c->optional_mounts.v[i];
	if (m->opt == NULL) {
		known[0] = '\0';
		for (i = 0; i < c->optional_mounts.n; i++) {
			if (i > 0)
				(void)strlcat(known, ", ", sizeof(known));
			(void)strlcat(known, c->optional_mounts.v[i].kind,
			    sizeof(known));
		}
		job_end(job, 0, "mount \"%s\": no such optional_mounts entry "
		    "in this repo's configuration (%s%s)", job->args[0],
		    known[0] ? "known: " : "none is configured", known);
		return;
	}
	if (forv != NULL && norevert) {
		job_end(job, 0, "mount %s: --for and --no-revert exclude each "
		    "other", job->args[0]);
		return;
	}
	if (forv != NULL && duration_parse(forv, 1, DURATION_MAX_DEFAULT,
	    &secs, err, sizeof(err)) == -1) {
		job_end(job, 0, "mount %s: --for: %s", job->args[0], err);
		return;
	}
	m->until = mnt_deadline(time(NULL), secs, norevert,
	    m->opt->auto_unmount_after, c->mount_auto_revert.enabled,
	    c->mount_auto_revert.after);
	job->audit_until = m->until;
	(void)snprintf(m->device, sizeof(m->device), "%s%s",
	    MNT_OPTIONAL_PREFIX, m->opt->kind);
	/* over a restricted session only a mount_roots grant will do */
	if (mount_ssh_restricted(job)) {
		mount_ssh_decide(job, m->ctx, m->opt, roots_granted);
		return;
	}
	list_disks(job, disk_seen, mount_listed);
}

static void
unmount_cleared(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct mjob	*m = job->state;

	if (!ok) {
		job_end(job, 0, "unmount %s: detached, but its deadline could "
		    "not be cleared: %s", job->args[0], err);
		return;
	}
	job_progress(job, "detached %s from %s", job->args[0], m->name);
	job_end(job, 1, NULL);
}

static void
unmount_removed(struct req *r, int ok, const char *err)
{
	struct job			*job = r->arg;
	struct mjob			*m = job->state;
	struct jb_mount_deadline	 d;

	if (!ok) {
		if (strstr(err, "has no device") != NULL)
			job_end(job, 0, "unmount %s: it is not attached to %s",
			    job->args[0], m->name);
		else
			job_end(job, 0, "unmount %s: %s", job->args[0], err);
		return;
	}
	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.name, m->name, sizeof(d.name));
	(void)strlcpy(d.kind, job->args[0], sizeof(d.kind));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_CLEAR, &d, sizeof(d),
	    -1, NULL, unmount_cleared, job) == NULL)
		job_end(job, 0, "cannot reach jb-mountd");
}

static void
do_unmount(struct job *job)
{
	struct mjob	*m = job->state;
	struct jb_disk	 q;

	/* the entry may be gone from the config: the kind is enough */
	if (!mnt_kind_ok(job->args[0])) {
		job_end(job, 0, "unmount \"%s\": not a mount kind",
		    job->args[0]);
		return;
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.name, m->name, sizeof(q.name));
	(void)snprintf(q.device, sizeof(q.device), "%s%s",
	    MNT_OPTIONAL_PREFIX, job->args[0]);
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_REMOVE, &q, sizeof(q), -1,
	    NULL, unmount_removed, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

/* mount ls NAME: each attached disk of the suite's, with its deadline */
static void
ls_disk(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct mjob		*m = job->state;
	struct jb_disk		 d;
	struct jb_mount_entry	 e;
	const char		*kind;
	size_t			 i;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-incus: malformed DISK");
	memset(&e, 0, sizeof(e));
	(void)strlcpy(e.name, d.name, sizeof(e.name));
	(void)strlcpy(e.device, d.device, sizeof(e.device));
	(void)strlcpy(e.source, d.source, sizeof(e.source));
	(void)strlcpy(e.path, d.path, sizeof(e.path));
	e.readonly = d.readonly;
	if (strncmp(e.device, MNT_OPTIONAL_PREFIX,
	    strlen(MNT_OPTIONAL_PREFIX)) == 0) {
		kind = e.device + strlen(MNT_OPTIONAL_PREFIX);
		for (i = 0; i < m->ndl; i++)
			if (strcmp(m->dl[i].kind, kind) == 0)
				e.until = m->dl[i].until;
	}
	(void)job_reply(job, IMSG_CTL_MOUNT, &e, sizeof(e), -1);
}

static void
ls_deadline(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct mjob	*m = job->state;

	mounts_deadline_add(&m->dl, &m->ndl, imsg);
}

static void
ls_deadlines(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	list_disks(job, ls_disk, generic_done);
}

static void
do_mount_ls(struct job *job)
{
	struct mjob			*m = job->state;
	struct jb_mount_deadline	 d;

	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.name, m->name, sizeof(d.name));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_LIST, &d, sizeof(d),
	    -1, ls_deadline, ls_deadlines, job) == NULL)
		job_end(job, 0, "cannot reach jb-mountd");
}

static void
apply_github(struct job *job, struct capture_result *res)
{
	char	err[JB_ERR_TEXT_MAX];

	if (github_forgotten(job, res, err, sizeof(err)) == -1) {
		job_end(job, 0, "apply: %s", err);
		return;
	}
	job_end(job, 1, NULL);
}

static void
apply_netd(struct job *job, int ok, const char *err)
{
	struct mjob	*m = job->state;

	if (!ok) {
		job_end(job, 0, "apply: egress_allow: %s", err);
		return;
	}
	job_progress(job, "%s: egress_allow applied (%zu entr%s)", m->name,
	    m->ctx->conf.egress_allow.n, m->ctx->conf.egress_allow.n == 1 ?
	    "y" : "ies");
	switch (github_forget(job, m->ctx, m->name, apply_github)) {
	case 1:
		job_end(job, 1, NULL);
		break;
	case -1:
		job_end(job, 0, "cannot reach jb-incus");
		break;
	}
}

/* egress_allow as the config says now (jb-netd keeps mode, overrides) */
static void
apply_ported(struct job *job, int ok, const char *err, void *arg)
{
	struct mjob	*m = job->state;

	if (!ok) {
		job_end(job, 0, "apply: host_ports: %s", err);
		return;
	}
	net_config_apply(job, &m->ctx->conf, m->name, apply_netd);
}

static void
apply_done(struct job *job, int ok, const char *err, void *arg)
{
	struct mjob	*m = job->state;

	if (!ok) {
		job_end(job, 0, "apply: %s", err);
		return;
	}
	job_progress(job, "host_mounts applied; ones already attached are "
	    "left as they are");
	/* host_ports as declared now: missing ones added, stale ones gone */
	ports_config_attach(job, &m->ctx->conf, m->name, 1, apply_ported,
	    NULL);
}

/* the limits first: they hold whatever the rest finds */
static void
apply_limits(struct job *job, int ok, const char *err)
{
	struct mjob	*m = job->state;

	if (!ok) {
		job_end(job, 0, "apply: limits (defaults in %s): %s",
		    m->ctx->conf.paths.repo, err);
		return;
	}
	mounts_host_apply(job, m->ctx, m->name, apply_done, NULL);
}

static void
mount_repo(struct job *job, struct repo_ctx *ctx)
{
	struct mjob	*m;
	const char	*name = job->cmd.id == CMD_MOUNT ||
			    job->cmd.id == CMD_UNMOUNT ? job->args[1] :
			    job->args[0];

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	m->ctx = ctx;
	job->state = m;
	job->free_state = mjob_free;
	/* over SSH, the container the remote gate found, by its own name */
	if (job->remote_found)
		(void)strlcpy(m->name, job->remote_in.name, sizeof(m->name));
	else if (repo_container_name(ctx, name, m->name, sizeof(m->name)) ==
	    -1) {
		job_end(job, 0, "%s: not a container name", name);
		return;
	}
	audit_target(job, m->name, ctx);
	if (job->cmd.id != CMD_MOUNT_LS)
		audit_detail(job, "kind", job->args[0]);
	switch (job->cmd.id) {
	case CMD_MOUNT:
		do_mount(job);
		break;
	case CMD_UNMOUNT:
		do_unmount(job);
		break;
	case CMD_MOUNT_LS:
		do_mount_ls(job);
		break;
	case CMD_APPLY:
		limits_apply(job, m->name, &ctx->conf, apply_limits);
		break;
	default:
		job_end(job, 0, "not a mount command");
	}
}

void
cmd_mount(struct job *job)
{
	/* over SSH there is no checkout: the container names the repo */
	if (job->remote && job->cmd.id == CMD_MOUNT)
		mount_ssh_repo(job, mount_repo);
	/* mount and apply read this repo's configuration */
	else if (job->cmd.id == CMD_MOUNT || job->cmd.id == CMD_APPLY)
		repo_resolve_brief(job, 1, mount_repo);
	else
		repo_resolve_brief(job, 0, mount_repo);
}
