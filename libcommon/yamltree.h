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
 * A YAML document as a small tree, and a table-driven way to validate it
 * into a C struct.  Every config file of JailBee goes through here, so
 * every error reads the same:
 *	FILE:LINE: dotted.key: what is wrong
 *
 * yt_load() accepts only what a config needs: one document, plain data.
 * It refuses anchors and aliases (no billion laughs), tags other than the
 * standard yaml.org ones, duplicate keys, non-scalar keys, scalars holding
 * NUL or longer than YT_SCALAR_MAX, nesting deeper than YT_DEPTH_MAX and
 * more than YT_NODES_MAX nodes.  The top level must be a mapping; an empty
 * stream, or one holding only comments or a null, yields a NULL root: an
 * empty config.
 *
 * yt_apply() walks a mapping against a NULL-terminated array of fields.
 * Keys absent from the document leave the target alone, so applying
 * several documents in turn layers them (later wins; a string list is
 * appended to, and an explicit [] empties it).
 */

#ifndef JB_YAMLTREE_H
#define JB_YAMLTREE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define YT_DEPTH_MAX	32
#define YT_NODES_MAX	10000
#define YT_SCALAR_MAX	65535		/* bytes, any scalar */
#define YT_STR_MAX	(PATH_MAX - 1)	/* default cap of a string value */
#define YT_FILE_MAX	(1024 * 1024)	/* yt_read_file() */
#define YT_KEYPATH_MAX	256

enum yt_kind {
	YT_SCALAR,
	YT_MAPPING,
	YT_SEQUENCE,
};

/* what a scalar resolves to (YAML 1.1 booleans, as PyYAML reads them) */
enum yt_sval {
	YT_SV_STR,		/* quoted, block, !!str, or plain text */
	YT_SV_NULL,		/* plain "", ~, null */
	YT_SV_BOOL,		/* plain true/false/yes/no/on/off */
	YT_SV_INT,		/* plain decimal, 0x, 0o */
	YT_SV_FLOAT,		/* plain 1.5, .inf, ... */
};

struct yt_pair;

struct yt_node {
	enum yt_kind		 kind;
	/*
	 * 1-based; for a collection that is a mapping value, the line of
	 * its key, which is where a reader looks for it.
	 */
	size_t			 line;

	/* YT_SCALAR: NUL-terminated, no NUL inside */
	char			*str;
	size_t			 len;
	enum yt_sval		 sval;

	/* YT_MAPPING, in document order; keys are YT_SCALAR */
	struct yt_pair		*pairs;
	size_t			 npairs;

	/* YT_SEQUENCE */
	struct yt_node		**items;
	size_t			 nitems;
};

struct yt_pair {
	struct yt_node		*key;
	struct yt_node		*val;
};

/* the error sink and the dotted key being looked at */
struct yt_ctx {
	const char		*name;		/* file name for messages */
	char			*err;
	size_t			 errlen;
	char			 path[YT_KEYPATH_MAX];
	size_t			 pathlen;
};

enum yt_type {
	YT_STRING,	/* char[size]; valid() may vet it */
	YT_PATH,	/* char[size], absolute, no ".." component */
	YT_BOOL,	/* int, 0 or 1 */
	YT_INT,		/* int (size 4) or int64_t (size 8) in [min, max] */
	YT_DURATION,	/* int64_t seconds in [min, max], see duration.h */
	YT_MAP,		/* a nested mapping of sub, same base */
	YT_STRLIST,	/* struct yt_strlist; size caps an item (0: YT_STR_MAX
			   + 1), max caps the count (0: none) */
	YT_CUSTOM,	/* fn() does it all */
};

#define YT_NULL_OK	0x01	/* null clears the value instead of failing */
#define YT_REQUIRED	0x02	/* absent key is an error */

struct yt_field {
	const char		*key;
	enum yt_type		 type;
	size_t			 off;	/* into the base given to yt_apply() */
	size_t			 size;
	int64_t			 min;
	int64_t			 max;
	int			 flags;
	const struct yt_field	*sub;	/* YT_MAP */
	/* STRING, PATH, STRLIST items: -1 and a reason in why */
	int			(*valid)(const char *, char *why, size_t);
	/* CUSTOM: -1 after yt_error() */
	int			(*fn)(struct yt_ctx *, const struct yt_node *,
				    void *dst);
};

struct yt_strlist {
	char			**v;
	size_t			  n;
};

int	yt_read_file(const char *path, char **buf, size_t *len, char *err,
	    size_t errlen);
int	yt_load(const char *name, const char *buf, size_t len,
	    struct yt_node **root, char *err, size_t errlen);
void	yt_free(struct yt_node *);

void	yt_ctx_init(struct yt_ctx *, const char *name, char *err,
	    size_t errlen);
int	yt_apply(struct yt_ctx *, const struct yt_node *,
	    const struct yt_field *, void *base);
/* always -1: "NAME:LINE: PATH: msg" into ctx->err */
int	yt_error(struct yt_ctx *, const struct yt_node *, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
size_t	yt_path_push(struct yt_ctx *, const char *key);
size_t	yt_path_push_index(struct yt_ctx *, size_t);
void	yt_path_pop(struct yt_ctx *, size_t saved);

/* typed accessors for fn(): 0, or -1 after yt_error() */
const char *yt_describe(const struct yt_node *);
int	yt_is_null(const struct yt_node *);
const struct yt_node *yt_get(const struct yt_node *map, const char *key);
int	yt_get_str(struct yt_ctx *, const struct yt_node *, char *dst,
	    size_t dstlen);
int	yt_get_path(struct yt_ctx *, const struct yt_node *, char *dst,
	    size_t dstlen);
int	yt_get_bool(struct yt_ctx *, const struct yt_node *, int *);
int	yt_get_int(struct yt_ctx *, const struct yt_node *, int64_t min,
	    int64_t max, int64_t *);
int	yt_get_duration(struct yt_ctx *, const struct yt_node *, int64_t min,
	    int64_t max, int64_t *);

void	yt_strlist_free(struct yt_strlist *);
/* -1 and a reason unless s is absolute with no "/../" or trailing "/.." */
int	yt_check_path(const char *s, char *why, size_t whylen);

#endif /* JB_YAMLTREE_H */
