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
 * The parent's side of remote SSH.  jb-sshd only carries bytes: here
 * every offered key is checked against the owner's authorized_keys,
 * every command line is split and judged (sshpolicy.c), commands run
 * through the same jobs as jbctl's, their replies are rendered as text
 * for the SSH channel, and each decision becomes one journal line.
 */

#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "auditrec.h"
#include "authkeys.h"
#include "duration.h"
#include "cmdtab.h"
#include "jailbeed.h"
#include "output.h"
#include "jobs.h"
#include "log.h"
#include "sshargv.h"
#include "repoconf.h"
#include "sshpolicy.h"
#include "srcclass.h"
#include "testhook.h"

#define SSH_USER		"jailbee"
#define SSH_WATCH_SECS		2	/* how often the binaries are checked */
#define SSH_USAGE_MAX		16384
/*
 * Refusals a session may report before it is dropped: logins (the
 * session hangs up at JB_SSH_AUTH_TRIES; a few requests of other kinds
 * may come before), and anything once logged in
 */
#define SSH_AUTH_TRIES_SLACK	(JB_SSH_AUTH_TRIES + 4)
#define SSH_REFUSALS_MAX	64

/* the only variables a client may set, with plain short values */
static const char *const term_vars[] = {
	"LC_TERMINAL", "LC_TERMINAL_VERSION", "TERM_PROGRAM",
	"TERM_PROGRAM_VERSION", "COLORTERM", NULL
};
#define SSH_ENV_VALUE_MAX	32

/* the journal's route for what a session refused (fixed words) */
static const char *const refusal_names[SSHD_REFUSED_MAX] = {
	[SSHD_REFUSED_AUTH_PASSWORD] = "auth password",
	[SSHD_REFUSED_AUTH_KBDINT] = "auth keyboard-interactive",
	[SSHD_REFUSED_AUTH_GSSAPI] = "auth gssapi-with-mic",
	[SSHD_REFUSED_AUTH_METHOD] = "auth method",
	[SSHD_REFUSED_TCPIP_FORWARD] = "tcpip-forward",
	[SSHD_REFUSED_GLOBAL_REQUEST] = "global request",
	[SSHD_REFUSED_DIRECT_TCPIP] = "direct-tcpip",
	[SSHD_REFUSED_X11_CHANNEL] = "x11 channel",
	[SSHD_REFUSED_SECOND_SESSION] = "second session channel",
	[SSHD_REFUSED_CHANNEL_OPEN] = "channel open",
	[SSHD_REFUSED_X11_REQ] = "x11-req",
	[SSHD_REFUSED_CHANNEL_REQUEST] = "channel request",
	[SSHD_REFUSED_SUBSYSTEM_SFTP] = "subsystem sftp",
	[SSHD_REFUSED_SUBSYSTEM] = "subsystem",
	[SSHD_REFUSED_AGENT] = "auth-agent-req",
};

struct sshsess {
	struct ctl_conn		*c;
	char			 addr[48];
	uint32_t		 port;
	int			 authed;
	char			 fp[AUTHKEY_FP_MAX];
	char			 env[5][136];	/* "NAME=value" kept */
	int			 nenv;
	int			 busy;		/* a request is running */
	int			 render;	/* enum cmd_id being rendered */
	int			 failed;
	int			 got_exit;
	int			 status;
	uint32_t		 id;		/* jb-sshd's, for AUTHED */
	int			 known;		/* KNOWN sent */
	int			 nrefused;	/* refusals reported */
	char			 route[16];	/* exec | console */
	char			 leaf[48];
	char			 target[JB_INSTANCE_MAX];
	char			 repo[48];	/* the container's prefix */
	struct timespec		 t0;
	struct sshsnap		*pol;		/* the policy at its start */
	int			 sftp;		/* the sftp subsystem granted */
	int			 dash;		/* the request is the dashboard's */
	int			 look;		/* a look of it: not journalled */
};

static int		 listen_fd = -1;
static int		 nsessions;
static int		 draining;
static struct event	 watch_ev;
static struct stat	 watch_st[2];
static char		 watch_path[2][PATH_MAX];

