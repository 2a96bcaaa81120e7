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
 * github: which keys each file takes (repoconf_github.h), the legacy
 * api_tokens map, and the token in force once the prefix is known.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "repoconf.h"
#include "repoconf_github.h"

#define GH_OFF(f)	offsetof(struct repoconf, f)
#define RC_LOCAL_PATTERN \
	"${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/<container_prefix>.yaml"

static int	gh_enabled(struct yt_ctx *, const struct yt_node *, void *);
static int	gh_token_local(const char *, char *, size_t);
static int	gh_token_global(struct yt_ctx *, const struct yt_node *,
		    void *);
static int	gh_api_tokens(struct yt_ctx *, const struct yt_node *,
		    void *);

static const struct yt_field global_fields[] = {
	{ .key = "enabled", .type = YT_CUSTOM, .off = GH_OFF(github_enabled),
	  .fn = gh_enabled },
	{ .key = "api_tokens", .type = YT_CUSTOM, .off = 0,
	  .fn = gh_api_tokens },
	{ .key = "token", .type = YT_CUSTOM, .off = 0, .fn = gh_token_global },
	{ .key = NULL }
};

static const struct yt_field local_fields[] = {
	{ .key = "enabled", .type = YT_CUSTOM, .off = GH_OFF(github_enabled),
	  .fn = gh_enabled },
	{ .key = "token", .type = YT_STRING, .off = GH_OFF(github_token),
	  .size = sizeof(((struct repoconf *)NULL)->github_token),
	  .flags = YT_NULL_OK, .valid = gh_token_local },
	{ .key = NULL }
};

static const char *
local_path(const struct repoconf *c)
{
	return c->paths.local[0] != '\0' ? c->paths.local : RC_LOCAL_PATTERN;
}

/* letters, digits and _, as every GitHub token is written */
static int
token_ok(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return i > 0;
}

static int
gh_token_local(const char *s, char *why, size_t whylen)
{
	if (token_ok(s))
		return 0;
	(void)strlcpy(why, "not a GitHub token (letters, digits and _ only)",
	    whylen);
	return -1;
}

/* true, false, or null: back to the default (off) */
static int
gh_enabled(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	int	b;

	if (yt_is_null(n)) {
		*(int *)dst = RC_UNSET;
		return 0;
	}
	if (yt_get_bool(ctx, n, &b) == -1)
		return -1;
	*(int *)dst = b;
	return 0;
}

static int
gh_token_global(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	const struct repoconf	*c = dst;

	return yt_error(ctx, n, "not allowed in global.yaml: github.token "
	    "belongs in the host-local file %s (mode 0600); global.yaml takes "
	    "github.enabled and the legacy map api_tokens: {PREFIX: TOKEN}",
	    local_path(c));
}

