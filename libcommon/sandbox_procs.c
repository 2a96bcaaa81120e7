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
 * What each process still needs once it serves: one sandbox_<process>()
 * each, applied after its privilege drop and start-up work.  Everything
 * not named here is refused from then on.  The test switch (jailbeed -T)
 * changes nothing here: the tests run under the filters users get.
 */

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "proc.h"
#include "sandbox.h"
#include "sandbox_procs.h"

static int	sandbox_debug;

void
sandbox_set_debug(int on)
{
	sandbox_debug = on;
}

static void
apply(struct sandbox *sb)
{
	char	summary[JB_MSG_TEXT_MAX];

	sb->debug = sandbox_debug;
	sandbox_apply(sb, summary, sizeof(summary));
	selfstat_set_sandbox(summary);
	log_info("locked down: %s", summary);
}

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The parent: reads configuration wherever the owner keeps it, accepts
 * control connections, reaps its children.  No socket of its own: it can
 * reach neither Incus nor netfilter; a listening socket jbctl reload
 * binds for remote.ssh.listen it only checks (getsockname) and passes on.  The socket's directory is root's:
 * jb-reaper, not the parent, removes the socket at exit.  The audit
 * journal's directory (journaldir, held open: it is inside root's
 * state_dir, which the owner cannot enter by name) is the one other
 * place it writes: it makes and renames files there to rotate it.
 */
void
sandbox_jailbeed(const char *sockdir, int journaldir)
{
	static const int	 calls[] = {
		SCMP_SYS(accept4), SCMP_SYS(getsockopt), SCMP_SYS(openat),
		SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(wait4),
		SCMP_SYS(readlink), SCMP_SYS(getdents64), SCMP_SYS(access),
		SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
		/* the registry's rewrite, on its file opened at start */
		SCMP_SYS(ftruncate), SCMP_SYS(pwrite64),
		/* the audit journal's rotation, in its directory */
		SCMP_SYS(renameat), SCMP_SYS(renameat2),
		/* reads where the socket jbctl reload bound listens */
		SCMP_SYS(getsockname),
	};
	const char		*ro[] = { "/", NULL };
	const char		*rw[] = { sockdir, NULL };
	const int		 rwfd[] = { journaldir };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jailbeed";
	sb.ro_paths = ro;
	sb.rw_paths = rw;
	if (journaldir != -1) {
		sb.rw_fds = rwfd;
		sb.nrw_fds = 1;
	}
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	apply(&sb);
}

/*
 * jb-reaper (jailbeed/reaper.c): root's uid without a capability, fds
 * 0-2 on /dev/null, its channel and the socket's directory.  It reads the
 * channel until the parent is gone, looks at the socket's name and
 * removes it: newfstatat and read are in the base set, unlinkat is the
 * one call added, and no open at all.  Landlock leaves it the socket's
 * directory (to remove a file there) and no other path; signals and
 * abstract sockets scoped.  summary: what is enforced, for the parent.
 */
void
sandbox_jb_reaper(const char *sockdir, char *summary, size_t len)
{
	static const int	 calls[] = { SCMP_SYS(unlinkat) };
	static const char	*none[] = { NULL };
	const char		*rw[] = { sockdir, NULL };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-reaper";
	sb.ro_paths = none;
	sb.rw_paths = rw;
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	sb.debug = sandbox_debug;
	sandbox_apply(&sb, summary, len);
}

/*
 * jb-incus: the Incus socket (or, with https, one TCP port), sockets for
 * exec streams; no file at all: its certificates were read at start.
 */
void
sandbox_jb_incus(uint16_t https_port)
{
	static const int	 calls[] = {
		SCMP_SYS(connect), SCMP_SYS(getsockopt), SCMP_SYS(setsockopt),
		SCMP_SYS(socketpair), SCMP_SYS(shutdown),
		SCMP_SYS(getpeername), SCMP_SYS(getsockname),
	};
	static const int	 unix_only[] = { AF_UNIX };
	static const int	 unix_inet[] = { AF_UNIX, AF_INET, AF_INET6 };
	static const unsigned long ioctls[] = { FIONREAD };
	static const char	*none[] = { NULL };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-incus";
	sb.ro_paths = none;
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	sb.ioctls = ioctls;
	sb.nioctls = NELEM(ioctls);
	if (https_port != 0) {
		sb.tcp_connect = &https_port;
		sb.ntcp_connect = 1;
		sb.socket_families = unix_inet;
		sb.nsocket_families = NELEM(unix_inet);
	} else {
		sb.socket_families = unix_only;
		sb.nsocket_families = NELEM(unix_only);
	}
	apply(&sb);
}

