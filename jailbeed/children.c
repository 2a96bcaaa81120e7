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
 * The four children: started by fork + exec from LIBEXECDIR, each with
 * its channel on fd 3.  Star topology: every request that needs a child
 * goes through here.  A child that dies or closes its channel takes the
 * whole suite down (no half-alive states; the service manager restarts).
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jailbeed.h"
#include "memtrim.h"
#include "log.h"
#include "policyrec.h"
#include "netpin.h"
#include "proc.h"
#include "secrets.h"
#include "testhook.h"

struct jb_child children[PROC_MAX] = {
	[PROC_INCUS] =	{ .name = "jb-incus" },
	[PROC_NETD] =	{ .name = "jb-netd" },
	[PROC_MOUNTD] =	{ .name = "jb-mountd" },
	[PROC_SSHD] =	{ .name = "jb-sshd" },
	[PROC_GITD] =	{ .name = "jb-gitd" },
	[PROC_EGRESS] =	{ .name = "jb-egress" },
};

static void	from_child(int, short, void *);

/*
 * jb-mountd's own directory under the state directory (mount deadlines):
 * the owner's, 0700, made here while we are still root.  An existing one
 * that is a symlink or not the owner's is refused, not repaired.
 */
static void
mountdir_make(char *dir, size_t len)
{
	struct stat	st;
	int		fd;

	if ((size_t)snprintf(dir, len, "%s/mounts", env->conf.state_dir) >=
	    len)
		fatalx("state_dir %s: too long", env->conf.state_dir);
	/*
	 * The owner must pass through the state directory to reach its
	 * own: search, not read (0711); what else is kept there keeps
	 * its own modes.
	 */
	if (lstat(env->conf.state_dir, &st) == -1 || !S_ISDIR(st.st_mode))
		fatalx("state_dir %s: not a directory", env->conf.state_dir);
	if (st.st_uid == 0 && (st.st_mode & 0111) != 0111 &&
	    chmod(env->conf.state_dir, (st.st_mode & 0700) | 0711) == -1)
		fatal("chmod %s", env->conf.state_dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		fatal("mkdir %s", dir);
	/* changed through its own fd: never through a symlink */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		fatal("%s: not a directory", dir);
	if (fstat(fd, &st) == -1)
		fatal("%s", dir);
	if (st.st_uid != env->owner_uid && (st.st_uid != 0 ||
	    fchown(fd, env->owner_uid, env->owner_gid) == -1))
		fatalx("%s belongs to uid %u, not the owner: remove it",
		    dir, (unsigned)st.st_uid);
	if (fchmod(fd, 0700) == -1)
		fatal("chmod %s", dir);
	(void)close(fd);
}

void
children_spawn(void)
{
	struct jb_child	*c;
	char		 path[PATH_MAX], name[JB_NAME_MAX];
	char		 mountdir[PATH_MAX];
	char		 privnets[JB_SSH_LIST_MAX * 20];
	char		 gwports[JB_SSH_LIST_MAX * 8], proxyport[8];
	char		*argv[26];
	int		 sp[2], i, argc;

	mountdir_make(mountdir, sizeof(mountdir));
	/* resolver.private_networks for jb-netd, comma-separated */
	privnets[0] = '\0';
	for (i = 0; i < env->conf.resolver_nprivate; i++) {
		if (i > 0)
			(void)strlcat(privnets, ",", sizeof(privnets));
		(void)strlcat(privnets, env->conf.resolver_private[i],
		    sizeof(privnets));
	}

	/* network.gateway_ports for jb-netd and jb-egress, comma-separated */
	gwports[0] = '\0';
	for (i = 0; i < env->conf.gw_nports; i++) {
		if (i > 0)
			(void)strlcat(gwports, ",", sizeof(gwports));
		(void)strlcat(gwports, env->conf.gw_ports[i], sizeof(gwports));
	}

	(void)snprintf(proxyport, sizeof(proxyport), "%d",
	    env->conf.proxy_port);

	for (i = 0; i < PROC_MAX; i++) {
		c = &children[i];
		/*
		 * jb-incus for the local socket carries no TLS code and loads
		 * no OpenSSL; an https Incus gets the same program built with
		 * it.  Either runs as jb-incus, under jb-incus's sandbox.
		 */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s%s", LIBEXECDIR,
		    c->name, i == PROC_INCUS && strncmp(env->conf.incus_url,
		    "https://", 8) == 0 ? "-tls" : "") >= sizeof(path))
			fatalx("%s: path too long", c->name);
		if (access(path, X_OK) == -1)
			fatal("cannot run %s (installed with the suite under "
			    "%s)", path, LIBEXECDIR);
		argc = 0;
		strlcpy(name, c->name, sizeof(name));
		argv[argc++] = name;
		if (env->debug)
			argv[argc++] = "-d";
		if (env->verbose)
			argv[argc++] = "-v";
		if (env->sandbox_debug)
			argv[argc++] = "-D";
		if (jb_testing)
			argv[argc++] = "-T";
		if (i == PROC_NETD) {
			argv[argc++] = "-b";
			argv[argc++] = env->conf.bridge;
			argv[argc++] = "-s";
			argv[argc++] = env->conf.state_dir;
			/* the start gates live beside the control socket */
			argv[argc++] = "-S";
			argv[argc++] = env->conf.socket;
			if (env->conf.resolver_upstream[0] != '\0') {
				argv[argc++] = "-U";
				argv[argc++] = env->conf.resolver_upstream;
			}
			if (env->conf.resolver_nprivate > 0) {
				argv[argc++] = "-P";
				argv[argc++] = privnets;
			}
		}
		if (i == PROC_NETD && env->conf.proxy_port != 0) {
			argv[argc++] = "-X";
			argv[argc++] = proxyport;
		}
		if ((i == PROC_NETD || i == PROC_EGRESS) &&
		    env->conf.gw_nports > 0) {
			argv[argc++] = "-G";
			argv[argc++] = gwports;
		}
		/* the trust store for the secrets' hosts, opened at its start */
		if (i == PROC_EGRESS) {
			argv[argc++] = "-a";
			argv[argc++] = env->conf.gw_trust;
		}
		if (i == PROC_SSHD) {
			argv[argc++] = "-s";
			argv[argc++] = env->conf.state_dir;
		}
		if (i == PROC_GITD) {
			argv[argc++] = "-o";
			argv[argc++] = env->conf.owner;
		}
		if (i == PROC_MOUNTD) {
			argv[argc++] = "-o";
			argv[argc++] = env->conf.owner;
			argv[argc++] = "-m";
			argv[argc++] = mountdir;
		}
		if (i == PROC_INCUS) {
			/*
			 * What jb-incus bounds every later request by: the
			 * owner (it resolves the name itself), the state
			 * directory and the control socket, given now, while
			 * this process is root and has read nothing but its
			 * own configuration.
			 */
			argv[argc++] = "-o";
			argv[argc++] = env->conf.owner;
			argv[argc++] = "-s";
			argv[argc++] = env->conf.state_dir;
			argv[argc++] = "-S";
			argv[argc++] = env->conf.socket;
			argv[argc++] = "-e";
			argv[argc++] = env->conf.incus_url;
			argv[argc++] = "-b";
			argv[argc++] = env->conf.bridge;
			if (env->conf.incus_cert[0] != '\0') {
				argv[argc++] = "-c";
				argv[argc++] = env->conf.incus_cert;
				argv[argc++] = "-k";
				argv[argc++] = env->conf.incus_key;
				argv[argc++] = "-a";
				argv[argc++] = env->conf.incus_ca;
			}
		}
		argv[argc] = NULL;

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)
		    == -1)
			fatal("socketpair");
		if ((c->pid = proc_spawn(path, argv, sp[1])) == -1)
			fatal("fork %s", c->name);
		close(sp[1]);
		if (imsgev_init(&c->iev, sp[0], from_child, c) == -1)
			fatal("imsgbuf_init");
		/* exec streams come from jb-incus as fds */
		if (i == PROC_INCUS)
			imsgbuf_allow_fdpass(&c->iev.ibuf);
		/*
		 * the listening socket goes down, session channels come up
		 * (jb-sshd); image files jb-mountd opened as the owner
		 */
		if (i == PROC_SSHD || i == PROC_MOUNTD)
			imsgbuf_allow_fdpass(&c->iev.ibuf);
		/* the stream to git upload-pack goes down to jb-gitd */
		if (i == PROC_GITD)
			imsgbuf_allow_fdsend(&c->iev.ibuf);
		/* and its listening socket to the egress gateway */
		if (i == PROC_EGRESS)
			imsgbuf_allow_fdsend(&c->iev.ibuf);
		log_debug("started %s, pid %d", c->name, (int)c->pid);
	}
}

