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
 * ops_driver: plays jailbeed in front of the real jb-incus binary and the
 * real incusd.  It starts jb-incus as jailbeed does (proc_spawn, the
 * channel on fd 3; jb-incus drops to _jbincus itself), sends requests of
 * the parent <-> jb-incus protocol and checks every answer against what
 * the incus CLI sees: NETINFO, CREATE (and its refusals, which must leave
 * nothing behind), LIST, captured and streamed EXEC, RESIZE, snapshots,
 * stop/start/restart/delete, a container that is not ours (refused and
 * left untouched), a container whose start fails (deleted again), and
 * malformed messages, which must kill jb-incus.  Every container it made
 * is removed on the way out.  One line per check; the last line is
 * "# N failure(s)".  Run as root.
 *
 * usage: JB_IMAGE=alias ops_driver [-b bridge] [-e endpoint] [-j jb-incus]
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <arpa/inet.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "driver.h"
#include "imsg.h"
#include "jb_msg.h"
#include "portspec.h"
#include "proc.h"

#define TIMEOUT_MS	60000
/* the base image run-tests built (JB_IMAGE) */
static const char	*IMAGE = "";

struct msg {
	TAILQ_ENTRY(msg)	 entry;
	uint32_t		 type;
	uint32_t		 rid;
	size_t			 len;
	unsigned char		*data;
	int			 fd;
	double			 at;		/* when it was read */
};
TAILQ_HEAD(msgq, msg);

struct reply {
	struct msgq		 msgs;
	struct jb_done		 done;
	int			 got;	/* DONE arrived */
};

static struct imsgbuf	 ib;
static pid_t		 jpid = -1;
static struct msgq	 inbox = TAILQ_HEAD_INITIALIZER(inbox);
static uint32_t		 next_rid = 1;

static const char	*jbincus = "build/jb-incus";
static const char	*endpoint = "unix:/var/lib/incus/unix.socket";
static const char	*bridge = "jbbr0";

static char		 repo[PATH_MAX];
/* the owner jb-incus is started for (-o), and what it bounds by */
static const char	*owner;
static char		 statedir[PATH_MAX], sockdir[PATH_MAX], sock[PATH_MAX + 32];
static char		 junk[PATH_MAX];	/* nodes, links, mount sources */
static char		 name_main[64], name_rw[64], name_bad[64];
static char		 name_other[64], name_used[64];
static char		 name_c1[64], name_c2[64];
static char		 name_ev[64];	/* an empty instance, for events */
static struct jb_netinfo net;
static uint32_t		 next_host;	/* candidate host part */
static double		 last_start;	/* of the last CREATE sent */

static void	note(const char *, ...)
		    __attribute__((__format__(__printf__, 1, 2)));

static void
note(const char *fmt, ...)
{
	va_list	ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A shell command; its stdout (trimmed) in out.  Returns its exit code. */
static int	sh(char *, size_t, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));

static int
sh(char *out, size_t outlen, const char *fmt, ...)
{
	char	*cmd, buf[4096];
	FILE	*fp;
	size_t	 n = 0, r;
	va_list	 ap;
	int	 st;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) == -1)
		abort();
	va_end(ap);
	if ((fp = popen(cmd, "r")) == NULL)
		abort();
	free(cmd);
	while ((r = fread(buf, 1, sizeof(buf), fp)) > 0) {
		if (out != NULL && n + 1 < outlen) {
			if (r > outlen - 1 - n)
				r = outlen - 1 - n;
			memcpy(out + n, buf, r);
			n += r;
		}
	}
	st = pclose(fp);
	if (out != NULL) {
		out[n] = '\0';
		while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
			out[--n] = '\0';
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int
exists(const char *name)
{
	return sh(NULL, 0, "incus query /1.0/instances/%s >/dev/null 2>&1",
	    name) == 0;
}

/* "RUNNING,N": the state as the incus CLI writes it, and snapshots */
static void
state_of(const char *name, char *buf, size_t len)
{
	if (sh(buf, len, "incus query /1.0/instances/%s?recursion=1 "
	    "2>/dev/null | jq -r '(.status | ascii_upcase) + \",\" + "
	    "(.snapshots // [] | length | tostring)'", name) != 0)
		snprintf(buf, len, "absent");
}

static struct json_object *
query_instance(const char *name)
{
	static char	 out[256 * 1024];

	if (sh(out, sizeof(out), "incus query /1.0/instances/%s 2>/dev/null",
	    name) != 0)
		return NULL;
	return json_tokener_parse(out);
}

static const char *
jpath(struct json_object *o, const char *a, const char *b, const char *c)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b != NULL && !json_object_object_get_ex(v, b, &v))
		return NULL;
	if (c != NULL && !json_object_object_get_ex(v, c, &v))
		return NULL;
	return json_object_get_string(v);
}

