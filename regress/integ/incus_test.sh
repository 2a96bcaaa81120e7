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
	atf_check -o match:"^# 0 failure\\(s\\)$" -e ignore \
	    "$(jb_build)/regress/integ/incus_client" \
	    -m "$(atf_config_get srcdir)/regress/mkimage"
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
	atf_add_test_case status_reaches_incus
}
