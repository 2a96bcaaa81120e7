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
 * Mount sources against each other, and again before a start.
 * A container that can write in one mount's source can plant
 * a symlink in the path of any source inside it; jb-mountd never follows
 * one, but Incus resolves a source again at every start of a container.
 * So the suite keeps one rule over every mount of every suite container
 * (what Incus holds, not what configurations say, since a container
 * keeps the mounts of an older configuration): no two different mounts
 * are equal or one inside the other where either is read-write
 * (mnt_overlap()).  Then no container can write any part of another
 * mount's path.  Before each start or restart the suite makes, each
 * source of the container is checked again (jb-mountd: still no
 * symlink in it) and against the rule, and the start is refused
 * otherwise: that covers mounts made before the rule, and paths changed
 * on the host while the container was stopped.
 *
 * Handing Incus a path it cannot be redirected from, a bind mount of
 * the checked object in a root-owned staging directory, was the other
 * way; it needs CAP_SYS_ADMIN in the host's mount namespace, which no
 * process of the suite holds, and such a mount is gone after a reboot
 * while Incus's device still names it.
 */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mountspec.h"
#include "srcguard.h"

struct listing {
	struct disks	 d;
	disks_cb	 cb;
	void		*arg;
};

static struct disks	pending;

static void
listed_disk(struct req *r, struct imsg *imsg)
{
	struct listing	*l = r->arg;
	struct jb_disk	*v;

	if ((v = reallocarray(l->d.v, l->d.n + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	l->d.v = v;
	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &v[l->d.n], sizeof(*v)) == -1)
		fatalx("jb-incus: malformed DISK");
	v += l->d.n++;
	v->name[sizeof(v->name) - 1] = '\0';
	v->device[sizeof(v->device) - 1] = '\0';
	v->source[sizeof(v->source) - 1] = '\0';
	v->path[sizeof(v->path) - 1] = '\0';
	v->prefix[sizeof(v->prefix) - 1] = '\0';
}

static void
listed(struct req *r, int ok, const char *err)
{
	struct listing	*l = r->arg;

	l->cb(ok, err, &l->d, l->arg);
	free(l->d.v);
	free(l);
}

void
disks_list(disks_cb cb, void *arg)
{
	struct listing		*l;
	struct jb_incus_target	 t;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		fatal("%s", __func__);
	l->cb = cb;
	l->arg = arg;
	memset(&t, 0, sizeof(t));	/* name "": every container */
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_LIST, &t, sizeof(t), -1,
	    listed_disk, listed, l) == NULL)
		listed(&(struct req){ .arg = l }, 0, "cannot reach jb-incus");
}

static void
src_of(struct mnt_src *m, const struct jb_disk *d)
{
	m->source = d->source;
	m->prefix = d->prefix;
	m->device = d->device;
	m->name = d->name;
	m->readonly = d->readonly;
}

int
disks_overlap(const struct disks *all, const char *name, const char *device,
    const char *source, int readonly, const char *prefix, char *err,
    size_t errlen)
{
	struct mnt_src	 s, *o;
	size_t		 i, n = 0;
	int		 rv;

	for (i = 0; prefix == NULL && i < all->n; i++)
		if (strcmp(all->v[i].name, name) == 0)
			prefix = all->v[i].prefix;
	if (prefix == NULL)
		prefix = "";
	if ((o = calloc(all->n + pending.n + 1, sizeof(*o))) == NULL)
		fatal("%s", __func__);
	for (i = 0; i < all->n; i++)
		if (strcmp(all->v[i].name, name) != 0 ||
		    strcmp(all->v[i].device, device) != 0)
			src_of(&o[n++], &all->v[i]);
	for (i = 0; i < pending.n; i++)
		if (strcmp(pending.v[i].name, name) != 0 ||
		    strcmp(pending.v[i].device, device) != 0)
			src_of(&o[n++], &pending.v[i]);
	s.source = source;
	s.prefix = prefix;
	s.device = device;
	s.name = name;
	s.readonly = readonly;
	rv = mnt_overlap(&s, o, n, err, errlen);
	free(o);
	return rv;
}

