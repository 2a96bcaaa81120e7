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
 * The protocol's one table: for every message type, who may send it to
 * whom, its exact payload size, whether it may carry a descriptor, and
 * which of its character arrays are strings that must hold their
 * terminator.  Every receiver runs jb_msg_check() on a message before its
 * handler sees it; the names jb_imsg_name() prints come from here too.
 *
 * A string field is every char array of a payload struct except those
 * marked "(bytes)" in jb_msg.h, whose length travels beside them; t_jbmsg
 * reads jb_msg.h and fails when the lists below and the header disagree.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "imsg.h"
#include "jb_msg.h"
#include "log.h"

#define STR(s, f)	{ #f, offsetof(struct s, f), \
			  sizeof(((struct s *)0)->f), 1 }
#define STR2(s, f)	{ #f, offsetof(struct s, f), \
			  sizeof(((struct s *)0)->f[0]), \
			  sizeof(((struct s *)0)->f) / \
			  sizeof(((struct s *)0)->f[0]) }
#define END		{ NULL, 0, 0, 0 }

static const struct jb_msg_str f_jb_proc_status[] = {
	STR(jb_proc_status, name),
	STR(jb_proc_status, detail),
	STR(jb_proc_status, sandbox),
	END
};

static const struct jb_msg_str f_jb_ctl_text[] = {
	STR(jb_ctl_text, text),
	END
};

static const struct jb_msg_str f_jb_test_attempt[] = {
	STR(jb_test_attempt, proc),
	STR(jb_test_attempt, verb),
	STR(jb_test_attempt, path),
	END
};

static const struct jb_msg_str f_jb_done[] = {
	STR(jb_done, err),
	END
};

static const struct jb_msg_str f_jb_ctl_cmd[] = {
	STR(jb_ctl_cmd, argv),
	STR2(jb_ctl_cmd, opts),
	STR(jb_ctl_cmd, cwd),
	STR(jb_ctl_cmd, term),
	STR(jb_ctl_cmd, xdg_config),
	END
};

static const struct jb_msg_str f_jb_instance[] = {
	STR(jb_instance, name),
	STR(jb_instance, state),
	STR(jb_instance, repo),
	STR(jb_instance, prefix),
	STR(jb_instance, branch),
	STR(jb_instance, base),
	STR(jb_instance, mode),
	STR(jb_instance, net),
	STR(jb_instance, ipv4),
	STR(jb_instance, agent),
	STR(jb_instance, secrets),
	STR(jb_instance, location),
	STR(jb_instance, target),
	END
};

static const struct jb_msg_str f_jb_snapshot[] = {
	STR(jb_snapshot, instance),
	STR(jb_snapshot, name),
	END
};

static const struct jb_msg_str f_jb_incus_target[] = {
	STR(jb_incus_target, name),
	STR(jb_incus_target, prefix),
	END
};

static const struct jb_msg_str f_jb_incus_create[] = {
	STR(jb_incus_create, name),
	STR(jb_incus_create, image),
	STR(jb_incus_create, ipv4),
	STR(jb_incus_create, source),
	STR(jb_incus_create, repo),
	STR(jb_incus_create, prefix),
	STR(jb_incus_create, branch),
	STR(jb_incus_create, base),
	STR(jb_incus_create, net),
	STR(jb_incus_create, env),
	STR(jb_incus_create, agent),
	STR(jb_incus_create, secrets),
	STR(jb_incus_create, target),
	STR(jb_incus_create, member),
	STR(jb_incus_create, memory),
	STR(jb_incus_create, cpu),
	STR(jb_incus_create, processes),
	STR(jb_incus_create, disk),
	STR(jb_incus_create, pool),
	END
};

static const struct jb_msg_str f_jb_limits[] = {
	STR(jb_limits, name),
	STR(jb_limits, memory),
	STR(jb_limits, cpu),
	STR(jb_limits, processes),
	STR(jb_limits, disk),
	STR(jb_limits, pool),
	STR(jb_limits, state),
	STR(jb_limits, location),
	END
};

static const struct jb_msg_str f_jb_incus_action[] = {
	STR(jb_incus_action, name),
	STR(jb_incus_action, tag),
	END
};

static const struct jb_msg_str f_jb_incus_exec[] = {
	STR(jb_incus_exec, name),
	STR(jb_incus_exec, cwd),
	STR(jb_incus_exec, argv),
	STR(jb_incus_exec, env),
	END
};

static const struct jb_msg_str f_jb_exec_fd[] = {
	END
};

static const struct jb_msg_str f_jb_output[] = {
	END
};

static const struct jb_msg_str f_jb_winsize[] = {
	END
};

static const struct jb_msg_str f_jb_exit[] = {
	END
};

static const struct jb_msg_str f_jb_netinfo[] = {
	STR(jb_netinfo, bridge),
	STR(jb_netinfo, ipv4),
	END
};

static const struct jb_msg_str f_jb_addrs[] = {
	END
};

static const struct jb_msg_str f_jb_repo_req[] = {
	STR(jb_repo_req, path),
	STR(jb_repo_req, branch),
	STR(jb_repo_req, remote),
	END
};

