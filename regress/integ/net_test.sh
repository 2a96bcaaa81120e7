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
# Network enforcement with real packets (FEATURES N1, N2, N5, N9, N10): a
# container of the running suite against test hosts in a network
# namespace (nethosts.sh); jb-netd's table inet jailbee decides.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24
BR_GW=10.213.0.1

# $1: egress_allow entries, one per line
setup() {
	jb_start
	jb_tools
	net_tools
	jb_image
	jb_repo
	nh_up "$BR_NET"
	{
		echo "egress_allow:"
		echo "$1" | while read -r e; do
			[ -n "$e" ] && echo "  - \"$e\""
		done
	} >> repo/.jailbee/config.yaml
}

cleanup() {
	jb_cleanup
	jb_containers_cleanup
	nh_down
}

# the container has its default route from DHCP, as every user's has
route() { jb_routed "$1"; }

ctr_ip() { incus config device get "$1" eth0 ipv4.address; }

# commands atf_check can run: ctr_http C HOST PORT sends GET / from
# container C (busybox nc: the image's static busybox wget crashes without
# NSS modules); ctr_prompt is the same, failing unless it is over in less
# than $SECS ms (default 2000: a refusal is prompt, not a timeout)
net_tools() {
	cat > bin/ctr_http <<'EOS'
#!/bin/sh
exec in_ctr "$1" sh -c "e=\$(mktemp); printf 'GET / HTTP/1.0\r\n\r\n' | nc -v -w 5 $2 $3 2>\$e; rc=\$?; grep -v ' succeeded!\$' \$e >&2; rm -f \$e; exit \$rc"
EOS
	cat > bin/ctr_prompt <<'EOS'
#!/bin/bash
t0=$(date +%s%N)
ctr_http "$@"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "took ${ms}ms" >&2
[ $ms -lt ${SECS:-2000} ] || { echo "too slow: ${ms}ms" >&2; exit 99; }
exit $rc
EOS
	chmod 0755 bin/ctr_http bin/ctr_prompt
}

atf_test_case strict_allowlist cleanup
strict_allowlist_head() {
	atf_set descr "a new container is strict before it runs: its" \
	    "address:port and CIDR:port entries connect, the same host's" \
	    "other port and other hosts are refused at once, nothing comes in" \
	    "(N1, N2, N9)"
	atf_set require.user root
	atf_set timeout 300
}
strict_allowlist_body() {
	setup "$NH_WWW:8080
198.19.2.0/24:7"
	c=$(jb_prefix)-feat
	atf_check -e match:"network: strict, 2 egress_allow entries" \
	    -e match:"ready: $c" jbo repo new feat
	route "$c"
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$c" $NH_WWW 8080
	atf_check -s not-exit:0 -e match:"refused" \
	    -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -s not-exit:0 -e match:"refused" \
	    -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
	atf_check -o inline:"ping\n" in_ctr "$c" sh -c \
	    "echo ping | nc -w 3 $NH_ECHO 7"
	# the same echo host on an allowed network, other port: refused
	atf_check -s not-exit:0 -e match:"refused" \
	    -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_ECHO 8080

	# inbound: a listener the host itself reaches (not forwarded), but
	# the test hosts, routed through the host, do not
	ip=$(ctr_ip "$c")
	incus exec "$c" -- sh -c 'while :; do echo hi | nc -l -p 9000; done' \
	    > /dev/null 2>&1 &
	echo $! > listener.pid
	i=0
	until bash -c "exec 3<>/dev/tcp/$ip/9000" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the listener in $c never came up"
		sleep 0.1
	done
	atf_check -s not-exit:0 -e not-match:"No such file|not found" \
	    ip netns exec "$NH_NS" timeout 3 bash -c "exec 3<>/dev/tcp/$ip/9000"
	kill "$(cat listener.pid)" 2>/dev/null
}
strict_allowlist_cleanup() { cleanup; }

