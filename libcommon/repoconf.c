/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrlimits.h"
#include "duration.h"
#include "portspec.h"
#include "repoconf.h"
#include "repoconf_agents.h"
#include "repoconf_autostart.h"
#include "repoconf_compat.h"
#include "repoconf_github.h"
#include "yamltree.h"

#define RC_OFF(f)	offsetof(struct repoconf, f)
#define RC_SIZE(f)	sizeof(((struct repoconf *)NULL)->f)
#define RC_LOCAL_PATTERN \
	"${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/<container_prefix>.yaml"

static int	valid_prefix(const char *, char *, size_t);
static int	valid_host(const char *, char *, size_t);
static int	valid_target(const char *, char *, size_t);
static int	valid_network(const char *, char *, size_t);
static int	valid_memory(const char *, char *, size_t);
static int	valid_disk(const char *, char *, size_t);
static int	rc_cpu(struct yt_ctx *, const struct yt_node *, void *);
static int	valid_pool(const char *, char *, size_t);
static int	valid_alias(const char *, char *, size_t);
static int	rc_tribool(struct yt_ctx *, const struct yt_node *, void *);
static int	rc_packages(struct yt_ctx *, const struct yt_node *, void *);
static int	rc_env(struct yt_ctx *, const struct yt_node *, void *);
static int	rc_mounts(struct yt_ctx *, const struct yt_node *, void *);
static int	rc_optional(struct yt_ctx *, const struct yt_node *, void *);
static int	rc_ports(struct yt_ctx *, const struct yt_node *, void *);
static int	valid_port_name(const char *, char *, size_t);
static int	valid_proto(const char *, char *, size_t);
static int	valid_ipv4(const char *, char *, size_t);
static int	rc_refuse_prefix(struct yt_ctx *, const struct yt_node *,
		    void *);

static const struct yt_field user_fields[] = {
	{ .key = "uid", .type = YT_INT, .off = RC_OFF(container_uid),
	  .size = sizeof(int), .min = 1, .max = RC_UID_MAX,
	  .flags = YT_NULL_OK },
	{ .key = "gid", .type = YT_INT, .off = RC_OFF(container_gid),
	  .size = sizeof(int), .min = 1, .max = RC_UID_MAX,
	  .flags = YT_NULL_OK },
	{ .key = NULL }
};

static const struct yt_field container_fields[] = {
	{ .key = "env", .type = YT_CUSTOM, .off = RC_OFF(env), .fn = rc_env },
	{ .key = NULL }
};

/* one host_mounts item; the base is a struct rc_mount */
static const struct yt_field mount_fields[] = {
	{ .key = "host", .type = YT_STRING,
	  .off = offsetof(struct rc_mount, host),
	  .size = sizeof(((struct rc_mount *)NULL)->host),
	  .flags = YT_REQUIRED, .valid = valid_host },
	{ .key = "container", .type = YT_PATH,
	  .off = offsetof(struct rc_mount, container),
	  .size = sizeof(((struct rc_mount *)NULL)->container),
	  .flags = YT_REQUIRED, .valid = valid_target },
	{ .key = "readonly", .type = YT_BOOL,
	  .off = offsetof(struct rc_mount, readonly), .flags = YT_NULL_OK },
	{ .key = NULL }
};

/* one optional_mounts entry; the base is a struct rc_optional */
static const struct yt_field optional_fields[] = {
	{ .key = "host", .type = YT_STRING,
	  .off = offsetof(struct rc_optional, m.host),
	  .size = sizeof(((struct rc_optional *)NULL)->m.host),
	  .flags = YT_REQUIRED, .valid = valid_host },
	{ .key = "container", .type = YT_PATH,
	  .off = offsetof(struct rc_optional, m.container),
	  .size = sizeof(((struct rc_optional *)NULL)->m.container),
	  .flags = YT_REQUIRED, .valid = valid_target },
	{ .key = "readonly", .type = YT_BOOL,
	  .off = offsetof(struct rc_optional, m.readonly),
	  .flags = YT_NULL_OK },
	{ .key = "description", .type = YT_STRING,
	  .off = offsetof(struct rc_optional, description),
	  .size = sizeof(((struct rc_optional *)NULL)->description),
	  .flags = YT_NULL_OK },
	{ .key = "auto_unmount_after", .type = YT_DURATION,
	  .off = offsetof(struct rc_optional, auto_unmount_after), .min = 1,
	  .max = DURATION_MAX_DEFAULT, .flags = YT_NULL_OK },
	{ .key = NULL }
};

/* one host_ports item; the base is a struct rc_port */
static const struct yt_field port_fields[] = {
	{ .key = "name", .type = YT_STRING,
	  .off = offsetof(struct rc_port, name),
	  .size = sizeof(((struct rc_port *)NULL)->name),
	  .flags = YT_REQUIRED, .valid = valid_port_name },
	{ .key = "port", .type = YT_INT, .off = offsetof(struct rc_port, port),
	  .size = sizeof(int), .min = 1, .max = 65535, .flags = YT_REQUIRED },
	{ .key = "host_port", .type = YT_INT,
	  .off = offsetof(struct rc_port, host_port), .size = sizeof(int),
	  .min = 1, .max = 65535, .flags = YT_NULL_OK },
	{ .key = "proto", .type = YT_STRING,
	  .off = offsetof(struct rc_port, proto),
	  .size = sizeof(((struct rc_port *)NULL)->proto),
	  .flags = YT_NULL_OK, .valid = valid_proto },
	{ .key = "host_address", .type = YT_STRING,
	  .off = offsetof(struct rc_port, host_address),
	  .size = sizeof(((struct rc_port *)NULL)->host_address),
	  .flags = YT_NULL_OK, .valid = valid_ipv4 },
	{ .key = "container_address", .type = YT_STRING,
	  .off = offsetof(struct rc_port, container_address),
	  .size = sizeof(((struct rc_port *)NULL)->container_address),
	  .flags = YT_NULL_OK, .valid = valid_ipv4 },
	{ .key = NULL }
};

static const struct yt_field defaults_fields[] = {
	{ .key = "network", .type = YT_STRING, .off = RC_OFF(network),
	  .size = RC_SIZE(network), .flags = YT_NULL_OK,
	  .valid = valid_network },
	{ .key = "memory", .type = YT_STRING, .off = RC_OFF(memory),
	  .size = RC_SIZE(memory), .flags = YT_NULL_OK,
	  .valid = valid_memory },
	{ .key = "cpu", .type = YT_CUSTOM, .off = RC_OFF(cpu), .fn = rc_cpu },
	{ .key = "processes", .type = YT_INT, .off = RC_OFF(processes),
	  .size = sizeof(int), .min = LIM_PROCESSES_MIN,
	  .max = LIM_PROCESSES_MAX, .flags = YT_NULL_OK },
	{ .key = "disk", .type = YT_STRING, .off = RC_OFF(disk),
	  .size = RC_SIZE(disk), .flags = YT_NULL_OK, .valid = valid_disk },
	{ .key = "storage_pool", .type = YT_STRING, .off = RC_OFF(storage_pool),
	  .size = RC_SIZE(storage_pool), .flags = YT_NULL_OK,
	  .valid = valid_pool },
	{ .key = NULL }
};

static const struct yt_field new_fields[] = {
	/*
	 * the original's, not done yet (repoconf_compat.c): new branches
	 * from the host checkout's own branch (clone_from: local), fetching
	 * nothing first (autofetch: false)
	 */
	{ .key = "clone_from", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "autofetch", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "background", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "submodules", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = NULL }
};

static const struct yt_field loose_fields[] = {
	{ .key = "enabled", .type = YT_CUSTOM,
	  .off = RC_OFF(loose_auto_revert.enabled), .fn = rc_tribool },
	{ .key = "after", .type = YT_DURATION,
	  .off = RC_OFF(loose_auto_revert.after), .min = 1,
	  .max = DURATION_MAX_DEFAULT, .flags = YT_NULL_OK },
	{ .key = NULL }
};

static const struct yt_field mount_revert_fields[] = {
	{ .key = "enabled", .type = YT_CUSTOM,
	  .off = RC_OFF(mount_auto_revert.enabled), .fn = rc_tribool },
	{ .key = "after", .type = YT_DURATION,
	  .off = RC_OFF(mount_auto_revert.after), .min = 1,
	  .max = DURATION_MAX_DEFAULT, .flags = YT_NULL_OK },
	{ .key = NULL }
};

static const struct yt_field gpg_fields[] = {
	{ .key = "enabled", .type = YT_CUSTOM, .off = RC_OFF(gpg_enabled),
	  .fn = rc_tribool },
	{ .key = NULL }
};

