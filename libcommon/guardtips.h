/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GUARDTIPS_H
#define JB_GUARDTIPS_H

#include <stddef.h>

/* the branch tips destroy's guard asks the host about, at most */
#define GUARD_TIPS_MAX		64
#define GUARD_OID_MAX		64	/* sha256's hex */
#define GUARD_BRANCH_MAX	200	/* shown, cut beyond */

struct guard_tip {
	char	oid[GUARD_OID_MAX + 1];		/* 40 or 64 lowercase hex */
	char	branch[GUARD_BRANCH_MAX + 1];	/* as it came: show termsafe */
};

/*
 * The destroy guard's output when the clone came through the git bridge
 * (no checkout mounted to ask): lines "tip OID BRANCH" are taken out into
 * tips; every other line is left in rest, one per line, as it came (the
 * guard's "changed: ..." lines).  It comes from the container: an OID
 * that is not 40 or 64 lowercase hex digits, a tip line without a
 * branch, or more than GUARD_TIPS_MAX tips make it -1 with why.
 */
int	guard_tips_parse(const char *out, struct guard_tip *tips, size_t *ntips,
	    char *rest, size_t restlen, char *why, size_t whylen);

#endif /* JB_GUARDTIPS_H */
