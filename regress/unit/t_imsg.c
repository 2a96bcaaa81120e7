/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event.h>
#include <signal.h>

#include <atf-c.h>

#include "imsg.h"
#include "imsgev.h"

/* open fds of this process; the directory handle counts the same each time */
static int
count_fds(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int
fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static void
mkpair(int sv[2])
{
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
}

static void
set_nonblock(int fd)
{
	int	fl;

	ATF_REQUIRE((fl = fcntl(fd, F_GETFL)) != -1);
	ATF_REQUIRE(fcntl(fd, F_SETFL, fl | O_NONBLOCK) != -1);
}

static void
write_all(int fd, const void *p, size_t len)
{
	const unsigned char	*b = p;
	ssize_t			 n;

	while (len > 0) {
		n = write(fd, b, len);
		ATF_REQUIRE(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

/* read (blocking) until one message is complete */
static void
get_one(struct imsgbuf *ib, struct imsg *imsg)
{
	int	r;

	while ((r = imsgbuf_get(ib, imsg)) == 0)
		ATF_REQUIRE_EQ(imsgbuf_read(ib), 1);
	ATF_REQUIRE_EQ(r, 1);
}

static void
raw_hdr(unsigned char *p, uint32_t type, uint32_t len, uint32_t peerid,
    uint32_t pid)
{
	struct imsg_hdr	h = { type, len, peerid, pid };

	memcpy(p, &h, sizeof(h));
}

/* a byte through a received pipe end proves which pipe it is */
static void
check_pipe(int wfd, int rfd, unsigned char tag)
{
	unsigned char	c = 0;

	ATF_REQUIRE(wfd != -1);
	ATF_REQUIRE_EQ(write(wfd, &tag, 1), 1);
	ATF_REQUIRE_EQ(read(rfd, &c, 1), 1);
	ATF_REQUIRE_EQ(c, tag);
}

ATF_TC_WITHOUT_HEAD(roundtrip);
ATF_TC_BODY(roundtrip, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 m;
	struct ibuf	*w, v;
	uint32_t	 u, x = 0xdeadbeef;
	char		 s[32];
	int		 sv[2], before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);

	ATF_REQUIRE_EQ(imsg_compose(&a, 7, 42, 0, -1, &x, sizeof(x)), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 8, 43, 1234, -1, NULL, 0), 0);
	ATF_REQUIRE((w = imsg_create(&a, 9, 44, 0, 4)) != NULL);
	ATF_REQUIRE_EQ(imsg_add(w, &x, sizeof(x)), (int)sizeof(x));
	ATF_REQUIRE_EQ(ibuf_add_string(w, "jailbee"), 0);
	imsg_close(&a, w);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 3);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);

	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 7);
	ATF_REQUIRE_EQ(imsg_get_id(&m), 42);
	ATF_REQUIRE_EQ(imsg_get_pid(&m), getpid());
	ATF_REQUIRE_EQ(imsg_get_len(&m), sizeof(x));
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	u = 0;
	ATF_REQUIRE_EQ(imsg_get_data(&m, &u, sizeof(u)), 0);
	ATF_REQUIRE_EQ(u, x);
	imsg_free(&m);

	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 8);
	ATF_REQUIRE_EQ(imsg_get_id(&m), 43);
	ATF_REQUIRE_EQ(imsg_get_pid(&m), 1234);
	ATF_REQUIRE_EQ(imsg_get_len(&m), 0);
	ATF_REQUIRE_EQ(imsg_get_data(&m, NULL, 0), 0);
	ATF_REQUIRE_EQ(imsg_get_ibuf(&m, &v), 0);
	ATF_REQUIRE_EQ(ibuf_size(&v), 0);
	imsg_free(&m);

	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 9);
	ATF_REQUIRE_EQ(imsg_get_len(&m), 4 + 4 + 7);
	ATF_REQUIRE_EQ(imsg_get_ibuf(&m, &v), 0);
	ATF_REQUIRE_EQ(ibuf_get_n32(&v, &u), 0);
	ATF_REQUIRE_EQ(u, x);
	ATF_REQUIRE_EQ(ibuf_get_string(&v, s, sizeof(s)), 0);
	ATF_REQUIRE_STREQ(s, "jailbee");
	ATF_REQUIRE_EQ(ibuf_size(&v), 0);
	/* the view is read-only and reading it left the message intact */
	ATF_REQUIRE_ERRNO(ERANGE, ibuf_add(&v, &x, 1) == -1);
	ATF_REQUIRE_EQ(imsg_get_len(&m), 15);
	imsg_free(&m);

	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 0);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(many_in_one_read);
ATF_TC_BODY(many_in_one_read, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	uint32_t	i, v;
	int		sv[2];

	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	for (i = 0; i < 500; i++)
		ATF_REQUIRE_EQ(imsg_compose(&a, 1, i, 0, -1, &i,
		    sizeof(i)), 0);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);

	/* 500 * 20 bytes fit one read */
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	for (i = 0; i < 500; i++) {
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 1);
		ATF_REQUIRE_EQ(imsg_get_id(&m), i);
		ATF_REQUIRE_EQ(imsg_get_data(&m, &v, sizeof(v)), 0);
		ATF_REQUIRE_EQ(v, i);
		imsg_free(&m);
	}
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 0);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
}

