/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sshpolicy.h"

/*
 * Every command the suite has, for restrict_host.  A switch with no
 * default: a new command that is not sorted here does not compile
 * (-Wswitch), and regress/unit/t_sshpolicy.c checks the table against it.
 */
enum sshp_host
sshpolicy_host(enum cmd_id id)
{
	switch (id) {
	case CMD_STATUS:
	case CMD_VERSION:
	case CMD_HELP:
	case CMD_NEW:
	case CMD_LS:
	case CMD_START:
	case CMD_STOP:
	case CMD_RESTART:
	case CMD_DESTROY:
	case CMD_EXEC:
	case CMD_SHELL:
	case CMD_TMUX:
	case CMD_SNAP_CREATE:
	case CMD_SNAP_RESTORE:
	case CMD_SNAP_LS:
	case CMD_SNAP_DELETE:
	case CMD_CONFIG_SHOW:
	case CMD_CONFIG_VALIDATE:
	/* detaching and listing only narrow or read a container */
	case CMD_UNMOUNT:
	case CMD_MOUNT_LS:
	case CMD_INFO:
	case CMD_BASE_USAGE:
	/* strict only narrows a container; status reads it */
	case CMD_NET_STRICT:
	case CMD_NET_STATUS:
	/* container-scope rm only narrows; ls and export read */
	case CMD_NET_EGRESS_RM:
	case CMD_NET_EGRESS_LS:
	case CMD_NET_EGRESS_EXPORT:
	/*
	 * the git bridge moves refs only over SSH: fetch into
	 * refs/jailbee/, pull --into a branch not checked out (jb-gitd
	 * writes the registered checkout's .git; pull without --into is
	 * refused after parsing, below)
	 */
	case CMD_GIT_FETCH:
	case CMD_GIT_PULL:
	/*
	 * a container service on the host's loopback, as the local owner
	 * would have it; listing and removing read or narrow
	 */
	case CMD_PORT_TO_HOST:
	case CMD_PORT_LS:
	case CMD_PORT_RM:
	/* reads only; refused while repos are excluded (below) */
	case CMD_DOCTOR:
	/* read what a container was refused */
	case CMD_NET_LOG:
	case CMD_NET_SUGGEST:
		return SSHP_HOST_ALLOWED;
	/* setting up the host is the local owner's business */
	case CMD_INIT:
	case CMD_CONFIG_INIT:
	case CMD_REMOTE_SSH_KEY_ADD:
	case CMD_REMOTE_SSH_KEY_RM:
	case CMD_REMOTE_SSH_KEY_LS:
	case CMD_REMOTE_SSH_STATUS:
	/* secrets are the host's: where their files are is too */
	case CMD_SECRET_LS:
	case CMD_AUDIT:
	case CMD_APPLY:
	case CMD_BASE_BUILD:
	case CMD_BASE_IMPORT:
	case CMD_BASE_PRUNE:
	/*
	 * loose can open the host's own and its LAN's addresses to the
	 * container; remote.ssh.network unlocks it (network_unlocked)
	 */
	case CMD_NET_LOOSE:
	/*
	 * an override can open the host or its LAN, as loose can;
	 * remote.ssh.network unlocks the container scope, never --repo
	 */
	case CMD_NET_EGRESS_ADD:
	/*
	 * the security page names net refresh among the host's own
	 * commands: it admits addresses nobody in the container asked for
	 *
	 */
	case CMD_NET_REFRESH:
	/*
	 * R20: mount is host-only unless remote.ssh.mount_roots or
	 * remote.ssh.mounts unlocks it (sshp_conf.mount_unlocked); then
	 * jailbeed's cmd_mount decides each mount
	 */
	case CMD_MOUNT:
	/*
	 * what checks out or reads through the host's tree, or writes the
	 * container from the host, stays with jbctl where the owner sits
	 * (refused first, below, with what to do); the transport neither
	 */
	case CMD_GIT_CONNECT:
	case CMD_GIT_PUSH:
	case CMD_GIT_DIFF:
	case CMD_GIT_LOG:
	case CMD_GIT_CHECKOUT:
	/* the seed names it: a host service opened to the container */
	case CMD_PORT_TO_CONTAINER:
	/* the host's own configuration: never over SSH (below) */
	case CMD_RELOAD:
	/* the host's checkouts and their paths: never over SSH (below) */
	case CMD_REPO_LS:
	case CMD_REPO_RM:
	/* jbctl draws it on the owner's terminal, from the host's checkout */
	case CMD_DASHBOARD:
		return SSHP_HOST_REFUSED;
	case CMD_TEST_ATTEMPT:
	case CMD_NONE:
		break;
	}
	return SSHP_HOST_UNKNOWN;
}

