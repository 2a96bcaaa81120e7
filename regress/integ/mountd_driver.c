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
 * mountd_driver: plays jailbeed towards the built jb-mountd.  Run as
 * root, it starts jb-mountd on a socketpair (proc_spawn), which drops to
 * the owner, and asks IMSG_MOUNTD_REPO about real git checkouts made
 * here as that owner: a repository with an origin remote and branches
 * main and feat, asked through a subdirectory and a symlink; detached
 * HEAD; the upstream remote's HEAD moved and removed; a sole remote not
 * named origin, no remote at all, remote.pushDefault and the branch's
 * remote; then the refusals: a relative, a missing and a non-directory
 * path, a directory outside any checkout, .git itself, bad branch
 * names, a root-only directory, a root-owned repository (git's own
 * dubious-ownership refusal), and a repository whose config makes git
 * hang, which must be killed at the deadline while jb-mountd keeps
 * serving.  Every reply must follow the protocol: REPO_INFO once before
 * DONE ok=1, nothing before DONE ok=0, all with the request's id.
 *
 * One line per check; the last line is "# N failure(s)"; exit 0 only
 * when there were none.
 *
 * usage: mountd_driver [-m path/to/jb-mountd] [-o owner]
 *	(default: $JB_BUILD/jb-mountd, else build/jb-mountd; owner jbtest)
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "imsg.h"
#include "jb_msg.h"
#include "proc.h"

#define REPLY_MS	30000	/* longer than jb-mountd's 10 s deadline */

static struct imsgbuf	 ibuf;
static pid_t		 mountd = -1;
static char		 T[PATH_MAX];	/* the scratch tree */
static char		 O[PATH_MAX];	/* T/o, the owner's part */
static uid_t		 owner_uid;
static gid_t		 owner_gid;
static const char	*owner_name = "jbtest";
static uint32_t		 last_rid = 100;

static void
streq(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		check(1, "%s = \"%s\"", what, got);
	else
		check(0, "%s = \"%s\", want \"%s\"", what, got, want);
}

static long long
now_msec(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
cleanup(void)
{
	char	cmd[PATH_MAX + 32];
	int	st;

	if (mountd != -1) {
		(void)kill(mountd, SIGTERM);
		(void)waitpid(mountd, &st, 0);
		mountd = -1;
	}
	if (T[0] != '\0') {
		(void)snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", T);
		if (system(cmd) != 0)
			fprintf(stderr, "mountd_driver: could not remove %s\n",
			    T);
		T[0] = '\0';
	}
}

static __attribute__((__noreturn__)) void
finish(void)
{
	cleanup();
	printf("# %d failure(s)\n", failures);
	exit(failures == 0 ? 0 : 1);
}

static __attribute__((__noreturn__)) void bail(const char *, ...)
		    __attribute__((__format__(__printf__, 1, 2)));
static int	sh(int, char *, size_t, const char *, ...)
		    __attribute__((__format__(__printf__, 4, 5)));
static const char *fmt(char *, size_t, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));

