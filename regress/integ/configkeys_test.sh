#! /usr/bin/env atf-sh
#
# Keys of the repo config whose effect no other program observes (issue
# 27 item 2): each case sets keys and watches what they do.  The unit test
# t_confkeys walks every key of the template and of the original's schema
# and names, for each, the case here or elsewhere that observes it, or
# checks that the parser refuses it.

. "$(atf_get_srcdir)/lib.sh"

setup() {
	jb_start
	jb_tools
	jb_image
	jb_repo
}

# the config committed on main, the default branch: the escalation gate
# compares autostart and agents with it
commit_config() {
	git -c safe.directory="*" -C repo add -A &&
	    git -c safe.directory="*" -C repo commit -q -m config ||
	    atf_fail "git commit of the config"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) repo
}

atf_test_case network_default cleanup
network_default_head() {
	atf_set descr "defaults.network: loose makes new start loose until" \
	    "loose_auto_revert.after; with loose_auto_revert.enabled false" \
	    "it stays loose; new --net strict wins over the key"
	atf_set require.user root
	atf_set timeout 300
}
network_default_body() {
	setup
	p=$(jb_prefix)
	cat >> repo/.jailbee/config.yaml <<'EOF'
defaults:
  network: loose
loose_auto_revert:
  after: 7m
EOF
	atf_check -e match:"network: loose" -e match:"ready: $p-a" \
	    jbo repo new a
	atf_check -o match:"$p-a .*: loose, strict again in (41[0-9]|420)s" \
	    jbo repo net status a
	atf_check -o inline:"loose\n" incus config get $p-a user.jailbee.net
	atf_check -e match:"network: strict" jbo repo new b --net strict
	atf_check -o match:"$p-b .*: strict" jbo repo net status b
	cat >> repo/.jailbee/config.yaml <<'EOF'
  enabled: false
EOF
	atf_check -e match:"network: loose" jbo repo new c
	atf_check -o match:"$p-c .*: loose, no revert" jbo repo net status c
}
network_default_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case steps_agents_ports cleanup
steps_agents_ports_head() {
	atf_set descr "autostart.step_timeout cuts a step, continue_on_error" \
	    "lets the next one run; an agent's update runs when auto_update" \
	    "is on and install_check passes, not when it is off; an agent" \
	    "with autostart false is not launched; host_ports proto and" \
	    "container_address shape the forward"
	atf_set require.user root
	atf_set timeout 300
}
steps_agents_ports_body() {
	setup
	p=$(jb_prefix)
	c=$p-k
	cat >> repo/.jailbee/config.yaml <<'EOF'
host_ports:
  - {name: dns, port: 5353, host_port: 5353, proto: udp,
     container_address: 127.0.0.2}
agents:
  upd:
    enabled: true
    install_check: "true"
    update: touch "$HOME/upd-updated"
    auto_update: true
    command: touch "$HOME/upd-ran"
  noupd:
    enabled: true
    install_check: "true"
    update: touch "$HOME/noupd-updated"
    auto_update: false
    autostart: false
    command: touch "$HOME/noupd-ran"
autostart:
  step_timeout: 2
  on_create:
    - name: slow
      run: sleep 60
      continue_on_error: true
    - name: after
      run: touch "$HOME/after-slow"
EOF
	commit_config
	atf_check -o save:new.out -e save:new.err jbo repo new k
	grep -q "step slow: .*continue_on_error" new.err ||
	    { cat new.err; atf_fail "the slow step was not cut and passed over"; }
	grep -q "step after: done" new.err ||
	    { cat new.err; atf_fail "the step after it did not run"; }
	atf_check in_ctr $c test -e /home/dev/after-slow
	atf_check in_ctr $c test -e /home/dev/upd-updated
	atf_check -s exit:1 in_ctr $c test -e /home/dev/noupd-updated
	# autostart: the one launched, the other not
	grep -q "agent noupd: not launched" new.err ||
	    { cat new.err; atf_fail "noupd was launched"; }
	i=0
	until in_ctr $c test -e /home/dev/upd-ran; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "upd's command never ran"
		sleep 0.1
	done
	atf_check -s exit:1 in_ctr $c test -e /home/dev/noupd-ran
	atf_check -o inline:"udp:127.0.0.2:5353\n" \
	    incus config device get $c port-cfg-dns listen
	atf_check -o inline:"udp:127.0.0.1:5353\n" \
	    incus config device get $c port-cfg-dns connect
}
steps_agents_ports_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case original_spellings cleanup
original_spellings_head() {
	atf_set descr "the original's golden.alias, golden.extra_apt_packages" \
	    "and top-level claude are base.alias, base.packages and" \
	    "agents.claude"
	atf_set require.user root
}
original_spellings_body() {
	setup
	cat > repo/.jailbee/config.yaml <<EOF
container_prefix: $(jb_prefix)
golden:
  alias: orig-img
  extra_apt_packages: [hello]
claude:
  enabled: true
  command: myclaude
EOF
	atf_check -o match:'alias: "orig-img"' -o match:'packages: \[hello\]' \
	    -o match:'command: "myclaude"' jbo repo config show
}
original_spellings_cleanup() { jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case network_default
	atf_add_test_case steps_agents_ports
	atf_add_test_case original_spellings
}