static const struct jb_msg_str f_jb_repo_conf[] = {
	STR(jb_repo_conf, ref),
	END
};

static const struct jb_msg_str f_jb_sshd_session[] = {
	STR(jb_sshd_session, addr),
	END
};

static const struct jb_msg_str f_jb_ctl_listen[] = {
	STR(jb_ctl_listen, addr),
	STR(jb_ctl_listen, err),
	END
};

static const struct jb_msg_str f_jb_sshd_limits[] = {
	END
};

static const struct jb_msg_str f_jb_sshd_authed[] = {
	END
};

static const struct jb_msg_str f_jb_sshd_spawn[] = {
	END
};

static const struct jb_msg_str f_jb_sshd_dash[] = {
	END
};

static const struct jb_msg_str f_jb_sshd_known[] = {
	END
};

static const struct jb_msg_str f_jb_sshd_penalty[] = {
	STR(jb_sshd_penalty, addr),
	END
};

static const struct jb_msg_str f_jb_sshd_auth[] = {
	STR(jb_sshd_auth, user),
	STR(jb_sshd_auth, keytype),
	STR(jb_sshd_auth, key),
	END
};

static const struct jb_msg_str f_jb_sshd_verdict[] = {
	STR(jb_sshd_verdict, fingerprint),
	END
};

static const struct jb_msg_str f_jb_sshd_env[] = {
	STR(jb_sshd_env, name),
	STR(jb_sshd_env, value),
	END
};

static const struct jb_msg_str f_jb_sshd_exec[] = {
	STR(jb_sshd_exec, line),
	STR(jb_sshd_exec, term),
	END
};

static const struct jb_msg_str f_jb_sshd_refused[] = {
	END
};

static const struct jb_msg_str f_jb_sshd_subsys[] = {
	STR(jb_sshd_subsys, name),
	END
};

static const struct jb_msg_str f_jb_sftp_op[] = {
	STR(jb_sftp_op, path),
	STR(jb_sftp_op, path2),
	END
};

static const struct jb_msg_str f_jb_sftp_name[] = {
	STR(jb_sftp_name, name),
	END
};

static const struct jb_msg_str f_jb_sftp_result[] = {
	END
};

static const struct jb_msg_str f_jb_sftp_done[] = {
	STR(jb_sftp_done, text),
	END
};

static const struct jb_msg_str f_jb_repo_info[] = {
	STR(jb_repo_info, toplevel),
	STR(jb_repo_info, head_branch),
	STR(jb_repo_info, default_branch),
	STR(jb_repo_info, upstream_remote),
	STR(jb_repo_info, upstream_url),
	STR(jb_repo_info, branch_sha),
	STR(jb_repo_info, head_sha),
	END
};

static const struct jb_msg_str f_jb_disk[] = {
	STR(jb_disk, name),
	STR(jb_disk, device),
	STR(jb_disk, source),
	STR(jb_disk, path),
	STR(jb_disk, prefix),
	END
};

static const struct jb_msg_str f_jb_port[] = {
	STR(jb_port, name),
	STR(jb_port, device),
	STR(jb_port, proto),
	STR(jb_port, container_address),
	STR(jb_port, host_address),
	STR(jb_port, prefix),
	STR(jb_port, state),
	END
};

static const struct jb_msg_str f_jb_ssh_seed[] = {
	STR(jb_ssh_seed, key),
	END
};

static const struct jb_msg_str f_jb_ssh_dir[] = {
	STR(jb_ssh_dir, path),
	STR(jb_ssh_dir, warning),
	END
};

static const struct jb_msg_str f_jb_mount_resolved[] = {
	STR(jb_mount_resolved, realpath),
	END
};

static const struct jb_msg_str f_jb_mount_check[] = {
	STR(jb_mount_check, host),
	STR(jb_mount_check, container),
	STR(jb_mount_check, reserved),
	STR(jb_mount_check, what),
	END
};

static const struct jb_msg_str f_jb_mount_checked[] = {
	STR(jb_mount_checked, realpath),
	STR(jb_mount_checked, warning),
	END
};

static const struct jb_msg_str f_jb_mount_verify[] = {
	STR(jb_mount_verify, container),
	END
};

static const struct jb_msg_str f_jb_mount_deadline[] = {
	STR(jb_mount_deadline, name),
	STR(jb_mount_deadline, kind),
	END
};

static const struct jb_msg_str f_jb_mount_entry[] = {
	STR(jb_mount_entry, name),
	STR(jb_mount_entry, device),
	STR(jb_mount_entry, source),
	STR(jb_mount_entry, path),
	END
};

static const struct jb_msg_str f_jb_image_open[] = {
	STR(jb_image_open, path),
	END
};

static const struct jb_msg_str f_jb_image_file[] = {
	STR(jb_image_file, kind),
	END
};

static const struct jb_msg_str f_jb_image_import[] = {
	STR(jb_image_import, alias),
	STR(jb_image_import, repo),
	STR(jb_image_import, pool),
	END
};

