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

#include <string.h>

#include <atf-c.h>

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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controls);
	ATF_TP_ADD_TC(tp, utf8);
	return atf_no_error();
}