/* resident pages of [p, p + len), whole pages inside it only */
static size_t
resident(const void *p, size_t len)
{
	uintptr_t	 pg = (uintptr_t)getpagesize();
	uintptr_t	 start = ((uintptr_t)p + pg - 1) & ~(pg - 1);
	uintptr_t	 end = ((uintptr_t)p + len) & ~(pg - 1);
	unsigned char	 vec[64];
	size_t		 i, n = 0;

	ATF_REQUIRE(end > start && (end - start) / pg <= sizeof(vec));
	ATF_REQUIRE(mincore((void *)start, end - start, vec) == 0);
	for (i = 0; i < (end - start) / pg; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * Drained after a burst, the buffer keeps its first 8 kB only: the
 * pages the burst wrote past them are given back; what comes after (an
 * fd with its message, another burst) reads as before.
 */
ATF_TC_WITHOUT_HEAD(drained_buffer_released);
ATF_TC_BODY(drained_buffer_released, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	char		payload[1000];
	uint32_t	i, round;
	int		sv[2], p[2], fd;

	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	ATF_REQUIRE(pipe(p) == 0);
	for (round = 0; round < 2; round++) {
		/* 40 messages of 1016 bytes: 40 kB, in one or a few reads */
		for (i = 0; i < 40; i++) {
			memset(payload, 'a' + (int)(i % 26), sizeof(payload));
			ATF_REQUIRE_EQ(imsg_compose(&a, 2, i, 0, -1, payload,
			    sizeof(payload)), 0);
		}
		ATF_REQUIRE_EQ(imsg_compose(&a, 3, round, 0,
		    round == 0 ? p[1] : -1, "x", 1), 0);
		ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
		for (i = 0; i < 40; i++) {
			get_one(&b, &m);
			ATF_REQUIRE_EQ(imsg_get_type(&m), 2);
			ATF_REQUIRE_EQ(imsg_get_id(&m), i);
			ATF_REQUIRE_EQ(imsg_get_data(&m, payload,
			    sizeof(payload)), 0);
			ATF_REQUIRE_EQ(payload[0], 'a' + (int)(i % 26));
			ATF_REQUIRE_EQ(payload[sizeof(payload) - 1],
			    'a' + (int)(i % 26));
			imsg_free(&m);
		}
		get_one(&b, &m);
		ATF_REQUIRE_EQ(imsg_get_type(&m), 3);
		ATF_REQUIRE_EQ(imsg_get_id(&m), round);
		fd = imsg_get_fd(&m);
		if (round == 0) {
			ATF_REQUIRE(fd != -1);
			check_pipe(fd, p[0], 'r');
			close(fd);
		} else
			ATF_REQUIRE_EQ(fd, -1);
		imsg_free(&m);
		ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 0);
		/* the burst wrote 40 kB; past the first 8 kB none is kept */
		ATF_CHECK_EQ(resident(b.rbuf + 8192, 40000 - 8192), 0);
	}
	close(p[0]);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(partial_reads);
ATF_TC_BODY(partial_reads, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 m;
	unsigned char	 stream[4096], payload[300];
	size_t		 len = 0, i, got = 0;
	ssize_t		 n;
	int		 sv[2], tv[2], r;

	/* encode three messages with the real writer, capture the bytes */
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)i;
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, -1, payload, 3), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 2, 0, 0, -1, NULL, 0), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 3, 0, 0, -1, payload,
	    sizeof(payload)), 0);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	imsgbuf_clear(&a);
	close(sv[0]);
	while ((n = read(sv[1], stream + len, sizeof(stream) - len)) > 0)
		len += (size_t)n;
	close(sv[1]);
	ATF_REQUIRE_EQ(len, 3 * IMSG_HEADER_SIZE + 3 + sizeof(payload));

	/* and feed them back one byte per read */
	mkpair(tv);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, tv[1]), 0);
	for (i = 0; i < len; i++) {
		write_all(tv[0], stream + i, 1);
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		while ((r = imsgbuf_get(&b, &m)) == 1) {
			got++;
			ATF_REQUIRE_EQ(imsg_get_type(&m), got);
			if (got == 1) {
				ATF_REQUIRE_EQ(i, IMSG_HEADER_SIZE + 3 - 1);
				ATF_REQUIRE_EQ(imsg_get_len(&m), 3);
			} else if (got == 2) {
				ATF_REQUIRE_EQ(i, 2 * IMSG_HEADER_SIZE + 3 - 1);
				ATF_REQUIRE_EQ(imsg_get_len(&m), 0);
			} else {
				ATF_REQUIRE_EQ(i, len - 1);
				ATF_REQUIRE(memcmp(ibuf_data(m.buf), payload,
				    sizeof(payload)) == 0);
			}
			imsg_free(&m);
		}
		ATF_REQUIRE_EQ(r, 0);
	}
	ATF_REQUIRE_EQ(got, 3);
	close(tv[0]);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 0);
	imsgbuf_clear(&b);
	close(tv[1]);
}

