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
# The dashboard over SSH: the real OpenSSH client with a terminal (ssh
# -t) in tmux, keys sent with send-keys and the screen read with
# capture-pane, against the real suite and the suite's own image.

. "$(atf_get_srcdir)/lib.sh"

# ssh -t in tmux session $sess, running "$1" (nothing: a shell request)
ssh_open() {
	sess=jbsshdash$$
	echo $sess > tmux-session
	tmux new-session -d -s $sess -x 200 -y 50 \
	    "$(pwd)/bin/jssh -t -i $(pwd)/key1 jailbee@127.0.0.1 $1; echo ssh-exit=\$?; sleep 60"
}


atf_test_case dashboard cleanup
dashboard_head() {
	atf_set descr "ssh -t with no command draws the dashboard: a row" \
	    "per container of the registered repos, an excluded repo's" \
	    "absent; net loose, withheld by restrict_host, is not offered" \
	    "(not in the keys, its key says so); an action is journalled as" \
	    "its command (route dashboard); a branch with escape sequences" \
	    "is drawn as text"
	atf_set require.user root
	atf_set timeout 600
}
dashboard_body() {
	jb_image
	jb_repo
	p=$(jb_prefix)
	# a second registered repo, excluded from SSH
	cp -a repo repo2
	printf 'container_prefix: %s-two\nbase:\n  alias: %s\n' "$p" "$JB_IMAGE" \
	    > repo2/.jailbee/config.yaml
	chown -R $JB_OWNER repo2
	jb_ssh_up "    excluded_repos: [$p-two]"
	jb_tools
	atf_check -e ignore jbo repo new box
	atf_check -e ignore jbo repo2 new hidden
	# both exist, and jbctl on the host sees both
	atf_check -o match:"^$p-box " -o match:"^$p-two-hidden " \
	    ./bin/jbctl -s "$(jb_sock)" ls --all

	ssh_open ""
	wait_screen screen.start 'JailBee dashboard over SSH' 20
	wait_screen screen.rows "^$p-box +Running +strict +10\.[0-9.]+ +box " 20
	# the agent windows are not read over SSH, and the row says so
	grep -Eq "^$p-box +Running +strict +10\.[0-9.]+ +box +- +n/a " \
	    screen.rows || { cat screen.rows; atf_fail "the WINDOWS column" \
	    "over SSH does not say n/a"; }
	if grep -q "$p-two" screen.rows; then
		cat screen.rows
		atf_fail "the excluded repo's container is on the SSH dashboard"
	fi
	# the registered repos' alone: not a container another suite made
	grep -q 'over SSH (registered repos): 1 container ' screen.rows ||
	    { cat screen.rows; atf_fail "the dashboard shows other containers"; }
	grep -q 'JailBee console' screen.rows &&
	    { cat screen.rows; atf_fail "a shell request still gets the console"; }

	# withheld: restrict_host refuses net loose without remote.ssh.network
	tmux send-keys -t $sess '?'
	# its last line, once the whole list is drawn
	wait_screen screen.keys 'The other actions are not available over SSH' 10
	grep -q 'dashboard over SSH: keys' screen.keys ||
	    { cat screen.keys; atf_fail "? does not list the keys"; }
	grep -q 'net strict now' screen.keys ||
	    { cat screen.keys; atf_fail "net strict is not offered"; }
	if grep -q 'net loose' screen.keys; then
		cat screen.keys
		atf_fail "net loose, withheld over SSH, is offered"
	fi
	tmux send-keys -t $sess Escape
	wait_screen screen.back "^$p-box " 10
	tmux send-keys -t $sess l
	wait_screen screen.l 'net loose: not available over SSH' 10
	grep -q 'loose for' screen.l &&
	    { cat screen.l; atf_fail "the withheld key asked its duration"; }

	# an action: net strict, judged and journalled as the command
	tmux send-keys -t $sess s
	wait_screen screen.s 'net strict: done' 30
	jb_audit_has '.action == "ssh.dashboard" and .route == "dashboard" and
	    .command == "net strict" and .container == $c and
	    .decision == "accept"' --arg c "$p-box" ||
	    { cat state/audit/audit.jsonl; atf_fail "net strict is not journalled"; }
	jb_audit_has '.route == "dashboard" and .reason == "opened"' ||
	    atf_fail "the dashboard's opening is not journalled"
	# its looks are not journalled one by one
	[ "$(jb_audit_count '.route == "dashboard" and .command == "ls"')" = 0 ] ||
	    atf_fail "the dashboard's looks fill the journal"

	# Enter: the container's shell has the terminal, then the dashboard
	tmux send-keys -t $sess Enter
	sleep 3
	tmux send-keys -t $sess 'echo SHELL_OK_$((6*7))' Enter
	wait_screen screen.shell '^SHELL_OK_42' 20
	tmux send-keys -t $sess 'exit' Enter
	wait_screen screen.back2 "^$p-box +Running" 20
	jb_audit_has '.route == "dashboard" and .command == "shell" and
	    .container == $c and .decision == "accept"' --arg c "$p-box" ||
	    atf_fail "the dashboard's shell is not journalled"

	# a branch that would steer the terminal: drawn as text
	incus config set $p-box user.jailbee.branch "$(printf 'ev\033[31mRED\033]0;pwn\007\302\233x')"
	tmux send-keys -t $sess g
	wait_screen screen.esc "^$p-box: Running, branch ev\\?\\[31mRED\\?\\]0;pwn\\?\\?\\?x, base main" 15
	row_of $p-box screen.esc | grep -q ' ev?\[31mRED?\]0;pwn??? ' ||
	    { cat screen.esc; atf_fail "the row does not draw the branch as text"; }
	tmux capture-pane -e -p -t $sess > screen.raw
	if LC_ALL=C grep -q "$(printf '\033')\\[31m" screen.raw; then
		cat -v screen.raw
		atf_fail "the branch's escape sequence reached the terminal"
	fi
	if LC_ALL=C grep -q "$(printf '\302\233')" screen.raw; then
		cat -v screen.raw
		atf_fail "a C1 CSI reached the terminal"
	fi
	# the screen, for whoever reads the test's output
	cat screen.esc
	tmux send-keys -t $sess q
	wait_screen screen.quit 'ssh-exit=0' 10
}
dashboard_cleanup() { jb_screen_cleanup; }

