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
 * egress_allow entries (FEATURES.md N2): parsing, canonical printing and
 * matching DNS names against them.  Pure functions, no I/O.
 *
 * Accepted forms, each port optionally followed by /tcp or /udp:
 *	host		host:port	e.g. github.com, api.github.com:443
 *	ipv4		ipv4:port	e.g. 192.0.2.7, 192.0.2.7:53/udp
 *	cidr		cidr:port	e.g. 10.0.0.0/8, 10.0.0.0/8:5432
 *	*.domain	*.domain:port	e.g. *.example.com, *.example.com:443
 *
 * Decisions:
 *  - A port without a protocol means TCP; no port means any protocol.
 *  - A protocol needs a port ("host:53/udp"): "1.2.3.4/udp" would read
 *    like a CIDR and "any port over UDP" is wider than anyone means.
 *  - Port ranges are refused.  Single ports keep every kernel set element
 *    a point in the port dimension, so elements admitted for different
 *    entries can never partly overlap (nft refuses overlapping interval
 *    elements); list each port as its own entry.
 *  - Names follow RFC 1123: labels of 1-63 [a-z0-9-] without a leading or
 *    trailing hyphen, 253 characters in all; upper case is folded and one
 *    trailing dot dropped.  A name whose last label is all digits is taken
 *    as an IPv4 address, so "1.2.3" or "256.0.0.1" are refused as such
 *    rather than looked up.  Non-ASCII (IDN) names must be given in their
 *    xn-- form.
 *  - "*." only as the whole first label, over at least two labels:
 *    "*.com" is refused; public suffixes like "*.co.uk" cannot be told
 *    apart without a suffix list and are accepted.
 *  - A wildcard matches every name with one or more labels in front of
 *    the domain ("a.example.com", "a.b.example.com") and never the bare
 *    domain: allow "example.com" as well if that is wanted.
 *  - IPv4 is dotted-quad decimal only (no octal, hex, leading zeros or
 *    short forms); a CIDR must have its host bits clear.  IPv6 is refused:
 *    containers' IPv6 is dropped until it is filtered as carefully.
 */

#ifndef JB_POLICY_H
#define JB_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define EGRESS_NAME_MAX		253	/* a DNS name, no trailing dot */
#define EGRESS_ENTRY_MAX	300	/* longest entry text accepted */
#define EGRESS_FMT_MAX		(EGRESS_NAME_MAX + 16)	/* "*." ":65535/udp" */
#define EGRESS_AGENT_MAX	32	/* an agent's name (RC_AGENT_NAME_MAX) */

enum egress_kind {
	EGRESS_NAME,		/* exact host name */
	EGRESS_WILDCARD,	/* *.name: strict subdomains of name */
	EGRESS_ADDR,		/* one IPv4 address (prefixlen 32) */
	EGRESS_CIDR		/* an IPv4 network */
};

enum egress_proto {
	EGRESS_PROTO_ANY,	/* only with port 0 */
	EGRESS_PROTO_TCP,
	EGRESS_PROTO_UDP
};

struct egress_entry {
	enum egress_kind	 kind;
	enum egress_proto	 proto;
	uint16_t		 port;		/* 0: any port (and protocol) */
	uint8_t			 prefixlen;	/* ADDR, CIDR: 0-32 */
	uint32_t		 addr;		/* ADDR, CIDR: host order */
	/* NAME: the host; WILDCARD: the domain after "*."; else "" */
	char			 name[EGRESS_NAME_MAX + 1];
	/*
	 * jb-netd's tag, not part of the entry: "" or the agent whose
	 * egress_allow brought it (origin agent:<name>).  Parsing leaves
	 * it empty; equality and printing ignore it.
	 */
	char			 agent[EGRESS_AGENT_MAX + 1];
};

/*
 * Parse one egress_allow entry into *e.  Returns 0, or -1 with a message
 * in err that quotes the entry and says what is accepted, e.g.
 *	egress_allow entry "foo:99999": port must be 1-65535
 * *e is written only on success.
 */
int	 policy_parse_entry(const char *s, struct egress_entry *e, char *err,
	    size_t errlen);
/*
 * The canonical text of e (what policy_parse_entry accepts back into the
 * same struct): "api.github.com:443", "*.example.com", "10.0.0.0/8:53/udp".
 * TCP is implied by a port and not printed.  Returns buf.
 */
char	*policy_entry_fmt(const struct egress_entry *e, char *buf, size_t len);
/* 1 if s (any case, one optional trailing dot) is a valid host name */
int	 policy_valid_hostname(const char *s);
/*
 * Which entries admit the DNS name qname (any case, one optional trailing
 * dot): NAME entries equal to it and WILDCARD entries it is a strict
 * subdomain of.  The indexes into e[] of the first maxidx matches go to
 * idx[] in order (idx may be NULL when maxidx is 0), so each match's port
 * and protocol can be applied.  Returns the number of matches, which may
 * exceed maxidx; a qname that is not a valid host name matches nothing.
 */
size_t	 policy_name_allowed(const struct egress_entry *e, size_t n,
	    const char *qname, size_t *idx, size_t maxidx);

#endif /* JB_POLICY_H */
