#! /usr/bin/env atf-sh
#
# Remote Incus over HTTPS with a client certificate, configured by URL
# (C12).  The shared incusd is never reconfigured: each case starts a
# second incusd of its own, listening on one loopback port, and the
# suite is pointed at that daemon only by jailbeed.yaml's incus.url.

. "$(atf_get_srcdir)/lib.sh"

incus2_port() { cat incus2.port; }

# what jq picks out of jb-incus's line in jbctl status -o json
JBI='.processes[] | select(.name == "jb-incus")'

# a throw-away self-signed P-256 certificate and key: NAME.crt, NAME.key
mkcert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -days 1 -subj "/CN=$2" -keyout "$1.key" -out "$1.crt" \
	    > /dev/null 2>&1 || atf_fail "cannot make certificate $1"
	# root only: jb-incus reads them before it drops privileges
	chmod 0600 "$1.key" "$1.crt"
}

# A second incusd in a fresh INCUS_DIR, serving https on a free loopback
# port and trusting client.crt.  Its directory, pid and port are kept in
# the work directory for the cleanup, which runs in another process.
incus2_start() {
	d=$(mktemp -d /tmp/jbhttps.XXXXXX) || atf_fail "mktemp"
	echo "$d" > incus2.dir
	chmod 0711 "$d"
	# the second daemon's CLI, through its own socket only, as a
	# program atf_check can run
	mkdir -p bin
	printf '#!/bin/sh\nINCUS_DIR=%s exec incus "$@"\n' "$d" > bin/incus2
	chmod 0755 bin/incus2
	PATH=$(pwd)/bin:$PATH
	export PATH
	# its own session: it must outlive the body so that the cleanup
	# can shut it down cleanly; the dead proxy keeps it off the net
	INCUS_DIR=$d https_proxy=http://127.0.0.1:9 setsid \
	    /usr/libexec/incus/incusd --group incus-admin \
	    --logfile "$d/incusd.log" < /dev/null > "$d/incusd.out" 2>&1 &
	echo $! > incus2.pid
	if ! INCUS_DIR=$d /usr/libexec/incus/incusd waitready --timeout=60; then
		cat "$d/incusd.out" >&2
		atf_fail "the second incusd did not come up"
	fi
	# the daemon's own word for its pid, should setsid have forked
	incus2 query /1.0 | jq -er .environment.server_pid > incus2.pid ||
	    atf_fail "the second incusd does not say its pid"

	port=$((18443 + $$ % 1000))
	n=0
	while [ -n "$(ss -Hltn "sport = :$port")" ]; do
		n=$((n + 1))
		[ $n -lt 50 ] || atf_fail "no free port near 18443"
		port=$((port + 1))
	done
	echo "$port" > incus2.port
	atf_check incus2 config set core.https_address "127.0.0.1:$port"
	mkcert client jailbee-test
	atf_check -o ignore incus2 config trust add-certificate client.crt
	cp "$d/server.crt" server.crt
}

