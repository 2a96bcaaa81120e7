/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * Every message between JailBee's processes, in one place.
 *
 * The topology is a star: jailbeed (the parent) talks to each child over a
 * socketpair on fd 3, and to jbctl over the control socket.  Children never
 * talk to each other.  Each type has exactly one payload (a fixed struct,
 * or none) named beside it; a receiver checks the exact size with
 * imsg_get_data() and treats any mismatch or unknown type as a fatal
 * protocol error of the sender (a control client is just dropped).
 *
 * Numbers are grouped in blocks per peer and are never renumbered: a new
 * message takes a new number at the end of its block.  Structs are zeroed
 * before they are filled, so padding never leaks memory.
 *
 * On the control socket the header's peerid carries JB_CTL_VERSION in
 * every message in both directions; a client of another version is told
 * so and dropped.  Header pid fields are informational only: the parent
 * identifies clients by SO_PEERCRED and routes by its own connection ids.
 */

#ifndef JB_MSG_H
#define JB_MSG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define JB_CTL_VERSION		3
#define JB_NAME_MAX		16
#define JB_MSG_TEXT_MAX		256
#define JB_ERR_TEXT_MAX		1024	/* an error may name two paths */
#define JB_CTL_TEXT_MAX		(JB_ERR_TEXT_MAX + 256) /* and what then became of it */
#define JB_INSTANCE_MAX		64	/* Incus instance name, NUL included */
#define JB_BRANCH_MAX		256	/* a git ref name, NUL included */
#define JB_ARGV_MAX		4096	/* packed argv: NUL-separated strings */
#define JB_AGENT_MAX		33	/* an agent's name, NUL included */
#define JB_ENV_MAX		2048	/* packed "K=V" strings */
#define JB_SECRETS_STATE_MAX	2048	/* user.jailbee.secrets */
#define JB_OPTVAL_MAX		256
#define JB_OPTS_MAX		8	/* = CMD_MAXOPTS */
#define JB_OUTPUT_MAX		8192	/* bytes of output in one message */

/* every constant a payload below uses */
#define JB_DHCP_RANGES_MAX	8
#define JB_ADDRS_MAX		1024
#define JB_ADDRS_HELD		1	/* an instance's: config or lease */
#define JB_ADDRS_LEASED		2	/* a lease dnsmasq keeps for nobody */
#define JB_REPO_CONF_MAX	12288
#define JB_ESCALATION_MARK	"escalation gate: "
#define JB_SSH_AUTH_TRIES	6
#define JB_SSH_KEY_MAX		8192	/* a public key blob, base64 */
#define JB_SFTP_PATH_MAX	1024
#define JB_KIND_MAX		33	/* an optional_mounts key, NUL included */
#define JB_DEVICE_MAX		64
#define JB_FP_MAX		72	/* a sha256 in hex, NUL included */
#define JB_IMAGE_USERS_MAX	1024	/* packed container names */
#define JB_PACKAGES_MAX		1024	/* base.packages, space-separated */
#define JB_GIT_IDENT_MAX	256	/* user.name or user.email, NUL incl. */
#define JB_PIN_TEXT_MAX		12288

enum {
	IMSG_NONE = 0,

	/* parent <-> every child: 100.. */
	IMSG_CHILD_READY = 100,	/* child -> parent, none: locked down, serving */
	IMSG_STATUS_REQ,	/* parent -> child, none; peerid = request id */
	IMSG_STATUS,		/* child -> parent, struct jb_proc_status */
	IMSG_TEST_ATTEMPT,	/* parent -> child, struct jb_test_attempt (-T only) */
	IMSG_TEST_RESULT,	/* child -> parent, struct jb_ctl_text (-T only) */
	IMSG_DONE,		/* child -> parent, struct jb_done: request ended */
	IMSG_PROGRESS,		/* child -> parent, struct jb_ctl_text */
};

/* one process of the suite, as it reports itself */
struct jb_proc_status {
	char		name[JB_NAME_MAX];	/* "jailbeed", "jb-netd", ... */
	int32_t		pid;
	uint32_t	uid;		/* real, effective and saved agree */
	uint32_t	gid;
	uint32_t	ngroups;	/* supplementary groups */
	uint64_t	cap_eff;	/* effective capability bits */
	uint64_t	cap_prm;	/* permitted */
	uint64_t	cap_bnd;	/* bounding set */
	int64_t		started;	/* wall clock, seconds since the epoch */
	char		detail[JB_MSG_TEXT_MAX]; /* what the process serves */
	char		sandbox[JB_MSG_TEXT_MAX]; /* what its lock-down enforces */
};

/*
 * Only with the test switch (jailbeed -T, testhook.h): ask one process
 * to try an operation its lock-down forbids, to prove that it fails.
 * Without the switch jailbeed refuses the request and no child accepts it.
 */
struct jb_test_attempt {
	char		proc[JB_NAME_MAX];	/* "jailbeed", "jb-netd", ... */
	char		verb[16];		/* read, write, connect, netlink */
	char		path[JB_MSG_TEXT_MAX];
};

struct jb_ctl_text {
	char		text[JB_CTL_TEXT_MAX];
};

/* a request to a child ends with exactly one of these */
struct jb_done {
	int32_t		ok;			/* 1 done, 0 failed */
	char		err[JB_ERR_TEXT_MAX];	/* what failed, for the user */
};

enum {
	/* parent <-> jb-incus: 200..; peerid = request id */
	IMSG_INCUS_LIST = 200,	/* P->I, struct jb_incus_target (name "" = all) */
	IMSG_INCUS_INSTANCE,	/* I->P, struct jb_instance, one per instance */
	IMSG_INCUS_CREATE,	/* P->I, struct jb_incus_create; I->P
				   STARTED, then one DISK, the checkout
				   with the init's pid */
	IMSG_INCUS_ACTION,	/* P->I, struct jb_incus_action */
	IMSG_INCUS_SNAPSHOT,	/* I->P, struct jb_snapshot, one per snapshot */
	IMSG_INCUS_EXEC,	/* P->I, struct jb_incus_exec */
	IMSG_INCUS_EXEC_FD,	/* I->P, struct jb_exec_fd + fd */
	IMSG_INCUS_OUTPUT,	/* I->P, struct jb_output (captured exec) */
	IMSG_INCUS_RESIZE,	/* P->I, struct jb_winsize; peerid = exec's */
	IMSG_INCUS_EXIT,	/* I->P, struct jb_exit, before DONE */
	IMSG_INCUS_NETINFO,	/* P->I, none; I->P struct jb_netinfo */
	IMSG_INCUS_ADDRS,	/* P->I, none; I->P struct jb_addrs, batches:
				   addresses taken on the bridge */
	IMSG_INCUS_EXEC_KILL,	/* P->I, none; peerid = exec's: end it now */
	/*
	 * CREATE's: the container runs (its init only); the checkout's
	 * DISK and DONE follow
	 */
	IMSG_INCUS_STARTED,	/* I->P, struct jb_incus_target */
	/*
	 * the policy the next CREATE of the same name writes with the
	 * instance (its user.jailbee.* policy keys), so that Incus holds
	 * it from the creation on; DONE once kept
	 */
	IMSG_INCUS_CREATE_POLICY, /* P->I, struct jb_policy */

	/*
	 * the network policy Incus holds for each container (its
	 * user.jailbee.* keys): 220..  POLICIES answers one POLICY per
	 * container of the suite's; POLICY_SET writes one container's
	 */
	IMSG_INCUS_POLICIES = 220, /* P->I, struct jb_incus_target (name
				   "": every one; else that one, if ours) */
	IMSG_INCUS_POLICY,	/* I->P, struct jb_policy */
	IMSG_INCUS_POLICY_SET,	/* P->I, struct jb_policy */
	/*
	 * unasked (peerid 0), once the parent sent FOLLOW: Incus's event
	 * stream says an instance changed (action instance-*), or the
	 * stream was lost and is back (action "resync": events may be
	 * missing)
	 */
	IMSG_INCUS_EVENT,	/* I->P, struct jb_incus_event */
	/*
	 * open Incus's event stream: DONE when it is open, so that what
	 * the parent reads of Incus afterwards misses no change; DONE
	 * failed when it cannot be opened now (it is tried again, and a
	 * "resync" EVENT comes once it is open)
	 */
	IMSG_INCUS_FOLLOW,	/* P->I, none */
	/*
	 * add the start gate device to a container of the suite's that
	 * lacks it (made before the suite had gates), once jb-netd opened
	 * its gate; DONE
	 */
	IMSG_INCUS_GATE_ADD,	/* P->I, struct jb_incus_target */
	/*
	 * a container's overrides, written for one another cluster member
	 * enforces (net egress add/rm there typed here); DONE
	 */
	IMSG_INCUS_EXTRA_SET,	/* P->I, struct jb_incus_extra */
	/*
	 * the cluster mailbox (membox.h) in a member's configuration: GET
	 * answers MEMBOX_KV for each mailbox key under key (a prefix),
	 * SET sets key (value "": takes it out) and takes unset out; DONE
	 */
	IMSG_INCUS_MEMBOX_GET,	/* P->I, struct jb_membox */
	IMSG_INCUS_MEMBOX_KV,	/* I->P, struct jb_membox */
	IMSG_INCUS_MEMBOX_SET,	/* P->I, struct jb_membox */

