/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_STEPMOUNT_H
#define JAILBEED_STEPMOUNT_H

#include <stdint.h>

#include "jailbeed.h"
#include "repoconf.h"

struct stepmounts;
typedef void	(*stepmounts_cb)(struct job *, int ok, const char *err,
		    void *arg);

/*
 * The mounts of step (conf's optional_mounts entries) for container
 * name, with a deadline until (seconds since the epoch) that jb-mountd
 * holds: NULL when out of memory.  conf and step must outlive it.
 */
struct stepmounts *step_mounts_new(struct job *, const char *name,
	    const struct repoconf *conf, const struct rc_step *step,
	    int64_t until);
/*
 * Attach the step's mounts the container lacks, each checked as jbctl
 * mount checks it, its deadline recorded first; cb once.  On failure
 * the ones attached stay: step_mounts_end() is due either way.
 */
void	step_mounts_grant(struct stepmounts *, stepmounts_cb, void *);
/* detach what the grant attached, clear its deadlines; cb, then freed */
void	step_mounts_end(struct stepmounts *, stepmounts_cb, void *);

#endif /* JAILBEED_STEPMOUNT_H */
