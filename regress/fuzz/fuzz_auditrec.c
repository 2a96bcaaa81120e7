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
 * libFuzzer target for auditrec.c: jbctl audit parses the journal's
 * lines back (audit_match, audit_text), and the formatter takes values a
 * container chose.  Whatever the bytes: no crash, the text has no C0
 * control but tab and no DEL, and a record made of them formats to a
 * line that audit_match reads back.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auditrec.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_filter	 f;
	struct audit_rec	 r;
	char			*s, line[AUDIT_LINE_MAX], text[AUDIT_LINE_MAX];
	size_t			 i;
	int			 n;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&f, 0, sizeof(f));
	f.cutoff = "2026";
	f.action = "net";
	(void)audit_match(s, &f);
	if ((n = audit_text(s, text, sizeof(text))) >= 0)
		for (i = 0; i < (size_t)n; i++)
			if (((unsigned char)text[i] < 0x20 && text[i] != '\t') ||
			    text[i] == 0x7f)
				abort();
	memset(&r, 0, sizeof(r));
	r.when = 1767225600;
	r.actor = r.container = r.repo = r.decision = r.reason = s;
	r.action = "net.x";
	audit_str(&r, "top", s);
	if ((n = audit_format(&r, line, sizeof(line))) < 0)
		abort();
	for (i = 0; i < (size_t)n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			abort();
	f.container = NULL;
	if (audit_match(line, &f) != 1)
		abort();
	free(s);
	return 0;
}
