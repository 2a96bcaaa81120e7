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
 * blocked_cost [COUNT]: what counting one refused name costs jb-netd
 * (blocked.c, the call the resolver makes per refusal), with the table
 * full: COUNT (default 1,000,000) distinct new names, each evicting the
 * least recently asked, then COUNT names already in the table.  Prints
 * "new_ns N known_ns N" (nanoseconds per call, CPU time of this
 * process), which regress/bench/netcount sets against a DNS answer's
 * latency: a figure that the machine's load around does not move.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocked.h"

static double
cpu_ns(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int
main(int argc, char *argv[])
{
	struct blocked	b;
	char		name[64];
	long		count = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	long		i;
	double		t0, t_new, t_known;

	if (count < BLOCKED_MAX) {
		fprintf(stderr, "usage: blocked_cost [COUNT >= %d]\n",
		    BLOCKED_MAX);
		return 2;
	}
	memset(&b, 0, sizeof(b));
	/* full, as after a flood */
	for (i = 0; i < BLOCKED_MAX; i++) {
		(void)snprintf(name, sizeof(name), "fill%ld.flood.test", i);
		if (blocked_note(&b, "jb-bench-c", name, i) == -1)
			return 1;
	}
	t0 = cpu_ns();
	for (i = 0; i < count; i++) {
		(void)snprintf(name, sizeof(name), "new%ld.flood.test", i);
		(void)blocked_note(&b, "jb-bench-c", name, BLOCKED_MAX + i);
	}
	t_new = (cpu_ns() - t0) / count;
	t0 = cpu_ns();
	for (i = 0; i < count; i++) {
		/* the last BLOCKED_MAX asked are all kept */
		(void)snprintf(name, sizeof(name), "new%ld.flood.test",
		    count - 1 - i % BLOCKED_MAX);
		(void)blocked_note(&b, "jb-bench-c", name, 2 * count + i);
	}
	t_known = (cpu_ns() - t0) / count;
	if (b.n != BLOCKED_MAX)
		return 1;
	printf("new_ns %.0f known_ns %.0f\n", t_new, t_known);
	blocked_free(&b);
	return 0;
}
