#! /usr/bin/env atf-sh
#
# Mounts on the real incusd (FEATURES M1-M3, B3): host_mounts at new and
# apply, optional mounts with deadlines held by jb-mountd (also across a
# restart of the suite), and the check that a path swapped between the
# check and the attach cannot land the mount elsewhere.

. "$(atf_get_srcdir)/lib.sh"

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
}

# a directory of the owner's with one file in it
owned_dir() {
	mkdir -p "$1"
	echo "${2:-content}" > "$1/file"
	chown -R $JB_OWNER "$1"
	chmod 0755 "$1"
}

# the repo config: the prefix and image lib.sh gives, plus what is given
config() {
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$(jb_prefix)" "$JB_IMAGE"
		cat
	} > repo/.jailbee/config.yaml
	chown $JB_OWNER repo/.jailbee/config.yaml
}


has_device() { incus config device list "$1" | grep -qx "$2"; }

# holds WHAT: how many attach holds before WHAT jailbeed.log tells of
holds() { grep -c "test switch: an attach held .* before $1" jailbeed.log; }
# held N WHAT: wait until there are more than N of them (10 s at most)
held() {
	_i=0
	while [ "$(holds "$2")" -le "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt 200 ] || atf_fail "no attach held before $2"
		sleep 0.05
	done
}

atf_test_case host_mounts_ro_rw cleanup
host_mounts_ro_rw_head() {
	atf_set descr "host_mounts: a read-only one refuses writes, for" \
	    "container root too; files written through a read-write one" \
	    "belong to the owner on the host (M1, C2)"
	atf_set require.user root
	atf_set timeout 300
}
host_mounts_ro_rw_body() {
	setup
	w=$(pwd)
	owned_dir "$w/ro" ro-content
	owned_dir "$w/rw" rw-content
	config <<EOC
host_mounts:
  - host: $w/ro
    container: /home/dev/ro
    readonly: true
  - host: $w/rw
    container: /home/dev/rw
EOC
	p=$(jb_prefix)
	atf_check -e match:"attaching $w/ro at /home/dev/ro \\(read-only\\)" \
	    -e match:"attaching $w/rw at /home/dev/rw" -e match:"ready: $p-m" \
	    jbo repo new m
	atf_check -o inline:"ro-content\n" in_ctr $p-m cat /home/dev/ro/file
	atf_check -s not-exit:0 -e match:"Read-only file system" \
	    in_ctr $p-m touch /home/dev/ro/x
	atf_check -s not-exit:0 -e match:"Read-only file system" \
	    incus exec $p-m -- touch /home/dev/ro/x
	[ ! -e "$w/ro/x" ] || atf_fail "a write went through a read-only mount"
	atf_check in_ctr $p-m sh -c 'echo made > /home/dev/rw/made'
	atf_check -o inline:"made\n" cat "$w/rw/made"
	atf_check -o inline:"$JB_OWNER\n" stat -c %U "$w/rw/made"
	# apply on a container that has them all adds nothing
	atf_check -e match:"host_mounts applied" jbo repo apply m
	atf_check -o match:"^host-0 +ro " -o match:"^host-1 +rw " \
	    jbo repo mount ls m
}
host_mounts_ro_rw_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case host_mount_errors cleanup
host_mount_errors_head() {
	atf_set descr "a missing source, a relative container path and a" \
	    "path shadowing /mnt/host-source each get their own message and" \
	    "leave no container; a file source gets the directory-not-file" \
	    "warning; apply adds a mount added to the config (M1, M3)"
	atf_set require.user root
	atf_set timeout 300
}
host_mount_errors_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	config <<EOC
host_mounts:
  - host: $w/missing
    container: /home/dev/missing
EOC
	atf_check -s exit:1 -e match:"host path $w/missing \\(host_mounts\\[0\\]\\) does not exist" \
	    -e match:"$p-a was deleted" jbo repo new a
	atf_check -o empty incus list -c n --format csv "^$p-"
	config <<EOC
host_mounts:
  - host: $w
    container: home/dev/x
EOC
	atf_check -s exit:1 -e match:"host_mounts\\[0\\]\\.container: must be an absolute path" \
	    jbo repo new b
	owned_dir "$w/d"
	config <<EOC
host_mounts:
  - host: $w/d
    container: /mnt
EOC
	atf_check -s exit:1 -e match:"would shadow or enter /mnt/host-source" \
	    jbo repo new c
	atf_check -o empty incus list -c n --format csv "^$p-"
	# a single file: attached, with the warning
	config <<EOC
host_mounts:
  - host: $w/d/file
    container: /home/dev/file
    readonly: true
EOC
	atf_check -e match:"mount the directory, not the file" \
	    -e match:"ready: $p-d" jbo repo new d
	atf_check -o inline:"content\n" in_ctr $p-d cat /home/dev/file
	# apply: a new entry is attached, the old one kept
	owned_dir "$w/e" e-content
	config <<EOC
host_mounts:
  - host: $w/d/file
    container: /home/dev/file
    readonly: true
  - host: $w/e
    container: /home/dev/e
EOC
	atf_check -e match:"attaching $w/e at /home/dev/e" jbo repo apply d
	atf_check -o inline:"e-content\n" in_ctr $p-d cat /home/dev/e/file
}
host_mount_errors_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case optional_deadline cleanup
optional_deadline_head() {
	atf_set descr "an optional mount attaches read-only by default, shows" \
	    "in ls with its time left and is gone within a second of its" \
	    "deadline (M2, B3)"
	atf_set require.user root
	atf_set timeout 300
}
optional_deadline_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" secret
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
    description: "test credential"
    auto_unmount_after: 1h
