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
 * jbctl new NAME [BASE] [--mount]: a container <prefix>-<slug>
 * from the repo's base image, the checkout mounted read-only at
 * /mnt/host-source, and a `git clone --shared` of it in the dev user's
 * home on branch NAME; or, with --mount, the working tree itself.  Each
 * step says what it does; when one fails, the container is deleted and
 * the user is told which step failed.  jb-netd enforces the network
 * policy (strict, egress_allow) before the container is created.  Its
 * fixed address is chosen as addralloc.h says, from what jb-incus
 * reports of the bridge (NETINFO) and of what holds addresses (ADDRS).  The
 * owner's git identity, read by jb-mountd, becomes the dev user's
 * ~/.gitconfig; without one, new says so and goes on.  Last, the agent
 * --agent names and those the config enables are installed and launched
 * in the container (agent_run.c); one that fails ends new in error but
 * leaves the container as it is.
 */

#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "agent_run.h"
#include "autostart_run.h"
#include "escalation.h"
#include "base_spec.h"
#include "gitident.h"
#include "hostspin.h"
#include "addralloc.h"
#include "capture.h"
#include "checkout_dev.h"
#include "clone_bridge.h"
#include "clusterpin.h"
#include "jobs.h"
#include "limits_run.h"
#include "log.h"
#include "policyrec.h"
#include "mounts.h"
#include "mountspec.h"
#include "ports.h"
#include "secrets.h"
#include "netpin.h"
#include "netstatus.h"
#include "sshpolicy.h"

struct newjob {
	LIST_ENTRY(newjob)	 entry;		/* in newjobs once picked */
	struct repo_ctx		*ctx;
	char			 name[JB_INSTANCE_MAX];
	char			 branch[JB_BRANCH_MAX];
	char			 base[JB_BRANCH_MAX];
	int			 exists;	/* branch NAME is on the host */
	int			 mount_rw;
	/* on a cluster: the clone through the git bridge (clone_bridge.c) */
	int			 bridged;
	char			 target[64];	/* --target; "" none */
	struct jb_netinfo	 net;
	int			 have_net;
	struct addr_pool	 pool;		/* the bridge's subnet */
	char			 ipv4[16];
	uint32_t		 addr;		/* ipv4, host byte order */
	int			 picked;	/* on newjobs */
	int			 created;	/* delete it on failure */
	int			 started;	/* CREATE said STARTED */
	struct jb_incus_create	*create;	/* until sent */
	struct jb_git_ident	 ident;		/* the owner's; "" unset */
	struct jb_limits	 lim;		/* the config's, or --memory,
						   --cpu */
	char			 failure[JB_ERR_TEXT_MAX];
	/* agents to install and launch: indexes into ctx->conf.agents */
	size_t			 agent[RC_AGENTS_MAX];
	size_t			 nagents;
	/* the image: base.alias, or the agents' packages' (repoconf.h) */
	char			 image[JB_INSTANCE_MAX];
	char			 image_pkgs[JB_PACKAGES_MAX];
	int			 launch;	/* not --no-autostart */
	struct codev		 codev;		/* the checkout's devices */
	int			 codev_on;
	/* secrets: the container's placeholders, conf.secrets' order */
	char			 ph[RC_SECRETS_MAX][RC_PLACEHOLDER_LEN + 1];
	/* the questions asked at once before the address is picked */
	int			 prep;		/* answers still to come */
	int			 no_mountd;	/* GITIDENT not sent */
	char			 net_err[JB_ERR_TEXT_MAX];	/* "" ok */
	char			 list_err[JB_ERR_TEXT_MAX];
	char			 addrs_err[JB_ERR_TEXT_MAX];
	char			 codev_err[JB_ERR_TEXT_MAX];
	uint32_t		*held, *leased;	/* ADDRS, until the pool */
	size_t			 nheld, nleased;
	/* the wait for eth0's address, run beside the dev user's steps */
	int			 netwait;	/* it runs in the container */
	int			 net_next;	/* the other steps wait */
	int			 fail_held;	/* new_fail waits for it */
	struct capture_result	*netres;	/* its result, once in */
	/* /etc/hosts pinned (netpin.h) once the network wait is done */
	int			 pinning;	/* in flight: the steps wait */
	int			 hosts_block;	/* the image's /etc/hosts has one */
	char			 pin_err[JB_ERR_TEXT_MAX];
	/* the checks once it runs (new_created): how many are out */
	int			 checks;
	char			 check_err[JB_ERR_TEXT_MAX];
};

/* the address new picked last: the next pick starts below it */
static uint32_t	last_pick;

static void	new_fail(struct job *, const char *, ...)
		    __attribute__((__format__(printf, 2, 3)));
static void	new_fail_now(struct job *);
static void	new_check_done(struct job *, const char *, ...)
		    __attribute__((__format__(printf, 2, 3)));
static void	new_started(struct job *);
static void	new_prep_done(struct job *, char *, size_t, int, const char *);

/* the jobs between picking an address and Incus holding it */
static LIST_HEAD(, newjob)	newjobs = LIST_HEAD_INITIALIZER(newjobs);

int
new_making(const char *name)
{
	struct newjob	*o;

	LIST_FOREACH(o, &newjobs, entry)
		if (strcmp(o->name, name) == 0)
			return 1;
	return 0;
}

static void
newjob_free(void *arg)
{
	struct newjob	*n = arg;

	if (n->picked) {
		LIST_REMOVE(n, entry);
		/*
		 * on a cluster it may run on another member: this one held
		 * its policy while it was made, and now enforces or forgets
		 * it as Incus says
		 */
		if (env->conf.cluster_member[0] != '\0')
			netfollow_again(n->name);
	}
	if (n->codev_on)
		codev_free(&n->codev);
	repo_ctx_free(n->ctx);
	addr_pool_free(&n->pool);
	free(n->create);
	free(n->held);
	free(n->leased);
	free(n->netres);
	free(n);
}

