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
# secrets: declared on the host only; a container holds a placeholder of
# its own under the secret's name, and the value is nowhere in it.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24

VALUE=real-Secret-Value-4f1d09

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	printf '%s\n' "$VALUE" > tok.value
	chown $JB_OWNER tok.value
	chmod 0600 tok.value
	mkdir -p xdg/jailbee/repos
	local=$(pwd)/xdg/jailbee/repos/$p.yaml
	printf 'secrets:\n  API_TOKEN: {file: %s, hosts: [%s], header: Authorization}\n' \
	    "$(pwd)/tok.value" "${SECRET_HOSTS:-api.example.com, \"*.example.org\"}" \
	    > "$local"
	chown -R $JB_OWNER xdg
	chmod 0700 xdg/jailbee xdg/jailbee/repos
	chmod 0600 "$local"
	XDG_CONFIG_HOME=$(pwd)/xdg
	export XDG_CONFIG_HOME
}

# the value anywhere in container $1: its files, its processes'
# environments, its instance config
value_in() {
	incus config show "$1" > ctr-config.txt ||
	    atf_fail "cannot read the config of $1"
	grep -F "$VALUE" ctr-config.txt && return 0
	incus exec "$1" -- sh -c 'cat /proc/[0-9]*/environ' > ctr-environ 2>/dev/null
	[ -s ctr-environ ] || atf_fail "read no environment of $1"
	tr '\0' '\n' < ctr-environ | grep -F "$VALUE" && return 0
	# grep: 0 found, 1 not found, anything else an error
	_rc=0
	incus exec "$1" -- grep -rlsF --exclude-dir=proc --exclude-dir=sys \
	    --exclude-dir=dev "$VALUE" / || _rc=$?
	[ $_rc -eq 0 ] && return 0
	[ $_rc -eq 1 ] || atf_fail "grep over $1's files failed ($_rc)"
	return 1
}

atf_test_case tracked_refused cleanup
tracked_refused_head() {
	atf_set descr "secrets in the repo's tracked config are refused," \
	    "naming the host-local file to declare them in; nothing is made"
	atf_set require.user root
	atf_set timeout 120
}
tracked_refused_body() {
	setup
	printf 'secrets:\n  T: {file: /etc/shadow, hosts: [evil.example.com]}\n' \
	    >> repo/.jailbee/config.yaml
	atf_check -s not-exit:0 \
	    -e match:"config.yaml:[0-9]+: secrets: not allowed in the repo's config: secrets are the host's: declare them in the host-local file $local \\(mode 0600\\) or in global.yaml" \
	    jbo repo new t
	atf_check -o empty incus list -c n --format csv "^$p-t\$"
}
tracked_refused_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case placeholder_env cleanup
placeholder_env_head() {
	atf_set descr "a secret's name holds a placeholder in the container's" \
	    "environment (jbsecret- and 32 hex digits), another per container;" \
	    "the value is in no file, no process environment and not in the" \
	    "instance config"
	atf_set require.user root
	atf_set timeout 300
}
placeholder_env_body() {
	setup
	atf_check -o ignore -e match:"ready: $p-a" jbo repo new a
	atf_check -o ignore -e match:"ready: $p-b" jbo repo new b
	atf_check -o match:'^jbsecret-[0-9a-f]{32}$' -e ignore \
	    jbo repo exec a -- sh -c 'echo $API_TOKEN'
	atf_check -o match:'^jbsecret-[0-9a-f]{32}$' \
	    in_ctr $p-a sh -c 'echo $API_TOKEN'
	pa=$(in_ctr $p-a sh -c 'echo $API_TOKEN')
	pb=$(in_ctr $p-b sh -c 'echo $API_TOKEN')
	[ "$pa" != "$pb" ] || atf_fail "two containers share placeholder $pa"
	# a restart keeps it: it is the instance's
	atf_check -o ignore -e ignore jbo repo stop a
	atf_check -o ignore -e ignore jbo repo start a
	atf_check -o inline:"$pa\n" in_ctr $p-a sh -c 'echo $API_TOKEN'
	# secret ls: names, hosts, header and file, never the value
	atf_check -o match:"^API_TOKEN	hosts: api\.example\.com, \*\.example\.org	header: Authorization	file: $(pwd)/tok.value\$" \
	    -o not-match:"$VALUE" -e ignore jbo repo secret ls
	atf_check -s not-exit:0 -e match:"no secret NOPE in this repository's configuration: secrets are declared in global.yaml or $local" \
	    jbo repo secret ls NOPE
	value_in $p-a && atf_fail "the value is in container $p-a"
	grep -F "$VALUE" jailbeed.log && atf_fail "the value is in the log"
	return 0
}
placeholder_env_cleanup() { jb_containers_cleanup; jb_cleanup; }

