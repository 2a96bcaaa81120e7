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
 * The checkout's devices, which CREATE makes with the container
 * (host-source read-only at MNT_HOST_SOURCE; with --mount, host-repo-rw
 * at the clone's place), go the way of every other disk (mounts.c):
 * jb-mountd checks the source as the owner sees it, without following a
 * symlink, and holds it; the source may overlap no other mount of any
 * suite container where either is read-write, and may expose none of
 * the suite's own files (srcguard.c); it counts as attached from that
 * decision on, so that an attach at the same moment is decided after
 * it; and once the container runs, jb-mountd verifies that the mount
 * Incus made holds exactly the object checked.  new deletes the
 * container when any step fails.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkout_dev.h"
#include "log.h"
#include "mountspec.h"
#include "srcguard.h"

static void	codev_next_check(struct codev *);

static void
release_one(struct codev_one *d)
{
	struct jb_mount_verify	v;

	if (!d->held)
		return;
	d->held = 0;
	memset(&v, 0, sizeof(v));
	v.token = d->chk.token;
	(void)req_send(PROC_MOUNTD, IMSG_MOUNTD_RELEASE, &v, sizeof(v), -1,
	    NULL, NULL, NULL);
}

static void
pending_one(struct codev *c, struct codev_one *d, int add)
{
	struct jb_disk	p;

	if (add == d->pending)
		return;
	memset(&p, 0, sizeof(p));
	(void)strlcpy(p.name, c->name, sizeof(p.name));
	(void)strlcpy(p.device, d->device, sizeof(p.device));
	(void)strlcpy(p.source, c->realpath, sizeof(p.source));
	(void)strlcpy(p.path, d->path, sizeof(p.path));
	(void)strlcpy(p.prefix, c->prefix, sizeof(p.prefix));
	p.readonly = d->readonly;
	if (add)
		disks_pending_add(&p);
	else
		disks_pending_del(&p);
	d->pending = add;
}

void
codev_free(struct codev *c)
{
	size_t	i;

	for (i = 0; i < c->ndev; i++) {
		release_one(&c->dev[i]);
		pending_one(c, &c->dev[i], 0);
	}
}

static void
codev_end(struct codev *c, int ok, const char *err)
{
	if (!ok)
		codev_free(c);
	c->cb(c->job, ok, err);
}

static void
codev_listed(int ok, const char *err, struct disks *all, void *arg)
{
	struct codev	*c = arg;
	struct codev_one *d;
	char		 e[JB_ERR_TEXT_MAX], msg[JB_ERR_TEXT_MAX * 2];
	size_t		 i;

	if (!ok) {
		codev_end(c, 0, err);
		return;
	}
	for (i = 0; i < c->ndev; i++) {
		d = &c->dev[i];
		if (disks_overlap(all, c->name, d->device, c->realpath,
		    d->readonly, c->prefix, e, sizeof(e)) == -1 ||
		    src_exposes(c->realpath, d->device, e, sizeof(e)) == -1) {
			(void)snprintf(msg, sizeof(msg), "the checkout %.200s "
			    "(%s) is refused: %s", c->realpath, d->device, e);
			codev_end(c, 0, msg);
			return;
		}
	}
	for (i = 0; i < c->ndev; i++)
		pending_one(c, &c->dev[i], 1);
	codev_end(c, 1, NULL);
}

static void
codev_checked_msg(struct req *r, struct imsg *imsg)
{
	struct codev		*c = r->arg;
	struct codev_one	*d = &c->dev[c->next];

	if (imsg_get_type(imsg) != IMSG_MOUNTD_CHECKED ||
	    imsg_get_data(imsg, &d->chk, sizeof(d->chk)) == -1)
		fatalx("jb-mountd: malformed CHECKED");
	d->chk.realpath[sizeof(d->chk.realpath) - 1] = '\0';
	d->chk.warning[sizeof(d->chk.warning) - 1] = '\0';
	d->have_chk = 1;
	d->held = 1;
}

static void
codev_checked(struct req *r, int ok, const char *err)
{
	struct codev		*c = r->arg;
	struct codev_one	*d = &c->dev[c->next];
	char			 e[JB_ERR_TEXT_MAX * 2];

	if (!ok || !d->have_chk) {
		(void)snprintf(e, sizeof(e), "the checkout: %s", ok ?
		    "jb-mountd checked nothing" : err);
		codev_end(c, 0, e);
		return;
	}
	/* every device names the one source */
	if (c->next == 0)
		(void)strlcpy(c->realpath, d->chk.realpath,
		    sizeof(c->realpath));
	else if (strcmp(c->realpath, d->chk.realpath) != 0) {
		codev_end(c, 0, "the checkout changed while it was checked; "
		    "try again");
		return;
	}
	c->next++;
	codev_next_check(c);
}

static void
codev_next_check(struct codev *c)
{
	struct jb_mount_check	q;

	if (c->next >= c->ndev) {
		disks_list(codev_listed, c);
		return;
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.host, c->host, sizeof(q.host));
	(void)strlcpy(q.container, c->dev[c->next].path, sizeof(q.container));
	(void)snprintf(q.what, sizeof(q.what), "the checkout, %s",
	    c->dev[c->next].device);
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_CHECK, &q, sizeof(q), -1,
	    codev_checked_msg, codev_checked, c) == NULL)
		codev_end(c, 0, "cannot reach jb-mountd");
}

