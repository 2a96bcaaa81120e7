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
 * Attaching a mount needs two capabilities, so the parent sequences it
 * (DESIGN.md): jb-mountd checks the source as the owner sees it and holds
 * it open, jb-incus adds the disk device with the checked realpath,
 * jb-mountd then verifies that the container's mount holds exactly the
 * object checked (see jb-mountd/mount.c for why).  Any failure after
 * the attach removes the device again: nothing unchecked stays.
 *
 * Deadlines reached (jb-mountd's timers) are detached here too.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event.h>

#include "clusterpin.h"
#include "log.h"
#include "mounts.h"
#include "mountspec.h"
#include "srcguard.h"
#include "testhook.h"

struct attach {
	struct job		*job;
	struct mount_spec	 s;
	struct jb_mount_checked	 chk;
	int			 have_chk;
	struct jb_disk		 disk;
	int			 have_disk;
	struct jb_disk		 pending;	/* counted by disks_overlap() */
	int			 is_pending;
	char			 failure[JB_ERR_TEXT_MAX];
	mount_cb		 cb;
	void			*arg;
	struct event		 test_ev;
	void			(*test_fn)(struct attach *);
	/* on a cluster: where the container is, and where it is pinned */
	struct jb_instance	 in;
	int			 have_in;
};

static void	attach_add(struct attach *);
static void	attach_listed(int, const char *, struct disks *, void *);
static void	attach_verify(struct attach *);
static void	test_fire(int, short, void *);
static void	test_delay(void (*)(struct attach *), struct attach *);

static void
attach_end(struct attach *a, int ok, const char *err)
{
	mount_cb	 cb = a->cb;
	struct job	*job = a->job;
	void		*arg = a->arg;
	char		 e[JB_ERR_TEXT_MAX];

	(void)strlcpy(e, err != NULL ? err : "", sizeof(e));
	if (a->is_pending)
		disks_pending_del(&a->pending);
	free(a);
	cb(job, ok, e, arg);
}

static void
attach_removed(struct req *r, int ok, const char *err)
{
	struct attach	*a = r->arg;
	char		 e[JB_ERR_TEXT_MAX * 2];

	if (ok)
		attach_end(a, 0, a->failure);
	else {
		(void)snprintf(e, sizeof(e), "%s; removing device %s failed "
		    "too (%s): remove it with incus config device remove %s "
		    "%s", a->failure, a->s.device, err, a->s.name,
		    a->s.device);
		log_warnx("%s", e);
		attach_end(a, 0, e);
	}
}

/* fail closed: the device goes again */
static void
attach_undo(struct attach *a, const char *why)
{
	struct jb_disk	q;

	(void)strlcpy(a->failure, why, sizeof(a->failure));
	log_warnx("mount %s on %s: %s", a->s.device, a->s.name, why);
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.name, a->s.name, sizeof(q.name));
	(void)strlcpy(q.device, a->s.device, sizeof(q.device));
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_REMOVE, &q, sizeof(q), -1,
	    NULL, attach_removed, a) == NULL)
		attach_removed(&(struct req){ .arg = a }, 0,
		    "cannot reach jb-incus");
}

static void
attach_verified(struct req *r, int ok, const char *err)
{
	struct attach	*a = r->arg;

	if (!ok) {
		attach_undo(a, err);
		return;
	}
	attach_end(a, 1, NULL);
}

static void
attach_disk(struct req *r, struct imsg *imsg)
{
	struct attach	*a = r->arg;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &a->disk, sizeof(a->disk)) == -1)
		fatalx("jb-incus: malformed DISK");
	a->have_disk = 1;
}

static void
release(uint32_t token)
{
	struct jb_mount_verify	v;

	memset(&v, 0, sizeof(v));
	v.token = token;
	(void)req_send(PROC_MOUNTD, IMSG_MOUNTD_RELEASE, &v, sizeof(v), -1,
	    NULL, NULL, NULL);
}

