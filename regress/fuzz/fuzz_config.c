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
 * libFuzzer target for the configuration path: the bytes as jailbeed.yaml
 * (conf_parse), as a document for a schema using every field type of
 * yamltree.h (applied twice, as layers are), and as a duration.  Besides
 * the sanitizers it checks the promises: a failure leaves the output
 * untouched and says where, a success holds only valid values, and a
 * parsed duration formats back to itself.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "duration.h"
#include "yamltree.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct fz {
	char			 str[16];
	char			 path[64];
	int			 flag;
	int			 small;
	int64_t			 big;
	int64_t			 ttl;
	struct yt_strlist	 list;
	char			 req[8];
	int			 custom;
};

static int
fz_custom(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	const struct yt_node	*v;
	size_t			 i, saved;
	int64_t			 x;

	/* walk whatever came, to exercise the accessors on any shape */
	if (n->kind == YT_SEQUENCE) {
		for (i = 0; i < n->nitems; i++) {
			saved = yt_path_push_index(ctx, i);
			if (yt_get_int(ctx, n->items[i], 0, 1000, &x) == -1)
				return -1;
			yt_path_pop(ctx, saved);
			*(int *)dst += (int)x;
		}
		return 0;
	}
	if ((v = yt_get(n, "n")) != NULL)
		return yt_get_duration(ctx, v, 0, INT64_MAX, &x);
	return yt_error(ctx, n, "got %s", yt_describe(n));
}

static const struct yt_field fz_sub[] = {
	{ .key = "req", .type = YT_STRING, .off = offsetof(struct fz, req),
	  .size = sizeof(((struct fz *)NULL)->req), .flags = YT_REQUIRED },
	{ .key = NULL }
};

static const struct yt_field fz_fields[] = {
	{ .key = "str", .type = YT_STRING, .off = offsetof(struct fz, str),
	  .size = sizeof(((struct fz *)NULL)->str), .flags = YT_NULL_OK },
	{ .key = "path", .type = YT_PATH, .off = offsetof(struct fz, path),
	  .size = sizeof(((struct fz *)NULL)->path) },
	{ .key = "flag", .type = YT_BOOL, .off = offsetof(struct fz, flag) },
	{ .key = "small", .type = YT_INT, .off = offsetof(struct fz, small),
	  .size = sizeof(int), .min = -100, .max = 100 },
	{ .key = "big", .type = YT_INT, .off = offsetof(struct fz, big),
	  .size = sizeof(int64_t), .min = INT64_MIN, .max = INT64_MAX },
	{ .key = "ttl", .type = YT_DURATION, .off = offsetof(struct fz, ttl),
	  .min = 1, .max = DURATION_MAX_DEFAULT },
	{ .key = "list", .type = YT_STRLIST, .off = offsetof(struct fz, list),
	  .size = 16, .max = 64, .flags = YT_NULL_OK },
	{ .key = "sub", .type = YT_MAP, .sub = fz_sub },
	{ .key = "custom", .type = YT_CUSTOM,
	  .off = offsetof(struct fz, custom), .fn = fz_custom },
	{ .key = NULL }
};

static int
terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static void
fuzz_conf(const uint8_t *data, size_t len)
{
	struct jb_conf	*c, *before;
	char		 err[JB_ERR_MAX];

	if ((c = malloc(sizeof(*c))) == NULL ||
	    (before = malloc(sizeof(*before))) == NULL)
		abort();
	memset(c, 0x5a, sizeof(*c));
	*before = *c;
	err[0] = '\0';
	if (conf_parse("f.yaml", (const char *)data, len, c, err,
	    sizeof(err)) == -1) {
		if (memcmp(c, before, sizeof(*c)) != 0 ||
		    strncmp(err, "f.yaml:", 7) != 0)
			abort();
	} else {
		if (!terminated(c->owner, sizeof(c->owner)) ||
		    !terminated(c->socket, sizeof(c->socket)) ||
		    !terminated(c->state_dir, sizeof(c->state_dir)) ||
		    !terminated(c->incus_url, sizeof(c->incus_url)) ||
		    c->socket[0] != '/' || c->state_dir[0] != '/' ||
		    strstr(c->socket, "/../") != NULL ||
		    strstr(c->state_dir, "/../") != NULL ||
		    (strncmp(c->incus_url, "unix:/", 6) != 0 &&
		    strncmp(c->incus_url, "https://", 8) != 0) ||
		    strspn(c->owner, "abcdefghijklmnopqrstuvwxyz"
		    "0123456789_-$") != strlen(c->owner))
			abort();
	}
	free(c);
	free(before);
}

static void
fuzz_schema(const uint8_t *data, size_t len)
{
	struct yt_node	*root;
	struct yt_ctx	 ctx;
	struct fz	 f;
	char		 err[JB_ERR_MAX];
	int		 i;

	if (yt_load("f.yaml", (const char *)data, len, &root, err,
	    sizeof(err)) == -1) {
		if (strncmp(err, "f.yaml:", 7) != 0)
			abort();
		return;
	}
	memset(&f, 0, sizeof(f));
	yt_ctx_init(&ctx, "f.yaml", err, sizeof(err));
	for (i = 0; i < 2; i++) {
		if (yt_apply(&ctx, root, fz_fields, &f) == -1) {
			if (strncmp(err, "f.yaml:", 7) != 0)
				abort();
			break;
		}
		/* a success leaves the key path where it began */
		if (ctx.pathlen != 0)
			abort();
	}
	if (f.list.n > 64 || (f.list.n > 0 && f.list.v[f.list.n] != NULL) ||
	    f.small < -100 || f.small > 100 ||
	    (f.ttl != 0 && (f.ttl < 1 || f.ttl > DURATION_MAX_DEFAULT)) ||
	    (f.path[0] != '\0' && f.path[0] != '/'))
		abort();
	yt_strlist_free(&f.list);
	yt_free(root);
}

static void
fuzz_duration(const uint8_t *data, size_t len)
{
	char	*s, err[256], b[64];
	int64_t	 secs, again, v;

	if ((s = malloc(len + 1)) == NULL)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	if (duration_parse(s, 0, INT64_MAX, &secs, err, sizeof(err)) == 0) {
		duration_fmt(secs, b, sizeof(b));
		if (duration_parse(b, 0, INT64_MAX, &again, err,
		    sizeof(err)) == -1 || again != secs)
			abort();
	} else if (strncmp(err, "duration \"", 10) != 0)
		abort();
	free(s);

	/* any value formats to something that parses back to it */
	if (len >= sizeof(v)) {
		memcpy(&v, data, sizeof(v));
		if (v < 0)
			v = -(v + 1);
		duration_fmt(v, b, sizeof(b));
		if (duration_parse(b, 0, INT64_MAX, &again, err,
		    sizeof(err)) == -1 || again != v)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_conf(data, len);
	fuzz_schema(data, len);
	fuzz_duration(data, len);
	return 0;
}
