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
 * dnsflood: COUNT distinct names (f<i>.<suffix>) asked of server over
 * UDP, as fast as the answers come back: at most WINDOW unanswered at
 * once, an unanswered one given up after 200 ms.  For the benchmark of
 * what jb-netd keeps of refused names; built static, run in a
 * container's network namespace.
 *
 *	dnsflood server count suffix
 *
 * Prints "sent N answered N nxdomain N seconds S".
 */

#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WINDOW	64

static size_t
query(uint16_t id, const char *name, uint8_t *q)
{
	size_t		off = 12, l;
	const char	*p = name, *dot;

	memset(q, 0, 12);
	q[0] = id >> 8;
	q[1] = id & 0xff;
	q[2] = 0x01;
	q[5] = 1;
	while (*p != '\0') {
		dot = strchr(p, '.');
		l = dot != NULL ? (size_t)(dot - p) : strlen(p);
		if (l == 0 || l > 63 || off + l > 270) {
			fprintf(stderr, "dnsflood: bad name %s\n", name);
			exit(2);
		}
		q[off++] = (uint8_t)l;
		memcpy(q + off, p, l);
		off += l;
		p += l;
		if (*p == '.')
			p++;
	}
	q[off++] = 0;
	q[off++] = 0;
	q[off++] = 1;
	q[off++] = 0;
	q[off++] = 1;
	return off;
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sa;
	struct pollfd		 pfd;
	struct timespec		 t0, t1;
	uint8_t			 q[300], a[1500];
	char			 name[256];
	long			 count, sent = 0, answered = 0, nx = 0;
	int			 fd, out = 0, r;
	ssize_t			 n;

	if (argc != 4 || (count = strtol(argv[2], NULL, 10)) < 1) {
		fprintf(stderr, "usage: dnsflood server count suffix\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(53);
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
		fprintf(stderr, "dnsflood: %s: not an IPv4 address\n", argv[1]);
		return 2;
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		perror("dnsflood: socket");
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sent < count || out > 0) {
		while (sent < count && out < WINDOW) {
			(void)snprintf(name, sizeof(name), "f%ld.%s", sent,
			    argv[3]);
			if (send(fd, q, query((uint16_t)sent, name, q), 0) ==
			    -1 && errno != ECONNREFUSED) {
				perror("dnsflood: send");
				return 1;
			}
			sent++;
			out++;
		}
		if ((r = poll(&pfd, 1, 200)) == -1) {
			perror("dnsflood: poll");
			return 1;
		}
		if (r == 0) {
			/* what did not come back is given up */
			out = 0;
			continue;
		}
		while ((n = recv(fd, a, sizeof(a), MSG_DONTWAIT)) > 0) {
			if (n >= 12) {
				answered++;
				if ((a[3] & 0x0f) == 3)
					nx++;
			}
			if (out > 0)
				out--;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("sent %ld answered %ld nxdomain %ld seconds %.2f\n", sent,
	    answered, nx, (double)(t1.tv_sec - t0.tv_sec) +
	    (t1.tv_nsec - t0.tv_nsec) / 1e9);
	close(fd);
	return 0;
}