/*
 * jb-netd: netfilter through netlink, and one directory of its own,
 * <state_dir>/netd, where what it enforces is written down (so that a
 * restart rebuilds the same table): files opened there through the
 * directory fd taken at start, replaced by rename.  Its resolver answers
 * on a UDP socket bound before the lock-down and asks the upstream over
 * UDP (inet sockets, connect); Landlock leaves it no TCP port at all.
 * Its TCP resolver listens before the lock-down and accepts after it.
 */
void
sandbox_jb_netd(const char *state_dir, const char *gate_dir)
{
	static const int	 calls[] = {
		SCMP_SYS(getsockopt), SCMP_SYS(setsockopt), SCMP_SYS(bind),
		SCMP_SYS(getsockname), SCMP_SYS(openat), SCMP_SYS(renameat),
		SCMP_SYS(renameat2), SCMP_SYS(fsync),
		/* libnftables waits for the kernel's netlink answers */
		SCMP_SYS(select), SCMP_SYS(pselect6),
		SCMP_SYS(connect),
		/* DNS over TCP: the resolver's clients (resolver_tcp.c) */
		SCMP_SYS(accept4),
		/* the start gates (netd_gate.c) */
		SCMP_SYS(mkdirat), SCMP_SYS(unlinkat),
	};
	static const int	 families[] = { AF_NETLINK, AF_INET };
	/* libevent's bufferevents size each TCP read (resolver_tcp.c) */
	static const unsigned long ioctls[] = { FIONREAD };
	char			 dir[PATH_MAX];
	const char		*none[] = { NULL };
	const char		*rw[] = { dir, gate_dir, NULL };
	struct sandbox		 sb;

	(void)snprintf(dir, sizeof(dir), "%s/netd", state_dir);
	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-netd";
	sb.ro_paths = none;
	sb.rw_paths = rw;
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	sb.socket_families = families;
	sb.nsocket_families = NELEM(families);
	sb.ioctls = ioctls;
	sb.nioctls = NELEM(ioctls);
	apply(&sb);
}

/*
 * Running git, for jb-mountd and jb-gitd alike: what git and its runner
 * call to start it, read the checkout and end it (fork, exec, wait, kill
 * on timeout).
 */
static const int git_run_calls[] = {
	SCMP_SYS(openat), SCMP_SYS(readlink), SCMP_SYS(getdents64),
	SCMP_SYS(getcwd), SCMP_SYS(chdir), SCMP_SYS(access),
	SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
	SCMP_SYS(clone), SCMP_SYS(clone3), SCMP_SYS(vfork),
	SCMP_SYS(execve), SCMP_SYS(wait4), SCMP_SYS(kill),
	SCMP_SYS(setpgid), SCMP_SYS(prctl), SCMP_SYS(getppid),
	SCMP_SYS(close_range), SCMP_SYS(set_robust_list),
	SCMP_SYS(set_tid_address), SCMP_SYS(rseq),
	SCMP_SYS(arch_prctl), SCMP_SYS(umask), SCMP_SYS(sysinfo),
};

/*
 * jb-mountd: reads what the owner can read and runs git to describe a
 * checkout.  It writes one directory only, its own under the state
 * directory (mount deadlines): renameat for an atomic replace,
 * fsync so a deadline survives a crash, openat2 to resolve a mount
 * source without following symlinks; mkdirat, fchmod and unlinkat
 * for ssh.enabled's shared ~/.ssh, kept in that same directory.
 * git runs under the same rules.
 */
