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
# Coding agents (issue 19): jbctl new --agent runs a fake agent preset,
# whose install and command are scripts in the test repo, inside the
# container as the dev user: install_check, install when it fails, the
# command in a window of the tmux session autostart, which jbctl tmux
# attaches.  What cannot run yet is refused before anything is made.
# The npm-based agents for real (issue 28): their packages choose the
# image, a real registry (Verdaccio) serves the install into ~/.local,
# claude's ~/.claude.json is a link into a mounted directory, and
# network.trust_host_cas brings the host's CAs in.

. "$(atf_get_srcdir)/lib.sh"
. "$(atf_get_srcdir)/nethosts.sh"

# the test repo with the fake agent's scripts committed, so the clone
# has them, and agents.fake (and a failing one) in its config
setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
	r=repo
	cat > $r/install.sh <<'EOF'
#!/bin/sh
# the fake agent's install: its marker, and a log of every run
mkdir -p "$HOME/.fake"
echo "install in $PWD" >> "$HOME/.fake/install.log"
touch "$HOME/.fake/installed"
EOF
	cat > $r/agent.sh <<'EOF'
#!/bin/sh
# the fake agent: says where and with what it runs, a moment later ends
echo "agent ran in $PWD REPO_DIR=$REPO_DIR FAKE_ENV=$FAKE_ENV" > "$HOME/.fake/agent.out"
echo "fake agent is up"
sleep 1
EOF
	# install_network: loose: can the install reach a test host nothing
	# admits?  "kill": the install is killed after it tried
	cat > $r/netinstall.sh <<'EOF'
#!/bin/sh
mkdir -p "$HOME/.netfake"
if printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 5 198.18.1.11 8080 |
    grep -q "^hello 8080"; then
	echo reached > "$HOME/.netfake/during"
else
	echo refused > "$HOME/.netfake/during"
fi
[ "$1" = kill ] && kill -9 $$
touch "$HOME/.netfake/installed"
EOF
	chmod 0755 $r/install.sh $r/agent.sh $r/netinstall.sh
	# the checkout is the owner's already: git as root would refuse it
	git -c safe.directory="*" -C $r add install.sh agent.sh netinstall.sh ||
	    atf_fail "git add"
	git -c safe.directory="*" -C $r commit -q -m "the fake agent" ||
	    atf_fail "git commit"
	cat >> $r/.jailbee/config.yaml <<'EOF'
agents:
  fake:
    install_check: test -e "$HOME/.fake/installed"
    install: ./install.sh
    command: ./agent.sh
    env: {FAKE_ENV: from-config}
    egress_allow: ["198.18.1.10:8080"]
  netfake:
    install_check: test -e "$HOME/.netfake/installed"
    install: ./netinstall.sh
    command: ./agent.sh
    install_network: loose
  netkill:
    install_check: "false"
    install: ./netinstall.sh kill
    command: ./agent.sh
    install_network: loose
  broken:
    install_check: "false"
    install: echo the install broke >&2; exit 3
    command: ./agent.sh
  claude:
    install_check: "true"
    auto_update: false
    command: "true"
  sharer:
    install_check: "true"
    command: "true"
    shared:
      - {subpath: sharer, path: ~/.sharer}
      - {subpath: sharer-json/s.json, path: ~/.sharer.json, type: file, seed: "{}"}
EOF
	commit_config
}

# the config committed on main, the default branch: the escalation gate
# compares the checkout's config with it
commit_config() {
	git -c safe.directory="*" -C repo add .jailbee/config.yaml &&
	    git -c safe.directory="*" -C repo commit -q -m config ||
	    atf_fail "git commit of the config"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) repo
}

# wait until file $2 exists in container $1 (as the dev user)
wait_file() {
	i=0
	while [ $i -lt 100 ]; do
		in_ctr "$1" test -e "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	atf_fail "$2 never appeared in $1"
}

