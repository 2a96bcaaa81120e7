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
 * secrets: at new, each secret's file read by jb-mountd as the owner
 * (mode 0600 or tighter), the container's own CA certificate (made by
 * jb-egress, which alone holds its key) written into the container's
 * trust store, and the values handed to jb-egress, which puts them in
 * requests to the secrets' hosts in place of the placeholders.  The
 * values pass through here in memory only and are wiped once sent; they
 * are never written to the container, its config or a log.
 */

#include <sys/queue.h>

#include <limits.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "testhook.h"
#include "jailbeed.h"
#include "log.h"
#include "repoconf_github.h"
#include "secrets.h"

#define CA_FILE	"/usr/local/share/ca-certificates/jailbee-egress.crt"

const char *const secrets_tls_env[] = {
	"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
	"NODE_EXTRA_CA_CERTS=" CA_FILE,
	"REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt",
	"GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt",
	NULL
};

static const char ca_script[] =
    "set -e\n"
    "command -v update-ca-certificates > /dev/null || { echo \"the image "
    "has no update-ca-certificates (package ca-certificates)\" >&2; "
    "exit 1; }\n"
    "mkdir -p /usr/local/share/ca-certificates\n"
    "printf '%s\\n' \"$JB_CA_PEM\" > " CA_FILE ".new\n"
    "chmod 0644 " CA_FILE ".new\n"
    "mv -f " CA_FILE ".new " CA_FILE "\n"
    "update-ca-certificates > /dev/null\n";

struct secjob {
	struct job		*job;
	const struct repoconf	*conf;
	char			 name[JB_INSTANCE_MAX];
	char			 ipv4[16];
	char			 ph[RC_SECRETS_MAX][RC_PLACEHOLDER_LEN + 1];
	char			 val[RC_SECRETS_MAX][JB_SECRET_VALUE_MAX + 1];
	int			 i;
	int			 got;
	char			 pem[4096];
	secrets_next		 next;
	LIST_ENTRY(secjob)	 entry;
};

/* the injections under way: a capture's end finds its own by job */
static LIST_HEAD(, secjob)	secjobs = LIST_HEAD_INITIALIZER(secjobs);

static void	read_one(struct secjob *);
static void	ca_get(struct secjob *);

