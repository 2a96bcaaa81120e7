/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SSHARGV_H
#define JB_SSHARGV_H

#include <stddef.h>

/*
 * An SSH exec request is one string; no shell ever sees it.  It is split
 * into words here, by these rules only (jb-sshd(8) repeats them):
 * blanks (space, tab) separate words; '...' keeps everything literally;
 * inside "..." a backslash escapes only " and \; outside quotes a
 * backslash keeps the next character.  Unquoted shell syntax (| ; & < >
 * ` $ ( )) and any control character anywhere are refused rather than
 * passed on, so nothing looks like a pipe that is not one.
 */
#define SSHARGV_MAXARGS		127

/*
 * Split line (len bytes, NUL bytes refused) into out, as NUL-separated
 * words (the packed form of struct jb_ctl_cmd), *argc words.  0, or -1
 * with a sentence in err.
 */
int	sshargv_split(const char *line, size_t len, char *out, size_t outlen,
	    int *argc, char *err, size_t errlen);

#endif /* JB_SSHARGV_H */
