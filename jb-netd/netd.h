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
 * What jb-netd's own files share: the state the kernel enforces, where
 * it is written down, and the functions each file offers the others
 * (jb-netd.c: start and dispatch; netd_store.c: the state on disk;
 * netd_deadline.c: loose deadlines; netd_egress.c: net egress).
 */

#ifndef JB_NETD_H
#define JB_NETD_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <event.h>

#include "netd_repos.h"
#include "netd_state.h"
#include "nftgen.h"
#include "proc.h"

#define STATE_FILE	"containers"
#define REPOS_FILE	"repos"		/* net egress add --repo */
#define STATE_MAX	(64 * 1024 * 1024)
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

extern struct nftgen_net	 net;
extern struct netd_state	 cur;		/* what the kernel has */
extern struct netd_repos	 repos;		/* the repo layer cur merges */
extern int			 statefd;	/* <state_dir>/netd */
extern char			 statepath[PATH_MAX];
extern char			 statedir[PATH_MAX];
extern struct event		 revert_ev;	/* the next loose deadline */

const char *entry_origin(const struct netd_ctr *, size_t);

/* netd_store.c */
void	state_load(const char *);
int	file_save(const char *, char *, char *, size_t);
int	state_save(const struct netd_state *, char *, size_t);
void	testhook_refuse(void);
int	state_commit(struct netd_state *, char *, size_t);

/* netd_deadline.c */
void	revert_fire(int, short, void *);
void	revert_arm(void);

/* netd_incus.c */
void	netd_record_get(struct child *, struct imsg *);
void	netd_restore(struct child *, struct imsg *);

/* netd_egress.c */
void	netd_egress(struct child *, struct imsg *);
void	netd_egress_edit(struct child *, struct imsg *);

#endif /* JB_NETD_H */
