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
 * bridge_rules BRIDGE N: the ruleset jb-netd applies at start-up for N
 * loose containers c1..cN at 10.50.0.2 and up on BRIDGE (host address
 * 10.50.0.1/24), both tables, as nftgen writes it (for
 * regress/bench/bridge_filter).
 */

#include <stdio.h>
#include <stdlib.h>

#include "nftgen.h"

int
main(int argc, char *argv[])
{
	struct nftgen_net	 net = { 0 };
	struct nftgen_container	*c;
	char			 err[512], *text, (*names)[16];
	long			 n, i;

	if (argc != 3 || (n = strtol(argv[2], NULL, 10)) < 1 || n > 250) {
		fprintf(stderr, "usage: bridge_rules bridge 1-250\n");
		return 2;
	}
	net.bridge = argv[1];
	net.subnet = 0x0a320000;	/* 10.50.0.0 */
	net.prefixlen = 24;
	net.host = 0x0a320001;
	net.dns_port = 53;
	if ((c = calloc(n, sizeof(*c))) == NULL ||
	    (names = calloc(n, sizeof(*names))) == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		(void)snprintf(names[i], sizeof(names[i]), "c%ld", i + 1);
		c[i].name = names[i];
		c[i].addr = net.host + 1 + (uint32_t)i;
		c[i].mode = NFTGEN_LOOSE;
	}
	if (nftgen_ruleset(&net, c, n, NULL, &text, err, sizeof(err)) == -1) {
		fprintf(stderr, "bridge_rules: %s\n", err);
		return 1;
	}
	fputs(text, stdout);
	free(text);
	free(c);
	free(names);
	return 0;
}
