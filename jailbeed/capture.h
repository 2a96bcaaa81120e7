/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_CAPTURE_H
#define JAILBEED_CAPTURE_H

#include "jailbeed.h"

#define CAPTURE_MAX	4096

struct capture_result {
	int		ok;		/* ran and exited: status is valid */
	int		exited;
	int		status;
	char		error[JB_ERR_TEXT_MAX];	/* why not ok */
	char		out[CAPTURE_MAX];	/* first bytes of stdout */
	size_t		outlen;
	char		err[CAPTURE_MAX];	/* first bytes of stderr */
	size_t		errlen;
};

typedef void	(*capture_next)(struct job *, struct capture_result *);

/* 0 sent (next is called once), -1 could not be sent */
int	capture_run(struct job *, const char *name, uint32_t uid, uint32_t gid,
	    const char *cwd, const char *const *argv, const char *const *envp,
	    capture_next);
/* the same, with no output read when it exits 0: out and err are empty */
int	capture_run_quiet(struct job *, const char *name, uint32_t uid,
	    uint32_t gid, const char *cwd, const char *const *argv,
	    const char *const *envp, capture_next);

#endif /* JAILBEED_CAPTURE_H */