static const struct jb_msg_str f_jb_image[] = {
	STR(jb_image, fingerprint),
	STR(jb_image, aliases),
	STR(jb_image, description),
	STR(jb_image, users),
	STR(jb_image, repos),
	END
};

static const struct jb_msg_str f_jb_base_spec[] = {
	STR(jb_base_spec, alias),
	STR(jb_base_spec, packages),
	END
};

static const struct jb_msg_str f_jb_git_ask[] = {
	STR(jb_git_ask, xdg_config),
	END
};

static const struct jb_msg_str f_jb_git_ident[] = {
	STR(jb_git_ident, name),
	STR(jb_git_ident, email),
	STR(jb_git_ident, note),
	END
};

static const struct jb_msg_str f_jb_incus_event[] = {
	STR(jb_incus_event, name),
	STR(jb_incus_event, action),
	END
};

static const struct jb_msg_str f_jb_policy[] = {
	STR(jb_policy, name),
	STR(jb_policy, ipv4),
	STR(jb_policy, prefix),
	STR(jb_policy, net),
	STR(jb_policy, egress),
	STR(jb_policy, egress_extra),
	STR(jb_policy, mounts),
	STR(jb_policy, mount_kind),
	STR(jb_policy, location),
	STR(jb_policy, edit_op),
	STR(jb_policy, edit_entry),
	END
};

static const struct jb_msg_str f_jb_incus_extra[] = {
	STR(jb_incus_extra, name),
	STR(jb_incus_extra, was),
	STR(jb_incus_extra, now),
	END
};

static const struct jb_msg_str f_jb_membox[] = {
	STR(jb_membox, member),
	STR(jb_membox, key),
	STR(jb_membox, value),
	STR(jb_membox, unset),
	END
};

static const struct jb_msg_str f_jb_netd_ctr[] = {
	STR(jb_netd_ctr, name),
	STR(jb_netd_ctr, ipv4),
	STR(jb_netd_ctr, mode),
	STR(jb_netd_ctr, entries),
	STR(jb_netd_ctr, repo),
	STR(jb_netd_ctr, agents),
	END
};

static const struct jb_msg_str f_jb_net_ctr[] = {
	STR(jb_net_ctr, name),
	STR(jb_net_ctr, ipv4),
	STR(jb_net_ctr, mode),
	STR(jb_net_ctr, repo),
	STR(jb_net_ctr, broken),
	END
};

static const struct jb_msg_str f_jb_net_allow[] = {
	STR(jb_net_allow, name),
	STR(jb_net_allow, entry),
	STR(jb_net_allow, origin),
	STR(jb_net_allow, path),
	END
};

static const struct jb_msg_str f_jb_net_addr[] = {
	STR(jb_net_addr, name),
	STR(jb_net_addr, host),
	STR(jb_net_addr, ipv4),
	END
};

static const struct jb_msg_str f_jb_net_block[] = {
	STR(jb_net_block, name),
	STR(jb_net_block, kind),
	STR(jb_net_block, what),
	STR(jb_net_block, allow),
	END
};

static const struct jb_msg_str f_jb_ctl_event[] = {
	STR(jb_ctl_event, container),
	STR(jb_ctl_event, action),
	END
};

static const struct jb_msg_str f_jb_net_resolved[] = {
	STR(jb_net_resolved, name),
	STR(jb_net_resolved, host),
	END
};

static const struct jb_msg_str f_jb_netd_audit[] = {
	STR(jb_netd_audit, name),
	STR(jb_netd_audit, repo),
	STR(jb_netd_audit, kind),
	STR(jb_netd_audit, top),
	END
};

static const struct jb_msg_str f_jb_incus_server[] = {
	STR(jb_incus_server, version),
	STR(jb_incus_server, api),
	END
};

static const struct jb_msg_str f_jb_netd_check[] = {
	STR(jb_netd_check, missing),
	STR(jb_netd_check, err),
	STR(jb_netd_check, bmissing),
	STR(jb_netd_check, berr),
	END
};

static const struct jb_msg_str f_jb_doctor_check[] = {
	STR(jb_doctor_check, name),
	STR(jb_doctor_check, status),
	STR(jb_doctor_check, detail),
	STR(jb_doctor_check, fix),
	END
};

static const struct jb_msg_str f_jb_netd_mode[] = {
	STR(jb_netd_mode, name),
	STR(jb_netd_mode, mode),
	END
};

static const struct jb_msg_str f_jb_netd_egress[] = {
	STR(jb_netd_egress, name),
	STR(jb_netd_egress, op),
	STR(jb_netd_egress, entry),
	STR(jb_netd_egress, repo),
	STR(jb_netd_egress, config),
	END
};

static const struct jb_msg_str f_jb_hosts_pin[] = {
	STR(jb_hosts_pin, name),
	END
};

static const struct jb_msg_str f_jb_netd_pinned[] = {
	STR(jb_netd_pinned, name),
	STR(jb_netd_pinned, err),
	END
};


