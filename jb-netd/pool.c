/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "hostspin.h"
#include "nftgen.h"
#include "pool.h"

#define LINE_MAX_LEN	(JB_INSTANCE_MAX + EGRESS_NAME_MAX + 64)

/* the canonical form of a DNS name: lower case, no trailing dot */
static int
canon(const char *in, char *out, size_t len)
{
	size_t	i, n = strlen(in);

	if (n > 0 && in[n - 1] == '.')
		n--;
	if (n == 0 || n >= len)
		return -1;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[n] = '\0';
	return policy_valid_hostname(out) ? 0 : -1;
}

int
pool_upsert(struct pool *p, const char *ctr, const char *name,
    uint32_t addr, int64_t now)
{
	struct pool_entry	*e;
	char			 cn[EGRESS_NAME_MAX + 1];
	size_t			 i, ncap;

	if (canon(name, cn, sizeof(cn)) == -1 ||
	    strlen(ctr) >= sizeof(e->ctr))
		return -1;
	for (i = 0; i < p->n; i++) {
		e = &p->v[i];
		if (e->addr == addr && strcmp(e->ctr, ctr) == 0 &&
		    strcmp(e->name, cn) == 0) {
			if (now > e->last)
				e->last = now;
			return 0;
		}
	}
	if (p->n >= POOL_MAX)
		return -1;
	if (p->n == p->cap) {
		ncap = p->cap ? p->cap * 2 : 16;
		if ((e = reallocarray(p->v, ncap, sizeof(*e))) == NULL)
			return -1;
		p->v = e;
		p->cap = ncap;
	}
	e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	(void)strlcpy(e->ctr, ctr, sizeof(e->ctr));
	(void)strlcpy(e->name, cn, sizeof(e->name));
	e->addr = addr;
	e->first = e->last = now;
	return 1;
}

static void
drop(struct pool *p, size_t i)
{
	p->v[i] = p->v[--p->n];
}

size_t
pool_evict(struct pool *p, const char *ctr, const char *name, int64_t now)
{
	char	cn[EGRESS_NAME_MAX + 1];
	size_t	i, n, gone = 0, oldest;

	if (canon(name, cn, sizeof(cn)) == -1)
		return 0;
	for (i = 0; i < p->n; ) {
		if (strcmp(p->v[i].ctr, ctr) == 0 &&
		    strcmp(p->v[i].name, cn) == 0 &&
		    p->v[i].last < now - POOL_WINDOW) {
			drop(p, i);
			gone++;
		} else
			i++;
	}
	for (;;) {
		n = 0;
		oldest = SIZE_MAX;
		for (i = 0; i < p->n; i++) {
			if (strcmp(p->v[i].ctr, ctr) != 0 ||
			    strcmp(p->v[i].name, cn) != 0)
				continue;
			n++;
			if (oldest == SIZE_MAX ||
			    p->v[i].last < p->v[oldest].last ||
			    (p->v[i].last == p->v[oldest].last &&
			    p->v[i].addr < p->v[oldest].addr))
				oldest = i;
		}
		if (n <= POOL_PER_NAME)
			break;
		drop(p, oldest);
		gone++;
	}
	return gone;
}

size_t
pool_forget(struct pool *p, const char *ctr, const char *name)
{
	size_t	i, gone = 0;

	for (i = 0; i < p->n; ) {
		if (strcmp(p->v[i].ctr, ctr) == 0 && (name == NULL ||
		    strcmp(p->v[i].name, name) == 0)) {
			drop(p, i);
			gone++;
		} else
			i++;
	}
	return gone;
}

size_t
pool_prune(struct pool *p, const char *ctr, const struct egress_entry *e,
    size_t n)
{
	size_t	i, j, gone = 0;
	int	keep;

	for (i = 0; i < p->n; ) {
		keep = strcmp(p->v[i].ctr, ctr) != 0;
		for (j = 0; j < n && !keep; j++)
			if (e[j].kind == EGRESS_NAME &&
			    strcmp(e[j].name, p->v[i].name) == 0)
				keep = 1;
		if (keep)
			i++;
		else {
			drop(p, i);
			gone++;
		}
	}
	return gone;
}

