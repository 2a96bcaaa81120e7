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
 * LIMITS_SET, LIMITS_GET: the resource limits of a container of the
 * suite's.  SET writes limits.memory, limits.cpu, limits.processes and
 * the root disk's size (a root device of the instance's own, on the pool
 * its profile's root disk is on), each only when the parent gives it;
 * Incus applies them to a running container at once.  GET reads back
 * what Incus holds, so that what is shown is what is in force.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "bound.h"
#include "ctrlimits.h"
#include "incus.h"
#include "log.h"
#include "ops.h"

static void
lim_written(struct op_req *r, struct json_object *md, const char *err)
{
	if (err != NULL)
		req_fail(r, err);
	else
		req_done(r, 1, NULL);
}

static void
lim_have(struct op_req *r, struct json_object *inst)
{
	const struct jb_limits	*in = r->priv;
	struct json_object	*body, *cfg, *devs, *d, *root;
	const char		*pool;
	char			 why[JB_ERR_TEXT_MAX];

	body = jnew(json_object_new_object());
	cfg = jnew(json_object_new_object());
	if (in->memory[0] != '\0')
		jput(cfg, "limits.memory", in->memory);
	if (in->cpu[0] != '\0')
		jput(cfg, "limits.cpu", in->cpu);
	if (in->processes[0] != '\0')
		jput(cfg, "limits.processes", in->processes);
	json_object_object_add(body, "config", cfg);
	if (in->disk[0] != '\0') {
		root = jget_obj(jget_obj(inst, "expanded_devices"), "root");
		if (root == NULL || (pool = jget_str(root, "pool")) == NULL) {
			json_object_put(body);
			req_done(r, 0, "%s: %s has no root disk on a storage "
			    "pool, so its disk limit cannot be set", r->what,
			    r->name);
			return;
		}
		devs = jnew(json_object_new_object());
		d = jnew(json_object_new_object());
		jput(d, "type", "disk");
		jput(d, "path", "/");
		jput(d, "pool", pool);
		jput(d, "size", in->disk);
		json_object_object_add(devs, "root", d);
		json_object_object_add(body, "devices", devs);
	}
	/* what goes to Incus, whatever built it: the closed lists */
	if (!bound_instance(&jb_bound, body, ops_bridge, why, sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else
		req_write(r, "PATCH", body, lim_written);
	json_object_put(body);
}

void
op_limits_set(uint32_t rid, const struct jb_limits *in)
{
	struct op_req		*r;
	struct jb_limits	*l;

	must_string("LIMITS name", in->name, sizeof(in->name));
	must_string("LIMITS memory", in->memory, sizeof(in->memory));
	must_string("LIMITS cpu", in->cpu, sizeof(in->cpu));
	must_string("LIMITS processes", in->processes, sizeof(in->processes));
	must_string("LIMITS disk", in->disk, sizeof(in->disk));
	if ((l = calloc(1, sizeof(*l))) == NULL)
		fatal("%s", __func__);
	memcpy(l, in, sizeof(*l));
	r = req_new(rid, IMSG_INCUS_LIMITS_SET, in->name);
	r->priv = l;
	r->priv_free = free;
	(void)snprintf(r->what, sizeof(r->what), "limits of %s", in->name);
	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if ((in->memory[0] != '\0' && !lim_size_ok(in->memory, 1)) ||
	    (in->cpu[0] != '\0' && !lim_count_ok(in->cpu, 1, LIM_CPU_MAX)) ||
	    (in->processes[0] != '\0' && !lim_count_ok(in->processes,
	    LIM_PROCESSES_MIN, LIM_PROCESSES_MAX)) ||
	    (in->disk[0] != '\0' && !lim_size_ok(in->disk, 0)))
		req_done(r, 0, "%s: \"%s\" \"%s\" \"%s\" \"%s\" are not what "
		    "Incus takes", r->what, in->memory, in->cpu,
		    in->processes, in->disk);
	else
		req_device_turn(r, lim_have);
}

static void
copy(char *dst, size_t len, const char *s)
{
	(void)strlcpy(dst, s != NULL ? s : "", len);
}

static void
lim_got(struct op_req *r, struct json_object *inst)
{
	struct jb_limits	 l;
	struct json_object	*cfg = jget_obj(inst, "config");
	struct json_object	*root;

	root = jget_obj(jget_obj(inst, "expanded_devices"), "root");
	memset(&l, 0, sizeof(l));
	copy(l.name, sizeof(l.name), r->name);
	copy(l.memory, sizeof(l.memory), jget_str(cfg, "limits.memory"));
	copy(l.cpu, sizeof(l.cpu), jget_str(cfg, "limits.cpu"));
	copy(l.processes, sizeof(l.processes), jget_str(cfg,
	    "limits.processes"));
	copy(l.disk, sizeof(l.disk), jget_str(root, "size"));
	copy(l.pool, sizeof(l.pool), jget_str(root, "pool"));
	copy(l.state, sizeof(l.state), jget_str(inst, "status"));
	copy(l.location, sizeof(l.location), jget_str(inst, "location"));
	op_send(r, IMSG_INCUS_LIMITS, -1, &l, sizeof(l));
	req_done(r, 1, NULL);
}

void
op_limits_get(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;

	must_string("LIMITS_GET name", t->name, sizeof(t->name));
	r = req_new(rid, IMSG_INCUS_LIMITS_GET, t->name);
	(void)snprintf(r->what, sizeof(r->what), "info %s", t->name);
	if (!name_instance_ok(t->name))
		req_done(r, 0, "no such container %s", t->name);
	else
		req_check_ours(r, lim_got);
}
