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
 * What the dashboard shows, asked with the very requests ls, net log,
 * net status, mount ls, snapshot ls and exec make: a back end of the
 * output layer gathers the replies instead of printing them.  Every
 * string that came from a container (a branch, a refused name, a window
 * title) is made printable as it arrives.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdtab.h"
#include "dash.h"
#include "mountspec.h"
#include "output.h"
#include "portspec.h"
#include "term.h"
#include "termsafe.h"

#define DASH_OUT	8192	/* what a command printed, kept */
#define WINDOWS_MS	3000	/* tmux list-windows in the container */

/* where the replies of the request running now go */
static struct dash_row		*g_rows;
static int			 g_nrows, g_cap;
static struct dash_row		*g_row;		/* net log, mount ls */
static struct dash_detail	*g_det;
static int			 g_failed_alloc;

char *
dash_clean(char *s)
{
	char	*p;

	(void)termsafe(s);
	/* a tab would move the cursor across cells */
	for (p = s; *p != '\0'; p++)
		if (*p == '\t')
			*p = ' ';
	return s;
}

static void
detail_line(const char *fmt, ...) __attribute__((__format__(printf, 1, 2)));

static void
detail_line(const char *fmt, ...)
{
	va_list	ap;

	if (g_det == NULL || g_det->nline >= DASH_LINES)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(g_det->line[g_det->nline], DASH_TEXT, fmt, ap);
	va_end(ap);
	dash_clean(g_det->line[g_det->nline]);
	g_det->nline++;
}

static const char *
left(int64_t until, char *buf, size_t len)
{
	if (until == 0)
		return "\xe2\x88\x9e";	/* ∞ */
	return mnt_left(until, time(NULL), buf, len);
}

static void o_none(void) { }
static void o_status_entry(const struct jb_proc_status *s, int64_t n) { }
static void o_version(const char *a, const char *b) { }
static void o_list_begin(const char *what) { }
static void o_image(const struct jb_image *im) { }
static void o_doctor(const struct jb_doctor_check *d) { }
static void o_net_addr(const struct jb_net_addr *a) { }
static void o_net_resolved(const struct jb_net_resolved *r) { }

static void
o_instance(const struct jb_instance *in)
{
	struct dash_row	*r, *n;

	if (g_nrows == g_cap) {
		if ((n = reallocarray(g_rows, g_cap ? g_cap * 2 : 32,
		    sizeof(*n))) == NULL) {
			g_failed_alloc = 1;
			return;
		}
		g_rows = n;
		g_cap = g_cap ? g_cap * 2 : 32;
	}
	r = &g_rows[g_nrows++];
	memset(r, 0, sizeof(*r));
	r->in = *in;
	dash_clean(r->in.name);
	dash_clean(r->in.state);
	dash_clean(r->in.repo);
	dash_clean(r->in.prefix);
	dash_clean(r->in.branch);
	dash_clean(r->in.base);
	dash_clean(r->in.mode);
	dash_clean(r->in.net);
	dash_clean(r->in.ipv4);
	dash_clean(r->in.agent);
}

static void
o_snapshot(const struct jb_snapshot *s)
{
	char		when[32], name[sizeof(s->name)];
	time_t		t = (time_t)s->created;

	(void)strlcpy(name, s->name, sizeof(name));
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", gmtime(&t));
	detail_line("snapshot  %-32s %s", dash_clean(name), when);
}

static void
o_mount(const struct jb_mount_entry *e)
{
	struct dash_row	*r = g_row;
	char		 buf[32], dev[sizeof(e->device)], path[sizeof(e->path)];
	const char	*kind;
	size_t		 n = strlen(MNT_OPTIONAL_PREFIX);

	(void)strlcpy(dev, e->device, sizeof(dev));
	(void)strlcpy(path, e->path, sizeof(path));
	dash_clean(dev);
	dash_clean(path);
	if (strncmp(dev, MNT_OPTIONAL_PREFIX, n) != 0) {
		detail_line("mount     %-24s %s %s", dev, e->readonly ? "ro" :
		    "rw", path);
		return;
	}
	kind = dev + n;
	detail_line("mount     %-24s %s %-6s %s", kind, e->readonly ? "ro" :
	    "rw", left(e->until, buf, sizeof(buf)), path);
	if (g_det != NULL && g_det->nkind < 8)
		(void)strlcpy(g_det->kinds[g_det->nkind++], kind,
		    sizeof(g_det->kinds[0]));
	if (r == NULL)
		return;
	if (r->nmount < 4) {
		(void)strlcpy(r->mount_kind[r->nmount], kind,
		    sizeof(r->mount_kind[0]));
		r->mount_until[r->nmount++] = e->until;
	}
}

