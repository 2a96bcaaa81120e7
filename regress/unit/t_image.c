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
 * jb-mountd's image file checks (jb-mountd/image.c): the kinds told
 * from the first bytes, the tar header checksum, and image_open()'s
 * refusals, each naming the file.
 */

#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "image.h"

/* a ustar header for one file, its checksum right */
static void
tar_header(unsigned char b[512], int gnu)
{
	unsigned long	sum = 0;
	size_t		i;

	memset(b, 0, 512);
	strcpy((char *)b, "metadata.yaml");
	memcpy(b + 100, "0000644", 8);
	memcpy(b + 108, "0000000", 8);
	memcpy(b + 116, "0000000", 8);
	memcpy(b + 124, "00000000012", 12);
	memcpy(b + 136, "14500000000", 12);
	b[156] = '0';
	if (gnu)
		memcpy(b + 257, "ustar  ", 8);
	else
		memcpy(b + 257, "ustar\0" "00", 8);
	memset(b + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += b[i];
	snprintf((char *)b + 148, 8, "%06lo", sum);
}

ATF_TC_WITHOUT_HEAD(kinds);
ATF_TC_BODY(kinds, tc)
{
	unsigned char	b[512];

	ATF_CHECK_STREQ(image_kind((const unsigned char *)"\x1f\x8b\x08\0",
	    4), "gzip");
	ATF_CHECK(image_kind((const unsigned char *)"\x1f\x8b\x07", 3) ==
	    NULL);
	ATF_CHECK(image_kind((const unsigned char *)"\x1f\x8b", 2) == NULL);
	ATF_CHECK_STREQ(image_kind((const unsigned char *)"\xfd" "7zXZ\0!",
	    7), "xz");
	ATF_CHECK(image_kind((const unsigned char *)"\xfd" "7zXZ", 5) ==
	    NULL);
	ATF_CHECK_STREQ(image_kind((const unsigned char *)"\x28\xb5\x2f\xfd",
	    4), "zstd");
	ATF_CHECK_STREQ(image_kind((const unsigned char *)"BZh9", 4),
	    "bzip2");
	ATF_CHECK(image_kind((const unsigned char *)"BZh0", 4) == NULL);
	ATF_CHECK(image_kind((const unsigned char *)"", 0) == NULL);
	ATF_CHECK(image_kind((const unsigned char *)"hello, world\n", 13) ==
	    NULL);
	memset(b, 0, sizeof(b));
	ATF_CHECK(image_kind(b, sizeof(b)) == NULL);
}

ATF_TC_WITHOUT_HEAD(tar);
ATF_TC_BODY(tar, tc)
{
	unsigned char	b[512];

	tar_header(b, 0);
	ATF_CHECK_STREQ(image_kind(b, sizeof(b)), "tar");
	tar_header(b, 1);
	ATF_CHECK_STREQ(image_kind(b, sizeof(b)), "tar");
	/* short of a whole header */
	ATF_CHECK(image_kind(b, 511) == NULL);
	/* one byte changed: the checksum no longer holds */
	tar_header(b, 0);
	b[0] = 'n';
	ATF_CHECK(image_kind(b, sizeof(b)) == NULL);
	/* a checksum that is not octal, or empty */
	tar_header(b, 0);
	memcpy(b + 148, "0009999", 7);
	ATF_CHECK(image_kind(b, sizeof(b)) == NULL);
	tar_header(b, 0);
	memset(b + 148, ' ', 8);
	ATF_CHECK(image_kind(b, sizeof(b)) == NULL);
	/* no magic */
	tar_header(b, 0);
	memcpy(b + 257, "xstar", 5);
	ATF_CHECK(image_kind(b, sizeof(b)) == NULL);
}

static void
write_file(const char *path, const void *data, size_t len)
{
	int	fd;

	ATF_REQUIRE((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) !=
	    -1);
	ATF_REQUIRE(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

static void
refused(const char *path, const char *want)
{
	struct jb_image_file	f;
	char			err[JB_ERR_TEXT_MAX] = "";

	ATF_CHECK_EQ_MSG(image_open(path, &f, err, sizeof(err)), -1, "%s",
	    path);
	ATF_CHECK_MSG(strstr(err, want) != NULL, "%s: \"%s\" lacks \"%s\"",
	    path, err, want);
	ATF_CHECK_MSG(strncmp(err, path, strlen(path)) == 0,
	    "\"%s\" does not name %s", err, path);
}

ATF_TC_WITHOUT_HEAD(open_checks);
ATF_TC_BODY(open_checks, tc)
{
	struct jb_image_file	 f;
	unsigned char		 b[512];
	char			 dir[PATH_MAX], p[PATH_MAX + 32];
	char			 err[JB_ERR_TEXT_MAX];
	int			 fd;

	ATF_REQUIRE(getcwd(dir, sizeof(dir)) != NULL);
	snprintf(p, sizeof(p), "%s/missing", dir);
	refused(p, "No such file or directory");
	refused(dir, "not a regular file");
	refused("relative.tar.gz", "not an absolute path");
	snprintf(p, sizeof(p), "%s/empty", dir);
	write_file(p, "", 0);
	refused(p, "the file is empty");
	snprintf(p, sizeof(p), "%s/text", dir);
	write_file(p, "hello\n", 6);
	refused(p, "not an Incus image");
	snprintf(p, sizeof(p), "%s/fifo", dir);
	ATF_REQUIRE(mkfifo(p, 0644) == 0);
	refused(p, "not a regular file");

	snprintf(p, sizeof(p), "%s/image.tar.gz", dir);
	write_file(p, "\x1f\x8b\x08\0\0\0\0\0\0\3", 10);
	ATF_REQUIRE((fd = image_open(p, &f, err, sizeof(err))) != -1);
	ATF_CHECK_EQ(f.size, 10);
	ATF_CHECK_STREQ(f.kind, "gzip");
	ATF_CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	tar_header(b, 0);
	snprintf(p, sizeof(p), "%s/image.tar", dir);
	write_file(p, b, sizeof(b));
	ATF_REQUIRE((fd = image_open(p, &f, err, sizeof(err))) != -1);
	ATF_CHECK_STREQ(f.kind, "tar");
	ATF_CHECK_EQ(f.size, 512);
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, kinds);
	ATF_TP_ADD_TC(tp, tar);
	ATF_TP_ADD_TC(tp, open_checks);
	return atf_no_error();
}