static int	refuse(struct sshp_result *, const char *, const char *, ...)
		    __attribute__((__format__(printf, 3, 4)));

/* reason: a fixed word for the journal; fmt: the sentence for the user */
static int
refuse(struct sshp_result *r, const char *reason, const char *fmt, ...)
{
	va_list	ap;

	r->reason = reason;
	va_start(ap, fmt);
	(void)vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* is option lname of c given in out? */
static int
opt_set(const struct cmd *c, const struct jb_ctl_cmd *out, const char *lname)
{
	int	k;

	for (k = 0; k < CMD_MAXOPTS && c->opts[k].lname != NULL; k++)
		if (strcmp(c->opts[k].lname, lname) == 0)
			return (out->optset & (1U << k)) != 0;
	return 0;
}

/* does a parsed new ask for --net loose? */
static int
net_loose(const struct cmd *c, const struct jb_ctl_cmd *out)
{
	int	k;

	for (k = 0; k < CMD_MAXOPTS && c->opts[k].lname != NULL; k++)
		if (strcmp(c->opts[k].lname, "net") == 0)
			return (out->optset & (1U << k)) &&
			    strcasecmp(out->opts[k], "loose") == 0;
	return 0;
}


static int
allowed(const struct sshp_conf *pc, const char *leaf, int group)
{
	size_t	n = strlen(leaf);
	int	i;

	for (i = 0; i < pc->nallow; i++) {
		if (strcmp(pc->allow[i], leaf) == 0)
			return 1;
		/* a group's --help once a leaf under it is allowed */
		if (group && strncmp(pc->allow[i], leaf, n) == 0 &&
		    pc->allow[i][n] == ' ')
			return 1;
	}
	return 0;
}

/* the words name a group when some leaf starts with all of them */
static int
is_group(int argc, char *argv[], int *nw)
{
	int	i, w, best = 0;

	for (i = 0; i < cmdtab_len; i++) {
		for (w = 0; w < CMD_MAXWORDS && cmdtab[i].words[w] != NULL &&
		    w < argc && strcmp(cmdtab[i].words[w], argv[w]) == 0; w++)
			;
		if (w > best && w < CMD_MAXWORDS && cmdtab[i].words[w] != NULL)
			best = w;
	}
	*nw = best;
	return best > 0;
}

static int
set_opt(const struct cmd *c, int k, const char *val, struct jb_ctl_cmd *out,
    struct sshp_result *r)
{
	const struct cmd_opt	*o = &c->opts[k];

	if (o->is_path)
		return refuse(r, "path option", "option --%s names a host "
		    "path: refused over SSH", o->lname);
	if (c->id == CMD_NEW && strcmp(o->lname, "mount") == 0)
		return refuse(r, "path option", "new --mount is refused over "
		    "SSH: a remote session gets clones, never the host "
		    "working tree");
	if (o->choices != NULL && !cmd_choice_ok(o->choices, val))
		return refuse(r, "usage", "option --%s: not one of %s",
		    o->lname, o->choices);
	if (strlcpy(out->opts[k], val, sizeof(out->opts[k])) >=
	    sizeof(out->opts[k]))
		return refuse(r, "usage", "option --%s: value too long",
		    o->lname);
	out->optset |= 1U << k;
	return 0;
}

static int
parse(const struct cmd *c, int argc, char *argv[], struct jb_ctl_cmd *out,
    struct sshp_result *r)
{
	const char	*a, *eq;
	size_t		 n, off = 0, l;
	int		 i, j, k, dashdash = 0;

	for (i = 0; i < argc; i++) {
		a = argv[i];
		if (dashdash || a[0] != '-' || a[1] == '\0') {
			if (out->nargs < 32 &&
			    (c->path_args & (1U << out->nargs)) != 0)
				return refuse(r, "path argument", "%s: "
				    "argument %u names a host path: refused "
				    "over SSH", r->leaf, out->nargs + 1);
			l = strlen(a) + 1;
			if (l > sizeof(out->argv) - off)
				return refuse(r, "usage", "the command line "
				    "is too long");
			memcpy(out->argv + off, a, l);
			off += l;
			out->nargs++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			r->help = 1;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			n = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			for (k = 0; k < CMD_MAXOPTS && c->opts[k].lname != NULL;
			    k++)
				if (strlen(c->opts[k].lname) == n &&
				    strncmp(c->opts[k].lname, a + 2, n) == 0)
					break;
			if (k == CMD_MAXOPTS || c->opts[k].lname == NULL)
				return refuse(r, "usage", "%s: unknown "
				    "option %s", r->leaf, a);
			if (c->opts[k].argname == NULL) {
				if (eq != NULL)
					return refuse(r, "usage", "option --%s "
					    "takes no value", c->opts[k].lname);
				if (set_opt(c, k, "", out, r) == -1)
					return -1;
			} else if (eq != NULL) {
				if (set_opt(c, k, eq + 1, out, r) == -1)
					return -1;
			} else {
				if (i + 1 >= argc)
					return refuse(r, "usage", "option --%s "
					    "needs a value", c->opts[k].lname);
				if (set_opt(c, k, argv[++i], out, r) == -1)
					return -1;
			}
			continue;
		}
		/* -abc: flags; a value-taking letter takes the rest or next */
		for (j = 1; a[j] != '\0'; j++) {
			for (k = 0; k < CMD_MAXOPTS && c->opts[k].lname != NULL;
			    k++)
				if (c->opts[k].sname != 0 &&
				    c->opts[k].sname == a[j])
					break;
			if (a[j] == 'h') {
				r->help = 1;
				continue;
			}
			if (k == CMD_MAXOPTS || c->opts[k].lname == NULL) {
				char	opt[3] = { '-', a[j], '\0' };

				return refuse(r, "usage", "%s: unknown "
				    "option %s", r->leaf, opt);
			}
			if (c->opts[k].argname == NULL) {
				if (set_opt(c, k, "", out, r) == -1)
					return -1;
				continue;
			}
			if (a[j + 1] != '\0') {
				if (set_opt(c, k, a + j + 1, out, r) == -1)
					return -1;
			} else {
				if (i + 1 >= argc)
					return refuse(r, "usage", "option --%s "
					    "needs a value", c->opts[k].lname);
				if (set_opt(c, k, argv[++i], out, r) == -1)
					return -1;
			}
			break;
		}
	}
	if (!r->help && ((int)out->nargs < c->min_args ||
	    (int)out->nargs > c->max_args))
		return refuse(r, "usage", "%s: wrong number of arguments; "
		    "usage: %s", r->leaf, c->args);
	return 0;
}

/*
 * What is judged of the leaf alone, before its words: the routes never
 * served over SSH, the allowlist and restrict_host.  -1: refused, r says
 * why.
 */
static int
leaf_refused(const struct sshp_conf *pc, const struct cmd *c,
    struct sshp_result *r)
{
	/*
	 * base build runs mmdebstrap where jbctl runs, git connect is the
	 * transport of host git where jbctl runs, reload changes the
	 * host's own configuration: never over SSH
	 */
	if (c->id == CMD_GIT_CHECKOUT)
		return refuse(r, "git refs only", "git checkout: refused over "
		    "SSH: it would check out a branch in the host's tree (the "
		    "git bridge updates refs only); use git fetch NAME, or "
		    "git pull NAME --into BRANCH, and check it out on the "
		    "host");
	if (c->id == CMD_GIT_PUSH || c->id == CMD_GIT_DIFF ||
	    c->id == CMD_GIT_LOG)
		return refuse(r, "git refs only", "%s: not available over SSH "
		    "(the git bridge over SSH is git fetch and git pull "
		    "--into); run it with jbctl on the host", r->leaf);
	if (c->cls == CMD_UNCLASSIFIED || c->cls == CMD_INTERNAL ||
	    ((c->flags & CMD_LOCAL) && c->id != CMD_GIT_FETCH &&
	    c->id != CMD_GIT_PULL) || c->id == CMD_BASE_BUILD ||
	    c->id == CMD_GIT_CONNECT || c->id == CMD_RELOAD ||
	    c->id == CMD_REPO_LS || c->id == CMD_REPO_RM)
		return refuse(r, "not remote", "%s: not available over SSH",
		    r->leaf);
	if (pc->mode == SSHP_ALLOWLIST && !allowed(pc, r->leaf, 0))
		return refuse(r, "allowlist", "%s: not in this server's "
		    "allowlist (remote.ssh.commands.allow)", r->leaf);
	switch (sshpolicy_host(c->id)) {
	case SSHP_HOST_ALLOWED:
		break;
	case SSHP_HOST_REFUSED:
		if (!pc->restrict_host ||
		    (c->id == CMD_MOUNT && pc->mount_unlocked) ||
		    ((c->id == CMD_NET_LOOSE || c->id == CMD_NET_EGRESS_ADD) &&
		    pc->network_unlocked))
			break;
		if (c->id == CMD_MOUNT)
			return refuse(r, "restrict_host", "mount: refused over "
			    "SSH unless remote.ssh.mounts or "
			    "remote.ssh.mount_roots grants it");
		if (c->id == CMD_NET_LOOSE || c->id == CMD_NET_EGRESS_ADD)
			return refuse(r, "restrict_host", "%s: can open the "
			    "host's network to the container, refused over SSH "
			    "(remote.ssh.restrict_host) unless remote.ssh.network "
			    "grants it", r->leaf);
		return refuse(r, "restrict_host", "%s: acts on the "
		    "host, refused over SSH (remote.ssh.restrict_host)",
		    r->leaf);
	case SSHP_HOST_UNKNOWN:
		return refuse(r, "unclassified", "%s: not classified for "
		    "remote use; refused", r->leaf);
	}
	return 0;
}

int
sshpolicy_admits(const struct sshp_conf *pc, enum cmd_id id)
{
	struct sshp_result	 r;
	const struct cmd	*c;

	memset(&r, 0, sizeof(r));
	if (pc->mode == SSHP_DISABLED || (c = cmd_find(id)) == NULL)
		return 0;
	cmd_name(c, r.leaf, sizeof(r.leaf));
	r.cmd = c;
	return leaf_refused(pc, c, &r) == 0;
}

int
sshpolicy_decide(const struct sshp_conf *pc, int argc, char *argv[],
    struct jb_ctl_cmd *out, struct sshp_result *r)
{
	const struct cmd	*c;
	int			 nw, i;

	memset(out, 0, sizeof(*out));
	memset(r, 0, sizeof(*r));
	if (pc->mode == SSHP_DISABLED)
		return refuse(r, "disabled", "commands are disabled on this "
		    "server (remote.ssh.commands.mode: disabled)");
	if (argc < 1)
		return refuse(r, "usage", "no command given");
	if ((c = cmd_lookup(argc, argv, &nw)) == NULL) {
		/* "snapshot --help": the group's usage, nothing else */
		if (is_group(argc, argv, &nw) && argc == nw + 1 &&
		    (strcmp(argv[nw], "--help") == 0 ||
		    strcmp(argv[nw], "-h") == 0)) {
			for (i = 0; i < nw; i++) {
				if (i > 0)
					strlcat(r->leaf, " ", sizeof(r->leaf));
				strlcat(r->leaf, argv[i], sizeof(r->leaf));
			}
			if (pc->mode == SSHP_ALLOWLIST &&
			    !allowed(pc, r->leaf, 1))
				return refuse(r, "allowlist", "%s: not in "
				    "this server's allowlist "
				    "(remote.ssh.commands.allow)", r->leaf);
			r->help = 1;
			return 0;
		}
		return refuse(r, "unknown command", "unknown command "
		    "\"%.64s\"; run help", argv[0]);
	}
	cmd_name(c, r->leaf, sizeof(r->leaf));
	r->cmd = c;
	if (leaf_refused(pc, c, r) == -1)
		return -1;
	out->id = c->id;
	if (parse(c, argc - nw, argv + nw, out, r) == -1)
		return -1;
	/* pull moves the checked-out branch and its tree; --into does not */
	if (c->id == CMD_GIT_PULL && !opt_set(c, out, "into"))
		return refuse(r, "git refs only", "git pull: refused over SSH "
		    "without --into: it would move the host's checked-out "
		    "branch and its tree (the git bridge updates refs only); "
		    "use git pull NAME --into BRANCH, or git fetch NAME");
	/* with exclusions, nothing that shows every repo's settings */
	if (pc->excluded && pc->restrict_host && c->id == CMD_CONFIG_SHOW &&
	    (out->optset & 1U) && strcmp(out->opts[0], "global") == 0)
		return refuse(r, "excluded_repos", "config show --layer "
		    "global: refused over SSH while repos are excluded "
		    "(remote.ssh.excluded_repos)");
	/*
	 * new --memory, --cpu: the host's memory and CPUs are its owner's
	 * to share out (defaults.memory, defaults.cpu); a remote client gets
	 * the config's limits
	 */
	if (pc->restrict_host && c->id == CMD_NEW && (opt_set(c, out,
	    "memory") || opt_set(c, out, "cpu")))
		return refuse(r, "restrict_host", "new --memory, --cpu: the "
		    "host's memory and CPUs are its owner's to share out, "
		    "refused over SSH (remote.ssh.restrict_host); the config's "
		    "defaults.memory and defaults.cpu apply");
	/* new --net loose, in any spelling, as net loose itself */
	if (pc->restrict_host && !pc->network_unlocked && c->id == CMD_NEW &&
	    net_loose(c, out))
		return refuse(r, "restrict_host", "new --net loose: acts on "
		    "the host's network, refused over SSH "
		    "(remote.ssh.restrict_host) unless remote.ssh.network "
		    "grants it");
	/*
	 * R23: --repo changes every container of a repo on the host: never
	 * over SSH, whatever restrict_host, the allowlist or --help say
	 */
	if ((c->id == CMD_NET_EGRESS_ADD || c->id == CMD_NET_EGRESS_RM) &&
	    opt_set(c, out, "repo"))
		return refuse(r, "repo scope", "net egress %s --repo: "
		    "changes every container of the repo on the host, refused "
		    "over SSH; run it on the host",
		    c->id == CMD_NET_EGRESS_ADD ? "add" : "rm");
	/*
	 * a to-host forward off the host's loopback opens the container to
	 * the host's network: the local owner's decision
	 */
	if (pc->restrict_host && c->id == CMD_PORT_TO_HOST &&
	    opt_set(c, out, "host-address"))
		return refuse(r, "restrict_host", "port to-host --host-address: "
		    "refused over SSH (remote.ssh.restrict_host); the forward "
		    "listens on the host's 127.0.0.1 without it");
	/* the seed: doctor is refused over SSH while exclusions are active */
	if (pc->excluded && c->id == CMD_DOCTOR)
		return refuse(r, "excluded_repos", "doctor: refused over SSH "
		    "while repos are excluded (remote.ssh.excluded_repos)");
	/* base usage names every container made from an image: not scoped */
	if (pc->excluded && pc->restrict_host && c->id == CMD_BASE_USAGE)
		return refuse(r, "excluded_repos", "base usage: refused over "
		    "SSH while repos are excluded (remote.ssh.excluded_repos)");
	strlcpy(out->cwd, "/", sizeof(out->cwd));
	return 0;
}

static void
usage_one(const struct cmd *c, char *buf, size_t len)
{
	char	name[48], line[512];
	int	k;

	snprintf(line, sizeof(line), "usage: %s%s%s\n  %s\n",
	    cmd_name(c, name, sizeof(name)), c->args[0] ? " " : "", c->args,
	    c->help);
	strlcat(buf, line, len);
	for (k = 0; k < CMD_MAXOPTS && c->opts[k].lname != NULL; k++) {
		if (c->opts[k].sname)
			snprintf(line, sizeof(line), "  -%c, --%s%s%s  %s\n",
			    c->opts[k].sname, c->opts[k].lname,
			    c->opts[k].argname ? " " : "",
			    c->opts[k].argname ? c->opts[k].argname : "",
			    c->opts[k].help);
		else
			snprintf(line, sizeof(line), "  --%s%s%s  %s\n",
			    c->opts[k].lname, c->opts[k].argname ? " " : "",
			    c->opts[k].argname ? c->opts[k].argname : "",
			    c->opts[k].help);
		strlcat(buf, line, len);
	}
}

void
sshpolicy_usage(const struct sshp_result *r, char *buf, size_t len)
{
	char	name[48];
	size_t	n = strlen(r->leaf);
	int	i;

	buf[0] = '\0';
	if (r->cmd != NULL) {
		usage_one(r->cmd, buf, len);
		return;
	}
	for (i = 0; i < cmdtab_len; i++) {
		cmd_name(&cmdtab[i], name, sizeof(name));
		if (strncmp(name, r->leaf, n) == 0 && name[n] == ' ')
			usage_one(&cmdtab[i], buf, len);
	}
}
