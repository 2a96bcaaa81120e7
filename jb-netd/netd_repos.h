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
 * The repo override layer (seed "Egress overrides"): net
 * egress add --repo entries, host-local, applying to every container of
 * a repo on this machine.  A repo is known by its container_prefix, the
 * name jailbeed makes its containers' names from and Incus labels them
 * with.  The durable form is <state_dir>/netd/repos, one line a repo,
 *
 *	REPO ENTRY [ENTRY ...]
 *
 * ENTRY an egress_allow entry in its canonical form; '#' lines and empty
 * lines are skipped.  Pure: no I/O.
 */

#ifndef JB_NETD_REPOS_H
#define JB_NETD_REPOS_H

#include <stddef.h>

#include "netd_state.h"
#include "policy.h"

struct netd_repo {
	char			 key[NETD_REPO_MAX];
	struct egress_entry	*e;
	size_t			 n;
};

struct netd_repos {
	struct netd_repo	*v;
	size_t			 n;
};

const struct netd_repo *netd_repos_find(const struct netd_repos *,
	    const char *key);
/* add: 0, or -1 with err (bad entry, already there, too many) */
int	netd_repos_add(struct netd_repos *, const char *key, const char *entry,
	    char *err, size_t errlen);
/* rm: 1 removed, 0 not in key's layer, -1 bad entry or key (err) */
int	netd_repos_rm(struct netd_repos *, const char *key, const char *entry,
	    char *err, size_t errlen);
int	netd_repos_copy(const struct netd_repos *, struct netd_repos *);
void	netd_repos_free(struct netd_repos *);
/*
 * Merge each container's repo layer into its entries (netd_ctr_repo_
 * apply); a container with no repo, or a repo with no layer, gets none.
 * 0, or -1 with err, st then partly merged: the caller drops it.
 */
int	netd_repos_sync(struct netd_state *, const struct netd_repos *,
	    char *err, size_t errlen);

/* All or nothing, as netd_state_parse: "NAME:LINE: what is wrong" */
int	netd_repos_parse(const char *name, const char *buf, size_t len,
	    struct netd_repos *, char *err, size_t errlen);
/* the file's text, to be freed; NULL out of memory */
char	*netd_repos_fmt(const struct netd_repos *);

#endif /* JB_NETD_REPOS_H */
