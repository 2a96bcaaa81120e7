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
 * autostart: {on_create[], on_start[], step_timeout, env{}}; a step is
 * {name, run, network, mounts, env, working_dir, background, timeout,
 * continue_on_error}.  A step's mounts name optional_mounts entries
 * (repoconf_finish() checks that each exists) attached for the step
 * alone.  network: loose or mounts on a background step are refused:
 * nothing would take them back when it ends.  Names are unique per
 * trigger and become tmux window names: [A-Za-z0-9_.-].
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repoconf_agents.h"
#include "repoconf_autostart.h"

#define ST_OFF(f)	offsetof(struct rc_step, f)
#define ST_SIZE(f)	sizeof(((struct rc_step *)NULL)->f)

static int	st_name(const char *, char *, size_t);
static int	st_network(const char *, char *, size_t);
static int	st_wdir(const char *, char *, size_t);
static int	st_mounts(struct yt_ctx *, const struct yt_node *, void *);
static int	st_env(struct yt_ctx *, const struct yt_node *, void *);

static const struct yt_field step_fields[] = {
	{ .key = "name", .type = YT_STRING, .off = ST_OFF(name),
	  .size = ST_SIZE(name), .flags = YT_REQUIRED, .valid = st_name },
	{ .key = "run", .type = YT_STRING, .off = ST_OFF(run),
	  .size = ST_SIZE(run), .flags = YT_REQUIRED },
	{ .key = "network", .type = YT_STRING, .off = ST_OFF(network),
	  .size = ST_SIZE(network), .flags = YT_NULL_OK,
	  .valid = st_network },
	{ .key = "mounts", .type = YT_CUSTOM, .fn = st_mounts },
	{ .key = "env", .type = YT_CUSTOM, .fn = st_env },
	{ .key = "working_dir", .type = YT_STRING, .off = ST_OFF(working_dir),
	  .size = ST_SIZE(working_dir), .flags = YT_NULL_OK,
	  .valid = st_wdir },
	{ .key = "background", .type = YT_BOOL, .off = ST_OFF(background),
	  .flags = YT_NULL_OK },
	{ .key = "timeout", .type = YT_INT, .off = ST_OFF(timeout),
	  .size = sizeof(int), .min = 1, .max = RC_STEP_TIMEOUT_MAX,
	  .flags = YT_NULL_OK },
	{ .key = "continue_on_error", .type = YT_BOOL,
	  .off = ST_OFF(continue_on_error), .flags = YT_NULL_OK },
	{ .key = NULL }
};

static int
why(char *w, size_t wlen, const char *msg)
{
	(void)strlcpy(w, msg, wlen);
	return -1;
}