atf_test_case new_agent cleanup
new_agent_head() {
	atf_set descr "new --agent fake: install_check fails, the install" \
	    "runs once as the dev user in the clone, then the command runs" \
	    "in window agent-fake of the tmux session autostart with" \
	    "REPO_DIR and the agent's env, and stays visible after it ends"
	atf_set require.user root
	atf_set timeout 300
}
new_agent_body() {
	setup
	p=$(jb_prefix)
	c=$p-ag
	atf_check -e match:"agent fake: installing" \
	    -e match:"agent fake: installed" \
	    -e match:"agent fake: launched in tmux session autostart" \
	    -e match:"ready: $c" jbo repo new ag --agent fake
	atf_check -o inline:"install in /home/dev/$p\n" \
	    in_ctr $c cat /home/dev/.fake/install.log
	wait_file $c /home/dev/.fake/agent.out
	atf_check -o inline:"agent ran in /home/dev/$p REPO_DIR=/home/dev/$p FAKE_ENV=from-config\n" \
	    in_ctr $c cat /home/dev/.fake/agent.out
	# remain-on-exit: the ended agent's window is still there, and what
	# it printed
	i=0
	while [ $i -lt 50 ] && ! in_ctr $c tmux list-windows -t autostart \
	    -F '#{pane_dead}' | grep -q 1; do
		sleep 0.1
		i=$((i + 1))
	done
	atf_check -o inline:"agent-fake 1\n" in_ctr $c \
	    tmux list-windows -t autostart -F '#{window_name} #{pane_dead}'
	# (tmux's "Pane is dead" line scrolls the screen: history too; tmux
	# marks the pane dead when its terminal closes, and writes the line
	# once it has reaped the agent)
	i=0
	while [ $i -lt 50 ] && ! in_ctr $c tmux capture-pane -p -S - \
	    -t autostart:agent-fake | grep -q "Pane is dead"; do
		sleep 0.1
		i=$((i + 1))
	done
	atf_check -o match:"fake agent is up" \
	    -o match:"Pane is dead \(status 0" in_ctr $c \
	    tmux capture-pane -p -S - -t autostart:agent-fake
	# the agent ran as the dev user, not root
	atf_check -o inline:"$(id -u $JB_OWNER)\n" in_ctr $c \
	    stat -c %u /home/dev/.fake/agent.out
}
new_agent_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case tmux_attach cleanup
tmux_attach_head() {
	atf_set descr "jbctl tmux attaches the session autostart on a real" \
	    "terminal; without a session it says why and exits 1"
	atf_set require.user root
	atf_set require.progs tmux
	atf_set timeout 300
}
tmux_attach_body() {
	setup
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new ag --agent fake
	atf_check -e ignore jbo repo new plain
	sess=jbagent$$
	echo $sess > tmux-session
	bin=$(pwd)/bin/jbctl
	sock=$(jb_sock)
	as_owner="setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups env HOME=/nonexistent TERM=xterm"
	# the second attach waits until the first one's screen is read
	tmux new-session -d -s $sess -x 100 -y 30 \
	    "cd repo && $as_owner $bin -s $sock tmux plain; echo jbctl-plain=\$?; tmux wait-for $sess-read; $as_owner $bin -s $sock tmux ag; sleep 30"
	jb_tmux_wait $sess screen1 "jbctl-plain=" || true
	tmux wait-for -S $sess-read
	jb_tmux_wait $sess screen "autostart0:agent-fake" || true
	tmux kill-session -t $sess
	grep -q "no tmux session autostart in this container" screen1 ||
	    { cat screen1; atf_fail "no reason for the missing session"; }
	grep -q "jbctl-plain=1" screen1 ||
	    { cat screen1; atf_fail "tmux without a session did not exit 1"; }
	# the attached session's status line names its window
	grep -q "autostart0:agent-fake" screen ||
	    { cat screen; atf_fail "the autostart session was not attached"; }
}
tmux_attach_cleanup() {
	[ -f tmux-session ] && tmux kill-session -t "$(cat tmux-session)" 2>/dev/null
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case no_autostart_and_failures cleanup
no_autostart_and_failures_head() {
	atf_set descr "--no-autostart installs but launches nothing; a failing" \
	    "install fails new with the reason and keeps the container; an" \
	    "unknown agent is refused before anything is made"
	atf_set require.user root
	atf_set timeout 300
}
no_autostart_and_failures_body() {
	setup
	p=$(jb_prefix)
	atf_check -e match:"agent fake: installed" \
	    -e match:"agent fake: not launched" \
	    jbo repo new quiet --agent fake --no-autostart
	atf_check -o inline:"install in /home/dev/$p\n" \
	    in_ctr $p-quiet cat /home/dev/.fake/install.log
	atf_check -s exit:1 -e match:"no server running|error connecting|can't find session" \
	    in_ctr $p-quiet tmux has-session -t autostart
	atf_check -s exit:1 \
	    -e match:"the install broke" \
	    -e match:"agent broken: install failed \(status 3\)" \
	    -e match:"$p-bad is kept as it is" \
	    jbo repo new bad --agent broken
	atf_check -o inline:"RUNNING\n" incus list -c s --format csv "^$p-bad\$"
	atf_check -s exit:1 -e match:"--agent nosuch: no such agent" \
	    jbo repo new none --agent nosuch
	atf_check -o inline:"" incus list -c n --format csv "^$p-none\$"
}
no_autostart_and_failures_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case start_enabled cleanup
start_enabled_head() {
	atf_set descr "agents.fake.enabled: new installs and launches it" \
	    "without --agent; a second start runs only install_check and" \
	    "launches it again; restart --no-autostart launches nothing"
	atf_set require.user root
	atf_set timeout 300
}
start_enabled_body() {
	setup
	p=$(jb_prefix)
	c=$p-en
	sed -i 's/^  fake:$/  fake:\n    enabled: true/' repo/.jailbee/config.yaml
	atf_check -e match:"agent fake: installing" \
	    -e match:"agent fake: launched in tmux session autostart" \
	    jbo repo new en
	wait_file $c /home/dev/.fake/agent.out
	atf_check in_ctr $c rm /home/dev/.fake/agent.out
	atf_check -e ignore jbo repo stop en
	atf_check -e match:"agent fake: installed \(install_check passed\)" \
	    -e not-match:"installing" \
	    -e match:"agent fake: launched in tmux session autostart" \
	    jbo repo start en
	atf_check -o inline:"install in /home/dev/$p\n" \
	    in_ctr $c cat /home/dev/.fake/install.log
	wait_file $c /home/dev/.fake/agent.out
	atf_check -e match:"agent fake: installed \(install_check passed\)" \
	    -e match:"agent fake: not launched" \
	    jbo repo restart en --no-autostart
	atf_check -s exit:1 -e ignore in_ctr $c tmux has-session -t autostart
}
start_enabled_cleanup() { jb_containers_cleanup; jb_cleanup; }

# bin/ctr_http C ADDR: GET / on port 8080 of ADDR from container C
net_tools() {
	cat > bin/ctr_http <<'EOS'
#!/bin/sh
exec in_ctr "$1" sh -c "printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 5 $2 8080"
EOS
	chmod 0755 bin/ctr_http
}

atf_test_case agent_egress cleanup
agent_egress_head() {
	atf_set descr "an enabled agent's egress_allow joins the container's" \
	    "allowlist with origin agent:fake (net egress ls, net status," \
	    "-o json): real packets reach the test host only from the" \
	    "container whose agent is enabled; apply and start keep it"
	atf_set require.user root
	atf_set timeout 400
}
agent_egress_body() {
	setup
	net_tools
	nh_up 10.213.0.0/24
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new plain
	atf_check -e match:"network: strict, 1 egress_allow entry" \
	    -e match:"agent fake: launched" jbo repo new ag --agent fake
	jb_routed $p-plain
	jb_routed $p-ag
	atf_check -o match:"^hello 8080 from $NH_WWW" ctr_http $p-ag $NH_WWW
	atf_check -s not-exit:0 -o empty -e ignore ctr_http $p-plain $NH_WWW
	atf_check -o inline:"agent:fake $NH_WWW:8080\n" \
	    jbo repo net egress ls ag
	atf_check -o inline:"" jbo repo net egress ls plain
	atf_check -o match:"allow $NH_WWW:8080 \(agent:fake\)" \
	    jbo repo net status ag
	jbo repo net status -o json ag > st.json || atf_fail "-o json failed"
	atf_check -o inline:"agent:fake\n" jq -r ".containers[] |
	    select(.name == \"$p-ag\") | .allow[] |
	    select(.entry == \"$NH_WWW:8080\") | .origin" st.json
	# net egress add cannot take what the agent already grants
	atf_check -s exit:1 -e match:"an agent's egress_allow" \
	    jbo repo net egress add "$NH_WWW:8080" ag
	# apply reads the config again: the recorded --agent keeps its entry
	atf_check -e ignore jbo repo apply ag
	atf_check -o inline:"agent:fake $NH_WWW:8080\n" \
	    jbo repo net egress ls ag
	atf_check -o match:"^hello 8080 from $NH_WWW" ctr_http $p-ag $NH_WWW
	# start runs the agent new --agent recorded on the container
	atf_check -o inline:"fake\n" incus config get $p-ag user.jailbee.agent
	atf_check -e ignore jbo repo stop ag
	atf_check -e match:"agent fake: installed \(install_check passed\)" \
	    -e match:"agent fake: launched" jbo repo start ag
	atf_check -e ignore jbo repo stop plain
	atf_check -e not-match:"agent fake" jbo repo start plain
}
agent_egress_cleanup() { jb_containers_cleanup; jb_cleanup; nh_down; }

atf_test_case install_network cleanup
install_network_head() {
	atf_set descr "install_network: loose opens the network for the" \
	    "install alone, by jb-netd's deadline: the install reaches a test" \
	    "host nothing admits, the container is strict after it, also when" \
	    "the install is killed; an installed agent opens nothing"
	atf_set require.user root
	atf_set timeout 400
}
install_network_body() {
	setup
	net_tools
	nh_up 10.213.0.0/24
	p=$(jb_prefix)
	atf_check -e match:"agent netfake: $p-nl loose for its install \(install_network: loose\), 630 s at most" \
	    -e match:"agent netfake: installed" \
	    -e match:"agent netfake: $p-nl is strict again" \
	    -e match:"agent netfake: launched" jbo repo new nl --agent netfake
	atf_check -o inline:"reached\n" in_ctr $p-nl cat /home/dev/.netfake/during
	atf_check -o match:"$p-nl .*: strict" jbo repo net status nl
	atf_check -s not-exit:0 -o empty -e ignore ctr_http $p-nl $NH_WWW2
	# installed: install_check passes, nothing is opened
	atf_check -e ignore jbo repo stop nl
	atf_check -e match:"agent netfake: installed \(install_check passed\)" \
	    -e not-match:"loose" jbo repo start nl
	atf_check -o match:"$p-nl .*: strict" jbo repo net status nl

	# killed after it reached the host: new fails, strict again
	atf_check -s exit:1 \
	    -e match:"agent netkill: $p-nk loose for its install" \
	    -e match:"agent netkill: $p-nk is strict again" \
	    -e match:"agent netkill: install failed \(status 137\)" \
	    jbo repo new nk --agent netkill
	atf_check -o inline:"reached\n" in_ctr $p-nk cat /home/dev/.netfake/during
	atf_check -o match:"$p-nk .*: strict" jbo repo net status nk
	atf_check -s not-exit:0 -o empty -e ignore ctr_http $p-nk $NH_WWW2
}
install_network_cleanup() { jb_containers_cleanup; jb_cleanup; nh_down; }

atf_test_case autostart_steps cleanup
autostart_steps_head() {
	atf_set descr "autostart: on_create then on_start steps, each in its" \
	    "window of the tmux session autostart, with container.env <" \
	    "autostart.env < step env and REPO_DIR, in working_dir; a loose" \
	    "step reaches a test host nothing admits and the container is" \
	    "strict after it; the agent launches after on_start; start runs" \
	    "on_start only; a failing step fails start with its reason;" \
	    "--no-autostart runs no step"
	atf_set require.user root
	atf_set timeout 400
}
autostart_steps_body() {
	setup
	net_tools
	nh_up 10.213.0.0/24
	p=$(jb_prefix)
	c=$p-as
	mkdir repo/sub && touch repo/sub/.keep
	git -c safe.directory="*" -C repo add sub/.keep &&
	    git -c safe.directory="*" -C repo commit -q -m sub ||
	    atf_fail "git commit"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) repo
	cat >> repo/.jailbee/config.yaml <<'EOF'
container:
  env: {CTR: ctr, OVR: ctr}
autostart:
  env: {AUTO: auto, OVR: auto}
  on_create:
    - name: create1
      run: echo "$REPO_DIR $CTR $AUTO $OVR $(pwd)" >> "$HOME/create.log"
      env: {OVR: step}
      working_dir: sub
    - name: fetch
      run: ../netinstall.sh
      working_dir: sub
      network: loose
  on_start:
    - name: start1
      run: echo started >> "$HOME/start.log"
    - name: gate
      run: test ! -e "$HOME/fail-now"
    - name: bg
      run: sleep 60
      background: true
EOF
	commit_config
	atf_check -o save:new.out -e save:new.err jbo repo new as --agent fake
	# 600 s of step timeout and the grant's slack, 5 s under the switch
	for pat in "step create1: done" "step fetch: $c loose for it, 605 s at most" \
	    "step fetch: $c is strict again" "step fetch: done" \
	    "step start1: done" "step bg: running in the background" \
	    "agent fake: launched"; do
		grep -q "$pat" new.err || { cat new.err; atf_fail "no \"$pat\""; }
	done
	# order: on_create, on_start, then the agent's launch
	l1=$(grep -n "step create1: done" new.err | cut -d: -f1)
	l2=$(grep -n "step start1: done" new.err | cut -d: -f1)
	l3=$(grep -n "agent fake: launched" new.err | cut -d: -f1)
	[ "$l1" -lt "$l2" ] && [ "$l2" -lt "$l3" ] ||
	    { cat new.err; atf_fail "steps and launch out of order"; }
	atf_check -o inline:"/home/dev/$p ctr auto step /home/dev/$p/sub\n" \
	    in_ctr $c cat /home/dev/create.log
	atf_check -o inline:"reached\n" in_ctr $c cat /home/dev/.netfake/during
	atf_check -o match:"$c .*: strict" jbo repo net status as
	atf_check -s not-exit:0 -o empty -e ignore ctr_http $c $NH_WWW2
	atf_check -o match:"^create1$" -o match:"^fetch$" -o match:"^start1$" \
	    -o match:"^gate$" -o match:"^bg$" -o match:"^agent-fake$" \
	    in_ctr $c tmux list-windows -t autostart -F '#{window_name}'
	# start: on_start again, not on_create
	atf_check -e ignore jbo repo stop as
	atf_check -e match:"step start1: done" -e not-match:"create1" \
	    -e match:"agent fake: launched" jbo repo start as
	atf_check -o inline:"started\nstarted\n" in_ctr $c cat /home/dev/start.log
	atf_check -o inline:"1\n" in_ctr $c sh -c 'wc -l < /home/dev/create.log'
	# a failing step ends start with its reason; the next step never runs
	atf_check in_ctr $c touch /home/dev/fail-now
	atf_check -s exit:1 -e match:"$c started, but step gate: failed \(status 1\)" \
	    -e not-match:"step bg" -e not-match:"agent fake: launched" \
	    jbo repo restart as
	# --no-autostart: no step runs
	atf_check -e not-match:"step " -e match:"agent fake: not launched" \
	    jbo repo restart as --no-autostart
	atf_check -o inline:"started\nstarted\nstarted\n" \
	    in_ctr $c cat /home/dev/start.log
}
autostart_steps_cleanup() { jb_containers_cleanup; jb_cleanup; nh_down; }

atf_test_case escalation_gate cleanup
escalation_gate_head() {
	atf_set descr "new: autostart or agents in the checkout's config wider" \
	    "than the default branch's (a loose step, an agent's extra egress" \
	    "or loose install) are shown and refused without a terminal;" \
	    "--yes accepts; on a terminal new asks: n refuses, y goes on;" \
	    "what the default branch grants passes unasked (R27)"
	atf_set require.user root
	atf_set require.progs script
	atf_set timeout 300
}
escalation_gate_body() {
	setup
	p=$(jb_prefix)
	# committed on main: fake with its egress passes without a question
	atf_check -e match:"ready: $p-ok" -e not-match:"escalation" \
	    jbo repo new ok --agent fake
	cat >> repo/.jailbee/config.yaml <<'EOF'
autostart:
  on_start:
    - {name: wide, run: "true", network: loose}
EOF
	sed -i 's|egress_allow: \["198.18.1.10:8080"\]|egress_allow: ["198.18.1.10:8080", "198.18.1.11:8080"]|' \
	    repo/.jailbee/config.yaml
	atf_check -s exit:1 \
	    -e match:"the checkout's autostart and agents grant what the default branch's config \(refs/heads/main\) does not:" \
	    -e match:"\+ autostart.on_start wide: network: loose \(a new step\)" \
	    -e match:"\+ agents.fake.egress_allow: 198.18.1.11:8080" \
	    -e not-match:"198.18.1.10:8080" \
	    -e match:"escalation gate: 2 privilege\(s\) wider than the default branch's config: confirm on a terminal, or give --yes" \
	    jbo repo new g1 --agent fake
	# without the agent, the step alone
	atf_check -s exit:1 -e match:"escalation gate: 1 privilege" \
	    -e not-match:"agents.fake" jbo repo new g1
	atf_check -o inline:"" incus list -c n --format csv "^$p-g1\$"
	atf_check -e match:"--yes: accepted" -e match:"step wide: done" \
	    -e match:"ready: $p-g2" jbo repo new g2 --yes
	# on a terminal: asked; n refuses, y goes on with --yes
	atf_check -s exit:1 \
	    -o match:"create it with these privileges\? \[y/N\]" \
	    -o not-match:"ready:" sh -c "echo n | script -qec 'jbo repo new g3' /dev/null"
	atf_check -o inline:"" incus list -c n --format csv "^$p-g3\$"
	atf_check -o match:"create it with these privileges" \
	    -o match:"--yes: accepted" -o match:"ready: $p-g3" \
	    sh -c "echo y | script -qec 'jbo repo new g3' /dev/null"
}
escalation_gate_cleanup() { jb_containers_cleanup; jb_cleanup; }

# the shared dir of this test's repo on the host (jb-mountd's, in state/)
shared_dir() { echo "$(pwd)/state/mounts/shared/$(jb_prefix)"; }

atf_test_case agent_shared cleanup
agent_shared_head() {
	atf_set descr "an agent's shared entries: made as the owner (0700)" \
	    "under the suite's shared dir, mounted read-write at their path," \
	    "a file seeded; what the container writes lands there owned by" \
	    "the owner and is seen by the next container; journalled; a new" \
	    "entry is an escalation; a symlink planted by a container on the" \
	    "way, or a subpath with .. or absolute, is refused with its reason"
	atf_set require.user root
	atf_set timeout 400
}
agent_shared_body() {
	setup
	p=$(jb_prefix)
	sd=$(shared_dir)
	ou=$(id -u $JB_OWNER)
	# a single file is warned about with its whole path
	atf_check -e match:"agent sharer: shared sharer at ~/.sharer \(read-write\), made now" \
	    -e match:"agent sharer: shared sharer-json/s.json at ~/.sharer.json \(read-write\), made now" \
	    -e match:"warning: $sd/sharer-json/s.json is a single file: mount the directory" \
	    -e match:"ready: $p-sa" jbo repo new sa --agent sharer
	atf_check -o inline:"$ou 700\n" stat -c "%u %a" "$sd"
	atf_check -o inline:"$ou 700\n" stat -c "%u %a" "$sd/sharer"
	atf_check -o inline:"$ou 600\n" stat -c "%u %a" "$sd/sharer-json/s.json"
	atf_check -o inline:"{}" in_ctr $p-sa cat /home/dev/.sharer.json
	# the container writes, the host's shared dir holds it, the owner's
	atf_check in_ctr $p-sa sh -c 'echo hello > /home/dev/.sharer/note'
	atf_check -o inline:"hello\n" cat "$sd/sharer/note"
	atf_check -o inline:"$ou\n" stat -c %u "$sd/sharer/note"
	atf_check -o match:"agent-sharer-0" -o match:"agent-sharer-1" \
	    incus config device list $p-sa
	jb_audit_has '.action == "mount" and .decision == "accept" and
	    .container == $c and .by == "agents.sharer.shared" and
	    .device == "agent-sharer-0"' --arg c $p-sa ||
	    atf_fail "the shared mount is not in the audit journal"
	# the next container of the repo sees the same state, nothing made
	atf_check -e match:"agent sharer: shared sharer at ~/.sharer \(read-write\)$" \
	    jbo repo new sb --agent sharer
	atf_check -o inline:"hello\n" in_ctr $p-sb cat /home/dev/.sharer/note
	# start keeps the devices: not attached twice
	atf_check -e ignore jbo repo stop sb
	atf_check -e not-match:"shared sharer" jbo repo start sb
	atf_check -o inline:"hello\n" in_ctr $p-sb cat /home/dev/.sharer/note

	# a container plants a symlink out of the shared dir; an entry
	# through it is a new entry (the gate asks), then refused, naming it
	atf_check in_ctr $p-sa ln -s /etc /home/dev/.sharer/esc
	cat >> repo/.jailbee/config.yaml <<'EOC'
      - {subpath: sharer/esc/x, path: ~/.esc}
EOC
	atf_check -s exit:1 \
	    -e match:"\+ agents.sharer.shared: sharer/esc/x at ~/.esc \(dir, read-write\)" \
	    -e match:"escalation gate: 1 privilege" jbo repo new se --agent sharer
	atf_check -s exit:1 \
	    -e match:"agents.sharer.shared\[2\]: sharer/esc in the shared directory is a symlink: refused" \
	    jbo repo new se --agent sharer --yes
	atf_check -s exit:1 test -e /etc/x
	atf_check -o not-match:"agent-sharer-2" incus config device list $p-se
	jb_audit_has '.action == "mount" and .decision == "refuse" and
	    .container == $c and .by == "agents.sharer.shared"' --arg c $p-se ||
	    atf_fail "the refused shared mount is not in the audit journal"
	# a subpath out of the shared dir is refused as the config loads
	sed -i 's|sharer/esc/x, path: ~/.esc|../x, path: ~/.esc|' \
	    repo/.jailbee/config.yaml
	atf_check -s exit:1 \
	    -e match:"agents.sharer.shared\[2\].subpath: must not hold empty, \"\.\" or \"\.\.\" components" \
	    jbo repo new sx --agent sharer --yes
	sed -i 's|{subpath: ../x, path: ~/.esc}|{subpath: /etc, path: ~/.esc}|' \
	    repo/.jailbee/config.yaml
	atf_check -s exit:1 \
	    -e match:"agents.sharer.shared\[2\].subpath: must be a relative path below the shared directory" \
	    jbo repo new sx --agent sharer --yes
	atf_check -o inline:"" incus list -c n --format csv "^$p-sx\$"
}
agent_shared_cleanup() { jb_containers_cleanup; jb_cleanup; }

# the test registry: Verdaccio in the test hosts' namespace on
# $NH_WWW:4873, no uplink (nothing beyond it is asked), serving jb-hello,
# a package with a bin published to it with the host's npm
registry_up() {
	[ -x "$JB_VERDACCIO" ] || atf_fail "no Verdaccio at $JB_VERDACCIO:" \
	    "make deps (regress/setup-host) installs it"
	mkdir -p verdaccio npm-cache pkg/bin
	cat > verdaccio/config.yaml <<'EOC'
storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
web:
  enable: false
logs: {type: stdout, format: pretty, level: http}
EOC
	nh_ns "$JB_VERDACCIO" --config "$(pwd)/verdaccio/config.yaml" \
	    --listen "http://$NH_WWW:4873" > verdaccio.log 2>&1 &
	echo $! >> nethosts.pids
	i=0
	until curl -sf "http://$NH_WWW:4873/-/ping" > /dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			cat verdaccio.log >&2
			atf_fail "Verdaccio did not come up on $NH_WWW:4873"
		fi
		sleep 0.1
	done
	tok=$(curl -sf -X PUT -H 'Content-Type: application/json' \
	    -d '{"name": "jbtest", "password": "jbtest-pw"}' \
	    "http://$NH_WWW:4873/-/user/org.couchdb.user:jbtest" |
	    jq -er .token) || atf_fail "no user on the test registry"
	printf 'registry=http://%s:4873/\n//%s:4873/:_authToken=%s\n' \
	    "$NH_WWW" "$NH_WWW" "$tok" > npmrc
	cat > pkg/bin/hello.js <<'EOP'
#!/usr/bin/env node
// the test agent: says where and with what it runs, then keeps running
require("fs").writeFileSync(process.env.HOME + "/.jb-hello.out",
    "jb-hello ran in " + process.cwd() + " with node " + process.version +
    "\n");
console.log("jb-hello is up");
setInterval(function () {}, 1000);
EOP
	registry_publish 1.0.0
}

# jb-hello version $1 to the test registry
registry_publish() {
	cat > pkg/package.json <<EOP
{"name": "jb-hello", "version": "$1", "license": "ISC",
 "bin": {"jb-hello": "bin/hello.js"}}
EOP
	(cd pkg && npm_config_userconfig=../npmrc npm_config_cache=../npm-cache \
	    npm publish --loglevel=error > ../publish.log 2>&1) || {
		cat publish.log verdaccio.log >&2
		atf_fail "npm publish of jb-hello $1 to the test registry failed"
	}
}

atf_test_case npm_registry cleanup
npm_registry_head() {
	atf_set descr "an npm-based agent for real: its packages (nodejs," \
	    "npm) give the suite's agent image, npm installs jb-hello from a" \
	    "real registry (Verdaccio in the test namespace, npm_config_registry)" \
	    "as the dev user into ~/.local, whose bin is on PATH for exec and" \
	    "a login shell; its command runs in the autostart window and keeps" \
	    "running; a second start installs nothing; the container is strict" \
	    "after the install, and after one that failed"
	atf_set require.user root
	atf_set timeout 600
}
npm_registry_body() {
	# (built before this test's jailbeed starts: the build runs one of
	# its own, which takes the same gateway address)
	jb_agent_image
	jb_start
	jb_tools
	jb_repo
	net_tools
	nh_up 10.213.0.0/24
	registry_up
	p=$(jb_prefix)
	ou=$(id -u $JB_OWNER)
	# no base.alias: the agents' packages choose the image
	cat > repo/.jailbee/config.yaml <<EOC
container_prefix: $p
agents:
  hello:
    packages: [nodejs, npm]
    install: npm install -g --prefix "\$HOME/.local" jb-hello
    install_check: command -v jb-hello
    update: npm install -g --prefix "\$HOME/.local" jb-hello@latest
    command: jb-hello
    install_network: loose
    egress_allow: ["$NH_WWW:4873"]
    env: {npm_config_registry: "http://$NH_WWW:4873/"}
  nosuch:
    packages: [npm, nodejs]
    install: npm install -g --prefix "\$HOME/.local" jb-nosuch
    install_check: command -v jb-nosuch
    command: jb-nosuch
    install_network: loose
    env: {npm_config_registry: "http://$NH_WWW:4873/"}
EOC
	commit_config
	atf_check -e match:"image jailbee-base-ff842cbd0e69: base.packages and the agents' packages: nodejs npm" \
	    -e match:"agent hello: installing" \
	    -e match:"agent hello: $p-np loose for its install" \
	    -e match:"agent hello: installed$" \
	    -e match:"agent hello: $p-np is strict again" \
	    -e match:"agent hello: launched in tmux session autostart" \
	    -e match:"ready: $p-np" jbo repo new np --agent hello
	# the registry served the tarball (its log is written a moment later)
	i=0
	until grep -q "200, .*'GET /jb-hello/-/jb-hello-1.0.0.tgz'" \
	    verdaccio.log; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the test registry served no tarball"
		sleep 0.1
	done
	# the dev user's, in ~/.local, on the PATH of exec and a login shell
	atf_check -o inline:"$ou\n" in_ctr $p-np \
	    stat -c %u /home/dev/.local/lib/node_modules/jb-hello/package.json
	atf_check -o inline:"/home/dev/.local/bin/jb-hello\n" \
	    jbo repo exec np -- sh -c 'command -v jb-hello'
	atf_check -o inline:"/home/dev/.local/bin/jb-hello\n" \
	    in_ctr $p-np bash -lc 'command -v jb-hello'
	# the command runs in its window, in the clone, and keeps running
	wait_file $p-np /home/dev/.jb-hello.out
	atf_check -o match:"^jb-hello ran in /home/dev/$p with node v" \
	    in_ctr $p-np cat /home/dev/.jb-hello.out
	sleep 2
	atf_check -o inline:"agent-hello 0\n" in_ctr $p-np \
	    tmux list-windows -t autostart -F '#{window_name} #{pane_dead}'
	# strict after the install
	atf_check -o match:"$p-np .*: strict" jbo repo net status np
	atf_check -s not-exit:0 -o empty -e ignore ctr_http $p-np $NH_WWW2
	# a second start: install_check passes, no second install; the
	# update (auto_update) brings 1.0.1 into ~/.local the same way
	registry_publish 1.0.1
	atf_check -e ignore jbo repo stop np
	atf_check -e match:"agent hello: installed \(install_check passed\)" \
	    -e not-match:"installing" \
	    -e match:"agent hello: $p-np loose for its update" \
	    -e match:"agent hello: $p-np is strict again" \
	    -e match:"agent hello: launched" jbo repo start np
	atf_check -o match:'"version": "1.0.1"' in_ctr $p-np \
	    cat /home/dev/.local/lib/node_modules/jb-hello/package.json
	atf_check -o inline:"$ou\n" in_ctr $p-np \
	    stat -c %u /home/dev/.local/lib/node_modules/jb-hello/package.json
	atf_check -o match:"$p-np .*: strict" jbo repo net status np
	# the same image for the second agent's set; its install fails on
	# the registry's answer, and the container is strict after it
	atf_check -s exit:1 \
	    -e match:"image jailbee-base-ff842cbd0e69" \
	    -e match:"agent nosuch: $p-nx loose for its install" \
	    -e match:"agent nosuch: $p-nx is strict again" \
	    -e match:"E404" \
	    -e match:"agent nosuch: install failed" \
	    jbo repo new nx --agent nosuch
	atf_check -o match:"$p-nx .*: strict" jbo repo net status nx
	atf_check -s not-exit:0 -o empty -e ignore ctr_http $p-nx $NH_WWW2
}
npm_registry_cleanup() { jb_containers_cleanup; jb_cleanup; nh_down; }

atf_test_case trust_host_cas cleanup
trust_host_cas_head() {
	atf_set descr "network.trust_host_cas: true puts the CAs the host" \
	    "added in /usr/local/share/ca-certificates into the container's" \
	    "trust store at new and at start: curl in the container trusts a" \
	    "real TLS server (openssl s_server in the test namespace) whose" \
	    "certificate that CA signed, and no longer once the host dropped it"
	atf_set require.user root
	atf_set timeout 300
}
trust_host_cas_body() {
	JB_CONF_EXTRA="network:
  trust_host_cas: true"
	jb_start
	jb_tools
	jb_repo
	nh_up 10.213.0.0/24
	p=$(jb_prefix)
	# a test CA, and the server's certificate it signed for $NH_WWW
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -days 1 -subj "/CN=JailBee test CA $$" \
	    -addext basicConstraints=critical,CA:TRUE \
	    -keyout ca.key -out ca.crt > /dev/null 2>&1 || atf_fail "test CA"
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	    -subj "/CN=$NH_WWW" -keyout srv.key -out srv.csr \
	    > /dev/null 2>&1 || atf_fail "server key"
	printf 'subjectAltName=IP:%s\n' "$NH_WWW" > srv.ext
	openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key \
	    -CAcreateserial -days 1 -extfile srv.ext -out srv.crt \
	    > /dev/null 2>&1 || atf_fail "server certificate"
	nh_ns openssl s_server -quiet -accept "$NH_WWW:8443" -cert srv.crt \
	    -key srv.key -www > s_server.log 2>&1 &
	echo $! >> nethosts.pids
	printf 'egress_allow: ["%s:8443"]\n' "$NH_WWW" >> repo/.jailbee/config.yaml
	commit_config
	# the host trusts the CA: a file of its own, gone at the cleanup
	mkdir -p /usr/local/share/ca-certificates
	cp ca.crt "/usr/local/share/ca-certificates/jailbee-test-$$.crt"
	echo "/usr/local/share/ca-certificates/jailbee-test-$$.crt" > hostca.path
	atf_check -e match:"network.trust_host_cas: [1-9][0-9]* of the host's CAs \(/usr/local/share/ca-certificates\) trusted in $p-tc" \
	    -e match:"ready: $p-tc" jbo repo new tc
	# the incus client's first-run notice goes here, not into a check
	in_ctr $p-tc true > /dev/null 2>&1
	atf_check -o match:"jailbee-test-$$.crt" in_ctr $p-tc \
	    ls /usr/local/share/ca-certificates/jailbee-host
	atf_check -o match:"s_server" in_ctr $p-tc \
	    curl -sS --max-time 10 "https://$NH_WWW:8443/"
	# the host drops it: the next start takes it out
	rm -f "/usr/local/share/ca-certificates/jailbee-test-$$.crt"
	atf_check -e match:"network.trust_host_cas: .* trusted in $p-tc" \
	    jbo repo restart tc
	atf_check -s exit:60 -e match:"SSL certificate problem" in_ctr $p-tc \
	    curl -sS --max-time 10 "https://$NH_WWW:8443/"
	# and takes it back in when the host has it again
	cp ca.crt "/usr/local/share/ca-certificates/jailbee-test-$$.crt"
	atf_check -e ignore jbo repo stop tc
	atf_check -e match:"network.trust_host_cas: .* trusted in $p-tc" \
	    jbo repo start tc
	atf_check -o match:"s_server" in_ctr $p-tc \
	    curl -sS --max-time 10 "https://$NH_WWW:8443/"
}
trust_host_cas_cleanup() {
	[ -f hostca.path ] && rm -f "$(cat hostca.path)"
	jb_containers_cleanup; jb_cleanup; nh_down
}

atf_test_case agent_image_missing cleanup
agent_image_missing_head() {
	atf_set descr "new --agent with packages the image lacks: jbctl" \
	    "names the image of that set (jailbee-base-<hash>) and builds it" \
	    "as a base.packages image, with the same progress lines; a" \
	    "package Debian lacks fails the build, and nothing is made"
	atf_set require.user root
	atf_set timeout 300
}
agent_image_missing_body() {
	jb_start
	jb_tools
	jb_repo
	p=$(jb_prefix)
	cat > repo/.jailbee/config.yaml <<EOC
container_prefix: $p
agents:
  odd:
    packages: [jailbee-no-such-package]
    install_check: "true"
    command: "true"
EOC
	commit_config
	alias=jailbee-base-$(printf '%s' jailbee-no-such-package | sha256sum |
	    cut -c1-12)
	atf_check -s not-exit:0 -o ignore -e ignore incus image info $alias
	atf_check -s exit:1 \
	    -e match:"image $alias: base.packages and the agents' packages: jailbee-no-such-package" \
	    -e match:"base image $alias is missing: building it first with base.packages: jailbee-no-such-package" \
	    -e match:"\[1/3\] mmdebstrap: Debian .*base.packages: jailbee-no-such-package" \
	    -e match:"base build failed" \
	    -x "cd repo && ../bin/jbctl -s $(jb_sock) new od --agent odd"
	atf_check -o inline:"" incus list -c n --format csv "^$p-od\$"
	atf_check -s not-exit:0 -o ignore -e ignore incus image info $alias
}
agent_image_missing_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case claude_json cleanup
claude_json_head() {
	atf_set descr "the claude preset keeps ~/.claude.json in the shared" \
	    "directory claude-json mounted at ~/.claude-json, reached by a" \
	    "symlink: no single file is mounted (nor warned about), a write" \
	    "through the link and a file replaced by rename both land in the" \
	    "shared directory, and the next container sees them"
	atf_set require.user root
	atf_set timeout 300
}
claude_json_body() {
	setup
	p=$(jb_prefix)
	sd=$(shared_dir)
	atf_check -e match:"agent claude: shared claude at ~/.claude \(read-write\), made now" \
	    -e match:"agent claude: shared claude-json at ~/.claude-json \(read-write\), made now" \
	    -e match:"agent claude: shared claude-json/.claude.json, made now, reached by the link ~/.claude.json to ~/.claude-json/.claude.json" \
	    -e not-match:"single file" \
	    -e match:"ready: $p-ca" jbo repo new ca --agent claude
	atf_check -o inline:"{}" cat "$sd/claude-json/.claude.json"
	atf_check -o inline:"/home/dev/.claude-json/.claude.json\n" \
	    in_ctr $p-ca readlink /home/dev/.claude.json
	atf_check -o inline:"{}" in_ctr $p-ca cat /home/dev/.claude.json
	# written through the link, then replaced as a tool saves it
	atf_check in_ctr $p-ca sh -c 'echo "{\"a\": 1}" > /home/dev/.claude.json'
	atf_check -o inline:"{\"a\": 1}\n" cat "$sd/claude-json/.claude.json"
	atf_check in_ctr $p-ca sh -c 'echo "{\"b\": 2}" > /home/dev/.claude-json/t &&
	    mv /home/dev/.claude-json/t /home/dev/.claude-json/.claude.json'
	atf_check -o inline:"{\"b\": 2}\n" cat "$sd/claude-json/.claude.json"
	atf_check -o not-match:"agent-claude-2" incus config device list $p-ca
	# the next container: the same file, through its own link
	atf_check -e match:"ready: $p-cb" jbo repo new cb --agent claude
	atf_check -o inline:"{\"b\": 2}\n" in_ctr $p-cb cat /home/dev/.claude.json
	# a start makes nothing twice, and leaves a file put in the link's
	# place alone, saying so
	atf_check in_ctr $p-cb sh -c 'rm /home/dev/.claude.json &&
	    echo mine > /home/dev/.claude.json'
	atf_check -e match:"agent claude: /home/dev/.claude.json is not the link to /home/dev/.claude-json/.claude.json: left as it is" \
	    -e not-match:"made now" jbo repo restart cb
	atf_check -o inline:"mine\n" in_ctr $p-cb cat /home/dev/.claude.json
}
claude_json_cleanup() { jb_containers_cleanup; jb_cleanup; }

# has_device C DEV: container C has the disk device DEV
has_device() {
	incus config device list "$1" 2>/dev/null | grep -qx "$2"
}

atf_test_case step_strict_refused cleanup
step_strict_refused_head() {
	atf_set descr "a loose step whose way back to strict is refused (the" \
	    "switch and the table's rebuild, test hook) stops the container," \
	    "which stays written down strict, and new says why (N6)"
	atf_set require.user root
	atf_set timeout 400
}
step_strict_refused_body() {
	setup
	p=$(jb_prefix)
	hook=state/netd/testhook-refuse-nft
	# the step waits for the test to arm the hook before it ends
	cat >> repo/.jailbee/config.yaml <<'EOC'
autostart:
  on_create:
    - name: wide
      run: touch "$HOME/waiting"; i=0; while [ ! -e "$HOME/go" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
      network: loose
EOC
	commit_config
	jbo repo new sl > sl.out 2>&1 &
	newpid=$!
	i=0
	until in_ctr $p-sl test -e /home/dev/waiting 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat sl.out; atf_fail "step wide never ran"; }
		sleep 0.2
	done
	atf_check -o match:"$p-sl .*: loose" jbo repo net status sl
	echo 2 > "$hook"
	atf_check in_ctr $p-sl touch /home/dev/go
	wait $newpid && { cat sl.out; atf_fail "new succeeded"; }
	cat sl.out
	[ -f "$hook.fired" ] || atf_fail "the test hook never fired"
	atf_check -o match:"$p-sl could not be made strict again and is stopped so it is not left open \(jb-netd: $p-sl stays loose: nftables refused the switch and the whole table's rebuild" \
	    cat sl.out
	atf_check -o inline:"STOPPED\n" incus list -c s --format csv "^$p-sl\$"
	atf_check -o match:"^$p-sl [0-9.]+ strict 0 " cat state/netd/containers
}
step_strict_refused_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case step_mounts cleanup
step_mounts_head() {
	atf_set descr "a step's mounts: the optional mount is attached for" \
	    "the step and detached when it ends (journalled, its deadline" \
	    "cleared); with the runner killed during the step, jb-mountd's" \
	    "deadline detaches it after a restart; a step mount the default" \
	    "branch lacks is an escalation"
	atf_set require.user root
	atf_set timeout 400
}
step_mounts_body() {
	setup
	w=$(pwd)
	p=$(jb_prefix)
	mkdir -p stepdata
	echo s3cret > stepdata/secret
	chown -R $JB_OWNER stepdata
	cat >> repo/.jailbee/config.yaml <<EOC
optional_mounts:
  stepdata: {host: $w/stepdata, container: /home/dev/stepdata}
autostart:
  on_create:
    - name: usemount
      run: cat /home/dev/stepdata/secret > "\$HOME/during"
      mounts: [stepdata]
    - name: after
      run: if [ -e /home/dev/stepdata/secret ]; then echo present; else echo absent; fi > "\$HOME/after"
  on_start:
    - name: hold
      run: if [ -e /home/dev/stepdata/hold ]; then touch "\$HOME/holding"; sleep 300; fi
      mounts: [stepdata]
      timeout: 10
EOC
	commit_config
	atf_check -e match:"step usemount: mount stepdata attached at /home/dev/stepdata for it \(read-only\)" \
	    -e match:"step usemount: mount stepdata detached" \
	    -e match:"step hold: mount stepdata detached" \
	    -e match:"ready: $p-sm" jbo repo new sm
	atf_check -o inline:"s3cret\n" in_ctr $p-sm cat /home/dev/during
	atf_check -o inline:"absent\n" in_ctr $p-sm cat /home/dev/after
	has_device $p-sm optional-stepdata && atf_fail "still attached"
	atf_check -o not-match:"^$p-sm " cat state/mounts/deadlines
	jb_audit_has '.action == "mount" and .decision == "accept" and
	    .container == $c and .by == "autostart step usemount" and
	    .device == "optional-stepdata" and .until != null' --arg c $p-sm ||
	    atf_fail "the step's mount is not in the audit journal"
	jb_audit_has '.action == "unmount" and .decision == "accept" and
	    .container == $c and .by == "autostart step usemount"' \
	    --arg c $p-sm || atf_fail "the step's unmount is not journalled"

	# the runner killed during the step: the deadline takes it back
	touch stepdata/hold
	jbo repo new sk > sk.out 2>&1 &
	i=0
	until in_ctr $p-sk test -e /home/dev/holding 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat sk.out; atf_fail "step hold never ran"; }
		sleep 0.2
	done
	has_device $p-sk optional-stepdata || atf_fail "not attached in hold"
	atf_check -o match:"^$p-sk stepdata [0-9]+$" cat state/mounts/deadlines
	kill -KILL "$(cat jailbeed.pid)"
	jb_wait_gone "$(cat jailbeed.pid)" 50 || atf_fail "jailbeed still up"
	sleep 1
	has_device $p-sk optional-stepdata || atf_fail "detached by nothing?"
	rm -rf "$(cat rundir)"
	jb_start
	jb_tools
	# the deadline: the step's timeout (10 s) and the grant's slack (30 s;
	# 5 s under the test switch)
	i=0
	while has_device $p-sk optional-stepdata; do
		i=$((i + 1))
		[ $i -lt 600 ] || atf_fail "not detached by its deadline"
		sleep 0.1
	done
	jb_audit_has '.action == "unmount" and .decision == "accept" and
	    .container == $c and .kind == "stepdata" and
	    .reason == "deadline reached"' --arg c $p-sk ||
	    atf_fail "the deadline's unmount is not journalled"
	rm stepdata/hold

	# a mount the default branch's step lacks is wider: the gate asks
	sed -i 's|^    - name: after$|    - name: after\n      mounts: [stepdata]|' \
	    repo/.jailbee/config.yaml
	atf_check -s exit:1 \
	    -e match:"\+ autostart.on_create after: mounts: stepdata \($w/stepdata at /home/dev/stepdata; not the default branch's\)" \
	    -e match:"escalation gate: 1 privilege" jbo repo new g
	atf_check -o inline:"" incus list -c n --format csv "^$p-g\$"
}
step_mounts_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case agent_shared
	atf_add_test_case claude_json
	atf_add_test_case npm_registry
	atf_add_test_case agent_image_missing
	atf_add_test_case trust_host_cas
	atf_add_test_case step_mounts
	atf_add_test_case step_strict_refused
	atf_add_test_case escalation_gate
	atf_add_test_case autostart_steps
	atf_add_test_case install_network
	atf_add_test_case agent_egress
	atf_add_test_case new_agent
	atf_add_test_case tmux_attach
	atf_add_test_case no_autostart_and_failures
	atf_add_test_case start_enabled
}
