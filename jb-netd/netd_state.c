/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/types.h>

#include <arpa/inet.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "netd_state.h"

void
netd_ctr_free(struct netd_ctr *c)
{
	free(c->e);
	c->e = NULL;
	c->n = 0;
	c->nover = 0;
	c->nrepo = 0;
}

/*
 * e grows by doubling (ctr_add_entry): its room is the power of two at
 * or above n, so every array made for n entries gets that much.
 */
static size_t
ecap(size_t n)
{
	size_t	c = 1;

	while (c < n)
		c *= 2;
	return c;
}

size_t
netd_ctr_ncfg(const struct netd_ctr *c)
{
	return c->n - c->nover - c->nrepo;
}

int
netd_repo_key_ok(const char *s)
{
	size_t	i;

	if (s[0] == '\0' || s[0] == '-' || strlen(s) >= NETD_REPO_MAX)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

/* name, address and mode as text, checked; shared by message and file */
static int
ctr_head(struct netd_ctr *c, const char *name, const char *ipv4,
    const char *mode, int64_t deadline, char *err, size_t errlen)
{
	char		 id[NFTGEN_IDENT_MAX];
	struct in_addr	 in;

	memset(c, 0, sizeof(*c));
	if (nftgen_ident(name, id, sizeof(id), err, errlen) == -1)
		return -1;
	(void)strlcpy(c->name, name, sizeof(c->name));
	if (inet_pton(AF_INET, ipv4, &in) != 1)
		return errtext(err, errlen,
		    "container %s: address \"%.15s\" is "
		    "not an IPv4 address", name, ipv4);
	c->addr = ntohl(in.s_addr);
	if (strcmp(mode, "strict") == 0)
		c->mode = NFTGEN_STRICT;
	else if (strcmp(mode, "loose") == 0)
		c->mode = NFTGEN_LOOSE;
	else
		return errtext(err, errlen, "container %s: mode \"%.7s\" is "
		    "neither strict nor loose", name, mode);
	if (deadline < 0)
		return errtext(err, errlen, "container %s: negative deadline",
		    name);
	c->deadline = deadline;
	return 0;
}

int
netd_agent_ok(const char *s)
{
	size_t	len = strlen(s);

	/* github.enabled's entry */
	if (strcmp(s, JB_EGRESS_FROM_GITHUB) == 0)
		return 1;
	return len > 0 && len <= EGRESS_AGENT_MAX &&
	    strchr("-_", s[0]) == NULL &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == len;
}

static int
ctr_add_entry(struct netd_ctr *c, const char *s, char *err, size_t errlen)
{
	struct egress_entry	*ne;

	if (c->n >= NETD_ENTRIES_MAX)
		return errtext(err, errlen, "container %s: more than %d "
		    "egress entries", c->name, NETD_ENTRIES_MAX);
	if ((c->n & (c->n - 1)) == 0) {
		if ((ne = reallocarray(c->e, c->n ? c->n * 2 : 1,
		    sizeof(*ne))) == NULL)
			return errtext(err, errlen, "out of memory");
		c->e = ne;
	}
	if (policy_parse_entry(s, &c->e[c->n], err, errlen) == -1)
		return -1;
	c->n++;
	return 0;
}

/*
 * A config entry an agent's egress_allow brought: tagged with the agent,
 * and left out when an earlier entry already allows it (nft takes an
 * element once; the first origin is the one shown).
 */
static int
ctr_add_agent_entry(struct netd_ctr *c, const char *agent, const char *s,
    char *err, size_t errlen)
{
	struct egress_entry	e;

	if (!netd_agent_ok(agent))
		return errtext(err, errlen,
		    "container %s: agent name \"%.40s\" "
		    "is not 1-%d of [a-z0-9_-]", c->name, agent,
		    EGRESS_AGENT_MAX);
	if (policy_parse_entry(s, &e, err, errlen) == -1)
		return -1;
	if (netd_ctr_find(c, &e) != -1)
		return 0;
	if (ctr_add_entry(c, s, err, errlen) == -1)
		return -1;
	(void)strlcpy(c->e[c->n - 1].agent, agent, sizeof(c->e[0].agent));
	return 0;
}

/*
 * Parsed entries are canonical (policy_parse_entry zeroes what a kind
 * does not use and folds case), so two that print alike are equal field
 * by field; comparing fields keeps a merge of long lists cheap.
 */
int
netd_entry_eq(const struct egress_entry *a, const struct egress_entry *b)
{
	return a->kind == b->kind && a->proto == b->proto &&
	    a->port == b->port && a->prefixlen == b->prefixlen &&
	    a->addr == b->addr && strcmp(a->name, b->name) == 0;
}

/* the index in e[from, to) of the entry equal to want, or -1 */
static ssize_t
range_find(const struct egress_entry *e, size_t from, size_t to,
    const struct egress_entry *want)
{
	size_t	i;

	for (i = from; i < to; i++)
		if (netd_entry_eq(&e[i], want))
			return (ssize_t)i;
	return -1;
}

ssize_t
netd_ctr_find(const struct netd_ctr *c, const struct egress_entry *want)
{
	return range_find(c->e, 0, c->n, want);
}

/*
 * The repo layer goes between the config and the container's own
 * overrides, without what either already holds: nft refuses an
 * interval element twice, and rm of a container override must leave
 * the repo's copy of it (the next apply brings it back).
 */
int
netd_ctr_repo_apply(struct netd_ctr *c, const struct egress_entry *re,
    size_t rn, char *err, size_t errlen)
{
	struct egress_entry	*ne;
	size_t			 ncfg = netd_ctr_ncfg(c), k, i;

	if (ncfg + rn + c->nover > NETD_ENTRIES_MAX)
		return errtext(err, errlen, "container %s: more than %d "
		    "egress entries with its repo's overrides", c->name,
		    NETD_ENTRIES_MAX);
	if ((ne = calloc(ecap(ncfg + rn + c->nover), sizeof(*ne))) == NULL)
		return errtext(err, errlen, "out of memory");
	if (ncfg > 0)
		memcpy(ne, c->e, ncfg * sizeof(*ne));
	k = ncfg;
	for (i = 0; i < rn; i++) {
		if (range_find(c->e, 0, ncfg, &re[i]) != -1 ||
		    range_find(c->e, c->n - c->nover, c->n, &re[i]) != -1 ||
		    range_find(ne, ncfg, k, &re[i]) != -1)
			continue;
		ne[k++] = re[i];
	}
	if (c->nover > 0)
		memcpy(ne + k, c->e + c->n - c->nover, c->nover * sizeof(*ne));
	free(c->e);
	c->e = ne;
	c->nrepo = k - ncfg;
	c->n = k + c->nover;
	return 0;
}

/*
 * Overrides are additive (seed, Egress overrides): one already allowed
 * by the config or by an earlier override is refused rather than
 * recorded twice, so that rm later removes exactly what add put in.
 */
int
netd_ctr_override_add(struct netd_ctr *c, const char *s, char *err,
    size_t errlen)
{
	struct egress_entry	e;
	char			why[256];
	ssize_t			i;

	if (policy_parse_entry(s, &e, why, sizeof(why)) == -1)
		return errtext(err, errlen, "egress entry \"%.300s\": %s", s,
		    why);
	if ((i = netd_ctr_find(c, &e)) != -1)
		return errtext(err, errlen, "egress entry \"%.300s\": %s %s "
		    "already allows it", s, c->name, (size_t)i <
		    netd_ctr_ncfg(c) && c->e[i].agent[0] == ':' ?
		    "github.enabled in its config" : (size_t)i <
		    netd_ctr_ncfg(c) && c->e[i].agent[0] != '\0' ? "an "
		    "agent's egress_allow (agents.NAME in its config)" :
		    (size_t)i < netd_ctr_ncfg(c) ? "egress_allow in its config" :
		    (size_t)i < c->n - c->nover ? "a repo override (net "
		    "egress add --repo)" : "an override");
	if (ctr_add_entry(c, s, err, errlen) == -1)
		return -1;
	c->nover++;
	return 0;
}

int
netd_ctr_override_rm(struct netd_ctr *c, const char *s, char *err,
    size_t errlen)
{
	struct egress_entry	e;
	char			why[256];
	ssize_t			i;

	if (policy_parse_entry(s, &e, why, sizeof(why)) == -1)
		return errtext(err, errlen, "egress entry \"%.300s\": %s", s,
		    why);
	if ((i = netd_ctr_find(c, &e)) == -1)
		return errtext(err, errlen, "egress entry \"%.300s\": not an "
		    "override of %s (jbctl net egress ls %s lists them)", s,
		    c->name, c->name);
	if ((size_t)i < netd_ctr_ncfg(c))
		return errtext(err, errlen, "egress entry \"%.300s\" comes "
		    "from egress_allow in %s's config, not from net egress "
		    "add: overrides cannot narrow the config; remove it there",
		    s, c->name);
	if ((size_t)i < c->n - c->nover)
		return errtext(err, errlen, "egress entry \"%.300s\" comes "
		    "from %s's repo override layer, not from net egress add "
		    "on %s: remove it with net egress rm --repo", s, c->repo,
		    c->name);
	memmove(&c->e[i], &c->e[i + 1], (c->n - (size_t)i - 1) *
	    sizeof(*c->e));
	c->n--;
	c->nover--;
	return 0;
}

int
netd_ctr_from_msg(const struct jb_netd_ctr *m, struct netd_ctr *c,
    char *err, size_t errlen)
{
	char		 name[sizeof(m->name)], ipv4[sizeof(m->ipv4)];
	char		 mode[sizeof(m->mode)];
	const char	*p, *end = m->entries + sizeof(m->entries);
	const char	*a, *aend = m->agents + sizeof(m->agents);
	uint32_t	 i;
	int		 rc;

	memcpy(name, m->name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	memcpy(ipv4, m->ipv4, sizeof(ipv4));
	ipv4[sizeof(ipv4) - 1] = '\0';
	memcpy(mode, m->mode, sizeof(mode));
	mode[sizeof(mode) - 1] = '\0';
	if (ctr_head(c, name, ipv4, mode, m->deadline, err, errlen) == -1)
		return -1;
	if (memchr(m->repo, '\0', sizeof(m->repo)) == NULL ||
	    (m->repo[0] != '\0' && !netd_repo_key_ok(m->repo)))
		return errtext(err, errlen, "container %s: bad repo key", name);
	(void)strlcpy(c->repo, m->repo, sizeof(c->repo));
	/* agents: per entry, "" for the config's, else the agent's name */
	for (i = 0, p = m->entries, a = m->agents; i < m->nentries; i++) {
		if (p >= end || memchr(p, '\0', (size_t)(end - p)) == NULL ||
		    a >= aend || memchr(a, '\0', (size_t)(aend - a)) == NULL) {
			netd_ctr_free(c);
			return errtext(err, errlen, "container %s: entries "
			    "truncated", name);
		}
		if (*a == '\0')
			rc = ctr_add_entry(c, p, err, errlen);
		else
			rc = ctr_add_agent_entry(c, a, p, err, errlen);
		if (rc == -1) {
			netd_ctr_free(c);
			return -1;
		}
		p += strlen(p) + 1;
		a += strlen(a) + 1;
	}
	return 0;
}

struct netd_ctr *
netd_state_find(struct netd_state *st, const char *name)
{
	size_t	i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->v[i].name, name) == 0)
			return &st->v[i];
	return NULL;
}

