#! /usr/bin/env atf-sh
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
# DNS over TCP through jb-netd's resolver (FEATURES N3, B2), with real
# packets from a strict container against the test hosts (nethosts.sh):
# every TCP port-53 connection is redirected to jb-netd, which answers an
# allowed name from the upstream after admitting its address, answers
# NXDOMAIN to every other name without forwarding it, and bounds what a
# client may hold.  The test image has no TCP-capable DNS client: dnsq.c,
# built static here, is pushed into the container.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24
BR_GW=10.213.0.1
NOWHERE=198.18.1.99	# no DNS server at all

FAKE=198.18.1.54	# fakedns.py, when a test starts it

# the fake upstream (fakedns.py) on $FAKE in the test hosts' namespace:
# A $NH_WILD for every name, forgeries and silence for some
fake_up() {
	nh_ns ip addr add "$FAKE/32" dev lo
	ip netns exec "$NH_NS" python3 \
	    "$(atf_config_get srcdir)/regress/integ/fakedns.py" "$FAKE" \
	    "$NH_WILD" "$NH_WWW2" "$(pwd)/fake.log" > fakedns.out 2>&1 &
	echo $! >> nethosts.pids
	i=0
	until ip netns exec "$NH_NS" ss -Hlun "src $FAKE:53" | grep -q .; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the fake upstream did not come up:" \
		    "$(tr '\n' ' ' < fakedns.out)"
		sleep 0.1
	done
}

# $1: egress_allow entries, one per line; the container is $c, strict,
# routed through the bridge, with /tmp/dnsq in it
setup() {
	JB_CONF_EXTRA=${RESOLVER_CONF:-$NH_RESOLVER}
	jb_start
	jb_tools
	jb_image
	jb_repo
	nh_up "$BR_NET"
	{
		echo "egress_allow:"
		echo "$1" | while read -r e; do
			[ -n "$e" ] && echo "  - \"$e\""
		done
	} >> repo/.jailbee/config.yaml
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	c=$(jb_prefix)-dns
	atf_check -e match:"network: strict" -e match:"ready: $c" \
	    jbo repo new dns
	jb_routed "$c"
	cat > bin/ctr_http <<'EOS'
#!/bin/sh
exec in_ctr "$1" sh -c "e=\$(mktemp); printf 'GET / HTTP/1.0\r\n\r\n' | nc -v -w 5 $2 $3 2>\$e; rc=\$?; grep -v ' succeeded!\$' \$e >&2; rm -f \$e; exit \$rc"
EOS
	chmod 0755 bin/ctr_http
}

cleanup() {
	jb_cleanup
	jb_containers_cleanup
	nh_down
}

# no sanitizer report, no crash of a child
log_clean() {
	if grep -E "AddressSanitizer|runtime error|jb-netd closed its channel|\
jb-netd \(pid [0-9]+\) (killed|exited)" jailbeed.log; then
		atf_fail "jailbeed.log reports a fault"
	fi
}

atf_test_case udp_short cleanup
udp_short_head() {
	atf_set descr "datagrams shorter than a DNS header, from a container" \
	    "to the resolver, do not reach it: libevent's DNS server reads" \
	    "through a null pointer on them; jb-netd stays up and answers (N3)"
	atf_set require.user root
	atf_set require.progs cc
	atf_set timeout 300
}
udp_short_body() {
	setup "www.test:8080"
	pid=$(jb_pid jb-netd) || atf_fail "no jb-netd in jbctl status"
	for n in 1 2 11 12; do
		in_ctr "$c" bash -c "head -c $n /dev/zero > /dev/udp/$NOWHERE/53" ||
		    atf_fail "cannot send $n bytes from $c"
		in_ctr "$c" bash -c "head -c $n /dev/zero > /dev/udp/$BR_GW/53" ||
		    atf_fail "cannot send $n bytes from $c"
	done
	sleep 1
	jb_alive "$pid" ||
	    atf_fail "jb-netd (pid $pid) is gone after the short datagrams"
	atf_check -o match:"^A $NH_WWW ttl" \
	    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE www.test
	[ "$(jb_pid jb-netd)" = "$pid" ] ||
	    atf_fail "jb-netd was restarted: pid $(jb_pid jb-netd), was $pid"
	log_clean
}
udp_short_cleanup() { cleanup; }

