#! /usr/bin/env atf-sh
#
# Remote SSH (issue #6, FEATURES R1-R44, REFERENCE.md section 6) with the
# real OpenSSH client against jb-sshd on 127.0.0.1:8022: one test per
# rule it covers, named after the rule.  Keys live in a home made for the
# test owner; jbctl remote ssh key manages them as that owner.

. "$(atf_get_srcdir)/lib.sh"

# key1, authorized (jb_ssh_key), and key2, not
ssh_keys() {
	jb_ssh_tools
	jb_ssh_key
	[ -f key2 ] || ssh-keygen -q -t ed25519 -N '' -C "key two" -f key2
	chmod 0644 key2.pub
}

# the suite with remote.ssh ($1: more keys under ssh:, 4 spaces in)
ssh_start() {
	jb_ssh_conf "${1:-}"
	jb_start
	ssh_keys
}

# the suite, the test repo and its running container, named in c
ssh_box() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	c=$(jb_prefix)-box
	atf_check -e ignore jbo repo new box
}

atf_test_case R4_default_listen cleanup
R4_default_listen_head() {
	atf_set descr "jb-sshd listens on 127.0.0.1:8022 by default, on a" \
	    "socket the parent opened and handed in"
	atf_set require.user root
}
R4_default_listen_body() {
	ssh_start
	pid=$(jb_pid jb-sshd)
	atf_check -o match:"127.0.0.1:8022 .*pid=$pid," ss -ltnpH
	# the host key was made at first start, root's alone
	atf_check -o inline:"600 root\n" stat -c "%a %U" \
	    state/ssh_host_ed25519_key
	atf_check -o match:"listening on 127.0.0.1:8022, commands full, host restrictions on" \
	    cat jailbeed.log
	atf_check -o match:"^listen: 127.0.0.1:8022$" -o match:"^commands: full$" \
	    -o match:"^restrict_host: true$" -o match:"^state: serving$" \
	    ./bin/jbctl -s "$(jb_sock)" remote ssh status
	# the key offered is the one jb-sshd made
	ssh-keyscan -p 8022 -t ed25519 127.0.0.1 2>/dev/null | cut -d' ' -f2- \
	    > scanned
	ssh-keygen -y -f state/ssh_host_ed25519_key | cut -d' ' -f1-2 > made
	atf_check -o file:made cat scanned
}
R4_default_listen_cleanup() { jb_cleanup; }

atf_test_case R5_publickey_only cleanup
R5_publickey_only_head() {
	atf_set descr "only publickey is offered; password, keyboard-" \
	    "interactive, host-based and GSSAPI never get through"
	atf_set require.user root
}
R5_publickey_only_body() {
	ssh_start
	atf_check -s exit:255 -e match:"Authentications that can continue: publickey.?$" \
	    jssh -v -i key2 jailbee@127.0.0.1 version
	for m in password keyboard-interactive hostbased gssapi-with-mic; do
		atf_check -s exit:255 -e match:"Permission denied \(publickey\)" \
		    jssh -o PubkeyAuthentication=no \
		    -o PreferredAuthentications=$m -o GSSAPIAuthentication=yes \
		    -o HostbasedAuthentication=yes jailbee@127.0.0.1 version
	done
	atf_check -s exit:255 -e match:"Permission denied \(publickey\)" \
	    jssh -i key2 jailbee@127.0.0.1 version
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 \
	    version
}
R5_publickey_only_cleanup() { jb_cleanup; }

atf_test_case R2_user_jailbee_only cleanup
R2_user_jailbee_only_head() {
	atf_set descr "the user name is jailbee; an authorized key under" \
	    "another name is refused"
	atf_set require.user root
}
R2_user_jailbee_only_body() {
	ssh_start
	for u in root "$JB_OWNER" jailbee2; do
		atf_check -s exit:255 -e match:"Permission denied" \
		    jssh -i key1 "$u@127.0.0.1" version
	done
}
R2_user_jailbee_only_cleanup() { jb_cleanup; }

atf_test_case R3_removed_key_refused cleanup
R3_removed_key_refused_head() {
	atf_set descr "a removed key is refused at its next connection while" \
	    "a live session goes on"
	atf_set require.user root
}
R3_removed_key_refused_body() {
	ssh_start
	atf_check -o ignore ojbctl remote ssh key add key2.pub
	atf_check -o match:"key one" -o match:"key two" ojbctl remote ssh key ls
	# a live, logged-in connection
	jssh -i key2 -N jailbee@127.0.0.1 > live.out 2>&1 &
	echo $! > live.pid
	sleep 2
	jb_alive "$(cat live.pid)" || atf_fail "the live session did not stay"
	fp=$(ssh-keygen -lf key2.pub | cut -d' ' -f2)
	atf_check -o inline:"removed $fp\n" ojbctl remote ssh key rm "$fp"
	atf_check -s exit:255 -e match:"Permission denied" \
	    jssh -i key2 jailbee@127.0.0.1 version
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 \
	    version
	jb_alive "$(cat live.pid)" || atf_fail "the live session was cut"
	kill "$(cat live.pid)"
	atf_check -s exit:1 -e match:"no key with fingerprint" \
	    ojbctl remote ssh key rm "$fp"
	atf_check -s exit:1 -e match:"not supported" -x \
	    "echo 'ssh-dss AAAA x' | setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups env HOME=$(pwd)/home ./bin/jbctl remote ssh key add"
}
R3_removed_key_refused_cleanup() {
	[ -f live.pid ] && kill "$(cat live.pid)" 2>/dev/null
	jb_cleanup
}

atf_test_case R6_forwardings_refused cleanup
R6_forwardings_refused_head() {
	atf_set descr "TCP and Unix forwardings both ways, agent and X11 are" \
	    "refused"
	atf_set require.user root
}
R6_forwardings_refused_body() {
	ssh_start
	# direct-tcpip (-W and -L use the same channel type)
	atf_check -s exit:255 -e match:"open failed: administratively prohibited" \
	    -e match:"stdio forwarding failed" \
	    jssh -v -i key1 -W 127.0.0.1:22 jailbee@127.0.0.1
	# tcpip-forward
	atf_check -s exit:255 -e match:"remote port forwarding failed" \
	    jssh -i key1 -o ExitOnForwardFailure=yes -R 127.0.0.1:0:127.0.0.1:22 \
	    jailbee@127.0.0.1 version
	# streamlocal-forward
	atf_check -s exit:255 -e match:"remote port forwarding failed" \
	    jssh -i key1 -o ExitOnForwardFailure=yes \
	    -R /tmp/jb-ssh-test.sock:127.0.0.1:22 jailbee@127.0.0.1 version
	# direct-streamlocal: a local unix listener whose channel is refused
	jssh -v -i key1 -N -L "$(pwd)/fwd.sock:/run/jb.sock" jailbee@127.0.0.1 \
	    > lfwd.out 2>&1 &
	echo $! > lfwd.pid
	i=0
	while [ ! -S fwd.sock ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5); print(len(s.recv(10)))' \
	    "$(pwd)/fwd.sock" || true
	sleep 0.5
	kill "$(cat lfwd.pid)"
	atf_check -o match:"open failed: administratively prohibited" cat lfwd.out
	# X11 and agent
	DISPLAY=:99 atf_check -o inline:"jailbeed 0.1.0\n" \
	    -e match:"X11 forwarding request failed" \
	    env DISPLAY=:99 ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o IdentitiesOnly=yes \
	    -o ForwardX11=yes -o XAuthLocation=/bin/true -i key1 \
	    jailbee@127.0.0.1 version
	# agent forwarding, with a real agent that holds the key: the
	# request is refused (journalled) and no agent channel is opened
	eval "$(ssh-agent -s)" > /dev/null
	echo "$SSH_AGENT_PID" > agent.pid
	atf_check -e ignore ssh-add key1
	cat > bin/agent <<EOS
#!/bin/sh
exec ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no \\
    -o UserKnownHostsFile=/dev/null -o BatchMode=yes \\
    -o IdentitiesOnly=yes -o IdentityAgent="$SSH_AUTH_SOCK" \\
    -i "$(pwd)/key1" -v "\$@" jailbee@127.0.0.1 version
EOS
	chmod 0755 bin/agent
	nreq() {
		jb_audit_count '.route == "auth-agent-req" and
		    .action == "ssh.auth-agent-req" and .decision == "refuse"'
	}
	atf_check -o inline:"jailbeed 0.1.0\n" -e not-match:"agent forwarding" agent -a
	[ "$(nreq)" -eq 0 ] || atf_fail "an agent refusal without an agent request"
	atf_check -o inline:"jailbeed 0.1.0\n" \
	    -e match:"Requesting authentication agent forwarding" \
	    -e not-match:"auth-agent@openssh.com" agent -A
	[ "$(nreq)" -eq 1 ] ||
	    atf_fail "the agent forwarding request was not refused: $(nreq) auth-agent-req refusals in the journal"
	kill "$SSH_AGENT_PID"
	# every refusal is journalled
	jb_audit_has '.route == "direct-tcpip" and .command == "" and
	    .container == "" and .repo == "" and .decision == "refuse" and
	    .action == "ssh.direct-tcpip"' ||
	    atf_fail "no refused direct-tcpip in the journal"
	jb_audit_has '.route == "tcpip-forward" and .action == "ssh.tcpip-forward"' ||
	    atf_fail "no refused tcpip-forward in the journal"
	jb_audit_has '.route == "x11-req" and .action == "ssh.x11-req"' ||
	    atf_fail "no refused x11-req in the journal"
}
R6_forwardings_refused_cleanup() {
	[ -f lfwd.pid ] && kill "$(cat lfwd.pid)" 2>/dev/null
	[ -f agent.pid ] && kill "$(cat agent.pid)" 2>/dev/null
	jb_cleanup
}

atf_test_case R12_exec_parsed_without_shell cleanup
R12_exec_parsed_without_shell_head() {
	atf_set descr "an exec line is split without a shell: shell syntax," \
	    "control characters and broken quotes are refused"
	atf_set require.user root
}
R12_exec_parsed_without_shell_body() {
	ssh_start
	for line in 'version; id' 'version | sh' 'version && id' \
	    'version > /tmp/x' 'version $(id)' 'version `id`'; do
		atf_check -s exit:1 -e match:"jailbee: .*shell syntax is not supported" \
		    jssh -i key1 jailbee@127.0.0.1 "$line"
	done
	atf_check -s exit:1 -e match:"jailbee: .*unterminated '" \
	    jssh -i key1 jailbee@127.0.0.1 "version 'open"
	atf_check -s exit:1 -e match:"control character" \
	    jssh -i key1 jailbee@127.0.0.1 "$(printf 'version\001')"
	# quoted, the same characters are plain words: too many for version
	atf_check -s exit:1 -e match:"wrong number of arguments" \
	    jssh -i key1 jailbee@127.0.0.1 "version ';' '|'"
	atf_check -s exit:1 -e match:'unknown command "ver sion"' \
	    jssh -i key1 jailbee@127.0.0.1 "'ver sion'"
	atf_check -o inline:"jailbeed 0.1.0\n" \
	    jssh -i key1 jailbee@127.0.0.1 "\"version\""
}
R12_exec_parsed_without_shell_cleanup() { jb_cleanup; }

atf_test_case R13_path_options_refused cleanup
R13_path_options_refused_head() {
	atf_set descr "new --mount is refused in every spelling, found by the" \
	    "command's own grammar, whatever the mode; so is a positional" \
	    "argument that names a host path (base import FILE)"
	atf_set require.user root
}
R13_path_options_refused_body() {
	ssh_start "    restrict_host: false"
	for line in "new x --mount" "new x -m" "new -m x" "new --mount x main"; do
		atf_check -s exit:1 -e match:"new --mount is refused over SSH" \
		    jssh -i key1 jailbee@127.0.0.1 "$line"
	done
	# a positional that names a host path, with restrict_host off too:
	# refused before anything opens it, and the path is not echoed
	mkdir -p img
	echo secret > img/secretfile42
	for line in "base import $(pwd)/img/secretfile42" \
	    "base import $(pwd)/img/secretfile42 --alias x"; do
		atf_check -s exit:1 -e match:"base import: argument 1 names a host path: refused over SSH" \
		    jssh -i key1 jailbee@127.0.0.1 "$line"
	done
	jb_audit_has '.command == "base import" and .decision == "refuse" and
	    .reason == "path argument"' ||
	    atf_fail "no path refusal of base import in the journal"
	atf_check -s exit:1 grep -F secretfile42 state/audit/audit.jsonl
}
R13_path_options_refused_cleanup() { jb_cleanup; }

