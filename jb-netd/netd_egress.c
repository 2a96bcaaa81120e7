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
 * net egress add, rm and ls: a container's own entries and its repo's
 * layer, each change committed to the kernel before it is answered.
 */

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/capability.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "log.h"
#include "netd_ct.h"
#include "netd_nft.h"
#include "netd_repos.h"
#include "netd_pool.h"
#include "netd_record.h"
#include "netd_refused.h"
#include "netd_state.h"
#include "nftgen.h"
#include "refused.h"
#include "proc.h"
#include "resolver.h"
#include "sandbox_procs.h"

#include "netd.h"

/*
 * net egress ls: every entry that applies, with its origin.  The repo
 * layer is listed whole, also what the config already holds (the kernel
 * gets it once), so that rm --repo can be found for each of its entries.
 */
/* net egress ls: one entry and the layer it comes from */
static void
egress_allow_send(struct child *c, uint32_t rid, const char *ctr,
    const struct egress_entry *en, const char *origin)
{
	struct jb_net_allow	al;
	char			e[EGRESS_FMT_MAX];

	memset(&al, 0, sizeof(al));
	(void)strlcpy(al.name, ctr, sizeof(al.name));
	(void)strlcpy(al.entry, policy_entry_fmt(en, e, sizeof(e)),
	    sizeof(al.entry));
	(void)strlcpy(al.origin, origin, sizeof(al.origin));
	if (imsgev_compose(&c->iev, IMSG_NETD_ALLOW, rid, 0, -1, &al,
	    sizeof(al)) == -1)
		fatal("%s: compose", __func__);
}

static void
egress_ls(struct child *c, uint32_t rid, const struct netd_ctr *t)
{
	const struct netd_repo	*r;
	size_t			 i;

	for (i = 0; i < netd_ctr_ncfg(t); i++)
		egress_allow_send(c, rid, t->name, &t->e[i],
		    entry_origin(t, i));
	if (t->repo[0] != '\0' && (r = netd_repos_find(&repos, t->repo)) !=
	    NULL)
		for (i = 0; i < r->n; i++)
			egress_allow_send(c, rid, t->name, &r->e[i],
			    "repo-override");
	for (i = t->n - t->nover; i < t->n; i++)
		egress_allow_send(c, rid, t->name, &t->e[i], "container");
	child_done(c, rid, 1, NULL);
}

/*
 * net egress add|rm --repo: the layer of q's repo changes, and with it
 * every container of the repo, in one nft transaction; then the file.
 * The named container learns its repo when it was made before
 * containers carried one.  rm refuses what only the config grants.
 */