static const struct yt_field ssh_fields[] = {
	{ .key = "enabled", .type = YT_CUSTOM, .off = RC_OFF(ssh_enabled),
	  .fn = rc_tribool },
	/* what ssh.enabled does anyway; false is not done yet */
	{ .key = "seed_from_host", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = NULL }
};

/*
 * golden: the original's image build.  Its alias and extra packages are
 * base.alias and base.packages; the rest is repoconf_compat.c's.
 */
static const struct yt_field golden_fields[] = {
	{ .key = "alias", .type = YT_STRING, .off = RC_OFF(base_alias),
	  .size = RC_SIZE(base_alias), .flags = YT_NULL_OK,
	  .valid = valid_alias },
	{ .key = "extra_apt_packages", .type = YT_CUSTOM,
	  .off = RC_OFF(base_packages), .fn = rc_packages },
	{ .key = "ubuntu_version", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "java", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "node", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "provision_script", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "provision_env", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "enable_snippets", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "disable_snippets", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "stacks", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = NULL }
};

static const struct yt_field base_fields[] = {
	{ .key = "alias", .type = YT_STRING, .off = RC_OFF(base_alias),
	  .size = RC_SIZE(base_alias), .flags = YT_NULL_OK,
	  .valid = valid_alias },
	{ .key = "packages", .type = YT_CUSTOM, .off = RC_OFF(base_packages),
	  .fn = rc_packages },
	{ .key = NULL }
};

/*
 * The global and repo files.  github is taken in global.yaml only, and
 * known in the repo file to say where it belongs (repoconf_github.c).
 */
static const struct yt_field shared_fields[] = {
	{ .key = "container_prefix", .type = YT_STRING,
	  .off = RC_OFF(container_prefix), .size = RC_SIZE(container_prefix),
	  .flags = YT_NULL_OK, .valid = valid_prefix },
	{ .key = "container_user", .type = YT_MAP, .sub = user_fields },
	{ .key = "container", .type = YT_MAP, .sub = container_fields },
	{ .key = "host_mounts", .type = YT_CUSTOM, .off = RC_OFF(host_mounts),
	  .fn = rc_mounts },
	{ .key = "optional_mounts", .type = YT_CUSTOM,
	  .off = RC_OFF(optional_mounts), .fn = rc_optional },
	{ .key = "host_ports", .type = YT_CUSTOM, .off = RC_OFF(host_ports),
	  .fn = rc_ports },
	{ .key = "egress_allow", .type = YT_STRLIST,
	  .off = RC_OFF(egress_allow), .size = RC_EGRESS_LEN + 1,
	  .max = RC_EGRESS_MAX, .flags = YT_NULL_OK },
	{ .key = "defaults", .type = YT_MAP, .sub = defaults_fields },
	{ .key = "new", .type = YT_MAP, .sub = new_fields },
	{ .key = "loose_auto_revert", .type = YT_MAP, .sub = loose_fields },
	{ .key = "mount_auto_revert", .type = YT_MAP,
	  .sub = mount_revert_fields },
	{ .key = "github", .type = YT_CUSTOM, .off = 0, .fn = rc_github },
	{ .key = "secrets", .type = YT_CUSTOM, .off = 0, .fn = rc_secrets },
	{ .key = "base", .type = YT_MAP, .sub = base_fields },
	{ .key = "gpg", .type = YT_MAP, .sub = gpg_fields },
	{ .key = "ssh", .type = YT_MAP, .sub = ssh_fields },
	/* --- agents (repoconf_agents.c) --- */
	{ .key = "agents", .type = YT_CUSTOM, .off = RC_OFF(agents),
	  .fn = rc_agents },
	{ .key = "claude", .type = YT_CUSTOM, .off = RC_OFF(agents),
	  .fn = rc_claude_alias },
	/* --- the original's keys, not done yet (repoconf_compat.c) --- */
	{ .key = "golden", .type = YT_MAP, .sub = golden_fields },
	{ .key = "share_local", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "shared_dir", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "host_devices", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "shared_caches", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "jetbrains", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "chrome", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "terminal", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "autostart", .type = YT_CUSTOM, .off = RC_OFF(autostart),
	  .fn = rc_autostart },
	{ .key = "docker_registry_mirror", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "destroy", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "after_new", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "confirm", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "pull", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "push", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "ls", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "dashboard", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "egress_proxy_always", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "gui", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "litellm", .type = YT_CUSTOM, .fn = rc_compat },
	{ .key = "remote", .type = YT_CUSTOM, .fn = rc_remote_elsewhere },
	{ .key = "merge", .type = YT_CUSTOM, .fn = rc_retired },
	{ .key = "install_gie_skills", .type = YT_CUSTOM, .fn = rc_retired },
	{ .key = NULL }
};

/* the host-local file: named after the prefix, so it cannot set it */
static const struct yt_field local_fields[] = {
	{ .key = "container_prefix", .type = YT_CUSTOM,
	  .fn = rc_refuse_prefix },
	{ .key = "container_user", .type = YT_MAP, .sub = user_fields },
	{ .key = "container", .type = YT_MAP, .sub = container_fields },
	{ .key = "host_mounts", .type = YT_CUSTOM, .off = RC_OFF(host_mounts),
	  .fn = rc_mounts },
	{ .key = "optional_mounts", .type = YT_CUSTOM,
	  .off = RC_OFF(optional_mounts), .fn = rc_optional },
	{ .key = "host_ports", .type = YT_CUSTOM, .off = RC_OFF(host_ports),
	  .fn = rc_ports },
	{ .key = "egress_allow", .type = YT_STRLIST,
	  .off = RC_OFF(egress_allow), .size = RC_EGRESS_LEN + 1,
	  .max = RC_EGRESS_MAX, .flags = YT_NULL_OK },
	{ .key = "defaults", .type = YT_MAP, .sub = defaults_fields },
	{ .key = "new", .type = YT_MAP, .sub = new_fields },
	{ .key = "loose_auto_revert", .type = YT_MAP, .sub = loose_fields },
	{ .key = "mount_auto_revert", .type = YT_MAP,
	  .sub = mount_revert_fields },
	{ .key = "github", .type = YT_CUSTOM, .off = 0, .fn = rc_github_local },
	{ .key = "secrets", .type = YT_CUSTOM, .off = 0, .fn = rc_secrets },
	{ .key = "base", .type = YT_MAP, .sub = base_fields },
	{ .key = "gpg", .type = YT_MAP, .sub = gpg_fields },
	{ .key = "ssh", .type = YT_MAP, .sub = ssh_fields },
	{ .key = NULL }
};

