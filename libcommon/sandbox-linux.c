/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/landlock.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"
#include "testhook.h"

/*
 * The build host's <linux/landlock.h> may predate the running kernel
 * (Debian 12 ships ABI 2 headers): what newer ABIs added is spelled out
 * here, with the kernel's values, and our own attribute structs carry the
 * later fields.
 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif
#define SB_RULE_NET_PORT	2	/* LANDLOCK_RULE_NET_PORT, ABI 4 */

struct sb_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

struct sb_net_port_attr {
	uint64_t	allowed_access;
	uint64_t	port;
};

#define SB_FS_ABI1	(LANDLOCK_ACCESS_FS_EXECUTE | \
	LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
/* the rights that mean something on a file rather than a directory */
#define SB_FS_FILE	(LANDLOCK_ACCESS_FS_EXECUTE | \
	LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define SB_FS_RO	(LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR)

#if defined(__SANITIZE_ADDRESS__)
#define SB_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_ASAN	1
#endif
#endif

const int sandbox_base_syscalls[] = {
	/* the channel, libevent's epoll loop and its signal socketpair */
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom),
	SCMP_SYS(sendto), SCMP_SYS(close), SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_ctl), SCMP_SYS(poll),
	SCMP_SYS(ppoll), SCMP_SYS(pipe2), SCMP_SYS(eventfd2),
	SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(fcntl),
	/* malloc */
	SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect),
	SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(futex),
	/*
	 * glibc's sysconf(_SC_PHYS_PAGES): qsort() asks it once an array
	 * passes a small size, and qsort is reached from our code and from
	 * the libraries' (libnftables sorts set elements) once the tables
	 * grow.  It tells the memory size, load and uptime, nothing more.
	 */
	SCMP_SYS(sysinfo),
	/* signals, time, identity */
	SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
	SCMP_SYS(restart_syscall), SCMP_SYS(clock_gettime),
	SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday), SCMP_SYS(getpid), SCMP_SYS(gettid),
	SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
	SCMP_SYS(getegid), SCMP_SYS(uname), SCMP_SYS(prlimit64),
	SCMP_SYS(getrandom),
	/* files already open (the status fd, stdio) */
	SCMP_SYS(pread64), SCMP_SYS(lseek), SCMP_SYS(fstat),
	SCMP_SYS(newfstatat), SCMP_SYS(statx),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
};
const size_t sandbox_nbase_syscalls = sizeof(sandbox_base_syscalls) /
    sizeof(sandbox_base_syscalls[0]);

/* debug mode: everything the SIGSYS handler prints is ready beforehand */
#define SB_NAMES	512
#define SB_SEEN		1024	/* calls counted once; above, as listed */
/* the kernel reads an int argument from the low half of the register */
#define SB_INTARG	0xffffffffULL

/* families refused with EACCES unless listed; any other kills */
static const int sb_refused_families[] = {
	AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_KEY,
	AF_ALG, AF_VSOCK, AF_BLUETOOTH, AF_APPLETALK, AF_X25, AF_CAN,
	AF_TIPC, AF_RDS, AF_XDP,
};
static char	sb_procname[32];
static char	sb_callname[SB_NAMES][28];

static void	sb_sigsys(int, siginfo_t *, void *);
static void	sb_landlock(const struct sandbox *, char *, size_t);
static int	sb_add_path(int, const char *, uint64_t, uint64_t);
static int	sb_add_fd(int, int, uint64_t, uint64_t);
static int	sb_add_ports(int, const uint16_t *, size_t, uint64_t,
		    const char *, const char *, char *, size_t);
static size_t	sb_seccomp(const struct sandbox *, char *, size_t);
static void	sb_allow(scmp_filter_ctx, const struct sandbox *, int,
		    uint64_t *, size_t *);
static void	sb_allow_list(scmp_filter_ctx, const struct sandbox *,
		    const int *, size_t, uint64_t *, size_t *);
static int	sb_seen(const uint64_t *, int);
static void	sb_debug_init(const struct sandbox *);
static const char *sb_family(int, char *, size_t);

