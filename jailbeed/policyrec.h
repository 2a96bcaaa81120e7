/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* A container's network policy written to Incus (policyrec.c). */

#ifndef JB_POLICYREC_H
#define JB_POLICYREC_H

#include <stdint.h>

#include "jailbeed.h"

struct imsg;
struct jb_mount_deadline;
struct jb_policy;
struct req;

typedef void	(*policy_cb)(void *arg, int ok, const char *err);

/* jb-netd's policy of name, whole, into its user.jailbee.* keys */
void	policy_record(const char *name, policy_cb, void *arg);
/* the same, kept by jb-incus for the CREATE of name it writes it with */
void	policy_record_create(const char *name, policy_cb, void *arg);
/* user.jailbee.net and .loose_until only */
void	policy_record_mode(const char *name, const char *mode,
	    int64_t until, policy_cb, void *arg);
/* the same, for the suite's own changes: a failure is logged */
void	policy_record_logged(const char *name);
void	policy_mode_logged(const char *name, const char *mode, int64_t until);
/* the start gate device for a container that lacks it; logged */
void	policy_gate_add(const char *name);

/*
 * a mount's deadline (until 0: none) into Incus's
 * user.jailbee.mount_until.KIND, then jb-mountd's SET or CLEAR; next
 * gets jb-mountd's answer, or the failure to write Incus (nothing set)
 */
void	policy_mount_deadline(const struct jb_mount_deadline *,
	    req_done_cb, void *);
/* the mount deadlines Incus holds for a container, to jb-mountd */
void	policy_mounts_restore(const struct jb_policy *);

/* changes when a write to Incus begins or ends */
uint64_t policy_write_count(void);

/* netfollow.c: Incus's event for an instance, or "resync" */
int	netfollow_event(struct imsg *);
/*
 * name's policy read from Incus and enforced by jb-netd, as an event
 * would have it (its start gate opens): done(arg, result, why) after,
 * result one of these
 */
#define NETFOLLOW_FAILED	0	/* why says what failed */
#define NETFOLLOW_ENFORCED	1
#define NETFOLLOW_ABSENT	2	/* Incus has no such container */
void	netfollow_refresh(const char *name, void (*)(void *, int,
	    const char *), void *);
/* name read from Incus again just after when (seconds since the epoch) */
void	netfollow_at(const char *name, int64_t when);

#endif /* JB_POLICYREC_H */
