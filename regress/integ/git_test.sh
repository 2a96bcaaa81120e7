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
# The git bridge (G1): real host git and real git in a container made
# from the suite's image, talking git's pack protocol through
# git-remote-jailbee, jailbeed and jb-incus's exec.  What the container
# commits reaches refs/jailbee/ on the host, and a host branch only by a
# fast-forward asked for; what the container plants runs nowhere on the
# host.

. "$(atf_get_srcdir)/lib.sh"

# and two more helpers atf_check can run: hg DIR ARGS (host git as the
# owner), cg C ARGS (git as the dev user in the container's clone)
setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	cat > bin/hg <<EOS
#!/bin/sh
d=\$1
shift
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME=/nonexistent git -C "\$d" "\$@"
EOS
	cat > bin/cg <<EOS
#!/bin/sh
c=\$1
shift
exec in_ctr "\$c" git -C /home/dev/$(jb_prefix) \\
    -c user.email=dev@example.org -c user.name=dev "\$@"
EOS
	chmod 0755 bin/hg bin/cg
}

atf_test_case fetch_pull_push cleanup
fetch_pull_push_head() {
	atf_set descr "a commit made in a container: fetch puts it in" \
	    "refs/jailbee/ and counts it, log and diff show it, pull" \
	    "fast-forwards, pull --into moves another branch, a diverged pull" \
	    "is refused with nothing changed, push reaches the clone, checkout" \
	    "makes a new branch, and destroy needs no --force once fetched"
	atf_set require.user root
	atf_set timeout 600
}
fetch_pull_push_body() {
	setup
	p=$(jb_prefix)
	c=$p-work
	atf_check -e ignore jbo repo new work
	base=$(hg repo rev-parse main)

	# one commit in the container
	in_ctr $c sh -c "echo inside > /home/dev/$p/made-inside"
	atf_check cg $c add made-inside
	atf_check cg $c commit -q -m "made inside"
	sha=$(cg $c rev-parse HEAD)
	atf_check -s exit:1 -e match:"commit $sha is not on the host" \
	    jbo repo destroy work

	# fetch: the ref, what moved, and no host branch touched
	atf_check -o match:"^work's work -> refs/jailbee/work/work: 1 new commit, [1-9][0-9]* objects?, [1-9][0-9]* bytes received" \
	    jbo repo git fetch work
	atf_check -o inline:"$sha\n" hg repo rev-parse refs/jailbee/work/work
	atf_check -o inline:"$base\n" hg repo rev-parse main
	atf_check -o empty hg repo for-each-ref refs/heads/work refs/tags
	# fetched again: nothing new
	atf_check -o match:": 0 new commits, 0 objects" jbo repo git fetch work

	# log and diff: what the container has that HEAD does not
	atf_check -o match:"made inside" -e ignore jbo repo git log work
	atf_check -o match:"^\+inside\$" -e ignore jbo repo git diff work
	atf_check -o inline:"$base\n" hg repo rev-parse main

	# pull --into a branch not checked out: feat fast-forwards
	atf_check -o match:"^feat: .* \(fast-forward to work's work\)" \
	    -e ignore jbo repo git pull work --into feat
	atf_check -o inline:"$sha\n" hg repo rev-parse feat
	atf_check -o inline:"refs/heads/main\n" hg repo symbolic-ref HEAD
	atf_check -s exit:1 -e match:"main is checked out here" \
	    jbo repo git pull work --into main

	# pull: a dirty tree is refused first, then main fast-forwards
	echo dirty >> repo/file
	atf_check -s exit:1 -e match:"uncommitted changes.*--into" \
	    jbo repo git pull work
	hg repo checkout -q file
	atf_check -o match:"^main: .*fast-forward" -e ignore \
	    jbo repo git pull work
	atf_check -o inline:"$sha\n" hg repo rev-parse main
	atf_check -o inline:"inside\n" cat repo/made-inside

	# fetched: destroy's guard counts it as the host's
	# (checked below, once the rest is done)

	# diverged: the host and the container both commit
	hg repo -c user.email=h@example.org -c user.name=h commit -q \
	    --allow-empty -m "on the host"
	host=$(hg repo rev-parse main)
	atf_check cg $c commit -q --allow-empty -m "diverging inside"
	atf_check -s exit:1 -e match:"have diverged: not a fast-forward, nothing changed" \
	    -e match:"jbctl git fetch work" -e match:"--into" \
	    jbo repo git pull work
	atf_check -o inline:"$host\n" hg repo rev-parse main
	atf_check -o empty hg repo status --porcelain --untracked-files=no
	hg repo branch side main
	atf_check -s exit:1 -e match:"side and the container's work have diverged" \
	    jbo repo git pull work --into side
	atf_check -o inline:"$host\n" hg repo rev-parse side

	# checkout: the container's branch as a new host branch
	atf_check -s exit:1 -e match:"a branch feat exists here; name another with --as" \
	    jbo repo git checkout work --as feat
	atf_check -o match:"on new branch took at" -e ignore \
	    jbo repo git checkout work --as took
	atf_check -o inline:"refs/heads/took\n" hg repo symbolic-ref HEAD
	atf_check -o inline:"$(cg $c rev-parse HEAD)\n" hg repo rev-parse took
	hg repo checkout -q main

	# push: a host branch into the clone, seen by git log there
	hg repo checkout -q -b topic
	hg repo -c user.email=h@example.org -c user.name=h commit -q \
	    --allow-empty -m "pushed from the host"
	atf_check -o match:"topic -> work's topic" -e ignore \
	    jbo repo git push work
	atf_check -o match:"pushed from the host" cg $c log -1 topic
	# the container's checked-out branch, with a dirty tree: refused
	hg repo checkout -q -b work took
	hg repo -c user.email=h@example.org -c user.name=h commit -q \
	    --allow-empty -m "for the checked-out branch"
	in_ctr $c sh -c "echo wip >> /home/dev/$p/file"
	before=$(cg $c rev-parse HEAD)
	atf_check -s exit:1 -e match:"push work: the container refused work" \
	    -e ignore jbo repo git push work work
	atf_check -o inline:"$before\n" cg $c rev-parse HEAD
	# clean, it moves, tree and all
	atf_check cg $c checkout -q file
	atf_check -o ignore -e ignore jbo repo git push work work
	atf_check -o match:"for the checked-out branch" cg $c log -1
	atf_check -o empty cg $c status --porcelain
	hg repo checkout -q main

	# everything the container has is fetched: destroy needs no --force
	atf_check -o ignore jbo repo git fetch work
	atf_check -e ignore jbo repo destroy work
	atf_check -o empty incus list -c n --format csv "^$c\$"
}
fetch_pull_push_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case refusals cleanup
refusals_head() {
	atf_set descr "the git bridge refuses a stopped container, a bad" \
	    "branch name and an unknown container, naming each; git's own" \
	    "git fetch jailbee::NAME works by hand; a transfer over its byte" \
	    "limit stops and leaves no ref and no temporary pack"
	atf_set require.user root
	atf_set timeout 600
}
refusals_body() {
	setup
	p=$(jb_prefix)
	c=$p-work
	atf_check -e ignore jbo repo new work
	atf_check -s exit:1 -e match:"nothing-here: no such container" \
	    jbo repo git fetch nothing-here
	atf_check -s exit:1 -e match:"\"bad..name\" is not a branch name" \
	    jbo repo git fetch work bad..name
	atf_check -s exit:1 -e match:"\"-x\" is not a branch name" \
	    jbo repo git fetch work -- -x
	# by hand: git's own fetch, with the helper on PATH
	in_ctr $c sh -c "cd /home/dev/$p && git -c user.email=a@b -c user.name=n \
	    commit -q --allow-empty -m byhand"
	sha=$(in_ctr $c git -C /home/dev/$p rev-parse HEAD)
	atf_check -e ignore setpriv --reuid=$JB_OWNER --regid=$JB_OWNER \
	    --init-groups env HOME=/nonexistent PATH="$(pwd)/bin:$PATH" \
	    JAILBEE_SOCKET="$(jb_sock)" git -C repo fetch -q jailbee::work \
	    refs/heads/work:refs/jailbee/byhand
	atf_check -o inline:"$sha\n" hg repo rev-parse refs/jailbee/byhand
	# a big blob over a small limit: refused, and nothing half-written
	in_ctr $c sh -c "cd /home/dev/$p && head -c 3000000 /dev/urandom > big && \
	    git add big && git -c user.email=a@b -c user.name=n commit -q -m big"
	atf_check -s exit:1 -e match:"more than 100000 bytes: the limit" \
	    -e match:"no ref moved on the host" \
	    -x "JAILBEE_GIT_MAX_BYTES=100000 jbo repo git fetch work"
	atf_check -s exit:1 -o empty hg repo rev-parse -q --verify \
	    refs/jailbee/work/work
	atf_check -o empty -x "ls repo/.git/objects/pack | grep tmp_ || true"
	# a stopped container: named, with what to do
	atf_check -e ignore jbo repo stop --force work
	atf_check -s exit:1 -e match:"is Stopped: start it first \(jbctl start work\)" \
	    jbo repo git fetch work
}
refusals_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case hostile cleanup
hostile_head() {
	atf_set descr "what a container plants runs nowhere on the host," \
	    "where plain git runs each: core.fsmonitor a mount-mode container" \
	    "writes in the host's .git, a filter and a diff driver its" \
	    ".gitattributes names, a hooks directory it commits for a host" \
	    "that uses one, a .gitmodules update command; a new submodule is" \
	    "skipped with a warning and the rest transfers"
	atf_set require.user root
	atf_set timeout 600
}
hostile_body() {
	setup
	p=$(jb_prefix)
	c=$p-work
	m=/tmp/jbgit-mark-$$
	echo $m > marker
	atf_check -e ignore jbo repo new work
	# the owner's own configuration names a filter, a diff driver and a
	# hooks directory in the tree, as projects do
	hg repo config filter.evil.smudge "touch $m-filter; cat"
	hg repo config filter.evil.clean cat
	hg repo config diff.evil.textconv "sh -c 'touch $m-textconv; cat \$1' -"
	hg repo config core.hooksPath .githooks
	# a mount-mode container of the repo writes the host's .git/config:
	# an fsmonitor command, which host git runs whenever it reads the
	# index (pull and checkout do)
	d=/home/dev/$p
	atf_check -e ignore jbo repo new --mount mnt
	atf_check in_ctr $p-mnt git -C $d config core.fsmonitor "touch $m-fsmonitor"
	atf_check -o inline:"touch $m-fsmonitor\n" hg repo config core.fsmonitor
	# the container plants what it can in its commits ...
	in_ctr $c sh -c "
	    mkdir -p $d/.githooks &&
	    printf '#!/bin/sh\ntouch $m-treehook\n' > $d/.githooks/post-merge &&
	    cp $d/.githooks/post-merge $d/.githooks/post-checkout &&
	    chmod +x $d/.githooks/* &&
	    printf '* filter=evil diff=evil\n' > $d/.gitattributes &&
	    echo payload > $d/payload"
	# (the container's own git now runs its fsmonitor: stderr ignored)
	atf_check -e ignore cg $c add .gitattributes .githooks payload
	atf_check -e ignore cg $c commit -q -m planted
	# ... and the host takes all of it
	atf_check -o ignore jbo repo git fetch work
	atf_check -o ignore -e ignore jbo repo git log work
	atf_check -o match:"payload" -e ignore jbo repo git diff work
	atf_check -o ignore -e ignore jbo repo git pull work
	atf_check -o inline:"payload\n" cat repo/payload
	atf_check -o ignore -e ignore jbo repo git checkout work --as again
	for w in filter textconv fsmonitor treehook; do
		[ ! -e $m-$w ] || atf_fail "the container's $w ran on the host"
	done
	# control: plain host git, with the same configuration and tree,
	# runs each of them
	atf_check -o ignore -e ignore hg repo status
	rm -f repo/payload
	atf_check -o ignore -e ignore hg repo checkout -- payload
	atf_check -o ignore -e ignore env TMPDIR=/tmp hg repo diff \
	    refs/jailbee/work/work~1 refs/jailbee/work/work -- payload
	atf_check -o ignore -e ignore hg repo checkout -q -b probe
	for w in filter textconv fsmonitor treehook; do
		[ -e $m-$w ] || atf_fail "control: plain git did not run $w"
		rm -f $m-$w
	done
	atf_check -o ignore -e ignore hg repo checkout -q main
	atf_check hg repo config --unset core.fsmonitor

	# a new submodule: skipped with a warning, the rest transfers
	in_ctr $c sh -c "cd $d &&
	    git update-index --add --cacheinfo 160000,$(hg repo rev-parse main),sub &&
	    printf '[submodule \"sub\"]\n\tpath = sub\n\turl = https://git.example.org/sub.git\n' > .gitmodules &&
	    echo more > more"
	atf_check -e ignore cg $c add .gitmodules more
	atf_check -e ignore cg $c commit -q -m "a submodule"
	atf_check -o match:"fast-forward" \
	    -e match:"warning: work adds submodule sub: skipped" \
	    jbo repo git pull work
	atf_check -o inline:"more\n" cat repo/more
	atf_check -o empty -x "ls -A repo/sub 2>/dev/null; true"

	# a .gitmodules whose update runs a command: fsck refuses the fetch
	in_ctr $c sh -c "cd $d && printf '[submodule \"sub\"]\n\tpath = sub\n\turl = https://git.example.org/sub.git\n\tupdate = !touch $m-submodule\n' > .gitmodules"
	atf_check -e ignore cg $c commit -q -a -m "update command"
	old=$(hg repo rev-parse refs/jailbee/work/work)
	atf_check -s exit:1 -e match:"gitmodulesUpdate" \
	    -e match:"no ref moved on the host" jbo repo git fetch work
	atf_check -o inline:"$old\n" hg repo rev-parse refs/jailbee/work/work
	[ ! -e $m-submodule ] || atf_fail "the .gitmodules command ran"
}
hostile_cleanup() {
	[ ! -f marker ] || rm -f "$(cat marker)"-*
	jb_containers_cleanup
	jb_cleanup
}

atf_init_test_cases() {
	atf_add_test_case fetch_pull_push
	atf_add_test_case refusals
	atf_add_test_case hostile
}
