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
 * jb-incus's streamed request bodies (http_request_body_fd, used for
 * image imports): a forked server on a unix socket reads the request
 * and answers with the length and a hash of the body it got, so the
 * client side proves every byte went out, in order, from a file larger
 * than anything the client keeps queued; a file shorter than announced
 * fails the request, and an early answer (the server refusing before
 * reading the body) ends it cleanly.
 */

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>
#include <event2/event.h>

#include "http.h"

#define SOCK	"srv.sock"

static uint64_t
fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n-- > 0)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

/* one request: read the head, then the body unless early, answer */
static void
serve(int ls, int early)
{
	char		 head[8192], *cl, out[128];
	unsigned char	 buf[65536];
	size_t		 hl = 0, len, got = 0;
	uint64_t	 h = 14695981039346656037ULL;
	ssize_t		 n;
	int		 s;

	if ((s = accept(ls, NULL, NULL)) == -1)
		_exit(2);
	while (hl < sizeof(head) - 1) {
		if ((n = read(s, head + hl, 1)) != 1)
			_exit(3);
		hl++;
		head[hl] = '\0';
		if (hl >= 4 && strcmp(head + hl - 4, "\r\n\r\n") == 0)
			break;
	}
	if ((cl = strcasestr(head, "Content-Length: ")) == NULL)
		_exit(4);
	len = strtoull(cl + 16, NULL, 10);
	if (early) {
		snprintf(out, sizeof(out), "HTTP/1.1 413 Too Large\r\n"
		    "Content-Length: 0\r\n\r\n");
		(void)write(s, out, strlen(out));
		close(s);
		_exit(0);
	}
	while (got < len && (n = read(s, buf, sizeof(buf))) > 0) {
		h = fnv(h, buf, (size_t)n);
		got += (size_t)n;
	}
	if (got < len)
		_exit(0);	/* the client gave up: nothing to answer */
	n = snprintf((char *)buf, sizeof(buf), "%zu %016llx", got,
	    (unsigned long long)h);
	snprintf(out, sizeof(out), "HTTP/1.1 200 OK\r\nContent-Length: %zd"
	    "\r\n\r\n", n);
	(void)write(s, out, strlen(out));
	(void)write(s, buf, (size_t)n);
	close(s);
	_exit(0);
}

static pid_t
server(int early)
{
	struct sockaddr_un	 sun;
	pid_t			 pid;
	int			 ls;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, SOCK, sizeof(sun.sun_path));
	unlink(SOCK);
	ATF_REQUIRE((ls = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(ls, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	ATF_REQUIRE(listen(ls, 1) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0)
		serve(ls, early);
	close(ls);
	return pid;
}

struct result {
	int	 done;
	int	 status;
	char	 body[128];
	char	 err[512];
};

static void
done(struct http_response *resp, const char *err, void *arg)
{
	struct result	*r = arg;

	r->done = 1;
	if (err != NULL)
		strlcpy(r->err, err, sizeof(r->err));
	if (resp != NULL) {
		r->status = resp->status;
		strlcpy(r->body, resp->body ? resp->body : "", sizeof(r->body));
	}
}

/* POST a file of size bytes, announcing len */
static void
post(int fd, size_t len, struct result *r)
{
	struct event_base	*base;
	struct http_client	*c;
	struct http_request	*q;
	char			 err[256], ep[PATH_MAX + 32], cwd[PATH_MAX];

	memset(r, 0, sizeof(*r));
	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	ATF_REQUIRE((size_t)snprintf(ep, sizeof(ep), "unix:%s/%s", cwd, SOCK) <
	    sizeof(ep));
	ATF_REQUIRE((base = event_base_new()) != NULL);
	ATF_REQUIRE_MSG((c = http_client_new(base, ep, NULL, err,
	    sizeof(err))) != NULL, "%s", err);
	ATF_REQUIRE((q = http_request_new(c, "POST", "/1.0/images")) != NULL);
	ATF_REQUIRE(http_request_body_fd(q, "application/octet-stream", fd,
	    len) == 0);
	/* a second body is refused */
	ATF_CHECK(http_request_body(q, "text/plain", "x", 1) == -1);
	http_request_submit(q, done, r);
	while (!r->done)
		ATF_REQUIRE(event_base_loop(base, EVLOOP_ONCE) != -1);
	http_client_free(c);
	event_base_free(base);
}

static int
big_file(size_t n, uint64_t *h)
{
	unsigned char	 buf[4096];
	size_t		 i, off;
	int		 fd;

	ATF_REQUIRE((fd = open("body", O_RDWR | O_CREAT | O_TRUNC, 0600)) !=
	    -1);
	*h = 14695981039346656037ULL;
	for (off = 0; off < n; off += sizeof(buf)) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)((off + i) * 31 + (off >> 12));
		i = n - off < sizeof(buf) ? n - off : sizeof(buf);
		ATF_REQUIRE(write(fd, buf, i) == (ssize_t)i);
		*h = fnv(*h, buf, i);
	}
	return fd;
}

ATF_TC_WITHOUT_HEAD(streamed);
ATF_TC_BODY(streamed, tc)
{
	struct result	 r;
	uint64_t	 h;
	char		 want[64];
	size_t		 n = 9 * 1024 * 1024 + 123;
	pid_t		 pid;
	int		 fd, st;

	signal(SIGPIPE, SIG_IGN);
	fd = big_file(n, &h);
	pid = server(0);
	post(fd, n, &r);
	ATF_REQUIRE_MSG(r.err[0] == '\0', "%s", r.err);
	ATF_CHECK_EQ(r.status, 200);
	snprintf(want, sizeof(want), "%zu %016llx", n, (unsigned long long)h);
	ATF_CHECK_STREQ(r.body, want);
	close(fd);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

ATF_TC_WITHOUT_HEAD(short_file);
ATF_TC_BODY(short_file, tc)
{
	struct result	 r;
	uint64_t	 h;
	pid_t		 pid;
	int		 fd, st;

	signal(SIGPIPE, SIG_IGN);
	fd = big_file(300000, &h);
	pid = server(0);
	post(fd, 400000, &r);
	ATF_CHECK_MSG(strstr(r.err, "shorter than it was") != NULL, "%s",
	    r.err);
	close(fd);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
}

ATF_TC_WITHOUT_HEAD(early_answer);
ATF_TC_BODY(early_answer, tc)
{
	struct result	 r;
	uint64_t	 h;
	pid_t		 pid;
	int		 fd, st;

	signal(SIGPIPE, SIG_IGN);
	fd = big_file(4 * 1024 * 1024, &h);
	pid = server(1);
	post(fd, 4 * 1024 * 1024, &r);
	/* the answer, or the reset that may beat it: never a hang */
	ATF_CHECK_MSG(r.status == 413 || r.err[0] != '\0', "status %d",
	    r.status);
	close(fd);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, streamed);
	ATF_TP_ADD_TC(tp, short_file);
	ATF_TP_ADD_TC(tp, early_answer);
	return atf_no_error();
}
