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
 * Base images: IMAGE_IMPORT, IMAGES and IMAGE_PRUNE.
 *
 * An import gets the image as an fd that jb-mountd opened as the owner;
 * this process has no file access of its own.  The file is hashed first
 * (in slices, so the loop keeps serving), then streamed to Incus with
 * that fingerprint for Incus to check, marked as the suite's with image
 * properties, and the repo's alias is pointed at it.  An image Incus
 * already holds is not sent again; one that was not imported by the
 * suite is never marked, so prune never deletes it.
 */

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json.h>
#include <sha2.h>

#include "bound.h"
#include "incus.h"
#include "log.h"
#include "ops.h"

#define IMG_SLICE	(1024 * 1024)	/* hashed per read */
#define IMG_SLICES	8		/* reads per turn of the loop */
#define PROP_SUITE	"jailbee.suite"
#define PROP_ALIAS	"jailbee.alias"
#define PROP_REPO	"jailbee.repo"

struct imp {
	int			 fd;
	uint64_t		 size;
	off_t			 off;
	SHA2_CTX		 md;	/* libmd: no OpenSSL init */
	struct event		*ev;
	char			 fp[65];
	char			 alias[JB_INSTANCE_MAX];
	char			 repo[PATH_MAX];
	char			 pool[64];	/* "" the default profile's */
	char			 warm[JB_INSTANCE_MAX];	/* the throwaway */
	unsigned char		*buf;
};

static void
imp_free(void *arg)
{
	struct imp	*m = arg;

	if (m == NULL)
		return;
	if (m->fd != -1)
		close(m->fd);
	if (m->ev != NULL)
		event_free(m->ev);
	free(m->buf);
	free(m);
}

static void	imp_warm(struct op_req *);

/* a storage pool's name as defaults.storage_pool takes it */
static int
pool_name_ok(const char *p)
{
	return p[0] != '\0' && strchr("-_.", p[0]) == NULL &&
	    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-.") == strlen(p);
}

static void
imp_finish(struct op_req *r)
{
	struct imp	*m = r->priv;

	req_progress(r, "base image %s is %.12s", m->alias, m->fp);
	imp_warm(r);
}

/*
 * The image's volume on the pool new containers go on: on a
 * copy-on-write pool Incus unpacks an image there once, as the first
 * container from it is made, and snapshots it for every later one.
 * Made here by a throwaway container, never started, deleted again, so
 * that the first new is as quick as the next.  The import is done
 * whatever happens here: a failure only leaves the unpacking to the
 * first new.
 */
static void
warm_end(struct op_req *r, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));

static void
warm_end(struct op_req *r, const char *fmt, ...)
{
	char	msg[JB_ERR_TEXT_MAX];
	va_list	ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		(void)vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		req_progress(r, "%s", msg);
	}
	req_done(r, 1, NULL);
}

static void
warm_deleted(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;

	r->call = NULL;
	if (err != NULL) {
		warm_end(r, "warning: the throwaway container %s could not be "
		    "deleted: %s (incus delete %s)", m->warm, err, m->warm);
		return;
	}
	warm_end(r, "image %.12s unpacked on storage pool %s", m->fp,
	    m->pool);
}

static void
warm_created(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;

	r->call = NULL;
	if (err != NULL) {
		warm_end(r, "warning: image %.12s not unpacked on storage pool "
		    "%s, the first new will: %s", m->fp, m->pool, err);
		return;
	}
	if ((r->call = incus_instance_delete(ops_ic, m->warm, warm_deleted,
	    r)) == NULL)
		fatal("%s", __func__);
}

