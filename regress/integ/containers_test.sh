#! /usr/bin/env atf-sh
#
# Containers on the real incusd (FEATURES C1-C9, K1-K4): jbctl as the
# owner, in a checkout of the owner's, against the running suite.

. "$(atf_get_srcdir)/lib.sh"

# git on the test checkout, which the owner, not root, owns
hgit() { git -c safe.directory='*' -C repo "$@"; }

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
}

atf_test_case init_and_config cleanup
init_and_config_head() {
	atf_set descr "jbctl init outside a checkout says so; inside it" \
	    "writes the config from the template when missing, idempotently;" \
	    "config show, validate and their errors (C3, K2, K4)"
	atf_set require.user root
}
init_and_config_body() {
	setup
	mkdir plain && chmod 0755 plain
	atf_check -s exit:1 -e match:"not inside a git checkout" jbo plain init
	rm repo/.jailbee/config.yaml
	atf_check -e match:"wrote .*repo/.jailbee/config.yaml" \
	    -e match:"container prefix repo" jbo repo init
	atf_check -e not-match:"wrote" -e match:"container prefix repo" \
	    jbo repo init
	atf_check -s exit:1 -e match:"exists; --force replaces it" \
	    jbo repo config init
	atf_check -o match:"configuration OK" jbo repo config validate
	printf 'container_prefix: x\nfrobnicate: 1\n' > repo/.jailbee/config.yaml
	atf_check -s exit:1 -e match:"config.yaml:2: frobnicate: unknown key" \
	    jbo repo config validate
	printf 'container_prefix: abc\nloose_auto_revert: {after: 25h}\n' \
	    > repo/.jailbee/config.yaml
	atf_check -s exit:1 -e match:"config.yaml:2: loose_auto_revert.after" \
	    jbo repo config validate
	printf 'container_prefix: abc\n' > repo/.jailbee/config.yaml
	atf_check -o match:'container_prefix: "abc"' jbo repo config show \
	    --layer repo
	# every repo shares one image until it adds packages of its own
	atf_check -o match:'container_prefix: "abc"' \
	    -o match:'alias: "jailbee-base"' jbo repo config show
	printf 'container_prefix: abc\nbase: {packages: [hello]}\n' \
	    > repo/.jailbee/config.yaml
	atf_check -o match:'alias: "abc-base"' -o match:'packages: \[hello\]' \
	    jbo repo config show
	printf 'container_prefix: abc\nbase: {packages: [Hello]}\n' \
	    > repo/.jailbee/config.yaml
	atf_check -s exit:1 -e match:'config.yaml:2: base.packages\[0\]: "Hello" is not a Debian package name' \
	    jbo repo config validate
}
init_and_config_cleanup() { jb_cleanup; }

