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

#include "log.h"
#include "netd_nft.h"

static struct nft_ctx	*nft;

/* names of the sets and chains the last successful apply declared */
static char		**applied_sets, **applied_chains;
static size_t		  napplied_sets, napplied_chains;

int
netd_nft_init(char *err, size_t errlen)
{
	if ((nft = nft_ctx_new(NFT_CTX_DEFAULT)) == NULL) {
		snprintf(err, errlen, "cannot set up libnftables");
		return -1;
	}
	(void)nft_ctx_buffer_output(nft);
	(void)nft_ctx_buffer_error(nft);
	return 0;
}

int
netd_nft_run(const char *text, char *err, size_t errlen)
{
	const char	*e;
	char		*nl;

	if (nft_run_cmd_from_buffer(nft, text) == 0)
		return 0;
	e = nft_ctx_get_error_buffer(nft);
	snprintf(err, errlen, "%s", e && *e ? e : "nft failed");
	/* libnftables quotes the line after its message: keep the message */
	if ((nl = strchr(err, '\n')) != NULL)
		*nl = '\0';
	return -1;
}

static void
names_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* what st declares, to delete what a later state drops */
static int
names_of(const struct netd_state *st, char ***setsp, size_t *nsetsp,
    char ***chainsp, size_t *nchainsp)
{
	char	**sets, **chains, id[NFTGEN_IDENT_MAX], e[8];
	size_t	  i, ns = 0, nc = 0;

	*setsp = *chainsp = NULL;
	*nsetsp = *nchainsp = 0;
	if (st->n == 0)
		return 0;
	sets = calloc(st->n * 2, sizeof(*sets));
	chains = calloc(st->n, sizeof(*chains));
	if (sets == NULL || chains == NULL)
		goto fail;
	for (i = 0; i < st->n; i++) {
		if (nftgen_ident(st->v[i].name, id, sizeof(id), e, sizeof(e))
		    == -1)
			continue;
		if (asprintf(&sets[ns], "allow_%s", id) == -1)
			goto fail;
		ns++;
		if (asprintf(&sets[ns], "allowany_%s", id) == -1)
			goto fail;
		ns++;
		if (st->v[i].mode == NFTGEN_STRICT) {
			if (asprintf(&chains[nc], "strict_%s", id) == -1)
				goto fail;
			nc++;
		}
	}
	*setsp = sets;
	*nsetsp = ns;
	*chainsp = chains;
	*nchainsp = nc;
	return 0;
fail:
	if (sets != NULL)
		names_free(sets, ns);
	if (chains != NULL)
		names_free(chains, nc);
	return -1;
}

int
netd_nft_apply(const struct nftgen_net *net, const struct netd_state *st,
    int fresh, char *err, size_t errlen)
{
	struct nftgen_container	*c = NULL;
	struct nftgen_present	 present;
	char			*text = NULL, *all = NULL, **sets, **chains;
	size_t			 i, nsets, nchains;
	int			 rc = -1;

	if (st->n > 0 && (c = calloc(st->n, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < st->n; i++) {
		c[i].name = st->v[i].name;
		c[i].addr = st->v[i].addr;
		c[i].mode = st->v[i].mode;
		c[i].entries = st->v[i].e;
		c[i].nentries = st->v[i].n;
	}
	memset(&present, 0, sizeof(present));
	present.sets = (const char *const *)applied_sets;
	present.nsets = napplied_sets;
	present.chains = (const char *const *)applied_chains;
	present.nchains = napplied_chains;
	if (nftgen_ruleset(net, c, st->n, fresh ? NULL : &present, &text,
	    err, errlen) == -1)
		goto out;
	if (fresh) {
		/* one transaction: no moment without the table */
		if (asprintf(&all, "add table inet %s\ndelete table inet %s\n"
		    "%s", NFTGEN_TABLE, NFTGEN_TABLE, text) == -1) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (netd_nft_run(all != NULL ? all : text, err, errlen) == -1)
		goto out;
	if (names_of(st, &sets, &nsets, &chains, &nchains) == -1) {
		/* the next apply starts afresh rather than guess */
		log_warnx("jb-netd: out of memory recording the table");
		nsets = nchains = 0;
		sets = chains = NULL;
	}
	names_free(applied_sets, napplied_sets);
	names_free(applied_chains, napplied_chains);
	applied_sets = sets;
	napplied_sets = nsets;
	applied_chains = chains;
	napplied_chains = nchains;
	rc = 0;
out:
	free(all);
	free(text);
	free(c);
	return rc;
}
