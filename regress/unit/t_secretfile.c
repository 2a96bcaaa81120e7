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
 * A secret's file as jb-mountd reads it (jb-mountd/secretfile.c): the
 * owner's regular file, mode 0600 or tighter, one line of printable
 * ASCII; every refusal by its message.
 */

#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "secretfile.h"

static void
put(const char *path, const char *data, size_t len, mode_t mode)
{
	int	fd;

	(void)unlink(path);
	ATF_REQUIRE((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)) !=
	    -1);
	ATF_REQUIRE((size_t)write(fd, data, len) == len);
	ATF_REQUIRE(fchmod(fd, mode) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static char	cwd[PATH_MAX];

static const char *
bad(const char *path, uid_t uid)
{
	static char	why[512];
	char		out[SECRETFILE_MAX + 1];

	why[0] = '\0';
	ATF_CHECK(secretfile_read(path, cwd, uid, out, sizeof(out), why,
	    sizeof(why)) == -1);
	return why;
}

ATF_TC_WITHOUT_HEAD(read_ok);
ATF_TC_BODY(read_ok, tc)
{
	char	out[SECRETFILE_MAX + 1], why[256];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	put("tok", "ghp_abc 123\n", 12, 0600);
	ATF_CHECK(secretfile_read("tok", cwd, getuid(), out, sizeof(out),
	    why, sizeof(why)) == 0);
	ATF_CHECK_STREQ("ghp_abc 123", out);
	put("tok", "v\r\n", 3, 0400);
	ATF_CHECK(secretfile_read("~/tok", cwd, getuid(), out, sizeof(out),
	    why, sizeof(why)) == 0);
	ATF_CHECK_STREQ("v", out);
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	char	want[2 * PATH_MAX + 256], big[SECRETFILE_MAX + 2];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	put("open", "v\n", 2, 0640);
	(void)snprintf(want, sizeof(want), "%s/open is open to group/other "
	    "(mode 0640): run chmod 600 %s/open", cwd, cwd);
	ATF_CHECK_STREQ(want, bad("~/open", getuid()));
	put("tok", "v\n", 2, 0600);
	(void)snprintf(want, sizeof(want), "tok: not the owner's file (uid "
	    "%u)", (unsigned int)getuid());
	ATF_CHECK_STREQ(want, bad("tok", getuid() + 1));
	ATF_REQUIRE(symlink("tok", "link") == 0);
	ATF_CHECK_STREQ("link: Too many levels of symbolic links (a symlink: "
	    "name the file itself)", bad("link", getuid()));
	ATF_CHECK_STREQ("nope: No such file or directory",
	    bad("nope", getuid()));
	ATF_REQUIRE(mkdir("dir", 0700) == 0);
	ATF_CHECK_STREQ("dir: not a regular file", bad("dir", getuid()));
	put("empty", "\n", 1, 0600);
	ATF_CHECK_STREQ("empty: empty", bad("empty", getuid()));
	put("two", "a\nb\n", 4, 0600);
	ATF_CHECK_STREQ("two: the value must be one line of printable ASCII "
	    "(byte 2 is not)", bad("two", getuid()));
	memset(big, 'x', sizeof(big));
	put("big", big, sizeof(big), 0600);
	ATF_CHECK_STREQ("big: longer than 4096 bytes", bad("big", getuid()));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, read_ok);
	ATF_TP_ADD_TC(tp, refused);
	return atf_no_error();
}
