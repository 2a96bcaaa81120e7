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
 * SFTP_EXECS execs run at once across all sessions, SFTP_PER_CTR in one
 * container and SFTP_PER_SESSION for one session; the rest wait in
 * order.  The exec's stdio goes to the session, which streams a file
 * through it.  An exec is ended here when its session leaves, when the
 * session has let its stream go, or (an operation that is not a
 * stream) when it runs past SFTP_OP_SECS.
 *
 * One journal line per operation, once both its exec has ended and the
 * session has said what it told the client: what was decided is what
 * the client was told, with the exec's exit status and the bytes
 * relayed beside it; the helper in the container has no say in it.
 * Refusals are journalled up to remote.ssh.refusals_per_minute per key
 * and minute, then one line says the rest of that minute's are not.
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
#include "testhook.h"

#define SFTP_EXECS	16	/* container operations at once, all sessions */
#define SFTP_PER_CTR	8	/* ... in one container */
#define SFTP_PER_SESSION 4	/* ... for one session */
#define SFTP_SESSION_OPS 32	/* one session's requests not yet ended */
#define SFTP_WAIT_SECS	300	/* a request waits for a slot this long */
#define SFTP_OP_SECS	jb_test_secs(60, 10) /* a non-stream exec's life */
#define SFTP_LETGO_SECS	5	/* a stream let go ends in this time */
#define SFTP_KEYS	256	/* keys whose refusals are counted */
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
	int			 slot;		/* counted in the caps */
	int			 ended;		/* the exec is over */
	int			 told;		/* RESULT came from the session */
	int32_t			 told_code;
	uint64_t		 bytes;
	struct req		*req;		/* the exec, to end it */
	struct event		 kill_ev;
	int			 kill_set;
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
static void	slot_free(struct sftpop *);
static void	slots_give(void);

/* refusals per key and minute, for the journal */
static struct keyrate {
	char	 fp[64];
	time_t	 minute;
	int	 n;
} keyrates[SFTP_KEYS];

/* 1: journal this refusal; 0: the key is past its limit this minute */
static int
refusal_counted(struct sftpop *o)
{
	struct keyrate	*k = NULL;
	struct audit_rec r;
	time_t		 minute = time(NULL) / 60;
	int		 i, old = 0;

	for (i = 0; i < SFTP_KEYS; i++) {
		if (strcmp(keyrates[i].fp, o->fp) == 0) {
			k = &keyrates[i];
			break;
		}
		if (keyrates[i].minute < keyrates[old].minute)
			old = i;
	}
	if (k == NULL) {
		k = &keyrates[old];
		memset(k, 0, sizeof(*k));
		strlcpy(k->fp, o->fp, sizeof(k->fp));
	}
	if (k->minute != minute) {
		k->minute = minute;
		k->n = 0;
	}
	if (++k->n <= env->conf.ssh_refusals_per_min)
		return 1;
	if (k->n == env->conf.ssh_refusals_per_min + 1) {
		memset(&r, 0, sizeof(r));
		r.actor = o->fp[0] != '\0' ? o->fp : "ssh";
		r.action = "sftp.rate";
		r.decision = "refuse";
		r.reason = "refusals_per_minute: this key's further refused "
		    "SFTP operations this minute are not journalled";
		audit_str(&r, "src", o->addr);
		audit_num(&r, "port", o->port);
		audit_str(&r, "route", "sftp");
		audit_num(&r, "limit", env->conf.ssh_refusals_per_min);
		audit_write(&r);
	}
	return 0;
}

/* as root at start: the binary jb-incus pushes, and its name there */
void
sftp_init(void)
{
	/* small: every page of a stack frame is touched, and kept */
	char		 buf[4096];
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

	if (strcmp(decision, "refuse") == 0 && !refusal_counted(o))
		return;
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
	if (o->ended) {
		/* what was seen here: the exec's end and the session's word */
		audit_num(&r, "exit", o->got_exit ? o->status : -1);
		if (o->told) {
			audit_num(&r, "told", o->told_code);
			audit_num(&r, "bytes", (long long)o->bytes);
		}
	}
	audit_write(&r);
}

