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
 * Incus holds each container's network policy (user.jailbee.net,
 * .loose_until, .egress, .egress_extra); jb-netd's files are its cache.
 * policy_record writes a container's policy, as jb-netd enforces it
 * after a change, through jb-incus (a new container's goes in with its
 * creation: policy_record_create); policy_record_mode writes its mode
 * alone, before jb-netd is asked to narrow.  The callers decide what a
 * failure means: a change that widens is undone, so that a container
 * is never more open than Incus says.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "log.h"
#include "policyrec.h"

/* local writes begun and ended: a read of Incus that overlaps one is redone */
static uint64_t	policy_writes;

uint64_t
policy_write_count(void)
{
	return policy_writes;
}

struct prec {
	policy_cb		 cb;
	void			*arg;
	struct jb_policy	*p;		/* from jb-netd */
	uint32_t		 type;		/* POLICY_SET, CREATE_POLICY */
};

static void
prec_end(struct prec *pr, int ok, const char *err)
{
	policy_writes++;
	pr->cb(pr->arg, ok, err);
	free(pr->p);
	free(pr);
}

static void
prec_written(struct req *r, int ok, const char *err)
{
	prec_end(r->arg, ok, err);
}

static void
prec_got(struct req *r, struct imsg *imsg)
{
	struct prec	*pr = r->arg;

	if (pr->p == NULL && (pr->p = malloc(sizeof(*pr->p))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_type(imsg) != IMSG_NETD_RECORD ||
	    imsg_get_data(imsg, pr->p, sizeof(*pr->p)) == -1)
		fatalx("jb-netd: malformed NETD_RECORD");
}

static void
prec_have(struct req *r, int ok, const char *err)
{
	struct prec	*pr = r->arg;

	if (!ok || pr->p == NULL) {
		prec_end(pr, 0, ok ? "jb-netd sent no record" : err);
		return;
	}
	pr->p->mode_only = 0;
	if (req_send(PROC_INCUS, pr->type, pr->p, sizeof(*pr->p), -1, NULL,
	    prec_written, pr) == NULL)
		prec_end(pr, 0, "cannot reach jb-incus");
}

static void
prec_start(const char *name, uint32_t type, policy_cb cb, void *arg)
{
	struct jb_incus_target	 t;
	struct prec		*pr;

	if ((pr = calloc(1, sizeof(*pr))) == NULL)
		fatal("%s", __func__);
	policy_writes++;
	pr->cb = cb;
	pr->arg = arg;
	pr->type = type;
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_NETD, IMSG_NETD_RECORD_GET, &t, sizeof(t), -1,
	    prec_got, prec_have, pr) == NULL)
		prec_end(pr, 0, "cannot reach jb-netd");
}

void
policy_record(const char *name, policy_cb cb, void *arg)
{
	prec_start(name, IMSG_INCUS_POLICY_SET, cb, arg);
}

void
policy_record_create(const char *name, policy_cb cb, void *arg)
{
	prec_start(name, IMSG_INCUS_CREATE_POLICY, cb, arg);
}

void
policy_record_mode(const char *name, const char *mode, int64_t until,
    policy_cb cb, void *arg)
{
	struct prec	*pr;

	if ((pr = calloc(1, sizeof(*pr))) == NULL ||
	    (pr->p = calloc(1, sizeof(*pr->p))) == NULL)
		fatal("%s", __func__);
	policy_writes++;
	pr->cb = cb;
	pr->arg = arg;
	(void)strlcpy(pr->p->name, name, sizeof(pr->p->name));
	(void)strlcpy(pr->p->net, mode, sizeof(pr->p->net));
	pr->p->loose_until = until;
	pr->p->mode_only = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_POLICY_SET, pr->p,
	    sizeof(*pr->p), -1, NULL, prec_written, pr) == NULL)
		prec_end(pr, 0, "cannot reach jb-incus");
}

static void
logged(void *arg, int ok, const char *err)
{
	char	*name = arg;

	if (!ok)
		log_warnx("%s: its policy is not recorded in Incus: %s", name,
		    err);
	free(name);
}

/* for jb-netd's own changes (a deadline reached): logged when it fails */
void
policy_record_logged(const char *name)
{
	char	*n;

	if ((n = strdup(name)) == NULL)
		fatal("%s", __func__);
	policy_record(name, logged, n);
}

