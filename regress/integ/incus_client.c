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
 * incus_client: drives jb-incus's HTTP and Incus client (http_client.c, http_parse.c, incus.c)
 * through a scenario against the real incusd: server info, a container
 * created and started from the test image, list by user.jailbee.* key,
 * exec with recorded output, file push and pull, config patch,
 * snapshots, an events websocket upgrade, image import, stop, delete,
 * and error reporting.  It prints one line per check and exits non-zero
 * if any failed.  The container is removed on every path.
 *
 * usage: incus_client [-q] [-e endpoint] [-m mkfixture]
 *		      [-c cert -k key -s server.crt]
 *
 * -q runs only the transport checks (server info, keep-alive, the
 * connection cap, errors), for an HTTPS endpoint on a bare incusd.
 *
 * The driver itself may wait: it runs the loop until each call's
 * callback has fired, which keeps the scenario readable while every call
 * under test stays asynchronous.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <json.h>

#include "driver.h"
#include "http.h"
#include "incus.h"

extern char	**environ;

static struct event_base	*base;
static struct incus		*inc;
static char			 name[64];
static int			 created;

struct res {
	int			 done;
	struct json_object	*md;
	char			*err;
	/* exec */
	int			 ran;
	int			 status;
	char			*out;
	size_t			 outlen;
	char			*errout;
	size_t			 errlen;
	/* pull */
	struct incus_file	 file;
	char			*data;
	/* raw http */
	int			 http_status;
	struct bufferevent	*bev;
};

static void
res_clear(struct res *r)
{
	json_object_put(r->md);
	free(r->err);
	free(r->out);
	free(r->errout);
	free(r->data);
	if (r->bev != NULL)
		bufferevent_free(r->bev);
	memset(r, 0, sizeof(*r));
}

static void
json_done(void *arg, struct json_object *md, const char *err)
{
	struct res	*r = arg;

	r->done = 1;
	r->md = md ? json_object_get(md) : NULL;
	r->err = err ? strdup(err) : NULL;
}

static void
exec_done(void *arg, const struct incus_exec_result *xr, const char *err)
{
	struct res	*r = arg;

	r->done = 1;
	r->err = err ? strdup(err) : NULL;
	if (xr != NULL) {
		r->ran = 1;
		r->status = xr->status;
		r->out = strndup(xr->out, xr->outlen);
		r->outlen = xr->outlen;
		r->errout = strndup(xr->err, xr->errlen);
		r->errlen = xr->errlen;
	}
}

static void
pull_done(void *arg, const struct incus_file *f, const char *err)
{
	struct res	*r = arg;

	r->done = 1;
	r->err = err ? strdup(err) : NULL;
	if (f != NULL) {
		r->file = *f;
		r->file.type = strcmp(f->type, "file") == 0 ? "file" :
		    strcmp(f->type, "directory") == 0 ? "directory" : "other";
		if ((r->data = malloc(f->len + 1)) != NULL) {
			memcpy(r->data, f->data, f->len);
			r->data[f->len] = '\0';
		}
		r->file.data = r->data;
	}
}

static void
raw_done(struct http_response *resp, const char *err, void *arg)
{
	struct res	*r = arg;

	r->done = 1;
	r->err = err ? strdup(err) : NULL;
	if (resp != NULL) {
		r->http_status = resp->status;
		r->bev = http_response_take_bev(resp);
	}
}

/* Run the loop until the callback has fired; a call never answers inline. */
static int
run(struct res *r, struct incus_call *c)
{
	if (c == NULL) {
		r->err = strdup("call returned NULL");
		return -1;
	}
	if (r->done) {
		check(0, "callback ran inside the call");
		return -1;
	}
	while (!r->done)
		if (event_base_loop(base, EVLOOP_ONCE) == -1)
			return -1;
	return r->err ? -1 : 0;
}

