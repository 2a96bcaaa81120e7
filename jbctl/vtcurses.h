/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JBCTL_VTCURSES_H
#define JBCTL_VTCURSES_H

/*
 * The few curses calls the dashboard's screen code makes, for the SSH
 * session that draws it: a cell buffer turned into ANSI (ECMA-48 and
 * the xterm private modes every terminal emulator in use speaks) and
 * written through a hook, keys read through another.  No terminfo, no
 * file, no ioctl: the session, chrooted with no path at all, draws
 * with what it already may do (write to its SSH channel).
 */

#include <stddef.h>
#include <wchar.h>

#define OK	0
#define ERR	(-1)

#define A_NORMAL	0x00
#define A_BOLD		0x01
#define A_REVERSE	0x02
#define A_UNDERLINE	0x04

/* the values ncurses gives them, so that a reader knows them */
#define KEY_DOWN	0402
#define KEY_UP		0403
#define KEY_LEFT	0404
#define KEY_RIGHT	0405
#define KEY_BACKSPACE	0407
#define KEY_NPAGE	0522
#define KEY_PPAGE	0523
#define KEY_ENTER	0527
#define KEY_MOUSE	0631
#define KEY_RESIZE	0632

typedef struct {
	short	id;
	int	x, y, z;
	unsigned long bstate;
} MEVENT;
#define BUTTON1_PRESSED		0x2UL
#define BUTTON1_CLICKED		0x4UL

extern int	LINES, COLS;

/*
 * The hooks: out writes bytes to the terminal; in returns the next byte
 * typed, waiting up to ms milliseconds (-1: as long as it takes), -1
 * when none came in time and -2 when there will be no more.
 */
struct vt_io {
	void	(*out)(const void *, size_t);
	int	(*in)(int ms);
	int	  mouse;	/* report clicks (xterm's SGR mode) */
};

/* take the terminal (alternate screen, no cursor), cols x rows */
void	vt_begin(const struct vt_io *, int cols, int rows);
/* give it back as it was; vt_begin() takes it again */
void	vt_end(void);
/* a new size: the next getch() says KEY_RESIZE */
void	vt_resize(int cols, int rows);
/* 1 when a key is waiting, without waiting for one */
int	vt_pending(void);
/* UTF-8 to wide characters, whatever the locale (the session has none) */
size_t	vt_mbstowcs(wchar_t *, const char *, size_t);

void	erase(void);
int	move(int, int);
int	clrtoeol(void);
int	attron(int);
int	attroff(int);
int	addch(int);
int	addnstr(const char *, int);
int	addnwstr(const wchar_t *, int);
int	refresh(void);
int	getch(void);
int	getmouse(MEVENT *);
int	curs_set(int);

#endif /* JBCTL_VTCURSES_H */
