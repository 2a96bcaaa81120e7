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
 * The SSH policy a channel runs under.  A jb-sshd session takes a
 * snapshot of the routing and repo-scope keys when it starts, and every
 * command it runs, and every job those commands start, is judged by that
 * snapshot: a reload changes what new sessions get, never a running one
 * (the seed's rule).  Mount grants are not in it: they are checked
 * against the configuration in force at mount time.
 */

#include <stdlib.h>
#include <string.h>

#include "jailbeed.h"
#include "sshpolicy.h"

struct sshsnap {
	int	refs;
	int	restrict_host;
	char	mode[16];
	char	allow[JB_SSH_LIST_MAX][48];
	int	nallow;
	char	excluded[JB_SSH_LIST_MAX][48];
	int	nexcluded;
	int	mount_unlocked;
	int	network;
};

/* the policy in force now; NULL when out of memory */
struct sshsnap *
sshsnap_take(void)
{
	struct sshsnap	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->refs = 1;
	p->restrict_host = env->conf.ssh_restrict_host;
	memcpy(p->mode, env->conf.ssh_mode, sizeof(p->mode));
	memcpy(p->allow, env->conf.ssh_allow, sizeof(p->allow));
	p->nallow = env->conf.ssh_nallow;
	memcpy(p->excluded, env->conf.ssh_excluded, sizeof(p->excluded));
	p->nexcluded = env->conf.ssh_nexcluded;
	p->mount_unlocked = env->conf.ssh_mounts || env->conf.ssh_nroots > 0;
	p->network = env->conf.ssh_network;
	return p;
}

struct sshsnap *
sshsnap_ref(struct sshsnap *p)
{
	if (p != NULL)
		p->refs++;
	return p;
}

void
sshsnap_put(struct sshsnap *p)
{
	if (p != NULL && --p->refs == 0)
		free(p);
}

int
sshsnap_restricted(const struct sshsnap *p)
{
	return p == NULL || p->restrict_host;
}

/*
 * Is the repo of this prefix excluded (prefix NULL: is any)?  Without a
 * snapshot (out of memory at session start) everything is excluded.
 */
int
sshsnap_excluded(const struct sshsnap *p, const char *prefix)
{
	int	i;

	if (p == NULL)
		return 1;
	if (!p->restrict_host)
		return 0;
	if (prefix == NULL)
		return p->nexcluded > 0;
	for (i = 0; i < p->nexcluded; i++)
		if (strcmp(p->excluded[i], prefix) == 0)
			return 1;
	return 0;
}

/* the command policy of the snapshot, for sshpolicy_decide */
/*
 * Might the container be one of an excluded repo's?  Told from its name
 * alone (PREFIX-...), so a repo whose prefix extends an excluded one
 * (app-x beside app) counts too: erring that way only hides a name.
 */
int
sshsnap_hides(const struct sshsnap *p, const char *container)
{
	size_t	n;
	int	i;

	if (p == NULL)
		return 1;
	if (!p->restrict_host)
		return 0;
	for (i = 0; i < p->nexcluded; i++) {
		n = strlen(p->excluded[i]);
		if (strncmp(container, p->excluded[i], n) == 0 &&
		    container[n] == '-')
			return 1;
	}
	return 0;
}

void
sshsnap_policy(const struct sshsnap *p, struct sshp_conf *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->mode = strcmp(p->mode, "allowlist") == 0 ? SSHP_ALLOWLIST :
	    strcmp(p->mode, "disabled") == 0 ? SSHP_DISABLED : SSHP_FULL;
	pc->restrict_host = p->restrict_host;
	pc->allow = (const char (*)[48])p->allow;
	pc->nallow = p->nallow;
	pc->excluded = sshsnap_excluded(p, NULL);
	pc->mount_unlocked = p->mount_unlocked;
	pc->network_unlocked = p->network;
}