static void
attach_added(struct req *r, int ok, const char *err)
{
	struct attach		*a = r->arg;

	if (!ok) {
		release(a->chk.token);
		attach_end(a, 0, err);
		return;
	}
	if (!a->have_disk || a->disk.pid <= 1) {
		release(a->chk.token);
		attach_undo(a, "jb-incus did not say which process to check");
		return;
	}
	test_delay(attach_verify, a);
}

static void
attach_verify(struct attach *a)
{
	struct jb_mount_verify	 v;

	memset(&v, 0, sizeof(v));
	v.token = a->chk.token;
	v.pid = a->disk.pid;
	(void)strlcpy(v.container, a->s.container, sizeof(v.container));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_VERIFY, &v, sizeof(v), -1,
	    NULL, attach_verified, a) == NULL)
		attach_undo(a, "cannot reach jb-mountd");
}

static void
attach_checked_msg(struct req *r, struct imsg *imsg)
{
	struct attach	*a = r->arg;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_CHECKED ||
	    imsg_get_data(imsg, &a->chk, sizeof(a->chk)) == -1)
		fatalx("jb-mountd: malformed CHECKED");
	a->chk.realpath[sizeof(a->chk.realpath) - 1] = '\0';
	a->chk.warning[sizeof(a->chk.warning) - 1] = '\0';
	a->have_chk = 1;
}

/*
 * With the test switch on (jailbeed -T): JB_TEST_MOUNT_DELAY_MS in
 * jailbeed's environment holds each attach that long before the device
 * is added and again before it is verified, so that a test can swap a
 * path in between; the log says when each hold starts.  Without the
 * switch the variable means nothing.
 */
static void
test_delay(void (*fn)(struct attach *), struct attach *a)
{
	const char	*v;
	struct timeval	 tv;
	long		 ms;

	if (!jb_testing || (v = getenv("JB_TEST_MOUNT_DELAY_MS")) == NULL || (ms = strtol(v, NULL, 10)) <= 0 || ms > 60000) {
		fn(a);
		return;
	}
	log_info("test switch: an attach held %ld ms before %s", ms,
	    fn == attach_add ? "adding the device" : "verifying it");
	tv.tv_sec = ms / 1000;
	tv.tv_usec = ms % 1000 * 1000;
	a->test_fn = fn;
	evtimer_set(&a->test_ev, test_fire, a);
	evtimer_add(&a->test_ev, &tv);
}

static void
test_fire(int fd, short events, void *arg)
{
	struct attach	*a = arg;

	a->test_fn(a);
}

static void
attach_checked(struct req *r, int ok, const char *err)
{
	struct attach	*a = r->arg;

	if (!ok || !a->have_chk) {
		attach_end(a, 0, ok ? "jb-mountd checked nothing" : err);
		return;
	}
	/*
	 * A remote mount_roots grant was decided on a real path: the
	 * source checked must still be exactly it, or nothing is attached.
	 */
	if (a->s.exact[0] != '\0' && strcmp(a->s.exact, a->chk.realpath) !=
	    0) {
		release(a->chk.token);
		attach_end(a, 0, "the host path changed after the mount_roots "
		    "check: nothing attached; try again");
		return;
	}
	disks_list(attach_listed, a);
}

/*
 * Issue 14: the source may not overlap another mount of any suite
 * container where either is read-write (jailbeed/srcguard.c says why).
 */
