#! /usr/bin/env atf-sh
#
# Lock-down proofs (FEATURES B1, issue "Lock every process down"): each
# process is asked, through a message that only a suite started with the
# test switch (jailbeed -T) accepts, to try an operation its sandbox
# forbids.  The filters are the ones users get: a call the seccomp filter
# allows meets Landlock and fails with its reason while the suite keeps
# serving; a call the filter does not allow kills the process (SIGSYS),
# and the parent names it.

. "$(atf_get_srcdir)/lib.sh"

# the jbctl of the test build asks a process to try something
attempt_tool() {
	cat > bin/attempt <<EOS
#!/bin/sh
exec "$(pwd)/bin/jbctl" -s "$(jb_sock)" _test-attempt "\$@"
EOS
	chmod 0755 bin/attempt
}

# process $1 was killed by its own seccomp filter: SIGSYS (31), as the
# parent's log says, and the suite, no longer whole, stopped
killed_by_filter() {
	pid=$(cat jailbeed.pid)
	jb_wait_gone "$pid" 100 || atf_fail "jailbeed still runs after $1 died"
	grep "$1 (pid [0-9]*) killed by signal 31" jailbeed.log ||
	    { cat jailbeed.log >&2; atf_fail "no SIGSYS death of $1 logged"; }
}

# the suite is whole: eight processes answer (jb-reaper among them)
still_serving() {
	atf_check -o inline:"8\n" -x \
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
	for p in jailbeed jb-reaper jb-incus jb-netd jb-mountd jb-sshd jb-gitd \
	    jb-egress; do
		sb=$(jq -r ".processes[] | select(.name == \"$p\") | .sandbox" s.json)
		echo "$p: $sb"
		# enforced: a ruleset with its rules, never "not enforced"
		# nor "landlock unavailable" (jb-gitd's is its workers')
		if [ $p = jb-gitd ]; then
			want='^seccomp: [0-9]+ calls.*, kill; landlock: per worker(;|$)'
		else
			want='^seccomp: [0-9]+ calls.*, kill; landlock abi [1-9]: [0-9]+ ro, [0-9]+ rw, [0-9]+ exec'
		fi
		echo "$sb" | grep -Eq "$want" ||
		    atf_fail "$p: sandbox summary does not say an enforced seccomp and landlock: $sb"
		pid=$(jq -r ".processes[] | select(.name == \"$p\") | .pid" s.json)
		atf_check -o inline:"2\n" awk '$1 == "Seccomp:" { print $2 }' \
		    /proc/$pid/status
	done
}
status_shows_sandbox_cleanup() { jb_cleanup; }

atf_test_case older_abi cleanup
older_abi_head() {
	atf_set descr "capped to Landlock ABI 1, 2 and 3 (as on an older" \
	    "kernel, Debian 12's 6.1 has 2), the suite starts, jbctl status" \
	    "says the ABI used and what it cannot restrict, and what that" \
	    "ABI can refuse is still refused"
	atf_set require.user root
}
older_abi_body() {
	jb_users
	jb_bin
	jb_conf
	# a value that is no ABI stops jailbeed before anything starts (a
	# jailbeed that took it would serve on: timeout ends it, 124)
	JB_TEST_LANDLOCK_ABI=9 atf_check -s exit:2 \
	    -e inline:"jailbeed: JB_TEST_LANDLOCK_ABI=9: not a Landlock ABI; give one from 1 to 7, or unset it\n" \
	    timeout 10 "$(jb_build)/jailbeed" -T -d -f jailbeed.yaml
	kabi=$(python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True);
print(l.syscall(444, None, 0, 1))')
	[ "$kabi" -ge 4 ] ||
	    atf_fail "this kernel has Landlock ABI $kabi: the case needs 4 or later to cap below"
	mkdir -p home
	echo secret > home/secret
	chown -R $JB_OWNER home
	chmod 0755 home
	chmod 0644 home/secret
	for cap in 1 2 3; do
		JB_TEST_LANDLOCK_ABI=$cap
		export JB_TEST_LANDLOCK_ABI
		jb_start
		unset JB_TEST_LANDLOCK_ABI
		attempt_tool
		jbctl status > status.txt
		cat status.txt
		case $cap in
		1|2) miss="truncate, tcp, device ioctl, signals, abstract unix" ;;
		3) miss="tcp, device ioctl, signals, abstract unix" ;;
		esac
		# seven processes lock down in place (jb-egress among them), each at
		# the capped ABI
		atf_check -o inline:"7\n" awk -v w="landlock abi $cap (kernel $kabi, capped for a test): " \
		    -v m="; cannot restrict at this abi: $miss" '
		    /^LOCK-DOWN/ { on = 1; next }
		    on && index($0, w) && index($0, m) { n++ }
		    END { print n }' status.txt
		# what every ABI restricts is still refused, by Landlock
		atf_check -o match:"^denied: read $(pwd)/home/secret: Permission denied" \
		    bin/attempt jb-netd read "$(pwd)/home/secret"
		atf_check -o match:"^denied: write /etc/jailbee-was-here: Permission denied" \
		    bin/attempt jailbeed write /etc/jailbee-was-here
		[ ! -e /etc/jailbee-was-here ] || atf_fail "jailbeed wrote a file"
		still_serving
		jb_cleanup
		rm -f jailbeed.pid
	done
}
older_abi_cleanup() { jb_cleanup; rm -f /etc/jailbee-was-here; }

