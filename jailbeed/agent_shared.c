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
 * An agent's shared state (agents.<name>.shared): each entry is a
 * directory or file under the suite's shared directory for the repo,
 * <state_dir>/mounts/shared/<prefix>/<subpath>, so that every container
 * of the repo sees the same login and settings of the agent.  jb-mountd
 * makes it as the owner (0700, a symlink on the way refused:
 * jb-mountd/shared.c), then it is attached read-write at its path as
 * every mount is (jb-mountd checks the source without following a link,
 * no overlap with another mount where either is read-write, the mount
 * verified in the container), as device agent-<name>-<index>.  Each
 * attach is journalled (action mount, by agents.<name>.shared).  A
 * container that has the device keeps it: it is not attached twice.  A
 * type: link entry is a file in one of the agent's shared directories:
 * it is made (with its seed) but not mounted; the agent's run puts the
 * symlink at its path (agent_run.c).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_shared.h"
#include "log.h"
#include "mounts.h"
#include "mountspec.h"

#define DEVS_MAX	(RC_AGENTS_MAX * RC_AGENT_SHARED_MAX)

struct ashared {
	struct job		*job;
	char			 name[JB_INSTANCE_MAX];
	const struct repoconf	*conf;
	size_t			 agents[RC_AGENTS_MAX];
	size_t			 n;
	size_t			 ai;		/* in agents[] */
	int			 si;		/* in its shared[] */
	char			 have[DEVS_MAX][JB_DEVICE_MAX];
	size_t			 nhave;
	struct jb_shared_path	 path;
	int			 got_path;
	int			 attached;
	agent_shared_cb		 cb;
	void			*arg;
};

static void	shared_next(struct ashared *);

static void
shared_end(struct ashared *s, int ok, const char *err)
{
	struct job	*job = s->job;
	agent_shared_cb	 cb = s->cb;
	void		*arg = s->arg;
	char		 e[JB_ERR_TEXT_MAX];

	(void)strlcpy(e, err != NULL ? err : "", sizeof(e));
	free(s);
	cb(job, ok, e, arg);
}

static const struct rc_agent *
cur_agent(const struct ashared *s)
{
	return &s->conf->agents.v[s->agents[s->ai]];
}

static void
cur_device(const struct ashared *s, char *dev, size_t len)
{
	(void)snprintf(dev, len, "%s%s-%d", MNT_AGENT_PREFIX,
	    cur_agent(s)->name, s->si);
}

/* ~/x is the dev user's */
static int
target(const char *path, char *out, size_t len)
{
	if (path[0] == '~' && path[1] == '/')
		return (size_t)snprintf(out, len, "/home/dev/%s", path + 2) <
		    len ? 0 : -1;
	return strlcpy(out, path, len) < len ? 0 : -1;
}

static void
shared_attached(struct job *job, int ok, const char *err, void *arg)
{
	struct ashared			*s = arg;
	const struct rc_agent		*a = cur_agent(s);
	const struct rc_agent_shared	*e = &a->shared[s->si];
	char				 dev[JB_DEVICE_MAX], by[96];
	char				 msg[JB_ERR_TEXT_MAX];

	cur_device(s, dev, sizeof(dev));
	(void)snprintf(by, sizeof(by), "agents.%s.shared", a->name);
	audit_mount(job, "mount", s->name, s->conf->container_prefix, dev,
	    s->path.path, by, 0, ok, err);
	if (!ok) {
		(void)snprintf(msg, sizeof(msg), "agent %s: shared %s: %s",
		    a->name, e->subpath, err);
		shared_end(s, 0, msg);
		return;
	}
	job_progress(job, "agent %s: shared %s at %s (read-write)%s", a->name,
	    e->subpath, e->path, s->path.made ? ", made now" : "");
	s->attached++;
	s->si++;
	shared_next(s);
}

static void
shared_path(struct req *r, struct imsg *imsg)
{
	struct ashared	*s = r->arg;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_SHARED_PATH ||
	    imsg_get_data(imsg, &s->path, sizeof(s->path)) == -1)
		fatalx("jb-mountd: malformed SHARED_PATH");
	s->path.path[sizeof(s->path.path) - 1] = '\0';
	s->got_path = 1;
}

