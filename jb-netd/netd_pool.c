/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/queue.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "errtext.h"
#include "atomicfile.h"
#include "dnswire.h"
#include "hostspin.h"
#include "log.h"
#include "netd_nft.h"
#include "netd_pool.h"
#include "nftgen.h"
#include "pool.h"
#include "resolver.h"
#include "upstream.h"

#define POOL_FILE	"pool"
#define POOL_FILE_MAX	(32 * 1024 * 1024)
#define FIRST_TICK	2	/* seconds after start: the parent is up */
#define ADMIT_MATCHES	64	/* entries one name can match */
#define POOL_ANSWER_MAX	64	/* addresses taken from one answer */

/* what the parent was last asked to write into one container */
struct pinrec {
	TAILQ_ENTRY(pinrec)	 entry;
	char			 name[JB_INSTANCE_MAX];
	uint32_t		 gen;
	char			*sent;		/* in flight, NULL when none */
	char			*done;		/* confirmed written */
	char			*failed;	/* last refused: warned once */
};

/* one resolution of a container's names */
struct cycle {
	TAILQ_ENTRY(cycle)	 entry;
	char			 ctr[JB_INSTANCE_MAX];
	uint32_t		 rid;		/* 0: in the background */
	int			 pending;
	size_t			 n;
	char			(*names)[EGRESS_NAME_MAX + 1];
	int			*ok;
	size_t			 added;
	int			 pin;		/* pin at the end */
};

struct query {
	struct cycle		*cy;
	size_t			 idx;
};

static struct child		*ch;
static int			 pfd = -1;
static char			 ppath[PATH_MAX];
static const struct netd_state	*st;
static struct pool		 pool;
static struct event		 tick_ev;
static TAILQ_HEAD(, pinrec)	 pins = TAILQ_HEAD_INITIALIZER(pins);
static TAILQ_HEAD(, cycle)	 cycles = TAILQ_HEAD_INITIALIZER(cycles);

/* net status: a container whose names upstream stopped answering */
struct failrec {
	TAILQ_ENTRY(failrec)	 entry;
	char			 ctr[JB_INSTANCE_MAX];
	unsigned int		 cycles;	/* in a row, none answered */
	int64_t			 since;		/* the first of them */
};
static TAILQ_HEAD(, failrec)	 fails = TAILQ_HEAD_INITIALIZER(fails);

static struct failrec *
fail_find(const char *ctr)
{
	struct failrec	*f;

	TAILQ_FOREACH(f, &fails, entry)
		if (strcmp(f->ctr, ctr) == 0)
			return f;
	return NULL;
}

/* a cycle of ctr ended: n names asked, answered of them answered */
static void
fail_note(const char *ctr, size_t n, size_t answered, int64_t now)
{
	struct failrec	*f = fail_find(ctr);

	if (n == 0 || answered > 0) {
		if (f != NULL) {
			TAILQ_REMOVE(&fails, f, entry);
			free(f);
		}
		return;
	}
	if (f == NULL) {
		/* out of memory: status just says less */
		if ((f = calloc(1, sizeof(*f))) == NULL)
			return;
		(void)strlcpy(f->ctr, ctr, sizeof(f->ctr));
		f->since = now;
		TAILQ_INSERT_TAIL(&fails, f, entry);
	}
	f->cycles++;
}

static const struct netd_ctr *
find_ctr(const char *name)
{
	size_t	i;

	for (i = 0; i < st->n; i++)
		if (strcmp(st->v[i].name, name) == 0)
			return &st->v[i];
	return NULL;
}

void
netd_pool_init(struct child *c, int statefd, const char *dirpath,
    const struct netd_state *cur)
{
	struct stat	 sb;
	char		*buf, err[1024];
	ssize_t		 r;
	size_t		 off = 0;
	int		 fd;

	ch = c;
	pfd = statefd;
	st = cur;
	(void)snprintf(ppath, sizeof(ppath), "%s/%s", dirpath, POOL_FILE);
	if ((fd = openat(pfd, POOL_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW))
	    == -1) {
		if (errno != ENOENT)
			log_warn("%s: %s: the pool starts empty", c->name,
			    ppath);
		return;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > POOL_FILE_MAX) {
		log_warnx("%s: %s is not a regular file of at most %d bytes: "
		    "the pool starts empty", c->name, ppath, POOL_FILE_MAX);
		close(fd);
		return;
	}
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL)
		fatal("%s: malloc", c->name);
	while (off < (size_t)sb.st_size &&
	    (r = read(fd, buf + off, (size_t)sb.st_size - off)) > 0)
		off += (size_t)r;
	close(fd);
	/* only names resolve into it: an empty pool is safe, if slower */
	if (pool_parse(ppath, buf, off, &pool, err, sizeof(err)) == -1)
		log_warnx("%s: %s; the pool starts empty and the file is "
		    "replaced at the next refresh", c->name, err);
	free(buf);
}

