#! /usr/bin/env atf-sh
#
# Lock-down proofs (FEATURES B1, issue "Lock every process down"): each
# process is asked, through a message that exists only in test builds, to
# try an operation its sandbox forbids.  The operation must fail, and the
# suite must keep serving.

. "$(atf_get_srcdir)/lib.sh"

# the jbctl of the test build asks a process to try something
attempt_tool() {
	cat > bin/attempt <<EOS
#!/bin/sh
exec "$(pwd)/bin/jbctl" -s "$(jb_sock)" _test-attempt "\$@"
EOS
	chmod 0755 bin/attempt
}

# the suite is whole: seven processes answer (jb-reaper among them)
still_serving() {
	atf_check -o inline:"7\n" -x \
	    "./bin/jbctl -s $(jb_sock) status -o json | jq '.processes | length'"
}

atf_test_case status_shows_sandbox cleanup
status_shows_sandbox_head() {
	atf_set descr "jbctl status says what each process's lock-down enforces"
	atf_set require.user root
}
status_shows_sandbox_body() {
	jb_start
	attempt_tool
	jbctl status -o json > s.json
	for p in jailbeed jb-reaper jb-incus jb-netd jb-mountd jb-sshd jb-gitd; do
		sb=$(jq -r ".processes[] | select(.name == \"$p\") | .sandbox" s.json)
		echo "$p: $sb"
		case $sb in
		*seccomp*landlock*) ;;
		*) atf_fail "$p: sandbox summary lacks seccomp and landlock: $sb" ;;
		esac
		pid=$(jq -r ".processes[] | select(.name == \"$p\") | .pid" s.json)
		atf_check -o inline:"2\n" awk '$1 == "Seccomp:" { print $2 }' \
		    /proc/$pid/status
	done
}
status_shows_sandbox_cleanup() { jb_cleanup; }

atf_test_case sshd_confined cleanup
sshd_confined_head() {
	atf_set descr "jb-sshd cannot open a file outside its chroot nor" \
	    "connect to the Incus socket"
	atf_set require.user root
}
sshd_confined_body() {
	jb_start
	attempt_tool
	atf_check -o match:"^denied: read /etc/passwd" bin/attempt jb-sshd read /etc/passwd
	atf_check -o match:"^denied: read /" bin/attempt jb-sshd read /
	atf_check -o match:"^denied: connect /var/lib/incus/unix.socket" \
	    bin/attempt jb-sshd connect /var/lib/incus/unix.socket
	still_serving
}
sshd_confined_cleanup() { jb_cleanup; }

atf_test_case netd_confined cleanup
netd_confined_head() {
	atf_set descr "jb-netd, uid 0 with CAP_NET_ADMIN, cannot read the" \
	    "owner's files that plain file modes would let it read"
	atf_set require.user root
}
netd_confined_body() {
	jb_start
	attempt_tool
	# a file in a home of the owner's that anyone may read
	mkdir -p home
	echo secret > home/secret
	chown -R $JB_OWNER home
	chmod 0755 home
	chmod 0644 home/secret
	atf_check -o match:"^denied: read $(pwd)/home/secret: Permission denied" \
	    bin/attempt jb-netd read "$(pwd)/home/secret"
	atf_check -o match:"^denied: read /etc/shadow" bin/attempt jb-netd read /etc/shadow
	atf_check -o match:"^denied: write /tmp/jb-netd-was-here" \
	    bin/attempt jb-netd write /tmp/jb-netd-was-here
	[ ! -e /tmp/jb-netd-was-here ] || atf_fail "jb-netd wrote a file"
	still_serving
}
netd_confined_cleanup() { jb_cleanup; rm -f /tmp/jb-netd-was-here; }

