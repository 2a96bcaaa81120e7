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
# Port forwards (FEATURES P1) on real containers of the users' image:
# a container service reached from the host's loopback (to-host), a host
# service reached from inside, past strict (to-container), host_ports
# attached at new and start and reconciled at apply, and the refusals.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	port_tools
}

cleanup() {
	for f in host_svc.pid listener.pid; do
		[ -f $f ] && kill "$(cat $f)" 2>/dev/null
	done
	jb_containers_cleanup
	jb_cleanup
	nh_down
	return 0
}

# the repo config: the prefix and image lib.sh gives, plus what is given
config() {
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$(jb_prefix)" "$JB_IMAGE"
		cat
	} > repo/.jailbee/config.yaml
	chown $JB_OWNER repo/.jailbee/config.yaml
}

# host_svc TEXT: a host service on 127.0.0.1 that sends TEXT to each
# connection; its port goes to ./host_svc.port
port_tools() {
	cat > bin/host_svc <<'EOS'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
with open("host_svc.port", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
while True:
    c, _ = s.accept()
    c.sendall((sys.argv[1] + "\n").encode())
    c.close()
EOS
	# ctr_get C PORT: the first line a service at 127.0.0.1:PORT in C sends
	cat > bin/ctr_get <<'EOS'
#!/bin/sh
exec in_ctr "$1" sh -c "l=\$(nc -w 3 127.0.0.1 $2 < /dev/null | head -n 1); [ -n \"\$l\" ] || exit 1; echo \"\$l\""
EOS
	# host_get PORT: the same from the host's loopback
	cat > bin/host_get <<'EOS'
#!/bin/bash
exec timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && head -n 1 <&3"
EOS
	chmod 0755 bin/ctr_get bin/host_get
}

host_svc() {
	rm -f host_svc.port
	python3 bin/host_svc "$1" > /dev/null 2>&1 &
	echo $! > host_svc.pid
	i=0
	until [ -s host_svc.port ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the host service never came up"
		sleep 0.1
	done
	cat host_svc.port
}

# ctr_listen C PORT TEXT: a service in C sending TEXT, until the test ends
ctr_listen() {
	incus exec "$1" -- sh -c "while :; do echo $3 | nc -l -p $2; done" \
	    > /dev/null 2>&1 &
	echo $! > listener.pid
	i=0
	until incus exec "$1" -- sh -c "nc -z 127.0.0.1 $2" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the listener in $1 never came up"
		sleep 0.1
	done
}

atf_test_case to_host cleanup
to_host_head() {
	atf_set descr "port to-host: a container service reached from the" \
	    "host's 127.0.0.1 on an auto port, two autos get two ports, listed" \
	    "by port ls as bypassing the filter; a second one is refused; port" \
	    "rm takes it away (P1)"
	atf_set require.user root
	atf_set timeout 300
}
to_host_body() {
	setup
	p=$(jb_prefix)
	atf_check -o ignore -e match:"ready: $p-t" jbo repo new t
	ctr_listen $p-t 9000 hi-from-ctr
	atf_check -e match:"$p-t: forward port-th-tcp-9000: host 127\\.0\\.0\\.1:2[0-9]{4} -> container 127\\.0\\.0\\.1:9000/tcp" \
	    jbo repo port to-host t 9000 --host-port auto
	atf_check -e match:"forward port-th-tcp-9001: host 127\\.0\\.0\\.1:2[0-9]{4}" \
	    jbo repo port to-host t 9001 --host-port auto
	jbo repo port ls t -o json > ls.json || atf_fail "port ls -o json failed"
	hp=$(jq -er '.ports[] | select(.device == "port-th-tcp-9000") |
	    .host_port' ls.json) || atf_fail "no host port in $(cat ls.json)"
	hp2=$(jq -er '.ports[] | select(.device == "port-th-tcp-9001") |
	    .host_port' ls.json) || atf_fail "no host port in $(cat ls.json)"
	[ "$hp" -ge 20000 ] && [ "$hp" -le 29999 ] ||
	    atf_fail "auto took $hp, outside 20000-29999"
	[ "$hp" != "$hp2" ] || atf_fail "two autos took one port, $hp"
	atf_check -o inline:"true\n" jq -r '.ports[0].bypasses_filter' ls.json
	atf_check -o inline:"hi-from-ctr\n" host_get $hp
	atf_check -o match:"^$p-t +port-th-tcp-9000 +to-host +tcp +127\\.0\\.0\\.1:9000 +127\\.0\\.0\\.1:$hp +bypassed" \
	    jbo repo port ls t
	# the whole repo's, without NAME
	atf_check -o match:"port-th-tcp-9001" jbo repo port ls
	atf_check -s exit:1 -e match:"already has a forward port-th-tcp-9000" \
	    jbo repo port to-host t 9000
	atf_check -e match:"$p-t: forward port-th-tcp-9000 removed" \
	    jbo repo port rm 9000 t
	atf_check -o not-match:"port-th-tcp-9000" jbo repo port ls t
	atf_check -s not-exit:0 -o empty -e ignore host_get $hp
	atf_check -e match:"forward port-th-tcp-9001 removed" \
	    jbo repo port rm port-th-tcp-9001 t
	atf_check -o inline:"no port forwards\n" jbo repo port ls t
}
to_host_cleanup() { cleanup; }

atf_test_case to_container cleanup
to_container_head() {
	atf_set descr "port to-container: a host service on 127.0.0.1" \
	    "reached inside; a test host strict refuses reached through a" \
	    "forward named by --host-address, with the warning, while the" \
	    "filter still refuses it directly (P1)"
	atf_set require.user root
	atf_set timeout 300
}
to_container_body() {
	setup
	nh_up "$BR_NET"
	p=$(jb_prefix)
	atf_check -o ignore -e match:"ready: $p-c" jbo repo new c
	jb_routed $p-c
	hs=$(host_svc from-the-host)
	atf_check -s not-exit:0 -o empty -e ignore ctr_get $p-c $hs
	atf_check -e match:"forward port-tc-tcp-$hs: container 127\\.0\\.0\\.1:$hs -> host 127\\.0\\.0\\.1:$hs/tcp \\(it bypasses the network filter\\)" \
	    -e not-match:warning jbo repo port to-container c $hs
	atf_check -o inline:"from-the-host\n" ctr_get $p-c $hs
	# strict: the test host is refused ...
	atf_check -s not-exit:0 -o empty -e ignore in_ctr $p-c sh -c \
	    "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 $NH_WWW 8080"
	# ... but not through a forward
	atf_check -e match:"warning: the forward connects to a host address that is not loopback" \
	    -e match:"forward port-tc-tcp-18080: container 127\\.0\\.0\\.1:18080 -> host $NH_WWW:8080/tcp" \
	    jbo repo port to-container c 18080 --host-address $NH_WWW \
	    --host-port 8080
	atf_check -o match:"hello 8080" in_ctr $p-c sh -c \
	    "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 127.0.0.1 18080"
	atf_check -s not-exit:0 -o empty -e ignore in_ctr $p-c sh -c \
	    "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 $NH_WWW 8080"
	atf_check -o match:"port-tc-tcp-18080 +to-container +tcp +127\\.0\\.0\\.1:18080 +$NH_WWW:8080 +bypassed" \
	    jbo repo port ls c
}
to_container_cleanup() { cleanup; }

atf_test_case host_ports cleanup
host_ports_head() {
	atf_set descr "host_ports: attached at new and reached inside;" \
	    "port rm says the config brings it back, apply and start do;" \
	    "apply removes one the config no longer declares (P1)"
	atf_set require.user root
	atf_set timeout 600
}
host_ports_body() {
	setup
	p=$(jb_prefix)
	hs=$(host_svc from-the-host)
	config <<EOC
host_ports:
  - name: svc
    port: 15000
    host_port: $hs
EOC
	atf_check -o ignore \
	    -e match:"$p-h: forward port-cfg-svc: container 127\\.0\\.0\\.1:15000 -> host 127\\.0\\.0\\.1:$hs/tcp \\(host_ports; it bypasses the network filter\\)" \
	    -e match:"ready: $p-h" jbo repo new h
	atf_check -o inline:"from-the-host\n" ctr_get $p-h 15000
	atf_check -e match:"forward port-cfg-svc removed; host_ports declares it: the next start or apply attaches it again" \
	    jbo repo port rm svc h
	atf_check -s not-exit:0 -o empty -e ignore ctr_get $p-h 15000
	atf_check -e match:"forward port-cfg-svc: container 127\\.0\\.0\\.1:15000" \
	    jbo repo apply h
	atf_check -o inline:"from-the-host\n" ctr_get $p-h 15000
	# apply again: nothing to do
	atf_check -e not-match:"port-cfg" jbo repo apply h
	# start: the one it lacks comes back
	atf_check -e ignore jbo repo port rm svc h
	atf_check -e ignore jbo repo stop h
	atf_check -e match:"forward port-cfg-svc: container 127\\.0\\.0\\.1:15000" \
	    jbo repo start h
	atf_check -o match:"^port-cfg-svc\$" incus config device list $p-h
	# declared otherwise: replaced; no longer declared: removed
	config <<EOC
host_ports:
  - name: svc
    port: 15001
    host_port: $hs
EOC
	atf_check -e match:"port-cfg-svc: changed in host_ports: replaced" \
	    -e match:"forward port-cfg-svc: container 127\\.0\\.0\\.1:15001" \
	    jbo repo apply h
	config < /dev/null
	atf_check -e match:"port-cfg-svc: no longer in host_ports: removed" \
	    jbo repo apply h
	atf_check -o not-match:"port-cfg" incus config device list $p-h
}
host_ports_cleanup() { cleanup; }

atf_test_case refusals cleanup
refusals_head() {
	atf_set descr "bad ports, addresses and handles are refused with what" \
	    "to do, and nothing is attached; a config host_ports entry with a" \
	    "name for an address is refused naming file and line; a to-host" \
	    "forward off loopback is taken with its warning (P1)"
	atf_set require.user root
	atf_set timeout 300
}
refusals_body() {
	setup
	p=$(jb_prefix)
	atf_check -o ignore -e match:"ready: $p-r" jbo repo new r
	atf_check -s exit:1 -e match:"host port 80 is privileged: give --host-port N \\(1024 or above\\) or --host-port auto" \
	    jbo repo port to-host r 80
	atf_check -s exit:1 -e match:"port to-host: port \"0\": expected a number from 1 to 65535" \
	    jbo repo port to-host r 0
	atf_check -s exit:1 -e match:"port to-container: --host-port \"auto\": expected a number from 1 to 65535\$" \
	    jbo repo port to-container r 5432 --host-port auto
	atf_check -s exit:1 -e match:"--host-address \"localhost\": expected an IPv4 address literal such as 127.0.0.1" \
	    jbo repo port to-container r 5432 --host-address localhost
	atf_check -s exit:1 -e match:"--container-address \"::1\": expected an IPv4 address literal" \
	    jbo repo port to-host r 8080 --container-address ::1
	atf_check -s exit:1 -e match:"$p-r has no forward \"4242\"" \
	    jbo repo port rm 4242 r
	atf_check -o inline:"no port forwards\n" jbo repo port ls r
	atf_check -e match:"warning: the forward listens on a host address that is not loopback" \
	    -e match:"forward port-th-tcp-8080: host 0\\.0\\.0\\.0:28080 -> container 127\\.0\\.0\\.1:8080/tcp" \
	    jbo repo port to-host r 8080 --host-port 28080 --host-address 0.0.0.0
	# 8080 names a to-host and, now, a to-container forward: ambiguous
	atf_check -e ignore jbo repo port to-container r 8080 --host-port 28081
	atf_check -s exit:1 -e match:"\"8080\" names 2 forwards of $p-r" \
	    jbo repo port rm 8080 r
	config <<EOC
host_ports:
  - name: db
    port: 5432
    host_address: localhost
EOC
	atf_check -s exit:1 -e match:"config.yaml:7: host_ports\\[0\\]\\.host_address: expected an IPv4 address literal" \
	    jbo repo config validate
}
refusals_cleanup() { cleanup; }

atf_test_case net_status cleanup
net_status_head() {
	atf_set descr "net status tells the boundary: without NAME every" \
	    "container of the repo, with --all every one; mode, each allow" \
	    "entry and its origin, the addresses admitted for an allowed" \
	    "name and until when, every forward with 'bypasses the network" \
	    "filter'; the same in -o json (N8, P2)"
	atf_set require.user root
	atf_set timeout 600
}
net_status_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	setup
	nh_up "$BR_NET"
	p=$(jb_prefix)
	config <<EOC
egress_allow:
  - "www.test:8080"
EOC
	atf_check -o ignore -e match:"ready: $p-s1" jbo repo new s1
	atf_check -o ignore -e match:"ready: $p-s2" jbo repo new s2
	atf_check -e ignore jbo repo net egress add 198.19.2.10:7 s2
	ctr_listen $p-s1 9000 hi
	atf_check -e ignore jbo repo port to-host s1 9000 --host-port 29000
	atf_check -o match:"www.test: answered" -e ignore \
	    jbo repo net refresh s1
	jbo repo net status > all.txt || atf_fail "net status failed"
	atf_check -o match:"^$p-s1 10\.[0-9.]+: strict\$" \
	    -o match:"^$p-s2 10\.[0-9.]+: strict\$" \
	    -o match:"^  allow www\.test:8080 \(config\): kernel, by the addresses the resolver gave\$" \
	    -o match:"^  allow 198\.19\.2\.10:7 \(container\): kernel, by address\$" \
	    -o match:"^  admitted www\.test $NH_WWW until [0-9-]+ [0-9:]+Z\$" \
	    -o match:"^  forward port-th-tcp-9000 to-host 127\.0\.0\.1:29000 -> 127\.0\.0\.1:9000/tcp: bypasses the network filter\$" \
	    cat all.txt
	# the forward is listed under its own container only
	atf_check -o inline:"1\n" grep -c "forward" all.txt
	jbo repo net status -o json > st.json || atf_fail "-o json failed"
	atf_check -o inline:"2\n" jq '.containers | length' st.json
	atf_check -o inline:"strict\n" \
	    jq -r ".containers[] | select(.name == \"$p-s1\") | .mode" st.json
	atf_check -o inline:"$NH_WWW\n" jq -r ".containers[] |
	    select(.name == \"$p-s1\") | .admitted[] |
	    select(.name == \"www.test\") | .address" st.json
	now=$(date +%s)
	until=$(jq -r ".containers[] | select(.name == \"$p-s1\") |
	    .admitted[0].until" st.json)
	[ "$until" -gt "$now" ] || atf_fail "admitted until $until, not after $now"
	atf_check -o inline:"29000 true\n" jq -r ".containers[] |
	    select(.name == \"$p-s1\") | .forwards[0] |
	    \"\\(.host_port) \\(.bypasses_filter)\"" st.json
	atf_check -o inline:"container\n" jq -r ".containers[] |
	    select(.name == \"$p-s2\") | .allow[] |
	    select(.entry == \"198.19.2.10:7\") | .origin" st.json
	# one container by NAME; every one with --all; never both
	atf_check -o match:"^$p-s2 " -o not-match:"^$p-s1 " \
	    jbo repo net status s2
	atf_check -o match:"^$p-s1 " -o match:"^$p-s2 " jbo / net status --all
	atf_check -s exit:1 -e match:"--all and NAME exclude each other" \
	    jbo repo net status --all s1
	atf_check -s exit:1 -e match:"no JailBee checkout here: name a container, give --all" \
	    jbo / net status
	# loose shows its time left
	atf_check -e ignore jbo repo net loose --for 1m s2
	atf_check -o match:"^$p-s2 [0-9.]+: loose, strict again in (59|60)s\$" \
	    jbo repo net status s2
}
net_status_cleanup() { cleanup; }

atf_test_case refused_names cleanup
refused_names_head() {
	atf_set descr "net log counts each name the resolver refused, with" \
	    "first and last; --since narrows it; net suggest prints the" \
	    "egress_allow lines, which pasted into the config let the names" \
	    "through after apply (B6, names only)"
	atf_set require.user root
	atf_set timeout 600
}
refused_names_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	setup
	nh_up "$BR_NET"
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	p=$(jb_prefix)
	config <<EOC
egress_allow:
  - "www.test:8080"
EOC
	atf_check -o ignore -e match:"ready: $p-n" jbo repo new n
	# what the image asks as it boots is its own business: not these
	atf_check -o not-match:"other\.test|wild\.test" jbo repo net log n
	atf_check -o not-match:"other\.test|wild\.test" jbo repo net suggest n
	for i in 1 2; do
		atf_check -o match:"^id 4096 NXDOMAIN$" \
		    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS Other.Test
	done
	atf_check -o match:"^id 4096 NXDOMAIN$" \
	    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS wild.test
	atf_check -o match:"^A $NH_WWW " \
	    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS www.test
	atf_check -o match:"^dns +other\.test +2 [0-9-]+ [0-9:]+Z +[0-9-]+ [0-9:]+Z\$" \
	    -o match:"^dns +wild\.test +1 " -o not-match:"www\.test" \
	    jbo repo net log n
	jbo repo net log n -o json > log.json || atf_fail "net log -o json"
	atf_check -o inline:"2\n" jq -r '.refused[] |
	    select(.refused == "other.test") | .count' log.json
	atf_check -o match:"wild\.test" jbo repo net log --since 5m n
	atf_check -s exit:1 -e match:"--since" jbo repo net log --since 1y n
	jbo repo net suggest n > suggest.txt || atf_fail "net suggest failed"
	atf_check -o match:"^egress_allow:\$" -o match:"^  - \"other\.test\"\$" \
	    -o match:"^  - \"wild\.test\"\$" -o not-match:"www\.test" \
	    cat suggest.txt
	# pasted into the config, in force after apply: the names resolve,
	# and www.test, no longer in the config, is refused
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$p" "$JB_IMAGE"
		cat suggest.txt
	} > repo/.jailbee/config.yaml
	atf_check -e match:"$p-n: egress_allow applied \\([0-9]+ entr" \
	    jbo repo apply n
	atf_check -o match:"^A " \
	    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS other.test
	atf_check -o match:"^id 4096 NXDOMAIN$" \
	    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS www.test
	atf_check -o match:"allow other\.test \(config\)" \
	    -o not-match:"allow www\.test" jbo repo net status n
}
refused_names_cleanup() { cleanup; }

atf_test_case refused_conns cleanup
refused_conns_head() {
	atf_set descr "net log counts each connection attempt the strict" \
	    "chain refused (address:port/proto, count, first and last) and no" \
	    "admitted one; net suggest prints the entry, by name when the" \
	    "resolver answered the address for one, else by address; pasted" \
	    "into the config they let the attempts through after apply; the" \
	    "journal sums them up"
	atf_set require.user root
	atf_set timeout 600
}
refused_conns_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	setup
	nh_up "$BR_NET"
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	p=$(jb_prefix)
	config <<EOC
egress_allow:
  - "www.test:8080"
EOC
	atf_check -o ignore -e match:"ready: $p-n" jbo repo new n
	jb_routed $p-n
	# www.test answered by the resolver: its address is known by name
	atf_check -o match:"^A $NH_WWW " \
	    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS www.test
	# admitted: never counted
	atf_check -o ignore -e ignore in_ctr $p-n nc -z -w 3 $NH_WWW 8080
	# refused, each attempt at once (a reset) and with nc's reason
	for i in 1 2 3; do
		atf_check -s exit:1 -e match:"refused" \
		    in_ctr $p-n nc -v -z -w 3 $NH_WWW 8081
	done
	for i in 1 2; do
		atf_check -s exit:1 -e match:"refused" \
		    in_ctr $p-n nc -v -z -w 3 $NH_WWW2 8080
	done
	atf_check -o ignore -e ignore -s ignore \
	    in_ctr $p-n sh -c "echo x | nc -u -w 1 $NH_ECHO 9999"
	jbo repo net log n > log.txt || atf_fail "net log failed"
	# jb-netd read and emptied the kernel's sets without a complaint
	atf_check -s exit:1 grep "refused flows" jailbeed.log
	atf_check -o match:"^conn +$NH_WWW:8081/tcp +[3-9] [0-9-]+ [0-9:]+Z +[0-9-]+ [0-9:]+Z\$" \
	    -o match:"^conn +$NH_WWW2:8080/tcp +[2-9] " \
	    -o match:"^conn +$NH_ECHO:9999/udp +[1-9]" \
	    -o not-match:"$NH_WWW:8080/" cat log.txt
	jbo repo net log n -o json > log.json || atf_fail "net log -o json"
	atf_check -o match:"^[3-9]\$" jq -r ".refused[] |
	    select(.refused == \"$NH_WWW:8081/tcp\") | .count" log.json
	atf_check -o inline:"conn www.test:8081\n" jq -r ".refused[] |
	    select(.refused == \"$NH_WWW:8081/tcp\") | .kind + \" \" + .allow" \
	    log.json
	atf_check -o match:"^[0-9]+ [0-9]+ true\$" jq -r ".refused[] |
	    select(.refused == \"$NH_WWW2:8080/tcp\") |
	    \"\(.first) \(.last) \(.first <= .last)\"" log.json
	atf_check -o match:"$NH_WWW:8081" jbo repo net log --since 5m n
	jbo repo net suggest n > suggest.txt || atf_fail "net suggest failed"
	atf_check -o match:"^egress_allow:\$" \
	    -o match:"^  - \"www\.test:8081\"\$" \
	    -o match:"^  - \"$NH_WWW2:8080\"\$" \
	    -o match:"^  - \"$NH_ECHO:9999/udp\"\$" \
	    -o not-match:"www\.test:8080|$NH_WWW:" cat suggest.txt
	# the journal sums them up within a summary period
	i=0
	until jbo repo audit --action net.conn-refused 2>/dev/null |
	    grep -q "net.conn-refused $p-n refuse"; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "no net.conn-refused in the journal"
		sleep 0.1
	done
	# pasted into the config with the entry it had, in force after apply
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$p" "$JB_IMAGE"
		cat suggest.txt
		printf '  - "www.test:8080"\n'
	} > repo/.jailbee/config.yaml
	atf_check -e match:"$p-n: egress_allow applied \\([0-9]+ entr" \
	    jbo repo apply n
	atf_check -o match:"^A $NH_WWW " \
	    ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS www.test
	atf_check -o ignore -e ignore in_ctr $p-n nc -z -w 3 $NH_WWW 8081
	atf_check -o ignore -e ignore in_ctr $p-n nc -z -w 3 $NH_WWW2 8080
	# the /udp entry passes real datagrams both ways; the test host's
	# other UDP port, which answers the same, stays refused
	atf_check -o inline:"udp 9999: pasted\n" -e ignore \
	    in_ctr $p-n sh -c "echo pasted | nc -u -w 2 $NH_ECHO 9999"
	grep -q "^udp 9999 got pasted\$" nethosts.log ||
	    atf_fail "the datagram to $NH_ECHO:9999 never arrived"
	atf_check -s ignore -o empty -e ignore \
	    in_ctr $p-n sh -c "echo other | nc -u -w 2 $NH_ECHO 9998"
	grep -q "^udp 9998 got" nethosts.log &&
	    atf_fail "a datagram to $NH_ECHO:9998 went through"
	# the host does answer on 9998: what stopped it was the allowlist
	atf_check -o inline:"udp 9998: direct\n" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.sendto(b"direct\n", (sys.argv[1], 9998))
sys.stdout.write(s.recv(100).decode())' $NH_ECHO
}
refused_conns_cleanup() { cleanup; }

atf_test_case refused_set_memory cleanup
refused_set_memory_head() {
	atf_set descr "jb-netd reads a full kernel set of refused flows" \
	    "(one SYN to each of 9000 ports, more than the 8192 it holds)" \
	    "and counts them without its memory peaking above 16 MB"
	atf_set require.user root
	atf_set timeout 300
}
refused_set_memory_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	setup
	nh_up "$BR_NET"
	cc -static -O2 -Wall -Wextra -Werror -o connflood \
	    "$(atf_config_get srcdir)/regress/bench/connflood.c" ||
	    atf_fail "cannot build connflood (cc -static needs libc6-dev)"
	p=$(jb_prefix)
	config < /dev/null
	atf_check -o ignore -e match:"ready: $p-n" jbo repo new n
	jb_routed $p-n
	atf_check -o match:"^sent 9000 " \
	    ctr_netns $p-n "$(pwd)/connflood" $NH_WWW2 20000 9000
	# net log has jb-netd read and empty the kernel's set first
	jbo repo net log n -o json > log.json || atf_fail "net log failed"
	n=$(jq '[.refused[] | select(.kind == "conn")] | length' log.json)
	[ "$n" -ge 4000 ] || atf_fail "net log counted $n refused ports of" \
	    "9000: the set was not read"
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$(jb_pid jb-netd)/status")
	[ "$hwm" -le 16384 ] || atf_fail "jb-netd peaked at $hwm kB reading" \
	    "a full set of refused flows (the bound is 16384 kB)"
	# and it said nothing about the read
	atf_check -s exit:1 grep "refused flows" jailbeed.log
}
refused_set_memory_cleanup() { cleanup; }

atf_init_test_cases() {
	atf_add_test_case to_host
	atf_add_test_case to_container
	atf_add_test_case host_ports
	atf_add_test_case refusals
	atf_add_test_case net_status
	atf_add_test_case refused_names
	atf_add_test_case refused_conns
	atf_add_test_case refused_set_memory
}
