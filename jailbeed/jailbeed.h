/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_H
#define JAILBEED_H

#include <sys/types.h>

#include <stdint.h>

#include <sys/queue.h>

#include "config.h"
#include "imsgev.h"
#include "jb_msg.h"

/*
 * The dev user's PATH for what jailbeed runs in a container (exec, the
 * autostart steps, the agents): the system's, after ~/.local/bin, where
 * the agents install (npm's --prefix ~/.local, pip's --user).
 */
#define JB_DEV_PATH	"PATH=/home/dev/.local/bin:/usr/local/sbin:" \
			"/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

enum jb_proc {
	PROC_INCUS,
	PROC_NETD,
	PROC_MOUNTD,
	PROC_SSHD,
	PROC_GITD,
	PROC_EGRESS,
	PROC_MAX
};

struct jb_child {
	const char	*name;
	pid_t		 pid;
	int		 ready;		/* locked down and serving */
	struct imsgev	 iev;
};

struct jailbeed {
	struct jb_conf	 conf;
	const char	*conf_path;
	uid_t		 owner_uid;
	gid_t		 owner_gid;
	/* the owner's home, read at start: no passwd lookup once locked down */
	char		 owner_home[PATH_MAX];
	int		 debug;
	int		 verbose;
	int		 sandbox_debug;	/* -D */
	int64_t		 started;
	long		 host_cpus;	/* online at start: a cpu share's base */
};

struct req;
typedef void	(*req_msg_cb)(struct req *, struct imsg *);
typedef void	(*req_done_cb)(struct req *, int, const char *);

struct req {
	TAILQ_ENTRY(req)	 entry;
	uint32_t		 rid;
	int			 proc;		/* enum jb_proc */
	req_msg_cb		 on_msg;	/* data messages, NULL: dropped */
	req_done_cb		 on_done;	/* the end, once */
	void			*arg;
};

struct ctl_conn;
struct job;

/* where the replies of a job another cluster member asked for go */
typedef void	(*job_sink)(void *, uint32_t, const void *, size_t);

/* one jbctl command being carried out; it outlives its connection */
struct job {
	struct ctl_conn		*c;		/* NULL once the client left */
	struct jb_ctl_cmd	 cmd;
	char			*args[128];	/* unpacked from cmd.argv */
	int			 nargs;
	struct req		*exec;		/* a streamed exec, for resizes */
	void			*state;		/* the command's own */
	void			(*free_state)(void *);
	/* a jb-sshd session's command (sshd.c fills these) */
	int			 remote;
	char			 remote_repo[48];	/* for the journal */
	struct sshsnap		*remote_snap;	/* its session's SSH policy */
	/* the container the remote gate resolved (ssh_gate.c) */
	struct jb_instance	 remote_in;
	int			 remote_found;
	const char		*remote_reason;	/* fixed: why the gate refused */
	const char		*audit_reason;	/* fixed: why a command refused,
						   for the journal over SSH */
	uint32_t		 nrenv;
	char			 renv[1024];	/* "K=V" NUL-separated */
	char			 actor[72];	/* the journal's: uid:N or SHA256:... */
	/* asked by another cluster member's suite (membox.c): its replies */
	job_sink		 sink;
	void			*sink_arg;
	/* what job_end journals (audit.c): the container, once resolved */
	char			 audit_ctr[JB_INSTANCE_MAX];
	char			 audit_repo[48];
	const char		*audit_key;	/* a fixed word, or NULL */
	char			 audit_val[128];
	int64_t			 audit_until;	/* a deadline it set, or 0 */
	/* the git bridge's: the branch, the refs it moved, bytes received */
	int			 audit_git;
	char			 audit_branch[JB_BRANCH_MAX];
	char			 audit_refs[2 * JB_BRANCH_MAX + 96];
	uint64_t		 audit_bytes;
};

extern struct jailbeed	*env;
extern struct jb_child	 children[PROC_MAX];

/* children.c */
void	children_spawn(void);
void	children_stop(void);
int	children_status_req(uint32_t);
int	children_find(const char *);
int	children_test_attempt(int, uint32_t, const struct jb_test_attempt *);
void	children_reap(void);

/* request.c */
struct req	*req_send(int, uint32_t, const void *, size_t, int, req_msg_cb,
		    req_done_cb, void *);
int		 req_dispatch(int, struct imsg *);
int		 req_send_to(struct req *, uint32_t, const void *, size_t);

/* job.c */
void	job_start(struct ctl_conn *, const struct jb_ctl_cmd *);
/*
 * Carry out cmd for cluster member asker, as if typed here by the owner
 * outside any checkout: every reply, IMSG_CTL_END last, goes to sink
 */
void	job_start_member(const struct jb_ctl_cmd *, const char *asker,
	    job_sink sink, void *arg);
void	job_detach(struct job *);
void	job_winsize(struct job *, const struct jb_winsize *);
int	job_reply(struct job *, uint32_t, const void *, size_t, int);
void	job_progress(struct job *, const char *, ...)
	    __attribute__((__format__(printf, 2, 3)));
void	job_end(struct job *, int, const char *, ...)
	    __attribute__((__format__(printf, 3, 4)));
const char *job_opt(const struct job *, const char *);

/* control.c */
int	control_send(struct ctl_conn *, uint32_t, const void *, size_t, int);
void	control_job_started(struct ctl_conn *, struct job *);
void	control_job_ended(struct ctl_conn *);
void	control_expect_fd(struct ctl_conn *, int);
void	control_refuse_second(void);
void	control_init(void);
void	control_listen(void);
void	control_cleanup(void);
void	control_child_status(uint32_t, const struct jb_proc_status *);
void	control_child_text(uint32_t, uint32_t, const char *);

