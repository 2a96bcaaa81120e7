# Copyright (c) 2026 The JailBee authors
#
# Permission to use, copy, modify, and distribute this software for any
# purpose with or without fee is hereby granted, provided that the above
# copyright notice and this permission notice appear in all copies.
#
# THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
#
# The names of the three-member test cluster (regress/cluster/up), shared
# by up, down and the test.  Member N (1-3) is a network namespace
# jbcl-mN whose eth0 is 10.250.0.N on a bridge in namespace jbcl-net,
# and a mount namespace held by one process (its pid in $JBCL_DIR/mN/ns)
# with a tmpfs of its own on /run: its incusd (INCUS_DIR=/var/lib/incus-mN)
# and its suite run in both, so each member's /run/jailbee is its own.
# The test hosts live in jbcl-inet (10.250.0.200), the machine's own
# network namespace is not touched.

JBCL_DIR=${JBCL_DIR:-/var/tmp/jbcl}
JBCL_MEMBERS="1 2 3"
JBCL_NET=jbcl-net
JBCL_INET=jbcl-inet
JBCL_INET_ADDR=10.250.0.200
JBCL_SUBNET=10.213.0.0/24
JBCL_BR_ADDR=10.213.0.1/24

# the member's mount and network namespaces' holder
jbcl_holder() { cat "$JBCL_DIR/m$1/ns" 2>/dev/null; }

# jbcl_in N CMD...: CMD in member N's namespaces, with its Incus
jbcl_in() {
	_n=$1
	shift
	_h=$(jbcl_holder "$_n") || return 99
	nsenter -t "$_h" -m -n -- env INCUS_DIR="/var/lib/incus-m$_n" \
	    https_proxy=http://127.0.0.1:9 NO_PROXY=10.250.0.0/24 \
	    no_proxy=10.250.0.0/24 "$@"
}

# jbcl_exec N CMD...: the same, in place of the calling (sub)shell
jbcl_exec() {
	_n=$1
	shift
	_h=$(jbcl_holder "$_n") || exit 99
	exec nsenter -t "$_h" -m -n -- env INCUS_DIR="/var/lib/incus-m$_n" \
	    https_proxy=http://127.0.0.1:9 NO_PROXY=10.250.0.0/24 \
	    no_proxy=10.250.0.0/24 "$@"
}

# jbcl_incus N ARGS: the incus command against member N's incusd
jbcl_incus() {
	_n=$1
	shift
	jbcl_in "$_n" incus "$@"
}

# jbcl_ctl N ARGS: jbctl against member N's suite
jbcl_ctl() {
	_n=$1
	shift
	jbcl_in "$_n" "$JBCL_DIR/bin/jbctl" -s /run/jailbee/jailbeed.sock "$@"
}

# jbcl_http N C HOST PORT: GET / from container C (busybox nc, as
# net_test does), through member N's incusd; nc's error on stderr
jbcl_http() {
	jbcl_incus "$1" exec "$2" -- sh -c "e=\$(mktemp); printf 'GET / HTTP/1.0\r\n\r\n' | nc -v -w 5 $3 $4 2>\$e; rc=\$?; grep -v ' succeeded!\$' \$e >&2; rm -f \$e; exit \$rc"
}

# jbo1 DIR ARGS: jbctl as the suite's owner in checkout DIR, typed on m1
JBCL_OWNER=${JB_OWNER:-jbtest}
jbo1() {
	_d=$1
	shift
	jbcl_in 1 sh -c 'cd "$1" || exit 99; shift; exec "$@"' sh "$_d" \
	    setpriv --reuid="$JBCL_OWNER" --regid="$JBCL_OWNER" --init-groups \
	    env HOME=/nonexistent "$JBCL_DIR/bin/jbctl" \
	    -s /run/jailbee/jailbeed.sock "$@"
}

# a process is alive (not gone, not a zombie)
jbcl_alive() {
	[ -r "/proc/$1/stat" ] || return 1
	[ "$(sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
