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
 * The control socket: jbctl's only way in.  The socket file is the
 * owner's, mode 0600, and every connection is checked again with
 * SO_PEERCRED: only the owner or root may talk to the suite; anyone else
 * is refused and logged.  A client passes an fd in only when a jbctl
 * reload asked it for a listening socket, in that one message (its
 * channel takes fds only while the reload waits; any other that arrives
 * is closed, and one on another message drops the client); a malformed
 * message drops that client only, and replies end with CTL_END.
 */

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "jailbeed.h"
#include "log.h"
#include "proc.h"
#include "testhook.h"
#include "sockdir.h"

#define CTL_MAX_PER_UID		32
#define CTL_FD_RESERVE		16	/* accept pauses this close to the limit */
#define CTL_REPLY_TIMEOUT	5	/* seconds a child has to answer */
/*
 * Events queued for a watcher that reads none: beyond this, more are
 * dropped, since one is all it needs to know it must look again.
 */
#define CTL_WATCH_QUEUE		16

struct ctl_conn {
	TAILQ_ENTRY(ctl_conn)	 entry;
	uint32_t		 id;
	uid_t			 uid;
	pid_t			 pid;
	struct imsgev		 iev;
	uint32_t		 rid;		/* request in flight, 0 none */
	unsigned int		 answered;	/* bit per child */
	struct event		 timeout;
	struct job		*job;		/* a command in progress */
	struct sshsess		*ssh;		/* a jb-sshd session, or NULL */
	int			 watch;		/* gets an event per change */
};

static TAILQ_HEAD(, ctl_conn)	 ctl_conns = TAILQ_HEAD_INITIALIZER(ctl_conns);
static struct event		 ctl_ev, ctl_pause;
static int			 ctl_fd = -1;
static uint32_t			 ctl_next_id = 1;

static void	control_accept(int, short, void *);
static void	control_dispatch(int, short, void *);
static void	control_close(struct ctl_conn *);
static void	control_timeout(int, short, void *);
static int	control_reply(struct ctl_conn *, uint32_t, const void *,
		    size_t);

/*
 * Before any child starts: a second jailbeed on the same socket ends
 * here, before its jb-netd could touch the running suite's table or
 * close its start gates.  Nothing is made or removed.
 */
void
control_refuse_second(void)
{
	struct sockaddr_un	 sun;
	const char		*path = env->conf.socket;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		fatalx("socket %s: path too long for a unix socket", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		fatalx("socket %s: another jailbeed is running", path);
	(void)close(fd);
}

/*
 * Runs as root, before the privilege drop.  The socket's directory is
 * root's: the owner can neither swap the socket's name for a
 * symlink between bind and chown nor replace the socket later; the
 * owner connects through the socket's own owner and mode.
 * libcommon/sockdir.c holds the steps.
 */
void
control_init(void)
{
	struct sockaddr_un	 sun;
	struct stat		 st;
	char			 dir[PATH_MAX], base[PATH_MAX], err[512];
	const char		*path = env->conf.socket;
	int			 fd, dfd, taken;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		fatalx("socket %s: path too long for a unix socket", path);

	strlcpy(dir, path, sizeof(dir));
	strlcpy(dir, dirname(dir), sizeof(dir));
	strlcpy(base, path, sizeof(base));
	strlcpy(base, basename(base), sizeof(base));
	if ((dfd = sockdir_open(dir, env->owner_uid, &taken, err,
	    sizeof(err))) == -1)
		fatalx("%s", err);
	if (taken)
		log_info("socket directory %s: now root's, mode 0755 (it was "
		    "the owner's)", dir);

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		fatal("socket");
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISSOCK(st.st_mode))
			fatalx("socket %s: exists and is not a socket; move it "
			    "away or set another path in %s", path,
			    env->conf_path);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			fatalx("socket %s: another jailbeed is running", path);
		if (unlinkat(dfd, base, 0) == -1)
			fatal("unlink stale socket %s", path);
		close(fd);
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0)) == -1)
			fatal("socket");
	}
	if (sockdir_bind(fd, dfd, base) == -1)
		fatal("bind %s", path);
	if (sockdir_give(dfd, base, env->owner_uid, env->owner_gid, err,
	    sizeof(err)) == -1) {
		(void)unlinkat(dfd, base, 0);
		fatalx("socket %s: %s", path, err);
	}
	if (listen(fd, 16) == -1)
		fatal("listen %s", path);
	/* root's, and still so after our drop: jb-reaper removes it */
	reaper_start(dfd, dir, base);
	close(dfd);
	ctl_fd = fd;
}

