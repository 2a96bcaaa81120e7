#! /usr/bin/env atf-sh
#
# The suite as a whole (DESIGN.md, issue "Foundation"): privileges of
# every process as the processes report them and as /proc sees them, the
# control socket's refusals, a dying child taking the suite down, a clean
# SIGTERM, and configuration errors.

. "$(atf_get_srcdir)/lib.sh"

CAP_NET_ADMIN_MASK=0000000000001000

# field of /proc/PID/status
proc_field() {
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}

atf_test_case status_privileges cleanup
status_privileges_head() {
	atf_set descr "jbctl status lists seven processes whose users and" \
	    "capabilities match DESIGN.md, and /proc agrees; jb-reaper, the" \
	    "one root process beside jb-netd, has no capability at all"
	atf_set require.user root
}
status_privileges_body() {
	jb_start
	atf_check -o save:status.json ./bin/jbctl -s "$(jb_sock)" status -o json
	atf_check -o inline:"8\n" jq '.processes | length' status.json
	owner_uid=$(id -u $JB_OWNER)

	for name in jailbeed jb-reaper jb-incus jb-netd jb-mountd jb-sshd jb-gitd \
	    jb-egress; do
		pid=$(jq -er ".processes[] | select(.name == \"$name\") | .pid" \
		    status.json) || atf_fail "$name missing from status"
		uid=$(jq -r ".processes[] | select(.name == \"$name\") | .uid" \
		    status.json)
		eff=$(jq -r ".processes[] | select(.name == \"$name\") | .cap_eff" \
		    status.json)
		# what the process says matches what the kernel says
		atf_check_equal "$(proc_field $pid Uid)" "$uid"
		atf_check_equal "$(proc_field $pid CapEff)" "$eff"
		atf_check_equal "$(proc_field $pid NoNewPrivs)" 1
		case $name in
		jailbeed|jb-mountd|jb-gitd) want_uid=$owner_uid ;;
		jb-incus) want_uid=$(id -u _jbincus) ;;
		jb-sshd) want_uid=$(id -u _jbsshd) ;;
		jb-egress) want_uid=$(id -u _jbegress) ;;
		jb-netd|jb-reaper) want_uid=0 ;;
		esac
		atf_check_equal "$uid" "$want_uid"
		# all four uid fields agree: no saved root to return to
		atf_check_equal "$(awk '$1 == "Uid:" { print $2 $3 $4 $5 }' \
		    /proc/$pid/status)" "$want_uid$want_uid$want_uid$want_uid"
		if [ $name = jb-netd ]; then
			want=$CAP_NET_ADMIN_MASK
		else
			want=0000000000000000
		fi
		atf_check_equal "$(proc_field $pid CapEff)" $want
		atf_check_equal "$(proc_field $pid CapPrm)" $want
		# nothing can be gained back, not even through exec
		atf_check_equal "$(proc_field $pid CapBnd)" 0000000000000000
		atf_check_equal "$(proc_field $pid CapInh)" 0000000000000000
		atf_check_equal "$(proc_field $pid CapAmb)" 0000000000000000
	done
	# a process that runs as a user has that user's groups, as id(1)
	# gives them (they are looked up in a child at start, privdrop.c)
	for pid in $(jq -r '.processes[].pid' status.json); do
		uid=$(proc_field $pid Uid)
		[ "$uid" != 0 ] || continue
		user=$(getent passwd "$uid" | cut -d: -f1)
		atf_check_equal "$(awk '$1 == "Groups:" { $1 = ""; print }' \
		    /proc/$pid/status | xargs -n 1 | sort -n | xargs)" \
		    "$(id -G "$user" | xargs -n 1 | sort -n | xargs)"
	done
	# jb-incus reaches Incus through its group, nothing else
	pid=$(jq -r '.processes[] | select(.name == "jb-incus") | .pid' status.json)
	incus_gid=$(getent group incus-admin | cut -d: -f3)
	atf_check -o match:"(^| )$incus_gid( |$)" awk '$1 == "Groups:" {
	    $1 = ""; print }' /proc/$pid/status
	# jb-reaper: no group, and only its channel, the socket's directory
	# and /dev/null open
	pid=$(jq -r '.processes[] | select(.name == "jb-reaper") | .pid' status.json)
	atf_check -o inline:"\n" awk '$1 == "Groups:" { $1 = ""; print }' \
	    /proc/$pid/status
	atf_check_equal "$(cat /proc/$pid/comm)" jb-reaper
	atf_check_equal "$(awk '$1 == "PPid:" { print $2 }' /proc/$pid/status)" \
	    "$(cat jailbeed.pid)"
	atf_check -o inline:"0 1 2 3 4\n" -x "ls /proc/$pid/fd | sort -n | xargs"
	atf_check -o inline:"$(cat rundir)\n" readlink /proc/$pid/fd/4
	atf_check -o match:"^socket:" readlink /proc/$pid/fd/3
	for f in 0 1 2; do
		atf_check -o inline:"/dev/null\n" readlink /proc/$pid/fd/$f
	done
	# jb-sshd sits in its empty chroot
	pid=$(jq -r '.processes[] | select(.name == "jb-sshd") | .pid' status.json)
	atf_check -o inline:"/var/empty/jailbee\n" readlink /proc/$pid/root
	# the text form lists the same eight, net_admin only on jb-netd
	atf_check -o save:status.txt ./bin/jbctl -s "$(jb_sock)" status
	atf_check -o inline:"8\n" awk 'NR > 1 && NF == 0 { exit }
	    NR > 1 { n++ } END { print n }' status.txt
	atf_check -o inline:"jb-netd cap_net_admin\n" awk 'NR > 1 && NF == 0 { exit }
	    $NF != "-" && NR > 1 { print $1, $NF }' status.txt
	# and below it, what each lock-down enforces (jb-gitd's Landlock is
	# its workers', one checkout each)
	atf_check -o inline:"7\n" awk '/^LOCK-DOWN/ { on = 1; next }
	    on && /seccomp: .* kill; landlock abi [1-9][^:]*: [0-9]+ ro, [0-9]+ rw, / { n++ }
	    END { print n }' status.txt
	atf_check -o match:"seccomp: .* kill; landlock: per worker" \
	    grep jb-gitd status.txt
}
status_privileges_cleanup() { jb_cleanup; }

