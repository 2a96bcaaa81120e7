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
 * jb-mountd's view of a git checkout: where its work tree is, what HEAD
 * is, which remote is upstream and what its default branch is, as the
 * owner's own git sees them.  git runs as a child with a fixed
 * environment and argv, never through a shell, within a deadline.
 */

#ifndef JB_GITDESCRIBE_H
#define JB_GITDESCRIBE_H

#include <stddef.h>

#include "jb_msg.h"

#define REPO_GIT		"/usr/bin/git"
#define REPO_TIMEOUT_MS		10000	/* one request, all its git runs */
#define REPO_OUT_MAX		65536	/* stdout of one git run */
#define REPO_ERR_MAX		1024	/* stderr kept of one git run */
#define REPO_REMOTES_MAX	64

/* who git runs as: the owner, whose HOME holds their git config */
struct repo_owner {
	const char	*name;		/* for messages */
	const char	*home;
};

/*
 * Answer one IMSG_MOUNTD_REPO: 0 with *info filled, or -1 with a message
 * for the user in err.  req's strings must be NUL-terminated.
 */
/* the default branch's committed .jailbee/config.yaml (the gate's base) */
int	repo_defconf(const struct repo_owner *, const struct jb_repo_req *,
	    struct jb_repo_conf *, char *err, size_t errlen);
int	repo_inspect(const struct repo_owner *, const struct jb_repo_req *,
	    struct jb_repo_info *, char *err, size_t errlen);

/*
 * One program run: stdin /dev/null, stdout and stderr captured, every
 * other fd closed, its own process group, which is killed when the
 * deadline (CLOCK_MONOTONIC, ms) passes or stdout exceeds REPO_OUT_MAX.
 */
struct repo_run {
	int		 status;	/* exit status; -1: killed */
	int		 timedout;
	int		 overflow;	/* stdout exceeded REPO_OUT_MAX */
	size_t		 outlen;
	char		 out[REPO_OUT_MAX + 1];	/* NUL-terminated */
	char		 err[REPO_ERR_MAX + 1];	/* its start, NUL-terminated */
};
/* -1 when it could not be started (errno set), else 0 with *r filled */
int	repo_run(const char *path, char *const argv[], char *const envp[],
	    long long deadline_ms, struct repo_run *r);
long long repo_now_ms(void);

/*
 * The pure parts.  A branch name is checked as `git check-ref-format
 * --branch` would check it, and a little more strictly: "@" and names
 * that do not fit JB_BRANCH_MAX are refused too.  0 fine, -1 with a
 * reason in err.
 */
int	repo_branch_ok(const char *name, char *err, size_t errlen);

/* one value on one line: strip exactly one trailing newline; -1 on NUL */
int	repo_chomp(char *s, size_t len);
/* split s in place into at most max non-empty lines; -1 if more */
int	repo_lines(char *s, char *lines[], size_t max);
/* git's stderr says there is no work tree here (not a repo, bare, .git) */
int	repo_not_checkout(const char *gitstderr);
/* a full hex object name, SHA-1 or SHA-256 */
int	repo_sha_ok(const char *);
/*
 * The answer of `git rev-parse --show-toplevel HEAD^{commit}
 * --symbolic-full-name HEAD --`, len bytes of out, split in place: the
 * work tree (any bytes but NUL, newlines too), HEAD's commit, and the
 * ref HEAD names ("HEAD" when detached).  The last three are one line
 * each, so they are read from the end.  0, or -1 when the answer is not
 * that.
 */
int	repo_top_head(char *out, size_t len, char **top, char **sha,
	    char **ref);
/* printable copy: control bytes as \xNN, cut short to fit */
void	repo_vis(char *dst, size_t dstlen, const char *src);

/*
 * What git said about the refs and config that choose upstream and the
 * default branch.  refs is `git for-each-ref --format='%(refname)
 * %(symref)'` output: one "name target\n" line per ref, target empty
 * unless the ref is symbolic.
 */
struct repo_facts {
	char		**remotes;	/* `git remote`, in its order */
	size_t		  nremotes;
	const char	 *push_default;	/* remote.pushDefault, "" unset */
	const char	 *branch_remote; /* branch.<head>.remote, "" unset */
	const char	 *head_branch;	/* "" when detached */
	const char	 *refs;
};

/* 1 when refs lists name; *target (may be NULL) gets its symref or "" */
int	repo_ref_find(const char *refs, const char *name, char *target,
	    size_t targetlen);
/*
 * The sole remote, else origin, else remote.pushDefault, else the current
 * branch's remote, else the only remote with refs/remotes/<it>/HEAD; a
 * candidate counts only when it is a configured remote.  "" when none.
 */
const char *repo_pick_upstream(const struct repo_facts *);
/*
 * refs/remotes/<upstream>/HEAD's branch, else <upstream>/main, else
 * <upstream>/master, else local main, else local master, else HEAD's
 * branch when it is main or master (unborn), else "main".
 */
void	repo_pick_default(const struct repo_facts *, const char *upstream,
	    char *out, size_t outlen);

#endif /* JB_GITDESCRIBE_H */
