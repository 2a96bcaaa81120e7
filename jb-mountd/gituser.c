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
 * The owner's own files, read as the owner: symlinks are followed as git
 * follows them (a ~/.gitconfig kept in a dotfiles repository is common),
 * since nothing here reaches further than the owner can, and only two
 * checked values leave, into the owner's own container.  A FIFO or a
 * device in their place is refused rather than waited on.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitconf.h"
#include "gitident.h"
#include "gituser.h"
#include "log.h"

#define NFILES	2

/* "~/.gitconfig" when under home: what the user knows it as */
static void
shown(char *dst, size_t dstlen, const char *path, const char *home)
{
	size_t	hl = strlen(home);

	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (hl > 1 && strncmp(path, home, hl) == 0 && path[hl] == '/')
		(void)snprintf(dst, dstlen, "~%s", path + hl);
	else
		(void)strlcpy(dst, path, dstlen);
}

/* the file's text (NUL-terminated, to free), NULL with errno: ENOENT */
static char *
slurp(const char *path, size_t *lenp, const char **why)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd, save;

	*why = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK))
	    == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		errno = EINVAL;
		goto fail;
	}
	if (st.st_size > GITCONF_FILE_MAX) {
		*why = "larger than 1 MiB";
		errno = EFBIG;
		goto fail;
	}
	/* one byte more than the limit tells a file that grew */
	if ((buf = malloc(GITCONF_FILE_MAX + 2)) == NULL)
		goto fail;
	while (len <= GITCONF_FILE_MAX) {
		n = read(fd, buf + len, GITCONF_FILE_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > GITCONF_FILE_MAX) {
		*why = "larger than 1 MiB";
		errno = EFBIG;
		goto fail;
	}
	buf[len] = '\0';
	(void)close(fd);
	*lenp = len;
	return buf;
 fail:
	save = errno;
	free(buf);
	(void)close(fd);
	errno = save;
	return NULL;
}

static void
note(struct jb_git_ident *out, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));

/* the first thing to tell the user is the one they hear */
static void
note(struct jb_git_ident *out, const char *fmt, ...)
{
	va_list	ap;

	if (out->note[0] != '\0')
		return;
	va_start(ap, fmt);
	(void)vsnprintf(out->note, sizeof(out->note), fmt, ap);
	va_end(ap);
}

/* a value as the container may have it, or "" and the reason told */
static void
take(struct jb_git_ident *out, char *dst, size_t dstlen,
    const struct gitconf_value *v, const char *key, char names[][PATH_MAX])
{
	const char	*why = v->bad;

	dst[0] = '\0';
	if (why == NULL && v->v[0] == '\0')
		return;
	if (why == NULL)
		why = gitident_check(v->v);
	if (why != NULL) {
		note(out, "git: user.%s in %s is not copied to the container: "
		    "%s", key, names[v->src], why);
		return;
	}
	(void)strlcpy(dst, v->v, dstlen);
}

void
gituser_read(const struct repo_owner *owner, const char *xdg,
    struct jb_git_ident *out)
{
	struct gitconf_ident	 id;
	char			 paths[NFILES][PATH_MAX];
	char			 names[NFILES][PATH_MAX];
	char			 err[128];
	const char		*why, *home = owner->home;
	char			*buf;
	size_t			 len;
	int			 i, n;

	memset(out, 0, sizeof(*out));
	memset(&id, 0, sizeof(id));
	/* as git: XDG_CONFIG_HOME when set (and, as XDG says, absolute) */
	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(paths[0], sizeof(paths[0]), "%s/git/config", xdg);
	else
		n = snprintf(paths[0], sizeof(paths[0]),
		    "%s/.config/git/config", home);
	if (n < 0 || (size_t)n >= sizeof(paths[0]))
		paths[0][0] = '\0';
	n = snprintf(paths[1], sizeof(paths[1]), "%s/.gitconfig", home);
	if (n < 0 || (size_t)n >= sizeof(paths[1]))
		paths[1][0] = '\0';

	for (i = 0; i < NFILES; i++) {
		shown(names[i], sizeof(names[i]), paths[i], home);
		if (paths[i][0] != '/')
			continue;
		if ((buf = slurp(paths[i], &len, &why)) == NULL) {
			if (errno != ENOENT && errno != ENOTDIR)
				note(out, "git: %s: %s; no identity is taken "
				    "from it", names[i], why != NULL ? why :
				    strerror(errno));
			continue;
		}
		id.src = i;
		if (gitconf_ident(buf, len, &id, err, sizeof(err)) == -1)
			note(out, "git: %s %s; git refuses it too, and no "
			    "identity is taken from it", names[i], err);
		free(buf);
	}
	take(out, out->name, sizeof(out->name), &id.name, "name", names);
	take(out, out->email, sizeof(out->email), &id.email, "email", names);
	if (out->name[0] == '\0' || out->email[0] == '\0')
		note(out, "git: no user.%s in %s or %s%s: git commit in the "
		    "container needs it (git config --global user.%s ...)",
		    out->name[0] == '\0' && out->email[0] == '\0' ?
		    "name or user.email" : out->name[0] == '\0' ? "name" :
		    "email", names[1], names[0], id.includes ?
		    " (include.path is not followed)" : "",
		    out->name[0] == '\0' ? "name" : "email");
	log_debug("git identity of %s: name %s, email %s%s%s", owner->name,
	    out->name[0] ? "set" : "unset", out->email[0] ? "set" : "unset",
	    out->note[0] ? ": " : "", out->note);
}
