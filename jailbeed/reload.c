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
 * Reload: SIGHUP or jbctl reload reads jailbeed.yaml again and puts it
 * in force whole, or not at all.  A file that does not parse changes
 * nothing.  Some keys shape the processes themselves (who the owner is,
 * where the sockets and the state are, which incusd and bridge); a file
 * that changes one of them is refused as a whole, naming the key, so the
 * running configuration never mixes two files.  The SSH policy and the
 * other keys take effect for what starts after: a running SSH session
 * keeps the policy it started with (sshsnap.c).  Every reload is
 * journalled.
 *
 * remote.ssh.listen moves only by jbctl reload: after the lock-down no
 * process of the suite may bind a port (the parent has no socket(2),
 * jb-sshd's Landlock ruleset lets it bind no TCP port), so the parent
 * asks jbctl, which runs as the owner or root, for a socket listening on
 * the new address, checks what comes back, and hands it to jb-sshd,
 * which closes the old one.  A SIGHUP has nobody to ask: a listen change
 * by signal is refused as a whole.
 */

#include <sys/socket.h>

#include <netinet/in.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jailbeed.h"
#include "log.h"

#define RELOAD_BIND_TIMEOUT	10	/* seconds jbctl has to bind */

/* a jbctl reload waiting for the socket of its new listen address */
static struct {
	struct job	*job;
	struct jb_conf	*conf;
	uid_t		 who;
	struct event	 timeout;
	int		 timer_set;
} pend;

/* the keys a reload cannot change, as the file names them */
static const struct fixed_key {
	const char	*key;
	size_t		 off;
	size_t		 size;
} fixed_keys[] = {
#define F(k, m)	{ k, offsetof(struct jb_conf, m), \
	    sizeof(((struct jb_conf *)NULL)->m) }
	F("owner", owner),
	F("socket", socket),
	F("state_dir", state_dir),
	F("incus.url", incus_url),
	F("incus.bridge", bridge),
	F("incus.client_cert", incus_cert),
	F("incus.client_key", incus_key),
	F("incus.server_cert", incus_ca),
	F("remote.ssh.journal_keep", ssh_journal_keep),
	F("remote.ssh.max_unauthenticated_per_source", ssh_max_unauth),
	F("resolver.upstream", resolver_upstream),
	F("resolver.private_networks", resolver_private),
	F("resolver.private_networks", resolver_nprivate),
	F("network.subnet", subnet),
	F("cluster.member", cluster_member),
#undef F
};

/*
 * Parse the file and compare: -1 refused (msg says why, journalled),
 * 0 nothing asks for a socket (*np to commit), 1 remote.ssh.listen
 * changed (*np holds the file).
 */
static int
reload_check(uid_t who, struct jb_conf **np, char *msg, size_t len)
{
	struct jb_conf	*n;
	char		 err[JB_ERR_MAX];
	size_t		 i;

	*np = NULL;
	if ((n = calloc(1, sizeof(*n))) == NULL) {
		snprintf(msg, len, "reload: out of memory; the running "
		    "configuration is unchanged");
		sshd_journal_reload(who, "refuse", "out of memory");
		return -1;
	}
	if (conf_load(env->conf_path, 1, n, err, sizeof(err)) == -1) {
		snprintf(msg, len, "reload: %s; the running configuration is "
		    "unchanged: fix the file and reload again", err);
		sshd_journal_reload(who, "refuse", err);
		free(n);
		return -1;
	}
	for (i = 0; i < sizeof(fixed_keys) / sizeof(fixed_keys[0]); i++) {
		const struct fixed_key *f = &fixed_keys[i];

		if (memcmp((char *)n + f->off, (char *)&env->conf + f->off,
		    f->size) == 0)
			continue;
		snprintf(msg, len, "reload: %s: %s changed, which takes effect "
		    "only when jailbeed starts again; nothing was reloaded: "
		    "restart jailbeed, or put the old value back and reload",
		    env->conf_path, f->key);
		snprintf(err, sizeof(err), "%s changed: needs a restart",
		    f->key);
		sshd_journal_reload(who, "refuse", err);
		free(n);
		return -1;
	}
	*np = n;
	if (strcmp(n->ssh_listen, env->conf.ssh_listen) == 0)
		return 0;
	if (who == (uid_t)-1) {
		snprintf(msg, len, "reload: %s: remote.ssh.listen changed "
		    "(%s to %s), which a SIGHUP cannot put in force: no "
		    "process of the suite may bind a port any more; nothing "
		    "was reloaded: run `jbctl reload` (as root for a port "
		    "below 1024), which binds the new address",
		    env->conf_path, env->conf.ssh_listen, n->ssh_listen);
		sshd_journal_reload(who, "refuse", "remote.ssh.listen changed: "
		    "needs jbctl reload");
		free(n);
		*np = NULL;
		return -1;
	}
	return 1;
}

