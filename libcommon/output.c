/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <inttypes.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cap-ng.h>
#include <json-c/json.h>

#include "output.h"
#include "mountspec.h"
#include "portspec.h"

static struct json_object	*json_list;
/* where the text goes: stdout for jbctl, a memory stream in jailbeed */
static FILE			*output_fp;

void
output_set_file(FILE *fp)
{
	output_fp = fp;
}

static FILE *
ofp(void)
{
	return output_fp != NULL ? output_fp : stdout;
}

/* jailbeed, jb-reaper and the four children */
static char	text_sandboxes[8 * (JB_NAME_MAX + JB_MSG_TEXT_MAX + 4)];

static const char *
cap_name(int bit, char *buf, size_t len)
{
	const char	*n;

	if ((n = capng_capability_to_name(bit)) != NULL)
		snprintf(buf, len, "cap_%s", n);
	else
		snprintf(buf, len, "cap_%d", bit);
	return buf;
}

static const char *
cap_list(uint64_t caps, char *buf, size_t len)
{
	char	name[64];
	int	bit;

	buf[0] = '\0';
	for (bit = 0; bit < 64; bit++) {
		if ((caps & (1ULL << bit)) == 0)
			continue;
		if (buf[0] != '\0')
			strlcat(buf, ",", len);
		strlcat(buf, cap_name(bit, name, sizeof(name)), len);
	}
	return buf[0] == '\0' ? "-" : buf;
}

static const char *
uptime(int64_t secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs >= 86400)
		snprintf(buf, len, "%" PRId64 "d%" PRId64 "h", secs / 86400,
		    secs % 86400 / 3600);
	else if (secs >= 3600)
		snprintf(buf, len, "%" PRId64 "h%" PRId64 "m", secs / 3600,
		    secs % 3600 / 60);
	else if (secs >= 60)
		snprintf(buf, len, "%" PRId64 "m%" PRId64 "s", secs / 60,
		    secs % 60);
	else
		snprintf(buf, len, "%" PRId64 "s", secs);
	return buf;
}

static const char *
user_name(uint32_t uid)
{
	struct passwd	*pw;

	return (pw = getpwuid(uid)) != NULL ? pw->pw_name : "?";
}

static int	text_header_due;

static void
text_status_begin(void)
{
	/* printed with the first answer, so a refusal prints only the error */
	text_header_due = 1;
}

static void
text_status_header(void)
{
	text_header_due = 0;
	fprintf(ofp(), "%-10s %7s %-10s %6s %6s %-8s %s\n", "PROCESS", "PID",
	    "USER", "UID", "GID", "UPTIME", "CAPABILITIES");
}

static void
text_status_entry(const struct jb_proc_status *st, int64_t now)
{
	char	caps[1024], up[32];

	if (text_header_due)
		text_status_header();
	if (strlen(text_sandboxes) + strlen(st->name) + strlen(st->sandbox) +
	    4 < sizeof(text_sandboxes)) {
		strlcat(text_sandboxes, st->name, sizeof(text_sandboxes));
		strlcat(text_sandboxes, ": ", sizeof(text_sandboxes));
		strlcat(text_sandboxes, st->sandbox, sizeof(text_sandboxes));
		strlcat(text_sandboxes, "\n", sizeof(text_sandboxes));
	}
	fprintf(ofp(), "%-10s %7d %-10s %6u %6u %-8s %s\n", st->name, st->pid,
	    user_name(st->uid), st->uid, st->gid,
	    uptime(now - st->started, up, sizeof(up)),
	    cap_list(st->cap_eff, caps, sizeof(caps)));
}

static void
text_status_end(void)
{
	/* what each lock-down enforces, below the table */
	if (text_sandboxes[0] != '\0')
		fprintf(ofp(), "\nLOCK-DOWN\n%s", text_sandboxes);
	text_sandboxes[0] = '\0';
}

static void
text_version(const char *client, const char *daemon)
{
	fprintf(ofp(), "jbctl %s\n", client);
	if (daemon != NULL)
		fprintf(ofp(), "jailbeed %s\n", daemon);
}

static int	text_list_header_due;
/* 1 containers, 2 snapshots, 3 mounts, 4 images, 5 ports, 6 net */
static int	text_list_kind;

