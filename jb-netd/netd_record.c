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
 * Incus's keys and jb-netd's container, each from the other.  The way
 * back goes through the cache file's own line syntax
 * (NAME IPV4 MODE DEADLINE [@REPO] [ENTRY | ~AGENT=ENTRY ...]
 * [+OVERRIDE ...], netd_state.h) and its parser, so a key Incus holds is
 * checked exactly as a line of the file is.
 */

#include <sys/types.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "netd_record.h"
#include "policy.h"

/* append " "-separated word to buf (of len); -1 when it does not fit */
static int
put_word(char *buf, size_t len, const char *pre, const char *w)
{
	size_t	have = strlen(buf);
	int	n;

	n = snprintf(buf + have, len - have, "%s%s%s", have ? " " : "",
	    pre, w);
	return n < 0 || (size_t)n >= len - have ? -1 : 0;
}

int
netd_record_from_ctr(const struct netd_ctr *c, struct jb_policy *p,
    char *err, size_t errlen)
{
	struct in_addr	 in;
	char		 e[EGRESS_FMT_MAX], pre[EGRESS_AGENT_MAX + 4];
	size_t		 i, ncfg = netd_ctr_ncfg(c);

	memset(p, 0, sizeof(*p));
	(void)strlcpy(p->name, c->name, sizeof(p->name));
	in.s_addr = htonl(c->addr);
	(void)inet_ntop(AF_INET, &in, p->ipv4, sizeof(p->ipv4));
	(void)strlcpy(p->prefix, c->repo, sizeof(p->prefix));
	(void)strlcpy(p->net, c->mode == NFTGEN_LOOSE ? "loose" : "strict",
	    sizeof(p->net));
	p->loose_until = c->mode == NFTGEN_LOOSE ? c->deadline : 0;
	p->has_egress = 1;
	for (i = 0; i < c->n; i++) {
		/* the repo layer's entries are the repo's, not its own */
		if (i >= ncfg && i < c->n - c->nover)
			continue;
		(void)policy_entry_fmt(&c->e[i], e, sizeof(e));
		if (i >= ncfg) {
			if (put_word(p->egress_extra, sizeof(p->egress_extra),
			    "", e) == -1)
				return errtext(err, errlen, "%s: its overrides "
				    "are longer than %zu bytes", c->name,
				    sizeof(p->egress_extra) - 1);
			continue;
		}
		pre[0] = '\0';
		if (c->e[i].agent[0] != '\0')
			(void)snprintf(pre, sizeof(pre), "~%s=", c->e[i].agent);
		if (put_word(p->egress, sizeof(p->egress), pre, e) == -1)
			return errtext(err, errlen, "%s: its egress_allow is "
			    "longer than %zu bytes", c->name,
			    sizeof(p->egress) - 1);
	}
	return 0;
}

/*
 * s is words of printable ASCII separated by single spaces, none
 * starting with one of the bytes in bad (they mean something else in a
 * line of the file)
 */
static int
words_ok(const char *what, const char *s, const char *bad, char *err,
    size_t errlen)
{
	const char	*p;
	int		 start = 1;

	for (p = s; *p != '\0'; p++) {
		if (*p < ' ' || *p > '~')
			return errtext(err, errlen, "%s: byte 0x%02x is not "
			    "in an egress entry", what, (unsigned char)*p);
		if (*p == ' ') {
			if (start)
				return errtext(err, errlen, "%s: entries are "
				    "separated by one space", what);
			start = 1;
			continue;
		}
		if (start && strchr(bad, *p) != NULL)
			return errtext(err, errlen, "%s: an entry starts with "
			    "'%c'", what, *p);
		start = 0;
	}
	if (!start || s[0] == '\0')
		return 0;
	return errtext(err, errlen, "%s: entries are separated by one space",
	    what);
}

int
netd_record_to_ctr(const struct jb_policy *p, long long now,
    struct netd_ctr *c, char *err, size_t errlen)
{
	struct netd_state	 st;
	FILE			*f;
	char			*line = NULL, *extra, *w, *save, why[512];
	size_t			 len = 0;
	int			 loose, rc = -1, bad;

	if (memchr(p->name, '\0', sizeof(p->name)) == NULL ||
	    memchr(p->ipv4, '\0', sizeof(p->ipv4)) == NULL ||
	    memchr(p->prefix, '\0', sizeof(p->prefix)) == NULL ||
	    memchr(p->net, '\0', sizeof(p->net)) == NULL ||
	    memchr(p->egress, '\0', sizeof(p->egress)) == NULL ||
	    memchr(p->egress_extra, '\0', sizeof(p->egress_extra)) == NULL)
		return errtext(err, errlen, "a field without its end");
	if (p->name[0] == '\0' || strchr(p->name, ' ') != NULL ||
	    words_ok("name", p->name, "+@#~", err, errlen) == -1)
		return errtext(err, errlen, "\"%.64s\" is not a container "
		    "name", p->name);
	if (strchr(p->ipv4, ' ') != NULL || p->ipv4[0] == '\0')
		return errtext(err, errlen, "%s: no address on its NIC",
		    p->name);
	if (words_ok("user.jailbee.egress", p->egress, "+@#", err,
	    errlen) == -1 || words_ok("user.jailbee.egress_extra",
	    p->egress_extra, "+@#~", err, errlen) == -1)
		return -1;
	/* anything but loose with a deadline to come (or none) is strict */
	loose = strcmp(p->net, "loose") == 0 && (p->loose_until == 0 ||
	    p->loose_until > now);
	if ((extra = strdup(p->egress_extra)) == NULL)
		return errtext(err, errlen, "out of memory");
	if ((f = open_memstream(&line, &len)) == NULL) {
		free(extra);
		return errtext(err, errlen, "out of memory");
	}
	fprintf(f, "%s %s %s %lld", p->name, p->ipv4, loose ? "loose" :
	    "strict", loose ? (long long)p->loose_until : 0LL);
	if (netd_repo_key_ok(p->prefix))
		fprintf(f, " @%s", p->prefix);
	if (p->egress[0] != '\0')
		fprintf(f, " %s", p->egress);
	for (save = extra; save != NULL && *save != '\0' &&
	    (w = strsep(&save, " ")) != NULL; )
		fprintf(f, " +%s", w);
	bad = ferror(f);
	free(extra);
	if (fclose(f) != 0 || bad) {
		free(line);
		return errtext(err, errlen, "out of memory");
	}
	memset(&st, 0, sizeof(st));
	if (netd_state_parse(p->name, line, len, &st, why,
	    sizeof(why)) == -1) {
		(void)errtext(err, errlen, "%s", why);
		goto out;
	}
	if (st.n != 1 || strcmp(st.v[0].name, p->name) != 0) {
		(void)errtext(err, errlen, "%s: not one container", p->name);
		goto out;
	}
	*c = st.v[0];
	st.n = 0;
	rc = 0;
out:
	netd_state_free(&st);
	free(line);
	return rc;
}