/*
 * Put n in force (it is freed); fd: jb-sshd's new listening socket, or
 * -1 when the listen did not move or is now "off".
 */
static void
reload_commit(uid_t who, struct jb_conf *n, int fd, char *msg, size_t len)
{
	struct jb_sshd_limits	 lim;
	char			 old[sizeof(env->conf.ssh_listen)];
	char			 why[3 * sizeof(old)];
	int			 moved;

	moved = strcmp(n->ssh_listen, env->conf.ssh_listen) != 0;
	strlcpy(old, env->conf.ssh_listen, sizeof(old));
	if (memcmp(n, &env->conf, sizeof(*n)) == 0) {
		snprintf(msg, len, "reload: %s unchanged", env->conf_path);
		sshd_journal_reload(who, "accept", "unchanged");
		free(n);
		return;
	}
	env->conf = *n;
	free(n);
	if (!moved) {
		snprintf(msg, len, "reload: %s in force; SSH sessions that "
		    "started before keep their policy", env->conf_path);
		sshd_journal_reload(who, "accept", "reloaded");
		return;
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_unauth = env->conf.ssh_max_unauth;
	if (imsgev_compose(&children[PROC_SSHD].iev, IMSG_SSHD_REBIND, 0, 0,
	    fd, &lim, sizeof(lim)) == -1)
		log_warn("reload: cannot hand jb-sshd its new socket");
	snprintf(msg, len, "reload: %s in force; SSH now %s %s (was %s); "
	    "SSH sessions that started before keep running and keep their "
	    "policy", env->conf_path, strcmp(env->conf.ssh_listen, "off") == 0
	    ? "listens" : "listens on", strcmp(env->conf.ssh_listen, "off") ==
	    0 ? "nowhere (off)" : env->conf.ssh_listen, old);
	snprintf(why, sizeof(why), "reloaded; remote.ssh.listen %s -> %s",
	    old, env->conf.ssh_listen);
	sshd_journal_rebind(who, why, old, env->conf.ssh_listen);
}

/* SIGHUP: -1 and why when nothing changed */
int
conf_reload(uid_t who, char *msg, size_t len)
{
	struct jb_conf	*n;

	if (reload_check(who, &n, msg, len) == -1)
		return -1;
	reload_commit(who, n, -1, msg, len);
	return 0;
}

static void
reload_say(struct job *job, const char *msg)
{
	struct jb_output	o;

	log_info("%s", msg);
	memset(&o, 0, sizeof(o));
	o.which = 1;
	o.len = snprintf(o.data, sizeof(o.data), "%s\n", msg);
	if (o.len > sizeof(o.data))
		o.len = sizeof(o.data);
	(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
	job_end(job, 1, " ");
}

static void
reload_pend_clear(void)
{
	if (pend.timer_set)
		evtimer_del(&pend.timeout);
	pend.timer_set = 0;
	free(pend.conf);
	pend.conf = NULL;
	pend.job = NULL;
}

/* nothing changes: say why, journal it, end the job */
static void
reload_pend_refuse(const char *msg, const char *reason)
{
	struct job	*job = pend.job;

	sshd_journal_reload(pend.who, "refuse", reason);
	reload_pend_clear();
	log_warnx("%s", msg);
	if (job->c != NULL)
		control_expect_fd(job->c, 0);
	job_end(job, 0, "%s", msg);
}

static void
reload_bind_timeout(int fd, short event, void *arg)
{
	char	msg[JB_ERR_TEXT_MAX];

	pend.timer_set = 0;
	snprintf(msg, sizeof(msg), "reload: jbctl sent no socket for %s "
	    "within %d s; nothing was reloaded", pend.conf->ssh_listen,
	    RELOAD_BIND_TIMEOUT);
	reload_pend_refuse(msg, "remote.ssh.listen: no socket from jbctl");
}

/* 1: job waits for its socket */
int
reload_waits(const struct job *job)
{
	return job != NULL && pend.job == job;
}

/* the client left while its reload waited: nothing changes */
void
reload_abandon(struct job *job)
{
	if (!reload_waits(job))
		return;
	reload_pend_refuse("reload: jbctl left before it sent the socket; "
	    "nothing was reloaded", "remote.ssh.listen: jbctl left");
}

/*
 * The socket must be what jb-sshd can serve and exactly where the file
 * says: a listening TCP socket bound to ADDR:PORT.  0 or -1 and why.
 */
static int
listen_sock_ok(int fd, const char *addr, char *why, size_t len)
{
	struct sockaddr_storage	 want, got;
	socklen_t		 sl;
	int			 v;

	if (conf_listen_addr(addr, &want) == -1) {
		snprintf(why, len, "%s is not ADDR:PORT", addr);
		return -1;
	}
	sl = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &sl) == -1 ||
	    v != SOCK_STREAM) {
		snprintf(why, len, "the descriptor is no stream socket");
		return -1;
	}
	sl = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &sl) == -1 ||
	    v != want.ss_family) {
		snprintf(why, len, "the socket is not of %s's family", addr);
		return -1;
	}
	sl = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &sl) == -1 ||
	    v != 1) {
		snprintf(why, len, "the socket does not listen");
		return -1;
	}
	memset(&got, 0, sizeof(got));
	sl = sizeof(got);
	if (getsockname(fd, (struct sockaddr *)&got, &sl) == -1) {
		snprintf(why, len, "cannot read the socket's address");
		return -1;
	}
	if (want.ss_family == AF_INET) {
		struct sockaddr_in	*a = (struct sockaddr_in *)&want;
		struct sockaddr_in	*b = (struct sockaddr_in *)&got;

		if (sl == sizeof(*b) && a->sin_port == b->sin_port &&
		    a->sin_addr.s_addr == b->sin_addr.s_addr)
			return 0;
	} else {
		struct sockaddr_in6	*a = (struct sockaddr_in6 *)&want;
		struct sockaddr_in6	*b = (struct sockaddr_in6 *)&got;

		if (sl == sizeof(*b) && a->sin6_port == b->sin6_port &&
		    memcmp(&a->sin6_addr, &b->sin6_addr,
		    sizeof(a->sin6_addr)) == 0)
			return 0;
	}
	snprintf(why, len, "the socket is not bound to %s", addr);
	return -1;
}