EOC
	atf_check -e ignore jbo repo new o
	atf_check -o match:"^$p-o .* -$" jbo repo ls
	atf_check -s exit:1 -e match:"no such optional_mounts entry in this repo's configuration \\(known: creds\\)" \
	    jbo repo mount nope o
	atf_check -e match:"attached creds on $p-o at /home/dev/.creds, until .*\\((4|5)s\\)" \
	    jbo repo mount creds o --for 5s
	start=$(date +%s.%N)
	atf_check -o match:"^$p-o .* ● [1-5]s$" jbo repo ls
	atf_check -o match:"^optional-creds +ro +[1-5]s +/home/dev/.creds +$w/creds$" \
	    jbo repo mount ls o
	atf_check -o inline:"secret\n" in_ctr $p-o cat /home/dev/.creds/file
	atf_check -s not-exit:0 -e match:"Read-only file system" \
	    in_ctr $p-o touch /home/dev/.creds/x
	# gone within a second of the deadline
	while has_device $p-o optional-creds; do
		[ "$(echo "$(date +%s.%N) - $start > 8" | bc)" = 1 ] &&
		    atf_fail "still attached 8 s after a 5 s mount"
		sleep 0.1
	done
	gone=$(echo "$(date +%s.%N) - $start" | bc)
	echo "detached $gone s after a 5 s mount" >&2
	[ "$(echo "$gone < 6.2" | bc)" = 1 ] ||
	    atf_fail "detached after $gone s, not within a second of 5 s"
	atf_check -s not-exit:0 -e ignore in_ctr $p-o cat /home/dev/.creds/file
	atf_check -o match:"^$p-o .* -$" jbo repo ls
	atf_check -o match:"^no mounts" jbo repo mount ls o
}
optional_deadline_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case remount_norevert_unmount cleanup
remount_norevert_unmount_head() {
	atf_set descr "the default deadline comes from auto_unmount_after;" \
	    "a second mount moves only the deadline; --no-revert; unmount;" \
	    "mount_auto_revert disabled means no default (M2)"
	atf_set require.user root
	atf_set timeout 300
}
remount_norevert_unmount_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" secret
	owned_dir "$w/other" other
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
    auto_unmount_after: 15m
EOC
	atf_check -e ignore jbo repo new r
	atf_check -e match:"attached creds on $p-r .*\\(15m\\)" \
	    jbo repo mount creds r
	atf_check -o match:"● 15m$" jbo repo ls
	# a second mount: the deadline moves, the source stays
	config <<EOC
optional_mounts:
  creds:
    host: $w/other
    container: /home/dev/.creds
    readonly: false
EOC
	atf_check -e match:"already attached: moved the deadline of creds on $p-r .*\\(1h00m\\)" \
	    jbo repo mount creds r
	atf_check -o inline:"secret\n" in_ctr $p-r cat /home/dev/.creds/file
	atf_check -o match:"^optional-creds +ro +(59m|1h00m) " jbo repo mount ls r
	atf_check -e match:"no deadline" jbo repo mount creds r --no-revert
	atf_check -o match:"● ∞$" jbo repo ls
	atf_check -o match:"^optional-creds +ro +∞ " jbo repo mount ls r
	jbo repo mount ls r -o json > m.json
	atf_check -o inline:"null\n" jq -r '.mounts[] | select(.device == "optional-creds") | .until' m.json
	atf_check -s exit:1 -e match:"exclude each other" \
	    jbo repo mount creds r --for 1m --no-revert
	atf_check -s exit:1 -e match:"--for: " jbo repo mount creds r --for 25h
	atf_check -e match:"detached creds from $p-r" jbo repo unmount creds r
	has_device $p-r optional-creds && atf_fail "still attached"
	atf_check -s exit:1 -e match:"it is not attached to $p-r" \
	    jbo repo unmount creds r
	# mount_auto_revert disabled: no default; --for still honoured
	config <<EOC