static void
end(struct secjob *sj, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
end(struct secjob *sj, int ok, const char *fmt, ...)
{
	char		 err[JB_ERR_TEXT_MAX];
	struct job	*job = sj->job;
	secrets_next	 next = sj->next;
	va_list		 ap;

	LIST_REMOVE(sj, entry);
	err[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		(void)vsnprintf(err, sizeof(err), fmt, ap);
		va_end(ap);
	}
	explicit_bzero(sj, sizeof(*sj));
	free(sj);
	next(job, ok, err);
}

/*
 * The container's secrets to jb-egress as one snapshot: conf's secrets
 * idx[0..n), their values val[] and placeholders ph[] in that order;
 * none at all is a part without a name.
 */
static void
push_parts(const char *ctr, const char *ipv4, const struct repoconf *conf,
    const int *idx, int n, char ph[][RC_PLACEHOLDER_LEN + 1],
    char val[][JB_SECRET_VALUE_MAX + 1])
{
	struct jb_egress_secret	*p;
	const struct rc_secret	*s;
	size_t			 off;
	int			 i, j;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("%s", __func__);
	if (n == 0) {
		p->flags = JB_EGRESS_BEGIN | JB_EGRESS_END;
		(void)strlcpy(p->ctr, ctr, sizeof(p->ctr));
		(void)strlcpy(p->ipv4, ipv4, sizeof(p->ipv4));
		if (imsgev_compose(&children[PROC_EGRESS].iev,
		    IMSG_EGRESS_SECRET, 0, 0, -1, p, sizeof(*p)) == -1)
			fatal("compose");
	}
	for (i = 0; i < n; i++) {
		s = &conf->secrets[idx[i]];
		memset(p, 0, sizeof(*p));
		p->flags = (i == 0 ? JB_EGRESS_BEGIN : 0) |
		    (i == n - 1 ? JB_EGRESS_END : 0);
		(void)strlcpy(p->ctr, ctr, sizeof(p->ctr));
		(void)strlcpy(p->ipv4, ipv4, sizeof(p->ipv4));
		(void)strlcpy(p->name, s->name, sizeof(p->name));
		(void)strlcpy(p->placeholder, ph[i], sizeof(p->placeholder));
		(void)strlcpy(p->value, val[i], sizeof(p->value));
		(void)strlcpy(p->header, s->header, sizeof(p->header));
		for (j = 0, off = 0; j < s->nhosts &&
		    j < JB_EGRESS_SECRET_HOSTS; j++) {
			(void)strlcpy(p->hosts + off, s->hosts[j],
			    sizeof(p->hosts) - off);
			off += strlen(s->hosts[j]) + 1;
		}
		p->nhosts = (uint32_t)j;
		if (imsgev_compose(&children[PROC_EGRESS].iev,
		    IMSG_EGRESS_SECRET, 0, 0, -1, p, sizeof(*p)) == -1)
			fatal("compose");
	}
	explicit_bzero(p, sizeof(*p));
	free(p);
}

static void	track(const struct secjob *);

static void
push(struct secjob *sj)
{
	int	idx[RC_SECRETS_MAX], i;

	for (i = 0; i < sj->conf->nsecrets; i++) {
		idx[i] = i;
		job_progress(sj->job, "secrets.%s: put in by the egress "
		    "gateway for %s%s (the container holds %s)",
		    sj->conf->secrets[i].name, sj->conf->secrets[i].hosts[0],
		    sj->conf->secrets[i].nhosts > 1 ? " and others" : "",
		    sj->ph[i]);
	}
	push_parts(sj->name, sj->ipv4, sj->conf, idx, sj->conf->nsecrets,
	    sj->ph, sj->val);
	track(sj);
	end(sj, 1, NULL);
}

static void
installed(struct job *job, struct capture_result *res)
{
	struct secjob	*sj;

	LIST_FOREACH(sj, &secjobs, entry)
		if (sj->job == job)
			break;
	if (sj == NULL)
		fatalx("secrets: a capture's end without its injection");

	if (!res->ok || res->status != 0) {
		end(sj, 0, "secrets: the gateway's CA could not be put in the "
		    "container's trust store: %.300s", res->ok ? res->err :
		    res->error);
		return;
	}
	job_progress(job, "secrets: the container's own CA is in its trust "
	    "store (" CA_FILE ")");
	push(sj);
}

static void
ca_msg(struct req *r, struct imsg *imsg)
{
	struct secjob		*sj = r->arg;
	struct jb_egress_ca	 ca;

	if (imsg_get_type(imsg) != IMSG_EGRESS_CA ||
	    imsg_get_data(imsg, &ca, sizeof(ca)) == -1)
		fatalx("jb-egress: malformed EGRESS_CA");
	(void)strlcpy(sj->pem, ca.pem, sizeof(sj->pem));
}

static void
ca_done(struct req *r, int ok, const char *err)
{
	struct secjob	*sj = r->arg;
	char		 pem[sizeof(sj->pem) + 16];
	const char	*argv[] = { "/bin/sh", "-c", ca_script, "jailbee-ca",
			    NULL };
	const char	*envp[] = { pem, NULL };

	if (!ok || strncmp(sj->pem, "-----BEGIN CERTIFICATE-----", 27) != 0) {
		end(sj, 0, "secrets: the egress gateway gave no CA for %s: %s",
		    sj->name, ok ? "not a certificate" : err);
		return;
	}
	(void)snprintf(pem, sizeof(pem), "JB_CA_PEM=%s", sj->pem);
	if (capture_run(sj->job, sj->name, 0, 0, "/", argv, envp,
	    installed) == -1)
		end(sj, 0, "cannot reach jb-incus");
	explicit_bzero(pem, sizeof(pem));
}

static void
ca_get(struct secjob *sj)
{
	struct jb_egress_ca	q;

	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.ctr, sj->name, sizeof(q.ctr));
	if (req_send(PROC_EGRESS, IMSG_EGRESS_CA_GET, &q, sizeof(q), -1,
	    ca_msg, ca_done, sj) == NULL)
		end(sj, 0, "cannot reach jb-egress");
}

