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
 * The Incus REST API as jb-incus uses it, asynchronous, on top of http_client.c.
 *
 * Every call returns at once and reports through its callback, from the
 * event loop and never from inside the call itself.  Calls whose request
 * Incus runs as a background operation (create, state changes, delete,
 * exec, snapshots, image import) wait for that operation to finish,
 * waiting again on "context deadline exceeded", and report its result.
 *
 * Callback conventions: err is NULL on success, otherwise a message that
 * names the request and carries Incus's own error text.  A json_object
 * handed to a callback is borrowed: take a reference (json_object_get) to
 * keep it.  For a sync response it is the "metadata" member; for an
 * operation it is the finished operation's own "metadata" member (NULL
 * when the operation has none).
 *
 * A call returns NULL only when memory is short; then no callback runs.
 * incus_cancel() drops one pending call, incus_free() all of them; no
 * callback runs for a dropped call.
 */

#ifndef JB_INCUS_H
#define JB_INCUS_H

#include <sys/types.h>

#include <stddef.h>

#include "http.h"

struct event_base;
struct json_object;
struct incus;
struct incus_call;

#define INCUS_SOCKET		"/var/lib/incus/unix.socket"
#define INCUS_OP_TIMEOUT	600	/* seconds an operation may run */
#define INCUS_WAIT_SECS		30	/* one long poll on an operation */

typedef void	(*incus_json_cb)(void *, struct json_object *, const char *);
/*
 * An instance read or written with its version: etag is the ETag Incus
 * sent (NULL when none); stale is 1 when a write's If-Match failed (HTTP
 * 412): the instance changed since it was read.
 */
typedef void	(*incus_tag_cb)(void *, struct json_object *, const char *,
		    int, const char *);

struct incus	*incus_new(struct event_base *, const char *,
		    const struct http_tls *, char *, size_t);
void		 incus_free(struct incus *);
/* op_secs: deadline of an operation; wait_secs: one long poll; 0: default */
void		 incus_set_timeouts(struct incus *, int, int);
struct http_client *incus_http(struct incus *);
struct event_base *incus_base(struct incus *);
/* calls not yet ended: an exec's logs are deleted after its answer */
int		 incus_pending(struct incus *);
void		 incus_cancel(struct incus_call *);
/* Incus refused a change because another is under way on the instance */
int		 incus_busy_refusal(const char *);

struct incus_call *incus_get_maybe(struct incus *, const char *,
	    incus_json_cb, void *);
/* Any request: body is JSON (or NULL).  Operations are waited for. */
struct incus_call *incus_request(struct incus *, const char *, const char *,
		    struct json_object *, incus_json_cb, void *);
/* Waits for "/1.0/operations/UUID" to finish. */
struct incus_call *incus_operation_wait(struct incus *, const char *,
		    incus_json_cb, void *);

/*
 * GET path, or the same GET's answer given less than 2 s ago when no
 * call that was no GET has ended since (incus.c says what for).
 */
struct incus_call *incus_get_recent(struct incus *, const char *,
		    incus_json_cb, void *);

/*
 * GET path, a network's record, or the same GET's answer kept since the
 * event stream last said anything of a network (incus.c says when).
 */
struct incus_call *incus_get_followed(struct incus *, const char *,
		    incus_json_cb, void *);

/* GET /1.0: server configuration and environment. */
struct incus_call *incus_server_get(struct incus *, incus_json_cb, void *);

/*
 * The instances (recursion=1, a JSON array) whose config key (which must
 * start with "user.") equals value, or merely exists when value is NULL;
 * all instances when key is NULL.  The match is exact and made here, on
 * the whole list; one asked while another is on its way shares that
 * one's answer (see incus.c).  Cancelling a list others share only
 * forgets its own callback.
 */
/*
 * The event stream: opened (on a single server, lists asked from then
 * on are kept and read again instance by instance, instcache.h, and a
 * network's record until a network event), lost, or naming an instance
 * with what happened to it.
 */
void		 incus_events_open(struct incus *);
void		 incus_events_lost(struct incus *);
void		 incus_instance_event(struct incus *, const char *,
		    const char *);
/* Any network was made, changed, renamed or deleted. */
void		 incus_network_event(struct incus *);

struct incus_call *incus_instances_list(struct incus *, const char *,
		    const char *, incus_json_cb, void *);
/* One instance, or md NULL and err NULL when it does not exist. */
struct incus_call *incus_instance_get(struct incus *, const char *,
		    incus_json_cb, void *);
/* incus_instance_get, with the instance's ETag */
struct incus_call *incus_instance_get_tagged(struct incus *, const char *,
		    incus_tag_cb, void *);
