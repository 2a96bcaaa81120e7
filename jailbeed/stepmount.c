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
 * An autostart step's mounts: each optional_mounts entry it names is
 * attached for the step alone, as jbctl mount attaches it (jb-mountd
 * checks the source as the owner, jb-incus adds optional-<kind>, the
 * mount is verified), and detached when the step ends, however it ends.
 * The deadline (the step's timeout and some slack) is recorded with
 * jb-mountd before the device is added: should jailbeed die during the
 * step, jb-mountd's timer outlives it (its file survives a restart) and
 * the parent detaches the mount when it fires, as any expired mount.
 * A kind attached already (jbctl mount) is left as it is, neither
 * attached nor detached by the step.  Over an SSH session that
 * remote.ssh.mounts does not open, a step's mounts are refused: the
 * mount_roots grant is decided for jbctl mount alone.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "policyrec.h"
#include "mount_ssh.h"
#include "mounts.h"
#include "mountspec.h"
#include "stepmount.h"

struct stepmounts {
	struct job			*job;
	char				 name[JB_INSTANCE_MAX];
	const struct repoconf		*conf;
	const struct rc_step		*step;
	int64_t				 until;
	int				 at;
	uint8_t				 had[RC_STEP_MOUNTS_MAX];
	uint8_t				 granted[RC_STEP_MOUNTS_MAX];
	char				 err[JB_ERR_TEXT_MAX];
	stepmounts_cb			 cb;
	void				*arg;
};

static void	grant_next(struct stepmounts *);
static void	end_next(struct stepmounts *);

static const struct rc_optional *
entry(const struct stepmounts *sm, int k)
{
	size_t	i;

	for (i = 0; i < sm->conf->optional_mounts.n; i++)
		if (strcmp(sm->conf->optional_mounts.v[i].kind,
		    sm->step->mounts[k]) == 0)
			return &sm->conf->optional_mounts.v[i];
	return NULL;
}

static void
device_of(const struct stepmounts *sm, int k, char *dev, size_t len)
{
	(void)snprintf(dev, len, "%s%s", MNT_OPTIONAL_PREFIX,
	    sm->step->mounts[k]);
}

static void
by_of(const struct stepmounts *sm, char *by, size_t len)
{
	(void)snprintf(by, len, "autostart step %s", sm->step->name);
}

struct stepmounts *
step_mounts_new(struct job *job, const char *name,
    const struct repoconf *conf, const struct rc_step *step, int64_t until)
{
	struct stepmounts	*sm;

	if ((sm = calloc(1, sizeof(*sm))) == NULL)
		return NULL;
	sm->job = job;
	(void)strlcpy(sm->name, name, sizeof(sm->name));
	sm->conf = conf;
	sm->step = step;
	sm->until = until;
	return sm;
}

static void
grant_end(struct stepmounts *sm, int ok, const char *err)
{
	sm->cb(sm->job, ok, err, sm->arg);
}

/* the deadline went before the device: failed attach, so it goes too */
static void
grant_cleared(struct req *r, int ok, const char *err)
{
	struct stepmounts	*sm = r->arg;

	if (!ok)
		log_warnx("step %s: deadline of mount %s not cleared (%s): it "
		    "fires on nothing", sm->step->name,
		    sm->step->mounts[sm->at], err);
	grant_end(sm, 0, sm->err);
}

static void
grant_attached(struct job *job, int ok, const char *err, void *arg)
{
	struct stepmounts		*sm = arg;
	const struct rc_optional	*o = entry(sm, sm->at);
	struct jb_mount_deadline	 d;
	char				 dev[JB_DEVICE_MAX], by[96];

	device_of(sm, sm->at, dev, sizeof(dev));
	by_of(sm, by, sizeof(by));
	audit_mount(job, "mount", sm->name, sm->conf->container_prefix, dev,
	    o->m.host, by, sm->until, ok, err);
	if (ok) {
		sm->granted[sm->at] = 1;
		job_progress(job, "step %s: mount %s attached at %s for it%s",
		    sm->step->name, sm->step->mounts[sm->at], o->m.container,
		    o->m.readonly ? " (read-only)" : "");
		sm->at++;
		grant_next(sm);
		return;
	}
	(void)snprintf(sm->err, sizeof(sm->err), "mount %s: %s",
	    sm->step->mounts[sm->at], err);
	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.name, sm->name, sizeof(d.name));
	(void)strlcpy(d.kind, sm->step->mounts[sm->at], sizeof(d.kind));
	d.until = sm->until;
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_CLEAR, &d, sizeof(d),
	    -1, NULL, grant_cleared, sm) == NULL)
		grant_end(sm, 0, sm->err);
}

