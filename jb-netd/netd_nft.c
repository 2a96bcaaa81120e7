/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <nftables/libnftables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admitted.h"
#include "log.h"
#include "memtrim.h"
#include "netd_nft.h"
#include "nlset.h"
#include "refused.h"
#include "testhook.h"

/*
 * libnftables' context, made when a command needs one and freed a second
 * after the last (memtrim): between commands it holds a cache of every
 * table the last command looked at, the host's other tables too, which
 * is megabytes with many containers and is read again anyway whenever
 * the ruleset changed since.
 */
static struct nft_ctx	*nft;

static int	run_change(char **, char *, size_t);

/* what the last successful apply made the table hold */
static struct netd_state	 applied;
static int			 have_applied;
static int			 refuse_next;	/* the test switch's refusal */

static int
ctx_get(char *err, size_t errlen)
{
	if (nft != NULL)
		return 0;
	if ((nft = nft_ctx_new(NFT_CTX_DEFAULT)) == NULL) {
		snprintf(err, errlen, "cannot set up libnftables");
		return -1;
	}
	(void)nft_ctx_buffer_output(nft);
	(void)nft_ctx_buffer_error(nft);
	return 0;
}

/* between bursts of commands: the context and its cache go */
static void
ctx_drop(void)
{
	if (nft == NULL)
		return;
	nft_ctx_free(nft);
	nft = NULL;
}

int
netd_nft_init(char *err, size_t errlen)
{
	memtrim_dropper(ctx_drop);
	return ctx_get(err, errlen);
}

int
netd_nft_run(const char *text, char *err, size_t errlen)
{
	const char	*e;
	char		*nl;

	if (ctx_get(err, errlen) == -1)
		return -1;
	memtrim_soon();
	if (nft_run_cmd_from_buffer(nft, text) == 0)
		return 0;
	e = nft_ctx_get_error_buffer(nft);
	snprintf(err, errlen, "%s", e && *e ? e : "nft failed");
	/* libnftables quotes the line after its message: keep the message */
	if ((nl = strchr(err, '\n')) != NULL)
		*nl = '\0';
	return -1;
}

/* a listing's output is not kept: the buffer is emptied */
void
netd_nft_drain(void)
{
	if (nft != NULL)
		(void)nft_ctx_get_output_buffer(nft);
}

const char *
netd_nft_list(const char *text, char *err, size_t errlen)
{
	const char	*out;

	if (ctx_get(err, errlen) == -1)
		return NULL;
	(void)nft_ctx_get_output_buffer(nft);
	if (netd_nft_run(text, err, errlen) == -1)
		return NULL;
	out = nft_ctx_get_output_buffer(nft);
	return out != NULL ? out : "";
}

int
netd_nft_chains_found(void)
{
	const char	*out, *p;
	char		 err[256];
	int		 n = 0;

	if ((out = netd_nft_list("list table inet " NFTGEN_TABLE, err,
	    sizeof(err))) == NULL)
		return -1;
	for (p = out; (p = strstr(p, "\tchain ")) != NULL; p++)
		n++;
	return n;
}

const char *
netd_nft_list_json(const char *text, char *err, size_t errlen)
{
	const char	*out;
	unsigned int	 flags;

	if (ctx_get(err, errlen) == -1)
		return NULL;
	flags = nft_ctx_output_get_flags(nft);
	/* numbers, not names that need /etc/protocols or /etc/services */
	nft_ctx_output_set_flags(nft, (flags | NFT_CTX_OUTPUT_JSON |
	    NFT_CTX_OUTPUT_NUMERIC_PROTO) & ~NFT_CTX_OUTPUT_SERVICE);
	out = netd_nft_list(text, err, errlen);
	nft_ctx_output_set_flags(nft, flags);
	return out;
}

