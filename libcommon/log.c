/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int		 log_debug_mode;	/* 1: stderr */
static int		 log_verbose;
static const char	*log_procname = "jailbee";

void
log_init(int debug, int facility)
{
	log_debug_mode = debug;
	if (!debug)
		openlog(log_procname, LOG_PID | LOG_NDELAY, facility);
	tzset();
}

void
log_procinit(const char *procname)
{
	if (procname != NULL)
		log_procname = procname;
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

int
log_getverbose(void)
{
	return log_verbose;
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	int	saved_errno = errno;

	if (log_debug_mode) {
		/* one write per line, so lines of several processes never mix */
		char	line[2048];
		int	n;

		n = snprintf(line, sizeof(line), "%s[%d]: ", log_procname,
		    (int)getpid());
		if (n < 0)
			n = 0;
		if ((size_t)n < sizeof(line))
			(void)vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		line[sizeof(line) - 2] = '\0';
		(void)strlcat(line, "\n", sizeof(line));
		(void)write(STDERR_FILENO, line, strlen(line));
	} else
		vsyslog(pri, fmt, ap);
	errno = saved_errno;
}

void
logit(int pri, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(pri, fmt, ap);
	va_end(ap);
}

static void vlog_errno(int, int, const char *, va_list)
    __attribute__((__format__(printf, 3, 0)));

static void
vlog_errno(int pri, int err, const char *fmt, va_list ap)
{
	char	msg[1024];

	if (fmt == NULL) {
		logit(pri, "%s", strerror(err));
		return;
	}
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err != 0)
		logit(pri, "%s: %s", msg, strerror(err));
	else
		logit(pri, "%s", msg);
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;
	int	err = errno;

	va_start(ap, fmt);
	vlog_errno(LOG_ERR, err, fmt, ap);
	va_end(ap);
	errno = err;
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

__dead void
fatal(const char *fmt, ...)
{
	va_list	ap;
	int	err = errno;

	va_start(ap, fmt);
	vlog_errno(LOG_CRIT, err, fmt, ap);
	va_end(ap);
	exit(1);
}

__dead void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog_errno(LOG_CRIT, 0, fmt, ap);
	va_end(ap);
	exit(1);
}
