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
 * PORT_ADD, PORT_REMOVE, PORT_LIST: the suite's port forwards, as
 * Incus proxy devices on a container of the suite's.  The device is
 * built here from checked fields, under the names portspec.h defines:
 * nothing else of the instance can be changed this way.  A host address
 * off 127/8 is taken only when the parent says it was asked for by name
 * (the user's explicit --host-address, or host_address in the config),
 * a to-host forward never takes a privileged host port, and auto picks
 * the lowest port of PORT_AUTO_FIRST..LAST no proxy device of any
 * instance listens on, trying the next ones when Incus cannot bind it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "bound.h"
#include "incus.h"
#include "log.h"
#include "ops.h"
#include "portspec.h"

#define AUTO_TRIES	8

struct port_op {
	struct jb_port	 in;
	int		 autoport;	/* host_port was 0: ours to pick */
	int		 tries;
	uint8_t		 claimed[PORT_AUTO_LAST - PORT_AUTO_FIRST + 1];
};

/* a proxy device of an instance as a jb_port; 0, or -1 when not ours */
static int
port_from_device(const char *k, struct json_object *v, struct jb_port *p)
{
	enum port_dir	 dir;
	const char	*t, *bind, *listen, *connect;
	char		 lp[8], cp[8];
	uint32_t	 ln, cn;
	char		 la[16], ca[16];

	if ((t = jget_str(v, "type")) == NULL || strcmp(t, "proxy") != 0 ||
	    !port_device_ok(k, &dir, NULL, 0, NULL))
		return -1;
	memset(p, 0, sizeof(*p));
	(void)strlcpy(p->device, k, sizeof(p->device));
	p->dir = dir;
	bind = jget_str(v, "bind");
	listen = jget_str(v, "listen");
	connect = jget_str(v, "connect");
	/* a device changed by hand is listed by its name alone */
	if (listen == NULL || connect == NULL ||
	    port_endpoint_parse(listen, lp, sizeof(lp), la, sizeof(la),
	    &ln) == -1 ||
	    port_endpoint_parse(connect, cp, sizeof(cp), ca, sizeof(ca),
	    &cn) == -1 || strcmp(lp, cp) != 0)
		return 0;
	(void)strlcpy(p->proto, lp, sizeof(p->proto));
	if (bind != NULL && strcmp(bind, "instance") == 0) {
		(void)strlcpy(p->container_address, la,
		    sizeof(p->container_address));
		p->port = ln;
		(void)strlcpy(p->host_address, ca, sizeof(p->host_address));
		p->host_port = cn;
	} else {
		(void)strlcpy(p->host_address, la, sizeof(p->host_address));
		p->host_port = ln;
		(void)strlcpy(p->container_address, ca,
		    sizeof(p->container_address));
		p->port = cn;
	}
	return 0;
}

static void	port_patch(struct op_req *);

static void
port_added(struct op_req *r, struct json_object *md, const char *err)
{
	struct port_op	*po = r->priv;

	if (err != NULL) {
		/* auto: the port may be some other program's; the next */
		if (po->autoport && ++po->tries < AUTO_TRIES) {
			po->claimed[po->in.host_port - PORT_AUTO_FIRST] = 1;
			port_patch(r);
			return;
		}
		req_fail(r, err);
		return;
	}
	op_send(r, IMSG_INCUS_PORT, -1, &po->in, sizeof(po->in));
	req_done(r, 1, NULL);
}

static void
port_patch(struct op_req *r)
{
	struct port_op		*po = r->priv;
	struct jb_port		*p = &po->in;
	struct json_object	*body, *nd, *d;
	char			 cside[64], hside[64], why[JB_ERR_TEXT_MAX];
	uint32_t		 i;

	if (po->autoport) {
		for (i = 0; i <= PORT_AUTO_LAST - PORT_AUTO_FIRST; i++)
			if (!po->claimed[i])
				break;
		if (i > PORT_AUTO_LAST - PORT_AUTO_FIRST) {
			req_done(r, 0, "%s: every host port of %d-%d is taken: "
			    "give --host-port", r->what, PORT_AUTO_FIRST,
			    PORT_AUTO_LAST);
			return;
		}
		p->host_port = PORT_AUTO_FIRST + i;
	}
	if (port_endpoint(cside, sizeof(cside), p->proto,
	    p->container_address, p->port) == -1 ||
	    port_endpoint(hside, sizeof(hside), p->proto, p->host_address,
	    p->host_port) == -1)
		fatalx("%s: endpoint", __func__);
	body = jnew(json_object_new_object());
	nd = jnew(json_object_new_object());
	d = jnew(json_object_new_object());
	jput(d, "type", "proxy");
	if (p->dir == PORT_TO_CONTAINER) {
		jput(d, "bind", "instance");
		jput(d, "listen", cside);
		jput(d, "connect", hside);
	} else {
		jput(d, "bind", "host");
		jput(d, "listen", hside);
		jput(d, "connect", cside);
	}
	json_object_object_add(nd, p->device, d);
	json_object_object_add(body, "devices", nd);
	if (!bound_instance(&jb_bound, body, ops_bridge, why, sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else
		req_write(r, "PATCH", body, port_added);
	json_object_put(body);
}

/* auto: every host port a proxy of any instance listens on is taken */
static void
port_claimed(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct port_op		*po = r->priv;
	struct json_object	*devs;
	size_t			 i, n;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		devs = jget_obj(json_object_array_get_idx(list, i), "devices");
		if (devs == NULL)
			continue;
		json_object_object_foreach(devs, k, v) {
			const char *t = jget_str(v, "type");
			const char *b = jget_str(v, "bind");
			const char *l = jget_str(v, "listen");
			char pr[8], a[16];
			uint32_t hp;

			(void)k;
			if (t == NULL || strcmp(t, "proxy") != 0 || l == NULL ||
			    (b != NULL && strcmp(b, "instance") == 0) ||
			    port_endpoint_parse(l, pr, sizeof(pr), a,
			    sizeof(a), &hp) == -1)
				continue;
			if (hp >= PORT_AUTO_FIRST && hp <= PORT_AUTO_LAST)
				po->claimed[hp - PORT_AUTO_FIRST] = 1;
		}
	}
	port_patch(r);
}

static void
port_have(struct op_req *r, struct json_object *inst)
{
	struct port_op		*po = r->priv;
	struct json_object	*devs = jget_obj(inst, "devices");
	struct jb_port		 old;

	if (devs != NULL) {
		json_object_object_foreach(devs, k, v) {
			if (strcmp(k, po->in.device) == 0) {
				req_done(r, 0, "%s: %s already has a forward "
				    "%s: remove it first (jbctl port rm %s %s)",
				    r->what, po->in.name, k, k, po->in.name);
				return;
			}
			/* one listener per address and port inside */
			if (po->in.dir == PORT_TO_CONTAINER &&
			    port_from_device(k, v, &old) == 0 &&
			    old.dir == PORT_TO_CONTAINER &&
			    old.port == po->in.port &&
			    strcmp(old.proto, po->in.proto) == 0 &&
			    strcmp(old.container_address,
			    po->in.container_address) == 0) {
				req_done(r, 0, "%s: %s already listens on %s "
				    "%s:%u in %s", r->what, k, old.proto,
				    old.container_address, old.port,
				    po->in.name);
				return;
			}
		}
	}
	if (!po->autoport) {
		port_patch(r);
		return;
	}
	if ((r->call = incus_instances_list(ops_ic, NULL, NULL, port_claimed,
	    r)) == NULL)
		fatal("%s", __func__);
}

void
op_port_add(uint32_t rid, const struct jb_port *in)
{
	struct op_req	*r;
	struct port_op	*po;
	enum port_dir	 dir;
	char		 proto[8];
	uint32_t	 port;
	int		 named;

	must_string("PORT name", in->name, sizeof(in->name));
	must_string("PORT device", in->device, sizeof(in->device));
	must_string("PORT proto", in->proto, sizeof(in->proto));
	must_string("PORT container_address", in->container_address,
	    sizeof(in->container_address));
	must_string("PORT host_address", in->host_address,
	    sizeof(in->host_address));
	if ((po = calloc(1, sizeof(*po))) == NULL)
		fatal("%s", __func__);
	memcpy(&po->in, in, sizeof(po->in));
	po->in.prefix[0] = po->in.state[0] = '\0';
	r = req_new(rid, IMSG_INCUS_PORT_ADD, in->name);
	r->priv = po;
	r->priv_free = free;
	(void)snprintf(r->what, sizeof(r->what), "forward %s on %s",
	    in->device, in->name);
	named = port_device_ok(in->device, &dir, proto, sizeof(proto),
	    &port);

	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if (!named || (in->dir != PORT_TO_CONTAINER &&
	    in->dir != PORT_TO_HOST) || dir != in->dir)
		req_done(r, 0, "%s: not a forward device name of the suite's",
		    r->what);
	else if (!port_proto_ok(in->proto) || (proto[0] != '\0' &&
	    (strcmp(proto, in->proto) != 0 || port != in->port)))
		req_done(r, 0, "%s: the name does not match %s port %u",
		    r->what, in->proto, in->port);
	else if (in->port < 1 || in->port > 65535 ||
	    in->host_port > 65535 ||
	    (in->host_port == 0 && in->dir != PORT_TO_HOST))
		req_done(r, 0, "%s: port out of range", r->what);
	else if (in->dir == PORT_TO_HOST && in->host_port != 0 &&
	    in->host_port < PORT_HOST_MIN)
		req_done(r, 0, "%s: host port %u is privileged: a forward "
		    "takes %d or above", r->what, in->host_port,
		    PORT_HOST_MIN);
	else if (!port_addr_ok(in->container_address) ||
	    !port_addr_ok(in->host_address))
		req_done(r, 0, "%s: addresses must be IPv4 literals", r->what);
	else if (!port_addr_loopback(in->host_address) && in->nonlocal != 1)
		req_done(r, 0, "%s: host address %s is not loopback and was "
		    "not asked for by name", r->what, in->host_address);
	else {
		po->autoport = in->host_port == 0;
		req_device_turn(r, port_have);
	}
}

static void
port_removed(struct op_req *r, struct json_object *md, const char *err)
{
	if (err != NULL)
		req_fail(r, err);
	else
		req_done(r, 1, NULL);
}

static void
remove_have(struct op_req *r, struct json_object *inst)
{
	struct jb_port		*p = r->priv;
	struct json_object	*devs = jget_obj(inst, "devices");
	struct json_object	*d;
	const char		*t;

	if (devs == NULL || !json_object_object_get_ex(devs, p->device, &d) ||
	    (t = jget_str(d, "type")) == NULL || strcmp(t, "proxy") != 0) {
		req_done(r, 0, "%s: %s has no forward %s", r->what, p->name,
		    p->device);
		return;
	}
	/* PUT without it: PATCH can only add or change devices */
	json_object_object_del(devs, p->device);
	req_write(r, "PUT", inst, port_removed);
}

void
op_port_remove(uint32_t rid, const struct jb_port *in)
{
	struct op_req	*r;
	struct jb_port	*p;

	must_string("PORT name", in->name, sizeof(in->name));
	must_string("PORT device", in->device, sizeof(in->device));
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	memcpy(p, in, sizeof(*p));
	r = req_new(rid, IMSG_INCUS_PORT_REMOVE, in->name);
	r->priv = p;
	r->priv_free = free;
	(void)snprintf(r->what, sizeof(r->what), "remove forward %s from %s",
	    in->device, in->name);
	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if (!port_device_ok(in->device, NULL, NULL, 0, NULL))
		req_done(r, 0, "%s: not a forward device name of the suite's",
		    r->what);
	else
		req_device_turn(r, remove_have);
}

static void
list_inst(struct op_req *r, struct json_object *inst)
{
	struct json_object	*devs = jget_obj(inst, "devices");
	struct jb_port		 p;
	const char		*name, *pfx, *st;

	if (devs == NULL || (name = jget_str(inst, "name")) == NULL)
		return;
	pfx = jget_str(jget_obj(inst, "config"), "user.jailbee.prefix");
	st = jget_str(inst, "status");
	json_object_object_foreach(devs, k, v) {
		if (port_from_device(k, v, &p) == -1)
			continue;
		(void)strlcpy(p.name, name, sizeof(p.name));
		(void)strlcpy(p.prefix, pfx ? pfx : "", sizeof(p.prefix));
		(void)strlcpy(p.state, st ? st : "", sizeof(p.state));
		op_send(r, IMSG_INCUS_PORT, -1, &p, sizeof(p));
	}
}

static void
list_one(struct op_req *r, struct json_object *inst)
{
	list_inst(r, inst);
	req_done(r, 1, NULL);
}

static void
list_every(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct jb_incus_target	*t = r->priv;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	inst_each_ours(r, list, t->prefix, list_inst);
	req_done(r, 1, NULL);
}

void
op_port_list(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;

	must_string("PORT_LIST name", t->name, sizeof(t->name));
	must_string("PORT_LIST prefix", t->prefix, sizeof(t->prefix));
	r = req_new(rid, IMSG_INCUS_PORT_LIST, t->name);
	if (t->name[0] != '\0') {
		(void)snprintf(r->what, sizeof(r->what), "forwards of %s",
		    t->name);
		if (!name_instance_ok(t->name))
			req_done(r, 0, "no such container %s", t->name);
		else
			req_check_ours(r, list_one);
		return;
	}
	(void)snprintf(r->what, sizeof(r->what), "forwards");
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
	    list_every, r)) == NULL)
		fatal("%s", __func__);
}
