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
 * far less than the transaction it saves.  One record per container,
 * name and element: an element two names answered stays justified by
 * the other when one is no longer allowed.  Expired records are dropped
 * as new ones are noted.
 */

#include <stdlib.h>
#include <string.h>

#include "admitted.h"

struct rec {
	char			 ctr[NFTGEN_IDENT_MAX];
	char			 name[EGRESS_NAME_MAX + 2];
	struct nftgen_elem	 el;
	int64_t			 until;
};

static struct rec	*recs;
static size_t		 nrecs, caprecs;
/* a note was lost (out of memory): what is admitted is not all known */
static int		 lost;

static int
same_el(const struct nftgen_elem *a, const struct nftgen_elem *b)
{
	return a->addr == b->addr && a->port == b->port &&
	    a->proto == b->proto;
}

/* the latest end of el for ctr, under any name; 0 when none */
static int64_t
until_of(const char *ctr, const struct nftgen_elem *el)
{
	size_t	i;
	int64_t	u = 0;

	for (i = 0; i < nrecs; i++)
		if (same_el(&recs[i].el, el) && recs[i].until > u &&
		    strcmp(recs[i].ctr, ctr) == 0)
			u = recs[i].until;
	return u;
}

static struct rec *
find(const char *ctr, const char *name, const struct nftgen_elem *el)
{
	size_t	i;

	for (i = 0; i < nrecs; i++)
		if (same_el(&recs[i].el, el) &&
		    strcmp(recs[i].ctr, ctr) == 0 &&
		    strcmp(recs[i].name, name) == 0)
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
	int64_t		 u, left, most = 0;
	size_t		 i, k = 0;

	for (i = 0; i < n; i++) {
		u = until_of(ctr, &el[i]);
		left = u > now ? u - now : 0;
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

/* el[i] was admitted for names[i], timeout s from now; -1: out of memory */
int
admitted_note(const char *ctr, const char *const *names,
    const struct nftgen_elem *el, size_t n, unsigned int timeout,
    int64_t now)
{
	struct rec	*r, *v;
	size_t		 i, j;

	for (i = j = 0; i < nrecs; i++)
		if (recs[i].until > now)
			recs[j++] = recs[i];
	nrecs = j;
	for (i = 0; i < n; i++) {
		if ((r = find(ctr, names[i], &el[i])) == NULL) {
			if (nrecs == caprecs) {
				j = caprecs ? caprecs * 2 : 64;
				if ((v = reallocarray(recs, j, sizeof(*v))) ==
				    NULL) {
					admitted_clear();
					lost = 1;
					return -1;
				}
				recs = v;
				caprecs = j;
			}
			r = &recs[nrecs++];
			memset(r, 0, sizeof(*r));
			(void)strlcpy(r->ctr, ctr, sizeof(r->ctr));
			(void)strlcpy(r->name, names[i], sizeof(r->name));
			r->el = el[i];
		}
		if (r->until < now + (int64_t)timeout)
			r->until = now + (int64_t)timeout;
	}
	return 0;
}

/* does an entry of e that admits r's name give it r's port and protocol */
static int
justified(const struct rec *r, const struct egress_entry *e, size_t ne)
{
	size_t	idx[ADMITTED_MATCHES], nm, i;

	nm = policy_name_allowed(e, ne, r->name, idx, ADMITTED_MATCHES);
	if (nm > ADMITTED_MATCHES)
		nm = ADMITTED_MATCHES;
	for (i = 0; i < nm; i++)
		if (e[idx[i]].port == r->el.port &&
		    e[idx[i]].proto == r->el.proto)
			return 1;
	return 0;
}

int
admitted_keep(const char *ctr, const struct egress_entry *e, size_t ne,
    int64_t now, struct admitted_kept **out, size_t *nout)
{
	struct admitted_kept	*k;
	size_t			 i, j, n = 0, live = 0;
	int			 drop = lost;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < nrecs; i++)
		if (recs[i].until > now && strcmp(recs[i].ctr, ctr) == 0)
			live++;
	if (live == 0)
		return drop;
	if ((k = calloc(live, sizeof(*k))) == NULL)
		return -1;
	for (i = 0; i < nrecs; i++) {
		if (recs[i].until <= now || strcmp(recs[i].ctr, ctr) != 0)
			continue;
		if (!justified(&recs[i], e, ne))
			continue;
		for (j = 0; j < n; j++)
			if (same_el(&k[j].el, &recs[i].el))
				break;
		if (j == n) {
			k[n].el = recs[i].el;
			k[n++].until = recs[i].until;
		} else if (k[j].until < recs[i].until)
			k[j].until = recs[i].until;
	}
	/* an element in the kernel that no record justifies any more */
	for (i = 0; i < nrecs && !drop; i++) {
		if (recs[i].until <= now || strcmp(recs[i].ctr, ctr) != 0)
			continue;
		for (j = 0; j < n; j++)
			if (same_el(&k[j].el, &recs[i].el))
				break;
		if (j == n)
			drop = 1;
	}
	if (!drop || n == 0) {
		free(k);
		return drop;
	}
	*out = k;
	*nout = n;
	return 1;
}

void
admitted_prune(const char *ctr, const struct egress_entry *e, size_t ne)
{
	size_t	i, j;

	for (i = j = 0; i < nrecs; i++)
		if (strcmp(recs[i].ctr, ctr) != 0 ||
		    justified(&recs[i], e, ne))
			recs[j++] = recs[i];
	nrecs = j;
}

void
admitted_forget(const char *ctr)
{
	size_t	i, j;

	for (i = j = 0; i < nrecs; i++)
		if (strcmp(recs[i].ctr, ctr) != 0)
			recs[j++] = recs[i];
	nrecs = j;
}

/* the table was made afresh: nothing is admitted, all of it is known */
void
admitted_clear(void)
{
	free(recs);
	recs = NULL;
	nrecs = caprecs = 0;
	lost = 0;
}

size_t
admitted_count(void)
{
	return nrecs;
}
