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
 * new on a cluster without --target: the member is chosen here, as
 * Incus would, so that the start gate is made where the container will
 * be: at creation on this member, or by the other member's suite.
 * Left to Incus, a container placed on another member would be refused
 * for want of a gate source there.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "incus.h"
#include "log.h"
#include "ops.h"
#include "ops_place.h"
#include "placepick.h"

#define PLACE_MAX	64		/* members asked about */

struct place {
	struct op_req		*r;
	void			(*done)(struct op_req *, const char *,
				    const char *);
	char			 self[64];
	struct place_member	 m[PLACE_MAX];
	char			 names[PLACE_MAX][64];
	size_t			 n;
	size_t			 next;		/* whose count is asked */
};

static void	place_members(void *, struct json_object *, const char *);
static void	place_count(struct place *);
static void	place_counted(void *, struct json_object *, const char *);

/* a name that may go into a query string as it is */
static int
place_name_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= 63 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

void
place_ask(struct op_req *r, struct place **pp, const char *self,
    void (*done)(struct op_req *, const char *, const char *))
{
	struct place	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	p->r = r;
	p->done = done;
	(void)strlcpy(p->self, self, sizeof(p->self));
	*pp = p;
	req_progress(r, "asking Incus which cluster member has the fewest "
	    "instances (new --target picks one)");
	if ((r->call = incus_request(ops_ic, "GET",
	    "/1.0/cluster/members?recursion=1", NULL, place_members, p)) ==
	    NULL)
		fatal("%s", __func__);
}

void
place_free(struct place *p)
{
	free(p);
}

static void
place_members(void *arg, struct json_object *list, const char *err)
{
	struct place		*p = arg;
	struct json_object	*o;
	const char		*name, *status;
	size_t			 i, n;

	p->r->call = NULL;
	/* cluster.member on an Incus of one machine: it goes there */
	if (err != NULL && strstr(err, "Server is not clustered") != NULL) {
		p->done(p->r, "", NULL);
		return;
	}
	if (err != NULL) {
		p->done(p->r, NULL, err);
		return;
	}
	n = json_object_is_type(list, json_type_array) ?
	    json_object_array_length(list) : 0;
	for (i = 0; i < n && p->n < PLACE_MAX; i++) {
		o = json_object_array_get_idx(list, i);
		if ((name = jget_str(o, "server_name")) == NULL ||
		    !place_name_ok(name))
			continue;
		status = jget_str(o, "status");
		(void)strlcpy(p->names[p->n], name, sizeof(p->names[p->n]));
		p->m[p->n].name = p->names[p->n];
		p->m[p->n].online = status != NULL &&
		    strcmp(status, "Online") == 0;
		p->m[p->n].automatic = place_automatic(jget_str(jget_obj(o,
		    "config"), "scheduler.instance"));
		p->m[p->n].count = -1;
		p->n++;
	}
	p->next = 0;
	place_count(p);
}

/* the next member that may be chosen: how many instances it runs */
static void
place_count(struct place *p)
{
	struct place_member	*m;
	char			 path[160];
	int			 i;

	while (p->next < p->n && (!p->m[p->next].online ||
	    !p->m[p->next].automatic))
		p->next++;
	if (p->next < p->n) {
		(void)snprintf(path, sizeof(path), "/1.0/instances?"
		    "all-projects=true&filter=location+eq+%s",
		    p->m[p->next].name);
		if ((p->r->call = incus_request(ops_ic, "GET", path, NULL,
		    place_counted, p)) == NULL)
			fatal("%s", __func__);
		return;
	}
	if ((i = place_pick(p->m, p->n, p->self)) == -1) {
		p->done(p->r, NULL, "Incus lists no cluster member that is "
		    "online and takes instances without a target: name one "
		    "with new --target (`incus cluster list` names them)");
		return;
	}
	m = &p->m[i];
	log_debug("%s: placed on %s, which runs %ld instance(s)", p->r->what,
	    m->name, m->count);
	p->done(p->r, m->name, NULL);
}

static void
place_counted(void *arg, struct json_object *list, const char *err)
{
	struct place	*p = arg;

	p->r->call = NULL;
	if (err != NULL) {
		p->done(p->r, NULL, err);
		return;
	}
	p->m[p->next].count = json_object_is_type(list, json_type_array) ?
	    (long)json_object_array_length(list) : -1;
	p->next++;
	place_count(p);
}
