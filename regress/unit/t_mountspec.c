/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/sysmacros.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <atf-c.h>

#include "mountspec.h"

static void
target_ok(const char *p, const char *reserved)
{
	char	err[512] = "";

	ATF_CHECK_MSG(mnt_target_ok(p, reserved, err, sizeof(err)) == 0,
	    "%s refused: %s", p, err);
}

static void
target_bad(const char *p, const char *reserved, const char *want)
{
	char	err[512] = "";

	ATF_CHECK_MSG(mnt_target_ok(p, reserved, err, sizeof(err)) == -1,
	    "%s accepted", p);
	ATF_CHECK_MSG(strstr(err, want) != NULL, "%s: \"%s\" lacks \"%s\"",
	    p, err, want);
}

ATF_TC_WITHOUT_HEAD(targets);
ATF_TC_BODY(targets, tc)
{
	target_ok("/home/dev/.aws", "/home/dev/repo");
	target_ok("/home/dev/repo/sub", "/home/dev/repo");
	target_ok("/mnt/other", NULL);
	target_ok("/mnt/host-sourcex", NULL);
	target_ok("/devices", NULL);
	target_bad("home/dev/x", NULL, "is relative: it must be absolute");
	target_bad("", NULL, "is relative");
	target_bad("/", NULL, "replace the container's root");
	target_bad("/home//dev", NULL, "not canonical");
	target_bad("/home/dev/", NULL, "not canonical");
	target_bad("/home/./dev", NULL, "not canonical");
	target_bad("/home/../etc", NULL, "not canonical");
	target_bad("/proc", NULL, "kernel interfaces");
	target_bad("/sys/fs/x", NULL, "kernel interfaces");
	target_bad("/dev", NULL, "kernel interfaces");
	target_bad("/mnt/host-source", NULL, "shadow or enter /mnt/host-source");
	target_bad("/mnt", NULL, "shadow or enter /mnt/host-source");
	target_bad("/mnt/host-source/x", NULL, "shadow or enter");
	target_bad("/home/dev/repo", "/home/dev/repo", "own checkout");
	target_bad("/home/dev", "/home/dev/repo", "own checkout");
	target_bad("/home", "/home/dev/repo", "own checkout");
}