atf_test_case console cleanup
console_head() {
	atf_set descr "ssh -t HOST console gives the line console, whose" \
	    "lines are judged as before; without -t it says it needs one"
	atf_set require.user root
	atf_set timeout 120
}
console_body() {
	jb_ssh_up
	ssh_open console
	wait_screen screen.console 'JailBee console' 20
	wait_screen screen.prompt '^jailbee>' 10
	grep -q 'JailBee dashboard' screen.prompt &&
	    { cat screen.prompt; atf_fail "console opened the dashboard"; }
	tmux send-keys -t $sess 'version' Enter
	wait_screen screen.version '^jailbeed 0\.1\.0' 10
	tmux send-keys -t $sess 'net loose x' Enter
	wait_screen screen.refused 'net loose: can open the host' 10
	tmux send-keys -t $sess 'exit' Enter
	wait_screen screen.exit 'ssh-exit=0' 10
	atf_check -s exit:1 -e match:"the console needs a terminal: ssh -t" \
	    jssh -T -i key1 jailbee@127.0.0.1 console < /dev/null
	atf_check -s exit:1 -e match:"the dashboard needs a terminal: ssh -t" \
	    jssh -T -i key1 jailbee@127.0.0.1 < /dev/null
}
console_cleanup() { jb_screen_cleanup; }

atf_test_case iterm_mouse cleanup
iterm_mouse_head() {
	atf_set descr "the dashboard asks the terminal for mouse reports," \
	    "but not from iTerm2 (LC_TERMINAL or TERM_PROGRAM sent)"
	atf_set require.user root
	atf_set timeout 120
}
iterm_mouse_body() {
	jb_ssh_up
	ssh_open ""
	wait_screen screen.plain 'no containers' 20
	atf_check -o inline:"1\n" tmux display -p -t $sess '#{mouse_any_flag}'
	tmux send-keys -t $sess q
	wait_screen screen.quit 'ssh-exit=0' 10
	tmux kill-session -t $sess
	# iTerm2's name, sent as its users' ssh_config does (SendEnv LC_*)
	tmux new-session -d -s $sess -x 200 -y 50 \
	    "LC_TERMINAL=iTerm2 $(pwd)/bin/jssh -o SendEnv=LC_TERMINAL -t -i $(pwd)/key1 jailbee@127.0.0.1; echo ssh-exit=\$?; sleep 60"
	wait_screen screen.iterm 'no containers' 20
	atf_check -o inline:"0\n" tmux display -p -t $sess '#{mouse_any_flag}'
	tmux send-keys -t $sess q
	wait_screen screen.quit2 'ssh-exit=0' 10
}
iterm_mouse_cleanup() { jb_screen_cleanup; }

atf_init_test_cases() {
	atf_add_test_case dashboard
	atf_add_test_case console
	atf_add_test_case iterm_mouse
}
