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
 * MEMBOX_GET and MEMBOX_SET: the cluster mailbox's keys in a cluster
 * member's configuration (membox.h).  Only keys under MEMBOX_ASK and
 * MEMBOX_ANSWER are read or written; the rest of the member (its other
 * keys, description, roles, groups, failure domain) is written back as
 * it was read, and only if Incus still holds it so (If-Match), else it
 * is read again.  A set that also takes a key out (an answer and its
 * request) is refused when that key is already gone: the asker gave up,
 * and an answer nobody reads would stay.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "incus.h"
#include "log.h"
#include "membox.h"
#include "names.h"
#include "ops.h"

#define MEMBOX_TRIES	8	/* writes refused as stale, at most */

struct membox_req {
	struct jb_membox	 m;
	int			 tries;
};

/* a key of the mailbox, in the letters its ids are made of */
static int
membox_key_ok(const char *k)
{
	size_t	n = strlen(k);

	return (strncmp(k, MEMBOX_ASK, strlen(MEMBOX_ASK)) == 0 ||
	    strncmp(k, MEMBOX_ANSWER, strlen(MEMBOX_ANSWER)) == 0) &&
	    n < MEMBOX_KEY_MAX && strspn(k, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") == n;
}

/* the member read: 1, else the request is done with why (0) */
static int
member_read(struct op_req *r, struct json_object *md, const char *err)
{
	struct membox_req	*q = r->priv;

	r->call = NULL;
	if (err != NULL)
		req_fail(r, err);
	else if (md == NULL)
		req_done(r, 0, "no cluster member %s", q->m.member);
	return err == NULL && md != NULL;
}

static void
got_keys(void *arg, struct json_object *md, const char *etag,
    int stale, const char *err)
{
	struct op_req		*r = arg;
	struct membox_req	*q = r->priv;
	struct jb_membox	*kv;
	struct json_object	*cfg;
	size_t			 plen = strlen(q->m.key);

	if (!member_read(r, md, err))
		return;
	if ((kv = malloc(sizeof(*kv))) == NULL)
		fatal("%s", __func__);
	cfg = jget_obj(md, "config");
	if (cfg != NULL) {
		json_object_object_foreach(cfg, k, v) {
			if (strncmp(k, q->m.key, plen) != 0 ||
			    !membox_key_ok(k) ||
			    !json_object_is_type(v, json_type_string) ||
			    (size_t)json_object_get_string_len(v) >=
			    sizeof(kv->value))
				continue;
			memset(kv, 0, sizeof(*kv));
			(void)strlcpy(kv->member, q->m.member,
			    sizeof(kv->member));
			(void)strlcpy(kv->key, k, sizeof(kv->key));
			(void)strlcpy(kv->value, json_object_get_string(v),
			    sizeof(kv->value));
			op_send(r, IMSG_INCUS_MEMBOX_KV, -1, kv, sizeof(*kv));
		}
	}
	free(kv);
	req_done(r, 1, NULL);
}

static void	membox_read(struct op_req *);

static void
written(void *arg, struct json_object *md, const char *etag,
    int stale, const char *err)
{
	struct op_req		*r = arg;
	struct membox_req	*q = r->priv;

	r->call = NULL;
	if (err != NULL && stale && ++q->tries < MEMBOX_TRIES) {
		membox_read(r);
		return;
	}
	if (err != NULL)
		req_fail(r, err);
	else
		req_done(r, 1, NULL);
}

/* the member's writable part as read, copied, with the mailbox edited */
static void
got_member(void *arg, struct json_object *md, const char *etag,
    int stale, const char *err)
{
	struct op_req		*r = arg;
	struct membox_req	*q = r->priv;
	struct json_object	*body, *cfg, *v;
	const char		*keep[] = { "description", "roles",
				    "failure_domain", "groups" };
	size_t			 i;

	if (!member_read(r, md, err))
		return;
	/* an answer goes in only while its request is still there */
	if (q->m.key[0] != '\0' && q->m.value[0] != '\0' &&
	    q->m.unset[0] != '\0' && (jget_obj(md, "config") == NULL ||
	    jget_str(jget_obj(md, "config"), q->m.unset) == NULL)) {
		req_done(r, 0, "%s: %s is no longer there", r->what,
		    q->m.unset);
		return;
	}
	body = jnew(json_object_new_object());
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (json_object_object_get_ex(md, keep[i], &v))
			json_object_object_add(body, keep[i],
			    json_object_get(v));
	cfg = jnew(json_object_new_object());
	if ((v = jget_obj(md, "config")) != NULL) {
		json_object_object_foreach(v, k, val) {
			if (strcmp(k, q->m.key) == 0 ||
			    strcmp(k, q->m.unset) == 0)
				continue;
			json_object_object_add(cfg, k, json_object_get(val));
		}
	}
	if (q->m.key[0] != '\0' && q->m.value[0] != '\0')
		jput(cfg, q->m.key, q->m.value);
	json_object_object_add(body, "config", cfg);
	if ((r->call = incus_member_write(ops_ic, q->m.member, body, etag,
	    written, r)) == NULL)
		fatal("%s", __func__);
	json_object_put(body);
}

static void
membox_read(struct op_req *r)
{
	struct membox_req	*q = r->priv;

	if ((r->call = incus_member_get_tagged(ops_ic, q->m.member,
	    r->type == IMSG_INCUS_MEMBOX_GET ? got_keys : got_member, r)) ==
	    NULL)
		fatal("%s", __func__);
}

void
op_membox(uint32_t rid, uint32_t type, const struct jb_membox *in)
{
	struct op_req		*r;
	struct membox_req	*q;

	must_string("MEMBOX member", in->member, sizeof(in->member));
	must_string("MEMBOX key", in->key, sizeof(in->key));
	must_string("MEMBOX value", in->value, sizeof(in->value));
	must_string("MEMBOX unset", in->unset, sizeof(in->unset));
	r = req_new(rid, type, "");
	(void)snprintf(r->what, sizeof(r->what), "%s the mailbox of cluster "
	    "member %s", type == IMSG_INCUS_MEMBOX_GET ? "read" : "write",
	    in->member);
	if (!name_instance_ok(in->member)) {
		req_done(r, 0, "no cluster member %s", in->member);
		return;
	}
	if ((in->key[0] != '\0' || in->unset[0] == '\0' ||
	    type == IMSG_INCUS_MEMBOX_GET) && !membox_key_ok(in->key)) {
		req_done(r, 0, "%s: not a key of the mailbox", r->what);
		return;
	}
	if (in->unset[0] != '\0' && !membox_key_ok(in->unset)) {
		req_done(r, 0, "%s: not a key of the mailbox", r->what);
		return;
	}
	if ((q = calloc(1, sizeof(*q))) == NULL)
		fatal("%s", __func__);
	memcpy(&q->m, in, sizeof(q->m));
	r->priv = q;
	r->priv_free = free;
	membox_read(r);
}
