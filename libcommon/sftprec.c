/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* the helper's records, decoded as the hostile bytes they are */

#include <string.h>

#include "sftppath.h"
#include "sftprec.h"
#include "termsafe.h"

/* a name must be UTF-8 with no NUL or slash: the client sees it */
static int
name_ok(const char *p, size_t len)
{
	const unsigned char	*s = (const unsigned char *)p;
	size_t			 i, n;
	unsigned int		 c;

	for (i = 0; i < len; i += n) {
		c = s[i];
		if (c == 0 || c == '/')
			return 0;
		if (c < 0x80) {
			n = 1;
			continue;
		}
		if ((n = sftppath_utf8_seq(s + i, len - i)) == 0)
			return 0;
	}
	return 1;
}

int
sftprec_next(const void *buf, size_t len, struct sftprec *r, size_t *used)
{
	struct sftprec_hdr	 h;
	const char		*p = buf;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	switch (h.type) {
	case SFTPREC_STATUS:
		if (h.len != sizeof(int32_t))
			return -1;
		break;
	case SFTPREC_ATTR:
		if (h.len < sizeof(r->attr) ||
		    h.len > sizeof(r->attr) + SFTPREC_NAME_MAX)
			return -1;
		break;
	case SFTPREC_LINK:
		if (h.len == 0 || h.len > SFTPREC_LINK_MAX)
			return -1;
		break;
	default:
		return -1;
	}
	if (len - sizeof(h) < h.len)
		return 0;
	p += sizeof(h);
	memset(r, 0, sizeof(*r));
	r->type = h.type;
	switch (h.type) {
	case SFTPREC_STATUS:
		memcpy(&r->status, p, sizeof(r->status));
		if (r->status < 0 || r->status > 4095)
			return -1;
		break;
	case SFTPREC_ATTR:
		memcpy(&r->attr, p, sizeof(r->attr));
		if (r->attr.namelen != h.len - sizeof(r->attr))
			return -1;
		memcpy(r->name, p + sizeof(r->attr), r->attr.namelen);
		if (!name_ok(r->name, r->attr.namelen))
			return -1;
		/* the container chose it, a client's terminal shows it */
		termsafe(r->name);
		break;
	case SFTPREC_LINK:
		memcpy(r->name, p, h.len);
		if (memchr(r->name, '\0', h.len) != NULL)
			return -1;
		termsafe(r->name);
		break;
	}
	*used = sizeof(h) + h.len;
	return 1;
}
