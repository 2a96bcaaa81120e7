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
 * An instance's record of its secrets (secrec.c): what is written reads
 * back the same, and a malformed record is refused with the reason.
 */

#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "secrec.h"

#define G	"/home/u/.config/jailbee/global.yaml"
#define L	"/home/u/.config/jailbee/repos/demo.yaml"
#define PH1	"jbsecret-0123456789abcdef0123456789abcdef"
#define PH2	"jbsecret-ffffffffffffffffffffffffffffffff"
#define PH3	"jbsecret-00000000000000000000000000000000"
#define HEAD	G "\n" L "\n"

static struct secrec	r, back;
static char		buf[2048], err[512];

static void
mk(int n)
{
	static const char *const names[] = { "API_KEY", "GH_TOKEN", "_x9" };
	static const char *const phs[] = { PH1, PH2, PH3 };
	int	i;

	memset(&r, 0, sizeof(r));
	(void)strlcpy(r.global, G, sizeof(r.global));
	(void)strlcpy(r.local, L, sizeof(r.local));
	for (i = 0; i < n; i++) {
		(void)strlcpy(r.e[i].name, names[i], sizeof(r.e[i].name));
		(void)strlcpy(r.e[i].ph, phs[i], sizeof(r.e[i].ph));
	}
	r.n = n;
}

/* s is refused and the reason holds why */
static void
refused(const char *s, size_t len, const char *why)
{
	err[0] = '\0';
	ATF_CHECK_EQ_MSG(secrec_read(s, len, &back, err, sizeof(err)), -1,
	    "taken: %s", s);
	ATF_CHECK_MSG(strstr(err, why) != NULL, "reason \"%s\", wanted "
	    "\"%s\"", err, why);
	ATF_CHECK_EQ(back.n, 0);
}

#define REFUSED(s, why)	refused((s), sizeof(s) - 1, (why))

ATF_TC_WITHOUT_HEAD(roundtrip);
ATF_TC_BODY(roundtrip, tc)
{
	int	i;

	/* a file secret, github.token's (with its prefix), another file's */
	mk(3);
	r.e[1].github = 1;
	(void)strlcpy(r.ghprefix, "demo-2", sizeof(r.ghprefix));
	ATF_REQUIRE_EQ_MSG(secrec_write(&r, buf, sizeof(buf), err,
	    sizeof(err)), 0, "%s", err);
	ATF_CHECK_STREQ(buf, HEAD "API_KEY=" PH1 "\nGH_TOKEN=" PH2
	    "\ngithub.prefix=demo-2\n_x9=" PH3 "\n");
	ATF_REQUIRE_EQ_MSG(secrec_read(buf, strlen(buf), &back, err,
	    sizeof(err)), 0, "%s", err);
	ATF_CHECK_STREQ(back.global, G);
	ATF_CHECK_STREQ(back.local, L);
	ATF_CHECK_STREQ(back.ghprefix, "demo-2");
	ATF_REQUIRE_EQ(back.n, 3);
	for (i = 0; i < 3; i++) {
		ATF_CHECK_STREQ(back.e[i].name, r.e[i].name);
		ATF_CHECK_STREQ(back.e[i].ph, r.e[i].ph);
		ATF_CHECK_EQ(back.e[i].github, r.e[i].github);
	}

	/* GH_TOKEN from a file of its own: no prefix line */
	mk(2);
	ATF_REQUIRE_EQ(secrec_write(&r, buf, sizeof(buf), err,
	    sizeof(err)), 0);
	ATF_CHECK_STREQ(buf, HEAD "API_KEY=" PH1 "\nGH_TOKEN=" PH2 "\n");
	ATF_REQUIRE_EQ(secrec_read(buf, strlen(buf), &back, err,
	    sizeof(err)), 0);
	ATF_CHECK_EQ(back.n, 2);
	ATF_CHECK_EQ(back.e[1].github, 0);
	ATF_CHECK_STREQ(back.ghprefix, "");

	/* no secret: the empty record, read as none */
	mk(0);
	ATF_REQUIRE_EQ(secrec_write(&r, buf, sizeof(buf), err,
	    sizeof(err)), 0);
	ATF_CHECK_STREQ(buf, "");
	ATF_CHECK_EQ(secrec_read(buf, 0, &back, err, sizeof(err)), 0);
	ATF_CHECK_EQ(back.n, 0);

	/* the most secrets there may be */
	mk(0);
	for (i = 0; i < RC_SECRETS_MAX; i++) {
		(void)snprintf(r.e[i].name, sizeof(r.e[i].name), "S%d", i);
		(void)snprintf(r.e[i].ph, sizeof(r.e[i].ph),
		    "jbsecret-%032x", i);
	}
	r.n = RC_SECRETS_MAX;
	ATF_REQUIRE_EQ(secrec_write(&r, buf, sizeof(buf), err,
	    sizeof(err)), 0);
	ATF_REQUIRE_EQ_MSG(secrec_read(buf, strlen(buf), &back, err,
	    sizeof(err)), 0, "%s", err);
	ATF_CHECK_EQ(back.n, RC_SECRETS_MAX);
	ATF_CHECK_STREQ(back.e[15].ph, "jbsecret-0000000000000000000000000000000f");
}

