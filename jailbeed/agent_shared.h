/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_AGENT_SHARED_H
#define JAILBEED_AGENT_SHARED_H

#include <stddef.h>

#include "jailbeed.h"
#include "repoconf.h"

typedef void	(*agent_shared_cb)(struct job *, int ok, const char *err,
		    void *arg);

/*
 * The shared entries of the agents agents[n] (indexes into
 * conf->agents) that running container name lacks: each made under the
 * suite's shared directory by jb-mountd and attached read-write, checked
 * as every mount; cb once, err naming the entry that failed.
 */
void	agent_shared_apply(struct job *, const char *name,
	    const struct repoconf *conf, const size_t *agents, size_t n,
	    agent_shared_cb cb, void *arg);

#endif /* JAILBEED_AGENT_SHARED_H */