static int64_t
ms_since(const struct timespec *t0)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)(t.tv_sec - t0->tv_sec) * 1000 +
	    (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * One line per decision: who (address, port, key fingerprint), what
 * (route, the command's leaf, the container), the decision and how it
 * ended.  Never key material, the full command line, env values or any
 * terminal byte (auditrec.c).
 */
static void
journal(struct sshsess *s, const char *route, const char *decision,
    const char *reason, int with_exit)
{
	struct audit_rec	r;
	char			action[32];
	size_t			i;

	(void)snprintf(action, sizeof(action), "ssh.%s", route);
	for (i = 0; action[i] != '\0'; i++)
		if (action[i] == ' ')
			action[i] = '-';
	memset(&r, 0, sizeof(r));
	r.actor = s->fp[0] != '\0' ? s->fp : "ssh";
	r.container = s->target;
	r.repo = s->repo;
	r.action = action;
	r.decision = decision;
	r.reason = reason;
	audit_str(&r, "src", s->addr);
	audit_num(&r, "port", s->port);
	audit_str(&r, "route", route);
	audit_str(&r, "command", s->leaf);
	if (with_exit) {
		audit_num(&r, "exit", s->status);
		audit_num(&r, "duration_ms", ms_since(&s->t0));
	}
	audit_write(&r);
}

/*
 * A reload of jailbeed.yaml (SIGHUP or jbctl reload): who asked (uid;
 * -1 for the signal), whether it took, and why not.
 */
void
sshd_journal_reload(uid_t uid, const char *decision, const char *reason)
{
	struct audit_rec	r;
	char			actor[32];

	if (uid == (uid_t)-1)
		(void)strlcpy(actor, "signal", sizeof(actor));
	else
		(void)snprintf(actor, sizeof(actor), "uid:%u", (unsigned)uid);
	memset(&r, 0, sizeof(r));
	r.actor = actor;
	r.action = "reload";
	r.decision = decision;
	r.reason = reason;
	audit_write(&r);
}

/* a jbctl reload that moved the listener: from where to where */
void
sshd_journal_rebind(uid_t uid, const char *reason, const char *from,
    const char *to)
{
	struct audit_rec	r;
	char			actor[32];

	(void)snprintf(actor, sizeof(actor), "uid:%u", (unsigned)uid);
	memset(&r, 0, sizeof(r));
	r.actor = actor;
	r.action = "reload";
	r.decision = "accept";
	r.reason = reason;
	audit_str(&r, "listen_from", from);
	audit_str(&r, "listen_to", to);
	audit_write(&r);
}

/*
 * Refusals per minute (remote.ssh.refusals_per_minute) while not logged
 * in, counted twice: for the source (srcclass: all of loopback is one)
 * and for the key offered.  Past the limit the refusals are no longer
 * journalled one by one; one line says so.  A source other than loopback
 * is then shut out by jb-sshd at accept until the minute is over; on
 * loopback every tunnelled user arrives from one place, so the refusals
 * are charged to the key instead: it is refused, authorized or not, for
 * the rest of the minute, and the connection is dropped past its tries.
 * Under the test switch the "minute" lasts 10 s.
 */
#define REFUSAL_WINDOW	jb_test_secs(60, 10)
#define RATE_SLOTS	256
static struct rate {
	char	 key[80];		/* a source class, or "key " FP */
	time_t	 minute;
	int	 n;
} rates[RATE_SLOTS];

/* the count of key this minute, bumped by one when bump */
static int
rate_count(const char *key, int bump)
{
	struct rate	*r = NULL;
	time_t		 minute = time(NULL) / REFUSAL_WINDOW;
	int		 i, old = 0;

	for (i = 0; i < RATE_SLOTS; i++) {
		if (strcmp(rates[i].key, key) == 0) {
			r = &rates[i];
			break;
		}
		if (rates[i].minute < rates[old].minute)
			old = i;
	}
	if (r == NULL) {
		if (!bump)
			return 0;
		r = &rates[old];
		memset(r, 0, sizeof(*r));
		strlcpy(r->key, key, sizeof(r->key));
	}
	if (r->minute != minute) {
		r->minute = minute;
		r->n = 0;
	}
	return bump ? ++r->n : r->n;
}

/* has the key fingerprint fp run past its refusals this minute? */
static int
key_over(const char *fp)
{
	char	key[80];

	if (fp[0] == '\0')
		return 0;
	(void)snprintf(key, sizeof(key), "key %s", fp);
	return rate_count(key, 0) > env->conf.ssh_refusals_per_min;
}

/*
 * 1: journal this refusal; 0: its source or key is over its limit.  fp:
 * the key to charge, only when the refusal is that key's own (it is not
 * authorized): a public key is no secret, so refusals of other kinds on
 * a connection that offered someone's key must not shut that key out.
 */
static int
refusal_counted(struct sshsess *s, const char *fp)
{
	struct jb_sshd_penalty	 pen;
	char			 cls[48], key[80];
	int			 lim = env->conf.ssh_refusals_per_min;
	int			 nsrc, nkey = 0;

	srcclass(s->addr, cls, sizeof(cls));
	nsrc = rate_count(cls, 1);
	if (fp != NULL && fp[0] != '\0') {
		(void)snprintf(key, sizeof(key), "key %s", fp);
		nkey = rate_count(key, 1);
	}
	if (nsrc <= lim && nkey <= lim)
		return 1;
	if (nkey == lim + 1)
		journal(s, "rate limit", "refuse", "refusals_per_minute: "
		    "key", 0);
	if (nsrc == lim + 1) {
		journal(s, "rate limit", "refuse", "refusals_per_minute", 0);
		if (!srcclass_loopback(cls)) {
			memset(&pen, 0, sizeof(pen));
			strlcpy(pen.addr, cls, sizeof(pen.addr));
			pen.until = (time(NULL) / REFUSAL_WINDOW + 1) *
			    REFUSAL_WINDOW;
			(void)imsgev_compose(&children[PROC_SSHD].iev,
			    IMSG_SSHD_PENALTY, 0, 0, -1, &pen, sizeof(pen));
		}
	}
	return 0;
}

/*
 * Keys that logged in lately, kept in memory (a restart forgets them):
 * RECENT_MAX keys, each for RECENT_SECS after its last login.  A
 * connection not logged in that offers one, authorized still, gets a
 * reserved slot at jb-sshd (IMSG_SSHD_KNOWN, with the key's place here
 * as its number), out of the early drop of strangers' connections.
 */
#define RECENT_MAX	64
#define RECENT_SECS	(24 * 3600)
static struct recent {
	char	 fp[AUTHKEY_FP_MAX];
	time_t	 when;
} recents[RECENT_MAX];

/* fp's number (its place, from 1), 0 when it did not log in lately */
static uint32_t
recent_find(const char *fp)
{
	time_t	now = time(NULL);
	int	i;

	for (i = 0; i < RECENT_MAX; i++)
		if (recents[i].fp[0] != '\0' &&
		    now - recents[i].when < RECENT_SECS &&
		    strcmp(recents[i].fp, fp) == 0)
			return (uint32_t)i + 1;
	return 0;
}

/* fp logged in now; the key that logged in longest ago makes room */
static void
recent_add(const char *fp)
{
	int	i, old = 0;

	for (i = 0; i < RECENT_MAX; i++) {
		if (strcmp(recents[i].fp, fp) == 0) {
			old = i;
			break;
		}
		if (recents[i].when < recents[old].when)
			old = i;
	}
	(void)strlcpy(recents[old].fp, fp, sizeof(recents[old].fp));
	recents[old].when = time(NULL);
}

/* as root, before the privilege drop: the socket */
void
sshd_init(void)
{
	struct sockaddr_storage	 ss;
	int			 on = 1;

	sftp_init();
	if (strcmp(env->conf.ssh_listen, "off") == 0)
		return;
	if (conf_listen_addr(env->conf.ssh_listen, &ss) == -1)
		fatalx("remote.ssh.listen %s: not ADDR:PORT",
		    env->conf.ssh_listen);
	if ((listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0))
	    == -1)
		fatal("ssh: socket");
	if (setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on))
	    == -1)
		fatal("ssh: SO_REUSEADDR");
	if (bind(listen_fd, (struct sockaddr *)&ss, ss.ss_family == AF_INET ?
	    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) == -1)
		fatal("ssh: bind %s (remote.ssh.listen in %s)",
		    env->conf.ssh_listen, env->conf_path);
	if (listen(listen_fd, 64) == -1)
		fatal("ssh: listen %s", env->conf.ssh_listen);
}

