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
# The egress gateway (jb-egress) with real packets and real TLS: a strict
# container's connections to ports 443 and 80 go through it, and it
# admits one only when the TLS server name (or every HTTP Host) is on the
# allowlist and the destination is an address the resolver gave the
# container for that name.  The test hosts (nethosts.sh, nh_tls_up) serve
# TLS for several names on one address with a certificate of a test CA
# that only the test's own curl is given (--cacert, a file the test
# writes through jbctl exec).

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24

# $1: egress_allow entries, one per line; the container is $c, strict;
# $2: more of jailbeed.yaml
setup() {
	JB_CONF_EXTRA="$NH_RESOLVER${2:+
$2}"
	jb_start
	jb_tools
	jb_image
	jb_repo
	nh_up "$BR_NET"
	nh_tls_up
	{
		echo "egress_allow:"
		echo "$1" | while read -r e; do
			[ -n "$e" ] && echo "  - \"$e\""
		done
	} >> repo/.jailbee/config.yaml
	c=$(jb_prefix)-gw
	atf_check -e match:"network: strict" -e match:"ready: $c" \
	    jbo repo new gw
	jb_routed "$c"
	# the test CA, for curl in the container only
	in_ctr "$c" sh -c 'cat > /tmp/ca.pem' < ca.pem ||
	    atf_fail "cannot give the container the test CA"
	gw_tools
}

# commands atf_check can run, in container $c:
#   ctr_curl ARGS...: curl with the test CA, 5 s at most
#   raw FILE ADDR PORT [SPLIT]: the bytes of FILE sent (SPLIT bytes at
#   a time, a pause between), the first 7 bytes answered, in hex
gw_tools() {
	GW_CTR=$c
	export GW_CTR
	cat > bin/ctr_curl <<'EOS'
#!/bin/sh
exec in_ctr "$GW_CTR" curl -sS --max-time 5 --cacert /tmp/ca.pem "$@"
EOS
	cat > bin/raw <<'EOS'
#!/bin/sh
in_ctr "$GW_CTR" sh -c 'cat > /tmp/raw.bin' < "$1" || exit 99
exec in_ctr "$GW_CTR" bash -c '
f=/tmp/raw.bin n=$(stat -c %s /tmp/raw.bin) s=$3 o=0
{
	if [ "$s" -gt 0 ]; then
		while [ $o -lt $n ]; do
			tail -c +$((o + 1)) $f | head -c $s
			sleep 0.05
			o=$((o + s))
		done
	else
		cat $f
	fi
	sleep 2
} | nc -w 3 "$1" "$2" | head -c 7 | od -An -tx1 | tr -d " \n"' \
    raw "$2" "$3" "${4:-0}"
EOS
	chmod 0755 bin/ctr_curl bin/raw
}

cleanup() {
	jb_cleanup
	jb_containers_cleanup
	nh_down
}

