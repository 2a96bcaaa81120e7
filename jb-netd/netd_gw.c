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
 * What jb-netd tells the egress gateway (jb-egress, through the parent):
 * after every change of what it enforces, a snapshot of each
 * container's entries (the gateway keeps the names), and after every
 * admission the resolver made, which addresses it admitted to which
 * container for which name, and for how long.
 */

#include <arpa/inet.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "netd.h"
#include "netd_gw.h"
#include "admitted.h"
#include "gwknown.h"
#include "netd_nft.h"
#include "resolver.h"

static struct child	*gwc;
static uint32_t		 gen;
static struct event	 push_ev;
static const struct netd_state	*push_st;

static void
send_part(struct jb_egress_policy *p)
{
	if (imsgev_compose(&gwc->iev, IMSG_EGRESS_POLICY, 0, 0, -1, p,
	    sizeof(*p)) == -1)
		fatal("compose");
}

static void
push_now(int fd, short ev, void *arg)
{
	const struct netd_state	*st = push_st;
	struct jb_egress_policy	 p;
	struct in_addr		 in;
	char			 txt[EGRESS_FMT_MAX];
	size_t			 i, k, len, off;
	int			 first = 1;

	if (gwc == NULL || st == NULL)
		return;
	gen++;
	for (i = 0; i < st->n; i++) {
		const struct netd_ctr	*c = &st->v[i];

		memset(&p, 0, sizeof(p));
		p.gen = gen;
		(void)strlcpy(p.name, c->name, sizeof(p.name));
		in.s_addr = htonl(c->addr);
		(void)inet_ntop(AF_INET, &in, p.ipv4, sizeof(p.ipv4));
		off = 0;
		for (k = 0; k < c->n; k++) {
			if (c->e[k].kind != EGRESS_NAME &&
			    c->e[k].kind != EGRESS_WILDCARD)
				continue;
			policy_entry_fmt(&c->e[k], txt, sizeof(txt));
			len = strlen(txt) + 1;
			if (off + len >= sizeof(p.entries)) {
				p.flags = first ? JB_EGRESS_BEGIN : 0;
				first = 0;
				send_part(&p);
				memset(p.entries, 0, sizeof(p.entries));
				p.nentries = 0;
				off = 0;
			}
			memcpy(p.entries + off, txt, len);
			off += len;
			p.nentries++;
		}
		p.flags = (first ? JB_EGRESS_BEGIN : 0) |
		    (i + 1 == st->n ? JB_EGRESS_END : 0);
		first = 0;
		send_part(&p);
	}
	if (st->n == 0) {
		memset(&p, 0, sizeof(p));
		p.gen = gen;
		p.flags = JB_EGRESS_BEGIN | JB_EGRESS_END;
		send_part(&p);
	}
}

/*
 * The snapshot goes once the handler that changed st has returned: its
 * answer is queued first, so the one who asked waits for the table and
 * the record, not for the gateway's copy of every container (some 4 kB
 * each, relayed through jailbeed); changes in one turn of the loop are
 * sent once.  The gateway refuses what it does not know yet.
 */
void
netd_gw_push(const struct netd_state *st)
{
	if (gwc == NULL)
		return;
	push_st = st;
	if (!event_initialized(&push_ev))
		evtimer_set(&push_ev, push_now, NULL);
	event_active(&push_ev, EV_TIMEOUT, 1);
}

/* the number of the last ADMIT sent, and of the last one confirmed */
static uint32_t		 admit_seq, admit_acked;
/* what the gateway holds already, so that an answer need not wait */
static struct gwknown	*known;

static void
admit_send(struct jb_egress_admit *a)
{
	if (++admit_seq == 0)
		admit_seq = 1;
	a->seq = admit_seq;
	if (imsgev_compose(&gwc->iev, IMSG_EGRESS_ADMIT, 0, 0, -1, a,
	    sizeof(*a)) == -1)
		fatal("compose");
}

