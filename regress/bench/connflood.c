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
 * regress/bench/netcount's TCP client, run (built static) in a
 * container's network namespace.
 *
 *	connflood -r addr port n	n connections set up one after the
 *					other; prints "median US mean US
 *					ok N refused N" (microseconds each,
 *					to connected or refused)
 *	connflood addr first count	one SYN to each of count ports from
 *					first on, the socket closed at once;
 *					prints "sent N seconds S"
 */

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
dcmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
rate(struct sockaddr_in *sa, long n)
{
	double	*t, t0, sum = 0;
	long	 i, ok = 0, refused = 0;
	int	 s;

	if ((t = calloc(n, sizeof(*t))) == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			return 1;
		t0 = now_us();
		if (connect(s, (struct sockaddr *)sa, sizeof(*sa)) == 0)
			ok++;
		else if (errno == ECONNREFUSED)
			refused++;
		else {
			perror("connect");
			return 1;
		}
		t[i] = now_us() - t0;
		sum += t[i];
		close(s);
	}
	qsort(t, n, sizeof(*t), dcmp);
	printf("median %.1f mean %.1f ok %ld refused %ld\n", t[n / 2],
	    sum / n, ok, refused);
	free(t);
	return 0;
}

static int
flood(struct sockaddr_in *sa, long first, long count)
{
	double	t0 = now_us();
	long	i, sent = 0;
	int	s;

	for (i = 0; i < count; i++) {
		sa->sin_port = htons((uint16_t)(first + i));
		if ((s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1)
			return 1;
		if (connect(s, (struct sockaddr *)sa, sizeof(*sa)) == 0 ||
		    errno == EINPROGRESS || errno == ECONNREFUSED)
			sent++;
		close(s);
	}
	printf("sent %ld seconds %.2f\n", sent, (now_us() - t0) / 1e6);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	sa;
	int			r = 0;
	long			a, b;

	if (argc == 5 && strcmp(argv[1], "-r") == 0)
		r = 1;
	else if (argc != 4) {
		fprintf(stderr, "usage: connflood -r addr port n | "
		    "connflood addr first count\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[1 + r], &sa.sin_addr) != 1)
		return 2;
	a = strtol(argv[2 + r], NULL, 10);
	b = strtol(argv[3 + r], NULL, 10);
	if (a < 1 || a > 65535 || b < 1 || (!r && a + b - 1 > 65535))
		return 2;
	if (r) {
		sa.sin_port = htons((uint16_t)a);
		return rate(&sa, b);
	}
	return flood(&sa, a, b);
}