void
disks_pending_add(const struct jb_disk *d)
{
	struct jb_disk	*v;

	if ((v = reallocarray(pending.v, pending.n + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	pending.v = v;
	v[pending.n++] = *d;
}

void
disks_pending_del(const struct jb_disk *d)
{
	size_t	i;

	for (i = 0; i < pending.n; i++)
		if (strcmp(pending.v[i].name, d->name) == 0 &&
		    strcmp(pending.v[i].device, d->device) == 0) {
			pending.v[i] = pending.v[--pending.n];
			return;
		}
}

/*
 * Where a path really is: its realpath, or for a path that does not
 * exist (yet), the realpath of the deepest part that does with the rest
 * appended; the path cleaned as it is when even that fails.
 */
static void
real_of(const char *path, char *out, size_t outlen)
{
	char	 head[PATH_MAX], real[PATH_MAX], tail[PATH_MAX], t[PATH_MAX];
	char	*slash;
	char	 e[64];

	out[0] = '\0';
	if (path[0] != '/' || mnt_clean(path, head, sizeof(head), e,
	    sizeof(e)) == -1)
		return;
	tail[0] = '\0';
	while (realpath(head, real) == NULL) {
		if (errno != ENOENT && errno != ENOTDIR) {
			(void)mnt_clean(path, out, outlen, e, sizeof(e));
			return;
		}
		if ((slash = strrchr(head, '/')) == NULL || slash == head) {
			(void)mnt_clean(path, out, outlen, e, sizeof(e));
			return;
		}
		(void)snprintf(t, sizeof(t), "%s%s", slash, tail);
		(void)strlcpy(tail, t, sizeof(tail));
		*slash = '\0';
	}
	if ((size_t)snprintf(out, outlen, "%s%s", strcmp(real, "/") == 0 &&
	    tail[0] != '\0' ? "" : real, tail) >= outlen)
		out[0] = '\0';
}

int
src_exposes(const char *source, const char *device, char *err,
    size_t errlen)
{
	struct passwd		*pw;
	struct mnt_guarded	 g[6];
	char			 conf[PATH_MAX], keys[PATH_MAX];
	char			 state[PATH_MAX], sock[PATH_MAX];
	char			 ssh[PATH_MAX], shared[PATH_MAX];
	char			 p[PATH_MAX];

	conf[0] = keys[0] = p[0] = '\0';
	if ((pw = getpwuid(env->owner_uid)) != NULL &&
	    pw->pw_dir[0] == '/') {
		(void)snprintf(p, sizeof(p), "%s/.config/jailbee",
		    pw->pw_dir);
		real_of(p, conf, sizeof(conf));
		(void)snprintf(p, sizeof(p), "%s/.config/jailbee/"
		    "authorized_keys", pw->pw_dir);
	}
	if (env->conf.ssh_keys[0] != '\0')
		(void)strlcpy(p, env->conf.ssh_keys, sizeof(p));
	if (pw != NULL || env->conf.ssh_keys[0] != '\0')
		real_of(p, keys, sizeof(keys));
	real_of(env->conf.state_dir, state, sizeof(state));
	(void)strlcpy(p, env->conf.socket, sizeof(p));
	real_of(dirname(p), sock, sizeof(sock));
	if ((size_t)snprintf(ssh, sizeof(ssh), "%s/mounts/ssh", state) >=
	    sizeof(ssh))
		ssh[0] = '\0';
	if ((size_t)snprintf(shared, sizeof(shared), "%s/mounts/shared",
	    state) >= sizeof(shared))
		shared[0] = '\0';

	memset(g, 0, sizeof(g));
	g[0].path = conf;
	g[0].what = "the suite's configuration directory (~/.config/jailbee)";
	g[1].path = keys;
	g[1].what = "the authorized_keys file of the suite's SSH front door";
	g[2].path = state;
	g[2].what = "the suite's state directory (state_dir)";
	g[3].path = sock;
	g[3].what = "the directory of the suite's control socket";
	/* ssh.enabled's shared ~/.ssh and the agents' shared state */
	g[4].path = "";
	g[4].allow_inside = ssh;
	g[4].allow_device = MNT_SSH_SHARED;
	g[5].path = "";
	g[5].allow_inside = shared;
	g[5].allow_device = MNT_AGENT_PREFIX;
	return mnt_exposes(source, device, g, sizeof(g) / sizeof(g[0]), err,
	    errlen);
}

/* the start guard: the container's disks one by one */
struct guard {
	struct job	*job;
	char		 name[JB_INSTANCE_MAX];
	guard_cb	 cb;
	struct disks	 all;
	size_t		 next;
	char		 failure[JB_ERR_TEXT_MAX];
};

static void	guard_next(struct guard *);

static void
guard_end(struct guard *g, int ok, const char *err)
{
	struct job	*job = g->job;
	guard_cb	 cb = g->cb;
	char		 e[JB_ERR_TEXT_MAX * 3];

	if (ok)
		e[0] = '\0';
	else
		(void)snprintf(e, sizeof(e), "%s is not started: %s", g->name,
		    err);
	free(g->all.v);
	free(g);
	cb(job, ok, e);
}

static void
guard_fail(struct guard *g, const struct jb_disk *d, const char *why)
{
	char	e[JB_ERR_TEXT_MAX * 2];

	(void)snprintf(e, sizeof(e), "mount %s at %.200s: %s; restore the "
	    "path, or remove the mount (incus config device remove %s %s)",
	    d->device, d->path, why, d->name, d->device);
	guard_end(g, 0, e);
}

static void
guard_rechecked(struct req *r, int ok, const char *err)
{
	struct guard	*g = r->arg;
	struct jb_disk	*d = &g->all.v[g->next];
	char		 e[JB_ERR_TEXT_MAX];

	if (!ok) {
		guard_fail(g, d, err);
		return;
	}
	if (disks_overlap(&g->all, d->name, d->device, d->source,
	    d->readonly, NULL, e, sizeof(e)) == -1 ||
	    src_exposes(d->source, d->device, e, sizeof(e)) == -1) {
		guard_fail(g, d, e);
		return;
	}
	g->next++;
	guard_next(g);
}

static void
guard_next(struct guard *g)
{
	struct jb_mount_check	 q;
	struct jb_disk		*d;

	while (g->next < g->all.n &&
	    strcmp(g->all.v[g->next].name, g->name) != 0)
		g->next++;
	if (g->next >= g->all.n) {
		guard_end(g, 1, NULL);
		return;
	}
	d = &g->all.v[g->next];
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.host, d->source, sizeof(q.host));
	(void)strlcpy(q.what, d->device, sizeof(q.what));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_RECHECK, &q, sizeof(q), -1,
	    NULL, guard_rechecked, g) == NULL)
		guard_end(g, 0, "cannot reach jb-mountd");
}

static void
guard_listed(int ok, const char *err, struct disks *all, void *arg)
{
	struct guard	*g = arg;

	if (!ok) {
		guard_end(g, 0, err);
		return;
	}
	/* the list is the caller's: keep a copy for the walk */
	if (all->n > 0) {
		if ((g->all.v = reallocarray(NULL, all->n,
		    sizeof(*all->v))) == NULL)
			fatal("%s", __func__);
		memcpy(g->all.v, all->v, all->n * sizeof(*all->v));
	}
	g->all.n = all->n;
	guard_next(g);
}

void
start_guard(struct job *job, const char *name, guard_cb cb)
{
	struct guard	*g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		fatal("%s", __func__);
	g->job = job;
	g->cb = cb;
	(void)strlcpy(g->name, name, sizeof(g->name));
	disks_list(guard_listed, g);
}
