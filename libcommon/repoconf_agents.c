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
 * agents.<name> (and the original's alias claude:): the keys of the
 * original's agent presets, layered as every other key (a scalar of a
 * later layer wins, null gives the default back; egress_allow and
 * shared are appended to, [] empties them; env merges name by name), and
 * the built-in presets under all layers, key by key.  packages (Debian
 * packages the agent's image needs) is appended to as egress_allow is.
 *
 * An enabled agent (enabled: true, or jbctl new --agent) is installed
 * and launched by jbctl new and start (jailbeed/agent_run.c), its
 * egress_allow joins the allowlist (origin agent:<name>), and each of its
 * shared entries is a directory or file under the suite's shared
 * directory for the repo (<state_dir>/mounts/shared/<prefix>/<subpath>,
 * made by jb-mountd as the owner) mounted read-write at path
 * (jailbeed/agent_shared.c).  seed is the first content of a file made
 * for a type: file entry.
 */

#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repoconf_agents.h"
#include "repoconf_compat.h"

#define AG_OFF(f)	offsetof(struct rc_agent, f)
#define AG_SIZE(f)	sizeof(((struct rc_agent *)NULL)->f)

/*
 * The built-in presets.  The npm-based installs need the npm registry,
 * hence install_network: loose, and Debian's nodejs and npm in the image
 * (packages); npm installs into ~/.local, the dev user's own prefix,
 * whose bin is on the agent's PATH (agent_run.c).  shared entries live
 * under the suite's shared dir, one subpath per agent; claude keeps
 * ~/.claude.json in a mounted directory and reaches it by a symlink, as
 * a bind-mounted single file pins an inode the tool replaces.
 */
#define NPM_I(pkg)	"npm install -g --prefix \"$HOME/.local\" " pkg
#define NPM_U(pkg)	"npm install -g --prefix \"$HOME/.local\" " pkg \
			"@latest"
#define NPM_PKGS	"nodejs npm"

struct preset {
	const char	*name;
	const char	*command;
	const char	*install;
	const char	*install_check;
	const char	*update;
	const char	*packages;
	const char	*egress[8];
	struct {
		const char	*subpath, *path, *type, *seed;
	}		 shared[3];
};

static const struct preset presets[] = {
	{ "claude", "claude",
	  NPM_I("@anthropic-ai/claude-code"), "command -v claude",
	  NPM_U("@anthropic-ai/claude-code"), NPM_PKGS,
	  { "api.anthropic.com:443", "statsig.anthropic.com:443",
	    "claude.ai:443", "console.anthropic.com:443", NULL },
	  { { "claude", "~/.claude", "dir", NULL },
	    { "claude-json", "~/.claude-json", "dir", NULL },
	    { "claude-json/.claude.json", "~/.claude.json", "link", "{}" } } },
	{ "codex", "codex",
	  NPM_I("@openai/codex"), "command -v codex",
	  NPM_U("@openai/codex"), NPM_PKGS,
	  { "api.openai.com:443", "auth.openai.com:443", "chatgpt.com:443",
	    NULL },
	  { { "codex", "~/.codex", "dir", NULL },
	    { NULL, NULL, NULL, NULL } } },
	{ "gemini", "gemini",
	  NPM_I("@google/gemini-cli"), "command -v gemini",
	  NPM_U("@google/gemini-cli"), NPM_PKGS,
	  { "generativelanguage.googleapis.com:443",
	    "cloudcode-pa.googleapis.com:443", "oauth2.googleapis.com:443",
	    "accounts.google.com:443", NULL },
	  { { "gemini", "~/.gemini", "dir", NULL },
	    { NULL, NULL, NULL, NULL } } },
	{ "aider", "aider",
	  "python3 -m pip install --user --break-system-packages aider-chat",
	  "command -v aider",
	  "python3 -m pip install --user --break-system-packages --upgrade "
	  "aider-chat", "python3-pip",
	  { "api.openai.com:443", "api.anthropic.com:443", "openrouter.ai:443",
	    NULL },
	  { { "aider", "~/.aider", "dir", NULL },
	    { NULL, NULL, NULL, NULL } } },
	{ "opencode", "opencode",
	  NPM_I("opencode-ai"), "command -v opencode",
	  NPM_U("opencode-ai"), NPM_PKGS,
	  { "opencode.ai:443", "models.dev:443", "api.anthropic.com:443",
	    "api.openai.com:443", NULL },
	  { { "opencode", "~/.local/share/opencode", "dir", NULL },
	    { NULL, NULL, NULL, NULL } } },
	{ "grok", "grok",
	  NPM_I("@vibe-kit/grok-cli"), "command -v grok",
	  NPM_U("@vibe-kit/grok-cli"), NPM_PKGS,
	  { "api.x.ai:443", NULL },
	  { { "grok", "~/.grok", "dir", NULL },
	    { NULL, NULL, NULL, NULL } } },
};

static int	ag_tribool(struct yt_ctx *, const struct yt_node *, void *);
static int	ag_network(const char *, char *, size_t);
static int	ag_shared(struct yt_ctx *, const struct yt_node *, void *);
static int	ag_egress(struct yt_ctx *, const struct yt_node *, void *);
static int	ag_env(struct yt_ctx *, const struct yt_node *, void *);
static int	ag_packages(struct yt_ctx *, const struct yt_node *, void *);
static int	ag_subpath(const char *, char *, size_t);
static int	ag_cpath(const char *, char *, size_t);
static int	ag_type(const char *, char *, size_t);

#define AG_COMMON_FIELDS \
	{ .key = "enabled", .type = YT_CUSTOM, .off = AG_OFF(enabled), \
	  .fn = ag_tribool }, \
	{ .key = "autostart", .type = YT_CUSTOM, .off = AG_OFF(autostart), \
	  .fn = ag_tribool }, \
	{ .key = "command", .type = YT_STRING, .off = AG_OFF(command), \
	  .size = AG_SIZE(command), .flags = YT_NULL_OK }, \
	{ .key = "install", .type = YT_STRING, .off = AG_OFF(install), \
	  .size = AG_SIZE(install), .flags = YT_NULL_OK }, \
	{ .key = "install_check", .type = YT_STRING, \
	  .off = AG_OFF(install_check), .size = AG_SIZE(install_check), \
	  .flags = YT_NULL_OK }, \
	{ .key = "update", .type = YT_STRING, .off = AG_OFF(update), \
	  .size = AG_SIZE(update), .flags = YT_NULL_OK }, \
	{ .key = "auto_update", .type = YT_CUSTOM, \
	  .off = AG_OFF(auto_update), .fn = ag_tribool }, \
	{ .key = "install_network", .type = YT_STRING, \
	  .off = AG_OFF(install_network), .size = AG_SIZE(install_network), \
	  .flags = YT_NULL_OK, .valid = ag_network }, \
	{ .key = "shared", .type = YT_CUSTOM, .fn = ag_shared }, \
	{ .key = "egress_allow", .type = YT_CUSTOM, .fn = ag_egress }, \
	{ .key = "packages", .type = YT_CUSTOM, .fn = ag_packages }, \
	{ .key = "env", .type = YT_CUSTOM, .fn = ag_env }

static const struct yt_field agent_fields[] = {
	AG_COMMON_FIELDS,
	{ .key = NULL }
};

/* claude's own keys of the original are refused unless they ask nothing */
static const struct yt_field claude_fields[] = {
	AG_COMMON_FIELDS,
	{ .key = "plugins_enabled", .type = YT_CUSTOM, .fn = rc_compat_claude },
	{ .key = "install_jailbee_skills", .type = YT_CUSTOM,
	  .fn = rc_compat_claude },
	{ .key = "ai_pr_description", .type = YT_CUSTOM,
	  .fn = rc_compat_claude },
	{ .key = "ai_pr_branch", .type = YT_CUSTOM, .fn = rc_compat_claude },
	{ .key = "ai_pr_model", .type = YT_CUSTOM, .fn = rc_compat_claude },
	{ .key = "pr_prompt", .type = YT_CUSTOM, .fn = rc_compat_claude },
	{ .key = "ai_pr_timeout", .type = YT_CUSTOM, .fn = rc_compat_claude },
	{ .key = NULL }
};

static const struct yt_field shared_fields[] = {
	{ .key = "subpath", .type = YT_STRING,
	  .off = offsetof(struct rc_agent_shared, subpath),
	  .size = sizeof(((struct rc_agent_shared *)NULL)->subpath),
	  .flags = YT_REQUIRED, .valid = ag_subpath },
	{ .key = "path", .type = YT_STRING,
	  .off = offsetof(struct rc_agent_shared, path),
	  .size = sizeof(((struct rc_agent_shared *)NULL)->path),
	  .flags = YT_REQUIRED, .valid = ag_cpath },
	{ .key = "type", .type = YT_STRING,
	  .off = offsetof(struct rc_agent_shared, type),
	  .size = sizeof(((struct rc_agent_shared *)NULL)->type),
	  .flags = YT_NULL_OK, .valid = ag_type },
	{ .key = "seed", .type = YT_STRING,
	  .off = offsetof(struct rc_agent_shared, seed),
	  .size = sizeof(((struct rc_agent_shared *)NULL)->seed),
	  .flags = YT_NULL_OK },
	{ .key = NULL }
};

static int
why(char *w, size_t wlen, const char *msg)
{
	(void)strlcpy(w, msg, wlen);
	return -1;
}

static int
ag_network(const char *s, char *w, size_t wlen)
{
	if (strcmp(s, "strict") == 0 || strcmp(s, "loose") == 0)
		return 0;
	return why(w, wlen, "must be strict or loose");
}

/* a relative path below the shared dir: no "..", no empty name */
static int
ag_subpath(const char *s, char *w, size_t wlen)
{
	const char	*p = s;
	size_t		 l;

	if (*s == '\0' || *s == '/')
		return why(w, wlen, "must be a relative path below the shared "
		    "directory");
	while (*p != '\0') {
		l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') ||
		    (l == 2 && p[0] == '.' && p[1] == '.'))
			return why(w, wlen, "must not hold empty, \".\" or "
			    "\"..\" components");
		p += l + (p[l] == '/');
	}
	return 0;
}

