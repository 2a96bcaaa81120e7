#! /usr/bin/env atf-sh
#
# Resource limits (issue 27 item 1): defaults.memory, cpu, processes and
# disk become the container's Incus limits at new and at apply, and the
# kernel enforces them inside; new --memory and --cpu override them; jbctl
# info reads back what Incus holds; a bad value names its key and file.

. "$(atf_get_srcdir)/lib.sh"

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	# ctr_cg C V2FILE V1CONTROLLER V1FILE: the kernel's value of a limit
	# of container C, from its cgroup on the host (unified, or v1)
	cat > bin/ctr_cg <<'EOS'
#!/bin/sh
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	exec cat "/sys/fs/cgroup/lxc.payload.$1/$2"
fi
exec cat "/sys/fs/cgroup/$3/lxc.payload.$1/$4"
EOS
	chmod 0755 bin/ctr_cg
}

POOL_DIR=/var/lib/incus/storage-pools/default

# the driver of Incus's pool default
pool_driver() {
	incus storage show default | awk '/^driver:/ { print $2 }'
}

# the sysfs directory of the quotas of the btrfs that holds directory $1
pool_qdir() {
	uuid=$(findmnt -no UUID -T "$1") || atf_fail "$1 is not mounted"
	echo "/sys/fs/btrfs/$uuid/qgroups"
}

# the kernel's word on the btrfs quota accounting of the pool at $1: 1
# inconsistent, 0 not
pool_flag() {
	cat "$(pool_qdir "$1")/inconsistent" ||
	    atf_fail "no quota state in sysfs for $1"
}

# the quota mode of the pool at $1: squota, qgroup (full accounting) or
# disabled
pool_mode() {
	q=$(pool_qdir "$1")
	if [ -r "$q/mode" ]; then
		cat "$q/mode"
	elif [ -d "$q" ]; then
		echo qgroup
	else
		echo disabled
	fi
}

# a btrfs pool of the test's own with full qgroup accounting, as a host's
# own pool can have it: its name; the kernel can make that accounting
# inconsistent, where simple quotas (pool default's) never are.  Incus
# unpacks the base image into it at the first new.
full_pool() {
	fp=jbt$$qg
	echo "$fp" > pool
	atf_check -o ignore incus storage create "$fp" btrfs size=3GiB
	atf_check btrfs quota enable "/var/lib/incus/storage-pools/$fp"
	[ "$(pool_mode "/var/lib/incus/storage-pools/$fp")" = qgroup ] ||
	    atf_fail "pool $fp has no full qgroup accounting"
}

full_pool_cleanup() {
	[ -f pool ] && incus storage delete "$(cat pool)" > /dev/null 2>&1
	return 0
}

# make the accounting of the pool at $1 inconsistent as the kernel does
# when a snapshot's source belongs to a higher-level qgroup the snapshot
# does not join ("qgroup inherit needs a rescan"): from then on it counts
# no write on the whole filesystem, so no size holds, until a rescan.
# The scratch subvolumes and the parent go again at once; the mark stays.
pool_inconsistent() {
	s=$1/.jbt-qgroup-$$
	btrfs subvolume create "$s" > /dev/null ||
	    atf_fail "cannot make a subvolume in $1"
	id=$(btrfs subvolume show "$s" | awk '/Subvolume ID:/ { print $3 }')
	q=1/$(( $$ % 30000 + 20000 ))
	btrfs qgroup create "$q" "$1"
	btrfs qgroup assign --no-rescan "0/$id" "$q" "$1" 2>/dev/null
	btrfs subvolume snapshot "$s" "$s.snap" > /dev/null
	btrfs qgroup remove --no-rescan "0/$id" "$q" "$1" 2>/dev/null
	btrfs qgroup destroy "$q" "$1"
	btrfs subvolume delete "$s" "$s.snap" > /dev/null
	[ "$(pool_flag "$1")" = 1 ] ||
	    atf_fail "the accounting of $1 is still consistent"
}

# the repo config with these defaults: lines
limits_conf() {
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$(jb_prefix)" "$JB_IMAGE"
		printf 'defaults:\n'
		for l in "$@"; do printf '  %s\n' "$l"; done
	} > repo/.jailbee/config.yaml
}