static void
text_list_begin(const char *what)
{
	text_list_header_due = 1;
	text_list_kind = strcmp(what, "snapshots") == 0 ? 2 :
	    strcmp(what, "mounts") == 0 ? 3 :
	    strcmp(what, "images") == 0 ? 4 :
	    strcmp(what, "ports") == 0 ? 5 :
	    strcmp(what, "net") == 0 ? 6 :
	    strcmp(what, "checks") == 0 ? 7 :
	    strcmp(what, "refused") == 0 ? 8 :
	    strcmp(what, "egress") == 0 ? 9 :
	    strcmp(what, "resolved") == 0 ? 10 : 1;
}

/* the MOUNT column: "-", or the soonest deadline of what is attached */
static const char *
mount_col(const struct jb_instance *in, char *buf, size_t len)
{
	char	left[32];

	if (in->nmounts == 0)
		return "-";
	(void)snprintf(buf, len, "\xe2\x97\x8f %s", mnt_left(in->mount_until,
	    time(NULL), left, sizeof(left)));	/* ● */
	return buf;
}

/* NET: strict, loose 12m, loose ∞ (no revert); padded by columns */
static const char *
net_col(const struct jb_instance *in, char *buf, size_t len)
{
	char	left[32];

	if (strcmp(in->net, "loose") != 0)
		(void)snprintf(buf, len, "%-10s", in->net[0] ? in->net : "-");
	else if (in->net_until == 0)
		(void)snprintf(buf, len, "loose \xe2\x88\x9e    "); /* ∞ */
	else
		(void)snprintf(buf, len, "loose %-4s", mnt_left(in->net_until,
		    time(NULL), left, sizeof(left)));
	return buf;
}

static void
text_instance(const struct jb_instance *in)
{
	char	m[48], n[48];

	if (text_list_header_due) {
		text_list_header_due = 0;
		fprintf(ofp(), "%-32s %-8s %-10s %-15s %-6s %-20s %s\n",
		    "NAME", "STATE", "NET", "ADDRESS", "MODE", "BRANCH",
		    "MOUNT");
	}
	fprintf(ofp(), "%-32s %-8s %s %-15s %-6s %-20s %s\n", in->name,
	    in->state, net_col(in, n, sizeof(n)),
	    in->ipv4[0] ? in->ipv4 : "-",
	    in->mode[0] ? in->mode : "-", in->branch[0] ? in->branch : "-",
	    mount_col(in, m, sizeof(m)));
}

static void
text_mount(const struct jb_mount_entry *e)
{
	char	left[32];

	if (text_list_header_due) {
		text_list_header_due = 0;
		fprintf(ofp(), "%-24s %-4s %-8s %-30s %s\n", "DEVICE",
		    "MODE", "LEFT", "PATH", "SOURCE");
	}
	fprintf(ofp(), "%-24s %-4s %-8s %-30s %s\n", e->device, e->readonly ? "ro" :
	    "rw", strncmp(e->device, MNT_OPTIONAL_PREFIX,
	    strlen(MNT_OPTIONAL_PREFIX)) == 0 ? mnt_left(e->until, time(NULL),
	    left, sizeof(left)) : "-", e->path, e->source);
}

static void
text_snapshot(const struct jb_snapshot *s)
{
	char		when[32];
	time_t		t = (time_t)s->created;

	if (text_list_header_due) {
		text_list_header_due = 0;
		fprintf(ofp(), "%-32s %s\n", "SNAPSHOT", "CREATED");
	}
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", gmtime(&t));
	fprintf(ofp(), "%-32s %s\n", s->name, when);
}

static void
text_list_end(void)
{
	/* egress ls: nothing when there is no entry, as ever */
	if (text_list_header_due && text_list_kind == 10)
		fprintf(ofp(), "no exact name in the allowlist: nothing to pin "
		    "(*.domain entries are not pinned)\n");
	else if (text_list_header_due && text_list_kind != 9)
		fprintf(ofp(), "no %s\n", text_list_kind == 2 ? "snapshots" :
		    text_list_kind == 3 ? "mounts" :
		    text_list_kind == 4 ? "images" :
		    text_list_kind == 5 ? "port forwards" :
		    text_list_kind == 7 ? "checks" :
		    text_list_kind == 8 ? "refused names" :
		    "containers");
}

