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
 * Incus's event stream, after the start-up sync: for each instance event
 * jb-incus passes on, the instance is read again and jb-netd enforces
 * what Incus holds (RESTORE), or forgets it when Incus no longer has it
 * as one of the suite's (FORGET after instance-deleted; after any other
 * event SYNC_FORGET, which spares a container being made in this run:
 * jb-netd holds its policy before Incus has it).  So a container made, changed or deleted with the plain incus
 * command is enforced at once; one with the suite's tag and no policy
 * keys is strict.  A read that overlapped a write of the suite's own is
 * done again, so an older answer never undoes a newer change.  "resync"
 * (the stream was lost and is back) reads every container again.
 * At start the stream is opened first and the start-up sync reads Incus
 * once it is: a change made between the two is seen by one of them.
 * On a cluster (cluster.member set) the stream carries every member's
 * events: the instance read back says where it is, and only one located
 * on this member is enforced here; one located on another member is
 * forgotten (FORGET: moved away, its new member enforces it), except
 * while a new of this member's is making it: new needs this member's
 * jb-netd until it ends, and then it is read again.  The event's own
 * location is not used: a move is reported from the member it left.
 */

#include <sys/time.h>

#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auditrec.h"
#include "jobs.h"
#include "log.h"
#include "membox_run.h"
#include "names.h"
#include "policyrec.h"

#define FOLLOW_TRIES	5

struct follow {
	char			 name[JB_INSTANCE_MAX];
	uint64_t		 writes;	/* policy_write_count at read */
	int			 tries;
	int			 found;
	int			 deleted;	/* instance-deleted */
	int			 away;		/* on another member */
	struct jb_policy	*p;
	/* netfollow_refresh's: told how jb-netd took it */
	void			(*done)(void *, int, const char *);
	void			*arg;
};

/* what a refresh waits for: jb-netd's answer */
struct refreshed {
	char			 name[JB_INSTANCE_MAX + 1];	/* as follow_done */
	void			(*done)(void *, int, const char *);
	void			*arg;
};

static void	follow_read(struct follow *);
static void	follow_later(const char *);

/* what an event's answer from jb-netd needs: name as follow_read_done */
struct follow_ack {
	char	 name[JB_INSTANCE_MAX + 1];
	/* on a cluster, the enforcing member journals what it applied */
	int	 journal;
	char	 net[8];
	int64_t	 until;
	char	 prefix[48];
};

/*
 * What was last journaled for a container, so that reading it again
 * (a move is read three times) journals a change once; a small table,
 * the oldest line reused
 */
#define JOURNALED_MAX	256
static struct journaled {
	char		name[JB_INSTANCE_MAX];
	char		net[8];
	int64_t		until;
} journaled[JOURNALED_MAX];
static size_t	journaled_next;

/* 1 when the same was journaled last for a->name; else noted */
static int
journal_seen(const struct follow_ack *a)
{
	struct journaled	*j;
	size_t			 i;

	for (i = 0; i < JOURNALED_MAX; i++) {
		j = &journaled[i];
		if (strcmp(j->name, a->name + 1) != 0)
			continue;
		if (strcmp(j->net, a->net) == 0 && j->until == a->until)
			return 1;
		break;
	}
	if (i == JOURNALED_MAX) {
		j = &journaled[journaled_next];
		journaled_next = (journaled_next + 1) % JOURNALED_MAX;
		(void)strlcpy(j->name, a->name + 1, sizeof(j->name));
	}
	(void)strlcpy(j->net, a->net, sizeof(j->net));
	j->until = a->until;
	return 0;
}

/* forgotten here: its next enforcement here is journaled again */
static void
journal_forget(const char *name)
{
	size_t	i;

	for (i = 0; i < JOURNALED_MAX; i++)
		if (strcmp(journaled[i].name, name) == 0)
			journaled[i].name[0] = '\0';
}