static void
attach_listed(int ok, const char *err, struct disks *all, void *arg)
{
	struct attach	*a = arg;
	char		 e[JB_ERR_TEXT_MAX], msg[JB_ERR_TEXT_MAX * 2];
	size_t		 i;

	if (!ok) {
		release(a->chk.token);
		attach_end(a, 0, err);
		return;
	}
	if (disks_overlap(all, a->s.name, a->s.device, a->chk.realpath,
	    a->s.readonly, NULL, e, sizeof(e)) == -1 ||
	    src_exposes(a->chk.realpath, a->s.device, e, sizeof(e)) == -1) {
		release(a->chk.token);
		(void)snprintf(msg, sizeof(msg), "host path %.200s (%.100s) is "
		    "refused: %s", a->s.host, a->s.what, e);
		attach_end(a, 0, msg);
		return;
	}
	memset(&a->pending, 0, sizeof(a->pending));
	(void)strlcpy(a->pending.name, a->s.name, sizeof(a->pending.name));
	(void)strlcpy(a->pending.device, a->s.device,
	    sizeof(a->pending.device));
	(void)strlcpy(a->pending.source, a->chk.realpath,
	    sizeof(a->pending.source));
	(void)strlcpy(a->pending.path, a->s.container,
	    sizeof(a->pending.path));
	a->pending.readonly = a->s.readonly ? 1 : 0;
	for (i = 0; i < all->n; i++)
		if (strcmp(all->v[i].name, a->s.name) == 0)
			(void)strlcpy(a->pending.prefix, all->v[i].prefix,
			    sizeof(a->pending.prefix));
	disks_pending_add(&a->pending);
	a->is_pending = 1;
	if (a->chk.warning[0] != '\0')
		job_progress(a->job, "warning: %s", a->chk.warning);
	job_progress(a->job, "attaching %s at %s%s", a->chk.realpath,
	    a->s.container, a->s.readonly ? " (read-only)" : "");
	test_delay(attach_add, a);
}

static void
attach_add(struct attach *a)
{
	struct jb_disk	 q;

	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.name, a->s.name, sizeof(q.name));
	(void)strlcpy(q.device, a->s.device, sizeof(q.device));
	(void)strlcpy(q.source, a->chk.realpath, sizeof(q.source));
	(void)strlcpy(q.path, a->s.container, sizeof(q.path));
	q.readonly = a->s.readonly ? 1 : 0;
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_ADD, &q, sizeof(q), -1,
	    attach_disk, attach_added, a) == NULL) {
		release(a->chk.token);
		attach_end(a, 0, "cannot reach jb-incus");
	}
}

/* the jb-mountd check, first step of every attach */
static void
attach_check(struct attach *a)
{
	struct jb_mount_check	 q;

	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.host, a->s.host, sizeof(q.host));
	(void)strlcpy(q.container, a->s.container, sizeof(q.container));
	(void)strlcpy(q.reserved, a->s.reserved, sizeof(q.reserved));
	(void)strlcpy(q.what, a->s.what, sizeof(q.what));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_CHECK, &q, sizeof(q), -1,
	    attach_checked_msg, attach_checked, a) == NULL)
		attach_end(a, 0, "cannot reach jb-mountd");
}

static void
attach_found(struct req *r, struct imsg *imsg)
{
	struct attach	*a = r->arg;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &a->in, sizeof(a->in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	a->in.name[sizeof(a->in.name) - 1] = '\0';
	a->in.location[sizeof(a->in.location) - 1] = '\0';
	a->in.target[sizeof(a->in.target) - 1] = '\0';
	a->have_in = strcmp(a->in.name, a->s.name) == 0;
}

/* on a cluster the path is this member's: only for a container pinned here */
static void
attach_located(struct req *r, int ok, const char *err)
{
	struct attach	*a = r->arg;
	char		 why[JB_ERR_TEXT_MAX];

	if (!ok || !a->have_in) {
		(void)snprintf(why, sizeof(why), "%s: cannot tell which "
		    "cluster member %s is on, so no host path is attached: %s",
		    a->s.what, a->s.name, !ok ? err : "Incus did not name it");
		attach_end(a, 0, why);
		return;
	}
	if (cluster_pin_check(env->conf.cluster_member, a->in.target,
	    a->in.location, a->s.what, a->s.name, why, sizeof(why)) == -1) {
		attach_end(a, 0, why);
		return;
	}
	attach_check(a);
}

void
mount_attach(struct job *job, const struct mount_spec *s, mount_cb cb,
    void *arg)
{
	struct attach		*a;
	struct jb_incus_target	 t;
	char			 e[JB_ERR_TEXT_MAX];

	/*
	 * Checked here as in jb-mountd, which lets the checkout's own
	 * mount point pass for new's check of the checkout alone.
	 */
	if (mnt_target_ok(s->container, s->reserved, e, sizeof(e)) == -1) {
		cb(job, 0, e, arg);
		return;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		cb(job, 0, "out of memory", arg);
		return;
	}
	a->job = job;
	a->s = *s;
	a->cb = cb;
	a->arg = arg;
	if (env->conf.cluster_member[0] == '\0') {
		attach_check(a);
		return;
	}
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, s->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    attach_found, attach_located, a) == NULL)
		attach_end(a, 0, "cannot reach jb-incus");
}

