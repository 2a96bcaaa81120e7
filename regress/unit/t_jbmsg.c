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
 * The protocol table (libcommon/jb_msg.c) against the header it
 * describes: every message type of the header's enums has a row, with the number
 * the header gives it and the struct its comment names; every char array
 * of a row's struct, but the "(bytes)" ones, is one of its string fields.
 * Then jb_msg_check() itself, on messages sent through a real channel.
 * The tree's top comes as the config variable topdir.
 */

#include <sys/socket.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "imsg.h"
#include "jb_msg.h"

#define MAXTYPES	256

struct etype {
	char		name[64];
	long		value;
	char		comment[512];	/* the comment up to the next type */
};

static char *
slurp(const char *path)
{
	FILE	*f;
	char	*buf;
	long	 n;

	ATF_REQUIRE_MSG((f = fopen(path, "r")) != NULL, "%s", path);
	ATF_REQUIRE(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0);
	rewind(f);
	ATF_REQUIRE((buf = malloc((size_t)n + 1)) != NULL);
	ATF_REQUIRE(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static char *
header(const atf_tc_t *tc)
{
	const char	*src = atf_tc_get_config_var_wd(tc, "topdir", "../..");
	char		 path[1024];

	snprintf(path, sizeof(path), "%s/libcommon/jb_msg.h", src);
	return slurp(path);
}

/*
 * The message types of every enum in the header, numbered as C numbers
 * them; each with its comment, up to the next type or the enum's end.
 */
static size_t
enum_types(char *h, struct etype *t)
{
	char	*line, *save = NULL;
	long	 next = 0;
	size_t	 n = 0;
	int	 open = 0;

	for (line = strtok_r(h, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char	*q = line, *e;

		if (strncmp(line, "enum {", 6) == 0 ||
		    strncmp(line, "enum jb_imsg_type {", 19) == 0) {
			open = 1;
			continue;
		}
		if (!open)
			continue;
		if (strncmp(line, "};", 2) == 0) {
			open = 0;
			continue;
		}
		while (*q == '\t' || *q == ' ')
			q++;
		if (strncmp(q, "IMSG_", 5) != 0) {
			if (n > 0)
				strlcat(t[n - 1].comment, line,
				    sizeof(t[n - 1].comment));
			continue;
		}
		ATF_REQUIRE(n < MAXTYPES);
		for (e = q; isupper((unsigned char)*e) || isdigit(
		    (unsigned char)*e) || *e == '_'; e++)
			;
		snprintf(t[n].name, sizeof(t[n].name), "%.*s", (int)(e - q),
		    q);
		while (*e == ' ' || *e == '\t')
			e++;
		if (*e == '=')
			next = strtol(e + 1, &e, 10);
		t[n].value = next++;
		strlcpy(t[n].comment, e, sizeof(t[n].comment));
		n++;
	}
	return n;
}

/* the body of "struct NAME {" in the header, NUL-cut at its end */
static char *
struct_body(const char *h, const char *name)
{
	char	 pat[96], *p, *end, *body;

	snprintf(pat, sizeof(pat), "\nstruct %s {\n", name);
	ATF_REQUIRE_MSG((p = strstr(h, pat)) != NULL, "no struct %s", name);
	p += strlen(pat);
	ATF_REQUIRE((end = strstr(p, "\n};")) != NULL);
	ATF_REQUIRE((body = strndup(p, (size_t)(end - p))) != NULL);
	return body;
}

ATF_TC_WITHOUT_HEAD(every_type_has_a_row);
ATF_TC_BODY(every_type_has_a_row, tc)
{
	struct etype		*t;
	const struct jb_msg_row	*rows;
	char			*h = header(tc);
	size_t			 n, nrows, i, j, found;

	ATF_REQUIRE((t = calloc(MAXTYPES, sizeof(*t))) != NULL);
	n = enum_types(h, t);
	/* the header has well over a hundred: a parse that found few failed */
	ATF_REQUIRE(n > 100);
	rows = jb_msg_rows(&nrows);
	for (i = 0; i < n; i++) {
		if (strcmp(t[i].name, "IMSG_NONE") == 0)
			continue;
		found = 0;
		for (j = 0; j < nrows; j++) {
			if (strcmp(rows[j].name, t[i].name) != 0)
				continue;
			found++;
			ATF_CHECK_EQ_MSG((long)rows[j].type, t[i].value,
			    "%s: row says %u, header %ld", t[i].name,
			    rows[j].type, t[i].value);
			/* the struct the header's comment names */
			if (rows[j].sname != NULL)
				ATF_CHECK_MSG(strstr(t[i].comment,
				    rows[j].sname) != NULL, "%s: the header "
				    "does not name struct %s: %s", t[i].name,
				    rows[j].sname, t[i].comment);
			ATF_CHECK_EQ((rows[j].size == 0),
			    (rows[j].sname == NULL));
			ATF_CHECK(rows[j].from != 0 && rows[j].to != 0);
		}
		ATF_CHECK_MSG(found > 0, "%s has no row in jb_msg.c",
		    t[i].name);
	}
	/* and no row names a type the header lacks */
	for (j = 0; j < nrows; j++) {
		found = 0;
		for (i = 0; i < n; i++)
			if (strcmp(rows[j].name, t[i].name) == 0)
				found = 1;
		ATF_CHECK_MSG(found, "row %s is not in jb_msg.h",
		    rows[j].name);
		/* two rows of one type never overlap in direction */
		for (i = j + 1; i < nrows; i++)
			if (rows[i].type == rows[j].type)
				ATF_CHECK_MSG(!((rows[i].from & rows[j].from) &&
				    (rows[i].to & rows[j].to)),
				    "%s: two rows for one direction",
				    rows[j].name);
	}
	ATF_CHECK_STREQ(jb_imsg_name(IMSG_NETD_SET), "NETD_SET");
	ATF_CHECK_STREQ(jb_imsg_name(77777), "type 77777");
	free(t);
	free(h);
}

ATF_TC_WITHOUT_HEAD(string_fields_match_the_structs);
ATF_TC_BODY(string_fields_match_the_structs, tc)
{
	const struct jb_msg_row	*rows;
	const struct jb_msg_str	*f;
	char			*h = header(tc), *body, *line, *save, *q, *e;
	char			 fname[64];
	size_t			 nrows, j, nhdr, ntab;

	rows = jb_msg_rows(&nrows);
	for (j = 0; j < nrows; j++) {
		if (rows[j].sname == NULL)
			continue;
		body = struct_body(h, rows[j].sname);
		nhdr = 0;
		save = NULL;
		for (line = strtok_r(body, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			q = line;
			while (*q == '\t' || *q == ' ')
				q++;
			if (strncmp(q, "char", 4) != 0 ||
			    (q[4] != '\t' && q[4] != ' '))
				continue;
			q += 4;
			while (*q == '\t' || *q == ' ')
				q++;
			if ((e = strchr(q, '[')) == NULL)
				continue;
			if (strstr(line, "(bytes)") != NULL)
				continue;
			snprintf(fname, sizeof(fname), "%.*s", (int)(e - q),
			    q);
			nhdr++;
			for (f = rows[j].strs; f->name != NULL; f++)
				if (strcmp(f->name, fname) == 0)
					break;
			ATF_CHECK_MSG(f->name != NULL, "struct %s: %s is not "
			    "a string field in jb_msg.c", rows[j].sname,
			    fname);
		}
		for (ntab = 0, f = rows[j].strs; f->name != NULL; f++)
			ntab++;
		ATF_CHECK_EQ_MSG(nhdr, ntab, "struct %s: %zu char arrays in "
		    "the header, %zu string fields in the table",
		    rows[j].sname, nhdr, ntab);
		free(body);
	}
	free(h);
}

/* one message through a real channel, as the receiver gets it */
static int
through(uint32_t type, int fd, const void *data, size_t len,
    unsigned from, unsigned to, char *why, size_t whylen)
{
	struct imsgbuf	a, b;
	struct imsg	imsg;
	int		sv[2], rc, n;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(imsgbuf_init(&a, sv[0]) == 0);
	ATF_REQUIRE(imsgbuf_init(&b, sv[1]) == 0);
	imsgbuf_allow_fdpass(&a);
	imsgbuf_allow_fdpass(&b);
	ATF_REQUIRE(imsg_compose(&a, type, 1, 0, fd, data, len) == 0);
	ATF_REQUIRE(imsgbuf_flush(&a) == 0);
	ATF_REQUIRE(imsgbuf_read(&b) > 0);
	ATF_REQUIRE((n = imsgbuf_get(&b, &imsg)) == 1);
	why[0] = '\0';
	rc = jb_msg_check(&imsg, from, to, why, whylen);
	imsg_free(&imsg);
	imsgbuf_clear(&a);
	imsgbuf_clear(&b);
	close(sv[0]);
	close(sv[1]);
	return rc;
}

ATF_TC_WITHOUT_HEAD(check_refuses_for_the_reason);
ATF_TC_BODY(check_refuses_for_the_reason, tc)
{
	struct jb_incus_target	t;
	struct jb_ctl_cmd	*cmd;
	struct jb_output	o;
	struct jb_exec_fd	x;
	char			why[160];

	memset(&t, 0, sizeof(t));
	strlcpy(t.name, "jailbee-x", sizeof(t.name));
	ATF_CHECK_EQ(through(IMSG_NETD_FORGET, -1, &t, sizeof(t),
	    JB_PEER_PARENT, JB_PEER_NETD, why, sizeof(why)), 0);

	ATF_CHECK_EQ(through(9999, -1, NULL, 0, JB_PEER_PARENT,
	    JB_PEER_NETD, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "unknown message type 9999");

	/* the right type the wrong way: jb-netd may not ask jb-netd */
	ATF_CHECK_EQ(through(IMSG_NETD_FORGET, -1, &t, sizeof(t),
	    JB_PEER_NETD, JB_PEER_PARENT, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "NETD_FORGET may not travel from jb-netd to "
	    "jailbeed");

	ATF_CHECK_EQ(through(IMSG_NETD_FORGET, -1, &t, sizeof(t) - 1,
	    JB_PEER_PARENT, JB_PEER_NETD, why, sizeof(why)), -1);
	ATF_CHECK_MATCH("NETD_FORGET has [0-9]+ bytes of payload, not "
	    "[0-9]+", why);

	memset(t.prefix, 'a', sizeof(t.prefix));
	ATF_CHECK_EQ(through(IMSG_NETD_FORGET, -1, &t, sizeof(t),
	    JB_PEER_PARENT, JB_PEER_NETD, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "NETD_FORGET's field prefix has no terminator");

	/* every row of a two-dimensional field is a string */
	ATF_REQUIRE((cmd = calloc(1, sizeof(*cmd))) != NULL);
	memset(cmd->opts[3], 'o', sizeof(cmd->opts[3]));
	ATF_CHECK_EQ(through(IMSG_CTL_CMD, -1, cmd, sizeof(*cmd),
	    JB_PEER_CTL, JB_PEER_PARENT, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "CTL_CMD's field opts has no terminator");
	cmd->opts[3][10] = '\0';
	ATF_CHECK_EQ(through(IMSG_CTL_CMD, -1, cmd, sizeof(*cmd),
	    JB_PEER_CTL, JB_PEER_PARENT, why, sizeof(why)), 0);
	/* a client may not send what only a child may */
	ATF_CHECK_EQ(through(IMSG_CTL_CMD, -1, cmd, sizeof(*cmd),
	    JB_PEER_INCUS, JB_PEER_PARENT, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "CTL_CMD may not travel from jb-incus to "
	    "jailbeed");
	free(cmd);

	/* bytes with their length beside them need no terminator */
	memset(&o, 'x', sizeof(o));
	o.which = 1;
	o.len = sizeof(o.data);
	ATF_CHECK_EQ(through(IMSG_CTL_OUTPUT, -1, &o, sizeof(o),
	    JB_PEER_PARENT, JB_PEER_SSHD, why, sizeof(why)), 0);

	/* a descriptor only where the table allows one */
	memset(&t, 0, sizeof(t));
	ATF_CHECK_EQ(through(IMSG_NETD_FORGET, dup(0), &t, sizeof(t),
	    JB_PEER_PARENT, JB_PEER_NETD, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "NETD_FORGET carries a descriptor it may not");
	memset(&x, 0, sizeof(x));
	ATF_CHECK_EQ(through(IMSG_CTL_EXEC_FD, dup(0), &x, sizeof(x),
	    JB_PEER_PARENT, JB_PEER_CTL, why, sizeof(why)), 0);
}

/* reload's listening socket: up from jbctl only, the ask without one */
ATF_TC_WITHOUT_HEAD(listen_socket_only_from_jbctl);
ATF_TC_BODY(listen_socket_only_from_jbctl, tc)
{
	struct jb_ctl_listen	*l;
	struct jb_sshd_limits	 lim;
	char			 why[160];

	ATF_REQUIRE((l = calloc(1, sizeof(*l))) != NULL);
	strlcpy(l->addr, "127.0.0.1:8025", sizeof(l->addr));
	ATF_CHECK_EQ(through(IMSG_CTL_LISTEN_FD, dup(0), l, sizeof(*l),
	    JB_PEER_CTL, JB_PEER_PARENT, why, sizeof(why)), 0);
	ATF_CHECK_EQ(through(IMSG_CTL_LISTEN_FD, -1, l, sizeof(*l),
	    JB_PEER_CTL, JB_PEER_PARENT, why, sizeof(why)), 0);
	/* a session's channel may not pass a socket in */
	ATF_CHECK_EQ(through(IMSG_CTL_LISTEN_FD, dup(0), l, sizeof(*l),
	    JB_PEER_SSHD, JB_PEER_PARENT, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "CTL_LISTEN_FD may not travel from jb-sshd to "
	    "jailbeed");
	ATF_CHECK_EQ(through(IMSG_CTL_LISTEN_ASK, dup(0), l, sizeof(*l),
	    JB_PEER_PARENT, JB_PEER_CTL, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "CTL_LISTEN_ASK carries a descriptor it may "
	    "not");
	memset(l->err, 'e', sizeof(l->err));
	ATF_CHECK_EQ(through(IMSG_CTL_LISTEN_FD, -1, l, sizeof(*l),
	    JB_PEER_CTL, JB_PEER_PARENT, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "CTL_LISTEN_FD's field err has no terminator");
	free(l);
	memset(&lim, 0, sizeof(lim));
	lim.max_unauth = 1;
	ATF_CHECK_EQ(through(IMSG_SSHD_REBIND, dup(0), &lim, sizeof(lim),
	    JB_PEER_PARENT, JB_PEER_SSHD, why, sizeof(why)), 0);
	ATF_CHECK_EQ(through(IMSG_SSHD_REBIND, -1, &lim, sizeof(lim),
	    JB_PEER_PARENT, JB_PEER_SSHD, why, sizeof(why)), 0);
	ATF_CHECK_EQ(through(IMSG_SSHD_REBIND, dup(0), &lim, sizeof(lim),
	    JB_PEER_CTL, JB_PEER_SSHD, why, sizeof(why)), -1);
}

ATF_TC_WITHOUT_HEAD(absent_names_the_container);
ATF_TC_BODY(absent_names_the_container, tc)
{
	ATF_CHECK(jb_err_absent("no such container jb-feat", "jb-feat"));
	ATF_CHECK(!jb_err_absent("no such container jb-feat2", "jb-feat"));
	ATF_CHECK(!jb_err_absent("no such container jb-fea", "jb-feat"));
	ATF_CHECK(!jb_err_absent("no such container", "jb-feat"));
	ATF_CHECK(!jb_err_absent("jb-feat: no such container jb-feat",
	    "jb-feat"));
	ATF_CHECK(!jb_err_absent(NULL, "jb-feat"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_type_has_a_row);
	ATF_TP_ADD_TC(tp, string_fields_match_the_structs);
	ATF_TP_ADD_TC(tp, check_refuses_for_the_reason);
	ATF_TP_ADD_TC(tp, listen_socket_only_from_jbctl);
	ATF_TP_ADD_TC(tp, absent_names_the_container);
	return atf_no_error();
}