static int
by_name_addr(const void *a, const void *b)
{
	const struct pool_entry	*x = *(const struct pool_entry *const *)a;
	const struct pool_entry	*y = *(const struct pool_entry *const *)b;
	int			 c;

	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

char *
pool_pin(const struct pool *p, const char *ctr)
{
	const struct pool_entry	**v;
	char			 *out, line[INET_ADDRSTRLEN + EGRESS_NAME_MAX + 4];
	size_t			  i, n = 0, len = 0;

	if ((v = calloc(p->n + 1, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < p->n; i++)
		if (strcmp(p->v[i].ctr, ctr) == 0)
			v[n++] = &p->v[i];
	qsort(v, n, sizeof(*v), by_name_addr);
	if ((out = malloc(n * sizeof(line) + 1)) == NULL) {
		free(v);
		return NULL;
	}
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		/* every stored name is valid: parse and upsert see to it */
		if (hostspin_line(v[i]->addr, v[i]->name, line,
		    sizeof(line)) == -1)
			continue;
		memcpy(out + len, line, strlen(line) + 1);
		len += strlen(line);
	}
	free(v);
	return out;
}

void
pool_free(struct pool *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* a decimal number of seconds, 0 to 2^62 */
static int
parse_time(const char *s, int64_t *t)
{
	char		*end;
	long long	 v;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || errno != 0 || v > (1LL << 62))
		return -1;
	*t = v;
	return 0;
}

static int
parse_line(char *s, struct pool_entry *e, char *why, size_t whylen)
{
	char		*f[6], *save = NULL, cn[EGRESS_NAME_MAX + 1];
	char		 ident[NFTGEN_IDENT_MAX], err[256];
	struct in_addr	 in;
	int		 n = 0;

	for (f[n] = strtok_r(s, " ", &save); f[n] != NULL && n < 5;
	    f[n] = strtok_r(NULL, " ", &save))
		n++;
	if (n != 5 || f[5] != NULL) {
		errtext(why, whylen, "want CONTAINER NAME IPV4 FIRST LAST");
		return -1;
	}
	memset(e, 0, sizeof(*e));
	if (nftgen_ident(f[0], ident, sizeof(ident), err, sizeof(err)) == -1) {
		errtext(why, whylen, "%s", err);
		return -1;
	}
	(void)strlcpy(e->ctr, f[0], sizeof(e->ctr));
	if (canon(f[1], cn, sizeof(cn)) == -1 || strcmp(cn, f[1]) != 0) {
		errtext(why, whylen, "\"%.64s\" is not a lower-case host name",
		    f[1]);
		return -1;
	}
	(void)strlcpy(e->name, cn, sizeof(e->name));
	if (inet_pton(AF_INET, f[2], &in) != 1) {
		errtext(why, whylen, "\"%.20s\" is not an IPv4 address", f[2]);
		return -1;
	}
	e->addr = ntohl(in.s_addr);
	if (parse_time(f[3], &e->first) == -1 ||
	    parse_time(f[4], &e->last) == -1 || e->first > e->last) {
		errtext(why, whylen, "FIRST and LAST must be seconds since the "
		    "epoch, FIRST not after LAST");
		return -1;
	}
	return 0;
}

int
pool_parse(const char *fname, const char *buf, size_t len, struct pool *p,
    char *err, size_t errlen)
{
	struct pool		 np;
	struct pool_entry	 e;
	char			 line[LINE_MAX_LEN + 2], why[384];
	const char		*nl;
	size_t			 off = 0, ll, lineno = 0;
	int			 rc;

	memset(&np, 0, sizeof(np));
	while (off < len) {
		lineno++;
		nl = memchr(buf + off, '\n', len - off);
		ll = (nl ? (size_t)(nl - buf) : len) - off;
		if (ll > LINE_MAX_LEN) {
			errtext(err, errlen,
			    "%s:%zu: line longer than %d bytes",
			    fname, lineno, LINE_MAX_LEN);
			goto bad;
		}
		memcpy(line, buf + off, ll);
		line[ll] = '\0';
		off += ll + (nl ? 1 : 0);
		if (memchr(line, '\0', ll) != NULL) {
			errtext(err, errlen,
			    "%s:%zu: a NUL byte", fname, lineno);
			goto bad;
		}
		if (ll == 0 || line[0] == '#')
			continue;
		if (parse_line(line, &e, why, sizeof(why)) == -1) {
			errtext(err, errlen, "%s:%zu: %s", fname, lineno, why);
			goto bad;
		}
		if ((rc = pool_upsert(&np, e.ctr, e.name, e.addr, e.last))
		    == 0) {
			errtext(err, errlen, "%s:%zu: the same entry twice",
			    fname, lineno);
			goto bad;
		}
		if (rc == -1) {
			errtext(err, errlen,
			    "%s:%zu: out of memory or more than "
			    "%d entries", fname, lineno, POOL_MAX);
			goto bad;
		}
		np.v[np.n - 1].first = e.first;
	}
	pool_free(p);
	*p = np;
	return 0;
bad:
	pool_free(&np);
	return -1;
}

char *
pool_fmt(const struct pool *p)
{
	struct in_addr	 in;
	char		*out, a[INET_ADDRSTRLEN];
	size_t		 i, len = 0, cap;
	int		 n;

	cap = p->n * (LINE_MAX_LEN + 2) + 64;
	if ((out = malloc(cap)) == NULL)
		return NULL;
	n = snprintf(out, cap, "# jb-netd pool: CONTAINER NAME IPV4 FIRST "
	    "LAST\n");
	len = (size_t)n;
	for (i = 0; i < p->n; i++) {
		in.s_addr = htonl(p->v[i].addr);
		(void)inet_ntop(AF_INET, &in, a, sizeof(a));
		n = snprintf(out + len, cap - len, "%s %s %s %" PRId64 " %"
		    PRId64 "\n", p->v[i].ctr, p->v[i].name, a, p->v[i].first,
		    p->v[i].last);
		if (n < 0 || (size_t)n >= cap - len) {
			free(out);
			return NULL;
		}
		len += (size_t)n;
	}
	return out;
}
