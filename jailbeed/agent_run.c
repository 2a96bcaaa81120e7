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
 * An enabled agent in a new container (jbctl new --agent, or
 * agents.<name>.enabled): commands run inside the container as the dev
 * user, in the clone, never on the host.  install_check first; install
 * only when it fails (and install_check must pass after it); update
 * instead when it passes and auto_update is on; then, unless
 * --no-autostart or autostart: false, the agent's command in a window
 * agent-<name> of the tmux session autostart (remain-on-exit, so its end
 * stays visible to jbctl tmux).  Each of check, install and update is
 * cut at the step timeout (600 s) by timeout(1).  The commands travel as
 * arguments, never spliced into the script.
 *
 * With install_network: loose the install (or update) runs on its own,
 * between a check and the launch: the container is loose for it alone,
 * until a deadline of the step's timeout (netgrant.c, jb-netd's
 * deadline), and strict again when it ends, failed or killed alike.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_run.h"
#include "log.h"
#include "netgrant.h"
#include "termsafe.h"

#define AGENT_STEP_TIMEOUT	600
#define AGENT_STEP_TIMEOUT_S	"600"
/* the grant outlives timeout(1)'s cut by this much: exec's own start */
#define AGENT_GRANT_SLACK	30

/* $1: all | check | install | update | launch */
static const char agent_script[] =
    "mode=$1 name=$2 check=$3 install=$4 update=$5 autoupdate=$6 cmd=$7 "
    "launch=$8 links=$9\n"
    "shift 9\n"
    "run() { timeout " AGENT_STEP_TIMEOUT_S " sh -c \"$1\"; }\n"
    "for kv in \"$@\"; do export \"$kv\"; done\n"
    "installed() { [ -n \"$check\" ] && run \"$check\" >/dev/null 2>&1; }\n"
    "wants_update() { [ \"$autoupdate\" = 1 ] && [ -n \"$update\" ]; }\n"
    "do_update() {\n"
    "  run \"$update\" >&2 || echo \"agent $name: update failed "
    "(status $?); the installed one stays\"\n"
    "}\n"
    "do_install() {\n"
    "  [ -n \"$install\" ] || { echo \"agent $name: install_check fails and "
    "there is no install command\" >&2; exit 10; }\n"
    "  echo \"agent $name: installing\"\n"
    "  run \"$install\" >&2 || { s=$?; echo \"agent $name: install failed "
    "(status $s)\" >&2; exit 10; }\n"
    "  if [ -n \"$check\" ] && ! installed; then\n"
    "    echo \"agent $name: install_check still fails after the install\" "
    ">&2; exit 10\n"
    "  fi\n"
    "  echo \"agent $name: installed\"\n"
    "}\n"
    /*
     * the shared files reached by a link: at, then its target, a line
     * each; a file the tool put in the link's place is left alone
     */
    "[ -z \"$links\" ] || printf '%s\\n' \"$links\" | "
    "while IFS= read -r at && IFS= read -r to; do\n"
    "  if [ -L \"$at\" ]; then\n"
    "    [ \"$(readlink \"$at\")\" = \"$to\" ] && continue\n"
    "    rm -f \"$at\"\n"
    "  elif [ -e \"$at\" ]; then\n"
    "    echo \"agent $name: $at is not the link to $to: left as it is "
    "(move it to $to to share it)\"\n"
    "    continue\n"
    "  fi\n"
    "  mkdir -p \"${at%/*}\" && ln -s \"$to\" \"$at\" || "
    "echo \"agent $name: cannot link $at to $to\"\n"
    "done\n"
    "case $mode in\n"
    "check)\n"
    "  installed || exit 12\n"
    "  echo \"agent $name: installed (install_check passed)\"\n"
    "  wants_update && exit 13\n"
    "  exit 0;;\n"
    "install) do_install; exit 0;;\n"
    "update) do_update; exit 0;;\n"
    "all)\n"
    "  if installed; then\n"
    "    echo \"agent $name: installed (install_check passed)\"\n"
    "    wants_update && do_update\n"
    "  else\n"
    "    do_install\n"
    "  fi;;\n"
    "esac\n"
    "[ \"$launch\" = - ] && exit 0\n"
    "[ \"$launch\" = 1 ] || { echo \"agent $name: not launched\"; exit 0; }\n"
    "command -v tmux >/dev/null || { echo \"agent $name: no tmux in the "
    "container to launch it in\" >&2; exit 11; }\n"
    "for kv in \"$@\"; do set -- \"$@\" -e \"$kv\"; shift; done\n"
    "set -- -e \"REPO_DIR=$REPO_DIR\" \"$@\"\n"
    "wrap='s=0; sh -c \"$1\" || s=$?; " PANE_END "'\n"
    "if tmux has-session -t autostart 2>/dev/null; then\n"
    "  tmux set-option -g remain-on-exit on \\; new-window -d -t autostart "
    "-n \"agent-$name\" -c \"$REPO_DIR\" \"$@\" sh -c \"$wrap\" "
    "jailbee-agent \"$cmd\" || exit 11\n"
    "else\n"
    "  conf=$(mktemp) || exit 11\n"
    "  echo 'set -g remain-on-exit on' > \"$conf\"\n"
    "  tmux -f \"$conf\" new-session -d -s autostart -x 160 -y 48 "
    "-n \"agent-$name\" -c \"$REPO_DIR\" \"$@\" sh -c \"$wrap\" "
    "jailbee-agent \"$cmd\"; s=$?\n"
    "  rm -f \"$conf\"\n"
    "  [ $s = 0 ] || exit 11\n"
    "fi\n"
    "echo \"agent $name: launched in tmux session autostart, window "
    "agent-$name (jbctl tmux)\"\n";

