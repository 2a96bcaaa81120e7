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
 * jb-mountd's repository inspection (jb-mountd/gitdescribe.c) without git: the
 * branch-name check by its exact messages, output trimming, the choice
 * of upstream remote and default branch from what git would say, and
 * the runner's promises (fixed environment, stdin /dev/null, no leaked
 * fd, the deadline and the output cap, the process group killed) with
 * /bin/sh, env, yes and sleep standing in for git.
 */

#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "gitdescribe.h"

static void
bad_branch(int line, const char *name, const char *want)
{
	char	err[JB_ERR_TEXT_MAX] = "";

	ATF_CHECK_MSG(repo_branch_ok(name, err, sizeof(err)) == -1,
	    "line %d: accepted", line);
	ATF_CHECK_MSG(strcmp(err, want) == 0, "line %d: got '%s', want '%s'",
	    line, err, want);
}
#define BAD(name, want)	bad_branch(__LINE__, (name), (want))

static void
good_branch(int line, const char *name)
{
	char	err[JB_ERR_TEXT_MAX] = "";

	ATF_CHECK_MSG(repo_branch_ok(name, err, sizeof(err)) == 0,
	    "line %d: refused: %s", line, err);
}
#define GOOD(name)	good_branch(__LINE__, (name))

ATF_TC_WITHOUT_HEAD(branch_names);
ATF_TC_BODY(branch_names, tc)
{
	char	long_name[JB_BRANCH_MAX + 1], err[JB_ERR_TEXT_MAX];

	GOOD("main");
	GOOD("feat/x");
	GOOD("release-1.0");
	GOOD("a.b/c.d");
	GOOD("x.lockx");
	GOOD("a@b");
	GOOD("café");
	GOOD("x-");
	memset(long_name, 'a', JB_BRANCH_MAX - 1);
	long_name[JB_BRANCH_MAX - 1] = '\0';
	GOOD(long_name);

	long_name[JB_BRANCH_MAX - 1] = 'a';
	long_name[JB_BRANCH_MAX] = '\0';
	ATF_CHECK(repo_branch_ok(long_name, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "...\": it is too long") != NULL, "%s", err);

	BAD("", "invalid branch name \"\": it is empty");
	BAD("-x", "invalid branch name \"-x\": it must not start with '-'");
	BAD("--upload-pack=x",
	    "invalid branch name \"--upload-pack=x\": it must not start with "
	    "'-'");
	BAD("HEAD", "invalid branch name \"HEAD\": that name is reserved by "
	    "git");
	BAD("@", "invalid branch name \"@\": that name is reserved by git");
	BAD("a b", "invalid branch name \"a b\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a~1", "invalid branch name \"a~1\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a^", "invalid branch name \"a^\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a:b", "invalid branch name \"a:b\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a?", "invalid branch name \"a?\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a*", "invalid branch name \"a*\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a[", "invalid branch name \"a[\": it must not contain a space "
	    "or any of ~ ^ : ? * [ \\");
	BAD("a\\b", "invalid branch name \"a\\b\": it must not contain a "
	    "space or any of ~ ^ : ? * [ \\");
	BAD("a\tb", "invalid branch name \"a\\x09b\": it must not contain "
	    "control characters");
	BAD("a\x1b[2Jb", "invalid branch name \"a\\x1b[2Jb\": it must not "
	    "contain control characters");
	BAD("a\x7f", "invalid branch name \"a\\x7f\": it must not contain "
	    "control characters");
	BAD("a..b", "invalid branch name \"a..b\": it must not contain '..'");
	BAD("a@{1}", "invalid branch name \"a@{1}\": it must not contain "
	    "'@{'");
	BAD("a//b", "invalid branch name \"a//b\": it must not contain '//'");
	BAD("/a", "invalid branch name \"/a\": it must not begin or end with "
	    "'/'");
	BAD("a/", "invalid branch name \"a/\": it must not begin or end with "
	    "'/'");
	BAD("a.", "invalid branch name \"a.\": it must not end with '.'");
	BAD(".a", "invalid branch name \".a\": no part of it may begin with "
	    "'.'");
	BAD("a/.b", "invalid branch name \"a/.b\": no part of it may begin "
	    "with '.'");
	BAD("a.lock", "invalid branch name \"a.lock\": no part of it may end "
	    "with '.lock'");
	BAD("x/a.lock/b", "invalid branch name \"x/a.lock/b\": no part of it "
	    "may end with '.lock'");
	BAD(".lock", "invalid branch name \".lock\": no part of it may begin "
	    "with '.'");
}