/* where it goes in the container: absolute or ~/..., no ".." */
static int
ag_cpath(const char *s, char *w, size_t wlen)
{
	if (s[0] == '~' && s[1] == '/')
		return ag_subpath(s + 2, w, wlen) == -1 ? why(w, wlen,
		    "must be ~/ and a path without \".\" or \"..\"") : 0;
	return yt_check_path(s, w, wlen);
}

static int
ag_type(const char *s, char *w, size_t wlen)
{
	if (strcmp(s, "dir") == 0 || strcmp(s, "file") == 0 ||
	    strcmp(s, "link") == 0)
		return 0;
	return why(w, wlen, "must be dir, file or link");
}

static int
ag_tribool(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
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
ag_shared(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_agent		*a = dst;
	struct rc_agent_shared	 s;
	size_t			 i, saved;
	int			 rc;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		a->nshared = 0;
		a->shared_reset = 1;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of {subpath, "
		    "path, type, seed}, got %s", yt_describe(n));
	for (i = 0; i < n->nitems; i++) {
		saved = yt_path_push_index(ctx, i);
		memset(&s, 0, sizeof(s));
		if (n->items[i]->kind != YT_MAPPING)
			rc = yt_error(ctx, n->items[i], "expected a mapping "
			    "{subpath, path, type, seed}, got %s",
			    yt_describe(n->items[i]));
		else if (a->nshared >= RC_AGENT_SHARED_MAX)
			rc = yt_error(ctx, n->items[i], "more than %d items",
			    RC_AGENT_SHARED_MAX);
		else
			rc = yt_apply(ctx, n->items[i], shared_fields, &s);
		yt_path_pop(ctx, saved);
		if (rc == -1)
			return -1;
		a->shared[a->nshared++] = s;
	}
	return 0;
}

static int
ag_egress(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_agent	*a = dst;
	size_t		 i, saved;
	int		 rc = 0;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		a->negress = 0;
		a->egress_reset = 1;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of strings, got "
		    "%s", yt_describe(n));
	for (i = 0; i < n->nitems && rc == 0; i++) {
		const struct yt_node *it = n->items[i];

		saved = yt_path_push_index(ctx, i);
		if (it->kind != YT_SCALAR || it->sval == YT_SV_NULL ||
		    it->sval == YT_SV_BOOL)
			rc = yt_error(ctx, it, "expected a string, got %s",
			    yt_describe(it));
		else if (it->len > RC_EGRESS_LEN)
			rc = yt_error(ctx, it, "too long (at most %d bytes)",
			    RC_EGRESS_LEN);
		else if (a->negress >= RC_AGENT_EGRESS_MAX)
			rc = yt_error(ctx, it, "more than %d items",
			    RC_AGENT_EGRESS_MAX);
		else
			(void)strlcpy(a->egress[a->negress++], it->str,
			    sizeof(a->egress[0]));
		yt_path_pop(ctx, saved);
	}
	return rc;
}

