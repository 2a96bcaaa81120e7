/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "duration.h"
#include "yamltree.h"

#define YT_TAG		"tag:yaml.org,2002:"

struct yt_frame {
	struct yt_node	*node;		/* the open mapping or sequence */
	size_t		 saved;		/* key path length before it */
};

struct yt_loader {
	struct yt_ctx	 ctx;
	struct yt_frame	 stack[YT_DEPTH_MAX];
	size_t		 depth;
	size_t		 nodes;
	int		 docs;
	struct yt_node	*root;
};

static int	yt_errorl(struct yt_ctx *, size_t, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

void
yt_ctx_init(struct yt_ctx *ctx, const char *name, char *err, size_t errlen)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->name = name != NULL ? name : "<input>";
	ctx->err = err;
	ctx->errlen = errlen;
}

static int __attribute__((format(printf, 3, 0)))
yt_verror(struct yt_ctx *ctx, size_t line, const char *fmt, va_list ap)
{
	char	msg[512];

	if (ctx->err == NULL || ctx->errlen == 0)
		return -1;
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	if (ctx->pathlen > 0)
		(void)snprintf(ctx->err, ctx->errlen, "%s:%zu: %s: %s",
		    ctx->name, line, ctx->path, msg);
	else
		(void)snprintf(ctx->err, ctx->errlen, "%s:%zu: %s",
		    ctx->name, line, msg);
	return -1;
}

static int
yt_errorl(struct yt_ctx *ctx, size_t line, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)yt_verror(ctx, line, fmt, ap);
	va_end(ap);
	return -1;
}

int
yt_error(struct yt_ctx *ctx, const struct yt_node *n, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)yt_verror(ctx, n != NULL ? n->line : 1, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Keys reach terminals in error messages: escape control bytes, keep
 * UTF-8 as it is, and cut what does not fit with "...".
 */
static void
yt_path_add(struct yt_ctx *ctx, const char *s, size_t len)
{
	size_t	i, room = sizeof(ctx->path) - 4;
	char	tmp[8];

	if (ctx->pathlen > room)
		return;		/* already cut */

	for (i = 0; i < len; i++) {
		unsigned char	c = (unsigned char)s[i];
		size_t		tl;

		if (c < 0x20 || c == 0x7f)
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else {
			tmp[0] = (char)c;
			tl = 1;
		}
		if (ctx->pathlen + tl > room) {
			memcpy(ctx->path + ctx->pathlen, "...", 3);
			ctx->pathlen += 3;
			break;
		}
		memcpy(ctx->path + ctx->pathlen, tmp, tl);
		ctx->pathlen += tl;
	}
	ctx->path[ctx->pathlen] = '\0';
}

size_t
yt_path_push(struct yt_ctx *ctx, const char *key)
{
	size_t	saved = ctx->pathlen;

	if (ctx->pathlen > 0)
		yt_path_add(ctx, ".", 1);
	if (*key == '\0')
		yt_path_add(ctx, "\"\"", 2);
	else
		yt_path_add(ctx, key, strlen(key));
	return saved;
}

size_t
yt_path_push_index(struct yt_ctx *ctx, size_t i)
{
	size_t	saved = ctx->pathlen;
	char	tmp[32];

	(void)snprintf(tmp, sizeof(tmp), "[%zu]", i);
	yt_path_add(ctx, tmp, strlen(tmp));
	return saved;
}

void
yt_path_pop(struct yt_ctx *ctx, size_t saved)
{
	if (saved <= ctx->pathlen) {
		ctx->pathlen = saved;
		ctx->path[saved] = '\0';
	}
}

void
yt_free(struct yt_node *n)
{
	size_t	i;

	if (n == NULL)
		return;
	for (i = 0; i < n->npairs; i++) {
		yt_free(n->pairs[i].key);
		yt_free(n->pairs[i].val);
	}
	for (i = 0; i < n->nitems; i++)
		yt_free(n->items[i]);
	free(n->pairs);
	free(n->items);
	free(n->str);
	free(n);
}

static int
yt_match(const char *s, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strcmp(s, *words) == 0)
			return 1;
	return 0;
}

