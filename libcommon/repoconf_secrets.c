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
 * secrets: the map of host-held values (repoconf_secrets.h): where each
 * may be declared, what a name, a file, a host and a header may be.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repoconf.h"
#include "repoconf_agents.h"
#include "repoconf_secrets.h"

#define RC_LOCAL_PATTERN \
	"${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/<container_prefix>.yaml"

static const char *
local_path(const struct repoconf *c)
{
	return c->paths.local[0] != '\0' ? c->paths.local : RC_LOCAL_PATTERN;
}

int
rc_secret_name_ok(const char *s)
{
	size_t	i;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
	    s[0] == '_'))
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return i <= RC_SECRET_NAME_MAX;
}

/* a lowercase DNS name of two labels or more, not all digits and dots */
static int
dns_name_ok(const char *s)
{
	size_t	i, label = 0, len = strlen(s);
	int	dots = 0, alpha = 0;

	if (len == 0 || len > RC_SECRET_HOST_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
			dots++;
			continue;
		}
		if (s[i] == '-') {
			if (label == 0)
				return 0;
		} else if (s[i] >= 'a' && s[i] <= 'z')
			alpha = 1;
		else if (!(s[i] >= '0' && s[i] <= '9'))
			return 0;
		if (++label > 63)
			return 0;
	}
	return label > 0 && s[len - 1] != '-' && dots > 0 && alpha;
}

int
rc_secret_host_ok(const char *s)
{
	if (strncmp(s, "*.", 2) == 0)
		return dns_name_ok(s + 2);
	return dns_name_ok(s);
}

int
rc_secret_host_matches(const char *pattern, const char *host)
{
	size_t	hl = strlen(host), dl;

	if (strncmp(pattern, "*.", 2) != 0)
		return strcmp(pattern, host) == 0;
	/* *.domain: any name below domain, not domain itself */
	dl = strlen(pattern) - 1;	/* ".domain" */
	return hl > dl && strcmp(host + hl - dl, pattern + 1) == 0;
}

int
rc_secret_matches(const struct rc_secret *s, const char *host)
{
	int	i;

	for (i = 0; i < s->nhosts; i++)
		if (rc_secret_host_matches(s->hosts[i], host))
			return 1;
	return 0;
}

/* an HTTP header name (RFC 9110 token) */
static int
header_ok(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    strchr("!#$%&'*+-.^_`|~", s[i]) != NULL))
			return 0;
	return i > 0 && i <= RC_SECRET_HEADER_MAX;
}

static int
scalar_str(const struct yt_node *v)
{
	return v->kind == YT_SCALAR && v->sval == YT_SV_STR;
}

static int
secret_hosts(struct yt_ctx *ctx, const struct yt_node *v,
    struct rc_secret *s)
{
	const struct yt_node	*it;
	size_t			 i, saved;

	if (v->kind != YT_SEQUENCE || v->nitems == 0)
		return yt_error(ctx, v, "expected a list of one host or more "
		    "([api.example.com, \"*.example.com\"]), got %s",
		    yt_describe(v));
	if (v->nitems > RC_SECRET_HOSTS_MAX)
		return yt_error(ctx, v, "more than %d hosts",
		    RC_SECRET_HOSTS_MAX);
	for (i = 0; i < v->nitems; i++) {
		it = v->items[i];
		saved = yt_path_push_index(ctx, i);
		if (!scalar_str(it) || !rc_secret_host_ok(it->str))
			return yt_error(ctx, it, "not a host name: a lowercase "
			    "DNS name of two labels or more (api.example.com), "
			    "or *. and one (\"*.example.com\")");
		(void)strlcpy(s->hosts[i], it->str, sizeof(s->hosts[i]));
		yt_path_pop(ctx, saved);
	}
	s->nhosts = (int)v->nitems;
	return 0;
}

/* one NAME: {file, hosts, header} into s */
static int
secret_entry(struct yt_ctx *ctx, const struct yt_node *n,
    struct rc_secret *s)
{
	const struct yt_node	*k, *v;
	size_t			 i, saved;
	int			 have_file = 0, have_hosts = 0;

	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping {file: PATH, "
		    "hosts: [HOST, ...], header: NAME}, got %s",
		    yt_describe(n));
	for (i = 0; i < n->npairs; i++) {
		k = n->pairs[i].key;
		v = n->pairs[i].val;
		saved = yt_path_push(ctx, k->str);
		if (strcmp(k->str, "file") == 0) {
			if (!scalar_str(v) || v->len > RC_SECRET_FILE_MAX ||
			    !(v->str[0] == '/' || strncmp(v->str, "~/", 2) ==
			    0) || strstr(v->str, "/../") != NULL ||
			    (v->len >= 3 && strcmp(v->str + v->len - 3,
			    "/..") == 0))
				return yt_error(ctx, v, "expected the path of "
				    "the file holding the value: absolute or "
				    "~/..., no \"..\", at most %d bytes",
				    RC_SECRET_FILE_MAX);
			(void)strlcpy(s->file, v->str, sizeof(s->file));
			have_file = 1;
		} else if (strcmp(k->str, "hosts") == 0) {
			if (secret_hosts(ctx, v, s) == -1)
				return -1;
			have_hosts = 1;
		} else if (strcmp(k->str, "header") == 0) {
			if (yt_is_null(v))
				s->header[0] = '\0';
			else if (!scalar_str(v) || !header_ok(v->str))
				return yt_error(ctx, v, "not an HTTP header "
				    "name (as in Authorization), at most %d "
				    "bytes", RC_SECRET_HEADER_MAX);
			else
				(void)strlcpy(s->header, v->str,
				    sizeof(s->header));
		} else
			return yt_error(ctx, k, "unknown key (a secret takes "
			    "file, hosts and header)");
		yt_path_pop(ctx, saved);
	}
	if (!have_file)
		return yt_error(ctx, n, "file is missing: the path of the "
		    "file holding the value (mode 0600)");
	if (!have_hosts)
		return yt_error(ctx, n, "hosts is missing: the hosts the value "
		    "is sent to");
	return 0;
}

