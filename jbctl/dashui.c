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
 * The dashboard's keys and boxes: what each key does, the prompts it
 * asks and the text an action printed.  The same code draws jbctl
 * dashboard (ncurses; its loop in dashloop.c) and the dashboard of an
 * SSH session (vtcurses; its loop in jb-sshd/sshdash.c).  Every action
 * is a command of the table, run by dash_run() as that side runs its
 * commands; over SSH an action the session's policy withholds is not
 * offered.
 */

#ifdef JB_DASH_VT
#include "vtcurses.h"
#else
#define NCURSES_WIDECHAR 1
#include <curses.h>
#endif
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdtab.h"
#include "dash.h"
#include "imsg.h"
#include "termsafe.h"

#define DASH_MSG	16384	/* what an action printed, shown whole */


static void
load_detail(struct dash *d)
{
	d->det_ok = 0;
	if (d->nrows == 0)
		return;
	(void)dash_detail(&d->ctx, &d->rows[d->sel], &d->det);
	d->det_ok = 1;
}

/* the rows again; only: the container an event named ("" none) */
void
dash_reload(struct dash *d, const char *only)
{
	struct dash_row	*rows;
	char		 err[DASH_TEXT], sel[JB_INSTANCE_MAX];
	int		 n, i;

	sel[0] = '\0';
	if (d->nrows > 0)
		(void)strlcpy(sel, d->rows[d->sel].in.name, sizeof(sel));
	rows = dash_rows(&d->ctx, d->rows, d->nrows, only, &n, err,
	    sizeof(err));
	if (rows == NULL && err[0] != '\0') {
		snprintf(d->status, sizeof(d->status), "%s", err);
		dash_clean(d->status);
		return;
	}
	free(d->rows);
	d->rows = rows;
	d->nrows = n;
	for (i = 0; i < n; i++)
		if (strcmp(rows[i].in.name, sel) == 0)
			d->sel = i;
	if (d->sel >= n)
		d->sel = n > 0 ? n - 1 : 0;
	load_detail(d);
}

/* a line of input at the bottom; 0 with buf, -1 on Escape */
static int
ask(const char *prompt, char *buf, size_t len)
{
	size_t	n = 0;
	int	ch;

	buf[0] = '\0';
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		attron(A_BOLD);
		addnstr(prompt, COLS - 1);
		attroff(A_BOLD);
		addnstr(buf, COLS - 1 - (int)strlen(prompt));
		refresh();
		ch = getch();
		/* ERR: the terminal is gone */
		if (ch == 27 || ch == ERR)
			return -1;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			return 0;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0)
			buf[--n] = '\0';
		else if (ch >= 0x20 && ch < 0x7f && n + 1 < len) {
			buf[n++] = (char)ch;
			buf[n] = '\0';
		}
	}
}

static int
confirm(const char *prompt)
{
	int	ch;

	move(LINES - 1, 0);
	clrtoeol();
	attron(A_BOLD);
	addnstr(prompt, COLS - 1);
	attroff(A_BOLD);
	refresh();
	ch = getch();
	return ch == 'y' || ch == 'Y';
}

/* a box with the whole text, line by line, until a key */
static void
show_text(const char *title, char *text)
{
	char	*lines[512], *p, *save;
	char	 wrapped[DASH_TEXT];
	int	 n = 0, i, y, top = 0, h, ch, w;
	size_t	 len;

	for (p = strtok_r(text, "\n", &save); p != NULL && n < 512;
	    p = strtok_r(NULL, "\n", &save))
		lines[n++] = dash_clean(p);
	for (;;) {
		erase();
		attron(A_BOLD);
		dash_put(0, 0, COLS, title);
		attroff(A_BOLD);
		h = LINES - 2;
		w = COLS > 1 ? COLS : 1;
		y = 1;
		/* long lines are wrapped, so the whole of each is shown */
		for (i = top; i < n && y <= h; i++) {
			p = lines[i];
			len = strlen(p);
			if (len == 0)
				y++;
			while (len > 0 && y <= h) {
				size_t	k = len > (size_t)w ? (size_t)w : len;

				/* never split a UTF-8 character */
				while (k < len && k > 0 &&
				    (p[k] & 0xc0) == 0x80)
					k--;
				memcpy(wrapped, p, k);
				wrapped[k] = '\0';
				dash_put(y++, 0, COLS, wrapped);
				p += k;
				len -= k;
			}
		}
		if (n == 0)
			dash_put(1, 0, COLS, "(nothing printed)");
		attron(A_REVERSE);
		dash_put(LINES - 1, 0, COLS, "any key returns; arrows scroll");
		attroff(A_REVERSE);
		refresh();
		ch = getch();
		if (ch == KEY_DOWN && top + 1 < n)
			top++;
		else if (ch == KEY_UP && top > 0)
			top--;
		else if (ch != KEY_RESIZE)
			break;
	}
}