void
sandbox_jb_mountd(const char *statedir)
{
	static const int	 calls[] = {
		/* mounts: sources and deadlines */
		SCMP_SYS(openat2), SCMP_SYS(renameat), SCMP_SYS(renameat2),
		SCMP_SYS(fsync),
		/* ssh.enabled's shared ~/.ssh, in statedir */
		SCMP_SYS(mkdirat), SCMP_SYS(fchmod), SCMP_SYS(unlinkat),
	};
	static const unsigned long ioctls[] = { TCGETS };
	const char		*ro[] = { "/", NULL };
	/* git opens /dev/null read-write for its unused streams */
	const char		*rw[] = { "/dev/null", statedir, NULL };
	const char		*prog[] = { "/usr/bin/git", "/usr/lib/git-core",
				    "/usr/lib/x86_64-linux-gnu", "/lib64",
				    "/usr/lib64", NULL };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-mountd";
	sb.ro_paths = ro;
	sb.rw_paths = rw;
	sb.exec_paths = prog;
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	sb.shared_syscalls = git_run_calls;
	sb.nshared_syscalls = NELEM(git_run_calls);
	sb.ioctls = ioctls;
	sb.nioctls = NELEM(ioctls);
	sb.signal_others = 0;
	apply(&sb);
}

/*
 * jb-gitd runs host git, which runs git-remote-jailbee, index-pack and
 * rev-list: the calls a git fetch makes (files, processes, threads, a
 * pipe and a memory file) beyond what running git takes, and no socket
 * at all: its one stream to the container comes down already connected.
 * Its own Landlock is its workers': each locks itself to one checkout's
 * .git before git runs.
 */
static const int gitd_calls[] = {
	SCMP_SYS(openat2), SCMP_SYS(readlinkat), SCMP_SYS(fchdir),
	SCMP_SYS(waitid), SCMP_SYS(tgkill), SCMP_SYS(getpgid),
	SCMP_SYS(getpgrp), SCMP_SYS(sched_getaffinity),
	SCMP_SYS(sched_yield), SCMP_SYS(getrusage), SCMP_SYS(times),
	SCMP_SYS(getresuid), SCMP_SYS(getresgid), SCMP_SYS(getgroups),
	SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(rename),
	SCMP_SYS(fsync), SCMP_SYS(fdatasync), SCMP_SYS(mkdirat),
	SCMP_SYS(mkdir), SCMP_SYS(fchmod), SCMP_SYS(fchmodat),
	SCMP_SYS(chmod), SCMP_SYS(unlinkat), SCMP_SYS(unlink),
	SCMP_SYS(rmdir), SCMP_SYS(linkat), SCMP_SYS(link),
	SCMP_SYS(symlinkat), SCMP_SYS(ftruncate), SCMP_SYS(utimensat),
	SCMP_SYS(memfd_create), SCMP_SYS(fstatfs), SCMP_SYS(statfs),
	SCMP_SYS(flock), SCMP_SYS(pipe), SCMP_SYS(pwrite64),
	SCMP_SYS(fadvise64), SCMP_SYS(msync), SCMP_SYS(shutdown),
	SCMP_SYS(setitimer), SCMP_SYS(getitimer), SCMP_SYS(alarm),
	SCMP_SYS(rt_sigsuspend), SCMP_SYS(rt_sigtimedwait),
	SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(stat),
	SCMP_SYS(lstat), SCMP_SYS(getxattr), SCMP_SYS(lgetxattr),
	SCMP_SYS(membarrier), SCMP_SYS(copy_file_range),
	SCMP_SYS(sendfile), SCMP_SYS(get_mempolicy),
	/* each worker's own Landlock */
	SCMP_SYS(landlock_create_ruleset), SCMP_SYS(landlock_add_rule),
	SCMP_SYS(landlock_restrict_self),
};

void
sandbox_jb_gitd(void)
{
	static const unsigned long ioctls[] = { TCGETS, TIOCGWINSZ };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-gitd";
	sb.landlock_per_fork = 1;
	sb.syscalls = gitd_calls;
	sb.nsyscalls = NELEM(gitd_calls);
	sb.shared_syscalls = git_run_calls;
	sb.nshared_syscalls = NELEM(git_run_calls);
	sb.ioctls = ioctls;
	sb.nioctls = NELEM(ioctls);
	apply(&sb);
}

/*
 * One worker: in the checkout's .git it may write only what a fetch
 * writes there: objects (packs, their temporary and lock files, the
 * quarantine), refs (the ref and its lock file) and logs (the reflog of
 * a branch --into moves), and /dev/null.  A right given on a directory
 * holds for all beneath it, so .git itself gets none: no file can be
 * made or replaced in hooks/, info/ or at its top (config, packed-refs,
 * FETCH_HEAD, shallow), and the worker's git is run so that it needs
 * none of those (no FETCH_HEAD, no ref deleted, no shallow update).  It
 * reads the checkout, the owner's home (git's configuration) and the
 * system's files, and runs git and the suite's helper.
 */
