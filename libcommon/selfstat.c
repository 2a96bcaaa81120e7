/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

/* opened before any chroot, so a chrooted process can still report */
static int	status_fd = -1;
static char	sandbox_summary[JB_MSG_TEXT_MAX] = "none";

void
selfstat_set_sandbox(const char *summary)
{
	strlcpy(sandbox_summary, summary, sizeof(sandbox_summary));
}

void
selfstat_init(void)
{
	if (status_fd == -1)
		status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
}

static int	stat_parse(struct jb_proc_status *, char *);

int
selfstat(struct jb_proc_status *st, const char *name, int64_t started,
    const char *detail)
{
	char		 buf[8192];
	ssize_t		 n;

	memset(st, 0, sizeof(*st));
	strlcpy(st->name, name, sizeof(st->name));
	strlcpy(st->detail, detail, sizeof(st->detail));
	strlcpy(st->sandbox, sandbox_summary, sizeof(st->sandbox));
	st->pid = getpid();
	st->started = started;
	selfstat_init();
	if (status_fd == -1 ||
	    (n = pread(status_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return -1;
	buf[n] = '\0';
	return stat_parse(st, buf);
}

int
procstat(struct jb_proc_status *st, pid_t pid, const char *name,
    int64_t started, const char *detail, const char *sandbox)
{
	char		 path[64], buf[8192];
	ssize_t		 n;
	int		 fd, save;

	memset(st, 0, sizeof(*st));
	strlcpy(st->name, name, sizeof(st->name));
	strlcpy(st->detail, detail, sizeof(st->detail));
	strlcpy(st->sandbox, sandbox, sizeof(st->sandbox));
	st->pid = pid;
	st->started = started;
	(void)snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	save = errno;
	(void)close(fd);
	if (n <= 0) {
		errno = n == 0 ? EINVAL : save;
		return -1;
	}
	buf[n] = '\0';
	return stat_parse(st, buf);
}

static int
stat_parse(struct jb_proc_status *st, char *buf)
{
	char		*line, *next, *p, *ep;
	unsigned int	 r, e, s, f;
	int		 seen = 0;

	for (line = buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &f) == 4) {
			/* report the effective id, and expose any mismatch */
			st->uid = (r == e && e == s) ? e : UINT32_MAX;
			seen |= 1;
		} else if (sscanf(line, "Gid: %u %u %u %u", &r, &e, &s, &f)
		    == 4) {
			st->gid = (r == e && e == s) ? e : UINT32_MAX;
			seen |= 2;
		} else if (sscanf(line, "CapEff: %" SCNx64, &st->cap_eff) == 1)
			seen |= 4;
		else if (sscanf(line, "CapPrm: %" SCNx64, &st->cap_prm) == 1)
			seen |= 8;
		else if (sscanf(line, "CapBnd: %" SCNx64, &st->cap_bnd) == 1)
			seen |= 16;
		else if (strncmp(line, "Groups:", 7) == 0) {
			for (p = line + 7;; p = ep) {
				(void)strtoul(p, &ep, 10);
				if (ep == p)
					break;
				st->ngroups++;
			}
		}
	}
	if (seen != 31) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
