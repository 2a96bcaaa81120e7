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
 * Autostart: the agents installed, the steps of
 * on_create (new only) and on_start, then the agents' launches, which
 * come after on_start.  Each step runs as the dev user in its own window
 * of the container's tmux session autostart (remain-on-exit, so its end
 * stays visible to jbctl tmux); a foreground step is waited for up to
 * its timeout (then its window is killed), a background one is left
 * running.  The step's command, name, directory and environment
 * (container.env < autostart.env < step env, plus REPO_DIR) travel as
 * arguments of a fixed script, never spliced into it.  A step with
 * network: loose runs with the container loose until a deadline of its
 * timeout (netgrant.c, jb-netd's deadline) and strict again when it
 * ends, failed or timed out alike; a step's mounts are attached for it
 * alone the same way, by jb-mountd's deadline (stepmount.c), and
 * detached when it ends.  Before the agents are installed, their shared
 * entries are attached (agent_shared.c); before anything, with
 * network.trust_host_cas, the host's local CAs are trusted (hostcas.c).
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_run.h"
#include "agent_shared.h"
#include "autostart_run.h"
#include "capture.h"
#include "hostcas.h"
#include "log.h"
#include "netgrant.h"
#include "stepmount.h"
#include "repoconf_autostart.h"
#include "termsafe.h"
#include "testhook.h"

/* the grant outlives the step's own timeout by this much (5 s under the
 * test switch) */
#define STEP_GRANT_SLACK	jb_test_secs(30, 5)
#define STEP_ENV_MAX		(RC_STEP_ENV_MAX * 2 + 64)

/* $1 name, $2 run, $3 working_dir, $4 background, $5 timeout; K=V ... */
static const char step_script[] =
    "name=$1 run=$2 wd=$3 bg=$4 tmo=$5\n"
    "shift 5\n"
    "case $wd in\n"
    "'') dir=$REPO_DIR;;\n"
    "/*) dir=$wd;;\n"
    "*) dir=$REPO_DIR/$wd;;\n"
    "esac\n"
    "[ -d \"$dir\" ] || { echo \"step $name: working_dir $dir is not a "
    "directory\" >&2; exit 20; }\n"
    "command -v tmux >/dev/null || { echo \"step $name: no tmux in the "
    "container to run it in\" >&2; exit 21; }\n"
    "st=$(mktemp -d) || exit 21\n"
    "for kv in \"$@\"; do set -- \"$@\" -e \"$kv\"; shift; done\n"
    "set -- -e \"REPO_DIR=$REPO_DIR\" \"$@\"\n"
    "wrap='s=0; sh -c \"$1\" || s=$?; echo $s > \"$2.t\"; mv \"$2.t\" \"$2\"; "
    PANE_END "'\n"
    "if tmux has-session -t autostart 2>/dev/null; then\n"
    "  tmux set-option -g remain-on-exit on >/dev/null || exit 21\n"
    "  w=$(tmux new-window -d -P -F '#{window_id}' -t autostart -n "
    "\"$name\" -c \"$dir\" \"$@\" sh -c \"$wrap\" jailbee-step \"$run\" "
    "\"$st/status\") || exit 21\n"
    "else\n"
    "  conf=$(mktemp) || exit 21\n"
    "  echo 'set -g remain-on-exit on' > \"$conf\"\n"
    "  w=$(tmux -f \"$conf\" new-session -d -P -F '#{window_id}' -s "
    "autostart -x 160 -y 48 -n \"$name\" -c \"$dir\" \"$@\" sh -c \"$wrap\" "
    "jailbee-step \"$run\" \"$st/status\"); s=$?\n"
    "  rm -f \"$conf\"\n"
    "  [ $s = 0 ] || exit 21\n"
    "fi\n"
    "if [ \"$bg\" = 1 ]; then\n"
    "  echo \"step $name: running in the background, window $name of "
    "tmux session autostart\"\n"
    "  exit 0\n"
    "fi\n"
    "end=$(( $(date +%s) + tmo ))\n"
    "while [ ! -e \"$st/status\" ]; do\n"
    "  if [ \"$(date +%s)\" -ge \"$end\" ]; then\n"
    "    tmux kill-window -t \"$w\" 2>/dev/null\n"
    "    rm -rf \"$st\"\n"
    "    echo \"step $name: timed out after $tmo s; its window is killed\" "
    ">&2\n"
    "    exit 124\n"
    "  fi\n"
    "  sleep 0.2\n"
    "done\n"
    "s=$(cat \"$st/status\")\n"
    "rm -rf \"$st\"\n"
    "if [ \"$s\" = 0 ]; then echo \"step $name: done\"; exit 0; fi\n"
    "echo \"step $name: failed (status $s)\" >&2\n"
    "exit 1\n";

enum as_phase {
	AS_HOSTCAS,
	AS_SHARED,
	AS_INSTALL,
	AS_CREATE,
	AS_START,
	AS_LAUNCH,
	AS_DONE
};

struct asrun {
	LIST_ENTRY(asrun)	 entry;
	struct job		*job;
	char			 instance[JB_INSTANCE_MAX];
	const struct repoconf	*conf;
	size_t			 agents[RC_AGENTS_MAX];
	size_t			 nagents;
	int			 on_create;
	int			 launch;
	autostart_cb		 done;
	enum as_phase		 phase;
	size_t			 next;		/* in the phase */
	const struct rc_step	*step;		/* running */
	int			 granted;
	struct stepmounts	*sm;		/* its mounts, or NULL */
	char			 fail[JB_ERR_TEXT_MAX]; /* why it failed */
	struct capture_result	 res;
};

static LIST_HEAD(, asrun) asruns = LIST_HEAD_INITIALIZER(asruns);

static void	as_go(struct asrun *);

static struct asrun *
as_find(struct job *job)
{
	struct asrun	*as;

	LIST_FOREACH(as, &asruns, entry)
		if (as->job == job)
			return as;
	fatalx("%s: no autostart run for the job", __func__);
}

static void
as_end(struct asrun *as, int ok, const char *err)
{
	struct job	*job = as->job;
	autostart_cb	 done = as->done;
	char		 why[JB_ERR_TEXT_MAX];

	/* err may be the run's own text (as->fail): kept past the free */
	if (err != NULL)
		(void)strlcpy(why, err, sizeof(why));
	LIST_REMOVE(as, entry);
	free(as);
	done(job, ok, err != NULL ? why : NULL);
}

static void
as_agent_done(struct job *job, struct capture_result *res)
{
	struct asrun	*as = as_find(job);
	char		 err[JB_ERR_TEXT_MAX];

	if (agent_result(job, as->conf->agents.v[as->agents[as->next]].name,
	    res, err, sizeof(err)) == -1) {
		as_end(as, 0, err);
		return;
	}
	as->next++;
	as_go(as);
}

/* the step's stdout as progress, its failure as err */
static int
step_result(struct job *job, const struct rc_step *st,
    struct capture_result *res, char *err, size_t errlen)
{
	char	*p, *nl;

	for (p = res->out; p < res->out + res->outlen; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(res->out + res->outlen -
		    p))) == NULL)
			break;
		*nl = '\0';
		job_progress(job, "%s", termsafe(p));
	}
	if (!res->ok) {
		(void)snprintf(err, errlen, "step %s: %.900s", st->name,
		    res->error);
		return -1;
	}
	if (res->status == 0)
		return 0;
	while (res->errlen > 0 && res->err[res->errlen - 1] == '\n')
		res->errlen--;
	res->err[res->errlen < sizeof(res->err) ? res->errlen :
	    sizeof(res->err) - 1] = '\0';
	p = strrchr(res->err, '\n');
	(void)snprintf(err, errlen, "%s (exit status %d)", termsafe(p != NULL ?
	    p + 1 : res->err), res->status);
	return -1;
}