atf_test_case tls_names cleanup
tls_names_head() {
	atf_set descr "TLS on 443 is admitted by its server name and the" \
	    "address the resolver gave for it: an allowed name passes, another" \
	    "name on the same address, the allowed name to another address, no" \
	    "server name and Encrypted Client Hello are refused with an" \
	    "access_denied alert; a ClientHello in many segments or over" \
	    "16 KiB is read whole"
	atf_set require.user root
	atf_set timeout 300
}
tls_names_body() {
	setup "www.test
*.wild.test:443"
	# net status says which path enforces each entry
	atf_check -o match:"^  allow www\.test \(config\): gateway on 443,80 by name and address; kernel elsewhere by the addresses the resolver gave\$" \
	    -o match:"^  allow \*\.wild\.test:443 \(config\): gateway, by name and address\$" \
	    jbo repo net status gw
	mkhello="$(atf_config_get srcdir)/regress/integ/mkhello.py"
	# an allowed name: the server sees it and answers
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    ctr_curl https://www.test/
	atf_check -o inline:"tls hello a.wild.test from $NH_WILD\n" \
	    ctr_curl https://a.wild.test/
	# another name the server has, on the same address: refused
	atf_check -s not-exit:0 -e match:"alert access denied" \
	    ctr_curl --resolve "other.test:443:$NH_WWW" https://other.test/
	# the allowed name sent to an address the resolver did not give
	atf_check -s not-exit:0 -e match:"alert access denied" \
	    ctr_curl --resolve "www.test:443:$NH_WWW2" https://www.test/
	# no server name (an address literal)
	atf_check -s not-exit:0 -e match:"alert access denied" \
	    ctr_curl "https://$NH_WWW/"
	atf_check -s exit:1 grep -q "sni other.test" tlshost.log
	atf_check -s exit:1 grep -q "sni None" tlshost.log
	grep -q "refused $c to $NH_WWW:443 for other.test: no egress_allow" \
	    jailbeed.log || atf_fail "no reason for other.test in the log"
	grep -q "refused $c to $NH_WWW2:443 for www.test: the resolver did" \
	    jailbeed.log || atf_fail "no reason for $NH_WWW2 in the log"
	grep -q "refused $c to $NH_WWW:443: ClientHello without a server" \
	    jailbeed.log || atf_fail "no reason for no SNI in the log"

	# raw ClientHellos: an admitted one gets the server's ServerHello
	# (16 03 03), a refused one the alert (15 03 03 00 02 02 31)
	in_ctr "$c" getent hosts www.test > /dev/null
	python3 "$mkhello" -n www.test > plain.bin
	atf_check -o inline:"16030300" -x "raw plain.bin $NH_WWW 443 | head -c 8"
	python3 "$mkhello" -n www.test -e > ech.bin
	atf_check -o inline:"15030300020231" raw ech.bin $NH_WWW 443
	grep -q "refused $c to $NH_WWW:443: ClientHello with Encrypted" \
	    jailbeed.log || atf_fail "no reason for ECH in the log"
	# in many segments, and over 16 KiB in two records
	atf_check -o inline:"16030300" -x \
	    "raw plain.bin $NH_WWW 443 9 | head -c 8"
	python3 "$mkhello" -n www.test -p 20000 > big.bin
	atf_check -o inline:"16030300" -x "raw big.bin $NH_WWW 443 | head -c 8"
	python3 "$mkhello" -n other.test -p 20000 > bigother.bin
	atf_check -o inline:"15030300020231" raw bigother.bin $NH_WWW 443
}
tls_names_cleanup() { cleanup; }

atf_test_case admit_before_answer cleanup
admit_before_answer_head() {
	atf_set descr "the resolver answers a name only once the gateway" \
	    "holds its admission: with every admission held 1 s on its way" \
	    "to the gateway, a connection made at once on the answer passes"
	atf_set require.user root
	atf_set timeout 300
}
admit_before_answer_body() {
	JB_TEST_ADMIT_DELAY_MS=1000
	export JB_TEST_ADMIT_DELAY_MS
	setup "*.wild.test:443"
	atf_check -o inline:"tls hello a.wild.test from $NH_WILD\n" \
	    ctr_curl https://a.wild.test/
	grep -q "test switch: admissions held 1000 ms" jailbeed.log ||
	    atf_fail "the admissions were not held on their way"
	atf_check -s exit:1 grep -q "did not confirm the admission" \
	    jailbeed.log
}
admit_before_answer_cleanup() { cleanup; }

atf_test_case admit_held_no_wait cleanup
admit_held_no_wait_head() {
	atf_set descr "a name the gateway already holds is answered without" \
	    "waiting for it again: with admissions held 3 s on their way, the" \
	    "first answer waits out its 2 s and says so, the second does not," \
	    "and its admission is not sent to the gateway again"
	atf_set require.user root
	atf_set timeout 300
}
admit_held_no_wait_body() {
	JB_TEST_ADMIT_DELAY_MS=3000
	export JB_TEST_ADMIT_DELAY_MS
	setup "*.wild.test:443"
	atf_check -o match:"^$NH_WILD " in_ctr "$c" getent hosts a.wild.test
	# the held admission reaches the gateway, which confirms it
	sleep 2
	atf_check -o match:"^$NH_WILD " in_ctr "$c" getent hosts a.wild.test
	atf_check -o inline:"1\n" grep -c "a.wild.test: the egress gateway did not confirm" \
	    jailbeed.log
	# nor was it sent again: the gateway holds it for long enough
	atf_check -o inline:"1\n" grep -c "ADMIT [0-9]* of a.wild.test for $c held" \
	    jailbeed.log
}
admit_held_no_wait_cleanup() { cleanup; }