/* for printing: newlines and control bytes as escapes, one line */
static const char *
esc(const char *s)
{
	static char	 ring[4][256];
	static int	 k;
	char		*o, *e;

	o = ring[k = (k + 1) % 4];
	e = o + sizeof(ring[0]) - 8;

	for (; *s != '\0' && o < e; s++) {
		if (*s == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (*s == '\r') {
			*o++ = '\\';
			*o++ = 'r';
		} else if ((unsigned char)*s < 0x20)
			o += snprintf(o, 5, "\\x%02x", (unsigned char)*s);
		else
			*o++ = *s;
	}
	*o = '\0';
	return ring[k];
}

static int
streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* The channel. */

static int
spawn(void)
{
	char	*argv[16];
	int	 sp[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		return -1;
	/* as jailbeed starts it (children.c) */
	argv[0] = "jb-incus";
	argv[1] = "-o";
	argv[2] = (char *)(uintptr_t)owner;
	argv[3] = "-s";
	argv[4] = statedir;
	argv[5] = "-S";
	argv[6] = sock;
	argv[7] = "-e";
	argv[8] = (char *)(uintptr_t)endpoint;
	argv[9] = "-b";
	argv[10] = (char *)(uintptr_t)bridge;
	argv[11] = NULL;
	if ((jpid = proc_spawn(jbincus, argv, sp[1])) == -1)
		return -1;
	close(sp[1]);
	if (imsgbuf_init(&ib, sp[0]) == -1)
		return -1;
	imsgbuf_allow_fdpass(&ib);
	return 0;
}

/* close the channel, reap jb-incus, give its exit status */
static int
reap(void)
{
	int	st = -1, i;

	if (jpid == -1)
		return -1;
	imsgbuf_clear(&ib);
	close(ib.fd);
	for (i = 0; i < 100; i++) {
		if (waitpid(jpid, &st, WNOHANG) == jpid)
			break;
		usleep(50000);
	}
	if (i == 100) {
		kill(jpid, SIGKILL);
		waitpid(jpid, &st, 0);
	}
	jpid = -1;
	return st;
}

static void
send_msg(uint32_t type, uint32_t rid, const void *data, size_t len)
{
	if (imsg_compose(&ib, type, rid, 0, -1, data, len) == -1 ||
	    imsgbuf_flush(&ib) == -1)
		check(0, "sending %s: %s", jb_imsg_name(type),
		    strerror(errno));
}

/* read what arrives within ms: -1 when jb-incus closed the channel */
static int
pump(int ms)
{
	struct pollfd	 pfd;
	struct imsg	 imsg;
	struct msg	*m;
	int		 n;

	pfd.fd = ib.fd;
	pfd.events = POLLIN;
	if ((n = poll(&pfd, 1, ms < 0 ? 0 : ms)) <= 0)
		return 0;
	if ((n = imsgbuf_read(&ib)) <= 0)
		return -1;
	while ((n = imsgbuf_get(&ib, &imsg)) == 1) {
		if ((m = calloc(1, sizeof(*m))) == NULL)
			abort();
		m->type = imsg_get_type(&imsg);
		m->rid = imsg_get_id(&imsg);
		m->len = imsg_get_len(&imsg);
		if ((m->data = calloc(1, m->len + 1)) == NULL)
			abort();
		if (m->len > 0 && imsg_get_data(&imsg, m->data, m->len) == -1)
			abort();
		m->fd = imsg_get_fd(&imsg);
		m->at = now_ms();
		imsg_free(&imsg);
		TAILQ_INSERT_TAIL(&inbox, m, entry);
	}
	return n == -1 ? -1 : 0;
}

static void
msg_free(struct msg *m)
{
	if (m->fd != -1)
		close(m->fd);
	free(m->data);
	free(m);
}

static void
reply_clear(struct reply *r)
{
	struct msg	*m;

	while ((m = TAILQ_FIRST(&r->msgs)) != NULL) {
		TAILQ_REMOVE(&r->msgs, m, entry);
		msg_free(m);
	}
	memset(r, 0, sizeof(*r));
	TAILQ_INIT(&r->msgs);
}

/* the first message of rid and type (0: any), waiting up to ms */
static struct msg *
wait_msg(uint32_t rid, uint32_t type, int ms)
{
	struct msg	*m;
	double		 end = now_ms() + ms;

	for (;;) {
		TAILQ_FOREACH(m, &inbox, entry)
			if (m->rid == rid && (type == 0 || m->type == type)) {
				TAILQ_REMOVE(&inbox, m, entry);
				return m;
			}
		if (now_ms() >= end || pump((int)(end - now_ms())) == -1)
			return NULL;
	}
}

/* everything for rid up to its DONE */
static int
wait_reply(uint32_t rid, struct reply *r, int ms)
{
	struct msg	*m;
	double		 end = now_ms() + ms;

	memset(r, 0, sizeof(*r));
	TAILQ_INIT(&r->msgs);
	for (;;) {
		if ((m = wait_msg(rid, 0, (int)(end - now_ms()))) == NULL) {
			snprintf(r->done.err, sizeof(r->done.err), "no DONE "
			    "(timeout or jb-incus gone)");
			return -1;
		}
		if (m->type == IMSG_DONE) {
			if (m->len == sizeof(r->done))
				memcpy(&r->done, m->data, sizeof(r->done));
			r->done.err[sizeof(r->done.err) - 1] = '\0';
			r->got = 1;
			msg_free(m);
			return 0;
		}
		TAILQ_INSERT_TAIL(&r->msgs, m, entry);
	}
}

static int
request(uint32_t type, const void *data, size_t len, struct reply *r)
{
	uint32_t	rid = next_rid++;

	send_msg(type, rid, data, len);
	return wait_reply(rid, r, TIMEOUT_MS);
}

static int
count(struct reply *r, uint32_t type)
{
	struct msg	*m;
	int		 n = 0;

	TAILQ_FOREACH(m, &r->msgs, entry)
		n += m->type == type;
	return n;
}

static struct msg *
first(struct reply *r, uint32_t type)
{
	struct msg	*m;

	TAILQ_FOREACH(m, &r->msgs, entry)
		if (m->type == type)
			return m;
	return NULL;
}

static int
has_progress(struct reply *r, const char *text)
{
	struct msg		*m;
	struct jb_ctl_text	*t;

	TAILQ_FOREACH(m, &r->msgs, entry) {
		t = (struct jb_ctl_text *)m->data;
		if (m->type == IMSG_PROGRESS && m->len == sizeof(*t) &&
		    strcmp(t->text, text) == 0)
			return 1;
	}
	return 0;
}

/* when the progress message with that text came, or -1 */
static double
progress_at(struct reply *r, const char *text)
{
	struct msg		*m;
	struct jb_ctl_text	*t;

	TAILQ_FOREACH(m, &r->msgs, entry) {
		t = (struct jb_ctl_text *)m->data;
		if (m->type == IMSG_PROGRESS && m->len == sizeof(*t) &&
		    strcmp(t->text, text) == 0)
			return m->at;
	}
	return -1;
}

/* the captured output of one stream, NUL-terminated, in buf */
static size_t
output(struct reply *r, uint32_t which, char *buf, size_t len)
{
	struct msg		*m;
	struct jb_output	*o;
	size_t			 n = 0;

	TAILQ_FOREACH(m, &r->msgs, entry) {
		o = (struct jb_output *)m->data;
		if (m->type != IMSG_INCUS_OUTPUT || m->len != sizeof(*o) ||
		    o->which != which || o->len > sizeof(o->data))
			continue;
		if (n + o->len < len) {
			memcpy(buf + n, o->data, o->len);
			n += o->len;
		}
	}
	buf[n < len ? n : len - 1] = '\0';
	return n;
}

static int
exit_status(struct reply *r)
{
	struct msg	*m = first(r, IMSG_INCUS_EXIT);

	if (m == NULL || m->len != sizeof(struct jb_exit))
		return -1000;
	return ((struct jb_exit *)m->data)->status;
}

/* Requests. */

static int
ok_reply(struct reply *r)
{
	return r->got && r->done.ok == 1;
}

/* refused, with err containing want */
static int
refused(struct reply *r, const char *want)
{
	return r->got && r->done.ok == 0 && strstr(r->done.err, want) != NULL;
}

static void
create_init(struct jb_incus_create *c, const char *name, const char *ipv4)
{
	/*
	 * its start gate, as jb-netd opens it once it holds the policy:
	 * Incus refuses a disk whose source is missing (names the create
	 * refuses for themselves get none)
	 */
	if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") ==
	    strlen(name) && name[0] != '-')
		(void)sh(NULL, 0, "mkdir -p %s/gate/%s", sockdir, name);
	memset(c, 0, sizeof(*c));
	strlcpy(c->name, name, sizeof(c->name));
	strlcpy(c->image, IMAGE, sizeof(c->image));
	strlcpy(c->ipv4, ipv4, sizeof(c->ipv4));
	c->uid = c->gid = 1000;
	strlcpy(c->source, repo, sizeof(c->source));
	strlcpy(c->repo, repo, sizeof(c->repo));
	strlcpy(c->prefix, "jbt", sizeof(c->prefix));
	strlcpy(c->branch, "feature/ops", sizeof(c->branch));
	strlcpy(c->base, "main", sizeof(c->base));
	strlcpy(c->net, "strict", sizeof(c->net));
}

static void
pack(char *buf, size_t len, uint32_t *n, const char *const *v)
{
	size_t	off = 0, l;

	memset(buf, 0, len);
	for (*n = 0; v[*n] != NULL; (*n)++) {
		l = strlen(v[*n]) + 1;
		if (off + l > len)
			abort();
		memcpy(buf + off, v[*n], l);
		off += l;
	}
}

static void
addr_of(uint32_t host, char *buf, size_t len)
{
	struct in_addr	a;

	inet_pton(AF_INET, net.ipv4, &a);
	a.s_addr = htonl((ntohl(a.s_addr) & ~0xffU) | host);
	inet_ntop(AF_INET, &a, buf, len);
}

/*
 * Create with the next free address: an address taken by someone else
 * (another test run) is skipped.
 */
static int
create_free_addr(struct jb_incus_create *c, struct reply *r, double *ms)
{
	double	t0;
	int	tries;

	for (tries = 0; tries < 40; tries++) {
		addr_of(next_host, c->ipv4, sizeof(c->ipv4));
		next_host = next_host >= 249 ? 200 : next_host + 1;
		last_start = t0 = now_ms();
		request(IMSG_INCUS_CREATE, c, sizeof(*c), r);
		if (ms != NULL)
			*ms = now_ms() - t0;
		if (r->got && !r->done.ok && (strstr(r->done.err,
		    "is in use on") || strstr(r->done.err, "already given") ||
		    strstr(r->done.err, "being given"))) {
			reply_clear(r);
			continue;
		}
		return 0;
	}
	return -1;
}

static void
action(const char *name, uint32_t verb, int force, const char *tag,
    struct reply *r)
{
	struct jb_incus_action	a;

	memset(&a, 0, sizeof(a));
	strlcpy(a.name, name, sizeof(a.name));
	a.verb = verb;
	a.force = force;
	if (tag != NULL)
		strlcpy(a.tag, tag, sizeof(a.tag));
	request(IMSG_INCUS_ACTION, &a, sizeof(a), r);
}

static void
exec_init(struct jb_incus_exec *x, const char *name, const char *const *argv,
    const char *const *env, int capture)
{
	memset(x, 0, sizeof(*x));
	strlcpy(x->name, name, sizeof(x->name));
	x->uid = x->gid = 1000;
	pack(x->argv, sizeof(x->argv), &x->nargs, argv);
	if (env != NULL)
		pack(x->env, sizeof(x->env), &x->nenv, env);
	x->capture = capture;
}

static void
list(const char *name, const char *prefix, struct reply *r)
{
	struct jb_incus_target	t;

	memset(&t, 0, sizeof(t));
	strlcpy(t.name, name, sizeof(t.name));
	strlcpy(t.prefix, prefix, sizeof(t.prefix));
	request(IMSG_INCUS_LIST, &t, sizeof(t), r);
}

static const struct jb_instance *
find_instance(struct reply *r, const char *name)
{
	struct msg		*m;
	struct jb_instance	*ji;

	TAILQ_FOREACH(m, &r->msgs, entry) {
		ji = (struct jb_instance *)m->data;
		if (m->type == IMSG_INCUS_INSTANCE && m->len == sizeof(*ji) &&
		    strcmp(ji->name, name) == 0)
			return ji;
	}
	return NULL;
}

/* Setup. */

static int
ensure_image(void)
{
	int	rv;

	if ((IMAGE = getenv("JB_IMAGE")) == NULL || *IMAGE == '\0') {
		check(0, "JB_IMAGE names no base image");
		IMAGE = "";
		return -1;
	}
	rv = sh(NULL, 0, "incus image info %s >/dev/null 2>&1", IMAGE);
	check(rv == 0, "base image %s is in Incus", IMAGE);
	return rv == 0 ? 0 : -1;
}

static int
make_repo(void)
{
	snprintf(repo, sizeof(repo), "/tmp/jbt-ops-repo.XXXXXX");
	if (mkdtemp(repo) == NULL)
		return -1;
	/* the dev user (1000) writes into it in --mount mode */
	if (sh(NULL, 0, "cd %s && git init -q -b main && echo hi > README && "
	    "git add README && git -c user.name=t -c user.email=t@t commit "
	    "-qm init && chown -R 1000:1000 %s && chmod 0755 %s", repo,
	    repo, repo) != 0)
		return -1;
	return 0;
}

static void
cleanup(void)
{
	const char	*names[] = { name_main, name_rw, name_bad, name_other,
			    name_used, name_c1, name_c2, name_ev, NULL };
	int		 i;

	for (i = 0; names[i] != NULL; i++)
		if (names[i][0] != '\0' && exists(names[i]))
			sh(NULL, 0, "incus delete --force %s >/dev/null 2>&1",
			    names[i]);
	if (repo[0] != '\0')
		sh(NULL, 0, "rm -rf %s", repo);
	if (statedir[0] != '\0')
		sh(NULL, 0, "rm -rf %s", statedir);
	if (sockdir[0] != '\0')
		sh(NULL, 0, "rm -rf %s", sockdir);
	if (junk[0] != '\0')
		sh(NULL, 0, "rm -rf %s", junk);
}

/*
 * What jailbeed would have: a state directory with the owner's mounts
 * area in it, the control socket's directory, and, to forge requests
 * with, a device node, a socket, a link to /etc and plain directories.
 */
static int
make_dirs(void)
{
	struct sockaddr_un	sun;
	int			fd, i;

	snprintf(statedir, sizeof(statedir), "/tmp/jbt-ops-state.XXXXXX");
	snprintf(sockdir, sizeof(sockdir), "/tmp/jbt-ops-sock.XXXXXX");
	snprintf(junk, sizeof(junk), "/tmp/jbt-ops-junk.XXXXXX");
	if (mkdtemp(statedir) == NULL || mkdtemp(sockdir) == NULL ||
	    mkdtemp(junk) == NULL)
		return -1;
	snprintf(sock, sizeof(sock), "%s/jailbeed.sock", sockdir);
	if (sh(NULL, 0, "chmod 0755 %s %s && mkdir -p %s/mounts/shared/x "
	    "%s/dirs && mknod %s/null c 1 3 && ln -s /etc %s/etc", statedir,
	    junk, statedir, junk, junk, junk) != 0)
		return -1;
	for (i = 0; i < 10; i++)
		if (sh(NULL, 0, "mkdir %s/dirs/%d && echo %d > %s/dirs/%d/f",
		    junk, i, i, junk, i) != 0)
			return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, junk, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path) || strlcat(sun.sun_path, "/sock",
	    sizeof(sun.sun_path)) >= sizeof(sun.sun_path))
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		return -1;
	close(fd);
	return 0;
}

