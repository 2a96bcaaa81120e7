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
 * Whether the kernel holds a container to the size of its root disk.
 *
 * On a btrfs storage pool Incus makes the size a qgroup limit.  The
 * kernel marks the filesystem's quota accounting inconsistent when it
 * cannot keep it exact: quotas just turned on, until their first scan
 * ends; a snapshot whose source belongs to a higher-level qgroup the
 * snapshot does not join; a subvolume dropped whose tree is as deep as
 * qgroups/drop_subtree_threshold; a qgroup item it could not write.  In
 * most of these it stops counting writes on the whole filesystem, every
 * qgroup keeps the figure it had, and a write past a size is not refused
 * until a rescan has counted everything again.  The mark is all a user
 * can see of it, so a marked pool is taken as holding no size.  The
 * state is world-readable in sysfs
 * (/sys/fs/btrfs/<uuid>/qgroups/{enabled,inconsistent}); the rescan
 * needs CAP_SYS_ADMIN.
 */

#ifndef JB_DISKQ_H
#define JB_DISKQ_H

#include <stddef.h>

enum {
	DISKQ_UNCHECKED = 0,	/* not btrfs: the driver's own business */
	DISKQ_ENFORCED,		/* btrfs, quotas on, accounting consistent */
	DISKQ_NOT_ENFORCED	/* btrfs, quotas off or accounting inconsistent */
};

struct jb_diskq {
	int		state;			/* DISKQ_* */
	char		fstype[32];		/* of the pool's mount */
	char		text[512];		/* what was found; what to do */
};

struct diskq_mount {
	char	point[1024];		/* where it is mounted */
	char	fstype[32];
	char	source[1024];		/* the device, as mountinfo says */
};

/*
 * The mount that holds path in the text of a /proc/PID/mountinfo: the
 * longest mount point that is path or one of its parents (the last one
 * mounted there wins).  0, or -1 when none does.  No I/O.
 */
int	diskq_mount_of(const char *mountinfo, const char *path,
	    struct diskq_mount *);

/*
 * The directory Incus keeps its storage pools' mounts under, from
 * incus.url: unix:/var/lib/incus/unix.socket gives
 * /var/lib/incus/storage-pools.  -1 for an Incus reached over HTTPS,
 * whose pools are not on this host.
 */
int	diskq_pools_dir(const char *incus_url, char *, size_t);

/*
 * What holds the sizes of the pool mounted at (or stored under)
 * pooldir: out->state DISKQ_ENFORCED, DISKQ_NOT_ENFORCED (btrfs with
 * quotas off or their accounting inconsistent) or DISKQ_UNCHECKED (not
 * btrfs: the pool's driver enforces the size, or Incus says it cannot),
 * out->fstype, and out->text saying what was found and what to do.
 * Reads /proc/self/mountinfo and sysfs only, which every user may:
 * jailbeed does, as the owner.
 */
void	diskq_read(const char *pooldir, struct jb_diskq *out);

/* fn(mount point, arg) for every btrfs pool mounted right under poolsdir */
void	diskq_each(const char *poolsdir, void (*fn)(const char *, void *),
	    void *);

/*
 * As root, at start: every btrfs pool mounted under poolsdir whose quota
 * accounting is inconsistent is rescanned, and this waits until the
 * rescan has ended (it takes longer the more containers share the
 * pool).  Each pool is said through say(); -1 when one could not be
 * rescanned.
 */
int	diskq_repair(const char *poolsdir, void (*say)(const char *, ...));

#endif /* JB_DISKQ_H */