atf_test_case tcp_resolver cleanup
tcp_resolver_head() {
	atf_set descr "DNS over TCP from a strict container, to any address," \
	    "is answered by jb-netd: an allowed name from the upstream with" \
	    "its address admitted before the answer, others NXDOMAIN and" \
	    "never forwarded, pipelined queries in order, malformed ones" \
	    "FORMERR (N3, B2)"
	atf_set require.user root
	atf_set require.progs cc
	atf_set timeout 300
}
tcp_resolver_body() {
	setup "www.test:8080
*.wild.test:8080"
	# before any lookup a wildcard name's address is shut (exact names
	# are resolved into the pool at new and stay admitted: N4)
	atf_check -s not-exit:0 -e ignore ctr_http "$c" $NH_WILD 8080
	# asked of an address where no server listens: ours answers
	atf_check -o match:"^id 4096 NOERROR$" \
	    -o match:"^A $NH_WWW ttl [0-9]+$" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE www.test
	nh_asked www.test || atf_fail "www.test never reached the test DNS server"
	# admitted when the answer came: the connection passes at once
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$c" $NH_WWW 8080
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_WWW . tcp . 8080 timeout" cat set.txt
	# not allowed: NXDOMAIN, never forwarded, whichever server is asked
	atf_check -o match:"^id 4096 NXDOMAIN$" -o not-match:"^A " \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NH_ECHO other.test
	! nh_asked other.test || atf_fail "other.test was forwarded upstream"
	atf_check -o match:"^id 4096 NXDOMAIN$" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NH_DNS secret.data.exfil.example
	! nh_asked secret.data.exfil.example ||
	    atf_fail "secret.data.exfil.example was forwarded upstream"
	# the wildcard: a name under it resolves and opens its address
	atf_check -o match:"^A $NH_WILD ttl" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE a.wild.test
	atf_check -o match:"^hello 8080 from $NH_WILD" \
	    ctr_http "$c" $NH_WILD 8080
	# pipelined on one connection: every answer, in the order asked
	atf_check -o inline:"id 4096 NOERROR
A $NH_WWW ttl 2
id 4097 NXDOMAIN
id 4098 NOERROR
A $NH_WILD ttl 2
id 4099 NXDOMAIN
" ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE www.test wild.test b.c.wild.test \
	    other.test
	! nh_asked wild.test || atf_fail "wild.test was forwarded upstream"
	# an allowed name's AAAA: empty, the container's IPv6 goes nowhere
	atf_check -o inline:"id 4096 NOERROR\n" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t -T 28 $NOWHERE www.test
	# malformed: FORMERR, and the resolver goes on answering
	atf_check -o inline:"id 4096 FORMERR\n" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t -F $NOWHERE www.test
	atf_check -o match:"^A $NH_WWW ttl" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE www.test
	# and UDP gives the same answers
	atf_check -o match:"^A $NH_WWW ttl" \
	    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE www.test
	atf_check -o match:"^id 4096 NXDOMAIN$" \
	    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE other.test
	# destroyed: what the resolver admitted from its address goes with
	# it, so a container given that address next starts with nothing
	a=$(jb_netd_addr "$c")
	[ -n "$(jb_admitted_of "$a")" ] || atf_fail "nothing admitted from $a"
	atf_check -o ignore -e ignore jbo repo destroy --force dns
	jb_verdict_is "$a" ""
	jb_admitted_none "$a"
	log_clean
}
tcp_resolver_cleanup() { cleanup; }

