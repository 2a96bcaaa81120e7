/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_CMDTAB_H
#define JB_CMDTAB_H

/*
 * The one table of public commands.  jbctl parses and prints help from
 * it and the parent dispatches from it.  What SSH admits is not read
 * from the classification: sshpolicy.c sorts every command in a switch
 * of its own.  A leaf without a classification is a bug
 * (regress/unit/t_cmdtab.c) and is refused at run time.
 */

enum cmd_class {
	CMD_UNCLASSIFIED = 0,
	CMD_HOST,		/* acts on the host itself */
	CMD_CONTAINER,		/* acts inside one container of a visible repo */
	CMD_INTERNAL,		/* reserved: never reachable remotely */
};

enum cmd_id {
	CMD_NONE = 0,
	CMD_STATUS,
	CMD_VERSION,
	CMD_HELP,
	CMD_TEST_ATTEMPT,	/* test builds only */
	CMD_INIT,
	CMD_NEW,
	CMD_LS,
	CMD_START,
	CMD_STOP,
	CMD_RESTART,
	CMD_DESTROY,
	CMD_EXEC,
	CMD_SHELL,
	CMD_SNAP_CREATE,
	CMD_SNAP_RESTORE,
	CMD_SNAP_LS,
	CMD_SNAP_DELETE,
	CMD_CONFIG_SHOW,
	CMD_CONFIG_VALIDATE,
	CMD_CONFIG_INIT,
	/* remote SSH (issue #6) */
	CMD_REMOTE_SSH_KEY_ADD,
	CMD_REMOTE_SSH_KEY_RM,
	CMD_REMOTE_SSH_KEY_LS,
	CMD_REMOTE_SSH_STATUS,
	CMD_AUDIT,
	/* mounts */
	CMD_MOUNT,
	CMD_UNMOUNT,
	CMD_MOUNT_LS,
	CMD_APPLY,
	CMD_BASE_BUILD,
	CMD_BASE_IMPORT,
	CMD_BASE_USAGE,
	CMD_BASE_PRUNE,
	/* network */
	CMD_NET_STRICT,
	CMD_NET_LOOSE,
	CMD_NET_STATUS,
	/* container egress overrides (seed, Egress overrides) */
	CMD_NET_EGRESS_ADD,
	CMD_NET_EGRESS_RM,
	CMD_NET_EGRESS_LS,
	CMD_NET_EGRESS_EXPORT,
	CMD_NET_REFRESH,	/* the pool and /etc/hosts pin, now */
	/* the git bridge: jbctl runs host git; connect is its transport */
	CMD_GIT_CONNECT,
	CMD_GIT_FETCH,
	CMD_GIT_PULL,
	CMD_GIT_PUSH,
	CMD_GIT_DIFF,
	CMD_GIT_LOG,
	CMD_GIT_CHECKOUT,
	/* agents: the tmux session they run in */
	CMD_TMUX,
	/* port forwards */
	CMD_PORT_TO_CONTAINER,
	CMD_PORT_TO_HOST,
	CMD_PORT_LS,
	CMD_PORT_RM,
	CMD_DOCTOR,
	CMD_NET_LOG,		/* what the resolver refused */
	CMD_NET_SUGGEST,
	/* read jailbeed.yaml again, on the host only */
	CMD_RELOAD,
	/* the registry of repositories SSH sessions select with --repo */
	CMD_REPO_LS,
	CMD_REPO_RM,
	/* the live screen of containers (jbctl/dashui.c) */
	CMD_DASHBOARD,
	/* the limits in force on one container */
	CMD_INFO,
	/* secrets: names and hosts, never a value */
	CMD_SECRET_LS,
};

/* where a command runs: in the parent, or in jbctl alone */
#define CMD_LOCAL	0x1	/* jbctl does it itself (config init) */
#define CMD_NOJOB	0x2	/* answered without a job: by jbctl (help) or
				   by the control channel (status, version) */

#define CMD_MAXWORDS	4
#define CMD_MAXOPTS	8

struct cmd_opt {
	const char	*lname;		/* "output" for --output */
	char		 sname;		/* 'o' for -o, 0 when none */
	const char	*argname;	/* "FORMAT", NULL for a flag */
	const char	*choices;	/* "text|json", NULL for free text */
	int		 is_path;	/* the argument names a host path */
	const char	*help;
};

struct cmd {
	const char	*words[CMD_MAXWORDS];	/* NULL-terminated when short */
	enum cmd_id	 id;
	enum cmd_class	 cls;
	const char	*args;		/* usage of positional arguments */
	int		 min_args;
	int		 max_args;
	struct cmd_opt	 opts[CMD_MAXOPTS];	/* ended by lname NULL */
	/*
	 * Which positional argument (1-based) names an existing container,
	 * 0 when none does: over SSH that container is looked up before
	 * anything else is done (the remote gate, jailbeed/ssh_gate.c).
	 */
	int		 name_arg;
	/*
	 * Which positional arguments name a host path: bit n-1 for the
	 * n-th.  Over SSH such a command is refused in every mode, as an
	 * option marked is_path is.
	 */
	unsigned int	 path_args;
	const char	*help;
	int		 flags;		/* CMD_LOCAL */
};

extern const struct cmd	cmdtab[];
extern const int	cmdtab_len;

/* longest match of argv's leading words; *nwords gets how many matched */
const struct cmd	*cmd_lookup(int argc, char *const argv[], int *nwords);
/*
 * 1 when argv[0..argc-1] are the first words of c and c has more: c is
 * a command of the group they name ("net", "net egress", "git").
 */
int	cmd_in_group(const struct cmd *c, int argc, char *const argv[]);
const struct cmd	*cmd_find(enum cmd_id);
int	cmd_choice_ok(const char *, const char *);
const char		*cmd_class_name(enum cmd_class);
/* "net loose" into buf */
const char		*cmd_name(const struct cmd *, char *, size_t);

#endif /* JB_CMDTAB_H */