static void
new_progress(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct newjob		*n = job->state;
	struct jb_ctl_text	 t;

	/* CREATE's checkout device, with the init's pid */
	if (n->codev_on && codev_created_msg(&n->codev, imsg) == 0)
		return;
	if (imsg_get_type(imsg) == IMSG_INCUS_STARTED) {
		if (!n->started)
			new_started(job);
		return;
	}
	if (imsg_get_type(imsg) != IMSG_PROGRESS ||
	    imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("jb-incus: unexpected %s",
		    jb_imsg_name(imsg_get_type(imsg)));
	t.text[sizeof(t.text) - 1] = '\0';
	job_progress(r->arg, "%s", t.text);
}

static void
new_deleted(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct newjob		*n = job->state;
	struct jb_incus_target	 t;

	/* its policy goes with it; the address is free for the next one */
	memset(&t, 0, sizeof(t));
	strlcpy(t.name, n->name, sizeof(t.name));
	(void)req_send(PROC_NETD, IMSG_NETD_FORGET, &t, sizeof(t), -1, NULL,
	    NULL, NULL);
	if (ok)
		job_end(job, 0, "%s; %s was deleted", n->failure, n->name);
	else
		job_end(job, 0, "%s; deleting %s failed too: %s", n->failure,
		    n->name, err);
}

/* end the job, taking the half-made container away first */
static void
new_fail(struct job *job, const char *fmt, ...)
{
	struct newjob		*n = job->state;
	va_list			 ap;

	va_start(ap, fmt);
	(void)vsnprintf(n->failure, sizeof(n->failure), fmt, ap);
	va_end(ap);
	/* the network wait or the pin still runs on this job: it ends it */
	if (n->netwait || n->pinning) {
		n->fail_held = 1;
		return;
	}
	new_fail_now(job);
}

static void
new_fail_now(struct job *job)
{
	struct newjob		*n = job->state;
	struct jb_incus_action	 q;

	if (!n->created) {
		job_end(job, 0, "%s", n->failure);
		return;
	}
	memset(&q, 0, sizeof(q));
	strlcpy(q.name, n->name, sizeof(q.name));
	q.verb = INCUS_DELETE;
	q.force = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_ACTION, &q, sizeof(q), -1, NULL,
	    new_deleted, job) == NULL)
		job_end(job, 0, "%s; %s could not be deleted", n->failure,
		    n->name);
}

static void
new_ready(struct job *job)
{
	struct newjob	*n = job->state;

	job_progress(job, "ready: %s at %s, branch %s%s", n->name, n->ipv4,
	    n->branch, n->mount_rw ? " (your working tree, read-write)" : "");
	/* an SSH session may name this repo by its prefix from now on */
	if (!job->remote)
		registry_add(n->ctx->conf.container_prefix,
		    n->ctx->info.toplevel);
	job_end(job, 1, NULL);
}

/*
 * As root in the container: wait, about 15 s at most, until the image's
 * DHCP client has given eth0 its address and a default route, so that
 * what the user runs next has its network.  Reads only; exits 2 without
 * ip.  ready waits for it, but the lease comes some 90 ms after the
 * start, well before the clone is done, so it looks every 20 ms: each
 * look is one command (sleep) taking a CPU from the clone beside it.
 * The route is read from /proc by the shell, and ip is asked for the
 * address only once the route is there (the client adds the address
 * first).
 */
static const char netwait_script[] =
    "command -v ip >/dev/null || exit 2\n"
    "has_route() {\n"
    "  while read -r ifc dst rest; do\n"
    "    [ \"$ifc\" = eth0 ] && [ \"$dst\" = 00000000 ] && return 0\n"
    "  done < /proc/net/route\n"
    "  return 1\n"
    "}\n"
    "i=0\n"
    "while [ $i -lt 600 ]; do\n"
    "  if has_route; then\n"
    "    case $(ip -4 -o addr show dev eth0 2>/dev/null) in\n"
    "    *\" inet $1/\"*) exit 0 ;;\n"
    "    esac\n"
    "  fi\n"
    "  sleep 0.02\n"
    "  i=$((i + 1))\n"
    "done\n"
    "exit 1\n";


/*
 * An agent or step that fails leaves the container as it is, ready for
 * jbctl shell: new fails, but nothing is taken away.
 */
static void
new_autostarted(struct job *job, int ok, const char *err)
{
	struct newjob	*n = job->state;

	if (!ok) {
		job_end(job, 0, "%s; %s is kept as it is (jbctl shell %s)",
		    err, n->name, n->branch);
		return;
	}
	new_ready(job);
}

/* the agents installed, on_create and on_start, the agents launched */
static void
new_agents(struct job *job)
{
	struct newjob	*n = job->state;

	autostart_run(job, n->name, &n->ctx->conf, n->agent, n->nagents, 1,
	    n->launch, new_autostarted);
}

/* the network wait's result, once the dev user's steps are done too */
static void
new_netjoin(struct job *job)
{
	struct newjob		*n = job->state;
	struct capture_result	*res = n->netres;

	if (!res->ok || res->status != 0)
		job_progress(job, "warning: %s has no address %s and default "
		    "route on eth0 yet%s", n->name, n->ipv4, res->ok &&
		    res->status == 2 ? " (the image has no ip command to "
		    "tell)" : "; its DHCP client may be missing or slow");
	if (n->pin_err[0] != '\0')
		job_progress(job, "warning: /etc/hosts in %s is not pinned yet "
		    "(jb-netd tries again at its next refresh): %s", n->name,
		    n->pin_err);
	new_agents(job);
}

/* the pin is written, or why not: the steps go on either way */
static void
new_pinned(void *arg, int ok, const char *err, size_t lines)
{
	struct job	*job = arg;
	struct newjob	*n = job->state;

	n->pinning = 0;
	if (!ok)
		(void)strlcpy(n->pin_err, err != NULL ? err : "failed",
		    sizeof(n->pin_err));
	else if (lines > 0)
		job_progress(job, "%s: /etc/hosts pins %zu address(es)",
		    n->name, lines);
	if (n->fail_held)
		new_fail_now(job);
	else
		new_netjoin(job);
}

/*
 * The pin jb-netd made before the container existed, written now that
 * the steps and the wait for its address are done, before ready: a
 * destroy right after new finds no write of new's still going in the
 * container.  Not earlier: the image's init writes its own /etc/hosts
 * lines at boot, and a read through Incus's file API while the clone
 * runs made the clone slower by more than the pin costs.  An empty
 * block where the image has none is no write: nothing is read.
 */
static void
new_pin(struct job *job)
{
	struct newjob	*n = job->state;

	n->pinning = 1;
	netpin_refresh(n->name, !n->hosts_block, new_pinned, job);
}

static void
new_netwaited(struct job *job, struct capture_result *res)
{
	struct newjob	*n = job->state;

	n->netwait = 0;
	if ((n->netres = malloc(sizeof(*n->netres))) == NULL)
		fatal("%s", __func__);
	memcpy(n->netres, res, sizeof(*n->netres));
	if (n->fail_held)
		new_fail_now(job);
	else if (n->net_next)
		new_pin(job);
}

/*
 * Once the dev user's step is done: the wait for its address, beside
 * the clone, mounts and ports, which need no network.  -1 when it
 * cannot be asked (the caller fails the job).
 */
static int
new_netwait_start(struct job *job)
{
	struct newjob	*n = job->state;
	const char	*argv[] = { "/bin/sh", "-c", netwait_script,
			    "jailbee-netwait", n->ipv4, NULL };

	if (capture_run_quiet(job, n->name, 0, 0, "/", argv, NULL,
	    new_netwaited) == -1)
		return -1;
	n->netwait = 1;
	return 0;
}

/* the steps before are done: on when the network wait is too */
static void
new_network(struct job *job)
{
	struct newjob	*n = job->state;

	if (n->netres != NULL)
		new_pin(job);
	else
		n->net_next = 1;	/* new_netwaited joins */
}

