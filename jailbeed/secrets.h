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

struct imsg;
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
/*
 * the record new keeps on the instance (user.jailbee.secrets) into buf:
 * the config paths and each secret's placeholder, never a value; -1 and
 * err when it does not fit
 */
int	secrets_state(const struct repoconf *, char ph[][RC_PLACEHOLDER_LEN + 1],
	    char *buf, size_t len, char *err, size_t errlen);
/*
 * the secrets of the running container name (NULL: every one) back in
 * jb-egress from its record, with the gateway's CA in its trust store
 * again: after the suite starts and after start.  With a job, next
 * runs once they are handed over (why NULL) or cannot be (why says so).
 */
typedef void	(*secrets_resumed)(struct job *, const char *why);
void	secrets_resume(const char *name, struct job *, secrets_resumed);
/* IMSG_EGRESS_FRESH_ASK from jb-egress; -1 when malformed */
int	secrets_fresh(struct imsg *);
/*
 * github.c: with github.enabled, the token in force is a secret named
 * GITHUB_SECRET for api.github.com and github.com, with no file (its
 * value is the configuration's github.token).  github_secret: 1 and s
 * filled; 0 when it is not given, and when a token is set nonetheless
 * s filled and why saying why (the gateway does not take TLS).  github_secret_add: appended to c's
 * secrets (1), not given (0, why as above), or -1 and why when c
 * declares a secret of that name already or has no room.
 */
#define GITHUB_SECRET	"GH_TOKEN"
int	github_secret(const struct repoconf *, struct rc_secret *s,
	    char *why, size_t whylen);
int	github_secret_add(struct repoconf *, char *why, size_t whylen);
/* the variables that point TLS clients at the trust store, "K=V" */
extern const char *const secrets_tls_env[];

#endif /* JB_SECRETS_H */
