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
 * EXEC: a command in one of our running containers, either captured
 * (Incus records the output, which goes to the parent as OUTPUT
 * messages) or streamed (socketpairs whose far ends go to the parent,
 * bridged here to Incus's websockets by exec.c).  Both end with EXIT and
 * DONE.  RESIZE reaches a streamed exec by its request id.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "exec.h"
#include "bound.h"
#include "incus.h"
#include "log.h"
#include "ops.h"

#define ID_MAX_OK	2147483646U

struct xreq {
	struct jb_incus_exec	 in;
	const char		**argv;
	const char		**env;
};

static void	exec_go(struct op_req *, struct json_object *);

static void
xreq_free(void *p)
{
	struct xreq	*x = p;

	free(x->argv);
	free(x->env);
	free(x);
}

static int
flag(const char *what, int32_t v)
{
	if (v != 0 && v != 1)
		fatalx("EXEC from the parent with %s %d", what, v);
	return v;
}

void
op_exec(uint32_t rid, const struct jb_incus_exec *in)
{
	struct op_req	*r;
	struct xreq	*x;
	char		 why[JB_ERR_TEXT_MAX];

	must_string("EXEC name", in->name, sizeof(in->name));
	must_string("EXEC cwd", in->cwd, sizeof(in->cwd));
	if (flag("interactive", in->interactive) &&
	    flag("capture", in->capture))
		fatalx("EXEC from the parent both interactive and captured");
	(void)flag("capture", in->capture);
	if (flag("quiet_ok", in->quiet_ok) && !in->capture)
		fatalx("EXEC from the parent quiet_ok but not captured");

	if ((x = calloc(1, sizeof(*x))) == NULL)
		fatal("%s", __func__);
	memcpy(&x->in, in, sizeof(x->in));
	x->argv = unpack_strings("EXEC argv", x->in.argv, sizeof(x->in.argv),
	    x->in.nargs);
	x->env = unpack_strings("EXEC env", x->in.env, sizeof(x->in.env),
	    x->in.nenv);
	r = req_new(rid, IMSG_INCUS_EXEC, in->name);
	r->priv = x;
	r->priv_free = xreq_free;
	(void)snprintf(r->what, sizeof(r->what), "exec %s", in->name);

	if (!name_instance_ok(in->name))
		req_done(r, 0, "no such container %s", in->name);
	else if (in->nargs == 0 || x->argv[0][0] == '\0')
		req_done(r, 0, "%s: no command given", r->what);
	else if (in->uid > ID_MAX_OK || in->gid > ID_MAX_OK)
		req_done(r, 0, "%s: uid %u or gid %u out of range", r->what,
		    in->uid, in->gid);
	else if (!bound_exec_ids(&jb_bound, in->uid, in->gid, why,
	    sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else if (in->cwd[0] != '\0' && strcmp(in->cwd, "/") != 0 &&
	    !valid_abspath(in->cwd))
		req_done(r, 0, "%s: working directory \"%s\" is not a "
		    "canonical absolute path", r->what, in->cwd);
	else if (!valid_env_list(x->env, why, sizeof(why)))
		req_done(r, 0, "%s: %s", r->what, why);
	else
		req_check_ours(r, exec_go);
}

static void
send_output(struct op_req *r, uint32_t which, const char *p, size_t len)
{
	struct jb_output	*o;
	size_t			 n;

	if ((o = malloc(sizeof(*o))) == NULL)
		fatal("%s", __func__);
	while (len > 0) {
		n = len < sizeof(o->data) ? len : sizeof(o->data);
		memset(o, 0, sizeof(*o));
		o->which = which;
		o->len = (uint32_t)n;
		memcpy(o->data, p, n);
		op_send(r, IMSG_INCUS_OUTPUT, -1, o, sizeof(*o));
		p += n;
		len -= n;
	}
	free(o);
}

static void
send_exit(struct op_req *r, int status)
{
	struct jb_exit	e;

	memset(&e, 0, sizeof(e));
	e.status = status;
	op_send(r, IMSG_INCUS_EXIT, -1, &e, sizeof(e));
}

static void
captured(void *arg, const struct incus_exec_result *res, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (res == NULL) {
		req_fail(r, err);
		return;
	}
	send_output(r, 1, res->out, res->outlen);
	send_output(r, 2, res->err, res->errlen);
	send_exit(r, res->status);
	/* the command ran, but what it wrote may be incomplete */
	if (err != NULL)
		req_fail(r, err);
	else
		req_done(r, 1, NULL);
}

static void
streamed(void *arg, int status, const char *err)
{
	struct op_req	*r = arg;

	r->xs = NULL;		/* the session is gone */
	if (err != NULL) {
		req_done(r, 0, "%s", err);
		return;
	}
	send_exit(r, status);
	req_done(r, 1, NULL);
}

static void
send_fd(struct op_req *r, uint32_t which, int fd)
{
	struct jb_exec_fd	f;

	memset(&f, 0, sizeof(f));
	f.which = which;
	op_send(r, IMSG_INCUS_EXEC_FD, fd, &f, sizeof(f));
}

static void
exec_stream(struct op_req *r, struct xreq *x)
{
	struct exec_params	 p;
	int			 io[2], er[2] = { -1, -1 };

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, io) == -1) {
		req_done(r, 0, "%s: socketpair: %s", r->what, strerror(errno));
		return;
	}
	if (!x->in.interactive &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, er) == -1) {
		req_done(r, 0, "%s: socketpair: %s", r->what, strerror(errno));
		close(io[0]);
		close(io[1]);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.argv = x->argv;
	p.env = x->env;
	p.uid = x->in.uid;
	p.gid = x->in.gid;
	p.cwd = x->in.cwd[0] != '\0' ? x->in.cwd : NULL;
	p.interactive = x->in.interactive;
	p.cols = x->in.cols;
	p.rows = x->in.rows;
	/* the session owns our ends from here on, also on failure */
	r->xs = exec_start(ops_ic, r->name, &p, io[0], er[0], streamed, r);
	if (r->xs == NULL) {
		close(io[1]);
		if (er[1] != -1)
			close(er[1]);
		req_done(r, 0, "%s: out of memory", r->what);
		return;
	}
	send_fd(r, 0, io[1]);
	if (er[1] != -1)
		send_fd(r, 2, er[1]);
}

static void
exec_go(struct op_req *r, struct json_object *inst)
{
	struct xreq		*x = r->priv;
	struct incus_exec	 ie;
	const char		*status = jget_str(inst, "status");

	if (status == NULL || strcmp(status, "Running") != 0) {
		req_done(r, 0, "%s is not running (%s): start it first",
		    r->name, status != NULL ? status : "state unknown");
		return;
	}
	if (!x->in.capture) {
		exec_stream(r, x);
		return;
	}
	memset(&ie, 0, sizeof(ie));
	ie.argv = x->argv;
	ie.env = x->env;
	ie.cwd = x->in.cwd[0] != '\0' ? x->in.cwd : NULL;
	ie.uid = (int)x->in.uid;
	ie.gid = (int)x->in.gid;
	ie.quiet_ok = x->in.quiet_ok;
	if ((r->call = incus_exec(ops_ic, r->name, &ie, captured, r)) == NULL)
		fatal("%s", __func__);
}

/*
 * The parent ends a streamed exec: its websockets close, and a closed
 * control stream makes Incus kill the command; DONE says it failed.
 */
void
op_exec_kill(uint32_t rid)
{
	struct op_req	*r;

	/* the command may just have ended: not an error */
	if ((r = req_find(rid, IMSG_INCUS_EXEC)) == NULL || r->xs == NULL) {
		log_debug("kill of request %u: no streamed exec", rid);
		return;
	}
	req_done(r, 0, "%s: ended by jailbeed", r->what);
}

void
op_resize(uint32_t rid, const struct jb_winsize *ws)
{
	struct op_req	*r;

	/* the command may just have ended: not an error */
	if ((r = req_find(rid, IMSG_INCUS_EXEC)) == NULL || r->xs == NULL) {
		log_debug("resize of request %u: no streamed exec", rid);
		return;
	}
	if (exec_resize(r->xs, ws->cols, ws->rows) == -1)
		log_debug("%s: resize to %ux%u: %s", r->what, ws->cols,
		    ws->rows, strerror(errno));
}
