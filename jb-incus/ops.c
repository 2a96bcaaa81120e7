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
 * The requests' front door and their common life: the protocol checks,
 * one struct op_req per request, the DONE that ends it, and the small
 * requests (NETINFO, LIST).  ACTION is in ops_action.c, CREATE in
 * ops_create.c, EXEC in ops_exec.c.
 */

#include <sys/queue.h>

#include <arpa/inet.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>

#include "bound.h"
#include "exec.h"
#include "gate.h"
#include "incus.h"
#include "log.h"
#include "proc.h"
#include "names.h"
#include "nicname.h"
#include "ops.h"

/* writes refused because the instance changed meanwhile, before giving up */
#define STALE_TRIES	10

struct incus		*ops_ic;
char			 ops_bridge[16];
struct op_reqs		 ops_reqs = TAILQ_HEAD_INITIALIZER(ops_reqs);
static struct child	*ops_child;

static void	op_server(uint32_t);
static void	copy_str(char *, size_t, const char *);
static void	op_netinfo(uint32_t);
static void	op_list(uint32_t, const struct jb_incus_target *);

void
ops_init(struct child *c, struct incus *ic, const char *bridge)
{
	size_t	len;

	if (bridge == NULL)
		fatalx("%s: no Incus bridge given (-b)", c->name);
	len = strlen(bridge);
	/* an interface name, and a plain segment of the network's URL */
	if (len == 0 || len >= sizeof(ops_bridge) ||
	    strspn(bridge, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != len)
		fatalx("%s: bad bridge name \"%s\"", c->name, bridge);
	(void)strlcpy(ops_bridge, bridge, sizeof(ops_bridge));
	ops_child = c;
	ops_ic = ic;
}

static void
get_exact(struct imsg *imsg, void *p, size_t len)
{
	if (imsg_get_data(imsg, p, len) == -1)
		fatalx("%s from the parent: %zu bytes, want %zu",
		    jb_imsg_name(imsg_get_type(imsg)), imsg_get_len(imsg),
		    len);
}

int
ops_dispatch(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	 t;
	struct jb_incus_action	 a;
	struct jb_winsize	 ws;
	struct jb_incus_create	*cr;
	struct jb_incus_exec	*ex;
	struct jb_disk		*dk;
	uint32_t		 type = imsg_get_type(imsg);
	uint32_t		 rid = imsg_get_id(imsg);

	if (type != IMSG_INCUS_RESIZE && type != IMSG_INCUS_EXEC_KILL &&
	    req_find(rid, 0) != NULL)
		fatalx("%s from the parent: request id %u is still in use",
		    jb_imsg_name(type), rid);

	switch (type) {
	case IMSG_INCUS_NETINFO:
		if (imsg_get_len(imsg) != 0)
			fatalx("NETINFO from the parent with a payload");
		op_netinfo(rid);
		break;
	case IMSG_INCUS_SERVER:
		if (imsg_get_len(imsg) != 0)
			fatalx("SERVER from the parent with a payload");
		op_server(rid);
		break;
	case IMSG_INCUS_ADDRS:
		if (imsg_get_len(imsg) != 0)
			fatalx("ADDRS from the parent with a payload");
		op_addrs(rid);
		break;
	case IMSG_INCUS_LIST:
		get_exact(imsg, &t, sizeof(t));
		op_list(rid, &t);
		break;
	case IMSG_INCUS_ACTION:
		get_exact(imsg, &a, sizeof(a));
		op_action(rid, &a);
		break;
	case IMSG_INCUS_CREATE:
		/* 11 kB: not for the stack */
		if ((cr = malloc(sizeof(*cr))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, cr, sizeof(*cr));
		op_create(rid, cr);
		free(cr);
		break;
	case IMSG_INCUS_EXEC:
		if ((ex = malloc(sizeof(*ex))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, ex, sizeof(*ex));
		op_exec(rid, ex);
		free(ex);
		break;
	case IMSG_INCUS_RESIZE:
		get_exact(imsg, &ws, sizeof(ws));
		op_resize(rid, &ws);
		break;
	case IMSG_INCUS_EXEC_KILL:
		if (imsg_get_len(imsg) != 0)
			fatalx("EXEC_KILL from the parent with a payload");
		op_exec_kill(rid);
		break;
	case IMSG_INCUS_DISK_ADD:
	case IMSG_INCUS_DISK_REMOVE:
		if ((dk = malloc(sizeof(*dk))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, dk, sizeof(*dk));
		op_disk(rid, type, dk);
		free(dk);
		break;
	case IMSG_INCUS_DISK_LIST:
		get_exact(imsg, &t, sizeof(t));
		op_disk_list(rid, &t);
		break;
	case IMSG_INCUS_PORT_ADD:
	case IMSG_INCUS_PORT_REMOVE: {
		struct jb_port	q;

		get_exact(imsg, &q, sizeof(q));
		if (type == IMSG_INCUS_PORT_ADD)
			op_port_add(rid, &q);
		else
			op_port_remove(rid, &q);
		break;
	}
	case IMSG_INCUS_PORT_LIST:
		get_exact(imsg, &t, sizeof(t));
		op_port_list(rid, &t);
		break;
	case IMSG_INCUS_IMAGE_IMPORT: {
		struct jb_image_import	*q;

		if ((q = malloc(sizeof(*q))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, q, sizeof(*q));
		op_image_import(rid, q, imsg_get_fd(imsg));
		free(q);
		break;
	}
	case IMSG_INCUS_HOSTS: {
		struct jb_hosts_pin	*q;

		if ((q = malloc(sizeof(*q))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, q, sizeof(*q));
		op_hosts(rid, q);
		free(q);
		break;
	}
	case IMSG_INCUS_IMAGE_ALIAS:
		get_exact(imsg, &t, sizeof(t));
		op_image_alias(rid, &t);
		break;
	case IMSG_INCUS_LIMITS_SET: {
		struct jb_limits	q;

		get_exact(imsg, &q, sizeof(q));
		op_limits_set(rid, &q);
		break;
	}
	case IMSG_INCUS_LIMITS_GET:
		get_exact(imsg, &t, sizeof(t));
		op_limits_get(rid, &t);
		break;
	case IMSG_INCUS_SFTP_HELPER:
		get_exact(imsg, &t, sizeof(t));
		op_sftp_helper(rid, &t, imsg_get_fd(imsg));
		break;
	case IMSG_INCUS_POLICIES:
		get_exact(imsg, &t, sizeof(t));
		op_policies(rid, &t);
		break;
	case IMSG_INCUS_POLICY_SET:
	case IMSG_INCUS_CREATE_POLICY: {
		struct jb_policy	*q;

		if ((q = malloc(sizeof(*q))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, q, sizeof(*q));
		if (type == IMSG_INCUS_POLICY_SET)
			op_policy_set(rid, q);
		else
			op_create_policy(rid, q);
		free(q);
		break;
	}
	case IMSG_INCUS_GATE_ADD:
		get_exact(imsg, &t, sizeof(t));
		op_gate_add(rid, &t);
		break;
	case IMSG_INCUS_EXTRA_SET: {
		struct jb_incus_extra	*x;

		if ((x = malloc(sizeof(*x))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, x, sizeof(*x));
		op_extra_set(rid, x);
		free(x);
		break;
	}
	case IMSG_INCUS_MEMBOX_GET:
	case IMSG_INCUS_MEMBOX_SET: {
		struct jb_membox	*m;

		if ((m = malloc(sizeof(*m))) == NULL)
			fatal("%s", __func__);
		get_exact(imsg, m, sizeof(*m));
		op_membox(rid, type, m);
		free(m);
		break;
	}
	case IMSG_INCUS_FOLLOW:
		if (imsg_get_len(imsg) != 0)
			fatalx("%s from the parent with a payload",
			    jb_imsg_name(type));
		events_follow(rid);
		break;
	case IMSG_INCUS_IMAGES:
	case IMSG_INCUS_IMAGE_PRUNE:
		if (imsg_get_len(imsg) != 0)
			fatalx("%s from the parent with a payload",
			    jb_imsg_name(type));
		op_images(rid, type);
		break;
	default:
		return -1;
	}
	return 0;
}

/* Requests. */

struct op_req *
req_new(uint32_t rid, uint32_t type, const char *name)
{
	struct op_req	*r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		fatal("%s", __func__);
	r->rid = rid;
	r->type = type;
	(void)strlcpy(r->name, name, sizeof(r->name));
	TAILQ_INSERT_TAIL(&ops_reqs, r, entry);
	return r;
}

struct op_req *
req_find(uint32_t rid, uint32_t type)
{
	struct op_req	*r;

	TAILQ_FOREACH(r, &ops_reqs, entry)
		if (r->rid == rid && (type == 0 || r->type == type))
			return r;
	return NULL;
}

void
op_send(struct op_req *r, uint32_t type, int fd, const void *data,
    size_t len)
{
	if (imsgev_compose(&ops_child->iev, type, r->rid, 0, fd, data,
	    len) == -1)
		fatal("%s: compose %s", __func__, jb_imsg_name(type));
}

void
req_progress(struct op_req *r, const char *fmt, ...)
{
	struct jb_ctl_text	 t;
	va_list			 ap;

	memset(&t, 0, sizeof(t));
	va_start(ap, fmt);
	(void)vsnprintf(t.text, sizeof(t.text), fmt, ap);
	va_end(ap);
	op_send(r, IMSG_PROGRESS, -1, &t, sizeof(t));
}

static void	req_end(struct op_req *, const struct jb_done *);

void
req_done(struct op_req *r, int ok, const char *fmt, ...)
{
	struct jb_done	 d;
	va_list		 ap;

	memset(&d, 0, sizeof(d));
	d.ok = ok;
	if (fmt != NULL) {
		va_start(ap, fmt);
		(void)vsnprintf(d.err, sizeof(d.err), fmt, ap);
		va_end(ap);
	}
	if (!ok)
		log_debug("request %u: %s", r->rid, d.err);
	req_end(r, &d);
}

/*
 * A name Incus does not have, asked for by a lookup (LIST of one, which
 * new sends to see that its name is free): the answer, the same words
 * as a refusal, but no failure of ours, so nothing in the log.
 */
static void
req_absent(struct op_req *r)
{
	struct jb_done	 d;

	memset(&d, 0, sizeof(d));
	(void)snprintf(d.err, sizeof(d.err), "no such container %s", r->name);
	req_end(r, &d);
}

static void
req_end(struct op_req *r, const struct jb_done *d)
{
	struct op_req	*o;

	op_send(r, IMSG_DONE, -1, d, sizeof(*d));

	TAILQ_REMOVE(&ops_reqs, r, entry);
	if (r->call != NULL)
		incus_cancel(r->call);
	if (r->xs != NULL)
		exec_cancel(r->xs);
	if (r->priv_free != NULL)
		r->priv_free(r->priv);
	/* the next change of the same instance, in the order asked */
	if (r->devq == DEVQ_HOLD)
		TAILQ_FOREACH(o, &ops_reqs, entry)
			if (o->devq == DEVQ_WAIT && strcmp(o->name, r->name) ==
			    0) {
				o->devq = DEVQ_HOLD;
				req_check_ours(o, o->next);
				break;
			}
	free(r->etag);
	free(r);
}

void
req_fail(struct op_req *r, const char *err)
{
	char	why[JB_ERR_TEXT_MAX];

	incus_reason(why, sizeof(why), err);
	req_done(r, 0, "%s: %s", r->what, why);
}

/* a JSON value just made: out of memory is fatal */
struct json_object *
jnew(struct json_object *o)
{
	if (o == NULL)
		fatal("json");
	return o;
}

/* o[k] = v, a string */
void
jput(struct json_object *o, const char *k, const char *v)
{
	if (json_object_object_add(o, k, jnew(json_object_new_string(v))) != 0)
		fatal("json");
}

/*
 * The start gate device of instance name: a read-only disk whose source
 * only this member's jb-netd makes; name was checked as an instance name
 */
struct json_object *
gate_device(const char *name)
{
	struct json_object	*d;
	char			 src[PATH_MAX];

	if (bound_gate_source(&jb_bound, name, src, sizeof(src)) == -1)
		fatalx("%s: %s was checked as a name", __func__, name);
	d = jnew(json_object_new_object());
	jput(d, "type", "disk");
	jput(d, "source", src);
	jput(d, "path", GATE_PATH);
	jput(d, "readonly", "true");
	return d;
}

/*
 * A PATCH body that adds instance name's start gate, the closed lists
 * having seen the name beside it (cr_body's own gate passes them too)
 */
struct json_object *
gate_patch(const char *name)
{
	struct json_object	*body, *devs, *chk;
	char			 why[JB_ERR_TEXT_MAX];

	body = jnew(json_object_new_object());
	devs = jnew(json_object_new_object());
	json_object_object_add(devs, GATE_DEVICE, gate_device(name));
	json_object_object_add(body, "devices", devs);
	chk = jnew(json_object_new_object());
	jput(chk, "name", name);
	json_object_object_add(chk, "devices", json_object_get(devs));
	if (!bound_instance(&jb_bound, chk, ops_bridge, why, sizeof(why)))
		fatalx("%s: %s: %s", __func__, name, why);
	json_object_put(chk);
	return body;
}

/* an Incus call whose success is the request's end */
void
req_call_done(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL)
		req_fail(r, err);
	else
		req_done(r, 1, NULL);
}

/*
 * The client says which request failed ("PUT /1.0/instances/x/state:
 * operation failed: ... (Failure)"); the user wants what failed, which
 * the caller says better, and Incus's own words.
 */
void
incus_reason(char *dst, size_t len, const char *err)
{
	const char	*p = err, *q;
	char		*open, *e;
	size_t		 n;

	n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
	if (n > 0 && p[n] == ' ' && p[n + 1] == '/' &&
	    (q = strstr(p + n, ": ")) != NULL)
		p = q + 2;
	if (strncmp(p, "operation failed: ", 18) == 0)
		p += 18;
	(void)strlcpy(dst, p, len);

	/* the status that closes it: " (HTTP 404)", " (400)", " (Failure)" */
	n = strlen(dst);
	if (n == 0 || dst[n - 1] != ')' || (open = strrchr(dst, '(')) ==
	    NULL || open == dst || open[-1] != ' ')
		return;
	e = open + 1;
	if (strncmp(e, "HTTP ", 5) == 0)
		e += 5;
	if ((strspn(e, "0123456789") == (size_t)(dst + n - 1 - e) &&
	    e != dst + n - 1) || strcmp(open, "(Failure)") == 0 ||
	    strcmp(open, "(Cancelled)") == 0)
		open[-1] = '\0';
}

/* The instance a request names must exist and be ours. */
static void
ours_got(void *arg, struct json_object *inst, const char *etag, int stale,
    const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	free(r->etag);
	r->etag = NULL;
	if (etag != NULL && (r->etag = strdup(etag)) == NULL)
		fatal("%s", __func__);
	if (err != NULL)
		req_fail(r, err);
	else if (r->type == IMSG_INCUS_LIST && (inst == NULL ||
	    !inst_ours(inst)))
		req_absent(r);
	else if (inst == NULL)
		req_done(r, 0, "no such container %s", r->name);
	else if (!inst_ours(inst))
		req_done(r, 0, "%s is not a JailBee container", r->name);
	else
		r->next(r, inst);
}

void
req_check_ours(struct op_req *r, op_step next)
{
	r->next = next;
	if ((r->call = incus_instance_get_tagged(ops_ic, r->name, ours_got,
	    r)) == NULL)
		fatal("%s", __func__);
}

void
req_device_turn(struct op_req *r, op_step next)
{
	struct op_req	*o;

	TAILQ_FOREACH(o, &ops_reqs, entry)
		if (o != r && o->devq == DEVQ_HOLD && strcmp(o->name,
		    r->name) == 0) {
			r->devq = DEVQ_WAIT;
			r->next = next;
			return;
		}
	r->devq = DEVQ_HOLD;
	req_check_ours(r, next);
}

static void
write_got(void *arg, struct json_object *md, const char *etag, int stale,
    const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL && stale) {
		if (++r->stale < STALE_TRIES) {
			log_debug("%s: %s changed meanwhile: reading it again",
			    r->what, r->name);
			req_check_ours(r, r->again);
		} else
			req_done(r, 0, "%s: %s changed while this was written, "
			    "%d times: try again", r->what, r->name,
			    r->stale);
		return;
	}
	r->wrote(r, md, err);
}

void
req_write(struct op_req *r, const char *method, struct json_object *body,
    void (*wrote)(struct op_req *, struct json_object *, const char *))
{
	r->again = r->next;
	r->wrote = wrote;
	if ((r->call = incus_instance_write(ops_ic, method, r->name, body,
	    r->etag, write_got, r)) == NULL)
		fatal("%s", __func__);
}

/* Checks. */

void
must_string(const char *field, const char *buf, size_t size)
{
	if (memchr(buf, '\0', size) == NULL)
		fatalx("the parent sent an unterminated %s", field);
}

const char **
unpack_strings(const char *field, const char *buf, size_t size, uint32_t n)
{
	const char	**v;
	const char	 *e;
	size_t		  off = 0;
	uint32_t	  i;

	if (n > size)
		fatalx("the parent sent %u strings in %s of %zu bytes", n,
		    field, size);
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		fatal("%s", __func__);
	for (i = 0; i < n; i++) {
		if (off >= size ||
		    (e = memchr(buf + off, '\0', size - off)) == NULL)
			fatalx("the parent sent %s with %u strings, not %u",
			    field, i, n);
		v[i] = buf + off;
		off = (size_t)(e - buf) + 1;
	}
	for (; off < size; off++)
		if (buf[off] != '\0')
			fatalx("the parent sent %s with more than %u strings",
			    field, n);
	return v;
}

static int
in_set(int ch, const char *set)
{
	return ch != '\0' && strchr(set, ch) != NULL;
}

#define LOWER_DIGITS	"abcdefghijklmnopqrstuvwxyz0123456789"

int
valid_env_key(const char *k, size_t len)
{
	size_t	i;

	if (len == 0 || !in_set(k[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz_"))
		return 0;
	for (i = 1; i < len; i++)
		if (!in_set(k[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_"))
			return 0;
	return 1;
}

int
valid_env_list(const char *const *env, char *why, size_t len)
{
	const char	*eq, *eq2;
	size_t		 i, j, klen;

	for (i = 0; env[i] != NULL; i++) {
		if ((eq = strchr(env[i], '=')) == NULL ||
		    !valid_env_key(env[i], (size_t)(eq - env[i]))) {
			(void)snprintf(why, len, "environment entry \"%s\" "
			    "is not NAME=VALUE with NAME of letters, digits "
			    "and '_'", env[i]);
			return 0;
		}
		klen = (size_t)(eq - env[i]);
		for (j = 0; j < i; j++) {
			eq2 = strchr(env[j], '=');
			if ((size_t)(eq2 - env[j]) == klen &&
			    strncmp(env[i], env[j], klen) == 0) {
				(void)snprintf(why, len, "environment variable "
				    "%.*s is set twice", (int)klen, env[i]);
				return 0;
			}
		}
	}
	return 1;
}

/* Canonical and absolute: no empty, "." or ".." part, not "/" itself. */
int
valid_abspath(const char *p)
{
	const char	*s, *e;
	size_t		 n;

	if (p[0] != '/' || p[1] == '\0')
		return 0;
	for (s = p; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	for (s = p + 1;; s = e + 1) {
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		if (e == NULL)
			return 1;
	}
}

/* JSON. */

const char *
jget_str(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

struct json_object *
jget_obj(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/* Ours: created by the suite, which always sets the repo key. */
int
inst_ours(struct json_object *inst)
{
	const char	*v;

	v = jget_str(jget_obj(inst, "config"), "user.jailbee.repo");

	return v != NULL && *v != '\0';
}

const char *
inst_nic_ipv4(struct json_object *inst, const char *dev)
{
	struct json_object	*d;

	/* expanded_devices has the profile's devices under the instance's */
	if ((d = jget_obj(jget_obj(inst, "expanded_devices"), dev)) == NULL)
		d = jget_obj(jget_obj(inst, "devices"), dev);
	return jget_str(d, "ipv4.address");
}

int
nic_own(struct json_object *d, const char *ipv4)
{
	struct json_object	*v;
	struct in_addr		 in;
	char			 ifn[JB_NIC_IFNAME_LEN], mac[JB_NIC_MAC_LEN];
	const char		*was_ifn, *was_mac;

	if (ipv4 == NULL || inet_pton(AF_INET, ipv4, &in) != 1)
		return -1;
	jb_nic_ifname(ntohl(in.s_addr), ifn, sizeof(ifn));
	jb_nic_mac(ntohl(in.s_addr), mac, sizeof(mac));
	was_ifn = jget_str(d, "host_name");
	was_mac = jget_str(d, "hwaddr");
	if (was_ifn != NULL && strcmp(was_ifn, ifn) == 0 && was_mac != NULL &&
	    strcmp(was_mac, mac) == 0 &&
	    !json_object_object_get_ex(d, "security.ipv4_filtering", &v))
		return 0;
	json_object_object_add(d, "host_name", jnew(json_object_new_string(
	    ifn)));
	json_object_object_add(d, "hwaddr", jnew(json_object_new_string(mac)));
	json_object_object_del(d, "security.ipv4_filtering");
	return 1;
}

/* RFC 3339 as Incus writes it: 2026-11-30T12:13:29.628934194Z */
int64_t
parse_time(const char *s)
{
	struct tm	 tm;
	const char	*p;
	int64_t		 t, off = 0;
	int		 sign;

	if (s == NULL)
		return 0;
	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z')
		p++;
	else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		sign = *p == '-' ? -1 : 1;
		off = sign * (((p[1] - '0') * 10 + (p[2] - '0')) * 3600 +
		    ((p[4] - '0') * 10 + (p[5] - '0')) * 60);
		p += 6;
	}
	if (*p != '\0')
		return 0;
	t = (int64_t)timegm(&tm) - off;
	/* Incus's "never" is year 1 */
	return t < 0 ? 0 : t;
}

/* NETINFO: the bridge and the host's address on it. */

/*
 * What dnsmasq leases from: ipv4.dhcp.ranges, or, unset, what Incus
 * gives it then (the second address to the one before the broadcast);
 * nothing when ipv4.dhcp is off.
 */
static int
net_dhcp(struct json_object *net, uint32_t host, struct jb_netinfo *ni)
{
	struct json_object	*cfg = jget_obj(net, "config");
	const char		*on, *ranges;
	uint32_t		 mask;

	on = jget_str(cfg, "ipv4.dhcp");
	ranges = jget_str(cfg, "ipv4.dhcp.ranges");
	if (on != NULL && (strcasecmp(on, "false") == 0 ||
	    strcmp(on, "0") == 0 || strcasecmp(on, "off") == 0 ||
	    strcasecmp(on, "no") == 0)) {
		ni->ndhcp = 0;
		return 0;
	}
	if (ranges != NULL && *ranges != '\0')
		return dhcp_ranges_parse(ranges, ni);
	mask = ni->prefixlen == 0 ? 0 : 0xffffffffU << (32 - ni->prefixlen);
	if (ni->prefixlen > 30)
		return 0;
	ni->ndhcp = 1;
	ni->dhcp_first[0] = (host & mask) + 2;
	ni->dhcp_last[0] = (host | ~mask) - 1;
	return 0;
}

static void
net_got(void *arg, struct json_object *net, const char *err)
{
	struct op_req		*r = arg;
	struct jb_netinfo	 ni;
	struct in_addr		 in;
	const char		*addr, *errstr;
	char			 buf[32], why[JB_ERR_TEXT_MAX], *slash;

	r->call = NULL;
	if (err != NULL) {
		incus_reason(why, sizeof(why), err);
		r->net_next(r, NULL, why);
		return;
	}
	addr = jget_str(jget_obj(net, "config"), "ipv4.address");
	if (addr == NULL || *addr == '\0' || strcmp(addr, "none") == 0) {
		(void)snprintf(why, sizeof(why), "network %s has no IPv4 "
		    "address (ipv4.address is %s); containers get fixed "
		    "addresses in its subnet", ops_bridge, addr && *addr ?
		    addr : "unset");
		r->net_next(r, NULL, why);
		return;
	}
	memset(&ni, 0, sizeof(ni));
	(void)strlcpy(ni.bridge, ops_bridge, sizeof(ni.bridge));
	if (strlcpy(buf, addr, sizeof(buf)) >= sizeof(buf) ||
	    (slash = strchr(buf, '/')) == NULL)
		goto bad;
	*slash++ = '\0';
	ni.prefixlen = (uint32_t)strtonum(slash, 1, 32, &errstr);
	if (errstr != NULL || inet_pton(AF_INET, buf, &in) != 1 ||
	    strlcpy(ni.ipv4, buf, sizeof(ni.ipv4)) >= sizeof(ni.ipv4))
		goto bad;
	if (net_dhcp(net, ntohl(in.s_addr), &ni) == -1) {
		(void)snprintf(why, sizeof(why), "network %s: cannot read "
		    "ipv4.dhcp.ranges \"%s\" (FIRST-LAST, comma-separated, at "
		    "most %d)", ops_bridge, jget_str(jget_obj(net, "config"),
		    "ipv4.dhcp.ranges"), JB_DHCP_RANGES_MAX);
		r->net_next(r, NULL, why);
		return;
	}
	r->net_next(r, &ni, NULL);
	return;
 bad:
	(void)snprintf(why, sizeof(why), "network %s: cannot read "
	    "ipv4.address \"%s\"", ops_bridge, addr);
	r->net_next(r, NULL, why);
}

void
netinfo_get(struct op_req *r, void (*next)(struct op_req *,
    const struct jb_netinfo *, const char *))
{
	char	path[64];

	r->net_next = next;
	(void)snprintf(path, sizeof(path), "/1.0/networks/%s", ops_bridge);
	if ((r->call = incus_get_followed(ops_ic, path, net_got, r))
	    == NULL)
		fatal("%s", __func__);
}

static void
netinfo_reply(struct op_req *r, const struct jb_netinfo *ni, const char *why)
{
	if (ni == NULL) {
		req_done(r, 0, "%s: %s", r->what, why);
		return;
	}
	op_send(r, IMSG_INCUS_NETINFO, -1, ni, sizeof(*ni));
	req_done(r, 1, NULL);
}

static void
op_netinfo(uint32_t rid)
{
	struct op_req	*r;

	r = req_new(rid, IMSG_INCUS_NETINFO, "");
	(void)snprintf(r->what, sizeof(r->what), "network %s", ops_bridge);
	netinfo_get(r, netinfo_reply);
}

/* SERVER: incusd's version, for doctor */
static void
server_got(void *arg, struct json_object *srv, const char *err)
{
	struct op_req		*r = arg;
	struct jb_incus_server	 s;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	memset(&s, 0, sizeof(s));
	copy_str(s.version, sizeof(s.version), jget_str(jget_obj(srv,
	    "environment"), "server_version"));
	copy_str(s.api, sizeof(s.api), jget_str(srv, "api_version"));
	op_send(r, IMSG_INCUS_SERVER_INFO, -1, &s, sizeof(s));
	req_done(r, 1, NULL);
}

static void
op_server(uint32_t rid)
{
	struct op_req	*r;

	r = req_new(rid, IMSG_INCUS_SERVER, "");
	(void)snprintf(r->what, sizeof(r->what), "incusd");
	if ((r->call = incus_server_get(ops_ic, server_got, r)) == NULL)
		fatal("%s", __func__);
}

/* LIST: our containers, from one recursive listing or one GET. */

static void
copy_str(char *dst, size_t len, const char *s)
{
	(void)strlcpy(dst, s != NULL ? s : "", len);
}

static void
send_instance(struct op_req *r, struct json_object *inst)
{
	struct jb_instance	 ji;
	struct json_object	*cfg = jget_obj(inst, "config");

	memset(&ji, 0, sizeof(ji));
	copy_str(ji.name, sizeof(ji.name), jget_str(inst, "name"));
	copy_str(ji.state, sizeof(ji.state), jget_str(inst, "status"));
	copy_str(ji.repo, sizeof(ji.repo), jget_str(cfg, "user.jailbee.repo"));
	copy_str(ji.prefix, sizeof(ji.prefix), jget_str(cfg,
	    "user.jailbee.prefix"));
	copy_str(ji.branch, sizeof(ji.branch), jget_str(cfg,
	    "user.jailbee.branch"));
	copy_str(ji.base, sizeof(ji.base), jget_str(cfg, "user.jailbee.base"));
	copy_str(ji.mode, sizeof(ji.mode), jget_str(cfg, "user.jailbee.mode"));
	copy_str(ji.net, sizeof(ji.net), jget_str(cfg, "user.jailbee.net"));
	copy_str(ji.agent, sizeof(ji.agent), jget_str(cfg,
	    "user.jailbee.agent"));
	copy_str(ji.secrets, sizeof(ji.secrets), jget_str(cfg,
	    "user.jailbee.secrets"));
	copy_str(ji.location, sizeof(ji.location), jget_str(inst,
	    "location"));
	copy_str(ji.target, sizeof(ji.target), jget_str(cfg,
	    "user.jailbee.target"));
	copy_str(ji.ipv4, sizeof(ji.ipv4), inst_nic_ipv4(inst, "eth0"));
	ji.created = parse_time(jget_str(inst, "created_at"));
	ji.nmounts = disk_count_optional(inst);
	op_send(r, IMSG_INCUS_INSTANCE, -1, &ji, sizeof(ji));
}

static void
list_one(struct op_req *r, struct json_object *inst)
{
	send_instance(r, inst);
	req_done(r, 1, NULL);
}

static void
list_all(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct jb_incus_target	*t = r->priv;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	inst_each_ours(r, list, t->prefix, send_instance);
	req_done(r, 1, NULL);
}

/* fn for each of the suite's instances in list of prefix ("": any) */
void
inst_each_ours(struct op_req *r, struct json_object *list,
    const char *prefix, op_step fn)
{
	struct json_object	*inst;
	const char		*p;
	size_t			 i, n;

	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		inst = json_object_array_get_idx(list, i);
		if (!inst_ours(inst))
			continue;
		p = jget_str(jget_obj(inst, "config"), "user.jailbee.prefix");
		if (prefix[0] != '\0' && (p == NULL || strcmp(p, prefix) != 0))
			continue;
		fn(r, inst);
	}
}

static void
op_list(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;

	must_string("LIST name", t->name, sizeof(t->name));
	must_string("LIST prefix", t->prefix, sizeof(t->prefix));
	r = req_new(rid, IMSG_INCUS_LIST, t->name);
	if (t->name[0] != '\0') {
		(void)snprintf(r->what, sizeof(r->what), "ls %s", t->name);
		if (!name_instance_ok(t->name))
			req_done(r, 0, "no such container %s", t->name);
		else
			req_check_ours(r, list_one);
		return;
	}
	(void)snprintf(r->what, sizeof(r->what), "ls");
	if (t->prefix[0] != '\0' && !name_prefix_ok(t->prefix)) {
		req_done(r, 0, "%s: bad container prefix \"%s\"", r->what,
		    t->prefix);
		return;
	}
	if ((r->priv = malloc(sizeof(*t))) == NULL)
		fatal("%s", __func__);
	memcpy(r->priv, t, sizeof(*t));
	r->priv_free = free;
	if ((r->call = incus_instances_list(ops_ic, "user.jailbee.repo", NULL,
	    list_all, r)) == NULL)
		fatal("%s", __func__);
}
