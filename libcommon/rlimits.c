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
 * What each process of the suite may take of the host, set by the
 * process itself at its start: a leak in one process ends that process,
 * and with it the suite, instead of the host's memory, file table or
 * process table.  A bound is never raised (that needs CAP_SYS_RESOURCE,
 * which a host may not give root), so a process sets its own only after
 * it has started the processes that need more: jailbeed once its
 * children run, each child and jb-reaper at its own start.
 *
 * - data: the heap and every other private writable mapping
 *   (RLIMIT_DATA), which is what a leak grows.  Measured with 100
 *   containers and 64 SSH sessions at once, no process passed 11 MiB;
 *   the bounds are many times that.  A process that runs git (jb-mountd,
 *   jb-gitd) keeps its own bound as the soft limit and git's as the hard
 *   one: the git it starts raises the soft limit to the hard one
 *   (proc_bound_git), so git is bounded as jb-gitd bounds it and the daemon
 *   as itself.
 * - nofile: above what the process's own bounds allow it to hold open
 *   (jb-netd: 256 lookups upstream and 256 TCP clients; jb-sshd: 512
 *   sessions; jailbeed: 32 control connections per user, 256 SSH
 *   sessions' channels; jb-egress: six per relayed connection, two
 *   sockets and two pipes).
 * - nproc: only for the dedicated users (_jbincus, _jbsshd, _jbegress), whose every
 *   process is the suite's: 512 sessions of one suite and room for a
 *   second.  The owner's processes (jailbeed, jb-mountd, jb-gitd) are
 *   counted with the owner's own, so no number fits them; root's
 *   (jb-netd, the spawner) are not counted by the kernel.  Those that
 *   may fork at all do so one git at a time (jb-mountd) or per fetch
 *   (jb-gitd); the others' filters allow no fork.
 * - core: none.  A core file of a process that read keys and
 *   certificates is not left on disk, and a large one cannot fill it.
 *
 * A sanitizer build (make SAN=1, never installed) maps terabytes of
 * shadow memory before main runs: there the data bound is left unset.
 */

#include <sys/resource.h>

#include <string.h>

#include "log.h"
#include "proc.h"

#define MiB	((rlim_t)1 << 20)
#define GiB	((rlim_t)1 << 30)

#if defined(__SANITIZE_ADDRESS__)
#define RL_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RL_ASAN	1
#endif
#endif

static const struct proc_bounds bounds[] = {
	/* name			data		data for git	nofile	nproc */
	{ "jailbeed",		512 * MiB,	0,		4096,	0 },
	{ "jb-reaper",		64 * MiB,	0,		64,	0 },
	{ "jb-incus",		512 * MiB,	0,		4096,	64 },
	{ "jb-netd",		512 * MiB,	0,		2048,	0 },
	{ "jb-mountd",		512 * MiB,	4 * GiB,	1024,	0 },
	{ "jb-gitd",		512 * MiB,	4 * GiB,	1024,	0 },
	{ "jb-sshd",		256 * MiB,	0,		2048,	1024 },
	{ "jb-sshd spawner",	256 * MiB,	0,		2048,	1024 },
	{ "jb-sshd session",	128 * MiB,	0,		64,	1024 },
	{ "jb-egress",		256 * MiB,	0,		8192,	16 },
};

const struct proc_bounds *
proc_bounds_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		if (strcmp(bounds[i].name, name) == 0)
			return &bounds[i];
	return NULL;
}

static void
set(const char *name, const char *what, int res, rlim_t cur, rlim_t max)
{
	struct rlimit	rl;

	rl.rlim_cur = cur;
	rl.rlim_max = max;
	if (setrlimit(res, &rl) == -1)
		fatal("%s: cannot bound its %s", name, what);
}

void
proc_bound(const char *name)
{
	const struct proc_bounds	*b;

	if ((b = proc_bounds_find(name)) == NULL)
		fatalx("%s: no resource bounds for this process", name);
#ifndef RL_ASAN
	set(name, "memory (RLIMIT_DATA)", RLIMIT_DATA, b->data,
	    b->data_git != 0 ? b->data_git : b->data);
#endif
	set(name, "open files (RLIMIT_NOFILE)", RLIMIT_NOFILE, b->nofile,
	    b->nofile);
	if (b->nproc != 0)
		set(name, "processes (RLIMIT_NPROC)", RLIMIT_NPROC, b->nproc,
		    b->nproc);
	set(name, "core files (RLIMIT_CORE)", RLIMIT_CORE, 0, 0);
}

int
proc_bound_git(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_DATA, &rl) == -1)
		return -1;
	if (rl.rlim_cur == rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_DATA, &rl);
}
