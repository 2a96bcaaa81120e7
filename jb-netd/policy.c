/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "policy.h"

#define POLICY_SHOW	64	/* entry bytes quoted in a message */
#define LABEL_MAX	63
#define IPV4_FORMS	"four decimal numbers 0-255 without leading zeros, " \
			"e.g. 192.0.2.7"
#define NAME_FORMS	"letters, digits and hyphens in dot-separated " \
			"labels, e.g. api.example.com"

/*
 * The entry comes from a config file or a command line: escape control
 * bytes and quotes and cap the length so a message stays one short line.
 */
static void
policy_quote(const char *s, char *buf, size_t len)
{
	size_t	i, o = 0, n;
	char	tmp[8];

	for (i = 0; s[i] != '\0' && i < POLICY_SHOW; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			(void)snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else {
			tmp[0] = (char)c;
			tmp[1] = '\0';
		}
		n = strlen(tmp);
		if (o + n + 4 > len)
			break;
		memcpy(buf + o, tmp, n);
		o += n;
	}
	if (s[i] != '\0' && o + 4 <= len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	if (len > 0)
		buf[o < len ? o : len - 1] = '\0';
}

static int __attribute__((format(printf, 4, 5)))
policy_err(const char *s, char *err, size_t errlen, const char *fmt, ...)
{
	char	q[POLICY_SHOW * 4 + 4], why[256];
	va_list	ap;

	if (err == NULL || errlen == 0)
		return -1;
	va_start(ap, fmt);
	(void)vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	policy_quote(s, q, sizeof(q));
	(void)snprintf(err, errlen, "egress_allow entry \"%s\": %s", q, why);
	return -1;
}

static int
is_digits(const char *s, size_t n)
{
	size_t	i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * A decimal number of at most maxdigits digits without leading zeros;
 * 0 and the value, or -1.  Strictness here is what refuses "010.0.0.1"
 * (octal to inet_aton) and "08" alike.
 */
static int
dec_parse(const char *s, size_t n, size_t maxdigits, uint32_t *v)
{
	size_t		i;
	uint32_t	x = 0;

	if (!is_digits(s, n) || n > maxdigits || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++)
		x = x * 10 + (uint32_t)(s[i] - '0');
	*v = x;
	return 0;
}

/* exactly a.b.c.d, each 0-255 */
static int
ipv4_parse(const char *s, uint32_t *addr)
{
	const char	*p = s, *dot;
	uint32_t	 a = 0, v;
	int		 i;

	for (i = 0; i < 4; i++) {
		dot = strchr(p, '.');
		if ((i < 3) != (dot != NULL))
			return -1;
		if (dot == NULL)
			dot = p + strlen(p);
		if (dec_parse(p, (size_t)(dot - p), 3, &v) == -1 || v > 255)
			return -1;
		a = a << 8 | v;
		p = dot + 1;
	}
	*addr = a;
	return 0;
}

static uint32_t
prefix_mask(unsigned int len)
{
	return len == 0 ? 0 : 0xffffffffU << (32 - len);
}

static void
ipv4_fmt(uint32_t a, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%u.%u.%u.%u", a >> 24, a >> 16 & 0xff,
	    a >> 8 & 0xff, a & 0xff);
}

/*
 * Why s (lower case, no trailing dot) is not an RFC 1123 host name, or
 * NULL if it is one.
 */
static const char *
name_problem(const char *s)
{
	const char	*label = s, *p;
	size_t		 n;

	if (*s == '\0')
		return "the name is empty";
	if (strlen(s) > EGRESS_NAME_MAX)
		return "a name may have at most 253 characters";
	for (p = s;; p++) {
		if (*p != '.' && *p != '\0') {
			if ((*p < 'a' || *p > 'z') && (*p < '0' || *p > '9') &&
			    *p != '-')
				return "a name may hold only " NAME_FORMS;
			continue;
		}
		n = (size_t)(p - label);
		if (n == 0)
			return "empty label (a leading dot or two dots "
			    "in a row)";
		if (n > LABEL_MAX)
			return "a label may have at most 63 characters";
		if (label[0] == '-' || label[n - 1] == '-')
			return "a label may not begin or end with a hyphen";
		if (*p == '\0')
			break;
		label = p + 1;
	}
	return NULL;
}

/* the last label is all digits: the text was meant as an address */
static int
name_is_numeric(const char *s)
{
	const char	*last = strrchr(s, '.');

	last = last == NULL ? s : last + 1;
	return is_digits(last, strlen(last));
}

/*
 * Fold case and drop one trailing dot of s into buf (EGRESS_NAME_MAX + 1
 * bytes); -1 if it does not fit.
 */
static int
name_fold(const char *s, char *buf)
{
	size_t	i, n;

	n = strnlen(s, EGRESS_NAME_MAX + 2);
	if (n > 0 && s[n - 1] == '.')
		n--;
	if (n > EGRESS_NAME_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') :
		    (char)c;
	}
	buf[n] = '\0';
	return 0;
}

int
policy_valid_hostname(const char *s)
{
	char	buf[EGRESS_NAME_MAX + 1];

	if (name_fold(s, buf) == -1 || name_problem(buf) != NULL)
		return 0;
	return !name_is_numeric(buf);
}

/* host part "a.b.c.d/len" into e */
static int
parse_cidr(const char *s, char *host, struct egress_entry *e, char *err,
    size_t errlen)
{
	char		*slash = strchr(host, '/'), net[20];
	uint32_t	 len;

	*slash++ = '\0';
	if (ipv4_parse(host, &e->addr) == -1)
		return policy_err(s, err, errlen, "\"%s\" is not an IPv4 "
		    "network address (" IPV4_FORMS ", then /0-32)", host);
	if (dec_parse(slash, strlen(slash), 2, &len) == -1 || len > 32)
		return policy_err(s, err, errlen, "prefix length must be "
		    "0-32 without leading zeros, as in 10.0.0.0/8");
	if ((e->addr & ~prefix_mask(len)) != 0) {
		ipv4_fmt(e->addr & prefix_mask(len), net, sizeof(net));
		return policy_err(s, err, errlen, "host bits are set after "
		    "the /%u prefix; did you mean %s/%u?", len, net, len);
	}
	e->kind = EGRESS_CIDR;
	e->prefixlen = (uint8_t)len;
	return 0;
}

/* host part "*.domain" into e */
static int
parse_wildcard(const char *s, const char *host, struct egress_entry *e,
    char *err, size_t errlen)
{
	const char	*why;

	if (strncmp(host, "*.", 2) != 0 || strchr(host + 2, '*') != NULL)
		return policy_err(s, err, errlen, "\"*\" may only be the whole "
		    "first label, as in *.example.com");
	if (host[2] == '\0')
		return policy_err(s, err, errlen, "a domain must follow "
		    "\"*.\", as in *.example.com");
	if (name_fold(host + 2, e->name) == -1)
		return policy_err(s, err, errlen, "a name may have at most "
		    "253 characters");
	if ((why = name_problem(e->name)) != NULL)
		return policy_err(s, err, errlen, "%s", why);
	if (name_is_numeric(e->name))
		return policy_err(s, err, errlen, "a wildcard needs a domain "
		    "name, not an address, as in *.example.com");
	if (strchr(e->name, '.') == NULL)
		return policy_err(s, err, errlen, "a wildcard must cover a "
		    "domain of at least two labels (*.example.com, not "
		    "*.%s)", e->name);
	e->kind = EGRESS_WILDCARD;
	return 0;
}

/* host part as a name or a lone address into e */
static int
parse_host(const char *s, const char *host, struct egress_entry *e,
    char *err, size_t errlen)
{
	const char	*why;

	if (name_fold(host, e->name) == -1)
		return policy_err(s, err, errlen, "a name may have at most "
		    "253 characters");
	if ((why = name_problem(e->name)) != NULL)
		return policy_err(s, err, errlen, "%s", why);
	if (name_is_numeric(e->name)) {
		if (ipv4_parse(host, &e->addr) == -1)
			return policy_err(s, err, errlen, "\"%s\" is not an "
			    "IPv4 address (" IPV4_FORMS ")", host);
		e->name[0] = '\0';
		e->kind = EGRESS_ADDR;
		e->prefixlen = 32;
		return 0;
	}
	e->kind = EGRESS_NAME;
	return 0;
}

/* the text after ':' */
static int
parse_port(const char *s, const char *p, struct egress_entry *e, char *err,
    size_t errlen)
{
	const char	*dash = strchr(p, '-');
	uint32_t	 v;

	if (*p == '\0')
		return policy_err(s, err, errlen, "a port number 1-65535 "
		    "must follow ':'");
	if (dash != NULL && is_digits(p, (size_t)(dash - p)) &&
	    is_digits(dash + 1, strlen(dash + 1)))
		return policy_err(s, err, errlen, "port ranges are not "
		    "supported; give each port as its own entry");
	if (!is_digits(p, strlen(p)))
		return policy_err(s, err, errlen, "port must be a number "
		    "1-65535");
	if (p[0] == '0' && p[1] != '\0')
		return policy_err(s, err, errlen, "port must be 1-65535 "
		    "without leading zeros");
	if (dec_parse(p, strlen(p), 5, &v) == -1 || v < 1 || v > 65535)
		return policy_err(s, err, errlen, "port must be 1-65535");
	e->port = (uint16_t)v;
	return 0;
}

int
policy_parse_entry(const char *s, struct egress_entry *out, char *err,
    size_t errlen)
{
	struct egress_entry	 e;
	char			 buf[EGRESS_ENTRY_MAX + 1], *p, *slash, *colon;
	size_t			 len, i;
	int			 has_proto = 0;

	memset(&e, 0, sizeof(e));
	len = strnlen(s, EGRESS_ENTRY_MAX + 1);
	if (len == 0)
		return policy_err(s, err, errlen, "empty; give a host, "
		    "address, network or *.domain, optionally with :port");
	if (len > EGRESS_ENTRY_MAX)
		return policy_err(s, err, errlen, "longer than %d characters",
		    EGRESS_ENTRY_MAX);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80)
			return policy_err(s, err, errlen, "not ASCII; give an "
			    "internationalised name in its xn-- form");
		if (c <= ' ' || c == 0x7f)
			return policy_err(s, err, errlen, "contains a space "
			    "or control character");
	}
	memcpy(buf, s, len + 1);

	if (strstr(buf, "://") != NULL)
		return policy_err(s, err, errlen, "a URL; give just the host "
		    "and, if needed, :port");
	if (strchr(buf, '[') != NULL || ((p = strchr(buf, ':')) != NULL &&
	    strchr(p + 1, ':') != NULL))
		return policy_err(s, err, errlen, "IPv6 is not supported "
		    "(containers' IPv6 is dropped); give an IPv4 address "
		    "or a host name");

	/* "/tcp" or "/udp" last; a digit after '/' is a CIDR prefix */
	if ((slash = strrchr(buf, '/')) != NULL && slash[1] != '\0' &&
	    (slash[1] < '0' || slash[1] > '9')) {
		if (strcasecmp(slash + 1, "tcp") == 0)
			e.proto = EGRESS_PROTO_TCP;
		else if (strcasecmp(slash + 1, "udp") == 0)
			e.proto = EGRESS_PROTO_UDP;
		else
			return policy_err(s, err, errlen, "unknown protocol "
			    "\"%.16s\" (use /tcp or /udp after a port)",
			    slash + 1);
		*slash = '\0';
		has_proto = 1;
	}
	if ((colon = strchr(buf, ':')) != NULL) {
		*colon = '\0';
		if (parse_port(s, colon + 1, &e, err, errlen) == -1)
			return -1;
		if (!has_proto)
			e.proto = EGRESS_PROTO_TCP;
	} else if (has_proto)
		return policy_err(s, err, errlen, "a protocol needs a port, "
		    "as in host:53/udp (no port allows every protocol)");

	if (buf[0] == '\0')
		return policy_err(s, err, errlen, "a host, address, network "
		    "or *.domain must come before the port");
	if (strchr(buf, '*') != NULL) {
		if (parse_wildcard(s, buf, &e, err, errlen) == -1)
			return -1;
	} else if (strchr(buf, '/') != NULL) {
		if (parse_cidr(s, buf, &e, err, errlen) == -1)
			return -1;
	} else if (parse_host(s, buf, &e, err, errlen) == -1)
		return -1;
	*out = e;
	return 0;
}