static void
sshd_watch(int fd, short event, void *arg)
{
	struct timeval	 tv = { SSH_WATCH_SECS, 0 };
	struct stat	 st;
	int		 i;

	for (i = 0; i < 2 && !draining; i++) {
		if (stat(watch_path[i], &st) == 0 &&
		    st.st_ino == watch_st[i].st_ino &&
		    st.st_mtim.tv_sec == watch_st[i].st_mtim.tv_sec &&
		    st.st_mtim.tv_nsec == watch_st[i].st_mtim.tv_nsec &&
		    st.st_size == watch_st[i].st_size)
			continue;
		/* a new version: no new session, drain, exit */
		log_warnx("ssh: %s changed: refusing new sessions, draining "
		    "%d, then exiting for a restart", watch_path[i],
		    nsessions);
		draining = 1;
		(void)imsgev_compose(&children[PROC_SSHD].iev,
		    IMSG_SSHD_DRAIN, 0, 0, -1, NULL, 0);
	}
	if (!draining)
		evtimer_add(&watch_ev, &tv);
}

int
sshd_draining(void)
{
	return draining;
}

/* after the children started: hand jb-sshd its socket, say the policy */
void
sshd_start(const char *self)
{
	struct timeval	 tv = { SSH_WATCH_SECS, 0 };
	struct jb_sshd_limits lim;
	char		 name[48];
	const struct cmd *c;
	int		 i, nw;

	if (listen_fd == -1) {
		log_info("ssh: remote.ssh.listen is off");
		return;
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_unauth = env->conf.ssh_max_unauth;
	if (imsgev_compose(&children[PROC_SSHD].iev, IMSG_SSHD_LISTEN, 0, 0,
	    listen_fd, &lim, sizeof(lim)) == -1)
		fatal("ssh: compose");
	listen_fd = -1;
	log_info("ssh: listening on %s, commands %s, host restrictions %s",
	    env->conf.ssh_listen, env->conf.ssh_mode,
	    env->conf.ssh_restrict_host ? "on" : "OFF (restrict_host: false)");
	/* what the allowlist names but restrict_host refuses */
	for (i = 0; i < env->conf.ssh_nallow; i++) {
		char	copy[48], *w[CMD_MAXWORDS + 1], *p, *save;

		strlcpy(copy, env->conf.ssh_allow[i], sizeof(copy));
		for (nw = 0, p = strtok_r(copy, " ", &save); p != NULL &&
		    nw < CMD_MAXWORDS; p = strtok_r(NULL, " ", &save))
			w[nw++] = p;
		if ((c = cmd_lookup(nw, w, NULL)) == NULL) {
			log_warnx("ssh: allowlist names %s, which is no "
			    "command", env->conf.ssh_allow[i]);
			continue;
		}
		if (env->conf.ssh_restrict_host &&
		    sshpolicy_host(c->id) != SSHP_HOST_ALLOWED &&
		    !(c->id == CMD_MOUNT && (env->conf.ssh_mounts ||
		    env->conf.ssh_nroots > 0)))
			log_warnx("ssh: allowlist names %s, which "
			    "restrict_host refuses", cmd_name(c, name,
			    sizeof(name)));
	}
	snprintf(watch_path[0], sizeof(watch_path[0]), "%s/jb-sshd",
	    LIBEXECDIR);
	strlcpy(watch_path[1], self, sizeof(watch_path[1]));
	for (i = 0; i < 2; i++)
		if (stat(watch_path[i], &watch_st[i]) == -1)
			fatal("ssh: stat %s", watch_path[i]);
	evtimer_set(&watch_ev, sshd_watch, NULL);
	evtimer_add(&watch_ev, &tv);
}

int
sshd_session_new(struct imsg *imsg)
{
	struct jb_sshd_session	 p;
	struct sshsess		*s;
	int			 fd;

	if (imsg_get_data(imsg, &p, sizeof(p)) == -1 ||
	    (fd = imsg_get_fd(imsg)) == -1)
		return -1;
	p.addr[sizeof(p.addr) - 1] = '\0';
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		close(fd);
		return 0;
	}
	strlcpy(s->addr, p.addr, sizeof(s->addr));
	s->port = p.port;
	s->id = p.id;
	/* every command of the session is judged by the policy of now */
	s->pol = sshsnap_take();
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	if ((s->c = control_adopt(fd, s)) == NULL) {
		close(fd);
		sshsnap_put(s->pol);
		free(s);
		return 0;
	}
	nsessions++;
	return 0;
}

void
sshd_session_closed(struct sshsess *s)
{
	struct job	*job;

	if (s->busy && (job = control_job(s->c)) != NULL) {
		strlcpy(s->repo, job->remote_repo, sizeof(s->repo));
		if (job->remote_found)
			strlcpy(s->target, job->remote_in.name,
			    sizeof(s->target));
	}
	if (s->busy)
		journal(s, s->route, "accept", "session closed", 1);
	sftp_session_gone(s);
	nsessions--;
	sshsnap_put(s->pol);
	free(s);
}