/*
 * As the dev user: clone the host checkout through the read-only mount
 * (src /mnt/host-source, --shared), or on a cluster from the bundle the
 * git bridge streamed in (src the bundle's file, removed after), put the
 * branch on NAME (existing on the host, or new from BASE), and point
 * origin at the host's upstream (the mount stays the remote when the
 * host has none; a bundle does not: origin is removed then).  The clone
 * checks nothing out: the branch's checkout is the only one.  Checking
 * out the host's HEAD first and then the branch wrote the tree, then
 * refreshed the index over all of it again: a quarter of the clone's
 * time.
 */
static const char clone_script[] =
    "set -e\n"
    "dir=$1 branch=$2 base=$3 url=$4 exists=$5 src=$6\n"
    "if [ \"$src\" = /mnt/host-source ]; then\n"
    "  git clone -q -n --shared /mnt/host-source \"$dir\"\n"
    "else\n"
    "  git clone -q -n \"$src\" \"$dir\"\n"
    "  rm -f \"$src\"\n"
    "fi\n"
    "cd \"$dir\"\n"
    "if [ \"$exists\" = 1 ]; then\n"
    "  git checkout -q -B \"$branch\" \"refs/remotes/origin/$branch\"\n"
    "else\n"
    "  git rev-parse -q --verify \"refs/remotes/origin/$base^{commit}\" "
    ">/dev/null || { echo \"base branch $base is not a branch of the host "
    "checkout\" >&2; exit 3; }\n"
    "  git checkout -q -b \"$branch\" \"refs/remotes/origin/$base\"\n"
    "fi\n"
    "if [ -n \"$url\" ]; then git remote set-url origin \"$url\"\n"
    "elif [ \"$src\" != /mnt/host-source ]; then\n"
    "  git remote remove origin; exit 0\n"
    "fi\n"
    "git config \"branch.$branch.remote\" origin\n"
    "git config \"branch.$branch.merge\" \"refs/heads/$branch\"\n";

static void
new_secrets_done(struct job *job, int ok, const char *err)
{
	if (!ok) {
		new_fail(job, "%s", err);
		return;
	}
	new_network(job);
}

/* secrets: the values to jb-egress, its CA inside */
static void
new_secrets(struct job *job)
{
	struct newjob	*n = job->state;

	if (secrets_inject(job, &n->ctx->conf, n->name, n->ipv4, n->ph,
	    new_secrets_done) == 1)
		new_network(job);
}

/* host_ports, once the mounts are in */
static void
new_ported(struct job *job, int ok, const char *err, void *arg)
{
	if (!ok) {
		new_fail(job, "host_ports: %s", err);
		return;
	}
	new_secrets(job);
}

/*
 * host_mounts, each checked by jb-mountd as it is attached,
 * after the clone: a mount inside the clone's directory would otherwise
 * be in git's way.
 */
static void
new_mounted(struct job *job, int ok, const char *err, void *arg)
{
	struct newjob	*n = job->state;

	if (!ok) {
		new_fail(job, "host_mounts: %s", err);
		return;
	}
	ports_config_attach(job, &n->ctx->conf, n->name, 0, new_ported, NULL);
}

static void
new_mounts(struct job *job)
{
	struct newjob	*n = job->state;

	mounts_host_apply(job, n->ctx, n->name, new_mounted, NULL);
}

static void
new_cloned(struct job *job, struct capture_result *res)
{
	if (!res->ok || res->status != 0) {
		new_fail(job, "cloning the checkout failed: %s",
		    res->ok ? res->err : res->error);
		return;
	}
	new_mounts(job);
}

/* the clone from src: the mount, or the bundle the bridge streamed in */
static void
new_clone_from(struct job *job, const char *src)
{
	struct newjob	*n = job->state;
	char		 dir[PATH_MAX];
	const char	*argv[] = { "/bin/sh", "-c", clone_script, "jailbee-clone",
			    dir, n->branch, n->base,
			    n->ctx->info.upstream_url,
			    n->exists ? "1" : "0", src, NULL };
	static const char *envp[] = { "HOME=/home/dev", "USER=dev", NULL };

	snprintf(dir, sizeof(dir), "/home/dev/%s",
	    n->ctx->conf.container_prefix);
	if (capture_run_quiet(job, n->name, env->owner_uid, env->owner_gid,
	    "/home/dev", argv, envp, new_cloned) == -1)
		new_fail(job, "cannot reach jb-incus");
}

static void
new_bridged(struct job *job, int ok, const char *err)
{
	if (!ok) {
		new_fail(job, "cloning the checkout through the git bridge "
		    "failed: %s", err);
		return;
	}
	new_clone_from(job, CLONE_BUNDLE_PATH);
}

static void
new_clone(struct job *job)
{
	struct newjob	*n = job->state;

	job_progress(job, "cloning %s into /home/dev/%s%s",
	    n->ctx->info.toplevel, n->ctx->conf.container_prefix, n->bridged ?
	    " through the git bridge (cluster: no checkout mount)" : "");
	if (!n->bridged) {
		new_clone_from(job, MNT_HOST_SOURCE);
		return;
	}
	/* the branch when the host has it, else BASE, the clone's start */
	clone_bridge(job, n->name, n->ctx->info.toplevel, n->exists ?
	    n->branch : n->base, new_bridged);
}

/*
 * The image's dev user takes the owner's ids, so shared files keep
 * theirs; /etc/jailbee-dev-ids says it is done (the suite's image starts
 * dockerd, with a socket of dev's group, only then).  The owner's git
 * identity, rendered here from checked values, becomes dev's
 * ~/.gitconfig, 0644: whatever was at that path (a symlink too) is
 * removed first and the file is made anew, never written through.  It
 * exits with DEVUSER_HOSTS_BLOCK when /etc/hosts has the suite's block
 * already (an image published from a container of the suite): the pin
 * must rewrite it.  So a plain exit 0 says everything, and its output is
 * not read.  One command in the container for all of it: a write
 * through Incus's file API beside it would start a file server in the
 * container, which took longer than the command itself.
 */