/* 1 when w is one of list's space-separated names */
static int
listed(const char *list, const char *w)
{
	size_t	l, n = strlen(w);

	while (*list != '\0') {
		l = strcspn(list, " ");
		if (l == n && strncmp(list, w, n) == 0)
			return 1;
		list += l + (list[l] == ' ');
	}
	return 0;
}

/* w joins list (at most RC_AGENT_PACKAGES_MAX bytes) unless there: -1 full */
static int
add_package(char *list, const char *w)
{
	if (listed(list, w))
		return 0;
	if (strlen(list) + (list[0] != '\0') + strlen(w) >
	    RC_AGENT_PACKAGES_MAX)
		return -1;
	if (list[0] != '\0')
		(void)strlcat(list, " ", RC_AGENT_PACKAGES_MAX + 1);
	(void)strlcat(list, w, RC_AGENT_PACKAGES_MAX + 1);
	return 0;
}

/* packages: Debian names, appended to earlier layers'; null or [] empty */
static int
ag_packages(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_agent	*a = dst;
	size_t		 i, saved;
	int		 rc = 0;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		a->packages[0] = '\0';
		a->packages_reset = 1;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of Debian package "
		    "names, got %s", yt_describe(n));
	for (i = 0; i < n->nitems && rc == 0; i++) {
		const struct yt_node *it = n->items[i];

		saved = yt_path_push_index(ctx, i);
		if (it->kind != YT_SCALAR || it->sval == YT_SV_NULL ||
		    it->sval == YT_SV_BOOL)
			rc = yt_error(ctx, it, "expected a Debian package "
			    "name, got %s", yt_describe(it));
		else if (!repoconf_valid_package(it->str))
			rc = yt_error(ctx, it, "\"%s\" is not a Debian package "
			    "name (a-z, 0-9, +, -, ., from 2 to %d characters, "
			    "starting with a letter or digit)", it->str,
			    RC_PACKAGE_MAX);
		else if (add_package(a->packages, it->str) == -1)
			rc = yt_error(ctx, it, "more than %d bytes of packages",
			    RC_AGENT_PACKAGES_MAX);
		yt_path_pop(ctx, saved);
	}
	return rc;
}