void
control_listen(void)
{
	event_set(&ctl_ev, ctl_fd, EV_READ | EV_PERSIST, control_accept, NULL);
	event_add(&ctl_ev, NULL);
	evtimer_set(&ctl_pause, control_accept, NULL);
}

void
control_cleanup(void)
{
	struct ctl_conn	*c;

	while ((c = TAILQ_FIRST(&ctl_conns)) != NULL)
		control_close(c);
	if (ctl_fd != -1) {
		event_del(&ctl_ev);
		evtimer_del(&ctl_pause);
		close(ctl_fd);
		ctl_fd = -1;
		/*
		 * As the owner by now we cannot remove it from root's
		 * directory: jb-reaper does, seeing our end of its channel
		 * close, and we wait for it.
		 */
		reaper_stop(env->conf.socket);
	}
}

static int
fd_reserve_low(void)
{
	struct rlimit	rl;
	int		n = 0, fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;
	/* count by probing the lowest free fd: cheap and exact enough */
	if ((fd = dup(STDERR_FILENO)) == -1)
		return 1;
	n = fd;
	close(fd);
	return (rlim_t)n + CTL_FD_RESERVE >= rl.rlim_cur;
}

static void
control_accept(int fd, short event, void *arg)
{
	struct timeval	 tv = { 1, 0 };
	struct ctl_conn	*c, *o;
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	int		 s, n;

	event_add(&ctl_ev, NULL);
	if (event & EV_TIMEOUT)
		return;
	if (fd_reserve_low()) {
		log_warnx("control: out of file descriptors, pausing accept");
		event_del(&ctl_ev);
		evtimer_add(&ctl_pause, &tv);
		return;
	}
	if ((s = accept4(ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC))
	    == -1) {
		if (errno == EMFILE || errno == ENFILE) {
			event_del(&ctl_ev);
			evtimer_add(&ctl_pause, &tv);
		} else if (errno != EINTR && errno != EAGAIN &&
		    errno != ECONNABORTED)
			log_warn("control: accept");
		return;
	}
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		log_warn("control: SO_PEERCRED");
		close(s);
		return;
	}
	if (cred.uid != 0 && cred.uid != env->owner_uid) {
		log_warnx("control: refused connection from uid %u (pid %d): "
		    "only the owner %s (uid %u) or root may use jailbeed",
		    (unsigned)cred.uid, (int)cred.pid, env->conf.owner,
		    (unsigned)env->owner_uid);
		close(s);
		return;
	}
	n = 0;
	TAILQ_FOREACH(o, &ctl_conns, entry)
		if (o->uid == cred.uid)
			n++;
	if (n >= CTL_MAX_PER_UID) {
		log_warnx("control: refused connection from uid %u: already "
		    "%d connections", (unsigned)cred.uid, n);
		close(s);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		log_warn("control: calloc");
		close(s);
		return;
	}
	c->id = ctl_next_id++;
	c->uid = cred.uid;
	c->pid = cred.pid;
	evtimer_set(&c->timeout, control_timeout, c);
	if (imsgev_init(&c->iev, s, control_dispatch, c) == -1) {
		log_warn("control: imsgbuf_init");
		close(s);
		free(c);
		return;
	}
	/* fds go out to jbctl (shell streams); in only for a reload */
	imsgbuf_allow_fdsend(&c->iev.ibuf);
	TAILQ_INSERT_TAIL(&ctl_conns, c, entry);
	log_debug("control: connection %u from uid %u pid %d", c->id,
	    (unsigned)c->uid, (int)c->pid);
}

/*
 * A jb-sshd session's own channel joins as a connection of its own: its
 * commands run through the same jobs, its replies go through sshd.c,
 * which renders them for the SSH channel and journals them.
 */
