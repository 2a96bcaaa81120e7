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
 * POLICIES, POLICY_SET: the network policy Incus holds for each of the
 * suite's containers, in its keys user.jailbee.net, .loose_until,
 * .egress and .egress_extra (struct jb_policy).  Incus holds it, so it
 * travels with the instance and outlives jb-netd's cache.  A key that
 * does not fit its field is not cut (a cut entry could name another
 * port): the container's record is sent as strict with no entry.
 */

#include <sys/queue.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <json.h>

#include "bound.h"
#include "gate.h"
#include "incus.h"
#include "log.h"
#include "mountspec.h"
#include "ops.h"

#define K_NET		"user.jailbee.net"
#define K_UNTIL		"user.jailbee.loose_until"
#define K_EGRESS	"user.jailbee.egress"
#define K_EXTRA		"user.jailbee.egress_extra"
/*
 * "1" once the whole policy was written: Incus keeps no key set to "",
 * so an empty egress list is told apart from one never written by this
 */
#define K_RECORDED	"user.jailbee.recorded"
#define K_MOUNT		MNT_UNTIL_KEY

/* s into dst whole, or -1 */
static int
take(char *dst, size_t len, const char *s)
{
	return strlcpy(dst, s != NULL ? s : "", len) >= len ? -1 : 0;
}

/*
 * the deadlines of the optional mounts it has (a key whose device is
 * gone, detached meanwhile, is not one)
 */
static void
mounts_of(struct json_object *inst, struct json_object *cfg,
    struct jb_policy *p)
{
	struct json_object	*devs = jget_obj(inst, "devices");
	const char		*kind, *v;
	char			 dev[JB_KIND_MAX + 16], *end, w[80];
	long long		 until;
	size_t			 have;

	if (cfg == NULL)
		return;
	json_object_object_foreach(cfg, k, val) {
		if (strncmp(k, K_MOUNT, strlen(K_MOUNT)) != 0 ||
		    !json_object_is_type(val, json_type_string))
			continue;
		kind = k + strlen(K_MOUNT);
		v = json_object_get_string(val);
		if (!mnt_kind_ok(kind) || strlen(kind) >= JB_KIND_MAX)
			continue;
		(void)snprintf(dev, sizeof(dev), "optional-%s", kind);
		if (jget_obj(devs, dev) == NULL)
			continue;
		until = strtoll(v, &end, 10);
		if (*v == '\0' || *end != '\0' || until <= 0)
			continue;
		(void)snprintf(w, sizeof(w), "%s%s=%lld", p->mounts[0] ?
		    " " : "", kind, until);
		have = strlen(p->mounts);
		if (strlcpy(p->mounts + have, w, sizeof(p->mounts) - have) >=
		    sizeof(p->mounts) - have) {
			p->mounts[have] = '\0';
			log_warnx("%s: more mount deadlines than one message "
			    "holds: %s is not read", p->name, kind);
		}
	}
}

static void
send_policy(struct op_req *r, struct json_object *inst)
{
	struct jb_policy	*p;
	struct json_object	*cfg = jget_obj(inst, "config");
	const char		*u;
	char			*end;
	long long		 v;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	if (take(p->name, sizeof(p->name), jget_str(inst, "name")) == -1) {
		free(p);
		return;
	}
	(void)take(p->ipv4, sizeof(p->ipv4), inst_nic_ipv4(inst, "eth0"));
	/* where it runs: the member whose suite enforces it */
	if (take(p->location, sizeof(p->location), jget_str(inst,
	    "location")) == -1) {
		log_warnx("%s: its location is longer than a member's name: "
		    "no member enforces it", p->name);
		(void)strlcpy(p->location, "?", sizeof(p->location));
	}
	(void)take(p->prefix, sizeof(p->prefix), jget_str(cfg,
	    "user.jailbee.prefix"));
	p->has_egress = jget_str(cfg, K_EGRESS) != NULL ||
	    ((u = jget_str(cfg, K_RECORDED)) != NULL && strcmp(u, "1") == 0);
	/* or its creator adds it once the creation has ended */
	p->has_gate = jget_obj(jget_obj(inst, "devices"), GATE_DEVICE) !=
	    NULL || gate_by_creator(jget_str(cfg, GATE_KEY), (int64_t)time(NULL),
	    &p->gate_until);
	/* a deadline that is not a number: not loose (-1 never comes) */
	p->loose_until = 0;
	if ((u = jget_str(cfg, K_UNTIL)) != NULL && *u != '\0') {
		errno = 0;
		v = strtoll(u, &end, 10);
		p->loose_until = errno != 0 || *end != '\0' || v < 0 ? -1 : v;
	}
	if (take(p->net, sizeof(p->net), jget_str(cfg, K_NET)) == -1 ||
	    take(p->egress, sizeof(p->egress), jget_str(cfg, K_EGRESS)) ==
	    -1 || take(p->egress_extra, sizeof(p->egress_extra),
	    jget_str(cfg, K_EXTRA)) == -1) {
		log_warnx("%s: a policy key is longer than the suite writes: "
		    "it is strict with no entry", p->name);
		(void)strlcpy(p->net, "strict", sizeof(p->net));
		p->loose_until = 0;
		p->egress[0] = p->egress_extra[0] = '\0';
		p->has_egress = 1;
	}
	mounts_of(inst, cfg, p);
	op_send(r, IMSG_INCUS_POLICY, -1, p, sizeof(*p));
	free(p);
}