	/* parent <-> jb-incus, base images: 230.. */
	IMSG_INCUS_IMAGE_IMPORT = 230,	/* P->I, struct jb_image_import + fd */
	IMSG_INCUS_IMAGES,	/* P->I, none: the suite's images */
	IMSG_INCUS_IMAGE,	/* I->P, struct jb_image, one per image */
	IMSG_INCUS_IMAGE_PRUNE,	/* P->I, none; I->P IMAGE per deleted one */
	IMSG_INCUS_IMAGE_ALIAS,	/* P->I, struct jb_incus_target (name: the
				   alias); I->P IMAGE when Incus has it */

	/* parent <-> jb-incus, disk devices: 250.. */
	IMSG_INCUS_DISK_ADD = 250, /* P->I, struct jb_disk; I->P one DISK */
	IMSG_INCUS_DISK_REMOVE,	/* P->I, struct jb_disk (name, device) */
	IMSG_INCUS_DISK_LIST,	/* P->I, struct jb_incus_target: one name's
				   suite devices; name "": every disk with
				   a host source of every suite container */
	IMSG_INCUS_DISK,	/* I->P, struct jb_disk, one per disk device */

	/* /etc/hosts pinning: 260.. */
	IMSG_INCUS_HOSTS = 260,	/* P->I, struct jb_hosts_pin: write the block */

	/*
	 * port forwards: 280..  ADD answers one PORT with the host
	 * port it took (--host-port auto); LIST: one name's forwards, or
	 * with name "" every suite container's (prefix "" or one repo's)
	 */
	IMSG_INCUS_PORT_ADD = 280, /* P->I, struct jb_port */
	IMSG_INCUS_PORT_REMOVE,	/* P->I, struct jb_port (name, device) */
	IMSG_INCUS_PORT_LIST,	/* P->I, struct jb_incus_target */
	IMSG_INCUS_PORT,	/* I->P, struct jb_port, one per forward */

	/* doctor: what incusd says of itself: 290.. */
	IMSG_INCUS_SERVER = 290, /* P->I, none; I->P SERVER_INFO, DONE */
	IMSG_INCUS_SERVER_INFO,	/* I->P, struct jb_incus_server */

	/* SFTP: jb-sftp pushed to /run/jb-sftp (root's, 0755): 296.. */
	IMSG_INCUS_SFTP_HELPER = 296, /* P->I, struct jb_incus_target + the
				   * binary's fd; I->P DONE */

	/* resource limits of one container: 297.. */
	IMSG_INCUS_LIMITS_SET = 297, /* P->I, struct jb_limits: put them on
				   * the running or stopped container */
	IMSG_INCUS_LIMITS_GET,	/* P->I, struct jb_incus_target; I->P one
				   * LIMITS, read back from Incus */
	IMSG_INCUS_LIMITS,	/* I->P, struct jb_limits */

};

/* an instance event of Incus's: its name and lifecycle action */
struct jb_incus_event {
	char		name[JB_INSTANCE_MAX];	/* "" with "resync" */
	char		action[32];		/* instance-created, ... */
};

/*
 * One container's network policy as Incus holds it, in its keys
 * user.jailbee.net (mode), user.jailbee.loose_until (seconds since the
 * epoch, 0: no revert), user.jailbee.egress (the config's entries,
 * an agent's written ~AGENT=ENTRY) and user.jailbee.egress_extra (its
 * own overrides); the lists are entries separated by one space.  Its
 * optional mounts' deadlines ride along (user.jailbee.mount_until.KIND).
 */
struct jb_policy {
	char		name[JB_INSTANCE_MAX];
	char		ipv4[16];		/* its NIC's address */
	char		prefix[48];		/* user.jailbee.prefix */
	char		net[8];			/* strict | loose | "" none */
	int64_t		loose_until;
	/* POLICY_SET: 1 writes net and loose_until only */
	int32_t		mode_only;
	/* POLICY: 1 when Incus has user.jailbee.egress at all */
	int32_t		has_egress;
	/*
	 * POLICY: 1 when it has the start gate device (gate.h), or its
	 * creator is to add it until gate_until (else 0)
	 */
	int32_t		has_gate;
	int64_t		gate_until;
	char		egress[JB_ARGV_MAX];
	char		egress_extra[JB_ARGV_MAX];
	/*
	 * POLICY: the deadlines of its attached optional mounts,
	 * user.jailbee.mount_until.KIND, as "KIND=UNTIL" separated by one
	 * space; POLICY_SET with mount_kind set writes that one key alone
	 * (mount_until 0 removes it)
	 */
	char		mounts[1024];
	char		mount_kind[JB_KIND_MAX];
	int64_t		mount_until;
	/*
	 * POLICY: the cluster member Incus places it on (the instance's
	 * location); "" or "none" when Incus is not clustered
	 */
	char		location[64];
	/*
	 * NETD_EGRESS_EDIT: add, rm (edit_entry, one egress entry) or ls,
	 * applied to this policy as Incus holds it; "" otherwise
	 */
	char		edit_op[4];
	char		edit_entry[320];
};

/*
 * INCUS_EXTRA_SET: user.jailbee.egress_extra becomes now, if Incus still
 * holds was there (else refused: it changed meanwhile)
 */
struct jb_incus_extra {
	char		name[JB_INSTANCE_MAX];
	char		was[JB_ARGV_MAX];
	char		now[JB_ARGV_MAX];
};

/* one key of the cluster mailbox in a member's configuration */
struct jb_membox {
	char		member[64];
	char		key[160];		/* MEMBOX_KEY_MAX */
	char		value[12288];		/* MEMBOX_VAL_MAX */
	char		unset[160];		/* "" none */
};

/*
 * limits.memory, limits.cpu, limits.processes and the root disk's size
 * as Incus takes them (ctrlimits.h); "" is none.  pool and state are
 * jb-incus's answer only.
 */
struct jb_limits {
	char		name[JB_INSTANCE_MAX];
	char		memory[32];
	char		cpu[16];
	char		processes[16];
	char		disk[32];
	char		pool[64];		/* the root disk's storage pool */
	char		state[16];		/* Running, Stopped, ... */
	char		location[64];		/* its cluster member, or "" */
};

struct jb_incus_target {
	char		name[JB_INSTANCE_MAX];	/* "" for every instance */
	char		prefix[48];		/* with name "": only this repo's */
};

/* one container, as ls shows it and jb-incus reports it */
struct jb_instance {
	char		name[JB_INSTANCE_MAX];
	char		state[16];		/* Running, Stopped, ... */
	char		repo[PATH_MAX];		/* user.jailbee.repo */
	char		prefix[48];		/* user.jailbee.prefix */
	char		branch[JB_BRANCH_MAX];	/* user.jailbee.branch */
	char		base[JB_BRANCH_MAX];	/* user.jailbee.base */
	char		mode[8];		/* clone | mount */
	char		net[8];			/* strict | loose */
	char		ipv4[16];		/* the fixed address */
	int64_t		created;		/* seconds since the epoch */
	/* mounts: optional mounts attached, soonest deadline */
	uint32_t	nmounts;
	int64_t		mount_until;		/* 0: none has a deadline */
	/* net from jb-netd when it holds a policy, with its loose deadline */
	int64_t		net_until;		/* 0: strict or no revert */
	/* the agent new --agent enabled (user.jailbee.agent) */
	char		agent[JB_AGENT_MAX];
	/* user.jailbee.secrets: where its secrets are declared, placeholders */
	char		secrets[JB_SECRETS_STATE_MAX];
	/* the cluster member it is on ("none" or "" when not clustered) */
	char		location[64];
	/* user.jailbee.target: the member new --target pinned it to, or "" */
	char		target[64];
};

