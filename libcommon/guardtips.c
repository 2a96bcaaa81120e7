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
 * The branch tips a clone holds, as destroy's guard prints them from
 * the container, for the host to say which commits it has (guardtips.h).
 */

#include <stdio.h>
#include <string.h>

#include "guardtips.h"

static int
oid_ok(const char *s, size_t n)
{
	return (n == 40 || n == 64) &&
	    strspn(s, "0123456789abcdef") >= n;
}

int
guard_tips_parse(const char *out, struct guard_tip *tips, size_t *ntips,
    char *rest, size_t restlen, char *why, size_t whylen)
{
	const char	*line, *end, *oid, *sp;
	size_t		 len, olen, blen, used = 0;

	*ntips = 0;
	if (restlen > 0)
		rest[0] = '\0';
	for (line = out; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		if ((end = strchr(line, '\n')) == NULL)
			end = line + strlen(line);
		len = (size_t)(end - line);
		if (len < 4 || strncmp(line, "tip ", 4) != 0) {
			/* kept as it came, a line each */
			if (len > 0 && used + len + 2 <= restlen) {
				memcpy(rest + used, line, len);
				used += len;
				rest[used++] = '\n';
				rest[used] = '\0';
			}
			continue;
		}
		oid = line + 4;
		if ((sp = memchr(oid, ' ', (size_t)(end - oid))) == NULL) {
			(void)snprintf(why, whylen, "a tip line without a "
			    "branch");
			return -1;
		}
		olen = (size_t)(sp - oid);
		if (!oid_ok(oid, olen)) {
			(void)snprintf(why, whylen, "a tip that is not a "
			    "commit id");
			return -1;
		}
		blen = (size_t)(end - (sp + 1));
		if (blen == 0) {
			(void)snprintf(why, whylen, "a tip line without a "
			    "branch");
			return -1;
		}
		if (*ntips == GUARD_TIPS_MAX) {
			(void)snprintf(why, whylen, "more than %d branches",
			    GUARD_TIPS_MAX);
			return -1;
		}
		memcpy(tips[*ntips].oid, oid, olen);
		tips[*ntips].oid[olen] = '\0';
		if (blen > GUARD_BRANCH_MAX)
			blen = GUARD_BRANCH_MAX;
		memcpy(tips[*ntips].branch, sp + 1, blen);
		tips[*ntips].branch[blen] = '\0';
		(*ntips)++;
	}
	return 0;
}
