/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* Port forwards' pure parts: names, addresses, endpoints. */

#include <string.h>

#include <atf-c.h>

#include "portspec.h"

ATF_TC_WITHOUT_HEAD(addresses);
ATF_TC_BODY(addresses, tc)
{
	ATF_CHECK(port_addr_ok("127.0.0.1"));
	ATF_CHECK(port_addr_ok("0.0.0.0"));
	ATF_CHECK(port_addr_ok("255.255.255.255"));
	ATF_CHECK(port_addr_ok("10.0.0.5"));
	/* only the canonical dotted quad: what Incus gets is what we see */
	ATF_CHECK(!port_addr_ok("127.1"));
	ATF_CHECK(!port_addr_ok("127.0.0.01"));
	ATF_CHECK(!port_addr_ok("256.0.0.1"));
	ATF_CHECK(!port_addr_ok("1.2.3.4."));
	ATF_CHECK(!port_addr_ok("1.2.3.4 "));
	ATF_CHECK(!port_addr_ok(" 1.2.3.4"));
	ATF_CHECK(!port_addr_ok("1.2.3"));
	ATF_CHECK(!port_addr_ok("1..2.3"));
	ATF_CHECK(!port_addr_ok("localhost"));
	ATF_CHECK(!port_addr_ok("::1"));
	ATF_CHECK(!port_addr_ok("0x7f.0.0.1"));
	ATF_CHECK(!port_addr_ok(""));
	ATF_CHECK(!port_addr_ok("99999999999.0.0.1"));
	ATF_CHECK(port_addr_loopback("127.0.0.1"));
	ATF_CHECK(port_addr_loopback("127.255.0.9"));
	ATF_CHECK(!port_addr_loopback("0.0.0.0"));
	ATF_CHECK(!port_addr_loopback("10.0.0.1"));
	ATF_CHECK(!port_addr_loopback("128.0.0.1"));
	ATF_CHECK(!port_addr_loopback("127.1"));
}

ATF_TC_WITHOUT_HEAD(numbers);
ATF_TC_BODY(numbers, tc)
{
	ATF_CHECK(port_number("1") == 1);
	ATF_CHECK(port_number("8080") == 8080);
	ATF_CHECK(port_number("65535") == 65535);
	ATF_CHECK(port_number("0") == 0);
	ATF_CHECK(port_number("65536") == 0);
	ATF_CHECK(port_number("080") == 0);
	ATF_CHECK(port_number("+80") == 0);
	ATF_CHECK(port_number("-1") == 0);
	ATF_CHECK(port_number("80x") == 0);
	ATF_CHECK(port_number("") == 0);
	ATF_CHECK(port_number("auto") == 0);
	ATF_CHECK(port_number("4294967377") == 0);
}

ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	ATF_CHECK(port_name_ok("pg"));
	ATF_CHECK(port_name_ok("a-1"));
	ATF_CHECK(port_name_ok("0123456789012345678901234567890123456789"));
	ATF_CHECK(!port_name_ok("01234567890123456789012345678901234567890"));
	ATF_CHECK(!port_name_ok(""));
	ATF_CHECK(!port_name_ok("-a"));
	ATF_CHECK(!port_name_ok("A"));
	ATF_CHECK(!port_name_ok("a_b"));
	ATF_CHECK(!port_name_ok("a/b"));
	ATF_CHECK(port_proto_ok("tcp"));
	ATF_CHECK(port_proto_ok("udp"));
	ATF_CHECK(!port_proto_ok("TCP"));
	ATF_CHECK(!port_proto_ok("sctp"));
}

ATF_TC_WITHOUT_HEAD(devices);
ATF_TC_BODY(devices, tc)
{
	char		buf[64], proto[8];
	enum port_dir	dir;
	uint32_t	port;

	ATF_REQUIRE(port_device(buf, sizeof(buf), PORT_TO_HOST, "tcp", 8080,
	    NULL) == 0);
	ATF_CHECK_STREQ(buf, "port-th-tcp-8080");
	ATF_REQUIRE(port_device(buf, sizeof(buf), PORT_TO_CONTAINER, "udp", 53,
	    NULL) == 0);
	ATF_CHECK_STREQ(buf, "port-tc-udp-53");
	ATF_REQUIRE(port_device(buf, sizeof(buf), PORT_TO_CONTAINER, "tcp", 1,
	    "pg") == 0);
	ATF_CHECK_STREQ(buf, "port-cfg-pg");
	ATF_CHECK(port_device(buf, 8, PORT_TO_HOST, "tcp", 8080, NULL) == -1);

	ATF_REQUIRE(port_device_ok("port-th-tcp-8080", &dir, proto,
	    sizeof(proto), &port));
	ATF_CHECK(dir == PORT_TO_HOST);
	ATF_CHECK_STREQ(proto, "tcp");
	ATF_CHECK(port == 8080);
	ATF_REQUIRE(port_device_ok("port-tc-udp-53", &dir, proto,
	    sizeof(proto), &port));
	ATF_CHECK(dir == PORT_TO_CONTAINER);
	ATF_CHECK_STREQ(proto, "udp");
	ATF_CHECK(port == 53);
	ATF_REQUIRE(port_device_ok("port-cfg-pg", &dir, NULL, 0, NULL));
	ATF_CHECK(dir == PORT_TO_CONTAINER);
	ATF_CHECK(!port_device_ok("port-th-tcp-0", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("port-th-tcp-65536", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("port-th-sctp-80", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("port-th-tcp-80x", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("port-th-tcp-", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("port-cfg-", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("port-cfg-A", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("eth0", NULL, NULL, 0, NULL));
	ATF_CHECK(!port_device_ok("host-source", NULL, NULL, 0, NULL));
}

ATF_TC_WITHOUT_HEAD(endpoints);
ATF_TC_BODY(endpoints, tc)
{
	char		buf[64], proto[8], addr[16];
	uint32_t	port;

	ATF_REQUIRE(port_endpoint(buf, sizeof(buf), "tcp", "127.0.0.1",
	    8080) == 0);
	ATF_CHECK_STREQ(buf, "tcp:127.0.0.1:8080");
	ATF_CHECK(port_endpoint(buf, 10, "tcp", "127.0.0.1", 8080) == -1);
	ATF_REQUIRE(port_endpoint_parse("udp:10.0.0.1:53", proto,
	    sizeof(proto), addr, sizeof(addr), &port) == 0);
	ATF_CHECK_STREQ(proto, "udp");
	ATF_CHECK_STREQ(addr, "10.0.0.1");
	ATF_CHECK(port == 53);
	ATF_CHECK(port_endpoint_parse("tcp:[::1]:80", proto, sizeof(proto),
	    addr, sizeof(addr), &port) == -1);
	ATF_CHECK(port_endpoint_parse("unix:/run/x", proto, sizeof(proto),
	    addr, sizeof(addr), &port) == -1);
	ATF_CHECK(port_endpoint_parse("tcp:localhost:80", proto,
	    sizeof(proto), addr, sizeof(addr), &port) == -1);
	ATF_CHECK(port_endpoint_parse("tcp:1.2.3.4:0", proto, sizeof(proto),
	    addr, sizeof(addr), &port) == -1);
	ATF_CHECK(port_endpoint_parse("tcp:1.2.3.4:80-90", proto,
	    sizeof(proto), addr, sizeof(addr), &port) == -1);
	ATF_CHECK(port_endpoint_parse("", proto, sizeof(proto), addr,
	    sizeof(addr), &port) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, addresses);
	ATF_TP_ADD_TC(tp, numbers);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, devices);
	ATF_TP_ADD_TC(tp, endpoints);
	return atf_no_error();
}