static void
state_remove(struct netd_state *st, size_t i)
{
	netd_ctr_free(&st->v[i]);
	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof(*st->v));
	st->n--;
}

int
netd_state_put(struct netd_state *st, struct netd_ctr *c)
{
	struct netd_ctr	*nv;
	size_t		 i;

	for (i = 0; i < st->n; ) {
		if (strcmp(st->v[i].name, c->name) == 0 ||
		    st->v[i].addr == c->addr)
			state_remove(st, i);
		else
			i++;
	}
	if ((nv = reallocarray(st->v, st->n + 1, sizeof(*nv))) == NULL)
		return -1;
	st->v = nv;
	st->v[st->n++] = *c;
	memset(c, 0, sizeof(*c));
	return 0;
}

int
netd_state_forget(struct netd_state *st, const char *name)
{
	size_t	i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->v[i].name, name) == 0) {
			state_remove(st, i);
			return 1;
		}
	return 0;
}

void
netd_state_free(struct netd_state *st)
{
	size_t	i;

	for (i = 0; i < st->n; i++)
		netd_ctr_free(&st->v[i]);
	free(st->v);
	st->v = NULL;
	st->n = 0;
}

int
netd_state_copy(const struct netd_state *src, struct netd_state *dst)
{
	size_t	i;

	memset(dst, 0, sizeof(*dst));
	if (src->n == 0)
		return 0;
	if ((dst->v = calloc(src->n, sizeof(*dst->v))) == NULL)
		return -1;
	for (i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].e = NULL;
		if (src->v[i].n > 0) {
			if ((dst->v[i].e = calloc(ecap(src->v[i].n),
			    sizeof(*dst->v[i].e))) == NULL) {
				dst->n = i;
				netd_state_free(dst);
				return -1;
			}
			memcpy(dst->v[i].e, src->v[i].e,
			    src->v[i].n * sizeof(*dst->v[i].e));
		}
	}
	dst->n = src->n;
	return 0;
}