/* PUT or PATCH /1.0/instances/NAME, only if it is still at etag */
struct incus_call *incus_instance_write(struct incus *, const char *,
		    const char *, struct json_object *, const char *,
		    incus_tag_cb, void *);
/* GET /1.0/cluster/members/NAME, with its ETag */
struct incus_call *incus_member_get_tagged(struct incus *, const char *,
		    incus_tag_cb, void *);
/* PUT /1.0/cluster/members/NAME, only if it is still at etag */
struct incus_call *incus_member_write(struct incus *, const char *,
		    struct json_object *, const char *, incus_tag_cb, void *);
/* POST /1.0/instances with the caller's InstancesPost object. */
struct incus_call *incus_instance_create(struct incus *, struct json_object *,
		    incus_json_cb, void *);
struct incus_call *incus_instance_create_at(struct incus *,
	    struct json_object *, const char *target, incus_json_cb, void *);
/* action: start, stop, restart, freeze, unfreeze; timeout -1: default */
struct incus_call *incus_instance_state(struct incus *, const char *,
		    const char *, int, int, incus_json_cb, void *);
struct incus_call *incus_instance_delete(struct incus *, const char *,
		    incus_json_cb, void *);
/* PATCH /1.0/instances/NAME, e.g. {"config":{"user.jailbee.x":"y"}} */
struct incus_call *incus_instance_patch(struct incus *, const char *,
		    struct json_object *, incus_json_cb, void *);

/* Non-interactive exec with recorded output. */
struct incus_exec {
	const char *const	*argv;		/* NULL-terminated */
	const char *const	*env;		/* "K=V", NULL-terminated */
	const char		*cwd;		/* NULL: "/" */
	int			 uid;		/* -1: root */
	int			 gid;		/* -1: root */
	int			 quiet_ok;	/* exit 0: its output is not read */
};

/* the JSON body of an exec request (recorded output, or websockets) */
struct json_object *incus_exec_body(const char *const *, const char *const *,
		    const char *, int64_t, int64_t, int, int, unsigned int,
		    unsigned int);

struct incus_exec_result {
	int		 status;		/* the command's exit code */
	const char	*out;			/* NUL-terminated */
	size_t		 outlen;
	const char	*err;
	size_t		 errlen;
};

/*
 * res is non-NULL whenever the command ran, even when err reports a later
 * failure (fetching or deleting the recorded output).
 */
typedef void	(*incus_exec_cb)(void *, const struct incus_exec_result *,
		    const char *);

struct incus_call *incus_exec(struct incus *, const char *,
		    const struct incus_exec *, incus_exec_cb, void *);

/* Files inside an instance. */
struct incus_file {
	const char	*type;		/* "file", "directory", "symlink" */
	int		 uid;		/* -1: leave to Incus */
	int		 gid;
	int		 mode;		/* -1: leave to Incus */
	int		 append;	/* push: append instead of replace */
	const char	*data;		/* pull: NUL-terminated copy */
	size_t		 len;
};

typedef void	(*incus_file_cb)(void *, const struct incus_file *,
		    const char *);

struct incus_call *incus_file_push(struct incus *, const char *, const char *,
		    const struct incus_file *, incus_json_cb, void *);
struct incus_call *incus_file_pull(struct incus *, const char *, const char *,
		    incus_file_cb, void *);
/* a path that is not there is no error: cb gets NULL and NULL */

/* Snapshots of an instance's storage. */
struct incus_call *incus_snapshot_create(struct incus *, const char *,
		    const char *, incus_json_cb, void *);
struct incus_call *incus_snapshot_delete(struct incus *, const char *,
		    const char *, incus_json_cb, void *);
struct incus_call *incus_snapshot_restore(struct incus *, const char *,
		    const char *, incus_json_cb, void *);

/* Images: list (array), alias lookup (NULL, NULL when absent), import. */
struct incus_call *incus_images_list(struct incus *, incus_json_cb, void *);
struct incus_call *incus_image_alias_get(struct incus *, const char *,
		    incus_json_cb, void *);
/* One image by fingerprint; md NULL and err NULL when absent. */
struct incus_call *incus_image_get(struct incus *, const char *,
		    incus_json_cb, void *);
/* A unified tarball; md is {"fingerprint": ...}; the alias may be NULL. */
struct incus_call *incus_image_import(struct incus *, const void *, size_t,
		    const char *, incus_json_cb, void *);
/* The same from a file, streamed: fd stays open until the callback. */
struct incus_call *incus_image_import_fd(struct incus *, int, size_t,
		    const char *, const char *, incus_json_cb, void *);
struct incus_call *incus_image_delete(struct incus *, const char *,
		    incus_json_cb, void *);

#endif /* JB_INCUS_H */
