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
 * libFuzzer target for sftppath.c, which judges the paths an SFTP
 * client sends.  Whatever the bytes: what is accepted never holds a ".."
 * component nor an empty one, and REALPATH's answer is absolute with no
 * "." or ".." left.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sftppath.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
has_dots(const char *p)
{
	const char	*c;

	for (c = p; c != NULL && *c != '\0'; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (strncmp(c, "..", 2) == 0 && (c[2] == '/' || c[2] == '\0'))
			return 1;
		if (*c == '/')
			return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		 in[2048], ctr[64], rel[1024], out[1024];
	const char	*why;
	int		 k;

	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	k = sftppath_split(in, ctr, sizeof(ctr), rel, sizeof(rel), &why);
	if (k == -1 && why == NULL)
		abort();
	if (k == SFTPPATH_IN && (has_dots(rel) || rel[0] == '/' ||
	    strcmp(ctr, "..") == 0 || ctr[0] == '\0'))
		abort();
	if (sftppath_canon(NULL, in, out, sizeof(out)) == 0) {
		if (out[0] != '/' || strstr(out, "/../") != NULL ||
		    strstr(out, "//") != NULL)
			abort();
	}
	return 0;
}
