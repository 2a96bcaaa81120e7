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
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imsg.h"

/*
 * The reassembly buffer starts this big, is grown when less than
 * IMSG_READ_MIN is free, and never exceeds maxsize + IMSG_READ_CHUNK:
 * a full buffer then always holds a complete (or a malformed) message.
 */
#define IMSG_READ_CHUNK		65536
#define IMSG_READ_MIN		4096
/*
 * When the buffer is drained, its pages past the first IMSG_READ_KEEP
 * bytes that may hold anything (those reads wrote since the last drain,
 * or all of a new buffer: malloc may hand back memory that was written)
 * go back to the kernel, zero when next written: a process idle after a
 * burst of messages holds a few pages per peer, not the 64 kB or more
 * the burst wrote.
 */
#define IMSG_READ_KEEP		8192
/*
 * A well-behaved peer sends one fd per sendmsg; room for a few more lets
 * a misbehaving peer's extras land here, where they are closed.
 */
#define IMSG_CMSG_FDS		8
#define IMSG_IOV_MAX		256

union imsg_cmsgbuf {
	struct cmsghdr	hdr;
	unsigned char	buf[CMSG_SPACE(sizeof(int) * IMSG_CMSG_FDS) +
			    CMSG_SPACE(sizeof(struct ucred))];
};

static void
close_keep_errno(int fd)
{
	int	saved = errno;

	if (fd != -1)
		close(fd);
	errno = saved;
}

/*
 * ibuf
 */

