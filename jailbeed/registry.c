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
 * The registry of repositories (reporeg.c): init and a local new record
 * which checkout a container prefix comes from; an SSH session names a
 * repository by prefix (--repo) and runs as if in that checkout; jbctl
 * repo ls and repo rm read and prune it on the host.  The file,
 * state_dir/repos.tsv, is opened as root at start (the parent has no
 * open(2) of new files after the lock-down) and rewritten whole at each
 * change.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "jailbeed.h"
#include "jobs.h"
#include "log.h"
#include "reporeg.h"

static int		 reg_fd = -1;
static struct reporeg	*reg;

void
registry_init(void)
{
	struct stat	 st;
	char		 path[PATH_MAX], err[256], *buf;
	ssize_t		 n;

	if ((reg = calloc(1, sizeof(*reg))) == NULL)
		fatal("registry");
	if ((size_t)snprintf(path, sizeof(path), "%s/repos.tsv",
	    env->conf.state_dir) >= sizeof(path))
		fatalx("registry: state_dir too long");
	if ((reg_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1)
		fatal("registry %s", path);
	if (fstat(reg_fd, &st) == -1)
		fatal("registry %s", path);
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1)
		fatalx("registry %s is not a regular file of root's with one "
		    "link: refused; remove it", path);
	if (st.st_size == 0)
		return;
	if (st.st_size > (off_t)REPOREG_FILE_MAX) {
		log_warnx("registry %s: too large; no repository is "
		    "registered until jbctl init registers one", path);
		return;
	}
	if ((buf = malloc((size_t)st.st_size)) == NULL)
		fatal("registry");
	n = pread(reg_fd, buf, (size_t)st.st_size, 0);
	if (n != (ssize_t)st.st_size)
		log_warnx("registry %s: short read", path);
	else if (reporeg_parse(buf, (size_t)n, reg, err, sizeof(err)) == -1) {
		log_warnx("registry %s: %s; no repository is registered until "
		    "jbctl init registers one", path, err);
		memset(reg, 0, sizeof(*reg));
	}
	free(buf);
}

static int
registry_save(void)
{
	char	*buf;
	long	 n;

	if ((buf = malloc(REPOREG_FILE_MAX)) == NULL)
		return -1;
	if ((n = reporeg_format(reg, buf, REPOREG_FILE_MAX)) == -1 ||
	    ftruncate(reg_fd, 0) == -1 ||
	    pwrite(reg_fd, buf, (size_t)n, 0) != (ssize_t)n) {
		log_warn("registry: write");
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

/* the checkout at path makes containers named prefix-... */
void
registry_add(const char *prefix, const char *path)
{
	const struct reporeg_entry *e;

	if (reg == NULL)
		return;
	if ((e = reporeg_find(reg, prefix)) != NULL &&
	    strcmp(e->path, path) == 0)
		return;
	if (reporeg_set(reg, prefix, path) == -1) {
		log_warnx("registry: cannot register %s at %s (full, or not "
		    "a plain absolute path)", prefix, path);
		return;
	}
	if (registry_save() == 0)
		log_info("registry: %s is the checkout %s", prefix, path);
}

/* the checkout registered for prefix, or NULL */
const char *
registry_path(const char *prefix)
{
	const struct reporeg_entry *e;

	if (reg == NULL || (e = reporeg_find(reg, prefix)) == NULL)
		return NULL;
	return e->path;
}

/* jbctl repo ls | repo rm PREFIX: the host's own */
void
cmd_repo(struct job *job)
{
	struct jb_output	o;
	int			i;

	if (job->remote) {
		job_end(job, 0, "repo: not available over SSH");
		return;
	}
	if (job->cmd.id == CMD_REPO_RM) {
		if (reporeg_rm(reg, job->args[0]) == -1) {
			job_end(job, 0, "repo rm: %s is not registered (jbctl "
			    "repo ls lists them)", job->args[0]);
			return;
		}
		if (registry_save() == -1) {
			job_end(job, 0, "repo rm: cannot write the registry: "
			    "see jailbeed's log");
			return;
		}
		job_progress(job, "forgot %s", job->args[0]);
		job_end(job, 1, NULL);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.which = 1;
	for (i = 0; i < reg->n; i++) {
		int	n = snprintf(o.data + o.len, sizeof(o.data) - o.len,
		    "%s\t%s\n", reg->e[i].prefix, reg->e[i].path);

		if (n < 0 || (size_t)n >= sizeof(o.data) - o.len) {
			(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o),
			    -1);
			memset(&o, 0, sizeof(o));
			o.which = 1;
			i--;
			continue;
		}
		o.len += (size_t)n;
	}
	if (o.len > 0)
		(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
	job_end(job, 1, " ");
}
