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
 * network.trust_host_cas: the certificate authorities the host's
 * administrator added (the *.crt files of /usr/local/share/ca-certificates
 * and its subdirectories, as update-ca-certificates reads them) go into
 * the container's trust store at new and at every start, so that a
 * company's TLS-intercepting proxy, which the host trusts, is trusted
 * inside too.  Off by default: it widens whom the container's TLS
 * clients believe.
 *
 * The files are read here, on the host; only PEM certificates (printable
 * text holding a BEGIN CERTIFICATE line) of at most HOSTCA_FILE_MAX bytes
 * go, each as an argument of a fixed script run as root in the container,
 * which writes it under /usr/local/share/ca-certificates/jailbee-host
 * (emptied first, so a CA the host dropped goes too), then runs
 * update-ca-certificates --fresh.  A file that is not one is skipped and
 * named.
 */

#include <sys/queue.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "hostcas.h"
#include "log.h"
#include "termsafe.h"

#define HOSTCA_DIR		"/usr/local/share/ca-certificates"
#define HOSTCA_MAX		32
/* one exec's arguments hold the script and one certificate */
#define HOSTCA_FILE_MAX		3072

static const char reset_script[] =
    "d=/usr/local/share/ca-certificates/jailbee-host\n"
    "rm -rf \"$d\" && mkdir -p \"$d\"\n";
static const char put_script[] =
    "printf '%s' \"$2\" > \"/usr/local/share/ca-certificates/jailbee-host/"
    "$1\"\n";
static const char update_script[] =
    "command -v update-ca-certificates > /dev/null || { echo \"the image "
    "has no update-ca-certificates (package ca-certificates)\" >&2; "
    "exit 1; }\n"
    "update-ca-certificates --fresh > /dev/null\n";

struct hostca {
	char	name[NAME_MAX + 1];	/* in the container's directory */
	char	pem[HOSTCA_FILE_MAX + 1];
};

struct hostcas {
	LIST_ENTRY(hostcas)	 entry;
	struct job	*job;
	char		 instance[JB_INSTANCE_MAX];
	struct hostca	*v;
	int		 n;
	int		 next;		/* -1: reset, n: update */
	hostcas_cb	 cb;
	void		*arg;
};

static void	cas_step(struct hostcas *);

/* those running; a job runs one at a time */
static LIST_HEAD(, hostcas) running = LIST_HEAD_INITIALIZER(running);

static struct hostcas *
cas_find(struct job *job)
{
	struct hostcas	*h;

	LIST_FOREACH(h, &running, entry)
		if (h->job == job)
			return h;
	fatalx("%s: no hostcas for the job", __func__);
}

static void
cas_end(struct hostcas *h, int ok, const char *err)
{
	struct job	*job = h->job;
	hostcas_cb	 cb = h->cb;
	void		*arg = h->arg;
	char		 e[JB_ERR_TEXT_MAX];

	(void)strlcpy(e, err != NULL ? err : "", sizeof(e));
	LIST_REMOVE(h, entry);
	free(h->v);
	free(h);
	cb(job, ok, e, arg);
}

/* 1 when buf is printable PEM text with a certificate in it */
static int
pem_ok(const char *buf, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++)
		if ((buf[i] < 0x20 || buf[i] > 0x7e) && buf[i] != '\n' &&
		    buf[i] != '\r' && buf[i] != '\t')
			return 0;
	return strstr(buf, "-----BEGIN CERTIFICATE-----") != NULL;
}

/* one file: read into the next entry, or skipped with its reason */
static void
cas_file(struct job *job, struct hostcas *h, int dfd, const char *name,
    const char *shown, const char *prefix)
{
	struct hostca	*c;
	struct stat	 st;
	ssize_t		 r;
	size_t		 l = strlen(name);
	int		 fd;

	if (l < 5 || strcmp(name + l - 4, ".crt") != 0)
		return;
	if (h->n >= HOSTCA_MAX) {
		job_progress(job, "network.trust_host_cas: %s skipped: more "
		    "than %d certificates", shown, HOSTCA_MAX);
		return;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) ==
	    -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > HOSTCA_FILE_MAX) {
		job_progress(job, "network.trust_host_cas: %s skipped: %s",
		    shown, fd == -1 ? strerror(errno) : st.st_size >
		    HOSTCA_FILE_MAX ? "larger than one certificate" :
		    "not a regular file");
		if (fd != -1)
			(void)close(fd);
		return;
	}
	c = &h->v[h->n];
	memset(c, 0, sizeof(*c));
	r = read(fd, c->pem, HOSTCA_FILE_MAX);
	(void)close(fd);
	if (r <= 0 || !pem_ok(c->pem, (size_t)r)) {
		job_progress(job, "network.trust_host_cas: %s skipped: not a "
		    "PEM certificate", shown);
		return;
	}
	/* its path below the directory, one name: a/b.crt is a_b.crt */
	if ((size_t)snprintf(c->name, sizeof(c->name), "%s%s%s", prefix,
	    prefix[0] != '\0' ? "_" : "", name) >= sizeof(c->name)) {
		job_progress(job, "network.trust_host_cas: %s skipped: its "
		    "name is too long", shown);
		return;
	}
	h->n++;
}

