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
 * DISK_ADD, DISK_REMOVE, DISK_LIST: the suite's disk devices on an
 * existing container.  The device is built here from four
 * checked values, under a name of the suite's (host-<n> for host_mounts,
 * optional-<kind>, gpg-home and gpg-agent); nothing else of the instance can be changed this
 * way, and only a running container gets one, so that jb-mountd can
 * check at once what the container really holds.  The source is the
 * realpath jb-mountd checked; jb-mountd checks it again afterwards, and
 * the parent removes the device when that check fails.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "bound.h"
#include "gate.h"
#include "incus.h"
#include "log.h"
#include "mountspec.h"
#include "ops.h"

struct disk {
	struct jb_disk		 in;
	uint32_t		 type;
};

static int
valid_device(const char *d)
{
	const char	*n;

	if (strcmp(d, MNT_GPG_HOME) == 0 || strcmp(d, MNT_GPG_AGENT) == 0 ||
	    strcmp(d, MNT_SSH_SHARED) == 0)
		return 1;
	if (strncmp(d, MNT_OPTIONAL_PREFIX, strlen(MNT_OPTIONAL_PREFIX)) == 0)
		return mnt_kind_ok(d + strlen(MNT_OPTIONAL_PREFIX));
	if (strncmp(d, MNT_AGENT_PREFIX, strlen(MNT_AGENT_PREFIX)) == 0)
		return mnt_agent_device_ok(d);
	if (strncmp(d, MNT_HOST_PREFIX, strlen(MNT_HOST_PREFIX)) != 0)
		return 0;
	n = d + strlen(MNT_HOST_PREFIX);
	return *n != '\0' && strlen(n) <= 3 && strspn(n, "0123456789") ==
	    strlen(n);
}

uint32_t
disk_count_optional(struct json_object *inst)
{
	struct json_object	*devs = jget_obj(inst, "devices");
	uint32_t		 n = 0;
	const char		*t;

	if (devs == NULL)
		return 0;
	json_object_object_foreach(devs, k, v) {
		if ((t = jget_str(v, "type")) != NULL &&
		    strcmp(t, "disk") == 0 && strncmp(k, MNT_OPTIONAL_PREFIX,
		    strlen(MNT_OPTIONAL_PREFIX)) == 0)
			n++;
	}
	return n;
}

static void	disk_state(void *, struct json_object *, const char *);

/*
 * An optional mount's deadline key lives and dies with its device: the
 * write that attaches or detaches optional-KIND also takes away
 * user.jailbee.mount_until.KIND, so a deadline of an earlier mount never
 * applies to a later one.  A new deadline is written after the attach.
 * NULL for any other device.
 */
static const char *
until_key(const char *device, char *buf, size_t len)
{
	if (strncmp(device, MNT_OPTIONAL_PREFIX,
	    strlen(MNT_OPTIONAL_PREFIX)) != 0)
		return NULL;
	(void)snprintf(buf, len, "%s%s", MNT_UNTIL_KEY,
	    device + strlen(MNT_OPTIONAL_PREFIX));
	return buf;
}

static void
disk_changed(struct op_req *r, struct json_object *md, const char *err)
{
	struct disk	*dk = r->priv;
	char		 path[JB_INSTANCE_MAX + 32];

	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (dk->type == IMSG_INCUS_DISK_REMOVE) {
		req_done(r, 1, NULL);
		return;
	}
	/* the init's pid: where jb-mountd reads what got mounted */
	(void)snprintf(path, sizeof(path), "/1.0/instances/%s/state",
	    dk->in.name);
	if ((r->call = incus_request(ops_ic, "GET", path, NULL, disk_state,
	    r)) == NULL)
		fatal("%s", __func__);
}

static void
disk_state(void *arg, struct json_object *st, const char *err)
{
	struct op_req		*r = arg;
	struct disk		*dk = r->priv;
	struct json_object	*pid;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (!json_object_object_get_ex(st, "pid", &pid) ||
	    !json_object_is_type(pid, json_type_int) ||
	    json_object_get_int64(pid) <= 1 ||
	    json_object_get_int64(pid) > 0x7fffffff) {
		req_done(r, 0, "%s: Incus reports no process for %s",
		    r->what, dk->in.name);
		return;
	}
	dk->in.pid = (int32_t)json_object_get_int64(pid);
	op_send(r, IMSG_INCUS_DISK, -1, &dk->in, sizeof(dk->in));
	req_done(r, 1, NULL);
}

