/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "nftgen.h"
#include "nicname.h"
#include "policy.h"

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			(uint32_t)(c) << 8 | (uint32_t)(d))
#define NELEM(x)	(sizeof(x) / sizeof((x)[0]))
#define E		"egress_allow entry "

static struct egress_entry
parse_ok(const char *s)
{
	struct egress_entry	e;
	char			err[512] = "";

	memset(&e, 0xa5, sizeof(e));
	ATF_REQUIRE_MSG(policy_parse_entry(s, &e, err, sizeof(err)) == 0,
	    "\"%s\" refused: %s", s, err);
	return e;
}

ATF_TC_WITHOUT_HEAD(parse_forms);
ATF_TC_BODY(parse_forms, tc)
{
	static const struct {
		const char		*in;
		enum egress_kind	 kind;
		const char		*name;
		uint32_t		 addr;
		uint8_t			 plen;
		enum egress_proto	 proto;
		uint16_t		 port;
		const char		*canon;
	} t[] = {
		{ "github.com", EGRESS_NAME, "github.com", 0, 0,
		    EGRESS_PROTO_ANY, 0, "github.com" },
		{ "API.GitHub.com.", EGRESS_NAME, "api.github.com", 0, 0,
		    EGRESS_PROTO_ANY, 0, "api.github.com" },
		{ "localhost", EGRESS_NAME, "localhost", 0, 0,
		    EGRESS_PROTO_ANY, 0, "localhost" },
		{ "1e100.net", EGRESS_NAME, "1e100.net", 0, 0,
		    EGRESS_PROTO_ANY, 0, "1e100.net" },
		{ "xn--bcher-kva.de:443", EGRESS_NAME, "xn--bcher-kva.de", 0,
		    0, EGRESS_PROTO_TCP, 443, "xn--bcher-kva.de:443" },
		{ "registry.npmjs.org:443/tcp", EGRESS_NAME,
		    "registry.npmjs.org", 0, 0, EGRESS_PROTO_TCP, 443,
		    "registry.npmjs.org:443" },
		{ "ntp.example.org:123/UDP", EGRESS_NAME, "ntp.example.org",
		    0, 0, EGRESS_PROTO_UDP, 123, "ntp.example.org:123/udp" },
		{ "192.0.2.7", EGRESS_ADDR, "", IP(192, 0, 2, 7), 32,
		    EGRESS_PROTO_ANY, 0, "192.0.2.7" },
		{ "0.0.0.0", EGRESS_ADDR, "", 0, 32, EGRESS_PROTO_ANY, 0,
		    "0.0.0.0" },
		{ "255.255.255.255:65535", EGRESS_ADDR, "", 0xffffffffU, 32,
		    EGRESS_PROTO_TCP, 65535, "255.255.255.255:65535" },
		{ "192.0.2.7:53/udp", EGRESS_ADDR, "", IP(192, 0, 2, 7), 32,
		    EGRESS_PROTO_UDP, 53, "192.0.2.7:53/udp" },
		{ "10.0.0.0/8", EGRESS_CIDR, "", IP(10, 0, 0, 0), 8,
		    EGRESS_PROTO_ANY, 0, "10.0.0.0/8" },
		{ "0.0.0.0/0", EGRESS_CIDR, "", 0, 0, EGRESS_PROTO_ANY, 0,
		    "0.0.0.0/0" },
		{ "198.51.100.9/32", EGRESS_CIDR, "", IP(198, 51, 100, 9), 32,
		    EGRESS_PROTO_ANY, 0, "198.51.100.9/32" },
		{ "10.0.0.0/8:5432", EGRESS_CIDR, "", IP(10, 0, 0, 0), 8,
		    EGRESS_PROTO_TCP, 5432, "10.0.0.0/8:5432" },
		{ "172.16.0.0/12:514/udp", EGRESS_CIDR, "", IP(172, 16, 0, 0),
		    12, EGRESS_PROTO_UDP, 514, "172.16.0.0/12:514/udp" },
		{ "*.example.com", EGRESS_WILDCARD, "example.com", 0, 0,
		    EGRESS_PROTO_ANY, 0, "*.example.com" },
		{ "*.Example.COM.:443", EGRESS_WILDCARD, "example.com", 0, 0,
		    EGRESS_PROTO_TCP, 443, "*.example.com:443" },
		{ "*.co.uk:8443/tcp", EGRESS_WILDCARD, "co.uk", 0, 0,
		    EGRESS_PROTO_TCP, 8443, "*.co.uk:8443" },
		{ "*.example.com:53/udp", EGRESS_WILDCARD, "example.com", 0,
		    0, EGRESS_PROTO_UDP, 53, "*.example.com:53/udp" },
	};
	struct egress_entry	e, back;
	char			buf[EGRESS_FMT_MAX], err[512];
	size_t			i;

	for (i = 0; i < NELEM(t); i++) {
		e = parse_ok(t[i].in);
		ATF_CHECK_MSG(e.kind == t[i].kind, "%s: kind %d", t[i].in,
		    (int)e.kind);
		ATF_CHECK_STREQ_MSG(e.name, t[i].name, "%s", t[i].in);
		ATF_CHECK_MSG(e.addr == t[i].addr, "%s: addr %08x", t[i].in,
		    e.addr);
		ATF_CHECK_MSG(e.prefixlen == t[i].plen, "%s: prefix %u",
		    t[i].in, (unsigned)e.prefixlen);
		ATF_CHECK_MSG(e.proto == t[i].proto, "%s: proto %d", t[i].in,
		    (int)e.proto);
		ATF_CHECK_MSG(e.port == t[i].port, "%s: port %u", t[i].in,
		    (unsigned)e.port);
		ATF_CHECK_STREQ_MSG(policy_entry_fmt(&e, buf, sizeof(buf)),
		    t[i].canon, "%s", t[i].in);
		/* the canonical text parses back to the same entry */
		ATF_CHECK_MSG(policy_parse_entry(buf, &back, err,
		    sizeof(err)) == 0, "%s: %s", buf, err);
		ATF_CHECK_MSG(memcmp(&e, &back, sizeof(e)) == 0,
		    "%s: round trip differs", buf);
	}
}