/* an action that prints: run with the output caught, then shown */
static int
act(struct dash *d, const char *title, int id, char *const *args, int nargs,
    const char *const *opts)
{
	char	*text;
	int	 rv;

	if ((text = malloc(DASH_MSG)) == NULL)
		return 1;
	snprintf(d->status, sizeof(d->status), "%s ...", title);
	dash_draw(d);
	rv = dash_run(&d->ctx, d->nrows ? &d->rows[d->sel] : NULL, id, args,
	    nargs, opts, NULL, text, DASH_MSG);
	if (rv != 0) {
		/* a refusal is shown whole: the guard says what to do */
		char	t[DASH_TEXT];

		snprintf(t, sizeof(t), "%s: refused or failed", title);
		show_text(t, text);
		snprintf(d->status, sizeof(d->status), "%s: failed", title);
	} else {
		/* done: its last line on the status line */
		char	*p, *last = NULL, *save;

		for (p = strtok_r(text, "\n", &save); p != NULL;
		    p = strtok_r(NULL, "\n", &save))
			last = p;
		snprintf(d->status, sizeof(d->status), "%s: done%s%s", title,
		    last ? ": " : "", last ? last : "");
		dash_clean(d->status);
	}
	free(text);
	return rv;
}

/* the keys, and the command each runs (CMD_NONE: the screen's own) */
static const struct dash_keyhelp {
	int		 id;
	const char	*text;
} keys_help[] = {
	{ CMD_NONE, "Up/Down, j/k, PgUp/PgDn   select a container (or click its row)" },
	{ CMD_SHELL, "Enter                     shell in the container (the dashboard steps aside)" },
	{ CMD_TMUX, "t                         tmux: attach its autostart session" },
	{ CMD_NET_LOOSE, "l                         net loose for a duration (asked; empty: the default)" },
	{ CMD_NET_STRICT, "s                         net strict now" },
	{ CMD_MOUNT, "m                         mount an optional mount (kind and duration asked)" },
	{ CMD_UNMOUNT, "u                         unmount an optional mount" },
	{ CMD_GIT_FETCH, "f                         git fetch its branch into refs/jailbee/" },
	{ CMD_GIT_PULL, "p                         git pull --into a host branch (asked)" },
	{ CMD_SNAP_CREATE, "c                         snapshot create (tag asked; empty: the default)" },
	{ CMD_START, "r                         start" },
	{ CMD_STOP, "x                         stop" },
	{ CMD_DESTROY, "D                         destroy (confirmed; the guard's refusal is shown whole)" },
	{ CMD_NEW, "n                         new container (its name asked)" },
	{ CMD_NET_EGRESS_ADD, "a                         allow a refused destination (shows the net egress add, confirmed)" },
	{ CMD_NONE, "g                         look again now" },
	{ CMD_NONE, "?                         this list" },
	{ CMD_NONE, "q                         quit" },
	{ CMD_NONE, NULL }
};

/* the actions a dashboard can offer, for the SSH session to ask about */
int
dash_actions(int *ids, int max)
{
	int	i, n = 0;

	for (i = 0; keys_help[i].text != NULL; i++)
		if (keys_help[i].id != CMD_NONE && n < max)
			ids[n++] = keys_help[i].id;
	return n;
}

/* 1 when the action is offered here: over SSH, when the policy admits it */
int
dash_offered(const struct dash_ctx *ctx, int id)
{
	int	i;

	for (i = 0; i < ctx->nwithheld; i++)
		if (ctx->withheld[i] == id)
			return 0;
	return 1;
}

static void
help(struct dash *d)
{
	char	text[4096];
	size_t	n = 0;
	int	i;

	text[0] = '\0';
	for (i = 0; keys_help[i].text != NULL; i++)
		if (keys_help[i].id == CMD_NONE ||
		    dash_offered(&d->ctx, keys_help[i].id))
			n += snprintf(text + n, sizeof(text) - n, "%s\n",
			    keys_help[i].text);
	if (d->ctx.nwithheld > 0)
		n += snprintf(text + n, sizeof(text) - n, "\n%s\n",
		    d->ctx.remote ? "The other actions are not available "
		    "over SSH: this server's remote policy withholds them." :
		    "The other actions are withheld.");
	show_text(d->ctx.remote ? "dashboard over SSH: keys" :
	    "jbctl dashboard: keys", text);
}