static const struct jb_msg_str f_jb_shared_req[] = {
	STR(jb_shared_req, key),
	STR(jb_shared_req, subpath),
	STR(jb_shared_req, type),
	STR(jb_shared_req, seed),
	STR(jb_shared_req, what),
	END
};

static const struct jb_msg_str f_jb_shared_path[] = {
	STR(jb_shared_path, path),
	END
};

static const struct jb_msg_str f_jb_gitd_fetch[] = {
	STR(jb_gitd_fetch, toplevel),
	STR(jb_gitd_fetch, name),
	STR(jb_gitd_fetch, branch),
	STR(jb_gitd_fetch, ref),
	STR(jb_gitd_fetch, into),
	END
};

static const struct jb_msg_str f_jb_gitd_bundle[] = {
	STR(jb_gitd_bundle, toplevel),
	STR(jb_gitd_bundle, branch),
	END
};

static const struct jb_msg_str f_jb_gitd_have[] = {
	STR(jb_gitd_have, toplevel),
	STR(jb_gitd_have, oid),
	END
};

static const struct jb_msg_str f_jb_egress_listen[] = {
	STR(jb_egress_listen, kind),
	END
};

static const struct jb_msg_str f_jb_egress_policy[] = {
	STR(jb_egress_policy, name),
	STR(jb_egress_policy, ipv4),
	STR(jb_egress_policy, entries),
	END
};

static const struct jb_msg_str f_jb_egress_admit[] = {
	STR(jb_egress_admit, name),
	STR(jb_egress_admit, host),
	END
};

static const struct jb_msg_str f_jb_egress_admitted[] = {
	END
};

static const struct jb_msg_str f_jb_net_secret[] = {
	STR(jb_net_secret, name),
	STR(jb_net_secret, secret),
	STR(jb_net_secret, hosts),
	STR(jb_net_secret, header),
	STR(jb_net_secret, why),
	END
};

static const struct jb_msg_str f_jb_secret_ask[] = {
	STR(jb_secret_ask, path),
	END
};

static const struct jb_msg_str f_jb_secret_value[] = {
	STR(jb_secret_value, value),
	END
};

static const struct jb_msg_str f_jb_egress_secret[] = {
	STR(jb_egress_secret, ctr),
	STR(jb_egress_secret, ipv4),
	STR(jb_egress_secret, name),
	STR(jb_egress_secret, placeholder),
	STR(jb_egress_secret, value),
	STR(jb_egress_secret, header),
	STR(jb_egress_secret, hosts),
	END
};

static const struct jb_msg_str f_jb_egress_ca[] = {
	STR(jb_egress_ca, ctr),
	STR(jb_egress_ca, pem),
	END
};

static const struct jb_msg_str f_jb_egress_subst[] = {
	STR(jb_egress_subst, ctr),
	STR(jb_egress_subst, name),
	STR(jb_egress_subst, host),
	END
};

static const struct jb_msg_str f_jb_egress_fresh[] = {
	STR(jb_egress_fresh, ctr),
	END
};

static const struct jb_msg_str f_jb_egress_refused[] = {
	STR(jb_egress_refused, name),
	STR(jb_egress_refused, host),
	STR(jb_egress_refused, ipv4),
	STR(jb_egress_refused, why),
	END
};

static const struct jb_msg_str f_jb_egress_resolve[] = {
	STR(jb_egress_resolve, name),
	STR(jb_egress_resolve, ipv4),
	STR(jb_egress_resolve, host),
	END
};

static const struct jb_msg_str f_jb_egress_resolved[] = {
	STR(jb_egress_resolved, why),
	END
};

static const struct jb_msg_str f_jb_gitd_result[] = {
	STR(jb_gitd_result, old),
	STR(jb_gitd_result, new),
	STR(jb_gitd_result, into_old),
	STR(jb_gitd_result, text),
	END
};

#define P	JB_PEER_PARENT
#define I	JB_PEER_INCUS
#define N	JB_PEER_NETD
#define M	JB_PEER_MOUNTD
#define S	JB_PEER_SSHD
#define SP	JB_PEER_SPAWNER
#define C	JB_PEER_CTL
#define G	JB_PEER_GITD
#define E	JB_PEER_EGRESS
#define KIDS	(I | N | M | S | G | E)

/* a type, its sender(s), its receiver(s), its payload struct or none */
#define R(t, f, to, s)	{ t, #t, f, to, 0, sizeof(struct s), #s, f_##s }
#define RF(t, f, to, s)	{ t, #t, f, to, JB_MSG_FD, sizeof(struct s), #s, \
			  f_##s }
#define R0(t, f, to)	{ t, #t, f, to, 0, 0, NULL, NULL }

