/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "testhook.h"
#include "memtrim.h"

static void	child_dispatch(int, short, void *);
static void	child_sig(int, short, void *);

__dead void
child_run(struct child *c)
{
	struct event	 evterm, evint, evhup, evpipe;

	signal_set(&evterm, SIGTERM, child_sig, c);
	signal_set(&evint, SIGINT, child_sig, c);
	signal_set(&evhup, SIGHUP, child_sig, c);
	signal_set(&evpipe, SIGPIPE, child_sig, c);
	signal_add(&evterm, NULL);
	signal_add(&evint, NULL);
	signal_add(&evhup, NULL);
	signal_add(&evpipe, NULL);

	if (imsgev_init(&c->iev, JB_CHAN_FD, child_dispatch, c) == -1)
		fatal("imsgbuf_init");
	/*
	 * fds go up to the parent; only jb-incus takes one down (an image
	 * file jb-mountd opened), and only with the message that needs it
	 */
	if (c->fdrecv)
		imsgbuf_allow_fdpass(&c->iev.ibuf);
	else if (c->fdsend)
		imsgbuf_allow_fdsend(&c->iev.ibuf);
	/* jb-sshd alone is handed its listening socket */
	if (c->fdrecv)
		imsgbuf_allow_fdpass(&c->iev.ibuf);
	if (imsgev_compose(&c->iev, IMSG_CHILD_READY, 0, 0, -1, NULL, 0) == -1)
		fatal("compose");
	/* what start-up freed (configuration, the first table) goes back */
	memtrim_soon();
	event_dispatch();
	fatalx("event loop ended");
}

static void
child_sig(int sig, short event, void *arg)
{
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("terminating on signal %d", sig);
		exit(0);
	default:
		/* SIGHUP: the parent reloads, children wait to be told */
		break;
	}
}

static void
child_dispatch(int fd, short event, void *arg)
{
	struct child		*c = arg;
	struct imsg		 imsg;
	int			 n;

	if ((n = imsgev_io(&c->iev, event)) == -1)
		fatal("channel to the parent");
	if (n == 0) {
		/* the parent is gone: so are we */
		log_debug("parent closed the channel");
		exit(0);
	}
	for (;;) {
		if ((n = jb_imsg_get(&c->iev.ibuf, &imsg, JB_PEER_PARENT,
		    jb_msg_peer(c->name))) == -1)
			fatal("bad message from the parent");
		if (n == 0)
			break;
		switch (imsg_get_type(&imsg)) {
		case IMSG_STATUS_REQ:
			if (imsg_get_len(&imsg) != 0)
				fatalx("STATUS_REQ with a payload");
			if (c->status != NULL)
				c->status(c, imsg_get_id(&imsg));
			else
				child_status_reply(c, imsg_get_id(&imsg));
			break;
		case IMSG_TEST_ATTEMPT: {
			struct jb_test_attempt	a;
			struct jb_ctl_text	t;

			if (!jb_testing)
				fatalx("TEST_ATTEMPT without the test switch");
			if (imsg_get_data(&imsg, &a, sizeof(a)) == -1)
				fatalx("bad TEST_ATTEMPT");
			a.verb[sizeof(a.verb) - 1] = '\0';
			a.path[sizeof(a.path) - 1] = '\0';
			a.proc[sizeof(a.proc) - 1] = '\0';
			memset(&t, 0, sizeof(t));
			if (c->attempt != NULL)
				c->attempt(c, &a, t.text, sizeof(t.text));
			else
				testhook_attempt(&a, t.text, sizeof(t.text));
			if (imsgev_compose(&c->iev, IMSG_TEST_RESULT,
			    imsg_get_id(&imsg), 0, -1, &t, sizeof(t)) == -1)
				fatal("compose");
			break;
		}
		default:
			if (c->dispatch == NULL || c->dispatch(c, &imsg) == -1)
				fatalx("unexpected message %s (%u) from "
				    "the parent",
				    jb_imsg_name(imsg_get_type(&imsg)),
				    imsg_get_type(&imsg));
		}
		imsg_free(&imsg);
	}
	imsgev_add(&c->iev);
	memtrim_soon();
}

void
child_status_reply(struct child *c, uint32_t rid)
{
	struct jb_proc_status	 st;

	if (selfstat(&st, c->name, c->started, c->detail) == -1)
		fatal("/proc/self/status");
	if (imsgev_compose(&c->iev, IMSG_STATUS, rid, 0, -1, &st,
	    sizeof(st)) == -1)
		fatal("compose");
}

