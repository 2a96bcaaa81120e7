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
 * jailbeed: the parent.  Starts as root, spawns its four children, opens
 * the control socket for the owner, then drops to the owner with no
 * capability at all.  It holds the configuration and decides; the
 * children hold the rights.
 */

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cmdtab.h"
#include "diskq.h"
#include "jailbeed.h"
#include "gate.h"
#include "jobs.h"
#include "log.h"
#include "memtrim.h"
#include "secrets.h"
#include "proc.h"
#include "sandbox.h"
#include "sandbox_procs.h"
#include "testhook.h"

struct jailbeed		*env;
static struct jailbeed	 jailbeed_env;

static void	jailbeed_sig(int, short, void *);
static int	owner_resolve(struct jailbeed *, char *, size_t);
static void	pid_write(void);

/* -p: the pid file a service script stops and reloads by */
static const char	*pidfile;
static int		 pid_written;

/*
 * -T is for the test suite: refused unless -f names a file other than
 * the installed configuration (the same file by another path included)
 */
static int
test_conf_refused(const char *path, int explicit)
{
	struct stat	a, b;

	if (!explicit || strcmp(path, JB_CONF_PATH) == 0)
		return 1;
	if (stat(path, &a) == 0 && stat(JB_CONF_PATH, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 1;
	return 0;
}

static __dead void
usage(void)
{
	extern char	*__progname;

	fprintf(stderr, "usage: %s [-dDnTv] [-f file] [-p pidfile]\n",
	    __progname);
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct event	 evterm, evint, evhup, evchld, evpipe;
	struct passwd	*pw;
	char		 err[JB_ERR_MAX], sockdir[PATH_MAX], self[PATH_MAX];
	char		 pools[PATH_MAX];
	const struct cmd	*unhandled;
	int		 ch, noaction = 0, explicit = 0, taken = 0;

	memtrim_init();
	env = &jailbeed_env;
	env->conf_path = JB_CONF_PATH;
	while ((ch = getopt(argc, argv, "dDf:np:Tv")) != -1) {
		switch (ch) {
		case 'D':
			env->sandbox_debug = 1;
			sandbox_set_debug(1);
			break;
		case 'd':
			env->debug = 1;
			break;
		case 'f':
			env->conf_path = optarg;
			explicit = 1;
			break;
		case 'n':
			noaction = 1;
			break;
		case 'p':
			if (optarg[0] != '/') {
				fprintf(stderr, "jailbeed: -p %s: not an "
				    "absolute path\n", optarg);
				exit(2);
			}
			pidfile = optarg;
			break;
		case 'T':
			jb_testing = 1;
			break;
		case 'v':
			env->verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (jb_testing && test_conf_refused(env->conf_path, explicit)) {
		fprintf(stderr, "jailbeed: -T turns on hooks for the test "
		    "suite and is refused with the installed configuration "
		    "%s: a test names its own file with -f\n", JB_CONF_PATH);
		exit(2);
	}
	if (sandbox_landlock_test_cap() == -1) {
		fprintf(stderr, "jailbeed: %s=%s: not a Landlock ABI; give "
		    "one from 1 to 7, or unset it\n", SANDBOX_ABI_CAP_ENV,
		    getenv(SANDBOX_ABI_CAP_ENV));
		exit(2);
	}

	/* the default file may be absent (defaults); a named one may not */
	if (conf_load(env->conf_path, !explicit, &env->conf, err,
	    sizeof(err)) == -1 || owner_resolve(env, err, sizeof(err)) == -1) {
		fprintf(stderr, "jailbeed: %s\n", err);
		exit(1);
	}
	/* every command the table gives the parent has its handler */
	if ((unhandled = job_unhandled()) != NULL) {
		fprintf(stderr, "jailbeed: command %s%s%s has no handler\n",
		    unhandled->words[0], unhandled->words[1] != NULL ? " " :
		    "", unhandled->words[1] != NULL ? unhandled->words[1] :
		    "");
		exit(1);
	}
	if (noaction) {
		/* -nv: the configuration as it is read, every key */
		if (env->verbose)
			conf_print(stdout, &env->conf);
		fprintf(stderr, "jailbeed: configuration OK\n");
		exit(0);
	}
	if (geteuid() != 0) {
		fprintf(stderr, "jailbeed: must be started as root: it starts "
		    "its children, then drops to the owner %s\n",
		    env->conf.owner);
		exit(1);
	}

	/* root's alone, said on the terminal before anything starts */
	if (mkdir(env->conf.state_dir, 0700) == -1 && errno != EEXIST) {
		fprintf(stderr, "jailbeed: mkdir %s: %s\n",
		    env->conf.state_dir, strerror(errno));
		exit(1);
	}
	if (statedir_check(env->conf.state_dir, err, sizeof(err)) == -1) {
		fprintf(stderr, "jailbeed: %s: %s\n", env->conf_path, err);
		exit(1);
	}

	log_init(env->debug, LOG_DAEMON);
	log_procinit("jailbeed");
	log_setverbose(env->verbose);
	if (!env->debug && daemon(0, 0) == -1)
		fatal("daemon");
	env->started = time(NULL);
	/* the installed binary, watched for a new version */
	if (realpath("/proc/self/exe", self) == NULL)
		fatal("realpath /proc/self/exe");

	event_init();
	signal_set(&evterm, SIGTERM, jailbeed_sig, NULL);
	signal_set(&evint, SIGINT, jailbeed_sig, NULL);
	signal_set(&evhup, SIGHUP, jailbeed_sig, NULL);
	signal_set(&evchld, SIGCHLD, jailbeed_sig, NULL);
	signal_set(&evpipe, SIGPIPE, jailbeed_sig, NULL);
	signal_add(&evterm, NULL);
	signal_add(&evint, NULL);
	signal_add(&evhup, NULL);
	signal_add(&evchld, NULL);
	signal_add(&evpipe, NULL);

	if ((env->host_cpus = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		env->host_cpus = 1;
	/*
	 * While root: a btrfs pool whose quota accounting is inconsistent
	 * holds no container to its disk size, and only root may rescan it
	 */
	if (diskq_pools_dir(env->conf.incus_url, pools, sizeof(pools)) == 0 &&
	    diskq_repair(pools, log_warnx) == -1)
		log_warnx("new and apply refuse a disk size on a pool whose "
		    "accounting stays inconsistent");
	control_refuse_second();
	/* where jb-netd opens the start gates, made before it starts */
	if (gate_prepare(env->conf.socket, env->owner_uid, &taken, err,
	    sizeof(err)) == -1)
		fatalx("%s", err);
	if (taken)
		log_info("socket directory of %s: now root's, mode 0755 (it "
		    "was the owner's)", env->conf.socket);
	children_spawn();
	control_init();
	/*
	 * While root: the gateway's socket on the bridge's address.  After
	 * control_init: a second jailbeed is told another one runs, not
	 * that the gateway's port is taken.
	 */
	egress_start();
	/* after control_init: a second jailbeed must not take the file */
	pid_write();
	/* after control_init: a second jailbeed is told so, not EADDRINUSE */
	audit_init();
	sshd_init();
	registry_init();
	sshd_start(self);
	if ((pw = getpwuid(env->owner_uid)) == NULL)
		fatalx("owner uid %u vanished", (unsigned)env->owner_uid);
	/*
	 * Once every child is started: a bound is never raised without
	 * CAP_SYS_RESOURCE, and a child's may be above ours (git's memory)
	 */
	proc_bound("jailbeed");
	priv_drop("jailbeed", pw, NULL, NULL, 0);
	control_listen();
	/* requests wait in the channels until the children run */
	netfollow_start();
	/* the running containers' secrets, handed to the new jb-egress */
	secrets_resume(NULL, NULL, NULL);
	strlcpy(sockdir, env->conf.socket, sizeof(sockdir));
	strlcpy(sockdir, dirname(sockdir), sizeof(sockdir));
	sandbox_jailbeed(sockdir, audit_dirfd());
	log_info("started for owner %s (uid %u), control socket %s",
	    env->conf.owner, (unsigned)env->owner_uid, env->conf.socket);

	event_dispatch();
	fatalx("event loop ended");
}

static int
owner_resolve(struct jailbeed *e, char *err, size_t errlen)
{
	struct passwd	*pw;

	if (e->conf.owner[0] == '\0') {
		snprintf(err, errlen, "%s: owner: not set; name the user the "
		    "suite serves (owner: NAME)", e->conf_path);
		return -1;
	}
	if ((pw = getpwnam(e->conf.owner)) == NULL) {
		snprintf(err, errlen, "%s: owner: no such user %s",
		    e->conf_path, e->conf.owner);
		return -1;
	}
	if (pw->pw_uid == 0) {
		snprintf(err, errlen, "%s: owner: must not be root: name the "
		    "unprivileged user the suite serves", e->conf_path);
		return -1;
	}
	e->owner_uid = pw->pw_uid;
	e->owner_gid = pw->pw_gid;
	if (strlcpy(e->owner_home, pw->pw_dir, sizeof(e->owner_home)) >=
	    sizeof(e->owner_home)) {
		snprintf(err, errlen, "%s: owner %s: home directory path too "
		    "long", e->conf_path, e->conf.owner);
		return -1;
	}
	return 0;
}


static void
jailbeed_sig(int sig, short event, void *arg)
{
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("terminating on signal %d", sig);
		jailbeed_shutdown(0);
	case SIGHUP: {
		char	msg[JB_ERR_TEXT_MAX];

		if (conf_reload((uid_t)-1, msg, sizeof(msg)) == -1)
			log_warnx("%s", msg);
		else
			log_info("%s", msg);
		break;
	}
	case SIGCHLD:
		children_reap();
		break;
	default:
		break;
	}
}

/*
 * Written as root, once this process is the one serving the control
 * socket and will not fork again.  The service script checks that the
 * pid still runs jailbeed before it signals it, since a file left by a
 * crash may name a pid the kernel has given to another program.
 */
static void
pid_write(void)
{
	char	buf[32];
	int	fd, len;

	if (pidfile == NULL)
		return;
	len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if ((fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1)
		fatal("pid file %s", pidfile);
	if (write(fd, buf, (size_t)len) != len || close(fd) == -1)
		fatal("pid file %s", pidfile);
	pid_written = 1;
}

__dead void
jailbeed_shutdown(int status)
{
	/* as the owner: it goes when its directory is the owner's */
	if (pid_written && unlink(pidfile) == -1 && errno != ENOENT)
		log_debug("unlink %s: %s", pidfile, strerror(errno));
	control_cleanup();
	children_stop();
	log_info("exiting%s", status ? " after a failure" : "");
	exit(status);
}
