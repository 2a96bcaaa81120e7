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
 * start, stop, restart, destroy and snapshots: one jb-incus action each,
 * on a container named as the user knows it (short inside a repo).
 * destroy first asks the container whether it holds work the host lacks.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_run.h"
#include "autostart_run.h"
#include "secrets.h"
#include "capture.h"
#include "cmdtab.h"
#include "gate.h"
#include "jobs.h"
#include "policyrec.h"
#include "log.h"
#include "ports.h"
#include "guardhost.h"
#include "srcguard.h"
#include "termsafe.h"

struct action {
	struct repo_ctx		*ctx;
	char			 name[JB_INSTANCE_MAX];
	struct jb_instance	 in;
	int			 found;
	uint32_t		 verb;		/* the last one sent */
	int			 force;		/* and its force */
	int			 looked;	/* start: in read for --agent */
	int			 was_running;	/* restore: start it again */
	/* destroy's guard of a clone made through the git bridge */
	struct guard_tip	*tips;
	size_t			 ntips;
	char			 rest[CAPTURE_MAX + 1024];
	/* destroy: jb-netd forgets it while Incus stops and deletes it */
	int			 pending;	/* of those two, unanswered */
	char			 del_err[JB_ERR_TEXT_MAX];	/* Incus's */
	char			 fgt_err[JB_ERR_TEXT_MAX];	/* jb-netd's */
};

static void	action_go(struct job *);
static void	destroy_found(struct req *, struct imsg *);
static void	start_guarded(struct job *, int, const char *);

static void
action_free(void *arg)
{
	struct action	*a = arg;

	repo_ctx_free(a->ctx);
	free(a->tips);
	free(a);
}

/*
 * Destroy: jb-netd forgets the container's policy while Incus stops and
 * deletes it, both asked at once, and the job ends once both answered.
 * Forgotten first, a container still running for those moments has no
 * network at all, which refuses more, never less; and the policy is
 * gone before the address can go to another container, since whatever
 * jb-netd is sent later comes after.  If Incus fails, the container is
 * still there without a policy: the one Incus holds for it is enforced
 * again, and until then it stays cut off.
 */
static void
destroy_restored(void *arg, int ok, const char *err)
{
	struct job	*job = arg;
	struct action	*a = job->state;

	/* absent: Incus deleted it after all, or it never was */
	if (ok == NETFOLLOW_ENFORCED || ok == NETFOLLOW_ABSENT)
		job_end(job, 0, "%s", a->del_err);
	else
		job_end(job, 0, "%s; and its network policy, forgotten while "
		    "it was being deleted, is not enforced again (%s): it has "
		    "no network until jailbeed restarts", a->del_err, err);
}

static void
destroy_restore(void *arg)
{
	struct job	*job = arg;
	struct action	*a = job->state;

	netfollow_refresh(a->name, destroy_restored, job);
}

static void
destroy_end(struct job *job)
{
	struct action	*a = job->state;

	if (a->pending > 0)
		return;
	if (a->del_err[0] != '\0')
		netsync_after(destroy_restore, job);
	else if (a->fgt_err[0] != '\0')
		job_end(job, 0, "%s was deleted, but jb-netd still holds its "
		    "network policy: %s", a->name, a->fgt_err);
	else
		job_end(job, 1, NULL);
}

/* one of the two answers; a failure's reason goes to slot */
static void
destroy_answered(struct job *job, char *slot, size_t len, int ok,
    const char *err)
{
	struct action	*a = job->state;

	if (!ok)
		(void)strlcpy(slot, err != NULL ? err : "failed", len);
	a->pending--;
	destroy_end(job);
}

static void
destroy_forgotten(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct action	*a = job->state;

	destroy_answered(job, a->fgt_err, sizeof(a->fgt_err), ok, err);
}

static void
destroy_deleted(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct action	*a = job->state;

	destroy_answered(job, a->del_err, sizeof(a->del_err), ok, err);
}

static void	start_agents(struct job *);

static void
start_autostarted(struct job *job, int ok, const char *err)
{
	struct action	*a = job->state;

	if (!ok)
		job_end(job, 0, "%s started, but %s", a->name, err);
	else
		job_end(job, 1, NULL);
}

