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
 * Refused connection attempts: libnftables' JSON listing of a set of
 * refused flows parsed, the key text and back, the entry suggested, and
 * the bounded table that keeps them.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "blocked.h"
#include "nftgen.h"
#include "refused.h"

/*
 * what nft 1.0.6 prints for a set with two elements, the first protocol
 * by name (as nft prints it by default), the second by number (as
 * jb-netd asks for it)
 */
static const char listing[] =
    "{\"nftables\": [{\"metainfo\": {\"version\": \"1.0.6\", "
    "\"release_name\": \"Lester Gooch #5\", \"json_schema_version\": 1}}, "
    "{\"set\": {\"family\": \"inet\", \"name\": \"refused0\", \"table\": "
    "\"jailbee\", \"type\": [\"ipv4_addr\", \"ipv4_addr\", \"inet_proto\", "
    "\"inet_service\"], \"handle\": 3, \"size\": 8192, \"flags\": "
    "[\"timeout\"], \"timeout\": 3600, \"elem\": [{\"elem\": {\"val\": "
    "{\"concat\": [\"10.20.0.5\", \"198.18.0.7\", \"tcp\", 8080]}, "
    "\"expires\": 3590, \"counter\": {\"packets\": 3, \"bytes\": 180}}}, "
    "{\"elem\": {\"val\": {\"concat\": [\"10.20.0.6\", \"198.18.0.8\", "
    "17, 53]}, \"expires\": 3599, \"counter\": {\"packets\": 1, "
    "\"bytes\": 60}}}], \"stmt\": [{\"counter\": null}]}}]}";

static const char empty[] =
    "{\"nftables\": [{\"metainfo\": {\"version\": \"1.0.6\"}}, {\"set\": "
    "{\"family\": \"inet\", \"name\": \"refused1\", \"table\": \"jailbee\", "
    "\"size\": 8192, \"timeout\": 3600}}]}";

ATF_TC_WITHOUT_HEAD(parse);
ATF_TC_BODY(parse, tc)
{
	struct refused_elem	*v;
	size_t			 n;
	char			 err[256], w[REFUSED_WHAT_MAX];

	ATF_REQUIRE(refused_parse(listing, strlen(listing), 100, &v, &n, err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(n == 2);
	ATF_CHECK(v[0].src == 0x0a140005);
	ATF_CHECK(v[0].dst == 0xc6120007);
	ATF_CHECK(v[0].proto == EGRESS_PROTO_TCP);
	ATF_CHECK(v[0].port == 8080);
	ATF_CHECK(v[0].packets == 3);
	ATF_CHECK(v[0].expires == 3590);
	ATF_CHECK_STREQ(refused_what(&v[0], w, sizeof(w)),
	    "198.18.0.7:8080/tcp");
	ATF_CHECK(v[1].proto == EGRESS_PROTO_UDP);
	ATF_CHECK_STREQ(refused_what(&v[1], w, sizeof(w)), "198.18.0.8:53/udp");
	free(v);
	ATF_REQUIRE(refused_parse(empty, strlen(empty), 100, &v, &n, err,
	    sizeof(err)) == 0);
	ATF_CHECK(n == 0 && v == NULL);
}

ATF_TC_WITHOUT_HEAD(refuse);
ATF_TC_BODY(refuse, tc)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"nftables\": 1}",
		"{\"nftables\": []}",
		/* two sets: not what one listing of one set prints */
		"{\"nftables\": [{\"set\": {}}, {\"set\": {}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": 7}}]}",
		/* three keys, a bad address, a protocol, a port */
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"tcp\"]}, "
		    "\"counter\": {\"packets\": 1}}}]}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"01.2.3.5\", \"tcp\", 1]}, "
		    "\"counter\": {\"packets\": 1}}}]}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"icmp\", 1]}, "
		    "\"counter\": {\"packets\": 1}}}]}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"tcp\", 65536]}, "
		    "\"counter\": {\"packets\": 1}}}]}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", 1, 1]}, "
		    "\"counter\": {\"packets\": 1}}}]}}]}",
		/* a port by name (nft -S): jb-netd never asks for one */
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", 6, \"http\"]}, "
		    "\"counter\": {\"packets\": 1}}}]}}]}",
		/* no counter, a negative one, a negative expiry */
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"tcp\", 1]}}}]}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"tcp\", 1]}, "
		    "\"counter\": {\"packets\": -1}}}]}}]}",
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"tcp\", 1]}, "
		    "\"expires\": -5, \"counter\": {\"packets\": 1}}}]}}]}",
		/* a second set after one with elements */
		"{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
		    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", \"tcp\", 1]}, "
		    "\"counter\": {\"packets\": 1}}}]}}, {\"set\": {}}]}",
		/* trailing bytes */
		"{\"nftables\": [{\"set\": {}}]} x",
	};
	struct refused_elem	*v;
	size_t			 i, n;
	char			 err[256];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 99;
		ATF_CHECK_MSG(refused_parse(bad[i], strlen(bad[i]), 100, &v,
		    &n, err, sizeof(err)) == -1, "accepted %s", bad[i]);
		ATF_CHECK(v == NULL && n == 0);
		ATF_CHECK_MSG(strstr(err, "refused flows") != NULL, "%s", err);
	}
	/* more elements than a set holds */
	ATF_CHECK(refused_parse(listing, strlen(listing), 1, &v, &n, err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "more than the 1") != NULL);
}