# the test internet with TLS hosts; jb-egress trusts the test CA for
# the secrets' hosts (network.gateway_trust); the container $c is
# strict, allowed www.test, other.test and cached.test (which the test
# server's certificate does not name)
setup_net() {
	nh_tls_ca
	JB_CONF_EXTRA="$NH_RESOLVER
network:
  gateway_trust: $(pwd)/ca.pem"
	SECRET_HOSTS="www.test, cached.test"
	setup
	nh_up "$BR_NET"
	nh_tls_up
	printf 'egress_allow:\n  - www.test\n  - other.test\n  - cached.test\n' \
	    >> repo/.jailbee/config.yaml
	c=$p-gw
	atf_check -o ignore -e match:"network: strict" \
	    -e match:"secrets.API_TOKEN: put in by the egress gateway for www.test" \
	    -e match:"ready: $c" jbo repo new gw
	jb_routed "$c"
	in_ctr "$c" sh -c 'cat > /tmp/ca.pem' < ca.pem ||
	    atf_fail "cannot give the container the test CA"
}

atf_test_case substitute cleanup
substitute_head() {
	atf_set descr "a strict container's curl to a secret's host with the" \
	    "placeholder (Bearer, and as a Basic password) reaches the real" \
	    "server with the value, verified by the container's own CA; the" \
	    "same request to another allowed host carries the placeholder" \
	    "only; a request without it gets nothing; the journal names the" \
	    "secret and host, never the value, and the value is nowhere in" \
	    "the container"
	atf_set require.user root
	atf_set timeout 300
}
substitute_body() {
	setup_net
	# net status: the secret's name and hosts, never the value
	atf_check -o match:"^  secret API_TOKEN for www\.test, cached\.test in Authorization: terminated by the gateway" \
	    -o not-match:"$VALUE" jbo repo net status gw
	ph=$(in_ctr $c sh -c 'echo $API_TOKEN')
	case $ph in jbsecret-*) ;; *) atf_fail "no placeholder: $ph" ;; esac
	# Bearer: the system trust store holds the container's CA
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	grep -qx "auth www.test Bearer $VALUE" tlshost.log ||
	    atf_fail "the server did not get the value: $(grep auth tlshost.log | tr "\n" " ")"
	# Basic, as git sends it: user:placeholder, re-encoded
	b64=$(printf 'git:%s' "$VALUE" | base64 -w0)
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -u "git:$API_TOKEN" https://www.test/'
	grep -qx "auth www.test Basic $b64" tlshost.log ||
	    atf_fail "the server did not get the Basic pair: $(grep auth tlshost.log | tr "\n" " ")"
	# git over HTTPS, the placeholder as password: the 401 challenge,
	# then Basic git:VALUE (the answer is no repository: not asked here)
	in_ctr $c sh -c 'git ls-remote "https://git:$API_TOKEN@www.test/git/r.git"' \
	    > git.out 2>&1 || true
	grep -qx "auth www.test Basic $b64" tlshost.log &&
	    [ "$(grep -cx "auth www.test Basic $b64" tlshost.log)" -ge 2 ] ||
	    atf_fail "git did not reach the server with the value: $(tr "\n" " " < git.out) $(grep auth tlshost.log | tr "\n" " ")"
	# another allowed host: spliced, the placeholder as it was
	atf_check -o inline:"tls hello other.test from $NH_BARE\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 --cacert /tmp/ca.pem -H "Authorization: Bearer $API_TOKEN" https://other.test/'
	grep -qx "auth other.test Bearer $ph" tlshost.log ||
	    atf_fail "other.test did not get the placeholder: $(grep auth tlshost.log | tr "\n" " ")"
	grep "auth other.test" tlshost.log | grep -qF "$VALUE" &&
	    atf_fail "other.test got the value"
	# without the placeholder, nothing is added
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c curl -sS --max-time 5 -H "Authorization: Bearer mine" https://www.test/
	grep -qx "auth www.test Bearer mine" tlshost.log ||
	    atf_fail "the request without a placeholder changed"
	# the journal: container, secret, host
	jb_audit_has '.action == "secret" and .container == $c and .secret == "API_TOKEN" and .host == "www.test"' \
	    --arg c "$c" || atf_fail "no journal record of the substitution"
	grep -rF "$VALUE" state/audit && atf_fail "the value is in the journal"
	grep -F "$VALUE" jailbeed.log && atf_fail "the value is in the log"
	value_in $c && atf_fail "the value is in container $c"
	return 0
}
substitute_cleanup() { jb_cleanup; jb_containers_cleanup; nh_down; }