static void
value_msg(struct req *r, struct imsg *imsg)
{
	struct secjob		*sj = r->arg;
	struct jb_secret_value	 v;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_SECRET_VALUE ||
	    imsg_get_data(imsg, &v, sizeof(v)) == -1)
		fatalx("jb-mountd: malformed SECRET_VALUE");
	(void)strlcpy(sj->val[sj->i], v.value, sizeof(sj->val[sj->i]));
	sj->got = 1;
	explicit_bzero(&v, sizeof(v));
}

static void
value_done(struct req *r, int ok, const char *err)
{
	struct secjob	*sj = r->arg;

	if (!ok || !sj->got) {
		end(sj, 0, "secrets.%s: %s", sj->conf->secrets[sj->i].name,
		    ok ? "jb-mountd gave no value" : err);
		return;
	}
	sj->i++;
	if (sj->i < sj->conf->nsecrets)
		read_one(sj);
	else
		ca_get(sj);
}

static void
read_one(struct secjob *sj)
{
	struct jb_secret_ask	q;

	/* github.token: no file, the configuration holds the value */
	while (sj->conf->secrets[sj->i].file[0] == '\0') {
		(void)strlcpy(sj->val[sj->i], sj->conf->github_token,
		    sizeof(sj->val[sj->i]));
		if (++sj->i >= sj->conf->nsecrets) {
			ca_get(sj);
			return;
		}
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.path, sj->conf->secrets[sj->i].file, sizeof(q.path));
	sj->got = 0;
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_SECRET, &q, sizeof(q), -1,
	    value_msg, value_done, sj) == NULL)
		end(sj, 0, "cannot reach jb-mountd");
}

int
secrets_inject(struct job *job, const struct repoconf *conf,
    const char *name, const char *ipv4, char ph[][RC_PLACEHOLDER_LEN + 1],
    secrets_next next)
{
	struct secjob	*sj;
	int		 i;

	if (conf->nsecrets == 0)
		return 1;
	if ((sj = calloc(1, sizeof(*sj))) == NULL) {
		next(job, 0, "out of memory");
		return 0;
	}
	sj->job = job;
	LIST_INSERT_HEAD(&secjobs, sj, entry);
	sj->conf = conf;
	sj->next = next;
	(void)strlcpy(sj->name, name, sizeof(sj->name));
	(void)strlcpy(sj->ipv4, ipv4, sizeof(sj->ipv4));
	for (i = 0; i < conf->nsecrets; i++)
		(void)strlcpy(sj->ph[i], ph[i], sizeof(sj->ph[i]));
	read_one(sj);
	return 0;
}

/*
 * Rotation and revocation: before each connection of a container to one
 * of its secrets' hosts is terminated (secrets_fresh below), and besides
 * every SECRETS_POLL_SECS (which also brings back a secret whose file
 * could not be read, whose host the gateway then no longer knows), the
 * files of each
 * container's repo that new wrote (global.yaml and the host-local file,
 * the paths new read) and each secret's file are read again, and the
 * container's secrets handed to jb-egress anew: a changed file is in
 * force for the connections after that, a removed entry (or a file that
 * no longer passes the 0600 rule) is no longer put in, a secret added
 * after new is not (the container has no placeholder for it).  A
 * configuration that no longer loads drops every secret of the
 * container (fail closed) and says so in the log.
 */
#define SECRETS_POLL_SECS	jb_test_secs(2, 1)
#define TRACKED_MAX		256
#define ASKS_MAX		64

struct tracked {
	LIST_ENTRY(tracked)	 entry;
	char			 ctr[JB_INSTANCE_MAX];
	char			 ipv4[16];
	char			 global[PATH_MAX];
	char			 local[PATH_MAX];
	/* the repo's prefix when github.token is one of them, else "" */
	char			 ghprefix[NAME_PREFIX_MAX + 1];
	char			 names[RC_SECRETS_MAX][RC_SECRET_NAME_MAX + 1];
	char			 ph[RC_SECRETS_MAX][RC_PLACEHOLDER_LEN + 1];
	int			 n;
	char			 said[JB_ERR_TEXT_MAX];	/* last warning */
	int			 resume;	/* CA to put in again */
	int			 urgent;	/* refresh before the others */
	struct job		*waiter;	/* start, until they are in */
	secrets_resumed		 wnext;
	/* jb-egress's connections waiting for the next refresh */
	uint32_t		 asks[ASKS_MAX];
	int			 nasks;
};

