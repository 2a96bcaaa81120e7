/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_DRIVER_H
#define JB_DRIVER_H

/*
 * What the integration drivers (programs that play a process's peers
 * against the real incusd) share: one "ok - " or "FAIL - " line per check,
 * counted, and a monotonic clock in milliseconds.
 */
extern int	failures;

void	check(int, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
double	now_ms(void);

#endif /* JB_DRIVER_H */