static int
env_name_ok(const char *s)
{
	size_t	len = strlen(s);

	return len > 0 && len <= RC_AGENT_ENVNAME_MAX &&
	    !(s[0] >= '0' && s[0] <= '9') &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_") == len;
}

static int
ag_env(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_agent	*a = dst;
	size_t		 i, saved;
	int		 j, rc = 0;

	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of NAME: value, "
		    "got %s", yt_describe(n));
	for (i = 0; i < n->npairs && rc == 0; i++) {
		const struct yt_node *k = n->pairs[i].key, *v = n->pairs[i].val;

		saved = yt_path_push(ctx, k->str);
		for (j = 0; j < a->nenv; j++)
			if (strcmp(a->env_name[j], k->str) == 0)
				break;
		if (!env_name_ok(k->str))
			rc = yt_error(ctx, k, "not an environment variable "
			    "name ([A-Za-z_][A-Za-z0-9_]*, at most %d "
			    "characters)", RC_AGENT_ENVNAME_MAX);
		else if (yt_is_null(v)) {
			/* null drops what an earlier layer set */
			if (j < a->nenv) {
				memmove(a->env_name[j], a->env_name[j + 1],
				    (size_t)(a->nenv - j - 1) *
				    sizeof(a->env_name[0]));
				memmove(a->env_value[j], a->env_value[j + 1],
				    (size_t)(a->nenv - j - 1) *
				    sizeof(a->env_value[0]));
				a->nenv--;
			}
		} else if (v->kind != YT_SCALAR || v->sval == YT_SV_BOOL)
			rc = yt_error(ctx, v, "expected a string, got %s%s",
			    yt_describe(v), v->sval == YT_SV_BOOL ? " (quote "
			    "it if you mean the text)" : "");
		else if (v->len > RC_AGENT_ENVVAL_MAX)
			rc = yt_error(ctx, v, "too long (at most %d bytes)",
			    RC_AGENT_ENVVAL_MAX);
		else if (j == a->nenv && a->nenv >= RC_AGENT_ENV_MAX)
			rc = yt_error(ctx, k, "more than %d variables",
			    RC_AGENT_ENV_MAX);
		else {
			if (j == a->nenv) {
				(void)strlcpy(a->env_name[j], k->str,
				    sizeof(a->env_name[0]));
				a->nenv++;
			}
			(void)strlcpy(a->env_value[j], v->str,
			    sizeof(a->env_value[0]));
		}
		yt_path_pop(ctx, saved);
	}
	return rc;
}

static void
agent_init(struct rc_agent *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	(void)strlcpy(a->name, name, sizeof(a->name));
	a->enabled = RC_UNSET;
	a->autostart = RC_UNSET;
	a->auto_update = RC_UNSET;
}

