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
 * Optional-mount deadlines: one timer per attached mount that
 * has one, held here and written to <state_dir>/mounts/deadlines before
 * a change is acknowledged, so a restart loses nothing.  When a timer
 * fires, the parent is told (IMSG_MOUNTD_EXPIRED) and detaches the
 * mount; until it clears the deadline, the news is repeated every
 * MNT_RETRY_SECS, so a detach that failed is tried again.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event.h>

#include "atomicfile.h"
#include "deadline.h"
#include "log.h"
#include "mountspec.h"
#include "proc.h"

struct dl {
	struct jb_mount_deadline	 d;
	struct event			 ev;
	int				 used;
};

static struct dl	 dls[DEADLINE_MAX];
static int		 dirfd_ = -1;
static struct child	*chld;

static void
dl_fire(int fd, short ev, void *arg)
{
	struct dl	*e = arg;
	struct timeval	 tv = { MNT_RETRY_SECS, 0 };

	log_info("mount %s of %s: deadline reached", e->d.kind, e->d.name);
	if (imsgev_compose(&chld->iev, IMSG_MOUNTD_EXPIRED, 0, 0, -1, &e->d,
	    sizeof(e->d)) == -1)
		fatal("compose");
	evtimer_add(&e->ev, &tv);
}

static void
dl_arm(struct dl *e)
{
	struct timeval	tv;
	int64_t		left = e->d.until - (int64_t)time(NULL);

	tv.tv_sec = left > 0 ? left : 0;
	tv.tv_usec = 0;
	if (evtimer_initialized(&e->ev))
		evtimer_del(&e->ev);
	evtimer_set(&e->ev, dl_fire, e);
	evtimer_add(&e->ev, &tv);
}

static int
save(char *err, size_t errlen)
{
	char	 line[256], *buf = NULL;
	size_t	 len = 0, i;
	int	 n;

	for (i = 0; i < DEADLINE_MAX; i++) {
		if (!dls[i].used)
			continue;
		n = mnt_deadline_fmt(&dls[i].d, line, sizeof(line));
		if (n <= 0 || (size_t)n >= sizeof(line))
			continue;
		if ((buf = realloc(buf, len + n)) == NULL)
			fatal("%s", __func__);
		memcpy(buf + len, line, n);
		len += n;
	}
	/* a whole new file, then a rename: never half a file */
	if (atomic_save_at(dirfd_, DEADLINE_FILE, buf == NULL ? "" : buf, len,
	    0600) == -1) {
		(void)snprintf(err, errlen, "cannot record mount deadlines: "
		    "%s", strerror(errno));
		log_warn("writing %s", DEADLINE_FILE);
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

static struct dl *
find(const char *name, const char *kind)
{
	size_t	i;

	for (i = 0; i < DEADLINE_MAX; i++)
		if (dls[i].used && strcmp(dls[i].d.name, name) == 0 &&
		    strcmp(dls[i].d.kind, kind) == 0)
			return &dls[i];
	return NULL;
}

static struct dl *
slot(void)
{
	size_t	i;

	for (i = 0; i < DEADLINE_MAX; i++)
		if (!dls[i].used)
			return &dls[i];
	return NULL;
}

void
deadline_init(struct child *c, const char *dir)
{
	struct jb_mount_deadline	 d;
	struct dl			*e;
	char				*buf, *line, *p, err[128];
	ssize_t				 n;
	size_t				 len = 0, cap = 65536, lineno = 0;
	int				 fd;

	chld = c;
	if ((dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		fatal("state directory %s", dir);
	if ((fd = openat(dirfd_, DEADLINE_FILE, O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) == -1) {
		if (errno != ENOENT)
			fatal("%s/%s", dir, DEADLINE_FILE);
		return;
	}
	if ((buf = malloc(cap + 1)) == NULL)
		fatal("%s", __func__);
	while (len < cap && ((n = read(fd, buf + len, cap - len)) > 0 ||
	    (n == -1 && errno == EINTR)))
		if (n > 0)
			len += n;
	(void)close(fd);
	buf[len] = '\0';
	for (p = buf; (line = strsep(&p, "\n")) != NULL; ) {
		lineno++;
		if (*line == '\0')
			continue;
		/* a bad line is dropped, loudly; the rest still count */
		if (mnt_deadline_parse(line, &d, err, sizeof(err)) == -1) {
			log_warnx("%s/%s:%zu: %s: ignored", dir, DEADLINE_FILE,
			    lineno, err);
			continue;
		}
		if (find(d.name, d.kind) != NULL || (e = slot()) == NULL)
			continue;
		e->used = 1;
		e->d = d;
		dl_arm(e);
		log_info("mount %s of %s: deadline %lld%s", d.kind, d.name,
		    (long long)d.until, d.until <= time(NULL) ?
		    ", passed while the suite was down" : "");
	}
	free(buf);
}

int
deadline_set(const struct jb_mount_deadline *d, char *err, size_t errlen)
{
	struct dl	*e, old;
	int		 fresh = 0;

	if ((e = find(d->name, d->kind)) == NULL) {
		if ((e = slot()) == NULL) {
			(void)snprintf(err, errlen, "too many mount deadlines");
			return -1;
		}
		fresh = 1;
		memset(e, 0, sizeof(*e));
	}
	old = *e;
	e->used = 1;
	e->d = *d;
	if (save(err, errlen) == -1) {
		if (fresh)
			e->used = 0;
		else
			e->d = old.d;
		return -1;
	}
	dl_arm(e);
	return 0;
}

int
deadline_clear(const struct jb_mount_deadline *d, char *err, size_t errlen)
{
	struct dl	*e;

	if ((e = find(d->name, d->kind)) == NULL)
		return 0;
	/* a deadline moved since it fired is not cleared by that firing */
	if (d->until != 0 && d->until != e->d.until)
		return 0;
	e->used = 0;
	if (save(err, errlen) == -1) {
		e->used = 1;
		return -1;
	}
	evtimer_del(&e->ev);
	return 0;
}

void
deadline_list(struct child *c, uint32_t rid, const char *name)
{
	size_t	i;

	for (i = 0; i < DEADLINE_MAX; i++) {
		if (!dls[i].used || (*name != '\0' &&
		    strcmp(dls[i].d.name, name) != 0))
			continue;
		if (imsgev_compose(&c->iev, IMSG_MOUNTD_DEADLINE, rid, 0, -1,
		    &dls[i].d, sizeof(dls[i].d)) == -1)
			fatal("compose");
	}
}
