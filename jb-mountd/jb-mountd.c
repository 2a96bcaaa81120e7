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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deadline.h"
#include "gituser.h"
#include "log.h"
#include "mount.h"
#include "mountspec.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "gitdescribe.h"
#include "image.h"
#include "shared.h"
#include "secretfile.h"
#include "sshseed.h"

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

static void
must_str(struct child *c, const char *what, const char *s, size_t size)
{
	if (memchr(s, '\0', size) == NULL)
		fatalx("%s: %s with an unterminated string", c->name, what);
}

static void
get(struct child *c, struct imsg *imsg, void *p, size_t len)
{
	if (imsg_get_data(imsg, p, len) == -1)
		fatalx("%s: %s of %zu bytes", c->name,
		    jb_imsg_name(imsg_get_type(imsg)), imsg_get_len(imsg));
}


/* mount sources (mount.c) and deadlines (deadline.c) */
static void
mountd_mount(struct child *c, struct imsg *imsg)
{
	struct jb_mount_check		 q;
	struct jb_mount_checked		 out;
	struct jb_mount_verify		 v;
	struct jb_mount_deadline	 d;
	struct jb_mount_resolved	 res;
	char				 err[JB_ERR_TEXT_MAX];
	uint32_t			 rid = imsg_get_id(imsg);
	int				 ok;

	err[0] = '\0';
	switch (imsg_get_type(imsg)) {
	case IMSG_MOUNTD_CHECK:
		get(c, imsg, &q, sizeof(q));
		must_str(c, "CHECK", q.host, sizeof(q.host));
		must_str(c, "CHECK", q.container, sizeof(q.container));
		must_str(c, "CHECK", q.reserved, sizeof(q.reserved));
		must_str(c, "CHECK", q.what, sizeof(q.what));
		if ((ok = mount_check(&owner, &q, &out, err, sizeof(err)) ==
		    0) && imsgev_compose(&c->iev, IMSG_MOUNTD_CHECKED, rid, 0,
		    -1, &out, sizeof(out)) == -1)
			fatal("%s: compose", c->name);
		child_done(c, rid, ok, err);
		break;
	case IMSG_MOUNTD_RESOLVE:
		get(c, imsg, &q, sizeof(q));
		must_str(c, "RESOLVE", q.host, sizeof(q.host));
		must_str(c, "RESOLVE", q.what, sizeof(q.what));
		if ((ok = mount_resolve(&owner, &q, &res, err, sizeof(err)) ==
		    0) && imsgev_compose(&c->iev, IMSG_MOUNTD_RESOLVED, rid, 0,
		    -1, &res, sizeof(res)) == -1)
			fatal("%s: compose", c->name);
		child_done(c, rid, ok, err);
		break;
	case IMSG_MOUNTD_RECHECK:
		get(c, imsg, &q, sizeof(q));
		must_str(c, "RECHECK", q.host, sizeof(q.host));
		must_str(c, "RECHECK", q.what, sizeof(q.what));
		ok = mount_recheck(&owner, &q, err, sizeof(err)) == 0;
		child_done(c, rid, ok, err);
		break;
	case IMSG_MOUNTD_VERIFY:
	case IMSG_MOUNTD_RELEASE:
		get(c, imsg, &v, sizeof(v));
		must_str(c, "VERIFY", v.container, sizeof(v.container));
		if (imsg_get_type(imsg) == IMSG_MOUNTD_RELEASE) {
			mount_release(v.token);
			ok = 1;
		} else
			ok = mount_verify(&v, err, sizeof(err)) == 0;
		child_done(c, rid, ok, err);
		break;
	case IMSG_MOUNTD_DEADLINE_SET:
	case IMSG_MOUNTD_DEADLINE_CLEAR:
	case IMSG_MOUNTD_DEADLINE_LIST:
		get(c, imsg, &d, sizeof(d));
		must_str(c, "DEADLINE", d.name, sizeof(d.name));
		must_str(c, "DEADLINE", d.kind, sizeof(d.kind));
		if (imsg_get_type(imsg) == IMSG_MOUNTD_DEADLINE_LIST) {
			deadline_list(c, rid, d.name);
			ok = 1;
		} else if (!mnt_kind_ok(d.kind) || d.name[0] == '\0' ||
		    strchr(d.name, ' ') != NULL)
			fatalx("%s: DEADLINE for \"%s\" \"%s\"", c->name,
			    d.name, d.kind);
		else if (imsg_get_type(imsg) == IMSG_MOUNTD_DEADLINE_SET)
			ok = d.until > 0 && deadline_set(&d, err,
			    sizeof(err)) == 0;
		else
			ok = deadline_clear(&d, err, sizeof(err)) == 0;
		if (!ok && err[0] == '\0')
			(void)strlcpy(err, "no deadline given", sizeof(err));
		child_done(c, rid, ok, err);
		break;
	}
}

