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
# nethosts.py: the services of the test "internet" (regress/integ/
# nethosts.sh runs it inside its network namespace).  An HTTP server on
# two ports answering "hello PORT from ADDR" (ADDR the address it was
# reached at, so a test sees which of a rotating name's addresses it got),
# a TCP echo on port 7, and a UDP echo on ports 9998 and 9999 that
# answers "udp PORT: DATA" and logs "udp PORT got DATA" (so a test sees a
# datagram that never arrived).  Every TCP socket listens on all
# addresses; the UDP ones on the address given as the first argument
# (the echo host's), so that an answer leaves from the address asked.

import socket
import socketserver
import sys
import threading


class Hello(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(5)
        try:
            self.request.recv(4096)
        except OSError:
            return
        addr, port = self.request.getsockname()[:2]
        body = "hello %d from %s\n" % (port, addr)
        self.request.sendall(("HTTP/1.0 200 OK\r\nContent-Type: text/plain"
                              "\r\nContent-Length: %d\r\n\r\n%s" %
                              (len(body), body)).encode())


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(10)
        while True:
            try:
                data = self.request.recv(4096)
            except OSError:
                return
            if not data:
                return
            self.request.sendall(data)


class UdpEcho(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        port = sock.getsockname()[1]
        text = data.decode(errors="replace").strip()
        sys.stdout.write("udp %d got %s\n" % (port, text))
        sys.stdout.flush()
        sock.sendto(("udp %d: %s\n" % (port, text)).encode(),
                    self.client_address)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    # a burst of connections (the benchmarks make hundreds in a row)
    # waits in the queue: with socketserver's 5, the kernel drops the
    # rest's SYN and each waits a second for its retransmission
    request_queue_size = 1024


def main():
    udp = sys.argv[1] if len(sys.argv) > 1 else "0.0.0.0"
    servers = [Server(("0.0.0.0", 8080), Hello),
               Server(("0.0.0.0", 8081), Hello),
               Server(("0.0.0.0", 7), Echo),
               socketserver.ThreadingUDPServer((udp, 9998), UdpEcho),
               socketserver.ThreadingUDPServer((udp, 9999), UdpEcho)]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    threading.Event().wait()


if __name__ == "__main__":
    main()
