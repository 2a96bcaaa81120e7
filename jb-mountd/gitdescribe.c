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
 * A git checkout as the owner sees it.  Every question goes to the
 * owner's own /usr/bin/git, so their config, safe.directory and
 * permissions decide, exactly as in their shell.  The runs are
 * synchronous: git answers a local repository in milliseconds, the
 * parent waits for this answer anyway, and one deadline for the whole
 * request bounds how long the event loop can stall.
 */

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "gitdescribe.h"
#include "proc.h"

#define SHOWN_MAX	200	/* of a user's path inside a message */

long long
repo_now_ms(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* keep our ends off 0..2, so the child's dup2() never clobbers one */
static int
high_fd(int fd)
{
	int	nfd;

	if (fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	(void)close(fd);
	return nfd;
}

static __dead void
run_child(const char *path, char *const argv[], char *const envp[], int in,
    int out, int err)
{
	sigset_t	all;
	int		sig;

	/* only async-signal-safe calls from here to execve() */
	if (setpgid(0, 0) == -1)
		_exit(126);
	/* git's memory bound, not jb-mountd's own (rlimits.c) */
	if (proc_bound_git() == -1)
		_exit(126);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (dup2(in, 0) == -1 || dup2(out, 1) == -1 || dup2(err, 2) == -1)
		_exit(126);
	closefrom(3);
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	sigemptyset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, NULL);
	execve(path, argv, envp);
	_exit(127);
}

static void
close_pipe(int p[2])
{
	if (p[0] != -1)
		(void)close(p[0]);
	if (p[1] != -1)
		(void)close(p[1]);
	p[0] = p[1] = -1;
}

int
repo_run(const char *path, char *const argv[], char *const envp[],
    long long deadline, struct repo_run *r)
{
	struct pollfd	 pfd[2];
	char		 buf[4096];
	int		 out[2] = { -1, -1 }, err[2] = { -1, -1 }, in = -1;
	int		 status, n, i, kill_it = 0, save;
	long long	 left;
	size_t		 errlen = 0, take;
	ssize_t		 got;
	pid_t		 pid, w = -1;

	r->status = -1;
	r->timedout = r->overflow = 0;
	r->outlen = 0;
	r->out[0] = r->err[0] = '\0';

	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    (in = high_fd(in)) == -1)
		return -1;
	if (pipe2(out, O_CLOEXEC) == -1 || (out[0] = high_fd(out[0])) == -1 ||
	    (out[1] = high_fd(out[1])) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    (err[0] = high_fd(err[0])) == -1 ||
	    (err[1] = high_fd(err[1])) == -1)
		goto fail;
	if ((pid = fork()) == -1)
		goto fail;
	if (pid == 0)
		run_child(path, argv, envp, in, out[1], err[1]);
	(void)close(in);
	(void)close(out[1]);
	(void)close(err[1]);

	pfd[0].fd = out[0];
	pfd[1].fd = err[0];
	pfd[0].events = pfd[1].events = POLLIN;
	while (pfd[0].fd != -1 || pfd[1].fd != -1) {
		if ((left = deadline - repo_now_ms()) <= 0) {
			r->timedout = kill_it = 1;
			break;
		}
		n = poll(pfd, 2, left > INT_MAX ? INT_MAX : (int)left);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			kill_it = 1;
			break;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if (i == 0)
				/* one byte more than kept tells an overflow */
				got = read(pfd[i].fd, r->out + r->outlen,
				    REPO_OUT_MAX + 1 - r->outlen);
			else
				got = read(pfd[i].fd, buf, sizeof(buf));
			if (got == -1 && errno == EINTR)
				continue;
			if (got <= 0) {
				(void)close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			if (i == 0) {
				r->outlen += got;
				if (r->outlen > REPO_OUT_MAX) {
					r->outlen = REPO_OUT_MAX;
					r->overflow = kill_it = 1;
				}
				continue;
			}
			take = REPO_ERR_MAX - errlen;
			if ((size_t)got < take)
				take = got;
			memcpy(r->err + errlen, buf, take);
			errlen += take;
		}
		if (kill_it)
			break;
	}
	for (i = 0; i < 2; i++)
		if (pfd[i].fd != -1)
			(void)close(pfd[i].fd);
	r->out[r->outlen] = '\0';
	r->err[errlen] = '\0';

	/* both pipes are closed; give the child until the deadline to exit */
	for (;;) {
		if (kill_it) {
			(void)kill(-pid, SIGKILL);
			(void)kill(pid, SIGKILL);
			while ((w = waitpid(pid, &status, 0)) == -1 &&
			    errno == EINTR)
				;
			break;
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w == -1 && errno != EINTR) {
			status = -1;
			break;
		}
		if (repo_now_ms() >= deadline)
			r->timedout = kill_it = 1;
		else
			(void)poll(NULL, 0, 2);
	}
	if (w == pid && WIFEXITED(status) && !kill_it)
		r->status = WEXITSTATUS(status);
	return 0;

 fail:
	save = errno;
	if (in != -1)
		(void)close(in);
	close_pipe(out);
	close_pipe(err);
	errno = save;
	return -1;
}