/* the journal of the member that enforces what Incus holds */
static void
follow_journal(const struct follow_ack *a)
{
	struct audit_rec	r;
	struct tm		tm;
	time_t			t = (time_t)a->until;
	char			until[32];

	if (journal_seen(a))
		return;

	audit_rec_job(&r, NULL, "net.enforce", a->name + 1, a->prefix);
	r.reason = "as Incus holds it, changed there";
	audit_str(&r, "member", env->conf.cluster_member);
	audit_str(&r, "net", strcmp(a->net, "loose") == 0 ? "loose" :
	    "strict");
	if (strcmp(a->net, "loose") == 0 && a->until > 0 &&
	    gmtime_r(&t, &tm) != NULL) {
		strftime(until, sizeof(until), "%Y-%m-%dT%H:%M:%SZ", &tm);
		audit_str(&r, "until", until);
	}
	audit_write(&r);
}

/* name: '-' before it when it has no start gate yet, else 'g' */
static void
follow_done(struct req *r, int ok, const char *err)
{
	struct follow_ack	*a = r->arg;

	if (!ok)
		log_warnx("%s: %s", a->name + 1, err);
	else {
		if (a->name[0] == '-')
			/* made without one, by an older suite or by hand */
			policy_gate_add(a->name + 1);
		if (a->journal)
			follow_journal(a);
	}
	free(a);
}

static void
follow_got(struct req *r, struct imsg *imsg)
{
	struct follow	*f = r->arg;

	if (f->p == NULL && (f->p = malloc(sizeof(*f->p))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_type(imsg) != IMSG_INCUS_POLICY ||
	    imsg_get_data(imsg, f->p, sizeof(*f->p)) == -1)
		fatalx("jb-incus: malformed POLICY");
	f->p->name[sizeof(f->p->name) - 1] = '\0';
	f->p->location[sizeof(f->p->location) - 1] = '\0';
	f->found = strcmp(f->p->name, f->name) == 0;
	f->away = f->found && !name_member_here(env->conf.cluster_member,
	    f->p->location);
}

static void
refresh_done(struct req *r, int ok, const char *err)
{
	struct refreshed	*rf = r->arg;

	if (ok && rf->name[0] == '-')
		policy_gate_add(rf->name + 1);
	rf->done(rf->arg, ok, err);
	free(rf);
}

static void
follow_read_done(struct req *r, int ok, const char *err)
{
	struct follow		*f = r->arg;
	struct jb_incus_target	 t;
	char			*name;
	uint32_t		 type;
	const void		*data;
	size_t			 len;

	if (!ok) {
		if (f->done != NULL)
			f->done(f->arg, 0, err);
		else
			log_warnx("%s: Incus's event not followed: %s",
			    f->name, err);
		goto out;
	}
	if (f->done != NULL && !f->found) {
		f->done(f->arg, NETFOLLOW_ABSENT, "Incus has no such "
		    "container of the suite's");
		goto out;
	}
	if (policy_write_count() != f->writes && ++f->tries < FOLLOW_TRIES) {
		/* the suite wrote meanwhile: read what it wrote */
		f->found = f->away = 0;
		follow_read(f);
		return;
	}
	if (f->done == NULL && f->found && f->away && new_making(f->name)) {
		/* new here needs it until it ends, then reads it again */
		log_debug("%s: on cluster member %s, whose suite enforces it; "
		    "held here until new has made it", f->name,
		    f->p->location);
		goto out;
	}
	if (asprintf(&name, "%c%s", f->found && !f->p->has_gate ? '-' : 'g',
	    f->name) == -1)
		fatal("%s", __func__);
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, f->name, sizeof(t.name));
	if (f->found && f->away) {
		log_debug("%s: on cluster member %s, whose suite enforces it",
		    f->name, f->p->location);
		type = IMSG_NETD_FORGET;
		data = &t;
		len = sizeof(t);
		journal_forget(f->name);
	} else if (f->found) {
		if (f->p->has_gate && f->p->gate_until > 0)
			netfollow_at(f->name, f->p->gate_until);
		policy_mounts_restore(f->p);
		type = IMSG_NETD_RESTORE;
		data = f->p;
		len = sizeof(*f->p);
	} else {
		/*
		 * deleted: forgotten even if made in this run; otherwise
		 * (not ours, or not yet in Incus) one being made stays
		 */
		type = f->deleted ? IMSG_NETD_FORGET : IMSG_NETD_SYNC_FORGET;
		data = &t;
		len = sizeof(t);
		journal_forget(f->name);
	}
	if (f->done != NULL) {
		struct refreshed	*rf;

		if ((rf = calloc(1, sizeof(*rf))) == NULL)
			fatal("%s", __func__);
		(void)strlcpy(rf->name, name, sizeof(rf->name));
		rf->done = f->done;
		rf->arg = f->arg;
		free(name);
		if (req_send(PROC_NETD, type, data, len, -1, NULL,
		    refresh_done, rf) == NULL) {
			free(rf);
			f->done(f->arg, 0, "cannot reach jb-netd");
		}
	} else {
		struct follow_ack	*a;

		if ((a = calloc(1, sizeof(*a))) == NULL)
			fatal("%s", __func__);
		(void)strlcpy(a->name, name, sizeof(a->name));
		free(name);
		if (type == IMSG_NETD_RESTORE &&
		    env->conf.cluster_member[0] != '\0') {
			a->journal = 1;
			(void)strlcpy(a->net, f->p->net, sizeof(a->net));
			a->until = f->p->loose_until;
			(void)strlcpy(a->prefix, f->p->prefix,
			    sizeof(a->prefix));
		}
		if (req_send(PROC_NETD, type, data, len, -1, NULL, follow_done,
		    a) == NULL) {
			log_warnx("%s: cannot reach jb-netd", f->name);
			free(a);
		}
	}
out:
	free(f->p);
	free(f);
}

