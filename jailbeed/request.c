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
 * Requests from the parent to its children.  Each carries a request id in
 * the header's peerid; a child answers with any number of data messages
 * and ends with exactly one IMSG_DONE.  The parent never blocks on a
 * child: the answer comes back through the callbacks given here.
 */

#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "jailbeed.h"
#include "log.h"

static TAILQ_HEAD(, req)	reqs = TAILQ_HEAD_INITIALIZER(reqs);
static uint32_t			req_next_id = 1;

struct req *
req_send(int proc, uint32_t type, const void *data, size_t len, int fd,
    req_msg_cb on_msg, req_done_cb on_done, void *arg)
{
	struct req	*r;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		if (fd != -1)
			close(fd);
		return NULL;
	}
	r->rid = req_next_id++;
	if (req_next_id == 0)
		req_next_id = 1;
	r->proc = proc;
	r->on_msg = on_msg;
	r->on_done = on_done;
	r->arg = arg;
	if (imsgev_compose(&children[proc].iev, type, r->rid, 0, fd, data,
	    len) == -1) {
		free(r);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&reqs, r, entry);
	return r;
}

/* a message on a request: 1 handled, 0 not a request's message */
int
req_dispatch(int proc, struct imsg *imsg)
{
	struct jb_done	 done;
	struct req	*r;

	TAILQ_FOREACH(r, &reqs, entry)
		if (r->rid == imsg_get_id(imsg) && r->proc == proc)
			break;
	if (r == NULL) {
		/* a child answering a request it was never sent */
		log_warnx("%s answered unknown request %u (%s)",
		    children[proc].name, imsg_get_id(imsg),
		    jb_imsg_name(imsg_get_type(imsg)));
		return -1;
	}
	if (imsg_get_type(imsg) != IMSG_DONE) {
		/* without a taker, imsg_free closes an fd that came along */
		if (r->on_msg != NULL)
			r->on_msg(r, imsg);
		return 0;
	}
	if (imsg_get_data(imsg, &done, sizeof(done)) == -1 ||
	    done.err[sizeof(done.err) - 1] != '\0') {
		log_warnx("%s: malformed DONE", children[proc].name);
		return -1;
	}
	TAILQ_REMOVE(&reqs, r, entry);
	if (r->on_done != NULL)
		r->on_done(r, done.ok, done.err);
	free(r);
	return 0;
}

int
req_send_to(struct req *r, uint32_t type, const void *data, size_t len)
{
	return imsgev_compose(&children[r->proc].iev, type, r->rid, 0, -1,
	    data, len);
}