atf_test_case tcp_bounds cleanup
tcp_bounds_head() {
	atf_set descr "jb-netd's TCP resolver closes a connection idle for" \
	    "10 s (5 s under the test switch), and at once one that" \
	    "announces an oversized message and one beyond 16 of one" \
	    "container at a time (N3, #12)"
	atf_set require.user root
	atf_set require.progs cc
	atf_set timeout 300
}
tcp_bounds_body() {
	setup "www.test:8080"
	# idle: nothing sent, closed by the server after its 5 s
	atf_check -o match:"^closed after [3-8] s$" \
	    in_ctr "$c" bash -c "exec 3<>/dev/tcp/$NOWHERE/53 || exit 1
SECONDS=0
cat <&3 > /dev/null
echo closed after \$SECONDS s"
	# a 65535-byte message is no query: closed without waiting for it
	atf_check -o match:"^closed after [01] s$" \
	    in_ctr "$c" bash -c "exec 3<>/dev/tcp/$NOWHERE/53 || exit 1
SECONDS=0
printf '\\377\\377abc' >&3
cat <&3 > /dev/null
echo closed after \$SECONDS s"
	# 16 clients of one container at a time: the 17th is closed at
	# once, not when idle
	atf_check -o match:"^17th closed after [01] s$" \
	    in_ctr "$c" bash -c "for i in \$(seq 10 25); do
	eval \"exec \$i<>/dev/tcp/$NOWHERE/53\" || exit 1
done
sleep 1
exec 3<>/dev/tcp/$NOWHERE/53 || exit 1
SECONDS=0
cat <&3 > /dev/null
echo 17th closed after \$SECONDS s"
	# the resolver still answers, once it has seen those 16 go
	sleep 1
	atf_check -o match:"^A $NH_WWW ttl" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE www.test
	log_clean
}
tcp_bounds_cleanup() { cleanup; }

atf_test_case private_answers cleanup
private_answers_head() {
	atf_set descr "An answer's addresses in ranges that are not public" \
	    "(link-local, RFC 1918...) are not admitted nor given to the" \
	    "client unless resolver.private_networks lists them; net log" \
	    "and the journal name the name and the address (#6)"
	atf_set require.user root
	atf_set require.progs cc
	atf_set timeout 300
}
private_answers_body() {
	setup "*.wild.test:8080"
	nh_private_up
	# every address of the answer is in a range not listed: NXDOMAIN
	# over TCP and UDP, though the upstream was asked
	atf_check -o inline:"id 4096 NXDOMAIN\n" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE meta.wild.test
	nh_asked meta.wild.test ||
	    atf_fail "meta.wild.test never reached the test DNS server"
	atf_check -o inline:"id 4096 NXDOMAIN\n" \
	    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE intra.wild.test
	# a public address beside a private one: only the public one
	atf_check -o match:"^A $NH_WILD ttl" -o not-match:"$NH_PRIV" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE mixed.wild.test
	# neither in the kernel's sets, and the private host is shut
	jb_admitted "$c" > set.txt
	atf_check -s exit:1 grep -F -e "$NH_META" -e "$NH_PRIV" set.txt
	atf_check -o match:"$NH_WILD . tcp . 8080" cat set.txt
	atf_check -s not-exit:0 -e ignore ctr_http "$c" $NH_PRIV 8080
	# the network itself is not the reason: the host answers through it
	atf_check -o match:"^hello 8080 from $NH_PRIV" \
	    ip netns exec "$NH_NS" bash -c "exec 3<>/dev/tcp/$NH_PRIV/8080 &&
printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3"
	# net log: which name answered which address
	atf_check -o match:"^priv +$NH_META meta\.wild\.test +1 " \
	    -o match:"^priv +$NH_PRIV meta\.wild\.test " \
	    -o match:"^priv +$NH_PRIV intra\.wild\.test " \
	    -o match:"^priv +$NH_PRIV mixed\.wild\.test " \
	    -o not-match:"^priv +$NH_WILD" jbo repo net log dns
	# and the journal, within a summary period (5 s in test builds)
	i=0
	until jb_audit_has '.action == "net.dns-private" and
	    .container == $c and .decision == "refuse" and
	    .reason == "answer in a range that is not public" and
	    .answers >= 1 and (.top | test(" (meta|intra|mixed)\\.wild\\.test$"))' \
	    --arg c "$c"; do
		i=$((i + 1))
		[ $i -lt 150 ] || atf_fail "no net.dns-private record:" \
		    "$(cat state/audit/audit.jsonl)"
		sleep 0.1
	done
	# listed in resolver.private_networks: admitted, after a restart
	jb_cleanup
	JB_CONF_EXTRA="resolver:
  upstream: $NH_DNS
  private_networks: [198.18.0.0/15, $NH_PRIV_NET]"
	jb_start
	jb_tools
	atf_check -o match:"^A $NH_PRIV ttl" \
	    ctr_netns "$c" "$(pwd)/dnsq" -t $NOWHERE intra.wild.test
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_PRIV . tcp . 8080" cat set.txt
	atf_check -o match:"^hello 8080 from $NH_PRIV" \
	    ctr_http "$c" $NH_PRIV 8080
	# 169.254.169.254 is still not listed: left out of the answer
	atf_check -o match:"^A $NH_PRIV ttl" -o not-match:"$NH_META" \
	    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE meta.wild.test
	jb_admitted "$c" > set.txt
	atf_check -s exit:1 grep -F "$NH_META" set.txt
	log_clean
}
private_answers_cleanup() { cleanup; }