/* The checks. */

static void
t_netinfo(void)
{
	struct reply	 r;
	struct msg	*m;
	char		 cli[64], mine[64];

	request(IMSG_INCUS_NETINFO, NULL, 0, &r);
	m = first(&r, IMSG_INCUS_NETINFO);
	if (m != NULL && m->len == sizeof(net))
		memcpy(&net, m->data, sizeof(net));
	sh(cli, sizeof(cli), "incus network get %s ipv4.address", bridge);
	snprintf(mine, sizeof(mine), "%s/%u", net.ipv4, net.prefixlen);
	check(ok_reply(&r) && m != NULL && streq(net.bridge, bridge) &&
	    streq(mine, cli), "NETINFO: %s %s (incus says %s) %s",
	    net.bridge, mine, cli, r.done.err);
	reply_clear(&r);
}

/* a refused CREATE that leaves nothing behind */
static void
refuse_create(const char *what, struct jb_incus_create *c, const char *want)
{
	struct reply	r;

	request(IMSG_INCUS_CREATE, c, sizeof(*c), &r);
	check(refused(&r, want) && count(&r, IMSG_PROGRESS) == 0 &&
	    (c->name[0] == '\0' || strchr(c->name, '/') != NULL ||
	    !exists(c->name)), "CREATE %s refused: %s", what, r.done.err);
	reply_clear(&r);
}

static void
t_create_refusals(void)
{
	struct jb_incus_create	c;
	char			ip[16], addr[16];
	const char		*env_bad[] = { "1X=y", NULL };
	const char		*env_dup[] = { "A=1", "A=2", NULL };

	addr_of(next_host, ip, sizeof(ip));
	create_init(&c, "Bad_Name", ip);
	refuse_create("name Bad_Name", &c, "invalid container name");
	create_init(&c, "jbt/../x", ip);
	refuse_create("name with /", &c, "invalid container name");
	create_init(&c, "-jbt", ip);
	refuse_create("name -jbt", &c, "invalid container name");
	create_init(&c, "", ip);
	refuse_create("empty name", &c, "invalid container name");

	create_init(&c, name_used, "192.0.2.7");
	refuse_create("ipv4 outside the subnet", &c, "is outside network");
	create_init(&c, name_used, net.ipv4);
	refuse_create("ipv4 = the host's", &c, "the host's own address");
	addr_of(0, addr, sizeof(addr));
	create_init(&c, name_used, addr);
	refuse_create("ipv4 = the network", &c, "the network address");
	addr_of(255, addr, sizeof(addr));
	create_init(&c, name_used, addr);
	refuse_create("ipv4 = broadcast", &c, "the broadcast address");
	create_init(&c, name_used, ip);
	snprintf(c.ipv4, sizeof(c.ipv4), "%.*s010", (int)(strrchr(ip, '.') -
	    ip + 1), ip);
	refuse_create("ipv4 with a leading zero", &c, "not an IPv4 address");
	create_init(&c, name_used, "10.1.2");
	refuse_create("ipv4 10.1.2", &c, "not an IPv4 address");

	create_init(&c, name_used, ip);
	strlcpy(c.image, "jb-missing-image-xyz", sizeof(c.image));
	refuse_create("missing image", &c, "base image jb-missing-image-xyz "
	    "not found: build it with jbctl base build");
	create_init(&c, name_used, ip);
	strlcpy(c.image, "../images", sizeof(c.image));
	refuse_create("image ../images", &c, "bad image alias");
	create_init(&c, name_used, ip);
	c.uid = 0;
	refuse_create("uid 0", &c, "uid 0 is out of range");
	create_init(&c, name_used, ip);
	c.gid = 2147483647U;
	refuse_create("gid 2^31-1", &c, "out of range");
	create_init(&c, name_used, ip);
	strlcpy(c.source, "tmp/repo", sizeof(c.source));
	refuse_create("relative source", &c, "not a canonical absolute path");
	create_init(&c, name_used, ip);
	snprintf(c.source, sizeof(c.source), "%.200s/../../etc", repo);
	refuse_create("source with ..", &c, "not a canonical absolute path");
	create_init(&c, name_used, ip);
	strlcpy(c.source, "/", sizeof(c.source));
	refuse_create("source /", &c, "not a canonical absolute path");
	create_init(&c, name_used, ip);
	strlcpy(c.prefix, "Jb", sizeof(c.prefix));
	refuse_create("prefix Jb", &c, "bad container prefix");
	create_init(&c, name_used, ip);
	strlcpy(c.net, "open", sizeof(c.net));
	refuse_create("net open", &c, "neither strict nor loose");
	create_init(&c, name_used, ip);
	pack(c.env, sizeof(c.env), &c.nenv, env_bad);
	refuse_create("env 1X=y", &c, "environment entry \"1X=y\"");
	create_init(&c, name_used, ip);
	pack(c.env, sizeof(c.env), &c.nenv, env_dup);
	refuse_create("env A twice", &c, "set twice");
}

static void
t_create(void)
{
	struct jb_incus_create	 c;
	struct reply		 r;
	struct json_object	*o;
	const char		*env[] = { "JB_TEST=hello world",
				    "INJ=x\",\"security.privileged\":\"true",
				    NULL };
	const char		*base = "main\",\"security.privileged\":"
				    "\"true\",\"raw.lxc\":\"lxc.cap.drop=";
	char			 want[192], state[64], ip[16], port[16], mac[18];
	struct in_addr		 a;
	const unsigned char	*ab;
	double			 ms, tc, ts;

	create_init(&c, name_main, "");
	strlcpy(c.base, base, sizeof(c.base));
	pack(c.env, sizeof(c.env), &c.nenv, env);
	create_free_addr(&c, &r, &ms);
	snprintf(want, sizeof(want), "creating %s from %s", name_main, IMAGE);
	tc = progress_at(&r, want);
	check(ok_reply(&r) && has_progress(&r, want),
	    "CREATE %s at %s: %s (%.0f ms)", name_main, c.ipv4,
	    r.got ? (r.done.ok ? "ok" : r.done.err) : "no answer", ms);
	snprintf(want, sizeof(want), "starting %s", name_main);
	ts = progress_at(&r, want);
	check(has_progress(&r, want), "progress \"%s\"", want);
	if (tc > 0 && ts > tc)
		note("CREATE timing: checks %.0f ms, create %.0f ms, start "
		    "%.0f ms", tc - last_start, ts - tc, last_start + ms - ts);
	reply_clear(&r);

	state_of(name_main, state, sizeof(state));
	check(strncmp(state, "RUNNING,", 8) == 0, "incus says %s is %s",
	    name_main, state);
	if ((o = query_instance(name_main)) == NULL) {
		check(0, "incus query %s", name_main);
		return;
	}
	check(streq(jpath(o, "config", "security.nesting", NULL), "true") &&
	    streq(jpath(o, "config", "raw.idmap", NULL), "both 1000 1000") &&
	    jpath(o, "config", "security.privileged", NULL) == NULL &&
	    jpath(o, "config", "raw.lxc", NULL) == NULL,
	    "config: nesting, raw.idmap \"both 1000 1000\", no privileged, "
	    "no raw.lxc");
	check(streq(jpath(o, "config", "user.jailbee.repo", NULL), repo) &&
	    streq(jpath(o, "config", "user.jailbee.prefix", NULL), "jbt") &&
	    streq(jpath(o, "config", "user.jailbee.branch", NULL),
	    "feature/ops") &&
	    streq(jpath(o, "config", "user.jailbee.base", NULL), base) &&
	    streq(jpath(o, "config", "user.jailbee.mode", NULL), "clone") &&
	    streq(jpath(o, "config", "user.jailbee.net", NULL), "strict"),
	    "user.jailbee.* keys, the injected base kept as a literal value");
	check(streq(jpath(o, "config", "environment.JB_TEST", NULL),
	    "hello world") && streq(jpath(o, "config", "environment.INJ",
	    NULL), env[1] + 4), "environment.* from env, literally");
	/* the port and MAC jb-netd's bridge table lets send, from the address */
	inet_pton(AF_INET, c.ipv4, &a);
	ab = (const unsigned char *)&a;
	snprintf(port, sizeof(port), "jbc%02x%02x%02x%02x", ab[0], ab[1],
	    ab[2], ab[3]);
	snprintf(mac, sizeof(mac), "0a:6a:%02x:%02x:%02x:%02x", ab[0], ab[1],
	    ab[2], ab[3]);
	check(streq(jpath(o, "devices", "eth0", "type"), "nic") &&
	    streq(jpath(o, "devices", "eth0", "network"), bridge) &&
	    streq(jpath(o, "devices", "eth0", "ipv4.address"), c.ipv4) &&
	    streq(jpath(o, "devices", "eth0", "host_name"), port) &&
	    streq(jpath(o, "devices", "eth0", "hwaddr"), mac) &&
	    jpath(o, "devices", "eth0", "security.ipv4_filtering") == NULL &&
	    streq(jpath(o, "devices", "eth0", "security.port_isolation"),
	    "true"), "eth0: %s on %s, port %s, MAC %s, no Incus filtering, "
	    "port isolation", c.ipv4, bridge, port, mac);
	check(streq(jpath(o, "devices", "host-source", "source"), repo) &&
	    streq(jpath(o, "devices", "host-source", "path"),
	    "/mnt/host-source") && streq(jpath(o, "devices", "host-source",
	    "readonly"), "true") && jpath(o, "devices", "host-repo-rw",
	    "type") == NULL, "host-source read-only at /mnt/host-source, "
	    "no host-repo-rw");
	json_object_put(o);

	/* the same address again, and the same name again */
	strlcpy(ip, c.ipv4, sizeof(ip));
	create_init(&c, name_used, ip);
	snprintf(want, sizeof(want), "in use on %s by %s (static lease)",
	    bridge, name_main);
	refuse_create("with the address of another container", &c, want);
	create_init(&c, name_main, "");
	addr_of(next_host, c.ipv4, sizeof(c.ipv4));
	request(IMSG_INCUS_CREATE, &c, sizeof(c), &r);
	state_of(name_main, state, sizeof(state));
	snprintf(want, sizeof(want), "create %s: an instance named %s already "
	    "exists", name_main, name_main);
	check(refused(&r, want) && count(&r, IMSG_PROGRESS) == 0 &&
	    strncmp(state, "RUNNING,", 8) == 0,
	    "CREATE of an existing name refused, the container untouched: %s",
	    r.done.err);
	reply_clear(&r);
}

