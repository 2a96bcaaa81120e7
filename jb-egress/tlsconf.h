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
 * OpenSSL's configuration for jb-egress: read at start, while files can
 * be opened, and applied at the first use of OpenSSL (the first
 * container CA or terminated connection).  Applying it sets up
 * libcrypto's error strings and modules, over a megabyte a gateway that
 * terminates nothing never needs.  A file whose applying would open
 * other files (an .include, providers or engines, which load modules)
 * is applied at start, as OpenSSL does by itself.
 */

#ifndef JB_TLSCONF_H
#define JB_TLSCONF_H

#include <stddef.h>

/* at start: read the file (OPENSSL_CONF or OpenSSL's own), or apply it */
void	tlsconf_read(void);
/* before any other OpenSSL call: apply what was read (once) */
void	tlsconf_apply(void);
/*
 * 1 if applying the configuration text would open files: an .include,
 * or a providers or engines key; comments and blank lines are skipped
 */
int	tlsconf_needs_files(const char *, size_t);

#endif
