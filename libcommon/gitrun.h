/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GITRUN_H
#define JB_GITRUN_H

#include <stddef.h>

#include "gitpacks.h"

/*
 * Host git for the git bridge (gitrun.c): a fixed environment and a -c
 * list that keep whatever came from a container from running here.
 * gitrun_init() once: helper_dir is where git-remote-jailbee is (NULL:
 * beside this program), env one more "K=V" for git and the helper (the
 * control socket jbctl's helper is to use, or the connected stream
 * jb-gitd's is); -1 with err set when it cannot.
 */
int	gitrun_init(const char *helper_dir, const char *env, char *err,
	    size_t errlen);
/*
 * on: what gitrun() lets git print (stdout and stderr) goes through
 * termsafe a line at a time, for a caller whose terminal it reaches
 */
void	gitrun_termsafe(int on);
/* git-remote-jailbee writes its byte counts to fd (-1: none) */
void	gitrun_stats_fd(int fd);
/* each git from now on: CPU seconds and address space (0: unlimited) */
void	gitrun_limits(unsigned long cpu_secs, unsigned long as_bytes);
/* the signal that ended the last git, or 0 */
int	gitrun_last_signal(void);

/* git ARGS... NULL: 0 when git exits 0, else -1; stderr passes */
int	gitrun(const char *, ...) __attribute__((__sentinel__));
/* the same with stdout and stderr thrown away */
int	gitrun_quiet(const char *, ...) __attribute__((__sentinel__));
/* stdout into out (NUL-terminated, cut at outlen - 1) */
int	gitrun_capture(char *out, size_t outlen, int quiet, const char *, ...)
	    __attribute__((__sentinel__));
/* stdout's first line, stderr thrown away; -1 when git fails or says nothing */
int	gitrun_line(char *out, size_t outlen, const char *, ...)
	    __attribute__((__sentinel__));

/*
 * Before a fetch into ref, from one git: the pack directory, scanned
 * into packs (gitpacks.h), and the commit ref names into old ("" when
 * there is no such ref).  -1 when git fails: not in a checkout.
 */
int	gitrun_fetch_start(const char *ref, char *old, size_t oldlen,
	    struct gitpacks *packs);

#endif /* JB_GITRUN_H */
