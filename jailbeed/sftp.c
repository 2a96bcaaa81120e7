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
 * The parent's side of SFTP.  jb-sshd's session parses the
 * protocol with libssh and sends one request per operation; nothing it
 * says is believed.  Here each path is judged again (sftppath.c), the
 * container looked up (running, the suite's, not --mount, not in
 * excluded_repos), and the operation run as one exec of jb-sftp in the
 * container as the dev user, its inputs as arguments.  At most
 * SFTP_EXECS execs run at once across all sessions; the rest wait in
 * order.  The exec's stdio goes to the session, which streams a file
 * through it; when the exec ends, one journal line says how.
 */

#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditrec.h"
#include "jailbeed.h"
#include "jobs.h"
#include "log.h"
#include "sftppath.h"
#include "sftprec.h"

#define SFTP_EXECS	8	/* container operations at once, all sessions */
#define SFTP_WAIT_SECS	300	/* a request waits for a slot this long */
#define SFTP_PUSHED_MAX	256

static const char *const op_names[SFTPOP_MAX] = {
	[SFTPOP_STAT] = "stat", [SFTPOP_LSTAT] = "lstat",
	[SFTPOP_LIST] = "list", [SFTPOP_READLINK] = "readlink",
	[SFTPOP_READ] = "read", [SFTPOP_WRITE] = "write",
	[SFTPOP_SETSTAT] = "setstat", [SFTPOP_MKDIR] = "mkdir",
	[SFTPOP_RMDIR] = "rmdir", [SFTPOP_REMOVE] = "remove",
	[SFTPOP_RENAME] = "rename", [SFTPOP_POSIX_RENAME] = "posix-rename",
	[SFTPOP_SYMLINK] = "symlink", [SFTPOP_HARDLINK] = "hardlink",
	[SFTPOP_OTHER] = "unsupported",
};

struct sftpop {
	TAILQ_ENTRY(sftpop)	 entry;		/* all, or the waiting */
	struct sshsess		*s;		/* NULL: the session left */
	struct jb_sftp_op	 q;
	char			 ctr[JB_INSTANCE_MAX];
	char			 rel[JB_SFTP_PATH_MAX];
	char			 rel2[JB_SFTP_PATH_MAX];
	struct jb_instance	 in;
	int			 found;
	int			 waiting;
	int			 running;	/* holds a slot */
	int			 status;
	int			 got_exit;
	int			 running_at;	/* execs running when it began */
	time_t			 since;
	/* who, for the journal, kept in case the session goes first */
	char			 addr[48];
	uint32_t		 port;
	char			 fp[64];
};

TAILQ_HEAD(sftpops, sftpop);
static struct sftpops	 all_ops = TAILQ_HEAD_INITIALIZER(all_ops);
static struct sftpops	 waiting = TAILQ_HEAD_INITIALIZER(waiting);
static int		 nrunning;
static int		 helper_fd = -1;
static char		 helper_path[64];
static struct event	 wait_ev;
static int		 wait_ev_set;

/* containers jb-sftp was pushed to (name, created): pushing is serial */
static struct pushed {
	char	name[JB_INSTANCE_MAX];
	int64_t	created;
	int	state;		/* 1 pushing, 2 there */
} pushed[SFTP_PUSHED_MAX];

static void	op_start(struct sftpop *);
static void	op_exec(struct sftpop *);

