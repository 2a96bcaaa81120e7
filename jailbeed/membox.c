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
 * The cluster mailbox (libcommon/membox.h), both ends.  Asking: net
 * log, suggest or refresh of a container another member enforces leaves
 * a request in that member's configuration, looks for the answer when
 * Incus says that configuration changed and every ASK_POLL_MS, for up
 * to ASK_SECS, replays it to the user as if the
 * command had run here, and takes it out.  Answering: when Incus says
 * this member's configuration changed (at start, and every SWEEP_SECS
 * as well), each request in
 * it is carried out as a job of its own (job_start_member), whose
 * replies are written back as the answer in the same write that takes
 * the request out.  What the other suite wrote is read as untrusted
 * text (membox.c parses it); replayed, it goes through the same output
 * layer as a local reply.
 */

#include <sys/queue.h>
#include <sys/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event.h>

#include "cmdtab.h"
#include "jailbeed.h"
#include "log.h"
#include "membox.h"
#include "membox_run.h"

#define ASK_POLL_MS	300
#define ASK_SECS	60
#define ANSWER_RESERVE	512	/* kept for the note of what was left out */
#define ANSWERED_KEEP	120	/* seconds a request answered is remembered */
#define SWEEP_SECS	5	/* this member's mailbox is read at least this often */

/* a request this member made */
struct ask {
	LIST_ENTRY(ask)	 entry;
	struct job	*job;
	char		 member[64];
	char		 id[96];
	struct event	 poll;
	int		 polling;	/* poll set */
	int		 polls;
	int		 looking;	/* a read of the answer under way */
	char		*answer;	/* as read, or NULL */
};

/* a request to this member, being carried out */
struct answer {
	LIST_ENTRY(answer)	 entry;
	char			 key[MEMBOX_KEY_MAX];	/* the request's */
	char			 id[96];
	char			 name[JB_INSTANCE_MAX];
	time_t			 done;		/* answered at, or 0 */
	struct membox_out	 out;
};

static LIST_HEAD(, answer)	answering = LIST_HEAD_INITIALIZER(answering);
static LIST_HEAD(, ask)		asking = LIST_HEAD_INITIALIZER(asking);
static uint32_t			ask_seq;

static void	ask_look(int, short, void *);

/* -1 when jb-incus is out of reach: on_done is not called then */
static int
membox_send(uint32_t type, const char *member, const char *key,
    const char *value, const char *unset, req_msg_cb on_msg,
    req_done_cb on_done, void *arg)
{
	struct jb_membox	*m;
	struct req		*r;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(m->member, member, sizeof(m->member));
	(void)strlcpy(m->key, key, sizeof(m->key));
	(void)strlcpy(m->value, value, sizeof(m->value));
	(void)strlcpy(m->unset, unset, sizeof(m->unset));
	r = req_send(PROC_INCUS, type, m, sizeof(*m), -1, on_msg, on_done,
	    arg);
	free(m);
	return r == NULL ? -1 : 0;
}

/* one key of a mailbox read: the answer looked for */
static struct jb_membox *
kv_of(struct imsg *imsg)
{
	static struct jb_membox	kv;

	if (imsg_get_type(imsg) != IMSG_INCUS_MEMBOX_KV ||
	    imsg_get_data(imsg, &kv, sizeof(kv)) == -1)
		fatalx("jb-incus: malformed MEMBOX_KV");
	kv.key[sizeof(kv.key) - 1] = '\0';
	kv.value[sizeof(kv.value) - 1] = '\0';
	return &kv;
}

static void
ask_free(void *arg)
{
	struct ask	*a = arg;

	if (a->polling)
		evtimer_del(&a->poll);
	LIST_REMOVE(a, entry);
	free(a->answer);
	free(a);
}

