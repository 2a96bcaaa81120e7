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
 * libFuzzer target for the egress policy: the input is lines; the first
 * is a DNS name, every line is also an egress_allow entry.  Besides the
 * sanitizers it checks the promises: a refusal leaves the entry untouched
 * and says which entry, an accepted entry is well formed and prints back
 * to itself, a name matches only entries it really falls under, and the
 * accepted entries always compile into a ruleset.  The first line is
 * also a resolver.private_networks list (privnet_parse): what it accepts
 * is a range with host bits clear, and an address of the first line's
 * ranges or entries is always admissible.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nftgen.h"
#include "policy.h"
#include "privnet.h"

#define MAXLINES	16

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_entry(const struct egress_entry *e)
{
	struct egress_entry	back;
	char			buf[EGRESS_FMT_MAX], err[512];
	uint32_t		mask;

	if ((e->port == 0) != (e->proto == EGRESS_PROTO_ANY))
		abort();
	switch (e->kind) {
	case EGRESS_NAME:
		if (!policy_valid_hostname(e->name))
			abort();
		break;
	case EGRESS_WILDCARD:
		if (!policy_valid_hostname(e->name) ||
		    strchr(e->name, '.') == NULL)
			abort();
		break;
	case EGRESS_ADDR:
	case EGRESS_CIDR:
		if (e->name[0] != '\0' || e->prefixlen > 32 ||
		    (e->kind == EGRESS_ADDR && e->prefixlen != 32))
			abort();
		mask = e->prefixlen == 0 ? 0 : 0xffffffffU <<
		    (32 - e->prefixlen);
		if ((e->addr & ~mask) != 0)
			abort();
		break;
	default:
		abort();
	}
	/* canonical text: parses back to the same struct, and is stable */
	policy_entry_fmt(e, buf, sizeof(buf));
	memset(&back, 0, sizeof(back));
	if (policy_parse_entry(buf, &back, err, sizeof(err)) == -1 ||
	    memcmp(e, &back, sizeof(back)) != 0)
		abort();
}

/* what the matcher claims, recomputed the obvious way */
static void
check_match(const struct egress_entry *e, size_t n, const char *qname)
{
	char	q[EGRESS_NAME_MAX + 2];
	size_t	idx[MAXLINES], got, i, ql, dl;

	got = policy_name_allowed(e, n, qname, idx, MAXLINES);
	if (got > n)
		abort();
	if (got == 0)
		return;
	/* entries never end in an all-digit label, so neither does a match */
	if (!policy_valid_hostname(qname))
		abort();
	ql = strlen(qname);
	if (ql > 0 && qname[ql - 1] == '.')
		ql--;
	if (ql > EGRESS_NAME_MAX)
		abort();
	for (i = 0; i < ql; i++)
		q[i] = (qname[i] >= 'A' && qname[i] <= 'Z') ?
		    (char)(qname[i] - 'A' + 'a') : qname[i];
	q[ql] = '\0';
	for (i = 0; i < got; i++) {
		if (i > 0 && idx[i] <= idx[i - 1])
			abort();
		dl = strlen(e[idx[i]].name);
		if (e[idx[i]].kind == EGRESS_NAME) {
			if (strcmp(q, e[idx[i]].name) != 0)
				abort();
		} else if (e[idx[i]].kind == EGRESS_WILDCARD) {
			if (ql <= dl + 1 || q[ql - dl - 1] != '.' ||
			    strcmp(q + ql - dl, e[idx[i]].name) != 0)
				abort();
		} else
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct nftgen_net net = {
		"jbbr0", 0x0a630000, 24, 0x0a630001, 53, NULL, 0, 0, 0
	};
	struct egress_entry	 e[MAXLINES], keep;
	struct nftgen_container	 c, d;
	static const struct nftgen_dyn dyn = {
		0x0a630002, 0x5db8d822, EGRESS_PROTO_TCP, 443
	};
	struct privnet		 pv[PRIVNET_MAX];
	char			*buf, *line, *next, *qname, *out, err[512];
	size_t			 n = 0, i, npv;
	uint32_t		 mask;

	if ((buf = malloc(size + 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	qname = buf;
	if ((next = strchr(buf, '\n')) != NULL)
		*next = '\0';
	if (privnet_parse(buf, pv, PRIVNET_MAX, &npv, err, sizeof(err)) ==
	    0) {
		for (i = 0; i < npv; i++) {
			if (pv[i].prefixlen < 4 || pv[i].prefixlen > 32)
				abort();
			mask = 0xffffffffU << (32 - pv[i].prefixlen);
			if ((pv[i].net & ~mask) != 0 ||
			    !privnet_admissible(pv[i].net | ~mask, NULL, 0, pv,
			    npv))
				abort();
		}
	} else if (strncmp(err, "resolver.private_networks: ", 27) != 0)
		abort();
	if (next != NULL)
		*next = '\n';
	for (line = buf, i = 0; line != NULL && i < MAXLINES; line = next,
	    i++) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		memset(&e[n], 0x5a, sizeof(e[n]));
		keep = e[n];
		err[0] = '\0';
		if (policy_parse_entry(line, &e[n], err, sizeof(err)) == 0) {
			check_entry(&e[n]);
			n++;
			continue;
		}
		if (memcmp(&e[n], &keep, sizeof(keep)) != 0 ||
		    strncmp(err, "egress_allow entry \"", 20) != 0)
			abort();
	}
	check_match(e, n, qname);

	/* whatever was accepted compiles */
	memset(&c, 0, sizeof(c));
	c.name = "fuzz";
	c.addr = 0x0a630002;
	c.mode = NFTGEN_STRICT;
	c.entries = e;
	c.nentries = n;
	if (nftgen_ruleset(&net, &c, 1, NULL, &out, err, sizeof(err)) == -1)
		abort();
	free(out);
	/*
	 * and as deltas: made (what was admitted from its address going),
	 * the first half of the entries dropped, forgotten
	 */
	d = c;
	d.nentries = n / 2;
	if (nftgen_delta(&net, NULL, 0, &c, 1, &dyn, 1, &out, err,
	    sizeof(err)) == -1)
		abort();
	free(out);
	if (nftgen_delta(&net, &c, 1, &d, 1, NULL, 0, &out, err,
	    sizeof(err)) == -1)
		abort();
	free(out);
	if (nftgen_delta(&net, &d, 1, NULL, 0, &dyn, 1, &out, err,
	    sizeof(err)) == -1)
		abort();
	free(out);
	free(buf);
	return 0;
}
