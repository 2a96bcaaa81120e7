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
 * CREATE: a new container of the suite.  The parent only fills in values;
 * the instance's JSON is built here, so no request can choose a config
 * key or a device of its own (never security.privileged, never raw.lxc).
 *
 * The checks that need Incus run one after the other, before anything
 * is made: the bridge's subnet, its leases (dynamic, and the static
 * address of every instance NIC on the bridge), the image alias, and
 * the name.  The instance is then created
 * stopped and started by a second request, so that a failure to start is
 * told apart from a failure to create (which may mean the name belongs to
 * someone else) and only a container made here is deleted again.
 */

#include <sys/queue.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <json.h>

#include "bound.h"
#include "gate.h"
#include "ctrlimits.h"
#include "incus.h"
#include "log.h"
#include "mountspec.h"
#include "ops.h"
#include "ops_place.h"

#define UID_MAX_OK	2147483646U	/* 2^31 - 2: Incus's and the kernel's */
#define CLEAN_TRIES	40		/* deletes while Incus is busy */
#define CLEAN_WAIT_MS	250
#define GATE_TRIES	50		/* looks for the gate, on a cluster */
#define GATE_WAIT_MS	200

/* the checks, in the order their verdicts are taken */
enum { CK_NET, CK_LEASES, CK_ALIAS, CK_NAME, CK_PROFILE, CK_N };
#define CK_OK		0
#define CK_REFUSED	1		/* msg is the whole refusal */
#define CK_FAILED	2		/* msg is Incus's error */

struct create {
	struct jb_incus_create	 in;
	char			 pool[64];	/* the root disk's, to size it */
	const char		**env;
	struct in_addr		 addr;
	char			 failed[JB_ERR_TEXT_MAX]; /* why start failed */
	struct event		*retry;
	int			 tries;
	struct event		*gatewait;	/* on a cluster */
	int			 gatetries;
	/* the checks before anything is made, asked at once */
	struct incus_call	*calls[CK_N];	/* in flight; CK_NET's is r->call */
	int			 kind[CK_N];	/* CK_OK, CK_REFUSED, CK_FAILED */
	char			*msg[CK_N];	/* the refusal, or Incus's words */
	int			 pending;
	struct json_object	*profile;	/* the default profile, or NULL */
	/* where it is made: --target, or the member picked; "" Incus's */
	char			 where[64];
	int			 gate_later;	/* where is another member */
	struct place		*place;		/* picking where, or NULL */
	struct jb_policy	*policy;	/* kept for it, or NULL */
};

static void	cr_net(struct op_req *, const struct jb_netinfo *,
		    const char *);
static void	cr_judge(struct op_req *);
static void	cr_leases(void *, struct json_object *, const char *);
static void	cr_alias(void *, struct json_object *, const char *);
static void	cr_named(void *, struct json_object *, const char *);
static void	cr_ask(struct op_req *);
static void	cr_profile(void *, struct json_object *, const char *);
static void	cr_created(void *, struct json_object *, const char *);
static void	cr_started(void *, struct json_object *, const char *);
static void	cr_start(struct op_req *);
static void	cr_gate_put(struct op_req *);
static void	cr_gate_seen(void *, struct json_object *, const char *);
static void	cr_placed(struct op_req *, const char *, const char *);
static void	cr_delete(struct op_req *);
static void	cr_state(void *, struct json_object *, const char *);
static void	cr_cleaned(void *, struct json_object *, const char *);

static void
create_free(void *p)
{
	struct create	*cr = p;
	int		 i;

	for (i = 0; i < CK_N; i++) {
		if (i != CK_NET && cr->calls[i] != NULL)
			incus_cancel(cr->calls[i]);
		free(cr->msg[i]);
	}
	json_object_put(cr->profile);
	place_free(cr->place);
	if (cr->retry != NULL)
		event_free(cr->retry);
	if (cr->gatewait != NULL)
		event_free(cr->gatewait);
	free(cr->env);
	free(cr->policy);
	free(cr);
}

static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}


/* a dotted quad exactly as inet_ntop(3) writes it, nothing else */
static int
parse_ipv4(const char *s, struct in_addr *in)
{
	char	back[INET_ADDRSTRLEN];

	if (inet_pton(AF_INET, s, in) != 1 ||
	    inet_ntop(AF_INET, in, back, sizeof(back)) == NULL)
		return 0;
	return strcmp(s, back) == 0;
}

/* an Incus cluster member's name: 1-63 of [A-Za-z0-9-], no '-' at ends */
static int
member_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= 63 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-") == n && s[0] != '-' &&
	    s[n - 1] != '-';
}