static void
allow_key(struct dash *d)
{
	struct dash_refusal	*f;
	char			 prompt[DASH_TEXT * 2], *args[2], buf[8];
	int			 i, k;

	if (!d->det_ok || d->det.nref == 0) {
		snprintf(d->status, sizeof(d->status), "%s has no refused "
		    "destination", d->rows[d->sel].in.name);
		return;
	}
	k = 0;
	if (d->det.nref > 1) {
		char	text[DASH_MSG];
		size_t	n = 0;

		text[0] = '\0';
		for (i = 0; i < d->det.nref && i < 9; i++)
			n += snprintf(text + n, sizeof(text) - n,
			    "%d  %s  x%llu  %s\n", i + 1, d->det.ref[i].what,
			    (unsigned long long)d->det.ref[i].count,
			    d->det.ref[i].allow[0] ? d->det.ref[i].allow :
			    "(no entry admits it)");
		show_text("refused: the next prompt asks which", text);
		if (ask("allow which (1-9)? ", buf, sizeof(buf)) == -1)
			return;
		k = atoi(buf) - 1;
		if (k < 0 || k >= d->det.nref || k >= 9) {
			snprintf(d->status, sizeof(d->status), "no refusal "
			    "numbered %s", buf);
			return;
		}
	}
	f = &d->det.ref[k];
	if (f->allow[0] == '\0') {
		snprintf(d->status, sizeof(d->status), "no egress_allow entry "
		    "would admit %s", f->what);
		return;
	}
	snprintf(prompt, sizeof(prompt), "run: jbctl net egress add %s %s ? "
	    "[y/N] ", f->allow, d->rows[d->sel].in.name);
	if (!confirm(prompt)) {
		snprintf(d->status, sizeof(d->status), "not allowed");
		return;
	}
	args[0] = f->allow;
	args[1] = d->rows[d->sel].in.name;
	(void)act(d, "net egress add", CMD_NET_EGRESS_ADD, args, 2, NULL);
}

static void
mount_key(struct dash *d, int attach)
{
	char		 kind[48], dur[32], *args[2], prompt[128];
	const char	*opts[3] = { NULL, NULL, NULL };

	if (!attach && d->det_ok && d->det.nkind == 1)
		(void)strlcpy(kind, d->det.kinds[0], sizeof(kind));
	else {
		snprintf(prompt, sizeof(prompt), "%s which optional mount? ",
		    attach ? "mount" : "unmount");
		if (ask(prompt, kind, sizeof(kind)) == -1 || kind[0] == '\0')
			return;
	}
	args[0] = kind;
	args[1] = d->rows[d->sel].in.name;
	if (!attach) {
		(void)act(d, "unmount", CMD_UNMOUNT, args, 2, NULL);
		return;
	}
	if (ask("for how long (30m, 4h; empty: its default)? ", dur,
	    sizeof(dur)) == -1)
		return;
	if (dur[0] != '\0') {
		opts[0] = "for";
		opts[1] = dur;
	}
	(void)act(d, "mount", CMD_MOUNT, args, 2, opts);
}

/* the command a key runs on the selected container, CMD_NONE for none */
static int
key_action(int ch)
{
	switch (ch) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return CMD_SHELL;
	case 't':
		return CMD_TMUX;
	case 'l':
		return CMD_NET_LOOSE;
	case 's':
		return CMD_NET_STRICT;
	case 'm':
		return CMD_MOUNT;
	case 'u':
		return CMD_UNMOUNT;
	case 'f':
		return CMD_GIT_FETCH;
	case 'p':
		return CMD_GIT_PULL;
	case 'c':
		return CMD_SNAP_CREATE;
	case 'r':
		return CMD_START;
	case 'x':
		return CMD_STOP;
	case 'D':
		return CMD_DESTROY;
	case 'a':
		return CMD_NET_EGRESS_ADD;
	}
	return CMD_NONE;
}

/* a key whose action is withheld: it does nothing but say so */
static void
withheld(struct dash *d, int id)
{
	const struct cmd	*c;
	char			 leaf[48];

	if ((c = cmd_find(id)) == NULL)
		return;
	cmd_name(c, leaf, sizeof(leaf));
	snprintf(d->status, sizeof(d->status), "%s: not available %s",
	    leaf, d->ctx.remote ? "over SSH (this server's remote policy "
	    "withholds it)" : "here");
}

