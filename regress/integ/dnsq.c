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
 * dnsq: a DNS client for the tests and the benchmark, built static so it
 * runs inside the test image (which has no TCP-capable resolver tool).
 *
 *	dnsq [-t] [-F] [-n count] [-w count] [-T type] server[:port] name...
 *
 * Asks each name (type A, or -T number) of server over UDP or, with -t,
 * over TCP: all the names pipelined on one connection, written at once,
 * then the sending side shut down (the answers must come all the same).
 * Prints each answer as "id ID RCODE" and one "A ADDR ttl TTL" line per
 * record.  -F sends a malformed query (two questions announced, one
 * there) instead.  -n asks the first name count times (a new TCP
 * connection each) and prints the median and 90th percentile latency in
 * microseconds, then the median in nanoseconds (median_ns: a
 * microsecond is 3 % of a 30 us answer); -w (with -n) asks it count
 * times more before, untimed.
 * Exit 0 when every answer came, 1 otherwise.
 */

#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAMES_MAX	16

static const char *rcodes[] = { "NOERROR", "FORMERR", "SERVFAIL",
    "NXDOMAIN", "NOTIMP", "REFUSED" };

static struct sockaddr_in	server;
static int			tcp, malformed;
static unsigned			qtype = 1;

static void
usage(void)
{
	fprintf(stderr, "usage: dnsq [-t] [-F] [-n count] [-w count] "
	    "[-T type] server[:port] name...\n");
	exit(2);
}

