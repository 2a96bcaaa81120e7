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
 * jailbeed -nv: the configuration in force, every key with its value
 * (defaults included), as YAML that conf_parse reads back to the same
 * configuration.  Strings are double-quoted, with \" \\ and \xNN for
 * control bytes, so no value can break the document or a terminal.
 */

#include <stdio.h>
#include <string.h>

#include "config.h"

static void
q(FILE *f, const char *s)
{
	const unsigned char	*p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void
kv(FILE *f, const char *indent, const char *key, const char *val)
{
	fprintf(f, "%s%s: ", indent, key);
	q(f, val);
	fputc('\n', f);
}

static void
list(FILE *f, const char *indent, const char *key, const char (*v)[48],
    int n)
{
	int	i;

	fprintf(f, "%s%s: [", indent, key);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputs(", ", f);
		q(f, v[i]);
	}
	fputs("]\n", f);
}

static const char *
tf(int b)
{
	return b ? "true" : "false";
}

void
conf_print(FILE *f, const struct jb_conf *c)
{
	const struct jb_mount_root	*r;
	int				 i;

	if (c->owner[0] != '\0')
		kv(f, "", "owner", c->owner);
	kv(f, "", "socket", c->socket);
	kv(f, "", "state_dir", c->state_dir);
	fputs("incus:\n", f);
	kv(f, "  ", "url", c->incus_url);
	kv(f, "  ", "bridge", c->bridge);
	if (c->incus_cert[0] != '\0')
		kv(f, "  ", "client_cert", c->incus_cert);
	if (c->incus_key[0] != '\0')
		kv(f, "  ", "client_key", c->incus_key);
	if (c->incus_ca[0] != '\0')
		kv(f, "  ", "server_cert", c->incus_ca);
	if (c->cluster_member[0] != '\0') {
		fputs("cluster:\n", f);
		kv(f, "  ", "member", c->cluster_member);
	}
	if (c->resolver_upstream[0] != '\0' || c->resolver_nprivate > 0) {
		fputs("resolver:\n", f);
		if (c->resolver_upstream[0] != '\0')
			kv(f, "  ", "upstream", c->resolver_upstream);
		if (c->resolver_nprivate > 0)
			list(f, "  ", "private_networks", c->resolver_private,
			    c->resolver_nprivate);
	}
	fputs("network:\n", f);
	kv(f, "  ", "subnet", c->subnet);
	if (c->gw_nports > 0)
		list(f, "  ", "gateway_ports", c->gw_ports, c->gw_nports);
	else
		fputs("  gateway_ports: []\n", f);
	if (strcmp(c->gw_trust, JB_GW_TRUST_DEFAULT) != 0)
		kv(f, "  ", "gateway_trust", c->gw_trust);
	fprintf(f, "  proxy_port: %d\n", c->proxy_port);
	fprintf(f, "  proxy_env: %s\n", tf(c->proxy_env));
	fputs("remote:\n  ssh:\n", f);
	kv(f, "    ", "listen", c->ssh_listen);
	if (c->ssh_keys[0] != '\0')
		kv(f, "    ", "authorized_keys", c->ssh_keys);
	fprintf(f, "    restrict_host: %s\n", tf(c->ssh_restrict_host));
	fputs("    commands:\n", f);
	kv(f, "      ", "mode", c->ssh_mode);
	list(f, "      ", "allow", c->ssh_allow, c->ssh_nallow);
	list(f, "    ", "excluded_repos", c->ssh_excluded, c->ssh_nexcluded);
	fprintf(f, "    mounts: %s\n", tf(c->ssh_mounts));
	fprintf(f, "    network: %s\n", tf(c->ssh_network));
	/* unset: on under commands.mode full, else off (conf_ssh_files) */
	if (c->ssh_files != -1)
		fprintf(f, "    files: %s\n", tf(c->ssh_files));
	if (c->ssh_nroots == 0)
		fputs("    mount_roots: []\n", f);
	else
		fputs("    mount_roots:\n", f);
	for (i = 0; i < c->ssh_nroots; i++) {
		r = &c->ssh_roots[i];
		kv(f, "      - ", "path", r->path);
		fprintf(f, "        readonly: %s\n", tf(r->readonly));
		list(f, "        ", "repos", r->repos, r->nrepos);
	}
	fprintf(f, "    journal_max_kib: %d\n", c->ssh_journal_max_kib);
	fprintf(f, "    journal_keep: %d\n", c->ssh_journal_keep);
	fprintf(f, "    max_unauthenticated_per_source: %d\n",
	    c->ssh_max_unauth);
	fprintf(f, "    refusals_per_minute: %d\n", c->ssh_refusals_per_min);
}