#ifdef SB_ASAN
#include <sanitizer/common_interface_defs.h>

/*
 * AddressSanitizer builds only (make SAN=1, the tests), never a release:
 * what its run time was seen to need once locked down, found by running
 * locked-down children under gcc 12 and clang 14 with a logging filter.
 * LeakSanitizer's check at exit clones a tracer (CLONE_VM, never a fork)
 * that reads /proc/<pid>/task (open, getdents) and ptraces our threads;
 * a report asks whether stderr is a terminal (TCGETS) and opens and
 * readlinks /proc/self files; Landlock lets it read /proc, nothing else.
 */
static const int sb_san_syscalls[] = {
	SCMP_SYS(wait4), SCMP_SYS(ptrace), SCMP_SYS(prctl),
	SCMP_SYS(sched_yield), SCMP_SYS(getppid), SCMP_SYS(open),
	SCMP_SYS(openat), SCMP_SYS(getdents), SCMP_SYS(getdents64),
	SCMP_SYS(readlink),
};
static const char *const sb_san_ro = "/proc";

/*
 * Before the lock-down: start the symbolizer now (clang forks
 * llvm-symbolizer, gcc reads the debug information), which a report
 * could no longer do, and let the run time cache /proc/self/maps.
 */
static void
sb_san_prepare(void)
{
	__sanitizer_sandbox_arguments	args;
	char				buf[256];

	__sanitizer_symbolize_pc(__builtin_return_address(0), "%p %F %L",
	    buf, sizeof(buf));
	memset(&args, 0, sizeof(args));
	__sanitizer_sandbox_on_notify(&args);
}

static size_t
sb_san_seccomp(scmp_filter_ctx ctx, const struct sandbox *sb,
    uint64_t *seen)
{
	size_t	i, n = 0;
	int	r;

	for (i = 0; i < sizeof(sb_san_syscalls) / sizeof(sb_san_syscalls[0]);
	    i++)
		sb_allow(ctx, sb, sb_san_syscalls[i], seen, &n);
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_VM, CLONE_VM))) < 0 ||
	    (r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, SB_INTARG, TCGETS))) < 0)
		fatalx("%s: seccomp: sanitizer rules: %s", sb->name,
		    strerror(-r));
	/* these two are new unless the process allows them outright */
	n += !sb_seen(seen, SCMP_SYS(clone)) + !sb_seen(seen, SCMP_SYS(ioctl));
	return n;
}
#else
static const char *const sb_san_ro = NULL;

static void
sb_san_prepare(void)
{
}

static size_t
sb_san_seccomp(scmp_filter_ctx ctx, const struct sandbox *sb,
    uint64_t *seen)
{
	return 0;
}
#endif

int
sandbox_landlock_abi(void)
{
	long	abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	return abi < 1 ? -1 : (int)abi;
}

int
sandbox_landlock_test_cap(void)
{
	const char	*v = getenv(SANDBOX_ABI_CAP_ENV);

	if (!jb_testing || v == NULL)
		return 0;
	if (v[0] < '1' || v[0] > '7' || v[1] != '\0')
		return -1;
	return v[0] - '0';
}

void
sandbox_apply(const struct sandbox *sb, char *summary, size_t len)
{
	char	ll[256], sc[256];
	size_t	nsan;

	sb_san_prepare();
	/* priv_drop has set it; again here so Landlock can never refuse */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("%s: PR_SET_NO_NEW_PRIVS", sb->name);
	if (sb->landlock_per_fork)
		(void)snprintf(ll, sizeof(ll), "landlock: per worker");
	else
		sb_landlock(sb, ll, sizeof(ll));
	nsan = sb_seccomp(sb, sc, sizeof(sc));
	if (summary == NULL)
		return;
	if (sb_san_ro != NULL)
		(void)snprintf(summary, len, "%s; %s; asan build: %zu more "
		    "calls, %s readable", sc, ll, nsan, sb_san_ro);
	else
		(void)snprintf(summary, len, "%s; %s", sc, ll);
}

