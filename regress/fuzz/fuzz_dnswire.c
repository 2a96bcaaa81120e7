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
 * most records) fits, echoes id and question, and parses back as no query
 * and as the reply to it.  Every input is also read as an upstream's
 * reply to a fixed query (dnswire_reply_parse): ignored, or a response
 * code with at most the records asked for.
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
	static uint32_t		 got[DNSWIRE_ANSWERS_MAX];
	uint8_t			 ask[DNSWIRE_HEADER + DNSWIRE_NAME_MAX + 4];
	size_t			 i, len;
	uint32_t		 ttl;
	int			 rc, n, asklen, ngot;

	asklen = dnswire_ask(0x1234, "wWw.ExaMple.TEST", DNSWIRE_TYPE_A, ask,
	    sizeof(ask));
	if (asklen == -1)
		abort();
	rc = dnswire_reply_parse(data, size, ask, (size_t)asklen, got, 8,
	    &ngot, &ttl);
	if (rc < -1 || rc > 15 || ngot < 0 || ngot > 8 ||
	    (rc != DNSWIRE_NOERROR && ngot != 0) ||
	    (rc != -1 && (size < (size_t)asklen || data[0] != 0x12 ||
	    data[1] != 0x34)) || ttl > 0x7fffffffU)
		abort();
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
	/* the answer is the reply to the query, every record read */
	if (dnswire_reply_parse(out, (size_t)n, data, DNSWIRE_HEADER +
	    q.questionlen, got, DNSWIRE_ANSWERS_MAX, &ngot, &ttl) !=
	    DNSWIRE_NOERROR || ngot != DNSWIRE_ANSWERS_MAX || ttl != 3600)
		abort();
	return 0;
}
