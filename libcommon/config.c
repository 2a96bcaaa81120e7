/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addralloc.h"
#include "config.h"
#include "proc.h"
#include "repoconf.h"
#include "yamltree.h"

#define SUN_PATH_MAX	(sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1)
#define URL_FORMS	"use unix:/absolute/path or https://host[:port], the " \
			"host a DNS name, an IPv4 address or an [IPv6] address"

static int	valid_owner(const char *, char *, size_t);
static int	valid_socket(const char *, char *, size_t);
static int	valid_url(const char *, char *, size_t);
static int	valid_ifname(const char *, char *, size_t);
static int	valid_upstream(const char *, char *, size_t);
static int	valid_member(const char *, char *, size_t);
static int	private_list(struct yt_ctx *, const struct yt_node *, void *);

static const struct yt_field incus_fields[] = {
	{ .key = "url", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, incus_url),
	  .size = sizeof(((struct jb_conf *)NULL)->incus_url),
	  .valid = valid_url },
	{ .key = "bridge", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, bridge),
	  .size = sizeof(((struct jb_conf *)NULL)->bridge),
	  .valid = valid_ifname },
	{ .key = "client_cert", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, incus_cert),
	  .size = sizeof(((struct jb_conf *)NULL)->incus_cert) },
	{ .key = "client_key", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, incus_key),
	  .size = sizeof(((struct jb_conf *)NULL)->incus_key) },
	{ .key = "server_cert", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, incus_ca),
	  .size = sizeof(((struct jb_conf *)NULL)->incus_ca) },
	{ .key = NULL }
};

static int	valid_listen(const char *, char *, size_t);
static int	valid_mode(const char *, char *, size_t);
static int	valid_leaf(const char *, char *, size_t);
static int	valid_prefix(const char *, char *, size_t);

static int	allow_list(struct yt_ctx *, const struct yt_node *, void *);
static int	excluded_list(struct yt_ctx *, const struct yt_node *,
		    void *);

static const struct yt_field ssh_cmd_fields[] = {
	{ .key = "mode", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, ssh_mode),
	  .size = sizeof(((struct jb_conf *)NULL)->ssh_mode),
	  .valid = valid_mode },
	{ .key = "allow", .type = YT_CUSTOM, .fn = allow_list },
	{ .key = NULL }
};

static int	roots_list(struct yt_ctx *, const struct yt_node *, void *);

static const struct yt_field ssh_fields[] = {
	{ .key = "listen", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, ssh_listen),
	  .size = sizeof(((struct jb_conf *)NULL)->ssh_listen),
	  .valid = valid_listen },
	{ .key = "authorized_keys", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, ssh_keys),
	  .size = sizeof(((struct jb_conf *)NULL)->ssh_keys) },
	{ .key = "restrict_host", .type = YT_BOOL,
	  .off = offsetof(struct jb_conf, ssh_restrict_host) },
	{ .key = "commands", .type = YT_MAP, .sub = ssh_cmd_fields },
	{ .key = "excluded_repos", .type = YT_CUSTOM, .fn = excluded_list },
	{ .key = "mounts", .type = YT_BOOL,
	  .off = offsetof(struct jb_conf, ssh_mounts) },
	{ .key = "mount_roots", .type = YT_CUSTOM, .fn = roots_list },
	{ .key = "network", .type = YT_BOOL,
	  .off = offsetof(struct jb_conf, ssh_network) },
	{ .key = "files", .type = YT_BOOL,
	  .off = offsetof(struct jb_conf, ssh_files) },
	{ .key = "journal_max_kib", .type = YT_INT,
	  .off = offsetof(struct jb_conf, ssh_journal_max_kib),
	  .size = sizeof(int), .min = 16, .max = 1048576 },
	{ .key = "journal_keep", .type = YT_INT,
	  .off = offsetof(struct jb_conf, ssh_journal_keep),
	  .size = sizeof(int), .min = 1, .max = JB_JOURNAL_KEEP_MAX },
	{ .key = "max_unauthenticated_per_source", .type = YT_INT,
	  .off = offsetof(struct jb_conf, ssh_max_unauth),
	  .size = sizeof(int), .min = 1, .max = 256 },
	{ .key = "refusals_per_minute", .type = YT_INT,
	  .off = offsetof(struct jb_conf, ssh_refusals_per_min),
	  .size = sizeof(int), .min = 1, .max = 100000 },
	{ .key = NULL }
};