struct ctl_conn *
control_adopt(int fd, struct sshsess *ssh)
{
	struct ctl_conn	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->id = ctl_next_id++;
	c->uid = env->owner_uid;
	c->ssh = ssh;
	evtimer_set(&c->timeout, control_timeout, c);
	if (imsgev_init(&c->iev, fd, control_dispatch, c) == -1) {
		free(c);
		return NULL;
	}
	/* the exec streams go down to the session; nothing comes up */
	imsgbuf_allow_fdsend(&c->iev.ibuf);
	TAILQ_INSERT_TAIL(&ctl_conns, c, entry);
	return c;
}

/* sshd.c: a reply bypassing the renderer */
int
control_send_raw(struct ctl_conn *c, uint32_t type, const void *data,
    size_t len, int fd)
{
	return imsgev_compose(&c->iev, type, JB_CTL_VERSION, 0, fd, data, len);
}

struct job *
control_job(struct ctl_conn *c)
{
	return c->job;
}

/* who is on the other end (a jb-sshd session's: the owner) */
uid_t
control_uid(const struct ctl_conn *c)
{
	return c->uid;
}

/* a session's command carries its marker and environment */
void
control_job_remote(struct ctl_conn *c, struct job *job)
{
	if (c->ssh != NULL)
		sshd_job_env(c->ssh, job);
	else
		(void)snprintf(job->actor, sizeof(job->actor), "uid:%u",
		    (unsigned)c->uid);
}

static void
control_close(struct ctl_conn *c)
{
	TAILQ_REMOVE(&ctl_conns, c, entry);
	if (c->ssh != NULL)
		sshd_session_closed(c->ssh);
	if (c->job != NULL) {
		job_detach(c->job);
		reload_abandon(c->job);
	}
	evtimer_del(&c->timeout);
	imsgev_clear(&c->iev);
	free(c);
	/* a slot is free again */
	if (ctl_fd != -1 && evtimer_pending(&ctl_pause, NULL)) {
		evtimer_del(&ctl_pause);
		event_add(&ctl_ev, NULL);
	}
}

static int
control_reply(struct ctl_conn *c, uint32_t type, const void *data,
    size_t len)
{
	if (c->ssh != NULL)
		return sshd_reply(c->ssh, type, data, len, -1);
	return imsgev_compose(&c->iev, type, JB_CTL_VERSION, 0, -1, data, len);
}

int
control_send(struct ctl_conn *c, uint32_t type, const void *data, size_t len,
    int fd)
{
	if (c->ssh != NULL)
		return sshd_reply(c->ssh, type, data, len, fd);
	return imsgev_compose(&c->iev, type, JB_CTL_VERSION, 0, fd, data, len);
}

void
control_job_started(struct ctl_conn *c, struct job *job)
{
	c->job = job;
}

void
control_job_ended(struct ctl_conn *c)
{
	c->job = NULL;
}

/* reload.c: take fds from this client while its reload waits for one */
void
control_expect_fd(struct ctl_conn *c, int on)
{
	if (c->ssh != NULL)
		return;
	c->iev.ibuf.allow_fdpass = on;
}

/*
 * A record went to the audit journal: every watching connection hears
 * which container and what, and looks again.
 */
void
control_event(const char *container, const char *action, int64_t when)
{
	struct ctl_conn		*c;
	struct jb_ctl_event	 ev;

	memset(&ev, 0, sizeof(ev));
	if (container != NULL)
		(void)strlcpy(ev.container, container, sizeof(ev.container));
	if (action != NULL)
		(void)strlcpy(ev.action, action, sizeof(ev.action));
	ev.when = when;
	TAILQ_FOREACH(c, &ctl_conns, entry) {
		if (!c->watch ||
		    imsgbuf_queuelen(&c->iev.ibuf) >= CTL_WATCH_QUEUE)
			continue;
		/*
		 * an SSH session's dashboard hears of an excluded repo's
		 * change without its name: it only looks at every row again
		 */
		if (c->ssh != NULL && sshd_event_hidden(c->ssh,
		    ev.container)) {
			struct jb_ctl_event	anon = ev;

			anon.container[0] = '\0';
			(void)imsgev_compose(&c->iev, IMSG_CTL_EVENT,
			    JB_CTL_VERSION, 0, -1, &anon, sizeof(anon));
			continue;
		}
		(void)imsgev_compose(&c->iev, IMSG_CTL_EVENT, JB_CTL_VERSION,
		    0, -1, &ev, sizeof(ev));
	}
}

