# Helpers for the atf-sh integration tests: start the real suite as a test
# owner, talk to it with jbctl, and take it down.  Sourced by each test
# program after atf-sh has loaded.

JB_OWNER=jbtest
JB_OTHER=jbother

jb_build() { atf_config_get build; }

# the test users: the owner the suite serves, and a stranger
jb_users() {
	getent passwd "$JB_OWNER" >/dev/null ||
	    useradd --system --no-create-home --shell /usr/sbin/nologin \
	    "$JB_OWNER" || atf_fail "cannot create user $JB_OWNER"
	getent passwd "$JB_OTHER" >/dev/null ||
	    useradd --system --no-create-home --shell /usr/sbin/nologin \
	    "$JB_OTHER" || atf_fail "cannot create user $JB_OTHER"
}

# jbctl copied where every user may run it (the build tree may be 0700)
jb_bin() {
	if [ ! -x bin/jbctl ]; then
		mkdir -p bin
		cp "$(jb_build)/jbctl" bin/jbctl
		chmod 0755 . bin bin/jbctl
	fi
}

jb_conf() {
	RUNDIR=$(mktemp -d /run/jailbee-test.XXXXXX)
	rmdir "$RUNDIR"
	echo "$RUNDIR" > rundir
	cat > jailbeed.yaml <<EOC
owner: $JB_OWNER
socket: $RUNDIR/jailbeed.sock
state_dir: $(pwd)/state
incus:
  url: unix:/var/lib/incus/unix.socket
EOC
}

jb_sock() { echo "$(cat rundir)/jailbeed.sock"; }

jbctl() { ./bin/jbctl -s "$(jb_sock)" "$@"; }

# start jailbeed in the foreground (in the background of this shell) and
# wait until it answers; its pid goes to ./jailbeed.pid
jb_start() {
	jb_users
	jb_bin
	jb_conf
	ASAN_OPTIONS=detect_leaks=0 "$(jb_build)/jailbeed" -d -v \
	    -f jailbeed.yaml > jailbeed.log 2>&1 &
	echo $! > jailbeed.pid
	i=0
	while [ $i -lt 100 ]; do
		if [ -S "$(jb_sock)" ] && jbctl status > /dev/null 2>&1; then
			return 0
		fi
		kill -0 "$(cat jailbeed.pid)" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	cat jailbeed.log >&2
	atf_fail "jailbeed did not come up"
}

# pid of one process of the suite, from the suite's own report
jb_pid() {
	jbctl status -o json | jq -er ".processes[] | select(.name == \"$1\") | .pid"
}

# a process is gone when /proc has no entry or only a zombie
jb_alive() {
	[ -r "/proc/$1/stat" ] || return 1
	state=$(sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null) ||
	    return 1
	[ "$state" != Z ]
}

# wait up to $2 tenths of a second for pid $1 to be gone
jb_wait_gone() {
	i=0
	while [ $i -lt "$2" ]; do
		jb_alive "$1" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

jb_cleanup() {
	[ -f jailbeed.pid ] || return 0
	pid=$(cat jailbeed.pid)
	if jb_alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null
		jb_wait_gone "$pid" 50
	fi
	[ -f rundir ] && rm -rf "$(cat rundir)"
	return 0
}