atf_test_case strict_anyport cleanup
strict_anyport_head() {
	atf_set descr "a CIDR entry without a port lets out every protocol" \
	    "and port to that range, other hosts are refused; no set of the" \
	    "table holds ranges of one field, which would make libnftables" \
	    "read every such set's elements for each change (N1, N2)"
	atf_set require.user root
	atf_set timeout 300
}
strict_anyport_body() {
	setup "198.19.2.0/24"
	c=$(jb_prefix)-any
	atf_check -e match:"network: strict, 1 egress_allow entr" \
	    -e match:"ready: $c" jbo repo new any
	route "$c"
	atf_check -o inline:"ping\n" in_ctr "$c" sh -c \
	    "echo ping | nc -w 3 $NH_ECHO 7"
	atf_check -o match:"^hello 8081 from $NH_ECHO" \
	    ctr_http "$c" $NH_ECHO 8081
	atf_check -o inline:"udp 9999: anyport\n" in_ctr "$c" sh -c \
	    "echo anyport | nc -u -w 2 $NH_ECHO 9999"
	atf_check -s not-exit:0 -e match:"refused" \
	    -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8080
	# every interval set's type names two fields or more
	nft -j list ruleset > ruleset.json ||
	    atf_fail "cannot list the ruleset"
	one=$(jq -r '.nftables[] | select(.set) | .set |
	    select(.table == "jailbee") |
	    select((.flags // []) | index("interval")) |
	    select(.type | type == "string") | .name' ruleset.json)
	[ -z "$one" ] || atf_fail "interval sets of one field: $one"
	jq -e '.nftables[] | select(.set) | .set |
	    select(.table == "jailbee" and .name == "staticany")' \
	    ruleset.json > /dev/null ||
	    atf_fail "no set staticany: the check above saw nothing"
}
strict_anyport_cleanup() { cleanup; }

atf_test_case bad_entry cleanup
bad_entry_head() {
	atf_set descr "an egress_allow entry jb-netd cannot enforce stops" \
	    "new before the container exists, naming the entry (N2)"
	atf_set require.user root
	atf_set timeout 120
}
bad_entry_body() {
	setup "$NH_WWW:99999"
	c=$(jb_prefix)-bad
	atf_check -s exit:1 -e match:"foo:99999|$NH_WWW:99999" \
	    -e match:"port must be 1-65535" -e match:"config.yaml" \
	    jbo repo new bad
	atf_check -o empty incus list -c n --format csv "^$c\$"
}
bad_entry_cleanup() { cleanup; }

atf_test_case fail_closed_restart cleanup
fail_closed_restart_head() {
	atf_set descr "the table stays when the suite stops (fail closed)," \
	    "and a restart rebuilds each container's policy from jb-netd's" \
	    "state (N1)"
	atf_set require.user root
	atf_set timeout 300
}
fail_closed_restart_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-keep
	atf_check -e match:"ready: $c" jbo repo new keep
	route "$c"
	atf_check -o match:"hello 8080" \
	    ctr_http "$c" $NH_WWW 8080
	a=$(jb_netd_addr "$c")
	jb_cleanup
	rm -f jailbeed.pid
	# suite gone: the container's verdict is still there and refuses
	jb_verdict_is "$a" "jump strict"
	atf_check -o match:"reject" nft list chain inet jailbee strict
	atf_check -s not-exit:0 -e match:"refused" \
	    -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	jb_start
	jb_tools
	atf_check -o match:"$NH_WWW:8080" grep "^$c " state/netd/containers
	atf_check -o match:"hello 8080" \
	    ctr_http "$c" $NH_WWW 8080
	atf_check -s not-exit:0 -e match:"refused" \
	    -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	# destroy forgets it
	atf_check -e ignore jbo repo destroy --force keep
	atf_check -s exit:1 grep "^$c " state/netd/containers
	jb_verdict_is "$a" ""
}
fail_closed_restart_cleanup() { cleanup; }

atf_test_case empty_policy_recorded cleanup
empty_policy_recorded_head() {
	atf_set descr "a strict container with no egress entry has its" \
	    "policy recorded in Incus once: a restart finds it recorded" \
	    "and writes nothing (Incus keeps no key set to \"\", and every" \
	    "start of the suite wrote every such container again)"
	atf_set require.user root
	atf_set timeout 300
}
empty_policy_recorded_body() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	c=$(jb_prefix)-bare
	atf_check -e match:"network: strict, 0 egress_allow entries" \
	    -e match:"ready: $c" jbo repo new bare
	atf_check -o inline:"1\n" incus config get "$c" user.jailbee.recorded
	atf_check -o inline:"\n" incus config get "$c" user.jailbee.egress
	jb_cleanup
	rm -f jailbeed.pid
	: > jailbeed.log
	jb_start
	jb_tools
	atf_check -o match:": strict" jbo repo net status bare
	atf_check -s exit:1 grep "$c: Incus had no record" jailbeed.log
	# one made before: its entries are written once, said in the log
	incus config unset "$c" user.jailbee.recorded
	jb_cleanup
	rm -f jailbeed.pid
	: > jailbeed.log
	jb_start
	jb_tools
	i=0
	until grep -q "$c: Incus had no record of its egress entries" \
	    jailbeed.log; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat jailbeed.log;
		    atf_fail "the start-up sync did not write $c's entries"; }
		sleep 0.2
	done
	i=0
	until [ "$(incus config get "$c" user.jailbee.recorded)" = 1 ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "$c has no user.jailbee.recorded"
		sleep 0.2
	done
}
empty_policy_recorded_cleanup() { cleanup; }

atf_test_case incus_holds_policy cleanup
incus_holds_policy_head() {
	atf_set descr "Incus holds each container's policy (user.jailbee.*" \
	    "keys): a restart with jb-netd's files removed keeps a loose" \
	    "container loose until its deadline and strict after, and its" \
	    "overrides (issue 33 item 1); new writes it with the instance," \
	    "never after"
	atf_set require.user root
	atf_set timeout 300
}
incus_holds_policy_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-ih
	incus monitor --type=lifecycle --format=json > events.json 2>&1 &
	mon=$!
	sleep 0.5
	atf_check -e match:"ready: $c" jbo repo new ih
	sleep 0.5
	kill $mon
	# the policy went in with the creation: Incus saw the instance
	# made and never written again while new ran
	jq -r --arg s "/1.0/instances/$c" 'select(.metadata.source == $s) |
	    .metadata.action' events.json > actions
	grep -qx instance-created actions ||
	    atf_fail "incus monitor did not see $c made:" \
	    "$(tr '\n' ' ' < events.json)"
	! grep -x instance-updated actions ||
	    atf_fail "$c was written after its creation: $(tr '\n' ' ' < actions)"
	route "$c"
	atf_check -o inline:"strict\n" incus config get "$c" user.jailbee.net
	atf_check -o inline:"$NH_WWW:8080\n" \
	    incus config get "$c" user.jailbee.egress
	atf_check -e ignore jbo repo net egress add "$NH_WWW2:8080" ih
	atf_check -o inline:"$NH_WWW2:8080\n" \
	    incus config get "$c" user.jailbee.egress_extra
	atf_check -e match:"loose for 25s" jbo repo net loose --for 25s ih
	dl=$(incus config get "$c" user.jailbee.loose_until)
	atf_check -o inline:"loose\n" incus config get "$c" user.jailbee.net
	now=$(date +%s)
	[ "$dl" -ge $((now + 23)) ] && [ "$dl" -le $((now + 25)) ] ||
	    atf_fail "user.jailbee.loose_until is $dl, not now+25 ($now)"

	# the suite down, jb-netd's cache gone: Incus has it all
	jb_cleanup
	rm -f jailbeed.pid
	rm -rf state/netd/*
	jb_start
	jb_tools
	net_tools
	i=0
	until jbo repo net status ih 2>/dev/null | grep -q ": loose"; do
		i=$((i + 1))
		[ $i -lt 50 ] || { jbo repo net status ih; cat jailbeed.log;
		    atf_fail "$c is not loose again after the restart"; }
		sleep 0.2
	done
	[ "$(date +%s)" -lt "$dl" ] || atf_fail "the restart took past $dl"
	atf_check -o match:"^hello 8081 from $NH_WWW" ctr_http "$c" $NH_WWW 8081
	atf_check -o inline:"config $NH_WWW:8080\ncontainer $NH_WWW2:8080\n" \
	    jbo repo net egress ls ih
	atf_check -o match:" [+]$NH_WWW2:8080" grep "^$c " state/netd/containers

	# its deadline, kept by Incus across the restart: strict, recorded
	while [ "$(date +%s)" -le "$dl" ]; do sleep 0.5; done
	sleep 1.5
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$c" $NH_WWW2 8080
	atf_check -o match:": strict" jbo repo net status ih
	atf_check -o inline:"strict\n" incus config get "$c" user.jailbee.net

	# a loose deadline that passed while the suite was down: strict
	atf_check -e ignore jbo repo net loose --for 2s ih
	jb_cleanup
	rm -f jailbeed.pid
	rm -rf state/netd/*
	sleep 3
	jb_start
	jb_tools
	net_tools
	i=0
	until grep -q "^$c " state/netd/containers 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "$c has no policy after the restart"
		sleep 0.2
	done
	atf_check -o match:": strict" jbo repo net status ih
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -e ignore jbo repo net egress rm "$NH_WWW2:8080" ih
	atf_check -o inline:"\n" incus config get "$c" user.jailbee.egress_extra
}
incus_holds_policy_cleanup() { cleanup; }

atf_test_case guest_cannot_write_policy cleanup
guest_cannot_write_policy_head() {
	atf_set descr "root in the container cannot change its own" \
	    "user.jailbee.* keys: it has no guest API (/dev/incus), and a" \
	    "bad key in Incus leaves the container strict (issue 33 item 1)"
	atf_set require.user root
	atf_set timeout 300
}
guest_cannot_write_policy_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-gw
	atf_check -e match:"ready: $c" jbo repo new gw
	route "$c"
	atf_check -o inline:"false\n" incus config get "$c" security.guestapi
	# root in the container, every way the guest API had to write
	cat > guest.sh <<'EOS'
ls -la /dev/incus 2>&1
for m in PATCH PUT POST; do
	curl -sS --unix-socket /dev/incus/sock -X $m \
	    -H 'Content-Type: application/json' \
	    -d '{"user.jailbee.net":"loose","user.jailbee.loose_until":"0"}' \
	    http://x/1.0/config/user.jailbee.net
	curl -sS --unix-socket /dev/incus/sock -X $m \
	    -H 'Content-Type: application/json' \
	    -d '{"config":{"user.jailbee.net":"loose"}}' http://x/1.0
done
exit 0
EOS
	atf_check -o match:"No such file or directory" \
	    -e match:"Couldn't connect to server|No such file" \
	    incus exec "$c" -- sh -s < guest.sh
	atf_check -o inline:"strict\n" incus config get "$c" user.jailbee.net
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081

	# a key that is not what the suite writes: strict, and said so
	incus config set "$c" user.jailbee.net loose
	incus config set "$c" user.jailbee.loose_until 0
	incus config set "$c" user.jailbee.egress_extra "+$NH_WWW2:8080"
	jb_cleanup
	rm -f jailbeed.pid
	jb_start
	jb_tools
	net_tools
	i=0
	until grep -q "$c: the policy Incus holds cannot be read" jailbeed.log; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat jailbeed.log; atf_fail "no word of $c"; }
		sleep 0.2
	done
	atf_check -o match:"starts with '\+'" grep "$c: the policy Incus" \
	    jailbeed.log
	atf_check -o match:": strict" jbo repo net status gw
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
}
guest_cannot_write_policy_cleanup() { cleanup; }

# wait_netd C STATE: jb-netd's cache line of C matches STATE ("strict",
# "loose", or "gone") within 5 s
wait_netd() {
	i=0
	while :; do
		case $2 in
		gone)	grep -q "^$1 " state/netd/containers || return 0 ;;
		*)	grep -q "^$1 [0-9.]* $2 " state/netd/containers &&
			    return 0 ;;
		esac
		i=$((i + 1))
		[ $i -lt 50 ] || { grep "^$1 " state/netd/containers;
		    atf_fail "$1 is not $2 in jb-netd within 5 s"; }
		sleep 0.1
	done
}

atf_test_case follows_incus_events cleanup
follows_incus_events_head() {
	atf_set descr "a container made, changed or deleted with the plain" \
	    "incus command behind the suite's back gets its policy at once" \
	    "from Incus's event stream: strict when it has the suite's tag" \
	    "and no policy, given the start gate it was made without," \
	    "loose or with an override as its keys say, gone when deleted"
	atf_set require.user root
	atf_set timeout 300
}
follows_incus_events_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-hand
	# an address of the bridge no container has
	used=$(incus list -c 4 --format csv)
	for n in $(seq 100 199); do
		echo "$used" | grep -q "10.213.0.$n " || { a=10.213.0.$n; break; }
	done
	atf_check -o ignore -e ignore incus init "$JB_IMAGE" "$c" \
	    -c user.jailbee.repo=/nonexistent/hand \
	    -c user.jailbee.prefix="$(jb_prefix)" -c security.guestapi=false
	atf_check -o ignore incus config device add "$c" eth0 nic \
	    network=jbbr0 name=eth0 ipv4.address="$a" \
	    security.ipv4_filtering=true
	# tagged, no policy keys: strict with nothing allowed
	wait_netd "$c" strict
	# made without a start gate: the suite adds it once it is open
	i=0
	until [ "$(incus config device get "$c" jailbee-gate source \
	    2>/dev/null)" = "$(cat rundir)/gate/$c" ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat jailbeed.log >&2;
		    atf_fail "no start gate was added to $c"; }
		sleep 0.1
	done
	atf_check -o match:"$c: start gate added \(it was made without one\)" \
	    cat jailbeed.log
	atf_check -o inline:"directory\n" stat -c %F "$(cat rundir)/gate/$c"
	atf_check -o ignore incus start "$c"
	route "$c"
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8080

	# its keys changed by hand: enforced as Incus holds them
	atf_check incus config set "$c" user.jailbee.egress_extra "$NH_WWW2:8080"
	i=0
	until ctr_http "$c" $NH_WWW2 8080 > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 25 ] || atf_fail "the override set in Incus is not enforced"
		sleep 0.2
	done
	atf_check -o match:"^hello 8080 from $NH_WWW2" ctr_http "$c" $NH_WWW2 8080
	atf_check incus config set "$c" user.jailbee.net=loose \
	    user.jailbee.loose_until=0
	wait_netd "$c" loose
	atf_check -o match:"^hello 8081 from $NH_WWW" ctr_http "$c" $NH_WWW 8081
	atf_check incus config set "$c" user.jailbee.net strict
	wait_netd "$c" strict
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081

	# deleted by hand: its policy, verdict and elements go
	a=$(jb_netd_addr "$c")
	jb_verdict_is "$a" "jump strict"
	atf_check incus delete --force "$c"
	wait_netd "$c" gone
	jb_verdict_is "$a" ""
	jb_admitted_none "$a"
	nft list set inet jailbee static > static.txt
	nft list set inet jailbee staticany >> static.txt
	atf_check -s exit:1 grep -F " $a . " static.txt
}
follows_incus_events_cleanup() { cleanup; }

# ctr_lookup C NAME [SERVER]: a DNS query from container C's network
# namespace (dnsq: the image has no DNS client of its own) to any
# server: ours answers it
ns_tools() {
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	cat > bin/ctr_lookup <<EOS
#!/bin/sh
exec ctr_netns "\$1" "$(pwd)/dnsq" "\${3:-198.18.1.99}" "\$2"
EOS
	chmod 0755 bin/ctr_lookup
}

atf_test_case resolver cleanup
resolver_head() {
	atf_set descr "names through jb-netd's resolver: an allowed name is" \
	    "answered and its address admitted for its port only; others get" \
	    "NXDOMAIN and never reach the upstream; a query to any server is" \
	    "answered by ours; *.domain and a rotating address (N3, B2)"
	atf_set require.user root
	atf_set timeout 300
}
resolver_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	setup "www.test:8080
*.wild.test:8080
rot.test:8080
echo.test"
	ns_tools
	c=$(jb_prefix)-dns
	atf_check -e match:"ready: $c" jbo repo new dns
	route "$c"
	# before any lookup a wildcard name's address is not let out (exact
	# names are resolved into the pool at new and stay admitted: N4)
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WILD 8080
	# asked of an address that is no resolver at all: ours answers
	atf_check -o match:"^A $NH_WWW" ctr_lookup "$c" www.test
	nh_asked www.test || atf_fail "www.test never reached the test DNS server"
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$c" $NH_WWW 8080
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	# not allowed: NXDOMAIN, never forwarded, and its address stays shut
	atf_check -s ignore -o match:"NXDOMAIN" -e ignore \
	    ctr_lookup "$c" other.test
	! nh_asked other.test || atf_fail "other.test was forwarded upstream"
	atf_check -s ignore -o match:"NXDOMAIN" -e ignore \
	    ctr_lookup "$c" secret.data.exfil.example "$NH_DNS"
	! nh_asked secret.data.exfil.example || atf_fail "secret.data.exfil.example was forwarded upstream"
	# the wildcard admits names under it, not the bare domain
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WILD 8080
	atf_check -o match:"^A $NH_WILD" ctr_lookup "$c" b.c.wild.test
	atf_check -o match:"^hello 8080 from $NH_WILD" \
	    ctr_http "$c" $NH_WILD 8080
	atf_check -s ignore -o match:"NXDOMAIN" -e ignore \
	    ctr_lookup "$c" wild.test
	! nh_asked wild.test || atf_fail "wild.test was forwarded upstream"
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_BARE 8080
	# no port: any port and protocol of the answered address
	atf_check -o match:"^A $NH_ECHO" ctr_lookup "$c" echo.test
	atf_check -o match:"^hello 8081 from $NH_ECHO" \
	    ctr_http "$c" $NH_ECHO 8081
	# rotation: the new address is admitted when it is answered, and the
	# old one keeps working for the TTL and grace of its answer
	atf_check -o match:"^A $NH_ROT1" ctr_lookup "$c" rot.test
	atf_check -o match:"^hello 8080 from $NH_ROT1" \
	    ctr_http "$c" $NH_ROT1 8080
	nh_rotate
	sleep 3
	atf_check -o match:"^A $NH_ROT2" ctr_lookup "$c" rot.test
	atf_check -o match:"^hello 8080 from $NH_ROT2" \
	    ctr_http "$c" $NH_ROT2 8080
	atf_check -o match:"^hello 8080 from $NH_ROT1" \
	    ctr_http "$c" $NH_ROT1 8080
	# the kernel holds them with timeouts (TTL 2 + grace)
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_ROT2 . tcp . 8080 timeout" cat set.txt
}
resolver_cleanup() { cleanup; }

atf_test_case loose_and_strict cleanup
loose_and_strict_head() {
	atf_set descr "net loose reaches everything and reverts at its" \
	    "deadline within a second, also when the suite was down across" \
	    "it; net strict cuts an established loose connection (N5, N6, N8," \
	    "B3)"
	atf_set require.user root
	atf_set timeout 300
}
loose_and_strict_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-lz
	atf_check -e match:"ready: $c" jbo repo new lz
	route "$c"
	atf_check -o match:"$c .*: strict" -o match:"allow $NH_WWW:8080" \
	    jbo repo net status lz
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -e match:"loose for 1m" jbo repo net loose --for 1m lz
	atf_check -o match:"loose, strict again in (59|60)s" \
	    jbo repo net status lz
	atf_check -o match:"^hello 8081 from $NH_WWW" ctr_http "$c" $NH_WWW 8081
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$c" $NH_WWW2 8080

	# an established loose connection: the first line comes back, the
	# second, sent after net strict, does not
	in_ctr "$c" sh -c "(echo first; sleep 3; echo second) | \
	    nc -w 6 $NH_ECHO 7" > echo.out 2>&1 &
	echo $! > echo.pid
	sleep 1
	atf_check -e match:"strict; established connections cut" \
	    jbo repo net strict lz
	wait "$(cat echo.pid)"
	atf_check -o match:"first" -o not-match:"second" cat echo.out
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081

	# the deadline: strict again within a second of it
	atf_check -e match:"loose for 2s" jbo repo net loose --for 2s lz
	t0=$(date +%s%N)
	atf_check -o match:"^hello 8081" ctr_http "$c" $NH_WWW 8081
	while ctr_http "$c" $NH_WWW 8081 > /dev/null 2>&1; do
		[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ] ||
		    atf_fail "still loose 5s after a 2s window"
		sleep 0.2
	done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "strict again after ${ms}ms" >&2
	[ $ms -le 3200 ] || atf_fail "reverted after ${ms}ms, not at 2s"
	atf_check -o match:": strict" jbo repo net status lz

	# the suite down across the deadline: strict as it comes back
	atf_check -e ignore jbo repo net loose --for 2s lz
	jb_cleanup
	rm -f jailbeed.pid
	sleep 3
	# nobody enforced the deadline meanwhile: the table kept it loose
	atf_check -o match:"^hello 8081" ctr_http "$c" $NH_WWW 8081
	jb_start
	jb_tools
	net_tools
	atf_check -o match:": strict" jbo repo net status lz
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	atf_check -s exit:1 -e match:"--for: " jbo repo net loose --for 9x lz
	atf_check -s exit:1 -e match:"no policy|no such" \
	    jbo repo net loose nosuch
}
loose_and_strict_cleanup() { cleanup; }

# a listener on port 9000 in container $1, up when the host reaches it
listen_in() {
	incus exec "$1" -- sh -c 'while :; do echo hi | nc -l -p 9000; done' \
	    > /dev/null 2>&1 &
	echo $! >> listeners.pid
	ip=$(ctr_ip "$1")
	i=0
	until bash -c "exec 3<>/dev/tcp/$ip/9000" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the listener in $1 never came up"
		sleep 0.1
	done
}

atf_test_case isolation cleanup
isolation_head() {
	atf_set descr "new --net loose starts loose (and reverts later);" \
	    "containers cannot reach each other, and a forged source address" \
	    "does not leave even a loose container (C4, N9)"
	atf_set require.user root
	atf_set timeout 300
}
isolation_body() {
	setup "$NH_WWW:8080"
	a=$(jb_prefix)-iso-a
	b=$(jb_prefix)-iso-b
	atf_check -e match:"network: strict" -e match:"ready: $a" \
	    jbo repo new iso-a
	atf_check -e match:"network: loose" -e match:"ready: $b" \
	    jbo repo new iso-b --net loose
	route "$a"
	route "$b"
	atf_check -o match:"$b .*: loose, strict again in" \
	    jbo repo net status iso-b
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$b" $NH_WWW2 8080
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$a" $NH_WWW2 8080

	# container to container, either way, strict or loose: nothing
	listen_in "$a"
	listen_in "$b"
	atf_check -s not-exit:0 -o empty -e ignore in_ctr "$a" \
	    nc -w 2 "$(ctr_ip "$b")" 9000
	atf_check -s not-exit:0 -o empty -e ignore in_ctr "$b" \
	    nc -w 2 "$(ctr_ip "$a")" 9000

	# a forged source: root in the loose container takes another address
	incus exec "$b" -- ip addr add 10.213.0.77/24 dev eth0 ||
	    atf_fail "cannot add an address in $b"
	atf_check -s not-exit:0 -o empty -e ignore incus exec "$b" -- sh -c \
	    "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -s 10.213.0.77 -w 3 $NH_WWW 8080"
	atf_check -o match:"hello 8080" incus exec "$b" -- sh -c \
	    "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 $NH_WWW 8080"
	for p in $(cat listeners.pid); do kill "$p" 2>/dev/null; done
}
isolation_cleanup() { cleanup; }

atf_test_case spoof_refused cleanup
spoof_refused_head() {
	atf_set descr "a strict container that takes a loose one's address," \
	    "or another container's MAC, gets nothing through: jb-netd's" \
	    "table bridge jailbee passes a port's frames only with the MAC" \
	    "and address it was given (C4, N9)"
	atf_set require.user root
	atf_set timeout 300
}
spoof_refused_body() {
	setup "$NH_WWW:8080"
	a=$(jb_prefix)-spf-a
	b=$(jb_prefix)-spf-b
	atf_check -e match:"network: strict" -e match:"ready: $a" \
	    jbo repo new spf-a
	atf_check -e match:"network: loose" -e match:"ready: $b" \
	    jbo repo new spf-b --net loose
	route "$a"
	route "$b"
	bip=$(ctr_ip "$b")
	amac=$(incus exec "$a" -- cat /sys/class/net/eth0/address)
	bmac=$(incus exec "$b" -- cat /sys/class/net/eth0/address)
	[ -n "$bip" ] && [ -n "$amac" ] && [ -n "$bmac" ] ||
	    atf_fail "no address or MAC for $a or $b"
	# each port is in jb-netd's set with the MAC and address it was given
	atf_check -o match:"\"jbc[0-9a-f]{8}\" \. $bmac \. $bip" \
	    nft list set bridge jailbee ports

	# dnsmasq leased each its fixed address (not one of its range)
	for c in "$a" "$b"; do
		incus exec "$c" -- ip -4 addr show dev eth0 |
		    grep -q "inet $(ctr_ip "$c")/" || atf_fail "$c does not" \
		    "have its fixed address $(ctr_ip "$c"): $(incus exec "$c" \
		    -- ip -4 addr show dev eth0 | grep inet)"
	done
	# control: the loose container's own datagram arrives
	atf_check -o inline:"udp 9999: fromb\n" -e ignore \
	    in_ctr "$b" sh -c "echo fromb | nc -u -w 2 $NH_ECHO 9999"
	grep -q "^udp 9999 got fromb\$" nethosts.log ||
	    atf_fail "the datagram from $b never arrived"

	# root in the strict one sends from the loose one's address: were it
	# let through, the loose container's verdict would pass it
	incus exec "$a" -- ip addr add "$bip/32" dev eth0 ||
	    atf_fail "cannot add an address in $a"
	atf_check -s ignore -o empty -e ignore incus exec "$a" -- sh -c \
	    "echo spoofed-address | nc -u -s $bip -w 2 $NH_ECHO 9999"
	# and with the loose one's MAC as well
	incus exec "$a" -- ip link set dev eth0 address "$bmac" ||
	    atf_fail "cannot change the MAC of $a"
	atf_check -s ignore -o empty -e ignore incus exec "$a" -- sh -c \
	    "echo spoofed-both | nc -u -s $bip -w 2 $NH_ECHO 9999"
	if grep "^udp 9999 got spoofed" nethosts.log; then
		atf_fail "a datagram from $a with $b's address $bip reached" \
		    "$NH_ECHO"
	fi
	# its own address and MAC again: what its allowlist admits works
	incus exec "$a" -- ip addr del "$bip/32" dev eth0 ||
	    atf_fail "cannot remove the address from $a"
	incus exec "$a" -- ip link set dev eth0 address "$amac" ||
	    atf_fail "cannot set the MAC of $a back"
	atf_check -o match:"^hello 8080 from $NH_WWW" ctr_http "$a" $NH_WWW 8080
	# and the loose one was never cut off
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$b" $NH_WWW2 8080
}
spoof_refused_cleanup() { cleanup; }

atf_test_case egress_overrides cleanup
egress_overrides_head() {
	atf_set descr "net egress add lets a new host through at once, rm" \
	    "cuts new connections to it, the config's entries cannot be" \
	    "removed, a bad entry is refused naming it, ls and export show" \
	    "origins, and export pasted into the config gives the same list" \
	    "(seed: Egress overrides)"
	atf_set require.user root
	atf_set timeout 300
}
egress_overrides_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-egr
	atf_check -e match:"ready: $c" jbo repo new egr
	route "$c"
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080

	atf_check -e ignore jbo repo net egress add "$NH_WWW2:8080" egr
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$c" $NH_WWW2 8080
	atf_check -o inline:"config $NH_WWW:8080\ncontainer $NH_WWW2:8080\n" \
	    jbo repo net egress ls egr
	# the same, structured: each entry, its origin, its container
	jbo repo net egress ls -o json egr > ls.json || atf_fail "ls -o json"
	atf_check -o inline:"config $NH_WWW:8080 $c\ncontainer $NH_WWW2:8080 $c\n" \
	    jq -r '.egress[] | "\(.origin) \(.entry) \(.container)"' ls.json
	# jb-netd's durable state holds it, marked as an override
	atf_check -o match:" [+]$NH_WWW2:8080" grep "^$c " state/netd/containers
	# additive only: the config's entry and a second copy are refused
	atf_check -s not-exit:0 -e match:"$NH_WWW:8080.*comes from egress_allow" \
	    jbo repo net egress rm "$NH_WWW:8080" egr
	atf_check -o match:"hello 8080" ctr_http "$c" $NH_WWW 8080
	atf_check -s not-exit:0 -e match:"$NH_WWW2:8080.*already allows" \
	    jbo repo net egress add "$NH_WWW2:8080" egr
	atf_check -s not-exit:0 -e match:"$NH_WWW:8080.*already allows" \
	    jbo repo net egress add "$NH_WWW:8080" egr
	# a bad entry is refused, named, and changes nothing
	atf_check -s not-exit:0 -e match:"300.1.2.3:80" \
	    jbo repo net egress add "300.1.2.3:80" egr
	atf_check -s not-exit:0 -e match:"not an override" \
	    jbo repo net egress rm "$NH_BARE:80" egr

	# export, pasted over the config, makes the same list for a new one
	atf_check -o save:export.yaml jbo repo net egress export egr
	atf_check -o inline:"egress_allow:\n  - \"$NH_WWW:8080\"\n  - \"$NH_WWW2:8080\"\n" \
	    cat export.yaml
	sed -i '/^egress_allow:/,$d' repo/.jailbee/config.yaml
	cat export.yaml >> repo/.jailbee/config.yaml
	c2=$(jb_prefix)-egr2
	atf_check -e match:"2 egress_allow entries" -e match:"ready: $c2" \
	    jbo repo new egr2
	atf_check -o inline:"config $NH_WWW:8080\nconfig $NH_WWW2:8080\n" \
	    jbo repo net egress ls egr2

	# rm: new connections are cut at once
	atf_check -e ignore jbo repo net egress rm "$NH_WWW2:8080" egr
	atf_check -o inline:"config $NH_WWW:8080\n" jbo repo net egress ls egr
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
	atf_check -o match:"hello 8080" ctr_http "$c" $NH_WWW 8080
	atf_check -o inline:"egress_allow:\n  - \"$NH_WWW:8080\"\n" \
	    jbo repo net egress export egr
}
egress_overrides_cleanup() { cleanup; }

atf_test_case ls_net cleanup
ls_net_head() {
	atf_set descr "ls shows the mode jb-netd enforces and the loose time" \
	    "left, not the mode the container was created with (N8)"
	atf_set require.user root
	atf_set timeout 300
}
ls_net_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-lsn
	atf_check -e match:"ready: $c" jbo repo new lsn
	atf_check -o match:"^$c +Running +strict +10\\.213\\." jbo repo ls
	atf_check -e ignore jbo repo net loose --for 12m lsn
	atf_check -o match:"^$c +Running +loose 12m +10\\.213\\." jbo repo ls
	jbo repo ls -o json > ls.json
	atf_check -o inline:"loose\n" jq -r '.containers[0].net' ls.json
	now=$(date +%s)
	dl=$(jq -r '.containers[0].net_until' ls.json)
	[ "$dl" -gt $((now + 700)) ] && [ "$dl" -le $((now + 720)) ] ||
	    atf_fail "net_until $dl is not 12m after $now"
	atf_check -e ignore jbo repo net loose --no-revert lsn
	atf_check -o match:"^$c +Running +loose ∞ +10\\.213\\." \
	    jbo repo ls
	jbo repo ls -o json > ls2.json
	atf_check -o inline:"null\n" jq -r '.containers[0].net_until' ls2.json
	atf_check -e ignore jbo repo net strict lsn
	atf_check -o match:"^$c +Running +strict +10\\.213\\." jbo repo ls
}
ls_net_cleanup() { cleanup; }

atf_test_case start_with_table cleanup
start_with_table_head() {
	atf_set descr "jb-netd starting where a table inet jailbee is" \
	    "already, written by another or emptied, says so and replaces it" \
	    "whole by the recorded policy; when the kernel refuses that" \
	    "policy at start, and the policy Incus holds after it, every" \
	    "container stays refused and the log says why (N1)"
	atf_set require.user root
	atf_set timeout 300
}
start_with_table_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-st
	atf_check -e match:"ready: $c" jbo repo new st
	a=$(jb_netd_addr "$c")
	route "$c"
	atf_check -o match:"hello 8080" ctr_http "$c" $NH_WWW 8080
	# a second container: the start-up sync restores each of them
	c2=$(jb_prefix)-st2
	atf_check -e match:"ready: $c2" jbo repo new st2
	a2=$(jb_netd_addr "$c2")
	[ -n "$a" ] && [ -n "$a2" ] || atf_fail "jb-netd recorded no address"
	jb_cleanup
	rm -f jailbeed.pid
	# jb-netd's cache holds every container of the suite's Incus has,
	# these two and any other left there: the count is read, not assumed
	atf_check -o ignore grep "^$c " state/netd/containers
	atf_check -o ignore grep "^$c2 " state/netd/containers
	n=$(grep -vc '^#' state/netd/containers)
	# another's table of the same name: one chain that accepts all
	atf_check nft delete table inet jailbee
	atf_check nft add table inet jailbee
	atf_check nft add chain inet jailbee foreign \
	    '{ type filter hook forward priority -10; policy accept; }'
	atf_check nft add rule inet jailbee foreign accept
	jb_start
	jb_tools
	atf_check -o match:"jb-netd: table inet jailbee found at start with 1 chain\(s\): replaced whole by the policy of the $n recorded container\(s\)" \
	    cat jailbeed.log
	atf_check -s not-exit:0 -e ignore nft list chain inet jailbee foreign
	jb_verdict_is "$a" "jump strict"
	atf_check -o match:"hello 8080" ctr_http "$c" $NH_WWW 8080
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081
	jb_cleanup
	rm -f jailbeed.pid

	# an emptied table, and the kernel refuses the recorded policy at
	# start and then the policy Incus holds, which the start-up sync
	# brings (test hook: the start's change, then one per container the
	# sync restores): the table jb-netd installs holds no container, so
	# every container is refused, the allowed host too
	n=$(grep -vc '^#' state/netd/containers)
	atf_check nft delete table inet jailbee
	atf_check nft add table inet jailbee
	echo $((n + 1)) > state/netd/testhook-refuse-nft
	jb_start
	jb_tools
	# the last refusal is the sync's, logged once jb-netd tried it
	i=0
	until [ -f state/netd/testhook-refuse-nft.fired ] &&
	    grep -q "container $c: the policy Incus holds is not enforced" \
	    jailbeed.log &&
	    grep -q "container $c2: the policy Incus holds is not enforced" \
	    jailbeed.log; do
		i=$((i + 1))
		[ $i -lt 300 ] || { cat jailbeed.log >&2;
		    atf_fail "the start-up sync's policy was never refused"; }
		sleep 0.1
	done
	atf_check -o match:"jb-netd: table inet jailbee found at start with 0 chain\(s\)" \
	    -o match:"jb-netd: the recorded containers cannot be enforced \(.+\): every container stays refused" \
	    -o match:"jb-netd: container $c: the policy Incus holds is not enforced" \
	    -o match:"jb-netd: container $c2: the policy Incus holds is not enforced" \
	    cat jailbeed.log
	jb_verdict_is "$a" ""
	jb_verdict_is "$a2" ""
	# no element of its own in the bridge table either: its port sends
	# nothing, so the allowed host is not reached (the frames are
	# dropped at the bridge, no refusal comes back)
	atf_check -o not-match:"elements" nft list set bridge jailbee ports
	atf_check -s not-exit:0 -e match:"timed out" ctr_prompt "$c" $NH_WWW 8080
}
start_with_table_cleanup() { cleanup; }

atf_test_case start_gate cleanup
start_gate_head() {
	atf_set descr "a suite container starts only through its start" \
	    "gate, which jb-netd opens once the kernel holds the policy" \
	    "Incus has and closes when it forgets the container or ends:" \
	    "with the suite stopped incus start is refused for the missing" \
	    "gate; a gate left behind is closed at start; once the suite is" \
	    "back the container starts, strict for real packets"
	atf_set require.user root
	atf_set timeout 300
}
start_gate_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-gate
	gate=$(cat rundir)/gate
	atf_check -e match:"ready: $c" jbo repo new gate
	atf_check -o inline:"$gate/$c\n" \
	    incus config device get "$c" jailbee-gate source
	atf_check -o inline:"/run/jailbee-gate\n" \
	    incus config device get "$c" jailbee-gate path
	atf_check -o inline:"true\n" \
	    incus config device get "$c" jailbee-gate readonly
	atf_check -o inline:"755 root\n" stat -c '%a %U' "$gate"
	atf_check -o inline:"directory\n" stat -c '%F' "$gate/$c"
	# the gate is no mount of the container's
	atf_check -o not-match:"jailbee-gate" -o not-match:"$gate" \
	    jbo repo mount ls "$c"
	atf_check incus stop -f "$c"

	# the suite ends: every gate it opened is closed
	pid=$(cat jailbeed.pid)
	kill -TERM "$pid"
	jb_wait_gone "$pid" 50 || atf_fail "jailbeed did not end"
	rm -f jailbeed.pid
	[ ! -e "$gate/$c" ] || atf_fail "the gate of $c stayed open"
	atf_check -s not-exit:0 -e match:"jailbee-gate" \
	    -e match:"Missing source path" incus start "$c"
	atf_check -o inline:"STOPPED\n" incus list -c s -f csv "^$c\$"

	# one left open by a run that crashed: closed until enforced again
	mkdir "$gate/$c-stray"
	jb_start
	jb_tools
	# started at once, as a user would: the start waits for the start-up
	# sync and goes through the gate jb-netd opened
	atf_check -e ignore jbo repo start gate
	atf_check -o inline:"directory\n" stat -c '%F' "$gate/$c"
	[ ! -e "$gate/$c-stray" ] || atf_fail "a gate left behind stayed open"
	route "$c"
	atf_check -o match:"hello 8080" ctr_http "$c" $NH_WWW 8080
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081

	# a policy Incus holds that cannot be read: strict, the gate closed,
	# and start says why and what to do
	atf_check incus stop -f "$c"
	atf_check incus config set "$c" user.jailbee.egress_extra "+$NH_WWW:8081"
	i=0
	while [ -e "$gate/$c" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "the gate stayed open on bad keys"
		sleep 0.1
	done
	atf_check -s not-exit:0 -e match:"Missing source path" \
	    incus start "$c"
	atf_check -s not-exit:0 \
	    -e match:"$c does not start: the network policy Incus holds for it is not enforced" \
	    -e match:"user.jailbee.egress_extra: an entry starts with '\+'" \
	    -e match:"correct that key \(incus config edit $c\)" \
	    jbo repo start gate
	atf_check incus config unset "$c" user.jailbee.egress_extra
	atf_check -e ignore jbo repo start gate
	route "$c"
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW 8081

	# deleted with the incus command: forgotten, its gate closed
	atf_check incus delete -f "$c"
	i=0
	while [ -e "$gate/$c" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "the gate of a deleted container stayed"
		sleep 0.1
	done
}
start_gate_cleanup() { cleanup; }

atf_test_case nft_refused cleanup
nft_refused_head() {
	atf_set descr "a failing nft transaction leaves the container" \
	    "strict: with the kernel made to refuse jb-netd's next" \
	    "transaction (test hook), net loose fails naming nftables and the" \
	    "container stays strict in ls, net status, the state file and for" \
	    "real packets; new fails the same way and leaves no container (N1," \
	    "N5)"
	atf_set require.user root
	atf_set timeout 300
}
nft_refused_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-ref
	hook=state/netd/testhook-refuse-nft
	atf_check -e match:"ready: $c" jbo repo new ref
	route "$c"
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080

	touch "$hook"
	atf_check -s not-exit:0 -e match:"$c stays strict" \
	    -e match:"nftables refused the transaction" \
	    -e match:"Could not process rule: No such file or directory" \
	    -e not-match:"loose for" jbo repo net loose --for 1m ref
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	atf_check -o match:"$c .*: strict" jbo repo net status ref
	atf_check -o match:"^$c +Running +strict +10\\.213\\." jbo repo ls
	atf_check -o match:"^$c [0-9.]+ strict 0 " cat state/netd/containers
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$c" $NH_WWW 8080
	# the hook fired once: the same command now goes through, so what
	# refused it was the transaction, not the command
	atf_check -e match:"loose for 1m" jbo repo net loose --for 1m ref
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$c" $NH_WWW2 8080
	atf_check -e ignore jbo repo net strict ref

	rm -f "$hook.fired"
	touch "$hook"
	c2=$(jb_prefix)-ref2
	atf_check -s not-exit:0 -e match:"cannot be enforced, so it is not created" \
	    -e match:"nftables refused the transaction" jbo repo new ref2
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	atf_check -o empty incus list -c n --format csv "^$c2\$"
	atf_check -s exit:1 grep "^$c2 " state/netd/containers
	# the table gives a verdict to the recorded containers, no other
	nft list map inet jailbee ctrs | tr ',{}' '\n\n\n' |
	    sed -n 's/^[[:space:]]*\([0-9.]*\) : .*/\1/p' | sort > ctrs.addrs
	awk '!/^#/ { print $2 }' state/netd/containers | sort > rec.addrs
	atf_check -o file:rec.addrs cat ctrs.addrs
	# the first container kept its policy through it all
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
}
nft_refused_cleanup() { cleanup; }