/*
 * control.c: jbctl's LISTEN_FD for the reload job waits on it.  -1: the
 * message was malformed (the connection is dropped).
 */
int
reload_listen_fd(struct job *job, struct imsg *imsg)
{
	struct jb_ctl_listen	*l;
	struct jb_conf		*n;
	char			 msg[JB_ERR_TEXT_MAX], why[256];
	uid_t			 who;
	int			 fd;

	if (!reload_waits(job))
		return -1;
	if ((l = malloc(sizeof(*l))) == NULL)
		return -1;
	if (imsg_get_data(imsg, l, sizeof(*l)) == -1) {
		free(l);
		return -1;
	}
	fd = imsg_get_fd(imsg);
	control_expect_fd(job->c, 0);
	if (strcmp(l->addr, pend.conf->ssh_listen) != 0) {
		if (fd != -1)
			close(fd);
		free(l);
		snprintf(msg, sizeof(msg), "reload: jbctl answered for another "
		    "address than %s; nothing was reloaded",
		    pend.conf->ssh_listen);
		reload_pend_refuse(msg, "remote.ssh.listen: wrong address");
		return 0;
	}
	if (fd == -1) {
		snprintf(msg, sizeof(msg), "reload: cannot listen on %s "
		    "(remote.ssh.listen in %s): %.256s; nothing was "
		    "reloaded, remote.ssh.listen stays %s", l->addr,
		    env->conf_path,
		    l->err[0] != '\0' ? l->err : "no socket came",
		    env->conf.ssh_listen);
		snprintf(why, sizeof(why), "remote.ssh.listen %s: cannot "
		    "bind", l->addr);
		free(l);
		reload_pend_refuse(msg, why);
		return 0;
	}
	if (listen_sock_ok(fd, l->addr, why, sizeof(why)) == -1) {
		close(fd);
		snprintf(msg, sizeof(msg), "reload: the socket jbctl sent for "
		    "%s: %s; nothing was reloaded", l->addr, why);
		free(l);
		reload_pend_refuse(msg, "remote.ssh.listen: bad socket");
		return 0;
	}
	free(l);
	n = pend.conf;
	who = pend.who;
	pend.conf = NULL;
	reload_pend_clear();
	reload_commit(who, n, fd, msg, sizeof(msg));
	reload_say(job, msg);
	return 0;
}