/* drain whatever is readable; checks sequence numbers in order */
static void
drain_seq(struct imsgbuf *b, uint32_t *next, size_t plen, int *eof)
{
	struct imsg	m;
	uint32_t	seq;
	int		r;

	if ((r = imsgbuf_read(b)) == 0)
		*eof = 1;
	ATF_REQUIRE(r != -1);
	while ((r = imsgbuf_get(b, &m)) == 1) {
		ATF_REQUIRE_EQ(imsg_get_id(&m), *next);
		ATF_REQUIRE_EQ(imsg_get_len(&m), plen);
		memcpy(&seq, ibuf_data(m.buf), sizeof(seq));
		ATF_REQUIRE_EQ(seq, *next);
		(*next)++;
		imsg_free(&m);
	}
	ATF_REQUIRE_EQ(r, 0);
}

ATF_TC_WITHOUT_HEAD(partial_writes);
ATF_TC_BODY(partial_writes, tc)
{
	struct imsgbuf	 a, b;
	unsigned char	 payload[8000];
	uint32_t	 i, next = 0, count = 100;
	int		 sv[2], sz = 4096, saw_partial = 0, eof = 0, rounds = 0;

	mkpair(sv);
	ATF_REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)) == 0);
	ATF_REQUIRE(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz,
	    sizeof(sz)) == 0);
	set_nonblock(sv[0]);
	set_nonblock(sv[1]);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	memset(payload, 0xa5, sizeof(payload));
	for (i = 0; i < count; i++) {
		memcpy(payload, &i, sizeof(i));
		ATF_REQUIRE_EQ(imsg_compose(&a, 5, i, 0, -1, payload,
		    sizeof(payload)), 0);
	}

	/* the socket fills long before 800 kB: write must stop, not fail */
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	ATF_REQUIRE(imsgbuf_queuelen(&a) > 0);
	ATF_REQUIRE(imsgbuf_queuelen(&a) < count);

	while (imsgbuf_queuelen(&a) > 0) {
		if (TAILQ_FIRST(&a.outq)->rpos != 0)
			saw_partial = 1;
		drain_seq(&b, &next, sizeof(payload), &eof);
		ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
		ATF_REQUIRE(++rounds < 100000);
	}
	while (next < count) {
		drain_seq(&b, &next, sizeof(payload), &eof);
		ATF_REQUIRE(!eof);
	}
	ATF_REQUIRE(saw_partial);
	ATF_REQUIRE_EQ(next, count);

	/* a dead peer is an error, not a signal */
	close(sv[1]);
	imsgbuf_clear(&b);
	ATF_REQUIRE_EQ(imsg_compose(&a, 5, 0, 0, -1, NULL, 0), 0);
	ATF_REQUIRE_ERRNO(EPIPE, imsgbuf_write(&a) == -1);
	imsgbuf_clear(&a);
	close(sv[0]);
}

/* both ends non-blocking: write and read until b has a message */
static void
pump(struct imsgbuf *a, struct imsgbuf *b, struct imsg *m)
{
	int	r, rounds = 0;

	while ((r = imsgbuf_get(b, m)) == 0) {
		ATF_REQUIRE_EQ(imsgbuf_write(a), 0);
		ATF_REQUIRE_EQ(imsgbuf_read(b), 1);
		ATF_REQUIRE(++rounds < 1000000);
	}
	ATF_REQUIRE_EQ(r, 1);
}

ATF_TC_WITHOUT_HEAD(oversized_compose);
ATF_TC_BODY(oversized_compose, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 m;
	struct ibuf	*w;
	unsigned char	*big;
	size_t		 bigsz = 1 << 20;
	int		 sv[2], p[2], before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	ATF_REQUIRE((big = calloc(1, bigsz)) != NULL);

	ATF_REQUIRE_ERRNO(ERANGE, imsg_compose(&a, 1, 0, 0, -1, big,
	    IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE + 1) == -1);
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, -1, big,
	    IMSG_MAXSIZE_DEFAULT - IMSG_HEADER_SIZE), 0);
	ATF_REQUIRE_ERRNO(ERANGE, imsg_create(&a, 1, 0, 0,
	    IMSG_MAXSIZE_DEFAULT) == NULL);
	ATF_REQUIRE((w = imsg_create(&a, 1, 0, 0, 10)) != NULL);
	ATF_REQUIRE_EQ(imsg_add(w, big, IMSG_MAXSIZE_DEFAULT - 100),
	    IMSG_MAXSIZE_DEFAULT - 100);
	/* exceeding frees the ibuf (ASan would see a leak otherwise) */
	ATF_REQUIRE_ERRNO(ERANGE, imsg_add(w, big, 100) == -1);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 1);

	/* the fd of a failed compose is closed */
	imsgbuf_allow_fdpass(&a);
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE_ERRNO(ERANGE, imsg_compose(&a, 1, 0, 0, p[1], big,
	    IMSG_MAXSIZE_DEFAULT) == -1);
	ATF_REQUIRE(!fd_open(p[1]));
	close(p[0]);

	ATF_REQUIRE_ERRNO(EINVAL, imsgbuf_set_maxsize(&a,
	    IMSG_HEADER_SIZE - 1) == -1);
	ATF_REQUIRE_ERRNO(EINVAL, imsgbuf_set_maxsize(&a,
	    IMSG_MAXSIZE_LIMIT + 1) == -1);
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&a, IMSG_HEADER_SIZE), 0);
	ATF_REQUIRE_ERRNO(ERANGE, imsg_compose(&a, 1, 0, 0, -1, big, 1) == -1);
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, -1, NULL, 0), 0);

	/* a raised cap carries a 1 MiB message through the growing buffer */
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&a, IMSG_MAXSIZE_LIMIT), 0);
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&b, IMSG_MAXSIZE_LIMIT), 0);
	memset(big, 0x5a, bigsz);
	ATF_REQUIRE_EQ(imsg_compose(&a, 2, 0, 0, -1, big, bigsz), 0);
	set_nonblock(sv[0]);
	set_nonblock(sv[1]);
	pump(&a, &b, &m);		/* the first, 16 kB one */
	ATF_REQUIRE_EQ(imsg_get_len(&m), IMSG_MAXSIZE_DEFAULT -
	    IMSG_HEADER_SIZE);
	imsg_free(&m);
	pump(&a, &b, &m);
	ATF_REQUIRE_EQ(imsg_get_len(&m), 0);
	imsg_free(&m);
	pump(&a, &b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 2);
	ATF_REQUIRE_EQ(imsg_get_len(&m), bigsz);
	ATF_REQUIRE(memcmp(ibuf_data(m.buf), big, bigsz) == 0);
	imsg_free(&m);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);

	/* but the receiver's own cap is what it enforces */
	ATF_REQUIRE_EQ(imsgbuf_set_maxsize(&b, IMSG_MAXSIZE_DEFAULT), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 3, 0, 0, -1, big,
	    IMSG_MAXSIZE_DEFAULT), 0);
	ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsgbuf_get(&b, &m) == -1);
	ATF_REQUIRE(b.rsize <= IMSG_MAXSIZE_LIMIT + 65536);

	free(big);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