/* everything jb-incus needs to build a container; it builds the JSON */
struct jb_incus_create {
	char		name[JB_INSTANCE_MAX];
	char		image[JB_INSTANCE_MAX];	/* alias */
	char		ipv4[16];		/* on the suite's bridge */
	uint32_t	uid, gid;		/* the dev user = the owner */
	char		source[PATH_MAX];	/* host repo, realpath */
	int32_t		mount_rw;		/* --mount: working tree read-write */
	char		repo[PATH_MAX];
	char		prefix[48];
	char		branch[JB_BRANCH_MAX];
	char		base[JB_BRANCH_MAX];
	char		net[8];			/* strict | loose */
	char		env[JB_ENV_MAX];	/* container.env, "K=V" NUL-separated */
	uint32_t	nenv;
	/*
	 * user.jailbee.secrets: the global and host-local config paths and
	 * "NAME=PLACEHOLDER", one a line ("" none); never a value
	 */
	char		secrets[JB_SECRETS_STATE_MAX];
	/* new --agent, user.jailbee.agent; "" none */
	char		agent[JB_AGENT_MAX];
	/* its limits, as in struct jb_limits; "" none */
	char		memory[32];
	char		cpu[16];
	char		processes[16];
	char		disk[32];
	/* the root disk's storage pool; "" the default profile's */
	char		pool[64];
	/*
	 * On a cluster (cluster.member): no checkout device, the clone comes
	 * through the git bridge; target: the member new --target names
	 * (Incus's target on create, kept as user.jailbee.target), "" none
	 */
	int32_t		no_checkout;
	char		target[64];
	/*
	 * 1: target is another cluster member: no start gate at creation
	 * (Incus checks its source there, where that member's jb-netd makes
	 * it); started once that member's suite has added it
	 */
	int32_t		gate_later;
	/*
	 * On a cluster, this suite's member (cluster.member), else "".  With
	 * no target jb-incus picks the member, as Incus would, and leaves the
	 * gate to that member's suite when it is another
	 */
	char		member[64];
};

enum jb_incus_verb {
	INCUS_START = 1,
	INCUS_STOP,
	INCUS_RESTART,
	INCUS_DELETE,
	INCUS_SNAP_CREATE,
	INCUS_SNAP_RESTORE,
	INCUS_SNAP_DELETE,
	INCUS_SNAP_LIST,
};


struct jb_incus_action {
	char		name[JB_INSTANCE_MAX];
	uint32_t	verb;			/* enum jb_incus_verb */
	int32_t		force;
	char		tag[JB_INSTANCE_MAX];	/* snapshot name */
};

struct jb_snapshot {
	char		instance[JB_INSTANCE_MAX];
	char		name[JB_INSTANCE_MAX];
	int64_t		created;
	int32_t		stateful;
};

struct jb_incus_exec {
	char		name[JB_INSTANCE_MAX];
	uint32_t	uid, gid;
	char		cwd[PATH_MAX];
	uint32_t	nargs;
	char		argv[JB_ARGV_MAX];
	uint32_t	nenv;
	char		env[JB_ENV_MAX];
	int32_t		interactive;		/* a pty; one fd both ways */
	int32_t		capture;		/* output as IMSG_INCUS_OUTPUT */
	/* captured: no output is wanted when it exits 0 (none is read) */
	int32_t		quiet_ok;
	uint32_t	cols, rows;
};

struct jb_exec_fd {
	uint32_t	which;			/* 0: stdin+stdout or pty, 2: stderr */
};

struct jb_output {
	uint32_t	which;			/* 1 stdout, 2 stderr */
	uint32_t	len;
	char		data[JB_OUTPUT_MAX];	/* (bytes): len of them */
};

struct jb_winsize {
	uint32_t	cols, rows;
};

struct jb_exit {
	int32_t		status;			/* the command's exit status */
};

struct jb_netinfo {
	char		bridge[16];
	char		ipv4[16];		/* the host's address on it */
	uint32_t	prefixlen;
	/* what dnsmasq leases from, first-last, host byte order */
	uint32_t	ndhcp;			/* 0: no DHCP on the bridge */
	uint32_t	dhcp_first[JB_DHCP_RANGES_MAX];
	uint32_t	dhcp_last[JB_DHCP_RANGES_MAX];
};

/* addresses no new container may take (ADDRS) */
struct jb_addrs {
	uint32_t	kind;			/* JB_ADDRS_* */
	uint32_t	n;			/* addr[0..n) */
	uint32_t	addr[JB_ADDRS_MAX];	/* host byte order */
};

struct jb_image_import {
	char		alias[JB_INSTANCE_MAX];	/* repo's base.alias */
	char		repo[PATH_MAX];		/* who asked, for the record */
	uint64_t	size;			/* the fd must have this size */
	char		pool[64];		/* defaults.storage_pool; "" the
						   default profile's */
};

/* one image: a suite image, or one a JailBee container uses */
struct jb_image {
	char		fingerprint[JB_FP_MAX];
	char		aliases[JB_MSG_TEXT_MAX];	/* comma-separated */
	char		description[JB_MSG_TEXT_MAX];
	uint64_t	size;			/* bytes, as Incus says */
	int64_t		created;		/* seconds since the epoch */
	int32_t		suite;			/* marked at import by us */
	uint32_t	nusers;			/* containers made from it */
	char		users[JB_IMAGE_USERS_MAX]; /* names, NUL-separated, cut */
	char		repos[JB_MSG_TEXT_MAX];	/* their repos' prefixes, comma-separated */
};

/*
 * Mounts.  A disk device of the suite's: jb-incus builds the
 * device from these fields alone and only under the device names the
 * suite uses (host-<n>, optional-<kind>).
 */

struct jb_disk {
	char		name[JB_INSTANCE_MAX];	/* the instance */
	char		device[JB_DEVICE_MAX];
	char		source[PATH_MAX];	/* realpath checked by jb-mountd */
	char		path[PATH_MAX];		/* in the container, absolute */
	int32_t		readonly;
	int32_t		pid;			/* I->P: the init's, 0 stopped */
	char		prefix[48];		/* I->P, listed: the repo's */
};

/*
 * A container's /etc/hosts block: lines "ADDR NAME\n" (hostspin.h),
 * len bytes of text; len 0 takes the block out.  gen matches PINNED to it.
 */
struct jb_hosts_pin {
	char		name[JB_INSTANCE_MAX];
	uint32_t	gen;
	uint32_t	len;
	char		text[JB_PIN_TEXT_MAX];	/* (bytes): len of them */
};

/*
 * A port forward: an Incus proxy device of the suite's, built by
 * jb-incus from these fields alone under a name portspec.h defines.
 * dir PORT_TO_CONTAINER listens at container_address:port inside and
 * connects to host_address:host_port; PORT_TO_HOST listens at
 * host_address:host_port on the host and connects to
 * container_address:port inside.  Addresses are IPv4 literals.
 */
struct jb_port {
	char		name[JB_INSTANCE_MAX];	/* the instance */
	char		device[JB_DEVICE_MAX];	/* port-cfg-*, port-tc-*, ... */
	uint32_t	dir;			/* enum port_dir */
	char		proto[4];		/* tcp | udp */
	uint32_t	port;			/* the container's side */
	char		container_address[16];
	uint32_t	host_port;		/* ADD to-host: 0 = auto */
	char		host_address[16];
	int32_t		nonlocal;		/* ADD: a host address off
						   127/8 was asked for by name */
	char		prefix[48];		/* I->P, listed: the repo's */
	char		state[16];		/* I->P, listed: Running ... */
};

/* doctor */
struct jb_incus_server {
	char		version[64];		/* environment.server_version */
	char		api[32];		/* api_version */
};

enum {
	/* parent <-> jb-mountd: 300..; peerid = request id */
	IMSG_MOUNTD_REPO = 300,	/* P->M, struct jb_repo_req */
	IMSG_MOUNTD_REPO_INFO,	/* M->P, struct jb_repo_info, before DONE */

	/* parent <-> jb-mountd, mount sources and deadlines */
	IMSG_MOUNTD_CHECK = 302, /* P->M, struct jb_mount_check */
	IMSG_MOUNTD_CHECKED,	/* M->P, struct jb_mount_checked, before DONE */
	IMSG_MOUNTD_VERIFY,	/* P->M, struct jb_mount_verify; releases */
	IMSG_MOUNTD_RELEASE,	/* P->M, struct jb_mount_verify (token) */
	IMSG_MOUNTD_DEADLINE_SET, /* P->M, struct jb_mount_deadline */
	IMSG_MOUNTD_DEADLINE_CLEAR, /* P->M, struct jb_mount_deadline */
	IMSG_MOUNTD_DEADLINE_LIST, /* P->M, struct jb_mount_deadline (name
				   "" = all); M->P DEADLINE per entry */
	IMSG_MOUNTD_DEADLINE,	/* M->P, struct jb_mount_deadline */
	IMSG_MOUNTD_EXPIRED,	/* M->P, struct jb_mount_deadline, peerid 0:
				   unasked, again every few s until cleared */