static struct rc_agent *
agent_get(struct rc_agentlist *l, const char *name)
{
	struct rc_agent	*v;
	size_t		 i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	if (l->n >= RC_AGENTS_MAX ||
	    (v = reallocarray(l->v, l->n + 1, sizeof(*v))) == NULL)
		return NULL;
	l->v = v;
	agent_init(&l->v[l->n], name);
	return &l->v[l->n++];
}

static void
agent_drop(struct rc_agentlist *l, const char *name)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0) {
			memmove(&l->v[i], &l->v[i + 1],
			    (l->n - i - 1) * sizeof(*l->v));
			l->n--;
			return;
		}
}

static int
agent_name_ok(const char *s)
{
	size_t	len = strlen(s);

	return len > 0 && len <= RC_AGENT_NAME_MAX &&
	    strchr("-_", s[0]) == NULL &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == len;
}

/* one agent's mapping onto its entry; null drops it (presets stay) */
static int
agent_apply(struct yt_ctx *ctx, const struct yt_node *k,
    const struct yt_node *v, struct rc_agentlist *l)
{
	struct rc_agent	*a;

	if (!agent_name_ok(k->str))
		return yt_error(ctx, k, "bad agent name: 1 to %d lowercase "
		    "letters, digits, '_' and '-', starting with a letter or "
		    "digit", RC_AGENT_NAME_MAX);
	if (yt_is_null(v)) {
		agent_drop(l, k->str);
		return 0;
	}
	if (v->kind != YT_MAPPING)
		return yt_error(ctx, v, "expected a mapping {enabled, "
		    "autostart, command, install, install_check, update, "
		    "auto_update, install_network, packages, shared, "
		    "egress_allow, env}, "
		    "got %s", yt_describe(v));
	if ((a = agent_get(l, k->str)) == NULL)
		return yt_error(ctx, k, "more than %d agents (or out of "
		    "memory)", RC_AGENTS_MAX);
	return yt_apply(ctx, v, strcmp(k->str, "claude") == 0 ?
	    claude_fields : agent_fields, a);
}

int
rc_agents(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	size_t	i, saved;
	int	rc = 0;

	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of NAME: {...}, "
		    "got %s", yt_describe(n));
	for (i = 0; i < n->npairs && rc == 0; i++) {
		saved = yt_path_push(ctx, n->pairs[i].key->str);
		rc = agent_apply(ctx, n->pairs[i].key, n->pairs[i].val, dst);
		yt_path_pop(ctx, saved);
	}
	return rc;
}

/*
 * The original's top-level claude: is agents.claude (repoconf.c refuses
 * a file holding both, as the original does: neither plainly wins).
 */
int
rc_claude_alias(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct yt_node	key;

	memset(&key, 0, sizeof(key));
	key.kind = YT_SCALAR;
	key.str = (char *)"claude";
	key.len = 6;
	key.line = n->line;
	return agent_apply(ctx, &key, n, dst);
}

int
rc_agents_copy(struct rc_agentlist *dst, const struct rc_agentlist *src)
{
	dst->v = NULL;
	dst->n = 0;
	if (src->n == 0)
		return 0;
	if ((dst->v = reallocarray(NULL, src->n, sizeof(*dst->v))) == NULL)
		return -1;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = src->n;
	return 0;
}

