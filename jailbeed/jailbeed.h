/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_H
#define JAILBEED_H

#include <sys/types.h>

#include <stdint.h>

#include "config.h"
#include "imsgev.h"
#include "jb_msg.h"

enum jb_proc {
	PROC_INCUS,
	PROC_NETD,
	PROC_MOUNTD,
	PROC_SSHD,
	PROC_MAX
};

struct jb_child {
	const char	*name;
	pid_t		 pid;
	int		 ready;		/* locked down and serving */
	struct imsgev	 iev;
};

struct jailbeed {
	struct jb_conf	 conf;
	const char	*conf_path;
	uid_t		 owner_uid;
	gid_t		 owner_gid;
	int		 debug;
	int		 verbose;
	int64_t		 started;
};

extern struct jailbeed	*env;
extern struct jb_child	 children[PROC_MAX];

/* children.c */
void	children_spawn(void);
void	children_stop(void);
int	children_status_req(uint32_t);
int	children_find(const char *);
#ifdef JB_TESTHOOKS
int	children_test_attempt(int, uint32_t, const struct jb_test_attempt *);
#endif
void	children_reap(void);

/* control.c */
void	control_init(void);
void	control_listen(void);
void	control_cleanup(void);
void	control_child_status(uint32_t, const struct jb_proc_status *);
void	control_child_text(uint32_t, uint32_t, const char *);

/* jailbeed.c */
__attribute__((__noreturn__)) void	jailbeed_shutdown(int);

#endif /* JAILBEED_H */