static const struct yt_field remote_fields[] = {
	{ .key = "ssh", .type = YT_MAP, .sub = ssh_fields },
	{ .key = NULL }
};

/* jb-netd's resolver */
static const struct yt_field resolver_fields[] = {
	{ .key = "upstream", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, resolver_upstream),
	  .size = sizeof(((struct jb_conf *)NULL)->resolver_upstream),
	  .valid = valid_upstream },
	{ .key = "private_networks", .type = YT_CUSTOM, .fn = private_list },
	{ .key = NULL }
};

static int	valid_subnet(const char *, char *, size_t);
static int	gw_port_list(struct yt_ctx *, const struct yt_node *, void *);
static int	proxy_port(struct yt_ctx *, const struct yt_node *, void *);

/* the bridge's subnet, which container addresses come from */
static const struct yt_field network_fields[] = {
	{ .key = "subnet", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, subnet),
	  .size = sizeof(((struct jb_conf *)NULL)->subnet),
	  .valid = valid_subnet },
	{ .key = "trust_host_cas", .type = YT_BOOL,
	  .off = offsetof(struct jb_conf, trust_host_cas) },
	{ .key = "gateway_ports", .type = YT_CUSTOM, .fn = gw_port_list },
	{ .key = "gateway_trust", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, gw_trust),
	  .size = sizeof(((struct jb_conf *)NULL)->gw_trust) },
	{ .key = "proxy_port", .type = YT_CUSTOM, .fn = proxy_port },
	{ .key = "proxy_env", .type = YT_BOOL,
	  .off = offsetof(struct jb_conf, proxy_env) },
	{ .key = NULL }
};

/* the Incus cluster member this suite runs on and enforces */
static const struct yt_field cluster_fields[] = {
	{ .key = "member", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, cluster_member),
	  .size = sizeof(((struct jb_conf *)NULL)->cluster_member),
	  .valid = valid_member },
	{ .key = NULL }
};

static const struct yt_field conf_fields[] = {
	{ .key = "owner", .type = YT_STRING,
	  .off = offsetof(struct jb_conf, owner),
	  .size = sizeof(((struct jb_conf *)NULL)->owner),
	  .valid = valid_owner },
	{ .key = "socket", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, socket),
	  .size = sizeof(((struct jb_conf *)NULL)->socket),
	  .valid = valid_socket },
	{ .key = "state_dir", .type = YT_PATH,
	  .off = offsetof(struct jb_conf, state_dir),
	  .size = sizeof(((struct jb_conf *)NULL)->state_dir) },
	{ .key = "incus", .type = YT_MAP, .sub = incus_fields },
	{ .key = "resolver", .type = YT_MAP, .sub = resolver_fields },
	{ .key = "network", .type = YT_MAP, .sub = network_fields },
	{ .key = "remote", .type = YT_MAP, .sub = remote_fields },
	{ .key = "cluster", .type = YT_MAP, .sub = cluster_fields },
	{ .key = NULL }
};

/* the resolver jb-netd asks: one IPv4 address, port 53 */
static int
valid_upstream(const char *s, char *why, size_t whylen)
{
	struct in_addr	in;

	if (inet_pton(AF_INET, s, &in) != 1) {
		(void)snprintf(why, whylen, "not an IPv4 address (the "
		    "resolver jb-netd asks on port 53, e.g. 192.0.2.53)");
		return -1;
	}
	return 0;
}

/*
 * A range of resolver.private_networks: A.B.C.D/N with host bits clear,
 * /4 (all of multicast) to /32 (one address)
 */
