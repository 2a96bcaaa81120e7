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
 * The audit journal: one JSON line per decision of the suite (network
 * changes and their reverts, refused-DNS summaries, mounts, port
 * forwards, container lifecycle, SSH), one schema (auditrec.h), in
 * state_dir/audit/audit.jsonl, rotated by size; jbctl audit reads it
 * back.
 */

#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auditrec.h"
#include "cmdtab.h"
#include "duration.h"
#include "jailbeed.h"
#include "output.h"
#include "jobs.h"
#include "log.h"

#define AUDIT_CHUNK	65536	/* audit reads the journal so much at a time */

/*
 * The journal lives in a directory of its own, state_dir/audit: the
 * owner's, mode 0700, inside root's state_dir, which nobody but root can
 * enter.  Root opens the directory and the files at start; after the
 * privilege drop jailbeed reaches them through the directory it holds
 * open, the one place its sandbox lets it write.  Past
 * remote.ssh.journal_max_kib each file is renamed one place down (the
 * oldest is replaced), the current one becomes .1 and a new empty one
 * is made: a few renames, whatever the journal's size.  The files held
 * open follow their names.  Journals of before, in state_dir itself,
 * are moved in at start.
 */
#define JOURNAL_DIR	"audit"
#define JOURNAL_NAME	"audit.jsonl"

static int	journal_dir = -1;
static int	journal_fds[JB_JOURNAL_KEEP_MAX];	/* -1: none yet */
static int	njournal;

/* audit.jsonl, audit.jsonl.1 ... */
static void
journal_name(int i, char *buf, size_t len)
{
	if (i == 0)
		(void)strlcpy(buf, JOURNAL_NAME, len);
	else
		(void)snprintf(buf, len, "%s.%d", JOURNAL_NAME, i);
}

/* a file opened in dir: a regular file with one link, root's or uid's */
static void
journal_check(int fd, const char *dir, const char *name, uid_t uid)
{
	struct stat	st;

	if (fstat(fd, &st) == -1)
		fatal("audit journal %s/%s", dir, name);
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != uid) ||
	    st.st_nlink != 1)
		fatalx("audit journal %s/%s is not a regular file of root's or "
		    "the owner's with one link: refused; remove it", dir, name);
}

/*
 * The journal of an earlier version, in state_dir: checked as it was
 * then (root's, one link, no symlink) and renamed into the directory,
 * unless the directory has that file already.
 */
static void
journal_migrate(int statefd, const char *state, const char *adir, int i)
{
	struct stat	st;
	char		name[32];

	journal_name(i, name, sizeof(name));
	if (fstatat(statefd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT)
			fatal("audit journal %s/%s", state, name);
		return;
	}
	if (S_ISLNK(st.st_mode))
		fatalx("audit journal %s/%s is a symlink: refused, root does "
		    "not write through a link; remove it", state, name);
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1)
		fatalx("audit journal %s/%s is not a regular file of root's "
		    "with one link: refused; remove it", state, name);
	if (fstatat(journal_dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		log_warnx("audit journal %s/%s: %s/%s is there already; the "
		    "old one is left where it is", state, name, adir, name);
		return;
	}
	if (renameat(statefd, name, journal_dir, name) == -1)
		fatal("audit journal: moving %s/%s to %s", state, name, adir);
	log_info("audit journal %s/%s moved to %s/%s", state, name, adir,
	    name);
}