void
sandbox_landlock(const struct sandbox *sb, char *summary, size_t len)
{
	char	ll[256];

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("%s: PR_SET_NO_NEW_PRIVS", sb->name);
	sb_landlock(sb, ll, sizeof(ll));
	if (summary != NULL)
		(void)strlcpy(summary, ll, len);
}

/*
 * Deny every right this kernel knows of, then allow the listed paths and
 * ports.  A failure leaves the process without Landlock, never with a
 * wider ruleset, and is told in desc.
 */
static void
sb_landlock(const struct sandbox *sb, char *desc, size_t len)
{
	struct sb_ruleset_attr	 attr;
	size_t			 attrlen, i, nro = 0, nrw = 0, nx = 0;
	uint64_t		 rw;
	char			 tcp[160], conn[64] = "", bind[64] = "";
	char			 capped[48] = "", unres[96];
	const char		*scope = "";
	int			 abi, kabi, cap, fd;

	if ((kabi = sandbox_landlock_abi()) == -1) {
		(void)snprintf(desc, len, "landlock unavailable");
		return;
	}
	/* a test may have the sandbox use an older ABI than the kernel's */
	abi = kabi;
	if ((cap = sandbox_landlock_test_cap()) > 0 && cap < kabi) {
		abi = cap;
		(void)snprintf(capped, sizeof(capped), " (kernel %d, capped "
		    "for a test)", kabi);
	}
	unres[0] = '\0';
	if (abi < 3)
		(void)strlcat(unres, ", truncate", sizeof(unres));
	if (abi < 4)
		(void)strlcat(unres, ", tcp", sizeof(unres));
	if (abi < 5)
		(void)strlcat(unres, ", device ioctl", sizeof(unres));
	if (abi < 6)
		(void)strlcat(unres, ", signals, abstract unix", sizeof(unres));
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = SB_FS_ABI1;
	attrlen = sizeof(attr.handled_access_fs);
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 4) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
		attrlen = offsetof(struct sb_ruleset_attr, scoped);
	}
	if (abi >= 5)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		scope = ", scoped abstract unix";
		if (!sb->signal_others) {
			attr.scoped |= LANDLOCK_SCOPE_SIGNAL;
			scope = ", scoped abstract unix+signal";
		}
		attrlen = sizeof(attr);
	}

	if ((fd = syscall(SYS_landlock_create_ruleset, &attr, attrlen,
	    0)) == -1) {
		log_warn("%s: landlock: create ruleset (abi %d)", sb->name,
		    abi);
		(void)snprintf(desc, len, "landlock abi %d%s: not enforced",
		    abi, capped);
		return;
	}

	for (i = 0; sb->ro_paths != NULL && sb->ro_paths[i] != NULL; i++)
		if (sb_add_path(fd, sb->ro_paths[i], SB_FS_RO,
		    attr.handled_access_fs) == 0)
			nro++;
		else
			log_warn("%s: landlock: skipping read-only path %s",
			    sb->name, sb->ro_paths[i]);
	if (sb_san_ro != NULL && sb_add_path(fd, sb_san_ro, SB_FS_RO,
	    attr.handled_access_fs) == -1)
		log_warn("%s: landlock: skipping %s (for the sanitizer)",
		    sb->name, sb_san_ro);
	for (i = 0; sb->exec_paths != NULL && sb->exec_paths[i] != NULL; i++)
		if (sb_add_path(fd, sb->exec_paths[i], SB_FS_RO |
		    LANDLOCK_ACCESS_FS_EXECUTE, attr.handled_access_fs) == 0)
			nx++;
		else
			log_warn("%s: landlock: skipping program path %s",
			    sb->name, sb->exec_paths[i]);
	rw = attr.handled_access_fs & ~LANDLOCK_ACCESS_FS_EXECUTE;
	for (i = 0; sb->rw_paths != NULL && sb->rw_paths[i] != NULL; i++)
		if (sb_add_path(fd, sb->rw_paths[i], rw,
		    attr.handled_access_fs) == 0)
			nrw++;
		else
			log_warn("%s: landlock: skipping read-write path %s",
			    sb->name, sb->rw_paths[i]);
	for (i = 0; i < sb->nrw_fds; i++)
		if (sb_add_fd(fd, sb->rw_fds[i], rw,
		    attr.handled_access_fs) == 0)
			nrw++;
		else
			log_warn("%s: landlock: skipping a read-write "
			    "directory held open", sb->name);

	if (abi < 4)
		tcp[0] = '\0';
	else if (sb_add_ports(fd, sb->tcp_connect, sb->ntcp_connect,
	    LANDLOCK_ACCESS_NET_CONNECT_TCP, sb->name, " connect", conn,
	    sizeof(conn)) + sb_add_ports(fd, sb->tcp_bind, sb->ntcp_bind,
	    LANDLOCK_ACCESS_NET_BIND_TCP, sb->name, " bind", bind,
	    sizeof(bind)) == 0)
		(void)snprintf(tcp, sizeof(tcp), ", tcp none");
	else
		(void)snprintf(tcp, sizeof(tcp), ", tcp%s%s", conn, bind);

	if (syscall(SYS_landlock_restrict_self, fd, 0) == -1) {
		log_warn("%s: landlock: restrict self", sb->name);
		(void)close(fd);
		(void)snprintf(desc, len, "landlock abi %d%s: not enforced",
		    abi, capped);
		return;
	}
	(void)close(fd);
	/* and what this ABI leaves open, by name */
	(void)snprintf(desc, len, "landlock abi %d%s: %zu ro, %zu rw, %zu exec"
	    "%s%s%s%s", abi, capped, nro, nrw, nx, tcp, scope,
	    unres[0] != '\0' ? "; cannot restrict at this abi: " : "",
	    unres[0] != '\0' ? unres + 2 : "");
}

