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
 * A gate is an empty directory named for its container in the gate
 * directory; Incus bind-mounts it read-only when the container starts,
 * and refuses the start when it is missing.  Opened only once the kernel
 * holds the container's policy as read from Incus in this run (or set by
 * new), closed when the container is forgotten, all closed when jb-netd
 * ends.  The directory is opened once, while root; the names opened are
 * remembered, so that closing them all needs no listing later.
 */

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jb_msg.h"
#include "log.h"
#include "names.h"
#include "netd_gate.h"

static int	  gatefd = -1;
static char	(*opened)[JB_INSTANCE_MAX];
static size_t	  nopened, capopened;

static void
close_listed(const char *procname)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	if ((fd = dup(gatefd)) == -1 || (d = fdopendir(fd)) == NULL)
		fatal("%s: start gates", procname);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(gatefd, de->d_name, AT_REMOVEDIR) == -1 &&
		    unlinkat(gatefd, de->d_name, 0) == -1)
			fatal("%s: cannot close the start gate %s", procname,
			    de->d_name);
	}
	closedir(d);
}

void
netd_gate_init(const char *procname, const char *dir)
{
	struct stat	 st;

	/* jailbeed made it, root's 0755, before this process started */
	if ((gatefd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		fatal("%s: start gate directory %s", procname, dir);
	if (fstat(gatefd, &st) == -1)
		fatal("%s: %s", procname, dir);
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
		fatalx("%s: start gate directory %s is not root's alone (uid "
		    "%u, mode %04o): anyone who may write it could open a "
		    "container's gate", procname, dir, (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777));
	/* what a run before left: nothing is open until enforced again */
	close_listed(procname);
}

void
netd_gate_open(const char *name)
{
	size_t	i;
	void	*p;

	if (gatefd == -1 || !name_instance_ok(name))
		return;
	for (i = 0; i < nopened; i++)
		if (strcmp(opened[i], name) == 0)
			return;
	if (mkdirat(gatefd, name, 0755) == -1 && errno != EEXIST) {
		log_warn("%s: cannot open its start gate: it cannot start "
		    "until it is", name);
		return;
	}
	if (nopened == capopened) {
		if ((p = reallocarray(opened, capopened ? capopened * 2 : 16,
		    sizeof(*opened))) == NULL)
			fatal("%s", __func__);
		opened = p;
		capopened = capopened ? capopened * 2 : 16;
	}
	(void)strlcpy(opened[nopened++], name, sizeof(*opened));
	log_debug("%s: start gate open", name);
}

void
netd_gate_close(const char *name)
{
	size_t	i;

	if (gatefd == -1 || !name_instance_ok(name))
		return;
	if (unlinkat(gatefd, name, AT_REMOVEDIR) == -1 && errno != ENOENT)
		log_warn("%s: cannot close its start gate", name);
	for (i = 0; i < nopened; i++)
		if (strcmp(opened[i], name) == 0) {
			opened[i][0] = '\0';
			memmove(&opened[i], &opened[i + 1],
			    (nopened - i - 1) * sizeof(*opened));
			nopened--;
			break;
		}
	log_debug("%s: start gate closed", name);
}

void
netd_gate_close_all(void)
{
	size_t	i;

	if (gatefd == -1)
		return;
	for (i = 0; i < nopened; i++)
		(void)unlinkat(gatefd, opened[i], AT_REMOVEDIR);
	nopened = 0;
}
