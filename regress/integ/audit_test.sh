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
# One audit stream (issue 17 item 5): network changes and their reverts,
# refused-name summaries, mounts and their deadlines, port forwards and
# the container lifecycle each leave one line of one schema in
# state/audit/audit.jsonl with the actor; jbctl audit filters and renders it;
# a container's names never reach it raw.  (SSH decisions: ssh_test.)

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

BR_NET=10.214.0.0/24

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
}

cleanup() {
	jb_containers_cleanup
	jb_cleanup
	nh_down
	return 0
}

config() {
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$(jb_prefix)" "$JB_IMAGE"
		cat
	} > repo/.jailbee/config.yaml
	chown $JB_OWNER repo/.jailbee/config.yaml
}

# one line of ACTION on C with DECISION by ACTOR, the schema's keys all there
# and nothing else in the schema's place: has ACTION C DECISION ACTOR [COND]
has() {
	jb_audit_has '.action == $a and .container == $c and
	    .decision == $d and .actor == $u and (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")) and
	    has("repo") and ('"${5:-true}"')' --arg a "$1" --arg c "$2" \
	    --arg d "$3" --arg u "$4" --arg p "$(jb_prefix)" ||
	    atf_fail "no $1 $3 of $2 by $4 in the journal: $(cat state/audit/audit.jsonl)"
}

# wait up to $2 seconds for a line satisfying $1
wait_line() {
	i=0
	until jb_audit_has "$1"; do
		i=$((i + 1))
		[ $i -lt $(($2 * 10)) ] ||
		    atf_fail "no line with $1 after $2 s: $(cat state/audit/audit.jsonl)"
		sleep 0.1
	done
}

atf_test_case actions cleanup
actions_head() {
	atf_set descr "one journal line per action with its actor: new, net" \
	    "loose and its revert at the deadline, strict, egress add and rm," \
	    "mount and its deadline, unmount, port add and rm, stop, start," \
	    "destroy, and a refusal with its reason; audit filters by" \
	    "--action and --container and prints text or JSON"
	atf_set require.user root
	atf_set timeout 600
}
actions_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	me="uid:$(id -u $JB_OWNER)"
	mkdir -p "$w/creds"
	echo secret > "$w/creds/file"
	chown -R $JB_OWNER "$w/creds"
	config <<EOC
optional_mounts:
  creds:
    host: $w/creds
    container: /home/dev/.creds
    auto_unmount_after: 1h
EOC
	atf_check -o ignore -e match:"ready: $p-a" jbo repo new a
	atf_check -o ignore -e ignore jbo repo new b
	has new $p-a accept "$me" '.repo == $p'
	# network: loose for 2 s, reverted by the suite itself
	atf_check -e match:"loose for 2s" jbo repo net loose --for 2s a
	has net.loose $p-a accept "$me" '.until != null and .repo == $p'
	wait_line '.action == "net.strict" and .actor == "jailbeed" and
	    .reason == "loose deadline reached"' 15
	has net.strict $p-a accept jailbeed '.deadline != null and .repo == $p'
	atf_check -e ignore jbo repo net loose --no-revert a
	atf_check -e ignore jbo repo net strict a
	has net.strict $p-a accept "$me" '.reason == null'
	atf_check -e ignore jbo repo net egress add 198.18.1.9:80 a
	atf_check -e ignore jbo repo net egress rm 198.18.1.9:80 a
	has net.egress.add $p-a accept "$me" '.entry == "198.18.1.9:80"'
	has net.egress.rm $p-a accept "$me" '.entry == "198.18.1.9:80"'
	# mounts: a refusal with its reason, one with a deadline that comes,
	# one taken away by unmount
	atf_check -s exit:1 -e match:"no such optional_mounts entry" \
	    jbo repo mount nope a
	has mount $p-a refuse "$me" '.kind == "nope" and
	    (.reason | test("no such optional_mounts entry"))'
	atf_check -e match:"attached creds" jbo repo mount creds a --for 3s
	has mount $p-a accept "$me" '.kind == "creds" and .until != null'
	wait_line '.action == "unmount" and .actor == "jailbeed"' 15
	has unmount $p-a accept jailbeed '.kind == "creds" and
	    .reason == "deadline reached" and .deadline != null'
	atf_check -e match:"attached creds" jbo repo mount creds a
	atf_check -e ignore jbo repo unmount creds a
	has unmount $p-a accept "$me" '.kind == "creds"'
	# port forwards
	atf_check -e match:"forward port-th-tcp-9000" \
	    jbo repo port to-host a 9000 --host-port auto
	atf_check -e ignore jbo repo port rm 9000 a
	has port.add $p-a accept "$me" '.direction == "to-host" and .port == "9000"'
	has port.rm $p-a accept "$me" '.handle == "9000"'
	# lifecycle
	atf_check -e ignore jbo repo stop a
	atf_check -e ignore jbo repo start a
	atf_check -e ignore jbo repo destroy --force b
	has stop $p-a accept "$me"
	has start $p-a accept "$me"
	has destroy $p-b accept "$me" '.force == "true"'
	# nothing read-only is journalled: ls, status, mount ls
	atf_check -o ignore jbo repo ls
	atf_check -o ignore jbo repo net status a
	[ "$(jb_audit_count '.action == "ls" or .action == "net.status"')" = 0 ] ||
	    atf_fail "read-only commands in the journal"
	# one line per action: one net.loose --for, one port.rm ...
	[ "$(jb_audit_count '.action == "port.rm"')" = 1 ] ||
	    atf_fail "port rm journalled $(jb_audit_count '.action == "port.rm"') times"
	[ "$(jb_audit_count '.action == "new"')" = 2 ] ||
	    atf_fail "new journalled $(jb_audit_count '.action == "new"') times"
	# filters: --action (a prefix at a dot), --container, both
	jbo repo audit --action net -o json > net.json || atf_fail "audit --action"
	[ -s net.json ] || atf_fail "audit --action net printed nothing"
	atf_check -o empty -x "jq -c 'select(.action | startswith(\"net.\") | not)' net.json"
	atf_check -o inline:"1\n" -x "jq -c 'select(.action == \"net.egress.add\")' net.json | wc -l"
	atf_check -o empty jbo repo audit --action ne
	jbo repo audit --container $p-b -o json > b.json || atf_fail "audit --container"
	atf_check -o empty -x "jq -c 'select(.container != \"$p-b\")' b.json"
	atf_check -o match:'"action":"destroy"' -o match:'"action":"new"' cat b.json
	atf_check -o inline:"1\n" -x \
	    "jbo repo audit --container $p-a --action net.egress.rm -o json | wc -l"
	# text: one line per record, time actor action container decision
	atf_check -o match:"^[0-9-]{10}T[0-9:]{8}Z $me mount $p-a refuse \\(mount \"nope\": no such optional_mounts entry.*\\) kind=nope\$" \
	    -o match:"^[0-9-]{10}T[0-9:]{8}Z $me mount $p-a accept kind=creds until=[0-9-]{10}T" \
	    -o not-match:"unmount" jbo repo audit --action mount
	atf_check -o match:"^[0-9-]{10}T[0-9:]{8}Z jailbeed unmount $p-a accept \\(deadline reached\\) kind=creds deadline=" \
	    -o match:"^[0-9-]{10}T[0-9:]{8}Z $me unmount $p-a accept kind=creds\$" \
	    jbo repo audit --action unmount
	atf_check -s exit:1 -e match:'--output: "yaml"' jbo repo audit -o yaml
}
actions_cleanup() { cleanup; }

