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
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <string.h>

#include "srcclass.h"

void
srcclass(const char *addr, char *out, size_t len)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;
	char		 buf[INET6_ADDRSTRLEN];

	if (inet_pton(AF_INET, addr, &a4) == 1) {
		if ((ntohl(a4.s_addr) >> 24) == 127)
			(void)strlcpy(out, SRCCLASS_LOOPBACK, len);
		else
			(void)strlcpy(out, addr, len);
		return;
	}
	if (inet_pton(AF_INET6, addr, &a6) == 1) {
		if (IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) &&
		    a6.s6_addr[12] == 127)) {
			(void)strlcpy(out, SRCCLASS_LOOPBACK, len);
			return;
		}
		if (IN6_IS_ADDR_V4MAPPED(&a6)) {
			(void)snprintf(out, len, "%u.%u.%u.%u",
			    a6.s6_addr[12], a6.s6_addr[13], a6.s6_addr[14],
			    a6.s6_addr[15]);
			return;
		}
		memset(a6.s6_addr + 8, 0, 8);
		if (inet_ntop(AF_INET6, &a6, buf, sizeof(buf)) != NULL) {
			(void)snprintf(out, len, "%s/64", buf);
			return;
		}
	}
	(void)strlcpy(out, addr, len);
}

int
srcclass_loopback(const char *cls)
{
	return strcmp(cls, SRCCLASS_LOOPBACK) == 0;
}