/* one line of the file, already cut at its newline */
static int
parse_line(struct netd_ctr *c, char *line, char *err, size_t errlen)
{
	char		*f[4], *s, *end;
	long long	 dl;
	int		 i;

	for (i = 0; i < 4; i++)
		if ((f[i] = strsep(&line, " ")) == NULL || *f[i] == '\0')
			return errtext(err, errlen, "expected NAME IPV4 MODE "
			    "DEADLINE [ENTRY ...]");
	errno = 0;
	dl = strtoll(f[3], &end, 10);
	if (errno != 0 || *end != '\0' || dl < 0)
		return errtext(err, errlen, "deadline \"%.20s\" is not a time",
		    f[3]);
	if (ctr_head(c, f[0], f[1], f[2], dl, err, errlen) == -1)
		return -1;
	while ((s = strsep(&line, " ")) != NULL) {
		if (*s == '\0')
			continue;
		/* "@REPO": once, before the entries */
		if (*s == '@') {
			if (c->repo[0] != '\0' || c->n > 0 ||
			    !netd_repo_key_ok(s + 1)) {
				netd_ctr_free(c);
				return errtext(err, errlen, "repo \"%.60s\": "
				    "one, before the entries, of [a-z0-9-]",
				    s);
			}
			(void)strlcpy(c->repo, s + 1, sizeof(c->repo));
			continue;
		}
		/* "~AGENT=ENTRY": the config's, from that agent */
		if (*s == '~') {
			char	*eq = strchr(s, '=');

			if (c->nover > 0 || eq == NULL) {
				netd_ctr_free(c);
				return errtext(err, errlen, "entry \"%.300s\": "
				    "~AGENT=ENTRY, before the overrides", s);
			}
			*eq = '\0';
			if (ctr_add_agent_entry(c, s + 1, eq + 1, err,
			    errlen) == -1) {
				netd_ctr_free(c);
				return -1;
			}
			continue;
		}
		/* "+ENTRY": an override; they come after the config's */
		if (*s != '+' && c->nover > 0) {
			netd_ctr_free(c);
			return errtext(err, errlen, "entry \"%.300s\" after an "
			    "override", s);
		}
		if (ctr_add_entry(c, *s == '+' ? s + 1 : s, err, errlen)
		    == -1) {
			netd_ctr_free(c);
			return -1;
		}
		if (*s == '+')
			c->nover++;
	}
	return 0;
}

