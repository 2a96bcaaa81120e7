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
 * jb-mountd: sees the host filesystem exactly as the owner does, so it
 * runs as the owner, with no capability at all.
 */

#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "repo.h"
#include "image.h"

static struct repo_owner	owner;

static void
mountd_repo(struct child *c, struct imsg *imsg)
{
	struct jb_repo_req	 req;
	struct jb_repo_info	 info;
	struct jb_done		 done;
	uint32_t		 rid = imsg_get_id(imsg);

	if (imsg_get_data(imsg, &req, sizeof(req)) == -1)
		fatalx("%s: MOUNTD_REPO of %zu bytes", c->name,
		    imsg_get_len(imsg));
	if (memchr(req.path, '\0', sizeof(req.path)) == NULL ||
	    memchr(req.branch, '\0', sizeof(req.branch)) == NULL)
		fatalx("%s: MOUNTD_REPO with an unterminated string", c->name);
	if (req.toplevel_only != 0 && req.toplevel_only != 1)
		fatalx("%s: MOUNTD_REPO with toplevel_only %d", c->name,
		    req.toplevel_only);

	memset(&done, 0, sizeof(done));
	if (repo_inspect(&owner, &req, &info, done.err,
	    sizeof(done.err)) == 0) {
		log_debug("%s: repo %s: %s on %s, upstream %s, default %s",
		    c->name, info.toplevel, info.head_sha,
		    info.head_branch[0] ? info.head_branch : "(detached)",
		    info.upstream_remote[0] ? info.upstream_remote : "(none)",
		    info.default_branch);
		if (imsgev_compose(&c->iev, IMSG_MOUNTD_REPO_INFO, rid, 0, -1,
		    &info, sizeof(info)) == -1)
			fatal("%s: compose", c->name);
		done.ok = 1;
	} else
		log_debug("%s: repo refused: %s", c->name, done.err);
	if (imsgev_compose(&c->iev, IMSG_DONE, rid, 0, -1, &done,
	    sizeof(done)) == -1)
		fatal("%s: compose", c->name);
}

/* C10: the image file, opened as the owner, goes up as an fd */
static void
mountd_image(struct child *c, struct imsg *imsg)
{
	struct jb_image_open	 req;
	struct jb_image_file	 f;
	struct jb_done		 done;
	uint32_t		 rid = imsg_get_id(imsg);
	int			 fd;

	if (imsg_get_data(imsg, &req, sizeof(req)) == -1)
		fatalx("%s: MOUNTD_IMAGE_OPEN of %zu bytes", c->name,
		    imsg_get_len(imsg));
	if (memchr(req.path, '\0', sizeof(req.path)) == NULL)
		fatalx("%s: MOUNTD_IMAGE_OPEN with an unterminated path",
		    c->name);
	memset(&done, 0, sizeof(done));
	if ((fd = image_open(req.path, &f, done.err, sizeof(done.err))) !=
	    -1) {
		log_debug("%s: image %s: %s, %llu bytes", c->name, req.path,
		    f.kind, (unsigned long long)f.size);
		if (imsgev_compose(&c->iev, IMSG_MOUNTD_IMAGE_FD, rid, 0, fd,
		    &f, sizeof(f)) == -1)
			fatal("%s: compose", c->name);
		done.ok = 1;
	} else
		log_debug("%s: image refused: %s", c->name, done.err);
	if (imsgev_compose(&c->iev, IMSG_DONE, rid, 0, -1, &done,
	    sizeof(done)) == -1)
		fatal("%s: compose", c->name);
}

static int
mountd_dispatch(struct child *c, struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_MOUNTD_REPO:
		mountd_repo(c, imsg);
		return 0;
	case IMSG_MOUNTD_IMAGE_OPEN:
		mountd_image(c, imsg);
		return 0;
	default:
		return -1;
	}
}

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct passwd		*pw;

	child_init(&c, "jb-mountd", argc, argv, &a);
	if (a.owner == NULL)
		fatalx("%s: no owner given (-o)", c.name);
	if ((pw = getpwnam(a.owner)) == NULL)
		fatalx("%s: owner %s: no such user", c.name, a.owner);
	if (pw->pw_uid == 0)
		fatalx("%s: the owner must not be root", c.name);
	(void)snprintf(c.detail, sizeof(c.detail), "host view of %s",
	    pw->pw_name);
	/* getpwnam()'s buffer is reused by the next lookup: keep copies */
	if ((owner.name = strdup(pw->pw_name)) == NULL ||
	    (owner.home = strdup(pw->pw_dir)) == NULL)
		fatal("%s: strdup", c.name);
	c.dispatch = mountd_dispatch;
	/* image files go up to the parent as fds (C10) */
	c.fdsend = 1;
	priv_drop(c.name, pw, NULL, NULL, 0);
	sandbox_jb_mountd();
	child_run(&c);
}