/* a jb-sshd session's dashboard subscribes beside its requests */
void
control_watch(struct ctl_conn *c)
{
	c->watch = 1;
}

/* a command line, checked against the table before anything runs */
static int
control_cmd(struct ctl_conn *c, struct imsg *imsg)
{
	struct jb_ctl_cmd	*cmd;
	const struct cmd	*def;
	size_t			 off;
	uint32_t		 n, k;

	if ((cmd = malloc(sizeof(*cmd))) == NULL)
		return -1;
	if (imsg_get_data(imsg, cmd, sizeof(*cmd)) == -1)
		goto bad;
	if ((def = cmd_find(cmd->id)) == NULL ||
	    def->cls == CMD_UNCLASSIFIED || def->cls == CMD_INTERNAL)
		goto bad;
	/* exactly nargs strings inside argv */
	for (off = 0, n = 0; n < cmd->nargs; n++) {
		const char	*e = memchr(cmd->argv + off, '\0',
		    sizeof(cmd->argv) - off);

		if (e == NULL)
			goto bad;
		off = e - cmd->argv + 1;
		if (off >= sizeof(cmd->argv) && n + 1 < cmd->nargs)
			goto bad;
	}
	if ((int)cmd->nargs < def->min_args ||
	    (int)cmd->nargs > def->max_args)
		goto bad;
	for (k = 0; k < JB_OPTS_MAX; k++) {
		if (cmd->opts[k][JB_OPTVAL_MAX - 1] != '\0')
			goto bad;
		if ((cmd->optset & (1U << k)) &&
		    (k >= CMD_MAXOPTS || def->opts[k].lname == NULL))
			goto bad;
	}
	if (cmd->cwd[sizeof(cmd->cwd) - 1] != '\0' || cmd->cwd[0] != '/' ||
	    cmd->term[sizeof(cmd->term) - 1] != '\0' ||
	    cmd->xdg_config[sizeof(cmd->xdg_config) - 1] != '\0')
		goto bad;
	job_start(c, cmd);
	free(cmd);
	return 0;
 bad:
	free(cmd);
	return -1;
}

static void
control_error(struct ctl_conn *c, const char *msg)
{
	struct jb_ctl_text	t;

	memset(&t, 0, sizeof(t));
	strlcpy(t.text, msg, sizeof(t.text));
	(void)control_reply(c, IMSG_CTL_ERROR, &t, sizeof(t));
	(void)control_reply(c, IMSG_CTL_END, NULL, 0);
}

static uint32_t
control_next_rid(void)
{
	static uint32_t	 next_rid = 1;
	uint32_t	 rid = next_rid++;

	if (next_rid == 0)
		next_rid = 1;
	return rid;
}

void
control_status(struct ctl_conn *c)
{
	struct timeval		 tv = { CTL_REPLY_TIMEOUT, 0 };
	struct jb_proc_status	 st;

	if (selfstat(&st, "jailbeed", env->started, env->conf_path) == -1) {
		control_error(c, "jailbeed cannot read its own status");
		return;
	}
	(void)control_reply(c, IMSG_CTL_STATUS_ENTRY, &st, sizeof(st));
	/* jb-reaper answers nothing: the parent reads /proc for it */
	if (reaper_status(&st) == -1) {
		control_error(c, "jailbeed cannot read jb-reaper's status");
		return;
	}
	(void)control_reply(c, IMSG_CTL_STATUS_ENTRY, &st, sizeof(st));
	c->rid = control_next_rid();
	c->answered = 0;
	if (children_status_req(c->rid) == -1) {
		c->rid = 0;
		control_error(c, "cannot reach the children");
		return;
	}
	evtimer_add(&c->timeout, &tv);
}