mount_auto_revert:
  enabled: false
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e match:"no deadline" jbo repo mount creds r
	atf_check -e match:"\\(10m\\)" jbo repo mount creds r --for 10m
	atf_check -o match:"● 10m$" jbo repo ls
}
remount_norevert_unmount_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case restart_across_deadline cleanup
restart_across_deadline_head() {
	atf_set descr "a deadline that passes while the suite is down is" \
	    "applied as it starts again (M2, B3)"
	atf_set require.user root
	atf_set timeout 300
}
restart_across_deadline_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" secret
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e ignore jbo repo new s
	atf_check -e ignore jbo repo mount creds s --for 4s
	atf_check -o match:"^$p-s creds [0-9]+$" cat state/mounts/deadlines
	atf_check -o inline:"600\n" stat -c %a state/mounts/deadlines
	until=$(awk -v c=$p-s '$1 == c { print $3 }' state/mounts/deadlines)
	[ "$until" -le $(( $(date +%s) + 5 )) ] ||
	    atf_fail "deadline $until is not within 4 s"
	jb_cleanup
	# down until the deadline has passed
	while [ "$(date +%s)" -le "$until" ]; do sleep 0.2; done
	has_device $p-s optional-creds || atf_fail "detached while down?"
	jb_start
	jb_tools
	i=0
	while has_device $p-s optional-creds; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "not detached 5 s after the restart"
		sleep 0.1
	done
	atf_check -o match:"passed while the suite was down" cat jailbeed.log
	# the record goes once the device is gone, not at the same instant
	i=0
	while [ -s state/mounts/deadlines ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || break
		sleep 0.1
	done
	atf_check -o empty cat state/mounts/deadlines
}
restart_across_deadline_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case deadline_in_incus cleanup
deadline_in_incus_head() {
	atf_set descr "Incus holds an optional mount's deadline" \
	    "(user.jailbee.mount_until.KIND): a restart with jb-mountd's file" \
	    "removed still detaches it at its deadline; --no-revert takes the" \
	    "key away (issue 33 item 1)"
	atf_set require.user root
	atf_set timeout 300
}
deadline_in_incus_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" secret
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e ignore jbo repo new s
	atf_check -e ignore jbo repo mount creds s --for 12s
	until=$(awk -v c=$p-s '$1 == c { print $3 }' state/mounts/deadlines)
	atf_check -o inline:"$until\n" \
	    incus config get $p-s user.jailbee.mount_until.creds
	# the suite down, jb-mountd's file gone: Incus has the deadline
	jb_cleanup
	rm -f jailbeed.pid state/mounts/deadlines
	jb_start
	jb_tools
	i=0
	until grep -q "^$p-s creds $until\$" state/mounts/deadlines 2>/dev/null
	do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the deadline is not back from Incus"
		sleep 0.1
	done
	[ "$(date +%s)" -lt "$until" ] || atf_fail "the restart took past $until"
	has_device $p-s optional-creds || atf_fail "detached before its deadline"
	while [ "$(date +%s)" -le "$until" ]; do sleep 0.2; done
	i=0
	while has_device $p-s optional-creds; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "not detached 5 s after its deadline"
		sleep 0.1
	done
	# attached again with no deadline: Incus holds none
	atf_check -e ignore jbo repo mount creds s --for 1h
	atf_check -o match:"^[0-9]+$" \
	    incus config get $p-s user.jailbee.mount_until.creds
	atf_check -e ignore jbo repo mount creds s --no-revert
	atf_check -o inline:"\n" \
	    incus config get $p-s user.jailbee.mount_until.creds
}
deadline_in_incus_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case deadline_replaced cleanup
deadline_replaced_head() {
	atf_set descr "a mount with no deadline (--no-revert) over a timed one clears the" \
	    "deadline Incus holds (user.jailbee.mount_until.KIND) and" \
	    "jb-mountd's: past the old deadline it is still attached; a" \
	    "deadline reached takes the key away with the device, so a" \
	    "later mount with none is not detached by it (issue 33 item 1)"
	atf_set require.user root
	atf_set timeout 300
}
# no user.jailbee.mount_until.creds in Incus at all, and none in jb-mountd
no_deadline() {
	atf_check -o inline:"false\n" incus query "/1.0/instances/$1" \
	    --raw | jq '.metadata.config | has("user.jailbee.mount_until.creds")'
	atf_check -s exit:1 grep "^$1 creds " state/mounts/deadlines
}
deadline_replaced_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" secret
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e ignore jbo repo new s
	# a timed mount, then one with no deadline over it
	atf_check -e match:"attached creds" jbo repo mount creds s --for 3s
	until=$(incus config get $p-s user.jailbee.mount_until.creds)
	echo "$until" | grep -Eqx '[0-9]+' || atf_fail "no deadline in Incus"
	atf_check -e match:"already attached: moved the deadline of creds" \
	    -e match:"no deadline" jbo repo mount creds s --no-revert
	no_deadline $p-s
	while [ "$(date +%s)" -le $((until + 2)) ]; do sleep 0.2; done
	has_device $p-s optional-creds ||
	    atf_fail "detached at the deadline it no longer has"
	no_deadline $p-s
	atf_check -e match:"detached creds" jbo repo unmount creds s
	# a deadline reached: the key goes with the device
	atf_check -e match:"attached creds" jbo repo mount creds s --for 2s
	i=0
	while has_device $p-s optional-creds; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "not detached 10 s after its deadline"
		sleep 0.1
	done
	no_deadline $p-s
	# attached again with the default deadline (an hour): the passed
	# one of the earlier mount does not detach it
	atf_check -e match:"attached creds" jbo repo mount creds s
	until=$(incus config get $p-s user.jailbee.mount_until.creds)
	[ "$until" -gt $(($(date +%s) + 600)) ] ||
	    atf_fail "the deadline in Incus is not the default: $until"
	sleep 3
	has_device $p-s optional-creds ||
	    atf_fail "detached by the deadline of an earlier mount"
	atf_check -o inline:"$until\n" \
	    incus config get $p-s user.jailbee.mount_until.creds
	atf_check -e match:"detached creds" jbo repo unmount creds s
	no_deadline $p-s
}
deadline_replaced_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case expiry_race cleanup
expiry_race_head() {
	atf_set descr "ten optional mounts whose deadlines passed while the" \
	    "suite was down, and a port rm, all at once as it starts again:" \
	    "none of them comes back (device changes of one container are" \
	    "serialised and sent with its ETag)"
	atf_set require.user root
	atf_set timeout 300
}
expiry_race_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	{
		echo "optional_mounts:"
		for i in 0 1 2 3 4 5 6 7 8 9; do
			owned_dir "$w/c$i" "secret $i"
			printf '  c%s:\n    host: %s\n    container: %s\n' \
			    $i "$w/c$i" /home/dev/.c$i
		done
	} | config
	atf_check -e ignore jbo repo new r
	for i in 0 1 2 3 4 5 6 7 8 9; do
		atf_check -e ignore jbo repo mount c$i r --for 30s
	done
	atf_check -e match:"forward port-th-tcp-9000" \
	    jbo repo port to-host r 9000 --host-port auto
	n=$(incus config device list $p-r | grep -c '^optional-c[0-9]$')
	[ "$n" = 10 ] || atf_fail "$n of the ten optional mounts attached"
	last=$(awk '{ if ($3 > m) m = $3 } END { print m }' \
	    state/mounts/deadlines)
	jb_cleanup
	while [ "$(date +%s)" -le "$last" ]; do sleep 1; done
	has_device $p-r optional-c9 || atf_fail "detached while down?"
	jb_start
	jb_tools
	# the removals of the start and a port rm in flight together
	atf_check -e match:"forward port-th-tcp-9000 removed" \
	    jbo repo port rm 9000 r
	i=0
	while incus config device list $p-r | grep -q '^optional-'; do
		i=$((i + 1))
		[ $i -lt 100 ] || break
		sleep 0.1
	done
	# and they stay gone
	sleep 2
	incus config device list $p-r > devs || atf_fail "cannot list devices"
	grep -qx eth0 devs || atf_fail "no eth0 in $(cat devs)"
	atf_check -s exit:1 -o empty grep -E '^(optional-|port-th-tcp-9000)' devs
	atf_check -o empty cat state/mounts/deadlines
}
expiry_race_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case symlink_swap cleanup
symlink_swap_head() {
	atf_set descr "a source swapped for a symlink between the check and" \
	    "the attach does not redirect the mount: jb-incus refuses the" \
	    "link as it is asked to add it, so nothing reaches Incus and" \
	    "nothing is verified (M3)"
	atf_set require.user root
	atf_set timeout 300
}
symlink_swap_body() {
	# the test switch holds each attach 1 s before the device is added
	# and 1 s before it is verified, and logs when each hold starts
	JB_TEST_MOUNT_DELAY_MS=1000
	export JB_TEST_MOUNT_DELAY_MS
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" checked
	owned_dir "$w/secret" not-for-the-container
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e ignore jbo repo new x
	# swapped to a symlink and left so
	n=$(holds "adding the device")
	jbo repo mount creds x --for 1h > out1 2>&1 &
	bg=$!
	held $n "adding the device"
	mv "$w/creds" "$w/creds.real"
	ln -s "$w/secret" "$w/creds"
	wait $bg && atf_fail "the mount of a swapped path succeeded"
	cat out1 >&2
	# jb-incus walks the source it is given and finds the link
	atf_check -o match:"source $w/creds has a symbolic link at $w/creds: give its real path" \
	    cat out1
	has_device $p-x optional-creds && atf_fail "the swapped mount stayed"
	atf_check -s not-exit:0 -e ignore in_ctr $p-x cat /home/dev/.creds/file
	rm "$w/creds"
	mv "$w/creds.real" "$w/creds"
	# swapped to a symlink for the attach, to be swapped back before the
	# check: jb-incus walks the source as it is asked to add it and
	# refuses the link, so Incus never gets it and nothing is verified
	n=$(holds "adding the device")
	v=$(holds "verifying it")
	jbo repo mount creds x --for 1h > out2 2>&1 &
	bg=$!
	held $n "adding the device"
	mv "$w/creds" "$w/creds.real"
	ln -s "$w/secret" "$w/creds"
	wait $bg && atf_fail "the mount of a path swapped and back succeeded"
	rm "$w/creds"
	mv "$w/creds.real" "$w/creds"
	cat out2 >&2
	atf_check -o match:"source $w/creds has a symbolic link at $w/creds" \
	    cat out2
	[ "$(holds "verifying it")" -eq "$v" ] ||
	    atf_fail "a refused attach went on to be verified"
	has_device $p-x optional-creds && atf_fail "the swapped mount stayed"
	# untouched, it attaches
	atf_check -e match:"attached creds" jbo repo mount creds x --for 1h
	atf_check -o inline:"checked\n" in_ctr $p-x cat /home/dev/.creds/file
}
symlink_swap_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case overmount_verify cleanup
overmount_verify_head() {
	atf_set descr "root in the container stacks its own mount (a tmpfs," \
	    "a bind) over the mount point before the verification: the" \
	    "verification still judges the mount Incus made, not the" \
	    "container's (review-3 #19)"
	atf_set require.user root
	atf_set timeout 300
}
# in the background: as soon as the device's mount is in container $1 at
# $2, root there stacks "mount $3..." over it, before the verification
overmount() {
	c=$1 mp=$2
	shift 2
	i=0
	until incus exec "$c" -- awk -v m="$mp" '$5 == m { f = 1 } END { exit !f }' \
	    /proc/self/mountinfo 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "no mount at $mp" > overmount.err; return 1; }
		sleep 0.05
	done
	incus exec "$c" -- mount "$@" "$mp" 2> overmount.err
}
overmount_verify_body() {
	# test builds hold each attach 2 s before the device is added and
	# 2 s before it is verified
	JB_TEST_MOUNT_DELAY_MS=2000
	export JB_TEST_MOUNT_DELAY_MS
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/creds" checked
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e ignore jbo repo new x
	for how in "-t tmpfs none" "--bind /etc"; do
		jbo repo mount creds x --for 1h > out 2>&1 &
		bg=$!
		# shellcheck disable=SC2086
		overmount $p-x /home/dev/.creds $how ||
		    atf_fail "mount $how over the mount point: $(cat overmount.err)"
		wait $bg || { cat out >&2; atf_fail "with mount $how stacked over it, the verified mount was refused (its output above)"; }
		atf_check -o match:"attached creds" cat out
		has_device $p-x optional-creds || atf_fail "the device is gone"
		# the container's mount is on top; beneath it, the checked one
		atf_check -s not-exit:0 -e match:"No such file" \
		    incus exec $p-x -- cat /home/dev/.creds/file
		atf_check incus exec $p-x -- umount /home/dev/.creds
		atf_check -o inline:"checked\n" in_ctr $p-x cat /home/dev/.creds/file
		atf_check -e ignore jbo repo unmount creds x
	done
}
overmount_verify_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case suite_files cleanup
suite_files_head() {
	atf_set descr "a mount source that is, contains or lies inside the" \
	    "suite's own files (~/.config/jailbee, authorized_keys, the" \
	    "control socket's directory) is refused on its real path," \
	    "naming the entry and the file (review-3 #16)"
	atf_set require.user root
	atf_set timeout 300
}
suite_files_body() {
	jb_owner_home
	setup
	w=$(pwd)
	h=$w/ownerhome
	p=$(jb_prefix)
	mkdir -p "$h/.config/jailbee" "$h/dots"
	echo "ssh-ed25519 AAAA owner" > "$h/.config/jailbee/authorized_keys"
	chown -R $JB_OWNER "$h/.config" "$h/dots"
	chmod -R go+rX "$h"
	# ~/.config holds ~/.config/jailbee: the container is not made
	config <<EOC
host_mounts:
  - host: ~/.config
    container: /home/dev/.config
EOC
	jbo repo new a > out 2>&1 && { cat out >&2; atf_fail "a container with ~/.config mounted was made (its output above)"; }
	cat out >&2
	atf_check -o match:"host path ~/.config \(host_mounts\[0\]\) is refused: it contains $h/.config/jailbee, the suite's configuration directory" \
	    -o match:"$p-a was deleted" -o not-match:"attaching $h/.config" \
	    cat out
	atf_check -o empty incus list -c n --format csv "^$p-"
	# the file itself, as an optional mount, on a running container
	config <<EOC
optional_mounts:
  keys:
    host: ~/.config/jailbee/authorized_keys
    container: /home/dev/keys
  sock:
    host: $(cat rundir)
    container: /home/dev/sock
  dots:
    host: ~/dots
    container: /home/dev/dots
EOC
	atf_check -e ignore jbo repo new b
	atf_check -s not-exit:0 \
	    -e match:"host path ~/.config/jailbee/authorized_keys \(optional_mounts.keys\) is refused: it is $h/.config/jailbee/authorized_keys, the authorized_keys file" \
	    jbo repo mount keys b
	atf_check -s not-exit:0 \
	    -e match:"host path $(cat rundir) \(optional_mounts.sock\) is refused: it is $(cat rundir), the directory of the suite's control socket" \
	    jbo repo mount sock b
	# ~/.config moved into ~/dots behind a symlink: the real place counts
	mv "$h/.config" "$h/dots/config"
	ln -s dots/config "$h/.config"
	chown -h $JB_OWNER "$h/.config"
	atf_check -s not-exit:0 \
	    -e match:"host path ~/dots \(optional_mounts.dots\) is refused: it contains $h/dots/config/jailbee, the suite's configuration directory" \
	    jbo repo mount dots b
	has_device $p-b optional-keys && atf_fail "authorized_keys was mounted"
	has_device $p-b optional-sock && atf_fail "the socket's directory was mounted"
	has_device $p-b optional-dots && atf_fail "~/dots was mounted"
	# a directory holding none of them is mounted as before
	rm "$h/.config"
	mv "$h/dots/config" "$h/.config"
	echo fine > "$h/dots/file"
	chown $JB_OWNER "$h/dots/file"
	atf_check -e match:"attached dots" jbo repo mount dots b
	atf_check -o inline:"fine\n" in_ctr $p-b cat /home/dev/dots/file
}
suite_files_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	jb_owner_home_restore
}