/*
 * How child i ended, for the journal.  SIGSYS is its own seccomp filter
 * refusing a call: named, since that is a bug to report.  (No
 * strsignal(): its text may need the locale's files, out of reach.)
 */
static void
child_death_log(int i, pid_t pid, int status)
{
	if (WIFSIGNALED(status))
		log_warnx("%s (pid %d) killed by signal %d%s",
		    children[i].name, (int)pid, WTERMSIG(status),
		    WTERMSIG(status) == SIGSYS ? " (SIGSYS: a system call "
		    "its seccomp filter does not allow)" : "");
	else
		log_warnx("%s (pid %d) exited with status %d",
		    children[i].name, (int)pid, WEXITSTATUS(status));
}

/*
 * Close every channel: each child exits when it reads EOF.  The parent
 * may no longer signal them (it dropped to the owner), so it waits.
 */
void
children_stop(void)
{
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	int		 i, left, tries, status;
	pid_t		 pid;

	for (i = 0; i < PROC_MAX; i++)
		if (children[i].iev.ibuf.fd != -1 && children[i].pid > 0)
			imsgev_clear(&children[i].iev);
	for (tries = 0; tries < 150; tries++) {
		left = 0;
		for (i = 0; i < PROC_MAX; i++) {
			if (children[i].pid <= 0)
				continue;
			pid = waitpid(children[i].pid, &status, WNOHANG);
			/* EOF makes a child exit; a signal is news */
			if (pid == children[i].pid && WIFSIGNALED(status))
				child_death_log(i, pid, status);
			if (pid == children[i].pid ||
			    (pid == -1 && errno == ECHILD))
				children[i].pid = 0;
			else
				left++;
		}
		if (left == 0)
			return;
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < PROC_MAX; i++)
		if (children[i].pid > 0)
			log_warnx("%s (pid %d) did not exit in time",
			    children[i].name, (int)children[i].pid);
}