static LIST_HEAD(, tracked)	tracked = LIST_HEAD_INITIALIZER(tracked);
static size_t			ntracked;
static struct event		poll_ev;
static int			poll_set;

/* the refresh under way: one container at a time */
struct refresh {
	struct tracked		*t;
	struct repoconf		*conf;
	int			 idx[RC_SECRETS_MAX];
	char			 ph[RC_SECRETS_MAX][RC_PLACEHOLDER_LEN + 1];
	char			 val[RC_SECRETS_MAX][JB_SECRET_VALUE_MAX + 1];
	int			 n;		/* secrets to read */
	int			 i;
	int			 keep;		/* of them, read well */
	int			 got;
	char			 warn[JB_ERR_TEXT_MAX];
	int			 urgent;	/* the resume's round */
	uint32_t		 asks[ASKS_MAX];/* answered once pushed */
	int			 nasks;
};
static struct refresh	*cur;

static void	refresh_next(struct tracked *);

static void
fresh_answer(const char *ctr, uint32_t id)
{
	struct jb_egress_fresh	f;

	memset(&f, 0, sizeof(f));
	(void)strlcpy(f.ctr, ctr, sizeof(f.ctr));
	f.id = id;
	if (imsgev_compose(&children[PROC_EGRESS].iev, IMSG_EGRESS_FRESH, 0,
	    0, -1, &f, sizeof(f)) == -1)
		fatal("compose");
}

/* the start waiting on t's secrets goes on; why when they are not in */
static void
waiter_end(struct tracked *t, const char *why)
{
	struct job	*job = t->waiter;
	secrets_resumed	 next = t->wnext;

	t->waiter = NULL;
	t->wnext = NULL;
	if (job != NULL)
		next(job, why);
}

static void
poll_fire(int fd, short ev, void *arg)
{
	refresh_next(NULL);
}

static void
poll_arm(void)
{
	struct timeval	tv = { SECRETS_POLL_SECS, 0 };

	if (!poll_set) {
		evtimer_set(&poll_ev, poll_fire, NULL);
		poll_set = 1;
	}
	evtimer_add(&poll_ev, &tv);
}

static void
track(const struct secjob *sj)
{
	struct tracked	*t;
	int		 i;

	LIST_FOREACH(t, &tracked, entry)
		if (strcmp(t->ctr, sj->name) == 0)
			break;
	if (t == NULL) {
		if (ntracked >= TRACKED_MAX ||
		    (t = calloc(1, sizeof(*t))) == NULL) {
			log_warnx("secrets: %s: not watched for changes (too "
			    "many containers)", sj->name);
			return;
		}
		LIST_INSERT_HEAD(&tracked, t, entry);
		ntracked++;
	}
	(void)strlcpy(t->ctr, sj->name, sizeof(t->ctr));
	(void)strlcpy(t->ipv4, sj->ipv4, sizeof(t->ipv4));
	(void)strlcpy(t->global, sj->conf->paths.global, sizeof(t->global));
	(void)strlcpy(t->local, sj->conf->paths.local, sizeof(t->local));
	t->ghprefix[0] = '\0';
	for (i = 0; i < sj->conf->nsecrets; i++) {
		if (sj->conf->secrets[i].file[0] == '\0')
			(void)strlcpy(t->ghprefix, sj->conf->container_prefix,
			    sizeof(t->ghprefix));
		(void)strlcpy(t->names[i], sj->conf->secrets[i].name,
		    sizeof(t->names[i]));
		(void)strlcpy(t->ph[i], sj->ph[i], sizeof(t->ph[i]));
	}
	t->n = sj->conf->nsecrets;
	t->said[0] = '\0';
	poll_arm();
}

