/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "duration.h"

#define FORMS	"(forms: 30s, 45m, 4h, 1h30m, or minutes as a bare number)"

static void
check_ok(const char *s, int64_t want)
{
	char	err[256] = "";
	int64_t	got = -12345;

	ATF_CHECK_MSG(duration_parse(s, 0, INT64_MAX, &got, err,
	    sizeof(err)) == 0, "\"%s\" refused: %s", s, err);
	ATF_CHECK_MSG(got == want, "\"%s\": got %lld, want %lld", s,
	    (long long)got, (long long)want);
}

/* the whole message: the input quoted, the reason, the accepted forms */
static void
check_bad(const char *s, int64_t min, int64_t max, const char *want)
{
	char	err[256] = "", full[256];
	int64_t	got = -12345;

	(void)snprintf(full, sizeof(full), "%s %s", want, FORMS);
	ATF_CHECK_MSG(duration_parse(s, min, max, &got, err,
	    sizeof(err)) == -1, "\"%s\" accepted", s);
	ATF_CHECK_MSG(got == -12345, "\"%s\": output written on error", s);
	ATF_CHECK_STREQ_MSG(full, err, "input \"%s\"", s);
}

ATF_TC_WITHOUT_HEAD(accepted_forms);
ATF_TC_BODY(accepted_forms, tc)
{
	check_ok("30s", 30);
	check_ok("45m", 45 * 60);
	check_ok("4h", 4 * 3600);
	check_ok("1h30m", 5400);
	check_ok("2h5m10s", 2 * 3600 + 5 * 60 + 10);
	check_ok("1h5s", 3605);
	check_ok("5m30s", 330);
	check_ok("0s", 0);
	check_ok("0", 0);
	check_ok("15", 15 * 60);	/* a bare number is minutes */
	check_ok("90m", 5400);		/* no carrying required */
	check_ok("100s", 100);
	check_ok("007m", 7 * 60);	/* leading zeros are harmless */
	check_ok("0h0m0s", 0);
}

ATF_TC_WITHOUT_HEAD(rejected_forms);
ATF_TC_BODY(rejected_forms, tc)
{
	check_bad("", 0, INT64_MAX, "duration \"\": empty");
	check_bad("m", 0, INT64_MAX,
	    "duration \"m\": expected a number at \"m\"");
	check_bad("-5m", 0, INT64_MAX,
	    "duration \"-5m\": expected a number at \"-5m\"");
	check_bad("+5m", 0, INT64_MAX,
	    "duration \"+5m\": expected a number at \"+5m\"");
	check_bad(" 5m", 0, INT64_MAX,
	    "duration \" 5m\": expected a number at \" 5m\"");
	check_bad("5 m", 0, INT64_MAX,
	    "duration \"5 m\": bad unit at \" m\" (use h, m or s)");
	check_bad("5m ", 0, INT64_MAX,
	    "duration \"5m \": expected a number at \" \"");
	check_bad("5d", 0, INT64_MAX,
	    "duration \"5d\": bad unit at \"d\" (use h, m or s)");
	check_bad("5M", 0, INT64_MAX,
	    "duration \"5M\": bad unit at \"M\" (use h, m or s)");
	check_bad("5ms", 0, INT64_MAX,
	    "duration \"5ms\": expected a number at \"s\"");
	check_bad("1.5h", 0, INT64_MAX,
	    "duration \"1.5h\": bad unit at \".5h\" (use h, m or s)");
	check_bad("1h30", 0, INT64_MAX,
	    "duration \"1h30\": missing unit after 30");
	check_bad("30m1h", 0, INT64_MAX,
	    "duration \"30m1h\": units must go h, m, s, each at most once");
	check_bad("1h1h", 0, INT64_MAX,
	    "duration \"1h1h\": units must go h, m, s, each at most once");
	check_bad("1s1m", 0, INT64_MAX,
	    "duration \"1s1m\": units must go h, m, s, each at most once");
	check_bad("5mx", 0, INT64_MAX,
	    "duration \"5mx\": expected a number at \"x\"");
	check_bad("0x10", 0, INT64_MAX,
	    "duration \"0x10\": bad unit at \"x10\" (use h, m or s)");
	check_bad("5m\n", 0, INT64_MAX,
	    "duration \"5m\\x0a\": expected a number at \"\\x0a\"");
}

ATF_TC_WITHOUT_HEAD(overflow);
ATF_TC_BODY(overflow, tc)
{
	/* INT64_MAX is 9223372036854775807 */
	check_ok("9223372036854775807s", INT64_MAX);
	check_bad("9223372036854775808s", 0, INT64_MAX,
	    "duration \"9223372036854775808s\": too large");
	check_bad("99999999999999999999999999s", 0, INT64_MAX,
	    "duration \"99999999999999999999999999s\": too large");
	check_bad("2562047788015216h", 0, INT64_MAX,
	    "duration \"2562047788015216h\": too large");
	check_ok("2562047788015215h", INT64_C(2562047788015215) * 3600);
	check_bad("153722867280912931m", 0, INT64_MAX,
	    "duration \"153722867280912931m\": too large");
	/* each group fits, the sum does not */
	check_bad("2562047788015215h3000m", 0, INT64_MAX,
	    "duration \"2562047788015215h3000m\": too large");
	check_bad("153722867280912931", 0, INT64_MAX,
	    "duration \"153722867280912931\": too large");
	check_ok("153722867280912930", INT64_C(153722867280912930) * 60);
}

