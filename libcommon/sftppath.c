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
 * Paths of the SFTP virtual tree.  The parent judges every path a
 * session sends with sftppath_split() (the session is not trusted to
 * have done it); jb-sshd's session answers REALPATH with
 * sftppath_canon(), which touches no container.
 */

#include <string.h>

#include "sftppath.h"

#define NAME_MAX_BYTES	255

/*
 * The length of the one well-formed UTF-8 sequence of at least 2 bytes
 * at s (left bytes there), or 0: no overlong form, no surrogate, nothing
 * past U+10FFFF
 */
size_t
sftppath_utf8_seq(const unsigned char *s, size_t left)
{
	size_t	n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > left || (s[1] & 0xc0) != 0x80 ||
	    (s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f) ||
	    (n > 2 && (s[2] & 0xc0) != 0x80) ||
	    (n > 3 && (s[3] & 0xc0) != 0x80))
		return 0;
	return n;
}

/* well-formed UTF-8, no control character (DEL) */
int
sftppath_utf8(const char *p, size_t len)
{
	const unsigned char	*s = (const unsigned char *)p;
	size_t			 i, n;
	unsigned int		 c;

	for (i = 0; i < len; i += n) {
		c = s[i];
		if (c < 0x20 || c == 0x7f)
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
sftppath_split(const char *path, char *ctr, size_t clen, char *rel,
    size_t rlen, const char **why)
{
	const char	*p = path, *e;
	size_t		 n, off = 0;
	int		 first = 1;

	*why = NULL;
	if (clen == 0 || rlen < 2)
		return -1;
	ctr[0] = '\0';
	if (strlen(path) >= 1024) {
		*why = "path too long";
		return -1;
	}
	if (!sftppath_utf8(path, strlen(path))) {
		*why = "name not UTF-8";
		return -1;
	}
	if (*p != '/') {
		*why = "path not absolute";
		return -1;
	}
	rel[0] = '\0';
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		n = e == NULL ? strlen(p) : (size_t)(e - p);
		p += n;
		if (n == 1 && p[-1] == '.')
			continue;
		if (n == 2 && p[-1] == '.' && p[-2] == '.') {
			*why = "path leaves the repository (..)";
			return -1;
		}
		if (n > NAME_MAX_BYTES) {
			*why = "name too long";
			return -1;
		}
		if (first) {
			if (n >= clen) {
				*why = "no such container";
				return -1;
			}
			memcpy(ctr, p - n, n);
			ctr[n] = '\0';
			first = 0;
			continue;
		}
		if (off + (off > 0) + n + 1 > rlen) {
			*why = "path too long";
			return -1;
		}
		if (off > 0)
			rel[off++] = '/';
		memcpy(rel + off, p - n, n);
		off += n;
		rel[off] = '\0';
	}
	if (first)
		return SFTPPATH_ROOT;
	if (off == 0) {
		rel[0] = '.';
		rel[1] = '\0';
		return SFTPPATH_TOP;
	}
	return SFTPPATH_IN;
}

/* cwd (absolute, or NULL for "/") joined with path, ".." lexical */
int
sftppath_canon(const char *cwd, const char *path, char *out, size_t len)
{
	const char	*srcs[2];
	const char	*p, *e;
	size_t		 n, off = 0;
	int		 i;

	if (len < 2)
		return -1;
	srcs[0] = path[0] == '/' || cwd == NULL ? "" : cwd;
	srcs[1] = path;
	out[0] = '\0';
	for (i = 0; i < 2; i++) {
		for (p = srcs[i];;) {
			while (*p == '/')
				p++;
			if (*p == '\0')
				break;
			e = strchr(p, '/');
			n = e == NULL ? strlen(p) : (size_t)(e - p);
			p += n;
			if (n == 1 && p[-1] == '.')
				continue;
			if (n == 2 && p[-1] == '.' && p[-2] == '.') {
				while (off > 0 && out[--off] != '/')
					;
				out[off] = '\0';
				continue;
			}
			if (off + 1 + n + 1 > len)
				return -1;
			out[off++] = '/';
			memcpy(out + off, p - n, n);
			off += n;
			out[off] = '\0';
		}
	}
	if (off == 0) {
		out[0] = '/';
		out[1] = '\0';
	}
	return 0;
}
