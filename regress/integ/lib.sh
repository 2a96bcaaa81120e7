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
	# raw.idmap maps the owner's own ids into containers (C2)
	uid=$(id -u "$JB_OWNER")
	gid=$(id -g "$JB_OWNER")
	grep -qs "^root:$uid:1\$" /etc/subuid || echo "root:$uid:1" >> /etc/subuid
	grep -qs "^root:$gid:1\$" /etc/subgid || echo "root:$gid:1" >> /etc/subgid
	getent passwd "$JB_OTHER" >/dev/null ||
	    useradd --system --no-create-home --shell /usr/sbin/nologin \
	    "$JB_OTHER" || atf_fail "cannot create user $JB_OTHER"
}

# give the owner a real home, $(pwd)/ownerhome, for what jb-mountd reads
# there (~/.gitconfig): it takes the passwd entry's at start, so call
# this before jb_start, and jb_owner_home_restore in the cleanup.  The
# old home is kept in ./ownerhome.was; the test user is shared by every
# test, which run one at a time (flock /tmp/jb-integ.lock).
jb_owner_home() {
	jb_users
	[ -f ownerhome.was ] ||
	    getent passwd "$JB_OWNER" | cut -d: -f6 > ownerhome.was
	mkdir -p ownerhome
	chown "$JB_OWNER:$(id -gn $JB_OWNER)" ownerhome
	chmod 0755 "$(pwd)"
	usermod -d "$(pwd)/ownerhome" "$JB_OWNER" ||
	    atf_fail "cannot give $JB_OWNER a home"
}

jb_owner_home_restore() {
	[ -f ownerhome.was ] || return 0
	usermod -d "$(cat ownerhome.was)" "$JB_OWNER"
	rm -f ownerhome.was
	return 0
}

# jbctl copied where every user may run it (the build tree may be 0700),
# with git's remote helper beside it, where jbctl git finds it
jb_bin() {
	if [ ! -x bin/jbctl ]; then
		mkdir -p bin
		cp "$(jb_build)/jbctl" bin/jbctl
		cp "$(jb_build)/git-remote-jailbee" bin/git-remote-jailbee
		chmod 0755 . bin bin/jbctl bin/git-remote-jailbee
	fi
}

jb_conf() {
	# one socket path for the whole case, as an installed suite has:
	# a container's start gate lives beside it (gate.h)
	if [ -f rundir ]; then
		RUNDIR=$(cat rundir)
	else
		RUNDIR=$(mktemp -d /run/jailbee-test.XXXXXX)
		rmdir "$RUNDIR"
		echo "$RUNDIR" > rundir
	fi
	cat > jailbeed.yaml <<EOC
owner: $JB_OWNER
socket: $RUNDIR/jailbeed.sock
state_dir: $(pwd)/state
incus:
  url: unix:/var/lib/incus/unix.socket
EOC
	# a test may add top-level keys (ssh_test: remote:, net_test:
	# resolver:); the others do not listen for SSH, so a suite already
	# serving 8022 is no matter
	[ -z "${JB_CONF_EXTRA:-}" ] || printf '%s\n' "$JB_CONF_EXTRA" >> jailbeed.yaml
	case ${JB_CONF_EXTRA:-} in
	*remote:*) ;;
	*)	printf 'remote:\n  ssh:\n    listen: "off"\n' >> jailbeed.yaml ;;
	esac
}

jb_sock() { echo "$(cat rundir)/jailbeed.sock"; }

jbctl() { ./bin/jbctl -s "$(jb_sock)" "$@"; }

