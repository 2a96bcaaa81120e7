/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_JOBS_H
#define JAILBEED_JOBS_H

#include "jailbeed.h"
#include "repoconf.h"

/* what a command learns about the checkout the user stands in */
struct repo_ctx {
	struct jb_repo_info	 info;
	struct repoconf		 conf;
	int			 have_info;
	int			 have_conf;
};

typedef void	(*repo_next)(struct job *, struct repo_ctx *);

/*
 * Describe the checkout at the job's cwd (jb-mountd) and load its
 * configuration (here, as the owner).  branch may be "" or a branch to
 * look up.  next gets the context, or NULL when cwd is not a checkout and
 * required is 0; with required, the job ends with the error instead.
 */
void	repo_resolve(struct job *, const char *branch, int required,
	    repo_next next);
/* the same, knowing only the work tree: enough to name containers */
void	repo_resolve_brief(struct job *, int required, repo_next next);
void	repo_ctx_free(void *);
/* the container a NAME means: <prefix>-<slug> inside a repo, else NAME */
int	repo_container_name(const struct repo_ctx *, const char *, char *,
	    size_t);

struct cmd;
const struct cmd *job_unhandled(void);
int	argv_pack(char *, size_t, size_t *, uint32_t *, const char *);
/* one more argument, one more variable: of the exec request q at off, eoff */
#define ARG(s)	argv_pack(q->argv, sizeof(q->argv), &off, &q->nargs, (s))
#define ENV(s)	argv_pack(q->env, sizeof(q->env), &eoff, &q->nenv, (s))
void	cmd_init(struct job *);
void	cmd_new(struct job *);
void	cmd_ls(struct job *);
void	cmd_action(struct job *);
void	cmd_exec(struct job *);
void	cmd_config(struct job *);
void	cmd_secret(struct job *);
void	cmd_base(struct job *);
void	cmd_net(struct job *);
void	cmd_doctor(struct job *);
void	cmd_git(struct job *);

#endif /* JAILBEED_JOBS_H */
