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
 * What every worker fork of jb-gitd ends with: its one answer, written
 * whole to the result pipe, with the end of what git said on stderr
 * after the worker's own words when it refuses.
 */

#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gitd.h"

struct jb_gitd_result	 gitd_res;
int			 gitd_errfd = -1;

void
gitd_answer(int resfd)
{
	const char	*p = (const char *)&gitd_res;
	size_t		 left = sizeof(gitd_res);
	ssize_t		 n;

	while (left > 0) {
		if ((n = write(resfd, p, left)) == -1) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		p += n;
		left -= (size_t)n;
	}
	_exit(0);
}

void
gitd_git_said(char *buf, size_t len)
{
	char	tail[512], *p;
	off_t	end;
	ssize_t	n;

	if (gitd_errfd == -1 || (end = lseek(gitd_errfd, 0, SEEK_END)) <= 0)
		return;
	(void)lseek(gitd_errfd, end > (off_t)sizeof(tail) - 1 ?
	    end - (off_t)sizeof(tail) + 1 : 0, SEEK_SET);
	if ((n = read(gitd_errfd, tail, sizeof(tail) - 1)) <= 0)
		return;
	tail[n] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		tail[--n] = '\0';
	for (p = tail; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	(void)strlcat(buf, " (git: ", len);
	(void)strlcat(buf, tail, len);
	(void)strlcat(buf, ")", len);
}

void
gitd_refuse(int resfd, const char *fmt, ...)
{
	va_list	ap;

	gitd_res.ok = 0;
	va_start(ap, fmt);
	(void)vsnprintf(gitd_res.text, sizeof(gitd_res.text), fmt, ap);
	va_end(ap);
	gitd_answer(resfd);
}