atf_test_case R14_subsystems_refused cleanup
R14_subsystems_refused_head() {
	atf_set descr "with remote.ssh.files off, sftp and scp get nothing;" \
	    "a subsystem other than sftp is refused whatever it says"
	atf_set require.user root
}
R14_subsystems_refused_body() {
	ssh_start "    files: false"
	atf_check -s not-exit:0 -o empty \
	    -e match:"subsystem request failed on channel 0" \
	    jssh -i key1 -s jailbee@127.0.0.1 sftp
	echo x > f
	atf_check -s not-exit:0 -e match:"subsystem request failed on channel 0" \
	    -e match:"Connection closed" sftp -F /dev/null -P 8022 \
	    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o BatchMode=yes -o IdentitiesOnly=yes -i key1 \
	    -b /dev/null jailbee@127.0.0.1
	atf_check -s not-exit:0 -e match:"subsystem request failed on channel 0" \
	    -e match:"Connection closed" scp -F /dev/null -P 8022 \
	    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o BatchMode=yes -o IdentitiesOnly=yes -i key1 f \
	    jailbee@127.0.0.1:/f
	[ "$(jb_audit_count '.route == "subsystem sftp" and
	    .decision == "refuse"')" -eq 3 ] ||
	    atf_fail "not each of ssh -s, sftp and scp was refused"
	jb_audit_has '.route == "subsystem sftp" and .decision == "refuse" and
	    .reason == "remote.ssh.files is off"' ||
	    atf_fail "no sftp subsystem refused for remote.ssh.files"
	jb_cleanup
	jb_ssh_conf
	jb_start
	atf_check -s not-exit:0 -o empty \
	    -e match:"subsystem request failed on channel 0" \
	    jssh -i key1 -s jailbee@127.0.0.1 netconf
	jb_audit_has '.route == "subsystem" and .decision == "refuse"' ||
	    atf_fail "no refused netconf subsystem in the journal"
}
R14_subsystems_refused_cleanup() { jb_cleanup; }

atf_test_case R15_allowlist_exact_leaf cleanup
R15_allowlist_exact_leaf_head() {
	atf_set descr "allowlist: exact leaves only, and a group's --help" \
	    "once a leaf under it is allowed"
	atf_set require.user root
}
R15_allowlist_exact_leaf_body() {
	ssh_start "    commands:
      mode: allowlist
      allow: [version, snapshot ls]"
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 version
	atf_check -s exit:1 -e match:"status: not in this server's allowlist" \
	    jssh -i key1 jailbee@127.0.0.1 status
	atf_check -s exit:1 -e match:"snapshot create: not in this server's allowlist" \
	    jssh -i key1 jailbee@127.0.0.1 snapshot create x
	atf_check -o match:"usage: snapshot ls NAME" \
	    jssh -i key1 jailbee@127.0.0.1 snapshot --help
	atf_check -s exit:1 -e match:"not in this server's allowlist" \
	    jssh -i key1 jailbee@127.0.0.1 config --help
}
R15_allowlist_exact_leaf_cleanup() { jb_cleanup; }

atf_test_case R15_disabled_mode cleanup
R15_disabled_mode_head() {
	atf_set descr "mode disabled: every command is refused, the login is not"
	atf_set require.user root
}
R15_disabled_mode_body() {
	ssh_start "    commands:
      mode: disabled"
	for c in version status ls help; do
		atf_check -s exit:1 -e match:"commands are disabled on this server" \
		    jssh -i key1 jailbee@127.0.0.1 $c
	done
}
R15_disabled_mode_cleanup() { jb_cleanup; }

atf_test_case R19_restrict_host_refusals cleanup
R19_restrict_host_refusals_head() {
	atf_set descr "restrict_host (default) refuses every host command the" \
	    "suite has: init, config init, remote ..., audit"
	atf_set require.user root
}
R19_restrict_host_refusals_body() {
	ssh_start
	for c in init "remote ssh status" "audit" "audit --since 5m"; do
		atf_check -s exit:1 -e match:"acts on the host, refused over SSH" \
		    jssh -i key1 jailbee@127.0.0.1 "$c"
	done
	for c in "config init" "remote ssh key ls" "remote ssh key add"; do
		atf_check -s exit:1 -e match:"not available over SSH" \
		    jssh -i key1 jailbee@127.0.0.1 "$c"
	done
	atf_check -o match:"^jb-sshd " -o match:"^LOCK-DOWN" \
	    jssh -i key1 jailbee@127.0.0.1 status
	# the journal says which rule refused, in a fixed word
	jb_audit_has '.command == "init" and .decision == "refuse" and
	    .reason == "restrict_host"' ||
	    atf_fail "no refusal of init by restrict_host in the journal"
	jb_audit_has '.command == "remote ssh key ls" and .decision == "refuse" and
	    .reason == "not remote"' ||
	    atf_fail "no refusal of remote ssh key ls in the journal"
}
R19_restrict_host_refusals_cleanup() { jb_cleanup; }

atf_test_case R32_restrict_host_false cleanup
R32_restrict_host_false_head() {
	atf_set descr "restrict_host: false admits the host commands the" \
	    "parent carries out, keeps the command policy, and says so"
	atf_set require.user root
}
R32_restrict_host_false_body() {
	ssh_start "    restrict_host: false"
	atf_check -o match:"host restrictions OFF" cat jailbeed.log
	atf_check -o match:"^restrict_host: false" \
	    jssh -i key1 jailbee@127.0.0.1 remote ssh status
	atf_check -s exit:1 -e match:"not available over SSH" \
	    jssh -i key1 jailbee@127.0.0.1 remote ssh key ls
	atf_check -s exit:1 -e match:"new --mount is refused" \
	    jssh -i key1 jailbee@127.0.0.1 new x -m
	# R23 (wt-egress): --repo on egress add|rm is refused regardless
	for c in "net egress add --repo 198.18.1.9:80 box" \
	    "net egress rm 198.18.1.9:80 box --repo"; do
		atf_check -s exit:1 -e match:"--repo: changes every container" \
		    jssh -i key1 jailbee@127.0.0.1 "$c"
	done
	atf_check -o ignore -x "grep -F '\"reason\":\"repo scope\"' state/audit/audit.jsonl"
}
R32_restrict_host_false_cleanup() { jb_cleanup; }

atf_test_case R44_journal cleanup
R44_journal_head() {
	atf_set descr "one journal line per decision, with its fields, and" \
	    "never key material, the command line or env values"
	atf_set require.user root
}
R44_journal_body() {
	ssh_start
	jssh -i key2 jailbee@127.0.0.1 version 2>/dev/null
	atf_check -o ignore jssh -o SendEnv=TERM_PROGRAM -i key1 \
	    jailbee@127.0.0.1 version
	TERM_PROGRAM=SecretTerm1 jssh -o SendEnv=TERM_PROGRAM -i key1 \
	    jailbee@127.0.0.1 "snapshot ls secretarg42" > /dev/null 2>&1
	# client-chosen names: a subsystem, a container that does not exist
	jssh -i key1 -s jailbee@127.0.0.1 secretsub42 > /dev/null 2>&1
	jssh -i key1 jailbee@127.0.0.1 "exec secretctr42 -- true" \
	    > /dev/null 2>&1
	j=state/audit/audit.jsonl
	fp1=$(ssh-keygen -lf key1.pub | cut -d' ' -f2)
	fp2=$(ssh-keygen -lf key2.pub | cut -d' ' -f2)
	# one line each, every field checked (the actor is the key)
	jb_audit_has '.actor == $fp and .action == "ssh.auth" and
	    .route == "auth" and .decision == "refuse" and
	    .reason == "key not authorized" and .src == "127.0.0.1" and
	    (.port | type) == "number"' --arg fp "$fp2" ||
	    atf_fail "no refusal of key2 in the journal"
	jb_audit_has '.actor == $fp and .action == "ssh.auth" and
	    .route == "auth" and .decision == "accept" and
	    .src == "127.0.0.1" and (.port | type) == "number"' \
	    --arg fp "$fp1" || atf_fail "no login of key1 in the journal"
	jb_audit_has '.actor == $fp and .action == "ssh.exec" and
	    .route == "exec" and .command == "version" and
	    .decision == "accept" and .exit == 0 and
	    (.duration_ms | type) == "number"' --arg fp "$fp1" ||
	    atf_fail "no exec of version in the journal"
	jb_audit_has '.command == "snapshot ls" and .exit == 1 and
	    .route == "exec"' || atf_fail "no failed snapshot ls in the journal"
	# item 4: fixed identifiers, and only names that resolved
	jb_audit_has '.route == "subsystem" and .command == "" and
	    .container == "" and .decision == "refuse" and
	    .reason == "not served"' ||
	    atf_fail "no refused subsystem in the journal"
	jb_audit_has '.route == "exec" and .command == "exec" and
	    .container == "" and .repo == "" and .decision == "refuse" and
	    .reason == "unknown container"' ||
	    atf_fail "no refused exec of an unknown container in the journal"
	# no secret in the journal nor its syslog copy: key material, a
	# command's argument, an env value
	grep "audit: {" jailbeed.log > syslog.copy
	atf_check -o match:"snapshot ls" cat syslog.copy
	for secret in "$(cut -d' ' -f2 key1.pub)" "$(cut -d' ' -f2 key2.pub)" \
	    secretarg42 SecretTerm1 secretsub42 secretctr42; do
		atf_check -s exit:1 grep -F -- "$secret" $j syslog.copy
	done
	# the same lines through jbctl audit -o json, also filtered by time
	atf_check -o save:audit.out ./bin/jbctl -s "$(jb_sock)" audit -o json
	atf_check -o file:$j cat audit.out
	atf_check -o match:"snapshot ls" ./bin/jbctl -s "$(jb_sock)" audit \
	    --since 5m -o json
	# as text: one line per record, the actor and action in it
	./bin/jbctl -s "$(jb_sock)" audit > audit.txt
	atf_check -o inline:"$(wc -l < $j | tr -d ' ')\n" -x "wc -l < audit.txt | tr -d ' '"
	grep -F " $fp1 ssh.exec - accept" audit.txt | grep -q "command=version" ||
	    atf_fail "no exec of version in the text of jbctl audit"
	atf_check -s exit:1 -e match:'--since: duration "5x"' \
	    ./bin/jbctl -s "$(jb_sock)" audit --since 5x
}
R44_journal_cleanup() { jb_cleanup; }

atf_test_case R44_refusals_keep_no_client_text cleanup
R44_refusals_keep_no_client_text_head() {
	atf_set descr "a refusal over SSH of every audited command kind is" \
	    "journalled with the resolved container or nothing and a fixed" \
	    "reason, never the client's words"
	atf_set require.user root
	atf_set timeout 300
}
R44_refusals_keep_no_client_text_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	atf_check -o ignore -e ignore jbo repo init
	atf_check -o ignore -e match:"ready: $p-box" \
	    jssh -i key1 jailbee@127.0.0.1 "new box --repo $p"
	c=$p-box
	# each audited kind that reaches a job, with a name that does not
	# resolve (action, command); then with the container resolved and
	# the command's own words refused
	while IFS='|' read -r action cmd; do
		atf_check -s not-exit:0 -o ignore -e ignore \
		    jssh -i key1 jailbee@127.0.0.1 "$cmd"
		jb_audit_has '.action == $a and .decision == "refuse" and
		    .container == "" and .reason == "unknown container"' \
		    --arg a "$action" ||
		    atf_fail "no fixed refusal of $action in the journal"
	done <<EOC
start|start sEcret01
stop|stop sEcret02
restart|restart sEcret03
destroy|destroy sEcret04
net.strict|net strict sEcret05
net.egress.rm|net egress rm 198.18.1.9:80 sEcret06
unmount|unmount aws sEcret07
port.rm|port rm 8080 sEcret08
port.add|port to-host sEcret09 8080
git.fetch|git fetch sEcret10 --repo $p
git.pull|git pull sEcret11 --into sEcret11b --repo $p
EOC
	while IFS='|' read -r action cmd; do
		atf_check -s not-exit:0 -o ignore -e ignore \
		    jssh -i key1 jailbee@127.0.0.1 "$cmd"
		jb_audit_has '.action == $a and .decision == "refuse" and
		    .container == $c and .reason == "refused"' \
		    --arg a "$action" --arg c "$c" ||
		    atf_fail "no fixed refusal of $action on $c in the journal"
	done <<EOC
unmount|unmount sEcret12 $c
net.egress.rm|net egress rm sEcret13.example:443 $c
port.rm|port rm sEcret14 $c
EOC
	# new of a name that is not one: refused, and its words not kept
	atf_check -s not-exit:0 -o ignore -e ignore \
	    jssh -i key1 jailbee@127.0.0.1 "new 'sEcret15 x' --repo $p"
	grep "audit: {" jailbeed.log > syslog.copy
	atf_check -s exit:1 grep -i -- sEcret state/audit/audit.jsonl syslog.copy
}
R44_refusals_keep_no_client_text_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case git_fetch_ends_upload_pack cleanup
git_fetch_ends_upload_pack_head() {
	atf_set descr "an upload-pack that ignores the hang-up and never ends" \
	    "is killed when an SSH git fetch is done: no exec is left in" \
	    "jb-incus or the container per fetch"
	atf_set require.user root
	atf_set timeout 300
}
git_fetch_ends_upload_pack_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	c=$p-box
	atf_check -o ignore -e ignore jbo repo init
	atf_check -e ignore jbo repo new box
	# root in the container: git that ignores SIGHUP and, once its
	# upload-pack is done, stays as a sleep holding the exec's streams
	atf_check incus exec $c -- mv /usr/bin/git /usr/bin/git.real
	incus exec $c -- sh -c 'cat > /usr/bin/git' <<'EOG'
#!/bin/sh
trap '' HUP
/usr/bin/git.real "$@"
exec sleep 86413
EOG
	atf_check incus exec $c -- chmod 755 /usr/bin/git
	pid=$(jb_pid jb-incus)
	for i in 1 2 3; do
		atf_check -o match:"$c's box -> refs/jailbee/box/box" \
		    jssh -i key1 jailbee@127.0.0.1 "git fetch $c --repo $p"
		[ $i -eq 1 ] && fds=$(ls /proc/$pid/fd | wc -l)
	done
	# the sleeps are killed: none left after a moment
	n=0
	while incus exec $c -- pgrep -x -f "sleep 86413" > /dev/null; do
		n=$((n + 1))
		[ $n -lt 50 ] || atf_fail "upload-pack still runs in $c: $(incus exec $c -- pgrep -a sleep)"
		sleep 0.2
	done
	now=$(ls /proc/$pid/fd | wc -l)
	[ "$now" -le "$fds" ] ||
	    atf_fail "jb-incus holds $now fds after three fetches, $fds after one"
}
git_fetch_ends_upload_pack_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case git_pull_into_refs_only cleanup
git_pull_into_refs_only_head() {
	atf_set descr "git pull --into over SSH moves refs only: not a branch" \
	    "checked out in a linked worktree, not a name that shadows a" \
	    "remote-tracking branch or a tag, not the default branch the" \
	    "escalation gate compares with; each refused, nothing moved"
	atf_set require.user root
	atf_set timeout 300
}
git_pull_into_refs_only_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	c=$p-box
	cat > bin/hg <<EOS
