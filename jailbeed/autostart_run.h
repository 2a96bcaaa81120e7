/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_AUTOSTART_RUN_H
#define JAILBEED_AUTOSTART_RUN_H

#include <stddef.h>

#include "jailbeed.h"
#include "repoconf.h"

typedef void	(*autostart_cb)(struct job *, int ok, const char *err);

/*
 * What new (on_create) and start run in container instance after it is
 * up: the shared entries of each agent of agents[n] (indexes into
 * conf->agents) attached, each agent installed; then, when launch, the
 * on_create steps (on_create set) and the on_start steps, each with its
 * mounts for it alone; then each agent launched (or said not
 * launched).  A failing step ends it unless its continue_on_error; done
 * once, err saying what failed.
 */
void	autostart_run(struct job *, const char *instance,
	    const struct repoconf *, const size_t *agents, size_t n,
	    int on_create, int launch, autostart_cb done);

#endif /* JAILBEED_AUTOSTART_RUN_H */