/* the step and its network are over: on, or stop */
static void
step_over(struct asrun *as)
{
	const struct rc_step	*st = as->step;
	char			 err[JB_ERR_TEXT_MAX];

	if (step_result(as->job, st, &as->res, err, sizeof(err)) == -1) {
		if (!st->continue_on_error) {
			as_end(as, 0, err);
			return;
		}
		job_progress(as->job, "%s; continue_on_error: the next step "
		    "runs", err);
	}
	as->next++;
	as_go(as);
}

static void
step_unmounted(struct job *job, int ok, const char *err, void *arg)
{
	struct asrun	*as = arg;

	if (!ok && as->fail[0] == '\0')
		(void)snprintf(as->fail, sizeof(as->fail), "step %s: %.900s",
		    as->step->name, err);
	if (as->fail[0] != '\0') {
		as_end(as, 0, as->fail);
		return;
	}
	step_over(as);
}

/* the network is strict again (or never opened): the mounts go */
static void
step_unmount(struct asrun *as)
{
	struct stepmounts	*sm = as->sm;

	if (sm == NULL) {
		if (as->fail[0] != '\0')
			as_end(as, 0, as->fail);
		else
			step_over(as);
		return;
	}
	as->sm = NULL;
	step_mounts_end(sm, step_unmounted, as);
}

