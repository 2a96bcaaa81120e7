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
 * ACTION: start, stop, restart, delete and snapshots of one container.
 * The instance is fetched first and nothing is done unless it carries
 * the suite's user.jailbee.repo key: instances that are not ours are
 * never touched.
 */

#include <sys/queue.h>
#include <sys/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <json.h>

#include "incus.h"
#include "log.h"
#include "ops.h"

#define STOP_TIMEOUT	30	/* seconds for a clean stop */
#define DELETE_LOOKS	20	/* looks at a container whose stop failed */
#define DELETE_LOOK_MS	250	/* apart */

/*
 * An action as the parent sent it (first, so that r->priv is the
 * action), and for a delete whose stop or delete failed: the looks
 * taken since, the wait before the next one and the first failure.  A
 * container whose init dies as it is destroyed (killed by the OOM
 * killer, say) reads as running, then in error, then stopped, and Incus
 * refuses to stop it ("already stopped") or to delete it ("Instance is
 * running") meanwhile: it is stopped again while it reads running, and
 * deleted once it reads stopped.
 */
struct act_state {
	struct jb_incus_action	 a;
	int			 looks;
	int			 said_deleting;
	struct event		*wait;
	char			 err[JB_ERR_TEXT_MAX];
};

static void	act_go(struct op_req *, struct json_object *);
static void	delete_stopped(void *, struct json_object *, const char *);
static void	delete_done(void *, struct json_object *, const char *);

