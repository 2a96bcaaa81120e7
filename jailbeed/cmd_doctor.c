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
 * jbctl doctor: the checks of REFERENCE.md section 4 that apply to
 * this design, and the seed's.  The host's own checks are made here
 * (jailbeed reads /, runs as the owner): the suite's processes, the
 * config and token files' modes, /etc/subuid and /etc/subgid, the
 * journal.  The rest are one request each, in turn: incusd and its
 * version, the bridge, jb-netd's table in the kernel, and in a checkout
 * the base image, every running container's policy and its declared
 * host_ports.  Each check is one CTL_DOCTOR (PASS, WARN or FAIL, and the
 * fix); the job fails when one FAILs, so jbctl exits 1.
 */

#include <sys/stat.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "diskq.h"
#include "jobs.h"
#include "log.h"
#include "portspec.h"

#define DOC_STEPS	9

struct doc {
	struct repo_ctx		*ctx;
	int			 step;
	int			 nfail;
	struct jb_instance	*inst;
	size_t			 ninst;
	struct jb_port		*port;
	size_t			 nport;
	char			(*held)[JB_INSTANCE_MAX];	/* jb-netd's */
	char			(*broken)[JB_MSG_TEXT_MAX];
	size_t			 nheld;
	int			 image;
	struct jb_incus_server	 srv;
	struct jb_netinfo	 ni;
	struct jb_netd_check	 chk;
	struct jb_disk		*disk;		/* every suite disk (roots) */
	size_t			 ndisk;
};

static void	doc_next(struct job *);
static void	check_roots(struct job *);
static void	check_github(struct job *, const struct repoconf *);

static void
doc_free(void *arg)
{
	struct doc	*d = arg;

	repo_ctx_free(d->ctx);
	free(d->inst);
	free(d->port);
	free(d->held);
	free(d->broken);
	free(d->disk);
	free(d);
}

static void	check(struct job *, const char *, const char *, const char *,
		    const char *, ...) __attribute__((format(printf, 5, 6)));

static void
check(struct job *job, const char *name, const char *status, const char *fix,
    const char *fmt, ...)
{
	struct doc		*d = job->state;
	struct jb_doctor_check	 k;
	va_list			 ap;

	memset(&k, 0, sizeof(k));
	(void)strlcpy(k.name, name, sizeof(k.name));
	(void)strlcpy(k.status, status, sizeof(k.status));
	(void)strlcpy(k.fix, fix != NULL ? fix : "", sizeof(k.fix));
	va_start(ap, fmt);
	(void)vsnprintf(k.detail, sizeof(k.detail), fmt, ap);
	va_end(ap);
	if (strcmp(status, "FAIL") == 0)
		d->nfail++;
	(void)job_reply(job, IMSG_CTL_DOCTOR, &k, sizeof(k), -1);
}

/* the suite's children: each running, locked down and serving */
static void
check_processes(struct job *job)
{
	char	down[128] = "";
	int	i;

	for (i = 0; i < PROC_MAX; i++) {
		/* jb-sshd serves only when remote.ssh.listen is not off */
		if (i == PROC_SSHD && strcmp(env->conf.ssh_listen, "off") == 0)
			continue;
		if (children[i].pid > 0 && children[i].ready)
			continue;
		if (down[0] != '\0')
			(void)strlcat(down, ", ", sizeof(down));
		(void)strlcat(down, children[i].name, sizeof(down));
	}
	if (down[0] == '\0')
		check(job, "processes", "PASS", NULL, "jailbeed and its "
		    "children are locked down and serving (jbctl status shows "
		    "each one's lock-down)");
	else
		check(job, "processes", "FAIL", "restart the suite (the "
		    "service manager restarts it when a child dies)",
		    "not serving: %s", down);
}

/* a line user:start:count of path covers id */
static int
subid_covers(const char *path, const char *user, unsigned long id,
    char *err, size_t errlen)
{
	FILE		*fp;
	char		 line[256], *u, *s, *n, *save;
	unsigned long	 start, count;
	int		 found = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		(void)snprintf(err, errlen, "%s cannot be read", path);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		if ((u = strtok_r(line, ":\n", &save)) == NULL ||
		    (s = strtok_r(NULL, ":\n", &save)) == NULL ||
		    (n = strtok_r(NULL, ":\n", &save)) == NULL ||
		    strcmp(u, user) != 0)
			continue;
		start = strtoul(s, NULL, 10);
		count = strtoul(n, NULL, 10);
		if (id >= start && id - start < count)
			found = 1;
	}
	fclose(fp);
	return found;
}