/* host_mounts: host-<index> each, the ones the container lacks */
struct hostapply {
	struct job	*job;
	struct repo_ctx	*ctx;
	char		 name[JB_INSTANCE_MAX];
	uint8_t		 have[RC_MOUNTS_MAX];
	int		 have_gpg_home, have_gpg_agent, have_ssh;
	struct jb_ssh_dir ssh;
	int		 have_ssh_dir;
	size_t		 next;
	size_t		 attached;
	mount_cb	 cb;
	void		*arg;
};

static void	host_next(struct job *, struct hostapply *);
static void	host_one(struct job *, int, const char *, void *);

static void
host_one(struct job *job, int ok, const char *err, void *arg)
{
	struct hostapply	*h = arg;
	mount_cb		 cb = h->cb;
	void			*cbarg = h->arg;

	if (!ok) {
		free(h);
		cb(job, 0, err, cbarg);
		return;
	}
	h->attached++;
	host_next(job, h);
}

/*
 * gpg.enabled (seed "Read-only does not mean secret"): ~/.gnupg
 * read-only, and the agent's socket directory read-only (a read-only
 * bind still lets a process connect to the sockets in it).  0 attach
 * started, 1 nothing (more) to do.
 */
static int
gpg_next(struct job *job, struct hostapply *h)
{
	struct mount_spec	s;
	char			dir[64];

	if (!h->ctx->conf.gpg_enabled)
		return 1;
	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.name, h->name, sizeof(s.name));
	(void)snprintf(s.reserved, sizeof(s.reserved), "/home/dev/%s",
	    h->ctx->conf.container_prefix);
	s.readonly = 1;
	if (!h->have_gpg_home) {
		h->have_gpg_home = 1;
		(void)strlcpy(s.device, MNT_GPG_HOME, sizeof(s.device));
		(void)strlcpy(s.host, "~/.gnupg", sizeof(s.host));
		(void)strlcpy(s.container, "/home/dev/.gnupg",
		    sizeof(s.container));
		(void)strlcpy(s.what, "gpg.enabled", sizeof(s.what));
		mount_attach(job, &s, host_one, h);
		return 0;
	}
	if (h->have_gpg_agent)
		return 1;
	h->have_gpg_agent = 1;
	(void)snprintf(dir, sizeof(dir), "/run/user/%u/gnupg",
	    (unsigned)env->owner_uid);
	if (access(dir, F_OK) == -1) {
		job_progress(job, "gpg: no agent sockets at %s: start "
		    "gpg-agent, then jbctl apply %s", dir, h->name);
		return 1;
	}
	(void)strlcpy(s.device, MNT_GPG_AGENT, sizeof(s.device));
	(void)strlcpy(s.host, dir, sizeof(s.host));
	(void)strlcpy(s.container, dir, sizeof(s.container));
	(void)strlcpy(s.what, "gpg agent sockets", sizeof(s.what));
	mount_attach(job, &s, host_one, h);
	return 0;
}

/*
 * ssh.enabled: jb-mountd makes the repo's shared ~/.ssh and seeds
 * it while empty (jb-mountd/sshseed.c says why there); then it is
 * attached read-write at /home/dev/.ssh, checked as every mount.
 */
static void
ssh_dir(struct req *r, struct imsg *imsg)
{
	struct hostapply	*h = r->arg;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_SSH_DIR ||
	    imsg_get_data(imsg, &h->ssh, sizeof(h->ssh)) == -1)
		fatalx("jb-mountd: malformed SSH_DIR");
	h->ssh.path[sizeof(h->ssh.path) - 1] = '\0';
	h->ssh.warning[sizeof(h->ssh.warning) - 1] = '\0';
	h->have_ssh_dir = 1;
}