static void
follow_read(struct follow *f)
{
	struct jb_incus_target	t;

	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, f->name, sizeof(t.name));
	f->writes = policy_write_count();
	if (req_send(PROC_INCUS, IMSG_INCUS_POLICIES, &t, sizeof(t), -1,
	    follow_got, follow_read_done, f) == NULL) {
		log_warnx("%s: cannot reach jb-incus", f->name);
		if (f->done != NULL)
			f->done(f->arg, 0, "cannot reach jb-incus");
		free(f->p);
		free(f);
	}
}

void
netfollow_refresh(const char *name, void (*done)(void *, int, const char *),
    void *arg)
{
	struct follow	*f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(f->name, name, sizeof(f->name));
	f->done = done;
	f->arg = arg;
	follow_read(f);
}

int
netfollow_event(struct imsg *imsg)
{
	struct jb_incus_event	 e;
	struct follow		*f;

	if (imsg_get_id(imsg) != 0 || imsg_get_data(imsg, &e, sizeof(e)) == -1)
		return -1;
	e.name[sizeof(e.name) - 1] = '\0';
	e.action[sizeof(e.action) - 1] = '\0';
	if (strcmp(e.action, "resync") == 0 && e.name[0] == '\0') {
		log_info("Incus's event stream is back: every container is "
		    "read again");
		netsync_start();
		membox_sweep();
		return 0;
	}
	/* the cluster mailbox: requests may wait in this member's keys */
	if (strcmp(e.action, "cluster-member-updated") == 0) {
		if (!name_instance_ok(e.name))
			return -1;
		membox_event(e.name);
		return 0;
	}
	if (!name_instance_ok(e.name) || strncmp(e.action, "instance-", 9) !=
	    0)
		return -1;
	/* what only runs or stops it changes nothing Incus holds */
	if (strcmp(e.action, "instance-started") == 0 ||
	    strcmp(e.action, "instance-stopped") == 0 ||
	    strcmp(e.action, "instance-shutdown") == 0 ||
	    strcmp(e.action, "instance-restarted") == 0 ||
	    strcmp(e.action, "instance-paused") == 0 ||
	    strcmp(e.action, "instance-resumed") == 0 ||
	    strcmp(e.action, "instance-exec") == 0 ||
	    strcmp(e.action, "instance-console") == 0 ||
	    strcmp(e.action, "instance-log-retrieved") == 0 ||
	    strcmp(e.action, "instance-file-retrieved") == 0 ||
	    strcmp(e.action, "instance-file-pushed") == 0 ||
	    strcmp(e.action, "instance-file-deleted") == 0 ||
	    strcmp(e.action, "instance-snapshot-created") == 0)
		return 0;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(f->name, e.name, sizeof(f->name));
	f->deleted = strcmp(e.action, "instance-deleted") == 0;
	follow_read(f);
	if (strcmp(e.action, "instance-migrated") == 0)
		follow_later(e.name);
	return 0;
}