static void
disk_have(struct op_req *r, struct json_object *inst)
{
	struct disk		*dk = r->priv;
	struct json_object	*devs, *body, *d, *nd, *cfg;
	const char		*st, *key;
	char			 why[JB_ERR_TEXT_MAX];
	char			 kbuf[sizeof(MNT_UNTIL_KEY) + JB_DEVICE_MAX];

	devs = jget_obj(inst, "devices");
	key = until_key(dk->in.device, kbuf, sizeof(kbuf));
	if (dk->type == IMSG_INCUS_DISK_REMOVE) {
		if (devs == NULL || !json_object_object_get_ex(devs,
		    dk->in.device, NULL)) {
			req_done(r, 0, "%s: %s has no device %s", r->what,
			    dk->in.name, dk->in.device);
			return;
		}
		/* PUT without it: PATCH can only add or change devices */
		json_object_object_del(devs, dk->in.device);
		if (key != NULL && (cfg = jget_obj(inst, "config")) != NULL)
			json_object_object_del(cfg, key);
		req_write(r, "PUT", inst, disk_changed);
		return;
	}
	if ((st = jget_str(inst, "status")) == NULL ||
	    strcmp(st, "Running") != 0) {
		req_done(r, 0, "%s: %s is %s: start it first, so that the "
		    "mount can be checked as it is attached", r->what,
		    dk->in.name, st ? st : "in an unknown state");
		return;
	}
	if (devs != NULL && json_object_object_get_ex(devs, dk->in.device,
	    NULL)) {
		req_done(r, 0, "%s: %s already has a device %s", r->what,
		    dk->in.name, dk->in.device);
		return;
	}
	body = jnew(json_object_new_object());
	nd = jnew(json_object_new_object());
	d = jnew(json_object_new_object());
	jput(d, "type", "disk");
	jput(d, "source", dk->in.source);
	jput(d, "path", dk->in.path);
	jput(d, "readonly", dk->in.readonly ? "true" : "false");
	json_object_object_add(nd, dk->in.device, d);
	json_object_object_add(body, "devices", nd);
	if (key != NULL) {
		/* "" takes the key away */
		cfg = jnew(json_object_new_object());
		jput(cfg, key, "");
		json_object_object_add(body, "config", cfg);
	}
	if (!bound_instance(&jb_bound, body, ops_bridge, why, sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else
		req_write(r, "PATCH", body, disk_changed);
	json_object_put(body);
}

void
op_disk(uint32_t rid, uint32_t type, const struct jb_disk *in)
{
	struct op_req	*r;
	struct disk	*dk;
	char		 why[JB_ERR_TEXT_MAX];
	int		 add = type == IMSG_INCUS_DISK_ADD;

	must_string("DISK name", in->name, sizeof(in->name));
	must_string("DISK device", in->device, sizeof(in->device));
	must_string("DISK source", in->source, sizeof(in->source));
	must_string("DISK path", in->path, sizeof(in->path));
	if ((dk = calloc(1, sizeof(*dk))) == NULL)
		fatal("%s", __func__);
	memcpy(&dk->in, in, sizeof(dk->in));
	dk->in.pid = 0;
	dk->type = type;
	r = req_new(rid, type, in->name);
	r->priv = dk;
	r->priv_free = free;
	(void)snprintf(r->what, sizeof(r->what), "%s %s on %s",
	    add ? "attach" : "detach", in->device, in->name);

	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if (!valid_device(in->device))
		req_done(r, 0, "%s: not a device name of the suite's",
		    r->what);
	else if (add && !valid_abspath(in->source))
		req_done(r, 0, "%s: source \"%.200s\" is not a canonical "
		    "absolute path", r->what, in->source);
	else if (add && !bound_source(&jb_bound, in->source, why,
	    sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else if (add && mnt_target_ok(in->path, NULL, why, sizeof(why)) == -1)
		req_done(r, 0, "%s: %s", r->what, why);
	else if (add && in->readonly != 0 && in->readonly != 1)
		fatalx("DISK_ADD with readonly %d", in->readonly);
	else
		req_device_turn(r, disk_have);
}

static void
list_have(struct op_req *r, struct json_object *inst)
{
	struct json_object	*devs = jget_obj(inst, "devices");
	struct jb_disk		 d;
	const char		*t, *ro;

	if (devs != NULL) {
		json_object_object_foreach(devs, k, v) {
			if ((t = jget_str(v, "type")) == NULL ||
			    strcmp(t, "disk") != 0 || !valid_device(k) ||
			    strcmp(k, GATE_DEVICE) == 0)
				continue;
			memset(&d, 0, sizeof(d));
			(void)strlcpy(d.name, r->name, sizeof(d.name));
			(void)strlcpy(d.device, k, sizeof(d.device));
			(void)strlcpy(d.source, jget_str(v, "source") ?
			    jget_str(v, "source") : "", sizeof(d.source));
			(void)strlcpy(d.path, jget_str(v, "path") ?
			    jget_str(v, "path") : "", sizeof(d.path));
			ro = jget_str(v, "readonly");
			d.readonly = ro != NULL && (strcmp(ro, "true") == 0 ||
			    strcmp(ro, "1") == 0);
			op_send(r, IMSG_INCUS_DISK, -1, &d, sizeof(d));
		}
	}
	req_done(r, 1, NULL);
}

/*
 * Every disk with a host source on every suite container, whatever its
 * device is called (the checkout too), for the parent's overlap rule
 * and its check before a start.
 */
static void
list_every(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct json_object	*inst, *devs;
	struct jb_disk		 d;
	const char		*t, *src, *ro, *name, *p;
	size_t			 i, n;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		inst = json_object_array_get_idx(list, i);
		if (!inst_ours(inst) || (name = jget_str(inst, "name")) ==
		    NULL || (devs = jget_obj(inst, "devices")) == NULL)
			continue;
		p = jget_str(jget_obj(inst, "config"), "user.jailbee.prefix");
		json_object_object_foreach(devs, k, v) {
			/* the start gate is no mount */
			if ((t = jget_str(v, "type")) == NULL ||
			    strcmp(t, "disk") != 0 ||
			    strcmp(k, GATE_DEVICE) == 0 ||
			    (src = jget_str(v, "source")) == NULL ||
			    src[0] != '/' || jget_str(v, "pool") != NULL)
				continue;
			memset(&d, 0, sizeof(d));
			(void)strlcpy(d.name, name, sizeof(d.name));
			(void)strlcpy(d.device, k, sizeof(d.device));
			(void)strlcpy(d.source, src, sizeof(d.source));
			(void)strlcpy(d.path, jget_str(v, "path") ?
			    jget_str(v, "path") : "", sizeof(d.path));
			(void)strlcpy(d.prefix, p ? p : "", sizeof(d.prefix));
			ro = jget_str(v, "readonly");
			d.readonly = ro != NULL && (strcmp(ro, "true") == 0 ||
			    strcmp(ro, "1") == 0);
			op_send(r, IMSG_INCUS_DISK, -1, &d, sizeof(d));
		}
	}
	req_done(r, 1, NULL);
}

void
op_disk_list(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;

	must_string("DISK_LIST name", t->name, sizeof(t->name));
	must_string("DISK_LIST prefix", t->prefix, sizeof(t->prefix));
	r = req_new(rid, IMSG_INCUS_DISK_LIST, t->name);
	if (t->name[0] == '\0') {
		(void)snprintf(r->what, sizeof(r->what), "mounts of every "
		    "container");
		if ((r->call = incus_instances_list(ops_ic,
		    "user.jailbee.repo", NULL, list_every, r)) == NULL)
			fatal("%s", __func__);
		return;
	}
	(void)snprintf(r->what, sizeof(r->what), "mounts of %s", t->name);
	if (!name_instance_ok(t->name))
		req_done(r, 0, "no such container %s", t->name);
	else
		req_check_ours(r, list_have);
}