/* the containers made from an image, comma-separated, "-" for none */
static void
image_users(const struct jb_image *im, char *buf, size_t len)
{
	size_t		 off = 0, l;
	uint32_t	 i;

	buf[0] = '\0';
	for (i = 0; i < im->nusers && off < sizeof(im->users); i++) {
		l = strnlen(im->users + off, sizeof(im->users) - off);
		if (l == 0 || off + l >= sizeof(im->users))
			break;
		if (buf[0] != '\0')
			strlcat(buf, ",", len);
		strlcat(buf, im->users + off, len);
		off += l + 1;
	}
	if (i < im->nusers) {
		char	more[32];

		snprintf(more, sizeof(more), "%s+%u more", buf[0] ? "," : "",
		    im->nusers - i);
		strlcat(buf, more, len);
	}
	if (buf[0] == '\0')
		strlcpy(buf, "-", len);
}

static void
text_image(const struct jb_image *im)
{
	char		users[JB_IMAGE_USERS_MAX + 64], when[32];
	time_t		t = (time_t)im->created;

	if (text_list_header_due) {
		text_list_header_due = 0;
		fprintf(ofp(), "%-12s %-24s %8s %-10s %-5s %-16s %s\n", "IMAGE",
		    "ALIASES", "SIZE", "CREATED", "SUITE", "REPOS",
		    "CONTAINERS");
	}
	strftime(when, sizeof(when), "%Y-%m-%d", gmtime(&t));
	image_users(im, users, sizeof(users));
	fprintf(ofp(), "%-12.12s %-24s %6.1fMB %-10s %-5s %-16s %s\n",
	    im->fingerprint, im->aliases[0] ? im->aliases : "-",
	    (double)im->size / 1e6, when, im->suite ? "yes" : "no",
	    im->repos[0] ? im->repos : "-", users);
}

static const char *
port_dir(const struct jb_port *p)
{
	return p->dir == PORT_TO_HOST ? "to-host" : "to-container";
}

/* an endpoint, or "?" for a device changed outside JailBee */
static const char *
port_end(const char *addr, uint32_t port, char *buf, size_t len)
{
	if (addr[0] == '\0')
		return "?";
	(void)snprintf(buf, len, "%s:%u", addr, port);
	return buf;
}

static const char *
utc(int64_t when, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t = (time_t)when;

	(void)strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", gmtime_r(&t, &tm));
	return buf;
}

/* every line says what the table is about: forwards bypass the filter */
static void
text_port(const struct jb_port *p)
{
	char	c[32], h[32];

	if (text_list_kind == 6) {
		/* net status: one line under its container */
		fprintf(ofp(), "  forward %s %s %s -> %s/%s: bypasses the "
		    "network filter\n", p->device, port_dir(p),
		    p->dir == PORT_TO_HOST ? port_end(p->host_address,
		    p->host_port, h, sizeof(h)) : port_end(p->container_address,
		    p->port, c, sizeof(c)),
		    p->dir == PORT_TO_HOST ? port_end(p->container_address,
		    p->port, c, sizeof(c)) : port_end(p->host_address,
		    p->host_port, h, sizeof(h)), p->proto[0] ? p->proto : "?");
		return;
	}
	if (text_list_header_due) {
		text_list_header_due = 0;
		fprintf(ofp(), "%-32s %-24s %-12s %-5s %-21s %-21s %s\n",
		    "CONTAINER", "DEVICE", "DIRECTION", "PROTO", "CONTAINER-SIDE",
		    "HOST-SIDE", "FILTER");
	}
	fprintf(ofp(), "%-32s %-24s %-12s %-5s %-21s %-21s %s\n", p->name,
	    p->device, port_dir(p), p->proto[0] ? p->proto : "?",
	    port_end(p->container_address, p->port, c, sizeof(c)),
	    port_end(p->host_address, p->host_port, h, sizeof(h)), "bypassed");
}