/* the answer, replayed as the job's own replies */
static void
ask_replay(struct job *job, struct ask *a)
{
	struct membox_rec	*rec;
	char			 err[JB_CTL_TEXT_MAX] = "";
	size_t			 pos = 0;
	int			 rc, line = 0;

	if ((rec = malloc(sizeof(*rec))) == NULL)
		fatal("%s", __func__);
	while ((rc = membox_next(a->answer, &pos, rec)) == 1) {
		line++;
		switch (rec->type) {
		case IMSG_CTL_PROGRESS:
			job_progress(job, "%s", rec->u.text.text);
			break;
		case IMSG_CTL_ERROR:
			(void)strlcpy(err, rec->u.text.text, sizeof(err));
			break;
		case IMSG_CTL_END:
			free(rec);
			if (err[0] != '\0')
				job_end(job, 0, "%s", err);
			else
				job_end(job, 1, NULL);
			return;
		default:
			(void)job_reply(job, rec->type, &rec->u,
			    rec->type == IMSG_CTL_NET_BLOCK ?
			    sizeof(rec->u.block) : rec->type ==
			    IMSG_CTL_NET_RESOLVED ? sizeof(rec->u.resolved) :
			    sizeof(rec->u.output), -1);
			break;
		}
	}
	free(rec);
	job_end(job, 0, "cluster member %s answered with %s (record %d): "
	    "run the command there", a->member, rc == 0 ? "no end" :
	    "a malformed record", line + 1);
}

static void
ask_got(struct req *r, struct imsg *imsg)
{
	struct ask		*a = ((struct job *)r->arg)->state;
	struct jb_membox	*kv = kv_of(imsg);

	if (a->answer == NULL && (a->answer = strdup(kv->value)) == NULL)
		fatal("%s", __func__);
}

static void
ask_read(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct ask	*a = job->state;
	struct timeval	 tv = { 0, ASK_POLL_MS * 1000 };
	char		 key[MEMBOX_KEY_MAX];

	a->looking = 0;
	if (ok && a->answer != NULL) {
		(void)snprintf(key, sizeof(key), "%s%s", MEMBOX_ANSWER, a->id);
		(void)membox_send(IMSG_INCUS_MEMBOX_SET, a->member, "", "",
		    key, NULL, NULL, NULL);
		ask_replay(job, a);
		return;
	}
	if (++a->polls * ASK_POLL_MS >= ASK_SECS * 1000) {
		(void)snprintf(key, sizeof(key), "%s%s", MEMBOX_ASK, a->id);
		(void)membox_send(IMSG_INCUS_MEMBOX_SET, a->member, "", "",
		    key, NULL, NULL, NULL);
		job_end(job, 0, "cluster member %s did not answer within %d s "
		    "(is its suite running?)%s%s", a->member, ASK_SECS,
		    ok ? "" : ": ", ok ? "" : err);
		return;
	}
	evtimer_add(&a->poll, &tv);
}

