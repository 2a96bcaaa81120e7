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
 * A container's NIC, named from its fixed address alone: the host side
 * of its veth and its MAC address.  jb-incus gives them to Incus when it
 * makes the container, and jb-netd puts the same triple (port, MAC,
 * address) in the bridge table that lets the port send, so both know it
 * before the container exists and nothing has to be read back.
 *
 * Addresses are in host byte order.  Two containers of one bridge never
 * share an address, so they never share a port name or a MAC.
 */

#ifndef JB_NICNAME_H
#define JB_NICNAME_H

#include <stddef.h>
#include <stdint.h>

#define JB_NIC_IFNAME_LEN	12	/* "jbc" + 8 hex digits + NUL */
#define JB_NIC_MAC_LEN		18	/* "0a:6a:" + 4 bytes + NUL */
#define JB_NIC_IFNAME_PREFIX	"jbc"

/*
 * The host-side interface name: "jbc" and the address as 8 lower-case
 * hex digits (10.213.0.2 is jbc0ad50002).
 */
void	jb_nic_ifname(uint32_t addr, char *buf, size_t len);
/*
 * The MAC address: 0a:6a and the address's four bytes, a locally
 * administered unicast address (10.213.0.2 is 0a:6a:0a:d5:00:02).
 */
void	jb_nic_mac(uint32_t addr, char *buf, size_t len);

#endif /* JB_NICNAME_H */
