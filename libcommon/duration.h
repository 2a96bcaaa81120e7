/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_DURATION_H
#define JB_DURATION_H

#include <stddef.h>
#include <stdint.h>

#define DURATION_MAX_DEFAULT	(24 * 60 * 60)	/* 24h, as the original */

/*
 * Parse a duration: one or more <n><unit> groups with units s, m, h, in
 * strictly decreasing order ("30s", "45m", "4h", "1h30m"), or a bare
 * integer meaning minutes (as the original accepts).  The result in
 * seconds must satisfy min <= d <= max.  Returns 0, or -1 with a message
 * naming the input and the accepted forms in err.
 */
int	duration_parse(const char *s, int64_t min, int64_t max, int64_t *secs,
	    char *err, size_t errlen);
/* format secs as the shortest "1h30m", "45s", "0s"; returns buf */
char	*duration_fmt(int64_t secs, char *buf, size_t len);

#endif /* JB_DURATION_H */
