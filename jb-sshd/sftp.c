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
 * The sftp subsystem, in the session process: libssh parses SFTP, each
 * operation goes to the parent as one request (which decides and runs
 * jb-sftp in the container), and the helper's stdio comes back as an
 * fd.  An open file is one exec streaming it: reads at the next offset
 * come off the stream, another offset reopens it there; writes go in as
 * frames at any offset.  REALPATH, CLOSE and the root's attributes
 * touch no container and are answered here.  Once the client has its
 * answer, and a stream is let go, the parent is told what the client
 * was told and how many bytes went through (RESULT): that is what the
 * journal says.  While an operation runs, the client's leaving is
 * noticed within a second, and the session ends.
 */

#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WITH_SERVER
#include <libssh/sftp.h>

#include "imsg.h"
#include "log.h"
#include "sftppath.h"
#include "sftprec.h"
#include "sshd.h"

#define OUT_MAX		(8 * 1024 * 1024)	/* one listing, at most */
#define READ_MAX	(256 * 1024)		/* one READ's answer */
#define NAMES_PER_READDIR 100
#define STREAM_IDLE_SECS 120	/* an unused open file lets its exec go */

enum fh_kind { FH_DIR, FH_READ, FH_WRITE };

struct ent {
	char			*name;
	struct sftprec_attr	 a;
};

struct fh {
	enum fh_kind	 kind;
	char		 path[JB_SFTP_PATH_MAX];
	uint32_t	 id;		/* the stream's request */
	int		 fd;
	int		 done, code;	/* the stream's exec ended */
	int		 eof;		/* read: no more bytes */
	int		 werr;		/* write: the helper's error */
	int		 reported;	/* RESULT sent for the stream */
	uint64_t	 bytes;		/* relayed through the stream */
	time_t		 used;		/* the client last used it */
	uint64_t	 pos;
	uint32_t	 flags, mode;
	struct ent	*ents;
	size_t		 nents, next;
};

static struct imsgbuf	*pib;
static ssh_session	 cs;		/* the client's */
static ssh_channel	 cch;
static int		 client_left;	/* noticed while waiting */
static uint32_t		 next_id = 1;
static struct fh	*handles[256];
/* the root listing being collected */
static struct ent	*root_ents;
static size_t		 root_n;

static int
pwrite_all(int fd, const void *p, size_t len)
{
	const char	*c = p;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, c, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += n;
		len -= n;
	}
	return 0;
}

static int
frame_write(int fd, const struct sftprec_write *w, const void *data,
    size_t len)
{
	struct iovec	 iov[2];
	size_t		 skip;
	ssize_t		 n;

	iov[0].iov_base = (void *)(uintptr_t)w;
	iov[0].iov_len = sizeof(*w);
	iov[1].iov_base = (void *)(uintptr_t)data;
	iov[1].iov_len = len;
	if ((n = writev(fd, iov, 2)) == -1) {
		if (errno != EINTR)
			return -1;
		n = 0;
	}
	if ((size_t)n >= sizeof(*w)) {
		skip = n - sizeof(*w);
		return pwrite_all(fd, (const char *)data + skip, len - skip);
	}
	if (pwrite_all(fd, (const char *)w + n, sizeof(*w) - n) == -1)
		return -1;
	return pwrite_all(fd, data, len);
}

/* the client has gone (its connection or its channel ended) */
static int
client_gone(void)
{
	if (cs == NULL)
		return 0;
	return !ssh_is_connected(cs) || ssh_channel_poll_timeout(cch, 0, 0) ==
	    SSH_ERROR || ssh_channel_is_closed(cch);
}

/* fd readable: 0; -1 (ECONNRESET) once the client has gone meanwhile */
static int
wait_readable(int fd)
{
	struct pollfd	pfd;
	int		n;

	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if ((n = poll(&pfd, 1, 1000)) == 1)
			return 0;
		if (n == -1 && errno != EINTR)
			return -1;
		if (client_gone()) {
			client_left = 1;
			errno = ECONNRESET;
			return -1;
		}
	}
}

/* read(2), but not past the client's leaving */
static ssize_t
read_live(int fd, void *p, size_t len)
{
	if (wait_readable(fd) == -1)
		return -1;
	return read(fd, p, len);
}

/* tell the parent what the client was told about request id */
static void
result(uint32_t id, int code, uint64_t bytes)
{
	struct jb_sftp_result	r;

	/* a client that left was told nothing: the parent sees it leave */
	if (client_left)
		return;
	memset(&r, 0, sizeof(r));
	r.id = id;
	r.code = code;
	r.bytes = bytes;
	(void)imsg_compose(pib, IMSG_SSHD_SFTP_RESULT, JB_CTL_VERSION, 0, -1,
	    &r, sizeof(r));
	(void)imsgbuf_flush(pib);
}

