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
 * agents.<name>.enabled): one command run inside the container as the
 * dev user, in the clone, never on the host.  install_check first;
 * install only when it fails (and install_check must pass after it);
 * update instead when it passes and auto_update is on; then, unless
 * --no-autostart or autostart: false, the agent's command in a window
 * agent-<name> of the tmux session autostart (remain-on-exit, so its end
 * stays visible to jbctl tmux).  Each of check, install and update is
 * cut at the step timeout (600 s) by timeout(1).  The commands travel as
 * arguments, never spliced into the script.
 */

#include <stdio.h>
#include <string.h>

#include "agent_run.h"
#include "log.h"
#include "termsafe.h"

#define AGENT_STEP_TIMEOUT	"600"

static const char agent_script[] =
    "name=$1 check=$2 install=$3 update=$4 autoupdate=$5 cmd=$6 launch=$7\n"
    "shift 7\n"
    "run() { timeout " AGENT_STEP_TIMEOUT " sh -c \"$1\"; }\n"
    "for kv in \"$@\"; do export \"$kv\"; done\n"
    "if [ -n \"$check\" ] && run \"$check\" >/dev/null 2>&1; then\n"
    "  echo \"agent $name: installed (install_check passed)\"\n"
    "  if [ \"$autoupdate\" = 1 ] && [ -n \"$update\" ]; then\n"
    "    run \"$update\" >&2 || echo \"agent $name: update failed "
    "(status $?); the installed one stays\"\n"
    "  fi\n"
    "else\n"
    "  [ -n \"$install\" ] || { echo \"agent $name: install_check fails and "
    "there is no install command\" >&2; exit 10; }\n"
    "  echo \"agent $name: installing\"\n"
    "  run \"$install\" >&2 || { s=$?; echo \"agent $name: install failed "
    "(status $s)\" >&2; exit 10; }\n"
    "  if [ -n \"$check\" ] && ! run \"$check\" >/dev/null 2>&1; then\n"
    "    echo \"agent $name: install_check still fails after the install\" "
    ">&2; exit 10\n"
    "  fi\n"
    "  echo \"agent $name: installed\"\n"
    "fi\n"
    "[ \"$launch\" = 1 ] || { echo \"agent $name: not launched\"; exit 0; }\n"
    "command -v tmux >/dev/null || { echo \"agent $name: no tmux in the "
    "container to launch it in\" >&2; exit 11; }\n"
    "for kv in \"$@\"; do set -- \"$@\" -e \"$kv\"; shift; done\n"
    "set -- -e \"REPO_DIR=$REPO_DIR\" \"$@\"\n"
    "if tmux has-session -t autostart 2>/dev/null; then\n"
    "  tmux set-option -g remain-on-exit on \\; new-window -d -t autostart "
    "-n \"agent-$name\" -c \"$REPO_DIR\" \"$@\" \"$cmd\" || exit 11\n"
    "else\n"
    "  conf=$(mktemp) || exit 11\n"
    "  echo 'set -g remain-on-exit on' > \"$conf\"\n"
    "  tmux -f \"$conf\" new-session -d -s autostart -x 160 -y 48 "
    "-n \"agent-$name\" -c \"$REPO_DIR\" \"$@\" \"$cmd\"; s=$?\n"
    "  rm -f \"$conf\"\n"
    "  [ $s = 0 ] || exit 11\n"
    "fi\n"
    "echo \"agent $name: launched in tmux session autostart, window "
    "agent-$name (jbctl tmux)\"\n";

int
agent_run(struct job *job, const char *instance, const struct repoconf *conf,
    const struct rc_agent *a, int launch, capture_next next)
{
	char		 dir[PATH_MAX], repo_env[PATH_MAX + 16];
	char		 envv[RC_AGENT_ENV_MAX][RC_AGENT_ENVNAME_MAX +
			    RC_AGENT_ENVVAL_MAX + 2];
	const char	*argv[11 + RC_AGENT_ENV_MAX + 1];
	const char	*envp[5];
	int		 i, n = 0;

	(void)snprintf(dir, sizeof(dir), "/home/dev/%s",
	    conf->container_prefix);
	(void)snprintf(repo_env, sizeof(repo_env), "REPO_DIR=%s", dir);
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = agent_script;
	argv[n++] = "jailbee-agent";	/* $0 */
	argv[n++] = a->name;
	argv[n++] = a->install_check;
	argv[n++] = a->install;
	argv[n++] = a->update;
	argv[n++] = a->auto_update == 1 ? "1" : "0";
	argv[n++] = a->command;
	argv[n++] = launch && a->autostart != 0 ? "1" : "0";
	/* after the 7 above, the agent's env as NAME=value */
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
	envp[4] = NULL;
	job_progress(job, "agent %s: install_check, then install when it "
	    "fails, in %s", a->name, instance);
	return capture_run(job, instance, env->owner_uid, env->owner_gid, dir,
	    argv, envp, next);
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
