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
 * A flat array allocated whole at the first note, its size never
 * changing whatever a container sends; entries are found through hash
 * chains and the least recently asked one through a recency list, so a
 * refusal costs the same with a full table as with an empty one.
 */

#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "siphash.h"

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

/*
 * The chain of ctr's what: keyed (SipHash, a random key per table), since
 * the container chooses every byte of what and could otherwise make all
 * its names share one chain, and every refusal walk it
 */
static uint32_t
hash(const struct blocked *b, const char *ctr, const char *what)
{
	uint8_t	buf[JB_INSTANCE_MAX + 1 + EGRESS_NAME_MAX + 1];
	size_t	n = strnlen(ctr, JB_INSTANCE_MAX), m;

	memcpy(buf, ctr, n);
	buf[n++] = 0xff;
	m = strnlen(what, EGRESS_NAME_MAX + 1);
	memcpy(buf + n, what, m);
	return (uint32_t)siphash24(b->key, buf, n + m) & (BLOCKED_HASH - 1);
}

static void
lru_unlink(struct blocked *b, int32_t i)
{
	struct blocked_entry	*e = &b->v[i];

	if (e->newer != -1)
		b->v[e->newer].older = e->older;
	else
		b->newest = e->older;
	if (e->older != -1)
		b->v[e->older].newer = e->newer;
	else
		b->oldest = e->newer;
	e->newer = e->older = -1;
}

static void
lru_push(struct blocked *b, int32_t i)
{
	struct blocked_entry	*e = &b->v[i];

	e->newer = -1;
	e->older = b->newest;
	if (b->newest != -1)
		b->v[b->newest].newer = i;
	b->newest = i;
	if (b->oldest == -1)
		b->oldest = i;
}

static void
chain_unlink(struct blocked *b, int32_t i)
{
	int32_t	*p = &b->head[hash(b, b->v[i].ctr, b->v[i].what)];

	while (*p != -1 && *p != i)
		p = &b->v[*p].hnext;
	if (*p == i)
		*p = b->v[i].hnext;
	b->v[i].hnext = -1;
}

static int
alloc(struct blocked *b)
{
	size_t	i;

	if (b->v != NULL)
		return 0;
	if ((b->v = calloc(BLOCKED_MAX, sizeof(*b->v))) == NULL ||
	    (b->head = calloc(BLOCKED_HASH, sizeof(*b->head))) == NULL) {
		free(b->v);
		b->v = NULL;
		return -1;
	}
	/* random per table and process: a container cannot learn it */
	arc4random_buf(b->key, sizeof(b->key));
	for (i = 0; i < BLOCKED_HASH; i++)
		b->head[i] = -1;
	b->n = 0;
	b->newest = b->oldest = -1;
	return 0;
}

int
blocked_note(struct blocked *b, const char *ctr, const char *name,
    int64_t now)
{
	char	what[EGRESS_NAME_MAX + 1];

	if (!plain(name, what, sizeof(what)))
		(void)strlcpy(what, BLOCKED_ODD, sizeof(what));
	return blocked_add(b, ctr, what, 1, now, now);
}

int
blocked_add(struct blocked *b, const char *ctr, const char *what,
    uint64_t count, int64_t first, int64_t last)
{
	struct blocked_entry	*e;
	uint32_t		 h;
	int32_t			 i;

	if (count == 0)
		return 0;
	if (alloc(b) == -1)
		return -1;
	h = hash(b, ctr, what);
	for (i = b->head[h]; i != -1; i = b->v[i].hnext) {
		e = &b->v[i];
		if (strcmp(e->what, what) == 0 && strcmp(e->ctr, ctr) == 0) {
			e->count += count;
			e->fresh += count;
			if (last > e->last)
				e->last = last;
			lru_unlink(b, i);
			lru_push(b, i);
			return 0;
		}
	}
	if (b->n < BLOCKED_MAX)
		i = (int32_t)b->n++;
	else {
		/* the least recently refused gives way */
		i = b->oldest;
		chain_unlink(b, i);
		lru_unlink(b, i);
		b->evicted++;
	}
	e = &b->v[i];
	memset(e, 0, sizeof(*e));
	(void)strlcpy(e->ctr, ctr, sizeof(e->ctr));
	(void)strlcpy(e->what, what, sizeof(e->what));
	e->count = count;
	e->fresh = count;
	e->first = first < last ? first : last;
	e->last = last;
	e->hnext = b->head[h];
	b->head[h] = i;
	lru_push(b, i);
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

/* recency of the entries kept, for the rebuild after a forget */
static int
by_recency(const void *a, const void *b)
{
	const struct blocked_entry	*x = a, *y = b;

	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return x->newer < y->newer ? -1 : x->newer > y->newer;
}

size_t
blocked_forget(struct blocked *b, const char *ctr)
{
	size_t	i = 0, gone = 0, k;
	int32_t	j, rank;

	if (b->v == NULL)
		return 0;
	/* the rank in the recency list, oldest 0, kept through the sort */
	for (rank = 0, j = b->oldest; j != -1; j = b->v[j].newer)
		b->v[j].hnext = rank++;
	for (k = 0; k < b->n; k++)
		b->v[k].newer = b->v[k].hnext;
	while (i < b->n) {
		if (strcmp(b->v[i].ctr, ctr) != 0) {
			i++;
			continue;
		}
		b->v[i] = b->v[--b->n];
		gone++;
	}
	/* oldest first, then chains and the list again: forgetting is rare */
	qsort(b->v, b->n, sizeof(*b->v), by_recency);
	for (k = 0; k < BLOCKED_HASH; k++)
		b->head[k] = -1;
	b->newest = b->oldest = -1;
	for (k = 0; k < b->n; k++) {
		j = (int32_t)k;
		b->v[k].hnext = b->head[hash(b, b->v[k].ctr, b->v[k].what)];
		b->head[hash(b, b->v[k].ctr, b->v[k].what)] = j;
		lru_push(b, j);
	}
	return gone;
}

void
blocked_free(struct blocked *b)
{
	free(b->v);
	free(b->head);
	memset(b, 0, sizeof(*b));
}
