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
 * Reload: SIGHUP or jbctl reload reads jailbeed.yaml again and puts it
 * in force whole, or not at all.  A file that does not parse changes
 * nothing.  Some keys shape the processes themselves (who the owner is,
 * where the sockets and the state are, which incusd and bridge, where
 * jb-sshd listens: its socket is bound before the lock-down, which
 * leaves the parent no socket(2), and jb-sshd's Landlock ruleset lets it
 * bind no TCP port at all); a file that changes one of
 * them is refused as a whole, naming the key, so the running
 * configuration never mixes two files.  The SSH policy and the other
 * keys take effect for what starts after: a running SSH session keeps
 * the policy it started with (sshsnap.c).  Every reload is journalled.
 */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jailbeed.h"
#include "log.h"

/* the keys a reload cannot change, as the file names them */
static const struct fixed_key {
	const char	*key;
	size_t		 off;
	size_t		 size;
} fixed_keys[] = {
#define F(k, m)	{ k, offsetof(struct jb_conf, m), \
	    sizeof(((struct jb_conf *)NULL)->m) }
	F("owner", owner),
	F("socket", socket),
	F("state_dir", state_dir),
	F("incus.url", incus_url),
	F("incus.bridge", bridge),
	F("incus.client_cert", incus_cert),
	F("incus.client_key", incus_key),
	F("incus.server_cert", incus_ca),
	F("remote.ssh.listen", ssh_listen),
	F("remote.ssh.journal_keep", ssh_journal_keep),
	F("remote.ssh.max_unauthenticated_per_source", ssh_max_unauth),
	F("resolver.upstream", resolver_upstream),
	F("network.subnet", subnet),
#undef F
};

int
conf_reload(uid_t who, char *msg, size_t len)
{
	struct jb_conf	*n;
	char		 err[JB_ERR_MAX];
	size_t		 i;

	if ((n = calloc(1, sizeof(*n))) == NULL) {
		snprintf(msg, len, "reload: out of memory; the running "
		    "configuration is unchanged");
		sshd_journal_reload(who, "refuse", "out of memory");
		return -1;
	}
	if (conf_load(env->conf_path, 1, n, err, sizeof(err)) == -1) {
		snprintf(msg, len, "reload: %s; the running configuration is "
		    "unchanged: fix the file and reload again", err);
		sshd_journal_reload(who, "refuse", err);
		free(n);
		return -1;
	}
	for (i = 0; i < sizeof(fixed_keys) / sizeof(fixed_keys[0]); i++) {
		const struct fixed_key *f = &fixed_keys[i];

		if (memcmp((char *)n + f->off, (char *)&env->conf + f->off,
		    f->size) == 0)
			continue;
		snprintf(msg, len, "reload: %s: %s changed, which takes effect "
		    "only when jailbeed starts again; nothing was reloaded: "
		    "restart jailbeed, or put the old value back and reload",
		    env->conf_path, f->key);
		snprintf(err, sizeof(err), "%s changed: needs a restart",
		    f->key);
		sshd_journal_reload(who, "refuse", err);
		free(n);
		return -1;
	}
	if (memcmp(n, &env->conf, sizeof(*n)) == 0) {
		snprintf(msg, len, "reload: %s unchanged", env->conf_path);
		sshd_journal_reload(who, "accept", "unchanged");
	} else {
		env->conf = *n;
		snprintf(msg, len, "reload: %s in force; SSH sessions that "
		    "started before keep their policy", env->conf_path);
		sshd_journal_reload(who, "accept", "reloaded");
	}
	free(n);
	return 0;
}

/* jbctl reload: the host's owner or root, never a jb-sshd session */
void
cmd_reload(struct job *job)
{
	struct jb_output	o;
	char			msg[JB_ERR_TEXT_MAX];

	if (job->remote) {
		job_end(job, 0, "reload: not available over SSH");
		return;
	}
	if (conf_reload(job->c != NULL ? control_uid(job->c) : (uid_t)-1,
	    msg, sizeof(msg)) == -1) {
		log_warnx("%s", msg);
		job_end(job, 0, "%s", msg);
		return;
	}
	log_info("%s", msg);
	memset(&o, 0, sizeof(o));
	o.which = 1;
	o.len = snprintf(o.data, sizeof(o.data), "%s\n", msg);
	if (o.len > sizeof(o.data))
		o.len = sizeof(o.data);
	(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
	job_end(job, 1, " ");
}