static int
valid_private(const char *s, char *why, size_t whylen)
{
	uint32_t	a, n;

	return addr_cidr_parse(s, 0, 4, 32, &a, &n, why, whylen);
}

/*
 * A.B.C.D/N, /16 to /24: a /24 leaves 221 container addresses above the
 * 32 regress/incus-up gives DHCP; a /16 is the most the allocator maps
 */
static int
valid_subnet(const char *s, char *why, size_t whylen)
{
	uint32_t	a, n;

	return addr_cidr_parse(s, 0, ADDR_SUBNET_MIN, ADDR_SUBNET_MAX, &a,
	    &n, why, whylen);
}

/* ADDR:PORT with an IPv4 or [IPv6] literal, or "off" */
static int
valid_listen(const char *s, char *why, size_t whylen)
{
	struct sockaddr_storage	ss;

	if (strcmp(s, "off") == 0 || conf_listen_addr(s, &ss) == 0)
		return 0;
	(void)snprintf(why, whylen, "not ADDR:PORT (an IPv4 address or "
	    "[IPv6] address and a port 1-65535) nor off");
	return -1;
}

static int
valid_mode(const char *s, char *why, size_t whylen)
{
	if (strcmp(s, "full") == 0 || strcmp(s, "allowlist") == 0 ||
	    strcmp(s, "disabled") == 0)
		return 0;
	(void)snprintf(why, whylen, "one of full, allowlist, disabled");
	return -1;
}

/* a command leaf as typed: words of [a-z0-9-] separated by one space */
static int
valid_leaf(const char *s, char *why, size_t whylen)
{
	size_t	i, n = strlen(s);

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		    (s[i] == ' ' && i > 0 && i + 1 < n && s[i - 1] != ' ')))
			break;
	if (n > 0 && i == n)
		return 0;
	(void)snprintf(why, whylen, "not a command (words such as \"ls\" "
	    "or \"snapshot ls\")");
	return -1;
}

/* a container_prefix: lowercase letters, digits, '-' */
static int
valid_prefix(const char *s, char *why, size_t whylen)
{
	/* the one syntax the repository configuration gives a prefix */
	if (name_prefix_ok(s))
		return 0;
	(void)snprintf(why, whylen, "not a container prefix (%s)",
	    NAME_PREFIX_FORM);
	return -1;
}

/* a sequence of strings into fixed slots, each vetted */
static int
str_list(struct yt_ctx *ctx, const struct yt_node *n, char (*v)[48],
    int *count, int (*valid)(const char *, char *, size_t))
{
	char	buf[48], why[128];
	size_t	i, saved;

	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a list, found %s",
		    yt_describe(n));
	if (n->nitems > JB_SSH_LIST_MAX)
		return yt_error(ctx, n, "at most %d entries", JB_SSH_LIST_MAX);
	*count = 0;
	for (i = 0; i < n->nitems; i++) {
		saved = yt_path_push_index(ctx, i);
		if (yt_get_str(ctx, n->items[i], buf, sizeof(buf)) == -1)
			return -1;
		if (valid(buf, why, sizeof(why)) == -1)
			return yt_error(ctx, n->items[i], "%s", why);
		yt_path_pop(ctx, saved);
		strlcpy(v[(*count)++], buf, sizeof(v[0]));
	}
	return 0;
}

/* a TCP port of the egress gateway: 1-65535, not DNS's */
static int
valid_gw_port(const char *s, char *why, size_t whylen)
{
	const char	*e;
	long		 v;

	v = strtonum(s, 1, 65535, &e);
	if (e != NULL || v == 53 || s[0] == '0') {
		(void)snprintf(why, whylen, "\"%s\": a gateway port is a TCP "
		    "port 1-65535 other than 53 (e.g. 443)", s);
		return -1;
	}
	return 0;
}

