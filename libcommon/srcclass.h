/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SRCCLASS_H
#define JB_SRCCLASS_H

#include <stddef.h>

#define SRCCLASS_LOOPBACK	"loopback"

/*
 * The source an SSH client's address counts as, for the front door's
 * limits (numeric address in, class out): every loopback address (all of
 * 127/8, ::1, ::ffff:127/104) is one source, "loopback", since anyone on
 * the host can pick among them; an IPv6 address counts as its /64, which
 * one client can fill; an IPv4 address as itself.  An address that does
 * not parse counts as itself.
 */
void	srcclass(const char *addr, char *out, size_t len);
/* is the class that of the loopback (a tunnel's end, the host's users)? */
int	srcclass_loopback(const char *cls);

#endif /* JB_SRCCLASS_H */