static const struct jb_msg_row rows[] = {
	/* parent <-> every child */
	R0(IMSG_CHILD_READY,		KIDS, P),
	R0(IMSG_STATUS_REQ,		P, KIDS),
	R(IMSG_STATUS,			KIDS, P, jb_proc_status),
	R(IMSG_TEST_ATTEMPT,		P, KIDS, jb_test_attempt),
	R(IMSG_TEST_RESULT,		KIDS, P, jb_ctl_text),
	R(IMSG_DONE,			KIDS, P, jb_done),
	R(IMSG_PROGRESS,		KIDS, P, jb_ctl_text),

	/* parent <-> jb-incus */
	R(IMSG_INCUS_LIST,		P, I, jb_incus_target),
	R(IMSG_INCUS_INSTANCE,		I, P, jb_instance),
	R(IMSG_INCUS_CREATE,		P, I, jb_incus_create),
	R(IMSG_INCUS_STARTED,		I, P, jb_incus_target),
	R(IMSG_INCUS_CREATE_POLICY,	P, I, jb_policy),
	R(IMSG_INCUS_ACTION,		P, I, jb_incus_action),
	R(IMSG_INCUS_SNAPSHOT,		I, P, jb_snapshot),
	R(IMSG_INCUS_EXEC,		P, I, jb_incus_exec),
	RF(IMSG_INCUS_EXEC_FD,		I, P, jb_exec_fd),
	R(IMSG_INCUS_OUTPUT,		I, P, jb_output),
	R(IMSG_INCUS_RESIZE,		P, I, jb_winsize),
	R0(IMSG_INCUS_EXEC_KILL,	P, I),
	R(IMSG_INCUS_EXIT,		I, P, jb_exit),
	R0(IMSG_INCUS_NETINFO,		P, I),
	R(IMSG_INCUS_NETINFO,		I, P, jb_netinfo),
	R0(IMSG_INCUS_ADDRS,		P, I),
	R(IMSG_INCUS_ADDRS,		I, P, jb_addrs),
	RF(IMSG_INCUS_IMAGE_IMPORT,	P, I, jb_image_import),
	R0(IMSG_INCUS_IMAGES,		P, I),
	R(IMSG_INCUS_IMAGE,		I, P, jb_image),
	R0(IMSG_INCUS_IMAGE_PRUNE,	P, I),
	R(IMSG_INCUS_IMAGE_ALIAS,	P, I, jb_incus_target),
	R(IMSG_INCUS_DISK_ADD,		P, I, jb_disk),
	R(IMSG_INCUS_DISK_REMOVE,	P, I, jb_disk),
	R(IMSG_INCUS_DISK_LIST,		P, I, jb_incus_target),
	R(IMSG_INCUS_DISK,		I, P, jb_disk),
	R(IMSG_INCUS_HOSTS,		P, I, jb_hosts_pin),
	R(IMSG_INCUS_PORT_ADD,		P, I, jb_port),
	R(IMSG_INCUS_PORT_REMOVE,	P, I, jb_port),
	R(IMSG_INCUS_PORT_LIST,		P, I, jb_incus_target),
	R(IMSG_INCUS_PORT,		I, P, jb_port),
	R0(IMSG_INCUS_SERVER,		P, I),
	R(IMSG_INCUS_SERVER_INFO,	I, P, jb_incus_server),
	RF(IMSG_INCUS_SFTP_HELPER,	P, I, jb_incus_target),
	R(IMSG_INCUS_LIMITS_SET,	P, I, jb_limits),
	R(IMSG_INCUS_LIMITS_GET,	P, I, jb_incus_target),
	R(IMSG_INCUS_LIMITS,		I, P, jb_limits),
	R(IMSG_INCUS_POLICIES,		P, I, jb_incus_target),
	R(IMSG_INCUS_POLICY,		I, P, jb_policy),
	R(IMSG_INCUS_POLICY_SET,	P, I, jb_policy),
	R(IMSG_INCUS_EVENT,		I, P, jb_incus_event),
	R0(IMSG_INCUS_FOLLOW,		P, I),
	R(IMSG_INCUS_GATE_ADD,		P, I, jb_incus_target),
	R(IMSG_INCUS_EXTRA_SET,		P, I, jb_incus_extra),
	R(IMSG_INCUS_MEMBOX_GET,	P, I, jb_membox),
	R(IMSG_INCUS_MEMBOX_KV,		I, P, jb_membox),
	R(IMSG_INCUS_MEMBOX_SET,	P, I, jb_membox),

	/* parent <-> jb-mountd */
	R(IMSG_MOUNTD_REPO,		P, M, jb_repo_req),
	R(IMSG_MOUNTD_REPO_INFO,	M, P, jb_repo_info),
	R(IMSG_MOUNTD_CHECK,		P, M, jb_mount_check),
	R(IMSG_MOUNTD_CHECKED,		M, P, jb_mount_checked),
	R(IMSG_MOUNTD_VERIFY,		P, M, jb_mount_verify),
	R(IMSG_MOUNTD_RELEASE,		P, M, jb_mount_verify),
	R(IMSG_MOUNTD_DEADLINE_SET,	P, M, jb_mount_deadline),
	R(IMSG_MOUNTD_DEADLINE_CLEAR,	P, M, jb_mount_deadline),
	R(IMSG_MOUNTD_DEADLINE_LIST,	P, M, jb_mount_deadline),
	R(IMSG_MOUNTD_DEADLINE,		M, P, jb_mount_deadline),
	R(IMSG_MOUNTD_EXPIRED,		M, P, jb_mount_deadline),
	R(IMSG_MOUNTD_SSH_SEED,		P, M, jb_ssh_seed),
	R(IMSG_MOUNTD_SSH_DIR,		M, P, jb_ssh_dir),
	R(IMSG_MOUNTD_RESOLVE,		P, M, jb_mount_check),
	R(IMSG_MOUNTD_RESOLVED,		M, P, jb_mount_resolved),
	R(IMSG_MOUNTD_RECHECK,		P, M, jb_mount_check),
	R(IMSG_MOUNTD_IMAGE_OPEN,	P, M, jb_image_open),
	RF(IMSG_MOUNTD_IMAGE_FD,	M, P, jb_image_file),
	R(IMSG_MOUNTD_GITIDENT,		P, M, jb_git_ask),
	R(IMSG_MOUNTD_GITIDENT_INFO,	M, P, jb_git_ident),
	R(IMSG_MOUNTD_DEFCONF,		P, M, jb_repo_req),
	R(IMSG_MOUNTD_DEFCONF_TEXT,	M, P, jb_repo_conf),
	R(IMSG_MOUNTD_SHARED,		P, M, jb_shared_req),
	R(IMSG_MOUNTD_SHARED_PATH,	M, P, jb_shared_path),
	R(IMSG_MOUNTD_SECRET,		P, M, jb_secret_ask),
	R(IMSG_MOUNTD_SECRET_VALUE,	M, P, jb_secret_value),

	/* parent <-> jb-netd */
	R(IMSG_NETD_SET,		P, N, jb_netd_ctr),
	R(IMSG_NETD_FORGET,		P, N, jb_incus_target),
	R(IMSG_NETD_MODE,		P, N, jb_netd_mode),
	R(IMSG_NETD_STATUS,		P, N, jb_incus_target),
	R(IMSG_NETD_EGRESS,		P, N, jb_netd_egress),
	R0(IMSG_NETD_MODES,		P, N),
	R(IMSG_NETD_MODE_ENTRY,		N, P, jb_netd_mode),
	R(IMSG_NETD_SYNC_FORGET,	P, N, jb_incus_target),
	R(IMSG_NETD_REFRESH,		P, N, jb_incus_target),
	R(IMSG_NETD_PIN,		N, P, jb_hosts_pin),
	R(IMSG_NETD_PINNED,		P, N, jb_netd_pinned),
	R(IMSG_NETD_STOP,		N, P, jb_netd_mode),
	R(IMSG_NETD_CTR,		N, P, jb_net_ctr),
	R(IMSG_NETD_ALLOW,		N, P, jb_net_allow),
	R(IMSG_NETD_ADDR,		N, P, jb_net_addr),
	R0(IMSG_NETD_CHECK,		P, N),
	R(IMSG_NETD_CHECKED,		N, P, jb_netd_check),
	R(IMSG_NETD_BLOCKED,		P, N, jb_incus_target),
	R(IMSG_NETD_BLOCK,		N, P, jb_net_block),
	R(IMSG_NETD_CONFIG,		P, N, jb_netd_ctr),
	R(IMSG_NETD_REFUSED_NOTE,	N, P, jb_incus_target),
	R(IMSG_NETD_AUDIT,		N, P, jb_netd_audit),
	R(IMSG_NETD_RESOLVED,		N, P, jb_net_resolved),
	R(IMSG_NETD_RECORD_GET,		P, N, jb_incus_target),
	R(IMSG_NETD_RECORD,		N, P, jb_policy),
	R(IMSG_NETD_RESTORE,		P, N, jb_policy),
	R(IMSG_NETD_EGRESS_EDIT,	P, N, jb_policy),

	/* parent <-> jb-sshd, and a session's own channel */
	RF(IMSG_SSHD_LISTEN,		P, S, jb_sshd_limits),
	RF(IMSG_SSHD_SESSION,		S, P, jb_sshd_session),
	R(IMSG_SSHD_AUTH,		S, P, jb_sshd_auth),
	R(IMSG_SSHD_VERDICT,		P, S, jb_sshd_verdict),
	R(IMSG_SSHD_ENV,		S, P, jb_sshd_env),
	R(IMSG_SSHD_EXEC,		S, P, jb_sshd_exec),
	R(IMSG_SSHD_REFUSED,		S, P, jb_sshd_refused),
	R0(IMSG_SSHD_DRAIN,		P, S),
	R(IMSG_SSHD_AUTHED,		P, S, jb_sshd_authed),
	R(IMSG_SSHD_PENALTY,		P, S, jb_sshd_penalty),
	RF(IMSG_SSHD_SPAWN,		S, SP, jb_sshd_spawn),
	RF(IMSG_SSHD_SPAWNED,		SP, S, jb_sshd_spawn),
	R(IMSG_SSHD_GONE,		SP, S, jb_sshd_spawn),
	R(IMSG_SSHD_DROP,		S, SP, jb_sshd_spawn),
	R(IMSG_SSHD_SUBSYS,		S, P, jb_sshd_subsys),
	R(IMSG_SSHD_SFTP,		S, P, jb_sftp_op),
	R(IMSG_SSHD_SFTP_NAME,		P, S, jb_sftp_name),
	RF(IMSG_SSHD_SFTP_FD,		P, S, jb_sftp_done),
	R(IMSG_SSHD_SFTP_DONE,		P, S, jb_sftp_done),
	R(IMSG_SSHD_SFTP_RESULT,	S, P, jb_sftp_result),
	RF(IMSG_SSHD_REBIND,		P, S, jb_sshd_limits),
	R(IMSG_SSHD_KNOWN,		P, S, jb_sshd_known),
	R(IMSG_SSHD_DASH,		S, P, jb_sshd_dash),
	R(IMSG_SSHD_DASH_OK,		P, S, jb_sshd_dash),

	/* parent <-> jb-gitd */
	RF(IMSG_GITD_FETCH,		P, G, jb_gitd_fetch),
	R(IMSG_GITD_RESULT,		G, P, jb_gitd_result),
	RF(IMSG_GITD_BUNDLE,		P, G, jb_gitd_bundle),
	R(IMSG_GITD_HAVE,		P, G, jb_gitd_have),

	/* parent <-> jb-egress (and jb-netd's policy on its way there) */
	RF(IMSG_EGRESS_LISTEN,		P, E, jb_egress_listen),
	R(IMSG_EGRESS_POLICY,		N, P, jb_egress_policy),
	R(IMSG_EGRESS_POLICY,		P, E, jb_egress_policy),
	R(IMSG_EGRESS_ADMIT,		N, P, jb_egress_admit),
	R(IMSG_EGRESS_ADMIT,		P, E, jb_egress_admit),
	R(IMSG_EGRESS_ADMITTED,		E, P, jb_egress_admitted),
	R(IMSG_EGRESS_ADMITTED,		P, N, jb_egress_admitted),
	R(IMSG_EGRESS_REFUSED,		E, P, jb_egress_refused),
	R(IMSG_EGRESS_SECRET,		P, E, jb_egress_secret),
	R(IMSG_EGRESS_CA_GET,		P, E, jb_egress_ca),
	R(IMSG_EGRESS_CA,		E, P, jb_egress_ca),
	R(IMSG_EGRESS_SUBST,		E, P, jb_egress_subst),
	R(IMSG_EGRESS_FRESH_ASK,	E, P, jb_egress_fresh),
	R(IMSG_EGRESS_FRESH,		P, E, jb_egress_fresh),
	R(IMSG_EGRESS_REFUSED,		P, N, jb_egress_refused),
	R(IMSG_EGRESS_RESOLVE,		E, P, jb_egress_resolve),
	R(IMSG_EGRESS_RESOLVE,		P, N, jb_egress_resolve),
	R(IMSG_EGRESS_RESOLVED,		N, P, jb_egress_resolved),
	R(IMSG_EGRESS_RESOLVED,		P, E, jb_egress_resolved),

	/* jbctl <-> parent; a session takes the replies a command makes */
	R0(IMSG_CTL_STATUS,		C, P),
	R(IMSG_CTL_STATUS_ENTRY,	P, C, jb_proc_status),
	R0(IMSG_CTL_VERSION,		C, P),
	R(IMSG_CTL_VERSION_REPLY,	P, C, jb_ctl_text),
	R(IMSG_CTL_ERROR,		P, C | S, jb_ctl_text),
	R0(IMSG_CTL_END,		P, C | S),
	R(IMSG_CTL_TEST_ATTEMPT,	C, P, jb_test_attempt),
	R(IMSG_CTL_TEST_RESULT,		P, C, jb_ctl_text),
	R(IMSG_CTL_CMD,			C, P, jb_ctl_cmd),
	R(IMSG_CTL_PROGRESS,		P, C | S, jb_ctl_text),
	R(IMSG_CTL_INSTANCE,		P, C | S, jb_instance),
	R(IMSG_CTL_SNAPSHOT,		P, C | S, jb_snapshot),
	R(IMSG_CTL_OUTPUT,		P, C | S, jb_output),
	RF(IMSG_CTL_EXEC_FD,		P, C | S, jb_exec_fd),
	R(IMSG_CTL_WINSIZE,		C | S, P, jb_winsize),
	R(IMSG_CTL_EXIT,		P, C | S, jb_exit),
	R(IMSG_CTL_MOUNT,		P, C | S, jb_mount_entry),
	R(IMSG_CTL_IMAGE,		P, C, jb_image),
	R(IMSG_CTL_BASE_SPEC,		P, C, jb_base_spec),
	R(IMSG_CTL_PORT,		P, C | S, jb_port),
	R(IMSG_CTL_NET_CTR,		P, C | S, jb_net_ctr),
	R(IMSG_CTL_NET_ALLOW,		P, C | S, jb_net_allow),
	R(IMSG_CTL_NET_ADDR,		P, C, jb_net_addr),
	R(IMSG_CTL_DOCTOR,		P, C, jb_doctor_check),
	R(IMSG_CTL_NET_BLOCK,		P, C | S, jb_net_block),
	R(IMSG_CTL_NET_RESOLVED,	P, C, jb_net_resolved),
	R(IMSG_CTL_NET_SECRET,		P, C, jb_net_secret),
	R(IMSG_CTL_LISTEN_ASK,		P, C, jb_ctl_listen),
	RF(IMSG_CTL_LISTEN_FD,		C, P, jb_ctl_listen),
	R0(IMSG_CTL_WATCH,		C | S, P),
	R(IMSG_CTL_EVENT,		P, C | S, jb_ctl_event),
};