atf_test_case refused_names cleanup
refused_names_head() {
	atf_set descr "refused names are summed up per container and period," \
	    "one line for many queries; a name with terminal bytes or a huge" \
	    "name the container asks for never reaches the journal raw"
	atf_set require.user root
	atf_set timeout 600
}
refused_names_body() {
	JB_CONF_EXTRA=$NH_RESOLVER
	setup
	nh_up "$BR_NET"
	cc -static -O2 -Wall -Wextra -Werror -o dnsq \
	    "$(atf_config_get srcdir)/regress/integ/dnsq.c" ||
	    atf_fail "cannot build dnsq (cc -static needs libc6-dev)"
	p=$(jb_prefix)
	config <<EOC
egress_allow:
  - "www.test:8080"
EOC
	atf_check -o ignore -e match:"ready: $p-n" jbo repo new n
	# the image's own boot queries: summed before the flood starts
	# terminal bytes: jb-netd's parser refuses the query (FORMERR); bytes
	# no host name has but printable: refused, counted as not a name
	esc=$(printf 'evil\033]0;pwned\007\033[31m.test')
	odd='pwned{$(x)};|<b>.test'
	ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS "$esc" > esc.out 2>&1
	atf_check -o match:"FORMERR" -o not-match:"NXDOMAIN" cat esc.out
	huge=$(printf '%s.' $(printf 'h%.0s' $(seq 1 60)) \
	    $(printf 'i%.0s' $(seq 1 60)) $(printf 'j%.0s' $(seq 1 60)))k.test
	# 40 queries: the huge name 20 times (the most asked), the rest
	i=0
	while [ $i -lt 20 ]; do
		echo "$huge"
		i=$((i + 1))
	done > names
	i=0
	while [ $i -lt 10 ]; do
		echo "$odd"
		echo "other$i.test"
		i=$((i + 1))
	done >> names
	export CTR=$p-n
	# a summary has just been made: the burst falls in one period (5 s
	# in test builds), sent 16 names (dnsq's most) at a time
	atf_check -o match:NXDOMAIN ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS \
	    $(for i in $(seq 1 16); do echo sync.test; done)
	wait_line '.action == "net.dns-refused" and .container == $ENV.CTR and
	    .top == "sync.test"' 20
	start=$(jb_audit_count '.action == "net.dns-refused"')
	split -l 16 names batch.
	for b in batch.*; do
		ctr_netns $p-n "$(pwd)/dnsq" -t $NH_DNS $(cat $b) >> answers ||
		    atf_fail "dnsq: $(cat answers)"
	done
	[ "$(grep -c NXDOMAIN answers)" = 40 ] ||
	    atf_fail "not 40 refusals: $(cat answers)"
	wait_line '.action == "net.dns-refused" and .container == $ENV.CTR and
	    .count >= 40' 20
	# a line for the whole burst, never one a query (the image's own
	# queries may add a line of their own)
	n=$(($(jb_audit_count '.action == "net.dns-refused"') - start))
	[ $n -ge 1 ] && [ $n -le 3 ] || atf_fail "$n summary lines for 40 queries"
	jb_audit_has '.action == "net.dns-refused" and .actor == "jailbeed" and
	    .container == $c and .repo == $p and .decision == "refuse" and
	    .reason == "no egress_allow entry" and .names >= 12 and
	    .count >= 40 and
	    .top_count == 20 and (.top | endswith("...")) and
	    (.top | length) == 128 and (.top | startswith("hhhh"))' \
	    --arg c "$p-n" --arg p "$p" ||
	    atf_fail "no summary with the huge name cut: $(cat state/audit/audit.jsonl)"
	# no terminal byte, no raw huge name, in the journal or its syslog copy
	# (jb-netd's own debug log, -v, is not the journal)
	grep "audit: {" jailbeed.log > syslog.copy
	atf_check -o match:"net.dns-refused" cat syslog.copy
	atf_check -s exit:1 grep -F "$huge" state/audit/audit.jsonl syslog.copy
	atf_check -s exit:1 grep -F "pwned" state/audit/audit.jsonl syslog.copy
	atf_check -s exit:1 grep -P '[\x00-\x1f\x7f]' state/audit/audit.jsonl
	atf_check -s exit:1 grep -F '\u001b' state/audit/audit.jsonl
	# the text of jbctl audit too
	atf_check -o match:"net.dns-refused $p-n refuse" -o not-match:"$huge" \
	    jbo repo audit --action net.dns-refused
	jbo repo audit > all.txt
	atf_check -s exit:1 grep -P '[\x00-\x08\x0a-\x1f\x7f]' all.txt
}
refused_names_cleanup() { cleanup; }