static int
gw_port_list(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_conf	*c = base;
	int		 i, j;

	if (yt_is_null(n)) {
		c->gw_nports = 0;
		return 0;
	}
	if (n->kind == YT_SEQUENCE && n->nitems > JB_GW_PORTS_MAX)
		return yt_error(ctx, n, "at most %d gateway ports",
		    JB_GW_PORTS_MAX);
	if (str_list(ctx, n, c->gw_ports, &c->gw_nports, valid_gw_port) == -1)
		return -1;
	for (i = 0; i < c->gw_nports; i++)
		for (j = 0; j < i; j++)
			if (strtonum(c->gw_ports[i], 1, 65535, NULL) ==
			    strtonum(c->gw_ports[j], 1, 65535, NULL))
				return yt_error(ctx, n, "port %s is listed "
				    "twice", c->gw_ports[i]);
	return 0;
}

/*
 * network.proxy_port: the explicit proxy's TCP port on the bridge
 * address, 0 for none; not one the suite listens on there already
 */
static int
proxy_port(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_conf	*c = base;
	const char	*e = NULL;
	long long	 v;

	if (n->kind != YT_SCALAR || n->sval != YT_SV_INT ||
	    (v = strtonum(n->str, 0, 65535, &e), e != NULL) ||
	    (n->str[0] == '0' && n->str[1] != '\0'))
		return yt_error(ctx, n, "a TCP port 1-65535, or 0 for no "
		    "explicit proxy (default 3128)");
	if (v == 53 || v == JB_EGRESS_PORT || v == 10053)
		return yt_error(ctx, n, "port %lld is the suite's own on the "
		    "bridge address (DNS, the gateway, the resolver): choose "
		    "another, e.g. 3128", v);
	c->proxy_port = (int)v;
	return 0;
}

static int
allow_list(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_conf	*c = base;

	return str_list(ctx, n, c->ssh_allow, &c->ssh_nallow, valid_leaf);
}

static int
private_list(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_conf	*c = base;

	if (yt_is_null(n)) {
		c->resolver_nprivate = 0;
		return 0;
	}
	return str_list(ctx, n, c->resolver_private, &c->resolver_nprivate,
	    valid_private);
}

static int
excluded_list(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_conf	*c = base;

	return str_list(ctx, n, c->ssh_excluded, &c->ssh_nexcluded,
	    valid_prefix);
}

/*
 * A mount root is compared with a realpath for exact equality:
 * one that is not in that form ("//", "/./", a trailing "/") could never
 * match, so it is refused here rather than ignored.
 */
static int
valid_root(const char *s, char *why, size_t whylen)
{
	char	tmp[128];

	if (yt_check_path(s, tmp, sizeof(tmp)) == -1) {
		(void)snprintf(why, whylen, "%s", tmp);
		return -1;
	}
	if (strcmp(s, "/") == 0 || strstr(s, "//") != NULL ||
	    strstr(s, "/./") != NULL || s[strlen(s) - 1] == '/' ||
	    (strlen(s) >= 2 && strcmp(s + strlen(s) - 2, "/.") == 0)) {
		(void)snprintf(why, whylen, "not a resolved directory path "
		    "(no \"//\", \".\", trailing \"/\", not \"/\"): "
		    "it is compared exactly with a mount's real path");
		return -1;
	}
	return 0;
}

static int
root_repos(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_mount_root	*r = base;

	if (n->nitems > JB_ROOT_REPOS_MAX)
		return yt_error(ctx, n, "at most %d entries",
		    JB_ROOT_REPOS_MAX);
	return str_list(ctx, n, r->repos, &r->nrepos, valid_prefix);
}

static const struct yt_field root_fields[] = {
	{ .key = "path", .type = YT_PATH, .flags = YT_REQUIRED,
	  .off = offsetof(struct jb_mount_root, path),
	  .size = sizeof(((struct jb_mount_root *)NULL)->path),
	  .valid = valid_root },
	{ .key = "readonly", .type = YT_BOOL,
	  .off = offsetof(struct jb_mount_root, readonly) },
	{ .key = "repos", .type = YT_CUSTOM, .fn = root_repos },
	{ .key = NULL }
};