static void
policies_listed(void *arg, struct json_object *list, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	inst_each_ours(r, list, "", send_policy);
	req_done(r, 1, NULL);
}

/* one instance: its POLICY when it is the suite's, none when not */
static void
policy_one(void *arg, struct json_object *inst, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (inst != NULL && inst_ours(inst))
		send_policy(r, inst);
	req_done(r, 1, NULL);
}

void
op_policies(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;

	must_string("POLICIES name", t->name, sizeof(t->name));
	r = req_new(rid, IMSG_INCUS_POLICIES, t->name);
	if (t->name[0] != '\0') {
		(void)snprintf(r->what, sizeof(r->what), "read the policy of "
		    "%s", t->name);
		if (!name_instance_ok(t->name))
			req_done(r, 0, "no such container %s", t->name);
		else if ((r->call = incus_instance_get(ops_ic, t->name,
		    policy_one, r)) == NULL)
			fatal("%s", __func__);
		return;
	}
	(void)snprintf(r->what, sizeof(r->what), "read the policies");
	if ((r->call = incus_instances_list(ops_ic, "user.jailbee.repo", NULL,
	    policies_listed, r)) == NULL)
		fatal("%s", __func__);
}

static void
policy_written(struct op_req *r, struct json_object *md, const char *err)
{
	if (err != NULL)
		req_fail(r, err);
	else
		req_done(r, 1, NULL);
}

/* the mode and its deadline */
static void
mode_keys(struct json_object *cfg, const struct jb_policy *p)
{
	char	until[32];

	(void)snprintf(until, sizeof(until), "%" PRId64, p->loose_until);
	jput(cfg, K_NET, p->net);
	jput(cfg, K_UNTIL, until);
}

/* the whole policy, as Incus is to hold it */
void
policy_keys(struct json_object *cfg, const struct jb_policy *p)
{
	mode_keys(cfg, p);
	jput(cfg, K_EGRESS, p->egress);
	jput(cfg, K_EXTRA, p->egress_extra);
	jput(cfg, K_RECORDED, "1");
}

static void
policy_have(struct op_req *r, struct json_object *inst)
{
	const struct jb_policy	*p = r->priv;
	struct json_object	*body, *cfg;
	char			 until[32], why[JB_ERR_TEXT_MAX];
	char			 key[sizeof(K_MOUNT) + JB_KIND_MAX];

	body = jnew(json_object_new_object());
	cfg = jnew(json_object_new_object());
	if (p->mount_kind[0] != '\0') {
		/* one mount's deadline; "" takes the key away */
		(void)snprintf(key, sizeof(key), "%s%s", K_MOUNT,
		    p->mount_kind);
		if (p->mount_until > 0)
			(void)snprintf(until, sizeof(until), "%" PRId64,
			    p->mount_until);
		else
			until[0] = '\0';
		jput(cfg, key, until);
		goto write;
	}
	if (p->mode_only)
		mode_keys(cfg, p);
	else
		policy_keys(cfg, p);
write:
	json_object_object_add(body, "config", cfg);
	if (!bound_instance(&jb_bound, body, ops_bridge, why, sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else
		req_write(r, "PATCH", body, policy_written);
	json_object_put(body);
}

/* printable words separated by spaces: what jb-netd writes */
static int
words_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s < ' ' || *s > '~')
			return 0;
	return 1;
}

static void
policy_strings(const struct jb_policy *in)
{
	must_string("POLICY name", in->name, sizeof(in->name));
	must_string("POLICY ipv4", in->ipv4, sizeof(in->ipv4));
	must_string("POLICY prefix", in->prefix, sizeof(in->prefix));
	must_string("POLICY net", in->net, sizeof(in->net));
	must_string("POLICY egress", in->egress, sizeof(in->egress));
	must_string("POLICY egress_extra", in->egress_extra,
	    sizeof(in->egress_extra));
	must_string("POLICY mounts", in->mounts, sizeof(in->mounts));
	must_string("POLICY mount_kind", in->mount_kind,
	    sizeof(in->mount_kind));
}