static void
warm_create(struct op_req *r)
{
	struct imp		*m = r->priv;
	struct json_object	*b, *src, *devs, *d;
	char			 why[JB_ERR_TEXT_MAX];

	(void)snprintf(m->warm, sizeof(m->warm), "jailbee-warm-%.16s", m->fp);
	b = jnew(json_object_new_object());
	jput(b, "name", m->warm);
	jput(b, "type", "container");
	src = jnew(json_object_new_object());
	jput(src, "type", "image");
	jput(src, "fingerprint", m->fp);
	json_object_object_add(b, "source", src);
	devs = jnew(json_object_new_object());
	d = jnew(json_object_new_object());
	jput(d, "type", "disk");
	jput(d, "path", "/");
	jput(d, "pool", m->pool);
	json_object_object_add(devs, "root", d);
	json_object_object_add(b, "devices", devs);
	json_object_object_add(b, "start", jnew(json_object_new_boolean(0)));
	if (!bound_instance(&jb_bound, b, ops_bridge, why, sizeof(why))) {
		json_object_put(b);
		warm_end(r, "warning: image %.12s not unpacked on storage pool "
		    "%s: %s", m->fp, m->pool, why);
		return;
	}
	req_progress(r, "unpacking image %.12s on storage pool %s", m->fp,
	    m->pool);
	r->call = incus_instance_create(ops_ic, b, warm_created, r);
	json_object_put(b);
	if (r->call == NULL)
		fatal("%s", __func__);
}

/* a pool that copies (not dir, which unpacks for every container) */
static void
warm_pool(void *arg, struct json_object *pool, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;
	const char	*driver;

	r->call = NULL;
	if (err != NULL) {
		warm_end(r, "warning: storage pool %s: %s", m->pool, err);
		return;
	}
	driver = jget_str(pool, "driver");
	if (driver == NULL || strcmp(driver, "dir") == 0) {
		warm_end(r, NULL);
		return;
	}
	warm_create(r);
}

static void
warm_volume(void *arg, struct json_object *vol, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;
	char		 path[192];

	r->call = NULL;
	if (err != NULL) {
		warm_end(r, "warning: storage pool %s: %s", m->pool, err);
		return;
	}
	if (vol != NULL) {
		warm_end(r, "image %.12s is on storage pool %s already",
		    m->fp, m->pool);
		return;
	}
	(void)snprintf(path, sizeof(path), "/1.0/storage-pools/%s", m->pool);
	if ((r->call = incus_request(ops_ic, "GET", path, NULL, warm_pool,
	    r)) == NULL)
		fatal("%s", __func__);
}

static void
warm_look(struct op_req *r)
{
	struct imp	*m = r->priv;
	char		 path[192];

	(void)snprintf(path, sizeof(path),
	    "/1.0/storage-pools/%s/volumes/image/%s", m->pool, m->fp);
	if ((r->call = incus_get_maybe(ops_ic, path, warm_volume, r)) == NULL)
		fatal("%s", __func__);
}

/* new's root disk goes on the default profile's pool without the key */
static void
warm_profile(void *arg, struct json_object *prof, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;
	const char	*pool;

	r->call = NULL;
	if (err != NULL || (pool = jget_str(jget_obj(jget_obj(prof,
	    "devices"), "root"), "pool")) == NULL ||
	    strlen(pool) >= sizeof(m->pool) || !pool_name_ok(pool)) {
		warm_end(r, NULL);
		return;
	}
	(void)strlcpy(m->pool, pool, sizeof(m->pool));
	warm_look(r);
}

static void
imp_warm(struct op_req *r)
{
	struct imp	*m = r->priv;

	if (m->pool[0] != '\0') {
		warm_look(r);
		return;
	}
	if ((r->call = incus_request(ops_ic, "GET", "/1.0/profiles/default",
	    NULL, warm_profile, r)) == NULL)
		fatal("%s", __func__);
}

static void
imp_alias_set(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	imp_finish(r);
}