atf_test_case strict_refused cleanup
strict_refused_head() {
	atf_set descr "fail closed when the way back to strict is refused:" \
	    "a refused switch or revert is followed by a rebuild of the whole" \
	    "table with the container strict; when that is refused too, the" \
	    "container is stopped (by net strict, or by jailbeed at a loose" \
	    "deadline) and its state says strict (N5, N6)"
	atf_set require.user root
	atf_set timeout 300
}
strict_refused_body() {
	setup "$NH_WWW:8080"
	c=$(jb_prefix)-sr
	hook=state/netd/testhook-refuse-nft
	atf_check -e match:"ready: $c" jbo repo new sr
	route "$c"
	# the switch's delta refused: the rebuild makes it strict anyway
	atf_check -e ignore jbo repo net loose --no-revert sr
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_http "$c" $NH_WWW2 8080
	rm -f "$hook.fired"
	echo 1 > "$hook"
	atf_check -e match:"$c: strict; established connections cut" \
	    jbo repo net strict sr
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	grep -q "$c: the switch to strict was refused" jailbeed.log ||
	    atf_fail "jb-netd did not log the refused switch"
	atf_check -o match:"^$c [0-9.]+ strict 0 " cat state/netd/containers
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
	# the revert at the deadline refused: the rebuild reverts it
	atf_check -e ignore jbo repo net loose --for 2s sr
	rm -f "$hook.fired"
	echo 1 > "$hook"
	sleep 4
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	grep -q "the revert to strict was refused" jailbeed.log ||
	    atf_fail "jb-netd did not log the refused revert"
	atf_check -o match:"$c .*: strict" jbo repo net status sr
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$c" $NH_WWW2 8080
	# both refused: the container is stopped, written down strict
	atf_check -e ignore jbo repo net loose --no-revert sr
	rm -f "$hook.fired"
	echo 2 > "$hook"
	atf_check -s not-exit:0 -e match:"$c is stopped so it is not left open" \
	    -e match:"nftables refused the switch and the whole table" \
	    -e not-match:"strict; established" jbo repo net strict sr
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	atf_check -o inline:"STOPPED\n" incus list -c s --format csv "^$c\$"
	atf_check -o match:"^$c [0-9.]+ strict 0 " cat state/netd/containers
	# a revert whose rebuild is refused too: jailbeed stops it
	atf_check -e ignore jbo repo start sr
	atf_check -e match:"loose for 2s" jbo repo net loose --for 2s sr
	rm -f "$hook.fired"
	echo 2 > "$hook"
	i=0
	until [ "$(incus list -c s --format csv "^$c\$")" = STOPPED ]; do
		i=$((i + 1))
		[ $i -lt 20 ] || atf_fail "$c still runs after its deadline"
		sleep 0.5
	done
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	grep -q "$c: still loose in the kernel past its deadline" jailbeed.log ||
	    atf_fail "jb-netd did not log the stuck revert"
	atf_check -o match:"^$c [0-9.]+ strict 0 " cat state/netd/containers
	# only a container the kernel still lets out is stopped
	atf_check -s not-exit:0 -e match:"holds no policy" \
	    -e not-match:"stopped" jbo repo net strict nosuch
}
strict_refused_cleanup() { cleanup; }