/* write the pool where netd_pool_init finds it, atomically */
static int
pool_save(char *err, size_t errlen)
{
	char	*text;
	int	 rc;

	if ((text = pool_fmt(&pool)) == NULL) {
		errtext(err, errlen, "out of memory");
		return -1;
	}
	if ((rc = atomic_save_at(pfd, POOL_FILE, text, strlen(text),
	    0600)) == -1)
		errtext(err, errlen, "%s: %s", ppath, strerror(errno));
	free(text);
	return rc;
}

/*
 * Until the entry would leave the pool; an entry past its window stays
 * (its name did not answer: an upstream outage must not cut what worked)
 * and is kept admitted from one refresh to the next.
 */
static unsigned int
entry_timeout(int64_t last, int64_t now)
{
	int64_t	t = last + POOL_WINDOW - now;

	if (t < 2 * POOL_INTERVAL)
		t = 2 * POOL_INTERVAL;
	if (t > NFTGEN_TIMEOUT_MAX)
		t = NFTGEN_TIMEOUT_MAX;
	return (unsigned int)t;
}

/*
 * Admit c's entries (only name's when not NULL) through every entry of
 * its allowlist the name matches, with that entry's port and protocol.
 * nftgen_admit takes one timeout per transaction, so entries are sent
 * in groups of the same last-seen time, which a refresh makes few.
 */
static void
admit(const struct netd_ctr *c, const char *name, int64_t now)
{
	struct nftgen_elem	*el;
	const char		**names;
	size_t			 idx[ADMIT_MATCHES], i, j, k, nm, n;
	int64_t			 last;
	char			 err[512];
	int			*done;

	if (pool.n == 0)
		return;
	for (i = 0, n = 0; i < pool.n; i++)
		if (strcmp(pool.v[i].ctr, c->name) == 0)
			n++;
	if (n == 0)
		return;
	if ((done = calloc(pool.n, sizeof(*done))) == NULL ||
	    (el = calloc(n * ADMIT_MATCHES, sizeof(*el))) == NULL ||
	    (names = calloc(n * ADMIT_MATCHES, sizeof(*names))) == NULL)
		fatal("pool: out of memory");
	for (i = 0; i < pool.n; i++) {
		if (done[i] || strcmp(pool.v[i].ctr, c->name) != 0 ||
		    (name != NULL && strcmp(pool.v[i].name, name) != 0))
			continue;
		last = pool.v[i].last;
		n = 0;
		for (j = i; j < pool.n; j++) {
			if (done[j] || pool.v[j].last != last ||
			    strcmp(pool.v[j].ctr, c->name) != 0 ||
			    (name != NULL && strcmp(pool.v[j].name, name) != 0))
				continue;
			done[j] = 1;
			/* a row from before the range was shut stays shut */
			if (!resolver_admissible(c, pool.v[j].addr))
				continue;
			nm = policy_name_allowed(c->e, c->n, pool.v[j].name,
			    idx, ADMIT_MATCHES);
			if (nm > ADMIT_MATCHES)
				nm = ADMIT_MATCHES;
			for (k = 0; k < nm; k++) {
				names[n] = pool.v[j].name;
				el[n].addr = pool.v[j].addr;
				el[n].port = c->e[idx[k]].port;
				el[n].proto = c->e[idx[k]].proto;
				n++;
			}
		}
		if (n == 0)
			continue;
		if (netd_nft_admit(c->name, el, names, n,
		    entry_timeout(last, now), NULL, err, sizeof(err)) == -1)
			log_warnx("pool: %s: cannot admit: %s",
			    c->name, err);
	}
	free(names);
	free(el);
	free(done);
}

static struct pinrec *
pinrec_get(const char *name)
{
	struct pinrec	*p;

	TAILQ_FOREACH(p, &pins, entry)
		if (strcmp(p->name, name) == 0)
			return p;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		fatal("pool: out of memory");
	(void)strlcpy(p->name, name, sizeof(p->name));
	TAILQ_INSERT_TAIL(&pins, p, entry);
	return p;
}