/* a mode, a deadline and entries as jb-netd writes them */
static int
policy_ok(const struct jb_policy *p)
{
	return (strcmp(p->net, "strict") == 0 || strcmp(p->net, "loose") ==
	    0) && p->loose_until >= 0 && words_ok(p->egress) &&
	    words_ok(p->egress_extra);
}

/* policies kept for the CREATE of their name (CREATE_POLICY) */
struct kept_policy {
	LIST_ENTRY(kept_policy)	 entry;
	struct jb_policy	 p;
};
static LIST_HEAD(, kept_policy)	kept = LIST_HEAD_INITIALIZER(kept);
static size_t			nkept;
/* more than new makes at once; the oldest goes first */
#define KEPT_MAX	64

/* name's, taken out of the list, or NULL */
static struct kept_policy *
kept_take(const char *name)
{
	struct kept_policy	*k;

	LIST_FOREACH(k, &kept, entry)
		if (strcmp(k->p.name, name) == 0) {
			LIST_REMOVE(k, entry);
			nkept--;
			return k;
		}
	return NULL;
}

struct jb_policy *
policy_for_create(const char *name)
{
	struct kept_policy	*k;
	struct jb_policy	*p;

	if ((k = kept_take(name)) == NULL)
		return NULL;
	if ((p = malloc(sizeof(*p))) == NULL)
		fatal("%s", __func__);
	memcpy(p, &k->p, sizeof(*p));
	free(k);
	return p;
}

void
op_create_policy(uint32_t rid, const struct jb_policy *in)
{
	struct op_req		*r;
	struct kept_policy	*k, *last = NULL;

	policy_strings(in);
	r = req_new(rid, IMSG_INCUS_CREATE_POLICY, in->name);
	(void)snprintf(r->what, sizeof(r->what), "keep the policy of %s for "
	    "its creation", in->name);
	if (!name_instance_ok(in->name) || in->mode_only ||
	    in->mount_kind[0] != '\0' || !policy_ok(in)) {
		req_done(r, 0, "%s: not a policy the suite writes", r->what);
		return;
	}
	/* one a name: a new asked again replaces what its first kept */
	free(kept_take(in->name));
	if (nkept == KEPT_MAX) {
		LIST_FOREACH(k, &kept, entry)
			last = k;
		log_warnx("%s: kept for a creation that never came, dropped",
		    last->p.name);
		LIST_REMOVE(last, entry);
		free(last);
		nkept--;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL)
		fatal("%s", __func__);
	memcpy(&k->p, in, sizeof(k->p));
	LIST_INSERT_HEAD(&kept, k, entry);
	nkept++;
	req_done(r, 1, NULL);
}

void
op_policy_set(uint32_t rid, const struct jb_policy *in)
{
	struct op_req		*r;
	struct jb_policy	*p;

	policy_strings(in);
	if ((p = malloc(sizeof(*p))) == NULL)
		fatal("%s", __func__);
	memcpy(p, in, sizeof(*p));
	r = req_new(rid, IMSG_INCUS_POLICY_SET, in->name);
	r->priv = p;
	r->priv_free = free;
	(void)snprintf(r->what, sizeof(r->what), "record the policy of %s",
	    in->name);
	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if (in->mount_kind[0] != '\0') {
		if (!mnt_kind_ok(in->mount_kind) || in->mount_until < 0)
			req_done(r, 0, "%s: not a mount deadline the suite "
			    "writes", r->what);
		else
			req_device_turn(r, policy_have);
	} else if (!policy_ok(in))
		req_done(r, 0, "%s: not a policy the suite writes", r->what);
	else
		req_device_turn(r, policy_have);
}

/*
 * The start gate of a container made before the suite had gates, added
 * once jb-netd opened it (a running container's disk needs its source):
 * what CREATE adds, checked the same way; nothing when it has one.
 */
static void
gate_have(struct op_req *r, struct json_object *inst)
{
	struct json_object	*body;

	if (jget_obj(jget_obj(inst, "devices"), GATE_DEVICE) != NULL) {
		req_done(r, 1, NULL);
		return;
	}
	body = gate_patch(r->name);
	req_write(r, "PATCH", body, policy_written);
	json_object_put(body);
}

/*
 * Incus announces an instance's creation before its root volume is
 * made, and a device written meanwhile can break the volume: the gate
 * waits until no running operation of Incus's names the instance.
 */
#define GATE_OP_TRIES	120	/* looks, GATE_OP_MS apart */
#define GATE_OP_MS	250

struct gate_add {
	struct event	*wait;
	int		 tries;
};

static void	gate_ops_look(struct op_req *);

