/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <string.h>

#include "gitident.h"

const char *
gitident_check(const char *v)
{
	const unsigned char	*p;
	size_t			 len = strlen(v);

	if (len == 0)
		return "it is empty";
	if (len >= JB_GIT_IDENT_MAX)
		return "it is longer than 255 bytes";
	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return "it holds a control character";
	return NULL;
}

/* append s to out at *off; -1 when it does not fit (NUL kept room for) */
static int
put(char *out, size_t outlen, size_t *off, const char *s, size_t len)
{
	if (len >= outlen - *off)
		return -1;
	memcpy(out + *off, s, len);
	*off += len;
	out[*off] = '\0';
	return 0;
}

static int
put_value(char *out, size_t outlen, size_t *off, const char *key,
    const char *v)
{
	const char	*p;

	if (*v == '\0')
		return 0;
	if (put(out, outlen, off, "\t", 1) == -1 ||
	    put(out, outlen, off, key, strlen(key)) == -1 ||
	    put(out, outlen, off, " = \"", 4) == -1)
		return -1;
	for (p = v; *p != '\0'; p++) {
		if ((*p == '"' || *p == '\\') &&
		    put(out, outlen, off, "\\", 1) == -1)
			return -1;
		if (put(out, outlen, off, p, 1) == -1)
			return -1;
	}
	return put(out, outlen, off, "\"\n", 2);
}

int
gitident_render(const char *name, const char *email, char *out,
    size_t outlen)
{
	static const char	 head[] = "# your identity from the host's git "
				    "config, written by jailbee new\n[user]\n";
	size_t			 off = 0;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	if (*name == '\0' && *email == '\0')
		return -1;
	if ((*name != '\0' && gitident_check(name) != NULL) ||
	    (*email != '\0' && gitident_check(email) != NULL))
		return -1;
	if (put(out, outlen, &off, head, sizeof(head) - 1) == -1 ||
	    put_value(out, outlen, &off, "name", name) == -1 ||
	    put_value(out, outlen, &off, "email", email) == -1)
		return -1;
	return (int)off;
}
