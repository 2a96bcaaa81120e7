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
# The suite at scale, on the build users get: 100 containers, made with
# jbctl new from the suite's image, and every request jailbeed sends
# jb-netd (libcommon/jb_msg.h, IMSG_NETD_*) made at that size.  Code that
# is cheap for a few containers may reach a system call the filter does
# not allow once the tables grow (glibc's qsort asks sysinfo for the
# memory size past a small array); here the process would die of SIGSYS.

. "$(atf_get_srcdir)/lib.sh"

N=100

# the suite and jb-netd are the ones started first: none died, and the
# parent's log names no child killed (a filter's SIGSYS among them)
suite_intact() {
	jb_alive "$(cat jailbeed.pid)" ||
	    { cat jailbeed.log >&2; atf_fail "jailbeed is gone ($1)"; }
	[ "$(jb_pid jb-netd)" = "$(cat netd.pid)" ] ||
	    { cat jailbeed.log >&2; atf_fail "jb-netd is not the one started ($1)"; }
	if grep -E "killed by signal|closed its channel" jailbeed.log; then
		atf_fail "a process of the suite died ($1)"
	fi
}

# net status of this repo's containers reports $1 of them
status_count() {
	atf_check -o save:status.json jbo repo net status -o json
	atf_check -o inline:"$1\n" jq -r '.containers | length' status.json
}

# every container of this test's repo goes: several at a time, as a
# cleanup has a minute at most
scale_containers_gone() {
	[ -f prefix ] || return 0
	incus list -c n --format csv "^$(cat prefix)-" 2>/dev/null |
	    xargs -r -P 6 -n 5 incus delete --force > /dev/null 2>&1
	# the leases Incus lost in the rush, which would keep their
	# addresses from the next tests' containers for an hour
	python3 "$(atf_config_get srcdir)/regress/integ/leases.py" jbbr0 \
	    "$(cat prefix)" || true
	return 0
}

# the mode jb-netd holds for container $1 (a short name)
mode_of() {
	jbo repo net status -o json "$1" | jq -r '.containers[0].mode'
}

atf_test_case netd_hundred cleanup
netd_hundred_head() {
	atf_set descr "100 containers on the release build: every jb-netd" \
	    "request (new, ls, net status, loose/strict and a deadline," \
	    "egress add/rm/ls and --repo, refresh, log, apply, doctor," \
	    "destroy, the start-up sync) answers, and no process dies"
	atf_set require.user root
	atf_set timeout 1500
}
netd_hundred_body() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	printf 'egress_allow:\n  - "192.0.2.10:443"\n' >> repo/.jailbee/config.yaml
	p=$(jb_prefix)
	jb_pid jb-netd > netd.pid

	# NETD_SET: four at a time, as several users would
	seq 1 $N | xargs -P 4 -I{} sh -c \
	    'jbo repo new s{} > new-s{}.log 2>&1 || { echo "new s{} failed:"; cat new-s{}.log; exit 255; }' >&2 ||
	    { tail -50 jailbeed.log >&2; atf_fail "jbctl new failed"; }
	suite_intact "after $N new"
	atf_check -o inline:"$N\n" sh -c \
	    "incus list -c n --format csv '^$p-s[0-9]+\$' | wc -l"

	# NETD_MODES (ls), NETD_STATUS (all, then one)
	atf_check -o save:ls.json jbo repo ls -o json
	atf_check -o inline:"$N\n" \
	    jq '[.. | objects | select(has("branch") and has("mode"))] | length' ls.json
	status_count "$N"
	atf_check -o match:"192.0.2.10:443" jbo repo net status s50
	suite_intact "ls and status"

	# NETD_MODE both ways, and a deadline's revert at this size
	atf_check -e ignore -o ignore jbo repo net loose s1
	atf_check -e ignore -o ignore jbo repo net strict s1
	atf_check -e ignore -o ignore jbo repo net loose --for 3s s2
	m=$(mode_of s2)
	[ "$m" = loose ] || atf_fail "s2 is $m after net loose --for 3s"
	i=0
	until [ "$(mode_of s2)" = strict ]; do
		i=$((i + 1))
		[ $i -lt 30 ] || atf_fail "s2 did not become strict again"
		sleep 1
	done
	suite_intact "loose and strict"

	# NETD_EGRESS: one container, then the whole repo's layer
	atf_check -e ignore -o ignore \
	    jbo repo net egress add 198.51.100.7:8443 s3
	atf_check -o match:"198.51.100.7:8443" jbo repo net egress ls s3
	atf_check -e ignore -o ignore \
	    jbo repo net egress rm 198.51.100.7:8443 s3
	atf_check -o not-match:"198.51.100.7:8443" jbo repo net egress ls s3
	atf_check -e ignore -o ignore \
	    jbo repo net egress add --repo 198.51.100.8:22 s4
	atf_check -o match:"198.51.100.8:22" jbo repo net status s77
	atf_check -e ignore -o ignore \
	    jbo repo net egress rm --repo 198.51.100.8:22 s4
	suite_intact "egress"

	# NETD_REFRESH, NETD_BLOCKED, NETD_CONFIG, NETD_CHECK
	atf_check -e ignore -o ignore jbo repo net refresh s5
	atf_check -e ignore -o ignore jbo repo net log s6
	printf '  - "192.0.2.11:443"\n' >> repo/.jailbee/config.yaml
	atf_check -e ignore -o ignore jbo repo apply s7
	atf_check -o match:"192.0.2.11:443" jbo repo net status s7
	jbo repo doctor > doctor.out 2>&1
	grep -i "nft\|table" doctor.out
	grep -qi "FAIL.*\(table\|nft\|jb-netd\)" doctor.out &&
	    atf_fail "doctor finds jb-netd's table wrong"
	suite_intact "refresh, log, apply, doctor"

	# NETD_FORGET
	atf_check -e ignore -o ignore jbo repo destroy s$N
	status_count "$((N - 1))"
	suite_intact "destroy"

	# NETD_SYNC_FORGET: one container goes behind the suite's back; the
	# next start forgets it, and keeps the others
	jb_cleanup
	incus delete --force "$p-s$((N - 1))"
	jb_start
	jb_tools	# bin/jbo names the new control socket
	jb_pid jb-netd > netd.pid
	status_count "$((N - 2))"
	atf_check -s not-exit:0 -e match:"$p-s$((N - 1))" \
	    jbo repo net status s$((N - 1))
	atf_check -e ignore -o ignore jbo repo net loose s8
	atf_check -e ignore -o ignore jbo repo net strict s8
	suite_intact "restart"
	jb_cleanup
	scale_containers_gone
}
netd_hundred_cleanup() {
	jb_cleanup
	scale_containers_gone
}

atf_init_test_cases() {
	atf_add_test_case netd_hundred
}
