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
# new on a cluster (cluster.member in jailbeed.yaml) on this machine's
# own incusd, which is not clustered, so every container is on this
# member: the clone comes through the git bridge (no checkout device),
# and host paths are refused unless new --target pins the container to
# this member.

. "$(atf_get_srcdir)/lib.sh"

# the suite as member m1 of a cluster
cl_setup() {
	JB_CONF_EXTRA=$(printf 'cluster:\n  member: m1')
	jb_start
	jb_tools
	jb_image
	jb_repo
}

has_device() { incus config device list "$1" | grep -qx "$2"; }

# the repo config: the prefix and image lib.sh gives, plus what is given
config() {
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$(jb_prefix)" "$JB_IMAGE"
		cat
	} > repo/.jailbee/config.yaml
	chown $JB_OWNER repo/.jailbee/config.yaml
}

atf_test_case bridge_clone cleanup
bridge_clone_head() {
	atf_set descr "on a cluster new makes no host-source disk: the" \
	    "branch and its history come through the git bridge, and the" \
	    "clone is the one the mount gives (branch, commits, origin at" \
	    "the upstream, the dev user's); destroy's guard asks the host" \
	    "through jb-gitd: it refuses a commit the host lacks until" \
	    "jbctl git fetch brings it"
	atf_set require.user root
	atf_set timeout 300
}
bridge_clone_body() {
	cl_setup
	p=$(jb_prefix)
	d=/home/dev/$p
	uid=$(id -u $JB_OWNER)

	# feat exists on the host: the clone is on it, at its commit
	atf_check -e save:new.err jbo repo new feat
	has_device $p-feat host-source &&
	    atf_fail "$p-feat has a host-source disk on a cluster"
	grep -q "cloning .* through the git bridge" new.err ||
	    atf_fail "new did not say the clone came through the git bridge"
	grep -q "ready: $p-feat" new.err || atf_fail "new did not say ready"
	atf_check -s not-exit:0 -e ignore in_ctr $p-feat test -e /mnt/host-source
	atf_check -o inline:"feat\n" \
	    in_ctr $p-feat git -C $d rev-parse --abbrev-ref HEAD
	atf_check -o inline:"$(git -c safe.directory="*" -C repo rev-parse feat)\n" \
	    in_ctr $p-feat git -C $d rev-parse HEAD
	atf_check -o inline:"2\n" in_ctr $p-feat git -C $d rev-list --count HEAD
	atf_check -o inline:"line 1\nline 2\n" in_ctr $p-feat cat $d/file
	atf_check -o inline:"https://git.example.org/team/repo.git\n" \
	    in_ctr $p-feat git -C $d remote get-url origin
	atf_check -o inline:"origin\n" \
	    in_ctr $p-feat git -C $d config branch.feat.remote
	atf_check -o inline:"refs/heads/feat\n" \
	    in_ctr $p-feat git -C $d config branch.feat.merge
	atf_check -o inline:"$uid\n$uid\n" in_ctr $p-feat stat -c %u $d/file $d/.git
	atf_check -o empty in_ctr $p-feat git -C $d status --porcelain
	# the bundle it came in is gone
	atf_check -s not-exit:0 in_ctr $p-feat test -e /home/dev/.jailbee-clone.bundle
	# nothing of its own yet: destroy's guard asks the host through
	# jb-gitd, which has every tip
	atf_check -e save:guard.err jbo repo new tmp
	atf_check -e ignore jbo repo destroy tmp
	atf_check -s not-exit:0 -e ignore incus info $p-tmp
	# a commit made inside: destroy refuses to lose it, naming it,
	# until jbctl git fetch has brought it to the host
	atf_check in_ctr $p-feat git -C $d -c user.name=t -c user.email=t@e \
	    commit -q --allow-empty -m inside
	sha=$(in_ctr $p-feat git -C $d rev-parse HEAD)
	atf_check -s exit:1 \
	    -e match:"destroy $p-feat: refused, it holds work the host does not have: branch feat: commit $sha is not on the host" \
	    jbo repo destroy feat
	atf_check -o ignore -e ignore jbo repo git fetch feat
	atf_check -e ignore jbo repo destroy feat
	atf_check -s not-exit:0 -e ignore incus info $p-feat

	# work is new: from the default branch, all of main's history
	atf_check -e match:"ready: $p-work" jbo repo new work
	atf_check -o inline:"work\n" \
	    in_ctr $p-work git -C $d rev-parse --abbrev-ref HEAD
	atf_check -o inline:"$(git -c safe.directory="*" -C repo rev-parse main)\n" \
	    in_ctr $p-work git -C $d rev-parse HEAD
	atf_check -o inline:"3\n" in_ctr $p-work git -C $d rev-list --count HEAD
}
bridge_clone_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case host_paths_refused cleanup
host_paths_refused_head() {
	atf_set descr "on a cluster --mount, host_mounts and jbctl mount are" \
	    "refused for a container not pinned to this member, naming the" \
	    "member and --target; --target on an Incus that is not" \
	    "clustered fails naming the option"
	atf_set require.user root
	atf_set timeout 300
}
host_paths_refused_body() {
	cl_setup
	w=$(pwd)
	p=$(jb_prefix)
	mkdir -p "$w/data"
	chown $JB_OWNER "$w/data"

	atf_check -s exit:1 \
	    -e match:"--mount \\(your working tree $w/repo\\): on a cluster a container may run on any member, and this path is on member m1 only: add --target m1 to new to pin $p-mnt there" \
	    jbo repo new mnt --mount
	config <<EOC
host_mounts:
  - host: $w/data
    container: /srv/data
EOC
	atf_check -s exit:1 \
	    -e match:"host_mounts $w/data \\(in $w/repo/.jailbee/config.yaml\\): on a cluster .* member m1 only: add --target m1 to new" \
	    jbo repo new hm
	atf_check -o empty incus list -c n --format csv "^$p-"

	# an optional mount of a container made without --target
	config <<EOC
optional_mounts:
  creds:
    host: $w/data
    container: /home/dev/.creds
    description: "test credential"
EOC
	atf_check -e match:"ready: $p-o" jbo repo new o
	atf_check -s exit:1 \
	    -e match:"optional_mounts.creds: on a cluster a container may run on any member, and this path is on member m1 only; $p-o was made without --target: make it again with new --target m1" \
	    jbo repo mount creds o
	has_device $p-o optional-creds &&
	    atf_fail "optional-creds was attached to $p-o"

	# this incusd is no cluster: Incus refuses the placement, new says
	# which option asked for it, and nothing is left
	atf_check -s exit:1 -e save:pinned.err \
	    jbo repo new pinned --target m1
	cat pinned.err >&2
	grep -q "new --target m1 asks Incus to place it on that cluster member" \
	    pinned.err || atf_fail "new --target m1 did not name the option"
	atf_check -s not-exit:0 -e ignore incus info $p-pinned
}
host_paths_refused_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case target_not_cluster cleanup
target_not_cluster_head() {
	atf_set descr "new --target without cluster.member is refused," \
	    "naming the option and the key"
	atf_set require.user root
	atf_set timeout 120
}
target_not_cluster_body() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	atf_check -s exit:1 \
	    -e match:"--target m2: this suite is not on a cluster \\(no cluster.member in .*jailbeed.yaml\\)" \
	    jbo repo new x --target m2
	atf_check -o empty incus list -c n --format csv "^$p-"
}
target_not_cluster_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_init_test_cases() {
	atf_add_test_case bridge_clone
	atf_add_test_case host_paths_refused
	atf_add_test_case target_not_cluster
}