static void
grant_recorded(struct req *r, int ok, const char *err)
{
	struct stepmounts		*sm = r->arg;
	const struct rc_optional	*o = entry(sm, sm->at);
	struct mount_spec		 s;

	if (!ok) {
		(void)snprintf(sm->err, sizeof(sm->err), "mount %s: its "
		    "deadline could not be recorded, so it is not attached: "
		    "%s", sm->step->mounts[sm->at], err);
		grant_end(sm, 0, sm->err);
		return;
	}
	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.name, sm->name, sizeof(s.name));
	device_of(sm, sm->at, s.device, sizeof(s.device));
	(void)strlcpy(s.host, o->m.host, sizeof(s.host));
	(void)strlcpy(s.container, o->m.container, sizeof(s.container));
	(void)snprintf(s.reserved, sizeof(s.reserved), "/home/dev/%s",
	    sm->conf->container_prefix);
	(void)snprintf(s.what, sizeof(s.what), "optional_mounts.%s",
	    o->kind);
	s.readonly = o->m.readonly;
	mount_attach(sm->job, &s, grant_attached, sm);
}

static void
grant_next(struct stepmounts *sm)
{
	struct jb_mount_deadline	d;

	while (sm->at < sm->step->nmounts && sm->had[sm->at]) {
		job_progress(sm->job, "step %s: mount %s is attached already: "
		    "left as it is", sm->step->name, sm->step->mounts[sm->at]);
		sm->at++;
	}
	if (sm->at >= sm->step->nmounts) {
		grant_end(sm, 1, NULL);
		return;
	}
	if (entry(sm, sm->at) == NULL) {
		(void)snprintf(sm->err, sizeof(sm->err), "mount %s: no such "
		    "optional_mounts entry", sm->step->mounts[sm->at]);
		grant_end(sm, 0, sm->err);
		return;
	}
	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.name, sm->name, sizeof(d.name));
	(void)strlcpy(d.kind, sm->step->mounts[sm->at], sizeof(d.kind));
	d.until = sm->until;
	/* Incus holds it too: a restart without jb-mountd's file keeps it */
	policy_mount_deadline(&d, grant_recorded, sm);
}

static void
grant_disk(struct req *r, struct imsg *imsg)
{
	struct stepmounts	*sm = r->arg;
	struct jb_disk		 d;
	char			 dev[JB_DEVICE_MAX];
	int			 k;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-incus: malformed DISK");
	d.device[sizeof(d.device) - 1] = '\0';
	for (k = 0; k < sm->step->nmounts; k++) {
		device_of(sm, k, dev, sizeof(dev));
		if (strcmp(dev, d.device) == 0)
			sm->had[k] = 1;
	}
}

static void
grant_listed(struct req *r, int ok, const char *err)
{
	struct stepmounts	*sm = r->arg;

	if (!ok) {
		grant_end(sm, 0, err);
		return;
	}
	grant_next(sm);
}

