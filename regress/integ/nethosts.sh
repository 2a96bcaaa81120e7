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
# nethosts.sh: the test "internet" for net_test.sh, sourced after lib.sh.
# A network namespace behind a veth pair plays every remote host: the
# host routes 198.18.1.0/24 and 198.19.2.0/24 into it, and nothing in
# it routes anywhere else, so no packet leaves the machine.  The
# addresses are all in 198.18.0.0/15 (RFC 2544's benchmarking range),
# which no public host has; the documentation ranges (192.0.2.0/24 and
# the like) are not used, because machines like CI's use them for their
# own network and mirrors.  nh_up fails, naming the route, when the
# machine already routes any of them somewhere else.  Inside:
# nethosts.py (HTTP on 8080 and 8081, TCP echo on 7) listening on every
# address, and dnsmasq answering the test names with short TTLs and
# logging every query it is asked.
#
#	198.18.0.1	the host's end of the veth (masqueraded sources)
#	198.18.0.2	the namespace's end
#	198.18.1.10	www.test, cached.test (a TTL of 300 s, which the
#			resolver caches; the others' 2 s it does not)
#	198.18.1.11	not named: an address nothing admits
#	198.18.1.12	a.wild.test, b.c.wild.test (under *.wild.test)
#	198.18.1.13	wild.test (not under *.wild.test), other.test
#	198.18.1.14	rot.test, then 198.18.1.15 (rotation)
#	198.18.1.53	the test DNS server
#	198.19.2.10	echo, under a CIDR entry

NH_NS=jbnet-inet
NH_VETH=jbnh0
NH_HOST=198.18.0.1
NH_PEER=198.18.0.2
NH_WWW=198.18.1.10
NH_WWW2=198.18.1.11
NH_WILD=198.18.1.12
NH_BARE=198.18.1.13
NH_ROT1=198.18.1.14
NH_ROT2=198.18.1.15
NH_DNS=198.18.1.53
NH_ECHO=198.19.2.10
# not public: on the namespace's loopback only when nh_private_up
NH_PRIV=10.254.77.10
NH_PRIV_NET=10.254.77.0/24
NH_META=169.254.169.254

# jailbeed.yaml's resolver for the tests: the test DNS server, and the
# test hosts' benchmarking range, which the resolver admits from no
# answer unless it is listed
NH_RESOLVER="resolver:
  upstream: $NH_DNS
  private_networks: [198.18.0.0/15]"

nh_ns() { ip netns exec "$NH_NS" "$@"; }

# take down whatever an earlier run left; only our own names
nh_down() {
	if [ -f nethosts.pids ]; then
		for p in $(cat nethosts.pids); do
			kill "$p" 2>/dev/null
		done
		rm -f nethosts.pids
	fi
	ip route del 198.18.1.0/24 via "$NH_PEER" 2>/dev/null
	ip route del 198.19.2.0/24 via "$NH_PEER" 2>/dev/null
	ip route del "$NH_PRIV_NET" via "$NH_PEER" 2>/dev/null
	ip link del "$NH_VETH" 2>/dev/null
	ip netns del "$NH_NS" 2>/dev/null
	return 0
}

# the machine must not already use the test hosts' addresses: a route
# of its own to any of them (other than the default) would be taken
# over for the test's duration, and the test would not test what it says
nh_free() {
	local a r
	for a in "$NH_HOST" "$NH_WWW" "$NH_ECHO"; do
		r=$(ip -4 route show match "$a" | grep -v '^default ')
		[ -z "$r" ] || atf_fail "the test hosts' address $a is already" \
		    "routed on this machine ($r): nethosts.sh needs" \
		    "198.18.0.0/15 unused"
	done
}