atf_test_case control_socket_refusals cleanup
control_socket_refusals_head() {
	atf_set descr "only the owner or root may use the control socket;" \
	    "another uid is refused at the file and again by SO_PEERCRED"
	atf_set require.user root
}
control_socket_refusals_body() {
	jb_start
	# the socket file is the owner's alone
	atf_check -o inline:"600 $JB_OWNER\n" stat -c '%a %U' "$(jb_sock)"
	# the owner may
	atf_check -o match:jb-netd setpriv --reuid=$JB_OWNER \
	    --regid=$JB_OWNER --init-groups ./bin/jbctl -s "$(jb_sock)" status
	# a stranger is stopped by the file mode
	atf_check -s exit:1 -e match:"Permission denied" setpriv \
	    --reuid=$JB_OTHER --regid=$JB_OTHER --init-groups \
	    ./bin/jbctl -s "$(jb_sock)" status
	# a stranger that can bypass file modes is refused by jailbeed itself,
	# and the refusal is logged
	other_uid=$(id -u $JB_OTHER)
	atf_check -s exit:1 -e match:"closed the connection" setpriv \
	    --reuid=$JB_OTHER --regid=$JB_OTHER --init-groups \
	    --inh-caps=+dac_override --ambient-caps=+dac_override \
	    ./bin/jbctl -s "$(jb_sock)" status
	atf_check -o match:"refused connection from uid $other_uid" cat jailbeed.log
	# the suite is unharmed
	atf_check -o match:jb-sshd ./bin/jbctl -s "$(jb_sock)" status
}
control_socket_refusals_cleanup() { jb_cleanup; }

