/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SECRETS_H
#define JB_SECRETS_H

#include "repoconf.h"

struct job;

typedef void	(*secrets_next)(struct job *, int ok, const char *err);

/*
 * secrets of conf for container name at ipv4, whose placeholders are
 * ph[i] (conf->secrets[i]): each file read by jb-mountd as the owner,
 * the container's CA from jb-egress put in its trust store, then the
 * values handed to jb-egress.  next runs once, ok or not; 1 when there
 * is nothing to do (next does not run).
 */
int	secrets_inject(struct job *, const struct repoconf *conf,
	    const char *name, const char *ipv4,
	    char ph[][RC_PLACEHOLDER_LEN + 1], secrets_next next);
/* the variables that point TLS clients at the trust store, "K=V" */
extern const char *const secrets_tls_env[];

#endif /* JB_SECRETS_H */
