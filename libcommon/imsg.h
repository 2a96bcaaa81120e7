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
 * An imsg-style message channel over a stream socket, written for JailBee
 * after the semantics of OpenBSD's imsg_init(3) (2024+ API shape).  libbsd
 * does not ship imsg on Linux, so this is ours.
 *
 * Wire format: a 16-byte header of four host-order 32-bit fields
 *	type, len (header included; top bit IMSG_FD_MARK: an fd travels),
 *	peerid, pid
 * followed by len - 16 bytes of payload.  At most one fd per message, sent
 * with the first byte of the message through SCM_RIGHTS.
 *
 * Return conventions: imsgbuf_read() 1 data read, 0 EOF, -1 error (EINTR and
 * EAGAIN are absorbed and reported as 1 with nothing new); imsgbuf_get()
 * 1 a message, 0 none complete yet, -1 protocol error (errno EBADMSG for a
 * malformed header or a length over the cap).  imsgbuf_write() 0 or -1.
 *
 * A received fd is matched to its message by stream position: it belongs
 * to the fd-marked message whose first byte came in the same recvmsg.  So
 * an fd the kernel dropped (receiver out of slots) leaves exactly that
 * message with imsg_get_fd() == -1 and never shifts fds onto later ones,
 * and an fd no marked message can own is closed at once.
 */

#ifndef JB_IMSG_H
#define JB_IMSG_H

#include <sys/types.h>
#include <sys/queue.h>
#include <stddef.h>
#include <stdint.h>

#define IMSG_HEADER_SIZE	16
#define IMSG_FD_MARK		0x80000000U
#define IMSG_MAXSIZE_DEFAULT	16384		/* header included */
#define IMSG_MAXSIZE_LIMIT	(1U << 24)	/* hard upper bound */

struct ibuf {
	TAILQ_ENTRY(ibuf)	 entry;
	unsigned char		*buf;
	size_t			 size;	/* allocated */
	size_t			 max;	/* growth limit */
	size_t			 wpos;	/* end of data */
	size_t			 rpos;	/* read cursor */
	int			 fd;	/* -1 when none */
};

struct imsg_hdr {
	uint32_t	type;
	uint32_t	len;
	uint32_t	peerid;
	uint32_t	pid;
};

/* an fd received with the stream bytes [start, end) */
struct imsg_rfd {
	int		 fd;
	uint64_t	 start;
	uint64_t	 end;
};

struct imsgbuf {
	int			 fd;
	pid_t			 pid;
	uint32_t		 maxsize;
	int			 allow_fdpass;
	int			 allow_fdsend;	/* send only (control) */
	TAILQ_HEAD(, ibuf)	 outq;		/* composed, not yet written */
	uint32_t		 queued;	/* messages in outq */
	unsigned char		*rbuf;		/* reassembly buffer */
	size_t			 rpos;		/* first unconsumed byte */
	size_t			 rlen;		/* end of data in rbuf */
	size_t			 rsize;		/* allocated */
	size_t			 rhigh;		/* most of it used since drained */
	uint64_t		 rstream;	/* stream offset of rbuf[0] */
	struct imsg_rfd		*rfds;		/* fds received, in arrival order */
	size_t			 nrfds;
	size_t			 rfdsize;
};

struct imsg {
	struct imsg_hdr	 hdr;
	struct ibuf	*buf;		/* payload only; NULL when empty */
	int		 fd;		/* -1 when none or not yet claimed */
};

/* ibuf: growable buffer with typed appends and bounded reads */
struct ibuf	*ibuf_open(size_t);
struct ibuf	*ibuf_dynamic(size_t, size_t);
int		 ibuf_add(struct ibuf *, const void *, size_t);
int		 ibuf_add_n32(struct ibuf *, uint32_t);	/* host order */
int		 ibuf_add_string(struct ibuf *, const char *); /* u32 len + bytes */
/* both take NULL (an empty imsg payload) as empty: 0 and NULL */
size_t		 ibuf_size(const struct ibuf *);	/* unread bytes */
void		*ibuf_data(const struct ibuf *);	/* at read cursor */
int		 ibuf_get(struct ibuf *, void *, size_t);	/* -1 EBADMSG */
int		 ibuf_get_n32(struct ibuf *, uint32_t *);
/* a u32 length then that many bytes; copies into dst (NUL-terminated),
 * -1 with EBADMSG when short, ENAMETOOLONG when it does not fit, EINVAL
 * when the bytes contain a NUL */
int		 ibuf_get_string(struct ibuf *, char *, size_t);
void		 ibuf_free(struct ibuf *);

/* imsgbuf: one end of a channel */
int		 imsgbuf_init(struct imsgbuf *, int);
void		 imsgbuf_allow_fdpass(struct imsgbuf *);
/* send fds but never accept one: a channel to an untrusted peer */
void		 imsgbuf_allow_fdsend(struct imsgbuf *);
int		 imsgbuf_set_maxsize(struct imsgbuf *, uint32_t);
int		 imsgbuf_read(struct imsgbuf *);
int		 imsgbuf_write(struct imsgbuf *);
int		 imsgbuf_flush(struct imsgbuf *);	/* blocking fds only */
uint32_t	 imsgbuf_queuelen(const struct imsgbuf *);
int		 imsgbuf_get(struct imsgbuf *, struct imsg *);
void		 imsgbuf_clear(struct imsgbuf *);	/* frees queues, closes fds */

/* composing: fd -1 for none; the fd is closed once sent or on failure */
int		 imsg_compose(struct imsgbuf *, uint32_t, uint32_t, pid_t, int,
		    const void *, size_t);
struct ibuf	*imsg_create(struct imsgbuf *, uint32_t, uint32_t, pid_t, size_t);
/* returns the length added; on failure -1 and the ibuf is freed */
int		 imsg_add(struct ibuf *, const void *, size_t);
void		 imsg_close(struct imsgbuf *, struct ibuf *);

/* reading a received message */
uint32_t	 imsg_get_type(const struct imsg *);
uint32_t	 imsg_get_id(const struct imsg *);
pid_t		 imsg_get_pid(const struct imsg *);
size_t		 imsg_get_len(const struct imsg *);	/* payload bytes */
int		 imsg_get_data(struct imsg *, void *, size_t); /* exact size */
/* a read-only view of the payload: never ibuf_free() it, nor add to it */
int		 imsg_get_ibuf(struct imsg *, struct ibuf *);
int		 imsg_get_fd(struct imsg *);		/* claims it */
void		 imsg_free(struct imsg *);		/* closes unclaimed fd */

#endif /* JB_IMSG_H */