struct ibuf *
ibuf_dynamic(size_t len, size_t max)
{
	struct ibuf	*b;

	if (max == 0 || max < len) {
		errno = EINVAL;
		return NULL;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	if (len > 0 && (b->buf = malloc(len)) == NULL) {
		free(b);
		return NULL;
	}
	b->size = len;
	b->max = max;
	b->fd = -1;
	return b;
}

struct ibuf *
ibuf_open(size_t len)
{
	if (len == 0) {
		errno = EINVAL;
		return NULL;
	}
	return ibuf_dynamic(len, len);
}

/* make room for len more bytes, all or nothing */
static int
ibuf_reserve(struct ibuf *b, size_t len)
{
	unsigned char	*p;
	size_t		 need, nsize;

	if (b->wpos > b->max || len > b->max - b->wpos) {
		errno = ERANGE;
		return -1;
	}
	need = b->wpos + len;
	if (need <= b->size)
		return 0;
	nsize = b->size < 64 ? 64 : b->size;
	while (nsize < need)
		nsize = nsize > b->max / 2 ? b->max : nsize * 2;
	if (nsize > b->max)
		nsize = b->max;
	if ((p = realloc(b->buf, nsize)) == NULL)
		return -1;
	b->buf = p;
	b->size = nsize;
	return 0;
}

int
ibuf_add(struct ibuf *b, const void *data, size_t len)
{
	if (len == 0)
		return 0;
	if (data == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (ibuf_reserve(b, len) == -1)
		return -1;
	memcpy(b->buf + b->wpos, data, len);
	b->wpos += len;
	return 0;
}

int
ibuf_add_n32(struct ibuf *b, uint32_t v)
{
	return ibuf_add(b, &v, sizeof(v));
}

int
ibuf_add_string(struct ibuf *b, const char *s)
{
	size_t	len = strlen(s);

	if (len > UINT32_MAX - sizeof(uint32_t)) {
		errno = ERANGE;
		return -1;
	}
	/* reserve both parts first so a failure never leaves half a string */
	if (ibuf_reserve(b, sizeof(uint32_t) + len) == -1)
		return -1;
	if (ibuf_add_n32(b, (uint32_t)len) == -1 || ibuf_add(b, s, len) == -1)
		return -1;
	return 0;
}

/* NULL is an empty buffer: an empty imsg payload is one */
size_t
ibuf_size(const struct ibuf *b)
{
	if (b == NULL)
		return 0;
	return b->wpos - b->rpos;
}

void *
ibuf_data(const struct ibuf *b)
{
	if (b == NULL || b->buf == NULL)
		return NULL;
	return b->buf + b->rpos;
}

int
ibuf_get(struct ibuf *b, void *dst, size_t len)
{
	if (len > ibuf_size(b)) {
		errno = EBADMSG;
		return -1;
	}
	if (len == 0)
		return 0;
	memcpy(dst, b->buf + b->rpos, len);
	b->rpos += len;
	return 0;
}

int
ibuf_get_n32(struct ibuf *b, uint32_t *v)
{
	return ibuf_get(b, v, sizeof(*v));
}

int
ibuf_get_string(struct ibuf *b, char *dst, size_t dstlen)
{
	const unsigned char	*p;
	uint32_t		 len;

	/* peek, so that a rejected string leaves the cursor where it was */
	if (ibuf_size(b) < sizeof(len)) {
		errno = EBADMSG;
		return -1;
	}
	p = b->buf + b->rpos;
	memcpy(&len, p, sizeof(len));
	if (len > ibuf_size(b) - sizeof(len)) {
		errno = EBADMSG;
		return -1;
	}
	if (len >= dstlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	p += sizeof(len);
	if (len > 0 && memchr(p, '\0', len) != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (len > 0)
		memcpy(dst, p, len);
	dst[len] = '\0';
	b->rpos += sizeof(len) + len;
	return 0;
}

void
ibuf_free(struct ibuf *b)
{
	int	saved;

	if (b == NULL)
		return;
	saved = errno;
	if (b->fd != -1)
		close(b->fd);
	free(b->buf);
	free(b);
	errno = saved;
}

/*
 * imsgbuf
 */

int
imsgbuf_init(struct imsgbuf *ib, int fd)
{
	memset(ib, 0, sizeof(*ib));
	ib->fd = fd;
	ib->pid = getpid();
	ib->maxsize = IMSG_MAXSIZE_DEFAULT;
	TAILQ_INIT(&ib->outq);
	if ((ib->rbuf = malloc(IMSG_READ_CHUNK)) == NULL)
		return -1;
	ib->rsize = IMSG_READ_CHUNK;
	/* memory malloc reused may be resident already */
	ib->rhigh = ib->rsize;
	return 0;
}

void
imsgbuf_allow_fdpass(struct imsgbuf *ib)
{
	ib->allow_fdpass = 1;
}

void
imsgbuf_allow_fdsend(struct imsgbuf *ib)
{
	ib->allow_fdsend = 1;
}

int
imsgbuf_set_maxsize(struct imsgbuf *ib, uint32_t max)
{
	if (max < IMSG_HEADER_SIZE || max > IMSG_MAXSIZE_LIMIT) {
		errno = EINVAL;
		return -1;
	}
	ib->maxsize = max;
	return 0;
}

uint32_t
imsgbuf_queuelen(const struct imsgbuf *ib)
{
	return ib->queued;
}

void
imsgbuf_clear(struct imsgbuf *ib)
{
	struct ibuf	*b;
	size_t		 i;

	while ((b = TAILQ_FIRST(&ib->outq)) != NULL) {
		TAILQ_REMOVE(&ib->outq, b, entry);
		ibuf_free(b);
	}
	ib->queued = 0;
	for (i = 0; i < ib->nrfds; i++)
		close_keep_errno(ib->rfds[i].fd);
	free(ib->rfds);
	ib->rfds = NULL;
	ib->nrfds = ib->rfdsize = 0;
	free(ib->rbuf);
	ib->rbuf = NULL;
	ib->rstream += ib->rlen;
	ib->rpos = ib->rlen = ib->rsize = ib->rhigh = 0;
}

/*
 * reading
 */

/* move unconsumed bytes to the front and grow the buffer if it is tight */
static int
imsgbuf_make_room(struct imsgbuf *ib)
{
	unsigned char	*p;
	size_t		 cap, nsize;

	if (ib->rpos > 0) {
		memmove(ib->rbuf, ib->rbuf + ib->rpos, ib->rlen - ib->rpos);
		ib->rlen -= ib->rpos;
		ib->rstream += ib->rpos;
		ib->rpos = 0;
	}
	cap = (size_t)ib->maxsize + IMSG_READ_CHUNK;
	if (ib->rsize >= cap || ib->rsize - ib->rlen >= IMSG_READ_MIN)
		return 0;
	nsize = ib->rsize * 2;
	if (nsize < ib->rlen + IMSG_READ_CHUNK)
		nsize = ib->rlen + IMSG_READ_CHUNK;
	if (nsize > cap)
		nsize = cap;
	if ((p = realloc(ib->rbuf, nsize)) == NULL)
		return -1;
	ib->rbuf = p;
	ib->rsize = nsize;
	ib->rhigh = nsize;
	return 0;
}

static int
imsgbuf_rfds_reserve(struct imsgbuf *ib)
{
	struct imsg_rfd	*p;
	size_t		 n;

	if (ib->nrfds < ib->rfdsize)
		return 0;
	n = ib->rfdsize == 0 ? 4 : ib->rfdsize * 2;
	if ((p = reallocarray(ib->rfds, n, sizeof(*p))) == NULL)
		return -1;
	ib->rfds = p;
	ib->rfdsize = n;
	return 0;
}

/*
 * Might a message carrying an fd start within rbuf[from, to)?  Walks the
 * headers from the first unconsumed one; a header still too short to show
 * its length counts as a yes.  A malformed length is a no: imsgbuf_get()
 * will fail the stream there anyway.
 */
static int
imsgbuf_fd_wanted(const struct imsgbuf *ib, size_t from, size_t to)
{
	size_t		p = ib->rpos;
	uint32_t	len;

	while (p < to) {
		if (ib->rlen - p < offsetof(struct imsg_hdr, len) + sizeof(len))
			return p >= from;
		memcpy(&len, ib->rbuf + p + offsetof(struct imsg_hdr, len),
		    sizeof(len));
		if (p >= from && (len & IMSG_FD_MARK))
			return 1;
		len &= ~IMSG_FD_MARK;
		if (len < IMSG_HEADER_SIZE || len > ib->maxsize)
			return 0;
		p += len;
	}
	return 0;
}

int
imsgbuf_read(struct imsgbuf *ib)
{
	union imsg_cmsgbuf	 cm;
	struct msghdr		 msg;
	struct iovec		 iov;
	struct cmsghdr		*c;
	ssize_t			 n;
	size_t			 from, i, nfds;
	int			 fd = -1, rfd;

	if (imsgbuf_make_room(ib) == -1)
		return -1;
	/* full: it holds a whole message, imsgbuf_get() must run first */
	if (ib->rlen == ib->rsize)
		return 1;
	if (ib->allow_fdpass && imsgbuf_rfds_reserve(ib) == -1)
		return -1;

	memset(&msg, 0, sizeof(msg));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = ib->rbuf + ib->rlen;
	iov.iov_len = ib->rsize - ib->rlen;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);

	if ((n = recvmsg(ib->fd, &msg, MSG_CMSG_CLOEXEC)) == -1) {
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		return -1;
	}

	/*
	 * MSG_CTRUNC needs nothing here: the kernel already dropped what it
	 * could not install, and the message then simply has no fd.
	 */
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfds; i++) {
			memcpy(&rfd, CMSG_DATA(c) + i * sizeof(int),
			    sizeof(rfd));
			if (fd == -1 && ib->allow_fdpass)
				fd = rfd;
			else
				close_keep_errno(rfd);
		}
	}

	from = ib->rlen;
	ib->rlen += (size_t)n;
	if (ib->rlen > ib->rhigh)
		ib->rhigh = ib->rlen;
	if (fd != -1) {
		if (n > 0 && imsgbuf_fd_wanted(ib, from, ib->rlen)) {
			ib->rfds[ib->nrfds].fd = fd;
			ib->rfds[ib->nrfds].start = ib->rstream + from;
			ib->rfds[ib->nrfds].end = ib->rstream + ib->rlen;
			ib->nrfds++;
		} else
			close_keep_errno(fd);
	}
	return n == 0 ? 0 : 1;
}

/*
 * The fd for the message starting at stream offset at: fds whose read
 * ended before it belonged to no marked message and are closed; a marked
 * message takes the fd that came with its first byte, if any did.
 */
static int
imsgbuf_take_fd(struct imsgbuf *ib, uint64_t at, int marked)
{
	size_t	i = 0;
	int	fd = -1;

	while (i < ib->nrfds && ib->rfds[i].end <= at)
		close_keep_errno(ib->rfds[i++].fd);
	if (marked && i < ib->nrfds && ib->rfds[i].start <= at)
		fd = ib->rfds[i++].fd;
	if (i > 0) {
		memmove(ib->rfds, ib->rfds + i,
		    (ib->nrfds - i) * sizeof(*ib->rfds));
		ib->nrfds -= i;
	}
	return fd;
}

/* drained: what may hold anything past IMSG_READ_KEEP goes back */
static void
imsgbuf_release(struct imsgbuf *ib)
{
	uintptr_t	pg = (uintptr_t)getpagesize(), start, end;

	if (ib->rhigh <= IMSG_READ_KEEP)
		return;
	start = ((uintptr_t)ib->rbuf + IMSG_READ_KEEP + pg - 1) & ~(pg - 1);
	end = ((uintptr_t)ib->rbuf + ib->rhigh) & ~(pg - 1);
	ib->rhigh = 0;
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_DONTNEED);
}