atf_test_case control_socket_dir cleanup
control_socket_dir_head() {
	atf_set descr "the control socket's directory is root's 0755: the" \
	    "owner connects through the socket (theirs, 0600) but cannot" \
	    "create, rename or remove a name there; an owner's directory of" \
	    "the earlier layout is taken back; a name planted there is refused"
	atf_set require.user root
	atf_set timeout 120
}
control_socket_dir_body() {
	jb_start
	d=$(cat rundir)
	s=$(jb_sock)
	atf_check -o inline:"755 root root\n" stat -c '%a %U %G' "$d"
	atf_check -o inline:"600 $JB_OWNER $(id -gn $JB_OWNER) socket\n" \
	    stat -c '%a %U %G %F' "$s"
	# atf_check runs programs, not functions
	asowner="setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups"
	# the owner still connects
	atf_check -o match:jb-reaper $asowner ./bin/jbctl -s "$s" status
	# but can neither create nor rename nor remove a name in the directory
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    $asowner ln -s /etc/shadow "$d/planted"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    $asowner touch "$d/planted"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    $asowner mv "$s" "$d/moved"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    $asowner rm -f "$s"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    $asowner mkdir "$d/sub"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    $asowner mkdir "$d/gate/planted"
	atf_check -o inline:"gate\njailbeed.sock\n" ls -A "$d"
	atf_check -o inline:"755 root\n" stat -c '%a %U' "$d/gate"
	# nor signal jb-reaper, root's; a SIGTERM from root it ignores
	rpid=$(jb_pid jb-reaper)
	atf_check -s not-exit:0 -e ignore $asowner kill -TERM "$rpid"
	kill -TERM "$rpid"
	sleep 0.3
	jb_alive "$rpid" || atf_fail "jb-reaper died of SIGTERM"
	atf_check -o match:jb-netd ./bin/jbctl -s "$s" status

	# SIGTERM: the socket goes (jb-reaper), the directory stays root's
	ppid=$(cat jailbeed.pid)
	kill -TERM "$ppid"
	jb_wait_gone "$ppid" 20 || atf_fail "jailbeed still running"
	wait "$ppid" || atf_fail "jailbeed did not exit 0"
	jb_wait_gone "$rpid" 20 || atf_fail "jb-reaper outlived jailbeed"
	[ ! -e "$s" ] || atf_fail "control socket left behind"
	atf_check -o inline:"755 root\n" stat -c '%a %U' "$d"

	# the earlier layout: the directory the owner's, with a symlink
	# planted at the socket's name pointing at a root file
	chown $JB_OWNER:$(id -gn $JB_OWNER) "$d"
	chmod 0700 "$d"
	echo secret > victim
	chmod 0600 victim
	$asowner ln -s "$(pwd)/victim" "$s"
	atf_check -s exit:1 -e match:"socket $s: exists and is not a socket" \
	    env ASAN_OPTIONS=detect_leaks=0 "$(jb_build)/jailbeed" -d \
	    -f jailbeed.yaml
	atf_check -o inline:"600 root\n" stat -c '%a %U' victim
	atf_check -o inline:"755 root\n" stat -c '%a %U' "$d"
	rm "$s"
	# the owner's directory again, empty: taken back, and the suite runs
	chown $JB_OWNER "$d"
	ASAN_OPTIONS=detect_leaks=0 "$(jb_build)/jailbeed" -d -v \
	    -f jailbeed.yaml > jailbeed.log 2>&1 &
	echo $! > jailbeed.pid
	i=0
	until ./bin/jbctl -s "$s" status > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat jailbeed.log >&2; atf_fail "no answer"; }
		sleep 0.1
	done
	atf_check -o match:"socket directory of $s: now root's, mode 0755" \
	    cat jailbeed.log
	atf_check -o inline:"755 root\n" stat -c '%a %U' "$d"
	atf_check -o inline:"600 $JB_OWNER\n" stat -c '%a %U' "$s"
	atf_check -o match:jb-sshd $asowner ./bin/jbctl -s "$s" status
}
control_socket_dir_cleanup() { jb_cleanup; }

atf_test_case child_death_stops_suite cleanup
child_death_stops_suite_head() {
	atf_set descr "SIGKILL of any child makes jailbeed exit non-zero" \
	    "within 2 s, leaving no process of the suite behind"
	atf_set require.user root
	atf_set timeout 120
}
child_death_stops_suite_body() {
	for victim in jb-incus jb-netd jb-mountd jb-sshd jb-gitd jb-egress \
	    jb-reaper; do
		jb_start
		jbctl status -o json | jq -r '.processes[].pid' > pids
		vpid=$(jb_pid $victim)
		ppid=$(cat jailbeed.pid)
		kill -KILL "$vpid"
		jb_wait_gone "$ppid" 20 ||
		    atf_fail "jailbeed still running 2 s after $victim was killed"
		status=0
		wait "$ppid" || status=$?
		[ $status -ne 0 ] ||
		    atf_fail "jailbeed exited 0 after $victim was killed"
		for p in $(cat pids); do
			jb_alive "$p" && atf_fail "pid $p of the suite survived"
		done
		grep -q "$victim (pid $vpid) killed by signal 9" jailbeed.log ||
		    grep -q "$victim closed its channel" jailbeed.log ||
		    atf_fail "jailbeed did not log the death of $victim"
		rm -f jailbeed.pid
		rm -rf "$(cat rundir)"
	done
}
child_death_stops_suite_cleanup() { jb_cleanup; }

atf_test_case parent_death_stops_children cleanup
parent_death_stops_children_head() {
	atf_set descr "SIGKILL of jailbeed takes every child with it, and" \
	    "jb-reaper still removes the control socket"
	atf_set require.user root
}
parent_death_stops_children_body() {
	jb_start
	jbctl status -o json | jq -r '.processes[].pid' > pids
	kill -KILL "$(cat jailbeed.pid)"
	wait "$(cat jailbeed.pid)" || true
	for p in $(cat pids); do
		jb_wait_gone "$p" 20 || atf_fail "pid $p outlived jailbeed"
	done
	# jb-reaper saw the parent's end close, however it closed
	[ ! -e "$(jb_sock)" ] || atf_fail "control socket left behind"
}
parent_death_stops_children_cleanup() { jb_cleanup; }

atf_test_case sigterm_clean cleanup
sigterm_clean_head() {
	atf_set descr "SIGTERM stops the whole suite cleanly: exit 0, no" \
	    "process left, the control socket removed"
	atf_set require.user root
}
sigterm_clean_body() {
	jb_start
	jbctl status -o json | jq -r '.processes[].pid' > pids
	ppid=$(cat jailbeed.pid)
	kill -TERM "$ppid"
	jb_wait_gone "$ppid" 20 || atf_fail "jailbeed still running after SIGTERM"
	status=0
	wait "$ppid" || status=$?
	atf_check_equal "$status" 0
	for p in $(cat pids); do
		jb_wait_gone "$p" 20 || atf_fail "pid $p survived SIGTERM"
	done
	[ ! -e "$(jb_sock)" ] || atf_fail "control socket left behind"
	atf_check -o match:"terminating on signal 15" \
	    -o match:"control socket $(jb_sock) removed" cat jailbeed.log
	# the directory stays, root's
	atf_check -o inline:"755 root\n" stat -c '%a %U' "$(cat rundir)"
}
sigterm_clean_cleanup() { jb_cleanup; }

