#! /usr/bin/env atf-sh
#
# SFTP and scp into a container's repository over jb-sshd (issue #16
# items 1 and 2; FEATURES R-SFTP, REFERENCE.md R45-R51) with the real
# OpenSSH sftp and scp: the virtual tree, transfers, confinement to the
# repository, the 2 GiB cap, the limit of 8 container operations, the
# journal, remote.ssh.files and legacy scp -O.

. "$(atf_get_srcdir)/lib.sh"

# the suite with SFTP on, the test repo, and its running container
# $p-box; sets p (the prefix) and c (that container)
box_up() {
	jb_ssh_up
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	c=$p-box
	atf_check -e ignore jbo repo new box
}

# the batch on stdin, run by sftp; its output and errors kept
batch() {
	cat > batch.txt
	jsftp -b batch.txt jailbee@127.0.0.1 > batch.out 2> batch.err
}

# the journal's sftp lines: "OP PATH DECISION REASON" each
sftp_journal() {
	jq -r 'select(.route == "sftp") | "\(.command) \(.path) \(.decision) \(.reason // "-")"' \
	    state/audit/audit.jsonl
}

atf_test_case tree_and_transfers cleanup
tree_and_transfers_head() {
	atf_set descr "/ lists the visible running containers; get, put," \
	    "mkdir, rename, rm in one; the repo owner owns what is put; one" \
	    "journal line per operation"
	atf_set require.user root
	atf_set timeout 600
}
tree_and_transfers_body() {
	box_up
	atf_check -e ignore jbo repo new other
	atf_check -e ignore jbo repo new --mount live
	atf_check -e ignore jbo repo new stopped
	atf_check -e ignore jbo repo stop stopped
	# / is exactly the running, non-mount containers (of every repo)
	printf 'ls -1 /\n' | batch || { cat batch.err; atf_fail "ls / failed"; }
	grep "^/$p-\|^$p-" batch.out | sed 's|^/||' | sort > listed
	printf '%s\n' "$p-box" "$p-other" > want
	atf_check -o file:want cat listed
	# put, get: the same bytes; the host side owner is the repo owner
	head -c 3000000 /dev/urandom > up.bin
	batch <<EOB || { cat batch.err; atf_fail "transfers failed"; }
cd /$p-box
put up.bin up.bin
get up.bin down.bin
mkdir d1
rename up.bin d1/moved.bin
ls -l d1
rm d1/moved.bin
rmdir d1
EOB
	atf_check cmp up.bin down.bin
	atf_check -o match:"moved.bin" cat batch.out
	# in the container: gone after rm; a put file is the dev user's
	printf 'put up.bin /%s/kept.bin\n' "$p-box" | batch || atf_fail "put kept failed"
	atf_check -o inline:"$(id -u $JB_OWNER)\n" in_ctr $p-box \
	    stat -c %u /home/dev/$p/kept.bin
	atf_check -s exit:1 -e ignore in_ctr $p-box test -e /home/dev/$p/d1
	# the journal: one line per operation, none for realpath or close
	sftp_journal > j
	atf_check -o match:"^write /$p-box/up.bin accept -$" cat j
	atf_check -o match:"^read /$p-box/up.bin accept" cat j
	atf_check -o match:"^mkdir /$p-box/d1 accept -$" cat j
	atf_check -o match:"^posix-rename /$p-box/up.bin accept -$" cat j
	atf_check -o match:"^remove /$p-box/d1/moved.bin accept -$" cat j
	atf_check -o match:"^rmdir /$p-box/d1 accept -$" cat j
	atf_check -o inline:"1\n" -x "grep -c '^mkdir ' j"
	atf_check -o not-match:"realpath|close|fsync" cat j
	atf_check -o match:"\"new_path\":\"/$p-box/d1/moved.bin\"" \
	    -o match:"\"actor\":\"SHA256:" cat state/audit/audit.jsonl
}
tree_and_transfers_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case large_put cleanup
large_put_head() {
	atf_set descr "a 64 MiB put arrives whole: its sha256 in the" \
	    "container is the source's; get brings the same bytes back"
	atf_set require.user root
	atf_set timeout 600
}
large_put_body() {
	box_up
	head -c $((64 * 1024 * 1024)) /dev/urandom > big
	sum=$(sha256sum < big | cut -d' ' -f1)
	printf 'put big /%s/big\n' "$p-box" | batch ||
	    { cat batch.err; atf_fail "put failed"; }
	atf_check -o inline:"$sum  -\n" in_ctr $p-box \
	    sh -c "sha256sum < /home/dev/$p/big"
	printf 'get /%s/big back\n' "$p-box" | batch ||
	    { cat batch.err; atf_fail "get failed"; }
	atf_check cmp big back
}
large_put_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case confinement cleanup
confinement_head() {
	atf_set descr "..; an absolute and a relative symlink out of the" \
	    "repository refused, lstat shows the link, rm removes the link;" \
	    "no link made; / read-only; no rename between containers; the" \
	    "2 GiB cap; scp both ways and scp -O refused"
	atf_set require.user root
	atf_set timeout 600
}
confinement_body() {
	box_up
	atf_check -e ignore jbo repo new other
	r=/home/dev/$p
	atf_check in_ctr $c ln -s /etc/passwd $r/abs
	atf_check in_ctr $c ln -s ../../../etc/passwd $r/rel
	atf_check in_ctr $c ln -s file $r/inside
	for t in "get /$c/../$p-other/file x" "get /$c/abs x" "get /$c/rel x"; do
		printf '%s\n' "$t" | batch && atf_fail "$t was not refused"
	done
	atf_check -s exit:1 test -e x
	sftp_journal > j
	atf_check -o match:" /$c/\.\./$p-other/file refuse path leaves the repository \(\.\.\)$" \
	    -o match:" /$c/abs refuse path leaves the repository$" \
	    -o match:" /$c/rel refuse path leaves the repository$" cat j
	# within: a link inside is followed
	printf 'get /%s/inside in.txt\n' "$c" | batch || atf_fail "inside link"
	atf_check -o inline:"line 1\nline 2\nline 3\n" cat in.txt
	# lstat (ls -l) shows the links; rm removes the link, not its target
	printf 'ls -l /%s\n' "$c" | batch || atf_fail "ls -l failed"
	atf_check -o match:"^l.* abs" -o match:"^l.* rel" cat batch.out
	printf 'rm /%s/abs\n' "$c" | batch || atf_fail "rm abs failed"
	atf_check -s exit:1 in_ctr $c test -L $r/abs
	atf_check -o ignore in_ctr $c test -f /etc/passwd
	# no link is made; / is read-only; no rename between containers
	for t in "ln -s file /$c/l2" "ln /$c/file /$c/l3" "put up.bin /up.bin" \
	    "mkdir /newdir" "rename /$c/file /$p-other/file"; do
		head -c 10 /dev/urandom > up.bin
		printf '%s\n' "$t" | batch && atf_fail "$t was not refused"
	done
	sftp_journal > j
	atf_check -o match:"^symlink /$c/l2 refuse links cannot be created$" \
	    -o match:"^hardlink /$c/file refuse links cannot be created$" \
	    -o match:"^write /up.bin refuse the top of the tree is read-only$" \
	    -o match:"^mkdir /newdir refuse the top of the tree is read-only$" \
	    -o match:"^posix-rename /$c/file refuse no rename between containers$" \
	    -o match:"^lstat /$c/abs accept -$" \
	    -o match:"^remove /$c/abs accept -$" cat j
	# 2 GiB + 1 byte: the last byte at 2 GiB of a sparse file is refused
	atf_check in_ctr $c truncate -s 2147483648 $r/big
	truncate -s 2147483649 big
	printf 'put -a big /%s/big\n' "$c" | batch && atf_fail "past 2 GiB"
	# (sftp then truncates to what was acknowledged, as with OpenSSH's)
	sz=$(in_ctr $c stat -c %s $r/big)
	[ "$sz" -le 2147483648 ] || atf_fail "big grew to $sz bytes"
	sftp_journal > j
	atf_check -o match:"^write /$c/big accept failed: File too large$" cat j
	atf_check in_ctr $c rm $r/big
	# scp in SFTP mode, both ways; legacy scp -O refused with its reason
	head -c 100000 /dev/urandom > s.bin
	atf_check jscp s.bin jailbee@127.0.0.1:/$c/s.bin
	atf_check jscp jailbee@127.0.0.1:/$c/s.bin s2.bin
	atf_check cmp s.bin s2.bin
	atf_check -s not-exit:0 -e match:"use scp without -O" \
	    jscp -O s.bin jailbee@127.0.0.1:/$c/s3.bin
	atf_check -s not-exit:0 -e match:"use scp without -O" \
	    jscp -O jailbee@127.0.0.1:/$c/s.bin s3.bin
}
confinement_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case files_off cleanup
files_off_head() {
	atf_set descr "remote.ssh.files: false refuses the sftp subsystem;" \
	    "unset under commands.mode: allowlist too, an explicit true wins"
	atf_set require.user root
}
files_off_body() {
	jb_ssh_up "    files: false"
	printf 'ls /\n' | batch && atf_fail "sftp was not refused"
	atf_check -o match:"subsystem request failed" cat batch.err
	jb_audit_has '.route == "subsystem sftp" and .decision == "refuse" and
	    .reason == "remote.ssh.files is off"' ||
	    atf_fail "no journal line refusing sftp for remote.ssh.files"
	jb_cleanup
	rm -rf state
	jb_ssh_up "    commands:
      mode: allowlist
      allow: [version]"
	printf 'ls /\n' | batch && atf_fail "sftp was not refused (allowlist)"
	jb_cleanup
	rm -rf state
	jb_ssh_up "    files: true
    commands:
      mode: allowlist
      allow: [version]"
	printf 'ls /\n' | batch || atf_fail "files: true did not win"
	jb_audit_has '.route == "subsystem sftp" and .decision == "accept"' ||
	    atf_fail "no journal line accepting sftp"
}
files_off_cleanup() { jb_cleanup; }