# IPv6 on the bridge for one test: an address for the host on jbbr0 and
# a listener there, which nothing but the table keeps containers from
V6_NET=fd6a:6265:6500
V6_HOST=$V6_NET::1
V6_PORT=9606
# how a connection fails when it is not dropped but refused or unroutable
V6_NOTDROP="refused|unreachable|No such|not found|Cannot assign"

v6_up() {
	sysctl -qn net.ipv6.conf.jbbr0.disable_ipv6 > v6.disabled ||
	    atf_fail "no IPv6 settings for jbbr0"
	sysctl -qw net.ipv6.conf.jbbr0.disable_ipv6=0 ||
	    atf_fail "cannot enable IPv6 on jbbr0"
	ip -6 addr add "$V6_HOST/64" dev jbbr0 nodad ||
	    atf_fail "cannot add $V6_HOST to jbbr0"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(8)
while True:
	c, a = s.accept()
	c.sendall(b"v6 hello\n")
	c.close()
' "$V6_HOST" $V6_PORT > v6.log 2>&1 &
	echo $! > v6.pid
	i=0
	until bash -c "exec 3<>/dev/tcp/$V6_HOST/$V6_PORT" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the IPv6 listener never came up"
		sleep 0.1
	done
}

v6_down() {
	[ -f v6.pid ] && kill "$(cat v6.pid)" 2>/dev/null
	rm -f v6.pid
	ip -6 addr del "$V6_HOST/64" dev jbbr0 2>/dev/null
	if [ -f v6.disabled ]; then
		sysctl -qw net.ipv6.conf.jbbr0.disable_ipv6="$(cat v6.disabled)"
		rm -f v6.disabled
	fi
	v6_control_off
	return 0
}