atf_test_case narrow_revokes cleanup
narrow_revokes_head() {
	atf_set descr "net egress rm of a name takes the addresses DNS" \
	    "admitted for it out of the kernel in the same transaction, and" \
	    "its pool rows: new connections fail at once; names still" \
	    "allowed keep theirs (#7)"
	atf_set require.user root
	atf_set require.progs cc
	atf_set timeout 300
}
narrow_revokes_body() {
	setup "www.test:8080"
	atf_check -o ignore -e ignore \
	    jbo repo net egress add "*.wild.test:8080" dns
	atf_check -o ignore -e ignore jbo repo net egress add other.test:8080 dns
	# admitted through DNS: each connects
	for n in www.test a.wild.test other.test; do
		atf_check -o match:"^A " \
		    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE $n
	done
	atf_check -o match:"^hello 8080 from $NH_WILD" \
	    ctr_http "$c" $NH_WILD 8080
	atf_check -o match:"^hello 8080 from $NH_BARE" \
	    ctr_http "$c" $NH_BARE 8080
	# the pool holds the exact name's row
	i=0
	until grep -q "^$c other.test $NH_BARE " state/netd/pool; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "other.test never pooled"
		sleep 0.1
	done
	# the wildcard goes: its address is shut at once, not at its TTL
	atf_check -o ignore -e ignore \
	    jbo repo net egress rm "*.wild.test:8080" dns
	jb_admitted "$c" > set.txt
	atf_check -s exit:1 grep -F "$NH_WILD" set.txt
	atf_check -s not-exit:0 -e ignore ctr_http "$c" $NH_WILD 8080
	# the names still allowed keep theirs
	atf_check -o match:"$NH_WWW . tcp . 8080" -o match:"$NH_BARE . tcp . 8080" \
	    cat set.txt
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$c" $NH_WWW 8080
	atf_check -o match:"^hello 8080 from $NH_BARE" \
	    ctr_http "$c" $NH_BARE 8080
	# the exact name goes: its address and its pool row
	atf_check -o ignore -e ignore jbo repo net egress rm other.test:8080 dns
	jb_admitted "$c" > set.txt
	atf_check -s exit:1 grep -F "$NH_BARE" set.txt
	atf_check -s not-exit:0 -e ignore ctr_http "$c" $NH_BARE 8080
	atf_check -s exit:1 grep "^$c other.test " state/netd/pool
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$c" $NH_WWW 8080
	log_clean
}
narrow_revokes_cleanup() { cleanup; }

atf_test_case upstream_forged cleanup
upstream_forged_head() {
	atf_set descr "jb-netd asks its upstream from a new random source" \
	    "port with a random id and the name in random case each time," \
	    "and takes no reply from another port, with another id or with" \
	    "the question in another case (#13)"
	atf_set require.user root
	atf_set require.progs cc python3
	atf_set timeout 300
}
upstream_forged_body() {
	RESOLVER_CONF="resolver:
  upstream: $FAKE
  private_networks: [198.18.0.0/15]"
	setup "*.wild.test:8080"
	fake_up
	# eight questions: eight source ports, eight ids, the case mixed
	for n in 1 2 3 4 5 6 7 8; do
		atf_check -o match:"^A $NH_WILD ttl" \
		    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE q$n.wild.test
	done
	grep -i ' q[1-8]\.wild\.test$' fake.log > asked.log
	atf_check -o inline:"8\n" sh -c 'wc -l < asked.log'
	ports=$(awk '{ print $2 }' asked.log | sort -u | wc -l)
	[ "$ports" -ge 7 ] || atf_fail "$ports source port(s) for 8" \
	    "questions: $(tr '\n' ' ' < asked.log)"
	ids=$(awk '{ print $3 }' asked.log | sort -u | wc -l)
	[ "$ids" -ge 7 ] || atf_fail "$ids id(s) for 8 questions:" \
	    "$(tr '\n' ' ' < asked.log)"
	atf_check -o not-match:"^0$" sh -c "awk '{ print \$4 }' asked.log |
	    grep -c '[A-Z]'"
	atf_check -o not-match:"^0$" sh -c "awk '{ print \$4 }' asked.log |
	    grep -c '[a-z]'"
	# forged first, the true answer 0.3 s later: only the true one counts
	for n in port case id; do
		atf_check -o match:"^A $NH_WILD ttl" -o not-match:"$NH_WWW2" \
		    ctr_netns "$c" "$(pwd)/dnsq" $NOWHERE $n.wild.test
	done
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_WILD . tcp . 8080" cat set.txt
	atf_check -s exit:1 grep -F "$NH_WWW2" set.txt
	atf_check -s not-exit:0 -e ignore ctr_http "$c" $NH_WWW2 8080
	log_clean
}
upstream_forged_cleanup() { cleanup; }