atf_test_case proxy cleanup
proxy_head() {
	atf_set descr "a CONNECT through the explicit proxy (network.proxy_port)" \
	    "to a secret's host is terminated as the gateway terminates it:" \
	    "curl with --proxy and the placeholder reaches the server with the" \
	    "value, verified by the container's own CA; a CONNECT to another" \
	    "host stays a tunnel carrying the placeholder unchanged"
	atf_set require.user root
	atf_set timeout 300
}
proxy_body() {
	setup_net
	br=$(ip -4 -o addr show jbbr0 | awk '{ sub("/.*", "", $4); print $4; exit }')
	[ -n "$br" ] || atf_fail "jbbr0 has no IPv4 address"
	ph=$(in_ctr $c sh -c 'echo $API_TOKEN')
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 --proxy "http://$1:3128" -H "Authorization: Bearer $API_TOKEN" https://www.test/' \
	    sh "$br"
	grep -qx "auth www.test Bearer $VALUE" tlshost.log ||
	    atf_fail "the server did not get the value through the proxy: $(grep auth tlshost.log | tr "\n" " ")"
	jb_audit_has '.action == "secret" and .container == $c and .secret == "API_TOKEN" and .host == "www.test"' \
	    --arg c "$c" || atf_fail "no journal record of the substitution"
	# another host: a tunnel, the placeholder as the container sent it
	atf_check -o inline:"tls hello other.test from $NH_BARE\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 --proxy "http://$1:3128" --cacert /tmp/ca.pem -H "Authorization: Bearer $API_TOKEN" https://other.test/' \
	    sh "$br"
	grep -qx "auth other.test Bearer $ph" tlshost.log ||
	    atf_fail "other.test did not get the placeholder: $(grep auth tlshost.log | tr "\n" " ")"
	grep -F "$VALUE" jailbeed.log && atf_fail "the value is in the log"
	value_in $c && atf_fail "the value is in container $c"
	return 0
}
proxy_cleanup() { jb_cleanup; jb_containers_cleanup; nh_down; }