/* Incus maps the dev user onto the owner: root must own that id */
static void
check_subids(struct job *job)
{
	struct doc	*d = job->state;
	unsigned long	 uid = env->owner_uid, gid = env->owner_gid;
	char		 err[128], fix[160];
	int		 r;

	if (d->ctx != NULL && d->ctx->have_conf) {
		uid = (unsigned long)d->ctx->conf.container_uid;
		gid = (unsigned long)d->ctx->conf.container_gid;
	}
	r = subid_covers("/etc/subuid", "root", uid, err, sizeof(err));
	(void)snprintf(fix, sizeof(fix), "add the line root:%lu:1 to "
	    "/etc/subuid (no restart needed)", uid);
	if (r == 1)
		check(job, "subuid", "PASS", NULL, "root may map uid %lu", uid);
	else
		check(job, "subuid", "FAIL", fix, "%s", r == -1 ? err :
		    "/etc/subuid gives root no range holding the dev user's "
		    "uid: Incus cannot start the container");
	r = subid_covers("/etc/subgid", "root", gid, err, sizeof(err));
	(void)snprintf(fix, sizeof(fix), "add the line root:%lu:1 to "
	    "/etc/subgid (no restart needed)", gid);
	if (r == 1)
		check(job, "subgid", "PASS", NULL, "root may map gid %lu", gid);
	else
		check(job, "subgid", "FAIL", fix, "%s", r == -1 ? err :
		    "/etc/subgid gives root no range holding the dev user's "
		    "gid: Incus cannot start the container");
}

/* a file that may hold a token, open to group/other, is a FAIL */
static void
check_mode(struct job *job, const char *name, const char *path)
{
	char	warn[JB_MSG_TEXT_MAX], fix[PATH_MAX + 16];

	if (path[0] == '\0')
		return;
	if (repoconf_check_mode(path, warn, sizeof(warn)) == NULL) {
		check(job, name, "PASS", NULL, "%s: only its owner may read it "
		    "(or it does not exist)", path);
		return;
	}
	(void)snprintf(fix, sizeof(fix), "chmod 600 %s", path);
	check(job, name, "FAIL", fix, "%s", warn);
}

/*
 * github (when enabled, or a token would be unused): the token in force
 * and its kind, and a reminder of the scope it should have, which
 * JailBee cannot verify and never asks GitHub about.  The token files'
 * modes are check_mode's.
 */
static void
check_github(struct job *job, const struct repoconf *c)
{
	const char	*from = c->github_token_legacy ? c->paths.global :
			    c->paths.local;

	if (c->github_enabled != 1) {
		if (c->github_token[0] != '\0')
			check(job, "github", "WARN", "set github.enabled: true "
			    "in global.yaml or the host-local file, or remove "
			    "the token", "a token is set in %s but "
			    "github.enabled is not true: no container gets it",
			    from);
		return;
	}
	if (c->github_token[0] == '\0') {
		check(job, "github", "PASS", NULL, "enabled, api.github.com:443 "
		    "allowed; no token for %s (github.token in %s): gh in its "
		    "containers is not logged in", c->container_prefix,
		    c->paths.local);
		return;
	}
	if (strncmp(c->github_token, "github_pat_", 11) == 0)
		check(job, "github", "PASS", NULL, "enabled, api.github.com:443 "
		    "allowed; a fine-grained token from %s", from);
	else
		check(job, "github", "FAIL", "create a fine-grained token "
		    "(github_pat_...) limited to this repository and put it in "
		    "github.token", "the token in %s is not a fine-grained "
		    "personal access token (github_pat_...): a classic or "
		    "unknown token cannot be limited to read-only access to "
		    "one repository", from);
	check(job, "github token scope", "WARN", "on github.com, give the "
	    "token Contents, Issues, Pull requests and Metadata set to Read, "
	    "nothing more", "JailBee cannot see a token's permissions and never "
	    "asks GitHub: containers hold a placeholder as GH_TOKEN that the "
	    "egress gateway replaces with it for api.github.com and "
	    "github.com, so a token that may write lets them write to "
	    "GitHub without the host's review");
}