	/* parent <-> jb-mountd, ssh.enabled's shared ~/.ssh: 311.. */
	IMSG_MOUNTD_SSH_SEED = 311, /* P->M, struct jb_ssh_seed */
	IMSG_MOUNTD_SSH_DIR,	/* M->P, struct jb_ssh_dir, before DONE */
	/* remote mount_roots: an entry's real path, as the owner's */
	IMSG_MOUNTD_RESOLVE = 313, /* P->M, struct jb_mount_check (host, what) */
	IMSG_MOUNTD_RESOLVED,	/* M->P, struct jb_mount_resolved, before DONE */
	/* before a start: a disk source still has no symlink */
	IMSG_MOUNTD_RECHECK = 315, /* P->M, struct jb_mount_check (host =
				   the device's source, what); DONE */

	/* parent <-> jb-mountd, base images: 320.. */
	IMSG_MOUNTD_IMAGE_OPEN = 320,	/* P->M, struct jb_image_open */
	IMSG_MOUNTD_IMAGE_FD,	/* M->P, struct jb_image_file + fd */

	/* parent <-> jb-mountd, the owner's git identity: 330.. */
	IMSG_MOUNTD_GITIDENT = 330, /* P->M, struct jb_git_ask */
	IMSG_MOUNTD_GITIDENT_INFO, /* M->P, struct jb_git_ident, before DONE */
	/* the escalation gate reads the default branch's config */
	IMSG_MOUNTD_DEFCONF = 332, /* P->M, struct jb_repo_req */
	IMSG_MOUNTD_DEFCONF_TEXT, /* M->P, struct jb_repo_conf, before DONE */
	/* an agent's shared entry under the suite's shared dir */
	IMSG_MOUNTD_SHARED = 334, /* P->M, struct jb_shared_req */
	IMSG_MOUNTD_SHARED_PATH, /* M->P, struct jb_shared_path, before DONE */
	/* a secret's file, read as the owner (0600 or tighter) */
	IMSG_MOUNTD_SECRET = 336, /* P->M, struct jb_secret_ask */
	IMSG_MOUNTD_SECRET_VALUE, /* M->P, struct jb_secret_value, before DONE */
};

struct jb_repo_req {
	char		path[PATH_MAX];		/* where the user stands */
	/*
	 * REPO: "" or a branch to look up; DEFCONF: the default branch and
	 * the upstream remote REPO gave ("" none), or "" to find them again
	 */
	char		branch[JB_BRANCH_MAX];
	char		remote[JB_BRANCH_MAX];
	int32_t		toplevel_only;		/* 1: the work tree, no more */
};

/* a git checkout as the owner sees it */
struct jb_repo_info {
	char		toplevel[PATH_MAX];	/* realpath of the work tree */
	char		head_branch[JB_BRANCH_MAX]; /* "" when detached */
	char		default_branch[JB_BRANCH_MAX];
	char		upstream_remote[JB_BRANCH_MAX];	/* "" when none */
	char		upstream_url[PATH_MAX];	/* "" when none */
	char		branch_sha[48];		/* of the asked branch, "" absent */
	char		head_sha[48];
};

/* check one mount source as the owner sees it */
struct jb_mount_check {
	char		host[PATH_MAX];		/* as configured: /abs or ~/x */
	char		container[PATH_MAX];	/* absolute */
	char		reserved[PATH_MAX];	/* the clone: not to be shadowed */
	char		what[JB_MSG_TEXT_MAX];	/* "optional_mounts.aws": errors */
};

struct jb_mount_checked {
	uint32_t	token;			/* jb-mountd holds it open */
	char		realpath[PATH_MAX];
	int32_t		is_dir;
	uint64_t	dev, ino;
	char		warning[JB_ERR_TEXT_MAX]; /* "" or the file warning */
};

/* after the attach: is what the container got what was checked? */
struct jb_mount_verify {
	uint32_t	token;
	int32_t		pid;			/* the container's init */
	char		container[PATH_MAX];
};

struct jb_mount_deadline {
	char		name[JB_INSTANCE_MAX];
	char		kind[JB_KIND_MAX];
	int64_t		until;			/* seconds since the epoch */
};

/*
 * ssh.enabled: the repo's shared ~/.ssh, made and seeded by
 * jb-mountd under its own directory, named by the container prefix
 */
struct jb_ssh_seed {
	char		key[64];		/* container_prefix */
};

struct jb_ssh_dir {
	char		path[PATH_MAX];		/* the directory, absolute */
	int32_t		seeded;			/* files copied now, or -1:
						   not empty, left alone */
	char		warning[JB_MSG_TEXT_MAX]; /* "" or what was skipped */
};

/* IMSG_MOUNTD_RESOLVED: realpath "" when the path does not exist */
struct jb_mount_resolved {
	char		realpath[PATH_MAX];
};

/*
 * Base images.  A file to import is opened by jb-mountd as the
 * owner and its fd travels through the parent to jb-incus, which streams
 * it to Incus: no process but jb-mountd touches the owner's files.
 */

struct jb_image_open {
	char		path[PATH_MAX];		/* absolute */
};

struct jb_image_file {
	uint64_t	size;			/* as fstat saw it */
	char		kind[16];		/* "gzip", "xz", "tar" ... */
};

/*
 * The owner's git identity: user.name and user.email from
 * the owner's global git config, read by jb-mountd as the owner, become
 * the dev user's /home/dev/.gitconfig, rendered by jailbeed, and nothing
 * else of the host's git config goes along.  Values are "" when unset;
 * a set one is at most JB_GIT_IDENT_MAX - 1 bytes with no control
 * character (gitident.h), which jailbeed checks again.
 */

struct jb_git_ask {
	char		xdg_config[PATH_MAX];	/* jbctl's $XDG_CONFIG_HOME */
};

struct jb_git_ident {
	char		name[JB_GIT_IDENT_MAX];
	char		email[JB_GIT_IDENT_MAX];
	char		note[JB_MSG_TEXT_MAX];	/* "" or one line for the user:
						   missing, a bad file, ... */
};

/*
 * .jailbee/config.yaml as committed on the repo's default branch
 * (refs/remotes/<upstream>/<default>, else refs/heads/<default>), read
 * by jb-mountd as the owner: the escalation gate's base.
 */
/* the start of new's refusal that jbctl may answer on a terminal */

struct jb_repo_conf {
	char		ref[JB_BRANCH_MAX + 64];	/* the ref read */
	int32_t		found;		/* 1 read, 0 no such file or ref,
					   -1 longer than text */
	uint32_t	len;
	char		text[JB_REPO_CONF_MAX];	/* (bytes): len of them */
};

/*
 * An agent's shared entry: <mountdir>/shared/<key>/<subpath>, made as
 * the owner (directories 0700, a new file 0600 holding seed).
 */
struct jb_shared_req {
	char		key[64];		/* container_prefix */
	char		subpath[128];		/* relative, below it */
	char		type[8];		/* dir | file */
	char		seed[256];		/* a new file's content */
	char		what[64];		/* agents.NAME.shared[i] */
};

struct jb_shared_path {
	char		path[PATH_MAX];		/* absolute */
	int32_t		made;			/* 1: made now */
};

/* IMSG_MOUNTD_SECRET: secrets.NAME.file, absolute or ~/... */
struct jb_secret_ask {
	char		path[1024];
};

/* IMSG_MOUNTD_SECRET_VALUE: the file's one line */
#define JB_SECRET_VALUE_MAX	4096
struct jb_secret_value {
	char		value[JB_SECRET_VALUE_MAX + 1];
};

