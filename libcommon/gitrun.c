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
 * Host git for the git bridge, run so that nothing fetched from a
 * container runs on the host: a fixed environment (no GIT_* of the
 * caller's; PATH has git-remote-jailbee's directory first) and a -c list
 * that turns off hooks, fsmonitor, credential helpers, submodule
 * recursion, every protocol but jailbee::, and every filter and diff
 * driver the owner's own configuration names, since a .gitattributes
 * from the container may name any of them.  Objects are checked as they
 * arrive (transfer.fsckObjects: a malicious .gitmodules is refused).
 * Only the owner's host configuration is read; the container's
 * .git/config never is: it stays in the container.
 */

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitrun.h"
#include "proc.h"
#include "termrelay.h"

#define GIT_PATH	"/usr/bin/git"
#define GITRUN_ARGS	256
#define GITRUN_ENV	16

static const char *const fixed_c[] = {
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"core.attributesFile=/dev/null",
	"credential.helper=",
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	"push.recurseSubmodules=no",
	"diff.external=",
	"protocol.allow=never",
	"protocol.jailbee.allow=always",
	"transfer.fsckObjects=true",
	"fetch.unpackLimit=1",
	"fetch.writeCommitGraph=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"advice.detachedHead=false",
	NULL
};

static char	*cflags[GITRUN_ARGS];
static int	 ncflags;
static char	*envp[GITRUN_ENV];
static int	 nenv;
static int	 stats_fd = -1;
static int	 relay;
static rlim_t	 lim_cpu, lim_as;	/* 0: none */
static int	 last_status;

static int __attribute__((__format__(__printf__, 1, 2)))
add_env(const char *fmt, ...)
{
	va_list	ap;
	int	rv;

	if (nenv >= GITRUN_ENV - 1)
		return -1;
	va_start(ap, fmt);
	rv = vasprintf(&envp[nenv], fmt, ap);
	va_end(ap);
	if (rv == -1)
		return -1;
	envp[++nenv] = NULL;
	return 0;
}

static int __attribute__((__format__(__printf__, 1, 2)))
add_c(const char *fmt, ...)
{
	va_list	ap;
	int	rv;

	if (ncflags >= GITRUN_ARGS - 2)
		return -1;
	cflags[ncflags] = "-c";
	va_start(ap, fmt);
	rv = vasprintf(&cflags[ncflags + 1], fmt, ap);
	va_end(ap);
	if (rv == -1)
		return -1;
	ncflags += 2;
	return 0;
}