static void
start_looked(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct action	*a = job->state;

	if (!ok) {
		job_end(job, 0, "%s started, but its agent cannot be known: %s",
		    a->name, err);
		return;
	}
	start_agents(job);
}

/* the agent new --agent recorded on the container, else "" */
static const char *
start_recorded(const struct action *a)
{
	return a->found && strcmp(a->in.name, a->name) == 0 ? a->in.agent :
	    "";
}

/*
 * After start: each agent the config enables and the one new --agent
 * recorded on the container (user.jailbee.agent) installed as jbctl new
 * does (install_check, install or update), the on_start steps, then the
 * agents launched; --no-autostart runs no step and launches nothing.
 */
static void
start_agents(struct job *job)
{
	struct action		*a = job->state;
	const struct repoconf	*conf;
	struct jb_incus_target	 t;
	char			 why[JB_ERR_TEXT_MAX];
	size_t			 i, idx[RC_AGENTS_MAX], n = 0;

	/* started by its full name from outside any checkout: no config */
	if (a->ctx == NULL || !a->ctx->have_conf) {
		job_end(job, 1, NULL);
		return;
	}
	if (!a->looked) {
		a->looked = 1;
		memset(&t, 0, sizeof(t));
		(void)strlcpy(t.name, a->name, sizeof(t.name));
		if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
		    destroy_found, start_looked, job) == NULL)
			job_end(job, 0, "%s started; cannot reach jb-incus",
			    a->name);
		return;
	}
	conf = &a->ctx->conf;
	for (i = 0; i < conf->agents.n && n < RC_AGENTS_MAX; i++) {
		if (conf->agents.v[i].enabled != 1 &&
		    strcmp(conf->agents.v[i].name, start_recorded(a)) != 0)
			continue;
		if (repoconf_agent_runnable(&conf->agents.v[i], why,
		    sizeof(why)) == -1) {
			job_end(job, 0, "%s started, but %s", a->name, why);
			return;
		}
		idx[n++] = i;
	}
	autostart_run(job, a->name, conf, idx, n, 0,
	    job_opt(job, "no-autostart") == NULL, start_autostarted);
}

/* its secrets in the gateway again, before on_start and the agents */
static void
start_secrets(struct job *job, const char *why)
{
	if (why != NULL)
		job_progress(job, "warning: secrets: %s", why);
	start_agents(job);
}

static void
action_done(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct action		*a = job->state;

	if (ok && (a->verb == INCUS_START || a->verb == INCUS_RESTART)) {
		secrets_resume(a->name, job, start_secrets);
		return;
	}
	/* restored and stopped, with the devices it had: started as usual */
	if (ok && a->verb == INCUS_SNAP_RESTORE && a->was_running) {
		job_progress(job, "%s restored to %s; starting it", a->name,
		    job->args[1]);
		start_guard(job, a->name, start_guarded);
		return;
	}
	if (!ok && (a->verb == INCUS_START || a->verb == INCUS_RESTART) &&
	    err != NULL && strstr(err, GATE_DEVICE) != NULL) {
		job_end(job, 0, "%s does not start: its start gate is closed, "
		    "since jb-netd does not hold the network policy Incus has "
		    "for it (jailbeed's log says why): %s", a->name, err);
		return;
	}
	job_end(job, ok, "%s", err);
}

