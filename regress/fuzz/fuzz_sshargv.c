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
 * libFuzzer target for an SSH exec line: split (sshargv.c), then judged
 * (sshpolicy.c) in each mode.  Besides the sanitizers it checks the
 * promises: a split yields exactly argc NUL-terminated words inside the
 * buffer, none holding a control character, a refusal says why, and an
 * admitted command carries only options the table knows, never a
 * path-typed one nor new --mount.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jb_msg.h"
#include "sshargv.h"
#include "sshpolicy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
judge(const struct sshp_conf *pc, int argc, char **argv)
{
	struct jb_ctl_cmd	*cmd;
	struct sshp_result	 r;
	int			 k;

	if ((cmd = malloc(sizeof(*cmd))) == NULL)
		return;
	if (sshpolicy_decide(pc, argc, argv, cmd, &r) == -1) {
		if (r.err[0] == '\0' || r.reason == NULL)
			abort();
		free(cmd);
		return;
	}
	if (pc->mode == SSHP_DISABLED)
		abort();
	if (r.cmd != NULL && !r.help) {
		if (cmd->id != (uint32_t)r.cmd->id)
			abort();
		for (k = 0; k < JB_OPTS_MAX; k++) {
			if (!(cmd->optset & (1U << k)))
				continue;
			if (k >= CMD_MAXOPTS || r.cmd->opts[k].lname == NULL ||
			    r.cmd->opts[k].is_path)
				abort();
			if (r.cmd->id == CMD_NEW &&
			    strcmp(r.cmd->opts[k].lname, "mount") == 0)
				abort();
		}
		/* mount alone passes, and only when unlocked */
		if (pc->restrict_host &&
		    sshpolicy_host(r.cmd->id) != SSHP_HOST_ALLOWED &&
		    !(r.cmd->id == CMD_MOUNT && pc->mount_unlocked))
			abort();
	}
	free(cmd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char	 allow[2][48] = { "ls", "snapshot ls" };
	struct sshp_conf	 full = { SSHP_FULL, 1, NULL, 0, 0, 0, 0 };
	struct sshp_conf	 open_host = { SSHP_FULL, 0, NULL, 0, 0, 0, 0 };
	struct sshp_conf	 al = { SSHP_ALLOWLIST, 1, allow, 2, 0, 0, 0 };
	struct sshp_conf	 off = { SSHP_DISABLED, 1, NULL, 0, 0, 0, 0 };
	struct sshp_conf	 mounts = { SSHP_FULL, 1, NULL, 0, 0, 1, 0 };
	char			 out[JB_ARGV_MAX], err[256];
	char			*argv[SSHARGV_MAXARGS + 1], *p;
	int			 argc, i;
	size_t			 used;

	if (sshargv_split((const char *)data, size, out, sizeof(out), &argc,
	    err, sizeof(err)) == -1) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	if (argc < 1 || argc > SSHARGV_MAXARGS)
		abort();
	for (i = 0, p = out; i < argc; i++) {
		used = (size_t)(p - out);
		if (used >= sizeof(out) || memchr(p, '\0', sizeof(out) - used)
		    == NULL)
			abort();
		for (const char *q = p; *q != '\0'; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				if (*q != '\t')
					abort();
		argv[i] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	judge(&full, argc, argv);
	judge(&open_host, argc, argv);
	judge(&al, argc, argv);
	judge(&off, argc, argv);
	judge(&mounts, argc, argv);
	return 0;
}
