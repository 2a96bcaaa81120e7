/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/prctl.h>
#include <sys/wait.h>

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

/*
 * The groups initgroups(3) would give name, set the same way, but looked
 * up in a child process: a group lookup loads every name service module
 * nsswitch.conf lists for groups (systemd's, and the libraries it needs),
 * which would stay mapped in this long-lived process for a lookup made
 * once.  The child writes the count, then the list.
 */
static void
groups_set(const char *name, gid_t gid)
{
	gid_t	*g;
	long	 max;
	int	 p[2], n;
	size_t	 want, got = 0;
	ssize_t	 r;
	pid_t	 pid;

	if ((max = sysconf(_SC_NGROUPS_MAX)) <= 0 || max > 65536)
		max = 65536;
	/* the count first, then the groups */
	want = sizeof(gid_t) * (size_t)(max + 1);
	if ((g = malloc(want)) == NULL)
		fatal("groups of %s", name);
	if (pipe2(p, O_CLOEXEC) == -1)
		fatal("pipe");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		(void)close(p[0]);
		n = (int)max;
		if (getgrouplist(name, gid, g + 1, &n) == -1 || n < 0)
			_exit(1);
		g[0] = (gid_t)n;
		want = sizeof(gid_t) * ((size_t)n + 1);
		while (got < want && (r = write(p[1], (char *)g + got,
		    want - got)) > 0)
			got += (size_t)r;
		_exit(got == want ? 0 : 1);
	}
	(void)close(p[1]);
	while (got < want && ((r = read(p[0], (char *)g + got,
	    want - got)) > 0 || (r == -1 && errno == EINTR)))
		if (r > 0)
			got += (size_t)r;
	(void)close(p[0]);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	/* what came is whole: the count, and that many groups */
	if (got < sizeof(gid_t) || g[0] > (gid_t)max ||
	    got != sizeof(gid_t) * ((size_t)g[0] + 1))
		fatalx("cannot read the groups of %s", name);
	if (setgroups((size_t)g[0], g + 1) == -1)
		fatal("setgroups %s", name);
	free(g);
}

void
priv_drop(const char *procname, const struct passwd *pw, const char *root,
    const int *keep, size_t nkeep)
{
	uid_t		 uid = pw ? pw->pw_uid : 0;
	gid_t		 gid = pw ? pw->pw_gid : 0;
	size_t		 i;

	capng_clear(CAPNG_SELECT_ALL);
	for (i = 0; i < nkeep; i++)
		if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
		    keep[i]) == -1)
			fatalx("capng_update %d", keep[i]);

	selfstat_init();
	/* the group database is read before a chroot hides it */
	if (pw != NULL && pw->pw_name != NULL)
		groups_set(pw->pw_name, gid);
	/* no name (ids handed down, no group database): no group either */
	else if ((pw == NULL || pw->pw_name == NULL) &&
	    setgroups(0, NULL) == -1)
		fatal("setgroups");
	if (root != NULL && (chroot(root) == -1 || chdir("/") == -1))
		fatal("chroot %s", root);

	if (uid != 0) {
		/* libcap-ng keeps the listed capabilities across setuid */
		if (capng_change_id(uid, gid,
		    CAPNG_CLEAR_BOUNDING | CAPNG_CLEAR_AMBIENT) != 0)
			fatalx("cannot switch to uid %u gid %u",
			    (unsigned)uid, (unsigned)gid);
	} else {
		if (capng_apply(CAPNG_SELECT_ALL) != 0)
			fatalx("cannot apply capabilities");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("PR_SET_NO_NEW_PRIVS");
	/* a change of credentials clears the parent death signal */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("PR_SET_PDEATHSIG");

	/* trust, but verify */
	if (uid != 0 && (setuid(0) != -1 || seteuid(0) != -1))
		fatalx("could regain root after dropping it");
	capng_get_caps_process();
	for (i = 0; i < nkeep; i++)
		if (!capng_have_capability(CAPNG_EFFECTIVE, keep[i]))
			fatalx("lost capability %d", keep[i]);
	if (nkeep == 0 && capng_have_capabilities(CAPNG_SELECT_CAPS) !=
	    CAPNG_NONE)
		fatalx("still holds capabilities");
	log_debug("running as uid %u gid %u with %zu capabilities", (unsigned)getuid(), (unsigned)getgid(), nkeep);
}
