/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_ESCALATION_H
#define JAILBEED_ESCALATION_H

#include "jobs.h"

/* what jbctl looks for to ask on a terminal and try again with --yes */
#define ESCALATION_MARK	JB_ESCALATION_MARK

/*
 * new's escalation gate: ctx's autostart and agents against the
 * default branch's committed config.  Nothing wider: next.  Wider: the
 * difference is shown, and over SSH new is refused outright, --yes
 * included; locally it goes on with --yes, else it is refused with
 * ESCALATION_MARK so that jbctl can ask on a terminal.  The job ends in
 * every case but next.
 */
void	escalation_gate(struct job *, struct repo_ctx *, const char *agent,
	    void (*next)(struct job *));

#endif /* JAILBEED_ESCALATION_H */
