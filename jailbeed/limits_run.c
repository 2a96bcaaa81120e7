/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/time.h>

#include <event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrlimits.h"
#include "diskq.h"
#include "jobs.h"
#include "limits_run.h"
#include "log.h"

int
limits_pack(const struct repoconf *conf, const char *memory_opt,
    const char *cpu_opt, struct jb_limits *l, char *err, size_t len)
{
	int	count = conf->cpu, pct = conf->cpu_pct;

	memset(l, 0, sizeof(*l));
	if (memory_opt != NULL && (!lim_size_ok(memory_opt, 1) ||
	    strlen(memory_opt) >= sizeof(l->memory))) {
		(void)snprintf(err, len, "--memory %s: not a memory size (a "
		    "positive number with a unit such as 512MiB or 16GiB, or "
		    "1%% to 100%% of the host's)", memory_opt);
		return -1;
	}
	if (cpu_opt != NULL && lim_cpu_parse(cpu_opt, &count, &pct) == -1) {
		(void)snprintf(err, len, "--cpu %s: not a CPU count (1 to %d, "
		    "or 1%% to 100%% of the host's CPUs)", cpu_opt,
		    LIM_CPU_MAX);
		return -1;
	}
	(void)strlcpy(l->memory, memory_opt != NULL ? memory_opt :
	    conf->memory, sizeof(l->memory));
	if (count == 0)
		count = lim_cpu_share(pct, env->host_cpus);
	(void)snprintf(l->cpu, sizeof(l->cpu), "%d", count);
	if (conf->processes > 0)
		(void)snprintf(l->processes, sizeof(l->processes), "%d",
		    conf->processes);
	(void)strlcpy(l->disk, conf->disk, sizeof(l->disk));
	return 0;
}

void
limits_say(struct job *job, const char *name, const struct jb_limits *l)
{
	job_progress(job, "%s: limits: memory %s, cpu %s, processes %s, "
	    "disk %s", name, l->memory[0] ? l->memory : "none",
	    l->cpu[0] ? l->cpu : "none", l->processes[0] ? l->processes :
	    "none", l->disk[0] ? l->disk : "none");
}

struct limjob {
	struct job	 *job;
	void		(*done)(struct job *, int, const char *);
	char		  name[JB_INSTANCE_MAX];
};

/* --- whether the kernel holds the root disk's size --- */

void
limits_disk_state(const char *pool, struct jb_diskq *st)
{
	char	dir[PATH_MAX], path[PATH_MAX + 64];

	memset(st, 0, sizeof(*st));
	st->state = DISKQ_UNCHECKED;
	if (pool[0] == '\0' || strchr(pool, '/') != NULL ||
	    strcmp(pool, "..") == 0 || strcmp(pool, ".") == 0) {
		(void)strlcpy(st->text, "Incus names no storage pool for the "
		    "root disk: not checked", sizeof(st->text));
		return;
	}
	if (diskq_pools_dir(env->conf.incus_url, dir, sizeof(dir)) == -1) {
		(void)snprintf(st->text, sizeof(st->text), "Incus is reached "
		    "at %.200s, so its pool %s is not on this host: not checked",
		    env->conf.incus_url, pool);
		return;
	}
	if (snprintf(path, sizeof(path), "%s/%s", dir, pool) >=
	    (int)sizeof(path)) {
		(void)strlcpy(st->text, "the pool's path is too long: not "
		    "checked", sizeof(st->text));
		return;
	}
	diskq_read(path, st);
}

/*
 * The same for a container: on a cluster, the pool's files are those of
 * the member it is on, so one on another member is not checked here
 */
static void
limits_disk_here(const struct jb_limits *l, struct jb_diskq *st)
{
	if (env->conf.cluster_member[0] == '\0' || l->location[0] == '\0' ||
	    strcmp(l->location, env->conf.cluster_member) == 0) {
		limits_disk_state(l->pool, st);
		return;
	}
	memset(st, 0, sizeof(*st));
	st->state = DISKQ_UNCHECKED;
	(void)snprintf(st->text, sizeof(st->text), "its pool %s is on "
	    "cluster member %s: not checked here", l->pool, l->location);
}

/*
 * A pool found with its quota accounting inconsistent is read again
 * every DISK_LOOK_MS, DISK_LOOKS times, before the size is refused: the
 * flag stays up while a rescan runs (Incus may start one), and a
 * container made meanwhile would be refused for a moment's state.
 */
#define DISK_LOOKS	10
#define DISK_LOOK_MS	500

