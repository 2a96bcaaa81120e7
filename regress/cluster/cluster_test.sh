#! /usr/bin/env atf-sh
#
# Copyright (c) 2026 The JailBee authors
#
# Permission to use, copy, modify, and distribute this software for any
# purpose with or without fee is hereby granted, provided that the above
# copyright notice and this permission notice appear in all copies.
#
# THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
#
# cluster_test: the suite on a three-member Incus cluster made on this
# machine by regress/cluster/up (make cluster-check).  Each member's
# jb-netd enforces exactly the suite's containers Incus places on it.

. "$(atf_get_srcdir)/lib.sh"

WWW=198.18.1.10

cl_up() {
	JB_BUILD=$(atf_config_get build) JB_IMAGE=$(atf_config_get image) \
	    "$(atf_config_get srcdir)/regress/cluster/up" > up.out 2>&1 || {
		cat up.out >&2
		atf_fail "regress/cluster/up failed"
	}
	# the bring-up's times, for make cluster-check to show
	cp up.out "$(atf_config_get build)/cluster-up.out"
	cat up.out
}

cl_down() {
	"$(atf_config_get srcdir)/regress/cluster/down" || {
		echo "regress/cluster/down left something behind" >&2
		return 1
	}
}

# commands atf_check can run: the helpers of lib.sh as programs
cl_tools() {
	mkdir -p bin
	for f in jbcl_incus jbcl_ctl jbcl_http jbo1; do
		cat > "bin/$f" <<EOS
#!/bin/sh
JBCL_DIR=$JBCL_DIR
. "$(atf_get_srcdir)/lib.sh"
$f "\$@"
EOS
		chmod 0755 "bin/$f"
	done
	PATH=$(pwd)/bin:$PATH
	export PATH
}

# a checkout owned by the suite's owner (as lib.sh's jb_repo makes
# one): branch feat, its containers from the suite's image, allowed
# www.test:8080
cl_repo() {
	r=$(pwd)/repo
	mkdir -p "$r"
	git -C "$r" init -q -b main
	git -C "$r" config user.email t@example.org
	git -C "$r" config user.name test
	echo one > "$r/file"
	git -C "$r" add file
	git -C "$r" commit -q -m one
	git -C "$r" branch feat
	git -C "$r" branch late
	git -C "$r" branch p1
	git -C "$r" branch p2
	mkdir -p "$r/.jailbee"
	printf 'container_prefix: jbcl%s\nbase:\n  alias: %s\negress_allow:\n  - "www.test:8080"\n' \
	    "$$" "$(atf_config_get image)" > "$r/.jailbee/config.yaml"
	chown -R "$JBCL_OWNER:$(id -gn "$JBCL_OWNER")" "$r"
	chmod 0755 "$(pwd)"
}

# a refusal is prompt (the kernel's reject), not a timeout
ctr_refused() {
	t0=$(date +%s%N)
	if jbcl_http "$@" > out.http 2> err.http; then
		cat out.http
		atf_fail "$2 reached $3:$4, which its policy refuses"
	fi
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	grep -q refused err.http || { cat err.http >&2;
	    atf_fail "$2 to $3:$4: not refused (no 'refused' in nc's error)"; }
	[ $ms -lt 2000 ] || atf_fail "$2 to $3:$4: refused after ${ms}ms"
}

# the container's default route came from DHCP (the image's client)
ctr_routed() {
	i=0
	until jbcl_incus "$1" exec "$2" -- ip -4 route show default 2>/dev/null |
	    grep -q default; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "$2 has no default route after 20 s"
		sleep 0.2
	done
}

# the test hosts answer the containers of member N (the same subnet on
# every member: the route goes to the member under test)
inet_to() {
	ip -n "$JBCL_INET" route replace "$JBCL_SUBNET" via "10.250.0.$1" ||
	    atf_fail "cannot route the test hosts to m$1"
}

