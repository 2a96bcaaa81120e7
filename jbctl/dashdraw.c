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
 * The dashboard's screen: the rows, the selected container's panel and
 * the status line, drawn with ncurses from what dashdata.c gathered
 * (every string already printable).  Only what fits is drawn; ncurses
 * sends the terminal what changed.
 */

#ifdef JB_DASH_VT
#include "vtcurses.h"
#else
#define NCURSES_WIDECHAR 1
#include <curses.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "dash.h"
#include "mountspec.h"

/* a string drawn at most w cells wide, from x; padded with blanks */
void
dash_put(int y, int x, int w, const char *s)
{
	wchar_t	 ws[DASH_TEXT];
	size_t	 n;
	int	 i, cw, used = 0;

	if (w <= 0)
		return;
#ifdef JB_DASH_VT
	/* the SSH session has no locale: UTF-8 is decoded by hand */
	n = vt_mbstowcs(ws, s, DASH_TEXT - 1);
#else
	n = mbstowcs(ws, s, DASH_TEXT - 1);
#endif
	if (n == (size_t)-1) {
		/* made printable already; here only for a bad locale */
		n = 0;
	}
	ws[n] = L'\0';
	move(y, x);
	for (i = 0; ws[i] != L'\0'; i++) {
		if ((cw = wcwidth(ws[i])) < 0)
			cw = 1;
		if (used + cw > w)
			break;
		addnwstr(&ws[i], 1);
		used += cw;
	}
	for (; used < w; used++)
		addch(' ');
}

static const char *
net_col(const struct dash_row *r, char *buf, size_t len)
{
	char	left[32];

	if (strcmp(r->in.net, "loose") != 0)
		snprintf(buf, len, "%s", r->in.net[0] ? r->in.net : "-");
	else if (r->in.net_until == 0)
		snprintf(buf, len, "loose \xe2\x88\x9e");
	else
		snprintf(buf, len, "loose %s", mnt_left(r->in.net_until,
		    time(NULL), left, sizeof(left)));
	return buf;
}

static const char *
mount_col(const struct dash_row *r, char *buf, size_t len)
{
	char	left[32];
	size_t	n;
	int	i;

	if (r->in.nmounts == 0)
		return "-";
	if (r->nmount == 0) {
		snprintf(buf, len, "\xe2\x97\x8f %s", r->in.mount_until ?
		    mnt_left(r->in.mount_until, time(NULL), left,
		    sizeof(left)) : "\xe2\x88\x9e");
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < r->nmount; i++) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s\xe2\x97\x8f %s %s", n ? " " :
		    "", r->mount_kind[i], r->mount_until[i] ?
		    mnt_left(r->mount_until[i], time(NULL), left,
		    sizeof(left)) : "\xe2\x88\x9e");
	}
	return buf;
}

int
dash_countdown(const struct dash *d)
{
	int	i, k;

	for (i = 0; i < d->nrows; i++) {
		if (strcmp(d->rows[i].in.net, "loose") == 0 &&
		    d->rows[i].in.net_until != 0)
			return 1;
		for (k = 0; k < d->rows[i].nmount; k++)
			if (d->rows[i].mount_until[k] != 0)
				return 1;
		if (d->rows[i].in.nmounts > 0 && d->rows[i].in.mount_until)
			return 1;
	}
	return 0;
}

void
dash_draw(struct dash *d)
{
	const struct dash_row	*r;
	char			 net[64], mnt[DASH_TEXT], head[1024];
	int			 i, y, list_h, det_y;
	const int		 wn = 24, ws = 8, wnet = 11, wa = 15, wb = 20,
				 wm = 18, ww = 16;

	erase();
	list_h = d->nrows + 1;
	if (list_h > LINES / 2)
		list_h = LINES / 2;
	if (list_h < 2)
		list_h = 2;
	d->list_h = list_h;
	snprintf(head, sizeof(head), "JailBee dashboard%s: %d container%s  "
	    "(? keys, q quits)", d->ctx.remote ? " over SSH (registered "
	    "repos)" : d->ctx.all ? " (every repo)" : "", d->nrows,
	    d->nrows == 1 ? "" : "s");
	attron(A_BOLD);
	dash_put(0, 0, COLS, head);
	attroff(A_BOLD);
	attron(A_UNDERLINE);
	move(1, 0);
	dash_put(1, 0, wn, "NAME");
	dash_put(1, wn + 1, ws, "STATE");
	dash_put(1, wn + ws + 2, wnet, "NET");
	dash_put(1, wn + ws + wnet + 3, wa, "ADDRESS");
	dash_put(1, wn + ws + wnet + wa + 4, wb, "BRANCH");
	dash_put(1, wn + ws + wnet + wa + wb + 5, wm, "MOUNTS");
	dash_put(1, wn + ws + wnet + wa + wb + wm + 6, ww, "WINDOWS");
	dash_put(1, wn + ws + wnet + wa + wb + wm + ww + 7, COLS - (wn + ws + wnet +
	    wa + wb + wm + ww + 7), "REFUSED");
	attroff(A_UNDERLINE);
	if (d->sel < d->top)
		d->top = d->sel;
	if (d->sel >= d->top + list_h - 1)
		d->top = d->sel - list_h + 2;
	if (d->top < 0)
		d->top = 0;
	for (i = d->top, y = 2; i < d->nrows && y < list_h + 1; i++, y++) {
		r = &d->rows[i];
		if (i == d->sel)
			attron(A_REVERSE);
		dash_put(y, 0, wn, r->in.name);
		dash_put(y, wn + 1, ws, r->in.state);
		dash_put(y, wn + ws + 2, wnet, net_col(r, net, sizeof(net)));
		dash_put(y, wn + ws + wnet + 3, wa, r->in.ipv4[0] ? r->in.ipv4 :
		    "-");
		dash_put(y, wn + ws + wnet + wa + 4, wb, r->in.branch[0] ?
		    r->in.branch : "-");
		dash_put(y, wn + ws + wnet + wa + wb + 5, wm, mount_col(r, mnt,
		    sizeof(mnt)));
		dash_put(y, wn + ws + wnet + wa + wb + wm + 6, ww,
		    d->ctx.remote ? "n/a" : r->windows[0] ? r->windows :
		    "-");
		dash_put(y, wn + ws + wnet + wa + wb + wm + ww + 7, COLS - (wn +
		    ws + wnet + wa + wb + wm + ww + 7), r->refused[0] ?
		    r->refused : "-");
		if (i == d->sel)
			attroff(A_REVERSE);
	}
	if (d->nrows == 0)
		dash_put(2, 0, COLS, "no containers (n makes one)");
	det_y = list_h + 2;
	if (d->nrows > 0 && d->det_ok && det_y < LINES - 1) {
		snprintf(head, sizeof(head), "%s: %s, branch %s, base %s, %s",
		    d->det.name, d->rows[d->sel].in.state,
		    d->rows[d->sel].in.branch[0] ? d->rows[d->sel].in.branch :
		    "-", d->rows[d->sel].in.base[0] ?
		    d->rows[d->sel].in.base : "-",
		    d->rows[d->sel].in.mode[0] ? d->rows[d->sel].in.mode :
		    "-");
		attron(A_BOLD);
		dash_put(det_y - 1, 0, COLS, head);
		attroff(A_BOLD);
		for (i = 0; i < d->det.nline && det_y + i < LINES - 1; i++)
			dash_put(det_y + i, 0, COLS, d->det.line[i]);
	}
	dash_put(LINES - 1, 0, COLS, d->status);
	refresh();
}