# the table without its IPv6 drop, as a control: an accept before it
v6_control_on() {
	nft insert rule inet jailbee input iifname jbbr0 meta nfproto ipv6 \
	    accept comment '"net_test v6 control"' ||
	    atf_fail "cannot insert the control rule"
}
v6_control_off() {
	local h
	for h in $(nft -a list chain inet jailbee input 2>/dev/null |
	    sed -n 's/.*"net_test v6 control".*# handle \([0-9]*\)$/\1/p'); do
		nft delete rule inet jailbee input handle "$h"
	done
}

# container $1 gets an address on the bridge's IPv6 network
v6_ctr() {
	incus exec "$1" -- sh -c "echo 0 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6; \
	    echo 0 > /proc/sys/net/ipv6/conf/eth0/accept_dad; \
	    ip -6 addr add $V6_NET::$2/64 dev eth0" ||
	    atf_fail "cannot give $1 an IPv6 address"
}

# v6_connect C: from container C to the listener, over IPv6, for
# atf_check (a script: atf_check runs programs, not shell functions)
v6_tools() {
	cat > bin/v6_connect <<EOS
#!/bin/sh
exec in_ctr "\$1" timeout 4 bash -c \\
    "exec 3<>/dev/tcp/$V6_HOST/$V6_PORT && head -1 <&3"
EOS
	chmod 0755 bin/v6_connect
}

