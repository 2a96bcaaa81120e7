/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SSHPOLICY_H
#define JB_SSHPOLICY_H

#include "cmdtab.h"
#include "jb_msg.h"

/*
 * What a command line received over SSH may do, decided in the parent
 * alone (jb-sshd only carries the line).  The words are parsed by the
 * command table's own grammar, stricter than jbctl's: short-option
 * clusters (-af), attached values (-ojson, --output=json) and "--"
 * are all understood, so that no spelling of an option slips past.
 */
enum sshp_mode {
	SSHP_FULL,
	SSHP_ALLOWLIST,
	SSHP_DISABLED,
};

/* how restrict_host treats a leaf */
enum sshp_host {
	SSHP_HOST_UNKNOWN = 0,	/* a leaf nobody classified: refused */
	SSHP_HOST_ALLOWED,
	SSHP_HOST_REFUSED,
};

struct sshp_conf {
	enum sshp_mode	  mode;
	int		  restrict_host;
	const char	(*allow)[48];	/* allowlist: exact leaves */
	int		  nallow;
	int		  excluded;	/* some repo is excluded */
	/* remote.ssh.mounts or mount_roots: mount goes on to jailbeed */
	int		  mount_unlocked;
	/*
	 * remote.ssh.network: net loose, new --net loose and container-scope
	 * net egress add go on under restrict_host
	 */
	int		  network_unlocked;
};

struct sshp_result {
	const struct cmd *cmd;		/* the leaf; NULL for a group's help */
	int		  help;		/* --help: print usage, run nothing */
	char		  leaf[48];	/* "snapshot ls", or the group */
	char		  err[JB_MSG_TEXT_MAX];
	const char	 *reason;	/* fixed, for the journal: "allowlist" */
};

enum sshp_host	sshpolicy_host(enum cmd_id);
/*
 * argv (argc words) into *out, checked: 0 admitted (r->help: only the
 * usage is wanted), -1 refused with r->err saying why and what to do.
 */
int	sshpolicy_decide(const struct sshp_conf *, int argc, char *argv[],
	    struct jb_ctl_cmd *out, struct sshp_result *r);
/*
 * 1 when the policy admits the leaf at all (the routes never served over
 * SSH, the allowlist, restrict_host and what unlocks it), whatever its
 * words: what the SSH dashboard offers
 */
int	sshpolicy_admits(const struct sshp_conf *, enum cmd_id);
/* the usage of a leaf, or of every leaf under a group, into buf */
void	sshpolicy_usage(const struct sshp_result *, char *buf, size_t len);

#endif /* JB_SSHPOLICY_H */