atf_test_case second_instance cleanup
second_instance_head() {
	atf_set descr "a second jailbeed on the same socket refuses to start"
	atf_set require.user root
}
second_instance_body() {
	jb_start
	atf_check -s exit:1 -e match:"another jailbeed is running" \
	    env ASAN_OPTIONS=detect_leaks=0 "$(jb_build)/jailbeed" -d \
	    -f jailbeed.yaml
	atf_check -o match:jb-netd ./bin/jbctl -s "$(jb_sock)" status
}
second_instance_cleanup() { jb_cleanup; }

atf_test_case state_dir_root cleanup
state_dir_root_head() {
	atf_set descr "a state_dir not root's alone, or a journal planted as" \
	    "a symlink in it, is refused at start, and the link's target" \
	    "is not touched"
	atf_set require.user root
}
state_dir_root_body() {
	# jailbeed in the foreground, at most 30 s (a refusal ends it at once)
	try="timeout 30 env ASAN_OPTIONS=detect_leaks=0 $(jb_build)/jailbeed -d -f jailbeed.yaml"
	jb_users
	jb_bin
	jb_conf
	st=$(pwd)/state
	og="$JB_OWNER:$(id -gn $JB_OWNER)"
	# the owner's directory: refused, naming it and the fix
	mkdir -m 0700 "$st"
	chown "$og" "$st"
	atf_check -s exit:1 -e match:"state_dir $st: the directory $st belongs to uid $(id -u $JB_OWNER), not root" \
	    -e match:"chown root:root $st" $try
	[ ! -e "$st/audit" ] || atf_fail "the refused state_dir was written"
	# root's, but writable by its group
	chown root:root "$st"
	chmod 0770 "$st"
	atf_check -s exit:1 -e match:"$st is writable by its group \(mode 0770\): chmod go-w $st" \
	    $try
	# root's, but in a directory the owner may write in
	chmod 0711 "$st"
	mkdir -m 0755 own
	chown "$og" own
	sed -i "s|^state_dir: .*|state_dir: $(pwd)/own/state|" jailbeed.yaml
	mkdir -m 0711 own/state
	atf_check -s exit:1 -e match:"the directory above it, $(pwd)/own belongs to uid $(id -u $JB_OWNER)" \
	    $try
	sed -i "s|^state_dir: .*|state_dir: $st|" jailbeed.yaml

	# a root's state_dir with a rotated journal planted as a symlink
	# to a root file, and a current journal past any rotation size
	echo precious > victim
	chmod 0644 victim
	ln -s "$(pwd)/victim" "$st/audit.jsonl.1"
	head -c 12000000 /dev/zero | tr '\0' x > "$st/audit.jsonl"
	chmod 0600 "$st/audit.jsonl"
	atf_check -s exit:1 -e match:"audit journal $st/audit.jsonl.1 is a symlink: refused" \
	    $try
	atf_check -o inline:"precious\n" cat victim
	atf_check -o inline:"644 root\n" stat -c '%a %U' victim
	# a hard link there is refused as well
	rm "$st/audit.jsonl.1"
	ln victim "$st/audit.jsonl.1"
	atf_check -s exit:1 -e match:"audit journal $st/audit.jsonl.1 is not a regular file of root's with one link" \
	    $try
	atf_check -o inline:"precious\n" cat victim
	# and in the journal's own directory, where the earlier journal
	# went: a symlink, then a hard link
	rm "$st/audit.jsonl.1"
	atf_check -o inline:"12000000\n" stat -c %s "$st/audit/audit.jsonl"
	ln -s "$(pwd)/victim" "$st/audit/audit.jsonl.1"
	atf_check -s exit:1 -e match:"audit journal $st/audit/audit.jsonl.1 is a symlink: refused" \
	    $try
	rm "$st/audit/audit.jsonl.1"
	ln victim "$st/audit/audit.jsonl.1"
	atf_check -s exit:1 -e match:"audit journal $st/audit/audit.jsonl.1 is not a regular file of root's or the owner's with one link" \
	    $try
	atf_check -o inline:"precious\n" cat victim
	atf_check -o inline:"644 root\n" stat -c '%a %U' victim
}
state_dir_root_cleanup() { jb_cleanup; }

atf_test_case child_needs_channel
child_needs_channel_head() {
	atf_set descr "a child started by hand refuses to run"
}
child_needs_channel_body() {
	for c in jb-incus jb-netd jb-mountd jb-sshd jb-gitd jb-egress; do
		atf_check -s exit:1 -e match:"not a channel from its parent" \
		    "$(jb_build)/$c" -d
	done
}