atf_test_case sshd_confined cleanup
sshd_confined_head() {
	atf_set descr "jb-sshd cannot open a file outside its chroot nor" \
	    "connect to the Incus socket"
	atf_set require.user root
}
sshd_confined_body() {
	jb_start
	attempt_tool
	# openat is allowed (libssh tries files): the chroot and Landlock
	atf_check -o match:"^denied: read /etc/passwd: No such file or directory" \
	    bin/attempt jb-sshd read /etc/passwd
	atf_check -o match:"^denied: read /: Permission denied" \
	    bin/attempt jb-sshd read /
	# connect is not in its filter: refused with EACCES (syslog's
	# reconnect must not kill it), never reached
	atf_check -o match:"^denied: connect /var/lib/incus/unix.socket: Permission denied" \
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
	atf_check -o match:"^denied: netlink -: Permission denied" \
	    bin/attempt jb-incus netlink -
	atf_check -o match:"^allowed: connect /var/lib/incus/unix.socket" \
	    bin/attempt jb-incus connect /var/lib/incus/unix.socket
	still_serving
	# no file at all: open is not in its filter, and kills it.  (An
	# AddressSanitizer build's filter lets its run time open files, so
	# there Landlock is what refuses.)
	case $(jbctl status -o json |
	    jq -r '.processes[] | select(.name == "jb-incus") | .sandbox') in
	*"asan build"*)
		atf_check -o match:"^denied: read /etc/passwd: Permission denied" \
		    bin/attempt jb-incus read /etc/passwd
		still_serving
		;;
	*)
		atf_check -s not-exit:0 -o not-match:"allowed" -e ignore \
		    bin/attempt jb-incus read /etc/passwd
		killed_by_filter jb-incus
		;;
	esac
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

atf_test_case test_switch cleanup
test_switch_head() {
	atf_set descr "the test switch (jailbeed -T) is refused with the" \
	    "installed configuration; without it no process takes a test" \
	    "request, and the filters are the same with and without it"
	atf_set require.user root
}
test_switch_body() {
	atf_check -s exit:2 -e match:"-T .* refused with the installed configuration /etc/jailbee/jailbeed.yaml" \
	    "$(jb_build)/jailbeed" -n -T
	atf_check -s exit:2 -e match:"-T .* refused with the installed configuration" \
	    "$(jb_build)/jailbeed" -n -T -f /etc/jailbee/jailbeed.yaml
	# a suite started as users start it
	JB_TEST_SWITCH= jb_start
	attempt_tool
	jbctl status -o json | jq -r '.processes[] | "\(.name) \(.sandbox)"' |
	    sort > filters.prod
	for p in jb-incus jb-netd jb-mountd jb-sshd jb-gitd jb-egress; do
		pid=$(jb_pid $p)
		tr '\0' ' ' < /proc/$pid/cmdline | grep -q -- ' -T' &&
		    atf_fail "$p was given -T"
	done
	atf_check -s not-exit:0 -e match:"runs without the test switch" \
	    bin/attempt jb-netd read /etc/shadow
	still_serving
	jb_cleanup
	rm -f jailbeed.pid
	# with it: every child is told, and each filter is the same
	jb_start
	for p in jb-incus jb-netd jb-mountd jb-sshd jb-gitd jb-egress; do
		pid=$(jb_pid $p)
		tr '\0' ' ' < /proc/$pid/cmdline | grep -q -- ' -T' ||
		    atf_fail "$p was not given -T"
	done
	jbctl status -o json | jq -r '.processes[] | "\(.name) \(.sandbox)"' |
	    sort > filters.test
	cat filters.test
	atf_check diff filters.prod filters.test
}
test_switch_cleanup() { jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case status_shows_sandbox
	atf_add_test_case older_abi
	atf_add_test_case sshd_confined
	atf_add_test_case netd_confined
	atf_add_test_case mountd_read_only
	atf_add_test_case parent_confined
	atf_add_test_case incus_confined
	atf_add_test_case gitd_worker_confined
	atf_add_test_case test_switch
}
