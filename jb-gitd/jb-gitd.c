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
 * jb-gitd: the git bridge's host writer for SSH sessions.  It runs as
 * the owner and does one thing: for each GITD_FETCH it forks a worker
 * (worker.c) that locks itself to the one checkout's .git and runs host
 * git there, fetching through the stream to git upload-pack in the
 * container that came with the request; for each GITD_BUNDLE, a worker
 * (bundle.c) that writes one branch's bundle into the stream to the
 * container, reading the checkout only.  The worker's answer comes back
 * on a pipe and goes up as GITD_RESULT.  No request is served by this
 * process itself: it opens no file.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <event.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitd.h"
#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"

struct wjob {
	struct child		*c;
	uint32_t		 rid;
	pid_t			 pid;
	int			 fd;
	struct event		 ev;
	struct jb_gitd_result	 r;
	size_t			 got;
	struct event		 timer;		/* the worker's wall time */
	unsigned int		 secs;
	int			 timedout;
	int			 bundle;	/* GITD_BUNDLE's */
};

static const char	*owner_home;

static void
must_str(struct child *c, const char *what, const char *s, size_t len)
{
	if (memchr(s, '\0', len) == NULL)
		fatalx("%s: GITD_FETCH: %s not terminated", c->name, what);
}

static void
wjob_read(int fd, short event, void *arg)
{
	struct wjob	*w = arg;
	ssize_t		 n;
	int		 status;

	n = read(fd, (char *)&w->r + w->got, sizeof(w->r) - w->got);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		w->got += (size_t)n;
		if (w->got < sizeof(w->r))
			return;
	}
	event_del(&w->ev);
	evtimer_del(&w->timer);
	close(w->fd);
	while (waitpid(w->pid, &status, 0) == -1 && errno == EINTR)
		;
	if (w->timedout) {
		memset(&w->r, 0, sizeof(w->r));
		(void)snprintf(w->r.text, sizeof(w->r.text), w->bundle ?
		    "the git bundle ran longer than its limit of %u s and was "
		    "stopped" : "the git fetch ran longer than its limit of "
		    "%u s and was stopped; a ref it had not yet moved stays "
		    "as it was", w->secs);
	} else if (w->got != sizeof(w->r)) {
		memset(&w->r, 0, sizeof(w->r));
		if (WIFSIGNALED(status))
			(void)snprintf(w->r.text, sizeof(w->r.text), "the git "
			    "worker was killed by signal %d", WTERMSIG(status));
		else
			(void)snprintf(w->r.text, sizeof(w->r.text), "the git "
			    "worker exited with status %d and no answer",
			    WEXITSTATUS(status));
	}
	w->r.text[sizeof(w->r.text) - 1] = '\0';
	if (imsgev_compose(&w->c->iev, IMSG_GITD_RESULT, w->rid, 0, -1, &w->r,
	    sizeof(w->r)) == -1)
		fatal("%s: compose", w->c->name);
	child_done(w->c, w->rid, 1, NULL);
	free(w);
}

/* past its wall time: the worker and every git it runs are stopped */
static void
wjob_expired(int fd, short event, void *arg)
{
	struct wjob	*w = arg;

	log_info("%s: git worker %ld ran longer than %u s: stopping it",
	    w->c->name, (long)w->pid, w->secs);
	w->timedout = 1;
	(void)kill(-w->pid, SIGKILL);
	(void)kill(w->pid, SIGKILL);
}

/*
 * A worker in a fork, in its own process group, with fd: its answer
 * comes back on a pipe and goes up as GITD_RESULT for rid, or a kill
 * at the end of its wall time.
 */
static void
worker_start(struct child *c, uint32_t rid, int fd, uint32_t timeout,
    const struct jb_gitd_fetch *f, const struct jb_gitd_bundle *b,
    const struct jb_gitd_have *h)
{
	struct wjob		*w;
	struct timeval		 tv;
	int			 p[2];

	if ((w = calloc(1, sizeof(*w))) == NULL)
		fatal("%s: calloc", c->name);
	w->c = c;
	w->rid = rid;
	w->bundle = f == NULL;
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("%s: pipe2", c->name);
	switch (w->pid = fork()) {
	case -1:
		fatal("%s: fork", c->name);
	case 0:
		close(p[0]);
		close(JB_CHAN_FD);
		/* its own process group, so that its gits stop with it */
		(void)setpgid(0, 0);
		if (f != NULL)
			gitd_worker(f, fd, p[1], owner_home);
		if (h != NULL)
			gitd_haver(h, p[1], owner_home);
		gitd_bundler(b, fd, p[1], owner_home);
		/* NOTREACHED */
	}
	(void)setpgid(w->pid, w->pid);
	close(p[1]);
	if (fd != -1)
		close(fd);
	w->fd = p[0];
	event_set(&w->ev, w->fd, EV_READ | EV_PERSIST, wjob_read, w);
	if (event_add(&w->ev, NULL) == -1)
		fatal("%s: event_add", c->name);
	w->secs = GITD_WALL_SECS(timeout);
	tv.tv_sec = w->secs;
	tv.tv_usec = 0;
	evtimer_set(&w->timer, wjob_expired, w);
	if (evtimer_add(&w->timer, &tv) == -1)
		fatal("%s: evtimer_add", c->name);
}