static int
roots_list(struct yt_ctx *ctx, const struct yt_node *n, void *base)
{
	struct jb_conf		*c = base;
	struct jb_mount_root	*r;
	size_t			 i, saved;
	int			 j;

	if (yt_is_null(n)) {
		c->ssh_nroots = 0;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a list of {path, readonly, "
		    "repos}, found %s", yt_describe(n));
	if (n->nitems > JB_ROOTS_MAX)
		return yt_error(ctx, n, "at most %d entries", JB_ROOTS_MAX);
	c->ssh_nroots = 0;
	for (i = 0; i < n->nitems; i++) {
		r = &c->ssh_roots[i];
		memset(r, 0, sizeof(*r));
		r->readonly = 1;
		saved = yt_path_push_index(ctx, i);
		if (n->items[i]->kind != YT_MAPPING)
			return yt_error(ctx, n->items[i], "expected a mapping "
			    "{path, readonly, repos}, found %s",
			    yt_describe(n->items[i]));
		if (yt_apply(ctx, n->items[i], root_fields, r) == -1)
			return -1;
		for (j = 0; j < (int)i; j++)
			if (strcmp(c->ssh_roots[j].path, r->path) == 0) {
				(void)yt_path_push(ctx, "path");
				return yt_error(ctx, yt_get(n->items[i],
				    "path"), "%s is listed twice", r->path);
			}
		yt_path_pop(ctx, saved);
		c->ssh_nroots++;
	}
	return 0;
}

int
conf_listen_addr(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;
	char			 host[INET6_ADDRSTRLEN + 1];
	const char		*c;
	char			*end;
	size_t			 len;
	long			 port;
	int			 v6 = s[0] == '[';

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		if ((c = strchr(s, ']')) == NULL || c[1] != ':')
			return -1;
		len = (size_t)(c - s - 1);
		s++;
		c++;
	} else {
		if ((c = strrchr(s, ':')) == NULL)
			return -1;
		len = (size_t)(c - s);
	}
	if (len == 0 || len >= sizeof(host))
		return -1;
	memcpy(host, s, len);
	host[len] = '\0';
	if (c[1] < '0' || c[1] > '9')
		return -1;
	errno = 0;
	port = strtol(c + 1, &end, 10);
	if (errno != 0 || *end != '\0' || port < 1 || port > 65535)
		return -1;
	if (v6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1 ?
		    0 : -1;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

/* a login name as useradd(8) takes it; the caller resolves it */
static int
valid_owner(const char *s, char *why, size_t whylen)
{
	size_t	len = strlen(s), i;
	int	ok = len > 0 && len < JB_OWNER_MAX &&
		    ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_');

	for (i = 1; ok && i < len; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-')
			continue;
		if (s[i] == '$' && i == len - 1)
			continue;
		ok = 0;
	}
	if (!ok)
		(void)snprintf(why, whylen, "not a login name "
		    "([a-z_][a-z0-9_-]*[$]?, at most %d characters)",
		    JB_OWNER_MAX - 1);
	return ok ? 0 : -1;
}

static int
valid_socket(const char *s, char *why, size_t whylen)
{
	if (strlen(s) > SUN_PATH_MAX) {
		(void)snprintf(why, whylen, "too long for a unix socket "
		    "(at most %zu bytes)", SUN_PATH_MAX);
		return -1;
	}
	return 0;
}

/* RFC 1123 host name: dot-separated labels of letters, digits, hyphens */
static int
valid_dnsname(const char *s, size_t len)
{
	size_t	i, label = 0;

	if (len == 0 || len > 253)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
		if (label == 0 && s[i] == '-')
			return 0;
		if (++label > 63)
			return 0;
	}
	return label > 0 && s[len - 1] != '-';
}

static int
url_fail(char *why, size_t whylen, const char *what)
{
	(void)snprintf(why, whylen, "%s (%s)", what, URL_FORMS);
	return -1;
}

static int
valid_https(const char *h, char *why, size_t whylen)
{
	const char	*end, *rest;
	char		 host[INET6_ADDRSTRLEN + 1];
	unsigned char	 addr[sizeof(struct in6_addr)];
	size_t		 len, i;
	long		 port;

	if (h[0] == '[') {
		if ((end = strchr(h, ']')) == NULL)
			return url_fail(why, whylen, "unclosed [ in the host");
		len = (size_t)(end - h - 1);
		if (len >= sizeof(host))
			return url_fail(why, whylen, "bad IPv6 address");
		memcpy(host, h + 1, len);
		host[len] = '\0';
		if (inet_pton(AF_INET6, host, addr) != 1)
			return url_fail(why, whylen, "bad IPv6 address");
		rest = end + 1;
	} else {
		len = strcspn(h, ":/?#");
		rest = h + len;
		if (len == 0)
			return url_fail(why, whylen, "no host");
		if (strspn(h, "0123456789.") >= len) {
			/* all digits and dots: only a dotted quad will do */
			if (len >= sizeof(host))
				return url_fail(why, whylen,
				    "bad IPv4 address");
			memcpy(host, h, len);
			host[len] = '\0';
			if (inet_pton(AF_INET, host, addr) != 1)
				return url_fail(why, whylen,
				    "bad IPv4 address");
		} else if (!valid_dnsname(h, len))
			return url_fail(why, whylen, "bad host name");
	}
	if (*rest == '\0')
		return 0;
	if (*rest != ':')
		return url_fail(why, whylen,
		    "unexpected text after the host (no path)");
	rest++;
	len = strlen(rest);
	if (len == 0 || len > 5)
		return url_fail(why, whylen, "port must be 1-65535");
	for (i = 0, port = 0; i < len; i++) {
		if (rest[i] < '0' || rest[i] > '9')
			return url_fail(why, whylen, "port must be 1-65535");
		port = port * 10 + (rest[i] - '0');
	}
	if (port < 1 || port > 65535)
		return url_fail(why, whylen, "port must be 1-65535");
	return 0;
}

static int
valid_url(const char *s, char *why, size_t whylen)
{
	char	tmp[128];

	if (strncmp(s, "unix:", 5) == 0) {
		if (yt_check_path(s + 5, tmp, sizeof(tmp)) == -1) {
			(void)snprintf(why, whylen, "unix: socket path %s",
			    tmp);
			return -1;
		}
		if (strlen(s + 5) > SUN_PATH_MAX) {
			(void)snprintf(why, whylen, "unix: socket path too "
			    "long (at most %zu bytes)", SUN_PATH_MAX);
			return -1;
		}
		return 0;
	}
	if (strncmp(s, "https://", 8) == 0)
		return valid_https(s + 8, why, whylen);
	return url_fail(why, whylen, "not a supported URL");
}

/* a Linux interface name: 1-15 of [A-Za-z0-9_.-], not "." or ".." */
static int
valid_ifname(const char *s, char *why, size_t whylen)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 15 || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-") != n ||
	    strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
		(void)snprintf(why, whylen, "not an interface name (1-15 of "
		    "letters, digits, '_', '.', '-')");
		return -1;
	}
	return 0;
}