ATF_TC_WITHOUT_HEAD(expand_and_kinds);
ATF_TC_BODY(expand_and_kinds, tc)
{
	char	out[64], err[256];

	ATF_CHECK(mnt_expand("~/.aws", "/home/u", out, sizeof(out), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(out, "/home/u/.aws");
	ATF_CHECK(mnt_expand("~", "/home/u", out, sizeof(out), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(out, "/home/u");
	ATF_CHECK(mnt_expand("/srv/x", "/home/u", out, sizeof(out), err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ(out, "/srv/x");
	ATF_CHECK(mnt_expand("~other/x", "/home/u", out, sizeof(out), err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "must be absolute or start with ~/") != NULL);
	ATF_CHECK(mnt_expand("rel", "/home/u", out, sizeof(out), err,
	    sizeof(err)) == -1);
	ATF_CHECK(mnt_expand("~/x", "", out, sizeof(out), err,
	    sizeof(err)) == -1);
	ATF_CHECK(mnt_expand("~/0123456789012345678901234567890123456789"
	    "0123456789012345678901234", "/home/u", out, sizeof(out), err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "too long") != NULL);

	ATF_CHECK(mnt_kind_ok("aws"));
	ATF_CHECK(mnt_kind_ok("open_ai-2"));
	ATF_CHECK(!mnt_kind_ok(""));
	ATF_CHECK(!mnt_kind_ok("-x"));
	ATF_CHECK(!mnt_kind_ok("Aws"));
	ATF_CHECK(!mnt_kind_ok("a/b"));
	ATF_CHECK(!mnt_kind_ok("a b"));
	ATF_CHECK(mnt_kind_ok("abcdefghijklmnopqrstuvwxyz012345"));
	ATF_CHECK(!mnt_kind_ok("abcdefghijklmnopqrstuvwxyz0123456"));

	/* an agent's shared entry: agent-<agent>-<index> */
	ATF_CHECK(mnt_agent_device_ok("agent-claude-0"));
	ATF_CHECK(mnt_agent_device_ok("agent-my-agent-12"));
	ATF_CHECK(mnt_agent_device_ok("agent-abcdefghijklmnopqrstuvwxyz"
	    "012345-7"));
	ATF_CHECK(!mnt_agent_device_ok("agent-abcdefghijklmnopqrstuvwxyz"
	    "0123456-7"));
	ATF_CHECK(!mnt_agent_device_ok("agent-claude"));
	ATF_CHECK(!mnt_agent_device_ok("agent-claude-"));
	ATF_CHECK(!mnt_agent_device_ok("agent--0"));
	ATF_CHECK(!mnt_agent_device_ok("agent-claude-100"));
	ATF_CHECK(!mnt_agent_device_ok("agent-Claude-0"));
	ATF_CHECK(!mnt_agent_device_ok("agent-c/d-0"));
	ATF_CHECK(!mnt_agent_device_ok("host-0"));
}

static const char host_info[] =
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "23 22 0:21 / /proc rw shared:2 - proc proc rw\n"
    "40 22 254:16 / /home rw shared:3 - ext4 /dev/vdb rw\n"
    "41 40 254:16 /exports/u /home/u rw shared:4 - ext4 /dev/vdb rw\n"
    "42 22 254:0 /srv/with\\040space /data rw shared:5 - ext4 /dev/vda rw\n";

ATF_TC_WITHOUT_HEAD(mountinfo);
ATF_TC_BODY(mountinfo, tc)
{
	static const char ctr[] =
	    "48 70 254:0 /tmp/probe/other /mnt/d1 ro,relatime shared:27 - "
	    "ext4 /dev/vda rw\n"
	    "49 70 254:16 /exports/u/a\\040b /home/dev/x rw - ext4 /dev/vdb "
	    "rw\n"
	    "50 48 0:44 / /mnt/d1 rw - tmpfs tmpfs rw\n"
	    "garbage line\n";
	char		root[256];
	uint64_t	dev = 0;

	ATF_REQUIRE(mnt_info_find(ctr, "/home/dev/x", &dev, root,
	    sizeof(root)) == 0);
	ATF_CHECK(dev == makedev(254, 16));
	ATF_CHECK_STREQ(root, "/exports/u/a b");
	/*
	 * Incus's mount counts, not a tmpfs the container stacked over it
	 * (its parent is the disk's mount)
	 */
	ATF_REQUIRE(mnt_info_find(ctr, "/mnt/d1", &dev, root,
	    sizeof(root)) == 0);
	ATF_CHECK(dev == makedev(254, 0));
	ATF_CHECK_STREQ(root, "/tmp/probe/other");
	ATF_CHECK(mnt_info_find(ctr, "/mnt", &dev, root, sizeof(root)) == -1);

	ATF_REQUIRE(mnt_info_root_of(host_info, "/tmp/probe/real",
	    makedev(254, 0), root, sizeof(root)) == 0);
	ATF_CHECK_STREQ(root, "/tmp/probe/real");
	ATF_REQUIRE(mnt_info_root_of(host_info, "/home/u/.aws",
	    makedev(254, 16), root, sizeof(root)) == 0);
	ATF_CHECK_STREQ(root, "/exports/u/.aws");
	ATF_REQUIRE(mnt_info_root_of(host_info, "/home/v",
	    makedev(254, 16), root, sizeof(root)) == 0);
	ATF_CHECK_STREQ(root, "/v");
	ATF_REQUIRE(mnt_info_root_of(host_info, "/data/x",
	    makedev(254, 0), root, sizeof(root)) == 0);
	ATF_CHECK_STREQ(root, "/srv/with space/x");
	ATF_REQUIRE(mnt_info_root_of(host_info, "/home",
	    makedev(254, 16), root, sizeof(root)) == 0);
	ATF_CHECK_STREQ(root, "/");
	/* the device must be the one the mount holds */
	ATF_CHECK(mnt_info_root_of(host_info, "/home/u/x", makedev(254, 0),
	    root, sizeof(root)) == -1);
	ATF_CHECK(mnt_info_root_of(host_info, "/homer", makedev(254, 0),
	    root, sizeof(root)) == 0);
	ATF_CHECK_STREQ(root, "/homer");
}

/*
 * Root in the container stacks its own mounts over the one Incus made:
 * a bind of something else that looks right, a tmpfs, in any order of
 * lines; and a mount at the same point over a tmpfs on its parent.
 * Verification judges Incus's mount, the first at the point.
 */
ATF_TC_WITHOUT_HEAD(mountinfo_stacked);
ATF_TC_BODY(mountinfo_stacked, tc)
{
	/* Incus's (60) holds the swapped /etc; 61 and 62 are the container's */
	static const char bind_over[] =
	    "30 1 254:0 / / rw - ext4 /dev/vda rw\n"
	    "60 30 254:0 /etc /home/dev/x ro - ext4 /dev/vda rw\n"
	    "61 60 254:16 /home/o/src/b /home/dev/x ro - ext4 /dev/vdb rw\n"
	    "62 61 0:44 / /home/dev/x rw - tmpfs tmpfs rw\n";
	/* the same stack, its lines in another order */
	static const char reordered[] =
	    "62 61 0:44 / /home/dev/x rw - tmpfs tmpfs rw\n"
	    "61 60 254:16 /home/o/src/b /home/dev/x ro - ext4 /dev/vdb rw\n"
	    "30 1 254:0 / / rw - ext4 /dev/vda rw\n"
	    "60 30 254:0 /etc /home/dev/x ro - ext4 /dev/vda rw\n";
	/*
	 * a tmpfs over /home/dev (70), then a mount at /home/dev/x on it
	 * (71): two mounts at the point sit on no other there; the first
	 * made, Incus's, counts
	 */
	static const char parent_covered[] =
	    "30 1 254:0 / / rw - ext4 /dev/vda rw\n"
	    "60 30 254:16 /home/o/src/b /home/dev/x ro - ext4 /dev/vdb rw\n"
	    "70 30 0:50 / /home/dev rw - tmpfs tmpfs rw\n"
	    "71 70 0:51 / /home/dev/x rw - tmpfs tmpfs rw\n";
	/* an id that is not a number: the line does not parse */
	static const char bad_id[] =
	    "x6 30 254:16 /home/o/src/b /home/dev/x ro - ext4 /dev/vdb rw\n";
	char		root[256];
	uint64_t	dev = 0;

	ATF_REQUIRE(mnt_info_find(bind_over, "/home/dev/x", &dev, root,
	    sizeof(root)) == 0);
	ATF_CHECK(dev == makedev(254, 0));
	ATF_CHECK_STREQ(root, "/etc");
	ATF_REQUIRE(mnt_info_find(reordered, "/home/dev/x", &dev, root,
	    sizeof(root)) == 0);
	ATF_CHECK(dev == makedev(254, 0));
	ATF_CHECK_STREQ(root, "/etc");
	ATF_REQUIRE(mnt_info_find(parent_covered, "/home/dev/x", &dev, root,
	    sizeof(root)) == 0);
	ATF_CHECK(dev == makedev(254, 16));
	ATF_CHECK_STREQ(root, "/home/o/src/b");
	ATF_CHECK(mnt_info_find(bad_id, "/home/dev/x", &dev, root,
	    sizeof(root)) == -1);
}

ATF_TC_WITHOUT_HEAD(exposes);
ATF_TC_BODY(exposes, tc)
{
	static const struct mnt_guarded g[] = {
		{ "/home/o/.config/jailbee", "the suite's configuration",
		    NULL, NULL },
		{ "/home/o/.config/jailbee/authorized_keys", "the keys",
		    NULL, NULL },
		{ "/var/lib/jailbee", "the state directory", NULL, NULL },
		{ "/run/jailbee", "the socket's directory", NULL, NULL },
		{ "", NULL, "/var/lib/jailbee/mounts/shared", "agent-" },
		{ "", NULL, "/var/lib/jailbee/mounts/ssh", "ssh-shared" },
	};
	const size_t	ng = sizeof(g) / sizeof(g[0]);
	char		err[512];

	/* contains, is, lies inside: each named with what it is */
	ATF_CHECK(mnt_exposes("/home/o/.config", "host-0", g, ng, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "it contains /home/o/.config/jailbee, the "
	    "suite's configuration: a container must not read or change the "
	    "suite's own files; mount a directory that holds none of them");
	ATF_CHECK(mnt_exposes("/home/o", "host-0", g, ng, err,
	    sizeof(err)) == -1);
	ATF_CHECK(mnt_exposes("/", "host-0", g, ng, err, sizeof(err)) == -1);
	ATF_CHECK(mnt_exposes("/home/o/.config/jailbee/authorized_keys",
	    "optional-k", g, ng, err, sizeof(err)) == -1);
	/* the closest relation is the one named */
	ATF_CHECK(strstr(err, "it is /home/o/.config/jailbee/authorized_keys"
	    ", the keys") == err);
	ATF_CHECK(mnt_exposes("/home/o/.config/jailbee/x", "host-0", g, ng,
	    err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "it lies inside /home/o/.config/jailbee, ") ==
	    err);
	ATF_CHECK(mnt_exposes("/run/jailbee", "optional-s", g, ng, err,
	    sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "it is /run/jailbee, the socket's") == err);
	ATF_CHECK(mnt_exposes("/var/lib", "host-1", g, ng, err,
	    sizeof(err)) == -1);
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/netd", "host-1", g, ng, err,
	    sizeof(err)) == -1);
	/* a name that only starts the same is another directory */
	ATF_CHECK(mnt_exposes("/home/o/.config/jailbee2", "host-0", g, ng,
	    err, sizeof(err)) == 0);
	ATF_CHECK(mnt_exposes("/run/jailbee-other", "host-0", g, ng, err,
	    sizeof(err)) == 0);
	ATF_CHECK(mnt_exposes("/home/o/src", "host-0", g, ng, err,
	    sizeof(err)) == 0);
	/* the suite's shared directories, to their own devices alone */
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/mounts/shared/p/claude",
	    "agent-claude-0", g, ng, err, sizeof(err)) == 0);
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/mounts/ssh/p", "ssh-shared",
	    g, ng, err, sizeof(err)) == 0);
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/mounts/shared/p/claude",
	    "host-0", g, ng, err, sizeof(err)) == -1);
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/mounts/ssh/p",
	    "agent-claude-0", g, ng, err, sizeof(err)) == -1);
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/mounts/shared", "agent-a-0",
	    g, ng, err, sizeof(err)) == -1);
	ATF_CHECK(mnt_exposes("/var/lib/jailbee/mounts", "ssh-shared", g, ng,
	    err, sizeof(err)) == -1);
}