ATF_TC_WITHOUT_HEAD(vis);
ATF_TC_BODY(vis, tc)
{
	char	buf[16];

	repo_vis(buf, sizeof(buf), "plain");
	ATF_CHECK_STREQ(buf, "plain");
	repo_vis(buf, sizeof(buf), "a\nb\x1b");
	ATF_CHECK_STREQ(buf, "a\\x0ab\\x1b");
	/* 15 characters fit exactly; 16 do not and are cut with "..." */
	repo_vis(buf, sizeof(buf), "123456789012345");
	ATF_CHECK_STREQ(buf, "123456789012345");
	repo_vis(buf, sizeof(buf), "1234567890123456");
	ATF_CHECK_STREQ(buf, "123456789012...");
	/* an escape is never cut in half */
	repo_vis(buf, sizeof(buf), "12345678901\n2345");
	ATF_CHECK_STREQ(buf, "12345678901...");
	repo_vis(buf, 3, "abcdef");
	ATF_CHECK_STREQ(buf, "");
	repo_vis(buf, 4, "abcdef");
	ATF_CHECK_STREQ(buf, "...");
	repo_vis(buf, 1, "abc");
	ATF_CHECK_STREQ(buf, "");
}

ATF_TC_WITHOUT_HEAD(trimming);
ATF_TC_BODY(trimming, tc)
{
	char	 a[] = "/home/u/repo\n", b[] = "two\n\n", c[] = "bare";
	char	 d[] = "", e[] = "a\0b\n", f[] = "path ends in space \n";
	char	 g[] = "origin\n\nup stream\nfork\n", h[] = "a\nb\nc\n";
	char	*lines[4];

	ATF_CHECK(repo_chomp(a, strlen(a)) == 0);
	ATF_CHECK_STREQ(a, "/home/u/repo");
	ATF_CHECK(repo_chomp(b, strlen(b)) == 0);
	ATF_CHECK_STREQ(b, "two\n");
	ATF_CHECK(repo_chomp(c, strlen(c)) == 0);
	ATF_CHECK_STREQ(c, "bare");
	ATF_CHECK(repo_chomp(d, 0) == 0);
	ATF_CHECK_STREQ(d, "");
	ATF_CHECK(repo_chomp(e, sizeof(e) - 1) == -1);
	ATF_CHECK(repo_chomp(f, strlen(f)) == 0);
	ATF_CHECK_STREQ(f, "path ends in space ");

	ATF_REQUIRE(repo_lines(g, lines, 4) == 3);
	ATF_CHECK_STREQ(lines[0], "origin");
	ATF_CHECK_STREQ(lines[1], "up stream");
	ATF_CHECK_STREQ(lines[2], "fork");
	ATF_CHECK(repo_lines(h, lines, 2) == -1);
	d[0] = '\0';
	ATF_CHECK(repo_lines(d, lines, 4) == 0);
}

ATF_TC_WITHOUT_HEAD(top_head);
ATF_TC_BODY(top_head, tc)
{
	const char	*sha = "0123456789abcdef0123456789abcdef01234567";
	char		 a[256], *top, *s, *ref;
	size_t		 n;

#define TH(text)	(snprintf(a, sizeof(a), "%s", text), \
	repo_top_head(a, strlen(a), &top, &s, &ref))
	snprintf(a, sizeof(a), "/srv/r\n%s\nrefs/heads/main\n--\n", sha);
	ATF_REQUIRE(repo_top_head(a, strlen(a), &top, &s, &ref) == 0);
	ATF_CHECK_STREQ(top, "/srv/r");
	ATF_CHECK_STREQ(s, sha);
	ATF_CHECK_STREQ(ref, "refs/heads/main");
	/* detached; a work tree whose name holds newlines, read whole */
	snprintf(a, sizeof(a), "/srv/a\n\nb\n%s\nHEAD\n--\n", sha);
	ATF_REQUIRE(repo_top_head(a, strlen(a), &top, &s, &ref) == 0);
	ATF_CHECK_STREQ(top, "/srv/a\n\nb");
	ATF_CHECK_STREQ(ref, "HEAD");
	/* not that answer: git is asked again, one question at a time */
	ATF_CHECK(TH("/srv/r\nHEAD^{commit}\n--\n") == -1);
	ATF_CHECK(TH("/srv/r\n--\n") == -1);
	ATF_CHECK(TH("") == -1);
	snprintf(a, sizeof(a), "%s\nrefs/heads/main\n--\n", sha);
	ATF_CHECK(repo_top_head(a, strlen(a), &top, &s, &ref) == -1);
	snprintf(a, sizeof(a), "\n%s\nrefs/heads/main\n--\n", sha);
	ATF_CHECK(repo_top_head(a, strlen(a), &top, &s, &ref) == -1);
	snprintf(a, sizeof(a), "/r\n%s\nrefs/heads/main\n--", sha);
	ATF_CHECK(repo_top_head(a, strlen(a), &top, &s, &ref) == -1);
	snprintf(a, sizeof(a), "/r\n%s\nmain\n--\n", sha);
	ATF_CHECK(repo_top_head(a, strlen(a), &top, &s, &ref) == -1);
	snprintf(a, sizeof(a), "/r\n%s\nrefs/heads/main\n-\n", sha);
	ATF_CHECK(repo_top_head(a, strlen(a), &top, &s, &ref) == -1);
	n = (size_t)snprintf(a, sizeof(a), "/r\n%s\nrefs/heads/main\n--\n",
	    sha);
	a[1] = '\0';
	ATF_CHECK(repo_top_head(a, n, &top, &s, &ref) == -1);