atf_test_case refusals cleanup
refusals_head() {
	atf_set descr "a secret's host whose certificate does not verify is" \
	    "refused before any request reaches it; a client that pins" \
	    "certificates (trusts only the real CA) fails cleanly and net log" \
	    "says why"
	atf_set require.user root
	atf_set timeout 300
}
refusals_body() {
	setup_net
	# cached.test: the server's certificate does not name it
	atf_check -s not-exit:0 -e match:"curl: \([0-9]+\)" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer $API_TOKEN" https://cached.test/'
	grep -q "auth cached.test" tlshost.log &&
	    atf_fail "a request reached a server that did not verify"
	# a pinning client: it trusts the test CA alone
	atf_check -s not-exit:0 -e match:"SSL certificate problem" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 --cacert /tmp/ca.pem --capath /tmp -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	grep -q "auth www.test" tlshost.log &&
	    atf_fail "a request went through a refused handshake"
	atf_check -o match:"cached\.test.*the certificate of cached\.test does not verify: hostname mismatch" \
	    -o match:"www\.test.*the client refused the gateway's certificate for www\.test" \
	    jbo repo net log gw
}
refusals_cleanup() { jb_cleanup; jb_containers_cleanup; nh_down; }

atf_test_case rotate cleanup
rotate_head() {
	atf_set descr "a changed secret file is put in on the very next" \
	    "connection, a removed entry is not put in from the very next" \
	    "connection on (the request" \
	    "carries the placeholder, spliced); neither value is left in the" \
	    "journal or the log"
	atf_set require.user root
	atf_set timeout 300
}
rotate_body() {
	setup_net
	ph=$(in_ctr $c sh -c 'echo $API_TOKEN')
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	grep -qx "auth www.test Bearer $VALUE" tlshost.log ||
	    atf_fail "the first value did not reach the server"
	# the file changes: the very next connection gets the new value
	NEW=rotated-Value-90c2e1
	printf '%s\n' "$NEW" > tok.value
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	grep -qx "auth www.test Bearer $NEW" tlshost.log ||
	    atf_fail "the rotated value did not reach the server: $(grep auth tlshost.log | tr "\n" " ")"
	# the entry goes: the very next connection is spliced, the
	# placeholder as the container sent it
	printf 'secrets: {}\n' > "$local"
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 --cacert /tmp/ca.pem -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	[ "$(tail -n 1 tlshost.log)" = "auth www.test Bearer $ph" ] ||
	    atf_fail "a removed secret was still put in: $(grep auth tlshost.log | tr "\n" " ")"
	grep -rF -e "$VALUE" -e "$NEW" state/audit jailbeed.log &&
	    atf_fail "a value is in the journal or the log"
	return 0
}
rotate_cleanup() { jb_cleanup; jb_containers_cleanup; nh_down; }

# github.enabled with github.token in the host-local file (in place of
# the API_TOKEN secret setup declares); the gateway takes TLS unless
# JB_CONF_EXTRA says otherwise
GHTOK=github_pat_Real_Token_7c3a55
setup_github() {
	setup
	printf 'github:\n  enabled: true\n  token: %s\n' "$GHTOK" > "$local"
	VALUE=$GHTOK
}