static void
imp_alias_got(void *arg, struct json_object *md, const char *err)
{
	struct op_req		*r = arg;
	struct imp		*m = r->priv;
	struct json_object	*b;
	const char		*old;
	char			 path[128];

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	old = jget_str(md, "target");
	if (old != NULL && strcmp(old, m->fp) == 0) {
		req_progress(r, "alias %s already points at it", m->alias);
		imp_finish(r);
		return;
	}
	if ((b = json_object_new_object()) == NULL)
		fatal("%s", __func__);
	json_object_object_add(b, "target", json_object_new_string(m->fp));
	(void)snprintf(r->what, sizeof(r->what), "alias %s", m->alias);
	if (old == NULL) {
		json_object_object_add(b, "name",
		    json_object_new_string(m->alias));
		req_progress(r, "alias %s -> %.12s", m->alias, m->fp);
		r->call = incus_request(ops_ic, "POST", "/1.0/images/aliases",
		    b, imp_alias_set, r);
	} else {
		(void)snprintf(path, sizeof(path), "/1.0/images/aliases/%s",
		    m->alias);
		req_progress(r, "alias %s -> %.12s (was %.12s)", m->alias,
		    m->fp, old);
		r->call = incus_request(ops_ic, "PATCH", path, b,
		    imp_alias_set, r);
	}
	json_object_put(b);
	if (r->call == NULL)
		fatal("%s", __func__);
}

static void
imp_alias(struct op_req *r)
{
	struct imp	*m = r->priv;

	if ((r->call = incus_image_alias_get(ops_ic, m->alias, imp_alias_got,
	    r)) == NULL)
		fatal("%s", __func__);
}

static void
imp_marked(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	imp_alias(r);
}

/* the properties that make it the suite's: prune looks for them */
static void
imp_mark(struct op_req *r)
{
	struct imp		*m = r->priv;
	struct json_object	*b, *p;
	char			 path[128];

	if ((b = json_object_new_object()) == NULL ||
	    (p = json_object_new_object()) == NULL)
		fatal("%s", __func__);
	json_object_object_add(p, PROP_SUITE, json_object_new_string("1"));
	json_object_object_add(p, PROP_ALIAS, json_object_new_string(m->alias));
	json_object_object_add(p, PROP_REPO, json_object_new_string(m->repo));
	json_object_object_add(b, "properties", p);
	(void)snprintf(path, sizeof(path), "/1.0/images/%s", m->fp);
	(void)snprintf(r->what, sizeof(r->what), "marking image %.12s", m->fp);
	r->call = incus_request(ops_ic, "PATCH", path, b, imp_marked, r);
	json_object_put(b);
	if (r->call == NULL)
		fatal("%s", __func__);
}

static void
imp_uploaded(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;
	const char	*fp;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if ((fp = jget_str(md, "fingerprint")) == NULL ||
	    strcmp(fp, m->fp) != 0) {
		req_done(r, 0, "%s: Incus reported fingerprint %s, not %s",
		    r->what, fp ? fp : "(none)", m->fp);
		return;
	}
	req_progress(r, "imported %.12s", m->fp);
	imp_mark(r);
}

static void
imp_existing(void *arg, struct json_object *img, const char *err)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;
	const char	*suite;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (img == NULL) {
		req_progress(r, "uploading %.1f MB to Incus",
		    (double)m->size / 1e6);
		(void)snprintf(r->what, sizeof(r->what), "importing the image");
		if ((r->call = incus_image_import_fd(ops_ic, m->fd,
		    (size_t)m->size, m->fp, NULL, imp_uploaded, r)) == NULL)
			fatal("%s", __func__);
		return;
	}
	suite = jget_str(jget_obj(img, "properties"), PROP_SUITE);
	if (suite != NULL && strcmp(suite, "1") == 0) {
		req_progress(r, "Incus already holds image %.12s", m->fp);
		imp_mark(r);
	} else {
		/* not the suite's: used as it is, never marked nor pruned */
		req_progress(r, "Incus already holds image %.12s, not "
		    "imported by JailBee: left unmarked", m->fp);
		imp_alias(r);
	}
}