static int
st_name(const char *s, char *w, size_t wlen)
{
	size_t	len = strlen(s);

	if (len == 0 || s[0] == '-' || s[0] == '.' ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") != len)
		return why(w, wlen, "must be letters, digits, '_', '.' and "
		    "'-', not starting with '-' or '.'");
	return 0;
}

static int
st_network(const char *s, char *w, size_t wlen)
{
	if (strcmp(s, "strict") == 0 || strcmp(s, "loose") == 0)
		return 0;
	return why(w, wlen, "must be strict, loose or null");
}

/* below the clone (relative, no "..") or absolute; no control bytes */
static int
st_wdir(const char *s, char *w, size_t wlen)
{
	const char	*p;
	size_t		 l;

	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return why(w, wlen, "must not hold control characters");
	if (s[0] == '/')
		return yt_check_path(s, w, wlen);
	for (p = s; *p != '\0'; p += l + (p[l] == '/')) {
		l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return why(w, wlen, "a relative working_dir must stay "
			    "below the clone (no \"..\")");
	}
	return 0;
}

/* optional_mounts kinds: [a-z0-9][a-z0-9_-]*, each once */
static int
st_mounts(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_step	*st = dst;
	size_t		 i, saved, len;
	int		 j, rc = 0;

	st->nmounts = 0;
	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of "
		    "optional_mounts names, got %s", yt_describe(n));
	for (i = 0; i < n->nitems && rc == 0; i++) {
		const struct yt_node *it = n->items[i];

		saved = yt_path_push_index(ctx, i);
		len = it->kind == YT_SCALAR && it->sval != YT_SV_NULL &&
		    it->sval != YT_SV_BOOL ? strlen(it->str) : 0;
		if (len == 0 || len > RC_KIND_MAX ||
		    strchr("abcdefghijklmnopqrstuvwxyz0123456789",
		    it->str[0]) == NULL ||
		    strspn(it->str, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
		    len)
			rc = yt_error(ctx, it, "expected the name of an "
			    "optional_mounts entry ([a-z0-9][a-z0-9_-]*, at "
			    "most %d characters)", RC_KIND_MAX);
		else if (st->nmounts >= RC_STEP_MOUNTS_MAX)
			rc = yt_error(ctx, it, "more than %d mounts",
			    RC_STEP_MOUNTS_MAX);
		else {
			for (j = 0; j < st->nmounts; j++)
				if (strcmp(st->mounts[j], it->str) == 0)
					break;
			if (j < st->nmounts)
				rc = yt_error(ctx, it, "\"%s\" is named twice",
				    it->str);
			else
				(void)strlcpy(st->mounts[st->nmounts++],
				    it->str, sizeof(st->mounts[0]));
		}
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

/* NAME: value into env[*n], merging by name; null drops one */
static int
env_apply(struct yt_ctx *ctx, const struct yt_node *n, struct rc_envkv *env,
    int *nenv)
{
	size_t	i, saved;
	int	j, rc = 0;

	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of NAME: value, "
		    "got %s", yt_describe(n));
	for (i = 0; i < n->npairs && rc == 0; i++) {
		const struct yt_node *k = n->pairs[i].key, *v = n->pairs[i].val;

		saved = yt_path_push(ctx, k->str);
		for (j = 0; j < *nenv; j++)
			if (strcmp(env[j].name, k->str) == 0)
				break;
		if (!env_name_ok(k->str))
			rc = yt_error(ctx, k, "not an environment variable "
			    "name ([A-Za-z_][A-Za-z0-9_]*, at most %d "
			    "characters)", RC_AGENT_ENVNAME_MAX);
		else if (yt_is_null(v)) {
			if (j < *nenv) {
				memmove(&env[j], &env[j + 1],
				    (size_t)(*nenv - j - 1) * sizeof(*env));
				(*nenv)--;
			}
		} else if (v->kind != YT_SCALAR || v->sval == YT_SV_BOOL)
			rc = yt_error(ctx, v, "expected a string, got %s%s",
			    yt_describe(v), v->sval == YT_SV_BOOL ? " (quote "
			    "it if you mean the text)" : "");
		else if (v->len > RC_AGENT_ENVVAL_MAX)
			rc = yt_error(ctx, v, "too long (at most %d bytes)",
			    RC_AGENT_ENVVAL_MAX);
		else if (j == *nenv && *nenv >= RC_STEP_ENV_MAX)
			rc = yt_error(ctx, k, "more than %d variables",
			    RC_STEP_ENV_MAX);
		else {
			if (j == *nenv) {
				(void)strlcpy(env[j].name, k->str,
				    sizeof(env[j].name));
				(*nenv)++;
			}
			(void)strlcpy(env[j].value, v->str,
			    sizeof(env[j].value));
		}
		yt_path_pop(ctx, saved);
	}
	return rc;
}

static int
st_env(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_step	*st = dst;

	return env_apply(ctx, n, st->env, &st->nenv);
}

static int
steps_apply(struct yt_ctx *ctx, const struct yt_node *n,
    struct rc_steplist *l)
{
	struct rc_step	 st, *v;
	size_t		 i, j, saved;
	int		 rc;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		free(l->v);
		l->v = NULL;
		l->n = 0;
		l->reset = 1;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of steps {name, "
		    "run, ...}, got %s", yt_describe(n));
	for (i = 0; i < n->nitems; i++) {
		saved = yt_path_push_index(ctx, i);
		memset(&st, 0, sizeof(st));
		if (n->items[i]->kind != YT_MAPPING)
			rc = yt_error(ctx, n->items[i], "expected a mapping "
			    "{name, run, network, mounts, env, working_dir, "
			    "background, timeout, continue_on_error}, got %s",
			    yt_describe(n->items[i]));
		else if (l->n >= RC_STEPS_MAX)
			rc = yt_error(ctx, n->items[i], "more than %d steps",
			    RC_STEPS_MAX);
		else
			rc = yt_apply(ctx, n->items[i], step_fields, &st);
		for (j = 0; rc == 0 && j < l->n; j++)
			if (strcmp(l->v[j].name, st.name) == 0)
				rc = yt_error(ctx, n->items[i], "name: step "
				    "\"%s\" is named twice: names are unique "
				    "per trigger", st.name);
		if (rc == 0 && st.background &&
		    strcmp(st.network, "loose") == 0)
			rc = yt_error(ctx, n->items[i], "network: loose on a "
			    "background step is not supported yet by JailBee "
			    "(nothing would take the network back when it "
			    "ends): run it in the foreground");
		if (rc == 0 && st.background && st.nmounts > 0)
			rc = yt_error(ctx, n->items[i], "mounts on a "
			    "background step is not supported by JailBee "
			    "(nothing would detach them when it ends): run it "
			    "in the foreground");
		yt_path_pop(ctx, saved);
		if (rc == -1)
			return -1;
		if ((v = reallocarray(l->v, l->n + 1, sizeof(*v))) == NULL)
			return yt_error(ctx, n, "out of memory");
		l->v = v;
		l->v[l->n++] = st;
	}
	return 0;
}

static int
as_on_create(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	return steps_apply(ctx, n, &((struct rc_autostart *)dst)->on_create);
}

static int
as_on_start(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	return steps_apply(ctx, n, &((struct rc_autostart *)dst)->on_start);
}

static int
as_env(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_autostart	*as = dst;

	return env_apply(ctx, n, as->env, &as->nenv);
}

static const struct yt_field autostart_fields[] = {
	{ .key = "on_create", .type = YT_CUSTOM, .fn = as_on_create },
	{ .key = "on_start", .type = YT_CUSTOM, .fn = as_on_start },
	{ .key = "step_timeout", .type = YT_INT,
	  .off = offsetof(struct rc_autostart, step_timeout),
	  .size = sizeof(int), .min = 1, .max = RC_STEP_TIMEOUT_MAX,
	  .flags = YT_NULL_OK },
	{ .key = "env", .type = YT_CUSTOM, .fn = as_env },
	{ .key = NULL }
};

int
rc_autostart(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping {on_create, "
		    "on_start, step_timeout, env}, got %s", yt_describe(n));
	return yt_apply(ctx, n, autostart_fields, dst);
}

static int
list_copy(struct rc_steplist *dst, const struct rc_steplist *src)
{
	*dst = *src;
	dst->v = NULL;
	if (src->n == 0)
		return 0;
	if ((dst->v = calloc(src->n, sizeof(*dst->v))) == NULL) {
		dst->n = 0;
		return -1;
	}
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	return 0;
}

int
rc_autostart_copy(struct rc_autostart *dst, const struct rc_autostart *src)
{
	*dst = *src;
	dst->on_create.v = dst->on_start.v = NULL;
	dst->on_create.n = dst->on_start.n = 0;
	if (list_copy(&dst->on_create, &src->on_create) == -1 ||
	    list_copy(&dst->on_start, &src->on_start) == -1) {
		rc_autostart_free(dst);
		return -1;
	}
	return 0;
}

void
rc_autostart_free(struct rc_autostart *as)
{
	free(as->on_create.v);
	free(as->on_start.v);
	as->on_create.v = as->on_start.v = NULL;
	as->on_create.n = as->on_start.n = 0;
}

int
rc_step_timeout(const struct rc_autostart *as, const struct rc_step *st)
{
	if (st->timeout > 0)
		return st->timeout;
	return as->step_timeout > 0 ? as->step_timeout : RC_DEF_STEP_TIMEOUT;
}

static int
env_put(char (*out)[RC_AGENT_ENVNAME_MAX + RC_AGENT_ENVVAL_MAX + 2],
    int n, int max, const char *name, const char *value)
{
	size_t	len = strlen(name);
	int	i;

	for (i = 0; i < n; i++)
		if (strncmp(out[i], name, len) == 0 && out[i][len] == '=')
			break;
	if (i == n && n >= max)
		return -1;
	(void)snprintf(out[i], sizeof(out[i]), "%s=%s", name, value);
	return i == n ? n + 1 : n;
}

int
rc_step_env(const struct rc_envlist *base, const struct rc_autostart *as,
    const struct rc_step *st, char (*out)[RC_AGENT_ENVNAME_MAX +
    RC_AGENT_ENVVAL_MAX + 2], int max)
{
	size_t	i;
	int	n = 0, k;

	for (i = 0; base != NULL && i < base->n && n != -1; i++)
		n = env_put(out, n, max, base->v[i].name, base->v[i].value);
	for (k = 0; k < as->nenv && n != -1; k++)
		n = env_put(out, n, max, as->env[k].name, as->env[k].value);
	for (k = 0; k < st->nenv && n != -1; k++)
		n = env_put(out, n, max, st->env[k].name, st->env[k].value);
	return n;
}

static void
dump_env(FILE *fp, const char *indent, const struct rc_envkv *env, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		(void)fprintf(fp, "%s", indent);
		rc_put_str(fp, env[i].name);
		(void)fputs(": ", fp);
		rc_put_str(fp, env[i].value);
		(void)fputc('\n', fp);
	}
}

static void
dump_steps(FILE *fp, const char *key, const struct rc_steplist *l, int all)
{
	const struct rc_step	*st;
	size_t			 i;
	int			 k;

	if (!all && !l->reset && l->n == 0)
		return;
	(void)fprintf(fp, "  %s:%s\n", key, l->n == 0 ? " []" : "");
	for (i = 0; i < l->n; i++) {
		st = &l->v[i];
		(void)fputs("    - name: ", fp);
		rc_put_str(fp, st->name);
		(void)fputs("\n      run: ", fp);
		rc_put_str(fp, st->run);
		(void)fputc('\n', fp);
		if (st->network[0] != '\0')
			(void)fprintf(fp, "      network: %s\n", st->network);
		if (st->working_dir[0] != '\0') {
			(void)fputs("      working_dir: ", fp);
			rc_put_str(fp, st->working_dir);
			(void)fputc('\n', fp);
		}
		if (st->background)
			(void)fputs("      background: true\n", fp);
		if (st->timeout > 0)
			(void)fprintf(fp, "      timeout: %d\n", st->timeout);
		if (st->continue_on_error)
			(void)fputs("      continue_on_error: true\n", fp);
		if (st->nenv > 0) {
			(void)fputs("      env:\n", fp);
			dump_env(fp, "        ", st->env, st->nenv);
		}
		if (st->nmounts > 0)
			(void)fputs("      mounts:\n", fp);
		for (k = 0; k < st->nmounts; k++)
			(void)fprintf(fp, "        - %s\n", st->mounts[k]);
	}
}

void
rc_autostart_dump(const struct rc_autostart *as, int all, FILE *fp)
{
	if (!all && as->on_create.n == 0 && as->on_start.n == 0 &&
	    !as->on_create.reset && !as->on_start.reset &&
	    as->step_timeout == 0 && as->nenv == 0)
		return;
	(void)fputs("autostart:\n", fp);
	dump_steps(fp, "on_create", &as->on_create, all);
	dump_steps(fp, "on_start", &as->on_start, all);
	if (all || as->step_timeout > 0)
		(void)fprintf(fp, "  step_timeout: %d\n", as->step_timeout > 0 ?
		    as->step_timeout : RC_DEF_STEP_TIMEOUT);
	if (all || as->nenv > 0) {
		(void)fprintf(fp, "  env:%s\n", as->nenv == 0 ? " {}" : "");
		dump_env(fp, "    ", as->env, as->nenv);
	}
}

static int
line_add(char *out, size_t outlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
line_add(char *out, size_t outlen, const char *fmt, ...)
{
	va_list	ap;
	size_t	len = strlen(out);

	if (len + 1 < outlen) {
		va_start(ap, fmt);
		(void)vsnprintf(out + len, outlen - len, fmt, ap);
		va_end(ap);
	}
	return 1;
}

static const struct rc_step *
step_named(const struct rc_steplist *l, const char *name)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

static const struct rc_optional *
optional_named(const struct rc_optlist *l, const char *kind)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].kind, kind) == 0)
			return &l->v[i];
	return NULL;
}