static const char *const yt_nulls[] = { "", "~", "null", "Null", "NULL",
    NULL };
static const char *const yt_trues[] = { "true", "True", "TRUE", "yes",
    "Yes", "YES", "on", "On", "ON", NULL };
static const char *const yt_falses[] = { "false", "False", "FALSE", "no",
    "No", "NO", "off", "Off", "OFF", NULL };

static int
yt_isdigits(const char *s, const char *set)
{
	if (*s == '\0')
		return 0;
	return s[strspn(s, set)] == '\0';
}

static int
yt_is_intlit(const char *s)
{
	if (strncmp(s, "0x", 2) == 0)
		return yt_isdigits(s + 2, "0123456789abcdefABCDEF");
	if (strncmp(s, "0o", 2) == 0)
		return yt_isdigits(s + 2, "01234567");
	if (*s == '-' || *s == '+')
		s++;
	return yt_isdigits(s, "0123456789");
}

static int
yt_is_floatlit(const char *s)
{
	static const char *const special[] = { ".inf", ".Inf", ".INF",
	    ".nan", ".NaN", ".NAN", NULL };
	size_t	 mant = 0;

	if (*s == '-' || *s == '+')
		s++;
	if (yt_match(s, special))
		return 1;
	for (; *s >= '0' && *s <= '9'; s++)
		mant++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			mant++;
	if (mant == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		return yt_isdigits(s, "0123456789");
	}
	return *s == '\0';
}

static enum yt_sval
yt_resolve_plain(const char *s)
{
	if (yt_match(s, yt_nulls))
		return YT_SV_NULL;
	if (yt_match(s, yt_trues) || yt_match(s, yt_falses))
		return YT_SV_BOOL;
	if (yt_is_intlit(s))
		return YT_SV_INT;
	if (yt_is_floatlit(s))
		return YT_SV_FLOAT;
	return YT_SV_STR;
}

/* a tag for a message: escaped and short */
static const char *
yt_tagname(const char *tag, char *buf, size_t len)
{
	struct yt_ctx	tmp;

	if (strncmp(tag, YT_TAG, strlen(YT_TAG)) == 0) {
		(void)snprintf(buf, len, "!!%.32s", tag + strlen(YT_TAG));
		return buf;
	}
	memset(&tmp, 0, sizeof(tmp));
	yt_path_add(&tmp, tag, strnlen(tag, 48));
	(void)strlcpy(buf, tmp.path, len);
	return buf;
}

/* only the yaml.org types, and each only where its value fits */
static int
yt_tag_scalar(struct yt_loader *ld, size_t line, const char *tag,
    int plain, const char *value, enum yt_sval *sval)
{
	enum yt_sval	 as;
	const char	*t;
	char		 b[64];

	*sval = plain ? yt_resolve_plain(value) : YT_SV_STR;
	if (tag == NULL)
		return 0;
	if (strcmp(tag, "!") == 0 || strcmp(tag, YT_TAG "str") == 0) {
		*sval = YT_SV_STR;
		return 0;
	}
	if (strncmp(tag, YT_TAG, strlen(YT_TAG)) != 0)
		return yt_errorl(&ld->ctx, line,
		    "tag %s is not allowed (only the standard !! types)",
		    yt_tagname(tag, b, sizeof(b)));
	t = tag + strlen(YT_TAG);
	if (strcmp(t, "null") != 0 && strcmp(t, "bool") != 0 &&
	    strcmp(t, "int") != 0 && strcmp(t, "float") != 0)
		return yt_errorl(&ld->ctx, line, "tag %s is not allowed",
		    yt_tagname(tag, b, sizeof(b)));
	as = yt_resolve_plain(value);
	if (strcmp(t, "null") == 0 && as == YT_SV_NULL)
		*sval = as;
	else if (strcmp(t, "bool") == 0 && as == YT_SV_BOOL)
		*sval = as;
	else if (strcmp(t, "int") == 0 && as == YT_SV_INT)
		*sval = as;
	else if (strcmp(t, "float") == 0 &&
	    (as == YT_SV_INT || as == YT_SV_FLOAT))
		*sval = YT_SV_FLOAT;
	else
		return yt_errorl(&ld->ctx, line,
		    "tag %s does not fit this value",
		    yt_tagname(tag, b, sizeof(b)));
	return 0;
}

