/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/tree.h>

#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gwpolicy.h"

struct note {
	RB_ENTRY(note)	 entry;
	char		 ctr[JB_INSTANCE_MAX];
	uint32_t	 addr;
	int64_t		 until;
	char		 host[];
};

static int
note_cmp(const struct note *a, const struct note *b)
{
	int	r;

	if ((r = strcmp(a->ctr, b->ctr)) != 0)
		return r;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return strcmp(a->host, b->host);
}

RB_HEAD(notes, note);
RB_PROTOTYPE(notes, note, entry, note_cmp);
RB_GENERATE(notes, note, entry, note_cmp);

struct table {
	struct gw_ctr	*v;		/* by address */
	size_t		 n;
	uint32_t	 gen;
};

static struct table	cur, next;
static int		building;
static struct notes	notes = RB_INITIALIZER(&notes);
static size_t		nnotes;

static void
table_free(struct table *t)
{
	size_t	i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].e);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int
ctr_cmp(const void *a, const void *b)
{
	const struct gw_ctr	*x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void
notes_forget(const char *ctr)
{
	struct note	*n, *t;

	RB_FOREACH_SAFE(n, notes, &notes, t)
		if (ctr == NULL || strcmp(n->ctr, ctr) == 0) {
			RB_REMOVE(notes, &notes, n);
			free(n);
			nnotes--;
		}
}

/* the containers of cur that next drops or moves: their notes go */
static void
notes_follow(void)
{
	const struct gw_ctr	*o, *m;
	size_t			 i, j;

	for (i = 0; i < cur.n; i++) {
		o = &cur.v[i];
		m = NULL;
		for (j = 0; j < next.n && m == NULL; j++)
			if (strcmp(next.v[j].name, o->name) == 0)
				m = &next.v[j];
		if (m == NULL || m->addr != o->addr)
			notes_forget(o->name);
	}
}

int
gwpol_part(const struct jb_egress_policy *p, char *err, size_t errlen)
{
	struct gw_ctr		*c = NULL, *nv;
	struct egress_entry	 e, *ne;
	struct in_addr		 in;
	const char		*s, *end;
	char			 why[256];
	size_t			 i, k;

	if (p->flags & JB_EGRESS_BEGIN) {
		table_free(&next);
		next.gen = p->gen;
		building = 1;
	}
	if (!building || p->gen != next.gen) {
		(void)snprintf(err, errlen, "policy part %u outside a snapshot",
		    p->gen);
		return -1;
	}
	if (p->name[0] != '\0') {
		if (inet_pton(AF_INET, p->ipv4, &in) != 1) {
			(void)snprintf(err, errlen, "container %s: address "
			    "\"%s\"", p->name, p->ipv4);
			goto bad;
		}
		for (i = 0; i < next.n; i++)
			if (strcmp(next.v[i].name, p->name) == 0)
				c = &next.v[i];
		if (c == NULL) {
			nv = reallocarray(next.v, next.n + 1, sizeof(*nv));
			if (nv == NULL)
				goto oom;
			next.v = nv;
			c = &next.v[next.n++];
			memset(c, 0, sizeof(*c));
			(void)strlcpy(c->name, p->name, sizeof(c->name));
			c->addr = ntohl(in.s_addr);
		}
		s = p->entries;
		end = p->entries + sizeof(p->entries);
		for (k = 0; k < p->nentries; k++) {
			size_t	l = strnlen(s, (size_t)(end - s));

			if (l == (size_t)(end - s)) {
				(void)snprintf(err, errlen, "container %s: "
				    "entries cut short", p->name);
				goto bad;
			}
			if (policy_parse_entry(s, &e, why, sizeof(why)) == -1) {
				(void)snprintf(err, errlen, "container %s: %s",
				    p->name, why);
				goto bad;
			}
			s += l + 1;
			if (e.kind != EGRESS_NAME && e.kind != EGRESS_WILDCARD)
				continue;
			if (e.proto == EGRESS_PROTO_UDP)
				continue;
			ne = reallocarray(c->e, c->n + 1, sizeof(*ne));
			if (ne == NULL)
				goto oom;
			c->e = ne;
			c->e[c->n++] = e;
		}
	}
	if (p->flags & JB_EGRESS_END) {
		qsort(next.v, next.n, sizeof(*next.v), ctr_cmp);
		for (i = 1; i < next.n; i++)
			if (next.v[i - 1].addr == next.v[i].addr) {
				(void)snprintf(err, errlen, "containers %s and "
				    "%s share an address", next.v[i - 1].name,
				    next.v[i].name);
				goto bad;
			}
		notes_follow();
		table_free(&cur);
		cur = next;
		memset(&next, 0, sizeof(next));
		building = 0;
	}
	return 0;
oom:
	(void)snprintf(err, errlen, "out of memory");
bad:
	table_free(&next);
	building = 0;
	return -1;
}

const struct gw_ctr *
gwpol_find(uint32_t addr)
{
	struct gw_ctr	key;

	if (cur.n == 0)
		return NULL;
	memset(&key, 0, sizeof(key));
	key.addr = addr;
	return bsearch(&key, cur.v, cur.n, sizeof(*cur.v), ctr_cmp);
}

size_t
gwpol_count(void)
{
	return cur.n;
}

uint32_t
gwpol_gen(void)
{
	return cur.gen;
}

int
gwpol_admit(const char *ctr, const char *host, uint32_t addr, int64_t until)
{
	struct note	*n, *old;
	size_t		 hl = strlen(host);

	if ((n = calloc(1, sizeof(*n) + hl + 1)) == NULL)
		return -1;
	(void)strlcpy(n->ctr, ctr, sizeof(n->ctr));
	memcpy(n->host, host, hl + 1);
	n->addr = addr;
	n->until = until;
	if ((old = RB_FIND(notes, &notes, n)) != NULL) {
		/* an admission never shortens what the kernel keeps */
		if (until > old->until)
			old->until = until;
		free(n);
		return 0;
	}
	if (nnotes >= GWPOL_NOTES_MAX) {
		free(n);
		return -1;
	}
	RB_INSERT(notes, &notes, n);
	nnotes++;
	return 0;
}

void
gwpol_expire(int64_t now)
{
	struct note	*n, *t;

	RB_FOREACH_SAFE(n, notes, &notes, t)
		if (n->until <= now) {
			RB_REMOVE(notes, &notes, n);
			free(n);
			nnotes--;
		}
}

size_t
gwpol_notes(void)
{
	return nnotes;
}

static int
admitted(const char *ctr, const char *host, uint32_t addr, int64_t now)
{
	struct note	*key, *n;
	size_t		 hl = strlen(host);
	int		 ok;

	if ((key = calloc(1, sizeof(*key) + hl + 1)) == NULL)
		return 0;
	(void)strlcpy(key->ctr, ctr, sizeof(key->ctr));
	memcpy(key->host, host, hl + 1);
	key->addr = addr;
	n = RB_FIND(notes, &notes, key);
	ok = n != NULL && n->until > now;
	free(key);
	return ok;
}

enum gw_verdict
gwpol_allowed(uint32_t src, const char *host, uint16_t port,
    const struct gw_ctr **ctrp)
{
	const struct gw_ctr	*c;
	size_t			 i;
	int			 allowed = 0;

	*ctrp = c = gwpol_find(src);
	if (c == NULL)
		return GW_UNKNOWN;
	for (i = 0; i < c->n && !allowed; i++) {
		if (c->e[i].port != 0 && (c->e[i].port != port ||
		    c->e[i].proto != EGRESS_PROTO_TCP))
			continue;
		allowed = policy_name_allowed(&c->e[i], 1, host, NULL, 0) > 0;
	}
	return allowed ? GW_ADMIT : GW_NOT_ALLOWED;
}

enum gw_verdict
gwpol_check(uint32_t src, const char *host, uint32_t dst, uint16_t port,
    int64_t now, const struct gw_ctr **ctrp)
{
	const struct gw_ctr	*c;
	enum gw_verdict		 v;

	if ((v = gwpol_allowed(src, host, port, ctrp)) != GW_ADMIT)
		return v;
	c = *ctrp;
	if (!admitted(c->name, host, dst, now))
		return GW_NOT_ADMITTED;
	return GW_ADMIT;
}

const char *
gwpol_str(enum gw_verdict v)
{
	switch (v) {
	case GW_ADMIT:
		return "admitted";
	case GW_UNKNOWN:
		return "no container has the source address";
	case GW_NOT_ALLOWED:
		return "no egress_allow entry admits the name on this port";
	case GW_NOT_ADMITTED:
		return "the resolver did not give this address for the name";
	}
	return "?";
}

void
gwpol_clear(void)
{
	table_free(&cur);
	table_free(&next);
	building = 0;
	notes_forget(NULL);
}