static void
disk_init(struct jb_disk *d, const char *dev, const char *src,
    const char *path, int ro)
{
	memset(d, 0, sizeof(*d));
	strlcpy(d->name, name_main, sizeof(d->name));
	strlcpy(d->device, dev, sizeof(d->device));
	strlcpy(d->source, src, sizeof(d->source));
	strlcpy(d->path, path, sizeof(d->path));
	d->readonly = ro;
}

/* the device dev of name_main, as Incus has it, else NULL */
static int
has_device(const char *dev)
{
	struct json_object	*o;
	int			 has;

	if ((o = query_instance(name_main)) == NULL)
		return -1;
	has = jpath(o, "devices", dev, "type") != NULL;
	json_object_put(o);
	return has;
}

/* a DISK_ADD the parent could forge: refused, for why, and not made */
static void
refuse_disk(const char *what, const char *src, const char *want)
{
	struct jb_disk	d;
	struct reply	r;

	disk_init(&d, "host-77", src, "/home/dev/forged", 0);
	request(IMSG_INCUS_DISK_ADD, &d, sizeof(d), &r);
	check(refused(&r, want) && has_device("host-77") == 0,
	    "DISK_ADD %s refused: %s", what, r.got ? r.done.err :
	    "no answer");
	reply_clear(&r);
}

/*
 * jb-incus bounds the parent: forged requests the protocol lets it
 * send, each refused for its reason; the legitimate ones still work.
 */
static void
t_bounds(void)
{
	struct jb_incus_create	 c;
	struct jb_incus_exec	*x;
	struct jb_disk		 d;
	struct reply		 r;
	struct group		*gr;
	const char		*id[] = { "id", "-u", NULL };
	uint32_t		 admin;
	char			 ip[16], src[PATH_MAX + 32], want[3 * PATH_MAX];

	admin = (gr = getgrnam("incus-admin")) != NULL ? gr->gr_gid : 997;
	addr_of(next_host, ip, sizeof(ip));
	create_init(&c, name_used, ip);
	c.gid = admin;
	snprintf(want, sizeof(want), "uid 1000 gid %u: raw.idmap maps only "
	    "the owner's ids (1000:1000)", admin);
	refuse_create("with gid incus-admin", &c, want);
	create_init(&c, name_used, ip);
	c.uid = 1001;
	refuse_create("with uid 1001", &c, "uid 1001 gid 1000: raw.idmap "
	    "maps only the owner's ids (1000:1000)");
	create_init(&c, name_used, ip);
	strlcpy(c.source, "/var/lib/incus", sizeof(c.source));
	c.mount_rw = 1;
	refuse_create("source /var/lib/incus read-write", &c, "source "
	    "/var/lib/incus lies under /var/lib/incus, which no container "
	    "gets");
	create_init(&c, name_used, ip);
	strlcpy(c.source, statedir, sizeof(c.source));
	snprintf(want, sizeof(want), "source %s lies in the suite's state "
	    "directory %s", statedir, statedir);
	refuse_create("source = the state directory", &c, want);

	refuse_disk("/etc read-write", "/etc", "source /etc lies under /etc, "
	    "which no container gets");
	refuse_disk("/var/lib/incus", "/var/lib/incus", "source "
	    "/var/lib/incus lies under /var/lib/incus");
	refuse_disk("/run/incus", "/run/incus", "lies under /run,");
	refuse_disk("/proc/1/root", "/proc/1/root", "lies under /proc,");
	refuse_disk("/sys", "/sys", "lies under /sys,");
	refuse_disk("/dev", "/dev", "lies under /dev,");
	refuse_disk("/boot", "/boot", "lies under /boot,");
	refuse_disk("/", "/", "not a canonical absolute path");
	snprintf(src, sizeof(src), "%s/repos.tsv", statedir);
	snprintf(want, sizeof(want), "source %s lies in the suite's state "
	    "directory %s", src, statedir);
	refuse_disk("a file of the state directory", src, want);
	snprintf(want, sizeof(want), "source %s lies in the control socket's "
	    "directory %s", sockdir, sockdir);
	refuse_disk("the control socket's directory", sockdir, want);
	snprintf(src, sizeof(src), "%s/null", junk);
	snprintf(want, sizeof(want), "source %s is a device node", src);
	refuse_disk("a device node", src, want);
	snprintf(src, sizeof(src), "%s/sock", junk);
	snprintf(want, sizeof(want), "source %s is a socket", src);
	refuse_disk("a socket", src, want);
	snprintf(src, sizeof(src), "%s/etc/ssh", junk);
	snprintf(want, sizeof(want), "source %s has a symbolic link at "
	    "%s/etc", src, junk);
	refuse_disk("through a link to /etc", src, want);

	/* the owner's mounts area in the state directory is the owner's */
	snprintf(src, sizeof(src), "%s/mounts/shared/x", statedir);
	disk_init(&d, "host-78", src, "/home/dev/shared", 1);
	request(IMSG_INCUS_DISK_ADD, &d, sizeof(d), &r);
	check(ok_reply(&r) && has_device("host-78") == 1, "DISK_ADD of %s "
	    "(the owner's mounts area): %s", src, r.done.ok ? "ok" :
	    r.done.err);
	reply_clear(&r);
	request(IMSG_INCUS_DISK_REMOVE, &d, sizeof(d), &r);
	check(ok_reply(&r) && has_device("host-78") == 0, "DISK_REMOVE "
	    "host-78: %s", r.done.ok ? "ok" : r.done.err);
	reply_clear(&r);

	x = malloc(sizeof(*x));
	exec_init(x, name_main, id, NULL, 1);
	x->gid = admin;
	snprintf(want, sizeof(want), "uid 1000 gid %u: commands run as root "
	    "(0) or as the owner (1000:1000) only", admin);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(refused(&r, want) && count(&r, IMSG_INCUS_OUTPUT) == 0,
	    "EXEC with gid incus-admin refused: %s", r.done.err);
	reply_clear(&r);
	exec_init(x, name_main, id, NULL, 1);
	x->uid = 1001;
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(refused(&r, "uid 1001 gid 1000: commands run as root (0) or "
	    "as the owner (1000:1000) only"), "EXEC as uid 1001 refused: %s",
	    r.done.err);
	reply_clear(&r);
	exec_init(x, name_main, id, NULL, 1);
	x->uid = x->gid = 0;
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(ok_reply(&r) && exit_status(&r) == 0, "EXEC as root still "
	    "runs: %s", r.done.ok ? "ok" : r.done.err);
	reply_clear(&r);
	free(x);
}

/*
 * Ten disks and a forward removed at once, as expired mounts and a port
 * rm at the same moment: every removal lands, none comes back.
 */
static void
t_device_race(void)
{
	struct jb_disk		 d;
	struct jb_port		 p;
	struct reply		 r;
	struct json_object	*o, *devs;
	uint32_t		 rids[11];
	int			 i, ok, left;
	char			 dev[16], src[PATH_MAX + 16], path[64];
	char			 names[256], why[256];

	for (i = ok = 0; i < 10; i++) {
		snprintf(dev, sizeof(dev), "host-%d", i);
		snprintf(src, sizeof(src), "%s/dirs/%d", junk, i);
		snprintf(path, sizeof(path), "/home/dev/m%d", i);
		disk_init(&d, dev, src, path, 1);
		request(IMSG_INCUS_DISK_ADD, &d, sizeof(d), &r);
		ok += ok_reply(&r);
		if (!ok_reply(&r))
			note("DISK_ADD %s: %s", dev, r.done.err);
		reply_clear(&r);
	}
	check(ok == 10, "ten disks attached to %s (%d)", name_main, ok);
	memset(&p, 0, sizeof(p));
	strlcpy(p.name, name_main, sizeof(p.name));
	p.dir = PORT_TO_CONTAINER;
	strlcpy(p.proto, "tcp", sizeof(p.proto));
	p.port = 8123;
	strlcpy(p.container_address, "127.0.0.1",
	    sizeof(p.container_address));
	p.host_port = 8124;
	strlcpy(p.host_address, "127.0.0.1", sizeof(p.host_address));
	if (port_device(p.device, sizeof(p.device), PORT_TO_CONTAINER, "tcp",
	    8123, NULL) == -1)
		check(0, "port_device");
	request(IMSG_INCUS_PORT_ADD, &p, sizeof(p), &r);
	check(ok_reply(&r) && has_device(p.device) == 1, "forward %s on %s: "
	    "%s", p.device, name_main, r.done.ok ? "ok" : r.done.err);
	reply_clear(&r);

	/* all eleven in flight at once */
	for (i = 0; i < 10; i++) {
		snprintf(dev, sizeof(dev), "host-%d", i);
		disk_init(&d, dev, "", "", 0);
		rids[i] = next_rid++;
		send_msg(IMSG_INCUS_DISK_REMOVE, rids[i], &d, sizeof(d));
	}
	rids[10] = next_rid++;
	send_msg(IMSG_INCUS_PORT_REMOVE, rids[10], &p, sizeof(p));
	why[0] = '\0';
	for (i = ok = 0; i < 11; i++) {
		wait_reply(rids[i], &r, TIMEOUT_MS);
		ok += ok_reply(&r);
		if (!ok_reply(&r) && why[0] == '\0')
			strlcpy(why, r.done.err, sizeof(why));
		reply_clear(&r);
	}
	check(ok == 11, "ten DISK_REMOVE and a PORT_REMOVE at once all "
	    "done (%d ok%s%s)", ok, why[0] ? ": " : "", why);
	names[0] = '\0';
	left = 0;
	if ((o = query_instance(name_main)) == NULL) {
		check(0, "incus query %s", name_main);
		return;
	}
	if (json_object_object_get_ex(o, "devices", &devs)) {
		json_object_object_foreach(devs, k, v) {
			(void)v;
			if ((strncmp(k, "host-", 5) != 0 || strlen(k) != 6 ||
			    k[5] < '0' || k[5] > '9') &&
			    strcmp(k, p.device) != 0)
				continue;
			left++;
			strlcat(names, " ", sizeof(names));
			strlcat(names, k, sizeof(names));
		}
	}
	json_object_put(o);
	check(left == 0, "none of the eleven removed devices comes back (%d "
	    "left:%s)", left, names);
}

