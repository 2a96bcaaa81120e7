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
 * The control socket's directory and chown: the
 * directory ends up root's and not writable by the owner, and giving
 * the socket to the owner never follows a symlink put in its place.
 * Needs root (chown); run from kyua's work directory.
 */

#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "sockdir.h"

#define OWNER	((uid_t)65534)
#define OTHER	((uid_t)65533)

static void
need_root(void)
{
	if (geteuid() != 0)
		atf_tc_skip("needs root: chown");
}

static void
mode_owner(const char *path, mode_t mode, uid_t uid)
{
	struct stat	st;

	ATF_REQUIRE(lstat(path, &st) == 0);
	ATF_CHECK_MSG((st.st_mode & 07777) == mode, "%s: mode %04o, not "
	    "%04o", path, (unsigned)(st.st_mode & 07777), (unsigned)mode);
	ATF_CHECK_MSG(st.st_uid == uid, "%s: uid %u, not %u", path,
	    (unsigned)st.st_uid, (unsigned)uid);
}

ATF_TC_WITHOUT_HEAD(dir_rules);
ATF_TC_BODY(dir_rules, tc)
{
	char	err[512];
	int	fd, taken;

	need_root();
	/* missing: made root's, 0755, whatever the umask */
	(void)umask(0);
	fd = sockdir_open("made", OWNER, &taken, err, sizeof(err));
	ATF_REQUIRE_MSG(fd != -1, "%s", err);
	ATF_CHECK(taken == 0);
	mode_owner("made", 0755, 0);
	(void)close(fd);
	(void)umask(022);
	/* the owner's, as made before: taken back */
	ATF_REQUIRE(mkdir("owners", 0775) == 0);
	ATF_REQUIRE(chown("owners", OWNER, OWNER) == 0);
	fd = sockdir_open("owners", OWNER, &taken, err, sizeof(err));
	ATF_REQUIRE_MSG(fd != -1, "%s", err);
	ATF_CHECK(taken == 1);
	mode_owner("owners", 0755, 0);
	(void)close(fd);
	/* someone else's: refused */
	ATF_REQUIRE(mkdir("others", 0755) == 0);
	ATF_REQUIRE(chown("others", OTHER, OTHER) == 0);
	ATF_CHECK(sockdir_open("others", OWNER, &taken, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "belongs to uid 65533") != NULL, "%s", err);
	/* root's but writable by others: refused, left as it is */
	ATF_REQUIRE(mkdir("open", 0755) == 0);
	ATF_REQUIRE(chmod("open", 01777) == 0);
	ATF_CHECK(sockdir_open("open", OWNER, &taken, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "writable by group or others (mode "
	    "1777)") != NULL, "%s", err);
	mode_owner("open", 01777, 0);
	/* a symlink to a directory: refused, not followed */
	ATF_REQUIRE(symlink("owners", "link") == 0);
	ATF_CHECK(sockdir_open("link", OWNER, &taken, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "not a symlink") != NULL, "%s", err);
}

ATF_TC_WITHOUT_HEAD(give_nofollow);
ATF_TC_BODY(give_nofollow, tc)
{
	char	err[512];
	int	dfd, fd, taken;

	need_root();
	dfd = sockdir_open("run", OWNER, &taken, err, sizeof(err));
	ATF_REQUIRE_MSG(dfd != -1, "%s", err);
	/* the socket: bound 0600, then the owner's */
	ATF_REQUIRE((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(sockdir_bind(fd, dfd, "s.sock") == 0);
	mode_owner("run/s.sock", 0600, 0);
	ATF_CHECK_MSG(sockdir_give(dfd, "s.sock", OWNER, OWNER, err,
	    sizeof(err)) == 0, "%s", err);
	mode_owner("run/s.sock", 0600, OWNER);
	(void)close(fd);
	/*
	 * The name swapped for a symlink to root's file (what the owner
	 * could do in the owner's directory before): the file stays root's.
	 */
	ATF_REQUIRE(unlink("run/s.sock") == 0);
	fd = open("victim", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ATF_REQUIRE(fd != -1);
	(void)close(fd);
	ATF_REQUIRE(symlink("../victim", "run/s.sock") == 0);
	ATF_CHECK(sockdir_give(dfd, "s.sock", OWNER, OWNER, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "is not the socket bound there") != NULL,
	    "%s", err);
	mode_owner("victim", 0600, 0);
	(void)close(dfd);
	/* a name with a slash is never bound */
	ATF_REQUIRE((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	dfd = open("run", O_RDONLY | O_DIRECTORY);
	ATF_CHECK(sockdir_bind(fd, dfd, "../x.sock") == -1 && errno == EINVAL);
	(void)close(fd);
	(void)close(dfd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, dir_rules);
	ATF_TP_ADD_TC(tp, give_nofollow);
	return atf_no_error();
}
