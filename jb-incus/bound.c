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
 * The bounds on what the parent may ask of Incus (bound.h).  A source
 * is judged twice: as written (the system's trees, the state directory
 * except the owner's mounts area under it, the control socket's
 * directory), then as jb-incus finds it, part by part: a symbolic link
 * anywhere, or a final part that is neither a directory nor a regular
 * file, is refused.  A part jb-incus may not search (an owner's 0700
 * home) ends the walk: what lies beyond it is judged by its path alone.
 */

#include <sys/stat.h>

#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "bound.h"
#include "ctrlimits.h"
#include "gate.h"
#include "log.h"
#include "names.h"

struct bound	jb_bound;

/* trees a container never gets: the system's, and Incus's own */
static const char *const system_trees[] = {
	"/etc", "/proc", "/sys", "/dev", "/run", "/var/run", "/boot",
	"/var/lib/incus", "/var/lib", "/var/spool", "/root", "/usr", "/bin",
	"/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL
};

/* path is dir or lies under it */
static int
under(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (n == 0 || strcmp(dir, "/") == 0)
		return 0;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

int
bound_set(struct bound *b, uid_t uid, gid_t gid, const char *state_dir,
    const char *state_real, const char *sock_dir, const char *sock_real,
    char *why, size_t len)
{
	memset(b, 0, sizeof(*b));
	if (uid == 0) {
		(void)snprintf(why, len, "the owner must not be root");
		return -1;
	}
	b->uid = uid;
	b->gid = gid;
	if (state_dir[0] != '/' || state_real[0] != '/' ||
	    sock_dir[0] != '/') {
		(void)snprintf(why, len, "state directory %s or socket "
		    "directory %s is not an absolute path", state_dir,
		    sock_dir);
		return -1;
	}
	if (strlcpy(b->state_dir, state_dir, sizeof(b->state_dir)) >=
	    sizeof(b->state_dir) || strlcpy(b->state_real, state_real,
	    sizeof(b->state_real)) >= sizeof(b->state_real) ||
	    (size_t)snprintf(b->mounts, sizeof(b->mounts), "%s/mounts",
	    state_real) >= sizeof(b->mounts) || strlcpy(b->sock_dir,
	    sock_dir, sizeof(b->sock_dir)) >= sizeof(b->sock_dir) ||
	    strlcpy(b->sock_real, sock_real ? sock_real : "",
	    sizeof(b->sock_real)) >= sizeof(b->sock_real)) {
		(void)snprintf(why, len, "state directory %s: path too long",
		    state_dir);
		return -1;
	}
	(void)snprintf(b->gpg, sizeof(b->gpg), "/run/user/%u/gnupg",
	    (unsigned)uid);
	return 0;
}

void
bound_init(const char *owner, const char *state_dir, const char *socket)
{
	struct passwd	*pw;
	char		 sreal[PATH_MAX], sock[PATH_MAX], dir[PATH_MAX];
	char		 dreal[PATH_MAX], why[256];

	if (owner == NULL || state_dir == NULL || socket == NULL)
		fatalx("jb-incus: the owner (-o), the state directory (-s) "
		    "and the control socket (-S) must be given");
	if ((pw = getpwnam(owner)) == NULL)
		fatalx("jb-incus: owner %s: no such user", owner);
	if (realpath(state_dir, sreal) == NULL)
		fatal("jb-incus: state directory %s", state_dir);
	if (strlcpy(sock, socket, sizeof(sock)) >= sizeof(sock))
		fatalx("jb-incus: socket path too long");
	(void)strlcpy(dir, dirname(sock), sizeof(dir));
	/* made by jailbeed after its children start: may not exist yet */
	if (realpath(dir, dreal) == NULL)
		dreal[0] = '\0';
	if (bound_set(&jb_bound, pw->pw_uid, pw->pw_gid, state_dir, sreal,
	    dir, dreal, why, sizeof(why)) == -1)
		fatalx("jb-incus: %s", why);
}

int
bound_idmap(const struct bound *b, uint32_t uid, uint32_t gid, char *why,
    size_t len)
{
	if (uid == b->uid && gid == b->gid)
		return 1;
	(void)snprintf(why, len, "uid %u gid %u: raw.idmap maps only the "
	    "owner's ids (%u:%u)", uid, gid, (unsigned)b->uid,
	    (unsigned)b->gid);
	return 0;
}

int
bound_exec_ids(const struct bound *b, uint32_t uid, uint32_t gid, char *why,
    size_t len)
{
	if ((uid == 0 || uid == b->uid) && (gid == 0 || gid == b->gid))
		return 1;
	(void)snprintf(why, len, "uid %u gid %u: commands run as root (0) or "
	    "as the owner (%u:%u) only", uid, gid, (unsigned)b->uid,
	    (unsigned)b->gid);
	return 0;
}

int
bound_path(const struct bound *b, const char *path, char *why, size_t len)
{
	int	i;

	if (path[0] != '/') {
		(void)snprintf(why, len, "source \"%.200s\" is not an absolute "
		    "path", path);
		return 0;
	}
	if (strcmp(path, "/") == 0) {
		(void)snprintf(why, len, "source / is the host's root "
		    "directory");
		return 0;
	}
	/* the owner's own, inside trees refused below */
	if (under(path, b->mounts) || under(path, b->gpg))
		return 1;
	for (i = 0; system_trees[i] != NULL; i++)
		if (under(path, system_trees[i])) {
			(void)snprintf(why, len, "source %.200s lies under "
			    "%s, which no container gets", path,
			    system_trees[i]);
			return 0;
		}
	if (under(path, b->state_dir) || under(path, b->state_real)) {
		(void)snprintf(why, len, "source %.200s lies in the suite's "
		    "state directory %s", path, b->state_dir);
		return 0;
	}
	if (under(path, b->sock_dir) || under(path, b->sock_real)) {
		(void)snprintf(why, len, "source %.200s lies in the control "
		    "socket's directory %s", path, b->sock_dir);
		return 0;
	}
	return 1;
}

static const char *
node_kind(mode_t m)
{
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device node";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISFIFO(m))
		return "a named pipe";
	return "neither a directory nor a regular file";
}

int
bound_source(const struct bound *b, const char *path, char *why, size_t len)
{
	struct stat	 st;
	char		 part[PATH_MAX];
	const char	*e;

	if (!bound_path(b, path, why, len))
		return 0;
	if (strlen(path) >= sizeof(part)) {
		(void)snprintf(why, len, "source %.200s: path too long", path);
		return 0;
	}
	for (e = path + 1;; e++) {
		if (*e != '/' && *e != '\0')
			continue;
		memcpy(part, path, (size_t)(e - path));
		part[e - path] = '\0';
		if (lstat(part, &st) == -1) {
			/* beyond a directory jb-incus may not search */
			if (errno == EACCES)
				return 1;
			(void)snprintf(why, len, "source %.200s: %.200s: %s",
			    path, part, strerror(errno));
			return 0;
		}
		if (S_ISLNK(st.st_mode)) {
			(void)snprintf(why, len, "source %.200s has a symbolic "
			    "link at %.200s: give its real path", path, part);
			return 0;
		}
		if (*e == '\0')
			break;
		if (!S_ISDIR(st.st_mode)) {
			(void)snprintf(why, len, "source %.200s: %.200s is not "
			    "a directory", path, part);
			return 0;
		}
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		(void)snprintf(why, len, "source %.200s is %s", path,
		    node_kind(st.st_mode));
		return 0;
	}
	return 1;
}

static const char *
jstr(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int
config_ok(const struct bound *b, const char *k, struct json_object *v,
    char *why, size_t len)
{
	const char	*s = json_object_is_type(v, json_type_string) ?
			    json_object_get_string(v) : NULL;
	char		 idmap[64];

	if (s == NULL) {
		(void)snprintf(why, len, "config key %.100s is not a string",
		    k);
		return 0;
	}
	if (strcmp(k, "security.nesting") == 0 && strcmp(s, "true") == 0)
		return 1;
	/* no /dev/incus in the container: it reads none of its keys */
	if (strcmp(k, "security.guestapi") == 0 && strcmp(s, "false") == 0)
		return 1;
	/* started by jailbeed only, never by incusd on its own start */
	if (strcmp(k, "boot.autostart") == 0 && strcmp(s, "false") == 0)
		return 1;
	if (strcmp(k, "raw.idmap") == 0) {
		if (b->uid == b->gid)
			(void)snprintf(idmap, sizeof(idmap), "both %u %u",
			    (unsigned)b->uid, (unsigned)b->uid);
		else
			(void)snprintf(idmap, sizeof(idmap), "uid %u %u\n"
			    "gid %u %u", (unsigned)b->uid, (unsigned)b->uid,
			    (unsigned)b->gid, (unsigned)b->gid);
		if (strcmp(s, idmap) == 0)
			return 1;
		(void)snprintf(why, len, "raw.idmap \"%.60s\" maps other ids "
		    "than the owner's (%u:%u)", s, (unsigned)b->uid,
		    (unsigned)b->gid);
		return 0;
	}
	if (strncmp(k, "user.jailbee.", 13) == 0 ||
	    strncmp(k, "environment.", 12) == 0)
		return 1;
	/* the resource limits, each in the one form the suite writes */
	if ((strcmp(k, "limits.memory") == 0 && lim_size_ok(s, 1)) ||
	    (strcmp(k, "limits.cpu") == 0 && lim_count_ok(s, 1,
	    LIM_CPU_MAX)) ||
	    (strcmp(k, "limits.processes") == 0 && lim_count_ok(s,
	    LIM_PROCESSES_MIN, LIM_PROCESSES_MAX)))
		return 1;
	if (strncmp(k, "limits.", 7) == 0) {
		(void)snprintf(why, len, "config key %.100s: \"%.40s\" is not "
		    "a limit the suite sets", k, s);
		return 0;
	}
	(void)snprintf(why, len, "config key %.100s is not one the suite "
	    "sets", k);
	return 0;
}

int
bound_gate_source(const struct bound *b, const char *name, char *buf,
    size_t len)
{
	int	n;

	if (!name_instance_ok(name))
		return -1;
	n = snprintf(buf, len, "%s/%s/%s", b->sock_dir, GATE_SUBDIR, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * The start gate: exactly the one the suite makes for this instance,
 * the only disk whose source is in the control socket's directory
 */
static int
gate_ok(const struct bound *b, const char *inst, struct json_object *d,
    char *why, size_t len)
{
	char		 src[PATH_MAX];
	const char	*s;

	if (inst == NULL || bound_gate_source(b, inst, src, sizeof(src)) ==
	    -1)
		goto bad;
	json_object_object_foreach(d, dk, dv) {
		s = json_object_is_type(dv, json_type_string) ?
		    json_object_get_string(dv) : NULL;
		if (s == NULL ||
		    !((strcmp(dk, "type") == 0 && strcmp(s, "disk") == 0) ||
		    (strcmp(dk, "source") == 0 && strcmp(s, src) == 0) ||
		    (strcmp(dk, "path") == 0 && strcmp(s, GATE_PATH) == 0) ||
		    (strcmp(dk, "readonly") == 0 && strcmp(s, "true") == 0)))
			goto bad;
	}
	if (jstr(d, "source") != NULL && jstr(d, "path") != NULL &&
	    jstr(d, "readonly") != NULL)
		return 1;
bad:
	(void)snprintf(why, len, "device %s: only the instance's own start "
	    "gate, read-only at %s", GATE_DEVICE, GATE_PATH);
	return 0;
}

static int
device_ok(const struct bound *b, const char *inst, const char *name,
    struct json_object *d, const char *bridge, char *why, size_t len)
{
	const char	*t = jstr(d, "type"), *s;

	if (t != NULL && strcmp(t, "nic") == 0) {
		if ((s = jstr(d, "network")) != NULL && strcmp(s, bridge) == 0)
			return 1;
		(void)snprintf(why, len, "device %.60s: a nic on %s only",
		    name, bridge);
		return 0;
	}
	/* the root disk: on its pool, as the default profile has it, sized */
	if (t != NULL && strcmp(t, "disk") == 0 && strcmp(name, "root") == 0) {
		json_object_object_foreach(d, dk, dv) {
			s = json_object_is_type(dv, json_type_string) ?
			    json_object_get_string(dv) : NULL;
			if (s != NULL && (strcmp(dk, "type") == 0 ||
			    (strcmp(dk, "path") == 0 && strcmp(s, "/") == 0) ||
			    (strcmp(dk, "pool") == 0 && s[0] != '\0') ||
			    (strcmp(dk, "size") == 0 && lim_size_ok(s, 0))))
				continue;
			(void)snprintf(why, len, "device root: %.40s is not "
			    "what the suite sets on a root disk", dk);
			return 0;
		}
		if (jstr(d, "path") == NULL || jstr(d, "pool") == NULL) {
			(void)snprintf(why, len, "device root: a path / on a "
			    "pool only");
			return 0;
		}
		return 1;
	}
	if (strcmp(name, GATE_DEVICE) == 0)
		return gate_ok(b, inst, d, why, len);
	if (t != NULL && strcmp(t, "disk") == 0) {
		if (jstr(d, "pool") != NULL ||
		    (s = jstr(d, "source")) == NULL) {
			(void)snprintf(why, len, "device %.60s: a disk with a "
			    "host source only", name);
			return 0;
		}
		return bound_source(b, s, why, len);
	}
	if (t != NULL && strcmp(t, "proxy") == 0)
		return 1;
	(void)snprintf(why, len, "device %.60s of type %.40s is not one the "
	    "suite makes", name, t ? t : "(none)");
	return 0;
}

int
bound_instance(const struct bound *b, struct json_object *body,
    const char *bridge, char *why, size_t len)
{
	struct json_object	*cfg, *devs;

	if (json_object_object_get_ex(body, "config", &cfg)) {
		if (!json_object_is_type(cfg, json_type_object)) {
			(void)snprintf(why, len, "config is not an object");
			return 0;
		}
		json_object_object_foreach(cfg, k, v)
			if (!config_ok(b, k, v, why, len))
				return 0;
	}
	if (json_object_object_get_ex(body, "devices", &devs)) {
		if (!json_object_is_type(devs, json_type_object)) {
			(void)snprintf(why, len, "devices is not an object");
			return 0;
		}
		json_object_object_foreach(devs, k, v)
			if (!json_object_is_type(v, json_type_object) ||
			    !device_ok(b, jstr(body, "name"), k, v, bridge,
			    why, len)) {
				if (!json_object_is_type(v, json_type_object))
					(void)snprintf(why, len, "device %.60s "
					    "is not an object", k);
				return 0;
			}
	}
	return 1;
}