static void
expect_badmsg(uint32_t len)
{
	struct imsgbuf	b;
	struct imsg	m;
	unsigned char	h[IMSG_HEADER_SIZE];
	int		sv[2];

	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	raw_hdr(h, 1, len, 0, 0);
	write_all(sv[0], h, sizeof(h));
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	/* rejected from the header alone, without waiting for a payload */
	ATF_REQUIRE_ERRNO(EBADMSG, imsgbuf_get(&b, &m) == -1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsgbuf_get(&b, &m) == -1);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(bad_header);
ATF_TC_BODY(bad_header, tc)
{
	expect_badmsg(0);
	expect_badmsg(IMSG_HEADER_SIZE - 1);
	expect_badmsg(IMSG_FD_MARK | (IMSG_HEADER_SIZE - 1));
	expect_badmsg(IMSG_MAXSIZE_DEFAULT + 1);
	expect_badmsg(IMSG_FD_MARK | (IMSG_MAXSIZE_DEFAULT + 1));
	expect_badmsg(0x7fffffffU);
	expect_badmsg(0xffffffffU);
}

ATF_TC_WITHOUT_HEAD(truncated_eof);
ATF_TC_BODY(truncated_eof, tc)
{
	struct imsgbuf	b;
	struct imsg	m;
	unsigned char	buf[IMSG_HEADER_SIZE + 10];
	int		sv[2];

	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	memset(buf, 0, sizeof(buf));
	raw_hdr(buf, 1, IMSG_HEADER_SIZE + 20, 0, 0);
	write_all(sv[0], buf, sizeof(buf));
	close(sv[0]);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 0);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 0);
	imsgbuf_clear(&b);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(fdpass);
ATF_TC_BODY(fdpass, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	int		sv[2], p[2], fd, before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, p[1], "x", 1), 0);
	/* still ours while queued */
	ATF_REQUIRE(fd_open(p[1]));
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	/* the sender's copy is closed once it has gone */
	ATF_REQUIRE(!fd_open(p[1]));

	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 1);
	fd = imsg_get_fd(&m);
	ATF_REQUIRE(fd != -1);
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	ATF_REQUIRE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	imsg_free(&m);
	/* claimed, so imsg_free left it alone */
	check_pipe(fd, p[0], 'j');
	close(fd);
	close(p[0]);

	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(fdpass_many);
