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
# Crash recovery: SIGKILL of each process of the suite in turn (jailbeed,
# jb-incus, jb-netd, jb-mountd, jb-gitd, jb-sshd's listener, its root
# spawner and a session), at rest and in the middle of a command.  One
# fixture per case serves every victim: a strict container whose allowlist
# is a name (pooled by the resolver) and an override, a loose one with a
# deadline, and an optional mount with a deadline.  After each kill: no
# container is more open than before (real packets from the test hosts'
# namespace, nethosts.sh), the whole suite is gone with nothing left
# behind, and after a restart the deadlines, the pool, the overrides and
# what jbctl says agree with what they were, with Incus and with nft.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.213.0.0/24

# the tools again: jbo and the like name the socket, new at each start
crash_tools() {
	jb_tools
	jb_ssh_tools
	# ctr_http C HOST PORT: GET / from container C (busybox nc)
	cat > bin/ctr_http <<'EOS'
#!/bin/sh
exec in_ctr "$1" sh -c "e=\$(mktemp); printf 'GET / HTTP/1.0\r\n\r\n' | nc -v -w 5 $2 $3 2>\$e; rc=\$?; grep -v ' succeeded!\$' \$e >&2; rm -f \$e; exit \$rc"
EOS
	chmod 0755 bin/ctr_http
}

crash_start() {
	jb_ssh_conf "$NH_RESOLVER"
	jb_start
	crash_tools
}

# the fixture: s strict (www.test:8080 through the resolver, and an
# override for the echo host), l loose for $1, an optional mount on s
# for $2
crash_fixture() {
	jb_owner_home
	crash_start
	jb_image
	jb_repo
	nh_up "$BR_NET"
	jb_ssh_key
	w=$(pwd)
	mkdir -p "$w/creds"
	echo secret > "$w/creds/file"
	chown -R $JB_OWNER "$w/creds"
	chmod 0755 "$w/creds"
	cat >> repo/.jailbee/config.yaml <<EOC
egress_allow:
  - "www.test:8080"
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	S=$(jb_prefix)-s
	L=$(jb_prefix)-l
	atf_check -e match:"ready: $S" jbo repo new s
	atf_check -e match:"ready: $L" jbo repo new l
	jb_routed "$S"
	jb_routed "$L"
	atf_check -e ignore jbo repo net egress add "$NH_ECHO:7" s
	atf_check -e match:"loose for" jbo repo net loose --for "$1" l
	atf_check -e match:"attached creds on $S" \
	    jbo repo mount creds s --for "$2"
	crash_snapshot before
}

# what must survive a crash: the pool's answer times move at each
# refresh, so of the admitted addresses only which name has which
crash_snapshot() {
	jbo repo ls -o json | jq -S '.containers' > "$1.ls" ||
	    atf_fail "jbctl ls failed"
	jbo repo net status -o json | jq -S '.containers |
	    map(.admitted |= map({name, address}))' > "$1.net" ||
	    atf_fail "jbctl net status failed"
	jbo repo net egress ls -o json s | jq -S . > "$1.egress" ||
	    atf_fail "jbctl net egress ls failed"
	jbo repo mount ls -o json s | jq -S . > "$1.mounts" ||
	    atf_fail "jbctl mount ls failed"
}

# jbctl ls and net status agree with Incus and with nft: the same
# containers in the same states; each one's verdict in the ctrs map is
# its mode's (accept when loose, its strict chain when strict)
crash_agree() {
	jbo repo ls -o json | jq -r '.containers[] | "\(.name) \(.state)"' |
	    sort > agree.ls
	incus list "^$(jb_prefix)-" -f json |
	    jq -r '.[] | "\(.name) \(.status)"' | sort > agree.incus
	diff agree.incus agree.ls >&2 ||
	    atf_fail "jbctl ls and Incus disagree"
	nft list map inet jailbee ctrs > agree.nft ||
	    atf_fail "no ctrs map in table inet jailbee"
	jbo repo net status -o json |
	    jq -r '.containers[] | "\(.name) \(.ipv4) \(.mode)"' |
	    while read -r n ip m; do
		case $m in
		strict)	v="jump strict" ;;
		loose)	v=accept ;;
		*)	atf_fail "$n is in mode $m" ;;
		esac
		grep -q "$ip : $v" agree.nft ||
		    atf_fail "nft has not '$ip : $v' for $n ($m): $(cat agree.nft)"
	done
}