static void
gate_added(struct req *r, int ok, const char *err)
{
	char	*name = r->arg;

	if (!ok)
		log_warnx("%s: its start gate cannot be added: %s", name, err);
	else
		log_info("%s: start gate added (it was made without one)",
		    name);
	free(name);
}

void
policy_gate_add(const char *name)
{
	struct jb_incus_target	 t;
	char			*n;

	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if ((n = strdup(name)) == NULL)
		fatal("%s", __func__);
	if (req_send(PROC_INCUS, IMSG_INCUS_GATE_ADD, &t, sizeof(t), -1,
	    NULL, gate_added, n) == NULL) {
		log_warnx("%s: its start gate cannot be added: cannot reach "
		    "jb-incus", name);
		free(n);
	}
}

void
policy_mode_logged(const char *name, const char *mode, int64_t until)
{
	char	*n;

	if ((n = strdup(name)) == NULL)
		fatal("%s", __func__);
	policy_record_mode(name, mode, until, logged, n);
}

/* a mount deadline: Incus holds it first, then jb-mountd enforces it */
struct mrec {
	struct jb_mount_deadline	 d;
	req_done_cb			 next;
	void				*arg;
};

static void
mrec_fail(struct mrec *mr, const char *err)
{
	struct req	r;

	memset(&r, 0, sizeof(r));
	r.arg = mr->arg;
	mr->next(&r, 0, err);
	free(mr);
}

static void
mrec_written(struct req *r, int ok, const char *err)
{
	struct mrec	*mr = r->arg;
	char		 msg[JB_ERR_TEXT_MAX];

	policy_writes++;
	if (!ok) {
		(void)snprintf(msg, sizeof(msg), "Incus cannot record the "
		    "deadline of %s on %s: %s", mr->d.kind, mr->d.name, err);
		mrec_fail(mr, msg);
		return;
	}
	if (req_send(PROC_MOUNTD, mr->d.until > 0 ? IMSG_MOUNTD_DEADLINE_SET :
	    IMSG_MOUNTD_DEADLINE_CLEAR, &mr->d, sizeof(mr->d), -1, NULL,
	    mr->next, mr->arg) == NULL) {
		mrec_fail(mr, "cannot reach jb-mountd");
		return;
	}
	free(mr);
}

void
policy_mount_deadline(const struct jb_mount_deadline *d, req_done_cb next,
    void *arg)
{
	struct mrec		*mr;
	struct jb_policy	*p;

	if ((mr = calloc(1, sizeof(*mr))) == NULL ||
	    (p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	/* a read of Incus that overlaps this write is redone */
	policy_writes++;
	mr->d = *d;
	mr->next = next;
	mr->arg = arg;
	(void)strlcpy(p->name, d->name, sizeof(p->name));
	(void)strlcpy(p->mount_kind, d->kind, sizeof(p->mount_kind));
	p->mount_until = d->until;
	if (req_send(PROC_INCUS, IMSG_INCUS_POLICY_SET, p, sizeof(*p), -1,
	    NULL, mrec_written, mr) == NULL)
		mrec_fail(mr, "cannot reach jb-incus");
	free(p);
}

static void
mount_restored(struct req *r, int ok, const char *err)
{
	char	*what = r->arg;

	if (!ok)
		log_warnx("%s: its deadline as Incus holds it is not "
		    "enforced: %s", what, err);
	free(what);
}

/* the mount deadlines Incus holds for p's container, to jb-mountd */
void
policy_mounts_restore(const struct jb_policy *p)
{
	struct jb_mount_deadline	 d;
	char				 buf[sizeof(p->mounts)], *w, *save;
	char				*eq, *end, *what;
	long long			 until;

	(void)strlcpy(buf, p->mounts, sizeof(buf));
	for (save = buf; (w = strsep(&save, " ")) != NULL; ) {
		if ((eq = strchr(w, '=')) == NULL)
			continue;
		*eq = '\0';
		until = strtoll(eq + 1, &end, 10);
		if (*end != '\0' || until <= 0)
			continue;
		memset(&d, 0, sizeof(d));
		(void)strlcpy(d.name, p->name, sizeof(d.name));
		if (strlcpy(d.kind, w, sizeof(d.kind)) >= sizeof(d.kind))
			continue;
		d.until = until;
		if (asprintf(&what, "%s on %s", d.kind, d.name) == -1)
			fatal("%s", __func__);
		if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_SET, &d,
		    sizeof(d), -1, NULL, mount_restored, what) == NULL) {
			log_warnx("%s: cannot reach jb-mountd", what);
			free(what);
		}
	}
}