int
imsgbuf_get(struct imsgbuf *ib, struct imsg *imsg)
{
	struct imsg_hdr	 hdr;
	struct ibuf	*payload = NULL;
	size_t		 avail, len;
	uint64_t	 at;

	avail = ib->rlen - ib->rpos;
	if (avail < IMSG_HEADER_SIZE)
		return 0;
	memcpy(&hdr, ib->rbuf + ib->rpos, sizeof(hdr));
	len = hdr.len & ~IMSG_FD_MARK;
	if (len < IMSG_HEADER_SIZE || len > ib->maxsize) {
		errno = EBADMSG;
		return -1;
	}
	if (avail < len)
		return 0;
	if (len > IMSG_HEADER_SIZE) {
		if ((payload = ibuf_open(len - IMSG_HEADER_SIZE)) == NULL)
			return -1;
		memcpy(payload->buf, ib->rbuf + ib->rpos + IMSG_HEADER_SIZE,
		    len - IMSG_HEADER_SIZE);
		payload->wpos = len - IMSG_HEADER_SIZE;
	}

	at = ib->rstream + ib->rpos;
	imsg->fd = imsgbuf_take_fd(ib, at, (hdr.len & IMSG_FD_MARK) != 0);
	hdr.len = (uint32_t)len;
	imsg->hdr = hdr;
	imsg->buf = payload;

	ib->rpos += len;
	if (ib->rpos == ib->rlen) {
		ib->rstream += ib->rlen;
		ib->rpos = ib->rlen = 0;
		imsgbuf_release(ib);
	}
	return 1;
}