atf_test_case checkout_overlap cleanup
checkout_overlap_head() {
	atf_set descr "new's checkout device passes the overlap rule like" \
	    "every other disk: a checkout inside another container's" \
	    "read-write mount is refused at new, naming both (review-3 N5)"
	atf_set require.user root
	atf_set timeout 300
}
checkout_overlap_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/work" work
	config <<EOC
host_mounts:
  - host: $w/work
    container: /work
EOC
	atf_check -e match:"ready: $p-a" jbo repo new a
	# a second repo whose checkout lies inside a-'s read-write mount
	b=$w/work/b
	mkdir -p "$b/.jailbee"
	git -C "$b" init -q -b main
	git -C "$b" -c user.email=t@example.org -c user.name=test \
	    commit -q --allow-empty -m one
	printf 'container_prefix: %sb\nbase:\n  alias: %s\n' "$p" \
	    "$JB_IMAGE" > "$b/.jailbee/config.yaml"
	chown -R $JB_OWNER "$b"
	atf_check -s exit:1 \
	    -e match:"the checkout $b \(host-source\) is refused: it is inside $w/work, the source of host-0 on $p-a \(read-write\)" \
	    -e not-match:"creating ${p}b-feat" jbo "$b" new feat
	atf_check -o empty incus list -c n --format csv "^${p}b-"
	# with a- gone, nothing overlaps: the checkout is checked, mounted
	# and verified, and the clone made from it
	atf_check -o ignore -e ignore jbo repo destroy a
	atf_check -e match:"ready: ${p}b-feat" jbo "$b" new feat
	atf_check -o inline:"$b\n" \
	    incus config device get ${p}b-feat host-source source
	atf_check -o inline:"one\n" in_ctr ${p}b-feat \
	    git -C /home/dev/${p}b log -1 --format=%s
}
checkout_overlap_cleanup() {
	p=$(cat prefix 2>/dev/null) && [ -n "$p" ] &&
	    for c in $(incus list -c n --format csv "^${p}b-" 2>/dev/null); do
		incus delete --force "$c" > /dev/null 2>&1
	    done
	jb_containers_cleanup
	jb_cleanup
}