static int
sb_add_path(int rfd, const char *path, uint64_t want, uint64_t handled)
{
	int	fd, saved, r;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	r = sb_add_fd(rfd, fd, want, handled);
	saved = errno;
	(void)close(fd);
	errno = saved;
	return r;
}

/* a rule for what fd, a file or directory opened already, names */
static int
sb_add_fd(int rfd, int fd, uint64_t want, uint64_t handled)
{
	struct landlock_path_beneath_attr	pb;
	struct stat				st;

	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	if (fstat(fd, &st) == -1)
		return -1;
	/* the kernel refuses directory rights on a file */
	pb.allowed_access = want & handled;
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= SB_FS_FILE;
	return syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
	    &pb, 0) == -1 ? -1 : 0;
}

/* returns how many ports were allowed; their list goes to desc */
static int
sb_add_ports(int rfd, const uint16_t *ports, size_t n, uint64_t access,
    const char *name, const char *what, char *desc, size_t len)
{
	struct sb_net_port_attr	 np;
	size_t			 i;
	int			 added = 0;
	char			 num[8];

	for (i = 0; i < n; i++) {
		memset(&np, 0, sizeof(np));
		np.allowed_access = access;
		np.port = ports[i];
		if (syscall(SYS_landlock_add_rule, rfd, SB_RULE_NET_PORT, &np,
		    0) == -1) {
			log_warn("%s: landlock: skipping tcp%s port %u", name,
			    what, (unsigned)ports[i]);
			continue;
		}
		(void)snprintf(num, sizeof(num), "%s%u", added ? "," : " ",
		    (unsigned)ports[i]);
		if (added == 0)
			(void)strlcpy(desc, what, len);
		(void)strlcat(desc, num, len);
		added++;
	}
	return added;
}

