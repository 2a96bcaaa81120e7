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
# The cumulative pool and /etc/hosts pinning (FEATURES N4) with real
# packets: a container of the running suite, the test hosts and test DNS
# of nethosts.sh, jb-netd's table inet jailbee deciding.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24
BR_GW=10.213.0.1
BEGIN="# BEGIN jailbee-managed allowlist"
END="# END jailbee-managed allowlist"

setup() {
	JB_CONF_EXTRA=$NH_RESOLVER
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
	# a DNS client the image has no counterpart of, run in a
	# container's network namespace (ctr_netns)
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	# GET / from container $1 to $2:$3, by address or by name (bash's
	# /dev/tcp resolves through glibc, so through /etc/hosts)
	cat > bin/ctr_get <<'EOS'
#!/bin/sh
exec in_ctr "$1" timeout 10 bash -c "exec 3<>/dev/tcp/$2/$3 &&
    printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3"
EOS
	# container $1's /etc/hosts, and the lines between its sentinels
	cat > bin/hosts <<'EOS'
#!/bin/sh
exec incus exec "$1" -- cat /etc/hosts
EOS
	cat > bin/block <<EOS
#!/bin/sh
incus exec "\$1" -- cat /etc/hosts | sed -n "/^$BEGIN\\\$/,/^$END\\\$/p"
EOS
	chmod 0755 bin/ctr_get bin/hosts bin/block
}

cleanup() {
	jb_cleanup
	jb_containers_cleanup
	nh_down
}


# wait up to $3 seconds for line $2 in container $1's block
wait_block() {
	i=0
	until block "$1" | grep -qx "$2"; do
		i=$((i + 1))
		[ $i -le $(($3 * 2)) ] || atf_fail "no \"$2\" in the block of $1 after $3 s"
		sleep 0.5
	done
}