/* one agent being run for a job: its phases, then next */
struct agentrun {
	LIST_ENTRY(agentrun)	 entry;
	struct job		*job;
	char			 instance[JB_INSTANCE_MAX];
	const struct repoconf	*conf;
	const struct rc_agent	*a;
	const char		*launch;	/* "1", "0" or "-": the script's */
	capture_next		 next;
	const char		*mode;		/* the phase running */
	struct capture_result	 res;		/* the install's, kept */
	int			 granted;
};

static LIST_HEAD(, agentrun) runs = LIST_HEAD_INITIALIZER(runs);

static struct agentrun *
run_find(struct job *job)
{
	struct agentrun	*ar;

	LIST_FOREACH(ar, &runs, entry)
		if (ar->job == job)
			return ar;
	fatalx("%s: no agent run for the job", __func__);
}

/* the run is over: next gets res, the run is gone before */
static void
run_end(struct agentrun *ar, struct capture_result *res)
{
	struct job	*job = ar->job;
	capture_next	 next = ar->next;

	LIST_REMOVE(ar, entry);
	next(job, res);
	free(ar);
}

/* ~/x is the dev user's */
static void
home_path(const char *p, char *out, size_t len)
{
	if (p[0] == '~' && p[1] == '/')
		(void)snprintf(out, len, "/home/dev/%s", p + 2);
	else
		(void)strlcpy(out, p, len);
}