# start jailbeed in the foreground (in the background of this shell) and
# wait until it answers; its pid goes to ./jailbeed.pid.  It runs with the
# test switch (-T: test hooks, short timers; the filters are the users')
# and logs debug lines (-v); JB_TEST_SWITCH= and JB_VERBOSE= (empty) start
# it as users do.
jb_start() {
	jb_users
	jb_bin
	jb_conf
	ASAN_OPTIONS=detect_leaks=0 "$(jb_build)/jailbeed" -d ${JB_VERBOSE--v} \
	    ${JB_TEST_SWITCH--T} -f jailbeed.yaml > jailbeed.log 2>&1 &
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

# the image users get from `jbctl base build`, built once by run-tests
# (regress/base-image): its alias goes to JB_IMAGE
jb_image() {
	JB_IMAGE=$(atf_config_get image)
	incus image info "$JB_IMAGE" > /dev/null 2>&1 ||
	    atf_fail "the base image $JB_IMAGE is missing (regress/base-image)"
}

# the image of the npm-based agent presets (nodejs, npm), under the alias
# new --agent derives for that set: built once per set of build inputs by
# regress/base-image --agent (make check builds it with the base image)
jb_agent_image() {
	JB_BUILD=$(jb_build) "$(atf_config_get srcdir)/regress/base-image" \
	    --agent > agent-image.out 2> agent-image.log || {
		cat agent-image.log >&2
		atf_fail "cannot build the agents' image (regress/base-image --agent)"
	}
}

# Verdaccio, the npm registry server make deps installs (regress/setup-host)
JB_VERDACCIO=/usr/local/lib/jailbee-test/verdaccio/node_modules/.bin/verdaccio

# helpers atf_check can run: jbo DIR ARGS (jbctl as the owner in DIR),
# in_ctr CONTAINER CMD... (as the dev user inside)
jb_tools() {
	mkdir -p bin
	cat > bin/jbo <<EOS
#!/bin/sh
d=\$1
shift
cd "\$d" || exit 99
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME=/nonexistent TERM=xterm "$(pwd)/bin/jbctl" -s "$(jb_sock)" "\$@"
EOS
	cat > bin/in_ctr <<EOS
#!/bin/sh
c=\$1
shift
exec incus exec "\$c" --user $(id -u $JB_OWNER) --group $(id -g $JB_OWNER) \\
    --env HOME=/home/dev --cwd / -- "\$@"
EOS
	# ctr_netns CONTAINER CMD...: a host program in the container's
	# network namespace alone, for the raw DNS client the image has no
	# counterpart of; nothing is put into the container
	cat > bin/ctr_netns <<'EOS'
#!/bin/sh
c=$1
shift
pid=$(incus query "/1.0/instances/$c/state" | jq -er .pid) || exit 99
exec nsenter -t "$pid" -n -- "$@"
EOS
	chmod 0755 bin/jbo bin/in_ctr bin/ctr_netns
	PATH=$(pwd)/bin:$PATH
	export PATH
}

# a checkout owned by the owner: main with three commits, a branch feat,
# an upstream URL, and a config that makes containers from the base image
jb_repo() {
	r=$(pwd)/repo
	mkdir -p "$r"
	git -C "$r" init -q -b main
	git -C "$r" config user.email t@example.org
	git -C "$r" config user.name test
	for i in 1 2 3; do
		echo "line $i" >> "$r/file"
		git -C "$r" add file
		git -C "$r" commit -q -m "commit $i"
	done
	git -C "$r" branch feat HEAD~1
	git -C "$r" remote add origin https://git.example.org/team/repo.git
	mkdir -p "$r/.jailbee"
	[ -n "${JB_IMAGE:-}" ] || jb_image
	printf 'container_prefix: jbt%s\nbase:\n  alias: %s\n' "$$" "$JB_IMAGE" \
	    > "$r/.jailbee/config.yaml"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) "$r"
	chmod 0755 "$(pwd)"
	echo "jbt$$" > prefix
}

jb_prefix() { cat prefix; }

# Table inet jailbee keys a container by its address: its verdict in map
# ctrs, its elements in the shared sets.  jb_netd_addr NAME: the address
# jb-netd recorded for it (state/netd/containers), or nothing.
jb_netd_addr() { awk -v c="$1" '$1 == c { print $2 }' state/netd/containers; }
jb_re_addr() { printf '%s' "$1" | sed 's/\./\\./g'; }
# the verdict map ctrs gives address $1: "jump strict", "accept", or nothing
jb_verdict_of() {
	nft list map inet jailbee ctrs 2>/dev/null | tr ',{}' '\n\n\n' |
	    sed -n "s/^[[:space:]]*$(jb_re_addr "$1") : \([^[:space:]].*[^[:space:]]\)[[:space:]]*$/\1/p"
}
# what the resolver admitted from address $1 (sets allow and allowany),
# one element a line: "ADDR . PROTO . PORT timeout ..." or "ADDR timeout ..."
jb_admitted_of() {
	{ nft list set inet jailbee allow; nft list set inet jailbee allowany; } \
	    2>/dev/null | tr ',{}' '\n\n\n' |
	    sed -n "s/^[[:space:]]*$(jb_re_addr "$1") \. //p"
}
# atf_check runs programs, not these functions: the checks of them
# jb_verdict_is ADDR VERDICT: the verdict map ctrs gives ADDR ("" none)
jb_verdict_is() {
	local v
	v=$(jb_verdict_of "$1")
	[ "$v" = "$2" ] || atf_fail "address $1: verdict \"$v\" in map ctrs," \
	    "not \"$2\""
}
# jb_admitted_none ADDR: nothing admitted from ADDR stays in the sets
jb_admitted_none() {
	local v
	v=$(jb_admitted_of "$1")
	[ -z "$v" ] || atf_fail "address $1: still admitted: $v"
}
# the same for container NAME, by the address jb-netd recorded for it
jb_admitted() {
	local a
	a=$(jb_netd_addr "$1")
	[ -n "$a" ] || atf_fail "jb-netd records no address for $1"
	jb_admitted_of "$a"
}

# every container of this test's repo goes, whatever state it is in
jb_containers_cleanup() {
	[ -f prefix ] || return 0
	# Incus refuses a delete while another operation holds the
	# container: asked again, so that none outlives its test
	left=$(incus list -c n --format csv "^$(cat prefix)-" 2>/dev/null)
	for try in 1 2 3 4 5; do
		[ -n "$left" ] || return 0
		for c in $left; do
			incus delete --force "$c" > /dev/null 2>&1
		done
		left=$(incus list -c n --format csv "^$(cat prefix)-" 2>/dev/null)
		[ -z "$left" ] || sleep 1
	done
	[ -z "$left" ] || echo "jb_containers_cleanup: left behind: $left" >&2
	return 0
}