static void
ssh_seeded(struct req *r, int ok, const char *err)
{
	struct hostapply	*h = r->arg;
	struct job		*job = h->job;
	struct mount_spec	 s;
	mount_cb		 cb = h->cb;
	void			*cbarg = h->arg;

	if (!ok || !h->have_ssh_dir) {
		free(h);
		cb(job, 0, ok ? "jb-mountd: no ssh directory" : err, cbarg);
		return;
	}
	if (h->ssh.warning[0] != '\0')
		job_progress(job, "%s", h->ssh.warning);
	if (h->ssh.seeded >= 0)
		job_progress(job, "ssh.enabled: %d file(s) of ~/.ssh seeded "
		    "into the shared ~/.ssh", (int)h->ssh.seeded);
	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.name, h->name, sizeof(s.name));
	(void)snprintf(s.reserved, sizeof(s.reserved), "/home/dev/%s",
	    h->ctx->conf.container_prefix);
	(void)strlcpy(s.device, MNT_SSH_SHARED, sizeof(s.device));
	(void)strlcpy(s.host, h->ssh.path, sizeof(s.host));
	(void)strlcpy(s.container, "/home/dev/.ssh", sizeof(s.container));
	(void)strlcpy(s.what, "ssh.enabled", sizeof(s.what));
	s.readonly = 0;
	mount_attach(job, &s, host_one, h);
}

/* 0 started, 1 nothing (more) to do */
static int
ssh_next(struct job *job, struct hostapply *h)
{
	struct jb_ssh_seed	q;

	if (!h->ctx->conf.ssh_enabled || h->have_ssh)
		return 1;
	h->have_ssh = 1;
	memset(&q, 0, sizeof(q));
	if (strlcpy(q.key, h->ctx->conf.container_prefix, sizeof(q.key)) >=
	    sizeof(q.key))
		fatalx("container_prefix %s: too long",
		    h->ctx->conf.container_prefix);
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_SSH_SEED, &q, sizeof(q), -1,
	    ssh_dir, ssh_seeded, h) == NULL) {
		job_progress(job, "ssh.enabled: cannot reach jb-mountd");
		return 1;
	}
	return 0;
}

static void
host_next(struct job *job, struct hostapply *h)
{
	const struct rc_mount	*m;
	struct mount_spec	 s;
	mount_cb		 cb = h->cb;
	void			*cbarg = h->arg;

	while (h->next < h->ctx->conf.host_mounts.n && h->have[h->next])
		h->next++;
	if (h->next >= h->ctx->conf.host_mounts.n) {
		if (gpg_next(job, h) == 0 || ssh_next(job, h) == 0)
			return;
		free(h);
		cb(job, 1, NULL, cbarg);
		return;
	}
	m = &h->ctx->conf.host_mounts.v[h->next];
	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.name, h->name, sizeof(s.name));
	(void)snprintf(s.device, sizeof(s.device), "%s%zu", MNT_HOST_PREFIX,
	    h->next);
	(void)strlcpy(s.host, m->host, sizeof(s.host));
	(void)strlcpy(s.container, m->container, sizeof(s.container));
	(void)snprintf(s.reserved, sizeof(s.reserved), "/home/dev/%s",
	    h->ctx->conf.container_prefix);
	(void)snprintf(s.what, sizeof(s.what), "host_mounts[%zu]", h->next);
	s.readonly = m->readonly;
	h->next++;
	mount_attach(job, &s, host_one, h);
}

static void
host_disk(struct req *r, struct imsg *imsg)
{
	struct hostapply	*h = r->arg;
	struct jb_disk		 d;
	const char		*n;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-incus: malformed DISK");
	d.device[sizeof(d.device) - 1] = '\0';
	if (strcmp(d.device, MNT_GPG_HOME) == 0)
		h->have_gpg_home = 1;
	if (strcmp(d.device, MNT_GPG_AGENT) == 0)
		h->have_gpg_agent = 1;
	if (strcmp(d.device, MNT_SSH_SHARED) == 0)
		h->have_ssh = 1;
	if (strncmp(d.device, MNT_HOST_PREFIX, strlen(MNT_HOST_PREFIX)) != 0)
		return;
	n = d.device + strlen(MNT_HOST_PREFIX);
	if (strspn(n, "0123456789") == strlen(n) && *n != '\0' &&
	    atoi(n) < RC_MOUNTS_MAX)
		h->have[atoi(n)] = 1;
}

