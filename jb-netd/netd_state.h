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
 * What jb-netd enforces, per container, and its durable form: the file
 * <state_dir>/netd/containers, one line per container,
 *
 *	NAME IPV4 MODE DEADLINE [ENTRY ...] [+OVERRIDE ...]
 *
 * MODE strict or loose, DEADLINE seconds since the epoch when loose mode
 * ends (0: never), ENTRY an egress_allow entry in its canonical form.
 * Lines starting with '#' and empty lines are skipped.  Pure: no I/O.
 */

#ifndef JB_NETD_STATE_H
#define JB_NETD_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "nftgen.h"
#include "policy.h"

#define NETD_ENTRIES_MAX	10000	/* egress entries per container */

struct netd_ctr {
	char			 name[JB_INSTANCE_MAX];
	uint32_t		 addr;		/* host byte order */
	enum nftgen_mode	 mode;
	int64_t			 deadline;	/* loose until; 0: never */
	struct egress_entry	*e;
	size_t			 n;
	/* the last nover of e are net egress add overrides, not config */
	size_t			 nover;
};

struct netd_state {
	struct netd_ctr		*v;
	size_t			 n;
};

/* one container from the parent's message; entries are checked */
int	netd_ctr_from_msg(const struct jb_netd_ctr *, struct netd_ctr *,
	    char *err, size_t errlen);
void	netd_ctr_free(struct netd_ctr *);
/*
 * Take c into st (c's entries move; c is cleared): it replaces a
 * container of the same name and drops one holding the same address,
 * which Incus gave to the newer one.  0, or -1 out of memory.
 */
/* net egress add / rm on one container: the override list only */
int	netd_ctr_override_add(struct netd_ctr *, const char *entry, char *err,
	    size_t errlen);
int	netd_ctr_override_rm(struct netd_ctr *, const char *entry, char *err,
	    size_t errlen);
int	netd_state_put(struct netd_state *, struct netd_ctr *);
/* 1 when name was known and is gone, 0 when it was not known */
int	netd_state_forget(struct netd_state *, const char *name);
struct netd_ctr *netd_state_find(struct netd_state *, const char *name);
/* a deep copy, for applying a change and keeping the old on failure */
int	netd_state_copy(const struct netd_state *, struct netd_state *);
void	netd_state_free(struct netd_state *);

/*
 * Parse the file's text.  All or nothing: on error -1 and a message
 * "NAME:LINE: what is wrong" in err, *st untouched.
 */
int	netd_state_parse(const char *name, const char *buf, size_t len,
	    struct netd_state *st, char *err, size_t errlen);
/* the file's text, to be freed; NULL out of memory */
char	*netd_state_fmt(const struct netd_state *);

#endif /* JB_NETD_STATE_H */