/* as root at start: the binary jb-incus pushes, and its name there */
void
sftp_init(void)
{
	char		 buf[65536];
	uint64_t	 h = 1469598103934665603ULL;
	ssize_t		 n, i;

	if ((helper_fd = open(LIBEXECDIR "/jb-sftp", O_RDONLY | O_CLOEXEC))
	    == -1) {
		log_warn("sftp: %s/jb-sftp", LIBEXECDIR);
		return;
	}
	/* its name says its version: a new one never overwrites a running one */
	while ((n = read(helper_fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
	snprintf(helper_path, sizeof(helper_path), "/usr/local/lib/jb-sftp-%016"
	    PRIx64, h);
}

static void
journal_op(struct sftpop *o, const char *decision, const char *reason)
{
	struct audit_rec	 r;
	char			 action[32];
	const char		*op = o->q.op < SFTPOP_MAX ? op_names[o->q.op] :
				    "unsupported";

	memset(&r, 0, sizeof(r));
	(void)snprintf(action, sizeof(action), "sftp.%s", op);
	r.actor = o->fp[0] != '\0' ? o->fp : "ssh";
	r.container = o->ctr;
	r.repo = o->in.prefix;
	r.action = action;
	r.decision = decision;
	r.reason = reason;
	audit_str(&r, "src", o->addr);
	audit_num(&r, "port", o->port);
	audit_str(&r, "route", "sftp");
	audit_str(&r, "command", op);
	audit_str(&r, "path", o->q.path);
	if (o->q.op == SFTPOP_RENAME || o->q.op == SFTPOP_POSIX_RENAME ||
	    o->q.op == SFTPOP_SYMLINK || o->q.op == SFTPOP_HARDLINK)
		audit_str(&r, "new_path", o->q.path2);
	if (o->running_at > 0)
		audit_num(&r, "running", o->running_at);
	audit_write(&r);
}

static void
op_free(struct sftpop *o)
{
	if (o->waiting)
		TAILQ_REMOVE(&waiting, o, entry);
	else
		TAILQ_REMOVE(&all_ops, o, entry);
	free(o);
}

static void
send_done(struct sftpop *o, int refused, int code, const char *text)
{
	struct jb_sftp_done	d;

	if (o->s == NULL)
		return;
	memset(&d, 0, sizeof(d));
	d.id = o->q.id;
	d.refused = refused;
	d.code = code;
	if (text != NULL)
		strlcpy(d.text, text, sizeof(d.text));
	(void)sshd_raw(o->s, IMSG_SSHD_SFTP_DONE, &d, sizeof(d), -1);
}

/* refused here: journalled, and the session told; code an errno */
static void
refuse(struct sftpop *o, int code, const char *why)
{
	journal_op(o, "refuse", why);
	send_done(o, 1, code, why);
	op_free(o);
}

static void
slot_free(void)
{
	struct sftpop	*o;

	nrunning--;
	if ((o = TAILQ_FIRST(&waiting)) != NULL) {
		/* the slot goes to the first that waits */
		TAILQ_REMOVE(&waiting, o, entry);
		o->waiting = 0;
		TAILQ_INSERT_TAIL(&all_ops, o, entry);
		nrunning++;
		op_start(o);
	}
}

static void
wait_check(int fd, short ev, void *arg)
{
	struct timeval	 tv = { 1, 0 };
	struct sftpop	*o, *next;
	time_t		 now = time(NULL);

	wait_ev_set = 0;
	TAILQ_FOREACH_SAFE(o, &waiting, entry, next)
		if (o->s == NULL || now - o->since > SFTP_WAIT_SECS)
			refuse(o, EBUSY, o->s == NULL ? "session closed" :
			    "too many container operations at once");
	if (!TAILQ_EMPTY(&waiting)) {
		evtimer_add(&wait_ev, &tv);
		wait_ev_set = 1;
	}
}

static void
exec_msg(struct req *r, struct imsg *imsg)
{
	struct sftpop		*o = r->arg;
	struct jb_exec_fd	 f;
	struct jb_sftp_done	 d;
	struct jb_exit		 x;
	int			 fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_EXEC_FD:
		if (imsg_get_data(imsg, &f, sizeof(f)) == -1 ||
		    (f.which != 0 && f.which != 2))
			fatalx("jb-incus: malformed EXEC_FD");
		if ((fd = imsg_get_fd(imsg)) == -1)
			return;
		if (f.which != 0 || o->s == NULL) {
			close(fd);
			return;
		}
		memset(&d, 0, sizeof(d));
		d.id = o->q.id;
		(void)sshd_raw(o->s, IMSG_SSHD_SFTP_FD, &d, sizeof(d), fd);
		break;
	case IMSG_INCUS_EXIT:
		if (imsg_get_data(imsg, &x, sizeof(x)) == -1)
			fatalx("jb-incus: malformed EXIT");
		o->got_exit = 1;
		o->status = x.status;
		break;
	default:
		break;
	}
}

static void
exec_done(struct req *r, int ok, const char *err)
{
	struct sftpop	*o = r->arg;
	char		 why[160];
	int		 code;

	o->running = 0;
	if (!ok || !o->got_exit) {
		log_warnx("sftp %s: %s", o->ctr, err);
		code = EIO;
		snprintf(why, sizeof(why), "failed: the exec failed");
	} else if ((code = o->status) == 0)
		why[0] = '\0';
	else if (code == 127) {
		/* jb-sftp gone (deleted in the container): pushed anew next */
		int	i;

		for (i = 0; i < SFTP_PUSHED_MAX; i++)
			if (strcmp(pushed[i].name, o->ctr) == 0)
				pushed[i].state = 0;
		snprintf(why, sizeof(why), "failed: jb-sftp missing");
		code = EIO;
	} else if (code > 128)
		/* a read stream the client closed before its end */
		snprintf(why, sizeof(why), "closed by the client");
	else if (code == EXDEV)
		/* RESOLVE_BENEATH: "..", an absolute or escaping link */
		snprintf(why, sizeof(why), "path leaves the repository");
	else
		snprintf(why, sizeof(why), "failed: %s", strerror(code));
	journal_op(o, code == EXDEV ? "refuse" : "accept", why[0] ? why : NULL);
	send_done(o, 0, code, NULL);
	op_free(o);
	slot_free();
}

static void
op_exec(struct sftpop *o)
{
	struct jb_incus_exec	*q;
	char			 root[PATH_MAX], n[5][32];
	size_t			 off = 0, eoff = 0;
	int			 bad = 0, i;
	const char		*envs[] = { "HOME=/home/dev", "USER=dev",
				    "LOGNAME=dev", "LC_ALL=C.UTF-8" };

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		refuse(o, ENOMEM, "out of memory");
		slot_free();
		return;
	}
	strlcpy(q->name, o->ctr, sizeof(q->name));
	q->uid = env->owner_uid;
	q->gid = env->owner_gid;
	strlcpy(q->cwd, "/", sizeof(q->cwd));
	snprintf(root, sizeof(root), "/home/dev/%s", o->in.prefix);
	bad |= ARG(helper_path);
	bad |= ARG(op_names[o->q.op]);
	bad |= ARG(root);
	bad |= ARG(o->rel);
	switch (o->q.op) {
	case SFTPOP_READ:
		snprintf(n[0], sizeof(n[0]), "%" PRId64, o->q.offset);
		bad |= ARG(n[0]);
		break;
	case SFTPOP_WRITE:
		snprintf(n[0], sizeof(n[0]), "%u", o->q.flags & 0x1f);
		snprintf(n[1], sizeof(n[1]), "%u", o->q.mode & 0777);
		bad |= ARG(n[0]) | ARG(n[1]);
		break;
	case SFTPOP_MKDIR:
		snprintf(n[0], sizeof(n[0]), "%u", o->q.mode & 0777);
		bad |= ARG(n[0]);
		break;
	case SFTPOP_SETSTAT:
		snprintf(n[0], sizeof(n[0]), "%u", o->q.flags & 0x7);
		snprintf(n[1], sizeof(n[1]), "%" PRId64, o->q.size);
		snprintf(n[2], sizeof(n[2]), "%u", o->q.mode & 07777);
		snprintf(n[3], sizeof(n[3]), "%" PRId64, o->q.atime);
		snprintf(n[4], sizeof(n[4]), "%" PRId64, o->q.mtime);
		for (i = 0; i < 5; i++)
			bad |= ARG(n[i]);
		break;
	case SFTPOP_RENAME:
	case SFTPOP_POSIX_RENAME:
		bad |= ARG(o->rel2);
		break;
	}
	for (i = 0; i < 4; i++)
		bad |= ENV(envs[i]);
	if (bad) {
		free(q);
		refuse(o, ENAMETOOLONG, "path too long");
		slot_free();
		return;
	}
	o->running = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_EXEC, q, sizeof(*q), -1,
	    exec_msg, exec_done, o) == NULL) {
		o->running = 0;
		refuse(o, EIO, "cannot reach jb-incus");
		slot_free();
	}
	free(q);
}