static void
o_port(const struct jb_port *p)
{
	char	addr[sizeof(p->host_address)], caddr[sizeof(p->
		    container_address)];

	(void)strlcpy(addr, p->host_address, sizeof(addr));
	(void)strlcpy(caddr, p->container_address, sizeof(caddr));
	detail_line("forward   %s host %s:%u %s container %s:%u/%.3s",
	    p->dir == PORT_TO_CONTAINER ? "to-container" : "to-host",
	    dash_clean(addr), (unsigned)p->host_port,
	    p->dir == PORT_TO_CONTAINER ? "->" : "<-", dash_clean(caddr),
	    (unsigned)p->port, p->proto);
}

static void
o_net_ctr(const struct jb_net_ctr *c)
{
	char	buf[32], broken[sizeof(c->broken)];

	if (c->mode[0] == '\0')
		return;
	detail_line("network   %s%s%s, %u addresses pooled",
	    c->mode, strcmp(c->mode, "loose") == 0 ? " " : "",
	    strcmp(c->mode, "loose") == 0 ? left(c->deadline, buf,
	    sizeof(buf)) : "", (unsigned)c->npool);
	if (c->broken[0] != '\0') {
		(void)strlcpy(broken, c->broken, sizeof(broken));
		detail_line("broken    %s", dash_clean(broken));
	}
}

static void
o_net_allow(const struct jb_net_allow *a)
{
	char	entry[sizeof(a->entry)], origin[sizeof(a->origin)];

	(void)strlcpy(entry, a->entry, sizeof(entry));
	(void)strlcpy(origin, a->origin, sizeof(origin));
	detail_line("allow     %-40s (%s)", dash_clean(entry),
	    dash_clean(origin));
}

static void
o_net_block(const struct jb_net_block *b)
{
	struct dash_refusal	*f;
	char			 what[sizeof(b->what)], allow[sizeof(b->allow)];

	(void)strlcpy(what, b->what, sizeof(what));
	dash_clean(what);
	(void)strlcpy(allow, b->allow, sizeof(allow));
	dash_clean(allow);
	/* the row names the one refused last */
	if (g_row != NULL && (g_row->refused[0] == '\0' ||
	    b->last > g_row->refused_at)) {
		(void)strlcpy(g_row->refused, what, sizeof(g_row->refused));
		g_row->refused_at = b->last;
	}
	if (g_det == NULL)
		return;
	if (g_det->nref < DASH_REFUSED) {
		f = &g_det->ref[g_det->nref++];
		(void)strlcpy(f->what, what, sizeof(f->what));
		(void)strlcpy(f->allow, allow, sizeof(f->allow));
		f->count = b->count;
		f->last = b->last;
	}
	detail_line("refused   %-4s %-36s x%-5llu%s%s", b->kind, what,
	    (unsigned long long)b->count, allow[0] ? " allow: " : "", allow);
}

static const struct output collect = {
	o_none, o_status_entry, o_none, o_version,
	o_list_begin, o_instance, o_snapshot, o_none,
	o_mount,
	o_image,
	o_port,
	o_net_ctr,
	o_net_allow,
	o_net_addr,
	o_doctor,
	o_net_block,
	o_net_resolved,
	NULL
};

/* the agent windows: tmux's own list, in the container, as exec runs it */
static void
row_windows(struct dash_ctx *ctx, struct dash_row *r)
{
	char	 text[1024], *line, *save, *args[8];
	size_t	 n;
	int	 rv;

	args[0] = r->in.name;
	args[1] = "tmux";
	args[2] = "list-windows";
	args[3] = "-t";
	args[4] = "autostart";
	args[5] = "-F";
	args[6] = "#W";
	/*
	 * root in the container decides what answers: a few seconds and a
	 * few kilobytes, or no windows are shown
	 */
	term_limit(sizeof(text), WINDOWS_MS);
	rv = dash_run(ctx, r, CMD_EXEC, args, 7, NULL, &collect, text,
	    sizeof(text));
	term_limit(0, 0);
	if (rv != 0)
		return;
	r->windows[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		dash_clean(line);
		n = strlen(r->windows);
		snprintf(r->windows + n, sizeof(r->windows) - n, "%s%s",
		    n ? " " : "", line);
	}
}