struct diskjob {
	struct job		 *job;
	void			(*done)(struct job *, int, const char *);
	struct jb_limits	  l;
	int			  have;
	int			  looks;
	struct event		  ev;
};

static void	disk_decide(struct diskjob *);

static void
disk_msg(struct req *r, struct imsg *imsg)
{
	struct diskjob	*dj = r->arg;

	if (imsg_get_type(imsg) != IMSG_INCUS_LIMITS ||
	    imsg_get_data(imsg, &dj->l, sizeof(dj->l)) == -1)
		fatalx("jb-incus: malformed LIMITS");
	dj->l.name[sizeof(dj->l.name) - 1] = '\0';
	dj->l.disk[sizeof(dj->l.disk) - 1] = '\0';
	dj->l.pool[sizeof(dj->l.pool) - 1] = '\0';
	dj->l.location[sizeof(dj->l.location) - 1] = '\0';
	dj->have = 1;
}

static void
disk_done(struct req *r, int ok, const char *err)
{
	struct diskjob	*dj = r->arg;
	struct job	*job = dj->job;
	void		(*done)(struct job *, int, const char *) = dj->done;

	if (!ok || !dj->have) {
		free(dj);
		done(job, 0, ok ? "jb-incus gave no limits" : err);
		return;
	}
	if (dj->l.disk[0] == '\0') {
		free(dj);
		done(job, 1, NULL);
		return;
	}
	disk_decide(dj);
}

static void
disk_look(int fd, short ev, void *arg)
{
	disk_decide(arg);
}

/* the pool's state now: the size holds, or is refused, or looked at again */
static void
disk_decide(struct diskjob *dj)
{
	struct job	*job = dj->job;
	void		(*done)(struct job *, int, const char *) = dj->done;
	struct jb_diskq	 st;
	char		 why[JB_ERR_TEXT_MAX];
	struct timeval	 tv = { 0, DISK_LOOK_MS * 1000 };

	limits_disk_here(&dj->l, &st);
	if (st.state == DISKQ_NOT_ENFORCED && strstr(st.text,
	    "inconsistent") != NULL && dj->looks++ < DISK_LOOKS) {
		evtimer_set(&dj->ev, disk_look, dj);
		evtimer_add(&dj->ev, &tv);
		return;
	}
	if (st.state == DISKQ_NOT_ENFORCED) {
		(void)snprintf(why, sizeof(why), "%s: the root disk's size %s "
		    "is not enforced on pool %s: %s", dj->l.name, dj->l.disk,
		    dj->l.pool, st.text);
		free(dj);
		done(job, 0, why);
		return;
	}
	job_progress(job, "%s: root disk %s %s: %s", dj->l.name, dj->l.disk,
	    st.state == DISKQ_ENFORCED ? "enforced" : "set", st.text);
	free(dj);
	done(job, 1, NULL);
}

void
limits_disk_check(struct job *job, const char *name,
    void (*done)(struct job *, int, const char *))
{
	struct diskjob		*dj;
	struct jb_incus_target	 t;

	if ((dj = calloc(1, sizeof(*dj))) == NULL) {
		done(job, 0, "out of memory");
		return;
	}
	dj->job = job;
	dj->done = done;
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIMITS_GET, &t, sizeof(t), -1,
	    disk_msg, disk_done, dj) == NULL) {
		free(dj);
		done(job, 0, "cannot reach jb-incus");
	}
}

static void
limits_set_done(struct req *r, int ok, const char *err)
{
	struct limjob	*lj = r->arg;
	struct job	*job = lj->job;
	void		(*done)(struct job *, int, const char *) = lj->done;
	char		 name[JB_INSTANCE_MAX];

	(void)strlcpy(name, lj->name, sizeof(name));
	free(lj);
	/* the size set, or one set before, must hold in the kernel */
	if (!ok)
		done(job, ok, err);
	else
		limits_disk_check(job, name, done);
}

void
limits_apply(struct job *job, const char *name, const struct repoconf *conf,
    void (*done)(struct job *, int, const char *))
{
	struct jb_limits	 l;
	struct limjob		*lj;
	char			 err[JB_ERR_TEXT_MAX];

	if (limits_pack(conf, NULL, NULL, &l, err, sizeof(err)) == -1) {
		done(job, 0, err);
		return;
	}
	(void)strlcpy(l.name, name, sizeof(l.name));
	if ((lj = calloc(1, sizeof(*lj))) == NULL) {
		done(job, 0, "out of memory");
		return;
	}
	lj->job = job;
	lj->done = done;
	(void)strlcpy(lj->name, name, sizeof(lj->name));
	limits_say(job, name, &l);
	if (req_send(PROC_INCUS, IMSG_INCUS_LIMITS_SET, &l, sizeof(l), -1,
	    NULL, limits_set_done, lj) == NULL) {
		free(lj);
		done(job, 0, "cannot reach jb-incus");
	}
}

