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
 * libFuzzer target for the git bridge's branch names (gitref.c), which
 * may come from a container.  Whatever the bytes, a name taken is
 * printable ASCII of at most GITREF_BRANCH_MAX bytes with none of what
 * git-check-ref-format(1) forbids, so it is safe in a refspec and an
 * argv.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitref.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s;
	size_t	 i, len;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	len = strlen(s);
	if (gitref_branch_bad(s) == NULL) {
		if (len == 0 || len > GITREF_BRANCH_MAX || s[0] == '-' ||
		    s[0] == '/' || s[0] == '.' || s[len - 1] == '/' ||
		    s[len - 1] == '.' || strstr(s, "..") != NULL ||
		    strstr(s, "//") != NULL || strstr(s, "/.") != NULL ||
		    strstr(s, "@{") != NULL || strcmp(s, "HEAD") == 0 ||
		    (len >= 5 && strcmp(s + len - 5, ".lock") == 0) ||
		    strstr(s, ".lock/") != NULL)
			abort();
		for (i = 0; i < len; i++)
			if ((unsigned char)s[i] <= ' ' ||
			    (unsigned char)s[i] >= 0x7f ||
			    strchr("~^:?*[\\", s[i]) != NULL)
				abort();
	}
	(void)gitref_component_bad(s);
	free(s);
	return 0;
}