atf_test_case new_and_apply cleanup
new_and_apply_head() {
	atf_set descr "new puts the built-in limits on a container (25% of" \
	    "the memory, half the CPUs, 4096 tasks, a 20GiB root), apply" \
	    "the config's, in force inside (cgroup, quota); new --memory" \
	    "and --cpu override the config; info reads them from Incus; a" \
	    "bad value is refused naming the key and the file"
	atf_set require.user root
	atf_set timeout 300
}
new_and_apply_body() {
	btrfs=0
	if [ "$(pool_driver)" = btrfs ]; then
		btrfs=1
		# what regress/incus-up leaves on a kernel that has them
		if [ -e /sys/fs/btrfs/features/simple_quota ]; then
			m=$(pool_mode "$POOL_DIR")
			[ "$m" = squota ] || atf_fail "pool default's btrfs" \
			    "quotas are $m, not simple quotas (squota)"
		fi
	fi
	setup
	p=$(jb_prefix)
	c=$p-lim
	half=$(( $(nproc) / 2 ))
	[ $half -ge 1 ] || half=1

	# a bad value: its file, line and key; nothing is made
	limits_conf "memory: lots"
	atf_check -s exit:1 \
	    -e match:"repo/.jailbee/config.yaml:5: defaults.memory: not a memory size" \
	    jbo repo new lim
	limits_conf "disk: 20"
	atf_check -s exit:1 \
	    -e match:"repo/.jailbee/config.yaml:5: defaults.disk: not a disk size" \
	    jbo repo new lim
	limits_conf "cpu: 0"
	atf_check -s exit:1 \
	    -e match:"repo/.jailbee/config.yaml:5: defaults.cpu: not a CPU count" \
	    jbo repo new lim
	atf_check -o empty incus list -c n --format csv "^$c\$"

	# the built-in defaults, none written
	limits_conf
	atf_check -e match:"$c: limits: memory 25%, cpu $half, processes 4096, disk 20GiB" \
	    -e match:"ready: $c" jbo repo new lim
	atf_check -o inline:"25%\n" incus config get $c limits.memory
	atf_check -o inline:"$half\n" incus config get $c limits.cpu
	atf_check -o inline:"4096\n" incus config get $c limits.processes
	atf_check -o inline:"20GiB\n" incus config device get $c root size
	atf_check -o inline:"4096\n" ctr_cg $c pids.max pids pids.max
	atf_check -o inline:"$half\n" in_ctr $c nproc
	atf_check -o match:"^limits.memory: 25%$" \
	    -o match:"^limits.cpu: $half$" \
	    -o match:"^limits.processes: 4096$" \
	    -o match:"^root disk size: 20GiB \(pool default\)$" \
	    -o match:"^state: Running$" jbo repo info lim
	# ls is not the place for them
	atf_check -o not-match:"25%|4096|20GiB" jbo repo ls

	# apply: the config's limits on the running container, in force
	limits_conf "memory: 600MiB" "cpu: 1" "processes: 300" "disk: 1GiB"
	atf_check -o match:'memory: "600MiB"' -o match:'processes: 300' \
	    -o match:'disk: "1GiB"' -o match:'cpu: 1' jbo repo config show
	atf_check -e match:"$c: limits: memory 600MiB, cpu 1, processes 300, disk 1GiB" \
	    jbo repo apply lim
	atf_check -o inline:"$((600 * 1024 * 1024))\n" \
	    ctr_cg $c memory.max memory memory.limit_in_bytes
	atf_check -o inline:"300\n" ctr_cg $c pids.max pids pids.max
	atf_check -o inline:"1\n" in_ctr $c nproc
	atf_check -o match:"^limits.memory: 600MiB$" \
	    -o match:"^limits.cpu: 1$" -o match:"^limits.processes: 300$" \
	    -o match:"^root disk size: 1GiB \(pool default\)$" \
	    jbo repo info lim
	# the root disk holds no more than its size.  On btrfs the size is a
	# qgroup limit on the container's subvolume, read from the kernel
	if [ $btrfs = 1 ]; then
		id=$(btrfs subvolume show "$POOL_DIR/containers/$c" |
		    awk '/Subvolume ID:/ { print $3 }')
		atf_check -o inline:"1073741824\n" -x \
		    "btrfs qgroup show -re --raw $POOL_DIR 2>/dev/null | awk '\$1 == \"0/$id\" { print \$4 }'"
	fi
	atf_check -s not-exit:0 -e match:"quota exceeded|No space left" \
	    in_ctr $c dd if=/dev/zero of=/home/dev/fill bs=1M count=1200 \
	    conv=fsync status=none
	if [ $btrfs = 1 ]; then
		atf_check -o match:"^root disk limit: enforced: btrfs qgroup limit" \
		    jbo repo info lim
	fi
	in_ctr $c rm -f /home/dev/fill

	# new --memory, --cpu win over the config; a bad one is refused
	atf_check -e match:"$p-opt: limits: memory 512MiB, cpu 2, processes 300, disk 1GiB" \
	    jbo repo new --memory 512MiB --cpu 2 opt
	atf_check -o inline:"512MiB\n" incus config get $p-opt limits.memory
	atf_check -o inline:"2\n" incus config get $p-opt limits.cpu
	atf_check -s exit:1 -e match:"--memory lots: not a memory size" \
	    jbo repo new --memory lots bad
	atf_check -s exit:1 -e match:"--cpu 0: not a CPU count" \
	    jbo repo new --cpu 0 bad
	atf_check -o empty incus list -c n --format csv "^$p-bad\$"

	# apply with a bad value changes nothing and says where
	limits_conf "memory: 16"
	atf_check -s exit:1 \
	    -e match:"config.yaml:5: defaults.memory: not a memory size" \
	    jbo repo apply lim
	atf_check -o inline:"600MiB\n" incus config get $c limits.memory
}
new_and_apply_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case rescan_at_start cleanup
rescan_at_start_head() {
	atf_set descr "a pool with full qgroup accounting that is" \
	    "inconsistent when jailbeed starts (quotas just on, a deep" \
	    "subtree dropped) is rescanned then, so that a root disk's size" \
	    "on it holds"
	atf_set require.user root
	atf_set timeout 300
}
rescan_at_start_body() {
	[ "$(pool_driver)" = btrfs ] || atf_skip "pool default is not btrfs"
	full_pool
	qdir=/var/lib/incus/storage-pools/$(cat pool)
	pool_inconsistent "$qdir"
	setup
	c=$(jb_prefix)-lim
	limits_conf "disk: 1GiB" "storage_pool: $(cat pool)"
	atf_check -e match:"ready: $c" jbo repo new lim
	[ "$(pool_flag "$qdir")" = 0 ] || atf_fail "the accounting of" \
	    "$qdir is still inconsistent after jailbeed started"
	grep -q "$qdir: rescanned: btrfs qgroup limit, quota accounting of $qdir consistent" \
	    jailbeed.log || atf_fail "jailbeed did not say it rescanned: $(tail -5 jailbeed.log)"
	atf_check -o match:"^root disk limit: enforced: btrfs qgroup limit" \
	    -o match:"^root disk size: 1GiB \(pool $(cat pool)\)$" \
	    jbo repo info lim
	atf_check -s not-exit:0 -e match:"quota exceeded|No space left" \
	    in_ctr $c dd if=/dev/zero of=/home/dev/fill bs=1M count=1200 \
	    conv=fsync status=none
}
rescan_at_start_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	full_pool_cleanup
}