#undef TH
}

ATF_TC_WITHOUT_HEAD(git_answers);
ATF_TC_BODY(git_answers, tc)
{
	/* git 2.39's words under LC_ALL=C */
	ATF_CHECK(repo_not_checkout("fatal: not a git repository (or any of "
	    "the parent directories): .git\n"));
	ATF_CHECK(repo_not_checkout("fatal: not a git repository (or any "
	    "parent up to mount point /tmp)\nStopping at filesystem boundary "
	    "(GIT_DISCOVERY_ACROSS_FILESYSTEM not set).\n"));
	ATF_CHECK(repo_not_checkout("fatal: this operation must be run in a "
	    "work tree\n"));
	ATF_CHECK(!repo_not_checkout("fatal: detected dubious ownership in "
	    "repository at '/srv/r'\n"));
	ATF_CHECK(!repo_not_checkout("fatal: cannot change to '/r': "
	    "Permission denied\n"));
	ATF_CHECK(!repo_not_checkout(""));

	ATF_CHECK(repo_sha_ok("0123456789abcdef0123456789abcdef01234567"));
	ATF_CHECK(repo_sha_ok("0123456789abcdef0123456789abcdef01234567"
	    "0123456789abcdef01234567"));
	ATF_CHECK(!repo_sha_ok("0123456789ABCDEF0123456789abcdef01234567"));
	ATF_CHECK(!repo_sha_ok("0123456789abcdef0123456789abcdef0123456"));
	ATF_CHECK(!repo_sha_ok("0123456789abcdef0123456789abcdef01234567\n"));
	ATF_CHECK(!repo_sha_ok(""));
}

ATF_TC_WITHOUT_HEAD(ref_find);
ATF_TC_BODY(ref_find, tc)
{
	const char	*refs = "refs/heads/main \n"
	    "refs/heads/main-old \n"
	    "refs/remotes/origin/HEAD refs/remotes/origin/main\n"
	    "refs/remotes/origin/main ";
	char		 t[64], small[8];

	ATF_CHECK(repo_ref_find(refs, "refs/heads/main", t, sizeof(t)) == 1);
	ATF_CHECK_STREQ(t, "");
	ATF_CHECK(repo_ref_find(refs, "refs/remotes/origin/HEAD", t,
	    sizeof(t)) == 1);
	ATF_CHECK_STREQ(t, "refs/remotes/origin/main");
	/* the last line has no newline */
	ATF_CHECK(repo_ref_find(refs, "refs/remotes/origin/main", NULL, 0));
	/* whole names only */
	ATF_CHECK(!repo_ref_find(refs, "refs/heads/mai", NULL, 0));
	ATF_CHECK(!repo_ref_find(refs, "refs/heads/main-", NULL, 0));
	ATF_CHECK(!repo_ref_find(refs, "refs/heads/master", NULL, 0));
	ATF_CHECK(!repo_ref_find("", "refs/heads/main", NULL, 0));
	/* a target that does not fit is dropped, never cut */
	ATF_CHECK(repo_ref_find(refs, "refs/remotes/origin/HEAD", small,
	    sizeof(small)) == 1);
	ATF_CHECK_STREQ(small, "");
}