static void
step_closed(struct job *job, int ok, int granted, const char *err)
{
	struct asrun	*as = as_find(job);

	if (!ok) {
		if (as->fail[0] == '\0')
			(void)strlcpy(as->fail, err, sizeof(as->fail));
	} else
		job_progress(job, "step %s: %s is strict again",
		    as->step->name, as->instance);
	step_unmount(as);
}

/* the step is over, or never ran: its network, then its mounts */
static void
step_release(struct asrun *as)
{
	if (as->granted)
		net_grant_end(as->job, as->instance, step_closed);
	else
		step_unmount(as);
}

static void
step_ran(struct job *job, struct capture_result *res)
{
	struct asrun	*as = as_find(job);

	as->res = *res;
	step_release(as);
}

static int
step_exec(struct asrun *as)
{
	const struct rc_step	*st = as->step;
	char			 dir[PATH_MAX], repo_env[PATH_MAX + 16];
	char			 tmo[16];
	char			 envv[STEP_ENV_MAX][RC_AGENT_ENVNAME_MAX +
				    RC_AGENT_ENVVAL_MAX + 2];
	const char		*argv[9 + STEP_ENV_MAX + 1];
	const char		*envp[6];
	int			 i, n = 0, ne;

	ne = rc_step_env(&as->conf->env, &as->conf->autostart, st, envv,
	    STEP_ENV_MAX);
	if (ne == -1)
		return -1;
	(void)snprintf(dir, sizeof(dir), "/home/dev/%s",
	    as->conf->container_prefix);
	(void)snprintf(repo_env, sizeof(repo_env), "REPO_DIR=%s", dir);
	(void)snprintf(tmo, sizeof(tmo), "%d", rc_step_timeout(
	    &as->conf->autostart, st));
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = step_script;
	argv[n++] = "jailbee-autostart";	/* $0 */
	argv[n++] = st->name;
	argv[n++] = st->run;
	argv[n++] = st->working_dir;
	argv[n++] = st->background ? "1" : "0";
	argv[n++] = tmo;
	for (i = 0; i < ne; i++)
		argv[n++] = envv[i];
	argv[n] = NULL;
	envp[0] = "HOME=/home/dev";
	envp[1] = "USER=dev";
	envp[2] = "LOGNAME=dev";
	envp[3] = repo_env;
	envp[4] = JB_DEV_PATH;
	envp[5] = NULL;
	return capture_run(as->job, as->instance, env->owner_uid,
	    env->owner_gid, dir, argv, envp, step_ran);
}

static void
step_unsent(struct asrun *as)
{
	memset(&as->res, 0, sizeof(as->res));
	(void)snprintf(as->res.error, sizeof(as->res.error), "could not be "
	    "run in the container (jb-incus unreachable, or more than %d "
	    "environment variables)", STEP_ENV_MAX);
	step_release(as);
}

static void
step_opened(struct job *job, int ok, int granted, const char *err)
{
	struct asrun	*as = as_find(job);
	char		 msg[JB_ERR_TEXT_MAX];

	if (!ok) {
		(void)snprintf(msg, sizeof(msg), "step %s: network: loose: "
		    "%.800s", as->step->name, err);
		(void)strlcpy(as->fail, msg, sizeof(as->fail));
		step_unmount(as);
		return;
	}
	if ((as->granted = granted))
		job_progress(job, "step %s: %s loose for it, %d s at most",
		    as->step->name, as->instance, rc_step_timeout(
		    &as->conf->autostart, as->step) + STEP_GRANT_SLACK);
	else
		job_progress(job, "step %s: %s is loose already, longer than "
		    "the step needs: left as it is", as->step->name,
		    as->instance);
	if (step_exec(as) == -1)
		step_unsent(as);
}

