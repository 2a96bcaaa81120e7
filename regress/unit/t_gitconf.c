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
 * git config syntax as git reads it (gitconf.c), the owner's identity
 * taken from it, and the ~/.gitconfig the container gets (gitident.c)
 *
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "gitconf.h"
#include "gitident.h"

/* every entry as "sec|sub|key=value\n" ("-" for no subsection, no '=') */
struct dump {
	char	buf[4096];
};

static int
dump_entry(const char *sec, const char *sub, const char *key,
    const char *value, size_t vlen, void *arg)
{
	struct dump	*d = arg;
	size_t		 off = strlen(d->buf);

	(void)snprintf(d->buf + off, sizeof(d->buf) - off, "%s|%s|%s%s%.*s\n",
	    sec, sub != NULL ? sub : "-", key, value != NULL ? "=" : "",
	    (int)vlen, value != NULL ? value : "");
	return 0;
}

static void
parses(const char *text, const char *want)
{
	struct dump	d;
	char		err[128];

	memset(&d, 0, sizeof(d));
	ATF_CHECK_MSG(gitconf_parse(text, strlen(text), dump_entry, &d, err,
	    sizeof(err)) == 0, "\"%s\": %s", text, err);
	ATF_CHECK_STREQ_MSG(d.buf, want, "of \"%s\"", text);
}

static void
refused(const char *text, const char *want_err)
{
	struct dump	d;
	char		err[128];

	memset(&d, 0, sizeof(d));
	ATF_CHECK_MSG(gitconf_parse(text, strlen(text), dump_entry, &d, err,
	    sizeof(err)) == -1, "accepted \"%s\"", text);
	ATF_CHECK_STREQ_MSG(err, want_err, "of \"%s\"", text);
}

ATF_TC_WITHOUT_HEAD(syntax);
ATF_TC_BODY(syntax, tc)
{
	parses("", "");
	parses("# only\n; comments\n\n", "");
	parses("[user]\n\tname = A U Thor\n\temail = a@example.org\n",
	    "user|-|name=A U Thor\nuser|-|email=a@example.org\n");
	/* case: section and key folded, subsection kept */
	parses("[User \"Sub\"]\nNaMe=x\n", "user|Sub|name=x\n");
	parses("[Core.Sub]\nk=v\n", "core.sub|-|k=v\n");
	parses("[s \"\"]\nk=v\n", "s||k=v\n");
	parses("[s \"a\\\"b\\\\c\\d\"]\nk=v\n", "s|a\"b\\cd|k=v\n");
	/* a header and an entry may share a line; comments end both */
	parses("[user] name = x # y\n", "user|-|name=x\n");
	parses("[a]k=v;c\n", "a|-|k=v\n");
	/* a bare key is git's true: no value at all */
	parses("[a]\nflag\nother = \n", "a|-|flag\na|-|other=\n");
	parses("[a]\nflag", "a|-|flag\n");
	/* whitespace: ends go, inner runs become as many spaces */
	parses("[a]\nk =   x \t y   \n", "a|-|k=x   y\n");
	parses("[a]\nk = \" x \" \n", "a|-|k= x \n");
	parses("[a]\nk = \"a;b#c\"\n", "a|-|k=a;b#c\n");
	parses("[a]\nk = a\"b\"c\n", "a|-|k=abc\n");
	parses("[a]\nk = \"\"  x\n", "a|-|k=x\n");
	/* escapes and continuation lines */
	parses("[a]\nk = a\\tb\\nc\\\\d\\\"e\n", "a|-|k=a\tb\nc\\d\"e\n");
	parses("[a]\nk = one \\\n  two\n", "a|-|k=one   two\n");
	parses("[a]\nk = x\\", "a|-|k=x\n");
	/* CRLF, a byte order mark, no final newline */
	parses("\xef\xbb\xbf[a]\r\nk = v\r\nj = w", "a|-|k=v\na|-|j=w\n");
	parses("k = outside\n", "|-|k=outside\n");
	parses("[a]\nk-2 = v\n", "a|-|k-2=v\n");

	refused("[a", "line 1: unterminated section header");
	refused("[a\n]", "line 1: unterminated section header");
	refused("[a b]\n", "line 1: a subsection name must be quoted");
	refused("[a \"b]\n", "line 1: unterminated subsection name");
	refused("[a \"b\" ]\n", "line 1: no ']' right after the subsection "
	    "name");
	refused("[a_b]\n", "line 1: bad character in a section name");
	refused("[]\n", "line 1: empty section name");
	refused("[a]\n\n1k = v\n", "line 3: a key must begin with a letter");
	refused("[a]\nk # c\n", "line 2: a key must be followed by '=' or "
	    "the end of its line");
	refused("[a]\nk_x = v\n", "line 2: a key must be followed by '=' or "
	    "the end of its line");
	refused("[a]\nk = \"open\n", "line 2: unterminated quote in a value");
	refused("[a]\nk = \\q\n", "line 2: unknown escape in a value");
	refused("\xef\xbb[a]\n", "line 1: a partial byte order mark");
}

