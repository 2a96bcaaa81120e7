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
 *	NAME IPV4 MODE DEADLINE [@REPO] [ENTRY ...] [+OVERRIDE ...]
 *
 * MODE strict or loose, DEADLINE seconds since the epoch when loose mode
 * ends (0: never), REPO the container_prefix of the repo it was made
 * from (its repo-override layer, netd_repos.h), ENTRY an egress_allow
 * entry in its canonical form.  The repo layer's entries are not written
 * here: they live in their own file and are merged in after loading.
 * Lines starting with '#' and empty lines are skipped.  Pure: no I/O.
 */

#ifndef JB_NETD_STATE_H
#define JB_NETD_STATE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "nftgen.h"
#include "policy.h"

#define NETD_ENTRIES_MAX	10000	/* egress entries per container */
#define NETD_REPO_MAX		48	/* a repo's key: its container_prefix */

struct netd_ctr {
	char			 name[JB_INSTANCE_MAX];
	uint32_t		 addr;		/* host byte order */
	enum nftgen_mode	 mode;
	int64_t			 deadline;	/* loose until; 0: never */
	/*
	 * e holds, in order: the config's egress_allow, the entries of the
	 * repo's override layer it does not already have (nrepo, merged
	 * in by netd_ctr_repo_apply), its own overrides (the last nover).
	 */
	struct egress_entry	*e;
	size_t			 n;
	size_t			 nover;
	size_t			 nrepo;
	char			 repo[NETD_REPO_MAX];	/* "": none known */
	int			 fresh;	/* set in this run: not in any file */
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
/* how many of c's entries come from its config */
size_t	netd_ctr_ncfg(const struct netd_ctr *);
/* 1 if two parsed entries are the same (print the same) */
int	netd_entry_eq(const struct egress_entry *, const struct egress_entry *);
/* index of the entry equal to want in c, or -1 */
ssize_t	netd_ctr_find(const struct netd_ctr *, const struct egress_entry *);
/*
 * Replace c's repo-layer entries with those of e[n] it lacks (neither in
 * its config nor among its overrides).  0, or -1 with err.
 */
int	netd_ctr_repo_apply(struct netd_ctr *, const struct egress_entry *e,
	    size_t n, char *err, size_t errlen);
/*
 * 1 if s can name an agent (1-32 of [a-z0-9_-], not starting with - _)
 * or is a feature's tag (JB_EGRESS_FROM_GITHUB)
 */
int	netd_agent_ok(const char *);
/* 1 if s can name a repo: [a-z0-9-], not starting with '-' */
int	netd_repo_key_ok(const char *);
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
typedef int (*netd_line_fn)(void *arg, char *line, char *why,
	    size_t whylen);
int	netd_lines(const char *name, const char *buf, size_t len,
	    netd_line_fn fn, void *arg, char *err, size_t errlen);
int	netd_state_parse(const char *name, const char *buf, size_t len,
	    struct netd_state *st, char *err, size_t errlen);
/* the file's text, to be freed; NULL out of memory */
char	*netd_state_fmt(const struct netd_state *);

#endif /* JB_NETD_STATE_H */