ATF_TC_WITHOUT_HEAD(deadline_math);
ATF_TC_BODY(deadline_math, tc)
{
	char	b[32];

	/* --for wins over everything */
	ATF_CHECK(mnt_deadline(1000, 60, 0, 900, 1, 3600) == 1060);
	/* --no-revert: none, whatever the entry and the policy say */
	ATF_CHECK(mnt_deadline(1000, 0, 1, 900, 1, 3600) == 0);
	/* the entry's auto_unmount_after before the policy */
	ATF_CHECK(mnt_deadline(1000, 0, 0, 900, 1, 3600) == 1900);
	ATF_CHECK(mnt_deadline(1000, 0, 0, 900, 0, 3600) == 1900);
	ATF_CHECK(mnt_deadline(1000, 0, 0, 0, 1, 3600) == 4600);
	/* a disabled policy gives no default; --for is still honoured */
	ATF_CHECK(mnt_deadline(1000, 0, 0, 0, 0, 3600) == 0);
	ATF_CHECK(mnt_deadline(1000, 30, 0, 0, 0, 3600) == 1030);

	ATF_CHECK_STREQ(mnt_left(0, 5, b, sizeof(b)), "\xe2\x88\x9e");
	ATF_CHECK_STREQ(mnt_left(100, 100, b, sizeof(b)), "0s");
	ATF_CHECK_STREQ(mnt_left(100, 200, b, sizeof(b)), "0s");
	ATF_CHECK_STREQ(mnt_left(140, 100, b, sizeof(b)), "40s");
	ATF_CHECK_STREQ(mnt_left(100 + 12 * 60, 100, b, sizeof(b)), "12m");
	ATF_CHECK_STREQ(mnt_left(100 + 11 * 60 + 1, 100, b, sizeof(b)),
	    "12m");
	ATF_CHECK_STREQ(mnt_left(100 + 60, 100, b, sizeof(b)), "1m");
	ATF_CHECK_STREQ(mnt_left(100 + 3600 + 5 * 60, 100, b, sizeof(b)),
	    "1h05m");
	ATF_CHECK_STREQ(mnt_left(100 + 24 * 3600, 100, b, sizeof(b)),
	    "24h00m");
	/* never "60m": an hour less a second is 1h00m */
	ATF_CHECK_STREQ(mnt_left(100 + 3599, 100, b, sizeof(b)), "1h00m");
	ATF_CHECK_STREQ(mnt_left(100 + 3540, 100, b, sizeof(b)), "59m");
	ATF_CHECK_STREQ(mnt_left(100 + 3601, 100, b, sizeof(b)), "1h01m");
}

