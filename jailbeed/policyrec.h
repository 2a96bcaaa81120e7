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

struct imsg;

typedef void	(*policy_cb)(void *arg, int ok, const char *err);

/* jb-netd's policy of name, whole, into its user.jailbee.* keys */
void	policy_record(const char *name, policy_cb, void *arg);
/* user.jailbee.net and .loose_until only */
void	policy_record_mode(const char *name, const char *mode,
	    int64_t until, policy_cb, void *arg);
/* the same, for the suite's own changes: a failure is logged */
void	policy_record_logged(const char *name);
void	policy_mode_logged(const char *name, const char *mode, int64_t until);

/* changes when a write to Incus begins or ends */
uint64_t policy_write_count(void);

/* netfollow.c: Incus's event for an instance, or "resync" */
int	netfollow_event(struct imsg *);

#endif /* JB_POLICYREC_H */