enum {
	/* parent <-> jb-netd: 400..; peerid = request id */
	IMSG_NETD_SET = 400,	/* P->N, struct jb_netd_ctr: add or replace */
	IMSG_NETD_FORGET,	/* P->N, struct jb_incus_target (name) */
	IMSG_NETD_MODE,		/* P->N, struct jb_netd_mode */
	IMSG_NETD_STATUS,	/* P->N, struct jb_incus_target; see 470.. */
	/* net egress add|rm|ls; ls answers in ALLOWs */
	IMSG_NETD_EGRESS = 410,	/* P->N, struct jb_netd_egress */
	IMSG_NETD_MODES,	/* P->N, none: every container's mode */
	IMSG_NETD_MODE_ENTRY,	/* N->P, struct jb_netd_mode, before DONE */
	/*
	 * Incus holds the policy, jb-netd's files are its cache:
	 * RECORD_GET answers one container's policy as jb-netd enforces it
	 * (one RECORD, then DONE), to be written to Incus; RESTORE makes
	 * jb-netd enforce the policy Incus holds (name, ipv4, prefix and
	 * the keys), replacing what its cache had
	 */
	IMSG_NETD_RECORD_GET = 420, /* P->N, struct jb_incus_target */
	IMSG_NETD_RECORD,	/* N->P, struct jb_policy */
	IMSG_NETD_RESTORE,	/* P->N, struct jb_policy */
	/*
	 * net egress add/rm/ls for a container another cluster member
	 * enforces: the policy Incus holds, edited by jb-netd's own rules
	 * and answered as one RECORD (add, rm) or ALLOW lines (ls), then
	 * DONE; nothing jb-netd enforces changes
	 */
	IMSG_NETD_EGRESS_EDIT,	/* P->N, struct jb_policy */
	/* start-up sync, Incus lacks it: forget unless new */
	IMSG_NETD_SYNC_FORGET = 440, /* P->N, struct jb_incus_target */
	/*
	 * the pool and /etc/hosts pinning.  PIN comes in the
	 * reply of REFRESH or MODE, or unasked (peerid 0) when a refresh
	 * changed the block; the parent answers every PIN with PINNED.
	 */
	IMSG_NETD_REFRESH = 450, /* P->N, struct jb_incus_target: resolve now */
	IMSG_NETD_PIN,		/* N->P, struct jb_hosts_pin */
	IMSG_NETD_PINNED,	/* P->N, struct jb_netd_pinned, peerid 0 */
	/*
	 * fail closed: a container still loose in the kernel past its
	 * deadline, the revert and the rebuild both refused; peerid 0
	 */
	IMSG_NETD_STOP = 460,	/* N->P, struct jb_netd_mode: stop it */
	/*
	 * net status: STATUS (name "" = every container, prefix ""
	 * or one repo's) answers, per container, one CTR, then its ALLOWs
	 * and ADDRs, before DONE.  The same structs go on to jbctl.
	 */
	IMSG_NETD_CTR = 470,	/* N->P, struct jb_net_ctr */
	IMSG_NETD_ALLOW,	/* N->P, struct jb_net_allow */
	IMSG_NETD_ADDR,		/* N->P, struct jb_net_addr */
	/* doctor: does the kernel's table hold what jb-netd holds? */
	IMSG_NETD_CHECK = 480,	/* P->N, none; N->P CHECKED, then DONE */
	IMSG_NETD_CHECKED,	/* N->P, struct jb_netd_check */
	/* what the resolver refused: one name's container, DONE */
	IMSG_NETD_BLOCKED = 490, /* P->N, struct jb_incus_target (name) */
	IMSG_NETD_BLOCK,	/* N->P, struct jb_net_block, one per entry */
	/*
	 * apply: a known container's config entries (and repo) become the
	 * message's; its address, mode, deadline and overrides stay
	 */
	IMSG_NETD_CONFIG = 495,	/* P->N, struct jb_netd_ctr */
	/*
	 * unasked: a refusal was just counted for this container (name),
	 * gathered and sent at most once a second, for the watchers
	 */
	IMSG_NETD_REFUSED_NOTE = 497, /* N->P, struct jb_incus_target */
	/* for the audit journal, unasked (peerid 0): a revert, a summary */
	IMSG_NETD_AUDIT = 498,	/* N->P, struct jb_netd_audit */
	/* net refresh: one per exact name asked, before PINs and DONE */
	IMSG_NETD_RESOLVED = 499, /* N->P, struct jb_net_resolved */
};

/*
 * One container's network policy, as jb-netd enforces it: a new one
 * replaces whatever held the name or the address before.  entries are
 * egress_allow entries, NUL-separated; jb-netd refuses the
 * whole message when one is malformed, naming it.
 */
struct jb_netd_ctr {
	char		name[JB_INSTANCE_MAX];
	char		ipv4[16];		/* its fixed address */
	char		mode[8];		/* strict | loose */
	int64_t		deadline;		/* loose until, 0: no revert */
	uint32_t	nentries;
	char		entries[JB_ARGV_MAX];
	/* its repo's container_prefix, for the repo layer */
	char		repo[48];
	/*
	 * per entry, NUL-separated, where it comes from: "" the
	 * config's egress_allow, JB_EGRESS_FROM_GITHUB github.enabled's,
	 * else the enabled agent whose egress_allow it is (origin
	 * agent:<name>); all zero: every entry the config's
	 */
	char		agents[JB_ARGV_MAX];
};
/* an entry a feature of the config adds: never an agent's name */
#define JB_EGRESS_FROM_GITHUB	":github"

/* strict, or loose until deadline (0: no revert), for a known container */
struct jb_netd_mode {
	char		name[JB_INSTANCE_MAX];
	char		mode[8];		/* strict | loose */
	int64_t		deadline;		/* seconds since the epoch */
};

/* net egress add|rm|ls: a container's overrides (seed, Egress overrides) */
struct jb_netd_egress {
	char		name[JB_INSTANCE_MAX];
	char		op[4];			/* add | rm | ls */
	char		entry[320];		/* add, rm: one egress entry */
	/* add, rm --repo: the repo layer of this prefix */
	char		repo[48];
	char		config[1024];		/* its config file (errors) */
};

/* the parent's word on one PIN: written (or already so), or not */
struct jb_netd_pinned {
	char		name[JB_INSTANCE_MAX];
	uint32_t	gen;
	int32_t		ok;
	char		err[JB_ERR_TEXT_MAX];
};

/*
 * net status: one container's policy as jb-netd enforces it.  mode
 * "" when jb-netd holds none (every packet refused); broken: "" or what
 * does not work as it should, in a sentence.
 */
struct jb_net_ctr {
	char		name[JB_INSTANCE_MAX];
	char		ipv4[16];
	char		mode[8];		/* strict | loose | "" */
	int64_t		deadline;		/* loose until; 0: no revert */
	char		repo[48];		/* container_prefix, "" unknown */
	uint32_t	npool;			/* pooled addresses in all */
	char		broken[JB_MSG_TEXT_MAX];
};

/* one allow entry and where it comes from */
struct jb_net_allow {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		entry[320];		/* as egress_allow writes it */
	char		origin[48];		/* config | agent:<name> |
						   repo-override | container */
	/* net status: what enforces it ("" in net egress ls) */
	char		path[128];
};

/* an address admitted for an allowed name, and until when */
struct jb_net_addr {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		host[256];		/* the allowed name */
	char		ipv4[16];
	int64_t		last;			/* last answered */
	int64_t		until;			/* admitted until */
};

struct jb_netd_check {
	int32_t		table;			/* table inet jailbee and its
						   map ctrs are in the kernel */
	uint32_t	nctr;			/* containers jb-netd holds */
	uint32_t	nmissing;		/* of them, not in map ctrs */
	char		missing[JB_MSG_TEXT_MAX]; /* their names, cut */
	char		err[JB_MSG_TEXT_MAX];	/* nft's words, "" when none */
	int32_t		bridge;			/* table bridge jailbee and its
						   set ports are there */
	uint32_t	nbmissing;		/* containers whose port has
						   no element: it sends nothing */
	char		bmissing[JB_MSG_TEXT_MAX]; /* their names, cut */
	char		berr[JB_MSG_TEXT_MAX];	/* nft's words, "" when none */
};

/* net status: a secret of the container's repo, never its value */
struct jb_net_secret {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		secret[64];
	char		hosts[2048];		/* ", "-separated */
	char		header[64];		/* "" every header */
	char		why[512];		/* "" put in; else why not */
};

/* one refused name of a container, counted by jb-netd */
struct jb_net_block {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		kind[8];		/* "dns" or "conn" */
	/* dns: the name, lowercased; conn: "ADDR:PORT/tcp" or "/udp" */
	char		what[256];
	uint64_t	count;
	int64_t		first;
	int64_t		last;
	/*
	 * the egress_allow entry that would admit it (for conn, the name
	 * the resolver answered the address for when there is one), or ""
	 */
	char		allow[272];
};

/*
 * What jb-netd did or refused on its own, for the audit journal: kind
 * "revert" (loose to strict at the deadline; deadline set) or
 * "dns-refused" (the names refused since the last summary: count in
 * all, distinct, the most asked one and its count) or "conn-refused"
 * (the same for connection attempts, top an "ADDR:PORT/PROTO")
 */
struct jb_netd_audit {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		repo[48];
	char		kind[16];
	int64_t		deadline;
	uint64_t	count;
	uint64_t	distinct;
	char		top[256];		/* a plain DNS name, or "" */
	uint64_t	topcount;
};

/* net refresh: an exact allowed name asked upstream, and the pool */
struct jb_net_resolved {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		host[256];		/* the allowed name */
	int32_t		answered;		/* 0: no answer, pool kept */
	uint32_t	pooled;			/* its addresses pooled now */
};

