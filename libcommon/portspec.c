/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdio.h>
#include <string.h>

#include "portspec.h"

int
port_name_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= PORT_NAME_MAX && s[0] != '-' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

int
port_proto_ok(const char *s)
{
	return strcmp(s, "tcp") == 0 || strcmp(s, "udp") == 0;
}

/* one decimal part of at most max, no leading zero; its length or 0 */
static size_t
decimal(const char *s, uint32_t max, uint32_t *v)
{
	size_t	i;

	*v = 0;
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i > 0 && s[0] == '0')
			return 0;
		*v = *v * 10 + (uint32_t)(s[i] - '0');
		if (*v > max)
			return 0;
	}
	return i;
}

/* the four parts of a dotted quad, or -1 */
static int
quad(const char *s, uint32_t part[4])
{
	size_t	n;
	int	i;

	for (i = 0; i < 4; i++) {
		if ((n = decimal(s, 255, &part[i])) == 0)
			return -1;
		s += n;
		if (i < 3 && *s++ != '.')
			return -1;
	}
	return *s == '\0' ? 0 : -1;
}

int
port_addr_ok(const char *s)
{
	uint32_t	p[4];

	return quad(s, p) == 0;
}

int
port_addr_loopback(const char *s)
{
	uint32_t	p[4];

	return quad(s, p) == 0 && p[0] == 127;
}

uint32_t
port_number(const char *s)
{
	uint32_t	v;
	size_t		n;

	if ((n = decimal(s, 65535, &v)) == 0 || s[n] != '\0' || v == 0)
		return 0;
	return v;
}

int
port_device(char *buf, size_t len, enum port_dir dir, const char *proto,
    uint32_t port, const char *cfgname)
{
	int	n;

	if (cfgname != NULL)
		n = snprintf(buf, len, "%s%s", PORT_CFG_PREFIX, cfgname);
	else
		n = snprintf(buf, len, "%s%s-%u", dir == PORT_TO_HOST ?
		    PORT_TH_PREFIX : PORT_TC_PREFIX, proto, port);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
port_device_ok(const char *d, enum port_dir *dir, char *proto,
    size_t protolen, uint32_t *port)
{
	enum port_dir	 dd;
	char		 p[4];
	uint32_t	 n;

	if (strncmp(d, PORT_CFG_PREFIX, strlen(PORT_CFG_PREFIX)) == 0) {
		if (!port_name_ok(d + strlen(PORT_CFG_PREFIX)))
			return 0;
		if (dir != NULL)
			*dir = PORT_TO_CONTAINER;
		if (proto != NULL && protolen > 0)
			proto[0] = '\0';
		if (port != NULL)
			*port = 0;
		return 1;
	}
	if (strncmp(d, PORT_TC_PREFIX, strlen(PORT_TC_PREFIX)) == 0)
		dd = PORT_TO_CONTAINER;
	else if (strncmp(d, PORT_TH_PREFIX, strlen(PORT_TH_PREFIX)) == 0)
		dd = PORT_TO_HOST;
	else
		return 0;
	d += strlen(PORT_TC_PREFIX);	/* the two prefixes are as long */
	if (strncmp(d, "tcp-", 4) != 0 && strncmp(d, "udp-", 4) != 0)
		return 0;
	memcpy(p, d, 3);
	p[3] = '\0';
	if ((n = port_number(d + 4)) == 0)
		return 0;
	if (dir != NULL)
		*dir = dd;
	if (proto != NULL)
		(void)strlcpy(proto, p, protolen);
	if (port != NULL)
		*port = n;
	return 1;
}

int
port_endpoint(char *buf, size_t len, const char *proto, const char *addr,
    uint32_t port)
{
	int	n;

	n = snprintf(buf, len, "%s:%s:%u", proto, addr, port);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
port_endpoint_parse(const char *s, char *proto, size_t protolen, char *addr,
    size_t addrlen, uint32_t *port)
{
	const char	*a, *c;
	char		 p[8], ad[16];
	uint32_t	 n;

	if ((a = strchr(s, ':')) == NULL || (size_t)(a - s) >= sizeof(p))
		return -1;
	memcpy(p, s, (size_t)(a - s));
	p[a - s] = '\0';
	a++;
	if ((c = strrchr(a, ':')) == NULL || (size_t)(c - a) >= sizeof(ad))
		return -1;
	memcpy(ad, a, (size_t)(c - a));
	ad[c - a] = '\0';
	if (!port_proto_ok(p) || !port_addr_ok(ad) ||
	    (n = port_number(c + 1)) == 0)
		return -1;
	if (strlcpy(proto, p, protolen) >= protolen ||
	    strlcpy(addr, ad, addrlen) >= addrlen)
		return -1;
	*port = n;
	return 0;
}
