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
 * The configuration's golden files (regress/config/): each NAME.yaml
 * either reads into the configuration NAME.out prints (as jailbeed -nv
 * does), which reads back to the same configuration, or fails with the
 * error NAME.err holds.  The shipped example is among them, so it cannot
 * rot.  The tree's top comes as the config variable topdir (atf-c's
 * own srcdir is the test program's directory).
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "config.h"

/* a whole file, NUL-terminated; NULL when it does not exist */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	ATF_REQUIRE(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0);
	rewind(f);
	ATF_REQUIRE((buf = malloc((size_t)n + 1)) != NULL);
	ATF_REQUIRE(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static char *
printed(const struct jb_conf *c)
{
	char	*out = NULL;
	size_t	 len = 0;
	FILE	*f;

	ATF_REQUIRE((f = open_memstream(&out, &len)) != NULL);
	conf_print(f, c);
	ATF_REQUIRE(fclose(f) == 0);
	return out;
}

/* in: the YAML; name: as errors name it; base: where .out/.err are */
static void
golden(const char *in, const char *name, const char *base)
{
	struct jb_conf	*c, *again;
	char		 path[1024], err[1024], *src, *want, *got, *got2;
	size_t		 len, wlen;

	ATF_REQUIRE((c = malloc(sizeof(*c))) != NULL);
	ATF_REQUIRE((again = malloc(sizeof(*again))) != NULL);
	ATF_REQUIRE_MSG((src = slurp(in, &len)) != NULL, "%s", in);
	snprintf(path, sizeof(path), "%s.err", base);
	if ((want = slurp(path, &wlen)) != NULL) {
		ATF_CHECK_MSG(conf_parse(name, src, len, c, err,
		    sizeof(err)) == -1, "%s: read, but %s says it fails", in,
		    path);
		strlcat(err, "\n", sizeof(err));
		ATF_CHECK_STREQ_MSG(err, want, "%s", in);
		goto out;
	}
	snprintf(path, sizeof(path), "%s.out", base);
	ATF_REQUIRE_MSG((want = slurp(path, &wlen)) != NULL, "%s: neither "
	    ".out nor .err", base);
	if (conf_parse(name, src, len, c, err, sizeof(err)) == -1) {
		atf_tc_fail_nonfatal("%s: %s", in, err);
		goto out;
	}
	got = printed(c);
	ATF_CHECK_STREQ_MSG(got, want, "%s: jailbeed -nv prints otherwise",
	    in);
	/* what -nv prints is read back to the same configuration */
	ATF_CHECK_MSG(conf_parse("printed", got, strlen(got), again, err,
	    sizeof(err)) == 0, "%s printed: %s", in, err);
	ATF_CHECK_MSG(memcmp(c, again, sizeof(*c)) == 0, "%s: printed and "
	    "read back, the configuration differs", in);
	got2 = printed(again);
	ATF_CHECK_STREQ(got, got2);
	free(got);
	free(got2);
 out:
	free(want);
	free(src);
	free(again);
	free(c);
}

ATF_TC_WITHOUT_HEAD(golden_files);
ATF_TC_BODY(golden_files, tc)
{
	const char	*src = atf_tc_get_config_var_wd(tc, "topdir", "../..");
	char		 dir[1024], in[1100], base[1100];
	struct dirent	*d;
	DIR		*dp;
	size_t		 n;
	int		 seen = 0;

	snprintf(dir, sizeof(dir), "%s/regress/config", src);
	ATF_REQUIRE_MSG((dp = opendir(dir)) != NULL, "%s", dir);
	while ((d = readdir(dp)) != NULL) {
		n = strlen(d->d_name);
		if (n < 6 || strcmp(d->d_name + n - 5, ".yaml") != 0)
			continue;
		snprintf(in, sizeof(in), "%s/%s", dir, d->d_name);
		snprintf(base, sizeof(base), "%s/%.*s", dir, (int)(n - 5),
		    d->d_name);
		golden(in, d->d_name, base);
		seen++;
	}
	closedir(dp);
	/* an empty directory would pass: it holds eight */
	ATF_CHECK_EQ(seen, 8);
}

ATF_TC_WITHOUT_HEAD(shipped_example);
ATF_TC_BODY(shipped_example, tc)
{
	const char	*src = atf_tc_get_config_var_wd(tc, "topdir", "../..");
	char		 in[1100], base[1100];

	snprintf(in, sizeof(in), "%s/etc/jailbeed.yaml.example", src);
	snprintf(base, sizeof(base), "%s/regress/config/example", src);
	golden(in, "jailbeed.yaml.example", base);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, golden_files);
	ATF_TP_ADD_TC(tp, shipped_example);
	return atf_no_error();
}
