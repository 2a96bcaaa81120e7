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
 * A refusal just counted, told to the parent for the dashboards that
 * watch: which container, nothing more (net log has the rest).  The
 * containers heard of are gathered and sent together, at most once a
 * second, so a flood of refusals is a notice a second, not one a query.
 */

#include <string.h>
#include <time.h>

#include "jb_msg.h"
#include "log.h"
#include "netd_notice.h"
#include "proc.h"

#define NOTICE_GAP_MS	1000	/* between two sends */
#define NOTICE_MAX	64	/* containers gathered; more wait a round */

static struct child	*notice_to;
static struct event	 notice_ev;
static char		 pending[NOTICE_MAX][JB_INSTANCE_MAX];
static size_t		 npending;
static int64_t		 last_sent;	/* ms, monotonic */

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
notice_fire(int fd, short event, void *arg)
{
	struct jb_incus_target	t;
	size_t			i;

	for (i = 0; i < npending; i++) {
		memset(&t, 0, sizeof(t));
		(void)strlcpy(t.name, pending[i], sizeof(t.name));
		if (imsgev_compose(&notice_to->iev, IMSG_NETD_REFUSED_NOTE,
		    0, 0, -1, &t, sizeof(t)) == -1)
			fatal("%s: compose", notice_to->name);
	}
	npending = 0;
	last_sent = now_ms();
}

void
netd_notice_init(struct child *c)
{
	notice_to = c;
	evtimer_set(&notice_ev, notice_fire, NULL);
}

void
netd_notice(const char *ctr)
{
	struct timeval	tv;
	int64_t		wait;
	size_t		i;

	if (notice_to == NULL)
		return;
	for (i = 0; i < npending; i++)
		if (strcmp(pending[i], ctr) == 0)
			return;
	if (npending == NOTICE_MAX)
		return;
	(void)strlcpy(pending[npending++], ctr, sizeof(pending[0]));
	if (evtimer_pending(&notice_ev, NULL))
		return;
	wait = last_sent + NOTICE_GAP_MS - now_ms();
	if (wait < 0)
		wait = 0;
	tv.tv_sec = wait / 1000;
	tv.tv_usec = (wait % 1000) * 1000;
	evtimer_add(&notice_ev, &tv);
}