/*
 * Send ctr's block to the parent: in reply to rid always (the user may
 * have edited it; jb-incus writes only a change), unasked only when it
 * differs from what was last confirmed and is not already in flight.
 */
static void
pin_due(const char *ctr, uint32_t rid)
{
	const struct netd_ctr	*c = find_ctr(ctr);
	struct jb_hosts_pin	*m;
	struct pinrec		*p;
	char			*text;
	size_t			 len;

	if (c == NULL)
		return;
	text = c->mode == NFTGEN_STRICT ? pool_pin(&pool, ctr) : strdup("");
	if (text == NULL)
		fatal("pool: out of memory");
	/* what does not fit is left out whole: those names still resolve */
	if ((len = strlen(text)) >= JB_PIN_TEXT_MAX) {
		len = JB_PIN_TEXT_MAX - 1;
		while (len > 0 && text[len - 1] != '\n')
			len--;
		text[len] = '\0';
		log_warnx("pool: %s: the block is longer than %d "
		    "bytes; the rest is not pinned", ctr, JB_PIN_TEXT_MAX);
	}
	p = pinrec_get(ctr);
	if (rid == 0 && ((p->sent != NULL && strcmp(p->sent, text) == 0) ||
	    (p->sent == NULL && p->done != NULL &&
	    strcmp(p->done, text) == 0))) {
		free(text);
		return;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL)
		fatal("pool: out of memory");
	(void)strlcpy(m->name, ctr, sizeof(m->name));
	m->gen = ++p->gen;
	m->len = (uint32_t)len;
	memcpy(m->text, text, len);
	free(p->sent);
	p->sent = text;
	if (imsgev_compose(&ch->iev, IMSG_NETD_PIN, rid, 0, -1, m,
	    sizeof(*m)) == -1)
		fatal("compose");
	free(m);
}

void
netd_pool_pinned(struct imsg *imsg)
{
	struct jb_netd_pinned	 a;
	struct pinrec		*p;

	if (imsg_get_data(imsg, &a, sizeof(a)) == -1)
		fatalx("malformed NETD_PINNED");
	a.name[sizeof(a.name) - 1] = '\0';
	a.err[sizeof(a.err) - 1] = '\0';
	TAILQ_FOREACH(p, &pins, entry)
		if (strcmp(p->name, a.name) == 0)
			break;
	/* an answer to an older PIN: the newer one's answer counts */
	if (p == NULL || a.gen != p->gen || p->sent == NULL)
		return;
	if (a.ok) {
		free(p->done);
		p->done = p->sent;
		p->sent = NULL;
		free(p->failed);
		p->failed = NULL;
		return;
	}
	/* tried again at the next interval; said once per block */
	if (p->failed == NULL || strcmp(p->failed, p->sent) != 0)
		log_warnx("pool: %s: /etc/hosts not pinned (tried "
		    "again every %d s): %s", p->name, POOL_INTERVAL, a.err);
	free(p->failed);
	p->failed = p->sent;
	p->sent = NULL;
}

static void
cycle_free(struct cycle *cy)
{
	TAILQ_REMOVE(&cycles, cy, entry);
	free(cy->names);
	free(cy->ok);
	free(cy);
}

size_t
netd_pool_count(const char *ctr)
{
	size_t	i, n = 0;

	for (i = 0; i < pool.n; i++)
		if (strcmp(pool.v[i].ctr, ctr) == 0)
			n++;
	return n;
}

static size_t
count_name(const char *ctr, const char *name)
{
	size_t	i, n = 0;

	for (i = 0; i < pool.n; i++)
		if (strcmp(pool.v[i].ctr, ctr) == 0 &&
		    strcmp(pool.v[i].name, name) == 0)
			n++;
	return n;
}

/*
 * Every name has answered or failed: evict only under the names that
 * answered, drop names no longer allowed, write the pool down, then
 * admit and pin.  Nothing answered and nothing dropped: the pool and
 * the file stay as they were.
 */
