/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_NETD_NOTICE_H
#define JB_NETD_NOTICE_H

struct child;

/* a refusal just counted for container ctr, told to the parent soon */
void	netd_notice_init(struct child *);
void	netd_notice(const char *ctr);

#endif /* JB_NETD_NOTICE_H */