# $1: the container bridge's subnet, routed back through the host for
# the inbound test (the host, not the namespace, decides what passes)
nh_up() {
	nh_down
	nh_free
	ip netns add "$NH_NS" || atf_fail "cannot create netns $NH_NS"
	ip link add "$NH_VETH" type veth peer name eth0 netns "$NH_NS" ||
	    atf_fail "cannot create veth $NH_VETH"
	ip addr add "$NH_HOST/24" dev "$NH_VETH"
	ip link set "$NH_VETH" up
	nh_ns ip link set lo up
	nh_ns ip link set eth0 up
	nh_ns ip addr add "$NH_PEER/24" dev eth0
	for a in "$NH_WWW" "$NH_WWW2" "$NH_WILD" "$NH_BARE" "$NH_ROT1" \
	    "$NH_ROT2" "$NH_DNS" "$NH_ECHO"; do
		nh_ns ip addr add "$a/32" dev lo
	done
	nh_ns ip route add "$1" via "$NH_HOST"
	ip route add 198.18.1.0/24 via "$NH_PEER" dev "$NH_VETH"
	ip route add 198.19.2.0/24 via "$NH_PEER" dev "$NH_VETH"
	# ip netns exec runs the program in its own place: $! is its pid
	ip netns exec "$NH_NS" python3 \
	    "$(atf_config_get srcdir)/regress/integ/nethosts.py" "$NH_ECHO" \
	    > nethosts.log 2>&1 &
	echo $! >> nethosts.pids
	cat > dnsmasq.conf <<EOD
no-resolv
no-hosts
no-daemon
bind-interfaces
listen-address=$NH_DNS
port=53
log-queries
local-ttl=2
addn-hosts=$(pwd)/rot.hosts
addn-hosts=$(pwd)/priv.hosts
host-record=www.test,$NH_WWW
host-record=other.test,$NH_BARE
host-record=a.wild.test,$NH_WILD
host-record=b.c.wild.test,$NH_WILD
host-record=wild.test,$NH_BARE
host-record=echo.test,$NH_ECHO
host-record=cached.test,$NH_WWW,300
EOD
	# a test's own names for the web server's address ($NH_WWW_NAMES)
	for _n in ${NH_WWW_NAMES-}; do
		echo "host-record=$_n,$NH_WWW" >> dnsmasq.conf
	done
	echo "$NH_ROT1 rot.test" > rot.hosts
	# names under *.wild.test that answer addresses which are not public
	cat > priv.hosts <<EOH
$NH_META meta.wild.test
$NH_PRIV meta.wild.test
$NH_PRIV intra.wild.test
$NH_WILD mixed.wild.test
$NH_PRIV mixed.wild.test
EOH
	ip netns exec "$NH_NS" dnsmasq -C dnsmasq.conf --log-facility="$(pwd)/dns.log" \
	    --pid-file= --user=root > dnsmasq.out 2>&1 &
	echo $! > dnsmasq.pid
	cat dnsmasq.pid >> nethosts.pids
	i=0
	while [ $i -lt 50 ]; do
		if grep -q ready nethosts.log 2>/dev/null &&
		    nh_ns bash -c "exec 3<>/dev/tcp/$NH_WWW/8080" \
		    2>/dev/null; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	cat nethosts.log dnsmasq.out >&2
	atf_fail "the test hosts did not come up"
}

# a host on a private address, $NH_PRIV, routed into the namespace (the
# machine must not route $NH_PRIV_NET itself); nethosts.py listens there
# too.  169.254.169.254 is never routed: the host's own cloud metadata
# service may live there.
nh_private_up() {
	r=$(ip -4 route show match "$NH_PRIV" | grep -v '^default ')
	[ -z "$r" ] || atf_fail "$NH_PRIV is already routed on this machine" \
	    "($r): the private test host needs $NH_PRIV_NET unused"
	nh_ns ip addr add "$NH_PRIV/32" dev lo
	ip route add "$NH_PRIV_NET" via "$NH_PEER" dev "$NH_VETH" ||
	    atf_fail "cannot route $NH_PRIV_NET into $NH_NS"
}

# rot.test moves to its second address (dnsmasq rereads addn-hosts)
nh_rotate() {
	echo "$NH_ROT2 rot.test" > rot.hosts
	kill -HUP "$(cat dnsmasq.pid)"
}

# was name $1 ever asked of the test DNS server?
nh_asked() { grep -qi "query\[[A-Z]*\] $1 from" dns.log; }

# the test CA alone (a test that must name it before jailbeed starts
# makes it first; nh_tls_up then keeps it)
nh_tls_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
	    -days 2 -subj "/CN=jailbee test CA" > /dev/null 2>&1 ||
	    atf_fail "cannot make the test CA"
}

# the egress gateway's web servers (tlshost.py): TLS on 443 and HTTP on
# 80 on every address, one certificate for www.test, other.test and
# *.wild.test (and the names of $NH_WWW_NAMES, which the test DNS
# server answers with $NH_WWW) signed by a test CA made now (ca.pem),
# which only the test's own clients are given; the server logs to
# tlshost.log
nh_tls_up() {
	[ -f ca.key ] && [ -f ca.pem ] || nh_tls_ca
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr \
	    -subj "/CN=www.test" > /dev/null 2>&1 ||
	    atf_fail "cannot make the test server's key"
	printf 'subjectAltName=DNS:www.test,DNS:other.test,DNS:*.wild.test%s\n' \
	    "$(for _n in ${NH_WWW_NAMES-}; do printf ',DNS:%s' "$_n"; done)" \
	    > srv.ext
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
	    -CAcreateserial -out srv.pem -days 2 -extfile srv.ext \
	    > /dev/null 2>&1 || atf_fail "cannot sign the test server's key"
	ip netns exec "$NH_NS" python3 \
	    "$(atf_config_get srcdir)/regress/integ/tlshost.py" srv.pem srv.key \
	    > tlshost.log 2>&1 &
	echo $! >> nethosts.pids
	i=0
	until grep -q ready tlshost.log 2>/dev/null &&
	    nh_ns bash -c "exec 3<>/dev/tcp/$NH_WWW/443" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the TLS test host did not come up:" \
		    "$(tr '\n' ' ' < tlshost.log)"
		sleep 0.1
	done
}