/* ssh.enabled's shared ~/.ssh, made and seeded as the owner */
static void
mountd_sshseed(struct child *c, struct imsg *imsg)
{
	struct jb_ssh_seed	 q;
	struct jb_ssh_dir	 out;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 rid = imsg_get_id(imsg);
	int			 ok;

	err[0] = '\0';
	get(c, imsg, &q, sizeof(q));
	must_str(c, "SSH_SEED", q.key, sizeof(q.key));
	if ((ok = sshseed(&owner, q.key, &out, err, sizeof(err)) == 0) &&
	    imsgev_compose(&c->iev, IMSG_MOUNTD_SSH_DIR, rid, 0, -1, &out,
	    sizeof(out)) == -1)
		fatal("%s: compose", c->name);
	child_done(c, rid, ok, err);
}

/* an agent's shared entry, made as the owner */
static void
mountd_shared(struct child *c, struct imsg *imsg)
{
	struct jb_shared_req	 q;
	struct jb_shared_path	 out;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 rid = imsg_get_id(imsg);
	int			 ok;

	err[0] = '\0';
	get(c, imsg, &q, sizeof(q));
	must_str(c, "SHARED", q.key, sizeof(q.key));
	must_str(c, "SHARED", q.subpath, sizeof(q.subpath));
	must_str(c, "SHARED", q.type, sizeof(q.type));
	must_str(c, "SHARED", q.seed, sizeof(q.seed));
	must_str(c, "SHARED", q.what, sizeof(q.what));
	if ((ok = shared_make(&q, &out, err, sizeof(err)) == 0) &&
	    imsgev_compose(&c->iev, IMSG_MOUNTD_SHARED_PATH, rid, 0, -1, &out,
	    sizeof(out)) == -1)
		fatal("%s: compose", c->name);
	child_done(c, rid, ok, err);
}

/* the image file, opened as the owner, goes up as an fd */
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

/* the owner's user.name and user.email, for a new container */
static void
mountd_gitident(struct child *c, struct imsg *imsg)
{
	struct jb_git_ask	 q;
	struct jb_git_ident	 out;
	uint32_t		 rid = imsg_get_id(imsg);

	get(c, imsg, &q, sizeof(q));
	must_str(c, "GITIDENT", q.xdg_config, sizeof(q.xdg_config));
	gituser_read(&owner, q.xdg_config, &out);
	if (imsgev_compose(&c->iev, IMSG_MOUNTD_GITIDENT_INFO, rid, 0, -1,
	    &out, sizeof(out)) == -1)
		fatal("%s: compose", c->name);
	child_done(c, rid, 1, NULL);
}