ATF_TC_BODY(fdpass_many, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	int		sv[2], p[6][2], i, got, fd, before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	/* fd messages back to back and between plain ones */
	for (i = 0; i < 6; i++) {
		ATF_REQUIRE(pipe(p[i]) == 0);
		ATF_REQUIRE_EQ(imsg_compose(&a, 1, (uint32_t)i, 0, p[i][1],
		    &i, sizeof(i)), 0);
		if (i % 2 == 0)
			ATF_REQUIRE_EQ(imsg_compose(&a, 2, (uint32_t)i, 0, -1,
			    NULL, 0), 0);
	}
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);

	for (i = 0, got = 0; got < 6; i++) {
		ATF_REQUIRE(i < 9);
		get_one(&b, &m);
		if (imsg_get_type(&m) == 2) {
			ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
			imsg_free(&m);
			continue;
		}
		ATF_REQUIRE_EQ(imsg_get_id(&m), (uint32_t)got);
		fd = imsg_get_fd(&m);
		check_pipe(fd, p[got][0], (unsigned char)('a' + got));
		close(fd);
		close(p[got][0]);
		imsg_free(&m);
		got++;
	}
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(fdpass_partial_writes);
ATF_TC_BODY(fdpass_partial_writes, tc)
{
	struct imsgbuf	 a, b;
	struct imsg	 m;
	unsigned char	 payload[6000];
	uint32_t	 i, next = 0, count = 30;
	int		 sv[2], p[10][2], sz = 4096, fd, r, before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)) == 0);
	ATF_REQUIRE(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz,
	    sizeof(sz)) == 0);
	set_nonblock(sv[0]);
	set_nonblock(sv[1]);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	memset(payload, 0x3c, sizeof(payload));
	for (i = 0; i < count; i++) {
		fd = -1;
		if (i % 3 == 0) {
			ATF_REQUIRE(pipe(p[i / 3]) == 0);
			fd = p[i / 3][1];
		}
		ATF_REQUIRE_EQ(imsg_compose(&a, 1, i, 0, fd, payload,
		    sizeof(payload)), 0);
	}
	while (next < count) {
		ATF_REQUIRE_EQ(imsgbuf_write(&a), 0);
		ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
		while ((r = imsgbuf_get(&b, &m)) == 1) {
			ATF_REQUIRE_EQ(imsg_get_id(&m), next);
			fd = imsg_get_fd(&m);
			if (next % 3 == 0) {
				check_pipe(fd, p[next / 3][0],
				    (unsigned char)next);
				close(fd);
				close(p[next / 3][0]);
			} else
				ATF_REQUIRE_EQ(fd, -1);
			imsg_free(&m);
			next++;
		}
		ATF_REQUIRE_EQ(r, 0);
	}
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(fdpass_not_allowed);
ATF_TC_BODY(fdpass_not_allowed, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	int		sv[2], p[2], i, before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);

	/* sending without opting in: refused, and the fd is not leaked */
	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE_ERRNO(EINVAL, imsg_compose(&a, 1, 0, 0, p[1], NULL,
	    0) == -1);
	ATF_REQUIRE(!fd_open(p[1]));
	close(p[0]);
	ATF_REQUIRE_EQ(imsgbuf_queuelen(&a), 0);

	/* receiving without opting in: every arriving fd is closed */
	imsgbuf_allow_fdpass(&a);
	for (i = 0; i < 4; i++) {
		ATF_REQUIRE(pipe(p) == 0);
		close(p[0]);
		ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, p[1], NULL, 0), 0);
	}
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	for (i = 0; i < 4; i++) {
		get_one(&b, &m);
		ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
		imsg_free(&m);
	}
	ATF_REQUIRE_EQ(b.nrfds, 0);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

/* sendmsg with an fd, bypassing imsg: a peer that breaks the rules */
static void
raw_send_fd(int s, const void *data, size_t len, int fd)
{
	union {
		struct cmsghdr	hdr;
		unsigned char	buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*c;

	memset(&msg, 0, sizeof(msg));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = (void *)(uintptr_t)data;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	ATF_REQUIRE_EQ(sendmsg(s, &msg, 0), (ssize_t)len);
}

ATF_TC_WITHOUT_HEAD(fd_without_mark);
ATF_TC_BODY(fd_without_mark, tc)
{
	struct imsgbuf	b;
	struct imsg	m;
	unsigned char	h[IMSG_HEADER_SIZE * 2];
	int		sv[2], p[2], before;

	before = count_fds();
	memset(h, 0, sizeof(h));
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&b);
	ATF_REQUIRE(pipe(p) == 0);

	/* an fd with an unmarked message: nobody may own it */
	raw_hdr(h, 1, IMSG_HEADER_SIZE, 0, 0);
	raw_send_fd(sv[0], h, IMSG_HEADER_SIZE, p[1]);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.nrfds, 0);
	ATF_REQUIRE_EQ(imsgbuf_get(&b, &m), 1);
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	imsg_free(&m);

	/* an fd arriving mid-message is not the next message's */
	raw_hdr(h, 2, IMSG_HEADER_SIZE + 8, 0, 0);
	write_all(sv[0], h, IMSG_HEADER_SIZE + 4);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	raw_send_fd(sv[0], h, 4, p[1]);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.nrfds, 0);
	raw_hdr(h, 3, IMSG_FD_MARK | IMSG_HEADER_SIZE, 0, 0);
	write_all(sv[0], h, IMSG_HEADER_SIZE);
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 2);
	imsg_free(&m);
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 3);
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	imsg_free(&m);

	/* a marked header split before its length: the fd waits for it */
	raw_hdr(h, 4, IMSG_FD_MARK | IMSG_HEADER_SIZE, 0, 0);
	raw_send_fd(sv[0], h, 2, p[1]);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.nrfds, 1);
	write_all(sv[0], h + 2, IMSG_HEADER_SIZE - 2);
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 4);
	ATF_REQUIRE(m.fd != -1);
	/* unclaimed: imsg_free closes it */
	imsg_free(&m);

	/*
	 * Kept for a split header that then shows no mark: it is stale once
	 * the stream has passed it, never the next marked message's fd.
	 */
	raw_hdr(h, 5, IMSG_HEADER_SIZE, 0, 0);
	raw_hdr(h + IMSG_HEADER_SIZE, 6, IMSG_FD_MARK | IMSG_HEADER_SIZE, 0, 0);
	raw_send_fd(sv[0], h, 2, p[1]);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.nrfds, 1);
	write_all(sv[0], h + 2, 2 * IMSG_HEADER_SIZE - 2);
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 5);
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	imsg_free(&m);
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 6);
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	imsg_free(&m);
	ATF_REQUIRE_EQ(b.nrfds, 0);

	close(p[1]);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(fd_out_of_slots);