#define DEVUSER_HOSTS_BLOCK	75	/* the script's "exit 75" */
static const char devuser_script[] =
    "set -e\n"
    "u=$1 g=$2 nl='\n'\n"
    "# dev's line of /etc/group or /etc/passwd takes the owner's ids (or\n"
    "# is added), read and written by the shell itself; a file left as it\n"
    "# was is not written\n"
    "edit() {\n"
    "  f=$1 was= out= found=0 l=\n"
    "  while IFS= read -r l || [ -n \"$l\" ]; do\n"
    "    was=$was$l$nl\n"
    "    case $f:$l in\n"
    "    /etc/group:dev:x:*:*) l=\"dev:x:$g:${l#dev:x:*:}\" ;;\n"
    "    /etc/passwd:dev:x:*:*:*) l=\"dev:x:$u:$g:${l#dev:x:*:*:}\" ;;\n"
    "    esac\n"
    "    case $l in dev:*) found=1 ;; esac\n"
    "    out=$out$l$nl\n"
    "  done < \"$f\"\n"
    "  if [ $found = 0 ] && [ \"$f\" = /etc/group ]; then\n"
    "    out=\"${out}dev:x:$g:$nl\"\n"
    "  elif [ $found = 0 ]; then\n"
    "    out=\"${out}dev:x:$u:$g:dev:/home/dev:/bin/sh$nl\"\n"
    "  fi\n"
    "  [ \"$out\" = \"$was\" ] || printf '%s' \"$out\" > \"$f\"\n"
    "}\n"
    "edit /etc/group\n"
    "edit /etc/passwd\n"
    "[ -d /home/dev ] || mkdir -p /home/dev\n"
    "if [ -n \"$3\" ]; then\n"
    "  rm -f " GITIDENT_PATH "\n"
    "  # noclobber: made anew, or an error if anything is there again\n"
    "  (set -C; umask 022; printf '%s' \"$3\" > " GITIDENT_PATH ")\n"
    "  chown \"$u:$g\" /home/dev " GITIDENT_PATH "\n"
    "else\n"
    "  chown \"$u:$g\" /home/dev\n"
    "fi\n"
    "echo \"$u:$g\" > /etc/jailbee-dev-ids\n"
    "if [ -r /etc/hosts ]; then\n"
    "  while IFS= read -r l || [ -n \"$l\" ]; do\n"
    "    case $l in *\"" HOSTSPIN_BEGIN "\"*) exit 75 ;; esac\n"
    "  done < /etc/hosts\n"
    "fi\n";

/* the clone, or with --mount the working tree */
static void
new_workdir(struct job *job)
{
	struct newjob	*n = job->state;

	if (n->mount_rw) {
		job_progress(job, "--mount: the container works on your "
		    "working tree directly; what it changes, your checkout "
		    "has");
		new_mounts(job);
	} else
		new_clone(job);
}

/* the owner's git identity, as the dev user's ~/.gitconfig says it */
static void
new_ident_said(struct job *job)
{
	struct newjob	*n = job->state;

	if (n->ident.name[0] != '\0' && n->ident.email[0] != '\0')
		job_progress(job, "git identity in " GITIDENT_PATH ": %s <%s>",
		    n->ident.name, n->ident.email);
	else if (n->ident.name[0] != '\0' || n->ident.email[0] != '\0')
		job_progress(job, "git identity in " GITIDENT_PATH ": "
		    "user.%s %s", n->ident.name[0] ? "name" : "email",
		    n->ident.name[0] ? n->ident.name : n->ident.email);
}

static void
new_devuser_done(struct job *job, struct capture_result *res)
{
	struct newjob	*n = job->state;

	if (res->ok && res->status == DEVUSER_HOSTS_BLOCK)
		n->hosts_block = 1;
	else if (!res->ok || res->status != 0) {
		new_check_done(job, "setting up the dev user%s failed: %.900s",
		    n->ident.name[0] || n->ident.email[0] ? " and its git "
		    "identity" : "", res->ok ? res->err : res->error);
		return;
	}
	new_ident_said(job);
	/*
	 * The wait for the address from here, not from the start: the lease
	 * comes some 90 ms after the start, so by now it mostly finds it at
	 * once, where from the start its command ran beside this one
	 */
	new_check_done(job, new_netwait_start(job) == -1 ? "waiting for its "
	    "address: cannot reach jb-incus" : NULL);
}

/* the dev user's ids and git identity, one command as root */
static void
new_devuser(struct job *job)
{
	struct newjob	*n = job->state;
	char		 u[16], g[16], text[GITIDENT_FILE_MAX];
	const char	*argv[] = { "/bin/sh", "-c", devuser_script,
			    "jailbee-devuser", u, g, text, NULL };
	const char	*why;

	snprintf(u, sizeof(u), "%u", (unsigned)env->owner_uid);
	snprintf(g, sizeof(g), "%u", (unsigned)env->owner_gid);
	text[0] = '\0';
	if (n->ident.name[0] != '\0' || n->ident.email[0] != '\0') {
		/* checked by jb-mountd, and here again before they are sent */
		why = n->ident.name[0] != '\0' ?
		    gitident_check(n->ident.name) : NULL;
		if (why == NULL && n->ident.email[0] != '\0')
			why = gitident_check(n->ident.email);
		if (why != NULL || gitident_render(n->ident.name,
		    n->ident.email, text, sizeof(text)) == -1) {
			new_check_done(job, "the git identity for %s: %s",
			    GITIDENT_PATH, why != NULL ? why : "cannot be "
			    "written");
			return;
		}
	}
	if (capture_run_quiet(job, n->name, 0, 0, "/", argv, NULL,
	    new_devuser_done) == -1)
		new_check_done(job, "setting up the dev user: cannot reach "
		    "jb-incus");
}

/*
 * One of the checks run side by side once the container runs is back;
 * the first failure is what the user is told, once all are back
 */
static void
new_check_done(struct job *job, const char *fmt, ...)
{
	struct newjob	*n = job->state;
	va_list		 ap;

	if (fmt != NULL && n->check_err[0] == '\0') {
		va_start(ap, fmt);
		(void)vsnprintf(n->check_err, sizeof(n->check_err), fmt, ap);
		va_end(ap);
	}
	if (--n->checks > 0)
		return;
	if (n->check_err[0] != '\0')
		new_fail(job, "%s", n->check_err);
	else
		new_workdir(job);
}

/* the checkout's mount is what was checked */
static void
new_codev_verified(struct job *job, int ok, const char *err)
{
	new_check_done(job, ok ? NULL : "%s", err);
}

/*
 * A size the kernel does not hold is no limit: the container goes
 * before anything of the user's runs in it
 */
static void
new_disk_checked(struct job *job, int ok, const char *err)
{
	struct newjob	*n = job->state;

	new_check_done(job, ok ? NULL : "%s, so %s is not made", err, n->name);
}

/*
 * The container runs, with only its init (Incus has held its policy
 * since its creation).  Side by side: its root disk's size checked in
 * the kernel, the dev user's ids and git identity, and the rest of
 * CREATE: the init's pid, with which its checkout's mount is checked
 * (none on a cluster).  The clone, and all that is the user's, waits
 * for all of them; the wait for the address starts when the dev user's
 * step is done, and ready waits for it too.
 */
static void
new_started(struct job *job)
{
	struct newjob	*n = job->state;

	n->started = 1;
	n->created = 1;
	/* all are counted before any is asked: one may answer at once */
	n->checks = 3;
	/* the clone waits for the dev user's step: it is asked first */
	new_devuser(job);
	limits_disk_check(job, n->name, new_disk_checked);
}

static void
new_created(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	/* Incus lists the checkout's devices from now on, or never */
	if (n->codev_on)
		codev_created(&n->codev);
	if (!n->started) {
		if (!ok) {
			/* jb-incus leaves nothing when create or start fails */
			new_fail(job, "%s", err);
			return;
		}
		new_started(job);
	}
	if (!ok)
		new_check_done(job, "%s", err);
	else if (n->codev_on)
		codev_verify(job, &n->codev, new_codev_verified);
	else
		new_check_done(job, NULL);
}

