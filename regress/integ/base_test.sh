#! /usr/bin/env atf-sh
#
# Base images on the real incusd (FEATURES C10): base import (jb-mountd
# opens the file as the owner, the fd goes through jailbeed to jb-incus,
# which streams it to Incus), new from the imported alias, base usage,
# base prune, the errors, and the image `jbctl base build` made for the
# tests (regress/base-image).  The container made from an imported image
# comes from the suite's own image, exported and given a fingerprint of
# this test's own (an empty gzip member appended, which leaves its content
# as it was).  The other fixtures of import and prune, which need several
# images of distinct fingerprints in a second and boot nothing, come from
# regress/mkfixture.

. "$(atf_get_srcdir)/lib.sh"

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	printf 'container_prefix: %s\nbase:\n  alias: %s-base\n' "$p" "$p" \
	    > repo/.jailbee/config.yaml
	chown $JB_OWNER repo/.jailbee/config.yaml
	mkdir -p img
	chmod 0755 img
}

# mkimg NAME N: a small image that does not boot, of this test's own
# fingerprint
mkimg() {
	SOURCE_DATE_EPOCH=$((1500000000 + $$ * 8 + $2)) \
	    "$(atf_config_get srcdir)/regress/mkfixture" img/$1.tar.gz ||
	    atf_fail "mkfixture $1"
	noted $1
}

# realimg NAME: the suite's own image as a file of this test's own
# fingerprint: the export with an empty gzip member appended, whose name
# is this test's pid
realimg() {
	atf_check -o ignore incus image export "$JB_IMAGE" img/$1.export
	[ -f img/$1.export.tar.gz ] || atf_fail "incus image export gave" \
	    "no unified tarball: $(ls img)"
	: > img/jbt$$
	{ cat img/$1.export.tar.gz; gzip -c img/jbt$$; } > img/$1.tar.gz
	rm -f img/$1.export.tar.gz img/jbt$$
	noted $1
}

noted() {
	chmod 0644 img/$1.tar.gz
	sha256sum img/$1.tar.gz | cut -d' ' -f1 > img/$1.fp
	echo "$(cat img/$1.fp)" >> fingerprints
}

fp() { cat img/$1.fp; }

# the owner's subordinate ids for an unshare-mode build: above Incus's
OWNER_SUBID=2000000000

usage_json() { jbo repo base usage -o json > usage.json; }

base_cleanup() {
	jb_containers_cleanup
	# what the aliases name, even when the test failed before noting it
	[ -f prefix ] && for a in "$(cat prefix)-base" "$(cat prefix)-tmp"; do
		incus image info "$a" 2>/dev/null |
		    sed -n 's/^Fingerprint: //p' >> fingerprints
		incus image alias delete "$a" > /dev/null 2>&1
	done
	[ -f fingerprints ] && for f in $(cat fingerprints); do
		incus image delete "$f" > /dev/null 2>&1
	done
	jb_cleanup
}

