/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JBCTL_GITRUN_H
#define JBCTL_GITRUN_H

#include <stddef.h>

/*
 * Host git for the git bridge (gitrun.c): a fixed environment and a -c
 * list that keep whatever came from a container from running here.
 * gitrun_init() once, with the control socket git-remote-jailbee is to
 * use; -1 with err set when it cannot.
 */
int	gitrun_init(const char *sockpath, char *err, size_t errlen);
/* git-remote-jailbee writes its byte counts to fd (-1: none) */
void	gitrun_stats_fd(int fd);

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

#endif /* JBCTL_GITRUN_H */
