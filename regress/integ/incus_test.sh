#! /usr/bin/env atf-sh
#
# jb-incus's Incus client against the real incusd (C1, C11): lifecycle,
# exec, files, snapshots, images and events, run by the incus_client
# driver; and the path from jbctl through jailbeed and jb-incus to Incus.

. "$(atf_get_srcdir)/lib.sh"

atf_test_case client_scenario
client_scenario_head() {
	atf_set descr "the REST client drives a real container through its" \
	    "whole life on the local incusd"
	atf_set require.user root
	atf_set timeout 300
}
client_scenario_body() {
	jb_image
	atf_check -o match:"^# 0 failure\\(s\\)$" -e ignore \
	    env JB_IMAGE="$JB_IMAGE" "$(jb_build)/regress/integ/incus_client" \
	    -m "$(atf_config_get srcdir)/regress/mkfixture"
}

atf_test_case exec_scenario
exec_scenario_head() {
	atf_set descr "streamed exec over Incus's websockets: stdout and" \
	    "stderr apart, stdin to EOF, a pty and its resizes, signals (C7)"
	atf_set require.user root
	atf_set timeout 300
}
exec_scenario_body() {
	jb_image
	atf_check -o match:"^# 0 failure\\(s\\)$" -e ignore \
	    env JB_IMAGE="$JB_IMAGE" "$(jb_build)/regress/integ/exec_client"
}

atf_test_case mountd_scenario
mountd_scenario_head() {
	atf_set descr "jb-mountd describes checkouts as the owner sees them:" \
	    "toplevel, branches, upstream; refuses what it cannot read (C3, C4)"
	atf_set require.user root
	atf_set timeout 120
}
mountd_scenario_body() {
	jb_users
	atf_check -o match:"^# 0 failure" -e ignore \
	    "$(jb_build)/regress/integ/mountd_driver" -m "$(jb_build)/jb-mountd" \
	    -o $JB_OWNER
}

atf_test_case ops_scenario
ops_scenario_head() {
	atf_set descr "jb-incus's closed set of operations, each checked" \
	    "before Incus is asked: refusals leave nothing behind, instances" \
	    "that are not JailBee's are never touched (C1, C11)"
	atf_set require.user root
	atf_set timeout 300
}
ops_scenario_body() {
	jb_image
	# jb-incus maps only its owner's ids, and the image's dev user is
	# 1000 (regress/setup-host lets root map 1000): the owner is 1000
	if ! getent passwd 1000 > /dev/null; then
		getent group 1000 > /dev/null || groupadd -g 1000 jbdev ||
		    atf_fail "cannot create group 1000"
		useradd --system --no-create-home --shell /usr/sbin/nologin \
		    -u 1000 -g 1000 jbdev || atf_fail "cannot create user 1000"
	fi
	atf_check -o match:"^# 0 failure\\(s\\)$" -e ignore \
	    env JB_IMAGE="$JB_IMAGE" \
	    "$(jb_build)/regress/integ/ops_driver" -j "$(jb_build)/jb-incus" \
	    -o "$(getent passwd 1000 | cut -d: -f1)"
}

atf_test_case status_reaches_incus cleanup
status_reaches_incus_head() {
	atf_set descr "jbctl status shows what Incus itself answered to" \
	    "jb-incus, as jb-incus's user"
	atf_set require.user root
}
status_reaches_incus_body() {
	jb_start
	version=$(incus version | awk '/^Server version/ { print $3 }')
	jbctl status -o json > s.json
	atf_check -o match:"^incus $version \\(api 1.0\\) at unix:/var/lib/incus/unix.socket, auth trusted$" \
	    jq -r '.processes[] | select(.name == "jb-incus") | .detail' s.json
}
status_reaches_incus_cleanup() { jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case client_scenario
	atf_add_test_case ops_scenario
	atf_add_test_case mountd_scenario
	atf_add_test_case exec_scenario
	atf_add_test_case status_reaches_incus
}
