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
 * Branch names for the git bridge, checked here by git's own rules
 * (git-check-ref-format(1)) before any reaches a refspec or an argv, and
 * narrowed to printable ASCII: a name may come from a container.
 */

#include <string.h>

#include "gitref.h"

static const char *
component_bad(const char *s, size_t len)
{
	if (len == 0)
		return "an empty path component";
	if (s[0] == '.')
		return "a component starting with '.'";
	if (len >= 5 && memcmp(s + len - 5, ".lock", 5) == 0)
		return "a component ending with \".lock\"";
	return NULL;
}

const char *
gitref_branch_bad(const char *s)
{
	const char	*c, *start, *why;
	size_t		 len = strlen(s);

	if (len == 0)
		return "an empty name";
	if (len > GITREF_BRANCH_MAX)
		return "longer than 200 bytes";
	if (s[0] == '-')
		return "starts with '-'";
	if (strcmp(s, "HEAD") == 0 || strcmp(s, "@") == 0)
		return "a name git reserves";
	if (s[len - 1] == '.')
		return "ends with '.'";
	for (c = s; *c != '\0'; c++) {
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			return "a space, control or non-ASCII byte";
		if (strchr("~^:?*[\\", *c) != NULL)
			return "one of ~ ^ : ? * [ \\";
		if (c[0] == '.' && c[1] == '.')
			return "\"..\"";
		if (c[0] == '@' && c[1] == '{')
			return "\"@{\"";
	}
	for (start = s; ; start = c + 1) {
		c = strchr(start, '/');
		if ((why = component_bad(start, c != NULL ?
		    (size_t)(c - start) : strlen(start))) != NULL)
			return why;
		if (c == NULL)
			break;
	}
	return NULL;
}

const char *
gitref_component_bad(const char *s)
{
	if (strchr(s, '/') != NULL)
		return "a '/'";
	return gitref_branch_bad(s);
}