static void
cycle_end(struct cycle *cy)
{
	const struct netd_ctr	*c = find_ctr(cy->ctr);
	int64_t			 now = time(NULL);
	struct jb_net_resolved	 rs;
	size_t			 i, gone = 0, answered = 0;
	char			 err[JB_ERR_TEXT_MAX];

	if (c == NULL) {
		/* forgotten while upstream answered */
		if (pool_forget(&pool, cy->ctr, NULL) > 0 &&
		    pool_save(err, sizeof(err)) == -1)
			log_warnx("pool: %s", err);
		if (cy->rid != 0)
			child_done(ch, cy->rid, 0, "jb-netd holds no policy "
			    "for this container");
		cycle_free(cy);
		return;
	}
	for (i = 0; i < cy->n; i++)
		if (cy->ok[i]) {
			answered++;
			gone += pool_evict(&pool, cy->ctr, cy->names[i], now);
		}
	fail_note(cy->ctr, cy->n, answered, now);
	gone += pool_prune(&pool, cy->ctr, c->e, c->n);
	if ((answered > 0 || gone > 0) && pool_save(err, sizeof(err)) == -1) {
		/* not written down: neither admitted nor pinned */
		log_warnx("pool: %s", err);
		if (cy->rid != 0)
			child_done(ch, cy->rid, 0, err);
		cycle_free(cy);
		return;
	}
	admit(c, NULL, now);
	if (cy->added > 0 || gone > 0)
		log_info("pool: %s: %zu new, %zu gone, %zu in all",
		    cy->ctr, cy->added, gone, netd_pool_count(cy->ctr));
	if (cy->rid != 0) {
		/* none when no exact name is allowed: the output says so */
		for (i = 0; i < cy->n; i++) {
			memset(&rs, 0, sizeof(rs));
			(void)strlcpy(rs.name, cy->ctr, sizeof(rs.name));
			(void)strlcpy(rs.host, cy->names[i], sizeof(rs.host));
			rs.answered = cy->ok[i] ? 1 : 0;
			rs.pooled = (uint32_t)count_name(cy->ctr,
			    cy->names[i]);
			if (imsgev_compose(&ch->iev, IMSG_NETD_RESOLVED,
			    cy->rid, 0, -1, &rs, sizeof(rs)) == -1)
				fatal("%s: compose", __func__);
		}
		pin_due(cy->ctr, cy->rid);
		child_done(ch, cy->rid, 1, NULL);
	} else if (cy->pin)
		pin_due(cy->ctr, 0);
	cycle_free(cy);
}

static void
answered(int rcode, const uint32_t *addresses, int count, uint32_t ttl,
    void *arg)
{
	struct query		*q = arg;
	struct cycle		*cy = q->cy;
	const struct netd_ctr	*c = find_ctr(cy->ctr);
	uint32_t		 a[POOL_ANSWER_MAX];
	int64_t			 now = time(NULL);
	int			 j, r;

	if (rcode == DNSWIRE_NOERROR && count > 0 && c != NULL) {
		/* what the resolver would not admit is not pooled either */
		if (count > POOL_ANSWER_MAX)
			count = POOL_ANSWER_MAX;
		memcpy(a, addresses, (size_t)count * sizeof(a[0]));
		count = (int)resolver_screen(c, cy->names[q->idx], a,
		    (size_t)count);
		/* an answer of addresses it may not admit is no answer */
		cy->ok[q->idx] = count > 0;
		for (j = 0; j < count; j++) {
			if ((r = pool_upsert(&pool, cy->ctr,
			    cy->names[q->idx], ntohl(a[j]), now)) == -1)
				log_warnx("pool: full (%d entries)",
				    POOL_MAX);
			else if (r == 1)
				cy->added++;
		}
	} else
		log_debug("pool: %s for %s: no answer (%s)",
		    cy->names[q->idx], cy->ctr, rcode == DNSWIRE_NXDOMAIN ?
		    "no such name" : rcode == DNSWIRE_NOERROR ? "no address" :
		    "server failed");
	free(q);
	if (--cy->pending == 0)
		cycle_end(cy);
}

