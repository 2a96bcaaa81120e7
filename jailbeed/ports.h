/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_PORTS_H
#define JAILBEED_PORTS_H

#include "jobs.h"

typedef void	(*ports_cb)(struct job *, int ok, const char *err, void *);

/*
 * host_ports on container name, as port-cfg-<name> proxy devices:
 * each declared one it lacks is attached; with reconcile (apply) a
 * port-cfg device no longer declared, or declared otherwise, is removed
 * first.  Nothing is done to a container of another repo.  cb once.
 */
void	ports_config_attach(struct job *, const struct repoconf *,
	    const char *name, int reconcile, ports_cb, void *);

/* "tcp 127.0.0.1:8080 -> host 127.0.0.1:5432" for messages */
const char *ports_describe(const struct jb_port *, char *, size_t);
void	ports_msg_get(struct imsg *, struct jb_port *);

void	cmd_port(struct job *);

#endif /* JAILBEED_PORTS_H */