# the strict container is as strict as it was: its name (from the pool)
# and override connect, nothing else does, its chain is in the table;
# the loose one is loose until its deadline, no more
crash_strict_holds() {
	[ "$(jb_verdict_of "$(incus config device get "$S" eth0 \
	    ipv4.address)")" = "jump strict" ] ||
	    atf_fail "$S's verdict is not chain strict ($1)"
	atf_check -o match:"^hello 8080 from $NH_WWW" \
	    ctr_http "$S" $NH_WWW 8080
	atf_check -o inline:"ping\n" in_ctr "$S" sh -c \
	    "echo ping | nc -w 3 $NH_ECHO 7"
	atf_check -s not-exit:0 -e match:"refused" \
	    ctr_http "$S" $NH_WWW 8081
	atf_check -s not-exit:0 -e match:"refused" \
	    ctr_http "$S" $NH_WWW2 8080
}

# every process of the suite: jailbeed and all its descendants (the
# reaper, the daemons, the SSH spawner and its sessions)
crash_tree() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
	    { kid[$2] = kid[$2] " " $1 }
	    END {
		q[1] = root; n = 1
		for (i = 1; i <= n; i++) {
			print q[i]
			m = split(kid[q[i]], k, " ")
			for (j = 1; j <= m; j++) q[++n] = k[j]
		}
	    }'
}

# the pid of VICTIM: a daemon by its name, jailbeed, jb-sshd's root
# spawner (the listener's child) or one of its sessions (the spawner's)
crash_victim() {
	case $1 in
	jailbeed) cat jailbeed.pid ;;
	spawner) pgrep -P "$(jb_pid jb-sshd)" -u 0 -x jb-sshd ;;
	session) pgrep -P "$(pgrep -P "$(jb_pid jb-sshd)" -u 0 -x jb-sshd)" ;;
	*) jb_pid "$1" ;;
	esac
}

# a live SSH session, as a user's idle connection
crash_session() {
	jssh -i key1 -N jailbee@127.0.0.1 > live.out 2>&1 &
	echo $! > live.pid
	i=0
	until spawner=$(crash_victim spawner) && [ -n "$spawner" ] &&
	    pgrep -P "$spawner" > /dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "no SSH session came up"
		sleep 0.1
	done
}

# kill VICTIM; the whole suite goes within 3 s and nothing of it stays
crash_kill() {
	ppid=$(cat jailbeed.pid)
	crash_tree "$ppid" > tree
	vpid=$(crash_victim "$1")
	[ -n "$vpid" ] && grep -qx "$vpid" tree ||
	    atf_fail "no $1 in the suite's process tree"
	kill -KILL "$vpid"
	jb_wait_gone "$ppid" 30 ||
	    atf_fail "jailbeed still running 3 s after $1 was killed"
	status=0
	wait "$ppid" || status=$?
	[ $status -ne 0 ] || atf_fail "jailbeed exited 0 after $1 was killed"
	for p in $(cat tree); do
		jb_wait_gone "$p" 30 ||
		    atf_fail "pid $p ($(cat /proc/$p/cmdline | tr '\0' ' ')) outlived the suite after $1 was killed"
	done
	rm -f jailbeed.pid
	rm -rf "$(cat rundir)"
	[ -f live.pid ] && { kill "$(cat live.pid)" 2>/dev/null; rm -f live.pid; }
	return 0
}

# kill one SSH session: it alone goes, with its client's connection;
# the suite goes on serving
crash_kill_session() {
	ppid=$(cat jailbeed.pid)
	crash_tree "$ppid" > tree
	vpid=$(crash_victim session)
	[ -n "$vpid" ] || atf_fail "no SSH session to kill"
	kill -KILL "$vpid"
	jb_wait_gone "$vpid" 30 || atf_fail "session $vpid outlived SIGKILL"
	jb_wait_gone "$(cat live.pid)" 30 ||
	    atf_fail "the client's connection outlived its session"
	rm -f live.pid
	for p in $(grep -vx "$vpid" tree); do
		jb_alive "$p" ||
		    atf_fail "pid $p of the suite died with an SSH session"
	done
	atf_check -o match:"jb-sshd" ./bin/jbctl -s "$(jb_sock)" status
}