atf_test_case journal_rotation cleanup
journal_rotation_head() {
	atf_set descr "the journal rotates by renaming in its own directory:" \
	    "the current file becomes .1 whatever its size, while commands" \
	    "are answered; a journal of an earlier version in state_dir is" \
	    "moved there at start"
	atf_set require.user root
	atf_set timeout 120
}
journal_rotation_body() {
	JB_CONF_EXTRA='remote:
  ssh:
    listen: "off"
    journal_max_kib: 1048576
    journal_keep: 3'
	export JB_CONF_EXTRA
	# an earlier version's journal in state_dir, each file at the
	# rotation size (1 GiB, sparse): one more line rotates it
	mkdir -m 0700 state
	old='{"time":"2026-01-01T00:00:00Z","actor":"old","action":"new","container":"old-%s","repo":"","decision":"accept"}\n'
	for n in "" .1 .2; do
		printf "$old" "$n" > state/audit.jsonl$n
		truncate -s 1G state/audit.jsonl$n
		chmod 0600 state/audit.jsonl$n
	done
	ino=$(stat -c %i state/audit.jsonl)
	ino1=$(stat -c %i state/audit.jsonl.1)
	jb_start
	# a flood of journalled commands (20: fewer than a uid's 32
	# connections); the first rotates the journal, and commands are
	# answered meanwhile, each in well under a second
	i=0
	while [ $i -lt 20 ]; do
		jbctl net strict nosuch$i > /dev/null 2>&1 &
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 5 ]; do
		t0=$(date +%s%N)
		atf_check -o ignore ./bin/jbctl -s "$(jb_sock)" status
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ $ms -lt 1000 ] || atf_fail "status took $ms ms while the journal rotated"
		i=$((i + 1))
	done
	# moved at start and renamed since, never copied: the former
	# current file is .1 and the former .1 is .2 in the journal's
	# directory; the line that rotated it ends .1, the new current file
	# holds the rest of the flood, every line
	atf_check -o inline:"700 $JB_OWNER\n" stat -c "%a %U" state/audit
	atf_check -s exit:1 test -e state/audit.jsonl
	j=0
	until [ "$(jq -c 'select(.action == "net.strict")' state/audit/audit.jsonl 2>/dev/null | wc -l)" -eq 19 ]; do
		j=$((j + 1))
		[ $j -lt 100 ] || atf_fail "not 19 net.strict lines in the new journal"
		sleep 0.1
	done
	atf_check -o inline:"$ino\n" stat -c %i state/audit/audit.jsonl.1
	atf_check -o inline:"1\n" -x "tail -c 1000 state/audit/audit.jsonl.1 | grep -c net.strict"
	atf_check -o inline:"$ino1\n" stat -c %i state/audit/audit.jsonl.2
	atf_check -s exit:1 test -e state/audit/audit.jsonl.3
	atf_check -o match:"old-\.1" head -c 200 state/audit/audit.jsonl.2
	atf_check -o inline:"600 $JB_OWNER\n" stat -c "%a %U" state/audit/audit.jsonl
	atf_check -s exit:1 grep "audit journal:" jailbeed.log
}
journal_rotation_cleanup() { jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case actions
	atf_add_test_case refused_names
	atf_add_test_case journal_rotation
}