/*
 * writing
 */

/*
 * One sendmsg of the queue head.  An fd-carrying message always starts
 * its batch, so the fd rides with its message's first byte.  Returns the
 * bytes sent, *all set when that was the whole batch; -1 on error.
 */
static ssize_t
imsgbuf_send(struct imsgbuf *ib, int *all)
{
	struct iovec		 iov[IMSG_IOV_MAX];
	union imsg_cmsgbuf	 cm;
	struct msghdr		 msg;
	struct cmsghdr		*c;
	struct ibuf		*b;
	size_t			 total = 0, left, rem;
	ssize_t			 n;
	int			 i = 0, fd = -1;

	*all = 0;
	TAILQ_FOREACH(b, &ib->outq, entry) {
		if (i == IMSG_IOV_MAX)
			break;
		if (b->fd != -1) {
			if (i > 0)
				break;
			fd = b->fd;
		}
		iov[i].iov_base = b->buf + b->rpos;
		iov[i].iov_len = b->wpos - b->rpos;
		total += iov[i].iov_len;
		i++;
	}
	if (i == 0) {
		*all = 1;
		return 0;
	}

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = i;
	if (fd != -1) {
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}

	if ((n = sendmsg(ib->fd, &msg, MSG_NOSIGNAL)) == -1)
		return -1;

	/* the fd went with the first byte: never send it twice */
	if (fd != -1 && n > 0) {
		b = TAILQ_FIRST(&ib->outq);
		close_keep_errno(b->fd);
		b->fd = -1;
	}
	left = (size_t)n;
	while (left > 0 && (b = TAILQ_FIRST(&ib->outq)) != NULL) {
		rem = b->wpos - b->rpos;
		if (left < rem) {
			b->rpos += left;
			break;
		}
		left -= rem;
		TAILQ_REMOVE(&ib->outq, b, entry);
		ib->queued--;
		ibuf_free(b);
	}
	*all = (size_t)n == total;
	return n;
}

static int
imsg_retryable(int e)
{
	return e == EINTR || e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS;
}

int
imsgbuf_write(struct imsgbuf *ib)
{
	int	all;

	/* batch after batch until the queue is empty or the socket full */
	while (!TAILQ_EMPTY(&ib->outq)) {
		if (imsgbuf_send(ib, &all) == -1)
			return imsg_retryable(errno) ? 0 : -1;
		if (!all)
			break;
	}
	return 0;
}

