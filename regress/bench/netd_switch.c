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
 * netd_switch BRIDGE N RUNS: the cost of jb-netd's loose -> strict switch
 * for one container with N allow entries (distinct addresses, one port
 * each) on the real kernel, beside the anchor: `nft -f` of the same
 * strict ruleset, as jb-netd's start-up applies it (and as every switch
 * did before deltas); and of net egress rm of one of the entries of that
 * strict container.  Both are the delta transactions jb-netd makes after
 * its start-up.  Prints "N switch_ms nft_ms rm_ms" (medians).  It replaces
 * table inet jailbee: run it under the integration lock, with no suite
 * up (regress/bench/run does).
 */

#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event.h>

#include "netd_nft.h"
#include "netd_state.h"
#include "nftgen.h"

static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
dcmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(*v), dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char *argv[])
{
	struct nftgen_net	 net;
	struct netd_state	 st;
	struct netd_ctr		*c;
	char			 err[1024], *text, path[] = "/tmp/netd_switchXXXXXX";
	double			*tj, *tn, *ta, t0;
	int			 n, runs, i, fd, status;
	pid_t			 pid;
	FILE			*f;

	if (argc != 4 || (n = atoi(argv[2])) < 2 || n > NETD_ENTRIES_MAX ||
	    (runs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: netd_switch bridge entries runs\n");
		return 2;
	}
	memset(&net, 0, sizeof(net));
	net.bridge = argv[1];
	net.subnet = 0x0ad50000;	/* 10.213.0.0/24 */
	net.prefixlen = 24;
	net.host = 0x0ad50001;
	net.dns_port = 10053;
	memset(&st, 0, sizeof(st));
	if ((st.v = calloc(1, sizeof(*st.v))) == NULL ||
	    (tj = calloc(runs, sizeof(*tj))) == NULL ||
	    (tn = calloc(runs, sizeof(*tn))) == NULL ||
	    (ta = calloc(runs, sizeof(*ta))) == NULL)
		return 1;
	st.n = 1;
	c = &st.v[0];
	strlcpy(c->name, "bench-switch", sizeof(c->name));
	c->addr = 0x0ad500fe;
	if ((c->e = calloc(n, sizeof(*c->e))) == NULL)
		return 1;
	c->n = n;
	for (i = 0; i < n; i++) {
		/* 198.18.0.0/15, the benchmarking block: never routed */
		c->e[i].kind = EGRESS_ADDR;
		c->e[i].addr = 0xc6120000 + (uint32_t)i;
		c->e[i].prefixlen = 32;
		c->e[i].proto = EGRESS_PROTO_TCP;
		c->e[i].port = 443;
	}
	/* jb-netd's event base: its idle timer frees libnftables' context */
	(void)event_init();
	if (netd_nft_init(err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (i = 0; i < runs; i++) {
		/* loose, then the switch as jb-netd makes it */
		c->mode = NFTGEN_LOOSE;
		if (netd_nft_apply(&net, &st, 1, err, sizeof(err)) == -1)
			goto fail;
		c->mode = NFTGEN_STRICT;
		t0 = now_ms();
		if (netd_nft_mode(&net, c->name, NFTGEN_STRICT, err,
		    sizeof(err)) == -1)
			goto fail;
		tj[i] = now_ms() - t0;

		/* net egress rm of the last entry of the strict container */
		c->n = n - 1;
		t0 = now_ms();
		if (netd_nft_apply(&net, &st, 0, err, sizeof(err)) == -1)
			goto fail;
		ta[i] = now_ms() - t0;
		c->n = n;

		/* the anchor: the same strict ruleset through nft -f */
		c->mode = NFTGEN_LOOSE;
		if (netd_nft_apply(&net, &st, 1, err, sizeof(err)) == -1)
			goto fail;
		{
			struct nftgen_container	nc;

			memset(&nc, 0, sizeof(nc));
			nc.name = c->name;
			nc.addr = c->addr;
			nc.mode = NFTGEN_STRICT;
			nc.entries = c->e;
			nc.nentries = c->n;
			if (nftgen_ruleset(&net, &nc, 1, NULL, &text, err,
			    sizeof(err)) == -1)
				goto fail;
		}
		strcpy(path, "/tmp/netd_switchXXXXXX");
		if ((fd = mkstemp(path)) == -1 ||
		    (f = fdopen(fd, "w")) == NULL)
			return 1;
		/*
		 * as a rebuild makes it, from a new table: over the loose
		 * table's sets, nft -f would first flush 10,000 interval
		 * elements and add them again, which takes the kernel
		 * seconds and would flatter the ratio
		 */
		fputs("add table inet " NFTGEN_TABLE "\n"
		    "delete table inet " NFTGEN_TABLE "\n", f);
		fputs(text, f);
		fclose(f);
		free(text);
		t0 = now_ms();
		if ((pid = fork()) == 0) {
			execlp("nft", "nft", "-f", path, (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		tn[i] = now_ms() - t0;
		unlink(path);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "nft -f failed\n");
			return 1;
		}
	}
	/* leave the table as a suite with no container has it: closed */
	st.n = 0;
	if (netd_nft_apply(&net, &st, 1, err, sizeof(err)) == -1)
		goto fail;
	printf("%d %.2f %.2f %.2f\n", n, median(tj, runs), median(tn, runs),
	    median(ta, runs));
	return 0;
fail:
	fprintf(stderr, "netd_switch: %s\n", err);
	return 1;
}
