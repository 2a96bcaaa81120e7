/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_MEMBOX_RUN_H
#define JAILBEED_MEMBOX_RUN_H

struct job;

/*
 * Put net log, suggest or refresh (verb MEMBOX_*) of container name to
 * the suite of cluster member, which enforces it; the job ends with its
 * answer replayed, or why there is none.
 */
void	membox_ask(struct job *, const char *member, const char *name,
	    int verb, const char *since);
/* read this member's mailbox and carry out the requests in it */
void	membox_sweep(void);
/* Incus says member's configuration changed */
void	membox_event(const char *member);

#endif /* JAILBEED_MEMBOX_RUN_H */
