/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"

#define DURATION_FORMS	\
	"forms: 30s, 45m, 4h, 1h30m, or minutes as a bare number"
#define DURATION_SHOW	32	/* input bytes quoted in a message */

static const struct {
	char	unit;
	int64_t	secs;
} units[] = {
	{ 'h', 60 * 60 },
	{ 'm', 60 },
	{ 's', 1 },
};
#define NUNITS	(sizeof(units) / sizeof(units[0]))

/*
 * Quote the input for a message: it may come from a config file or a
 * command line, so control bytes are escaped and length is capped.
 */
static void
duration_quote(const char *s, char *buf, size_t len)
{
	size_t	i, o = 0;
	char	tmp[8];

	for (i = 0; s[i] != '\0' && i < DURATION_SHOW; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			(void)snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else {
			tmp[0] = (char)c;
			tmp[1] = '\0';
		}
		if (o + strlen(tmp) + 4 > len)
			break;
		memcpy(buf + o, tmp, strlen(tmp));
		o += strlen(tmp);
	}
	if (s[i] != '\0' && o + 4 <= len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	if (len > 0)
		buf[o < len ? o : len - 1] = '\0';
}

static int __attribute__((format(printf, 4, 5)))
duration_err(const char *s, char *err, size_t errlen, const char *fmt, ...)
{
	char	q[DURATION_SHOW * 4 + 4], why[128];
	va_list	ap;

	if (err == NULL || errlen == 0)
		return -1;
	va_start(ap, fmt);
	(void)vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	duration_quote(s, q, sizeof(q));
	(void)snprintf(err, errlen, "duration \"%s\": %s (%s)", q, why,
	    DURATION_FORMS);
	return -1;
}

/* digits at *pp into *n; 0, or -1 on overflow */
static int
duration_digits(const char **pp, int64_t *n)
{
	const char	*p = *pp;
	int64_t		 v = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*pp = p;
	*n = v;
	return 0;
}

int
duration_parse(const char *s, int64_t min, int64_t max, int64_t *secs,
    char *err, size_t errlen)
{
	const char	*p = s;
	int64_t		 total = 0, n;
	size_t		 next = 0, u;
	char		 b[32], q[16];

	if (*s == '\0')
		return duration_err(s, err, errlen, "empty");
	while (*p != '\0') {
		const char *start = p;

		if (*p < '0' || *p > '9') {
			duration_quote(p, q, sizeof(q));
			return duration_err(s, err, errlen,
			    "expected a number at \"%s\"", q);
		}
		if (duration_digits(&p, &n) == -1)
			return duration_err(s, err, errlen, "too large");
		if (*p == '\0') {
			if (start != s)
				return duration_err(s, err, errlen,
				    "missing unit after %s", start);
			/* a bare number is minutes, as in the original */
			if (n > INT64_MAX / 60)
				return duration_err(s, err, errlen,
				    "too large");
			total = n * 60;
			break;
		}
		for (u = 0; u < NUNITS; u++)
			if (units[u].unit == *p)
				break;
		if (u == NUNITS) {
			duration_quote(p, q, sizeof(q));
			return duration_err(s, err, errlen,
			    "bad unit at \"%s\" (use h, m or s)", q);
		}
		if (u < next)
			return duration_err(s, err, errlen,
			    "units must go h, m, s, each at most once");
		next = u + 1;
		p++;
		if (n > INT64_MAX / units[u].secs ||
		    n * units[u].secs > INT64_MAX - total)
			return duration_err(s, err, errlen, "too large");
		total += n * units[u].secs;
	}
	if (total < min)
		return duration_err(s, err, errlen, "must be at least %s",
		    duration_fmt(min, b, sizeof(b)));
	if (total > max)
		return duration_err(s, err, errlen, "must be at most %s",
		    duration_fmt(max, b, sizeof(b)));
	*secs = total;
	return 0;
}

char *
duration_fmt(int64_t secs, char *buf, size_t len)
{
	uint64_t	v;
	size_t		u, o = 0;
	int		n;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (secs < 0) {
		/* negate in unsigned so INT64_MIN works */
		v = (uint64_t)0 - (uint64_t)secs;
		o = strlcpy(buf, "-", len);
	} else
		v = (uint64_t)secs;
	if (v == 0) {
		(void)strlcpy(buf, "0s", len);
		return buf;
	}
	for (u = 0; u < NUNITS && o < len; u++) {
		uint64_t q = v / (uint64_t)units[u].secs;

		if (q == 0)
			continue;
		v -= q * (uint64_t)units[u].secs;
		n = snprintf(buf + o, len - o, "%llu%c",
		    (unsigned long long)q, units[u].unit);
		if (n < 0)
			break;
		o += (size_t)n;
	}
	return buf;
}
