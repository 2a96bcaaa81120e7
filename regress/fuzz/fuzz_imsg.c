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
 * libFuzzer target for the imsg reader.  The input is
 *	flags, then chunks of [ctl, data...]
 * flags bit 0 allows fd passing, bits 1-2 pick the receiver's maxsize.
 * ctl & 0x7f is the chunk length - 1 and bit 7 sends an fd with it, so
 * the input decides both the bytes and how they are cut and where fds
 * ride.  Every message read is echoed through a second, well-behaved
 * channel and must come back identical, fd included; after each input no
 * fd may stay open.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imsg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* new fds take the lowest free numbers, so leaks land in this window */
#define FD_WINDOW	256

static int		devnull = -1;
static unsigned char	open_at_start[FD_WINDOW];

static void
setup(void)
{
	int	fd;

	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		abort();
	/* whatever the environment left open is not ours to judge */
	for (fd = 0; fd < FD_WINDOW; fd++)
		open_at_start[fd] = fcntl(fd, F_GETFD) != -1;
}

static void
check_fds(void)
{
	int	fd;

	for (fd = 0; fd < FD_WINDOW; fd++)
		if ((fcntl(fd, F_GETFD) != -1) != open_at_start[fd])
			abort();
}

static void
pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    sv) == -1)
		abort();
}

/* one sendmsg, with devnull attached when asked; a full socket drops it */
static void
send_chunk(int s, const uint8_t *p, size_t len, int withfd)
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
	iov.iov_base = (void *)(uintptr_t)p;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (withfd) {
		msg.msg_control = cm.buf;
		msg.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &devnull, sizeof(int));
	}
	(void)sendmsg(s, &msg, MSG_NOSIGNAL);
}

/* pick the payload apart the way handlers do */
static void
inspect(struct imsg *m)
{
	struct ibuf	view;
	unsigned char	small[64];
	char		str[32];
	uint32_t	v;
	size_t		len = imsg_get_len(m);

	(void)imsg_get_type(m);
	(void)imsg_get_id(m);
	(void)imsg_get_pid(m);
	if (len <= sizeof(small) && imsg_get_data(m, small, len) == -1)
		abort();
	if (imsg_get_data(m, small, len == 4 ? 8 : 4) != -1 ||
	    errno != EBADMSG)
		abort();
	if (imsg_get_ibuf(m, &view) == -1)
		abort();
	for (;;) {
		if (ibuf_get_string(&view, str, sizeof(str)) == 0) {
			if (strlen(str) >= sizeof(str))
				abort();
			continue;
		}
		if (errno != EBADMSG && errno != ENAMETOOLONG &&
		    errno != EINVAL)
			abort();
		if (ibuf_get_n32(&view, &v) == -1)
			break;
	}
	if (ibuf_size(&view) >= sizeof(v))
		abort();
}

/* the echo must match what was read, header, payload and fd alike */
static void
check_echo(struct imsgbuf *eb, const struct imsg *want, int hadfd)
{
	struct imsg	got;
	int		r, tries = 0;

	while ((r = imsgbuf_get(eb, &got)) == 0) {
		if (imsgbuf_read(eb) != 1 || ++tries > 1000)
			abort();
	}
	/* pid 0 is composed as the sender's own */
	if (r != 1 || got.hdr.type != want->hdr.type ||
	    got.hdr.peerid != want->hdr.peerid ||
	    got.hdr.pid != (want->hdr.pid == 0 ? (uint32_t)getpid() :
	    want->hdr.pid) ||
	    imsg_get_len(&got) != imsg_get_len(want) ||
	    (imsg_get_len(want) > 0 && memcmp(ibuf_data(got.buf),
	    ibuf_data(want->buf), imsg_get_len(want)) != 0) ||
	    (got.fd != -1) != hadfd)
		abort();
	imsg_free(&got);
}

/* returns -1 once the stream is broken */
static int
drain(struct imsgbuf *ib, struct imsgbuf *ea, struct imsgbuf *eb)
{
	struct imsg	m;
	int		r, fd, tries;

	while ((r = imsgbuf_get(ib, &m)) == 1) {
		inspect(&m);
		/* claim the fd of odd types, leave the rest to imsg_free */
		fd = -1;
		if (m.hdr.type & 1)
			fd = imsg_get_fd(&m);
		if (imsg_compose(ea, m.hdr.type, m.hdr.peerid,
		    (pid_t)m.hdr.pid, fd, ibuf_data(m.buf),
		    imsg_get_len(&m)) == -1)
			abort();
		for (tries = 0; imsgbuf_queuelen(ea) > 0; tries++)
			if (imsgbuf_write(ea) == -1 || tries > 1000)
				abort();
		check_echo(eb, &m, fd != -1);
		imsg_free(&m);
	}
	if (r == -1 && errno != EBADMSG && errno != ENOMEM)
		abort();
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t	 maxsizes[] = { IMSG_MAXSIZE_DEFAULT,
	    IMSG_HEADER_SIZE, 100, 70000 };
	struct imsgbuf		 ib, ea, eb;
	size_t			 off, len;
	int			 sv[2], ev[2], broken = 0, r;

	if (devnull == -1)
		setup();
	if (size < 1)
		return 0;

	pair(sv);
	pair(ev);
	if (imsgbuf_init(&ib, sv[1]) == -1 || imsgbuf_init(&ea, ev[0]) == -1 ||
	    imsgbuf_init(&eb, ev[1]) == -1)
		abort();
	if (data[0] & 1)
		imsgbuf_allow_fdpass(&ib);
	if (imsgbuf_set_maxsize(&ib, maxsizes[(data[0] >> 1) & 3]) == -1)
		abort();
	imsgbuf_allow_fdpass(&ea);
	imsgbuf_allow_fdpass(&eb);
	/* the echo must carry anything the reader accepted */
	if (imsgbuf_set_maxsize(&ea, 70000) == -1 ||
	    imsgbuf_set_maxsize(&eb, 70000) == -1)
		abort();

	for (off = 1; off < size && !broken; off += len) {
		len = (data[off] & 0x7f) + 1U;
		r = data[off] & 0x80;
		off++;
		if (len > size - off)
			len = size - off;
		if (len == 0)
			break;
		send_chunk(sv[0], data + off, len, r);
		if (imsgbuf_read(&ib) == -1)
			abort();
		broken = drain(&ib, &ea, &eb) == -1;
	}
	close(sv[0]);
	while (!broken) {
		if ((r = imsgbuf_read(&ib)) == -1)
			abort();
		broken = drain(&ib, &ea, &eb) == -1;
		if (r == 0)
			break;
	}

	imsgbuf_clear(&ib);
	imsgbuf_clear(&ea);
	imsgbuf_clear(&eb);
	close(sv[1]);
	close(ev[0]);
	close(ev[1]);
	check_fds();
	return 0;
}