/* --- jbctl info NAME: the limits in force, as Incus holds them --- */

struct infojob {
	struct repo_ctx		*ctx;
	char			 name[JB_INSTANCE_MAX];
	struct jb_limits	 l;
	int			 have;
};

static void
infojob_free(void *arg)
{
	struct infojob	*ij = arg;

	if (ij->ctx != NULL)
		repo_ctx_free(ij->ctx);
	free(ij);
}

static void
info_send(struct job *job, const char *text)
{
	struct jb_output	*o;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return;
	o->which = 1;
	o->len = strlen(text);
	if (o->len > sizeof(o->data))
		o->len = sizeof(o->data);
	memcpy(o->data, text, o->len);
	(void)job_reply(job, IMSG_CTL_OUTPUT, o, sizeof(*o), -1);
	free(o);
}

static void
info_msg(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct infojob	*ij = job->state;

	if (imsg_get_type(imsg) != IMSG_INCUS_LIMITS ||
	    imsg_get_data(imsg, &ij->l, sizeof(ij->l)) == -1)
		fatalx("jb-incus: malformed LIMITS");
	ij->l.memory[sizeof(ij->l.memory) - 1] = '\0';
	ij->l.cpu[sizeof(ij->l.cpu) - 1] = '\0';
	ij->l.processes[sizeof(ij->l.processes) - 1] = '\0';
	ij->l.disk[sizeof(ij->l.disk) - 1] = '\0';
	ij->l.pool[sizeof(ij->l.pool) - 1] = '\0';
	ij->l.state[sizeof(ij->l.state) - 1] = '\0';
	ij->l.location[sizeof(ij->l.location) - 1] = '\0';
	ij->have = 1;
}

#define NONE(s)	((s)[0] != '\0' ? (s) : "none")

static void
info_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct infojob	*ij = job->state;
	struct jb_diskq	 st;
	char		 text[2048];
	const char	*held;

	if (!ok || !ij->have) {
		job_end(job, 0, "%s", ok ? "jb-incus gave no limits" : err);
		return;
	}
	/* Incus's own words: no limit is "none", not a default of ours */
	(void)snprintf(text, sizeof(text),
	    "name: %s\nstate: %s\nlimits.memory: %s\nlimits.cpu: %s\n"
	    "limits.processes: %s\nroot disk size: %s%s%s%s\n", ij->name,
	    ij->l.state, NONE(ij->l.memory), NONE(ij->l.cpu),
	    NONE(ij->l.processes), NONE(ij->l.disk),
	    ij->l.pool[0] ? " (pool " : "", ij->l.pool,
	    ij->l.pool[0] ? ")" : "");
	/* whether the kernel holds it, as this host shows */
	if (ij->l.disk[0] != '\0') {
		limits_disk_here(&ij->l, &st);
		held = st.state == DISKQ_ENFORCED ? "enforced" :
		    st.state == DISKQ_NOT_ENFORCED ? "NOT enforced" :
		    "not checked";
		(void)snprintf(text + strlen(text), sizeof(text) -
		    strlen(text), "root disk limit: %s: %s\n", held, st.text);
	}
	info_send(job, text);
	job_end(job, 1, NULL);
}

static void
info_repo(struct job *job, struct repo_ctx *ctx)
{
	struct infojob		*ij;
	struct jb_incus_target	 t;

	if ((ij = calloc(1, sizeof(*ij))) == NULL) {
		if (ctx != NULL)
			repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	ij->ctx = ctx;
	job->state = ij;
	job->free_state = infojob_free;
	/* over SSH, the container the remote gate found, by its own name */
	if (job->remote_found)
		(void)strlcpy(ij->name, job->remote_in.name, sizeof(ij->name));
	else if (repo_container_name(ctx, job->args[0], ij->name,
	    sizeof(ij->name)) == -1) {
		job_end(job, 0, "%s: not a container name", job->args[0]);
		return;
	}
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, ij->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIMITS_GET, &t, sizeof(t), -1,
	    info_msg, info_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

void
cmd_info(struct job *job)
{
	repo_resolve_brief(job, 0, info_repo);
}