static void
text_net_ctr(const struct jb_net_ctr *c)
{
	int64_t	left;

	text_list_header_due = 0;
	if (c->mode[0] == '\0')
		fprintf(ofp(), "%s: no policy\n", c->name);
	else if (strcmp(c->mode, "strict") == 0)
		fprintf(ofp(), "%s %s: strict\n", c->name, c->ipv4);
	else if (c->deadline == 0)
		fprintf(ofp(), "%s %s: loose, no revert\n", c->name, c->ipv4);
	else {
		left = c->deadline - (int64_t)time(NULL);
		fprintf(ofp(), "%s %s: loose, strict again in %llds\n",
		    c->name, c->ipv4, (long long)(left > 0 ? left : 0));
	}
	if (c->broken[0] != '\0')
		fprintf(ofp(), "  broken: %s\n", c->broken);
	if (c->mode[0] != '\0')
		fprintf(ofp(), "  pool %u address(es) of exact names\n",
		    c->npool);
}

static void
text_net_allow(const struct jb_net_allow *a)
{
	/* net egress ls: ORIGIN ENTRY; net status: under its container */
	if (text_list_kind == 9) {
		text_list_header_due = 0;
		fprintf(ofp(), "%s %s\n", a->origin, a->entry);
	} else if (a->path[0] != '\0')
		fprintf(ofp(), "  allow %s (%s): %s\n", a->entry, a->origin,
		    a->path);
	else
		fprintf(ofp(), "  allow %s (%s)\n", a->entry, a->origin);
}

static void
text_net_secret(const struct jb_net_secret *s)
{
	if (s->why[0] != '\0')
		fprintf(ofp(), "  secret %s for %s: not given: %s\n", s->secret,
		    s->hosts, s->why);
	else
		fprintf(ofp(), "  secret %s for %s%s%s: terminated by the "
		    "gateway, the value put in for the placeholder\n",
		    s->secret, s->hosts, s->header[0] != '\0' ? " in " : "",
		    s->header);
}

static void
text_net_resolved(const struct jb_net_resolved *r)
{
	text_list_header_due = 0;
	fprintf(ofp(), "%s: %s; %u address(es) pooled\n", r->host,
	    r->answered ? "answered" : "no answer, pool kept", r->pooled);
}

static void
text_net_addr(const struct jb_net_addr *a)
{
	char	w[32];

	fprintf(ofp(), "  admitted %s %s until %s\n", a->host, a->ipv4,
	    utc(a->until, w, sizeof(w)));
}

static void
text_doctor(const struct jb_doctor_check *k)
{
	text_list_header_due = 0;
	fprintf(ofp(), "%-4s  %-18s %s\n", k->status, k->name, k->detail);
	if (k->fix[0] != '\0')
		fprintf(ofp(), "      %-18s fix: %s\n", "", k->fix);
}

/* net log: what was refused, how often, first and last */
static void
text_net_block(const struct jb_net_block *b)
{
	char	f[32], l[32];

	if (text_list_header_due) {
		text_list_header_due = 0;
		fprintf(ofp(), "%-4s %-40s %7s %-20s %s\n", "KIND", "REFUSED",
		    "COUNT", "FIRST", "LAST");
	}
	fprintf(ofp(), "%-4s %-40s %7llu %-20s %s\n", b->kind, b->what,
	    (unsigned long long)b->count, utc(b->first, f, sizeof(f)),
	    utc(b->last, l, sizeof(l)));
}

const struct output text_output = {
	text_status_begin, text_status_entry, text_status_end, text_version,
	text_list_begin, text_instance, text_snapshot, text_list_end,
	text_mount,
	text_image,
	text_port,
	text_net_ctr,
	text_net_allow,
	text_net_addr,
	text_doctor,
	text_net_block,
	text_net_resolved,
	text_net_secret
};

static void
json_status_begin(void)
{
	json_list = json_object_new_array();
}

