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
 * snapshot restore: the disk comes back, the devices do not.  Incus
 * restores a snapshot's devices with its disk, so a mount whose deadline
 * passed, a forward removed or an old host mount would come back with no
 * deadline and no check.  So the container is stopped first (cleanly,
 * then forced), restored while stopped (Incus does not start it then),
 * and its devices are set back to what they were just before the
 * restore.  It is left stopped: the parent starts it again, when it was
 * running, through the same check as every start.  Whatever fails, the
 * container stays stopped.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "incus.h"
#include "log.h"
#include "ops.h"

#define STOP_TIMEOUT	30	/* seconds for a clean stop */

struct restore {
	struct jb_incus_action	 a;		/* first: r->priv is one */
	struct json_object	*devs;		/* before the restore */
};

static void
restore_free(void *arg)
{
	struct restore	*rs = arg;

	json_object_put(rs->devs);
	free(rs);
}

static void
call(struct op_req *r, struct incus_call *c)
{
	if ((r->call = c) == NULL)
		fatal("%s", __func__);
}

static void
restore_fixed(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_done(r, 0, "%s: restored, but the devices it had before "
		    "cannot be set back, so it is left stopped: %s", r->what,
		    err);
		return;
	}
	req_done(r, 1, NULL);
}

/* each device the snapshot brought back or changed, named */
static int
restore_diff(struct op_req *r, struct json_object *now,
    struct json_object *before)
{
	struct json_object	*o;
	int			 n = 0;

	if (now != NULL) {
		json_object_object_foreach(now, k, v) {
			if (!json_object_object_get_ex(before, k, &o)) {
				req_progress(r, "removing device %s, which "
				    "the snapshot held and %s did not", k,
				    r->name);
				n++;
			} else if (!json_object_equal(v, o)) {
				req_progress(r, "setting device %s back to "
				    "what it was before the restore", k);
				n++;
			}
		}
	}
	json_object_object_foreach(before, k2, v2) {
		(void)v2;
		if (now == NULL || !json_object_object_get_ex(now, k2, NULL)) {
			req_progress(r, "keeping device %s, which the "
			    "snapshot did not hold", k2);
			n++;
		}
	}
	return n;
}

static void
restore_got(void *arg, struct json_object *inst, const char *err)
{
	struct op_req		*r = arg;
	struct restore		*rs = r->priv;
	struct json_object	*devs = NULL;
	char			 path[JB_INSTANCE_MAX + 32];

	r->call = NULL;
	if (err != NULL || inst == NULL) {
		req_done(r, 0, "%s: restored, but it cannot be read back, so "
		    "it is left stopped: %s", r->what, err ? err : "gone");
		return;
	}
	if (restore_diff(r, jget_obj(inst, "devices"), rs->devs) == 0) {
		req_done(r, 1, NULL);
		return;
	}
	if (json_object_deep_copy(rs->devs, &devs, NULL) != 0)
		fatal("%s", __func__);
	json_object_object_add(inst, "devices", devs);
	(void)snprintf(path, sizeof(path), "/1.0/instances/%s", r->name);
	call(r, incus_request(ops_ic, "PUT", path, inst, restore_fixed, r));
}

static void
restored(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	call(r, incus_instance_get(ops_ic, r->name, restore_got, r));
}

static void
restore_now(struct op_req *r)
{
	struct restore	*rs = r->priv;

	req_progress(r, "restoring %s to %s", r->name, rs->a.tag);
	call(r, incus_snapshot_restore(ops_ic, r->name, rs->a.tag, restored,
	    r));
}

static void
restore_stopped(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	restore_now(r);
}

static void
restore_clean(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	char		 why[JB_ERR_TEXT_MAX];

	r->call = NULL;
	if (err == NULL) {
		restore_now(r);
		return;
	}
	log_info("%s: %s; forcing the stop", r->what, err);
	incus_reason(why, sizeof(why), err);
	req_progress(r, "%s did not stop cleanly (%s): forcing it", r->name,
	    why);
	call(r, incus_instance_state(ops_ic, r->name, "stop", 1, -1,
	    restore_stopped, r));
}

void
snap_restore(struct op_req *r, struct json_object *inst)
{
	struct restore		*rs;
	struct json_object	*devs = NULL;
	const char		*status = jget_str(inst, "status");

	if ((rs = calloc(1, sizeof(*rs))) == NULL)
		fatal("%s", __func__);
	memcpy(&rs->a, r->priv, sizeof(rs->a));
	if ((devs = jget_obj(inst, "devices")) == NULL)
		rs->devs = jnew(json_object_new_object());
	else if (json_object_deep_copy(devs, &rs->devs, NULL) != 0)
		fatal("%s", __func__);
	if (r->priv_free != NULL)
		r->priv_free(r->priv);
	r->priv = rs;
	r->priv_free = restore_free;
	if (status != NULL && strcmp(status, "Stopped") == 0) {
		restore_now(r);
		return;
	}
	req_progress(r, "stopping %s to restore it", r->name);
	call(r, incus_instance_state(ops_ic, r->name, "stop", 0, STOP_TIMEOUT,
	    restore_clean, r));
}
