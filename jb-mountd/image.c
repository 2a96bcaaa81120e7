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
 * An image file to import, opened as the owner: jb-mountd is the
 * only process that sees the owner's files, so the fd it opens is what
 * travels to jb-incus.  The checks here catch the user's mistakes early
 * with a clear message; Incus checks the content itself.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "image.h"

static int
tar_header_ok(const unsigned char *b)
{
	unsigned long	sum = 0, want = 0;
	size_t		i;

	/* "ustar\0" (POSIX) or "ustar  " (GNU) at 257 */
	if (memcmp(b + 257, "ustar", 5) != 0)
		return 0;
	for (i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : b[i];
	/* the checksum field: octal digits, ended by NUL or space */
	for (i = 148; i < 156 && b[i] == ' '; i++)
		;
	if (i == 156 || b[i] < '0' || b[i] > '7')
		return 0;
	for (; i < 156 && b[i] >= '0' && b[i] <= '7'; i++)
		want = want * 8 + (unsigned long)(b[i] - '0');
	if (i < 156 && b[i] != '\0' && b[i] != ' ')
		return 0;
	return sum == want;
}

const char *
image_kind(const unsigned char *b, size_t len)
{
	if (len >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8)
		return "gzip";
	if (len >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0)
		return "xz";
	if (len >= 4 && memcmp(b, "\x28\xb5\x2f\xfd", 4) == 0)
		return "zstd";
	if (len >= 4 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' &&
	    b[3] <= '9')
		return "bzip2";
	if (len >= 512 && tar_header_ok(b))
		return "tar";
	return NULL;
}

int
image_open(const char *path, struct jb_image_file *f, char *err,
    size_t errlen)
{
	unsigned char	 head[IMAGE_HEAD];
	struct stat	 st;
	const char	*kind;
	ssize_t		 n;
	int		 fd;

	memset(f, 0, sizeof(*f));
	if (path[0] != '/') {
		(void)snprintf(err, errlen, "%s: not an absolute path", path);
		return -1;
	}
	/* O_NONBLOCK: a FIFO must not hang the open */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK))
	    == -1) {
		(void)snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		(void)snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto bad;
	}
	if (!S_ISREG(st.st_mode)) {
		(void)snprintf(err, errlen, "%s: not a regular file; give the "
		    "image tarball (metadata.yaml + rootfs/)", path);
		goto bad;
	}
	if (st.st_size == 0) {
		(void)snprintf(err, errlen, "%s: the file is empty; build the "
		    "image again (jbctl base build)", path);
		goto bad;
	}
	if ((unsigned long long)st.st_size > IMAGE_MAX_SIZE) {
		(void)snprintf(err, errlen, "%s: %lld bytes is more than an "
		    "image may have (%llu)", path, (long long)st.st_size,
		    IMAGE_MAX_SIZE);
		goto bad;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		(void)snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto bad;
	}
	if ((kind = image_kind(head, (size_t)n)) == NULL) {
		(void)snprintf(err, errlen, "%s: not an Incus image (a tarball "
		    "of metadata.yaml and rootfs/, compressed or not)", path);
		goto bad;
	}
	f->size = (uint64_t)st.st_size;
	(void)strlcpy(f->kind, kind, sizeof(f->kind));
	return fd;
 bad:
	close(fd);
	return -1;
}
