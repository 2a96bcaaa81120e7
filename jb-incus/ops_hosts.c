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
 * HOSTS: a container's /etc/hosts block.  The only file
 * this op writes is /etc/hosts, and only with "ADDR NAME" lines between
 * the suite's sentinels (hostspin.h); the rest of the file, read back
 * through Incus's file API, is kept as it was.  The whole new content
 * goes back in one request, with the owner and mode the file had, and
 * only when it differs, so an unchanged block costs one read.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "hostspin.h"
#include "incus.h"
#include "log.h"
#include "ops.h"

#define HOSTS_PATH	"/etc/hosts"

static void
hosts_read(void *arg, const struct incus_file *f, const char *err)
{
	struct op_req		*r = arg;
	struct jb_hosts_pin	*pin = r->priv;
	struct incus_file	 w;
	char			*out;
	size_t			 outlen;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (strcmp(f->type, "file") != 0) {
		req_done(r, 0, "%s: %s is a %s, not a file: the block is not "
		    "written through it", r->what, HOSTS_PATH, f->type);
		return;
	}
	if (hostspin_merge(f->data, f->len, pin->text, pin->len, &out,
	    &outlen) == -1) {
		req_done(r, 0, "%s: %s is larger than %d bytes or memory is "
		    "short", r->what, HOSTS_PATH, HOSTSPIN_FILE_MAX);
		return;
	}
	if (outlen == f->len && memcmp(out, f->data, outlen) == 0) {
		free(out);
		req_done(r, 1, NULL);
		return;
	}
	memset(&w, 0, sizeof(w));
	w.type = "file";
	w.uid = f->uid >= 0 ? f->uid : 0;
	w.gid = f->gid >= 0 ? f->gid : 0;
	w.mode = f->mode >= 0 ? f->mode : 0644;
	w.data = out;
	w.len = outlen;
	r->call = incus_file_push(ops_ic, r->name, HOSTS_PATH, &w,
	    req_call_done, r);
	free(out);
	if (r->call == NULL)
		fatal("%s", __func__);
}

static void
hosts_ours(struct op_req *r, struct json_object *inst)
{
	if ((r->call = incus_file_pull(ops_ic, r->name, HOSTS_PATH,
	    hosts_read, r)) == NULL)
		fatal("%s", __func__);
}

void
op_hosts(uint32_t rid, const struct jb_hosts_pin *in)
{
	struct op_req		*r;
	struct jb_hosts_pin	*pin;

	must_string("HOSTS name", in->name, sizeof(in->name));
	if (in->len >= sizeof(in->text))
		fatalx("HOSTS from the parent: %u bytes of block", in->len);
	r = req_new(rid, IMSG_INCUS_HOSTS, in->name);
	(void)snprintf(r->what, sizeof(r->what), "pin %s in %s", HOSTS_PATH,
	    in->name);
	if (!name_instance_ok(in->name)) {
		req_done(r, 0, "no such container %s", in->name);
		return;
	}
	if (!hostspin_valid(in->text, in->len)) {
		req_done(r, 0, "%s: the block holds a line that is not "
		    "\"ADDR NAME\"", r->what);
		return;
	}
	if ((pin = malloc(sizeof(*pin))) == NULL)
		fatal("%s", __func__);
	memcpy(pin, in, sizeof(*pin));
	r->priv = pin;
	r->priv_free = free;
	req_check_ours(r, hosts_ours);
}
