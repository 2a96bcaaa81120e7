/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <json.h>

#include "http.h"
#include "incus.h"
#include "instcache.h"
#include "log.h"

#define REQ_TIMEOUT_MS	60000	/* one request, not an operation */
#define MAX_CONNS	8	/* long polls each hold a connection */
#define BUSY_RETRY_MS	200	/* a change refused while another runs */
#define BUSY_WAIT_SECS	30	/* ... is sent again for this long */

enum call_kind {
	CALL_JSON,
	CALL_EXEC,
	CALL_PULL
};

#define RECENT_MAX	4	/* answers incus_get_recent() keeps */
#define RECENT_SECS	2	/* ... for at most this long */

struct incus_call;
typedef void	(*call_step)(struct incus_call *, struct json_object *);

struct incus_call {
	TAILQ_ENTRY(incus_call)	 entry;
	struct incus		*inc;
	enum call_kind		 kind;
	char			*what;		/* "METHOD /path" */
	int			 absent_ok;	/* 404 is an answer */
	call_step		 then;		/* after the sync/op result */
	struct http_request	*req[2];
	struct event		*defer;
	char			*failmsg;	/* first failure */
	char			*op;		/* operation being waited on */
	time_t			 deadline;

	/* a change, kept to send again while the instance is busy */
	char			*method;
	char			*path;
	char			*body;
	time_t			 busy_until;
	struct event		*resend;

	/* instances list */
	char			*key;
	char			*value;
	uint64_t		 serial;	/* unfiltered, in flight: joinable */
	uint64_t		 changes;	/* inc->changes when it was sent */
	uint64_t		 follows;	/* the list whose answer it takes */
	int			 orphan;	/* cancelled, still answering those */

	/* incus_get_recent(): the answer to give, or the path to keep it as */
	struct json_object	*kept;
	char			*keep;
	uint64_t		 net_gen;	/* incus_get_followed(): when asked */

	/* the kept list of instances (instcache.h) */
	uint64_t		 token;		/* a whole list that may fill it */
	int			 cache_wait;	/* a list waiting on its reads */
	char			*iname;		/* the instance a POST makes */

	/* exec */
	int			 reaping;	/* a failed exec's logs */
	int			 answered;	/* told, its logs still going */
	int			 ran;
	int			 status;
	int			 quiet_ok;	/* exit 0: no output read */
	char			*outpath[2];
	char			*out[2];
	size_t			 outlen[2];
	int			 pending;

	/* image import */
	char			*alias;
	char			*fingerprint;

	/* instance writes: the ETag read, and a 412 to If-Match */
	incus_tag_cb		 tag_cb;
	char			*etag;
	int			 stale;

	incus_json_cb		 json_cb;
	incus_exec_cb		 exec_cb;
	incus_file_cb		 file_cb;
	void			*arg;
};
TAILQ_HEAD(incus_calls, incus_call);

struct incus {
	struct event_base	*base;
	struct http_client	*http;
	int			 op_timeout;
	int			 wait_secs;
	struct incus_calls	 calls;
	uint64_t		 serials;	/* of unfiltered instance lists */
	uint64_t		 changes;	/* calls ended that were no GET */
	struct instcache	*icache;
	int			 ev_asking;	/* stream open, clustered? asked */
	struct recent {
		char			*path;
		struct json_object	*md;
		uint64_t		 changes;	/* inc->changes then */
		time_t			 at;		/* now_sec() then */
	}			 recent[RECENT_MAX];
	/* incus_get_followed(): one network's record, while followed */
	int			 nets_followed;	/* stream open, one server */
	uint64_t		 net_gen;	/* bumped by network events and
						   by the stream's opening
						   and loss */
	char			*net_path;
	struct json_object	*net_md;
};

static void	call_send(struct incus_call *, const char *, const char *,
		    const char *, const void *, size_t,
		    const char *const *);
