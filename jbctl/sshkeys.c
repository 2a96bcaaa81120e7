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
 * jbctl remote ssh key add|rm|ls: the user's own file, written by the
 * user, so no daemon writes into a home.  jailbeed reads it at every key
 * offered to jb-sshd: a change takes effect at the next connection.
 * The file is replaced whole (a temporary file renamed over it), never
 * left half-written.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authkeys.h"
#include "cmdtab.h"
#include "jbctl.h"

#define KEYS_MAX	256

static int
keys_path(char *path, size_t len)
{
	struct passwd	*pw;
	const char	*home = getenv("HOME");
	char		 dir[PATH_MAX];

	if ((home == NULL || home[0] != '/') &&
	    ((pw = getpwuid(getuid())) == NULL || (home = pw->pw_dir) == NULL))
		return -1;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/.config/jailbee", home) >=
	    sizeof(dir) ||
	    (size_t)snprintf(path, len, "%s/authorized_keys", dir) >= len)
		return -1;
	return 0;
}

/*
 * K3: a directory the suite makes for its files is the owner's alone,
 * 0700 whatever the umask (chmod after mkdir, as mkdir's mode is masked).
 * One already there is the user's and keeps its mode.
 */
static int
conf_mkdir(const char *dir)
{
	if (mkdir(dir, 0700) == 0)
		return chmod(dir, 0700);
	return errno == EEXIST ? 0 : -1;
}

/* ~/.config and ~/.config/jailbee, the directories above path */
static int
keys_dirs(const char *path)
{
	char	 dir[PATH_MAX], *slash;

	if (strlcpy(dir, path, sizeof(dir)) >= sizeof(dir) ||
	    (slash = strrchr(dir, '/')) == NULL)
		return -1;
	*slash = '\0';				/* .../.config/jailbee */
	if ((slash = strrchr(dir, '/')) == NULL)
		return -1;
	*slash = '\0';				/* .../.config */
	if (conf_mkdir(dir) == -1) {
		fprintf(stderr, "jbctl: mkdir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	*slash = '/';
	if (conf_mkdir(dir) == -1) {
		fprintf(stderr, "jbctl: mkdir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* every line of the file; -1 on a read error (a missing file is empty) */
static int
keys_read(const char *path, char **lines, int *n)
{
	FILE	*fp;
	char	 buf[AUTHKEY_LINE_MAX];

	*n = 0;
	if ((fp = fopen(path, "r")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (*n < KEYS_MAX && fgets(buf, sizeof(buf), fp) != NULL) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if ((lines[(*n)++] = strdup(buf)) == NULL) {
			fclose(fp);
			return -1;
		}
	}
	fclose(fp);
	return 0;
}

static int
keys_write(const char *path, char **lines, int n)
{
	char	 tmp[PATH_MAX];
	FILE	*fp;
	int	 fd, i;

	if (keys_dirs(path) == -1)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1)
		return -1;
	if (fchmod(fd, 0600) == -1 || (fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (lines[i] != NULL)
			fprintf(fp, "%s\n", lines[i]);
	if (fflush(fp) == EOF || fsync(fd) == -1 || fclose(fp) == EOF ||
	    rename(tmp, path) == -1) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
local_ssh_key(int id, const char *arg)
{
	struct authkey	 k, e;
	char		 path[PATH_MAX], buf[AUTHKEY_LINE_MAX], err[256];
	char		 fp[AUTHKEY_FP_MAX], *lines[KEYS_MAX + 1];
	FILE		*in = stdin;
	int		 n, i, found = 0, rv = 1;

	if (keys_path(path, sizeof(path)) == -1) {
		fprintf(stderr, "jbctl: cannot find your home directory\n");
		return 1;
	}
	if (keys_read(path, lines, &n) == -1) {
		fprintf(stderr, "jbctl: %s: %s\n", path, strerror(errno));
		return 1;
	}
	switch (id) {
	case CMD_REMOTE_SSH_KEY_LS:
		for (i = 0; i < n; i++) {
			if (authkey_parse(lines[i], &k, err, sizeof(err)) != 0)
				continue;
			authkey_fingerprint(k.blob, k.bloblen, fp, sizeof(fp));
			printf("%s %s %s\n", fp, k.type, k.comment);
		}
		rv = 0;
		break;
	case CMD_REMOTE_SSH_KEY_ADD:
		if (arg != NULL && strcmp(arg, "-") != 0 &&
		    (in = fopen(arg, "r")) == NULL) {
			fprintf(stderr, "jbctl: %s: %s\n", arg,
			    strerror(errno));
			break;
		}
		if (fgets(buf, sizeof(buf), in) == NULL) {
			fprintf(stderr, "jbctl: remote ssh key add: no key "
			    "given; pass a .pub file or pipe one line in\n");
			break;
		}
		buf[strcspn(buf, "\r\n")] = '\0';
		if (authkey_parse(buf, &k, err, sizeof(err)) != 0) {
			fprintf(stderr, "jbctl: remote ssh key add: %s\n",
			    err[0] ? err : "no key on the line");
			break;
		}
		authkey_fingerprint(k.blob, k.bloblen, fp, sizeof(fp));
		for (i = 0; i < n; i++)
			if (authkey_parse(lines[i], &e, err, sizeof(err)) == 0 &&
			    e.bloblen == k.bloblen &&
			    memcmp(e.blob, k.blob, k.bloblen) == 0)
				found = 1;
		if (found) {
			printf("%s is already there\n", fp);
			rv = 0;
			break;
		}
		if (n == KEYS_MAX) {
			fprintf(stderr, "jbctl: %s: %d keys at most\n", path,
			    KEYS_MAX);
			break;
		}
		lines[n++] = buf;
		if (keys_write(path, lines, n) == -1) {
			fprintf(stderr, "jbctl: %s: %s\n", path,
			    strerror(errno));
			n--;
			break;
		}
		n--;
		printf("added %s\n", fp);
		rv = 0;
		break;
	case CMD_REMOTE_SSH_KEY_RM:
		for (i = 0; i < n; i++) {
			if (authkey_parse(lines[i], &k, err, sizeof(err)) != 0)
				continue;
			authkey_fingerprint(k.blob, k.bloblen, fp, sizeof(fp));
			if (strcmp(fp, arg) == 0) {
				free(lines[i]);
				lines[i] = NULL;
				found = 1;
			}
		}
		if (!found) {
			fprintf(stderr, "jbctl: remote ssh key rm: no key with "
			    "fingerprint %s; see jbctl remote ssh key ls\n",
			    arg);
			break;
		}
		if (keys_write(path, lines, n) == -1) {
			fprintf(stderr, "jbctl: %s: %s\n", path,
			    strerror(errno));
			break;
		}
		printf("removed %s\n", arg);
		rv = 0;
		break;
	}
	if (in != stdin)
		fclose(in);
	for (i = 0; i < n; i++)
		free(lines[i]);
	return rv;
}