/* "443,80": the gateway's ports */
static int
gw_ports(const char *s, struct child_args *a)
{
	const char	*p = s;
	char		*end;
	long		 v;

	a->ngw = 0;
	while (*p != '\0') {
		if (*p < '0' || *p > '9' || a->ngw == JB_GW_PORTS_MAX)
			return -1;
		v = strtol(p, &end, 10);
		if (v < 1 || v > 65535 || (*end != ',' && *end != '\0'))
			return -1;
		a->gw_ports[a->ngw++] = (uint16_t)v;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/*
 * The start of every child: the flags jailbeed passes, logging, the
 * refusal to run unless fd 3 is our channel, its resource bounds
 * (rlimits.c), and the event base, which a child may need before it
 * drops its privileges (jb-incus loads its certificates then).
 */
void
child_init(struct child *c, const char *name, int argc, char **argv,
    struct child_args *a)
{
	int	ch;

	memtrim_init();
	memset(c, 0, sizeof(*c));
	memset(a, 0, sizeof(*a));
	c->name = name;
	c->started = time(NULL);
	while ((ch = getopt(argc, argv, "a:b:c:dDe:G:k:m:o:P:s:S:TU:vX:")) != -1) {
		switch (ch) {
		case 'D':
			a->sandbox_debug = 1;
			sandbox_set_debug(1);
			break;
		case 'a':
			a->ca = optarg;
			break;
		case 'b':
			a->bridge = optarg;
			break;
		case 'c':
			a->cert = optarg;
			break;
		case 'k':
			a->key = optarg;
			break;
		case 'G':
			if (gw_ports(optarg, a) == -1) {
				fprintf(stderr, "%s: -G %s: ports 1-65535, "
				    "comma-separated, at most %d\n", name,
				    optarg, JB_GW_PORTS_MAX);
				exit(2);
			}
			break;
		case 'd':
			a->debug = 1;
			break;
		case 'e':
			a->endpoint = optarg;
			break;
		case 'm':
			a->mountdir = optarg;
			break;
		case 'o':
			a->owner = optarg;
			break;
		case 'P':
			a->privnets = optarg;
			break;
		case 's':
			a->state_dir = optarg;
			break;
		case 'S':
			a->socket = optarg;
			break;
		case 'T':
			/* jailbeed -T: the suite runs under a test */
			jb_testing = 1;
			break;
		case 'U':
			a->upstream = optarg;
			break;
		case 'v':
			a->verbose++;
			break;
		case 'X':
			{
				const char	*e = NULL;

				a->proxy_port = (uint16_t)strtonum(optarg, 1,
				    65535, &e);
				if (e != NULL) {
					fprintf(stderr, "%s: -X %s: a port "
					    "1-65535\n", name, optarg);
					exit(2);
				}
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-dDTv] [-a ca] [-b bridge] "
			    "[-c cert] [-e endpoint] [-G ports] [-k key] [-m dir] "
			    "[-o owner] [-P ranges] [-s state_dir] [-S socket] "
			    "[-U upstream] [-X proxy_port] "
			    "(started by jailbeed)\n", name);
			exit(2);
		}
	}
	log_init(a->debug, LOG_DAEMON);
	log_procinit(name);
	log_setverbose(a->verbose);
	proc_child_check(name);
	proc_bound(name);
	c->base = event_init();
}

/*
 * The user a child serves, named by -o: never root.  The entry is
 * getpwnam()'s own buffer, valid until the next lookup.
 */
struct passwd *
child_owner(struct child *c, const struct child_args *a)
{
	struct passwd	*pw;

	if (a->owner == NULL)
		fatalx("%s: no owner given (-o)", c->name);
	if ((pw = getpwnam(a->owner)) == NULL)
		fatalx("%s: owner %s: no such user", c->name, a->owner);
	if (pw->pw_uid == 0)
		fatalx("%s: the owner must not be root", c->name);
	return pw;
}

/* end request rid: ok, or failed with err for the user */
void
child_done(struct child *c, uint32_t rid, int ok, const char *err)
{
	struct jb_done	d;

	memset(&d, 0, sizeof(d));
	d.ok = ok;
	if (!ok)
		(void)strlcpy(d.err, err, sizeof(d.err));
	if (imsgev_compose(&c->iev, IMSG_DONE, rid, 0, -1, &d, sizeof(d)) ==
	    -1)
		fatal("compose");
}

/* one line of text (struct jb_ctl_text) of the given type, for request rid */
void
child_text(struct child *c, uint32_t type, uint32_t rid, const char *fmt,
    ...)
{
	struct jb_ctl_text	t;
	va_list			ap;

	memset(&t, 0, sizeof(t));
	va_start(ap, fmt);
	(void)vsnprintf(t.text, sizeof(t.text), fmt, ap);
	va_end(ap);
	if (imsgev_compose(&c->iev, type, rid, 0, -1, &t, sizeof(t)) == -1)
		fatal("compose");
}
