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
# The main job as a new user does it, on the image `jbctl base build`
# makes and nothing added by hand: a fresh checkout whose egress_allow
# names a test host by name, `jbctl init` and `jbctl new`; inside, the
# network came up by itself, curl by name reaches the allowed port and is
# refused elsewhere, git commit works with the owner's identity; destroy
# refuses to lose that commit; a second repo uses the same image.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24

# a fresh checkout $1, owned by the owner, with no JailBee config at all
fresh_repo() {
	r=$(pwd)/$1
	mkdir -p "$r"
	git -C "$r" init -q -b main
	echo "hello" > "$r/README"
	git -C "$r" add README
	git -C "$r" -c user.name=someone -c user.email=s@example.org \
	    commit -q -m "first"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) "$r"
	chmod 0755 "$(pwd)"
}

# the owner's own git identity, in the home passwd names
owner_identity() {
	h=$(getent passwd $JB_OWNER | cut -d: -f6)
	[ -n "$h" ] && [ "$h" != / ] || atf_fail "$JB_OWNER has no home"
	if [ ! -d "$h" ]; then
		mkdir -p "$h"
		chown $JB_OWNER "$h"
		echo "$h" > made-home
	fi
	[ ! -e "$h/.gitconfig" ] || mv "$h/.gitconfig" "$h/.gitconfig.jbsaved"
	echo "$h" > identity-home
	printf '[user]\n\tname = Wendy Workflow\n\temail = wendy@example.org\n[alias]\n\tci = commit\n' \
	    > "$h/.gitconfig"
	chown $JB_OWNER "$h/.gitconfig"
}

atf_test_case new_user cleanup
new_user_head() {
	atf_set descr "a fresh repo on the users' image: DHCP address, route," \
	    "resolver and hostname by themselves; curl by name to the allowed" \
	    "port works and is refused elsewhere; git commit with the owner's" \
	    "identity; destroy names the commit; a second repo needs no" \
	    "second image"
	atf_set require.user root
	atf_set timeout 600
}
new_user_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	jb_start
	jb_tools
	jb_image
	nh_up "$BR_NET"
	owner_identity
	a=wfa$$
	fresh_repo $a
	atf_check -o ignore -e match:"container prefix $a, containers from image jailbee-base" \
	    jbo $a init
	printf 'egress_allow:\n  - "www.test:8080"\n' >> $a/.jailbee/config.yaml
	images=$(incus image list -c f --format csv | wc -l)
	atf_check -e match:"ready: $a-work" -e not-match:"building" \
	    -e not-match:"warning" jbo $a new work
	c=$a-work
	echo "$a" > prefixes

	# the network came up by itself, the way the image does it at boot
	atf_check -o match:"inet 10\\.213\\.0\\." in_ctr $c ip -4 addr show eth0
	atf_check -o match:"^default via 10\\.213\\.0\\.1 dev eth0" \
	    in_ctr $c ip -4 route show default
	atf_check -o match:"^nameserver 10\\.213\\.0\\.1\$" \
	    in_ctr $c cat /etc/resolv.conf
	atf_check -o inline:"$c\n" in_ctr $c hostname
	atf_check -o inline:"$c\n" in_ctr $c cat /etc/hostname

	# curl by name: the allowed port answers, through the suite's resolver
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    in_ctr $c curl -sS --max-time 10 http://www.test:8080/
	# another port of the same host: refused at once (curl's 7: could
	# not connect), not a timeout
	atf_check -s exit:7 -e match:"Couldn't connect to server" \
	    in_ctr $c curl -sS --max-time 10 http://www.test:8081/
	# a name not allowed is not resolved (6), nor asked upstream
	atf_check -s exit:6 -e match:"[Cc]ould not resolve" \
	    in_ctr $c curl -sS --max-time 10 http://other.test:8080/
	! nh_asked other.test || atf_fail "other.test was asked upstream"

	# git commit with the owner's identity, and nothing else of it
	d=/home/dev/$a
	atf_check -o ignore in_ctr $c git -C $d commit --allow-empty -q \
	    -m "work inside"
	atf_check -o inline:"Wendy Workflow <wendy@example.org>\n" \
	    in_ctr $c git -C $d log -1 --format="%an <%ae>"
	atf_check -s not-exit:0 -e ignore in_ctr $c git -C $d config alias.ci
	sha=$(in_ctr $c git -C $d rev-parse HEAD)

	# destroy refuses to lose it, and says which commit
	atf_check -s exit:1 -e match:"commit $sha is not on the host" \
	    jbo $a destroy work
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$c\$"

	# a second repo: new works at once, from the same image
	b=wfb$$
	fresh_repo $b
	echo "$b" >> prefixes
	atf_check -o ignore -e ignore jbo $b init
	atf_check -e match:"ready: $b-other" -e not-match:"building" \
	    jbo $b new other
	atf_check -o inline:"$(incus config get $c volatile.base_image)\n" \
	    incus config get $b-other volatile.base_image
	atf_check -o inline:"$images\n" -x \
	    "incus image list -c f --format csv | wc -l"
}
new_user_cleanup() {
	if [ -f prefixes ]; then
		for p in $(cat prefixes); do
			for c in $(incus list -c n --format csv "^$p-" 2>/dev/null)
			do
				incus delete --force "$c" > /dev/null 2>&1
			done
		done
	fi
	if [ -f identity-home ]; then
		h=$(cat identity-home)
		rm -f "$h/.gitconfig"
		[ ! -e "$h/.gitconfig.jbsaved" ] ||
		    mv "$h/.gitconfig.jbsaved" "$h/.gitconfig"
	fi
	[ ! -f made-home ] || rm -rf "$(cat made-home)"
	jb_cleanup
	nh_down
}

atf_init_test_cases() {
	atf_add_test_case new_user
}
