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
# jbctl doctor (D1) on a real suite: no FAIL when all is well, and each
# injected fault gives its own FAIL with the fix: a token file open to
# group/other, a dev user id /etc/subuid gives root no range for, the
# kernel's table gone from under jb-netd, a declared forward missing.

. "$(atf_get_srcdir)/lib.sh"

setup() {
	jb_owner_home
	jb_start
	jb_tools
	jb_image
	jb_repo
	# status_of CHECK: its status in ./doctor.json (a program, for
	# atf_check)
	cat > bin/status_of <<'EOS'
#!/bin/sh
exec jq -r ".checks[] | select(.check == \"$1\") | .status" doctor.json
EOS
	chmod 0755 bin/status_of
}

cleanup() {
	jb_containers_cleanup
	jb_cleanup
	jb_owner_home_restore
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

atf_test_case healthy_then_faults cleanup
healthy_then_faults_head() {
	atf_set descr "doctor on a healthy suite with a running container" \
	    "and its declared forward: no FAIL, exit 0, every check named" \
	    "in -o json; then on the same suite each injected fault gives" \
	    "its FAIL and the fix, and exit 1: a 0644 token file, a dev uid" \
	    "with no subuid range, a declared forward removed by hand, the" \
	    "nft table deleted (D1)"
	atf_set require.user root
	atf_set timeout 300
}
healthy_then_faults_body() {
	setup
	p=$(jb_prefix)
	config <<EOC
host_ports:
  - {name: web, port: 18000, host_port: 18001}
EOC
	atf_check -o ignore -e match:"ready: $p-d" jbo repo new d
	# healthy
	atf_check -o match:"^PASS  processes" -o match:"^PASS  incusd +reachable: Incus [0-9]" \
	    -o match:"^PASS  bridge" -o match:"^PASS  nft table" \
	    -o match:"^PASS  subuid" -o match:"^PASS  base image" \
	    -o match:"^PASS  containers +1 running" -o not-match:"^FAIL" \
	    jbo repo doctor
	jbo repo doctor -o json > doctor.json || atf_fail "doctor -o json failed"
	for c in processes subuid subgid journal "host git repo" \
	    container_user "global config" "host-local config" incusd bridge \
	    "nft table" "base image" containers; do
		atf_check -o inline:"PASS\n" status_of "$c"
	done
	atf_check -o inline:"0\n" jq '[.checks[] | select(.status == "FAIL")] | length' doctor.json
	# a token file others may read
	l=ownerhome/.config/jailbee/repos
	mkdir -p $l
	printf 'github:\n  token: github_pat_x\n' > $l/$p.yaml
	chown -R $JB_OWNER ownerhome/.config
	chmod 0644 $l/$p.yaml
	atf_check -s exit:1 -o match:"^FAIL  host-local config +.*$p.yaml is open to group/other \\(mode 0644\\)" \
	    -o match:"fix: chmod 600 .*$p.yaml" \
	    -e match:"doctor: 1 check\\(s\\) FAIL" jbo repo doctor
	chmod 0600 $l/$p.yaml
	atf_check -o not-match:"^FAIL" jbo repo doctor
	# a declared forward gone
	atf_check -o ignore incus config device remove $p-d port-cfg-web
	atf_check -s exit:1 -o match:"^FAIL  port forwards +$p-d lacks port-cfg-web, which host_ports declares" \
	    -o match:"fix: jbctl apply $p-d" -e ignore jbo repo doctor
	atf_check -e ignore jbo repo apply d
	atf_check -o not-match:"^FAIL" jbo repo doctor
	# a dev user id root may not map
	config <<EOC
container_user: {uid: 2100000000, gid: 2100000000}
EOC
	atf_check -s exit:1 -o match:"^FAIL  subuid +/etc/subuid gives root no range" \
	    -o match:"fix: add the line root:2100000000:1 to /etc/subuid" \
	    -o match:"^FAIL  subgid" -e ignore jbo repo doctor
	config < /dev/null
	# a container's element gone from the bridge table: its port sends
	# nothing, and doctor names it
	addr=$(incus list -c 4 -f csv "^$p-d\$" | cut -d' ' -f1)
	el=$(nft list set bridge jailbee ports |
	    grep -o "\"jbc[0-9a-f]*\" \. [0-9a-f:]* \. $addr\b")
	[ -n "$el" ] || atf_fail "no element of $p-d ($addr) in the bridge table"
	atf_check nft delete element bridge jailbee ports "{ $el }"
	atf_check -s exit:1 -o match:"^FAIL  nft table +1 of [0-9]+ containers have no element in table bridge jailbee, so their ports send nothing: $p-d" \
	    -o match:"fix: restart the suite" -e ignore jbo repo doctor
	# the kernel's table gone from under jb-netd
	atf_check nft delete table inet jailbee
	jbo repo doctor -o json > doctor.json
	atf_check -o inline:"FAIL\n" status_of "nft table"
	atf_check -o match:"missing from the kernel" jq -r \
	    '.checks[] | select(.check == "nft table") | .detail' doctor.json
}
healthy_then_faults_cleanup() { cleanup; }

atf_test_case mount_roots cleanup
mount_roots_head() {
	atf_set descr "doctor fails a remote.ssh.mount_roots entry that does" \
	    "not exist and one inside a read-write mount of a container," \
	    "naming the mount and the fix (D1, the seed's mount_roots rule)"
	atf_set require.user root
	atf_set timeout 300
}
mount_roots_body() {
	w=$(realpath .)
	JB_CONF_EXTRA="remote:
  ssh:
    listen: \"off\"
    mount_roots:
      - path: $w/missing
      - path: $w/rw/inner
      - path: $w/fine"
	setup
	p=$(jb_prefix)
	mkdir -p rw/inner fine
	chown -R $JB_OWNER rw fine
	config <<EOC
host_mounts:
  - host: $w/rw
    container: /home/dev/rw
EOC
	atf_check -o ignore -e match:"ready: $p-d" jbo repo new d
	atf_check -s exit:1 \
	    -o match:"^FAIL  mount_roots +$w/missing: no such directory" \
	    -o match:"fix: create $w/missing or remove it from remote.ssh.mount_roots" \
	    -o match:"^FAIL  mount_roots +$w/rw/inner lies in $w/rw, mounted read-write into $p-d \\(host-0\\)" \
	    -o match:"fix: make host-0 of $p-d read-only, or remove the root" \
	    -o not-match:"$w/fine" -e match:"doctor: 2 check\\(s\\) FAIL" \
	    jbo repo doctor
}
mount_roots_cleanup() { cleanup; }

atf_test_case github cleanup
github_head() {
	atf_set descr "the original's github settings: global.yaml's" \
	    "github.enabled and legacy api_tokens map load; doctor fails a" \
	    "global.yaml holding tokens open to group/other, names the" \
	    "token's file, reminds of the read-only scope it cannot verify," \
	    "and fails a token that is not fine-grained"
	atf_set require.user root
	atf_set timeout 300
}
github_body() {
	setup
	p=$(jb_prefix)
	config < /dev/null
	g=ownerhome/.config/jailbee
	mkdir -p $g/repos
	printf 'github:\n  enabled: true\n  api_tokens:\n    %s: github_pat_legacy\n' \
	    $p > $g/global.yaml
	chown -R $JB_OWNER ownerhome/.config
	chmod 0644 $g/global.yaml
	gabs=$(pwd)/$g/global.yaml
	atf_check -s exit:1 \
	    -o match:"^FAIL  global config +$gabs is open to group/other \\(mode 0644\\) and may hold a GitHub token" \
	    -o match:"fix: chmod 600 $gabs" \
	    -o match:"^PASS  github +enabled, api.github.com:443 allowed; a fine-grained token from $gabs" \
	    -o match:"^WARN  github token scope +JailBee cannot see a token's permissions and never asks GitHub" \
	    -o match:"fix: on github.com, give the token Contents, Issues, Pull requests and Metadata set to Read" \
	    -e match:"doctor: 1 check\\(s\\) FAIL" jbo repo doctor
	# the load itself warns, and goes on
	atf_check -o match:"enabled: true" -o not-match:"github_pat" \
	    -e match:"warning: $gabs is open to group/other" \
	    jbo repo config show
	chmod 0600 $g/global.yaml
	atf_check -o not-match:"^FAIL" -o match:"^PASS  global config" \
	    jbo repo doctor
	# a classic token in the host-local file, which wins
	printf 'github:\n  token: ghp_classic\n' > $g/repos/$p.yaml
	chown $JB_OWNER $g/repos/$p.yaml
	chmod 0600 $g/repos/$p.yaml
	labs=$(pwd)/$g/repos/$p.yaml
	atf_check -s exit:1 \
	    -o match:"^FAIL  github +the token in $labs is not a fine-grained personal access token" \
	    -o match:"fix: create a fine-grained token" \
	    -e match:"doctor: 1 check\\(s\\) FAIL" jbo repo doctor
	# a token with the integration off: no container gets it
	printf 'github:\n  enabled: false\n' > $g/global.yaml
	atf_check -o match:"^WARN  github +a token is set in $labs but github.enabled is not true" \
	    -o not-match:"^FAIL" -o not-match:"github token scope" jbo repo doctor
}
github_cleanup() { cleanup; }

atf_init_test_cases() {
	atf_add_test_case healthy_then_faults
	atf_add_test_case mount_roots
	atf_add_test_case github
}