/* jbctl reload: the host's owner or root, never a jb-sshd session */
void
cmd_reload(struct job *job)
{
	struct timeval		 tv = { RELOAD_BIND_TIMEOUT, 0 };
	struct jb_ctl_listen	*l;
	struct jb_conf		*n;
	char			 msg[JB_ERR_TEXT_MAX];
	uid_t			 who;

	if (job->remote) {
		job_end(job, 0, "reload: not available over SSH");
		return;
	}
	if (job->c == NULL) {
		job_end(job, 0, "reload: the client left");
		return;
	}
	if (pend.job != NULL) {
		job_end(job, 0, "reload: another jbctl reload is waiting for "
		    "its listening socket; try again in a moment");
		return;
	}
	who = control_uid(job->c);
	switch (reload_check(who, &n, msg, sizeof(msg))) {
	case -1:
		log_warnx("%s", msg);
		job_end(job, 0, "%s", msg);
		return;
	case 0:
		reload_commit(who, n, -1, msg, sizeof(msg));
		reload_say(job, msg);
		return;
	}
	if (strcmp(n->ssh_listen, "off") == 0) {
		/* no socket to ask for: jb-sshd only closes its own */
		reload_commit(who, n, -1, msg, sizeof(msg));
		reload_say(job, msg);
		return;
	}
	/* jbctl binds the new address; the answer comes to control.c */
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		free(n);
		sshd_journal_reload(who, "refuse", "out of memory");
		job_end(job, 0, "reload: out of memory; the running "
		    "configuration is unchanged");
		return;
	}
	strlcpy(l->addr, n->ssh_listen, sizeof(l->addr));
	pend.job = job;
	pend.conf = n;
	pend.who = who;
	control_expect_fd(job->c, 1);
	(void)job_reply(job, IMSG_CTL_LISTEN_ASK, l, sizeof(*l), -1);
	free(l);
	evtimer_set(&pend.timeout, reload_bind_timeout, NULL);
	evtimer_add(&pend.timeout, &tv);
	pend.timer_set = 1;
}