/*
 * Each line of buf that is neither empty nor a comment, NUL-terminated,
 * to fn; fn's complaint comes back as "name:line: why".  The state and
 * the repo layer are read with it.
 */
int
netd_lines(const char *name, const char *buf, size_t len, netd_line_fn fn,
    void *arg, char *err, size_t errlen)
{
	const char	*p = buf, *nl, *end = buf + len;
	char		*line, why[512];
	size_t		 lineno = 0;
	int		 rc;

	while (p < end) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL)
			return errtext(err, errlen, "%s:%zu: a NUL byte", name,
			    lineno);
		if (nl == p || *p == '#') {
			p = nl + 1;
			continue;
		}
		if ((line = strndup(p, (size_t)(nl - p))) == NULL)
			return errtext(err, errlen, "out of memory");
		rc = fn(arg, line, why, sizeof(why));
		free(line);
		if (rc == -1)
			return errtext(err, errlen, "%s:%zu: %s", name, lineno,
			    why);
		p = nl + 1;
	}
	return 0;
}

/* one line of the state file into the state being read */
static int
state_line(void *arg, char *line, char *why, size_t whylen)
{
	struct netd_state	*ns = arg;
	struct netd_ctr		 c;

	if (parse_line(&c, line, why, whylen) == -1)
		return -1;
	if (netd_state_find(ns, c.name) != NULL) {
		netd_ctr_free(&c);
		return errtext(why, whylen, "container %s is listed twice",
		    c.name);
	}
	if (netd_state_put(ns, &c) == -1) {
		netd_ctr_free(&c);
		return errtext(why, whylen, "out of memory");
	}
	return 0;
}

