/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SSHSEED_H
#define JB_SSHSEED_H

#include <stddef.h>

#include "jb_msg.h"
#include "gitdescribe.h"

#define SSHSEED_FILE_MAX	(1024 * 1024)	/* larger is not ssh config */
#define SSHSEED_FILES_MAX	256
#define SSHSEED_DEPTH_MAX	8

/*
 * ssh.enabled: make <mountdir>/ssh/<key> (0700, the owner's) and,
 * while it is empty, copy into it from the owner's ~/.ssh the top-level
 * config (0600), known_hosts (0644) and config.d/ recursively (0700
 * directories, 0600 files).  Nothing else of ~/.ssh is read.  0 with
 * *out filled, or -1 with a message in err.
 */
void	sshseed_init(const char *mountdir);
int	sshseed(const struct repo_owner *, const char *key, struct jb_ssh_dir *,
	    char *err, size_t errlen);

#endif /* JB_SSHSEED_H */
