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
 * jb-incus: the only process that can reach the Incus API.  A dedicated
 * user whose one privilege is membership of Incus's admin group.  The
 * client (and, for https, its certificates and the server's address) is
 * set up before the privilege drop; every request after it is
 * asynchronous, so a slow Incus never stalls the channel to the parent.
 */

#include <json-c/json.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "http.h"
#include "incus.h"
#include "log.h"
#include "ops.h"
#include "proc.h"
#include "ws.h"
#include "sandbox_procs.h"

static struct child	 jb_child;
static struct incus	*ic;
static const char	*endpoint;

static const char *
jstr(struct json_object *o, const char *a, const char *b)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, a, &v))
		return "?";
	if (b != NULL && !json_object_object_get_ex(v, b, &v))
		return "?";
	return json_object_get_string(v);
}

/* what status reports is what Incus answers now, not what it once did */
static void
server_done(void *arg, struct json_object *server, const char *err)
{
	struct child	*c = &jb_child;
	uint32_t	 rid = (uint32_t)(uintptr_t)arg;

	if (err != NULL)
		(void)snprintf(c->detail, sizeof(c->detail), "incus at %s: %s",
		    endpoint, err);
	else
		(void)snprintf(c->detail, sizeof(c->detail),
		    "incus %s (api %s) at %s, auth %s",
		    jstr(server, "environment", "server_version"),
		    jstr(server, "api_version", NULL), endpoint,
		    jstr(server, "auth", NULL));
	child_status_reply(c, rid);
}

static void
incus_status(struct child *c, uint32_t rid)
{
	if (incus_server_get(ic, server_done, (void *)(uintptr_t)rid) == NULL)
		server_done((void *)(uintptr_t)rid, NULL, "cannot send");
}

/* the TCP port an https endpoint uses (Incus's 8443 by default), else 0 */
static uint16_t
https_port(const char *url)
{
	const char	*h, *p;
	long		 port;

	if (strncmp(url, "https://", 8) != 0)
		return 0;
	h = url + 8;
	p = h[0] == '[' ? strchr(h, ']') : h;
	if (p == NULL || (p = strrchr(p, ':')) == NULL)
		return 8443;
	port = strtol(p + 1, NULL, 10);
	return port > 0 && port < 65536 ? (uint16_t)port : 8443;
}

int
main(int argc, char *argv[])
{
	struct child		*c = &jb_child;
	struct child_args	 a;
	struct passwd		*pw;
	struct http_tls		 tls;
	char			 err[256], warm[64];

	child_init(c, "jb-incus", argc, argv, &a);
	if ((endpoint = a.endpoint) == NULL)
		fatalx("%s: no Incus endpoint given (-e)", c->name);
	/* while root: the owner's ids and the real paths, looked up here */
	bound_init(a.owner, a.state_dir, a.socket);
	if ((pw = getpwnam(JB_USER_INCUS)) == NULL)
		fatalx("%s: user %s does not exist; run regress/setup-host "
		    "(make deps) to create it", c->name, JB_USER_INCUS);
	memset(&tls, 0, sizeof(tls));
	tls.cert_file = a.cert;
	tls.key_file = a.key;
	tls.ca_file = a.ca;
	if ((ic = incus_new(c->base, endpoint, a.cert ? &tls : NULL, err,
	    sizeof(err))) == NULL)
		fatalx("%s: %s", c->name, err);
	(void)snprintf(c->detail, sizeof(c->detail), "incus at %s", endpoint);
	c->status = incus_status;
	c->dispatch = ops_dispatch;
	ops_init(c, ic, a.bridge);
	/* streamed execs hand their sockets to the parent */
	c->fdsend = 1;
	/* base images come down as fds jb-mountd opened */
	c->fdrecv = 1;
	priv_drop(c->name, pw, NULL, NULL, 0);
	/*
	 * The handshake's digest (libmd) against RFC 6455's own example:
	 * a broken one stops the start, not the first shell.  OpenSSL, for
	 * https only, was initialised by http_client_new, with files still
	 * open to it.
	 */
	if (ws_accept_value("dGhlIHNhbXBsZSBub25jZQ==", warm, sizeof(warm))
	    == -1 || strcmp(warm, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") != 0)
		fatalx("%s: cannot compute a websocket accept value", c->name);
	sandbox_jb_incus(https_port(endpoint));
	/* the event stream, opened when the parent asks (FOLLOW) */
	events_init(c);
	child_run(c);
}