struct sshsess;
struct ctl_conn	*control_adopt(int, struct sshsess *);
void		 control_watch(struct ctl_conn *);
int	control_send_raw(struct ctl_conn *, uint32_t, const void *, size_t,
	    int);
void	control_status(struct ctl_conn *);
void	control_event(const char *, const char *, int64_t);
struct job	*control_job(struct ctl_conn *);
void	control_job_remote(struct ctl_conn *, struct job *);
uid_t	control_uid(const struct ctl_conn *);

/* reaper.c: removes the control socket once jailbeed is gone */
void	reaper_start(int, const char *, const char *);
int	reaper_reaped(pid_t, int);
void	reaper_stop(const char *);
int	reaper_status(struct jb_proc_status *);

/* netsync.c: forget in jb-netd what Incus no longer has, at start-up */
void	netsync_start(void);
/* fn(arg) now, or once the start-up sync under way has ended */
void	netsync_after(void (*)(void *), void *);
/* at start: follow Incus's event stream, then the start-up sync */
void	netfollow_start(void);
/* read container name again and enforce or forget it as Incus says */
void	netfollow_again(const char *);
/* is a new of this run making container name? */
int	new_making(const char *);
/* cmd_net.c: jb-netd could not make a container strict: stop it */
int	net_stuck(struct imsg *);
int	net_refused_note(struct imsg *);
void	net_audit_note(struct imsg *);

/* egress.c: the gateway's socket, and what passes to and from it */
void	egress_start(void);
int	egress_relay(struct imsg *);
int	egress_admitted(struct imsg *);
int	egress_refused(struct imsg *);
int	egress_resolve(struct imsg *, int);
/* "http://BRIDGE:PORT", or "" when there is no explicit proxy */
const char *egress_proxy_url(void);
int	egress_subst(struct imsg *);

/* sshd.c: remote SSH, the parent's side */
void	sshd_init(void);
void	sshd_start(const char *);
int	sshd_draining(void);
int	sshd_session_new(struct imsg *);
void	sshd_session_closed(struct sshsess *);
int	sshd_dispatch(struct sshsess *, struct imsg *);
int	sshd_reply(struct sshsess *, uint32_t, const void *, size_t, int);
void	sshd_journal_reload(uid_t, const char *, const char *);
void	sshd_journal_rebind(uid_t, const char *, const char *, const char *);

/* sshsnap.c: the SSH policy a session took when it started */
struct sshsnap;
struct sshp_conf;
struct sshsnap	*sshsnap_take(void);
struct sshsnap	*sshsnap_ref(struct sshsnap *);
void		 sshsnap_put(struct sshsnap *);
int		 sshsnap_restricted(const struct sshsnap *);
int		 sshsnap_excluded(const struct sshsnap *, const char *);
int		 sshsnap_hides(const struct sshsnap *, const char *);
void		 sshsnap_policy(const struct sshsnap *, struct sshp_conf *);

/* registry.c: which checkout each container prefix comes from */
void		 registry_init(void);
/* statedir.c: 0 when state_dir is root's alone, else -1 and why */
int		 statedir_check(const char *, char *, size_t);
void		 registry_add(const char *, const char *);
const char	*registry_path(const char *);
void		 cmd_repo(struct job *);

/* reload.c: read jailbeed.yaml again; -1 and why when nothing changed */
int	conf_reload(uid_t, char *, size_t);
void	cmd_reload(struct job *);
/* a jbctl reload waiting for the socket of its new listen address */
int	reload_waits(const struct job *);
int	reload_listen_fd(struct job *, struct imsg *);
void	reload_abandon(struct job *);
void	sshd_job_env(struct sshsess *, struct job *);
void	cmd_sshstatus(struct job *);

/* audit.c: the one audit journal */
struct audit_rec;
void	audit_init(void);
int	audit_dirfd(void);
off_t	audit_journal_size(void);
void	audit_write(struct audit_rec *);
void	audit_rec_job(struct audit_rec *, struct job *, const char *,
	    const char *, const char *);
void	cmd_audit(struct job *);
int	audit_netd(struct imsg *);
struct repo_ctx;
void	audit_target(struct job *, const char *, const struct repo_ctx *);
void	audit_detail(struct job *, const char *, const char *);
void	audit_job_end(struct job *, int, const char *);
void	audit_mount(struct job *, const char *action, const char *ctr,
	    const char *repo, const char *device, const char *source,
	    const char *by, int64_t until, int ok, const char *err);
void	audit_deadline(const struct jb_mount_deadline *, const char *,
	    const char *);
int	sshd_raw(struct sshsess *, uint32_t, const void *, size_t, int);
/* is the repo of prefix excluded for this session (NULL: gone)? */
int	sshd_excluded(const struct sshsess *, const char *);
int	sshd_event_hidden(const struct sshsess *, const char *);
/* sftp.c: SFTP requests of a session */
void	sftp_init(void);
int	sftp_request(struct sshsess *, struct imsg *, const char *, uint32_t,
	    const char *);
void	sftp_session_gone(struct sshsess *);
int	sftp_result(struct sshsess *, struct imsg *);
/* mounts.c: a deadline jb-mountd reports reached; -1 malformed */
int	mounts_expired(struct imsg *);
/* mounts.c: a DEADLINE reply added to a list; a malformed one is fatal */
void	mounts_deadline_add(struct jb_mount_deadline **, size_t *,
	    struct imsg *);

/*
 * ssh_gate.c: over SSH, the container a command names exists, is the
 * suite's and is not excluded, or the job ends with "no such container"
 */
void	ssh_gate(struct job *, void (*)(struct job *));

/* jailbeed.c */
__attribute__((__noreturn__)) void	jailbeed_shutdown(int);

#endif /* JAILBEED_H */
