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
 * libFuzzer target for jb-netd's repo override file: whatever
 * parses prints back to text that parses to the same text again, merges
 * into a container of each repo without error, and a refusal names the
 * file and line and leaves the layer untouched.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netd_repos.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netd_repos	 rs, again;
	struct netd_state	 st;
	struct netd_ctr		 c;
	char			 err[1024];
	char			*out, *out2;
	size_t			 i;

	memset(&rs, 0, sizeof(rs));
	if (netd_repos_parse("f", (const char *)data, size, &rs, err,
	    sizeof(err)) == -1) {
		if (rs.n != 0 || (strncmp(err, "f:", 2) != 0 &&
		    strcmp(err, "out of memory") != 0))
			abort();
		return 0;
	}
	if ((out = netd_repos_fmt(&rs)) == NULL)
		abort();
	memset(&again, 0, sizeof(again));
	if (netd_repos_parse("g", out, strlen(out), &again, err,
	    sizeof(err)) == -1 || again.n != rs.n)
		abort();
	if ((out2 = netd_repos_fmt(&again)) == NULL || strcmp(out, out2) != 0)
		abort();
	/* one container a repo: each gets its whole layer, nothing more */
	memset(&st, 0, sizeof(st));
	for (i = 0; i < rs.n; i++) {
		memset(&c, 0, sizeof(c));
		(void)strlcpy(c.name, rs.v[i].key, sizeof(c.name));
		(void)strlcpy(c.repo, rs.v[i].key, sizeof(c.repo));
		c.addr = (uint32_t)i + 1;
		if (netd_state_put(&st, &c) == -1)
			abort();
	}
	if (netd_repos_sync(&st, &rs, err, sizeof(err)) == -1)
		abort();
	for (i = 0; i < st.n; i++)
		if (st.v[i].n != netd_repos_find(&rs, st.v[i].repo)->n ||
		    st.v[i].nrepo != st.v[i].n)
			abort();
	/* field equality is text equality, which the merge relies on */
	for (i = 0; i + 1 < rs.n; i++) {
		char	a[EGRESS_FMT_MAX], b[EGRESS_FMT_MAX];

		if (netd_entry_eq(&rs.v[i].e[0], &rs.v[i + 1].e[0]) !=
		    (strcmp(policy_entry_fmt(&rs.v[i].e[0], a, sizeof(a)),
		    policy_entry_fmt(&rs.v[i + 1].e[0], b, sizeof(b))) == 0))
			abort();
	}
	netd_state_free(&st);
	free(out);
	free(out2);
	netd_repos_free(&rs);
	netd_repos_free(&again);
	return 0;
}
