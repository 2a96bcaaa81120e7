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
 * new's clone on a cluster, where the container may run on a member
 * that has no checkout to mount: the branch and the objects it needs go
 * through the git bridge as a git bundle.  jb-incus runs `cat` into a
 * file of the dev user's in the container (an Incus exec, whose streams
 * reach any member through the cluster); its stdin's socket goes to
 * jb-gitd, whose worker writes `git bundle create` of the branch into
 * it, reading the checkout only, as the owner, and shuts the socket's
 * writing half, which ends the exec's stdin.  The stream goes one way:
 * what the container writes back is read and dropped here, and the
 * first bytes of its stderr are kept, made safe, for a failure's
 * message.  The exec is killed when jb-gitd failed, or when it has not
 * ended a while after the bundle was written.
 */

#include <errno.h>
#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clone_bridge.h"
#include "jobs.h"
#include "log.h"
#include "termsafe.h"

#define BUNDLE_TIMEOUT	3600	/* the bundle's own wall time, seconds */
#define AFTER_BUNDLE	60	/* the exec's, once the bundle is written */

struct bridge {
	struct job		*job;
	clone_bridge_cb		 cb;
	struct jb_gitd_bundle	 b;
	struct req		*exec;
	int			 exec_done, exec_ok, exited, status;
	int			 gitd_sent, gitd_done, gitd_ok;
	struct jb_gitd_result	 r;
	int			 have_r;
	char			 err[JB_ERR_TEXT_MAX];
	int			 fd[2];		/* stdin+stdout, stderr */
	struct event		 ev[2];
	char			 said[256];	/* the first of its stderr */
	size_t			 saidlen;
	struct event		 timer;
	int			 timer_on;
};

static void
bridge_close(struct bridge *br, int i)
{
	if (br->fd[i] == -1)
		return;
	event_del(&br->ev[i]);
	close(br->fd[i]);
	br->fd[i] = -1;
}

static void
bridge_kill(struct bridge *br)
{
	if (br->exec != NULL && !br->exec_done)
		(void)req_send_to(br->exec, IMSG_INCUS_EXEC_KILL, NULL, 0);
}

static void
bridge_finish(struct bridge *br)
{
	char	 why[JB_ERR_TEXT_MAX];
	int	 ok;

	if (!br->exec_done || (br->gitd_sent && !br->gitd_done))
		return;
	bridge_close(br, 0);
	bridge_close(br, 1);
	if (br->timer_on)
		evtimer_del(&br->timer);
	br->said[br->saidlen] = '\0';
	(void)termsafe(br->said);
	ok = 0;
	if (!br->gitd_sent)
		(void)snprintf(why, sizeof(why), "%s", br->err[0] ? br->err :
		    "the exec in the container gave no stream");
	else if (!br->gitd_ok || !br->have_r)
		(void)snprintf(why, sizeof(why), "jb-gitd: %.900s", br->err[0] ?
		    br->err : "no answer");
	else if (!br->r.ok)
		(void)snprintf(why, sizeof(why), "%s", br->r.text);
	else if (!br->exec_ok || !br->exited)
		(void)snprintf(why, sizeof(why), "storing the bundle in the "
		    "container: %.900s", br->err[0] ? br->err : "no exit status");
	else if (br->status != 0)
		(void)snprintf(why, sizeof(why), "storing the bundle in the "
		    "container exited %d%s%s", br->status, br->saidlen ? ": " :
		    "", br->said);
	else
		ok = 1;
	br->cb(br->job, ok, ok ? NULL : why);
	free(br);
}

/* what the container writes back is not wanted; its stderr's start is */
static void
bridge_read(int fd, short ev, void *arg)
{
	struct bridge	*br = arg;
	char		 buf[4096];
	ssize_t		 n;
	size_t		 k;
	int		 i = fd == br->fd[1] ? 1 : 0;

	if ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (i == 1 && br->saidlen < sizeof(br->said) - 1) {
			k = sizeof(br->said) - 1 - br->saidlen;
			if ((size_t)n < k)
				k = (size_t)n;
			memcpy(br->said + br->saidlen, buf, k);
			br->saidlen += k;
		}
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	bridge_close(br, i);
}

static void
bridge_expired(int fd, short ev, void *arg)
{
	struct bridge	*br = arg;

	br->timer_on = 0;
	(void)snprintf(br->err, sizeof(br->err), "the container did not "
	    "store the bundle within %d s of its end", AFTER_BUNDLE);
	bridge_kill(br);
}

static void
gitd_msg(struct req *r, struct imsg *imsg)
{
	struct bridge	*br = r->arg;

	if (imsg_get_type(imsg) != IMSG_GITD_RESULT ||
	    imsg_get_data(imsg, &br->r, sizeof(br->r)) == -1)
		fatalx("jb-gitd: malformed RESULT");
	br->r.text[sizeof(br->r.text) - 1] = '\0';
	br->r.new[sizeof(br->r.new) - 1] = '\0';
	br->have_r = 1;
}