void
step_mounts_grant(struct stepmounts *sm, stepmounts_cb cb, void *arg)
{
	struct jb_incus_target	t;

	sm->cb = cb;
	sm->arg = arg;
	sm->at = 0;
	if (mount_ssh_restricted(sm->job)) {
		(void)snprintf(sm->err, sizeof(sm->err), "mounts are refused "
		    "over SSH unless remote.ssh.mounts is set (R20): run new "
		    "or start on the host");
		grant_end(sm, 0, sm->err);
		return;
	}
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, sm->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_LIST, &t, sizeof(t), -1,
	    grant_disk, grant_listed, sm) == NULL)
		grant_end(sm, 0, "cannot reach jb-incus");
}

/* --- the end of the step: what it attached goes --- */

static void
end_done(struct stepmounts *sm)
{
	struct job	*job = sm->job;
	stepmounts_cb	 cb = sm->cb;
	void		*arg = sm->arg;
	char		 err[JB_ERR_TEXT_MAX];
	int		 ok = sm->err[0] == '\0';

	(void)strlcpy(err, sm->err, sizeof(err));
	free(sm);
	cb(job, ok, ok ? NULL : err, arg);
}

static void
end_cleared(struct req *r, int ok, const char *err)
{
	struct stepmounts	*sm = r->arg;

	if (!ok)
		log_warnx("step %s: mount %s detached, but its deadline could "
		    "not be cleared: %s", sm->step->name,
		    sm->step->mounts[sm->at], err);
	sm->at++;
	end_next(sm);
}

static void
end_removed(struct req *r, int ok, const char *err)
{
	struct stepmounts		*sm = r->arg;
	struct jb_mount_deadline	 d;
	char				 dev[JB_DEVICE_MAX], by[96];

	device_of(sm, sm->at, dev, sizeof(dev));
	by_of(sm, by, sizeof(by));
	/* gone already (unmounted by hand, its deadline) counts as done */
	if (!ok && strstr(err, "has no device") == NULL) {
		audit_mount(sm->job, "unmount", sm->name,
		    sm->conf->container_prefix, dev, NULL, by, 0, 0, err);
		/* its deadline stands: jb-mountd asks again when it comes */
		if (sm->err[0] == '\0')
			(void)snprintf(sm->err, sizeof(sm->err), "mount %s "
			    "could not be detached after the step (%s): "
			    "its deadline detaches it",
			    sm->step->mounts[sm->at], err);
		sm->at++;
		end_next(sm);
		return;
	}
	audit_mount(sm->job, "unmount", sm->name, sm->conf->container_prefix,
	    dev, NULL, by, 0, 1, NULL);
	job_progress(sm->job, "step %s: mount %s detached", sm->step->name,
	    sm->step->mounts[sm->at]);
	memset(&d, 0, sizeof(d));
	(void)strlcpy(d.name, sm->name, sizeof(d.name));
	(void)strlcpy(d.kind, sm->step->mounts[sm->at], sizeof(d.kind));
	d.until = sm->until;
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_CLEAR, &d, sizeof(d),
	    -1, NULL, end_cleared, sm) == NULL) {
		sm->at++;
		end_next(sm);
	}
}

static void
end_next(struct stepmounts *sm)
{
	struct jb_disk	q;

	while (sm->at < sm->step->nmounts && !sm->granted[sm->at])
		sm->at++;
	if (sm->at >= sm->step->nmounts) {
		end_done(sm);
		return;
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.name, sm->name, sizeof(q.name));
	device_of(sm, sm->at, q.device, sizeof(q.device));
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_REMOVE, &q, sizeof(q), -1,
	    NULL, end_removed, sm) == NULL) {
		if (sm->err[0] == '\0')
			(void)snprintf(sm->err, sizeof(sm->err), "cannot reach "
			    "jb-incus to detach the step's mounts: their "
			    "deadlines detach them");
		end_done(sm);
	}
}

void
step_mounts_end(struct stepmounts *sm, stepmounts_cb cb, void *arg)
{
	sm->cb = cb;
	sm->arg = arg;
	sm->at = 0;
	sm->err[0] = '\0';
	end_next(sm);
}
