/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JBCTL_H
#define JBCTL_H

#include "jb_msg.h"
#include "output.h"

struct cmd;
struct imsgbuf;

struct parsed {
	const struct cmd	*cmd;
	const char		*optval[8];	/* CMD_MAXOPTS; NULL: not given */
	char			**args;
	int			 nargs;
};


/* ctlrun.c: the control socket, and a command carried out by jailbeed */
int	ctl_dial(const char *sockpath, struct imsgbuf *, int timeout,
	    char *err, size_t errlen);
int	ctl_run(struct imsgbuf *, const struct parsed *,
	    const struct output *);
/* rebind.c: bind the address a reload asks for, send it back */
int	rebind_answer(struct imsgbuf *, const struct jb_ctl_listen *);
/* local.c: commands jbctl carries out itself */
int	local_config_init(int force);
int	local_has_config(void);
/* git.c: jbctl git fetch|pull|push|diff|log|checkout, on an open socket */
int	local_git(struct imsgbuf *, const struct parsed *,
	    const char *sockpath);
/* sshkeys.c: the owner's authorized_keys for jb-sshd */
int	local_ssh_key(int id, const char *arg);
/* base.c: jbctl base build */
/* what jailbeed's last answer said to build, NULL when nothing */
const struct jb_base_spec *ctl_base_spec(void);
/* 1 when the last command was refused by new's escalation gate */
int	ctl_escalation(void);
int	base_build(const char *packages, char *dir, size_t, char *file,
	    size_t);
void	base_cleanup(const char *dir);
int	base_keep(const char *from, const char *to);

#endif /* JBCTL_H */
