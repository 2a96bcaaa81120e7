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
 * The keys of the original's repo and global config that JailBee does
 * not do yet (REFERENCE.md section 2).  A config written for the original
 * must not fail on them as unknown keys, nor may one be silently taken:
 * such a key is accepted only while its value asks for nothing (null,
 * false, "", [], {}, a mapping whose enabled is false or whose every
 * value asks for nothing, or one of the few values naming what JailBee
 * does anyway, such as defaults.storage_pool: default).  Anything else
 * is refused naming the key and saying it is not supported yet.  Below
 * a key of the original, a misspelt key is still an unknown key.
 */

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "repoconf_compat.h"
#include "yamltree.h"

/*
 * The original's keys that JailBee has no field for, as patterns: a
 * mapping lists its keys ("*": any key); a key absent here, under one
 * listed, is a leaf.  A list asks for something unless it is empty.
 */
static const struct compat_map {
	const char	*path;
	const char	*keys;		/* space-separated */
} compat_maps[] = {
	{ "golden", "ubuntu_version java node provision_script provision_env "
	    "enable_snippets disable_snippets stacks" },
	{ "golden.provision_env", "*" },
	{ "golden.stacks", "java node python docker ecr" },
	{ "jetbrains", "enabled ide userprefs_from_host share_idea ai_enabled "
	    "autostart toolbox_host_path" },
	{ "chrome", "enabled url dark_mode autostart host_path" },
	{ "terminal", "kitty" },
	{ "terminal.kitty", "enabled host_terminfo_path" },
	{ "docker_registry_mirror", "extra_registries enabled port image "
	    "data_dir" },
	{ "destroy", "background" },
	{ "confirm", "auto_target" },
	{ "pull", "destroy_container delete_branch" },
	{ "push", "default_action default_source push_from autofetch" },
	{ "ls", "fields hide" },
	{ "dashboard", "fields hide" },
	{ "gui", "wayland" },
	{ "litellm", "*" },
	{ "agents.claude", "plugins_enabled install_jailbee_skills "
	    "ai_pr_description ai_pr_branch ai_pr_model pr_prompt "
	    "ai_pr_timeout" },
	{ NULL, NULL }
};

/*
 * Values that ask for what JailBee does anyway.  With only set, the key's
 * false is not "off" but a wish JailBee does not grant: only the value
 * (or null) passes.
 */
static const struct compat_value {
	const char	*path;
	const char	*value;
	int		 only;
} compat_values[] = {
	{ "defaults.storage_pool", "default", 0 },
	{ "new.clone_from", "local", 1 },
	{ "after_new", "none", 0 },
	{ "ssh.seed_from_host", "true", 1 },
	{ "agents.claude.ai_pr_model", "sonnet", 0 },
	{ "agents.claude.ai_pr_timeout", "600", 0 },
	{ NULL, NULL, 0 }
};

static const struct compat_map *
compat_find(const char *path)
{
	const struct compat_map	*m;

	for (m = compat_maps; m->path != NULL; m++)
		if (strcmp(m->path, path) == 0)
			return m;
	return NULL;
}

static int
compat_listed(const char *keys, const char *key)
{
	size_t	len = strlen(key), l;

	if (strcmp(keys, "*") == 0)
		return 1;
	while (*keys != '\0') {
		l = strcspn(keys, " ");
		if (l == len && strncmp(keys, key, len) == 0)
			return 1;
		keys += l + (keys[l] == ' ');
	}
	return 0;
}

static int
compat_value_ok(const char *path, const struct yt_node *n)
{
	const struct compat_value	*v;

	if (n->sval == YT_SV_NULL || n->len == 0)
		return 1;
	for (v = compat_values; v->path != NULL; v++)
		if (v->only && strcmp(v->path, path) == 0)
			return strcmp(v->value, n->str) == 0;
	if (n->sval == YT_SV_BOOL)
		return strcasecmp(n->str, "false") == 0 ||
		    strcasecmp(n->str, "no") == 0 ||
		    strcasecmp(n->str, "off") == 0;
	for (v = compat_values; v->path != NULL; v++)
		if (strcmp(v->path, path) == 0 && strcmp(v->value, n->str) == 0)
			return 1;
	return 0;
}