/* For printing: newlines and control bytes as C escapes, one line each. */
static const char *
esc(const char *s)
{
	static char	 ring[4][512];
	static int	 k;
	char		*o = ring[k = (k + 1) % 4], *e = o + sizeof(ring[0]) - 5;

	if (s == NULL)
		return "(null)";
	for (; *s != '\0' && o < e; s++) {
		if (*s == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if ((unsigned char)*s < 0x20)
			o += snprintf(o, 5, "\\x%02x", (unsigned char)*s);
		else
			*o++ = *s;
	}
	*o = '\0';
	return ring[k];
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run a host command with output to /dev/null; returns its exit status. */
static int
spawn(char *const argv[], int quiet)
{
	posix_spawn_file_actions_t	fa;
	pid_t				pid;
	int				st;

	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
		    0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
		    0);
	}
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
wait_for_incusd(void)
{
	struct res	r;
	int		i;

	for (i = 0; i < 60; i++) {
		memset(&r, 0, sizeof(r));
		if (run(&r, incus_server_get(inc, json_done, &r)) == 0) {
			res_clear(&r);
			return 0;
		}
		if (i == 0)
			printf("# waiting for incusd: %s\n", r.err);
		res_clear(&r);
		sleep(20);
	}
	return -1;
}

static void
server_info(void)
{
	struct res		 r;
	struct json_object	*env, *ext, *auth;
	const char		*ver = NULL, *trust = NULL;
	double			 t[20], t0;
	int			 i;

	memset(&r, 0, sizeof(r));
	run(&r, incus_server_get(inc, json_done, &r));
	if (json_object_object_get_ex(r.md, "environment", &env) &&
	    json_object_object_get_ex(env, "server_version", &ext))
		ver = json_object_get_string(ext);
	if (json_object_object_get_ex(r.md, "auth", &auth))
		trust = json_object_get_string(auth);
	json_object_object_get_ex(r.md, "api_extensions", &ext);
	check(r.err == NULL && ver != NULL && trust != NULL &&
	    strcmp(trust, "trusted") == 0, "GET /1.0: Incus %s, %zu API "
	    "extensions, auth %s%s%s", ver ? ver : "?", ext ?
	    json_object_array_length(ext) : 0, trust ? trust : "?",
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
	run(&r, incus_instances_list(inc, NULL, NULL, json_done, &r));
	check(r.err == NULL && r.md != NULL, "list all instances: %zu%s%s",
	    r.md ? json_object_array_length(r.md) : 0, r.err ? ": " : "",
	    r.err ? r.err : "");
	res_clear(&r);

	/* keep-alive: sequential requests share one connection */
	for (i = 0; i < 20; i++) {
		memset(&r, 0, sizeof(r));
		t0 = now_ms();
		run(&r, incus_server_get(inc, json_done, &r));
		t[i] = now_ms() - t0;
		if (r.err != NULL)
			break;
		res_clear(&r);
	}
	check(i == 20 && http_client_nconns(incus_http(inc)) == 1,
	    "20 sequential GET /1.0 on %d connection(s), median %.2f ms",
	    http_client_nconns(incus_http(inc)), median(t, i ? i : 1));
	res_clear(&r);
}

static void
concurrency(void)
{
	struct res	r[24];
	int		i, ok = 1, left;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 24; i++)
		if (incus_server_get(inc, json_done, &r[i]) == NULL)
			ok = 0;
	do {
		event_base_loop(base, EVLOOP_ONCE);
		for (left = 0, i = 0; i < 24; i++)
			left += !r[i].done;
	} while (left > 0);
	for (i = 0; i < 24; i++)
		if (r[i].err != NULL || r[i].md == NULL)
			ok = 0;
	check(ok && http_client_nconns(incus_http(inc)) <= 8,
	    "24 concurrent GET /1.0 queued over %d connections (cap 8)",
	    http_client_nconns(incus_http(inc)));
	for (i = 0; i < 24; i++)
		res_clear(&r[i]);
}

/* the base image run-tests built (JB_IMAGE) */
static const char	*image = "";

static int
ensure_image(char *mkfixture, const char *alias, int keep)
{
	struct res	 r;
	char		 tmp[] = "/tmp/jbt-img.XXXXXX", *buf = NULL;
	char		*argv[3];
	FILE		*fp;
	long		 len;
	int		 fd, rv = -1;
	double		 t0;

	memset(&r, 0, sizeof(r));
	run(&r, incus_image_alias_get(inc, alias, json_done, &r));
	if (r.err == NULL && r.md != NULL && keep) {
		check(1, "image alias %s exists (%.12s)", alias,
		    json_object_get_string(json_object_object_get(r.md,
		    "target")));
		res_clear(&r);
		return 0;
	}
	check(r.err == NULL && r.md == NULL, "image alias %s absent: %s",
	    alias, r.err ? r.err : "lookup gives (NULL, NULL)");
	res_clear(&r);

	if ((fd = mkstemp(tmp)) == -1)
		return -1;
	close(fd);
	argv[0] = mkfixture;
	argv[1] = tmp;
	argv[2] = NULL;
	if (spawn(argv, 1) != 0) {
		check(0, "%s %s", mkfixture, tmp);
		goto out;
	}
	if ((fp = fopen(tmp, "r")) == NULL || fseek(fp, 0, SEEK_END) == -1 ||
	    (len = ftell(fp)) <= 0 || fseek(fp, 0, SEEK_SET) == -1 ||
	    (buf = malloc(len)) == NULL ||
	    fread(buf, 1, len, fp) != (size_t)len) {
		check(0, "reading %s", tmp);
		if (fp != NULL)
			fclose(fp);
		goto out;
	}
	fclose(fp);
	t0 = now_ms();
	run(&r, incus_image_import(inc, buf, len, alias, json_done, &r));
	check(r.err == NULL, "image import %ld bytes as %s: %s (%.0f ms)",
	    len, alias, r.err ? r.err : json_object_get_string(
	    json_object_object_get(r.md, "fingerprint")), now_ms() - t0);
	rv = r.err ? -1 : 0;
	res_clear(&r);
out:
	unlink(tmp);
	free(buf);
	return rv;
}

static void
image_roundtrip(char *mkfixture)
{
	struct res	 r;
	char		 alias[64], fp[80] = "";
	size_t		 i, n;
	int		 found = 0;

	/* a small image of its own, imported and deleted again */
	snprintf(alias, sizeof(alias), "jbt-http-img-%d", (int)getpid());
	setenv("SOURCE_DATE_EPOCH", "1000000000", 1);
	if (ensure_image(mkfixture, alias, 0) == -1)
		return;
	unsetenv("SOURCE_DATE_EPOCH");
	memset(&r, 0, sizeof(r));
	run(&r, incus_image_alias_get(inc, alias, json_done, &r));
	if (r.md != NULL)
		snprintf(fp, sizeof(fp), "%s", json_object_get_string(
		    json_object_object_get(r.md, "target")));
	check(r.err == NULL && *fp != '\0', "alias %s -> %.12s", alias, fp);
	res_clear(&r);

	run(&r, incus_images_list(inc, json_done, &r));
	n = r.md ? json_object_array_length(r.md) : 0;
	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(json_object_object_get(
		    json_object_array_get_idx(r.md, i), "fingerprint")),
		    fp) == 0)
			found = 1;
	check(r.err == NULL && found, "image list (%zu images) holds it", n);
	res_clear(&r);

	if (*fp == '\0')
		return;
	run(&r, incus_image_delete(inc, fp, json_done, &r));
	check(r.err == NULL, "image delete: %s", r.err ? r.err : "done");
	res_clear(&r);
	run(&r, incus_image_alias_get(inc, alias, json_done, &r));
	check(r.err == NULL && r.md == NULL, "alias gone with the image");
	res_clear(&r);
}

