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
 * libFuzzer target for vtcurses.c, the SSH dashboard's screen: the bytes
 * are the client's keys (read by getch() to the end, whatever the
 * sequences) and, the second time, text drawn on a small screen: what
 * refresh() sends holds no C0 control but ESC, no DEL and no C1 control,
 * and each ESC starts a sequence of vtcurses' own (CSI or the keypad's).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtcurses.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const uint8_t	*in;
static size_t		 nin;
static unsigned char	 out[1 << 16];
static size_t		 nout;

static void
f_out(const void *p, size_t n)
{
	if (nout + n <= sizeof(out)) {
		memcpy(out + nout, p, n);
		nout += n;
	}
}

static int
f_in(int ms)
{
	if (nin == 0)
		return -2;
	nin--;
	return *in++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vt_io io = { f_out, f_in, 1 };
	char	*s;
	size_t	 i;
	MEVENT	 ev;
	int	 n = 0;

	in = data;
	nin = size;
	nout = 0;
	vt_begin(&io, 30, 6);
	/* every key read, to the end of the bytes */
	while (nin > 0 && n++ < 100000)
		if (getch() == KEY_MOUSE && getmouse(&ev) != OK)
			abort();
	/* the same bytes drawn */
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	nout = 0;
	erase();
	move(1, 2);
	addnstr(s, -1);
	move(3, 0);
	addnstr(s, 7);
	refresh();
	for (i = 0; i < nout; i++) {
		if (out[i] == 0x1b) {
			if (i + 1 >= nout || (out[i + 1] != '[' &&
			    out[i + 1] != '>' && out[i + 1] != '='))
				abort();
			continue;
		}
		if (out[i] < 0x20 || out[i] == 0x7f)
			abort();
		/* a C1 control in UTF-8: U+0080..U+009F */
		if (out[i] == 0xc2 && i + 1 < nout && out[i + 1] >= 0x80 &&
		    out[i + 1] <= 0x9f)
			abort();
	}
	vt_end();
	free(s);
	return 0;
}
