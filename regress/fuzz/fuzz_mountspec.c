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
 * The mount parsers on any input: /proc/PID/mountinfo text (which a
 * container's own mounts shape) and the deadline file.  The first line
 * of the input is the path asked about, the rest the text.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mountspec.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jb_mount_deadline	 d;
	char				*buf, *nl, *text, root[256], err[256];
	char				 line[256];
	uint64_t			 dev;

	if ((buf = malloc(size + 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL) {
		*nl = '\0';
		text = nl + 1;
	} else
		text = buf + size;
	(void)mnt_info_find(text, buf, &dev, root, sizeof(root));
	(void)mnt_info_root_of(text, buf, dev, root, sizeof(root));
	(void)mnt_info_root_of(text, buf, 0, root, sizeof(root));
	(void)mnt_target_ok(buf, text, err, sizeof(err));
	{
		/* the first line against the rest as guarded paths */
		const struct mnt_guarded g[] = {
			{ text, "guarded", NULL, NULL },
			{ "", NULL, text, "agent-" },
			{ "/", "root", NULL, NULL },
		};

		(void)mnt_exposes(buf, "agent-a-0", g, 3, err, sizeof(err));
	}
	if (mnt_deadline_parse(buf, &d, err, sizeof(err)) == 0 &&
	    (mnt_deadline_fmt(&d, line, sizeof(line)) <= 0 ||
	    strncmp(line, buf, strlen(buf)) != 0))
		abort();	/* what parses prints back the same */
	free(buf);
	return 0;
}
