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
 * What jb-netd enforces, written down in <state_dir>/netd so that a
 * restart rebuilds the same table: reading, saving, and committing a new
 * state to the kernel and the disk together.
 */

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/capability.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errtext.h"
#include "atomicfile.h"
#include "log.h"
#include "netd_ct.h"
#include "netd_nft.h"
#include "netd_repos.h"
#include "netd_pool.h"
#include "netd_refused.h"
#include "netd_state.h"
#include "nftgen.h"
#include "refused.h"
#include "proc.h"
#include "resolver.h"
#include "sandbox_procs.h"
#include "testhook.h"

#include "netd.h"
#include "netd_gw.h"

/* a file of <state_dir>/netd, whole; NULL and *len 0 when absent */
static char *
state_read(const char *name, const char *file, size_t *len)
{
	struct stat	 sb;
	char		*buf;
	ssize_t		 r;
	size_t		 off = 0;
	int		 fd;

	*len = 0;
	if ((fd = openat(statefd, file, O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) == -1) {
		if (errno != ENOENT)
			fatal("%s: %s/%s", name, statedir, file);
		return NULL;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > STATE_MAX)
		fatalx("%s: %s/%s is not a regular file of at most %d bytes",
		    name, statedir, file, STATE_MAX);
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL)
		fatal("%s: malloc", name);
	while (off < (size_t)sb.st_size &&
	    (r = read(fd, buf + off, (size_t)sb.st_size - off)) > 0)
		off += (size_t)r;
	close(fd);
	*len = off;
	return buf;
}

/* read the durable state; a bad file is named and nothing is let out */
void
state_load(const char *name)
{
	char		*buf, err[1024], rpath[PATH_MAX + 16];
	size_t		 len;

	if ((buf = state_read(name, STATE_FILE, &len)) != NULL) {
		if (netd_state_parse(statepath, buf, len, &cur, err,
		    sizeof(err)) == -1)
			/* every container stays refused: the table has none */
			log_warnx("%s: %s; no container may leave until it is "
			    "fixed or removed", name, err);
		free(buf);
	}
	(void)snprintf(rpath, sizeof(rpath), "%s/%s", statedir, REPOS_FILE);
	if ((buf = state_read(name, REPOS_FILE, &len)) != NULL) {
		/* fail closed: without the layer, only the configs apply */
		if (netd_repos_parse(rpath, buf, len, &repos, err,
		    sizeof(err)) == -1)
			log_warnx("%s: %s; no repo override applies until it "
			    "is fixed or removed", name, err);
		free(buf);
	}
	if (netd_repos_sync(&cur, &repos, err, sizeof(err)) == -1) {
		log_warnx("%s: %s; no container may leave until it is fixed",
		    name, err);
		netd_state_free(&cur);
	}
}

/* text as <state_dir>/netd/file, 0600, atomically */
int
file_save(const char *file, char *text, char *err, size_t errlen)
{
	int	rc;

	if (text == NULL) {
		errtext(err, errlen, "out of memory");
		return -1;
	}
	if ((rc = atomic_save_at(statefd, file, text, strlen(text),
	    0600)) == -1)
		errtext(err, errlen, "%s/%s: %s", statedir, file,
		    strerror(errno));
	free(text);
	return rc;
}

/* write st where state_load finds it, atomically */
int
state_save(const struct netd_state *st, char *err, size_t errlen)
{
	return file_save(STATE_FILE, netd_state_fmt(st), err, errlen);
}

/*
 * With the test switch on (jailbeed -T): a file TESTHOOK_REFUSE in
 * <state_dir>/netd makes the kernel refuse the next change
 * (netd_nft_testhook_refuse_next).  It is renamed to
 * TESTHOOK_REFUSE.fired, so it fires once and the test can see that it
 * did.
 */
#define TESTHOOK_REFUSE	"testhook-refuse-nft"

void
testhook_refuse(void)
{
	char	buf[16];
	ssize_t	n;
	int	fd, times;

	if (!jb_testing)
		return;
	if ((fd = openat(statefd, TESTHOOK_REFUSE, O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) == -1)
		return;
	/* a count in the file refuses that many changes, one per call */
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	times = atoi(buf);
	if (times > 1) {
		close(fd);
		n = snprintf(buf, sizeof(buf), "%d\n", times - 1);
		if ((fd = openat(statefd, TESTHOOK_REFUSE ".next", O_WRONLY |
		    O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) == -1 ||
		    write(fd, buf, (size_t)n) != n ||
		    renameat(statefd, TESTHOOK_REFUSE ".next", statefd,
		    TESTHOOK_REFUSE) == -1)
			log_warn("test hook: cannot count down");
		if (fd != -1)
			close(fd);
		log_info("test hook: the kernel refuses this change");
		netd_nft_testhook_refuse_next();
		return;
	}
	close(fd);
	if (renameat(statefd, TESTHOOK_REFUSE, statefd,
	    TESTHOOK_REFUSE ".fired") == -1) {
		log_warn("test hook: cannot rename %s", TESTHOOK_REFUSE);
		return;
	}
	log_info("test hook: the kernel refuses the next change");
	netd_nft_testhook_refuse_next();
}

/*
 * Make next what the kernel enforces and what is written down; on any
 * failure cur stays (the kernel keeps its table) and next is freed.
 */
int
state_commit(struct netd_state *next, char *err, size_t errlen)
{
	testhook_refuse();
	/* whatever changed, each container gets its repo's layer again */
	if (netd_repos_sync(next, &repos, err, errlen) == -1 ||
	    netd_nft_apply(&net, next, 0, err, errlen) == -1) {
		netd_state_free(next);
		return -1;
	}
	if (state_save(next, err, errlen) == -1) {
		/* enforced, not recorded: put the kernel back as well */
		char	e2[256];

		if (netd_nft_apply(&net, &cur, 0, e2, sizeof(e2)) == -1)
			log_warnx("cannot restore the table: %s", e2);
		netd_state_free(next);
		return -1;
	}
	netd_state_free(&cur);
	cur = *next;
	memset(next, 0, sizeof(*next));
	/* what the kernel no longer admits leaves the pool too */
	netd_pool_narrow(&cur);
	netd_gw_push(&cur);
	return 0;
}