static void
egress_repo(struct child *c, uint32_t rid, struct jb_netd_egress *q,
    int add)
{
	struct netd_repos	 nrepos;
	struct netd_state	 next;
	struct netd_ctr		*t;
	struct egress_entry	 e;
	char			 err[JB_ERR_TEXT_MAX], why[256];
	size_t			 i, n = 0;
	ssize_t			 ei;
	int			 r;

	if (netd_state_copy(&cur, &next) == -1 ||
	    netd_repos_copy(&repos, &nrepos) == -1)
		fatal("%s: out of memory", c->name);
	if ((t = netd_state_find(&next, q->name)) == NULL) {
		snprintf(err, sizeof(err), "jb-netd holds no policy for %s "
		    "(made before jb-netd enforced policies?): destroy and "
		    "recreate it", q->name);
		goto fail;
	}
	if (t->repo[0] != '\0' && strcmp(t->repo, q->repo) != 0) {
		snprintf(err, sizeof(err), "%s was made from repo %s, not %s: "
		    "run net egress --repo from that repo's checkout", q->name,
		    t->repo, q->repo);
		goto fail;
	}
	(void)strlcpy(t->repo, q->repo, sizeof(t->repo));
	if (add)
		r = netd_repos_add(&nrepos, q->repo, q->entry, err,
		    sizeof(err));
	else if ((r = netd_repos_rm(&nrepos, q->repo, q->entry, err,
	    sizeof(err))) == 0) {
		/* additive only: name the file that grants it */
		ei = policy_parse_entry(q->entry, &e, why, sizeof(why)) == 0 ?
		    netd_ctr_find(t, &e) : -1;
		if (ei != -1 && (size_t)ei < netd_ctr_ncfg(t))
			snprintf(err, sizeof(err), "egress entry \"%.200s\" "
			    "comes from egress_allow in %.150s, not from net "
			    "egress add --repo: overrides cannot narrow the "
			    "config; remove it there", q->entry, q->config[0] ?
			    q->config : "the repo's config");
		else if (ei != -1 && (size_t)ei >= t->n - t->nover)
			snprintf(err, sizeof(err), "egress entry \"%.300s\": "
			    "an override of %s alone, not of repo %s: net "
			    "egress rm without --repo removes it", q->entry,
			    q->name, q->repo);
		else
			snprintf(err, sizeof(err), "egress entry \"%.300s\": "
			    "not a repo override of %s (jbctl net egress ls %s "
			    "lists them)", q->entry, q->repo, q->name);
		r = -1;
	}
	if (r == -1)
		goto fail;
	if (netd_repos_sync(&next, &nrepos, err, sizeof(err)) == -1 ||
	    netd_nft_apply(&net, &next, 0, err, sizeof(err)) == -1)
		goto fail;
	/* the containers first: a repo they name with no layer is harmless */
	if (state_save(&next, err, sizeof(err)) == -1 ||
	    file_save(REPOS_FILE, netd_repos_fmt(&nrepos), err,
	    sizeof(err)) == -1) {
		char	e2[256];

		if (netd_nft_apply(&net, &cur, 0, e2, sizeof(e2)) == -1)
			log_warnx("%s: cannot restore the table: %s", c->name,
			    e2);
		goto fail;
	}
	netd_state_free(&cur);
	cur = next;
	netd_repos_free(&repos);
	repos = nrepos;
	netd_pool_narrow(&cur);
	for (i = 0; i < cur.n; i++)
		if (strcmp(cur.v[i].repo, q->repo) == 0)
			n++;
	log_info("%s: repo %s: override %s %s, %zu container(s)", c->name,
	    q->repo, add ? "added" : "removed", q->entry, n);
	child_done(c, rid, 1, NULL);
	/* a name the layer added or dropped changes each one's pin */
	for (i = 0; i < cur.n; i++)
		if (strcmp(cur.v[i].repo, q->repo) == 0)
			netd_pool_refresh(cur.v[i].name, 0);
	return;
fail:
	netd_state_free(&next);
	netd_repos_free(&nrepos);
	child_done(c, rid, 0, err);
}

/*
 * net egress add|rm|ls: the override joins or leaves the container's
 * list in one state_commit, so the table and the file change together
 * or not at all.  rm cuts new connections only, as strict does: to the
 * addresses of a name no longer allowed too, admitted through DNS or the
 * pool (netd_nft_apply).
 */
