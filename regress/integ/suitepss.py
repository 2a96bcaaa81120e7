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
# suitepss.py PID...: each process's proportional set size in kB as if
# no other JailBee suite ran on the machine, one "PID KB" line each.
#
# A page's share is one over the number of mappings of it (the kernel's
# /proc/kpagecount), as in Pss, less the mappings of it by processes
# named jailbeed or jb-* that are neither among the PIDs nor their
# descendants (jb-sshd's spawner is one): another suite running beside
# the one measured (a test's cluster, a second helper) shares its
# libraries' pages and would lower every figure.  Pages other
# programs share (libc with the shell) are split as Pss splits them.
# Reads /proc/PID/pagemap and /proc/kpagecount: root only.

import os
import re
import struct
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
SUITE = re.compile(r"^(jailbeed|jb-.*)$")


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def ppid(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def ours(pid, pids):
    seen = 0
    while pid > 1 and seen < 64:
        if pid in pids:
            return True
        pid = ppid(pid)
        seen += 1
    return False


def frames(pid):
    """the page frame of each resident page pid maps"""
    out = []
    try:
        maps = open("/proc/%d/maps" % pid).read().splitlines()
        pm = open("/proc/%d/pagemap" % pid, "rb")
    except OSError:
        return out
    with pm:
        for line in maps:
            f = line.split()
            if len(f) > 5 and f[5] == "[vsyscall]":
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            pm.seek(lo // PAGE * 8)
            data = pm.read((hi - lo) // PAGE * 8)
            for (e,) in struct.iter_unpack("<Q", data):
                if e >> 63 & 1:
                    out.append(e & ((1 << 55) - 1))
    return out


def main():
    pids = [int(a) for a in sys.argv[1:]]
    others = {}
    for d in os.listdir("/proc"):
        if not d.isdigit() or not SUITE.match(comm(int(d))) or \
                ours(int(d), pids):
            continue
        for pfn in frames(int(d)):
            others[pfn] = others.get(pfn, 0) + 1
    with open("/proc/kpagecount", "rb") as kpc:
        for pid in pids:
            pss = 0.0
            for pfn in frames(pid):
                kpc.seek(pfn * 8)
                (n,) = struct.unpack("<Q", kpc.read(8))
                pss += 1.0 / max(1, n - others.get(pfn, 0))
            print(pid, int(pss * PAGE / 1024 + 0.5))


main()
