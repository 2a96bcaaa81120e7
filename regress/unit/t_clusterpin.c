/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* host paths on a cluster: only for a container pinned to this member */

#include <string.h>

#include <atf-c.h>

#include "clusterpin.h"

ATF_TC_WITHOUT_HEAD(not_a_cluster);
ATF_TC_BODY(not_a_cluster, tc)
{
	char	why[512] = "";

	ATF_CHECK(cluster_pin_check("", "", NULL, "--mount", "p-a", why,
	    sizeof(why)) == 0);
	ATF_CHECK(cluster_pin_check("", "", "m2", "--mount", "p-a", why,
	    sizeof(why)) == 0);
	ATF_CHECK(cluster_pin_check(NULL, NULL, NULL, "--mount", "p-a", why,
	    sizeof(why)) == 0);
	ATF_CHECK_STREQ(why, "");
}

/* new, before the container exists: --target must name this member */
ATF_TC_WITHOUT_HEAD(new_unpinned);
ATF_TC_BODY(new_unpinned, tc)
{
	char	why[512];

	ATF_REQUIRE(cluster_pin_check("m1", "", NULL, "--mount", "p-a", why,
	    sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "--mount: on a cluster a container may run on "
	    "any member, and this path is on member m1 only: add --target m1 "
	    "to new to pin p-a there");
	ATF_REQUIRE(cluster_pin_check("m1", "m2", NULL, "host_mounts /srv",
	    "p-a", why, sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "host_mounts /srv: ") == why);
	ATF_CHECK(strstr(why, "add --target m1") != NULL);
	ATF_CHECK(cluster_pin_check("m1", "m1", NULL, "--mount", "p-a", why,
	    sizeof(why)) == 0);
}

/* an existing container: pinned here and running here */
ATF_TC_WITHOUT_HEAD(existing);
ATF_TC_BODY(existing, tc)
{
	char	why[512];

	ATF_REQUIRE(cluster_pin_check("m1", "", "none",
	    "optional_mounts.aws", "p-a", why, sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "p-a was made without --target: make it again "
	    "with new --target m1") != NULL);
	ATF_REQUIRE(cluster_pin_check("m1", "m3", "m3",
	    "optional_mounts.aws", "p-a", why, sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "p-a is pinned to member m3") != NULL);
	/* pinned here but moved away */
	ATF_REQUIRE(cluster_pin_check("m1", "m1", "m2",
	    "optional_mounts.aws", "p-a", why, sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "p-a runs on member m2: move it back to member "
	    "m1 first (incus move p-a --target m1)") != NULL);
	/* pinned and here; not clustered, every container is here */
	ATF_CHECK(cluster_pin_check("m1", "m1", "m1", "x", "p-a", why,
	    sizeof(why)) == 0);
	ATF_CHECK(cluster_pin_check("m1", "m1", "none", "x", "p-a", why,
	    sizeof(why)) == 0);
	ATF_CHECK(cluster_pin_check("m1", "m1", "", "x", "p-a", why,
	    sizeof(why)) == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, not_a_cluster);
	ATF_TP_ADD_TC(tp, new_unpinned);
	ATF_TP_ADD_TC(tp, existing);
	return atf_no_error();
}
