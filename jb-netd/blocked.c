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
 * A flat array searched linearly, allocated whole at the first note:
 * its size never changes, whatever a container sends.
 */

#include <stdlib.h>
#include <string.h>

#include "blocked.h"

/*
 * a plain DNS name, lowercased into out, that egress_allow would take as
 * an exact name (so net suggest prints only entries apply accepts); 0
 * when it is not one
 */
static int
plain(const char *name, char *out, size_t len)
{
	struct egress_entry	e;
	char			why[128];
	size_t			i, n = strlen(name);

	if (n == 0 || n >= len || n > EGRESS_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.'))
			return 0;
		out[i] = c;
	}
	out[n] = '\0';
	return policy_parse_entry(out, &e, why, sizeof(why)) == 0 &&
	    e.kind == EGRESS_NAME;
}

int
blocked_note(struct blocked *b, const char *ctr, const char *name,
    int64_t now)
{
	struct blocked_entry	*e;
	char			 what[EGRESS_NAME_MAX + 1];
	size_t			 i, old = 0;

	if (!plain(name, what, sizeof(what)))
		(void)strlcpy(what, BLOCKED_ODD, sizeof(what));
	if (b->v == NULL &&
	    (b->v = calloc(BLOCKED_MAX, sizeof(*b->v))) == NULL)
		return -1;
	for (i = 0; i < b->n; i++) {
		e = &b->v[i];
		if (strcmp(e->what, what) == 0 && strcmp(e->ctr, ctr) == 0) {
			e->count++;
			e->fresh++;
			e->last = now;
			return 0;
		}
		if (e->last < b->v[old].last)
			old = i;
	}
	if (b->n < BLOCKED_MAX)
		e = &b->v[b->n++];
	else {
		e = &b->v[old];
		b->evicted++;
	}
	memset(e, 0, sizeof(*e));
	(void)strlcpy(e->ctr, ctr, sizeof(e->ctr));
	(void)strlcpy(e->what, what, sizeof(e->what));
	e->count = 1;
	e->fresh = 1;
	e->first = e->last = now;
	return 1;
}

void
blocked_summary(struct blocked *b, const char *ctr, struct blocked_sum *s)
{
	struct blocked_entry	*e;
	size_t			 i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < b->n; i++) {
		e = &b->v[i];
		if (e->fresh == 0 || strcmp(e->ctr, ctr) != 0)
			continue;
		s->count += e->fresh;
		s->distinct++;
		if (e->fresh > s->topcount) {
			s->topcount = e->fresh;
			(void)strlcpy(s->top, e->what, sizeof(s->top));
		}
		e->fresh = 0;
	}
}

size_t
blocked_forget(struct blocked *b, const char *ctr)
{
	size_t	i = 0, gone = 0;

	while (i < b->n) {
		if (strcmp(b->v[i].ctr, ctr) != 0) {
			i++;
			continue;
		}
		b->v[i] = b->v[--b->n];
		gone++;
	}
	return gone;
}

void
blocked_free(struct blocked *b)
{
	free(b->v);
	memset(b, 0, sizeof(*b));
}