#!/bin/sh
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME=/nonexistent git -C "$(pwd)/repo" "\$@"
EOS
	chmod 0755 bin/hg
	atf_check -o ignore -e ignore jbo repo init
	atf_check -e ignore jbo repo new box
	# a branch checked out in a linked worktree, a tag, and the host's
	# own checkout on feat, so that main is only the default branch
	mkdir wtd
	chown $JB_OWNER wtd
	atf_check -o ignore -e ignore hg worktree add -q $(pwd)/wtd/wt -b wtb \
	    main~1
	atf_check hg tag v1 main~2
	atf_check -o ignore -e ignore hg checkout -q feat
	hg for-each-ref --format='%(refname) %(objectname)' > refs.before
	while IFS='|' read -r into why; do
		atf_check -s not-exit:0 -e match:"$why" \
		    jssh -i key1 jailbee@127.0.0.1 \
		    "git pull $c --into $into --repo $p"
	done <<EOC
wtb|wtb is checked out in $(pwd)/wtd/wt: the git bridge over SSH updates refs only
origin/main|--into origin/main starts with the remote name origin/ and would shadow its branches
v1|--into v1 would shadow the tag v1
main|main is the repository's default branch, the baseline new compares a config with
EOC
	hg update-ref refs/remotes/up/x main
	atf_check -s not-exit:0 \
	    -e match:"would shadow the remote-tracking branch refs/remotes/up/x" \
	    jssh -i key1 jailbee@127.0.0.1 "git pull $c --into up/x --repo $p"
	hg update-ref -d refs/remotes/up/x
	# nothing moved, nothing made but the container's own ref
	hg for-each-ref --format='%(refname) %(objectname)' |
	    grep -v "^refs/jailbee/" > refs.after
	atf_check -o file:refs.before cat refs.after
	# a branch nobody has checked out still moves
	atf_check -o match:"-> refs/jailbee/box/box" \
	    jssh -i key1 jailbee@127.0.0.1 "git pull $c --into side --repo $p"
	atf_check -o inline:"$(hg rev-parse refs/jailbee/box/box)\n" \
	    hg rev-parse refs/heads/side
}
git_pull_into_refs_only_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case front_door_no_lockout cleanup
front_door_no_lockout_head() {
	atf_set descr "70 refused attempts and 256 idle connections not logged" \
	    "in from 127.0.0.2 and 127.0.0.3 lock nobody out: an authorized" \
	    "key still logs in from 127.0.0.1 before any stranger's login" \
	    "grace (15 s under -T) has run out; a key that logged" \
	    "in lately keeps its slot while it waits to sign, through 256" \
	    "new connections"
	atf_set require.user root
	atf_set timeout 300
}
front_door_no_lockout_body() {
	# 20 a window: 70 refusals pass it whichever windows they span
	ssh_start "    refusals_per_minute: 20"
	ssh-keygen -q -t ed25519 -N '' -f junk
	i=0
	while [ $i -lt 70 ]; do
		jssh -o ConnectTimeout=5 -i junk jailbee@127.0.0.1 true \
		    > /dev/null 2>&1
		i=$((i + 1))
	done
	jb_audit_has '.action == "ssh.rate-limit" and
	    .reason == "refusals_per_minute"' ||
	    atf_fail "70 refusals did not reach the source's limit"
	# a public key is no secret: refusals of another kind on connections
	# that offer key1 (a wrong user name) are not charged to key1
	i=0
	while [ $i -lt 25 ]; do
		jssh -o ConnectTimeout=5 -i key1 root@127.0.0.1 true \
		    > /dev/null 2>&1
		i=$((i + 1))
	done
	# 256 idle connections that never log in, from two other loopback
	# addresses (all of 127/8 is one source)
	python3 -c '
import socket, sys, time
ss = []
for a in (2, 3):
    for i in range(128):
        s = socket.socket()
        s.bind(("127.0.0.%d" % a, 0))
        s.connect(("127.0.0.1", 8022))
        s.sendall(b"SSH-2.0-idle\r\n")
        ss.append(s)
open("idle.ready", "w").close()
time.sleep(25)
' &
idle=$!
	n=0
	while [ ! -e idle.ready ]; do
		n=$((n + 1))
		[ $n -lt 300 ] || atf_fail "the idle connections were not made"
		sleep 0.1
	done
	start=$(date +%s%N)
	jssh -o ConnectTimeout=10 -i key1 jailbee@127.0.0.1 version > out 2>&1 ||
	    { tail -20 jailbeed.log >&2; atf_fail "key1 was refused: $(cat out)"; }
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "logged in after $ms ms"
	atf_check -o inline:"jailbeed 0.1.0\n" cat out
	# a stranger's slot was dropped for it, not waited for: a slot frees
	# by itself only when a stranger's grace ends, 15 s under -T
	[ $ms -lt 10000 ] || atf_fail "key1 logged in after $ms ms: it" \
	    "waited for a stranger's grace (15 s) to end"
	atf_check -o match:"loopback: too many connections not logged in; the oldest are dropped for new ones" \
	    cat jailbeed.log
	atf_check -s exit:1 grep "too many refusals" jailbeed.log
	kill $idle
	wait $idle || :

	# key1 logged in lately: a connection that offers it keeps its slot
	# while the key waits to sign (an agent that asks to confirm each
	# use), though 256 new connections not logged in come meanwhile
	# from 127.0.0.2 and .3, each of which drops the oldest stranger's
	cat > bin/confirm <<EOS
#!/bin/sh
touch "$(pwd)/asked"
i=0
while [ ! -e "$(pwd)/flood.done" ] && [ \$i -lt 200 ]; do
	sleep 0.05
	i=\$((i + 1))
done
echo yes
EOS
	chmod 0755 bin/confirm
	env SSH_ASKPASS="$(pwd)/bin/confirm" SSH_ASKPASS_REQUIRE=force \
	    DISPLAY=:0 ssh-agent -D -a "$(pwd)/agent.sock" > /dev/null 2>&1 &
	echo $! > agent.pid
	n=0
	until [ -S agent.sock ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || atf_fail "ssh-agent did not start"
		sleep 0.1
	done
	atf_check -e ignore env SSH_AUTH_SOCK="$(pwd)/agent.sock" \
	    ssh-add -c key1
	ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
	    -o IdentitiesOnly=yes -o IdentityAgent="$(pwd)/agent.sock" \
	    -o LogLevel=ERROR -o ConnectTimeout=10 -i key1.pub \
	    jailbee@127.0.0.1 version > agent.out 2>&1 &
	login=$!
	n=0
	until [ -e asked ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || atf_fail "the agent was not asked to sign"
		sleep 0.1
	done
	python3 -c '
import socket, time
ss = []
for a in (2, 3):
    for i in range(128):
        s = socket.socket()
        s.bind(("127.0.0.%d" % a, 0))
        s.connect(("127.0.0.1", 8022))
        s.sendall(b"SSH-2.0-idle\r\n")
        ss.append(s)
for s in ss:
    try:
        s.recv(64)
    except OSError:
        pass
open("flood.done", "w").close()
# the ones dropped early are closed, not only forgotten
time.sleep(0.5)
closed = 0
for s in ss:
    s.setblocking(False)
    try:
        while s.recv(4096):
            pass
        closed += 1
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
open("flood.closed", "w").write("%d\n" % closed)
time.sleep(15)
' &
	idle=$!
	n=0
	until [ -e flood.done ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || atf_fail "the 256 connections were not made"
		sleep 0.1
	done
	start=$(date +%s%N)
	wait $login || { tail -20 jailbeed.log >&2;
	    atf_fail "key1 through the agent was dropped: $(cat agent.out)"; }
	ms=$((($(date +%s%N) - start) / 1000000))
	atf_check -o inline:"jailbeed 0.1.0\n" cat agent.out
	# at once, not when some grace (15 s under -T) ran out
	[ $ms -lt 10000 ] || atf_fail "key1 logged in $ms ms after its" \
	    "signature: it waited for a grace (15 s) to end"
	# 128 strangers' connections from loopback at most are left open
	n=0
	until [ -s flood.closed ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || atf_fail "the closed connections were not counted"
		sleep 0.1
	done
	[ "$(cat flood.closed)" -ge 128 ] ||
	    atf_fail "only $(cat flood.closed) of 256 connections were closed"
	kill $idle
	wait $idle || :
}
front_door_no_lockout_cleanup() {
	[ -f agent.pid ] && kill "$(cat agent.pid)" 2>/dev/null
	jb_cleanup
}

atf_test_case fido_keys_refused cleanup
fido_keys_refused_head() {
	atf_set descr "a FIDO security key (sk-*) is refused by remote ssh" \
	    "key add and at login, saying why: user presence is not checked"
	atf_set require.user root
}
fido_keys_refused_body() {
	ssh_start
	# a well-formed sk-ssh-ed25519 public key (no authenticator needed:
	# the client offers it and is refused before any signature)
	sk="sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gAAAABHNzaDo= fido"
	echo "$sk" > sk.pub
	chmod 0644 sk.pub
	cp home/.config/jailbee/authorized_keys keys.before
	atf_check -s exit:1 \
	    -e match:"is a FIDO security key: refused, since jb-sshd cannot check that the key was touched" \
	    ojbctl remote ssh key add sk.pub
	atf_check -o file:keys.before cat home/.config/jailbee/authorized_keys
	# written in by hand, it is still refused at login, for that reason
	echo "$sk" >> home/.config/jailbee/authorized_keys
	# the private half is never read: the offer is refused first
	echo "not a key" > sk
	chmod 0600 sk
	fp=$(ssh-keygen -lf sk.pub | cut -d' ' -f2)
	atf_check -s exit:255 -e match:"Permission denied \(publickey\)" \
	    jssh -i sk jailbee@127.0.0.1 version
	jb_audit_has '.actor == $fp and .action == "ssh.auth" and
	    .decision == "refuse" and
	    .reason == "FIDO security key: user presence cannot be checked"' \
	    --arg fp "$fp" || atf_fail "no FIDO refusal of $fp in the journal"
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 \
	    jailbee@127.0.0.1 version
}
fido_keys_refused_cleanup() { jb_cleanup; }

atf_test_case load_64_concurrent cleanup
load_64_concurrent_head() {
	atf_set descr "64 concurrent one-shot sessions are all answered"
	atf_set require.user root
	atf_set timeout 300
}
load_64_concurrent_body() {
	ssh_start
	i=0
	pids=
	while [ $i -lt 64 ]; do
		( jssh -i key1 jailbee@127.0.0.1 version > out.$i 2>&1;
		    echo $? > rc.$i ) &
		pids="$pids $!"
		i=$((i + 1))
	done
	# not a bare wait: jailbeed is a child of this shell too
	for p in $pids; do
		wait $p
	done
	i=0
	while [ $i -lt 64 ]; do
		atf_check -o inline:"0\n" cat rc.$i
		atf_check -o inline:"jailbeed 0.1.0\n" cat out.$i
		i=$((i + 1))
	done
	atf_check -o inline:"8\n" -x \
	    "./bin/jbctl -s $(jb_sock) status -o json | jq '.processes | length'"
}
load_64_concurrent_cleanup() { jb_cleanup; }

# bin/pty_ssh CMD...: CMD (ssh) in a pseudo-terminal of 100x30 that turns
# 160x50 after "stty size" printed; prints what it got, exits with its
# status
pty_tool() {
	cat > bin/pty_ssh <<'EOP'
#!/usr/bin/env python3
import fcntl, os, pty, select, signal, struct, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
def size(rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.kill(pid, signal.SIGWINCH)
size(30, 100)
out = b""
def until(pat, secs=30):
    global out
    end = time.time() + secs
    while pat not in out and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
def say(s):
    os.write(fd, s.encode())
console = os.environ.get("PTY_CONSOLE")
if console:
    # at the console first: its own shell line opens the container's
    until(b"jailbee> ")
    say("shell %s\r" % console)
until(b"$ ")
say("stty size\r")
until(b"30 100")
size(50, 160)
# the change travels ssh, jb-sshd, jailbeed and jb-incus to Incus while
# the shell runs: asked again each second until it shows, or 20 s
for i in range(20):
    say("stty size\r")
    until(b"50 160", 1)
    if b"50 160" in out:
        break
say("exit 3\r")
if console:
    # back at the prompt, which then ends the session
    n = out.count(b"jailbee> ")
    end = time.time() + 20
    while out.count(b"jailbee> ") == n and time.time() < end:
        until(b"\x00", 0.5)
    say("exit\r")
until(b"\x00", 10)
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
EOP
	chmod 0755 bin/pty_ssh
}

atf_test_case R12_exec_in_container cleanup
R12_exec_in_container_head() {
	atf_set descr "exec NAME -- CMD: argv exactly as quoted, stdin, stdout," \
	    "stderr and exit status; the environment of R10 and R30; shell" \
	    "NAME on a pty with window changes and its exit status"
	atf_set require.user root
	atf_set timeout 600
}
R12_exec_in_container_body() {
	ssh_box
	pty_tool
	cat > line <<'EOL'
exec CTR -- printf '<%s>\n' 'a b' '$HOME' "x\"y" '' ';|&' \* a\ b
EOL
	sed -i "s/CTR/$c/" line
	printf '<a b>\n<$HOME>\n<x"y>\n<>\n<;|&>\n<*>\n<a b>\n' > want
	atf_check -o file:want jssh -i key1 jailbee@127.0.0.1 "$(cat line)"
	atf_check -s exit:7 -o inline:"out\n" -e inline:"err\n" \
	    jssh -i key1 jailbee@127.0.0.1 "exec $c -- sh -c 'echo out; echo err >&2; exit 7'"
	atf_check -o inline:"hello\n" -x "echo hello | ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o LogLevel=ERROR -i key1 jailbee@127.0.0.1 exec $c -- cat"
	# R10: five terminal-identity variables with plain values; R30 markers
	TERM_PROGRAM=iTerm.app LC_TERMINAL=iTerm2 COLORTERM='truecolor;x' \
	    FOO=bar jssh -o SendEnv=TERM_PROGRAM -o SendEnv=LC_TERMINAL \
	    -o SendEnv=COLORTERM -o SendEnv=FOO -i key1 jailbee@127.0.0.1 \
	    exec $c -- env > env.out
	for v in JAILBEE_SSH_SESSION=1 JAILBEE_REMOTE_SSH=1 LESSSECURE=1 \
	    TERM_PROGRAM=iTerm.app LC_TERMINAL=iTerm2; do
		atf_check -o ignore grep -qx "$v" env.out
	done
	atf_check -s exit:1 grep -E "^(COLORTERM|FOO)=" env.out
	# shell NAME on a pty: window changes follow, the status comes back
	atf_check -s exit:3 -o match:"30 100" -o match:"50 160" \
	    pty_ssh ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
	    -o IdentitiesOnly=yes -o LogLevel=ERROR -i key1 -t \
	    jailbee@127.0.0.1 shell $c
	# the same from the console: the prompt comes back after the shell
	PTY_CONSOLE=$c atf_check -o match:"30 100" -o match:"50 160" \
	    -o match:"jailbee> exit" \
	    pty_ssh ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no \
	    -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
	    -o IdentitiesOnly=yes -o LogLevel=ERROR -i key1 -t \
	    jailbee@127.0.0.1 console
	for r in console exec; do
		jb_audit_has '.route == $r and .action == "ssh." + $r and
		    .command == "shell" and .container == $c and
		    .repo == $p and .decision == "accept" and .exit == 3' \
		    --arg r $r --arg c "$c" --arg p "$(jb_prefix)" ||
		    atf_fail "no $r shell in $c in the journal"
	done
}
R12_exec_in_container_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case exec_stdin_large cleanup
exec_stdin_large_head() {
	atf_set descr "64 MiB on the stdin of exec NAME -- sh -c 'cat > f'" \
	    "arrive whole: the file's sha256 in the container is the" \
	    "source's, and the same bytes come back on stdout"
	atf_set require.user root
	atf_set timeout 600
}
exec_stdin_large_body() {
	ssh_box
	head -c $((64 * 1024 * 1024)) /dev/urandom > big
	sum=$(sha256sum < big | cut -d' ' -f1)
	# the client sends faster than the container takes it: the window
	# must close and open again, with nothing lost or held for good
	atf_check -o inline:"$sum  -\n" -x "ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o LogLevel=ERROR -i key1 jailbee@127.0.0.1 \"exec $c -- sh -c 'cat > /tmp/big; sha256sum < /tmp/big'\" < big"
	atf_check -o inline:"$sum  -\n" in_ctr $c sh -c 'sha256sum < /tmp/big'
	jssh -i key1 jailbee@127.0.0.1 "exec $c -- cat /tmp/big" > back ||
	    atf_fail "reading the file back failed"
	atf_check cmp big back
}
exec_stdin_large_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case exec_stdin_streamed cleanup
exec_stdin_streamed_head() {
	atf_set descr "256 MiB on the stdin of exec NAME -- stream into the" \
	    "container whole (counted and summed there as they come: the" \
	    "byte count and the sha256 are the source's) while the SSH" \
	    "session's memory stays bounded: its peak RSS stays under 32 MiB," \
	    "whatever the size of the upload"
	atf_set require.user root
	atf_set timeout 300
}
exec_stdin_streamed_body() {
	ssh_box
	size=$((256 * 1024 * 1024))
	head -c $size /dev/urandom > big
	printf '%s  -\n%s\n' "$(sha256sum < big | cut -d' ' -f1)" $size > want
	spawner=$(pgrep -P "$(jb_pid jb-sshd)") ||
	    atf_fail "jb-sshd has no spawner"
	# nothing is stored in the container: a fifo carries a copy to wc
	jssh -i key1 jailbee@127.0.0.1 "exec $c -- sh -c 'rm -f /tmp/n; mkfifo /tmp/n; wc -c < /tmp/n > /tmp/count & tee /tmp/n | sha256sum; wait; cat /tmp/count'" \
	    < big > got 2> got.err &
	client=$!
	i=0
	until session=$(pgrep -P "$spawner"); do
		i=$((i + 1))
		[ $i -lt 200 ] || atf_fail "no SSH session under the spawner"
		sleep 0.05
	done
	# the session's peak resident memory, read until it is gone
	hwm=0
	while v=$(awk '$1 == "VmHWM:" { print $2 }' \
	    "/proc/$session/status" 2>/dev/null) && [ -n "$v" ]; do
		hwm=$v
		sleep 0.1
	done
	echo "the SSH session's peak RSS: $hwm kB" >&2
	wait $client || atf_fail "the upload failed: $(cat got.err)"
	cmp -s want got || { cat got.err >&2; tail -40 jailbeed.log >&2; }
	atf_check -o file:want cat got
	[ "$hwm" -lt $((32 * 1024)) ] ||
	    atf_fail "the SSH session's peak RSS was $hwm kB, not under 32 MiB"
}
exec_stdin_streamed_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R38_excluded_repos cleanup
R38_excluded_repos_head() {
	atf_set descr "an excluded repo's containers are unlisted and give the" \
	    "unknown container's error; R28: mount-mode containers refused"
	atf_set require.user root
	atf_set timeout 600
}
R38_excluded_repos_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new box
	atf_check -e ignore jbo repo new --mount live
	atf_check -o match:"^$p-box " jssh -i key1 jailbee@127.0.0.1 ls --all
	# no checkout over SSH: ls is every container
	atf_check -o match:"^$p-box " -o match:"^$p-live " \
	    jssh -i key1 jailbee@127.0.0.1 ls
	for cmd in "exec $p-live -- true" "shell $p-live"; do
		atf_check -s exit:1 -e match:"$p-live is a mount-mode container" \
		    jssh -i key1 jailbee@127.0.0.1 "$cmd"
	done
	atf_check -s exit:1 -e match:"refused over SSH" \
	    jssh -i key1 -t jailbee@127.0.0.1 "shell $p-live"
	jb_cleanup
	jb_ssh_conf "    excluded_repos: [$p]"
	jb_start
	atf_check -o not-match:"$p-" jssh -i key1 jailbee@127.0.0.1 ls --all
	atf_check -o not-match:"$p-" jssh -i key1 jailbee@127.0.0.1 ls
	jssh -i key1 jailbee@127.0.0.1 "exec $p-box -- true" 2> excluded.err
	jssh -i key1 jailbee@127.0.0.1 "exec zz$p-box -- true" 2> unknown.err
	atf_check -o inline:"jailbee: no such container $p-box\n" cat excluded.err
	sed "s/zz$p-box/$p-box/" unknown.err > unknown.same
	atf_check -o file:excluded.err cat unknown.same
	for cmd in "stop $p-box" "snapshot ls $p-box" "destroy $p-box"; do
		atf_check -s exit:1 -e inline:"jailbee: no such container $p-box\n" \
		    jssh -i key1 jailbee@127.0.0.1 "$cmd"
	done
	atf_check -s exit:1 -e match:"while repos are excluded" \
	    jssh -i key1 jailbee@127.0.0.1 config show --layer global
	# jbctl itself is not concerned
	atf_check -o match:"^$p-box " ./bin/jbctl -s "$(jb_sock)" ls --all
}
R38_excluded_repos_cleanup() { jb_containers_cleanup; jb_cleanup; }

# the commands that name a container, X standing for the name, each
# admitted by the default policy (restrict_host on)
GATE_CMDS="net status X|net strict X|net egress ls X|net egress export X|net egress rm 198.18.1.9:80 X|mount ls X|unmount aws X|snapshot ls X|exec X -- true|stop X"

# gate_same NAME: every command of GATE_CMDS on NAME fails with the one
# error of a container that does not exist
gate_same() {
	echo "$GATE_CMDS" | tr '|' '\n' | sed "s/X/$1/" > gate.cmds
	while read -r cmd; do
		atf_check -s exit:1 -e inline:"jailbee: no such container $1\n" \
		    jssh -n -i key1 jailbee@127.0.0.1 "$cmd"
	done < gate.cmds
}

atf_test_case R38_one_gate cleanup
R38_one_gate_head() {
	atf_set descr "one remote gate for every command that names a" \
	    "container, net and mount commands too: missing, not the suite's" \
	    "and excluded give one error; the journal names the repo found"
	atf_set require.user root
	atf_set timeout 600
}
R38_one_gate_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new box
	# an Incus container without the suite's keys is not the suite's
	atf_check -o ignore -e ignore incus init "$JB_IMAGE" "$p-plain"
	# visible: answered, and the journal names the repo it resolved to
	atf_check -o not-empty jssh -i key1 jailbee@127.0.0.1 "net status $p-box"
	atf_check -o ignore jssh -i key1 jailbee@127.0.0.1 "mount ls $p-box"
	for c in "net status" "mount ls"; do
		jb_audit_has '.command == $c and .container == $p + "-box" and
		    .repo == $p and .decision == "accept"' --arg c "$c" \
		    --arg p "$p" || atf_fail "no accepted $c in the journal"
	done
	gate_same "$p-plain"
	gate_same "$p-nobody"
	jb_audit_has '.command == "net status" and .repo == "" and
	    .decision == "refuse" and .reason == "unknown container"' ||
	    atf_fail "no refused net status in the journal"
	jb_cleanup
	jb_ssh_conf "    excluded_repos: [$p]"
	jb_start
	gate_same "$p-box"
	# the host's journal says which repo was refused, and why
	jb_audit_has '.command == "net egress ls" and .repo == $p and
	    .decision == "refuse" and .reason == "excluded_repos"' \
	    --arg p "$p" || atf_fail "no refusal of an excluded repo in the journal"
	# nothing was done to it: still running, jbctl itself unconcerned
	atf_check -o match:"^$p-box +Running" ./bin/jbctl -s "$(jb_sock)" ls --all
}
R38_one_gate_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case journal_flood cleanup
journal_flood_head() {
	atf_set descr "item 3: refusals per source and per key are limited in" \
	    "the journal; on loopback they are charged to the key, so other" \
	    "keys still get in; the oldest connections not logged in are" \
	    "dropped for new ones; the journal rotates and audit streams" \
	    "it with --since, --container and --key"
	atf_set require.user root
	atf_set timeout 300
}
journal_flood_body() {
	ssh_start "    journal_max_kib: 16
    journal_keep: 3
    refusals_per_minute: 5
    max_unauthenticated_per_source: 3"
	j=state/audit/audit.jsonl
	# wait for a fresh window: refusals count per minute, 10 s under
	# the test switch
	while [ $(( $(date +%s) % 10 )) -gt 1 ]; do sleep 0.2; done
	fp2=$(ssh-keygen -lf key2.pub | cut -d' ' -f2)
	i=0
	while [ $i -lt 8 ]; do
		jssh -i key2 jailbee@127.0.0.1 version > /dev/null 2>&1
		i=$((i + 1))
	done
	# 5 refusals, one line each that says the source and the key are
	# over, then nothing
	atf_check -o inline:"5\n" -x "grep -c '\"reason\":\"key not authorized\"' $j"
	atf_check -o inline:"1\n" -x "grep -c '\"action\":\"ssh.rate-limit\",.*\"reason\":\"refusals_per_minute\",.*\"route\":\"rate limit\"' $j"
	atf_check -o inline:"1\n" -x "grep -c '\"action\":\"ssh.rate-limit\",.*\"reason\":\"refusals_per_minute: key\",.*\"route\":\"rate limit\"' $j"
	# the refusals are the key's: authorized now, it is still refused
	# for the rest of the window (a minute; 10 s under the test switch)
	atf_check -o ignore ojbctl remote ssh key add key2.pub
	atf_check -s exit:255 -e match:"Permission denied" \
	    jssh -i key2 jailbee@127.0.0.1 version
	# loopback is where every tunnelled user comes from: it is not shut
	# out, another key gets in at once
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 version
	atf_check -s exit:1 grep "too many refusals" jailbeed.log
	# three idle connections not logged in: the oldest is dropped for a
	# fourth, which logs in
	python3 -c '
import socket, time
ss = []
for i in range(3):
    s = socket.create_connection(("127.0.0.1", 8022))
    s.sendall(b"SSH-2.0-idle\r\n")
    ss.append(s)
for s in ss:
    s.recv(64)
print("connected", flush=True)
time.sleep(20)
' > idle.out &
idle=$!
	i=0
	until grep -q connected idle.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "the idle connections were not made"
		sleep 0.1
	done
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 version
	atf_check -o match:"loopback: too many connections not logged in; the oldest are dropped for new ones" \
	    cat jailbeed.log
	kill $idle; wait $idle || :
	# rotation: past 16 KiB the lines move to .1, .2; audit reads them all
	i=0
	while [ $i -lt 60 ]; do
		echo "snapshot ls nosuch$i"
		i=$((i + 1))
	done > lines
	# the current file becomes .1 by a rename: the same inode
	ino=$(stat -c %i $j)
	while read -r l; do
		jssh -n -i key1 jailbee@127.0.0.1 "$l" > /dev/null 2>&1
		[ -n "$ino" ] && [ -e $j.1 ] || continue
		atf_check -o inline:"$ino\n" stat -c %i $j.1
		ino=
	done < lines
	[ -z "$ino" ] && test -s $j.1 || atf_fail "the journal did not rotate"
	atf_check -o ignore test ! -e $j.3
	for f in $j.2 $j.1 $j; do
		[ ! -e $f ] || cat $f
	done > all
	atf_check -o file:all ./bin/jbctl -s "$(jb_sock)" audit -o json
	fp1=$(ssh-keygen -lf key1.pub | cut -d' ' -f2)
	./bin/jbctl -s "$(jb_sock)" audit --key "$fp2" > bykey
	atf_check -o inline:"5\n" -x "grep -c 'key not authorized' bykey"
	atf_check -s exit:1 grep -F "$fp1" bykey
	atf_check -o empty ./bin/jbctl -s "$(jb_sock)" audit --container nosuch1
	atf_check -o not-empty ./bin/jbctl -s "$(jb_sock)" audit --since 1m --key "$fp1"
}
journal_flood_cleanup() { jb_cleanup; }

atf_test_case R11_console cleanup
R11_console_head() {
	atf_set descr "ssh -t HOST console gets the restricted console: the" \
	    "suite's commands, split and judged as exec lines, nothing else"
	atf_set require.user root
}
R11_console_body() {
	ssh_start
	printf 'version\rls | sh\recho hi\rinit\rexit\r' > in
	atf_check -o save:console.out -e ignore -x \
	    "ssh -F /dev/null -p 8022 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o LogLevel=ERROR -i key1 -tt jailbee@127.0.0.1 console < in"
	atf_check -o match:"jailbee> " -o match:"jailbeed 0.1.0" \
	    -o match:"shell syntax is not supported" \
	    -o match:'unknown command "echo"' \
	    -o match:"init: acts on the host, refused over SSH" cat console.out
	jb_audit_has '.route == "console" and .command == "version" and
	    .decision == "accept"' || atf_fail "no console version in the journal"
	jb_audit_has '.route == "console" and .command == "init" and
	    .decision == "refuse"' || atf_fail "no console init in the journal"
	# without a terminal there is no console
	atf_check -s exit:1 -e match:"the console needs a terminal" \
	    jssh -i key1 -T jailbee@127.0.0.1 console < /dev/null
}
R11_console_cleanup() { jb_cleanup; }

atf_test_case R43_version_watcher cleanup
R43_version_watcher_head() {
	atf_set descr "a changed installed binary: new sessions refused, the" \
	    "open one drains, then jailbeed exits 75"
	atf_set require.user root
	atf_set timeout 120
}
R43_version_watcher_body() {
	jb_ssh_conf
	jb_users
	jb_bin
	jb_conf
	cp "$(jb_build)/jailbeed" ./jailbeed-copy
	ASAN_OPTIONS=detect_leaks=0 ./jailbeed-copy -d -v -f jailbeed.yaml \
	    > jailbeed.log 2>&1 &
	jpid=$!
	echo $jpid > jailbeed.pid
	i=0
	until [ -S "$(jb_sock)" ] && ./bin/jbctl -s "$(jb_sock)" status \
	    > /dev/null 2>&1; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "jailbeed did not come up"
	done
	ssh_keys
	jssh -i key1 -N jailbee@127.0.0.1 > live.out 2>&1 &
	echo $! > live.pid
	sleep 1
	touch ./jailbeed-copy
	sleep 4
	atf_check -o match:"changed: refusing new sessions" cat jailbeed.log
	atf_check -s exit:255 -e match:"refused|closed|reset" \
	    jssh -i key1 jailbee@127.0.0.1 version
	jb_alive $jpid || atf_fail "jailbeed left before the session ended"
	kill "$(cat live.pid)"
	wait $jpid
	atf_check_equal 75 $?
	atf_check -o match:"exiting with 75" cat jailbeed.log
}
R43_version_watcher_cleanup() {
	[ -f live.pid ] && kill "$(cat live.pid)" 2>/dev/null
	jb_cleanup
}

atf_test_case login_attempt_limit cleanup
login_attempt_limit_head() {
	atf_set descr "after 6 refused keys the connection is closed (libssh" \
	    "has no MaxAuthTries of its own)"
	atf_set require.user root
}
login_attempt_limit_body() {
	ssh_start
	ids=
	for i in 1 2 3 4 5 6 7 8; do
		ssh-keygen -q -t ed25519 -N '' -C "k$i" -f k$i
		ids="$ids -i k$i"
	done
	atf_check -s exit:255 -e ignore jssh $ids jailbee@127.0.0.1 version
	atf_check -o inline:"6\n" -x \
	    "grep -c '\"reason\":\"key not authorized\"' state/audit/audit.jsonl"
}
login_attempt_limit_cleanup() { jb_cleanup; }

atf_test_case login_grace_timer cleanup
login_grace_timer_head() {
	atf_set descr "a connection that does not log in is closed after its" \
	    "grace (30 s; 15 s under the test switch)"
	atf_set require.user root
	atf_set timeout 120
}
login_grace_timer_body() {
	ssh_start
	atf_check -o match:"^closed after 1[4-6] s" python3 -c '
import socket, time
s = socket.create_connection(("127.0.0.1", 8022))
t0 = time.time()
s.sendall(b"SSH-2.0-idle\r\n")
s.settimeout(60)
while s.recv(4096):
    pass
print("closed after %d s" % (time.time() - t0))
'
	# the server goes on serving
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 version
}
login_grace_timer_cleanup() { jb_cleanup; }

# remote mounts (R20, rules 52-58): a repo, a container of it, the
# owner's directories; $1: more remote.ssh keys, 4 spaces in
rm_start() {
	ssh_start "${1:-}"
	jb_tools
	jb_image
	jb_repo
}

# a directory of the owner's with one file in it
rm_dir() {
	mkdir -p "$1"
	echo "${2:-content}" > "$1/file"
	chown -R $JB_OWNER "$1"
	chmod 0755 "$1"
}

# the repo config: lib.sh's prefix and image, plus stdin
rm_config() {
	{
		printf 'container_prefix: %s\nbase:\n  alias: %s\n' \
		    "$(jb_prefix)" "$JB_IMAGE"
		cat
	} > repo/.jailbee/config.yaml
	chown $JB_OWNER repo/.jailbee/config.yaml
}

rm_has_device() { incus config device list "$1" | grep -qx "$2"; }

atf_test_case R20_mount_refused_without_grant cleanup
R20_mount_refused_without_grant_head() {
	atf_set descr "without remote.ssh.mounts or mount_roots, mount is" \
	    "refused over SSH and nothing is attached; unmount and mount ls" \
	    "are not"
	atf_set require.user root
	atf_set timeout 300
}
R20_mount_refused_without_grant_body() {
	rm_start
	w=$(realpath .)
	p=$(jb_prefix)
	rm_dir "$w/data"
	rm_config <<EOC
optional_mounts:
  data:
    host: $w/data
    container: /home/dev/data
EOC
	atf_check -e match:"ready: $p-box" jbo repo new box
	atf_check -s exit:1 -e match:"mount: refused over SSH unless remote.ssh.mounts or remote.ssh.mount_roots grants it" \
	    jssh -i key1 jailbee@127.0.0.1 mount data $p-box
	rm_has_device $p-box optional-data && atf_fail "attached anyway"
	atf_check -o match:"refuse" -o match:"restrict_host" cat jailbeed.log
	atf_check -o inline:"no mounts\n" \
	    jssh -i key1 jailbee@127.0.0.1 mount ls $p-box
	atf_check -s exit:1 -e match:"not attached" \
	    jssh -i key1 jailbee@127.0.0.1 unmount data $p-box
	# the same mount on the host is the owner's to make
	atf_check -e match:"attached data" jbo repo mount data box
}
R20_mount_refused_without_grant_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R52_mount_roots_exact_match cleanup
R52_mount_roots_exact_match_head() {
	atf_set descr "mount_roots: an entry whose real path is exactly a root" \
	    "is attached, with the root's spelling as source and read-only" \
	    "unless both say writable; a subdirectory, a prefix and a root" \
	    "scoped to other repos are refused (rules 52, 53, 55)"
	atf_set require.user root
	atf_set timeout 300
}
R52_mount_roots_exact_match_body() {
	w=$(realpath .)
	rm_start "    mount_roots:
      - path: $w/root
      - path: $w/rwroot
        readonly: false
      - path: $w/theirs
        repos: [someone-else]
      - path: $w/lroot"
	p=$(jb_prefix)
	rm_dir "$w/root" root-content
	rm_dir "$w/root/sub"
	rm_dir "$w/rootx"
	rm_dir "$w/rwroot"
	rm_dir "$w/theirs"
	rm_dir "$w/lroot"
	ln -s lroot "$w/link"
	rm_config <<EOC
optional_mounts:
  exact:
    host: $w/root
    container: /home/dev/exact
    readonly: false
  sub:
    host: $w/root/sub
    container: /home/dev/sub
  prefix:
    host: $w/rootx
    container: /home/dev/prefix
  vialink:
    host: $w/link
    container: /home/dev/vialink
  rw:
    host: $w/rwroot
    container: /home/dev/rw
    readonly: false
  theirs:
    host: $w/theirs
    container: /home/dev/theirs
EOC
	atf_check -e match:"ready: $p-box" jbo repo new box
	# the entry says writable, the root does not: read-only
	atf_check -e match:"granted by remote.ssh.mount_roots $w/root \\(read-only\\)" \
	    -e match:"attached exact on $p-box" \
	    jssh -i key1 jailbee@127.0.0.1 mount exact $p-box --for 10m
	atf_check -o inline:"root-content\n" in_ctr $p-box cat /home/dev/exact/file
	atf_check -s not-exit:0 -e match:"Read-only file system" \
	    in_ctr $p-box touch /home/dev/exact/x
	atf_check -o match:"^optional-exact +ro " jbo repo mount ls box
	for k in sub prefix; do
		atf_check -s exit:1 -e match:"mount $k: refused over SSH: .* is not one of remote.ssh.mount_roots \\(only an exact match" \
		    jssh -i key1 jailbee@127.0.0.1 mount $k $p-box
		rm_has_device $p-box optional-$k && atf_fail "$k attached"
	done
	atf_check -s exit:1 -e match:"mount root $w/theirs does not list this repo \\($p\\)" \
	    jssh -i key1 jailbee@127.0.0.1 mount theirs $p-box
	rm_has_device $p-box optional-theirs && atf_fail "theirs attached"
	# a link in a mount's source is refused, named, whatever it points at
	atf_check -s exit:1 -e match:"$w/link is a symlink" \
	    jssh -i key1 jailbee@127.0.0.1 mount vialink $p-box
	rm_has_device $p-box optional-vialink && atf_fail "vialink attached"
	# both writable: writable
	atf_check -e match:"granted by remote.ssh.mount_roots $w/rwroot\$" \
	    jssh -i key1 jailbee@127.0.0.1 mount rw $p-box
	atf_check in_ctr $p-box sh -c 'echo w > /home/dev/rw/made'
	atf_check -o inline:"w\n" cat "$w/rwroot/made"
	atf_check -o match:"^optional-rw +rw " jbo repo mount ls box
}
R52_mount_roots_exact_match_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R20_step_mounts_refused cleanup
R20_step_mounts_refused_head() {
	atf_set descr "new --repo over SSH of a repo whose autostart step" \
	    "has mounts: is refused without remote.ssh.mounts, and nothing is" \
	    "attached; the same new on the host attaches it for the step (R20)"
	atf_set require.user root
	atf_set timeout 300
}
R20_step_mounts_refused_body() {
	rm_start
	w=$(realpath .)
	p=$(jb_prefix)
	rm_dir "$w/data" s3cret
	rm_config <<EOC
optional_mounts:
  data:
    host: $w/data
    container: /home/dev/data
autostart:
  on_create:
    - name: usedata
      run: cat /home/dev/data/file > "\$HOME/during"
      mounts: [data]
EOC
	git -c safe.directory="*" -C repo add .jailbee/config.yaml &&
	    git -c safe.directory="*" -C repo commit -q -m config ||
	    atf_fail "cannot commit the config"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) repo
	atf_check -o ignore -e ignore jbo repo init
	atf_check -s not-exit:0 -o ignore \
	    -e match:"mounts are refused over SSH unless remote.ssh.mounts is set \(R20\): run new or start on the host" \
	    jssh -i key1 jailbee@127.0.0.1 "new box --repo $p"
	if incus info $p-box > /dev/null 2>&1; then
		rm_has_device $p-box optional-data && atf_fail "attached anyway"
		in_ctr $p-box test -e /home/dev/during &&
		    atf_fail "the step ran with its mount"
	fi
	# on the host the owner's new attaches it for the step
	atf_check -e match:"step usedata: mount data attached" \
	    -e match:"ready: $p-hb" jbo repo new hb
	atf_check -o inline:"s3cret\n" in_ctr $p-hb cat /home/dev/during
}
R20_step_mounts_refused_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R56_mounts_true cleanup
R56_mounts_true_head() {
	atf_set descr "remote.ssh.mounts: true grants every optional_mounts" \
	    "entry as defined: no path check, no read-only override" \
	    "(rule 56)"
	atf_set require.user root
	atf_set timeout 300
}
R56_mounts_true_body() {
	rm_start "    mounts: true"
	w=$(realpath .)
	p=$(jb_prefix)
	rm_dir "$w/anywhere/deep" deep
	rm_config <<EOC
optional_mounts:
  deep:
    host: $w/anywhere/deep
    container: /home/dev/deep
    readonly: false
EOC
	atf_check -e match:"ready: $p-box" jbo repo new box
	atf_check -e match:"attached deep on $p-box" -e not-match:"granted" \
	    jssh -i key1 jailbee@127.0.0.1 mount deep $p-box
	atf_check in_ctr $p-box sh -c 'echo w > /home/dev/deep/made'
	atf_check -o inline:"w\n" cat "$w/anywhere/deep/made"
	atf_check -o match:"^optional-deep +rw " \
	    jssh -i key1 jailbee@127.0.0.1 mount ls $p-box
	atf_check -e match:"detached deep" \
	    jssh -i key1 jailbee@127.0.0.1 unmount deep $p-box
	rm_has_device $p-box optional-deep && atf_fail "still attached"
	# still a restricted session: the other host commands stay refused
	atf_check -s exit:1 -e match:"acts on the host" \
	    jssh -i key1 jailbee@127.0.0.1 apply $p-box
}
R56_mounts_true_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R57_writable_ancestor_refused cleanup
R57_writable_ancestor_refused_head() {
	atf_set descr "a root is refused while another read-write entry of" \
	    "the repo resolves to it or an ancestor; a read-only one does" \
	    "not count (rule 57)"
	atf_set require.user root
	atf_set timeout 300
}
R57_writable_ancestor_refused_body() {
	w=$(realpath .)
	rm_start "    mount_roots:
      - path: $w/top/data"
	p=$(jb_prefix)
	rm_dir "$w/top"
	rm_dir "$w/top/data" data
	rm_config <<EOC
optional_mounts:
  data:
    host: $w/top/data
    container: /home/dev/data
  top:
    host: $w/top
    container: /home/dev/top
    readonly: false
EOC
	atf_check -e match:"ready: $p-box" jbo repo new box
	atf_check -s exit:1 -e match:"mount data: refused over SSH: mount root $w/top/data is refused: another read-write mount of this repo, $w/top, covers it" \
	    jssh -i key1 jailbee@127.0.0.1 mount data $p-box
	rm_has_device $p-box optional-data && atf_fail "attached anyway"
	# the same entry as a host mount, read-write, covers it too
	rm_config <<EOC
host_mounts:
  - host: $w/top/data
    container: /home/dev/also
    readonly: false
optional_mounts:
  data:
    host: $w/top/data
    container: /home/dev/data
EOC
	atf_check -s exit:1 -e match:"another read-write mount of this repo, $w/top/data, covers it" \
	    jssh -i key1 jailbee@127.0.0.1 mount data $p-box
	# read-only, it does not
	rm_config <<EOC
optional_mounts:
  data:
    host: $w/top/data
    container: /home/dev/data
  top:
    host: $w/top
    container: /home/dev/top
EOC
	atf_check -e match:"attached data on $p-box" \
	    jssh -i key1 jailbee@127.0.0.1 mount data $p-box
	atf_check -o inline:"data\n" in_ctr $p-box cat /home/dev/data/file
}
R57_writable_ancestor_refused_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case K3_config_modes cleanup
K3_config_modes_head() {
	atf_set descr "remote ssh key add makes ~/.config and" \
	    "~/.config/jailbee 0700 whatever the umask, writes" \
	    "authorized_keys 0600, and leaves a directory already there as" \
	    "it is (K3)"
	atf_set require.user root
}
K3_config_modes_body() {
	jb_users
	jb_ssh_tools
	ssh-keygen -q -t ed25519 -N '' -C "key one" -f key1
	chmod 0644 key1.pub
	for m in 0277 0000 0022; do
		rm -rf home
		mkdir home
		chown "$JB_OWNER" home
		chmod 0755 home
		atf_check -o match:"^added SHA256:" -x \
		    "umask $m; ojbctl remote ssh key add key1.pub"
		atf_check -o inline:"700\n700\n600\n" stat -c %a home/.config \
		    home/.config/jailbee home/.config/jailbee/authorized_keys
	done
	# an authorized_keys left readable is replaced by a 0600 one
	chmod 0644 home/.config/jailbee/authorized_keys
	ssh-keygen -q -t ed25519 -N '' -f key2
	atf_check -o match:"^added SHA256:" ojbctl remote ssh key add key2.pub
	atf_check -o inline:"600\n" stat -c %a \
	    home/.config/jailbee/authorized_keys
	# the user's own ~/.config keeps its mode
	rm -rf home/.config
	mkdir -m 0755 home/.config
	chown "$JB_OWNER" home/.config
	atf_check -o match:"^added SHA256:" ojbctl remote ssh key add key1.pub
	atf_check -o inline:"755\n700\n" stat -c %a home/.config \
	    home/.config/jailbee
	# a directory that cannot be made is said, with its path
	rm -rf home/.config
	chmod 0555 home
	atf_check -s exit:1 -e match:"mkdir .*/home/.config: Permission denied" \
	    ojbctl remote ssh key add key1.pub
}
K3_config_modes_cleanup() { return 0; }

# bin/sessions LISTENER: the session processes under jb-sshd's listener
# (its descendants running as _jbsshd), one pid a line
# bin/sessinfo PID: what the re-exec test compares, one "key value" a line
reexec_tools() {
	cat > bin/sessions <<'EOP'
#!/usr/bin/env python3
import os, pwd, sys
lpid, uid = int(sys.argv[1]), pwd.getpwnam("_jbsshd").pw_uid
def ppid(p):
    return int(open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[1])
for d in os.listdir("/proc"):
    if not d.isdigit() or int(d) == lpid:
        continue
    p = int(d)
    try:
        # not the owner of /proc/PID: a process that changed its ids is
        # not dumpable, and /proc shows it as root's
        st = open("/proc/%d/status" % p).read()
        if int(st.split("\nUid:")[1].split()[1]) != uid:
            continue
        q = p
        while q > 1 and q != lpid:
            q = ppid(q)
    except OSError:
        continue
    if q == lpid:
        print(p)
EOP
	cat > bin/sessinfo <<'EOP'
#!/usr/bin/env python3
# auxv (AT_RANDOM, AT_EXECFN...) and the libc base: a fork keeps both
# of its parent, an exec gets new ones
import hashlib, sys
p = sys.argv[1]
print("auxv", hashlib.sha256(open("/proc/%s/auxv" % p, "rb").read()).hexdigest())
for l in open("/proc/%s/maps" % p):
    f = l.split()
    if len(f) >= 6 and f[5].endswith("/libc.so.6"):
        print("libc", f[0].split("-")[0])
        break
st = open("/proc/%s/status" % p).read()
for k in ("PPid", "Uid", "NoNewPrivs", "Seccomp", "CapEff", "CapBnd"):
    for l in st.splitlines():
        if l.startswith(k + ":"):
            print(k, " ".join(l.split()[1:]))
EOP
	cat > bin/haskey <<'EOP'
#!/usr/bin/env python3
# haskey KEYFILE PID: does the process's memory hold the ed25519 private
# key of the OpenSSH key file (its 32-byte seed)?  Exit 0 yes, 1 no.
import base64, struct, sys
txt = open(sys.argv[1]).read().split("\n")
blob = base64.b64decode("".join(l for l in txt if l and not l.startswith("-----")))
assert blob.startswith(b"openssh-key-v1\0")
o = len(b"openssh-key-v1\0")
def s(o):
    n = struct.unpack(">I", blob[o:o + 4])[0]
    return blob[o + 4:o + 4 + n], o + 4 + n
_, o = s(o); _, o = s(o); _, o = s(o)
o += 4
_, o = s(o)
priv, _ = s(o)
p = 8	# checkint twice, then key type, public key, private key
def t(o):
    n = struct.unpack(">I", priv[o:o + 4])[0]
    return priv[o + 4:o + 4 + n], o + 4 + n
_, p = t(p); _, p = t(p); sk, p = t(p)
seed = sk[:32]
pid = sys.argv[2]
found = False
mem = open("/proc/%s/mem" % pid, "rb", 0)
for l in open("/proc/%s/maps" % pid):
    f = l.split()
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    name = f[5] if len(f) >= 6 else ""
    if "r" not in f[1] or hi - lo > 256 << 20 or name in ("[vvar]", "[vsyscall]", "[vvar_vclock]"):
        continue
    try:
        mem.seek(lo)
        if seed in mem.read(hi - lo):
            found = True
            print("in", f[0], name)
    except OSError:
        pass
sys.exit(0 if found else 1)
EOP
	chmod 0755 bin/sessions bin/sessinfo bin/haskey
}

atf_test_case reexec_per_session cleanup
reexec_per_session_head() {
	atf_set descr "each connection is served by a freshly exec'd session" \
	    "process: no address space, layout or memory shared with the" \
	    "listener or another session; the listener never holds the host" \
	    "key; every lock-down is kept (issue 15 item 1)"
	atf_set require.user root
	atf_set timeout 120
}
reexec_per_session_body() {
	ssh_start
	reexec_tools
	[ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ] ||
	    atf_fail "address space randomisation is off on this host (kernel.randomize_va_space = 0): the case needs it on"
	lpid=$(jb_pid jb-sshd)
	# two live, logged-in connections at once
	jssh -i key1 -N jailbee@127.0.0.1 > live1.out 2>&1 &
	echo $! > live1.pid
	jssh -i key1 -N jailbee@127.0.0.1 > live2.out 2>&1 &
	echo $! > live2.pid
	i=0
	while [ $i -lt 50 ] && [ "$(jb_audit_count '.route == "auth" and
	    .command == "" and .container == "" and .repo == "" and
	    .decision == "accept"')" != 2 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	jb_alive "$(cat live1.pid)" && jb_alive "$(cat live2.pid)" ||
	    atf_fail "the two sessions did not stay"
	bin/sessions "$lpid" > sessions
	atf_check -o inline:"2\n" -x "wc -l < sessions"
	s1=$(sed -n 1p sessions)
	s2=$(sed -n 2p sessions)
	bin/sessinfo "$lpid" > info.l
	bin/sessinfo "$s1" > info.1
	bin/sessinfo "$s2" > info.2
	cat info.l info.1 info.2
	# a fork keeps its parent's auxv and library layout; an exec does not
	for k in auxv libc; do
		l=$(grep "^$k " info.l)
		a=$(grep "^$k " info.1)
		b=$(grep "^$k " info.2)
		[ -n "$a" ] && [ -n "$b" ] || atf_fail "no $k for a session"
		[ "$a" != "$l" ] ||
		    atf_fail "session $s1 shares its $k with the listener: forked, not exec'd"
		[ "$b" != "$l" ] ||
		    atf_fail "session $s2 shares its $k with the listener: forked, not exec'd"
		[ "$a" != "$b" ] ||
		    atf_fail "sessions $s1 and $s2 share their $k"
	done
	# nor is the listener their parent: a spawner outside the chroot is
	for s in $s1 $s2; do
		sp=$(awk '/^PPid:/ { print $2 }' /proc/$s/status)
		[ "$sp" != "$lpid" ] ||
		    atf_fail "session $s is a child of the listener"
		# ... locked down as before: the empty chroot, _jbsshd, no
		# capability, no_new_privs, seccomp
		atf_check -o inline:"/var/empty/jailbee\n" readlink /proc/$s/root
		atf_check -o match:"^Uid:	$(id -u _jbsshd)	$(id -u _jbsshd)	" \
		    -o match:"^NoNewPrivs:	1" -o match:"^Seccomp:	2" \
		    -o match:"^CapEff:	0000000000000000" \
		    -o match:"^CapBnd:	0000000000000000" cat /proc/$s/status
	done
	# the spawner: root with chroot, setuid, setgid and setpcap only,
	# its bounding set too; no_new_privs, seccomp; a child of the
	# listener, outside the chroot
	sp=$(awk '/^PPid:/ { print $2 }' /proc/$s1/status)
	atf_check -o inline:"$sp\n" awk '/^PPid:/ { print $2 }' /proc/$s2/status
	atf_check -o inline:"$lpid\n" awk '/^PPid:/ { print $2 }' /proc/$sp/status
	atf_check -o match:"^Uid:	0	0	" -o match:"^NoNewPrivs:	1" \
	    -o match:"^Seccomp:	2" -o match:"^CapEff:	00000000000401c0" \
	    -o match:"^CapBnd:	00000000000401c0" cat /proc/$sp/status
	# the host key: in each session (libssh signs there), never in the
	# listener nor the spawner, which only holds the file open
	atf_check -o ignore bin/haskey state/ssh_host_ed25519_key "$s1"
	atf_check -s exit:1 bin/haskey state/ssh_host_ed25519_key "$lpid"
	atf_check -s exit:1 bin/haskey state/ssh_host_ed25519_key "$sp"
	kill "$(cat live1.pid)" "$(cat live2.pid)"
	# the sessions end with their connections; the server goes on
	i=0
	while [ $i -lt 50 ] && { jb_alive "$s1" || jb_alive "$s2"; }; do
		sleep 0.2
		i=$((i + 1))
	done
	jb_alive "$s1" && atf_fail "session $s1 outlived its connection"
	jb_alive "$s2" && atf_fail "session $s2 outlived its connection"
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 version
}
reexec_per_session_cleanup() {
	for f in live1.pid live2.pid; do
		[ -f $f ] && kill "$(cat $f)" 2>/dev/null
	done
	jb_cleanup
}

atf_test_case reload_network cleanup
reload_network_head() {
	atf_set descr "remote.ssh.network off (the default): net loose, new" \
	    "--net loose (or defaults.network: loose) and net egress add" \
	    "over SSH are refused naming the" \
	    "key; jbctl reload of a file with it on lets them through; a bad" \
	    "file or a changed restart-only key changes nothing and says" \
	    "why; SIGHUP" \
	    "reloads too; a session opened before keeps its policy; each" \
	    "reload is one journal line (K6, R19)"
	atf_set require.user root
	atf_set timeout 300
}
reload_network_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	atf_check -e ignore jbo repo new box
	for c in "net loose $p-box" "new other --net loose" \
	    "net egress add www.test:443 $p-box"; do
		atf_check -s not-exit:0 \
		    -e match:"refused over SSH \\(remote.ssh.restrict_host\\) unless remote.ssh.network grants it" \
		    jssh -i key1 jailbee@127.0.0.1 "$c"
	done
	# a loose start the repo's defaults.network asks for, as --net loose
	printf 'defaults: {network: loose}\n' >> repo/.jailbee/config.yaml
	atf_check -s not-exit:0 \
	    -e match:"defaults.network: loose .*refused over SSH \\(remote.ssh.restrict_host\\) unless remote.ssh.network grants it" \
	    jssh -i key1 jailbee@127.0.0.1 "new other --repo $p"
	atf_check -o empty incus list -c n --format csv "^$p-other\$"
	sed -i '$d' repo/.jailbee/config.yaml
	cp jailbeed.yaml good.yaml
	# a file that does not parse: refused, the old policy stays
	printf 'remote: [\n' >> jailbeed.yaml
	atf_check -s exit:1 -e match:"reload: .*jailbeed.yaml" \
	    -e match:"the running configuration is unchanged" ./bin/jbctl -s "$(jb_sock)" reload
	# a key only a restart changes: refused whole, naming it
	{ cat good.yaml; printf '    network: true\n    max_unauthenticated_per_source: 7\n'; } \
	    > jailbeed.yaml
	atf_check -s exit:1 -e match:"remote.ssh.max_unauthenticated_per_source changed" \
	    -e match:"nothing was reloaded" ./bin/jbctl -s "$(jb_sock)" reload
	atf_check -s not-exit:0 -e match:"unless remote.ssh.network" \
	    jssh -i key1 jailbee@127.0.0.1 "net loose $p-box"
	# a session that starts before the reload keeps its policy: its
	# console line after the reload is still judged by the old one
	(sleep 4; printf 'net loose %s\rexit\r' "$p-box"; sleep 2) |
	    jssh -tt -i key1 jailbee@127.0.0.1 console > console.out 2>&1 &
	cpid=$!
	sleep 2
	{ cat good.yaml; printf '    network: true\n'; } > jailbeed.yaml
	atf_check -o match:"^reload: .* in force" ./bin/jbctl -s "$(jb_sock)" reload
	wait $cpid
	atf_check -o match:"unless remote.ssh.network" cat console.out
	atf_check -o match:"^$p-box [0-9.]*: strict" jbo repo net status box
	# a new session gets the new policy
	atf_check -o ignore -e ignore jssh -i key1 jailbee@127.0.0.1 \
	    "net loose $p-box --for 5m"
	atf_check -o match:"^$p-box [0-9.]*: loose, strict again in" \
	    jbo repo net status box
	# the repo layer stays the host's
	atf_check -s not-exit:0 -e match:"--repo: changes every container" \
	    jssh -i key1 jailbee@127.0.0.1 "net egress add --repo www.test:443 $p-box"
	# SIGHUP: back to the file without it
	cp good.yaml jailbeed.yaml
	kill -HUP "$(jb_pid jailbeed)"
	i=0
	until [ "$(jb_audit_count '.action == "reload" and
	    .decision == "accept"')" -ge 2 ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "SIGHUP: no reload journalled"
		sleep 0.1
	done
	atf_check -s not-exit:0 -e match:"unless remote.ssh.network" \
	    jssh -i key1 jailbee@127.0.0.1 "net loose $p-box"
	# every reload was journalled, with who asked and why it was refused
	[ "$(jb_audit_count '.action == "reload"')" = 4 ] ||
	    atf_fail "not 4 reloads in the journal: $(cat state/audit/audit.jsonl)"
	jb_audit_has '.action == "reload" and .actor == "uid:0" and
	    .decision == "refuse" and
	    .reason == "remote.ssh.max_unauthenticated_per_source changed: needs a restart"' ||
	    atf_fail "no refused reload by uid 0 in the journal"
	jb_audit_has '.action == "reload" and .actor == "signal" and
	    .decision == "accept" and .reason == "reloaded"' ||
	    atf_fail "no reload by the signal in the journal"
	# reload is the host's own: never over SSH
	atf_check -s not-exit:0 -e match:"reload: not available over SSH" \
	    jssh -i key1 jailbee@127.0.0.1 reload
}
reload_network_cleanup() { jb_containers_cleanup; jb_cleanup; }

# the console's answers to `version` so far
console_versions() {
	grep -c "jailbeed 0.1.0" console.out 2>/dev/null || true
}

# wait until the console has answered n times
console_wait() {
	i=0
	until [ "$(console_versions)" -ge "$1" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "the console did not answer: $(cat console.out)"
		sleep 0.1
	done
}

atf_test_case reload_listen cleanup
reload_listen_head() {
	atf_set descr "jbctl reload moves remote.ssh.listen without a" \
	    "restart: jbctl binds the new address and jailbeed hands the" \
	    "socket to jb-sshd; the old port refuses, a session opened" \
	    "before keeps working; an address in use changes nothing and" \
	    "is named; off closes the listener; SIGHUP cannot move it and" \
	    "says to run jbctl reload; every move is journalled; a socket" \
	    "passed in unasked drops the client and is closed"
	atf_set require.user root
	atf_set timeout 200
}
reload_listen_body() {
	ssh_start
	cp jailbeed.yaml good.yaml
	sed 's/-p 8022/-p 8025/' bin/jssh > bin/jssh8025
	chmod 0755 bin/jssh8025
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 \
	    version
	# a socket passed in unasked (no reload waits for it): the client is
	# dropped and the socket closed, so nothing listens there after
	cat > passfd.py <<'EOS'
import socket, struct, sys
l = socket.socket()
l.bind(("127.0.0.1", 8028))
l.listen(1)
c = socket.socket(socket.AF_UNIX)
c.connect(sys.argv[1])
body = b"127.0.0.1:8022".ljust(64, b"\0") + bytes(1024)
hdr = struct.pack("=IIII", 1541, (16 + len(body)) | 0x80000000, 3, 0)
c.sendmsg([hdr + body], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
    struct.pack("i", l.fileno()))])
c.settimeout(10)
print("eof" if c.recv(100) == b"" else "answered")
l.close()
EOS
	atf_check -o inline:"eof\n" /usr/bin/python3 passfd.py "$(jb_sock)"
	atf_check -o match:"control: connection [0-9]+: unexpected CTL_LISTEN_FD" \
	    cat jailbeed.log
	atf_check -o not-match:"127.0.0.1:8028 " ss -ltnH
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 \
	    version
	# a console session, kept open across the reloads
	mkfifo cin
	jssh -tt -i key1 jailbee@127.0.0.1 console < cin > console.out 2>&1 &
	echo $! > console.pid
	exec 3> cin
	printf 'version\r' >&3
	console_wait 1

	# moved by the owner's jbctl reload: jbctl binds, jb-sshd serves
	{ cat good.yaml; printf '    listen: 127.0.0.1:8025\n'; } > jailbeed.yaml
	atf_check -o match:"^reload: .* in force; SSH now listens on 127.0.0.1:8025 \\(was 127.0.0.1:8022\\)" \
	    ojbctl reload
	atf_check -o inline:"jailbeed 0.1.0\n" jssh8025 -i key1 \
	    jailbee@127.0.0.1 version
	atf_check -s exit:255 -e match:"port 8022: Connection refused" \
	    jssh -i key1 jailbee@127.0.0.1 version
	pid=$(jb_pid jb-sshd)
	atf_check -o match:"127.0.0.1:8025 .*pid=$pid," \
	    -o not-match:"127.0.0.1:8022 " ss -ltnpH
	atf_check -o match:"^listen: 127.0.0.1:8025$" \
	    ./bin/jbctl -s "$(jb_sock)" remote ssh status
	# the session from before still answers
	printf 'version\r' >&3
	console_wait 2
	jb_audit_has '.action == "reload" and .actor == "uid:'"$(id -u "$JB_OWNER")"'" and
	    .decision == "accept" and .listen_from == "127.0.0.1:8022" and
	    .listen_to == "127.0.0.1:8025"' ||
	    atf_fail "the move is not journalled: $(cat state/audit/audit.jsonl)"

	# an address another program listens on: nothing changes, named
	/usr/bin/python3 -c 'import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 8026))
s.listen(1)
time.sleep(120)' &
	echo $! > squat.pid
	i=0
	until ss -ltnH | grep -q "127.0.0.1:8026 "; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "the squatter does not listen"
		sleep 0.1
	done
	{ cat good.yaml; printf '    listen: 127.0.0.1:8026\n    restrict_host: false\n'; } \
	    > jailbeed.yaml
	atf_check -s exit:1 \
	    -e match:"cannot listen on 127.0.0.1:8026 .*Address already in use" \
	    -e match:"nothing was reloaded, remote.ssh.listen stays 127.0.0.1:8025" \
	    ./bin/jbctl -s "$(jb_sock)" reload
	kill "$(cat squat.pid)"
	wait "$(cat squat.pid)" 2>/dev/null || true
	rm -f squat.pid
	atf_check -o inline:"jailbeed 0.1.0\n" jssh8025 -i key1 \
	    jailbee@127.0.0.1 version
	# the rest of that file was not taken either
	atf_check -o match:"^listen: 127.0.0.1:8025$" \
	    -o match:"^restrict_host: true$" \
	    ./bin/jbctl -s "$(jb_sock)" remote ssh status
	jb_audit_has '.action == "reload" and .decision == "refuse" and
	    .reason == "remote.ssh.listen 127.0.0.1:8026: cannot bind"' ||
	    atf_fail "the refusal is not journalled"

	# SIGHUP cannot move it: refused, saying to run jbctl reload
	{ cat good.yaml; printf '    listen: 127.0.0.1:8027\n'; } > jailbeed.yaml
	kill -HUP "$(jb_pid jailbeed)"
	i=0
	until jb_audit_has '.action == "reload" and .actor == "signal" and
	    .decision == "refuse" and
	    .reason == "remote.ssh.listen changed: needs jbctl reload"'; do
		i=$((i + 1))
		[ $i -lt 50 ] || atf_fail "SIGHUP: no refusal journalled"
		sleep 0.1
	done
	atf_check -o match:"remote.ssh.listen changed \\(127.0.0.1:8025 to 127.0.0.1:8027\\), which a SIGHUP cannot put in force.*run \`jbctl reload\`" \
	    cat jailbeed.log
	atf_check -o inline:"jailbeed 0.1.0\n" jssh8025 -i key1 \
	    jailbee@127.0.0.1 version
	atf_check -s exit:255 -e match:"port 8027: Connection refused" \
	    ssh -F /dev/null -p 8027 -o BatchMode=yes -o ConnectTimeout=5 \
	    jailbee@127.0.0.1 version

	# off: the listener closes, no socket asked for; then back
	{ cat good.yaml; printf '    listen: "off"\n'; } > jailbeed.yaml
	atf_check -o match:"SSH now listens nowhere \\(off\\) \\(was 127.0.0.1:8025\\)" \
	    ./bin/jbctl -s "$(jb_sock)" reload
	atf_check -s exit:255 -e match:"port 8025: Connection refused" \
	    jssh8025 -i key1 jailbee@127.0.0.1 version
	cp good.yaml jailbeed.yaml
	atf_check -o match:"SSH now listens on 127.0.0.1:8022 \\(was off\\)" \
	    ./bin/jbctl -s "$(jb_sock)" reload
	atf_check -o inline:"jailbeed 0.1.0\n" jssh -i key1 jailbee@127.0.0.1 \
	    version
	# and the first session lived through all of it
	printf 'version\r' >&3
	console_wait 3
	printf 'exit\r' >&3
	exec 3>&-
	wait "$(cat console.pid)" || true
	rm -f console.pid
}
reload_listen_cleanup() {
	for f in squat.pid console.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	jb_cleanup
}

atf_test_case R12_repo_over_ssh cleanup
R12_repo_over_ssh_head() {
	atf_set descr "init registers the checkout; over SSH --repo PREFIX" \
	    "runs a command as if in it, new included; unknown and excluded" \
	    "prefixes give one error; repo ls and repo rm are the host's"
	atf_set require.user root
	atf_set timeout 300
}
R12_repo_over_ssh_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	atf_check -o empty ./bin/jbctl -s "$(jb_sock)" repo ls
	atf_check -o ignore -e ignore jbo repo init
	atf_check -o inline:"$p\t$(pwd)/repo\n" ./bin/jbctl -s "$(jb_sock)" repo ls
	# without a checkout, new cannot know the repo; with --repo it can
	atf_check -s not-exit:0 \
	    -e match:"this command needs a repository: add --repo PREFIX" \
	    jssh -i key1 jailbee@127.0.0.1 "new box"
	atf_check -o ignore -e match:"ready: $p-box" \
	    jssh -i key1 jailbee@127.0.0.1 "new box --repo $p"
	atf_check -o match:"^ *$p-box +Running" -x \
	    "jssh -i key1 jailbee@127.0.0.1 'ls --repo=$p'"
	atf_check -o match:"container_prefix: \"$p\"" \
	    jssh -i key1 jailbee@127.0.0.1 "config show --repo $p"
	# the container is the repo's own: a clone of the checkout
	atf_check -o inline:"box\n" in_ctr $p-box git -C /home/dev/$p \
	    branch --show-current
	atf_check -s not-exit:0 -e match:"^jailbee: no such repo nosuch\$" \
	    jssh -i key1 jailbee@127.0.0.1 "ls --repo nosuch"
	for c in "ls --repo $p --repo $p" "ls --repo" "ls --repo="; do
		atf_check -s not-exit:0 -e match:"--repo: give it once" \
		    jssh -i key1 jailbee@127.0.0.1 "$c"
	done
	atf_check -s not-exit:0 -e match:"--repo: not a container prefix" \
	    jssh -i key1 jailbee@127.0.0.1 "ls --repo ../x"
	# the registry is the host's: not over SSH
	for c in "repo ls" "repo rm $p"; do
		atf_check -s not-exit:0 -e match:"not available over SSH" \
		    jssh -i key1 jailbee@127.0.0.1 "$c"
	done
	# excluded: the same error as unknown, after a reload
	{ cat jailbeed.yaml; printf '    excluded_repos: [%s]\n' "$p"; } > x.yaml
	mv x.yaml jailbeed.yaml
	atf_check -o ignore ./bin/jbctl -s "$(jb_sock)" reload
	atf_check -s not-exit:0 -e match:"^jailbee: no such repo $p\$" \
	    jssh -i key1 jailbee@127.0.0.1 "ls --repo $p"
	jb_audit_has '.repo == "" and .decision == "refuse" and
	    .reason == "unknown repo"' ||
	    atf_fail "no refusal of an unknown repo in the journal"
	# the prefix the client typed is not the journal's
	atf_check -s exit:1 grep -F nosuch state/audit/audit.jsonl
	jb_audit_has '.repo == $p and .decision == "refuse" and
	    .reason == "excluded_repos"' --arg p "$p" ||
	    atf_fail "no refusal of an excluded repo in the journal"
	# forgotten: gone for SSH too, the container stays
	atf_check -e match:"forgot $p" ./bin/jbctl -s "$(jb_sock)" repo rm $p
	atf_check -o empty ./bin/jbctl -s "$(jb_sock)" repo ls
	atf_check -s not-exit:0 -e match:"is not registered" ./bin/jbctl -s "$(jb_sock)" repo rm $p
	atf_check -o match:"^$p-box +Running" ./bin/jbctl -s "$(jb_sock)" ls --all
	# a registry that survives a restart
	atf_check -o ignore -e ignore jbo repo init
	jb_cleanup
	jb_start
	atf_check -o inline:"$p\t$(pwd)/repo\n" ./bin/jbctl -s "$(jb_sock)" repo ls
}
R12_repo_over_ssh_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R27_escalation_over_ssh cleanup
R27_escalation_over_ssh_head() {
	atf_set descr "new over SSH of a checkout whose autostart grants more" \
	    "than the default branch's config is refused outright, --yes" \
	    "included; the same config without the wider step goes through"
	atf_set require.user root
	atf_set timeout 300
}
R27_escalation_over_ssh_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	# the default branch's config is committed; the checkout adds a
	# loose step to it
	git -c safe.directory="*" -C repo add .jailbee/config.yaml &&
	    git -c safe.directory="*" -C repo commit -q -m config ||
	    atf_fail "cannot commit the config"
	chown -R $JB_OWNER:$(id -gn $JB_OWNER) repo
	atf_check -o ignore -e ignore jbo repo init
	cp repo/.jailbee/config.yaml committed.yaml
	cat >> repo/.jailbee/config.yaml <<'EOF'
autostart:
  on_start:
    - {name: wide, run: "true", network: loose}
EOF
	for y in "" " --yes"; do
		atf_check -s not-exit:0 \
		    -e match:"1 privilege\\(s\\) wider than the default branch's config: refused over SSH, --yes included" \
		    -o ignore jssh -i key1 jailbee@127.0.0.1 "new g1 --repo $p$y"
	done
	atf_check -o inline:"" incus list -c n --format csv "^$p-g1\$"
	cp committed.yaml repo/.jailbee/config.yaml
	atf_check -o ignore -e match:"ready: $p-g1" \
	    jssh -i key1 jailbee@127.0.0.1 "new g1 --repo $p"
}
R27_escalation_over_ssh_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case R24_git_bridge_over_ssh cleanup
R24_git_bridge_over_ssh_head() {
	atf_set descr "R24-R27: over SSH with --repo, git fetch brings a" \
	    "container's commit into refs/jailbee/ of the host checkout and" \
	    "pull --into fast-forwards a branch not checked out; pull into" \
	    "the checked-out branch, pull without --into and checkout are" \
	    "refused before anything is fetched; a hook a mount-mode" \
	    "container plants in the host's .git runs on neither, where plain" \
	    "git runs it; each use is one journal line"
	atf_set require.user root
	atf_set timeout 600
}
R24_git_bridge_over_ssh_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	c=$p-box
	cat > bin/hg <<EOS