char *
policy_entry_fmt(const struct egress_entry *e, char *buf, size_t len)
{
	char	host[EGRESS_NAME_MAX + 3], port[16] = "";

	switch (e->kind) {
	case EGRESS_NAME:
		(void)snprintf(host, sizeof(host), "%.*s", EGRESS_NAME_MAX,
		    e->name);
		break;
	case EGRESS_WILDCARD:
		(void)snprintf(host, sizeof(host), "*.%.*s", EGRESS_NAME_MAX,
		    e->name);
		break;
	case EGRESS_ADDR:
		ipv4_fmt(e->addr, host, sizeof(host));
		break;
	case EGRESS_CIDR:
		ipv4_fmt(e->addr, host, sizeof(host));
		(void)snprintf(host + strlen(host), sizeof(host) - strlen(host),
		    "/%u", (unsigned int)e->prefixlen);
		break;
	default:
		(void)strlcpy(host, "?", sizeof(host));
		break;
	}
	if (e->port != 0)
		(void)snprintf(port, sizeof(port), ":%u%s",
		    (unsigned int)e->port,
		    e->proto == EGRESS_PROTO_UDP ? "/udp" : "");
	(void)snprintf(buf, len, "%s%s", host, port);
	return buf;
}

size_t
policy_name_allowed(const struct egress_entry *e, size_t n,
    const char *qname, size_t *idx, size_t maxidx)
{
	char	q[EGRESS_NAME_MAX + 1];
	size_t	i, ql, dl, found = 0;
	int	hit;

	if (name_fold(qname, q) == -1 || name_problem(q) != NULL)
		return 0;
	ql = strlen(q);
	for (i = 0; i < n; i++) {
		dl = strnlen(e[i].name, sizeof(e[i].name));
		if (dl == 0 || dl == sizeof(e[i].name))
			continue;
		switch (e[i].kind) {
		case EGRESS_NAME:
			hit = ql == dl && memcmp(q, e[i].name, dl) == 0;
			break;
		case EGRESS_WILDCARD:
			/* the dot keeps out "evilexample.com" */
			hit = ql > dl + 1 && q[ql - dl - 1] == '.' &&
			    memcmp(q + ql - dl, e[i].name, dl) == 0;
			break;
		default:
			hit = 0;
			break;
		}
		if (!hit)
			continue;
		if (found < maxidx)
			idx[found] = i;
		found++;
	}
	return found;
}