/* the directory jbctl runs from: git-remote-jailbee is installed beside */
static int
self_dir(char *buf, size_t len)
{
	ssize_t	n;
	char	*slash;

	if ((n = readlink("/proc/self/exe", buf, len - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	if ((slash = strrchr(buf, '/')) == NULL)
		return -1;
	if (slash == buf)
		slash[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

/*
 * Every filter.NAME and diff.NAME driver of the owner's configuration
 * gets empty commands: a container's .gitattributes may name any.
 */
static int
neuter_drivers(void)
{
	char	 out[65536], *line, *next, *dot, name[256];
	size_t	 len;

	if (gitrun_capture(out, sizeof(out), 1, "config", "--name-only",
	    "--get-regexp", "^(filter|diff|merge)\\.", NULL) == -1)
		return 0;	/* none set: git config exits 1 */
	for (line = out; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* KIND.NAME.KEY: the name may hold dots */
		if ((dot = strrchr(line, '.')) == NULL || dot == line)
			continue;
		len = (size_t)(dot - line);
		if (len >= sizeof(name))
			continue;
		memcpy(name, line, len);
		name[len] = '\0';
		if (strncmp(name, "filter.", 7) == 0) {
			if (add_c("%s.clean=", name) == -1 ||
			    add_c("%s.smudge=", name) == -1 ||
			    add_c("%s.process=", name) == -1 ||
			    add_c("%s.required=false", name) == -1)
				return -1;
		} else if (strncmp(name, "diff.", 5) == 0) {
			if (add_c("%s.command=", name) == -1 ||
			    add_c("%s.textconv=", name) == -1)
				return -1;
		} else if (strncmp(name, "merge.", 6) == 0) {
			if (add_c("%s.driver=", name) == -1)
				return -1;
		}
	}
	return 0;
}

int
gitrun_init(const char *helper_dir, const char *more, char *err,
    size_t errlen)
{
	const struct passwd	*pw;
	const char		*home, *s;
	char			 dir[PATH_MAX];
	int			 i;

	if (helper_dir != NULL)
		strlcpy(dir, helper_dir, sizeof(dir));
	else if (self_dir(dir, sizeof(dir)) == -1) {
		snprintf(err, errlen, "cannot tell where this program is "
		    "installed (/proc/self/exe)");
		return -1;
	}
	if ((home = getenv("HOME")) == NULL || *home == '\0')
		home = (pw = getpwuid(getuid())) != NULL ? pw->pw_dir : "/";
	if (add_env("PATH=%s:/usr/local/bin:/usr/bin:/bin", dir) == -1 ||
	    add_env("HOME=%s", home) == -1 ||
	    add_env("LC_ALL=C") == -1 ||
	    add_env("GIT_TERMINAL_PROMPT=0") == -1 ||
	    add_env("GIT_ATTR_NOSYSTEM=1") == -1 ||
	    add_env("%s", more) == -1)
		goto oom;
	if ((s = getenv("JAILBEE_GIT_MAX_BYTES")) != NULL &&
	    add_env("JAILBEE_GIT_MAX_BYTES=%s", s) == -1)
		goto oom;
	if ((s = getenv("JAILBEE_GIT_TIMEOUT")) != NULL &&
	    add_env("JAILBEE_GIT_TIMEOUT=%s", s) == -1)
		goto oom;
	for (i = 0; fixed_c[i] != NULL; i++)
		if (add_c("%s", fixed_c[i]) == -1)
			goto oom;
	if (neuter_drivers() == -1)
		goto oom;
	return 0;
 oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

void
gitrun_stats_fd(int fd)
{
	stats_fd = fd;
}

void
gitrun_termsafe(int on)
{
	relay = on;
}

void
gitrun_limits(unsigned long cpu_secs, unsigned long as_bytes)
{
	lim_cpu = cpu_secs;
	lim_as = as_bytes;
}

int
gitrun_last_signal(void)
{
	return WIFSIGNALED(last_status) ? WTERMSIG(last_status) : 0;
}

/* in the child, before exec: a git over its limits is stopped */
static int
apply_limits(void)
{
	struct rlimit	rl;

	/* a daemon's own memory bound is not git's (rlimits.c) */
	if (proc_bound_git() == -1)
		return -1;
	if (lim_cpu != 0) {
		/* SIGXCPU at the limit, SIGKILL a second after */
		rl.rlim_cur = lim_cpu;
		rl.rlim_max = lim_cpu + 1;
		if (setrlimit(RLIMIT_CPU, &rl) == -1)
			return -1;
	}
	if (lim_as != 0) {
		rl.rlim_cur = rl.rlim_max = lim_as;
		if (setrlimit(RLIMIT_AS, &rl) == -1)
			return -1;
	}
	return 0;
}

/* argv: "git", the -c list, then args; out: stdout's first outlen-1 bytes */
static int
run(char *out, size_t outlen, int quiet, const char *first, va_list ap)
{
	char		*argv[GITRUN_ARGS * 2];
	char		 fdenv[32], junk[512];
	const char	*a;
	int		 argc = 0, i, p[2] = { -1, -1 }, status, fd;
	int		 ro[2] = { -1, -1 }, re[2] = { -1, -1 };
	size_t		 got = 0;
	ssize_t		 n;
	pid_t		 pid;

	argv[argc++] = "git";
	for (i = 0; i < ncflags; i++)
		argv[argc++] = cflags[i];
	for (a = first; a != NULL && argc < (int)(sizeof(argv) /
	    sizeof(argv[0])) - 1; a = va_arg(ap, const char *))
		argv[argc++] = (char *)(uintptr_t)a;
	argv[argc] = NULL;
	if (out != NULL && pipe2(p, O_CLOEXEC) == -1)
		return -1;
	/* what git prints may be the container's: through termsafe */
	if (relay && out == NULL && !quiet) {
		if (pipe2(ro, O_CLOEXEC) == -1)
			return -1;
		if (pipe2(re, O_CLOEXEC) == -1) {
			close(ro[0]);
			close(ro[1]);
			return -1;
		}
	}
	if (stats_fd != -1) {
		snprintf(fdenv, sizeof(fdenv), "JAILBEE_GIT_STATS_FD=%d",
		    stats_fd);
		envp[nenv] = fdenv;
		envp[nenv + 1] = NULL;
	}
	fflush(stdout);
	fflush(stderr);
	switch (pid = fork()) {
	case -1:
		envp[nenv] = NULL;
		if (out != NULL) {
			close(p[0]);
			close(p[1]);
		}
		if (ro[0] != -1) {
			close(ro[0]);
			close(ro[1]);
			close(re[0]);
			close(re[1]);
		}
		return -1;
	case 0:
		if (out != NULL && dup2(p[1], STDOUT_FILENO) == -1)
			_exit(127);
		if (ro[1] != -1 && (dup2(ro[1], STDOUT_FILENO) == -1 ||
		    dup2(re[1], STDERR_FILENO) == -1))
			_exit(127);
		if (quiet && (fd = open("/dev/null", O_WRONLY)) != -1) {
			dup2(fd, STDERR_FILENO);
			if (out == NULL)
				dup2(fd, STDOUT_FILENO);
		}
		if (stats_fd != -1)
			(void)fcntl(stats_fd, F_SETFD, 0);
		if (apply_limits() == -1) {
			fprintf(stderr, "jbctl: setrlimit: %s\n",
			    strerror(errno));
			_exit(127);
		}
		execve(GIT_PATH, argv, envp);
		fprintf(stderr, "jbctl: %s: %s\n", GIT_PATH, strerror(errno));
		_exit(127);
	}
	envp[nenv] = NULL;
	if (ro[0] != -1) {
		close(ro[1]);
		close(re[1]);
		(void)termrelay(ro[0], re[0], STDOUT_FILENO, STDERR_FILENO);
	}
	if (out != NULL) {
		close(p[1]);
		while ((n = read(p[0], out + got, outlen - 1 - got)) > 0 ||
		    (n == -1 && errno == EINTR))
			if (n > 0 && (got += (size_t)n) == outlen - 1)
				break;
		/* the rest is not wanted; git must not block on it */
		while (got == outlen - 1 && read(p[0], junk,
		    sizeof(junk)) > 0)
			;
		close(p[0]);
		out[got] = '\0';
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	last_status = status;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
gitrun(const char *first, ...)
{
	va_list	ap;
	int	rv;

	va_start(ap, first);
	rv = run(NULL, 0, 0, first, ap);
	va_end(ap);
	return rv;
}

int
gitrun_quiet(const char *first, ...)
{
	va_list	ap;
	int	rv;

	va_start(ap, first);
	rv = run(NULL, 0, 1, first, ap);
	va_end(ap);
	return rv;
}

int
gitrun_capture(char *out, size_t outlen, int quiet, const char *first, ...)
{
	va_list	ap;
	int	rv;

	va_start(ap, first);
	rv = run(out, outlen, quiet, first, ap);
	va_end(ap);
	return rv;
}

int
gitrun_line(char *out, size_t outlen, const char *first, ...)
{
	va_list	ap;
	int	rv;

	va_start(ap, first);
	rv = run(out, outlen, 1, first, ap);
	va_end(ap);
	out[strcspn(out, "\n")] = '\0';
	if (rv == 0 && out[0] == '\0')
		rv = -1;
	return rv;
}

int
gitrun_fetch_start(const char *ref, char *old, size_t oldlen,
    struct gitpacks *packs)
{
	char	out[PATH_MAX + 256], *nl, *line2;
	size_t	len;

	old[0] = '\0';
	memset(packs, 0, sizeof(*packs));
	/* --revs-only: a ref that does not exist is left out, not an error */
	if (gitrun_capture(out, sizeof(out), 1, "rev-parse", "--git-path",
	    "objects/pack", "--revs-only", ref, NULL) == -1 ||
	    (nl = strchr(out, '\n')) == NULL || nl == out)
		return -1;
	*nl = '\0';
	line2 = nl + 1;
	line2[strcspn(line2, "\n")] = '\0';
	/* a whole object name (SHA-1 or SHA-256), never a cut one */
	len = strlen(line2);
	if ((len == 40 || len == 64) && len < oldlen &&
	    strspn(line2, "0123456789abcdef") == len)
		(void)strlcpy(old, line2, oldlen);
	(void)gitpacks_scan(packs, out);
	return 0;
}