static void
check_journal(struct job *job)
{
	char		path[PATH_MAX + 32];
	long long	max = (long long)env->conf.ssh_journal_max_kib * 1024;
	off_t		size;

	(void)snprintf(path, sizeof(path), "%s/audit/audit.jsonl",
	    env->conf.state_dir);
	/* the file held open: the owner cannot reach root's state_dir */
	if ((size = audit_journal_size()) == -1) {
		check(job, "journal", "FAIL", "see jailbeed's log", "%s: not "
		    "open", path);
		return;
	}
	if (max > 0 && size > 2 * max)
		check(job, "journal", "WARN", "see jailbeed's log for why "
		    "rotation failed", "%s: %lld bytes, over twice the "
		    "rotation size of %lld", path, (long long)size, max);
	else
		check(job, "journal", "PASS", NULL, "%s: %lld bytes (rotated "
		    "at %lld, %d kept)", path, (long long)size, max,
		    env->conf.ssh_journal_keep);
}

/* every btrfs pool Incus mounted: does the kernel hold its disk sizes */
static void
disk_pool(const char *point, void *arg)
{
	struct job	*job = arg;
	struct jb_diskq	 st;
	char		 fix[PATH_MAX + 64];

	diskq_read(point, &st);
	(void)snprintf(fix, sizeof(fix), "restart jailbeed (it rescans at "
	    "start), or as root: btrfs quota rescan -w %s", point);
	if (st.state == DISKQ_NOT_ENFORCED)
		check(job, "disk limits", "FAIL", fix, "%s", st.text);
	else
		check(job, "disk limits", "PASS", NULL, "%s", st.text);
}

static void
check_disk(struct job *job)
{
	char	dir[PATH_MAX];

	if (diskq_pools_dir(env->conf.incus_url, dir, sizeof(dir)) == 0)
		diskq_each(dir, disk_pool, job);
}

static void
check_repo(struct job *job)
{
	struct doc	*d = job->state;
	struct repoconf	*c;

	if (d->ctx == NULL || !d->ctx->have_conf) {
		check(job, "repo checks", "WARN", "run jbctl doctor in a JailBee "
		    "checkout", "not in a JailBee checkout: its files, image, "
		    "containers and forwards are not checked");
		return;
	}
	c = &d->ctx->conf;
	check(job, "host git repo", "PASS", NULL, "%s", d->ctx->info.toplevel);
	if (d->ctx->info.upstream_url[0] == '\0')
		check(job, "upstream remote", "WARN", "git remote add origin "
		    "URL in the checkout", "the checkout has no upstream: a "
		    "clone's origin stays the read-only mount");
	else
		check(job, "upstream remote", "PASS", NULL, "%s",
		    d->ctx->info.upstream_url);
	if ((uid_t)c->container_uid == env->owner_uid &&
	    (gid_t)c->container_gid == env->owner_gid)
		check(job, "container_user", "PASS", NULL, "the dev user is "
		    "uid %d gid %d, as the owner", c->container_uid,
		    c->container_gid);
	else
		check(job, "container_user", "WARN", "drop container_user "
		    "from the config, or set it to the owner's ids",
		    "the dev user is uid %d gid %d, the owner %u %u: shared "
		    "files change owner across the boundary",
		    c->container_uid, c->container_gid,
		    (unsigned int)env->owner_uid,
		    (unsigned int)env->owner_gid);
	check_mode(job, "global config", c->paths.global);
	check_mode(job, "host-local config", c->paths.local);
	check_github(job, c);
}

