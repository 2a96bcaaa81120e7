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
 * libFuzzer target for jb-netd's DNS query parser (dnswire.c), which reads
 * whatever a container sends over TCP: every input is refused or parsed;
 * what parses has a printable, bounded name, and its answer (with the
 * most records) fits, echoes id and question, and parses back as no query.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnswire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnswire_query	 q, again;
	static uint32_t		 addrs[DNSWIRE_ANSWERS_MAX];
	uint8_t			 out[DNSWIRE_ANSWER_MAX];
	size_t			 i, len;
	int			 rc, n;

	rc = dnswire_query_parse(data, size, &q);
	if (rc == -1) {
		if (size >= DNSWIRE_HEADER)
			abort();
		return 0;
	}
	if (size < DNSWIRE_HEADER || q.id != (data[0] << 8 | data[1]))
		abort();
	len = strlen(q.name);
	if (len > DNSWIRE_TEXT_MAX || q.questionlen > sizeof(q.question))
		abort();
	for (i = 0; i < len; i++)
		if (q.name[i] <= 0x20 || q.name[i] >= 0x7f)
			abort();
	if (rc != DNSWIRE_NOERROR) {
		if (q.questionlen != 0 || (rc != DNSWIRE_FORMERR &&
		    rc != DNSWIRE_NOTIMP))
			abort();
		n = dnswire_answer(&q, rc, NULL, 0, 0, out, sizeof(out));
		if (n != DNSWIRE_HEADER)
			abort();
		return 0;
	}
	if (q.questionlen < 5 || memcmp(q.question, data + DNSWIRE_HEADER,
	    q.questionlen) != 0)
		abort();
	n = dnswire_answer(&q, DNSWIRE_NOERROR, addrs, DNSWIRE_ANSWERS_MAX,
	    3600, out, sizeof(out));
	if (n != (int)(DNSWIRE_HEADER + q.questionlen +
	    DNSWIRE_ANSWERS_MAX * 16) || out[0] != data[0] ||
	    out[1] != data[1] || memcmp(out + DNSWIRE_HEADER, q.question,
	    q.questionlen) != 0)
		abort();
	if (dnswire_query_parse(out, (size_t)n, &again) != DNSWIRE_FORMERR)
		abort();
	return 0;
}
