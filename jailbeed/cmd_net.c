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
 * jbctl net strict|loose|status|refresh NAME and net egress (FEATURES
 * N4-N8).  jb-netd holds the mode and the loose deadline, writes them down
 * and reverts at the deadline itself, also across a restart; strict cuts
 * the container's established flows.  strict, loose and refresh end once
 * jb-incus has written the /etc/hosts block jb-netd sent with its answer
 * pinned when strict, taken out when loose.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdtab.h"
#include "duration.h"
#include "jobs.h"
#include "log.h"
#include "netpin.h"
#include "membox.h"
#include "membox_run.h"
#include "netstatus.h"
#include "netwhere.h"
#include "policyrec.h"
#include "repoconf_github.h"

#define LOOSE_MAX	(7 * 24 * 60 * 60)

/* strict, loose, refresh: jb-netd's answer and the pins it brought */
struct netwait {
	int	 pending;		/* pins jb-incus is writing */
	int	 netd_done;
	int	 ok;
	char	 err[JB_ERR_TEXT_MAX];
	char	 pinerr[JB_ERR_TEXT_MAX];
	char	 name[JB_INSTANCE_MAX];
	char	 okmsg[256];		/* said once jb-netd has done it */
	int	 still_loose;		/* strict refused: loose in the kernel */
	size_t	 lines;			/* in the last block */
};

static void
wait_end(struct job *job)
{
	struct netwait	*w = job->state;

	if (!w->netd_done || w->pending > 0)
		return;
	if (!w->ok)
		job_end(job, 0, "%s", w->err);
	else if (w->pinerr[0] != '\0' && job->cmd.id == CMD_NET_REFRESH)
		job_end(job, 0, "%s: /etc/hosts not pinned: %s", w->name,
		    w->pinerr);
	else {
		if (w->pinerr[0] != '\0')
			job_progress(job, "%s: /etc/hosts not pinned (jb-netd "
			    "tries again every minute): %s", w->name,
			    w->pinerr);
		job_end(job, 1, NULL);
	}
}

static void
pin_written(void *arg, int ok, const char *err)
{
	struct job	*job = arg;
	struct netwait	*w = job->state;

	w->pending--;
	if (!ok)
		(void)strlcpy(w->pinerr, err, sizeof(w->pinerr));
	else if (w->lines > 0)
		job_progress(job, "%s: /etc/hosts pins %zu address(es)",
		    w->name, w->lines);
	else
		job_progress(job, "%s: /etc/hosts holds no pinned block",
		    w->name);
	wait_end(job);
}

/* the stop that follows a refused strict (fail closed) is over */
static void
strict_stopped(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct netwait	*w = job->state;
	char		 msg[JB_CTL_TEXT_MAX];

	/* what was done first: jb-netd's reason may be long */
	if (ok)
		(void)snprintf(msg, sizeof(msg), "%s is stopped so it is not "
		    "left open; start it once jbctl net strict %s succeeds "
		    "(jb-netd: %s)", w->name, job->args[job->nargs - 1],
		    w->err);
	else
		(void)snprintf(msg, sizeof(msg), "%s could not be stopped "
		    "(%s): stop it with jbctl stop --force (jb-netd: %s)",
		    w->name, err, w->err);
	(void)strlcpy(w->err, msg, sizeof(w->err));
	w->netd_done = 1;
	wait_end(job);
}

static void
wait_done(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct netwait		*w = job->state;
	struct jb_incus_action	 q;

	if (!ok && w->still_loose) {
		/* jb-netd could not make it strict: it must not run loose */
		w->ok = 0;
		(void)strlcpy(w->err, err, sizeof(w->err));
		memset(&q, 0, sizeof(q));
		(void)strlcpy(q.name, w->name, sizeof(q.name));
		q.verb = INCUS_STOP;
		q.force = 1;
		if (req_send(PROC_INCUS, IMSG_INCUS_ACTION, &q, sizeof(q), -1,
		    NULL, strict_stopped, job) != NULL)
			return;
	}
	if (!ok && job->cmd.id == CMD_NET_LOOSE)
		/* Incus was told loose first: it holds strict again */
		policy_mode_logged(w->name, "strict", 0);
	w->netd_done = 1;
	w->ok = ok;
	(void)strlcpy(w->err, err, sizeof(w->err));
	if (ok && w->okmsg[0] != '\0')
		job_progress(job, "%s", w->okmsg);
	wait_end(job);
}

/* net refresh: a name asked upstream, on to jbctl's output layer */
static void
net_resolved(struct req *r, struct imsg *imsg)
{
	struct jb_net_resolved	rs;

	if (imsg_get_data(imsg, &rs, sizeof(rs)) == -1)
		fatalx("jb-netd: malformed NETD_RESOLVED");
	rs.name[sizeof(rs.name) - 1] = '\0';
	rs.host[sizeof(rs.host) - 1] = '\0';
	rs.answered = rs.answered != 0;
	(void)job_reply(r->arg, IMSG_CTL_NET_RESOLVED, &rs, sizeof(rs), -1);
}