static int
run_phase(struct agentrun *ar, const char *mode, capture_next cb)
{
	const struct rc_agent	*a = ar->a;
	char			 dir[PATH_MAX], repo_env[PATH_MAX + 16];
	char			 envv[RC_AGENT_ENV_MAX][RC_AGENT_ENVNAME_MAX +
				    RC_AGENT_ENVVAL_MAX + 2];
	const char		*argv[13 + RC_AGENT_ENV_MAX + 1];
	/* a path and a target are 255 bytes at most, with /home/dev/ */
	char			 at[300], to[300];
	char			 links[RC_AGENT_SHARED_MAX * 2 * sizeof(at)];
	size_t			 lo = 0;
	const char		*envp[6];
	int			 i, n = 0;

	ar->mode = mode;
	(void)snprintf(dir, sizeof(dir), "/home/dev/%s",
	    ar->conf->container_prefix);
	(void)snprintf(repo_env, sizeof(repo_env), "REPO_DIR=%s", dir);
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = agent_script;
	argv[n++] = "jailbee-agent";	/* $0 */
	argv[n++] = mode;
	argv[n++] = a->name;
	argv[n++] = a->install_check;
	argv[n++] = a->install;
	argv[n++] = a->update;
	argv[n++] = a->auto_update == 1 ? "1" : "0";
	argv[n++] = a->command;
	argv[n++] = ar->launch;
	/* the links to shared files: at, target, one line each */
	links[0] = '\0';
	for (i = 0; i < a->nshared; i++) {
		if (strcmp(a->shared[i].type, "link") != 0)
			continue;
		home_path(a->shared[i].path, at, sizeof(at));
		home_path(a->shared[i].target, to, sizeof(to));
		lo += (size_t)snprintf(links + lo, sizeof(links) - lo,
		    "%s\n%s\n", at, to);
	}
	argv[n++] = links;
	/* after the 9 above, the agent's env as NAME=value */
	for (i = 0; i < a->nenv; i++) {
		(void)snprintf(envv[i], sizeof(envv[i]), "%s=%s",
		    a->env_name[i], a->env_value[i]);
		argv[n++] = envv[i];
	}
	argv[n] = NULL;
	envp[0] = "HOME=/home/dev";
	envp[1] = "USER=dev";
	envp[2] = "LOGNAME=dev";
	envp[3] = repo_env;
	envp[4] = JB_DEV_PATH;
	envp[5] = NULL;
	return capture_run(ar->job, ar->instance, env->owner_uid,
	    env->owner_gid, dir, argv, envp, cb);
}

/* a phase could not be sent: said as a result that did not run */
static void
run_unsent(struct agentrun *ar)
{
	struct capture_result	res;

	memset(&res, 0, sizeof(res));
	(void)snprintf(res.error, sizeof(res.error), "its %s could not be "
	    "run in the container (jb-incus unreachable?)", ar->mode);
	run_end(ar, &res);
}

/* what a phase printed, as progress; its stdout is consumed */
static void
run_progress(struct job *job, struct capture_result *res)
{
	char	*p, *nl;

	for (p = res->out; p < res->out + res->outlen; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(res->out + res->outlen -
		    p))) == NULL)
			break;
		*nl = '\0';
		job_progress(job, "%s", termsafe(p));
	}
	res->outlen = 0;
}

static void	run_launched(struct job *, struct capture_result *);

static void
run_launch(struct agentrun *ar)
{
	struct capture_result	res;

	/* installed, not to be launched by this run */
	if (strcmp(ar->launch, "-") == 0) {
		memset(&res, 0, sizeof(res));
		res.ok = res.exited = 1;
		run_end(ar, &res);
		return;
	}
	if (run_phase(ar, "launch", run_launched) == -1)
		run_unsent(ar);
}

static void
run_launched(struct job *job, struct capture_result *res)
{
	run_end(run_find(job), res);
}

/* strict again after the install: then its result decides */
static void
run_closed(struct job *job, int ok, int granted, const char *err)
{
	struct agentrun	*ar = run_find(job);

	if (!ok) {
		memset(&ar->res, 0, sizeof(ar->res));
		(void)snprintf(ar->res.error, sizeof(ar->res.error), "%s",
		    err);
		run_end(ar, &ar->res);
		return;
	}
	if (ar->granted)
		job_progress(job, "agent %s: %s is strict again", ar->a->name,
		    ar->instance);
	if (!ar->res.ok || ar->res.status != 0) {
		run_end(ar, &ar->res);
		return;
	}
	run_launch(ar);
}

static void
run_installed(struct job *job, struct capture_result *res)
{
	struct agentrun	*ar = run_find(job);

	run_progress(job, res);
	ar->res = *res;
	if (ar->granted)
		net_grant_end(job, ar->instance, run_closed);
	else
		run_closed(job, 1, 0, NULL);
}