#!/bin/sh
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME=/nonexistent git -C "$(pwd)/repo" "\$@"
EOS
	cat > bin/cg <<EOS
#!/bin/sh
exec in_ctr $c git -C /home/dev/$p \\
    -c user.email=dev@example.org -c user.name=dev "\$@"
EOS
	cat > bin/gs <<EOS
#!/bin/sh
exec jssh -i "$(pwd)/key1" jailbee@127.0.0.1 "\$@"
EOS
	chmod 0755 bin/hg bin/cg bin/gs
	atf_check -o ignore -e ignore jbo repo init
	atf_check -e ignore jbo repo new box
	base=$(hg rev-parse main)

	d=/home/dev/$p
	in_ctr $c sh -c "echo inside > $d/made-inside"
	atf_check -e ignore cg add made-inside
	atf_check -e ignore cg commit -q -m "made inside"
	sha=$(cg rev-parse HEAD)
	# a mount-mode container of the same repo writes the host
	# checkout's .git, where fetch and pull --into run: it plants a
	# reference-transaction hook, which host git runs on every ref
	# update, that leaves a mark in .git (the one place the bridge's
	# worker may write) and fails, so that a run shows as a refused ref
	# update even where the mark cannot be written
	atf_check -e ignore jbo repo new --mount mnt
	in_ctr $p-mnt sh -c "
	    printf '#!/bin/sh\ntouch $(pwd)/repo/.git/jb-mark-hook\nexit 1\n' \
	    > $d/.git/hooks/reference-transaction &&
	    chmod +x $d/.git/hooks/reference-transaction"
	[ -x repo/.git/hooks/reference-transaction ] ||
	    atf_fail "the mount container could not plant the hook"

	# refused before anything is fetched: the ref stays absent
	atf_check -s not-exit:0 -e match:"main is checked out" \
	    -e match:"refs only" gs "git pull $c --into main --repo $p"
	atf_check -s not-exit:0 -e match:"git pull: refused over SSH without --into" \
	    -e match:"--into BRANCH" gs "git pull $c --repo $p"
	atf_check -s not-exit:0 -e match:"git checkout: refused over SSH" \
	    -e match:"git fetch NAME" gs "git checkout $c --repo $p"
	atf_check -s not-exit:0 -e match:"run it with jbctl" \
	    gs "git push $c --repo $p"
	atf_check -s not-exit:0 -e match:"not a branch name" \
	    gs "git fetch $c ../../heads/main --repo $p"
	atf_check -s not-exit:0 -e match:"needs a repository: add --repo" \
	    gs "git fetch $c"
	atf_check -s exit:1 -o empty hg rev-parse -q --verify \
	    refs/jailbee/box/box
	atf_check -o inline:"$base\n" hg rev-parse main

	# fetch: the commit is in refs/jailbee/box/box, no branch moved
	atf_check -o match:"^$c's box -> refs/jailbee/box/box: 1 new commit, [1-9][0-9]* objects?, [1-9][0-9]* bytes received" \
	    gs "git fetch $c --repo $p"
	atf_check -o inline:"$sha\n" hg rev-parse refs/jailbee/box/box
	atf_check -o inline:"$base\n" hg rev-parse main
	atf_check -o inline:"refs/heads/main\n" hg symbolic-ref HEAD
	atf_check -o empty hg for-each-ref refs/heads/box
	atf_check -o match:"made inside" hg log -1 --format=%s refs/jailbee/box/box
	jb_audit_has '.action == "git.fetch" and .container == $c and
	    .repo == $p and .decision == "accept" and .branch == "box" and
	    .refs == "refs/jailbee/box/box" and .bytes > 0' \
	    --arg c "$c" --arg p "$p" || atf_fail "no git.fetch in the journal"

	# pull --into a branch not checked out: feat fast-forwards
	atf_check -o match:"^feat: .* \(fast-forward to $c's box\)" \
	    gs "git pull $c --into feat --repo $p"
	atf_check -o inline:"$sha\n" hg rev-parse feat
	atf_check -o inline:"$base\n" hg rev-parse main
	atf_check -o empty hg status --porcelain --untracked-files=no
	jb_audit_has '.action == "git.pull" and .container == $c and
	    .decision == "accept" and .branch == "box" and
	    (.refs | contains("refs/heads/feat"))' --arg c "$c" ||
	    atf_fail "no git.pull in the journal"
	# refusals journalled with their reason
	jb_audit_has '.command == "git checkout" and .decision == "refuse" and
	    .reason == "git refs only"' || atf_fail "no refused checkout"
	jb_audit_has '.command == "git pull" and .decision == "refuse" and
	    .reason == "git refs only"' || atf_fail "no refused pull"
	jb_audit_has '.action == "git.pull" and .decision == "refuse" and
	    (.reason | contains("checked out"))' ||
	    atf_fail "no refused pull --into main"

	# nothing the planted hook would do happened on the bridge; plain
	# host git, given the same .git, runs it: the ref update fails and
	# the mark appears
	[ ! -e repo/.git/jb-mark-hook ] ||
	    atf_fail "the planted hook ran on the host"
	atf_check -s not-exit:0 -e match:"reference-transaction|hook" \
	    hg update-ref refs/heads/probe main
	[ -e repo/.git/jb-mark-hook ] ||
	    atf_fail "control: plain git did not run the planted hook"
	atf_check -s exit:1 -o empty hg rev-parse -q --verify refs/heads/probe
	rm -f repo/.git/hooks/reference-transaction repo/.git/jb-mark-hook

	# diverged: --into refuses, the branch stays
	hg -c user.email=h@example.org -c user.name=h commit -q --allow-empty \
	    -m "on the host"
	hg branch side main
	side=$(hg rev-parse side)
	atf_check -e ignore cg commit -q --allow-empty -m "second inside"
	atf_check -s not-exit:0 -e match:"side and the container's box have diverged" \
	    gs "git pull $c --into side --repo $p"
	atf_check -o inline:"$side\n" hg rev-parse side
}
R24_git_bridge_over_ssh_cleanup() {
	jb_containers_cleanup
	jb_cleanup
}