static void
t_list(void)
{
	struct reply			 r;
	const struct jb_instance	*ji;
	char				 ip[64];

	sh(ip, sizeof(ip), "incus config device get %s eth0 ipv4.address",
	    name_main);
	list("", "jbt", &r);
	ji = find_instance(&r, name_main);
	check(ok_reply(&r) && ji != NULL && find_instance(&r, name_other) ==
	    NULL, "LIST prefix jbt: %d instance(s), %s in, %s out",
	    count(&r, IMSG_INCUS_INSTANCE), name_main, name_other);
	if (ji != NULL)
		check(streq(ji->state, "Running") && streq(ji->repo, repo) &&
		    streq(ji->prefix, "jbt") && streq(ji->branch,
		    "feature/ops") && strncmp(ji->base, "main\"", 5) == 0 &&
		    streq(ji->mode, "clone") && streq(ji->net, "strict") &&
		    streq(ji->ipv4, ip) && ji->created > time(NULL) - 600 &&
		    ji->created <= time(NULL) + 5,
		    "fields: %s %s repo=%s prefix=%s branch=%s mode=%s net=%s "
		    "ipv4=%s created %llds ago", ji->name, ji->state, ji->repo,
		    ji->prefix, ji->branch, ji->mode, ji->net, ji->ipv4,
		    (long long)(time(NULL) - ji->created));
	reply_clear(&r);

	list("", "", &r);
	check(ok_reply(&r) && find_instance(&r, name_main) != NULL &&
	    find_instance(&r, name_other) == NULL,
	    "LIST all: %d of ours, not %s", count(&r, IMSG_INCUS_INSTANCE),
	    name_other);
	reply_clear(&r);

	list("", "nomatch-xyz", &r);
	check(ok_reply(&r) && find_instance(&r, name_main) == NULL,
	    "LIST prefix nomatch-xyz: %d instance(s)",
	    count(&r, IMSG_INCUS_INSTANCE));
	reply_clear(&r);

	list(name_main, "", &r);
	check(ok_reply(&r) && count(&r, IMSG_INCUS_INSTANCE) == 1 &&
	    find_instance(&r, name_main) != NULL, "LIST %s: one instance",
	    name_main);
	reply_clear(&r);

	list(name_other, "", &r);
	check(refused(&r, "no such container") && count(&r,
	    IMSG_INCUS_INSTANCE) == 0, "LIST %s (not ours): %s", name_other,
	    r.done.err);
	reply_clear(&r);

	list("jbt-ops-nonexistent", "", &r);
	check(refused(&r, "no such container jbt-ops-nonexistent"),
	    "LIST a missing name: %s", r.done.err);
	reply_clear(&r);
}

static double
median(double *v, int n)
{
	int	i, j;
	double	t;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (v[j] < v[i]) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
			}
	return v[n / 2];
}

static void
t_exec_capture(void)
{
	struct jb_incus_exec	*x;
	struct reply		 r;
	const char		*a1[] = { "sh", "-c",
				    "echo out; echo err >&2; exit 3", NULL };
	const char		*a2[] = { "sh", "-c",
				    "echo $JB_TEST $FOO; id -u; id -g; pwd",
				    NULL };
	const char		*e2[] = { "FOO=bar", NULL };
	const char		*a3[] = { "sh", "-c",
				    "head -c 20000 /dev/zero | tr '\\0' x",
				    NULL };
	const char		*a4[] = { "true", NULL };
	const char		*a5[] = { "/nonexistent-binary", NULL };
	const char		*a6[] = { "sh", "-c", "echo out; echo err >&2",
				    NULL };
	char			 out[32768], err[4096];
	double			 t[10], t0;
	int			 i;

	x = malloc(sizeof(*x));
	exec_init(x, name_main, a1, NULL, 1);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	output(&r, 1, out, sizeof(out));
	output(&r, 2, err, sizeof(err));
	check(ok_reply(&r) && exit_status(&r) == 3 && streq(out, "out\n") &&
	    streq(err, "err\n"), "EXEC capture: exit %d, stdout \"%s\", "
	    "stderr \"%s\" %s", exit_status(&r), esc(out), esc(err),
	    r.done.err);
	reply_clear(&r);

	/* quiet_ok: a status only when it exits 0, everything when not */
	exec_init(x, name_main, a1, NULL, 1);
	x->quiet_ok = 1;
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	output(&r, 1, out, sizeof(out));
	output(&r, 2, err, sizeof(err));
	check(ok_reply(&r) && exit_status(&r) == 3 && streq(out, "out\n") &&
	    streq(err, "err\n"), "EXEC capture quiet_ok, exit 3: stdout "
	    "\"%s\", stderr \"%s\" %s", esc(out), esc(err), r.done.err);
	reply_clear(&r);
	exec_init(x, name_main, a6, NULL, 1);
	x->quiet_ok = 1;
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	output(&r, 1, out, sizeof(out));
	output(&r, 2, err, sizeof(err));
	check(ok_reply(&r) && exit_status(&r) == 0 && streq(out, "") &&
	    streq(err, ""), "EXEC capture quiet_ok, exit 0: no output read "
	    "(stdout \"%s\", stderr \"%s\") %s", esc(out), esc(err),
	    r.done.err);
	reply_clear(&r);

	exec_init(x, name_main, a2, e2, 1);
	strlcpy(x->cwd, "/mnt/host-source", sizeof(x->cwd));
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	output(&r, 1, out, sizeof(out));
	check(ok_reply(&r) && exit_status(&r) == 0 &&
	    streq(out, "hello world bar\n1000\n1000\n/mnt/host-source\n"),
	    "EXEC capture: container env, request env, uid, gid, cwd: \"%s\"",
	    esc(out));
	reply_clear(&r);

	exec_init(x, name_main, a3, NULL, 1);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(ok_reply(&r) && output(&r, 1, out, sizeof(out)) == 20000 &&
	    count(&r, IMSG_INCUS_OUTPUT) == 3, "EXEC capture: 20000 bytes "
	    "in %d OUTPUT messages", count(&r, IMSG_INCUS_OUTPUT));
	reply_clear(&r);

	exec_init(x, name_main, a5, NULL, 1);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(r.got && !r.done.ok && strncmp(r.done.err, "exec ", 5) == 0,
	    "EXEC capture of a missing binary: %s", r.done.err);
	reply_clear(&r);

	exec_init(x, name_main, a4, NULL, 1);
	for (i = 0; i < 10; i++) {
		t0 = now_ms();
		request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
		t[i] = now_ms() - t0;
		if (!ok_reply(&r) || exit_status(&r) != 0)
			check(0, "EXEC capture true: %s", r.done.err);
		reply_clear(&r);
	}
	note("EXEC capture `true` round trip through jb-incus: median %.1f "
	    "ms of 10", median(t, 10));

	exec_init(x, name_other, a4, NULL, 1);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(refused(&r, "is not a JailBee container"), "EXEC in %s: %s",
	    name_other, r.done.err);
	reply_clear(&r);

	exec_init(x, name_main, a4, NULL, 1);
	x->nargs = 0;
	memset(x->argv, 0, sizeof(x->argv));
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(refused(&r, "no command given"), "EXEC with no argv: %s",
	    r.done.err);
	reply_clear(&r);
	free(x);
}

static int
fd_of(struct msg *m, uint32_t which)
{
	struct jb_exec_fd	*f = (struct jb_exec_fd *)m->data;
	int			 fd;

	if (m->len != sizeof(*f) || f->which != which)
		return -1;
	fd = m->fd;
	m->fd = -1;
	return fd;
}

/* read fd to EOF (up to len), giving up after ms */
static ssize_t
read_all(int fd, char *buf, size_t len, int ms)
{
	struct pollfd	pfd;
	double		end = now_ms() + ms;
	size_t		n = 0;
	ssize_t		r;

	pfd.fd = fd;
	pfd.events = POLLIN;
	while (n < len) {
		if (poll(&pfd, 1, (int)(end - now_ms())) <= 0)
			return -1;
		if ((r = read(fd, buf + n, len - n)) == -1)
			return -1;
		if (r == 0)
			break;
		n += r;
	}
	return n;
}

