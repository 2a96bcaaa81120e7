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
 * The managed block of a strict container's /etc/hosts:
 *
 *	# BEGIN jailbee-managed allowlist
 *	198.51.100.14 rot.test
 *	198.51.100.15 rot.test
 *	# END jailbee-managed allowlist
 *
 * one "ADDR NAME" line per address the pool holds for an allowed name.
 * Pure: jb-netd renders the lines, jb-incus checks them and merges them
 * into the file it read from the container.  Everything outside the
 * sentinels is the user's and is kept byte for byte.
 */

#ifndef JB_HOSTSPIN_H
#define JB_HOSTSPIN_H

#include <stddef.h>
#include <stdint.h>

#define HOSTSPIN_BEGIN		"# BEGIN jailbee-managed allowlist"
#define HOSTSPIN_END		"# END jailbee-managed allowlist"
#define HOSTSPIN_FILE_MAX	(1024 * 1024)	/* an /etc/hosts we rewrite */

/*
 * 1 if block is zero or more lines "A.B.C.D NAME\n": a dotted-quad
 * address, one space, a lower-case RFC 1123 host name, a newline.
 * Nothing else can get into the file through the block.
 */
int	hostspin_valid(const char *block, size_t len);
/* one line for block; 0, or -1 when name or the room is not right */
int	hostspin_line(uint32_t addr, const char *name, char *buf,
	    size_t len);
/*
 * The new file: old with block (checked by hostspin_valid) between the
 * sentinels in place of the first managed block, or appended when there
 * is none; every other managed block is taken out, and an empty block
 * leaves the file without one.  The user's lines keep their bytes and
 * their order, so an unchanged block gives the same file back.  A BEGIN
 * without its END runs to the end of the file (a write cut short).  When
 * the user's last line lacks its newline, one is added before an
 * appended block.  *out is to be freed.  0, or -1 (out of memory, or a
 * block or result over HOSTSPIN_FILE_MAX).
 */
int	hostspin_merge(const char *old, size_t oldlen, const char *block,
	    size_t blocklen, char **out, size_t *outlen);

#endif /* JB_HOSTSPIN_H */
