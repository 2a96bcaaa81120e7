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
 * SFTP's virtual tree (sftppath.c): what the parent accepts of a path a
 * session sends, and REALPATH; the helper's records (sftprec.c), which
 * come from the container.
 */

#include <string.h>

#include <atf-c.h>

#include "sftppath.h"
#include "sftprec.h"

static void
split_ok(const char *path, int kind, const char *ctr, const char *rel)
{
	char		 c[64], r[1024];
	const char	*why;

	ATF_CHECK_EQ_MSG(sftppath_split(path, c, sizeof(c), r, sizeof(r),
	    &why), kind, "split(\"%s\")", path);
	if (kind != SFTPPATH_ROOT) {
		ATF_CHECK_STREQ_MSG(c, ctr, "split(\"%s\") container", path);
		ATF_CHECK_STREQ_MSG(r, rel, "split(\"%s\") rel", path);
	}
}

static void
split_bad(const char *path, const char *want)
{
	char		 c[64], r[1024];
	const char	*why = NULL;

	ATF_CHECK_EQ_MSG(sftppath_split(path, c, sizeof(c), r, sizeof(r),
	    &why), -1, "split(\"%s\") accepted", path);
	ATF_CHECK_MSG(why != NULL && strstr(why, want) != NULL,
	    "split(\"%s\"): \"%s\", not \"%s\"", path, why ? why : "", want);
}

ATF_TC_WITHOUT_HEAD(split);
ATF_TC_BODY(split, tc)
{
	char	long_name[300], ctr_name[100];

	split_ok("/", SFTPPATH_ROOT, "", "");
	split_ok("//./", SFTPPATH_ROOT, "", "");
	split_ok("/c1", SFTPPATH_TOP, "c1", ".");
	split_ok("/c1/./", SFTPPATH_TOP, "c1", ".");
	split_ok("/c1/a//b/./c", SFTPPATH_IN, "c1", "a/b/c");
	split_ok("/c1/caf\xc3\xa9", SFTPPATH_IN, "c1", "caf\xc3\xa9");
	split_bad("/c1/..", "leaves the repository");
	split_bad("/c1/a/../b", "leaves the repository");
	split_bad("/../etc", "leaves the repository");
	split_bad("c1/a", "not absolute");
	split_bad("", "not absolute");
	split_bad("/c1/\xff", "not UTF-8");
	split_bad("/c1/\xc0\xaf", "not UTF-8");
	split_bad("/c1/\xed\xa0\x80", "not UTF-8");
	split_bad("/c1/a\nb", "not UTF-8");
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[0] = '/';
	long_name[sizeof(long_name) - 1] = '\0';
	split_bad(long_name, "name too long");
	memset(ctr_name, 'x', sizeof(ctr_name) - 1);
	ctr_name[0] = '/';
	ctr_name[sizeof(ctr_name) - 1] = '\0';
	split_bad(ctr_name, "no such container");
}

static void
canon(const char *path, const char *want)
{
	char	out[1024];

	ATF_CHECK_EQ(sftppath_canon(NULL, path, out, sizeof(out)), 0);
	ATF_CHECK_STREQ_MSG(out, want, "canon(\"%s\")", path);
}

ATF_TC_WITHOUT_HEAD(realpath);
ATF_TC_BODY(realpath, tc)
{
	char	out[8];

	canon(".", "/");
	canon("", "/");
	canon("/c1/a/..", "/c1");
	canon("/c1/../../..", "/");
	canon("c1//b/./", "/c1/b");
	ATF_CHECK_EQ(sftppath_canon(NULL, "/abcdefgh", out, sizeof(out)), -1);
}

ATF_TC_WITHOUT_HEAD(records);
ATF_TC_BODY(records, tc)
{
	struct sftprec		 r;
	struct sftprec_hdr	 h;
	struct sftprec_attr	 a;
	char			 buf[512];
	size_t			 used;
	int32_t			 st = 13;

	h.type = SFTPREC_STATUS;
	h.len = 4;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &st, 4);
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + 4, &r, &used), 1);
	ATF_CHECK_EQ(r.status, 13);
	ATF_CHECK_EQ(used, sizeof(h) + 4);
	/* short: more is needed */
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + 3, &r, &used), 0);
	/* a status of another length, an unknown type: not believed */
	h.len = 5;
	memcpy(buf, &h, sizeof(h));
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + 5, &r, &used), -1);
	h.type = 99;
	memcpy(buf, &h, sizeof(h));
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(buf), &r, &used), -1);
	/* an attribute with its name; a slash or bad UTF-8 in it refused */
	memset(&a, 0, sizeof(a));
	a.size = 42;
	a.namelen = 3;
	h.type = SFTPREC_ATTR;
	h.len = sizeof(a) + 3;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &a, sizeof(a));
	memcpy(buf + sizeof(h) + sizeof(a), "abc", 3);
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + h.len, &r, &used), 1);
	ATF_CHECK_STREQ(r.name, "abc");
	ATF_CHECK_EQ(r.attr.size, 42);
	memcpy(buf + sizeof(h) + sizeof(a), "a/c", 3);
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + h.len, &r, &used), -1);
	memcpy(buf + sizeof(h) + sizeof(a), "a\xff" "c", 3);
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + h.len, &r, &used), -1);
	/* namelen must match the record's length */
	a.namelen = 2;
	memcpy(buf + sizeof(h), &a, sizeof(a));
	ATF_CHECK_EQ(sftprec_next(buf, sizeof(h) + h.len, &r, &used), -1);
}

/*
 * Names and link targets the container chose reach a client's terminal
 * printable: ESC, BEL, DEL and the C1 controls become '?'
 */
ATF_TC_WITHOUT_HEAD(names_printable);
ATF_TC_BODY(names_printable, tc)
{
	static const char	 name[] = "a\033]0;x\007\x7f\xc2\x9b" "b";
	static const char	 link[] = "../\033[2J";
	struct sftprec		 r;
	struct sftprec_hdr	 h;
	struct sftprec_attr	 a;
	char			 buf[512];
	size_t			 used, n = sizeof(name) - 1;

	memset(&a, 0, sizeof(a));
	a.namelen = n;
	h.type = SFTPREC_ATTR;
	h.len = sizeof(a) + n;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &a, sizeof(a));
	memcpy(buf + sizeof(h) + sizeof(a), name, n);
	ATF_REQUIRE_EQ(sftprec_next(buf, sizeof(h) + h.len, &r, &used), 1);
	ATF_CHECK_STREQ(r.name, "a?]0;x????" "b");
	h.type = SFTPREC_LINK;
	h.len = sizeof(link) - 1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), link, h.len);
	ATF_REQUIRE_EQ(sftprec_next(buf, sizeof(h) + h.len, &r, &used), 1);
	ATF_CHECK_STREQ(r.name, "../?[2J");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, split);
	ATF_TP_ADD_TC(tp, realpath);
	ATF_TP_ADD_TC(tp, records);
	ATF_TP_ADD_TC(tp, names_printable);
	return atf_no_error();
}
