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
 * A container's policy as Incus holds it (struct jb_policy: its
 * user.jailbee.* keys) and as jb-netd enforces it (struct netd_ctr),
 * each made from the other.  Incus holds the policy; jb-netd's files
 * are its cache.  Pure: no I/O.
 */

#ifndef JB_NETD_RECORD_H
#define JB_NETD_RECORD_H

#include <stddef.h>

#include "jb_msg.h"
#include "netd_state.h"

/*
 * What Incus is to hold for c: its mode and deadline, the config's
 * entries, its overrides (the repo layer's are not the container's).
 * -1 with err when a list does not fit the message.
 */
int	netd_record_from_ctr(const struct netd_ctr *c, struct jb_policy *p,
	    char *err, size_t errlen);
/*
 * The container p describes, every entry checked.  A mode other than
 * loose is strict (a missing key never opens anything), and loose with
 * a deadline that has passed is strict too (now: the time to compare).
 * -1 with err naming what is wrong; *c untouched.
 */
int	netd_record_to_ctr(const struct jb_policy *p, long long now,
	    struct netd_ctr *c, char *err, size_t errlen);

#endif /* JB_NETD_RECORD_H */