/*
 * An Incus cluster member's name, as `incus cluster list` shows it:
 * 1-63 of letters, digits and '-', not starting or ending with '-'.
 */
static int
valid_member(const char *s, char *why, size_t whylen)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 63 || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-") != n || s[0] == '-' ||
	    s[n - 1] == '-') {
		(void)snprintf(why, whylen, "not an Incus cluster member name "
		    "(1-63 of letters, digits and '-', as `incus cluster "
		    "list` shows it)");
		return -1;
	}
	return 0;
}

void
conf_defaults(struct jb_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	(void)strlcpy(conf->socket, JB_SOCKET_PATH, sizeof(conf->socket));
	(void)strlcpy(conf->state_dir, JB_STATE_DIR, sizeof(conf->state_dir));
	(void)strlcpy(conf->incus_url, JB_INCUS_URL, sizeof(conf->incus_url));
	(void)strlcpy(conf->bridge, JB_BRIDGE, sizeof(conf->bridge));
	(void)strlcpy(conf->ssh_listen, JB_SSH_LISTEN,
	    sizeof(conf->ssh_listen));
	conf->ssh_restrict_host = 1;
	(void)strlcpy(conf->ssh_mode, "full", sizeof(conf->ssh_mode));
	conf->ssh_files = -1;
	conf->ssh_journal_max_kib = 10240;
	conf->ssh_journal_keep = 5;
	/* behind a tunnel every client is 127.0.0.1: not too few */
	conf->ssh_max_unauth = 128;
	conf->ssh_refusals_per_min = 60;
	(void)strlcpy(conf->subnet, ADDR_SUBNET_DEFAULT, sizeof(conf->subnet));
	(void)strlcpy(conf->gw_ports[0], "443", sizeof(conf->gw_ports[0]));
	(void)strlcpy(conf->gw_ports[1], "80", sizeof(conf->gw_ports[1]));
	conf->gw_nports = 2;
	(void)strlcpy(conf->gw_trust, JB_GW_TRUST_DEFAULT,
	    sizeof(conf->gw_trust));
	conf->proxy_port = JB_PROXY_PORT;
}