/* every request of a step ends here: the check was said, go on */
static void
step_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct doc	*d = job->state;

	switch (d->step) {
	case 1:
		if (ok)
			check(job, "incusd", "PASS", NULL, "reachable: Incus %s "
			    "(API %s)", d->srv.version, d->srv.api);
		else
			check(job, "incusd", "FAIL", "start incusd, or fix "
			    "incus.url in jailbeed.yaml", "%s", err);
		break;
	case 2:
		if (ok)
			check(job, "bridge", "PASS", NULL, "%s: %s/%u, %u DHCP "
			    "range(s)", d->ni.bridge, d->ni.ipv4,
			    d->ni.prefixlen, d->ni.ndhcp);
		else
			check(job, "bridge", "FAIL", "make the bridge (make up "
			    "does) or fix network.bridge in jailbeed.yaml", "%s",
			    err);
		break;
	case 3:
		if (!ok)
			check(job, "nft table", "FAIL", "restart the suite",
			    "jb-netd: %s", err);
		else if (!d->chk.table)
			check(job, "nft table", "FAIL", "restart the suite: "
			    "jb-netd makes the table again as it starts",
			    "table inet jailbee or its map ctrs is missing from "
			    "the kernel (%s): every container is refused",
			    d->chk.err);
		else if (d->chk.nmissing > 0)
			check(job, "nft table", "FAIL", "jbctl net strict NAME, "
			    "or restart the suite", "%u of %u containers are "
			    "not in the kernel's map ctrs: %s", d->chk.nmissing,
			    d->chk.nctr, d->chk.missing);
		else if (!d->chk.bridge)
			check(job, "nft table", "FAIL", "restart the suite: "
			    "jb-netd makes the table again as it starts",
			    "table bridge jailbee or its set ports is missing "
			    "from the kernel (%s): the suite's containers' "
			    "source addresses are not checked", d->chk.berr);
		else if (d->chk.nbmissing > 0)
			check(job, "nft table", "FAIL", "restart the suite: "
			    "jb-netd writes both tables whole as it starts",
			    "%u of %u containers have no element in table bridge "
			    "jailbee, so their ports send nothing: %s",
			    d->chk.nbmissing, d->chk.nctr, d->chk.bmissing);
		else
			check(job, "nft table", "PASS", NULL, "tables inet and "
			    "bridge jailbee hold all %u containers of jb-netd",
			    d->chk.nctr);
		break;
	case 4:
		if (!ok)
			check(job, "mount_roots", "FAIL", "see jailbeed's log",
			    "the suite's disks could not be listed: %s", err);
		else
			check_roots(job);
		break;
	case 5:
		if (ok && d->image)
			check(job, "base image", "PASS", NULL, "%s",
			    d->ctx->conf.base_alias);
		else
			check(job, "base image", "FAIL", "jbctl base build",
			    "%s: %s", d->ctx->conf.base_alias, ok ? "Incus "
			    "has no image under this alias" : err);
		break;
	default:
		if (!ok) {
			check(job, "containers", "FAIL", "see jailbeed's log",
			    "%s", err);
			d->step = DOC_STEPS;	/* nothing more to compare */
		}
		break;
	}
	doc_next(job);
}