atf_test_case config_errors
config_errors_head() {
	atf_set descr "jailbeed -n names file, line and key of a bad config"
}
config_errors_body() {
	jb_users
	printf 'owner: %s\nincus:\n  url: unix:/x\n  frob: 1\n' $JB_OWNER > unknown.yaml
	atf_check -s not-exit:0 -e match:"unknown.yaml:4: incus.frob: unknown key" \
	    "$(jb_build)/jailbeed" -n -f unknown.yaml
	printf 'owner: %s\nsocket: [a, b\n' $JB_OWNER > malformed.yaml
	atf_check -s not-exit:0 -e match:"malformed.yaml:[23]:" \
	    "$(jb_build)/jailbeed" -n -f malformed.yaml
	printf 'owner: %s\nsocket: relative/path\n' $JB_OWNER > relative.yaml
	atf_check -s not-exit:0 -e match:"relative.yaml:2: socket:" \
	    "$(jb_build)/jailbeed" -n -f relative.yaml
	printf 'owner: nosuchuser12\n' > nouser.yaml
	atf_check -s not-exit:0 -e match:"owner: no such user nosuchuser12" \
	    "$(jb_build)/jailbeed" -n -f nouser.yaml
	printf 'socket: /run/x.sock\n' > noowner.yaml
	atf_check -s not-exit:0 -e match:"noowner.yaml: owner: not set" \
	    "$(jb_build)/jailbeed" -n -f noowner.yaml
	atf_check -s not-exit:0 -e match:"missing.yaml" \
	    "$(jb_build)/jailbeed" -n -f missing.yaml
	# a good file passes, and so does the command table: every command
	# it gives jailbeed has a handler there (else "has no handler")
	printf 'owner: %s\n' $JB_OWNER > good.yaml
	atf_check -s exit:0 -e match:"configuration OK" \
	    "$(jb_build)/jailbeed" -n -f good.yaml
}

atf_test_case jbctl_usage
jbctl_usage_head() {
	atf_set descr "jbctl parses from the command table and says what is" \
	    "wrong with bad input"
}
jbctl_usage_body() {
	atf_check -o match:"status" -o match:"version" "$(jb_build)/jbctl" --help
	atf_check -s exit:2 -e match:'unknown command "frobnicate"' \
	    "$(jb_build)/jbctl" frobnicate
	atf_check -s exit:1 -e match:'"yaml" is not one of text\|json' \
	    "$(jb_build)/jbctl" status -o yaml
	atf_check -s exit:1 -e match:"unknown option --bogus" \
	    "$(jb_build)/jbctl" status --bogus
	atf_check -s exit:1 -e match:"wrong number of arguments" \
	    "$(jb_build)/jbctl" status extra
	atf_check -o match:"usage: jbctl status \[--output FORMAT\]" \
	    "$(jb_build)/jbctl" help status
	# help GROUP lists the group's commands, for every group
	atf_check -o match:"^usage: jbctl git COMMAND" \
	    -o match:"^  git fetch " -o match:"^  git pull " \
	    -o not-match:"^  net " "$(jb_build)/jbctl" help git
	atf_check -o match:"^  net strict " -o match:"^  net egress ls " \
	    "$(jb_build)/jbctl" help net
	atf_check -o match:"^  net egress add " -o not-match:"^  net strict " \
	    "$(jb_build)/jbctl" help net egress
	groups=$("$(jb_build)/jbctl" --help | sed -n 's/^  \([a-z-]*\) [a-z].*/\1/p' |
	    sort -u)
	[ $(echo $groups | wc -w) -ge 8 ] || atf_fail "groups: $groups"
	for g in $groups; do
		atf_check -o match:"^usage: jbctl $g " \
		    -o match:"^  $g [a-z]" "$(jb_build)/jbctl" help $g
	done
	# a command that starts others too: its usage, then theirs
	atf_check -o match:"^usage: jbctl mount \[" -o match:"^  mount ls " \
	    "$(jb_build)/jbctl" help mount
	atf_check -s exit:1 -e match:'help: unknown command "net bogus"' \
	    "$(jb_build)/jbctl" help net bogus
	atf_check -s exit:2 -e match:'"git" is a group of commands' \
	    -e match:"^  git fetch " "$(jb_build)/jbctl" git
	atf_check -o match:"^  git fetch " "$(jb_build)/jbctl" git --help
	atf_check -s exit:1 -e match:"cannot connect to /nonexistent/sock" \
	    "$(jb_build)/jbctl" -s /nonexistent/sock status
}

atf_test_case version cleanup
version_head() {
	atf_set descr "jbctl version reports both ends"
	atf_set require.user root
}
version_body() {
	jb_start
	atf_check -o match:"^jbctl [0-9]" -o match:"^jailbeed [0-9]" \
	    ./bin/jbctl -s "$(jb_sock)" version
}
version_cleanup() { jb_cleanup; }

