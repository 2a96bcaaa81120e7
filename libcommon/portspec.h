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
 * The pure parts of port forwards: the device names the
 * suite gives its Incus proxy devices, the address and port syntax it
 * accepts, and the listen/connect strings of a device both ways.  No
 * system calls here: every rule is unit-tested (t_portspec), and the
 * parent, jb-incus and the config parser share them.
 *
 *	port-cfg-<name>		a host_ports entry: a host service inside
 *	port-tc-<proto>-<port>	port to-container: the same, by hand
 *	port-th-<proto>-<port>	port to-host: a container service on the
 *				host
 *
 * <port> is the container's side in both directions.  A to-container
 * device listens in the container (bind instance) and connects to the
 * host; a to-host device listens on the host (bind host) and connects
 * into the container.  Addresses are IPv4 literals only: the suite
 * drops IPv6 from containers, and a name would be resolved by incusd
 * where nobody checks it.
 */

#ifndef JB_PORTSPEC_H
#define JB_PORTSPEC_H

#include <stddef.h>
#include <stdint.h>

#define PORT_CFG_PREFIX		"port-cfg-"
#define PORT_TC_PREFIX		"port-tc-"
#define PORT_TH_PREFIX		"port-th-"
#define PORT_NAME_MAX		40	/* a host_ports name */
#define PORT_LOOPBACK		"127.0.0.1"
/* to-host --host-port auto: the lowest port here no forward claims */
#define PORT_AUTO_FIRST		20000
#define PORT_AUTO_LAST		29999
/* a to-host forward never takes a privileged host port */
#define PORT_HOST_MIN		1024

enum port_dir {
	PORT_TO_CONTAINER = 1,	/* a host service reachable inside */
	PORT_TO_HOST,		/* a container service reachable on the host */
};

/* a host_ports name: [a-z0-9-], 1 to 40, not starting with '-' */
int	port_name_ok(const char *);
/* "tcp" or "udp" */
int	port_proto_ok(const char *);
/* a canonical dotted-quad IPv4 literal ("127.0.0.1", not "127.1") */
int	port_addr_ok(const char *);
/* 127.0.0.0/8; 0 for anything that is not a valid literal */
int	port_addr_loopback(const char *);
/* "1".."65535", decimal, no sign, no leading zero: 1..65535, else 0 */
uint32_t port_number(const char *);

/*
 * The suite's device name for a forward: port-cfg-<name> when cfgname
 * is not NULL, else by direction, protocol and container port.  -1 when
 * it does not fit.
 */
int	port_device(char *, size_t, enum port_dir, const char *proto,
	    uint32_t port, const char *cfgname);
/*
 * Is d a device name of the suite's?  Its direction, and for the
 * port-tc/port-th forms the protocol and port it names, are returned
 * when the pointers are not NULL.
 */
int	port_device_ok(const char *d, enum port_dir *, char *proto,
	    size_t protolen, uint32_t *port);

/* "tcp:127.0.0.1:8080" into buf; -1 when it does not fit */
int	port_endpoint(char *, size_t, const char *proto, const char *addr,
	    uint32_t port);
/* the reverse, checked as above; 0, or -1 when s is not of that form */
int	port_endpoint_parse(const char *s, char *proto, size_t protolen,
	    char *addr, size_t addrlen, uint32_t *port);

#endif /* JB_PORTSPEC_H */
