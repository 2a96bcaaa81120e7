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
 * Text from a container on its way to a terminal (termsafe.c): nothing
 * that steers a terminal gets through, well-formed UTF-8 does.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "termrelay.h"
#include "termsafe.h"

static void
check(const char *in, const char *want)
{
	char	buf[256];

	strlcpy(buf, in, sizeof(buf));
	ATF_CHECK_STREQ_MSG(termsafe(buf), want, "termsafe(\"%s\")", want);
}

ATF_TC_WITHOUT_HEAD(controls);
ATF_TC_BODY(controls, tc)
{
	check("plain text, tab\tkept", "plain text, tab\tkept");
	check("\033[2J\033]0;title\007", "?[2J?]0;title?");
	check("a\rb\nc\bd\x7f", "a?b?c?d?");
	/* the C1 controls, as UTF-8 (CSI is U+009B) and as lone bytes */
	check("x\xc2\x9b" "31m", "x??31m");
	check("x\x9b" "31m", "x?31m");
	check("\xc2\x80\xc2\x9f", "????");
}

ATF_TC_WITHOUT_HEAD(utf8);
ATF_TC_BODY(utf8, tc)
{
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9d \xc2\xa0",
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9d \xc2\xa0");
	/* truncated, overlong, surrogate, beyond U+10FFFF, stray */
	check("a\xc3", "a?");
	check("\xe2\x82", "??");
	check("\xc0\x80", "??");
	check("\xe0\x80\x80", "???");
	check("\xed\xa0\x80", "???");
	check("\xf4\x90\x80\x80", "????");
	check("\xbf\xff", "??");
	check("", "");
}

static size_t
slurp(int fd, char *buf, size_t len)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
	return got;
}

/*
 * A program's two streams relayed to two others: every line through
 * termsafe, a NUL too; a line longer than the relay's buffer is cut into
 * pieces, none lost; the last line without its newline still comes
 */
ATF_TC_WITHOUT_HEAD(relay);
ATF_TC_BODY(relay, tc)
{
	static const char	 out1[] = "commit \033]0;title\007\n"
	    "caf\xc3\xa9\ttab\n";
	static const char	 err1[] = "remote: \033[2J\r\x9b" "done";
	int			 in[2], er[2], o[2], e[2];
	char			*big, *got;
	size_t			 n;

	ATF_REQUIRE(pipe(in) == 0 && pipe(er) == 0 && pipe(o) == 0 &&
	    pipe(e) == 0);
	ATF_REQUIRE((big = malloc(20000)) != NULL);
	ATF_REQUIRE((got = malloc(40000)) != NULL);
	memset(big, 'x', 20000);
	big[100] = '\0';
	ATF_REQUIRE(write(in[1], out1, sizeof(out1) - 1) ==
	    (ssize_t)sizeof(out1) - 1);
	ATF_REQUIRE(write(in[1], big, 20000) == 20000);
	ATF_REQUIRE(write(er[1], err1, sizeof(err1) - 1) ==
	    (ssize_t)sizeof(err1) - 1);
	close(in[1]);
	close(er[1]);
	ATF_CHECK_EQ(termrelay(in[0], er[0], o[1], e[1]), 0);
	close(o[1]);
	close(e[1]);
	n = slurp(o[0], got, 40000);
	ATF_CHECK_EQ(n, strlen("commit ?]0;title?\ncaf\xc3\xa9\ttab\n") +
	    20000);
	ATF_CHECK(strncmp(got, "commit ?]0;title?\ncaf\xc3\xa9\ttab\n",
	    strlen("commit ?]0;title?\ncaf\xc3\xa9\ttab\n")) == 0);
	ATF_CHECK(strchr(got, '\033') == NULL);
	ATF_CHECK(got[strlen("commit ?]0;title?\ncaf\xc3\xa9\ttab\n") +
	    100] == '?');
	slurp(e[0], got, 40000);
	ATF_CHECK_STREQ(got, "remote: ?[2J??done");
	free(big);
	free(got);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controls);
	ATF_TP_ADD_TC(tp, utf8);
	ATF_TP_ADD_TC(tp, relay);
	return atf_no_error();
}