static int
yt_tag_collection(struct yt_loader *ld, size_t line, const char *tag,
    enum yt_kind kind)
{
	char	b[64];

	if (tag == NULL || strcmp(tag, "!") == 0)
		return 0;
	if (kind == YT_MAPPING && strcmp(tag, YT_TAG "map") == 0)
		return 0;
	if (kind == YT_SEQUENCE && strcmp(tag, YT_TAG "seq") == 0)
		return 0;
	return yt_errorl(&ld->ctx, line, "tag %s is not allowed here",
	    yt_tagname(tag, b, sizeof(b)));
}

/*
 * Hook a new node into its parent and extend the key path to it.  The
 * node is owned by the tree from here on, whatever happens next.
 */
static int
yt_attach(struct yt_loader *ld, struct yt_node *n, size_t *saved)
{
	struct yt_node	*p;
	struct yt_pair	*pairs;
	struct yt_node	**items;
	size_t		 i, line = n->line;

	*saved = ld->ctx.pathlen;
	if (ld->depth == 0) {
		ld->root = n;
		return 0;
	}
	p = ld->stack[ld->depth - 1].node;
	if (p->kind == YT_SEQUENCE) {
		items = reallocarray(p->items, p->nitems + 1, sizeof(*items));
		if (items == NULL) {
			yt_free(n);
			return yt_errorl(&ld->ctx, line, "out of memory");
		}
		p->items = items;
		*saved = yt_path_push_index(&ld->ctx, p->nitems);
		p->items[p->nitems++] = n;
		return 0;
	}
	if (p->npairs > 0 && p->pairs[p->npairs - 1].val == NULL) {
		struct yt_node *key = p->pairs[p->npairs - 1].key;

		p->pairs[p->npairs - 1].val = n;
		*saved = yt_path_push(&ld->ctx, key->str);
		if (n->kind != YT_SCALAR && key->line < n->line)
			n->line = key->line;
		return 0;
	}
	pairs = reallocarray(p->pairs, p->npairs + 1, sizeof(*pairs));
	if (pairs == NULL) {
		yt_free(n);
		return yt_errorl(&ld->ctx, line, "out of memory");
	}
	p->pairs = pairs;
	p->pairs[p->npairs].key = n;
	p->pairs[p->npairs].val = NULL;
	p->npairs++;
	if (n->kind != YT_SCALAR)
		return yt_errorl(&ld->ctx, n->line,
		    "a mapping key must be a scalar, not %s", yt_describe(n));
	*saved = yt_path_push(&ld->ctx, n->str);
	for (i = 0; i + 1 < p->npairs; i++) {
		struct yt_node *k = p->pairs[i].key;

		if (k->len == n->len && memcmp(k->str, n->str, n->len) == 0)
			return yt_errorl(&ld->ctx, n->line,
			    "duplicate key (first on line %zu)", k->line);
	}
	return 0;
}

/*
 * Extend the key path to the node about to start, so that errors found
 * before it is attached still name it.  A key names its parent.
 */
static size_t
yt_push_next(struct yt_loader *ld)
{
	struct yt_node	*p;

	if (ld->depth == 0)
		return ld->ctx.pathlen;
	p = ld->stack[ld->depth - 1].node;
	if (p->kind == YT_SEQUENCE)
		return yt_path_push_index(&ld->ctx, p->nitems);
	if (p->npairs > 0 && p->pairs[p->npairs - 1].val == NULL)
		return yt_path_push(&ld->ctx, p->pairs[p->npairs - 1].key->str);
	return ld->ctx.pathlen;
}

static int
yt_check_anchor(struct yt_loader *ld, size_t line, const yaml_char_t *a)
{
	if (a == NULL)
		return 0;
	return yt_errorl(&ld->ctx, line, "anchors (&%.32s) are not allowed",
	    (const char *)a);
}

