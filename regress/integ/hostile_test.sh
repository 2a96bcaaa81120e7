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
# What one runaway may take of the host: every process of the suite
# bounds itself (memory, open files, processes where its user is the
# suite's own, no core file), and a hostile workload in a container
# stays in it while the suite keeps answering.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

# the front door on 127.0.0.1:8022 with key1 authorized (as ssh_test.sh)
ssh_up() {
	JB_CONF_EXTRA="remote:
  ssh:
    authorized_keys: $(pwd)/home/.config/jailbee/authorized_keys
${1:-}"
	export JB_CONF_EXTRA
	jb_start
	jb_bin
	cat > bin/ojbctl <<EOS
#!/bin/sh
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME="$(pwd)/home" "$(pwd)/bin/jbctl" -s "$(jb_sock)" "\$@"
EOS
	cat > bin/jssh <<'EOS'
#!/bin/sh
exec ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
    -o IdentitiesOnly=yes -o IdentityAgent=none -o LogLevel=ERROR \
    -o ConnectTimeout=10 "$@"
EOS
	chmod 0755 bin/ojbctl bin/jssh
	PATH=$(pwd)/bin:$PATH
	export PATH
	mkdir -p home
	chown "$JB_OWNER" home
	chmod 0700 home
	ssh-keygen -q -t ed25519 -N '' -C "key one" -f key1
	chmod 0644 key1.pub
	atf_check -o match:"^added SHA256:" ojbctl remote ssh key add key1.pub
}

# soft and hard value of /proc/$1/limits's line $2 ("Max data size")
limit_of() {
	awk -v n="$2" 'index($0, n " ") == 1 {
	    split(substr($0, 27), f, " "); print f[1], f[2] }' "/proc/$1/limits"
}

# process $1 (pid $2): limit $3 is set, soft at most $4, hard at most $5
bounded() {
	set -- "$1" "$2" "$3" "$4" "$5" $(limit_of "$2" "$3")
	echo "$1 (pid $2): $3: soft $6, hard $7"
	case "$6 $7" in
	*unlimited*|" ")
		atf_fail "$1 (pid $2) does not bound its $3: soft $6, hard $7" ;;
	esac
	[ "$6" -le "$4" ] && [ "$7" -le "$5" ] && [ "$6" -le "$7" ] ||
	    atf_fail "$1 (pid $2): $3 is soft $6, hard $7; at most $4, $5 expected"
}

atf_test_case daemons_bounded cleanup
daemons_bounded_head() {
	atf_set descr "every process of the suite, jb-reaper, jb-sshd's" \
	    "spawner and an SSH session too, bounds its memory (RLIMIT_DATA)," \
	    "its open files and its core files, and the processes of the" \
	    "suite's own users their number"
	atf_set require.user root
	atf_set timeout 120
}
daemons_bounded_body() {
	ssh_up
	# a console session that stays while its input is open
	sleep 30 | jssh -i key1 -tt jailbee@127.0.0.1 > console.out 2>&1 &
	echo $! > console.pid
	jbctl status -o json > s.json
	for p in jailbeed jb-reaper jb-incus jb-netd jb-mountd jb-sshd jb-gitd; do
		pid=$(jq -er ".processes[] | select(.name == \"$p\") | .pid" \
		    s.json) || atf_fail "jbctl status names no $p"
		echo "$p $pid" >> procs
	done
	sshd=$(awk '$1 == "jb-sshd" { print $2 }' procs)
	spawner=$(pgrep -P "$sshd") || atf_fail "jb-sshd has no spawner"
	echo "spawner $spawner" >> procs
	i=0
	until session=$(pgrep -P "$spawner"); do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat console.out >&2;
		    atf_fail "no SSH session under the spawner"; }
		sleep 0.1
	done
	echo "session $session" >> procs
	while read -r p pid; do
		# what each holds, for the report
		awk -v p="$p" '/^(VmData|VmHWM):/ { printf "%s %s %s kB\n",
		    p, $1, $2 }' "/proc/$pid/status"
		# memory: its own bound, and for git (jb-mountd, jb-gitd)
		# git's as the hard limit
		bounded "$p" "$pid" "Max data size" 536870912 4294967296
		bounded "$p" "$pid" "Max open files" 4096 4096
		bounded "$p" "$pid" "Max core file size" 0 0
		case $p in
		jb-incus|jb-sshd|session)
			bounded "$p" "$pid" "Max processes" 1024 1024 ;;
		esac
	done < procs
	kill "$(cat console.pid)" 2>/dev/null
}
daemons_bounded_cleanup() {
	[ -f console.pid ] && kill "$(cat console.pid)" 2>/dev/null
	jb_cleanup
}

atf_init_test_cases() {
	atf_add_test_case daemons_bounded
}
