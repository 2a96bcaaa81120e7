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
 * The daemon configuration (jailbeed.yaml), parsed with libyaml into a
 * typed struct.  Only the parent parses YAML.  Every error names the file,
 * the line and the dotted key, e.g.
 *	bad.yaml:3: incus.urll: unknown key (known: url)
 * and nothing is half-applied: on error the output struct is untouched.
 */

#ifndef JB_CONFIG_H
#define JB_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#define JB_CONF_PATH		"/etc/jailbee/jailbeed.yaml"
#define JB_SOCKET_PATH		"/run/jailbee/jailbeed.sock"
#define JB_STATE_DIR		"/var/lib/jailbee"
#define JB_INCUS_URL		"unix:/var/lib/incus/unix.socket"
#define JB_BRIDGE		"jbbr0"
#define JB_SSH_LISTEN		"127.0.0.1:8022"
#define JB_SSH_LIST_MAX		32
#define JB_JOURNAL_KEEP_MAX	20	/* remote.ssh.journal_keep at most */
#define JB_OWNER_MAX		33	/* a login name, NUL included */
#define JB_ROOTS_MAX		16	/* remote.ssh.mount_roots */
#define JB_ROOT_REPOS_MAX	16	/* mount_roots[].repos */
#define JB_ERR_MAX		512

/* remote.ssh.mount_roots[] */
struct jb_mount_root {
	char	path[PATH_MAX];		/* absolute, canonical in form */
	int	readonly;		/* default 1 */
	char	repos[JB_ROOT_REPOS_MAX][48]; /* container prefixes; none: all */
	int	nrepos;
};

struct jb_conf {
	char	owner[JB_OWNER_MAX];	/* "" when not set */
	char	socket[PATH_MAX];	/* absolute */
	char	state_dir[PATH_MAX];	/* absolute */
	char	incus_url[PATH_MAX];	/* unix:/abs/path or https://host[:port] */
	char	bridge[16];		/* the Incus bridge containers join */
	/* cluster.member: this machine's member name; "" not a cluster */
	char	cluster_member[64];
	/* https only, all three required there: PEM files read at start */
	char	incus_cert[PATH_MAX];	/* our client certificate */
	char	incus_key[PATH_MAX];	/* its private key */
	char	incus_ca[PATH_MAX];	/* the server's certificate or CA */
	/* remote.ssh: jb-sshd's front door and what it lets through */
	char	ssh_listen[64];		/* ADDR:PORT, or "off" */
	char	ssh_keys[PATH_MAX];	/* "": ~owner/.config/jailbee/... */
	int	ssh_restrict_host;	/* 1 (default) */
	char	ssh_mode[16];		/* full | allowlist | disabled */
	/* fixed arrays, not lists: the struct is copied and compared whole */
	char	ssh_allow[JB_SSH_LIST_MAX][48];	/* exact leaves */
	int	ssh_nallow;
	char	ssh_excluded[JB_SSH_LIST_MAX][48]; /* repo prefixes */
	int	ssh_nexcluded;
	int	ssh_mounts;		/* every optional mount remotely */
	int	ssh_network;		/* net loose, egress add remotely */
	int	ssh_files;		/* sftp/scp: -1 unset, 0, 1 */
	/* journal flood */
	int	ssh_journal_max_kib;	/* rotate past this size */
	int	ssh_journal_keep;	/* files kept, the current one too */
	int	ssh_max_unauth;		/* unauthenticated per source */
	int	ssh_refusals_per_min;	/* journalled per source and minute */
	struct jb_mount_root ssh_roots[JB_ROOTS_MAX];
	int	ssh_nroots;
	/* jb-netd's upstream resolver; "": the host's /etc/resolv.conf */
	char	resolver_upstream[16];
	/*
	 * resolver.private_networks: A.B.C.D/N ranges whose addresses the
	 * resolver may admit from an answer although they are not public
	 */
	char	resolver_private[JB_SSH_LIST_MAX][48];
	int	resolver_nprivate;
	/* network.subnet: the bridge's, A.B.C.D/N with host bits clear */
	char	subnet[20];
	/* network.trust_host_cas: the host's local CAs go into containers */
	int	trust_host_cas;
	/*
	 * network.gateway_ports: a strict container's TCP to these ports
	 * goes through jb-egress unless an address entry admits it
	 */
	char	gw_ports[JB_SSH_LIST_MAX][48];
	int	gw_nports;
	/*
	 * network.gateway_trust: the CA certificates jb-egress verifies a
	 * secret's hosts against when it terminates their TLS, read once
	 * at its start
	 */
	char	gw_trust[PATH_MAX];
	/* network.proxy_port: jb-egress's explicit proxy, 0 none */
	int	proxy_port;
	/* network.proxy_env: HTTP_PROXY and the rest in new containers */
	int	proxy_env;
};
#define JB_GW_TRUST_DEFAULT	"/etc/ssl/certs/ca-certificates.crt"

void	conf_defaults(struct jb_conf *);
/* "ADDR:PORT" (IPv4, or [IPv6]) into *ss; 0 or -1 */
struct sockaddr_storage;
int	conf_listen_addr(const char *, struct sockaddr_storage *);
int	conf_ssh_files(const struct jb_conf *);
/*
 * Load path into *conf.  A missing file is an error unless missing_ok,
 * in which case *conf gets the defaults.  On error returns -1 with a
 * one-line message in err (file:line: key: what is wrong) and *conf
 * unchanged.
 */
int	conf_load(const char *path, int missing_ok, struct jb_conf *conf,
	    char *err, size_t errlen);
/* the same from memory; name is used in messages (fuzzing, tests) */
int	conf_parse(const char *name, const char *buf, size_t len,
	    struct jb_conf *conf, char *err, size_t errlen);
/* config_print.c: every key, as YAML conf_parse reads back the same */
void	conf_print(FILE *, const struct jb_conf *);

#endif /* JB_CONFIG_H */
