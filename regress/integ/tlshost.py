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
# tlshost.py CERT KEY: the web servers of the test "internet" for the
# egress gateway's tests (nethosts.sh nh_tls_up runs it inside the
# namespace).  On port 443 of every address, TLS with one certificate
# for several names (a test CA signed it), answering each HTTP request
# with "tls hello SNI from ADDR"; on port 80, plain HTTP/1.1 with
# keep-alive (pipelined requests answered in turn) answering "http hello
# HOST from ADDR".  Every server name and Host it is given is logged
# ("sni NAME", "host NAME"), so a test sees what reached the server, and
# so is every Authorization header ("auth HOST VALUE"), for the secrets;
# a TLS request under /git/ without one is answered 401 with a Basic
# challenge, as a git server over HTTPS asks for credentials.

import socket
import socketserver
import ssl
import sys
import threading

lock = threading.Lock()


def log(line):
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def heads(sock):
    """each request head on sock, with its Host, until it closes"""
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            buf += data
        head, buf = buf.split(b"\r\n\r\n", 1)
        host = ""
        auth = []
        line0 = head.split(b"\r\n")[0].split(b" ")
        path = line0[1].decode(errors="replace") if len(line0) > 1 else ""
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"host":
                host = v.strip().decode(errors="replace")
            if k.strip().lower() == b"authorization":
                auth.append(v.strip().decode(errors="replace"))
        for a in auth:
            log("auth %s %s" % (host, a))
        yield host, path, auth


def answer(sock, body):
    sock.sendall(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                  "Content-Length: %d\r\n\r\n%s" % (len(body), body))
                 .encode())


class Tls(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(10)
        sni = {}

        def pick(s, name, ctx):
            sni["name"] = name
            log("sni %s" % name)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[1], sys.argv[2])
        ctx.sni_callback = pick
        try:
            s = ctx.wrap_socket(self.request, server_side=True)
        except (OSError, ssl.SSLError) as e:
            log("handshake failed: %s" % e)
            return
        addr = s.getsockname()[0]
        for host, path, auth in heads(s):
            # under /git/, as a git server asks: credentials first
            if path.startswith("/git/") and not auth:
                s.sendall(b"HTTP/1.1 401 Unauthorized\r\n"
                          b"WWW-Authenticate: Basic realm=\"test\"\r\n"
                          b"Content-Length: 0\r\n\r\n")
                continue
            answer(s, "tls hello %s from %s\n" % (sni.get("name"), addr))


class Http(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(10)
        addr = self.request.getsockname()[0]
        for host, _, _ in heads(self.request):
            log("host %s" % host)
            answer(self.request, "http hello %s from %s\n" % (host, addr))


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 1024


def main():
    servers = [Server(("0.0.0.0", 443), Tls), Server(("0.0.0.0", 80), Http)]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    log("ready")
    threading.Event().wait()


main()
