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
 * The pure parts of mounts: which container
 * paths a mount may take, what /proc/PID/mountinfo says a mount point
 * holds, deadlines and their file, and the remote mount_roots decision.
 * No system calls here, so every rule is unit-tested (t_mountspec).
 */

#ifndef JB_MOUNTSPEC_H
#define JB_MOUNTSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"

/* the suite's own mount point: never shadowed, never replaced */
#define MNT_HOST_SOURCE		"/mnt/host-source"
#define MNT_OPTIONAL_PREFIX	"optional-"
/* the Incus config key holding an optional mount's deadline: + KIND */
#define MNT_UNTIL_KEY		"user.jailbee.mount_until."
#define MNT_HOST_PREFIX		"host-"
#define MNT_GPG_HOME		"gpg-home"	/* ~/.gnupg, read-only */
#define MNT_GPG_AGENT		"gpg-agent"	/* its socket directory */
#define MNT_SSH_SHARED		"ssh-shared"	/* ssh.enabled's ~/.ssh, rw */
#define MNT_DEV_CHECKOUT	"host-source"	/* the checkout, read-only */
#define MNT_DEV_CHECKOUT_RW	"host-repo-rw"	/* --mount mode's */
#define MNT_RETRY_SECS		5	/* an expired mount not yet detached */
/* an agent's shared entry: agent-<agent>-<index>, read-write */
#define MNT_AGENT_PREFIX	"agent-"

/*
 * A container path for a mount: absolute and canonical (no "//", "."
 * or ".." part, no trailing "/"), not "/", not in /proc, /sys or /dev,
 * and neither equal to, above nor below MNT_HOST_SOURCE; nor equal to or
 * above reserved (the clone's directory; may be NULL).  0, or -1 with
 * the reason in err.
 */
int	mnt_target_ok(const char *path, const char *reserved, char *err,
	    size_t errlen);

/*
 * A host path as configured: "/abs" as it is, "~" and "~/x" under home.
 * 0, or -1 with the reason.
 */
int	mnt_expand(const char *host, const char *home, char *out,
	    size_t outlen, char *err, size_t errlen);

/*
 * A host path after ~ expansion, made canonical without the filesystem
 * "//" and "." parts and a trailing "/" go; a ".." part
 * is refused, since it means something else once a part is a symlink.
 * 0, or -1 with the reason.
 */
int	mnt_clean(const char *in, char *out, size_t outlen, char *err,
	    size_t errlen);

/*
 * One disk source of a suite container, for the overlap rule: two
 * different mounts (another device, container repo or source) whose
 * sources are equal or one inside the other are refused when either
 * is read-write, since a container writing in one could plant a
 * symlink in the other's path, or write what the other shows
 * read-only.  The same entry on several containers of a repo (same
 * prefix, device and source) is one mount, and so are the checkout's
 * two devices.
 */
struct mnt_src {
	const char	*source;	/* canonical, absolute */
	const char	*prefix;	/* the repo's container prefix */
	const char	*device;	/* host-0, optional-aws, host-source */
	const char	*name;		/* the container */
	int		 readonly;
};
/*
 * 0 when s overlaps none of others, else -1 with the reason, naming
 * the other mount and how they overlap.
 */
int	mnt_overlap(const struct mnt_src *s, const struct mnt_src *others,
	    size_t nothers, char *err, size_t errlen);

/*
 * The suite's own files, which no mount may expose: a source (real,
 * canonical) that is, contains or lies inside one of them is refused.
 * One exception each: a source strictly inside allow_inside on a device
 * whose name starts with allow_device, the suite's own shared
 * directories in the state directory.  path "" is skipped.
 */
struct mnt_guarded {
	const char	*path;		/* real, canonical */
	const char	*what;		/* "the suite's configuration" */
	const char	*allow_inside;	/* NULL or a directory inside path */
	const char	*allow_device;	/* the device prefix allowed there */
};
/*
 * 0 when source on device exposes none of g, else -1 with the reason,
 * naming the guarded path and what it is.
 */
int	mnt_exposes(const char *source, const char *device,
	    const struct mnt_guarded *g, size_t ng, char *err, size_t errlen);

/* an optional_mounts key: 1 to 32 of [a-z0-9_-], starting alnum */
int	mnt_kind_ok(const char *);
/* agent-<agent>-<index>: an agent name (as mnt_kind_ok), 0 .. 99 */
int	mnt_agent_device_ok(const char *);

/*
 * /proc/PID/mountinfo text: the mount Incus made at mp, which is the
 * first at that point, at the bottom of any stack there: of the lines
 * whose mount point is mp, the first whose parent is not itself a mount
 * at mp.  A mount the container stacks over it later is skipped,
 * whatever it holds.  *dev gets its makedev(major, minor) and root its
 * root within that filesystem, unescaped.  0 found, -1 not.
 */
int	mnt_info_find(const char *text, const char *mp, uint64_t *dev,
	    char *root, size_t rootlen);
/*
 * The same text of the host: which path inside its filesystem (of
 * device dev) the absolute, canonical path is, as a bind mount of it
 * would show as its root.  0, or -1 when no mount of dev holds path.
 */
int	mnt_info_root_of(const char *text, const char *path, uint64_t dev,
	    char *root, size_t rootlen);

/*
 * The deadline of a mount: --for (seconds, > 0) wins, --no-revert means
 * none, else the entry's auto_unmount_after, else the policy's after
 * when enabled, else none.  Returns the deadline, 0 for none.
 */
int64_t	mnt_deadline(int64_t now, int64_t for_secs, int no_revert,
	    int64_t entry_after, int policy_enabled, int64_t policy_after);

/* time left as ls shows it: "12m", "1h05m", "40s", "0s"; "∞" for none */
char	*mnt_left(int64_t until, int64_t now, char *buf, size_t len);

/*
 * The deadline file: one "NAME KIND UNTIL" line per mount.  Parse one
 * line (no newline): 0, or -1 with the reason.  Format one: the length.
 */
int	mnt_deadline_parse(const char *line, struct jb_mount_deadline *,
	    char *err, size_t errlen);
int	mnt_deadline_fmt(const struct jb_mount_deadline *, char *buf,
	    size_t len);

/*
 * Remote mount_roots (seed, "Remote mounts").  host is the realpath of
 * the optional mount's source, readonly its own flag; roots are the
 * host-global list; others are the realpaths of the repo's other
 * read-write mounts.  On success *source is the root's own spelling and
 * *readonly the effective flag (either side read-only makes it so).
 */
struct mnt_root {
	const char	*path;		/* as configured, absolute */
	int		 readonly;
};
int	mnt_roots_decide(const char *host, int readonly,
	    const struct mnt_root *roots, size_t nroots,
	    const char *const *others, size_t nothers, const char **source,
	    int *eff_readonly, char *err, size_t errlen);

#endif /* JB_MOUNTSPEC_H */
