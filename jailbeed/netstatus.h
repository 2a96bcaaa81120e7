/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_NETSTATUS_H
#define JAILBEED_NETSTATUS_H

#include "jobs.h"

/*
 * net status: the named container, or with name NULL every
 * container of ctx's repo, or with --all every container.  Ends the job.
 */
void	net_status(struct job *, const char *name, const struct repo_ctx *);
/* net status NAME for a container another cluster member runs */
void	net_status_away(struct job *, const struct jb_policy *,
	    const struct repo_ctx *);

/*
 * net log NAME [--since DUR] and net suggest NAME: the names the
 * resolver refused to NAME and the connection attempts its strict chain
 * rejected, as CTL_NET_BLOCKs, or as egress_allow lines.
 * Ends the job.
 */
void	net_log(struct job *, const char *name);
/* net log --since in *secs (0 when not given); -1: bad, the job ended */
int	net_log_since(struct job *, int64_t *secs);

/*
 * apply: conf's egress_allow (and repo), with the egress_allow of each
 * agent it enables and of the one new --agent recorded on the
 * container, to jb-netd for container name, which keeps its mode,
 * deadline and overrides (NETD_CONFIG); cb once.
 */
void	net_config_apply(struct job *, const struct repoconf *,
	    const char *name, void (*cb)(struct job *, int, const char *));

/*
 * m's entries and agents: conf's egress_allow, then the egress_allow of
 * every agent conf enables and of agent (NULL: none), each with its
 * agent's name, then with github.enabled api.github.com:443 tagged
 * JB_EGRESS_FROM_GITHUB.  -1 and err when they do not fit.
 */
int	net_entries_pack(const struct repoconf *, const char *agent,
	    struct jb_netd_ctr *m, char *err, size_t errlen);

#endif /* JAILBEED_NETSTATUS_H */