# the reproduction of a planted symlink.  $w/private stands for the
# owner's home: any directory the owner can read and no container
# should see.
atf_test_case planted_symlink cleanup
planted_symlink_head() {
	atf_set descr "a read-only mount inside a read-write one is refused" \
	    "(else a container plants a symlink through the read-write" \
	    "mount and the next container gets what it points to), and a" \
	    "source with a symlink in any part is refused naming the link," \
	    "never followed (M3)"
	atf_set require.user root
	atf_set timeout 300
}
planted_symlink_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/work" work
	owned_dir "$w/work/cache" cached
	owned_dir "$w/private" not-for-containers
	config <<EOC
host_mounts:
  - host: $w/work
    container: /work
  - host: $w/work/cache
    container: /cache
    readonly: true
EOC
	if jbo repo new a > out 2>&1; then
		cat out >&2
		# as it went before: plant the link, the next one follows it
		in_ctr $p-a sh -c "rm -rf /work/cache && ln -s $w/private /work/cache"
		jbo repo new b >&2 2>&1
		if in_ctr $p-b cat /cache/file 2>/dev/null |
		    grep -q not-for-containers; then
			atf_fail "the next container got $w/private at" \
			    "/cache, through a symlink planted in /work"
		fi
		atf_fail "a read-only mount inside a read-write one was attached"
	fi
	cat out >&2
	atf_check -o match:"host path $w/work/cache \\(host_mounts\\[1\\]\\) is refused: it is inside $w/work, the source of host-0 on $p-a \\(read-write\\)" \
	    -o match:"$p-a was deleted" -o not-match:"attaching $w/work/cache" \
	    cat out
	atf_check -o empty incus list -c n --format csv "^$p-"

	# the link itself, planted (here by the owner, as a container of
	# another repo with $w/work read-write would have): named, refused
	rm -rf "$w/work/cache"
	ln -s "$w/private" "$w/work/cache"
	chown -h $JB_OWNER "$w/work/cache"
	config <<EOC