enum {
	/*
	 * parent <-> jb-sshd: 500..  LISTEN and SESSION travel on the
	 * child's channel; the rest on one session's own channel (the fd
	 * SESSION carries), where the parent also answers with the
	 * control replies (CTL_OUTPUT, CTL_ERROR, CTL_EXEC_FD, CTL_EXIT,
	 * CTL_END) and the session sends CTL_WINSIZE.
	 */
	IMSG_SSHD_LISTEN = 500,	/* P->S, struct jb_sshd_limits + the listening
				   socket */
	IMSG_SSHD_SESSION,	/* S->P, struct jb_sshd_session + channel fd */
	IMSG_SSHD_AUTH,		/* S->P, struct jb_sshd_auth: a key offered */
	IMSG_SSHD_VERDICT,	/* P->S, struct jb_sshd_verdict */
	IMSG_SSHD_ENV,		/* S->P, struct jb_sshd_env: an env request */
	IMSG_SSHD_EXEC,		/* S->P, struct jb_sshd_exec: exec or shell */
	IMSG_SSHD_REFUSED,	/* S->P, struct jb_sshd_refused: for the journal */
	IMSG_SSHD_DRAIN,	/* P->S, none: refuse new sessions, exit when idle */
	IMSG_SSHD_AUTHED,	/* P->S, struct jb_sshd_authed: a session logged in */
	IMSG_SSHD_PENALTY,	/* P->S, struct jb_sshd_penalty: drop a source */
	/*
	 * jb-sshd's listener <-> its spawner (jb-sshd -P), on their own
	 * socketpair: the listener hands over an accepted connection and
	 * nothing else; the spawner execs a session (jb-sshd -S) for it.
	 */
	IMSG_SSHD_SPAWN,	/* L->Sp, struct jb_sshd_spawn + the connection */
	IMSG_SSHD_SPAWNED,	/* Sp->L, struct jb_sshd_spawn + channel fd */
	IMSG_SSHD_GONE,		/* Sp->L, struct jb_sshd_spawn: session ended */
	IMSG_SSHD_DROP,		/* L->Sp, struct jb_sshd_spawn: kill a session
				   not logged in (early drop) */
	/*
	 * SFTP on a session's channel: the session asks for the
	 * subsystem (VERDICT answers), then one SFTP request per operation;
	 * the parent decides, runs jb-sftp in the container and hands the
	 * session its stdio; DONE ends every request, refused or run.
	 */
	IMSG_SSHD_SUBSYS = 520,	/* S->P, struct jb_sshd_subsys */
	IMSG_SSHD_SFTP,		/* S->P, struct jb_sftp_op */
	IMSG_SSHD_SFTP_NAME,	/* P->S, struct jb_sftp_name: a container in / */
	IMSG_SSHD_SFTP_FD,	/* P->S, struct jb_sftp_done + jb-sftp's stdio */
	IMSG_SSHD_SFTP_DONE,	/* P->S, struct jb_sftp_done */
	IMSG_SSHD_SFTP_RESULT,	/* S->P, struct jb_sftp_result: what the
				   client was told; a stream let go */
	/*
	 * jbctl reload moved remote.ssh.listen: the socket jbctl bound, or
	 * none for "off"; jb-sshd accepts on it from now on and closes the
	 * socket it had.
	 */
	IMSG_SSHD_REBIND = 540,	/* P->S, struct jb_sshd_limits [+ socket] */
	/*
	 * A connection not logged in offered a key that is authorized and
	 * logged in recently: jb-sshd keeps it among the reserved slots,
	 * out of the early drop of the others.
	 */
	IMSG_SSHD_KNOWN,	/* P->S, struct jb_sshd_known */
	/*
	 * The dashboard a session draws: which of its actions the session's
	 * policy admits, asked once as it opens, so that the others are not
	 * offered.
	 */
	IMSG_SSHD_DASH,		/* S->P, struct jb_sshd_dash: the actions */
	IMSG_SSHD_DASH_OK,	/* P->S, struct jb_sshd_dash: ok[] filled */

	/*
	 * parent <-> jb-gitd: 600..  The git bridge over SSH: host git
	 * run as the owner in one registered checkout, writing its .git
	 * only, fetching through the stream given.
	 */
	IMSG_GITD_FETCH = 600,	/* P->G, struct jb_gitd_fetch + the stream to
				   git upload-pack in the container */
	IMSG_GITD_RESULT,	/* G->P, struct jb_gitd_result, before DONE */
	IMSG_GITD_BUNDLE,	/* P->G, struct jb_gitd_bundle + the stream to
				   the container's stdin; RESULT, then DONE */
	IMSG_GITD_HAVE,		/* P->G, struct jb_gitd_have; RESULT (have),
				   then DONE */
};

/* with SSHD_LISTEN: jb-sshd's own limits at accept (MaxStartups-like) */
struct jb_sshd_limits {
	uint32_t	max_unauth;		/* per source address */
};

/* a new SSH connection: who connected, and the session's id */
struct jb_sshd_session {
	char		addr[48];		/* the client's address */
	uint32_t	port;
	uint32_t	id;			/* jb-sshd's, for AUTHED */
};

/* refused logins of any method per connection (MaxAuthTries) */

struct jb_sshd_auth {
	char		user[64];
	char		keytype[64];		/* "ssh-ed25519" ... */
	char		key[JB_SSH_KEY_MAX];	/* base64 of the blob */
	int32_t		verified;		/* libssh checked the signature */
};

struct jb_sshd_verdict {
	int32_t		ok;
	char		fingerprint[64];	/* SHA256:... */
};

struct jb_sshd_env {
	char		name[64];
	char		value[64];
};

struct jb_sshd_exec {
	char		line[JB_ARGV_MAX];	/* "" for a shell request */
	int32_t		shell;			/* a shell request */
	int32_t		pty;			/* a pty was asked for */
	uint32_t	cols, rows;
	char		term[64];
	/*
	 * a request of the session's dashboard: judged and journalled as a
	 * console line is, its replies sent as they are, not as text
	 */
	int32_t		dash;
};

#define JB_SSHD_DASH_MAX	32
struct jb_sshd_dash {
	uint32_t	n;
	uint32_t	id[JB_SSHD_DASH_MAX];	/* enum cmd_id */
	uint8_t		ok[JB_SSHD_DASH_MAX];	/* 1: the policy admits it */
	uint8_t		pad[4];
};

/*
 * What a session refused, as a fixed code the parent names in the
 * journal: never the client's own words (a subsystem's name, say).
 */
enum jb_sshd_refusal {
	SSHD_REFUSED_NONE = 0,		/* never sent */
	SSHD_REFUSED_AUTH_PASSWORD,
	SSHD_REFUSED_AUTH_KBDINT,
	SSHD_REFUSED_AUTH_GSSAPI,
	SSHD_REFUSED_AUTH_METHOD,	/* hostbased and the unknown ones */
	SSHD_REFUSED_TCPIP_FORWARD,
	SSHD_REFUSED_GLOBAL_REQUEST,
	SSHD_REFUSED_DIRECT_TCPIP,
	SSHD_REFUSED_X11_CHANNEL,
	SSHD_REFUSED_SECOND_SESSION,
	SSHD_REFUSED_CHANNEL_OPEN,
	SSHD_REFUSED_X11_REQ,
	SSHD_REFUSED_CHANNEL_REQUEST,
	SSHD_REFUSED_SUBSYSTEM_SFTP,
	SSHD_REFUSED_SUBSYSTEM,		/* any other name: not recorded */
	SSHD_REFUSED_AGENT,		/* auth-agent-req: no agent channel */
	SSHD_REFUSED_MAX
};


struct jb_sshd_refused {
	uint32_t	what;			/* enum jb_sshd_refusal */
};

struct jb_sshd_authed {
	uint32_t	id;
};

struct jb_sshd_known {
	uint32_t	id;			/* jb-sshd's, as in AUTHED */
	uint32_t	key;			/* which key, a number of the
						   parent's (1...) */
};

/* new connections from addr are closed at accept until then */
struct jb_sshd_penalty {
	char		addr[48];
	int64_t		until;			/* seconds since the epoch */
};

/* the listener's session id; pid: the spawner's, 0 in SPAWN */
struct jb_sshd_spawn {
	uint32_t	id;
	int32_t		pid;
};

struct jb_sshd_subsys {
	char		name[64];
};

/* one SFTP operation, as the session asks for it */
enum jb_sftp_opcode {
	SFTPOP_NONE = 0,
	SFTPOP_STAT,
	SFTPOP_LSTAT,
	SFTPOP_LIST,		/* opendir: the whole directory */
	SFTPOP_READLINK,
	SFTPOP_READ,		/* open for reading at offset: a stream */
	SFTPOP_WRITE,		/* open for writing: write frames */
	SFTPOP_SETSTAT,
	SFTPOP_MKDIR,
	SFTPOP_RMDIR,
	SFTPOP_REMOVE,
	SFTPOP_RENAME,
	SFTPOP_POSIX_RENAME,
	SFTPOP_SYMLINK,		/* never served: journalled, refused */
	SFTPOP_HARDLINK,	/* never served: journalled, refused */
	SFTPOP_OTHER,		/* no such operation: journalled, refused */
	SFTPOP_MAX
};