/* the warning of this round, logged when it differs from the last */
static void
refresh_done(void)
{
	struct refresh	*r = cur;
	struct tracked	*t = r->t, *next, *u;
	int		 i, idx[RC_SECRETS_MAX], n = 0;

	/* the ones read well, in the order read */
	for (i = 0; i < r->n; i++)
		if (r->val[i][0] != '\0') {
			idx[n] = r->idx[i];
			if (n != i) {
				memcpy(r->ph[n], r->ph[i], sizeof(r->ph[n]));
				memcpy(r->val[n], r->val[i], sizeof(r->val[n]));
			}
			n++;
		}
	push_parts(t->ctr, t->ipv4, r->conf, idx, n, r->ph, r->val);
	if (strcmp(r->warn, t->said) != 0) {
		if (r->warn[0] != '\0')
			log_warnx("secrets: %s: %s", t->ctr, r->warn);
		(void)strlcpy(t->said, r->warn, sizeof(t->said));
	}
	/* after the parts, on the same channel: they hold when it comes */
	for (i = 0; i < r->nasks; i++)
		fresh_answer(t->ctr, r->asks[i]);
	if (r->urgent && t->waiter != NULL)
		waiter_end(t, NULL);
	next = LIST_NEXT(t, entry);
	LIST_FOREACH(u, &tracked, entry)
		if (u->urgent || u->nasks > 0) {
			next = u;
			break;
		}
	repoconf_free(r->conf);
	free(r->conf);
	explicit_bzero(r, sizeof(*r));
	free(r);
	cur = NULL;
	if (next != NULL)
		refresh_next(next);
	else
		poll_arm();
}

static void	refresh_read(void);

static void
refresh_value(struct req *q, struct imsg *imsg)
{
	struct jb_secret_value	v;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_SECRET_VALUE ||
	    imsg_get_data(imsg, &v, sizeof(v)) == -1)
		fatalx("jb-mountd: malformed SECRET_VALUE");
	(void)strlcpy(cur->val[cur->i], v.value, sizeof(cur->val[cur->i]));
	explicit_bzero(&v, sizeof(v));
}

static void
refresh_value_done(struct req *q, int ok, const char *err)
{
	if (!ok) {
		cur->val[cur->i][0] = '\0';
		(void)snprintf(cur->warn, sizeof(cur->warn), "secrets.%s: "
		    "%.800s: not put in until it can be read",
		    cur->conf->secrets[cur->idx[cur->i]].name, err);
	}
	cur->i++;
	refresh_read();
}

static void
refresh_read(void)
{
	struct jb_secret_ask	q;

	/* github.token: no file, the configuration read again holds it */
	while (cur->i < cur->n &&
	    cur->conf->secrets[cur->idx[cur->i]].file[0] == '\0') {
		(void)strlcpy(cur->val[cur->i], cur->conf->github_token,
		    sizeof(cur->val[cur->i]));
		cur->i++;
	}
	if (cur->i >= cur->n) {
		refresh_done();
		return;
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.path, cur->conf->secrets[cur->idx[cur->i]].file,
	    sizeof(q.path));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_SECRET, &q, sizeof(q), -1,
	    refresh_value, refresh_value_done, NULL) == NULL) {
		cur->n = cur->i;
		refresh_done();
	}
}