void
sandbox_jb_gitd_worker(const char *top, const char *gitdir,
    const char *home)
{
	const char	*ro[] = { "/usr", "/lib", "/lib64", "/bin", "/etc",
			    "/dev/urandom", home, top, NULL };
	char		 objects[PATH_MAX], refs[PATH_MAX], logs[PATH_MAX];
	const char	*rw[] = { "/dev/null", objects, refs, logs, NULL };
	const char	*prog[] = { "/usr/bin/git", "/usr/lib/git-core",
			    "/usr/lib/x86_64-linux-gnu", "/lib64",
			    "/usr/lib64", LIBEXECDIR, NULL };
	struct sandbox	 sb;
	char		 summary[JB_MSG_TEXT_MAX];

	(void)snprintf(objects, sizeof(objects), "%s/objects", gitdir);
	(void)snprintf(refs, sizeof(refs), "%s/refs", gitdir);
	(void)snprintf(logs, sizeof(logs), "%s/logs", gitdir);
	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-gitd worker";
	sb.ro_paths = ro;
	sb.rw_paths = rw;
	sb.exec_paths = prog;
	sandbox_landlock(&sb, summary, sizeof(summary));
	log_debug("%s: %s", sb.name, summary);
}

/*
 * One bundler (new's clone on a cluster): it reads the checkout, the
 * owner's home (git's configuration) and the system's files, writes
 * /dev/null only, and runs git; the stream it writes came with the
 * request.
 */
void
sandbox_jb_gitd_bundler(const char *top, const char *home)
{
	const char	*ro[] = { "/usr", "/lib", "/lib64", "/bin", "/etc",
			    "/dev/urandom", home, top, NULL };
	const char	*rw[] = { "/dev/null", NULL };
	const char	*prog[] = { "/usr/bin/git", "/usr/lib/git-core",
			    "/usr/lib/x86_64-linux-gnu", "/lib64",
			    "/usr/lib64", NULL };
	struct sandbox	 sb;
	char		 summary[JB_MSG_TEXT_MAX];

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-gitd bundler";
	sb.ro_paths = ro;
	sb.rw_paths = rw;
	sb.exec_paths = prog;
	sandbox_landlock(&sb, summary, sizeof(summary));
	log_debug("%s: %s", sb.name, summary);
}

/*
 * jb-sshd: an empty chroot, no file at all (Landlock refuses every path,
 * so the openat that libssh and OpenSSL try for /etc/ssh/moduli and
 * openssl.cnf fails cleanly instead of killing a session).  Beyond the
 * base set, each call named here is one the SSH front door needs:
 * accept4 on the socket the parent handed in; socketpair for a session's
 * channel to the parent (AF_UNIX only); clone/clone3, set_robust_list and
 * wait4 for the fork per connection and its reaping; get/setsockopt,
 * getpeername, getsockname and shutdown for libssh's socket handling;
 * alarm and setitimer for the login grace timer.  A session's filter
 * too, under the spawner's (sandbox_jb_sshd_spawner), which names them
 * all as well.
 */
static const int sshd_calls[] = {
	SCMP_SYS(accept4), SCMP_SYS(socketpair), SCMP_SYS(clone),
	SCMP_SYS(clone3), SCMP_SYS(set_robust_list), SCMP_SYS(wait4),
	SCMP_SYS(getsockopt), SCMP_SYS(setsockopt),
	SCMP_SYS(getpeername), SCMP_SYS(getsockname),
	SCMP_SYS(shutdown), SCMP_SYS(alarm), SCMP_SYS(setitimer),
	SCMP_SYS(openat),
};

void
sandbox_jb_sshd(void)
{
	static const int	 unix_only[] = { AF_UNIX };
	static const unsigned long ioctls[] = { FIONREAD };
	static const char	*none[] = { NULL };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-sshd";
	sb.ro_paths = none;
	sb.syscalls = sshd_calls;
	sb.nsyscalls = NELEM(sshd_calls);
	sb.ioctls = ioctls;
	sb.nioctls = NELEM(ioctls);
	sb.socket_families = unix_only;
	sb.nsocket_families = NELEM(unix_only);
	apply(&sb);
}