atf_test_case github_token cleanup
github_token_head() {
	atf_set descr "with github.enabled, github.token is a secret for" \
	    "api.github.com and github.com: the container's GH_TOKEN (plain" \
	    "and login shells) is a placeholder, a request to api.github.com" \
	    "(the test server plays it) carries the token, git over HTTPS to" \
	    "github.com sends it as its Basic pair, and the token is in no" \
	    "file, process environment or the instance config, nor the log"
	atf_set require.user root
	atf_set timeout 300
}
github_token_body() {
	nh_tls_ca
	JB_CONF_EXTRA="$NH_RESOLVER
network:
  gateway_trust: $(pwd)/ca.pem"
	NH_WWW_NAMES="api.github.com github.com"
	setup_github
	nh_up "$BR_NET"
	nh_tls_up
	printf 'egress_allow:\n  - github.com\n  - www.test\n' >> repo/.jailbee/config.yaml
	c=$p-gh
	atf_check -o ignore -e save:new.err jbo repo new gh
	grep -q "ready: $c" new.err || atf_fail "new: $(tr "\n" " " < new.err)"
	jb_routed "$c"
	# a login shell's GH_TOKEN, and every process's, is a placeholder
	atf_check -o match:'^jbsecret-[0-9a-f]{32}$' in_ctr $c bash -lc 'echo $GH_TOKEN'
	ph=$(in_ctr $c bash -lc 'echo $GH_TOKEN')
	atf_check -o inline:"$ph\n" in_ctr $c sh -c 'echo $GH_TOKEN'
	grep -q "secrets.GH_TOKEN: put in by the egress gateway for api.github.com" new.err ||
	    atf_fail "new did not say the token is a secret: $(tr "\n" " " < new.err)"
	atf_check -o match:"^  secret GH_TOKEN for api\.github\.com, github\.com in Authorization: terminated by the gateway" \
	    -o not-match:"$GHTOK" jbo repo net status gh
	atf_check -o match:"^GH_TOKEN	hosts: api\.github\.com, github\.com	header: Authorization	file: \(github\.token\)\$" \
	    -o not-match:"$GHTOK" -e ignore jbo repo secret ls GH_TOKEN
	# gh sends "Authorization: token X"
	atf_check -o inline:"tls hello api.github.com from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: token $GH_TOKEN" https://api.github.com/user'
	grep -qx "auth api.github.com token $GHTOK" tlshost.log ||
	    atf_fail "api.github.com did not get the token: $(grep auth tlshost.log | tr "\n" " ")"
	# git over HTTPS to github.com, the placeholder as password
	b64=$(printf 'x-access-token:%s' "$GHTOK" | base64 -w0)
	in_ctr $c sh -c 'git ls-remote "https://x-access-token:$GH_TOKEN@github.com/git/r.git"' \
	    > git.out 2>&1 || true
	grep -qx "auth github.com Basic $b64" tlshost.log ||
	    atf_fail "git did not reach github.com with the token: $(tr "\n" " " < git.out) $(grep auth tlshost.log | tr "\n" " ")"
	# another host gets the placeholder only
	in_ctr "$c" sh -c 'cat > /tmp/ca.pem' < ca.pem ||
	    atf_fail "cannot give the container the test CA"
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 --cacert /tmp/ca.pem -H "Authorization: token $GH_TOKEN" https://www.test/'
	grep -qx "auth www.test token $ph" tlshost.log ||
	    atf_fail "www.test did not get the placeholder: $(grep auth tlshost.log | tr "\n" " ")"
	# after the suite restarts the token is read from the configuration
	# again and put in under the recorded placeholder
	incus config get $c user.jailbee.secrets > record.txt
	grep -qx "GH_TOKEN=$ph" record.txt && grep -qx "github.prefix=$p" record.txt ||
	    atf_fail "the record: $(tr "\n" " " < record.txt)"
	grep -F "$GHTOK" record.txt && atf_fail "the token is in the record"
	suite_restart
	restarted_reaches api.github.com /user 'Authorization: token $GH_TOKEN' \
	    "auth api.github.com token $GHTOK"
	value_in $c && atf_fail "the token is in container $c"
	grep -F "$GHTOK" jailbeed.log && atf_fail "the token is in the log"
	return 0
}
github_token_cleanup() { jb_cleanup; jb_containers_cleanup; nh_down; }

atf_test_case github_no_gateway cleanup
github_no_gateway_head() {
	atf_set descr "when the egress gateway does not take TLS (443 not in" \
	    "network.gateway_ports) github.token is not given at all: new and" \
	    "net status say why, GH_TOKEN is unset in the container and the" \
	    "token is nowhere in it"
	atf_set require.user root
	atf_set timeout 300
}
github_no_gateway_body() {
	JB_CONF_EXTRA="network:
  gateway_ports: [80]"
	setup_github
	c=$p-ng
	atf_check -o ignore \
	    -e match:"github.token is not given to containers: the egress gateway, which alone puts it in, does not take port 443 \(network.gateway_ports in jailbeed.yaml\)" \
	    -e match:"ready: $c" jbo repo new ng
	atf_check -o inline:"unset\n" in_ctr $c bash -lc 'echo ${GH_TOKEN-unset}'
	atf_check -o match:"^  secret GH_TOKEN for api\.github\.com, github\.com: not given: github.token is not given to containers" \
	    jbo repo net status ng
	value_in $c && atf_fail "the token is in container $c"
	return 0
}
github_no_gateway_cleanup() { jb_containers_cleanup; jb_cleanup; }