static void
refresh_next(struct tracked *t)
{
	struct refresh	*r;
	char		 err[JB_ERR_TEXT_MAX];
	int		 i, j;

	if (cur != NULL)
		return;
	if (t == NULL && (t = LIST_FIRST(&tracked)) == NULL)
		return;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->conf = malloc(sizeof(*r->conf))) == NULL) {
		free(r);
		poll_arm();
		return;
	}
	cur = r;
	r->t = t;
	/* what was asked before this round began is answered by it */
	r->urgent = t->urgent;
	t->urgent = 0;
	memcpy(r->asks, t->asks, sizeof(r->asks));
	r->nasks = t->nasks;
	t->nasks = 0;
	repoconf_init(r->conf);
	(void)strlcpy(r->conf->paths.global, t->global,
	    sizeof(r->conf->paths.global));
	(void)strlcpy(r->conf->paths.local, t->local,
	    sizeof(r->conf->paths.local));
	if (repoconf_load_layer(RC_LAYER_GLOBAL, t->global, r->conf, err,
	    sizeof(err)) == -1 || repoconf_load_layer(RC_LAYER_LOCAL,
	    t->local, r->conf, err, sizeof(err)) == -1) {
		/* fail closed: none put in until it loads again */
		(void)snprintf(r->warn, sizeof(r->warn), "%.900s: no secret "
		    "is put in until it loads", err);
		r->n = 0;
		refresh_done();
		return;
	}
	/* github.token in force for the container's prefix, if given */
	(void)strlcpy(r->conf->container_prefix, t->ghprefix,
	    sizeof(r->conf->container_prefix));
	rc_github_finish(r->conf);
	if (t->ghprefix[0] != '\0' &&
	    github_secret_add(r->conf, err, sizeof(err)) == -1)
		(void)snprintf(r->warn, sizeof(r->warn), "%.900s", err);
	/* the secrets still declared that the container has a placeholder of */
	for (i = 0; i < r->conf->nsecrets; i++)
		for (j = 0; j < t->n; j++)
			if (strcmp(r->conf->secrets[i].name, t->names[j]) == 0) {
				r->idx[r->n] = i;
				(void)strlcpy(r->ph[r->n], t->ph[j],
				    sizeof(r->ph[r->n]));
				r->n++;
				break;
			}
	refresh_read();
}

/*
 * The instance's record of its secrets (user.jailbee.secrets): the
 * global and host-local config paths new read, then NAME=PLACEHOLDER,
 * one a line, and after github.token's the line github.prefix=PREFIX.
 * Nothing in it is secret.  -1 and why when it does not fit.
 */
#define GH_PREFIX_KEY	"github.prefix"
int
secrets_state(const struct repoconf *conf, char ph[][RC_PLACEHOLDER_LEN + 1],
    char *buf, size_t len, char *err, size_t errlen)
{
	size_t	off;
	int	i, l;

	buf[0] = '\0';
	if (conf->nsecrets == 0)
		return 0;
	if (strchr(conf->paths.global, '\n') != NULL ||
	    strchr(conf->paths.local, '\n') != NULL) {
		(void)snprintf(err, errlen, "secrets: a config path holds a "
		    "newline (%s, %s): rename it", conf->paths.global,
		    conf->paths.local);
		return -1;
	}
	l = snprintf(buf, len, "%s\n%s\n", conf->paths.global,
	    conf->paths.local);
	if (l < 0 || (size_t)l >= len)
		goto toolong;
	off = (size_t)l;
	for (i = 0; i < conf->nsecrets; i++) {
		l = snprintf(buf + off, len - off, "%s=%s\n",
		    conf->secrets[i].name, ph[i]);
		if (l < 0 || (size_t)l >= len - off)
			goto toolong;
		off += (size_t)l;
		/* github.token's: the prefix its legacy token is found by */
		if (conf->secrets[i].file[0] != '\0')
			continue;
		l = snprintf(buf + off, len - off, GH_PREFIX_KEY "=%s\n",
		    conf->container_prefix);
		if (l < 0 || (size_t)l >= len - off)
			goto toolong;
		off += (size_t)l;
	}
	return 0;
 toolong:
	buf[0] = '\0';
	(void)snprintf(err, errlen, "secrets: the config paths and secret "
	    "names do not fit in %zu bytes of the instance's config: use "
	    "fewer secrets or shorter paths", len);
	return -1;
}

/* one line of s at *pos into dst; -1 at the end or when too long */
static int
state_line(const char *s, size_t *pos, char *dst, size_t dstlen)
{
	const char	*nl;
	size_t		 l;

	if (s[*pos] == '\0' || (nl = strchr(s + *pos, '\n')) == NULL)
		return -1;
	l = (size_t)(nl - (s + *pos));
	if (l >= dstlen)
		return -1;
	memcpy(dst, s + *pos, l);
	dst[l] = '\0';
	*pos += l + 1;
	return 0;
}

/*
 * After the suite starts and after start: a container's secrets come
 * back from its record, one container at a time.  jb-egress made a new
 * CA when it started (its key was only ever in that process's memory),
 * so the container's trust store gets the new certificate first; then
 * the files are read again as the owner and the values, with the
 * recorded placeholders, handed to jb-egress.
 */
