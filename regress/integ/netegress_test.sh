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
# The repo override layer with real packets (FEATURES N7, N8; seed
# "Egress overrides"): net egress add --repo opens a host to every
# container of one repo on this machine, at once and for those made
# later, and to no other repo's; rm --repo takes it away; the config's
# entries cannot be removed; ls, status and export show the origins; the
# layer outlives a restart of the suite.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24
BR_GW=10.213.0.1

setup() {
	jb_start
	jb_tools
	net_tools
	jb_image
	jb_repo
	nh_up "$BR_NET"
	printf 'egress_allow:\n  - "%s"\n' "$NH_WWW:8080" \
	    >> repo/.jailbee/config.yaml
	# a second repo of the same owner, prefix <prefix>o: not ours
	cp -a repo repo2
	sed -i "s/^container_prefix: .*/container_prefix: $(jb_prefix)o/" \
	    repo2/.jailbee/config.yaml
}

cleanup() {
	jb_cleanup
	jb_containers_cleanup
	[ -f prefix ] && for c in $(incus list -c n --format csv \
	    "^$(cat prefix)o-" 2>/dev/null); do
		incus delete --force "$c" > /dev/null 2>&1
	done
	nh_down
}

# the container has its default route from DHCP, as every user's has
route() { jb_routed "$1"; }

# ctr_http C HOST PORT: GET / from container C; ctr_prompt: the same,
# failing unless over in less than 2s (a refusal is prompt)
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
[ $ms -lt 2000 ] || { echo "too slow: ${ms}ms" >&2; exit 99; }
exit $rc
EOS
	chmod 0755 bin/ctr_http bin/ctr_prompt
}

# $1 reaches $2 on 8080 / is refused there, promptly
reaches() {
	atf_check -o match:"^hello 8080 from $2" ctr_http "$1" "$2" 8080
}
refused() {
	atf_check -s not-exit:0 -e match:"refused" -e not-match:"too slow" \
	    ctr_prompt "$1" "$2" 8080
}