static struct yt_node *
yt_newnode(struct yt_loader *ld, enum yt_kind kind, size_t line)
{
	struct yt_node	*n;

	if (ld->nodes >= YT_NODES_MAX) {
		yt_errorl(&ld->ctx, line, "more than %d nodes",
		    YT_NODES_MAX);
		return NULL;
	}
	if ((n = calloc(1, sizeof(*n))) == NULL) {
		yt_errorl(&ld->ctx, line, "out of memory");
		return NULL;
	}
	ld->nodes++;
	n->kind = kind;
	n->line = line;
	return n;
}

static int
yt_on_scalar(struct yt_loader *ld, const yaml_event_t *ev, size_t line)
{
	const char	*value = (const char *)ev->data.scalar.value;
	size_t		 len = ev->data.scalar.length, saved;
	enum yt_sval	 sval;
	struct yt_node	*n;

	saved = yt_push_next(ld);
	if (yt_check_anchor(ld, line, ev->data.scalar.anchor) == -1)
		return -1;
	if (len > YT_SCALAR_MAX)
		return yt_errorl(&ld->ctx, line,
		    "value longer than %d bytes", YT_SCALAR_MAX);
	if (len > 0 && memchr(value, '\0', len) != NULL)
		return yt_errorl(&ld->ctx, line, "value contains a NUL byte");
	if (yt_tag_scalar(ld, line, (const char *)ev->data.scalar.tag,
	    ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, value,
	    &sval) == -1)
		return -1;
	yt_path_pop(&ld->ctx, saved);
	if ((n = yt_newnode(ld, YT_SCALAR, line)) == NULL)
		return -1;
	if ((n->str = malloc(len + 1)) == NULL) {
		yt_free(n);
		return yt_errorl(&ld->ctx, line, "out of memory");
	}
	memcpy(n->str, value, len);
	n->str[len] = '\0';
	n->len = len;
	n->sval = sval;
	if (yt_attach(ld, n, &saved) == -1)
		return -1;
	yt_path_pop(&ld->ctx, saved);
	return 0;
}

static int
yt_on_start(struct yt_loader *ld, const yaml_event_t *ev, size_t line,
    enum yt_kind kind)
{
	const yaml_char_t	*tag, *anchor;
	struct yt_node		*n;
	size_t			 saved;

	if (kind == YT_MAPPING) {
		tag = ev->data.mapping_start.tag;
		anchor = ev->data.mapping_start.anchor;
	} else {
		tag = ev->data.sequence_start.tag;
		anchor = ev->data.sequence_start.anchor;
	}
	saved = yt_push_next(ld);
	if (yt_check_anchor(ld, line, anchor) == -1)
		return -1;
	if (ld->depth >= YT_DEPTH_MAX)
		return yt_errorl(&ld->ctx, line, "nested deeper than %d levels",
		    YT_DEPTH_MAX);
	if (yt_tag_collection(ld, line, (const char *)tag, kind) == -1)
		return -1;
	yt_path_pop(&ld->ctx, saved);
	if ((n = yt_newnode(ld, kind, line)) == NULL)
		return -1;
	if (yt_attach(ld, n, &saved) == -1)
		return -1;
	ld->stack[ld->depth].node = n;
	ld->stack[ld->depth].saved = saved;
	ld->depth++;
	return 0;
}