ATF_TC_WITHOUT_HEAD(parse_limits);
ATF_TC_BODY(parse_limits, tc)
{
	char			name[300], big[400], err[512];
	struct egress_entry	e;

	/* a 63-character label and a 253-character name are the limits */
	memset(name, 'a', 63);
	(void)strlcpy(name + 63, ".com", sizeof(name) - 63);
	parse_ok(name);
	memset(name, 'a', 64);
	(void)strlcpy(name + 64, ".com", sizeof(name) - 64);
	ATF_CHECK(policy_parse_entry(name, &e, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "a label may have at most 63 characters"));

	/* 4 labels of 63 and dots: 255; trim to 253 */
	memset(name, 'b', 255);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	ATF_CHECK_STREQ(parse_ok(name).name, name);
	name[253] = 'b';
	name[254] = '\0';
	ATF_CHECK(policy_parse_entry(name, &e, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "a name may have at most 253 characters"));
	/* a trailing dot does not count */
	name[253] = '.';
	name[254] = '\0';
	ATF_CHECK_EQ(strlen(parse_ok(name).name), 253);

	memset(big, 'c', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ATF_CHECK(policy_parse_entry(big, &e, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, ": longer than 300 characters"));
	/* the quote is capped */
	ATF_CHECK(strstr(err, "ccc...\": ") != NULL);
}

ATF_TC_WITHOUT_HEAD(parse_rejects);
ATF_TC_BODY(parse_rejects, tc)
{
#define IPV4F	"(four decimal numbers 0-255 without leading zeros, " \
		"e.g. 192.0.2.7)"
#define WILDF	"\"*\" may only be the whole first label, as in *.example.com"
#define V6	"IPv6 is not supported (containers' IPv6 is dropped); " \
		"give an IPv4 address or a host name"
#define NEEDP	"a protocol needs a port, as in host:53/udp (no port " \
		"allows every protocol)"
#define PREF	"prefix length must be 0-32 without leading zeros, as in " \
		"10.0.0.0/8"
#define CHARS	"a name may hold only letters, digits and hyphens in " \
		"dot-separated labels, e.g. api.example.com"
#define HYPH	"a label may not begin or end with a hyphen"
#define EMPTYL	"empty label (a leading dot or two dots in a row)"
	static const struct {
		const char	*in;
		const char	*msg;
	} t[] = {
		{ "", E "\"\": empty; give a host, address, network or "
		    "*.domain, optionally with :port" },
		{ "foo:99999", E "\"foo:99999\": port must be 1-65535" },
		{ "foo:65536", E "\"foo:65536\": port must be 1-65535" },
		{ "foo:0", E "\"foo:0\": port must be 1-65535" },
		{ "foo:", E "\"foo:\": a port number 1-65535 must follow ':'" },
		{ "foo:080", E "\"foo:080\": port must be 1-65535 without "
		    "leading zeros" },
		{ "foo:http", E "\"foo:http\": port must be a number "
		    "1-65535" },
		{ "foo:-1", E "\"foo:-1\": port must be a number 1-65535" },
		{ "foo:1000-2000", E "\"foo:1000-2000\": port ranges are not "
		    "supported; give each port as its own entry" },
		{ "1.2.3.4/udp", E "\"1.2.3.4/udp\": " NEEDP },
		{ "example.com/tcp", E "\"example.com/tcp\": " NEEDP },
		{ "10.0.0.0/8/udp", E "\"10.0.0.0/8/udp\": " NEEDP },
		{ "1.2.3.4:53/sctp", E "\"1.2.3.4:53/sctp\": unknown protocol "
		    "\"sctp\" (use /tcp or /udp after a port)" },
		{ "10.0.0.1/8", E "\"10.0.0.1/8\": host bits are set after "
		    "the /8 prefix; did you mean 10.0.0.0/8?" },
		{ "192.168.1.77/24:22", E "\"192.168.1.77/24:22\": host bits "
		    "are set after the /24 prefix; did you mean "
		    "192.168.1.0/24?" },
		{ "10.0.0.0/33", E "\"10.0.0.0/33\": " PREF },
		{ "10.0.0.0/08", E "\"10.0.0.0/08\": " PREF },
		{ "10.0.0.0/", E "\"10.0.0.0/\": " PREF },
		{ "example.com/8", E "\"example.com/8\": \"example.com\" is "
		    "not an IPv4 network address (four decimal numbers 0-255 "
		    "without leading zeros, e.g. 192.0.2.7, then /0-32)" },
		{ "010.0.0.1", E "\"010.0.0.1\": \"010.0.0.1\" is not an IPv4 "
		    "address " IPV4F },
		{ "1.2.3", E "\"1.2.3\": \"1.2.3\" is not an IPv4 address "
		    IPV4F },
		{ "127.1", E "\"127.1\": \"127.1\" is not an IPv4 address "
		    IPV4F },
		{ "256.1.1.1", E "\"256.1.1.1\": \"256.1.1.1\" is not an IPv4 "
		    "address " IPV4F },
		{ "1.2.3.4.5:80", E "\"1.2.3.4.5:80\": \"1.2.3.4.5\" is not an "
		    "IPv4 address " IPV4F },
		{ "1.2.3.4.", E "\"1.2.3.4.\": \"1.2.3.4.\" is not an IPv4 "
		    "address " IPV4F },
		{ "0x7f.0.0.1", E "\"0x7f.0.0.1\": \"0x7f.0.0.1\" is not an "
		    "IPv4 address " IPV4F },
		{ "2130706433", E "\"2130706433\": \"2130706433\" is not an "
		    "IPv4 address " IPV4F },
		{ "*.com", E "\"*.com\": a wildcard must cover a domain of at "
		    "least two labels (*.example.com, not *.com)" },
		{ "*.com.:443", E "\"*.com.:443\": a wildcard must cover a "
		    "domain of at least two labels (*.example.com, not "
		    "*.com)" },
		{ "*", E "\"*\": " WILDF },
		{ "*.", E "\"*.\": a domain must follow \"*.\", as in "
		    "*.example.com" },
		{ "foo.*.com", E "\"foo.*.com\": " WILDF },
		{ "*foo.com", E "\"*foo.com\": " WILDF },
		{ "**.example.com", E "\"**.example.com\": " WILDF },
		{ "*.*.example.com", E "\"*.*.example.com\": " WILDF },
		{ "*.10.0.0.0/8", E "\"*.10.0.0.0/8\": " CHARS },
		{ "*.1.2.3", E "\"*.1.2.3\": a wildcard needs a domain name, "
		    "not an address, as in *.example.com" },
		{ "*.-a.com", E "\"*.-a.com\": " HYPH },
		{ "::1", E "\"::1\": " V6 },
		{ "[2001:db8::1]:443", E "\"[2001:db8::1]:443\": " V6 },
		{ "2001:db8::/32", E "\"2001:db8::/32\": " V6 },
		{ "fe80::1%eth0", E "\"fe80::1%eth0\": " V6 },
		{ "[::1]", E "\"[::1]\": " V6 },
		{ "https://example.com/", E "\"https://example.com/\": a URL; "
		    "give just the host and, if needed, :port" },
		{ "exa mple.com", E "\"exa mple.com\": contains a space or "
		    "control character" },
		{ " example.com", E "\" example.com\": contains a space or "
		    "control character" },
		{ "foo\tbar", E "\"foo\\x09bar\": contains a space or control "
		    "character" },
		{ "foo\"bar", E "\"foo\\x22bar\": " CHARS },
		{ "ex_ample.com", E "\"ex_ample.com\": " CHARS },
		{ "example.com,", E "\"example.com,\": " CHARS },
		{ "-foo.com", E "\"-foo.com\": " HYPH },
		{ "foo-.com:443", E "\"foo-.com:443\": " HYPH },
		{ "a..b", E "\"a..b\": " EMPTYL },
		{ ".foo", E "\".foo\": " EMPTYL },
		{ ".", E "\".\": the name is empty" },
		{ "example.com..", E "\"example.com..\": " EMPTYL },
		{ "b\xc3\xbc" "cher.de", E "\"b\\xc3\\xbccher.de\": not ASCII; "
		    "give an internationalised name in its xn-- form" },
		{ "foo:443/xyz", E "\"foo:443/xyz\": unknown protocol \"xyz\" "
		    "(use /tcp or /udp after a port)" },
		{ ":443", E "\":443\": a host, address, network or *.domain "
		    "must come before the port" },
		{ ":53/udp", E "\":53/udp\": a host, address, network or "
		    "*.domain must come before the port" },
	};
	struct egress_entry	e, keep;
	char			err[512];
	size_t			i;

	for (i = 0; i < NELEM(t); i++) {
		memset(&e, 0x5a, sizeof(e));
		keep = e;
		err[0] = '\0';
		ATF_CHECK_MSG(policy_parse_entry(t[i].in, &e, err,
		    sizeof(err)) == -1, "\"%s\" accepted", t[i].in);
		ATF_CHECK_STREQ(err, t[i].msg);
		ATF_CHECK_MSG(memcmp(&e, &keep, sizeof(e)) == 0,
		    "\"%s\": output touched on error", t[i].in);
	}
	/* a short or missing error buffer is not written past */
	ATF_CHECK(policy_parse_entry("foo:0", &e, NULL, 0) == -1);
	memset(err, 'x', sizeof(err));
	ATF_CHECK(policy_parse_entry("foo:0", &e, err, 8) == -1);
	ATF_CHECK_STREQ(err, "egress_");
	ATF_CHECK(err[8] == 'x');
}

ATF_TC_WITHOUT_HEAD(valid_hostname);
ATF_TC_BODY(valid_hostname, tc)
{
	ATF_CHECK(policy_valid_hostname("example.com"));
	ATF_CHECK(policy_valid_hostname("Example.COM."));
	ATF_CHECK(policy_valid_hostname("a"));
	ATF_CHECK(!policy_valid_hostname(""));
	ATF_CHECK(!policy_valid_hostname("."));
	ATF_CHECK(!policy_valid_hostname("example.com.."));
	ATF_CHECK(!policy_valid_hostname("_dmarc.example.com"));
	ATF_CHECK(!policy_valid_hostname("1.2.3.4"));
	ATF_CHECK(!policy_valid_hostname("*.example.com"));
	ATF_CHECK(!policy_valid_hostname("a b.com"));
}

static struct egress_entry	*
entries(const char *const *in, size_t n)
{
	struct egress_entry	*e;
	size_t			 i;

	ATF_REQUIRE((e = calloc(n, sizeof(*e))) != NULL);
	for (i = 0; i < n; i++)
		e[i] = parse_ok(in[i]);
	return e;
}

/* the matching indexes as "0,2" */
static const char *
matches(const struct egress_entry *e, size_t n, const char *q)
{
	static char	buf[128];
	size_t		idx[16], i, got;

	got = policy_name_allowed(e, n, q, idx, NELEM(idx));
	buf[0] = '\0';
	for (i = 0; i < got && i < NELEM(idx); i++)
		(void)snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		    "%s%zu", i > 0 ? "," : "", idx[i]);
	return buf;
}

ATF_TC_WITHOUT_HEAD(name_match);
ATF_TC_BODY(name_match, tc)
{
	static const char *const in[] = {
		"example.com",			/* 0 */
		"*.example.com:443",		/* 1 */
		"api.github.com",		/* 2 */
		"10.0.0.0/8",			/* 3 */
		"*.example.com:53/udp",		/* 4 */
		"*.deep.example.com",		/* 5 */
		"192.0.2.7",			/* 6 */
	};
	struct egress_entry	*e = entries(in, NELEM(in));
	size_t			 idx[1] = { 99 };

	/* exact names, any case, one trailing dot */
	ATF_CHECK_STREQ(matches(e, NELEM(in), "example.com"), "0");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "EXAMPLE.Com."), "0");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "api.github.com"), "2");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "Api.GitHub.com."), "2");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "github.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "xapi.github.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "api.github.com.evil"), "");

	/* wildcards: every strict subdomain, at any depth, in order */
	ATF_CHECK_STREQ(matches(e, NELEM(in), "www.example.com"), "1,4");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "A.B.Example.Com."), "1,4");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "x.deep.example.com"),
	    "1,4,5");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "deep.example.com"), "1,4");
	/* not the bare domain (only the exact entry 0 matches it) */
	ATF_CHECK_STREQ(matches(e, NELEM(in), "example.com"), "0");
	/* not a suffix trick */
	ATF_CHECK_STREQ(matches(e, NELEM(in), "evilexample.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "www.evilexample.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "example.com.evil.net"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "xexample.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "com"), "");

	/* a qname that is no host name matches nothing */
	ATF_CHECK_STREQ(matches(e, NELEM(in), ""), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "."), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), ".example.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "a..example.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "example.com.."), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "_srv.example.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "*.example.com"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "a\x01.example.com"), "");
	/* addresses are never names */
	ATF_CHECK_STREQ(matches(e, NELEM(in), "10.0.0.1"), "");
	ATF_CHECK_STREQ(matches(e, NELEM(in), "192.0.2.7"), "");

	/* the count goes past maxidx; idx gets only what fits */
	ATF_CHECK_EQ(policy_name_allowed(e, NELEM(in), "x.deep.example.com",
	    idx, 1), 3);
	ATF_CHECK_EQ(idx[0], 1);
	ATF_CHECK_EQ(policy_name_allowed(e, NELEM(in), "www.example.com",
	    NULL, 0), 2);
	ATF_CHECK_EQ(policy_name_allowed(e, 0, "example.com", NULL, 0), 0);
	free(e);
}