atf_test_case repo_layer cleanup
repo_layer_head() {
	atf_set descr "net egress add --repo opens an unlisted host to two" \
	    "strict containers of a repo at once, to one made later, not to" \
	    "another repo's; rm --repo closes it for both; the config's entry" \
	    "cannot be removed; ls, status and export name origins; export" \
	    "round-trips through the config; the layer survives a restart," \
	    "and the start-up sync forgets a container Incus no longer has"
	atf_set require.user root
	atf_set timeout 600
}
repo_layer_body() {
	setup
	p=$(jb_prefix)
	for n in e1 e2; do
		atf_check -e match:"ready: $p-$n" jbo repo new $n
		route "$p-$n"
	done
	atf_check -e match:"ready: ${p}o-o1" jbo repo2 new o1
	route "${p}o-o1"
	for c in $p-e1 $p-e2 ${p}o-o1; do
		reaches $c $NH_WWW
		refused $c $NH_WWW2
	done

	# add --repo: both containers of the repo at once, not the other's
	atf_check -e match:"repo $p: override $NH_WWW2:8080 added" \
	    jbo repo net egress add --repo "$NH_WWW2:8080" e1
	reaches $p-e1 $NH_WWW2
	reaches $p-e2 $NH_WWW2
	refused ${p}o-o1 $NH_WWW2
	for n in e1 e2; do
		atf_check -o inline:"config $NH_WWW:8080\nrepo-override $NH_WWW2:8080\n" \
		    jbo repo net egress ls $n
	done
	atf_check -o inline:"config $NH_WWW:8080\n" jbo repo2 net egress ls o1
	atf_check -o match:"allow $NH_WWW:8080 \\(config\\)" \
	    -o match:"allow $NH_WWW2:8080 \\(repo-override\\)" \
	    jbo repo net status e2

	# host-local, durable, owner-only: jb-netd's state directory
	atf_check -o inline:"$p $NH_WWW2:8080\n" grep -v '^#' state/netd/repos
	atf_check -o inline:"600\n" stat -c %a state/netd/repos
	atf_check -o inline:"700\n" stat -c %a state/netd
	atf_check -o match:"^$p-e2 [0-9.]+ strict 0 @$p $NH_WWW:8080\$" \
	    grep "^$p-e2 " state/netd/containers

	# additive only, and every bad request named
	atf_check -s not-exit:0 \
	    -e match:"$NH_WWW:8080.*comes from egress_allow in .*repo/.jailbee/config.yaml" \
	    jbo repo net egress rm --repo "$NH_WWW:8080" e1
	reaches $p-e2 $NH_WWW
	atf_check -s not-exit:0 -e match:"$NH_BARE:8080.*not a repo override of $p" \
	    jbo repo net egress rm --repo "$NH_BARE:8080" e1
	atf_check -s not-exit:0 -e match:"$NH_WWW2:8080.*already allows" \
	    jbo repo net egress add --repo "$NH_WWW2:8080" e2
	atf_check -s not-exit:0 -e match:"egress entry \"300.1.2.3:80\"" \
	    jbo repo net egress add --repo "300.1.2.3:80" e1
	atf_check -s not-exit:0 -e match:"repo override layer.*--repo" \
	    jbo repo net egress rm "$NH_WWW2:8080" e1
	# the other repo's layer is its own
	atf_check -e ignore jbo repo2 net egress add --repo "$NH_BARE:8080" o1
	reaches ${p}o-o1 $NH_BARE
	refused $p-e1 $NH_BARE
	atf_check -e ignore jbo repo2 net egress rm --repo "$NH_BARE:8080" o1
	refused ${p}o-o1 $NH_BARE

	# a container override beside it: three origins
	atf_check -e ignore jbo repo net egress add "$NH_BARE:8080" e1
	reaches $p-e1 $NH_BARE
	refused $p-e2 $NH_BARE
	atf_check -o inline:"config $NH_WWW:8080\nrepo-override $NH_WWW2:8080\ncontainer $NH_BARE:8080\n" \
	    jbo repo net egress ls e1
	atf_check -o save:export.yaml jbo repo net egress export e1
	atf_check -o inline:"egress_allow:\n  - \"$NH_WWW:8080\"\n  - \"$NH_WWW2:8080\"\n  - \"$NH_BARE:8080\"\n" \
	    cat export.yaml

	# export pasted over the config: a new container gets the same list,
	# the layer too (listed, enforced once), and export says it once
	sed -i '/^egress_allow:/,$d' repo/.jailbee/config.yaml
	cat export.yaml >> repo/.jailbee/config.yaml
	atf_check -e match:"3 egress_allow entries" -e match:"ready: $p-e3" \
	    jbo repo new e3
	route $p-e3
	atf_check -o inline:"config $NH_WWW:8080\nconfig $NH_WWW2:8080\nconfig $NH_BARE:8080\nrepo-override $NH_WWW2:8080\n" \
	    jbo repo net egress ls e3
	atf_check -o file:export.yaml jbo repo net egress export e3
	reaches $p-e3 $NH_WWW2

	# the suite down and up: the layer is enforced again from its file;
	# o1, deleted meanwhile, is forgotten by the start-up sync
	jb_cleanup
	rm -f jailbeed.pid
	o1=$(jb_netd_addr "${p}o-o1")
	jb_verdict_is "$o1" "jump strict"
	atf_check incus delete --force "${p}o-o1"
	jb_start
	jb_tools
	net_tools
	i=0
	while grep -q "^${p}o-o1 " state/netd/containers; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "${p}o-o1 still in jb-netd's state"
		sleep 0.1
	done
	jb_verdict_is "$o1" ""
	jb_admitted_none "$o1"
	atf_check -o match:"container ${p}o-o1: Incus no longer has it" \
	    cat jailbeed.log
	for n in e1 e2 e3; do
		grep -q "^$p-$n " state/netd/containers ||
		    atf_fail "the sync forgot $p-$n, which Incus has"
	done
	reaches $p-e2 $NH_WWW2
	atf_check -o inline:"config $NH_WWW:8080\nrepo-override $NH_WWW2:8080\n" \
	    jbo repo net egress ls e2

	# rm --repo: gone from both at once; e3's config still grants it
	atf_check -e match:"repo $p: override $NH_WWW2:8080 removed" \
	    jbo repo net egress rm --repo "$NH_WWW2:8080" e2
	refused $p-e1 $NH_WWW2
	refused $p-e2 $NH_WWW2
	reaches $p-e3 $NH_WWW2
	reaches $p-e1 $NH_BARE
	atf_check -o inline:"config $NH_WWW:8080\ncontainer $NH_BARE:8080\n" \
	    jbo repo net egress ls e1
	# the file stays, with no repo in it
	atf_check -s exit:1 grep -v '^#' state/netd/repos
	atf_check -s not-exit:0 -e match:"not a repo override" \
	    jbo repo net egress rm --repo "$NH_WWW2:8080" e2
}
repo_layer_cleanup() { cleanup; }