static void
t_exec_stream(void)
{
	struct jb_incus_exec	*x;
	struct jb_incus_target	 t;
	struct jb_winsize	 ws;
	struct reply		 r, lr;
	struct msg		*m0, *m2;
	const char		*cat[] = { "cat", NULL };
	const char		*a1[] = { "sh", "-c",
				    "echo o; echo e >&2; exit 5", NULL };
	const char		*a2[] = { "sh", "-c",
				    "stty size; read x; stty size", NULL };
	const char		*a4[] = { "true", NULL };
	char			*big, *back, out[4096], err[4096];
	uint32_t		 rid, lrid;
	size_t			 biglen = 256 * 1024;
	ssize_t			 n;
	double			 t0, tt[10];
	int			 fd0 = -1, fd2 = -1, i, ok;

	x = malloc(sizeof(*x));
	big = malloc(biglen);
	back = malloc(biglen + 1);
	for (i = 0; i < (int)biglen; i++)
		big[i] = 'a' + i % 26;

	/* cat: 256 kB there and back, and a LIST answered meanwhile */
	exec_init(x, name_main, cat, NULL, 0);
	rid = next_rid++;
	t0 = now_ms();
	send_msg(IMSG_INCUS_EXEC, rid, x, sizeof(*x));
	m0 = wait_msg(rid, IMSG_INCUS_EXEC_FD, TIMEOUT_MS);
	m2 = wait_msg(rid, IMSG_INCUS_EXEC_FD, TIMEOUT_MS);
	if (m0 == NULL || m2 == NULL || (fd0 = fd_of(m0, 0)) == -1 ||
	    (fd2 = fd_of(m2, 2)) == -1) {
		check(0, "EXEC stream cat: two EXEC_FD messages (0, 2)");
		goto out;
	}
	memset(&t, 0, sizeof(t));
	strlcpy(t.name, name_main, sizeof(t.name));
	lrid = next_rid++;
	send_msg(IMSG_INCUS_LIST, lrid, &t, sizeof(t));
	wait_reply(lrid, &lr, TIMEOUT_MS);
	check(ok_reply(&lr) && wait_msg(rid, IMSG_DONE, 0) == NULL,
	    "a LIST is answered while the streamed cat still runs");
	reply_clear(&lr);
	if (fork() == 0) {
		/* the writer: cat's output must be read meanwhile */
		ok = write(fd0, big, biglen) == (ssize_t)biglen;
		_exit(ok ? 0 : 1);
	}
	n = 0;
	{
		struct pollfd	pfd;
		ssize_t		k;

		pfd.fd = fd0;
		pfd.events = POLLIN;
		while ((size_t)n < biglen && poll(&pfd, 1, 20000) > 0 &&
		    (k = read(fd0, back + n, biglen - n)) > 0)
			n += k;
	}
	wait(NULL);
	shutdown(fd0, SHUT_WR);
	i = (int)read_all(fd0, out, sizeof(out), 20000);
	check((size_t)n == biglen && memcmp(big, back, biglen) == 0 && i == 0,
	    "EXEC stream cat: %zd of %zu bytes back intact, EOF after "
	    "shutdown", n, biglen);
	check(read_all(fd2, err, sizeof(err), 20000) == 0,
	    "EXEC stream cat: nothing on stderr");
	wait_reply(rid, &r, TIMEOUT_MS);
	check(ok_reply(&r) && exit_status(&r) == 0, "EXEC stream cat: EXIT "
	    "%d, DONE %s (%.0f ms for 256 kB each way)", exit_status(&r),
	    r.done.ok ? "ok" : r.done.err, now_ms() - t0);
	reply_clear(&r);
	close(fd0);
	close(fd2);
	msg_free(m0);
	msg_free(m2);
	m0 = m2 = NULL;

	/* stdout and stderr apart, and the status */
	exec_init(x, name_main, a1, NULL, 0);
	rid = next_rid++;
	send_msg(IMSG_INCUS_EXEC, rid, x, sizeof(*x));
	m0 = wait_msg(rid, IMSG_INCUS_EXEC_FD, TIMEOUT_MS);
	m2 = wait_msg(rid, IMSG_INCUS_EXEC_FD, TIMEOUT_MS);
	fd0 = m0 ? fd_of(m0, 0) : -1;
	fd2 = m2 ? fd_of(m2, 2) : -1;
	if (fd0 != -1)
		shutdown(fd0, SHUT_WR);
	n = fd0 == -1 ? -1 : read_all(fd0, out, sizeof(out) - 1, 20000);
	out[n > 0 ? n : 0] = '\0';
	i = fd2 == -1 ? -1 : (int)read_all(fd2, err, sizeof(err) - 1, 20000);
	err[i > 0 ? i : 0] = '\0';
	wait_reply(rid, &r, TIMEOUT_MS);
	check(ok_reply(&r) && exit_status(&r) == 5 && streq(out, "o\n") &&
	    streq(err, "e\n"), "EXEC stream: stdout \"%s\", stderr \"%s\", "
	    "exit %d", esc(out), esc(err), exit_status(&r));
	reply_clear(&r);
	if (fd0 != -1)
		close(fd0);
	if (fd2 != -1)
		close(fd2);
	if (m0 != NULL)
		msg_free(m0);
	if (m2 != NULL)
		msg_free(m2);
	m0 = m2 = NULL;

	/* a pty: its size, then RESIZE */
	exec_init(x, name_main, a2, NULL, 0);
	x->interactive = 1;
	x->cols = 100;
	x->rows = 30;
	rid = next_rid++;
	send_msg(IMSG_INCUS_EXEC, rid, x, sizeof(*x));
	m0 = wait_msg(rid, IMSG_INCUS_EXEC_FD, TIMEOUT_MS);
	fd0 = m0 ? fd_of(m0, 0) : -1;
	{
		struct pollfd	pfd;
		size_t		got = 0;
		ssize_t		k;

		pfd.fd = fd0;
		pfd.events = POLLIN;
		/* the first size is printed before read waits */
		while (fd0 != -1 && strstr(out, "30 100") == NULL &&
		    poll(&pfd, 1, 10000) > 0 &&
		    (k = read(fd0, out + got, sizeof(out) - 1 - got)) > 0) {
			got += k;
			out[got] = '\0';
		}
		if (fd0 != -1)
			out[got] = '\0';
	}
	check(fd0 != -1 && strstr(out, "30 100") != NULL,
	    "EXEC interactive: one fd, the pty is 100x30");
	ws.cols = 120;
	ws.rows = 40;
	send_msg(IMSG_INCUS_RESIZE, rid, &ws, sizeof(ws));
	/* and one for an exec that is not there: ignored */
	send_msg(IMSG_INCUS_RESIZE, 999999, &ws, sizeof(ws));
	usleep(300000);
	if (fd0 != -1 && write(fd0, "\n", 1) == 1) {
		n = read_all(fd0, out, sizeof(out) - 1, 20000);
		out[n > 0 ? n : 0] = '\0';
	}
	wait_reply(rid, &r, TIMEOUT_MS);
	check(ok_reply(&r) && exit_status(&r) == 0 &&
	    strstr(out, "40 120") != NULL && first(&r, IMSG_INCUS_EXEC_FD) ==
	    NULL, "EXEC interactive: after RESIZE the pty is 120x40, exit %d",
	    exit_status(&r));
	reply_clear(&r);
	if (fd0 != -1)
		close(fd0);
	if (m0 != NULL)
		msg_free(m0);
	m0 = NULL;

	/* the streamed round trip of `true` */
	exec_init(x, name_main, a4, NULL, 0);
	for (i = 0; i < 10; i++) {
		t0 = now_ms();
		rid = next_rid++;
		send_msg(IMSG_INCUS_EXEC, rid, x, sizeof(*x));
		wait_reply(rid, &r, TIMEOUT_MS);
		tt[i] = now_ms() - t0;
		if (!ok_reply(&r) || exit_status(&r) != 0)
			check(0, "EXEC stream true: %s", r.done.err);
		reply_clear(&r);	/* closes the fds it carried */
	}
	note("EXEC streamed `true` round trip through jb-incus: median %.1f "
	    "ms of 10", median(tt, 10));
 out:
	if (m0 != NULL)
		msg_free(m0);
	if (m2 != NULL)
		msg_free(m2);
	free(big);
	free(back);
	free(x);
}

static void
t_snapshots(void)
{
	struct reply		 r;
	struct msg		*m;
	struct jb_snapshot	*s;
	double			 t0;
	char			 state[64];

	action(name_main, INCUS_SNAP_CREATE, 0, "s1", &r);
	check(ok_reply(&r), "SNAP_CREATE %s/s1: %s", name_main, r.done.err);
	reply_clear(&r);
	action(name_main, INCUS_SNAP_LIST, 0, NULL, &r);
	m = first(&r, IMSG_INCUS_SNAPSHOT);
	s = m ? (struct jb_snapshot *)m->data : NULL;
	check(ok_reply(&r) && count(&r, IMSG_INCUS_SNAPSHOT) == 1 && s &&
	    streq(s->instance, name_main) && streq(s->name, "s1") &&
	    s->created > time(NULL) - 120 && s->stateful == 0,
	    "SNAP_LIST: %d snapshot(s), %s/%s, %llds old, stateful %d",
	    count(&r, IMSG_INCUS_SNAPSHOT), s ? s->instance : "-",
	    s ? s->name : "-", s ? (long long)(time(NULL) - s->created) : 0LL,
	    s ? s->stateful : -1);
	reply_clear(&r);
	action(name_main, INCUS_SNAP_CREATE, 0, "a/b", &r);
	check(refused(&r, "bad snapshot name"), "SNAP_CREATE a/b: %s",
	    r.done.err);
	reply_clear(&r);
	action(name_main, INCUS_SNAP_CREATE, 0, "", &r);
	check(refused(&r, "no snapshot name"), "SNAP_CREATE without a "
	    "name: %s", r.done.err);
	reply_clear(&r);
	t0 = now_ms();
	action(name_main, INCUS_SNAP_RESTORE, 0, "s1", &r);
	check(ok_reply(&r), "SNAP_RESTORE s1 of the running container: %s "
	    "(%.0f ms)", r.done.ok ? "ok" : r.done.err, now_ms() - t0);
	reply_clear(&r);
	/* a restore leaves it stopped: jailbeed starts it through its guard */
	state_of(name_main, state, sizeof(state));
	check(strncmp(state, "STOPPED,", 8) == 0, "SNAP_RESTORE leaves "
	    "%s stopped: incus says %s", name_main, state);
	action(name_main, INCUS_START, 0, NULL, &r);
	check(ok_reply(&r), "START after the restore: %s", r.done.ok ? "ok" :
	    r.done.err);
	reply_clear(&r);
	action(name_main, INCUS_SNAP_DELETE, 0, "s1", &r);
	check(ok_reply(&r), "SNAP_DELETE s1: %s", r.done.err);
	reply_clear(&r);
	action(name_main, INCUS_SNAP_DELETE, 0, "nope", &r);
	check(r.got && !r.done.ok && strncmp(r.done.err,
	    "snapshot delete ", 16) == 0, "SNAP_DELETE of a missing one: %s",
	    r.done.err);
	reply_clear(&r);
	action(name_main, INCUS_SNAP_LIST, 0, NULL, &r);
	check(ok_reply(&r) && count(&r, IMSG_INCUS_SNAPSHOT) == 0,
	    "SNAP_LIST: none left");
	reply_clear(&r);
}

static void
t_not_ours(void)
{
	struct reply	 r;
	const uint32_t	 verbs[] = { INCUS_STOP, INCUS_DELETE, INCUS_RESTART,
			    INCUS_SNAP_CREATE, INCUS_SNAP_LIST };
	const char	*vn[] = { "STOP --force", "DELETE --force", "RESTART",
			    "SNAP_CREATE", "SNAP_LIST" };
	char		 state[64];
	size_t		 i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		action(name_other, verbs[i], 1, "x1", &r);
		check(refused(&r, "is not a JailBee container") &&
		    count(&r, IMSG_INCUS_SNAPSHOT) == 0 &&
		    count(&r, IMSG_PROGRESS) == 0, "%s on %s: %s", vn[i],
		    name_other, r.done.err);
		reply_clear(&r);
	}
	state_of(name_other, state, sizeof(state));
	check(streq(state, "RUNNING,0"), "%s untouched: %s (state, "
	    "snapshots)", name_other, state);
	action("jbt-ops-nonexistent", INCUS_START, 0, NULL, &r);
	check(refused(&r, "no such container jbt-ops-nonexistent"),
	    "START of a missing container: %s", r.done.err);
	reply_clear(&r);
}

