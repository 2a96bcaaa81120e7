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
 * The dashboard's curses calls for the SSH session (vtcurses.h): the
 * screen is a buffer of cells; refresh() sends the lines that changed
 * since the last one, each whole, with the attributes in SGR.  Every
 * character drawn went through dash_clean() or is the dashboard's own,
 * and a cell holds one printable character or a blank: nothing drawn
 * can be a control sequence.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vtcurses.h"

#define VT_MAXCOLS	1000
#define VT_MAXROWS	500
#define VT_ESC_MS	50	/* the rest of a key's sequence comes this soon */

struct cell {
	uint32_t	ch;
	uint8_t		attr;
};

int			 LINES = 24, COLS = 80;
static struct vt_io	 io;
static struct cell	*scr, *old;
static int		 cy, cx, cattr, resized, on, full;
static int		 pend = -1;	/* a byte read ahead */
static MEVENT		 mouse_ev;

static void
vt_alloc(int cols, int rows)
{
	if (cols < 1)
		cols = 80;
	if (rows < 1)
		rows = 24;
	if (cols > VT_MAXCOLS)
		cols = VT_MAXCOLS;
	if (rows > VT_MAXROWS)
		rows = VT_MAXROWS;
	free(scr);
	free(old);
	COLS = cols;
	LINES = rows;
	scr = calloc((size_t)cols * rows, sizeof(*scr));
	old = calloc((size_t)cols * rows, sizeof(*old));
	if (scr == NULL || old == NULL) {
		free(scr);
		free(old);
		scr = old = NULL;
		COLS = LINES = 0;
	}
	full = 1;
	erase();
}

static void
put(const char *s)
{
	io.out(s, strlen(s));
}

void
vt_begin(const struct vt_io *v, int cols, int rows)
{
	io = *v;
	vt_alloc(cols, rows);
	on = 1;
	/* the alternate screen, no cursor, keys as sequences */
	put("\033[?1049h\033[?25l\033[?1h\033=");
	if (io.mouse)
		put("\033[?1000h\033[?1006h");
	put("\033[H\033[2J");
	full = 1;
}

void
vt_end(void)
{
	if (!on)
		return;
	if (io.mouse)
		put("\033[?1006l\033[?1000l");
	put("\033[0m\033[?1l\033>\033[?25h\033[?1049l");
	on = 0;
}

void
vt_resize(int cols, int rows)
{
	vt_alloc(cols, rows);
	resized = 1;
}

size_t
vt_mbstowcs(wchar_t *ws, const char *s, size_t max)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n = 0;
	uint32_t		 c;
	int			 k, i;

	while (*p != '\0' && n < max) {
		if (*p < 0x80) {
			c = *p++;
			k = 0;
		} else if ((*p & 0xe0) == 0xc0) {
			c = *p++ & 0x1f;
			k = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			c = *p++ & 0x0f;
			k = 2;
		} else if ((*p & 0xf8) == 0xf0) {
			c = *p++ & 0x07;
			k = 3;
		} else {
			p++;
			c = '?';
			k = 0;
		}
		for (i = 0; i < k; i++) {
			if ((*p & 0xc0) != 0x80) {
				c = '?';
				break;
			}
			c = (c << 6) | (*p++ & 0x3f);
		}
		/* controls never reach a cell */
		if (c < 0x20 || (c >= 0x7f && c < 0xa0))
			c = '?';
		ws[n++] = (wchar_t)c;
	}
	if (n < max)
		ws[n] = L'\0';
	return n;
}

void
erase(void)
{
	int	i;

	for (i = 0; i < COLS * LINES; i++) {
		scr[i].ch = ' ';
		scr[i].attr = 0;
	}
	cy = cx = 0;
}

int
move(int y, int x)
{
	cy = y;
	cx = x;
	return OK;
}

static void
cell(uint32_t c)
{
	if (c < 0x20 || (c >= 0x7f && c < 0xa0))
		c = '?';
	if (cy >= 0 && cy < LINES && cx >= 0 && cx < COLS) {
		scr[cy * COLS + cx].ch = c;
		scr[cy * COLS + cx].attr = cattr;
	}
	cx++;
}

int
clrtoeol(void)
{
	int	x = cx;

	while (cx < COLS)
		cell(' ');
	cx = x;
	return OK;
}

int
attron(int a)
{
	cattr |= a;
	return OK;
}

int
attroff(int a)
{
	cattr &= ~a;
	return OK;
}

int
addch(int c)
{
	cell((uint32_t)(c & 0xff));
	return OK;
}

int
addnstr(const char *s, int n)
{
	wchar_t	ws[1024];
	char	buf[1024];
	size_t	len, i;

	len = strlen(s);
	if (n >= 0 && (size_t)n < len)
		len = n;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	len = vt_mbstowcs(ws, buf, 1023);
	for (i = 0; i < len; i++)
		cell((uint32_t)ws[i]);
	return OK;
}