/* o ends; a slot it held goes to one that waits */
static void
op_free(struct sftpop *o)
{
	int	had = o->slot;

	if (o->kill_set)
		evtimer_del(&o->kill_ev);
	if (o->waiting)
		TAILQ_REMOVE(&waiting, o, entry);
	else
		TAILQ_REMOVE(&all_ops, o, entry);
	free(o);
	if (had) {
		nrunning--;
		slots_give();
	}
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

/* the slots o's container and o's session hold */
static void
slots_of(const struct sftpop *o, int *ctr, int *sess)
{
	struct sftpop	*x;

	*ctr = *sess = 0;
	TAILQ_FOREACH(x, &all_ops, entry) {
		if (!x->slot)
			continue;
		if (strcmp(x->ctr, o->ctr) == 0)
			(*ctr)++;
		if (o->s != NULL && x->s == o->s)
			(*sess)++;
	}
}

static int
slot_open(const struct sftpop *o)
{
	int	ctr, sess;

	if (nrunning >= SFTP_EXECS)
		return 0;
	slots_of(o, &ctr, &sess);
	return ctr < SFTP_PER_CTR && sess < SFTP_PER_SESSION;
}

static void
slot_take(struct sftpop *o)
{
	nrunning++;
	o->slot = 1;
}

/* free slots go to the first that wait and may have one */
static void
slots_give(void)
{
	struct sftpop	*w;

	while (nrunning < SFTP_EXECS) {
		TAILQ_FOREACH(w, &waiting, entry)
			if (w->s != NULL && slot_open(w))
				break;
		if (w == NULL)
			return;
		TAILQ_REMOVE(&waiting, w, entry);
		w->waiting = 0;
		TAILQ_INSERT_TAIL(&all_ops, w, entry);
		slot_take(w);
		op_start(w);
	}
}

static void
slot_free(struct sftpop *o)
{
	if (!o->slot)
		return;
	o->slot = 0;
	nrunning--;
	slots_give();
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

/* the decision and reason for o's line, from what was seen here */
static void
journal_ended(struct sftpop *o)
{
	char		 why[160];
	const char	*decision = "accept";
	int		 code;

	why[0] = '\0';
	if (!o->told) {
		/* the session left before it said what the client was told */
		snprintf(why, sizeof(why), "the session left");
	} else if ((code = o->told_code) == 0) {
		if (o->got_exit && o->status > 128)
			/* a read stream the client closed before its end */
			snprintf(why, sizeof(why), "closed by the client");
		else if (o->got_exit && o->status != 0)
			snprintf(why, sizeof(why), "the helper's exit status "
			    "was %d", o->status);
	} else if (code == EXDEV) {
		/* RESOLVE_BENEATH: "..", an absolute or escaping link */
		decision = "refuse";
		snprintf(why, sizeof(why), "path leaves the repository");
	} else if (code == ENXIO) {
		decision = "refuse";
		snprintf(why, sizeof(why), "not a regular file");
	} else if (o->got_exit && o->status > 128)
		/* a read stream the client closed before its end */
		snprintf(why, sizeof(why), "closed by the client");
	else if (!o->got_exit)
		snprintf(why, sizeof(why), "failed: the exec failed");
	else
		snprintf(why, sizeof(why), "failed: %s", strerror(code));
	journal_op(o, decision, why[0] ? why : NULL);
}

static void
kill_fire(int fd, short ev, void *arg)
{
	struct sftpop	*o = arg;

	o->kill_set = 0;
	if (o->running == 1 && o->req != NULL) {
		log_warnx("sftp %s: %s: ending its exec", o->ctr,
		    o->s == NULL ? "the session left" : o->told ?
		    "its stream was let go" : "it ran too long");
		(void)req_send_to(o->req, IMSG_INCUS_EXEC_KILL, NULL, 0);
	}
}

/* end o's exec in secs seconds unless it ends by itself */
static void
kill_in(struct sftpop *o, int secs)
{
	struct timeval	tv = { secs, 0 };

	if (o->running != 1)
		return;
	if (o->kill_set)
		evtimer_del(&o->kill_ev);
	evtimer_set(&o->kill_ev, kill_fire, o);
	evtimer_add(&o->kill_ev, &tv);
	o->kill_set = 1;
}

static void
exec_done(struct req *r, int ok, const char *err)
{
	struct sftpop	*o = r->arg;
	int		 code;

	o->running = 0;
	o->req = NULL;
	o->ended = 1;
	if (o->kill_set) {
		evtimer_del(&o->kill_ev);
		o->kill_set = 0;
	}
	if (!ok || !o->got_exit) {
		if (ok)
			err = "no exit status";
		log_warnx("sftp %s: %s", o->ctr, err);
		o->got_exit = 0;
		code = EIO;
	} else if ((code = o->status) == 127) {
		/* jb-sftp gone (deleted in the container): pushed anew next */
		int	i;

		for (i = 0; i < SFTP_PUSHED_MAX; i++)
			if (strcmp(pushed[i].name, o->ctr) == 0)
				pushed[i].state = 0;
		code = EIO;
	}
	send_done(o, 0, code, NULL);
	slot_free(o);
	/* journalled once the session has said what the client was told */
	if (o->told || o->s == NULL) {
		journal_ended(o);
		op_free(o);
	}
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

	if (o->s == NULL) {
		/* the session left while it waited: nothing is run for it */
		refuse(o, EIO, "session closed");
		return;
	}
	if ((q = calloc(1, sizeof(*q))) == NULL) {
		refuse(o, ENOMEM, "out of memory");
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
		return;
	}
	o->running = 1;
	if ((o->req = req_send(PROC_INCUS, IMSG_INCUS_EXEC, q, sizeof(*q), -1,
	    exec_msg, exec_done, o)) == NULL) {
		o->running = 0;
		refuse(o, EIO, "cannot reach jb-incus");
	} else if (o->q.op != SFTPOP_READ && o->q.op != SFTPOP_WRITE)
		kill_in(o, SFTP_OP_SECS);
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
		return;
	}
	p->state = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_SFTP_HELPER, &t, sizeof(t), fd,
	    NULL, push_done, o) == NULL) {
		p->state = 0;
		refuse(o, EIO, "cannot reach jb-incus");
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
	if (!slot_open(o)) {
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
	slot_take(o);
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
	struct sftpop		*o, *x;
	char			 ctr2[JB_INSTANCE_MAX];
	const char		*why;
	int			 kind, kind2 = SFTPPATH_IN, n;

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
	n = 0;
	TAILQ_FOREACH(x, &all_ops, entry)
		n += x->s == s;
	TAILQ_FOREACH(x, &waiting, entry)
		n += x->s == s;
	strlcpy(o->addr, addr, sizeof(o->addr));
	o->port = port;
	strlcpy(o->fp, fp, sizeof(o->fp));
	TAILQ_INSERT_TAIL(&all_ops, o, entry);

	if (n >= SFTP_SESSION_OPS) {
		(void)sftppath_split(o->q.path, o->ctr, sizeof(o->ctr), o->rel,
		    sizeof(o->rel), &why);
		refuse(o, EBUSY, "too many operations at once");
		return 0;
	}
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

/*
 * The session's account of a run operation: what the client was told
 * and how many bytes it relayed.  The stream is let go: an exec still
 * running is ended soon.  -1: malformed (the session is dropped).
 */
int
sftp_result(struct sshsess *s, struct imsg *imsg)
{
	struct jb_sftp_result	 res;
	struct sftpop		*o;

	if (imsg_get_data(imsg, &res, sizeof(res)) == -1)
		return -1;
	TAILQ_FOREACH(o, &all_ops, entry)
		if (o->s == s && o->q.id == res.id && !o->told &&
		    (o->running == 1 || o->ended))
			break;
	if (o == NULL)
		return 0;	/* refused, or already journalled */
	o->told = 1;
	o->told_code = res.code;
	o->bytes = res.bytes;
	if (o->ended) {
		journal_ended(o);
		op_free(o);
	} else
		kill_in(o, SFTP_LETGO_SECS);
	return 0;
}

/* the session left: its requests end without it, its execs are ended */
void
sftp_session_gone(struct sshsess *s)
{
	struct sftpop	*o, *next;

	TAILQ_FOREACH(o, &waiting, entry)
		if (o->s == s)
			o->s = NULL;
	TAILQ_FOREACH_SAFE(o, &all_ops, entry, next) {
		if (o->s != s)
			continue;
		o->s = NULL;
		if (o->ended) {
			journal_ended(o);
			op_free(o);
		} else if (o->running == 1)
			kill_in(o, 0);
	}
}
