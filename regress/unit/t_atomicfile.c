/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* a state file is replaced whole or not at all, never through a symlink */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "atomicfile.h"

static void
expect(const char *path, const char *want)
{
	char	buf[256];
	ssize_t	n;
	int	fd;

	ATF_REQUIRE((fd = open(path, O_RDONLY)) != -1);
	ATF_REQUIRE((n = read(fd, buf, sizeof(buf) - 1)) >= 0);
	buf[n] = '\0';
	close(fd);
	ATF_CHECK_STREQ(buf, want);
}

ATF_TC_WITHOUT_HEAD(replaces_whole);
ATF_TC_BODY(replaces_whole, tc)
{
	struct stat	st;
	int		dfd;

	ATF_REQUIRE(mkdir("d", 0700) == 0);
	ATF_REQUIRE((dfd = open("d", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE(atomic_save_at(dfd, "state", "one\n", 4, 0600) == 0);
	expect("d/state", "one\n");
	ATF_REQUIRE(atomic_save_at(dfd, "state", "two, longer\n", 12,
	    0600) == 0);
	expect("d/state", "two, longer\n");
	ATF_REQUIRE(stat("d/state", &st) == 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0600);
	ATF_CHECK(access("d/state.tmp", F_OK) == -1 && errno == ENOENT);
	ATF_REQUIRE(atomic_save_at(dfd, "empty", "", 0, 0600) == 0);
	expect("d/empty", "");
	close(dfd);
}

ATF_TC_WITHOUT_HEAD(never_through_a_symlink);
ATF_TC_BODY(never_through_a_symlink, tc)
{
	int	dfd;

	ATF_REQUIRE(mkdir("d", 0700) == 0);
	ATF_REQUIRE((dfd = open("d", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE(atomic_save_at(dfd, "state", "kept\n", 5, 0600) == 0);
	ATF_REQUIRE(open("victim", O_WRONLY | O_CREAT, 0600) != -1);
	ATF_REQUIRE(symlink("../victim", "d/state.tmp") == 0);
	ATF_CHECK_EQ(atomic_save_at(dfd, "state", "new\n", 4, 0600), -1);
	ATF_CHECK_EQ(errno, ELOOP);
	expect("d/state", "kept\n");
	expect("victim", "");
	close(dfd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, replaces_whole);
	ATF_TP_ADD_TC(tp, never_through_a_symlink);
	return atf_no_error();
}