static void
ask_look(int fd, short ev, void *arg)
{
	struct job	*job = arg;
	struct ask	*a = job->state;
	char		 key[MEMBOX_KEY_MAX];

	(void)snprintf(key, sizeof(key), "%s%s", MEMBOX_ANSWER, a->id);
	a->looking = 1;
	if (membox_send(IMSG_INCUS_MEMBOX_GET, a->member, key, "", "",
	    ask_got, ask_read, job) == -1)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
ask_left(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct ask	*a = job->state;
	struct timeval	 tv = { 0, ASK_POLL_MS * 1000 };

	if (!ok) {
		job_end(job, 0, "cannot ask cluster member %s: %s", a->member,
		    err);
		return;
	}
	evtimer_set(&a->poll, ask_look, job);
	a->polling = 1;
	evtimer_add(&a->poll, &tv);
}

void
membox_ask(struct job *job, const char *member, const char *name, int verb,
    const char *since)
{
	struct ask	*a;
	char		 key[MEMBOX_KEY_MAX], value[160];

	if ((a = calloc(1, sizeof(*a))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(a->member, member, sizeof(a->member));
	if (membox_id(a->id, sizeof(a->id), env->conf.cluster_member,
	    (int64_t)time(NULL), ++ask_seq) == -1 ||
	    membox_ask_format(value, sizeof(value), verb, name, since) == -1) {
		free(a);
		job_end(job, 0, "%s runs on cluster member %s: this request "
		    "cannot be put to it (run the command there)", name,
		    member);
		return;
	}
	a->job = job;
	LIST_INSERT_HEAD(&asking, a, entry);
	job->state = a;
	job->free_state = ask_free;
	(void)snprintf(key, sizeof(key), "%s%s", MEMBOX_ASK, a->id);
	job_progress(job, "%s runs on cluster member %s: asking its suite",
	    name, member);
	if (membox_send(IMSG_INCUS_MEMBOX_SET, member, key, value, "", NULL,
	    ask_left, job) == -1)
		job_end(job, 0, "cannot reach jb-incus");
}

/* the answer is written and the request taken out: done with it */
static void
answer_written(struct req *r, int ok, const char *err)
{
	struct answer	*an = r->arg;

	if (!ok)
		log_warnx("cluster mailbox: cannot answer %s: %s", an->id, err);
	/* kept a while: a read made before this write may still name it */
	an->done = time(NULL);
}

/* a reply of the job carried out for another member */
static void
answer_sink(void *arg, uint32_t type, const void *data, size_t len)
{
	struct answer		*an = arg;
	struct jb_ctl_text	 t;
	char			 key[MEMBOX_KEY_MAX];
	struct jb_membox	*m;

	if (type != IMSG_CTL_END) {
		(void)membox_put(&an->out, type, data, len, ANSWER_RESERVE);
		return;
	}
	if (an->out.dropped > 0) {
		memset(&t, 0, sizeof(t));
		(void)snprintf(t.text, sizeof(t.text), "%zu more line(s) left "
		    "out: an answer between cluster members holds %d bytes "
		    "(run the command on member %s for all of it)",
		    an->out.dropped, MEMBOX_VAL_MAX, env->conf.cluster_member);
		(void)membox_put(&an->out, IMSG_CTL_PROGRESS, &t, sizeof(t),
		    0);
	}
	(void)membox_put(&an->out, IMSG_CTL_END, NULL, 0, 0);
	(void)snprintf(key, sizeof(key), "%s%s", MEMBOX_ANSWER, an->id);
	if ((m = calloc(1, sizeof(*m))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(m->member, env->conf.cluster_member, sizeof(m->member));
	(void)strlcpy(m->key, key, sizeof(m->key));
	memcpy(m->value, an->out.buf, an->out.len + 1);
	(void)strlcpy(m->unset, an->key, sizeof(m->unset));
	if (req_send(PROC_INCUS, IMSG_INCUS_MEMBOX_SET, m, sizeof(*m), -1,
	    NULL, answer_written, an) == NULL) {
		log_warnx("cluster mailbox: cannot answer %s: jb-incus is "
		    "out of reach", an->id);
		LIST_REMOVE(an, entry);
		free(an);
	}
	free(m);
}

/* the option index of lname in command id's table row, or -1 */
static int
opt_index(enum cmd_id id, const char *lname)
{
	const struct cmd	*def = cmd_find(id);
	int			 k;

	for (k = 0; def != NULL && k < CMD_MAXOPTS &&
	    def->opts[k].lname != NULL; k++)
		if (strcmp(def->opts[k].lname, lname) == 0)
			return k;
	return -1;
}

/* one request found in this member's mailbox */
static void
answer_start(const struct jb_membox *kv)
{
	struct answer		*an, *tmp;
	struct jb_ctl_cmd	*cmd;
	char			 asker[64], since[MEMBOX_SINCE_MAX];
	const char		*id = kv->key + strlen(MEMBOX_ASK);
	int64_t			 t;
	int			 verb, k;

	LIST_FOREACH_SAFE(an, &answering, entry, tmp)
		if (an->done != 0 && an->done + ANSWERED_KEEP < time(NULL)) {
			LIST_REMOVE(an, entry);
			free(an);
		}
	LIST_FOREACH(an, &answering, entry)
		if (strcmp(an->key, kv->key) == 0)
			return;
	if ((an = calloc(1, sizeof(*an))) == NULL)
		fatal("%s", __func__);
	(void)strlcpy(an->key, kv->key, sizeof(an->key));
	(void)strlcpy(an->id, id, sizeof(an->id));
	LIST_INSERT_HEAD(&answering, an, entry);
	if (strncmp(kv->key, MEMBOX_ASK, strlen(MEMBOX_ASK)) != 0 ||
	    membox_id_parse(id, asker, sizeof(asker), &t) == -1 ||
	    strlen(id) >= sizeof(an->id) ||
	    membox_ask_parse(kv->value, &verb, an->name, sizeof(an->name),
	    since, sizeof(since)) == -1) {
		log_warnx("cluster mailbox: %s is not a request: taken out",
		    kv->key);
		if (membox_send(IMSG_INCUS_MEMBOX_SET,
		    env->conf.cluster_member, "", "", kv->key, NULL,
		    answer_written, an) == -1) {
			LIST_REMOVE(an, entry);
			free(an);
		}
		return;
	}
	if ((cmd = calloc(1, sizeof(*cmd))) == NULL)
		fatal("%s", __func__);
	cmd->id = verb == MEMBOX_LOG ? CMD_NET_LOG : verb == MEMBOX_SUGGEST ?
	    CMD_NET_SUGGEST : CMD_NET_REFRESH;
	cmd->nargs = 1;
	(void)strlcpy(cmd->argv, an->name, sizeof(cmd->argv));
	(void)strlcpy(cmd->cwd, "/", sizeof(cmd->cwd));
	if (since[0] != '\0' && (k = opt_index(cmd->id, "since")) != -1) {
		cmd->optset |= 1U << k;
		(void)strlcpy(cmd->opts[k], since, sizeof(cmd->opts[k]));
	}
	log_info("cluster mailbox: %s asks for net %s %s", asker,
	    verb == MEMBOX_LOG ? "log" : verb == MEMBOX_SUGGEST ? "suggest" :
	    "refresh", an->name);
	job_start_member(cmd, asker, answer_sink, an);
	free(cmd);
}

static void
requests_got(struct req *r, struct imsg *imsg)
{
	answer_start(kv_of(imsg));
}

static void
requests_read(struct req *r, int ok, const char *err)
{
	if (!ok)
		log_warnx("cluster mailbox: cannot read requests: %s", err);
}

static void
sweep_due(int fd, short ev, void *arg)
{
	membox_sweep();
}

/*
 * Read this member's mailbox for requests.  Incus's event says when a
 * request comes, but only once the member that wrote it forwards its
 * events here (Incus connects its members' event streams a while after
 * they join): so it is read again every SWEEP_SECS too, counted from
 * the last read.
 */
void
membox_sweep(void)
{
	static struct event	sweep;
	static int		sweep_set;
	struct timeval		tv = { SWEEP_SECS, 0 };

	if (env->conf.cluster_member[0] == '\0')
		return;
	if (!sweep_set) {
		evtimer_set(&sweep, sweep_due, NULL);
		sweep_set = 1;
	}
	evtimer_add(&sweep, &tv);
	if (membox_send(IMSG_INCUS_MEMBOX_GET, env->conf.cluster_member,
	    MEMBOX_ASK, "", "", requests_got, requests_read, NULL) == -1)
		log_warnx("cluster mailbox: jb-incus is out of reach");
}

void
membox_event(const char *member)
{
	struct ask	*a, *tmp;

	if (strcmp(member, env->conf.cluster_member) == 0) {
		membox_sweep();
		return;
	}
	/* an answer may have come: looked for now, not at the next poll */
	LIST_FOREACH_SAFE(a, &asking, entry, tmp)
		if (strcmp(a->member, member) == 0 && a->polling &&
		    !a->looking && a->answer == NULL) {
			evtimer_del(&a->poll);
			ask_look(-1, 0, a->job);
		}
}