atf_test_case import_new_usage_prune cleanup
import_new_usage_prune_head() {
	atf_set descr "base import streams an image to Incus under the repo's" \
	    "alias, marked as the suite's; new uses it; usage lists it with" \
	    "its container; prune deletes only unused, unaliased suite images"
	atf_set require.user root
	atf_set timeout 600
}
import_new_usage_prune_body() {
	setup
	p=$(jb_prefix)
	realimg a
	mkimg b 2
	mkimg c 3
	mkimg d 4
	# import as the owner, under base.alias
	atf_check -e match:"importing .*img/a.tar.gz \\(gzip" \
	    -e match:"uploading" -e match:"imported $(fp a | cut -c1-12)" \
	    -e match:"alias $p-base -> $(fp a | cut -c1-12)" \
	    -e match:"image $(fp a | cut -c1-12) unpacked on storage pool" \
	    jbo repo base import "$(pwd)/img/a.tar.gz"
	atf_check -o inline:"$(fp a)\n" -x \
	    "incus image info $p-base | sed -n 's/^Fingerprint: //p'"
	# unpacked on the pool new uses (the default profile's, a
	# copy-on-write one in the tests), by a container already gone
	pool=$(incus profile device get default root pool)
	atf_check -o ignore incus storage volume show "$pool" image/$(fp a)
	atf_check -o empty -x "incus list -c n -f csv jailbee-warm-"
	atf_check -o match:'jailbee.suite: "1"' \
	    -o match:"jailbee.alias: $p-base" \
	    -o match:"description: JailBee base \\(Debian bookworm" \
	    incus image show $(fp a)
	# a container from it
	atf_check -e match:"creating $p-one from $p-base" -e match:"ready" \
	    jbo repo new one
	atf_check -o inline:"$(fp a)\n" \
	    incus config get $p-one volatile.base_image
	atf_check -o match:"one" in_ctr $p-one git -C /home/dev/$p \
	    branch --show-current
	# a relative name, as root, from inside the repo: the alias moves
	atf_check -e match:"alias $p-base -> $(fp b | cut -c1-12) \\(was $(fp a | cut -c1-12)\\)" \
	    -x "cd repo && ../bin/jbctl -s $(jb_sock) base import ../img/b.tar.gz"
	# again: Incus has it already, nothing is uploaded
	atf_check -e match:"Incus already holds image" \
	    -e not-match:"uploading" -e match:"already points at it" \
	    jbo repo base import "$(pwd)/img/b.tar.gz"
	# c under another alias that then goes; d imported behind our back
	atf_check -e match:"alias $p-tmp" \
	    jbo repo base import --alias $p-tmp "$(pwd)/img/c.tar.gz"
	atf_check incus image alias delete $p-tmp
	atf_check -o ignore incus image import img/d.tar.gz
	# usage: a is used by one, b carries the alias; d is no suite image
	# and no JailBee container uses it
	usage_json
	atf_check -o inline:"$p-one\n" -x "jq -r '.images[] |
	    select(.fingerprint == \"$(fp a)\") | .containers[]' usage.json"
	atf_check -o inline:"$p-base\n" -x "jq -r '.images[] |
	    select(.fingerprint == \"$(fp b)\") | .aliases[]' usage.json"
	atf_check -o inline:"true\n" -x "jq -r '.images[] |
	    select(.fingerprint == \"$(fp b)\") | .suite' usage.json"
	atf_check -o empty -x "jq -r '.images[] |
	    select(.fingerprint == \"$(fp d)\") | .fingerprint' usage.json"
	atf_check -o match:"^$(fp a | cut -c1-12) +- .* yes +$p +$p-one\$" \
	    -o match:"^$(fp b | cut -c1-12) +$p-base " jbo repo base usage
	# prune: only c goes
	atf_check -e match:"deleted image $(fp c | cut -c1-12)" \
	    -e not-match:"deleted image $(fp a | cut -c1-12)" \
	    -e not-match:"deleted image $(fp b | cut -c1-12)" \
	    -e not-match:"deleted image $(fp d | cut -c1-12)" \
	    jbo repo base prune
	atf_check -s not-exit:0 -o ignore -e ignore incus image info $(fp c)
	for f in $(fp a) $(fp b) $(fp d); do
		atf_check -o ignore incus image info $f
	done
	# the base image the tests use carries aliases: never pruned
	atf_check -o ignore incus image info $JB_IMAGE
	atf_check -e match:"nothing to prune" jbo repo base prune
	# once its container is gone, a goes too; d (not ours) stays
	atf_check incus delete --force $p-one
	atf_check -e match:"deleted image $(fp a | cut -c1-12)" \
	    jbo repo base prune
	atf_check -o ignore incus image info $(fp d)
	atf_check -o ignore incus image info $(fp b)
}
import_new_usage_prune_cleanup() { base_cleanup; }

atf_test_case import_errors cleanup
import_errors_head() {
	atf_set descr "base import refuses what is no image, with the file's" \
	    "name and what to do; the file is opened as the owner"
	atf_set require.user root
	atf_set timeout 300
}
import_errors_body() {
	setup
	p=$(jb_prefix)
	d=$(pwd)/img
	atf_check -s exit:1 -e match:"$d/nope.tar.gz: No such file" \
	    jbo repo base import $d/nope.tar.gz
	atf_check -s exit:1 -e match:"$d: not a regular file" \
	    jbo repo base import $d
	: > $d/empty.tar.gz
	chmod 0644 $d/empty.tar.gz
	atf_check -s exit:1 -e match:"$d/empty.tar.gz: the file is empty" \
	    jbo repo base import $d/empty.tar.gz
	echo "not an image at all" > $d/text
	chmod 0644 $d/text
	atf_check -s exit:1 -e match:"$d/text: not an Incus image" \
	    jbo repo base import $d/text
	# the owner cannot read it, so jb-mountd cannot, even for root
	mkimg a 1
	cp $d/a.tar.gz $d/secret.tar.gz
	chmod 0600 $d/secret.tar.gz
	atf_check -s exit:1 -e match:"$d/secret.tar.gz: Permission denied" \
	    -x "cd repo && ../bin/jbctl -s $(jb_sock) base import $d/secret.tar.gz"
	# larger than an image may be (sparse: no disk is used)
	printf '\037\213\010' > $d/huge.tar.gz
	truncate -s 9G $d/huge.tar.gz
	chmod 0644 $d/huge.tar.gz
	atf_check -s exit:1 -e match:"$d/huge.tar.gz: 9663676416 bytes is more" \
	    jbo repo base import $d/huge.tar.gz
	rm -f $d/huge.tar.gz
	atf_check -s exit:1 -e match:"not usable as an image alias" \
	    jbo repo base import --alias 'a/b' $d/a.tar.gz
	mkdir plain && chmod 0755 plain
	atf_check -s exit:1 -e match:"not inside a git checkout" \
	    jbo plain base import $d/a.tar.gz
	atf_check -s exit:1 -e match:"usage: jbctl base import FILE" \
	    jbo repo base import
	# unshare mode needs the owner's subordinate ids, which it lacks
	! grep -q "^$JB_OWNER:" /etc/subuid ||
	    atf_fail "/etc/subuid gives $JB_OWNER subordinate ids: this check needs an owner without them (remove its line)"
	atf_check -s exit:1 -e match:"/etc/subuid" \
	    env TMPDIR=/var/tmp jbo repo base build
}
import_errors_cleanup() { base_cleanup; }

atf_test_case real_build cleanup
real_build_head() {
	atf_set descr "the image jbctl base build made from the Debian mirror" \
	    "(regress/base-image) is a working dev environment: DHCP address," \
	    "route and resolver at boot, the tools, the dev user, git, sudo"
	atf_set require.user root
	atf_set timeout 600
}
real_build_body() {
	setup
	p=$(jb_prefix)
	printf 'container_prefix: %s\nbase:\n  alias: %s\n' "$p" "$JB_IMAGE" \
	    > repo/.jailbee/config.yaml
	atf_check -o match:'jailbee.suite: "1"' -o match:"os: debian" \
	    -o match:"description: JailBee base \\(Debian" \
	    incus image show $JB_IMAGE
	atf_check -e match:"ready: $p-deb" jbo repo new deb
	atf_check -o inline:"dev\n" in_ctr $p-deb id -un
	atf_check -o inline:"/home/dev\n" in_ctr $p-deb sh -c 'echo ~dev'
	atf_check -o inline:"root\n" in_ctr $p-deb sudo -n id -un
	atf_check -o match:"^tmux " in_ctr $p-deb tmux -V
	atf_check -o inline:"deb\n" in_ctr $p-deb git -C /home/dev/$p \
	    branch --show-current
	atf_check -o match:"^/bin/bash" in_ctr $p-deb sh -c 'getent passwd dev | cut -d: -f7'
	# real tools, not busybox applets
	for t in curl ip ps less ssh nc; do
		atf_check -o not-match:busybox -x \
		    "in_ctr $p-deb sh -c 'readlink -f \$(command -v $t)'"
	done
	atf_check -o match:"^curl " in_ctr $p-deb curl --version
	# the network came up at boot by DHCP: address, route, resolver
	jb_routed $p-deb
	atf_check -o match:"inet 10\\.213\\." in_ctr $p-deb ip -4 addr show eth0
	atf_check -o match:"^nameserver 10\\.213\\.0\\.1\$" \
	    in_ctr $p-deb cat /etc/resolv.conf
	atf_check -o inline:"$p-deb\n" in_ctr $p-deb cat /etc/hostname
	# a restart renews it all
	atf_check -o ignore -e ignore jbo repo restart deb
	jb_routed $p-deb
}
real_build_cleanup() { base_cleanup; }

atf_test_case new_builds_packages cleanup
new_builds_packages_head() {
	atf_set descr "a repo with base.packages gets an image of its own:" \
	    "new finds it missing and builds it (mmdebstrap, root mode) with" \
	    "the packages, recorded in the image's description, then makes" \
	    "the container from it; with docker.io, init runs dockerd and" \
	    "the dev user can use it (nesting is on)"
	atf_set require.user root
	atf_set timeout 1200
}
new_builds_packages_body() {
	setup
	p=$(jb_prefix)
	printf 'container_prefix: %s\nbase:\n  packages: [hello, docker.io]\n' "$p" \
	    > repo/.jailbee/config.yaml
	atf_check -o match:"alias: \"$p-base\"" -o match:"packages: \\[hello, docker.io\\]" \
	    jbo repo config show
	atf_check -s not-exit:0 -o ignore -e ignore incus image info $p-base
	ls -d /var/tmp/jailbee-base.* > workdirs.before 2>/dev/null
	atf_check -e match:"base image $p-base is missing: building it first with base.packages: hello docker.io" \
	    -e match:"\\[1/3\\] mmdebstrap: Debian .*base.packages: hello docker.io" \
	    -e match:"\\[3/3\\] importing" -e match:"alias $p-base -> " \
	    -e match:"ready: $p-pk" -e not-match:"jbctl: base image $p-base is missing: .jbctl base build" \
	    -x "cd repo && ../bin/jbctl -s $(jb_sock) new pk"
	incus image info $p-base | sed -n 's/^Fingerprint: //p' >> fingerprints
	# the build left no work directory behind
	ls -d /var/tmp/jailbee-base.* > workdirs.after 2>/dev/null
	atf_check -o empty diff workdirs.before workdirs.after
	atf_check -o match:"description: .JailBee base \\(Debian .*base.packages: hello docker.io\\)" \
	    -x "incus image show $p-base | tr '\\n' ' '"
	atf_check -o match:"^Hello, world" in_ctr $p-pk hello
	# dockerd, started by init once dev has the owner's ids, answers
	# jbctl exec (its socket is of dev's own group: Incus gives an exec
	# no supplementary groups); logins get group docker too
	i=0
	until jbo repo exec pk -- docker info > docker.out 2>&1; do
		i=$((i + 1))
		[ $i -lt 60 ] || { cat docker.out >&2; atf_fail "docker info" \
		    "as dev in $p-pk failed for 60 s"; }
		sleep 1
	done
	atf_check -o match:"Server Version: " -o match:"Storage Driver: " \
	    -o not-match:"[Ee]rror" cat docker.out
	atf_check -o match:"^dev\$" in_ctr $p-pk stat -c %G /run/docker.sock
	atf_check -o match:"^docker:.*[:,]dev(,|\$)" in_ctr $p-pk getent group docker
	# the image every other repo shares is not this one
	atf_check -o not-match:"^$(incus image info $p-base | sed -n 's/^Fingerprint: //p')\$" \
	    -x "incus image info jailbee-base | sed -n 's/^Fingerprint: //p'"
}
new_builds_packages_cleanup() { base_cleanup; }

atf_test_case owner_build cleanup
owner_build_head() {
	atf_set descr "base build run by the owner (not root) with subuid and" \
	    "subgid ranges builds in unshare mode and imports the image;" \
	    "no other local user can reach the tree being built; a failing" \
	    "step is named, and the subuid hint comes only when ranges are" \
	    "missing"
	atf_set require.user root
	atf_set timeout 900
}
owner_build_body() {
	setup
	p=$(jb_prefix)
	echo "$JB_OWNER:$OWNER_SUBID:65536" >> /etc/subuid
	echo "$JB_OWNER:$OWNER_SUBID:65536" >> /etc/subgid
	printf 'container_prefix: %s\nbase:\n  alias: %s-base\n' "$p" "$p" \
	    > repo/.jailbee/config.yaml
	ls -d /var/tmp/jailbee-base.* > before 2>/dev/null || true
	(env TMPDIR=/var/tmp jbo repo base build > build.out 2>&1
	    echo $? > build.rc) &
	builder=$!
	# while it builds: the tree's world-writable tmp is out of reach
	i=0
	w=
	while [ ! -f build.rc ]; do
		for d in /var/tmp/jailbee-base.*; do
			grep -qxF "$d" before || w=$d
		done
		[ -n "$w" ] && [ -d "$w/b/rootfs/var/tmp" ] && break
		i=$((i + 1))
		[ $i -lt 1800 ] || atf_fail "no build tree after 180 s"
		sleep 0.1
	done
	[ -n "$w" ] && [ -d "$w/b/rootfs/var/tmp" ] ||
	    { cat build.out >&2; atf_fail "the build ended before its tree was seen"; }
	atf_check -o inline:"$JB_OWNER 711\n" stat -c "%U %a" "$w"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    setpriv --reuid=$JB_OTHER --regid=$JB_OTHER --init-groups \
	    touch "$w/b/rootfs/var/tmp/planted"
	atf_check -s not-exit:0 -e match:"Permission denied" \
	    setpriv --reuid=$JB_OTHER --regid=$JB_OTHER --init-groups \
	    touch "$w/b/rootfs/tmp/planted"
	wait $builder
	cat build.out >&2
	atf_check -o inline:"0\n" cat build.rc
	atf_check -o match:"\\[1/3\\] mmdebstrap: Debian .*, unshare mode" \
	    -o match:"\\[3/3\\] importing" -o match:"alias $p-base -> " \
	    -o not-match:"subuid" cat build.out
	incus image info $p-base | sed -n 's/^Fingerprint: //p' >> fingerprints
	atf_check -o match:'jailbee.suite: "1"' \
	    -o match:"description: JailBee base \\(Debian" \
	    incus image show $p-base
	atf_check -o empty -x "ls -d /var/tmp/jailbee-base.* 2>/dev/null |
	    grep -vxF -f before || true"
	# a step that fails is named, with no word of subordinate ids
	printf 'container_prefix: %s\nbase:\n  alias: %s-tmp\n  packages: [jailbee-no-such-package]\n' \
	    "$p" "$p" > repo/.jailbee/config.yaml
	atf_check -s exit:1 -e match:"base build failed at \\[1/3\\] mmdebstrap" \
	    -e not-match:"subuid" env TMPDIR=/var/tmp jbo repo base build
	# without ranges: said before anything runs
	owner_build_cleanup_ids
	atf_check -s exit:1 -e match:"needs ranges for $JB_OWNER in /etc/subuid and /etc/subgid; /etc/subuid has none" \
	    -e not-match:"mmdebstrap:" env TMPDIR=/var/tmp jbo repo base build
}
owner_build_cleanup_ids() {
	sed -i "/^$JB_OWNER:$OWNER_SUBID:65536\$/d" /etc/subuid /etc/subgid
}
owner_build_cleanup() {
	owner_build_cleanup_ids
	base_cleanup
}

atf_init_test_cases() {
	atf_add_test_case import_new_usage_prune
	atf_add_test_case import_errors
	atf_add_test_case real_build
	atf_add_test_case new_builds_packages
	atf_add_test_case owner_build
}