ATF_TC_BODY(fd_out_of_slots, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	struct rlimit	old, low;
	int		sv[2], p[2][2], lowest, fd, before;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	ATF_REQUIRE(pipe(p[0]) == 0);
	ATF_REQUIRE(pipe(p[1]) == 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, p[0][1], NULL, 0), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 2, 0, 0, p[1][1], NULL, 0), 0);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);

	/* every slot below the lowest free one is taken: allow no more */
	ATF_REQUIRE((lowest = dup(0)) != -1);
	close(lowest);
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = (rlim_t)lowest;
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
	/* one fd per recvmsg: this read carries only the first message */
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &old) == 0);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);

	/* the dropped fd stays dropped; the next message keeps its own */
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 1);
	ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
	imsg_free(&m);
	get_one(&b, &m);
	ATF_REQUIRE_EQ(imsg_get_type(&m), 2);
	fd = imsg_get_fd(&m);
	check_pipe(fd, p[1][0], 'z');
	close(fd);
	imsg_free(&m);

	close(p[0][0]);
	close(p[1][0]);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(garbage);
ATF_TC_BODY(garbage, tc)
{
	struct imsgbuf	b;
	struct imsg	m;
	unsigned char	buf[2048];
	uint32_t	len;
	size_t		i, n;
	int		sv[2], round, r, before, eof;

	before = count_fds();
	srandom(20260101);
	for (round = 0; round < 300; round++) {
		mkpair(sv);
		ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
		if (round % 2)
			imsgbuf_allow_fdpass(&b);
		n = (size_t)random() % sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = (unsigned char)random();
		/* plausible lengths now and then, to get past the header */
		for (i = 0; i + IMSG_HEADER_SIZE <= n; i += len) {
			if (random() % 2)
				break;
			len = IMSG_HEADER_SIZE + (uint32_t)random() % 64;
			if (random() % 4 == 0)
				len |= IMSG_FD_MARK;
			memcpy(buf + i + 4, &len, sizeof(len));
			len &= ~IMSG_FD_MARK;
		}
		write_all(sv[0], buf, n);
		close(sv[0]);
		eof = 0;
		r = 0;
		while (!eof) {
			if (imsgbuf_read(&b) == 0)
				eof = 1;
			while ((r = imsgbuf_get(&b, &m)) == 1) {
				ATF_REQUIRE_EQ(imsg_get_fd(&m), -1);
				ATF_REQUIRE(imsg_get_len(&m) < 64);
				imsg_free(&m);
			}
			if (r == -1) {
				ATF_REQUIRE_EQ(errno, EBADMSG);
				break;
			}
		}
		imsgbuf_clear(&b);
		close(sv[1]);
	}
	ATF_REQUIRE_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(get_data_exact);
ATF_TC_BODY(get_data_exact, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	uint64_t	v = 0x0102030405060708ULL, w;
	unsigned char	big[16];
	int		sv[2];

	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, -1, &v, sizeof(v)), 0);
	ATF_REQUIRE_EQ(imsg_compose(&a, 2, 0, 0, -1, NULL, 0), 0);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);

	get_one(&b, &m);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_data(&m, &w, 4) == -1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_data(&m, big, sizeof(big)) == -1);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_data(&m, NULL, 0) == -1);
	ATF_REQUIRE_EQ(imsg_get_data(&m, &w, sizeof(w)), 0);
	ATF_REQUIRE_EQ(w, v);
	/* repeatable: it does not consume */
	ATF_REQUIRE_EQ(imsg_get_data(&m, &w, sizeof(w)), 0);
	imsg_free(&m);

	get_one(&b, &m);
	ATF_REQUIRE_ERRNO(EBADMSG, imsg_get_data(&m, &w, 1) == -1);
	ATF_REQUIRE_EQ(imsg_get_data(&m, NULL, 0), 0);
	imsg_free(&m);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(ibuf_strings);