/* SIGCHLD: any child (jb-reaper too) gone: the suite is no longer whole */
void
children_reap(void)
{
	int	 i, status;
	pid_t	 pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (reaper_reaped(pid, status))
			jailbeed_shutdown(1);
		for (i = 0; i < PROC_MAX; i++) {
			if (children[i].pid != pid)
				continue;
			children[i].pid = 0;
			child_death_log(i, pid, status);
			/* jb-sshd drained for a new version: restart */
			if (i == PROC_SSHD && sshd_draining()) {
				log_warnx("a new version is installed: "
				    "exiting with 75 for a restart");
				jailbeed_shutdown(75);
			}
			jailbeed_shutdown(1);
		}
	}
}

int
children_status_req(uint32_t rid)
{
	int	i;

	for (i = 0; i < PROC_MAX; i++)
		if (imsgev_compose(&children[i].iev, IMSG_STATUS_REQ, rid, 0,
		    -1, NULL, 0) == -1)
			return -1;
	return PROC_MAX;
}

int
children_find(const char *name)
{
	int	i;

	for (i = 0; i < PROC_MAX; i++)
		if (strcmp(children[i].name, name) == 0)
			return i;
	return -1;
}

int
children_test_attempt(int i, uint32_t rid, const struct jb_test_attempt *a)
{
	return imsgev_compose(&children[i].iev, IMSG_TEST_ATTEMPT, rid, 0, -1,
	    a, sizeof(*a));
}

