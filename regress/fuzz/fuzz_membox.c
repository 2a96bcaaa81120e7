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
 * libFuzzer target for the cluster mailbox (membox.c): an answer,
 * request or id another member's suite wrote, whatever its bytes.  Each
 * record read is written again and must read back the same.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "membox.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct membox_out	o;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct membox_rec	rec, again;
	char			*s, name[64], since[MEMBOX_SINCE_MAX];
	char			 asker[64];
	size_t			 pos = 0, opos, len;
	int64_t			 t;
	int			 verb, rc;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)membox_ask_parse(s, &verb, name, sizeof(name), since,
	    sizeof(since));
	(void)membox_id_parse(s, asker, sizeof(asker), &t);
	while ((rc = membox_next(s, &pos, &rec)) == 1) {
		if (pos > size)
			abort();
		memset(&o, 0, sizeof(o));
		switch (rec.type) {
		case IMSG_CTL_PROGRESS:
		case IMSG_CTL_ERROR:
			len = sizeof(rec.u.text);
			break;
		case IMSG_CTL_NET_BLOCK:
			len = sizeof(rec.u.block);
			break;
		case IMSG_CTL_NET_RESOLVED:
			len = sizeof(rec.u.resolved);
			break;
		case IMSG_CTL_OUTPUT:
			len = sizeof(rec.u.output);
			break;
		default:
			len = 0;
		}
		if (membox_put(&o, rec.type, &rec.u, len, 0) == -1)
			continue;	/* longer escaped than one answer */
		opos = 0;
		if (membox_next(o.buf, &opos, &again) != 1 ||
		    again.type != rec.type ||
		    memcmp(&again.u, &rec.u, len) != 0)
			abort();
	}
	free(s);
	return 0;
}