atf_test_case N1_restore_over_ssh cleanup
N1_restore_over_ssh_head() {
	atf_set descr "snapshot create and restore over SSH: a credential" \
	    "mount whose deadline passed after the snapshot is not brought" \
	    "back; mount ls over SSH and on the host agree"
	atf_set require.user root
	atf_set timeout 300
}
N1_restore_over_ssh_body() {
	rm_start
	w=$(realpath .)
	p=$(jb_prefix)
	rm_dir "$w/aws" secret
	rm_config <<EOC
optional_mounts:
  aws:
    host: $w/aws
    container: /home/dev/.aws
EOC
	atf_check -e match:"ready: $p-box" jbo repo new box
	atf_check -e match:"attached aws" jbo repo mount aws box --for 4s
	atf_check -o inline:"secret\n" in_ctr $p-box cat /home/dev/.aws/file
	atf_check -o ignore -e ignore \
	    jssh -i key1 jailbee@127.0.0.1 snapshot create $p-box withcred
	i=0
	while rm_has_device $p-box optional-aws; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "not detached 10 s after a 4 s mount"
		sleep 0.1
	done
	atf_check -o ignore -e save:restore.err \
	    jssh -i key1 jailbee@127.0.0.1 snapshot restore $p-box withcred
	atf_check -o inline:"RUNNING\n" incus list -c s --format csv "^$p-box\$"
	rm_has_device $p-box optional-aws && atf_fail "optional-aws came back"
	atf_check -s not-exit:0 -e ignore in_ctr $p-box cat /home/dev/.aws/file
	atf_check -o inline:"no mounts\n" \
	    jssh -i key1 jailbee@127.0.0.1 mount ls $p-box
	atf_check -o match:"^no mounts" jbo repo mount ls box
	atf_check -o match:"removing device optional-aws, which the snapshot held" \
	    cat restore.err
}
N1_restore_over_ssh_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_test_case N6_git_worker_wall_limit cleanup
N6_git_worker_wall_limit_head() {
	atf_set descr "a container that never sends its pack does not hold" \
	    "the host's git: the worker is stopped at its wall-time limit" \
	    "(20 s in test builds) with a clear message, no ref moves, and a" \
	    "fetch from an honest container works afterwards"
	atf_set require.user root
	atf_set timeout 300
}
N6_git_worker_wall_limit_body() {
	ssh_start
	jb_tools
	jb_image
	jb_repo
	p=$(jb_prefix)
	c=$p-box
	cat > bin/hg <<EOS
#!/bin/sh
exec setpriv --reuid=$JB_OWNER --regid=$JB_OWNER --init-groups \\
    env HOME=/nonexistent git -C "$(pwd)/repo" "\$@"
EOS
	chmod 0755 bin/hg
	atf_check -o ignore -e ignore jbo repo init
	atf_check -e ignore jbo repo new box
	atf_check -e ignore in_ctr $c git -C /home/dev/$p -c user.email=d@e \
	    -c user.name=d commit -q --allow-empty -m "inside"
	# the container's root makes upload-pack sleep instead of packing
	atf_check in_ctr $c sudo -n git config --system \
	    uploadpack.packObjectsHook "sleep 3600; :"
	start=$(date +%s)
	atf_check -s not-exit:0 -o ignore \
	    -e match:"the git fetch ran longer than its limit of 20 s and was stopped" \
	    timeout 120 jssh -i key1 jailbee@127.0.0.1 "git fetch $c --repo $p"
	took=$(($(date +%s) - start))
	[ $took -lt 60 ] || atf_fail "stopped after $took s, not about 20 s"
	atf_check -s exit:1 -o empty hg rev-parse -q --verify refs/jailbee/box/box
	atf_check -o match:"ran longer than 20 s: stopping it" cat jailbeed.log
	# no git of the worker is left on the host (the container's own, in
	# its namespaces, are not the host's)
	atf_check -s exit:1 pgrep --ns $$ --nslist pid,mnt -u $JB_OWNER -x git
	# an honest container: the fetch goes through
	atf_check in_ctr $c sudo -n git config --system --unset \
	    uploadpack.packObjectsHook
	atf_check -o match:"refs/jailbee/box/box: 1 new commit" \
	    jssh -i key1 jailbee@127.0.0.1 "git fetch $c --repo $p"
	atf_check -o match:"^[0-9a-f]{40}$" hg rev-parse refs/jailbee/box/box
}
N6_git_worker_wall_limit_cleanup() { jb_containers_cleanup; jb_cleanup; }