struct jb_sftp_op {
	uint32_t	id;			/* the session's, in DONE */
	uint32_t	op;			/* enum jb_sftp_opcode */
	char		path[JB_SFTP_PATH_MAX];
	char		path2[JB_SFTP_PATH_MAX]; /* rename's new path */
	int64_t		offset;			/* READ */
	int64_t		size;			/* SETSTAT */
	int64_t		atime, mtime;		/* SETSTAT */
	uint32_t	flags;			/* SFTPREC_OPEN_* / SET_* */
	uint32_t	mode;
};

struct jb_sftp_name {
	uint32_t	id;
	char		name[JB_INSTANCE_MAX];
};

/*
 * refused: the parent said no (code: an errno for the client); else the
 * helper ran and code is its exit status (0, an errno, or 128+signal).
 */
struct jb_sftp_done {
	uint32_t	id;
	int32_t		refused;
	int32_t		code;
	char		text[128];
};

/*
 * The session's account of a run operation: the status it gave the
 * client (0 or an errno) and the file bytes it relayed; sent once the
 * client has its answer and the operation's stream is let go (its exec
 * may then be ended).
 */
struct jb_sftp_result {
	uint32_t	id;
	int32_t		code;
	uint64_t	bytes;
};

/*
 * GITD_FETCH: the container's branch into ref (refs/jailbee/SHORT/BRANCH)
 * of the checkout at toplevel; into: "" or a host branch to fast-forward
 * to it, never the one checked out.  Both names are checked by the
 * parent (gitref.h) and again by jb-gitd.
 */
struct jb_gitd_fetch {
	char		toplevel[PATH_MAX];	/* the registered checkout */
	char		name[JB_INSTANCE_MAX];	/* the container, for messages */
	char		branch[JB_BRANCH_MAX];	/* the container's */
	char		ref[JB_BRANCH_MAX + JB_INSTANCE_MAX + 16];
	char		into[JB_BRANCH_MAX];
	uint64_t	max_bytes;		/* what the transfer may move */
	uint32_t	timeout;		/* seconds */
};

/*
 * GITD_BUNDLE: `git bundle create` of one host branch of the checkout at
 * toplevel, written into the stream (on a cluster, new's clone); the
 * answer is a GITD_RESULT with ok, bytes and, on failure, text.
 */
struct jb_gitd_bundle {
	char		toplevel[PATH_MAX];	/* the registered checkout */
	char		branch[JB_BRANCH_MAX];	/* refs/heads/branch goes */
	uint32_t	timeout;		/* seconds */
};

/*
 * GITD_HAVE: which of n commit ids the checkout at toplevel has as
 * commits (destroy's guard of a clone made through the bridge); the
 * answer is a GITD_RESULT whose have holds bit i for oid[i].
 */
#define JB_HAVE_MAX	64
struct jb_gitd_have {
	char		toplevel[PATH_MAX];
	uint32_t	n;
	char		oid[JB_HAVE_MAX][72];	/* 40 or 64 lowercase hex */
};

/* what moved; text: git's own words on failure (from the container too) */
struct jb_gitd_result {
	int32_t		ok;
	char		old[48];		/* the ref before */
	char		new[48];		/* and after */
	char		into_old[48];		/* --into's branch before */
	uint64_t	commits, objects, bytes;
	uint64_t	have;			/* GITD_HAVE's: bit i, oid[i] */
	char		text[JB_ERR_TEXT_MAX];
};

enum {
	/*
	 * parent <-> jb-egress: 700..  POLICY and ADMIT come up from
	 * jb-netd unasked (peerid 0) and the parent passes them down as
	 * they are: POLICY is one part of a snapshot of every container's
	 * name entries (BEGIN on the first part, END on the last; a
	 * container with more entries than one part holds takes several),
	 * ADMIT an address the resolver admitted to a container for a
	 * name.  REFUSED goes up, and on to jb-netd, which counts it
	 * for net log, net suggest and the journal's summary.
	 */
	IMSG_EGRESS_LISTEN = 700, /* P->E, struct jb_egress_listen + the
				   listening socket */
	IMSG_EGRESS_POLICY,	/* N->P, P->E, struct jb_egress_policy */
	IMSG_EGRESS_ADMIT,	/* N->P, P->E, struct jb_egress_admit */
	IMSG_EGRESS_REFUSED,	/* E->P, P->N, struct jb_egress_refused */
	/*
	 * The explicit proxy's names: jb-egress asks jb-netd (through
	 * the parent) for the addresses of a name a container's CONNECT
	 * or absolute-URI request named; jb-netd asks its upstream and
	 * answers with the addresses the resolver's rule for that
	 * container lets out, or why none.
	 */
	IMSG_EGRESS_RESOLVE,	/* E->P, P->N, struct jb_egress_resolve */
	IMSG_EGRESS_RESOLVED,	/* N->P, P->E, struct jb_egress_resolved */
	IMSG_EGRESS_SECRET,	/* P->E, struct jb_egress_secret */
	IMSG_EGRESS_CA_GET,	/* P->E, struct jb_egress_ca (ctr alone) */
	IMSG_EGRESS_CA,		/* E->P, struct jb_egress_ca, before DONE */
	IMSG_EGRESS_SUBST,	/* E->P, struct jb_egress_subst, unasked */
	IMSG_EGRESS_FRESH_ASK,	/* E->P, struct jb_egress_fresh: read the
				   container's secrets again now */
	IMSG_EGRESS_FRESH,	/* P->E, struct jb_egress_fresh: they were
				   handed over (the SECRET parts came first) */
	IMSG_EGRESS_ADMITTED,	/* E->P, P->N, struct jb_egress_admitted:
				   every ADMIT up to seq is in force */
};

#define JB_EGRESS_BEGIN		0x1	/* the first part of a snapshot */
#define JB_EGRESS_END		0x2	/* its last part: it now holds */
#define JB_EGRESS_ADMIT_MAX	32	/* addresses in one ADMIT */

/* a socket the parent bound on the bridge address for jb-egress */
struct jb_egress_listen {
	char		kind[16];		/* "transparent" or "proxy" */
};

/*
 * One part of the gateway's policy: a container and (some of) its name
 * entries, egress_allow's canonical text, NUL-separated.  name "" (with
 * BEGIN and END): no container at all.
 */
struct jb_egress_policy {
	uint32_t	gen;			/* the snapshot's number */
	uint32_t	flags;			/* JB_EGRESS_BEGIN | _END */
	char		name[JB_INSTANCE_MAX];
	char		ipv4[16];		/* the container's address */
	uint32_t	nentries;
	char		entries[JB_ARGV_MAX];
};

/*
 * Addresses the resolver admitted to container name for host, ttl s.
 * seq numbers jb-netd's ADMITs; the gateway answers ADMITTED with it
 * once they hold, and only then does the resolver give its answer, so
 * that a connection made on the answer finds the admission there.
 */
struct jb_egress_admit {
	uint32_t	seq;
	char		name[JB_INSTANCE_MAX];
	char		host[256];		/* the name asked, lowercased */
	uint32_t	ttl;
	uint32_t	naddr;
	uint32_t	addr[JB_EGRESS_ADMIT_MAX];	/* host byte order */
};

/* the gateway holds every ADMIT up to seq */
struct jb_egress_admitted {
	uint32_t	seq;
};

/* the proxy's question: host's addresses for container name */
struct jb_egress_resolve {
	uint32_t	qid;			/* jb-egress's, echoed */
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		ipv4[16];		/* its address, as jb-egress has it */
	char		host[256];		/* lowercased, no trailing dot */
};

/* the answer: naddr addresses (host byte order), or none and why */
struct jb_egress_resolved {
	uint32_t	qid;
	int32_t		ok;
	int32_t		fixable;	/* refused as not on the allowlist */
	uint32_t	naddr;
	uint32_t	addr[JB_EGRESS_ADMIT_MAX];
	char		why[JB_MSG_TEXT_MAX];
};

/*
 * One secret of a container, value included: the gateway terminates
 * TLS to its hosts and puts the value where the placeholder is.  BEGIN:
 * the container's secrets are replaced by this part and the ones after
 * it up to END; name "" (with BEGIN and END): it has none any more.
 */
#define JB_EGRESS_SECRET_HOSTS	8
struct jb_egress_secret {
	uint32_t	flags;			/* JB_EGRESS_BEGIN | _END */
	char		ctr[JB_INSTANCE_MAX];
	char		ipv4[16];		/* the container's address */
	char		name[64];
	char		placeholder[64];
	char		value[JB_SECRET_VALUE_MAX + 1];
	char		header[64];		/* "" every header */
	uint32_t	nhosts;
	char		hosts[JB_EGRESS_SECRET_HOSTS * 256]; /* NUL-separated */
};

/* a container's CA certificate (PEM), which the gateway made */
struct jb_egress_ca {
	char		ctr[JB_INSTANCE_MAX];
	char		pem[4096];
};

