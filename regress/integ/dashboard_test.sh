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
# jbctl dashboard as the owner uses it: in a terminal (tmux), keys sent
# with send-keys and the screen read with capture-pane, against the real
# suite and the suite's own image.

. "$(atf_get_srcdir)/lib.sh"

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
}

# the dashboard of the test's repo, as the owner, in tmux session $sess
dash_open() {
	sess=jbdash$$
	echo $sess > tmux-session
	tmux new-session -d -s $sess -x 200 -y 50 \
	    "cd repo && setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups env HOME=/nonexistent TERM=xterm LANG=C.UTF-8 $(pwd)/bin/jbctl -s $(jb_sock) dashboard; echo jbctl-exit=\$?; sleep 60"
	jb_tmux_wait $sess screen.start 'JailBee dashboard' 20 ||
	    { cat screen.start; atf_fail "the dashboard did not draw"; }
}


atf_test_case new_and_countdown cleanup
new_and_countdown_head() {
	atf_set descr "n makes a container (the name asked) and its row" \
	    "appears; l with 25s shows a loose countdown that decreases and" \
	    "turns strict at the deadline, by jailbeed's event; a branch and" \
	    "an agent window title with escape sequences are drawn as text;" \
	    "--all shows every registered repo's rows"
	atf_set require.user root
	atf_set timeout 400
}
new_and_countdown_body() {
	setup
	p=$(jb_prefix)
	c=$p-dsh
	dash_open
	wait_screen screen.empty 'no containers'
	tmux send-keys -t $sess n
	wait_screen screen.ask 'its name'
	tmux send-keys -t $sess dsh Enter
	wait_screen screen.new "^$c +Running" 240
	row_of $c screen.new | grep -Eq ' strict ' ||
	    { cat screen.new; atf_fail "a new container's row is not strict"; }
	row_of $c screen.new | grep -Eq ' 10\.[0-9.]+ +dsh ' ||
	    { cat screen.new; atf_fail "the row lacks address and branch"; }

	# loose for 25 s: the row counts down, then jb-netd's revert at the
	# deadline reaches the screen without a key
	tmux send-keys -t $sess l
	wait_screen screen.lask 'loose for'
	tmux send-keys -t $sess 25s Enter
	wait_screen screen.l1 "^$c +Running +loose 2[0-9]s" 20
	t1=$(row_of $c screen.l1 | sed -E 's/.*loose ([0-9]+)s.*/\1/')
	sleep 3
	wait_screen screen.l2 "^$c +Running +loose 1?[0-9]s" 10
	t2=$(row_of $c screen.l2 | sed -E 's/.*loose ([0-9]+)s.*/\1/')
	[ "$t2" -lt "$t1" ] ||
	    { cat screen.l1 screen.l2; atf_fail "the countdown did not decrease ($t1 then $t2)"; }
	wait_screen screen.strict "^$c +Running +strict " 40
	jbo repo ls -o json | jq -e ".containers[] | select(.name == \"$c\") | .net == \"strict\"" > /dev/null ||
	    atf_fail "jailbeed does not say strict"

	# nothing counts down now and nothing changes: the dashboard sleeps
	# (a clock would wake it each second: a context switch each time)
	pid=$(pgrep -n -f "bin/jbctl -s $(jb_sock) dashboard\$") ||
	    atf_fail "no dashboard process"
	w0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$pid/status)
	sleep 5
	w1=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$pid/status)
	[ $((w1 - w0)) -le 1 ] ||
	    atf_fail "the idle dashboard woke $((w1 - w0)) times in 5 s"

	# a branch the dashboard draws: bytes that would steer the terminal
	incus config set $c user.jailbee.branch "$(printf 'ev\033[31mRED\033]0;pwn\007\302\233x')"
	tmux send-keys -t $sess g
	# ESC, BEL and each byte of the C1 CSI become ?, in the row (cut
	# to its column) and whole in the panel's title
	wait_screen screen.esc "^$c: Running, branch ev\\?\\[31mRED\\?\\]0;pwn\\?\\?\\?x, base main" 10
	row_of $c screen.esc | grep -q ' ev?\[31mRED?\]0;pwn??? ' ||
	    { cat screen.esc; atf_fail "the row does not draw the branch as text"; }
	# a window title the container chose, in its tmux session autostart
	in_ctr $c tmux new-session -d -s autostart -n "$(printf 'w\033[31mX\033]2;t\007')" sleep 300
	tmux send-keys -t $sess g
	wait_screen screen.win "^$c .* w\\?\\[31mX\\?\\]2;t\\? " 15
	tmux capture-pane -e -p -t $sess > screen.raw
	if LC_ALL=C grep -q "$(printf '\033')\\[31m" screen.raw; then
		cat -v screen.raw
		atf_fail "the branch's escape sequence reached the terminal"
	fi
	if LC_ALL=C grep -q "$(printf '\302\233')" screen.raw; then
		cat -v screen.raw
		atf_fail "a C1 CSI reached the terminal"
	fi
	tmux send-keys -t $sess q
	wait_screen screen.quit 'jbctl-exit=0' 10

	# --all from outside any checkout: every registered repo's rows
	tmux kill-session -t $sess
	sess=jbdashall$$
	echo $sess > tmux-session
	tmux new-session -d -s $sess -x 200 -y 50 \
	    "cd / && setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups env HOME=/nonexistent TERM=xterm LANG=C.UTF-8 $(pwd)/bin/jbctl -s $(jb_sock) dashboard --all; echo jbctl-exit=\$?; sleep 60"
	wait_screen screen.all "^$c +Running +strict " 20
	grep -q 'JailBee dashboard (every repo)' screen.all ||
	    { cat screen.all; atf_fail "--all does not say so"; }
}
new_and_countdown_cleanup() { jb_screen_cleanup; }