/* api_tokens: PREFIX: TOKEN, merged prefix by prefix; null drops one */
static int
gh_api_tokens(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct repoconf		*c = dst;
	const struct yt_node	*k, *v;
	size_t			 i, saved;
	int			 j;

	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of container "
		    "prefix: token, got %s", yt_describe(n));
	for (i = 0; i < n->npairs; i++) {
		k = n->pairs[i].key;
		v = n->pairs[i].val;
		saved = yt_path_push(ctx, k->str);
		if (!name_prefix_ok(k->str))
			return yt_error(ctx, k, "not a container prefix ("
			    NAME_PREFIX_FORM ")");
		for (j = 0; j < c->ngithub_api_tokens; j++)
			if (strcmp(c->github_api_tokens[j].prefix, k->str) == 0)
				break;
		if (yt_is_null(v)) {
			if (j < c->ngithub_api_tokens) {
				memmove(&c->github_api_tokens[j],
				    &c->github_api_tokens[j + 1],
				    (size_t)(c->ngithub_api_tokens - j - 1) *
				    sizeof(c->github_api_tokens[0]));
				c->ngithub_api_tokens--;
			}
			yt_path_pop(ctx, saved);
			continue;
		}
		if (v->kind != YT_SCALAR || v->sval == YT_SV_BOOL ||
		    v->sval == YT_SV_FLOAT)
			return yt_error(ctx, v, "expected a token, got %s",
			    yt_describe(v));
		if (v->len > RC_TOKEN_MAX)
			return yt_error(ctx, v, "too long (at most %d bytes)",
			    RC_TOKEN_MAX);
		if (!token_ok(v->str))
			return yt_error(ctx, v, "not a GitHub token (letters, "
			    "digits and _ only)");
		if (j == c->ngithub_api_tokens) {
			if (j >= RC_GH_TOKENS_MAX)
				return yt_error(ctx, k, "more than %d tokens",
				    RC_GH_TOKENS_MAX);
			(void)strlcpy(c->github_api_tokens[j].prefix, k->str,
			    sizeof(c->github_api_tokens[j].prefix));
			c->ngithub_api_tokens++;
		}
		(void)strlcpy(c->github_api_tokens[j].token, v->str,
		    sizeof(c->github_api_tokens[j].token));
		yt_path_pop(ctx, saved);
	}
	return 0;
}

int
rc_github(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct repoconf	*c = dst;

	if (c->applying != RC_LAYER_GLOBAL)
		return yt_error(ctx, n, "not allowed in this file: github "
		    "settings are the host's: github.token belongs in the "
		    "host-local file %s (mode 0600), github.enabled there or "
		    "in global.yaml", local_path(c));
	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping, got %s",
		    yt_describe(n));
	return yt_apply(ctx, n, global_fields, c);
}

int
rc_github_local(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping, got %s",
		    yt_describe(n));
	return yt_apply(ctx, n, local_fields, dst);
}

int
rc_github_holds_tokens(const struct yt_node *root)
{
	const struct yt_node	*g, *t;

	if (root == NULL || (g = yt_get(root, "github")) == NULL ||
	    g->kind != YT_MAPPING || (t = yt_get(g, "api_tokens")) == NULL)
		return 0;
	return t->kind == YT_MAPPING && t->npairs > 0;
}

void
rc_github_finish(struct repoconf *c)
{
	int	i;

	if (c->github_enabled == RC_UNSET)
		c->github_enabled = 0;
	c->github_token_legacy = 0;
	if (c->github_token[0] != '\0')
		return;
	for (i = 0; i < c->ngithub_api_tokens; i++)
		if (strcmp(c->github_api_tokens[i].prefix,
		    c->container_prefix) == 0) {
			(void)strlcpy(c->github_token,
			    c->github_api_tokens[i].token,
			    sizeof(c->github_token));
			c->github_token_legacy = 1;
			return;
		}
}

/*
 * Tokens are never printed, only that one is set.  A finished config
 * says enabled only when true (false is the default), so that its print
 * without a token still reads back as a repo file.
 */
void
rc_github_dump(const struct repoconf *c, int all, FILE *fp)
{
	int	i, en;

	en = c->github_enabled == 1 || (!all && c->github_enabled != RC_UNSET);
	if (!en && c->github_token[0] == '\0' && c->ngithub_api_tokens == 0)
		return;
	(void)fputs("github:\n", fp);
	if (en)
		(void)fprintf(fp, "  enabled: %s\n", c->github_enabled ?
		    "true" : "false");
	if (c->github_token[0] != '\0')
		(void)fprintf(fp, "  token: \"<set>\"%s\n",
		    c->github_token_legacy ? "  # global.yaml's api_tokens" :
		    "");
	if (c->ngithub_api_tokens > 0)
		(void)fputs("  api_tokens:\n", fp);
	for (i = 0; i < c->ngithub_api_tokens; i++)
		(void)fprintf(fp, "    %s: \"<set>\"\n",
		    c->github_api_tokens[i].prefix);
}
