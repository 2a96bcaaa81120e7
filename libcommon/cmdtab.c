/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmdtab.h"

const struct cmd cmdtab[] = {
	{ .words = { "status" }, .id = CMD_STATUS, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0, .flags = CMD_NOJOB,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "show every process of the suite: pid, user, group, "
	  "capabilities and uptime, as each reports itself" },
	{ .words = { "version" }, .id = CMD_VERSION, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0, .flags = CMD_NOJOB,
	  .help = "print the versions of jbctl and of the running jailbeed" },
	{ .words = { "help" }, .id = CMD_HELP, .cls = CMD_HOST,
	  .args = "[COMMAND...]", .min_args = 0, .max_args = CMD_MAXWORDS,
	  .flags = CMD_NOJOB,
	  .help = "print the commands, or the usage of one command" },
	{ .words = { "init" }, .id = CMD_INIT, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .help = "register the git checkout you stand in: check its "
	  ".jailbee/config.yaml (written from the template when missing) and "
	  "say which prefix and base image its containers get" },
	{ .words = { "new" }, .id = CMD_NEW, .cls = CMD_CONTAINER,
	  .args = "NAME [BASE]", .min_args = 1, .max_args = 2,
	  .opts = { { .lname = "mount", .sname = 'm',
	      .help = "the host working tree itself, read-write, instead of "
	      "a clone" },
	    { .lname = "net", .argname = "MODE", .choices = "strict|loose",
	      .help = "network mode from the start (default strict; loose "
	      "reverts after loose_auto_revert)" },
	    { .lname = "memory", .argname = "SIZE",
	      .help = "its memory limit instead of defaults.memory (512MiB, "
	      "4GiB, or 25% of the host's)" },
	    { .lname = "cpu", .argname = "N",
	      .help = "its CPU limit instead of defaults.cpu (a count, or "
	      "50% of the host's CPUs)" },
	    { .lname = "agent", .argname = "AGENT",
	      .help = "enable agents.AGENT for this container: install it "
	      "(install_check, then install when that fails) and launch it "
	      "in the tmux session autostart" },
	    { .lname = "no-autostart",
	      .help = "install enabled agents but launch none and run no "
	      "autostart step" },
	    { .lname = "yes", .sname = 'y',
	      .help = "accept autostart or agents wider than the default "
	      "branch's config without asking (never over SSH)" },
	    { .lname = "target", .argname = "MEMBER",
	      .help = "on a cluster: place it on Incus cluster member MEMBER "
	      "(this member for --mount or host mounts)" } },
	  .help = "create container <prefix>-NAME holding a clone of this "
	  "checkout on branch NAME (made from BASE, or the default branch, "
	  "when it does not exist)" },
	{ .words = { "ls" }, .id = CMD_LS, .cls = CMD_CONTAINER,
	  .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "all", .sname = 'a',
	      .help = "every JailBee container, not only this repo's" },
	    { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "list containers: name, state, address, branch, mode" },
	{ .words = { "start" }, .id = CMD_START, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "no-autostart",
	      .help = "check or install the enabled agents but launch "
	      "none" } },
	  .help = "start a container, then install and launch the agents "
	  "the config enables" },
	{ .words = { "stop" }, .id = CMD_STOP, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "force", .sname = 'f',
	      .help = "stop at once instead of a clean shutdown" } },
	  .help = "stop a container: a clean shutdown of 30 s at most, then "
	  "a forced one" },
	{ .words = { "restart" }, .id = CMD_RESTART, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "no-autostart",
	      .help = "check or install the enabled agents but launch "
	      "none" } },
	  .help = "restart a container, then install and launch the agents "
	  "the config enables" },
	{ .words = { "destroy" }, .id = CMD_DESTROY, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "force", .sname = 'f',
	      .help = "destroy even what the host does not have" } },
	  .help = "delete a container; refused while it holds uncommitted "
	  "changes or commits the host does not have" },
	{ .words = { "exec" }, .id = CMD_EXEC, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME -- COMMAND [ARG...]", .min_args = 2, .max_args = 127,
	  .help = "run a command in a container as the dev user, in the "
	  "clone; its exit status is jbctl's" },
	{ .words = { "shell" }, .id = CMD_SHELL, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "a login shell in a container as the dev user, in the "
	  "clone" },
	{ .words = { "tmux" }, .id = CMD_TMUX, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "attach the container's tmux session autostart, where "
	  "enabled agents run" },
	{ .words = { "snapshot", "create" }, .id = CMD_SNAP_CREATE,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME [TAG]", .min_args = 1,
	  .max_args = 2,
	  .help = "snapshot a container's storage (default tag "
	  "snap-YYYYMMDD-HHMMSSZ)" },
	{ .words = { "snapshot", "restore" }, .id = CMD_SNAP_RESTORE,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME TAG", .min_args = 2,
	  .max_args = 2, .help = "restore a container to a snapshot" },
	{ .words = { "snapshot", "ls" }, .id = CMD_SNAP_LS,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "list a container's snapshots" },
	{ .words = { "snapshot", "delete" }, .id = CMD_SNAP_DELETE,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME TAG", .min_args = 2,
	  .max_args = 2, .help = "delete a snapshot" },
	{ .words = { "config", "show" }, .id = CMD_CONFIG_SHOW,
	  .cls = CMD_HOST, .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "layer", .sname = 'l', .argname = "LAYER",
	      .choices = "global|repo|local|effective",
	      .help = "one file, or all of them merged (default)" } },
	  .help = "print this repo's configuration" },
	{ .words = { "config", "validate" }, .id = CMD_CONFIG_VALIDATE,
	  .cls = CMD_HOST, .args = "", .min_args = 0, .max_args = 0,
	  .help = "check this repo's configuration; errors name file, line "
	  "and key" },
	{ .words = { "config", "init" }, .id = CMD_CONFIG_INIT,
	  .cls = CMD_HOST, .args = "", .min_args = 0, .max_args = 0,
	  .flags = CMD_LOCAL,
	  .opts = { { .lname = "force", .help = "replace an existing file" } },
	  .help = "write .jailbee/config.yaml from the template" },
	{ .words = { "remote", "ssh", "key", "add" },
	  .id = CMD_REMOTE_SSH_KEY_ADD, .cls = CMD_HOST, .args = "[FILE]",
	  .min_args = 0, .max_args = 1, .flags = CMD_LOCAL, .path_args = 0x1,
	  .help = "let an SSH public key log in to jb-sshd: one OpenSSH "
	  "public key line, read from FILE or standard input, added to "
	  "~/.config/jailbee/authorized_keys" },
	{ .words = { "remote", "ssh", "key", "rm" },
	  .id = CMD_REMOTE_SSH_KEY_RM, .cls = CMD_HOST, .args = "FINGERPRINT",
	  .min_args = 1, .max_args = 1, .flags = CMD_LOCAL,
	  .help = "remove the key with this SHA256: fingerprint; its next "
	  "connection is refused, live sessions go on" },
	{ .words = { "remote", "ssh", "key", "ls" },
	  .id = CMD_REMOTE_SSH_KEY_LS, .cls = CMD_HOST, .args = "",
	  .min_args = 0, .max_args = 0, .flags = CMD_LOCAL,
	  .help = "list the keys that may log in: fingerprint, type, "
	  "comment" },
	{ .words = { "remote", "ssh", "status" },
	  .id = CMD_REMOTE_SSH_STATUS, .cls = CMD_HOST, .args = "",
	  .min_args = 0, .max_args = 0,
	  .help = "where jb-sshd listens, its command policy and its live "
	  "sessions" },
	{ .words = { "audit" }, .id = CMD_AUDIT, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "since", .argname = "DURATION",
	      .help = "only the last DURATION (30s, 5m, 2h)" },
	    { .lname = "container", .argname = "NAME",
	      .help = "only the lines of container NAME" },
	    { .lname = "key", .argname = "FINGERPRINT",
	      .help = "only the lines of the key with this SHA256: "
	      "fingerprint" },
	    { .lname = "action", .argname = "ACTION",
	      .help = "only this action, or those under it (net matches "
	      "net.loose, net.egress.add...)" },
	    { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "one line of text (default) or the journal's JSON "
	      "line per record" } },
	  .help = "print the audit journal, the rotated files first: one "
	  "record per network change, refused names or connections summary, "
	  "mount, port "
	  "forward, lifecycle command and SSH decision" },
	/* mounts */
	{ .words = { "mount" }, .id = CMD_MOUNT, .cls = CMD_HOST,
	  .name_arg = 2,
	  .args = "KIND NAME", .min_args = 2, .max_args = 2,
	  .opts = { { .lname = "for", .argname = "DURATION",
	      .help = "detach it after DURATION (30s, 45m, 4h; at most 24h)" },
	    { .lname = "no-revert",
	      .help = "no deadline: attached until unmount" } },
	  .help = "attach the optional_mounts entry KIND to a running "
	  "container, until its deadline (--for, else the entry's "
	  "auto_unmount_after, else mount_auto_revert); on an attached one, "
	  "move only the deadline" },
	{ .words = { "unmount" }, .id = CMD_UNMOUNT, .cls = CMD_CONTAINER,
	  .name_arg = 2,
	  .args = "KIND NAME", .min_args = 2, .max_args = 2,
	  .help = "detach optional mount KIND from a container now" },
	{ .words = { "mount", "ls" }, .id = CMD_MOUNT_LS,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "list the mounts attached to a container and their "
	  "deadlines" },
	{ .words = { "info" }, .id = CMD_INFO, .cls = CMD_CONTAINER,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "show a container's state and the resource limits in force "
	  "(memory, cpu, processes, root disk size), as Incus holds them" },
	{ .words = { "apply" }, .id = CMD_APPLY, .cls = CMD_HOST,
	  .name_arg = 1,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "put the config's limits (defaults.memory, cpu, processes, "
	  "disk) on a container, attach the host_mounts entries a running "
	  "container lacks, "
	  "each checked as for new, make its host_ports forwards what the "
	  "config declares, and give jb-netd its egress_allow as it is now" },
	{ .words = { "base", "build" }, .id = CMD_BASE_BUILD,
	  .cls = CMD_HOST, .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "alias", .argname = "ALIAS",
	      .help = "import under ALIAS instead of this repo's base.alias" },
	    { .lname = "keep", .argname = "FILE", .is_path = 1,
	      .help = "also keep the image tarball as FILE" },
	    { .lname = "agent", .argname = "AGENT",
	      .help = "build the image agents.AGENT's containers start "
	      "from: base.packages and the agent's packages" } },
	  .help = "build the base image from Debian packages with mmdebstrap "
	  "(bash, curl, git, iproute2, less, openssh-client, procps, sudo, "
	  "tmux, ca-certificates, the dev user, and base.packages) and "
	  "import it under this repo's base.alias (jailbee-base unless the "
	  "repo sets base.alias or base.packages)" },
	{ .words = { "base", "import" }, .id = CMD_BASE_IMPORT,
	  .cls = CMD_HOST, .args = "FILE", .min_args = 1, .max_args = 1,
	  .path_args = 0x1,
	  .opts = { { .lname = "alias", .argname = "ALIAS",
	      .help = "import under ALIAS instead of this repo's base.alias" } },
	  .help = "import a unified Incus image tarball (metadata.yaml + "
	  "rootfs/) as a JailBee base image and point the alias at it" },
	{ .words = { "base", "usage" }, .id = CMD_BASE_USAGE,
	  .cls = CMD_HOST, .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "list JailBee's base images and images its containers "
	  "use: aliases, size, and the containers made from each" },
	{ .words = { "base", "prune" }, .id = CMD_BASE_PRUNE,
	  .cls = CMD_HOST, .args = "", .min_args = 0, .max_args = 0,
	  .help = "delete the base images JailBee imported that no container "
	  "uses and no alias names" },
	{ .words = { "net", "strict" }, .id = CMD_NET_STRICT,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "back to the allowlist at once; established connections "
	  "are cut" },
	{ .words = { "net", "loose" }, .id = CMD_NET_LOOSE,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "for", .argname = "DURATION",
	      .help = "strict again after DURATION (30s, 45m, 4h; default "
	      "loose_auto_revert)" },
	    { .lname = "no-revert", .help = "stay loose until net strict" } },
	  .help = "let a container reach everything, until its deadline" },
	{ .words = { "net", "status" }, .id = CMD_NET_STATUS,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "[NAME]", .min_args = 0, .max_args = 1,
	  .opts = { { .lname = "all", .sname = 'a',
	      .help = "every JailBee container, not only this repo's" },
	    { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "the network boundary of a container, or of every "
	  "container of this repo: mode and time left, each allow entry and "
	  "its origin, the addresses admitted for each allowed name and "
	  "until when, the port forwards (which bypass the filter), and what "
	  "is broken" },
	{ .words = { "net", "egress", "add" }, .id = CMD_NET_EGRESS_ADD,
	  .name_arg = 2,
	  .cls = CMD_CONTAINER, .args = "ENTRY NAME", .min_args = 2,
	  .max_args = 2,
	  .opts = { { .lname = "repo",
	      .help = "to every container of NAME's repo on this machine, "
	      "now and when made (host-local; never over SSH)" } },
	  .help = "allow one more egress entry to a container, beside its "
	  "config's egress_allow" },
	{ .words = { "net", "egress", "rm" }, .id = CMD_NET_EGRESS_RM,
	  .name_arg = 2,
	  .cls = CMD_CONTAINER, .args = "ENTRY NAME", .min_args = 2,
	  .max_args = 2,
	  .opts = { { .lname = "repo",
	      .help = "from the repo layer net egress add --repo gave "
	      "(never over SSH)" } },
	  .help = "remove an entry net egress add gave; the config's entries "
	  "stay" },
	{ .words = { "net", "egress", "ls" }, .id = CMD_NET_EGRESS_LS,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "a container's egress entries and where each comes from" },
	{ .words = { "net", "egress", "export" }, .id = CMD_NET_EGRESS_EXPORT,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "print egress_allow with the overrides folded in, to paste "
	  "into the config" },
	{ .words = { "net", "refresh" }, .id = CMD_NET_REFRESH,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "resolve a container's allowed names now, pool the "
	  "addresses and pin them in its /etc/hosts" },
	{ .words = { "git", "connect" }, .id = CMD_GIT_CONNECT,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME upload-pack|receive-pack",
	  .min_args = 2, .max_args = 2,
	  .help = "git's pack protocol on stdin and stdout: git upload-pack "
	  "or receive-pack in the container's clone (git-remote-jailbee "
	  "runs this)" },
	{ .words = { "git", "fetch" }, .id = CMD_GIT_FETCH, .cls = CMD_CONTAINER,
	  .name_arg = 1, .flags = CMD_LOCAL,
	  .args = "NAME [BRANCH]", .min_args = 1, .max_args = 2,
	  .help = "fetch a container's branch (default: the one it was made "
	  "for) into refs/jailbee/NAME/BRANCH; prints the commits, objects "
	  "and bytes that moved (over SSH too, with --repo)" },
	{ .words = { "git", "pull" }, .id = CMD_GIT_PULL, .cls = CMD_CONTAINER,
	  .name_arg = 1, .flags = CMD_LOCAL,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "into", .argname = "BRANCH",
	      .help = "fast-forward this host branch without checking it "
	      "out (made when missing)" } },
	  .help = "fetch a container's branch and fast-forward the host's "
	  "current branch to it (clean tree required); a diverged branch "
	  "is refused; over SSH only with --into (refs only)" },
	{ .words = { "git", "push" }, .id = CMD_GIT_PUSH, .cls = CMD_CONTAINER,
	  .name_arg = 1, .flags = CMD_LOCAL,
	  .args = "NAME [BRANCH]", .min_args = 1, .max_args = 2,
	  .help = "push a host branch (default: the current one) to the "
	  "same branch of the container's clone, fast-forward only; its "
	  "checked-out branch moves only with a clean tree" },
	{ .words = { "git", "diff" }, .id = CMD_GIT_DIFF, .cls = CMD_CONTAINER,
	  .name_arg = 1, .flags = CMD_LOCAL,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "fetch a container's branch and show what it changed since "
	  "it left the host's HEAD (no host branch moves)" },
	{ .words = { "git", "log" }, .id = CMD_GIT_LOG, .cls = CMD_CONTAINER,
	  .name_arg = 1, .flags = CMD_LOCAL,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "fetch a container's branch and list its commits the "
	  "host's HEAD does not have (no host branch moves)" },
	{ .words = { "git", "checkout" }, .id = CMD_GIT_CHECKOUT,
	  .cls = CMD_CONTAINER, .name_arg = 1, .flags = CMD_LOCAL,
	  .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "as", .argname = "BRANCH",
	      .help = "the new host branch's name (default: the container's "
	      "branch)" } },
	  .help = "fetch a container's branch and check it out on the host "
	  "as a new branch (clean tree required); not over SSH" },
	/* port forwards: Incus proxy devices, outside the filter */
	{ .words = { "port", "to-container" }, .id = CMD_PORT_TO_CONTAINER,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME PORT", .min_args = 2,
	  .max_args = 2,
	  .opts = { { .lname = "host-port", .argname = "N",
	      .help = "the host service's port (default PORT)" },
	    { .lname = "proto", .argname = "PROTO", .choices = "tcp|udp",
	      .help = "tcp (default) or udp" },
	    { .lname = "host-address", .argname = "IP",
	      .help = "the host service's IPv4 address (default 127.0.0.1; "
	      "another is taken with a warning)" },
	    { .lname = "container-address", .argname = "IP",
	      .help = "where it listens inside (default 127.0.0.1)" } },
	  .help = "let the container reach a host service at "
	  "127.0.0.1:PORT inside; it bypasses the network filter" },
	{ .words = { "port", "to-host" }, .id = CMD_PORT_TO_HOST,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME PORT", .min_args = 2,
	  .max_args = 2,
	  .opts = { { .lname = "host-port", .argname = "N|auto",
	      .help = "the host port, 1024 or above (default PORT; auto: "
	      "the lowest of 20000-29999 no forward takes)" },
	    { .lname = "proto", .argname = "PROTO", .choices = "tcp|udp",
	      .help = "tcp (default) or udp" },
	    { .lname = "host-address", .argname = "IP",
	      .help = "where it listens on the host (default 127.0.0.1; "
	      "another is taken with a warning)" },
	    { .lname = "container-address", .argname = "IP",
	      .help = "the container service's address (default "
	      "127.0.0.1)" } },
	  .help = "reach the container's service at PORT from the host's "
	  "127.0.0.1" },
	{ .words = { "port", "ls" }, .id = CMD_PORT_LS,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "[NAME]", .min_args = 0,
	  .max_args = 1,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "list the port forwards of a container, or of every "
	  "container of this repo" },
	{ .words = { "port", "rm" }, .id = CMD_PORT_RM,
	  .name_arg = 2,
	  .cls = CMD_CONTAINER, .args = "HANDLE NAME", .min_args = 2,
	  .max_args = 2,
	  .help = "remove a forward: HANDLE is its device, its host_ports "
	  "name or its container port (a host_ports one comes back at the "
	  "next start or apply)" },
	{ .words = { "net", "log" }, .id = CMD_NET_LOG,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .opts = { { .lname = "since", .argname = "DURATION",
	      .help = "only what was last refused in the last DURATION (30s, "
	      "5m, 2h)" },
	    { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "what jb-netd refused to a container: the names its "
	  "resolver refused and the connection attempts the filter rejected "
	  "(address:port/proto), each with a count and when first and last "
	  "refused" },
	{ .words = { "net", "suggest" }, .id = CMD_NET_SUGGEST,
	  .name_arg = 1,
	  .cls = CMD_CONTAINER, .args = "NAME", .min_args = 1, .max_args = 1,
	  .help = "print the egress_allow entries that would admit what net "
	  "log lists (a connection by the name the resolver answered its "
	  "address for, else by address), ready to paste into the config" },
	{ .words = { "repo", "ls" }, .id = CMD_REPO_LS, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .help = "list the registered repositories, the ones an SSH session "
	  "may select with --repo PREFIX: prefix and checkout, one per line "
	  "(init and new register the checkout they run in)" },
	{ .words = { "repo", "rm" }, .id = CMD_REPO_RM, .cls = CMD_HOST,
	  .args = "PREFIX", .min_args = 1, .max_args = 1,
	  .help = "forget a registered repository (its containers stay)" },
	{ .words = { "dashboard" }, .id = CMD_DASHBOARD, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0, .flags = CMD_LOCAL,
	  .opts = { { .lname = "all", .sname = 'a',
	      .help = "the containers of every registered repo, not only "
	      "this repo's" } },
	  .help = "a live screen of the containers: state, network mode and "
	  "time left, address, branch, mounts, agent windows, last refused "
	  "destination, and a panel for the selected one; its keys act "
	  "through the same requests as the commands (? lists them)" },
	{ .words = { "secret", "ls" }, .id = CMD_SECRET_LS, .cls = CMD_HOST,
	  .args = "[NAME]", .min_args = 0, .max_args = 1,
	  .help = "this repo's secrets: each name, its hosts, its header and "
	  "its file, never a value; NAME: that one alone" },
	{ .words = { "reload" }, .id = CMD_RELOAD, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .help = "read jailbeed.yaml again and put it in force whole, as "
	  "SIGHUP does: a file that does not parse, or that changes a key "
	  "only a restart can, changes nothing and says why; SSH sessions "
	  "already open keep their policy" },
	{ .words = { "doctor" }, .id = CMD_DOCTOR, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "check the suite, the host and this repo's containers: "
	  "each check PASS, WARN or FAIL with the fix; exit status 1 on a "
	  "FAIL" },
	{ .words = { "_test-attempt" }, .id = CMD_TEST_ATTEMPT,
	  .cls = CMD_INTERNAL, .args = "PROCESS read|write|connect|netlink PATH",
	  .min_args = 3, .max_args = 3, .flags = CMD_NOJOB, .path_args = 0x4,
	  .help = "tests only (a suite started with jailbeed -T): make "
	  "PROCESS try an operation its lock-down forbids" },
};
const int cmdtab_len = sizeof(cmdtab) / sizeof(cmdtab[0]);

const struct cmd *
cmd_lookup(int argc, char *const argv[], int *nwords)
{
	const struct cmd	*best = NULL;
	int			 i, w, bestw = 0;

	for (i = 0; i < cmdtab_len; i++) {
		for (w = 0; w < CMD_MAXWORDS && cmdtab[i].words[w] != NULL;
		    w++)
			if (w >= argc || strcmp(argv[w], cmdtab[i].words[w]))
				break;
		if ((w == CMD_MAXWORDS || cmdtab[i].words[w] == NULL) &&
		    w > bestw) {
			best = &cmdtab[i];
			bestw = w;
		}
	}
	if (nwords != NULL)
		*nwords = bestw;
	return best;
}

int
cmd_in_group(const struct cmd *c, int argc, char *const argv[])
{
	int	w;

	if (argc < 1 || argc >= CMD_MAXWORDS)
		return 0;
	for (w = 0; w < argc; w++)
		if (c->words[w] == NULL || strcmp(argv[w], c->words[w]) != 0)
			return 0;
	return c->words[argc] != NULL;
}

/* is v one of the '|'-separated choices, exactly? */
int
cmd_choice_ok(const char *choices, const char *v)
{
	const char	*p = choices, *e;
	size_t		 n = strlen(v);

	for (;;) {
		e = strchr(p, '|');
		if ((e ? (size_t)(e - p) : strlen(p)) == n &&
		    strncmp(p, v, n) == 0)
			return 1;
		if (e == NULL)
			return 0;
		p = e + 1;
	}
}

const struct cmd *
cmd_find(enum cmd_id id)
{
	int	i;

	for (i = 0; i < cmdtab_len; i++)
		if (cmdtab[i].id == id)
			return &cmdtab[i];
	return NULL;
}

const char *
cmd_class_name(enum cmd_class cls)
{
	switch (cls) {
	case CMD_HOST:
		return "host";
	case CMD_CONTAINER:
		return "container";
	case CMD_INTERNAL:
		return "internal";
	case CMD_UNCLASSIFIED:
		break;
	}
	return "unclassified";
}

const char *
cmd_name(const struct cmd *c, char *buf, size_t len)
{
	int	w;

	buf[0] = '\0';
	for (w = 0; w < CMD_MAXWORDS && c->words[w] != NULL; w++) {
		if (w > 0)
			strlcat(buf, " ", len);
		strlcat(buf, c->words[w], len);
	}
	return buf;
}