static int64_t
step_deadline(const struct asrun *as, const struct rc_step *st)
{
	return (int64_t)time(NULL) + rc_step_timeout(&as->conf->autostart,
	    st) + STEP_GRANT_SLACK;
}

/* the mounts are there: the network next, then the step */
static void
step_network(struct asrun *as)
{
	const struct rc_step	*st = as->step;

	if (strcmp(st->network, "loose") == 0) {
		net_grant(as->job, as->instance, step_deadline(as, st),
		    step_opened);
		return;
	}
	if (step_exec(as) == -1)
		step_unsent(as);
}

static void
step_mounted(struct job *job, int ok, const char *err, void *arg)
{
	struct asrun	*as = arg;

	if (!ok) {
		(void)snprintf(as->fail, sizeof(as->fail), "step %s: %.900s",
		    as->step->name, err);
		step_unmount(as);
		return;
	}
	step_network(as);
}

static void
step_start(struct asrun *as, const struct rc_step *st)
{
	as->step = st;
	as->granted = 0;
	as->fail[0] = '\0';
	job_progress(as->job, "step %s: %s", st->name, st->background ?
	    "started in the background" : "running");
	if (st->nmounts > 0) {
		if ((as->sm = step_mounts_new(as->job, as->instance, as->conf,
		    st, step_deadline(as, st))) == NULL) {
			as_end(as, 0, "out of memory");
			return;
		}
		step_mounts_grant(as->sm, step_mounted, as);
		return;
	}
	step_network(as);
}

static void
as_hostcas(struct job *job, int ok, const char *err, void *arg)
{
	struct asrun	*as = arg;

	if (!ok) {
		as_end(as, 0, err);
		return;
	}
	as->phase = AS_SHARED;
	as->next = 0;
	as_go(as);
}

static void
as_shared(struct job *job, int ok, const char *err, void *arg)
{
	struct asrun	*as = arg;

	if (!ok) {
		as_end(as, 0, err);
		return;
	}
	as->phase = AS_INSTALL;
	as->next = 0;
	as_go(as);
}

static void
as_go(struct asrun *as)
{
	const struct rc_steplist	*l;
	const struct rc_agent		*a;

	for (;;) {
		switch (as->phase) {
		case AS_HOSTCAS:
			host_cas_apply(as->job, as->instance, as_hostcas, as);
			return;
		case AS_SHARED:
			agent_shared_apply(as->job, as->instance, as->conf,
			    as->agents, as->nagents, as_shared, as);
			return;
		case AS_INSTALL:
		case AS_LAUNCH:
			if (as->next >= as->nagents)
				break;
			a = &as->conf->agents.v[as->agents[as->next]];
			if (agent_run(as->job, as->instance, as->conf, a,
			    as->phase == AS_INSTALL ? AGENT_INSTALL :
			    as->launch ? AGENT_LAUNCH : AGENT_NOLAUNCH,
			    as_agent_done) == -1) {
				as_end(as, 0, "an agent could not be run in "
				    "the container");
			}
			return;
		case AS_CREATE:
		case AS_START:
			l = as->phase == AS_CREATE ?
			    &as->conf->autostart.on_create :
			    &as->conf->autostart.on_start;
			if (!as->launch || (as->phase == AS_CREATE &&
			    !as->on_create) || as->next >= l->n)
				break;
			step_start(as, &l->v[as->next]);
			return;
		case AS_DONE:
			as_end(as, 1, NULL);
			return;
		}
		as->phase++;
		as->next = 0;
	}
}

void
autostart_run(struct job *job, const char *instance,
    const struct repoconf *conf, const size_t *agents, size_t n,
    int on_create, int launch, autostart_cb done)
{
	struct asrun	*as;

	if ((as = calloc(1, sizeof(*as))) == NULL) {
		done(job, 0, "out of memory");
		return;
	}
	as->job = job;
	(void)strlcpy(as->instance, instance, sizeof(as->instance));
	as->conf = conf;
	if (n > RC_AGENTS_MAX)
		n = RC_AGENTS_MAX;
	memcpy(as->agents, agents, n * sizeof(*agents));
	as->nagents = n;
	as->on_create = on_create;
	as->launch = launch;
	as->done = done;
	LIST_INSERT_HEAD(&asruns, as, entry);
	as_go(as);
}