static int
compat_refuse(struct yt_ctx *ctx, const struct yt_node *n)
{
	return yt_error(ctx, n, "not supported yet by JailBee (a key of the "
	    "original: remove it, or leave it off with false, null or "
	    "empty)");
}

static int	compat_node(struct yt_ctx *, const struct yt_node *,
		    const char *);

static int
compat_mapping(struct yt_ctx *ctx, const struct yt_node *n, const char *path)
{
	const struct compat_map	*m = compat_find(path);
	const struct yt_node	*en;
	char			 sub[YT_KEYPATH_MAX];
	size_t			 i, saved;
	int			 rc = 0, off = 0;

	/* a feature switched off asks for nothing, whatever else it says */
	if ((en = yt_get(n, "enabled")) != NULL && en->kind == YT_SCALAR &&
	    en->sval == YT_SV_BOOL && compat_value_ok(path, en))
		off = 1;
	for (i = 0; i < n->npairs && rc == 0; i++) {
		const char *k = n->pairs[i].key->str;

		saved = yt_path_push(ctx, k);
		if (m == NULL)
			rc = yt_error(ctx, n->pairs[i].key, "unknown key "
			    "(none allowed here)");
		else if (!compat_listed(m->keys, k))
			rc = yt_error(ctx, n->pairs[i].key, "unknown key "
			    "(known: %s)", m->keys);
		else if (!off) {
			(void)snprintf(sub, sizeof(sub), "%s.%s", path,
			    strcmp(m->keys, "*") == 0 ? "*" : k);
			rc = compat_node(ctx, n->pairs[i].val, sub);
		}
		yt_path_pop(ctx, saved);
	}
	return rc;
}

static int
compat_node(struct yt_ctx *ctx, const struct yt_node *n, const char *path)
{
	switch (n->kind) {
	case YT_SCALAR:
		return compat_value_ok(path, n) ? 0 : compat_refuse(ctx, n);
	case YT_SEQUENCE:
		return n->nitems == 0 ? 0 : compat_refuse(ctx, n);
	case YT_MAPPING:
		return compat_mapping(ctx, n, path);
	}
	return compat_refuse(ctx, n);
}

int
rc_compat(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	char	path[YT_KEYPATH_MAX];

	(void)dst;
	/* a copy: ctx->path grows as the walk goes down */
	(void)strlcpy(path, ctx->path, sizeof(path));
	return compat_node(ctx, n, path);
}

/* agents.claude's keys beyond the common ones: under agents.claude */
int
rc_compat_claude(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	const char	*dot;
	char		 path[YT_KEYPATH_MAX];

	(void)dst;
	/* "claude.x" (the alias) or "agents.claude.x": the leaf's name */
	if ((dot = strrchr(ctx->path, '.')) == NULL)
		return compat_refuse(ctx, n);
	(void)snprintf(path, sizeof(path), "agents.claude%s", dot);
	return compat_node(ctx, n, path);
}

int
rc_retired(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	(void)dst;
	if (strcmp(ctx->path, "merge") == 0)
		return yt_error(ctx, n, "retired by the original: its settings "
		    "moved to pull (pull.destroy_container, "
		    "pull.delete_branch)");
	return yt_error(ctx, n, "retired by the original: its successor is "
	    "agents.claude.install_jailbee_skills");
}

int
rc_remote_elsewhere(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	(void)dst;
	return yt_error(ctx, n, "the SSH server's settings (remote.ssh.*) "
	    "live in jailbeed.yaml (/etc/jailbee/jailbeed.yaml), which "
	    "jailbeed reads, not in this file");
}
