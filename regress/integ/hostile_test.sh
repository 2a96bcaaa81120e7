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
	jb_ssh_up
	# a console session that stays while its input is open
	sleep 30 | jssh -i key1 -tt jailbee@127.0.0.1 > console.out 2>&1 &
	echo $! > console.pid
	jbctl status -o json > s.json
	for p in jailbeed jb-reaper jb-incus jb-netd jb-mountd jb-sshd jb-gitd \
	    jb-egress; do
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
		# jb-egress: six per connection it relays
		if [ "$p" = jb-egress ]; then
			bounded "$p" "$pid" "Max open files" 8192 8192
		else
			bounded "$p" "$pid" "Max open files" 4096 4096
		fi
		bounded "$p" "$pid" "Max core file size" 0 0
		case $p in
		jb-egress)
			bounded "$p" "$pid" "Max processes" 16 16 ;;
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

# the file $3 (cgroup v1, controller $2) or $4 (v2) of container $1's
# cgroup, where Incus puts its limits
cg_file() {
	if [ -d "/sys/fs/cgroup/$2/lxc.payload.$1" ]; then
		echo "/sys/fs/cgroup/$2/lxc.payload.$1/$3"
	elif [ -d "/sys/fs/cgroup/lxc.payload.$1" ]; then
		echo "/sys/fs/cgroup/lxc.payload.$1/$4"
	else
		atf_fail "container $1 has no cgroup under /sys/fs/cgroup"
	fi
}

# how many CPUs a cpuset list ("0", "0-1", "0,2") names
cpus_in() {
	echo "$1" | tr ',' '\n' | awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) }
	    END { print n + 0 }'
}

# the limits the repository's defaults ask are in force on container
# $1, in the kernel: memory $2 bytes, $3 CPUs, $4 processes, and a root
# disk of $5 bytes as Incus's storage driver reports it
limits_in_force() {
	m=$(cat "$(cg_file "$1" memory memory.limit_in_bytes memory.max)")
	[ "$m" = "$2" ] || atf_fail "$1: memory limit in force is $m," \
	    "not the $2 bytes defaults.memory asks"
	p=$(cat "$(cg_file "$1" pids pids.max pids.max)")
	[ "$p" = "$4" ] || atf_fail "$1: process limit in force is $p," \
	    "not the $4 defaults.processes asks"
	cs=$(cat "$(cg_file "$1" cpuset cpuset.cpus cpuset.cpus.effective)")
	[ "$(cpus_in "$cs")" = "$3" ] || atf_fail "$1: runs on CPUs $cs," \
	    "not the $3 defaults.cpu asks"
	d=$(incus query "/1.0/instances/$1/state" | jq -r '.disk.root.total')
	[ "$d" = "$5" ] || atf_fail "$1: root disk limit in force is $d," \
	    "not the $5 bytes defaults.disk asks"
}

# what runs in container $1, by program, with the cgroup's own figures
census() {
	for t in $(cat "$(cg_file "$1" pids tasks cgroup.threads)"); do
		cat "/proc/$t/comm" 2>/dev/null
	done | sort | uniq -c | sort -rn | head -8
	for f in memory.usage_in_bytes memory.max_usage_in_bytes \
	    memory.failcnt memory.oom_control; do
		[ -f "/sys/fs/cgroup/memory/lxc.payload.$1/$f" ] &&
		    echo "$f: $(tr '\n' ' ' < /sys/fs/cgroup/memory/lxc.payload.$1/$f)"
	done
	incus query "/1.0/instances/$1/state" | jq -c '.disk.root'
}

# milliseconds "$@" takes; its output in timed.out; 1 when it fails
timed() {
	_t0=$(date +%s%N)
	"$@" > timed.out 2>&1
	_rc=$?
	_t1=$(date +%s%N)
	echo $(( (_t1 - _t0) / 1000000 ))
	return $_rc
}

# one answer under load: what $1 is, then the command; fails unless it
# succeeds within 2 s; its time goes to figures
answers() {
	_what=$1
	shift
	_ms=$(timed "$@") || { cat timed.out figures >&2;
	    tail -40 jailbeed.log >&2;
	    atf_fail "under load, $_what failed after $_ms ms"; }
	echo "$_what $_ms" >> figures
	[ "$_ms" -le 2000 ] || { cat timed.out figures >&2;
	    tail -40 jailbeed.log >&2;
	    atf_fail "under load, $_what took $_ms ms (2000 at most)"; }
}