# SIGTERM: the whole suite goes, the spawner and every session with it
crash_stop() {
	crash_session
	crash_tree "$(cat jailbeed.pid)" > tree
	jb_cleanup
	rm -f jailbeed.pid
	for p in $(cat tree); do
		jb_wait_gone "$p" 30 ||
		    atf_fail "pid $p ($(cat /proc/$p/cmdline | tr '\0' ' ')) outlived the suite's SIGTERM"
	done
	jb_wait_gone "$(cat live.pid)" 30 ||
	    atf_fail "an SSH connection outlived the suite"
	rm -f live.pid
}

crash_cleanup() {
	[ -f live.pid ] && kill "$(cat live.pid)" 2>/dev/null
	jb_cleanup
	jb_containers_cleanup
	nh_down
	jb_owner_home_restore
}

VICTIMS="jailbeed jb-incus jb-netd jb-mountd jb-gitd jb-sshd spawner session"

atf_test_case at_rest cleanup
at_rest_head() {
	atf_set descr "SIGKILL of each process of the suite at rest: the" \
	    "suite stops with nothing left, the strict container stays strict" \
	    "with its table, and after a restart the pool, overrides and" \
	    "deadlines are as they were and fire at their time"
	atf_set require.user root
	atf_set timeout 600
}
at_rest_body() {
	crash_fixture 120s 120s
	net_until=$(jq -r ".[] | select(.name == \"$L\") | .net_until" before.ls)
	mount_until=$(jq -r ".[] | select(.name == \"$S\") | .mount_until" before.ls)
	# the upstream resolver goes: what is admitted now is the pool's
	kill "$(cat dnsmasq.pid)"
	crash_strict_holds "before"
	for v in $VICTIMS; do
		crash_session
		if [ "$v" = session ]; then
			crash_kill_session
		else
			crash_kill "$v"
			crash_strict_holds "$v killed, the suite down"
			crash_start
		fi
		crash_snapshot after
		for f in ls net egress mounts; do
			diff -u before.$f after.$f >&2 ||
			    atf_fail "jbctl $f differs after $v was killed"
		done
		crash_agree
		crash_strict_holds "$v killed, the suite restarted"
	done
	# the deadlines: loose reverts and the mount goes at their time
	now=$(date +%s)
	[ "$now" -lt "$net_until" ] ||
	    atf_fail "the loop outlasted the deadlines: raise them"
	until [ "$(date +%s)" -ge $((net_until + 2)) ]; do sleep 0.5; done
	atf_check -o inline:"strict\n" -x \
	    "jbo repo net status -o json | jq -r '.containers[] | select(.name == \"$L\") | .mode'"
	atf_check -s not-exit:0 -e match:"refused" ctr_http "$L" $NH_WWW 8081
	until [ "$(date +%s)" -ge $((mount_until + 2)) ]; do sleep 0.5; done
	atf_check -o inline:"0\n" -x \
	    "jbo repo mount ls -o json s | jq '.mounts | length'"
	atf_check -s not-exit:0 -e ignore \
	    incus config device get "$S" optional-creds source
	crash_agree
	crash_stop
}
at_rest_cleanup() { crash_cleanup; }

# wait until file $1 has a line matching $2 (a step of a command)
crash_wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || { cat "$1" >&2; atf_fail "never saw '$2'"; }
		sleep 0.1
	done
}

# jbctl, its server killed under it: one line saying so, exit 1, never
# a crash; $1: its exit status, $2: its stderr, $3: what it had said
crash_jbctl_said() {
	[ "$1" = 1 ] || { cat "$2" >&2; atf_fail "jbctl exited $1 ($3)"; }
	grep -v "^jbctl: " "$2" >&2 &&
	    atf_fail "jbctl wrote other than its own lines ($3)"
	tail -n 1 "$2" | grep -qx "jbctl: jailbeed closed the connection (see its log)" ||
	    { cat "$2" >&2; atf_fail "jbctl's last line is not that jailbeed closed the connection ($3)"; }
	[ "$(grep -c "closed the connection" "$2")" = 1 ] ||
	    { cat "$2" >&2; atf_fail "jbctl said it more than once ($3)"; }
}