atf_test_case http_hosts cleanup
http_hosts_head() {
	atf_set descr "HTTP on 80: every request head's Host is checked," \
	    "pipelined ones too; a refusal is a 403 naming the host, the" \
	    "container and the jbctl line that would admit it; what is neither" \
	    "TLS nor HTTP is refused, and a client that never finishes its" \
	    "first head is dropped in bounded time"
	atf_set require.user root
	atf_set timeout 300
}
http_hosts_body() {
	setup "www.test"
	atf_check -o inline:"http hello www.test from $NH_WWW\n" \
	    ctr_curl http://www.test/
	# another name on the same address: 403 with what to do
	atf_check -o match:"^jailbee: other.test:80 is not on the egress allowlist of container $c" \
	    -o match:"To allow it: jbctl net egress add other.test:80 $c" \
	    ctr_curl -H "Host: other.test" "http://$NH_WWW/"
	atf_check -o inline:"403\n" ctr_curl -o /dev/null -w "%{http_code}\n" \
	    -H "Host: other.test" "http://$NH_WWW/"
	# pipelined: the allowed first request is answered, the second,
	# for another host, is refused and never reaches the server
	printf 'GET / HTTP/1.1\r\nHost: www.test\r\n\r\n' > one.txt
	printf 'GET /2 HTTP/1.1\r\nHost: other.test\r\n\r\n' > two.txt
	in_ctr "$c" sh -c 'cat > /tmp/one.txt' < one.txt
	in_ctr "$c" sh -c 'cat > /tmp/two.txt' < two.txt
	atf_check -o match:"http hello www.test" -o match:"403 Forbidden" \
	    -o not-match:"http hello other.test" in_ctr "$c" sh -c "{ cat /tmp/one.txt; sleep 0.5; cat /tmp/two.txt;
	    sleep 2; } | nc -w 3 $NH_WWW 80"
	# both in one segment: refused before anything is sent on
	atf_check -o match:"403 Forbidden" -o match:"other.test:80" \
	    -o not-match:"http hello" \
	    in_ctr "$c" sh -c "{ cat /tmp/one.txt /tmp/two.txt; sleep 2; } |
	    nc -w 3 $NH_WWW 80"
	atf_check -s exit:1 grep -q "host other.test" tlshost.log
	# neither TLS nor HTTP
	atf_check -o empty in_ctr "$c" sh -c \
	    "{ printf '\\001\\002 not a request'; sleep 1; } | nc -w 3 $NH_WWW 80"
	grep -q "refused $c to $NH_WWW:80: neither TLS nor HTTP" \
	    jailbeed.log || atf_fail "no reason for the non-HTTP bytes"
	# a ClientHello that never ends: dropped after the head's time (2 s
	# under the test switch), not held
	t0=$(date +%s)
	in_ctr "$c" timeout 20 bash -c "exec 3<>/dev/tcp/$NH_WWW/443;
	    printf '\\026\\003\\001' >&3; cat <&3" > /dev/null
	t=$(( $(date +%s) - t0 ))
	[ $t -le 6 ] || atf_fail "a slow ClientHello held its slot for ${t}s"
	grep -q "refused $c to $NH_WWW:443: no complete request head in time" \
	    jailbeed.log || atf_fail "no reason for the slow client"
	# counted by name: net log, net suggest, the journal's summary
	atf_check -o match:"^name +other\.test:80 +[0-9]+ " \
	    -o match:"^name +$NH_WWW:443 \(no complete request head in time\)" \
	    -o not-match:"www\.test:80" jbo repo net log gw
	atf_check -o match:"^  - \"other\.test:80\"\$" \
	    -o not-match:"$NH_WWW" jbo repo net suggest gw
	i=0
	until jb_audit_has '.action == "net.name-refused" and
	    .decision == "refuse" and .top == "other.test:80"'; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "no net.name-refused summary"
		sleep 0.1
	done
}
http_hosts_cleanup() { cleanup; }

