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
 * One fetch over SSH, in a fork of jb-gitd.  Before any git runs, the
 * worker restricts itself (Landlock, inherited by every git it starts)
 * to writing the objects, refs and logs of the checkout's .git and
 * /dev/null, reading the checkout,
 * the owner's home (git's configuration) and the system, and running
 * git and git-remote-jailbee.  Host git runs as jbctl runs it (gitrun.c:
 * fixed environment, hooks, filters, fsmonitor and credential helpers
 * off), its transport the stream jailbeed passed: git-remote-jailbee
 * copies it, with the byte and time limits.  Refs: the container's
 * branch lands in refs/jailbee/SHORT/BRANCH only; --into fast-forwards
 * one host branch, never the checked-out one (looked at again here,
 * before fetching).  git's own stderr, which may carry the container's
 * words, is kept in a memory file and sent back for the parent to make
 * safe for a terminal.  Each git it runs is bounded in CPU time and
 * address space; jb-gitd bounds the whole worker's wall time and stops
 * its process group at the end of it.
 */

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#define OID_MAX		48



/* refs/jailbee/SHORT/BRANCH with both parts names the bridge takes */
static int
ref_ok(const char *ref, const char *branch)
{
	const char	*s = ref + 13, *slash;
	char		 shortname[JB_INSTANCE_MAX];

	if (strncmp(ref, "refs/jailbee/", 13) != 0 ||
	    (slash = strchr(s, '/')) == NULL ||
	    (size_t)(slash - s) >= sizeof(shortname))
		return 0;
	memcpy(shortname, s, (size_t)(slash - s));
	shortname[slash - s] = '\0';
	return gitref_component_bad(shortname) == NULL &&
	    strcmp(slash + 1, branch) == 0;
}