/*
 * jb-sshd's spawner (jb-sshd -P): root outside the chroot with only the
 * capabilities a session drops (spawner.c).  It may run one program,
 * jb-sshd, and read the libraries that program maps; no other file.
 * Its filter stays on every session it execs, under the session's own,
 * so it names all a session calls under that one (sshd_calls, among
 * them clone, wait4 and socketpair, which the spawning needs too) and
 * what a session calls before that one is in place: the dynamic
 * loader's start (arch_prctl, set_tid_address, rseq, access),
 * libcap-ng's fstatfs, priv_drop's chroot, chdir, setgroups, set*id,
 * capget/capset and prctl, and the landlock and seccomp calls of the
 * session's own lock-down.  Beyond those, execve for the session's
 * program; socket for unix only (a session's syslog, non-debug).
 */
void
sandbox_jb_sshd_spawner(void)
{
	static const int	 calls[] = {
		/* the spawner's own (kill: a session dropped early) */
		SCMP_SYS(kill), SCMP_SYS(execve), SCMP_SYS(prctl),
		SCMP_SYS(getppid), SCMP_SYS(close_range),
		/* the session's, before its own filter (see above) */
		SCMP_SYS(access), SCMP_SYS(faccessat),
		SCMP_SYS(faccessat2), SCMP_SYS(readlink),
		SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address),
		SCMP_SYS(rseq),
		SCMP_SYS(chroot), SCMP_SYS(chdir), SCMP_SYS(setgroups),
		SCMP_SYS(setuid), SCMP_SYS(setgid), SCMP_SYS(setresuid),
		SCMP_SYS(setresgid), SCMP_SYS(setreuid), SCMP_SYS(setregid),
		SCMP_SYS(setfsuid), SCMP_SYS(setfsgid),
		SCMP_SYS(capget), SCMP_SYS(capset), SCMP_SYS(connect),
		SCMP_SYS(getdents64), SCMP_SYS(sched_getaffinity),
		SCMP_SYS(sched_yield), SCMP_SYS(fstatfs), SCMP_SYS(statfs),
		/* and the session's own lock-down (sandbox_apply) */
		SCMP_SYS(landlock_create_ruleset), SCMP_SYS(landlock_add_rule),
		SCMP_SYS(landlock_restrict_self), SCMP_SYS(seccomp),
	};
	static const int	 unix_only[] = { AF_UNIX };
	static const unsigned long ioctls[] = { FIONREAD, TCGETS };
	static const char	*ro[] = { "/etc/ld.so.cache", "/proc", NULL };
	/* the program, and its loader and libraries (mapped to execute) */
	static const char	*prog[] = { LIBEXECDIR "/jb-sshd",
				    "/usr/lib/x86_64-linux-gnu", "/lib64",
				    "/usr/lib64", NULL };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-sshd spawner";
	sb.ro_paths = ro;
	sb.exec_paths = prog;
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	/* a session, under its own filter */
	sb.shared_syscalls = sshd_calls;
	sb.nshared_syscalls = NELEM(sshd_calls);
	sb.ioctls = ioctls;
	sb.nioctls = NELEM(ioctls);
	sb.socket_families = unix_only;
	sb.nsocket_families = NELEM(unix_only);
	apply(&sb);
}

/*
 * jb-egress: no file at all, no capability; it accepts on the socket the
 * parent bound (accept4, getsockname, and getsockopt for the original
 * destination), connects over TCP to the gateway's ports only (Landlock)
 * and splices between the two sockets through pipes (splice, shutdown).
 */
void
sandbox_jb_egress(const uint16_t *ports, size_t nports)
{
	static const int	 calls[] = {
		SCMP_SYS(accept4), SCMP_SYS(getsockopt), SCMP_SYS(getsockname),
		SCMP_SYS(connect), SCMP_SYS(splice), SCMP_SYS(shutdown),
	};
	static const int	 inet_only[] = { AF_INET };
	static const char	*none[] = { NULL };
	struct sandbox		 sb;

	memset(&sb, 0, sizeof(sb));
	sb.name = "jb-egress";
	sb.ro_paths = none;
	sb.syscalls = calls;
	sb.nsyscalls = NELEM(calls);
	sb.socket_families = inet_only;
	sb.nsocket_families = NELEM(inet_only);
	sb.tcp_connect = ports;
	sb.ntcp_connect = nports;
	apply(&sb);
}
