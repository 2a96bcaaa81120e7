/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* the /etc/hosts managed block: lines, checks and the merge */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "hostspin.h"

#define B	HOSTSPIN_BEGIN "\n"
#define E	HOSTSPIN_END "\n"

static void
merge_is(const char *old, const char *block, const char *want)
{
	char	*out;
	size_t	 len;

	ATF_REQUIRE(hostspin_merge(old, strlen(old), block, strlen(block),
	    &out, &len) == 0);
	ATF_CHECK_EQ_MSG(len, strlen(want), "got \"%.*s\"", (int)len, out);
	ATF_CHECK_MSG(len == strlen(want) && memcmp(out, want, len) == 0,
	    "got \"%.*s\", want \"%s\"", (int)len, out, want);
	free(out);
}

ATF_TC_WITHOUT_HEAD(valid);
ATF_TC_BODY(valid, tc)
{
	const char	*good[] = {
		"", "192.0.2.1 a.example\n",
		"192.0.2.1 a.example\n198.51.100.14 rot.test\n",
		"10.0.0.1 x-y.z9\n",
	};
	const char	*bad[] = {
		"192.0.2.1 a.example",		/* no newline */
		"192.0.2.1  a.example\n",	/* two spaces */
		"192.0.2.1 A.example\n",	/* upper case */
		"192.0.2.01 a.example\n",	/* a leading zero */
		"1.2.3 a.example\n",		/* short form */
		"::1 a.example\n",		/* IPv6 */
		"192.0.2.1 a.example # x\n",
		"192.0.2.1 -a.example\n", "192.0.2.1 a-.example\n",
		"192.0.2.1 a..example\n", "192.0.2.1 .a\n", "192.0.2.1 a.\n",
		"192.0.2.1\n", " a.example\n", "\n",
		"192.0.2.1 a.example\n" HOSTSPIN_END "\n",
		"192.0.2.1 a\nexample\n",
	};
	size_t		 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ATF_CHECK_MSG(hostspin_valid(good[i], strlen(good[i])),
		    "refused \"%s\"", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_MSG(!hostspin_valid(bad[i], strlen(bad[i])),
		    "accepted \"%s\"", bad[i]);
	/* a NUL inside is no line of ours either */
	ATF_CHECK(!hostspin_valid("192.0.2.1 a\0b\n", 14));
}

ATF_TC_WITHOUT_HEAD(line);
ATF_TC_BODY(line, tc)
{
	char	buf[64];

	ATF_REQUIRE(hostspin_line(0xc633640e, "rot.test", buf,
	    sizeof(buf)) == 0);
	ATF_CHECK_STREQ(buf, "198.51.100.14 rot.test\n");
	ATF_CHECK(hostspin_line(0xc633640e, "Rot.test", buf,
	    sizeof(buf)) == -1);
	ATF_CHECK(hostspin_line(0xc633640e, "rot.test", buf, 10) == -1);
}

ATF_TC_WITHOUT_HEAD(merge);
ATF_TC_BODY(merge, tc)
{
	const char	*blk = "192.0.2.1 a.example\n";

	/* appended, then replaced where the old one was, then taken out */
	merge_is("127.0.0.1 localhost\n", blk,
	    "127.0.0.1 localhost\n" B "192.0.2.1 a.example\n" E);
	merge_is("127.0.0.1 localhost\n" B "192.0.2.9 old.example\n" E
	    "10.1.1.1 mine\n", blk,
	    "127.0.0.1 localhost\n" B "192.0.2.1 a.example\n" E
	    "10.1.1.1 mine\n");
	merge_is("127.0.0.1 localhost\n" B "192.0.2.9 old.example\n" E
	    "10.1.1.1 mine\n", "",
	    "127.0.0.1 localhost\n10.1.1.1 mine\n");
	/* nothing to take out: the file as it was, to the byte */
	merge_is("127.0.0.1 localhost", "", "127.0.0.1 localhost");
	merge_is("", "", "");
	merge_is("\t# odd  spacing \r\n\n", "", "\t# odd  spacing \r\n\n");
	/* a last line without its newline gets one before the block */
	merge_is("127.0.0.1 localhost", blk,
	    "127.0.0.1 localhost\n" B "192.0.2.1 a.example\n" E);
	merge_is("", blk, B "192.0.2.1 a.example\n" E);
	/* a cut-off block of ours runs to the end of the file */
	merge_is("127.0.0.1 localhost\n" B "192.0.2.9 old.ex", blk,
	    "127.0.0.1 localhost\n" B "192.0.2.1 a.example\n" E);
	/* two blocks (an edit gone wrong): both go, the new one at the first */
	merge_is(B "192.0.2.9 x\n" E "10.1.1.1 mine\n" B E, "",
	    "10.1.1.1 mine\n");
	merge_is("10.1.1.2 a\n" B "192.0.2.9 x\n" E "10.1.1.1 mine\n" B E,
	    blk, "10.1.1.2 a\n" B "192.0.2.1 a.example\n" E
	    "10.1.1.1 mine\n");
	/* an END without its newline at the end of the file */
	merge_is("10.1.1.2 a\n" B "192.0.2.9 x\n" HOSTSPIN_END, blk,
	    "10.1.1.2 a\n" B "192.0.2.1 a.example\n" E);
	/* sentinels with trailing blanks or CR still count */
	merge_is(HOSTSPIN_BEGIN " \r\n192.0.2.9 x\n" HOSTSPIN_END "\t\n"
	    "10.1.1.1 mine\n", "", "10.1.1.1 mine\n");
	/* a user line that only mentions the sentinel is the user's */
	merge_is("#" HOSTSPIN_BEGIN "\n", "", "#" HOSTSPIN_BEGIN "\n");
	merge_is("10.1.1.1 mine " HOSTSPIN_BEGIN "\n", "",
	    "10.1.1.1 mine " HOSTSPIN_BEGIN "\n");
	/* an END alone is the user's line too */
	merge_is(E, "", E);
}

ATF_TC_WITHOUT_HEAD(idempotent);
ATF_TC_BODY(idempotent, tc)
{
	const char	*old = "127.0.0.1 localhost\n10.1.1.1 mine";
	const char	*blk = "192.0.2.1 a.example\n192.0.2.2 a.example\n";
	char		*a, *b;
	size_t		 al, bl;

	ATF_REQUIRE(hostspin_merge(old, strlen(old), blk, strlen(blk), &a,
	    &al) == 0);
	ATF_REQUIRE(hostspin_merge(a, al, blk, strlen(blk), &b, &bl) == 0);
	ATF_CHECK(al == bl && memcmp(a, b, al) == 0);
	free(b);
	ATF_REQUIRE(hostspin_merge(a, al, "", 0, &b, &bl) == 0);
	ATF_CHECK_EQ(bl, strlen(old) + 1);
	ATF_CHECK(memcmp(b, "127.0.0.1 localhost\n10.1.1.1 mine\n", bl) == 0);
	free(a);
	free(b);
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	char	*big, *out;
	size_t	 len;

	ATF_REQUIRE((big = malloc(HOSTSPIN_FILE_MAX + 1)) != NULL);
	memset(big, '#', HOSTSPIN_FILE_MAX + 1);
	ATF_CHECK(hostspin_merge(big, HOSTSPIN_FILE_MAX + 1, "", 0, &out,
	    &len) == -1);
	ATF_CHECK(out == NULL);
	/* at the limit, a block would take it over */
	ATF_CHECK(hostspin_merge(big, HOSTSPIN_FILE_MAX, "192.0.2.1 a\n", 12,
	    &out, &len) == -1);
	ATF_REQUIRE(hostspin_merge(big, HOSTSPIN_FILE_MAX, "", 0, &out,
	    &len) == 0);
	ATF_CHECK_EQ(len, HOSTSPIN_FILE_MAX);
	free(out);
	free(big);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, valid);
	ATF_TP_ADD_TC(tp, line);
	ATF_TP_ADD_TC(tp, merge);
	ATF_TP_ADD_TC(tp, idempotent);
	ATF_TP_ADD_TC(tp, limits);
	return atf_no_error();
}