int
imsgbuf_flush(struct imsgbuf *ib)
{
	struct pollfd	pfd;
	int		all;

	while (!TAILQ_EMPTY(&ib->outq)) {
		if (imsgbuf_send(ib, &all) != -1 || errno == EINTR)
			continue;
		if (!imsg_retryable(errno))
			return -1;
		/* a non-blocking fd after all: wait instead of spinning */
		pfd.fd = ib->fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

/*
 * composing
 */

struct ibuf *
imsg_create(struct imsgbuf *ib, uint32_t type, uint32_t peerid, pid_t pid,
    size_t datalen)
{
	struct imsg_hdr	 hdr;
	struct ibuf	*b;

	if (datalen > ib->maxsize - IMSG_HEADER_SIZE) {
		errno = ERANGE;
		return NULL;
	}
	if ((b = ibuf_dynamic(IMSG_HEADER_SIZE + datalen, ib->maxsize)) == NULL)
		return NULL;
	memset(&hdr, 0, sizeof(hdr));
	hdr.type = type;
	hdr.peerid = peerid;
	hdr.pid = (uint32_t)(pid == 0 ? ib->pid : pid);
	/* hdr.len is patched in by imsg_close() */
	if (ibuf_add(b, &hdr, sizeof(hdr)) == -1) {
		ibuf_free(b);
		return NULL;
	}
	return b;
}

int
imsg_add(struct ibuf *msg, const void *data, size_t len)
{
	if (msg == NULL)
		return -1;
	if (ibuf_add(msg, data, len) == -1) {
		ibuf_free(msg);
		return -1;
	}
	return (int)len;
}

void
imsg_close(struct imsgbuf *ib, struct ibuf *msg)
{
	uint32_t	len;

	if (msg == NULL)
		return;
	len = (uint32_t)msg->wpos;
	if (msg->fd != -1)
		len |= IMSG_FD_MARK;
	memcpy(msg->buf + offsetof(struct imsg_hdr, len), &len, sizeof(len));
	msg->rpos = 0;
	TAILQ_INSERT_TAIL(&ib->outq, msg, entry);
	ib->queued++;
}

int
imsg_compose(struct imsgbuf *ib, uint32_t type, uint32_t peerid, pid_t pid,
    int fd, const void *data, size_t len)
{
	struct ibuf	*msg;

	if (fd != -1 && !ib->allow_fdpass && !ib->allow_fdsend) {
		close_keep_errno(fd);
		errno = EINVAL;
		return -1;
	}
	if ((msg = imsg_create(ib, type, peerid, pid, len)) == NULL) {
		close_keep_errno(fd);
		return -1;
	}
	if (imsg_add(msg, data, len) == -1) {
		close_keep_errno(fd);
		return -1;
	}
	msg->fd = fd;
	imsg_close(ib, msg);
	return 0;
}

/*
 * a received message
 */

uint32_t
imsg_get_type(const struct imsg *imsg)
{
	return imsg->hdr.type;
}

uint32_t
imsg_get_id(const struct imsg *imsg)
{
	return imsg->hdr.peerid;
}

pid_t
imsg_get_pid(const struct imsg *imsg)
{
	return (pid_t)imsg->hdr.pid;
}

size_t
imsg_get_len(const struct imsg *imsg)
{
	return ibuf_size(imsg->buf);
}

int
imsg_get_data(struct imsg *imsg, void *dst, size_t len)
{
	if (len != imsg_get_len(imsg)) {
		errno = EBADMSG;
		return -1;
	}
	if (len > 0)
		memcpy(dst, ibuf_data(imsg->buf), len);
	return 0;
}

int
imsg_get_ibuf(struct imsg *imsg, struct ibuf *view)
{
	memset(view, 0, sizeof(*view));
	view->fd = -1;
	if (imsg->buf == NULL)
		return 0;
	view->buf = ibuf_data(imsg->buf);
	/* size == max == wpos: any add fails with ERANGE, nothing grows */
	view->size = view->max = view->wpos = ibuf_size(imsg->buf);
	return 0;
}

int
imsg_get_fd(struct imsg *imsg)
{
	int	fd = imsg->fd;

	imsg->fd = -1;
	return fd;
}

void
imsg_free(struct imsg *imsg)
{
	ibuf_free(imsg->buf);
	imsg->buf = NULL;
	close_keep_errno(imsg->fd);
	imsg->fd = -1;
}