void
dash_key(struct dash *d, int ch)
{
	char		 buf[128], *args[2], name[JB_INSTANCE_MAX];
	char		 repo[48], buf2[48], prompt[128];
	const char	*opts[3] = { NULL, NULL, NULL };
	int		 had = d->nrows > 0, old = d->sel, id;

	d->status[0] = '\0';
	switch (ch) {
	case 'q':
		d->quit = 1;
		return;
	case KEY_DOWN:
	case 'j':
		if (d->sel + 1 < d->nrows)
			d->sel++;
		break;
	case KEY_UP:
	case 'k':
		if (d->sel > 0)
			d->sel--;
		break;
	case KEY_NPAGE:
		d->sel += LINES / 2 - 1;
		if (d->sel >= d->nrows)
			d->sel = d->nrows > 0 ? d->nrows - 1 : 0;
		break;
	case KEY_PPAGE:
		d->sel -= LINES / 2 - 1;
		if (d->sel < 0)
			d->sel = 0;
		break;
	case '?':
		help(d);
		return;
	case 'g':
		dash_reload(d, NULL);
		return;
	case 'n':
		if (!dash_offered(&d->ctx, CMD_NEW)) {
			withheld(d, CMD_NEW);
			return;
		}
		if (ask("new container, its name (a branch): ", buf,
		    sizeof(buf)) == -1 || buf[0] == '\0')
			return;
		args[0] = buf;
		if (!d->ctx.remote) {
			(void)dash_aside(d, CMD_NEW, args, 1);
			dash_reload(d, NULL);
			return;
		}
		/* over SSH there is no checkout: the repo is named */
		(void)strlcpy(repo, d->nrows > 0 ? d->rows[d->sel].in.prefix :
		    "", sizeof(repo));
		snprintf(prompt, sizeof(prompt), "in which repo (its container "
		    "prefix%s%s)? ", repo[0] ? "; empty: " : "", repo);
		if (ask(prompt, buf2, sizeof(buf2)) == -1)
			return;
		if (buf2[0] != '\0')
			(void)strlcpy(repo, buf2, sizeof(repo));
		if (repo[0] == '\0')
			return;
		args[1] = repo;
		(void)dash_aside(d, CMD_NEW, args, 2);
		dash_reload(d, NULL);
		return;
	case KEY_MOUSE: {
		MEVENT	ev;

		/* a click on a row selects it */
		if (getmouse(&ev) == OK && ev.y >= 2 && ev.y < d->list_h + 1 &&
		    d->top + ev.y - 2 < d->nrows)
			d->sel = d->top + ev.y - 2;
		break;
	}
	case KEY_RESIZE:
		return;
	}
	if (d->sel != old) {
		load_detail(d);
		return;
	}
	if (!had)
		return;
	(void)strlcpy(name, d->rows[d->sel].in.name, sizeof(name));
	args[0] = name;
	if ((id = key_action(ch)) != CMD_NONE && !dash_offered(&d->ctx, id)) {
		withheld(d, id);
		return;
	}
	switch (ch) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		(void)dash_aside(d, CMD_SHELL, args, 1);
		break;
	case 't':
		(void)dash_aside(d, CMD_TMUX, args, 1);
		break;
	case 'l':
		if (ask("loose for (30s, 45m, 4h; empty: loose_auto_revert)? ",
		    buf, sizeof(buf)) == -1)
			return;
		if (buf[0] != '\0') {
			opts[0] = "for";
			opts[1] = buf;
		}
		(void)act(d, "net loose", CMD_NET_LOOSE, args, 1, opts);
		break;
	case 's':
		(void)act(d, "net strict", CMD_NET_STRICT, args, 1, NULL);
		break;
	case 'm':
		mount_key(d, 1);
		break;
	case 'u':
		mount_key(d, 0);
		break;
	case 'f':
		(void)act(d, "git fetch", CMD_GIT_FETCH, args, 1, NULL);
		break;
	case 'p':
		if (ask("pull into which host branch? ", buf, sizeof(buf)) ==
		    -1 || buf[0] == '\0')
			return;
		opts[0] = "into";
		opts[1] = buf;
		(void)act(d, "git pull", CMD_GIT_PULL, args, 1, opts);
		break;
	case 'c':
		if (ask("snapshot tag (empty: snap-DATE)? ", buf, sizeof(buf))
		    == -1)
			return;
		args[1] = buf;
		(void)act(d, "snapshot create", CMD_SNAP_CREATE, args,
		    buf[0] ? 2 : 1, NULL);
		break;
	case 'r':
		(void)act(d, "start", CMD_START, args, 1, NULL);
		break;
	case 'x':
		(void)act(d, "stop", CMD_STOP, args, 1, NULL);
		break;
	case 'D':
		snprintf(buf, sizeof(buf), "destroy %.80s? [y/N] ", name);
		if (!confirm(buf))
			return;
		(void)act(d, "destroy", CMD_DESTROY, args, 1, NULL);
		break;
	case 'a':
		allow_key(d);
		break;
	default:
		return;
	}
	dash_reload(d, NULL);
}