static void
cycle_start(const char *ctr, uint32_t rid, int pin)
{
	const struct netd_ctr	*c = find_ctr(ctr);
	struct cycle		*cy;
	struct query		*q;
	size_t			 i, j;

	if (c == NULL) {
		if (rid != 0)
			child_done(ch, rid, 0, "jb-netd holds no policy for "
			    "this container");
		return;
	}
	if (rid == 0)
		TAILQ_FOREACH(cy, &cycles, entry)
			if (strcmp(cy->ctr, ctr) == 0)
				return;	/* one at a time is enough */
	if ((cy = calloc(1, sizeof(*cy))) == NULL ||
	    (cy->names = calloc(c->n + 1, sizeof(*cy->names))) == NULL ||
	    (cy->ok = calloc(c->n + 1, sizeof(*cy->ok))) == NULL)
		fatal("pool: out of memory");
	(void)strlcpy(cy->ctr, ctr, sizeof(cy->ctr));
	cy->rid = rid;
	cy->pin = pin;
	/* exact names only: a wildcard names no host to ask for */
	for (i = 0; i < c->n; i++) {
		if (c->e[i].kind != EGRESS_NAME)
			continue;
		for (j = 0; j < cy->n; j++)
			if (strcmp(cy->names[j], c->e[i].name) == 0)
				break;
		if (j == cy->n)
			(void)strlcpy(cy->names[cy->n++], c->e[i].name,
			    sizeof(cy->names[0]));
	}
	TAILQ_INSERT_TAIL(&cycles, cy, entry);
	/* one more than asked: no answer can end it while it is asking */
	cy->pending = 1;
	for (i = 0; i < cy->n; i++) {
		if (upstream_count() == 0)
			break;
		if ((q = calloc(1, sizeof(*q))) == NULL)
			fatal("pool: out of memory");
		q->cy = cy;
		q->idx = i;
		cy->pending++;
		if (upstream_ask(cy->names[i], answered, q) == -1) {
			cy->pending--;
			free(q);
		}
	}
	if (--cy->pending == 0)
		cycle_end(cy);
}

void
netd_pool_refresh(const char *ctr, uint32_t rid)
{
	cycle_start(ctr, rid, 1);
}

void
netd_pool_resolve(const char *ctr)
{
	cycle_start(ctr, 0, 0);
}

void
netd_pool_pin(const char *ctr, uint32_t rid)
{
	pin_due(ctr, rid);
}

void
netd_pool_narrow(const struct netd_state *cur)
{
	size_t	i, gone = 0;
	char	err[JB_ERR_TEXT_MAX];

	for (i = 0; i < cur->n; i++)
		gone += pool_prune(&pool, cur->v[i].name, cur->v[i].e,
		    cur->v[i].n);
	if (gone > 0 && pool_save(err, sizeof(err)) == -1)
		log_warnx("pool: %s", err);
}

void
netd_pool_feed(const struct netd_ctr *c, const char *name,
    const uint32_t *addrs, int count)
{
	char	 cn[EGRESS_NAME_MAX + 1], err[JB_ERR_TEXT_MAX];
	size_t	 i, n;
	int64_t	 now = time(NULL);
	int	 j, r, added = 0, exact = 0;

	n = strlcpy(cn, name, sizeof(cn));
	if (n >= sizeof(cn))
		return;
	if (n > 0 && cn[n - 1] == '.')
		cn[n - 1] = '\0';
	for (i = 0; cn[i] != '\0'; i++)
		if (cn[i] >= 'A' && cn[i] <= 'Z')
			cn[i] = (char)(cn[i] - 'A' + 'a');
	for (i = 0; i < c->n; i++)
		if (c->e[i].kind == EGRESS_NAME &&
		    strcmp(c->e[i].name, cn) == 0)
			exact = 1;
	if (!exact)
		return;
	for (j = 0; j < count; j++)
		if ((r = pool_upsert(&pool, c->name, cn, ntohl(addrs[j]), now))
		    == 1)
			added++;
	if (added > 0 && pool_save(err, sizeof(err)) == -1) {
		log_warnx("pool: %s", err);
		return;
	}
	/* the resolver's TTL would otherwise cut a pinned address short */
	admit(c, cn, now);
	if (added > 0)
		pin_due(c->name, 0);
}

static int
pname_cmp(const void *a, const void *b)
{
	const struct netd_pool_name	*x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->last < y->last) - (x->last > y->last);
}

size_t
netd_pool_names(const char *ctr, struct netd_pool_name **out)
{
	struct netd_pool_name	*v;
	size_t			 i, n = 0;

	*out = NULL;
	for (i = 0; i < pool.n; i++)
		if (strcmp(pool.v[i].ctr, ctr) == 0)
			n++;
	if (n == 0 || (v = calloc(n, sizeof(*v))) == NULL)
		return 0;
	for (i = 0, n = 0; i < pool.n; i++)
		if (strcmp(pool.v[i].ctr, ctr) == 0) {
			v[n].addr = pool.v[i].addr;
			v[n].last = pool.v[i].last;
			v[n].name = pool.v[i].name;
			n++;
		}
	/* by address, the most recent answer of each first */
	qsort(v, n, sizeof(*v), pname_cmp);
	*out = v;
	return n;
}