# Stop the second incusd, by its CLI or else by the pid it gave, and
# remove its directory once nothing is mounted below it.
incus2_stop() {
	[ -f incus2.dir ] || return 0
	d=$(cat incus2.dir)
	case $d in
	/tmp/jbhttps.*) ;;
	*) return 0 ;;
	esac
	pid=$(cat incus2.pid 2>/dev/null)
	if [ -S "$d/unix.socket" ] && ! INCUS_DIR=$d timeout 60 \
	    incus admin shutdown > /dev/null 2>&1 && [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		jb_wait_gone "$pid" 100 || kill -KILL "$pid" 2>/dev/null
		jb_wait_gone "$pid" 50
	fi
	# $d is no mount point itself, so findmnt -R $d would list nothing
	for m in $(findmnt -rn -o TARGET | grep "^$d/" | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	if findmnt -rn -o TARGET | grep -q "^$d/"; then
		echo "still mounted below $d, left in place" >&2
		return 0
	fi
	rm -rf "$d"
	return 0
}

# jb_start writes its configuration with jb_conf: this one points the
# suite at the second incusd, with the files named by CERT, KEY and CA
jb_conf() {
	RUNDIR=$(mktemp -d /run/jailbee-test.XXXXXX)
	rmdir "$RUNDIR"
	echo "$RUNDIR" > rundir
	cat > jailbeed.yaml <<EOC
owner: $JB_OWNER
socket: $RUNDIR/jailbeed.sock
state_dir: $(pwd)/state
incus:
  url: https://127.0.0.1:$(incus2_port)
  client_cert: $(pwd)/${CERT:-client}.crt
  client_key: $(pwd)/${KEY:-client}.key
  server_cert: $(pwd)/${CA:-server}.crt
EOC
}

atf_test_case reaches_over_https cleanup
reaches_over_https_head() {
	atf_set descr "with an https url and a trusted client certificate," \
	    "status and ls are answered by the remote incusd; jb-incus may" \
	    "connect to that one TCP port only; it is jb-incus-tls that runs"
	atf_set require.user root
	atf_set require.progs openssl jq ss setsid findmnt
	atf_set timeout 180
}
reaches_over_https_body() {
	incus2_start
	port=$(incus2_port)
	version=$(incus2 query /1.0 | jq -r .environment.server_version)
	jb_start
	jbctl status -o json > s.json
	url="https://127\\.0\\.0\\.1:$port"
	atf_check -o match:"^incus $version \\(api 1\\.0\\) at $url, auth trusted$" \
	    jq -r "$JBI | .detail" s.json
	# the lock-down follows the url: inet sockets, one port to connect
	# where the kernel's Landlock restricts tcp (ABI 4), else said open
	abi=$(jq -r "$JBI | .sandbox" s.json | sed -n 's/.*landlock abi \([0-9]*\).*/\1/p')
	if [ "${abi:-0}" -ge 4 ]; then
		tcp="tcp connect $port(,|;|\$)"
	else
		tcp="cannot restrict at this abi: .*tcp"
	fi
	atf_check -o match:"socket unix\\+inet\\+inet6, " \
	    -o match:"$tcp" jq -r "$JBI | .sandbox" s.json
	# jailbeed ran the build of jb-incus with TLS, which loads OpenSSL
	pid=$(jq -er "$JBI | .pid" s.json) || atf_fail "jb-incus has no pid"
	atf_check -o inline:"$(jb_build)/jb-incus-tls\n" readlink "/proc/$pid/exe"
	atf_check -o match:"/libssl\\.so" cat "/proc/$pid/maps"

	# the second incusd has no instance yet
	atf_check -o inline:"0\n" -x \
	    "./bin/jbctl -s $(jb_sock) ls --all -o json | jq '.containers | length'"
	# one that looks like the suite's, known only to the second incusd
	probe=jbh$$-probe
	atf_check -o ignore incus2 storage create jbhttps dir
	atf_check -o ignore -e ignore incus2 init --empty "$probe" \
	    -s jbhttps -c user.jailbee.repo=/srv/probe \
	    -c user.jailbee.prefix=jbh$$ -c user.jailbee.branch=main
	atf_check -s not-exit:0 -o ignore -e ignore incus info "$probe"
	jbctl ls --all -o json > ls.json
	atf_check -o inline:"$probe main /srv/probe\n" \
	    jq -r '.containers[] | "\(.name) \(.branch) \(.repo)"' ls.json
}
reaches_over_https_cleanup() { jb_cleanup; incus2_stop; }

atf_test_case wrong_server_cert cleanup
wrong_server_cert_head() {
	atf_set descr "a server_cert that is not the server's: jb-incus" \
	    "refuses the connection, says why, and the suite keeps serving"
	atf_set require.user root
	atf_set require.progs openssl jq ss setsid findmnt
	atf_set timeout 180
}
wrong_server_cert_body() {
	incus2_start
	port=$(incus2_port)
	mkcert impostor jailbee-impostor
	CA=impostor jb_start
	pid=$(jb_pid jb-incus)
	jbctl status -o json > s.json
	url="https://127\\.0\\.0\\.1:$port"
	atf_check -o match:"^incus at $url: .*certificate verify failed$" \
	    jq -r "$JBI | .detail" s.json
	atf_check -s exit:1 -e match:"certificate verify failed" \
	    ./bin/jbctl -s "$(jb_sock)" ls --all
	atf_check -o inline:"8\n" -x \
	    "./bin/jbctl -s $(jb_sock) status -o json | jq '.processes | length'"
	[ "$(jb_pid jb-incus)" = "$pid" ] || atf_fail "jb-incus was restarted"
}
wrong_server_cert_cleanup() { jb_cleanup; incus2_stop; }

atf_test_case untrusted_client_cert cleanup
untrusted_client_cert_head() {
	atf_set descr "a client certificate the remote incusd does not trust" \
	    "is reported as such and lists nothing"
	atf_set require.user root
	atf_set require.progs openssl jq ss setsid findmnt
	atf_set timeout 180
}
untrusted_client_cert_body() {
	incus2_start
	port=$(incus2_port)
	mkcert stranger jailbee-stranger
	CERT=stranger KEY=stranger jb_start
	jbctl status -o json > s.json
	url="https://127\\.0\\.0\\.1:$port"
	atf_check -o match:"^incus .* at $url, auth untrusted$" \
	    jq -r "$JBI | .detail" s.json
	atf_check -s exit:1 -e match:"ls: not authorized" \
	    ./bin/jbctl -s "$(jb_sock)" ls --all
}
untrusted_client_cert_cleanup() { jb_cleanup; incus2_stop; }

atf_test_case https_needs_files
https_needs_files_head() {
	atf_set descr "an https url without client_cert, client_key and" \
	    "server_cert is refused with the file, line and key"
	atf_set require.user root
}
https_needs_files_body() {
	jb_users
	cert="  client_cert: /etc/jailbee/client.crt"
	key="  client_key: /etc/jailbee/client.key"
	ca="  server_cert: /etc/jailbee/server.crt"
	why="jailbeed\\.yaml:4: incus: an https url needs client_cert,"
	why="$why client_key and server_cert"
	for missing in all client_cert client_key server_cert none; do
		{
			printf 'owner: %s\nsocket: /run/jailbee-test/j.sock\n' \
			    "$JB_OWNER"
			printf 'state_dir: /var/lib/jailbee\nincus:\n'
			printf '  url: https://incus.example.org:8443\n'
			case $missing in
			all) ;;
			client_cert) printf '%s\n%s\n' "$key" "$ca" ;;
			client_key) printf '%s\n%s\n' "$cert" "$ca" ;;
			server_cert) printf '%s\n%s\n' "$cert" "$key" ;;
			none) printf '%s\n%s\n%s\n' "$cert" "$key" "$ca" ;;
			esac
		} > jailbeed.yaml
		if [ $missing = none ]; then
			atf_check -o ignore -e ignore \
			    "$(jb_build)/jailbeed" -n -f jailbeed.yaml
		else
			atf_check -s exit:1 -e match:"$why" \
			    "$(jb_build)/jailbeed" -n -f jailbeed.yaml
		fi
	done
}

atf_init_test_cases() {
	atf_add_test_case reaches_over_https
	atf_add_test_case wrong_server_cert
	atf_add_test_case untrusted_client_cert
	atf_add_test_case https_needs_files
}