/* the escalation gate's base: the default branch's committed config */
static void
mountd_defconf(struct child *c, struct imsg *imsg)
{
	struct jb_repo_req	 req;
	struct jb_repo_conf	*out;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 rid = imsg_get_id(imsg);
	int			 ok;

	get(c, imsg, &req, sizeof(req));
	must_str(c, "DEFCONF", req.path, sizeof(req.path));
	must_str(c, "DEFCONF", req.branch, sizeof(req.branch));
	must_str(c, "DEFCONF", req.remote, sizeof(req.remote));
	if ((out = malloc(sizeof(*out))) == NULL)
		fatal("%s: malloc", c->name);
	if ((ok = repo_defconf(&owner, &req, out, err, sizeof(err)) == 0) &&
	    imsgev_compose(&c->iev, IMSG_MOUNTD_DEFCONF_TEXT, rid, 0, -1, out,
	    sizeof(*out)) == -1)
		fatal("%s: compose", c->name);
	free(out);
	child_done(c, rid, ok, err);
}

/* a secret's file, as the owner; the value goes up and is wiped here */
static void
mountd_secret(struct child *c, struct imsg *imsg)
{
	struct jb_secret_ask	 q;
	struct jb_secret_value	 out;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 rid = imsg_get_id(imsg);
	int			 ok;

	get(c, imsg, &q, sizeof(q));
	must_str(c, "SECRET", q.path, sizeof(q.path));
	memset(&out, 0, sizeof(out));
	err[0] = '\0';
	ok = secretfile_read(q.path, owner.home, getuid(), out.value,
	    sizeof(out.value), err, sizeof(err)) == 0;
	if (ok && imsgev_compose(&c->iev, IMSG_MOUNTD_SECRET_VALUE, rid, 0,
	    -1, &out, sizeof(out)) == -1)
		fatal("%s: compose", c->name);
	explicit_bzero(&out, sizeof(out));
	child_done(c, rid, ok, err);
}

static int
mountd_dispatch(struct child *c, struct imsg *imsg)
{
	switch (imsg_get_type(imsg)) {
	case IMSG_MOUNTD_REPO:
		mountd_repo(c, imsg);
		return 0;
	case IMSG_MOUNTD_CHECK:
	case IMSG_MOUNTD_RESOLVE:
	case IMSG_MOUNTD_RECHECK:
	case IMSG_MOUNTD_VERIFY:
	case IMSG_MOUNTD_RELEASE:
	case IMSG_MOUNTD_DEADLINE_SET:
	case IMSG_MOUNTD_DEADLINE_CLEAR:
	case IMSG_MOUNTD_DEADLINE_LIST:
		mountd_mount(c, imsg);
		return 0;
	case IMSG_MOUNTD_IMAGE_OPEN:
		mountd_image(c, imsg);
		return 0;
	case IMSG_MOUNTD_SSH_SEED:
		mountd_sshseed(c, imsg);
		return 0;
	case IMSG_MOUNTD_GITIDENT:
		mountd_gitident(c, imsg);
		return 0;
	case IMSG_MOUNTD_DEFCONF:
		mountd_defconf(c, imsg);
		return 0;
	case IMSG_MOUNTD_SHARED:
		mountd_shared(c, imsg);
		return 0;
	case IMSG_MOUNTD_SECRET:
		mountd_secret(c, imsg);
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
	pw = child_owner(&c, &a);
	(void)snprintf(c.detail, sizeof(c.detail), "host view of %s",
	    pw->pw_name);
	/* getpwnam()'s buffer is reused by the next lookup: keep copies */
	if ((owner.name = strdup(pw->pw_name)) == NULL ||
	    (owner.home = strdup(pw->pw_dir)) == NULL)
		fatal("%s: strdup", c.name);
	if (a.mountdir == NULL || a.mountdir[0] != '/')
		fatalx("%s: no absolute state directory given (-m)", c.name);
	c.dispatch = mountd_dispatch;
	/* image files go up to the parent as fds */
	c.fdsend = 1;
	priv_drop(c.name, pw, NULL, NULL, 0);
	deadline_init(&c, a.mountdir);
	sshseed_init(a.mountdir);
	shared_init(a.mountdir);
	sandbox_jb_mountd(a.mountdir);
	child_run(&c);
}