static void
host_listed(struct req *r, int ok, const char *err)
{
	struct hostapply	*h = r->arg;
	struct job		*job = h->job;
	mount_cb		 cb = h->cb;
	void			*cbarg = h->arg;

	if (!ok) {
		free(h);
		cb(job, 0, err, cbarg);
		return;
	}
	host_next(job, h);
}

void
mounts_host_apply(struct job *job, struct repo_ctx *ctx, const char *name,
    mount_cb cb, void *arg)
{
	struct hostapply	*h;
	struct jb_incus_target	 t;

	if (ctx->conf.host_mounts.n == 0 && !ctx->conf.gpg_enabled &&
	    !ctx->conf.ssh_enabled) {
		cb(job, 1, NULL, arg);
		return;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		cb(job, 0, "out of memory", arg);
		return;
	}
	h->job = job;
	h->ctx = ctx;
	(void)strlcpy(h->name, name, sizeof(h->name));
	h->cb = cb;
	h->arg = arg;
	job_progress(job, "host_mounts: %zu to attach%s%s",
	    ctx->conf.host_mounts.n, ctx->conf.gpg_enabled ? ", and gpg" :
	    "", ctx->conf.ssh_enabled ? ", and the shared ~/.ssh" : "");
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_LIST, &t, sizeof(t), -1,
	    host_disk, host_listed, h) == NULL) {
		free(h);
		cb(job, 0, "cannot reach jb-incus", arg);
	}
}

/* a deadline reached: detach, then clear exactly that deadline */
static void
expired_cleared(struct req *r, int ok, const char *err)
{
	struct jb_mount_deadline	*d = r->arg;

	if (!ok)
		log_warnx("mount %s of %s: detached, but its deadline could "
		    "not be cleared: %s", d->kind, d->name, err);
	free(d);
}

static void
expired_removed(struct req *r, int ok, const char *err)
{
	struct jb_mount_deadline	*d = r->arg;

	/* gone already (unmounted, container destroyed) counts as done */
	if (!ok && strstr(err, "has no device") == NULL &&
	    strstr(err, "no such container") == NULL) {
		log_warnx("mount %s of %s: detaching at its deadline failed, "
		    "jb-mountd will ask again: %s", d->kind, d->name, err);
		audit_deadline(d, "fail", err);
		free(d);
		return;
	}
	log_info("mount %s of %s: detached at its deadline", d->kind,
	    d->name);
	audit_deadline(d, "accept", "deadline reached");
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_CLEAR, d, sizeof(*d),
	    -1, NULL, expired_cleared, d) == NULL)
		free(d);
}

int
mounts_expired(struct imsg *imsg)
{
	struct jb_mount_deadline	*d;
	struct jb_disk			 q;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return 0;
	if (imsg_get_data(imsg, d, sizeof(*d)) == -1 ||
	    memchr(d->name, '\0', sizeof(d->name)) == NULL ||
	    memchr(d->kind, '\0', sizeof(d->kind)) == NULL ||
	    !mnt_kind_ok(d->kind)) {
		free(d);
		return -1;
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.name, d->name, sizeof(q.name));
	(void)snprintf(q.device, sizeof(q.device), "%s%s",
	    MNT_OPTIONAL_PREFIX, d->kind);
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_REMOVE, &q, sizeof(q), -1,
	    NULL, expired_removed, d) == NULL)
		free(d);
	return 0;
}

/* one DEADLINE reply of jb-mountd's, added to a list (ls, mount ls) */
void
mounts_deadline_add(struct jb_mount_deadline **dl, size_t *ndl,
    struct imsg *imsg)
{
	struct jb_mount_deadline	 d, *v;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_DEADLINE ||
	    imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-mountd: malformed DEADLINE");
	d.name[sizeof(d.name) - 1] = '\0';
	d.kind[sizeof(d.kind) - 1] = '\0';
	if ((v = reallocarray(*dl, *ndl + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	*dl = v;
	(*dl)[(*ndl)++] = d;
}
