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
# fakedns.py ADDR GOOD FORGED LOG: an upstream DNS server on ADDR:53 (UDP)
# that also plays a forger.  Every query is logged to LOG as
# "query SRCPORT ID NAME" (NAME exactly as it came, case included) and
# answered A GOOD.  For three names a forged answer A FORGED comes first,
# 0.3 s before the true one:
#   port.*  from port 5353 instead of 53, id and question right
#   case.*  from port 53 with the right id, every letter's case flipped
#   id.*    from port 53 with the question right, another id
# A name with a label "drop" is never answered (an upstream that hangs).

import socket
import struct
import sys
import threading
import time

addr, good, forged, logpath = sys.argv[1:5]
srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
srv.bind((addr, 53))
alt = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
alt.bind((addr, 5353))
log = open(logpath, "a", buffering=1)


def question_end(q):
    off = 12
    while q[off] != 0:
        off += 1 + q[off]
    return off + 5


def answer(qid, question, ip):
    hdr = struct.pack(">HHHHHH", qid, 0x8180, 1, 1, 0, 0)
    rr = struct.pack(">HHHIH", 0xc00c, 1, 1, 5, 4) + socket.inet_aton(ip)
    return hdr + question + rr


def name_of(q):
    off, labels = 12, []
    while q[off] != 0:
        labels.append(q[off + 1:off + 1 + q[off]].decode("ascii", "replace"))
        off += 1 + q[off]
    return ".".join(labels)


def later(data, peer):
    time.sleep(0.3)
    srv.sendto(data, peer)


while True:
    q, peer = srv.recvfrom(4096)
    if len(q) < 17:
        continue
    qid = struct.unpack(">H", q[:2])[0]
    question = q[12:question_end(q)]
    name = name_of(q)
    log.write("query %d %d %s\n" % (peer[1], qid, name))
    true = answer(qid, question, good)
    labels = name.lower().split(".")
    if "drop" in labels:
        continue
    first = labels[0]
    if first == "port":
        alt.sendto(answer(qid, question, forged), peer)
    elif first == "case":
        srv.sendto(answer(qid, question.swapcase(), forged), peer)
    elif first == "id":
        srv.sendto(answer(qid ^ 0x5555, question, forged), peer)
    else:
        srv.sendto(true, peer)
        continue
    threading.Thread(target=later, args=(true, peer), daemon=True).start()
