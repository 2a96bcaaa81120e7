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
    const char *source, int readonly, char *err, size_t errlen)
{
	struct mnt_src	 s, *o;
	size_t		 i, n = 0;
	const char	*prefix = "";
	int		 rv;

	for (i = 0; i < all->n; i++)
		if (strcmp(all->v[i].name, name) == 0)
			prefix = all->v[i].prefix;
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
	    d->readonly, e, sizeof(e)) == -1) {
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