const char repoconf_template[] =
    "# JailBee repository configuration: .jailbee/config.yaml\n"
    "#\n"
    "# Commit this file.  Every key is optional; the commented lines show\n"
    "# the defaults or an example, uncomment what you need.  The layers,\n"
    "# later wins: ${XDG_CONFIG_HOME:-~/.config}/jailbee/global.yaml, this\n"
    "# file, then the host-local file of this repo,\n"
    "# ${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/<container_prefix>.yaml.\n"
    "# null falls back to the default, a list adds to the earlier layers'\n"
    "# ([] empties it), a mapping merges key by key.\n"
    "#\n"
    "# Prefix of every Incus object of this repo.  Default: the directory\n"
    "# name, lowercased, other characters turned into \"-\".\n"
    "#container_prefix: myrepo\n"
    "#\n"
    "# The container user \"dev\" maps to this host uid/gid.  Default: yours.\n"
    "#container_user:\n"
    "#  uid: 1000\n"
    "#  gid: 1000\n"
    "#\n"
    "# Environment of every container.  Not secret storage: the values go\n"
    "# into the Incus profile, where `incus profile show` prints them.\n"
    "#container:\n"
    "#  env:\n"
    "#    EDITOR: vim\n"
    "#\n"
    "# Host paths bound into every container, read-write unless readonly.\n"
    "#host_mounts:\n"
    "#  - host: ~/.m2/repository\n"
    "#    container: /home/dev/.m2/repository\n"
    "#    readonly: false\n"
    "#\n"
    "# Host services reachable inside every container, as Incus proxy\n"
    "# devices port-cfg-<name>: the container's container_address:port\n"
    "# connects to the host's host_address:host_port.  IPv4 literals\n"
    "# only; a forward bypasses the network filter.\n"
    "#host_ports:\n"
    "#  - name: postgres\n"
    "#    port: 5432\n"
    "#    host_port: 5432        # default: port\n"
    "#    proto: tcp             # or udp\n"
    "#    host_address: 127.0.0.1\n"
    "#    container_address: 127.0.0.1\n"
    "#\n"
    "# In strict mode the only destinations: host, host:port, IPv4,\n"
    "# IPv4:port, CIDR, CIDR:port (a port means TCP only), *.domain.\n"
    "#egress_allow:\n"
    "#  - github.com:443\n"
    "#  - \"*.npmjs.org\"\n"
    "#\n"
    "# New containers: their network mode, and their limits (jbctl apply\n"
    "# puts changed limits on a running one).  memory: a size or a share\n"
    "# of the host's; cpu: a count or a share of the host's CPUs;\n"
    "# processes: tasks, threads included; disk: the root disk's size.\n"
    "#defaults:\n"
    "#  network: strict        # or loose: new starts loose, reverting\n"
    "#                         # after loose_auto_revert\n"
    "#  memory: 25%\n"
    "#  cpu: 50%\n"
    "#  processes: 4096\n"
    "#  disk: 20GiB\n"
    "#  storage_pool: default  # the Incus pool of the root disk\n"
    "# new branches from the host checkout's own branch: the original's\n"
    "# new.clone_from: origin and new.autofetch (fetch the upstream\n"
    "# first) are not supported yet.\n"
    "#\n"
    "# `net loose` and `mount` revert by themselves after this long: 30s,\n"
    "# 45m, 4h, 1h30m or plain minutes, at most 24h.\n"
    "#loose_auto_revert:\n"
    "#  enabled: true\n"
    "#  after: 5m\n"
    "#mount_auto_revert:\n"
    "#  enabled: true\n"
    "#  after: 1h\n"
    "#\n"
    "# The Incus image new containers start from.  Default: jailbee-base,\n"
    "# one image for every repo.  packages adds Debian packages to the\n"
    "# image `jbctl base build` (or the first new) makes; a repo that sets\n"
    "# them gets an image of its own, <container_prefix>-base by default.\n"
    "#base:\n"
    "#  alias: myrepo-base\n"
    "#  packages: [build-essential, python3]\n"
    "#\n"
    "# Host paths attached on demand (jbctl mount KIND NAME), or for one\n"
    "# autostart step alone (its mounts); read-only unless readonly: false.\n"
    "#optional_mounts:\n"
    "#  aws:\n"
    "#    host: ~/.aws\n"
    "#    container: /home/dev/.aws\n"
    "#\n"
    "# Steps in the container's tmux session autostart: on_create at new,\n"
    "# on_start at new and every start.  A step's mounts and network:\n"
    "# loose are granted for the step alone, by deadline.\n"
    "#autostart:\n"
    "#  on_create:\n"
    "#    - name: deps\n"
    "#      run: ./fetch-deps.sh\n"
    "#      network: loose\n"
    "#      mounts: [aws]\n"
    "#\n"
    "# Coding agents (presets: claude, codex, gemini, aider, opencode,\n"
    "# grok);\n"
    "# jbctl new NAME --agent A runs one.  shared: state kept under the\n"
    "# suite's shared directory, read-write in the repo's containers.\n"
    "#agents:\n"
    "#  myagent:\n"
    "#    command: myagent\n"
    "#    install: ./install-myagent.sh\n"
    "#    install_check: command -v myagent\n"
    "#    shared:\n"
    "#      - {subpath: myagent, path: ~/.myagent}\n"
    "#      - {subpath: myagent-json/a.json, path: ~/.myagent.json, "
    "type: file, seed: \"{}\"}\n"
    "#\n"
    "# github is refused here: github.token belongs in the host-local\n"
    "# file named above (mode 0600), github.enabled there or in\n"
    "# global.yaml.\n";

static int
why(char *buf, size_t len, const char *msg)
{
	(void)strlcpy(buf, msg, len);
	return -1;
}

static int
is_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int
is_alnum(int c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static int
valid_prefix(const char *s, char *w, size_t wlen)
{
	if (!name_prefix_ok(s))
		return why(w, wlen, "not a container prefix (" NAME_PREFIX_FORM
		    ")");
	return 0;
}

/* mount sources: ~/ is the owner's home, resolved where it is mounted */
static int
valid_host(const char *s, char *w, size_t wlen)
{
	char	tmp[PATH_MAX];

	if (s[0] == '/')
		return yt_check_path(s, w, wlen);
	if (s[0] != '~' || s[1] != '/' || s[2] == '\0')
		return why(w, wlen, "must be an absolute path or ~/path");
	/* the same ".." rule, applied to what follows "~" */
	(void)strlcpy(tmp, s + 1, sizeof(tmp));
	return yt_check_path(tmp, w, wlen);
}

static int
valid_target(const char *s, char *w, size_t wlen)
{
	if (strspn(s, "/") == strlen(s))
		return why(w, wlen, "must not be the container's root");
	return 0;
}

static int
valid_network(const char *s, char *w, size_t wlen)
{
	if (strcmp(s, "strict") != 0 && strcmp(s, "loose") != 0)
		return why(w, wlen, "must be strict or loose");
	return 0;
}

/*
 * What Incus takes for limits.memory, less the bare byte count (a
 * forgotten unit would give a container 16 bytes).
 */
static int
valid_memory(const char *s, char *w, size_t wlen)
{
	if (!lim_size_ok(s, 1))
		return why(w, wlen, "not a memory size (a positive number with "
		    "a unit such as 512MiB or 16GiB, or 1% to 100% of the "
		    "host's)");
	return 0;
}

/* the root disk's size: as memory, without a share of the host */
static int
valid_disk(const char *s, char *w, size_t wlen)
{
	if (!lim_size_ok(s, 0))
		return why(w, wlen, "not a disk size (a positive number with a "
		    "unit such as 512MiB or 20GiB)");
	return 0;
}

/*
 * defaults.cpu: how many CPUs (1 to 1024), or "N%", a share of the
 * host's, which the parent counts when it makes the container.  Setting
 * one form drops the other an earlier layer set; null drops both.
 */
static int
rc_cpu(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct repoconf	*c = (struct repoconf *)((char *)dst -
			    offsetof(struct repoconf, cpu));
	int		 count, pct;

	if (yt_is_null(n)) {
		c->cpu = c->cpu_pct = 0;
		return 0;
	}
	if (n->kind != YT_SCALAR || n->sval == YT_SV_BOOL ||
	    lim_cpu_parse(n->str, &count, &pct) == -1)
		return yt_error(ctx, n, "not a CPU count (1 to %d, or 1%% to "
		    "100%% of the host's CPUs)", LIM_CPU_MAX);
	c->cpu = count;
	c->cpu_pct = pct;
	return 0;
}

/*
 * An Incus storage pool's name as Incus takes it, less what it would
 * read as a path or an option: a letter or digit first, then letters,
 * digits, "-", "_" and ".".
 */
static int
valid_pool(const char *s, char *w, size_t wlen)
{
	size_t	i;

	if (s[0] == '\0' || !isalnum((unsigned char)s[0]))
		goto bad;
	for (i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-_.", s[i]) == NULL)
			goto bad;
	if (i > RC_POOL_MAX)
		goto bad;
	return 0;
 bad:
	return why(w, wlen, "not a storage pool name (a letter or digit, "
	    "then letters, digits, -, _ or ., at most 63; `incus storage "
	    "list` names the pools)");
}

/* it ends up in a shell profile: nothing a shell would interpret */
static int
valid_alias(const char *s, char *w, size_t wlen)
{
	if (s[0] == '\0')
		return why(w, wlen, "must not be empty");
	if (!name_alias_ok(s))
		return why(w, wlen, "not an image alias (" NAME_ALIAS_FORM ")");
	return 0;
}

static int
valid_env_name(const char *s)
{
	size_t	i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if ((!is_alnum(s[i]) && s[i] != '_') || i >= RC_ENV_NAME_MAX)
			return 0;
	return 1;
}

/*
 * A Debian package name as apt takes it in mmdebstrap's --include: lower
 * case letters, digits, "+", "-" and ".", starting with a letter or
 * digit, two characters at least (Debian policy 5.6.1).
 */
int
repoconf_valid_package(const char *s)
{
	size_t	len = strlen(s);

	if (len < 2 || len > RC_PACKAGE_MAX)
		return 0;
	if (!islower((unsigned char)s[0]) && !isdigit((unsigned char)s[0]))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+-.") == len;
}

/* name is a word of the space-separated list */
static int
package_listed(const char *list, const char *name)
{
	size_t	len = strlen(name), l;

	while (*list != '\0') {
		l = strcspn(list, " ");
		if (l == len && strncmp(list, name, len) == 0)
			return 1;
		list += l + (list[l] == ' ');
	}
	return 0;
}

/*
 * base.packages: a list adds to what earlier layers gave, each name once;
 * null or [] drops them.  Kept as one space-separated string, which is
 * what the image build takes.
 */
static int
rc_packages(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	char		*list = dst;
	const char	*w;
	size_t		 i, saved, len;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		list[0] = '\0';
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of Debian package "
		    "names, got %s", yt_describe(n));
	for (i = 0; i < n->nitems; i++) {
		const struct yt_node *it = n->items[i];

		saved = yt_path_push_index(ctx, i);
		if (it->kind != YT_SCALAR || it->sval == YT_SV_BOOL)
			return yt_error(ctx, it, "expected a Debian package "
			    "name, got %s", yt_describe(it));
		w = it->str;
		if (!repoconf_valid_package(w))
			return yt_error(ctx, it, "\"%s\" is not a Debian "
			    "package name (a-z, 0-9, +, -, ., from 2 to %d "
			    "characters, starting with a letter or digit)",
			    w, RC_PACKAGE_MAX);
		len = strlen(w);
		if (package_listed(list, w)) {
			yt_path_pop(ctx, saved);
			continue;
		}
		if (strlen(list) + (list[0] ? 1 : 0) + len > RC_PACKAGES_MAX)
			return yt_error(ctx, it, "base.packages is longer than "
			    "%d bytes in all", RC_PACKAGES_MAX);
		if (list[0] != '\0')
			(void)strlcat(list, " ", RC_PACKAGES_MAX + 1);
		(void)strlcat(list, w, RC_PACKAGES_MAX + 1);
		yt_path_pop(ctx, saved);
	}
	return 0;
}

/* a boolean whose null means "not set here", so its default applies */
static int
rc_tribool(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	int	b;

	if (yt_is_null(n)) {
		*(int *)dst = RC_UNSET;
		return 0;
	}
	if (yt_get_bool(ctx, n, &b) == -1)
		return -1;
	*(int *)dst = b;
	return 0;
}

static ssize_t
env_find(const struct rc_envlist *l, const char *name)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static int
env_set(struct yt_ctx *ctx, const struct yt_node *key,
    const struct yt_node *val, struct rc_envlist *l)
{
	struct rc_env	*v;
	char		*value;
	ssize_t		 i;

	if (!valid_env_name(key->str))
		return yt_error(ctx, key, "not an environment variable name "
		    "([A-Za-z_][A-Za-z0-9_]*, at most %d characters)",
		    RC_ENV_NAME_MAX);
	i = env_find(l, key->str);
	if (yt_is_null(val)) {
		/* null drops what an earlier layer set */
		if (i >= 0) {
			free(l->v[i].name);
			free(l->v[i].value);
			memmove(&l->v[i], &l->v[i + 1],
			    (l->n - (size_t)i - 1) * sizeof(*l->v));
			l->n--;
		}
		return 0;
	}
	if (val->kind != YT_SCALAR)
		return yt_error(ctx, val, "expected a string, got %s",
		    yt_describe(val));
	if (val->sval == YT_SV_BOOL)
		return yt_error(ctx, val, "expected a string, got a boolean "
		    "(quote it if you mean the text)");
	if (val->len > RC_ENV_VALUE_MAX)
		return yt_error(ctx, val, "too long (at most %d bytes)",
		    RC_ENV_VALUE_MAX);
	if ((value = strdup(val->str)) == NULL)
		return yt_error(ctx, val, "out of memory");
	if (i >= 0) {
		free(l->v[i].value);
		l->v[i].value = value;
		return 0;
	}
	if (l->n >= RC_ENV_MAX) {
		free(value);
		return yt_error(ctx, key, "more than %d variables",
		    RC_ENV_MAX);
	}
	if ((v = reallocarray(l->v, l->n + 1, sizeof(*v))) == NULL) {
		free(value);
		return yt_error(ctx, key, "out of memory");
	}
	l->v = v;
	if ((v[l->n].name = strdup(key->str)) == NULL) {
		free(value);
		return yt_error(ctx, key, "out of memory");
	}
	v[l->n++].value = value;
	return 0;
}

/* container.env: merged name by name; a mapping has no bulk reset */
static int
rc_env(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	size_t	i, saved;
	int	rc = 0;

	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of NAME: value, "
		    "got %s", yt_describe(n));
	for (i = 0; i < n->npairs && rc == 0; i++) {
		saved = yt_path_push(ctx, n->pairs[i].key->str);
		rc = env_set(ctx, n->pairs[i].key, n->pairs[i].val, dst);
		yt_path_pop(ctx, saved);
	}
	return rc;
}