static int
raw(struct sshsess *s, uint32_t type, const void *data, size_t len, int fd)
{
	return control_send_raw(s->c, type, data, len, fd);
}

int
sshd_raw(struct sshsess *s, uint32_t type, const void *data, size_t len,
    int fd)
{
	return raw(s, type, data, len, fd);
}

static void
send_text(struct sshsess *s, int which, const char *text, size_t len)
{
	struct jb_output	*o;
	size_t			 off, n;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return;
	for (off = 0; off < len; off += n) {
		n = len - off > sizeof(o->data) ? sizeof(o->data) : len - off;
		o->which = which;
		o->len = n;
		memcpy(o->data, text + off, n);
		(void)raw(s, IMSG_CTL_OUTPUT, o, sizeof(*o), -1);
	}
	free(o);
}

static void
finish(struct sshsess *s, const char *decision, const char *reason)
{
	/*
	 * What the dashboard reads to draw (ls and the other lists) is not
	 * journalled line by line when it was served: it looks again at
	 * every journalled change, and would fill the journal with its own
	 * looks.  Its opening, every action and every refusal are.
	 */
	if (!(s->look && strcmp(decision, "accept") == 0 && !s->failed))
		journal(s, s->route, decision, reason, 1);
	s->busy = 0;
}

/* the lists the dashboard reads: they change nothing */
static int
dash_look(enum cmd_id id)
{
	return id == CMD_LS || id == CMD_NET_LOG || id == CMD_NET_STATUS ||
	    id == CMD_MOUNT_LS || id == CMD_SNAP_LS;
}

static void
refuse(struct sshsess *s, const char *msg, const char *reason)
{
	struct jb_ctl_text	t;

	memset(&t, 0, sizeof(t));
	strlcpy(t.text, msg, sizeof(t.text));
	(void)raw(s, IMSG_CTL_ERROR, &t, sizeof(t), -1);
	(void)raw(s, IMSG_CTL_END, NULL, 0, -1);
	s->status = 1;
	finish(s, "refuse", reason);
}

int
sshd_excluded(const struct sshsess *s, const char *prefix)
{
	return s == NULL ? 1 : sshsnap_excluded(s->pol, prefix);
}

/* render one structured reply as the text jbctl would print */
static void
render(struct sshsess *s, void (*fn)(const void *), const void *arg)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return;
	output_set_file(fp);
	fn(arg);
	fclose(fp);
	output_set_file(NULL);
	send_text(s, 1, buf, len);
	free(buf);
}

static int64_t	render_now;

static void r_status(const void *a) { text_output.status_entry(a, render_now); }
static void r_status_end(const void *a) { text_output.status_end(); }
static void r_instance(const void *a) { text_output.instance(a); }
static void r_snapshot(const void *a) { text_output.snapshot(a); }
static void r_list_end(const void *a) { text_output.list_end(); }
static void r_mount(const void *a) { text_output.mount(a); }
static void r_port(const void *a) { text_output.port(a); }
static void r_net_ctr(const void *a) { text_output.net_ctr(a); }
static void r_net_allow(const void *a) { text_output.net_allow(a); }
static void r_net_secret(const void *a) { text_output.net_secret(a); }
static void r_net_addr(const void *a) { text_output.net_addr(a); }
static void r_doctor(const void *a) { text_output.doctor(a); }
static void r_net_block(const void *a) { text_output.net_block(a); }
static void r_net_resolved(const void *a) { text_output.net_resolved(a); }