void
control_child_status(uint32_t rid, const struct jb_proc_status *st)
{
	struct ctl_conn	*c;
	int		 i;

	TAILQ_FOREACH(c, &ctl_conns, entry)
		if (c->rid == rid && rid != 0)
			break;
	if (c == NULL)
		return;		/* the client left, or timed out */
	for (i = 0; i < PROC_MAX; i++)
		if (strcmp(children[i].name, st->name) == 0)
			c->answered |= 1U << i;
	(void)control_reply(c, IMSG_CTL_STATUS_ENTRY, st, sizeof(*st));
	if (c->answered == (1U << PROC_MAX) - 1) {
		c->rid = 0;
		evtimer_del(&c->timeout);
		(void)control_reply(c, IMSG_CTL_END, NULL, 0);
	}
}

/* a one-line answer from one child ends the request it belongs to */
void
control_child_text(uint32_t rid, uint32_t type, const char *text)
{
	struct ctl_conn		*c;
	struct jb_ctl_text	 t;

	TAILQ_FOREACH(c, &ctl_conns, entry)
		if (c->rid == rid && rid != 0)
			break;
	if (c == NULL)
		return;
	memset(&t, 0, sizeof(t));
	strlcpy(t.text, text, sizeof(t.text));
	c->rid = 0;
	evtimer_del(&c->timeout);
	(void)control_reply(c, type, &t, sizeof(t));
	(void)control_reply(c, IMSG_CTL_END, NULL, 0);
}

static void
control_test_attempt(struct ctl_conn *c, struct jb_test_attempt *a)
{
	struct timeval		 tv = { CTL_REPLY_TIMEOUT, 0 };
	struct jb_ctl_text	 t;
	int			 i;

	a->proc[sizeof(a->proc) - 1] = '\0';
	a->verb[sizeof(a->verb) - 1] = '\0';
	a->path[sizeof(a->path) - 1] = '\0';
	if (strcmp(a->proc, "jailbeed") == 0) {
		memset(&t, 0, sizeof(t));
		testhook_attempt(a, t.text, sizeof(t.text));
		(void)control_reply(c, IMSG_CTL_TEST_RESULT, &t, sizeof(t));
		(void)control_reply(c, IMSG_CTL_END, NULL, 0);
		return;
	}
	/* a git worker is a fork of jb-gitd: jb-gitd makes one to try */
	if ((i = children_find(strcmp(a->proc, "jb-gitd-worker") == 0 ?
	    "jb-gitd" : a->proc)) == -1) {
		control_error(c, "no such process");
		return;
	}
	c->rid = control_next_rid();
	c->answered = ~(1U << i);
	if (children_test_attempt(i, c->rid, a) == -1) {
		c->rid = 0;
		control_error(c, "cannot reach the child");
		return;
	}
	evtimer_add(&c->timeout, &tv);
}

static void
control_timeout(int fd, short event, void *arg)
{
	struct ctl_conn	*c = arg;
	char		 msg[JB_MSG_TEXT_MAX] = "no answer from:";
	int		 i;

	for (i = 0; i < PROC_MAX; i++)
		if ((c->answered & (1U << i)) == 0) {
			strlcat(msg, " ", sizeof(msg));
			strlcat(msg, children[i].name, sizeof(msg));
		}
	c->rid = 0;
	control_error(c, msg);
}