atf_test_case many_connections cleanup
many_connections_head() {
	atf_set descr "500 connections held open through the gateway by one" \
	    "container do not slow another container's: its request is" \
	    "answered in under 100 ms"
	atf_set require.user root
	atf_set timeout 300
}
many_connections_body() {
	setup "www.test"
	atf_check -e match:"ready: $(jb_prefix)-gw2" jbo repo new gw2
	jb_routed "$(jb_prefix)-gw2"
	# 500 requests, each answered and its connection kept (keep-alive)
	in_ctr "$c" bash -c "getent hosts www.test > /dev/null
	    for i in \$(seq 500); do
		exec {fd}<>/dev/tcp/$NH_WWW/80 || exit 1
		printf 'GET / HTTP/1.1\\r\\nHost: www.test\\r\\n\\r\\n' >&\$fd
	    done
	    sleep 15" > /dev/null 2>&1 &
	echo $! > holder.pid
	i=0
	while :; do
		n=$(jbctl status -o json | jq -r '.processes[] |
		    select(.name == "jb-egress") | .detail' |
		    sed -n 's/.* \([0-9]*\) connection(s) open.*/\1/p')
		[ "${n:-0}" -ge 500 ] && break
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "the gateway holds ${n:-no} connections"
		sleep 0.1
	done
	in_ctr "$(jb_prefix)-gw2" getent hosts www.test > /dev/null
	in_ctr "$(jb_prefix)-gw2" curl -sS -o /dev/null --max-time 5 \
	    -w "%{time_starttransfer}\n" --resolve "www.test:80:$NH_WWW" \
	    http://www.test/ > took || atf_fail "the second container's request failed"
	echo "took $(cat took) s with $n connections open" >&2
	# starved, it would wait for a slot or the 2 s head timeout; the
	# figure itself is the bench's, not a test's (tests never fail on
	# timing: 0.138 s was seen on a loaded machine)
	awk '{ exit !($1 < 1) }' took ||
	    atf_fail "the second container waited $(cat took) s"
	kill "$(cat holder.pid)" 2>/dev/null
}
many_connections_cleanup() { cleanup; }

atf_test_case restart_keeps_admissions cleanup
restart_keeps_admissions_head() {
	atf_set descr "after a restart of the suite the gateway admits what" \
	    "the pool admits again: a client that cached an allowed name's" \
	    "answer reaches it by name at once, without asking again"
	atf_set require.user root
	atf_set timeout 300
}
restart_keeps_admissions_body() {
	setup "www.test"
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    ctr_curl https://www.test/
	jb_cleanup
	rm -f jailbeed.pid
	jb_start
	# no DNS query now: the address as cached before the restart
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    ctr_curl --resolve "www.test:443:$NH_WWW" https://www.test/
}
restart_keeps_admissions_cleanup() { cleanup; }

# the bridge's address, where the explicit proxy listens
bridge_addr() {
	ip -4 -o addr show jbbr0 | awk '{ sub("/.*", "", $4); print $4; exit }'
}

# bin/proxy_raw HEAD (a command atf_check can run): the request head
# (printf's format) sent from $c to the proxy on $BR as it is; what
# came back
proxy_tools() {
	PROXY_BR=$BR
	export PROXY_BR
	cat > bin/proxy_raw <<'EOS'
#!/bin/sh
exec in_ctr "$GW_CTR" sh -c '{ printf "$1"; sleep 1; } | nc -w 3 "$2" 3128' \
    raw "$1" "$PROXY_BR"
EOS
	chmod 0755 bin/proxy_raw
}