/*
 * A step's mount is wider unless the default branch's step of that name
 * has it too and its optional_mounts entry names the same source, the
 * same target, and is read-only if base's is.
 */
static int
mount_wider(const struct repoconf *conf, const struct repoconf *base,
    const struct rc_step *b, const char *kind, const char **why)
{
	const struct rc_optional	*o, *bo;
	int				 k;

	for (k = 0; b != NULL && k < b->nmounts; k++)
		if (strcmp(b->mounts[k], kind) == 0)
			break;
	if (b == NULL || k == b->nmounts) {
		*why = b == NULL ? "a new step" : "not the default branch's";
		return 1;
	}
	o = optional_named(&conf->optional_mounts, kind);
	bo = optional_named(&base->optional_mounts, kind);
	*why = "its optional_mounts entry differs from the default branch's";
	return o != NULL && (bo == NULL || strcmp(o->m.host, bo->m.host) != 0 ||
	    strcmp(o->m.container, bo->m.container) != 0 ||
	    (bo->m.readonly && !o->m.readonly));
}

static int
steps_widen(const struct repoconf *conf, const struct repoconf *base,
    int create, char *out, size_t outlen)
{
	const struct rc_steplist *l = create ? &conf->autostart.on_create :
				    &conf->autostart.on_start;
	const struct rc_steplist *bl = create ? &base->autostart.on_create :
				    &base->autostart.on_start;
	const char		*trigger = create ? "on_create" : "on_start";
	const struct rc_optional *o;
	const struct rc_step	*b;
	const char		*why;
	size_t			 i;
	int			 n = 0, k;

	for (i = 0; i < l->n; i++) {
		b = step_named(bl, l->v[i].name);
		if (strcmp(l->v[i].network, "loose") == 0 && (b == NULL ||
		    strcmp(b->network, "loose") != 0))
			n += line_add(out, outlen, "+ autostart.%s %s: network: "
			    "loose (%s)\n", trigger, l->v[i].name, b == NULL ?
			    "a new step" : "strict on the default branch");
		for (k = 0; k < l->v[i].nmounts; k++) {
			if (!mount_wider(conf, base, b, l->v[i].mounts[k],
			    &why))
				continue;
			o = optional_named(&conf->optional_mounts,
			    l->v[i].mounts[k]);
			n += line_add(out, outlen, "+ autostart.%s %s: mounts: "
			    "%s (%s at %s%s; %s)\n", trigger, l->v[i].name,
			    l->v[i].mounts[k], o != NULL ? o->m.host : "?",
			    o != NULL ? o->m.container : "?", o != NULL &&
			    !o->m.readonly ? ", read-write" : "", why);
		}
	}
	return n;
}