host_mounts:
  - host: $w/work/cache
    container: /cache
    readonly: true
EOC
	atf_check -s exit:1 -e match:"host path $w/work/cache \\(host_mounts\\[0\\]\\): $w/work/cache is a symlink \\(to $w/private\\): refused" \
	    -e not-match:"attaching $w/private" jbo repo new c
	# a link in any part of the path, not only the last
	ln -s "$w/work" "$w/lnk"
	config <<EOC
host_mounts:
  - host: $w/lnk/file
    container: /file
    readonly: true
EOC
	atf_check -s exit:1 -e match:"host path $w/lnk/file \\(host_mounts\\[0\\]\\): $w/lnk is a symlink \\(to $w/work\\): refused" \
	    jbo repo new d
	atf_check -o empty incus list -c n --format csv "^$p-"
}
planted_symlink_cleanup() { jb_containers_cleanup; jb_cleanup; }

# a second repo of the owner's, beside the first, prefix ${p}x
second_repo() {
	rm -rf repo2
	cp -a repo repo2
	printf 'container_prefix: %sx\nbase:\n  alias: %s\n' \
	    "$(jb_prefix)" "$JB_IMAGE" > repo2/.jailbee/config.yaml
	cat >> repo2/.jailbee/config.yaml
	chown -R $JB_OWNER repo2
}

atf_test_case start_recheck cleanup
start_recheck_head() {
	atf_set descr "a source turned into a symlink while its container" \
	    "was stopped refuses start and restart, naming the mount and" \
	    "the link; another repo's read-write mount containing an" \
	    "attached mount is refused (M3)"
	atf_set require.user root
	atf_set timeout 300
}
start_recheck_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/work" work
	owned_dir "$w/work/cache" cached
	owned_dir "$w/private" not-for-containers
	config <<EOC
host_mounts:
  - host: $w/work/cache
    container: /cache
    readonly: true
EOC
	atf_check -e match:"attaching $w/work/cache at /cache" jbo repo new s
	# any repo: a read-write mount around an attached one is refused
	second_repo <<EOC
host_mounts:
  - host: $w/work
    container: /work
EOC
	atf_check -s exit:1 -e match:"host path $w/work \\(host_mounts\\[0\\]\\) is refused: it contains $w/work/cache, the source of host-0 on $p-s \\(read-only; this one is read-write\\)" \
	    jbo repo2 new o
	atf_check -o empty incus list -c n --format csv "^${p}x-"

	# swapped for a symlink while stopped: start refused, naming it
	atf_check -e ignore jbo repo stop --force s
	mv "$w/work/cache" "$w/cache.real"
	ln -s "$w/private" "$w/work/cache"
	atf_check -s exit:1 -e match:"$p-s is not started: mount host-0 at /cache: host path $w/work/cache \\(host-0\\): $w/work/cache is a symlink \\(to $w/private\\): refused" \
	    jbo repo start s
	atf_check -o inline:"STOPPED\n" incus list -c s --format csv "^$p-s\$"
	# restored, it starts; swapped while running, restart is refused
	rm "$w/work/cache"
	mv "$w/cache.real" "$w/work/cache"
	atf_check -e ignore jbo repo start s
	atf_check -o inline:"cached\n" in_ctr $p-s cat /cache/file
	mv "$w/work/cache" "$w/cache.real"
	ln -s "$w/private" "$w/work/cache"
	atf_check -s exit:1 -e match:"$p-s is not started: mount host-0 at /cache: .*$w/work/cache is a symlink" \
	    jbo repo restart s
	atf_check -o inline:"cached\n" in_ctr $p-s cat /cache/file
}
start_recheck_cleanup() {
	jb_containers_cleanup
	for c in $(incus list -c n --format csv "^$(cat prefix)x-" 2>/dev/null); do
		incus delete --force "$c" > /dev/null 2>&1
	done
	jb_cleanup
}