const char *
netd_pool_name_of(const struct netd_pool_name *v, size_t n, uint32_t addr)
{
	size_t	lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].addr == addr ? v[lo].name : NULL;
}

void
netd_pool_forget(const char *ctr)
{
	struct pinrec	*p;
	char		 err[JB_ERR_TEXT_MAX];

	if (pool_forget(&pool, ctr, NULL) > 0 &&
	    pool_save(err, sizeof(err)) == -1)
		log_warnx("pool: %s", err);
	TAILQ_FOREACH(p, &pins, entry)
		if (strcmp(p->name, ctr) == 0)
			break;
	if (p != NULL) {
		TAILQ_REMOVE(&pins, p, entry);
		free(p->sent);
		free(p->done);
		free(p->failed);
		free(p);
	}
	fail_note(ctr, 0, 0, 0);
}

void
netd_pool_status(struct child *c, uint32_t rid, const char *ctr)
{
	struct jb_net_addr	 a;
	struct in_addr		 in;
	size_t			 i;

	for (i = 0; i < pool.n; i++) {
		if (strcmp(pool.v[i].ctr, ctr) != 0)
			continue;
		memset(&a, 0, sizeof(a));
		(void)strlcpy(a.name, ctr, sizeof(a.name));
		(void)strlcpy(a.host, pool.v[i].name, sizeof(a.host));
		in.s_addr = htonl(pool.v[i].addr);
		(void)inet_ntop(AF_INET, &in, a.ipv4, sizeof(a.ipv4));
		a.last = pool.v[i].last;
		/* what entry_timeout gives the kernel */
		a.until = pool.v[i].last + POOL_WINDOW;
		if (imsgev_compose(&c->iev, IMSG_NETD_ADDR, rid, 0, -1, &a,
		    sizeof(a)) == -1)
			fatal("%s: compose", __func__);
	}
}

void
netd_pool_broken(const char *ctr, char *buf, size_t len)
{
	struct pinrec	*p;
	struct failrec	*f;
	struct tm	 tm;
	time_t		 t;
	char		 when[32];
	size_t		 off;

	buf[0] = '\0';
	if ((f = fail_find(ctr)) != NULL && f->cycles >= 2) {
		t = (time_t)f->since;
		(void)strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ",
		    gmtime_r(&t, &tm));
		(void)snprintf(buf, len, "upstream answered none of its "
		    "names in the last %u refreshes (since %s): pooled "
		    "addresses age out; ", f->cycles, when);
	}
	off = strlen(buf);
	TAILQ_FOREACH(p, &pins, entry)
		if (strcmp(p->name, ctr) == 0 && p->failed != NULL &&
		    (p->done == NULL || strcmp(p->failed, p->done) != 0) &&
		    off < len)
			(void)snprintf(buf + off, len - off, "its /etc/hosts "
			    "pin was refused (tried again every minute); ");
	off = strlen(buf);
	if (off >= 2 && strcmp(buf + off - 2, "; ") == 0)
		buf[off - 2] = '\0';
}

static void
tick(int fd, short ev, void *arg)
{
	struct timeval	tv = { POOL_TICK, 0 };
	size_t		i;

	for (i = 0; i < st->n; i++)
		cycle_start(st->v[i].name, 0, 1);
	evtimer_add(&tick_ev, &tv);
}

void
netd_pool_start(void)
{
	struct timeval	 tv = { FIRST_TICK, 0 };
	int64_t		 now = time(NULL);
	size_t		 i, gone = 0;
	char		 err[JB_ERR_TEXT_MAX];

	for (i = 0; i < pool.n; )
		if (find_ctr(pool.v[i].ctr) == NULL)
			gone += pool_forget(&pool, pool.v[i].ctr, NULL);
		else
			i++;
	for (i = 0; i < st->n; i++)
		gone += pool_prune(&pool, st->v[i].name, st->v[i].e,
		    st->v[i].n);
	if (gone > 0 && pool_save(err, sizeof(err)) == -1)
		log_warnx("pool: %s", err);
	for (i = 0; i < st->n; i++)
		admit(&st->v[i], NULL, now);
	if (pool.n > 0)
		log_info("pool: %zu address(es) admitted again",
		    pool.n);
	evtimer_set(&tick_ev, tick, NULL);
	evtimer_add(&tick_ev, &tv);
}