static void
gitd_done(struct req *r, int ok, const char *err)
{
	struct bridge	*br = r->arg;
	struct timeval	 tv = { AFTER_BUNDLE, 0 };

	br->gitd_done = 1;
	br->gitd_ok = ok;
	if (!ok)
		(void)strlcpy(br->err, err, sizeof(br->err));
	if (!ok || !br->have_r || !br->r.ok)
		bridge_kill(br);
	else if (!br->exec_done) {
		evtimer_set(&br->timer, bridge_expired, br);
		if (evtimer_add(&br->timer, &tv) == 0)
			br->timer_on = 1;
	}
	bridge_finish(br);
}

static void
bridge_keep(struct bridge *br, int i, int fd)
{
	br->fd[i] = fd;
	event_set(&br->ev[i], fd, EV_READ | EV_PERSIST, bridge_read, br);
	if (event_add(&br->ev[i], NULL) == -1) {
		close(fd);
		br->fd[i] = -1;
	}
}

static void
exec_msg(struct req *r, struct imsg *imsg)
{
	struct bridge		*br = r->arg;
	struct jb_exec_fd	 f;
	struct jb_exit		 x;
	int			 fd, dup_fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_EXEC_FD:
		if (imsg_get_data(imsg, &f, sizeof(f)) == -1 ||
		    (f.which != 0 && f.which != 2))
			fatalx("jb-incus: malformed EXEC_FD");
		if ((fd = imsg_get_fd(imsg)) == -1)
			return;
		if (f.which == 2 && br->fd[1] == -1)
			bridge_keep(br, 1, fd);
		else if (f.which == 0 && !br->gitd_sent) {
			/*
			 * one end to jb-gitd, which writes; this one is
			 * held, and read, until the exec ends, so that the
			 * writer's end is an end of input, not a hang-up
			 */
			if ((dup_fd = dup(fd)) == -1) {
				close(fd);
				(void)snprintf(br->err, sizeof(br->err),
				    "dup: %s", strerror(errno));
				bridge_kill(br);
				return;
			}
			bridge_keep(br, 0, dup_fd);
			br->gitd_sent = 1;
			if (req_send(PROC_GITD, IMSG_GITD_BUNDLE, &br->b,
			    sizeof(br->b), fd, gitd_msg, gitd_done, br) ==
			    NULL) {
				br->gitd_done = 1;
				(void)strlcpy(br->err, "cannot reach jb-gitd",
				    sizeof(br->err));
				bridge_kill(br);
			}
		} else
			close(fd);
		break;
	case IMSG_INCUS_EXIT:
		if (imsg_get_data(imsg, &x, sizeof(x)) == -1)
			fatalx("jb-incus: malformed EXIT");
		br->status = x.status;
		br->exited = 1;
		break;
	case IMSG_PROGRESS:
		break;
	default:
		fatalx("jb-incus: unexpected %s in the clone's exec",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

static void
exec_done(struct req *r, int ok, const char *err)
{
	struct bridge	*br = r->arg;

	br->exec_done = 1;
	br->exec = NULL;
	br->exec_ok = ok;
	if (!ok && br->err[0] == '\0')
		(void)strlcpy(br->err, err, sizeof(br->err));
	bridge_finish(br);
}

/* as the dev user: what comes on stdin, into the bundle's file */
static const char store_script[] =
    "umask 077\n"
    "exec cat > \"$1\"\n";

void
clone_bridge(struct job *job, const char *name, const char *toplevel,
    const char *branch, clone_bridge_cb cb)
{
	struct bridge		*br;
	struct jb_incus_exec	*q;
	size_t			 off = 0, eoff = 0;
	int			 bad = 0;

	if ((br = calloc(1, sizeof(*br))) == NULL ||
	    (q = calloc(1, sizeof(*q))) == NULL) {
		free(br);
		cb(job, 0, "out of memory");
		return;
	}
	br->job = job;
	br->cb = cb;
	br->fd[0] = br->fd[1] = -1;
	(void)strlcpy(br->b.toplevel, toplevel, sizeof(br->b.toplevel));
	(void)strlcpy(br->b.branch, branch, sizeof(br->b.branch));
	br->b.timeout = BUNDLE_TIMEOUT;
	(void)strlcpy(q->name, name, sizeof(q->name));
	q->uid = env->owner_uid;
	q->gid = env->owner_gid;
	(void)strlcpy(q->cwd, "/home/dev", sizeof(q->cwd));
	bad |= ARG("/bin/sh");
	bad |= ARG("-c");
	bad |= ARG(store_script);
	bad |= ARG("jailbee-bundle");
	bad |= ARG(CLONE_BUNDLE_PATH);
	bad |= ENV("HOME=/home/dev");
	bad |= ENV("USER=dev");
	if (bad) {
		free(q);
		free(br);
		cb(job, 0, "the command line is too long");
		return;
	}
	br->exec = req_send(PROC_INCUS, IMSG_INCUS_EXEC, q, sizeof(*q), -1,
	    exec_msg, exec_done, br);
	free(q);
	if (br->exec == NULL) {
		free(br);
		cb(job, 0, "cannot reach jb-incus");
	}
}
