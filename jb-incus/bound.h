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
 * What jb-incus lets the parent ask of Incus, whatever the parent sends:
 * the owner's ids only, host sources outside the system's trees and the
 * suite's own files, and an instance built only of the config keys and
 * device types the suite uses.  The bounds are learnt at start, while
 * jb-incus is still root, from its own command line (written by jailbeed
 * before it read anything but its configuration) and its own lookups:
 * never from a message.
 */

#ifndef JB_BOUND_H
#define JB_BOUND_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

struct bound {
	uid_t	uid;			/* the owner's */
	gid_t	gid;
	char	state_dir[PATH_MAX];	/* as configured */
	char	state_real[PATH_MAX];	/* its real path */
	char	mounts[PATH_MAX];	/* <state_dir real>/mounts: the owner's */
	char	sock_dir[PATH_MAX];	/* the control socket's directory */
	char	sock_real[PATH_MAX];	/* its real path, when it exists */
	char	gpg[64];		/* /run/user/UID/gnupg */
};

extern struct bound	jb_bound;

/* the pure part: fill b; -1 and why when a path is unusable */
int	bound_set(struct bound *, uid_t, gid_t, const char *, const char *,
	    const char *, const char *, char *, size_t);
/* at start, as root: the owner by name, real paths; fatal on error */
void	bound_init(const char *, const char *, const char *);

/* the source of name's start gate (gate.h); -1: too long */
int	bound_gate_source(const struct bound *, const char *, char *, size_t);

/* 1 allowed; 0 and why */
int	bound_idmap(const struct bound *, uint32_t, uint32_t, char *, size_t);
int	bound_exec_ids(const struct bound *, uint32_t, uint32_t, char *,
	    size_t);
/* the path as written: the trees and the suite's files */
int	bound_path(const struct bound *, const char *, char *, size_t);
/* the path, then each part of it jb-incus can see: no symlink, no node */
int	bound_source(const struct bound *, const char *, char *, size_t);
/*
 * An instance body or patch: config keys and device types on the closed
 * lists, raw.idmap the owner's, nic on the bridge, disk sources bounded.
 */
int	bound_instance(const struct bound *, struct json_object *,
	    const char *, char *, size_t);

#endif /* JB_BOUND_H */
