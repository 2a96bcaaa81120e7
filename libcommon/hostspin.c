/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostspin.h"

#define NAME_MAX_LEN	253
#define LABEL_MAX	63

static int
valid_name(const char *s, size_t len)
{
	size_t	i, label = 0;

	if (len == 0 || len > NAME_MAX_LEN)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
		if (s[i] == '-' && label == 0)
			return 0;
		if (++label > LABEL_MAX)
			return 0;
	}
	return label > 0 && s[len - 1] != '-';
}

/* one line without its newline */
static int
valid_line(const char *s, size_t len)
{
	const char	*sp;
	char		 a[INET_ADDRSTRLEN];
	struct in_addr	 in;
	size_t		 alen;

	if ((sp = memchr(s, ' ', len)) == NULL)
		return 0;
	alen = (size_t)(sp - s);
	if (alen == 0 || alen >= sizeof(a))
		return 0;
	memcpy(a, s, alen);
	a[alen] = '\0';
	/* inet_pton takes dotted-quad decimal only, no short forms */
	if (inet_pton(AF_INET, a, &in) != 1)
		return 0;
	return valid_name(sp + 1, len - alen - 1);
}

int
hostspin_valid(const char *block, size_t len)
{
	const char	*nl;
	size_t		 off = 0;

	while (off < len) {
		if ((nl = memchr(block + off, '\n', len - off)) == NULL)
			return 0;
		if (!valid_line(block + off, (size_t)(nl - block) - off))
			return 0;
		off = (size_t)(nl - block) + 1;
	}
	return 1;
}

int
hostspin_line(uint32_t addr, const char *name, char *buf, size_t len)
{
	struct in_addr	in;
	char		a[INET_ADDRSTRLEN];
	int		n;

	if (!valid_name(name, strlen(name)))
		return -1;
	in.s_addr = htonl(addr);
	if (inet_ntop(AF_INET, &in, a, sizeof(a)) == NULL)
		return -1;
	n = snprintf(buf, len, "%s %s\n", a, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* the line at s (len bytes, no newline) is sentinel, trailing blanks aside */
static int
is_sentinel(const char *s, size_t len, const char *sentinel)
{
	size_t	sl = strlen(sentinel);

	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
	    s[len - 1] == '\r'))
		len--;
	return len == sl && memcmp(s, sentinel, sl) == 0;
}

/* the block between its sentinels at buf + *o */
static void
put_block(char *buf, size_t *o, const char *block, size_t blocklen)
{
	memcpy(buf + *o, HOSTSPIN_BEGIN "\n", sizeof(HOSTSPIN_BEGIN));
	*o += sizeof(HOSTSPIN_BEGIN);
	memcpy(buf + *o, block, blocklen);
	*o += blocklen;
	if (block[blocklen - 1] != '\n')
		buf[(*o)++] = '\n';
	memcpy(buf + *o, HOSTSPIN_END "\n", sizeof(HOSTSPIN_END));
	*o += sizeof(HOSTSPIN_END);
}

int
hostspin_merge(const char *old, size_t oldlen, const char *block,
    size_t blocklen, char **out, size_t *outlen)
{
	const char	*nl;
	char		*buf;
	size_t		 off = 0, end, ll, o = 0, cap;
	int		 inside = 0, placed = 0;

	*out = NULL;
	*outlen = 0;
	if (oldlen > HOSTSPIN_FILE_MAX || blocklen > HOSTSPIN_FILE_MAX)
		return -1;
	cap = oldlen + blocklen + sizeof(HOSTSPIN_BEGIN) +
	    sizeof(HOSTSPIN_END) + 3;
	if ((buf = malloc(cap)) == NULL)
		return -1;
	while (off < oldlen) {
		nl = memchr(old + off, '\n', oldlen - off);
		end = nl ? (size_t)(nl - old) + 1 : oldlen;
		ll = end - off - (nl ? 1 : 0);
		if (!inside && is_sentinel(old + off, ll, HOSTSPIN_BEGIN)) {
			inside = 1;
			/* where the block was: the user's lines stay put */
			if (!placed && blocklen > 0)
				put_block(buf, &o, block, blocklen);
			placed = 1;
		} else if (inside) {
			if (is_sentinel(old + off, ll, HOSTSPIN_END))
				inside = 0;
		} else {
			/* the user's line, as it was */
			memcpy(buf + o, old + off, end - off);
			o += end - off;
		}
		off = end;
	}
	if (!placed && blocklen > 0) {
		if (o > 0 && buf[o - 1] != '\n')
			buf[o++] = '\n';
		put_block(buf, &o, block, blocklen);
	}
	if (o > HOSTSPIN_FILE_MAX) {
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = o;
	return 0;
}
