/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* an instance's record of its secrets, written and read back */

#include <stdio.h>
#include <string.h>

#include "names.h"
#include "repoconf_secrets.h"
#include "secrec.h"

/* the longest NAME=PLACEHOLDER or github.prefix=PREFIX line */
#define ENTRY_LINE_MAX	((size_t)RC_SECRET_NAME_MAX + 1 + RC_PLACEHOLDER_LEN)

/* 1 when s is what rc_secret_placeholder() makes */
static int
ph_ok(const char *s)
{
	size_t	plen = sizeof(RC_SECRET_PREFIX) - 1, i;

	if (strlen(s) != RC_PLACEHOLDER_LEN ||
	    strncmp(s, RC_SECRET_PREFIX, plen) != 0)
		return 0;
	for (i = plen; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int
path_why(const char *what, const char *p, char *err, size_t errlen)
{
	if (p[0] == '\0')
		(void)snprintf(err, errlen, "the %s config path is missing",
		    what);
	else if (strchr(p, '\n') != NULL)
		(void)snprintf(err, errlen, "the %s config path holds a "
		    "newline (%s): rename it", what, p);
	else
		return 0;
	return -1;
}

/* entry i against the ones before it */
static int
entry_why(const struct secrec *r, int i, char *err, size_t errlen)
{
	const struct secrec_entry	*e = &r->e[i];
	int				 j;

	if (!rc_secret_name_ok(e->name)) {
		(void)snprintf(err, errlen, "\"%.64s\" is not a secret name "
		    "([A-Za-z_][A-Za-z0-9_]*, at most %d bytes)", e->name,
		    RC_SECRET_NAME_MAX);
		return -1;
	}
	if (!ph_ok(e->ph)) {
		(void)snprintf(err, errlen, "%s's placeholder is not "
		    RC_SECRET_PREFIX " and 32 lowercase hex digits", e->name);
		return -1;
	}
	if (e->github && strcmp(e->name, SECREC_GITHUB) != 0) {
		(void)snprintf(err, errlen, "%s has no file, and only "
		    SECREC_GITHUB " (github.token) is without one", e->name);
		return -1;
	}
	for (j = 0; j < i; j++) {
		if (strcmp(r->e[j].name, e->name) == 0) {
			(void)snprintf(err, errlen, "%s is named twice",
			    e->name);
			return -1;
		}
		if (strcmp(r->e[j].ph, e->ph) == 0) {
			(void)snprintf(err, errlen, "%s and %s have the same "
			    "placeholder", r->e[j].name, e->name);
			return -1;
		}
	}
	return 0;
}

int
secrec_write(const struct secrec *r, char *buf, size_t len, char *err,
    size_t errlen)
{
	size_t	off;
	int	i, l;

	if (len > 0)
		buf[0] = '\0';
	if (r->n == 0)
		return 0;
	if (r->n < 0 || r->n > RC_SECRETS_MAX) {
		(void)snprintf(err, errlen, "%d secrets, at most %d",
		    r->n, RC_SECRETS_MAX);
		return -1;
	}
	if (path_why("global", r->global, err, errlen) == -1 ||
	    path_why("host-local", r->local, err, errlen) == -1)
		goto bad;
	for (i = 0; i < r->n; i++)
		if (entry_why(r, i, err, errlen) == -1)
			goto bad;
	l = snprintf(buf, len, "%s\n%s\n", r->global, r->local);
	if (l < 0 || (size_t)l >= len)
		goto toolong;
	off = (size_t)l;
	for (i = 0; i < r->n; i++) {
		l = snprintf(buf + off, len - off, "%s=%s\n", r->e[i].name,
		    r->e[i].ph);
		if (l < 0 || (size_t)l >= len - off)
			goto toolong;
		off += (size_t)l;
		if (!r->e[i].github)
			continue;
		/* github.token's: the prefix its token is found by */
		if (!name_prefix_ok(r->ghprefix)) {
			(void)snprintf(err, errlen, "\"%.64s\" is not a "
			    "container prefix", r->ghprefix);
			goto bad;
		}
		l = snprintf(buf + off, len - off, SECREC_GH_PREFIX_KEY "=%s\n",
		    r->ghprefix);
		if (l < 0 || (size_t)l >= len - off)
			goto toolong;
		off += (size_t)l;
	}
	return 0;
 bad:
	if (len > 0)
		buf[0] = '\0';
	return -1;
 toolong:
	if (len > 0)
		buf[0] = '\0';
	(void)snprintf(err, errlen, "the config paths and secret names "
	    "do not fit in %zu bytes of the instance's config: use "
	    "fewer secrets or shorter paths", len);
	return -1;
}

static int
line_bad(struct secrec *r, char *err, size_t errlen, int line,
    const char *why)
{
	(void)snprintf(err, errlen, "line %d: %s", line, why);
	r->n = 0;
	return -1;
}

int
secrec_read(const char *s, size_t len, struct secrec *r, char *err,
    size_t errlen)
{
	const char	*p, *nl, *eq;
	char		 why[256], *dst;
	size_t		 l, max;
	int		 line = 0, after_entry = 0;

	memset(r, 0, sizeof(*r));
	if (len == 0)
		return 0;
	if ((p = memchr(s, '\0', len)) != NULL) {
		(void)snprintf(err, errlen, "a NUL byte at offset %zu",
		    (size_t)(p - s));
		return -1;
	}
	if (s[len - 1] != '\n') {
		(void)snprintf(err, errlen, "bytes after the last newline "
		    "(every line ends in one)");
		return -1;
	}
	for (p = s; p < s + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(s + len - p));
		l = (size_t)(nl - p);
		line++;
		if (line <= 2) {
			dst = line == 1 ? r->global : r->local;
			if (l >= PATH_MAX)
				return line_bad(r, err, errlen, line, "longer "
				    "than a path");
			memcpy(dst, p, l);
			dst[l] = '\0';
			if (l == 0)
				return line_bad(r, err, errlen, line, line == 1 ?
				    "the global config path is missing" :
				    "the host-local config path is missing");
			continue;
		}
		if (l > ENTRY_LINE_MAX) {
			(void)snprintf(why, sizeof(why), "longer than %zu "
			    "bytes", ENTRY_LINE_MAX);
			return line_bad(r, err, errlen, line, why);
		}
		if ((eq = memchr(p, '=', l)) == NULL)
			return line_bad(r, err, errlen, line, "no '=' "
			    "(NAME=PLACEHOLDER)");
		if ((size_t)(eq - p) == sizeof(SECREC_GH_PREFIX_KEY) - 1 &&
		    memcmp(p, SECREC_GH_PREFIX_KEY, (size_t)(eq - p)) == 0) {
			if (!after_entry || strcmp(r->e[r->n - 1].name,
			    SECREC_GITHUB) != 0)
				return line_bad(r, err, errlen, line,
				    SECREC_GH_PREFIX_KEY " does not follow "
				    SECREC_GITHUB "'s line");
			max = (size_t)(p + l - (eq + 1));
			if (max >= sizeof(r->ghprefix))
				max = sizeof(r->ghprefix) - 1;
			memcpy(r->ghprefix, eq + 1, max);
			r->ghprefix[max] = '\0';
			if ((size_t)(p + l - (eq + 1)) != max ||
			    !name_prefix_ok(r->ghprefix))
				return line_bad(r, err, errlen, line,
				    SECREC_GH_PREFIX_KEY ": not a container "
				    "prefix");
			r->e[r->n - 1].github = 1;
			after_entry = 0;
			continue;
		}
		if (r->n >= RC_SECRETS_MAX) {
			(void)snprintf(why, sizeof(why), "more than %d "
			    "secrets", RC_SECRETS_MAX);
			return line_bad(r, err, errlen, line, why);
		}
		if ((size_t)(eq - p) > RC_SECRET_NAME_MAX) {
			(void)snprintf(why, sizeof(why), "a secret's name is "
			    "at most %d bytes", RC_SECRET_NAME_MAX);
			return line_bad(r, err, errlen, line, why);
		}
		memcpy(r->e[r->n].name, p, (size_t)(eq - p));
		r->e[r->n].name[eq - p] = '\0';
		max = (size_t)(p + l - (eq + 1));
		if (max > RC_PLACEHOLDER_LEN)
			max = RC_PLACEHOLDER_LEN;
		memcpy(r->e[r->n].ph, eq + 1, max);
		r->e[r->n].ph[max] = '\0';
		if ((size_t)(p + l - (eq + 1)) != max) {
			(void)snprintf(why, sizeof(why), "%s's placeholder is "
			    "not " RC_SECRET_PREFIX " and 32 lowercase hex "
			    "digits", r->e[r->n].name);
			return line_bad(r, err, errlen, line, why);
		}
		if (entry_why(r, r->n, why, sizeof(why)) == -1)
			return line_bad(r, err, errlen, line, why);
		r->n++;
		after_entry = 1;
	}
	if (line < 2) {
		(void)snprintf(err, errlen, "the host-local config path is "
		    "missing");
		return -1;
	}
	if (r->n == 0) {
		(void)snprintf(err, errlen, "it names no secret");
		return -1;
	}
	return 0;
}
