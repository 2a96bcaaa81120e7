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
 * gitpacks: the objects a fetch brought, counted from the pack indexes
 * that are new in the pack directory, and the tmp_* files an interrupted
 * fetch left, removed when new.
 */

#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "gitpacks.h"

static void
put32(unsigned char *b, uint32_t v)
{
	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

/* an index of version 2 (or 1) whose fan-out says n objects */
static void
idx(const char *path, int version, uint32_t n)
{
	unsigned char	 b[8 + 256 * 4 + 64];
	size_t		 off = 0, i;
	int		 fd;

	memset(b, 0, sizeof(b));
	if (version == 2) {
		memcpy(b, "\377tOc", 4);
		put32(b + 4, 2);
		off = 8;
	}
	for (i = 0; i < 256; i++)
		put32(b + off + i * 4, i == 255 ? n : (uint32_t)(n * i / 256));
	ATF_REQUIRE((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) !=
	    -1);
	ATF_REQUIRE(write(fd, b, off + 256 * 4 + 64) ==
	    (ssize_t)(off + 256 * 4 + 64));
	close(fd);
}

static void
touch(const char *path)
{
	int	fd;

	ATF_REQUIRE((fd = open(path, O_WRONLY | O_CREAT, 0644)) != -1);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(new_indexes);
ATF_TC_BODY(new_indexes, tc)
{
	struct gitpacks	before;

	ATF_REQUIRE(mkdir("pack", 0755) == 0);
	idx("pack/pack-old.idx", 2, 500);
	touch("pack/pack-old.pack");
	ATF_REQUIRE(gitpacks_scan(&before, "pack") == 0);
	ATF_CHECK_EQ(before.n, 1);
	ATF_CHECK_EQ(gitpacks_new_objects(&before), 0);
	/* one fetch: its pack counts, the old one does not */
	idx("pack/pack-new.idx", 2, 3);
	ATF_CHECK_EQ(gitpacks_new_objects(&before), 3);
	/* a version 1 index beside it */
	idx("pack/pack-v1.idx", 1, 40);
	ATF_CHECK_EQ(gitpacks_new_objects(&before), 43);
	gitpacks_free(&before);
}

ATF_TC_WITHOUT_HEAD(not_indexes);
ATF_TC_BODY(not_indexes, tc)
{
	struct gitpacks	before;
	int		fd;

	ATF_REQUIRE(mkdir("pack", 0755) == 0);
	ATF_REQUIRE(gitpacks_scan(&before, "pack") == 0);
	/* a symlink is not followed, however it is named */
	idx("real.idx", 2, 7);
	ATF_REQUIRE(symlink("../real.idx", "pack/pack-link.idx") == 0);
	/* too short, an unknown version, a directory: nothing counted */
	ATF_REQUIRE((fd = open("pack/pack-short.idx", O_WRONLY | O_CREAT,
	    0644)) != -1);
	ATF_REQUIRE(write(fd, "\377tOc\0\0\0\2", 8) == 8);
	close(fd);
	idx("pack/pack-v3.idx", 2, 9);
	ATF_REQUIRE((fd = open("pack/pack-v3.idx", O_WRONLY)) != -1);
	ATF_REQUIRE(pwrite(fd, "\0\0\0\3", 4, 4) == 4);
	close(fd);
	ATF_REQUIRE(mkdir("pack/pack-dir.idx", 0755) == 0);
	ATF_CHECK_EQ(gitpacks_new_objects(&before), 0);
	gitpacks_free(&before);
	/* a directory that is not there */
	ATF_CHECK_EQ(gitpacks_scan(&before, "nope"), -1);
	ATF_CHECK_EQ(before.dir[0], '\0');
	ATF_CHECK_EQ(gitpacks_new_objects(&before), 0);
}

ATF_TC_WITHOUT_HEAD(clean_new_tmp);
ATF_TC_BODY(clean_new_tmp, tc)
{
	struct gitpacks	before;
	struct stat	st;

	ATF_REQUIRE(mkdir("pack", 0755) == 0);
	touch("pack/tmp_pack_old");
	touch("pack/pack-a.pack");
	ATF_REQUIRE(gitpacks_scan(&before, "pack") == 0);
	touch("pack/tmp_pack_new");
	touch("pack/tmp_idx_new");
	touch("pack/pack-b.pack");
	gitpacks_clean(&before);
	ATF_CHECK(stat("pack/tmp_pack_new", &st) == -1);
	ATF_CHECK(stat("pack/tmp_idx_new", &st) == -1);
	/* what was there before, and what is not a tmp_ file, stays */
	ATF_CHECK(stat("pack/tmp_pack_old", &st) == 0);
	ATF_CHECK(stat("pack/pack-a.pack", &st) == 0);
	ATF_CHECK(stat("pack/pack-b.pack", &st) == 0);
	gitpacks_free(&before);
}

ATF_TC_WITHOUT_HEAD(many_packs);
ATF_TC_BODY(many_packs, tc)
{
	struct gitpacks	before;
	char		name[64];
	int		i;

	/* a checkout fetched into a thousand times keeps a pack each time */
	ATF_REQUIRE(mkdir("pack", 0755) == 0);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "pack/pack-%04d.idx", i);
		idx(name, 2, 1);
	}
	ATF_REQUIRE(gitpacks_scan(&before, "pack") == 0);
	ATF_CHECK_EQ(before.n, 1000);
	idx("pack/pack-0500x.idx", 2, 2);
	ATF_CHECK_EQ(gitpacks_new_objects(&before), 2);
	gitpacks_free(&before);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, new_indexes);
	ATF_TP_ADD_TC(tp, not_indexes);
	ATF_TP_ADD_TC(tp, clean_new_tmp);
	ATF_TP_ADD_TC(tp, many_packs);
	return atf_no_error();
}
