#!/usr/bin/env python3
#
# Copyright (c) 2026 The JailBee authors
#
# Permission to use, copy, modify, and distribute this software for any
# purpose with or without fee is hereby granted, provided that the above
# copyright notice and this permission notice appear in all copies.
#
# THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
# WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
# MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
# ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
# WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
# ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
# OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
#
# mkhello.py [-n NAME] [-p PAD] [-e] [-r RECORD]: a TLS 1.2 ClientHello a
# real server answers with its ServerHello, on stdout: server name NAME
# (none without -n), a padding extension of PAD bytes (to make it long),
# an encrypted_client_hello extension with -e, cut into records of at
# most RECORD bytes (default 16384).

import getopt
import os
import struct
import sys


def ext(t, data):
    return struct.pack("!HH", t, len(data)) + data


def main():
    opts, _ = getopt.getopt(sys.argv[1:], "n:p:er:")
    o = dict(opts)
    exts = b""
    if "-n" in o:
        name = o["-n"].encode()
        entry = b"\x00" + struct.pack("!H", len(name)) + name
        exts += ext(0, struct.pack("!H", len(entry)) + entry)
    # supported_groups: x25519, secp256r1; ec_point_formats: uncompressed
    exts += ext(10, struct.pack("!HHH", 4, 0x001d, 0x0017))
    exts += ext(11, b"\x01\x00")
    # signature_algorithms: rsa_pss_rsae_sha256, rsa_pkcs1_sha256
    exts += ext(13, struct.pack("!HHH", 4, 0x0804, 0x0401))
    if "-e" in o:
        exts += ext(0xfe0d, b"\x00" + os.urandom(40))
    if "-p" in o:
        exts += ext(21, bytes(int(o["-p"])))
    body = b"\x03\x03" + os.urandom(32) + b"\x00"
    # ECDHE-RSA-AES128-GCM-SHA256, ECDHE-RSA-AES256-GCM-SHA384
    body += struct.pack("!HHH", 4, 0xc02f, 0xc030) + b"\x01\x00"
    body += struct.pack("!H", len(exts)) + exts
    hs = b"\x01" + struct.pack("!I", len(body))[1:] + body
    rec = int(o.get("-r", 16384))
    out = b""
    for i in range(0, len(hs), rec):
        frag = hs[i:i + rec]
        out += b"\x16\x03\x01" + struct.pack("!H", len(frag)) + frag
    sys.stdout.buffer.write(out)


main()