ATF_TC_WITHOUT_HEAD(name_match_long);
ATF_TC_BODY(name_match_long, tc)
{
	struct egress_entry	e;
	char			q[400];

	e = parse_ok("*.example.com");
	/* 253 characters matches; 254 (without the dot) is no name */
	memset(q, 'a', sizeof(q));
	q[63] = q[127] = q[191] = '.';
	(void)strlcpy(q + 241, ".example.com", sizeof(q) - 241);
	ATF_REQUIRE_EQ(strlen(q), 253);
	ATF_CHECK_EQ(policy_name_allowed(&e, 1, q, NULL, 0), 1);
	(void)strlcat(q, ".", sizeof(q));
	ATF_CHECK_EQ(policy_name_allowed(&e, 1, q, NULL, 0), 1);
	memmove(q + 1, q, strlen(q) + 1);
	q[0] = 'a';
	ATF_CHECK_EQ(policy_name_allowed(&e, 1, q, NULL, 0), 0);
	memset(q, 'a', sizeof(q) - 1);
	q[sizeof(q) - 1] = '\0';
	ATF_CHECK_EQ(policy_name_allowed(&e, 1, q, NULL, 0), 0);
}

ATF_TC_WITHOUT_HEAD(ident);
ATF_TC_BODY(ident, tc)
{
	static const char *const bad[] = {
		"", "1abc", "-abc", "abc-", "a_b", "a.b", "a b", "abc\"",
		"\xc3\xa9t\xc3\xa9",
		/* 64 characters */
		("a12345678901234567890123456789012345678901234567890123456789"
		    "0123"),
	};
	char	id[NFTGEN_IDENT_MAX], err[256];
	size_t	i;

	ATF_CHECK(nftgen_ident("web-1", id, sizeof(id), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id, "web_1");
	ATF_CHECK(nftgen_ident("Dev", id, sizeof(id), err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(id, "Dev");
	ATF_CHECK(nftgen_ident("a12345678901234567890123456789012345678901234"
	    "567890123456789012", id, sizeof(id), err, sizeof(err)) == 0);
	ATF_CHECK_EQ(strlen(id), 63);
	for (i = 0; i < NELEM(bad); i++) {
		err[0] = '\0';
		ATF_CHECK_MSG(nftgen_ident(bad[i], id, sizeof(id), err,
		    sizeof(err)) == -1, "\"%s\" accepted", bad[i]);
		ATF_CHECK_MSG(strncmp(err, "container name \"", 16) == 0,
		    "%s", err);
	}
	ATF_CHECK(nftgen_ident(NULL, id, sizeof(id), err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "container name \"(null)\": must be 1-63 "
	    "characters");
	ATF_CHECK(nftgen_ident("abc-", id, sizeof(id), err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "container name \"abc-\": may not end with a "
	    "hyphen");
	ATF_CHECK(nftgen_ident("abc", id, 3, err, sizeof(err)) == -1);
}

/* the sample policy of the golden test */
static const char *const sample_in[] = {
	"api.github.com:443", "*.example.com", "10.0.0.0/8:5432",
	"10.1.0.0/16:5432", "192.0.2.7:53/udp", "198.51.100.0/24",
	"198.51.100.9:443", "203.0.113.5", "10.1.0.0/16:5433",
	"203.0.113.5",
};

static const struct nftgen_net sample_net = {
	"jbbr0", IP(10, 99, 0, 0), 24, IP(10, 99, 0, 1), 53, NULL, 0, 0, 0
};

#define REFUSED_SET(n) \
"\tset refused" n " {\n" \
"\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service\n" \
"\t\tsize 8192\n" \
"\t\tflags dynamic,timeout\n" \
"\t\tcounter\n" \
"\t\ttimeout 3600s\n" \
"\t}\n"

#define SAMPLE_HEAD \
"# inet jailbee: generated by jb-netd, applied as one " \
"transaction\n" \
"table inet jailbee {\n" \
"\tmap ctrs {\n" \
"\t\ttype ipv4_addr : verdict\n" \
"\t}\n" \
"\tset strictdns {\n" \
"\t\ttype ipv4_addr\n" \
"\t}\n" \
"\tset allow {\n" \
"\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service\n" \
"\t\tflags timeout\n" \
"\t}\n" \
"\tset allowany {\n" \
"\t\ttype ipv4_addr . ipv4_addr\n" \
"\t\tflags timeout\n" \
"\t}\n" \
"\tset static {\n" \
"\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service\n" \
"\t\tflags interval\n" \
"\t}\n" \
"\tset staticany {\n" \
"\t\ttype ipv4_addr . ipv4_addr . inet_proto\n" \
"\t\tflags interval\n" \
"\t}\n" \
REFUSED_SET("0") \
REFUSED_SET("1") \
"\tchain refuse {\n" \
"\t}\n" \
"}\n" \
"flush table inet jailbee\n" \
"flush map inet jailbee ctrs\n" \
"flush set inet jailbee strictdns\n" \
"flush set inet jailbee allow\n" \
"flush set inet jailbee allowany\n" \
"flush set inet jailbee static\n" \
"flush set inet jailbee staticany\n"

#define SAMPLE_BODY \
"table inet jailbee {\n" \
"\tchain strict {\n" \
"\t\tip saddr . ip daddr . meta l4proto . th dport @static accept\n" \
"\t\tip saddr . ip daddr . meta l4proto @staticany accept\n" \
"\t\tip saddr . ip daddr . meta l4proto . th dport @allow accept\n" \
"\t\tip saddr . ip daddr @allowany accept\n" \
"\t\tjump refuse\n" \
"\t\tmeta l4proto tcp reject with tcp reset\n" \
"\t\treject with icmpx admin-prohibited\n" \
"\t}\n" \
"\tchain forward {\n" \
"\t\ttype filter hook forward priority filter; policy accept;\n" \
"\t\tiifname \"jbbr0\" meta nfproto ipv6 drop\n" \
"\t\toifname \"jbbr0\" meta nfproto ipv6 drop\n" \
"\t\tct state established,related accept\n" \
"\t\toifname \"jbbr0\" drop\n" \
"\t\tiifname \"jbbr0\" ip saddr vmap @ctrs\n" \
"\t\tiifname \"jbbr0\" reject with icmpx admin-prohibited\n" \
"\t}\n" \
"\tchain refuse {\n" \
"\t\tmeta l4proto { tcp, udp } update @refused0 { ip saddr . ip daddr " \
". meta l4proto . th dport }\n" \
"\t}\n" \
"\tchain input {\n" \
"\t\ttype filter hook input priority filter; policy accept;\n" \
"\t\tiifname \"jbbr0\" meta nfproto ipv6 drop\n" \
"\t\tiifname \"jbbr0\" ct state established,related accept\n" \
"\t\tiifname \"jbbr0\" udp dport 67 accept\n" \
"\t\tiifname \"jbbr0\" ip daddr 10.99.0.1 meta l4proto { tcp, " \
"udp } th dport 53 accept\n" \
"\t\tiifname \"jbbr0\" drop\n" \
"\t}\n" \
"\tchain prerouting {\n" \
"\t\ttype nat hook prerouting priority dstnat; policy accept;\n" \
"\t\tiifname \"jbbr0\" ip saddr @strictdns udp dport 53 dnat " \
"ip to 10.99.0.1:53\n" \
"\t\tiifname \"jbbr0\" ip saddr @strictdns tcp dport 53 dnat " \
"ip to 10.99.0.1:53\n" \
"\t}\n" \
"\tchain postrouting {\n" \
"\t\ttype nat hook postrouting priority srcnat; policy accept;\n" \
"\t\tiifname \"jbbr0\" oifname != \"jbbr0\" ip saddr " \
"10.99.0.0/24 masquerade\n" \
"\t}\n" \
"}\n" \
"add element inet jailbee static { 10.99.0.3 . 10.0.0.0/8 . tcp . " \
"5432, 10.99.0.3 . 10.1.0.0/16 . tcp . 5433, 10.99.0.3 . 192.0.2.7 . " \
"udp . 53 }\n" \
"add element inet jailbee staticany { 10.99.0.3 . 198.51.100.0/24 . " \
"0-255, 10.99.0.3 . 203.0.113.5 . 0-255 }\n" \
"add element inet jailbee ctrs { 10.99.0.2 : accept, 10.99.0.3 " \
": jump strict }\n" \
"add element inet jailbee strictdns { 10.99.0.3 }\n" \
SAMPLE_BRIDGE

/* the bridge table: each port sends with its own MAC and address only */
#define BRIDGE_GUARD \
"\t\tiifname != \"jbc*\" accept\n" \
"\t\tether type ip iifname . ether saddr . ip saddr @ports accept\n" \
"\t\tether type arp iifname . ether saddr . arp saddr ip @ports " \
"iifname . arp saddr ether . arp saddr ip @ports accept\n" \
"\t\tether type ip6 iifname . ether saddr @macs accept\n"
#define SAMPLE_BRIDGE \
"table bridge jailbee {\n" \
"\tset ports {\n" \
"\t\ttype ifname . ether_addr . ipv4_addr\n" \
"\t}\n" \
"\tset macs {\n" \
"\t\ttype ifname . ether_addr\n" \
"\t}\n" \
"}\n" \
"flush table bridge jailbee\n" \
"flush set bridge jailbee ports\n" \
"flush set bridge jailbee macs\n" \
"table bridge jailbee {\n" \
"\tchain input {\n" \
"\t\ttype filter hook input priority filter; policy accept;\n" \
BRIDGE_GUARD \
"\t\tip saddr 0.0.0.0 ip daddr 255.255.255.255 udp sport 68 udp dport " \
"67 iifname . ether saddr @macs accept\n" \
"\t\tdrop\n" \
"\t}\n" \
"\tchain forward {\n" \
"\t\ttype filter hook forward priority filter; policy accept;\n" \
BRIDGE_GUARD \
"\t\tdrop\n" \
"\t}\n" \
"}\n" \
"add element bridge jailbee ports { \"jbc0a630002\" . 0a:6a:0a:63:00:02 " \
". 10.99.0.2, \"jbc0a630003\" . 0a:6a:0a:63:00:03 . 10.99.0.3 }\n" \
"add element bridge jailbee macs { \"jbc0a630002\" . 0a:6a:0a:63:00:02, " \
"\"jbc0a630003\" . 0a:6a:0a:63:00:03 }\n"

static char *
sample(const struct nftgen_present *p)
{
	struct egress_entry	*e = entries(sample_in, NELEM(sample_in));
	struct nftgen_container	 c[] = {
		{ "web-1", IP(10, 99, 0, 3), NFTGEN_STRICT, e,
		    NELEM(sample_in), 0 },
		{ "dev", IP(10, 99, 0, 2), NFTGEN_LOOSE, NULL, 0, 0 },
	};
	char			 err[512] = "", *out = NULL;

	ATF_REQUIRE_MSG(nftgen_ruleset(&sample_net, c, NELEM(c), p, &out,
	    err, sizeof(err)) == 0, "%s", err);
	free(e);
	return out;
}

ATF_TC_WITHOUT_HEAD(nftgen_golden);
ATF_TC_BODY(nftgen_golden, tc)
{
	char	*out = sample(NULL);

	ATF_CHECK_STREQ(out, SAMPLE_HEAD SAMPLE_BODY);
	free(out);
}

ATF_TC_WITHOUT_HEAD(nftgen_present);
ATF_TC_BODY(nftgen_present, tc)
{
	static const char *const sets[] = {
		"allowany_old", "allow", "allow_old", "allowany", "allow_old",
		"stray", "static_old", "static", "staticany", "ctrs",
		"strictdns", "staticany_old", "refused1", "refused0",
		"refused2", "gwctrs",
	};
	static const char *const chains[] = {
		"strict", "input", "strict_dev", "forward", "strict_old",
		"prerouting", "postrouting", "other", "refuse", "gw",
	};
	static const char *const odd[] = { "allow-old" };
	struct nftgen_present	 p = { sets, NELEM(sets), chains,
	    NELEM(chains) };
	struct nftgen_container	 c = { "web-1", IP(10, 99, 0, 3),
	    NFTGEN_STRICT, NULL, 0, 0 };
	char			*out, err[256];

	/*
	 * sorted, each once; the shared sets, chain strict and chain refuse
	 * stay; a container's own sets and chains of an older layout go,
	 * and the gateway's without a gateway
	 */
	out = sample(&p);
	ATF_CHECK_STREQ(out, SAMPLE_HEAD
	    "delete set inet jailbee allow_old\n"
	    "delete set inet jailbee allowany_old\n"
	    "delete set inet jailbee gwctrs\n"
	    "delete set inet jailbee refused2\n"
	    "delete set inet jailbee static_old\n"
	    "delete set inet jailbee staticany_old\n"
	    "delete set inet jailbee stray\n"
	    "delete chain inet jailbee gw\n"
	    "delete chain inet jailbee other\n"
	    "delete chain inet jailbee strict_dev\n"
	    "delete chain inet jailbee strict_old\n"
	    SAMPLE_BODY);
	free(out);

	/* a name we could not have made is not deleted blindly */
	p.sets = odd;
	p.nsets = 1;
	ATF_CHECK(nftgen_ruleset(&sample_net, &c, 1, &p, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "set \"allow-old\" in table inet jailbee was not "
	    "made by jb-netd; delete the table by hand");
	ATF_CHECK(out == NULL);
}

ATF_TC_WITHOUT_HEAD(nftgen_options);
ATF_TC_BODY(nftgen_options, tc)
{
	struct nftgen_net	 net = sample_net;
	struct nftgen_container	 c[] = {
		{ "b", IP(10, 99, 0, 20), NFTGEN_STRICT, NULL, 0, 1 },
		{ "a", IP(10, 99, 0, 10), NFTGEN_STRICT, NULL, 0, 0 },
	};
	char			*out, err[256];

	net.dns_port = 5353;
	ATF_REQUIRE_MSG(nftgen_ruleset(&net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == 0, "%s", err);
	/* no static entries: no static elements; one chain for both */
	ATF_CHECK(strstr(out, "add element inet jailbee static") == NULL);
	ATF_CHECK(strstr(out, "add element inet jailbee ctrs { 10.99.0.10 : "
	    "jump strict, 10.99.0.20 : jump strict }\n") != NULL);
	ATF_CHECK(strstr(out, "th dport { 53, 5353 } accept\n") != NULL);
	ATF_CHECK(strstr(out, "ip saddr @strictdns udp dport 53 dnat ip to "
	    "10.99.0.1:5353\n") != NULL);
	ATF_CHECK(strstr(out, "add element inet jailbee strictdns { "
	    "10.99.0.10, 10.99.0.20 }\n") != NULL);
	/* the table made again forgets every DNS admission */
	ATF_CHECK(strstr(out, "flush set inet jailbee allow\n"
	    "flush set inet jailbee allowany\n") != NULL);
	free(out);

	net.dns_port = 20;
	ATF_REQUIRE(nftgen_ruleset(&net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK(strstr(out, "th dport { 20, 53 } accept\n") != NULL);
	free(out);

	/* all loose: no one in strictdns, the chain stays for a switch */
	c[0].mode = c[1].mode = NFTGEN_LOOSE;
	ATF_REQUIRE(nftgen_ruleset(&sample_net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK(strstr(out, "add element inet jailbee strictdns") == NULL);
	ATF_CHECK(strstr(out, "chain strict {") != NULL);
	ATF_CHECK(strstr(out, "ctrs { 10.99.0.10 : accept, 10.99.0.20 : "
	    "accept }"));
	free(out);
	ATF_REQUIRE(nftgen_ruleset(&sample_net, NULL, 0, NULL, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK(strstr(out, "add element") == NULL);
	ATF_CHECK(strstr(out, "\t\toifname \"jbbr0\" drop\n"
	    "\t\tiifname \"jbbr0\" ip saddr vmap @ctrs\n"
	    "\t\tiifname \"jbbr0\" reject with icmpx admin-prohibited\n"));
	free(out);
}

/* the static elements the ruleset gives these entries */
static char *
static_rules(const char *const *in, size_t n)
{
	struct egress_entry	*e = entries(in, n);
	struct nftgen_container	 c = { "x", IP(10, 99, 0, 5), NFTGEN_STRICT,
	    e, n, 0 };
	char			*out, *s, *end, err[256];

	ATF_REQUIRE_MSG(nftgen_ruleset(&sample_net, &c, 1, NULL, &out, err,
	    sizeof(err)) == 0, "%s", err);
	free(e);
	ATF_REQUIRE((end = strstr(out, "add element inet jailbee ctrs"))
	    != NULL);
	if ((s = strstr(out, "add element inet jailbee static")) == NULL ||
	    s > end)
		s = end;
	*end = '\0';
	memmove(out, s, strlen(s) + 1);
	return out;
}

ATF_TC_WITHOUT_HEAD(nftgen_merge);
ATF_TC_BODY(nftgen_merge, tc)
{
	static const char *const nested[] = {
		"10.1.2.3", "10.1.0.0/16", "10.0.0.0/8", "10.0.0.0/8",
		"11.0.0.0/8", "9.255.255.255", "10.2.0.0/16:22",
		"12.0.0.0/8:22", "12.1.0.0/16:22", "12.1.0.0/16:22/udp",
		"12.1.2.3:23", "12.1.2.3:22", "0.0.0.0/1:80", "1.2.3.4:80",
		"api.github.com", "*.example.com:443",
	};
	static const char *const everything[] = {
		"192.0.2.1", "0.0.0.0/0", "10.0.0.0/8:22",
	};
	static const char *const names_only[] = {
		"api.github.com", "*.example.com:443",
	};
	char	*r;

	r = static_rules(nested, NELEM(nested));
	ATF_CHECK_STREQ(r,
	    "add element inet jailbee static { 10.99.0.5 . 0.0.0.0/1 . tcp . "
	    "80, 10.99.0.5 . 12.0.0.0/8 . tcp . 22, 10.99.0.5 . 12.1.0.0/16 . "
	    "udp . 22, 10.99.0.5 . 12.1.2.3 . tcp . 23 }\n"
	    "add element inet jailbee staticany { 10.99.0.5 . 9.255.255.255 . "
	    "0-255, 10.99.0.5 . 10.0.0.0/8 . 0-255, 10.99.0.5 . 11.0.0.0/8 . "
	    "0-255 }\n");
	free(r);
	r = static_rules(everything, NELEM(everything));
	ATF_CHECK_STREQ(r, "add element inet jailbee staticany { "
	    "10.99.0.5 . 0.0.0.0/0 . 0-255 }\n");
	free(r);
	r = static_rules(names_only, NELEM(names_only));
	ATF_CHECK_STREQ(r, "");
	free(r);
}

ATF_TC_WITHOUT_HEAD(nftgen_refuses);
ATF_TC_BODY(nftgen_refuses, tc)
{
	struct nftgen_net	 net;
	struct egress_entry	 e;
	struct nftgen_container	 c[2];
	char			*out = (char *)1, err[256];

#define REFUSE(nc, want) do {						\
	err[0] = '\0';							\
	ATF_CHECK(nftgen_ruleset(&net, c, nc, NULL, &out, err,		\
	    sizeof(err)) == -1);					\
	ATF_CHECK_STREQ(err, want);					\
	ATF_CHECK(out == NULL);						\
} while (0)
#define RESET() do {							\
	net = sample_net;						\
	memset(c, 0, sizeof(c));					\
	c[0].name = "a";						\
	c[0].addr = IP(10, 99, 0, 2);					\
	c[1].name = "b";						\
	c[1].addr = IP(10, 99, 0, 3);					\
} while (0)

	RESET();
	net.bridge = "jbbr0\"; drop";
	REFUSE(2, "bridge \"jbbr0?;?drop\": use letters, digits, '-', '_' "
	    "and '.'");
	net.bridge = "a-very-long-bridge";
	REFUSE(2, "bridge \"a-very-long-bridge\": an interface name has 1-15 "
	    "characters");
	net.bridge = "";
	REFUSE(2, "bridge \"\": an interface name has 1-15 characters");
	RESET();
	net.subnet = IP(10, 99, 0, 1);
	REFUSE(2, "bridge subnet 10.99.0.1/24: need a network address with a "
	    "prefix of 1-30");
	net.subnet = IP(10, 99, 0, 0);
	net.prefixlen = 31;
	REFUSE(2, "bridge subnet 10.99.0.0/31: need a network address with a "
	    "prefix of 1-30");
	RESET();
	net.host = IP(10, 98, 0, 1);
	REFUSE(2, "host address 10.98.0.1 is not a host of the bridge subnet");
	net.host = IP(10, 99, 0, 255);
	REFUSE(2, "host address 10.99.0.255 is not a host of the bridge "
	    "subnet");
	RESET();
	net.dns_port = 0;
	REFUSE(2, "resolver port must be 1-65535");

	RESET();
	c[1].name = "a";
	REFUSE(2, "container a is listed twice");
	RESET();
	c[1].addr = c[0].addr;
	REFUSE(2, "containers a and b share the address 10.99.0.2");
	RESET();
	c[1].addr = IP(10, 99, 0, 1);
	REFUSE(2, "container b: address 10.99.0.1 is not a container address "
	    "in the bridge subnet");
	c[1].addr = IP(10, 99, 1, 3);
	REFUSE(2, "container b: address 10.99.1.3 is not a container address "
	    "in the bridge subnet");
	c[1].addr = IP(10, 99, 0, 0);
	REFUSE(2, "container b: address 10.99.0.0 is not a container address "
	    "in the bridge subnet");
	RESET();
	c[1].name = "b_c";
	REFUSE(2, "container name \"b_c\": must be a letter, then letters, "
	    "digits and hyphens");
	RESET();
	c[1].mode = (enum nftgen_mode)7;
	REFUSE(2, "container b: unknown mode");
	RESET();
	c[1].nentries = 1;
	REFUSE(2, "container b: no entries");

	/* entries arrive over imsg: a malformed one is caught here too */
	RESET();
	e = parse_ok("10.0.0.0/8");
	c[0].entries = &e;
	c[0].nentries = 1;
	e.prefixlen = 33;
	REFUSE(2, "container a: entry 0: 10.0.0.0/33 is not a network");
	e.prefixlen = 7;
	e.addr = IP(11, 0, 0, 0);
	REFUSE(2, "container a: entry 0: 11.0.0.0/7 is not a network");
	e = parse_ok("10.0.0.0/8:22");
	e.proto = EGRESS_PROTO_ANY;
	REFUSE(2, "container a: entry 0: a port goes with tcp or udp, no port "
	    "with any protocol");
	e = parse_ok("10.0.0.0/8");
	e.kind = (enum egress_kind)9;
	REFUSE(2, "container a: entry 0 has an unknown kind");
#undef REFUSE
#undef RESET
}

/* what sets allow and allowany hold in the delta tests */
static const struct nftgen_dyn sample_dyn[] = {
	{ IP(10, 99, 0, 2), IP(140, 82, 121, 6), EGRESS_PROTO_TCP, 443 },
	{ IP(10, 99, 0, 3), IP(140, 82, 121, 6), EGRESS_PROTO_TCP, 443 },
	{ IP(10, 99, 0, 2), IP(93, 184, 216, 34), EGRESS_PROTO_ANY, 0 },
};

/* dev's elements of sample_dyn going, each added and deleted */
#define PURGE_DEV \
"add element inet jailbee allow { 10.99.0.2 . 140.82.121.6 . tcp . 443 " \
"timeout 1s }\n" \
"delete element inet jailbee allow { 10.99.0.2 . 140.82.121.6 . tcp . " \
"443 }\n" \
"add element inet jailbee allowany { 10.99.0.2 . 93.184.216.34 timeout " \
"1s }\n" \
"delete element inet jailbee allowany { 10.99.0.2 . 93.184.216.34 }\n"

/* nftgen_delta of the sample's two containers to after, as text */
static char *
delta(const struct nftgen_container *before, size_t nb,
    const struct nftgen_container *after, size_t na)
{
	char	*out = NULL, err[512] = "";

	ATF_REQUIRE_MSG(nftgen_delta(&sample_net, before, nb, after, na,
	    sample_dyn, NELEM(sample_dyn), &out, err, sizeof(err)) == 0, "%s",
	    err);
	return out;
}

ATF_TC_WITHOUT_HEAD(nftgen_delta);
ATF_TC_BODY(nftgen_delta, tc)
{
	static const char *const more_in[] = {
		"api.github.com:443", "*.example.com", "10.0.0.0/8:5432",
		"10.1.0.0/16:5432", "192.0.2.7:53/udp", "198.51.100.0/24",
		"198.51.100.9:443", "203.0.113.5", "10.1.0.0/16:5433",
		"203.0.113.5", "192.0.2.8:22", "198.0.0.0/8",
	};
	struct egress_entry	*e = entries(sample_in, NELEM(sample_in));
	struct egress_entry	*m = entries(more_in, NELEM(more_in));
	struct nftgen_container	 was[] = {
		{ "web-1", IP(10, 99, 0, 3), NFTGEN_LOOSE, e,
		    NELEM(sample_in), 0 },
		{ "dev", IP(10, 99, 0, 2), NFTGEN_STRICT, NULL, 0, 0 },
	};
	struct nftgen_container	 now[2];
	const char		*want;
	char			*out, err[256];

	/* nothing changed: nothing to do */
	out = delta(was, 2, was, 2);
	ATF_CHECK_STREQ(out, "");
	free(out);

	/* a switch: the verdict and the DNS redirect, no set element */
	memcpy(now, was, sizeof(now));
	now[0].mode = NFTGEN_STRICT;
	out = delta(was, 2, now, 2);
	ATF_CHECK_STREQ(out,
	    "delete element inet jailbee ctrs { 10.99.0.3 }\n"
	    "add element inet jailbee ctrs { 10.99.0.3 : jump strict }\n"
	    "add element inet jailbee strictdns { 10.99.0.3 }\n");
	free(out);
	out = delta(now, 2, was, 2);
	ATF_CHECK_STREQ(out,
	    "delete element inet jailbee ctrs { 10.99.0.3 }\n"
	    "delete element inet jailbee strictdns { 10.99.0.3 }\n"
	    "add element inet jailbee ctrs { 10.99.0.3 : accept }\n");
	free(out);

	/*
	 * entries added: only the merged elements that differ; 198.0.0.0/8
	 * takes in 198.51.100.0/24, which leaves first
	 */
	memcpy(now, was, sizeof(now));
	now[0].entries = m;
	now[0].nentries = NELEM(more_in);
	out = delta(was, 2, now, 2);
	ATF_CHECK_STREQ(out,
	    "delete element inet jailbee staticany { 10.99.0.3 . "
	    "198.51.100.0/24 . 0-255 }\n"
	    "add element inet jailbee static { 10.99.0.3 . 192.0.2.8 . tcp . "
	    "22 }\n"
	    "add element inet jailbee staticany { 10.99.0.3 . 198.0.0.0/8 . "
	    "0-255 }\n");
	free(out);
	/* and removed again */
	out = delta(now, 2, was, 2);
	ATF_CHECK_STREQ(out,
	    "delete element inet jailbee static { 10.99.0.3 . 192.0.2.8 . tcp "
	    ". 22 }\n"
	    "delete element inet jailbee staticany { 10.99.0.3 . 198.0.0.0/8 . "
	    "0-255 }\n"
	    "add element inet jailbee staticany { 10.99.0.3 . 198.51.100.0/24 "
	    ". 0-255 }\n");
	free(out);

	/*
	 * forgotten: out of the maps, then what the resolver admitted from
	 * its address, each added and deleted (one that timed out since
	 * is no error); web-1's stay
	 */
	out = delta(was, 2, &was[0], 1);
	ATF_CHECK_STREQ(out,
	    "delete element bridge jailbee ports { \"jbc0a630002\" . 0a:6a:0a:63:00:02 . "
	    "10.99.0.2 }\n"
	    "delete element bridge jailbee macs { \"jbc0a630002\" . 0a:6a:0a:63:00:02 }\n"
	    "delete element inet jailbee ctrs { 10.99.0.2 }\n"
	    "delete element inet jailbee strictdns { 10.99.0.2 }\n"
	    PURGE_DEV);
	free(out);
	/* web-1 forgotten: its static elements go too */
	out = delta(was, 2, &was[1], 1);
	ATF_CHECK(strstr(out, "delete element inet jailbee static { "
	    "10.99.0.3 . 10.0.0.0/8 . tcp . 5432, 10.99.0.3 . 10.1.0.0/16 . "
	    "tcp . 5433, 10.99.0.3 . 192.0.2.7 . udp . 53 }\n"
	    "delete element inet jailbee staticany { 10.99.0.3 . "
	    "198.51.100.0/24 . 0-255, 10.99.0.3 . 203.0.113.5 . 0-255 }\n"
	    "add element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . tcp "
	    ". 443 timeout 1s }\n"
	    "delete element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . "
	    "tcp . 443 }\n") != NULL);
	ATF_CHECK(strstr(out, "10.99.0.2") == NULL);
	free(out);

	/*
	 * new: nothing admitted from its address stays, then its static
	 * elements, then its verdict
	 */
	out = delta(&was[1], 1, was, 2);
	want = "add element inet jailbee allow { 10.99.0.3 . "
	    "140.82.121.6 . tcp . 443 timeout 1s }\n"
	    "delete element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . "
	    "tcp . 443 }\n"
	    "add element inet jailbee static { 10.99.0.3 . 10.0.0.0/8 . tcp . "
	    "5432, 10.99.0.3 . 10.1.0.0/16 . tcp . 5433, 10.99.0.3 . "
	    "192.0.2.7 . udp . 53 }\n"
	    "add element inet jailbee staticany { 10.99.0.3 . 198.51.100.0/24 "
	    ". 0-255, 10.99.0.3 . 203.0.113.5 . 0-255 }\n"
	    "add element inet jailbee ctrs { 10.99.0.3 : accept }\n";
	ATF_CHECK_MSG(strncmp(out, want, strlen(want)) == 0, "%s", out);
	ATF_CHECK(strstr(out, "10.99.0.2") == NULL);
	ATF_CHECK(strstr(out, "table") == NULL);
	ATF_CHECK(strstr(out, "strictdns") == NULL);
	/* its port may send once its verdict is in place, in the same batch */
	ATF_CHECK(strstr(out, "ctrs { 10.99.0.3 : accept }\n"
	    "add element bridge jailbee ports { \"jbc0a630003\" . "
	    "0a:6a:0a:63:00:03 . 10.99.0.3 }\n"
	    "add element bridge jailbee macs { \"jbc0a630003\" . "
	    "0a:6a:0a:63:00:03 }\n") != NULL);
	free(out);

	/*
	 * a new address: the old one leaves both maps and what was admitted
	 * from it goes, the new one joins
	 */
	memcpy(now, was, sizeof(now));
	now[1].addr = IP(10, 99, 0, 9);
	now[1].flush_dynamic = 1;
	out = delta(was, 2, now, 2);
	ATF_CHECK_STREQ(out,
	    "delete element bridge jailbee ports { \"jbc0a630002\" . 0a:6a:0a:63:00:02 . "
	    "10.99.0.2 }\n"
	    "delete element bridge jailbee macs { \"jbc0a630002\" . 0a:6a:0a:63:00:02 }\n"
	    "delete element inet jailbee ctrs { 10.99.0.2 }\n"
	    "delete element inet jailbee strictdns { 10.99.0.2 }\n"
	    PURGE_DEV
	    "add element inet jailbee ctrs { 10.99.0.9 : jump strict }\n"
	    "add element inet jailbee strictdns { 10.99.0.9 }\n"
	    "add element bridge jailbee ports { \"jbc0a630009\" . "
	    "0a:6a:0a:63:00:09 . 10.99.0.9 }\n"
	    "add element bridge jailbee macs { \"jbc0a630009\" . "
	    "0a:6a:0a:63:00:09 }\n");
	free(out);

	/* either list is checked as nftgen_ruleset checks one */
	memcpy(now, was, sizeof(now));
	now[1].addr = now[0].addr;
	out = (char *)1;
	ATF_CHECK(nftgen_delta(&sample_net, was, 2, now, 2, NULL, 0, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "containers dev and web-1 share the address "
	    "10.99.0.3");
	ATF_CHECK(out == NULL);
	ATF_CHECK(nftgen_delta(&sample_net, now, 2, was, 2, NULL, 0, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK(nftgen_delta(&sample_net, was, 2, was, 2, NULL, 1, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "dynamic elements missing");
	free(e);
	free(m);
}

#define ADMIT_GOLDEN \
"add element inet jailbee allowany { 10.99.0.3 . 93.184.216.34 timeout " \
"330s }\n" \
"delete element inet jailbee allowany { 10.99.0.3 . 93.184.216.34 }\n" \
"add element inet jailbee allowany { 10.99.0.3 . 93.184.216.34 timeout " \
"330s }\n" \
"add element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . tcp . 443 " \
"timeout 330s }\n" \
"delete element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . tcp . " \
"443 }\n" \
"add element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . tcp . 443 " \
"timeout 330s }\n" \
"add element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . udp . 53 " \
"timeout 330s }\n" \
"delete element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . udp . " \
"53 }\n" \
"add element inet jailbee allow { 10.99.0.3 . 140.82.121.6 . udp . 53 " \
"timeout 330s }\n"

static const struct nftgen_elem admit_el[] = {
	{ IP(140, 82, 121, 6), EGRESS_PROTO_UDP, 53 },
	{ IP(140, 82, 121, 6), EGRESS_PROTO_TCP, 443 },
	{ IP(93, 184, 216, 34), EGRESS_PROTO_ANY, 0 },
	{ IP(140, 82, 121, 6), EGRESS_PROTO_TCP, 443 },
};

/*
 * The explicit proxy (network.proxy_port): its port on the host's
 * bridge address is open to strict containers' sources, and to nothing
 * else; without it no rule names it; it cannot be a port the bridge
 * address already serves.
 */
ATF_TC_WITHOUT_HEAD(nftgen_proxy);
ATF_TC_BODY(nftgen_proxy, tc)
{
	struct nftgen_net	 net = sample_net;
	struct nftgen_container	 c[] = {
		{ "a", IP(10, 99, 0, 10), NFTGEN_STRICT, NULL, 0, 0 },
	};
	char			*out, err[256];

	ATF_REQUIRE_MSG(nftgen_ruleset(&net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK(strstr(out, "3128") == NULL);
	free(out);
	net.proxy_port = 3128;
	ATF_REQUIRE_MSG(nftgen_ruleset(&net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK(strstr(out, "\t\tiifname \"jbbr0\" ip saddr @strictdns "
	    "ip daddr 10.99.0.1 tcp dport 3128 accept\n\t\tiifname \"jbbr0\" "
	    "drop\n") != NULL);
	free(out);
	net.proxy_port = 53;
	ATF_CHECK(nftgen_ruleset(&net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "proxy port 53: the bridge address's DNS or "
	    "gateway port");
}

/*
 * The egress gateway (network.gateway_ports): a strict container's TCP
 * to those ports that its static sets do not admit is DNATed to the
 * gateway; the gateway's port is open on the host's bridge address for
 * what was DNATed there; UDP 443 passes only through the static sets.
 */
ATF_TC_WITHOUT_HEAD(nftgen_gateway);
ATF_TC_BODY(nftgen_gateway, tc)
{
	static const uint16_t	 ports[] = { 443, 80 };
	struct nftgen_net	 net = sample_net;
	struct nftgen_container	 c[] = {
		{ "b", IP(10, 99, 0, 20), NFTGEN_LOOSE, NULL, 0, 0 },
		{ "a", IP(10, 99, 0, 10), NFTGEN_STRICT, NULL, 0, 0 },
	};
	struct nftgen_container	 now[2];
	const char		*names[] = { "gwctrs", "gwports", "ctrs",
				    "strictdns", "refused0", "refused1",
				    "allow", "allowany", "static",
				    "staticany" };
	const char		*chains[] = { "gw", "gw_old", "strict",
				    "forward" };
	struct nftgen_present	 present = { names, NELEM(names), chains,
				    NELEM(chains) };
	char			*out, err[256];

	net.gw_ports = ports;
	net.ngw = NELEM(ports);
	net.gw_port = 3129;
	ATF_REQUIRE_MSG(nftgen_ruleset(&net, c, NELEM(c), &present, &out, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK(strstr(out, "\tchain gw {\n"
	    "\t\tip saddr . ip daddr . meta l4proto . th dport @static "
	    "return\n"
	    "\t\tip saddr . ip daddr . meta l4proto @staticany return\n"
	    "\t\tmeta l4proto tcp dnat ip to 10.99.0.1:3129\n"
	    "\t}\n") != NULL);
	ATF_CHECK(strstr(out, "\t\tip saddr . ip daddr . meta l4proto "
	    "@staticany accept\n"
	    "\t\tudp dport 443 jump refuse\n"
	    "\t\tudp dport 443 reject with icmpx admin-prohibited\n"
	    "\t\tip saddr . ip daddr . meta l4proto . th dport @allow "
	    "accept\n") != NULL);
	ATF_CHECK(strstr(out, "\t\tiifname \"jbbr0\" tcp dport @gwports "
	    "ip saddr vmap @gwctrs\n") != NULL);
	ATF_CHECK(strstr(out, "\t\tiifname \"jbbr0\" ip daddr 10.99.0.1 "
	    "tcp dport 3129 ct status dnat accept\n\t\tiifname \"jbbr0\" "
	    "drop\n") != NULL);
	ATF_CHECK(strstr(out, "add element inet jailbee gwports { 443, 80 }\n")
	    != NULL);
	/* only the strict one goes to the gateway */
	ATF_CHECK(strstr(out, "add element inet jailbee gwctrs { 10.99.0.10 : "
	    "jump gw }\n") != NULL);
	ATF_CHECK(strstr(out, "flush map inet jailbee gwctrs\n") != NULL);
	/* a gateway chain of the layout before goes, the shared one stays */
	ATF_CHECK(strstr(out, "delete chain inet jailbee gw_old\n") != NULL);
	ATF_CHECK(strstr(out, "delete chain inet jailbee gw\n") == NULL);
	ATF_CHECK(strstr(out, "delete set inet jailbee gwctrs\n") == NULL);
	free(out);

	/* a switch moves the container in and out of the gateway's map */
	memcpy(now, c, sizeof(now));
	now[0].mode = NFTGEN_STRICT;
	ATF_REQUIRE(nftgen_delta(&net, c, 2, now, 2, NULL, 0, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(out,
	    "delete element inet jailbee ctrs { 10.99.0.20 }\n"
	    "add element inet jailbee ctrs { 10.99.0.20 : jump strict }\n"
	    "add element inet jailbee strictdns { 10.99.0.20 }\n"
	    "add element inet jailbee gwctrs { 10.99.0.20 : jump gw }\n");
	free(out);
	ATF_REQUIRE(nftgen_delta(&net, now, 2, c, 2, NULL, 0, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK(strstr(out, "delete element inet jailbee gwctrs { "
	    "10.99.0.20 }\n") != NULL);
	free(out);
	/* forgotten: a loose one was in no map of the gateway's */
	ATF_REQUIRE(nftgen_delta(&net, c, 2, &c[1], 1, NULL, 0, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK(strstr(out, "gwctrs") == NULL);
	ATF_CHECK(strstr(out, "chain") == NULL);
	free(out);
	/* a strict one leaves the gateway's map; no chain goes */
	ATF_REQUIRE(nftgen_delta(&net, c, 2, &c[0], 1, NULL, 0, &out, err,
	    sizeof(err)) == 0);
	ATF_CHECK(strstr(out, "delete element inet jailbee gwctrs { "
	    "10.99.0.10 }\n") != NULL);
	ATF_CHECK(strstr(out, "chain") == NULL);
	free(out);
	/* what net status says enforces each entry */
	{
		static const char *const in[] = { "www.test", "*.w.test:443",
		    "www.test:8080", "192.0.2.1:443", "10.0.0.0/8",
		    "dns.test:443/udp" };
		struct egress_entry	*e = entries(in, NELEM(in));
		char			 p[128];

		ATF_CHECK_STREQ(nftgen_path(&net, &e[0], p, sizeof(p)),
		    "gateway on 443,80 by name and address; kernel elsewhere "
		    "by the addresses the resolver gave");
		ATF_CHECK_STREQ(nftgen_path(&net, &e[1], p, sizeof(p)),
		    "gateway, by name and address");
		ATF_CHECK_STREQ(nftgen_path(&net, &e[2], p, sizeof(p)),
		    "kernel, by the addresses the resolver gave");
		ATF_CHECK_STREQ(nftgen_path(&net, &e[3], p, sizeof(p)),
		    "kernel, by address");
		ATF_CHECK_STREQ(nftgen_path(&net, &e[4], p, sizeof(p)),
		    "kernel, by address");
		ATF_CHECK_STREQ(nftgen_path(&net, &e[5], p, sizeof(p)),
		    "kernel, by the addresses the resolver gave");
		ATF_CHECK_STREQ(nftgen_path(&sample_net, &e[0], p, sizeof(p)),
		    "kernel, by the addresses the resolver gave");
		free(e);
	}
	/* a port the gateway may not take */
	net.gw_ports = (const uint16_t[]){ 53 };
	net.ngw = 1;
	ATF_CHECK(nftgen_ruleset(&net, c, NELEM(c), NULL, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "gateway port 53: must be 1-65535 and not DNS's");
}

ATF_TC_WITHOUT_HEAD(nftgen_admit);
ATF_TC_BODY(nftgen_admit, tc)
{
	struct nftgen_elem	 bad;
	char			*out, err[256];

	ATF_REQUIRE_MSG(nftgen_admit("web-1", IP(10, 99, 0, 3), admit_el, NELEM(admit_el), 330,
	    &out, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ(out, ADMIT_GOLDEN);
	free(out);

	ATF_CHECK(nftgen_admit("web_1", IP(10, 99, 0, 3), admit_el, 1, 330, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK(out == NULL);
	ATF_CHECK(nftgen_admit("web-1", IP(10, 99, 0, 3), admit_el, 1, 0, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "container web-1: timeout 0 s is not 1-604800");
	ATF_CHECK(nftgen_admit("web-1", IP(10, 99, 0, 3), admit_el, 1, NFTGEN_TIMEOUT_MAX + 1,
	    &out, err, sizeof(err)) == -1);
	ATF_CHECK(nftgen_admit("web-1", IP(10, 99, 0, 3), admit_el, 0, 30, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "container web-1: no addresses to admit");
	bad = admit_el[0];
	bad.port = 0;
	ATF_CHECK(nftgen_admit("web-1", IP(10, 99, 0, 3), &bad, 1, 30, &out, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "container web-1: element 0: a port goes with "
	    "tcp or udp, no port with any protocol");
	bad = admit_el[2];
	bad.port = 80;
	ATF_CHECK(nftgen_admit("web-1", IP(10, 99, 0, 3), &bad, 1, 30, &out, err,
	    sizeof(err)) == -1);
	bad.proto = (enum egress_proto)5;
	ATF_CHECK(nftgen_admit("web-1", IP(10, 99, 0, 3), &bad, 1, 30, &out, err,
	    sizeof(err)) == -1);
}

static const char *
nft_path(void)
{
	static const char *const paths[] = {
		"/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft",
	};
	size_t	i;

	for (i = 0; i < NELEM(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/*
 * nft -c: the kernel validates the whole batch, which is then aborted
 * (never committed), so the live ruleset is untouched.
 */
static void
nft_run(const char *nft, const char *text, int check)
{
	char	 errbuf[4096];
	FILE	*f;
	pid_t	 pid;
	int	 status, fd;
	size_t	 n;

	ATF_REQUIRE((f = fopen("ruleset.nft", "w")) != NULL);
	ATF_REQUIRE(fputs(text, f) >= 0);
	ATF_REQUIRE(fclose(f) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("nft.out", O_WRONLY | O_CREAT | O_TRUNC,
		    0600)) == -1 || dup2(fd, 1) == -1 || dup2(fd, 2) == -1)
			_exit(126);
		if (check)
			execl(nft, "nft", "-c", "-f", "ruleset.nft",
			    (char *)NULL);
		else
			execl(nft, "nft", "-f", "ruleset.nft", (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	errbuf[0] = '\0';
	if ((f = fopen("nft.out", "r")) != NULL) {
		n = fread(errbuf, 1, sizeof(errbuf) - 1, f);
		errbuf[n] = '\0';
		fclose(f);
	}
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "nft refused the text (status %d): %s\n--\n%s", status, errbuf,
	    text);
}

static void
nft_check(const char *nft, const char *text)
{
	nft_run(nft, text, 1);
}

static char *
concat(const char *a, const char *b, const char *c)
{
	char	*s;

	ATF_REQUIRE(asprintf(&s, "%s%s%s", a, b, c) != -1);
	return s;
}

ATF_TC(nft_accepts);
ATF_TC_HEAD(nft_accepts, tc)
{
	atf_tc_set_md_var(tc, "descr", "nft -c accepts the generated text");
}
ATF_TC_BODY(nft_accepts, tc)
{
	/* a table of the layout before: a container's own sets and chain */
	static const char old_layout[] = "table inet jailbee {\n"
	    "\tset allow_old {\n\t\ttype ipv4_addr\n\t}\n"
	    "\tset allowany_old {\n\t\ttype ipv4_addr\n\t}\n"
	    "\tchain strict_old {\n\t}\n"
	    "}\n";
	static const char *const sets[] = {
		"allow_old", "allowany_old", "allow", "static",
	};
	static const char *const chains[] = { "strict_old", "forward" };
	/* merged elements must not overlap, or the kernel refuses them */
	static const char *const old_in[] = {
		"10.1.2.3", "10.1.0.0/16", "10.0.0.0/8", "10.0.0.0/8",
		"11.0.0.0/8", "9.255.255.255", "10.2.0.0/16:22",
		"12.0.0.0/8:22", "12.1.0.0/16:22", "12.1.0.0/16:22/udp",
		"12.1.2.3:23", "12.1.2.3:22", "0.0.0.0/1:80", "1.2.3.4:80",
		"192.0.2.0/24:53/udp", "api.github.com", "*.example.com:443",
	};
	struct nftgen_present	 p = { sets, NELEM(sets), chains,
	    NELEM(chains) };
	struct egress_entry	*e = entries(old_in, NELEM(old_in));
	struct nftgen_container	 c[] = {
		{ "old", IP(10, 99, 0, 9), NFTGEN_STRICT, e, NELEM(old_in),
		    1 },
		{ "web-1", IP(10, 99, 0, 3), NFTGEN_LOOSE, NULL, 0, 0 },
	};
	const char		*nft;
	char			*gen0, *gen1, *gen2, *gen3, *admit, *admit_old;
	char			*all, err[256];

	if ((nft = nft_path()) == NULL)
		atf_tc_skip("nft is not installed");
	if (geteuid() != 0)
		atf_tc_skip("nft -c needs root");

	ATF_REQUIRE(nftgen_ruleset(&sample_net, c, NELEM(c), NULL, &gen0, err,
	    sizeof(err)) == 0);
	gen1 = concat(old_layout, gen0, "");
	free(gen0);
	ATF_REQUIRE(nftgen_admit("web-1", IP(10, 99, 0, 3), admit_el,
	    NELEM(admit_el), 330, &admit, err, sizeof(err)) == 0);
	ATF_REQUIRE(nftgen_admit("old", IP(10, 99, 0, 9), admit_el,
	    NELEM(admit_el), 60, &admit_old, err, sizeof(err)) == 0);
	gen2 = sample(&p);
	gen3 = sample(NULL);

	nft_check(nft, gen1);
	nft_check(nft, gen3);
	/*
	 * In one batch, as the kernel would see successive transactions:
	 * a table of the layout before, made again with "old" and admitted
	 * addresses; the next ruleset deleting the sets and chain of the
	 * layout before, and admitting again; the same ruleset again
	 * (idempotent).
	 */
	all = concat(gen1, admit, admit_old);
	free(gen1);
	gen1 = concat(all, gen2, admit);
	free(all);
	all = concat(gen1, gen3, admit);
	nft_check(nft, all);
	free(all);
	free(gen1);
	free(gen2);
	free(gen3);
	free(admit);
	free(admit_old);
	free(e);
}

ATF_TC(nft_accepts_delta);
ATF_TC_HEAD(nft_accepts_delta, tc)
{
	atf_tc_set_md_var(tc, "descr", "the kernel takes a ruleset and the "
	    "deltas after it, each its own transaction, in a network "
	    "namespace of the test's own");
}
ATF_TC_BODY(nft_accepts_delta, tc)
{
	static const char *const more_in[] = {
		"10.0.0.0/8:5432", "192.0.2.7:53/udp", "198.0.0.0/8",
		"203.0.113.5", "10.1.0.0/16:5433", "192.0.2.8:22",
	};
	struct egress_entry	*e = entries(sample_in, NELEM(sample_in));
	struct egress_entry	*m = entries(more_in, NELEM(more_in));
	struct nftgen_container	 s0[] = {
		{ "web-1", IP(10, 99, 0, 3), NFTGEN_STRICT, e,
		    NELEM(sample_in), 0 },
		{ "dev", IP(10, 99, 0, 2), NFTGEN_LOOSE, NULL, 0, 0 },
	}, s1[2], s2[2], s3[1];
	static const uint32_t	 srcs[] = {
		IP(10, 99, 0, 2), IP(10, 99, 0, 3), IP(10, 99, 0, 7),
	};
	struct nftgen_dyn	 dyn[NELEM(srcs) * NELEM(admit_el)];
	const char		*nft;
	char			*t, err[256];
	FILE			*f;
	char			 buf[8192];
	size_t			 n, i, j;

	if ((nft = nft_path()) == NULL)
		atf_tc_skip("nft is not installed");
	if (geteuid() != 0)
		atf_tc_skip("nft needs root");
	/* a table of our own: the suite's, if one runs, is not touched */
	ATF_REQUIRE_MSG(unshare(CLONE_NEWNET) == 0, "unshare: %s",
	    strerror(errno));

	/* web-1 loose, dev strict */
	memcpy(s1, s0, sizeof(s1));
	s1[0].mode = NFTGEN_LOOSE;
	s1[1].mode = NFTGEN_STRICT;
	/* web-1's entries changed (a network now covers one), dev moved */
	memcpy(s2, s1, sizeof(s2));
	s2[0].entries = m;
	s2[0].nentries = NELEM(more_in);
	s2[1].addr = IP(10, 99, 0, 7);
	/* dev forgotten */
	s3[0] = s2[0];

	/*
	 * What the sets may hold: every admitted element from each
	 * address, whether still there, timed out, or never admitted
	 */
	for (i = 0; i < NELEM(srcs); i++)
		for (j = 0; j < NELEM(admit_el); j++) {
			dyn[i * NELEM(admit_el) + j].src = srcs[i];
			dyn[i * NELEM(admit_el) + j].dst = admit_el[j].addr;
			dyn[i * NELEM(admit_el) + j].proto = admit_el[j].proto;
			dyn[i * NELEM(admit_el) + j].port = admit_el[j].port;
		}

	ATF_REQUIRE(nftgen_ruleset(&sample_net, s0, 2, NULL, &t, err,
	    sizeof(err)) == 0);
	nft_run(nft, t, 0);
	free(t);
#define STEP(a, na, b, nb) do {						\
	ATF_REQUIRE_MSG(nftgen_delta(&sample_net, a, na, b, nb, dyn,	\
	    NELEM(dyn), &t, err, sizeof(err)) == 0, "%s", err);		\
	nft_run(nft, t, 0);						\
	free(t);							\
} while (0)
#define ADMIT(name, src, secs) do {					\
	ATF_REQUIRE(nftgen_admit(name, src, admit_el, NELEM(admit_el),	\
	    secs, &t, err, sizeof(err)) == 0);				\
	nft_run(nft, t, 0);						\
	free(t);							\
} while (0)
	ADMIT("web-1", IP(10, 99, 0, 3), 330);
	/* dev's admissions time out before it moves: no error */
	ADMIT("dev", IP(10, 99, 0, 2), 1);
	STEP(s0, 2, s1, 2);
	(void)usleep(1500 * 1000);
	STEP(s1, 2, s2, 2);
	/* what was admitted from an address goes with the container */
	ADMIT("dev", IP(10, 99, 0, 7), 330);
	STEP(s2, 2, s3, 1);
	STEP(s3, 1, s0, 2);
	STEP(s0, 2, s2, 2);
#undef STEP
#undef ADMIT
	/* the kernel holds what s2 says */
	ATF_REQUIRE((f = popen("nft list map inet jailbee ctrs; "
	    "nft list set inet jailbee staticany; "
	    "nft list set inet jailbee strictdns", "r")) != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	pclose(f);
	ATF_CHECK_MSG(strstr(buf, "10.99.0.3 : accept") != NULL &&
	    strstr(buf, "10.99.0.7 : jump strict") != NULL &&
	    strstr(buf, "10.99.0.2") == NULL, "%s", buf);
	ATF_CHECK_MSG(strstr(buf, "10.99.0.3 . 198.0.0.0/8 . 0-255") != NULL &&
	    strstr(buf, "10.99.0.3 . 203.0.113.5 . 0-255") != NULL &&
	    strstr(buf, "198.51.100.0/24") == NULL, "%s", buf);
	ATF_CHECK_MSG(strstr(buf, "elements = { 10.99.0.7 }") != NULL, "%s",
	    buf);
	/* web-1 keeps what it was admitted; dev's went at each move */
	ATF_REQUIRE((f = popen("nft list set inet jailbee allow; "
	    "nft list set inet jailbee allowany", "r")) != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	pclose(f);
	ATF_CHECK_MSG(strstr(buf, "10.99.0.3 . 140.82.121.6 . tcp . 443") !=
	    NULL && strstr(buf, "10.99.0.3 . 93.184.216.34") != NULL &&
	    strstr(buf, "10.99.0.7") == NULL && strstr(buf, "10.99.0.2") ==
	    NULL, "%s", buf);
	/* and the bridge table lets dev's port send from its new address */
	ATF_REQUIRE((f = popen("nft list set bridge jailbee ports", "r"))
	    != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	pclose(f);
	ATF_CHECK_MSG(strstr(buf, "\"jbc0a630003\" . 0a:6a:0a:63:00:03 . "
	    "10.99.0.3") != NULL && strstr(buf, "\"jbc0a630007\" . "
	    "0a:6a:0a:63:00:07 . 10.99.0.7") != NULL &&
	    strstr(buf, "10.99.0.2") == NULL, "%s", buf);
	free(e);
	free(m);
}

/* a NIC's port name and MAC, from its address alone */
ATF_TC_WITHOUT_HEAD(nic_names);
ATF_TC_BODY(nic_names, tc)
{
	char	ifn[JB_NIC_IFNAME_LEN], mac[JB_NIC_MAC_LEN];

	jb_nic_ifname(IP(10, 213, 0, 2), ifn, sizeof(ifn));
	jb_nic_mac(IP(10, 213, 0, 2), mac, sizeof(mac));
	ATF_CHECK_STREQ(ifn, "jbc0ad50002");
	ATF_CHECK_STREQ(mac, "0a:6a:0a:d5:00:02");
	/* the longest fits IFNAMSIZ; the MAC is unicast, locally assigned */
	jb_nic_ifname(IP(255, 255, 255, 254), ifn, sizeof(ifn));
	jb_nic_mac(IP(255, 255, 255, 254), mac, sizeof(mac));
	ATF_CHECK_STREQ(ifn, "jbcfffffffe");
	ATF_CHECK(strlen(ifn) < 16);
	ATF_CHECK_STREQ(mac, "0a:6a:ff:ff:ff:fe");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, parse_forms);
	ATF_TP_ADD_TC(tp, parse_limits);
	ATF_TP_ADD_TC(tp, parse_rejects);
	ATF_TP_ADD_TC(tp, valid_hostname);
	ATF_TP_ADD_TC(tp, name_match);
	ATF_TP_ADD_TC(tp, name_match_long);
	ATF_TP_ADD_TC(tp, ident);
	ATF_TP_ADD_TC(tp, nftgen_golden);
	ATF_TP_ADD_TC(tp, nic_names);
	ATF_TP_ADD_TC(tp, nftgen_present);
	ATF_TP_ADD_TC(tp, nftgen_options);
	ATF_TP_ADD_TC(tp, nftgen_merge);
	ATF_TP_ADD_TC(tp, nftgen_refuses);
	ATF_TP_ADD_TC(tp, nftgen_admit);
	ATF_TP_ADD_TC(tp, nftgen_delta);
	ATF_TP_ADD_TC(tp, nftgen_gateway);
	ATF_TP_ADD_TC(tp, nftgen_proxy);
	ATF_TP_ADD_TC(tp, nft_accepts_delta);
	ATF_TP_ADD_TC(tp, nft_accepts);
	return atf_no_error();
}