int
netd_state_parse(const char *name, const char *buf, size_t len,
    struct netd_state *st, char *err, size_t errlen)
{
	struct netd_state	 ns;

	memset(&ns, 0, sizeof(ns));
	if (netd_lines(name, buf, len, state_line, &ns, err, errlen) == -1) {
		netd_state_free(&ns);
		return -1;
	}
	netd_state_free(st);
	*st = ns;
	return 0;
}

char *
netd_state_fmt(const struct netd_state *st)
{
	FILE		*f;
	char		*buf = NULL, e[EGRESS_FMT_MAX];
	size_t		 len = 0, i, j;
	struct in_addr	 in;
	char		 a[INET_ADDRSTRLEN];
	int		 bad;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fprintf(f, "# jb-netd: NAME IPV4 MODE DEADLINE [@REPO] [ENTRY | "
	    "~AGENT=ENTRY ...] [+OVERRIDE ...]\n");
	for (i = 0; i < st->n; i++) {
		in.s_addr = htonl(st->v[i].addr);
		inet_ntop(AF_INET, &in, a, sizeof(a));
		fprintf(f, "%s %s %s %" PRId64, st->v[i].name, a,
		    st->v[i].mode == NFTGEN_LOOSE ? "loose" : "strict",
		    st->v[i].deadline);
		if (st->v[i].repo[0] != '\0')
			fprintf(f, " @%s", st->v[i].repo);
		for (j = 0; j < st->v[i].n; j++) {
			/* the repo layer has its own file (netd_repos.h) */
			if (j >= netd_ctr_ncfg(&st->v[i]) &&
			    j < st->v[i].n - st->v[i].nover)
				continue;
			if (j < netd_ctr_ncfg(&st->v[i]) &&
			    st->v[i].e[j].agent[0] != '\0')
				fprintf(f, " ~%s=", st->v[i].e[j].agent);
			else
				fprintf(f, " %s", j >= st->v[i].n -
				    st->v[i].nover ? "+" : "");
			fprintf(f, "%s", policy_entry_fmt(&st->v[i].e[j], e,
			    sizeof(e)));
		}
		fprintf(f, "\n");
	}
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}