void
rc_agents_free(struct rc_agentlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
fill(char *dst, size_t len, const char *preset)
{
	if (dst[0] == '\0' && preset != NULL)
		(void)strlcpy(dst, preset, len);
}

/* the preset's entries first, each once, then the layers' own */
static int
fill_egress(struct rc_agent *a, const struct preset *p, char *err,
    size_t errlen)
{
	char	out[RC_AGENT_EGRESS_MAX][RC_EGRESS_LEN + 1];
	int	n = 0, i, j;

	for (i = 0; i < 8 && p->egress[i] != NULL; i++) {
		for (j = 0; j < a->negress; j++)
			if (strcmp(a->egress[j], p->egress[i]) == 0)
				break;
		if (j < a->negress)
			continue;
		(void)strlcpy(out[n++], p->egress[i], sizeof(out[0]));
	}
	if (n + a->negress > RC_AGENT_EGRESS_MAX) {
		(void)snprintf(err, errlen, "agents.%s.egress_allow: more than "
		    "%d entries with the preset's", a->name,
		    RC_AGENT_EGRESS_MAX);
		return -1;
	}
	for (j = 0; j < a->negress; j++)
		memcpy(out[n + j], a->egress[j], sizeof(out[0]));
	memcpy(a->egress, out, (size_t)(n + a->negress) * sizeof(out[0]));
	a->negress += n;
	return 0;
}

/* the preset's packages first, then the layers' own, each once */
static int
fill_packages(struct rc_agent *a, const struct preset *p, char *err,
    size_t errlen)
{
	char		 out[RC_AGENT_PACKAGES_MAX + 1], w[RC_PACKAGE_MAX + 1];
	const char	*lists[2], *s;
	size_t		 l;
	int		 i;

	out[0] = '\0';
	lists[0] = p->packages != NULL ? p->packages : "";
	lists[1] = a->packages;
	for (i = 0; i < 2; i++)
		for (s = lists[i]; *s != '\0'; s += l + (s[l] == ' ')) {
			l = strcspn(s, " ");
			if (l == 0 || l >= sizeof(w))
				continue;
			memcpy(w, s, l);
			w[l] = '\0';
			if (add_package(out, w) == -1) {
				(void)snprintf(err, errlen, "agents.%s."
				    "packages: more than %d bytes with the "
				    "preset's", a->name, RC_AGENT_PACKAGES_MAX);
				return -1;
			}
		}
	memcpy(a->packages, out, sizeof(out));
	return 0;
}

/*
 * A type: link entry is a file of one of the agent's shared directories,
 * reached by a symlink at its path: its target is where that directory
 * is mounted, and the rest of the subpath.
 */
static int
link_target(struct rc_agent *a, size_t k, char *err, size_t errlen)
{
	struct rc_agent_shared	*e = &a->shared[k], *d;
	size_t			 j, l;

	for (j = 0; j < (size_t)a->nshared; j++) {
		d = &a->shared[j];
		l = strlen(d->subpath);
		if (strcmp(d->type, "dir") != 0 ||
		    strncmp(e->subpath, d->subpath, l) != 0 ||
		    e->subpath[l] != '/')
			continue;
		if ((size_t)snprintf(e->target, sizeof(e->target), "%s/%s",
		    d->path, e->subpath + l + 1) >= sizeof(e->target)) {
			(void)snprintf(err, errlen, "agents.%s.shared[%zu]: "
			    "%s/%s is too long", a->name, k, d->path,
			    e->subpath + l + 1);
			return -1;
		}
		return 0;
	}
	(void)snprintf(err, errlen, "agents.%s.shared[%zu]: type: link: %s "
	    "lies in none of the agent's shared directories (type: dir); "
	    "share the directory that holds it too", a->name, k, e->subpath);
	return -1;
}

static int
fill_shared(struct rc_agent *a, const struct preset *p, char *err,
    size_t errlen)
{
	struct rc_agent_shared	out[RC_AGENT_SHARED_MAX], s;
	int			n = 0, i, j;

	for (i = 0; i < 3 && p->shared[i].subpath != NULL; i++) {
		for (j = 0; j < a->nshared; j++)
			if (strcmp(a->shared[j].path, p->shared[i].path) == 0)
				break;
		if (j < a->nshared)
			continue;
		memset(&s, 0, sizeof(s));
		(void)strlcpy(s.subpath, p->shared[i].subpath,
		    sizeof(s.subpath));
		(void)strlcpy(s.path, p->shared[i].path, sizeof(s.path));
		(void)strlcpy(s.type, p->shared[i].type, sizeof(s.type));
		if (p->shared[i].seed != NULL)
			(void)strlcpy(s.seed, p->shared[i].seed,
			    sizeof(s.seed));
		out[n++] = s;
	}
	if (n + a->nshared > RC_AGENT_SHARED_MAX) {
		(void)snprintf(err, errlen, "agents.%s.shared: more than %d "
		    "entries with the preset's", a->name, RC_AGENT_SHARED_MAX);
		return -1;
	}
	for (j = 0; j < a->nshared; j++)
		out[n + j] = a->shared[j];
	memcpy(a->shared, out, (size_t)(n + a->nshared) * sizeof(out[0]));
	a->nshared += n;
	return 0;
}

int
rc_agents_finish(struct rc_agentlist *l, char *err, size_t errlen)
{
	const struct preset	*p;
	struct rc_agent		*a;
	size_t			 i, k;

	for (k = 0; k < sizeof(presets) / sizeof(presets[0]); k++) {
		p = &presets[k];
		if ((a = agent_get(l, p->name)) == NULL) {
			(void)snprintf(err, errlen, "agents: more than %d "
			    "agents with the built-in ones", RC_AGENTS_MAX);
			return -1;
		}
		fill(a->command, sizeof(a->command), p->command);
		fill(a->install, sizeof(a->install), p->install);
		fill(a->install_check, sizeof(a->install_check),
		    p->install_check);
		fill(a->update, sizeof(a->update), p->update);
		fill(a->install_network, sizeof(a->install_network), "loose");
		if (!a->packages_reset && fill_packages(a, p, err, errlen) ==
		    -1)
			return -1;
		if (!a->egress_reset && fill_egress(a, p, err, errlen) == -1)
			return -1;
		if (!a->shared_reset && fill_shared(a, p, err, errlen) == -1)
			return -1;
		/* a finished list is whole: read back, it must not grow */
		a->egress_reset = a->shared_reset = a->packages_reset = 1;
	}
	for (i = 0; i < l->n; i++) {
		a = &l->v[i];
		fill(a->install_network, sizeof(a->install_network), "strict");
		if (a->enabled == RC_UNSET)
			a->enabled = 0;
		if (a->autostart == RC_UNSET)
			a->autostart = 1;
		if (a->auto_update == RC_UNSET)
			a->auto_update = 1;
		for (k = 0; k < (size_t)a->nshared; k++) {
			fill(a->shared[k].type, sizeof(a->shared[k].type),
			    "dir");
			if (strcmp(a->shared[k].type, "dir") == 0 &&
			    a->shared[k].seed[0] != '\0') {
				(void)snprintf(err, errlen, "agents.%s.shared"
				    "[%zu].seed: only a file's first content "
				    "(type: file or link); a directory starts "
				    "empty", a->name, k);
				return -1;
			}
			if (strcmp(a->shared[k].type, "link") == 0 &&
			    link_target(a, k, err, errlen) == -1)
				return -1;
		}
		a->egress_reset = a->shared_reset = a->packages_reset = 1;
		if (a->enabled == 1 && repoconf_agent_runnable(a, err,
		    errlen) == -1)
			return -1;
	}
	return 0;
}

const struct rc_agent *
repoconf_agent(const struct repoconf *c, const char *name)
{
	size_t	i;

	for (i = 0; i < c->agents.n; i++)
		if (strcmp(c->agents.v[i].name, name) == 0)
			return &c->agents.v[i];
	return NULL;
}

static int
word_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
repoconf_agent_image(const struct repoconf *c, const size_t *idx, size_t n,
    char *alias, size_t alen, char *pkgs, size_t plen)
{
	char		 all[RC_PACKAGES_MAX + RC_AGENTS_MAX *
			    (RC_AGENT_PACKAGES_MAX + 1) + 2];
	char		 w[RC_PACKAGE_MAX + 1], *words[512], *p;
	const char	*s;
	uint8_t		 d[SHA256_DIGEST_LENGTH];
	SHA2_CTX	 ctx;
	size_t		 i, l, nw = 0, o = 0;
	int		 more = 0;

	(void)strlcpy(alias, c->base_alias, alen);
	(void)strlcpy(pkgs, c->base_packages, plen);
	if (!c->base_alias_auto)
		return 0;
	(void)strlcpy(all, c->base_packages, sizeof(all));
	for (i = 0; i < n; i++)
		for (s = c->agents.v[idx[i]].packages; *s != '\0';
		    s += l + (s[l] == ' ')) {
			l = strcspn(s, " ");
			if (l == 0 || l >= sizeof(w))
				continue;
			memcpy(w, s, l);
			w[l] = '\0';
			if (listed(all, w))
				continue;
			if (all[0] != '\0')
				(void)strlcat(all, " ", sizeof(all));
			(void)strlcat(all, w, sizeof(all));
			more = 1;
		}
	if (!more)
		return 0;
	if (strlen(all) >= plen)
		return -1;
	/* the set, not its order, names the image */
	for (p = all; *p != '\0' && nw < sizeof(words) / sizeof(words[0]);
	    ) {
		words[nw++] = p;
		p += strcspn(p, " ");
		if (*p == ' ')
			*p++ = '\0';
	}
	qsort(words, nw, sizeof(words[0]), word_cmp);
	pkgs[0] = '\0';
	SHA256Init(&ctx);
	for (i = 0; i < nw; i++) {
		if (i > 0) {
			(void)strlcat(pkgs, " ", plen);
			SHA256Update(&ctx, (const uint8_t *)" ", 1);
		}
		(void)strlcat(pkgs, words[i], plen);
		SHA256Update(&ctx, (const uint8_t *)words[i],
		    strlen(words[i]));
	}
	SHA256Final(d, &ctx);
	o = (size_t)snprintf(alias, alen, "jailbee-base-");
	for (i = 0; i < 6 && o + 2 < alen; i++, o += 2)
		(void)snprintf(alias + o, alen - o, "%02x", d[i]);
	return 1;
}

int
repoconf_agent_runnable(const struct rc_agent *a, char *err, size_t errlen)
{
	if (a->command[0] == '\0')
		(void)snprintf(err, errlen, "agents.%s.command: not set: an "
		    "enabled agent needs the command that launches it",
		    a->name);
	else
		return 0;
	return -1;
}

static void
put_kv(FILE *fp, const char *key, const char *s)
{
	(void)fprintf(fp, "    %s: ", key);
	rc_put_str(fp, s);
	(void)fputc('\n', fp);
}

static void
put_bool(FILE *fp, const char *key, int v)
{
	if (v != RC_UNSET)
		(void)fprintf(fp, "    %s: %s\n", key, v ? "true" : "false");
}

/* packages as a flow sequence: the names need no quoting */
static void
put_packages(FILE *fp, const char *list)
{
	size_t	l;
	int	first = 1;

	(void)fputs("    packages: [", fp);
	for (; *list != '\0'; list += l + (list[l] == ' ')) {
		l = strcspn(list, " ");
		(void)fprintf(fp, "%s%.*s", first ? "" : ", ", (int)l, list);
		first = 0;
	}
	(void)fputs("]\n", fp);
}

static void
dump_one(const struct rc_agent *a, int all, FILE *fp)
{
	int	i;

	/* nothing set: an empty mapping, so that the agent is still named */
	if (!all && a->enabled == RC_UNSET && a->autostart == RC_UNSET &&
	    a->auto_update == RC_UNSET && a->command[0] == '\0' &&
	    a->install[0] == '\0' && a->install_check[0] == '\0' &&
	    a->update[0] == '\0' && a->install_network[0] == '\0' &&
	    !a->packages_reset && a->packages[0] == '\0' && !a->shared_reset && a->nshared == 0 && !a->egress_reset &&
	    a->negress == 0 && a->nenv == 0) {
		(void)fprintf(fp, "  %s: {}\n", a->name);
		return;
	}
	(void)fprintf(fp, "  %s:\n", a->name);
	put_bool(fp, "enabled", a->enabled);
	put_bool(fp, "autostart", a->autostart);
	put_bool(fp, "auto_update", a->auto_update);
	if (a->command[0] != '\0')
		put_kv(fp, "command", a->command);
	if (a->install[0] != '\0')
		put_kv(fp, "install", a->install);
	if (a->install_check[0] != '\0')
		put_kv(fp, "install_check", a->install_check);
	if (a->update[0] != '\0')
		put_kv(fp, "update", a->update);
	if (a->install_network[0] != '\0')
		put_kv(fp, "install_network", a->install_network);
	if (all || a->packages_reset || a->packages[0] != '\0')
		put_packages(fp, a->packages);
	if (all || a->shared_reset || a->nshared > 0)
		(void)fprintf(fp, "    shared:%s\n", a->nshared == 0 ? " []" :
		    "");
	for (i = 0; i < a->nshared; i++) {
		(void)fputs("      - subpath: ", fp);
		rc_put_str(fp, a->shared[i].subpath);
		(void)fputs("\n        path: ", fp);
		rc_put_str(fp, a->shared[i].path);
		(void)fputc('\n', fp);
		if (a->shared[i].type[0] != '\0') {
			(void)fputs("        type: ", fp);
			rc_put_str(fp, a->shared[i].type);
			(void)fputc('\n', fp);
		}
		if (a->shared[i].seed[0] != '\0') {
			(void)fputs("        seed: ", fp);
			rc_put_str(fp, a->shared[i].seed);
			(void)fputc('\n', fp);
		}
	}
	if (all || a->egress_reset || a->negress > 0)
		(void)fprintf(fp, "    egress_allow:%s\n", a->negress == 0 ?
		    " []" : "");
	for (i = 0; i < a->negress; i++) {
		(void)fputs("      - ", fp);
		rc_put_str(fp, a->egress[i]);
		(void)fputc('\n', fp);
	}
	if (all || a->nenv > 0)
		(void)fprintf(fp, "    env:%s\n", a->nenv == 0 ? " {}" : "");
	for (i = 0; i < a->nenv; i++) {
		(void)fputs("      ", fp);
		rc_put_str(fp, a->env_name[i]);
		(void)fputs(": ", fp);
		rc_put_str(fp, a->env_value[i]);
		(void)fputc('\n', fp);
	}
}

void
rc_agents_dump(const struct rc_agentlist *l, int all, FILE *fp)
{
	size_t	i;

	if (!all && l->n == 0)
		return;
	(void)fprintf(fp, "agents:%s\n", l->n == 0 ? " {}" : "");
	for (i = 0; i < l->n; i++)
		dump_one(&l->v[i], all, fp);
}