atf_test_case install_prefix cleanup
install_prefix_head() {
	atf_set descr "make PREFIX=... install gives a working suite whose" \
	    "children run from PREFIX/libexec/jailbee"
	atf_set require.user root
	atf_set timeout 600
}
install_prefix_body() {
	src=$(atf_config_get srcdir)
	p=$(pwd)/opt
	atf_check -o ignore -e ignore make -j"$(nproc)" -C "$src" O="$(pwd)/b" PREFIX="$p" \
	    SYSCONFDIR="$(pwd)/etc" UNITDIR="$(pwd)/unit" all install
	for f in sbin/jailbeed bin/jbctl libexec/jailbee/jb-incus \
	    libexec/jailbee/jb-incus-tls libexec/jailbee/jb-netd libexec/jailbee/jb-mountd \
	    libexec/jailbee/jb-sshd share/man/man8/jailbeed.8 \
	    share/man/man8/jbctl.8 share/man/man5/jailbee.yaml.5; do
		[ -x "$p/$f" ] || [ -f "$p/$f" ] || atf_fail "$f not installed"
	done
	atf_check -o match:"ExecStart=$p/sbin/jailbeed -d" cat unit/jailbee.service
	atf_check -o match:"DAEMON=$p/sbin/jailbeed" cat etc/init.d/jailbee
	jb_users
	jb_conf
	"$p/sbin/jailbeed" -d -f jailbeed.yaml > jailbeed.log 2>&1 &
	echo $! > jailbeed.pid
	i=0
	until "$p/bin/jbctl" -s "$(jb_sock)" status > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat jailbeed.log >&2; atf_fail "no answer"; }
		sleep 0.1
	done
	"$p/bin/jbctl" -s "$(jb_sock)" status -o json > status.json
	atf_check -o inline:"8\n" jq '.processes | length' status.json
	for c in jb-incus jb-netd jb-mountd jb-sshd jb-gitd jb-egress; do
		pid=$(jq -r ".processes[] | select(.name == \"$c\") | .pid" \
		    status.json)
		atf_check -o inline:"$p/libexec/jailbee/$c\n" readlink /proc/$pid/exe
	done
	# a release build kills on a forbidden call (test builds allow
	# openat for the lock-down proofs): a container's whole life must
	# not make one
	atf_check -o match:"jb-incus: seccomp: .* kill" "$p/bin/jbctl" \
	    -s "$(jb_sock)" status
	jb_image
	jb_repo
	cat > relctl <<EOS
#!/bin/sh
cd repo && exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME=/nonexistent "$p/bin/jbctl" -s "$(jb_sock)" "\$@"
EOS
	chmod 0755 relctl
	atf_check -e ignore ./relctl new rel
	atf_check -o inline:"hi\n" -x "echo hi | ./relctl exec rel -- cat"
	atf_check -s exit:3 ./relctl exec rel -- sh -c 'exit 3'
	atf_check -o ignore -e ignore ./relctl snapshot create rel s
	atf_check -o match:"rel" ./relctl ls
	atf_check -e ignore ./relctl stop rel
	atf_check -e ignore ./relctl destroy --force rel
	atf_check -o match:"jb-incus" "$p/bin/jbctl" -s "$(jb_sock)" status
}
install_prefix_cleanup() { jb_containers_cleanup; jb_cleanup; }

# etc/init.d/jailbee as make install writes it (make install-rc), with
# DAEMON this build's jailbeed, CONF ./etc/jailbee/jailbeed.yaml (the
# test's config) and the pid file in the test's run dir
rc_install() {
	mkdir -p etc/jailbee
	cp jailbeed.yaml etc/jailbee/jailbeed.yaml
	# a make of its own: not a job of the make that runs the tests
	atf_check -o ignore env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    make -s -C "$(atf_config_get srcdir)" install-rc \
	    SBINDIR="$(jb_build)" SYSCONFDIR="$(pwd)/etc" RUNDIR="$(cat rundir)"
	atf_check -o match:"^DAEMON=$(jb_build)/jailbeed\$" \
	    -o match:"^CONF=$(pwd)/etc/jailbee/jailbeed.yaml\$" \
	    -o match:"^PIDFILE=$(cat rundir)/jailbeed.pid\$" \
	    cat etc/init.d/jailbee
}

