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
 * On a cluster, new's clone: one host branch and the objects it needs,
 * as `git bundle create`, written into the stream that is the
 * container's stdin, in a fork of jb-gitd.  Before git runs, the worker
 * restricts itself (Landlock, inherited by git) to reading the checkout,
 * the owner's home (git's configuration) and the system, writing
 * /dev/null only, and running git.  The stream goes one way: nothing
 * the container sends is read here (git bundle only writes).  git runs
 * as jbctl runs it (gitrun.c: fixed environment, hooks, filters and
 * helpers off), bounded in CPU time and address space; jb-gitd bounds
 * the worker's wall time.  git's stderr (the host's own words) is kept
 * for the answer.  The same lock-down answers destroy's guard of such a
 * clone: which of the container's branch tips are commits of the
 * checkout (git cat-file -e, each id checked as hex first).
 */

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitd.h"
#include "gitref.h"
#include "gitrun.h"
#include "sandbox_procs.h"



/* in the checkout at top, read-only, git set up as jbctl runs it */
static void
lock_down(const char *top, int resfd, const char *home)
{
	struct stat	 st;
	char		 gitdir[PATH_MAX + 8], err[256];

	if (top[0] != '/' || lstat(top, &st) == -1 || !S_ISDIR(st.st_mode))
		gitd_refuse(resfd, "%s: not a directory", top);
	(void)snprintf(gitdir, sizeof(gitdir), "%s/.git", top);
	if (lstat(gitdir, &st) == -1 || !S_ISDIR(st.st_mode))
		gitd_refuse(resfd, "%s has no .git directory (a worktree or a "
		    "link is not read through the git bridge)", top);
	if (chdir(top) == -1)
		gitd_refuse(resfd, "%s: %s", top, strerror(errno));
	sandbox_jb_gitd_bundler(top, home);
	gitrun_limits(GITD_CPU_SECS, GITD_AS_BYTES);
	if (setenv("HOME", home, 1) == -1)
		gitd_refuse(resfd, "setting up git: %s", strerror(errno));
	/* what the refs hold, never a replacement object */
	if (gitrun_init(LIBEXECDIR, "GIT_NO_REPLACE_OBJECTS=1", err,
	    sizeof(err)) == -1)
		gitd_refuse(resfd, "%s", err);
}

void
gitd_bundler(const struct jb_gitd_bundle *b, int fd, int resfd,
    const char *home)
{
	char		 ref[JB_BRANCH_MAX + 16];
	char		 tip[JB_BRANCH_MAX + 32], oid[64];

	memset(&gitd_res, 0, sizeof(gitd_res));
	if ((gitd_errfd = memfd_create("git-stderr", MFD_CLOEXEC)) != -1)
		(void)dup2(gitd_errfd, STDERR_FILENO);
	if (gitref_branch_bad(b->branch) != NULL)
		gitd_refuse(resfd, "not a branch name the git bridge takes");
	lock_down(b->toplevel, resfd, home);
	(void)snprintf(ref, sizeof(ref), "refs/heads/%s", b->branch);
	(void)snprintf(tip, sizeof(tip), "%s^{commit}", ref);
	if (gitrun_line(oid, sizeof(oid), "rev-parse", "-q", "--verify", tip,
	    NULL) == -1)
		gitd_refuse(resfd, "branch %s is not in %s", b->branch, b->toplevel);
	/* git's stdout is the stream; a reader gone is an error, not a kill */
	(void)signal(SIGPIPE, SIG_IGN);
	if (dup2(fd, STDOUT_FILENO) == -1)
		gitd_refuse(resfd, "dup2: %s", strerror(errno));
	close(fd);
	if (gitrun("bundle", "create", "-q", "-", ref, NULL) == -1) {
		if (gitrun_last_signal() == SIGXCPU ||
		    gitrun_last_signal() == SIGKILL)
			(void)snprintf(gitd_res.text, sizeof(gitd_res.text), "git bundle "
			    "of %s was stopped at its limit of %d s of CPU "
			    "time", b->branch, GITD_CPU_SECS);
		else
			(void)snprintf(gitd_res.text, sizeof(gitd_res.text), "git bundle "
			    "of %s could not be written to the container",
			    b->branch);
		gitd_git_said(gitd_res.text, sizeof(gitd_res.text));
		gitd_answer(resfd);
	}
	/* the container's stdin ends here: the parent still reads its end */
	(void)shutdown(STDOUT_FILENO, SHUT_WR);
	(void)strlcpy(gitd_res.new, oid, sizeof(gitd_res.new));
	gitd_res.ok = 1;
	gitd_answer(resfd);
}

void
gitd_haver(const struct jb_gitd_have *h, int resfd, const char *home)
{
	char		 spec[96];
	size_t		 l;
	uint32_t	 i;
	int		 nfd;

	memset(&gitd_res, 0, sizeof(gitd_res));
	if ((nfd = open("/dev/null", O_WRONLY | O_CLOEXEC)) != -1)
		(void)dup2(nfd, STDERR_FILENO);
	for (i = 0; i < h->n; i++) {
		l = strlen(h->oid[i]);
		if ((l != 40 && l != 64) || strspn(h->oid[i],
		    "0123456789abcdef") != l)
			gitd_refuse(resfd, "not a commit id");
	}
	lock_down(h->toplevel, resfd, home);
	for (i = 0; i < h->n; i++) {
		(void)snprintf(spec, sizeof(spec), "%s^{commit}", h->oid[i]);
		if (gitrun_quiet("cat-file", "-e", spec, NULL) == 0)
			gitd_res.have |= 1ULL << i;
	}
	gitd_res.ok = 1;
	gitd_answer(resfd);
}