void
repo_vis(char *dst, size_t dstlen, const char *src)
{
	const unsigned char	*s;
	char			 one[8];
	size_t			 total = 0, o = 0, need;
	int			 cut;

	if (dstlen == 0)
		return;
	dst[0] = '\0';
	for (s = (const unsigned char *)src; *s != '\0'; s++)
		total += (*s < 0x20 || *s == 0x7f) ? 4 : 1;
	cut = total >= dstlen;
	if (cut && dstlen < 4)
		return;
	for (s = (const unsigned char *)src; *s != '\0'; s++) {
		if (*s < 0x20 || *s == 0x7f)
			(void)snprintf(one, sizeof(one), "\\x%02x", *s);
		else {
			one[0] = *s;
			one[1] = '\0';
		}
		need = strlen(one);
		if (o + need > dstlen - 1 - (cut ? 3 : 0))
			break;
		memcpy(dst + o, one, need);
		o += need;
	}
	if (cut) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

int
repo_branch_ok(const char *name, char *err, size_t errlen)
{
	const char	*reason = NULL, *p, *part;
	char		 shown[80];
	size_t		 len = strlen(name), plen;

	if (len == 0)
		reason = "it is empty";
	else if (len >= JB_BRANCH_MAX)
		reason = "it is too long";
	else if (name[0] == '-')
		reason = "it must not start with '-'";
	else if (strcmp(name, "HEAD") == 0 || strcmp(name, "@") == 0)
		reason = "that name is reserved by git";
	for (p = name; reason == NULL && *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			reason = "it must not contain control characters";
		else if (strchr(" ~^:?*[\\", *p) != NULL)
			reason = "it must not contain a space or any of "
			    "~ ^ : ? * [ \\";
		else if (p[0] == '.' && p[1] == '.')
			reason = "it must not contain '..'";
		else if (p[0] == '@' && p[1] == '{')
			reason = "it must not contain '@{'";
		else if (p[0] == '/' && p[1] == '/')
			reason = "it must not contain '//'";
	}
	if (reason == NULL && (name[0] == '/' || name[len - 1] == '/'))
		reason = "it must not begin or end with '/'";
	if (reason == NULL && name[len - 1] == '.')
		reason = "it must not end with '.'";
	for (part = name; reason == NULL && *part != '\0'; part += plen) {
		plen = strcspn(part, "/");
		if (part[0] == '.')
			reason = "no part of it may begin with '.'";
		else if (plen >= 5 && memcmp(part + plen - 5, ".lock", 5) == 0)
			reason = "no part of it may end with '.lock'";
		if (part[plen] == '/')
			plen++;
	}
	if (reason == NULL)
		return 0;
	repo_vis(shown, sizeof(shown), name);
	(void)snprintf(err, errlen, "invalid branch name \"%s\": %s", shown,
	    reason);
	return -1;
}

int
repo_chomp(char *s, size_t len)
{
	if (memchr(s, '\0', len) != NULL)
		return -1;
	if (len > 0 && s[len - 1] == '\n')
		s[len - 1] = '\0';
	return 0;
}

int
repo_lines(char *s, char *lines[], size_t max)
{
	char	*line;
	size_t	 n = 0;

	while ((line = strsep(&s, "\n")) != NULL) {
		if (*line == '\0')
			continue;
		if (n == max)
			return -1;
		lines[n++] = line;
	}
	return (int)n;
}

int
repo_not_checkout(const char *gitstderr)
{
	return strstr(gitstderr, "not a git repository") != NULL ||
	    strstr(gitstderr, "must be run in a work tree") != NULL;
}

int
repo_sha_ok(const char *s)
{
	size_t	len = strspn(s, "0123456789abcdef");

	return s[len] == '\0' && (len == 40 || len == 64);
}

/* the last line of s[0..*len), its newline cut; *len is what is left */
static char *
last_line(char *s, size_t *len)
{
	size_t	i;

	if (*len == 0 || s[*len - 1] != '\n')
		return NULL;
	s[--*len] = '\0';
	for (i = *len; i > 0 && s[i - 1] != '\n'; i--)
		;
	*len = i;
	return s + i;
}

int
repo_top_head(char *out, size_t len, char **top, char **sha, char **ref)
{
	char	*dashes;

	if (memchr(out, '\0', len) != NULL)
		return -1;
	if ((dashes = last_line(out, &len)) == NULL ||
	    strcmp(dashes, "--") != 0 ||
	    (*ref = last_line(out, &len)) == NULL ||
	    (*sha = last_line(out, &len)) == NULL ||
	    len < 2 || out[len - 1] != '\n')
		return -1;
	out[len - 1] = '\0';
	*top = out;
	if (!repo_sha_ok(*sha) || (strcmp(*ref, "HEAD") != 0 &&
	    strncmp(*ref, "refs/", 5) != 0))
		return -1;
	return 0;
}

int
repo_ref_find(const char *refs, const char *name, char *target,
    size_t targetlen)
{
	const char	*line = refs, *end, *sp;
	size_t		 nlen = strlen(name), tlen;

	while (*line != '\0') {
		end = line + strcspn(line, "\n");
		if ((sp = memchr(line, ' ', end - line)) == NULL)
			sp = end;
		if ((size_t)(sp - line) == nlen &&
		    memcmp(line, name, nlen) == 0) {
			if (target != NULL && targetlen > 0) {
				tlen = sp < end ? (size_t)(end - sp - 1) : 0;
				/* a cut target would name another ref */
				if (tlen >= targetlen)
					tlen = 0;
				memcpy(target, sp + 1, tlen);
				target[tlen] = '\0';
			}
			return 1;
		}
		line = *end == '\n' ? end + 1 : end;
	}
	return 0;
}

static const char *
remote_named(const struct repo_facts *f, const char *name)
{
	size_t	i;

	for (i = 0; i < f->nremotes; i++)
		if (strcmp(f->remotes[i], name) == 0)
			return f->remotes[i];
	return NULL;
}

const char *
repo_pick_upstream(const struct repo_facts *f)
{
	const char	*r, *found = NULL;
	char		 ref[JB_BRANCH_MAX + 32];
	size_t		 i;

	if (f->nremotes == 1)
		return f->remotes[0];
	if ((r = remote_named(f, "origin")) != NULL)
		return r;
	if (*f->push_default != '\0' &&
	    (r = remote_named(f, f->push_default)) != NULL)
		return r;
	if (*f->branch_remote != '\0' &&
	    (r = remote_named(f, f->branch_remote)) != NULL)
		return r;
	for (i = 0; i < f->nremotes; i++) {
		if ((size_t)snprintf(ref, sizeof(ref), "refs/remotes/%s/HEAD",
		    f->remotes[i]) >= sizeof(ref))
			continue;
		if (!repo_ref_find(f->refs, ref, NULL, 0))
			continue;
		/* two remotes that both know a HEAD: no single answer */
		if (found != NULL)
			return "";
		found = f->remotes[i];
	}
	return found != NULL ? found : "";
}

void
repo_pick_default(const struct repo_facts *f, const char *upstream,
    char *out, size_t outlen)
{
	static const char *const wellknown[] = { "main", "master" };
	char		 ref[JB_BRANCH_MAX + 32], target[JB_BRANCH_MAX + 32];
	char		 why[8];
	size_t		 i, plen;

	if (*upstream != '\0' && (size_t)snprintf(ref, sizeof(ref),
	    "refs/remotes/%s/HEAD", upstream) < sizeof(ref)) {
		/* HEAD -> refs/remotes/<upstream>/<branch> */
		plen = strlen(ref) - 4;
		if (repo_ref_find(f->refs, ref, target, sizeof(target)) &&
		    strncmp(target, ref, plen) == 0 &&
		    repo_branch_ok(target + plen, why, sizeof(why)) == 0 &&
		    strlcpy(out, target + plen, outlen) < outlen)
			return;
		for (i = 0; i < 2; i++) {
			if ((size_t)snprintf(ref, sizeof(ref),
			    "refs/remotes/%s/%s", upstream, wellknown[i]) <
			    sizeof(ref) && repo_ref_find(f->refs, ref, NULL,
			    0)) {
				(void)strlcpy(out, wellknown[i], outlen);
				return;
			}
		}
	}
	for (i = 0; i < 2; i++) {
		(void)snprintf(ref, sizeof(ref), "refs/heads/%s", wellknown[i]);
		if (repo_ref_find(f->refs, ref, NULL, 0)) {
			(void)strlcpy(out, wellknown[i], outlen);
			return;
		}
	}
	/* an unborn branch has no ref yet, only HEAD pointing at it */
	for (i = 0; i < 2; i++) {
		if (strcmp(f->head_branch, wellknown[i]) == 0) {
			(void)strlcpy(out, wellknown[i], outlen);
			return;
		}
	}
	(void)strlcpy(out, "main", outlen);
}

/*
 * One request's state: who runs git, where, until when, and the one
 * buffer every run reuses.
 */
struct inspect {
	const struct repo_owner	*owner;
	long long		 deadline;
	char			*envp[6];
	char			 home[PATH_MAX + 8];
	const char		*dir;		/* git -C */
	char			 safe[PATH_MAX + 32]; /* -c safe.directory= */
	char			 shown[SHOWN_MAX]; /* the user's path */
	struct repo_run		*r;
	char			*err;
	size_t			 errlen;
};

static int	root_owned_repo(struct inspect *);
static int	fail(struct inspect *, const char *, ...)
		    __attribute__((__format__(printf, 2, 3)));

static int
fail(struct inspect *in, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(in->err, in->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* the line of git's stderr that says what went wrong, printable */
static void
git_reason(const char *gitstderr, char *dst, size_t dstlen)
{
	char		 line[REPO_ERR_MAX + 1];
	const char	*p, *pick = NULL;
	size_t		 len;

	for (p = gitstderr; *p != '\0'; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		if (len == 0)
			continue;
		if (pick == NULL || strncmp(p, "fatal: ", 7) == 0 ||
		    strncmp(p, "error: ", 7) == 0) {
			pick = p;
			(void)snprintf(line, sizeof(line), "%.*s", (int)len, p);
			if (strncmp(p, "fatal: ", 7) == 0 ||
			    strncmp(p, "error: ", 7) == 0)
				break;
		}
	}
	if (pick == NULL)
		(void)strlcpy(line, "no message", sizeof(line));
	repo_vis(dst, dstlen, line);
}

/*
 * git -C dir args...: its exit status with its output in in->r, or -1
 * with the message set when it could not run or finish.
 */
static int
git(struct inspect *in, const char *const args[])
{
	const char	*argv[REPO_REMOTES_MAX * 3 + 16];
	size_t		 n = 0, i;

	argv[n++] = "git";
	if (in->safe[0] != '\0') {
		argv[n++] = "-c";
		argv[n++] = in->safe;
	}
	argv[n++] = "-C";
	argv[n++] = in->dir;
	for (i = 0; args[i] != NULL; i++) {
		if (n == sizeof(argv) / sizeof(argv[0]) - 1)
			return fail(in, "git %s: too many arguments", args[0]);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	if (repo_run(REPO_GIT, (char *const *)(uintptr_t)argv, in->envp,
	    in->deadline, in->r) == -1)
		return fail(in, "cannot run %s: %s", REPO_GIT,
		    strerror(errno));
	if (in->r->timedout) {
		log_warnx("git %s in %s: no answer within %d ms, killed",
		    args[0], in->dir, REPO_TIMEOUT_MS);
		return fail(in, "git %s in %s did not finish within %d s and "
		    "was stopped", args[0], in->shown, REPO_TIMEOUT_MS / 1000);
	}
	if (in->r->overflow)
		return fail(in, "git %s in %s printed more than %d bytes",
		    args[0], in->shown, REPO_OUT_MAX);
	if (in->r->status == -1)
		return fail(in, "git %s in %s was killed by a signal",
		    args[0], in->shown);
	if (in->r->status == 127 && in->r->err[0] == '\0')
		return fail(in, "cannot run %s: is git installed?", REPO_GIT);
	return in->r->status;
}

static int
git_failed(struct inspect *in, const char *what)
{
	char	reason[REPO_ERR_MAX];

	git_reason(in->r->err, reason, sizeof(reason));
	return fail(in, "git %s in %s failed: %s", what, in->shown, reason);
}

/* git's single-line answer, copied into dst */
static int
git_value(struct inspect *in, const char *what, char *dst, size_t dstlen)
{
	if (repo_chomp(in->r->out, in->r->outlen) == -1)
		return fail(in, "git %s in %s: a NUL byte in its answer",
		    what, in->shown);
	if (strlcpy(dst, in->r->out, dstlen) >= dstlen)
		return fail(in, "git %s in %s: its answer is too long for "
		    "JailBee", what, in->shown);
	return 0;
}

/* HEAD's commit and branch, as symbolic-ref and rev-parse tell them */
static void
head_from(struct jb_repo_info *info, const char *sha, const char *ref)
{
	(void)strlcpy(info->head_sha, sha, sizeof(info->head_sha));
	/* HEAD at anything but a local branch is as good as detached */
	if (strncmp(ref, "refs/heads/", 11) == 0 &&
	    strlcpy(info->head_branch, ref + 11, sizeof(info->head_branch)) >=
	    sizeof(info->head_branch))
		info->head_branch[0] = '\0';
}

/*
 * The work tree into info->toplevel: 0, or -1 with the reason.  With
 * head, HEAD's commit and branch are asked in the same git run, and 1
 * says they are in info too; when that run fails (an unborn branch has
 * no commit yet) or names a work tree that cannot be used, the work
 * tree is asked alone, with git's refusals and ours, and HEAD is left
 * to find_head.
 */
static int
find_toplevel(struct inspect *in, const char *path, struct jb_repo_info *info,
    int head)
{
	static const char *const args[] = { "rev-parse", "--show-toplevel",
	    NULL };
	static const char *const with_head[] = { "rev-parse",
	    "--show-toplevel", "HEAD^{commit}", "--symbolic-full-name", "HEAD",
	    "--", NULL };
	char		 real[PATH_MAX], top[PATH_MAX];
	char		*t, *sha, *ref;
	struct stat	 st;
	int		 s;

	if (path[0] != '/')
		return fail(in, "%s: the path must be absolute", in->shown);
	if (realpath(path, real) == NULL || stat(real, &st) == -1)
		return fail(in, "%s: %s (as user %s)", in->shown,
		    strerror(errno), in->owner->name);
	if (!S_ISDIR(st.st_mode))
		return fail(in, "%s: not a directory", in->shown);
	/* what git -C needs; its own message would be less plain */
	if (access(real, X_OK) == -1)
		return fail(in, "%s: %s (as user %s)", in->shown,
		    strerror(errno), in->owner->name);

	in->dir = real;
	if (head) {
		if ((s = git(in, with_head)) == -1)
			return -1;
		if (s != 0 && root_owned_repo(in) == 0 &&
		    (s = git(in, with_head)) == -1)
			return -1;
		/* a work tree that does not resolve: said below, as ever */
		if (s == 0 && repo_top_head(in->r->out, in->r->outlen, &t,
		    &sha, &ref) == 0 && strlen(t) < sizeof(top) &&
		    t[0] == '/' && realpath(t, info->toplevel) != NULL) {
			in->dir = info->toplevel;
			head_from(info, sha, ref);
			return 1;
		}
	}
	if ((s = git(in, args)) == -1)
		return -1;
	if (s != 0 && root_owned_repo(in) == 0 && (s = git(in, args)) == -1)
		return -1;
	if (s != 0 && repo_not_checkout(in->r->err))
		return fail(in, "%s is not inside a git checkout: run jbctl in "
		    "your repository", in->shown);
	if (s != 0)
		return git_failed(in, "rev-parse");
	if (git_value(in, "rev-parse", top, sizeof(top)) == -1)
		return -1;
	if (top[0] != '/' || realpath(top, info->toplevel) == NULL)
		return fail(in, "%s: git names its work tree %s, which cannot "
		    "be resolved", in->shown, top[0] == '/' ? top : "(none)");
	in->dir = info->toplevel;
	return 0;
}

/*
 * git refuses a repository another user owns, lest that user's config
 * run programs as us.  A checkout root owns is no such threat (root has
 * more than we could lose), so that one alone is let through, by name;
 * every other owner's stays refused.  0 when git should try again.
 */
static int
root_owned_repo(struct inspect *in)
{
	static const char	 mark[] = "dubious ownership in repository at '";
	const char		*p, *e;
	char			 repo[PATH_MAX];
	struct stat		 st;

	if (in->safe[0] != '\0' || (p = strstr(in->r->err, mark)) == NULL)
		return -1;
	p += sizeof(mark) - 1;
	if ((e = strchr(p, '\'')) == NULL || (size_t)(e - p) >= sizeof(repo))
		return -1;
	memcpy(repo, p, e - p);
	repo[e - p] = '\0';
	if (repo[0] != '/' || stat(repo, &st) == -1 || st.st_uid != 0)
		return -1;
	(void)snprintf(in->safe, sizeof(in->safe), "safe.directory=%s", repo);
	return 0;
}

static int
find_head(struct inspect *in, struct jb_repo_info *info)
{
	static const char *const symref[] = { "symbolic-ref", "--quiet",
	    "HEAD", NULL };
	static const char *const sha[] = { "rev-parse", "--verify", "--quiet",
	    "HEAD^{commit}", NULL };
	char	ref[JB_BRANCH_MAX + 16];
	int	s;

	if ((s = git(in, symref)) == -1)
		return -1;
	if (s == 0) {
		if (git_value(in, "symbolic-ref", ref, sizeof(ref)) == -1)
			return -1;
		head_from(info, "", ref);
	} else if (s != 1)
		return git_failed(in, "symbolic-ref");

	/* exit 1: an unborn branch, no commit yet */
	if ((s = git(in, sha)) == -1)
		return -1;
	if (s == 0) {
		if (git_value(in, "rev-parse", info->head_sha,
		    sizeof(info->head_sha)) == -1)
			return -1;
		if (!repo_sha_ok(info->head_sha))
			return fail(in, "git rev-parse in %s: unexpected "
			    "answer for HEAD", in->shown);
	} else if (s != 1)
		return git_failed(in, "rev-parse");
	return 0;
}

/*
 * A config value, "" when unset.  A name too long to be one of the
 * remotes we can report is no candidate either: long_unset says so.
 */
static int
config_get(struct inspect *in, const char *key, char *dst, size_t dstlen,
    int long_unset)
{
	const char	*args[] = { "config", "--get", key, NULL };
	int		 s;

	dst[0] = '\0';
	if ((s = git(in, args)) == -1)
		return -1;
	if (s == 1)
		return 0;
	if (s != 0)
		return git_failed(in, "config");
	if (long_unset && in->r->outlen > dstlen)
		return 0;
	return git_value(in, "config", dst, dstlen);
}

/* remotes, upstream choice, default branch and the upstream's URL */
static int
find_upstream(struct inspect *in, struct jb_repo_info *info)
{
	static const char *const remote[] = { "remote", NULL };
	static const char *const kinds[] = { "HEAD", "main", "master" };
	struct repo_facts	 f;
	const char		*argv[REPO_REMOTES_MAX * 3 + 8];
	char			*lines[REPO_REMOTES_MAX];
	char			*names = NULL, *refs = NULL, *pats = NULL;
	char			 pushdef[JB_BRANCH_MAX];
	char			 brremote[JB_BRANCH_MAX];
	char			 key[JB_BRANCH_MAX + 32];
	const char		*up;
	size_t			 i, j, k, n = 0, patlen = JB_BRANCH_MAX + 32;
	int			 s, nl, rv = -1;

	memset(&f, 0, sizeof(f));
	if ((s = git(in, remote)) == -1)
		return -1;
	if (s != 0)
		return git_failed(in, "remote");
	if ((names = strdup(in->r->out)) == NULL)
		return fail(in, "out of memory");
	if ((nl = repo_lines(names, lines, REPO_REMOTES_MAX)) == -1) {
		fail(in, "%s has more than %d git remotes", in->shown,
		    REPO_REMOTES_MAX);
		goto done;
	}
	f.remotes = lines;
	f.nremotes = nl;
	f.head_branch = info->head_branch;

	/*
	 * remote.pushDefault and the branch's remote choose only among
	 * several remotes none of which is origin (repo_pick_upstream):
	 * git is not asked for them otherwise
	 */
	pushdef[0] = brremote[0] = '\0';
	if (f.nremotes > 1 && remote_named(&f, "origin") == NULL) {
		if (config_get(in, "remote.pushDefault", pushdef,
		    sizeof(pushdef), 1) == -1)
			goto done;
		if (info->head_branch[0] != '\0') {
			(void)snprintf(key, sizeof(key), "branch.%s.remote",
			    info->head_branch);
			if (config_get(in, key, brremote, sizeof(brremote),
			    1) == -1)
				goto done;
		}
	}
	f.push_default = pushdef;
	f.branch_remote = brremote;

	/* only the refs the choices look at, so the answer stays small */
	if ((pats = calloc(f.nremotes * 3 + 2, patlen)) == NULL) {
		fail(in, "out of memory");
		goto done;
	}
	argv[n++] = "for-each-ref";
	argv[n++] = "--format=%(refname) %(symref)";
	argv[n++] = "refs/heads/main";
	argv[n++] = "refs/heads/master";
	for (i = 0, k = 0; i < f.nremotes; i++) {
		for (j = 0; j < 3; j++, k++) {
			if ((size_t)snprintf(pats + k * patlen, patlen,
			    "refs/remotes/%s/%s", f.remotes[i], kinds[j]) >=
			    patlen)
				continue;
			argv[n++] = pats + k * patlen;
		}
	}
	argv[n] = NULL;
	if ((s = git(in, argv)) == -1)
		goto done;
	if (s != 0) {
		git_failed(in, "for-each-ref");
		goto done;
	}
	if ((refs = strdup(in->r->out)) == NULL) {
		fail(in, "out of memory");
		goto done;
	}
	f.refs = refs;

	up = repo_pick_upstream(&f);
	if (strlcpy(info->upstream_remote, up, sizeof(info->upstream_remote))
	    >= sizeof(info->upstream_remote)) {
		fail(in, "%s: the name of git remote %.40s... is too long",
		    in->shown, up);
		goto done;
	}
	repo_pick_default(&f, up, info->default_branch,
	    sizeof(info->default_branch));
	if (*up != '\0') {
		(void)snprintf(key, sizeof(key), "remote.%s.url", up);
		if (config_get(in, key, info->upstream_url,
		    sizeof(info->upstream_url), 0) == -1)
			goto done;
	}
	rv = 0;
 done:
	free(names);
	free(refs);
	free(pats);
	return rv;
}

static int
find_branch(struct inspect *in, const char *branch, struct jb_repo_info *info)
{
	char		 ref[JB_BRANCH_MAX + 32];
	const char	*args[] = { "rev-parse", "--verify", "--quiet", ref,
	    NULL };
	int		 s;

	(void)snprintf(ref, sizeof(ref), "refs/heads/%s^{commit}", branch);
	if ((s = git(in, args)) == -1)
		return -1;
	if (s == 1)
		return 0;
	if (s != 0)
		return git_failed(in, "rev-parse");
	if (git_value(in, "rev-parse", info->branch_sha,
	    sizeof(info->branch_sha)) == -1)
		return -1;
	if (!repo_sha_ok(info->branch_sha))
		return fail(in, "git rev-parse in %s: unexpected answer for "
		    "branch %s", in->shown, branch);
	return 0;
}

/* git's environment is ours, never inherited */
static void
inspect_init(struct inspect *in, const struct repo_owner *owner,
    const char *path, char *err, size_t errlen)
{
	memset(in, 0, sizeof(*in));
	in->owner = owner;
	in->err = err;
	in->errlen = errlen;
	err[0] = '\0';
	repo_vis(in->shown, sizeof(in->shown), path);
	(void)snprintf(in->home, sizeof(in->home), "HOME=%s", owner->home);
	in->envp[0] = (char *)(uintptr_t)"PATH=/usr/bin:/bin";
	in->envp[1] = in->home;
	in->envp[2] = (char *)(uintptr_t)"LC_ALL=C";
	in->envp[3] = (char *)(uintptr_t)"GIT_TERMINAL_PROMPT=0";
	in->envp[4] = (char *)(uintptr_t)"GIT_OPTIONAL_LOCKS=0";
	in->envp[5] = NULL;
	in->deadline = repo_now_ms() + REPO_TIMEOUT_MS;
}

/*
 * The committed config of ref, a commit, into out: 0, 1 when ref names
 * no commit, or -1 with the reason.  One git run both finds the commit
 * and reads the file in it.
 */
static int
show_conf(struct inspect *in, const char *ref, struct jb_repo_conf *out)
{
	char		 spec[JB_BRANCH_MAX * 2 + 96];
	const char	*args[] = { "show", "--no-textconv", spec, NULL };
	int		 s;

	(void)snprintf(spec, sizeof(spec), "%s^{commit}:.jailbee/config.yaml",
	    ref);
	if ((s = git(in, args)) == -1)
		return -1;
	if (s != 0 && strstr(in->r->err, "invalid object name") != NULL)
		return 1;
	(void)strlcpy(out->ref, ref, sizeof(out->ref));
	if (s != 0) {
		if (strstr(in->r->err, "does not exist") != NULL ||
		    strstr(in->r->err, "exists on disk, but not in") != NULL) {
			out->found = 0;
			return 0;
		}
		return git_failed(in, "show");
	}
	if (in->r->outlen >= sizeof(out->text)) {
		out->found = -1;
		return 0;
	}
	memcpy(out->text, in->r->out, in->r->outlen);
	out->len = (uint32_t)in->r->outlen;
	out->found = 1;
	return 0;
}

int
repo_defconf(const struct repo_owner *owner, const struct jb_repo_req *req,
    struct jb_repo_conf *out, char *err, size_t errlen)
{
	struct inspect		 in;
	struct jb_repo_info	 info;
	char			 ref[JB_BRANCH_MAX * 2 + 32], why[128];
	int			 rv = -1, i, hinted, got;

	memset(out, 0, sizeof(*out));
	memset(&info, 0, sizeof(info));
	inspect_init(&in, owner, req->path, err, errlen);
	/*
	 * The default branch and upstream as REPO just found them, when
	 * both read as names git's refs can hold; else found again
	 */
	hinted = req->branch[0] != '\0' && repo_branch_ok(req->branch, why,
	    sizeof(why)) == 0 && (req->remote[0] == '\0' ||
	    repo_branch_ok(req->remote, why, sizeof(why)) == 0);
	if (hinted) {
		(void)strlcpy(info.default_branch, req->branch,
		    sizeof(info.default_branch));
		(void)strlcpy(info.upstream_remote, req->remote,
		    sizeof(info.upstream_remote));
	}
	if ((in.r = malloc(sizeof(*in.r))) == NULL)
		return fail(&in, "out of memory");
	if ((got = find_toplevel(&in, req->path, &info, !hinted)) != -1 &&
	    (hinted || ((got == 1 || find_head(&in, &info) == 0) &&
	    find_upstream(&in, &info) == 0))) {
		rv = 0;
		/* the upstream's default branch, else the local one */
		for (i = 0; i < 2; i++) {
			if (i == 0 && info.upstream_remote[0] == '\0')
				continue;
			if (i == 0)
				(void)snprintf(ref, sizeof(ref),
				    "refs/remotes/%s/%s",
				    info.upstream_remote, info.default_branch);
			else
				(void)snprintf(ref, sizeof(ref),
				    "refs/heads/%s", info.default_branch);
			if ((rv = show_conf(&in, ref, out)) != 1)
				break;
			rv = 0;
		}
	}
	free(in.r);
	return rv;
}

int
repo_inspect(const struct repo_owner *owner, const struct jb_repo_req *req,
    struct jb_repo_info *info, char *err, size_t errlen)
{
	struct inspect	 in;
	int		 rv = -1, got;

	memset(info, 0, sizeof(*info));
	inspect_init(&in, owner, req->path, err, errlen);

	/* refuse a bad name before git ever sees it */
	if (req->branch[0] != '\0' && repo_branch_ok(req->branch, err,
	    errlen) == -1)
		return -1;

	if ((in.r = malloc(sizeof(*in.r))) == NULL)
		return fail(&in, "out of memory");

	if ((got = find_toplevel(&in, req->path, info,
	    !req->toplevel_only)) != -1 &&
	    (req->toplevel_only ||
	    ((got == 1 || find_head(&in, info) == 0) &&
	    find_upstream(&in, info) == 0 &&
	    (req->branch[0] == '\0' || find_branch(&in, req->branch,
	    info) == 0))))
		rv = 0;
	free(in.r);
	if (rv == -1)
		memset(info, 0, sizeof(*info));
	return rv;
}
