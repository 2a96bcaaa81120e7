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
 * The gateway's table of secrets and CAs (egsecrets.h).
 */

#include <sys/queue.h>

#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ca.h"
#include "egsecrets.h"
#include "repoconf_secrets.h"

#define CTRS_MAX	1024

struct egsec {
	char	name[64];
	char	placeholder[64];
	char	value[JB_SECRET_VALUE_MAX + 1];
	char	header[64];
	char	hosts[JB_EGRESS_SECRET_HOSTS][256];
	int	nhosts;
};

struct egctr {
	TAILQ_ENTRY(egctr) entry;
	char		 name[JB_INSTANCE_MAX];
	uint32_t	 addr;
	struct ca	*ca;
	struct egsec	*v;		/* in force */
	size_t		 n;
	struct egsec	*pend;		/* a snapshot coming in */
	size_t		 npend;
};

TAILQ_HEAD(egctrs, egctr);
static struct egctrs	ctrs = TAILQ_HEAD_INITIALIZER(ctrs);
static size_t		nctrs;

static void
wipe(struct egsec *v, size_t n)
{
	if (v != NULL)
		explicit_bzero(v, n * sizeof(*v));
	free(v);
}

static struct egctr *
ctr_get(const char *name, int make)
{
	struct egctr	*c;

	TAILQ_FOREACH(c, &ctrs, entry)
		if (strcmp(c->name, name) == 0)
			return c;
	if (!make || nctrs >= CTRS_MAX || (c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	(void)strlcpy(c->name, name, sizeof(c->name));
	TAILQ_INSERT_TAIL(&ctrs, c, entry);
	nctrs++;
	return c;
}

struct ca *
egsec_ca(const char *ctr)
{
	struct egctr	*c;

	if ((c = ctr_get(ctr, 1)) == NULL)
		return NULL;
	if (c->ca == NULL)
		c->ca = ca_new(ctr);
	return c->ca;
}

/* a name the hosts of s take: exact, or *.domain below domain */
static int
host_match(const struct egsec *s, const char *host)
{
	int	i;

	for (i = 0; i < s->nhosts; i++)
		if (rc_secret_host_matches(s->hosts[i], host))
			return 1;
	return 0;
}

int
egsec_part(const struct jb_egress_secret *p, char *why, size_t whylen)
{
	struct egctr	*c, *o;
	struct egsec	*s, *nv;
	struct in_addr	 in;
	const char	*h;
	size_t		 off;
	uint32_t	 i;

	if ((c = ctr_get(p->ctr, 1)) == NULL) {
		(void)snprintf(why, whylen, "%s: too many containers", p->ctr);
		return -1;
	}
	if (p->flags & JB_EGRESS_BEGIN) {
		wipe(c->pend, c->npend);
		c->pend = NULL;
		c->npend = 0;
	}
	if (inet_pton(AF_INET, p->ipv4, &in) != 1) {
		(void)snprintf(why, whylen, "%s: not an address: %s", p->ctr,
		    p->ipv4);
		return -1;
	}
	c->addr = ntohl(in.s_addr);
	/* an address is one container's: an earlier holder's secrets go */
	TAILQ_FOREACH(o, &ctrs, entry)
		if (o != c && o->addr == c->addr) {
			wipe(o->v, o->n);
			o->v = NULL;
			o->n = 0;
			o->addr = 0;
		}
	if (p->name[0] != '\0') {
		if (c->npend >= SUBST_MAX || p->nhosts == 0 ||
		    p->nhosts > JB_EGRESS_SECRET_HOSTS ||
		    !subst_value_ok(p->value, strlen(p->value)) ||
		    strncmp(p->placeholder, "jbsecret-", 9) != 0) {
			(void)snprintf(why, whylen, "%s: secret %s cannot be "
			    "taken", p->ctr, p->name);
			return -1;
		}
		if ((nv = reallocarray(NULL, c->npend + 1, sizeof(*nv))) ==
		    NULL) {
			(void)snprintf(why, whylen, "out of memory");
			return -1;
		}
		if (c->npend > 0)
			memcpy(nv, c->pend, c->npend * sizeof(*nv));
		wipe(c->pend, c->npend);
		c->pend = nv;
		s = &c->pend[c->npend];
		memset(s, 0, sizeof(*s));
		(void)strlcpy(s->name, p->name, sizeof(s->name));
		(void)strlcpy(s->placeholder, p->placeholder,
		    sizeof(s->placeholder));
		(void)strlcpy(s->value, p->value, sizeof(s->value));
		(void)strlcpy(s->header, p->header, sizeof(s->header));
		for (i = 0, off = 0; i < p->nhosts; i++) {
			h = p->hosts + off;
			if (off >= sizeof(p->hosts) || h[0] == '\0')
				break;
			(void)strlcpy(s->hosts[i], h, sizeof(s->hosts[i]));
			off += strnlen(h, sizeof(p->hosts) - off) + 1;
		}
		s->nhosts = (int)i;
		c->npend++;
	}
	if (p->flags & JB_EGRESS_END) {
		wipe(c->v, c->n);
		c->v = c->pend;
		c->n = c->npend;
		c->pend = NULL;
		c->npend = 0;
	}
	return 0;
}

size_t
egsec_match(uint32_t src, const char *host, struct subst_secret *s,
    const char **names, size_t max, const char **ctr)
{
	struct egctr	*c;
	size_t		 i, n = 0;

	TAILQ_FOREACH(c, &ctrs, entry)
		if (c->addr == src && c->n > 0)
			break;
	if (c == NULL)
		return 0;
	*ctr = c->name;
	for (i = 0; i < c->n && n < max; i++)
		if (host_match(&c->v[i], host)) {
			s[n].placeholder = c->v[i].placeholder;
			s[n].value = c->v[i].value;
			s[n].header = c->v[i].header;
			names[n] = c->v[i].name;
			n++;
		}
	return n;
}

size_t
egsec_count(void)
{
	struct egctr	*c;
	size_t		 n = 0;

	TAILQ_FOREACH(c, &ctrs, entry)
		n += c->n;
	return n;
}

int
egsec_wanted(uint32_t src, const char *host)
{
	struct subst_secret	 s[SUBST_MAX];
	const char		*names[SUBST_MAX], *ctr;

	return egsec_match(src, host, s, names, SUBST_MAX, &ctr) > 0;
}