static void
imp_hash(evutil_socket_t fd, short ev, void *arg)
{
	struct op_req	*r = arg;
	struct imp	*m = r->priv;
	struct timeval	 tv = { 0, 0 };
	uint8_t		 d[SHA256_DIGEST_LENGTH];
	uint64_t	 want;
	size_t		 i;
	ssize_t		 n;
	int		 k;

	for (k = 0; k < IMG_SLICES && (uint64_t)m->off < m->size; k++) {
		/* exactly size bytes: what is uploaded, whatever follows */
		want = m->size - (uint64_t)m->off;
		n = pread(m->fd, m->buf, want < IMG_SLICE ? (size_t)want :
		    IMG_SLICE, m->off);
		if (n <= 0) {
			req_done(r, 0, "reading the image: %s", n == 0 ?
			    "it is shorter than it was" : strerror(errno));
			return;
		}
		SHA256Update(&m->md, m->buf, (size_t)n);
		m->off += n;
	}
	if ((uint64_t)m->off < m->size) {
		evtimer_add(m->ev, &tv);
		return;
	}
	SHA256Final(d, &m->md);
	for (i = 0; i < sizeof(d); i++)
		(void)snprintf(m->fp + 2 * i, 3, "%02x", d[i]);
	free(m->buf);
	m->buf = NULL;
	req_progress(r, "sha256 %s", m->fp);
	(void)snprintf(r->what, sizeof(r->what), "looking up image %.12s",
	    m->fp);
	if ((r->call = incus_image_get(ops_ic, m->fp, imp_existing, r)) ==
	    NULL)
		fatal("%s", __func__);
}