/* 1 at the end of the stream, 0 to go on, -1 on error */
static int
yt_on_event(struct yt_loader *ld, const yaml_event_t *ev)
{
	size_t	line = ev->start_mark.line + 1;

	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		if (ld->docs++ > 0)
			return yt_errorl(&ld->ctx, line,
			    "only one YAML document is allowed");
		return 0;
	case YAML_ALIAS_EVENT:
		(void)yt_push_next(ld);
		return yt_errorl(&ld->ctx, line,
		    "aliases (*%.32s) are not allowed",
		    (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		return yt_on_scalar(ld, ev, line);
	case YAML_SEQUENCE_START_EVENT:
		return yt_on_start(ld, ev, line, YT_SEQUENCE);
	case YAML_MAPPING_START_EVENT:
		return yt_on_start(ld, ev, line, YT_MAPPING);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (ld->depth == 0)
			return yt_errorl(&ld->ctx, line, "unbalanced YAML");
		ld->depth--;
		yt_path_pop(&ld->ctx, ld->stack[ld->depth].saved);
		return 0;
	default:
		return 0;
	}
}

static void
yt_syntax_error(struct yt_loader *ld, const yaml_parser_t *parser,
    const char *buf, size_t len)
{
	const char	*problem = parser->problem;
	size_t		 line, i, off;

	if (problem == NULL)
		problem = "unknown error";
	ld->ctx.pathlen = 0;
	ld->ctx.path[0] = '\0';
	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		yt_errorl(&ld->ctx, 1, "out of memory");
		break;
	case YAML_READER_ERROR:
		/* the reader reports a byte offset, not a mark */
		off = parser->problem_offset < len ? parser->problem_offset :
		    len;
		for (line = 1, i = 0; i < off; i++)
			if (buf[i] == '\n')
				line++;
		yt_errorl(&ld->ctx, line, "bad input: %s", problem);
		break;
	default:
		line = parser->problem_mark.line + 1;
		if (parser->context != NULL)
			yt_errorl(&ld->ctx, line, "syntax error: %s (%s on "
			    "line %zu)", problem, parser->context,
			    parser->context_mark.line + 1);
		else
			yt_errorl(&ld->ctx, line, "syntax error: %s",
			    problem);
		break;
	}
}

int
yt_load(const char *name, const char *buf, size_t len,
    struct yt_node **root, char *err, size_t errlen)
{
	struct yt_loader	*ld;
	yaml_parser_t		 parser;
	yaml_event_t		 ev;
	int			 r = 0, rc = -1;

	*root = NULL;
	if ((ld = calloc(1, sizeof(*ld))) == NULL) {
		(void)snprintf(err, errlen, "%s: out of memory",
		    name != NULL ? name : "<input>");
		return -1;
	}
	yt_ctx_init(&ld->ctx, name, err, errlen);
	if (!yaml_parser_initialize(&parser)) {
		yt_errorl(&ld->ctx, 1, "out of memory");
		free(ld);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (r == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			yt_syntax_error(ld, &parser, buf, len);
			goto out;
		}
		r = yt_on_event(ld, &ev);
		yaml_event_delete(&ev);
		if (r == -1)
			goto out;
	}
	if (ld->root != NULL && ld->root->kind == YT_SCALAR &&
	    ld->root->sval == YT_SV_NULL) {
		/* "---" or "~" alone: as empty as an empty file */
		yt_free(ld->root);
		ld->root = NULL;
	}
	if (ld->root != NULL && ld->root->kind != YT_MAPPING) {
		yt_errorl(&ld->ctx, ld->root->line,
		    "expected a mapping at the top level, got %s",
		    yt_describe(ld->root));
		goto out;
	}
	*root = ld->root;
	ld->root = NULL;
	rc = 0;
 out:
	yaml_parser_delete(&parser);
	yt_free(ld->root);
	free(ld);
	return rc;
}

int
yt_read_file(const char *path, char **bufp, size_t *lenp, char *err,
    size_t errlen)
{
	struct stat	 st;
	char		*buf = NULL, *nbuf;
	size_t		 len = 0, cap;
	ssize_t		 n;
	int		 fd, saved;

	*bufp = NULL;
	*lenp = 0;
	/* O_NONBLOCK: opening a FIFO must not hang the daemon */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		goto fail;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		(void)snprintf(err, errlen, "%s: not a regular file", path);
		goto fail_msg;
	}
	/* one byte beyond the size seen, to notice a file that grew */
	cap = st.st_size < YT_FILE_MAX ? (size_t)st.st_size + 1 :
	    YT_FILE_MAX + 1;
	if ((buf = malloc(cap + 1)) == NULL)
		goto fail;
	for (;;) {
		if (len == cap) {
			cap = cap * 2 > YT_FILE_MAX + 1 ? YT_FILE_MAX + 1 :
			    cap * 2;
			if ((nbuf = realloc(buf, cap + 1)) == NULL)
				goto fail;
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > YT_FILE_MAX) {
			errno = EFBIG;
			(void)snprintf(err, errlen,
			    "%s: larger than %d bytes", path, YT_FILE_MAX);
			goto fail_msg;
		}
	}
	buf[len] = '\0';
	(void)close(fd);
	*bufp = buf;
	*lenp = len;
	return 0;
 fail:
	saved = errno;
	(void)snprintf(err, errlen, "%s: %s", path, strerror(saved));
	errno = saved;
 fail_msg:
	saved = errno;
	if (fd != -1)
		(void)close(fd);
	free(buf);
	errno = saved;
	return -1;
}