/* returns how many calls the sanitizer run time added */
static size_t
sb_seccomp(const struct sandbox *sb, char *desc, size_t len)
{
	scmp_filter_ctx	 ctx;
	uint64_t	 seen[SB_SEEN / 64];
	size_t		 i, ncalls = 0, nsan;
	char		 fams[96] = "", buf[16];
	int		 r, unix_listed = 0;

	memset(seen, 0, sizeof(seen));
	if (sb->debug)
		sb_debug_init(sb);
	if ((ctx = seccomp_init(sb->debug ? SCMP_ACT_TRAP :
	    SCMP_ACT_KILL_PROCESS)) == NULL)
		fatalx("%s: seccomp_init failed", sb->name);
	/* a call through another ABI (int 0x80 on x86_64) is never right */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0)
		fatalx("%s: seccomp bad arch action: %s", sb->name,
		    strerror(-r));

	for (i = 0; i < sandbox_nbase_syscalls; i++)
		sb_allow(ctx, sb, sandbox_base_syscalls[i], seen, &ncalls);
	sb_allow_list(ctx, sb, sb->syscalls, sb->nsyscalls, seen, &ncalls);
	sb_allow_list(ctx, sb, sb->shared_syscalls, sb->nshared_syscalls, seen,
	    &ncalls);
	nsan = sb_san_seccomp(ctx, sb, seen);
	/*
	 * With no syslog daemon listening, syslog(3) connects to /dev/log
	 * again at every message: a process that may not connect is told
	 * EACCES rather than killed for logging (a release jb-sshd died so)
	 */
	if (!sb_seen(seen, SCMP_SYS(connect)) && (r = seccomp_rule_add(ctx,
	    SCMP_ACT_ERRNO(EACCES), SCMP_SYS(connect), 0)) < 0)
		fatalx("%s: seccomp: connect refusal: %s", sb->name,
		    strerror(-r));
	/*
	 * abort() (glibc's heap checks, a library's assertion) raises
	 * SIGABRT with tgkill on this process: allowed for that signal to
	 * this process only, so that such a death reads as SIGABRT and
	 * leaves its core, not as the filter's SIGSYS
	 */
	if (!sb_seen(seen, SCMP_SYS(tgkill)) && (r = seccomp_rule_add(ctx,
	    SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 2,
	    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0),
	    SCMP_A2(SCMP_CMP_MASKED_EQ, SB_INTARG, SIGABRT))) < 0)
		fatalx("%s: seccomp: tgkill for abort: %s", sb->name,
		    strerror(-r));

	for (i = 0; sb->socket_families != NULL &&
	    i < sb->nsocket_families; i++) {
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    SB_INTARG, (scmp_datum_t)sb->socket_families[i]))) < 0)
			fatalx("%s: seccomp: socket family %d: %s", sb->name,
			    sb->socket_families[i], strerror(-r));
		if (sb->socket_families[i] == AF_UNIX)
			unix_listed = 1;
		(void)strlcat(fams, i ? "+" : "", sizeof(fams));
		(void)strlcat(fams, sb_family(sb->socket_families[i], buf,
		    sizeof(buf)), sizeof(fams));
	}
	(void)unix_listed;
	for (i = 0; i < sizeof(sb_refused_families) /
	    sizeof(sb_refused_families[0]); i++) {
		size_t	k;
		int	listed = 0;

		for (k = 0; sb->socket_families != NULL &&
		    k < sb->nsocket_families; k++)
			if (sb->socket_families[k] == sb_refused_families[i])
				listed = 1;
		if (!listed && (r = seccomp_rule_add(ctx,
		    SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, SB_INTARG,
		    (scmp_datum_t)sb_refused_families[i]))) < 0)
			fatalx("%s: seccomp: socket refusal: %s", sb->name,
			    strerror(-r));
	}
	for (i = 0; i < sb->nioctls; i++) {
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl),
		    1, SCMP_A1(SCMP_CMP_MASKED_EQ, SB_INTARG,
		    (scmp_datum_t)sb->ioctls[i]))) < 0 && r != -EEXIST)
			fatalx("%s: seccomp: ioctl %lu: %s", sb->name,
			    sb->ioctls[i], strerror(-r));
	}
	if (sb->nioctls > 0)
		ncalls++;
	if (fams[0] != '\0')
		ncalls++;
	else
		(void)strlcpy(fams, "none", sizeof(fams));

	if ((r = seccomp_load(ctx)) < 0)
		fatalx("%s: seccomp_load: %s", sb->name, strerror(-r));
	seccomp_release(ctx);
	(void)snprintf(desc, len, "seccomp: %zu calls, socket %s, %s", ncalls,
	    fams, sb->debug ? "trap (debug)" : "kill");
	return nsan;
}