atf_test_case up_start_rc_stop cleanup
up_start_rc_stop_head() {
	atf_set descr "make up starts jailbeed as etc/start-jailbeed does:" \
	    "through the rc script, so the pid file it writes is the one" \
	    "the rc script reads: its status names that jailbeed and its" \
	    "stop stops it; a suite that answers is not started twice"
	atf_set require.user root
}
up_start_rc_stop_body() {
	export ASAN_OPTIONS=detect_leaks=0
	jb_users
	jb_bin
	jb_conf
	run=$(cat rundir)
	rc_install
	src=$(atf_config_get srcdir)
	# make up's own call, with the test's socket
	atf_check grep -q '^etc/start-jailbeed "$SYSCONFDIR/init.d/jailbee" "$PREFIX/bin/jbctl"$' \
	    "$src/etc/up"
	atf_check -o ignore -e ignore "$src/etc/start-jailbeed" \
	    "$(pwd)/etc/init.d/jailbee" ./bin/jbctl -s "$(jb_sock)"
	[ -f "$run/jailbeed.pid" ] || atf_fail "no pid file $run/jailbeed.pid"
	pid=$(cat "$run/jailbeed.pid")
	echo "$pid" > jailbeed.pid
	atf_check_equal "$(jb_pid jailbeed)" "$pid"
	atf_check -o inline:"jailbee is running (pid $pid)\n" \
	    etc/init.d/jailbee status
	# answering already: nothing more is started
	atf_check "$src/etc/start-jailbeed" "$(pwd)/etc/init.d/jailbee" \
	    ./bin/jbctl -s "$(jb_sock)"
	atf_check_equal "$(jb_pid jailbeed)" "$pid"
	atf_check -o empty etc/init.d/jailbee stop
	jb_alive "$pid" && atf_fail "rc stop left make up's jailbeed running"
	atf_check -s not-exit:0 -e ignore ./bin/jbctl -s "$(jb_sock)" status
	atf_check -s exit:3 -o inline:"jailbee is not running\n" \
	    etc/init.d/jailbee status
}
up_start_rc_stop_cleanup() { jb_cleanup; }

atf_test_case rc_script cleanup
rc_script_head() {
	atf_set descr "the rc script starts jailbeed with a pid file, and" \
	    "reloads and stops that process only: not another process" \
	    "named jailbeed, not a pid a stale file names"
	atf_set require.user root
}
rc_script_body() {
	export ASAN_OPTIONS=detect_leaks=0
	jb_users
	jb_bin
	jb_conf
	run=$(cat rundir)
	# a process named jailbeed the script did not start
	cp /bin/sleep jailbeed
	./jailbeed 600 &
	echo $! > decoy.pid
	decoy=$(cat decoy.pid)
	# the script installed as make install does, aimed at this build,
	# config and run dir
	rc_install
	cp etc/init.d/jailbee rc
	atf_check -s exit:3 -o inline:"jailbee is not running\n" ./rc status
	atf_check -e ignore ./rc start
	i=0
	until jbctl status > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "jailbeed did not come up"
		sleep 0.1
	done
	pid=$(cat "$run/jailbeed.pid")
	echo "$pid" > jailbeed.pid
	atf_check_equal "$(jb_pid jailbeed)" "$pid"
	atf_check -o inline:"jailbee is running (pid $pid)\n" ./rc status
	atf_check -o match:"already running" ./rc start
	atf_check ./rc reload
	sleep 0.5
	jb_alive "$pid" || atf_fail "reload stopped jailbeed"
	atf_check -o match:jb-netd ./bin/jbctl -s "$(jb_sock)" status
	atf_check ./rc stop
	jb_alive "$pid" && atf_fail "stop left jailbeed running"
	jb_alive "$decoy" || atf_fail "stop killed another process named jailbeed"
	[ ! -e "$run/jailbeed.pid" ] || atf_fail "the pid file was left behind"
	atf_check -s exit:3 -o ignore ./rc status
	# a stale file naming another program's pid: nothing is signalled
	echo "$decoy" > "$run/jailbeed.pid"
	atf_check -s exit:3 -o ignore ./rc status
	atf_check -o inline:"jailbee is not running\n" ./rc stop
	atf_check -s exit:7 -e ignore ./rc reload
	jb_alive "$decoy" || atf_fail "a stale pid file had another process killed"
}
rc_script_cleanup() {
	[ -f decoy.pid ] && kill "$(cat decoy.pid)" 2>/dev/null
	jb_cleanup
}

atf_test_case status_at_start cleanup
status_at_start_head() {
	atf_set descr "a status request that reaches the children while they" \
	    "start is answered (an event once re-armed too rarely wedged them)"
	atf_set require.user root
	atf_set timeout 120
}
status_at_start_body() {
	for i in 1 2 3 4 5 6 7 8; do
		jb_users
		jb_bin
		jb_conf
		ASAN_OPTIONS=detect_leaks=0 "$(jb_build)/jailbeed" -d \
		    -f jailbeed.yaml > jailbeed.log 2>&1 &
		echo $! > jailbeed.pid
		until [ -S "$(jb_sock)" ]; do sleep 0.01; done
		atf_check -o match:jb-sshd -o match:jb-netd -o match:jb-mountd \
		    -o match:jb-incus ./bin/jbctl -s "$(jb_sock)" status
		jb_cleanup
		rm -f jailbeed.pid
	done
}
status_at_start_cleanup() { jb_cleanup; }