static void
json_status_entry(const struct jb_proc_status *st, int64_t now)
{
	struct json_object	*o, *caps;
	char			 hex[32];
	int			 bit;

	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(st->name));
	json_object_object_add(o, "pid", json_object_new_int(st->pid));
	json_object_object_add(o, "uid", json_object_new_int64(st->uid));
	json_object_object_add(o, "gid", json_object_new_int64(st->gid));
	json_object_object_add(o, "user",
	    json_object_new_string(user_name(st->uid)));
	json_object_object_add(o, "groups",
	    json_object_new_int64(st->ngroups));
	snprintf(hex, sizeof(hex), "%016" PRIx64, st->cap_eff);
	json_object_object_add(o, "cap_eff", json_object_new_string(hex));
	snprintf(hex, sizeof(hex), "%016" PRIx64, st->cap_prm);
	json_object_object_add(o, "cap_prm", json_object_new_string(hex));
	snprintf(hex, sizeof(hex), "%016" PRIx64, st->cap_bnd);
	json_object_object_add(o, "cap_bnd", json_object_new_string(hex));
	caps = json_object_new_array();
	for (bit = 0; bit < 64; bit++) {
		char	name[64];

		if (st->cap_eff & (1ULL << bit))
			json_object_array_add(caps, json_object_new_string(
			    cap_name(bit, name, sizeof(name))));
	}
	json_object_object_add(o, "capabilities", caps);
	json_object_object_add(o, "started", json_object_new_int64(st->started));
	json_object_object_add(o, "uptime",
	    json_object_new_int64(now - st->started));
	json_object_object_add(o, "detail", json_object_new_string(st->detail));
	json_object_object_add(o, "sandbox",
	    json_object_new_string(st->sandbox));
	json_object_array_add(json_list, o);
}

static void
json_status_end(void)
{
	struct json_object	*top;

	top = json_object_new_object();
	json_object_object_add(top, "processes", json_list);
	fprintf(ofp(), "%s\n", json_object_to_json_string_ext(top,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	json_list = NULL;
}

static void
json_version(const char *client, const char *daemon)
{
	struct json_object	*top;

	top = json_object_new_object();
	json_object_object_add(top, "jbctl", json_object_new_string(client));
	json_object_object_add(top, "jailbeed",
	    daemon ? json_object_new_string(daemon) : NULL);
	fprintf(ofp(), "%s\n", json_object_to_json_string_ext(top,
	    JSON_C_TO_STRING_PRETTY));
	json_object_put(top);
}

static const char	*json_list_name;

static void
json_list_begin(const char *what)
{
	json_list = json_object_new_array();
	/* net status: a list of containers, each with its boundary */
	json_list_name = strcmp(what, "net") == 0 ? "containers" : what;
}

static void
json_instance(const struct jb_instance *in)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(in->name));
	json_object_object_add(o, "state", json_object_new_string(in->state));
	json_object_object_add(o, "net", json_object_new_string(in->net));
	/* loose until then, seconds since the epoch; null: no deadline */
	json_object_object_add(o, "net_until", in->net_until ?
	    json_object_new_int64(in->net_until) : NULL);
	json_object_object_add(o, "ipv4", json_object_new_string(in->ipv4));
	json_object_object_add(o, "mode", json_object_new_string(in->mode));
	json_object_object_add(o, "branch",
	    json_object_new_string(in->branch));
	json_object_object_add(o, "base", json_object_new_string(in->base));
	json_object_object_add(o, "repo", json_object_new_string(in->repo));
	json_object_object_add(o, "prefix",
	    json_object_new_string(in->prefix));
	json_object_object_add(o, "created",
	    json_object_new_int64(in->created));
	json_object_object_add(o, "mounts",
	    json_object_new_int64(in->nmounts));
	json_object_object_add(o, "mount_until", in->nmounts && in->mount_until ?
	    json_object_new_int64(in->mount_until) : NULL);
	json_object_array_add(json_list, o);
}

/* net status: the container the next entries, addresses, forwards join */
static struct json_object	*json_cur;

static void
json_port(const struct jb_port *p)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "container", json_object_new_string(p->name));
	json_object_object_add(o, "device", json_object_new_string(p->device));
	json_object_object_add(o, "direction",
	    json_object_new_string(port_dir(p)));
	json_object_object_add(o, "proto", p->proto[0] ?
	    json_object_new_string(p->proto) : NULL);
	json_object_object_add(o, "port", p->port ?
	    json_object_new_int64(p->port) : NULL);
	json_object_object_add(o, "container_address",
	    p->container_address[0] ?
	    json_object_new_string(p->container_address) : NULL);
	json_object_object_add(o, "host_port", p->host_port ?
	    json_object_new_int64(p->host_port) : NULL);
	json_object_object_add(o, "host_address", p->host_address[0] ?
	    json_object_new_string(p->host_address) : NULL);
	json_object_object_add(o, "declared", json_object_new_boolean(
	    strncmp(p->device, PORT_CFG_PREFIX, strlen(PORT_CFG_PREFIX)) == 0));
	json_object_object_add(o, "state", json_object_new_string(p->state));
	json_object_object_add(o, "prefix", json_object_new_string(p->prefix));
	/* a forward goes through incusd, not the container's NIC */
	json_object_object_add(o, "bypasses_filter",
	    json_object_new_boolean(1));
	if (json_cur != NULL)
		json_object_array_add(json_object_object_get(json_cur,
		    "forwards"), o);
	else
		json_object_array_add(json_list, o);
}

