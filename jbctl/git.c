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
 * jbctl git: the git bridge, done by jbctl in the owner's checkout with
 * host git (gitrun.c), whose transport to the container's clone is
 * git-remote-jailbee (jailbee::NAME).  A container's branch lands in
 * refs/jailbee/NAME/BRANCH only; a host branch moves only by a
 * fast-forward the owner asked for (pull, pull --into), and the checked
 * out tree only with a clean tree (pull, checkout).
 */

#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "gitref.h"
#include "gitrun.h"
#include "imsg.h"
#include "jbctl.h"
#include "repoconf.h"

#define OID_MAX		128

struct gitctx {
	const char		*name;		/* as the user typed it */
	struct jb_instance	 in;
	int			 found;
	char			 branch[JB_BRANCH_MAX];	/* the container's */
	char			 ref[PATH_MAX];	/* refs/jailbee/NAME/BRANCH */
	char			 url[JB_INSTANCE_MAX + 16];
};

static struct gitctx	*lookup_ctx;

static __attribute__((__format__(printf, 1, 2))) int
fail(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "jbctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

/* ls's answer, caught: the container NAME names, as jailbeed would map it */
static void nop(void) { }
static void nop_status(const struct jb_proc_status *s, int64_t t) { }
static void nop_version(const char *a, const char *b) { }
static void nop_begin(const char *w) { }
static void nop_snap(const struct jb_snapshot *s) { }
static void nop_mount(const struct jb_mount_entry *m) { }
static void nop_image(const struct jb_image *i) { }
static void nop_port(const struct jb_port *p) { }
static void nop_ctr(const struct jb_net_ctr *c) { }
static void nop_allow(const struct jb_net_allow *a) { }
static void nop_addr(const struct jb_net_addr *a) { }
static void nop_doctor(const struct jb_doctor_check *d) { }
static void nop_block(const struct jb_net_block *b) { }
static void nop_resolved(const struct jb_net_resolved *r) { }

static void
caught(const struct jb_instance *in)
{
	struct gitctx	*g = lookup_ctx;
	char		 slug[JB_INSTANCE_MAX], full[JB_INSTANCE_MAX * 2];

	if (g->found)
		return;
	if (repoconf_slug(g->name, slug, sizeof(slug)) == NULL)
		slug[0] = '\0';
	snprintf(full, sizeof(full), "%s-%s", in->prefix, slug);
	if (strcmp(in->name, g->name) == 0 ||
	    (slug[0] != '\0' && strcmp(in->name, full) == 0)) {
		g->in = *in;
		g->found = 1;
	}
}

static const struct output catch_output = {
	nop, nop_status, nop, nop_version, nop_begin, caught, nop_snap, nop,
	nop_mount, nop_image, nop_port, nop_ctr, nop_allow, nop_addr,
	nop_doctor, nop_block, nop_resolved, NULL
};

/* which container, its branch (or branch), and the ref it lands in */
static int
lookup(struct imsgbuf *ibuf, struct gitctx *g, const char *name,
    const char *branch)
{
	struct parsed	 lp;
	const char	*why;

	memset(g, 0, sizeof(*g));
	g->name = name;
	if ((why = gitref_component_bad(name)) != NULL)
		return fail("%s: not a container name for a ref (%s)", name,
		    why);
	memset(&lp, 0, sizeof(lp));
	lp.cmd = cmd_find(CMD_LS);
	lookup_ctx = g;
	if (ctl_run(ibuf, &lp, &catch_output) != 0)
		return 1;
	if (!g->found)
		return fail("%s: no such container of this repository (jbctl "
		    "ls lists them)", name);
	if (strcmp(g->in.mode, "mount") == 0)
		return fail("%s is a mount-mode container: it works in this "
		    "checkout itself, there is nothing to fetch", name);
	if (strcmp(g->in.state, "Running") != 0)
		return fail("%s is %s: start it first (jbctl start %s)", name,
		    g->in.state, name);
	if (branch == NULL)
		branch = g->in.branch;
	if ((why = gitref_branch_bad(branch)) != NULL)
		return fail("%s: \"%s\" is not a branch name the git bridge "
		    "takes (%s)", name, branch, why);
	strlcpy(g->branch, branch, sizeof(g->branch));
	snprintf(g->ref, sizeof(g->ref), "refs/jailbee/%s/%s", name, branch);
	snprintf(g->url, sizeof(g->url), "jailbee::%s", name);
	return 0;
}

/*
 * The container's branch into g->ref.  tostderr: the summary goes to
 * stderr.  *oid, when asked for, gets the fetched commit.  Three gits
 * in all: what is there before (gitrun_fetch_start), the fetch, and the
 * count of new commits, which fails when the ref is not there after it.
 */
static int
fetch(struct gitctx *g, int tostderr, char *oid, size_t oidlen)
{
	char		 old[OID_MAX], spec[PATH_MAX * 2], cnt[64];
	char		 excl[PATH_MAX + 16], stats[128];
	struct gitpacks	 packs;
	uint64_t	 objects, in = 0, out = 0;
	int		 p[2], rv;
	ssize_t		 n;
	size_t		 got = 0;

	if (gitrun_fetch_start(g->ref, old, sizeof(old), &packs) == -1)
		return fail("not in a git checkout: run jbctl git in the "
		    "host's checkout of the container's repository");
	snprintf(spec, sizeof(spec), "+refs/heads/%s:%s", g->branch, g->ref);
	if (pipe(p) == -1) {
		gitpacks_free(&packs);
		return fail("pipe: %s", strerror(errno));
	}
	gitrun_stats_fd(p[1]);
	rv = gitrun("fetch", "--quiet", "--no-tags", "--no-recurse-submodules",
	    "--no-write-fetch-head", "--no-auto-gc", g->url, spec, NULL);
	gitrun_stats_fd(-1);
	close(p[1]);
	while (got < sizeof(stats) - 1 && (n = read(p[0], stats + got,
	    sizeof(stats) - 1 - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	stats[got] = '\0';
	if (rv == -1) {
		gitpacks_clean(&packs);
		gitpacks_free(&packs);
		return fail("fetch %s: git fetch of the container's branch %s "
		    "failed (see above); no ref moved on the host", g->name,
		    g->branch);
	}
	(void)sscanf(stats, "%" SCNu64 " %" SCNu64, &in, &out);
	objects = gitpacks_new_objects(&packs);
	gitpacks_free(&packs);
	snprintf(excl, sizeof(excl), "--exclude=%s", g->ref);
	snprintf(spec, sizeof(spec), "%s..%s", old, g->ref);
	if (old[0] != '\0')
		rv = gitrun_line(cnt, sizeof(cnt), "rev-list", "--count",
		    spec, NULL);
	else
		rv = gitrun_line(cnt, sizeof(cnt), "rev-list", "--count",
		    g->ref, "--not", excl, "--all", NULL);
	if (rv == -1 || (oid != NULL && gitrun_line(oid, oidlen, "rev-parse",
	    "-q", "--verify", g->ref, NULL) == -1))
		return fail("fetch %s: %s is missing after the fetch", g->name,
		    g->ref);
	fprintf(tostderr ? stderr : stdout, "%s%s's %s -> %s: %s new "
	    "commit%s, %" PRIu64 " object%s, %" PRIu64 " bytes received\n",
	    tostderr ? "jbctl: " : "", g->name, g->branch, g->ref, cnt,
	    strcmp(cnt, "1") == 0 ? "" : "s", objects,
	    objects == 1 ? "" : "s", in);
	return 0;
}

/* the checked-out branch's full name, or "" when HEAD is detached */
static void
head_branch(char *buf, size_t len)
{
	if (gitrun_line(buf, len, "symbolic-ref", "-q", "HEAD", NULL) == -1)
		buf[0] = '\0';
}

/* tracked files changed: nothing may be checked out over them */
static int
tree_dirty(void)
{
	char	out[4096];

	if (gitrun_capture(out, sizeof(out), 1, "status", "--porcelain",
	    "--untracked-files=no", "--ignore-submodules", NULL) == -1)
		return -1;
	return out[0] != '\0';
}

/* a submodule new between from and to is not cloned: say so */
static void
warn_submodules(const char *name, const char *from, const char *to)
{
	char	 out[16384], *line, *next, *path;

	if (gitrun_capture(out, sizeof(out), 1, "diff-tree", "-r",
	    "--no-renames", "--diff-filter=A", from, to, NULL) == -1)
		return;
	for (line = out; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, ":000000 160000 ", 15) != 0 ||
		    (path = strchr(line, '\t')) == NULL)
			continue;
		fprintf(stderr, "jbctl: warning: %s adds submodule %s: "
		    "skipped, not cloned on the host\n", name, path + 1);
	}
}

static int
git_fetch(struct imsgbuf *ibuf, const struct parsed *p)
{
	struct gitctx	g;

	if (lookup(ibuf, &g, p->args[0], p->nargs > 1 ? p->args[1] : NULL))
		return 1;
	return fetch(&g, 0, NULL, 0);
}

static int
pull_into(struct gitctx *g, const char *into, const char *cur)
{
	char		ref[PATH_MAX], old[OID_MAX], oid[OID_MAX], msg[256];
	const char	*why;

	if ((why = gitref_branch_bad(into)) != NULL)
		return fail("pull %s --into %s: not a branch name (%s)",
		    g->name, into, why);
	snprintf(ref, sizeof(ref), "refs/heads/%s", into);
	if (strcmp(ref, cur) == 0)
		return fail("pull %s --into %s: %s is checked out here; "
		    "pull without --into moves it with its tree", g->name,
		    into, into);
	if (gitrun_line(old, sizeof(old), "rev-parse", "-q", "--verify",
	    ref, NULL) == -1)
		old[0] = '\0';
	if (fetch(g, 1, oid, sizeof(oid)))
		return 1;
	if (old[0] != '\0' && strcmp(old, oid) == 0) {
		printf("%s is up to date with %s's %s\n", into, g->name,
		    g->branch);
		return 0;
	}
	if (old[0] != '\0' && gitrun_quiet("merge-base", "--is-ancestor",
	    old, oid, NULL) == -1)
		return fail("pull %s --into %s: %s and the container's %s "
		    "have diverged: not a fast-forward, nothing changed; the "
		    "container's work is in %s (jbctl git fetch %s), merge it "
		    "yourself or pull --into another branch", g->name, into,
		    into, g->branch, g->ref, g->name);
	snprintf(msg, sizeof(msg), "jbctl git pull %s --into %s", g->name,
	    into);
	if (gitrun("update-ref", "-m", msg, ref, oid, old, NULL) == -1)
		return fail("pull %s --into %s: %s could not be updated "
		    "(see above)", g->name, into, ref);
	printf("%s: %s%s%.12s (fast-forward to %s's %s)\n", into,
	    old[0] ? old : "new", old[0] ? ".." : " at ", oid, g->name,
	    g->branch);
	return 0;
}

static int
git_pull(struct imsgbuf *ibuf, const struct parsed *p, const char *into)
{
	struct gitctx	g;
	char		cur[PATH_MAX], old[OID_MAX], oid[OID_MAX];
	int		dirty;

	if (lookup(ibuf, &g, p->args[0], NULL))
		return 1;
	head_branch(cur, sizeof(cur));
	if (into != NULL)
		return pull_into(&g, into, cur);
	if (cur[0] == '\0')
		return fail("pull %s: HEAD is detached here; check out a "
		    "branch, or use --into BRANCH", g.name);
	if ((dirty = tree_dirty()) != 0)
		return fail("pull %s: %s; commit or stash first, or use "
		    "--into BRANCH (no checkout)", g.name, dirty == -1 ?
		    "git status failed" : "the host's tree has uncommitted "
		    "changes");
	if (gitrun_line(old, sizeof(old), "rev-parse", "-q", "--verify",
	    "HEAD", NULL) == -1)
		old[0] = '\0';
	if (fetch(&g, 1, oid, sizeof(oid)))
		return 1;
	if (old[0] != '\0' && gitrun_quiet("merge-base", "--is-ancestor",
	    old, oid, NULL) == -1)
		return fail("pull %s: %s and the container's %s have "
		    "diverged: not a fast-forward, nothing changed; the "
		    "container's work is in %s (jbctl git fetch %s), merge it "
		    "yourself, or use --into BRANCH", g.name, cur + 11,
		    g.branch, g.ref, g.name);
	if (gitrun("merge", "--ff-only", "--no-stat", "-q", oid, NULL) == -1)
		return fail("pull %s: git merge --ff-only failed (see above)",
		    g.name);
	if (old[0] != '\0')
		warn_submodules(g.name, old, oid);
	printf("%s: %.12s..%.12s (fast-forward to %s's %s)\n", cur + 11,
	    old, oid, g.name, g.branch);
	return 0;
}

static int
git_push(struct imsgbuf *ibuf, const struct parsed *p)
{
	struct gitctx	 g;
	char		 cur[PATH_MAX], spec[PATH_MAX * 2], ref[PATH_MAX];
	const char	*b = p->nargs > 1 ? p->args[1] : NULL;

	head_branch(cur, sizeof(cur));
	if (b == NULL) {
		if (cur[0] == '\0')
			return fail("push %s: HEAD is detached here; name the "
			    "branch to push", p->args[0]);
		b = cur + 11;
	}
	if (lookup(ibuf, &g, p->args[0], b))
		return 1;
	snprintf(ref, sizeof(ref), "refs/heads/%s", g.branch);
	if (gitrun_quiet("rev-parse", "-q", "--verify", ref, NULL) == -1)
		return fail("push %s: no branch %s here", g.name, g.branch);
	snprintf(spec, sizeof(spec), "%s:%s", ref, ref);
	if (gitrun("push", "--quiet", "--no-verify",
	    "--no-recurse-submodules", g.url, spec, NULL) == -1)
		return fail("push %s: the container refused %s (see above): "
		    "it is not a fast-forward of the container's %s, or that "
		    "branch is checked out there with uncommitted changes; "
		    "nothing changed", g.name, g.branch, g.branch);
	printf("%s -> %s's %s\n", g.branch, g.name, g.branch);
	return 0;
}

static int
git_show(struct imsgbuf *ibuf, const struct parsed *p, int diff)
{
	struct gitctx	g;
	char		oid[OID_MAX], range[OID_MAX * 2 + 8];

	if (lookup(ibuf, &g, p->args[0], NULL))
		return 1;
	if (fetch(&g, 1, oid, sizeof(oid)))
		return 1;
	snprintf(range, sizeof(range), "HEAD%s%s", diff ? "..." : "..", oid);
	if (diff)
		return gitrun("--no-pager", "diff", "--no-ext-diff",
		    "--no-textconv", range, NULL) == -1 ? 1 : 0;
	return gitrun("--no-pager", "log", "--no-ext-diff", "--no-textconv",
	    range, NULL) == -1 ? 1 : 0;
}

static int
git_checkout(struct imsgbuf *ibuf, const struct parsed *p, const char *as)
{
	struct gitctx	 g;
	char		 ref[PATH_MAX], oid[OID_MAX], old[OID_MAX];
	const char	*why;
	int		 dirty;

	if (lookup(ibuf, &g, p->args[0], NULL))
		return 1;
	if (as == NULL)
		as = g.branch;
	if ((why = gitref_branch_bad(as)) != NULL)
		return fail("checkout %s --as %s: not a branch name (%s)",
		    g.name, as, why);
	snprintf(ref, sizeof(ref), "refs/heads/%s", as);
	if (gitrun_quiet("rev-parse", "-q", "--verify", ref, NULL) == 0)
		return fail("checkout %s: a branch %s exists here; name "
		    "another with --as BRANCH, or use pull --into %s", g.name,
		    as, as);
	if ((dirty = tree_dirty()) != 0)
		return fail("checkout %s: %s; commit or stash first", g.name,
		    dirty == -1 ? "git status failed" : "the host's tree has "
		    "uncommitted changes");
	if (gitrun_line(old, sizeof(old), "rev-parse", "-q", "--verify",
	    "HEAD", NULL) == -1)
		old[0] = '\0';
	if (fetch(&g, 1, oid, sizeof(oid)))
		return 1;
	if (gitrun("checkout", "-q", "--no-track", "-b", as, oid, NULL) == -1)
		return fail("checkout %s: git checkout failed (see above)",
		    g.name);
	if (old[0] != '\0')
		warn_submodules(g.name, old, oid);
	printf("on new branch %s at %.12s (%s's %s)\n", as, oid, g.name,
	    g.branch);
	return 0;
}

static const char *
opt(const struct parsed *p, const char *lname)
{
	int	k;

	for (k = 0; k < CMD_MAXOPTS && p->cmd->opts[k].lname != NULL; k++)
		if (strcmp(p->cmd->opts[k].lname, lname) == 0)
			return p->optval[k];
	return NULL;
}

int
local_git(struct imsgbuf *ibuf, const struct parsed *p, const char *sockpath)
{
	char	err[256], sock[PATH_MAX + 16];

	snprintf(sock, sizeof(sock), "JAILBEE_SOCKET=%s", sockpath);
	if (gitrun_init(NULL, sock, err, sizeof(err)) == -1)
		return fail("%s", err);
	/* commit text, file content, "remote:" lines: the container's */
	gitrun_termsafe(1);
	/* fetch's first git says this too (gitrun_fetch_start) */
	if (p->cmd->id != CMD_GIT_FETCH &&
	    gitrun_quiet("rev-parse", "--git-dir", NULL) == -1)
		return fail("not in a git checkout: run jbctl git in the "
		    "host's checkout of the container's repository");
	switch (p->cmd->id) {
	case CMD_GIT_FETCH:
		return git_fetch(ibuf, p);
	case CMD_GIT_PULL:
		return git_pull(ibuf, p, opt(p, "into"));
	case CMD_GIT_PUSH:
		return git_push(ibuf, p);
	case CMD_GIT_DIFF:
		return git_show(ibuf, p, 1);
	case CMD_GIT_LOG:
		return git_show(ibuf, p, 0);
	case CMD_GIT_CHECKOUT:
		return git_checkout(ibuf, p, opt(p, "as"));
	default:
		return fail("not a git bridge command");
	}
}