static void
got_msg(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct doc		*d = job->state;
	struct jb_instance	 in;
	struct jb_port		 p;
	struct jb_net_ctr	 nc;
	void			*v;

	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_SERVER_INFO:
		if (imsg_get_data(imsg, &d->srv, sizeof(d->srv)) == -1)
			fatalx("jb-incus: malformed SERVER_INFO");
		d->srv.version[sizeof(d->srv.version) - 1] = '\0';
		d->srv.api[sizeof(d->srv.api) - 1] = '\0';
		break;
	case IMSG_INCUS_NETINFO:
		if (imsg_get_data(imsg, &d->ni, sizeof(d->ni)) == -1)
			fatalx("jb-incus: malformed NETINFO");
		d->ni.bridge[sizeof(d->ni.bridge) - 1] = '\0';
		d->ni.ipv4[sizeof(d->ni.ipv4) - 1] = '\0';
		break;
	case IMSG_NETD_CHECKED:
		if (imsg_get_data(imsg, &d->chk, sizeof(d->chk)) == -1)
			fatalx("jb-netd: malformed CHECKED");
		d->chk.missing[sizeof(d->chk.missing) - 1] = '\0';
		d->chk.err[sizeof(d->chk.err) - 1] = '\0';
		d->chk.bmissing[sizeof(d->chk.bmissing) - 1] = '\0';
		d->chk.berr[sizeof(d->chk.berr) - 1] = '\0';
		break;
	case IMSG_INCUS_IMAGE:
		d->image = 1;
		break;
	case IMSG_INCUS_DISK: {
		struct jb_disk	dk;

		if (imsg_get_data(imsg, &dk, sizeof(dk)) == -1)
			fatalx("jb-incus: malformed DISK");
		dk.name[sizeof(dk.name) - 1] = '\0';
		dk.device[sizeof(dk.device) - 1] = '\0';
		dk.source[sizeof(dk.source) - 1] = '\0';
		if ((v = reallocarray(d->disk, d->ndisk + 1,
		    sizeof(*d->disk))) == NULL)
			fatal("%s", __func__);
		d->disk = v;
		d->disk[d->ndisk++] = dk;
		break;
	}
	case IMSG_INCUS_INSTANCE:
		if (imsg_get_data(imsg, &in, sizeof(in)) == -1)
			fatalx("jb-incus: malformed INSTANCE");
		in.name[sizeof(in.name) - 1] = '\0';
		in.state[sizeof(in.state) - 1] = '\0';
		if ((v = reallocarray(d->inst, d->ninst + 1,
		    sizeof(*d->inst))) == NULL)
			fatal("%s", __func__);
		d->inst = v;
		d->inst[d->ninst++] = in;
		break;
	case IMSG_INCUS_PORT:
		if (imsg_get_data(imsg, &p, sizeof(p)) == -1)
			fatalx("jb-incus: malformed PORT");
		p.name[sizeof(p.name) - 1] = '\0';
		p.device[sizeof(p.device) - 1] = '\0';
		if ((v = reallocarray(d->port, d->nport + 1,
		    sizeof(*d->port))) == NULL)
			fatal("%s", __func__);
		d->port = v;
		d->port[d->nport++] = p;
		break;
	case IMSG_NETD_CTR:
		if (imsg_get_data(imsg, &nc, sizeof(nc)) == -1)
			fatalx("jb-netd: malformed NETD_CTR");
		nc.name[sizeof(nc.name) - 1] = '\0';
		nc.broken[sizeof(nc.broken) - 1] = '\0';
		if ((v = reallocarray(d->held, d->nheld + 1,
		    sizeof(*d->held))) == NULL)
			fatal("%s", __func__);
		d->held = v;
		if ((v = reallocarray(d->broken, d->nheld + 1,
		    sizeof(*d->broken))) == NULL)
			fatal("%s", __func__);
		d->broken = v;
		(void)strlcpy(d->held[d->nheld], nc.name, sizeof(d->held[0]));
		(void)strlcpy(d->broken[d->nheld], nc.broken,
		    sizeof(d->broken[0]));
		d->nheld++;
		break;
	case IMSG_NETD_ALLOW:
	case IMSG_NETD_ADDR:
		break;
	default:
		fatalx("%s in reply to doctor",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

/*
 * remote.ssh.mount_roots (the seed): each root exists, and no read-write
 * disk of any suite container holds it (a container writing there could
 * change what the root shows, or plant a symlink in its path)
 */
static void
check_roots(struct job *job)
{
	struct doc			*d = job->state;
	const struct jb_mount_root	*r;
	struct stat			 st;
	char				 fix[PATH_MAX + 64];
	size_t				 j, l;
	int				 i, bad = 0;

	for (i = 0; i < env->conf.ssh_nroots; i++) {
		r = &env->conf.ssh_roots[i];
		(void)snprintf(fix, sizeof(fix), "create %s or remove it from "
		    "remote.ssh.mount_roots", r->path);
		if (stat(r->path, &st) == -1 || !S_ISDIR(st.st_mode)) {
			check(job, "mount_roots", "FAIL", fix, "%s: no such "
			    "directory", r->path);
			bad++;
			continue;
		}
		for (j = 0; j < d->ndisk; j++) {
			if (d->disk[j].readonly)
				continue;
			l = strlen(d->disk[j].source);
			if (strncmp(r->path, d->disk[j].source, l) != 0 ||
			    (r->path[l] != '\0' && r->path[l] != '/' &&
			    strcmp(d->disk[j].source, "/") != 0))
				continue;
			(void)snprintf(fix, sizeof(fix), "make %s of %s "
			    "read-only, or remove the root", d->disk[j].device,
			    d->disk[j].name);
			check(job, "mount_roots", "FAIL", fix, "%s lies in %s, "
			    "mounted read-write into %s (%s)", r->path,
			    d->disk[j].source, d->disk[j].name,
			    d->disk[j].device);
			bad++;
		}
	}
	if (bad == 0)
		check(job, "mount_roots", "PASS", NULL, "%d root(s): each "
		    "exists, none inside a read-write mount",
		    env->conf.ssh_nroots);
}

/* running containers of the repo: a policy, and the forwards declared */
static void
check_containers(struct job *job)
{
	struct doc		*d = job->state;
	const struct repoconf	*c = &d->ctx->conf;
	char			 dev[JB_DEVICE_MAX], fix[160];
	size_t			 i, j, k, nrun = 0, bad = 0;

	for (i = 0; i < d->ninst; i++) {
		if (strcmp(d->inst[i].state, "Running") != 0)
			continue;
		nrun++;
		for (j = 0; j < d->nheld; j++)
			if (strcmp(d->held[j], d->inst[i].name) == 0)
				break;
		(void)snprintf(fix, sizeof(fix), "jbctl net strict %s",
		    d->inst[i].name);
		if (j == d->nheld) {
			check(job, "network policy", "FAIL", fix, "%s runs, "
			    "but jb-netd holds no policy for it: every packet "
			    "from it is refused", d->inst[i].name);
			bad++;
		} else if (d->broken[j][0] != '\0') {
			check(job, "network policy", "WARN", "jbctl net status "
			    "NAME says more", "%s: %s", d->inst[i].name,
			    d->broken[j]);
			bad++;
		}
		for (k = 0; k < c->host_ports.n; k++) {
			(void)port_device(dev, sizeof(dev), PORT_TO_CONTAINER,
			    c->host_ports.v[k].proto,
			    (uint32_t)c->host_ports.v[k].port,
			    c->host_ports.v[k].name);
			for (j = 0; j < d->nport; j++)
				if (strcmp(d->port[j].name,
				    d->inst[i].name) == 0 &&
				    strcmp(d->port[j].device, dev) == 0)
					break;
			if (j < d->nport)
				continue;
			(void)snprintf(fix, sizeof(fix), "jbctl apply %s",
			    d->inst[i].name);
			check(job, "port forwards", "FAIL", fix, "%s lacks "
			    "%s, which host_ports declares", d->inst[i].name,
			    dev);
			bad++;
		}
	}
	if (bad == 0)
		check(job, "containers", "PASS", NULL, "%zu running: each has "
		    "its network policy and the %zu forward(s) host_ports "
		    "declares", nrun, c->host_ports.n);
}

static void
doc_send(struct job *job, int proc, uint32_t type, const void *m, size_t len)
{
	if (req_send(proc, type, m, len, -1, got_msg, step_done, job) == NULL)
		job_end(job, 0, "cannot reach %s", children[proc].name);
}

static void
doc_next(struct job *job)
{
	struct doc		*d = job->state;
	struct jb_incus_target	 t, t0;
	int			 repo = d->ctx != NULL && d->ctx->have_conf;

	memset(&t, 0, sizeof(t));
	memset(&t0, 0, sizeof(t0));
	if (repo)
		(void)strlcpy(t.prefix, d->ctx->conf.container_prefix,
		    sizeof(t.prefix));
	switch (++d->step) {
	case 1:
		doc_send(job, PROC_INCUS, IMSG_INCUS_SERVER, NULL, 0);
		return;
	case 2:
		doc_send(job, PROC_INCUS, IMSG_INCUS_NETINFO, NULL, 0);
		return;
	case 3:
		doc_send(job, PROC_NETD, IMSG_NETD_CHECK, NULL, 0);
		return;
	case 4:
		/* remote.ssh.mount_roots against every suite disk */
		if (env->conf.ssh_nroots > 0) {
			doc_send(job, PROC_INCUS, IMSG_INCUS_DISK_LIST, &t0,
			    sizeof(t0));
			return;
		}
		d->step++;
		break;
	}
	if (repo) {
		switch (d->step) {
		case 5:
			(void)strlcpy(t.name, d->ctx->conf.base_alias,
			    sizeof(t.name));
			t.prefix[0] = '\0';
			doc_send(job, PROC_INCUS, IMSG_INCUS_IMAGE_ALIAS, &t,
			    sizeof(t));
			return;
		case 6:
			doc_send(job, PROC_INCUS, IMSG_INCUS_LIST, &t,
			    sizeof(t));
			return;
		case 7:
			doc_send(job, PROC_INCUS, IMSG_INCUS_PORT_LIST, &t,
			    sizeof(t));
			return;
		case 8:
			doc_send(job, PROC_NETD, IMSG_NETD_STATUS, &t,
			    sizeof(t));
			return;
		case 9:
			check_containers(job);
			break;
		}
	}
	if (d->nfail > 0)
		job_end(job, 0, "doctor: %d check(s) FAIL", d->nfail);
	else
		job_end(job, 1, NULL);
}

static void
doc_repo(struct job *job, struct repo_ctx *ctx)
{
	struct doc	*d;

	if ((d = calloc(1, sizeof(*d))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	d->ctx = ctx;
	job->state = d;
	job->free_state = doc_free;
	check_processes(job);
	check_subids(job);
	check_journal(job);
	check_disk(job);
	check_repo(job);
	doc_next(job);
}

void
cmd_doctor(struct job *job)
{
	repo_resolve(job, "", 0, doc_repo);
}
