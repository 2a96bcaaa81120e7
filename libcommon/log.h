/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_LOG_H
#define JB_LOG_H

#include <stdarg.h>

#ifndef __dead
#define __dead		__attribute__((__noreturn__))
#endif

/*
 * One log API for every process: stderr when debug (foreground) is set,
 * syslog (LOG_DAEMON) otherwise.  verbose > 0 lets log_debug through.
 */
void	log_init(int debug, int facility);
void	log_procinit(const char *procname);
void	log_setverbose(int);
int	log_getverbose(void);
void	log_warn(const char *, ...) __attribute__((__format__(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((__format__(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((__format__(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((__format__(printf, 1, 2)));
void	logit(int, const char *, ...) __attribute__((__format__(printf, 2, 3)));
void	vlog(int, const char *, va_list) __attribute__((__format__(printf, 2, 0)));
__dead void fatal(const char *, ...) __attribute__((__format__(printf, 1, 2)));
__dead void fatalx(const char *, ...) __attribute__((__format__(printf, 1, 2)));

#endif /* JB_LOG_H */