/* jb-incus keeps its policy for the creation: now it is made */
static void
new_policy_kept(void *arg, int ok, const char *err)
{
	struct job		*job = arg;
	struct newjob		*n = job->state;
	struct jb_incus_create	*q = n->create;

	if (!ok) {
		new_fail(job, "the network policy of %s cannot be recorded in "
		    "Incus, so it is not created: %s", n->name, err);
		return;
	}
	job_progress(job, "creating %s from %s at %s", n->name, q->image,
	    n->ipv4);
	limits_say(job, n->name, &n->lim);
	if (req_send(PROC_INCUS, IMSG_INCUS_CREATE, q, sizeof(*q), -1,
	    new_progress, new_created, job) == NULL)
		new_fail(job, "cannot reach jb-incus");
	free(n->create);
	n->create = NULL;
}

/*
 * jb-netd enforces it: its record goes to jb-incus, which writes it
 * with the instance, so that Incus holds it from the creation on
 */
static void
new_policy_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	if (!ok) {
		new_fail(job, "the network policy for %s cannot be enforced, "
		    "so it is not created: %s (egress_allow in %s)", n->name,
		    err, n->ctx->conf.paths.repo);
		return;
	}
	policy_record_create(n->name, new_policy_kept, job);
}

/*
 * jb-netd enforces the container's policy before it exists, so that it
 * never runs a moment without one: strict, its egress_allow.
 */
static void
new_policy(struct job *job)
{
	struct newjob		*n = job->state;
	struct repoconf		*conf = &n->ctx->conf;
	struct jb_netd_ctr	*m;
	char			 why[JB_ERR_TEXT_MAX];

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		new_fail(job, "out of memory");
		return;
	}
	strlcpy(m->name, n->name, sizeof(m->name));
	strlcpy(m->ipv4, n->ipv4, sizeof(m->ipv4));
	strlcpy(m->mode, n->create->net, sizeof(m->mode));
	/* loose from the start ends as net loose does: loose_auto_revert */
	if (strcmp(m->mode, "loose") == 0 && conf->loose_auto_revert.enabled
	    != 0)
		m->deadline = (int64_t)time(NULL) +
		    (conf->loose_auto_revert.after > 0 ?
		    conf->loose_auto_revert.after : RC_DEF_LOOSE_AFTER);
	/* and the enabled agents' egress_allow, origin agent:<name> */
	if (net_entries_pack(conf, job_opt(job, "agent"), m, why,
	    sizeof(why)) == -1) {
		free(m);
		new_fail(job, "%s", why);
		return;
	}
	/* jb-netd adds the repo's override layer (net egress add --repo) */
	strlcpy(m->repo, conf->container_prefix, sizeof(m->repo));
	job_progress(job, "network: %s, %u egress_allow entr%s", m->mode,
	    m->nentries, m->nentries == 1 ? "y" : "ies");
	if (req_send(PROC_NETD, IMSG_NETD_SET, m, sizeof(*m), -1, NULL,
	    new_policy_done, job) == NULL)
		new_fail(job, "cannot reach jb-netd");
	free(m);
}

/* the checkout passed as every mount source does, or why not */
static void
new_codev_checked(struct job *job, int ok, const char *err)
{
	struct newjob	*n = job->state;

	new_prep_done(job, n->codev_err, sizeof(n->codev_err), ok, err);
}

/* --net, else defaults.network */
static const char *
new_net_mode(struct job *job, const struct repoconf *conf)
{
	const char	*o = job_opt(job, "net");

	if (o != NULL)
		return strcasecmp(o, "loose") == 0 ? "loose" : "strict";
	return strcmp(conf->network, "loose") == 0 ? "loose" : "strict";
}

/*
 * A loose start the config asks for is what new --net loose asks for:
 * over SSH under restrict_host it needs remote.ssh.network.  0 when it
 * may go on; -1 with the job ended.
 */
static int
new_net_allowed(struct job *job, const struct repoconf *conf)
{
	struct sshp_conf	pc;

	if (!job->remote || job_opt(job, "net") != NULL ||
	    strcmp(new_net_mode(job, conf), "loose") != 0)
		return 0;
	memset(&pc, 0, sizeof(pc));
	sshsnap_policy(job->remote_snap, &pc);
	if (!pc.restrict_host || pc.network_unlocked)
		return 0;
	job_end(job, 0, "defaults.network: loose (the configuration of %s): "
	    "a loose start acts on the host's network, refused over SSH "
	    "(remote.ssh.restrict_host) unless remote.ssh.network grants it; "
	    "new --net strict starts it strict", conf->repo_root);
	return -1;
}