/* our container in a list's answer, and the answer's length */
static int
res_has(const struct res *r, size_t *count)
{
	size_t	i, n;
	int	found = 0;

	n = r->md != NULL ? json_object_array_length(r->md) : 0;
	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(json_object_object_get(
		    json_object_array_get_idx(r->md, i), "name")), name) == 0)
			found = 1;
	*count = n;
	return found;
}

static void
loop_until(struct res *v, size_t n)
{
	size_t	i, left;

	do {
		event_base_loop(base, EVLOOP_ONCE);
		for (left = 0, i = 0; i < n; i++)
			left += !v[i].done;
	} while (left > 0);
}

/* Lists by key (and value): does it hold our container? */
static int
list_has(const char *key, const char *value, size_t *count)
{
	struct res	 r;
	size_t		 n;
	int		 found;

	memset(&r, 0, sizeof(r));
	if (run(&r, incus_instances_list(inc, key, value, json_done,
	    &r)) == -1) {
		check(0, "list %s=%s: %s", key, value ? value : "*", r.err);
		res_clear(&r);
		return -1;
	}
	found = res_has(&r, &n);
	if (count != NULL)
		*count = n;
	res_clear(&r);
	return found;
}

/*
 * Lists asked while another is on its way take its answer: one request
 * to Incus, each narrowed to its own key and value; and a list whose
 * asker cancels it still answers those that joined it.
 */
static void
list_shared(const char *pidval)
{
	struct res		 r[3];
	struct incus_call	*c;
	unsigned long		 n0, sent;
	size_t			 na, nb, nc;
	int			 fa, fb, fc;

	memset(r, 0, sizeof(r));
	n0 = http_client_nrequests(incus_http(inc));
	if (incus_instances_list(inc, NULL, NULL, json_done, &r[0]) == NULL ||
	    incus_instances_list(inc, "user.jailbee.test", pidval, json_done,
	    &r[1]) == NULL || incus_instances_list(inc, "user.jailbee.test",
	    "none-has-it", json_done, &r[2]) == NULL) {
		check(0, "three lists at once: a call returned NULL");
		return;
	}
	loop_until(r, 3);
	sent = http_client_nrequests(incus_http(inc)) - n0;
	fa = res_has(&r[0], &na);
	fb = res_has(&r[1], &nb);
	fc = res_has(&r[2], &nc);
	check(r[0].err == NULL && r[1].err == NULL && r[2].err == NULL &&
	    sent == 1 && fa && na >= 1 && fb && nb == 1 && !fc && nc == 0,
	    "three lists at once: %lu request(s) to Incus; all %zu, by "
	    "key=%s %zu, by a value none has %zu", sent, na, pidval, nb, nc);
	res_clear(&r[0]);
	res_clear(&r[1]);
	res_clear(&r[2]);

	n0 = http_client_nrequests(incus_http(inc));
	if ((c = incus_instances_list(inc, NULL, NULL, json_done,
	    &r[0])) == NULL || incus_instances_list(inc, "user.jailbee.test",
	    pidval, json_done, &r[1]) == NULL) {
		check(0, "a cancelled list: a call returned NULL");
		return;
	}
	incus_cancel(c);
	loop_until(&r[1], 1);
	sent = http_client_nrequests(incus_http(inc)) - n0;
	fb = res_has(&r[1], &nb);
	check(!r[0].done && r[1].err == NULL && fb && nb == 1 && sent == 1,
	    "a list whose asker cancelled it still answers the one that "
	    "joined it (%zu hit, %lu request(s))", nb, sent);
	res_clear(&r[0]);
	res_clear(&r[1]);
}

/* user.jailbee.branch of our container set to v by a PATCH, into r */
static int
set_branch(const char *v, struct res *r)
{
	struct json_object	*patch, *cfg;

	patch = json_object_new_object();
	cfg = json_object_new_object();
	json_object_object_add(cfg, "user.jailbee.branch",
	    json_object_new_string(v));
	json_object_object_add(patch, "config", cfg);
	memset(r, 0, sizeof(*r));
	run(r, incus_instance_patch(inc, name, patch, json_done, r));
	json_object_put(patch);
	return r->err == NULL ? 0 : -1;
}

/* config key as one GET of the instance answered it */
static int
recent_key(const char *path, const char *key, char *out, size_t len)
{
	struct json_object	*cfg, *v;
	struct res		 r;
	int			 rv = -1;

	memset(&r, 0, sizeof(r));
	out[0] = '\0';
	if (run(&r, incus_get_recent(inc, path, json_done, &r)) == 0 &&
	    json_object_object_get_ex(r.md, "config", &cfg) &&
	    json_object_object_get_ex(cfg, key, &v)) {
		(void)snprintf(out, len, "%s", json_object_get_string(v));
		rv = 0;
	}
	res_clear(&r);
	return rv;
}

/*
 * A GET asked again within 2 s is answered from memory; not after a
 * change has ended, nor once 2 s have passed.
 */