# member N's jb-netd holds C in MODE (strict, loose) or not at all
# (gone) within $4 tenths of a second (default 50)
wait_netd() {
	f=$JBCL_DIR/m$1/state/netd/containers
	i=0
	while :; do
		case $3 in
		gone)	grep -qs "^$2 " "$f" || return 0 ;;
		*)	grep -qs "^$2 [0-9.]* $3 " "$f" && return 0 ;;
		esac
		i=$((i + 1))
		[ $i -lt "${4:-50}" ] || { grep -s "^$2 " "$f";
		    atf_fail "$2 is not $3 in m$1's jb-netd"; }
		sleep 0.1
	done
}

# member N's jb-netd holds override E (+ENTRY) for C, or none ("")
wait_extra() {
	f=$JBCL_DIR/m$1/state/netd/containers
	i=0
	while :; do
		case $3 in
		"")	grep -qs "^$2 .* +" "$f" || return 0 ;;
		*)	grep -qs "^$2 .* $3\( \|\$\)" "$f" && return 0 ;;
		esac
		i=$((i + 1))
		[ $i -lt 50 ] || { grep -s "^$2 " "$f";
		    atf_fail "m$1's jb-netd: $2's overrides are not \"$3\""; }
		sleep 0.1
	done
}

# Table inet jailbee keys a container by its address (its verdict in map
# ctrs, its elements in the shared sets).  cl_addr C: C's address as
# Incus gives it, or as it last gave it (the container may be gone
# since); nothing if it never had one.
cl_addr() {
	_a=$(jbcl_incus 1 config device get "$1" eth0 ipv4.address 2>/dev/null)
	[ -z "$_a" ] || echo "$_a" > "addr.$1"
	cat "addr.$1" 2>/dev/null
}

# what member N's table inet jailbee holds of its containers: map ctrs
# and the sets keyed by address (not the counts of refused flows)
cl_policy() {
	jbcl_in "$1" sh -c 'nft list map inet jailbee ctrs
	    for s in strictdns allow allowany static staticany; do
		nft list set inet jailbee $s; done
	    nft list map inet jailbee gwctrs 2>/dev/null; true'
}

# member N's table inet jailbee holds nothing of C's address, its jb-netd
# no line for it
not_held() {
	a=$(cl_addr "$2")
	re=$(printf '%s' "$a" | sed 's/\./\\./g')
	if [ -n "$a" ] && cl_policy "$1" |
	    grep -Eq "(^|[^0-9.])$re([^0-9./]|\$)"; then
		cl_policy "$1" | grep -E "$re" >&2
		atf_fail "m$1's table inet jailbee holds $2 ($a)"
	fi
	! grep -qs "^$2 " "$JBCL_DIR/m$1/state/netd/containers" ||
	    atf_fail "m$1's jb-netd keeps a policy for $2"
}

# member N's map ctrs sends C's address to chain strict
held() {
	a=$(cl_addr "$2")
	[ -n "$a" ] || atf_fail "Incus gives $2 no address"
	re=$(printf '%s' "$a" | sed 's/\./\\./g')
	v=$(jbcl_in "$1" nft list map inet jailbee ctrs | tr ',{}' '\n\n\n' |
	    sed -n "s/^[[:space:]]*$re : \([^[:space:]].*[^[:space:]]\)[[:space:]]*$/\1/p")
	[ "$v" = "jump strict" ] ||
	    atf_fail "m$1's table inet jailbee gives $2 ($a) \"$v\", not chain strict"
}