static struct tracked	*resuming;
static char		 resume_pem[4096];

static void	resume_next(void);

static void
resume_end(const char *why)
{
	struct tracked	*t = resuming;

	resuming = NULL;
	explicit_bzero(resume_pem, sizeof(resume_pem));
	if (t != NULL) {
		t->resume = 0;
		if (why != NULL) {
			log_warnx("secrets: %s: %s", t->ctr, why);
			waiter_end(t, why);
		} else {
			log_info("secrets: %s: its CA is in its trust store "
			    "again and its secrets handed to the gateway",
			    t->ctr);
			t->urgent = 1;
			if (cur == NULL)
				refresh_next(t);
		}
	}
	resume_next();
}

static void
resume_installed(struct job *job, struct capture_result *res)
{
	char	why[JB_ERR_TEXT_MAX];

	if (!res->ok || res->status != 0) {
		(void)snprintf(why, sizeof(why), "the gateway's CA could not "
		    "be put in the container's trust store: %.300s; its "
		    "secrets are not put in", res->ok ? res->err : res->error);
		resume_end(why);
		return;
	}
	resume_end(NULL);
}

static void
resume_ca_msg(struct req *r, struct imsg *imsg)
{
	struct jb_egress_ca	ca;

	if (imsg_get_type(imsg) != IMSG_EGRESS_CA ||
	    imsg_get_data(imsg, &ca, sizeof(ca)) == -1)
		fatalx("jb-egress: malformed EGRESS_CA");
	(void)strlcpy(resume_pem, ca.pem, sizeof(resume_pem));
}

static void
resume_ca_done(struct req *r, int ok, const char *err)
{
	char		 pem[sizeof(resume_pem) + 16];
	const char	*argv[] = { "/bin/sh", "-c", ca_script, "jailbee-ca",
			    NULL };
	const char	*envp[] = { pem, NULL };

	if (!ok || strncmp(resume_pem, "-----BEGIN CERTIFICATE-----",
	    27) != 0) {
		resume_end("the egress gateway gave no CA; its secrets are "
		    "not put in");
		return;
	}
	(void)snprintf(pem, sizeof(pem), "JB_CA_PEM=%s", resume_pem);
	if (capture_run(NULL, resuming->ctr, 0, 0, "/", argv, envp,
	    resume_installed) == -1)
		resume_end("cannot reach jb-incus");
	explicit_bzero(pem, sizeof(pem));
}

static void
resume_next(void)
{
	struct jb_egress_ca	q;
	struct tracked		*t;

	if (resuming != NULL)
		return;
	LIST_FOREACH(t, &tracked, entry)
		if (t->resume)
			break;
	if (t == NULL)
		return;
	resuming = t;
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.ctr, t->ctr, sizeof(q.ctr));
	if (req_send(PROC_EGRESS, IMSG_EGRESS_CA_GET, &q, sizeof(q), -1,
	    resume_ca_msg, resume_ca_done, NULL) == NULL)
		resume_end("cannot reach jb-egress");
}

struct resumeq {
	struct job	*job;
	secrets_resumed	 next;
	int		 waiting;	/* a container took the job */
};