/* what Incus takes as a snapshot name, and nothing to escape in a path */
static int
valid_snapshot(const char *s)
{
	size_t	len = strlen(s);

	if (len == 0 || strchr(".-_", s[0]) != NULL)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

static void
act_free(void *arg)
{
	struct act_state	*st = arg;

	if (st->wait != NULL)
		event_free(st->wait);
	free(st);
}

void
op_action(uint32_t rid, const struct jb_incus_action *in)
{
	struct op_req		*r;
	struct act_state	*st;
	struct jb_incus_action	*a;
	const char		*verb;

	must_string("ACTION name", in->name, sizeof(in->name));
	must_string("ACTION tag", in->tag, sizeof(in->tag));
	switch (in->verb) {
	case INCUS_START:
		verb = "start";
		break;
	case INCUS_STOP:
		verb = "stop";
		break;
	case INCUS_RESTART:
		verb = "restart";
		break;
	case INCUS_DELETE:
		verb = "delete";
		break;
	case INCUS_SNAP_CREATE:
		verb = "snapshot create";
		break;
	case INCUS_SNAP_RESTORE:
		verb = "snapshot restore";
		break;
	case INCUS_SNAP_DELETE:
		verb = "snapshot delete";
		break;
	case INCUS_SNAP_LIST:
		verb = "snapshot ls";
		break;
	default:
		fatalx("ACTION from the parent with verb %u", in->verb);
	}

	r = req_new(rid, IMSG_INCUS_ACTION, in->name);
	if ((st = calloc(1, sizeof(*st))) == NULL)
		fatal("%s", __func__);
	memcpy(&st->a, in, sizeof(st->a));
	a = &st->a;
	r->priv = st;
	r->priv_free = act_free;
	if (a->verb >= INCUS_SNAP_CREATE && a->verb <= INCUS_SNAP_DELETE)
		(void)snprintf(r->what, sizeof(r->what), "%s %s/%s", verb,
		    a->name, a->tag);
	else
		(void)snprintf(r->what, sizeof(r->what), "%s %s", verb,
		    a->name);

	if (!name_instance_ok(a->name)) {
		req_done(r, 0, "no such container %s", a->name);
		return;
	}
	if (a->verb >= INCUS_SNAP_CREATE && a->verb <= INCUS_SNAP_DELETE) {
		if (a->tag[0] == '\0') {
			req_done(r, 0, "%s %s: no snapshot name given", verb,
			    a->name);
			return;
		}
		if (!valid_snapshot(a->tag)) {
			req_done(r, 0, "%s: bad snapshot name \"%s\": "
			    "letters, digits, '.', '_' and '-', not starting "
			    "with a punctuation mark", r->what, a->tag);
			return;
		}
	}
	req_check_ours(r, act_go);
}

static void
call(struct op_req *r, struct incus_call *c)
{
	if ((r->call = c) == NULL)
		fatal("%s", __func__);
}

/* A clean stop or restart that failed gets forced. */
static void
clean_done(void *arg, struct json_object *md, const char *err)
{
	struct op_req		*r = arg;
	struct jb_incus_action	*a = r->priv;
	const char		*verb;
	char			 why[JB_ERR_TEXT_MAX];

	r->call = NULL;
	if (err == NULL) {
		req_done(r, 1, NULL);
		return;
	}
	verb = a->verb == INCUS_STOP ? "stop" : "restart";
	log_info("%s: %s; forcing it", r->what, err);
	incus_reason(why, sizeof(why), err);
	req_progress(r, "%s did not %s cleanly (%s): forcing it", r->name,
	    verb, why);
	call(r, incus_instance_state(ops_ic, r->name, verb, 1, -1, req_call_done,
	    r));
}

/* the container as it is now: deleted when stopped, else stopped again
 * when running, else looked at again */
static void
delete_looked(void *arg, struct json_object *inst, const char *err)
{
	struct op_req		*r = arg;
	struct act_state	*st = r->priv;
	const char		*status;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	status = jget_str(inst, "status");
	if (status != NULL && strcmp(status, "Running") == 0) {
		call(r, incus_instance_state(ops_ic, r->name, "stop", 1, -1,
		    delete_stopped, r));
		return;
	}
	delete_stopped(r, NULL, status != NULL &&
	    strcmp(status, "Stopped") == 0 ? NULL : st->err);
}

static void
delete_look(evutil_socket_t fd, short ev, void *arg)
{
	struct op_req	*r = arg;

	call(r, incus_instance_get(ops_ic, r->name, delete_looked, r));
}

/* after the stop: deleted, or a failure noted and looked at again */
static void
delete_stopped(void *arg, struct json_object *md, const char *err)
{
	struct op_req		*r = arg;
	struct act_state	*st = r->priv;
	struct timeval		 tv = { 0, DELETE_LOOK_MS * 1000 };

	r->call = NULL;
	if (err != NULL) {
		if (st->err[0] == '\0')
			(void)strlcpy(st->err, err, sizeof(st->err));
		if (!st->a.force || ++st->looks > DELETE_LOOKS) {
			req_fail(r, st->err);
			return;
		}
		if (st->wait == NULL && (st->wait = evtimer_new(
		    incus_base(ops_ic), delete_look, r)) == NULL)
			fatal("%s", __func__);
		evtimer_add(st->wait, &tv);
		return;
	}
	if (!st->said_deleting)
		req_progress(r, "deleting %s", r->name);
	st->said_deleting = 1;
	call(r, incus_instance_delete(ops_ic, r->name, delete_done, r));
}

static void
delete_done(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL)
		delete_stopped(r, NULL, err);
	else
		req_done(r, 1, NULL);
}

static void
snap_list(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct jb_snapshot	 s;
	struct json_object	*snap, *v;
	const char		*name, *slash;
	size_t			 i, n;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (!json_object_is_type(list, json_type_array)) {
		req_done(r, 0, "%s: the answer is not a list", r->what);
		return;
	}
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		snap = json_object_array_get_idx(list, i);
		if ((name = jget_str(snap, "name")) == NULL)
			continue;
		/* some versions say "instance/snapshot" */
		if ((slash = strrchr(name, '/')) != NULL)
			name = slash + 1;
		memset(&s, 0, sizeof(s));
		(void)strlcpy(s.instance, r->name, sizeof(s.instance));
		(void)strlcpy(s.name, name, sizeof(s.name));
		s.created = parse_time(jget_str(snap, "created_at"));
		if (json_object_object_get_ex(snap, "stateful", &v))
			s.stateful = json_object_get_boolean(v) ? 1 : 0;
		op_send(r, IMSG_INCUS_SNAPSHOT, -1, &s, sizeof(s));
	}
	req_done(r, 1, NULL);
}