ATF_TC_BODY(ibuf_strings, tc)
{
	struct ibuf	*b, *f;
	unsigned char	 raw[4 + 6];
	uint32_t	 len, v;
	char		 s[8];
	size_t		 before;

	ATF_REQUIRE((b = ibuf_dynamic(0, 1024)) != NULL);
	ATF_REQUIRE_EQ(ibuf_add_string(b, ""), 0);
	ATF_REQUIRE_EQ(ibuf_add_string(b, "1234567"), 0);
	ATF_REQUIRE_EQ(ibuf_add_string(b, "12345678"), 0);
	ATF_REQUIRE_EQ(ibuf_size(b), 4 + 11 + 12);

	ATF_REQUIRE_EQ(ibuf_get_string(b, s, sizeof(s)), 0);
	ATF_REQUIRE_STREQ(s, "");
	ATF_REQUIRE_EQ(ibuf_get_string(b, s, sizeof(s)), 0);
	ATF_REQUIRE_STREQ(s, "1234567");
	/* too long for s: refused, and the cursor did not move */
	before = ibuf_size(b);
	ATF_REQUIRE_ERRNO(ENAMETOOLONG, ibuf_get_string(b, s, sizeof(s)) == -1);
	ATF_REQUIRE_EQ(ibuf_size(b), before);
	ATF_REQUIRE_ERRNO(ENAMETOOLONG, ibuf_get_string(b, NULL, 0) == -1);
	ATF_REQUIRE_EQ(ibuf_get_n32(b, &v), 0);
	ATF_REQUIRE_EQ(v, 8);
	ATF_REQUIRE_ERRNO(EBADMSG, ibuf_get(b, s, 9) == -1);
	ATF_REQUIRE_EQ(ibuf_get(b, s, 8), 0);
	ATF_REQUIRE_EQ(ibuf_size(b), 0);
	ATF_REQUIRE_ERRNO(EBADMSG, ibuf_get_n32(b, &v) == -1);
	ATF_REQUIRE_ERRNO(EBADMSG, ibuf_get_string(b, s, sizeof(s)) == -1);
	ibuf_free(b);

	/* embedded NUL */
	ATF_REQUIRE((b = ibuf_dynamic(0, 1024)) != NULL);
	len = 6;
	memcpy(raw, &len, 4);
	memcpy(raw + 4, "ab\0cde", 6);
	ATF_REQUIRE_EQ(ibuf_add(b, raw, sizeof(raw)), 0);
	ATF_REQUIRE_ERRNO(EINVAL, ibuf_get_string(b, s, sizeof(s)) == -1);
	ATF_REQUIRE_EQ(ibuf_size(b), sizeof(raw));
	ibuf_free(b);

	/* the length promises more than there is */
	ATF_REQUIRE((b = ibuf_dynamic(0, 1024)) != NULL);
	len = 7;
	memcpy(raw, &len, 4);
	memcpy(raw + 4, "abcdef", 6);
	ATF_REQUIRE_EQ(ibuf_add(b, raw, sizeof(raw)), 0);
	ATF_REQUIRE_ERRNO(EBADMSG, ibuf_get_string(b, s, sizeof(s)) == -1);
	len = 0xffffffffU;
	memcpy(ibuf_data(b), &len, 4);
	ATF_REQUIRE_ERRNO(EBADMSG, ibuf_get_string(b, s, sizeof(s)) == -1);
	ibuf_free(b);

	/* fewer bytes than a length */
	ATF_REQUIRE((b = ibuf_dynamic(0, 1024)) != NULL);
	ATF_REQUIRE_EQ(ibuf_add(b, "abc", 3), 0);
	ATF_REQUIRE_ERRNO(EBADMSG, ibuf_get_string(b, s, sizeof(s)) == -1);
	ibuf_free(b);

	/* fixed and dynamic limits; a failed add leaves the buffer as it was */
	ATF_REQUIRE_ERRNO(EINVAL, ibuf_open(0) == NULL);
	ATF_REQUIRE_ERRNO(EINVAL, ibuf_dynamic(10, 5) == NULL);
	ATF_REQUIRE((f = ibuf_open(6)) != NULL);
	ATF_REQUIRE_EQ(ibuf_add_n32(f, 1), 0);
	ATF_REQUIRE_ERRNO(ERANGE, ibuf_add_n32(f, 2) == -1);
	ATF_REQUIRE_ERRNO(ERANGE, ibuf_add_string(f, "") == -1);
	ATF_REQUIRE_EQ(ibuf_size(f), 4);
	ATF_REQUIRE_EQ(ibuf_add(f, "xy", 2), 0);
	ibuf_free(f);
	ATF_REQUIRE((b = ibuf_dynamic(1, 100)) != NULL);
	ATF_REQUIRE_ERRNO(ERANGE, ibuf_add_string(b,
	    "0123456789012345678901234567890123456789012345678901234567890123"
	    "456789012345678901234567890123456789") == -1);
	ATF_REQUIRE_EQ(ibuf_size(b), 0);
	ATF_REQUIRE_EQ(ibuf_add_string(b,
	    "0123456789012345678901234567890123456789012345678901234567890123"
	    "45678901234567890123456789012345"), 0);
	ATF_REQUIRE_EQ(ibuf_size(b), 100);
	ibuf_free(b);
	ibuf_free(NULL);
}

