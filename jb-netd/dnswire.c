/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdint.h>
#include <string.h>

#include "dnswire.h"

#define OPCODE_QUERY	0

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * The question's name at msg[off..len) into q->name.  Returns the offset
 * after it, or 0 if it is malformed.  Compression pointers are refused: a
 * query's only name has nothing earlier to point at.  So is a label byte
 * no host name has (a dot, a control or non-ASCII byte): such a name
 * matches no allowlist entry, and its text would garble the logs.
 */
static size_t
name_parse(const uint8_t *msg, size_t len, size_t off,
    struct dnswire_query *q)
{
	size_t	start = off, t = 0, l, i;

	for (;;) {
		if (off >= len)
			return 0;
		l = msg[off];
		if (l == 0)
			break;
		if ((l & 0xc0) != 0)
			return 0;
		/* this label, its length byte and the root label's */
		if (off - start + 1 + l + 1 > DNSWIRE_NAME_MAX ||
		    off + 1 + l > len)
			return 0;
		if (t > 0)
			q->name[t++] = '.';
		for (i = 0; i < l; i++) {
			uint8_t	c = msg[off + 1 + i];

			if (c <= 0x20 || c >= 0x7f || c == '.')
				return 0;
			q->name[t++] = (char)c;
		}
		off += 1 + l;
	}
	q->name[t] = '\0';
	return off + 1;
}

int
dnswire_query_parse(const uint8_t *msg, size_t len, struct dnswire_query *q)
{
	size_t	end;

	memset(q, 0, sizeof(*q));
	if (len < DNSWIRE_HEADER)
		return -1;
	q->id = get16(msg);
	q->opcode = (msg[2] >> 3) & 0x0f;
	q->rd = msg[2] & 0x01;
	/* an answer is no question */
	if ((msg[2] & 0x80) != 0)
		return DNSWIRE_FORMERR;
	if (q->opcode != OPCODE_QUERY)
		return DNSWIRE_NOTIMP;
	/* one question, nothing in answer and authority; additional is EDNS */
	if (get16(msg + 4) != 1 || get16(msg + 6) != 0 ||
	    get16(msg + 8) != 0)
		return DNSWIRE_FORMERR;
	if ((end = name_parse(msg, len, DNSWIRE_HEADER, q)) == 0 ||
	    end + 4 > len) {
		q->name[0] = '\0';
		return DNSWIRE_FORMERR;
	}
	q->qtype = get16(msg + end);
	q->qclass = get16(msg + end + 2);
	q->questionlen = end + 4 - DNSWIRE_HEADER;
	memcpy(q->question, msg + DNSWIRE_HEADER, q->questionlen);
	return DNSWIRE_NOERROR;
}

int
dnswire_answer(const struct dnswire_query *q, int rcode,
    const uint32_t *addrs, int naddrs, uint32_t ttl, uint8_t *out,
    size_t outlen)
{
	size_t	need, off;
	int	i;

	if (rcode != DNSWIRE_NOERROR)
		naddrs = 0;
	if (naddrs < 0 || naddrs > DNSWIRE_ANSWERS_MAX ||
	    q->questionlen > sizeof(q->question) ||
	    (naddrs > 0 && q->questionlen == 0) || rcode < 0 || rcode > 15)
		return -1;
	need = DNSWIRE_HEADER + q->questionlen + (size_t)naddrs * 16;
	if (need > outlen)
		return -1;
	put16(out, q->id);
	/* a response, the query's opcode and RD; recursion is available */
	out[2] = (uint8_t)(0x80 | (q->opcode & 0x0f) << 3 | (q->rd & 0x01));
	out[3] = (uint8_t)(0x80 | rcode);
	put16(out + 4, q->questionlen > 0 ? 1 : 0);
	put16(out + 6, (uint16_t)naddrs);
	put16(out + 8, 0);
	put16(out + 10, 0);
	off = DNSWIRE_HEADER;
	memcpy(out + off, q->question, q->questionlen);
	off += q->questionlen;
	for (i = 0; i < naddrs; i++) {
		/* the owner is the question's name, at offset 12 */
		put16(out + off, 0xc000 | DNSWIRE_HEADER);
		put16(out + off + 2, DNSWIRE_TYPE_A);
		put16(out + off + 4, DNSWIRE_CLASS_IN);
		put16(out + off + 6, (uint16_t)(ttl >> 16));
		put16(out + off + 8, (uint16_t)ttl);
		put16(out + off + 10, 4);
		memcpy(out + off + 12, &addrs[i], 4);
		off += 16;
	}
	return (int)off;
}