atf_test_case helper_dies_mid_put cleanup
helper_dies_mid_put_head() {
	atf_set descr "the in-container helper killed while a put streams:" \
	    "the put fails (a WRITE once acknowledged is never silently" \
	    "lost); the file is short"
	atf_set require.user root
	atf_set timeout 600
}
helper_dies_mid_put_body() {
	box_up
	head -c $((256 * 1024 * 1024)) /dev/urandom > big
	printf 'put big /%s/big\n' "$c" > batch.txt
	jsftp -b batch.txt jailbee@127.0.0.1 > batch.out 2> batch.err &
	put=$!
	i=0
	until [ "$(in_ctr $c stat -c %s /home/dev/$p/big 2>/dev/null ||
	    echo 0)" -gt 0 ]; do
		[ $i -lt 300 ] || atf_fail "the put did not start"
		kill -0 $put 2>/dev/null || atf_fail "the put ended early"
		sleep 0.1
		i=$((i + 1))
	done
	atf_check in_ctr $c sh -c 'n=0
	    for d in /proc/[0-9]*; do
		case $(cat $d/comm 2>/dev/null) in
		jb-sftp*) kill -9 ${d#/proc/} && n=$((n + 1)) ;;
		esac
	    done
	    [ $n -gt 0 ]'
	wait $put && atf_fail "the put succeeded with its helper killed"
	atf_check -o match:"(write|close) remote" cat batch.err
	sz=$(in_ctr $c stat -c %s /home/dev/$p/big)
	[ "$sz" -lt $((256 * 1024 * 1024)) ] ||
	    atf_fail "all $sz bytes arrived: the helper was not killed"
}
helper_dies_mid_put_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case eight_at_once cleanup
eight_at_once_head() {
	atf_set descr "9 concurrent downloads: never more than 8 container" \
	    "operations at once, all 9 complete"
	atf_set require.user root
	atf_set timeout 600
}
eight_at_once_body() {
	box_up
	atf_check in_ctr $c truncate -s 64M /home/dev/$p/zero
	i=0
	while [ $i -lt 9 ]; do
		printf 'get /%s/zero out%d\n' "$c" $i > b$i
		jsftp -b b$i jailbee@127.0.0.1 > /dev/null 2> e$i &
		echo $! >> pids
		i=$((i + 1))
	done
	for pid in $(cat pids); do
		wait "$pid" || { sftp_journal | grep -v accept >&2;
		    atf_fail "a download failed: $(cat e*)"; }
	done
	i=0
	while [ $i -lt 9 ]; do
		atf_check -o inline:"67108864\n" stat -c %s out$i
		i=$((i + 1))
	done
	# the journal says how many ran when each began: 8 at most, and 8
	atf_check -o inline:"8\n" -x "jq -s '[.[] | select(.route == \"sftp\") | .running // 0] | max' state/audit/audit.jsonl"
	atf_check -o inline:"9\n" -x "jq -r 'select(.route == \"sftp\" and .command == \"read\") | .decision' state/audit/audit.jsonl | grep -c accept"
}
eight_at_once_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case fifo_slots cleanup
fifo_slots_head() {
	atf_set descr "eight FIFOs in one container, eight puts into them at" \
	    "once from one key: each is refused as not a regular file (none" \
	    "waits on the FIFO), and another container's ls answers within 5 s"
	atf_set require.user root
	atf_set timeout 600
}
fifo_slots_body() {
	box_up
	atf_check -e ignore jbo repo new other
	atf_check in_ctr $c sh -c "cd /home/dev/$p &&
	    for i in 1 2 3 4 5 6 7 8; do mkfifo f\$i; done"
	printf 'x\n' > small
	# OpenSSH's get stats first and refuses a non-regular file by itself;
	# put opens the remote name for writing at once, as a get of a file
	# swapped after its stat would open it for reading
	for i in 1 2 3 4 5 6 7 8; do
		printf 'put small /%s/f%d\n' "$c" $i > b$i
		timeout 60 jsftp -b b$i jailbee@127.0.0.1 > o$i 2> e$i &
		echo $! >> pids
	done
	sleep 2
	printf 'ls /%s-other\n' "$p" > bls
	t0=$(date +%s%N)
	timeout 5 jsftp -b bls jailbee@127.0.0.1 > ls.out 2> ls.err ||
	    atf_fail "another container's ls did not answer within 5 s: $(cat ls.err)"
	t1=$(date +%s%N)
	echo "ls took $(( (t1 - t0) / 1000000 )) ms"
	atf_check -o match:"file" cat ls.out
	for pid in $(cat pids); do
		wait "$pid" && atf_fail "a put into a FIFO succeeded"
	done
	# (OpenSSH's sftp shows the status code, not the server's text: the
	# text is in the journal)
	for i in 1 2 3 4 5 6 7 8; do
		atf_check -o match:"open \"/$c/f$i\": Failure" cat e$i
	done
	sftp_journal > j
	for i in 1 2 3 4 5 6 7 8; do
		atf_check -o match:"^write /$c/f$i refuse not a regular file$" cat j
	done
}
fifo_slots_cleanup() {
	[ -f pids ] && kill $(cat pids) 2>/dev/null
	jb_containers_cleanup; jb_cleanup
}