# jb_routed C: the container's DHCP client has given it its default route
# through the bridge (the image does it at boot; a test never adds one)
jb_routed() {
	i=0
	while [ $i -lt 100 ]; do
		incus exec "$1" -- ip -4 route show default 2>/dev/null |
		    grep -q "^default via 10\." && return 0
		sleep 0.1
		i=$((i + 1))
	done
	incus exec "$1" -- ip -4 route >&2
	atf_fail "$1 has no default route from DHCP"
}

# The front door (jb-sshd on 127.0.0.1:8022) with the real OpenSSH clients.
#
# jb_ssh_conf [MORE]: remote.ssh for jailbeed.yaml (in JB_CONF_EXTRA),
# with the test home's authorized_keys; MORE follows it: keys under ssh:
# 4 spaces in, or more of the configuration at the top level
jb_ssh_conf() {
	JB_CONF_EXTRA="remote:
  ssh:
    authorized_keys: $(pwd)/home/.config/jailbee/authorized_keys
${1:-}"
	export JB_CONF_EXTRA
}

# helpers atf_check can run: ojbctl (jbctl as the owner with the test
# home, on the socket of the suite running now: made again after each
# start), jssh, jsftp and jscp (OpenSSH's ssh, sftp and scp with nothing
# from any user's configuration; jsftp and jscp log in with key1)
jb_ssh_tools() {
	jb_bin
	cat > bin/ojbctl <<EOS
#!/bin/sh
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME="$(pwd)/home" "$(pwd)/bin/jbctl" -s "$(jb_sock)" "\$@"
EOS
	for _t in ssh sftp scp; do
		case $_t in
		ssh) _port="-p 8022" _key= ;;
		*) _port="-P 8022" _key="-i key1" ;;
		esac
		cat > bin/j$_t <<EOS
#!/bin/sh
exec $_t -F /dev/null $_port -o StrictHostKeyChecking=no \\
    -o UserKnownHostsFile=/dev/null -o BatchMode=yes \\
    -o IdentitiesOnly=yes -o IdentityAgent=none -o LogLevel=ERROR \\
    -o ConnectTimeout=10 $_key "\$@"
EOS
	done
	chmod 0755 bin/ojbctl bin/jssh bin/jsftp bin/jscp
	PATH=$(pwd)/bin:$PATH
	export PATH
}

# the owner's test home (where jbctl remote ssh key writes) and key1
# ("key one"), authorized there by ojbctl; once a test: the key and its
# authorization outlive a restart of the suite
jb_ssh_key() {
	[ -f key1 ] && return 0
	mkdir -p home
	chown "$JB_OWNER" home
	chmod 0700 home
	ssh-keygen -q -t ed25519 -N '' -C "key one" -f key1
	chmod 0644 key1.pub
	atf_check -o match:"^added SHA256:" ojbctl remote ssh key add key1.pub
}

# the suite with remote.ssh (MORE as jb_ssh_conf), the SSH tools, key1
jb_ssh_up() {
	jb_ssh_conf "${1:-}"
	jb_start
	jb_ssh_tools
	jb_ssh_key
}

# jb_audit_has COND [jq options]: a line of the audit journal
# (state/audit/audit.jsonl) satisfies the jq condition COND, e.g.
# jb_audit_has '.action == $a and .decision == "accept"' --arg a mount
jb_audit_has() {
	_c=$1
	shift
	jq -c "$@" "select($_c)" state/audit/audit.jsonl 2>/dev/null | grep -q .
}

# jb_audit_count COND [jq options]: how many lines satisfy COND
jb_audit_count() {
	_c=$1
	shift
	jq -c "$@" "select($_c)" state/audit/audit.jsonl 2>/dev/null | wc -l |
	    tr -d ' '
}

# jb_tmux_wait SESSION FILE ERE [SECONDS]: the screen of tmux session
# SESSION, captured into FILE every 0.2 s until a line of it matches the
# extended regular expression ERE (0), or SECONDS (default 30) pass (1,
# FILE holding the last capture for the caller's own check and message)
jb_tmux_wait() {
	_n=$(( ${4:-30} * 5 ))
	while :; do
		tmux capture-pane -p -t "$1" > "$2"
		grep -Eq "$3" "$2" && return 0
		_n=$((_n - 1))
		[ $_n -gt 0 ] || return 1
		sleep 0.2
	done
}

# A screen test's tmux session is $sess, its name also in ./tmux-session.
# wait_screen NAME ERE [SECONDS]: the screen, into NAME, once a line
# matches ERE, or fail showing it
wait_screen() {
	jb_tmux_wait $sess "$1" "$2" "${3:-30}" ||
	    { cat "$1"; atf_fail "the screen never showed /$2/"; }
}

# the row of container $1 in capture $2
row_of() {
	grep -E "^$1 " "$2"
}

# the cleanup of a screen test: its tmux session, containers and suite
jb_screen_cleanup() {
	[ -f tmux-session ] && tmux kill-session -t "$(cat tmux-session)" 2>/dev/null
	jb_containers_cleanup
	jb_cleanup
}