/* the same shared entry: subpath, path and type alike */
static int
shared_in(const struct rc_agent_shared *s, const struct rc_agent *b)
{
	int	j;

	for (j = 0; b != NULL && j < b->nshared; j++)
		if (strcmp(s->subpath, b->shared[j].subpath) == 0 &&
		    strcmp(s->path, b->shared[j].path) == 0 &&
		    strcmp(s->type, b->shared[j].type) == 0)
			return 1;
	return 0;
}

int
rc_autostart_check(const struct rc_autostart *as,
    const struct rc_optlist *opt, char *err, size_t errlen)
{
	const struct rc_steplist	*l;
	size_t				 i;
	int				 t, k;

	for (t = 0; t < 2; t++) {
		l = t == 0 ? &as->on_create : &as->on_start;
		for (i = 0; i < l->n; i++)
			for (k = 0; k < l->v[i].nmounts; k++) {
				if (optional_named(opt, l->v[i].mounts[k]) !=
				    NULL)
					continue;
				(void)snprintf(err, errlen, "autostart.%s %s: "
				    "mounts: %s: no such optional_mounts entry "
				    "(a step's mounts name entries of "
				    "optional_mounts)", t == 0 ? "on_create" :
				    "on_start", l->v[i].name,
				    l->v[i].mounts[k]);
				return -1;
			}
	}
	return 0;
}