atf_test_case enforced_where_it_runs cleanup
enforced_where_it_runs_head() {
	atf_set descr "a container new --target m2 typed on m1 makes is" \
	    "enforced strict by m2's jb-netd alone (real packets: an allowed name passes, another" \
	    "port is refused); net log, suggest and refresh typed on m1 are" \
	    "answered by m2's suite through Incus and leave nothing there;" \
	    "a request no event announced is answered too;" \
	    "net loose --for 5s typed on m1 turns it loose" \
	    "on m2 and it reverts there; net egress add/rm typed on m1 is" \
	    "checked on m1 and applied on m2; a commit made in it on m2 comes home" \
	    "by git fetch typed on m1; moved to m3 it is strict on arrival" \
	    "and m2 forgets it; destroyed from m1, no member keeps anything;" \
	    "new without --target placed on the member with the fewest" \
	    "instances and strict there; a member evacuated, its container" \
	    "strict on arrival where Incus starts it again;" \
	    "placed on a member whose suite is not running, never started (issue 33" \
	    "items 2, 3, 4, 5)"
	atf_set require.user root
	atf_set timeout 600
}
enforced_where_it_runs_body() {
	cl_tools
	cl_up
	cl_repo
	c=jbcl$$-feat

	# typed on m1, placed on m2
	inet_to 2
	atf_check -o ignore -e match:"ready: $c at 10.213.0." \
	    -e match:"network: strict, 1 egress_allow entry" \
	    jbo1 "$(pwd)/repo" new feat --target m2
	atf_check -o inline:"m2\n" jbcl_incus 1 list "$c" -c L -f csv
	wait_netd 2 "$c" strict
	held 2 "$c"
	# m1 held it while new made it, and no longer; m3 never did
	not_held 1 "$c"
	not_held 3 "$c"
	ctr_routed 1 "$c"
	atf_check -o match:"^HTTP/1.0 200" jbcl_http 1 "$c" www.test 8080
	ctr_refused 1 "$c" "$WWW" 8081

	# net log, suggest and refresh typed on m1 need m2's jb-netd: m1's
	# suite leaves the request in m2's configuration, m2's suite answers
	# there, and m1 prints the answer and takes both out
	atf_check -o match:"^conn +$WWW:8081/tcp +[1-9]" \
	    -e match:"$c runs on cluster member m2: asking its suite" \
	    jbcl_ctl 1 net log "$c"
	atf_check -s exit:1 -e match:"net log: --since: .*1y" \
	    jbcl_ctl 1 net log --since 1y "$c"
	atf_check -o match:"^egress_allow:\$" \
	    -o match:"^  - \"($WWW|www\.test):8081\"\$" -e ignore \
	    jbcl_ctl 1 net suggest "$c"
	atf_check -o match:"www\.test: answered" -e ignore \
	    jbcl_ctl 1 net refresh "$c"
	# (m1 takes the answer out as it prints it)
	i=0
	while jbcl_incus 1 cluster show m2 | grep -q jailbee; do
		i=$((i + 1))
		[ $i -lt 25 ] || atf_fail "m2's configuration still holds" \
		    "$(jbcl_incus 1 cluster show m2 | grep jailbee)"
		sleep 0.2
	done
	# what m2 answered was m2's own: its log says it was asked
	grep -q "cluster mailbox: m1 asks for net log $c" "$JBCL_DIR/m2/jailbeed.log" ||
	    atf_fail "m2's suite did not answer m1's net log"
	# a request no event announces (written into Incus's database, as
	# when the writer's events do not reach m2 yet) is answered all
	# the same: m2 reads its mailbox every few seconds too
	id="m3.$(date +%s).77"
	jbcl_incus 1 admin sql global "INSERT INTO nodes_config (node_id, key, value) SELECT id, 'user.jailbee.ask.$id', 'log $c' FROM nodes WHERE name = 'm2'" > /dev/null ||
	    atf_fail "cannot write a request into Incus's database"
	i=0
	until jbcl_incus 1 cluster get m2 "user.jailbee.answer.$id" \
	    2>/dev/null | grep -q "8081/tcp"; do
		i=$((i + 1))
		[ $i -lt 75 ] || atf_fail "m2 did not answer within 15 s a" \
		    "request no event announced: $(jbcl_incus 1 cluster show m2 | grep jailbee)"
		sleep 0.2
	done
	grep -q "cluster mailbox: m3 asks for net log $c" "$JBCL_DIR/m2/jailbeed.log" ||
	    atf_fail "m2's log does not say m3's request was carried out"
	atf_check -s not-exit:0 -e match:"does not exist" jbcl_incus 1 \
	    cluster get m2 "user.jailbee.ask.$id"
	atf_check jbcl_incus 1 cluster unset m2 "user.jailbee.answer.$id"

	# typed on m1, enforced on m2, reverted on m2
	atf_check -o ignore -e match:"$c: loose for 5s, then strict again" \
	    -e match:"cluster member m2, which runs it, enforces it" \
	    jbcl_ctl 1 net loose "$c" --for 5s
	wait_netd 2 "$c" loose
	atf_check -o match:"^HTTP/1.0 200" jbcl_http 1 "$c" "$WWW" 8081
	not_held 1 "$c"
	not_held 3 "$c"
	atf_check -o match:"^$c 10.213.0.[0-9]*: loose" \
	    -e match:"$c runs on cluster member m2" jbcl_ctl 1 net status "$c"
	wait_netd 2 "$c" strict 100
	ctr_refused 1 "$c" "$WWW" 8081

	# net egress add typed on m1: m1's jb-netd checks the entry by its
	# rules, Incus holds the override, m2 applies it from the event
	atf_check -o ignore \
	    -e match:"^jbctl: $c: override www.test:8081 added \(Incus holds it; cluster member m2, which runs it" \
	    jbo1 "$(pwd)/repo" net egress add www.test:8081 feat
	wait_extra 2 "$c" "+www.test:8081"
	atf_check -o match:"^HTTP/1.0 200" jbcl_http 1 "$c" www.test 8081
	atf_check -o match:"container +www.test:8081" -o match:"config +www.test:8080" \
	    jbo1 "$(pwd)/repo" net egress ls feat
	atf_check -s exit:1 -o ignore \
	    -e match:"www.test:8080\" comes from egress_allow in $c's config" \
	    jbo1 "$(pwd)/repo" net egress rm www.test:8080 feat
	atf_check -o ignore -e match:"override www.test:8081 removed" \
	    jbo1 "$(pwd)/repo" net egress rm www.test:8081 feat
	wait_extra 2 "$c" ""
	not_held 1 "$c"
	# the member that enforced it journals it; the typing one the command
	atf_check -o match:"net.enforce" -o match:"member=m2|\"member\":\"m2\"" \
	    -o match:"loose" jbcl_ctl 2 audit --container "$c" \
	    --action net.enforce -o json
	atf_check -o match:"net.loose" jbcl_ctl 1 audit --container "$c" \
	    --action net.loose -o json
	atf_check -o inline:"strict\n" jbcl_incus 3 config get "$c" \
	    user.jailbee.net

	# a commit made in the clone on m2 as the dev user, brought home by
	# git fetch typed on m1 (upload-pack runs through an exec Incus
	# forwards to m2)
	atf_check jbcl_incus 2 exec "$c" --user "$(id -u "$JBCL_OWNER")" \
	    --group "$(id -g "$JBCL_OWNER")" --env HOME=/home/dev --cwd / -- \
	    git -C "/home/dev/jbcl$$" -c user.email=dev@example.org \
	    -c user.name=dev commit -q --allow-empty -m "made on m2"
	sha=$(jbcl_incus 2 exec "$c" --user "$(id -u "$JBCL_OWNER")" \
	    --group "$(id -g "$JBCL_OWNER")" --cwd / -- \
	    git -C "/home/dev/jbcl$$" rev-parse HEAD) ||
	    atf_fail "no HEAD in $c's clone"
	atf_check -o match:"^feat's feat -> refs/jailbee/feat/feat: 1 new commit, [1-9][0-9]* objects?, [1-9][0-9]* bytes received" \
	    jbo1 "$(pwd)/repo" git fetch feat
	atf_check -o inline:"$sha\n" setpriv --reuid="$JBCL_OWNER" \
	    --regid="$JBCL_OWNER" --init-groups env HOME=/nonexistent \
	    git -C "$(pwd)/repo" rev-parse refs/jailbee/feat/feat

	# moved (stopped) to m3: strict there on arrival, m2 forgets it
	atf_check -o ignore jbcl_incus 1 stop --force "$c"
	atf_check -o ignore -e ignore jbcl_incus 1 move "$c" --target m3
	atf_check -o inline:"m3\n" jbcl_incus 1 list "$c" -c L -f csv
	wait_netd 3 "$c" strict
	held 3 "$c"
	wait_netd 2 "$c" gone
	not_held 2 "$c"
	not_held 1 "$c"
	inet_to 3
	atf_check -o ignore jbcl_incus 1 start "$c"
	ctr_routed 1 "$c"
	atf_check -o match:"^HTTP/1.0 200" jbcl_http 1 "$c" www.test 8080
	ctr_refused 1 "$c" "$WWW" 8081

	# m3 read it again after the move (a move is announced before Incus
	# says where it went) and journaled its arrival once
	n=$(jbcl_ctl 3 audit --container "$c" --action net.enforce -o json |
	    grep -o '"member":"m3"' | wc -l)
	[ "$n" -eq 1 ] || atf_fail "m3 journaled $c's arrival $n times"

	# destroyed from m1: no member keeps a chain, set or line of it
	atf_check -o ignore -e match:"deleting $c" jbo1 "$(pwd)/repo" \
	    destroy feat
	atf_check -o empty jbcl_incus 1 list "$c" -c n -f csv
	wait_netd 3 "$c" gone
	for n in 1 2 3; do
		not_held "$n" "$c"
	done

	# new without --target: placed as Incus places, on the member with
	# the fewest instances (this one on a tie), strict where it runs
	p1=jbcl$$-p1
	p2=jbcl$$-p2
	atf_check -o ignore -e match:"placing $p1 on cluster member m1, which runs the fewest instances$" \
	    -e match:"ready: $p1 at 10.213.0." jbo1 "$(pwd)/repo" new p1
	atf_check -o ignore -e match:"placing $p2 on cluster member m2, which runs the fewest instances; its suite opens the start gate there" \
	    -e match:"ready: $p2 at 10.213.0." jbo1 "$(pwd)/repo" new p2
	atf_check -o inline:"$p1,RUNNING,m1\n$p2,RUNNING,m2\n" \
	    jbcl_incus 1 list "jbcl$$-p" -c nsL -f csv
	wait_netd 1 "$p1" strict
	wait_netd 2 "$p2" strict
	held 2 "$p2"
	not_held 1 "$p2"
	not_held 3 "$p2"

	# m2 evacuated: Incus stops p2, moves it to another member and
	# starts it there, strict on arrival (its start gate opens once
	# that member's jb-netd holds its policy)
	atf_check -o ignore -e ignore jbcl_incus 1 cluster evacuate m2 \
	    --force --action migrate
	to=$(jbcl_incus 1 list "$p2" -c L -f csv)
	case $to in
	m1|m3)	;;
	*)	atf_fail "evacuated from m2, $p2 is on \"$to\"" ;;
	esac
	atf_check -o inline:"RUNNING\n" jbcl_incus 1 list "$p2" -c s -f csv
	wait_netd "${to#m}" "$p2" strict
	held "${to#m}" "$p2"
	wait_netd 2 "$p2" gone
	not_held 2 "$p2"
	inet_to "${to#m}"
	ctr_routed 1 "$p2"
	atf_check -o match:"^HTTP/1.0 200" jbcl_http 1 "$p2" www.test 8080
	ctr_refused 1 "$p2" "$WWW" 8081

	# placed on a member whose suite is not running: it has no start
	# gate there, so it is never started, and nothing is left
	p=$(cat "$JBCL_DIR/m3/jailbeed.pid")
	kill -TERM "$p"
	i=0
	while jbcl_alive "$p"; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "m3's suite did not stop"
		sleep 0.1
	done
	atf_check -s not-exit:0 -o ignore \
	    -e match:"gave it no start gate within 10 s: the suite must run there" \
	    -e match:"the container was deleted" \
	    jbo1 "$(pwd)/repo" new late --target m3
	atf_check -o empty jbcl_incus 1 list "jbcl$$-late" -c n -f csv
	not_held 1 "jbcl$$-late"
}
enforced_where_it_runs_cleanup() {
	cl_down
}

atf_init_test_cases() {
	atf_add_test_case enforced_where_it_runs
}
