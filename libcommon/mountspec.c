/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/sysmacros.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "mountspec.h"

/* a is b, or a directory above b */
static int
at_or_above(const char *a, const char *b)
{
	size_t	n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

int
mnt_target_ok(const char *p, const char *reserved, char *err, size_t errlen)
{
	static const char *const sys[] = { "/proc", "/sys", "/dev" };
	const char	*part;
	size_t		 i, len;

	if (p[0] != '/')
		return errtext(err, errlen, "container path \"%.200s\" is "
		    "relative: it must be absolute, such as /home/dev/x", p);
	if (strcmp(p, "/") == 0)
		return errtext(err, errlen,
		    "container path \"/\" would replace "
		    "the container's root");
	for (part = p + 1; ; part += len + 1) {
		len = strcspn(part, "/");
		if (len == 0 || (len == 1 && part[0] == '.') ||
		    (len == 2 && part[0] == '.' && part[1] == '.'))
			return errtext(err, errlen,
			    "container path \"%.200s\" is "
			    "not canonical: no empty, \".\" or \"..\" part, "
			    "no trailing \"/\"", p);
		if (part[len] == '\0')
			break;
	}
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (at_or_above(sys[i], p) || at_or_above(p, sys[i]))
			return errtext(err, errlen, "container path %.200s: %s "
			    "belongs to the container's kernel interfaces",
			    p, sys[i]);
	if (at_or_above(p, MNT_HOST_SOURCE) || at_or_above(MNT_HOST_SOURCE, p))
		return errtext(err, errlen,
		    "container path %.200s would shadow "
		    "or enter %s, the suite's read-only view of the "
		    "checkout", p, MNT_HOST_SOURCE);
	if (reserved != NULL && *reserved != '\0' && at_or_above(p, reserved))
		return errtext(err, errlen,
		    "container path %.200s would shadow "
		    "%s, the container's own checkout", p, reserved);
	return 0;
}

int
mnt_expand(const char *host, const char *home, char *out, size_t outlen,
    char *err, size_t errlen)
{
	size_t	n;

	if (host[0] == '/')
		n = strlcpy(out, host, outlen);
	else if (host[0] == '~' && (host[1] == '\0' || host[1] == '/')) {
		if (home == NULL || home[0] != '/')
			return errtext(err, errlen, "host path %.200s: the "
			    "owner has no absolute home directory", host);
		n = (size_t)snprintf(out, outlen, "%s%s", home, host + 1);
	} else
		return errtext(err, errlen, "host path \"%.200s\" must be "
		    "absolute or start with ~/", host);
	if (n >= outlen)
		return errtext(err, errlen,
		    "host path %.100s...: too long", host);
	return 0;
}

int
mnt_clean(const char *in, char *out, size_t outlen, char *err,
    size_t errlen)
{
	const char	*p = in, *e;
	size_t		 o = 0, n;

	if (in[0] != '/')
		return errtext(err, errlen, "host path \"%.200s\" is not "
		    "absolute", in);
	if (outlen < 2)
		return errtext(err, errlen,
		    "host path %.100s...: too long", in);
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return errtext(err, errlen,
			    "host path %.200s has a \"..\" "
			    "part: write the path without it", in);
		if (o + 1 + n >= outlen)
			return errtext(err, errlen, "host path %.100s...: too "
			    "long", in);
		out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		p = e;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/*
 * One mount on several containers: the same entry of one repo; the
 * checkout read-only (host-source) and, in --mount mode, read-write
 * (host-repo-rw) are one entry too, the seed's shared working tree.
 */
static int
same_entry(const struct mnt_src *a, const struct mnt_src *b)
{
	if (strcmp(a->prefix, b->prefix) != 0 ||
	    strcmp(a->source, b->source) != 0)
		return 0;
	if (strcmp(a->device, b->device) == 0)
		return 1;
	return (strcmp(a->device, MNT_DEV_CHECKOUT) == 0 ||
	    strcmp(a->device, MNT_DEV_CHECKOUT_RW) == 0) &&
	    (strcmp(b->device, MNT_DEV_CHECKOUT) == 0 ||
	    strcmp(b->device, MNT_DEV_CHECKOUT_RW) == 0);
}

int
mnt_overlap(const struct mnt_src *s, const struct mnt_src *others,
    size_t nothers, char *err, size_t errlen)
{
	const struct mnt_src	*r;
	const char		*how, *rw;
	size_t			 i;

	for (i = 0; i < nothers; i++) {
		r = &others[i];
		if (s->readonly && r->readonly)
			continue;
		if (same_entry(s, r))
			continue;
		if (strcmp(s->source, r->source) == 0)
			how = "is the same path as";
		else if (at_or_above(r->source, s->source))
			how = "is inside";
		else if (at_or_above(s->source, r->source))
			how = "contains";
		else
			continue;
		if (!r->readonly)
			rw = "read-write";
		else
			rw = "read-only; this one is read-write";
		return errtext(err, errlen,
		    "it %s %.200s, the source of %.40s on "
		    "%.64s (%s): mounts may not overlap where either is "
		    "read-write", how, r->source, r->device, r->name, rw);
	}
	return 0;
}

/* a lies strictly inside b */
static int
inside(const char *a, const char *b)
{
	return strcmp(a, b) != 0 && at_or_above(b, a);
}

/* a source strictly inside one of the suite's shared directories, its own */
static int
exposes_allowed(const char *source, const char *device,
    const struct mnt_guarded *g, size_t ng)
{
	size_t	j;

	for (j = 0; j < ng; j++)
		if (g[j].allow_inside != NULL && g[j].allow_inside[0] != '\0' &&
		    g[j].allow_device != NULL && inside(source,
		    g[j].allow_inside) && strncmp(device, g[j].allow_device,
		    strlen(g[j].allow_device)) == 0)
			return 1;
	return 0;
}

int
mnt_exposes(const char *source, const char *device,
    const struct mnt_guarded *g, size_t ng, char *err, size_t errlen)
{
	static const char *const how[] = { "is", "contains", "lies inside" };
	size_t	 i, pass;
	int	 hit;

	/* the closest relation names the file: the same path first */
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < ng; i++) {
			if (g[i].path == NULL || g[i].path[0] == '\0')
				continue;
			if (pass == 0)
				hit = strcmp(source, g[i].path) == 0;
			else if (pass == 1)
				hit = inside(g[i].path, source);
			else
				hit = inside(source, g[i].path) &&
				    !exposes_allowed(source, device, g, ng);
			if (hit)
				return errtext(err, errlen,
				    "it %s %.200s, %.100s: "
				    "a container must not read or change the "
				    "suite's own files; mount a directory that "
				    "holds none of them", how[pass],
				    g[i].path, g[i].what);
		}
	return 0;
}

int
mnt_kind_ok(const char *k)
{
	size_t	len = strlen(k);

	if (len == 0 || len >= JB_KIND_MAX)
		return 0;
	if (strchr("abcdefghijklmnopqrstuvwxyz0123456789", k[0]) == NULL)
		return 0;
	return strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_-") == len;
}

int
mnt_agent_device_ok(const char *d)
{
	char		 name[JB_KIND_MAX];
	const char	*n, *dash;
	size_t		 len;

	if (strncmp(d, MNT_AGENT_PREFIX, strlen(MNT_AGENT_PREFIX)) != 0)
		return 0;
	n = d + strlen(MNT_AGENT_PREFIX);
	if ((dash = strrchr(n, '-')) == NULL ||
	    (len = (size_t)(dash - n)) >= sizeof(name))
		return 0;
	memcpy(name, n, len);
	name[len] = '\0';
	len = strlen(dash + 1);
	return mnt_kind_ok(name) && len > 0 && len <= 2 &&
	    strspn(dash + 1, "0123456789") == len;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static int
unescape(const char *s, size_t len, char *out, size_t outlen)
{
	size_t	i, o = 0;

	for (i = 0; i < len; i++) {
		if (o + 1 >= outlen)
			return -1;
		if (s[i] == '\\' && i + 3 < len &&
		    s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			out[o++] = (char)((s[i + 1] - '0') * 64 +
			    (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
	return 0;
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ...".
 * 0 with the fields, -1 when it does not parse.
 */
struct info_fields {
	unsigned long	 id, parent;
	uint64_t	 dev;
};

static int
info_line(const char *line, size_t len, struct info_fields *fl, char *root,
    size_t rootlen, char *mp, size_t mplen)
{
	const char	*f[5], *p = line, *end = line + len;
	size_t		 flen[5];
	unsigned int	 maj, min;
	char		 num[32], *e;
	int		 i;

	for (i = 0; i < 5; i++) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			return -1;
		f[i] = p;
		while (p < end && *p != ' ')
			p++;
		flen[i] = p - f[i];
	}
	for (i = 0; i < 2; i++) {
		if (flen[i] == 0 || flen[i] >= sizeof(num))
			return -1;
		memcpy(num, f[i], flen[i]);
		num[flen[i]] = '\0';
		if (strspn(num, "0123456789") != flen[i])
			return -1;
		errno = 0;
		if (i == 0)
			fl->id = strtoul(num, &e, 10);
		else
			fl->parent = strtoul(num, &e, 10);
		if (errno != 0 || *e != '\0')
			return -1;
	}
	if (flen[2] >= sizeof(num))
		return -1;
	memcpy(num, f[2], flen[2]);
	num[flen[2]] = '\0';
	if (sscanf(num, "%u:%u", &maj, &min) != 2)
		return -1;
	fl->dev = makedev(maj, min);
	if (unescape(f[3], flen[3], root, rootlen) == -1 ||
	    unescape(f[4], flen[4], mp, mplen) == -1)
		return -1;
	return 0;
}

/* the most mounts stacked at one point that mnt_info_find() sorts out */
#define INFO_STACK_MAX	256

int
mnt_info_find(const char *text, const char *mp, uint64_t *dev, char *root,
    size_t rootlen)
{
	const char		*line, *nl;
	char			 r[4096], m[4096];
	struct info_fields	 fl;
	unsigned long		 at[INFO_STACK_MAX];
	size_t			 nat = 0, i;

	/* every mount at mp, by id */
	for (line = text; *line != '\0'; line = *nl ? nl + 1 : nl) {
		nl = line + strcspn(line, "\n");
		if (info_line(line, nl - line, &fl, r, sizeof(r), m,
		    sizeof(m)) == -1 || strcmp(m, mp) != 0)
			continue;
		if (nat == INFO_STACK_MAX)
			return -1;
		at[nat++] = fl.id;
	}
	/*
	 * The first mount at mp that sits on no other mount at mp: the
	 * one at the bottom, made first.  A mount stacked over it later
	 * (its parent is the one below) is not it, whatever it holds.
	 */
	for (line = text; *line != '\0'; line = *nl ? nl + 1 : nl) {
		nl = line + strcspn(line, "\n");
		if (info_line(line, nl - line, &fl, r, sizeof(r), m,
		    sizeof(m)) == -1 || strcmp(m, mp) != 0)
			continue;
		for (i = 0; i < nat && at[i] != fl.parent; i++)
			;
		if (i < nat && fl.parent != fl.id)
			continue;
		if (strlcpy(root, r, rootlen) >= rootlen)
			return -1;
		*dev = fl.dev;
		return 0;
	}
	return -1;
}

int
mnt_info_root_of(const char *text, const char *path, uint64_t dev,
    char *root, size_t rootlen)
{
	const char	*line, *nl, *rest;
	char		 r[4096], m[4096], best_r[4096];
	size_t		 best = 0, n;
	struct info_fields fl;
	int		 found = 0;

	for (line = text; *line != '\0'; line = *nl ? nl + 1 : nl) {
		nl = line + strcspn(line, "\n");
		if (info_line(line, nl - line, &fl, r, sizeof(r), m,
		    sizeof(m)) == -1 || !at_or_above(m, path))
			continue;
		/* a later mount at the same point is the one on top */
		n = strlen(m);
		if (n < best)
			continue;
		best = n;
		found = fl.dev == dev;
		(void)strlcpy(best_r, r, sizeof(best_r));
	}
	if (!found)
		return -1;
	rest = strcmp(path, "/") == 0 ? "" : path + (best == 1 ? 0 : best);
	if (strcmp(best_r, "/") == 0)
		n = (size_t)snprintf(root, rootlen, "%s", *rest ? rest : "/");
	else
		n = (size_t)snprintf(root, rootlen, "%s%s", best_r, rest);
	return n >= rootlen ? -1 : 0;
}

int64_t
mnt_deadline(int64_t now, int64_t for_secs, int no_revert,
    int64_t entry_after, int policy_enabled, int64_t policy_after)
{
	if (for_secs > 0)
		return now + for_secs;
	if (no_revert)
		return 0;
	if (entry_after > 0)
		return now + entry_after;
	if (policy_enabled && policy_after > 0)
		return now + policy_after;
	return 0;
}

char *
mnt_left(int64_t until, int64_t now, char *buf, size_t len)
{
	int64_t	s = until - now, m;

	/* a started minute counts: 11m59s left shows as 12m */
	m = (s + 59) / 60;
	if (until == 0)
		(void)snprintf(buf, len, "\xe2\x88\x9e");	/* ∞ */
	else if (s <= 0)
		(void)snprintf(buf, len, "0s");
	else if (s < 60)
		(void)snprintf(buf, len, "%" PRId64 "s", s);
	else if (m < 60)
		(void)snprintf(buf, len, "%" PRId64 "m", m);
	else
		(void)snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m",
		    m / 60, m % 60);
	return buf;
}

int
mnt_deadline_parse(const char *line, struct jb_mount_deadline *d, char *err,
    size_t errlen)
{
	const char	*sp1, *sp2;
	char		*end;
	long long	 v;
	size_t		 n;

	memset(d, 0, sizeof(*d));
	if ((sp1 = strchr(line, ' ')) == NULL ||
	    (sp2 = strchr(sp1 + 1, ' ')) == NULL)
		return errtext(err, errlen, "expected NAME KIND UNTIL");
	n = sp1 - line;
	if (n == 0 || n >= sizeof(d->name))
		return errtext(err, errlen, "bad container name");
	memcpy(d->name, line, n);
	n = sp2 - sp1 - 1;
	if (n == 0 || n >= sizeof(d->kind))
		return errtext(err, errlen, "bad mount kind");
	memcpy(d->kind, sp1 + 1, n);
	if (!mnt_kind_ok(d->kind) ||
	    strspn(d->name, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
	    strlen(d->name))
		return errtext(err, errlen, "bad container name or mount kind");
	if (sp2[1] < '1' || sp2[1] > '9')
		return errtext(err, errlen, "bad deadline");
	v = strtoll(sp2 + 1, &end, 10);
	if (*end != '\0' || v <= 0 || v > INT64_MAX / 2)
		return errtext(err, errlen, "bad deadline");
	d->until = v;
	return 0;
}

int
mnt_deadline_fmt(const struct jb_mount_deadline *d, char *buf, size_t len)
{
	return snprintf(buf, len, "%s %s %" PRId64 "\n", d->name, d->kind,
	    d->until);
}

int
mnt_roots_decide(const char *host, int readonly, const struct mnt_root *roots,
    size_t nroots, const char *const *others, size_t nothers,
    const char **source, int *eff_readonly, char *err, size_t errlen)
{
	const struct mnt_root	*r = NULL;
	size_t			 i;

	/* exact equality: no path inside a root is ever resolved */
	for (i = 0; i < nroots; i++) {
		if (strcmp(roots[i].path, host) != 0)
			continue;
		if (r != NULL)
			return errtext(err, errlen, "%.200s is listed twice in "
			    "remote.ssh.mount_roots", host);
		r = &roots[i];
	}
	if (r == NULL)
		return errtext(err, errlen, "%.200s is not one of "
		    "remote.ssh.mount_roots (only an exact match of the "
		    "resolved path qualifies)", host);
	for (i = 0; i < nothers; i++)
		if (at_or_above(others[i], r->path))
			return errtext(err, errlen,
			    "mount root %.200s is refused: "
			    "another read-write mount of this repo, %.200s, "
			    "covers it", r->path, others[i]);
	*source = r->path;
	*eff_readonly = readonly || r->readonly;
	return 0;
}