atf_init_test_cases() {
	atf_add_test_case R27_escalation_over_ssh
	atf_add_test_case R12_repo_over_ssh
	atf_add_test_case reload_network
	atf_add_test_case reload_listen
	atf_add_test_case K3_config_modes
	atf_add_test_case R20_mount_refused_without_grant
	atf_add_test_case R20_step_mounts_refused
	atf_add_test_case R52_mount_roots_exact_match
	atf_add_test_case R56_mounts_true
	atf_add_test_case R57_writable_ancestor_refused
	atf_add_test_case R2_user_jailbee_only
	atf_add_test_case R3_removed_key_refused
	atf_add_test_case R4_default_listen
	atf_add_test_case R5_publickey_only
	atf_add_test_case R6_forwardings_refused
	atf_add_test_case R12_exec_parsed_without_shell
	atf_add_test_case R13_path_options_refused
	atf_add_test_case R14_subsystems_refused
	atf_add_test_case R15_allowlist_exact_leaf
	atf_add_test_case R15_disabled_mode
	atf_add_test_case R19_restrict_host_refusals
	atf_add_test_case R32_restrict_host_false
	atf_add_test_case R11_console
	atf_add_test_case R12_exec_in_container
	atf_add_test_case exec_stdin_large
	atf_add_test_case exec_stdin_streamed
	atf_add_test_case R38_excluded_repos
	atf_add_test_case R38_one_gate
	atf_add_test_case R43_version_watcher
	atf_add_test_case R44_journal
	atf_add_test_case fido_keys_refused
	atf_add_test_case front_door_no_lockout
	atf_add_test_case git_pull_into_refs_only
	atf_add_test_case git_fetch_ends_upload_pack
	atf_add_test_case R44_refusals_keep_no_client_text
	atf_add_test_case journal_flood
	atf_add_test_case load_64_concurrent
	atf_add_test_case login_attempt_limit
	atf_add_test_case login_grace_timer
	atf_add_test_case reexec_per_session
	atf_add_test_case R24_git_bridge_over_ssh
	atf_add_test_case N1_restore_over_ssh
	atf_add_test_case N6_git_worker_wall_limit
}
