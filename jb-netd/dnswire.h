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
 * The DNS wire format of one query and its answer (RFC 1035 4.1), for
 * jb-netd's TCP resolver (resolver_tcp.c): pure, no I/O, so that unit
 * tests and a fuzzer reach every byte of it.  Only what a stub resolver
 * sends is read: a header, exactly one question with an uncompressed
 * name; whatever follows the question (an EDNS OPT record) is ignored.
 * An answer echoes the question as it came and carries A records only.
 */

#ifndef JB_DNSWIRE_H
#define JB_DNSWIRE_H

#include <stddef.h>
#include <stdint.h>

#define DNSWIRE_HEADER		12
#define DNSWIRE_NAME_MAX	255	/* on the wire, the root label too */
#define DNSWIRE_TEXT_MAX	253	/* as text, no trailing dot */
/* a query bigger than this is no stub resolver's (EDNS options included) */
#define DNSWIRE_QUERY_MAX	1024
#define DNSWIRE_ANSWERS_MAX	64	/* A records in one answer */

#define DNSWIRE_TYPE_A		1
#define DNSWIRE_CLASS_IN	1

/* response codes (RFC 1035 4.1.1) */
#define DNSWIRE_NOERROR		0
#define DNSWIRE_FORMERR		1
#define DNSWIRE_SERVFAIL	2
#define DNSWIRE_NXDOMAIN	3
#define DNSWIRE_NOTIMP		4
#define DNSWIRE_REFUSED		5

struct dnswire_query {
	uint16_t	 id;
	uint8_t		 opcode;
	uint8_t		 rd;		/* recursion desired, echoed */
	uint16_t	 qtype;
	uint16_t	 qclass;
	/* the question as it came (name, type, class), echoed in answers */
	uint8_t		 question[DNSWIRE_NAME_MAX + 4];
	size_t		 questionlen;
	/* the name as text, labels joined by dots, no trailing dot */
	char		 name[DNSWIRE_TEXT_MAX + 1];
};

/*
 * Read the query msg[0..len).  Returns DNSWIRE_NOERROR with *q filled in;
 * DNSWIRE_FORMERR (or DNSWIRE_NOTIMP for an opcode other than QUERY) when
 * the header is readable but the rest is not a query jb-netd answers, with
 * q->id, q->opcode and q->rd set so that the error can be answered; or -1
 * when not even a header is there (nothing to answer).
 */
int	dnswire_query_parse(const uint8_t *msg, size_t len,
	    struct dnswire_query *q);

/*
 * Write the answer to q with rcode into out[0..outlen): the question
 * echoed (left out when q->questionlen is 0, as for FORMERR) and, for
 * DNSWIRE_NOERROR, naddrs A records of addrs (network byte order) with
 * ttl.  Returns the length written, or -1 if it does not fit or naddrs
 * exceeds DNSWIRE_ANSWERS_MAX.
 */
int	dnswire_answer(const struct dnswire_query *q, int rcode,
	    const uint32_t *addrs, int naddrs, uint32_t ttl, uint8_t *out,
	    size_t outlen);

/*
 * The query jb-netd sends upstream: id, recursion desired, one question
 * for name (text, one trailing dot allowed) of type qtype, class IN.
 * Returns its length, or -1 if name is no DNS name or out is too small.
 */
int	dnswire_ask(uint16_t id, const char *name, uint16_t qtype,
	    uint8_t *out, size_t outlen);
/*
 * DNS 0x20 (draft-vixie-dnsext-dns0x20): each letter of name made upper
 * or lower case by one bit of rnd[0..rndlen), so that a reply must echo
 * the question byte for byte, which a forger off the path cannot guess.
 */
void	dnswire_mix_case(char *name, const uint8_t *rnd, size_t rndlen);
/*
 * Read msg[0..len) as the reply to the query ask[0..asklen) (as
 * dnswire_ask wrote it).  -1: not its reply (another id, not a response,
 * the question not echoed byte for byte, case included): to be ignored.
 * Else the reply's response code; for NOERROR up to max A records of
 * class IN of the answer section go to addrs (network order) with
 * *naddrs, and their least TTL to *ttl; SERVFAIL when the answer
 * section is malformed.
 */
int	dnswire_reply_parse(const uint8_t *msg, size_t len,
	    const uint8_t *ask, size_t asklen, uint32_t *addrs, int max,
	    int *naddrs, uint32_t *ttl);

/* the most an answer can take: header, question and every record */
#define DNSWIRE_ANSWER_MAX	(DNSWIRE_HEADER + DNSWIRE_NAME_MAX + 4 + \
				DNSWIRE_ANSWERS_MAX * 16)

#endif /* JB_DNSWIRE_H */