/* facts: remotes as a space-separated list */
static const char *
upstream(const char *names, const char *pushdef, const char *brremote,
    const char *head, const char *refs, char *def, size_t deflen)
{
	static char		 buf[256];
	static char		*list[8];
	struct repo_facts	 f;
	char			*p, *w;
	const char		*up;

	memset(&f, 0, sizeof(f));
	(void)strlcpy(buf, names, sizeof(buf));
	for (p = buf; (w = strsep(&p, " ")) != NULL;)
		if (*w != '\0')
			list[f.nremotes++] = w;
	f.remotes = list;
	f.push_default = pushdef;
	f.branch_remote = brremote;
	f.head_branch = head;
	f.refs = refs;
	up = repo_pick_upstream(&f);
	if (def != NULL)
		repo_pick_default(&f, up, def, deflen);
	return up;
}
#define UP(names, pd, br, refs)	upstream((names), (pd), (br), "main", \
				    (refs), NULL, 0)

ATF_TC_WITHOUT_HEAD(pick_upstream);
ATF_TC_BODY(pick_upstream, tc)
{
	ATF_CHECK_STREQ(UP("", "", "", ""), "");
	ATF_CHECK_STREQ(UP("", "origin", "origin", ""), "");
	/* the sole remote, whatever its name */
	ATF_CHECK_STREQ(UP("up", "", "", ""), "up");
	ATF_CHECK_STREQ(UP("up", "other", "other", ""), "up");
	/* then origin, even over pushDefault and the branch's remote */
	ATF_CHECK_STREQ(UP("a origin b", "a", "b", ""), "origin");
	/* then remote.pushDefault, over the branch's remote */
	ATF_CHECK_STREQ(UP("a b", "b", "a", ""), "b");
	/* a candidate that is no configured remote does not count */
	ATF_CHECK_STREQ(UP("a b", "c", "a", ""), "a");
	ATF_CHECK_STREQ(UP("a b", "", ".", "refs/remotes/b/HEAD "
	    "refs/remotes/b/main\n"), "b");
	/* the only remote that knows its HEAD */
	ATF_CHECK_STREQ(UP("a b", "", "", "refs/remotes/a/main \n"
	    "refs/remotes/b/HEAD refs/remotes/b/trunk\n"), "b");
	/* remote names are matched whole: a/b's HEAD is not a's */
	ATF_CHECK_STREQ(UP("a a/b", "", "", "refs/remotes/a/b/HEAD "
	    "refs/remotes/a/b/main\n"), "a/b");
	/* two HEADs: no single answer */
	ATF_CHECK_STREQ(UP("a b", "", "", "refs/remotes/a/HEAD "
	    "refs/remotes/a/main\nrefs/remotes/b/HEAD refs/remotes/b/main\n"),
	    "");
	/* nothing to go by */
	ATF_CHECK_STREQ(UP("a b", "", "", "refs/heads/main \n"), "");
}

static void
want_default(int line, const char *names, const char *head,
    const char *refs, const char *want)
{
	char	def[JB_BRANCH_MAX] = "unset";

	(void)upstream(names, "", "", head, refs, def, sizeof(def));
	ATF_CHECK_MSG(strcmp(def, want) == 0, "line %d: got '%s', want '%s'",
	    line, def, want);
}
#define DEF(names, head, refs, want) \
	want_default(__LINE__, (names), (head), (refs), (want))

ATF_TC_WITHOUT_HEAD(pick_default);
ATF_TC_BODY(pick_default, tc)
{
	/* the upstream's HEAD wins over every well-known name */
	DEF("origin", "feat", "refs/heads/main \n"
	    "refs/remotes/origin/HEAD refs/remotes/origin/develop\n"
	    "refs/remotes/origin/main \n", "develop");
	DEF("origin", "", "refs/remotes/origin/HEAD "
	    "refs/remotes/origin/release/2.x\n", "release/2.x");
	/* a HEAD pointing at another remote's ref, or at nothing, is ignored */
	DEF("origin", "x", "refs/remotes/origin/HEAD refs/remotes/fork/dev\n"
	    "refs/remotes/origin/master \n", "master");
	DEF("origin", "x", "refs/remotes/origin/HEAD refs/remotes/origin/\n",
	    "main");
	DEF("origin", "x", "refs/remotes/origin/HEAD "
	    "refs/remotes/origin/a..b\nrefs/heads/master \n", "master");
	/* the upstream's main, then its master */
	DEF("origin", "x", "refs/remotes/origin/master \n"
	    "refs/remotes/origin/main \n", "main");
	DEF("origin", "x", "refs/heads/main \nrefs/remotes/origin/master \n",
	    "master");
	/* another remote's refs say nothing about the upstream */
	DEF("origin fork", "x", "refs/remotes/fork/HEAD "
	    "refs/remotes/fork/dev\nrefs/remotes/fork/master \n", "main");
	/* no upstream: the local main, then master */
	DEF("", "feat", "refs/heads/master \nrefs/heads/main \n", "main");
	DEF("", "feat", "refs/heads/master \n", "master");
	/* an unborn master (git init with init.defaultBranch=master) */
	DEF("", "master", "", "master");
	DEF("", "trunk", "", "main");
	DEF("", "", "", "main");
}