static void
json_net_ctr(const struct jb_net_ctr *c)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "ipv4", c->ipv4[0] ?
	    json_object_new_string(c->ipv4) : NULL);
	/* null: jb-netd holds no policy (every packet refused) */
	json_object_object_add(o, "mode", c->mode[0] ?
	    json_object_new_string(c->mode) : NULL);
	json_object_object_add(o, "net_until", c->deadline ?
	    json_object_new_int64(c->deadline) : NULL);
	json_object_object_add(o, "repo", json_object_new_string(c->repo));
	json_object_object_add(o, "pool", json_object_new_int64(c->npool));
	json_object_object_add(o, "broken", c->broken[0] ?
	    json_object_new_string(c->broken) : NULL);
	json_object_object_add(o, "allow", json_object_new_array());
	json_object_object_add(o, "admitted", json_object_new_array());
	json_object_object_add(o, "forwards", json_object_new_array());
	json_object_array_add(json_list, o);
	json_cur = o;
}

static void
json_net_allow(const struct jb_net_allow *a)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "entry", json_object_new_string(a->entry));
	json_object_object_add(o, "origin", json_object_new_string(a->origin));
	if (a->path[0] != '\0')
		json_object_object_add(o, "path",
		    json_object_new_string(a->path));
	if (json_cur != NULL)
		json_object_array_add(json_object_object_get(json_cur, "allow"),
		    o);
	else if (json_list != NULL) {
		/* net egress ls */
		json_object_object_add(o, "container",
		    json_object_new_string(a->name));
		json_object_array_add(json_list, o);
	} else
		json_object_put(o);
}

static void
json_net_secret(const struct jb_net_secret *s)
{
	struct json_object	*o, *a;

	if (json_cur == NULL)
		return;
	if ((a = json_object_object_get(json_cur, "secrets")) == NULL) {
		a = json_object_new_array();
		json_object_object_add(json_cur, "secrets", a);
	}
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(s->secret));
	json_object_object_add(o, "hosts", json_object_new_string(s->hosts));
	json_object_object_add(o, "header", s->header[0] ?
	    json_object_new_string(s->header) : NULL);
	json_object_object_add(o, "given", json_object_new_boolean(
	    s->why[0] == '\0'));
	if (s->why[0] != '\0')
		json_object_object_add(o, "why",
		    json_object_new_string(s->why));
	json_object_array_add(a, o);
}

static void
json_net_resolved(const struct jb_net_resolved *r)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "container", json_object_new_string(r->name));
	json_object_object_add(o, "name", json_object_new_string(r->host));
	json_object_object_add(o, "answered",
	    json_object_new_boolean(r->answered));
	json_object_object_add(o, "pooled", json_object_new_int64(r->pooled));
	if (json_list != NULL)
		json_object_array_add(json_list, o);
	else
		json_object_put(o);
}

static void
json_net_addr(const struct jb_net_addr *a)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(a->host));
	json_object_object_add(o, "address", json_object_new_string(a->ipv4));
	json_object_object_add(o, "last_answered",
	    json_object_new_int64(a->last));
	json_object_object_add(o, "until", json_object_new_int64(a->until));
	if (json_cur != NULL)
		json_object_array_add(json_object_object_get(json_cur,
		    "admitted"), o);
	else
		json_object_put(o);
}

static void
json_mount(const struct jb_mount_entry *e)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "container", json_object_new_string(e->name));
	json_object_object_add(o, "device", json_object_new_string(e->device));
	json_object_object_add(o, "source", json_object_new_string(e->source));
	json_object_object_add(o, "path", json_object_new_string(e->path));
	json_object_object_add(o, "readonly",
	    json_object_new_boolean(e->readonly));
	json_object_object_add(o, "until", e->until ?
	    json_object_new_int64(e->until) : NULL);
	json_object_array_add(json_list, o);
}