atf_test_case pool_and_pin cleanup
pool_and_pin_head() {
	atf_set descr "a strict container's /etc/hosts pins its allowed" \
	    "names to the pool's addresses, which connect without DNS; a" \
	    "rotation adds the new address and keeps the old (cumulative);" \
	    "loose strips the block, strict restores it; the user's lines" \
	    "stay; the pool survives a suite restart and an upstream that no" \
	    "longer answers (N4)"
	atf_set require.user root
	atf_set timeout 600
}
pool_and_pin_body() {
	setup "rot.test:8080
www.test:8080
*.wild.test:8080"
	c=$(jb_prefix)-pin
	atf_check -e match:"ready: $c" jbo repo new pin
	jb_routed "$c"
	# DNS pointed nowhere, and glibc told to read /etc/hosts only: a
	# name that connects was found in the pin
	incus exec "$c" -- sh -c 'echo "nameserver 198.18.1.99" > \
	    /etc/resolv.conf; echo "hosts: files" > /etc/nsswitch.conf' ||
	    atf_fail "cannot set up name lookup in $c"

	atf_check -o match:"rot.test: answered; 1 address" \
	    -o match:"www.test: answered; 1 address" \
	    -e match:"/etc/hosts pins 2 address" jbo repo net refresh pin
	# structured: each exact name, answered, its addresses pooled
	jbo repo net refresh -o json pin > refresh.json 2> /dev/null ||
	    atf_fail "net refresh -o json failed"
	atf_check -o inline:"rot.test true 1 $c\nwww.test true 1 $c\n" \
	    jq -r '.resolved | sort_by(.name)[] |
	    "\(.name) \(.answered) \(.pooled) \(.container)"' refresh.json
	printf '%s\n%s rot.test\n%s www.test\n%s\n' "$BEGIN" "$NH_ROT1" \
	    "$NH_WWW" "$END" > want
	block "$c" > got
	atf_check -o file:want cat got
	atf_check -o match:"^127.0.0.1 localhost" hosts "$c"
	# not a name of the pool: wildcards name no host to pin
	hosts "$c" | grep -q wild.test && atf_fail "a wildcard was pinned"
	atf_check -o match:"^hello 8080 from $NH_ROT1" ctr_get "$c" rot.test 8080
	atf_check -o match:"^hello 8080 from $NH_WWW" ctr_get "$c" www.test 8080
	# the pool admits the allowed port only
	atf_check -s not-exit:0 -o empty -e ignore ctr_get "$c" www.test 8081
	# and for as long as the entry stays in the pool, not a DNS TTL
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_ROT1 . tcp . 8080 timeout 1d" cat set.txt
	# a DNS answer for a pooled address leaves it its day, not the
	# record's TTL
	atf_check -o match:"^A $NH_WWW " \
	    ctr_netns "$c" "$(pwd)/dnsq" 198.18.1.99 www.test
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_WWW . tcp . 8080 timeout 1d" cat set.txt

	# the user's own lines, before and after the block, are kept
	incus exec "$c" -- sh -c 'echo "198.18.1.77 mine.example" >> /etc/hosts'
	hosts "$c" > before
	atf_check -o ignore -e match:"/etc/hosts pins 2 address" \
	    jbo repo net refresh pin
	atf_check -o file:before hosts "$c"

	# rotation: after a refresh both addresses are pinned and connect
	nh_rotate
	sleep 3
	atf_check -o match:"rot.test: answered; 2 address" -e ignore \
	    jbo repo net refresh pin
	printf '%s\n%s rot.test\n%s rot.test\n%s www.test\n%s\n' "$BEGIN" \
	    "$NH_ROT1" "$NH_ROT2" "$NH_WWW" "$END" > want2
	block "$c" > got
	atf_check -o file:want2 cat got
	atf_check -o match:"^hello 8080 from $NH_ROT2" \
	    ctr_get "$c" $NH_ROT2 8080
	atf_check -o match:"^hello 8080 from $NH_ROT1" \
	    ctr_get "$c" $NH_ROT1 8080
	atf_check -o match:"^hello 8080 from $NH_ROT[12]" \
	    ctr_get "$c" rot.test 8080

	# loose strips the block, the user's lines stay; strict pins again
	atf_check -e match:"holds no pinned block" jbo repo net loose pin
	atf_check -o empty block "$c"
	atf_check -o match:"^127.0.0.1 localhost" \
	    -o match:"^198.18.1.77 mine.example" hosts "$c"
	atf_check -e match:"/etc/hosts pins 3 address" jbo repo net strict pin
	block "$c" > got
	atf_check -o file:want2 cat got
	atf_check -o match:"^198.18.1.77 mine.example" hosts "$c"
	atf_check -o match:"^hello 8080 from $NH_ROT1" \
	    ctr_get "$c" $NH_ROT1 8080

	# the pool is written down, for root only
	atf_check -o inline:"600\n" stat -c %a state/netd/pool
	atf_check -o match:"^$c rot.test $NH_ROT1 " cat state/netd/pool

	# a restart with an upstream that knows rot.test no more: the
	# table starts afresh, the pool admits both addresses again and a
	# refresh that resolves nothing keeps them.  The block, edited away
	# meanwhile, comes back unasked soon after the start.
	jb_cleanup
	rm -f jailbeed.pid
	: > rot.hosts
	kill -HUP "$(cat dnsmasq.pid)"
	incus exec "$c" -- sh -c "sed -i '/^$BEGIN\$/,/^$END\$/d' /etc/hosts"
	atf_check -o empty block "$c"
	sleep 3
	jb_start
	jb_tools
	wait_block "$c" "$NH_ROT2 rot.test" 20
	block "$c" > got
	atf_check -o file:want2 cat got
	jb_admitted "$c" > set.txt
	atf_check -o match:"$NH_ROT2 . tcp . 8080 timeout" cat set.txt
	atf_check -o match:"^hello 8080 from $NH_ROT1" \
	    ctr_get "$c" $NH_ROT1 8080
	atf_check -o match:"^hello 8080 from $NH_ROT2" \
	    ctr_get "$c" $NH_ROT2 8080
	atf_check -o match:"rot.test: no answer, pool kept; 2 address" \
	    -e match:"/etc/hosts pins 3 address" jbo repo net refresh pin
	block "$c" > got
	atf_check -o file:want2 cat got

	# an answer the resolver gives the container joins the pool and
	# the pin at once
	echo "$NH_WWW2 rot.test" > rot.hosts
	kill -HUP "$(cat dnsmasq.pid)"
	sleep 3
	atf_check -o match:"^A $NH_WWW2 " \
	    ctr_netns "$c" "$(pwd)/dnsq" 198.18.1.99 rot.test
	wait_block "$c" "$NH_WWW2 rot.test" 10
	atf_check -o match:"^hello 8080 from $NH_WWW2" \
	    ctr_get "$c" $NH_WWW2 8080

	# and the refresh every minute (10 s under the test switch) finds a
	# rotation by itself
	echo "$NH_BARE rot.test" > rot.hosts
	kill -HUP "$(cat dnsmasq.pid)"
	wait_block "$c" "$NH_BARE rot.test" 25
	atf_check -o match:"^hello 8080 from $NH_BARE" \
	    ctr_get "$c" $NH_BARE 8080
	atf_check -o match:"$NH_ROT1 rot.test" -o match:"$NH_ROT2 rot.test" \
	    block "$c"

	atf_check -s exit:1 -e match:"no policy" jbo repo net refresh nosuch
}
pool_and_pin_cleanup() { cleanup; }

