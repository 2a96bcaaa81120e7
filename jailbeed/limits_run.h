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
 * A container's resource limits: what the config's defaults.memory,
 * defaults.cpu, defaults.processes and defaults.disk (and new --memory,
 * --cpu) ask for, in the form Incus takes; put on a container by apply;
 * read back from Incus by jbctl info.
 */

#ifndef JAILBEED_LIMITS_RUN_H
#define JAILBEED_LIMITS_RUN_H

#include "jobs.h"

/*
 * The limits the config gives, memory_opt and cpu_opt (NULL when not
 * given) overriding its memory and cpu; a share of the host's CPUs is
 * counted here.  0, or -1 and why, naming the option.
 */
int	limits_pack(const struct repoconf *, const char *memory_opt,
	    const char *cpu_opt, struct jb_limits *, char *, size_t);
/* the config's limits on container name; done(job, ok, err) after */
void	limits_apply(struct job *, const char *name, const struct repoconf *,
	    void (*done)(struct job *, int, const char *));
/* one line each of what the limits are, for progress */
void	limits_say(struct job *, const char *, const struct jb_limits *);
void	cmd_info(struct job *);
/*
 * Whether the kernel holds container name to its root disk's size
 * (Incus's answer says the size and its pool; diskq.h looks): done(job,
 * 1) when it does, when no size is set, or when the pool is not one
 * this host can look at; done(job, 0, why) when the size is set and not
 * enforced.  apply runs it after the limits; new before the container
 * is handed over.
 */
void	limits_disk_check(struct job *, const char *name,
	    void (*done)(struct job *, int, const char *));
struct jb_diskq;
void	limits_disk_state(const char *pool, struct jb_diskq *);

#endif /* JAILBEED_LIMITS_RUN_H */