# one round of what others need of the suite: jbctl ls, jbctl exec in
# container $1, a DNS answer through jb-netd from its namespace, an SSH
# one-shot into it
round() {
	answers "jbctl-ls" jbo repo ls
	answers "jbctl-exec" jbo repo exec "${1#$(jb_prefix)-}" -- true
	answers "dns" ctr_netns "$1" "$(pwd)/dnsq" $NH_DNS www.test
	grep -q "^A $NH_WWW " timed.out ||
	    atf_fail "no answer for www.test: $(cat timed.out)"
	answers "ssh-one-shot" jssh -i key1 jailbee@127.0.0.1 \
	    exec "$1" -- true
}

# the hostile workload, as the dev user, in four parts.  The disk filler
# in the clone ($1) and the memory eater stay attached to their exec, so
# that what they say (dd's "Disk quota exceeded") reaches the host; the
# eight CPU spinners and, last, the fork bomb run in sessions of their
# own.  The bomb is perl's: every process forks for ever and none gives
# up when a fork fails, as a shell does.
FILLER='cd "$1" || exit 1
while :; do dd if=/dev/zero of=fill bs=4M oflag=append conv=notrunc; done'
EATER='while :; do tail /dev/zero; done'
SPINNERS='for i in 1 2 3 4 5 6 7 8; do
	setsid sh -c "while :; do :; done" < /dev/null > /dev/null 2>&1 &
done'
BOMB='setsid perl -e "fork while 1" < /dev/null > /dev/null 2>&1 &'

# how many times the kernel's OOM killer acted in container $1
oom_kills() {
	awk '$1 == "oom_kill" { print $2 }' \
	    "$(cg_file "$1" memory memory.oom_control memory.events)"
}

MEM=268435456		# defaults.memory: 256MiB
PROCS=200		# defaults.processes
DISK=536870912		# defaults.disk: 512MiB