#undef P
#undef I
#undef N
#undef M
#undef S
#undef SP
#undef C
#undef G
#undef E
#undef KIDS

static const struct {
	unsigned	 peer;
	const char	*name;
} peers[] = {
	{ JB_PEER_PARENT,	"jailbeed" },
	{ JB_PEER_INCUS,	"jb-incus" },
	{ JB_PEER_NETD,		"jb-netd" },
	{ JB_PEER_MOUNTD,	"jb-mountd" },
	{ JB_PEER_SSHD,		"jb-sshd" },
	{ JB_PEER_SPAWNER,	"jb-sshd's spawner" },
	{ JB_PEER_CTL,		"jbctl" },
	{ JB_PEER_GITD,		"jb-gitd" },
	{ JB_PEER_EGRESS,	"jb-egress" },
};

const struct jb_msg_row *
jb_msg_rows(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

int
jb_err_absent(const char *err, const char *name)
{
	static const char	absent[] = "no such container ";

	return err != NULL && name != NULL &&
	    strncmp(err, absent, sizeof(absent) - 1) == 0 &&
	    strcmp(err + sizeof(absent) - 1, name) == 0;
}

unsigned
jb_msg_peer(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(peers) / sizeof(peers[0]); i++)
		if (strcmp(peers[i].name, name) == 0)
			return peers[i].peer;
	return 0;
}