/*
 * A move is announced before Incus records where the instance went (a
 * read right after it still finds it on the member it left, measured):
 * it is read again after each of these delays, so that the member it
 * left forgets it and the one it reached enforces it.
 */
static const int	follow_delays_ms[] = { 1000, 3000 };
#define FOLLOW_DELAYS	(sizeof(follow_delays_ms) / sizeof(follow_delays_ms[0]))

struct follow_timer {
	struct event	ev;
	char		name[JB_INSTANCE_MAX];
	size_t		next;		/* the delay waited for */
};

static void
follow_timer_fired(int fd, short ev, void *arg)
{
	struct follow_timer	*ft = arg;
	struct timeval		 tv;

	netfollow_again(ft->name);
	if (++ft->next >= FOLLOW_DELAYS) {
		free(ft);
		return;
	}
	tv.tv_sec = (follow_delays_ms[ft->next] -
	    follow_delays_ms[ft->next - 1]) / 1000;
	tv.tv_usec = (follow_delays_ms[ft->next] -
	    follow_delays_ms[ft->next - 1]) % 1000 * 1000;
	evtimer_add(&ft->ev, &tv);
}

/*
 * A container whose creator on another member is to add its start gate
 * until a time: read again just after it, so that this member adds the
 * gate if the creator did not
 */
void
netfollow_at(const char *name, int64_t when)
{
	struct follow_timer	*ft;
	struct timeval		 tv;
	int64_t			 now = (int64_t)time(NULL);

	if ((ft = calloc(1, sizeof(*ft))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(ft->name, name, sizeof(ft->name));
	ft->next = FOLLOW_DELAYS - 1;	/* one read, none after it */
	tv.tv_sec = when > now ? when - now + 1 : 1;
	tv.tv_usec = 0;
	evtimer_set(&ft->ev, follow_timer_fired, ft);
	evtimer_add(&ft->ev, &tv);
}

static void
follow_later(const char *name)
{
	struct follow_timer	*ft;
	struct timeval		 tv;

	if ((ft = calloc(1, sizeof(*ft))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(ft->name, name, sizeof(ft->name));
	tv.tv_sec = follow_delays_ms[0] / 1000;
	tv.tv_usec = follow_delays_ms[0] % 1000 * 1000;
	evtimer_set(&ft->ev, follow_timer_fired, ft);
	evtimer_add(&ft->ev, &tv);
}

void
netfollow_again(const char *name)
{
	struct follow	*f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(f->name, name, sizeof(f->name));
	follow_read(f);
}

static void
follow_opened(struct req *r, int ok, const char *err)
{
	if (!ok)
		log_warnx("Incus's event stream cannot be opened (%s): a "
		    "container changed with the incus command is enforced "
		    "once it is open", err);
	netsync_start();
	membox_sweep();
}

void
netfollow_start(void)
{
	if (req_send(PROC_INCUS, IMSG_INCUS_FOLLOW, NULL, 0, -1, NULL,
	    follow_opened, NULL) == NULL) {
		log_warnx("Incus's event stream: cannot reach jb-incus");
		netsync_start();
	}
}