static struct pushed *
push_slot(struct sftpop *o)
{
	int	i, free_i = -1;

	for (i = 0; i < SFTP_PUSHED_MAX; i++) {
		if (strcmp(pushed[i].name, o->ctr) == 0 &&
		    pushed[i].created == o->in.created)
			return &pushed[i];
		if (free_i == -1 && pushed[i].state != 1 &&
		    (pushed[i].name[0] == '\0' || i == SFTP_PUSHED_MAX - 1))
			free_i = i;
	}
	if (free_i == -1)
		free_i = 0;
	memset(&pushed[free_i], 0, sizeof(pushed[free_i]));
	strlcpy(pushed[free_i].name, o->ctr, sizeof(pushed[free_i].name));
	pushed[free_i].created = o->in.created;
	return &pushed[free_i];
}

static void
push_done(struct req *r, int ok, const char *err)
{
	struct sftpop	*o = r->arg, *w, *next;
	struct pushed	*p = push_slot(o);

	p->state = ok ? 2 : 0;
	if (!ok) {
		log_warnx("sftp: jb-sftp into %s: %s", o->ctr, err);
		refuse(o, EIO, "cannot install jb-sftp in the container");
		slot_free();
	} else
		op_exec(o);
	/* the others that waited for this push */
	TAILQ_FOREACH_SAFE(w, &all_ops, entry, next)
		if (w->running == 2 && strcmp(w->ctr, p->name) == 0) {
			w->running = 0;
			if (ok)
				op_exec(w);
			else {
				refuse(w, EIO, "cannot install jb-sftp in the "
				    "container");
				slot_free();
			}
		}
}