atf_test_case ipv6_dropped cleanup
ipv6_dropped_head() {
	atf_set descr "IPv6 from a strict or a loose container is dropped:" \
	    "with IPv6 on the bridge and a listener on the host's address" \
	    "there, no connection; the same connection works once the table's" \
	    "IPv6 drop is bypassed, so the drop is what refuses it (N10)"
	atf_set require.user root
	atf_set timeout 300
}
ipv6_dropped_body() {
	setup "$NH_WWW:8080"
	s=$(jb_prefix)-six
	l=$(jb_prefix)-sixl
	atf_check -e match:"ready: $s" jbo repo new six
	atf_check -e match:"ready: $l" jbo repo new sixl --net loose
	v6_tools
	v6_up
	v6_ctr "$s" 10
	v6_ctr "$l" 11
	# the host reaches its own listener
	atf_check -o inline:"v6 hello\n" python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), 3)
print(s.makefile().readline(), end="")' "$V6_HOST" $V6_PORT
	atf_check -s not-exit:0 -o empty -e not-match:"$V6_NOTDROP" \
	    v6_connect "$s"
	atf_check -s not-exit:0 -o empty -e not-match:"$V6_NOTDROP" \
	    v6_connect "$l"
	# control: without the drop, the same connections go through
	v6_control_on
	atf_check -o inline:"v6 hello\n" -e ignore v6_connect "$s"
	atf_check -o inline:"v6 hello\n" -e ignore v6_connect "$l"
	v6_control_off
	atf_check -s not-exit:0 -o empty -e not-match:"$V6_NOTDROP" \
	    v6_connect "$s"
	atf_check -s not-exit:0 -o empty -e not-match:"$V6_NOTDROP" \
	    v6_connect "$l"
}
ipv6_dropped_cleanup() {
	v6_down
	cleanup
}

atf_init_test_cases() {
	atf_add_test_case egress_overrides
	atf_add_test_case isolation
	atf_add_test_case spoof_refused
	atf_add_test_case ls_net
	atf_add_test_case loose_and_strict
	atf_add_test_case resolver
	atf_add_test_case strict_allowlist
	atf_add_test_case strict_anyport
	atf_add_test_case bad_entry
	atf_add_test_case fail_closed_restart
	atf_add_test_case empty_policy_recorded
	atf_add_test_case incus_holds_policy
	atf_add_test_case guest_cannot_write_policy
	atf_add_test_case follows_incus_events
	atf_add_test_case start_with_table
	atf_add_test_case start_gate
	atf_add_test_case nft_refused
	atf_add_test_case strict_refused
	atf_add_test_case ipv6_dropped
}