static void
control_dispatch(int fd, short event, void *arg)
{
	struct ctl_conn		*c = arg;
	struct imsg		 imsg;
	struct jb_ctl_text	 t;
	char			 why[160];
	int			 n;

	if ((n = imsgev_io(&c->iev, event)) <= 0) {
		control_close(c);
		return;
	}
	for (;;) {
		if ((n = imsgbuf_get(&c->iev.ibuf, &imsg)) == -1) {
			log_warnx("control: connection %u sent a malformed "
			    "message; dropped", c->id);
			control_close(c);
			return;
		}
		if (n == 0)
			break;
		if (c->ssh != NULL) {
			/* a session speaks its own messages, decided there */
			if (jb_msg_check(&imsg, JB_PEER_SSHD, JB_PEER_PARENT,
			    why, sizeof(why)) == -1) {
				log_warnx("control: session %u: %s; dropped",
				    c->id, why);
				imsg_free(&imsg);
				control_close(c);
				return;
			}
			n = sshd_dispatch(c->ssh, &imsg);
			imsg_free(&imsg);
			if (n == -1) {
				control_close(c);
				return;
			}
			continue;
		}
		if (imsg_get_id(&imsg) != JB_CTL_VERSION) {
			snprintf(t.text, sizeof(t.text), "jbctl speaks "
			    "protocol %u, jailbeed %u: use the jbctl that "
			    "came with this jailbeed", imsg_get_id(&imsg),
			    JB_CTL_VERSION);
			control_error(c, t.text);
			imsg_free(&imsg);
			break;
		}
		if (jb_msg_check(&imsg, JB_PEER_CTL, JB_PEER_PARENT, why,
		    sizeof(why)) == -1) {
			log_warnx("control: connection %u: %s; dropped", c->id,
			    why);
			imsg_free(&imsg);
			control_close(c);
			return;
		}
		if (imsg_get_type(&imsg) == IMSG_CTL_CMD && c->rid == 0 &&
		    c->job == NULL) {
			if (control_cmd(c, &imsg) == -1) {
				log_warnx("control: connection %u sent a bad "
				    "command; dropped", c->id);
				imsg_free(&imsg);
				control_close(c);
				return;
			}
			imsg_free(&imsg);
			continue;
		}
		if (imsg_get_type(&imsg) == IMSG_CTL_LISTEN_FD &&
		    reload_waits(c->job)) {
			if (reload_listen_fd(c->job, &imsg) == -1) {
				log_warnx("control: connection %u sent a bad "
				    "listening socket answer; dropped", c->id);
				imsg_free(&imsg);
				control_close(c);
				return;
			}
			imsg_free(&imsg);
			continue;
		}
		if (imsg_get_type(&imsg) == IMSG_CTL_WINSIZE && c->job != NULL) {
			struct jb_winsize	ws;

			if (imsg_get_data(&imsg, &ws, sizeof(ws)) == -1) {
				imsg_free(&imsg);
				control_close(c);
				return;
			}
			job_winsize(c->job, &ws);
			imsg_free(&imsg);
			continue;
		}
		if (imsg_get_type(&imsg) == IMSG_CTL_TEST_ATTEMPT &&
		    c->rid == 0) {
			struct jb_test_attempt	a;

			if (imsg_get_data(&imsg, &a, sizeof(a)) == -1) {
				imsg_free(&imsg);
				control_close(c);
				return;
			}
			if (!jb_testing)
				control_error(c, "_test-attempt: this suite "
				    "runs without the test switch (jailbeed "
				    "-T), which tests alone use");
			else
				control_test_attempt(c, &a);
			imsg_free(&imsg);
			continue;
		}
		if (imsg_get_len(&imsg) != 0 || c->rid != 0 || c->job != NULL ||
		    c->watch) {
			log_warnx("control: connection %u: unexpected %s",
			    c->id, jb_imsg_name(imsg_get_type(&imsg)));
			imsg_free(&imsg);
			control_close(c);
			return;
		}
		switch (imsg_get_type(&imsg)) {
		case IMSG_CTL_STATUS:
			control_status(c);
			break;
		case IMSG_CTL_WATCH:
			/* a watching connection only listens from now on */
			c->watch = 1;
			break;
		case IMSG_CTL_VERSION:
			memset(&t, 0, sizeof(t));
			strlcpy(t.text, JB_VERSION, sizeof(t.text));
			(void)control_reply(c, IMSG_CTL_VERSION_REPLY, &t,
			    sizeof(t));
			(void)control_reply(c, IMSG_CTL_END, NULL, 0);
			break;
		default:
			log_warnx("control: connection %u sent unknown type "
			    "%u; dropped", c->id, imsg_get_type(&imsg));
			imsg_free(&imsg);
			control_close(c);
			return;
		}
		imsg_free(&imsg);
	}
	imsgev_add(&c->iev);
}