ATF_TC_WITHOUT_HEAD(write_refused);
ATF_TC_BODY(write_refused, tc)
{
	/* what would not read back is not written */
	mk(1);
	(void)strlcpy(r.local, "/a\nb", sizeof(r.local));
	ATF_CHECK_EQ(secrec_write(&r, buf, sizeof(buf), err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "host-local config path holds a newline") !=
	    NULL);
	ATF_CHECK_STREQ(buf, "");
	mk(1);
	r.e[0].github = 1;	/* API_KEY without a file */
	(void)strlcpy(r.ghprefix, "demo", sizeof(r.ghprefix));
	ATF_CHECK_EQ(secrec_write(&r, buf, sizeof(buf), err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "API_KEY has no file") != NULL);
	mk(2);
	r.e[1].github = 1;	/* no prefix */
	ATF_CHECK_EQ(secrec_write(&r, buf, sizeof(buf), err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "not a container prefix") != NULL);
	mk(3);
	ATF_CHECK_EQ(secrec_write(&r, buf, 100, err, sizeof(err)), -1);
	ATF_CHECK(strstr(err, "do not fit in 100 bytes") != NULL);
	ATF_CHECK_STREQ(buf, "");
}

ATF_TC_WITHOUT_HEAD(paths);
ATF_TC_BODY(paths, tc)
{
	static char	longp[PATH_MAX + 256];

	REFUSED(G "\n", "the host-local config path is missing");
	REFUSED("\n" L "\nA=" PH1 "\n", "line 1: the global config path is "
	    "missing");
	REFUSED(G "\n\nA=" PH1 "\n", "line 2: the host-local config path is "
	    "missing");
	REFUSED(HEAD, "it names no secret");
	memset(longp, 'a', PATH_MAX);
	longp[0] = '/';
	(void)strlcpy(longp + PATH_MAX, "\n" L "\nA=" PH1 "\n",
	    sizeof(longp) - PATH_MAX);
	refused(longp, strlen(longp), "line 1: longer than a path");
}

