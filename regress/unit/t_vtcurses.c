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
 * vtcurses, the SSH dashboard's screen: nothing drawn reaches the
 * terminal as a control byte, UTF-8 is decoded without a locale, and the
 * keys a terminal sends are read as the dashboard's keys.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "vtcurses.h"

static char	 out[65536];
static size_t	 nout;
static const char *in;
static size_t	 nin;

static void
t_out(const void *p, size_t n)
{
	if (nout + n < sizeof(out)) {
		memcpy(out + nout, p, n);
		nout += n;
	}
	out[nout] = '\0';
}

static int
t_in(int ms)
{
	if (nin == 0)
		return -1;
	nin--;
	return (unsigned char)*in++;
}

static void
feed(const char *s)
{
	in = s;
	nin = strlen(s);
}

static const struct vt_io io = { t_out, t_in, 1 };

/* the bytes refresh() sent with its own sequences taken out */
static void
text_only(char *buf, size_t len)
{
	size_t	i = 0, k = 0;

	while (i < nout && k + 1 < len) {
		if (out[i] == '\033') {
			/* CSI ... final, or ESC and one byte */
			i++;
			if (i < nout && out[i] == '[') {
				i++;
				while (i < nout && !(out[i] >= 0x40 &&
				    out[i] <= 0x7e))
					i++;
			}
			i++;
			continue;
		}
		buf[k++] = out[i++];
	}
	buf[k] = '\0';
}

ATF_TC_WITHOUT_HEAD(controls_never_drawn);
ATF_TC_BODY(controls_never_drawn, tc)
{
	char	text[65536];
	size_t	i;

	nout = 0;
	vt_begin(&io, 40, 5);
	nout = 0;
	move(1, 0);
	addnstr("a\033[31mb\007c\302\233d\x7f", -1);
	refresh();
	text_only(text, sizeof(text));
	ATF_CHECK_MSG(strstr(text, "a?[31mb?c?d?") != NULL, "drawn: %s",
	    text);
	/* no byte below 0x20 nor DEL but the sequences' own ESC */
	for (i = 0; i < nout; i++)
		ATF_CHECK_MSG(out[i] == '\033' || ((unsigned char)out[i] >=
		    0x20 && out[i] != 0x7f), "byte %02x at %zu",
		    (unsigned char)out[i], i);
	/* a C1 control is two UTF-8 bytes: never sent */
	ATF_CHECK(strstr(out, "\302\233") == NULL);
	vt_end();
}

ATF_TC_WITHOUT_HEAD(utf8_without_locale);
ATF_TC_BODY(utf8_without_locale, tc)
{
	wchar_t	ws[16];

	ATF_CHECK_EQ(vt_mbstowcs(ws, "\xe2\x88\x9e \xe2\x97\x8f", 16), 3);
	ATF_CHECK_EQ(ws[0], 0x221e);
	ATF_CHECK_EQ(ws[2], 0x25cf);
	/* a broken sequence and a C1 control: ? */
	ATF_CHECK_EQ(vt_mbstowcs(ws, "\xe2x\xc2\x9b", 16), 3);
	ATF_CHECK_EQ(ws[0], L'?');
	ATF_CHECK_EQ(ws[1], L'x');
	ATF_CHECK_EQ(ws[2], L'?');
}

ATF_TC_WITHOUT_HEAD(only_changed_lines);
ATF_TC_BODY(only_changed_lines, tc)
{
	nout = 0;
	vt_begin(&io, 20, 4);
	move(0, 0);
	addnstr("one", -1);
	move(2, 0);
	addnstr("two", -1);
	refresh();
	nout = 0;
	move(2, 0);
	addnstr("TWO", -1);
	refresh();
	/* line 3 alone went out again */
	ATF_CHECK(strstr(out, "\033[3;1H") != NULL);
	ATF_CHECK(strstr(out, "\033[1;1H") == NULL);
	ATF_CHECK(strstr(out, "TWO") != NULL);
	nout = 0;
	refresh();
	ATF_CHECK_EQ(nout, 0);
	vt_end();
}

ATF_TC_WITHOUT_HEAD(keys);
ATF_TC_BODY(keys, tc)
{
	MEVENT	ev;

	vt_begin(&io, 80, 24);
	feed("\033[A\033OBx\033[5~\033[6~\r\177");
	ATF_CHECK_EQ(getch(), KEY_UP);
	ATF_CHECK_EQ(getch(), KEY_DOWN);
	ATF_CHECK_EQ(getch(), 'x');
	ATF_CHECK_EQ(getch(), KEY_PPAGE);
	ATF_CHECK_EQ(getch(), KEY_NPAGE);
	ATF_CHECK_EQ(getch(), '\r');
	ATF_CHECK_EQ(getch(), KEY_BACKSPACE);
	/* Escape alone: nothing follows it */
	feed("\033");
	ATF_CHECK_EQ(getch(), 27);
	/* a click (SGR report): button 1 at column 5, line 3 */
	feed("\033[<0;5;3M");
	ATF_CHECK_EQ(getch(), KEY_MOUSE);
	ATF_CHECK_EQ(getmouse(&ev), OK);
	ATF_CHECK_EQ(ev.x, 4);
	ATF_CHECK_EQ(ev.y, 2);
	/* the release and the wheel are no click */
	feed("\033[<0;5;3m\033[<64;5;3M");
	ATF_CHECK_EQ(getch(), ERR);
	ATF_CHECK_EQ(getch(), ERR);
	/* a new size is a key of its own */
	vt_resize(100, 30);
	ATF_CHECK(vt_pending());
	ATF_CHECK_EQ(getch(), KEY_RESIZE);
	ATF_CHECK_EQ(COLS, 100);
	ATF_CHECK_EQ(LINES, 30);
	vt_end();
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controls_never_drawn);
	ATF_TP_ADD_TC(tp, utf8_without_locale);
	ATF_TP_ADD_TC(tp, only_changed_lines);
	ATF_TP_ADD_TC(tp, keys);
	return atf_no_error();
}
