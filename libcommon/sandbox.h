/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SANDBOX_H
#define JB_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/*
 * The lock-down every process applies once, after priv_drop(): the Linux
 * stand-in for pledge(2) and unveil(2).  Each process describes what it
 * still needs; everything else is refused from then on.
 *
 * Landlock is best effort, by the ABI the kernel offers: a right the
 * kernel cannot restrict stays open and the summary says so.  seccomp is
 * not optional: a process that cannot load its filter does not run.
 */
struct sandbox {
	const char		*name;		/* for logs */

	/*
	 * Landlock: no file or directory is reachable unless it is beneath
	 * one of these (NULL-terminated lists; a missing path is skipped
	 * with a warning).  ro: read files, list directories.  rw: every
	 * handled right except execute: nothing runs programs once locked.
	 */
	const char *const	*ro_paths;
	const char *const	*rw_paths;
	/*
	 * rw as well, for directories held open: ones the process can no
	 * longer reach by name after its privilege drop
	 */
	const int		*rw_fds;
	size_t			 nrw_fds;
	/*
	 * No Landlock here: each fork applies its own, narrower one with
	 * sandbox_landlock() before it runs anything (jb-gitd, whose
	 * workers each write one checkout only).
	 */
	int			 landlock_per_fork;
	/* programs that may be run (read and execute), e.g. git */
	const char *const	*exec_paths;
	/* TCP ports (ABI >= 4); with none listed, no TCP connect or bind */
	const uint16_t		*tcp_connect;
	size_t			 ntcp_connect;
	const uint16_t		*tcp_bind;
	size_t			 ntcp_bind;
	/*
	 * With ABI >= 6 signals may only go to processes locked down after
	 * us (our own forks); set this in a process that must still signal
	 * ones it started before (jailbeed and its children).
	 */
	int			 signal_others;

	/*
	 * seccomp: sandbox_base_syscalls plus these (SCMP_SYS(x)) are
	 * allowed, anything else kills the process.
	 */
	const int		*syscalls;
	size_t			 nsyscalls;
	/* and a list shared with another process's filter */
	const int		*shared_syscalls;
	size_t			 nshared_syscalls;
	/*
	 * socket(2) for these domains only (AF_UNIX, AF_INET...); NULL: no
	 * socket(2).  The other common domains (unix, inet, inet6, netlink,
	 * packet...) fail with EACCES: a library probing for syslog or
	 * nscd must not kill a daemon, and a refused socket is harmless.
	 * Unknown domains kill.  Landlock (ABI <= 7) does not
	 * govern connect(2) to a named unix socket: leaving AF_UNIX out is
	 * what keeps a process off the Incus socket.  Listing socket itself
	 * in syscalls is refused (fatal).
	 */
	const int		*socket_families;
	size_t			 nsocket_families;
	/* ioctl(2) with these requests only (FIONREAD...); none: no ioctl */
	const unsigned long	*ioctls;
	size_t			 nioctls;
	/*
	 * Report a forbidden call on stderr and fail it with ENOSYS instead
	 * of killing (x86_64; elsewhere report and _exit(1)): for writing a
	 * policy, never for production.
	 */
	int			 debug;
};

/*
 * Set no_new_privs, apply Landlock then seccomp; fatal when seccomp
 * cannot be applied.  summary (may be NULL) receives one line of what is
 * enforced, for the caller to log, e.g. "seccomp: 53 calls, socket unix,
 * kill; landlock abi 7: 2 ro, 1 rw, tcp connect 8443, scoped abstract
 * unix+signal".  Call once, single-threaded (both bind only the calling
 * thread), after the last file or socket that needs a wider right is
 * open.  A process forked afterwards inherits the lock-down.
 */
void	sandbox_apply(const struct sandbox *, char *summary, size_t len);

/*
 * Landlock alone (and no_new_privs), for a fork of a process locked down
 * with landlock_per_fork: the paths and ports of sb; its seccomp stays
 * the parent's.  Fatal when no_new_privs cannot be set.
 */
void	sandbox_landlock(const struct sandbox *, char *summary, size_t len);

/* the Landlock ABI version of this kernel, -1 when unavailable */
int	sandbox_landlock_abi(void);

/*
 * With the test switch on (jailbeed -T, which its children get too):
 * SANDBOX_ABI_CAP_ENV in the environment (jailbeed's, which its children
 * inherit) holds an ABI from 1 to 7; the sandbox then uses no newer ABI
 * than that, as on an older kernel.  Returns that ABI, 0 when unset or
 * the switch is off, -1 when it holds anything else.
 */
#define SANDBOX_ABI_CAP_ENV	"JB_TEST_LANDLOCK_ABI"
int	sandbox_landlock_test_cap(void);

/*
 * What every libevent + imsg daemon needs (epoll, sendmsg/recvmsg with
 * SCM_RIGHTS, pipe2 for a fresh fd to pass, malloc, time, signals,
 * logging to stderr or an already open syslog socket, exit).  Not in it,
 * for a process to list if it must: openat, socket (see socket_families),
 * connect, accept4, bind, listen, getsockopt, kill, wait4, clone, execve,
 * ioctl.  AddressSanitizer builds add what the sanitizer run time needs
 * (sandbox-linux.c), never other builds.
 */
extern const int	sandbox_base_syscalls[];
extern const size_t	sandbox_nbase_syscalls;

#endif /* JB_SANDBOX_H */
