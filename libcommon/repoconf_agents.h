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
 * agents.<name>: coding agent presets (repoconf_agents.c).  The struct
 * itself is in repoconf.h, inside struct repoconf; these are the parts
 * repoconf.c calls.
 */

#ifndef JB_REPOCONF_AGENTS_H
#define JB_REPOCONF_AGENTS_H

#include <stdio.h>

#include "repoconf.h"
#include "yamltree.h"

/* YT_CUSTOM for agents (dst: struct rc_agentlist) and the claude alias */
int	rc_agents(struct yt_ctx *, const struct yt_node *, void *);
int	rc_claude_alias(struct yt_ctx *, const struct yt_node *, void *);
/* deep copy; -1 out of memory, dst then empty */
int	rc_agents_copy(struct rc_agentlist *dst, const struct rc_agentlist *);
void	rc_agents_free(struct rc_agentlist *);
/* the built-in presets under what the layers set; -1 and err */
int	rc_agents_finish(struct rc_agentlist *, char *err, size_t errlen);
void	rc_agents_dump(const struct rc_agentlist *, int all, FILE *);
/* repoconf.c's YAML string printer */
void	rc_put_str(FILE *, const char *);

#endif /* JB_REPOCONF_AGENTS_H */
