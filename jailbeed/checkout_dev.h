/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_CHECKOUT_DEV_H
#define JAILBEED_CHECKOUT_DEV_H

#include "jailbeed.h"

/* ok 1: done; else err says why */
typedef void	(*codev_cb)(struct job *, int ok, const char *err);

/* one device of the checkout CREATE makes: host-source, host-repo-rw */
struct codev_one {
	char			 device[JB_DEVICE_MAX];
	char			 path[PATH_MAX];	/* in the container */
	int			 readonly;
	struct jb_mount_checked	 chk;
	int			 have_chk;
	int			 held;		/* jb-mountd holds chk.token */
	int			 pending;	/* counted by disks_overlap */
};

struct codev {
	struct job		*job;
	char			 name[JB_INSTANCE_MAX];
	char			 prefix[48];
	char			 host[PATH_MAX];	/* the checkout */
	struct codev_one	 dev[2];
	size_t			 ndev, next;
	int32_t			 pid;		/* from CREATE */
	char			 realpath[PATH_MAX];	/* what CREATE gets */
	codev_cb		 cb;
};

/*
 * Before CREATE: the checkout (and with mount_rw its read-write twin)
 * checked by jb-mountd as every mount source is, against the overlap
 * rule over every suite disk and against the suite's own files; then
 * counted as attached until codev_created().  cb ok: c->realpath is the
 * source CREATE must name.
 */
void	codev_check(struct job *, struct codev *, const char *name,
	    const char *prefix, const char *host, int mount_rw, codev_cb);
/* CREATE's DISK message: the init's pid; 0, or -1 when it is no DISK */
int	codev_created_msg(struct codev *, struct imsg *);
/* CREATE ended: Incus lists the devices now */
void	codev_created(struct codev *);
/* after the start: what Incus mounted is what was checked, each device */
void	codev_verify(struct job *, struct codev *, codev_cb);
/* what is still held or counted goes */
void	codev_free(struct codev *);

#endif /* JAILBEED_CHECKOUT_DEV_H */