int
repoconf_widening(const struct repoconf *conf, const struct repoconf *base,
    const char *agent, char *out, size_t outlen)
{
	const struct rc_agent	*a, *b;
	size_t			 i;
	int			 n = 0, k, j;

	if (outlen > 0)
		out[0] = '\0';
	n += steps_widen(conf, base, 1, out, outlen);
	n += steps_widen(conf, base, 0, out, outlen);
	for (i = 0; i < conf->agents.n; i++) {
		a = &conf->agents.v[i];
		if (a->enabled != 1 && (agent == NULL ||
		    strcmp(agent, a->name) != 0))
			continue;
		b = repoconf_agent(base, a->name);
		if (strcmp(a->install_network, "loose") == 0 && (b == NULL ||
		    strcmp(b->install_network, "loose") != 0))
			n += line_add(out, outlen, "+ agents.%s.install_network: "
			    "loose\n", a->name);
		for (k = 0; k < a->negress; k++) {
			for (j = 0; b != NULL && j < b->negress; j++)
				if (strcmp(a->egress[k], b->egress[j]) == 0)
					break;
			if (b == NULL || j == b->negress)
				n += line_add(out, outlen, "+ agents.%s."
				    "egress_allow: %s\n", a->name, a->egress[k]);
		}
		for (k = 0; k < a->nshared; k++)
			if (!shared_in(&a->shared[k], b))
				n += line_add(out, outlen, "+ agents.%s.shared: "
				    "%s at %s (%s, read-write)\n", a->name,
				    a->shared[k].subpath, a->shared[k].path,
				    a->shared[k].type);
	}
	return n;
}