static __attribute__((__noreturn__)) void
bail(const char *fmt, ...)
{
	va_list	ap;

	printf("FAIL - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
	finish();
}

/* a path or message that must fit: the run stops if it does not */
static const char *
fmt(char *dst, size_t len, const char *f, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, f);
	n = vsnprintf(dst, len, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		bail("%.60s...: too long", dst);
	return dst;
}
#define AT(dst, f, ...)	fmt((dst), sizeof(dst), (f), __VA_ARGS__)

/*
 * Run a shell script as the owner (or as root), in T, git's identity
 * and system config fixed; its stdout into out (may be NULL), without
 * the final newline.  The exit status.
 */
static int
sh(int as_owner, char *out, size_t outlen, const char *fmt, ...)
{
	char	 script[4096], home[PATH_MAX + 8], t[PATH_MAX + 8];
	char	*env[] = { "PATH=/usr/bin:/bin", home, t, "LC_ALL=C",
	    "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
	    "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t",
	    "GIT_COMMITTER_EMAIL=t@example.invalid", NULL };
	va_list	 ap;
	size_t	 len = 0;
	ssize_t	 n;
	pid_t	 pid;
	int	 p[2], st;

	va_start(ap, fmt);
	(void)vsnprintf(script, sizeof(script), fmt, ap);
	va_end(ap);
	(void)snprintf(home, sizeof(home), "HOME=%s", as_owner ? O : T);
	(void)snprintf(t, sizeof(t), "T=%s", T);
	if (pipe(p) == -1)
		bail("pipe: %s", strerror(errno));
	if ((pid = fork()) == -1)
		bail("fork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(p[1], 1) == -1 || chdir(T) == -1)
			_exit(126);
		close(p[0]);
		close(p[1]);
		if (as_owner && (setgroups(0, NULL) == -1 ||
		    setresgid(owner_gid, owner_gid, owner_gid) == -1 ||
		    setresuid(owner_uid, owner_uid, owner_uid) == -1))
			_exit(126);
		execle("/bin/sh", "sh", "-ec", script, (char *)NULL, env);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		if (out != NULL && len < outlen - 1)
			n = read(p[0], out + len, outlen - 1 - len);
		else {
			char	sink[512];

			n = read(p[0], sink, sizeof(sink));
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out != NULL && len < outlen - 1)
			len += n;
	}
	close(p[0]);
	if (out != NULL) {
		out[len] = '\0';
		if (len > 0 && out[len - 1] == '\n')
			out[len - 1] = '\0';
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			bail("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define SETUP(as_owner, ...) do {					\
	if (sh((as_owner), NULL, 0, __VA_ARGS__) != 0)			\
		bail("setup failed: %s", #__VA_ARGS__);			\
} while (0)

/* the next message within the deadline: 1, 0 on timeout, -1 when gone */
static int
next_msg(struct imsg *imsg, long long deadline)
{
	struct pollfd	pfd;
	long long	left;
	int		n;

	for (;;) {
		if ((n = imsgbuf_get(&ibuf, imsg)) == -1)
			bail("bad message from jb-mountd");
		if (n == 1)
			return 1;
		if ((left = deadline - now_msec()) <= 0)
			return 0;
		pfd.fd = ibuf.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			bail("poll: %s", strerror(errno));
		if ((pfd.revents & (POLLIN | POLLHUP)) == 0)
			continue;
		if ((n = imsgbuf_read(&ibuf)) == -1)
			bail("read from jb-mountd: %s", strerror(errno));
		if (n == 0)
			return -1;
	}
}

static void
send_msg(uint32_t type, uint32_t id, const void *data, size_t len)
{
	if (imsg_compose(&ibuf, type, id, 0, -1, data, len) == -1 ||
	    imsgbuf_flush(&ibuf) == -1)
		bail("send to jb-mountd: %s", strerror(errno));
}

/*
 * One IMSG_MOUNTD_REPO: done.ok, with *info filled when it is 1; the
 * reply's shape is checked here, so a reply that breaks the protocol
 * ends the run.
 */
static int
ask(const char *path, const char *branch, struct jb_repo_info *info,
    struct jb_done *done, long long *took)
{
	struct jb_repo_req	 req;
	struct imsg		 imsg;
	long long		 t0 = now_msec();
	uint32_t		 rid = ++last_rid;
	int			 ninfo = 0, n;

	memset(&req, 0, sizeof(req));
	memset(info, 0, sizeof(*info));
	memset(done, 0, sizeof(*done));
	(void)strlcpy(req.path, path, sizeof(req.path));
	(void)strlcpy(req.branch, branch, sizeof(req.branch));
	send_msg(IMSG_MOUNTD_REPO, rid, &req, sizeof(req));
	for (;;) {
		if ((n = next_msg(&imsg, t0 + REPLY_MS)) == 0)
			bail("no answer for %s within %d ms", path, REPLY_MS);
		if (n == -1)
			bail("jb-mountd closed the channel asking %s", path);
		if (imsg_get_id(&imsg) != rid)
			bail("reply with id %u, want %u", imsg_get_id(&imsg),
			    rid);
		switch (imsg_get_type(&imsg)) {
		case IMSG_MOUNTD_REPO_INFO:
			if (imsg_get_data(&imsg, info, sizeof(*info)) == -1)
				bail("REPO_INFO of %zu bytes",
				    imsg_get_len(&imsg));
			ninfo++;
			break;
		case IMSG_DONE:
			if (imsg_get_data(&imsg, done, sizeof(*done)) == -1)
				bail("DONE of %zu bytes", imsg_get_len(&imsg));
			imsg_free(&imsg);
			if (took != NULL)
				*took = now_msec() - t0;
			if (!(done->ok == 1 && ninfo == 1) &&
			    !(done->ok == 0 && ninfo == 0))
				bail("DONE ok=%d after %d REPO_INFO", done->ok,
				    ninfo);
			if (memchr(done->err, '\0', sizeof(done->err)) == NULL)
				bail("DONE with an unterminated message");
			return done->ok;
		default:
			bail("unexpected reply %s", jb_imsg_name(
			    imsg_get_type(&imsg)));
		}
		imsg_free(&imsg);
	}
}

/* ask about path; it must be answered; then check what came back */
static int
ask_ok(const char *label, const char *path, const char *branch,
    struct jb_repo_info *info)
{
	struct jb_done	done;

	if (ask(path, branch, info, &done, NULL) == 1) {
		check(1, "%s: answered", label);
		return 1;
	}
	check(0, "%s: refused: %s", label, done.err);
	return 0;
}

/* ask about path; it must be refused with exactly want (or containing) */
static void
ask_refused(const char *label, const char *path, const char *branch,
    const char *want, int exact)
{
	struct jb_repo_info	info;
	struct jb_done		done;

	if (ask(path, branch, &info, &done, NULL) == 1) {
		check(0, "%s: answered (toplevel %s), want a refusal", label,
		    info.toplevel);
		return;
	}
	if (exact ? strcmp(done.err, want) == 0 : strstr(done.err, want) !=
	    NULL)
		check(1, "%s: refused: %s", label, done.err);
	else
		check(0, "%s: refused with \"%s\", want %s\"%s\"", label,
		    done.err, exact ? "" : "a message containing ", want);
}

/*
 * One IMSG_MOUNTD_DEFCONF: the default branch's committed config, where
 * branch and remote are what a REPO answer gave ("" to find them again);
 * 1 with *out filled, else 0 with the refusal in done
 */
static int
defconf(const char *path, const char *branch, const char *remote,
    struct jb_repo_conf *out, struct jb_done *done)
{
	struct jb_repo_req	 req;
	struct imsg		 imsg;
	long long		 t0 = now_msec();
	uint32_t		 rid = ++last_rid;
	int			 nconf = 0, n;

	memset(&req, 0, sizeof(req));
	memset(out, 0, sizeof(*out));
	memset(done, 0, sizeof(*done));
	(void)strlcpy(req.path, path, sizeof(req.path));
	(void)strlcpy(req.branch, branch, sizeof(req.branch));
	(void)strlcpy(req.remote, remote, sizeof(req.remote));
	send_msg(IMSG_MOUNTD_DEFCONF, rid, &req, sizeof(req));
	for (;;) {
		if ((n = next_msg(&imsg, t0 + REPLY_MS)) == 0)
			bail("no DEFCONF answer for %s within %d ms", path,
			    REPLY_MS);
		if (n == -1)
			bail("jb-mountd closed the channel on DEFCONF %s",
			    path);
		if (imsg_get_id(&imsg) != rid)
			bail("DEFCONF reply with id %u, want %u",
			    imsg_get_id(&imsg), rid);
		switch (imsg_get_type(&imsg)) {
		case IMSG_MOUNTD_DEFCONF_TEXT:
			if (imsg_get_data(&imsg, out, sizeof(*out)) == -1)
				bail("DEFCONF_TEXT of %zu bytes",
				    imsg_get_len(&imsg));
			nconf++;
			break;
		case IMSG_DONE:
			if (imsg_get_data(&imsg, done, sizeof(*done)) == -1)
				bail("DONE of %zu bytes", imsg_get_len(&imsg));
			imsg_free(&imsg);
			if (done->ok != (nconf == 1))
				bail("DEFCONF %s: DONE ok=%d after %d "
				    "DEFCONF_TEXT", path, done->ok, nconf);
			return done->ok;
		default:
			bail("DEFCONF: unexpected message type %u",
			    imsg_get_type(&imsg));
		}
		imsg_free(&imsg);
	}
}

/* DEFCONF of path with the hint given must read ref, holding text */
static void
defconf_reads(const char *label, const char *path, const char *branch,
    const char *remote, const char *ref, const char *text)
{
	struct jb_repo_conf	conf;
	struct jb_done		done;
	char			got[256];

	if (defconf(path, branch, remote, &conf, &done) != 1) {
		check(0, "%s: refused: %s", label, done.err);
		return;
	}
	streq(label, conf.ref, ref);
	(void)snprintf(got, sizeof(got), "%.*s", (int)conf.len, conf.text);
	if (text == NULL)
		check(conf.found == 0, "%s: no config file in %s (found %d)",
		    label, conf.ref, conf.found);
	else
		streq(label, got, text);
}

static void
start_mountd(const char *path)
{
	static char	 statedir[PATH_MAX];
	char		*argv[] = { "jb-mountd", "-d", "-o",
	    (char *)(uintptr_t)owner_name, "-m", statedir, NULL };
	struct imsg	 imsg;
	int		 sp[2], n;

	/* its deadlines' directory, the owner's as jailbeed makes it */
	AT(statedir, "%s/mountd-state", T);
	if (mkdir(statedir, 0700) == -1 || chown(statedir, owner_uid,
	    owner_gid) == -1)
		bail("state directory %s: %s", statedir, strerror(errno));

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		bail("socketpair: %s", strerror(errno));
	if ((mountd = proc_spawn(path, argv, sp[1])) == -1)
		bail("spawn %s: %s", path, strerror(errno));
	close(sp[1]);
	if (imsgbuf_init(&ibuf, sp[0]) == -1)
		bail("imsgbuf_init: %s", strerror(errno));
	if ((n = next_msg(&imsg, now_msec() + 10000)) != 1)
		bail("jb-mountd (%s) did not report ready", path);
	check(imsg_get_type(&imsg) == IMSG_CHILD_READY,
	    "jb-mountd started and ready (pid %d)", (int)mountd);
	imsg_free(&imsg);
}

/* it runs as the owner with no capability, and is still serving */
static void
status_check(const char *when)
{
	struct jb_proc_status	st;
	struct imsg		imsg;
	uint32_t		rid = ++last_rid;

	send_msg(IMSG_STATUS_REQ, rid, NULL, 0);
	if (next_msg(&imsg, now_msec() + 10000) != 1)
		bail("no STATUS %s", when);
	if (imsg_get_type(&imsg) != IMSG_STATUS || imsg_get_id(&imsg) != rid ||
	    imsg_get_data(&imsg, &st, sizeof(st)) == -1)
		bail("bad STATUS reply %s", when);
	imsg_free(&imsg);
	check(st.uid == owner_uid && st.gid == owner_gid && st.cap_eff == 0 &&
	    st.cap_prm == 0, "%s: jb-mountd serves as uid %u gid %u, "
	    "capabilities eff %#llx prm %#llx", when, st.uid, st.gid,
	    (unsigned long long)st.cap_eff, (unsigned long long)st.cap_prm);
}

/* no git still running in the hanging repository */
static int
git_left_in(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[300], buf[PATH_MAX + 64];
	ssize_t		 n, i;
	int		 fd, found = 0;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		(void)snprintf(path, sizeof(path), "/proc/%s/cmdline",
		    de->d_name);
		if ((fd = open(path, O_RDONLY)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		if (strncmp(buf, "git ", 4) == 0 && strstr(buf, dir) != NULL)
			found++;
	}
	closedir(d);
	return found;
}

int
main(int argc, char *argv[])
{
	struct jb_repo_info	 info;
	struct jb_done		 done;
	struct passwd		*pw;
	const char		*mountd_path = NULL, *build;
	char			 defpath[PATH_MAX], top[PATH_MAX];
	char			 head[64], feat[64], lone[64], dir[PATH_MAX];
	char			 want[PATH_MAX + 128], hang[PATH_MAX];
	long long		 took;
	int			 ch, n;

	while ((ch = getopt(argc, argv, "m:o:")) != -1) {
		switch (ch) {
		case 'm':
			mountd_path = optarg;
			break;
		case 'o':
			owner_name = optarg;
			break;
		default:
			fprintf(stderr, "usage: mountd_driver [-m jb-mountd] "
			    "[-o owner]\n");
			return 2;
		}
	}
	if (mountd_path == NULL) {
		if ((build = getenv("JB_BUILD")) != NULL)
			AT(defpath, "%s/jb-mountd", build);
		else
			(void)strlcpy(defpath, "build/jb-mountd",
			    sizeof(defpath));
		mountd_path = defpath;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0)
		bail("must run as root: jb-mountd drops to the owner itself");
	if ((pw = getpwnam(owner_name)) == NULL)
		bail("no user %s (regress/integ/lib.sh jb_users creates it)",
		    owner_name);
	owner_uid = pw->pw_uid;
	owner_gid = pw->pw_gid;
	if (owner_uid == 0)
		bail("the owner must not be root");
	if (access(mountd_path, X_OK) == -1)
		bail("%s: %s (make all first)", mountd_path, strerror(errno));

	(void)strlcpy(T, "/tmp/mountd.XXXXXX", sizeof(T));
	if (mkdtemp(T) == NULL) {
		T[0] = '\0';
		bail("mkdtemp: %s", strerror(errno));
	}
	if (chmod(T, 0755) == -1)
		bail("chmod %s: %s", T, strerror(errno));
	AT(O, "%s/o", T);
	if (mkdir(O, 0755) == -1 || chown(O, owner_uid, owner_gid) == -1)
		bail("%s: %s", O, strerror(errno));

	/* the owner's repositories */
	SETUP(1, "cd o\n"
	    "git init -q --bare -b main bare.git\n"
	    "git init -q -b main repo\n"
	    "cd repo\n"
	    "mkdir -p sub/deep && echo x > sub/deep/f\n"
	    "git add . && git commit -q -m one\n"
	    "git branch feat\n"
	    "echo y >> sub/deep/f && git commit -q -am two\n"
	    "git remote add origin \"$T/o/bare.git\"\n"
	    "git push -q origin main feat 2>/dev/null\n"
	    "git remote set-head origin main >/dev/null\n"
	    "cd ..\n"
	    "ln -s repo/sub link\n"
	    "mkdir plain\n"
	    "git init -q -b main solo\n"
	    "git -C solo commit -q --allow-empty -m s\n"
	    "git -C solo remote add up \"$T/o/bare.git\"\n"
	    "git init -q -b master lone\n"
	    "git init -q -b trunk fresh\n"
	    "git -C lone commit -q --allow-empty -m l\n"
	    "git init -q -b main multi\n"
	    "git -C multi commit -q --allow-empty -m m\n"
	    "git -C multi remote add a /srv/a.git\n"
	    "git -C multi remote add b /srv/b.git\n"
	    "git -C multi config remote.pushDefault b\n"
	    "git init -q -b main conf\n"
	    "mkdir conf/.jailbee\n"
	    "echo 'network: strict' > conf/.jailbee/config.yaml\n"
	    "git -C conf add .jailbee && git -C conf commit -q -m c\n"
	    "git -C conf checkout -q -b side\n"
	    "echo 'network: loose' > conf/.jailbee/config.yaml\n"
	    "git -C conf commit -q -am side && git -C conf checkout -q main\n"
	    "git init -q -b main hang\n"
	    "mkfifo fifo\n"
	    "git -C hang config include.path \"$T/o/fifo\"\n");
	/* root's: one behind a 0700 directory, one 0700 itself, one 0755 */
	SETUP(0, "mkdir -m 0700 secret\n"
	    "git init -q secret/repo && mkdir secret/repo/sub\n"
	    "git init -q rootrepo && chmod 0700 rootrepo\n"
	    "git init -q dubious && chmod 0755 dubious\n"
	    "git init -q others && chmod 0755 others && chown -R 65534 others\n");
	if (sh(1, head, sizeof(head), "git -C o/repo rev-parse HEAD") != 0 ||
	    sh(1, feat, sizeof(feat), "git -C o/repo rev-parse feat") != 0 ||
	    sh(1, lone, sizeof(lone), "git -C o/lone rev-parse HEAD") != 0)
		bail("git rev-parse for the expected answers");
	AT(top, "%s/repo", O);

	start_mountd(mountd_path);
	status_check("at start");

	/* a subdirectory of the checkout, with a branch to look up */
	AT(dir, "%s/repo/sub/deep", O);
	if (ask_ok("repo/sub/deep, branch feat", dir, "feat", &info)) {
		streq("toplevel", info.toplevel, top);
		streq("head_branch", info.head_branch, "main");
		streq("head_sha", info.head_sha, head);
		streq("default_branch", info.default_branch, "main");
		streq("upstream_remote", info.upstream_remote, "origin");
		AT(want, "%s/bare.git", O);
		streq("upstream_url", info.upstream_url, want);
		streq("branch_sha of feat", info.branch_sha, feat);
		check(strcmp(info.head_sha, info.branch_sha) != 0,
		    "feat and main are different commits");
	}
	/* through a symlink: the work tree's real path */
	AT(dir, "%s/link", O);
	if (ask_ok("symlink to repo/sub, branch main", dir, "main", &info)) {
		streq("toplevel", info.toplevel, top);
		streq("branch_sha of main", info.branch_sha, head);
	}
	if (ask_ok("repo, missing branch", top, "nope", &info))
		streq("branch_sha of nope", info.branch_sha, "");
	if (ask_ok("repo, no branch asked", top, "", &info))
		streq("branch_sha", info.branch_sha, "");

	/* detached HEAD */
	SETUP(1, "git -C o/repo checkout -q --detach");
	if (ask_ok("detached HEAD", top, "", &info)) {
		streq("head_branch", info.head_branch, "");
		streq("head_sha", info.head_sha, head);
		streq("default_branch", info.default_branch, "main");
	}
	SETUP(1, "git -C o/repo checkout -q main");

	/* the upstream's HEAD decides the default branch */
	SETUP(1, "git -C o/repo remote set-head origin feat >/dev/null");
	if (ask_ok("origin/HEAD -> feat", top, "", &info))
		streq("default_branch", info.default_branch, "feat");
	SETUP(1, "git -C o/repo remote set-head -d origin");
	if (ask_ok("no origin/HEAD", top, "", &info))
		streq("default_branch (origin/main)", info.default_branch,
		    "main");

	/* other remote layouts */
	AT(dir, "%s/solo", O);
	if (ask_ok("sole remote 'up'", dir, "", &info)) {
		streq("upstream_remote", info.upstream_remote, "up");
		AT(want, "%s/bare.git", O);
		streq("upstream_url", info.upstream_url, want);
		streq("default_branch", info.default_branch, "main");
	}
	AT(dir, "%s/lone", O);
	if (ask_ok("no remote, on master", dir, "master", &info)) {
		streq("upstream_remote", info.upstream_remote, "");
		streq("upstream_url", info.upstream_url, "");
		streq("default_branch", info.default_branch, "master");
		streq("head_branch", info.head_branch, "master");
		streq("branch_sha of master", info.branch_sha, lone);
	}
	/* an unborn branch: HEAD names it, no commit yet */
	AT(dir, "%s/fresh", O);
	if (ask_ok("unborn branch trunk", dir, "x", &info)) {
		AT(want, "%s/fresh", O);
		streq("toplevel", info.toplevel, want);
		streq("head_branch", info.head_branch, "trunk");
		streq("head_sha", info.head_sha, "");
		streq("branch_sha of x", info.branch_sha, "");
		streq("default_branch", info.default_branch, "main");
	}
	AT(dir, "%s/multi", O);
	if (ask_ok("remotes a b, pushDefault b", dir, "", &info)) {
		streq("upstream_remote", info.upstream_remote, "b");
		streq("upstream_url", info.upstream_url, "/srv/b.git");
	}
	SETUP(1, "git -C o/multi config --unset remote.pushDefault\n"
	    "git -C o/multi config branch.main.remote a");
	if (ask_ok("remotes a b, branch.main.remote a", dir, "", &info))
		streq("upstream_remote", info.upstream_remote, "a");
	SETUP(1, "git -C o/multi config --unset branch.main.remote");
	if (ask_ok("remotes a b, nothing to choose by", dir, "", &info)) {
		streq("upstream_remote", info.upstream_remote, "");
		streq("default_branch", info.default_branch, "main");
	}

	/* refusals */
	ask_refused("relative path", "repo/sub", "",
	    "repo/sub: the path must be absolute", 1);
	AT(dir, "%s/nope", O);
	AT(want, "%s: No such file or directory (as user %s)", dir,
	    owner_name);
	ask_refused("missing path", dir, "", want, 1);
	AT(dir, "%s/repo/sub/deep/f", O);
	AT(want, "%s: not a directory", dir);
	ask_refused("a file", dir, "", want, 1);
	AT(dir, "%s/plain", O);
	AT(want, "%s is not inside a git checkout: run jbctl in your "
	    "repository", dir);
	ask_refused("outside any checkout", dir, "", want, 1);
	AT(dir, "%s/repo/.git", O);
	AT(want, "%s is not inside a git checkout: run jbctl in your "
	    "repository", dir);
	ask_refused("inside .git", dir, "", want, 1);
	ask_refused("branch -x", top, "-x",
	    "invalid branch name \"-x\": it must not start with '-'", 1);
	ask_refused("branch --output=/tmp/x", top, "--output=/tmp/x",
	    "invalid branch name \"--output=/tmp/x\": it must not start with "
	    "'-'", 1);
	ask_refused("branch a..b", top, "a..b",
	    "invalid branch name \"a..b\": it must not contain '..'", 1);
	ask_refused("branch HEAD", top, "HEAD",
	    "invalid branch name \"HEAD\": that name is reserved by git", 1);
	ask_refused("branch with an escape", top, "x\x1b[31m",
	    "invalid branch name \"x\\x1b[31m\": it must not contain control "
	    "characters", 1);
	AT(dir, "%s/secret/repo/sub", T);
	AT(want, "%s: Permission denied (as user %s)", dir, owner_name);
	ask_refused("inside a root-only 0700 directory", dir, "", want, 1);
	AT(dir, "%s/rootrepo", T);
	AT(want, "%s: Permission denied (as user %s)", dir, owner_name);
	ask_refused("a root-only 0700 repository", dir, "", want, 1);
	/* root's checkout is no threat to the owner: described */
	AT(dir, "%s/dubious", T);
	if (ask(dir, "", &info, &done, NULL) == 1)
		check(strcmp(info.toplevel, dir) == 0, "a repository root owns: "
		    "toplevel %s", info.toplevel);
	else
		check(0, "a repository root owns: refused: %s", done.err);
	/* another user's stays refused: its config could run code as us */
	AT(dir, "%s/others", T);
	AT(want, "git rev-parse in %s failed: "
	    "fatal: detected dubious ownership in repository at '%s'", dir,
	    dir);
	ask_refused("a repository another user owns", dir, "", want, 1);

	/*
	 * The escalation gate's base: the default branch's committed
	 * config.  Found again without a hint; with one, the branch and
	 * remote a REPO answer gave are read, and a hint that is no name
	 * git's refs can hold is not used.
	 */
	AT(dir, "%s/conf", O);
	defconf_reads("DEFCONF, no hint", dir, "", "", "refs/heads/main",
	    "network: strict\n");
	defconf_reads("DEFCONF, hint side", dir, "side", "",
	    "refs/heads/side", "network: loose\n");
	defconf_reads("DEFCONF, hint -x", dir, "-x", "", "refs/heads/main",
	    "network: strict\n");
	defconf_reads("DEFCONF, hint side of remote -x", dir, "side", "-x",
	    "refs/heads/main", "network: strict\n");
	defconf_reads("DEFCONF, hint feat of origin", top, "feat", "origin",
	    "refs/remotes/origin/feat", NULL);
	/* the upstream has no such branch: the local one is read */
	defconf_reads("DEFCONF, hint side of remote gone", dir, "side",
	    "gone", "refs/heads/side", "network: loose\n");

	/* git that hangs (config include of a FIFO) is killed at 10 s */
	AT(hang, "%s/hang", O);
	AT(want, "git rev-parse in %s did not finish within 10 s and was "
	    "stopped", hang);
	if (ask(hang, "", &info, &done, &took) == 1)
		check(0, "hanging git: answered");
	else {
		streq("hanging git: refusal", done.err, want);
		check(took >= 9500 && took < 15000,
		    "hanging git: answered after %lld ms", took);
	}
	n = git_left_in(hang);
	check(n == 0, "no git left running in %s (%d)", hang, n);
	status_check("after the hang");
	if (ask_ok("repo again after the hang", top, "", &info))
		streq("toplevel", info.toplevel, top);

	finish();
}