/* a secret put in a request, for the journal: never the value */
/* a terminated connection waiting for its container's secrets anew */
struct jb_egress_fresh {
	char		ctr[JB_INSTANCE_MAX];
	uint32_t	id;			/* the gateway's, echoed */
};

struct jb_egress_subst {
	char		ctr[JB_INSTANCE_MAX];
	char		name[64];
	char		host[256];
};

/* a connection the gateway refused, and why */
struct jb_egress_refused {
	char		name[JB_INSTANCE_MAX];	/* the container */
	char		host[256];		/* the name it asked for, or "" */
	char		ipv4[16];		/* the original destination */
	uint32_t	port;
	char		why[JB_MSG_TEXT_MAX];
	int32_t		fixable;		/* an entry host:port admits it */
};

enum {
	/* jbctl <-> parent (control socket): 1000.. */
	IMSG_CTL_STATUS = 1000,	/* client -> parent, none */
	IMSG_CTL_STATUS_ENTRY,	/* parent -> client, struct jb_proc_status */
	IMSG_CTL_VERSION,	/* client -> parent, none */
	IMSG_CTL_VERSION_REPLY,	/* parent -> client, struct jb_ctl_text */
	IMSG_CTL_ERROR,		/* parent -> client, struct jb_ctl_text */
	IMSG_CTL_END,		/* parent -> client, none: reply complete */
	IMSG_CTL_TEST_ATTEMPT,	/* client -> parent, struct jb_test_attempt (-T only) */
	IMSG_CTL_TEST_RESULT,	/* parent -> client, struct jb_ctl_text (-T only) */
	IMSG_CTL_CMD,		/* client -> parent, struct jb_ctl_cmd */
	IMSG_CTL_PROGRESS,	/* parent -> client, struct jb_ctl_text */
	IMSG_CTL_INSTANCE,	/* parent -> client, struct jb_instance */
	IMSG_CTL_SNAPSHOT,	/* parent -> client, struct jb_snapshot */
	IMSG_CTL_OUTPUT,	/* parent -> client, struct jb_output */
	IMSG_CTL_EXEC_FD,	/* parent -> client, struct jb_exec_fd + fd */
	IMSG_CTL_WINSIZE,	/* client -> parent, struct jb_winsize */
	IMSG_CTL_EXIT,		/* parent -> client, struct jb_exit */

	/* jbctl <-> parent, mounts: 1200.. */
	IMSG_CTL_MOUNT = 1200,	/* parent -> client, struct jb_mount_entry */

	/* base images: 1400.. */
	IMSG_CTL_IMAGE = 1400,	/* parent -> client, struct jb_image */
	IMSG_CTL_BASE_SPEC,	/* parent -> client, struct jb_base_spec */

	/* port forwards: 1500.. */
	IMSG_CTL_PORT = 1500,	/* parent -> client, struct jb_port */
	/* net status: per container CTR, ALLOWs, ADDRs, PORTs */
	IMSG_CTL_NET_CTR = 1510, /* parent -> client, struct jb_net_ctr */
	IMSG_CTL_NET_ALLOW,	/* parent -> client, struct jb_net_allow */
	IMSG_CTL_NET_ADDR,	/* parent -> client, struct jb_net_addr */
	IMSG_CTL_NET_SECRET,	/* parent -> client, struct jb_net_secret */
	/* doctor: 1520.. */
	IMSG_CTL_DOCTOR = 1520,	/* parent -> client, struct jb_doctor_check */
	/* net log: 1530.. */
	IMSG_CTL_NET_BLOCK = 1530, /* parent -> client, struct jb_net_block */
	IMSG_CTL_NET_RESOLVED,	/* parent -> client, struct jb_net_resolved */
	/*
	 * reload with a new remote.ssh.listen: the parent, which may create
	 * no socket, asks jbctl (the owner or root) to bind the address; the
	 * answer carries the listening socket, or why there is none.
	 */
	IMSG_CTL_LISTEN_ASK = 1540, /* parent -> client, struct jb_ctl_listen */
	IMSG_CTL_LISTEN_FD,	/* client -> parent, struct jb_ctl_listen
				   + the socket, or err set and none */
	/*
	 * the dashboard's subscription: after WATCH the connection gets an
	 * EVENT for every record of the audit journal (a container made,
	 * started, stopped or gone, a network or mount change, a loose
	 * deadline reached, a refusals summary) until it closes
	 */
	IMSG_CTL_WATCH = 1550,	/* client -> parent, none */
	IMSG_CTL_EVENT,		/* parent -> client, struct jb_ctl_event */
};

/* something changed: which container (or ""), what the journal says */
struct jb_ctl_event {
	char		container[JB_INSTANCE_MAX];
	char		action[32];		/* the journal's action */
	int64_t		when;
};

/* a jbctl command line, checked by the parent against the command table */
struct jb_ctl_cmd {
	uint32_t	id;			/* enum cmd_id */
	uint32_t	nargs;			/* strings in argv */
	char		argv[JB_ARGV_MAX];	/* positional args, NUL-separated */
	uint32_t	optset;			/* bit k: option k given */
	char		opts[JB_OPTS_MAX][JB_OPTVAL_MAX];
	char		cwd[PATH_MAX];		/* the caller's directory */
	uint32_t	cols, rows;		/* terminal size, 0 when none */
	uint32_t	tty;			/* stdin and stdout are terminals */
	char		term[64];		/* $TERM, "" when unset */
	char		xdg_config[PATH_MAX];	/* $XDG_CONFIG_HOME, "" unset */
};

/* jbctl mount ls: one attached mount */
struct jb_mount_entry {
	char		name[JB_INSTANCE_MAX];
	char		device[JB_DEVICE_MAX];
	char		source[PATH_MAX];
	char		path[PATH_MAX];
	int32_t		readonly;
	int64_t		until;			/* 0: no deadline */
};

/*
 * The image a checkout's containers start from, for jbctl to build: the
 * answer to `base build`, and what `new` sends before it ends when the
 * alias is missing from Incus.
 */
struct jb_base_spec {
	char		alias[JB_INSTANCE_MAX];	/* base.alias */
	char		packages[JB_PACKAGES_MAX]; /* base.packages */
	int32_t		exists;			/* Incus has the alias */
};

/* one check: status PASS, WARN or FAIL; fix says what to do */
struct jb_doctor_check {
	char		name[64];
	char		status[8];
	char		detail[JB_MSG_TEXT_MAX];
	char		fix[JB_MSG_TEXT_MAX];
};

/* LISTEN_ASK and LISTEN_FD: remote.ssh.listen's new ADDR:PORT */
struct jb_ctl_listen {
	char		addr[64];		/* as jailbeed.yaml says it */
	char		err[JB_ERR_TEXT_MAX];	/* LISTEN_FD without a socket */
};

/*
 * The protocol's table (jb_msg.c): for each type, who may send it to
 * whom, its payload's size, whether it may carry a descriptor, and its
 * string fields.  Every receiver checks a message with jb_msg_check()
 * before its handler runs; a message that fails is a protocol error of
 * its sender (fatal for a child, a dropped connection for a client).
 */
#define JB_PEER_PARENT		0x01
#define JB_PEER_INCUS		0x02
#define JB_PEER_NETD		0x04
#define JB_PEER_MOUNTD		0x08
#define JB_PEER_SSHD		0x10	/* the listener and its sessions */
#define JB_PEER_SPAWNER		0x20	/* jb-sshd -P */
#define JB_PEER_CTL		0x40	/* jbctl on the control socket */
#define JB_PEER_GITD		0x80	/* the git bridge's writer */
#define JB_PEER_EGRESS		0x100	/* the egress gateway */

#define JB_MSG_FD		0x01	/* may carry a descriptor */

/* a char array of a payload that must hold a NUL (count: rows of it) */
struct jb_msg_str {
	const char	*name;
	size_t		 off, size, count;
};

struct jb_msg_row {
	uint32_t		 type;
	const char		*name;		/* "IMSG_..." */
	unsigned		 from, to;	/* JB_PEER_* bits */
	unsigned		 flags;		/* JB_MSG_* */
	size_t			 size;		/* exact payload bytes */
	const char		*sname;		/* its struct, NULL: none */
	const struct jb_msg_str	*strs;
};

struct imsg;
struct imsgbuf;
/*
 * jb-incus's failure when Incus has no instance of that name reads
 * "no such container NAME": is err that answer for name?
 */
int			 jb_err_absent(const char *err, const char *name);
const char		*jb_imsg_name(uint32_t);
const struct jb_msg_row	*jb_msg_rows(size_t *);
unsigned		 jb_msg_peer(const char *);
int			 jb_msg_check(const struct imsg *, unsigned, unsigned,
			    char *, size_t);
int			 jb_imsg_get(struct imsgbuf *, struct imsg *,
			    unsigned, unsigned);

#endif /* JB_MSG_H */
