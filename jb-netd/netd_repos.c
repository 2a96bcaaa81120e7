/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "netd_repos.h"

#define REPOS_MAX	4096	/* repos with a layer, on one host */

static ssize_t
repo_index(const struct netd_repos *rs, const char *key)
{
	size_t	i;

	for (i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].key, key) == 0)
			return (ssize_t)i;
	return -1;
}

const struct netd_repo *
netd_repos_find(const struct netd_repos *rs, const char *key)
{
	ssize_t	i;

	return (i = repo_index(rs, key)) == -1 ? NULL : &rs->v[i];
}

static ssize_t
entry_index(const struct netd_repo *r, const struct egress_entry *want)
{
	size_t	i;

	for (i = 0; i < r->n; i++)
		if (netd_entry_eq(&r->e[i], want))
			return (ssize_t)i;
	return -1;
}

static void
repo_remove(struct netd_repos *rs, size_t i)
{
	free(rs->v[i].e);
	memmove(&rs->v[i], &rs->v[i + 1], (rs->n - i - 1) * sizeof(*rs->v));
	rs->n--;
}

/* e already parsed; key checked */
static int
repo_put(struct netd_repos *rs, const char *key, const struct egress_entry *e,
    char *err, size_t errlen)
{
	struct netd_repo	*nv, *r;
	struct egress_entry	*ne;
	ssize_t			 i;

	if ((i = repo_index(rs, key)) == -1) {
		if (rs->n >= REPOS_MAX)
			return errtext(err, errlen, "more than %d repos have "
			    "overrides", REPOS_MAX);
		if ((nv = reallocarray(rs->v, rs->n + 1, sizeof(*nv))) ==
		    NULL)
			return errtext(err, errlen, "out of memory");
		rs->v = nv;
		memset(&rs->v[rs->n], 0, sizeof(rs->v[rs->n]));
		(void)strlcpy(rs->v[rs->n].key, key, sizeof(rs->v[rs->n].key));
		i = (ssize_t)rs->n++;
	}
	r = &rs->v[i];
	if (r->n >= NETD_ENTRIES_MAX)
		return errtext(err, errlen, "repo %s: more than %d overrides",
		    key, NETD_ENTRIES_MAX);
	if ((ne = reallocarray(r->e, r->n + 1, sizeof(*ne))) == NULL)
		return errtext(err, errlen, "out of memory");
	r->e = ne;
	r->e[r->n++] = *e;
	return 0;
}

int
netd_repos_add(struct netd_repos *rs, const char *key, const char *s,
    char *err, size_t errlen)
{
	const struct netd_repo	*r;
	struct egress_entry	 e;
	char			 why[256];

	if (!netd_repo_key_ok(key))
		return errtext(err, errlen, "repo \"%.60s\": not a container "
		    "prefix", key);
	if (policy_parse_entry(s, &e, why, sizeof(why)) == -1)
		return errtext(err, errlen, "egress entry \"%.300s\": %s", s,
		    why);
	if ((r = netd_repos_find(rs, key)) != NULL && entry_index(r, &e) != -1)
		return errtext(err, errlen, "egress entry \"%.300s\": a repo "
		    "override of %s already allows it", s, key);
	return repo_put(rs, key, &e, err, errlen);
}

int
netd_repos_rm(struct netd_repos *rs, const char *key, const char *s,
    char *err, size_t errlen)
{
	struct egress_entry	 e;
	struct netd_repo	*r;
	char			 why[256];
	ssize_t			 ri, i;

	if (!netd_repo_key_ok(key))
		return errtext(err, errlen, "repo \"%.60s\": not a container "
		    "prefix", key);
	if (policy_parse_entry(s, &e, why, sizeof(why)) == -1)
		return errtext(err, errlen, "egress entry \"%.300s\": %s", s,
		    why);
	if ((ri = repo_index(rs, key)) == -1)
		return 0;
	r = &rs->v[ri];
	if ((i = entry_index(r, &e)) == -1)
		return 0;
	memmove(&r->e[i], &r->e[i + 1], (r->n - (size_t)i - 1) *
	    sizeof(*r->e));
	/* an empty layer is no layer: the file keeps no empty lines */
	if (--r->n == 0)
		repo_remove(rs, (size_t)ri);
	return 1;
}