atf_test_case github_env_token_mode cleanup
github_env_token_mode_head() {
	atf_set descr "with github.enabled, github.token from the" \
	    "host-local file is a secret: GH_TOKEN in a login shell holds a" \
	    "placeholder, and no /etc/profile.d/jailbee-github.sh is written;" \
	    "container.env is the container's environment; a token file" \
	    "open to group/other loads with a warning naming the chmod (M4," \
	    "K3, K5)"
	atf_set require.user root
	atf_set timeout 300
}
github_env_token_mode_body() {
	setup
	p=$(jb_prefix)
	mkdir -p xdg/jailbee/repos
	f=$(pwd)/xdg/jailbee/repos/$p.yaml
	printf 'github:\n  enabled: true\n  token: ghp_Test_123\n' > "$f"
	chown -R $JB_OWNER xdg
	chmod 0700 xdg/jailbee xdg/jailbee/repos
	chmod 0644 "$f"
	config <<EOC
container:
  env:
    FOO: bar-baz
EOC
	XDG_CONFIG_HOME=$(pwd)/xdg
	export XDG_CONFIG_HOME
	atf_check -e match:"warning: $f is open to group/other \\(mode 0644\\).*run chmod 600 $f" \
	    -e match:"secrets.GH_TOKEN: put in by the egress gateway for api.github.com" \
	    -e match:"ready: $p-g" jbo repo new g
	atf_check -o match:'^jbsecret-[0-9a-f]{32}$' in_ctr $p-g bash -lc 'echo $GH_TOKEN'
	atf_check -s exit:1 incus exec $p-g -- test -e /etc/profile.d/jailbee-github.sh
	atf_check -o inline:"bar-baz\n" -e match:"warning: $f" \
	    jbo repo exec g -- sh -c 'echo $FOO'
	# the token never shows in the container's config nor its files
	incus config show $p-g | grep -q ghp_Test && atf_fail "token in the config"
	incus exec $p-g -- grep -rqsF --exclude-dir=proc --exclude-dir=sys \
	    --exclude-dir=dev ghp_Test_123 / && atf_fail "token in a file"
	chmod 0600 "$f"
	atf_check -o ignore -e not-match:"warning" jbo repo ls
}
github_env_token_mode_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case gpg_mounts cleanup
gpg_mounts_head() {
	atf_set descr "gpg.enabled: the owner's ~/.gnupg read-only and the" \
	    "agent's socket directory read-only at the same path, sockets" \
	    "in it; SSH_AUTH_SOCK set (M4)"
	atf_set require.user root
	atf_set timeout 300
}
gpg_mounts_body() {
	setup
	p=$(jb_prefix)
	u=$(id -u $JB_OWNER)
	home=$(getent passwd $JB_OWNER | cut -d: -f6)
	[ ! -e "$home" ] ||
	    atf_fail "$home exists: the case makes the test owner's home and removes it, so it needs none there (remove $home)"
	[ ! -e /run/user/$u ] ||
	    atf_fail "/run/user/$u exists: the case makes it and removes it, so it needs none there (remove /run/user/$u)"
	echo "$home" > made-home
	mkdir -p "$home/.gnupg" /run/user/$u/gnupg
	echo keyring > "$home/.gnupg/pubring.kbx"
	chown -R $JB_OWNER "$home" /run/user/$u
	chmod 0700 "$home/.gnupg" /run/user/$u /run/user/$u/gnupg
	setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \
	    /usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen()
time.sleep(120)' /run/user/$u/gnupg/S.gpg-agent &
	echo $! > agent.pid
	i=0
	while [ ! -S /run/user/$u/gnupg/S.gpg-agent ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	config <<EOC
gpg:
  enabled: true
EOC
	atf_check -e match:"attaching $home/.gnupg at /home/dev/.gnupg \\(read-only\\)" \
	    -e match:"attaching /run/user/$u/gnupg at /run/user/$u/gnupg \\(read-only\\)" \
	    -e match:"ready: $p-k" jbo repo new k
	atf_check -o inline:"keyring\n" in_ctr $p-k cat /home/dev/.gnupg/pubring.kbx
	atf_check -s not-exit:0 -e match:"Read-only file system" \
	    in_ctr $p-k touch /home/dev/.gnupg/x
	atf_check in_ctr $p-k test -S /run/user/$u/gnupg/S.gpg-agent
	atf_check -s not-exit:0 -e match:"Read-only file system" \
	    in_ctr $p-k rm /run/user/$u/gnupg/S.gpg-agent
	atf_check -o inline:"/run/user/$u/gnupg/S.gpg-agent.ssh\n" \
	    jbo repo exec k -- sh -c 'echo $SSH_AUTH_SOCK'
	atf_check -o match:"^gpg-agent +ro " -o match:"^gpg-home +ro " \
	    jbo repo mount ls k
}
gpg_mounts_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	[ -f agent.pid ] && kill "$(cat agent.pid)" 2>/dev/null
	if [ -f made-home ]; then
		rm -rf "$(cat made-home)" /run/user/$(id -u $JB_OWNER)
	fi
	return 0
}