void
op_image_import(uint32_t rid, const struct jb_image_import *q, int fd)
{
	struct op_req	*r;
	struct imp	*m;
	struct stat	 st;
	struct timeval	 tv = { 0, 0 };

	if (fd == -1)
		fatalx("IMAGE_IMPORT from the parent without a file");
	must_string("IMAGE_IMPORT alias", q->alias, sizeof(q->alias));
	must_string("IMAGE_IMPORT repo", q->repo, sizeof(q->repo));
	r = req_new(rid, IMSG_INCUS_IMAGE_IMPORT, "");
	(void)snprintf(r->what, sizeof(r->what), "import as %s", q->alias);
	if ((m = calloc(1, sizeof(*m))) == NULL)
		fatal("%s", __func__);
	m->fd = fd;
	r->priv = m;
	r->priv_free = imp_free;
	if (!name_alias_ok(q->alias)) {
		req_done(r, 0, "\"%s\" is not usable as an image alias: "
		    "letters, digits, '.', '_' and '-' only", q->alias);
		return;
	}
	/* jb-mountd saw this size: another one means the file changed */
	if (fstat(fd, &st) == -1) {
		req_done(r, 0, "the image file: %s", strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != q->size) {
		req_done(r, 0, "the image file changed while it was being "
		    "imported (%lld bytes, %llu expected): import it again",
		    (long long)st.st_size, (unsigned long long)q->size);
		return;
	}
	m->size = q->size;
	(void)strlcpy(m->alias, q->alias, sizeof(m->alias));
	(void)strlcpy(m->repo, q->repo, sizeof(m->repo));
	must_string("IMAGE_IMPORT pool", q->pool, sizeof(q->pool));
	if (q->pool[0] != '\0' && !pool_name_ok(q->pool)) {
		req_done(r, 0, "storage pool \"%s\": a letter or digit, then "
		    "[A-Za-z0-9_.-] only", q->pool);
		return;
	}
	(void)strlcpy(m->pool, q->pool, sizeof(m->pool));
	SHA256Init(&m->md);
	if ((m->buf = malloc(IMG_SLICE)) == NULL ||
	    (m->ev = evtimer_new(incus_base(ops_ic), imp_hash, r)) == NULL)
		fatal("%s", __func__);
	evtimer_add(m->ev, &tv);
}

/*
 * IMAGES and IMAGE_PRUNE: every image with the instances made from it
 * (volatile.base_image).  Shown: the suite's images and any image a
 * JailBee container was made from.  Pruned: a suite image that no
 * instance at all uses and no alias names (an alias is how a repo names
 * its base, so an aliased image stays).
 */
struct imglist {
	struct json_object	*images;
	struct json_object	*instances;
	struct json_object	*doomed;	/* array of images to delete */
	size_t			 next;
};

static void
imglist_free(void *arg)
{
	struct imglist	*l = arg;

	if (l == NULL)
		return;
	json_object_put(l->images);
	json_object_put(l->instances);
	json_object_put(l->doomed);
	free(l);
}

/* the repo's prefix joins the comma-separated list once */
static void
repo_add(char *list, size_t len, const char *prefix)
{
	const char	*p = list;
	size_t		 l, pl;

	if (prefix == NULL || *prefix == '\0')
		return;
	pl = strlen(prefix);
	while (*p != '\0') {
		l = strcspn(p, ",");
		if (l == pl && strncmp(p, prefix, pl) == 0)
			return;
		p += l + (p[l] == ',');
	}
	if (list[0] != '\0')
		(void)strlcat(list, ",", len);
	(void)strlcat(list, prefix, len);
}

static void
image_describe(struct imglist *l, struct json_object *img,
    struct jb_image *out, int *ours)
{
	struct json_object	*a, *inst;
	const char		*fp, *s, *base;
	size_t			 i, n, off = 0, len;
	int64_t			 t;

	memset(out, 0, sizeof(*out));
	*ours = 0;
	fp = jget_str(img, "fingerprint");
	(void)strlcpy(out->fingerprint, fp ? fp : "", sizeof(out->fingerprint));
	if (json_object_object_get_ex(img, "aliases", &a) &&
	    json_object_is_type(a, json_type_array)) {
		n = json_object_array_length(a);
		for (i = 0; i < n; i++) {
			s = jget_str(json_object_array_get_idx(a, i), "name");
			if (s == NULL)
				continue;
			if (out->aliases[0] != '\0')
				(void)strlcat(out->aliases, ",",
				    sizeof(out->aliases));
			(void)strlcat(out->aliases, s, sizeof(out->aliases));
		}
	}
	s = jget_str(jget_obj(img, "properties"), "description");
	(void)strlcpy(out->description, s ? s : "", sizeof(out->description));
	s = jget_str(jget_obj(img, "properties"), PROP_SUITE);
	out->suite = s != NULL && strcmp(s, "1") == 0;
	if (json_object_object_get_ex(img, "size", &a))
		out->size = (uint64_t)json_object_get_int64(a);
	if ((s = jget_str(img, "created_at")) != NULL &&
	    (t = parse_time(s)) > 0)
		out->created = t;
	n = l->instances ? json_object_array_length(l->instances) : 0;
	for (i = 0; fp != NULL && i < n; i++) {
		inst = json_object_array_get_idx(l->instances, i);
		base = jget_str(jget_obj(inst, "config"), "volatile.base_image");
		if (base == NULL || strcmp(base, fp) != 0 ||
		    (s = jget_str(inst, "name")) == NULL)
			continue;
		out->nusers++;
		if (inst_ours(inst))
			*ours = 1;
		repo_add(out->repos, sizeof(out->repos),
		    jget_str(jget_obj(inst, "config"), "user.jailbee.prefix"));
		len = strlen(s) + 1;
		if (len <= sizeof(out->users) - off) {
			memcpy(out->users + off, s, len);
			off += len;
		}
	}
}

static void	prune_next(struct op_req *);

static void
prune_deleted(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct imglist	*l = r->priv;
	struct jb_image	 im;
	int		 ours;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	image_describe(l, json_object_array_get_idx(l->doomed, l->next),
	    &im, &ours);
	op_send(r, IMSG_INCUS_IMAGE, -1, &im, sizeof(im));
	l->next++;
	prune_next(r);
}

static void
prune_next(struct op_req *r)
{
	struct imglist	*l = r->priv;
	const char	*fp;

	if (l->next >= json_object_array_length(l->doomed)) {
		req_done(r, 1, NULL);
		return;
	}
	fp = jget_str(json_object_array_get_idx(l->doomed, l->next),
	    "fingerprint");
	(void)snprintf(r->what, sizeof(r->what), "deleting image %.12s", fp);
	if ((r->call = incus_image_delete(ops_ic, fp, prune_deleted, r)) ==
	    NULL)
		fatal("%s", __func__);
}

static void
images_instances(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct imglist		*l = r->priv;
	struct json_object	*img;
	struct jb_image		*im;
	size_t			 i, n;
	int			 ours;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	l->instances = json_object_get(list);
	if ((im = malloc(sizeof(*im))) == NULL ||
	    (l->doomed = json_object_new_array()) == NULL)
		fatal("%s", __func__);
	n = json_object_array_length(l->images);
	for (i = 0; i < n; i++) {
		img = json_object_array_get_idx(l->images, i);
		image_describe(l, img, im, &ours);
		if (im->fingerprint[0] == '\0')
			continue;
		if (r->type == IMSG_INCUS_IMAGES) {
			if (im->suite || ours)
				op_send(r, IMSG_INCUS_IMAGE, -1, im,
				    sizeof(*im));
		} else if (im->suite && im->nusers == 0 &&
		    im->aliases[0] == '\0')
			json_object_array_add(l->doomed, json_object_get(img));
	}
	free(im);
	if (r->type == IMSG_INCUS_IMAGES)
		req_done(r, 1, NULL);
	else
		prune_next(r);
}

static void
images_listed(void *arg, struct json_object *list, const char *err)
{
	struct op_req	*r = arg;
	struct imglist	*l = r->priv;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (list == NULL || !json_object_is_type(list, json_type_array)) {
		req_done(r, 0, "%s: Incus sent no image list", r->what);
		return;
	}
	l->images = json_object_get(list);
	if ((r->call = incus_instances_list(ops_ic, NULL, NULL,
	    images_instances, r)) == NULL)
		fatal("%s", __func__);
}

void
op_images(uint32_t rid, uint32_t type)
{
	struct op_req	*r;

	r = req_new(rid, type, "");
	(void)snprintf(r->what, sizeof(r->what), "%s",
	    type == IMSG_INCUS_IMAGES ? "listing images" : "pruning images");
	if ((r->priv = calloc(1, sizeof(struct imglist))) == NULL)
		fatal("%s", __func__);
	r->priv_free = imglist_free;
	if ((r->call = incus_images_list(ops_ic, images_listed, r)) == NULL)
		fatal("%s", __func__);
}

/* the image an alias names, when Incus has one: for new and base build */
static void
alias_image(void *arg, struct json_object *img, const char *err)
{
	struct op_req	*r = arg;
	struct jb_image	 im;
	const char	*s;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (img != NULL) {
		memset(&im, 0, sizeof(im));
		s = jget_str(img, "fingerprint");
		(void)strlcpy(im.fingerprint, s ? s : "",
		    sizeof(im.fingerprint));
		(void)strlcpy(im.aliases, r->name, sizeof(im.aliases));
		s = jget_str(jget_obj(img, "properties"), "description");
		(void)strlcpy(im.description, s ? s : "",
		    sizeof(im.description));
		op_send(r, IMSG_INCUS_IMAGE, -1, &im, sizeof(im));
	}
	req_done(r, 1, NULL);
}

static void
alias_got(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	const char	*fp;

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if ((fp = jget_str(md, "target")) == NULL) {
		req_done(r, 1, NULL);
		return;
	}
	if ((r->call = incus_image_get(ops_ic, fp, alias_image, r)) == NULL)
		fatal("%s", __func__);
}

void
op_image_alias(uint32_t rid, const struct jb_incus_target *t)
{
	struct op_req	*r;
	char		 alias[JB_INSTANCE_MAX];

	(void)strlcpy(alias, t->name, sizeof(alias));
	r = req_new(rid, IMSG_INCUS_IMAGE_ALIAS, alias);
	(void)snprintf(r->what, sizeof(r->what), "image alias %s", alias);
	if ((r->call = incus_image_alias_get(ops_ic, alias, alias_got, r)) ==
	    NULL) {
		req_fail(r, "not an image alias");
		return;
	}
}