atf_test_case hostile_helper cleanup
hostile_helper_head() {
	atf_set descr "root in the container replaces jb-sftp with a script" \
	    "that exits with EXDEV: the journal says what jailbeed saw (the" \
	    "exit status, what the client was told), not the helper's claim"
	atf_set require.user root
	atf_set timeout 600
}
hostile_helper_body() {
	box_up
	# the helper is pushed by a first operation, then replaced
	printf 'ls /%s\n' "$c" | batch || atf_fail "ls failed: $(cat batch.err)"
	atf_check incus exec $c -- sh -c 'n=0
	    for f in /usr/local/lib/jb-sftp-*; do
		printf "#!/bin/sh\nexit 18\n" > "$f" && n=$((n + 1))
	    done
	    [ $n -gt 0 ]'
	printf 'mkdir /%s/newdir\n' "$c" | batch && atf_fail "mkdir succeeded"
	atf_check -s exit:1 in_ctr $c test -e /home/dev/$p/newdir
	sftp_journal > j
	atf_check -o not-match:"^mkdir /$c/newdir refuse" cat j
	atf_check -o match:"^mkdir /$c/newdir accept failed: Input/output error$" cat j
	jb_audit_has '.route == "sftp" and .command == "mkdir" and
	    .exit == 18 and .told == 5' ||
	    atf_fail "the journal does not say exit 18, told EIO: $(grep mkdir state/audit/audit.jsonl)"
}
hostile_helper_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case refusal_flood cleanup
refusal_flood_head() {
	atf_set descr "500 refused SFTP operations of one key in one minute:" \
	    "at most refusals_per_minute journal lines, then one summary line"
	atf_set require.user root
	atf_set timeout 600
}
refusal_flood_body() {
	box_up
	atf_check -e ignore jbo repo new other
	# all in one minute of the clock
	while [ "$(date +%S | sed 's/^0//')" -gt 40 ]; do sleep 1; done
	i=0
	: > flood.txt
	while [ $i -lt 500 ]; do
		printf -- '-get /%s/../%s-other/file x\n' "$c" "$p" >> flood.txt
		i=$((i + 1))
	done
	jsftp -b flood.txt jailbee@127.0.0.1 > flood.out 2> flood.err
	atf_check -o match:"^File \"/$c/\.\./$p-other/file\" not found" \
	    cat flood.err
	sftp_journal > j
	atf_check -o match:" /$c/\.\./$p-other/file refuse path leaves the repository \(\.\.\)$" cat j
	n=$(jq -r 'select(.route == "sftp" and .decision == "refuse" and
	    .action != "sftp.rate") | .path' state/audit/audit.jsonl | wc -l)
	echo "refusals journalled: $n"
	[ "$n" -le 60 ] || atf_fail "$n refusals journalled, the limit is 60"
	[ "$n" -ge 1 ] || atf_fail "no refusal journalled"
	atf_check -o inline:"1\n" -x "jq -r 'select(.action == \"sftp.rate\") | .reason' state/audit/audit.jsonl | grep -c 'refusals_per_minute'"
}
refusal_flood_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case client_leaves cleanup
client_leaves_head() {
	atf_set descr "root in the container makes jb-sftp hang and ignore" \
	    "SIGHUP; eight clients that give up: their sessions notice, their" \
	    "execs are ended (nothing left in the container), each is" \
	    "journalled as the session having left"
	atf_set require.user root
	atf_set timeout 600
}
client_leaves_body() {
	box_up
	printf 'ls /%s\n' "$c" | batch || atf_fail "ls failed: $(cat batch.err)"
	atf_check incus exec $c -- sh -c 'n=0
	    for f in /usr/local/lib/jb-sftp-*; do
		printf "#!/bin/sh\ntrap \"\" HUP\nexec sleep 1000\n" > "$f" &&
		    n=$((n + 1))
	    done
	    [ $n -gt 0 ]'
	for i in 1 2 3 4 5 6 7 8; do
		printf 'ls /%s\n' "$c" > b$i
		timeout 3 jsftp -b b$i jailbee@127.0.0.1 > o$i 2> e$i &
		echo $! >> pids
	done
	for pid in $(cat pids); do
		wait "$pid" && atf_fail "an ls with a hung helper succeeded"
	done
	# the clients are gone at 3 s; within 5 s more nothing is left
	sleep 5
	n=$(incus exec $c -- sh -c 'for d in /proc/[0-9]*; do
	    cat $d/comm 2>/dev/null; done' | grep -c '^sleep$')
	[ "$n" -eq 0 ] || atf_fail "$n hung helpers left in the container"
	atf_check -o inline:"8\n" -x "jq -r 'select(.route == \"sftp\" and
	    .reason == \"the session left\" and .exit == -1) | .path' \
	    state/audit/audit.jsonl | wc -l"
}
client_leaves_cleanup() {
	[ -f pids ] && kill $(cat pids) 2>/dev/null
	jb_containers_cleanup; jb_cleanup
}

atf_init_test_cases() {
	atf_add_test_case tree_and_transfers
	atf_add_test_case large_put
	atf_add_test_case helper_dies_mid_put
	atf_add_test_case confinement
	atf_add_test_case files_off
	atf_add_test_case eight_at_once
	atf_add_test_case fifo_slots
	atf_add_test_case hostile_helper
	atf_add_test_case refusal_flood
	atf_add_test_case client_leaves
}