void
netd_repos_free(struct netd_repos *rs)
{
	size_t	i;

	for (i = 0; i < rs->n; i++)
		free(rs->v[i].e);
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}

int
netd_repos_copy(const struct netd_repos *src, struct netd_repos *dst)
{
	size_t	i;

	memset(dst, 0, sizeof(*dst));
	if (src->n == 0)
		return 0;
	if ((dst->v = calloc(src->n, sizeof(*dst->v))) == NULL)
		return -1;
	for (i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		if ((dst->v[i].e = calloc(src->v[i].n, sizeof(*dst->v[i].e)))
		    == NULL) {
			dst->n = i;
			netd_repos_free(dst);
			return -1;
		}
		memcpy(dst->v[i].e, src->v[i].e, src->v[i].n *
		    sizeof(*dst->v[i].e));
	}
	dst->n = src->n;
	return 0;
}

int
netd_repos_sync(struct netd_state *st, const struct netd_repos *rs,
    char *err, size_t errlen)
{
	const struct netd_repo	*r;
	size_t			 i;

	for (i = 0; i < st->n; i++) {
		r = st->v[i].repo[0] != '\0' ?
		    netd_repos_find(rs, st->v[i].repo) : NULL;
		/* nothing to merge and nothing merged: as it is */
		if (r == NULL && st->v[i].nrepo == 0)
			continue;
		if (netd_ctr_repo_apply(&st->v[i], r ? r->e : NULL,
		    r ? r->n : 0, err, errlen) == -1)
			return -1;
	}
	return 0;
}

/* one line, cut at its newline, into rs */
static int
parse_line(struct netd_repos *rs, char *line, char *err, size_t errlen)
{
	struct egress_entry	 e;
	const struct netd_repo	*r;
	char			*key, *s, why[256];
	int			 any = 0;

	key = strsep(&line, " ");
	if (!netd_repo_key_ok(key))
		return errtext(err, errlen, "repo \"%.60s\": not a container "
		    "prefix ([a-z0-9-])", key);
	if (netd_repos_find(rs, key) != NULL)
		return errtext(err, errlen, "repo %s is listed twice", key);
	while ((s = strsep(&line, " ")) != NULL) {
		if (*s == '\0')
			continue;
		if (policy_parse_entry(s, &e, why, sizeof(why)) == -1)
			return errtext(err, errlen, "%s", why);
		if ((r = netd_repos_find(rs, key)) != NULL &&
		    entry_index(r, &e) != -1)
			return errtext(err, errlen, "entry \"%.300s\" is "
			    "listed twice", s);
		if (repo_put(rs, key, &e, err, errlen) == -1)
			return -1;
		any = 1;
	}
	if (!any)
		return errtext(err, errlen, "repo %s has no entry", key);
	return 0;
}

/* one line of the repo layer's file into the layer being read */
static int
repos_line(void *arg, char *line, char *why, size_t whylen)
{
	return parse_line(arg, line, why, whylen);
}

int
netd_repos_parse(const char *name, const char *buf, size_t len,
    struct netd_repos *rs, char *err, size_t errlen)
{
	struct netd_repos	 nr;

	memset(&nr, 0, sizeof(nr));
	if (netd_lines(name, buf, len, repos_line, &nr, err, errlen) == -1) {
		netd_repos_free(&nr);
		return -1;
	}
	netd_repos_free(rs);
	*rs = nr;
	return 0;
}

char *
netd_repos_fmt(const struct netd_repos *rs)
{
	FILE	*f;
	char	*buf = NULL, e[EGRESS_FMT_MAX];
	size_t	 len = 0, i, j;
	int	 bad;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fprintf(f, "# jb-netd: net egress add --repo, REPO ENTRY ...\n");
	for (i = 0; i < rs->n; i++) {
		if (rs->v[i].n == 0)
			continue;
		fprintf(f, "%s", rs->v[i].key);
		for (j = 0; j < rs->v[i].n; j++)
			fprintf(f, " %s", policy_entry_fmt(&rs->v[i].e[j], e,
			    sizeof(e)));
		fprintf(f, "\n");
	}
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}