int
sshd_reply(struct sshsess *s, uint32_t type, const void *data, size_t len,
    int fd)
{
	const struct jb_instance	*in;
	const struct jb_exit		*x;
	struct job			*job;
	const char			*gate;

	/*
	 * The dashboard's replies go as they are (the session draws them):
	 * the containers of the registered repos alone, an excluded repo's
	 * left out as for the text
	 */
	if (s->dash && s->busy) {
		switch (type) {
		case IMSG_CTL_INSTANCE:
			in = data;
			if (sshsnap_excluded(s->pol, in->prefix) ||
			    registry_path(in->prefix) == NULL)
				return 0;
			/* FALLTHROUGH */
		case IMSG_CTL_SNAPSHOT:
		case IMSG_CTL_MOUNT:
		case IMSG_CTL_PORT:
		case IMSG_CTL_NET_CTR:
		case IMSG_CTL_NET_ALLOW:
		case IMSG_CTL_NET_BLOCK:
			return raw(s, type, data, len, fd);
		case IMSG_CTL_STATUS_ENTRY:
		case IMSG_CTL_NET_ADDR:
		case IMSG_CTL_DOCTOR:
		case IMSG_CTL_NET_RESOLVED:
		case IMSG_CTL_BASE_SPEC:
			/* nothing the dashboard asks for */
			return 0;
		}
	}
	switch (type) {
	case IMSG_CTL_STATUS_ENTRY:
		render_now = time(NULL);
		render(s, r_status, data);
		return 0;
	case IMSG_CTL_INSTANCE:
		in = data;
		/* an excluded repo's containers do not exist here */
		if (sshsnap_excluded(s->pol, in->prefix))
			return 0;
		render(s, r_instance, data);
		return 0;
	case IMSG_CTL_SNAPSHOT:
		render(s, r_snapshot, data);
		return 0;
	case IMSG_CTL_MOUNT:
		render(s, r_mount, data);
		return 0;
	case IMSG_CTL_PORT:
		/* port ls lists; an added one was said in a progress line */
		if (s->render == CMD_PORT_LS || s->render == CMD_NET_STATUS)
			render(s, r_port, data);
		return 0;
	case IMSG_CTL_NET_CTR:
		render(s, r_net_ctr, data);
		return 0;
	case IMSG_CTL_NET_ALLOW:
		render(s, r_net_allow, data);
		return 0;
	case IMSG_CTL_NET_SECRET:
		render(s, r_net_secret, data);
		return 0;
	case IMSG_CTL_NET_ADDR:
		render(s, r_net_addr, data);
		return 0;
	case IMSG_CTL_DOCTOR:
		render(s, r_doctor, data);
		return 0;
	case IMSG_CTL_NET_BLOCK:
		render(s, r_net_block, data);
		return 0;
	case IMSG_CTL_NET_RESOLVED:
		render(s, r_net_resolved, data);
		return 0;
	case IMSG_CTL_BASE_SPEC:
		/* what a local jbctl would build; the error says it remotely */
		return 0;
	case IMSG_CTL_ERROR:
		s->failed = 1;
		break;
	case IMSG_CTL_EXIT:
		x = data;
		s->got_exit = 1;
		s->status = x->status;
		break;
	case IMSG_CTL_END:
		gate = NULL;
		if ((job = control_job(s->c)) != NULL) {
			strlcpy(s->repo, job->remote_repo, sizeof(s->repo));
			/* the container's name once it resolved, never the text */
			if (job->remote_found)
				strlcpy(s->target, job->remote_in.name,
				    sizeof(s->target));
			gate = job->remote_reason;
		}
		if (!s->dash && !s->failed && s->render == CMD_STATUS)
			render(s, r_status_end, NULL);
		if (!s->dash && !s->failed && (s->render == CMD_LS ||
		    s->render == CMD_SNAP_LS || s->render == CMD_MOUNT_LS ||
		    s->render == CMD_PORT_LS || s->render == CMD_NET_STATUS ||
		    s->render == CMD_NET_LOG || s->render == CMD_NET_EGRESS_LS ||
		    s->render == CMD_NET_REFRESH))
			render(s, r_list_end, NULL);
		if (!s->got_exit)
			s->status = s->failed ? 1 : 0;
		/* the remote gate refused the container it named */
		if (s->busy && gate != NULL)
			finish(s, "refuse", gate);
		else if (s->busy)
			finish(s, "accept", s->failed ? "failed" : NULL);
		break;
	}
	return raw(s, type, data, len, fd);
}