static int64_t
mono(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* a's addresses to the gateway, noted as on their way until then */
static void
admit_flush(struct jb_egress_admit *a, int64_t until)
{
	size_t	k;

	admit_send(a);
	for (k = 0; known != NULL && k < a->naddr; k++)
		gwknown_note(known, a->name, a->host, a->addr[k], until,
		    admit_seq);
	a->naddr = 0;
}

/*
 * The resolver admitted: group by name, each name's addresses once, sent
 * on to the gateway unless it holds them already for nearly as long (the
 * slack the kernel's admissions have too), so that a name asked again
 * costs no message.  Returns the number of the last ADMIT sent that
 * carried something the gateway does not hold yet, for the resolver to
 * wait for its word before it answers, or 0.
 */
static uint32_t
admitted(const char *name, const struct nftgen_elem *el,
    const char *const *names, size_t n, unsigned int timeout)
{
	struct jb_egress_admit	 a;
	size_t			 i, j, k;
	uint32_t		 wait = 0;
	int64_t			 now = mono(), until = now + (int64_t)timeout;
	int			 dup, fresh;

	for (i = 0; i < n; i++) {
		/* the first element of its name sends them all */
		for (j = 0; j < i; j++)
			if (strcmp(names[j], names[i]) == 0)
				break;
		if (j < i)
			continue;
		memset(&a, 0, sizeof(a));
		(void)strlcpy(a.name, name, sizeof(a.name));
		for (k = 0; names[i][k] != '\0' && k + 1 < sizeof(a.host);
		    k++)
			a.host[k] = (char)(names[i][k] >= 'A' &&
			    names[i][k] <= 'Z' ? names[i][k] - 'A' + 'a' :
			    names[i][k]);
		if (k > 0 && a.host[k - 1] == '.')
			a.host[k - 1] = '\0';
		a.ttl = timeout;
		fresh = 0;
		for (j = i; j < n; j++) {
			if (strcmp(names[j], names[i]) != 0)
				continue;
			dup = 0;
			for (k = 0; k < a.naddr && !dup; k++)
				dup = a.addr[k] == el[j].addr;
			if (dup)
				continue;
			if (known != NULL && gwknown_until(known, name, a.host,
			    el[j].addr, admit_acked) + ADMITTED_SLACK >= until)
				continue;
			if (known == NULL || !gwknown_held(known, name, a.host,
			    el[j].addr, now, admit_acked))
				fresh = 1;
			if (a.naddr == JB_EGRESS_ADMIT_MAX)
				admit_flush(&a, until);
			a.addr[a.naddr++] = el[j].addr;
		}
		if (a.naddr > 0)
			admit_flush(&a, until);
		if (fresh)
			wait = admit_seq;
	}
	return wait;
}

/* the gateway holds every ADMIT up to a number: answers may go */
void
netd_gw_admitted(struct child *c, struct imsg *imsg)
{
	struct jb_egress_admitted	a;

	if (imsg_get_data(imsg, &a, sizeof(a)) == -1 || a.seq == 0)
		fatalx("%s: bad EGRESS_ADMITTED", c->name);
	admit_acked = a.seq;
	resolver_admitted(a.seq);
}

void
netd_gw_init(struct child *c)
{
	gwc = c;
	/* out of memory: every answer waits for the gateway's word */
	known = gwknown_new();
	netd_nft_admit_hook = admitted;
}

struct blocked	netd_gw_refused;

/*
 * A refusal of the gateway, counted as "HOST:PORT" when an entry of that
 * text would admit it (what net suggest then offers), else as
 * "HOST:PORT (why)" or "ADDR:PORT (why)" when no name was read.
 */
void
netd_gw_refusal(struct child *c, struct imsg *imsg)
{
	struct jb_egress_refused	r;
	/* cut to what the table keeps of it */
	char				what[EGRESS_NAME_MAX + 1];
	char				buf[sizeof(r.host) + sizeof(r.why) + 16];
	int64_t				now = time(NULL);

	if (imsg_get_data(imsg, &r, sizeof(r)) == -1)
		fatalx("%s: malformed EGRESS_REFUSED", c->name);
	r.name[sizeof(r.name) - 1] = '\0';
	r.host[sizeof(r.host) - 1] = '\0';
	r.ipv4[sizeof(r.ipv4) - 1] = '\0';
	r.why[sizeof(r.why) - 1] = '\0';
	if (r.name[0] == '\0' || netd_state_find(&cur, r.name) == NULL)
		return;
	/* the gateway reads only host names: nothing here needs quoting */
	if (!policy_valid_hostname(r.host))
		r.host[0] = '\0';
	if (r.fixable && r.host[0] != '\0' &&
	    strlen(r.host) + 7 < sizeof(what))
		(void)snprintf(buf, sizeof(buf), "%s:%u", r.host,
		    (unsigned)r.port);
	else
		(void)snprintf(buf, sizeof(buf), "%s:%u (%s)",
		    r.host[0] != '\0' ? r.host : r.ipv4, (unsigned)r.port,
		    r.why);
	(void)strlcpy(what, buf, sizeof(what));
	/* out of memory: the refusal stands, uncounted */
	(void)blocked_add(&netd_gw_refused, r.name, what, 1, now, now);
}

void
netd_gw_allow(const struct blocked_entry *e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (strchr(e->what, ' ') == NULL)
		(void)strlcpy(buf, e->what, len);
}
