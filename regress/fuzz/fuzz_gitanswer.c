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
 * What jb-mountd reads of git's answers: rev-parse's work tree, HEAD's
 * commit and ref in one answer (repo_top_head), for-each-ref's lines
 * (repo_ref_find) and a list of names (repo_lines).  Each must stay
 * inside the answer, and what repo_top_head hands back must be what it
 * promises: a work tree of the answer's bytes, a full object name, and
 * "HEAD" or a ref.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitdescribe.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char	*copy, *top, *sha, *ref, *lines[8], target[64];

	/* an exact-size copy plus its NUL, as repo_run leaves an answer */
	if ((copy = malloc(len + 1)) == NULL)
		abort();
	memcpy(copy, data, len);
	copy[len] = '\0';
	if (repo_top_head(copy, len, &top, &sha, &ref) == 0) {
		if (top < copy || top >= copy + len || *top == '\0' ||
		    !repo_sha_ok(sha) || sha <= top || ref <= sha ||
		    ref >= copy + len ||
		    (strcmp(ref, "HEAD") != 0 && strncmp(ref, "refs/", 5) != 0))
			abort();
	}
	memcpy(copy, data, len);
	copy[len] = '\0';
	target[0] = '\0';
	if (memchr(copy, '\0', len) == NULL) {
		(void)repo_ref_find(copy, "refs/heads/main", target,
		    sizeof(target));
		if (strlen(target) >= sizeof(target))
			abort();
		(void)repo_lines(copy, lines, 8);
	}
	free(copy);
	return 0;
}