const char *
yt_describe(const struct yt_node *n)
{
	if (n == NULL)
		return "nothing";
	switch (n->kind) {
	case YT_MAPPING:
		return "a mapping";
	case YT_SEQUENCE:
		return "a sequence";
	case YT_SCALAR:
		break;
	}
	switch (n->sval) {
	case YT_SV_NULL:
		return "null";
	case YT_SV_BOOL:
		return "a boolean";
	case YT_SV_INT:
		return "an integer";
	case YT_SV_FLOAT:
		return "a number";
	case YT_SV_STR:
		break;
	}
	return "a string";
}

int
yt_is_null(const struct yt_node *n)
{
	return n == NULL || (n->kind == YT_SCALAR && n->sval == YT_SV_NULL);
}

const struct yt_node *
yt_get(const struct yt_node *map, const char *key)
{
	size_t	i;

	if (map == NULL || map->kind != YT_MAPPING)
		return NULL;
	for (i = 0; i < map->npairs; i++)
		if (strcmp(map->pairs[i].key->str, key) == 0)
			return map->pairs[i].val;
	return NULL;
}

int
yt_get_str(struct yt_ctx *ctx, const struct yt_node *n, char *dst,
    size_t dstlen)
{
	if (n == NULL || n->kind != YT_SCALAR || n->sval == YT_SV_NULL)
		return yt_error(ctx, n, "expected a string, got %s",
		    yt_describe(n));
	if (n->sval == YT_SV_BOOL)
		return yt_error(ctx, n, "expected a string, got a boolean "
		    "(quote it if you mean the text)");
	if (dstlen == 0 || n->len > dstlen - 1)
		return yt_error(ctx, n, "too long (at most %zu bytes)",
		    dstlen > 0 ? dstlen - 1 : 0);
	memcpy(dst, n->str, n->len + 1);
	return 0;
}

int
yt_check_path(const char *s, char *why, size_t whylen)
{
	size_t	len = strlen(s);

	if (s[0] != '/') {
		(void)strlcpy(why, "must be an absolute path", whylen);
		return -1;
	}
	if (strstr(s, "/../") != NULL ||
	    (len >= 3 && strcmp(s + len - 3, "/..") == 0)) {
		(void)strlcpy(why, "must not contain a \"..\" component",
		    whylen);
		return -1;
	}
	return 0;
}

int
yt_get_path(struct yt_ctx *ctx, const struct yt_node *n, char *dst,
    size_t dstlen)
{
	char	why[128];

	if (n == NULL || n->kind != YT_SCALAR || n->sval == YT_SV_NULL ||
	    n->sval == YT_SV_BOOL)
		return yt_error(ctx, n, "expected a path, got %s",
		    yt_describe(n));
	if (yt_check_path(n->str, why, sizeof(why)) == -1)
		return yt_error(ctx, n, "%s", why);
	return yt_get_str(ctx, n, dst, dstlen);
}

int
yt_get_bool(struct yt_ctx *ctx, const struct yt_node *n, int *v)
{
	if (n == NULL || n->kind != YT_SCALAR || n->sval != YT_SV_BOOL)
		return yt_error(ctx, n, "expected true or false, got %s",
		    yt_describe(n));
	*v = yt_match(n->str, yt_trues);
	return 0;
}