static void
shared_made(struct req *r, int ok, const char *err)
{
	struct ashared			*s = r->arg;
	const struct rc_agent		*a = cur_agent(s);
	const struct rc_agent_shared	*e = &a->shared[s->si];
	struct mount_spec		 m;
	char				 dev[JB_DEVICE_MAX], by[96];
	char				 msg[JB_ERR_TEXT_MAX];

	if (!ok || !s->got_path) {
		cur_device(s, dev, sizeof(dev));
		(void)snprintf(by, sizeof(by), "agents.%s.shared", a->name);
		audit_mount(s->job, "mount", s->name,
		    s->conf->container_prefix, dev, e->subpath, by, 0, 0,
		    ok ? "no path" : err);
		(void)snprintf(msg, sizeof(msg), "agent %s: %s", a->name,
		    ok ? "jb-mountd made no shared path" : err);
		shared_end(s, 0, msg);
		return;
	}
	/* a link's file is made; the symlink to it is the agent run's */
	if (strcmp(e->type, "link") == 0) {
		job_progress(s->job, "agent %s: shared %s%s, reached by the "
		    "link %s to %s", a->name, e->subpath, s->path.made ?
		    ", made now" : "", e->path, e->target);
		s->si++;
		shared_next(s);
		return;
	}
	memset(&m, 0, sizeof(m));
	(void)strlcpy(m.name, s->name, sizeof(m.name));
	cur_device(s, m.device, sizeof(m.device));
	(void)strlcpy(m.host, s->path.path, sizeof(m.host));
	/* the parser took only ~/ and clean absolute paths */
	if (target(e->path, m.container, sizeof(m.container)) == -1)
		fatalx("agents.%s.shared: path too long", a->name);
	(void)snprintf(m.reserved, sizeof(m.reserved), "/home/dev/%s",
	    s->conf->container_prefix);
	(void)snprintf(m.what, sizeof(m.what), "agents.%s.shared[%d]",
	    a->name, s->si);
	m.readonly = 0;
	mount_attach(s->job, &m, shared_attached, s);
}

static int
have(const struct ashared *s, const char *dev)
{
	size_t	i;

	for (i = 0; i < s->nhave; i++)
		if (strcmp(s->have[i], dev) == 0)
			return 1;
	return 0;
}

static void
shared_next(struct ashared *s)
{
	const struct rc_agent		*a;
	const struct rc_agent_shared	*e;
	struct jb_shared_req		 q;
	char				 dev[JB_DEVICE_MAX];

	for (;;) {
		if (s->ai >= s->n) {
			shared_end(s, 1, NULL);
			return;
		}
		a = cur_agent(s);
		if (s->si >= a->nshared) {
			s->ai++;
			s->si = 0;
			continue;
		}
		cur_device(s, dev, sizeof(dev));
		if (!have(s, dev))
			break;
		s->si++;
	}
	e = &a->shared[s->si];
	memset(&q, 0, sizeof(q));
	if (strlcpy(q.key, s->conf->container_prefix, sizeof(q.key)) >=
	    sizeof(q.key))
		fatalx("container_prefix %s: too long",
		    s->conf->container_prefix);
	(void)strlcpy(q.subpath, e->subpath, sizeof(q.subpath));
	(void)strlcpy(q.type, strcmp(e->type, "link") == 0 ? "file" :
	    e->type, sizeof(q.type));
	(void)strlcpy(q.seed, e->seed, sizeof(q.seed));
	(void)snprintf(q.what, sizeof(q.what), "agents.%s.shared[%d]",
	    a->name, s->si);
	s->got_path = 0;
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_SHARED, &q, sizeof(q), -1,
	    shared_path, shared_made, s) == NULL)
		shared_end(s, 0, "cannot reach jb-mountd");
}

static void
shared_disk(struct req *r, struct imsg *imsg)
{
	struct ashared	*s = r->arg;
	struct jb_disk	 d;

	if (imsg_get_type(imsg) != IMSG_INCUS_DISK ||
	    imsg_get_data(imsg, &d, sizeof(d)) == -1)
		fatalx("jb-incus: malformed DISK");
	d.device[sizeof(d.device) - 1] = '\0';
	if (strncmp(d.device, MNT_AGENT_PREFIX, strlen(MNT_AGENT_PREFIX)) ==
	    0 && s->nhave < DEVS_MAX)
		(void)strlcpy(s->have[s->nhave++], d.device,
		    sizeof(s->have[0]));
}

static void
shared_listed(struct req *r, int ok, const char *err)
{
	struct ashared	*s = r->arg;

	if (!ok) {
		shared_end(s, 0, err);
		return;
	}
	shared_next(s);
}

void
agent_shared_apply(struct job *job, const char *name,
    const struct repoconf *conf, const size_t *agents, size_t n,
    agent_shared_cb cb, void *arg)
{
	struct ashared		*s;
	struct jb_incus_target	 t;
	size_t			 i;
	int			 any = 0;

	for (i = 0; i < n; i++)
		any |= conf->agents.v[agents[i]].nshared > 0;
	if (!any) {
		cb(job, 1, "", arg);
		return;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		cb(job, 0, "out of memory", arg);
		return;
	}
	s->job = job;
	(void)strlcpy(s->name, name, sizeof(s->name));
	s->conf = conf;
	s->n = n > RC_AGENTS_MAX ? RC_AGENTS_MAX : n;
	memcpy(s->agents, agents, s->n * sizeof(*agents));
	s->cb = cb;
	s->arg = arg;
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_DISK_LIST, &t, sizeof(t), -1,
	    shared_disk, shared_listed, s) == NULL)
		shared_end(s, 0, "cannot reach jb-incus");
}