atf_test_case idle_memory cleanup
idle_memory_head() {
	atf_set descr "idle, jb-netd holds no libnftables context or cache" \
	    "and jb-egress no certificate store it has not used: each one's" \
	    "heap is at most 768 kB (they held 2.3 and 1.3 MB), jb-netd's" \
	    "all along several drains of the refused-flow sets (each one" \
	    "built libnftables' cache of every table: 2.9 MB); no process" \
	    "keeps a name service module its group lookup at start loaded;" \
	    "jb-incus, on the local socket, maps no libssl or libcrypto;" \
	    "every process's proportional set size is printed, and the" \
	    "suite's together, counted as if no other suite ran beside it," \
	    "is at most 10240 kB"
	atf_set require.user root
	atf_set timeout 120
}
idle_memory_body() {
	jb_start
	# what start-up freed goes back a second after it (memtrim.c)
	sleep 3
	jbctl status -o json > status.json || atf_fail "jbctl status failed"
	total=0
	own=0
	bad=
	# each one's share as if no other suite (a cluster, a second
	# test) shared its libraries' pages: the figure a machine running
	# this suite alone has
	python3 "$(atf_config_get srcdir)/regress/integ/suitepss.py" \
	    $(jq -r '.processes[].pid' status.json) > own.pss ||
	    atf_fail "suitepss.py could not read the suite's pages"
	for name in $(jq -r '.processes[].name' status.json); do
		pid=$(jq -er ".processes[] | select(.name == \"$name\") | .pid" \
		    status.json) || atf_fail "$name has no pid in status"
		pss=$(awk '/^Pss:/ { print $2; exit }' "/proc/$pid/smaps_rollup")
		heap=$(awk '/ \[heap\]$/ { h = 1; next } /^[0-9a-f]+-/ { h = 0 }
		    h && /^Pss:/ { s += $2 } END { print s + 0 }' \
		    "/proc/$pid/smaps")
		mine=$(awk -v p="$pid" '$1 == p { print $2 }' own.pss)
		[ -n "$mine" ] || atf_fail "suitepss.py has no figure for $name"
		echo "$name: PSS $pss kB ($mine kB alone), heap $heap kB"
		own=$((own + mine))
		# the group lookup at start ran in a child of its own: no
		# name service module stays mapped for it
		if grep -q '/libnss_' "/proc/$pid/maps"; then
			bad="$bad${bad:+; }$name maps $(grep -o '[^/]*libnss_[^ ]*' \
			    "/proc/$pid/maps" | sort -u | xargs)"
		fi
		total=$((total + pss))
		case $name in
		jb-incus)
			# the local socket (the default url): no TLS loaded
			if grep -qE '/lib(ssl|crypto)\.so' "/proc/$pid/maps"; then
				bad="$bad${bad:+; }jb-incus maps $(grep -oE \
				    '[^/]*lib(ssl|crypto)\.so[^ ]*' \
				    "/proc/$pid/maps" | sort -u | xargs) with a"
				bad="$bad unix socket url"
			fi ;;
		jb-netd|jb-egress)
			if [ "$heap" -gt 768 ]; then
				bad="$bad${bad:+; }$name's heap holds $heap kB"
				bad="$bad idle (the bound is 768 kB)"
			fi ;;
		esac
	done
	echo "the suite: PSS $total kB, $own kB alone"
	if [ "$own" -gt 10240 ]; then
		bad="$bad${bad:+; }the suite's PSS is $own kB idle (the bound"
		bad="$bad is 10240 kB)"
	fi
	# jb-netd's heap, every 0.2 s for 5 s: more than two drains of the
	# refused-flow sets (every 2 s with the test switch), with nothing
	# in them
	pid=$(jq -er '.processes[] | select(.name == "jb-netd") | .pid' \
	    status.json) || atf_fail "jb-netd has no pid in status"
	peak=0
	for i in $(seq 25); do
		heap=$(awk '/ \[heap\]$/ { h = 1; next } /^[0-9a-f]+-/ { h = 0 }
		    h && /^Pss:/ { s += $2 } END { print s + 0 }' \
		    "/proc/$pid/smaps")
		[ "$heap" -gt "$peak" ] && peak=$heap
		sleep 0.2
	done
	echo "jb-netd's heap over 5 s: at most $peak kB"
	if [ "$peak" -gt 768 ]; then
		bad="$bad${bad:+; }jb-netd's heap reached $peak kB idle over 5 s"
		bad="$bad (the bound is 768 kB)"
	fi
	[ -z "$bad" ] || atf_fail "$bad"
}
idle_memory_cleanup() { jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case install_prefix
	atf_add_test_case status_at_start
	atf_add_test_case idle_memory
	atf_add_test_case status_privileges
	atf_add_test_case control_socket_refusals
	atf_add_test_case control_socket_dir
	atf_add_test_case state_dir_root
	atf_add_test_case child_death_stops_suite
	atf_add_test_case parent_death_stops_children
	atf_add_test_case sigterm_clean
	atf_add_test_case rc_script
	atf_add_test_case up_start_rc_stop
	atf_add_test_case second_instance
	atf_add_test_case child_needs_channel
	atf_add_test_case config_errors
	atf_add_test_case jbctl_usage
	atf_add_test_case version
}