/* host_mounts: appended to; null or [] drops what earlier layers gave */
static int
rc_mounts(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_mountlist	*l = dst;
	struct rc_mount		*v, *m;
	size_t			 i, j, saved;
	int			 rc;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		free(l->v);
		l->v = NULL;
		l->n = 0;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of {host, "
		    "container, readonly}, got %s", yt_describe(n));
	if (l->n + n->nitems > RC_MOUNTS_MAX)
		return yt_error(ctx, n, "more than %d items", RC_MOUNTS_MAX);
	if ((v = reallocarray(l->v, l->n + n->nitems, sizeof(*v))) == NULL)
		return yt_error(ctx, n, "out of memory");
	l->v = v;
	for (i = 0; i < n->nitems; i++) {
		const struct yt_node *it = n->items[i];

		m = &l->v[l->n];
		memset(m, 0, sizeof(*m));
		saved = yt_path_push_index(ctx, i);
		if (it->kind != YT_MAPPING)
			rc = yt_error(ctx, it, "expected a mapping {host, "
			    "container, readonly}, got %s", yt_describe(it));
		else
			rc = yt_apply(ctx, it, mount_fields, m);
		for (j = 0; rc == 0 && j < l->n; j++) {
			if (strcmp(l->v[j].container, m->container) != 0)
				continue;
			(void)yt_path_push(ctx, "container");
			rc = yt_error(ctx, yt_get(it, "container"), "%s is "
			    "already the target of another mount (from %s)",
			    m->container, l->v[j].host);
		}
		yt_path_pop(ctx, saved);
		if (rc == -1)
			return -1;
		l->n++;
	}
	return 0;
}

/*
 * optional_mounts: KIND: {host, container, readonly (default true),
 * description, auto_unmount_after}.  A later layer's entry replaces the
 * whole entry of its kind; KIND: null drops it.
 */