int
conf_parse(const char *name, const char *buf, size_t len,
    struct jb_conf *conf, char *err, size_t errlen)
{
	struct jb_conf	*tmp;
	struct yt_node	*root;
	struct yt_ctx	 ctx;
	int		 rc;

	if (yt_load(name, buf, len, &root, err, errlen) == -1)
		return -1;
	/* build aside, so a failure leaves *conf as it was */
	if ((tmp = malloc(sizeof(*tmp))) == NULL) {
		yt_free(root);
		(void)snprintf(err, errlen, "%s: %s",
		    name != NULL ? name : "<input>", strerror(errno));
		return -1;
	}
	conf_defaults(tmp);
	yt_ctx_init(&ctx, name, err, errlen);
	rc = yt_apply(&ctx, root, conf_fields, tmp);
	if (rc == 0 && strncmp(tmp->incus_url, "https://", 8) == 0 &&
	    (tmp->incus_cert[0] == '\0' || tmp->incus_key[0] == '\0' ||
	    tmp->incus_ca[0] == '\0')) {
		(void)yt_path_push(&ctx, "incus");
		rc = yt_error(&ctx, yt_get(root, "incus"), "an https url needs "
		    "client_cert, client_key and server_cert");
	}
	/* exclusions are a host restriction; they need it on */
	if (rc == 0 && tmp->ssh_nexcluded > 0 && !tmp->ssh_restrict_host) {
		(void)yt_path_push(&ctx, "remote");
		(void)yt_path_push(&ctx, "ssh");
		rc = yt_error(&ctx, yt_get(yt_get(root, "remote"), "ssh"),
		    "excluded_repos needs restrict_host: true");
	}
	/* a root is a host restriction's exception; it needs it */
	if (rc == 0 && tmp->ssh_nroots > 0 && !tmp->ssh_restrict_host) {
		(void)yt_path_push(&ctx, "remote");
		(void)yt_path_push(&ctx, "ssh");
		rc = yt_error(&ctx, yt_get(yt_get(root, "remote"), "ssh"),
		    "mount_roots needs restrict_host: true");
	}
	yt_free(root);
	if (rc == 0)
		*conf = *tmp;
	free(tmp);
	return rc;
}

int
conf_load(const char *path, int missing_ok, struct jb_conf *conf,
    char *err, size_t errlen)
{
	char	*buf;
	size_t	 len;
	int	 rc;

	if (yt_read_file(path, &buf, &len, err, errlen) == -1) {
		if (errno == ENOENT && missing_ok) {
			conf_defaults(conf);
			return 0;
		}
		return -1;
	}
	rc = conf_parse(path, buf, len, conf, err, errlen);
	free(buf);
	return rc;
}

/* remote.ssh.files: an explicit value wins; unset, on under full only */
int
conf_ssh_files(const struct jb_conf *conf)
{
	if (conf->ssh_files != -1)
		return conf->ssh_files != 0;
	return strcmp(conf->ssh_mode, "full") == 0;
}