int
yt_get_int(struct yt_ctx *ctx, const struct yt_node *n, int64_t min,
    int64_t max, int64_t *v)
{
	const char	*p;
	int		 neg = 0;
	uint64_t	 u = 0, lim;

	if (n == NULL || n->kind != YT_SCALAR || n->sval != YT_SV_INT)
		return yt_error(ctx, n, "expected an integer, got %s",
		    yt_describe(n));
	p = n->str;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	/* YAML 1.1 readers take 0755 as octal: refuse what they disagree on */
	if (!yt_isdigits(p, "0123456789") || (p[0] == '0' && p[1] != '\0'))
		return yt_error(ctx, n, "expected a decimal integer without "
		    "leading zeros");
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p != '\0'; p++) {
		if (u > (lim - (uint64_t)(*p - '0')) / 10)
			return yt_error(ctx, n, "must be between %lld and %lld",
			    (long long)min, (long long)max);
		u = u * 10 + (uint64_t)(*p - '0');
	}
	if (neg)
		*v = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	else
		*v = (int64_t)u;
	if (*v < min || *v > max)
		return yt_error(ctx, n, "must be between %lld and %lld",
		    (long long)min, (long long)max);
	return 0;
}

int
yt_get_duration(struct yt_ctx *ctx, const struct yt_node *n, int64_t min,
    int64_t max, int64_t *v)
{
	char	why[256];

	/* a bare number is minutes, so integers are welcome too */
	if (n == NULL || n->kind != YT_SCALAR ||
	    (n->sval != YT_SV_STR && n->sval != YT_SV_INT))
		return yt_error(ctx, n, "expected a duration, got %s",
		    yt_describe(n));
	if (duration_parse(n->str, min, max, v, why, sizeof(why)) == -1)
		return yt_error(ctx, n, "%s", why);
	return 0;
}

void
yt_strlist_free(struct yt_strlist *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
yt_apply_strlist(struct yt_ctx *ctx, const struct yt_field *f,
    const struct yt_node *n, struct yt_strlist *l)
{
	size_t	 i, saved, itemmax = f->size > 0 ? f->size : YT_STR_MAX + 1;
	char	 why[256], **v;
	int	 rc = 0;

	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n,
		    "expected a sequence of strings, got %s", yt_describe(n));
	if (n->nitems == 0) {
		/* an explicit [] resets what earlier layers gave */
		yt_strlist_free(l);
		return 0;
	}
	if (f->max > 0 && (l->n + n->nitems > (uint64_t)f->max))
		return yt_error(ctx, n, "more than %lld items",
		    (long long)f->max);
	v = reallocarray(l->v, l->n + n->nitems + 1, sizeof(*v));
	if (v == NULL)
		return yt_error(ctx, n, "out of memory");
	l->v = v;
	l->v[l->n] = NULL;
	for (i = 0; i < n->nitems && rc == 0; i++) {
		const struct yt_node *it = n->items[i];

		saved = yt_path_push_index(ctx, i);
		if (it->kind != YT_SCALAR || it->sval == YT_SV_NULL ||
		    it->sval == YT_SV_BOOL)
			rc = yt_error(ctx, it, "expected a string, got %s",
			    yt_describe(it));
		else if (it->len > itemmax - 1)
			rc = yt_error(ctx, it, "too long (at most %zu bytes)",
			    itemmax - 1);
		else if (f->valid != NULL &&
		    f->valid(it->str, why, sizeof(why)) == -1)
			rc = yt_error(ctx, it, "%s", why);
		else if ((l->v[l->n] = strdup(it->str)) == NULL)
			rc = yt_error(ctx, it, "out of memory");
		else
			l->v[++l->n] = NULL;
		yt_path_pop(ctx, saved);
	}
	return rc;
}

static void
yt_clear(const struct yt_field *f, void *dst)
{
	switch (f->type) {
	case YT_STRING:
	case YT_PATH:
		if (f->size > 0)
			((char *)dst)[0] = '\0';
		break;
	case YT_BOOL:
		*(int *)dst = 0;
		break;
	case YT_INT:
		if (f->size == sizeof(int))
			*(int *)dst = 0;
		else
			*(int64_t *)dst = 0;
		break;
	case YT_DURATION:
		*(int64_t *)dst = 0;
		break;
	case YT_STRLIST:
		yt_strlist_free(dst);
		break;
	case YT_MAP:
	case YT_CUSTOM:
		break;
	}
}