static void
start_now(struct op_req *r)
{
	req_progress(r, "starting %s", r->name);
	call(r, incus_instance_state(ops_ic, r->name, "start", 0, -1,
	    req_call_done, r));
}

static void
nic_owned(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	(void)md;
	r->call = NULL;
	if (err != NULL) {
		req_done(r, 0, "%s: eth0 cannot be given the port name and "
		    "MAC address jb-netd's filter lets send, so it is not "
		    "started: %s", r->what, err);
		return;
	}
	start_now(r);
}

/*
 * A container made before jb-netd filtered the bridge has a NIC with
 * a port name and MAC the filter does not know (and Incus's filtering):
 * it gets the suite's before it starts, else it could send nothing.
 */
static void
start_go(struct op_req *r, struct json_object *inst)
{
	struct json_object	*d;
	char			 path[JB_INSTANCE_MAX + 32];

	d = jget_obj(jget_obj(inst, "devices"), "eth0");
	if (d == NULL || jget_str(d, "ipv4.address") == NULL ||
	    nic_own(d, jget_str(d, "ipv4.address")) != 1) {
		start_now(r);
		return;
	}
	req_progress(r, "%s: eth0 gets the port name and MAC address "
	    "jb-netd's filter lets send", r->name);
	(void)snprintf(path, sizeof(path), "/1.0/instances/%s", r->name);
	call(r, incus_request(ops_ic, "PUT", path, inst, nic_owned, r));
}

static void
act_go(struct op_req *r, struct json_object *inst)
{
	struct jb_incus_action	*a = r->priv;
	const char		*status = jget_str(inst, "status");
	char			 path[128];
	int			 running, stopped;

	stopped = status != NULL && strcmp(status, "Stopped") == 0;
	running = status != NULL && strcmp(status, "Running") == 0;

	switch (a->verb) {
	case INCUS_START:
		if (running) {
			req_done(r, 0, "%s is already running", r->name);
			return;
		}
		start_go(r, inst);
		break;
	case INCUS_STOP:
	case INCUS_RESTART:
		if (stopped) {
			req_done(r, 0, "%s is not running", r->name);
			return;
		}
		if (a->verb == INCUS_STOP)
			req_progress(r, "stopping %s", r->name);
		else
			req_progress(r, "restarting %s", r->name);
		call(r, incus_instance_state(ops_ic, r->name,
		    a->verb == INCUS_STOP ? "stop" : "restart", a->force != 0,
		    a->force ? -1 : STOP_TIMEOUT,
		    a->force ? req_call_done : clean_done, r));
		break;
	case INCUS_DELETE:
		if (!stopped && !a->force) {
			req_done(r, 0, "%s is %s: stop it first or use "
			    "--force", r->name, running ? "running" :
			    status != NULL ? status : "not stopped");
			return;
		}
		if (!stopped) {
			req_progress(r, "stopping %s", r->name);
			call(r, incus_instance_state(ops_ic, r->name, "stop",
			    1, -1, delete_stopped, r));
		} else
			delete_stopped(r, NULL, NULL);
		break;
	case INCUS_SNAP_CREATE:
		call(r, incus_snapshot_create(ops_ic, r->name, a->tag,
		    req_call_done, r));
		break;
	case INCUS_SNAP_RESTORE:
		snap_restore(r, inst);
		break;
	case INCUS_SNAP_DELETE:
		call(r, incus_snapshot_delete(ops_ic, r->name, a->tag,
		    req_call_done, r));
		break;
	case INCUS_SNAP_LIST:
		/* the name passed name_instance_ok(): nothing to escape */
		(void)snprintf(path, sizeof(path),
		    "/1.0/instances/%s/snapshots?recursion=1", r->name);
		call(r, incus_request(ops_ic, "GET", path, NULL, snap_list,
		    r));
		break;
	}
}