static void
gate_add_free(void *arg)
{
	struct gate_add	*g = arg;

	if (g->wait != NULL)
		event_free(g->wait);
	free(g);
}

static void
gate_ops_again(evutil_socket_t fd, short ev, void *arg)
{
	gate_ops_look(arg);
}

/* 1 when an operation in ops (a JSON array) names instance name */
static int
ops_name(struct json_object *ops, const char *name)
{
	struct json_object	*list;
	const char		*s;
	size_t			 i, j, n, len = strlen(name);

	if (ops == NULL || !json_object_is_type(ops, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(ops); i++) {
		list = jget_obj(jget_obj(json_object_array_get_idx(ops, i),
		    "resources"), "instances");
		if (list == NULL || !json_object_is_type(list,
		    json_type_array))
			continue;
		n = json_object_array_length(list);
		for (j = 0; j < n; j++) {
			s = json_object_get_string(
			    json_object_array_get_idx(list, j));
			if (s != NULL && strncmp(s, "/1.0/instances/", 15) ==
			    0 && strncmp(s + 15, name, len) == 0 &&
			    (s[15 + len] == '\0' || s[15 + len] == '?' ||
			    s[15 + len] == '/'))
				return 1;
		}
	}
	return 0;
}

static void
gate_ops_seen(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct gate_add	*g = r->priv;
	struct timeval	 tv = { 0, GATE_OP_MS * 1000 };

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (!ops_name(jget_obj(md, "running"), r->name)) {
		req_device_turn(r, gate_have);
		return;
	}
	if (++g->tries >= GATE_OP_TRIES) {
		req_done(r, 0, "%s: Incus is still working on it after %d s",
		    r->what, GATE_OP_TRIES * GATE_OP_MS / 1000);
		return;
	}
	if (g->wait == NULL && (g->wait = evtimer_new(incus_base(ops_ic),
	    gate_ops_again, r)) == NULL)
		fatal("%s", __func__);
	evtimer_add(g->wait, &tv);
}

static void
gate_ops_look(struct op_req *r)
{
	if ((r->call = incus_request(ops_ic, "GET",
	    "/1.0/operations?recursion=1", NULL, gate_ops_seen, r)) == NULL)
		fatal("%s", __func__);
}

void
op_gate_add(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;
	struct gate_add	*g;

	must_string("GATE_ADD name", t->name, sizeof(t->name));
	r = req_new(rid, IMSG_INCUS_GATE_ADD, t->name);
	(void)snprintf(r->what, sizeof(r->what), "add the start gate of %s",
	    t->name);
	if (!name_instance_ok(t->name)) {
		req_done(r, 0, "no such container %s", t->name);
		return;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL)
		fatal("%s", __func__);
	r->priv = g;
	r->priv_free = gate_add_free;
	gate_ops_look(r);
}

/*
 * A container's overrides written for the member that enforces it: only
 * when Incus still holds the list they were made from, so that two
 * members' changes never undo each other unseen.
 */
static void
extra_have(struct op_req *r, struct json_object *inst)
{
	const struct jb_incus_extra	*x = r->priv;
	struct json_object		*body, *cfg;
	const char			*cur;
	char				 why[JB_ERR_TEXT_MAX];

	cur = jget_str(jget_obj(inst, "config"), K_EXTRA);
	if (strcmp(cur != NULL ? cur : "", x->was) != 0) {
		req_done(r, 0, "%s: its overrides changed in Incus meanwhile: "
		    "run the command again", r->what);
		return;
	}
	body = jnew(json_object_new_object());
	cfg = jnew(json_object_new_object());
	jput(cfg, K_EXTRA, x->now);
	json_object_object_add(body, "config", cfg);
	if (!bound_instance(&jb_bound, body, ops_bridge, why, sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else
		req_write(r, "PATCH", body, policy_written);
	json_object_put(body);
}

void
op_extra_set(uint32_t rid, const struct jb_incus_extra *in)
{
	struct op_req		*r;
	struct jb_incus_extra	*x;

	must_string("EXTRA_SET name", in->name, sizeof(in->name));
	must_string("EXTRA_SET was", in->was, sizeof(in->was));
	must_string("EXTRA_SET now", in->now, sizeof(in->now));
	if ((x = malloc(sizeof(*x))) == NULL)
		fatal("%s", __func__);
	memcpy(x, in, sizeof(*x));
	r = req_new(rid, IMSG_INCUS_EXTRA_SET, in->name);
	r->priv = x;
	r->priv_free = free;
	(void)snprintf(r->what, sizeof(r->what), "record the overrides of %s",
	    in->name);
	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if (!words_ok(in->was) || !words_ok(in->now))
		req_done(r, 0, "%s: not a list the suite writes", r->what);
	else
		req_device_turn(r, extra_have);
}