static void
t_lifecycle(void)
{
	struct reply	r;
	char		state[64];
	double		t0;

	t0 = now_ms();
	action(name_main, INCUS_STOP, 0, NULL, &r);
	state_of(name_main, state, sizeof(state));
	check(ok_reply(&r) && strncmp(state, "STOPPED,", 8) == 0,
	    "STOP (clean): %s, incus says %s (%.0f ms)",
	    r.done.ok ? "ok" : r.done.err, state, now_ms() - t0);
	reply_clear(&r);
	action(name_main, INCUS_STOP, 0, NULL, &r);
	check(refused(&r, "is not running"), "STOP when stopped: %s",
	    r.done.err);
	reply_clear(&r);
	t0 = now_ms();
	action(name_main, INCUS_START, 0, NULL, &r);
	state_of(name_main, state, sizeof(state));
	check(ok_reply(&r) && strncmp(state, "RUNNING,", 8) == 0,
	    "START: %s, incus says %s (%.0f ms)",
	    r.done.ok ? "ok" : r.done.err, state, now_ms() - t0);
	reply_clear(&r);
	action(name_main, INCUS_START, 0, NULL, &r);
	check(refused(&r, "is already running"), "START when running: %s",
	    r.done.err);
	reply_clear(&r);
	t0 = now_ms();
	action(name_main, INCUS_RESTART, 1, NULL, &r);
	state_of(name_main, state, sizeof(state));
	check(ok_reply(&r) && strncmp(state, "RUNNING,", 8) == 0,
	    "RESTART --force: %s (%.0f ms)", r.done.ok ? "ok" : r.done.err,
	    now_ms() - t0);
	reply_clear(&r);
	action(name_main, INCUS_DELETE, 0, NULL, &r);
	check(refused(&r, "is running: stop it first or use --force") &&
	    exists(name_main), "DELETE of a running one: %s", r.done.err);
	reply_clear(&r);
	t0 = now_ms();
	action(name_main, INCUS_DELETE, 1, NULL, &r);
	check(ok_reply(&r) && !exists(name_main), "DELETE --force: %s, "
	    "gone (%.0f ms)", r.done.ok ? "ok" : r.done.err, now_ms() - t0);
	reply_clear(&r);
}

static void
t_mount_rw(void)
{
	struct jb_incus_create	 c;
	struct jb_incus_exec	*x;
	struct reply		 r;
	struct json_object	*o;
	struct stat		 st;
	const char		*touch[] = { "touch",
				    "/home/dev/jbt/made-inside", NULL };
	const char		*ro[] = { "touch", "/mnt/host-source/nope",
				    NULL };
	char			 path[PATH_MAX + 32];

	create_init(&c, name_rw, "");
	c.mount_rw = 1;
	create_free_addr(&c, &r, NULL);
	check(ok_reply(&r), "CREATE --mount %s: %s", name_rw,
	    r.done.ok ? "ok" : r.done.err);
	reply_clear(&r);
	if ((o = query_instance(name_rw)) != NULL) {
		check(streq(jpath(o, "config", "user.jailbee.mode", NULL),
		    "mount") && streq(jpath(o, "devices", "host-repo-rw",
		    "source"), repo) && streq(jpath(o, "devices",
		    "host-repo-rw", "path"), "/home/dev/jbt") &&
		    streq(jpath(o, "devices", "host-repo-rw", "readonly"),
		    "false"), "host-repo-rw: %s read-write at /home/dev/jbt",
		    repo);
		json_object_put(o);
	}
	x = malloc(sizeof(*x));
	exec_init(x, name_rw, touch, NULL, 1);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	snprintf(path, sizeof(path), "%s/made-inside", repo);
	check(ok_reply(&r) && exit_status(&r) == 0 && stat(path, &st) == 0 &&
	    st.st_uid == 1000 && st.st_gid == 1000, "dev writes the work "
	    "tree; the host sees the file owned by 1000:1000");
	reply_clear(&r);
	exec_init(x, name_rw, ro, NULL, 1);
	request(IMSG_INCUS_EXEC, x, sizeof(*x), &r);
	check(ok_reply(&r) && exit_status(&r) != 0, "/mnt/host-source is "
	    "read-only (touch exits %d)", exit_status(&r));
	reply_clear(&r);
	free(x);
	action(name_rw, INCUS_DELETE, 1, NULL, &r);
	check(ok_reply(&r) && !exists(name_rw), "DELETE --force %s",
	    name_rw);
	reply_clear(&r);
}

/*
 * Two CREATEs at once with one address: Incus knows of neither yet, so
 * jb-incus must hold the address for the first.  Meanwhile a third,
 * for the first's name, is refused as well.
 */
static void
t_concurrent(void)
{
	struct jb_incus_create	 c1, c2, c3;
	struct reply		 r1, r2, r3;
	uint32_t		 rid1, rid2, rid3;
	char			 want[192];
	int			 tries;

	for (tries = 0; tries < 20; tries++) {
		create_init(&c1, name_c1, "");
		addr_of(next_host, c1.ipv4, sizeof(c1.ipv4));
		next_host = next_host >= 249 ? 200 : next_host + 1;
		create_init(&c2, name_c2, c1.ipv4);
		create_init(&c3, name_c1, "");
		addr_of(next_host, c3.ipv4, sizeof(c3.ipv4));
		rid1 = next_rid++;
		rid2 = next_rid++;
		rid3 = next_rid++;
		send_msg(IMSG_INCUS_CREATE, rid1, &c1, sizeof(c1));
		send_msg(IMSG_INCUS_CREATE, rid2, &c2, sizeof(c2));
		send_msg(IMSG_INCUS_CREATE, rid3, &c3, sizeof(c3));
		wait_reply(rid2, &r2, TIMEOUT_MS);
		wait_reply(rid3, &r3, TIMEOUT_MS);
		wait_reply(rid1, &r1, TIMEOUT_MS);
		/* someone else holds the address: take another */
		if (r1.got && !r1.done.ok && (strstr(r1.done.err,
		    "is in use on") || strstr(r1.done.err, "already given"))) {
			reply_clear(&r1);
			reply_clear(&r2);
			reply_clear(&r3);
			continue;
		}
		break;
	}
	check(ok_reply(&r1) && exists(name_c1), "CREATE %s at %s: %s",
	    name_c1, c1.ipv4, r1.done.ok ? "ok" : r1.done.err);
	snprintf(want, sizeof(want), "address %s is being given to %s",
	    c1.ipv4, name_c1);
	check(refused(&r2, want) && !exists(name_c2), "CREATE %s at the same "
	    "time with the same address: %s", name_c2, r2.done.err);
	snprintf(want, sizeof(want), "%s is being created already", name_c1);
	check(refused(&r3, want), "CREATE %s twice at the same time: %s",
	    name_c1, r3.done.err);
	reply_clear(&r1);
	reply_clear(&r2);
	reply_clear(&r3);
	action(name_c1, INCUS_DELETE, 1, NULL, &r1);
	check(ok_reply(&r1) && !exists(name_c1), "DELETE --force %s",
	    name_c1);
	reply_clear(&r1);
}

static void
t_start_fails(void)
{
	struct jb_incus_create	c;
	struct reply		r;
	char			want[128], alias[64];

	/*
	 * An image with an empty root file system: Incus creates from it,
	 * but the start finds no init to run.
	 */
	snprintf(alias, sizeof(alias), "jbt-ops-noinit-%d", (int)getpid());
	if (sh(NULL, 0, "d=$(mktemp -d) && mkdir $d/rootfs && printf "
	    "'architecture: %%s\\ncreation_date: %%s\\nproperties:\\n"
	    "  description: empty\\n' $(uname -m) $(date +%%s) > "
	    "$d/metadata.yaml && tar -C $d -czf $d.tar.gz metadata.yaml "
	    "rootfs && incus image import $d.tar.gz --alias %s >/dev/null; "
	    "rv=$?; rm -rf $d $d.tar.gz; exit $rv", alias) != 0) {
		check(0, "import an image with an empty root file system");
		return;
	}
	create_init(&c, name_bad, "");
	strlcpy(c.image, alias, sizeof(c.image));
	create_free_addr(&c, &r, NULL);
	snprintf(want, sizeof(want), "starting %s", name_bad);
	check(r.got && !r.done.ok && has_progress(&r, want) &&
	    strstr(r.done.err, "start ") != NULL &&
	    strstr(r.done.err, "the container was deleted") != NULL &&
	    !exists(name_bad), "CREATE whose start fails leaves nothing: %s",
	    r.done.err);
	reply_clear(&r);
	sh(NULL, 0, "incus image delete %s >/dev/null 2>&1", alias);
	create_init(&c, name_bad, "");
	snprintf(c.source, sizeof(c.source), "/nonexistent-jbt-ops/%d",
	    (int)getpid());
	create_free_addr(&c, &r, NULL);
	check(refused(&r, "/nonexistent-jbt-ops: No such file or directory") &&
	    count(&r, IMSG_PROGRESS) == 0 && strncmp(r.done.err, "create ",
	    7) == 0 && !exists(name_bad),
	    "CREATE from a missing source, refused before Incus is asked: %s",
	    r.done.err);
	reply_clear(&r);
}