/* what an action sends before its end: snapshots listed, progress */
static void
action_msg(struct req *r, struct imsg *imsg)
{
	struct jb_snapshot	s;
	struct jb_ctl_text	t;

	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_SNAPSHOT:
		if (imsg_get_data(imsg, &s, sizeof(s)) == -1)
			fatalx("jb-incus: malformed SNAPSHOT");
		(void)job_reply(r->arg, IMSG_CTL_SNAPSHOT, &s, sizeof(s), -1);
		break;
	case IMSG_PROGRESS:
		if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
			fatalx("jb-incus: malformed PROGRESS");
		t.text[sizeof(t.text) - 1] = '\0';
		job_progress(r->arg, "%s", t.text);
		break;
	default:
		fatalx("jb-incus: unexpected %s in an action",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

static void
action_send_tag(struct job *job, const char *tag)
{
	struct action		*a = job->state;
	struct jb_incus_action	 q;
	struct jb_incus_target	 t;

	memset(&q, 0, sizeof(q));
	strlcpy(q.name, a->name, sizeof(q.name));
	q.verb = a->verb;
	q.force = a->force;
	if (tag != NULL && strlcpy(q.tag, tag, sizeof(q.tag)) >= sizeof(q.tag)) {
		job_end(job, 0, "snapshot tag too long: %s", tag);
		return;
	}
	if (a->verb != INCUS_DELETE) {
		if (req_send(PROC_INCUS, IMSG_INCUS_ACTION, &q, sizeof(q), -1,
		    action_msg, action_done, job) == NULL)
			job_end(job, 0, "cannot reach jb-incus");
		return;
	}
	a->pending = 0;
	memset(&t, 0, sizeof(t));
	strlcpy(t.name, a->name, sizeof(t.name));
	if (req_send(PROC_NETD, IMSG_NETD_FORGET, &t, sizeof(t), -1, NULL,
	    destroy_forgotten, job) != NULL)
		a->pending++;
	else
		(void)strlcpy(a->fgt_err, "cannot reach jb-netd",
		    sizeof(a->fgt_err));
	if (req_send(PROC_INCUS, IMSG_INCUS_ACTION, &q, sizeof(q), -1,
	    action_msg, destroy_deleted, job) != NULL)
		a->pending++;
	else
		(void)snprintf(a->del_err, sizeof(a->del_err), "%s was not "
		    "deleted: cannot reach jb-incus", a->name);
	destroy_end(job);
}

static void
action_refreshed(void *arg, int ok, const char *err)
{
	struct job	*job = arg;
	struct action	*a = job->state;

	if (ok == NETFOLLOW_ABSENT) {
		job_end(job, 0, "no such container %s", a->name);
		return;
	}
	if (ok != NETFOLLOW_ENFORCED) {
		job_end(job, 0, "%s does not start: the network policy Incus "
		    "holds for it is not enforced (%s), so its start gate stays "
		    "closed; correct that key (incus config edit %s) and start "
		    "it again", a->name, err, a->name);
		return;
	}
	action_send_tag(job, NULL);
}

/* once the start-up sync is over: its policy from Incus, enforced */
static void
action_send_start(void *arg)
{
	struct job	*job = arg;
	struct action	*a = job->state;

	netfollow_refresh(a->name, action_refreshed, job);
}

static void
action_send(struct job *job, uint32_t verb, int force, const char *tag)
{
	struct action	*a = job->state;

	a->verb = verb;
	a->force = force;
	/* its start gate opens once the start-up sync enforced its policy */
	if (verb == INCUS_START || verb == INCUS_RESTART)
		netsync_after(action_send_start, job);
	else
		action_send_tag(job, tag);
}

/*
 * The destroy guard, run in the container as the dev user: uncommitted
 * changes, and branch tips whose commits the host's repository (mounted
 * read-only at /mnt/host-source) does not have.  A commit jbctl git
 * fetch brought over is the host's: its objects are in that repository.
 * A clone made through the git bridge (a cluster) has no repository of
 * the host's to ask: it prints its tips ("tip OID BRANCH") and jb-gitd
 * says which the checkout has (guardhost.c).
 */
static const char guard_script[] =
    "cd \"$1\" 2>/dev/null || exit 0\n"
    "git status --porcelain 2>/dev/null | head -5 | sed 's/^/changed: /'\n"
    "if ! git -C /mnt/host-source rev-parse --git-dir >/dev/null 2>&1; then\n"
    "  git for-each-ref --format='tip %(objectname) %(refname:short)' "
    "refs/heads\n"
    "  exit 0\n"
    "fi\n"
    "git for-each-ref --format='%(refname:short) %(objectname)' "
    "refs/heads | while read b sha; do\n"
    "  git -C /mnt/host-source cat-file -e \"$sha^{commit}\" 2>/dev/null ||"
    " echo \"branch $b: commit $sha is not on the host\"\n"
    "done\n";

/* what the host lacks, lines joined by ';': refused; nothing: deleted */
static void
guard_verdict(struct job *job, char *lacks)
{
	struct action	*a = job->state;
	char		*p;
	size_t		 n;

	while ((n = strlen(lacks)) > 0 && lacks[n - 1] == '\n')
		lacks[n - 1] = '\0';
	if (lacks[0] == '\0') {
		action_send(job, INCUS_DELETE, 1, NULL);
		return;
	}
	for (p = lacks; (p = strchr(p, '\n')) != NULL; )
		*p = ';';
	job_end(job, 0, "destroy %s: refused, it holds work the host "
	    "does not have: %s (commit it, then jbctl git fetch %s "
	    "brings it to the host; or use --force)", a->name, lacks,
	    job->args[0]);
}

static void
guard_had(struct job *job, int ok, uint64_t have, const char *err)
{
	struct action	*a = job->state;
	char		 line[GUARD_BRANCH_MAX + GUARD_OID_MAX + 64];
	size_t		 i;

	if (!ok) {
		job_end(job, 0, "destroy %s: cannot check its work: the host's "
		    "checkout %s could not be asked: %s (use --force to destroy "
		    "anyway)", a->name, a->in.repo, err);
		return;
	}
	for (i = 0; i < a->ntips; i++) {
		if (have & (1ULL << i))
			continue;
		(void)termsafe(a->tips[i].branch);
		(void)snprintf(line, sizeof(line), "branch %s: commit %s is "
		    "not on the host\n", a->tips[i].branch, a->tips[i].oid);
		(void)strlcat(a->rest, line, sizeof(a->rest));
	}
	guard_verdict(job, a->rest);
}

static void
guard_done(struct job *job, struct capture_result *res)
{
	struct action	*a = job->state;
	char		 why[128];

	if (!res->ok || res->status != 0) {
		job_end(job, 0, "destroy %s: cannot check its work: %s "
		    "(use --force to destroy anyway)", a->name,
		    res->ok ? res->err : res->error);
		return;
	}
	if ((a->tips = calloc(GUARD_TIPS_MAX, sizeof(*a->tips))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	/* tips cut off are tips not asked about: not a yes */
	if (res->outlen >= CAPTURE_MAX - 1 && strstr(res->out, "tip ") != NULL)
		(void)strlcpy(why, "more than it can say at once", sizeof(why));
	else if (guard_tips_parse(res->out, a->tips, &a->ntips, a->rest,
	    sizeof(a->rest), why, sizeof(why)) == 0)
		why[0] = '\0';
	if (why[0] != '\0') {
		job_end(job, 0, "destroy %s: cannot check its work: its branches "
		    "as the container tells them: %s (use --force to destroy "
		    "anyway)", a->name, why);
		return;
	}
	if (a->ntips == 0) {
		guard_verdict(job, res->out);
		return;
	}
	guard_host_has(job, a->in.repo, a->tips, a->ntips, guard_had);
}

static void
destroy_found(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct action	*a = job->state;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &a->in, sizeof(a->in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	a->in.prefix[sizeof(a->in.prefix) - 1] = '\0';
	a->in.mode[sizeof(a->in.mode) - 1] = '\0';
	a->in.state[sizeof(a->in.state) - 1] = '\0';
	a->in.name[sizeof(a->in.name) - 1] = '\0';
	a->in.agent[sizeof(a->in.agent) - 1] = '\0';
	a->found = 1;
}

static void
destroy_checked(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct action		*a = job->state;
	char			 dir[PATH_MAX];
	const char		*argv[] = { "/bin/sh", "-c", guard_script,
				    "jailbee-guard", dir, NULL };
	static const char	*envp[] = { "HOME=/home/dev", NULL };

	if (!ok || !a->found) {
		if (ok)
			job_end(job, 0, "no such container %s", a->name);
		else
			job_end(job, 0, "%s", err);
		return;
	}
	if (strcmp(a->in.mode, "mount") == 0) {
		/* the work tree is the host's own: nothing lives only here */
		action_send(job, INCUS_DELETE, 1, NULL);
		return;
	}
	if (strcmp(a->in.state, "Running") != 0) {
		job_end(job, 0, "destroy %s: it is %s, so its work cannot be "
		    "checked: start it first, or use --force", a->name,
		    a->in.state);
		return;
	}
	snprintf(dir, sizeof(dir), "/home/dev/%s", a->in.prefix);
	if (capture_run(job, a->name, env->owner_uid, env->owner_gid, "/",
	    argv, envp, guard_done) == -1)
		job_end(job, 0, "cannot reach jb-incus");
}

/* whether it runs now: jb-incus leaves a restored container stopped */
static void
restore_looked(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct action	*a = job->state;

	if (!ok || !a->found) {
		if (ok)
			job_end(job, 0, "no such container %s", a->name);
		else
			job_end(job, 0, "%s", err);
		return;
	}
	a->was_running = strcmp(a->in.state, "Running") == 0;
	a->found = 0;
	action_send(job, INCUS_SNAP_RESTORE, 0, job->args[1]);
}

static void
action_named(struct job *job, struct repo_ctx *ctx)
{
	struct action		*a;

	if ((a = calloc(1, sizeof(*a))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	a->ctx = ctx;
	job->state = a;
	job->free_state = action_free;
	if (repo_container_name(ctx, job->args[0], a->name,
	    sizeof(a->name)) == -1) {
		job_end(job, 0, "%s: not a container name", job->args[0]);
		return;
	}
	audit_target(job, a->name, ctx);
	action_go(job);
}

static void
start_ported(struct job *job, int ok, const char *err, void *arg)
{
	struct action	*a = job->state;

	/* a container Incus does not have: that alone is the answer */
	if (!ok && jb_err_absent(err, a->name)) {
		job_end(job, 0, "%s", err);
		return;
	}
	/* a missing forward opens nothing: the start goes on */
	if (!ok)
		job_progress(job, "warning: host_ports not attached: %s", err);
	action_send(job, job->cmd.id == CMD_RESTART ? INCUS_RESTART :
	    INCUS_START, 0, NULL);
}

/* Incus resolves every mount source again as it starts */
static void
start_guarded(struct job *job, int ok, const char *err)
{
	struct action	*a = job->state;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	/* host_ports it lacks, from the checkout's config */
	if (a->ctx != NULL && a->ctx->have_conf) {
		ports_config_attach(job, &a->ctx->conf, a->name, 0,
		    start_ported, NULL);
		return;
	}
	start_ported(job, 1, NULL, NULL);
}

static void
action_go(struct job *job)
{
	struct action		*a = job->state;
	struct jb_incus_target	 t;
	char			 tag[JB_INSTANCE_MAX];
	time_t			 now;

	switch (job->cmd.id) {
	case CMD_START:
	case CMD_RESTART:
		start_guard(job, a->name, start_guarded);
		break;
	case CMD_STOP:
		action_send(job, INCUS_STOP, job_opt(job, "force") != NULL,
		    NULL);
		break;
	case CMD_DESTROY:
		if (job_opt(job, "force") != NULL) {
			action_send(job, INCUS_DELETE, 1, NULL);
			break;
		}
		memset(&t, 0, sizeof(t));
		strlcpy(t.name, a->name, sizeof(t.name));
		if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
		    destroy_found, destroy_checked, job) == NULL)
			job_end(job, 0, "cannot reach jb-incus");
		break;
	case CMD_SNAP_CREATE:
		if (job->nargs > 1)
			strlcpy(tag, job->args[1], sizeof(tag));
		else {
			now = time(NULL);
			strftime(tag, sizeof(tag), "snap-%Y%m%d-%H%M%SZ",
			    gmtime(&now));
		}
		job_progress(job, "snapshot %s of %s", tag, a->name);
		action_send(job, INCUS_SNAP_CREATE, 0, tag);
		break;
	case CMD_SNAP_RESTORE:
		memset(&t, 0, sizeof(t));
		strlcpy(t.name, a->name, sizeof(t.name));
		if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
		    destroy_found, restore_looked, job) == NULL)
			job_end(job, 0, "cannot reach jb-incus");
		break;
	case CMD_SNAP_DELETE:
		action_send(job, INCUS_SNAP_DELETE, 0, job->args[1]);
		break;
	case CMD_SNAP_LS:
		action_send(job, INCUS_SNAP_LIST, 0, NULL);
		break;
	default:
		job_end(job, 0, "not an action");
	}
}

void
cmd_action(struct job *job)
{
	repo_resolve_brief(job, 0, action_named);
}
