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

#include "names.h"

#define LOWER_DIGITS	"abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM		LOWER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

static int
in(int c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/* a repo's container_prefix: it starts every container name of the repo */
int
name_prefix_ok(const char *s)
{
	size_t	len = strlen(s);

	return len > 0 && len <= NAME_PREFIX_MAX && in(s[0], LOWER_DIGITS) &&
	    strspn(s, LOWER_DIGITS "-") == len;
}

/* a container: a DNS label, as Incus wants */
int
name_instance_ok(const char *s)
{
	size_t	len = strlen(s);

	return len > 0 && len <= NAME_INSTANCE_MAX &&
	    in(s[0], LOWER_DIGITS) && in(s[len - 1], LOWER_DIGITS) &&
	    strspn(s, LOWER_DIGITS "-") == len;
}

/* an image alias: it ends up in Incus API paths, so nothing that needs care */
int
name_alias_ok(const char *s)
{
	size_t	len = strlen(s);

	return len > 0 && len <= NAME_ALIAS_MAX && in(s[0], ALNUM) &&
	    strspn(s, ALNUM "._-") == len;
}

/*
 * Is an instance whose Incus location is location enforced by the suite
 * of cluster member member?  A suite with no member (not configured for
 * a cluster) enforces every instance it sees; an instance located ""
 * or "none" is on a lone Incus, which is this machine's.
 */
int
name_member_here(const char *member, const char *location)
{
	if (member[0] == '\0' || location[0] == '\0' ||
	    strcmp(location, "none") == 0)
		return 1;
	return strcmp(location, member) == 0;
}
