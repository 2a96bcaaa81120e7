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
 * The SSH exec line splitter: the quoting rules of jb-sshd(8) and every
 * refusal (shell syntax, control characters, unterminated quotes).
 */

#include <string.h>

#include <atf-c.h>

#include "jb_msg.h"
#include "sshargv.h"

static char	out[JB_ARGV_MAX];
static char	err[256];

/* split s; return argc, or -1 */
static int
split(const char *s)
{
	int	argc;

	memset(out, 0x55, sizeof(out));
	if (sshargv_split(s, strlen(s), out, sizeof(out), &argc, err,
	    sizeof(err)) == -1)
		return -1;
	return argc;
}

/* the i-th word of the last split */
static const char *
word(int i)
{
	const char	*p = out;

	while (i-- > 0)
		p += strlen(p) + 1;
	return p;
}

ATF_TC_WITHOUT_HEAD(plain_words);
ATF_TC_BODY(plain_words, tc)
{
	ATF_REQUIRE_EQ(split("ls"), 1);
	ATF_CHECK_STREQ(word(0), "ls");
	ATF_REQUIRE_EQ(split("  exec\tbox  --  echo hi "), 5);
	ATF_CHECK_STREQ(word(0), "exec");
	ATF_CHECK_STREQ(word(1), "box");
	ATF_CHECK_STREQ(word(2), "--");
	ATF_CHECK_STREQ(word(3), "echo");
	ATF_CHECK_STREQ(word(4), "hi");
}

ATF_TC_WITHOUT_HEAD(quoting);
ATF_TC_BODY(quoting, tc)
{
	ATF_REQUIRE_EQ(split("echo 'a b' \"c d\""), 3);
	ATF_CHECK_STREQ(word(1), "a b");
	ATF_CHECK_STREQ(word(2), "c d");
	/* single quotes keep backslashes and double quotes */
	ATF_REQUIRE_EQ(split("x 'a\\\"b'"), 2);
	ATF_CHECK_STREQ(word(1), "a\\\"b");
	/* inside double quotes only \" and \\ are escapes */
	ATF_REQUIRE_EQ(split("x \"a\\\"b\\\\c\\n\""), 2);
	ATF_CHECK_STREQ(word(1), "a\"b\\c\\n");
	/* outside quotes a backslash keeps the next character */
	ATF_REQUIRE_EQ(split("x a\\ b \\|"), 3);
	ATF_CHECK_STREQ(word(1), "a b");
	ATF_CHECK_STREQ(word(2), "|");
	/* quotes join pieces of one word; '' is an empty word */
	ATF_REQUIRE_EQ(split("x ab'c d'\"e\" ''"), 3);
	ATF_CHECK_STREQ(word(1), "abc de");
	ATF_CHECK_STREQ(word(2), "");
	/* quoted shell syntax is plain text, never expanded */
	ATF_REQUIRE_EQ(split("x '$HOME' \"`id`\" '*' '|'"), 5);
	ATF_CHECK_STREQ(word(1), "$HOME");
	ATF_CHECK_STREQ(word(2), "`id`");
	ATF_CHECK_STREQ(word(3), "*");
	ATF_CHECK_STREQ(word(4), "|");
	/* globs are not shell syntax to refuse: just characters */
	ATF_REQUIRE_EQ(split("x * ?"), 3);
	ATF_CHECK_STREQ(word(1), "*");
}

ATF_TC_WITHOUT_HEAD(refusals);
ATF_TC_BODY(refusals, tc)
{
	static const char *const bad[] = {
		"", "   ", "ls | sh", "ls; id", "ls && id", "ls > /tmp/x",
		"ls < x", "echo $HOME", "echo `id`", "echo $(id)", "a (b)",
		"echo 'open", "echo \"open", "echo back\\", "a\nb", "a\rb",
		"a\x1b[2Jb", "a\x7f", "a \"b\x01\"", "a 'b\x02'", "a\\\x03",
		NULL
	};
	int	i;

	for (i = 0; bad[i] != NULL; i++)
		ATF_CHECK_MSG(split(bad[i]) == -1, "accepted #%d", i);
	ATF_CHECK(split("ls; id") == -1 && strstr(err, "quote") != NULL);
	ATF_CHECK(split("a 'b") == -1 && strstr(err, "unterminated") != NULL);
}

ATF_TC_WITHOUT_HEAD(nul_refused);
ATF_TC_BODY(nul_refused, tc)
{
	int	argc;

	ATF_CHECK(sshargv_split("ls\0id", 5, out, sizeof(out), &argc, err,
	    sizeof(err)) == -1);
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	char	line[2 * (SSHARGV_MAXARGS + 2)], small[8];
	int	i, argc;

	for (i = 0; i < SSHARGV_MAXARGS; i++) {
		line[2 * i] = 'a';
		line[2 * i + 1] = ' ';
	}
	line[2 * i] = '\0';
	ATF_CHECK_EQ(split(line), SSHARGV_MAXARGS);
	line[2 * i] = 'b';
	line[2 * i + 1] = '\0';
	ATF_CHECK_EQ(split(line), -1);
	/* the output never overflows: "abcdefgh" needs 9 bytes */
	ATF_CHECK(sshargv_split("abcdefgh", 8, small, sizeof(small), &argc,
	    err, sizeof(err)) == -1);
	ATF_CHECK(sshargv_split("abcdefg", 7, small, sizeof(small), &argc,
	    err, sizeof(err)) == 0 && argc == 1);
	ATF_CHECK(sshargv_split("a b c d", 7, small, sizeof(small), &argc,
	    err, sizeof(err)) == 0 && argc == 4);
	ATF_CHECK(sshargv_split("a b c d e", 9, small, sizeof(small), &argc,
	    err, sizeof(err)) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, plain_words);
	ATF_TP_ADD_TC(tp, quoting);
	ATF_TP_ADD_TC(tp, refusals);
	ATF_TP_ADD_TC(tp, nul_refused);
	ATF_TP_ADD_TC(tp, limits);
	return atf_no_error();
}