int
dnswire_ask(uint16_t id, const char *name, uint16_t qtype, uint8_t *out,
    size_t outlen)
{
	size_t		 off = DNSWIRE_HEADER, l;
	const char	*p = name, *dot;

	if (outlen < DNSWIRE_HEADER + 1 + 4)
		return -1;
	memset(out, 0, DNSWIRE_HEADER);
	put16(out, id);
	out[2] = 0x01;			/* recursion desired */
	put16(out + 4, 1);
	while (*p != '\0') {
		dot = strchr(p, '.');
		l = dot != NULL ? (size_t)(dot - p) : strlen(p);
		if (l == 0 || l > 63 ||
		    off - DNSWIRE_HEADER + 1 + l + 1 > DNSWIRE_NAME_MAX ||
		    off + 1 + l + 1 + 4 > outlen)
			return -1;
		out[off++] = (uint8_t)l;
		memcpy(out + off, p, l);
		off += l;
		p += l;
		if (*p == '.' && *++p == '\0')
			break;	/* one trailing dot: the root */
	}
	out[off++] = 0;
	put16(out + off, qtype);
	put16(out + off + 2, DNSWIRE_CLASS_IN);
	return (int)(off + 4);
}

void
dnswire_mix_case(char *name, const uint8_t *rnd, size_t rndlen)
{
	size_t	i;

	for (i = 0; name[i] != '\0'; i++) {
		char	c = name[i];
		int	up = rndlen > 0 && (rnd[(i / 8) % rndlen] >> (i % 8) & 1);

		if (c >= 'a' && c <= 'z' && up)
			name[i] = (char)(c - 'a' + 'A');
		else if (c >= 'A' && c <= 'Z' && !up)
			name[i] = (char)(c - 'A' + 'a');
	}
}

/* past the name at msg[off..len), compressed or not; 0 if malformed */
static size_t
name_skip(const uint8_t *msg, size_t len, size_t off)
{
	size_t	l;

	for (;;) {
		if (off >= len)
			return 0;
		l = msg[off];
		if (l == 0)
			return off + 1;
		if ((l & 0xc0) == 0xc0)
			return off + 2 <= len ? off + 2 : 0;
		if ((l & 0xc0) != 0 || off + 1 + l > len)
			return 0;
		off += 1 + l;
	}
}

int
dnswire_reply_parse(const uint8_t *msg, size_t len, const uint8_t *ask,
    size_t asklen, uint32_t *addrs, int max, int *naddrs, uint32_t *ttl)
{
	size_t		 qlen, off;
	uint16_t	 an, type, class, rdlen, i;
	uint32_t	 t, least = UINT32_MAX;
	int		 rcode, n = 0;

	*naddrs = 0;
	*ttl = 0;
	if (asklen < DNSWIRE_HEADER || len < asklen)
		return -1;
	qlen = asklen - DNSWIRE_HEADER;
	/* ours: the id, a response, one question echoed byte for byte */
	if (get16(msg) != get16(ask) || (msg[2] & 0x80) == 0 ||
	    ((msg[2] >> 3) & 0x0f) != OPCODE_QUERY || get16(msg + 4) != 1 ||
	    memcmp(msg + DNSWIRE_HEADER, ask + DNSWIRE_HEADER, qlen) != 0)
		return -1;
	rcode = msg[3] & 0x0f;
	if (rcode != DNSWIRE_NOERROR)
		return rcode;
	an = get16(msg + 6);
	off = asklen;
	for (i = 0; i < an; i++) {
		if ((off = name_skip(msg, len, off)) == 0 || off + 10 > len)
			return DNSWIRE_SERVFAIL;
		type = get16(msg + off);
		class = get16(msg + off + 2);
		t = (uint32_t)get16(msg + off + 4) << 16 | get16(msg + off + 6);
		rdlen = get16(msg + off + 8);
		off += 10;
		if (off + rdlen > len)
			return DNSWIRE_SERVFAIL;
		if (type == DNSWIRE_TYPE_A && class == DNSWIRE_CLASS_IN &&
		    rdlen == 4 && n < max) {
			memcpy(&addrs[n++], msg + off, 4);
			/* RFC 2181 8: a TTL with the top bit set is zero */
			if (t > 0x7fffffffU)
				t = 0;
			if (t < least)
				least = t;
		}
		off += rdlen;
	}
	*naddrs = n;
	*ttl = n > 0 ? least : 0;
	return DNSWIRE_NOERROR;
}
