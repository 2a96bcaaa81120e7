# Copyright (c) 2026 The JailBee authors
#
# Permission to use, copy, modify, and distribute this software for any
# purpose with or without fee is hereby granted, provided that the above
# copyright notice and this permission notice appear in all copies.
#
# THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
#
# incus_destroy.py NAME: the two requests jbctl destroy --force sends to
# Incus (stop, forced; then delete), each operation waited for, on one
# connection to Incus's unix socket.  Prints the nanoseconds from the
# first request to the second operation's end, timed here, so that no
# process's start-up is in the figure: what Incus itself takes.  Exit 1,
# and why on stderr, when either fails.

import http.client
import json
import socket
import sys
import time

SOCKET = "/var/lib/incus/unix.socket"


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("incus")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def ask(conn, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data,
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    answer = json.loads(r.read() or b"{}")
    if answer.get("type") == "error":
        raise RuntimeError("%s %s: %s" % (method, path, answer.get("error")))
    return answer


def operation(conn, method, path, body=None):
    op = ask(conn, method, path, body).get("operation")
    if not op:
        raise RuntimeError("%s %s: no operation" % (method, path))
    md = ask(conn, "GET", op + "/wait?timeout=60").get("metadata") or {}
    if md.get("status") != "Success":
        raise RuntimeError("%s %s: %s" % (method, path, md.get("err")))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: incus_destroy.py NAME\n")
        return 2
    name = sys.argv[1]
    conn = UnixConnection(SOCKET)
    try:
        conn.connect()
        t0 = time.monotonic_ns()
        operation(conn, "PUT", "/1.0/instances/%s/state" % name,
                  {"action": "stop", "force": True})
        operation(conn, "DELETE", "/1.0/instances/%s" % name)
        t1 = time.monotonic_ns()
    except (OSError, RuntimeError, ValueError) as e:
        sys.stderr.write("incus_destroy.py: %s: %s\n" % (name, e))
        return 1
    print(t1 - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
