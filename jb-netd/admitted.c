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
 * A flat list, searched linearly: it holds what the resolver and the
 * pool admitted (a few thousand elements at most), and a search costs
 * far less than the transaction it saves.  Expired records are dropped
 * as new ones are noted.
 */

#include <stdlib.h>
#include <string.h>

#include "admitted.h"

struct rec {
	char			 ctr[NFTGEN_IDENT_MAX];
	struct nftgen_elem	 el;
	int64_t			 until;
};

static struct rec	*recs;
static size_t		 nrecs, caprecs;

static struct rec *
find(const char *ctr, const struct nftgen_elem *el)
{
	size_t	i;

	for (i = 0; i < nrecs; i++)
		if (recs[i].el.addr == el->addr &&
		    recs[i].el.port == el->port &&
		    recs[i].el.proto == el->proto &&
		    strcmp(recs[i].ctr, ctr) == 0)
			return &recs[i];
	return NULL;
}

/*
 * Keep in el what must go to the kernel; return how many.  *timeout is
 * raised to the longest life a kept element has left, so the admission
 * never shortens it.
 */
size_t
admitted_filter(const char *ctr, struct nftgen_elem *el, size_t n,
    unsigned int *timeout, int64_t now)
{
	struct rec	*r;
	int64_t		 left, most = 0;
	size_t		 i, k = 0;

	for (i = 0; i < n; i++) {
		r = find(ctr, &el[i]);
		left = r != NULL && r->until > now ? r->until - now : 0;
		if (left > 0 && left + ADMITTED_SLACK >= (int64_t)*timeout)
			continue;
		if (left > most)
			most = left;
		el[k++] = el[i];
	}
	if (most > (int64_t)*timeout)
		*timeout = (unsigned int)most;
	return k;
}

/* el was admitted for timeout s at now; -1: out of memory (forget all) */
int
admitted_note(const char *ctr, const struct nftgen_elem *el, size_t n,
    unsigned int timeout, int64_t now)
{
	struct rec	*r, *v;
	size_t		 i, j;

	for (i = j = 0; i < nrecs; i++)
		if (recs[i].until > now)
			recs[j++] = recs[i];
	nrecs = j;
	for (i = 0; i < n; i++) {
		if ((r = find(ctr, &el[i])) == NULL) {
			if (nrecs == caprecs) {
				j = caprecs ? caprecs * 2 : 64;
				if ((v = reallocarray(recs, j, sizeof(*v))) ==
				    NULL) {
					admitted_clear();
					return -1;
				}
				recs = v;
				caprecs = j;
			}
			r = &recs[nrecs++];
			memset(r, 0, sizeof(*r));
			(void)strlcpy(r->ctr, ctr, sizeof(r->ctr));
			r->el = el[i];
		}
		if (r->until < now + (int64_t)timeout)
			r->until = now + (int64_t)timeout;
	}
	return 0;
}

/* the table changed otherwise: nothing is known any more */
void
admitted_clear(void)
{
	free(recs);
	recs = NULL;
	nrecs = caprecs = 0;
}

size_t
admitted_count(void)
{
	return nrecs;
}