ATF_TC_WITHOUT_HEAD(deadline_file);
ATF_TC_BODY(deadline_file, tc)
{
	struct jb_mount_deadline	d, back;
	char				line[256], err[128];
	static const char *const bad[] = {
		"", "c1", "c1 aws", "c1 aws ", "c1 aws 0", "c1 aws -5",
		"c1 aws 12x", "c1 Aws 12", "C1 aws 12", "c1  aws 12",
		"c1 aws 12 extra", "c1 a/b 12", "c1 aws 99999999999999999999",
		"c1 aws 012",
	};
	size_t				i;

	memset(&d, 0, sizeof(d));
	strlcpy(d.name, "jbt1-feat-x", sizeof(d.name));
	strlcpy(d.kind, "aws", sizeof(d.kind));
	d.until = 1764500000;
	ATF_REQUIRE(mnt_deadline_fmt(&d, line, sizeof(line)) > 0);
	ATF_CHECK_STREQ(line, "jbt1-feat-x aws 1764500000\n");
	line[strlen(line) - 1] = '\0';
	ATF_REQUIRE(mnt_deadline_parse(line, &back, err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(back.name, d.name);
	ATF_CHECK_STREQ(back.kind, d.kind);
	ATF_CHECK(back.until == d.until);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_MSG(mnt_deadline_parse(bad[i], &back, err,
		    sizeof(err)) == -1, "\"%s\" accepted", bad[i]);
}

ATF_TC_WITHOUT_HEAD(mount_roots);
ATF_TC_BODY(mount_roots, tc)
{
	const struct mnt_root	roots[] = {
		{ "/srv/data", 1 }, { "/srv/rw", 0 }, { "/home/u/creds", 1 },
	};
	const char *const	none[] = { NULL };
	const char *const	cover[] = { "/home/u/work", "/home/u" };
	const char *const	beside[] = { "/home/u/cred", "/home/u/creds/x",
				    "/srv/rw-other" };
	const char		*src = NULL;
	char			 err[512];
	int			 ro = -1;

	/* exact equality only: no subdirectory, no prefix */
	ATF_CHECK(mnt_roots_decide("/srv/data", 0, roots, 3, none, 0, &src,
	    &ro, err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(src, "/srv/data");
	ATF_CHECK(ro == 1);		/* the root says read-only */
	ATF_CHECK(mnt_roots_decide("/srv/rw", 0, roots, 3, none, 0, &src,
	    &ro, err, sizeof(err)) == 0);
	ATF_CHECK(ro == 0);		/* both allow writing */
	ATF_CHECK(mnt_roots_decide("/srv/rw", 1, roots, 3, none, 0, &src,
	    &ro, err, sizeof(err)) == 0);
	ATF_CHECK(ro == 1);		/* the entry says read-only */
	ATF_CHECK(mnt_roots_decide("/srv/data/sub", 0, roots, 3, none, 0,
	    &src, &ro, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "exact match") != NULL);
	ATF_CHECK(mnt_roots_decide("/srv", 0, roots, 3, none, 0, &src, &ro,
	    err, sizeof(err)) == -1);
	ATF_CHECK(mnt_roots_decide("/srv/dat", 0, roots, 3, none, 0, &src,
	    &ro, err, sizeof(err)) == -1);
	/* another writable mount at or above the root refuses it */
	ATF_CHECK(mnt_roots_decide("/home/u/creds", 1, roots, 3, cover, 2,
	    &src, &ro, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "/home/u, covers it") != NULL);
	ATF_CHECK(mnt_roots_decide("/home/u/creds", 1, roots, 3, cover + 1,
	    1, &src, &ro, err, sizeof(err)) == -1);
	ATF_CHECK(mnt_roots_decide("/home/u/creds", 1, roots, 3, beside, 3,
	    &src, &ro, err, sizeof(err)) == 0);
	{
		const char *const same[] = { "/home/u/creds" };
		const char *const root[] = { "/" };

		ATF_CHECK(mnt_roots_decide("/home/u/creds", 1, roots, 3,
		    same, 1, &src, &ro, err, sizeof(err)) == -1);
		ATF_CHECK(mnt_roots_decide("/home/u/creds", 1, roots, 3,
		    root, 1, &src, &ro, err, sizeof(err)) == -1);
	}
	{
		const struct mnt_root twice[] = { { "/a", 1 }, { "/a", 0 } };

		ATF_CHECK(mnt_roots_decide("/a", 1, twice, 2, none, 0, &src,
		    &ro, err, sizeof(err)) == -1);
		ATF_CHECK(strstr(err, "listed twice") != NULL);
	}
}

static void
clean_is(const char *in, const char *want)
{
	char	out[64], err[256] = "";

	ATF_CHECK_MSG(mnt_clean(in, out, sizeof(out), err, sizeof(err)) == 0,
	    "%s refused: %s", in, err);
	ATF_CHECK_MSG(strcmp(out, want) == 0, "%s: \"%s\", not \"%s\"", in,
	    out, want);
}

static void
clean_bad(const char *in, const char *want)
{
	char	out[64], err[256] = "";

	ATF_CHECK_MSG(mnt_clean(in, out, sizeof(out), err, sizeof(err)) ==
	    -1, "%s accepted as %s", in, out);
	ATF_CHECK_MSG(strstr(err, want) != NULL, "%s: \"%s\" lacks \"%s\"",
	    in, err, want);
}

/* the configured path, made canonical without lookups */
ATF_TC_WITHOUT_HEAD(clean);
ATF_TC_BODY(clean, tc)
{
	clean_is("/home/u/work", "/home/u/work");
	clean_is("/home/u/work/", "/home/u/work");
	clean_is("//home//u/./work/.", "/home/u/work");
	clean_is("/", "/");
	clean_is("/./", "/");
	clean_is("/a/.hidden/..x/x..", "/a/.hidden/..x/x..");
	clean_bad("/home/u/work/../secret", "has a \"..\" part");
	clean_bad("/..", "has a \"..\" part");
	clean_bad("/home/u/..", "\"..\"");
	clean_bad("home/u", "not absolute");
	clean_bad("/0123456789012345678901234567890123456789/"
	    "01234567890123456789012", "too long");
}

static int
overlap(const struct mnt_src *s, const struct mnt_src *o, size_t n,
    char *err, size_t errlen)
{
	err[0] = '\0';
	return mnt_overlap(s, o, n, err, errlen);
}

/* no two mounts overlap where either is read-write */
ATF_TC_WITHOUT_HEAD(overlaps);
ATF_TC_BODY(overlaps, tc)
{
	const struct mnt_src	attached[] = {
		{ "/home/u/work", "a", "host-0", "a-one", 0 },
		{ "/home/u/docs", "a", "host-1", "a-one", 1 },
		{ "/home/u/src/repo", "a", "host-source", "a-one", 1 },
	};
	struct mnt_src		s;
	char			err[1024];

	/* the reproduction: ~/work/cache read-only in ~/work rw */
	s = (struct mnt_src){ "/home/u/work/cache", "a", "host-1", "a-two",
	    1 };
	ATF_CHECK(overlap(&s, attached, 3, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "it is inside /home/u/work, the source of "
	    "host-0 on a-one (read-write)") != NULL, "%s", err);
	/* the other way round: a read-write mount containing another */
	s = (struct mnt_src){ "/home/u", "b", "host-0", "b-one", 0 };
	ATF_CHECK(overlap(&s, attached + 1, 1, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "it contains /home/u/docs, the source of "
	    "host-1 on a-one (read-only; this one is read-write)") != NULL,
	    "%s", err);
	/* read-only containing read-write: refused too (any order) */
	s = (struct mnt_src){ "/home/u", "b", "host-0", "b-one", 1 };
	ATF_CHECK(overlap(&s, attached, 1, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "contains /home/u/work") != NULL);
	/* equal, another repo or another entry */
	s = (struct mnt_src){ "/home/u/work", "b", "host-0", "b-one", 1 };
	ATF_CHECK(overlap(&s, attached, 3, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "is the same path as /home/u/work") != NULL);
	s = (struct mnt_src){ "/home/u/work", "a", "optional-x", "a-one",
	    0 };
	ATF_CHECK(overlap(&s, attached, 3, err, sizeof(err)) == -1);
	/* a read-write source inside a read-only one is refused too */
	s = (struct mnt_src){ "/home/u/docs/out", "c", "host-0", "c-one",
	    0 };
	ATF_CHECK(overlap(&s, attached, 3, err, sizeof(err)) == -1);
	ATF_CHECK(strstr(err, "is inside /home/u/docs") != NULL);
	/* "/" contains everything */
	s = (struct mnt_src){ "/", "c", "host-0", "c-one", 1 };
	ATF_CHECK(overlap(&s, attached, 1, err, sizeof(err)) == -1);

	/* allowed: the same entry on another container of the repo */
	s = (struct mnt_src){ "/home/u/work", "a", "host-0", "a-two", 0 };
	ATF_CHECK_MSG(overlap(&s, attached, 3, err, sizeof(err)) == 0, "%s",
	    err);
	/* the checkout read-only and, in --mount mode, read-write */
	s = (struct mnt_src){ "/home/u/src/repo", "a", "host-repo-rw",
	    "a-m", 0 };
	ATF_CHECK_MSG(overlap(&s, attached, 3, err, sizeof(err)) == 0, "%s",
	    err);
	/* but another repo's read-write checkout is another mount */
	s = (struct mnt_src){ "/home/u/src/repo", "b", "host-repo-rw",
	    "b-m", 0 };
	ATF_CHECK(overlap(&s, attached, 3, err, sizeof(err)) == -1);
	/* both read-only: nothing can be planted */
	s = (struct mnt_src){ "/home/u/docs/sub", "c", "host-0", "c-one", 1 };
	ATF_CHECK(overlap(&s, attached + 1, 2, err, sizeof(err)) == 0);
	/* beside, not inside: a shared prefix of characters only */
	s = (struct mnt_src){ "/home/u/workshop", "c", "host-0", "c-one", 0 };
	ATF_CHECK_MSG(overlap(&s, attached, 3, err, sizeof(err)) == 0, "%s",
	    err);
	s = (struct mnt_src){ "/home/u/wor", "c", "host-0", "c-one", 0 };
	ATF_CHECK(overlap(&s, attached, 3, err, sizeof(err)) == 0);
	ATF_CHECK(overlap(&s, NULL, 0, err, sizeof(err)) == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, targets);
	ATF_TP_ADD_TC(tp, expand_and_kinds);
	ATF_TP_ADD_TC(tp, mountinfo);
	ATF_TP_ADD_TC(tp, mountinfo_stacked);
	ATF_TP_ADD_TC(tp, exposes);
	ATF_TP_ADD_TC(tp, deadline_math);
	ATF_TP_ADD_TC(tp, deadline_file);
	ATF_TP_ADD_TC(tp, mount_roots);
	ATF_TP_ADD_TC(tp, clean);
	ATF_TP_ADD_TC(tp, overlaps);
	return atf_no_error();
}
