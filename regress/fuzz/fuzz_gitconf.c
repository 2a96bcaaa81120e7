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
 * libFuzzer target for git config syntax (gitconf.c) and the container's
 * ~/.gitconfig (gitident.c).  Whatever the input: every
 * entry has a section and key of git's characters, lower-cased, and a
 * value no longer than the input; when the identity read from it is one
 * the container may have, the file rendered for it parses back to the
 * same two values and holds no line but the header, [user] and them.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitconf.h"
#include "gitident.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t	 inlen;

static int
entry(const char *sec, const char *sub, const char *key, const char *value,
    size_t vlen, void *arg)
{
	const char	*p;

	for (p = sec; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.'))
			abort();
	if (!(key[0] >= 'a' && key[0] <= 'z'))
		abort();
	for (p = key; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-'))
			abort();
	if (value != NULL && (vlen > inlen || value[vlen] != '\0'))
		abort();
	if (value == NULL && vlen != 0)
		abort();
	(void)sub;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gitconf_ident	 id, back;
	char			 err[128], out[GITIDENT_FILE_MAX];
	const char		*name, *email;
	int			 n, lines = 0;
	char			*p;

	inlen = size;
	(void)gitconf_parse((const char *)data, size, entry, NULL, err,
	    sizeof(err));
	memset(&id, 0, sizeof(id));
	if (gitconf_ident((const char *)data, size, &id, err,
	    sizeof(err)) == -1)
		return 0;
	name = id.name.v[0] != '\0' && gitident_check(id.name.v) == NULL ?
	    id.name.v : "";
	email = id.email.v[0] != '\0' && gitident_check(id.email.v) == NULL ?
	    id.email.v : "";
	if ((n = gitident_render(name, email, out, sizeof(out))) == -1) {
		if (*name != '\0' || *email != '\0')
			abort();
		return 0;
	}
	memset(&back, 0, sizeof(back));
	if (gitconf_ident(out, (size_t)n, &back, err, sizeof(err)) == -1 ||
	    strcmp(back.name.v, name) != 0 || strcmp(back.email.v, email) != 0)
		abort();
	for (p = out; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	if (lines != 2 + (*name != '\0') + (*email != '\0'))
		abort();
	return 0;
}