atf_test_case new_clone cleanup
new_clone_head() {
	atf_set descr "new makes an unprivileged strict container holding a" \
	    "clone on the new branch, origin and tracking set; ls lists it;" \
	    "exec passes status and stderr through (C1, C2, C4, C6, C7, C11)"
	atf_set require.user root
	atf_set timeout 300
}
new_clone_body() {
	setup
	p=$(jb_prefix)
	c=$p-feat-x
	atf_check -e match:"creating $c from $JB_IMAGE" -e match:"ready: $c" \
	    jbo repo new feat-x
	# unprivileged, nested, the owner's id and nothing more mapped
	atf_check -o inline:"\n" incus config get $c security.privileged
	atf_check -o inline:"true\n" incus config get $c security.nesting
	# incusd does not start it by itself, before jailbeed's rules
	atf_check -o inline:"false\n" incus config get $c boot.autostart
	u=$(id -u $JB_OWNER)
	g=$(id -g $JB_OWNER)
	if [ $u = $g ]; then
		atf_check -o inline:"both $u $g\n" incus config get $c raw.idmap
	else
		atf_check -o inline:"uid $u $u\ngid $g $g\n" \
		    incus config get $c raw.idmap
	fi
	atf_check -o inline:"feat-x\n" incus config get $c user.jailbee.branch
	atf_check -o inline:"main\n" incus config get $c user.jailbee.base
	atf_check -o inline:"strict\n" incus config get $c user.jailbee.net
	# the clone, on feat-x from main, origin upstream, tracking set
	d=/home/dev/$p
	atf_check -o inline:"feat-x\n" in_ctr $c git -C $d branch --show-current
	atf_check -o inline:"$(hgit rev-parse main)\n" \
	    in_ctr $c git -C $d rev-parse HEAD
	atf_check -o inline:"https://git.example.org/team/repo.git\n" \
	    in_ctr $c git -C $d remote get-url origin
	atf_check -o inline:"origin\n" in_ctr $c git -C $d config branch.feat-x.remote
	atf_check -o inline:"$(id -u $JB_OWNER)\n" in_ctr $c stat -c %u $d/file
	# the branch's checkout wrote the whole tree: nothing missing or
	# changed against its commit
	atf_check -o inline:"$(hgit ls-tree -r --name-only main)\n" \
	    in_ctr $c git -C $d ls-files
	atf_check -o empty in_ctr $c git -C $d status --porcelain
	# the image's dev user took the owner's ids: one line of it in
	# /etc/passwd and /etc/group each, the rest of its line and the
	# other lines kept; /home/dev is the owner's; the mark is there
	atf_check -o inline:"dev:x:$u:$g::/home/dev:/bin/bash\n" \
	    in_ctr $c grep '^dev:' /etc/passwd
	atf_check -o match:"^dev:x:$g:\$" in_ctr $c grep '^dev:' /etc/group
	atf_check -o match:"^root:x:0:0:root:/root:" in_ctr $c head -n 1 /etc/passwd
	atf_check -o inline:"root:x:0:\n" in_ctr $c head -n 1 /etc/group
	atf_check -o inline:"$u $g\n" in_ctr $c stat -c "%u %g" /home/dev
	atf_check -o inline:"$u:$g\n" in_ctr $c cat /etc/jailbee-dev-ids
	# the host checkout is read-only inside
	atf_check -s not-exit:0 -e match:"Read-only" in_ctr $c touch /mnt/host-source/x
	# ls, text and JSON
	atf_check -o match:"^$c +Running +strict +10\\.213\\.0\\.[0-9]+ +clone +feat-x" \
	    jbo repo ls
	jbo repo ls -o json > ls.json
	atf_check -o inline:"$c\n" jq -r '.containers[].name' ls.json
	atf_check -o inline:"feat-x\n" jq -r '.containers[].branch' ls.json
	atf_check -o match:"$c" jbo / ls --all
	# by its full name from anywhere, a checkout JailBee does not know too
	mkdir other && git -C other init -q && chown -R $JB_OWNER other
	atf_check -o inline:"$d\n" jbo other exec $c -- pwd
	atf_check -o inline:"$d\n" jbo / exec $c -- pwd
	# exec: as dev in the clone, status and stderr passed through
	atf_check -o inline:"$d\n" jbo repo exec feat-x -- pwd
	atf_check -s exit:3 -o inline:"out\n" -e inline:"err\n" \
	    jbo repo exec feat-x -- sh -c 'echo out; echo err >&2; exit 3'
	atf_check -o inline:"hello\n" -x "echo hello | $(pwd)/bin/jbctl -s $(jb_sock) exec $c -- cat"
	# a second new of the same name is refused, the first untouched
	atf_check -s exit:1 -e match:"$c already exists" jbo repo new feat-x
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$c\$"
}
new_clone_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case new_existing_branch cleanup
new_existing_branch_head() {
	atf_set descr "new on a branch the host has checks it out as it is" \
	    "there; new from BASE; a missing BASE is refused (C4)"
	atf_set require.user root
	atf_set timeout 300
}
new_existing_branch_body() {
	setup
	p=$(jb_prefix)
	atf_check -e match:"branch feat exists on the host" jbo repo new feat
	atf_check -o inline:"$(hgit rev-parse feat)\n" \
	    in_ctr $p-feat git -C /home/dev/$p rev-parse HEAD
	atf_check -e ignore jbo repo new topic feat
	atf_check -o inline:"$(hgit rev-parse feat)\n" \
	    in_ctr $p-topic git -C /home/dev/$p rev-parse HEAD
	atf_check -s exit:1 -e match:"base branch nope does not exist" \
	    jbo repo new other nope
	atf_check -o empty incus list -c n --format csv "^$p-other\$"
}
new_existing_branch_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case new_mount cleanup
new_mount_head() {
	atf_set descr "new --mount puts the host working tree itself in the" \
	    "container, read-write, files keeping the owner's id (C2, C5)"
	atf_set require.user root
	atf_set timeout 300
}
new_mount_body() {
	setup
	p=$(jb_prefix)
	atf_check -e match:"works on your working tree directly" \
	    jbo repo new --mount live
	in_ctr $p-live sh -c "echo from-container > /home/dev/$p/made-inside"
	atf_check -o inline:"from-container\n" cat repo/made-inside
	atf_check -o inline:"$JB_OWNER\n" stat -c %U repo/made-inside
	atf_check -o match:"mount" jbo repo ls
	# nothing lives only in the container: destroy needs no --force
	atf_check -e ignore jbo repo destroy live
}
new_mount_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case new_failures_leave_nothing cleanup
new_failures_leave_nothing_head() {
	atf_set descr "a new that fails before or after the container exists" \
	    "says which step failed and leaves no container (C4)"
	atf_set require.user root
	atf_set timeout 300
}
new_failures_leave_nothing_body() {
	setup
	p=$(jb_prefix)
	# no such image
	printf 'container_prefix: %s\nbase:\n  alias: no-such-image\n' $p \
	    > repo/.jailbee/config.yaml
	atf_check -s exit:1 -e match:"no-such-image" jbo repo new a
	atf_check -o empty incus list -c n --format csv "^$p-"
	# the clone fails inside the container: a worktree checkout's .git
	# points outside the mounted directory
	printf 'container_prefix: %s\nbase:\n  alias: %s\n' $p $JB_IMAGE \
	    > repo/.jailbee/config.yaml
	mkdir wts
	chown $JB_OWNER wts
	setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups env HOME=/tmp \
	    git -C repo worktree add -q ../wts/wt feat ||
	    atf_fail "cannot make a worktree"
	mkdir -p wts/wt/.jailbee
	cp repo/.jailbee/config.yaml wts/wt/.jailbee/
	chown -R $JB_OWNER wts/wt/.jailbee
	atf_check -s exit:1 -e match:"cloning the checkout failed" \
	    -e match:"$p-b was deleted" jbo wts/wt new b
	atf_check -o empty incus list -c n --format csv "^$p-"
	# outside a checkout
	mkdir -p plain && chmod 0755 plain
	atf_check -s exit:1 -e match:"not inside a git checkout" jbo plain new c
}
new_failures_leave_nothing_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case new_storage_pool cleanup
new_storage_pool_head() {
	atf_set descr "defaults.storage_pool puts a new container's root disk" \
	    "on that Incus pool; a pool Incus lacks is refused naming it and" \
	    "leaves no container (issue 31 item 1)"
	atf_set require.user root
	atf_set timeout 300
}
new_storage_pool_body() {
	setup
	p=$(jb_prefix)
	# a pool of the test's own, next to the machine's (never that one)
	pool=${p}sp
	echo "$pool" > pool
	atf_check -o ignore incus storage create "$pool" dir
	printf 'defaults:\n  storage_pool: %s\n' "$pool" >> repo/.jailbee/config.yaml
	atf_check -e match:"ready: $p-sp" jbo repo new sp
	atf_check -o inline:"$pool\n" sh -c "incus query /1.0/instances/$p-sp |
	    jq -r .expanded_devices.root.pool"
	atf_check -o match:"^container,$p-sp\$" \
	    incus storage volume list "$pool" -c tn --format csv
	# the clone is there and the container runs on it
	atf_check -o inline:"sp\n" in_ctr $p-sp git -C /home/dev/$p \
	    branch --show-current
	# a pool Incus does not have
	printf 'container_prefix: %s\nbase:\n  alias: %s\ndefaults:\n  storage_pool: %snope\n' \
	    "$p" "$JB_IMAGE" "$p" > repo/.jailbee/config.yaml
	atf_check -s exit:1 -e match:"Storage pool not found" \
	    -e match:"pool is ${p}nope, from defaults.storage_pool" \
	    jbo repo new other
	atf_check -o empty incus list -c n --format csv "^$p-other\$"
}
new_storage_pool_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	[ -f pool ] && incus storage delete "$(cat pool)" > /dev/null 2>&1
	return 0
}

