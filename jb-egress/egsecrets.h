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
 * The gateway's secrets: per container, its CA (made on first ask, its
 * key never leaving this process) and the secrets the parent pushed
 * (name, placeholder, value, hosts, header); and the terminated
 * connections to those hosts (mitmconn.c).
 */

#ifndef JB_EGSECRETS_H
#define JB_EGSECRETS_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "subst.h"

struct ca;

/* the CA of container ctr, made now if it has none; NULL on failure */
struct ca	*egsec_ca(const char *ctr);
/* one part of a container's secrets (IMSG_EGRESS_SECRET); -1 and why */
int		 egsec_part(const struct jb_egress_secret *, char *why,
		    size_t whylen);
/*
 * The secrets of the container at address src whose hosts take host,
 * into s[0..max) and their names into names; how many.  *ctr gets the
 * container's name.
 */
size_t		 egsec_match(uint32_t src, const char *host,
		    struct subst_secret *s, const char **names, size_t max,
		    const char **ctr);
size_t		 egsec_count(void);
/* 1 when a secret of the container at src applies to host */
int		 egsec_wanted(uint32_t src, const char *host);

/*
 * mitmconn.c: the trust store opened before the sandbox (read at the
 * first terminated connection); -1 when it cannot be opened
 */
int		 mitmc_init(const char *trustfile);
/*
 * A connection admitted with server name host whose container has a
 * secret for it: taken over (0; the caller forgets cfd), not one of
 * them (1), or refused and cfd closed (-1).  hello is what the client
 * sent so far.
 */
int		 mitmc_start(int cfd, uint32_t src, uint32_t dst, uint16_t port,
		    const char *host, const char *hello, size_t hellolen);
size_t		 mitmc_open(void);

#endif /* JB_EGSECRETS_H */
