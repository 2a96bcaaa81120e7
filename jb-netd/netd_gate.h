/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef NETD_GATE_H
#define NETD_GATE_H

/*
 * The start gates this jb-netd holds open (gate.h).  netd_gate_init,
 * while still root: make the directory, check it is root's and written
 * by nobody else, and close every gate a run before left open.
 */
void	netd_gate_init(const char *procname, const char *dir);
/* the kernel holds name's policy as Incus has it: it may start */
void	netd_gate_open(const char *name);
/* name is forgotten: it may not start */
void	netd_gate_close(const char *name);
/* every gate, when jb-netd ends however it ends but a crash */
void	netd_gate_close_all(void);

#endif /* NETD_GATE_H */