static void
recent_checks(void)
{
	struct res		 r;
	unsigned long		 n0, n1, n2, n3;
	char			 path[128], a[64], b[64], c[64], d[64];

	(void)snprintf(path, sizeof(path), "/1.0/instances/%s", name);
	n0 = http_client_nrequests(incus_http(inc));
	(void)recent_key(path, "user.jailbee.test", a, sizeof(a));
	(void)recent_key(path, "user.jailbee.test", b, sizeof(b));
	n1 = http_client_nrequests(incus_http(inc));
	check(n1 - n0 == 1 && a[0] != '\0' && strcmp(a, b) == 0,
	    "the same GET twice: %lu request(s), %s and %s", n1 - n0, a, b);

	(void)set_branch("recent/2", &r);
	res_clear(&r);
	n1 = http_client_nrequests(incus_http(inc));
	(void)recent_key(path, "user.jailbee.branch", c, sizeof(c));
	n2 = http_client_nrequests(incus_http(inc));
	check(n2 - n1 == 1 && strcmp(c, "recent/2") == 0,
	    "after a change ended it is asked again: %lu request(s), %s",
	    n2 - n1, c);
	sleep(2);
	(void)recent_key(path, "user.jailbee.branch", d, sizeof(d));
	n3 = http_client_nrequests(incus_http(inc));
	check(n3 - n2 == 1 && strcmp(d, "recent/2") == 0,
	    "2 s later it is asked again: %lu request(s)", n3 - n2);
}

static int
create_container(const char *pidval)
{
	struct json_object	*req, *src, *cfg;
	struct res		 r;
	double			 t0;
	int			 rv;

	req = json_object_new_object();
	src = json_object_new_object();
	cfg = json_object_new_object();
	json_object_object_add(req, "name", json_object_new_string(name));
	json_object_object_add(req, "type", json_object_new_string(
	    "container"));
	json_object_object_add(src, "type", json_object_new_string("image"));
	json_object_object_add(src, "alias", json_object_new_string(image));
	json_object_object_add(req, "source", src);
	json_object_object_add(cfg, "user.jailbee.test",
	    json_object_new_string(pidval));
	json_object_object_add(cfg, "user.jailbee.note",
	    json_object_new_string("Mixed Case, with spaces"));
	json_object_object_add(req, "config", cfg);
	json_object_object_add(req, "start", json_object_new_boolean(1));

	memset(&r, 0, sizeof(r));
	t0 = now_ms();
	created = 1;	/* from here on, clean up whatever happened */
	rv = run(&r, incus_instance_create(inc, req, json_done, &r));
	check(r.err == NULL, "create+start %s from %s: %s (%.0f ms)",
	    name, image, r.err ? r.err : "running", now_ms() - t0);
	res_clear(&r);

	/* the same again must fail with Incus's own words */
	run(&r, incus_instance_create(inc, req, json_done, &r));
	check(r.err != NULL && (strstr(r.err, "already exists") != NULL ||
	    strstr(r.err, "UNIQUE constraint failed") != NULL),
	    "duplicate create refused: %s", r.err ? r.err : "no error");
	res_clear(&r);
	json_object_put(req);
	return rv;
}

static void
do_exec(struct res *r, const char *const *argv, const char *const *env,
    const char *cwd, int uid, int gid)
{
	struct incus_exec	x;

	memset(&x, 0, sizeof(x));
	x.argv = argv;
	x.env = env;
	x.cwd = cwd;
	x.uid = uid;
	x.gid = gid;
	memset(r, 0, sizeof(*r));
	run(r, incus_exec(inc, name, &x, exec_done, r));
}

