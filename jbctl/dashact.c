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
 * The dashboard's actions are jbctl's commands: the same parsed command
 * line, sent by the same code (ctl_run, local_git) over a connection of
 * its own.  While the screen is the dashboard's, what a command prints
 * is caught in a memory file and shown in a box instead.
 */

#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "imsg.h"
#include "dash.h"

#define DASH_TIMEOUT	120	/* seconds an action may wait for jailbeed */

int
dash_cap_begin(struct dash_cap *c)
{
	fflush(stdout);
	fflush(stderr);
	c->save0 = c->save1 = c->save2 = c->fd1 = c->null = -1;
	/*
	 * The keyboard stays the dashboard's: a command that relays its
	 * input (exec) reads nothing from it.
	 */
	if ((c->fd1 = memfd_create("jbctl-dashboard", MFD_CLOEXEC)) == -1 ||
	    (c->null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    (c->save0 = dup(STDIN_FILENO)) == -1 ||
	    (c->save1 = dup(STDOUT_FILENO)) == -1 ||
	    (c->save2 = dup(STDERR_FILENO)) == -1 ||
	    dup2(c->null, STDIN_FILENO) == -1 ||
	    dup2(c->fd1, STDOUT_FILENO) == -1 ||
	    dup2(c->fd1, STDERR_FILENO) == -1) {
		if (c->save0 != -1) {
			(void)dup2(c->save0, STDIN_FILENO);
			close(c->save0);
		}
		if (c->save1 != -1) {
			(void)dup2(c->save1, STDOUT_FILENO);
			close(c->save1);
		}
		if (c->save2 != -1) {
			(void)dup2(c->save2, STDERR_FILENO);
			close(c->save2);
		}
		if (c->fd1 != -1)
			close(c->fd1);
		if (c->null != -1)
			close(c->null);
		c->save0 = c->save1 = c->save2 = c->fd1 = c->null = -1;
		return -1;
	}
	return 0;
}

void
dash_cap_end(struct dash_cap *c, char *out, size_t outlen)
{
	ssize_t	n = 0;

	fflush(stdout);
	fflush(stderr);
	if (c->fd1 == -1) {
		if (outlen > 0)
			out[0] = '\0';
		return;
	}
	(void)dup2(c->save0, STDIN_FILENO);
	(void)dup2(c->save1, STDOUT_FILENO);
	(void)dup2(c->save2, STDERR_FILENO);
	close(c->save0);
	close(c->save1);
	close(c->save2);
	close(c->null);
	if (outlen > 0 && (n = pread(c->fd1, out, outlen - 1, 0)) < 0)
		n = 0;
	if (outlen > 0)
		out[n] = '\0';
	close(c->fd1);
	c->fd1 = -1;
}

static int
is_git(int id)
{
	return id == CMD_GIT_FETCH || id == CMD_GIT_PULL;
}

int
dash_run(struct dash_ctx *ctx, const struct dash_row *row, int id,
    char *const *args, int nargs, const char *const *opts,
    const struct output *out, char *text, size_t textlen)
{
	struct parsed	 p;
	struct imsgbuf	 ibuf;
	struct dash_cap	 cap;
	char		 err[PATH_MAX + 160], back[PATH_MAX];
	const char	*dir;
	int		 i, k, rv, fd, moved = 0;

	memset(&p, 0, sizeof(p));
	if ((p.cmd = cmd_find(id)) == NULL)
		return 1;
	p.args = (char **)(uintptr_t)args;
	p.nargs = nargs;
	for (i = 0; opts != NULL && opts[i] != NULL; i += 2)
		for (k = 0; k < CMD_MAXOPTS && p.cmd->opts[k].lname != NULL;
		    k++)
			if (strcmp(p.cmd->opts[k].lname, opts[i]) == 0)
				p.optval[k] = opts[i + 1];
	if (text != NULL && textlen > 0)
		text[0] = '\0';
	/* a row of another repo acts from that repo's checkout */
	dir = row != NULL && row->in.repo[0] == '/' ? row->in.repo : ctx->cwd;
	if (getcwd(back, sizeof(back)) == NULL)
		(void)strlcpy(back, ctx->cwd, sizeof(back));
	if (strcmp(dir, back) != 0) {
		if (chdir(dir) == -1) {
			if (text != NULL)
				snprintf(text, textlen, "jbctl: %s: %s", dir,
				    strerror(errno));
			return 1;
		}
		moved = 1;
	}
	if (text != NULL && dash_cap_begin(&cap) == -1) {
		snprintf(text, textlen, "jbctl: cannot catch the command's "
		    "output: %s", strerror(errno));
		rv = 1;
		goto back;
	}
	if ((fd = ctl_dial(ctx->sockpath, &ibuf, DASH_TIMEOUT, err,
	    sizeof(err))) == -1) {
		fprintf(stderr, "jbctl: %s\n", err);
		rv = 1;
	} else {
		if (is_git(id))
			rv = local_git(&ibuf, &p, ctx->sockpath);
		else
			rv = ctl_run(&ibuf, &p, out != NULL ? out :
			    &text_output);
		imsgbuf_clear(&ibuf);
		close(fd);
	}
	if (text != NULL)
		dash_cap_end(&cap, text, textlen);
 back:
	if (moved)
		(void)chdir(back);
	return rv;
}
