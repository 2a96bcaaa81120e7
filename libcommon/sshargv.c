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

#include "sshargv.h"

/* unquoted, these would mean something to a shell: refused, not passed */
static const char	shell_syntax[] = "|;&<>`$()";

static int
fail(char *err, size_t errlen, const char *msg, size_t at)
{
	(void)snprintf(err, errlen, "%s (at byte %zu)", msg, at + 1);
	return -1;
}

int
sshargv_split(const char *line, size_t len, char *out, size_t outlen,
    int *argc, char *err, size_t errlen)
{
	size_t		 i, o = 0;
	int		 n = 0, inword = 0;
	char		 quote = 0;
	unsigned char	 ch;

	*argc = 0;
	if (outlen == 0)
		return fail(err, errlen, "no room", 0);
	for (i = 0; i < len; i++) {
		ch = (unsigned char)line[i];
		if (ch < 0x20 && ch != '\t')
			return fail(err, errlen, "control character in the "
			    "command", i);
		if (ch == 0x7f)
			return fail(err, errlen, "control character in the "
			    "command", i);
		if (quote == '\'') {
			if (ch == '\'') {
				quote = 0;
				continue;
			}
		} else if (quote == '"') {
			if (ch == '"') {
				quote = 0;
				continue;
			}
			if (ch == '\\' && i + 1 < len &&
			    (line[i + 1] == '"' || line[i + 1] == '\\'))
				ch = (unsigned char)line[++i];
		} else {
			if (ch == ' ' || ch == '\t') {
				if (inword) {
					if (o >= outlen)
						return fail(err, errlen,
						    "command too long", i);
					out[o++] = '\0';
					inword = 0;
				}
				continue;
			}
			if (ch == '\'' || ch == '"') {
				quote = (char)ch;
				if (!inword) {
					if (n == SSHARGV_MAXARGS)
						return fail(err, errlen,
						    "too many words", i);
					n++;
					inword = 1;
				}
				continue;
			}
			if (strchr(shell_syntax, ch) != NULL)
				return fail(err, errlen, "shell syntax is not "
				    "supported here; quote the character to "
				    "pass it as text", i);
			if (ch == '\\') {
				if (i + 1 >= len)
					return fail(err, errlen, "backslash at "
					    "the end of the command", i);
				ch = (unsigned char)line[++i];
				if (ch < 0x20 || ch == 0x7f)
					return fail(err, errlen, "control "
					    "character in the command", i);
			}
		}
		if (!inword) {
			if (n == SSHARGV_MAXARGS)
				return fail(err, errlen, "too many words", i);
			n++;
			inword = 1;
		}
		if (o + 1 >= outlen)
			return fail(err, errlen, "command too long", i);
		out[o++] = (char)ch;
	}
	if (quote != 0)
		return fail(err, errlen, quote == '"' ? "unterminated \"" :
		    "unterminated '", len == 0 ? 0 : len - 1);
	if (inword) {
		if (o >= outlen)
			return fail(err, errlen, "command too long", len);
		out[o++] = '\0';
	}
	if (n == 0)
		return fail(err, errlen, "empty command", 0);
	*argc = n;
	return 0;
}