static void
run_opened(struct job *job, int ok, int granted, const char *err)
{
	struct agentrun		*ar = run_find(job);
	struct capture_result	 res;

	if (!ok) {
		memset(&res, 0, sizeof(res));
		(void)snprintf(res.error, sizeof(res.error), "install_network: "
		    "loose: %s", err);
		run_end(ar, &res);
		return;
	}
	if (!(ar->granted = granted))
		job_progress(job, "agent %s: %s is loose already, longer than "
		    "its %s needs: left as it is", ar->a->name, ar->instance,
		    ar->mode);
	else
		job_progress(job, "agent %s: %s loose for its %s "
		    "(install_network: loose), %d s at most", ar->a->name,
		    ar->instance, ar->mode, AGENT_STEP_TIMEOUT +
		    AGENT_GRANT_SLACK);
	if (run_phase(ar, ar->mode, run_installed) == -1) {
		/* not sent: close what was opened, and say why after */
		memset(&ar->res, 0, sizeof(ar->res));
		(void)snprintf(ar->res.error, sizeof(ar->res.error), "its %s "
		    "could not be run in the container", ar->mode);
		if (ar->granted)
			net_grant_end(job, ar->instance, run_closed);
		else
			run_closed(job, 1, 0, NULL);
	}
}

/* install_check said: 0 installed, 12 not, 13 installed, update due */
static void
run_checked(struct job *job, struct capture_result *res)
{
	struct agentrun	*ar = run_find(job);
	const char	*mode;
	int64_t		 until;

	if (!res->ok || (res->status != 0 && res->status != 12 &&
	    res->status != 13)) {
		run_end(ar, res);
		return;
	}
	run_progress(job, res);
	if (res->status == 0) {
		run_launch(ar);
		return;
	}
	mode = res->status == 12 ? "install" : "update";
	until = (int64_t)time(NULL) + AGENT_STEP_TIMEOUT + AGENT_GRANT_SLACK;
	ar->mode = mode;
	net_grant(job, ar->instance, until, run_opened);
}

int
agent_run(struct job *job, const char *instance, const struct repoconf *conf,
    const struct rc_agent *a, int what, capture_next next)
{
	struct agentrun	*ar;
	int		 loose = strcmp(a->install_network, "loose") == 0;
	const char	*mode;

	if ((ar = calloc(1, sizeof(*ar))) == NULL)
		return -1;
	ar->job = job;
	(void)strlcpy(ar->instance, instance, sizeof(ar->instance));
	ar->conf = conf;
	ar->a = a;
	if (what == AGENT_INSTALL)
		ar->launch = "-";
	else
		ar->launch = what == AGENT_LAUNCH && a->autostart != 0 ? "1" :
		    "0";
	ar->next = next;
	LIST_INSERT_HEAD(&runs, ar, entry);
	if (what != AGENT_INSTALL_LAUNCH && what != AGENT_INSTALL)
		mode = "launch";
	else {
		job_progress(job, "agent %s: install_check, then install when "
		    "it fails, in %s", a->name, instance);
		/* strict install: one command does it all */
		mode = loose ? "check" : "all";
	}
	if (run_phase(ar, mode, strcmp(mode, "check") == 0 ? run_checked :
	    run_launched) == -1) {
		LIST_REMOVE(ar, entry);
		free(ar);
		return -1;
	}
	return 0;
}

/* the last line of s (without its newline) into out */
static void
last_line(const char *s, size_t len, char *out, size_t outlen)
{
	size_t	end = len, start;

	while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r'))
		end--;
	start = end;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	if (end - start >= outlen)
		start = end - (outlen - 1);
	memcpy(out, s + start, end - start);
	out[end - start] = '\0';
}

int
agent_result(struct job *job, const char *agent, struct capture_result *res,
    char *err, size_t errlen)
{
	char	line[512];
	char	*p, *nl;

	/* what the script said it did, line by line, as progress */
	for (p = res->out; p < res->out + res->outlen; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(res->out + res->outlen -
		    p))) == NULL)
			break;
		*nl = '\0';
		job_progress(job, "%s", termsafe(p));
	}
	if (!res->ok) {
		(void)snprintf(err, errlen, "agent %s: %s", agent, res->error);
		return -1;
	}
	if (res->status == 0)
		return 0;
	/* what the install said before its end, then why it ended */
	last_line(res->err, res->errlen, line, sizeof(line));
	for (p = res->err; p < res->err + res->errlen; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(res->err + res->errlen -
		    p))) == NULL)
			break;
		*nl = '\0';
		if (strcmp(p, line) != 0)
			job_progress(job, "%s", termsafe(p));
	}
	(void)snprintf(err, errlen, "%s%s(exit status %d)", termsafe(line),
	    line[0] != '\0' ? " " : "", res->status);
	return -1;
}