atf_test_case flood_fair cleanup
flood_fair_head() {
	atf_set descr "One container flooding the resolver over UDP (names" \
	    "its upstream never answers) and TCP (64 connections held) does" \
	    "not keep another's questions from an answer within 100 ms (#12)"
	atf_set require.user root
	atf_set require.progs cc python3
	atf_set timeout 400
}
flood_fair_body() {
	RESOLVER_CONF="resolver:
  upstream: $FAKE
  private_networks: [198.18.0.0/15]"
	setup "*.wild.test:8080"
	fake_up
	cc -static -O2 -Wall -Wextra -Werror -o dnsflood \
	    "$(atf_config_get srcdir)/regress/bench/dnsflood.c" ||
	    atf_fail "cannot build dnsflood"
	c2=$(jb_prefix)-calm
	atf_check -e match:"ready: $c2" -o ignore jbo repo new calm
	jb_routed "$c2"
	# the flood: 64 TCP connections held, and UDP questions for names
	# the upstream never answers, 64 at a time, for the whole test
	in_ctr "$c" bash -c "for i in \$(seq 10 73); do
	eval \"exec \$i<>/dev/tcp/$NOWHERE/53\" || exit 1
done
sleep 40" > held.out 2>&1 &
	ctr_netns "$c" "$(pwd)/dnsflood" $NOWHERE 100000 drop.wild.test \
	    > flood.out 2>&1 &
	echo $! > flood.pid
	sleep 3
	grep -qi ' f[0-9]*\.drop\.wild\.test$' fake.log ||
	    atf_fail "the flood never reached the upstream"
	# the other container: new names, over UDP and over TCP
	for n in 1 2 3 4 5; do
		for t in "" -t; do
			ctr_netns "$c2" "$(pwd)/dnsq" -n 1 $t $NOWHERE \
			    u$n$t.wild.test > lat.out 2>&1 ||
			    atf_fail "no answer to u$n$t.wild.test:" \
			    "$(tr '\n' ' ' < lat.out)"
			us=$(awk '/^median_us/ { print $2 }' lat.out)
			[ -n "$us" ] && [ "$us" -lt 100000 ] ||
			    atf_fail "u$n$t.wild.test: $(tr '\n' ' ' < lat.out)" \
			    "(100000 us at most)"
		done
	done
	atf_check -o match:"^A $NH_WILD ttl" \
	    ctr_netns "$c2" "$(pwd)/dnsq" -t $NOWHERE last.wild.test
	atf_check -o match:"^A $NH_WILD ttl" \
	    ctr_netns "$c2" "$(pwd)/dnsq" $NOWHERE last2.wild.test
	kill "$(cat flood.pid)" 2>/dev/null
	log_clean
}
flood_fair_cleanup() {
	[ -f flood.pid ] && kill "$(cat flood.pid)" 2>/dev/null
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case flood_fair
	atf_add_test_case upstream_forged
	atf_add_test_case narrow_revokes
	atf_add_test_case private_answers
	atf_add_test_case udp_short
	atf_add_test_case tcp_resolver
	atf_add_test_case tcp_bounds
}