atf_test_case lifecycle_and_destroy cleanup
lifecycle_and_destroy_head() {
	atf_set descr "stop, start, restart; destroy refuses a container" \
	    "holding work the host lacks and says which; --force (C8); the" \
	    "log has the refusals of jb-incus, and nothing of new finding" \
	    "its name free"
	atf_set require.user root
	atf_set timeout 300
}
lifecycle_and_destroy_body() {
	setup
	p=$(jb_prefix)
	c=$p-work
	atf_check -e ignore jbo repo new work
	# new asked Incus whether its name is free: "not found" is the
	# answer it wants, not a failure for the log
	atf_check -s exit:1 grep "no such container $c" jailbeed.log
	atf_check -e ignore jbo repo stop --force work
	atf_check -o match:"STOPPED" incus list -c s --format csv "^$c\$"
	atf_check -s exit:1 -e match:"it is Stopped, so its work cannot be checked" \
	    jbo repo destroy work
	atf_check -e ignore jbo repo start work
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$c\$"
	atf_check -e ignore jbo repo restart work
	# a commit the host does not have
	in_ctr $c sh -c "cd /home/dev/$p && git -c user.email=a@b -c user.name=n \
	    commit -q --allow-empty -m inside"
	atf_check -s exit:1 -e match:"branch work: commit [0-9a-f]+ is not on the host" \
	    jbo repo destroy work
	in_ctr $c sh -c "cd /home/dev/$p && echo x > untracked"
	atf_check -s exit:1 -e match:"changed: .. untracked" jbo repo destroy work
	# a branch name git takes, chosen to steer the owner's terminal (a
	# C1 CSI, U+009B): the refusal names it, its bytes shown as ?
	in_ctr $c sh -c "cd /home/dev/$p && git branch \"\$(printf 'x\302\23331m')\""
	atf_check -s exit:1 -e save:destroy.err jbo repo destroy work
	atf_check -o match:"branch x\\?\\?31m: commit [0-9a-f]+ is not on the host" \
	    cat destroy.err
	LC_ALL=C grep -q "$(printf '\233')" destroy.err &&
	    atf_fail "a byte of the container's branch name reached the terminal raw"
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$c\$"
	atf_check -e ignore jbo repo destroy --force work
	atf_check -o empty incus list -c n --format csv "^$c\$"
	# a container that is not JailBee's is never touched
	incus launch $JB_IMAGE $p-foreign > /dev/null
	atf_check -s exit:1 -e match:"not a JailBee container" \
	    jbo / destroy --force $p-foreign
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$p-foreign\$"
	# a refused request is still in the log
	atf_check -o ignore grep \
	    "^jb-incus\[[0-9]*\]: request [0-9]*: $p-foreign is not a JailBee container" \
	    jailbeed.log
	atf_check -s exit:1 -e match:"no such container|not found" \
	    jbo repo start nothing-here
}
lifecycle_and_destroy_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case listed_as_incus_has_it cleanup
listed_as_incus_has_it_head() {
	atf_set descr "what the plain incus command does to a container" \
	    "behind the suite's back (stop, a new one holding an address," \
	    "delete) is in the suite's next lists within 2 s, though it" \
	    "keeps the last list of instances between them"
	atf_set require.user root
	atf_set timeout 300
}
# wait (2 s at most) until jbctl ls -o json, through jq filter $1,
# prints $2
ls_until() {
	i=0
	until [ "$(jbo repo ls -o json | jq -r "$1")" = "$2" ]; do
		i=$((i + 1))
		[ $i -lt 20 ] || atf_fail "after 2 s, ls gives" \
		    "$(jbo repo ls -o json | jq -c "$1") for $1, not $2"
		sleep 0.1
	done
}
listed_as_incus_has_it_body() {
	setup
	p=$(jb_prefix)
	c=$p-seen
	atf_check -e match:"ready: $c" jbo repo new seen
	ls_until ".containers[] | select(.name == \"$c\") | .state" Running
	atf_check -o ignore incus stop --force "$c"
	ls_until ".containers[] | select(.name == \"$c\") | .state" Stopped
	atf_check -o ignore incus start "$c"
	ls_until ".containers[] | select(.name == \"$c\") | .state" Running
	# an instance made behind the suite's back holding an address of
	# the bridge: the next new does not pick it
	a=$(jbo repo ls -o json | jq -r ".containers[] |
	    select(.name == \"$c\") | .ipv4")
	n=$(echo "$a" | awk -F. '{ print $4 }')
	taken=$(echo "$a" | awk -F. -v n=$((n - 1)) '{ print $1 "." $2 "." $3 "." n }')
	atf_check -o ignore incus init "$JB_IMAGE" "$p-other" \
	    -d eth0,ipv4.address="$taken"
	atf_check -e match:"ready: $p-next" jbo repo new next
	got=$(jbo repo ls -o json | jq -r ".containers[] |
	    select(.name == \"$p-next\") | .ipv4")
	[ "$got" != "$taken" ] || atf_fail "new gave $p-next $taken," \
	    "which $p-other holds"
	atf_check -o ignore incus delete --force "$c"
	ls_until "[.containers[] | select(.name == \"$c\")] | length" 0
}
listed_as_incus_has_it_cleanup() {
	incus delete --force "$(cat prefix 2>/dev/null)-other" > /dev/null 2>&1
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case destroy_as_it_stops cleanup
destroy_as_it_stops_head() {
	atf_set descr "destroy --force of a container whose init has just" \
	    "died (the OOM killer's doing, under a hostile workload): the" \
	    "stop finds it stopping by itself, and it is deleted once stopped"
	atf_set require.user root
	atf_set timeout 300
}
destroy_as_it_stops_body() {
	setup
	p=$(jb_prefix)
	c=$p-work
	atf_check -e ignore jbo repo new work
	pid=$(incus query "/1.0/instances/$c/state" | jq -r .pid)
	[ "$pid" -gt 1 ] || atf_fail "no init pid for $c: $pid"
	kill -KILL "$pid"
	atf_check -e save:destroy.err jbo repo destroy --force work
	atf_check -o empty incus list -c n --format csv "^$c\$"
}
destroy_as_it_stops_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case destroy_refused_keeps_policy cleanup
destroy_refused_keeps_policy_head() {
	atf_set descr "destroy has jb-netd forget the container while Incus" \
	    "stops and deletes it; when Incus refuses the delete, the" \
	    "container's policy is enforced again and it starts as before"
	atf_set require.user root
	atf_set timeout 300
}
destroy_refused_keeps_policy_body() {
	setup
	p=$(jb_prefix)
	c=$p-kept
	atf_check -e ignore jbo repo new kept
	a=$(jb_netd_addr "$c")
	[ -n "$a" ] || atf_fail "jb-netd holds no policy for $c"
	atf_check incus config set "$c" security.protection.delete=true
	atf_check -s exit:1 -e match:"protected" jbo repo destroy --force kept
	atf_check -o match:"^$c,STOPPED" incus list -c ns --format csv "^$c\$"
	atf_check -o match:"^$c $a " grep "^$c " state/netd/containers
	jb_verdict_is "$a" "jump strict"
	atf_check -e ignore jbo repo start kept
	atf_check -o match:"^$c,RUNNING" incus list -c ns --format csv "^$c\$"
	atf_check incus config unset "$c" security.protection.delete
	atf_check -e match:"deleting $c" jbo repo destroy --force kept
	atf_check -s exit:1 grep "^$c " state/netd/containers
	jb_verdict_is "$a" ""
	# once it is gone, Incus's refusal is all the user is told
	atf_check -s exit:1 -e match:"no such container $c" \
	    -e not-match:"network|jailbeed restarts" \
	    jbo repo destroy --force kept
	atf_check -s exit:1 -e inline:"jbctl: no such container $c\n" \
	    jbo repo start kept
}
destroy_refused_keeps_policy_cleanup() {
	incus config unset "$(cat prefix 2>/dev/null)-kept" \
	    security.protection.delete > /dev/null 2>&1
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case stop_not_held_by_lxcfs cleanup
stop_not_held_by_lxcfs_head() {
	atf_set descr "incusd started by regress/incus-up gives containers" \
	    "lxcfs's configuration with its post-stop hook run for a reboot" \
	    "only: a stop or destroy does not wait its half second"
	atf_set require.user root
	atf_set timeout 300
}
stop_not_held_by_lxcfs_body() {
	pid=$(cat /run/incusd.pid 2>/dev/null) &&
	    [ "$(ps -p "$pid" -o comm= 2>/dev/null)" = incusd ] ||
	    atf_skip "incusd was not started by regress/incus-up"
	t=$(tr '\0' '\n' < "/proc/$pid/environ" |
	    sed -n 's/^INCUS_LXC_TEMPLATE_CONFIG=//p')
	[ -n "$t" ] || atf_fail "incusd (pid $pid, started by" \
	    "regress/incus-up) has no INCUS_LXC_TEMPLATE_CONFIG: lxcfs's" \
	    "post-stop hook holds every stop half a second"
	setup
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new work
	conf=${INCUS_DIR:-/var/lib/incus}/run/$p-work/lxc.conf
	atf_check -o inline:"lxc.include = $t/common.conf.d/\n" \
	    grep "^lxc.include = .*common.conf.d" "$conf"
	atf_check -o match:"^lxc.hook.post-stop = $t/lxcfs-reboot.hook\$" \
	    -o not-match:"/usr/share/lxcfs/lxc.reboot.hook" \
	    cat "$t"/common.conf.d/*.conf
	# the hook: nothing for a stop, lxcfs's own for a reboot
	atf_check -e not-match:"lxc.reboot.hook" env LXC_TARGET=stop \
	    sh -x "$t/lxcfs-reboot.hook"
	atf_check -e match:"exec /usr/share/lxcfs/lxc.reboot.hook" \
	    env LXC_TARGET=reboot sh -x "$t/lxcfs-reboot.hook"
	atf_check -e match:"deleting $p-work" jbo repo destroy --force work
}
stop_not_held_by_lxcfs_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case nic_named_at_start cleanup
nic_named_at_start_head() {
	atf_set descr "a container whose NIC an older version made (Incus's" \
	    "ipv4_filtering, Incus's port name and MAC) gets the suite's port" \
	    "name and MAC when the suite starts it, Incus's filtering goes," \
	    "and its port sends from its fixed address (C4, N9)"
	atf_set require.user root
	atf_set timeout 300
}
nic_named_at_start_body() {
	setup
	c=$(jb_prefix)-old
	atf_check -e ignore jbo repo new old
	ip=$(incus config device get $c eth0 ipv4.address)
	# the port and MAC the bridge table names for that address
	set -- $(echo "$ip" | tr . ' ')
	port=$(printf 'jbc%02x%02x%02x%02x' "$@")
	mac=$(printf '0a:6a:%02x:%02x:%02x:%02x' "$@")
	atf_check -o inline:"$port\n" incus config device get $c eth0 host_name
	atf_check -e ignore jbo repo stop --force old
	# as an older version left it
	incus config device unset $c eth0 host_name &&
	    incus config device unset $c eth0 hwaddr &&
	    incus config device set $c eth0 security.ipv4_filtering=true ||
	    atf_fail "cannot set $c's eth0 as an older version made it"
	atf_check -e match:"$c: eth0 gets the port name and MAC address" \
	    jbo repo start old
	atf_check -o inline:"$port\n" incus config device get $c eth0 host_name
	atf_check -o inline:"$mac\n" incus config device get $c eth0 hwaddr
	atf_check -o inline:"\n" incus config device get $c eth0 \
	    security.ipv4_filtering
	atf_check -o match:"master jbbr0" ip link show dev "$port"
	# DHCP gave it its fixed address through the port, and it is heard
	jb_routed $c
	atf_check -o match:"inet $ip/" incus exec $c -- ip -4 addr show dev eth0
	atf_check -o ignore -e ignore incus exec $c -- nc -z -w 3 10.213.0.1 53
}
nic_named_at_start_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case snapshots cleanup
snapshots_head() {
	atf_set descr "snapshot create, ls, restore and delete (C9)"
	atf_set require.user root
	atf_set timeout 300
}
snapshots_body() {
	setup
	p=$(jb_prefix)
	c=$p-snap
	atf_check -e ignore jbo repo new snap
	atf_check -e match:"snapshot before" jbo repo snapshot create snap before
	in_ctr $c sh -c "echo later > /home/dev/$p/later"
	atf_check -o match:"^before " jbo repo snapshot ls snap
	jbo repo snapshot ls -o json snap > snaps.json
	atf_check -o inline:"before\n" jq -r '.snapshots[].name' snaps.json
	atf_check -e ignore jbo repo snapshot restore snap before
	atf_check -s not-exit:0 -e ignore in_ctr $c test -e /home/dev/$p/later
	atf_check -e ignore jbo repo snapshot delete snap before
	atf_check -o match:"no snapshots" jbo repo snapshot ls snap
	atf_check -s exit:1 -e match:"nope" jbo repo snapshot restore snap nope
}
snapshots_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case busy_instance cleanup
busy_instance_head() {
	atf_set descr "stop, start, snapshot and restore while Incus is busy" \
	    "with another change to the same instance (a device added and" \
	    "removed over and over, as a mount deadline does): each waits" \
	    "for its turn instead of failing"
	atf_set require.user root
	atf_set timeout 300
}
busy_instance_body() {
	setup
	p=$(jb_prefix)
	c=$p-busy
	atf_check -e ignore jbo repo new busy
	mkdir busydir
	touch busy.run
	# Incus refuses a change while another runs on the instance
	(
		while [ -e busy.run ]; do
			incus config device add $c jbtest-busy disk \
			    source="$(pwd)/busydir" path=/mnt/jbtest-busy \
			    > /dev/null 2>&1
			incus config device remove $c jbtest-busy \
			    > /dev/null 2>&1
		done
	) &
	echo $! > busy.pid
	for i in 1 2 3; do
		atf_check -e ignore jbo repo stop busy
		atf_check -e ignore jbo repo start busy
	done
	atf_check -e ignore jbo repo snapshot create busy one
	atf_check -e ignore jbo repo snapshot restore busy one
	atf_check -e ignore jbo repo snapshot restore busy one
	rm busy.run
	wait "$(cat busy.pid)"
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$c\$"
}
busy_instance_cleanup() {
	rm -f busy.run
	[ -s busy.pid ] && kill "$(cat busy.pid)" 2> /dev/null
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case network_fails_closed cleanup
network_fails_closed_head() {
	atf_set descr "with an empty allowlist nothing leaves a container:" \
	    "a test host the host itself reaches is refused to it, even" \
	    "with a route added by root inside (C4, N1)"
	atf_set require.user root
	atf_set timeout 300
}
network_fails_closed_body() {
	setup
	p=$(jb_prefix)
	n=$(($$ % 250))
	ns=jbn$$
	echo $ns > netns
	ip netns add $ns || atf_fail "ip netns add"
	ip link add jbh$n type veth peer name jbp$n || atf_fail "veth"
	ip link set jbp$n netns $ns
	ip addr add 10.251.$n.1/30 dev jbh$n
	ip link set jbh$n up
	ip netns exec $ns ip addr add 10.251.$n.2/30 dev jbp$n
	ip netns exec $ns ip link set jbp$n up
	mkdir -p www && echo hello > www/index.html
	ip netns exec $ns busybox httpd -p 8080 -h "$(pwd)/www"
	req='GET /index.html HTTP/1.0\r\n\r\n'
	# the test host answers the host
	atf_check -o match:"^hello" -x "printf '$req' | busybox nc -w 3 10.251.$n.2 8080"
	atf_check -e ignore jbo repo new net
	atf_check -o match:"reject" nft list chain inet jailbee forward
	# root in the container adds a default route: still nothing gets out
	incus exec $p-net -- ip route replace default via 10.213.0.1
	atf_check -s not-exit:0 -o not-match:hello -e ignore incus exec $p-net -- \
	    sh -c "printf '$req' | nc -w 3 10.251.$n.2 8080"
}
network_fails_closed_cleanup() {
	if [ -f netns ]; then
		ns=$(cat netns)
		pids=$(ip netns pids $ns 2>/dev/null)
		[ -n "$pids" ] && kill $pids
		ip netns del $ns 2>/dev/null
		ip link del jbh$(( ${ns#jbn} % 250 )) 2>/dev/null
	fi
	jb_containers_cleanup
	jb_cleanup
}

# what the bridge's addresses are taken by: instances' NICs, leases
addrs_taken() {
	incus query '/1.0/instances?recursion=1' | jq -r '.[] |
	    (.expanded_devices, .devices) | .[]? | ."ipv4.address" // empty'
	incus query /1.0/networks/jbbr0/leases | jq -r '.[].address'
}

# the address new would take now: the highest of 10.213.0.0/24 above
# the DHCP range ($1, its last octet) that nothing takes
addr_next() {
	addrs_taken > taken
	i=254
	while [ $i -gt "$1" ]; do
		grep -qx "10\.213\.0\.$i" taken || { echo 10.213.0.$i; return; }
		i=$((i - 1))
	done
	atf_fail "no free address on jbbr0"
}

# r: jbbr0's DHCP ranges, one from .2 as regress/incus-up narrows them
bridge_ranges() {
	r=$(incus network get jbbr0 ipv4.dhcp.ranges)
	case $r in
	10.213.0.2-10.213.0.*) ;;
	*) atf_fail "jbbr0 leases from \"$r\": regress/incus-up narrows it" ;;
	esac
}

atf_test_case new_skips_taken_addresses cleanup
new_skips_taken_addresses_head() {
	atf_set descr "new gives an address above the bridge's DHCP range" \
	    "that no instance holds, the suite's or not, in its config or" \
	    "by a lease (issue 12)"
	atf_set require.user root
	atf_set timeout 300
}
new_skips_taken_addresses_body() {
	setup
	p=$(jb_prefix)
	bridge_ranges
	dlast=${r##*.}
	# an instance that is not the suite's holds the next address
	x=$(addr_next "$dlast")
	atf_check -o ignore incus init "$JB_IMAGE" $p-other
	atf_check -o ignore incus config device override $p-other eth0 \
	    ipv4.address=$x
	# and a lease dnsmasq keeps for that instance's MAC holds the one
	# after (its current address, as if it had asked for it by DHCP)
	y=$(addr_next "$dlast")
	mac=$(incus config get $p-other volatile.eth0.hwaddr)
	[ -n "$mac" ] || atf_fail "$p-other has no MAC"
	echo "jbstale$$" > stale.host
	echo "$(($(date +%s) + 3600)) $mac $y jbstale$$ *" \
	    >> /var/lib/incus/networks/jbbr0/dnsmasq.leases
	atf_check -o match:"$y.*DYNAMIC" incus network list-leases jbbr0 -f csv
	atf_check -e match:"ready: $p-addr" jbo repo new addr
	z=$(incus config device get $p-addr eth0 ipv4.address)
	[ "$z" != "$x" ] || atf_fail "new took $x, which $p-other holds"
	[ "$z" != "$y" ] || atf_fail "new took $y, which $p-other leases"
	[ "${z##*.}" -gt "$dlast" ] || atf_fail "new took $z, in $r"
	atf_check -o match:"$p-addr +Running +strict +$z " jbo repo ls
}
new_skips_taken_addresses_cleanup() {
	# rewritten in place: dnsmasq writes its leases through the fd it
	# opened at start, so a new file (sed -i) would hide every later
	# lease from Incus, which could then never release them
	f=/var/lib/incus/networks/jbbr0/dnsmasq.leases
	if [ -f stale.host ]; then
		grep -v " $(cat stale.host) " "$f" > leases.kept
		cat leases.kept > "$f"
	fi
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case new_follows_bridge_change cleanup
new_follows_bridge_change_head() {
	atf_set descr "the bridge's record jb-incus keeps is dropped when" \
	    "Incus says a network changed: new after a change to the" \
	    "bridge's DHCP ranges takes an address outside the new ones"
	atf_set require.user root
	atf_set timeout 300
}
new_follows_bridge_change_body() {
	setup
	p=$(jb_prefix)
	bridge_ranges
	# the first new reads the bridge, and jb-incus keeps what it read
	atf_check -e match:"ready: $p-first" jbo repo new first
	x=$(incus config device get $p-first eth0 ipv4.address)
	[ "${x##*.}" -gt 200 ] || atf_fail "first took $x, not one above .200"
	echo "$r" > ranges.saved
	# the top of the subnet leased too: a new from the record kept
	# before would take an address there
	atf_check incus network set jbbr0 ipv4.dhcp.ranges \
	    "$r,10.213.0.200-10.213.0.254"
	i=0
	until grep -q "Incus event: a network changed" jailbeed.log; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "jb-incus was not told of the change"
		sleep 0.1
	done
	atf_check -e match:"ready: $p-second" jbo repo new second
	y=$(incus config device get $p-second eth0 ipv4.address)
	[ "${y##*.}" -lt 200 ] ||
	    atf_fail "second took $y, in the ranges the bridge now leases from"
	[ "${y##*.}" -gt "${r##*.}" ] || atf_fail "second took $y, in $r"
}
new_follows_bridge_change_cleanup() {
	[ -f ranges.saved ] &&
	    incus network set jbbr0 ipv4.dhcp.ranges "$(cat ranges.saved)"
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case new_over_leftover_nic cleanup
new_over_leftover_nic_head() {
	atf_set descr "a veth pair with both ends on the host under the NIC" \
	    "name of the address new gives (what a start cut short leaves)" \
	    "is removed, and new starts at that address; a running" \
	    "container's NIC is not touched"
	atf_set require.user root
	atf_set timeout 300
}
new_over_leftover_nic_body() {
	setup
	p=$(jb_prefix)
	atf_check -e match:"ready: $p-first" jbo repo new first
	r=$(incus network get jbbr0 ipv4.dhcp.ranges)
	x=$(addr_next "${r##*.}")
	nic=$(printf 'jbc%02x%02x%02x%02x' $(echo "$x" | tr . ' '))
	echo "jbleft$$" > leftover.nic
	atf_check ip link add "$nic" type veth peer name "jbleft$$"
	atf_check -e match:"ready: $p-left" jbo repo new left
	atf_check -o inline:"$x\n" \
	    incus config device get $p-left eth0 ipv4.address
	atf_check -o match:"$p-left +Running" jbo repo ls
	atf_check -s exit:1 -e match:"does not exist" ip link show "jbleft$$"
	atf_check -o ignore grep "$p-left: host interface $nic removed" \
	    jailbeed.log
	# the running container's NIC went nowhere
	atf_check -o match:"^eth0	00000000" in_ctr $p-first cat /proc/net/route
	atf_check -o match:"$p-first +Running" jbo repo ls
}
new_over_leftover_nic_cleanup() {
	[ -f leftover.nic ] && ip link del "$(cat leftover.nic)" 2>/dev/null
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case shell_pty cleanup
shell_pty_head() {
	atf_set descr "jbctl shell is a real terminal: raw mode, window size," \
	    "Ctrl-C reaches the container, exit status passed (C7)"
	atf_set require.user root
	atf_set require.progs tmux
	atf_set timeout 300
}
shell_pty_body() {
	setup
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new sh
	sess=jbtest$$
	echo $sess > tmux-session
	bin=$(pwd)/bin/jbctl
	sock=$(jb_sock)
	tmux new-session -d -s $sess -x 100 -y 30 \
	    "cd repo && setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups env HOME=/nonexistent TERM=xterm $bin -s $sock shell sh; echo jbctl-exit=\$?; sleep 30"
	# the shell's prompt, then its answers
	jb_tmux_wait $sess screen0 '[$#] ?$' ||
	    { cat screen0; atf_fail "no shell prompt"; }
	tmux send-keys -t $sess 'stty size; pwd' Enter
	jb_tmux_wait $sess screen1 "^/home/dev/" || true
	grep -q "^30 100" screen1 || { cat screen1; atf_fail "window size not passed"; }
	grep -q "/home/dev/$p" screen1 || { cat screen1; atf_fail "not in the clone"; }
	# a resize reaches the container: asked until it shows, for 10 s
	tmux resize-window -t $sess -x 120 -y 40
	i=0
	while [ $i -lt 10 ]; do
		tmux send-keys -t $sess 'stty size' Enter
		jb_tmux_wait $sess screen2 "^40 120" 1 && break
		i=$((i + 1))
	done
	grep -q "^40 120" screen2 || { cat screen2; atf_fail "resize not passed"; }
	# Ctrl-C interrupts the command in the container, not jbctl
	tmux send-keys -t $sess 'echo sleeping; sleep 100' Enter
	jb_tmux_wait $sess screen3 "^sleeping" ||
	    { cat screen3; atf_fail "the command did not start"; }
	sleep 0.5
	tmux send-keys -t $sess C-c
	jb_tmux_wait $sess screen3 '^\^C' 5 || true
	tmux send-keys -t $sess 'echo still-here; exit 7' Enter
	jb_tmux_wait $sess screen3 "jbctl-exit=" || true
	tmux kill-session -t $sess
	grep -q "^still-here" screen3 || { cat screen3; atf_fail "Ctrl-C killed the session"; }
	grep -q "jbctl-exit=7" screen3 || { cat screen3; atf_fail "exit status not passed"; }
}
shell_pty_cleanup() {
	[ -f tmux-session ] && tmux kill-session -t "$(cat tmux-session)" 2>/dev/null
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case git_identity cleanup
git_identity_head() {
	atf_set descr "new writes the owner's user.name and user.email, as" \
	    "their git reads them from ~/.config/git/config and ~/.gitconfig," \
	    "and nothing else of their git config, to the dev user's" \
	    "~/.gitconfig: git commit in the clone works at once (issue 12.3)"
	atf_set require.user root
	atf_set timeout 300
}
git_identity_body() {
	jb_owner_home
	h=$(pwd)/ownerhome
	# the XDG file is read first, ~/.gitconfig wins where both say
	mkdir -p xdg/git
	printf '[user]\n\tname = From Xdg\n\temail = jay@example.org\n' \
	    > xdg/git/config
	cat > "$h/.gitconfig" <<'EOC'
[user]
	name = Old Name
[core]
	editor = not-for-the-container
[alias]
	st = status
[User]
	NAME = "Jay \"Bee\" O'Tester"  ; the last one wins
EOC
	chown -R $JB_OWNER xdg "$h/.gitconfig"
	XDG_CONFIG_HOME=$(pwd)/xdg
	export XDG_CONFIG_HOME
	setup
	p=$(jb_prefix)
	c=$p-gi
	atf_check -e match:"git identity in /home/dev/.gitconfig: Jay \"Bee\" O'Tester <jay@example.org>" \
	    -e not-match:"git: " -e match:"ready: $c" jbo repo new gi
	atf_check -o inline:"$(id -u $JB_OWNER) $(id -g $JB_OWNER) 644\n" \
	    in_ctr $c stat -c '%u %g %a' /home/dev/.gitconfig
	atf_check in_ctr $c git -C /home/dev/$p commit -q --allow-empty -m x
	atf_check -o inline:"Jay \"Bee\" O'Tester <jay@example.org>\n" \
	    in_ctr $c git -C /home/dev/$p log -1 --format='%an <%ae>'
	# nothing else of the host's git config went along
	atf_check -o inline:"user.name=Jay \"Bee\" O'Tester\nuser.email=jay@example.org\n" \
	    in_ctr $c git config --global --list
	# --mount too (where the checkout's own user.* still wins, as on
	# the host)
	atf_check -e match:"git identity in /home/dev/.gitconfig" \
	    jbo repo new --mount live
	atf_check -o inline:"jay@example.org\n" \
	    in_ctr $p-live git config --global user.email
	# an image whose ~/.gitconfig is a symlink (root in a container
	# published it so): the file is made anew, the symlink's target is
	# left as it was
	incus init "$JB_IMAGE" "$p-src" > /dev/null ||
	    atf_fail "cannot make $p-src"
	incus start "$p-src" || atf_fail "cannot start $p-src"
	incus exec "$p-src" -- sh -c 'echo orig > /etc/victim &&
	    mkdir -p /home/dev && ln -sf /etc/victim /home/dev/.gitconfig' ||
	    atf_fail "cannot put the symlink into $p-src"
	incus stop --force "$p-src" &&
	    incus publish "$p-src" --alias "$p-linked" --compression none \
	    > /dev/null || atf_fail "cannot publish $p-src as $p-linked"
	sed -i "s/^  alias: .*/  alias: $p-linked/" repo/.jailbee/config.yaml
	atf_check -e match:"git identity in /home/dev/.gitconfig: Jay" \
	    -e match:"ready: $p-lnk" jbo repo new lnk
	atf_check -o inline:"regular file $(id -u $JB_OWNER) $(id -g $JB_OWNER) 644\n" \
	    in_ctr $p-lnk stat -c '%F %u %g %a' /home/dev/.gitconfig
	atf_check -o inline:"orig\n" in_ctr $p-lnk cat /etc/victim
	atf_check -o inline:"user.name=Jay \"Bee\" O'Tester\nuser.email=jay@example.org\n" \
	    in_ctr $p-lnk git config --global --list
}
git_identity_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	jb_owner_home_restore
	[ -f prefix ] && incus image delete "$(cat prefix)-linked" \
	    > /dev/null 2>&1
	true
}

atf_test_case git_identity_missing cleanup
git_identity_missing_head() {
	atf_set descr "an owner whose git config has no identity: new says" \
	    "so, once, and goes on; a bad config line is named (issue 12.3)"
	atf_set require.user root
	atf_set timeout 300
}
git_identity_missing_body() {
	jb_owner_home
	h=$(pwd)/ownerhome
	printf '[core]\n\teditor = vi\n[include]\n\tpath = ~/.gitid\n' \
	    > "$h/.gitconfig"
	chown $JB_OWNER "$h/.gitconfig"
	setup
	p=$(jb_prefix)
	jbo repo new none 2> err || { cat err >&2; atf_fail "new failed"; }
	atf_check -o inline:"1\n" grep -c "git: " err
	atf_check -o match:"no user.name or user.email in ~/.gitconfig or ~/.config/git/config \(include.path is not followed\)" \
	    cat err
	atf_check -o match:"ready: $p-none" cat err
	atf_check -s exit:1 in_ctr $p-none test -e /home/dev/.gitconfig
	# a file git would refuse: named, with its line, the one thing said;
	# new goes on.  (A bad ~/.gitconfig stops new earlier: the owner's
	# git refuses the checkout; XDG_CONFIG_HOME here is only jbctl's.)
	mkdir -p xdg/git
	printf '[user]\n\tname = X\n[oops\n' > xdg/git/config
	chown -R $JB_OWNER xdg
	env XDG_CONFIG_HOME=$(pwd)/xdg jbo repo new bad 2> err ||
	    { cat err >&2; atf_fail "new failed"; }
	atf_check -o inline:"1\n" grep -c "git: " err
	atf_check -o match:"git: $(pwd)/xdg/git/config line 3: unterminated section header" \
	    -o match:"ready: $p-bad" cat err
	atf_check -s exit:1 in_ctr $p-bad test -e /home/dev/.gitconfig
}
git_identity_missing_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	jb_owner_home_restore
}

atf_init_test_cases() {
	atf_add_test_case init_and_config
	atf_add_test_case new_clone
	atf_add_test_case new_skips_taken_addresses
	atf_add_test_case new_follows_bridge_change
	atf_add_test_case new_over_leftover_nic
	atf_add_test_case new_existing_branch
	atf_add_test_case new_mount
	atf_add_test_case new_failures_leave_nothing
	atf_add_test_case new_storage_pool
	atf_add_test_case listed_as_incus_has_it
	atf_add_test_case lifecycle_and_destroy
	atf_add_test_case destroy_as_it_stops
	atf_add_test_case destroy_refused_keeps_policy
	atf_add_test_case stop_not_held_by_lxcfs
	atf_add_test_case nic_named_at_start
	atf_add_test_case snapshots
	atf_add_test_case busy_instance
	atf_add_test_case network_fails_closed
	atf_add_test_case shell_pty
	atf_add_test_case git_identity
	atf_add_test_case git_identity_missing
}
