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
 * The bounds gitrun puts on each host git (gitrun_limits): real git,
 * made to work on a large sparse file, is stopped at its CPU time and
 * cannot map more than its address space; without the bounds the same
 * command succeeds.
 */

#include <sys/stat.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "gitrun.h"

/* a sparse file of len bytes in the test's directory */
static void
sparse(const char *name, off_t len)
{
	int	fd;

	ATF_REQUIRE((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600)) !=
	    -1);
	ATF_REQUIRE(ftruncate(fd, len) == 0);
	close(fd);
}

static void
init(void)
{
	char	err[256];

	ATF_REQUIRE(setenv("HOME", "/nonexistent", 1) == 0);
	ATF_REQUIRE_MSG(gitrun_init("/nonexistent", "JB_T=1", err,
	    sizeof(err)) == 0, "%s", err);
}

ATF_TC(cpu_limit);
ATF_TC_HEAD(cpu_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "a git past its CPU seconds is "
	    "stopped by SIGXCPU (or SIGKILL at the hard limit)");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(cpu_limit, tc)
{
	time_t	t0;
	int	sig;

	init();
	/* hashing 64 GiB of zeros takes far more than a second */
	sparse("big", (off_t)64 << 30);
	gitrun_limits(1, 0);
	t0 = time(NULL);
	ATF_REQUIRE(gitrun_quiet("hash-object", "--no-filters", "big",
	    NULL) == -1);
	sig = gitrun_last_signal();
	ATF_REQUIRE_MSG(sig == SIGXCPU || sig == SIGKILL, "signal %d", sig);
	ATF_REQUIRE_MSG(time(NULL) - t0 < 30, "took %lld s",
	    (long long)(time(NULL) - t0));
	/* and without the limit, a small one goes through */
	sparse("small", 1 << 20);
	gitrun_limits(0, 0);
	ATF_REQUIRE(gitrun_quiet("hash-object", "--no-filters", "small",
	    NULL) == 0);
	ATF_REQUIRE_EQ(gitrun_last_signal(), 0);
}

ATF_TC(as_limit);
ATF_TC_HEAD(as_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "a git may not map more than its "
	    "address space: hashing a 1 GiB file read whole fails under "
	    "256 MiB and succeeds without the bound");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(as_limit, tc)
{
	char	out[256];

	init();
	sparse("gig", (off_t)1 << 30);
	/* above bigFileThreshold git would stream it; read it whole */
	gitrun_limits(0, 256UL << 20);
	ATF_REQUIRE(gitrun_capture(out, sizeof(out), 1, "-c",
	    "core.bigFileThreshold=4g", "hash-object", "--no-filters", "gig",
	    NULL) == -1);
	gitrun_limits(0, 0);
	ATF_REQUIRE(gitrun_capture(out, sizeof(out), 1, "-c",
	    "core.bigFileThreshold=4g", "hash-object", "--no-filters", "gig",
	    NULL) == 0);
	ATF_REQUIRE_MSG(strlen(out) >= 40, "git said \"%s\"", out);
}

ATF_TC(fetch_start);
ATF_TC_HEAD(fetch_start, tc)
{
	atf_tc_set_md_var(tc, "descr", "gitrun_fetch_start: one git says the "
	    "pack directory and the ref's commit, \"\" for a ref that does "
	    "not exist, and fails outside a checkout");
}
ATF_TC_BODY(fetch_start, tc)
{
	struct gitpacks	 packs;
	char		 old[128], head[128];
	FILE		*f;

	init();
	/* outside any checkout: kyua's work directory, under /tmp */
	ATF_CHECK_EQ(gitrun_fetch_start("refs/heads/main", old, sizeof(old),
	    &packs), -1);
	ATF_REQUIRE(system("git init -q -b main r && cd r && "
	    "git -c user.name=t -c user.email=t@example.org commit -q "
	    "--allow-empty -m one && git repack -q -a -d && "
	    "git rev-parse HEAD > ../head") == 0);
	ATF_REQUIRE((f = fopen("head", "r")) != NULL);
	ATF_REQUIRE(fgets(head, sizeof(head), f) != NULL);
	fclose(f);
	head[strcspn(head, "\n")] = '\0';
	ATF_REQUIRE(chdir("r") == 0);
	ATF_REQUIRE(gitrun_fetch_start("refs/heads/main", old, sizeof(old),
	    &packs) == 0);
	ATF_CHECK_STREQ(old, head);
	ATF_CHECK_STREQ(packs.dir, ".git/objects/pack");
	/* the pack repack wrote: one .idx, counted as there before */
	ATF_CHECK_EQ(packs.n, 1);
	ATF_CHECK_EQ(gitpacks_new_objects(&packs), 0);
	gitpacks_free(&packs);
	/* a ref that does not exist: no commit, no error */
	ATF_REQUIRE(gitrun_fetch_start("refs/jailbee/c/nope", old,
	    sizeof(old), &packs) == 0);
	ATF_CHECK_STREQ(old, "");
	ATF_CHECK_STREQ(packs.dir, ".git/objects/pack");
	gitpacks_free(&packs);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, cpu_limit);
	ATF_TP_ADD_TC(tp, as_limit);
	ATF_TP_ADD_TC(tp, fetch_start);
	return atf_no_error();
}