atf_test_case workload_contained cleanup
workload_contained_head() {
	atf_set descr "a fork bomb, a memory eater, a disk filler and eight" \
	    "CPU spinners in one container, under the limits of the" \
	    "repository's defaults: jbctl ls, jbctl exec in a second" \
	    "container, a DNS answer through jb-netd and an SSH one-shot" \
	    "each answer within 2 s, the host keeps its free memory, and" \
	    "every process of the suite still runs after"
	atf_set require.user root
	atf_set require.progs cc
	atf_set timeout 300
}
workload_contained_body() {
	jb_ssh_up "$NH_RESOLVER"
	jb_tools
	jb_image
	jb_repo
	nh_up 10.213.0.0/24
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	cat >> repo/.jailbee/config.yaml <<EOC
egress_allow:
  - "www.test:8080"
defaults:
  memory: 256MiB
  cpu: 1
  processes: $PROCS
  disk: 512MiB
EOC
	h=$(jb_prefix)-hostile
	q=$(jb_prefix)-quiet
	atf_check -e match:"ready: $h" jbo repo new hostile
	atf_check -e match:"ready: $q" jbo repo new quiet
	jb_routed "$q"
	# nothing hostile runs unless the limits hold
	limits_in_force "$h" $MEM 1 $PROCS $DISK
	limits_in_force "$q" $MEM 1 $PROCS $DISK
	jbctl status -o json | jq -r '.processes[] | "\(.name) \(.pid)"' \
	    | sort > procs.before
	# the same answers before the load, for comparison
	round "$q"
	total=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	# the host's available memory, every 0.2 s, until the end
	( while :; do awk '/^MemAvailable:/ { print $2 }' /proc/meminfo;
	    sleep 0.2; done > memavail ) &
	echo $! > sampler.pid

	# the filler and the eater first, until each has met its limit
	# (30 s at most)
	clone=$(jbo repo exec hostile -- pwd) || atf_fail "no clone in $h"
	in_ctr "$h" sh -c "$FILLER" sh "$clone" > /dev/null 2> filler.err &
	echo $! >> workload.pids
	in_ctr "$h" sh -c "$EATER" > /dev/null 2> eater.err &
	echo $! >> workload.pids
	i=0
	until grep -Eq "Disk quota exceeded|No space left" filler.err &&
	    [ "$(oom_kills "$h")" -gt 0 ]; do
		i=$((i + 1))
		[ $i -lt 150 ] || atf_fail "after 30 s the filler or the eater" \
		    "has not met its limit: $(oom_kills "$h") OOM kills," \
		    "filler: $(tail -1 filler.err)," \
		    "$(awk '/ bytes .* copied/ { n += $1 } END { print n + 0 }' \
		    filler.err) bytes written"
		sleep 0.2
	done
	echo "filler and eater at their limits after $((i / 5)) s"
	# then the spinners and the bomb, until it holds every process
	# the container may have (15 s at most)
	in_ctr "$h" sh -c "$SPINNERS" || atf_fail "no spinners in $h"
	in_ctr "$h" sh -c "$BOMB" || atf_fail "no fork bomb in $h"
	pids=$(cg_file "$h" pids pids.current pids.current)
	i=0
	until [ "$(cat "$pids")" -ge $((PROCS - 5)) ]; do
		i=$((i + 1))
		[ $i -lt 75 ] || atf_fail "after 15 s the fork bomb holds" \
		    "$(cat "$pids") processes of $PROCS"
		sleep 0.2
	done
	echo "the bomb at the process limit after $((i / 5)) s"
	census "$h"

	# meanwhile, five rounds of what others need of the suite
	mv figures figures.idle
	for r in 1 2 3 4 5; do
		round "$q"
	done
	# the limits were met, not merely set
	n=$(cat "$pids")
	[ "$n" -ge $((PROCS - 5)) ] ||
	    atf_fail "the fork bomb holds only $n processes"
	# what each dd wrote before it stopped, as it says
	fill=$(awk '/ bytes .* copied/ { n += $1 } END { print n + 0 }' \
	    filler.err)
	echo "the filler wrote $((fill / 1048576)) MiB; $(oom_kills "$h") OOM kills"
	[ "$fill" -le $DISK ] ||
	    atf_fail "the filler wrote $fill bytes, past the 512MiB disk limit"

	# the hostile container goes, bomb and all, through the suite
	ms=$(timed jbo repo destroy --force hostile) ||
	    { cat timed.out >&2; atf_fail "destroy of $h failed:" \
	    "$(tail -1 timed.out)"; }
	echo "destroy of $h under load: $ms ms"
	incus info "$h" > /dev/null 2>&1 && atf_fail "$h is still there"
	for p in $(cat workload.pids); do
		kill "$p" 2>/dev/null
	done
	kill "$(cat sampler.pid)"
	rm -f sampler.pid
	min=$(sort -n memavail | head -1)
	echo "host MemAvailable: lowest $((min / 1024)) MiB of $((total / 1024)) MiB"
	[ "$min" -ge $((total / 10)) ] || atf_fail "the host's available" \
	    "memory fell to $((min / 1024)) MiB (a tenth of its memory at least)"
	for w in jbctl-ls jbctl-exec dns ssh-one-shot; do
		awk -v w=$w '$1 == w { if ($2 > m) m = $2 } END {
		    printf "%s: slowest of 5 under load %d ms", w, m }' figures
		awk -v w=$w '$1 == w { printf " (before it: %d ms)\n", $2 }' \
		    figures.idle
	done
	# the suite still runs, every process the one it started with
	jbctl status -o json | jq -r '.processes[] | "\(.name) \(.pid)"' \
	    | sort > procs.after
	atf_check diff procs.before procs.after
	if grep -E "killed by signal|closed its channel|exited with" \
	    jailbeed.log; then
		atf_fail "a process of the suite died under the load"
	fi
}
workload_contained_cleanup() {
	for p in $(cat sampler.pid workload.pids 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	jb_containers_cleanup
	jb_cleanup
	nh_down
}

atf_init_test_cases() {
	atf_add_test_case daemons_bounded
	atf_add_test_case workload_contained
}