atf_test_case ssh_shared cleanup
ssh_shared_head() {
	atf_set descr "ssh.enabled: the owner's ~/.ssh config, known_hosts" \
	    "and config.d/ seeded into the repo's shared ~/.ssh (0700)," \
	    "nothing else of ~/.ssh (no private key); read-write, shared" \
	    "by the repo's containers, seeded only while empty (M4)"
	atf_set require.user root
	atf_set timeout 300
}
ssh_shared_body() {
	setup
	p=$(jb_prefix)
	home=$(getent passwd $JB_OWNER | cut -d: -f6)
	[ ! -e "$home" ] ||
	    atf_fail "$home exists: the case makes the test owner's home and removes it, so it needs none there (remove $home)"
	echo "$home" > made-home
	mkdir -p "$home/.ssh/config.d/sub" other
	echo "Host gh" > "$home/.ssh/config"
	echo "gh ssh-ed25519 AAAA" > "$home/.ssh/known_hosts"
	echo "Host a" > "$home/.ssh/config.d/a.conf"
	echo "Host b" > other/b.conf
	# config.d is copied following symlinks, as the seed says
	ln -s "$(pwd)/other/b.conf" "$home/.ssh/config.d/sub/b.conf"
	echo "PRIVATE" > "$home/.ssh/id_ed25519"
	echo "ssh-ed25519 AAAA pub" > "$home/.ssh/id_ed25519.pub"
	echo "ssh-ed25519 AAAA x" > "$home/.ssh/authorized_keys"
	chown -R $JB_OWNER "$home" other
	chmod 0700 "$home" "$home/.ssh"
	chmod 0600 "$home/.ssh/id_ed25519" "$home/.ssh/config"
	config <<EOC
ssh:
  enabled: true
EOC
	d=$(pwd)/state/mounts/ssh/$p
	atf_check -e match:"ssh.enabled: 4 file\\(s\\) of ~/.ssh seeded" \
	    -e match:"attaching $d at /home/dev/.ssh\$" \
	    -e match:"ready: $p-s" jbo repo new s
	atf_check -o inline:"700 $JB_OWNER\n" stat -c '%a %U' "$d"
	atf_check -o inline:".
./config
./config.d
./config.d/a.conf
./config.d/sub
./config.d/sub/b.conf
./known_hosts
" in_ctr $p-s sh -c 'cd /home/dev/.ssh && find . | sort'
	atf_check -o inline:"700 dev
600 dev
644 dev
700 dev
600 dev
600 dev
" in_ctr $p-s stat -c '%a %U' /home/dev/.ssh /home/dev/.ssh/config \
	    /home/dev/.ssh/known_hosts /home/dev/.ssh/config.d \
	    /home/dev/.ssh/config.d/a.conf /home/dev/.ssh/config.d/sub/b.conf
	atf_check -o inline:"Host gh\n" in_ctr $p-s cat /home/dev/.ssh/config
	atf_check -o inline:"Host b\n" \
	    in_ctr $p-s cat /home/dev/.ssh/config.d/sub/b.conf
	atf_check -s not-exit:0 -e ignore \
	    in_ctr $p-s test -e /home/dev/.ssh/id_ed25519
	grep -rq PRIVATE "$d" && atf_fail "the private key was copied"
	# read-write, and shared with the repo's next container
	atf_check in_ctr $p-s sh -c \
	    'echo "new ssh-ed25519 BBBB" >> /home/dev/.ssh/known_hosts'
	echo "Host changed" > "$home/.ssh/config"
	atf_check -e not-match:"seeded" -e match:"ready: $p-t" jbo repo new t
	atf_check -o match:"^new ssh-ed25519 BBBB" \
	    in_ctr $p-t cat /home/dev/.ssh/known_hosts
	atf_check -o inline:"Host gh\n" in_ctr $p-t cat /home/dev/.ssh/config
	atf_check -o match:"^ssh-shared +rw " jbo repo mount ls t
	# the host's ~/.ssh is untouched
	atf_check -o inline:"gh ssh-ed25519 AAAA\n" cat "$home/.ssh/known_hosts"
}
ssh_shared_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	[ -f made-home ] && rm -rf "$(cat made-home)"
	return 0
}

atf_test_case restore_expired cleanup
restore_expired_head() {
	atf_set descr "snapshot restore brings back the disk, not the devices:" \
	    "a mount whose deadline passed after the snapshot and a forward" \
	    "removed since stay gone (mount ls agrees); the restored" \
	    "container is started through the same check as start"
	atf_set require.user root
	atf_set timeout 300
}
restore_expired_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	owned_dir "$w/work" work
	owned_dir "$w/work/cache" cached
	owned_dir "$w/private" not-for-containers
	owned_dir "$w/creds" secret
	config <<EOC
host_mounts:
  - host: $w/work/cache
    container: /cache
    readonly: true
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
EOC
	atf_check -e ignore jbo repo new r
	atf_check in_ctr $p-r touch /home/dev/before
	atf_check -e match:"attached creds" jbo repo mount creds r --for 4s
	atf_check -e match:"forward port-th-tcp-9000" \
	    jbo repo port to-host r 9000 --host-port auto
	atf_check -o inline:"secret\n" in_ctr $p-r cat /home/dev/.creds/file
	atf_check -e ignore jbo repo snapshot create r withcred
	atf_check in_ctr $p-r rm /home/dev/before
	atf_check -e ignore jbo repo port rm 9000 r
	i=0
	while has_device $p-r optional-creds; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "not detached 10 s after a 4 s mount"
		sleep 0.1
	done
	atf_check -o match:"^no mounts|^host-0" jbo repo mount ls r
	# the restore: the disk is the snapshot's, the devices are not
	atf_check -e save:restore.err jbo repo snapshot restore r withcred
	atf_check -o inline:"RUNNING\n" incus list -c s --format csv "^$p-r\$"
	atf_check in_ctr $p-r test -e /home/dev/before
	has_device $p-r optional-creds && atf_fail "optional-creds came back"
	has_device $p-r port-th-tcp-9000 && atf_fail "the forward came back"
	atf_check -o match:"removing device optional-creds, which the snapshot held" \
	    -o match:"removing device port-th-tcp-9000" \
	    -o match:"$p-r restored to withcred; starting it" cat restore.err
	has_device $p-r host-0 || atf_fail "host-0 is gone"
	atf_check -s not-exit:0 -e ignore in_ctr $p-r cat /home/dev/.creds/file
	atf_check -o not-match:"creds" jbo repo mount ls r
	atf_check -o inline:"cached\n" in_ctr $p-r cat /cache/file
	# a source swapped for a symlink: the restored container stays down
	mv "$w/work/cache" "$w/cache.real"
	ln -s "$w/private" "$w/work/cache"
	atf_check -s exit:1 -e match:"$p-r is not started: mount host-0 at /cache: .*$w/work/cache is a symlink" \
	    jbo repo snapshot restore r withcred
	atf_check -o inline:"STOPPED\n" incus list -c s --format csv "^$p-r\$"
}
restore_expired_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case ssh_shared
	atf_add_test_case expiry_race
	atf_add_test_case gpg_mounts
	atf_add_test_case github_env_token_mode
	atf_add_test_case host_mounts_ro_rw
	atf_add_test_case host_mount_errors
	atf_add_test_case optional_deadline
	atf_add_test_case remount_norevert_unmount
	atf_add_test_case restart_across_deadline
	atf_add_test_case deadline_in_incus
	atf_add_test_case deadline_replaced
	atf_add_test_case symlink_swap
	atf_add_test_case overmount_verify
	atf_add_test_case suite_files
	atf_add_test_case checkout_overlap
	atf_add_test_case planted_symlink
	atf_add_test_case start_recheck
	atf_add_test_case restore_expired
}