static void
new_create(struct job *job)
{
	struct newjob		*n = job->state;
	struct repoconf		*conf = &n->ctx->conf;
	struct jb_incus_create	*q;
	struct newjob		*o;
	struct in_addr		 a;
	uint32_t		 i;
	size_t			 off = 0, l;
	char			 kv[JB_ENV_MAX], why[JB_ERR_TEXT_MAX];

	/* another new's, which Incus may not know of yet */
	LIST_FOREACH(o, &newjobs, entry)
		addr_pool_held(&n->pool, o->addr);
	/*
	 * addralloc.h: outside DHCP, held by nobody, the next below the
	 * last one picked (a just-freed address keeps its lease a while)
	 */
	if (addr_pool_pick_below(&n->pool, last_pick, n->net.bridge,
	    env->conf_path, &n->addr, why, sizeof(why)) == -1) {
		new_fail(job, "%s", why);
		return;
	}
	last_pick = n->addr;
	LIST_INSERT_HEAD(&newjobs, n, entry);
	n->picked = 1;
	a.s_addr = htonl(n->addr);
	inet_ntop(AF_INET, &a, n->ipv4, sizeof(n->ipv4));

	/* github.token: a secret like the others, or not given at all */
	switch (github_secret_add(conf, why, sizeof(why))) {
	case -1:
		new_fail(job, "%s", why);
		return;
	case 0:
		if (why[0] != '\0')
			job_progress(job, "%s", why);
		break;
	}
	if ((q = calloc(1, sizeof(*q))) == NULL) {
		new_fail(job, "out of memory");
		return;
	}
	strlcpy(q->name, n->name, sizeof(q->name));
	strlcpy(q->image, n->image, sizeof(q->image));
	strlcpy(q->ipv4, n->ipv4, sizeof(q->ipv4));
	q->uid = env->owner_uid;
	q->gid = env->owner_gid;
	if (!n->bridged)
		strlcpy(q->source, n->ctx->info.toplevel, sizeof(q->source));
	q->no_checkout = n->bridged;
	strlcpy(q->target, n->target, sizeof(q->target));
	q->gate_later = n->target[0] != '\0' &&
	    strcmp(n->target, env->conf.cluster_member) != 0;
	/* no --target on a cluster: jb-incus picks the member */
	strlcpy(q->member, env->conf.cluster_member, sizeof(q->member));
	q->mount_rw = n->mount_rw;
	strlcpy(q->repo, n->ctx->info.toplevel, sizeof(q->repo));
	strlcpy(q->prefix, conf->container_prefix, sizeof(q->prefix));
	strlcpy(q->branch, n->branch, sizeof(q->branch));
	strlcpy(q->base, n->base, sizeof(q->base));
	strlcpy(q->pool, conf->storage_pool, sizeof(q->pool));
	/* start runs it again, apply keeps its egress_allow */
	if (job_opt(job, "agent") != NULL)
		strlcpy(q->agent, job_opt(job, "agent"), sizeof(q->agent));
	strlcpy(q->memory, n->lim.memory, sizeof(q->memory));
	strlcpy(q->cpu, n->lim.cpu, sizeof(q->cpu));
	strlcpy(q->processes, n->lim.processes, sizeof(q->processes));
	strlcpy(q->disk, n->lim.disk, sizeof(q->disk));
	strlcpy(q->net, new_net_mode(job, conf), sizeof(q->net));
	for (i = 0; i < conf->env.n; i++) {
		l = (size_t)snprintf(kv, sizeof(kv), "%s=%s",
		    conf->env.v[i].name, conf->env.v[i].value) + 1;
		if (l > sizeof(kv) || l > sizeof(q->env) - off) {
			free(q);
			new_fail(job, "container.env is too large");
			return;
		}
		memcpy(q->env + off, kv, l);
		off += l;
		q->nenv++;
	}
	/*
	 * secrets: the container holds a placeholder of its own under
	 * each secret's name, never the value
	 */
	for (i = 0; i < (uint32_t)conf->nsecrets; i++) {
		rc_secret_placeholder(n->ph[i], sizeof(n->ph[i]));
		l = (size_t)snprintf(kv, sizeof(kv), "%s=%s",
		    conf->secrets[i].name, n->ph[i]) + 1;
		if (l > sizeof(q->env) - off) {
			free(q);
			new_fail(job, "container.env is too large");
			return;
		}
		memcpy(q->env + off, kv, l);
		off += l;
		q->nenv++;
	}
	/* and its TLS clients are pointed at the store holding its CA */
	for (i = 0; conf->nsecrets > 0 && secrets_tls_env[i] != NULL; i++) {
		l = strlen(secrets_tls_env[i]) + 1;
		if (l > sizeof(q->env) - off) {
			free(q);
			new_fail(job, "container.env is too large");
			return;
		}
		memcpy(q->env + off, secrets_tls_env[i], l);
		off += l;
		q->nenv++;
	}
	/* gpg.enabled: ssh through the host's gpg-agent */
	if (conf->gpg_enabled) {
		l = (size_t)snprintf(kv, sizeof(kv), "SSH_AUTH_SOCK=/run/user/"
		    "%u/gnupg/S.gpg-agent.ssh", (unsigned)env->owner_uid) + 1;
		if (l > sizeof(q->env) - off) {
			free(q);
			new_fail(job, "container.env is too large");
			return;
		}
		memcpy(q->env + off, kv, l);
		off += l;
		q->nenv++;
	}
	/* network.proxy_env: the explicit proxy for the tools that read it */
	if (env->conf.proxy_env && egress_proxy_url()[0] != '\0') {
		static const char *const	vars[] = { "HTTP_PROXY",
		    "HTTPS_PROXY", "http_proxy", "https_proxy" };
		size_t				k;

		for (k = 0; k < 6; k++) {
			if (k < 4)
				l = (size_t)snprintf(kv, sizeof(kv), "%s=%s",
				    vars[k], egress_proxy_url()) + 1;
			else
				l = (size_t)snprintf(kv, sizeof(kv), "%s="
				    "localhost,127.0.0.1,::1", k == 4 ?
				    "NO_PROXY" : "no_proxy") + 1;
			if (l > sizeof(q->env) - off) {
				free(q);
				new_fail(job, "container.env is too large");
				return;
			}
			memcpy(q->env + off, kv, l);
			off += l;
			q->nenv++;
		}
	}
	/* the instance keeps where its secrets are declared, and its placeholders */
	if (secrets_state(conf, n->ph, q->secrets, sizeof(q->secrets), kv,
	    sizeof(kv)) == -1) {
		free(q);
		new_fail(job, "%s", kv);
		return;
	}
	n->create = q;
	/* the checkout passed as every mount source does (new_prep) */
	if (n->codev_on)
		(void)strlcpy(q->source, n->codev.realpath, sizeof(q->source));
	new_policy(job);
}