ATF_TC_WITHOUT_HEAD(lines);
ATF_TC_BODY(lines, tc)
{
	REFUSED(HEAD "API_KEY " PH1 "\n", "line 3: no '=' (NAME=PLACEHOLDER)");
	REFUSED(HEAD "API-KEY=" PH1 "\n", "line 3: \"API-KEY\" is not a "
	    "secret name");
	REFUSED(HEAD "=" PH1 "\n", "line 3: \"\" is not a secret name");
	REFUSED(HEAD "9A=" PH1 "\n", "line 3: \"9A\" is not a secret name");
	REFUSED(HEAD "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	    "x\n", "line 3: a secret's name is at most 63 bytes");
	REFUSED(HEAD "API_KEY=" PH1 "0000000000000000000000000000000000000000"
	    "00000000000000000000000000000000000000000000000000000000000\n",
	    "line 3: longer than 105 bytes");
	/* trailing bytes: a line without its newline */
	REFUSED(HEAD "API_KEY=" PH1 "\nB=" PH2, "bytes after the last newline");
	REFUSED(HEAD "API_KEY=" PH1 "\n\n", "line 4: no '='");
	refused(HEAD "API_KEY=" PH1 "\n\0B=x\n", sizeof(HEAD "API_KEY=" PH1
	    "\n\0B=x\n") - 1, "a NUL byte at offset");
}

ATF_TC_WITHOUT_HEAD(placeholders);
ATF_TC_BODY(placeholders, tc)
{
	const char	*why = "API_KEY's placeholder is not jbsecret- and 32 "
	    "lowercase hex digits";

	REFUSED(HEAD "API_KEY=\n", why);
	REFUSED(HEAD "API_KEY=jbsecret-0123\n", why);
	REFUSED(HEAD "API_KEY=" PH1 "0\n", why);
	REFUSED(HEAD "API_KEY=jbsecret-0123456789ABCDEF0123456789abcdef\n",
	    why);
	REFUSED(HEAD "API_KEY=xxsecret-0123456789abcdef0123456789abcdef\n",
	    why);
	REFUSED(HEAD "API_KEY=jbsecret-0123456789abcdef0123456789abcdeg\n",
	    why);
}

ATF_TC_WITHOUT_HEAD(github_prefix);
ATF_TC_BODY(github_prefix, tc)
{
	const char	*why = "github.prefix does not follow GH_TOKEN's line";

	REFUSED(HEAD "github.prefix=demo\nGH_TOKEN=" PH1 "\n", why);
	REFUSED(HEAD "API_KEY=" PH1 "\ngithub.prefix=demo\n", why);
	REFUSED(HEAD "GH_TOKEN=" PH1 "\nAPI_KEY=" PH2 "\ngithub.prefix=demo\n",
	    why);
	REFUSED(HEAD "GH_TOKEN=" PH1 "\ngithub.prefix=demo\n"
	    "github.prefix=demo\n", why);
	REFUSED(HEAD "GH_TOKEN=" PH1 "\ngithub.prefix=\n",
	    "line 4: github.prefix: not a container prefix");
	REFUSED(HEAD "GH_TOKEN=" PH1 "\ngithub.prefix=Demo\n",
	    "line 4: github.prefix: not a container prefix");
	REFUSED(HEAD "GH_TOKEN=" PH1 "\ngithub.prefix="
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	    "line 4: github.prefix: not a container prefix");
}

ATF_TC_WITHOUT_HEAD(duplicates_and_count);
ATF_TC_BODY(duplicates_and_count, tc)
{
	char	s[2048];
	size_t	off;
	int	i;

	REFUSED(HEAD "API_KEY=" PH1 "\nAPI_KEY=" PH2 "\n",
	    "line 4: API_KEY is named twice");
	REFUSED(HEAD "API_KEY=" PH1 "\nB=" PH1 "\n",
	    "line 4: API_KEY and B have the same placeholder");
	off = strlcpy(s, HEAD, sizeof(s));
	for (i = 0; i <= RC_SECRETS_MAX; i++)
		off += (size_t)snprintf(s + off, sizeof(s) - off,
		    "S%d=jbsecret-%032x\n", i, i);
	refused(s, off, "line 19: more than 16 secrets");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, roundtrip);
	ATF_TP_ADD_TC(tp, write_refused);
	ATF_TP_ADD_TC(tp, paths);
	ATF_TP_ADD_TC(tp, lines);
	ATF_TP_ADD_TC(tp, placeholders);
	ATF_TP_ADD_TC(tp, github_prefix);
	ATF_TP_ADD_TC(tp, duplicates_and_count);
	return atf_no_error();
}