# the half-made container M, if Incus has it: not more open than a
# strict one (nothing but what its allowlist says, and while its policy
# is missing nothing at all) and what jbctl says of it agrees
crash_half_made() {
	M=$(jb_prefix)-m
	incus info "$M" > /dev/null 2>&1 || return 0
	ip=$(incus config device get "$M" eth0 ipv4.address 2>/dev/null)
	if [ -n "$ip" ] && nft list map inet jailbee ctrs |
	    grep -q "$ip : accept"; then
		atf_fail "the half-made $M is loose in nft ($1)"
	fi
	if [ "$(incus list -c s --format csv "^$M\$")" = RUNNING ]; then
		atf_check -s not-exit:0 -e ignore ctr_http "$M" $NH_WWW 8081
		atf_check -s not-exit:0 -e ignore ctr_http "$M" $NH_WWW2 8080
	fi
}

atf_test_case mid_command cleanup
mid_command_head() {
	atf_set descr "SIGKILL of each process in the middle of a command" \
	    "(new at each step, exec, an SSH exec): jbctl says in one" \
	    "line that jailbeed went and exits 1, the suite stops with" \
	    "nothing left, no container is more open, and after a restart" \
	    "jbctl agrees with Incus and nft"
	atf_set require.user root
	atf_set timeout 900
}
mid_command_body() {
	crash_fixture 1h 1h
	kill "$(cat dnsmasq.pid)"
	n=0
	# jailbeed at each step of new, and in an exec
	for step in "is new" "network: strict" "creating .* at " "starting"; do
		n=$((n + 1))
		jbo repo new m > new.out 2> new.err &
		jp=$!
		crash_wait_for new.err "$step"
		crash_kill jailbeed
		rc=0; wait $jp || rc=$?
		crash_jbctl_said $rc new.err "new killed at '$step'"
		crash_strict_holds "jailbeed killed in new at '$step'"
		crash_half_made "jailbeed killed in new at '$step'"
		crash_start
		crash_agree
		crash_half_made "restarted after new was cut at '$step'"
		incus info "$(jb_prefix)-m" > /dev/null 2>&1 &&
		    atf_check -e ignore jbo repo destroy --force m
	done
	jbo repo exec s -- sh -c 'echo started; exec sleep 60' \
	    > exec.out 2> exec.err &
	jp=$!
	crash_wait_for exec.out started
	crash_kill jailbeed
	rc=0; wait $jp || rc=$?
	crash_jbctl_said $rc exec.err "exec"
	crash_start
	# each daemon while new makes a container
	for v in jb-incus jb-netd jb-mountd jb-gitd; do
		jbo repo new m > new.out 2> new.err &
		jp=$!
		crash_wait_for new.err "starting"
		crash_kill "$v"
		rc=0; wait $jp || rc=$?
		crash_jbctl_said $rc new.err "$v killed in new"
		crash_strict_holds "$v killed in new"
		crash_half_made "$v killed in new"
		crash_start
		crash_agree
		crash_half_made "restarted after $v was killed in new"
		incus info "$(jb_prefix)-m" > /dev/null 2>&1 &&
		    atf_check -e ignore jbo repo destroy --force m
	done
	# the SSH side in an exec over SSH
	for v in jb-sshd spawner session; do
		jssh -i key1 jailbee@127.0.0.1 \
		    "exec $S -- sh -c 'echo started; exec sleep 60'" \
		    > ssh.out 2> ssh.err &
		echo $! > live.pid
		crash_wait_for ssh.out started
		if [ "$v" = session ]; then
			crash_kill_session
		else
			crash_kill "$v"
			crash_strict_holds "$v killed in an SSH exec"
			crash_start
		fi
		crash_agree
	done
	crash_snapshot after
	for f in ls net egress mounts; do
		diff -u before.$f after.$f >&2 ||
		    atf_fail "jbctl $f differs after the kills"
	done
	crash_stop
}
mid_command_cleanup() { crash_cleanup; }

atf_init_test_cases() {
	atf_add_test_case at_rest
	atf_add_test_case mid_command
}