void
netd_egress(struct child *c, struct imsg *imsg)
{
	struct jb_netd_egress	 q;
	struct netd_state	 next;
	struct netd_ctr		*t;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 rid = imsg_get_id(imsg);
	int			 add;

	if (imsg_get_data(imsg, &q, sizeof(q)) == -1)
		fatalx("%s: malformed NETD_EGRESS", c->name);
	q.name[sizeof(q.name) - 1] = '\0';
	q.op[sizeof(q.op) - 1] = '\0';
	q.entry[sizeof(q.entry) - 1] = '\0';
	q.repo[sizeof(q.repo) - 1] = '\0';
	q.config[sizeof(q.config) - 1] = '\0';
	if (strcmp(q.op, "ls") == 0) {
		if ((t = netd_state_find(&cur, q.name)) == NULL) {
			child_done(c, rid, 0, "jb-netd holds no policy for this "
			    "container");
			return;
		}
		egress_ls(c, rid, t);
		return;
	}
	add = strcmp(q.op, "add") == 0;
	if (!add && strcmp(q.op, "rm") != 0)
		fatalx("%s: NETD_EGRESS: bad op", c->name);
	if (q.repo[0] != '\0') {
		if (!netd_repo_key_ok(q.repo)) {
			snprintf(err, sizeof(err), "container_prefix \"%s\" "
			    "cannot name a repo layer: [a-z0-9-] only",
			    q.repo);
			child_done(c, rid, 0, err);
			return;
		}
		egress_repo(c, rid, &q, add);
		return;
	}
	if (netd_state_copy(&cur, &next) == -1)
		fatal("%s: out of memory", c->name);
	if ((t = netd_state_find(&next, q.name)) == NULL) {
		netd_state_free(&next);
		snprintf(err, sizeof(err), "jb-netd holds no policy for %s "
		    "(made before jb-netd enforced policies?): destroy and "
		    "recreate it", q.name);
		child_done(c, rid, 0, err);
		return;
	}
	if ((add ? netd_ctr_override_add(t, q.entry, err, sizeof(err)) :
	    netd_ctr_override_rm(t, q.entry, err, sizeof(err))) == -1) {
		netd_state_free(&next);
		child_done(c, rid, 0, err);
		return;
	}
	if (state_commit(&next, err, sizeof(err)) == -1) {
		child_done(c, rid, 0, err);
		return;
	}
	log_info("%s: container %s: override %s %s", c->name, q.name,
	    add ? "added" : "removed", q.entry);
	child_done(c, rid, 1, NULL);
	netd_pool_refresh(q.name, 0);
}

/*
 * EGRESS_EDIT: net egress for a container another cluster member
 * enforces.  The policy comes as Incus holds it; an override is added
 * or removed by the same rules as here, and the policy goes back as one
 * RECORD for the parent to write to Incus, whose event that member's
 * suite applies.  ls lists its entries.  Nothing enforced here changes.
 */
void
netd_egress_edit(struct child *c, struct imsg *imsg)
{
	struct jb_policy	*p;
	struct netd_ctr		 k;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 rid = imsg_get_id(imsg);
	size_t			 i;
	int			 rc, add;

	if ((p = malloc(sizeof(*p))) == NULL)
		fatal("%s: malloc", c->name);
	if (imsg_get_data(imsg, p, sizeof(*p)) == -1)
		fatalx("%s: malformed NETD_EGRESS_EDIT", c->name);
	p->edit_op[sizeof(p->edit_op) - 1] = '\0';
	p->edit_entry[sizeof(p->edit_entry) - 1] = '\0';
	memset(&k, 0, sizeof(k));
	if (netd_record_to_ctr(p, (long long)time(NULL), &k, err,
	    sizeof(err)) == -1) {
		child_done(c, rid, 0, err);
		free(p);
		return;
	}
	if (strcmp(p->edit_op, "ls") == 0) {
		for (i = 0; i < k.n; i++)
			egress_allow_send(c, rid, k.name, &k.e[i],
			    i < netd_ctr_ncfg(&k) ? entry_origin(&k, i) :
			    "container");
		child_done(c, rid, 1, NULL);
		goto out;
	}
	add = strcmp(p->edit_op, "add") == 0;
	if (!add && strcmp(p->edit_op, "rm") != 0)
		fatalx("%s: NETD_EGRESS_EDIT: bad op", c->name);
	rc = add ? netd_ctr_override_add(&k, p->edit_entry, err, sizeof(err)) :
	    netd_ctr_override_rm(&k, p->edit_entry, err, sizeof(err));
	if (rc == 0)
		rc = netd_record_from_ctr(&k, p, err, sizeof(err));
	if (rc == -1) {
		child_done(c, rid, 0, err);
		goto out;
	}
	if (imsgev_compose(&c->iev, IMSG_NETD_RECORD, rid, 0, -1, p,
	    sizeof(*p)) == -1)
		fatal("%s: compose", c->name);
	child_done(c, rid, 1, NULL);
out:
	netd_ctr_free(&k);
	free(p);
}
