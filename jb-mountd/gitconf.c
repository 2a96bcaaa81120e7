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
 * git config syntax, character by character as git's own reader takes
 * it: "\r\n" is a newline, the end of the file is one more; '#' and ';'
 * start a comment outside quotes; "[section]", "[section \"sub\"]" and
 * the old "[section.sub]"; "key = value" or a bare "key" on a line, and
 * a header may share its line with an entry.  In a value, whitespace at
 * either end goes, runs inside become as many spaces, '"' toggles
 * quoting, and \\ \" \n \t \b and backslash-newline are the only escapes.
 * Character classes are ASCII, whatever the locale.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitconf.h"

struct gc {
	const unsigned char	*p, *end;
	int			 line;		/* of the next character */
	int			 at;		/* of the last one taken */
	int			 eof;
};

static int
gc_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
	    c == '\f' || c == '\r';
}

static int
gc_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
gc_keychar(int c)
{
	return gc_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int
gc_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* the next character; past the end, '\n' for ever with eof set */
static int
gc_next(struct gc *g)
{
	int	c;

	g->at = g->line;
	if (g->p == g->end) {
		g->eof = 1;
		return '\n';
	}
	c = *g->p++;
	if (c == '\r' && g->p < g->end && *g->p == '\n')
		c = *g->p++;
	if (c == '\n')
		g->line++;
	return c;
}

/* after '[': the section, and the subsection when there is one */
static const char *
gc_header(struct gc *g, char *sec, char **sub)
{
	size_t	n = 0, m = 0;
	int	c;

	*sub = NULL;
	for (;;) {
		c = gc_next(g);
		if (g->eof || c == '\n')
			return "unterminated section header";
		if (c == ']')
			break;
		if (gc_space(c)) {
			while (gc_space(c)) {
				if (c == '\n')
					return "unterminated section header";
				c = gc_next(g);
			}
			if (c != '"')
				return "a subsection name must be quoted";
			*sub = sec + n + 1;
			for (;;) {
				c = gc_next(g);
				if (c == '\n')
					return "unterminated subsection name";
				if (c == '"')
					break;
				if (c == '\\' && (c = gc_next(g)) == '\n')
					return "unterminated subsection name";
				(*sub)[m++] = (char)c;
			}
			(*sub)[m] = '\0';
			if (gc_next(g) != ']')
				return "no ']' right after the subsection name";
			break;
		}
		if (!gc_keychar(c) && c != '.')
			return "bad character in a section name";
		sec[n++] = (char)gc_lower(c);
	}
	sec[n] = '\0';
	if (n == 0)
		return "empty section name";
	return NULL;
}

/* after '=': the value, to the end of its line */
static const char *
gc_value(struct gc *g, char *v, size_t *vlen)
{
	size_t	n = 0, space = 0;
	int	c, quote = 0, comment = 0;

	for (;;) {
		c = gc_next(g);
		if (c == '\n') {
			if (quote)
				return "unterminated quote in a value";
			break;
		}
		if (comment)
			continue;
		if (gc_space(c) && !quote) {
			if (n > 0)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = 1;
			continue;
		}
		for (; space > 0; space--)
			v[n++] = ' ';
		if (c == '\\') {
			switch (c = gc_next(g)) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return "unknown escape in a value";
			}
			v[n++] = (char)c;
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		v[n++] = (char)c;
	}
	v[n] = '\0';
	*vlen = n;
	return NULL;
}

int
gitconf_parse(const char *buf, size_t len, gitconf_cb cb, void *arg,
    char *err, size_t errlen)
{
	static const unsigned char	 bom[] = { 0xef, 0xbb, 0xbf };
	struct gc			 g;
	const char			*why = NULL;
	char				*mem, *sec, *sub = NULL, *key, *val;
	size_t				 n, vlen;
	int				 c, comment = 0, ret = -1;

	if (errlen > 0)
		err[0] = '\0';
	if (len > GITCONF_FILE_MAX) {
		(void)snprintf(err, errlen, "larger than %d bytes",
		    GITCONF_FILE_MAX);
		return -1;
	}
	/* a value or name is never longer than the file */
	if ((mem = malloc(3 * (len + 2))) == NULL) {
		(void)snprintf(err, errlen, "out of memory");
		return -1;
	}
	sec = mem;
	key = mem + (len + 2);
	val = mem + 2 * (len + 2);
	sec[0] = '\0';

	memset(&g, 0, sizeof(g));
	g.p = (const unsigned char *)buf;
	g.end = g.p + len;
	g.line = g.at = 1;
	/* a UTF-8 byte order mark, as some editors write; not half of one */
	for (n = 0; n < sizeof(bom) && g.p < g.end && *g.p == bom[n]; n++)
		g.p++;
	if (n > 0 && n < sizeof(bom)) {
		why = "a partial byte order mark";
		goto bad;
	}
	for (;;) {
		c = gc_next(&g);
		if (c == '\n') {
			if (g.eof)
				break;
			comment = 0;
			continue;
		}
		if (comment || gc_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = 1;
			continue;
		}
		if (c == '[') {
			if ((why = gc_header(&g, sec, &sub)) != NULL)
				goto bad;
			continue;
		}
		if (!gc_alpha(c)) {
			why = "a key must begin with a letter";
			goto bad;
		}
		n = 0;
		do {
			key[n++] = (char)gc_lower(c);
			c = gc_next(&g);
		} while (gc_keychar(c));
		key[n] = '\0';
		while (c == ' ' || c == '\t')
			c = gc_next(&g);
		if (c == '\n') {
			if (cb(sec, sub, key, NULL, 0, arg) == -1)
				goto out;
			if (g.eof)
				break;
			continue;
		}
		if (c != '=') {
			why = "a key must be followed by '=' or the end of "
			    "its line";
			goto bad;
		}
		if ((why = gc_value(&g, val, &vlen)) != NULL)
			goto bad;
		if (cb(sec, sub, key, val, vlen, arg) == -1)
			goto out;
		if (g.eof)
			break;
	}
	ret = 0;
	goto out;
 bad:
	(void)snprintf(err, errlen, "line %d: %s", g.at, why);
 out:
	free(mem);
	return ret;
}

static void
ident_set(struct gitconf_value *d, const char *value, size_t vlen, int src)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	if (value == NULL)
		d->bad = "it has no value ('=' is missing)";
	else if (memchr(value, '\0', vlen) != NULL)
		d->bad = "it holds a NUL byte";
	else if (vlen >= sizeof(d->v))
		d->bad = "it is longer than 255 bytes";
	else
		memcpy(d->v, value, vlen + 1);
}

static int
ident_entry(const char *sec, const char *sub, const char *key,
    const char *value, size_t vlen, void *arg)
{
	struct gitconf_ident	*id = arg;

	if ((strcmp(sec, "include") == 0 || strcmp(sec, "includeif") == 0) &&
	    strcmp(key, "path") == 0)
		id->includes = 1;
	if (strcmp(sec, "user") != 0 || sub != NULL)
		return 0;
	if (strcmp(key, "name") == 0)
		ident_set(&id->name, value, vlen, id->src);
	else if (strcmp(key, "email") == 0)
		ident_set(&id->email, value, vlen, id->src);
	return 0;
}

int
gitconf_ident(const char *buf, size_t len, struct gitconf_ident *id,
    char *err, size_t errlen)
{
	struct gitconf_ident	next = *id;

	if (gitconf_parse(buf, len, ident_entry, &next, err, errlen) == -1)
		return -1;
	*id = next;
	return 0;
}
