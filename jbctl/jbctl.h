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

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_JSON,
};

/* one back end per format, as bgpctl does; tests read the JSON */
struct output {
	void	(*status_begin)(void);
	void	(*status_entry)(const struct jb_proc_status *, int64_t now);
	void	(*status_end)(void);
	void	(*version)(const char *client, const char *daemon);
	void	(*list_begin)(const char *what);	/* "containers" ... */
	void	(*instance)(const struct jb_instance *);
	void	(*snapshot)(const struct jb_snapshot *);
	void	(*list_end)(void);
	void	(*mount)(const struct jb_mount_entry *);	/* mount ls */
	void	(*image)(const struct jb_image *);	/* base usage */
	void	(*port)(const struct jb_port *);	/* port ls, net status */
	/* net status: a container, then its entries, addresses, forwards */
	void	(*net_ctr)(const struct jb_net_ctr *);
	void	(*net_allow)(const struct jb_net_allow *);
	void	(*net_addr)(const struct jb_net_addr *);
	void	(*doctor)(const struct jb_doctor_check *);	/* doctor */
	void	(*net_block)(const struct jb_net_block *);	/* net log */
	/* net refresh: each exact name asked */
	void	(*net_resolved)(const struct jb_net_resolved *);
};

struct cmd;
struct imsgbuf;

struct parsed {
	const struct cmd	*cmd;
	const char		*optval[8];	/* CMD_MAXOPTS; NULL: not given */
	char			**args;
	int			 nargs;
};

extern const struct output	text_output;
/* output.c: print to fp instead of stdout (jailbeed renders for SSH) */
#include <stdio.h>
void	output_set_file(FILE *);

/* remote.c: a command carried out by jailbeed */
int	remote_run(struct imsgbuf *, const struct parsed *,
	    const struct output *);
/* local.c: commands jbctl carries out itself */
int	local_config_init(int force);
int	local_has_config(void);
/* git.c: jbctl git fetch|pull|push|diff|log|checkout, on an open socket */
int	local_git(struct imsgbuf *, const struct parsed *,
	    const char *sockpath);
/* sshkeys.c: the owner's authorized_keys for jb-sshd */
int	local_ssh_key(int id, const char *arg);
extern const struct output	json_output;
/* base.c: jbctl base build */
/* what jailbeed's last answer said to build, NULL when nothing */
const struct jb_base_spec *remote_base_spec(void);
/* 1 when the last command was refused by new's escalation gate */
int	remote_escalation(void);
int	base_build(const char *packages, char *dir, size_t, char *file,
	    size_t);
void	base_cleanup(const char *dir);
int	base_keep(const char *from, const char *to);

#endif /* JBCTL_H */
