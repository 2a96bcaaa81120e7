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
 * A command the parent itself runs in a container (clone a repository,
 * check for unsaved work): output captured, exit status returned to a
 * continuation.  Never reaches the user's terminal.
 */

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"

struct capture {
	struct job	*job;
	capture_next	 next;
	struct capture_result res;
};

static void
capture_msg(struct req *r, struct imsg *imsg)
{
	struct capture		*cp = r->arg;
	struct capture_result	*res = &cp->res;
	struct jb_output	 o;
	struct jb_exit		 x;
	char			*buf;
	size_t			*len;

	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_OUTPUT:
		if (imsg_get_data(imsg, &o, sizeof(o)) == -1 ||
		    o.len > sizeof(o.data) || (o.which != 1 && o.which != 2))
			fatalx("jb-incus: malformed OUTPUT");
		buf = o.which == 1 ? res->out : res->err;
		len = o.which == 1 ? &res->outlen : &res->errlen;
		if (o.len > CAPTURE_MAX - 1 - *len)
			o.len = CAPTURE_MAX - 1 - *len;
		memcpy(buf + *len, o.data, o.len);
		*len += o.len;
		buf[*len] = '\0';
		break;
	case IMSG_INCUS_EXIT:
		if (imsg_get_data(imsg, &x, sizeof(x)) == -1)
			fatalx("jb-incus: malformed EXIT");
		res->status = x.status;
		res->exited = 1;
		break;
	case IMSG_PROGRESS:
		break;
	default:
		fatalx("jb-incus: unexpected %s in a capture",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

static void
capture_done(struct req *r, int ok, const char *err)
{
	struct capture	*cp = r->arg;

	cp->res.ok = ok && cp->res.exited;
	strlcpy(cp->res.error, ok ? "the command reported no exit status" :
	    err, sizeof(cp->res.error));
	cp->next(cp->job, &cp->res);
	free(cp);
}

static int
capture_start(struct job *job, const char *name, uint32_t uid, uint32_t gid,
    const char *cwd, const char *const *argv, const char *const *envp,
    int quiet_ok, capture_next next)
{
	struct jb_incus_exec	*q;
	struct capture		*cp;
	size_t			 off = 0, l;
	int			 i;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return -1;
	if ((cp = calloc(1, sizeof(*cp))) == NULL) {
		free(q);
		return -1;
	}
	strlcpy(q->name, name, sizeof(q->name));
	q->uid = uid;
	q->gid = gid;
	strlcpy(q->cwd, cwd, sizeof(q->cwd));
	for (i = 0; argv[i] != NULL; i++) {
		if ((l = strlen(argv[i]) + 1) > sizeof(q->argv) - off)
			goto toolong;
		memcpy(q->argv + off, argv[i], l);
		off += l;
		q->nargs++;
	}
	for (off = 0, i = 0; envp != NULL && envp[i] != NULL; i++) {
		if ((l = strlen(envp[i]) + 1) > sizeof(q->env) - off)
			goto toolong;
		memcpy(q->env + off, envp[i], l);
		off += l;
		q->nenv++;
	}
	q->capture = 1;
	q->quiet_ok = quiet_ok;
	cp->job = job;
	cp->next = next;
	if (req_send(PROC_INCUS, IMSG_INCUS_EXEC, q, sizeof(*q), -1,
	    capture_msg, capture_done, cp) == NULL)
		goto toolong;
	free(q);
	return 0;
 toolong:
	free(q);
	free(cp);
	return -1;
}

int
capture_run(struct job *job, const char *name, uint32_t uid, uint32_t gid,
    const char *cwd, const char *const *argv, const char *const *envp,
    capture_next next)
{
	return capture_start(job, name, uid, gid, cwd, argv, envp, 0, next);
}

int
capture_run_quiet(struct job *job, const char *name, uint32_t uid,
    uint32_t gid, const char *cwd, const char *const *argv,
    const char *const *envp, capture_next next)
{
	return capture_start(job, name, uid, gid, cwd, argv, envp, 1, next);
}