static void	call_fail(struct incus_call *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static void	call_note(struct incus_call *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static void	op_wait(struct incus_call *);
static time_t	now_sec(void);
static void	followers_fail(struct incus *, uint64_t, const char *);
static void	list_filter(struct incus_call *, struct json_object *);
static void	cache_changed(struct incus_call *);
static void	cache_read_next(struct incus *);
static void	list_ask(struct incus_call *);
static void	exec_reap(struct incus_call *, struct json_object *);

struct incus *
incus_new(struct event_base *base, const char *endpoint,
    const struct http_tls *tls, char *err, size_t errlen)
{
	struct incus	*inc;

	if ((inc = calloc(1, sizeof(*inc))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	inc->base = base;
	inc->op_timeout = INCUS_OP_TIMEOUT;
	inc->wait_secs = INCUS_WAIT_SECS;
	TAILQ_INIT(&inc->calls);
	inc->icache = instcache_new();
	if (endpoint == NULL)
		endpoint = "unix:" INCUS_SOCKET;
	if ((inc->http = http_client_new(base, endpoint, tls, err,
	    errlen)) == NULL) {
		free(inc);
		return NULL;
	}
	http_client_set_max_conns(inc->http, MAX_CONNS);
	http_client_set_timeout(inc->http, REQ_TIMEOUT_MS);
	return inc;
}

static void
call_free(struct incus_call *c)
{
	int	i;

	for (i = 0; i < 2; i++) {
		if (c->req[i] != NULL)
			http_request_cancel(c->req[i]);
		free(c->outpath[i]);
		free(c->out[i]);
	}
	if (c->defer != NULL)
		event_free(c->defer);
	if (c->resend != NULL)
		event_free(c->resend);
	free(c->method);
	free(c->path);
	free(c->body);
	free(c->what);
	free(c->failmsg);
	free(c->op);
	free(c->key);
	free(c->value);
	free(c->alias);
	free(c->fingerprint);
	free(c->etag);
	json_object_put(c->kept);
	free(c->keep);
	free(c->iname);
	free(c);
}

void
incus_free(struct incus *inc)
{
	struct incus_call	*c;
	int			 i;

	if (inc == NULL)
		return;
	while ((c = TAILQ_FIRST(&inc->calls)) != NULL) {
		TAILQ_REMOVE(&inc->calls, c, entry);
		call_free(c);
	}
	for (i = 0; i < RECENT_MAX; i++) {
		free(inc->recent[i].path);
		json_object_put(inc->recent[i].md);
	}
	free(inc->net_path);
	json_object_put(inc->net_md);
	instcache_free(inc->icache);
	http_client_free(inc->http);
	free(inc);
}

static int
has_followers(const struct incus_call *c)
{
	const struct incus_call	*f;

	if (c->serial == 0)
		return 0;
	TAILQ_FOREACH(f, &c->inc->calls, entry)
		if (f->follows == c->serial)
			return 1;
	return 0;
}

/* a list others wait on keeps going for them, its own asker forgotten */
void
incus_cancel(struct incus_call *c)
{
	if (has_followers(c)) {
		c->orphan = 1;
		return;
	}
	if (c->token != 0)
		instcache_fill(c->inc->icache, c->token, NULL);
	TAILQ_REMOVE(&c->inc->calls, c, entry);
	call_free(c);
}

void
incus_set_timeouts(struct incus *inc, int op_secs, int wait_secs)
{
	inc->op_timeout = op_secs > 0 ? op_secs : INCUS_OP_TIMEOUT;
	inc->wait_secs = wait_secs > 0 ? wait_secs : INCUS_WAIT_SECS;
}

struct http_client *
incus_http(struct incus *inc)
{
	return inc->http;
}

struct event_base *
incus_base(struct incus *inc)
{
	return inc->base;
}

int
incus_pending(struct incus *inc)
{
	struct incus_call	*c;
	int			 n = 0;

	TAILQ_FOREACH(c, &inc->calls, entry)
		n++;
	return n;
}

/*
 * Completion: the callback runs last, as the caller may free everything
 * from inside it.
 */
static void
call_resend(evutil_socket_t fd, short ev, void *arg)
{
	struct incus_call	*c = arg;

	call_send(c, c->method, c->path, c->body ? "application/json" : NULL,
	    c->body, c->body ? strlen(c->body) : 0, NULL);
}

int
incus_busy_refusal(const char *err)
{
	return err != NULL && strstr(err, "is busy running a") != NULL;
}

/*
 * Incus refuses a change to an instance while another change to it is
 * still under way ("Instance is busy running a "update" operation"):
 * the device removal of a mount whose deadline passed can still be
 * finishing when the owner asks to stop or restore.  Such a refusal
 * changed nothing, so the same request goes again shortly, for a
 * bounded time; then the refusal is the answer.
 */
static int
call_busy_retry(struct incus_call *c)
{
	struct timeval	 tv = { 0, BUSY_RETRY_MS * 1000 };

	if (c->kind != CALL_JSON || c->method == NULL ||
	    !incus_busy_refusal(c->failmsg))
		return 0;
	if (c->busy_until == 0)
		c->busy_until = now_sec() + BUSY_WAIT_SECS;
	else if (now_sec() >= c->busy_until)
		return 0;
	if (c->resend == NULL && (c->resend = evtimer_new(c->inc->base,
	    call_resend, c)) == NULL)
		return 0;
	free(c->failmsg);
	c->failmsg = NULL;
	free(c->op);
	c->op = NULL;
	c->stale = 0;
	c->deadline = -1;
	evtimer_add(c->resend, &tv);
	return 1;
}

static void
call_finish(struct incus_call *c, struct json_object *md,
    const struct incus_exec_result *xr, const struct incus_file *f)
{
	const char	*err;

	if (call_busy_retry(c))
		return;
	err = c->failmsg;
	TAILQ_REMOVE(&c->inc->calls, c, entry);
	if (c->what == NULL || strncmp(c->what, "GET ", 4) != 0) {
		c->inc->changes++;
		cache_changed(c);
	}
	if (c->token != 0) {
		/* a whole list that failed: nothing to keep */
		instcache_fill(c->inc->icache, c->token, NULL);
		c->token = 0;
	}
	if (err != NULL && c->serial != 0)
		followers_fail(c->inc, c->serial, err);
	if (c->orphan) {
		call_free(c);
		return;
	}
	switch (c->kind) {
	case CALL_JSON:
		if (c->tag_cb != NULL)
			c->tag_cb(c->arg, err ? NULL : md, err ? NULL : c->etag,
			    c->stale, err);
		else
			c->json_cb(c->arg, err ? NULL : md, err);
		break;
	case CALL_EXEC:
		c->exec_cb(c->arg, xr, err);
		break;
	case CALL_PULL:
		c->file_cb(c->arg, err ? NULL : f, err);
		break;
	}
	call_free(c);
}

static void	call_vnote(struct incus_call *, const char *, va_list)
		    __attribute__((__format__(__printf__, 2, 0)));

/* Only the first failure is reported: later ones are its consequences. */
static void
call_vnote(struct incus_call *c, const char *fmt, va_list ap)
{
	char	*msg = NULL;

	if (vasprintf(&msg, fmt, ap) == -1)
		msg = NULL;
	if (c->failmsg == NULL)
		c->failmsg = msg ? msg : strdup("out of memory");
	else
		free(msg);
}

static void
call_note(struct incus_call *c, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	call_vnote(c, fmt, ap);
	va_end(ap);
}

static void
call_fail(struct incus_call *c, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	call_vnote(c, fmt, ap);
	va_end(ap);
	call_finish(c, NULL, NULL, NULL);
}

static void
deferred(evutil_socket_t fd, short ev, void *arg)
{
	struct incus_call	*c = arg;

	/* a list from the kept one is narrowed as Incus's answer is */
	if (c->kept != NULL && c->then != NULL)
		c->then(c, c->kept);
	else
		call_finish(c, c->kept, NULL, NULL);
}

/* Errors found before anything is sent still arrive from the loop. */
static void
call_fail_later(struct incus_call *c, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));

static void
call_fail_later(struct incus_call *c, const char *fmt, ...)
{
	struct timeval	 tv = { 0, 0 };
	va_list		 ap;

	va_start(ap, fmt);
	call_vnote(c, fmt, ap);
	va_end(ap);
	evtimer_add(c->defer, &tv);
}

static struct incus_call *
call_new(struct incus *inc, enum call_kind kind, void *cb, void *arg)
{
	struct incus_call	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->inc = inc;
	c->kind = kind;
	c->arg = arg;
	c->deadline = -1;
	switch (kind) {
	case CALL_JSON:
		c->json_cb = (incus_json_cb)cb;
		break;
	case CALL_EXEC:
		c->exec_cb = (incus_exec_cb)cb;
		break;
	case CALL_PULL:
		c->file_cb = (incus_file_cb)cb;
		break;
	}
	if ((c->defer = evtimer_new(inc->base, deferred, c)) == NULL) {
		free(c);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&inc->calls, c, entry);
	return c;
}

static time_t
now_sec(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void
deliver(struct incus_call *c, struct json_object *md)
{
	call_finish(c, md, NULL, NULL);
}

static int
name_ok(const char *s)
{
	return *s != '\0' && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/*
 * A path with %s arguments escaped as segments.  An empty, "." or ".."
 * name would address another resource: EINVAL.
 */
static char *
mkpath(const char *fmt, ...)
{
	va_list		 ap;
	const char	*f, *arg;
	char		*out = NULL, *esc, *tmp;
	size_t		 len = 0;

	va_start(ap, fmt);
	if ((out = strdup("")) == NULL)
		goto fail;
	for (f = fmt; *f != '\0'; f++) {
		if (f[0] == '%' && f[1] == 's') {
			f++;
			arg = va_arg(ap, const char *);
			if (!name_ok(arg)) {
				errno = EINVAL;
				goto fail;
			}
			if ((esc = http_escape(arg)) == NULL)
				goto fail;
		} else if ((esc = strndup(f, 1)) == NULL)
			goto fail;
		len += strlen(esc);
		if ((tmp = realloc(out, len + 1)) == NULL) {
			free(esc);
			goto fail;
		}
		out = tmp;
		strlcat(out, esc, len + 1);
		free(esc);
	}
	va_end(ap);
	return out;
fail:
	va_end(ap);
	free(out);
	return NULL;
}

static const char *
jstr(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int
jint(struct json_object *o, const char *key, int64_t *out)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	*out = json_object_get_int64(v);
	return 0;
}

static struct json_object *
jparse(const char *buf, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*o;
	size_t			 end;

	if (len > INT32_MAX || (tok = json_tokener_new()) == NULL)
		return NULL;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	/* a truncated document or trailing garbage is not a response */
	if (o != NULL) {
		end = json_tokener_get_parse_end(tok);
		while (end < len && strchr(" \t\r\n", buf[end]) != NULL &&
		    buf[end] != '\0')
			end++;
		if (json_tokener_get_error(tok) != json_tokener_success ||
		    end != len) {
			json_object_put(o);
			o = NULL;
		}
	}
	json_tokener_free(tok);
	return o;
}

/* The finished operation: its state decides what comes next. */
static void
op_state(struct incus_call *c, struct json_object *op)
{
	struct json_object	*md = NULL;
	const char		*err;
	int64_t			 code;

	if (jint(op, "status_code", &code) == -1) {
		call_fail(c, "%s: operation %s: no status in %s", c->what,
		    c->op, json_object_to_json_string(op));
		return;
	}
	if (code == 200) {
		json_object_object_get_ex(op, "metadata", &md);
		if (md != NULL && json_object_is_type(md, json_type_null))
			md = NULL;
		c->then(c, md);
		return;
	}
	if (code >= 400) {
		err = jstr(op, "err");
		call_note(c, "%s: operation failed: %s (%s)", c->what,
		    err && *err ? err : "no reason given",
		    jstr(op, "status") ? jstr(op, "status") : "?");
		json_object_object_get_ex(op, "metadata", &md);
		if (c->kind == CALL_EXEC)
			exec_reap(c, md);
		else
			call_finish(c, NULL, NULL, NULL);
		return;
	}
	if (now_sec() >= c->deadline) {
		call_fail(c, "%s: operation %s still %s after %d s", c->what,
		    c->op, jstr(op, "status") ? jstr(op, "status") : "running",
		    c->inc->op_timeout);
		return;
	}
	op_wait(c);
}

static void
http_done(struct http_response *resp, const char *err, void *arg)
{
	struct incus_call	*c = arg;
	struct json_object	*root, *md = NULL;
	const char		*type, *msg, *op;
	int64_t			 code;
	int			 waiting = c->op != NULL;

	c->req[0] = NULL;
	if (err != NULL) {
		call_fail(c, "%s: %s", c->what, err);
		return;
	}
	if (resp->status == 404 && c->absent_ok && !waiting) {
		deliver(c, NULL);
		return;
	}
	if ((root = jparse(resp->body, resp->bodylen)) == NULL ||
	    (type = jstr(root, "type")) == NULL) {
		call_fail(c, "%s: HTTP %d %s with a body that is not an "
		    "Incus response", c->what, resp->status, resp->reason);
		json_object_put(root);
		return;
	}
	json_object_object_get_ex(root, "metadata", &md);
	/* the version of the instance read, for a later If-Match */
	if (c->tag_cb != NULL && !waiting && resp->status == 200 &&
	    http_response_header(resp, "ETag") != NULL && c->etag == NULL &&
	    (c->etag = strdup(http_response_header(resp, "ETag"))) == NULL) {
		call_fail(c, "%s: out of memory", c->what);
		json_object_put(root);
		return;
	}

	if (strcmp(type, "error") == 0) {
		msg = jstr(root, "error");
		/* a failed wait comes as HTTP 200: the code is in the body */
		if (jint(root, "error_code", &code) == -1 || code <= 0)
			code = resp->status;
		/* If-Match did not: the instance changed since it was read */
		if (!waiting && code == 412)
			c->stale = 1;
		/*
		 * Older Incus answer a wait that timed out with this error;
		 * the operation's own state says whether it really ended.
		 */
		if (waiting && msg != NULL &&
		    strstr(msg, "context deadline exceeded") != NULL)
			call_send(c, "GET", c->op, NULL, NULL, 0, NULL);
		else if (waiting && c->kind == CALL_EXEC && !c->reaping) {
			/*
			 * A failed exec still leaves its recorded output
			 * files; only the operation itself names them.
			 */
			call_note(c, "%s: operation failed: %s (%lld)",
			    c->what, msg && *msg ? msg : "no reason given",
			    (long long)code);
			c->reaping = 1;
			call_send(c, "GET", c->op, NULL, NULL, 0, NULL);
		} else if (waiting)
			call_fail(c, "%s: operation failed: %s (%lld)",
			    c->what, msg && *msg ? msg : "no reason given",
			    (long long)code);
		else
			call_fail(c, "%s: %s (HTTP %lld)", c->what,
			    msg && *msg ? msg : "no reason given",
			    (long long)code);
	} else if (strcmp(type, "async") == 0 && !waiting) {
		if ((op = jstr(root, "operation")) == NULL ||
		    strncmp(op, "/1.0/operations/", 16) != 0 ||
		    (c->op = strdup(op)) == NULL)
			call_fail(c, "%s: async response without an operation",
			    c->what);
		else {
			c->deadline = now_sec() + c->inc->op_timeout;
			op_wait(c);
		}
	} else if (strcmp(type, "sync") == 0) {
		if (waiting)
			op_state(c, md);
		else {
			if (md != NULL && json_object_is_type(md, json_type_null))
				md = NULL;
			c->then(c, md);
		}
	} else
		call_fail(c, "%s: unexpected response type \"%s\"", c->what,
		    type);
	json_object_put(root);
}

static void
op_wait(struct incus_call *c)
{
	char	path[256];
	time_t	left = c->deadline - now_sec();

	if (left > c->inc->wait_secs)
		left = c->inc->wait_secs;
	if (left < 1)
		left = 1;
	if (snprintf(path, sizeof(path), "%s/wait?timeout=%lld", c->op,
	    (long long)left) >= (int)sizeof(path)) {
		call_fail(c, "%s: operation path too long", c->what);
		return;
	}
	call_send(c, "GET", path, NULL, NULL, 0, NULL);
	if (c->req[0] != NULL)
		http_request_timeout(c->req[0], (int)(left + 30) * 1000);
}

/*
 * Send one request whose answer http_done() reads.  Failures while
 * building it are reported from the loop.
 */
static void
call_send(struct incus_call *c, const char *method, const char *path,
    const char *ctype, const void *body, size_t len,
    const char *const *hdrs)
{
	struct http_request	*r;
	size_t			 i;

	if ((r = http_request_new(c->inc->http, method, path)) == NULL) {
		call_fail_later(c, "%s: cannot build request %s %s", c->what,
		    method, path);
		return;
	}
	for (i = 0; hdrs != NULL && hdrs[i] != NULL; i += 2)
		if (http_request_header(r, hdrs[i], hdrs[i + 1]) == -1) {
			http_request_cancel(r);
			call_fail_later(c, "%s: bad header %s", c->what,
			    hdrs[i]);
			return;
		}
	if (ctype != NULL && http_request_body(r, ctype, body, len) == -1) {
		http_request_cancel(r);
		call_fail_later(c, "%s: out of memory", c->what);
		return;
	}
	c->req[0] = r;
	http_request_submit(r, http_done, c);
}

static void
call_send_json(struct incus_call *c, const char *method, const char *path,
    struct json_object *body)
{
	const char	*s;

	if (body == NULL) {
		call_send(c, method, path, NULL, NULL, 0, NULL);
		return;
	}
	s = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
	if (s == NULL) {
		call_fail_later(c, "%s: cannot encode the request", c->what);
		return;
	}
	call_send(c, method, path, "application/json", s, strlen(s), NULL);
}

/* The common case: one JSON request, result to the callback. */
static struct incus_call *
simple(struct incus *inc, const char *method, char *path,
    struct json_object *body, incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	const char		*s = NULL;
	int			 why = errno;	/* from building path */

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL) {
		free(path);
		return NULL;
	}
	c->then = deliver;
	if (path == NULL && why == EINVAL) {
		call_fail_later(c, "%s: empty or reserved name", method);
		return c;
	}
	if (path == NULL || asprintf(&c->what, "%s %s", method, path) == -1) {
		free(path);
		incus_cancel(c);
		return NULL;
	}
	/* a change is kept whole, to be sent again while the instance is busy */
	if (body != NULL && (s = json_object_to_json_string_ext(body,
	    JSON_C_TO_STRING_PLAIN)) == NULL)
		s = "";
	if (strcmp(method, "GET") != 0 && ((c->method = strdup(method)) ==
	    NULL || (c->path = strdup(path)) == NULL ||
	    (s != NULL && (c->body = strdup(s)) == NULL))) {
		free(path);
		incus_cancel(c);
		return NULL;
	}
	call_send_json(c, method, path, body);
	free(path);
	return c;
}

/* GET where 404 is an answer: the callback gets NULL and no error */
struct incus_call *
incus_get_maybe(struct incus *inc, const char *path, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;

	c = simple(inc, "GET", strdup(path), NULL, cb, arg);
	if (c != NULL)
		c->absent_ok = 1;
	return c;
}

/* an answer kept by incus_get_recent() that may still be given */
static struct recent *
recent_find(struct incus *inc, const char *path)
{
	struct recent	*k;
	int		 i;

	for (i = 0; i < RECENT_MAX; i++) {
		k = &inc->recent[i];
		if (k->path != NULL && strcmp(k->path, path) == 0 &&
		    k->changes == inc->changes &&
		    now_sec() - k->at < RECENT_SECS)
			return k;
	}
	return NULL;
}

static void
recent_keep(struct incus_call *c, struct json_object *md)
{
	struct incus	*inc = c->inc;
	struct recent	*k = NULL;
	int		 i;

	if (md != NULL && c->changes == inc->changes) {
		/* the one for this path, else a free one, else the oldest */
		for (i = 0; i < RECENT_MAX && k == NULL; i++)
			if (inc->recent[i].path != NULL &&
			    strcmp(inc->recent[i].path, c->keep) == 0)
				k = &inc->recent[i];
		for (i = 0; i < RECENT_MAX && k == NULL; i++)
			if (inc->recent[i].path == NULL)
				k = &inc->recent[i];
		if (k == NULL) {
			k = &inc->recent[0];
			for (i = 1; i < RECENT_MAX; i++)
				if (inc->recent[i].at < k->at)
					k = &inc->recent[i];
		}
		json_object_put(k->md);
		if (k->path == NULL || strcmp(k->path, c->keep) != 0) {
			free(k->path);
			k->path = c->keep;
			c->keep = NULL;
		}
		k->md = json_object_get(md);
		k->changes = inc->changes;
		k->at = now_sec();
	}
	deliver(c, md);
}

/* a GET of path answered with md, kept, from the loop */
static struct incus_call *
kept_answer(struct incus *inc, const char *path, struct json_object *md,
    incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	struct timeval		 tv = { 0, 0 };

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL)
		return NULL;
	if (asprintf(&c->what, "GET %s", path) == -1) {
		c->what = NULL;
		incus_cancel(c);
		return NULL;
	}
	c->kept = json_object_get(md);
	evtimer_add(c->defer, &tv);
	return c;
}

/* GET path, whose answer then may keep (under c->keep, the path) */
static struct incus_call *
keeping_get(struct incus *inc, const char *path, call_step then,
    incus_json_cb cb, void *arg)
{
	struct incus_call	*c;

	if ((c = simple(inc, "GET", strdup(path), NULL, cb, arg)) == NULL)
		return NULL;
	if ((c->keep = strdup(path)) == NULL) {
		incus_cancel(c);
		return NULL;
	}
	c->then = then;
	return c;
}

/*
 * GET path, or the answer to the same GET given less than RECENT_SECS
 * ago if no call that could change Incus (one that was no GET) has
 * ended since.  For what Incus builds from every instance and the
 * suite reads twice in one new (the bridge's leases, the default
 * profile); the answer comes from the loop, as every answer does.
 */
struct incus_call *
incus_get_recent(struct incus *inc, const char *path, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;
	struct recent		*k;

	if ((k = recent_find(inc, path)) != NULL)
		return kept_answer(inc, path, k->md, cb, arg);
	if ((c = keeping_get(inc, path, recent_keep, cb, arg)) != NULL)
		c->changes = inc->changes;
	return c;
}

/*
 * A network's record (GET /1.0/networks/NAME), kept for as long as the
 * event stream is open on a single server and says nothing of any
 * network.  Incus builds the record's used_by from every instance (40
 * ms with 200 held), though new reads only the bridge's subnet and DHCP
 * ranges from it; and the record changes only when someone changes a
 * network, which the stream tells.  An answer is kept only when the stream was
 * open before it was asked and nothing was told since: a change that
 * fell before the stream opened could otherwise stay unseen.
 */
static void
net_drop(struct incus *inc)
{
	free(inc->net_path);
	inc->net_path = NULL;
	json_object_put(inc->net_md);
	inc->net_md = NULL;
}

/* what the stream said may have changed any network */
static void
net_forget(struct incus *inc)
{
	inc->net_gen++;
	net_drop(inc);
}

static void
followed_keep(struct incus_call *c, struct json_object *md)
{
	struct incus	*inc = c->inc;

	if (md != NULL && inc->nets_followed && c->net_gen == inc->net_gen) {
		net_drop(inc);
		inc->net_md = json_object_get(md);
		inc->net_path = c->keep;
		c->keep = NULL;
	}
	deliver(c, md);
}

struct incus_call *
incus_get_followed(struct incus *inc, const char *path, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;

	if (inc->nets_followed && inc->net_md != NULL &&
	    strcmp(inc->net_path, path) == 0)
		return kept_answer(inc, path, inc->net_md, cb, arg);
	if ((c = keeping_get(inc, path, followed_keep, cb, arg)) != NULL)
		c->net_gen = inc->net_gen;
	return c;
}

void
incus_network_event(struct incus *inc)
{
	net_forget(inc);
}

struct incus_call *
incus_request(struct incus *inc, const char *method, const char *path,
    struct json_object *body, incus_json_cb cb, void *arg)
{
	return simple(inc, method, strdup(path), body, cb, arg);
}

struct incus_call *
incus_operation_wait(struct incus *inc, const char *op, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL)
		return NULL;
	c->then = deliver;
	if (asprintf(&c->what, "wait %s", op) == -1) {
		c->what = NULL;
		incus_cancel(c);
		return NULL;
	}
	if (strncmp(op, "/1.0/operations/", 16) != 0 ||
	    (c->op = strdup(op)) == NULL) {
		call_fail_later(c, "%s: not an operation path", c->what);
		return c;
	}
	c->deadline = now_sec() + inc->op_timeout;
	op_wait(c);
	return c;
}

struct incus_call *
incus_server_get(struct incus *inc, incus_json_cb cb, void *arg)
{
	return simple(inc, "GET", strdup("/1.0"), NULL, cb, arg);
}

static int
valid_key(const char *k)
{
	if (strncmp(k, "user.", 5) != 0 || k[5] == '\0')
		return 0;
	return strspn(k, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(k);
}

/* the next call taking the answer of list serial, or NULL */
static struct incus_call *
follower(struct incus *inc, uint64_t serial)
{
	struct incus_call	*f;

	TAILQ_FOREACH(f, &inc->calls, entry)
		if (f->follows == serial)
			return f;
	return NULL;
}

/*
 * Each call the list's answer is for, one at a time: a callback may
 * cancel or start any call, so the list of calls is searched again
 * after each.
 */
static void
followers_serve(struct incus *inc, uint64_t serial, struct json_object *md)
{
	struct incus_call	*f;

	while ((f = follower(inc, serial)) != NULL) {
		f->follows = 0;
		list_filter(f, md);
	}
}

static void
followers_fail(struct incus *inc, uint64_t serial, const char *err)
{
	struct incus_call	*f;

	while ((f = follower(inc, serial)) != NULL) {
		f->follows = 0;
		call_fail(f, "%s", err);
	}
}

static void
list_filter(struct incus_call *c, struct json_object *md)
{
	struct json_object	*out, *inst, *cfg, *v;
	struct incus		*inc = c->inc;
	uint64_t		 serial = c->serial;
	size_t			 i, n;

	/* its own asker first (c goes with that), then those who joined */
	if (serial != 0 && md != NULL && json_object_is_type(md,
	    json_type_array)) {
		c->serial = 0;
		if (c->token != 0) {
			instcache_fill(inc->icache, c->token, md);
			c->token = 0;
		}
		list_filter(c, md);
		followers_serve(inc, serial, md);
		cache_read_next(inc);
		return;
	}
	if (md == NULL || !json_object_is_type(md, json_type_array)) {
		call_fail(c, "%s: the answer is not a list", c->what);
		return;
	}
	if (c->key == NULL) {
		deliver(c, md);
		return;
	}
	if ((out = json_object_new_array()) == NULL) {
		call_fail(c, "%s: out of memory", c->what);
		return;
	}
	n = json_object_array_length(md);
	for (i = 0; i < n; i++) {
		inst = json_object_array_get_idx(md, i);
		if (!json_object_object_get_ex(inst, "config", &cfg) ||
		    !json_object_object_get_ex(cfg, c->key, &v) ||
		    !json_object_is_type(v, json_type_string))
			continue;
		if (c->value != NULL &&
		    strcmp(json_object_get_string(v), c->value) != 0)
			continue;
		json_object_array_add(out, json_object_get(inst));
	}
	deliver(c, out);
	json_object_put(out);
}

/*
 * Incus builds a list from every instance, and with hundreds of them
 * two lists asked at once (new asks for the addresses held and for
 * every mount source together) take twice the time of one.  So every
 * list is asked of Incus whole and narrowed to key (and value) here,
 * and a list asked while another is on its way takes that one's
 * answer, provided no call that could have changed an instance ended
 * since that one was asked: the answer then holds every change this
 * process has seen end.
 */
static void
list_ask(struct incus_call *c)
{
	struct incus		*inc = c->inc;
	struct incus_call	*l;

	TAILQ_FOREACH(l, &inc->calls, entry)
		if (l->serial != 0 && l->changes == inc->changes)
			break;
	if (l != NULL) {
		c->follows = l->serial;
		return;
	}
	c->serial = ++inc->serials;
	c->changes = inc->changes;
	c->token = instcache_asking(inc->icache);
	call_send(c, "GET", "/1.0/instances?recursion=1", NULL, NULL, 0, NULL);
}

/*
 * The lists waiting on the kept one: given it once every name is read
 * again, or asked of Incus whole if it was dropped meanwhile.
 */
static void
cache_serve(struct incus *inc)
{
	struct incus_call	*c;
	struct json_object	*kept;
	struct timeval		 tv = { 0, 0 };
	int			 again;

	if (instcache_waiting(inc->icache))
		return;
	do {
		again = 0;
		TAILQ_FOREACH(c, &inc->calls, entry) {
			if (!c->cache_wait)
				continue;
			c->cache_wait = 0;
			if ((kept = instcache_list(inc->icache)) != NULL) {
				c->kept = kept;
				evtimer_add(c->defer, &tv);
			} else {
				list_ask(c);
				again = 1;
				break;
			}
		}
	} while (again);
}

struct cache_read {
	struct incus	*inc;
	char		 name[];
};

static void
cache_got(void *arg, struct json_object *md, const char *err)
{
	struct cache_read	*cr = arg;
	struct incus		*inc = cr->inc;

	if (err != NULL) {
		log_warnx("reading instance %s again: %s; the kept list of "
		    "instances is dropped", cr->name, err);
		/* still to read into a list on its way */
		instcache_unread(inc->icache, cr->name);
		instcache_drop(inc->icache);
	} else
		instcache_read(inc->icache, cr->name, md);
	free(cr);
	cache_read_next(inc);
	cache_serve(inc);
}

/* each instance named since the list was kept, read again alone */
static void
cache_read_next(struct incus *inc)
{
	struct cache_read	*cr;
	const char		*name;
	size_t			 len;

	while ((name = instcache_to_read(inc->icache)) != NULL) {
		len = strlen(name) + 1;
		if ((cr = malloc(sizeof(*cr) + len)) == NULL)
			fatal("%s", __func__);
		cr->inc = inc;
		memcpy(cr->name, name, len);
		if (incus_get_maybe(inc, mkpath("/1.0/instances/%s", name),
		    cache_got, cr) == NULL) {
			instcache_unread(inc->icache, cr->name);
			free(cr);
			instcache_drop(inc->icache);
			break;
		}
	}
}

/*
 * A call that was no GET ended: the instance it was on is read again
 * before the kept list is given out; a rename, a new instance of no
 * known name, or anything else on /1.0/instances drops the list.
 * Exec, files and logs change nothing a list holds.
 */
static void
cache_changed(struct incus_call *c)
{
	struct instcache	*ic = c->inc->icache;
	const char		*p, *rest;
	char			 name[256];
	size_t			 n;

	if (c->iname != NULL) {
		instcache_dirty(ic, c->iname);
		return;
	}
	if (c->what == NULL || (p = strchr(c->what, ' ')) == NULL) {
		instcache_drop(ic);
		return;
	}
	p++;
	if (strncmp(p, "/1.0/instances", 14) != 0)
		return;
	if (strncmp(p, "/1.0/instances/", 15) != 0) {
		instcache_drop(ic);
		return;
	}
	p += 15;
	n = strcspn(p, "/?");
	rest = p + n;
	if (n == 0 || n >= sizeof(name)) {
		instcache_drop(ic);
		return;
	}
	if (strncmp(rest, "/exec", 5) == 0 || strncmp(rest, "/files", 6) == 0 ||
	    strncmp(rest, "/logs", 5) == 0)
		return;
	if (strncmp(c->what, "POST ", 5) == 0 && *rest != '/') {
		instcache_drop(ic);
		return;
	}
	memcpy(name, p, n);
	name[n] = '\0';
	instcache_dirty(ic, name);
}

void
incus_instance_event(struct incus *inc, const char *name, const char *action)
{
	if (strcmp(action, "instance-renamed") == 0)
		instcache_drop(inc->icache);
	else
		instcache_dirty(inc->icache, name);
}

static void
events_server(void *arg, struct json_object *srv, const char *err)
{
	struct incus		*inc = arg;
	struct json_object	*env, *v;

	/* the stream was lost meanwhile: nothing may be kept */
	if (!inc->ev_asking)
		return;
	inc->ev_asking = 0;
	if (err != NULL || srv == NULL ||
	    !json_object_object_get_ex(srv, "environment", &env) ||
	    !json_object_object_get_ex(env, "server_clustered", &v) ||
	    json_object_get_boolean(v))
		return;
	instcache_open(inc->icache);
	inc->nets_followed = 1;
}

/*
 * The event stream is open: lists asked from now on may be kept, on a
 * single server.  A cluster member's stream carries the others' events
 * only once Incus has joined their streams, so there nothing is kept.
 */
void
incus_events_open(struct incus *inc)
{
	instcache_lost(inc->icache);
	inc->nets_followed = 0;
	net_forget(inc);
	inc->ev_asking = 1;
	if (incus_server_get(inc, events_server, inc) == NULL) {
		inc->ev_asking = 0;
		log_warnx("cannot ask incusd whether it is clustered");
	}
}

void
incus_events_lost(struct incus *inc)
{
	inc->ev_asking = 0;
	instcache_lost(inc->icache);
	inc->nets_followed = 0;
	net_forget(inc);
}

struct incus_call *
incus_instances_list(struct incus *inc, const char *key, const char *value,
    incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	struct json_object	*kept;
	struct timeval		 tv = { 0, 0 };

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL)
		return NULL;
	c->then = list_filter;
	if ((c->what = strdup("GET /1.0/instances")) == NULL)
		goto nomem;
	if (key != NULL && !valid_key(key)) {
		call_fail_later(c, "%s: bad config key \"%s\"", c->what, key);
		return c;
	}
	if ((key != NULL && (c->key = strdup(key)) == NULL) ||
	    (value != NULL && (c->value = strdup(value)) == NULL))
		goto nomem;
	if ((kept = instcache_list(inc->icache)) != NULL) {
		c->kept = kept;
		evtimer_add(c->defer, &tv);
		return c;
	}
	if (instcache_waiting(inc->icache)) {
		c->cache_wait = 1;
		cache_read_next(inc);
		return c;
	}
	list_ask(c);
	return c;
nomem:
	incus_cancel(c);
	return NULL;
}

struct incus_call *
incus_instance_get(struct incus *inc, const char *name, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;

	c = simple(inc, "GET", mkpath("/1.0/instances/%s", name), NULL, cb,
	    arg);
	if (c != NULL)
		c->absent_ok = 1;
	return c;
}

/* an object and its ETag (path as mkpath made it, or NULL) */
static struct incus_call *
get_tagged(struct incus *inc, char *path, incus_tag_cb cb, void *arg)
{
	struct incus_call	*c;

	c = simple(inc, "GET", path, NULL, NULL, arg);
	if (c != NULL) {
		c->absent_ok = 1;
		c->tag_cb = cb;
	}
	return c;
}

/* the instance and its ETag: what a conditional write names */
struct incus_call *
incus_instance_get_tagged(struct incus *inc, const char *name,
    incus_tag_cb cb, void *arg)
{
	return get_tagged(inc, mkpath("/1.0/instances/%s", name), cb, arg);
}

/* a cluster member and its ETag */
struct incus_call *
incus_member_get_tagged(struct incus *inc, const char *name,
    incus_tag_cb cb, void *arg)
{
	return get_tagged(inc, mkpath("/1.0/cluster/members/%s", name), cb,
	    arg);
}

static struct incus_call	*write_tagged(struct incus *, const char *,
				    char *, int, struct json_object *,
				    const char *, incus_tag_cb, void *);

struct incus_call *
incus_instance_write(struct incus *inc, const char *method, const char *name,
    struct json_object *body, const char *etag, incus_tag_cb cb, void *arg)
{
	char	*path = mkpath("/1.0/instances/%s", name);

	return write_tagged(inc, method, path, errno, body, etag, cb, arg);
}

struct incus_call *
incus_member_write(struct incus *inc, const char *name,
    struct json_object *body, const char *etag, incus_tag_cb cb, void *arg)
{
	char	*path = mkpath("/1.0/cluster/members/%s", name);

	return write_tagged(inc, "PUT", path, errno, body, etag, cb, arg);
}

/* a write only if the object is still at etag; why: mkpath's errno */
static struct incus_call *
write_tagged(struct incus *inc, const char *method, char *path, int why,
    struct json_object *body, const char *etag, incus_tag_cb cb, void *arg)
{
	struct incus_call	*c;
	const char		*hdrs[] = { "If-Match", etag, NULL };
	const char		*s;

	if ((c = call_new(inc, CALL_JSON, NULL, arg)) == NULL) {
		free(path);
		return NULL;
	}
	c->then = deliver;
	c->tag_cb = cb;
	if (path == NULL && why == EINVAL) {
		call_fail_later(c, "%s: empty or reserved name", method);
		return c;
	}
	if (path == NULL || asprintf(&c->what, "%s %s", method, path) == -1) {
		c->what = NULL;
		free(path);
		incus_cancel(c);
		return NULL;
	}
	if (etag == NULL || *etag == '\0') {
		free(path);
		call_fail_later(c, "%s: no ETag to send", c->what);
		return c;
	}
	if ((s = json_object_to_json_string_ext(body,
	    JSON_C_TO_STRING_PLAIN)) == NULL)
		call_fail_later(c, "%s: cannot encode the request", c->what);
	else
		call_send(c, method, path, "application/json", s, strlen(s),
		    hdrs);
	free(path);
	return c;
}

/* the name a creation's body gives, for the kept list of instances */
static struct incus_call *
named(struct incus_call *c, struct json_object *req)
{
	struct json_object	*v;

	if (c != NULL && json_object_object_get_ex(req, "name", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    (c->iname = strdup(json_object_get_string(v))) == NULL) {
		incus_cancel(c);
		return NULL;
	}
	return c;
}

struct incus_call *
incus_instance_create(struct incus *inc, struct json_object *req,
    incus_json_cb cb, void *arg)
{
	return named(simple(inc, "POST", strdup("/1.0/instances"), req, cb,
	    arg), req);
}

/* the same, placed on the cluster member target (checked by the caller) */
struct incus_call *
incus_instance_create_at(struct incus *inc, struct json_object *req,
    const char *target, incus_json_cb cb, void *arg)
{
	char	*path;

	if (asprintf(&path, "/1.0/instances?target=%s", target) == -1)
		path = NULL;
	return named(simple(inc, "POST", path, req, cb, arg), req);
}

struct incus_call *
incus_instance_state(struct incus *inc, const char *name, const char *action,
    int force, int timeout, incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	struct json_object	*b;

	if ((b = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(b, "action", json_object_new_string(action));
	json_object_object_add(b, "force", json_object_new_boolean(force));
	if (timeout >= 0)
		json_object_object_add(b, "timeout",
		    json_object_new_int(timeout));
	c = simple(inc, "PUT", mkpath("/1.0/instances/%s/state", name), b, cb,
	    arg);
	json_object_put(b);
	return c;
}

struct incus_call *
incus_instance_delete(struct incus *inc, const char *name, incus_json_cb cb,
    void *arg)
{
	return simple(inc, "DELETE", mkpath("/1.0/instances/%s", name), NULL,
	    cb, arg);
}

struct incus_call *
incus_instance_patch(struct incus *inc, const char *name,
    struct json_object *patch, incus_json_cb cb, void *arg)
{
	return simple(inc, "PATCH", mkpath("/1.0/instances/%s", name), patch,
	    cb, arg);
}

/*
 * Exec: POST exec, wait, then fetch both recorded outputs at once; the
 * caller has its answer then, and both are deleted after (Incus keeps
 * them forever otherwise), with nobody waiting on the deletes.
 */
static void
exec_answer(struct incus_call *c)
{
	struct incus_exec_result	xr;

	memset(&xr, 0, sizeof(xr));
	xr.status = c->status;
	xr.out = c->out[0] ? c->out[0] : "";
	xr.outlen = c->outlen[0];
	xr.err = c->out[1] ? c->out[1] : "";
	xr.errlen = c->outlen[1];
	c->answered = 1;
	c->exec_cb(c->arg, c->ran ? &xr : NULL, c->failmsg);
	free(c->failmsg);
	c->failmsg = NULL;
}

static void
exec_finish(struct incus_call *c)
{
	struct incus_exec_result	xr;

	/* answered already: only a failed delete is left to tell */
	if (c->answered) {
		TAILQ_REMOVE(&c->inc->calls, c, entry);
		if (c->failmsg != NULL)
			log_warnx("%s", c->failmsg);
		call_free(c);
		return;
	}
	memset(&xr, 0, sizeof(xr));
	xr.status = c->status;
	xr.out = c->out[0] ? c->out[0] : "";
	xr.outlen = c->outlen[0];
	xr.err = c->out[1] ? c->out[1] : "";
	xr.errlen = c->outlen[1];
	call_finish(c, NULL, c->ran ? &xr : NULL, NULL);
}

static void
exec_note_error(struct incus_call *c, const char *what, int i,
    struct http_response *resp, const char *err)
{
	struct json_object	*root = NULL;
	const char		*msg;
	int			 rv;

	if (c->failmsg != NULL)
		return;
	if (err != NULL)
		rv = asprintf(&c->failmsg, "%s: %s %s: %s", c->what, what,
		    c->outpath[i], err);
	else {
		root = jparse(resp->body, resp->bodylen);
		msg = jstr(root, "error");
		rv = asprintf(&c->failmsg, "%s: %s %s: %s (HTTP %d)", c->what,
		    what, c->outpath[i], msg && *msg ? msg : resp->reason,
		    resp->status);
	}
	if (rv == -1)
		c->failmsg = NULL;
	json_object_put(root);
}

static void
exec_deleted(struct incus_call *c, int i, struct http_response *resp,
    const char *err)
{
	c->req[i] = NULL;
	if (err != NULL || resp->status / 100 != 2)
		exec_note_error(c, "deleting", i, resp, err);
	if (--c->pending == 0)
		exec_finish(c);
}

static void
exec_deleted0(struct http_response *resp, const char *err, void *arg)
{
	exec_deleted(arg, 0, resp, err);
}

static void
exec_deleted1(struct http_response *resp, const char *err, void *arg)
{
	exec_deleted(arg, 1, resp, err);
}

static void
exec_send(struct incus_call *c, int i, const char *method, http_cb cb)
{
	struct http_request	*r;

	if ((r = http_request_new(c->inc->http, method, c->outpath[i])) ==
	    NULL) {
		if (c->failmsg == NULL && asprintf(&c->failmsg, "%s: bad "
		    "output path %s", c->what, c->outpath[i]) == -1)
			c->failmsg = NULL;
		return;
	}
	c->req[i] = r;
	c->pending++;
	http_request_submit(r, cb, c);
}

/* the answer to the caller, then the recorded files deleted */
static void
exec_answer_delete(struct incus_call *c)
{
	int	i;

	exec_answer(c);
	for (i = 0; i < 2; i++)
		exec_send(c, i, "DELETE", i == 0 ? exec_deleted0 :
		    exec_deleted1);
	if (c->pending == 0)
		exec_finish(c);
}

static void
exec_got(struct incus_call *c, int i, struct http_response *resp,
    const char *err)
{

	c->req[i] = NULL;
	if (err != NULL || resp->status != 200)
		exec_note_error(c, "fetching", i, resp, err);
	else {
		/* take the body rather than copy what may be 64 MiB */
		c->out[i] = resp->body;
		c->outlen[i] = resp->bodylen;
		resp->body = NULL;
		resp->bodylen = 0;
	}
	if (--c->pending > 0)
		return;
	exec_answer_delete(c);
}

static void
exec_got0(struct http_response *resp, const char *err, void *arg)
{
	exec_got(arg, 0, resp, err);
}

static void
exec_got1(struct http_response *resp, const char *err, void *arg)
{
	exec_got(arg, 1, resp, err);
}

static void
exec_ran(struct incus_call *c, struct json_object *md)
{
	struct json_object	*out;
	const char		*p;
	int64_t			 rv;
	int			 i;

	if (jint(md, "return", &rv) == -1) {
		call_fail(c, "%s: no exit status in %s", c->what,
		    md ? json_object_to_json_string(md) : "null");
		return;
	}
	c->ran = 1;
	c->status = (int)rv;
	if (!json_object_object_get_ex(md, "output", &out)) {
		call_fail(c, "%s: no recorded output", c->what);
		return;
	}
	for (i = 0; i < 2; i++) {
		p = jstr(out, i == 0 ? "1" : "2");
		if (p == NULL || strncmp(p, "/1.0/", 5) != 0 ||
		    (c->outpath[i] = strdup(p)) == NULL) {
			call_fail(c, "%s: bad recorded output in %s", c->what,
			    json_object_to_json_string(out));
			return;
		}
	}
	/* nothing to read: answered now, the files deleted after */
	if (c->quiet_ok && c->status == 0) {
		exec_answer_delete(c);
		return;
	}
	for (i = 0; i < 2; i++)
		exec_send(c, i, "GET", i == 0 ? exec_got0 : exec_got1);
	if (c->pending == 0)
		exec_finish(c);
}

/* The command did not run, but Incus made its output files: delete them. */
static void
exec_reap(struct incus_call *c, struct json_object *md)
{
	struct json_object	*out;
	const char		*p;
	int			 i;

	c->reaping = 1;
	if (md != NULL && json_object_object_get_ex(md, "output", &out)) {
		for (i = 0; i < 2; i++) {
			p = jstr(out, i == 0 ? "1" : "2");
			if (p == NULL || strncmp(p, "/1.0/", 5) != 0 ||
			    (c->outpath[i] = strdup(p)) == NULL)
				continue;
			exec_send(c, i, "DELETE", i == 0 ? exec_deleted0 :
			    exec_deleted1);
		}
	}
	if (c->pending == 0)
		exec_finish(c);
}

/*
 * The body of POST /1.0/instances/NAME/exec, for both ways of running:
 * output recorded by Incus (websockets 0), or streamed over websockets.
 * uid or gid -1: Incus's default (root).
 */
struct json_object *
incus_exec_body(const char *const *argv, const char *const *envp,
    const char *cwd, int64_t uid, int64_t gid, int interactive,
    int websockets, unsigned int cols, unsigned int rows)
{
	struct json_object	*b, *cmd, *env;
	const char		*eq;
	char			*k;
	size_t			 i;

	if ((b = json_object_new_object()) == NULL)
		return NULL;
	cmd = json_object_new_array();
	env = json_object_new_object();
	json_object_object_add(b, "command", cmd);
	json_object_object_add(b, "environment", env);
	if (cmd == NULL || env == NULL)
		goto fail;
	for (i = 0; argv[i] != NULL; i++)
		if (json_object_array_add(cmd,
		    json_object_new_string(argv[i])) != 0)
			goto fail;
	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		if ((eq = strchr(envp[i], '=')) == NULL || eq == envp[i] ||
		    (k = strndup(envp[i], eq - envp[i])) == NULL)
			goto fail;
		json_object_object_add(env, k, json_object_new_string(eq + 1));
		free(k);
	}
	json_object_object_add(b, "interactive",
	    json_object_new_boolean(interactive));
	json_object_object_add(b, "wait-for-websocket",
	    json_object_new_boolean(websockets));
	json_object_object_add(b, "record-output",
	    json_object_new_boolean(!websockets));
	if (cwd != NULL)
		json_object_object_add(b, "cwd", json_object_new_string(cwd));
	if (uid >= 0)
		json_object_object_add(b, "user", json_object_new_int64(uid));
	if (gid >= 0)
		json_object_object_add(b, "group", json_object_new_int64(gid));
	if (interactive && cols > 0 && rows > 0) {
		json_object_object_add(b, "width", json_object_new_int64(cols));
		json_object_object_add(b, "height", json_object_new_int64(rows));
	}
	return b;
fail:
	json_object_put(b);
	return NULL;
}

struct incus_call *
incus_exec(struct incus *inc, const char *name, const struct incus_exec *x,
    incus_exec_cb cb, void *arg)
{
	struct incus_call	*c;
	struct json_object	*b;
	char			*path;

	if ((c = call_new(inc, CALL_EXEC, (void *)cb, arg)) == NULL)
		return NULL;
	c->then = exec_ran;
	c->quiet_ok = x->quiet_ok;
	if (!name_ok(name)) {
		call_fail_later(c, "exec: empty or reserved instance name");
		return c;
	}
	path = mkpath("/1.0/instances/%s/exec", name);
	if (path == NULL || asprintf(&c->what, "POST %s", path) == -1) {
		free(path);
		incus_cancel(c);
		return NULL;
	}
	if (x->argv == NULL || x->argv[0] == NULL)
		call_fail_later(c, "%s: empty command", c->what);
	else if ((b = incus_exec_body(x->argv, x->env, x->cwd, x->uid,
	    x->gid, 0, 0, 0, 0)) == NULL)
		call_fail_later(c, "%s: bad environment entry", c->what);
	else {
		call_send_json(c, "POST", path, b);
		json_object_put(b);
	}
	free(path);
	return c;
}

/* Files. */
static char *
file_path(const char *name, const char *path)
{
	char	*p, *q, *out;

	if ((p = mkpath("/1.0/instances/%s/files", name)) == NULL)
		return NULL;
	if ((q = http_escape(path)) == NULL || asprintf(&out, "%s?path=%s",
	    p, q) == -1)
		out = NULL;
	free(p);
	free(q);
	return out;
}

struct incus_call *
incus_file_push(struct incus *inc, const char *name, const char *path,
    const struct incus_file *f, incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	const char		*hdrs[11];
	char			*p, uid[16], gid[16], mode[16];
	size_t			 n = 0;

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL)
		return NULL;
	c->then = deliver;
	if (!name_ok(name)) {
		call_fail_later(c, "file push: empty or reserved instance name");
		return c;
	}
	if ((p = file_path(name, path)) == NULL ||
	    asprintf(&c->what, "POST %s", p) == -1) {
		free(p);
		incus_cancel(c);
		return NULL;
	}
	if (*path != '/') {
		call_fail_later(c, "%s: path is not absolute", c->what);
		free(p);
		return c;
	}
	hdrs[n++] = "X-Incus-type";
	hdrs[n++] = f->type ? f->type : "file";
	if (f->uid >= 0) {
		snprintf(uid, sizeof(uid), "%d", f->uid);
		hdrs[n++] = "X-Incus-uid";
		hdrs[n++] = uid;
	}
	if (f->gid >= 0) {
		snprintf(gid, sizeof(gid), "%d", f->gid);
		hdrs[n++] = "X-Incus-gid";
		hdrs[n++] = gid;
	}
	if (f->mode >= 0) {
		snprintf(mode, sizeof(mode), "%04o", (unsigned)f->mode & 07777);
		hdrs[n++] = "X-Incus-mode";
		hdrs[n++] = mode;
	}
	hdrs[n++] = "X-Incus-write";
	hdrs[n++] = f->append ? "append" : "overwrite";
	hdrs[n] = NULL;
	/*
	 * Without this content type Incus answers 200 and writes an empty
	 * file, so it is sent even for an empty body.
	 */
	call_send(c, "POST", p, "application/octet-stream", f->data,
	    f->data ? f->len : 0, hdrs);
	free(p);
	return c;
}

static int
header_int(const struct http_response *r, const char *name, int base)
{
	const char	*v = http_response_header(r, name);
	char		*end;
	long		 l;

	if (v == NULL || *v == '\0')
		return -1;
	errno = 0;
	l = strtol(v, &end, base);
	if (*end != '\0' || errno != 0 || l < 0 || l > INT32_MAX)
		return -1;
	return (int)l;
}

static void
pull_done(struct http_response *resp, const char *err, void *arg)
{
	struct incus_call	*c = arg;
	struct incus_file	 f;
	struct json_object	*root;
	const char		*msg;

	c->req[0] = NULL;
	if (err != NULL) {
		call_fail(c, "%s: %s", c->what, err);
		return;
	}
	if (resp->status != 200) {
		root = jparse(resp->body, resp->bodylen);
		msg = jstr(root, "error");
		call_fail(c, "%s: %s (HTTP %d)", c->what,
		    msg && *msg ? msg : resp->reason, resp->status);
		json_object_put(root);
		return;
	}
	memset(&f, 0, sizeof(f));
	f.type = http_response_header(resp, "X-Incus-type");
	if (f.type == NULL)
		f.type = "file";
	f.uid = header_int(resp, "X-Incus-uid", 10);
	f.gid = header_int(resp, "X-Incus-gid", 10);
	f.mode = header_int(resp, "X-Incus-mode", 8);
	f.data = resp->body;
	f.len = resp->bodylen;
	call_finish(c, NULL, NULL, &f);
}

struct incus_call *
incus_file_pull(struct incus *inc, const char *name, const char *path,
    incus_file_cb cb, void *arg)
{
	struct incus_call	*c;
	struct http_request	*r;
	char			*p;

	if ((c = call_new(inc, CALL_PULL, (void *)cb, arg)) == NULL)
		return NULL;
	if (!name_ok(name)) {
		call_fail_later(c, "file pull: empty or reserved instance name");
		return c;
	}
	if ((p = file_path(name, path)) == NULL ||
	    asprintf(&c->what, "GET %s", p) == -1) {
		free(p);
		incus_cancel(c);
		return NULL;
	}
	if ((r = http_request_new(inc->http, "GET", p)) == NULL)
		call_fail_later(c, "%s: cannot build the request", c->what);
	else {
		c->req[0] = r;
		http_request_submit(r, pull_done, c);
	}
	free(p);
	return c;
}

/* Snapshots. */
struct incus_call *
incus_snapshot_create(struct incus *inc, const char *name, const char *snap,
    incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	struct json_object	*b;

	if ((b = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(b, "name", json_object_new_string(snap));
	c = simple(inc, "POST", mkpath("/1.0/instances/%s/snapshots", name),
	    b, cb, arg);
	json_object_put(b);
	return c;
}

struct incus_call *
incus_snapshot_delete(struct incus *inc, const char *name, const char *snap,
    incus_json_cb cb, void *arg)
{
	return simple(inc, "DELETE", mkpath("/1.0/instances/%s/snapshots/%s",
	    name, snap), NULL, cb, arg);
}

struct incus_call *
incus_snapshot_restore(struct incus *inc, const char *name, const char *snap,
    incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	struct json_object	*b;

	if ((b = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(b, "restore", json_object_new_string(snap));
	c = simple(inc, "PUT", mkpath("/1.0/instances/%s", name), b, cb, arg);
	json_object_put(b);
	return c;
}

/* Images. */
struct incus_call *
incus_images_list(struct incus *inc, incus_json_cb cb, void *arg)
{
	return simple(inc, "GET", strdup("/1.0/images?recursion=1"), NULL, cb,
	    arg);
}

struct incus_call *
incus_image_alias_get(struct incus *inc, const char *alias, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;

	c = simple(inc, "GET", mkpath("/1.0/images/aliases/%s", alias), NULL,
	    cb, arg);
	if (c != NULL)
		c->absent_ok = 1;
	return c;
}

struct incus_call *
incus_image_get(struct incus *inc, const char *fingerprint, incus_json_cb cb,
    void *arg)
{
	struct incus_call	*c;

	c = simple(inc, "GET", mkpath("/1.0/images/%s", fingerprint), NULL,
	    cb, arg);
	if (c != NULL)
		c->absent_ok = 1;
	return c;
}

static void
import_aliased(struct incus_call *c, struct json_object *md)
{
	struct json_object	*res;

	if ((res = json_object_new_object()) == NULL) {
		call_fail(c, "%s: out of memory", c->what);
		return;
	}
	json_object_object_add(res, "fingerprint",
	    json_object_new_string(c->fingerprint));
	deliver(c, res);
	json_object_put(res);
}

/*
 * The alias is made by a second request: the X-Incus-aliases header is
 * not honoured by every Incus version for a raw upload.
 */
static void
import_done(struct incus_call *c, struct json_object *md)
{
	struct json_object	*b;
	const char		*fp = jstr(md, "fingerprint");

	if (fp == NULL || (c->fingerprint = strdup(fp)) == NULL) {
		call_fail(c, "%s: no fingerprint in the result", c->what);
		return;
	}
	if (c->alias == NULL) {
		import_aliased(c, NULL);
		return;
	}
	free(c->op);
	c->op = NULL;
	free(c->what);
	if (asprintf(&c->what, "POST /1.0/images/aliases (%s)", c->alias) ==
	    -1 || (b = json_object_new_object()) == NULL) {
		c->what = NULL;
		call_fail(c, "image import: out of memory");
		return;
	}
	json_object_object_add(b, "name", json_object_new_string(c->alias));
	json_object_object_add(b, "target", json_object_new_string(fp));
	c->then = import_aliased;
	call_send_json(c, "POST", "/1.0/images/aliases", b);
	json_object_put(b);
}

struct incus_call *
incus_image_import(struct incus *inc, const void *data, size_t len,
    const char *alias, incus_json_cb cb, void *arg)
{
	struct incus_call	*c;

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL)
		return NULL;
	c->then = import_done;
	if ((c->what = strdup("POST /1.0/images")) == NULL ||
	    (alias != NULL && (c->alias = strdup(alias)) == NULL)) {
		incus_cancel(c);
		return NULL;
	}
	call_send(c, "POST", "/1.0/images", "application/octet-stream", data,
	    len, NULL);
	return c;
}

/*
 * The same, streamed from fd (len bytes, the caller keeps the fd open
 * until the callback).  With fp, Incus checks the upload against it.
 */
struct incus_call *
incus_image_import_fd(struct incus *inc, int fd, size_t len, const char *fp,
    const char *alias, incus_json_cb cb, void *arg)
{
	struct incus_call	*c;
	struct http_request	*r;

	if ((c = call_new(inc, CALL_JSON, (void *)cb, arg)) == NULL)
		return NULL;
	c->then = import_done;
	if ((c->what = strdup("POST /1.0/images")) == NULL ||
	    (alias != NULL && (c->alias = strdup(alias)) == NULL)) {
		incus_cancel(c);
		return NULL;
	}
	if ((r = http_request_new(inc->http, "POST", "/1.0/images")) == NULL ||
	    (fp != NULL && http_request_header(r, "X-Incus-fingerprint", fp)
	    == -1) || http_request_body_fd(r, "application/octet-stream", fd,
	    len) == -1) {
		if (r != NULL)
			http_request_cancel(r);
		call_fail_later(c, "%s: cannot build the request", c->what);
		return c;
	}
	/* the upload itself may take long; its operation is waited for */
	http_request_timeout(r, inc->op_timeout * 1000);
	c->req[0] = r;
	http_request_submit(r, http_done, c);
	return c;
}

struct incus_call *
incus_image_delete(struct incus *inc, const char *fingerprint,
    incus_json_cb cb, void *arg)
{
	return simple(inc, "DELETE", mkpath("/1.0/images/%s", fingerprint),
	    NULL, cb, arg);
}
