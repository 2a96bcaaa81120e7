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
 * Which host branches `git pull --into` over SSH may move: refs only,
 * so never a branch checked out in any worktree of the checkout, and
 * never a name the owner's git would read as something else (a
 * remote-tracking branch, a tag, or one starting with a remote's name,
 * which refs/heads/ would shadow).
 */

#include <stdio.h>
#include <string.h>

#include "gitd.h"
#include "gitrun.h"

#define LIST_MAX	65536

/* is refs/heads/into checked out in a worktree?  its path in where */
static int
checked_out(const char *into, char *where, size_t len)
{
	static char	 out[LIST_MAX];
	char		 want[JB_BRANCH_MAX + 16], *line, *next, *path = "";

	if (gitrun_capture(out, sizeof(out), 1, "worktree", "list",
	    "--porcelain", NULL) == -1)
		return -1;
	(void)snprintf(want, sizeof(want), "branch refs/heads/%s", into);
	for (line = out; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (strncmp(line, "worktree ", 9) == 0)
			path = line + 9;
		else if (strcmp(line, want) == 0) {
			(void)strlcpy(where, path, len);
			return 1;
		}
	}
	return 0;
}

/* the first remote whose name is into's first component, or NULL */
static const char *
remote_prefix(const char *into)
{
	static char	 out[LIST_MAX];
	char		*line, *next;
	size_t		 n;

	if (gitrun_capture(out, sizeof(out), 1, "remote", NULL) == -1)
		return NULL;
	for (line = out; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		n = strlen(line);
		if (n > 0 && strncmp(into, line, n) == 0 && into[n] == '/')
			return line;
	}
	return NULL;
}

const char *
into_refused(const char *into)
{
	static char	 why[JB_ERR_TEXT_MAX];
	char		 ref[JB_BRANCH_MAX + 32], where[4096];
	size_t		 len = sizeof(why);
	const char	*remote;
	int		 rv;

	if ((rv = checked_out(into, where, sizeof(where))) == -1) {
		(void)snprintf(why, len, "git worktree list failed: cannot "
		    "tell where %.200s is checked out", into);
		return why;
	}
	if (rv == 1) {
		(void)snprintf(why, len, "%.200s is checked out in %.500s: "
		    "the git bridge over SSH updates refs only; --into another "
		    "branch", into, where);
		return why;
	}
	(void)snprintf(ref, sizeof(ref), "refs/remotes/%s", into);
	if (gitrun_quiet("rev-parse", "-q", "--verify", ref, NULL) == 0) {
		(void)snprintf(why, len, "--into %.200s would shadow the "
		    "remote-tracking branch %.220s; name another branch", into,
		    ref);
		return why;
	}
	(void)snprintf(ref, sizeof(ref), "refs/tags/%s", into);
	if (gitrun_quiet("rev-parse", "-q", "--verify", ref, NULL) == 0) {
		(void)snprintf(why, len, "--into %.200s would shadow the tag "
		    "%.200s; name another branch", into, into);
		return why;
	}
	if ((remote = remote_prefix(into)) != NULL) {
		(void)snprintf(why, len, "--into %.200s starts with the "
		    "remote name %.200s/ and would shadow its branches; name "
		    "another branch", into, remote);
		return why;
	}
	return NULL;
}