/* the policy as nftgen wants it; entries are shared with st */
static struct nftgen_container *
containers_of(const struct netd_state *st, char *err, size_t errlen)
{
	struct nftgen_container	*c;
	size_t			 i;

	if ((c = calloc(st->n + 1, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (i = 0; i < st->n; i++) {
		c[i].name = st->v[i].name;
		c[i].addr = st->v[i].addr;
		c[i].mode = st->v[i].mode;
		c[i].entries = st->v[i].e;
		c[i].nentries = st->v[i].n;
	}
	return c;
}

static int
entries_same(const struct netd_ctr *a, const struct netd_ctr *b)
{
	size_t	i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->e[i].kind != b->e[i].kind ||
		    a->e[i].proto != b->e[i].proto ||
		    a->e[i].port != b->e[i].port ||
		    a->e[i].prefixlen != b->e[i].prefixlen ||
		    a->e[i].addr != b->e[i].addr ||
		    strcmp(a->e[i].name, b->e[i].name) != 0)
			return 0;
	return 1;
}

/*
 * applied becomes st.  A container whose entries are unchanged keeps the
 * copy it has: a change to one container copies that one's list only.
 */
static void
applied_update(const struct netd_state *st)
{
	struct netd_state	 next;
	struct netd_ctr		*o;
	size_t			 i, j;

	memset(&next, 0, sizeof(next));
	if ((next.v = calloc(st->n + 1, sizeof(*next.v))) == NULL)
		fatalx("out of memory recording the table");
	for (i = 0; i < st->n; i++) {
		/* the lists mostly keep their order: look there first */
		o = NULL;
		if (i < applied.n && strcmp(applied.v[i].name, st->v[i].name)
		    == 0)
			o = &applied.v[i];
		for (j = 0; o == NULL && j < applied.n; j++)
			if (strcmp(applied.v[j].name, st->v[i].name) == 0)
				o = &applied.v[j];
		next.v[i] = st->v[i];
		next.v[i].e = NULL;
		if (o != NULL && o->e != NULL && entries_same(o, &st->v[i])) {
			next.v[i].e = o->e;
			o->e = NULL;
			o->n = 0;
		} else if (st->v[i].n > 0) {
			if ((next.v[i].e = calloc(st->v[i].n,
			    sizeof(*next.v[i].e))) == NULL)
				fatalx("out of memory recording the "
				    "table");
			memcpy(next.v[i].e, st->v[i].e,
			    st->v[i].n * sizeof(*next.v[i].e));
		} else
			next.v[i].n = 0;
		next.n = i + 1;
	}
	netd_state_free(&applied);
	applied = next;
}

/* the container name of the last applied state, or NULL */
static struct netd_ctr *
applied_find(const char *name)
{
	size_t	i;

	for (i = 0; i < applied.n; i++)
		if (strcmp(applied.v[i].name, name) == 0)
			return &applied.v[i];
	return NULL;
}

/*
 * For each container whose entries change: when an address admitted
 * through DNS is no longer justified by an allowed name, its dynamic sets
 * are to be emptied in the transaction (flush_dynamic) and what is still
 * justified admitted again behind, each element for the life it had
 * left: *text, to follow the delta.  -1 out of memory.
 */
static int
narrowed(struct nftgen_container *c, const struct netd_state *st,
    int64_t now, char **text, char *err, size_t errlen)
{
	struct admitted_kept	*kept;
	struct netd_ctr		*o;
	FILE			*f;
	char			*buf = NULL, *one;
	size_t			 len = 0, nkept, i, j;
	int64_t			 left;
	int			 r, failed = 0;

	*text = NULL;
	if ((f = open_memstream(&buf, &len)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < st->n && !failed; i++) {
		if ((o = applied_find(st->v[i].name)) == NULL ||
		    entries_same(o, &st->v[i]))
			continue;
		r = admitted_keep(st->v[i].name, st->v[i].e, st->v[i].n, now,
		    &kept, &nkept);
		if (r == 0)
			continue;
		/* out of memory: emptied, nothing admitted again */
		c[i].flush_dynamic = 1;
		for (j = 0; j < nkept && !failed; j++) {
			left = kept[j].until - now;
			if (left < 1)
				continue;
			if (left > NFTGEN_TIMEOUT_MAX)
				left = NFTGEN_TIMEOUT_MAX;
			if (nftgen_admit(st->v[i].name, st->v[i].addr,
			    &kept[j].el, 1, (unsigned int)left, &one, err,
			    errlen) == -1) {
				failed = 1;
				break;
			}
			fputs(one, f);
			free(one);
		}
		free(kept);
	}
	if (fclose(f) != 0 || buf == NULL) {
		free(buf);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (failed) {
		free(buf);
		return -1;
	}
	*text = buf;
	return 0;
}

/* after the change: the records follow what the kernel now holds */
static void
admitted_follow(const struct netd_state *st)
{
	struct netd_ctr	*o;
	size_t		 i, j;

	for (i = 0; i < applied.n; i++) {
		for (j = 0; j < st->n; j++)
			if (strcmp(st->v[j].name, applied.v[i].name) == 0)
				break;
		if (j == st->n)
			admitted_forget(applied.v[i].name);
	}
	for (i = 0; i < st->n; i++)
		if ((o = applied_find(st->v[i].name)) != NULL &&
		    !entries_same(o, &st->v[i]))
			admitted_prune(st->v[i].name, st->v[i].e, st->v[i].n);
}

/*
 * Does the change from applied to c (n) take a container out, bring one
 * in, move one or empty what the resolver admitted for one?  Then what
 * sets allow and allowany hold is read first.
 */
static int
dyn_needed(const struct nftgen_container *c, size_t n)
{
	struct netd_ctr	*o;
	size_t		 i, j;

	for (i = 0; i < n; i++)
		if (c[i].flush_dynamic || (o = applied_find(c[i].name)) ==
		    NULL || o->addr != c[i].addr)
			return 1;
	for (i = 0; i < applied.n; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(c[j].name, applied.v[i].name) == 0)
				break;
		if (j == n)
			return 1;
	}
	return 0;
}

/* the elements of sets allow and allowany, as the kernel holds them */
static int
dyn_read(struct nftgen_dyn **out, size_t *np, char *err, size_t errlen)
{
	static const char *const sets[] = { "allow", "allowany" };
	struct refused_elem	*v[2] = { NULL, NULL };
	struct nftgen_dyn	*d = NULL;
	size_t			 n[2] = { 0, 0 }, i, k, o = 0;
	char			 e[256];

	*out = NULL;
	*np = 0;
	for (k = 0; k < 2; k++) {
		if (nlset_read(NFTGEN_TABLE, sets[k], 0, &v[k], &n[k], e,
		    sizeof(e)) == -1) {
			snprintf(err, errlen, "cannot read what table inet %s "
			    "admitted through DNS: %s", NFTGEN_TABLE, e);
			free(v[0]);
			free(v[1]);
			return -1;
		}
	}
	if (n[0] + n[1] > 0 &&
	    (d = calloc(n[0] + n[1], sizeof(*d))) == NULL) {
		snprintf(err, errlen, "out of memory");
		free(v[0]);
		free(v[1]);
		return -1;
	}
	for (k = 0; k < 2; k++)
		for (i = 0; i < n[k]; i++, o++) {
			d[o].src = v[k][i].src;
			d[o].dst = v[k][i].dst;
			d[o].proto = v[k][i].proto;
			d[o].port = v[k][i].port;
		}
	free(v[0]);
	free(v[1]);
	*out = o > 0 ? d : NULL;
	*np = o;
	return 0;
}

int
netd_nft_apply(const struct nftgen_net *net, const struct netd_state *st,
    int fresh, char *err, size_t errlen)
{
	struct nftgen_dyn	*dyn = NULL;
	size_t			 ndyn = 0;
	struct nftgen_container	*c = NULL, *old = NULL;
	struct timespec		 ts;
	char			*text = NULL, *all = NULL, *again = NULL;
	int			 rc = -1;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	if ((c = containers_of(st, err, errlen)) == NULL)
		return -1;
	if (fresh || !have_applied) {
		if (nftgen_ruleset(net, c, st->n, NULL, &text, err, errlen)
		    == -1)
			goto out;
		/* one transaction: no moment without the table */
		if (asprintf(&all, "add table inet %s\ndelete table inet %s\n"
		    "add table bridge %s\ndelete table bridge %s\n%s",
		    NFTGEN_TABLE, NFTGEN_TABLE, NFTGEN_TABLE, NFTGEN_TABLE,
		    text) == -1) {
			all = NULL;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		free(text);
		text = all;
		all = NULL;
	} else {
		/* only what changed: the cost of a change is its own */
		if (narrowed(c, st, ts.tv_sec, &again, err, errlen) == -1 ||
		    (old = containers_of(&applied, err, errlen)) == NULL ||
		    (dyn_needed(c, st->n) &&
		    dyn_read(&dyn, &ndyn, err, errlen) == -1) ||
		    nftgen_delta(net, old, applied.n, c, st->n, dyn, ndyn,
		    &text, err, errlen) == -1)
			goto out;
		/* in the same transaction: no moment with too little */
		if (asprintf(&all, "%s%s", text, again) == -1) {
			all = NULL;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		free(text);
		text = all;
		all = NULL;
	}
	if (run_change(&text, err, errlen) == -1)
		goto out;
	if (fresh || !have_applied)
		/* the sets are new and empty */
		admitted_clear();
	else
		admitted_follow(st);
	applied_update(st);
	have_applied = 1;
	rc = 0;
out:
	free(dyn);
	free(again);
	free(text);
	free(old);
	free(c);
	return rc;
}

/*
 * Run a change (*text, which may be replaced); "" is nothing to do.  A
 * failure names nftables and says the table is as it was.
 */
static int
run_change(char **text, char *err, size_t errlen)
{
	char	e[512];

	if (jb_testing && refuse_next) {
		char	*all;

		/* the kernel refuses the batch: nothing of it is applied */
		refuse_next = 0;
		if (asprintf(&all, "%sdelete chain inet %s "
		    "jb_testhook_refused\n", *text, NFTGEN_TABLE) == -1) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		free(*text);
		*text = all;
	}
	if (**text != '\0' && netd_nft_run(*text, e, sizeof(e)) == -1) {
		snprintf(err, errlen, "nftables refused the transaction, so "
		    "table inet %s is as it was: %s", NFTGEN_TABLE, e);
		return -1;
	}
	return 0;
}

int
netd_nft_mode(const struct nftgen_net *net, const char *name,
    enum nftgen_mode mode, char *err, size_t errlen)
{
	struct nftgen_container	 was, now;
	struct netd_ctr		*o = NULL;
	char			*text = NULL;
	size_t			 i;
	int			 rc = -1;

	for (i = 0; i < applied.n && o == NULL; i++)
		if (strcmp(applied.v[i].name, name) == 0)
			o = &applied.v[i];
	if (!have_applied || o == NULL) {
		snprintf(err, errlen, "table inet %s holds no container %s",
		    NFTGEN_TABLE, name);
		return -1;
	}
	memset(&was, 0, sizeof(was));
	was.name = o->name;
	was.addr = o->addr;
	was.mode = o->mode;
	was.entries = o->e;
	was.nentries = o->n;
	now = was;
	now.mode = mode;
	if (nftgen_delta(net, &was, 1, &now, 1, NULL, 0, &text, err, errlen)
	    == -1)
		return -1;
	if (run_change(&text, err, errlen) == 0) {
		o->mode = mode;
		rc = 0;
	}
	free(text);
	return rc;
}

uint32_t	(*netd_nft_admit_hook)(const char *, const struct nftgen_elem *,
	    const char *const *, size_t, unsigned int);

int
netd_nft_admit(const char *name, const struct nftgen_elem *el,
    const char *const *names, size_t n, unsigned int timeout,
    uint32_t *ticket, char *err, size_t errlen)
{
	struct nftgen_elem	*v;
	struct netd_ctr		*o;
	struct timespec		 ts;
	char			*text = NULL;
	size_t			 k;
	unsigned int		 t = timeout;
	uint32_t		 tk;
	int			 rc = -1;

	if (ticket != NULL)
		*ticket = 0;
	if (n == 0)
		return 0;
	/* the elements are keyed by the address the table holds for it */
	if (!have_applied || (o = applied_find(name)) == NULL) {
		snprintf(err, errlen, "table inet %s holds no container %s",
		    NFTGEN_TABLE, name);
		return -1;
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	if ((v = calloc(n, sizeof(*v))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(v, el, n * sizeof(*v));
	if ((k = admitted_filter(name, v, n, &t, ts.tv_sec)) == 0 ||
	    (nftgen_admit(name, o->addr, v, k, t, &text, err, errlen) == 0 &&
	    netd_nft_run(text, err, errlen) == 0)) {
		/*
		 * every element under its name, those not sent too: another
		 * name admitted them, and may stop being allowed first
		 */
		if (admitted_note(name, names, el, n, timeout, ts.tv_sec) ==
		    -1)
			log_warnx("out of memory noting admissions");
		rc = 0;
		if (netd_nft_admit_hook != NULL &&
		    (tk = netd_nft_admit_hook(name, el, names, n, timeout)) !=
		    0 && ticket != NULL)
			*ticket = tk;
	}
	free(text);
	free(v);
	return rc;
}

void
netd_nft_testhook_refuse_next(void)
{
	refuse_next = 1;
}