static int
rc_optional(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_optlist	*l = dst;
	struct rc_optional	 o, *v;
	const struct yt_node	*k, *it;
	size_t			 i, j, saved;
	int			 rc;

	if (yt_is_null(n))
		return 0;
	if (n->kind != YT_MAPPING)
		return yt_error(ctx, n, "expected a mapping of KIND: {host, "
		    "container, readonly, description, auto_unmount_after}, "
		    "got %s", yt_describe(n));
	for (i = 0; i < n->npairs; i++) {
		k = n->pairs[i].key;
		it = n->pairs[i].val;
		saved = yt_path_push(ctx, k->str);
		if (k->len == 0 || k->len > RC_KIND_MAX ||
		    strspn(k->str, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
		    k->len || strchr("_-", k->str[0]) != NULL) {
			rc = yt_error(ctx, k, "bad mount kind: 1 to %d "
			    "lowercase letters, digits, '_' and '-', starting "
			    "with a letter or digit", RC_KIND_MAX);
			yt_path_pop(ctx, saved);
			return rc;
		}
		for (j = 0; j < l->n; j++)
			if (strcmp(l->v[j].kind, k->str) == 0)
				break;
		if (yt_is_null(it)) {
			if (j < l->n) {
				memmove(&l->v[j], &l->v[j + 1],
				    (l->n - j - 1) * sizeof(*l->v));
				l->n--;
			}
			yt_path_pop(ctx, saved);
			continue;
		}
		memset(&o, 0, sizeof(o));
		(void)strlcpy(o.kind, k->str, sizeof(o.kind));
		o.m.readonly = 1;	/* a credential: read-only unless said */
		if (it->kind != YT_MAPPING)
			rc = yt_error(ctx, it, "expected a mapping {host, "
			    "container, readonly, description, "
			    "auto_unmount_after}, got %s", yt_describe(it));
		else
			rc = yt_apply(ctx, it, optional_fields, &o);
		yt_path_pop(ctx, saved);
		if (rc == -1)
			return -1;
		if (j < l->n) {
			l->v[j] = o;
			continue;
		}
		if (l->n >= RC_OPTIONAL_MAX)
			return yt_error(ctx, n, "more than %d entries",
			    RC_OPTIONAL_MAX);
		if ((v = reallocarray(l->v, l->n + 1, sizeof(*v))) == NULL)
			return yt_error(ctx, n, "out of memory");
		l->v = v;
		l->v[l->n++] = o;
	}
	return 0;
}

static int
valid_port_name(const char *s, char *w, size_t wlen)
{
	if (port_name_ok(s))
		return 0;
	return why(w, wlen, "bad forward name: 1 to 40 lowercase letters, "
	    "digits and '-', not starting with '-'");
}

static int
valid_proto(const char *s, char *w, size_t wlen)
{
	if (port_proto_ok(s))
		return 0;
	return why(w, wlen, "expected tcp or udp");
}

static int
valid_ipv4(const char *s, char *w, size_t wlen)
{
	if (port_addr_ok(s))
		return 0;
	return why(w, wlen, "expected an IPv4 address literal such as "
	    "127.0.0.1 (names and IPv6 are not taken)");
}

/*
 * host_ports: [{name, port, host_port, proto, host_address,
 * container_address}].  Appended to; a later layer's entry of the same
 * name replaces the earlier one; null or [] drops what earlier layers
 * gave.  Defaults are filled here: host_port = port, tcp, 127.0.0.1.
 */
static int
rc_ports(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	struct rc_portlist	*l = dst;
	struct rc_port		 p, *v;
	size_t			 i, j, saved;
	int			 rc;

	if (yt_is_null(n) || (n->kind == YT_SEQUENCE && n->nitems == 0)) {
		free(l->v);
		l->v = NULL;
		l->n = 0;
		return 0;
	}
	if (n->kind != YT_SEQUENCE)
		return yt_error(ctx, n, "expected a sequence of {name, port, "
		    "host_port, proto, host_address, container_address}, "
		    "got %s", yt_describe(n));
	if (n->nitems > RC_PORTS_MAX)
		return yt_error(ctx, n, "more than %d entries", RC_PORTS_MAX);
	for (i = 0; i < n->nitems; i++) {
		const struct yt_node *it = n->items[i];

		memset(&p, 0, sizeof(p));
		saved = yt_path_push_index(ctx, i);
		if (it->kind != YT_MAPPING)
			rc = yt_error(ctx, it, "expected a mapping {name, "
			    "port, host_port, proto, host_address, "
			    "container_address}, got %s", yt_describe(it));
		else
			rc = yt_apply(ctx, it, port_fields, &p);
		yt_path_pop(ctx, saved);
		if (rc == -1)
			return -1;
		if (p.host_port == 0)
			p.host_port = p.port;
		if (p.proto[0] == '\0')
			(void)strlcpy(p.proto, "tcp", sizeof(p.proto));
		p.host_address_set = p.host_address[0] != '\0';
		if (!p.host_address_set)
			(void)strlcpy(p.host_address, PORT_LOOPBACK,
			    sizeof(p.host_address));
		if (p.container_address[0] == '\0')
			(void)strlcpy(p.container_address, PORT_LOOPBACK,
			    sizeof(p.container_address));
		/* one file names a forward once */
		for (j = 0; j < i; j++) {
			const struct yt_node *o = yt_get(n->items[j], "name");

			if (o != NULL && o->str != NULL &&
			    strcmp(o->str, p.name) == 0)
				break;
		}
		if (j < i) {
			saved = yt_path_push_index(ctx, i);
			(void)yt_path_push(ctx, "name");
			rc = yt_error(ctx, yt_get(it, "name"), "%s is already "
			    "the name of item %zu", p.name, j);
			yt_path_pop(ctx, saved);
			return rc;
		}
		for (j = 0; j < l->n; j++)
			if (strcmp(l->v[j].name, p.name) == 0)
				break;
		if (j < l->n) {
			l->v[j] = p;
			continue;
		}
		if (l->n >= RC_PORTS_MAX)
			return yt_error(ctx, n, "more than %d entries",
			    RC_PORTS_MAX);
		if ((v = reallocarray(l->v, l->n + 1, sizeof(*v))) == NULL)
			return yt_error(ctx, n, "out of memory");
		l->v = v;
		l->v[l->n++] = p;
	}
	/* two forwards cannot listen on one address and port inside */
	for (i = 0; i < l->n; i++)
		for (j = i + 1; j < l->n; j++)
			if (l->v[i].port == l->v[j].port &&
			    strcmp(l->v[i].proto, l->v[j].proto) == 0 &&
			    strcmp(l->v[i].container_address,
			    l->v[j].container_address) == 0)
				return yt_error(ctx, n, "%s and %s both listen "
				    "on %s %s:%d in the container", l->v[i].name,
				    l->v[j].name, l->v[i].proto,
				    l->v[i].container_address, l->v[i].port);
	return 0;
}

static int
rc_refuse_prefix(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	return yt_error(ctx, n, "not allowed in the host-local file, which "
	    "is named after it: set it in .jailbee/config.yaml or "
	    "global.yaml");
}

void
repoconf_init(struct repoconf *c)
{
	memset(c, 0, sizeof(*c));
	c->loose_auto_revert.enabled = RC_UNSET;
	c->mount_auto_revert.enabled = RC_UNSET;
	c->gpg_enabled = RC_UNSET;
	c->ssh_enabled = RC_UNSET;
	c->github_enabled = RC_UNSET;
}

void
repoconf_free(struct repoconf *c)
{
	size_t	i;

	for (i = 0; i < c->env.n; i++) {
		free(c->env.v[i].name);
		free(c->env.v[i].value);
	}
	free(c->env.v);
	c->env.v = NULL;
	c->env.n = 0;
	free(c->host_mounts.v);
	c->host_mounts.v = NULL;
	c->host_mounts.n = 0;
	free(c->optional_mounts.v);
	c->optional_mounts.v = NULL;
	c->optional_mounts.n = 0;
	free(c->host_ports.v);
	c->host_ports.v = NULL;
	c->host_ports.n = 0;
	yt_strlist_free(&c->egress_allow);
	rc_agents_free(&c->agents);
	rc_autostart_free(&c->autostart);
}

/* a deep copy into dst, so that a layer is applied all or nothing */
static int
rc_copy(struct repoconf *dst, const struct repoconf *src)
{
	size_t	i;

	*dst = *src;
	dst->env.v = NULL;
	dst->env.n = 0;
	dst->host_mounts.v = NULL;
	dst->host_mounts.n = 0;
	dst->optional_mounts.v = NULL;
	dst->optional_mounts.n = 0;
	dst->host_ports.v = NULL;
	dst->host_ports.n = 0;
	dst->egress_allow.v = NULL;
	dst->egress_allow.n = 0;
	dst->agents.v = NULL;
	dst->agents.n = 0;
	dst->autostart.on_create.v = dst->autostart.on_start.v = NULL;
	dst->autostart.on_create.n = dst->autostart.on_start.n = 0;

	if (src->env.n > 0 &&
	    (dst->env.v = calloc(src->env.n, sizeof(*dst->env.v))) == NULL)
		goto fail;
	for (i = 0; i < src->env.n; i++) {
		dst->env.v[i].name = strdup(src->env.v[i].name);
		dst->env.v[i].value = strdup(src->env.v[i].value);
		dst->env.n++;
		if (dst->env.v[i].name == NULL || dst->env.v[i].value == NULL)
			goto fail;
	}
	if (src->host_mounts.n > 0) {
		dst->host_mounts.v = reallocarray(NULL, src->host_mounts.n,
		    sizeof(*dst->host_mounts.v));
		if (dst->host_mounts.v == NULL)
			goto fail;
		memcpy(dst->host_mounts.v, src->host_mounts.v,
		    src->host_mounts.n * sizeof(*dst->host_mounts.v));
		dst->host_mounts.n = src->host_mounts.n;
	}
	if (src->optional_mounts.n > 0) {
		dst->optional_mounts.v = reallocarray(NULL,
		    src->optional_mounts.n, sizeof(*dst->optional_mounts.v));
		if (dst->optional_mounts.v == NULL)
			goto fail;
		memcpy(dst->optional_mounts.v, src->optional_mounts.v,
		    src->optional_mounts.n * sizeof(*dst->optional_mounts.v));
		dst->optional_mounts.n = src->optional_mounts.n;
	}
	if (src->host_ports.n > 0) {
		dst->host_ports.v = reallocarray(NULL, src->host_ports.n,
		    sizeof(*dst->host_ports.v));
		if (dst->host_ports.v == NULL)
			goto fail;
		memcpy(dst->host_ports.v, src->host_ports.v,
		    src->host_ports.n * sizeof(*dst->host_ports.v));
		dst->host_ports.n = src->host_ports.n;
	}
	if (src->egress_allow.n > 0) {
		dst->egress_allow.v = calloc(src->egress_allow.n + 1,
		    sizeof(*dst->egress_allow.v));
		if (dst->egress_allow.v == NULL)
			goto fail;
		for (i = 0; i < src->egress_allow.n; i++) {
			dst->egress_allow.v[i] = strdup(src->egress_allow.v[i]);
			if (dst->egress_allow.v[i] == NULL)
				goto fail;
			dst->egress_allow.n++;
		}
	}
	if (rc_agents_copy(&dst->agents, &src->agents) == -1)
		goto fail;
	if (rc_autostart_copy(&dst->autostart, &src->autostart) == -1)
		goto fail;
	return 0;
 fail:
	repoconf_free(dst);
	return -1;
}

static int
rc_apply_tree(enum repoconf_layer layer, const char *name,
    const struct yt_node *root, struct repoconf *conf, char *err,
    size_t errlen)
{
	struct repoconf		*tmp;
	struct yt_ctx		 ctx;
	const struct yt_node	*k, *a;
	int			 rc;

	if ((tmp = malloc(sizeof(*tmp))) == NULL || rc_copy(tmp, conf) == -1) {
		free(tmp);
		(void)snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	yt_ctx_init(&ctx, name, err, errlen);
	/* the original's alias and its key at once: neither plainly wins */
	if (root != NULL && (k = yt_get(root, "claude")) != NULL &&
	    (a = yt_get(root, "agents")) != NULL &&
	    a->kind == YT_MAPPING && yt_get(a, "claude") != NULL) {
		(void)yt_path_push(&ctx, "claude");
		rc = yt_error(&ctx, k, "both claude and agents.claude are set: "
		    "keep agents.claude (claude is the original's older "
		    "spelling)");
	} else {
		tmp->applying = layer;
		rc = yt_apply(&ctx, root, layer == RC_LAYER_LOCAL ? local_fields :
		    shared_fields, tmp);
		tmp->applying = RC_LAYER_GLOBAL;
	}
	if (rc == 0) {
		repoconf_free(conf);
		*conf = *tmp;
	} else
		repoconf_free(tmp);
	free(tmp);
	return rc;
}

int
repoconf_parse_layer(enum repoconf_layer layer, const char *name,
    const char *buf, size_t len, struct repoconf *conf, char *err,
    size_t errlen)
{
	struct yt_node	*root;
	int		 rc;

	if (name == NULL)
		name = "<input>";
	if (yt_load(name, buf, len, &root, err, errlen) == -1)
		return -1;
	rc = rc_apply_tree(layer, name, root, conf, err, errlen);
	yt_free(root);
	return rc;
}

/* the tree of a file; a missing optional file is an empty one */
static int
rc_read_tree(const char *path, int required, struct yt_node **root,
    char *err, size_t errlen)
{
	char	*buf;
	size_t	 len;
	int	 rc;

	*root = NULL;
	if (yt_read_file(path, &buf, &len, err, errlen) == -1) {
		if (errno != ENOENT)
			return -1;
		if (!required)
			return 0;
		(void)snprintf(err, errlen, "%s: No such file or directory "
		    "(`jbctl config init` creates one)", path);
		return -1;
	}
	rc = yt_load(path, buf, len, root, err, errlen);
	free(buf);
	return rc;
}

const char *
repoconf_check_mode(const char *path, char *warn, size_t warnlen)
{
	struct stat	st;

	if (stat(path, &st) == -1 || (st.st_mode & 077) == 0)
		return NULL;
	(void)snprintf(warn, warnlen, "%s is open to group/other (mode %04o) "
	    "and may hold a GitHub token: run chmod 600 %s", path,
	    (unsigned int)(st.st_mode & 07777), path);
	return warn;
}

int
repoconf_load_layer(enum repoconf_layer layer, const char *path,
    struct repoconf *conf, char *err, size_t errlen)
{
	struct yt_node	*root;
	char		 warn[RC_ERR_MAX];
	int		 rc;

	if (rc_read_tree(path, layer == RC_LAYER_REPO, &root, err,
	    errlen) == -1)
		return -1;
	/* looked at before applying, so that success is all we touch */
	warn[0] = '\0';
	if ((layer == RC_LAYER_LOCAL && root != NULL) ||
	    (layer == RC_LAYER_GLOBAL && rc_github_holds_tokens(root)))
		(void)repoconf_check_mode(path, warn, sizeof(warn));
	rc = rc_apply_tree(layer, path, root, conf, err, errlen);
	yt_free(root);
	if (rc == 0 && warn[0] != '\0')
		(void)strlcpy(conf->warning, warn, sizeof(conf->warning));
	return rc;
}

char *
repoconf_slug(const char *name, char *out, size_t len)
{
	size_t	o = 0;
	int	gap = 0;

	for (; *name != '\0'; name++) {
		int c = (unsigned char)*name;

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (!is_lower_alnum(c)) {
			gap = 1;
			continue;
		}
		/* a gap before the first character is trimmed */
		if (gap && o > 0) {
			if (o + 1 >= len)
				return NULL;
			out[o++] = '-';
		}
		gap = 0;
		if (o + 1 >= len)
			return NULL;
		out[o++] = (char)c;
	}
	if (o == 0)
		return NULL;
	out[o] = '\0';
	return out;
}

/* s without trailing slashes: its length, and where its last name starts */
static size_t
trim_slashes(const char *s, const char **base)
{
	size_t	len = strlen(s);

	while (len > 1 && s[len - 1] == '/')
		len--;
	if (base != NULL) {
		*base = s + len;
		while (*base > s && (*base)[-1] != '/')
			(*base)--;
	}
	return len;
}

/* a name for a message: control bytes shown as ? */
static const char *
printable(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t	i;

	if (len >= buflen)
		len = buflen - 1;
	for (i = 0; i < len; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' :
		    s[i];
	buf[len] = '\0';
	return buf;
}

static int
rc_prefix(const struct repoconf *c, const char *repo_root, char *out,
    size_t outlen, char *err, size_t errlen)
{
	const char	*base;
	char		 slug[PATH_MAX], shown[128];
	size_t		 len;

	if (c->container_prefix[0] != '\0') {
		(void)strlcpy(out, c->container_prefix, outlen);
		return 0;
	}
	if (repo_root == NULL || repo_root[0] != '/') {
		(void)snprintf(err, errlen, "container_prefix: not set and no "
		    "repository directory to derive it from");
		return -1;
	}
	len = trim_slashes(repo_root, &base);
	len -= (size_t)(base - repo_root);
	if (len >= sizeof(slug))
		len = sizeof(slug) - 1;
	memcpy(slug, base, len);
	slug[len] = '\0';
	if (repoconf_slug(slug, slug, sizeof(slug)) == NULL ||
	    strlen(slug) > NAME_PREFIX_MAX || strlen(slug) >= outlen) {
		(void)snprintf(err, errlen, "container_prefix: the directory "
		    "name \"%s\" gives no prefix (" NAME_PREFIX_FORM "): set "
		    "container_prefix in .jailbee/config.yaml",
		    printable(base, len, shown, sizeof(shown)));
		return -1;
	}
	(void)strlcpy(out, slug, outlen);
	return 0;
}

int
repoconf_finish(struct repoconf *c, const char *repo_root, uid_t uid,
    gid_t gid, char *err, size_t errlen)
{
	char	prefix[NAME_PREFIX_MAX + 1];

	if (rc_prefix(c, repo_root, prefix, sizeof(prefix), err,
	    errlen) == -1)
		return -1;
	/* uid 0 here would map the container's dev user onto host root */
	if (c->container_uid == 0 && (uid < 1 || uid > RC_UID_MAX)) {
		(void)snprintf(err, errlen, "container_user.uid: the owner's "
		    "uid %u cannot be mapped (1 to %d): set container_user.uid",
		    (unsigned int)uid, RC_UID_MAX);
		return -1;
	}
	if (c->container_gid == 0 && (gid < 1 || gid > RC_UID_MAX)) {
		(void)snprintf(err, errlen, "container_user.gid: the owner's "
		    "gid %u cannot be mapped (1 to %d): set container_user.gid",
		    (unsigned int)gid, RC_UID_MAX);
		return -1;
	}

	(void)strlcpy(c->container_prefix, prefix, sizeof(c->container_prefix));
	if (repo_root != NULL && repo_root != c->repo_root)
		(void)strlcpy(c->repo_root, repo_root, sizeof(c->repo_root));
	if (c->container_uid == 0)
		c->container_uid = (int)uid;
	if (c->container_gid == 0)
		c->container_gid = (int)gid;
	if (c->network[0] == '\0')
		(void)strlcpy(c->network, RC_DEF_NETWORK, sizeof(c->network));
	if (c->memory[0] == '\0')
		(void)strlcpy(c->memory, RC_DEF_MEMORY, sizeof(c->memory));
	if (c->cpu == 0 && c->cpu_pct == 0)
		c->cpu_pct = RC_DEF_CPU_PCT;
	if (c->processes == 0)
		c->processes = RC_DEF_PROCESSES;
	if (c->disk[0] == '\0')
		(void)strlcpy(c->disk, RC_DEF_DISK, sizeof(c->disk));
	if (c->loose_auto_revert.enabled == RC_UNSET)
		c->loose_auto_revert.enabled = 1;
	if (c->loose_auto_revert.after == 0)
		c->loose_auto_revert.after = RC_DEF_LOOSE_AFTER;
	if (c->mount_auto_revert.enabled == RC_UNSET)
		c->mount_auto_revert.enabled = 1;
	if (c->mount_auto_revert.after == 0)
		c->mount_auto_revert.after = RC_DEF_MOUNT_AFTER;
	if (c->gpg_enabled == RC_UNSET)
		c->gpg_enabled = 0;
	if (c->ssh_enabled == RC_UNSET)
		c->ssh_enabled = 0;
	rc_github_finish(c);
	if (rc_secrets_finish(c, err, errlen) == -1)
		return -1;
	/* one image for every repo, unless this one wants packages of its own */
	c->base_alias_auto = c->base_alias[0] == '\0';
	if (c->base_alias[0] == '\0' && c->base_packages[0] != '\0')
		(void)snprintf(c->base_alias, sizeof(c->base_alias), "%s-base",
		    c->container_prefix);
	else if (c->base_alias[0] == '\0')
		(void)strlcpy(c->base_alias, RC_DEF_ALIAS,
		    sizeof(c->base_alias));
	if (rc_agents_finish(&c->agents, err, errlen) == -1 ||
	    rc_autostart_check(&c->autostart, &c->optional_mounts, err,
	    errlen) == -1)
		return -1;
	c->effective = 1;
	return 0;
}

int
repoconf_paths(const char *repo_root, const char *home, const char *xdg,
    const char *prefix, struct repoconf_paths *out, char *err, size_t errlen)
{
	struct repoconf_paths	p;
	char			dir[PATH_MAX], w[128];
	size_t			len;
	int			n;

	memset(&p, 0, sizeof(p));
	if (repo_root == NULL || repo_root[0] != '/') {
		(void)snprintf(err, errlen, "repository directory %s: not an "
		    "absolute path", repo_root != NULL ? repo_root : "(none)");
		return -1;
	}
	/* "/" trims to "" so that its file is "/.jailbee/config.yaml" */
	len = trim_slashes(repo_root, NULL);
	if (len == 1)
		len = 0;
	n = snprintf(p.repo, sizeof(p.repo), "%.*s/.jailbee/config.yaml",
	    (int)len, repo_root);
	if (n < 0 || (size_t)n >= sizeof(p.repo))
		goto toolong;

	/* the XDG spec: a relative XDG_CONFIG_HOME is invalid, ignore it */
	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(dir, sizeof(dir), "%.*s/jailbee",
		    (int)trim_slashes(xdg, NULL), xdg);
	else if (home != NULL && home[0] == '/')
		n = snprintf(dir, sizeof(dir), "%.*s/.config/jailbee",
		    (int)trim_slashes(home, NULL), home);
	else {
		(void)snprintf(err, errlen, "HOME is not set or not an "
		    "absolute path: cannot find the jailbee config directory");
		return -1;
	}
	/* a root HOME or XDG_CONFIG_HOME of "/" gives "//": harmless */
	if (n < 0 || (size_t)n >= sizeof(dir))
		goto toolong;
	n = snprintf(p.global, sizeof(p.global), "%s/global.yaml", dir);
	if (n < 0 || (size_t)n >= sizeof(p.global))
		goto toolong;
	if (prefix != NULL) {
		if (valid_prefix(prefix, w, sizeof(w)) == -1) {
			(void)snprintf(err, errlen, "container_prefix: %s", w);
			return -1;
		}
		n = snprintf(p.local, sizeof(p.local), "%s/repos/%s.yaml", dir,
		    prefix);
		if (n < 0 || (size_t)n >= sizeof(p.local))
			goto toolong;
	}
	*out = p;
	return 0;
 toolong:
	(void)snprintf(err, errlen, "configuration path too long (at most %d "
	    "bytes)", PATH_MAX - 1);
	return -1;
}

/*
 * The prefix the first two layers will give, before they are applied,
 * so that a github key in either can name the host-local file.  Left
 * "" when unsure; applying them then reports what is wrong.
 */
static void
rc_peek_prefix(const struct yt_node *global, const struct yt_node *repo,
    const char *repo_root, char *out, size_t outlen)
{
	const struct yt_node	*trees[2] = { global, repo }, *n;
	struct repoconf		*tmp;
	char			 w[128], e[RC_ERR_MAX];
	size_t			 i;

	out[0] = '\0';
	if ((tmp = malloc(sizeof(*tmp))) == NULL)
		return;
	repoconf_init(tmp);
	for (i = 0; i < 2; i++) {
		if ((n = yt_get(trees[i], "container_prefix")) == NULL)
			continue;
		if (yt_is_null(n))
			tmp->container_prefix[0] = '\0';
		else if (n->kind == YT_SCALAR && n->sval != YT_SV_BOOL &&
		    valid_prefix(n->str, w, sizeof(w)) == 0)
			(void)strlcpy(tmp->container_prefix, n->str,
			    sizeof(tmp->container_prefix));
		else
			goto out;
	}
	if (rc_prefix(tmp, repo_root, out, outlen, e, sizeof(e)) == -1)
		out[0] = '\0';
 out:
	free(tmp);
}

/*
 * Precedence: global, then repo, then host-local.  The design notes do
 * not fix where the host-local file goes; it is last because it is the
 * most specific: this repo on this host.
 */
int
repoconf_load(const char *repo_root, const char *home, const char *xdg,
    uid_t uid, gid_t gid, struct repoconf *conf, char *err, size_t errlen)
{
	struct repoconf_paths	 paths;
	struct repoconf		*tmp = NULL;
	struct yt_node		*groot = NULL, *rroot = NULL;
	char			 prefix[NAME_PREFIX_MAX + 1], scratch[RC_ERR_MAX];
	char			 gwarn[2 * PATH_MAX + 128];
	int			 rc = -1;

	if (repoconf_paths(repo_root, home, xdg, NULL, &paths, err,
	    errlen) == -1)
		return -1;
	if (rc_read_tree(paths.repo, 1, &rroot, err, errlen) == -1 ||
	    rc_read_tree(paths.global, 0, &groot, err, errlen) == -1)
		goto out;
	if ((tmp = malloc(sizeof(*tmp))) == NULL) {
		(void)snprintf(err, errlen, "%s: out of memory", paths.repo);
		goto out;
	}
	repoconf_init(tmp);
	tmp->paths = paths;
	rc_peek_prefix(groot, rroot, repo_root, prefix, sizeof(prefix));
	if (prefix[0] != '\0')
		(void)repoconf_paths(repo_root, home, xdg, prefix, &tmp->paths,
		    scratch, sizeof(scratch));
	if (rc_apply_tree(RC_LAYER_GLOBAL, paths.global, groot, tmp, err,
	    errlen) == -1 ||
	    rc_apply_tree(RC_LAYER_REPO, paths.repo, rroot, tmp, err,
	    errlen) == -1)
		goto out;
	/* the legacy map keeps tokens in global.yaml: warned as a token file */
	if (rc_github_holds_tokens(groot) && repoconf_check_mode(paths.global,
	    gwarn, sizeof(gwarn)) != NULL)
		(void)strlcpy(tmp->warning, gwarn, sizeof(tmp->warning));
	if (rc_prefix(tmp, repo_root, prefix, sizeof(prefix), err,
	    errlen) == -1 ||
	    repoconf_paths(repo_root, home, xdg, prefix, &tmp->paths, err,
	    errlen) == -1 ||
	    repoconf_load_layer(RC_LAYER_LOCAL, tmp->paths.local, tmp, err,
	    errlen) == -1 ||
	    repoconf_finish(tmp, repo_root, uid, gid, err, errlen) == -1)
		goto out;
	*conf = *tmp;
	repoconf_init(tmp);	/* *conf owns the lists now */
	rc = 0;
 out:
	if (tmp != NULL)
		repoconf_free(tmp);
	free(tmp);
	yt_free(groot);
	yt_free(rroot);
	return rc;
}

/* a YAML double-quoted scalar, which can carry any string we hold */
void
rc_put_str(FILE *fp, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;

	(void)fputc('"', fp);
	for (; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			(void)fprintf(fp, "\\%c", *p);
		else if (*p == '\n')
			(void)fputs("\\n", fp);
		else if (*p == '\t')
			(void)fputs("\\t", fp);
		else if (*p < 0x20 || *p == 0x7f)
			(void)fprintf(fp, "\\x%02x", *p);
		/* what YAML takes for line breaks or a byte order mark */
		else if (p[0] == 0xc2 && p[1] == 0x85) {
			(void)fputs("\\N", fp);
			p++;
		} else if (p[0] == 0xe2 && p[1] == 0x80 &&
		    (p[2] == 0xa8 || p[2] == 0xa9)) {
			(void)fputs(p[2] == 0xa8 ? "\\L" : "\\P", fp);
			p += 2;
		} else if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
			(void)fputs("\\uFEFF", fp);
			p += 2;
		} else
			(void)fputc(*p, fp);
	}
	(void)fputc('"', fp);
}

static void
put_kstr(FILE *fp, const char *indent, const char *key, const char *s)
{
	(void)fprintf(fp, "%s%s: ", indent, key);
	rc_put_str(fp, s);
	(void)fputc('\n', fp);
}

/* base.packages as a flow sequence: the names need no quoting */
static void
put_packages(FILE *fp, const char *list)
{
	char		 b[RC_PACKAGES_MAX + 1], *p, *w;
	const char	*sep = "";

	(void)strlcpy(b, list, sizeof(b));
	(void)fputs("  packages: [", fp);
	for (p = b; (w = strsep(&p, " ")) != NULL; sep = ", ")
		if (*w != '\0')
			(void)fprintf(fp, "%s%s", sep, w);
	(void)fputs("]\n", fp);
}

static void
put_revert(FILE *fp, const char *key, const struct rc_revert *r, int all)
{
	char	b[32];

	if (!all && r->enabled == RC_UNSET && r->after == 0)
		return;
	(void)fprintf(fp, "%s:\n", key);
	if (r->enabled != RC_UNSET)
		(void)fprintf(fp, "  enabled: %s\n", r->enabled ? "true" :
		    "false");
	if (r->after != 0)
		put_kstr(fp, "  ", "after", duration_fmt(r->after, b,
		    sizeof(b)));
}

int
repoconf_dump(const struct repoconf *c, FILE *fp)
{
	size_t	i;
	int	all = c->effective;

	if (all && c->repo_root[0] != '\0') {
		(void)fputs("# repo_root: ", fp);
		rc_put_str(fp, c->repo_root);
		(void)fputc('\n', fp);
	}
	if (c->container_prefix[0] != '\0')
		put_kstr(fp, "", "container_prefix", c->container_prefix);
	if (c->container_uid != 0 || c->container_gid != 0) {
		(void)fputs("container_user:\n", fp);
		if (c->container_uid != 0)
			(void)fprintf(fp, "  uid: %d\n", c->container_uid);
		if (c->container_gid != 0)
			(void)fprintf(fp, "  gid: %d\n", c->container_gid);
	}
	if (all || c->env.n > 0)
		(void)fprintf(fp, "container:\n  env:%s\n",
		    c->env.n == 0 ? " {}" : "");
	for (i = 0; i < c->env.n; i++) {
		/* quoted: a bare NO or Y is a boolean to YAML 1.1 readers */
		(void)fputs("    ", fp);
		rc_put_str(fp, c->env.v[i].name);
		(void)fputs(": ", fp);
		rc_put_str(fp, c->env.v[i].value);
		(void)fputc('\n', fp);
	}
	if (all || c->host_mounts.n > 0)
		(void)fprintf(fp, "host_mounts:%s\n",
		    c->host_mounts.n == 0 ? " []" : "");
	for (i = 0; i < c->host_mounts.n; i++) {
		put_kstr(fp, "  - ", "host", c->host_mounts.v[i].host);
		put_kstr(fp, "    ", "container",
		    c->host_mounts.v[i].container);
		(void)fprintf(fp, "    readonly: %s\n",
		    c->host_mounts.v[i].readonly ? "true" : "false");
	}
	if (all || c->optional_mounts.n > 0)
		(void)fprintf(fp, "optional_mounts:%s\n",
		    c->optional_mounts.n == 0 ? " {}" : "");
	for (i = 0; i < c->optional_mounts.n; i++) {
		const struct rc_optional *o = &c->optional_mounts.v[i];
		char	 b[32];

		(void)fprintf(fp, "  %s:\n", o->kind);
		put_kstr(fp, "    ", "host", o->m.host);
		put_kstr(fp, "    ", "container", o->m.container);
		(void)fprintf(fp, "    readonly: %s\n", o->m.readonly ?
		    "true" : "false");
		if (o->description[0] != '\0')
			put_kstr(fp, "    ", "description", o->description);
		if (o->auto_unmount_after > 0)
			put_kstr(fp, "    ", "auto_unmount_after",
			    duration_fmt(o->auto_unmount_after, b, sizeof(b)));
	}
	if (all || c->host_ports.n > 0)
		(void)fprintf(fp, "host_ports:%s\n",
		    c->host_ports.n == 0 ? " []" : "");
	for (i = 0; i < c->host_ports.n; i++) {
		const struct rc_port *p = &c->host_ports.v[i];

		put_kstr(fp, "  - ", "name", p->name);
		(void)fprintf(fp, "    port: %d\n    host_port: %d\n",
		    p->port, p->host_port);
		put_kstr(fp, "    ", "proto", p->proto);
		put_kstr(fp, "    ", "host_address", p->host_address);
		put_kstr(fp, "    ", "container_address",
		    p->container_address);
	}
	if (all || c->egress_allow.n > 0)
		(void)fprintf(fp, "egress_allow:%s\n",
		    c->egress_allow.n == 0 ? " []" : "");
	for (i = 0; i < c->egress_allow.n; i++) {
		(void)fputs("  - ", fp);
		rc_put_str(fp, c->egress_allow.v[i]);
		(void)fputc('\n', fp);
	}
	if (c->network[0] != '\0' || c->memory[0] != '\0' || c->cpu != 0 ||
	    c->cpu_pct != 0 || c->processes != 0 || c->disk[0] != '\0' ||
	    c->storage_pool[0] != '\0') {
		(void)fputs("defaults:\n", fp);
		if (c->network[0] != '\0')
			put_kstr(fp, "  ", "network", c->network);
		if (c->memory[0] != '\0')
			put_kstr(fp, "  ", "memory", c->memory);
		if (c->cpu != 0)
			(void)fprintf(fp, "  cpu: %d\n", c->cpu);
		else if (c->cpu_pct != 0)
			(void)fprintf(fp, "  cpu: \"%d%%\"\n", c->cpu_pct);
		if (c->processes != 0)
			(void)fprintf(fp, "  processes: %d\n", c->processes);
		if (c->disk[0] != '\0')
			put_kstr(fp, "  ", "disk", c->disk);
		if (c->storage_pool[0] != '\0')
			put_kstr(fp, "  ", "storage_pool", c->storage_pool);
	}
	put_revert(fp, "loose_auto_revert", &c->loose_auto_revert, all);
	put_revert(fp, "mount_auto_revert", &c->mount_auto_revert, all);
	rc_github_dump(c, all, fp);
	rc_secrets_dump(c, fp);
	if (c->base_alias[0] != '\0' || c->base_packages[0] != '\0')
		(void)fputs("base:\n", fp);
	if (c->base_alias[0] != '\0')
		put_kstr(fp, "  ", "alias", c->base_alias);
	if (c->base_packages[0] != '\0')
		put_packages(fp, c->base_packages);
	if (c->gpg_enabled != RC_UNSET)
		(void)fprintf(fp, "gpg:\n  enabled: %s\n", c->gpg_enabled ?
		    "true" : "false");
	if (c->ssh_enabled != RC_UNSET)
		(void)fprintf(fp, "ssh:\n  enabled: %s\n", c->ssh_enabled ?
		    "true" : "false");
	rc_agents_dump(&c->agents, all, fp);
	rc_autostart_dump(&c->autostart, all, fp);
	return ferror(fp) ? -1 : 0;
}
