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
 * jbctl dashboard: the containers on one screen, with ncurses.  It waits
 * in poll() on the keyboard and on a subscription to jailbeed, which
 * sends an event for every change it journals; a clock ticks only while
 * a countdown is on the screen.  The keys are dashui.c's.
 */

#define NCURSES_WIDECHAR 1

#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "dash.h"
#include "imsg.h"

/* shell, tmux, new: the terminal is theirs until they end */
int
dash_aside(struct dash *d, int id, char *const *args, int nargs)
{
	struct parsed	 p;
	char		 line[8];
	int		 rv;

	def_prog_mode();
	endwin();
	if (id == CMD_NEW) {
		memset(&p, 0, sizeof(p));
		p.cmd = cmd_find(CMD_NEW);
		p.args = (char **)(uintptr_t)args;
		p.nargs = nargs;
		if (chdir(d->ctx.cwd) == -1)
			rv = 1;
		else
			rv = jbctl_new(&p);
	} else
		rv = dash_run(&d->ctx, &d->rows[d->sel], id, args, nargs, NULL,
		    NULL, NULL, 0);
	if (rv != 0) {
		fprintf(stderr, "jbctl: exit status %d; Enter returns to the "
		    "dashboard\n", rv);
		if (fgets(line, sizeof(line), stdin) == NULL)
			clearerr(stdin);
	}
	reset_prog_mode();
	refresh();
	return rv;
}

/* the subscription: events from jailbeed, each a reason to look again */
static int
watch_open(struct dash *d)
{
	char	err[PATH_MAX + 160];

	if ((d->wfd = ctl_dial(d->ctx.sockpath, &d->wbuf, 0, err,
	    sizeof(err))) == -1)
		return -1;
	if (imsg_compose(&d->wbuf, IMSG_CTL_WATCH, JB_CTL_VERSION, 0, -1,
	    NULL, 0) == -1 || imsgbuf_flush(&d->wbuf) == -1) {
		imsgbuf_clear(&d->wbuf);
		close(d->wfd);
		d->wfd = -1;
		return -1;
	}
	return 0;
}

/* 1 when something changed: *only names the container, "" many */
static int
watch_read(struct dash *d, char *only, size_t len)
{
	struct imsg		imsg;
	struct jb_ctl_event	ev;
	int			n, got = 0;

	if ((n = imsgbuf_read(&d->wbuf)) == -1 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		return -1;
	while ((n = jb_imsg_get(&d->wbuf, &imsg, JB_PEER_PARENT,
	    JB_PEER_CTL)) > 0) {
		if (imsg_get_type(&imsg) == IMSG_CTL_EVENT &&
		    imsg_get_data(&imsg, &ev, sizeof(ev)) == 0) {
			ev.container[sizeof(ev.container) - 1] = '\0';
			/* two containers changed: every row is looked at */
			if (!got)
				(void)strlcpy(only, ev.container, len);
			else if (strcmp(only, ev.container) != 0)
				(void)strlcpy(only, "", len);
			got = 1;
		}
		imsg_free(&imsg);
	}
	return n == -1 ? -1 : got;
}

int
dashboard(const char *sockpath, int all)
{
	struct dash	*d;
	struct pollfd	 pfd[2];
	char		 only[JB_INSTANCE_MAX];
	int		 ch, n, nfd, w;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "jbctl: dashboard: needs a terminal (ssh -t "
		    "gives one over SSH)\n");
		return 1;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return 1;
	d->ctx.sockpath = sockpath;
	d->ctx.all = all;
	d->wfd = -1;
	if (getcwd(d->ctx.cwd, sizeof(d->ctx.cwd)) == NULL) {
		fprintf(stderr, "jbctl: getcwd: %s\n", strerror(errno));
		free(d);
		return 1;
	}
	if (watch_open(d) == -1) {
		fprintf(stderr, "jbctl: dashboard: cannot subscribe to "
		    "jailbeed's changes at %s (is jailbeed running?)\n",
		    sockpath);
		free(d);
		return 1;
	}
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	(void)mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	curs_set(0);
	dash_reload(d, NULL);
	while (!d->quit) {
		dash_draw(d);
		pfd[0].fd = STDIN_FILENO;
		pfd[0].events = POLLIN;
		pfd[1].fd = d->wfd;
		pfd[1].events = POLLIN;
		nfd = d->wfd != -1 ? 2 : 1;
		/* no clock unless a countdown is on the screen */
		w = dash_countdown(d) ? 1000 : -1;
		if ((n = poll(pfd, nfd, w)) == -1) {
			if (errno == EINTR) {
				/* a resize: ncurses hands it over as a key */
				nodelay(stdscr, TRUE);
				while ((ch = getch()) != ERR)
					dash_key(d, ch);
				nodelay(stdscr, FALSE);
				continue;
			}
			break;
		}
		if (nfd == 2 && (pfd[1].revents & (POLLIN | POLLHUP))) {
			switch (watch_read(d, only, sizeof(only))) {
			case -1:
				imsgbuf_clear(&d->wbuf);
				close(d->wfd);
				d->wfd = -1;
				snprintf(d->status, sizeof(d->status),
				    "jailbeed closed the subscription: no "
				    "more live changes (g looks again)");
				break;
			case 1:
				dash_reload(d, only);
				break;
			}
		}
		if (pfd[0].revents & POLLIN) {
			nodelay(stdscr, TRUE);
			while (!d->quit && (ch = getch()) != ERR) {
				nodelay(stdscr, FALSE);
				dash_key(d, ch);
				nodelay(stdscr, TRUE);
			}
			nodelay(stdscr, FALSE);
		}
		if (pfd[0].revents & (POLLHUP | POLLERR))
			break;
	}
	endwin();
	if (d->wfd != -1) {
		imsgbuf_clear(&d->wbuf);
		close(d->wfd);
	}
	free(d->rows);
	free(d);
	return 0;
}