atf_test_case pinned_at_ready cleanup
pinned_at_ready_head() {
	atf_set descr "new writes a strict container's /etc/hosts pin before" \
	    "it says ready, so nothing of new's still writes in the" \
	    "container when the user runs the next command (a destroy" \
	    "right after new waited 15 s in Incus for new's late pin)"
	atf_set require.user root
	atf_set timeout 300
}
pinned_at_ready_body() {
	setup "www.test:8080"
	c=$(jb_prefix)-early
	jbo repo new early 2> new.err || { cat new.err >&2; atf_fail "new failed"; }
	# said, and said before ready
	atf_check -o inline:"$c: /etc/hosts pins 1 address(es)\nready: $c\n" \
	    sed -n "s/^jbctl: \($c: \/etc\/hosts pins.*\)/\1/p;
	    s/^jbctl: \(ready: $c\) .*/\1/p" new.err
	# and there at once, untouched by any refresh
	printf '%s\n%s www.test\n%s\n' "$BEGIN" "$NH_WWW" "$END" > want
	block "$c" > got
	atf_check -o file:want cat got
	atf_check -o match:"^127.0.0.1 localhost" hosts "$c"
	# what destroy finds is the container alone: it is gone in seconds
	t0=$(date +%s)
	atf_check -o ignore -e ignore jbo repo destroy --force early
	[ $(( $(date +%s) - t0 )) -lt 10 ] ||
	    atf_fail "destroy right after new took $(( $(date +%s) - t0 )) s"
	atf_check -o empty incus list -c n --format csv "^$c\$"
}
pinned_at_ready_cleanup() { cleanup; }

atf_test_case image_block_cleared cleanup
image_block_cleared_head() {
	atf_set descr "new rewrites a suite block in the image's /etc/hosts" \
	    "(one published from a container of the suite carries it) even" \
	    "when the container pins no name: new reads the file only when" \
	    "the dev user's step saw a block there"
	atf_set require.user root
	atf_set timeout 300
}
image_block_cleared_body() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	# the suite's image with a stale block, as incus publish makes one
	incus init "$JB_IMAGE" "$p-src" > /dev/null ||
	    atf_fail "cannot make $p-src"
	incus start "$p-src" || atf_fail "cannot start $p-src"
	incus exec "$p-src" -- sh -c "printf '%s\n%s\n%s\n' '$BEGIN' \
	    '198.18.9.9 stale.test' '$END' >> /etc/hosts" ||
	    atf_fail "cannot write the block into $p-src"
	incus stop --force "$p-src" &&
	    incus publish "$p-src" --alias "$p-blocked" --compression none \
	    > /dev/null || atf_fail "cannot publish $p-src as $p-blocked"
	sed -i "s/^  alias: .*/  alias: $p-blocked/" repo/.jailbee/config.yaml
	atf_check -e match:"ready: $p-blk" jbo repo new blk
	atf_check -s exit:1 -o empty -e empty sh -c \
	    "incus exec $p-blk -- cat /etc/hosts | grep -e stale.test -e '$BEGIN'"
	atf_check -o match:"^127.0.0.1 localhost" \
	    incus exec "$p-blk" -- cat /etc/hosts
	# from the image without one, the file is as the image made it
	sed -i "s/^  alias: .*/  alias: $JB_IMAGE/" repo/.jailbee/config.yaml
	atf_check -e match:"ready: $p-plain" jbo repo new plain
	atf_check -o inline:"127.0.0.1 localhost\n127.0.1.1 $p-plain\n" \
	    incus exec "$p-plain" -- cat /etc/hosts
}
image_block_cleared_cleanup() {
	cleanup
	[ -f prefix ] && incus image delete "$(cat prefix)-blocked" \
	    > /dev/null 2>&1
	true
}

atf_init_test_cases() {
	atf_add_test_case pool_and_pin
	atf_add_test_case pinned_at_ready
	atf_add_test_case image_block_cleared
}