static void
from_child(int fd, short event, void *arg)
{
	struct jb_child		*c = arg;
	struct imsg		 imsg;
	struct jb_proc_status	 st;
	int			 n;

	if ((n = imsgev_io(&c->iev, event)) == -1)
		fatal("channel to %s", c->name);
	if (n == 0) {
		/* jb-sshd drained for a new version: restart */
		if (c - children == PROC_SSHD && sshd_draining()) {
			log_warnx("a new version is installed: exiting with "
			    "75 for a restart");
			jailbeed_shutdown(75);
		}
		log_warnx("%s closed its channel", c->name);
		jailbeed_shutdown(1);
	}
	for (;;) {
		if ((n = jb_imsg_get(&c->iev.ibuf, &imsg,
		    jb_msg_peer(c->name), JB_PEER_PARENT)) == -1) {
			log_warn("bad message from %s", c->name);
			jailbeed_shutdown(1);
		}
		if (n == 0)
			break;
		switch (imsg_get_type(&imsg)) {
		case IMSG_CHILD_READY:
			if (imsg_get_len(&imsg) != 0 || c->ready) {
				log_warnx("%s: bad CHILD_READY", c->name);
				jailbeed_shutdown(1);
			}
			c->ready = 1;
			log_debug("%s is ready", c->name);
			break;
		case IMSG_STATUS:
			if (imsg_get_data(&imsg, &st, sizeof(st)) == -1 ||
			    st.name[sizeof(st.name) - 1] != '\0' ||
			    st.detail[sizeof(st.detail) - 1] != '\0' ||
			    st.sandbox[sizeof(st.sandbox) - 1] != '\0' ||
			    strcmp(st.name, c->name) != 0 || st.pid != c->pid) {
				log_warnx("%s: malformed STATUS", c->name);
				jailbeed_shutdown(1);
			}
			control_child_status(imsg_get_id(&imsg), &st);
			break;
		case IMSG_TEST_RESULT: {
			struct jb_ctl_text	t;

			if (!jb_testing ||
			    imsg_get_data(&imsg, &t, sizeof(t)) == -1) {
				log_warnx("%s: malformed TEST_RESULT", c->name);
				jailbeed_shutdown(1);
			}
			t.text[sizeof(t.text) - 1] = '\0';
			control_child_text(imsg_get_id(&imsg),
			    IMSG_CTL_TEST_RESULT, t.text);
			break;
		}
		case IMSG_SSHD_SESSION:
			if (c - children != PROC_SSHD ||
			    sshd_session_new(&imsg) == -1) {
				log_warnx("%s: bad SSHD_SESSION", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_DONE:
		case IMSG_PROGRESS:
		case IMSG_INCUS_INSTANCE:
		case IMSG_INCUS_SNAPSHOT:
		case IMSG_INCUS_EXEC_FD:
		case IMSG_INCUS_OUTPUT:
		case IMSG_INCUS_EXIT:
		case IMSG_INCUS_NETINFO:
		case IMSG_INCUS_ADDRS:
		case IMSG_MOUNTD_REPO_INFO:
		case IMSG_INCUS_DISK:
		case IMSG_INCUS_STARTED:	/* new */
		case IMSG_MOUNTD_CHECKED:
		case IMSG_MOUNTD_DEADLINE:
		case IMSG_MOUNTD_IMAGE_FD:
		case IMSG_MOUNTD_SSH_DIR:
		case IMSG_MOUNTD_RESOLVED:
		case IMSG_MOUNTD_GITIDENT_INFO:
		case IMSG_MOUNTD_DEFCONF_TEXT:	/* escalation gate */
		case IMSG_MOUNTD_SHARED_PATH:	/* agents' shared */
		case IMSG_MOUNTD_SECRET_VALUE:	/* secrets */
		case IMSG_EGRESS_CA:
		case IMSG_INCUS_IMAGE:
		case IMSG_NETD_MODE_ENTRY:	/* ls */
		case IMSG_INCUS_PORT:
		case IMSG_NETD_CTR:
		case IMSG_NETD_ALLOW:
		case IMSG_NETD_ADDR:
		case IMSG_INCUS_SERVER_INFO:
		case IMSG_INCUS_LIMITS:
		case IMSG_NETD_CHECKED:
		case IMSG_NETD_BLOCK:
		case IMSG_NETD_RESOLVED:	/* net refresh */
		case IMSG_NETD_RECORD:		/* policy for Incus */
		case IMSG_INCUS_POLICY:		/* start-up sync */
		case IMSG_INCUS_MEMBOX_KV:	/* the cluster mailbox */
		case IMSG_GITD_RESULT:		/* the git bridge over SSH */
			if (req_dispatch(c - children, &imsg) == -1)
				jailbeed_shutdown(1);
			break;
		case IMSG_NETD_PIN:	/* unasked, or a reply */
			if (c - children != PROC_NETD ||
			    (imsg_get_id(&imsg) == 0 ?
			    netpin_unasked(&imsg) :
			    req_dispatch(c - children, &imsg)) == -1) {
				log_warnx("%s: bad NETD_PIN", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_NETD_STOP:	/* fail closed: unasked */
			if (c - children != PROC_NETD ||
			    net_stuck(&imsg) == -1) {
				log_warnx("%s: bad NETD_STOP", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_NETD_REFUSED_NOTE:	/* for the watchers */
			if (c - children != PROC_NETD ||
			    net_refused_note(&imsg) == -1) {
				log_warnx("%s: bad NETD_REFUSED_NOTE", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_INCUS_EVENT:	/* Incus's event stream: unasked */
			if (c - children != PROC_INCUS ||
			    netfollow_event(&imsg) == -1) {
				log_warnx("%s: bad INCUS_EVENT", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_NETD_AUDIT:	/* the journal: unasked */
			if (c - children != PROC_NETD ||
			    audit_netd(&imsg) == -1) {
				log_warnx("%s: bad NETD_AUDIT", c->name);
				jailbeed_shutdown(1);
			}
			net_audit_note(&imsg);
			break;
		case IMSG_EGRESS_POLICY:	/* jb-netd's, unasked */
		case IMSG_EGRESS_ADMIT:
			if (c - children != PROC_NETD ||
			    egress_relay(&imsg) == -1) {
				log_warnx("%s: bad %s", c->name,
				    jb_imsg_name(imsg_get_type(&imsg)));
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_EGRESS_ADMITTED:
			if (c - children != PROC_EGRESS ||
			    egress_admitted(&imsg) == -1) {
				log_warnx("%s: bad EGRESS_ADMITTED", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_EGRESS_RESOLVE:	/* the proxy's names */
			if (c - children != PROC_EGRESS ||
			    egress_resolve(&imsg, PROC_NETD) == -1) {
				log_warnx("%s: bad EGRESS_RESOLVE", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_EGRESS_RESOLVED:
			if (c - children != PROC_NETD ||
			    egress_resolve(&imsg, PROC_EGRESS) == -1) {
				log_warnx("%s: bad EGRESS_RESOLVED", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_EGRESS_REFUSED:
			if (c - children != PROC_EGRESS ||
			    egress_refused(&imsg) == -1) {
				log_warnx("%s: bad EGRESS_REFUSED", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_EGRESS_SUBST:	/* the journal: unasked */
			if (c - children != PROC_EGRESS ||
			    egress_subst(&imsg) == -1) {
				log_warnx("%s: bad EGRESS_SUBST", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_EGRESS_FRESH_ASK:
			if (c - children != PROC_EGRESS ||
			    secrets_fresh(&imsg) == -1) {
				log_warnx("%s: bad EGRESS_FRESH_ASK", c->name);
				jailbeed_shutdown(1);
			}
			break;
		case IMSG_MOUNTD_EXPIRED:
			if (c - children != PROC_MOUNTD ||
			    mounts_expired(&imsg) == -1) {
				log_warnx("%s: bad MOUNTD_EXPIRED", c->name);
				jailbeed_shutdown(1);
			}
			break;
		default:
			log_warnx("%s sent an unexpected message %s (%u)",
			    c->name, jb_imsg_name(imsg_get_type(&imsg)),
			    imsg_get_type(&imsg));
			jailbeed_shutdown(1);
		}
		imsg_free(&imsg);
	}
	imsgev_add(&c->iev);
	memtrim_soon();
}