/* the query for name into q; returns its length */
static size_t
query(uint16_t id, const char *name, uint8_t *q)
{
	size_t		off = 12, l;
	const char	*p = name, *dot;

	memset(q, 0, 12);
	q[0] = id >> 8;
	q[1] = id & 0xff;
	q[2] = 0x01;			/* RD */
	q[5] = malformed ? 2 : 1;	/* questions */
	while (*p != '\0') {
		dot = strchr(p, '.');
		l = dot != NULL ? (size_t)(dot - p) : strlen(p);
		if (l == 0 || l > 63 || off + l > 270) {
			fprintf(stderr, "dnsq: bad name %s\n", name);
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
	q[off++] = qtype >> 8;
	q[off++] = qtype & 0xff;
	q[off++] = 0;
	q[off++] = 1;
	return off;
}

/* a name at m[off]: the offset after it, or 0 */
static size_t
skipname(const uint8_t *m, size_t len, size_t off)
{
	while (off < len) {
		if ((m[off] & 0xc0) == 0xc0)
			return off + 2 <= len ? off + 2 : 0;
		if (m[off] == 0)
			return off + 1;
		off += 1 + m[off];
	}
	return 0;
}

static int
print_answer(const uint8_t *m, size_t len)
{
	size_t		off = 12;
	unsigned	qd, an, i, type, rdlen, rcode;
	unsigned long	ttl;
	char		a[INET_ADDRSTRLEN];

	if (len < 12) {
		printf("short answer (%zu bytes)\n", len);
		return -1;
	}
	rcode = m[3] & 0x0f;
	printf("id %u %s\n", (unsigned)(m[0] << 8 | m[1]),
	    rcode < 6 ? rcodes[rcode] : "rcode?");
	qd = (unsigned)(m[4] << 8 | m[5]);
	an = (unsigned)(m[6] << 8 | m[7]);
	for (i = 0; i < qd; i++)
		if ((off = skipname(m, len, off)) == 0 || (off += 4) > len)
			return -1;
	for (i = 0; i < an; i++) {
		if ((off = skipname(m, len, off)) == 0 || off + 10 > len)
			return -1;
		type = (unsigned)(m[off] << 8 | m[off + 1]);
		ttl = (unsigned long)m[off + 4] << 24 | m[off + 5] << 16 |
		    m[off + 6] << 8 | m[off + 7];
		rdlen = (unsigned)(m[off + 8] << 8 | m[off + 9]);
		off += 10;
		if (off + rdlen > len)
			return -1;
		if (type == 1 && rdlen == 4)
			printf("A %s ttl %lu\n", inet_ntop(AF_INET, m + off, a,
			    sizeof(a)), ttl);
		off += rdlen;
	}
	return 0;
}

static int
readn(int fd, uint8_t *b, size_t n)
{
	ssize_t	r;
	size_t	got = 0;

	while (got < n) {
		if ((r = read(fd, b + got, n - got)) <= 0) {
			fprintf(stderr, "dnsq: tcp read: %s\n", r == 0 ?
			    "connection closed" : strerror(errno));
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

/* ask every name; print answers unless quiet.  0 or -1 */
static int
ask(char **names, int nnames, int quiet)
{
	struct timeval	tv = { 5, 0 };
	uint8_t		out[NAMES_MAX * 300], in[65536];
	size_t		off = 0, l;
	ssize_t		r;
	int		fd, i, rc = 0;

	if ((fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    connect(fd, (struct sockaddr *)&server, sizeof(server)) == -1) {
		fprintf(stderr, "dnsq: connect: %s\n", strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	for (i = 0; i < nnames; i++) {
		if (tcp) {
			l = query((uint16_t)(0x1000 + i), names[i],
			    out + off + 2);
			out[off] = (uint8_t)(l >> 8);
			out[off + 1] = (uint8_t)l;
			off += 2 + l;
		} else {
			l = query((uint16_t)(0x1000 + i), names[i], out);
			if (send(fd, out, l, 0) == -1) {
				fprintf(stderr, "dnsq: send: %s\n",
				    strerror(errno));
				rc = -1;
				break;
			}
			if ((r = recv(fd, in, sizeof(in), 0)) == -1) {
				fprintf(stderr, "dnsq: no answer: %s\n",
				    strerror(errno));
				rc = -1;
				break;
			}
			if (!quiet && print_answer(in, (size_t)r) == -1)
				rc = -1;
		}
	}
	if (tcp && rc == 0) {
		/* then half-close: the server must still answer them all */
		if (write(fd, out, off) != (ssize_t)off ||
		    shutdown(fd, SHUT_WR) == -1) {
			fprintf(stderr, "dnsq: tcp write: %s\n",
			    strerror(errno));
			rc = -1;
		}
		for (i = 0; rc == 0 && i < nnames; i++) {
			if (readn(fd, in, 2) == -1 ||
			    readn(fd, in, (size_t)(in[0] << 8 | in[1])) == -1) {
				rc = -1;
				break;
			}
			l = (size_t)(in[0] << 8 | in[1]);
			if (!quiet && print_answer(in, l) == -1)
				rc = -1;
		}
	}
	close(fd);
	return rc;
}

static int
cmp(const void *a, const void *b)
{
	long	x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	struct timespec	t0, t1;
	char		*colon, *end;
	long		*ns;
	int		ch, count = 0, warm = 0, i;

	while ((ch = getopt(argc, argv, "tFn:w:T:")) != -1) {
		switch (ch) {
		case 't':
			tcp = 1;
			break;
		case 'F':
			malformed = 1;
			break;
		case 'n':
			count = atoi(optarg);
			if (count < 1)
				usage();
			break;
		case 'w':
			warm = atoi(optarg);
			if (warm < 0)
				usage();
			break;
		case 'T':
			qtype = (unsigned)strtoul(optarg, &end, 10);
			if (*end != '\0' || qtype == 0 || qtype > 65535)
				usage();
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || argc - 1 > NAMES_MAX)
		usage();
	memset(&server, 0, sizeof(server));
	server.sin_family = AF_INET;
	server.sin_port = htons(53);
	if ((colon = strchr(argv[0], ':')) != NULL) {
		*colon = '\0';
		server.sin_port = htons((uint16_t)atoi(colon + 1));
	}
	if (inet_pton(AF_INET, argv[0], &server.sin_addr) != 1)
		usage();
	/* a warm-up is of the timed queries only */
	if (warm > 0 && count == 0)
		usage();
	if (count == 0)
		return ask(argv + 1, argc - 1, 0) == 0 ? 0 : 1;
	if ((ns = calloc((size_t)count, sizeof(*ns))) == NULL)
		return 1;
	for (i = 0; i < warm; i++)
		if (ask(argv + 1, 1, 1) == -1)
			return 1;
	for (i = 0; i < count; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (ask(argv + 1, 1, 1) == -1)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns[i] = (t1.tv_sec - t0.tv_sec) * 1000000000L +
		    (t1.tv_nsec - t0.tv_nsec);
	}
	qsort(ns, (size_t)count, sizeof(*ns), cmp);
	printf("median_us %ld p90_us %ld n %d median_ns %ld\n",
	    ns[count / 2] / 1000, ns[count * 9 / 10] / 1000, count,
	    ns[count / 2]);
	return 0;
}