/* the program runs in the test's own environment; ours is passed */
static char *const	no_env[] = { NULL };

static void
run(const char *path, char *const argv[], char *const envp[], int ms,
    struct repo_run *r)
{
	ATF_REQUIRE_MSG(repo_run(path, argv, envp, repo_now_ms() + ms, r) == 0,
	    "repo_run: %s", strerror(errno));
}

#define ARGV(...)	((char *const []){ __VA_ARGS__, NULL })

ATF_TC_WITHOUT_HEAD(run_basics);
ATF_TC_BODY(run_basics, tc)
{
	struct repo_run	*r;
	char		*const env[] = { "A=1", "B=two words", NULL };
	int		 p[2];

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);

	run("/bin/sh", ARGV("sh", "-c", "echo out; echo err >&2; exit 3"),
	    no_env, 5000, r);
	ATF_CHECK_EQ(r->status, 3);
	ATF_CHECK(!r->timedout && !r->overflow);
	ATF_CHECK_STREQ(r->out, "out\n");
	ATF_CHECK_EQ(r->outlen, 4);
	ATF_CHECK_STREQ(r->err, "err\n");

	/* exactly the environment given, nothing inherited */
	ATF_REQUIRE(setenv("JB_LEAK", "1", 1) == 0);
	run("/usr/bin/env", ARGV("env"), env, 5000, r);
	ATF_CHECK_EQ(r->status, 0);
	ATF_CHECK_STREQ(r->out, "A=1\nB=two words\n");

	/* stdin is /dev/null: cat ends at once */
	run("/bin/cat", ARGV("cat"), no_env, 5000, r);
	ATF_CHECK_EQ(r->status, 0);
	ATF_CHECK(!r->timedout);
	ATF_CHECK_EQ(r->outlen, 0);

	/* no fd of ours reaches the program, inheritable or not */
	ATF_REQUIRE(pipe(p) == 0);
	run("/bin/ls", ARGV("ls", "/proc/self/fd"), no_env, 5000, r);
	ATF_CHECK_EQ(r->status, 0);
	ATF_CHECK_STREQ(r->out, "0\n1\n2\n3\n");
	(void)close(p[0]);
	(void)close(p[1]);

	/* a program that cannot run: 127 and nothing said */
	run("/nonexistent/git", ARGV("git"), no_env, 5000, r);
	ATF_CHECK_EQ(r->status, 127);
	ATF_CHECK_STREQ(r->err, "");

	/* death by a signal is no exit status */
	run("/bin/sh", ARGV("sh", "-c", "kill -TERM $$"), no_env, 5000, r);
	ATF_CHECK_EQ(r->status, -1);
	ATF_CHECK(!r->timedout);
	free(r);
}

