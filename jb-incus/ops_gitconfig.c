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
 * GITCONFIG: the dev user's ~/.gitconfig with the owner's git identity.
 * The only file this op writes is /home/dev/.gitconfig,
 * and only with what gitident_render makes of two checked values; the
 * parent names neither path nor content.
 *
 * Incus's file API opens the path inside the container and follows a
 * symlink there, and leaves the owner and mode of a file that exists as
 * they were.  So whatever holds the path (the image's own file, or a
 * symlink) is deleted first, and the file is made anew, the owner's, 0644.
 * Root inside the container could put a symlink back in between; it
 * would only lead the write elsewhere inside the container, whose files
 * that root controls anyway, and at new the container has just been
 * made from the owner's image, with nothing of the user's running.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitident.h"
#include "bound.h"
#include "incus.h"
#include "log.h"
#include "ops.h"

struct gitcfg {
	char	text[GITIDENT_FILE_MAX];
	size_t	len;
	int	uid, gid;
};

static void
gitcfg_cleared(void *arg, struct json_object *res, const char *err)
{
	struct op_req		*r = arg;
	struct gitcfg		*g = r->priv;
	struct incus_file	 w;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	memset(&w, 0, sizeof(w));
	w.type = "file";
	w.uid = g->uid;
	w.gid = g->gid;
	w.mode = 0644;
	w.data = g->text;
	w.len = g->len;
	if ((r->call = incus_file_push(ops_ic, r->name, GITIDENT_PATH, &w,
	    req_call_done, r)) == NULL)
		fatal("%s", __func__);
}

static void
gitcfg_ours(struct op_req *r, struct json_object *inst)
{
	if ((r->call = incus_file_delete(ops_ic, r->name, GITIDENT_PATH,
	    gitcfg_cleared, r)) == NULL)
		fatal("%s", __func__);
}

void
op_gitconfig(uint32_t rid, const struct jb_git_write *in)
{
	struct op_req	*r;
	struct gitcfg	*g;
	const char	*why = NULL, *key = NULL;
	int		 n;

	must_string("GITCONFIG instance", in->instance, sizeof(in->instance));
	must_string("GITCONFIG name", in->name, sizeof(in->name));
	must_string("GITCONFIG email", in->email, sizeof(in->email));
	r = req_new(rid, IMSG_INCUS_GITCONFIG, in->instance);
	(void)snprintf(r->what, sizeof(r->what), "write %s in %s",
	    GITIDENT_PATH, in->instance);
	if (!name_instance_ok(in->instance)) {
		req_done(r, 0, "no such container %s", in->instance);
		return;
	}
	/* the dev user is the owner, never root (jb-mountd refuses root) */
	if (in->uid == 0 || in->gid == 0 || in->uid > INT32_MAX ||
	    in->gid > INT32_MAX) {
		req_done(r, 0, "%s: uid %u gid %u are not the dev user's",
		    r->what, in->uid, in->gid);
		return;
	}
	if (in->uid != jb_bound.uid || in->gid != jb_bound.gid) {
		req_done(r, 0, "%s: uid %u gid %u are not the owner's (%u:%u)",
		    r->what, in->uid, in->gid, (unsigned)jb_bound.uid,
		    (unsigned)jb_bound.gid);
		return;
	}
	if (in->name[0] != '\0' && (why = gitident_check(in->name)) != NULL)
		key = "user.name";
	else if (in->email[0] != '\0' &&
	    (why = gitident_check(in->email)) != NULL)
		key = "user.email";
	if (why != NULL) {
		req_done(r, 0, "%s: %s: %s", r->what, key, why);
		return;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL)
		fatal("%s", __func__);
	if ((n = gitident_render(in->name, in->email, g->text,
	    sizeof(g->text))) == -1) {
		free(g);
		req_done(r, 0, "%s: no identity to write", r->what);
		return;
	}
	g->len = (size_t)n;
	g->uid = (int)in->uid;
	g->gid = (int)in->gid;
	r->priv = g;
	r->priv_free = free;
	req_check_ours(r, gitcfg_ours);
}
