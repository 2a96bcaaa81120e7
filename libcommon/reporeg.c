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
 * The registry's file, parsed and written: no I/O here.  A line that is
 * not PREFIX<TAB>PATH with a valid prefix and a plain absolute path makes
 * the whole file invalid, so that nothing half-read is ever acted on.
 */

#include <stdio.h>
#include <string.h>

#include "reporeg.h"

/* absolute, printable, no "." or ".." component, no "//", no tab */
int
reporeg_path_ok(const char *p)
{
	const char	*c;
	size_t		 n = strnlen(p, PATH_MAX);

	if (n == 0 || n >= PATH_MAX || p[0] != '/')
		return 0;
	for (c = p; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return 0;
	for (c = p; c != NULL && *c != '\0'; c = strchr(c + 1, '/')) {
		if (c[1] == '/' ||
		    (c[1] == '.' && (c[2] == '/' || c[2] == '\0')) ||
		    (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0')))
			return 0;
	}
	return n == 1 || p[n - 1] != '/';
}

int
reporeg_set(struct reporeg *r, const char *prefix, const char *path)
{
	struct reporeg_entry	*e = NULL;
	int			 i;

	if (!name_prefix_ok(prefix) || !reporeg_path_ok(path))
		return -1;
	for (i = 0; i < r->n; i++)
		if (strcmp(r->e[i].prefix, prefix) == 0)
			e = &r->e[i];
	if (e == NULL) {
		if (r->n == REPOREG_MAX)
			return -1;
		e = &r->e[r->n++];
	}
	(void)strlcpy(e->prefix, prefix, sizeof(e->prefix));
	(void)strlcpy(e->path, path, sizeof(e->path));
	return 0;
}

int
reporeg_rm(struct reporeg *r, const char *prefix)
{
	int	i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->e[i].prefix, prefix) == 0) {
			memmove(&r->e[i], &r->e[i + 1],
			    (size_t)(r->n - i - 1) * sizeof(r->e[0]));
			r->n--;
			return 0;
		}
	return -1;
}

const struct reporeg_entry *
reporeg_find(const struct reporeg *r, const char *prefix)
{
	int	i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->e[i].prefix, prefix) == 0)
			return &r->e[i];
	return NULL;
}

int
reporeg_parse(const char *buf, size_t len, struct reporeg *r, char *err,
    size_t errlen)
{
	char		 prefix[NAME_PREFIX_MAX + 1], path[PATH_MAX];
	const char	*p = buf, *end = buf + len, *nl, *tab;
	int		 line = 0;

	memset(r, 0, sizeof(*r));
	while (p < end) {
		line++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			snprintf(err, errlen, "line %d: no newline at the end",
			    line);
			goto bad;
		}
		if ((tab = memchr(p, '\t', (size_t)(nl - p))) == NULL ||
		    (size_t)(tab - p) >= sizeof(prefix) ||
		    (size_t)(nl - tab - 1) >= sizeof(path)) {
			snprintf(err, errlen, "line %d: not PREFIX<tab>PATH",
			    line);
			goto bad;
		}
		memcpy(prefix, p, (size_t)(tab - p));
		prefix[tab - p] = '\0';
		memcpy(path, tab + 1, (size_t)(nl - tab - 1));
		path[nl - tab - 1] = '\0';
		if (strlen(prefix) != (size_t)(tab - p) ||
		    strlen(path) != (size_t)(nl - tab - 1) ||
		    reporeg_find(r, prefix) != NULL ||
		    reporeg_set(r, prefix, path) == -1) {
			snprintf(err, errlen, "line %d: not a container prefix "
			    "and a checkout's absolute path, or a prefix seen "
			    "before, or more than %d repositories", line,
			    REPOREG_MAX);
			goto bad;
		}
		p = nl + 1;
	}
	return 0;
 bad:
	/* nothing half-read is kept */
	memset(r, 0, sizeof(*r));
	return -1;
}

long
reporeg_format(const struct reporeg *r, char *buf, size_t len)
{
	size_t	off = 0;
	int	i, n;

	for (i = 0; i < r->n; i++) {
		n = snprintf(buf + off, len - off, "%s\t%s\n", r->e[i].prefix,
		    r->e[i].path);
		if (n < 0 || (size_t)n >= len - off)
			return -1;
		off += (size_t)n;
	}
	return (long)off;
}