/* what a row adds to ls: mounts, last refusal, windows */
static void
row_extras(struct dash_ctx *ctx, struct dash_row *r)
{
	char	 text[DASH_OUT], buf[32], *args[1];
	size_t	 n;
	int	 i;

	if (strcmp(r->in.state, "Running") != 0)
		return;
	args[0] = r->in.name;
	g_row = r;
	(void)dash_run(ctx, r, CMD_NET_LOG, args, 1, NULL, &collect, text,
	    sizeof(text));
	if (r->in.nmounts > 0)
		(void)dash_run(ctx, r, CMD_MOUNT_LS, args, 1, NULL, &collect,
		    text, sizeof(text));
	g_row = NULL;
	r->mounts[0] = '\0';
	for (i = 0; i < r->nmount; i++) {
		n = strlen(r->mounts);
		snprintf(r->mounts + n, sizeof(r->mounts) - n, "%s%s %s",
		    n ? " " : "", r->mount_kind[i], left(r->mount_until[i],
		    buf, sizeof(buf)));
	}
	row_windows(ctx, r);
}

struct dash_row *
dash_rows(struct dash_ctx *ctx, const struct dash_row *old, int nold,
    const char *only, int *nrows, char *err, size_t errlen)
{
	struct dash_row	*rows;
	char		 text[DASH_OUT];
	const char	*opts[3] = { NULL, NULL, NULL };
	int		 i, k, rv, kept;

	g_rows = NULL;
	g_nrows = g_cap = 0;
	g_failed_alloc = 0;
	if (ctx->all) {
		opts[0] = "all";
		opts[1] = "";
	}
	rv = dash_run(ctx, NULL, CMD_LS, NULL, 0, opts, &collect, text,
	    sizeof(text));
	rows = g_rows;
	*nrows = g_nrows;
	g_rows = NULL;
	if (rv != 0 || g_failed_alloc) {
		snprintf(err, errlen, "%s", g_failed_alloc ? "out of memory" :
		    text);
		free(rows);
		*nrows = 0;
		return NULL;
	}
	err[0] = '\0';
	for (i = 0; i < *nrows; i++) {
		/* a change elsewhere: this row's extras stay as they were */
		kept = 0;
		if (only != NULL && strcmp(only, rows[i].in.name) != 0)
			for (k = 0; k < nold; k++)
				if (strcmp(old[k].in.name,
				    rows[i].in.name) == 0) {
					memcpy(rows[i].refused, old[k].refused,
					    sizeof(rows[i].refused));
					rows[i].refused_at = old[k].refused_at;
					memcpy(rows[i].windows, old[k].windows,
					    sizeof(rows[i].windows));
					memcpy(rows[i].mounts, old[k].mounts,
					    sizeof(rows[i].mounts));
					memcpy(rows[i].mount_kind,
					    old[k].mount_kind,
					    sizeof(rows[i].mount_kind));
					memcpy(rows[i].mount_until,
					    old[k].mount_until,
					    sizeof(rows[i].mount_until));
					rows[i].nmount = old[k].nmount;
					kept = 1;
					break;
				}
		if (!kept)
			row_extras(ctx, &rows[i]);
	}
	return rows;
}

int
dash_detail(struct dash_ctx *ctx, const struct dash_row *r,
    struct dash_detail *d)
{
	char	 text[DASH_OUT], *args[1];
	char	 name[sizeof(r->in.name)];

	memset(d, 0, sizeof(*d));
	(void)strlcpy(d->name, r->in.name, sizeof(d->name));
	(void)strlcpy(name, r->in.name, sizeof(name));
	args[0] = name;
	g_det = d;
	if (strcmp(r->in.state, "Running") == 0) {
		(void)dash_run(ctx, r, CMD_NET_STATUS, args, 1, NULL, &collect,
		    text, sizeof(text));
		(void)dash_run(ctx, r, CMD_NET_LOG, args, 1, NULL, &collect,
		    text, sizeof(text));
		(void)dash_run(ctx, r, CMD_MOUNT_LS, args, 1, NULL, &collect,
		    text, sizeof(text));
	}
	(void)dash_run(ctx, r, CMD_SNAP_LS, args, 1, NULL, &collect, text,
	    sizeof(text));
	g_det = NULL;
	if (d->nline == 0)
		detail_line("%s", "nothing more to show");
	return 0;
}