/* it holds a slot: make sure jb-sftp is there, then run it */
static void
op_start(struct sftpop *o)
{
	struct jb_incus_target	 t;
	struct pushed		*p = push_slot(o);
	int			 fd;

	o->running_at = nrunning;
	if (p->state == 2) {
		op_exec(o);
		return;
	}
	if (p->state == 1) {
		o->running = 2;		/* waits for the push under way */
		return;
	}
	memset(&t, 0, sizeof(t));
	strlcpy(t.name, o->ctr, sizeof(t.name));
	strlcpy(t.prefix, helper_path, sizeof(t.prefix));
	if ((fd = dup(helper_fd)) == -1) {
		refuse(o, EIO, "cannot install jb-sftp in the container");
		slot_free();
		return;
	}
	p->state = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_SFTP_HELPER, &t, sizeof(t), fd,
	    NULL, push_done, o) == NULL) {
		p->state = 0;
		refuse(o, EIO, "cannot reach jb-incus");
		slot_free();
	}
}

static void
root_found(struct req *r, struct imsg *imsg)
{
	struct sftpop		*o = r->arg;
	struct jb_instance	 in;
	struct jb_sftp_name	 n;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &in, sizeof(in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	in.name[sizeof(in.name) - 1] = '\0';
	in.prefix[sizeof(in.prefix) - 1] = '\0';
	in.state[sizeof(in.state) - 1] = '\0';
	in.mode[sizeof(in.mode) - 1] = '\0';
	if (o->s == NULL || in.prefix[0] == '\0' ||
	    strcmp(in.state, "Running") != 0 ||
	    strcmp(in.mode, "mount") == 0 || sshd_excluded(o->s, in.prefix))
		return;
	memset(&n, 0, sizeof(n));
	n.id = o->q.id;
	strlcpy(n.name, in.name, sizeof(n.name));
	(void)sshd_raw(o->s, IMSG_SSHD_SFTP_NAME, &n, sizeof(n), -1);
}

static void
root_done(struct req *r, int ok, const char *err)
{
	struct sftpop	*o = r->arg;

	send_done(o, !ok, ok ? 0 : EIO, ok ? NULL : "cannot list containers");
	op_free(o);
}

static void
ctr_found(struct req *r, struct imsg *imsg)
{
	struct sftpop	*o = r->arg;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &o->in, sizeof(o->in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	o->in.name[sizeof(o->in.name) - 1] = '\0';
	o->in.prefix[sizeof(o->in.prefix) - 1] = '\0';
	o->in.state[sizeof(o->in.state) - 1] = '\0';
	o->in.mode[sizeof(o->in.mode) - 1] = '\0';
	o->found = strcmp(o->in.name, o->ctr) == 0;
}

/* the one same answer for every container that is not there */
static void
ctr_done(struct req *r, int ok, const char *err)
{
	struct sftpop	*o = r->arg;
	struct timeval	 tv = { 1, 0 };
	const char	*why = NULL;

	if (o->s == NULL)
		why = "session closed";
	else if (!ok || !o->found || o->in.prefix[0] == '\0')
		why = "no such container";
	else if (sshd_excluded(o->s, o->in.prefix))
		why = "no such container (excluded_repos)";
	else if (strcmp(o->in.mode, "mount") == 0)
		why = "no such container (--mount)";
	else if (strcmp(o->in.state, "Running") != 0)
		why = "no such container (not running)";
	else if (!ok)
		why = "no such container";
	if (why != NULL) {
		if (!o->found || o->in.prefix[0] == '\0' ||
		    sshd_excluded(o->s, o->in.prefix))
			o->in.prefix[0] = '\0';
		refuse(o, ENOENT, why);
		return;
	}
	if (helper_fd == -1) {
		refuse(o, EIO, "jb-sftp is not installed");
		return;
	}
	if (nrunning >= SFTP_EXECS) {
		TAILQ_REMOVE(&all_ops, o, entry);
		TAILQ_INSERT_TAIL(&waiting, o, entry);
		o->waiting = 1;
		o->since = time(NULL);
		if (!wait_ev_set) {
			evtimer_set(&wait_ev, wait_check, NULL);
			evtimer_add(&wait_ev, &tv);
			wait_ev_set = 1;
		}
		return;
	}
	nrunning++;
	op_start(o);
}

static int
writes(uint32_t op)
{
	return op == SFTPOP_WRITE || op == SFTPOP_SETSTAT ||
	    op == SFTPOP_MKDIR || op == SFTPOP_RMDIR || op == SFTPOP_REMOVE ||
	    op == SFTPOP_RENAME || op == SFTPOP_POSIX_RENAME ||
	    op == SFTPOP_SYMLINK || op == SFTPOP_HARDLINK;
}

/* -1: a malformed request (the session is dropped) */
int
sftp_request(struct sshsess *s, struct imsg *imsg, const char *addr,
    uint32_t port, const char *fp)
{
	struct jb_incus_target	 t;
	struct sftpop		*o;
	char			 ctr2[JB_INSTANCE_MAX];
	const char		*why;
	int			 kind, kind2 = SFTPPATH_IN;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return -1;
	if (imsg_get_data(imsg, &o->q, sizeof(o->q)) == -1 ||
	    o->q.op == SFTPOP_NONE || o->q.op >= SFTPOP_MAX) {
		free(o);
		return -1;
	}
	o->q.path[sizeof(o->q.path) - 1] = '\0';
	o->q.path2[sizeof(o->q.path2) - 1] = '\0';
	o->s = s;
	strlcpy(o->addr, addr, sizeof(o->addr));
	o->port = port;
	strlcpy(o->fp, fp, sizeof(o->fp));
	TAILQ_INSERT_TAIL(&all_ops, o, entry);

	/* never, whatever the paths */
	if (o->q.op == SFTPOP_SYMLINK || o->q.op == SFTPOP_HARDLINK) {
		(void)sftppath_split(o->q.path, o->ctr, sizeof(o->ctr), o->rel,
		    sizeof(o->rel), &why);
		refuse(o, EPERM, "links cannot be created");
		return 0;
	}
	if ((kind = sftppath_split(o->q.path, o->ctr, sizeof(o->ctr), o->rel,
	    sizeof(o->rel), &why)) == -1) {
		refuse(o, EPERM, why);
		return 0;
	}
	if (o->q.op == SFTPOP_RENAME || o->q.op == SFTPOP_POSIX_RENAME) {
		if ((kind2 = sftppath_split(o->q.path2, ctr2, sizeof(ctr2),
		    o->rel2, sizeof(o->rel2), &why)) == -1) {
			refuse(o, EPERM, why);
			return 0;
		}
	}
	if (o->q.op == SFTPOP_OTHER) {
		refuse(o, EOPNOTSUPP, "operation not supported");
		return 0;
	}
	if (kind == SFTPPATH_ROOT && o->q.op == SFTPOP_LIST) {
		memset(&t, 0, sizeof(t));
		if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
		    root_found, root_done, o) == NULL)
			refuse(o, EIO, "cannot reach jb-incus");
		return 0;
	}
	if (kind == SFTPPATH_ROOT) {
		refuse(o, EPERM, writes(o->q.op) ?
		    "the top of the tree is read-only" : "not a file");
		return 0;
	}
	if (writes(o->q.op) && (kind == SFTPPATH_TOP || kind2 != SFTPPATH_IN)) {
		refuse(o, EPERM, "the top of the tree is read-only");
		return 0;
	}
	if ((o->q.op == SFTPOP_RENAME || o->q.op == SFTPOP_POSIX_RENAME) &&
	    strcmp(o->ctr, ctr2) != 0) {
		refuse(o, EXDEV, "no rename between containers");
		return 0;
	}
	if (o->q.op == SFTPOP_READ && (o->q.offset < 0 ||
	    o->q.offset > SFTPREC_FILE_MAX)) {
		refuse(o, EINVAL, "offset out of range");
		return 0;
	}
	if (o->q.op == SFTPOP_SETSTAT && (o->q.flags & SFTPREC_SET_SIZE) &&
	    (o->q.size < 0 || o->q.size > SFTPREC_FILE_MAX)) {
		refuse(o, EFBIG, "a file cannot grow past 2 GiB");
		return 0;
	}
	if (o->q.op == SFTPOP_SETSTAT && (o->q.atime < 0 || o->q.mtime < 0)) {
		refuse(o, EINVAL, "time out of range");
		return 0;
	}
	memset(&t, 0, sizeof(t));
	strlcpy(t.name, o->ctr, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    ctr_found, ctr_done, o) == NULL)
		refuse(o, EIO, "cannot reach jb-incus");
	return 0;
}

/* the session left: its requests end without it */
void
sftp_session_gone(struct sshsess *s)
{
	struct sftpop	*o;

	TAILQ_FOREACH(o, &all_ops, entry)
		if (o->s == s)
			o->s = NULL;
	TAILQ_FOREACH(o, &waiting, entry)
		if (o->s == s)
			o->s = NULL;
}