static void
gitd_fetch(struct child *c, struct imsg *imsg)
{
	struct jb_gitd_fetch	 f;
	int			 fd;
	uint32_t		 rid = imsg_get_id(imsg);

	if (imsg_get_data(imsg, &f, sizeof(f)) == -1)
		fatalx("%s: malformed GITD_FETCH", c->name);
	must_str(c, "toplevel", f.toplevel, sizeof(f.toplevel));
	must_str(c, "name", f.name, sizeof(f.name));
	must_str(c, "branch", f.branch, sizeof(f.branch));
	must_str(c, "ref", f.ref, sizeof(f.ref));
	must_str(c, "into", f.into, sizeof(f.into));
	if ((fd = imsg_get_fd(imsg)) == -1) {
		child_done(c, rid, 0, "no stream to the container came with "
		    "the request");
		return;
	}
	worker_start(c, rid, fd, f.timeout, &f, NULL, NULL);
}

static void
gitd_bundle(struct child *c, struct imsg *imsg)
{
	struct jb_gitd_bundle	 b;
	int			 fd;
	uint32_t		 rid = imsg_get_id(imsg);

	if (imsg_get_data(imsg, &b, sizeof(b)) == -1)
		fatalx("%s: malformed GITD_BUNDLE", c->name);
	must_str(c, "toplevel", b.toplevel, sizeof(b.toplevel));
	must_str(c, "branch", b.branch, sizeof(b.branch));
	if ((fd = imsg_get_fd(imsg)) == -1) {
		child_done(c, rid, 0, "no stream to the container came with "
		    "the request");
		return;
	}
	worker_start(c, rid, fd, b.timeout, NULL, &b, NULL);
}

static void
gitd_have(struct child *c, struct imsg *imsg)
{
	struct jb_gitd_have	 h;
	uint32_t		 i;

	if (imsg_get_data(imsg, &h, sizeof(h)) == -1 || h.n > JB_HAVE_MAX)
		fatalx("%s: malformed GITD_HAVE", c->name);
	must_str(c, "toplevel", h.toplevel, sizeof(h.toplevel));
	for (i = 0; i < h.n; i++)
		must_str(c, "oid", h.oid[i], sizeof(h.oid[i]));
	/* a few git cat-file runs: the fetch's wall time is ample */
	worker_start(c, imsg_get_id(imsg), -1, 60, NULL, NULL, &h);
}

/*
 * Under the test switch, jb-gitd-worker: a fork locked down as a worker for the checkout whose
 * .git holds the path tries the operation; anything else, this process.
 */
static void
gitd_attempt(struct child *c, const struct jb_test_attempt *a, char *out,
    size_t len)
{
	char		 top[PATH_MAX], gitdir[PATH_MAX + 8], *g;
	int		 p[2], status;
	ssize_t		 n;
	size_t		 got = 0;
	pid_t		 pid;

	if (strcmp(a->proc, "jb-gitd-worker") != 0) {
		testhook_attempt(a, out, len);
		return;
	}
	(void)strlcpy(top, a->path, sizeof(top));
	if ((g = strstr(top, "/.git/")) == NULL) {
		(void)snprintf(out, len, "not in a .git: %s", a->path);
		return;
	}
	*g = '\0';
	(void)snprintf(gitdir, sizeof(gitdir), "%s/.git", top);
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("%s: pipe2", c->name);
	switch (pid = fork()) {
	case -1:
		fatal("%s: fork", c->name);
	case 0:
		close(p[0]);
		sandbox_jb_gitd_worker(top, gitdir, owner_home);
		testhook_attempt(a, out, len);
		(void)write(p[1], out, strlen(out));
		_exit(0);
	}
	close(p[1]);
	while (got < len - 1 && ((n = read(p[0], out + got, len - 1 - got)) >
	    0 || (n == -1 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
}

static int
gitd_dispatch(struct child *c, struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_GITD_FETCH:
		gitd_fetch(c, imsg);
		return 0;
	case IMSG_GITD_BUNDLE:
		gitd_bundle(c, imsg);
		return 0;
	case IMSG_GITD_HAVE:
		gitd_have(c, imsg);
		return 0;
	default:
		return -1;
	}
}

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct passwd		*pw;

	child_init(&c, "jb-gitd", argc, argv, &a);
	pw = child_owner(&c, &a);
	if ((owner_home = strdup(pw->pw_dir)) == NULL)
		fatal("%s: strdup", c.name);
	(void)snprintf(c.detail, sizeof(c.detail), "git fetch into %s's "
	    "checkouts over SSH", pw->pw_name);
	c.dispatch = gitd_dispatch;
	c.attempt = gitd_attempt;
	/* the stream to the container comes down with each request */
	c.fdrecv = 1;
	priv_drop(c.name, pw, NULL, NULL, 0);
	sandbox_jb_gitd();
	child_run(&c);
}