/* up to len bytes, fewer only at the end */
static ssize_t
read_full(int fd, void *p, size_t len)
{
	char	*c = p;
	size_t	 got = 0;
	ssize_t	 n;

	while (got < len) {
		if ((n = read_live(fd, c + got, len - got)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

static struct fh *
fh_by_id(uint32_t id)
{
	size_t	i;

	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
		if (handles[i] != NULL && handles[i]->id == id)
			return handles[i];
	return NULL;
}

/*
 * The parent's answers to request id: 1 with its stdio in *fd, 2 with
 * DONE in *d; -1 when the parent is gone or says nonsense.  Answers for
 * other requests (a stream's end) are kept on their handles.
 */
static int
pwait(uint32_t id, struct jb_sftp_done *d, int *fd)
{
	struct jb_sftp_done	 x;
	struct jb_sftp_name	 n;
	struct imsg		 imsg;
	struct fh		*h;
	struct ent		*e;
	int			 got, rc;

	for (;;) {
		if ((got = jb_imsg_get(pib, &imsg, JB_PEER_PARENT,
		    JB_PEER_SSHD)) == -1)
			return -1;
		if (got == 0) {
			if (wait_readable(pib->fd) == -1 ||
			    imsgbuf_read(pib) <= 0)
				return -1;
			continue;
		}
		rc = 0;
		switch (imsg_get_type(&imsg)) {
		case IMSG_SSHD_SFTP_NAME:
			if (imsg_get_data(&imsg, &n, sizeof(n)) == -1) {
				rc = -1;
				break;
			}
			n.name[sizeof(n.name) - 1] = '\0';
			if (n.id != id || root_n >= 4096 ||
			    (e = reallocarray(root_ents, root_n + 1,
			    sizeof(*e))) == NULL)
				break;
			root_ents = e;
			memset(&e[root_n], 0, sizeof(e[root_n]));
			if ((e[root_n].name = strdup(n.name)) == NULL)
				break;
			e[root_n].a.mode = 040555;
			root_n++;
			break;
		case IMSG_SSHD_SFTP_FD:
			if (imsg_get_data(&imsg, &x, sizeof(x)) == -1 ||
			    (*fd = imsg_get_fd(&imsg)) == -1) {
				rc = -1;
				break;
			}
			if (x.id == id)
				rc = 1;
			else
				close(*fd);
			break;
		case IMSG_SSHD_SFTP_DONE:
			if (imsg_get_data(&imsg, &x, sizeof(x)) == -1) {
				rc = -1;
				break;
			}
			x.text[sizeof(x.text) - 1] = '\0';
			if (x.id == id) {
				*d = x;
				rc = 2;
			} else if ((h = fh_by_id(x.id)) != NULL) {
				h->done = 1;
				h->code = x.code;
			}
			break;
		default:
			rc = -1;
		}
		imsg_free(&imsg);
		if (rc != 0)
			return rc;
	}
}

static uint32_t
fx_status(int e)
{
	switch (e) {
	case 0:
		return SSH_FX_OK;
	case ENOENT:
	case ENOTDIR:
		return SSH_FX_NO_SUCH_FILE;
	case EACCES:
	case EPERM:
	case EXDEV:
	case ELOOP:
	case EROFS:
		return SSH_FX_PERMISSION_DENIED;
	case EEXIST:
		return SSH_FX_FILE_ALREADY_EXISTS;
	case EOPNOTSUPP:
		return SSH_FX_OP_UNSUPPORTED;
	}
	return SSH_FX_FAILURE;
}

static const char *
fx_text(int e)
{
	switch (e) {
	case EXDEV:
		return "path leaves the repository";
	case ELOOP:
		return "a link here is not followed";
	case EFBIG:
		return "a file cannot grow past 2 GiB";
	case ENXIO:
		return "not a regular file";
	}
	return strerror(e);
}

/* the client's words are not echoed: only our own texts go back */
static void
reply_err(sftp_client_message msg, int e, const char *text)
{
	sftp_reply_status(msg, fx_status(e), text != NULL && text[0] ?
	    text : fx_text(e));
}

/*
 * Send one request and wait for its stdio: 1 and *fd, or 0 and the
 * error already told the client (refused, or the parent gone: -1 then).
 */
static int
request(sftp_client_message msg, struct jb_sftp_op *q, int *fd, int *dead)
{
	struct jb_sftp_done	d;
	int			rc;

	q->id = next_id++;
	if (imsg_compose(pib, IMSG_SSHD_SFTP, JB_CTL_VERSION, 0, -1, q,
	    sizeof(*q)) == -1 || imsgbuf_flush(pib) == -1 ||
	    (rc = pwait(q->id, &d, fd)) == -1) {
		*dead = 1;
		reply_err(msg, EIO, "the server is gone");
		return 0;
	}
	if (rc == 1)
		return 1;
	/* refused, or ended without output (the root's listing) */
	if (d.refused || d.code != 0)
		reply_err(msg, d.code ? d.code : EIO, d.text);
	else
		sftp_reply_status(msg, SSH_FX_OK, "done");
	if (!d.refused)
		result(q->id, d.code ? d.code : 0, 0);
	return 0;
}

/* the rest of a run operation: its output to the end, then its DONE */
static int
collect(struct jb_sftp_op *q, int fd, char **out, size_t *len, int *dead)
{
	struct jb_sftp_done	 d;
	char			*buf = NULL, *nb;
	size_t			 cap = 0, n = 0;
	ssize_t			 r;
	int			 dummy;

	for (;;) {
		if (n == cap) {
			if (cap >= OUT_MAX ||
			    (nb = realloc(buf, cap ? cap * 2 : 65536)) == NULL)
				break;
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		if ((r = read_live(fd, buf + n, cap - n)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == ECONNRESET)
				*dead = 1;
			break;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	if (pwait(q->id, &d, &dummy) != 2)
		*dead = 1;
	*out = buf;
	*len = n;
	return 0;
}

/* records to entries; the status record's errno, or EIO if malformed */
static int
decode(const char *buf, size_t len, struct ent **ents, size_t *nents,
    char *link, size_t linklen)
{
	struct sftprec	*r;
	struct ent	*e;
	size_t		 off = 0, used;
	int		 rc, status = EIO;

	if ((r = malloc(sizeof(*r))) == NULL)
		return ENOMEM;
	while (off < len) {
		if ((rc = sftprec_next(buf + off, len - off, r, &used)) != 1)
			break;
		off += used;
		if (r->type == SFTPREC_STATUS) {
			status = r->status;
			break;
		}
		if (r->type == SFTPREC_LINK && link != NULL)
			strlcpy(link, r->name, linklen);
		if (r->type != SFTPREC_ATTR || ents == NULL ||
		    *nents >= 100000 ||
		    (e = reallocarray(*ents, *nents + 1, sizeof(*e))) == NULL)
			continue;
		*ents = e;
		e[*nents].a = r->attr;
		if ((e[*nents].name = strdup(r->name)) == NULL)
			continue;
		(*nents)++;
	}
	free(r);
	return status;
}

static void
to_attr(const struct sftprec_attr *a, struct sftp_attributes_struct *s)
{
	memset(s, 0, sizeof(*s));
	s->flags = SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID |
	    SSH_FILEXFER_ATTR_PERMISSIONS | SSH_FILEXFER_ATTR_ACMODTIME;
	s->size = a->size;
	s->uid = a->uid;
	s->gid = a->gid;
	s->permissions = a->mode;
	s->atime = (uint32_t)a->atime;
	s->mtime = (uint32_t)a->mtime;
}

static void
ents_free(struct ent *e, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

/* a simple operation: run, decode, answer */
static void
simple(sftp_client_message msg, struct jb_sftp_op *q, int *dead)
{
	struct sftp_attributes_struct	 sa;
	struct ent			*ents = NULL;
	size_t				 n = 0, len;
	char				*out, link[SFTPREC_LINK_MAX + 1];
	int				 fd, e;

	if (!request(msg, q, &fd, dead))
		return;
	collect(q, fd, &out, &len, dead);
	link[0] = '\0';
	e = decode(out, len, &ents, &n, link, sizeof(link));
	free(out);
	if (e == 0 && (q->op == SFTPOP_STAT || q->op == SFTPOP_LSTAT) &&
	    n != 1)
		e = EIO;
	if (e == 0 && q->op == SFTPOP_READLINK && (link[0] == '\0' ||
	    !sftppath_utf8(link, strlen(link))))
		e = EIO;
	if (e != 0)
		reply_err(msg, e, NULL);
	else if (q->op == SFTPOP_STAT || q->op == SFTPOP_LSTAT) {
		to_attr(&ents[0].a, &sa);
		sftp_reply_attr(msg, &sa);
	} else if (q->op == SFTPOP_READLINK) {
		memset(&sa, 0, sizeof(sa));
		sftp_reply_name(msg, link, &sa);
	} else
		sftp_reply_status(msg, SSH_FX_OK, "done");
	result(q->id, e, 0);
	ents_free(ents, n);
}

/* the stream is let go; the parent hears of it once (code: told) */
static void
fh_report(struct fh *h, int code)
{
	if (h->id != 0 && !h->reported && h->kind != FH_DIR) {
		h->reported = 1;
		result(h->id, code, h->bytes);
	}
}

static void
fh_close_stream(struct fh *h)
{
	if (h->fd != -1)
		close(h->fd);
	h->fd = -1;
	fh_report(h, 0);
}

static void
fh_free(sftp_session sftp, struct fh *h)
{
	size_t	i;

	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
		if (handles[i] == h)
			handles[i] = NULL;
	fh_close_stream(h);
	ents_free(h->ents, h->nents);
	sftp_handle_remove(sftp, h);
	free(h);
}

static int
fh_add(struct fh *h)
{
	size_t	i;

	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
		if (handles[i] == NULL) {
			handles[i] = h;
			return 0;
		}
	return -1;
}

static void
reply_handle(sftp_client_message msg, sftp_session sftp, struct fh *h)
{
	ssh_string	s;

	h->used = time(NULL);
	if (fh_add(h) == -1 || (s = sftp_handle_alloc(sftp, h)) == NULL) {
		fh_free(sftp, h);
		reply_err(msg, EMFILE, "too many open files");
		return;
	}
	sftp_reply_handle(msg, s);
	ssh_string_free(s);
}

/* a stream's first record: 0, or its errno */
static int
stream_status(int fd)
{
	struct sftprec	r;
	char		buf[sizeof(struct sftprec_hdr) + sizeof(int32_t)];
	size_t		used;

	if (read_full(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
	    sftprec_next(buf, sizeof(buf), &r, &used) != 1 ||
	    r.type != SFTPREC_STATUS)
		return EIO;
	return r.status;
}

/* a read stream of h's file from offset: 0, or an errno */
static int
read_open(sftp_client_message msg, struct fh *h, uint64_t offset,
    int *dead, int reply)
{
	struct jb_sftp_op	*q;
	struct jb_sftp_done	 d;
	int			 fd, e, dummy;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return ENOMEM;
	q->op = SFTPOP_READ;
	strlcpy(q->path, h->path, sizeof(q->path));
	q->offset = offset;
	if (!request(msg, q, &fd, dead)) {
		free(q);
		return -1;		/* told */
	}
	if ((e = stream_status(fd)) != 0) {
		close(fd);
		if (pwait(q->id, &d, &dummy) != 2)
			*dead = 1;
		reply_err(msg, e, NULL);
		result(q->id, e, 0);
		free(q);
		return -1;
	}
	h->fd = fd;
	h->id = q->id;
	h->pos = offset;
	h->done = h->eof = 0;
	h->reported = 0;
	h->bytes = 0;
	free(q);
	return 0;
}

static void
do_open(sftp_client_message msg, sftp_session sftp, int *dead)
{
	struct jb_sftp_op	*q;
	struct fh		*h;
	uint32_t		 fl = msg->flags;
	int			 fd, e;

	if ((h = calloc(1, sizeof(*h))) == NULL) {
		reply_err(msg, ENOMEM, NULL);
		return;
	}
	h->fd = -1;
	strlcpy(h->path, msg->filename, sizeof(h->path));
	if (!(fl & SSH_FXF_WRITE)) {
		h->kind = FH_READ;
		if (read_open(msg, h, 0, dead, 1) != 0) {
			free(h);
			return;
		}
		reply_handle(msg, sftp, h);
		return;
	}
	h->kind = FH_WRITE;
	if ((q = calloc(1, sizeof(*q))) == NULL) {
		free(h);
		reply_err(msg, ENOMEM, NULL);
		return;
	}
	q->op = SFTPOP_WRITE;
	strlcpy(q->path, h->path, sizeof(q->path));
	q->flags = ((fl & SSH_FXF_READ) ? SFTPREC_OPEN_READ : 0) |
	    ((fl & SSH_FXF_CREAT) ? SFTPREC_OPEN_CREAT : 0) |
	    ((fl & SSH_FXF_TRUNC) ? SFTPREC_OPEN_TRUNC : 0) |
	    ((fl & SSH_FXF_EXCL) ? SFTPREC_OPEN_EXCL : 0) |
	    ((fl & SSH_FXF_APPEND) ? SFTPREC_OPEN_APPEND : 0);
	q->mode = msg->attr != NULL && (msg->attr->flags &
	    SSH_FILEXFER_ATTR_PERMISSIONS) ? msg->attr->permissions & 0777 :
	    0644;
	h->flags = q->flags;
	h->mode = q->mode;
	if (!request(msg, q, &fd, dead)) {
		free(q);
		free(h);
		return;
	}
	if ((e = stream_status(fd)) != 0) {
		struct jb_sftp_done	d;
		int			dummy;

		close(fd);
		if (pwait(q->id, &d, &dummy) != 2)
			*dead = 1;
		reply_err(msg, e, NULL);
		result(q->id, e, 0);
		free(q);
		free(h);
		return;
	}
	h->fd = fd;
	h->id = q->id;
	free(q);
	reply_handle(msg, sftp, h);
}

static void
do_read(sftp_client_message msg, sftp_session sftp, struct fh *h, int *dead)
{
	static char	buf[READ_MAX];
	size_t		len = msg->len > READ_MAX ? READ_MAX : msg->len;
	ssize_t		n;

	if (h->kind != FH_READ) {
		reply_err(msg, EBADF, "not open for reading");
		return;
	}
	if (h->eof && msg->offset >= h->pos) {
		sftp_reply_status(msg, SSH_FX_EOF, NULL);
		return;
	}
	if (msg->offset != h->pos || h->fd == -1) {
		/* another place: the stream starts again there */
		fh_close_stream(h);
		if (read_open(msg, h, msg->offset, dead, 0) != 0)
			return;
	}
	if ((n = read_full(h->fd, buf, len)) == -1) {
		if (errno == ECONNRESET)
			*dead = 1;
		reply_err(msg, EIO, NULL);
		return;
	}
	h->pos += n;
	h->bytes += n;
	if ((size_t)n < len) {
		struct jb_sftp_done	d;
		int			dummy;

		/* the end: the helper's status says whether it is the file's */
		close(h->fd);
		h->fd = -1;
		if (!h->done && pwait(h->id, &d, &dummy) == 2) {
			h->done = 1;
			h->code = d.code;
		}
		if (!h->done)
			*dead = 1;
		if (h->code != 0) {
			reply_err(msg, EIO, "the read failed");
			fh_report(h, EIO);
			return;
		}
		fh_report(h, 0);
		h->eof = 1;
		if (n == 0) {
			sftp_reply_status(msg, SSH_FX_EOF, NULL);
			return;
		}
	}
	sftp_reply_data(msg, buf, n);
}

/* the helper spoke before the end: its error */
static int
write_error(struct fh *h)
{
	struct pollfd	pfd = { h->fd, POLLIN, 0 };

	if (h->werr)
		return h->werr;
	if (poll(&pfd, 1, 0) == 1) {
		h->werr = stream_status(h->fd);
		if (h->werr == 0)
			h->werr = EIO;
	}
	return h->werr;
}

/* a write stream for h (its exec let go while idle): 0, or -1 told */
static int
write_open(sftp_client_message msg, struct fh *h, int *dead)
{
	struct jb_sftp_op	*q;
	struct jb_sftp_done	 d;
	int			 fd, e, dummy;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		reply_err(msg, ENOMEM, NULL);
		return -1;
	}
	q->op = SFTPOP_WRITE;
	strlcpy(q->path, h->path, sizeof(q->path));
	/* the file is there: it is neither made anew nor emptied again */
	q->flags = h->flags & ~(SFTPREC_OPEN_TRUNC | SFTPREC_OPEN_EXCL);
	q->mode = h->mode;
	if (!request(msg, q, &fd, dead)) {
		free(q);
		return -1;
	}
	if ((e = stream_status(fd)) != 0) {
		close(fd);
		if (pwait(q->id, &d, &dummy) != 2)
			*dead = 1;
		reply_err(msg, e, NULL);
		result(q->id, e, 0);
		free(q);
		return -1;
	}
	h->fd = fd;
	h->id = q->id;
	h->done = h->reported = 0;
	h->bytes = 0;
	free(q);
	return 0;
}

static void
do_write(sftp_client_message msg, struct fh *h, int *dead)
{
	struct sftprec_write	w;
	size_t			len;
	int			e;

	if (h->kind != FH_WRITE || msg->data == NULL) {
		reply_err(msg, EBADF, "not open for writing");
		return;
	}
	if (h->fd == -1 && h->werr == 0 && write_open(msg, h, dead) != 0)
		return;		/* told */
	len = ssh_string_len(msg->data);
	if (len > SFTPREC_WRITE_MAX) {
		reply_err(msg, EINVAL, "write too long");
		return;
	}
	if ((e = write_error(h)) != 0) {
		reply_err(msg, e, NULL);
		return;
	}
	memset(&w, 0, sizeof(w));
	w.offset = msg->offset;
	w.len = len;
	/* one write of frame and bytes: one websocket message downstream */
	if (frame_write(h->fd, &w, ssh_string_data(msg->data), len) == -1) {
		h->werr = EIO;
		(void)write_error(h);
		reply_err(msg, h->werr, NULL);
		return;
	}
	/* past the cap: the helper refuses; its answer is waited for */
	if (msg->offset > SFTPREC_FILE_MAX ||
	    len > SFTPREC_FILE_MAX - msg->offset) {
		h->werr = stream_status(h->fd);
		reply_err(msg, h->werr ? h->werr : EFBIG, NULL);
		if (h->werr == 0)
			h->werr = EFBIG;
		return;
	}
	h->bytes += len;
	sftp_reply_status(msg, SSH_FX_OK, NULL);
}

static void
do_close(sftp_client_message msg, sftp_session sftp, struct fh *h,
    int *dead)
{
	struct jb_sftp_done	d;
	int			e = 0, dummy;

	if (h->kind == FH_WRITE && h->fd != -1) {
		/* the end of the frames: the helper's last word */
		if ((e = h->werr) == 0) {
			(void)shutdown(h->fd, SHUT_WR);
			e = stream_status(h->fd);
		}
		if (h->fd != -1)
			close(h->fd);
		h->fd = -1;
		if (!h->done && pwait(h->id, &d, &dummy) != 2)
			*dead = 1;
	} else if (h->kind == FH_WRITE)
		e = h->werr;		/* its stream was let go while idle */
	if (e != 0)
		reply_err(msg, e, NULL);
	else
		sftp_reply_status(msg, SSH_FX_OK, NULL);
	fh_report(h, e);
	fh_free(sftp, h);
}

static void
do_opendir(sftp_client_message msg, sftp_session sftp, int *dead)
{
	struct jb_sftp_op	*q;
	struct jb_sftp_done	 d;
	struct fh		*h;
	char			 canon[JB_SFTP_PATH_MAX], *out;
	size_t			 len;
	int			 fd, e, rc;

	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (q = calloc(1, sizeof(*q))) == NULL) {
		free(h);
		reply_err(msg, ENOMEM, NULL);
		return;
	}
	h->fd = -1;
	h->kind = FH_DIR;
	strlcpy(q->path, msg->filename, sizeof(q->path));
	q->op = SFTPOP_LIST;
	if (sftppath_canon(NULL, msg->filename, canon, sizeof(canon)) == 0 &&
	    strcmp(canon, "/") == 0) {
		/* the root: the parent names the containers, then DONE */
		strlcpy(q->path, "/", sizeof(q->path));
		q->id = next_id++;
		root_ents = NULL;
		root_n = 0;
		if (imsg_compose(pib, IMSG_SSHD_SFTP, JB_CTL_VERSION, 0, -1, q,
		    sizeof(*q)) == -1 || imsgbuf_flush(pib) == -1 ||
		    (rc = pwait(q->id, &d, &fd)) != 2) {
			*dead = 1;
			free(q);
			free(h);
			reply_err(msg, EIO, NULL);
			return;
		}
		free(q);
		if (d.refused) {
			ents_free(root_ents, root_n);
			free(h);
			reply_err(msg, d.code, d.text);
			return;
		}
		h->ents = root_ents;
		h->nents = root_n;
		root_ents = NULL;
		root_n = 0;
		reply_handle(msg, sftp, h);
		return;
	}
	if (!request(msg, q, &fd, dead)) {
		free(q);
		free(h);
		return;
	}
	collect(q, fd, &out, &len, dead);
	e = decode(out, len, &h->ents, &h->nents, NULL, 0);
	free(out);
	if (e != 0) {
		ents_free(h->ents, h->nents);
		free(h);
		reply_err(msg, e, NULL);
		result(q->id, e, 0);
		free(q);
		return;
	}
	result(q->id, 0, 0);
	free(q);
	reply_handle(msg, sftp, h);
}

static void
do_readdir(sftp_client_message msg, struct fh *h)
{
	struct sftp_attributes_struct	 sa;
	struct tm			 tm;
	time_t				 t;
	char				 longname[512], when[32], perm[11];
	int				 n = 0, i;
	uint32_t			 m;

	if (h->kind != FH_DIR) {
		reply_err(msg, EBADF, "not a directory");
		return;
	}
	if (h->next >= h->nents) {
		sftp_reply_status(msg, SSH_FX_EOF, NULL);
		return;
	}
	for (; h->next < h->nents && n < NAMES_PER_READDIR; h->next++, n++) {
		struct ent	*e = &h->ents[h->next];

		to_attr(&e->a, &sa);
		m = e->a.mode;
		perm[0] = (m & 0170000) == 040000 ? 'd' :
		    (m & 0170000) == 0120000 ? 'l' : '-';
		for (i = 0; i < 9; i++)
			perm[i + 1] = (m & (0400 >> i)) ? "rwxrwxrwx"[i] : '-';
		perm[10] = '\0';
		t = e->a.mtime;
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%b %e %H:%M", &tm);
		snprintf(longname, sizeof(longname), "%s    1 %-8u %-8u %8llu "
		    "%s %s", perm, e->a.uid, e->a.gid,
		    (unsigned long long)e->a.size, when, e->name);
		sftp_reply_names_add(msg, e->name, longname, &sa);
	}
	sftp_reply_names(msg);
}

static void
path_op(sftp_client_message msg, uint32_t op, const char *path,
    const char *path2, int *dead)
{
	struct jb_sftp_op	*q;

	if ((q = calloc(1, sizeof(*q))) == NULL) {
		reply_err(msg, ENOMEM, NULL);
		return;
	}
	q->op = op;
	if (path != NULL)
		strlcpy(q->path, path, sizeof(q->path));
	if (path2 != NULL)
		strlcpy(q->path2, path2, sizeof(q->path2));
	if (op == SFTPOP_MKDIR)
		q->mode = msg->attr != NULL && (msg->attr->flags &
		    SSH_FILEXFER_ATTR_PERMISSIONS) ?
		    msg->attr->permissions & 0777 : 0755;
	if (op == SFTPOP_SETSTAT) {
		sftp_attributes a = msg->attr;

		if (a == NULL || !(a->flags & (SSH_FILEXFER_ATTR_SIZE |
		    SSH_FILEXFER_ATTR_PERMISSIONS |
		    SSH_FILEXFER_ATTR_ACMODTIME))) {
			/* owners are not changed; nothing else asked */
			free(q);
			sftp_reply_status(msg, SSH_FX_OK, NULL);
			return;
		}
		if (a->flags & SSH_FILEXFER_ATTR_SIZE) {
			q->flags |= SFTPREC_SET_SIZE;
			q->size = a->size > (uint64_t)INT64_MAX ? INT64_MAX :
			    (int64_t)a->size;
		}
		if (a->flags & SSH_FILEXFER_ATTR_PERMISSIONS) {
			q->flags |= SFTPREC_SET_MODE;
			q->mode = a->permissions & 07777;
		}
		if (a->flags & SSH_FILEXFER_ATTR_ACMODTIME) {
			q->flags |= SFTPREC_SET_TIMES;
			q->atime = a->atime;
			q->mtime = a->mtime;
		}
	}
	simple(msg, q, dead);
	free(q);
}

static void
root_attr(sftp_client_message msg)
{
	struct sftp_attributes_struct	sa;

	memset(&sa, 0, sizeof(sa));
	sa.flags = SSH_FILEXFER_ATTR_PERMISSIONS | SSH_FILEXFER_ATTR_SIZE;
	sa.permissions = 040555;
	sftp_reply_attr(msg, &sa);
}

static void
handle_msg(sftp_client_message msg, sftp_session sftp, int *dead)
{
	struct fh	*h = NULL;
	char		 canon[JB_SFTP_PATH_MAX];
	const char	*sub;
	uint8_t		 type = sftp_client_message_get_type(msg);

	switch (type) {
	case SSH_FXP_READ:
	case SSH_FXP_WRITE:
	case SSH_FXP_CLOSE:
	case SSH_FXP_READDIR:
	case SSH_FXP_FSTAT:
	case SSH_FXP_FSETSTAT:
		if (msg->handle == NULL ||
		    (h = sftp_handle(sftp, msg->handle)) == NULL) {
			reply_err(msg, EBADF, "no such handle");
			return;
		}
		break;
	default:
		if (msg->filename == NULL && type != SSH_FXP_EXTENDED) {
			reply_err(msg, EINVAL, "no path");
			return;
		}
	}
	switch (type) {
	case SSH_FXP_REALPATH: {
		struct sftp_attributes_struct	sa;

		memset(&sa, 0, sizeof(sa));
		if (sftppath_canon(NULL, msg->filename, canon,
		    sizeof(canon)) == -1)
			reply_err(msg, ENAMETOOLONG, NULL);
		else
			sftp_reply_name(msg, canon, &sa);
		return;
	}
	case SSH_FXP_STAT:
	case SSH_FXP_LSTAT:
		if (sftppath_canon(NULL, msg->filename, canon,
		    sizeof(canon)) == 0 && strcmp(canon, "/") == 0) {
			root_attr(msg);
			return;
		}
		path_op(msg, type == SSH_FXP_STAT ? SFTPOP_STAT :
		    SFTPOP_LSTAT, msg->filename, NULL, dead);
		return;
	case SSH_FXP_FSTAT:
		path_op(msg, SFTPOP_STAT, h->path, NULL, dead);
		return;
	case SSH_FXP_SETSTAT:
		path_op(msg, SFTPOP_SETSTAT, msg->filename, NULL, dead);
		return;
	case SSH_FXP_FSETSTAT:
		path_op(msg, SFTPOP_SETSTAT, h->path, NULL, dead);
		return;
	case SSH_FXP_OPEN:
		do_open(msg, sftp, dead);
		return;
	case SSH_FXP_READ:
		do_read(msg, sftp, h, dead);
		return;
	case SSH_FXP_WRITE:
		do_write(msg, h, dead);
		return;
	case SSH_FXP_CLOSE:
		do_close(msg, sftp, h, dead);
		return;
	case SSH_FXP_OPENDIR:
		do_opendir(msg, sftp, dead);
		return;
	case SSH_FXP_READDIR:
		do_readdir(msg, h);
		return;
	case SSH_FXP_MKDIR:
		path_op(msg, SFTPOP_MKDIR, msg->filename, NULL, dead);
		return;
	case SSH_FXP_RMDIR:
		path_op(msg, SFTPOP_RMDIR, msg->filename, NULL, dead);
		return;
	case SSH_FXP_REMOVE:
		path_op(msg, SFTPOP_REMOVE, msg->filename, NULL, dead);
		return;
	case SSH_FXP_RENAME:
		path_op(msg, SFTPOP_RENAME, msg->filename,
		    sftp_client_message_get_data(msg), dead);
		return;
	case SSH_FXP_READLINK:
		path_op(msg, SFTPOP_READLINK, msg->filename, NULL, dead);
		return;
	case SSH_FXP_SYMLINK:
		/* OpenSSH sends the target first, then the link's path */
		path_op(msg, SFTPOP_SYMLINK, sftp_client_message_get_data(msg),
		    msg->filename, dead);
		return;
	case SSH_FXP_EXTENDED:
		sub = sftp_client_message_get_submessage(msg);
		if (sub != NULL && strcmp(sub, "posix-rename@openssh.com") == 0
		    && msg->filename != NULL)
			path_op(msg, SFTPOP_POSIX_RENAME, msg->filename,
			    sftp_client_message_get_data(msg), dead);
		else if (sub != NULL && strcmp(sub, "hardlink@openssh.com") ==
		    0 && msg->filename != NULL)
			path_op(msg, SFTPOP_HARDLINK, msg->filename,
			    sftp_client_message_get_data(msg), dead);
		else
			path_op(msg, SFTPOP_OTHER, "/", NULL, dead);
		return;
	}
	path_op(msg, SFTPOP_OTHER, "/", NULL, dead);
}

/* an open stream nobody used for a while: its exec is let go */
static int
stream_open(void)
{
	size_t	i;

	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
		if (handles[i] != NULL && handles[i]->fd != -1)
			return 1;
	return 0;
}

/*
 * Wait for the client's next message; meanwhile streams left unused
 * for STREAM_IDLE_SECS are closed (a later read or write opens the file
 * again where it is).  -1: the client has gone.
 */
static int
streams_idle(void)
{
	struct fh	*h;
	time_t		 now;
	size_t		 i;
	int		 r;

	while (stream_open()) {
		if ((r = ssh_channel_poll_timeout(cch, 1000, 0)) > 0)
			return 0;
		if (r == SSH_ERROR || r == SSH_EOF)
			return r == SSH_EOF ? 0 : -1;
		now = time(NULL);
		for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++) {
			h = handles[i];
			if (h == NULL || h->fd == -1 ||
			    now - h->used < STREAM_IDLE_SECS)
				continue;
			if (h->kind == FH_WRITE && h->werr == 0) {
				/* the helper's last word on what was written */
				struct pollfd	pfd = { h->fd, POLLIN, 0 };

				(void)shutdown(h->fd, SHUT_WR);
				h->werr = poll(&pfd, 1, 5000) == 1 ?
				    stream_status(h->fd) : EIO;
				close(h->fd);
				h->fd = -1;
				fh_report(h, h->werr);
			} else
				fh_close_stream(h);
		}
	}
	return 0;
}

/* blocking until the client ends the subsystem; the exit status */
int
sftp_serve(ssh_session s, ssh_channel ch, struct imsgbuf *ib)
{
	sftp_session		sftp;
	sftp_client_message	msg;
	struct fh		*h;
	size_t			i;
	int			dead = 0;

	pib = ib;
	cs = s;
	cch = ch;
	if ((sftp = sftp_server_new(s, ch)) == NULL)
		return 1;
	if (sftp_server_init(sftp) != 0) {
		sftp_server_free(sftp);
		return 1;
	}
	while (!dead) {
		if (streams_idle() == -1)
			break;
		if ((msg = sftp_get_client_message(sftp)) == NULL)
			break;
		if (sftp_client_message_get_type(msg) != SSH_FXP_CLOSE &&
		    msg->handle != NULL && (h = sftp_handle(sftp,
		    msg->handle)) != NULL)
			h->used = time(NULL);
		handle_msg(msg, sftp, &dead);
		sftp_client_message_free(msg);
	}
	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
		if (handles[i] != NULL)
			fh_free(sftp, handles[i]);
	sftp_server_free(sftp);
	return dead;
}