/*
 * A full set, read element by element: every element as listed, the
 * order kept; the separators between them checked; brackets and the key
 * inside strings elsewhere in the set do not move where its list is.
 */
ATF_TC_WITHOUT_HEAD(full_set);
ATF_TC_BODY(full_set, tc)
{
	static const char head[] =
	    "{\"nftables\": [{\"metainfo\": {\"version\": \"1.0.6\"}}, "
	    "{\"set\": {\"family\": \"inet\", \"name\": \"r]\\\"elem\\\": [\", "
	    "\"table\": \"jailbee\", \"size\": 8192, \"elem\": [";
	static const char tail[] = "], \"stmt\": [{\"counter\": null}]}}]}";
	struct refused_elem	*v;
	size_t			 i, n, len, off;
	char			*t, err[256];

	len = sizeof(head) + sizeof(tail) + 8192 * 160;
	ATF_REQUIRE((t = malloc(len)) != NULL);
	off = (size_t)snprintf(t, len, "%s", head);
	for (i = 0; i < 8192; i++)
		off += (size_t)snprintf(t + off, len - off, "%s{\"elem\": "
		    "{\"val\": {\"concat\": [\"10.20.0.5\", \"198.18.%zu.%zu\", 6, "
		    "%zu]}, \"expires\": 3590, \"counter\": {\"packets\": %zu, "
		    "\"bytes\": 60}}}", i ? ", " : "", i / 256, i % 256,
		    i + 1, i + 1);
	off += (size_t)snprintf(t + off, len - off, "%s", tail);
	ATF_REQUIRE_MSG(refused_parse(t, off, 8192, &v, &n, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_REQUIRE(n == 8192);
	for (i = 0; i < n; i++)
		if (v[i].port != i + 1 || v[i].packets != i + 1 ||
		    v[i].dst != (0xc6120000u | (uint32_t)i))
			break;
	ATF_CHECK_MSG(i == n, "element %zu differs", i);
	free(v);
	/* one more than the set holds */
	ATF_CHECK(refused_parse(t, off, 8191, &v, &n, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "refused flows: 8192 elements, more than the "
	    "8191 a set holds");
	ATF_CHECK(v == NULL && n == 0);
	free(t);

	/* no comma between two elements, a comma after the last */
	t = "{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
	    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", 6, 1]}, \"counter\": "
	    "{\"packets\": 1}}} {\"elem\": {}}]}}]}";
	ATF_CHECK(refused_parse(t, strlen(t), 100, &v, &n, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "refused flows: the listing is not JSON");
	t = "{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
	    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", 6, 1]}, \"counter\": "
	    "{\"packets\": 1}}}, ]}}]}";
	ATF_CHECK(refused_parse(t, strlen(t), 100, &v, &n, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "refused flows: the listing is not JSON");
	/* the second element is no element */
	t = "{\"nftables\": [{\"set\": {\"elem\": [{\"elem\": {\"val\": "
	    "{\"concat\": [\"1.2.3.4\", \"1.2.3.5\", 6, 1]}, \"counter\": "
	    "{\"packets\": 1}}}, {\"elem\": {}}]}}]}";
	ATF_CHECK(refused_parse(t, strlen(t), 100, &v, &n, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "refused flows: element 1 is not source . "
	    "destination . tcp|udp . port with a counter");
	ATF_CHECK(v == NULL && n == 0);
}

ATF_TC_WITHOUT_HEAD(allow);
ATF_TC_BODY(allow, tc)
{
	struct refused_elem	e;
	char			buf[300];

	memset(&e, 0, sizeof(e));
	ATF_REQUIRE(refused_unwhat("198.18.0.7:8080/tcp", &e) == 0);
	ATF_CHECK(e.dst == 0xc6120007 && e.port == 8080 &&
	    e.proto == EGRESS_PROTO_TCP);
	/* the config's syntax: TCP implied by a port */
	ATF_CHECK_STREQ(refused_allow(&e, NULL, buf, sizeof(buf)),
	    "198.18.0.7:8080");
	ATF_CHECK_STREQ(refused_allow(&e, "", buf, sizeof(buf)),
	    "198.18.0.7:8080");
	ATF_CHECK_STREQ(refused_allow(&e, "api.example.test", buf,
	    sizeof(buf)), "api.example.test:8080");
	ATF_REQUIRE(refused_unwhat("198.18.0.8:53/udp", &e) == 0);
	ATF_CHECK_STREQ(refused_allow(&e, NULL, buf, sizeof(buf)),
	    "198.18.0.8:53/udp");
	ATF_CHECK_STREQ(refused_allow(&e, "ns.example.test", buf,
	    sizeof(buf)), "ns.example.test:53/udp");
	/* port 0 has no entry; a name the parser refuses gives none */
	e.port = 0;
	ATF_CHECK_STREQ(refused_allow(&e, NULL, buf, sizeof(buf)), "");
	e.port = 80;
	ATF_CHECK_STREQ(refused_allow(&e, "a b", buf, sizeof(buf)), "");
	/* only what refused_what prints comes back */
	ATF_CHECK(refused_unwhat("198.18.0.07:80/tcp", &e) == -1);
	ATF_CHECK(refused_unwhat("198.18.0.7:80/sctp", &e) == -1);
	ATF_CHECK(refused_unwhat("198.18.0.7:80/tcpx", &e) == -1);
	ATF_CHECK(refused_unwhat("256.18.0.7:80/tcp", &e) == -1);
	ATF_CHECK(refused_unwhat("198.18.0.7:65536/tcp", &e) == -1);
	ATF_CHECK(refused_unwhat("github.com", &e) == -1);
}

/* the table keeps connection keys as they are, adding counts */
ATF_TC_WITHOUT_HEAD(table);
ATF_TC_BODY(table, tc)
{
	struct blocked		b;
	struct blocked_sum	s;

	memset(&b, 0, sizeof(b));
	ATF_CHECK(blocked_add(&b, "c", "198.18.0.7:8080/tcp", 3, 90, 100)
	    == 1);
	ATF_CHECK(blocked_add(&b, "c", "198.18.0.7:8080/tcp", 2, 200, 205)
	    == 0);
	ATF_CHECK(blocked_add(&b, "c", "198.18.0.7:9/udp", 0, 1, 1) == 0);
	ATF_REQUIRE(b.n == 1);
	ATF_CHECK_STREQ(b.v[0].what, "198.18.0.7:8080/tcp");
	ATF_CHECK(b.v[0].count == 5);
	/* first stays the first read's, last moves on */
	ATF_CHECK(b.v[0].first == 90);
	ATF_CHECK(b.v[0].last == 205);
	blocked_summary(&b, "c", &s);
	ATF_CHECK(s.count == 5 && s.distinct == 1);
	ATF_CHECK_STREQ(s.top, "198.18.0.7:8080/tcp");
	blocked_free(&b);
}

/* a flood of distinct ports keeps BLOCKED_MAX entries */
ATF_TC_WITHOUT_HEAD(bounded);
ATF_TC_BODY(bounded, tc)
{
	struct blocked	b;
	char		what[REFUSED_WHAT_MAX];
	int		i;

	memset(&b, 0, sizeof(b));
	for (i = 1; i <= 65535; i++) {
		(void)snprintf(what, sizeof(what), "198.18.0.7:%d/tcp", i);
		ATF_REQUIRE(blocked_add(&b, "c", what, 1, i, i) >= 0);
	}
	ATF_CHECK(b.n == BLOCKED_MAX);
	ATF_CHECK(b.evicted == 65535 - BLOCKED_MAX);
	ATF_CHECK_STREQ(b.v[b.newest].what, "198.18.0.7:65535/tcp");
	blocked_free(&b);
}

/* the counting rule moves from one set to the other in one transaction */
ATF_TC_WITHOUT_HEAD(swap);
ATF_TC_BODY(swap, tc)
{
	char	*out;

	ATF_REQUIRE(nftgen_refuse_swap(1, &out) == 0);
	ATF_CHECK_STREQ(out, "flush chain inet jailbee refuse\n"
	    "add rule inet jailbee refuse meta l4proto { tcp, udp } update "
	    "@refused1 { ip saddr . ip daddr . meta l4proto . th dport }\n");
	free(out);
	ATF_REQUIRE(nftgen_refuse_swap(0, &out) == 0);
	ATF_CHECK(strstr(out, "update @refused0 {") != NULL);
	free(out);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, swap);
	ATF_TP_ADD_TC(tp, parse);
	ATF_TP_ADD_TC(tp, refuse);
	ATF_TP_ADD_TC(tp, full_set);
	ATF_TP_ADD_TC(tp, allow);
	ATF_TP_ADD_TC(tp, table);
	ATF_TP_ADD_TC(tp, bounded);
	return atf_no_error();
}
