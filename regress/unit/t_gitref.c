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
 * Branch names for the git bridge (gitref.c): git's rules and ours, and
 * every name taken here is one git itself takes (git check-ref-format
 * --branch, run for real).
 */

#include <sys/wait.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "gitref.h"

static const char *const good[] = {
	"main", "feat", "feature/x", "a/b/c", "v1.2", "fix-123", "user@host",
	"under_score", "a.b", "x/.y.z", NULL
};

static const char *const bad[] = {
	"", "-x", "HEAD", "@", "a..b", "a b", "a\tb", "a~1", "a^", "a:b",
	"a?", "a*", "a[", "a\\b", "a@{1}", "/a", "a/", "a//b", ".a", "a/.b",
	"a.lock", "a/b.lock/c", "a.", "caf\xc3\xa9", "a\x7f", "a\nb", NULL
};

/* does git take it as a branch name? */
static int
git_takes(const char *name)
{
	pid_t	pid;
	int	status;

	if ((pid = fork()) == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execlp("git", "git", "check-ref-format", "--branch", name,
		    (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(pid > 0);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(!WIFEXITED(status) || WEXITSTATUS(status) != 127,
	    "git is not installed");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

ATF_TC_WITHOUT_HEAD(branch_names);
ATF_TC_BODY(branch_names, tc)
{
	char	 longname[GITREF_BRANCH_MAX + 2];
	int	 i;

	for (i = 0; good[i] != NULL; i++) {
		if (strcmp(good[i], "x/.y.z") == 0)
			continue;	/* '.' starts a component: bad */
		ATF_CHECK_MSG(gitref_branch_bad(good[i]) == NULL,
		    "%s refused: %s", good[i], gitref_branch_bad(good[i]));
		ATF_CHECK_MSG(git_takes(good[i]), "git refuses %s", good[i]);
	}
	for (i = 0; bad[i] != NULL; i++)
		ATF_CHECK_MSG(gitref_branch_bad(bad[i]) != NULL,
		    "\"%s\" taken", bad[i]);
	ATF_CHECK(gitref_branch_bad("x/.y.z") != NULL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ATF_CHECK(gitref_branch_bad(longname) != NULL);
	longname[GITREF_BRANCH_MAX] = '\0';
	ATF_CHECK(gitref_branch_bad(longname) == NULL);
}

/* whatever we take, git takes too */
ATF_TC_WITHOUT_HEAD(git_agrees);
ATF_TC_BODY(git_agrees, tc)
{
	static const char *const more[] = {
		"a-", "a_", "1", "a/b-c/d.e", "@a", "a@", "a{b}", "a}b",
		"a/@{", "a.lock/b", "lock", ".lock", "a/..", "-", NULL
	};
	int	i;

	for (i = 0; more[i] != NULL; i++)
		if (gitref_branch_bad(more[i]) == NULL)
			ATF_CHECK_MSG(git_takes(more[i]), "we take %s, git "
			    "does not", more[i]);
	/*
	 * and what git takes we refuse only on purpose: non-ASCII, and
	 * the shorthands git expands to the current branch (HEAD, @)
	 */
	for (i = 0; bad[i] != NULL; i++)
		if (bad[i][0] != '\0' && strchr(bad[i], '\xc3') == NULL &&
		    strcmp(bad[i], "HEAD") != 0 && strcmp(bad[i], "@") != 0 &&
		    git_takes(bad[i]))
			atf_tc_fail("git takes \"%s\": why do we refuse it?",
			    bad[i]);
}

ATF_TC_WITHOUT_HEAD(component);
ATF_TC_BODY(component, tc)
{
	ATF_CHECK(gitref_component_bad("work") == NULL);
	ATF_CHECK(gitref_component_bad("jbt1-work") == NULL);
	ATF_CHECK(gitref_component_bad("a/b") != NULL);
	ATF_CHECK(gitref_component_bad("..") != NULL);
	ATF_CHECK(gitref_component_bad("") != NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, branch_names);
	ATF_TP_ADD_TC(tp, git_agrees);
	ATF_TP_ADD_TC(tp, component);
	return atf_no_error();
}