/* the directory's *.crt and those of its subdirectories, sorted */
static void
cas_dir(struct job *job, struct hostcas *h, int dfd, const char *shown,
    const char *prefix, int depth)
{
	struct dirent	**ents;
	struct stat	  st;
	char		  sub[PATH_MAX], pre[NAME_MAX + 1];
	int		  i, n, fd;

	if ((n = scandirat(dfd, ".", &ents, NULL, alphasort)) == -1)
		return;
	for (i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;

		(void)snprintf(sub, sizeof(sub), "%s/%s", shown, e);
		if (e[0] == '.') {
			free(ents[i]);
			continue;
		}
		if (fstatat(dfd, e, &st, 0) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < 2 && (size_t)snprintf(pre, sizeof(pre),
			    "%s%s%s", prefix, prefix[0] != '\0' ? "_" : "", e) <
			    sizeof(pre) && (fd = openat(dfd, e, O_RDONLY |
			    O_DIRECTORY | O_CLOEXEC)) != -1) {
				cas_dir(job, h, fd, sub, pre, depth + 1);
				(void)close(fd);
			}
		} else
			cas_file(job, h, dfd, e, sub, prefix);
		free(ents[i]);
	}
	free(ents);
}

static void
cas_ran(struct job *job, struct capture_result *res)
{
	struct hostcas	*h = cas_find(job);
	char		 e[JB_ERR_TEXT_MAX], line[512];
	size_t		 l;

	if (!res->ok || res->status != 0) {
		l = res->errlen < sizeof(line) - 1 ? res->errlen :
		    sizeof(line) - 1;
		memcpy(line, res->err, l);
		line[l] = '\0';
		line[strcspn(line, "\n")] = '\0';
		(void)snprintf(e, sizeof(e), "network.trust_host_cas: in %s: "
		    "%.700s", h->instance, !res->ok ? res->error : line[0] !=
		    '\0' ? termsafe(line) : "a step failed");
		cas_end(h, 0, e);
		return;
	}
	h->next++;
	cas_step(h);
}

static void
cas_step(struct hostcas *h)
{
	const char	*argv[7];
	static const char *const envp[] = { "HOME=/root",
	    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	    NULL };
	int		 n = 0;

	if (h->next > h->n) {
		job_progress(h->job, "network.trust_host_cas: %d of the host's "
		    "CAs (%s) trusted in %s", h->n, HOSTCA_DIR, h->instance);
		cas_end(h, 1, NULL);
		return;
	}
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	if (h->next == -1)
		argv[n++] = reset_script;
	else if (h->next == h->n)
		argv[n++] = update_script;
	else {
		argv[n++] = put_script;
		argv[n++] = "jailbee-hostca";
		argv[n++] = h->v[h->next].name;
		argv[n++] = h->v[h->next].pem;
	}
	argv[n] = NULL;
	if (capture_run(h->job, h->instance, 0, 0, "/", argv, envp,
	    cas_ran) == -1) {
		cas_end(h, 0, "network.trust_host_cas: jb-incus unreachable");
	}
}

void
host_cas_apply(struct job *job, const char *instance, hostcas_cb cb,
    void *arg)
{
	struct hostcas	*h;
	int		 fd;

	if (!env->conf.trust_host_cas) {
		cb(job, 1, "", arg);
		return;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->v = calloc(HOSTCA_MAX, sizeof(*h->v))) == NULL) {
		free(h);
		cb(job, 0, "out of memory", arg);
		return;
	}
	h->job = job;
	(void)strlcpy(h->instance, instance, sizeof(h->instance));
	h->cb = cb;
	h->arg = arg;
	h->next = -1;
	if ((fd = open(HOSTCA_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) !=
	    -1) {
		cas_dir(job, h, fd, HOSTCA_DIR, "", 1);
		(void)close(fd);
	} else if (errno != ENOENT)
		job_progress(job, "network.trust_host_cas: %s: %s", HOSTCA_DIR,
		    strerror(errno));
	LIST_INSERT_HEAD(&running, h, entry);
	cas_step(h);
}