static void
wait_msg(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct netwait		*w = job->state;
	struct jb_hosts_pin	*pin;
	size_t			 i;

	if (imsg_get_type(imsg) == IMSG_NETD_MODE_ENTRY) {
		/* jb-netd could not make it strict (net strict only) */
		if (job->cmd.id != CMD_NET_STRICT)
			fatalx("jb-netd: MODE_ENTRY in reply to a mode other "
			    "than strict");
		w->still_loose = 1;
		return;
	}
	if (imsg_get_type(imsg) == IMSG_NETD_RESOLVED) {
		net_resolved(r, imsg);
		return;
	}
	if (imsg_get_type(imsg) != IMSG_NETD_PIN)
		fatalx("jb-netd: unexpected %s in reply to a net request",
		    jb_imsg_name(imsg_get_type(imsg)));
	if ((pin = malloc(sizeof(*pin))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_data(imsg, pin, sizeof(*pin)) == -1 ||
	    pin->len >= sizeof(pin->text))
		fatalx("jb-netd: malformed NETD_PIN");
	for (w->lines = 0, i = 0; i < pin->len; i++)
		if (pin->text[i] == '\n')
			w->lines++;
	free(pin);
	w->pending++;
	netpin_relay(imsg, pin_written, job);
}

/*
 * send m to jb-netd and end the job once it and its pins are done;
 * okmsg, if any, is said only once jb-netd has done it
 */
static void
net_wait(struct job *job, const char *name, uint32_t type, const void *m,
    size_t len, const char *okmsg)
{
	struct netwait	*w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	(void)strlcpy(w->name, name, sizeof(w->name));
	if (okmsg != NULL)
		(void)strlcpy(w->okmsg, okmsg, sizeof(w->okmsg));
	job->state = w;
	job->free_state = free;
	if (req_send(PROC_NETD, type, m, len, -1, wait_msg, wait_done, job) ==
	    NULL)
		job_end(job, 0, "cannot reach jb-netd");
}


/* is line (one, with its newline) one of the lines of acc? */
static int
export_has(const char *acc, const char *line)
{
	const char	*p;
	size_t		 n = strlen(line);

	for (p = acc; *p != '\0'; p += strcspn(p, "\n") + 1) {
		if (strncmp(p, line, n) == 0)
			return 1;
		if (p[strcspn(p, "\n")] == '\0')
			break;
	}
	return 0;
}

/* net egress: the job, and what to record in Incus once jb-netd did it */
struct egctx {
	struct job		*job;
	struct jb_netd_egress	 q;
	int			 ok;
	char			 err[JB_ERR_TEXT_MAX];
};

/* egress ls: ORIGIN ENTRY as jb-netd says; export: kept for the end */
static void
egress_line(struct req *r, struct imsg *imsg)
{
	struct job		*job = ((struct egctx *)r->arg)->job;
	struct jb_net_allow	 al;
	const char		*p;
	char			*acc;

	if (imsg_get_type(imsg) != IMSG_NETD_ALLOW ||
	    imsg_get_data(imsg, &al, sizeof(al)) == -1)
		fatalx("jb-netd: malformed NETD_ALLOW");
	al.name[sizeof(al.name) - 1] = '\0';
	al.entry[sizeof(al.entry) - 1] = '\0';
	al.origin[sizeof(al.origin) - 1] = '\0';
	/* entries are vetted: nothing to escape in YAML or on a terminal */
	for (p = al.entry; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\')
			fatalx("jb-netd: an egress entry with byte 0x%02x",
			    (unsigned char)*p);
	if (job->cmd.id != CMD_NET_EGRESS_EXPORT) {
		/* net egress ls: the output layer renders it */
		(void)job_reply(job, IMSG_CTL_NET_ALLOW, &al, sizeof(al), -1);
		return;
	}
	if (asprintf(&acc, "  - \"%s\"\n", al.entry) == -1)
		fatal("asprintf");
	/* canonical text: an entry of two layers is listed once */
	if (job->state != NULL && export_has(job->state, acc)) {
		free(acc);
		return;
	}
	free(acc);
	if (asprintf(&acc, "%s  - \"%s\"\n", job->state ?
	    (char *)job->state : "", al.entry) == -1)
		fatal("asprintf");
	free(job->state);
	job->state = acc;
	job->free_state = free;
}

static void
egress_end(struct job *job, int ok, const char *err)
{
	struct jb_output	 o;

	if (ok && job->cmd.id == CMD_NET_EGRESS_EXPORT) {
		memset(&o, 0, sizeof(o));
		o.which = 1;
		o.len = (uint32_t)snprintf(o.data, sizeof(o.data), "%s",
		    job->state ? "egress_allow:\n" : "egress_allow: []\n");
		(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
		if (job->state != NULL) {
			memset(&o, 0, sizeof(o));
			o.which = 1;
			o.len = (uint32_t)strlcpy(o.data, job->state,
			    sizeof(o.data));
			if (o.len >= sizeof(o.data)) {
				job_end(job, 0, "the list is longer than one "
				    "reply (%zu bytes)", sizeof(o.data));
				return;
			}
			(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o),
			    -1);
		}
	}
	if (ok && job->state != NULL && (job->cmd.id == CMD_NET_EGRESS_ADD ||
	    job->cmd.id == CMD_NET_EGRESS_RM))
		job_progress(job, "%s", (char *)job->state);
	job_end(job, ok, "%s", err);
}


static void
egress_undone(struct req *r, int ok, const char *err)
{
	struct egctx	*eg = r->arg;

	if (!ok)
		log_warnx("%s: override %s is not recorded in Incus and could "
		    "not be taken back: %s", eg->q.name, eg->q.entry, err);
	egress_end(eg->job, 0, eg->err);
	free(eg);
}

/* Incus holds the container's overrides now, or the change is undone */
static void
egress_recorded(void *arg, int ok, const char *err)
{
	struct egctx		*eg = arg;
	struct jb_netd_egress	 back;

	if (ok) {
		egress_end(eg->job, 1, "");
		free(eg);
		return;
	}
	if (strcmp(eg->q.op, "add") == 0) {
		/* what Incus does not hold is not let through */
		(void)snprintf(eg->err, sizeof(eg->err), "%s: override %s not "
		    "added: Incus cannot record it (%s)", eg->q.name,
		    eg->q.entry, err);
		back = eg->q;
		(void)strlcpy(back.op, "rm", sizeof(back.op));
		if (req_send(PROC_NETD, IMSG_NETD_EGRESS, &back, sizeof(back),
		    -1, NULL, egress_undone, eg) != NULL)
			return;
		log_warnx("%s: override %s could not be taken back: cannot "
		    "reach jb-netd", eg->q.name, eg->q.entry);
	} else
		(void)snprintf(eg->err, sizeof(eg->err), "%s: override %s "
		    "removed here, but Incus still holds it (%s): a restart of "
		    "the suite would bring it back; run the command again",
		    eg->q.name, eg->q.entry, err);
	egress_end(eg->job, 0, eg->err);
	free(eg);
}

static void
egress_done(struct req *r, int ok, const char *err)
{
	struct egctx	*eg = r->arg;
	struct job	*job = eg->job;

	/* a container's own override: Incus holds its list too */
	if (ok && eg->q.repo[0] == '\0' && (job->cmd.id ==
	    CMD_NET_EGRESS_ADD || job->cmd.id == CMD_NET_EGRESS_RM)) {
		policy_record(eg->q.name, egress_recorded, eg);
		return;
	}
	egress_end(job, ok, err);
	free(eg);
}

static const char *
egress_verb(const struct job *job)
{
	return job->cmd.id == CMD_NET_EGRESS_ADD ? "added" : "removed";
}

/*
 * The container's overrides, kept by jb-netd with its policy; with
 * --repo the layer of its repo (container_prefix), which jb-netd
 * applies to every container made from the repo.
 */
static void
net_egress(struct job *job, const char *name, struct repo_ctx *ctx)
{
	struct jb_netd_egress	 q;
	struct egctx		*eg;
	const char		*op;
	char			*msg;
	int			 repo = job_opt(job, "repo") != NULL;

	memset(&q, 0, sizeof(q));
	strlcpy(q.name, name, sizeof(q.name));
	switch (job->cmd.id) {
	case CMD_NET_EGRESS_ADD:
		op = "add";
		break;
	case CMD_NET_EGRESS_RM:
		op = "rm";
		break;
	default:
		op = "ls";
		break;
	}
	strlcpy(q.op, op, sizeof(q.op));
	if (repo) {
		/* the parent checks too, whatever let the job in */
		if (job->remote) {
			job_end(job, 0, "net egress %s --repo: refused over "
			    "SSH; run it on the host", op);
			return;
		}
		if (ctx == NULL || !ctx->have_conf) {
			job_end(job, 0, "net egress %s --repo: no JailBee "
			    "checkout here; run it from the checkout of %s's "
			    "repo", op, name);
			return;
		}
		strlcpy(q.repo, ctx->conf.container_prefix, sizeof(q.repo));
		strlcpy(q.config, ctx->conf.paths.repo, sizeof(q.config));
	}
	if (job->cmd.id == CMD_NET_EGRESS_ADD ||
	    job->cmd.id == CMD_NET_EGRESS_RM) {
		if (strlcpy(q.entry, job->args[0], sizeof(q.entry)) >=
		    sizeof(q.entry)) {
			job_end(job, 0, "egress entry \"%.40s...\": longer "
			    "than %zu bytes", job->args[0], sizeof(q.entry) - 1);
			return;
		}
		audit_detail(job, "entry", q.entry);
		if (repo)
			(void)strlcpy(job->audit_repo, q.repo,
			    sizeof(job->audit_repo));
		/* said once jb-netd has done it (egress_done) */
		if ((repo ? asprintf(&msg, "repo %s: override %s %s (every "
		    "container of the repo on this machine)", q.repo, q.entry,
		    egress_verb(job)) : asprintf(&msg, "%s: override %s %s",
		    name, q.entry, egress_verb(job))) == -1)
			fatal("asprintf");
		job->state = msg;
		job->free_state = free;
	}
	if ((eg = calloc(1, sizeof(*eg))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	eg->job = job;
	eg->q = q;
	if (req_send(PROC_NETD, IMSG_NETD_EGRESS, &q, sizeof(q), -1,
	    egress_line, egress_done, eg) == NULL) {
		free(eg);
		job_end(job, 0, "cannot reach jb-netd");
	}
}

/* a mode change waiting for Incus to hold it, then for jb-netd */
struct moderec {
	struct job		*job;
	struct jb_netd_mode	 m;
	char			 okmsg[256];
};

static void
mode_recorded(void *arg, int ok, const char *err)
{
	struct moderec	*mr = arg;
	struct job	*job = mr->job;

	if (!ok && strcmp(mr->m.mode, "loose") == 0) {
		/* Incus does not hold it: it is not opened */
		job_end(job, 0, "%s stays strict: Incus cannot record the "
		    "loose mode (%s)", mr->m.name, err);
		free(mr);
		return;
	}
	if (!ok) {
		/* narrowing is never refused: strict here, and said so */
		job_progress(job, "%s: Incus cannot record the strict mode "
		    "(%s): a restart of the suite would take the mode Incus "
		    "holds; run jbctl net strict %s again", mr->m.name, err,
		    mr->m.name);
		audit_detail(job, "incus", "not recorded");
	}
	net_wait(job, mr->m.name, IMSG_NETD_MODE, &mr->m, sizeof(mr->m),
	    mr->okmsg);
	free(mr);
}

/*
 * Incus holds the mode first: a loose mode Incus cannot hold is not
 * given, and the cache jb-netd keeps is never more open than Incus.
 */
static void
mode_record(struct job *job, const char *name, const struct jb_netd_mode *m,
    const char *okmsg)
{
	struct moderec	*mr;

	if ((mr = calloc(1, sizeof(*mr))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	mr->job = job;
	mr->m = *m;
	(void)strlcpy(mr->okmsg, okmsg, sizeof(mr->okmsg));
	policy_record_mode(name, m->mode, strcmp(m->mode, "loose") == 0 ?
	    m->deadline : 0, mode_recorded, mr);
}

static void	net_act(struct job *, const char *, struct repo_ctx *);
static void	net_away(struct job *, const char *, struct repo_ctx *,
		    const struct jb_policy *);
static int	net_mode_of(struct job *, const char *, struct repo_ctx *,
		    struct jb_netd_mode *, char *, size_t);

/* a mode written for a container another member enforces */
struct awaymode {
	struct job	*job;
	char		 member[64];
	char		 okmsg[256];
};

static void
away_recorded(void *arg, int ok, const char *err)
{
	struct awaymode	*am = arg;

	if (ok) {
		job_progress(am->job, "%s (Incus holds it; cluster member %s, "
		    "which runs it, enforces it from Incus's event)",
		    am->okmsg, am->member);
		job_end(am->job, 1, NULL);
	} else
		job_end(am->job, 0, "Incus cannot record it (%s): nothing "
		    "changed on member %s", err, am->member);
	free(am);
}

static void
net_named(struct job *job, struct repo_ctx *ctx)
{
	char			 name[JB_INSTANCE_MAX];
	const char		*arg;

	/* net status without NAME: this repo's containers, or --all */
	if (job->cmd.id == CMD_NET_STATUS && job->nargs == 0) {
		net_status(job, NULL, ctx);
		repo_ctx_free(ctx);
		return;
	}
	arg = job->args[job->nargs - 1];
	if (repo_container_name(ctx, arg, name, sizeof(name)) == -1) {
		repo_ctx_free(ctx);
		job_end(job, 0, "%s: not a container name", arg);
		return;
	}
	audit_target(job, job->remote_found ? job->remote_in.name : name, ctx);
	/* on a cluster: the container may run on another member */
	if (env->conf.cluster_member[0] != '\0' && !(job->cmd.id ==
	    CMD_NET_STATUS && job->remote_found) && (job_opt(job, "repo") ==
	    NULL || (job->cmd.id != CMD_NET_EGRESS_ADD && job->cmd.id !=
	    CMD_NET_EGRESS_RM && job->cmd.id != CMD_NET_EGRESS_LS &&
	    job->cmd.id != CMD_NET_EGRESS_EXPORT))) {
		net_where(job, name, ctx, net_act, net_away);
		return;
	}
	net_act(job, name, ctx);
}

/* the container runs here (or it is not the suite's): jb-netd acts */
static void
net_act(struct job *job, const char *name, struct repo_ctx *ctx)
{
	struct jb_netd_mode	 m;
	struct jb_incus_target	 t;
	char			 okmsg[256];

	switch (job->cmd.id) {
	case CMD_NET_EGRESS_ADD:
	case CMD_NET_EGRESS_RM:
	case CMD_NET_EGRESS_LS:
	case CMD_NET_EGRESS_EXPORT:
		net_egress(job, name, ctx);
		repo_ctx_free(ctx);
		return;
	default:
		break;
	}
	if (job->cmd.id == CMD_NET_REFRESH) {
		repo_ctx_free(ctx);
		memset(&t, 0, sizeof(t));
		strlcpy(t.name, name, sizeof(t.name));
		job_progress(job, "%s: resolving its allowed names", name);
		net_wait(job, name, IMSG_NETD_REFRESH, &t, sizeof(t), NULL);
		return;
	}
	if (job->cmd.id == CMD_NET_LOG || job->cmd.id == CMD_NET_SUGGEST) {
		net_log(job, job->remote_found ? job->remote_in.name : name);
		repo_ctx_free(ctx);
		return;
	}
	if (job->cmd.id == CMD_NET_STATUS) {
		/* over SSH, the container the remote gate found */
		net_status(job, job->remote_found ? job->remote_in.name : name,
		    ctx);
		repo_ctx_free(ctx);
		return;
	}
	if (net_mode_of(job, name, ctx, &m, okmsg, sizeof(okmsg)) == -1)
		return;
	mode_record(job, name, &m, okmsg);
}

/*
 * net strict|loose NAME: the mode, deadline and what to say once it is
 * done; -1 when the job has ended (bad options).  Frees ctx.
 */
static int
net_mode_of(struct job *job, const char *name, struct repo_ctx *ctx,
    struct jb_netd_mode *mp, char *okmsg, size_t oklen)
{
	struct jb_netd_mode	 m;
	char			 err[256], d[32];
	const char		*dur;
	int64_t			 secs = RC_DEF_LOOSE_AFTER;

	memset(&m, 0, sizeof(m));
	strlcpy(m.name, name, sizeof(m.name));
	if (job->cmd.id == CMD_NET_STRICT) {
		strlcpy(m.mode, "strict", sizeof(m.mode));
		(void)snprintf(okmsg, oklen, "%s: strict; established "
		    "connections cut", name);
	} else {
		strlcpy(m.mode, "loose", sizeof(m.mode));
		dur = job_opt(job, "for");
		if (dur != NULL && job_opt(job, "no-revert") != NULL) {
			repo_ctx_free(ctx);
			job_end(job, 0, "--for and --no-revert contradict each "
			    "other: give one");
			return -1;
		}
		if (ctx != NULL && ctx->have_conf) {
			if (ctx->conf.loose_auto_revert.enabled == 0)
				secs = 0;
			else if (ctx->conf.loose_auto_revert.after > 0)
				secs = ctx->conf.loose_auto_revert.after;
		}
		if (job_opt(job, "no-revert") != NULL)
			secs = 0;
		if (dur != NULL && duration_parse(dur, 1, LOOSE_MAX, &secs,
		    err, sizeof(err)) == -1) {
			repo_ctx_free(ctx);
			job_end(job, 0, "--for: %s", err);
			return -1;
		}
		m.deadline = secs ? (int64_t)time(NULL) + secs : 0;
		job->audit_until = m.deadline;
		if (secs)
			(void)snprintf(okmsg, oklen, "%s: loose for "
			    "%s, then strict again", name,
			    duration_fmt(secs, d, sizeof(d)));
		else
			(void)snprintf(okmsg, oklen, "%s: loose until "
			    "jbctl net strict %s", name, job->args[0]);
	}
	repo_ctx_free(ctx);
	*mp = m;
	return 0;
}

/*
 * net egress for a container another cluster member enforces: jb-netd
 * edits the policy Incus holds by its own rules (or lists it), the new
 * overrides go to Incus if it still holds the old ones, and that
 * member's suite applies them from Incus's event.
 */
struct egaway {
	struct egctx		 eg;		/* first: egress_line reads it */
	struct job		*job;
	struct jb_policy	 p;		/* as Incus holds it */
	struct jb_incus_extra	 x;
	int			 have;		/* jb-netd's RECORD came */
	char			 member[64];
};

static void
egaway_line(struct req *r, struct imsg *imsg)
{
	struct egaway		*ea = r->arg;
	struct jb_policy	*rec;

	if (imsg_get_type(imsg) == IMSG_NETD_ALLOW) {
		egress_line(r, imsg);
		return;
	}
	if ((rec = malloc(sizeof(*rec))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_type(imsg) != IMSG_NETD_RECORD ||
	    imsg_get_data(imsg, rec, sizeof(*rec)) == -1)
		fatalx("jb-netd: malformed NETD_RECORD");
	rec->egress_extra[sizeof(rec->egress_extra) - 1] = '\0';
	(void)strlcpy(ea->x.now, rec->egress_extra, sizeof(ea->x.now));
	ea->have = 1;
	free(rec);
}

static void
egaway_recorded(struct req *r, int ok, const char *err)
{
	struct egaway	*ea = r->arg;
	struct job	*job = ea->job;

	if (ok) {
		job_progress(job, "%s (Incus holds it; cluster member %s, which "
		    "runs it, enforces it from Incus's event)",
		    (char *)job->state, ea->member);
		job_end(job, 1, NULL);
	} else
		job_end(job, 0, "Incus cannot record it (%s): nothing changed "
		    "on member %s", err, ea->member);
	free(ea);
}

static void
egaway_edited(struct req *r, int ok, const char *err)
{
	struct egaway	*ea = r->arg;
	struct job	*job = ea->job;

	if (ok && (job->cmd.id == CMD_NET_EGRESS_LS || job->cmd.id ==
	    CMD_NET_EGRESS_EXPORT)) {
		free(ea);
		egress_end(job, 1, "");
		return;
	}
	if (!ok || !ea->have) {
		free(ea);
		job_end(job, 0, "%s", ok ? "jb-netd sent no record" : err);
		return;
	}
	if (req_send(PROC_INCUS, IMSG_INCUS_EXTRA_SET, &ea->x, sizeof(ea->x),
	    -1, NULL, egaway_recorded, ea) == NULL) {
		free(ea);
		job_end(job, 0, "cannot reach jb-incus");
	}
}

static void
egress_away(struct job *job, const char *name, const struct jb_policy *p)
{
	struct egaway	*ea;
	const char	*op = job->cmd.id == CMD_NET_EGRESS_ADD ? "add" :
			    job->cmd.id == CMD_NET_EGRESS_RM ? "rm" : "ls";
	char		*msg;

	if ((ea = calloc(1, sizeof(*ea))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	ea->eg.job = ea->job = job;
	ea->p = *p;
	(void)strlcpy(ea->member, p->location, sizeof(ea->member));
	(void)strlcpy(ea->p.edit_op, op, sizeof(ea->p.edit_op));
	(void)strlcpy(ea->x.name, name, sizeof(ea->x.name));
	(void)strlcpy(ea->x.was, p->egress_extra, sizeof(ea->x.was));
	if (job->cmd.id == CMD_NET_EGRESS_ADD ||
	    job->cmd.id == CMD_NET_EGRESS_RM) {
		if (strlcpy(ea->p.edit_entry, job->args[0],
		    sizeof(ea->p.edit_entry)) >= sizeof(ea->p.edit_entry)) {
			free(ea);
			job_end(job, 0, "egress entry \"%.40s...\": longer "
			    "than %zu bytes", job->args[0],
			    sizeof(ea->p.edit_entry) - 1);
			return;
		}
		audit_detail(job, "entry", ea->p.edit_entry);
		if (asprintf(&msg, "%s: override %s %s", name,
		    ea->p.edit_entry, egress_verb(job)) == -1)
			fatal("asprintf");
		job->state = msg;
		job->free_state = free;
	}
	if (req_send(PROC_NETD, IMSG_NETD_EGRESS_EDIT, &ea->p, sizeof(ea->p),
	    -1, egaway_line, egaway_edited, ea) == NULL) {
		free(ea);
		job_end(job, 0, "cannot reach jb-netd");
	}
}

/*
 * The container runs on cluster member member: Incus holds its policy
 * and that member's suite enforces it from Incus's event.  strict and
 * loose write the keys here; status shows what Incus holds; what needs
 * the enforcing jb-netd is refused with the member to run it on.
 */
static void
net_away(struct job *job, const char *name, struct repo_ctx *ctx,
    const struct jb_policy *p)
{
	struct awaymode		*am;
	int64_t			 secs;
	struct jb_netd_mode	 m;

	switch (job->cmd.id) {
	case CMD_NET_STATUS:
		job_progress(job, "%s runs on cluster member %s: the policy "
		    "Incus holds for it, which %s's suite enforces (jbctl net "
		    "status there shows its resolved addresses)", name,
		    p->location, p->location);
		net_status_away(job, p, ctx);
		repo_ctx_free(ctx);
		return;
	case CMD_NET_STRICT:
	case CMD_NET_LOOSE:
		break;
	case CMD_NET_EGRESS_ADD:
	case CMD_NET_EGRESS_RM:
	case CMD_NET_EGRESS_LS:
	case CMD_NET_EGRESS_EXPORT:
		repo_ctx_free(ctx);
		egress_away(job, name, p);
		return;
	default:
		repo_ctx_free(ctx);
		/* asked by another member: never passed on again */
		if (job->sink != NULL) {
			job_end(job, 0, "%s runs on cluster member %s, whose "
			    "jb-netd holds its policy: run jbctl net %s there",
			    name, p->location, job->cmd.id == CMD_NET_REFRESH ?
			    "refresh" : job->cmd.id == CMD_NET_LOG ? "log" :
			    "suggest");
			return;
		}
		/* a bad --since is refused here, naming it */
		if (net_log_since(job, &secs) == -1)
			return;
		membox_ask(job, p->location, name, job->cmd.id ==
		    CMD_NET_REFRESH ? MEMBOX_REFRESH : job->cmd.id ==
		    CMD_NET_LOG ? MEMBOX_LOG : MEMBOX_SUGGEST,
		    job_opt(job, "since") != NULL ? job_opt(job, "since") : "");
		return;
	}
	if ((am = calloc(1, sizeof(*am))) == NULL)
		fatal("%s", __func__);
	if (net_mode_of(job, name, ctx, &m, am->okmsg, sizeof(am->okmsg)) ==
	    -1) {
		free(am);
		return;
	}
	am->job = job;
	(void)strlcpy(am->member, p->location, sizeof(am->member));
	policy_record_mode(name, m.mode, strcmp(m.mode, "loose") == 0 ?
	    m.deadline : 0, away_recorded, am);
}

static void
stuck_stopped(struct req *r, int ok, const char *err)
{
	char	*name = r->arg;

	if (ok)
		log_warnx("%s: stopped: jb-netd could not make it strict at "
		    "its loose deadline (start it once jbctl net strict %s "
		    "succeeds)", name, name);
	else
		log_warnx("%s: jb-netd could not make it strict at its loose "
		    "deadline, and it could not be stopped: %s", name, err);
	free(name);
}

/*
 * jb-netd: a container is still loose in the kernel past its deadline
 * and jb-netd could not change that (NETD_STOP).  Fail closed: stop it.
 */
int
net_stuck(struct imsg *imsg)
{
	struct jb_netd_mode	 m;
	struct jb_incus_action	 q;
	char			*name;

	if (imsg_get_id(imsg) != 0 || imsg_get_data(imsg, &m, sizeof(m)) == -1)
		return -1;
	m.name[sizeof(m.name) - 1] = '\0';
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.name, m.name, sizeof(q.name));
	q.verb = INCUS_STOP;
	q.force = 1;
	if ((name = strdup(m.name)) == NULL)
		fatal("%s", __func__);
	if (req_send(PROC_INCUS, IMSG_INCUS_ACTION, &q, sizeof(q), -1, NULL,
	    stuck_stopped, name) == NULL) {
		log_warnx("%s: jb-netd could not make it strict and jb-incus "
		    "cannot be reached to stop it", m.name);
		free(name);
	}
	return 0;
}

/* jb-netd reverted a container at its deadline: Incus holds strict */
void
net_audit_note(struct imsg *imsg)
{
	struct jb_netd_audit	ev;

	if (imsg_get_data(imsg, &ev, sizeof(ev)) == -1)
		return;
	ev.name[sizeof(ev.name) - 1] = '\0';
	ev.kind[sizeof(ev.kind) - 1] = '\0';
	if (strcmp(ev.kind, "revert") == 0)
		policy_mode_logged(ev.name, "strict", 0);
}

/* jb-netd counted a refusal: the watching dashboards look again */
int
net_refused_note(struct imsg *imsg)
{
	struct jb_incus_target	t;

	if (imsg_get_id(imsg) != 0 || imsg_get_data(imsg, &t, sizeof(t)) == -1)
		return -1;
	t.name[sizeof(t.name) - 1] = '\0';
	control_event(t.name, "net.refused", (int64_t)time(NULL));
	return 0;
}

int
net_entries_pack(const struct repoconf *conf, const char *agent,
    struct jb_netd_ctr *m, char *err, size_t errlen)
{
	const struct rc_agent	*a;
	size_t			 i, off = 0, aoff = 0, l, al;
	int			 k;

	m->nentries = 0;
	for (i = 0; i < conf->egress_allow.n; i++) {
		l = strlen(conf->egress_allow.v[i]) + 1;
		if (l > sizeof(m->entries) - off || 1 > sizeof(m->agents) -
		    aoff)
			goto full;
		memcpy(m->entries + off, conf->egress_allow.v[i], l);
		off += l;
		m->agents[aoff++] = '\0';
		m->nentries++;
	}
	/* the enabled agents' own entries, each with its agent's name */
	for (i = 0; i < conf->agents.n; i++) {
		a = &conf->agents.v[i];
		if (a->enabled != 1 && (agent == NULL ||
		    strcmp(agent, a->name) != 0))
			continue;
		al = strlen(a->name) + 1;
		for (k = 0; k < a->negress; k++) {
			l = strlen(a->egress[k]) + 1;
			if (l > sizeof(m->entries) - off ||
			    al > sizeof(m->agents) - aoff)
				goto full;
			memcpy(m->entries + off, a->egress[k], l);
			off += l;
			memcpy(m->agents + aoff, a->name, al);
			aoff += al;
			m->nentries++;
		}
	}
	/* github.enabled: the GitHub API, shown with origin github */
	if (conf->github_enabled == 1) {
		l = sizeof(RC_GITHUB_EGRESS);
		al = sizeof(JB_EGRESS_FROM_GITHUB);
		if (l > sizeof(m->entries) - off ||
		    al > sizeof(m->agents) - aoff)
			goto full;
		memcpy(m->entries + off, RC_GITHUB_EGRESS, l);
		memcpy(m->agents + aoff, JB_EGRESS_FROM_GITHUB, al);
		m->nentries++;
	}
	return 0;
full:
	(void)snprintf(err, errlen, "egress_allow in %s and its enabled "
	    "agents' hold more than jb-netd takes in one message (%zu bytes)",
	    conf->paths.repo, sizeof(m->entries));
	return -1;
}

struct netapply {
	void			(*cb)(struct job *, int, const char *);
	struct job		*job;
	const struct repoconf	*conf;
	struct jb_instance	 in;
	int			 found;
	char			 name[JB_INSTANCE_MAX];
};

static void
config_recorded(void *arg, int ok, const char *err)
{
	struct netapply	*na = arg;
	struct job	*job = na->job;
	void		(*cb)(struct job *, int, const char *) = na->cb;
	char		 msg[JB_ERR_TEXT_MAX];

	if (!ok)
		(void)snprintf(msg, sizeof(msg), "%s: egress_allow applied "
		    "here, but Incus cannot record it (%s): a restart of the "
		    "suite would take the list Incus holds", na->name, err);
	free(na);
	cb(job, ok, ok ? NULL : msg);
}

static void
config_applied(struct req *r, int ok, const char *err)
{
	struct netapply	*na = r->arg;
	struct job	*job = na->job;
	void		(*cb)(struct job *, int, const char *) = na->cb;

	if (ok) {
		/* Incus holds the config's entries too */
		policy_record(na->name, config_recorded, na);
		return;
	}
	free(na);
	cb(job, ok, err);
}

static void
apply_found(struct req *r, struct imsg *imsg)
{
	struct netapply	*na = r->arg;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &na->in, sizeof(na->in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	na->in.name[sizeof(na->in.name) - 1] = '\0';
	na->in.agent[sizeof(na->in.agent) - 1] = '\0';
	na->found = strcmp(na->in.name, na->name) == 0;
}

/* the container's --agent known (or none): the policy goes to jb-netd */
static void
apply_send(struct req *r, int ok, const char *err)
{
	struct netapply		*na = r->arg;
	struct job		*job = na->job;
	void			(*cb)(struct job *, int, const char *) = na->cb;
	struct jb_netd_ctr	*m;
	char			 why[JB_ERR_TEXT_MAX];

	if (!ok) {
		free(na);
		cb(job, 0, err);
		return;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		free(na);
		cb(job, 0, "out of memory");
		return;
	}
	(void)strlcpy(m->name, na->name, sizeof(m->name));
	if (net_entries_pack(na->conf, na->found && na->in.agent[0] != '\0' ?
	    na->in.agent : NULL, m, why, sizeof(why)) == -1) {
		free(m);
		free(na);
		cb(job, 0, why);
		return;
	}
	(void)strlcpy(m->repo, na->conf->container_prefix, sizeof(m->repo));
	if (req_send(PROC_NETD, IMSG_NETD_CONFIG, m, sizeof(*m), -1, NULL,
	    config_applied, na) == NULL) {
		free(na);
		cb(job, 0, "cannot reach jb-netd");
	}
	free(m);
}

/* first the agent new --agent recorded on it: its entries stay */
void
net_config_apply(struct job *job, const struct repoconf *conf,
    const char *name, void (*cb)(struct job *, int, const char *))
{
	struct jb_incus_target	 t;
	struct netapply		*na;

	if ((na = calloc(1, sizeof(*na))) == NULL) {
		cb(job, 0, "out of memory");
		return;
	}
	na->cb = cb;
	na->job = job;
	na->conf = conf;
	(void)strlcpy(na->name, name, sizeof(na->name));
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    apply_found, apply_send, na) == NULL) {
		free(na);
		cb(job, 0, "cannot reach jb-incus");
	}
}

void
cmd_net(struct job *job)
{
	/* asked by another cluster member: a container's full name, no
	 * checkout to look in */
	if (job->sink != NULL) {
		net_named(job, NULL);
		return;
	}
	repo_resolve(job, "", 0, net_named);
}
