/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_NETWHERE_H
#define JAILBEED_NETWHERE_H

#include "jobs.h"

typedef void	(*netwhere_here_cb)(struct job *, const char *,
		    struct repo_ctx *);
typedef void	(*netwhere_away_cb)(struct job *, const char *,
		    struct repo_ctx *, const struct jb_policy *);

/*
 * On a cluster: where Incus places container name.  here gets it when
 * it runs on this member (or is not one of the suite's: the local path
 * says so), away with the policy Incus holds when another member runs
 * it.  Either takes ctx; the job ends if Incus cannot be read.
 */
void	net_where(struct job *, const char *name, struct repo_ctx *,
	    netwhere_here_cb here, netwhere_away_cb away);

#endif /* JAILBEED_NETWHERE_H */
