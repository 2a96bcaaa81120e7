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
 * The registry of repositories (reporeg.c): what it keeps, what it
 * refuses, and that a file it wrote reads back the same.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "reporeg.h"

static struct reporeg	r, back;
static char		err[256];

static int
parse(const char *s)
{
	return reporeg_parse(s, strlen(s), &r, err, sizeof(err));
}

ATF_TC_WITHOUT_HEAD(paths);
ATF_TC_BODY(paths, tc)
{
	ATF_CHECK(reporeg_path_ok("/home/me/src/proj"));
	ATF_CHECK(reporeg_path_ok("/"));
	ATF_CHECK(reporeg_path_ok("/a/.hidden/b..c"));
	ATF_CHECK(!reporeg_path_ok(""));
	ATF_CHECK(!reporeg_path_ok("relative/path"));
	ATF_CHECK(!reporeg_path_ok("/a/../b"));
	ATF_CHECK(!reporeg_path_ok("/a/./b"));
	ATF_CHECK(!reporeg_path_ok("/a/.."));
	ATF_CHECK(!reporeg_path_ok("/a//b"));
	ATF_CHECK(!reporeg_path_ok("/a/b/"));
	ATF_CHECK(!reporeg_path_ok("/a\tb"));
	ATF_CHECK(!reporeg_path_ok("/a\nb"));
	ATF_CHECK(!reporeg_path_ok("/a\033[2Jb"));
}

ATF_TC_WITHOUT_HEAD(set_find_rm);
ATF_TC_BODY(set_find_rm, tc)
{
	memset(&r, 0, sizeof(r));
	ATF_REQUIRE(reporeg_set(&r, "proj", "/home/me/proj") == 0);
	ATF_REQUIRE(reporeg_set(&r, "other-2", "/srv/other") == 0);
	/* a second init of the same prefix moves it */
	ATF_REQUIRE(reporeg_set(&r, "proj", "/home/me/proj2") == 0);
	ATF_CHECK_EQ(r.n, 2);
	ATF_CHECK_STREQ(reporeg_find(&r, "proj")->path, "/home/me/proj2");
	ATF_CHECK(reporeg_find(&r, "pro") == NULL);
	/* what is no container prefix, or no plain path, is never kept */
	ATF_CHECK(reporeg_set(&r, "Proj", "/x") == -1);
	ATF_CHECK(reporeg_set(&r, "-x", "/x") == -1);
	ATF_CHECK(reporeg_set(&r, "a b", "/x") == -1);
	ATF_CHECK(reporeg_set(&r, "x", "x") == -1);
	ATF_CHECK_EQ(r.n, 2);
	ATF_CHECK(reporeg_rm(&r, "proj") == 0);
	ATF_CHECK(reporeg_rm(&r, "proj") == -1);
	ATF_CHECK_EQ(r.n, 1);
	ATF_CHECK_STREQ(r.e[0].prefix, "other-2");
}

ATF_TC_WITHOUT_HEAD(full);
ATF_TC_BODY(full, tc)
{
	char	p[16];
	int	i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < REPOREG_MAX; i++) {
		snprintf(p, sizeof(p), "r%d", i);
		ATF_REQUIRE(reporeg_set(&r, p, "/x") == 0);
	}
	ATF_CHECK(reporeg_set(&r, "one-more", "/x") == -1);
	/* replacing one stays possible */
	ATF_CHECK(reporeg_set(&r, "r3", "/y") == 0);
}

ATF_TC_WITHOUT_HEAD(parse_and_format);
ATF_TC_BODY(parse_and_format, tc)
{
	char	*buf;
	long	 n;

	ATF_REQUIRE(parse("proj\t/home/me/proj\nb\t/srv/b c\n") == 0);
	ATF_CHECK_EQ(r.n, 2);
	ATF_CHECK_STREQ(reporeg_find(&r, "b")->path, "/srv/b c");
	ATF_REQUIRE((buf = malloc(REPOREG_FILE_MAX)) != NULL);
	n = reporeg_format(&r, buf, REPOREG_FILE_MAX);
	ATF_REQUIRE(n > 0);
	ATF_CHECK(reporeg_parse(buf, (size_t)n, &back, err, sizeof(err)) ==
	    0);
	ATF_CHECK_EQ(back.n, 2);
	ATF_CHECK_STREQ(back.e[1].path, "/srv/b c");
	/* too small a buffer is said, not cut */
	ATF_CHECK(reporeg_format(&r, buf, 10) == -1);
	free(buf);
	ATF_CHECK(parse("") == 0);
	ATF_CHECK_EQ(r.n, 0);
}

ATF_TC_WITHOUT_HEAD(parse_refusals);
ATF_TC_BODY(parse_refusals, tc)
{
	static const char nul[] = "a\t/x\0y\n";

	ATF_CHECK(parse("a\t/x") == -1);
	ATF_CHECK(strstr(err, "line 1: no newline") != NULL);
	ATF_CHECK(parse("a\t/x\nb /y\n") == -1);
	ATF_CHECK(strstr(err, "line 2: not PREFIX<tab>PATH") != NULL);
	ATF_CHECK(parse("a\t/x\na\t/y\n") == -1);
	ATF_CHECK_EQ(r.n, 0);
	ATF_CHECK(strstr(err, "line 2:") != NULL);
	ATF_CHECK(parse("A\t/x\n") == -1);
	ATF_CHECK(parse("a\t../x\n") == -1);
	ATF_CHECK(parse("a\t/x\t/y\n") == -1);
	ATF_CHECK(reporeg_parse(nul, sizeof(nul) - 1, &r, err,
	    sizeof(err)) == -1);
	/* nothing half-read is kept */
	ATF_CHECK_EQ(r.n, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, paths);
	ATF_TP_ADD_TC(tp, set_find_rm);
	ATF_TP_ADD_TC(tp, full);
	ATF_TP_ADD_TC(tp, parse_and_format);
	ATF_TP_ADD_TC(tp, parse_refusals);
	return atf_no_error();
}