atf_test_case refused_allow_destroy cleanup
refused_allow_destroy_head() {
	atf_set descr "a name refused inside shows in the row and the panel" \
	    "within seconds (jb-netd's notice, not its minute summary);" \
	    "a shows the net egress add it runs and, confirmed, admits it;" \
	    "D on a container with a commit the host lacks shows the guard's" \
	    "refusal whole and leaves it; f and p --into bring the commit to a" \
	    "host branch, and D then destroys it and its row goes"
	atf_set require.user root
	atf_set timeout 400
}
refused_allow_destroy_body() {
	# the users' timers: jb-netd's refusals summary comes once a minute,
	# so a refusal on the screen within seconds is jb-netd's notice
	JB_TEST_SWITCH=
	setup
	p=$(jb_prefix)
	c=$p-ref
	atf_check -e ignore jbo repo new ref
	dash_open
	wait_screen screen.row "^$c +Running"
	# a name no entry allows: the resolver refuses it, jb-netd counts it
	in_ctr $c curl -s -m 5 http://blocked-dash.example.org/ > /dev/null 2>&1
	wait_screen screen.refused "^$c .*blocked-dash\\.example\\.org" 3
	wait_screen screen.panel "^refused +dns +blocked-dash\\.example\\.org +x[0-9]+ +allow: blocked-dash\\.example\\.org" 10
	tmux send-keys -t $sess a
	# more than one refusal (the resolver's search domain too): a list
	# numbers them, and the prompt asks which
	if jb_tmux_wait $sess screen.list 'next prompt asks which' 5; then
		n=$(sed -nE 's/^([1-9])  blocked-dash\.example\.org  x.*/\1/p' screen.list)
		[ -n "$n" ] || { cat screen.list; atf_fail "the refusal is not listed"; }
		tmux send-keys -t $sess Space
		wait_screen screen.which 'allow which' 10
		tmux send-keys -t $sess "$n" Enter
	fi
	wait_screen screen.confirm "run: jbctl net egress add blocked-dash\\.example\\.org $c \\? \\[y/N\\]" 10
	tmux send-keys -t $sess y
	wait_screen screen.allowed "^allow +blocked-dash\\.example\\.org +\\(container\\)" 20
	atf_check -o match:"blocked-dash\\.example\\.org" jbo repo net egress ls ref
	jb_audit_has '.action == "net.egress.add" and .container == $c' --arg c $c ||
	    atf_fail "the allow key's net egress add is not in the journal"

	# work only the container has: destroy is refused, the guard's text
	# shown whole
	in_ctr $c sh -c "cd /home/dev/$p && git -c user.email=a@b -c user.name=n \
	    commit -q --allow-empty -m inside"
	tmux send-keys -t $sess D
	wait_screen screen.dconfirm "destroy $c\\? \\[y/N\\]" 10
	tmux send-keys -t $sess y
	wait_screen screen.guard "branch ref: commit [0-9a-f]+ is not on the host" 60
	grep -q "destroy: refused or failed" screen.guard ||
	    { cat screen.guard; atf_fail "the box does not say destroy was refused"; }
	atf_check -o match:"RUNNING" incus list -c s --format csv "^$c\$"

	# f fetches the work, p pulls it --into a host branch; destroy then
	# goes through and the row goes with the container
	tmux send-keys -t $sess Space
	tmux send-keys -t $sess f
	wait_screen screen.fetch "^git fetch: done" 60
	tmux send-keys -t $sess p
	wait_screen screen.pask 'pull into which host branch' 10
	tmux send-keys -t $sess landed Enter
	wait_screen screen.pull "^git pull: done" 60
	inside=$(in_ctr $c git -C /home/dev/$p rev-parse HEAD)
	atf_check -o inline:"$inside\n" git -c safe.directory="*" -C repo rev-parse landed
	tmux send-keys -t $sess D
	wait_screen screen.dconfirm2 "destroy $c\\? \\[y/N\\]" 10
	tmux send-keys -t $sess y
	wait_screen screen.gone 'no containers' 60
	atf_check -o empty incus list -c n --format csv "^$c\$"
	jb_audit_has '.action == "destroy" and .container == $c and .decision == "accept"' --arg c $c ||
	    atf_fail "the dashboard's destroy is not in the journal"
	tmux send-keys -t $sess q
	jb_tmux_wait $sess screen.quit 'jbctl-exit=0' 10 ||
	    { cat screen.quit; atf_fail "q did not end the dashboard with 0"; }
}
refused_allow_destroy_cleanup() { jb_screen_cleanup; }

atf_init_test_cases() {
	atf_add_test_case new_and_countdown
	atf_add_test_case refused_allow_destroy
}