atf_test_case repo_needs_checkout cleanup
repo_needs_checkout_head() {
	atf_set descr "--repo outside a checkout is refused, saying where to" \
	    "run it; --repo is no option of ls"
	atf_set require.user root
	atf_set timeout 120
}
repo_needs_checkout_body() {
	jb_start
	jb_tools
	mkdir -p elsewhere
	chmod 0755 . elsewhere
	atf_check -s not-exit:0 -e match:"no JailBee checkout here; run it from the checkout" \
	    jbo elsewhere net egress add --repo 198.18.1.9:80 somebox
	atf_check -s not-exit:0 -e match:"repo" \
	    jbo elsewhere net egress ls --repo somebox
}
repo_needs_checkout_cleanup() { jb_cleanup; }

atf_test_case github_origin cleanup
github_origin_head() {
	atf_set descr "github.enabled (global.yaml, the original's key) adds" \
	    "api.github.com:443 to a container's allowlist with origin" \
	    "github in net egress ls and net status -o json; an override" \
	    "cannot add it again; turned off, apply takes it away, and a" \
	    "host-local token is then not given, which apply says"
	atf_set require.user root
	atf_set timeout 300
}
github_origin_body() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	mkdir -p xdg/jailbee/repos
	printf 'github:\n  enabled: true\n' > xdg/jailbee/global.yaml
	printf 'github:\n  token: github_pat_Test_1\n' > xdg/jailbee/repos/$p.yaml
	chown -R $JB_OWNER xdg
	chmod 0700 xdg/jailbee xdg/jailbee/repos
	chmod 0600 xdg/jailbee/repos/$p.yaml
	XDG_CONFIG_HOME=$(pwd)/xdg
	export XDG_CONFIG_HOME
	atf_check -e match:"secrets.GH_TOKEN: put in by the egress gateway for api.github.com" \
	    -e match:"ready: $p-gh" jbo repo new gh
	atf_check -o inline:"github api.github.com:443\n" \
	    jbo repo net egress ls gh
	jbo repo net status -o json gh > st.json || atf_fail "-o json failed"
	atf_check -o inline:"github\n" jq -r ".containers[] |
	    select(.name == \"$p-gh\") | .allow[] |
	    select(.entry == \"api.github.com:443\") | .origin" st.json
	atf_check -s exit:1 -e match:"github.enabled in its config" \
	    jbo repo net egress add api.github.com:443 gh
	# off: the entry goes, the token is not written again
	printf 'github:\n  enabled: false\n' > xdg/jailbee/global.yaml
	atf_check -e match:"github.token is set but github.enabled is not true: GH_TOKEN is not given" \
	    jbo repo apply gh
	atf_check -o inline:"" jbo repo net egress ls gh
}
github_origin_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case repo_layer
	atf_add_test_case repo_needs_checkout
	atf_add_test_case github_origin
}