void
gitd_worker(const struct jb_gitd_fetch *f, int fd, int resfd,
    const char *home)
{
	struct gitpacks		 packs;
	const char		*why;
	struct stat		 st;
	char			 gitdir[PATH_MAX + 8], env[64], err[256];
	char			 logsdir[PATH_MAX + 16];
	char			 head[PATH_MAX], into[PATH_MAX], spec[PATH_MAX * 2];
	char			 url[JB_INSTANCE_MAX + 16], cnt[64], stats[128];
	char			 excl[PATH_MAX], range[OID_MAX * 2 + 4], msg[512];
	int			 p[2], rv;
	ssize_t			 n;
	size_t			 got = 0;

	memset(&gitd_res, 0, sizeof(gitd_res));
	/* git's stderr, kept for the answer */
	if ((gitd_errfd = memfd_create("git-stderr", MFD_CLOEXEC)) != -1)
		(void)dup2(gitd_errfd, STDERR_FILENO);
	if (gitref_branch_bad(f->branch) != NULL || !ref_ok(f->ref,
	    f->branch) || (f->into[0] != '\0' &&
	    gitref_branch_bad(f->into) != NULL))
		gitd_refuse(resfd, "not a branch or ref the git bridge takes");
	if (f->toplevel[0] != '/' || lstat(f->toplevel, &st) == -1 ||
	    !S_ISDIR(st.st_mode))
		gitd_refuse(resfd, "%s: not a directory", f->toplevel);
	(void)snprintf(gitdir, sizeof(gitdir), "%s/.git", f->toplevel);
	if (lstat(gitdir, &st) == -1 || !S_ISDIR(st.st_mode))
		gitd_refuse(resfd, "%s has no .git directory (a worktree or a "
		    "link is not fetched into over SSH)", f->toplevel);
	if (chdir(f->toplevel) == -1)
		gitd_refuse(resfd, "%s: %s", f->toplevel, strerror(errno));
	/* a branch's reflog goes under logs/, which git would make here */
	(void)snprintf(logsdir, sizeof(logsdir), "%s/logs", gitdir);
	if (mkdir(logsdir, 0777) == -1 && errno != EEXIST)
		gitd_refuse(resfd, "%s: %s", logsdir, strerror(errno));
	sandbox_jb_gitd_worker(f->toplevel, gitdir, home);
	gitrun_limits(GITD_CPU_SECS, GITD_AS_BYTES);

	(void)snprintf(env, sizeof(env), "%llu",
	    (unsigned long long)f->max_bytes);
	(void)setenv("JAILBEE_GIT_MAX_BYTES", env, 1);
	(void)snprintf(env, sizeof(env), "%u", f->timeout);
	(void)setenv("JAILBEE_GIT_TIMEOUT", env, 1);
	if (setenv("HOME", home, 1) == -1 || fcntl(fd, F_SETFD, 0) == -1)
		gitd_refuse(resfd, "setting up git: %s", strerror(errno));
	(void)snprintf(env, sizeof(env), "JAILBEE_GIT_CONNECT_FD=%d", fd);
	if (gitrun_init(LIBEXECDIR, env, err, sizeof(err)) == -1)
		gitd_refuse(resfd, "%s", err);

	/* what is checked out stays as it is: refused before fetching */
	if (gitrun_line(head, sizeof(head), "symbolic-ref", "-q", "HEAD",
	    NULL) == -1)
		head[0] = '\0';
	(void)snprintf(into, sizeof(into), "refs/heads/%s", f->into);
	if (strcmp(head, f->ref) == 0 || (f->into[0] != '\0' &&
	    strcmp(head, into) == 0))
		gitd_refuse(resfd, "%s is checked out in %s: the git bridge over "
		    "SSH updates refs only; --into another branch", head +
		    (strncmp(head, "refs/heads/", 11) == 0 ? 11 : 0),
		    f->toplevel);
	if (f->into[0] != '\0' && (why = into_refused(f->into)) != NULL)
		gitd_refuse(resfd, "%s", why);
	if (gitrun_fetch_start(f->ref, gitd_res.old, sizeof(gitd_res.old),
	    &packs) == -1)
		gitd_refuse(resfd, "%s: git cannot read its checkout",
		    f->toplevel);
	if (f->into[0] != '\0' && gitrun_line(gitd_res.into_old,
	    sizeof(gitd_res.into_old), "rev-parse", "-q", "--verify", into,
	    NULL) == -1)
		gitd_res.into_old[0] = '\0';

	(void)snprintf(spec, sizeof(spec), "+refs/heads/%s:%s", f->branch,
	    f->ref);
	(void)snprintf(url, sizeof(url), "jailbee::%s", f->name);
	if (pipe(p) == -1)
		gitd_refuse(resfd, "pipe: %s", strerror(errno));
	gitrun_stats_fd(p[1]);
	rv = gitrun("fetch", "--quiet", "--no-tags", "--no-recurse-submodules",
	    "--no-write-fetch-head", "--no-auto-gc", url, spec, NULL);
	gitrun_stats_fd(-1);
	close(p[1]);
	close(fd);
	while (got < sizeof(stats) - 1 && (n = read(p[0], stats + got,
	    sizeof(stats) - 1 - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	stats[got] = '\0';
	if (rv == -1) {
		gitpacks_clean(&packs);
		if (gitrun_last_signal() == SIGXCPU ||
		    gitrun_last_signal() == SIGKILL)
			(void)snprintf(gitd_res.text, sizeof(gitd_res.text), "git fetch "
			    "of the container's branch %s was stopped at its "
			    "limit of %d s of CPU time; no ref moved on the "
			    "host", f->branch, GITD_CPU_SECS);
		else
			(void)snprintf(gitd_res.text, sizeof(gitd_res.text), "git fetch "
			    "of the container's branch %s failed; no ref "
			    "moved on the host", f->branch);
		gitd_git_said(gitd_res.text, sizeof(gitd_res.text));
		gitd_answer(resfd);
	}
	(void)sscanf(stats, "%" SCNu64, &gitd_res.bytes);
	gitd_res.objects = gitpacks_new_objects(&packs);
	gitpacks_free(&packs);
	if (gitrun_line(gitd_res.new, sizeof(gitd_res.new), "rev-parse", "-q",
	    "--verify", f->ref, NULL) == -1)
		gitd_refuse(resfd, "%s is missing after the fetch", f->ref);
	(void)snprintf(excl, sizeof(excl), "--exclude=%s", f->ref);
	(void)snprintf(range, sizeof(range), "%s..%s", gitd_res.old, gitd_res.new);
	if ((gitd_res.old[0] != '\0' ? gitrun_line(cnt, sizeof(cnt), "rev-list",
	    "--count", range, NULL) : gitrun_line(cnt, sizeof(cnt),
	    "rev-list", "--count", gitd_res.new, "--not", excl, "--all",
	    NULL)) == 0)
		gitd_res.commits = strtoull(cnt, NULL, 10);

	if (f->into[0] == '\0' || strcmp(gitd_res.into_old, gitd_res.new) == 0) {
		gitd_res.ok = 1;
		gitd_answer(resfd);
	}
	if (gitd_res.into_old[0] != '\0' && gitrun_quiet("merge-base",
	    "--is-ancestor", gitd_res.into_old, gitd_res.new, NULL) == -1)
		gitd_refuse(resfd, "%s and the container's %s have diverged: not a "
		    "fast-forward, %s unchanged; the container's work is in "
		    "%s", f->into, f->branch, f->into, f->ref);
	(void)snprintf(msg, sizeof(msg), "jbctl git pull %s --into %s (over "
	    "SSH)", f->name, f->into);
	if (gitrun_quiet("update-ref", "-m", msg, into, gitd_res.new,
	    gitd_res.into_old, NULL) == -1) {
		(void)snprintf(gitd_res.text, sizeof(gitd_res.text), "%.300s could not "
		    "be updated", into);
		gitd_git_said(gitd_res.text, sizeof(gitd_res.text));
		gitd_answer(resfd);
	}
	gitd_res.ok = 1;
	gitd_answer(resfd);
}