/* malformed messages: each must end jb-incus */
static void
t_protocol(void)
{
	const char		*what[] = { "NETINFO with a payload",
				    "an unterminated LIST name",
				    "EXEC with an unterminated argv",
				    "EXEC with bytes after its 1 string",
				    "a short LIST", "EXEC with nargs 7000",
				    "ACTION with verb 99",
				    "EXEC both interactive and captured",
				    "a jb-mountd message",
				    "CREATE with an unterminated env",
				    "FOLLOW with a payload", NULL };
	struct jb_incus_target	 t;
	struct jb_incus_action	 a;
	struct jb_incus_exec	*x;
	struct jb_incus_create	 c;
	struct jb_repo_req	 rr;
	struct msg		*m;
	const char		*two[] = { "a", "b", NULL };
	char			 pad[4] = { 0 };
	double			 end;
	int			 st, i, answered, eof;

	x = malloc(sizeof(*x));
	for (i = 0; what[i] != NULL; i++) {
		if (spawn() == -1) {
			check(0, "spawn %s", jbincus);
			break;
		}
		exec_init(x, "jbt-ops-proto", two, NULL, 1);
		switch (i) {
		case 0:
			send_msg(IMSG_INCUS_NETINFO, 1, pad, sizeof(pad));
			break;
		case 1:
			memset(&t, 'a', sizeof(t));
			send_msg(IMSG_INCUS_LIST, 1, &t, sizeof(t));
			break;
		case 2:
			memset(x->argv, 'x', sizeof(x->argv));
			x->nargs = 1;
			send_msg(IMSG_INCUS_EXEC, 1, x, sizeof(*x));
			break;
		case 3:
			x->nargs = 1;
			send_msg(IMSG_INCUS_EXEC, 1, x, sizeof(*x));
			break;
		case 4:
			memset(&t, 0, sizeof(t));
			send_msg(IMSG_INCUS_LIST, 1, &t, sizeof(t) - 1);
			break;
		case 5:
			x->nargs = 7000;
			send_msg(IMSG_INCUS_EXEC, 1, x, sizeof(*x));
			break;
		case 6:
			memset(&a, 0, sizeof(a));
			strlcpy(a.name, "jbt-ops-proto", sizeof(a.name));
			a.verb = 99;
			send_msg(IMSG_INCUS_ACTION, 1, &a, sizeof(a));
			break;
		case 7:
			x->interactive = x->capture = 1;
			send_msg(IMSG_INCUS_EXEC, 1, x, sizeof(*x));
			break;
		case 8:
			memset(&rr, 0, sizeof(rr));
			send_msg(IMSG_MOUNTD_REPO, 1, &rr, sizeof(rr));
			break;
		case 9:
			create_init(&c, "jbt-ops-proto", "10.0.0.2");
			memset(c.env, 'x', sizeof(c.env));
			c.nenv = 1;
			send_msg(IMSG_INCUS_CREATE, 1, &c, sizeof(c));
			break;
		case 10:
			send_msg(IMSG_INCUS_FOLLOW, 1, pad, sizeof(pad));
			break;
		}
		/* no answer: the channel closes, the exit is a failure */
		end = now_ms() + 10000;
		eof = 0;
		while (!eof && now_ms() < end)
			eof = pump((int)(end - now_ms())) == -1;
		answered = 0;
		TAILQ_FOREACH(m, &inbox, entry)
			answered += m->type != IMSG_CHILD_READY;
		st = reap();
		if (!eof)
			st = -1;
		check(st != -1 && !answered && WIFEXITED(st) &&
		    WEXITSTATUS(st) != 0, "jb-incus dies on %s (exit %d)",
		    what[i], st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		while ((m = TAILQ_FIRST(&inbox)) != NULL) {
			TAILQ_REMOVE(&inbox, m, entry);
			msg_free(m);
		}
	}
	free(x);
}

/* what jb-incus sent unasked (peerid 0) besides READY; freed */
static int
unasked(const char *name, const char *action)
{
	struct jb_incus_event	 e;
	struct msg		*m, *next;
	int			 n = 0;

	for (m = TAILQ_FIRST(&inbox); m != NULL; m = next) {
		next = TAILQ_NEXT(m, entry);
		if (m->rid != 0 || m->type == IMSG_CHILD_READY)
			continue;
		TAILQ_REMOVE(&inbox, m, entry);
		if (m->type == IMSG_INCUS_EVENT && m->len == sizeof(e)) {
			memcpy(&e, m->data, sizeof(e));
			e.name[sizeof(e.name) - 1] = '\0';
			e.action[sizeof(e.action) - 1] = '\0';
			if (action == NULL || (strcmp(e.name, name) == 0 &&
			    strcmp(e.action, action) == 0))
				n++;
		} else if (action == NULL)
			n++;
		msg_free(m);
	}
	return n;
}

/*
 * Incus's event stream: nothing comes before the parent asks (FOLLOW),
 * so a child that is only asked questions answers only those; after
 * FOLLOW's DONE, an instance made with the incus command arrives as an
 * EVENT.
 */
static void
t_events(void)
{
	struct reply	 r;
	double		 end;
	int		 n = 0;

	if (spawn() == -1) {
		check(0, "spawn %s", jbincus);
		return;
	}
	pump(1000);
	check(sh(NULL, 0, "incus create --empty %s >/dev/null 2>&1 && "
	    "incus delete %s >/dev/null 2>&1", name_ev, name_ev) == 0,
	    "%s made and deleted with the incus command", name_ev);
	end = now_ms() + 3000;
	while (now_ms() < end && pump((int)(end - now_ms())) != -1)
		;
	n = unasked(NULL, NULL);
	check(n == 0, "before FOLLOW, jb-incus sends nothing unasked while "
	    "an instance comes and goes (%d message(s))", n);

	request(IMSG_INCUS_FOLLOW, NULL, 0, &r);
	check(r.got && r.done.ok, "FOLLOW: DONE once the stream is open "
	    "(%s)", r.done.err);
	reply_clear(&r);
	check(sh(NULL, 0, "incus create --empty %s >/dev/null 2>&1 && "
	    "incus delete %s >/dev/null 2>&1", name_ev, name_ev) == 0,
	    "%s made and deleted again", name_ev);
	n = 0;
	end = now_ms() + 20000;
	while (n == 0 && now_ms() < end) {
		if (pump((int)(end - now_ms())) == -1)
			break;
		n = unasked(name_ev, "instance-created");
	}
	check(n == 1, "after FOLLOW, EVENT instance-created %s arrives "
	    "unasked", name_ev);
	request(IMSG_INCUS_FOLLOW, NULL, 0, &r);
	check(r.got && r.done.ok, "a second FOLLOW: DONE, the stream is "
	    "open (%s)", r.done.err);
	reply_clear(&r);
	reap();
}

static int
other_running(void)
{
	char	ip[128];
	int	i;

	if (sh(NULL, 0, "incus launch %s %s >/dev/null 2>&1", IMAGE,
	    name_other) != 0)
		return -1;
	/* wait for its DHCP lease: CREATE must refuse that address */
	for (i = 0; i < 100; i++) {
		sh(ip, sizeof(ip), "incus query /1.0/instances/%s/state | "
		    "jq -r '.network.eth0.addresses[] | select(.family == "
		    "\"inet\") | .address'", name_other);
		if (ip[0] != '\0')
			break;
		usleep(100000);
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct jb_incus_create	 c;
	struct passwd		*pw;
	struct msg		*m;
	char			 ip[128], *sp;
	int			 ch, st, tries;

	while ((ch = getopt(argc, argv, "b:e:j:o:")) != -1) {
		switch (ch) {
		case 'o':
			owner = optarg;
			break;
		case 'b':
			bridge = optarg;
			break;
		case 'e':
			endpoint = optarg;
			break;
		case 'j':
			jbincus = optarg;
			break;
		default:
			fprintf(stderr, "usage: ops_driver [-b bridge] "
			    "[-e endpoint] [-j jb-incus] [-o owner]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	snprintf(name_main, sizeof(name_main), "jbt-ops-%d", (int)getpid());
	snprintf(name_rw, sizeof(name_rw), "jbt-ops-rw-%d", (int)getpid());
	snprintf(name_bad, sizeof(name_bad), "jbt-ops-bad-%d", (int)getpid());
	snprintf(name_other, sizeof(name_other), "jbt-ops-other-%d",
	    (int)getpid());
	snprintf(name_used, sizeof(name_used), "jbt-ops-no-%d", (int)getpid());
	snprintf(name_c1, sizeof(name_c1), "jbt-ops-c1-%d", (int)getpid());
	snprintf(name_c2, sizeof(name_c2), "jbt-ops-c2-%d", (int)getpid());
	snprintf(name_ev, sizeof(name_ev), "jbt-ops-ev-%d", (int)getpid());
	next_host = 200 + getpid() % 50;

	/* the dev user of the image is 1000: the owner must be it */
	if (owner == NULL && (pw = getpwuid(1000)) != NULL)
		owner = strdup(pw->pw_name);
	if (owner == NULL || (pw = getpwnam(owner)) == NULL ||
	    pw->pw_uid != 1000 || pw->pw_gid != 1000) {
		check(0, "setup: an owner with uid and gid 1000 (-o)");
		goto done;
	}
	if (make_dirs() == -1) {
		check(0, "setup: state, socket and junk directories");
		goto done;
	}
	if (ensure_image() == -1 || make_repo() == -1) {
		check(0, "setup: image %s and a git repo", IMAGE);
		goto done;
	}
	check(other_running() == 0, "%s launched with the incus CLI, without "
	    "user.jailbee keys", name_other);
	if (spawn() == -1) {
		check(0, "spawn %s", jbincus);
		goto done;
	}
	m = wait_msg(0, IMSG_CHILD_READY, 20000);
	check(m != NULL, "jb-incus is READY");
	if (m == NULL)
		goto done;
	msg_free(m);

	t_netinfo();
	if (net.prefixlen == 0 || net.prefixlen > 24) {
		check(0, "bridge %s: a /24 or larger is needed here", bridge);
		goto done;
	}

	/* the other container's DHCP lease (up to 15 s after its boot) */
	for (tries = 0; tries < 30; tries++) {
		ip[0] = '\0';
		sh(ip, sizeof(ip), "incus query /1.0/instances/%s/state | "
		    "jq -r '.network.eth0.addresses[] | select(.family == "
		    "\"inet\") | .address'", name_other);
		if ((sp = strchr(ip, '\n')) != NULL)
			*sp = '\0';
		if (ip[0] != '\0')
			break;
		usleep(500000);
	}
	create_init(&c, name_used, ip);
	snprintf(ip, sizeof(ip), "is in use on %s by %s", bridge, name_other);
	if (c.ipv4[0] != '\0')
		refuse_create("with the address leased to another", &c, ip);
	else
		check(0, "%s got no DHCP lease", name_other);

	t_create_refusals();
	t_create();
	t_bounds();
	t_device_race();
	t_list();
	t_exec_capture();
	t_exec_stream();
	t_snapshots();
	t_not_ours();
	t_lifecycle();
	t_mount_rw();
	t_concurrent();
	t_start_fails();

	st = reap();
	check(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "jb-incus exits 0 when the channel closes (%d)",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	t_protocol();
	t_events();
 done:
	if (jpid != -1)
		reap();
	cleanup();
	printf("# %d failure(s)\n", failures);
	return failures ? 1 : 0;
}