static int
cr_check(struct create *cr, char *why, size_t len)
{
	struct jb_incus_create	*in = &cr->in;

	if (!name_instance_ok(in->name))
		(void)snprintf(why, len, "invalid container name \"%s\": 1 "
		    "to 63 lowercase letters, digits and '-', starting and "
		    "ending with a letter or digit", in->name);
	else if (!name_alias_ok(in->image))
		(void)snprintf(why, len, "bad image alias \"%s\"", in->image);
	else if (!parse_ipv4(in->ipv4, &cr->addr))
		(void)snprintf(why, len, "\"%s\" is not an IPv4 address (a "
		    "dotted quad such as 10.0.0.2)", in->ipv4);
	else if (in->uid < 1 || in->uid > UID_MAX_OK)
		(void)snprintf(why, len, "uid %u is out of range (1 to %u)",
		    in->uid, UID_MAX_OK);
	else if (in->gid < 1 || in->gid > UID_MAX_OK)
		(void)snprintf(why, len, "gid %u is out of range (1 to %u)",
		    in->gid, UID_MAX_OK);
	else if (!bound_idmap(&jb_bound, in->uid, in->gid, why, len))
		return 0;
	else if (in->gate_later && (!in->no_checkout || in->target[0] == '\0'))
		(void)snprintf(why, len, "a start gate added later is for a "
		    "container placed on another cluster member only");
	else if (in->no_checkout && in->source[0] != '\0')
		(void)snprintf(why, len, "a clone through the git bridge has "
		    "no checkout source");
	else if (in->no_checkout && in->mount_rw)
		(void)snprintf(why, len, "a clone through the git bridge is "
		    "not a mount of the working tree");
	else if (!in->no_checkout && !valid_abspath(in->source))
		(void)snprintf(why, len, "source \"%.200s\" is not a canonical "
		    "absolute path", in->source);
	else if (!in->no_checkout && !bound_source(&jb_bound, in->source, why,
	    len))
		return 0;
	else if (in->target[0] != '\0' && !member_ok(in->target))
		(void)snprintf(why, len, "target \"%.80s\" is not an Incus "
		    "cluster member name", in->target);
	else if (in->member[0] != '\0' && !member_ok(in->member))
		(void)snprintf(why, len, "member \"%.80s\" is not an Incus "
		    "cluster member name", in->member);
	else if (!valid_abspath(in->repo))
		(void)snprintf(why, len, "repo \"%.200s\" is not a canonical "
		    "absolute path", in->repo);
	else if (!name_prefix_ok(in->prefix))
		(void)snprintf(why, len, "bad container prefix \"%s\": "
		    "lowercase letters, digits and '-'", in->prefix);
	else if (in->branch[0] == '\0')
		(void)snprintf(why, len, "no branch given");
	else if (!printable(in->branch))
		(void)snprintf(why, len, "branch name with control "
		    "characters");
	else if (!printable(in->base))
		(void)snprintf(why, len, "base branch name with control "
		    "characters");
	else if (strcmp(in->net, "strict") != 0 &&
	    strcmp(in->net, "loose") != 0)
		(void)snprintf(why, len, "network mode \"%s\" is neither "
		    "strict nor loose", in->net);
	else if ((in->memory[0] != '\0' && !lim_size_ok(in->memory,
	    1)) || (in->cpu[0] != '\0' && !lim_count_ok(in->cpu, 1,
	    LIM_CPU_MAX)) || (in->processes[0] != '\0' &&
	    !lim_count_ok(in->processes, LIM_PROCESSES_MIN,
	    LIM_PROCESSES_MAX)) || (in->disk[0] != '\0' &&
	    !lim_size_ok(in->disk, 0)))
		(void)snprintf(why, len, "limits \"%s\" \"%s\" \"%s\" \"%s\" "
		    "are not what Incus takes", in->memory, in->cpu,
		    in->processes, in->disk);
	else if (in->agent[0] != '\0' && (strchr("-_", in->agent[0]) !=
	    NULL || strspn(in->agent, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789_-") != strlen(in->agent)))
		(void)snprintf(why, len, "agent name \"%s\": [a-z0-9_-] only",
		    in->agent);
	else if (in->pool[0] != '\0' && (strchr("-_.", in->pool[0]) !=
	    NULL || strspn(in->pool, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(in->pool)))
		(void)snprintf(why, len, "storage pool \"%s\": a letter or "
		    "digit, then [A-Za-z0-9_.-] only", in->pool);
	else
		return valid_env_list(cr->env, why, len);
	return 0;
}

void
op_create(uint32_t rid, const struct jb_incus_create *in)
{
	struct op_req	*r, *o;
	struct create	*cr, *ocr;
	char		 why[JB_ERR_TEXT_MAX];

	must_string("CREATE name", in->name, sizeof(in->name));
	must_string("CREATE image", in->image, sizeof(in->image));
	must_string("CREATE ipv4", in->ipv4, sizeof(in->ipv4));
	must_string("CREATE source", in->source, sizeof(in->source));
	must_string("CREATE repo", in->repo, sizeof(in->repo));
	must_string("CREATE prefix", in->prefix, sizeof(in->prefix));
	must_string("CREATE branch", in->branch, sizeof(in->branch));
	must_string("CREATE base", in->base, sizeof(in->base));
	must_string("CREATE net", in->net, sizeof(in->net));
	must_string("CREATE agent", in->agent, sizeof(in->agent));
	must_string("CREATE secrets", in->secrets, sizeof(in->secrets));
	must_string("CREATE memory", in->memory, sizeof(in->memory));
	must_string("CREATE cpu", in->cpu, sizeof(in->cpu));
	must_string("CREATE processes", in->processes,
	    sizeof(in->processes));
	must_string("CREATE disk", in->disk, sizeof(in->disk));
	must_string("CREATE target", in->target, sizeof(in->target));
	must_string("CREATE member", in->member, sizeof(in->member));

	if ((cr = calloc(1, sizeof(*cr))) == NULL)
		fatal("%s", __func__);
	memcpy(&cr->in, in, sizeof(cr->in));
	cr->env = unpack_strings("CREATE env", cr->in.env, sizeof(cr->in.env),
	    cr->in.nenv);
	r = req_new(rid, IMSG_INCUS_CREATE, in->name);
	r->priv = cr;
	r->priv_free = create_free;
	(void)snprintf(r->what, sizeof(r->what), "create %s", in->name);
	(void)strlcpy(cr->where, in->target, sizeof(cr->where));
	cr->gate_later = in->gate_later;
	/* the policy kept for it (CREATE_POLICY) goes in with it */
	cr->policy = policy_for_create(in->name);

	if (!cr_check(cr, why, sizeof(why))) {
		req_done(r, 0, "%s: %s", r->what, why);
		return;
	}
	if (cr->policy != NULL && strcmp(cr->policy->net, in->net) != 0) {
		req_done(r, 0, "%s: the policy kept for it is %s, not %s",
		    r->what, cr->policy->net, in->net);
		return;
	}
	/* Incus cannot see what is still being made here */
	TAILQ_FOREACH(o, &ops_reqs, entry) {
		if (o == r || o->type != IMSG_INCUS_CREATE)
			continue;
		ocr = o->priv;
		if (strcmp(ocr->in.name, cr->in.name) == 0) {
			req_done(r, 0, "%s: %s is being created already",
			    r->what, cr->in.name);
			return;
		}
		if (ocr->addr.s_addr == cr->addr.s_addr) {
			req_done(r, 0, "%s: address %s is being given to %s",
			    r->what, cr->in.ipv4, ocr->in.name);
			return;
		}
	}
	cr_ask(r);
}

static void
ck_set(struct create *cr, int which, int kind, const char *fmt, ...)
    __attribute__((__format__(__printf__, 4, 5)));

/* one check's verdict; the last one in has them all judged */
static void
ck_set(struct create *cr, int which, int kind, const char *fmt, ...)
{
	va_list	ap;

	cr->kind[which] = kind;
	if (kind != CK_OK && fmt != NULL) {
		va_start(ap, fmt);
		if (vasprintf(&cr->msg[which], fmt, ap) == -1)
			fatal("%s", __func__);
		va_end(ap);
	}
}

static void
ck_done(struct op_req *r)
{
	struct create	*cr = r->priv;

	if (--cr->pending == 0)
		cr_judge(r);
}

static void
cr_net(struct op_req *r, const struct jb_netinfo *ni, const char *err)
{
	struct create	*cr = r->priv;
	struct in_addr	 host;
	uint32_t	 mask, ip, h, net;
	char		 netstr[INET_ADDRSTRLEN];
	const char	*bad = NULL;

	if (ni == NULL) {
		ck_set(cr, CK_NET, CK_REFUSED, "%s: %s", r->what, err);
		ck_done(r);
		return;
	}
	if (inet_pton(AF_INET, ni->ipv4, &host) != 1 || ni->prefixlen > 32) {
		ck_set(cr, CK_NET, CK_REFUSED, "%s: network %s: bad address "
		    "%s/%u", r->what, ni->bridge, ni->ipv4, ni->prefixlen);
		ck_done(r);
		return;
	}
	mask = ni->prefixlen == 0 ? 0 : ~0U << (32 - ni->prefixlen);
	ip = ntohl(cr->addr.s_addr);
	h = ntohl(host.s_addr);
	net = h & mask;
	host.s_addr = htonl(net);
	(void)inet_ntop(AF_INET, &host, netstr, sizeof(netstr));
	if ((ip & mask) != net) {
		ck_set(cr, CK_NET, CK_REFUSED, "%s: address %s is outside "
		    "network %s (%s/%u)", r->what, cr->in.ipv4, ni->bridge,
		    netstr, ni->prefixlen);
		ck_done(r);
		return;
	}
	if (ip == net)
		bad = "the network address";
	else if (ip == (net | ~mask))
		bad = "the broadcast address";
	else if (ip == h)
		bad = "the host's own address";
	if (bad != NULL)
		ck_set(cr, CK_NET, CK_REFUSED, "%s: address %s is %s of "
		    "network %s (%s/%u)", r->what, cr->in.ipv4, bad,
		    ni->bridge, netstr, ni->prefixlen);
	ck_done(r);
}

/* Dynamic leases too: a DHCP client somewhere may hold the address. */
static void
cr_leases(void *arg, struct json_object *list, const char *err)
{
	struct op_req		*r = arg;
	struct create		*cr = r->priv;
	struct json_object	*l;
	const char		*a, *who, *type;
	size_t			 i, n;

	cr->calls[CK_LEASES] = NULL;
	if (err != NULL) {
		ck_set(cr, CK_LEASES, CK_FAILED, "%s", err);
		ck_done(r);
		return;
	}
	n = json_object_is_type(list, json_type_array) ?
	    json_object_array_length(list) : 0;
	for (i = 0; i < n; i++) {
		l = json_object_array_get_idx(list, i);
		if ((a = jget_str(l, "address")) == NULL ||
		    strcmp(a, cr->in.ipv4) != 0)
			continue;
		who = jget_str(l, "hostname");
		type = jget_str(l, "type");
		ck_set(cr, CK_LEASES, CK_REFUSED, "%s: address %s is in use on "
		    "%s by %s (%s lease)", r->what, a, ops_bridge, who && *who ?
		    who : "an unnamed host", type ? type : "a");
		break;
	}
	ck_done(r);
}

static void
cr_alias(void *arg, struct json_object *alias, const char *err)
{
	struct op_req	*r = arg;
	struct create	*cr = r->priv;

	cr->calls[CK_ALIAS] = NULL;
	if (err != NULL)
		ck_set(cr, CK_ALIAS, CK_FAILED, "%s", err);
	else if (alias == NULL)
		ck_set(cr, CK_ALIAS, CK_REFUSED, "%s: base image %s not found: "
		    "build it with jbctl base build, or import one under that "
		    "alias", r->what, cr->in.image);
	ck_done(r);
}

/*
 * The name must be free.  The address needs no listing of every
 * instance here: the leases checked above hold every instance NIC's
 * static address on the bridge, and Incus itself refuses an address
 * another NIC on the same network holds.
 */
static void
cr_named(void *arg, struct json_object *inst, const char *err)
{
	struct op_req		*r = arg;
	struct create		*cr = r->priv;

	cr->calls[CK_NAME] = NULL;
	if (err != NULL)
		ck_set(cr, CK_NAME, CK_FAILED, "%s", err);
	/* Incus would say so only in terms of its database */
	else if (inst != NULL)
		ck_set(cr, CK_NAME, CK_REFUSED, "%s: an instance named %s "
		    "already exists", r->what, cr->in.name);
	ck_done(r);
}

/* the container takes the default profile: its root disk's pool */
static void
cr_profiled(void *arg, struct json_object *prof, const char *err)
{
	struct op_req		*r = arg;
	struct create		*cr = r->priv;

	cr->calls[CK_PROFILE] = NULL;
	if (err != NULL)
		ck_set(cr, CK_PROFILE, CK_FAILED, "%s", err);
	else
		cr->profile = json_object_get(prof);
	ck_done(r);
}

/*
 * The checks that need Incus, asked at once, none waiting on another:
 * the bridge, its leases, the image alias, the name, and (for a size on
 * the default profile's pool) that profile.  The bridge and its leases
 * are what new's ADDRS and NETINFO read a moment before, unless a
 * change ended since (incus_get_recent): Incus builds both from every
 * instance.
 */
static void
cr_ask(struct op_req *r)
{
	struct create	*cr = r->priv;
	char		 path[64];

	cr->pending = 1;		/* until every question is out */
	(void)snprintf(path, sizeof(path), "/1.0/networks/%s/leases",
	    ops_bridge);
	if ((cr->calls[CK_LEASES] = incus_get_recent(ops_ic, path, cr_leases,
	    r)) == NULL ||
	    (cr->calls[CK_ALIAS] = incus_image_alias_get(ops_ic, cr->in.image,
	    cr_alias, r)) == NULL ||
	    (cr->calls[CK_NAME] = incus_instance_get(ops_ic, cr->in.name,
	    cr_named, r)) == NULL)
		fatal("%s", __func__);
	cr->pending += 3;
	if (cr->in.disk[0] != '\0' && cr->in.pool[0] == '\0') {
		if ((cr->calls[CK_PROFILE] = incus_get_recent(ops_ic,
		    "/1.0/profiles/default", cr_profiled, r)) == NULL)
			fatal("%s", __func__);
		cr->pending++;
	}
	cr->pending++;
	netinfo_get(r, cr_net);
	ck_done(r);
}

/* the verdicts in the order the checks were once made one by one */
static void
cr_judge(struct op_req *r)
{
	struct create	*cr = r->priv;
	int		 i;

	for (i = 0; i < CK_N; i++) {
		if (cr->kind[i] == CK_REFUSED) {
			req_done(r, 0, "%s", cr->msg[i]);
			return;
		}
		if (cr->kind[i] == CK_FAILED) {
			req_fail(r, cr->msg[i]);
			return;
		}
	}
	if (cr->in.member[0] != '\0' && cr->in.target[0] == '\0') {
		place_ask(r, &cr->place, cr->in.member, cr_placed);
		return;
	}
	cr_profile(r, cr->profile, NULL);
}

/* on a cluster, without --target: the member it goes on */
static void
cr_placed(struct op_req *r, const char *member, const char *err)
{
	struct create	*cr = r->priv;

	if (member == NULL) {
		req_fail(r, err);
		return;
	}
	if (member[0] == '\0') {
		cr_profile(r, cr->profile, NULL);
		return;
	}
	(void)strlcpy(cr->where, member, sizeof(cr->where));
	cr->gate_later = strcmp(member, cr->in.member) != 0;
	/* another member has no checkout of this one to mount */
	if (cr->gate_later && !cr->in.no_checkout) {
		req_done(r, 0, "%s: it would go on cluster member %s, and its "
		    "checkout is mounted from this member %s only: add "
		    "--target %s", r->what, member, cr->in.member,
		    cr->in.member);
		return;
	}
	req_progress(r, "placing %s on cluster member %s, which runs the "
	    "fewest instances%s", cr->in.name, member, cr->gate_later ?
	    "; its suite opens the start gate there" : "");
	cr_profile(r, cr->profile, NULL);
}

static struct json_object *
cr_body(struct create *cr)
{
	struct jb_incus_create	*in = &cr->in;
	struct json_object	*b, *src, *cfg, *devs, *d;
	const char		*eq;
	char			 idmap[64], path[PATH_MAX], *key;
	size_t			 i;

	b = jnew(json_object_new_object());
	jput(b, "name", in->name);
	jput(b, "type", "container");
	src = jnew(json_object_new_object());
	jput(src, "type", "image");
	jput(src, "alias", in->image);
	json_object_object_add(b, "source", src);

	cfg = jnew(json_object_new_object());
	jput(cfg, "security.nesting", "true");
	/*
	 * Incus never starts it by itself when incusd starts (after a
	 * reboot, say): its network rules, its gate and its mounts are set
	 * up by jailbeed before every start, and without them it would run
	 * unfiltered.  An autostart that fails also holds incusd's
	 * readiness back by 10 s per container.
	 */
	jput(cfg, "boot.autostart", "false");
	/*
	 * no guest API (/dev/incus): the container cannot read its
	 * user.jailbee.* keys (its policy, the host paths), and no later
	 * guest endpoint can touch them
	 */
	jput(cfg, "security.guestapi", "false");
	/* exactly the owner's ids map to themselves, nothing else */
	if (in->uid == in->gid)
		(void)snprintf(idmap, sizeof(idmap), "both %u %u", in->uid,
		    in->uid);
	else
		(void)snprintf(idmap, sizeof(idmap), "uid %u %u\ngid %u %u",
		    in->uid, in->uid, in->gid, in->gid);
	jput(cfg, "raw.idmap", idmap);
	jput(cfg, "user.jailbee.repo", in->repo);
	jput(cfg, "user.jailbee.prefix", in->prefix);
	jput(cfg, "user.jailbee.branch", in->branch);
	if (in->base[0] != '\0')
		jput(cfg, "user.jailbee.base", in->base);
	jput(cfg, "user.jailbee.mode", in->mount_rw ? "mount" : "clone");
	jput(cfg, "user.jailbee.net", in->net);
	/* and the rest of its policy: Incus holds it from now on */
	if (cr->policy != NULL)
		policy_keys(cfg, cr->policy);
	if (in->agent[0] != '\0')
		jput(cfg, "user.jailbee.agent", in->agent);
	if (in->target[0] != '\0')
		jput(cfg, "user.jailbee.target", in->target);
	if (in->secrets[0] != '\0')
		jput(cfg, "user.jailbee.secrets", in->secrets);
	if (in->memory[0] != '\0')
		jput(cfg, "limits.memory", in->memory);
	if (in->cpu[0] != '\0')
		jput(cfg, "limits.cpu", in->cpu);
	if (in->processes[0] != '\0')
		jput(cfg, "limits.processes", in->processes);
	for (i = 0; cr->env[i] != NULL; i++) {
		eq = strchr(cr->env[i], '=');
		if (asprintf(&key, "environment.%.*s",
		    (int)(eq - cr->env[i]), cr->env[i]) == -1)
			fatal("%s", __func__);
		jput(cfg, key, eq + 1);
		free(key);
	}
	json_object_object_add(b, "config", cfg);

	devs = jnew(json_object_new_object());
	d = jnew(json_object_new_object());
	jput(d, "type", "nic");
	jput(d, "network", ops_bridge);
	jput(d, "name", "eth0");
	jput(d, "ipv4.address", in->ipv4);
	/* jb-netd's bridge table, not Incus, checks what the port sends */
	if (nic_own(d, in->ipv4) == -1)
		fatalx("%s: %s was checked as an address", __func__, in->ipv4);
	jput(d, "security.port_isolation", "true");
	json_object_object_add(devs, "eth0", d);
	/* on a cluster the clone comes through the git bridge instead */
	if (!in->no_checkout) {
		d = jnew(json_object_new_object());
		jput(d, "type", "disk");
		jput(d, "source", in->source);
		jput(d, "path", MNT_HOST_SOURCE);
		jput(d, "readonly", "true");
		json_object_object_add(devs, MNT_DEV_CHECKOUT, d);
	}
	/*
	 * no start unless this member's jb-netd has opened its gate; placed
	 * on another cluster member, Incus checks the source there, so the
	 * gate is added once that member's suite has opened it (cr_gate_put)
	 */
	if (cr->gate_later) {
		(void)snprintf(path, sizeof(path), "%s%lld", GATE_BY_CREATOR,
		    (long long)time(NULL));
		jput(cfg, GATE_KEY, path);
	} else
		json_object_object_add(devs, GATE_DEVICE,
		    gate_device(in->name));
	/*
	 * The root disk: on defaults.storage_pool, else on the default
	 * profile's pool; sized by defaults.disk
	 */
	if (in->pool[0] != '\0' || in->disk[0] != '\0') {
		d = jnew(json_object_new_object());
		jput(d, "type", "disk");
		jput(d, "path", "/");
		jput(d, "pool", in->pool[0] != '\0' ? in->pool : cr->pool);
		if (in->disk[0] != '\0')
			jput(d, "size", in->disk);
		json_object_object_add(devs, "root", d);
	}
	if (in->mount_rw) {
		(void)snprintf(path, sizeof(path), "/home/dev/%s",
		    in->prefix);
		d = jnew(json_object_new_object());
		jput(d, "type", "disk");
		jput(d, "source", in->source);
		jput(d, "path", path);
		jput(d, "readonly", "false");
		json_object_object_add(devs, MNT_DEV_CHECKOUT_RW, d);
	}
	json_object_object_add(b, "devices", devs);
	/* started by a second request: see the comment at the top */
	json_object_object_add(b, "start", jnew(json_object_new_boolean(0)));
	return b;
}

static void
cr_profile(void *arg, struct json_object *prof, const char *err)
{
	struct op_req		*r = arg;
	struct create		*cr = r->priv;
	struct json_object	*b, *root;
	const char		*pool;
	char			 why[JB_ERR_TEXT_MAX];

	r->call = NULL;
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (cr->in.disk[0] != '\0' && cr->in.pool[0] == '\0') {
		if ((root = jget_obj(jget_obj(prof, "devices"), "root")) ==
		    NULL || (pool = jget_str(root, "pool")) == NULL ||
		    strlen(pool) >= sizeof(cr->pool)) {
			req_done(r, 0, "%s: Incus's default profile has no root "
			    "disk on a storage pool, so the disk limit cannot "
			    "be set", r->what);
			return;
		}
		(void)strlcpy(cr->pool, pool, sizeof(cr->pool));
	}
	b = cr_body(cr);
	/* what goes to Incus, whatever built it: the closed lists */
	if (!bound_instance(&jb_bound, b, ops_bridge, why, sizeof(why))) {
		json_object_put(b);
		req_done(r, 0, "%s: %s", r->what, why);
		return;
	}
	req_progress(r, "creating %s from %s", cr->in.name, cr->in.image);
	r->call = cr->where[0] != '\0' ? incus_instance_create_at(ops_ic,
	    b, cr->where, cr_created, r) : incus_instance_create(ops_ic, b,
	    cr_created, r);
	json_object_put(b);
	if (r->call == NULL)
		fatal("%s", __func__);
}

static void
cr_created(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct create	*cr = r->priv;
	char		 why[JB_ERR_TEXT_MAX];

	r->call = NULL;
	if (err != NULL && cr->in.pool[0] != '\0') {
		/* Incus does not name the pool it could not find */
		incus_reason(why, sizeof(why), err);
		req_done(r, 0, "%s: %s (the root disk's pool is %s, from "
		    "defaults.storage_pool; `incus storage list` names the "
		    "pools)", r->what, why, cr->in.pool);
		return;
	}
	if (err != NULL && cr->in.target[0] != '\0') {
		incus_reason(why, sizeof(why), err);
		req_done(r, 0, "%s: %s (new --target %s asks Incus to place it "
		    "on that cluster member; `incus cluster list` names the "
		    "members)", r->what, why, cr->in.target);
		return;
	}
	if (err != NULL && cr->where[0] != '\0') {
		incus_reason(why, sizeof(why), err);
		req_done(r, 0, "%s: %s (placed on cluster member %s, which ran "
		    "the fewest instances; new --target picks another)",
		    r->what, why, cr->where);
		return;
	}
	if (err != NULL) {
		req_fail(r, err);
		return;
	}
	if (cr->gate_later) {
		cr_gate_put(r);
		return;
	}
	cr_start(r);
}

static void
cr_start(struct op_req *r)
{
	req_progress(r, "starting %s", r->name);
	if ((r->call = incus_instance_state(ops_ic, r->name, "start", 0, -1,
	    cr_started, r)) == NULL)
		fatal("%s", __func__);
}

/*
 * On a cluster, placed on another member: Incus takes the start gate
 * device only once its source exists there, that is once that member's
 * jb-netd enforces the policy it read from Incus.  It is added here,
 * after the creation has ended: a device written while Incus still makes
 * the root volume breaks a btrfs volume.  The key user.jailbee.gate says
 * meanwhile that the device is this request's to add, not that member's
 * suite's.  Refused for want of the source: asked again; no gate within
 * GATE_TRIES asks (its suite is not running there): deleted, fail
 * closed.
 */
static void
cr_gate_put(struct op_req *r)
{
	struct json_object	*body, *cfg;
	char			 path[128];

	(void)snprintf(path, sizeof(path), "/1.0/instances/%s", r->name);
	body = gate_patch(r->name);
	cfg = jnew(json_object_new_object());
	jput(cfg, GATE_KEY, "");
	json_object_object_add(body, "config", cfg);
	r->call = incus_request(ops_ic, "PATCH", path, body, cr_gate_seen, r);
	json_object_put(body);
	if (r->call == NULL)
		fatal("%s", __func__);
}

static void
cr_gate_again(evutil_socket_t fd, short ev, void *arg)
{
	cr_gate_put(arg);
}

static void
cr_gate_seen(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct create	*cr = r->priv;
	struct timeval	 tv = { 0, GATE_WAIT_MS * 1000 };

	r->call = NULL;
	if (err == NULL) {
		cr_start(r);
		return;
	}
	if (strstr(err, "Missing source path") == NULL) {
		incus_reason(cr->failed, sizeof(cr->failed), err);
		log_info("%s: its start gate cannot be added: %s; deleting it",
		    r->what, cr->failed);
		cr_delete(r);
		return;
	}
	if (++cr->gatetries < GATE_TRIES) {
		if (cr->gatewait == NULL && (cr->gatewait = evtimer_new(
		    incus_base(ops_ic), cr_gate_again, r)) == NULL)
			fatal("%s", __func__);
		evtimer_add(cr->gatewait, &tv);
		return;
	}
	(void)snprintf(cr->failed, sizeof(cr->failed), "the cluster member "
	    "Incus placed it on gave it no start gate within %d s: the suite "
	    "must run there (cluster.member) and read its policy",
	    GATE_TRIES * GATE_WAIT_MS / 1000);
	log_info("%s: %s; deleting it", r->what, cr->failed);
	req_progress(r, "%s has no start gate: deleting it", r->name);
	cr_delete(r);
}

static void
cr_delete(struct op_req *r)
{
	if ((r->call = incus_instance_delete(ops_ic, r->name, cr_cleaned, r))
	    == NULL)
		fatal("%s", __func__);
}

static void
cr_retry(evutil_socket_t fd, short ev, void *arg)
{
	cr_delete(arg);
}

/*
 * Started: the checkout's device, with the init's pid, so that the
 * parent has jb-mountd verify what Incus mounted at MNT_HOST_SOURCE as
 * for every other disk.  Without a pid nothing is sent, and the parent
 * fails closed.
 */
static void
cr_state(void *arg, struct json_object *st, const char *err)
{
	struct op_req		*r = arg;
	struct create		*cr = r->priv;
	struct json_object	*pid;
	struct jb_disk		 d;

	r->call = NULL;
	if (err == NULL && !cr->in.no_checkout &&
	    json_object_object_get_ex(st, "pid", &pid) &&
	    json_object_is_type(pid, json_type_int) &&
	    json_object_get_int64(pid) > 1 &&
	    json_object_get_int64(pid) <= 0x7fffffff) {
		memset(&d, 0, sizeof(d));
		(void)strlcpy(d.name, r->name, sizeof(d.name));
		(void)strlcpy(d.device, MNT_DEV_CHECKOUT, sizeof(d.device));
		(void)strlcpy(d.source, cr->in.source, sizeof(d.source));
		(void)strlcpy(d.path, MNT_HOST_SOURCE, sizeof(d.path));
		(void)strlcpy(d.prefix, cr->in.prefix, sizeof(d.prefix));
		d.readonly = 1;
		d.pid = (int32_t)json_object_get_int64(pid);
		op_send(r, IMSG_INCUS_DISK, -1, &d, sizeof(d));
	}
	req_done(r, 1, NULL);
}

static void
cr_started(void *arg, struct json_object *md, const char *err)
{
	struct op_req		*r = arg;
	struct create		*cr = r->priv;
	struct jb_incus_target	 t;
	char			 path[JB_INSTANCE_MAX + 32];

	r->call = NULL;
	if (err == NULL) {
		/* the parent goes on while the pid is read */
		memset(&t, 0, sizeof(t));
		(void)strlcpy(t.name, r->name, sizeof(t.name));
		op_send(r, IMSG_INCUS_STARTED, -1, &t, sizeof(t));
		/* the init's pid: where jb-mountd verifies the checkout */
		(void)snprintf(path, sizeof(path), "/1.0/instances/%s/state",
		    r->name);
		if ((r->call = incus_request(ops_ic, "GET", path, NULL,
		    cr_state, r)) == NULL)
			fatal("%s", __func__);
		return;
	}
	/* leave nothing half-made */
	incus_reason(cr->failed, sizeof(cr->failed), err);
	log_info("%s: start failed, deleting it: %s", r->what, err);
	req_progress(r, "%s did not start: deleting it", r->name);
	cr_delete(r);
}

static void
cr_cleaned(void *arg, struct json_object *md, const char *err)
{
	struct op_req	*r = arg;
	struct create	*cr = r->priv;
	struct timeval	 tv = { 0, CLEAN_WAIT_MS * 1000 };
	char		 why[JB_ERR_TEXT_MAX];

	r->call = NULL;
	if (err == NULL) {
		req_done(r, 0, "start %s: %s; the container was deleted",
		    r->name, cr->failed);
		return;
	}
	/*
	 * After a failed start Incus shows the instance running, then busy
	 * with its own stop, for about a second: wait for it.
	 */
	if ((strstr(err, "is busy") != NULL || strstr(err, "is running") !=
	    NULL) && ++cr->tries < CLEAN_TRIES) {
		if (cr->retry == NULL && (cr->retry = evtimer_new(
		    incus_base(ops_ic), cr_retry, r)) == NULL)
			fatal("%s", __func__);
		evtimer_add(cr->retry, &tv);
		return;
	}
	incus_reason(why, sizeof(why), err);
	req_done(r, 0, "start %s: %s; deleting it failed too (%s): remove "
	    "it with incus delete --force %s", r->name, cr->failed, why,
	    r->name);
}
