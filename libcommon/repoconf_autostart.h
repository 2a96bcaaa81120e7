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
 * autostart: on_create[] and on_start[] steps (repoconf_autostart.c).
 * The struct is in repoconf.h, inside struct repoconf.
 */

#ifndef JB_REPOCONF_AUTOSTART_H
#define JB_REPOCONF_AUTOSTART_H

#include <stdio.h>

#include "repoconf.h"
#include "yamltree.h"

/* YT_CUSTOM for autostart (dst: struct rc_autostart) */
int	rc_autostart(struct yt_ctx *, const struct yt_node *, void *);
/* deep copy; -1 out of memory, dst then empty */
int	rc_autostart_copy(struct rc_autostart *dst,
	    const struct rc_autostart *);
void	rc_autostart_free(struct rc_autostart *);
void	rc_autostart_dump(const struct rc_autostart *, int all, FILE *);

/*
 * A step's environment: base (container.env), then autostart.env, then
 * the step's own, a later one replacing an earlier of the same name, as
 * "NAME=value" into out[max]; the count, or -1 when more than max.
 */
struct rc_envlist;
int	rc_step_env(const struct rc_envlist *base, const struct rc_autostart *,
	    const struct rc_step *, char (*out)[RC_AGENT_ENVNAME_MAX +
	    RC_AGENT_ENVVAL_MAX + 2], int max);
/* the step's timeout in seconds: its own, else step_timeout, else 600 */
int	rc_step_timeout(const struct rc_autostart *, const struct rc_step *);

/*
 * After the layers: every step's mounts name an optional_mounts entry of
 * opt.  0, or -1 with the message in err.
 */
int	rc_autostart_check(const struct rc_autostart *,
	    const struct rc_optlist *opt, char *err, size_t errlen);

/*
 * The escalation gate: what conf's autostart and agents grant that
 * base's (the default branch's config) do not, one "+ ..." line each
 * into out: a step with network: loose that base has not loose under
 * the same trigger and name; a step's mount that base's step of that
 * name lacks, or whose optional_mounts entry differs from base's (other
 * source or target, or read-write where base's is read-only); for each
 * agent conf runs (enabled, or named agent), an egress_allow entry,
 * install_network: loose or a shared entry that base's agent of that
 * name lacks.  The count of lines (out cut, still
 * terminated, when it is short).
 */
int	repoconf_widening(const struct repoconf *conf,
	    const struct repoconf *base, const char *agent, char *out,
	    size_t outlen);

#endif /* JB_REPOCONF_AUTOSTART_H */