ATF_TC_WITHOUT_HEAD(free_closes_fd);
ATF_TC_BODY(free_closes_fd, tc)
{
	struct imsgbuf	a, b;
	struct imsg	m;
	int		sv[2], p[2], i, before, mid;

	before = count_fds();
	mkpair(sv);
	ATF_REQUIRE_EQ(imsgbuf_init(&a, sv[0]), 0);
	ATF_REQUIRE_EQ(imsgbuf_init(&b, sv[1]), 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	ATF_REQUIRE(pipe(p) == 0);
	mid = count_fds();
	for (i = 0; i < 3; i++)
		ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, dup(p[1]), NULL, 0),
		    0);
	ATF_REQUIRE_EQ(imsgbuf_flush(&a), 0);
	ATF_REQUIRE_EQ(count_fds(), mid);

	get_one(&b, &m);
	ATF_REQUIRE(m.fd != -1);
	ATF_REQUIRE_EQ(count_fds(), mid + 1 + (int)b.nrfds);
	imsg_free(&m);
	ATF_REQUIRE_EQ(count_fds(), mid + (int)b.nrfds);

	/* received, unclaimed, never fetched: imsgbuf_clear closes them */
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(imsgbuf_read(&b), 1);
	ATF_REQUIRE_EQ(b.nrfds, 2);

	/* and queued fds never sent are closed too */
	ATF_REQUIRE_EQ(imsg_compose(&a, 1, 0, 0, dup(p[1]), NULL, 0), 0);
	ATF_REQUIRE_EQ(count_fds(), mid + 3);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	ATF_REQUIRE_EQ(count_fds(), mid);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
	ATF_REQUIRE_EQ(count_fds(), before);
}

/*
 * Two ends of one channel, as jailbeed and a child hold it: each sends
 * the other more than a socket holds before reading anything (the
 * start-up sync's POLICY and RESTORE messages at 100 containers).  The
 * event loop must deliver both ways; a send that waits for room would
 * wait forever, since the reader is this same loop.
 */
#define XCHG_N		128
#define XCHG_LEN	8192

struct xend {
	struct imsgev	 iev;
	int		 got;
	int		 bad;
};

static struct xend	xa, xb;

static void
xchg_io(int fd, short ev, void *arg)
{
	struct xend	*e = arg;
	struct imsg	 imsg;
	int		 n;

	ATF_REQUIRE((n = imsgev_io(&e->iev, ev)) != -1);
	ATF_REQUIRE(n != 0);
	while ((n = imsgbuf_get(&e->iev.ibuf, &imsg)) == 1) {
		if (imsg_get_type(&imsg) != 7 ||
		    imsg_get_len(&imsg) != XCHG_LEN)
			e->bad++;
		e->got++;
		imsg_free(&imsg);
	}
	ATF_REQUIRE(n == 0);
	if (xa.got == XCHG_N && xb.got == XCHG_N)
		event_loopexit(NULL);
	else
		imsgev_add(&e->iev);
}

/* the loop is stuck in the kernel's send: no lock of ours is held */
static void
xchg_stuck(int sig)
{
	atf_tc_fail("the channel blocked in a send: neither end reads "
	    "again");
}

ATF_TC(imsgev_both_ways);
ATF_TC_HEAD(imsgev_both_ways, tc)
{
	atf_tc_set_md_var(tc, "descr", "two ends each sending more than "
	    "the socket holds before either reads: every message arrives, "
	    "the loop never waits in a send");
}
ATF_TC_BODY(imsgev_both_ways, tc)
{
	static char	buf[XCHG_LEN];
	int		sv[2], i;

	/* the channel as jailbeed makes it: children.c, blocking */
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	(void)event_init();
	ATF_REQUIRE(imsgev_init(&xa.iev, sv[0], xchg_io, &xa) == 0);
	ATF_REQUIRE(imsgev_init(&xb.iev, sv[1], xchg_io, &xb) == 0);
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < XCHG_N; i++) {
		ATF_REQUIRE(imsgev_compose(&xa.iev, 7, i, 0, -1, buf,
		    sizeof(buf)) == 0);
		ATF_REQUIRE(imsgev_compose(&xb.iev, 7, i, 0, -1, buf,
		    sizeof(buf)) == 0);
	}
	/* a deadlock is forever; the exchange takes milliseconds */
	(void)signal(SIGALRM, xchg_stuck);
	(void)alarm(30);
	ATF_REQUIRE(event_dispatch() == 0);
	(void)alarm(0);
	ATF_CHECK_EQ(xa.got, XCHG_N);
	ATF_CHECK_EQ(xb.got, XCHG_N);
	ATF_CHECK_EQ(xa.bad + xb.bad, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, roundtrip);
	ATF_TP_ADD_TC(tp, many_in_one_read);
	ATF_TP_ADD_TC(tp, drained_buffer_released);
	ATF_TP_ADD_TC(tp, partial_reads);
	ATF_TP_ADD_TC(tp, partial_writes);
	ATF_TP_ADD_TC(tp, oversized_compose);
	ATF_TP_ADD_TC(tp, bad_header);
	ATF_TP_ADD_TC(tp, truncated_eof);
	ATF_TP_ADD_TC(tp, fdpass);
	ATF_TP_ADD_TC(tp, fdpass_many);
	ATF_TP_ADD_TC(tp, fdpass_partial_writes);
	ATF_TP_ADD_TC(tp, fdpass_not_allowed);
	ATF_TP_ADD_TC(tp, fd_without_mark);
	ATF_TP_ADD_TC(tp, fd_out_of_slots);
	ATF_TP_ADD_TC(tp, garbage);
	ATF_TP_ADD_TC(tp, get_data_exact);
	ATF_TP_ADD_TC(tp, ibuf_strings);
	ATF_TP_ADD_TC(tp, free_closes_fd);
	ATF_TP_ADD_TC(tp, imsgev_both_ways);
	return atf_no_error();
}
