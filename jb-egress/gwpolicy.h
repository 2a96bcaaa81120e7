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
 * What jb-egress decides by: each strict container's name entries (from
 * jb-netd, through the parent, as snapshots) and the addresses the
 * resolver admitted to it for each name, until when.  Pure: the caller
 * gives the time; no I/O.
 *
 * A connection to DST:PORT from container C naming HOST (a TLS server
 * name or an HTTP Host) is admitted when an entry of C admits HOST on
 * PORT (a name entry equal to it, or *.domain with HOST strictly under
 * domain; with no port, or TCP and PORT), and the resolver admitted DST
 * to C for HOST and that admission has not run out.
 */

#ifndef JB_GWPOLICY_H
#define JB_GWPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "policy.h"

#define GWPOL_NOTES_MAX	65536	/* admissions remembered in all */

struct gw_ctr {
	uint32_t		 addr;		/* host byte order */
	char			 name[JB_INSTANCE_MAX];
	struct egress_entry	*e;		/* name entries only */
	size_t			 n;
};

enum gw_verdict {
	GW_ADMIT,
	GW_UNKNOWN,	/* no container holds the source address */
	GW_NOT_ALLOWED,	/* no entry admits the name on that port */
	GW_NOT_ADMITTED	/* the resolver gave the name another address */
};

/*
 * One part of a snapshot.  BEGIN drops what an earlier unfinished one
 * gathered; END makes the gathered one current (and forgets the
 * admissions of containers no longer in it, or now at another address).
 * 0, or -1 with err (a malformed part: the current policy stays).
 */
int	 gwpol_part(const struct jb_egress_policy *, char *err, size_t errlen);
/* the container at addr, NULL when none */
const struct gw_ctr *gwpol_find(uint32_t addr);
size_t	 gwpol_count(void);
uint32_t gwpol_gen(void);
/* note an admission; -1 when the table is full (not noted) */
int	 gwpol_admit(const char *ctr, const char *host, uint32_t addr,
	    int64_t until);
/* drop what ran out before now */
void	 gwpol_expire(int64_t now);
size_t	 gwpol_notes(void);
enum gw_verdict gwpol_check(uint32_t src, const char *host, uint32_t dst,
	    uint16_t port, int64_t now, const struct gw_ctr **ctrp);
/* the name alone (the explicit proxy resolves it itself) */
enum gw_verdict gwpol_allowed(uint32_t src, const char *host, uint16_t port,
	    const struct gw_ctr **ctrp);
const char *gwpol_str(enum gw_verdict);
void	 gwpol_clear(void);

#endif /* JB_GWPOLICY_H */
