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
 * Incus's event stream (GET /1.0/events?type=lifecycle, a websocket):
 * each instance event (instance-created, -updated, -deleted, -renamed,
 * -migrated, -started...) goes to the parent as IMSG_INCUS_EVENT, name
 * and action, unasked; the parent reads the instance again and has
 * jb-netd enforce what Incus holds, so a container made, changed or
 * deleted with the plain incus command behind the suite's back is
 * enforced at once.  The event's bytes are Incus's; only an instance
 * name that passes name_instance_ok() and an action of [a-z-] go on
 * (evparse.c).  A network's event goes no further than jb-incus, which
 * drops the network record it keeps (incus_get_followed()).
 * The stream is opened when the parent asks (FOLLOW), and answered when
 * it is open: the parent reads Incus after that, so no change falls
 * between its read and the first event.  Until then jb-incus sends
 * nothing unasked.
 * A lost stream is opened again after RETRY_SECS, and the parent is
 * told to read everything again ("resync"): events may have been missed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "evparse.h"
#include "http.h"
#include "incus.h"
#include "log.h"
#include "ops.h"
#include "proc.h"
#include "testhook.h"
#include "ws.h"

#define RETRY_SECS	jb_test_secs(5, 1)
#define EVENT_MAX	(256 * 1024)	/* one event's JSON */

static struct child		*ev_child;
static struct ws_conn		*ev_ws;
static struct http_request	*ev_req;
static struct event		*ev_retry;
static struct evbuffer		*ev_msg;	/* the message being read */
static char			 ev_key[WS_KEY_LEN + 1];
static int			 ev_lost;	/* a stream was lost before */
static int			 ev_on;		/* the parent asked to follow */
static uint32_t			 ev_rid;	/* its FOLLOW, unanswered */

static void	ev_open(void);

static void
ev_tell(const char *name, const char *action)
{
	struct jb_incus_event	e;

	memset(&e, 0, sizeof(e));
	(void)strlcpy(e.name, name, sizeof(e.name));
	(void)strlcpy(e.action, action, sizeof(e.action));
	if (imsgev_compose(&ev_child->iev, IMSG_INCUS_EVENT, 0, 0, -1, &e,
	    sizeof(e)) == -1)
		fatal("%s: compose", __func__);
}

static void
ev_again(const char *why)
{
	struct timeval	tv = { RETRY_SECS, 0 };

	log_warnx("Incus's event stream: %s; opened again in %d s", why,
	    RETRY_SECS);
	if (ev_ws != NULL) {
		ws_conn_free(ev_ws);
		ev_ws = NULL;
	}
	ev_lost = 1;
	incus_events_lost(ops_ic);
	evtimer_add(ev_retry, &tv);
	if (ev_rid != 0) {
		child_done(ev_child, ev_rid, 0, why);
		ev_rid = 0;
	}
}

/* one event, whole: an instance's name and what happened to it */
static void
ev_event(const char *text)
{
	char	name[JB_INSTANCE_MAX], action[32];
	int	rc;

	if ((rc = evparse(text, name, sizeof(name), action,
	    sizeof(action))) == EVPARSE_NETWORK) {
		log_debug("Incus event: a network changed");
		incus_network_event(ops_ic);
		return;
	}
	if (rc != 0)
		return;
	log_debug("Incus event: %s %s", action, name);
	incus_instance_event(ops_ic, name, action);
	ev_tell(name, action);
}

static void
on_data(void *arg, int opcode, const void *data, size_t len, int last)
{
	char	*text;

	if (opcode != WS_OP_TEXT)
		return;
	if (evbuffer_get_length(ev_msg) + len > EVENT_MAX) {
		/* an event this large is not one of an instance: dropped */
		evbuffer_drain(ev_msg, evbuffer_get_length(ev_msg));
		return;
	}
	if (evbuffer_add(ev_msg, data, len) == -1)
		fatal("%s", __func__);
	if (!last)
		return;
	if (evbuffer_add(ev_msg, "", 1) == -1 ||
	    (text = (char *)evbuffer_pullup(ev_msg, -1)) == NULL)
		fatal("%s", __func__);
	ev_event(text);
	evbuffer_drain(ev_msg, evbuffer_get_length(ev_msg));
}

static void
on_closed(void *arg, int code, const char *why)
{
	ev_again(why != NULL ? why : "closed by Incus");
}

static const struct ws_conn_cbs ev_cbs = { on_data, on_closed, NULL };

static void
ev_upgraded(struct http_response *resp, const char *err, void *arg)
{
	struct bufferevent	*bev;
	const char		*why;
	char			 msg[64];

	ev_req = NULL;
	if (err != NULL) {
		ev_again(err);
		return;
	}
	if (resp->status != 101) {
		(void)snprintf(msg, sizeof(msg), "HTTP %d", resp->status);
		ev_again(msg);
		return;
	}
	if ((why = ws_response_check(resp, ev_key)) != NULL) {
		ev_again(why);
		return;
	}
	bev = http_response_take_bev(resp);
	if ((ev_ws = ws_conn_new(bev, EVENT_MAX, 0, &ev_cbs, NULL)) == NULL)
		fatal("%s", __func__);
	log_debug("Incus's event stream is open");
	incus_events_open(ops_ic);
	if (ev_rid != 0) {
		/* the parent reads Incus now: nothing to read again */
		child_done(ev_child, ev_rid, 1, NULL);
		ev_rid = 0;
	} else if (ev_lost)
		/* what happened while it was lost is read again, whole */
		ev_tell("", "resync");
}

static void
ev_open(void)
{
	struct http_request	*r;

	r = http_request_new(incus_http(ops_ic), "GET",
	    "/1.0/events?type=lifecycle");
	if (r == NULL || ws_request_upgrade(r, ev_key) == -1) {
		if (r != NULL)
			http_request_cancel(r);
		ev_again("cannot build the request");
		return;
	}
	ev_req = r;
	http_request_submit(r, ev_upgraded, NULL);
}

static void
ev_retry_fire(evutil_socket_t fd, short what, void *arg)
{
	ev_open();
}

void
events_init(struct child *c)
{
	ev_child = c;
	if ((ev_msg = evbuffer_new()) == NULL ||
	    (ev_retry = evtimer_new(c->base, ev_retry_fire, NULL)) == NULL)
		fatal("%s", __func__);
}

void
events_follow(uint32_t rid)
{
	if (ev_rid != 0)
		fatalx("FOLLOW from the parent while one is pending");
	if (ev_on) {
		/* open, or being opened again after a loss */
		child_done(ev_child, rid, ev_ws != NULL, ev_ws != NULL ? NULL :
		    "Incus's event stream is lost and being opened again");
		return;
	}
	ev_on = 1;
	ev_rid = rid;
	ev_open();
}