atf_test_case mountd_read_only cleanup
mountd_read_only_head() {
	atf_set descr "jb-mountd sees the owner's files but cannot write," \
	    "not even where the owner may, but for its state directory"
	atf_set require.user root
}
mountd_read_only_body() {
	jb_start
	attempt_tool
	d=$(mktemp -d /tmp/jbmountd.XXXXXX)
	echo "$d" > mountdir
	chown $JB_OWNER "$d"
	echo hello > "$d/readable"
	chown $JB_OWNER "$d/readable"
	# the owner itself may write there: only the sandbox can stop jb-mountd
	atf_check setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \
	    touch "$d/owner-can"
	atf_check -o match:"^allowed: read $d/readable" bin/attempt jb-mountd read "$d/readable"
	atf_check -o match:"^denied: write $d/mountd-cannot" \
	    bin/attempt jb-mountd write "$d/mountd-cannot"
	[ ! -e "$d/mountd-cannot" ] || atf_fail "jb-mountd wrote a file"
	# but for its own directory of mount deadlines (M2)
	atf_check -o match:"^allowed: write $(pwd)/state/mounts/probe" \
	    bin/attempt jb-mountd write "$(pwd)/state/mounts/probe"
	atf_check -o match:"^denied: write $(pwd)/state/other" \
	    bin/attempt jb-mountd write "$(pwd)/state/other"
	still_serving
}
mountd_read_only_cleanup() {
	jb_cleanup
	[ -f mountdir ] && rm -rf "$(cat mountdir)"
	return 0
}

atf_test_case parent_confined cleanup
parent_confined_head() {
	atf_set descr "jailbeed can reach neither Incus nor netfilter"
	atf_set require.user root
}
parent_confined_body() {
	jb_start
	attempt_tool
	atf_check -o match:"^denied: connect /var/lib/incus/unix.socket" \
	    bin/attempt jailbeed connect /var/lib/incus/unix.socket
	atf_check -o match:"^denied: netlink" bin/attempt jailbeed netlink -
	atf_check -o match:"^denied: write /etc/jailbee-was-here" \
	    bin/attempt jailbeed write /etc/jailbee-was-here
	still_serving
}
parent_confined_cleanup() { jb_cleanup; rm -f /etc/jailbee-was-here; }

atf_test_case incus_confined cleanup
incus_confined_head() {
	atf_set descr "jb-incus reaches Incus but no file and not netfilter"
	atf_set require.user root
}
incus_confined_body() {
	jb_start
	attempt_tool
	atf_check -o match:"^denied: read /etc/passwd" bin/attempt jb-incus read /etc/passwd
	atf_check -o match:"^denied: netlink" bin/attempt jb-incus netlink -
	atf_check -o match:"^allowed: connect /var/lib/incus/unix.socket" \
	    bin/attempt jb-incus connect /var/lib/incus/unix.socket
	still_serving
}
incus_confined_cleanup() { jb_cleanup; }

atf_test_case gitd_worker_confined cleanup
gitd_worker_confined_head() {
	atf_set descr "a jb-gitd git worker writes only what a fetch writes" \
	    "in the checkout's .git (objects, refs, logs), never its hooks," \
	    "config, info or packed-refs"
	atf_set require.user root
}
gitd_worker_confined_body() {
	jb_start
	attempt_tool
	jb_repo
	g=$(pwd)/repo/.git
	for f in hooks/post-checkout hooks/pre-commit config info/attributes \
	    packed-refs FETCH_HEAD shallow planted; do
		atf_check -o match:"^denied: write $g/$f: Permission denied" \
		    bin/attempt jb-gitd-worker write "$g/$f"
	done
	atf_check -s not-exit:0 test -e "$g/planted"
	atf_check -s not-exit:0 test -e "$g/hooks/post-checkout"
	# what a fetch writes, it may
	for f in objects/pack/tmp_pack_probe refs/jailbee-probe.lock \
	    logs/refs/heads/main; do
		atf_check -o match:"^allowed: write $g/$f" \
		    bin/attempt jb-gitd-worker write "$g/$f"
	done
	rm -f "$g/objects/pack/tmp_pack_probe" "$g/refs/jailbee-probe.lock"
	still_serving
}
gitd_worker_confined_cleanup() { jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case status_shows_sandbox
	atf_add_test_case sshd_confined
	atf_add_test_case netd_confined
	atf_add_test_case mountd_read_only
	atf_add_test_case parent_confined
	atf_add_test_case incus_confined
	atf_add_test_case gitd_worker_confined
}