static void
exec_checks(void)
{
	const char *const	 a1[] = { "sh", "-c",
	    "echo out; echo err >&2; exit 3", NULL };
	const char *const	 a2[] = { "sh", "-c",
	    "id -u; id -g; pwd; echo \"$HOME\"; printf '%s' \"$X\"", NULL };
	const char *const	 env[] = { "HOME=/home/dev",
	    "X=a b=c \"q\"", NULL };
	const char *const	 a3[] = { "/no/such/binary", NULL };
	const char *const	 a4[] = { "sh", "-c",
	    "head -c 300000 /dev/zero | tr '\\0' x", NULL };
	const char *const	 a5[] = { "sh", "-c", "sleep 3; exit 7", NULL };
	struct res		 r;
	double			 t0;

	do_exec(&r, a1, NULL, NULL, -1, -1);
	check(r.err == NULL && r.ran && r.status == 3 &&
	    strcmp(r.out, "out\n") == 0 && strcmp(r.errout, "err\n") == 0,
	    "exec sh -c '...exit 3': status %d, stdout \"%s\", stderr "
	    "\"%s\"%s%s", r.status, esc(r.out), esc(r.errout),
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);

	do_exec(&r, a2, env, "/home/dev", 1000, 1000);
	check(r.err == NULL && r.status == 0 && r.out != NULL &&
	    strcmp(r.out, "1000\n1000\n/home/dev\n/home/dev\na b=c \"q\"") ==
	    0, "exec as 1000:1000 in /home/dev with env: \"%s\"",
	    esc(r.out ? r.out : r.err));
	res_clear(&r);

	do_exec(&r, a3, NULL, NULL, -1, -1);
	check(r.err != NULL && !r.ran, "exec of a missing binary fails: %s",
	    r.err ? r.err : "no error");
	res_clear(&r);

	do_exec(&r, a4, NULL, NULL, -1, -1);
	check(r.err == NULL && r.outlen == 300000 &&
	    strspn(r.out, "x") == 300000, "exec with 300000 bytes of "
	    "output: got %zu", r.outlen);
	res_clear(&r);

	/* one-second polls: the wait must be renewed until the end */
	incus_set_timeouts(inc, 20, 1);
	t0 = now_ms();
	do_exec(&r, a5, NULL, NULL, -1, -1);
	check(r.err == NULL && r.status == 7, "exec sleep 3 with 1 s waits: "
	    "status %d after %.0f ms%s%s", r.status, now_ms() - t0,
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
	incus_set_timeouts(inc, 0, 0);
}

static void
raw_body_done(struct http_response *resp, const char *err, void *arg)
{
	struct res	*r = arg;

	r->done = 1;
	r->err = err ? strdup(err) : NULL;
	if (resp != NULL) {
		r->http_status = resp->status;
		r->md = json_tokener_parse(resp->body);
	}
}

/*
 * The HTTP layer's own timeout: a long poll on a running operation is cut
 * at 500 ms, its connection is dropped, and the pool goes on.
 */
static void
http_timeout_check(void)
{
	const char		 body[] = "{\"command\":[\"sleep\",\"2\"],"
	    "\"interactive\":false,\"wait-for-websocket\":false}";
	struct http_request	*req;
	struct res		 r;
	char			 path[160];
	const char		*op;
	double			 t0;

	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "/1.0/instances/%s/exec", name);
	req = http_request_new(incus_http(inc), "POST", path);
	http_request_body(req, "application/json", body, strlen(body));
	http_request_submit(req, raw_body_done, &r);
	while (!r.done)
		event_base_loop(base, EVLOOP_ONCE);
	op = json_object_get_string(json_object_object_get(r.md,
	    "operation"));
	if (r.err != NULL || r.http_status != 202 || op == NULL) {
		check(0, "raw POST exec: %s, HTTP %d", r.err ? r.err : "",
		    r.http_status);
		res_clear(&r);
		return;
	}
	snprintf(path, sizeof(path), "%s/wait?timeout=10", op);
	res_clear(&r);
	req = http_request_new(incus_http(inc), "GET", path);
	http_request_timeout(req, 500);
	t0 = now_ms();
	http_request_submit(req, raw_body_done, &r);
	while (!r.done)
		event_base_loop(base, EVLOOP_ONCE);
	check(r.err != NULL && strstr(r.err, "no response within 500 ms") &&
	    now_ms() - t0 < 1500, "request timeout after %.0f ms: %s",
	    now_ms() - t0, r.err ? r.err : "no error");
	res_clear(&r);
	/* the same operation, waited for through incus.c, ends well */
	*strstr(path, "/wait") = '\0';
	run(&r, incus_operation_wait(inc, path, json_done, &r));
	check(r.err == NULL, "the pool goes on: operation wait ok%s%s",
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
}

/* Last of the exec checks: the abandoned command leaves its logs. */
static void
exec_deadline(void)
{
	const char *const	 a5[] = { "sh", "-c", "sleep 3; exit 7", NULL };
	struct res		 r;

	incus_set_timeouts(inc, 1, 1);
	do_exec(&r, a5, NULL, NULL, -1, -1);
	check(r.err != NULL && strstr(r.err, "still") != NULL,
	    "exec past the operation deadline: %s", r.err ? r.err :
	    "no error");
	res_clear(&r);
	incus_set_timeouts(inc, 0, 0);
}

static void
exec_timing(void)
{
	const char *const	 t[] = { "true", NULL };
	char			*cli[] = { "incus", "exec", name, "--", "true",
	    NULL };
	struct res		 r;
	double			 v[20], c[20], t0, med;
	int			 i, n = 0, m = 0;

	for (i = 0; i < 20; i++) {
		t0 = now_ms();
		do_exec(&r, t, NULL, NULL, -1, -1);
		v[i] = now_ms() - t0;
		if (r.err == NULL && r.status == 0)
			n++;
		res_clear(&r);
	}
	for (i = 0; i < 20; i++) {
		t0 = now_ms();
		if (spawn(cli, 1) != 0)
			break;
		c[m++] = now_ms() - t0;
	}
	med = median(v, 20);
	check(n == 20, "exec round trip (POST exec, wait, GET+DELETE both "
	    "logs), 20 runs: median %.1f ms (min %.1f, max %.1f)", med, v[0],
	    v[19]);
	if (m == 20) {
		med = median(c, 20);
		printf("# for comparison `incus exec %s -- true`, 20 runs: "
		    "median %.1f ms (min %.1f, max %.1f)\n", name, med, c[0],
		    c[19]);
	}
	else
		printf("# incus CLI timing not available\n");
}

static void
exec_logs_gone(void)
{
	struct res		 r;
	char			 path[160];
	size_t			 n;

	/* the last exec's logs are deleted after its answer came */
	while (incus_pending(inc) > 0)
		if (event_base_loop(base, EVLOOP_ONCE) == -1)
			break;
	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "/1.0/instances/%s/logs/exec-output",
	    name);
	run(&r, incus_request(inc, "GET", path, NULL, json_done, &r));
	n = r.md && json_object_is_type(r.md, json_type_array) ?
	    json_object_array_length(r.md) : 0;
	check(r.err == NULL && n == 0, "no recorded exec output left behind "
	    "(%zu files)%s%s", n, r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
}

static void
file_checks(void)
{
	const char *const	 wc[] = { "sh", "-c",
	    "wc -c < /home/dev/blob; stat -c '%u %g %a' /home/dev/blob",
	    NULL };
	struct incus_file	 f;
	struct res		 r;
	unsigned char		*blob;
	size_t			 len = 200000, i;
	char			 want[64];

	if ((blob = malloc(len)) == NULL)
		return;
	for (i = 0; i < len; i++)
		blob[i] = (unsigned char)(i * 131 + (i >> 8));
	memset(&f, 0, sizeof(f));
	f.type = "file";
	f.uid = 1000;
	f.gid = 1000;
	f.mode = 0640;
	f.data = (const char *)blob;
	f.len = len;
	memset(&r, 0, sizeof(r));
	run(&r, incus_file_push(inc, name, "/home/dev/blob", &f, json_done,
	    &r));
	check(r.err == NULL, "push %zu binary bytes to /home/dev/blob%s%s",
	    len, r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);

	/* seen from inside: the size proves the body was not dropped */
	do_exec(&r, wc, NULL, NULL, -1, -1);
	snprintf(want, sizeof(want), "%zu\n1000 1000 640\n", len);
	check(r.err == NULL && r.out && strcmp(r.out, want) == 0,
	    "inside: size, owner, mode \"%s\"", esc(r.out ? r.out : r.err));
	res_clear(&r);

	run(&r, incus_file_pull(inc, name, "/home/dev/blob", pull_done, &r));
	check(r.err == NULL && r.file.len == len && r.data != NULL &&
	    memcmp(r.data, blob, len) == 0 && r.file.uid == 1000 &&
	    r.file.gid == 1000 && r.file.mode == 0640 &&
	    strcmp(r.file.type, "file") == 0, "pull: %zu bytes identical, "
	    "uid %d gid %d mode %04o type %s%s%s", r.file.len, r.file.uid,
	    r.file.gid, r.file.mode, r.file.type ? r.file.type : "?",
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);

	/* append, then a zero-length overwrite */
	f.data = "abc";
	f.len = 3;
	f.mode = 0600;
	run(&r, incus_file_push(inc, name, "/tmp/a", &f, json_done, &r));
	res_clear(&r);
	f.data = "def";
	f.append = 1;
	run(&r, incus_file_push(inc, name, "/tmp/a", &f, json_done, &r));
	res_clear(&r);
	run(&r, incus_file_pull(inc, name, "/tmp/a", pull_done, &r));
	check(r.err == NULL && r.data && strcmp(r.data, "abcdef") == 0,
	    "push, append, pull: \"%s\"", r.data ? r.data : r.err);
	res_clear(&r);

	f.type = "directory";
	f.data = NULL;
	f.len = 0;
	f.append = 0;
	f.mode = 0750;
	run(&r, incus_file_push(inc, name, "/home/dev/newdir", &f, json_done,
	    &r));
	res_clear(&r);
	run(&r, incus_file_pull(inc, name, "/home/dev", pull_done, &r));
	check(r.err == NULL && strcmp(r.file.type, "directory") == 0 &&
	    r.data && strstr(r.data, "newdir") && strstr(r.data, "blob"),
	    "directory push; pull of /home/dev lists it%s%s",
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);

	free(blob);
}

static void
config_checks(const char *pidval)
{
	struct json_object	*cfg, *v;
	struct res		 r;
	size_t			 n;
	const char		*got = NULL;
	int			 found;

	n = 0;
	found = list_has("user.jailbee.test", pidval, &n);
	check(found == 1, "list user.jailbee.test=%s finds %s (%zu hit)",
	    pidval, name, n);
	check(list_has("user.jailbee.test", NULL, NULL) == 1,
	    "list by key only finds it");
	/* the server's filter is case-insensitive and regex-like */
	check(list_has("user.jailbee.note", "Mixed Case, with spaces",
	    NULL) == 1, "list by a value with spaces and a comma finds it");
	check(list_has("user.jailbee.note", "mixed case, with spaces",
	    NULL) == 0, "another case does not match");
	check(list_has("user.jailbee.test", "1.*", NULL) == 0,
	    "a regex-looking value is matched literally");
	list_shared(pidval);
	recent_checks();

	(void)set_branch("feature/x", &r);
	check(r.err == NULL, "patch config%s%s", r.err ? ": " : "",
	    r.err ? r.err : "");
	res_clear(&r);

	run(&r, incus_instance_get(inc, name, json_done, &r));
	if (json_object_object_get_ex(r.md, "config", &cfg) &&
	    json_object_object_get_ex(cfg, "user.jailbee.branch", &v))
		got = json_object_get_string(v);
	check(got != NULL && strcmp(got, "feature/x") == 0 &&
	    strcmp(json_object_get_string(json_object_object_get(r.md,
	    "status")), "Running") == 0, "get shows the patched key and "
	    "status Running");
	res_clear(&r);

	run(&r, incus_instance_get(inc, "jbt-no-such-instance", json_done,
	    &r));
	check(r.err == NULL && r.md == NULL, "get of a missing instance "
	    "gives (NULL, NULL)");
	res_clear(&r);
	run(&r, incus_instance_delete(inc, "jbt-no-such-instance", json_done,
	    &r));
	check(r.err != NULL && strstr(r.err, "not found") != NULL &&
	    strstr(r.err, "HTTP 404") != NULL, "delete of a missing "
	    "instance: %s", r.err ? r.err : "no error");
	res_clear(&r);
	run(&r, incus_instance_delete(inc, name, json_done, &r));
	check(r.err != NULL, "delete of a running instance refused: %s",
	    r.err ? r.err : "no error");
	res_clear(&r);
}

static void
snapshot_checks(void)
{
	const char *const	 mark[] = { "touch", "/root/after", NULL };
	const char *const	 test[] = { "test", "-e", "/root/after",
	    NULL };
	struct res		 r;
	double			 t0;

	memset(&r, 0, sizeof(r));
	t0 = now_ms();
	run(&r, incus_snapshot_create(inc, name, "s0", json_done, &r));
	check(r.err == NULL, "snapshot create s0 (%.0f ms)%s%s",
	    now_ms() - t0, r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
	do_exec(&r, mark, NULL, NULL, -1, -1);
	res_clear(&r);
	t0 = now_ms();
	run(&r, incus_snapshot_restore(inc, name, "s0", json_done, &r));
	check(r.err == NULL, "snapshot restore s0 (%.0f ms)%s%s",
	    now_ms() - t0, r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
	do_exec(&r, test, NULL, NULL, -1, -1);
	check(r.err == NULL && r.status == 1, "file made after s0 is gone "
	    "after restore (test -e: %d)", r.status);
	res_clear(&r);
	run(&r, incus_snapshot_delete(inc, name, "s0", json_done, &r));
	check(r.err == NULL, "snapshot delete s0%s%s", r.err ? ": " : "",
	    r.err ? r.err : "");
	res_clear(&r);
	run(&r, incus_snapshot_delete(inc, name, "s0", json_done, &r));
	check(r.err != NULL, "second delete of s0 fails: %s",
	    r.err ? r.err : "no error");
	res_clear(&r);
}

/*
 * An events websocket: the 101 answer hands the stream over, and a
 * lifecycle event caused by a config change arrives on it.
 */
static void
ws_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer	*acc = arg;

	evbuffer_add_buffer(acc, bufferevent_get_input(bev));
}

/*
 * Walk the server's (unmasked) frames: is there a text frame holding a
 * JSON lifecycle event with this action for our instance?
 */
static int
ws_find(const unsigned char *b, size_t len, const char *action)
{
	struct json_object	*ev, *md;
	size_t			 off = 0, hl, pl, i;
	const char		*a, *src;
	char			*text;
	int			 found = 0;

	while (!found && len - off >= 2) {
		pl = b[off + 1] & 0x7f;
		hl = 2;
		if (pl == 126) {
			if (len - off < 4)
				break;
			pl = (size_t)b[off + 2] << 8 | b[off + 3];
			hl = 4;
		} else if (pl == 127) {
			if (len - off < 10)
				break;
			for (pl = 0, i = 0; i < 8; i++)
				pl = pl << 8 | b[off + 2 + i];
			hl = 10;
		}
		if ((b[off + 1] & 0x80) || len - off - hl < pl)
			break;
		ev = NULL;
		if ((b[off] & 0x0f) == 1 &&
		    (text = strndup((const char *)b + off + hl, pl)) != NULL) {
			ev = json_tokener_parse(text);
			free(text);
		}
		if (ev != NULL) {
			md = json_object_object_get(ev, "metadata");
			a = json_object_get_string(json_object_object_get(md,
			    "action"));
			src = json_object_get_string(json_object_object_get(md,
			    "source"));
			found = a && src && strcmp(a, action) == 0 &&
			    strstr(src, name) != NULL;
			json_object_put(ev);
		}
		off += hl + pl;
	}
	return found;
}

static void
events_check(void)
{
	struct http_request	*req;
	struct json_object	*patch, *cfg;
	struct evbuffer		*acc;
	struct res		 r, p;
	double			 t0;
	const char		*s;
	int			 found = 0;

	memset(&r, 0, sizeof(r));
	req = http_request_new(incus_http(inc), "GET",
	    "/1.0/events?type=lifecycle");
	http_request_header(req, "Connection", "Upgrade");
	http_request_header(req, "Upgrade", "websocket");
	http_request_header(req, "Sec-WebSocket-Version", "13");
	http_request_header(req, "Sec-WebSocket-Key",
	    "dGhlIHNhbXBsZSBub25jZQ==");
	http_request_submit(req, raw_done, &r);
	while (!r.done)
		event_base_loop(base, EVLOOP_ONCE);
	check(r.err == NULL && r.http_status == 101 && r.bev != NULL,
	    "events websocket: HTTP %d, stream handed over", r.http_status);
	if (r.bev == NULL) {
		res_clear(&r);
		return;
	}
	acc = evbuffer_new();
	bufferevent_setcb(r.bev, ws_read, NULL, NULL, acc);
	bufferevent_enable(r.bev, EV_READ);

	patch = json_object_new_object();
	cfg = json_object_new_object();
	json_object_object_add(cfg, "user.jailbee.event",
	    json_object_new_string("1"));
	json_object_object_add(patch, "config", cfg);
	memset(&p, 0, sizeof(p));
	run(&p, incus_instance_patch(inc, name, patch, json_done, &p));
	res_clear(&p);
	json_object_put(patch);

	t0 = now_ms();
	while (!found && now_ms() - t0 < 5000) {
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		s = (const char *)evbuffer_pullup(acc, -1);
		found = s != NULL && ws_find((const unsigned char *)s,
		    evbuffer_get_length(acc), "instance-updated");
		if (!found)
			usleep(10000);
	}
	check(found, "lifecycle event instance-updated for %s arrived as a "
	    "text frame", name);
	evbuffer_free(acc);
	res_clear(&r);
}

static void
stop_delete(void)
{
	struct res	r;
	double		t0;

	memset(&r, 0, sizeof(r));
	t0 = now_ms();
	run(&r, incus_instance_state(inc, name, "stop", 1, -1, json_done,
	    &r));
	check(r.err == NULL, "stop --force (%.0f ms)%s%s", now_ms() - t0,
	    r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
	t0 = now_ms();
	run(&r, incus_instance_delete(inc, name, json_done, &r));
	check(r.err == NULL, "delete (%.0f ms)%s%s", now_ms() - t0,
	    r.err ? ": " : "", r.err ? r.err : "");
	if (r.err == NULL)
		created = 0;
	res_clear(&r);
}

/* Remove the container whatever state the scenario left it in. */
static void
cleanup(void)
{
	char	*argv[] = { "incus", "delete", "--force", name, NULL };
	struct res	r;

	if (!created)
		return;
	memset(&r, 0, sizeof(r));
	run(&r, incus_instance_state(inc, name, "stop", 1, -1, json_done,
	    &r));
	res_clear(&r);
	run(&r, incus_instance_delete(inc, name, json_done, &r));
	if (r.err != NULL && strstr(r.err, "not found") == NULL) {
		printf("# cleanup through the API failed (%s); using the "
		    "CLI\n", r.err);
		spawn(argv, 1);
	}
	res_clear(&r);
	created = 0;
}

static void
error_paths(void)
{
	struct incus	*bad;
	struct res	 r;
	char		 err[256];

	bad = incus_new(base, "unix:/nonexistent/incus.socket", NULL, err,
	    sizeof(err));
	memset(&r, 0, sizeof(r));
	run(&r, incus_server_get(bad, json_done, &r));
	check(r.err != NULL && strstr(r.err, "No such file") != NULL,
	    "missing socket reported from the loop: %s", r.err ? r.err :
	    "no error");
	res_clear(&r);
	incus_free(bad);
	check(incus_new(base, "tcp://x", NULL, err, sizeof(err)) == NULL,
	    "bad endpoint refused: %s", err);
	check(incus_new(base, "https://127.0.0.1:8443", NULL, err,
	    sizeof(err)) == NULL, "https without certificates refused: %s",
	    err);

	run(&r, incus_request(inc, "GET", "/1.0/nonexistent", NULL, json_done,
	    &r));
	check(r.err != NULL && strstr(r.err, "404") != NULL,
	    "unknown endpoint: %s", r.err ? r.err : "no error");
	res_clear(&r);

	run(&r, incus_instance_delete(inc, "..", json_done, &r));
	check(r.err != NULL && strstr(r.err, "reserved") != NULL,
	    "instance name \"..\" refused: %s", r.err ? r.err : "no error");
	res_clear(&r);
	run(&r, incus_file_pull(inc, "", "/etc/passwd", pull_done, &r));
	check(r.err != NULL && strstr(r.err, "reserved") != NULL,
	    "empty instance name refused: %s", r.err ? r.err : "no error");
	res_clear(&r);

	/* a pending call cancelled: its callback never runs */
	incus_cancel(incus_server_get(inc, json_done, &r));
	event_base_loop(base, EVLOOP_NONBLOCK);
	check(!r.done, "cancelled call stays silent");
}

/* The server certificate must be the one pinned: another is refused. */
static void
tls_checks(const struct http_tls *tls, const char *endpoint)
{
	struct http_tls	 wrong = *tls;
	struct incus	*bad;
	struct res	 r;
	char		 err[256];

	/* our own client certificate is no CA for the server's */
	wrong.ca_file = tls->cert_file;
	if ((bad = incus_new(base, endpoint, &wrong, err, sizeof(err))) ==
	    NULL) {
		check(0, "client with another CA: %s", err);
		return;
	}
	memset(&r, 0, sizeof(r));
	run(&r, incus_server_get(bad, json_done, &r));
	check(r.err != NULL && strstr(r.err, "certificate verify failed"),
	    "unpinned server certificate refused: %s", r.err ? r.err :
	    "no error");
	res_clear(&r);
	incus_free(bad);

	wrong = *tls;
	wrong.key_file = tls->ca_file;
	bad = incus_new(base, endpoint, &wrong, err, sizeof(err));
	check(bad == NULL, "a key that is no key is refused: %s", err);
	incus_free(bad);
}

int
main(int argc, char *argv[])
{
	const char	*endpoint = "unix:" INCUS_SOCKET;
	char		*mkfixture = NULL;
	char		 err[256], pidval[32];
	struct http_tls	 tls;
	struct res	 r;
	int		 ch, quick = 0;

	memset(&tls, 0, sizeof(tls));
	while ((ch = getopt(argc, argv, "c:e:k:m:qs:")) != -1) {
		switch (ch) {
		case 'c':
			tls.cert_file = optarg;
			break;
		case 'e':
			endpoint = optarg;
			break;
		case 'k':
			tls.key_file = optarg;
			break;
		case 'm':
			mkfixture = strdup(optarg);
			break;
		case 'q':
			quick = 1;
			break;
		case 's':
			tls.ca_file = optarg;
			break;
		default:
			fprintf(stderr, "usage: incus_client [-q] [-e endpoint] "
			    "[-m mkfixture] [-c cert -k key -s server.crt]\n");
			return 2;
		}
	}
	if (mkfixture == NULL && (mkfixture = strdup("regress/mkfixture")) == NULL)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((base = event_base_new()) == NULL)
		return 1;
	if ((inc = incus_new(base, endpoint, &tls, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "incus_client: %s\n", err);
		return 1;
	}
	if (wait_for_incusd() == -1) {
		check(0, "incusd answers at %s", endpoint);
		return 1;
	}
	snprintf(name, sizeof(name), "jbt-http-%d", (int)getpid());
	snprintf(pidval, sizeof(pidval), "%d", (int)getpid());

	server_info();
	concurrency();
	error_paths();
	if (strncmp(endpoint, "https://", 8) == 0)
		tls_checks(&tls, endpoint);
	if (quick)
		goto done;
	/* containers come from the base image run-tests built */
	if ((image = getenv("JB_IMAGE")) == NULL || *image == '\0') {
		check(0, "JB_IMAGE names no base image");
		goto done;
	}
	memset(&r, 0, sizeof(r));
	run(&r, incus_image_alias_get(inc, image, json_done, &r));
	check(r.err == NULL && r.md != NULL, "base image %s is in Incus",
	    image);
	if (r.err != NULL || r.md == NULL) {
		res_clear(&r);
		goto done;
	}
	res_clear(&r);
	image_roundtrip(mkfixture);
	if (create_container(pidval) == 0) {
		config_checks(pidval);
		exec_checks();
		http_timeout_check();
		exec_logs_gone();
		file_checks();
		snapshot_checks();
		events_check();
		exec_timing();
		exec_logs_gone();
		exec_deadline();
		stop_delete();
		check(list_has("user.jailbee.test", pidval, NULL) == 0,
		    "list no longer finds %s", name);
	}
done:
	cleanup();
	incus_free(inc);
	event_base_free(base);
	free(mkfixture);
	printf("# %d failure(s)\n", failures);
	return failures ? 1 : 0;
}