static void
json_snapshot(const struct jb_snapshot *s)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "container",
	    json_object_new_string(s->instance));
	json_object_object_add(o, "name", json_object_new_string(s->name));
	json_object_object_add(o, "created",
	    json_object_new_int64(s->created));
	json_object_object_add(o, "stateful",
	    json_object_new_boolean(s->stateful));
	json_object_array_add(json_list, o);
}

static void
json_list_end(void)
{
	struct json_object	*top = json_object_new_object();

	json_object_object_add(top, json_list_name, json_list);
	fprintf(ofp(), "%s\n", json_object_to_json_string_ext(top,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	json_list = NULL;
	json_cur = NULL;
}

static void
json_image(const struct jb_image *im)
{
	struct json_object	*o = json_object_new_object();
	struct json_object	*a = json_object_new_array();
	struct json_object	*u = json_object_new_array();
	struct json_object	*rp = json_object_new_array();
	char			 aliases[sizeof(im->aliases)], *p, *s;
	char			 repos[sizeof(im->repos)];
	size_t			 off = 0, l;
	uint32_t		 i;

	json_object_object_add(o, "fingerprint",
	    json_object_new_string(im->fingerprint));
	strlcpy(aliases, im->aliases, sizeof(aliases));
	for (s = aliases; (p = strsep(&s, ",")) != NULL;)
		if (*p != '\0')
			json_object_array_add(a, json_object_new_string(p));
	json_object_object_add(o, "aliases", a);
	json_object_object_add(o, "description",
	    json_object_new_string(im->description));
	json_object_object_add(o, "size", json_object_new_int64(
	    (int64_t)im->size));
	json_object_object_add(o, "created",
	    json_object_new_int64(im->created));
	json_object_object_add(o, "suite", json_object_new_boolean(im->suite));
	for (i = 0; i < im->nusers && off < sizeof(im->users); i++) {
		l = strnlen(im->users + off, sizeof(im->users) - off);
		if (l == 0 || off + l >= sizeof(im->users))
			break;
		json_object_array_add(u, json_object_new_string_len(
		    im->users + off, (int)l));
		off += l + 1;
	}
	json_object_object_add(o, "containers", u);
	json_object_object_add(o, "ncontainers",
	    json_object_new_int64(im->nusers));
	strlcpy(repos, im->repos, sizeof(repos));
	for (s = repos; (p = strsep(&s, ",")) != NULL;)
		if (*p != '\0')
			json_object_array_add(rp, json_object_new_string(p));
	json_object_object_add(o, "repos", rp);
	json_object_array_add(json_list, o);
}

static void
json_doctor(const struct jb_doctor_check *k)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "check", json_object_new_string(k->name));
	json_object_object_add(o, "status", json_object_new_string(k->status));
	json_object_object_add(o, "detail", json_object_new_string(k->detail));
	json_object_object_add(o, "fix", k->fix[0] ?
	    json_object_new_string(k->fix) : NULL);
	json_object_array_add(json_list, o);
}

static void
json_net_block(const struct jb_net_block *b)
{
	struct json_object	*o = json_object_new_object();

	json_object_object_add(o, "container", json_object_new_string(b->name));
	json_object_object_add(o, "kind", json_object_new_string(b->kind));
	json_object_object_add(o, "refused", json_object_new_string(b->what));
	json_object_object_add(o, "count",
	    json_object_new_int64((int64_t)b->count));
	json_object_object_add(o, "first", json_object_new_int64(b->first));
	json_object_object_add(o, "last", json_object_new_int64(b->last));
	json_object_object_add(o, "allow", b->allow[0] ?
	    json_object_new_string(b->allow) : NULL);
	json_object_array_add(json_list, o);
}

const struct output json_output = {
	json_status_begin, json_status_entry, json_status_end, json_version,
	json_list_begin, json_instance, json_snapshot, json_list_end,
	json_mount,
	json_image,
	json_port,
	json_net_ctr,
	json_net_allow,
	json_net_addr,
	json_doctor,
	json_net_block,
	json_net_resolved,
	json_net_secret
};