int
rc_secrets(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct repoconf		*c = dst;
	struct rc_secret	 s;
	const struct yt_node	*k, *v;
	size_t			 i, saved;
	int			 j;

	if (c->applying == RC_LAYER_REPO)
		return yt_error(ctx, n, "not allowed in the repo's config: "
		    "secrets are the host's: declare them in the host-local "
		    "file %s (mode 0600) or in global.yaml", local_path(c));
	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of NAME: {file: "
		    "PATH, hosts: [HOST, ...], header: NAME}, got %s",
		    yt_describe(n));
	for (i = 0; i < n->npairs; i++) {
		k = n->pairs[i].key;
		v = n->pairs[i].val;
		saved = yt_path_push(ctx, k->str);
		if (!rc_secret_name_ok(k->str))
			return yt_error(ctx, k, "not a secret name: the name "
			    "of an environment variable ([A-Za-z_][A-Za-z0-9_]*"
			    ", at most %d bytes)", RC_SECRET_NAME_MAX);
		for (j = 0; j < c->nsecrets; j++)
			if (strcmp(c->secrets[j].name, k->str) == 0)
				break;
		if (yt_is_null(v)) {
			if (j < c->nsecrets) {
				memmove(&c->secrets[j], &c->secrets[j + 1],
				    (size_t)(c->nsecrets - j - 1) *
				    sizeof(c->secrets[0]));
				c->nsecrets--;
				memset(&c->secrets[c->nsecrets], 0,
				    sizeof(c->secrets[0]));
			}
			yt_path_pop(ctx, saved);
			continue;
		}
		memset(&s, 0, sizeof(s));
		(void)strlcpy(s.name, k->str, sizeof(s.name));
		if (secret_entry(ctx, v, &s) == -1)
			return -1;
		if (j == c->nsecrets) {
			if (j >= RC_SECRETS_MAX)
				return yt_error(ctx, k, "more than %d secrets",
				    RC_SECRETS_MAX);
			c->nsecrets++;
		}
		c->secrets[j] = s;
		yt_path_pop(ctx, saved);
	}
	return 0;
}

void
rc_secrets_dump(const struct repoconf *c, FILE *fp)
{
	int	i, j;

	if (c->nsecrets == 0)
		return;
	(void)fputs("secrets:\n", fp);
	for (i = 0; i < c->nsecrets; i++) {
		(void)fprintf(fp, "  %s:\n    file: ", c->secrets[i].name);
		rc_put_str(fp, c->secrets[i].file);
		(void)fputs("\n    hosts:\n", fp);
		for (j = 0; j < c->secrets[i].nhosts; j++)
			(void)fprintf(fp, "      - \"%s\"\n",
			    c->secrets[i].hosts[j]);
		if (c->secrets[i].header[0] != '\0')
		{
			(void)fputs("    header: ", fp);
			rc_put_str(fp, c->secrets[i].header);
			(void)fputc('\n', fp);
		}
	}
}

int
rc_secrets_finish(const struct repoconf *c, char *err, size_t errlen)
{
	size_t	i;
	int	j;

	for (j = 0; j < c->nsecrets; j++)
		for (i = 0; i < c->env.n; i++)
			if (strcmp(c->env.v[i].name, c->secrets[j].name) == 0) {
				(void)snprintf(err, errlen, "secrets.%s: "
				    "container.env also sets %s: remove one of "
				    "them (a secret's name is the variable that "
				    "holds its placeholder in the container)",
				    c->secrets[j].name, c->secrets[j].name);
				return -1;
			}
	return 0;
}

void
rc_secret_placeholder(char *out, size_t outlen)
{
	static const char	hex[] = "0123456789abcdef";
	unsigned char		r[16];
	char			buf[RC_PLACEHOLDER_LEN + 1];
	size_t			i, o;

	arc4random_buf(r, sizeof(r));
	o = strlcpy(buf, RC_SECRET_PREFIX, sizeof(buf));
	for (i = 0; i < sizeof(r); i++) {
		buf[o++] = hex[r[i] >> 4];
		buf[o++] = hex[r[i] & 15];
	}
	buf[o] = '\0';
	(void)strlcpy(out, buf, outlen);
}