static const char *
peer_name(unsigned peer)
{
	size_t	i;

	for (i = 0; i < sizeof(peers) / sizeof(peers[0]); i++)
		if (peers[i].peer == peer)
			return peers[i].name;
	return "an unknown peer";
}

const char *
jb_imsg_name(uint32_t type)
{
	static char	unknown[32];
	size_t		i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].type == type)
			return rows[i].name + sizeof("IMSG_") - 1;
	snprintf(unknown, sizeof(unknown), "type %u", type);
	return unknown;
}

/*
 * Is this message one that "from" may send to "to", with the payload its
 * type has?  On no, why names the type and what is wrong with it; the
 * caller treats that as a protocol error of the sender.
 */
int
jb_msg_check(const struct imsg *imsg, unsigned from, unsigned to,
    char *why, size_t whylen)
{
	const struct jb_msg_row	*r = NULL;
	const struct jb_msg_str	*f;
	const unsigned char	*p;
	uint32_t		 type = imsg_get_type(imsg);
	size_t			 i, k, len = imsg_get_len(imsg), known = 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].type != type)
			continue;
		known = 1;
		if ((rows[i].from & from) && (rows[i].to & to)) {
			r = &rows[i];
			break;
		}
	}
	if (!known) {
		snprintf(why, whylen, "unknown message type %u", type);
		return -1;
	}
	if (r == NULL) {
		snprintf(why, whylen, "%s may not travel from %s to %s",
		    jb_imsg_name(type), peer_name(from), peer_name(to));
		return -1;
	}
	if (len != r->size) {
		snprintf(why, whylen, "%s has %zu bytes of payload, not %zu",
		    jb_imsg_name(type), len, r->size);
		return -1;
	}
	if (imsg->fd != -1 && !(r->flags & JB_MSG_FD)) {
		snprintf(why, whylen, "%s carries a descriptor it may not",
		    jb_imsg_name(type));
		return -1;
	}
	if (r->strs == NULL || len == 0)
		return 0;
	p = ibuf_data(imsg->buf);
	for (f = r->strs; f->name != NULL; f++)
		for (k = 0; k < f->count; k++)
			if (memchr(p + f->off + k * f->size, '\0',
			    f->size) == NULL) {
				snprintf(why, whylen, "%s's field %s has no "
				    "terminator", jb_imsg_name(type), f->name);
				return -1;
			}
	return 0;
}

/*
 * imsgbuf_get() and then jb_msg_check(): a message that fails the table
 * is logged with the reason, freed, and reported as malformed (-1).
 */
int
jb_imsg_get(struct imsgbuf *ibuf, struct imsg *imsg, unsigned from,
    unsigned to)
{
	char	why[160];
	int	n;

	if ((n = imsgbuf_get(ibuf, imsg)) != 1)
		return n;
	if (jb_msg_check(imsg, from, to, why, sizeof(why)) == 0)
		return 1;
	log_warnx("protocol error from %s: %s", peer_name(from), why);
	imsg_free(imsg);
	return -1;
}
