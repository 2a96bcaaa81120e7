/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* which mount holds a storage pool, read from mountinfo's text */

#include <string.h>

#include <atf-c.h>

#include "diskq.h"

static const char MI[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "49 27 0:42 / /var/lib/incus/storage-pools/default rw,relatime - "
    "btrfs /dev/loop0 rw,space_cache=v2,subvolid=5,subvol=/\n"
    "50 22 0:43 / /var/lib/incus/storage-pools/default-2 rw - btrfs "
    "/dev/loop1 rw\n"
    "51 22 0:44 / /mnt/with\\040space rw shared:7 master:2 - xfs "
    "/dev/mapper/vg-a\\040b rw\n";

ATF_TC_WITHOUT_HEAD(longest_parent);
ATF_TC_BODY(longest_parent, tc)
{
	struct diskq_mount	m;

	ATF_REQUIRE(diskq_mount_of(MI, "/var/lib/incus/storage-pools/default",
	    &m) == 0);
	ATF_CHECK_STREQ(m.fstype, "btrfs");
	ATF_CHECK_STREQ(m.source, "/dev/loop0");
	/* a path below the pool's mount is on it */
	ATF_REQUIRE(diskq_mount_of(MI, "/var/lib/incus/storage-pools/default/"
	    "containers/x", &m) == 0);
	ATF_CHECK_STREQ(m.point, "/var/lib/incus/storage-pools/default");
	/* a name that only begins like a mount point is not under it */
	ATF_REQUIRE(diskq_mount_of(MI, "/var/lib/incus/storage-pools/"
	    "default-2", &m) == 0);
	ATF_CHECK_STREQ(m.source, "/dev/loop1");
	ATF_REQUIRE(diskq_mount_of(MI, "/var/lib/incus/storage-pools/"
	    "defaultx", &m) == 0);
	ATF_CHECK_STREQ(m.point, "/");
	ATF_CHECK_STREQ(m.fstype, "ext4");
}

ATF_TC_WITHOUT_HEAD(escapes_and_optional);
ATF_TC_BODY(escapes_and_optional, tc)
{
	struct diskq_mount	m;

	ATF_REQUIRE(diskq_mount_of(MI, "/mnt/with space/pool", &m) == 0);
	ATF_CHECK_STREQ(m.point, "/mnt/with space");
	ATF_CHECK_STREQ(m.fstype, "xfs");
	ATF_CHECK_STREQ(m.source, "/dev/mapper/vg-a b");
}

ATF_TC_WITHOUT_HEAD(bad_text);
ATF_TC_BODY(bad_text, tc)
{
	struct diskq_mount	m;

	ATF_CHECK(diskq_mount_of("", "/x", &m) == -1);
	/* no "-" separator: no filesystem type, no mount */
	ATF_CHECK(diskq_mount_of("1 2 0:1 / / rw\n", "/x", &m) == -1);
	/* a relative mount point is nobody's */
	ATF_CHECK(diskq_mount_of("1 2 0:1 / rel rw - btrfs /dev/x rw\n",
	    "rel", &m) == -1);
	ATF_CHECK(diskq_mount_of("garbage without newline", "/", &m) == -1);
}

ATF_TC_WITHOUT_HEAD(pools_dir);
ATF_TC_BODY(pools_dir, tc)
{
	char	d[256];

	ATF_REQUIRE(diskq_pools_dir("unix:/var/lib/incus/unix.socket", d,
	    sizeof(d)) == 0);
	ATF_CHECK_STREQ(d, "/var/lib/incus/storage-pools");
	ATF_CHECK(diskq_pools_dir("https://incus.example:8443", d,
	    sizeof(d)) == -1);
	ATF_CHECK(diskq_pools_dir("unix:relative.sock", d, sizeof(d)) == -1);
	ATF_CHECK(diskq_pools_dir("unix:/var/lib/incus/unix.socket", d,
	    8) == -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, longest_parent);
	ATF_TP_ADD_TC(tp, escapes_and_optional);
	ATF_TP_ADD_TC(tp, bad_text);
	ATF_TP_ADD_TC(tp, pools_dir);
	return atf_no_error();
}
