#! /usr/bin/env python3
#
# Copyright (c) 2026 The JailBee authors
#
# Permission to use, copy, modify, and distribute this software for any
# purpose with or without fee is hereby granted, provided that the above
# copyright notice and this permission notice appear in all copies.
#
# THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
#
# leases.py BRIDGE PREFIX: release the DHCP leases dnsmasq still holds on
# BRIDGE for containers named PREFIX-* that no longer exist, as Incus does
# when a NIC goes (a DHCPRELEASE on the client's behalf).  Incus loses
# some of those when many containers are deleted at once, and a lease
# outlives its container for an hour: a later container given the same
# static address would get a dynamic one instead.  A test that deletes
# many containers at once runs this after.

import socket
import struct
import subprocess
import sys


def release(bridge, server, ip, mac):
    hw = bytes.fromhex(mac.replace(":", ""))
    pkt = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0, 0x6a6c6200,
                      0, 0, socket.inet_aton(ip), bytes(4), bytes(4),
                      bytes(4), hw + bytes(10), bytes(64), bytes(128))
    pkt += b"\x63\x82\x53\x63" + bytes([53, 1, 7, 54, 4])
    pkt += socket.inet_aton(server) + bytes([61, 7, 1]) + hw + b"\xff"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, bridge.encode())
    s.sendto(pkt, (server, 67))
    s.close()


def main():
    bridge, prefix = sys.argv[1], sys.argv[2] + "-"
    server = subprocess.run(["incus", "network", "get", bridge,
                             "ipv4.address"], capture_output=True,
                            text=True, check=True).stdout.split("/")[0]
    alive = set(subprocess.run(["incus", "list", "-c", "n", "-f", "csv"],
                               capture_output=True, text=True,
                               check=True).stdout.split())
    path = "/var/lib/incus/networks/%s/dnsmasq.leases" % bridge
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 4 and w[3].startswith(prefix) and \
                    w[3] not in alive:
                release(bridge, server, w[2], w[1])


main()
