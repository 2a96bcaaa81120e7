/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_SRCGUARD_H
#define JAILBEED_SRCGUARD_H

#include "jailbeed.h"

/* every disk with a host source on every suite container */
struct disks {
	struct jb_disk	*v;
	size_t		 n;
};

/* ok 0: err says why; the list is freed after the call */
typedef void	(*disks_cb)(int ok, const char *err, struct disks *, void *);

void	disks_list(disks_cb, void *);
/*
 * 0 when a source of container name (its device) overlaps no other disk
 * of the list nor a mount being attached right now, else -1 with why.
 * prefix is the container's repo; NULL takes it from the list (a
 * container not made yet is not in it).
 */
int	disks_overlap(const struct disks *, const char *name,
	    const char *device, const char *source, int readonly,
	    const char *prefix, char *err, size_t errlen);

/*
 * 0 when a source (real, canonical) on device exposes none of the
 * suite's own files: ~/.config/jailbee, the authorized_keys file, the
 * state directory (but for its shared directories, to their devices)
 * and the control socket's directory; else -1 with why.
 */
int	src_exposes(const char *source, const char *device, char *err,
	    size_t errlen);

/*
 * Mounts between their overlap decision and their end: counted as
 * attached by disks_overlap(), so that two attaches at once are decided
 * one after the other.
 */
void	disks_pending_add(const struct jb_disk *);
void	disks_pending_del(const struct jb_disk *);

/*
 * Before the suite starts or restarts a container: every disk source it
 * has is asked again of jb-mountd (no symlink in its path) and checked
 * against every other mount; ok 0 refuses the start, err naming the
 * device and why.
 */
typedef void	(*guard_cb)(struct job *, int ok, const char *err);
void	start_guard(struct job *, const char *name, guard_cb);

#endif /* JAILBEED_SRCGUARD_H */