static int
resume_one(const struct jb_instance *ji, struct resumeq *rq)
{
	struct tracked	*t;
	char		 line[PATH_MAX], *eq;
	size_t		 pos = 0;
	int		 n = 0;

	if (ji->secrets[0] == '\0' || strcmp(ji->state, "Running") != 0)
		return 0;
	LIST_FOREACH(t, &tracked, entry)
		if (strcmp(t->ctr, ji->name) == 0)
			break;
	if (t == NULL) {
		if (ntracked >= TRACKED_MAX ||
		    (t = calloc(1, sizeof(*t))) == NULL) {
			log_warnx("secrets: %s: its secrets are not put in "
			    "(too many containers)", ji->name);
			return 0;
		}
		LIST_INSERT_HEAD(&tracked, t, entry);
		ntracked++;
	}
	/* an earlier start still waiting goes on without them */
	waiter_end(t, "its secrets are being put in again by a later start");
	(void)strlcpy(t->ctr, ji->name, sizeof(t->ctr));
	(void)strlcpy(t->ipv4, ji->ipv4, sizeof(t->ipv4));
	t->ghprefix[0] = '\0';
	if (state_line(ji->secrets, &pos, t->global, sizeof(t->global)) ==
	    -1 || state_line(ji->secrets, &pos, t->local, sizeof(t->local)) ==
	    -1)
		goto bad;
	while (n < RC_SECRETS_MAX &&
	    state_line(ji->secrets, &pos, line, sizeof(line)) == 0) {
		if ((eq = strchr(line, '=')) == NULL)
			goto bad;
		*eq = '\0';
		if (strcmp(line, GH_PREFIX_KEY) == 0) {
			if (strlcpy(t->ghprefix, eq + 1, sizeof(t->ghprefix)) >=
			    sizeof(t->ghprefix))
				goto bad;
			continue;
		}
		if (strlcpy(t->names[n], line, sizeof(t->names[n])) >=
		    sizeof(t->names[n]) || strlcpy(t->ph[n], eq + 1,
		    sizeof(t->ph[n])) >= sizeof(t->ph[n]))
			goto bad;
		n++;
	}
	t->n = n;
	t->said[0] = '\0';
	t->resume = 1;
	if (rq != NULL && rq->job != NULL) {
		t->waiter = rq->job;
		t->wnext = rq->next;
		rq->waiting = 1;
	}
	poll_arm();
	resume_next();
	return 0;
 bad:
	/* fail closed: a record that does not read puts nothing in */
	t->n = 0;
	log_warnx("secrets: %s: user.jailbee.secrets does not read; its "
	    "secrets are not put in (make the container again)", ji->name);
	return 0;
}

static void
resume_msg(struct req *r, struct imsg *imsg)
{
	struct jb_instance	ji;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &ji, sizeof(ji)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	(void)resume_one(&ji, r->arg);
}

static void
resume_done(struct req *r, int ok, const char *err)
{
	struct resumeq	*rq = r->arg;
	char		 why[JB_ERR_TEXT_MAX];

	if (!ok) {
		(void)snprintf(why, sizeof(why), "the containers cannot be "
		    "listed, so no secret is put in again: %.800s", err);
		log_warnx("secrets: %s", why);
	}
	if (rq->job != NULL && !rq->waiting)
		rq->next(rq->job, ok ? NULL : why);
	free(rq);
}

void
secrets_resume(const char *name, struct job *job, secrets_resumed next)
{
	struct jb_incus_target	 t;
	struct resumeq		*rq;

	if ((rq = calloc(1, sizeof(*rq))) == NULL)
		fatal("%s", __func__);
	rq->job = job;
	rq->next = next;
	memset(&t, 0, sizeof(t));
	if (name != NULL)
		(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    resume_msg, resume_done, rq) == NULL) {
		free(rq);
		log_warnx("secrets: cannot reach jb-incus; no secret is put "
		    "in again");
		if (job != NULL)
			next(job, "cannot reach jb-incus");
	}
}

/*
 * A connection of ctr to one of its secrets' hosts waits in jb-egress
 * until the container's configuration and secret files are read again
 * and handed over: a changed file is in force from that connection on,
 * a removed entry is not put in.  A container the parent does not know
 * has nothing to read again: answered at once.
 */
int
secrets_fresh(struct imsg *imsg)
{
	struct jb_egress_fresh	 f;
	struct tracked		*t;

	if (imsg_get_data(imsg, &f, sizeof(f)) == -1 ||
	    memchr(f.ctr, '\0', sizeof(f.ctr)) == NULL)
		return -1;
	LIST_FOREACH(t, &tracked, entry)
		if (strcmp(t->ctr, f.ctr) == 0)
			break;
	if (t == NULL) {
		fresh_answer(f.ctr, f.id);
		return 0;
	}
	/* too many waiting: this one times out in the gateway, refused */
	if (t->nasks >= ASKS_MAX) {
		log_warnx("secrets: %s: too many connections waiting for its "
		    "secrets to be read again", t->ctr);
		return 0;
	}
	t->asks[t->nasks++] = f.id;
	if (cur == NULL)
		refresh_next(t);
	return 0;
}