# jailbeed stopped and started again
suite_restart() {
	pid=$(cat jailbeed.pid)
	kill -TERM "$pid"
	jb_wait_gone "$pid" 50 || atf_fail "jailbeed did not stop"
	rm -rf "$(cat rundir)"
	jb_start
	# jbo names the new socket
	jb_tools
}

# after suite_restart: once the suite has put container $c's secrets in
# again (it logs so), curl https://$1$2 in $c with the header $3 (the
# container's shell expands it) must reach the server, which must have
# seen the line $4 last
restarted_reaches() {
	i=0
	while [ $i -lt 100 ] && ! grep -q "secrets: $c: its CA is in its trust store again" jailbeed.log; do
		sleep 0.1
		i=$((i + 1))
	done
	n=$(grep -c '^auth ' tlshost.log)
	atf_check -o inline:"tls hello $1 from $NH_WWW\n" \
	    in_ctr $c sh -c "curl -sS --max-time 5 -H \"$3\" https://$1$2"
	[ "$(grep -c '^auth ' tlshost.log)" -gt "$n" ] &&
	    [ "$(grep '^auth ' tlshost.log | tail -n 1)" = "$4" ] ||
	    atf_fail "after the restart $1 did not get $4: $(grep auth tlshost.log | tr "\n" " ")"
}

atf_test_case restart cleanup
restart_head() {
	atf_set descr "after the suite restarts, a container made before it" \
	    "still has its secret put in: its placeholder from the instance's" \
	    "record, the value read again, the new gateway CA in its trust store"
	atf_set require.user root
	atf_set timeout 300
}
restart_body() {
	setup_net
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	suite_restart
	# running: put in again as the suite comes up
	restarted_reaches www.test / 'Authorization: Bearer $API_TOKEN' \
	    "auth www.test Bearer $VALUE"
	# the record holds the placeholder, never the value
	incus config get $c user.jailbee.secrets > record.txt
	grep -q "^API_TOKEN=jbsecret-" record.txt ||
	    atf_fail "no placeholder recorded: $(tr "\n" " " < record.txt)"
	grep -F "$VALUE" record.txt && atf_fail "the value is in the record"
	# stopped while the suite restarts: its secrets are back once start
	# returns
	atf_check -o ignore -e ignore jbo repo stop gw
	suite_restart
	atf_check -o ignore -e ignore jbo repo start gw
	jb_routed "$c"
	n=$(grep -c '^auth ' tlshost.log)
	atf_check -o inline:"tls hello www.test from $NH_WWW\n" \
	    in_ctr $c sh -c 'curl -sS --max-time 5 -H "Authorization: Bearer $API_TOKEN" https://www.test/'
	[ "$(grep -c '^auth ' tlshost.log)" -gt "$n" ] &&
	    [ "$(grep '^auth ' tlshost.log | tail -n 1)" = "auth www.test Bearer $VALUE" ] ||
	    atf_fail "after a restart and start the value did not reach the server: $(grep auth tlshost.log | tr "\n" " ")"
	return 0
}
restart_cleanup() { jb_cleanup; jb_containers_cleanup; nh_down; }

atf_init_test_cases() {
	atf_add_test_case tracked_refused
	atf_add_test_case placeholder_env
	atf_add_test_case substitute
	atf_add_test_case proxy
	atf_add_test_case refusals
	atf_add_test_case rotate
	atf_add_test_case restart
	atf_add_test_case github_token
	atf_add_test_case github_no_gateway
}