/*
 * Allow nr; count it once however often it is listed.  A pseudo number
 * (SCMP_SYS of a call this arch lacks) is accepted and ignored by
 * libseccomp, and not counted.
 */
static void
sb_allow(scmp_filter_ctx ctx, const struct sandbox *sb, int nr,
    uint64_t *seen, size_t *ncalls)
{
	int	r;

	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0)
		fatalx("%s: seccomp: cannot allow system call %d: %s",
		    sb->name, nr, strerror(-r));
	if (nr < 0 || sb_seen(seen, nr))
		return;
	if (nr < SB_SEEN)
		seen[nr / 64] |= 1ULL << (nr % 64);
	(*ncalls)++;
}

/* a list of the process's calls; never socket itself */
static void
sb_allow_list(scmp_filter_ctx ctx, const struct sandbox *sb, const int *nrs,
    size_t n, uint64_t *seen, size_t *ncalls)
{
	size_t	i;

	for (i = 0; nrs != NULL && i < n; i++) {
		/* an unconditional socket(2) would void the family filter */
		if (nrs[i] == SCMP_SYS(socket))
			fatalx("%s: seccomp: list socket families, not socket",
			    sb->name);
		sb_allow(ctx, sb, nrs[i], seen, ncalls);
	}
}

static int
sb_seen(const uint64_t *seen, int nr)
{
	return nr >= 0 && nr < SB_SEEN &&
	    (seen[nr / 64] & (1ULL << (nr % 64))) != 0;
}

static void
sb_debug_init(const struct sandbox *sb)
{
	struct sigaction	 sa;
	char			*n;
	int			 i;

	(void)strlcpy(sb_procname, sb->name, sizeof(sb_procname));
	for (i = 0; i < SB_NAMES; i++) {
		sb_callname[i][0] = '\0';
		n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, i);
		if (n != NULL)
			(void)strlcpy(sb_callname[i], n,
			    sizeof(sb_callname[i]));
		free(n);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sb_sigsys;
	sa.sa_flags = SA_SIGINFO;
	(void)sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) == -1)
		fatal("%s: sigaction SIGSYS", sb->name);
}

/* async-signal-safe: one write(2) of text prepared before the filter */
static void
sb_sigsys(int sig, siginfo_t *si, void *uctx)
{
	char		 line[160], num[16];
	const char	*parts[6];
	size_t		 o = 0, p;
	unsigned int	 nr = (unsigned int)si->si_syscall;
	int		 saved = errno, k = sizeof(num) - 1;

	num[k] = '\0';
	do {
		num[--k] = '0' + nr % 10;
		nr /= 10;
	} while (nr != 0 && k > 0);
	nr = (unsigned int)si->si_syscall;

	parts[0] = sb_procname;
	parts[1] = ": seccomp: forbidden system call ";
	parts[2] = num + k;
	parts[3] = " (";
	parts[4] = nr < SB_NAMES && sb_callname[nr][0] != '\0' ?
	    sb_callname[nr] : "unknown";
	parts[5] = ")\n";
	for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++)
		for (k = 0; parts[p][k] != '\0' && o < sizeof(line); k++)
			line[o++] = parts[p][k];
	(void)write(STDERR_FILENO, line, o);
	errno = saved;

	/* the one spot that knows a register: the call returns ENOSYS */
#if defined(__x86_64__)
	((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RAX] = -ENOSYS;
#else
	_exit(1);
#endif
}

static const char *
sb_family(int af, char *buf, size_t len)
{
	switch (af) {
	case AF_UNIX:
		return "unix";
	case AF_INET:
		return "inet";
	case AF_INET6:
		return "inet6";
	case AF_NETLINK:
		return "netlink";
	default:
		(void)snprintf(buf, len, "%d", af);
		return buf;
	}
}