static void
new_named(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct newjob		*n = job->state;
	struct jb_instance	 in;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &in, sizeof(in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	in.name[sizeof(in.name) - 1] = '\0';
	if (strcmp(in.name, n->name) == 0)
		n->exists = -1;		/* the container, not the branch */
}

static int
addr_keep(uint32_t **v, size_t *n, uint32_t a)
{
	uint32_t	*p;

	if ((*n & 63) == 0) {
		if ((p = reallocarray(*v, *n + 64, sizeof(**v))) == NULL)
			return -1;
		*v = p;
	}
	(*v)[(*n)++] = a;
	return 0;
}

/*
 * What every instance holds, and the leases dnsmasq keeps (ADDRS): kept
 * until the bridge's answer makes the pool they go into.
 */
static void
new_addrs(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;
	struct jb_addrs	*b;
	uint32_t	 i;

	if ((b = malloc(sizeof(*b))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_type(imsg) != IMSG_INCUS_ADDRS ||
	    imsg_get_data(imsg, b, sizeof(*b)) == -1 || b->n > JB_ADDRS_MAX ||
	    (b->kind != JB_ADDRS_HELD && b->kind != JB_ADDRS_LEASED))
		fatalx("jb-incus: malformed ADDRS");
	for (i = 0; i < b->n; i++)
		if ((b->kind == JB_ADDRS_HELD ? addr_keep(&n->held, &n->nheld,
		    b->addr[i]) : addr_keep(&n->leased, &n->nleased,
		    b->addr[i])) == -1)
			fatal("%s", __func__);
	free(b);
}

static void
new_netinfo(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	if (imsg_get_type(imsg) != IMSG_INCUS_NETINFO ||
	    imsg_get_data(imsg, &n->net, sizeof(n->net)) == -1)
		fatalx("jb-incus: malformed NETINFO");
	n->net.ipv4[sizeof(n->net.ipv4) - 1] = '\0';
	n->net.bridge[sizeof(n->net.bridge) - 1] = '\0';
	if (n->net.ndhcp > JB_DHCP_RANGES_MAX)
		fatalx("jb-incus: malformed NETINFO");
	n->have_net = 1;
}

/*
 * The bridge must be the subnet jailbeed.yaml names (the key is what a
 * full subnet's error tells the user to change), and its own address
 * and DHCP ranges fence off what the pool may give.
 */
static int
new_pool(struct newjob *n, char *why, size_t len)
{
	struct in_addr	 in;
	uint32_t	 host, net, plen, i;
	char		 w[256];

	if (inet_pton(AF_INET, n->net.ipv4, &in) != 1) {
		(void)snprintf(why, len, "bridge %s: bad address %s",
		    n->net.bridge, n->net.ipv4);
		return -1;
	}
	host = ntohl(in.s_addr);
	if (addr_cidr_parse(env->conf.subnet, 0, ADDR_SUBNET_MIN,
	    ADDR_SUBNET_MAX, &net, &plen, w, sizeof(w)) == -1)
		fatalx("network.subnet %s: %s", env->conf.subnet, w);
	if (plen != n->net.prefixlen || (host & (0xffffffffU << (32 - plen)))
	    != net) {
		(void)snprintf(why, len, "bridge %s is %s/%u, outside "
		    "network.subnet %s in %s: make the bridge from the key "
		    "(regress/incus-up, which make up runs), or set the key "
		    "to the bridge's subnet", n->net.bridge, n->net.ipv4,
		    n->net.prefixlen, env->conf.subnet, env->conf_path);
		return -1;
	}
	if (addr_pool_init(&n->pool, host, plen, w, sizeof(w)) == -1) {
		(void)snprintf(why, len, "bridge %s: %s", n->net.bridge, w);
		return -1;
	}
	for (i = 0; i < n->net.ndhcp; i++)
		addr_pool_dhcp(&n->pool, n->net.dhcp_first[i],
		    n->net.dhcp_last[i]);
	return 0;
}

/*
 * All four answers are in (the owner's git identity, the bridge, the
 * name, the addresses taken): they are judged in the order they were
 * once asked, then the address is picked.
 */
static void
new_prep_end(struct job *job)
{
	struct newjob	*n = job->state;
	size_t		 i;
	char		 why[JB_ERR_TEXT_MAX];

	if (n->no_mountd) {
		new_fail(job, "cannot reach jb-mountd");
		return;
	}
	if (n->codev_err[0] != '\0') {
		new_fail(job, "%s", n->codev_err);
		return;
	}
	if (n->net_err[0] != '\0' || !n->have_net) {
		new_fail(job, "the suite's bridge: %s", n->net_err[0] != '\0' ?
		    n->net_err : "no address");
		return;
	}
	if (new_pool(n, why, sizeof(why)) == -1) {
		new_fail(job, "%s", why);
		return;
	}
	if (n->list_err[0] != '\0') {
		new_fail(job, "listing containers: %s", n->list_err);
		return;
	}
	if (n->exists == -1) {
		new_fail(job, "%s already exists: use it (jbctl shell %s), or "
		    "destroy it first", n->name, job->args[0]);
		return;
	}
	n->exists = n->ctx->info.branch_sha[0] != '\0';
	if (n->addrs_err[0] != '\0') {
		new_fail(job, "the addresses taken on the bridge: %s",
		    n->addrs_err);
		return;
	}
	for (i = 0; i < n->nheld; i++)
		addr_pool_held(&n->pool, n->held[i]);
	for (i = 0; i < n->nleased; i++)
		addr_pool_leased(&n->pool, n->leased[i]);
	new_create(job);
}

static void
new_prep_done(struct job *job, char *slot, size_t len, int ok,
    const char *err)
{
	struct newjob	*n = job->state;

	if (!ok && slot != NULL)
		(void)strlcpy(slot, err != NULL && *err != '\0' ? err :
		    "failed", len);
	if (--n->prep == 0)
		new_prep_end(job);
}

static void
new_netinfo_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	new_prep_done(job, n->net_err, sizeof(n->net_err), ok, err);
}

static void
new_listed(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	/* jb-incus's answer for a name Incus does not have (LIST of one) */
	if (!ok && jb_err_absent(err, n->name))
		ok = 1;
	new_prep_done(job, n->list_err, sizeof(n->list_err), ok, err);
}

static void
new_addrs_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	new_prep_done(job, n->addrs_err, sizeof(n->addrs_err), ok, err);
}

static void
new_ident(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_GITIDENT_INFO ||
	    imsg_get_data(imsg, &n->ident, sizeof(n->ident)) == -1)
		fatalx("jb-mountd: malformed GITIDENT_INFO");
	n->ident.name[sizeof(n->ident.name) - 1] = '\0';
	n->ident.email[sizeof(n->ident.email) - 1] = '\0';
	n->ident.note[sizeof(n->ident.note) - 1] = '\0';
}

/* what the owner's git config lacks is said here, once, and new goes on */
static void
new_ident_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct newjob	*n = job->state;

	if (!ok) {
		memset(&n->ident, 0, sizeof(n->ident));
		job_progress(job, "git: your identity could not be read (%s); "
		    "set user.name and user.email in the container", err);
	} else if (n->ident.note[0] != '\0')
		job_progress(job, "%s", n->ident.note);
	new_prep_done(job, NULL, 0, 1, NULL);
}

/*
 * Before the address is picked, four questions at once, none waiting
 * on another: the owner's git identity (jb-mountd); the bridge
 * (NETINFO), whether the name is taken (a LIST of the one name, one GET
 * however many containers there are) and what holds addresses (ADDRS)
 * from jb-incus.
 */
static void
new_prep(struct job *job)
{
	struct newjob		*n = job->state;
	struct jb_git_ask	 q;
	struct jb_incus_target	 t;

	n->prep = 1;		/* until every question is out */
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.xdg_config, job->cmd.xdg_config, sizeof(q.xdg_config));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_GITIDENT, &q, sizeof(q), -1,
	    new_ident, new_ident_done, job) != NULL)
		n->prep++;
	else
		n->no_mountd = 1;
	if (req_send(PROC_INCUS, IMSG_INCUS_NETINFO, NULL, 0, -1,
	    new_netinfo, new_netinfo_done, job) != NULL)
		n->prep++;
	else
		(void)strlcpy(n->net_err, "cannot reach jb-incus",
		    sizeof(n->net_err));
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, n->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    new_named, new_listed, job) != NULL)
		n->prep++;
	else
		(void)strlcpy(n->list_err, "cannot reach jb-incus",
		    sizeof(n->list_err));
	if (req_send(PROC_INCUS, IMSG_INCUS_ADDRS, NULL, 0, -1, new_addrs,
	    new_addrs_done, job) != NULL)
		n->prep++;
	else
		(void)strlcpy(n->addrs_err, "cannot reach jb-incus",
		    sizeof(n->addrs_err));
	/* the checkout, checked as every mount source; none on a cluster */
	if (!n->bridged) {
		n->codev_on = 1;
		n->prep++;
		codev_check(job, &n->codev, n->name,
		    n->ctx->conf.container_prefix, n->ctx->info.toplevel,
		    n->mount_rw, new_codev_checked);
	}
	new_prep_done(job, NULL, 0, 1, NULL);
}

/* the image must be there before anything is made: else jbctl builds it */
static void
new_image_checked(struct job *job, const struct jb_base_spec *spec)
{
	struct newjob	*n = job->state;

	if (spec->exists) {
		new_prep(job);
		return;
	}
	(void)base_spec_send(job, spec);
	if (strcmp(spec->alias, n->ctx->conf.base_alias) != 0 &&
	    n->nagents > 0)
		new_fail(job, "base image %s is missing: `jbctl base build "
		    "--agent %s` in %s makes it", spec->alias,
		    n->ctx->conf.agents.v[n->agent[0]].name,
		    n->ctx->info.toplevel);
	else
		new_fail(job, "base image %s is missing: `jbctl base build` "
		    "in %s makes it", spec->alias, n->ctx->info.toplevel);
}