ATF_TC_WITHOUT_HEAD(bounds);
ATF_TC_BODY(bounds, tc)
{
	char	err[256];
	int64_t	got;

	check_bad("25h", 1, DURATION_MAX_DEFAULT,
	    "duration \"25h\": must be at most 24h");
	check_bad("24h1s", 1, DURATION_MAX_DEFAULT,
	    "duration \"24h1s\": must be at most 24h");
	check_bad("1441", 1, DURATION_MAX_DEFAULT,
	    "duration \"1441\": must be at most 24h");
	check_bad("0s", 1, DURATION_MAX_DEFAULT,
	    "duration \"0s\": must be at least 1s");
	check_bad("0", 1, DURATION_MAX_DEFAULT,
	    "duration \"0\": must be at least 1s");
	check_bad("59s", 60, 3600 + 1800,
	    "duration \"59s\": must be at least 1m");
	check_bad("1h31m", 60, 3600 + 1800,
	    "duration \"1h31m\": must be at most 1h30m");

	ATF_CHECK(duration_parse("24h", 1, DURATION_MAX_DEFAULT, &got, err,
	    sizeof(err)) == 0 && got == DURATION_MAX_DEFAULT);
	ATF_CHECK(duration_parse("1440", 1, DURATION_MAX_DEFAULT, &got, err,
	    sizeof(err)) == 0 && got == DURATION_MAX_DEFAULT);
	ATF_CHECK(duration_parse("1s", 1, DURATION_MAX_DEFAULT, &got, err,
	    sizeof(err)) == 0 && got == 1);
}

ATF_TC_WITHOUT_HEAD(message_escaping);
ATF_TC_BODY(message_escaping, tc)
{
	char	err[256];
	int64_t	got;

	/* control bytes never reach a terminal; long input is cut */
	ATF_CHECK(duration_parse("\x1b[31m", 0, 60, &got, err,
	    sizeof(err)) == -1);
	ATF_CHECK(strchr(err, '\x1b') == NULL);
	ATF_CHECK_MATCH("^duration \"\\\\x1b\\[31m\"", err);
	ATF_CHECK(duration_parse("1111111111111111111111111111111111111111x",
	    0, 60, &got, err, sizeof(err)) == -1);
	ATF_CHECK_MATCH("^duration \"1{32}\\.\\.\\.\": too large", err);
	/* a short buffer is filled and terminated, never overrun */
	memset(err, 'Z', sizeof(err));
	ATF_CHECK(duration_parse("x", 0, 60, &got, err, 10) == -1);
	ATF_CHECK_STREQ("duration ", err);
	ATF_CHECK(err[10] == 'Z');
	ATF_CHECK(duration_parse("x", 0, 60, &got, NULL, 0) == -1);
}

ATF_TC_WITHOUT_HEAD(format);
ATF_TC_BODY(format, tc)
{
	char	b[64];

	ATF_CHECK_STREQ("0s", duration_fmt(0, b, sizeof(b)));
	ATF_CHECK_STREQ("45s", duration_fmt(45, b, sizeof(b)));
	ATF_CHECK_STREQ("1m", duration_fmt(60, b, sizeof(b)));
	ATF_CHECK_STREQ("2h", duration_fmt(7200, b, sizeof(b)));
	ATF_CHECK_STREQ("1h30m", duration_fmt(5400, b, sizeof(b)));
	ATF_CHECK_STREQ("1h5s", duration_fmt(3605, b, sizeof(b)));
	ATF_CHECK_STREQ("2h5m10s", duration_fmt(7510, b, sizeof(b)));
	ATF_CHECK_STREQ("24h", duration_fmt(86400, b, sizeof(b)));
	ATF_CHECK_STREQ("-1m1s", duration_fmt(-61, b, sizeof(b)));
	ATF_CHECK_STREQ("2562047788015215h30m7s",
	    duration_fmt(INT64_MAX, b, sizeof(b)));
	ATF_CHECK_STREQ("-2562047788015215h30m8s",
	    duration_fmt(INT64_MIN, b, sizeof(b)));
	/* truncation keeps a terminated prefix */
	ATF_CHECK_STREQ("1h3", duration_fmt(5400, b, 4));
	ATF_CHECK_STREQ("", duration_fmt(5400, b, 1));
	b[0] = 'Q';
	ATF_CHECK(duration_fmt(5400, b, 0) == b && b[0] == 'Q');
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	static const int64_t	 v[] = { 0, 1, 59, 60, 61, 3599, 3600, 3601,
	    3660, 5400, 86399, 86400, 90061, INT64_C(1) << 40, INT64_MAX };
	char			 b[64], err[256];
	int64_t			 got;
	size_t			 i;
	int64_t			 s;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		duration_fmt(v[i], b, sizeof(b));
		ATF_CHECK_MSG(duration_parse(b, 0, INT64_MAX, &got, err,
		    sizeof(err)) == 0 && got == v[i], "%lld -> %s -> %s",
		    (long long)v[i], b, err);
	}
	/* every second of a day and a bit */
	for (s = 0; s <= 90000; s++) {
		duration_fmt(s, b, sizeof(b));
		if (duration_parse(b, 0, INT64_MAX, &got, err,
		    sizeof(err)) != 0 || got != s)
			atf_tc_fail("%lld -> %s -> %s", (long long)s, b, err);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, accepted_forms);
	ATF_TP_ADD_TC(tp, rejected_forms);
	ATF_TP_ADD_TC(tp, overflow);
	ATF_TP_ADD_TC(tp, bounds);
	ATF_TP_ADD_TC(tp, message_escaping);
	ATF_TP_ADD_TC(tp, format);
	ATF_TP_ADD_TC(tp, round_trip);
	return atf_no_error();
}
