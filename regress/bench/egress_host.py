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
# egress_host.py PORT MIB: the egress benchmark's web server, in the test
# hosts' network namespace (regress/bench/egress).  HTTP/1.1 with
# keep-alive on every address: GET /big answers MIB MiB of zeros, sent
# by the kernel (sendfile from a file in /dev/shm); any other path a
# two-byte body.  One thread per connection, so that a thousand held
# connections cost nothing but their threads.

import os
import socket
import socketserver
import sys
import tempfile

PORT = int(sys.argv[1])
MIB = int(sys.argv[2])
CHUNK = 16 << 20

zeros = tempfile.TemporaryFile(dir="/dev/shm")
zeros.truncate(CHUNK)


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                b = s.recv(65536)
                if not b:
                    return
                buf += b
            head, buf = buf.split(b"\r\n\r\n", 1)
            line = head.split(b"\r\n", 1)[0].split(b" ")
            path = line[1] if len(line) > 1 else b"/"
            close = b"connection: close" in head.lower()
            if path.endswith(b"/big"):
                n = MIB << 20
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n"
                          % n)
                while n > 0:
                    k = os.sendfile(s.fileno(), zeros.fileno(), 0,
                                    min(n, CHUNK))
                    if k <= 0:
                        return
                    n -= k
            else:
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            if close:
                return


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 2048


srv = Server(("0.0.0.0", PORT), Handler)
print("ready", flush=True)
srv.serve_forever()