static int
yt_apply_field(struct yt_ctx *ctx, const struct yt_field *f,
    const struct yt_node *n, void *base)
{
	void	*dst = (char *)base + f->off;
	char	 why[256];
	int64_t	 v;
	int	 b;

	if (f->type == YT_CUSTOM)
		return f->fn(ctx, n, dst);
	if (f->type == YT_MAP)
		return yt_is_null(n) ? 0 : yt_apply(ctx, n, f->sub, base);
	if (yt_is_null(n) && (f->flags & YT_NULL_OK)) {
		yt_clear(f, dst);
		return 0;
	}
	switch (f->type) {
	case YT_STRING:
		if (yt_get_str(ctx, n, dst, f->size) == -1)
			return -1;
		if (f->valid != NULL && f->valid(dst, why, sizeof(why)) == -1)
			return yt_error(ctx, n, "%s", why);
		return 0;
	case YT_PATH:
		if (yt_get_path(ctx, n, dst, f->size) == -1)
			return -1;
		if (f->valid != NULL && f->valid(dst, why, sizeof(why)) == -1)
			return yt_error(ctx, n, "%s", why);
		return 0;
	case YT_BOOL:
		if (yt_get_bool(ctx, n, &b) == -1)
			return -1;
		*(int *)dst = b;
		return 0;
	case YT_INT:
		if (yt_get_int(ctx, n, f->min, f->max, &v) == -1)
			return -1;
		if (f->size == sizeof(int)) {
			if (v < INT_MIN || v > INT_MAX)
				return yt_error(ctx, n, "out of range");
			*(int *)dst = (int)v;
		} else
			*(int64_t *)dst = v;
		return 0;
	case YT_DURATION:
		if (yt_get_duration(ctx, n, f->min, f->max, &v) == -1)
			return -1;
		*(int64_t *)dst = v;
		return 0;
	case YT_STRLIST:
		return yt_apply_strlist(ctx, f, n, dst);
	case YT_MAP:
	case YT_CUSTOM:
		break;
	}
	return yt_error(ctx, n, "internal error: bad field type");
}

static int
yt_unknown(struct yt_ctx *ctx, const struct yt_node *key,
    const struct yt_field *fields)
{
	const struct yt_field	*f;
	char			 known[768] = "";

	for (f = fields; f->key != NULL; f++) {
		if (f != fields)
			(void)strlcat(known, ", ", sizeof(known));
		(void)strlcat(known, f->key, sizeof(known));
	}
	if (fields->key == NULL)
		return yt_error(ctx, key, "unknown key (none allowed here)");
	return yt_error(ctx, key, "unknown key (known: %s)", known);
}

int
yt_apply(struct yt_ctx *ctx, const struct yt_node *map,
    const struct yt_field *fields, void *base)
{
	const struct yt_field	*f;
	size_t			 i, saved;
	int			 rc;

	if (map != NULL && !yt_is_null(map) && map->kind != YT_MAPPING)
		return yt_error(ctx, map, "expected a mapping, got %s",
		    yt_describe(map));
	for (i = 0; map != NULL && i < map->npairs; i++) {
		const struct yt_node *key = map->pairs[i].key;

		saved = yt_path_push(ctx, key->str);
		for (f = fields; f->key != NULL; f++)
			if (strcmp(f->key, key->str) == 0)
				break;
		if (f->key == NULL)
			rc = yt_unknown(ctx, key, fields);
		else
			rc = yt_apply_field(ctx, f, map->pairs[i].val, base);
		yt_path_pop(ctx, saved);
		if (rc == -1)
			return -1;
	}
	for (f = fields; f->key != NULL; f++) {
		if (!(f->flags & YT_REQUIRED) || yt_get(map, f->key) != NULL)
			continue;
		saved = yt_path_push(ctx, f->key);
		rc = yt_error(ctx, map, "missing (this key is required)");
		yt_path_pop(ctx, saved);
		return rc;
	}
	return 0;
}