atf_test_case proxy cleanup
proxy_head() {
	atf_set descr "the explicit proxy on the bridge address (port 3128):" \
	    "CONNECT and absolute-URI requests from a strict container to an" \
	    "allowed name pass; another name, an allowed name on a port its" \
	    "entry does not admit or the proxy does not reach, a name that" \
	    "answers a private address and a source that is no strict" \
	    "container get a 403 saying why; without network.proxy_env the" \
	    "container's environment names no proxy"
	atf_set require.user root
	atf_set timeout 300
}
proxy_body() {
	setup "www.test
*.wild.test:443"
	nh_private_up
	BR=$(bridge_addr)
	[ -n "$BR" ] || atf_fail "jbbr0 has no IPv4 address"
	proxy_tools
	# TLS through CONNECT, and plain HTTP by its absolute URI
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    ctr_curl -x "http://$BR:3128" https://www.test/
	atf_check -o inline:"http hello www.test from $NH_WWW\n" \
	    ctr_curl -x "http://$BR:3128" http://www.test/
	atf_check -o inline:"tls hello a.wild.test from $NH_WILD\n" \
	    ctr_curl -x "http://$BR:3128" https://a.wild.test/
	# a name the allowlist does not have: 403, what to do
	atf_check -o match:"^jailbee: other\.test:80 is not on the egress allowlist of container $c" \
	    -o match:"To allow it: jbctl net egress add other\.test:80 $c" \
	    ctr_curl -x "http://$BR:3128" http://other.test/
	atf_check -s not-exit:0 -e match:"CONNECT tunnel failed, response 403" \
	    ctr_curl -x "http://$BR:3128" https://other.test/
	# an allowed name on a port its entry does not admit
	atf_check -o match:"403 Forbidden" \
	    -o match:"jailbee: a\.wild\.test:80 is not on the egress allowlist of container $c" \
	    -o match:"To allow it: jbctl net egress add a\.wild\.test:80 $c" \
	    proxy_raw 'CONNECT a.wild.test:80 HTTP/1.1\r\nHost: a.wild.test:80\r\n\r\n'
	# and on a port the proxy does not reach at all
	atf_check -o match:"403 Forbidden" \
	    -o match:"jailbee: the proxy refused www\.test:8080 for container $c: the proxy reaches only the ports of network\.gateway_ports \(443,80\)" \
	    proxy_raw 'CONNECT www.test:8080 HTTP/1.1\r\nHost: www.test:8080\r\n\r\n'
	# a name under an allowed wildcard that answers a private address
	atf_check -o match:"403 Forbidden" \
	    -o match:"jailbee: the proxy refused intra\.wild\.test:443 for container $c: it answered $NH_PRIV, a private address no entry and no resolver\.private_networks range covers" \
	    proxy_raw 'CONNECT intra.wild.test:443 HTTP/1.1\r\nHost: intra.wild.test:443\r\n\r\n'
	atf_check -s exit:1 grep -q "host other.test" tlshost.log
	atf_check -s exit:1 grep -q "sni other.test" tlshost.log
	# a source that is no strict container of the suite: the host
	atf_check -o match:"^jailbee: the proxy refused a request: the source address is no strict container of the suite" \
	    curl -sS --max-time 5 -x "http://$BR:3128" http://www.test/
	# counted with the gateway's refusals: net log, net suggest
	atf_check -o match:"^name +other\.test:80 +[0-9]+ " \
	    -o match:"^name +a\.wild\.test:80 +[0-9]+ " \
	    -o match:"^name +intra\.wild\.test:443 \(proxy: it answered $NH_PRIV" \
	    jbo repo net log gw
	atf_check -o match:"^  - \"other\.test:80\"\$" \
	    -o match:"^  - \"other\.test:443\"\$" jbo repo net suggest gw
	grep -q "refused $c to 0.0.0.0:443 for other.test: proxy: no egress_allow" \
	    jailbeed.log || atf_fail "no reason for other.test in the log"
	# network.proxy_env is false: no proxy in the environment
	atf_check -o not-match:"(HTTPS?|NO)_PROXY|(https?|no)_proxy" \
	    jbo repo exec gw -- env
}
proxy_cleanup() { cleanup; }

atf_test_case proxy_env cleanup
proxy_env_head() {
	atf_set descr "network.proxy_env: true gives a new container" \
	    "HTTP_PROXY, HTTPS_PROXY, their lowercase names and NO_PROXY," \
	    "naming the explicit proxy on the bridge address, and a tool that" \
	    "reads them goes through it"
	atf_set require.user root
	atf_set timeout 300
}
proxy_env_body() {
	setup "www.test" "network:
  proxy_env: true"
	BR=$(bridge_addr)
	atf_check -o match:"^HTTP_PROXY=http://$BR:3128\$" \
	    -o match:"^HTTPS_PROXY=http://$BR:3128\$" \
	    -o match:"^http_proxy=http://$BR:3128\$" \
	    -o match:"^https_proxy=http://$BR:3128\$" \
	    -o match:"^NO_PROXY=localhost,127\.0\.0\.1,::1\$" \
	    jbo repo exec gw -- env
	# curl reads them: the request reaches the proxy, not the gateway
	atf_check -o inline:"http hello www.test from $NH_WWW\n" \
	    jbo repo exec gw -- curl -sS --max-time 5 http://www.test/
	atf_check -o match:"^jailbee: other\.test:80 is not on the egress allowlist" \
	    jbo repo exec gw -- curl -sS --max-time 5 http://other.test/
	grep -q "refused $c to 0.0.0.0:80 for other.test: proxy: no egress_allow" \
	    jailbeed.log || atf_fail "other.test did not go through the proxy"
}
proxy_env_cleanup() { cleanup; }

atf_init_test_cases() {
	atf_add_test_case restart_keeps_admissions
	atf_add_test_case tls_names
	atf_add_test_case admit_before_answer
	atf_add_test_case admit_held_no_wait
	atf_add_test_case http_hosts
	atf_add_test_case many_connections
	atf_add_test_case proxy
	atf_add_test_case proxy_env
}