int
addnwstr(const wchar_t *ws, int n)
{
	int	i;

	for (i = 0; (n < 0 || i < n) && ws[i] != L'\0'; i++)
		cell((uint32_t)ws[i]);
	return OK;
}

int
curs_set(int v)
{
	return OK;
}

static void
sgr(int a)
{
	char	buf[32];

	snprintf(buf, sizeof(buf), "\033[0%s%s%sm", a & A_BOLD ? ";1" : "",
	    a & A_UNDERLINE ? ";4" : "", a & A_REVERSE ? ";7" : "");
	put(buf);
}

static void
utf8(uint32_t c)
{
	char	b[4];
	size_t	n;

	if (c < 0x80) {
		b[0] = c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = 0xc0 | (c >> 6);
		b[1] = 0x80 | (c & 0x3f);
		n = 2;
	} else if (c < 0x10000) {
		b[0] = 0xe0 | (c >> 12);
		b[1] = 0x80 | ((c >> 6) & 0x3f);
		b[2] = 0x80 | (c & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | (c >> 18);
		b[1] = 0x80 | ((c >> 12) & 0x3f);
		b[2] = 0x80 | ((c >> 6) & 0x3f);
		b[3] = 0x80 | (c & 0x3f);
		n = 4;
	}
	io.out(b, n);
}

int
refresh(void)
{
	char	buf[32];
	int	y, x, a;

	if (!on || scr == NULL)
		return ERR;
	if (full)
		put("\033[0m\033[H\033[2J");
	for (y = 0; y < LINES; y++) {
		if (!full && memcmp(&scr[y * COLS], &old[y * COLS],
		    COLS * sizeof(*scr)) == 0)
			continue;
		snprintf(buf, sizeof(buf), "\033[%d;1H", y + 1);
		put(buf);
		a = -1;
		/* the last column is left alone: a terminal may scroll */
		for (x = 0; x < COLS - (y == LINES - 1); x++) {
			if (scr[y * COLS + x].attr != a) {
				a = scr[y * COLS + x].attr;
				sgr(a);
			}
			utf8(scr[y * COLS + x].ch);
		}
		put("\033[0m");
	}
	memcpy(old, scr, (size_t)COLS * LINES * sizeof(*scr));
	full = 0;
	return OK;
}

static int
byte(int ms)
{
	int	c;

	if (pend != -1) {
		c = pend;
		pend = -1;
		return c;
	}
	return io.in(ms);
}

int
vt_pending(void)
{
	if (resized || pend != -1)
		return 1;
	if ((pend = io.in(0)) < 0)
		pend = -1;
	return pend != -1;
}

/* ESC [ < b ; x ; y M|m: xterm's SGR mouse report */
static int
sgr_mouse(void)
{
	int	v[3] = { 0, 0, 0 }, i = 0, c;

	while ((c = byte(VT_ESC_MS)) >= 0) {
		if (c >= '0' && c <= '9' && i < 3)
			v[i] = v[i] * 10 + (c - '0');
		else if (c == ';')
			i++;
		else
			break;
	}
	if ((c != 'M' && c != 'm') || i != 2)
		return ERR;
	memset(&mouse_ev, 0, sizeof(mouse_ev));
	mouse_ev.x = v[1] - 1;
	mouse_ev.y = v[2] - 1;
	/* a press of the first button, no motion, no wheel */
	if (c != 'M' || (v[0] & ~0x1c) != 0)
		return ERR;
	mouse_ev.bstate = BUTTON1_PRESSED;
	return KEY_MOUSE;
}

int
getch(void)
{
	int	c, d, n;

	if (resized) {
		resized = 0;
		return KEY_RESIZE;
	}
	if ((c = byte(-1)) < 0)
		return ERR;
	if (c == 127 || c == 8)
		return KEY_BACKSPACE;
	if (c != 27)
		return c;
	/* ESC alone, or a key's sequence */
	if ((d = byte(VT_ESC_MS)) < 0)
		return 27;
	if (d != '[' && d != 'O') {
		pend = d;
		return 27;
	}
	if ((c = byte(VT_ESC_MS)) < 0)
		return 27;
	switch (c) {
	case 'A':
		return KEY_UP;
	case 'B':
		return KEY_DOWN;
	case 'C':
		return KEY_RIGHT;
	case 'D':
		return KEY_LEFT;
	case 'M':
		if (d == 'O')
			return KEY_ENTER;
		break;
	case '<':
		if (d == '[')
			return sgr_mouse();
		break;
	}
	/* ESC [ n ~ (5: page up, 6: page down); the rest is skipped */
	n = 0;
	while (c >= '0' && c <= '9') {
		n = n * 10 + (c - '0');
		if ((c = byte(VT_ESC_MS)) < 0)
			return ERR;
	}
	while (c >= 0 && (c < 0x40 || c > 0x7e))
		c = byte(VT_ESC_MS);
	if (c == '~' && n == 5)
		return KEY_PPAGE;
	if (c == '~' && n == 6)
		return KEY_NPAGE;
	return ERR;
}

int
getmouse(MEVENT *ev)
{
	*ev = mouse_ev;
	return OK;
}