ATF_TC_WITHOUT_HEAD(run_limits);
ATF_TC_BODY(run_limits, tc)
{
	struct repo_run	*r;
	long long	 t0;

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);

	/* endless output is cut at the cap and the writer killed */
	t0 = repo_now_ms();
	run("/usr/bin/yes", ARGV("yes"), no_env, 5000, r);
	ATF_CHECK(r->overflow);
	ATF_CHECK(!r->timedout);
	ATF_CHECK_EQ(r->status, -1);
	ATF_CHECK_EQ(r->outlen, REPO_OUT_MAX);
	ATF_CHECK_EQ(strlen(r->out), REPO_OUT_MAX);
	ATF_CHECK(repo_now_ms() - t0 < 4000);

	/* exactly the cap is no overflow */
	run("/bin/sh", ARGV("sh", "-c", "head -c 65536 /dev/zero | tr '\\0' x"),
	    no_env, 5000, r);
	ATF_CHECK(!r->overflow);
	ATF_CHECK_EQ(r->status, 0);
	ATF_CHECK_EQ(r->outlen, REPO_OUT_MAX);

	/* stderr is kept up to its cap, the rest drained */
	run("/bin/sh", ARGV("sh", "-c", "head -c 200000 /dev/zero | "
	    "tr '\\0' e >&2; echo done"), no_env, 5000, r);
	ATF_CHECK_EQ(r->status, 0);
	ATF_CHECK_EQ(strlen(r->err), REPO_ERR_MAX);
	ATF_CHECK_STREQ(r->out, "done\n");

	/* a program that hangs is killed at the deadline */
	t0 = repo_now_ms();
	run("/bin/sleep", ARGV("sleep", "30"), no_env, 300, r);
	ATF_CHECK(r->timedout);
	ATF_CHECK_EQ(r->status, -1);
	ATF_CHECK_MSG(repo_now_ms() - t0 < 3000, "took %lld ms",
	    repo_now_ms() - t0);

	/* also one that closed its output and lingers */
	t0 = repo_now_ms();
	run("/bin/sh", ARGV("sh", "-c", "exec >&- 2>&-; sleep 30"), no_env,
	    300, r);
	ATF_CHECK(r->timedout);
	ATF_CHECK(repo_now_ms() - t0 < 3000);
	free(r);
}

ATF_TC_WITHOUT_HEAD(run_group_killed);
ATF_TC_BODY(run_group_killed, tc)
{
	struct repo_run	*r;
	const char	*errstr = NULL;
	long long	 t0;
	pid_t		 gpid, w = 0;
	int		 st = 0;

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);
	/* orphans come to us, so we can see how the grandchild ended */
	ATF_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	run("/bin/sh", ARGV("sh", "-c", "sleep 30 & echo $!; wait"), no_env,
	    300, r);
	ATF_CHECK(r->timedout);
	r->out[strcspn(r->out, "\n")] = '\0';
	gpid = (pid_t)strtonum(r->out, 1, INT_MAX, &errstr);
	ATF_REQUIRE_MSG(errstr == NULL, "grandchild pid '%s'", r->out);
	for (t0 = repo_now_ms(); repo_now_ms() - t0 < 3000;) {
		if ((w = waitpid(gpid, &st, WNOHANG)) != 0)
			break;
		usleep(10000);
	}
	ATF_CHECK_EQ(w, gpid);
	ATF_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	if (w == 0)
		(void)kill(gpid, SIGKILL);
	free(r);
}

ATF_TC_WITHOUT_HEAD(inspect_refusals);
ATF_TC_BODY(inspect_refusals, tc)
{
	struct repo_owner	 o = { "nobody", "/nonexistent" };
	struct jb_repo_req	 req;
	struct jb_repo_info	 info;
	char			 err[JB_ERR_TEXT_MAX];

	/* refused before git or the filesystem is asked */
	memset(&req, 0, sizeof(req));
	(void)strlcpy(req.path, "repo/sub", sizeof(req.path));
	ATF_CHECK(repo_inspect(&o, &req, &info, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "repo/sub: the path must be absolute");
	ATF_CHECK_STREQ(info.toplevel, "");

	(void)strlcpy(req.path, "/", sizeof(req.path));
	(void)strlcpy(req.branch, "-x", sizeof(req.branch));
	ATF_CHECK(repo_inspect(&o, &req, &info, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "invalid branch name \"-x\": it must not start "
	    "with '-'");

	req.branch[0] = '\0';
	(void)strlcpy(req.path, "/nonexistent/x\ny", sizeof(req.path));
	ATF_CHECK(repo_inspect(&o, &req, &info, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "/nonexistent/x\\x0ay: No such file or directory "
	    "(as user nobody)");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, branch_names);
	ATF_TP_ADD_TC(tp, vis);
	ATF_TP_ADD_TC(tp, trimming);
	ATF_TP_ADD_TC(tp, git_answers);
	ATF_TP_ADD_TC(tp, ref_find);
	ATF_TP_ADD_TC(tp, pick_upstream);
	ATF_TP_ADD_TC(tp, pick_default);
	ATF_TP_ADD_TC(tp, top_head);
	ATF_TP_ADD_TC(tp, run_basics);
	ATF_TP_ADD_TC(tp, run_limits);
	ATF_TP_ADD_TC(tp, run_group_killed);
	ATF_TP_ADD_TC(tp, inspect_refusals);
	return atf_no_error();
}