void
codev_check(struct job *job, struct codev *c, const char *name,
    const char *prefix, const char *host, int mount_rw, codev_cb cb)
{
	memset(c, 0, sizeof(*c));
	c->job = job;
	c->cb = cb;
	(void)strlcpy(c->name, name, sizeof(c->name));
	(void)strlcpy(c->prefix, prefix, sizeof(c->prefix));
	(void)strlcpy(c->host, host, sizeof(c->host));
	(void)strlcpy(c->dev[0].device, MNT_DEV_CHECKOUT,
	    sizeof(c->dev[0].device));
	(void)strlcpy(c->dev[0].path, MNT_HOST_SOURCE, sizeof(c->dev[0].path));
	c->dev[0].readonly = 1;
	c->ndev = 1;
	if (mount_rw) {
		(void)strlcpy(c->dev[1].device, MNT_DEV_CHECKOUT_RW,
		    sizeof(c->dev[1].device));
		(void)snprintf(c->dev[1].path, sizeof(c->dev[1].path),
		    "/home/dev/%s", prefix);
		c->ndev = 2;
	}
	codev_next_check(c);
}

int
codev_created_msg(struct codev *c, struct imsg *imsg)
{
	struct jb_disk	d;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK)
		return -1;
	if (imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-incus: malformed DISK");
	d.name[sizeof(d.name) - 1] = '\0';
	if (strcmp(d.name, c->name) == 0 && d.pid > 1)
		c->pid = d.pid;
	return 0;
}

void
codev_created(struct codev *c)
{
	size_t	i;

	for (i = 0; i < c->ndev; i++)
		pending_one(c, &c->dev[i], 0);
}

static void	codev_next_verify(struct codev *);

static void
codev_verified(struct req *r, int ok, const char *err)
{
	struct codev	*c = r->arg;
	char		 e[JB_ERR_TEXT_MAX * 2];

	if (!ok) {
		(void)snprintf(e, sizeof(e), "the checkout's mount at %s: %s",
		    c->dev[c->next].path, err);
		codev_end(c, 0, e);
		return;
	}
	c->next++;
	codev_next_verify(c);
}

static void
codev_next_verify(struct codev *c)
{
	struct jb_mount_verify	 v;
	struct codev_one	*d;

	if (c->next >= c->ndev) {
		codev_end(c, 1, NULL);
		return;
	}
	d = &c->dev[c->next];
	memset(&v, 0, sizeof(v));
	v.token = d->chk.token;
	v.pid = c->pid;
	(void)strlcpy(v.container, d->path, sizeof(v.container));
	/* VERIFY releases the token, whatever it finds */
	d->held = 0;
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_VERIFY, &v, sizeof(v), -1,
	    NULL, codev_verified, c) == NULL)
		codev_end(c, 0, "cannot reach jb-mountd");
}

void
codev_verify(struct job *job, struct codev *c, codev_cb cb)
{
	c->job = job;
	c->cb = cb;
	c->next = 0;
	if (c->pid <= 1) {
		codev_end(c, 0, "the checkout's mount: jb-incus did not say "
		    "which process to check");
		return;
	}
	codev_next_verify(c);
}
