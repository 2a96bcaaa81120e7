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
 * SFTP_HELPER: the parent's jb-sftp binary (its fd) into one of the
 * suite's containers, at /usr/local/lib/jb-sftp-<16 hex digits> (its
 * version), root's and 0755.  Nothing else is written: the path's shape
 * is checked here, the content is the parent's file.
 */

#include <sys/stat.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "incus.h"
#include "log.h"
#include "ops.h"

#define HELPER_DIR	"/usr/local/lib/jb-sftp-"
#define HELPER_MAX	(8 * 1024 * 1024)

struct helper {
	char	*data;
	size_t	 len;
	char	 path[48];
};

static void
helper_free(void *arg)
{
	struct helper	*h = arg;

	free(h->data);
	free(h);
}

static void
helper_ours(struct op_req *r, struct json_object *inst)
{
	struct helper		*h = r->priv;
	struct incus_file	 w;

	memset(&w, 0, sizeof(w));
	w.type = "file";
	w.uid = 0;
	w.gid = 0;
	w.mode = 0755;
	w.data = h->data;
	w.len = h->len;
	if ((r->call = incus_file_push(ops_ic, r->name, h->path, &w,
	    req_call_done, r)) == NULL)
		fatal("%s", __func__);
}

void
op_sftp_helper(uint32_t rid, const struct jb_incus_target *t, int fd)
{
	struct op_req	*r;
	struct helper	*h;
	struct stat	 st;
	size_t		 i, n = strlen(HELPER_DIR);
	ssize_t		 got;

	if (fd == -1)
		fatalx("SFTP_HELPER from the parent without a file");
	must_string("SFTP_HELPER name", t->name, sizeof(t->name));
	must_string("SFTP_HELPER path", t->prefix, sizeof(t->prefix));
	r = req_new(rid, IMSG_INCUS_SFTP_HELPER, t->name);
	(void)snprintf(r->what, sizeof(r->what), "jb-sftp into %s", t->name);
	if (!name_instance_ok(t->name)) {
		close(fd);
		req_done(r, 0, "no such container %s", t->name);
		return;
	}
	if (strncmp(t->prefix, HELPER_DIR, n) != 0 ||
	    strlen(t->prefix) != n + 16) {
		close(fd);
		req_done(r, 0, "%s: not jb-sftp's path", r->what);
		return;
	}
	for (i = n; i < n + 16; i++)
		if (!isxdigit((unsigned char)t->prefix[i]) ||
		    isupper((unsigned char)t->prefix[i])) {
			close(fd);
			req_done(r, 0, "%s: not jb-sftp's path", r->what);
			return;
		}
	if ((h = calloc(1, sizeof(*h))) == NULL)
		fatal("%s", __func__);
	strlcpy(h->path, t->prefix, sizeof(h->path));
	if (fstat(fd, &st) == -1 || st.st_size <= 0 ||
	    st.st_size > HELPER_MAX ||
	    (h->data = malloc(st.st_size)) == NULL) {
		close(fd);
		free(h);
		req_done(r, 0, "%s: the binary is unreadable", r->what);
		return;
	}
	for (h->len = 0; h->len < (size_t)st.st_size; h->len += got)
		if ((got = pread(fd, h->data + h->len, st.st_size - h->len,
		    h->len)) <= 0)
			break;
	close(fd);
	if (h->len != (size_t)st.st_size) {
		helper_free(h);
		req_done(r, 0, "%s: the binary is unreadable", r->what);
		return;
	}
	r->priv = h;
	r->priv_free = helper_free;
	req_check_ours(r, helper_ours);
}