ATF_TC_WITHOUT_HEAD(ident);
ATF_TC_BODY(ident, tc)
{
	struct gitconf_ident	 id;
	const char		*xdg = "[user]\n\tname = Xdg\n\temail = x@x\n"
				    "[include]\n\tpath = more\n";
	const char		*home = "[User]\nNAME = \"Home Name\"\n"
				    "[user \"work\"]\nemail = w@w\n";
	const char		*bad = "[user]\nname = Bad\n[oops\n";
	char			 err[128], big[600];

	memset(&id, 0, sizeof(id));
	id.src = 0;
	ATF_REQUIRE(gitconf_ident(xdg, strlen(xdg), &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.v, "Xdg");
	ATF_CHECK_STREQ(id.email.v, "x@x");
	ATF_CHECK(id.includes);
	/* the later file wins what it sets; [user "work"] is not [user] */
	id.src = 1;
	ATF_REQUIRE(gitconf_ident(home, strlen(home), &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.v, "Home Name");
	ATF_CHECK_EQ(id.name.src, 1);
	ATF_CHECK_STREQ(id.email.v, "x@x");
	ATF_CHECK_EQ(id.email.src, 0);
	/* a bad file changes nothing, as git would use none of it */
	ATF_CHECK(gitconf_ident(bad, strlen(bad), &id, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "line 3: unterminated section header");
	ATF_CHECK_STREQ(id.name.v, "Home Name");
	/* last wins, also over a value to an unusable one */
	ATF_REQUIRE(gitconf_ident("[user]\nname=a\nname\n", 19, &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.v, "");
	ATF_CHECK(id.name.bad != NULL);
	ATF_REQUIRE(gitconf_ident("[user]\nname=a\\nb\n", 17, &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.v, "a\nb");	/* gitident_check refuses it */
	ATF_CHECK(gitident_check(id.name.v) != NULL);
	ATF_REQUIRE(gitconf_ident("[user]\nname=a\0b\n", 16, &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.bad, "it holds a NUL byte");
	(void)snprintf(big, sizeof(big), "[user]\nname=%0300d\n", 0);
	ATF_REQUIRE(gitconf_ident(big, strlen(big), &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.bad, "it is longer than 255 bytes");
	ATF_REQUIRE(gitconf_ident("[user]\nname=ok\n", 15, &id, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(id.name.v, "ok");
	ATF_CHECK(id.name.bad == NULL);
}

ATF_TC_WITHOUT_HEAD(check);
ATF_TC_BODY(check, tc)
{
	char	big[300];

	ATF_CHECK(gitident_check("A U Thor") == NULL);
	ATF_CHECK(gitident_check("Zoë \"Q\" O'Brien \\ ;#") == NULL);
	ATF_CHECK(gitident_check("") != NULL);
	ATF_CHECK(gitident_check("a\nb") != NULL);
	ATF_CHECK(gitident_check("a\rb") != NULL);
	ATF_CHECK(gitident_check("a\tb") != NULL);
	ATF_CHECK(gitident_check("a\x7f") != NULL);
	memset(big, 'x', sizeof(big));
	big[255] = '\0';
	ATF_CHECK(gitident_check(big) == NULL);
	big[255] = 'x';
	big[256] = '\0';
	ATF_CHECK(gitident_check(big) != NULL);
}

/* what gitident_render writes, git (gitconf) reads back byte for byte */
static void
roundtrip(const char *name, const char *email)
{
	struct gitconf_ident	 id;
	char			 out[GITIDENT_FILE_MAX], err[128];
	int			 n;

	n = gitident_render(name, email, out, sizeof(out));
	ATF_REQUIRE_MSG(n > 0, "render of \"%s\" \"%s\"", name, email);
	ATF_CHECK_EQ((size_t)n, strlen(out));
	memset(&id, 0, sizeof(id));
	ATF_REQUIRE_MSG(gitconf_ident(out, (size_t)n, &id, err,
	    sizeof(err)) == 0, "%s in:\n%s", err, out);
	ATF_CHECK_STREQ(id.name.v, name);
	ATF_CHECK_STREQ(id.email.v, email);
}

ATF_TC_WITHOUT_HEAD(render);
ATF_TC_BODY(render, tc)
{
	char	out[GITIDENT_FILE_MAX], big[256];

	ATF_REQUIRE(gitident_render("A U Thor", "a@example.org", out,
	    sizeof(out)) > 0);
	ATF_CHECK_STREQ(out, "# your identity from the host's git config, "
	    "written by jailbee new\n[user]\n\tname = \"A U Thor\"\n"
	    "\temail = \"a@example.org\"\n");
	ATF_REQUIRE(gitident_render("", "e@x", out, sizeof(out)) > 0);
	ATF_CHECK(strstr(out, "name") == NULL);
	roundtrip("A U Thor", "a@example.org");
	roundtrip(" lead and trail ", "");
	roundtrip("q\"uo\\te ; # [x] = y", "e\"\\@x");
	roundtrip("", "only@email");
	roundtrip("\\\\\"\"", "\"");
	memset(big, '"', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	roundtrip(big, big);
	/* nothing, an unusable value, a buffer too short */
	ATF_CHECK(gitident_render("", "", out, sizeof(out)) == -1);
	ATF_CHECK(gitident_render("a\nb", "e@x", out, sizeof(out)) == -1);
	ATF_CHECK(gitident_render("n", "e\n[core]", out, sizeof(out)) == -1);
	ATF_CHECK(gitident_render("n", "e", out, 40) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, syntax);
	ATF_TP_ADD_TC(tp, ident);
	ATF_TP_ADD_TC(tp, check);
	ATF_TP_ADD_TC(tp, render);
	return atf_no_error();
}
