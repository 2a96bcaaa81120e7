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
 * dash_draw [ROWS [ROUNDS]]: what one redraw of jbctl dashboard costs
 * with ROWS (default 200) containers all on the screen (an xterm of
 * ROWS * 2 + 10 lines, 240 columns, written to /dev/null), each a loose
 * countdown and a mount deadline, so that every row changes between two
 * draws, as on the clock's tick.  Prints the median and the worst of
 * ROUNDS (default 200) draws in milliseconds of wall time, beside the
 * 16 ms of one frame at 60 Hz.
 */

#define NCURSES_WIDECHAR 1

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dash.h"

static double
now_ms(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	struct dash	*d;
	struct dash_row	*r;
	SCREEN		*scr;
	FILE		*out, *in;
	double		*ms, t0;
	char		 lines[16];
	int		 nrows = argc > 1 ? atoi(argv[1]) : 200;
	int		 rounds = argc > 2 ? atoi(argv[2]) : 200;
	int		 i, k;
	time_t		 now = time(NULL);

	if (nrows <= 0 || rounds <= 0) {
		fprintf(stderr, "usage: dash_draw [ROWS [ROUNDS]]\n");
		return 2;
	}
	setlocale(LC_ALL, "C.UTF-8");
	snprintf(lines, sizeof(lines), "%d", nrows * 2 + 10);
	setenv("LINES", lines, 1);
	setenv("COLUMNS", "240", 1);
	if ((out = fopen("/dev/null", "w")) == NULL ||
	    (in = fopen("/dev/null", "r")) == NULL ||
	    (scr = newterm("xterm", out, in)) == NULL) {
		fprintf(stderr, "dash_draw: no xterm terminal description\n");
		return 1;
	}
	set_term(scr);
	if ((d = calloc(1, sizeof(*d))) == NULL ||
	    (d->rows = calloc(nrows, sizeof(*d->rows))) == NULL ||
	    (ms = calloc(rounds, sizeof(*ms))) == NULL)
		return 1;
	d->nrows = nrows;
	for (i = 0; i < nrows; i++) {
		r = &d->rows[i];
		snprintf(r->in.name, sizeof(r->in.name), "bench-%03d", i);
		strlcpy(r->in.state, "Running", sizeof(r->in.state));
		strlcpy(r->in.net, "loose", sizeof(r->in.net));
		snprintf(r->in.ipv4, sizeof(r->in.ipv4), "10.213.%u.%u",
		    (unsigned)(i / 250) % 256, (unsigned)(i % 250 + 2));
		snprintf(r->in.branch, sizeof(r->in.branch), "feature-%d", i);
		r->in.nmounts = 1;
		r->nmount = 1;
		strlcpy(r->mount_kind[0], "aws", sizeof(r->mount_kind[0]));
		strlcpy(r->windows, "claude build", sizeof(r->windows));
		snprintf(r->refused, sizeof(r->refused),
		    "blocked-%d.example.org", i);
	}
	for (k = 0; k < rounds; k++) {
		/* every countdown moves, as a second passes */
		for (i = 0; i < nrows; i++) {
			d->rows[i].in.net_until = now + 3600 + i * 7 - k;
			d->rows[i].mount_until[0] = now + 600 + i - k;
		}
		t0 = now_ms();
		dash_draw(d);
		ms[k] = now_ms() - t0;
	}
	endwin();
	delscreen(scr);
	qsort(ms, rounds, sizeof(*ms), cmp);
	printf("dashboard redraw of %d rows: median %.2f ms, worst %.2f ms "
	    "(one frame at 60 Hz: 16 ms)\n", nrows, ms[rounds / 2],
	    ms[rounds - 1]);
	return 0;
}