static int
env_ok(const struct jb_sshd_env *e)
{
	size_t	i, n = strlen(e->value);

	for (i = 0; term_vars[i] != NULL; i++)
		if (strcmp(e->name, term_vars[i]) == 0)
			break;
	if (term_vars[i] == NULL || n == 0 || n > SSH_ENV_VALUE_MAX)
		return 0;
	return strspn(e->value, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+") == n;
}

/* the environment a session's command gets in its container */
void
sshd_job_env(struct sshsess *s, struct job *job)
{
	size_t	off = 0, l;
	int	i;
	char	kv[3][32] = { "JAILBEE_SSH_SESSION=1", "", "" };

	job->remote = 1;
	(void)strlcpy(job->actor, s->fp[0] != '\0' ? s->fp : "ssh",
	    sizeof(job->actor));
	sshsnap_put(job->remote_snap);
	job->remote_snap = sshsnap_ref(s->pol);
	if (sshsnap_restricted(s->pol)) {
		strlcpy(kv[1], "JAILBEE_REMOTE_SSH=1", sizeof(kv[1]));
		strlcpy(kv[2], "LESSSECURE=1", sizeof(kv[2]));
	}
	job->nrenv = 0;
	for (i = 0; i < 3; i++) {
		if (kv[i][0] == '\0')
			continue;
		l = strlen(kv[i]) + 1;
		memcpy(job->renv + off, kv[i], l);
		off += l;
		job->nrenv++;
	}
	for (i = 0; i < s->nenv; i++) {
		l = strlen(s->env[i]) + 1;
		if (off + l > sizeof(job->renv))
			break;
		memcpy(job->renv + off, s->env[i], l);
		off += l;
		job->nrenv++;
	}
}

/*
 * help [WORDS]: the usage of every command this server admits (what
 * "COMMAND --help" would be let through for), or of the ones named.
 */
static void
help_text(const struct sshp_conf *pc, const struct jb_ctl_cmd *h, char *buf,
    size_t len)
{
	struct jb_ctl_cmd	*tmp;
	struct sshp_result	 r;
	char			*argv[CMD_MAXWORDS + 2], *want[CMD_MAXWORDS];
	const char		*p;
	uint32_t		 n;
	int			 i, w, nw = 0;

	if ((tmp = malloc(sizeof(*tmp))) == NULL)
		return;
	for (n = 0, p = h->argv; n < h->nargs && nw < CMD_MAXWORDS; n++,
	    p += strlen(p) + 1)
		want[nw++] = (char *)(uintptr_t)p;
	for (i = 0; i < cmdtab_len; i++) {
		for (w = 0; w < CMD_MAXWORDS && cmdtab[i].words[w] != NULL; w++)
			argv[w] = (char *)(uintptr_t)cmdtab[i].words[w];
		/* help snapshot: the leaves under the words given */
		if (nw > w)
			continue;
		for (n = 0; n < (uint32_t)nw; n++)
			if (strcmp(argv[n], want[n]) != 0)
				break;
		if (n < (uint32_t)nw)
			continue;
		argv[w] = "--help";
		argv[w + 1] = NULL;
		if (sshpolicy_decide(pc, w + 1, argv, tmp, &r) == 0)
			sshpolicy_usage(&r, buf + strlen(buf),
			    len - strlen(buf));
	}
	if (buf[0] == '\0')
		strlcpy(buf, "no command is admitted here\n", len);
	free(tmp);
}

/*
 * --repo PREFIX (or --repo=PREFIX), anywhere before "--": the registered
 * repository the command runs in, as if in its checkout.  Taken out of
 * argv; net egress add|rm keep theirs, a flag of their own that R23
 * refuses.  0: none or one found (*repo set); -1: given twice or empty.
 */
static int
take_repo(int *argc, char *argv[], const char **repo)
{
	int	i, j, k;

	*repo = NULL;
	if (*argc >= 2 && strcmp(argv[0], "net") == 0 &&
	    strcmp(argv[1], "egress") == 0)
		return 0;
	for (i = 0; i < *argc && strcmp(argv[i], "--") != 0; ) {
		if (strcmp(argv[i], "--repo") == 0 && i + 1 == *argc)
			return -1;
		if (strcmp(argv[i], "--repo") == 0)
			k = 2;
		else if (strncmp(argv[i], "--repo=", 7) == 0)
			k = 1;
		else {
			i++;
			continue;
		}
		if (*repo != NULL)
			return -1;
		*repo = k == 2 ? argv[i + 1] : argv[i] + 7;
		if (**repo == '\0')
			return -1;
		for (j = i; j + k <= *argc; j++)
			argv[j] = argv[j + k];
		*argc -= k;
	}
	return 0;
}

static void
run_exec(struct sshsess *s, const struct jb_sshd_exec *x)
{
	struct jb_ctl_cmd	*cmd = NULL;
	struct sshp_conf	 pc;
	struct sshp_result	 r;
	char			 words[JB_ARGV_MAX], err[JB_MSG_TEXT_MAX];
	char			*argv[SSHARGV_MAXARGS + 1], *usage = NULL, *p;
	const char		*repo, *top = NULL;
	int			 argc, i;

	s->busy = 1;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	/*
	 * shell: a line typed at jb-sshd's restricted console; dash: an
	 * action or a look of the dashboard the session draws
	 */
	s->dash = x->dash != 0;
	s->look = 0;
	strlcpy(s->route, s->dash ? "dashboard" : x->shell ? "console" :
	    "exec", sizeof(s->route));
	s->leaf[0] = s->target[0] = s->repo[0] = '\0';
	s->render = 0;
	if (sshargv_split(x->line, strnlen(x->line, sizeof(x->line)), words,
	    sizeof(words), &argc, err, sizeof(err)) == -1) {
		refuse(s, err, "unparsable command");
		return;
	}
	for (i = 0, p = words; i < argc; i++, p += strlen(p) + 1)
		argv[i] = p;
	argv[argc] = NULL;
	if (take_repo(&argc, argv, &repo) == -1) {
		refuse(s, "--repo: give it once, with a registered container "
		    "prefix", "usage");
		return;
	}
	/* legacy scp (scp -O) runs scp -t/-f; its SFTP mode is served */
	if (argc > 0 && strcmp(argv[0], "scp") == 0) {
		strlcpy(s->leaf, "scp", sizeof(s->leaf));
		refuse(s, "the legacy scp protocol (scp -O) is not served: "
		    "use scp without -O (its SFTP mode)", "legacy scp");
		return;
	}
	if (s->pol == NULL) {
		refuse(s, "out of memory", "out of memory");
		return;
	}
	sshsnap_policy(s->pol, &pc);
	if ((cmd = malloc(sizeof(*cmd))) == NULL) {
		refuse(s, "out of memory", "out of memory");
		return;
	}
	i = sshpolicy_decide(&pc, argc, argv, cmd, &r);
	if (r.cmd != NULL || r.help)
		strlcpy(s->leaf, r.leaf, sizeof(s->leaf));
	if (i == -1) {
		refuse(s, r.err, r.reason);
		goto out;
	}
	/*
	 * unknown and excluded prefixes give the one same error; the
	 * journal alone says which
	 */
	if (repo != NULL) {
		if (!name_prefix_ok(repo)) {
			refuse(s, "--repo: not a container prefix (jbctl repo "
			    "ls on the host lists the registered ones)",
			    "usage");
			goto out;
		}
		top = registry_path(repo);
		/* the journal names a registered repo, never the text */
		if (top != NULL)
			strlcpy(s->repo, repo, sizeof(s->repo));
		if (top == NULL || sshsnap_excluded(s->pol, repo)) {
			snprintf(err, sizeof(err), "no such repo %s", repo);
			refuse(s, err, top == NULL ? "unknown repo" :
			    "excluded_repos");
			goto out;
		}
		strlcpy(cmd->cwd, top, sizeof(cmd->cwd));
	}
	if (r.help || r.cmd->id == CMD_HELP) {
		if ((usage = calloc(1, SSH_USAGE_MAX)) == NULL)
			goto out;
		if (!r.help)
			help_text(&pc, cmd, usage, SSH_USAGE_MAX);
		else
			sshpolicy_usage(&r, usage, SSH_USAGE_MAX);
		send_text(s, 1, usage, strlen(usage));
		(void)sshd_reply(s, IMSG_CTL_END, NULL, 0, -1);
		goto out;
	}
	s->look = s->dash && dash_look(cmd->id);
	cmd->tty = x->pty;
	cmd->cols = x->cols;
	cmd->rows = x->rows;
	strlcpy(cmd->term, x->term, sizeof(cmd->term));
	s->render = cmd->id;
	s->failed = s->got_exit = 0;
	switch (cmd->id) {
	case CMD_STATUS:
		text_output.status_begin();
		control_status(s->c);
		break;
	case CMD_VERSION: {
		char	v[64];

		snprintf(v, sizeof(v), "jailbeed %s\n", JB_VERSION);
		send_text(s, 1, v, strlen(v));
		(void)sshd_reply(s, IMSG_CTL_END, NULL, 0, -1);
		break;
	}
	default:
		if (!s->dash && (cmd->id == CMD_LS || cmd->id == CMD_SNAP_LS ||
		    cmd->id == CMD_MOUNT_LS || cmd->id == CMD_PORT_LS ||
		    cmd->id == CMD_NET_STATUS || cmd->id == CMD_NET_LOG ||
		    cmd->id == CMD_NET_EGRESS_LS || cmd->id == CMD_NET_REFRESH))
			text_output.list_begin(cmd->id == CMD_LS ?
			    "containers" : cmd->id == CMD_MOUNT_LS ? "mounts" :
			    cmd->id == CMD_PORT_LS ? "ports" :
			    cmd->id == CMD_NET_STATUS ? "net" :
			    cmd->id == CMD_NET_LOG ? "refused" :
			    cmd->id == CMD_NET_EGRESS_LS ? "egress" :
			    cmd->id == CMD_NET_REFRESH ? "resolved" : "snapshots");
		job_start(s->c, cmd);
	}
 out:
	free(usage);
	free(cmd);
}

static int
auth(struct sshsess *s, struct jb_sshd_auth *a)
{
	struct jb_sshd_verdict	 v;
	struct jb_sshd_authed	 au;
	struct jb_sshd_known	 kn;
	uint8_t			 blob[AUTHKEY_BLOB_MAX];
	char			 path[PATH_MAX], err[256], type[64];
	size_t			 len = 0, tl;
	int			 rc = 0, charge = 0;
	const char		*reason = NULL;

	memset(&v, 0, sizeof(v));
	a->user[sizeof(a->user) - 1] = '\0';
	a->key[sizeof(a->key) - 1] = '\0';
	if (authkey_b64_decode(a->key, strlen(a->key), blob, sizeof(blob),
	    &len) == -1 || len < 4 ||
	    (tl = (size_t)blob[0] << 24 | blob[1] << 16 | blob[2] << 8 |
	    blob[3]) >= sizeof(type) || 4 + tl > len)
		reason = "malformed key";
	else {
		memcpy(type, blob + 4, tl);
		type[tl] = '\0';
		authkey_fingerprint(blob, len, v.fingerprint,
		    sizeof(v.fingerprint));
		if (env->conf.ssh_keys[0] != '\0')
			strlcpy(path, env->conf.ssh_keys, sizeof(path));
		else if ((size_t)snprintf(path, sizeof(path), "%s/.config/"
		    "jailbee/authorized_keys", env->owner_home) >= sizeof(path))
			path[0] = '\0';
		if (strcmp(a->user, SSH_USER) != 0)
			reason = "user is not jailbee";
		else if (key_over(v.fingerprint))
			reason = "refusals_per_minute: key";
		else if ((charge = authkey_type_fido(type)))
			reason = "FIDO security key: user presence cannot be "
			    "checked";
		else if (draining)
			reason = "draining for a new version";
		else if (path[0] == '\0' || (rc = authkeys_contains(path,
		    env->owner_uid, type, blob, len, err, sizeof(err))) == -1) {
			log_warnx("ssh: %s", err);
			reason = "authorized_keys untrusted";
		} else if (rc == 0) {
			reason = "key not authorized";
			charge = 1;
		}
	}
	v.ok = reason == NULL;
	(void)raw(s, IMSG_SSHD_VERDICT, &v, sizeof(v), -1);
	strlcpy(s->fp, v.fingerprint, sizeof(s->fp));
	/*
	 * A probe that passes decides nothing yet; its signature does.  Of
	 * a key that logged in lately, it keeps the connection's place
	 * while the client signs (a touch, a passphrase may take a while).
	 */
	if (v.ok && !a->verified) {
		memset(&kn, 0, sizeof(kn));
		if (!s->known && (kn.key = recent_find(s->fp)) != 0) {
			s->known = 1;
			kn.id = s->id;
			(void)imsgev_compose(&children[PROC_SSHD].iev,
			    IMSG_SSHD_KNOWN, 0, 0, -1, &kn, sizeof(kn));
		}
		return 0;
	}
	if (v.ok) {
		s->authed = 1;
		recent_add(s->fp);
		memset(&au, 0, sizeof(au));
		au.id = s->id;
		/* no longer one of its source's unauthenticated connections */
		(void)imsgev_compose(&children[PROC_SSHD].iev,
		    IMSG_SSHD_AUTHED, 0, 0, -1, &au, sizeof(au));
		journal(s, "auth", "accept", NULL, 0);
		return 0;
	}
	/* the parent counts too: a session past the limit is dropped */
	if (++s->nrefused > SSH_AUTH_TRIES_SLACK)
		return -1;
	if (refusal_counted(s, charge ? s->fp : NULL))
		journal(s, "auth", "refuse", reason, 0);
	return 0;
}

/*
 * A subsystem: sftp alone, while remote.ssh.files is on in the config
 * as it is now; a channel granted keeps its grant (the seed's snapshot)
 */
static int
subsys(struct sshsess *s, struct imsg *imsg)
{
	struct jb_sshd_subsys	 q;
	struct jb_sshd_verdict	 v;
	const char		*reason = NULL;

	if (imsg_get_data(imsg, &q, sizeof(q)) == -1)
		return -1;
	q.name[sizeof(q.name) - 1] = '\0';
	memset(&v, 0, sizeof(v));
	strlcpy(s->route, "subsystem sftp", sizeof(s->route));
	s->leaf[0] = s->target[0] = s->repo[0] = '\0';
	if (strcmp(q.name, "sftp") != 0)
		reason = "not served";
	else if (draining)
		reason = "draining for a new version";
	else if (!conf_ssh_files(&env->conf))
		reason = "remote.ssh.files is off";
	v.ok = reason == NULL;
	(void)raw(s, IMSG_SSHD_VERDICT, &v, sizeof(v), -1);
	if (v.ok)
		s->sftp = 1;
	if (++s->nrefused > SSH_REFUSALS_MAX && !v.ok)
		return -1;
	journal(s, strcmp(q.name, "sftp") == 0 ? "subsystem sftp" :
	    "subsystem", v.ok ? "accept" : "refuse", reason, 0);
	return 0;
}

/*
 * The dashboard a session opens asks which of its actions this session's
 * policy admits (the policy it took when it connected): those it offers,
 * the others it does not draw.  Each action is still judged in full, as
 * a console line, when it runs.
 */
static int
dash_keys(struct sshsess *s, struct imsg *imsg)
{
	struct jb_sshd_dash	k;
	struct sshp_conf	pc;
	uint32_t		i;

	if (imsg_get_data(imsg, &k, sizeof(k)) == -1 ||
	    k.n > JB_SSHD_DASH_MAX)
		return -1;
	memset(k.ok, 0, sizeof(k.ok));
	if (s->pol != NULL) {
		sshsnap_policy(s->pol, &pc);
		for (i = 0; i < k.n; i++)
			k.ok[i] = !draining &&
			    sshpolicy_admits(&pc, k.id[i]);
	}
	/* the dashboard opened: one line, its looks are not journalled */
	strlcpy(s->route, "dashboard", sizeof(s->route));
	strlcpy(s->leaf, "dashboard", sizeof(s->leaf));
	s->target[0] = s->repo[0] = '\0';
	journal(s, s->route, "accept", "opened", 0);
	return raw(s, IMSG_SSHD_DASH_OK, &k, sizeof(k), -1);
}

/* an event for a dashboard: an excluded repo's container is not named */
int
sshd_event_hidden(const struct sshsess *s, const char *container)
{
	return sshsnap_hides(s->pol, container);
}

int
sshd_dispatch(struct sshsess *s, struct imsg *imsg)
{
	struct jb_sshd_auth	*a;
	struct jb_sshd_env	 e;
	struct jb_sshd_exec	*x;
	struct jb_sshd_refused	 r;
	struct jb_winsize	 ws;
	struct job		*job;
	int			 rc = 0;

	switch (imsg_get_type(imsg)) {
	case IMSG_SSHD_AUTH:
		if (s->authed || (a = malloc(sizeof(*a))) == NULL)
			return -1;
		if (imsg_get_data(imsg, a, sizeof(*a)) == -1)
			rc = -1;
		else
			rc = auth(s, a);
		free(a);
		return rc;
	case IMSG_SSHD_REFUSED:
		if (imsg_get_data(imsg, &r, sizeof(r)) == -1 ||
		    r.what == SSHD_REFUSED_NONE || r.what >= SSHD_REFUSED_MAX)
			return -1;
		/*
		 * Bounded whatever the session says: so many refusals, then
		 * the session is dropped (it counts its logins itself too)
		 */
		if (++s->nrefused > (s->authed ? SSH_REFUSALS_MAX :
		    SSH_AUTH_TRIES_SLACK))
			return -1;
		if (s->authed || refusal_counted(s, NULL))
			journal(s, refusal_names[r.what], "refuse",
			    "not served", 0);
		return 0;
	case IMSG_SSHD_ENV:
		if (!s->authed || imsg_get_data(imsg, &e, sizeof(e)) == -1)
			return -1;
		e.name[sizeof(e.name) - 1] = '\0';
		e.value[sizeof(e.value) - 1] = '\0';
		if (env_ok(&e) && s->nenv < 5)
			snprintf(s->env[s->nenv++], sizeof(s->env[0]), "%s=%s",
			    e.name, e.value);
		return 0;
	case IMSG_SSHD_EXEC:
		if (!s->authed || s->busy || (x = malloc(sizeof(*x))) == NULL)
			return -1;
		if (imsg_get_data(imsg, x, sizeof(*x)) == -1)
			rc = -1;
		else {
			x->line[sizeof(x->line) - 1] = '\0';
			x->term[sizeof(x->term) - 1] = '\0';
			run_exec(s, x);
		}
		free(x);
		return rc;
	case IMSG_SSHD_DASH:
		if (!s->authed || s->busy || s->sftp)
			return -1;
		return dash_keys(s, imsg);
	case IMSG_CTL_WATCH:
		/* the dashboard's subscription: events between its requests */
		if (!s->authed || s->sftp)
			return -1;
		control_watch(s->c);
		return 0;
	case IMSG_SSHD_SUBSYS:
		if (!s->authed || s->busy || s->sftp)
			return -1;
		return subsys(s, imsg);
	case IMSG_SSHD_SFTP:
		if (!s->sftp)
			return -1;
		return sftp_request(s, imsg, s->addr, s->port, s->fp);
	case IMSG_SSHD_SFTP_RESULT:
		if (!s->sftp)
			return -1;
		return sftp_result(s, imsg);
	case IMSG_CTL_WINSIZE:
		if (imsg_get_data(imsg, &ws, sizeof(ws)) == -1)
			return -1;
		if ((job = control_job(s->c)) != NULL)
			job_winsize(job, &ws);
		return 0;
	}
	return -1;
}

/* jbctl remote ssh status */
void
cmd_sshstatus(struct job *job)
{
	struct jb_output	o;
	int			i;

	memset(&o, 0, sizeof(o));
	o.which = 1;
	o.len = snprintf(o.data, sizeof(o.data), "listen: %s\ncommands: %s\n"
	    "restrict_host: %s\nsessions: %d\nstate: %s\n",
	    env->conf.ssh_listen, env->conf.ssh_mode,
	    env->conf.ssh_restrict_host ? "true" : "false", nsessions,
	    draining ? "draining (a new version is installed)" : "serving");
	for (i = 0; i < env->conf.ssh_nallow && o.len < sizeof(o.data); i++)
		o.len += snprintf(o.data + o.len, sizeof(o.data) - o.len,
		    "allow: %s\n", env->conf.ssh_allow[i]);
	if (o.len > sizeof(o.data))
		o.len = sizeof(o.data);
	(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
	job_end(job, 1, " ");
}
