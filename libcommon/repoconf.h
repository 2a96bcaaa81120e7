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
 * The per-repository configuration: three YAML files layered into one
 * typed struct.
 *
 *	global	${XDG_CONFIG_HOME:-~/.config}/jailbee/global.yaml
 *	repo	<repo>/.jailbee/config.yaml (required)
 *	local	${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/<prefix>.yaml
 *
 * applied in that order: later files win.  A scalar set to null falls
 * back to the built-in default; a list is appended to and [] empties it;
 * a mapping merges key by key (container.env: NAME: null drops NAME).
 * github.token is accepted only in the host-local file, github.enabled
 * there and in global.yaml (repoconf_github.h), container_prefix
 * everywhere but there (the file is named after it).
 *
 * A struct holding one or more layers but not yet finished marks what no
 * layer set as unset: "" for strings, 0 for numbers, RC_UNSET for
 * booleans.  repoconf_finish() fills the defaults; after it every field
 * has its effective value.
 */

#ifndef JB_REPOCONF_H
#define JB_REPOCONF_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "names.h"
#include "repoconf_secrets.h"
#include "yamltree.h"

#define RC_ALIAS_MAX		63	/* base.alias */
#define RC_POOL_MAX		63	/* defaults.storage_pool */
#define RC_PACKAGES_MAX		1023	/* base.packages, space-separated */
#define RC_PACKAGE_MAX		100	/* one Debian package name */
/* the image every repo uses unless it sets base.alias or base.packages */
#define RC_DEF_ALIAS		"jailbee-base"
#define RC_TOKEN_MAX		255	/* github.token */
#define RC_ENV_NAME_MAX		127
#define RC_ENV_VALUE_MAX	4095
#define RC_ENV_MAX		256	/* container.env entries */
#define RC_MOUNTS_MAX		128	/* host_mounts entries */
#define RC_EGRESS_MAX		1024	/* egress_allow entries */
#define RC_EGRESS_LEN		255	/* one egress_allow entry */
#define RC_UID_MAX		(INT32_MAX - 1)
#define RC_CPU_MAX		1024
#define RC_ERR_MAX		1024	/* room for messages naming paths */
#define RC_UNSET		(-1)

#define RC_DEF_NETWORK		"strict"
/*
 * The limits of a new container (defaults.*): a quarter of the host's
 * memory and half its CPUs, so that three containers at their limit
 * still leave the host a quarter of its memory, and one busy container
 * never takes every CPU; a fork bomb stops at 4096 tasks; a disk filler
 * at 20GiB.  The original's 16GiB and 8 CPUs are a whole laptop.
 */
#define RC_DEF_MEMORY		"25%"
#define RC_DEF_CPU_PCT		50
#define RC_DEF_PROCESSES	4096
#define RC_DEF_DISK		"20GiB"
#define RC_DEF_LOOSE_AFTER	(5 * 60)
#define RC_DEF_MOUNT_AFTER	(60 * 60)

enum repoconf_layer {
	RC_LAYER_GLOBAL,
	RC_LAYER_REPO,
	RC_LAYER_LOCAL,
};

struct repoconf_paths {
	char	repo[PATH_MAX];
	char	global[PATH_MAX];
	char	local[PATH_MAX];	/* "" until the prefix is known */
};

struct rc_env {
	char	*name;
	char	*value;
};

struct rc_envlist {
	struct rc_env	*v;		/* in the order first set */
	size_t		 n;
};

struct rc_mount {
	char	host[PATH_MAX];		/* absolute or ~/..., as written */
	char	container[PATH_MAX];	/* absolute */
	int	readonly;
};

struct rc_mountlist {
	struct rc_mount	*v;
	size_t		 n;
};

/* one optional_mounts entry: attached only by jbctl mount */
#define RC_OPTIONAL_MAX		64
#define RC_KIND_MAX		32
#define RC_DESC_MAX		255
struct rc_optional {
	char		kind[RC_KIND_MAX + 1];	/* its key */
	struct rc_mount	m;			/* readonly unless false */
	char		description[RC_DESC_MAX + 1];
	int64_t		auto_unmount_after;	/* seconds, 0: none */
};

struct rc_optlist {
	struct rc_optional	*v;
	size_t			 n;
};

/* one host_ports entry: a host service reachable inside */
#define RC_PORTS_MAX		64
struct rc_port {
	char		name[41];		/* [a-z0-9-], the device's */
	int		port;			/* in the container */
	int		host_port;		/* on the host; default port */
	char		proto[4];		/* tcp | udp */
	char		host_address[16];	/* IPv4; default 127.0.0.1 */
	char		container_address[16];	/* IPv4; default 127.0.0.1 */
	int		host_address_set;	/* written in the file */
};

struct rc_portlist {
	struct rc_port	*v;
	size_t		 n;
};

/* one github.api_tokens entry (repoconf_github.c) */
#define RC_GH_TOKENS_MAX	32
struct rc_ghtoken {
	char	prefix[NAME_PREFIX_MAX + 1];
	char	token[RC_TOKEN_MAX + 1];
};

struct rc_revert {
	int	enabled;		/* RC_UNSET, 0, 1 */
	int64_t	after;			/* seconds, 0 < after <= 24h */
};

/*
 * --- agents.<name>: coding agent presets (repoconf_agents.c) ---
 * Built-in presets (claude, codex, gemini, aider, opencode, grok) lie under
 * the layers: repoconf_finish() fills every key no layer set, and puts a
 * preset's egress_allow and shared entries first unless a layer reset
 * that list with null or [].  Fixed arrays, so that a copy is a memcpy.
 */
#define RC_AGENTS_MAX		16
#define RC_AGENT_NAME_MAX	32
#define RC_AGENT_CMD_MAX	1023	/* command, install, ... */
#define RC_AGENT_EGRESS_MAX	32
#define RC_AGENT_SHARED_MAX	8
#define RC_AGENT_ENV_MAX	16
#define RC_AGENT_ENVNAME_MAX	63
#define RC_AGENT_ENVVAL_MAX	511
#define RC_AGENT_PACKAGES_MAX	255	/* packages, space-separated */

struct rc_agent_shared {
	char	subpath[128];	/* under the suite's shared dir */
	char	path[256];	/* in the container: absolute or ~/... */
	char	type[8];	/* dir | file | link */
	char	seed[256];	/* a new file's content; "" none */
	/* type link: where path's symlink points (a dir entry's file) */
	char	target[256];
};

struct rc_agent {
	char	name[RC_AGENT_NAME_MAX + 1];
	int	enabled;		/* RC_UNSET, 0, 1 */
	int	autostart;		/* launch at start */
	int	auto_update;
	char	command[RC_AGENT_CMD_MAX + 1];
	char	install[RC_AGENT_CMD_MAX + 1];
	char	install_check[RC_AGENT_CMD_MAX + 1];
	char	update[RC_AGENT_CMD_MAX + 1];
	char	install_network[8];	/* strict | loose */
	/* Debian packages its image needs, space-separated */
	char	packages[RC_AGENT_PACKAGES_MAX + 1];
	int	packages_reset;		/* a layer set null or [] */
	struct rc_agent_shared shared[RC_AGENT_SHARED_MAX];
	int	nshared;
	int	shared_reset;		/* a layer set null or [] */
	char	egress[RC_AGENT_EGRESS_MAX][RC_EGRESS_LEN + 1];
	int	negress;
	int	egress_reset;
	char	env_name[RC_AGENT_ENV_MAX][RC_AGENT_ENVNAME_MAX + 1];
	char	env_value[RC_AGENT_ENV_MAX][RC_AGENT_ENVVAL_MAX + 1];
	int	nenv;
};

struct rc_agentlist {
	struct rc_agent	*v;		/* in the order first named */
	size_t		 n;
};
/* the agent of that name, NULL when none (after repoconf_finish) */
struct repoconf;
const struct rc_agent *repoconf_agent(const struct repoconf *,
	    const char *name);
/* 0 when jbctl new can run the enabled agent a; -1 and why (no command) */
/*
 * The image for the agents idx[0..n) of c: c's own when they need no
 * package beyond base.packages or base.alias names the image; else the
 * image of base.packages and their packages, shared by every repo that
 * needs the same set: alias jailbee-base-<12 hex digits of the sorted
 * set's SHA-256>.  alias gets the alias, pkgs the packages to build it
 * with; returns 1 when the agents' image is not c's own, -1 when its
 * packages do not fit in plen.
 */
int	repoconf_agent_image(const struct repoconf *c, const size_t *idx,
	    size_t n, char *alias, size_t alen, char *pkgs, size_t plen);
int	repoconf_agent_runnable(const struct rc_agent *, char *err,
	    size_t errlen);
/* --- end of agents --- */

/*
 * --- autostart (repoconf_autostart.c) ---
 * on_create[] and on_start[] steps, run in the container's tmux session
 * autostart.  A layer's steps follow the earlier layers'; null or []
 * resets a list.  env merges by name (null drops one).
 */
#define RC_STEPS_MAX		16	/* per trigger */
#define RC_STEP_NAME_MAX	48
#define RC_STEP_ENV_MAX		16
#define RC_STEP_MOUNTS_MAX	8	/* optional_mounts kinds per step */
#define RC_STEP_TIMEOUT_MAX	86400
#define RC_DEF_STEP_TIMEOUT	600

struct rc_envkv {
	char	name[RC_AGENT_ENVNAME_MAX + 1];
	char	value[RC_AGENT_ENVVAL_MAX + 1];
};

struct rc_step {
	char		name[RC_STEP_NAME_MAX + 1];
	char		run[RC_AGENT_CMD_MAX + 1];
	char		network[8];		/* "" | strict | loose */
	char		working_dir[256];	/* "" the clone; else below it
						   or absolute */
	int		background;
	int		timeout;		/* seconds; 0: step_timeout */
	int		continue_on_error;
	struct rc_envkv	env[RC_STEP_ENV_MAX];
	int		nenv;
	/* optional_mounts kinds attached for the step alone */
	char		mounts[RC_STEP_MOUNTS_MAX][RC_KIND_MAX + 1];
	int		nmounts;
};

struct rc_steplist {
	struct rc_step	*v;
	size_t		 n;
	int		 reset;			/* a layer set null or [] */
};

struct rc_autostart {
	struct rc_steplist	on_create;
	struct rc_steplist	on_start;
	int			step_timeout;	/* 0: unset (600) */
	struct rc_envkv		env[RC_STEP_ENV_MAX];
	int			nenv;
};
/* --- end of autostart --- */

struct repoconf {
	/* computed, not YAML */
	struct repoconf_paths	paths;	/* .local is also named in errors */
	char			repo_root[PATH_MAX];
	int			effective;	/* repoconf_finish() ran */
	char			warning[RC_ERR_MAX];	/* "" or one line */
	enum repoconf_layer	applying;	/* while a layer is parsed */

	char			container_prefix[NAME_PREFIX_MAX + 1];
	int			container_uid;	/* 1 .. RC_UID_MAX */
	int			container_gid;
	struct rc_envlist	env;		/* container.env */
	struct rc_mountlist	host_mounts;
	struct rc_optlist	optional_mounts; /* an entry replaces its kind */
	struct yt_strlist	egress_allow;	/* vetted elsewhere */
	struct rc_portlist	host_ports;	/* an entry replaces its name */
	char			network[16];	/* defaults.network */
	char			memory[32];	/* defaults.memory */
	/* defaults.cpu: a count, or a share of the host's; one of them */
	int			cpu;		/* 0 unset */
	int			cpu_pct;	/* 0 unset */
	int			processes;	/* defaults.processes */
	char			disk[32];	/* defaults.disk: root size */
	/* defaults.storage_pool; "" the pool of Incus's default profile */
	char			storage_pool[RC_POOL_MAX + 1];
	struct rc_revert	loose_auto_revert;
	struct rc_revert	mount_auto_revert;
	char			github_token[RC_TOKEN_MAX + 1];	/* in force */
	int			github_enabled;	/* github.enabled */
	int			github_token_legacy; /* from api_tokens */
	/* global.yaml's github.api_tokens: the original's legacy map */
	struct rc_ghtoken	github_api_tokens[RC_GH_TOKENS_MAX];
	int			ngithub_api_tokens;
	/* secrets: global.yaml and the host-local file only */
	struct rc_secret	secrets[RC_SECRETS_MAX];
	int			nsecrets;
	int			gpg_enabled;	/* gpg.enabled */
	int			ssh_enabled;	/* ssh.enabled */
	char			base_alias[RC_ALIAS_MAX + 1];
	int			base_alias_auto; /* not set by a layer */
	/* Debian packages the image adds, space-separated */
	char			base_packages[RC_PACKAGES_MAX + 1];
	struct rc_agentlist	agents;		/* agents.<name>, claude */
	struct rc_autostart	autostart;	/* autostart.* */
};

/* the template `jbctl config init` writes: parses as the repo layer */
extern const char	repoconf_template[];

/* 1 when s is a Debian package name base.packages takes */
int	repoconf_valid_package(const char *s);

/* an empty struct: nothing set by any layer */
void	repoconf_init(struct repoconf *);
void	repoconf_free(struct repoconf *);

/*
 * The three file paths.  home and xdg_config_home are passed in (NULL or
 * "" when unset); a relative XDG_CONFIG_HOME is ignored as the XDG spec
 * says.  prefix may be NULL: paths->local is then "".
 */
int	repoconf_paths(const char *repo_root, const char *home,
	    const char *xdg_config_home, const char *prefix,
	    struct repoconf_paths *, char *err, size_t errlen);

/*
 * Load, layer and finish the three files for repo_root; uid and gid are
 * the owner's, the default container_user.  On error -1, a one-line
 * message (FILE:LINE: key: what is wrong) and *conf untouched; on
 * success *conf is overwritten (not freed) with the effective config,
 * to be repoconf_free()d, and conf->warning is set if the host-local
 * file is open to group/other.
 */
int	repoconf_load(const char *repo_root, const char *home,
	    const char *xdg_config_home, uid_t uid, gid_t gid,
	    struct repoconf *conf, char *err, size_t errlen);

/*
 * Apply one file on top of *conf (for `config show --layer`): the repo
 * file must exist, the others may be missing.  Errors in github name
 * conf->paths.local.  All or nothing, as repoconf_parse_layer().
 */
int	repoconf_load_layer(enum repoconf_layer, const char *path,
	    struct repoconf *conf, char *err, size_t errlen);

/*
 * Apply one document on top of *conf; name is used in messages.  On
 * error *conf is untouched.
 */
int	repoconf_parse_layer(enum repoconf_layer, const char *name,
	    const char *buf, size_t len, struct repoconf *conf, char *err,
	    size_t errlen);

/* fill what no layer set; repo_root gives the default container_prefix */
int	repoconf_finish(struct repoconf *, const char *repo_root, uid_t uid,
	    gid_t gid, char *err, size_t errlen);

/*
 * As YAML: a finished struct in full, otherwise only what is set.
 * github.token is printed as "<set>".  0, or -1 on a write error.
 */
int	repoconf_dump(const struct repoconf *, FILE *);

/*
 * A file holding secrets: NULL if only its owner may read it, else
 * warn (a sentence saying how to fix it) is filled and returned.
 */
const char *repoconf_check_mode(const char *path, char *warn,
	    size_t warnlen);

/*
 * A directory name as a container_prefix: lowercase, every other byte
 * to '-', runs collapsed, '-' trimmed at both ends.  NULL when that is
 * empty or does not fit in len.
 */
char	*repoconf_slug(const char *name, char *out, size_t len);

#endif /* JB_REPOCONF_H */