atf_test_case disk_not_held cleanup
disk_not_held_head() {
	atf_set descr "while the btrfs quota accounting of the pool is" \
	    "inconsistent no disk size holds: new refuses a container with" \
	    "one and leaves nothing, apply fails saying so, info says NOT" \
	    "enforced, doctor FAILs, each naming the fix"
	atf_set require.user root
	atf_set timeout 120
}
disk_not_held_body() {
	[ "$(pool_driver)" = btrfs ] || atf_skip "pool default is not btrfs"
	full_pool
	fp=$(cat pool)
	qdir=/var/lib/incus/storage-pools/$fp
	setup
	c=$(jb_prefix)-held
	limits_conf "disk: 1GiB" "storage_pool: $fp"
	atf_check -e match:"ready: $c" jbo repo new held
	pool_inconsistent "$qdir"
	atf_check -s exit:1 -e match:"$(jb_prefix)-other: the root disk's size 1GiB is not enforced on pool $fp: .* so $(jb_prefix)-other is not made; $(jb_prefix)-other was deleted" \
	    jbo repo new other
	atf_check -o empty incus list -c n --format csv "^$(jb_prefix)-other\$"
	atf_check -o match:"^root disk limit: NOT enforced: the btrfs quota accounting of $qdir is inconsistent" \
	    jbo repo info held
	atf_check -s exit:1 -e match:"$c: the root disk's size 1GiB is not enforced on pool $fp: the btrfs quota accounting of $qdir is inconsistent .*restart jailbeed, which rescans at start, or run as root: btrfs quota rescan -w $qdir" \
	    jbo repo apply held
	atf_check -s exit:1 -e ignore \
	    -o match:"^FAIL  disk limits +the btrfs quota accounting of $qdir is inconsistent" \
	    -o match:"fix: restart jailbeed \(it rescans at start\), or as root: btrfs quota rescan -w $qdir" \
	    jbo repo doctor
}
disk_not_held_cleanup() {
	jb_containers_cleanup
	jb_cleanup
	full_pool_cleanup
}

atf_init_test_cases() {
	atf_add_test_case new_and_apply
	atf_add_test_case rescan_at_start
	atf_add_test_case disk_not_held
}
