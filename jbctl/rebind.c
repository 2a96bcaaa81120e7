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
 * jbctl reload with a moved remote.ssh.listen: jailbeed may bind no port
 * after its lock-down, so it asks jbctl, which runs as the owner or root,
 * for a socket listening on the new address.  It is bound as jailbeed
 * binds it at start (SO_REUSEADDR, backlog 64) and goes back in
 * LISTEN_FD; when it cannot be bound, LISTEN_FD says why and carries none,
 * and jailbeed changes nothing.
 */

#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "imsg.h"
#include "jbctl.h"

int
rebind_answer(struct imsgbuf *ibuf, const struct jb_ctl_listen *ask)
{
	struct jb_ctl_listen	*l;
	struct sockaddr_storage	 ss;
	int			 fd = -1, on = 1, rv;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return -1;
	strlcpy(l->addr, ask->addr, sizeof(l->addr));
	if (conf_listen_addr(ask->addr, &ss) == -1)
		snprintf(l->err, sizeof(l->err), "not ADDR:PORT");
	else if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0))
	    == -1)
		snprintf(l->err, sizeof(l->err), "socket: %s",
		    strerror(errno));
	else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on))
	    == -1)
		snprintf(l->err, sizeof(l->err), "SO_REUSEADDR: %s",
		    strerror(errno));
	else if (bind(fd, (struct sockaddr *)&ss, ss.ss_family == AF_INET ?
	    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) == -1)
		snprintf(l->err, sizeof(l->err), "bind: %s%s",
		    strerror(errno), errno == EACCES ? " (a port below "
		    "1024 needs jbctl reload run as root)" : errno ==
		    EADDRINUSE ? " (another program listens there)" : "");
	else if (listen(fd, 64) == -1)
		snprintf(l->err, sizeof(l->err), "listen: %s",
		    strerror(errno));
	if (l->err[0] != '\0' && fd != -1) {
		close(fd);
		fd = -1;
	}
	/* imsg_compose closes fd once sent, or on failure */
	rv = imsg_compose(ibuf, IMSG_CTL_LISTEN_FD, JB_CTL_VERSION, 0, fd, l,
	    sizeof(*l));
	free(l);
	if (rv == -1 || imsgbuf_flush(ibuf) == -1)
		return -1;
	return 0;
}