static void
new_image_ask(struct job *job)
{
	struct newjob	*n = job->state;

	base_spec_ask(job, &n->ctx->conf, n->image, n->image_pkgs,
	    new_image_checked);
}

/* BASE, when given, must be a branch of the host checkout */
static void
new_base_checked(struct job *job, struct repo_ctx *ctx)
{
	struct newjob	*n = job->state;
	int		 found = ctx->info.branch_sha[0] != '\0';

	repo_ctx_free(ctx);
	if (!found) {
		new_fail(job, "base branch %s does not exist in %s", n->base,
		    n->ctx->info.toplevel);
		return;
	}
	new_image_ask(job);
}

/*
 * --agent AGENT and every enabled agent, checked before anything is
 * made: an agent that cannot run is refused with its key.
 */
static int
new_pick_agents(struct job *job, struct newjob *n)
{
	const struct repoconf	*conf = &n->ctx->conf;
	const struct rc_agent	*a;
	const char		*opt = job_opt(job, "agent");
	char			 err[JB_ERR_TEXT_MAX];
	size_t			 i;

	n->launch = job_opt(job, "no-autostart") == NULL;
	if (opt != NULL && (a = repoconf_agent(conf, opt)) == NULL) {
		job_end(job, 0, "--agent %s: no such agent: neither a built-in "
		    "preset (claude, codex, gemini, aider, opencode) nor "
		    "agents.%s in %s", opt, opt, conf->paths.repo);
		return -1;
	}
	for (i = 0; i < conf->agents.n; i++) {
		a = &conf->agents.v[i];
		if (a->enabled != 1 && (opt == NULL ||
		    strcmp(opt, a->name) != 0))
			continue;
		if (repoconf_agent_runnable(a, err, sizeof(err)) == -1) {
			job_end(job, 0, "--agent %s: %s", a->name, err);
			return -1;
		}
		n->agent[n->nagents++] = i;
	}
	switch (repoconf_agent_image(conf, n->agent, n->nagents, n->image,
	    sizeof(n->image), n->image_pkgs, sizeof(n->image_pkgs))) {
	case -1:
		job_end(job, 0, "the agents' packages with base.packages are "
		    "longer than %zu bytes", sizeof(n->image_pkgs) - 1);
		return -1;
	case 1:
		job_progress(job, "image %s: base.packages and the agents' "
		    "packages: %s", n->image, n->image_pkgs);
		break;
	}
	return 0;
}

static void	new_repo_go(struct job *);

/*
 * --target, and on a cluster the host paths new would attach: each is
 * this member's, so the container must be pinned here (--target this
 * member) to get one; refused before anything is made.  Without --mount
 * the clone comes through the git bridge.  0 when it may go on; -1 with
 * the job ended.
 */
static int
new_cluster(struct job *job, struct newjob *n)
{
	const struct repoconf	*conf = &n->ctx->conf;
	const char		*member = env->conf.cluster_member;
	const char		*t = job_opt(job, "target");
	char			 what[PATH_MAX + 32], why[JB_ERR_TEXT_MAX];

	if (t != NULL && member[0] == '\0') {
		job_end(job, 0, "--target %s: this suite is not on a cluster "
		    "(no cluster.member in %s), so there is no member to place "
		    "%s on; leave --target out", t, env->conf_path, n->name);
		return -1;
	}
	if (t != NULL && strlcpy(n->target, t, sizeof(n->target)) >=
	    sizeof(n->target)) {
		job_end(job, 0, "--target %.80s: not an Incus cluster member "
		    "name", t);
		return -1;
	}
	if (member[0] == '\0')
		return 0;
	n->bridged = !n->mount_rw;
	what[0] = '\0';
	if (n->mount_rw)
		(void)snprintf(what, sizeof(what), "--mount (your working tree "
		    "%s)", n->ctx->info.toplevel);
	else if (conf->host_mounts.n > 0)
		(void)snprintf(what, sizeof(what), "host_mounts %.1000s (in %.1000s)",
		    conf->host_mounts.v[0].host, conf->paths.repo);
	else if (conf->gpg_enabled)
		(void)snprintf(what, sizeof(what), "gpg.enabled (the host's "
		    "gpg-agent socket)");
	else if (conf->ssh_enabled)
		(void)snprintf(what, sizeof(what), "ssh.enabled (the host's "
		    "~/.ssh)");
	if (what[0] != '\0' && cluster_pin_check(member, n->target, NULL,
	    what, n->name, why, sizeof(why)) == -1) {
		job_end(job, 0, "%s", why);
		return -1;
	}
	return 0;
}

static void
new_repo(struct job *job, struct repo_ctx *ctx)
{
	struct newjob	*n;
	char		 err[JB_ERR_TEXT_MAX];

	if ((n = calloc(1, sizeof(*n))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	n->ctx = ctx;
	job->state = n;
	job->free_state = newjob_free;
	n->mount_rw = job_opt(job, "mount") != NULL;
	if (strlcpy(n->branch, job->args[0], sizeof(n->branch)) >=
	    sizeof(n->branch) || repo_container_name(ctx, job->args[0],
	    n->name, sizeof(n->name)) == -1) {
		job_end(job, 0, "%s: not usable as a branch and container "
		    "name", job->args[0]);
		return;
	}
	audit_target(job, n->name, ctx);
	if (new_cluster(job, n) == -1)
		return;
	if (new_pick_agents(job, n) == -1)
		return;
	if (new_net_allowed(job, &ctx->conf) == -1)
		return;
	/* bad limits are refused before anything is made */
	if (limits_pack(&ctx->conf, job_opt(job, "memory"), job_opt(job,
	    "cpu"), &n->lim, err, sizeof(err)) == -1) {
		job_end(job, 0, "%s", err);
		return;
	}
	/* autostart and agents no wider than the default branch's */
	escalation_gate(job, ctx, job_opt(job, "agent"), new_repo_go);
}

static void
new_repo_go(struct job *job)
{
	struct newjob	*n = job->state;
	struct repo_ctx	*ctx = n->ctx;

	strlcpy(n->base, job->nargs > 1 ? job->args[1] :
	    ctx->info.default_branch, sizeof(n->base));
	job_progress(job, "%s: %s, branch %s %s %s", n->name,
	    ctx->info.toplevel, n->branch, ctx->info.branch_sha[0] ?
	    "exists on the host" : "is new, from", ctx->info.branch_sha[0] ?
	    "" : n->base);
	if (job->nargs > 1 && ctx->info.branch_sha[0] == '\0')
		repo_resolve(job, n->base, 1, new_base_checked);
	else
		new_image_ask(job);
}

void
cmd_new(struct job *job)
{
	repo_resolve(job, job->args[0], 1, new_repo);
}
