/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_PROC_H
#define JB_PROC_H

#include <sys/resource.h>
#include <sys/types.h>

#include <stdint.h>

#include "imsgev.h"
#include "jb_msg.h"

#define JB_CHAN_FD		3	/* a child's channel to the parent */

/* users the children switch to; regress/setup-host creates them */
#define JB_USER_INCUS		"_jbincus"
#define JB_USER_SSHD		"_jbsshd"
#define JB_SSHD_CHROOT		"/var/empty/jailbee"
#define JB_USER_EGRESS		"_jbegress"

/* jb-egress listens on the bridge's host address, at this port */
#define JB_EGRESS_PORT		3129
#define JB_PROXY_PORT		3128	/* network.proxy_port's default */
#define JB_GW_PORTS_MAX		8	/* network.gateway_ports */

/*
 * Start path with argv, its channel (one end of a socketpair) on fd 3 and
 * every other fd above 2 closed.  The child gets SIGTERM when the parent
 * dies.  Returns the pid, or -1.
 */
pid_t	proc_spawn(const char *path, char *const argv[], int chanfd);
/* in a child: refuse to run unless fd 3 is a channel from our parent */
void	proc_child_check(const char *procname);

/*
 * Become pw (with its supplementary groups; none when pw_name is NULL),
 * or stay uid 0 with no supplementary group when pw is NULL; chroot to root first unless it is
 * NULL; keep exactly the capabilities in keep[] (effective and
 * permitted), clear the bounding and ambient sets, set no_new_privs,
 * re-arm the parent death signal, and verify: fatal on any failure.
 */
struct passwd;
void	priv_drop(const char *procname, const struct passwd *pw,
	    const char *root, const int *keep, size_t nkeep);

/*
 * What a process of the suite may take of the host (rlimits.c): memory,
 * open files, processes where its user is the suite's own, no core file.
 * data_git, when set, is the hard memory limit the git it runs may use.
 */
struct proc_bounds {
	const char	*name;
	rlim_t		 data;
	rlim_t		 data_git;
	rlim_t		 nofile;
	rlim_t		 nproc;		/* 0: left as inherited */
};
const struct proc_bounds *proc_bounds_find(const char *);
/* set name's bounds on this process, fatal if it cannot */
void	proc_bound(const char *name);
/*
 * In a fork about to exec git: the memory bound becomes git's (the hard
 * limit).  Async-signal-safe; -1 with errno on failure.
 */
int	proc_bound_git(void);

/* this process's own status, from /proc/self/status opened by the init */
void	selfstat_init(void);
void	selfstat_set_sandbox(const char *);
int	selfstat(struct jb_proc_status *, const char *name, int64_t started,
	    const char *detail);
/* the same, read from /proc/PID/status: a process that cannot report */
int	procstat(struct jb_proc_status *, pid_t, const char *name,
	    int64_t started, const char *detail, const char *sandbox);

/*
 * The event loop every child runs after locking itself down: STATUS_REQ
 * is answered here; other messages go to dispatch, which returns -1 for
 * a type it does not know (fatal).  EOF from the parent ends the process.
 */
struct child {
	const char	*name;
	int64_t		 started;
	char		 detail[JB_MSG_TEXT_MAX];
	struct imsgev	 iev;
	struct event_base *base;
	int		(*dispatch)(struct child *, struct imsg *);
	int		 fdsend;	/* may send fds to the parent */
	int		 fdrecv;	/* may take fds from it (jb-sshd, images) */
	/* answer STATUS_REQ later with child_status_reply(); NULL: at once */
	void		(*status)(struct child *, uint32_t);
	/* TEST_ATTEMPT in a process of the child's own; NULL: in itself */
	void		(*attempt)(struct child *,
			    const struct jb_test_attempt *, char *, size_t);
};
struct child_args {
	int		 debug;		/* -d: log to stderr */
	int		 verbose;	/* -v */
	const char	*owner;		/* -o: the owner's login name */
	const char	*endpoint;	/* -e: the Incus endpoint URL */
	const char	*cert;		/* -c: client certificate (https) */
	const char	*key;		/* -k: its key */
	const char	*ca;		/* -a: the server's certificate */
	const char	*bridge;	/* -b: the suite's Incus bridge */
	const char	*upstream;	/* -U: jb-netd's upstream resolver */
	const char	*privnets;	/* -P: resolver.private_networks */
	int		 sandbox_debug;	/* -D: log forbidden calls, not kill */
	const char	*state_dir;	/* -s: the suite's state directory */
	const char	*mountdir;	/* -m: jb-mountd's state directory */
	const char	*socket;	/* -S: the control socket's path */
	/* -G: network.gateway_ports, parsed */
	uint16_t	 gw_ports[JB_GW_PORTS_MAX];
	size_t		 ngw;
	/* -X: network.proxy_port (0: no explicit proxy) */
	uint16_t	 proxy_port;
};
void	child_init(struct child *, const char *, int, char **,
	    struct child_args *);
struct passwd	*child_owner(struct child *, const struct child_args *);
__attribute__((__noreturn__)) void child_run(struct child *);
void	child_status_reply(struct child *, uint32_t);
void	child_done(struct child *, uint32_t, int, const char *);
void	child_text(struct child *, uint32_t, uint32_t, const char *, ...)
	    __attribute__((format(printf, 4, 5)));

/* with the test switch on (testhook.h): try an operation, say how it went */
void	testhook_attempt(const struct jb_test_attempt *, char *, size_t);

#endif /* JB_PROC_H */
