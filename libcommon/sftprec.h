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
 * What the in-container SFTP helper (jb-sftp) and jb-sshd's session
 * say to each other over the exec's stdio: records out of the helper
 * (a header, then len bytes), write frames into it.  The helper is the
 * container's, so its records are hostile input: sftprec_next() decodes
 * them with every length checked.
 */

#ifndef SFTPREC_H
#define SFTPREC_H

#include <stddef.h>
#include <stdint.h>

#define SFTPREC_FILE_MAX	(2LL * 1024 * 1024 * 1024)	/* 2 GiB */
#define SFTPREC_WRITE_MAX	(256 * 1024)	/* one write frame */
#define SFTPREC_NAME_MAX	255
#define SFTPREC_LINK_MAX	4096

enum sftprec_type {
	SFTPREC_STATUS = 1,	/* int32_t errno, 0: done well; the last */
	SFTPREC_ATTR,		/* struct sftprec_attr, then namelen bytes */
	SFTPREC_LINK,		/* a link's target, len bytes */
};

struct sftprec_hdr {
	uint32_t	type;
	uint32_t	len;
};

struct sftprec_attr {
	uint64_t	size;
	uint32_t	uid, gid, mode, namelen;
	int64_t		atime, mtime;
};

/* into the helper of an open for writing: then len bytes */
struct sftprec_write {
	uint64_t	offset;
	uint32_t	len;
	uint32_t	pad;
};

/* open flags and setstat fields, as argument numbers */
#define SFTPREC_OPEN_READ	0x01
#define SFTPREC_OPEN_CREAT	0x02
#define SFTPREC_OPEN_TRUNC	0x04
#define SFTPREC_OPEN_EXCL	0x08
#define SFTPREC_OPEN_APPEND	0x10
#define SFTPREC_SET_SIZE	0x01
#define SFTPREC_SET_MODE	0x02
#define SFTPREC_SET_TIMES	0x04

struct sftprec {
	int			type;
	int32_t			status;
	struct sftprec_attr	attr;
	char			name[SFTPREC_LINK_MAX + 1];	/* or the link */
};

/*
 * One record from buf: 1 and *used its size, 0 if more bytes are needed,
 * -1 if it is malformed (the helper is then not believed any further).
 */
int	sftprec_next(const void *, size_t, struct sftprec *, size_t *);

#endif /* SFTPREC_H */