/* as root, before the privilege drop */
void
audit_init(void)
{
	struct stat	st;
	const char	*state = env->conf.state_dir;
	char		adir[PATH_MAX], name[32];
	int		statefd, i, fd;

	if ((size_t)snprintf(adir, sizeof(adir), "%s/%s", state,
	    JOURNAL_DIR) >= sizeof(adir))
		fatalx("audit journal: state_dir too long");
	for (i = 0; i < JB_JOURNAL_KEEP_MAX; i++)
		journal_fds[i] = -1;
	if ((statefd = open(state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		fatal("state_dir %s", state);
	if (mkdirat(statefd, JOURNAL_DIR, 0700) == -1 && errno != EEXIST)
		fatal("audit journal: mkdir %s", adir);
	if ((journal_dir = openat(statefd, JOURNAL_DIR, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ELOOP || errno == ENOTDIR)
			fatalx("audit journal: %s is not a directory: refused; "
			    "remove it", adir);
		fatal("audit journal: %s", adir);
	}
	/* the owner's, so that jailbeed can rename there after the drop */
	if (fstat(journal_dir, &st) == -1)
		fatal("audit journal: %s", adir);
	if (st.st_uid != env->owner_uid && (st.st_uid != 0 ||
	    fchown(journal_dir, env->owner_uid, env->owner_gid) == -1))
		fatalx("audit journal: %s belongs to uid %u, neither root nor "
		    "the owner: refused; remove it", adir,
		    (unsigned)st.st_uid);
	if ((st.st_mode & 077) != 0)
		fatalx("audit journal: %s has mode %04o: chmod 700 %s", adir,
		    (unsigned)(st.st_mode & 07777), adir);

	/* journal_keep is read here only: a reload does not change it */
	njournal = env->conf.ssh_journal_keep;
	for (i = 0; i < JB_JOURNAL_KEEP_MAX; i++)
		journal_migrate(statefd, state, adir, i);
	close(statefd);
	for (i = 0; i < njournal; i++) {
		journal_name(i, name, sizeof(name));
		/* never through a symlink */
		fd = openat(journal_dir, name, i == 0 ? O_RDWR | O_APPEND |
		    O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK :
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		    0600);
		if (fd == -1 && i > 0 && errno == ENOENT)
			continue;
		if (fd == -1 && errno == ELOOP)
			fatalx("audit journal %s/%s is a symlink: refused, "
			    "root does not write through a link; remove it",
			    adir, name);
		if (fd == -1)
			fatal("audit journal %s/%s", adir, name);
		journal_check(fd, adir, name, env->owner_uid);
		if (fchown(fd, env->owner_uid, env->owner_gid) == -1)
			fatal("audit journal %s/%s", adir, name);
		journal_fds[i] = fd;
	}
}

/* the current file's size, -1 when there is none */
off_t
audit_journal_size(void)
{
	struct stat	st;

	if (njournal == 0 || journal_fds[0] == -1 ||
	    fstat(journal_fds[0], &st) == -1)
		return -1;
	return st.st_size;
}

/*
 * Past the size: .N-2 becomes .N-1 (the oldest goes), ..., the current
 * one .1, and a new current one is made; with one file kept, the
 * current one starts empty.  A rename that fails stops there, the files
 * held open still matching their names.
 */
static void
journal_rotate(void)
{
	struct stat	st;
	char		from[32], to[32];
	int		i, fd;

	if (journal_fds[0] == -1 || fstat(journal_fds[0], &st) == -1 ||
	    st.st_size < (off_t)env->conf.ssh_journal_max_kib * 1024)
		return;
	if (njournal == 1) {
		if (ftruncate(journal_fds[0], 0) == -1)
			log_warn("audit journal: rotating");
		return;
	}
	for (i = njournal - 1; i > 0; i--) {
		if (journal_fds[i - 1] == -1)
			continue;
		journal_name(i - 1, from, sizeof(from));
		journal_name(i, to, sizeof(to));
		if (renameat(journal_dir, from, journal_dir, to) == -1) {
			log_warn("audit journal: rotating %s", from);
			return;
		}
		if (journal_fds[i] != -1)
			close(journal_fds[i]);
		journal_fds[i] = journal_fds[i - 1];
		journal_fds[i - 1] = -1;
	}
	if ((fd = openat(journal_dir, JOURNAL_NAME, O_RDWR | O_APPEND |
	    O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
	    0600)) == -1) {
		/* the current one stays as it was, under its name */
		log_warn("audit journal: a new %s", JOURNAL_NAME);
		journal_name(1, from, sizeof(from));
		if (renameat(journal_dir, from, journal_dir, JOURNAL_NAME) ==
		    -1) {
			log_warn("audit journal: renaming %s back", from);
			return;
		}
		journal_fds[0] = journal_fds[1];
		journal_fds[1] = -1;
		return;
	}
	journal_fds[0] = fd;
}

/* for the sandbox: the journal's directory, the one place written */
int
audit_dirfd(void)
{
	return journal_dir;
}

/* one line in the journal and in syslog */
void
audit_write(struct audit_rec *r)
{
	struct iovec	 iov[2];
	char		 line[AUDIT_LINE_MAX];
	int		 len;

	if (r->when == 0)
		r->when = time(NULL);
	if ((len = audit_format(r, line, sizeof(line))) == -1) {
		log_warnx("audit: a record of %s did not fit", r->action);
		return;
	}
	if (njournal > 0 && journal_fds[0] != -1) {
		iov[0].iov_base = line;
		iov[0].iov_len = len;
		iov[1].iov_base = "\n";
		iov[1].iov_len = 1;
		if (writev(journal_fds[0], iov, 2) == -1)
			log_warn("audit journal");
		journal_rotate();
	}
	log_info("audit: %s", line);
	control_event(r->container, r->action, (int64_t)r->when);
}

/* a record by the job's actor, or by jailbeed itself (job NULL) */
void
audit_rec_job(struct audit_rec *r, struct job *job, const char *action,
    const char *container, const char *repo)
{
	memset(r, 0, sizeof(*r));
	r->actor = job != NULL ? job->actor : "jailbeed";
	r->action = action;
	r->container = container;
	r->repo = repo;
	r->decision = "accept";
}

/*
 * jbctl audit [--since DURATION] [--container NAME] [--action ACTION]
 * [--key FINGERPRINT] [-o json]: the journal's lines, oldest first, the
 * rotated files before the current one; read a piece at a time, never
 * whole.  JSON: the lines as they are; text: one line each.
 */
void
cmd_audit(struct job *job)
{
	struct jb_output	*o;
	struct audit_filter	 f;
	const char		*since = job_opt(job, "since");
	const char		*fmt = job_opt(job, "output");
	char			 cutoff[32], err[256], *buf, *line, *nl;
	const char		*out;
	char			 text[AUDIT_LINE_MAX];
	int64_t			 secs = 0;
	time_t			 t;
	off_t			 off;
	size_t			 have, len;
	ssize_t			 n;
	int			 fd, skip, json = fmt != NULL &&
				    strcmp(fmt, "json") == 0, tl;

	if (since != NULL && duration_parse(since, 1, 366LL * 86400, &secs,
	    err, sizeof(err)) == -1) {
		job_end(job, 0, "--since: %s", err);
		return;
	}
	t = time(NULL) - (time_t)secs;
	strftime(cutoff, sizeof(cutoff), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	memset(&f, 0, sizeof(f));
	f.cutoff = since != NULL ? cutoff : NULL;
	f.container = job_opt(job, "container");
	f.action = job_opt(job, "action");
	f.actor = job_opt(job, "key");
	if (njournal == 0 || journal_fds[0] == -1) {
		job_end(job, 0, "the audit journal cannot be read");
		return;
	}
	if ((buf = malloc(AUDIT_CHUNK + 1)) == NULL ||
	    (o = calloc(1, sizeof(*o))) == NULL) {
		free(buf);
		job_end(job, 0, "out of memory");
		return;
	}
	o->which = 1;
	for (fd = njournal - 1; fd >= 0; fd--) {
		if (journal_fds[fd] == -1)
			continue;
		off = 0;
		have = 0;
		skip = 0;
		while ((n = pread(journal_fds[fd], buf + have,
		    AUDIT_CHUNK - have, off)) > 0) {
			off += n;
			have += n;
			buf[have] = '\0';
			line = buf;
			while ((nl = memchr(line, '\n', have - (line - buf))) !=
			    NULL) {
				*nl = '\0';
				out = NULL;
				len = 0;
				if (!skip && audit_match(line, &f)) {
					if (json) {
						out = line;
						len = nl - line;
					} else if ((tl = audit_text(line, text,
					    sizeof(text))) != -1) {
						out = text;
						len = tl;
					}
				}
				if (out != NULL && len + 1 <= sizeof(o->data)) {
					if (o->len + len + 1 > sizeof(o->data)) {
						(void)job_reply(job,
						    IMSG_CTL_OUTPUT, o,
						    sizeof(*o), -1);
						o->len = 0;
					}
					memcpy(o->data + o->len, out, len);
					o->data[o->len + len] = '\n';
					o->len += len + 1;
				}
				skip = 0;
				line = nl + 1;
			}
			have -= line - buf;
			memmove(buf, line, have);
			if (have == AUDIT_CHUNK) {
				/* a line longer than a piece: not a line of ours */
				have = 0;
				skip = 1;
			}
		}
	}
	if (o->len > 0)
		(void)job_reply(job, IMSG_CTL_OUTPUT, o, sizeof(*o), -1);
	free(o);
	free(buf);
	job_end(job, 1, " ");
}

/*
 * jb-netd's refusal summaries: the journal's action and reason, and what
 * its distinct count counts.  Each "top" is jb-netd's own text: a plain
 * DNS name or "(not a DNS name)"; "ADDR NAME"; "HOST:PORT (why)";
 * "ADDR:PORT/PROTO".
 */
static const struct {
	const char	*kind, *action, *reason, *distinct;
} summaries[] = {
	{ "dns-refused", "net.dns-refused", "no egress_allow entry", "names" },
	{ "dns-private", "net.dns-private",
	    "answer in a range that is not public", "answers" },
	{ "name-refused", "net.name-refused", "refused by the egress gateway",
	    "distinct" },
	{ "conn-refused", "net.conn-refused", "no egress_allow entry",
	    "flows" },
};

/* jb-netd's own: a revert at the deadline, a refused-names summary */
int
audit_netd(struct imsg *imsg)
{
	struct jb_netd_audit	ev;
	struct audit_rec	r;
	char			until[32];
	struct tm		tm;
	time_t			t;
	size_t			i;

	if (imsg_get_id(imsg) != 0 ||
	    imsg_get_data(imsg, &ev, sizeof(ev)) == -1)
		return -1;
	ev.name[sizeof(ev.name) - 1] = '\0';
	ev.repo[sizeof(ev.repo) - 1] = '\0';
	ev.kind[sizeof(ev.kind) - 1] = '\0';
	ev.top[sizeof(ev.top) - 1] = '\0';
	audit_rec_job(&r, NULL, NULL, ev.name, ev.repo);
	if (strcmp(ev.kind, "revert") == 0) {
		r.action = "net.strict";
		r.reason = "loose deadline reached";
		t = (time_t)ev.deadline;
		if (gmtime_r(&t, &tm) != NULL) {
			strftime(until, sizeof(until), "%Y-%m-%dT%H:%M:%SZ",
			    &tm);
			audit_str(&r, "deadline", until);
		}
	} else {
		for (i = 0; i < sizeof(summaries) / sizeof(summaries[0]); i++)
			if (strcmp(ev.kind, summaries[i].kind) == 0)
				break;
		if (i == sizeof(summaries) / sizeof(summaries[0]))
			return -1;
		r.action = summaries[i].action;
		r.decision = "refuse";
		r.reason = summaries[i].reason;
		audit_num(&r, "count", (long long)ev.count);
		audit_num(&r, summaries[i].distinct, (long long)ev.distinct);
		/* jb-netd's own text, in the form the table names */
		audit_str(&r, "top", ev.top);
		audit_num(&r, "top_count", (long long)ev.topcount);
	}
	audit_write(&r);
	return 0;
}

/* the commands that change something, and their journal's action */
static const struct {
	enum cmd_id	 id;
	const char	*action;
} audited[] = {
	{ CMD_NEW, "new" },
	{ CMD_START, "start" },
	{ CMD_STOP, "stop" },
	{ CMD_RESTART, "restart" },
	{ CMD_DESTROY, "destroy" },
	{ CMD_NET_LOOSE, "net.loose" },
	{ CMD_NET_STRICT, "net.strict" },
	{ CMD_NET_EGRESS_ADD, "net.egress.add" },
	{ CMD_NET_EGRESS_RM, "net.egress.rm" },
	{ CMD_MOUNT, "mount" },
	{ CMD_UNMOUNT, "unmount" },
	{ CMD_PORT_TO_CONTAINER, "port.add" },
	{ CMD_PORT_TO_HOST, "port.add" },
	{ CMD_PORT_RM, "port.rm" },
	{ CMD_GIT_FETCH, "git.fetch" },
	{ CMD_GIT_PULL, "git.pull" },
};

/* the container a command acts on, as resolved (and its repo) */
void
audit_target(struct job *job, const char *name, const struct repo_ctx *ctx)
{
	(void)strlcpy(job->audit_ctr, name, sizeof(job->audit_ctr));
	if (ctx != NULL && ctx->have_conf)
		(void)strlcpy(job->audit_repo, ctx->conf.container_prefix,
		    sizeof(job->audit_repo));
	else if (job->remote_repo[0] != '\0')
		(void)strlcpy(job->audit_repo, job->remote_repo,
		    sizeof(job->audit_repo));
}

/* one field of the command's own (key: a fixed word) */
void
audit_detail(struct job *job, const char *key, const char *val)
{
	job->audit_key = key;
	(void)strlcpy(job->audit_val, val, sizeof(job->audit_val));
}

/*
 * From job_end: a command of the table above done (accept) or refused
 * (refuse, its error as the reason), by the job's actor.  Before the
 * container was resolved, the container is the name as given.
 */
void
audit_job_end(struct job *job, int ok, const char *err)
{
	const struct cmd	*def = cmd_find(job->cmd.id);
	struct audit_rec	 r;
	struct tm		 tm;
	const char		*action = NULL, *ctr = job->audit_ctr;
	char			 until[32];
	time_t			 t;
	size_t			 i;

	for (i = 0; i < sizeof(audited) / sizeof(audited[0]); i++)
		if (audited[i].id == job->cmd.id)
			action = audited[i].action;
	if (action == NULL || def == NULL)
		return;
	if (job->remote && !ok) {
		/*
		 * Over SSH a refusal records none of the client's words: the
		 * container the gate resolved, else nothing, and a fixed
		 * reason (what was done is recorded as it was done)
		 */
		ctr = job->remote_found ? job->remote_in.name : "";
		err = job->remote_reason != NULL ? job->remote_reason :
		    job->audit_reason != NULL ? job->audit_reason : "refused";
	} else if (ctr[0] == '\0' && def->name_arg > 0 &&
	    def->name_arg <= job->nargs)
		ctr = job->args[def->name_arg - 1];
	else if (ctr[0] == '\0' && job->cmd.id == CMD_NEW && job->nargs > 0)
		ctr = job->args[0];
	audit_rec_job(&r, job, action, ctr, job->audit_repo);
	r.decision = ok ? "accept" : "refuse";
	r.reason = err;
	if (job->cmd.id == CMD_PORT_TO_CONTAINER ||
	    job->cmd.id == CMD_PORT_TO_HOST)
		audit_str(&r, "direction", job->cmd.id ==
		    CMD_PORT_TO_HOST ? "to-host" : "to-container");
	if (job->audit_key != NULL && (ok || !job->remote))
		audit_str(&r, job->audit_key, job->audit_val);
	if (ok && job->audit_until != 0) {
		t = (time_t)job->audit_until;
		if (gmtime_r(&t, &tm) != NULL) {
			strftime(until, sizeof(until), "%Y-%m-%dT%H:%M:%SZ",
			    &tm);
			audit_str(&r, "until", until);
		}
	}
	if (job_opt(job, "force") != NULL)
		audit_str(&r, "force", "true");
	if (job->audit_git) {
		audit_str(&r, "branch", job->audit_branch);
		audit_str(&r, "refs", job->audit_refs);
		audit_num(&r, "bytes", (long long)job->audit_bytes);
	}
	audit_write(&r);
}

/* jb-mountd's deadline came: the mount was detached (or not) */
void
audit_deadline(const struct jb_mount_deadline *d, const char *decision,
    const char *reason)
{
	struct audit_rec	r;
	struct tm		tm;
	char			until[32];
	time_t			t = (time_t)d->until;

	audit_rec_job(&r, NULL, "unmount", d->name, "");
	r.decision = decision;
	r.reason = reason;
	audit_str(&r, "kind", d->kind);
	if (gmtime_r(&t, &tm) != NULL) {
		strftime(until, sizeof(until), "%Y-%m-%dT%H:%M:%SZ", &tm);
		audit_str(&r, "deadline", until);
	}
	audit_write(&r);
}

/*
 * A mount the suite made or took back by itself, for a command (an
 * autostart step's mounts, an agent's shared entries): action mount or
 * unmount, by the job's actor; by says for what.
 */
void
audit_mount(struct job *job, const char *action, const char *ctr,
    const char *repo, const char *device, const char *source, const char *by,
    int64_t until, int ok, const char *err)
{
	struct audit_rec	r;
	struct tm		tm;
	char			when[32];
	time_t			t = (time_t)until;

	audit_rec_job(&r, job, action, ctr, repo);
	r.decision = ok ? "accept" : "refuse";
	r.reason = ok ? NULL : err;
	audit_str(&r, "device", device);
	if (source != NULL && source[0] != '\0')
		audit_str(&r, "source", source);
	audit_str(&r, "by", by);
	if (until != 0 && gmtime_r(&t, &tm) != NULL) {
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		audit_str(&r, "until", when);
	}
	audit_write(&r);
}
