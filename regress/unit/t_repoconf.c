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
 * The repository configuration (repoconf.c): every key, the defaults,
 * the layering rules, where github.token may live, the file paths, the
 * permission warning and the template.  Refusals are checked by their
 * exact message, and a refused layer must leave the struct as it was.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "ctrlimits.h"
#include "repoconf.h"
#include "repoconf_autostart.h"

#define G	RC_LAYER_GLOBAL
#define R	RC_LAYER_REPO
#define L	RC_LAYER_LOCAL
#define LOCAL	"/h/.config/jailbee/repos/proj.yaml"

static const char *
layer_name(enum repoconf_layer layer)
{
	switch (layer) {
	case RC_LAYER_GLOBAL:
		return "global.yaml";
	case RC_LAYER_REPO:
		return "config.yaml";
	case RC_LAYER_LOCAL:
		return "local.yaml";
	}
	return "?";
}

static void
fresh(struct repoconf *c)
{
	repoconf_init(c);
	(void)strlcpy(c->paths.local, LOCAL, sizeof(c->paths.local));
}

/* apply yaml on top of *c as layer; it must be accepted */
static void
apply_ok(int line, enum repoconf_layer layer, const char *yaml,
    struct repoconf *c)
{
	char	err[RC_ERR_MAX] = "";

	ATF_CHECK_MSG(repoconf_parse_layer(layer, layer_name(layer), yaml,
	    strlen(yaml), c, err, sizeof(err)) == 0, "line %d: refused: %s",
	    line, err);
}
#define OK(layer, yaml, c)	apply_ok(__LINE__, (layer), (yaml), (c))

/* on top of a struct already holding a layer: exact message, untouched */
static void
apply_bad(int line, enum repoconf_layer layer, const char *yaml,
    const char *want)
{
	struct repoconf	c, before;
	char		err[RC_ERR_MAX] = "";

	fresh(&c);
	apply_ok(line, RC_LAYER_REPO, "egress_allow: [a.example]\n"
	    "container:\n  env: {A: b}\nhost_mounts: [{host: /a, "
	    "container: /b}]\ndefaults: {cpu: 3}\n", &c);
	before = c;
	ATF_CHECK_MSG(repoconf_parse_layer(layer, layer_name(layer), yaml,
	    strlen(yaml), &c, err, sizeof(err)) == -1, "line %d: accepted",
	    line);
	ATF_CHECK_MSG(strcmp(err, want) == 0, "line %d:\n got: %s\nwant: %s",
	    line, err, want);
	ATF_CHECK_MSG(memcmp(&c, &before, sizeof(c)) == 0,
	    "line %d: a refused layer changed the struct", line);
	repoconf_free(&c);
}
#define BAD(layer, yaml, want)	apply_bad(__LINE__, (layer), (yaml), (want))

/* got starts with want (the rest is checked elsewhere) */
#define CHECK_PREFIX(want, got, unused) \
	ATF_CHECK_MSG(strncmp((got), (want), strlen(want)) == 0, \
	    "got:\n%s\nwant a start of:\n%s", (got), (want))

static void
finish_ok(int line, struct repoconf *c)
{
	char	err[RC_ERR_MAX] = "";

	ATF_CHECK_MSG(repoconf_finish(c, "/src/proj", 1000, 1001, err,
	    sizeof(err)) == 0, "line %d: %s", line, err);
}
#define FINISH(c)	finish_ok(__LINE__, (c))

static char *
dump(const struct repoconf *c)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp;

	ATF_REQUIRE((fp = open_memstream(&buf, &len)) != NULL);
	ATF_REQUIRE(repoconf_dump(c, fp) == 0);
	ATF_REQUIRE(fclose(fp) == 0);
	return buf;
}

static void
write_file(const char *path, const char *data, mode_t mode)
{
	int	fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ATF_REQUIRE_MSG(fd != -1, "%s: %s", path, strerror(errno));
	ATF_REQUIRE((size_t)write(fd, data, strlen(data)) == strlen(data));
	ATF_REQUIRE(fchmod(fd, mode) == 0);
	ATF_REQUIRE(close(fd) == 0);
}

static void
mkdirs(const char *path)
{
	char	tmp[PATH_MAX], *p;

	(void)strlcpy(tmp, path, sizeof(tmp));
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ATF_REQUIRE(mkdir(tmp, 0700) == 0 || errno == EEXIST);
		*p = '/';
	}
	ATF_REQUIRE(mkdir(tmp, 0700) == 0 || errno == EEXIST);
}

/* snprintf into an array, which must hold it all */
#define JOIN(buf, ...)	ATF_REQUIRE((size_t)snprintf((buf), sizeof(buf), \
			    __VA_ARGS__) < sizeof(buf))

/* the test's work directory, absolute, joined with rel */
static void
here(const char *rel, char *out, size_t len)
{
	char	cwd[PATH_MAX];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	ATF_REQUIRE((size_t)snprintf(out, len, "%s/%s", cwd, rel) < len);
}

ATF_TC_WITHOUT_HEAD(defaults);
ATF_TC_BODY(defaults, tc)
{
	struct repoconf	c;
	char		err[RC_ERR_MAX];

	repoconf_init(&c);
	ATF_CHECK_EQ(c.loose_auto_revert.enabled, RC_UNSET);
	ATF_CHECK_EQ(c.mount_auto_revert.enabled, RC_UNSET);
	ATF_CHECK_EQ(c.effective, 0);
	ATF_REQUIRE_MSG(repoconf_finish(&c, "/src/My Repo.git/", 1000, 1001,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.effective, 1);
	ATF_CHECK_STREQ("/src/My Repo.git/", c.repo_root);
	ATF_CHECK_STREQ("my-repo-git", c.container_prefix);
	ATF_CHECK_EQ(c.container_uid, 1000);
	ATF_CHECK_EQ(c.container_gid, 1001);
	ATF_CHECK_EQ(c.env.n, 0);
	ATF_CHECK_EQ(c.host_mounts.n, 0);
	ATF_CHECK_EQ(c.egress_allow.n, 0);
	ATF_CHECK_STREQ("strict", c.network);
	ATF_CHECK_STREQ(RC_DEF_MEMORY, c.memory);
	ATF_CHECK_EQ(c.cpu, 0);
	ATF_CHECK_EQ(c.cpu_pct, RC_DEF_CPU_PCT);
	ATF_CHECK_EQ(c.processes, RC_DEF_PROCESSES);
	ATF_CHECK_STREQ(RC_DEF_DISK, c.disk);
	ATF_CHECK_EQ(c.loose_auto_revert.enabled, 1);
	ATF_CHECK_EQ(c.loose_auto_revert.after, 300);
	ATF_CHECK_EQ(c.mount_auto_revert.enabled, 1);
	ATF_CHECK_EQ(c.mount_auto_revert.after, 3600);
	ATF_CHECK_STREQ("", c.github_token);
	ATF_CHECK_STREQ("jailbee-base", c.base_alias);
	ATF_CHECK_STREQ("", c.base_packages);
	ATF_CHECK_STREQ("", c.warning);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(every_key);
ATF_TC_BODY(every_key, tc)
{
	struct repoconf	c;

	fresh(&c);
	OK(R,
	    "container_prefix: web-2\n"
	    "container_user: {uid: 2000, gid: 2147483646}\n"
	    "container:\n"
	    "  env:\n"
	    "    EDITOR: vim\n"
	    "    _X9: 'two words'\n"
	    "    N: 42\n"
	    "    EMPTY: ''\n"
	    "host_mounts:\n"
	    "  - host: ~/.m2\n"
	    "    container: /home/dev/.m2\n"
	    "  - host: /srv/data\n"
	    "    container: /data\n"
	    "    readonly: true\n"
	    "egress_allow: [github.com:443, 10.0.0.0/8, '*.npmjs.org']\n"
	    "defaults: {network: loose, memory: 512MiB, cpu: 2}\n"
	    "new: {clone_from: local, autofetch: no}\n"
	    "loose_auto_revert: {enabled: false, after: 30s}\n"
	    "mount_auto_revert: {enabled: true, after: 1h30m}\n"
	    "base: {alias: web.base_1}\n", &c);
	OK(L, "github:\n  token: ghp_ABCdef123_x\n", &c);
	ATF_CHECK_STREQ("web-2", c.container_prefix);
	ATF_CHECK_EQ(c.container_uid, 2000);
	ATF_CHECK_EQ(c.container_gid, 2147483646);
	ATF_REQUIRE_EQ(c.env.n, 4);
	ATF_CHECK_STREQ("EDITOR", c.env.v[0].name);
	ATF_CHECK_STREQ("vim", c.env.v[0].value);
	ATF_CHECK_STREQ("_X9", c.env.v[1].name);
	ATF_CHECK_STREQ("two words", c.env.v[1].value);
	ATF_CHECK_STREQ("N", c.env.v[2].name);
	ATF_CHECK_STREQ("42", c.env.v[2].value);
	ATF_CHECK_STREQ("EMPTY", c.env.v[3].name);
	ATF_CHECK_STREQ("", c.env.v[3].value);
	ATF_REQUIRE_EQ(c.host_mounts.n, 2);
	ATF_CHECK_STREQ("~/.m2", c.host_mounts.v[0].host);
	ATF_CHECK_STREQ("/home/dev/.m2", c.host_mounts.v[0].container);
	ATF_CHECK_EQ(c.host_mounts.v[0].readonly, 0);
	ATF_CHECK_STREQ("/srv/data", c.host_mounts.v[1].host);
	ATF_CHECK_STREQ("/data", c.host_mounts.v[1].container);
	ATF_CHECK_EQ(c.host_mounts.v[1].readonly, 1);
	ATF_REQUIRE_EQ(c.egress_allow.n, 3);
	ATF_CHECK_STREQ("github.com:443", c.egress_allow.v[0]);
	ATF_CHECK_STREQ("10.0.0.0/8", c.egress_allow.v[1]);
	ATF_CHECK_STREQ("*.npmjs.org", c.egress_allow.v[2]);
	ATF_CHECK_STREQ("loose", c.network);
	ATF_CHECK_STREQ("512MiB", c.memory);
	ATF_CHECK_EQ(c.cpu, 2);
	ATF_CHECK_EQ(c.loose_auto_revert.enabled, 0);
	ATF_CHECK_EQ(c.loose_auto_revert.after, 30);
	ATF_CHECK_EQ(c.mount_auto_revert.enabled, 1);
	ATF_CHECK_EQ(c.mount_auto_revert.after, 5400);
	ATF_CHECK_STREQ("web.base_1", c.base_alias);
	ATF_CHECK_STREQ("ghp_ABCdef123_x", c.github_token);

	/* finishing keeps every value a layer set */
	FINISH(&c);
	ATF_CHECK_STREQ("web-2", c.container_prefix);
	ATF_CHECK_EQ(c.container_uid, 2000);
	ATF_CHECK_EQ(c.loose_auto_revert.enabled, 0);
	ATF_CHECK_STREQ("web.base_1", c.base_alias);
	repoconf_free(&c);

	/* the other spellings each key takes */
	fresh(&c);
	OK(G, "defaults: {memory: 50%, cpu: 1024}\n"
	    "loose_auto_revert: {after: 24h}\n"
	    "mount_auto_revert: {after: 90}\n"
	    "container_prefix: 0\n", &c);
	ATF_CHECK_STREQ("50%", c.memory);
	ATF_CHECK_EQ(c.cpu, 1024);
	ATF_CHECK_EQ(c.loose_auto_revert.after, 86400);
	ATF_CHECK_EQ(c.mount_auto_revert.after, 5400);
	ATF_CHECK_STREQ("0", c.container_prefix);
	OK(G, "defaults: {memory: 1B}\ncontainer_prefix: "
	    "a234567890123456789012345678901234567890\n", &c);
	ATF_CHECK_STREQ("1B", c.memory);
	ATF_CHECK_STREQ("a234567890123456789012345678901234567890",
	    c.container_prefix);
	repoconf_free(&c);
}

/*
 * defaults.memory, cpu, processes and disk: each form, the layering of
 * cpu's two forms, and the pure checks jb-incus shares (ctrlimits.h).
 */
ATF_TC_WITHOUT_HEAD(container_limits);
ATF_TC_BODY(container_limits, tc)
{
	struct repoconf	c;
	int		count, pct;

	fresh(&c);
	OK(G, "defaults: {memory: 2GiB, cpu: 25%, processes: 500, "
	    "disk: 8GiB}\n", &c);
	ATF_CHECK_STREQ("2GiB", c.memory);
	ATF_CHECK_EQ(c.cpu, 0);
	ATF_CHECK_EQ(c.cpu_pct, 25);
	ATF_CHECK_EQ(c.processes, 500);
	ATF_CHECK_STREQ("8GiB", c.disk);
	/* a count in a later layer replaces a share, and back */
	OK(R, "defaults: {cpu: 3}\n", &c);
	ATF_CHECK_EQ(c.cpu, 3);
	ATF_CHECK_EQ(c.cpu_pct, 0);
	OK(L, "defaults: {cpu: '100%'}\n", &c);
	ATF_CHECK_EQ(c.cpu, 0);
	ATF_CHECK_EQ(c.cpu_pct, 100);
	/* null: the built-in default again */
	OK(L, "defaults: {cpu: null, memory: null, processes: null, "
	    "disk: null}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(c.cpu_pct, RC_DEF_CPU_PCT);
	ATF_CHECK_STREQ(RC_DEF_MEMORY, c.memory);
	ATF_CHECK_EQ(c.processes, RC_DEF_PROCESSES);
	ATF_CHECK_STREQ(RC_DEF_DISK, c.disk);
	repoconf_free(&c);

	ATF_CHECK(lim_size_ok("512MiB", 0));
	ATF_CHECK(lim_size_ok("25%", 1));
	ATF_CHECK(!lim_size_ok("25%", 0));
	ATF_CHECK(!lim_size_ok("0GiB", 0));
	ATF_CHECK(!lim_size_ok("lots", 1));
	ATF_CHECK(!lim_size_ok("", 1));
	ATF_CHECK(!lim_size_ok("1GiB ", 1));
	ATF_CHECK_EQ(lim_size_bytes("2GiB"), 2ULL << 30);
	ATF_CHECK_EQ(lim_size_bytes("3kB"), 3000ULL);
	ATF_CHECK_EQ(lim_size_bytes("999999999999999EiB"), 0ULL);
	ATF_CHECK(lim_count_ok("16", 16, 20));
	ATF_CHECK(!lim_count_ok("15", 16, 20));
	ATF_CHECK(!lim_count_ok("016", 16, 20));
	ATF_CHECK(!lim_count_ok("-1", 0, 20));
	ATF_CHECK(!lim_count_ok("1 ", 0, 20));
	ATF_CHECK(lim_cpu_parse("7", &count, &pct) == 0 && count == 7 &&
	    pct == 0);
	ATF_CHECK(lim_cpu_parse("50%", &count, &pct) == 0 && count == 0 &&
	    pct == 50);
	ATF_CHECK(lim_cpu_parse("0", &count, &pct) == -1);
	ATF_CHECK(lim_cpu_parse("0%", &count, &pct) == -1);
	ATF_CHECK(lim_cpu_parse("1025", &count, &pct) == -1);
	ATF_CHECK(lim_cpu_parse("2x", &count, &pct) == -1);
	/* half of 2 is 1, of 1 still 1, of 8 is 4 */
	ATF_CHECK_EQ(lim_cpu_share(50, 2), 1);
	ATF_CHECK_EQ(lim_cpu_share(50, 1), 1);
	ATF_CHECK_EQ(lim_cpu_share(50, 8), 4);
	ATF_CHECK_EQ(lim_cpu_share(100, 4096), LIM_CPU_MAX);
}

/*
 * defaults.storage_pool names the pool new containers' root disks go to;
 * unset, the default profile's pool is used (the field stays empty)
 */
ATF_TC_WITHOUT_HEAD(storage_pool);
ATF_TC_BODY(storage_pool, tc)
{
	struct repoconf		 c;

	fresh(&c);
	OK(G, "defaults: {memory: 1GiB}\n", &c);
	ATF_CHECK_STREQ("", c.storage_pool);
	OK(G, "defaults: {storage_pool: fast}\n", &c);
	ATF_CHECK_STREQ("fast", c.storage_pool);
	OK(R, "defaults: {storage_pool: zfs-pool_1.a}\n", &c);
	ATF_CHECK_STREQ("zfs-pool_1.a", c.storage_pool);
	repoconf_free(&c);
	BAD(R, "defaults: {storage_pool: ../default}\n",
	    "config.yaml:1: defaults.storage_pool: not a storage pool name (a "
	    "letter or digit, then letters, digits, -, _ or ., at most 63; "
	    "`incus storage list` names the pools)");
	BAD(R, "defaults: {storage_pool: -x}\n",
	    "config.yaml:1: defaults.storage_pool: not a storage pool name (a "
	    "letter or digit, then letters, digits, -, _ or ., at most 63; "
	    "`incus storage list` names the pools)");
	BAD(R, "defaults: {storage_pool: 'a b'}\n",
	    "config.yaml:1: defaults.storage_pool: not a storage pool name (a "
	    "letter or digit, then letters, digits, -, _ or ., at most 63; "
	    "`incus storage list` names the pools)");
}

ATF_TC_WITHOUT_HEAD(empty_layers);
ATF_TC_BODY(empty_layers, tc)
{
	static const char *const empties[] = { "", "# nothing\n", "---\n",
	    "~\n", "null\n", "container:\ndefaults:\nnew: null\n", NULL };
	struct repoconf		 c, before;
	size_t			 i;
	char			*s;

	for (i = 0; empties[i] != NULL; i++) {
		fresh(&c);
		before = c;
		OK(R, empties[i], &c);
		OK(L, empties[i], &c);
		ATF_CHECK_MSG(memcmp(&c, &before, sizeof(c)) == 0,
		    "%zu changed the struct", i);
		s = dump(&c);
		ATF_CHECK_STREQ("", s);
		free(s);
		repoconf_free(&c);
	}
}

ATF_TC_WITHOUT_HEAD(layer_scalars);
ATF_TC_BODY(layer_scalars, tc)
{
	struct repoconf	c;

	/* later wins, host-local last of all */
	fresh(&c);
	OK(G, "defaults: {cpu: 4, memory: 8GiB}\n", &c);
	OK(R, "defaults: {cpu: 2}\n", &c);
	ATF_CHECK_EQ(c.cpu, 2);
	ATF_CHECK_STREQ("8GiB", c.memory);
	OK(L, "defaults: {cpu: 6}\n", &c);
	ATF_CHECK_EQ(c.cpu, 6);
	FINISH(&c);
	ATF_CHECK_EQ(c.cpu, 6);
	ATF_CHECK_STREQ("8GiB", c.memory);
	repoconf_free(&c);

	/* null clears: the built-in default comes back */
	fresh(&c);
	OK(G, "container_prefix: from-global\n"
	    "container_user: {uid: 5, gid: 6}\n"
	    "defaults: {network: loose, memory: 1GiB, cpu: 3}\n"
	    "new: {clone_from: local, autofetch: false}\n"
	    "loose_auto_revert: {enabled: false, after: 1m}\n"
	    "mount_auto_revert: {enabled: false, after: 2m}\n"
	    "base: {alias: img}\n", &c);
	OK(R, "container_prefix: null\n"
	    "container_user: {uid: ~, gid: null}\n"
	    "defaults: {network: null, memory: null, cpu: null}\n"
	    "new: {clone_from: null, autofetch: null}\n"
	    "loose_auto_revert: {enabled: null, after: null}\n"
	    "mount_auto_revert: {enabled: null, after: null}\n"
	    "base: {alias: null}\n", &c);
	OK(L, "github: {token: abc}\n", &c);
	OK(L, "github: {token: null}\n", &c);
	FINISH(&c);
	ATF_CHECK_STREQ("proj", c.container_prefix);
	ATF_CHECK_EQ(c.container_uid, 1000);
	ATF_CHECK_EQ(c.container_gid, 1001);
	ATF_CHECK_STREQ("strict", c.network);
	ATF_CHECK_STREQ(RC_DEF_MEMORY, c.memory);
	ATF_CHECK_EQ(c.cpu, 0);
	ATF_CHECK_EQ(c.cpu_pct, RC_DEF_CPU_PCT);
	ATF_CHECK_EQ(c.processes, RC_DEF_PROCESSES);
	ATF_CHECK_STREQ(RC_DEF_DISK, c.disk);
	ATF_CHECK_EQ(c.loose_auto_revert.enabled, 1);
	ATF_CHECK_EQ(c.loose_auto_revert.after, 300);
	ATF_CHECK_EQ(c.mount_auto_revert.enabled, 1);
	ATF_CHECK_EQ(c.mount_auto_revert.after, 3600);
	ATF_CHECK_STREQ("jailbee-base", c.base_alias);
	ATF_CHECK_STREQ("", c.github_token);
	repoconf_free(&c);

	/* one image for all, until a repo adds packages of its own */
	fresh(&c);
	OK(R, "container_prefix: zz\n", &c);
	FINISH(&c);
	ATF_CHECK_STREQ("jailbee-base", c.base_alias);
	repoconf_free(&c);
	fresh(&c);
	OK(R, "container_prefix: zz\nbase: {packages: [docker.io]}\n", &c);
	FINISH(&c);
	ATF_CHECK_STREQ("zz-base", c.base_alias);
	ATF_CHECK_STREQ("docker.io", c.base_packages);
	repoconf_free(&c);
	fresh(&c);
	OK(R, "base: {alias: mine, packages: [g++]}\n", &c);
	FINISH(&c);
	ATF_CHECK_STREQ("mine", c.base_alias);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(base_packages);
ATF_TC_BODY(base_packages, tc)
{
	struct repoconf	c;

	/* a later layer adds, each name once; [] and null empty the list */
	fresh(&c);
	OK(G, "base: {packages: [build-essential, python3]}\n", &c);
	OK(R, "base:\n  packages:\n    - python3\n    - libc6-dev\n"
	    "    - python3.11\n", &c);
	ATF_CHECK_STREQ("build-essential python3 libc6-dev python3.11",
	    c.base_packages);
	OK(L, "base: {packages: []}\n", &c);
	ATF_CHECK_STREQ("", c.base_packages);
	OK(L, "base: {packages: [vim]}\n", &c);
	OK(L, "base: {packages: null}\n", &c);
	ATF_CHECK_STREQ("", c.base_packages);
	repoconf_free(&c);

	/* names that are no Debian package, or would be shell words */
	fresh(&c);
	BAD(R, "base: {packages: [\"a b\"]}\n",
	    "config.yaml:1: base.packages[0]: \"a b\" is not a Debian package "
	    "name (a-z, 0-9, +, -, ., from 2 to 100 characters, starting "
	    "with a letter or digit)");
	BAD(R, "base: {packages: [\"$(reboot)\"]}\n",
	    "config.yaml:1: base.packages[0]: \"$(reboot)\" is not a Debian package "
	    "name (a-z, 0-9, +, -, ., from 2 to 100 characters, starting "
	    "with a letter or digit)");
	BAD(R, "base: {packages: [Vim]}\n",
	    "config.yaml:1: base.packages[0]: \"Vim\" is not a Debian package "
	    "name (a-z, 0-9, +, -, ., from 2 to 100 characters, starting "
	    "with a letter or digit)");
	BAD(R, "base: {packages: [-x]}\n",
	    "config.yaml:1: base.packages[0]: \"-x\" is not a Debian package "
	    "name (a-z, 0-9, +, -, ., from 2 to 100 characters, starting "
	    "with a letter or digit)");
	BAD(R, "base: {packages: [x]}\n",
	    "config.yaml:1: base.packages[0]: \"x\" is not a Debian package "
	    "name (a-z, 0-9, +, -, ., from 2 to 100 characters, starting "
	    "with a letter or digit)");
	BAD(R, "base: {packages: [\"vim,curl\"]}\n",
	    "config.yaml:1: base.packages[0]: \"vim,curl\" is not a Debian package "
	    "name (a-z, 0-9, +, -, ., from 2 to 100 characters, starting "
	    "with a letter or digit)");
	BAD(R, "base: {packages: [true]}\n", "config.yaml:1: base.packages[0]: "
	    "expected a Debian package name, got a boolean");
	BAD(R, "base: {packages: vim}\n", "config.yaml:1: base.packages: expected "
	    "a sequence of Debian package names, got a string");
	BAD(R, "base: {packages: [[vim]]}\n", "config.yaml:1: base.packages[0]: "
	    "expected a Debian package name, got a sequence");
	repoconf_free(&c);

	ATF_CHECK(repoconf_valid_package("g++"));
	ATF_CHECK(repoconf_valid_package("0ad"));
	ATF_CHECK(repoconf_valid_package("libstdc++6"));
	ATF_CHECK(!repoconf_valid_package(""));
	ATF_CHECK(!repoconf_valid_package("a/b"));
	ATF_CHECK(!repoconf_valid_package(".x"));
}

ATF_TC_WITHOUT_HEAD(layer_lists);
ATF_TC_BODY(layer_lists, tc)
{
	struct repoconf	c;

	fresh(&c);
	OK(G, "egress_allow: [g1, g2]\n"
	    "host_mounts: [{host: /g, container: /g}]\n", &c);
	OK(R, "egress_allow: [r1]\n"
	    "host_mounts: [{host: /r, container: /r}]\n", &c);
	OK(L, "egress_allow: [l1]\n"
	    "host_mounts: [{host: /l, container: /l, readonly: yes}]\n", &c);
	ATF_REQUIRE_EQ(c.egress_allow.n, 4);
	ATF_CHECK_STREQ("g1", c.egress_allow.v[0]);
	ATF_CHECK_STREQ("g2", c.egress_allow.v[1]);
	ATF_CHECK_STREQ("r1", c.egress_allow.v[2]);
	ATF_CHECK_STREQ("l1", c.egress_allow.v[3]);
	ATF_CHECK(c.egress_allow.v[4] == NULL);
	ATF_REQUIRE_EQ(c.host_mounts.n, 3);
	ATF_CHECK_STREQ("/g", c.host_mounts.v[0].host);
	ATF_CHECK_STREQ("/r", c.host_mounts.v[1].host);
	ATF_CHECK_STREQ("/l", c.host_mounts.v[2].host);
	ATF_CHECK_EQ(c.host_mounts.v[2].readonly, 1);
	repoconf_free(&c);

	/* [] resets what earlier layers gave, then the next layer adds */
	fresh(&c);
	OK(G, "egress_allow: [g1]\nhost_mounts: [{host: /g, "
	    "container: /g}]\n", &c);
	OK(R, "egress_allow: []\nhost_mounts: []\n", &c);
	ATF_CHECK_EQ(c.egress_allow.n, 0);
	ATF_CHECK_EQ(c.host_mounts.n, 0);
	OK(L, "egress_allow: [l1]\nhost_mounts: [{host: /g, "
	    "container: /g}]\n", &c);
	ATF_REQUIRE_EQ(c.egress_allow.n, 1);
	ATF_CHECK_STREQ("l1", c.egress_allow.v[0]);
	ATF_CHECK_EQ(c.host_mounts.n, 1);
	/* so does null */
	OK(R, "egress_allow: null\nhost_mounts: ~\n", &c);
	ATF_CHECK_EQ(c.egress_allow.n, 0);
	ATF_CHECK_EQ(c.host_mounts.n, 0);
	/* and a key left out keeps them */
	OK(G, "egress_allow: [a]\nhost_mounts: [{host: /g, container: /g}]\n",
	    &c);
	OK(R, "defaults: {cpu: 1}\n", &c);
	ATF_CHECK_EQ(c.egress_allow.n, 1);
	ATF_CHECK_EQ(c.host_mounts.n, 1);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(layer_maps);
ATF_TC_BODY(layer_maps, tc)
{
	struct repoconf	c;

	/* container.env merges name by name */
	fresh(&c);
	OK(G, "container:\n  env: {A: g, B: g}\n", &c);
	OK(R, "container:\n  env: {B: r, C: r}\n", &c);
	OK(L, "container:\n  env: {C: l, D: l}\n", &c);
	ATF_REQUIRE_EQ(c.env.n, 4);
	ATF_CHECK_STREQ("A", c.env.v[0].name);
	ATF_CHECK_STREQ("g", c.env.v[0].value);
	ATF_CHECK_STREQ("B", c.env.v[1].name);
	ATF_CHECK_STREQ("r", c.env.v[1].value);
	ATF_CHECK_STREQ("C", c.env.v[2].name);
	ATF_CHECK_STREQ("l", c.env.v[2].value);
	ATF_CHECK_STREQ("D", c.env.v[3].name);
	ATF_CHECK_STREQ("l", c.env.v[3].value);
	/* NAME: null drops it; absent names are left alone */
	OK(R, "container:\n  env: {B: null, ZZ: ~}\n", &c);
	ATF_REQUIRE_EQ(c.env.n, 3);
	ATF_CHECK_STREQ("A", c.env.v[0].name);
	ATF_CHECK_STREQ("C", c.env.v[1].name);
	ATF_CHECK_STREQ("D", c.env.v[2].name);
	/* no bulk reset of a mapping: null and {} leave it */
	OK(R, "container:\n  env: null\n", &c);
	OK(R, "container:\n  env: {}\n", &c);
	OK(R, "container: null\n", &c);
	ATF_CHECK_EQ(c.env.n, 3);
	repoconf_free(&c);

	/* the auto-revert mappings merge field by field */
	fresh(&c);
	OK(G, "loose_auto_revert: {enabled: false, after: 10m}\n"
	    "mount_auto_revert: {enabled: false}\n"
	    "container_user: {uid: 7, gid: 8}\n", &c);
	OK(R, "loose_auto_revert: {after: 1h}\n"
	    "mount_auto_revert: {after: 2h}\n"
	    "container_user: {gid: 9}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(c.loose_auto_revert.enabled, 0);
	ATF_CHECK_EQ(c.loose_auto_revert.after, 3600);
	ATF_CHECK_EQ(c.mount_auto_revert.enabled, 0);
	ATF_CHECK_EQ(c.mount_auto_revert.after, 7200);
	ATF_CHECK_EQ(c.container_uid, 7);
	ATF_CHECK_EQ(c.container_gid, 9);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(github_token);
ATF_TC_BODY(github_token, tc)
{
	struct repoconf	c;
	char		err[RC_ERR_MAX];

	BAD(R, "defaults: {cpu: 1}\ngithub:\n  token: x\n",
	    "config.yaml:2: github: not allowed in this file: github settings "
	    "are the host's: github.token belongs in the host-local file "
	    LOCAL " (mode 0600), github.enabled there or in global.yaml");
	BAD(G, "github: {token: x}\n",
	    "global.yaml:1: github.token: not allowed in global.yaml: "
	    "github.token belongs in the host-local file " LOCAL " (mode "
	    "0600); global.yaml takes github.enabled and the legacy map "
	    "api_tokens: {PREFIX: TOKEN}");
	BAD(R, "github: null\n",
	    "config.yaml:1: github: not allowed in this file: github settings "
	    "are the host's: github.token belongs in the host-local file "
	    LOCAL " (mode 0600), github.enabled there or in global.yaml");
	BAD(R, "github: {enabled: true}\n",
	    "config.yaml:1: github: not allowed in this file: github settings "
	    "are the host's: github.token belongs in the host-local file "
	    LOCAL " (mode 0600), github.enabled there or in global.yaml");
	BAD(L, "github: {token: 'ghp_a b'}\n",
	    "local.yaml:1: github.token: not a GitHub token (letters, digits "
	    "and _ only)");
	BAD(L, "github: {token: \"x;rm -rf /\"}\n",
	    "local.yaml:1: github.token: not a GitHub token (letters, digits "
	    "and _ only)");
	BAD(L, "github: {token: 12}\n"
	    "github: {token: 13}\n",
	    "local.yaml:2: github: duplicate key (first on line 1)");
	BAD(L, "github: {user: x}\n",
	    "local.yaml:1: github.user: unknown key (known: enabled, token)");
	BAD(L, "github: {api_tokens: {proj: t}}\n",
	    "local.yaml:1: github.api_tokens: unknown key (known: enabled, "
	    "token)");
	BAD(G, "github: {enabled: maybe}\n",
	    "global.yaml:1: github.enabled: expected true or false, got a "
	    "string");
	BAD(G, "github: {api_tokens: {Proj: t}}\n",
	    "global.yaml:1: github.api_tokens.Proj: not a container prefix "
	    "([a-z0-9][a-z0-9-]*, at most 40 characters)");
	BAD(G, "github: {api_tokens: {proj: 'a;b'}}\n",
	    "global.yaml:1: github.api_tokens.proj: not a GitHub token "
	    "(letters, digits and _ only)");
	BAD(G, "github: {api_tokens: [proj]}\n",
	    "global.yaml:1: github.api_tokens: expected a mapping of container "
	    "prefix: token, got a sequence");
	BAD(L, "container_prefix: other\n",
	    "local.yaml:1: container_prefix: not allowed in the host-local "
	    "file, which is named after it: set it in .jailbee/config.yaml "
	    "or global.yaml");

	/* without the host-local path, the refusal names its pattern */
	repoconf_init(&c);
	ATF_CHECK(repoconf_parse_layer(R, "c.yaml", "github: {}\n", 11, &c,
	    err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("c.yaml:1: github: not allowed in this file: "
	    "github settings are the host's: github.token belongs in the "
	    "host-local file ${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/"
	    "<container_prefix>.yaml (mode 0600), github.enabled there or in "
	    "global.yaml", err);

	fresh(&c);
	OK(L, "github:\n  token: '0123456789abcdefABCDEF_'\n", &c);
	ATF_CHECK_STREQ("0123456789abcdefABCDEF_", c.github_token);
	repoconf_free(&c);
}

/* secrets: the host's files only, merged by name, never a value */
ATF_TC_WITHOUT_HEAD(secrets_where);
ATF_TC_BODY(secrets_where, tc)
{
	struct repoconf	c;
	char		*d;

	BAD(R, "secrets:\n  TOK: {file: /h/tok, hosts: [api.example.com]}\n",
	    "config.yaml:1: secrets: not allowed in the repo's config: secrets "
	    "are the host's: declare them in the host-local file " LOCAL
	    " (mode 0600) or in global.yaml");
	BAD(R, "secrets: null\n",
	    "config.yaml:1: secrets: not allowed in the repo's config: secrets "
	    "are the host's: declare them in the host-local file " LOCAL
	    " (mode 0600) or in global.yaml");

	fresh(&c);
	OK(G, "secrets:\n  TOK: {file: ~/.tok, hosts: [api.example.com, "
	    "\"*.example.org\"], header: Authorization}\n"
	    "  OTHER: {file: /etc/o, hosts: [o.example.net]}\n", &c);
	ATF_REQUIRE_EQ(c.nsecrets, 2);
	ATF_CHECK_STREQ("TOK", c.secrets[0].name);
	ATF_CHECK_STREQ("~/.tok", c.secrets[0].file);
	ATF_CHECK_EQ(c.secrets[0].nhosts, 2);
	ATF_CHECK_STREQ("*.example.org", c.secrets[0].hosts[1]);
	ATF_CHECK_STREQ("Authorization", c.secrets[0].header);
	ATF_CHECK_STREQ("", c.secrets[1].header);
	/* the host-local file replaces an entry whole and drops another */
	OK(L, "secrets:\n  TOK: {file: /h/t2, hosts: [x.example.com]}\n"
	    "  OTHER: null\n", &c);
	FINISH(&c);
	ATF_REQUIRE_EQ(c.nsecrets, 1);
	ATF_CHECK_STREQ("/h/t2", c.secrets[0].file);
	ATF_CHECK_EQ(c.secrets[0].nhosts, 1);
	ATF_CHECK_STREQ("", c.secrets[0].header);
	ATF_CHECK(rc_secret_matches(&c.secrets[0], "x.example.com"));
	ATF_CHECK(!rc_secret_matches(&c.secrets[0], "y.example.com"));
	d = dump(&c);
	ATF_CHECK_MSG(strstr(d, "secrets:\n  TOK:\n    file: \"/h/t2\"\n"
	    "    hosts:\n      - \"x.example.com\"\n") != NULL, "%s", d);
	free(d);
	repoconf_free(&c);
}

/* a secret's name is the container's variable; placeholders differ */
ATF_TC_WITHOUT_HEAD(secrets_placeholder);
ATF_TC_BODY(secrets_placeholder, tc)
{
	struct repoconf	c;
	char		err[RC_ERR_MAX] = "", a[RC_PLACEHOLDER_LEN + 1];
	char		b[RC_PLACEHOLDER_LEN + 1];

	fresh(&c);
	OK(R, "container:\n  env: {TOK: plain}\n", &c);
	OK(L, "secrets:\n  TOK: {file: /h/t, hosts: [a.example]}\n", &c);
	ATF_CHECK(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("secrets.TOK: container.env also sets TOK: remove one "
	    "of them (a secret's name is the variable that holds its "
	    "placeholder in the container)", err);
	repoconf_free(&c);

	rc_secret_placeholder(a, sizeof(a));
	rc_secret_placeholder(b, sizeof(b));
	ATF_CHECK_EQ(strlen(a), 41);
	ATF_CHECK(strncmp(a, "jbsecret-", 9) == 0);
	ATF_CHECK(strspn(a + 9, "0123456789abcdef") == 32);
	ATF_CHECK(strcmp(a, b) != 0);
}

ATF_TC_WITHOUT_HEAD(secrets_bad);
ATF_TC_BODY(secrets_bad, tc)
{
	struct rc_secret	s;

	BAD(L, "secrets: [TOK]\n",
	    "local.yaml:1: secrets: expected a mapping of NAME: {file: PATH, "
	    "hosts: [HOST, ...], header: NAME}, got a sequence");
	BAD(L, "secrets:\n  1TOK: {file: /a, hosts: [a.example]}\n",
	    "local.yaml:2: secrets.1TOK: not a secret name: the name of an "
	    "environment variable ([A-Za-z_][A-Za-z0-9_]*, at most 63 bytes)");
	BAD(G, "secrets:\n  TOK: /a\n",
	    "global.yaml:2: secrets.TOK: expected a mapping {file: PATH, "
	    "hosts: [HOST, ...], header: NAME}, got a string");
	BAD(L, "secrets:\n  TOK: {hosts: [a.example]}\n",
	    "local.yaml:2: secrets.TOK: file is missing: the path of the file "
	    "holding the value (mode 0600)");
	BAD(L, "secrets:\n  TOK: {file: /a}\n",
	    "local.yaml:2: secrets.TOK: hosts is missing: the hosts the value "
	    "is sent to");
	BAD(L, "secrets:\n  TOK: {file: rel/a, hosts: [a.example]}\n",
	    "local.yaml:2: secrets.TOK.file: expected the path of the file "
	    "holding the value: absolute or ~/..., no \"..\", at most 1023 "
	    "bytes");
	BAD(L, "secrets:\n  TOK: {file: /a/../b, hosts: [a.example]}\n",
	    "local.yaml:2: secrets.TOK.file: expected the path of the file "
	    "holding the value: absolute or ~/..., no \"..\", at most 1023 "
	    "bytes");
	BAD(L, "secrets:\n  TOK: {file: /a, hosts: []}\n",
	    "local.yaml:2: secrets.TOK.hosts: expected a list of one host or "
	    "more ([api.example.com, \"*.example.com\"]), got a sequence");
	BAD(L, "secrets:\n  TOK: {file: /a, hosts: [\"*\"]}\n",
	    "local.yaml:2: secrets.TOK.hosts[0]: not a host name: a lowercase "
	    "DNS name of two labels or more (api.example.com), or *. and one "
	    "(\"*.example.com\")");
	BAD(L, "secrets:\n  TOK: {file: /a, hosts: [ok.example, 10.0.0.1]}\n",
	    "local.yaml:2: secrets.TOK.hosts[1]: not a host name: a lowercase "
	    "DNS name of two labels or more (api.example.com), or *. and one "
	    "(\"*.example.com\")");
	BAD(L, "secrets:\n  TOK: {file: /a, hosts: [API.example]}\n",
	    "local.yaml:2: secrets.TOK.hosts[0]: not a host name: a lowercase "
	    "DNS name of two labels or more (api.example.com), or *. and one "
	    "(\"*.example.com\")");
	BAD(L, "secrets:\n  TOK: {file: /a, hosts: [a.example], header: "
	    "\"X: y\"}\n",
	    "local.yaml:2: secrets.TOK.header: not an HTTP header name (as in "
	    "Authorization), at most 63 bytes");
	BAD(L, "secrets:\n  TOK: {file: /a, hosts: [a.example], value: x}\n",
	    "local.yaml:2: secrets.TOK.value: unknown key (a secret takes "
	    "file, hosts and header)");

	memset(&s, 0, sizeof(s));
	(void)strlcpy(s.hosts[0], "*.example.com", sizeof(s.hosts[0]));
	s.nhosts = 1;
	ATF_CHECK(rc_secret_matches(&s, "api.example.com"));
	ATF_CHECK(rc_secret_matches(&s, "a.b.example.com"));
	ATF_CHECK(!rc_secret_matches(&s, "example.com"));
	ATF_CHECK(!rc_secret_matches(&s, "badexample.com"));
	ATF_CHECK(!rc_secret_matches(&s, "api.example.com.evil"));
}

/* host_ports: defaults filled, replaced by name, IPv4 literals only */
ATF_TC_WITHOUT_HEAD(host_ports);
ATF_TC_BODY(host_ports, tc)
{
	struct repoconf	c;

	fresh(&c);
	OK(G, "host_ports:\n  - {name: pg, port: 5432}\n"
	    "  - {name: dns, port: 53, proto: udp, host_port: 5353}\n", &c);
	ATF_REQUIRE(c.host_ports.n == 2);
	ATF_CHECK_STREQ(c.host_ports.v[0].name, "pg");
	ATF_CHECK(c.host_ports.v[0].port == 5432);
	ATF_CHECK(c.host_ports.v[0].host_port == 5432);
	ATF_CHECK_STREQ(c.host_ports.v[0].proto, "tcp");
	ATF_CHECK_STREQ(c.host_ports.v[0].host_address, "127.0.0.1");
	ATF_CHECK(c.host_ports.v[0].host_address_set == 0);
	ATF_CHECK_STREQ(c.host_ports.v[0].container_address, "127.0.0.1");
	ATF_CHECK_STREQ(c.host_ports.v[1].proto, "udp");
	ATF_CHECK(c.host_ports.v[1].host_port == 5353);
	/* the repo's pg replaces the global one whole */
	OK(R, "host_ports:\n  - name: pg\n    port: 15432\n"
	    "    host_address: 10.0.0.5\n    container_address: 127.0.0.2\n",
	    &c);
	ATF_REQUIRE(c.host_ports.n == 2);
	ATF_CHECK(c.host_ports.v[0].port == 15432);
	ATF_CHECK(c.host_ports.v[0].host_port == 15432);
	ATF_CHECK_STREQ(c.host_ports.v[0].host_address, "10.0.0.5");
	ATF_CHECK(c.host_ports.v[0].host_address_set == 1);
	ATF_CHECK_STREQ(c.host_ports.v[0].container_address, "127.0.0.2");
	OK(L, "host_ports: []\n", &c);
	ATF_CHECK(c.host_ports.n == 0);
	repoconf_free(&c);

	BAD(R, "host_ports: {name: a}\n", "config.yaml:1: host_ports: "
	    "expected a sequence of {name, port, host_port, proto, "
	    "host_address, container_address}, got a mapping");
	BAD(R, "host_ports:\n  - {port: 80}\n", "config.yaml:2: "
	    "host_ports[0].name: missing (this key is required)");
	BAD(R, "host_ports:\n  - {name: web}\n", "config.yaml:2: "
	    "host_ports[0].port: missing (this key is required)");
	BAD(R, "host_ports:\n  - {name: Web, port: 80}\n", "config.yaml:2: "
	    "host_ports[0].name: bad forward name: 1 to 40 lowercase "
	    "letters, digits and '-', not starting with '-'");
	BAD(R, "host_ports:\n  - {name: web, port: 0}\n", "config.yaml:2: "
	    "host_ports[0].port: must be between 1 and 65535");
	BAD(R, "host_ports:\n  - {name: web, port: 80, host_port: 65536}\n",
	    "config.yaml:2: host_ports[0].host_port: must be between 1 and "
	    "65535");
	BAD(R, "host_ports:\n  - {name: web, port: 80, proto: ip}\n",
	    "config.yaml:2: host_ports[0].proto: expected tcp or udp");
	BAD(R, "host_ports:\n  - {name: web, port: 80, host_address: "
	    "localhost}\n", "config.yaml:2: host_ports[0].host_address: "
	    "expected an IPv4 address literal such as 127.0.0.1 (names and "
	    "IPv6 are not taken)");
	BAD(R, "host_ports:\n  - {name: web, port: 80, container_address: "
	    "\"::1\"}\n", "config.yaml:2: host_ports[0].container_address: "
	    "expected an IPv4 address literal such as 127.0.0.1 (names and "
	    "IPv6 are not taken)");
	BAD(R, "host_ports:\n  - {name: web, port: 80, color: red}\n",
	    "config.yaml:2: host_ports[0].color: unknown key (known: name, "
	    "port, host_port, proto, host_address, container_address)");
	BAD(R, "host_ports:\n  - {name: web, port: 80}\n"
	    "  - {name: web, port: 81}\n", "config.yaml:3: "
	    "host_ports[1].name: web is already the name of item 0");
	BAD(R, "host_ports:\n  - {name: a, port: 80}\n"
	    "  - {name: b, port: 80, host_port: 81}\n", "config.yaml:1: "
	    "host_ports: a and b both listen on tcp 127.0.0.1:80 in the "
	    "container");
}

/* optional_mounts: read-only by default, replaced per kind */
ATF_TC_WITHOUT_HEAD(optional_mounts);
ATF_TC_BODY(optional_mounts, tc)
{
	struct repoconf	c;

	fresh(&c);
	OK(G, "optional_mounts:\n  aws: {host: ~/.aws, container: "
	    "/home/dev/.aws, auto_unmount_after: 15m}\n"
	    "  gone: {host: /g, container: /g}\n", &c);
	OK(R, "optional_mounts:\n  openai:\n    host: ~/.config/openai\n"
	    "    container: /home/dev/.config/openai\n"
	    "    readonly: false\n    description: OpenAI API key\n"
	    "  aws: {host: /srv/aws, container: /aws}\n  gone: null\n", &c);
	ATF_REQUIRE(c.optional_mounts.n == 2);
	/* aws: the repo's entry replaced the global one whole */
	ATF_CHECK_STREQ(c.optional_mounts.v[0].kind, "aws");
	ATF_CHECK_STREQ(c.optional_mounts.v[0].m.host, "/srv/aws");
	ATF_CHECK(c.optional_mounts.v[0].m.readonly == 1);
	ATF_CHECK(c.optional_mounts.v[0].auto_unmount_after == 0);
	ATF_CHECK_STREQ(c.optional_mounts.v[1].kind, "openai");
	ATF_CHECK(c.optional_mounts.v[1].m.readonly == 0);
	ATF_CHECK_STREQ(c.optional_mounts.v[1].description, "OpenAI API key");
	OK(L, "optional_mounts:\n  aws: {host: /a, container: /a, "
	    "auto_unmount_after: 90s}\n", &c);
	ATF_CHECK(c.optional_mounts.v[0].auto_unmount_after == 90);
	repoconf_free(&c);

	BAD(R, "optional_mounts: [a]\n", "config.yaml:1: optional_mounts: "
	    "expected a mapping of KIND: {host, container, readonly, "
	    "description, auto_unmount_after}, got a sequence");
	BAD(R, "optional_mounts:\n  Aws: {host: /a, container: /a}\n",
	    "config.yaml:2: optional_mounts.Aws: bad mount kind: 1 to 32 "
	    "lowercase letters, digits, '_' and '-', starting with a letter "
	    "or digit");
	BAD(R, "optional_mounts:\n  a: {container: /a}\n",
	    "config.yaml:2: optional_mounts.a.host: missing (this key is "
	    "required)");
	BAD(R, "optional_mounts:\n  a: {host: /a, container: a}\n",
	    "config.yaml:2: optional_mounts.a.container: must be an "
	    "absolute path");
	BAD(R, "optional_mounts:\n  a: {host: /a, container: /a, "
	    "auto_unmount_after: 25h}\n",
	    "config.yaml:2: optional_mounts.a.auto_unmount_after: duration "
	    "\"25h\": must be at most 24h (forms: 30s, 45m, 4h, 1h30m, or "
	    "minutes as a bare number)");
	BAD(R, "optional_mounts:\n  a: {host: rel, container: /a}\n",
	    "config.yaml:2: optional_mounts.a.host: must be an absolute "
	    "path or ~/path");
}

ATF_TC_WITHOUT_HEAD(unknown_keys);
ATF_TC_BODY(unknown_keys, tc)
{
	BAD(R, "# c\ncontainer_prefx: x\n",
	    "config.yaml:2: container_prefx: unknown key (known: "
	    "container_prefix, container_user, container, host_mounts, "
	    "optional_mounts, host_ports, egress_allow, defaults, new, "
	    "loose_auto_revert, mount_auto_revert, github, secrets, base, gpg, "
	    "ssh, agents, claude, golden, share_local, shared_dir, host_devices, "
	    "shared_caches, jetbrains, chrome, terminal, autostart, "
	    "docker_registry_mirror, destroy, after_new, confirm, pull, push, "
	    "ls, dashboard, egress_proxy_always, gui, litellm, remote, merge, "
	    "install_gie_skills)");
	BAD(L, "shared_dir: /x\n",
	    "local.yaml:1: shared_dir: unknown key (known: "
	    "container_prefix, container_user, container, host_mounts, "
	    "optional_mounts, host_ports, egress_allow, defaults, new, "
	    "loose_auto_revert, "
	    "mount_auto_revert, github, secrets, base, gpg, ssh)");
	BAD(G, "container_user:\n  uid: 1\n  user: dev\n",
	    "global.yaml:3: container_user.user: unknown key (known: uid, "
	    "gid)");
	BAD(R, "container: {envs: {}}\n",
	    "config.yaml:1: container.envs: unknown key (known: env)");
	BAD(R, "host_mounts:\n  - host: /a\n    container: /x\n"
	    "  - host: /c\n    container: /d\n    read_only: true\n",
	    "config.yaml:6: host_mounts[1].read_only: unknown key (known: "
	    "host, container, readonly)");
	BAD(R, "defaults: {storage_pools: default}\n",
	    "config.yaml:1: defaults.storage_pools: unknown key (known: "
	    "network, memory, cpu, processes, disk, storage_pool)");
	BAD(R, "new: {backgrounds: true}\n",
	    "config.yaml:1: new.backgrounds: unknown key (known: clone_from, "
	    "autofetch, background, submodules)");
	BAD(R, "loose_auto_revert:\n  enable: true\n",
	    "config.yaml:2: loose_auto_revert.enable: unknown key (known: "
	    "enabled, after)");
	BAD(R, "mount_auto_revert:\n  for: 1h\n",
	    "config.yaml:2: mount_auto_revert.for: unknown key (known: "
	    "enabled, after)");
	BAD(R, "base: {image: x}\n",
	    "config.yaml:1: base.image: unknown key (known: alias, packages)");
}

ATF_TC_WITHOUT_HEAD(wrong_types);
ATF_TC_BODY(wrong_types, tc)
{
	BAD(R, "container_prefix: [a]\n",
	    "config.yaml:1: container_prefix: expected a string, got a "
	    "sequence");
	BAD(R, "container_prefix: yes\n",
	    "config.yaml:1: container_prefix: expected a string, got a "
	    "boolean (quote it if you mean the text)");
	BAD(R, "container_user: 1000\n",
	    "config.yaml:1: container_user: expected a mapping, got an "
	    "integer");
	BAD(R, "container_user: {uid: '1000'}\n",
	    "config.yaml:1: container_user.uid: expected an integer, got a "
	    "string");
	BAD(R, "container_user: {uid: 0}\n",
	    "config.yaml:1: container_user.uid: must be between 1 and "
	    "2147483646");
	BAD(R, "container_user: {gid: 2147483647}\n",
	    "config.yaml:1: container_user.gid: must be between 1 and "
	    "2147483646");
	BAD(R, "container_user: {gid: -5}\n",
	    "config.yaml:1: container_user.gid: must be between 1 and "
	    "2147483646");
	BAD(R, "container: {env: [A=b]}\n",
	    "config.yaml:1: container.env: expected a mapping of NAME: "
	    "value, got a sequence");
	BAD(R, "container:\n  env:\n    A: {b: c}\n",
	    "config.yaml:3: container.env.A: expected a string, got a "
	    "mapping");
	BAD(R, "container:\n  env:\n    A: true\n",
	    "config.yaml:3: container.env.A: expected a string, got a "
	    "boolean (quote it if you mean the text)");
	BAD(R, "container:\n  env:\n    OK: x\n    1A: x\n",
	    "config.yaml:4: container.env.1A: not an environment variable "
	    "name ([A-Za-z_][A-Za-z0-9_]*, at most 127 characters)");
	BAD(R, "container:\n  env:\n    A-B: x\n",
	    "config.yaml:3: container.env.A-B: not an environment variable "
	    "name ([A-Za-z_][A-Za-z0-9_]*, at most 127 characters)");
	BAD(R, "container:\n  env:\n    '': x\n",
	    "config.yaml:3: container.env.\"\": not an environment variable "
	    "name ([A-Za-z_][A-Za-z0-9_]*, at most 127 characters)");
	BAD(R, "host_mounts: {host: /a, container: /b}\n",
	    "config.yaml:1: host_mounts: expected a sequence of {host, "
	    "container, readonly}, got a mapping");
	BAD(R, "host_mounts:\n  - /a:/b\n",
	    "config.yaml:2: host_mounts[0]: expected a mapping {host, "
	    "container, readonly}, got a string");
	BAD(R, "host_mounts:\n  - container: /b\n",
	    "config.yaml:2: host_mounts[0].host: missing (this key is "
	    "required)");
	BAD(R, "host_mounts:\n  - host: /a\n",
	    "config.yaml:2: host_mounts[0].container: missing (this key is "
	    "required)");
	BAD(R, "host_mounts:\n  - host: a/b\n    container: /b\n",
	    "config.yaml:2: host_mounts[0].host: must be an absolute path or "
	    "~/path");
	BAD(R, "host_mounts:\n  - host: ~alice/x\n    container: /b\n",
	    "config.yaml:2: host_mounts[0].host: must be an absolute path or "
	    "~/path");
	BAD(R, "host_mounts:\n  - host: ~/\n    container: /b\n",
	    "config.yaml:2: host_mounts[0].host: must be an absolute path or "
	    "~/path");
	BAD(R, "host_mounts:\n  - host: ~/../etc\n    container: /b\n",
	    "config.yaml:2: host_mounts[0].host: must not contain a \"..\" "
	    "component");
	BAD(R, "host_mounts:\n  - host: /a/..\n    container: /b\n",
	    "config.yaml:2: host_mounts[0].host: must not contain a \"..\" "
	    "component");
	BAD(R, "host_mounts:\n  - host: null\n    container: /b\n",
	    "config.yaml:2: host_mounts[0].host: expected a string, got null");
	BAD(R, "host_mounts:\n  - host: /a\n    container: ~/b\n",
	    "config.yaml:3: host_mounts[0].container: must be an absolute "
	    "path");
	BAD(R, "host_mounts:\n  - host: /a\n    container: //\n",
	    "config.yaml:3: host_mounts[0].container: must not be the "
	    "container's root");
	BAD(R, "host_mounts:\n  - {host: /a, container: /b, readonly: 1}\n",
	    "config.yaml:2: host_mounts[0].readonly: expected true or false, "
	    "got an integer");
	/* the layer before this one mounted /b already */
	BAD(R, "host_mounts:\n  - host: /x\n    container: /b\n",
	    "config.yaml:3: host_mounts[0].container: /b is already the "
	    "target of another mount (from /a)");
	BAD(R, "host_mounts:\n  - {host: /x, container: /c}\n"
	    "  - {host: /y, container: /c}\n",
	    "config.yaml:3: host_mounts[1].container: /c is already the "
	    "target of another mount (from /x)");
	BAD(R, "egress_allow: github.com\n",
	    "config.yaml:1: egress_allow: expected a sequence of strings, got "
	    "a string");
	BAD(R, "egress_allow: [a, [b]]\n",
	    "config.yaml:1: egress_allow[1]: expected a string, got a "
	    "sequence");
	BAD(R, "defaults: {network: open}\n",
	    "config.yaml:1: defaults.network: must be strict or loose");
	BAD(R, "defaults: {network: Strict}\n",
	    "config.yaml:1: defaults.network: must be strict or loose");
	BAD(R, "defaults: {memory: 16}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the host's)");
	BAD(R, "defaults: {memory: 16gib}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the host's)");
	BAD(R, "defaults: {memory: 0GiB}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the host's)");
	BAD(R, "defaults: {memory: 016GiB}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the host's)");
	BAD(R, "defaults: {memory: 101%}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the host's)");
	BAD(R, "defaults: {memory: 16 GiB}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the host's)");
	BAD(R, "defaults: {cpu: 0}\n",
	    "config.yaml:1: defaults.cpu: not a CPU count (1 to 1024, or 1% "
	    "to 100% of the host's CPUs)");
	BAD(R, "defaults: {cpu: 1.5}\n",
	    "config.yaml:1: defaults.cpu: not a CPU count (1 to 1024, or 1% "
	    "to 100% of the host's CPUs)");
	BAD(R, "defaults: {cpu: 1025}\n",
	    "config.yaml:1: defaults.cpu: not a CPU count (1 to 1024, or 1% "
	    "to 100% of the host's CPUs)");
	BAD(R, "defaults: {cpu: 101%}\n",
	    "config.yaml:1: defaults.cpu: not a CPU count (1 to 1024, or 1% "
	    "to 100% of the host's CPUs)");
	BAD(R, "defaults: {cpu: true}\n",
	    "config.yaml:1: defaults.cpu: not a CPU count (1 to 1024, or 1% "
	    "to 100% of the host's CPUs)");
	BAD(R, "defaults: {memory: lots}\n",
	    "config.yaml:1: defaults.memory: not a memory size (a positive "
	    "number with a unit such as 512MiB or 16GiB, or 1% to 100% of the "
	    "host's)");
	BAD(R, "defaults: {disk: 50%}\n",
	    "config.yaml:1: defaults.disk: not a disk size (a positive number "
	    "with a unit such as 512MiB or 20GiB)");
	BAD(R, "defaults: {disk: 20}\n",
	    "config.yaml:1: defaults.disk: not a disk size (a positive number "
	    "with a unit such as 512MiB or 20GiB)");
	BAD(R, "defaults: {processes: 15}\n",
	    "config.yaml:1: defaults.processes: must be between 16 and "
	    "4194304");
	BAD(R, "defaults: {processes: many}\n",
	    "config.yaml:1: defaults.processes: expected an integer, got a "
	    "string");
	/* what new does is clone_from: local without a fetch; else refused */
	BAD(R, "new: {clone_from: origin}\n",
	    "config.yaml:1: new.clone_from: not supported yet by JailBee (a "
	    "key of the original: remove it, or leave it off with false, null "
	    "or empty)");
	BAD(R, "new: {clone_from: upstream}\n",
	    "config.yaml:1: new.clone_from: not supported yet by JailBee (a "
	    "key of the original: remove it, or leave it off with false, null "
	    "or empty)");
	BAD(R, "new: {autofetch: true}\n",
	    "config.yaml:1: new.autofetch: not supported yet by JailBee (a "
	    "key of the original: remove it, or leave it off with false, null "
	    "or empty)");
	BAD(R, "loose_auto_revert: {enabled: maybe}\n",
	    "config.yaml:1: loose_auto_revert.enabled: expected true or "
	    "false, got a string");
	BAD(R, "base: {alias: -x}\n",
	    "config.yaml:1: base.alias: not an image alias "
	    "([A-Za-z0-9][A-Za-z0-9._-]*, at most 63 characters)");
	BAD(R, "base: {alias: a/b}\n",
	    "config.yaml:1: base.alias: not an image alias "
	    "([A-Za-z0-9][A-Za-z0-9._-]*, at most 63 characters)");
	BAD(R, "base: {alias: ''}\n",
	    "config.yaml:1: base.alias: must not be empty");
	BAD(R, "base: [x]\n",
	    "config.yaml:1: base: expected a mapping, got a sequence");
	BAD(R, "- a\n",
	    "config.yaml:1: expected a mapping at the top level, got a "
	    "sequence");
}

ATF_TC_WITHOUT_HEAD(prefixes);
ATF_TC_BODY(prefixes, tc)
{
	static const char *const good[] = { "a", "0", "web-2", "a-", "9z--z",
	    "a234567890123456789012345678901234567890", NULL };
	static const char *const bad[] = { "-a", "A", "a_b", "a.b", "a b",
	    "é", "a234567890123456789012345678901234567890x", NULL };
	struct repoconf		 c;
	char			 yaml[128], want[256];
	size_t			 i;

	for (i = 0; good[i] != NULL; i++) {
		fresh(&c);
		(void)snprintf(yaml, sizeof(yaml), "container_prefix: '%s'\n",
		    good[i]);
		OK(R, yaml, &c);
		ATF_CHECK_STREQ(good[i], c.container_prefix);
		repoconf_free(&c);
	}
	for (i = 0; bad[i] != NULL; i++) {
		(void)snprintf(yaml, sizeof(yaml), "container_prefix: '%s'\n",
		    bad[i]);
		if (strlen(bad[i]) > NAME_PREFIX_MAX)
			JOIN(want, "config.yaml:1: "
			    "container_prefix: too long (at most 40 bytes)");
		else
			JOIN(want, "config.yaml:1: "
			    "container_prefix: not a container prefix "
			    "([a-z0-9][a-z0-9-]*, at most 40 characters)");
		BAD(R, yaml, want);
	}
	BAD(R, "container_prefix: ''\n",
	    "config.yaml:1: container_prefix: not a container prefix "
	    "([a-z0-9][a-z0-9-]*, at most 40 characters)");
}

ATF_TC_WITHOUT_HEAD(durations);
ATF_TC_BODY(durations, tc)
{
	static const struct {
		const char	*in;
		int64_t		 secs;
	} good[] = {
		{ "30s", 30 }, { "45m", 2700 }, { "4h", 14400 },
		{ "1h30m", 5400 }, { "24h", 86400 }, { "1s", 1 },
		{ "15", 900 }, { "'15'", 900 }, { "1440", 86400 },
	};
	struct repoconf	c;
	char		yaml[128];
	size_t		i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		fresh(&c);
		(void)snprintf(yaml, sizeof(yaml), "loose_auto_revert:\n"
		    "  after: %s\nmount_auto_revert: {after: %s}\n",
		    good[i].in, good[i].in);
		OK(R, yaml, &c);
		ATF_CHECK_EQ_MSG(c.loose_auto_revert.after, good[i].secs,
		    "%s", good[i].in);
		ATF_CHECK_EQ_MSG(c.mount_auto_revert.after, good[i].secs,
		    "%s", good[i].in);
		repoconf_free(&c);
	}
#define FORMS	"(forms: 30s, 45m, 4h, 1h30m, or minutes as a bare number)"
	BAD(R, "loose_auto_revert:\n  after: 0s\n",
	    "config.yaml:2: loose_auto_revert.after: duration \"0s\": must be "
	    "at least 1s " FORMS);
	BAD(R, "loose_auto_revert:\n  after: 25h\n",
	    "config.yaml:2: loose_auto_revert.after: duration \"25h\": must be "
	    "at most 24h " FORMS);
	BAD(R, "mount_auto_revert:\n  after: 1441\n",
	    "config.yaml:2: mount_auto_revert.after: duration \"1441\": must "
	    "be at most 24h " FORMS);
	BAD(R, "mount_auto_revert: {after: 5 min}\n",
	    "config.yaml:1: mount_auto_revert.after: duration \"5 min\": "
	    "bad unit at \" min\" (use h, m or s) " FORMS);
	BAD(R, "mount_auto_revert: {after: -5m}\n",
	    "config.yaml:1: mount_auto_revert.after: duration \"-5m\": "
	    "expected a number at \"-5m\" " FORMS);
	BAD(R, "mount_auto_revert: {after: true}\n",
	    "config.yaml:1: mount_auto_revert.after: expected a duration, got "
	    "a boolean");
	BAD(R, "mount_auto_revert: {after: 1.5}\n",
	    "config.yaml:1: mount_auto_revert.after: expected a duration, got "
	    "a number");
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct repoconf	 c;
	char		*yaml, err[RC_ERR_MAX], want[RC_ERR_MAX];
	size_t		 i, o, cap = 1024 * 1024;

	ATF_REQUIRE((yaml = malloc(cap)) != NULL);

	/* egress_allow: RC_EGRESS_MAX over all layers */
	fresh(&c);
	o = (size_t)snprintf(yaml, cap, "egress_allow:\n");
	for (i = 0; i < RC_EGRESS_MAX / 2; i++)
		o += (size_t)snprintf(yaml + o, cap - o, "  - h%zu\n", i);
	OK(G, yaml, &c);
	OK(R, yaml, &c);
	ATF_CHECK_EQ(c.egress_allow.n, RC_EGRESS_MAX);
	ATF_CHECK(repoconf_parse_layer(L, "l.yaml", "egress_allow: [x]\n",
	    18, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("l.yaml:1: egress_allow: more than 1024 items", err);
	repoconf_free(&c);

	/* host_mounts: RC_MOUNTS_MAX */
	fresh(&c);
	o = (size_t)snprintf(yaml, cap, "host_mounts:\n");
	for (i = 0; i < RC_MOUNTS_MAX; i++)
		o += (size_t)snprintf(yaml + o, cap - o,
		    "  - {host: /h, container: /c%zu}\n", i);
	OK(G, yaml, &c);
	ATF_CHECK_EQ(c.host_mounts.n, RC_MOUNTS_MAX);
	ATF_CHECK(repoconf_parse_layer(R, "r.yaml", "\nhost_mounts:\n"
	    "  - {host: /h, container: /x}\n", 44, &c, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("r.yaml:2: host_mounts: more than 128 items", err);
	repoconf_free(&c);

	/* container.env: RC_ENV_MAX names; changing one is still fine */
	fresh(&c);
	o = (size_t)snprintf(yaml, cap, "container:\n  env:\n");
	for (i = 0; i < RC_ENV_MAX; i++)
		o += (size_t)snprintf(yaml + o, cap - o, "    V%zu: x\n", i);
	OK(G, yaml, &c);
	ATF_CHECK_EQ(c.env.n, RC_ENV_MAX);
	OK(R, "container: {env: {V0: y}}\n", &c);
	ATF_CHECK(repoconf_parse_layer(R, "r.yaml", "container: {env: "
	    "{NEW: y}}\n", 27, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("r.yaml:1: container.env.NEW: more than 256 "
	    "variables", err);
	repoconf_free(&c);

	/* lengths */
	memset(yaml, 0, cap);
	o = (size_t)snprintf(yaml, cap, "container: {env: {A: '");
	memset(yaml + o, 'v', RC_ENV_VALUE_MAX);
	(void)strlcat(yaml, "'}}\n", cap);
	fresh(&c);
	OK(R, yaml, &c);
	ATF_CHECK_EQ(strlen(c.env.v[0].value), RC_ENV_VALUE_MAX);
	repoconf_free(&c);
	memset(yaml, 0, cap);
	o = (size_t)snprintf(yaml, cap, "container: {env: {A: '");
	memset(yaml + o, 'v', RC_ENV_VALUE_MAX + 1);
	(void)strlcat(yaml, "'}}\n", cap);
	BAD(R, yaml, "config.yaml:1: container.env.A: too long (at most 4095 "
	    "bytes)");
	memset(yaml, 0, cap);
	o = (size_t)snprintf(yaml, cap, "container: {env: {");
	memset(yaml + o, 'N', RC_ENV_NAME_MAX + 1);
	(void)strlcat(yaml, ": x}}\n", cap);
	JOIN(want, "config.yaml:1: container.env.%.*s: "
	    "not an environment variable name ([A-Za-z_][A-Za-z0-9_]*, at "
	    "most 127 characters)", RC_ENV_NAME_MAX + 1, yaml + o);
	BAD(R, yaml, want);
	memset(yaml, 0, cap);
	o = (size_t)snprintf(yaml, cap, "egress_allow: [");
	memset(yaml + o, 'e', RC_EGRESS_LEN + 1);
	(void)strlcat(yaml, "]\n", cap);
	BAD(R, yaml, "config.yaml:1: egress_allow[0]: too long (at most 255 "
	    "bytes)");
	memset(yaml, 0, cap);
	o = (size_t)snprintf(yaml, cap, "github: {token: ");
	memset(yaml + o, 't', RC_TOKEN_MAX + 1);
	(void)strlcat(yaml, "}\n", cap);
	BAD(L, yaml, "local.yaml:1: github.token: too long (at most 255 "
	    "bytes)");
	free(yaml);
}

ATF_TC_WITHOUT_HEAD(slugs);
ATF_TC_BODY(slugs, tc)
{
	static const struct {
		const char	*in;
		const char	*out;
	} cases[] = {
		{ "myrepo", "myrepo" },
		{ "MyRepo", "myrepo" },
		{ "my_repo.git", "my-repo-git" },
		{ "--a--b--", "a-b" },
		{ "  Spaces  In  Name ", "spaces-in-name" },
		{ "caf\xc3\xa9-bar", "caf-bar" },
		{ "\xc3\xa9t\xc3\xa9", "t" },
		{ "a\tb\nc", "a-b-c" },
		{ "0", "0" },
		{ "A-", "a" },
	};
	static const char *const empty[] = { "", "-", "___", "\xc3\xa9",
	    "...", NULL };
	char	out[64];
	size_t	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ATF_CHECK_MSG(repoconf_slug(cases[i].in, out, sizeof(out)) ==
		    out, "%zu: NULL", i);
		ATF_CHECK_STREQ(cases[i].out, out);
	}
	for (i = 0; empty[i] != NULL; i++)
		ATF_CHECK_MSG(repoconf_slug(empty[i], out, sizeof(out)) ==
		    NULL, "%zu: %s", i, out);
	/* exactly what fits, and one more */
	ATF_CHECK(repoconf_slug("ab-cd", out, 6) == out);
	ATF_CHECK_STREQ("ab-cd", out);
	ATF_CHECK(repoconf_slug("ab-cde", out, 6) == NULL);
	ATF_CHECK(repoconf_slug("ab", out, 0) == NULL);
	/* in place, as rc_prefix() uses it */
	(void)strlcpy(out, "In.Place", sizeof(out));
	ATF_CHECK(repoconf_slug(out, out, sizeof(out)) == out);
	ATF_CHECK_STREQ("in-place", out);
}

ATF_TC_WITHOUT_HEAD(finish_errors);
ATF_TC_BODY(finish_errors, tc)
{
	struct repoconf	c, before;
	char		err[RC_ERR_MAX];

	repoconf_init(&c);
	before = c;
	ATF_CHECK(repoconf_finish(&c, "/src/___", 1000, 1000, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_prefix: the directory name \"___\" gives "
	    "no prefix ([a-z0-9][a-z0-9-]*, at most 40 characters): set "
	    "container_prefix in .jailbee/config.yaml", err);
	ATF_CHECK(repoconf_finish(&c, "/", 1000, 1000, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_prefix: the directory name \"\" gives "
	    "no prefix ([a-z0-9][a-z0-9-]*, at most 40 characters): set "
	    "container_prefix in .jailbee/config.yaml", err);
	ATF_CHECK(repoconf_finish(&c, "/src/a\nb_c_d_e_f_g_h_i_j_k_l_m_n_o_"
	    "p_q_r_s_t_u", 1000, 1000, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_prefix: the directory name "
	    "\"a?b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q_r_s_t_u\" gives no prefix "
	    "([a-z0-9][a-z0-9-]*, at most 40 characters): set "
	    "container_prefix in .jailbee/config.yaml", err);
	ATF_CHECK(repoconf_finish(&c, NULL, 1000, 1000, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_prefix: not set and no repository "
	    "directory to derive it from", err);
	ATF_CHECK(repoconf_finish(&c, "/src/ok", 0, 1000, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_user.uid: the owner's uid 0 cannot be "
	    "mapped (1 to 2147483646): set container_user.uid", err);
	ATF_CHECK(repoconf_finish(&c, "/src/ok", 1000, (gid_t)-1, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_user.gid: the owner's gid 4294967295 "
	    "cannot be mapped (1 to 2147483646): set container_user.gid",
	    err);
	ATF_CHECK(memcmp(&c, &before, sizeof(c)) == 0);

	/* set in a layer, neither is needed */
	OK(R, "container_prefix: x\ncontainer_user: {uid: 5, gid: 6}\n", &c);
	ATF_CHECK_MSG(repoconf_finish(&c, NULL, 0, 0, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ("x", c.container_prefix);
	ATF_CHECK_EQ(c.container_uid, 5);
	ATF_CHECK_EQ(c.container_gid, 6);
	ATF_CHECK_STREQ("", c.repo_root);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(paths);
ATF_TC_BODY(paths, tc)
{
	struct repoconf_paths	p;
	char			err[RC_ERR_MAX], big[PATH_MAX + 8];

	ATF_REQUIRE_MSG(repoconf_paths("/src/proj", "/home/u", NULL, "proj",
	    &p, err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ("/src/proj/.jailbee/config.yaml", p.repo);
	ATF_CHECK_STREQ("/home/u/.config/jailbee/global.yaml", p.global);
	ATF_CHECK_STREQ("/home/u/.config/jailbee/repos/proj.yaml", p.local);

	ATF_REQUIRE(repoconf_paths("/src/proj//", "/home/u/", "", NULL, &p,
	    err, sizeof(err)) == 0);
	ATF_CHECK_STREQ("/src/proj/.jailbee/config.yaml", p.repo);
	ATF_CHECK_STREQ("/home/u/.config/jailbee/global.yaml", p.global);
	ATF_CHECK_STREQ("", p.local);

	/* XDG_CONFIG_HOME wins over HOME, but only when absolute */
	ATF_REQUIRE(repoconf_paths("/", "/home/u", "/xdg/", "p-1", &p, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("/.jailbee/config.yaml", p.repo);
	ATF_CHECK_STREQ("/xdg/jailbee/global.yaml", p.global);
	ATF_CHECK_STREQ("/xdg/jailbee/repos/p-1.yaml", p.local);
	ATF_REQUIRE(repoconf_paths("/r", "/home/u", "rel/xdg", "p", &p, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("/home/u/.config/jailbee/global.yaml", p.global);
	ATF_REQUIRE(repoconf_paths("/r", NULL, "/x", "p", &p, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("/x/jailbee/repos/p.yaml", p.local);

	memset(&p, 0x5a, sizeof(p));
	ATF_CHECK(repoconf_paths("/r", NULL, NULL, "p", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("HOME is not set or not an absolute path: cannot find "
	    "the jailbee config directory", err);
	ATF_CHECK(repoconf_paths("/r", "", "x", "p", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("HOME is not set or not an absolute path: cannot find "
	    "the jailbee config directory", err);
	ATF_CHECK(repoconf_paths("src/proj", "/h", NULL, "p", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("repository directory src/proj: not an absolute path",
	    err);
	ATF_CHECK(repoconf_paths(NULL, "/h", NULL, "p", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("repository directory (none): not an absolute path",
	    err);
	/* the prefix names a file: nothing that could leave repos/ */
	ATF_CHECK(repoconf_paths("/r", "/h", NULL, "../x", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_prefix: not a container prefix "
	    "([a-z0-9][a-z0-9-]*, at most 40 characters)", err);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	ATF_CHECK(repoconf_paths(big, "/h", NULL, "p", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("configuration path too long (at most 4095 bytes)",
	    err);
	big[PATH_MAX - 20] = '\0';
	ATF_CHECK(repoconf_paths("/r", big, NULL, "p", &p, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("configuration path too long (at most 4095 bytes)",
	    err);
	/* a failure leaves the output alone */
	ATF_CHECK(p.repo[0] == 0x5a && p.local[PATH_MAX - 1] == 0x5a);
}

/* a repo at <cwd>/work/My.Proj, HOME at <cwd>/home, XDG unset */
struct fixture {
	char	repo[PATH_MAX];
	char	home[PATH_MAX];
	char	file_repo[PATH_MAX];
	char	file_global[PATH_MAX];
	char	file_local[PATH_MAX];
};

static void
fixture(struct fixture *f, const char *prefix)
{
	char	d[PATH_MAX];

	here("work/My.Proj", f->repo, sizeof(f->repo));
	here("home", f->home, sizeof(f->home));
	JOIN(d, "%s/.jailbee", f->repo);
	mkdirs(d);
	JOIN(d, "%s/.config/jailbee/repos", f->home);
	mkdirs(d);
	JOIN(f->file_repo, "%s/.jailbee/config.yaml", f->repo);
	JOIN(f->file_global, "%s/.config/jailbee/global.yaml", f->home);
	JOIN(f->file_local, "%s/.config/jailbee/repos/%s.yaml", f->home,
	    prefix);
}

ATF_TC_WITHOUT_HEAD(load);
ATF_TC_BODY(load, tc)
{
	struct fixture	f;
	struct repoconf	c;
	char		err[RC_ERR_MAX];

	fixture(&f, "my-proj");
	write_file(f.file_repo, "egress_allow: [repo]\n"
	    "defaults: {cpu: 2}\n", 0644);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ("my-proj", c.container_prefix);
	ATF_CHECK_STREQ(f.repo, c.repo_root);
	ATF_CHECK_STREQ(f.file_repo, c.paths.repo);
	ATF_CHECK_STREQ(f.file_global, c.paths.global);
	ATF_CHECK_STREQ(f.file_local, c.paths.local);
	ATF_CHECK_EQ(c.effective, 1);
	ATF_CHECK_EQ(c.cpu, 2);
	ATF_CHECK_EQ(c.container_uid, 1000);
	ATF_CHECK_EQ(c.container_gid, 1001);
	ATF_CHECK_STREQ("jailbee-base", c.base_alias);
	ATF_REQUIRE_EQ(c.egress_allow.n, 1);
	ATF_CHECK_STREQ("", c.warning);
	repoconf_free(&c);

	/* all three, in order: global, repo, host-local */
	write_file(f.file_global, "egress_allow: [global]\n"
	    "defaults: {cpu: 1, memory: 2GiB}\n"
	    "container: {env: {A: g, B: g}}\n", 0644);
	write_file(f.file_local, "egress_allow: [local]\n"
	    "defaults: {cpu: 3}\ncontainer: {env: {B: l}}\n"
	    "github: {token: ghp_1}\n", 0600);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_REQUIRE_EQ(c.egress_allow.n, 3);
	ATF_CHECK_STREQ("global", c.egress_allow.v[0]);
	ATF_CHECK_STREQ("repo", c.egress_allow.v[1]);
	ATF_CHECK_STREQ("local", c.egress_allow.v[2]);
	ATF_CHECK_EQ(c.cpu, 3);
	ATF_CHECK_STREQ("2GiB", c.memory);
	ATF_REQUIRE_EQ(c.env.n, 2);
	ATF_CHECK_STREQ("g", c.env.v[0].value);
	ATF_CHECK_STREQ("l", c.env.v[1].value);
	ATF_CHECK_STREQ("ghp_1", c.github_token);
	ATF_CHECK_STREQ("", c.warning);
	repoconf_free(&c);

	/* a repo-set prefix names the host-local file */
	write_file(f.file_repo, "container_prefix: other\n", 0644);
	ATF_REQUIRE(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0);
	ATF_CHECK_STREQ("other", c.container_prefix);
	ATF_CHECK_EQ(c.egress_allow.n, 1);	/* global's only */
	ATF_CHECK_STREQ("", c.github_token);
	ATF_CHECK(strstr(c.paths.local, "/repos/other.yaml") != NULL);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(load_xdg);
ATF_TC_BODY(load_xdg, tc)
{
	struct fixture	f;
	struct repoconf	c;
	char		err[RC_ERR_MAX], xdg[PATH_MAX], path[PATH_MAX];

	fixture(&f, "my-proj");
	here("xdg", xdg, sizeof(xdg));
	JOIN(path, "%s/jailbee/repos", xdg);
	mkdirs(path);
	write_file(f.file_repo, "", 0644);
	/* the HOME files must be ignored once XDG_CONFIG_HOME is set */
	write_file(f.file_global, "defaults: {cpu: 1}\n", 0644);
	JOIN(path, "%s/jailbee/global.yaml", xdg);
	write_file(path, "defaults: {cpu: 2}\n", 0644);
	JOIN(path, "%s/jailbee/repos/my-proj.yaml",
	    xdg);
	write_file(path, "defaults: {disk: 3GiB}\n", 0600);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, xdg, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.cpu, 2);
	ATF_CHECK_STREQ("3GiB", c.disk);
	ATF_CHECK_STREQ(path, c.paths.local);
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(load_errors);
ATF_TC_BODY(load_errors, tc)
{
	struct fixture	f;
	struct repoconf	c, before;
	char		err[RC_ERR_MAX], want[RC_ERR_MAX * 2];

	fixture(&f, "my-proj");
	memset(&c, 0x5a, sizeof(c));
	before = c;

	/* the repo file is required */
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s: No such file or directory "
	    "(`jbctl config init` creates one)", f.file_repo);
	ATF_CHECK_STREQ(want, err);

	/* github in the repo file names the real host-local file */
	write_file(f.file_repo, "# repo\ngithub:\n  token: x\n", 0644);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s:2: github: not allowed in "
	    "this file: github settings are the host's: github.token belongs "
	    "in the host-local file %s (mode 0600), github.enabled there or "
	    "in global.yaml", f.file_repo, f.file_local);
	ATF_CHECK_STREQ(want, err);
	/* also when the prefix comes later in the repo file */
	write_file(f.file_repo, "github: {}\ncontainer_prefix: pp\n", 0644);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s:1: github: not allowed in "
	    "this file: github settings are the host's: github.token belongs "
	    "in the host-local file %s/.config/jailbee/repos/pp.yaml (mode "
	    "0600), github.enabled there or in global.yaml", f.file_repo,
	    f.home);
	ATF_CHECK_STREQ(want, err);
	/* and in the global file, from the repo's prefix */
	write_file(f.file_repo, "container_prefix: qq\n", 0644);
	write_file(f.file_global, "github:\n  token: x\n", 0600);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s:2: github.token: not allowed in "
	    "global.yaml: github.token belongs in the host-local file "
	    "%s/.config/jailbee/repos/qq.yaml (mode 0600); global.yaml takes "
	    "github.enabled and the legacy map api_tokens: {PREFIX: TOKEN}",
	    f.file_global, f.home);
	ATF_CHECK_STREQ(want, err);
	/* a bad prefix leaves the pattern, and is reported in its turn */
	write_file(f.file_global, "github:\n  token: x\n", 0600);
	write_file(f.file_repo, "container_prefix: Bad\n", 0644);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s:2: github.token: not allowed in "
	    "global.yaml: github.token belongs in the host-local file "
	    "${XDG_CONFIG_HOME:-~/.config}/jailbee/repos/"
	    "<container_prefix>.yaml (mode 0600); global.yaml takes "
	    "github.enabled and the legacy map api_tokens: {PREFIX: TOKEN}",
	    f.file_global);
	ATF_CHECK_STREQ(want, err);
	write_file(f.file_global, "", 0600);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s:1: container_prefix: not a "
	    "container prefix ([a-z0-9][a-z0-9-]*, at most 40 characters)",
	    f.file_repo);
	ATF_CHECK_STREQ(want, err);

	/* an error in the last layer: nothing of the first two leaks */
	write_file(f.file_repo, "egress_allow: [a]\n", 0644);
	write_file(f.file_local, "defaults:\n  cpu: many\n", 0600);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s:2: defaults.cpu: not a CPU count (1 to 1024, or 1%% "
	    "to 100%% of the host's CPUs)", f.file_local);
	ATF_CHECK_STREQ(want, err);
	write_file(f.file_local, "", 0600);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 0, 1001, &c, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("container_user.uid: the owner's uid 0 cannot be "
	    "mapped (1 to 2147483646): set container_user.uid", err);
	/* a directory where a file belongs is not "missing" */
	ATF_REQUIRE(unlink(f.file_global) == 0);
	ATF_REQUIRE(mkdir(f.file_global, 0700) == 0);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s: not a regular file",
	    f.file_global);
	ATF_CHECK_STREQ(want, err);
	ATF_REQUIRE(rmdir(f.file_global) == 0);
	/* syntax errors name the file */
	write_file(f.file_repo, "a: [\n", 0644);
	ATF_CHECK(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MSG(strncmp(err, f.file_repo, strlen(f.file_repo)) == 0 &&
	    strstr(err, ": syntax error: ") != NULL, "%s", err);
	ATF_CHECK(repoconf_load("relative", f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("repository directory relative: not an absolute path",
	    err);
	ATF_CHECK(memcmp(&c, &before, sizeof(c)) == 0);
}

/*
 * The original's GitHub keys: github.enabled in global.yaml or the
 * host-local file, the legacy api_tokens map in global.yaml giving the
 * token of the repo's prefix unless the host-local file has one, and a
 * global.yaml holding tokens warned about as a token file.
 */
ATF_TC_WITHOUT_HEAD(github_settings);
ATF_TC_BODY(github_settings, tc)
{
	struct fixture	f;
	struct repoconf	c;
	char		err[RC_ERR_MAX], want[RC_ERR_MAX * 2], *s;

	fixture(&f, "my-proj");
	write_file(f.file_repo, "", 0644);
	/* off unless set */
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.github_enabled, 0);
	ATF_CHECK_STREQ("", c.github_token);
	repoconf_free(&c);

	write_file(f.file_global, "github:\n  enabled: true\n"
	    "  api_tokens:\n    other: github_pat_other\n"
	    "    my-proj: github_pat_mine\n", 0600);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.github_enabled, 1);
	ATF_CHECK_STREQ("github_pat_mine", c.github_token);
	ATF_CHECK_EQ(c.github_token_legacy, 1);
	ATF_CHECK_EQ(c.ngithub_api_tokens, 2);
	ATF_CHECK_STREQ("", c.warning);
	s = dump(&c);
	ATF_CHECK(strstr(s, "github_pat") == NULL);
	ATF_CHECK_MSG(strstr(s, "github:\n  enabled: true\n  token: \"<set>\""
	    "  # global.yaml's api_tokens\n  api_tokens:\n"
	    "    other: \"<set>\"\n    my-proj: \"<set>\"\n") != NULL, "%s",
	    s);
	free(s);
	repoconf_free(&c);

	/* the host-local token wins; enabled there turns it off again */
	write_file(f.file_local, "github: {token: github_pat_local, "
	    "enabled: false}\n", 0600);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.github_enabled, 0);
	ATF_CHECK_STREQ("github_pat_local", c.github_token);
	ATF_CHECK_EQ(c.github_token_legacy, 0);
	repoconf_free(&c);
	ATF_REQUIRE(unlink(f.file_local) == 0);

	/* tokens in a global.yaml others may read: loaded, with a warning */
	write_file(f.file_global, "github:\n  api_tokens: {my-proj: t1}\n",
	    0644);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ("t1", c.github_token);
	JOIN(want, "%s is open to group/other (mode 0644) and may hold a "
	    "GitHub token: run chmod 600 %s", f.file_global, f.file_global);
	ATF_CHECK_STREQ(want, c.warning);
	repoconf_free(&c);
	/* without tokens its mode is no matter */
	write_file(f.file_global, "github:\n  enabled: true\n", 0644);
	ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c,
	    err, sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ("", c.warning);
	ATF_CHECK_STREQ("", c.github_token);
	repoconf_free(&c);

	/* null drops an earlier entry; the prefix's entry alone counts */
	repoconf_init(&c);
	OK(G, "github: {api_tokens: {a: x1, b: x2}}\n", &c);
	OK(G, "github: {api_tokens: {a: null}}\n", &c);
	ATF_REQUIRE_EQ(c.ngithub_api_tokens, 1);
	ATF_CHECK_STREQ("b", c.github_api_tokens[0].prefix);
	OK(R, "container_prefix: a\n", &c);
	FINISH(&c);
	ATF_CHECK_STREQ("", c.github_token);
	repoconf_free(&c);
	unlink(f.file_global);
}

ATF_TC_WITHOUT_HEAD(permissions);
ATF_TC_BODY(permissions, tc)
{
	struct fixture	f;
	struct repoconf	c;
	char		err[RC_ERR_MAX], want[RC_ERR_MAX * 2];
	static const mode_t modes[] = { 0640, 0604, 0660, 0620, 0607 };
	size_t		i;

	fixture(&f, "my-proj");
	write_file(f.file_repo, "", 0644);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		write_file(f.file_local, "github: {token: t}\n", modes[i]);
		ATF_REQUIRE_MSG(repoconf_load(f.repo, f.home, NULL, 1000,
		    1001, &c, err, sizeof(err)) == 0, "%s", err);
		ATF_CHECK_STREQ("t", c.github_token);
		JOIN(want, "%s is open to group/other "
		    "(mode %04o) and may hold a GitHub token: run chmod 600 %s",
		    f.file_local, (unsigned int)modes[i], f.file_local);
		ATF_CHECK_STREQ(want, c.warning);
		repoconf_free(&c);
	}
	write_file(f.file_local, "github: {token: t}\n", 0600);
	ATF_REQUIRE(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("", c.warning);
	repoconf_free(&c);
	write_file(f.file_local, "github: {token: t}\n", 0400);
	ATF_REQUIRE(repoconf_load(f.repo, f.home, NULL, 1000, 1001, &c, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("", c.warning);
	repoconf_free(&c);

	/* a refused file gives an error, not a warning */
	write_file(f.file_local, "github: {token: 't t'}\n", 0644);
	repoconf_init(&c);
	ATF_CHECK(repoconf_load_layer(L, f.file_local, &c, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ("", c.warning);
	/* only the host-local layer is looked at */
	write_file(f.file_global, "", 0666);
	ATF_REQUIRE(repoconf_load_layer(G, f.file_global, &c, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("", c.warning);

	ATF_CHECK(repoconf_check_mode(f.file_global, want,
	    sizeof(want)) == want);
	ATF_CHECK(repoconf_check_mode("/nonexistent/x", want,
	    sizeof(want)) == NULL);
	ATF_REQUIRE(chmod(f.file_global, 0600) == 0);
	ATF_CHECK(repoconf_check_mode(f.file_global, want,
	    sizeof(want)) == NULL);
}

ATF_TC_WITHOUT_HEAD(load_layer);
ATF_TC_BODY(load_layer, tc)
{
	struct fixture	f;
	struct repoconf	c;
	char		err[RC_ERR_MAX], want[RC_ERR_MAX * 2], *s;

	fixture(&f, "my-proj");
	repoconf_init(&c);
	/* missing optional layers are empty, the repo file is not */
	ATF_CHECK(repoconf_load_layer(G, f.file_global, &c, err,
	    sizeof(err)) == 0);
	ATF_CHECK(repoconf_load_layer(L, f.file_local, &c, err,
	    sizeof(err)) == 0);
	ATF_CHECK(repoconf_load_layer(R, f.file_repo, &c, err,
	    sizeof(err)) == -1);
	JOIN(want, "%s: No such file or directory "
	    "(`jbctl config init` creates one)", f.file_repo);
	ATF_CHECK_STREQ(want, err);
	s = dump(&c);
	ATF_CHECK_STREQ("", s);
	free(s);

	/* one layer alone, as `config show --layer repo` prints it */
	write_file(f.file_repo, "defaults: {cpu: 2}\n"
	    "loose_auto_revert: {after: 90s}\n", 0644);
	ATF_REQUIRE(repoconf_load_layer(R, f.file_repo, &c, err,
	    sizeof(err)) == 0);
	s = dump(&c);
	ATF_CHECK_STREQ("defaults:\n  cpu: 2\n"
	    "loose_auto_revert:\n  after: \"1m30s\"\n", s);
	free(s);
	repoconf_free(&c);
}

/* print a finished config, read it back as a layer: the same print */
ATF_TC_WITHOUT_HEAD(dump_roundtrip);
ATF_TC_BODY(dump_roundtrip, tc)
{
	struct repoconf	 c, d;
	char		*s, *t, err[RC_ERR_MAX];

	fresh(&c);
	OK(R, "container:\n  env:\n"
	    "    Q: \"say \\\"hi\\\"\\\\ \\t\\x01\\u00e9\\u0085\\u2028"
	    "\\u2029\\ufeff\\n\"\n"
	    "    'NO': 'y'\n"
	    "host_mounts:\n  - {host: '~/a b', container: '/c:d', "
	    "readonly: true}\n"
	    "optional_mounts:\n  aws: {host: '~/.aws', container: "
	    "/home/dev/.aws, description: 'AWS \"keys\"', "
	    "auto_unmount_after: 15m}\n"
	    "  rw: {host: /srv/x, container: /x, readonly: false}\n"
	    "egress_allow: ['*.x', '#y', 'a: b', '- c']\n"
	    "defaults: {memory: 50%}\n"
	    "loose_auto_revert: {enabled: false}\n"
	    "base: {packages: [git-lfs, g++]}\n", &c);
	FINISH(&c);
	s = dump(&c);
	/* the built-in agents follow: agents_presets checks them */
	CHECK_PREFIX("# repo_root: \"/src/proj\"\n"
	    "container_prefix: \"proj\"\n"
	    "container_user:\n  uid: 1000\n  gid: 1001\n"
	    "container:\n  env:\n"
	    "    \"Q\": \"say \\\"hi\\\"\\\\ \\t\\x01\xc3\xa9\\N\\L\\P"
	    "\\uFEFF\\n\"\n"
	    "    \"NO\": \"y\"\n"
	    "host_mounts:\n  - host: \"~/a b\"\n    container: \"/c:d\"\n"
	    "    readonly: true\n"
	    "optional_mounts:\n  aws:\n    host: \"~/.aws\"\n"
	    "    container: \"/home/dev/.aws\"\n    readonly: true\n"
	    "    description: \"AWS \\\"keys\\\"\"\n"
	    "    auto_unmount_after: \"15m\"\n"
	    "  rw:\n    host: \"/srv/x\"\n    container: \"/x\"\n"
	    "    readonly: false\n"
	    "host_ports: []\n"
	    "egress_allow:\n  - \"*.x\"\n  - \"#y\"\n  - \"a: b\"\n"
	    "  - \"- c\"\n"
	    "defaults:\n  network: \"strict\"\n  memory: \"50%\"\n"
	    "  cpu: \"50%\"\n  processes: 4096\n  disk: \"20GiB\"\n"
	    "loose_auto_revert:\n  enabled: false\n  after: \"5m\"\n"
	    "mount_auto_revert:\n  enabled: true\n  after: \"1h\"\n"
	    "base:\n  alias: \"proj-base\"\n  packages: [git-lfs, g++]\n"
	    "gpg:\n  enabled: false\n"
	    "ssh:\n  enabled: false\n"
	    "agents:\n  claude:\n    enabled: false\n", s, 1);
	repoconf_init(&d);
	ATF_REQUIRE_MSG(repoconf_parse_layer(R, "dump", s, strlen(s), &d,
	    err, sizeof(err)) == 0, "%s\n%s", err, s);
	ATF_REQUIRE_EQ(d.env.n, 2);
	ATF_CHECK_STREQ(c.env.v[0].value, d.env.v[0].value);
	FINISH(&d);
	t = dump(&d);
	ATF_CHECK_STREQ(s, t);
	free(s);
	free(t);
	repoconf_free(&d);

	/* the token is never printed */
	OK(L, "github: {token: ghp_secret}\n", &c);
	s = dump(&c);
	ATF_CHECK(strstr(s, "ghp_secret") == NULL);
	ATF_CHECK(strstr(s, "github:\n  token: \"<set>\"\n") != NULL);
	free(s);
	repoconf_free(&c);

	/* an unfinished struct prints only what is set */
	fresh(&c);
	OK(G, "new: {autofetch: false}\nmount_auto_revert: {after: 2m}\n"
	    "container_user: {gid: 3}\n", &c);
	s = dump(&c);
	ATF_CHECK_STREQ("container_user:\n  gid: 3\n"
	    "mount_auto_revert:\n  after: \"2m\"\n", s);
	free(s);
	repoconf_free(&c);
}

/*
 * The template parses as the repo layer, changing nothing; with its
 * examples uncommented ("#key", "#  key": no single space after the #)
 * it still parses, as the values it shows.
 */
ATF_TC_WITHOUT_HEAD(template);
ATF_TC_BODY(template, tc)
{
	struct repoconf	 c, before;
	const char	*p, *nl;
	char		*yaml, *o, err[RC_ERR_MAX];
	size_t		 examples = 0;

	fresh(&c);
	before = c;
	OK(R, repoconf_template, &c);
	OK(G, repoconf_template, &c);
	ATF_CHECK(memcmp(&c, &before, sizeof(c)) == 0);

	ATF_REQUIRE((yaml = malloc(strlen(repoconf_template) + 1)) != NULL);
	o = yaml;
	for (p = repoconf_template; *p != '\0'; p = nl + 1) {
		ATF_REQUIRE((nl = strchr(p, '\n')) != NULL);
		ATF_REQUIRE_MSG(*p == '#', "not a comment: %.*s",
		    (int)(nl - p), p);
		if (p[1] != ' ' || p[2] == ' ') {
			p++;
			examples++;
		}
		memcpy(o, p, (size_t)(nl - p + 1));
		o += nl - p + 1;
	}
	*o = '\0';
	ATF_CHECK(examples > 20);
	ATF_REQUIRE_MSG(repoconf_parse_layer(R, "template", yaml, strlen(yaml),
	    &c, err, sizeof(err)) == 0, "%s\n%s", err, yaml);
	ATF_CHECK_STREQ("myrepo", c.container_prefix);
	ATF_CHECK_EQ(c.container_uid, 1000);
	ATF_REQUIRE_EQ(c.env.n, 1);
	ATF_CHECK_STREQ("EDITOR", c.env.v[0].name);
	ATF_REQUIRE_EQ(c.host_mounts.n, 1);
	ATF_CHECK_STREQ("~/.m2/repository", c.host_mounts.v[0].host);
	ATF_REQUIRE_EQ(c.egress_allow.n, 2);
	ATF_CHECK_STREQ("*.npmjs.org", c.egress_allow.v[1]);
	ATF_CHECK_STREQ("strict", c.network);
	ATF_CHECK_STREQ(RC_DEF_MEMORY, c.memory);
	ATF_CHECK_EQ(c.cpu, 0);
	ATF_CHECK_EQ(c.cpu_pct, RC_DEF_CPU_PCT);
	ATF_CHECK_EQ(c.processes, RC_DEF_PROCESSES);
	ATF_CHECK_STREQ(RC_DEF_DISK, c.disk);
	ATF_CHECK_EQ(c.loose_auto_revert.after, RC_DEF_LOOSE_AFTER);
	ATF_CHECK_EQ(c.mount_auto_revert.after, RC_DEF_MOUNT_AFTER);
	ATF_CHECK_STREQ("myrepo-base", c.base_alias);
	ATF_REQUIRE_EQ(c.optional_mounts.n, 1);
	ATF_REQUIRE_EQ(c.autostart.on_create.n, 1);
	ATF_REQUIRE_EQ(c.autostart.on_create.v[0].nmounts, 1);
	ATF_CHECK_STREQ("aws", c.autostart.on_create.v[0].mounts[0]);
	ATF_REQUIRE_MSG(repoconf_agent(&c, "myagent") != NULL, "no myagent");
	ATF_CHECK_EQ(repoconf_agent(&c, "myagent")->nshared, 2);
	ATF_CHECK_STREQ("{}", repoconf_agent(&c, "myagent")->shared[1].seed);
	/* and the defaults it states are the ones finish fills */
	repoconf_free(&c);
	fresh(&c);
	FINISH(&c);
	ATF_CHECK_STREQ("strict", c.network);
	ATF_CHECK_STREQ(RC_DEF_MEMORY, c.memory);
	ATF_CHECK_EQ(c.cpu, 0);
	ATF_CHECK_EQ(c.cpu_pct, RC_DEF_CPU_PCT);
	ATF_CHECK_EQ(c.processes, RC_DEF_PROCESSES);
	ATF_CHECK_STREQ(RC_DEF_DISK, c.disk);
	free(yaml);
	repoconf_free(&c);
}

/*
 * A full config of the original (REFERENCE.md section 2), global and
 * repo: every key present.  What JailBee does takes effect; what it does
 * not do yet is there switched off, and loads.
 */
static const char orig_global[] =
    "container_user: {uid: 1000, gid: 1000}\n"
    "shared_dir: null\n"
    "docker_registry_mirror:\n  enabled: false\n  port: 3128\n"
    "  image: rpardini/docker-registry-proxy:0.6.5\n  data_dir: /x\n"
    "loose_auto_revert: {enabled: true, after: 10m}\n"
    "ls: {fields: null, hide: []}\n"
    "dashboard: {fields: null, hide: []}\n"
    "egress_proxy_always: false\n"
    "gui: {wayland: null}\n"
    "litellm: {}\n"
    "agents:\n  claude:\n    egress_allow: [g.example:443]\n";

static const char orig_repo[] =
    "container_prefix: myapp\n"
    "container:\n  env: {EDITOR: vim}\n"
    "share_local: false\n"
    "host_mounts:\n"
    "  - {host: ~/.m2, container: /home/dev/.m2, readonly: true}\n"
    "optional_mounts:\n"
    "  aws: {host: ~/.aws, container: /home/dev/.aws, readonly: true,\n"
    "        description: AWS, auto_unmount_after: 15m}\n"
    "host_devices: []\n"
    "host_ports: []\n"
    "shared_caches: []\n"
    "egress_allow: [github.com:443]\n"
    "loose_auto_revert: {after: 5m}\n"
    "mount_auto_revert: {enabled: true, after: 1h}\n"
    "defaults: {memory: 16GiB, cpu: 4, network: strict,\n"
    "           storage_pool: default}\n"
    "golden:\n"
    "  alias: myapp-base\n"
    "  ubuntu_version: null\n"
    "  java: null\n"
    "  node: null\n"
    "  provision_script: null\n"
    "  provision_env: {}\n"
    "  extra_apt_packages: [ripgrep]\n"
    "  enable_snippets: []\n"
    "  disable_snippets: []\n"
    "  stacks: {java: false, node: false, python: false, docker: false,\n"
    "           ecr: false}\n"
    "gpg: {enabled: false}\n"
    "ssh: {enabled: true, seed_from_host: true}\n"
    "jetbrains: {enabled: false, ide: idea, userprefs_from_host: true,\n"
    "            share_idea: true, ai_enabled: true, autostart: true,\n"
    "            toolbox_host_path: /opt/t}\n"
    "chrome: {enabled: false, url: 'http://x', dark_mode: true,\n"
    "         autostart: true, host_path: /opt/c}\n"
    "terminal:\n  kitty: {enabled: false, host_terminfo_path: null}\n"
    "agents:\n"
    "  claude:\n"
    "    enabled: false\n"
    "    autostart: true\n"
    "    command: claude --dangerously-skip-permissions\n"
    "    auto_update: false\n"
    "    install_network: loose\n"
    "    env: {CLAUDE_X: '1'}\n"
    "    plugins_enabled: false\n"
    "    install_jailbee_skills: false\n"
    "    ai_pr_description: false\n"
    "    ai_pr_branch: false\n"
    "    ai_pr_model: sonnet\n"
    "    pr_prompt: null\n"
    "    ai_pr_timeout: 600\n"
    "  codex:\n    enabled: false\n    egress_allow: []\n"
    "    shared:\n      - {subpath: codex-auth, path: ~/.codex-auth, "
    "type: dir,\n         seed: null}\n"
    "autostart:\n"
    "  on_create:\n    - {name: deps, run: make deps, network: loose, "
    "mounts: [aws],\n       env: {}, working_dir: null, background: "
    "false, timeout: 300,\n       continue_on_error: false}\n"
    "  on_start: []\n  step_timeout: 600\n  env: {}\n"
    "docker_registry_mirror: {extra_registries: []}\n"
    "new: {clone_from: local, autofetch: false, background: false,\n"
    "      submodules: false}\n"
    "destroy: {background: false}\n"
    "after_new: none\n"
    "confirm: {auto_target: false}\n"
    "pull: {destroy_container: null, delete_branch: null}\n"
    "push: {default_action: null, default_source: null, push_from: null,\n"
    "       autofetch: null}\n"
    "ls: {fields: null, hide: []}\n"
    "dashboard: {fields: [], hide: null}\n";

static const struct rc_agent *
agent(const struct repoconf *c, const char *name)
{
	size_t	i;

	for (i = 0; i < c->agents.n; i++)
		if (strcmp(c->agents.v[i].name, name) == 0)
			return &c->agents.v[i];
	return NULL;
}

ATF_TC_WITHOUT_HEAD(original_full_config);
ATF_TC_BODY(original_full_config, tc)
{
	struct repoconf		 c;
	const struct rc_agent	*a;

	fresh(&c);
	OK(G, orig_global, &c);
	OK(R, orig_repo, &c);
	FINISH(&c);
	ATF_CHECK_STREQ(c.container_prefix, "myapp");
	ATF_CHECK_EQ(c.container_uid, 1000);
	ATF_CHECK_EQ(c.env.n, 1);
	ATF_CHECK_EQ(c.host_mounts.n, 1);
	ATF_CHECK_EQ(c.optional_mounts.n, 1);
	ATF_CHECK_EQ(c.optional_mounts.v[0].auto_unmount_after, 15 * 60);
	ATF_CHECK_EQ(c.egress_allow.n, 1);
	ATF_CHECK_EQ(c.loose_auto_revert.after, 5 * 60);
	ATF_CHECK_EQ(c.cpu, 4);
	ATF_CHECK_EQ(c.ssh_enabled, 1);
	/* golden.alias and golden.extra_apt_packages are base.* */
	ATF_CHECK_STREQ(c.base_alias, "myapp-base");
	ATF_CHECK_STREQ(c.base_packages, "ripgrep");
	/* claude: the repo's keys over the preset's, the global list first */
	ATF_REQUIRE((a = agent(&c, "claude")) != NULL);
	ATF_CHECK_EQ(a->enabled, 0);
	ATF_CHECK_EQ(a->auto_update, 0);
	ATF_CHECK_STREQ(a->command, "claude --dangerously-skip-permissions");
	ATF_CHECK_STREQ(a->install, "npm install -g --prefix \"$HOME/.local\" "
	    "@anthropic-ai/claude-code");
	ATF_CHECK_EQ(a->nenv, 1);
	ATF_CHECK_STREQ(a->egress[0], "api.anthropic.com:443");
	ATF_CHECK_STREQ(a->egress[a->negress - 1], "g.example:443");
	/* codex: its preset egress reset by [], a shared entry after its own */
	ATF_REQUIRE((a = agent(&c, "codex")) != NULL);
	ATF_CHECK_EQ(a->negress, 0);
	ATF_CHECK_STREQ(a->command, "codex");
	ATF_REQUIRE_EQ(a->nshared, 2);
	ATF_CHECK_STREQ(a->shared[1].subpath, "codex-auth");
	/* a step's mounts name optional_mounts entries */
	ATF_REQUIRE_EQ(c.autostart.on_create.n, 1);
	ATF_REQUIRE_EQ(c.autostart.on_create.v[0].nmounts, 1);
	ATF_CHECK_STREQ(c.autostart.on_create.v[0].mounts[0], "aws");
	repoconf_free(&c);
}

/* each key of the original JailBee does not do, asking for something */
ATF_TC_WITHOUT_HEAD(original_not_yet);
ATF_TC_BODY(original_not_yet, tc)
{
#define NOTYET	": not supported yet by JailBee (a key of the original: " \
		"remove it, or leave it off with false, null or empty)"
	BAD(R, "share_local: true\n", "config.yaml:1: share_local" NOTYET);
	BAD(G, "shared_dir: ~/x\n", "global.yaml:1: shared_dir" NOTYET);
	BAD(R, "host_devices: [{path: /dev/kvm}]\n",
	    "config.yaml:1: host_devices" NOTYET);
	BAD(R, "shared_caches: [{name: m2}]\n",
	    "config.yaml:1: shared_caches" NOTYET);
	BAD(R, "golden:\n  ubuntu_version: '26.04'\n",
	    "config.yaml:2: golden.ubuntu_version" NOTYET);
	BAD(R, "golden:\n  stacks: {node: true}\n",
	    "config.yaml:2: golden.stacks.node" NOTYET);
	BAD(R, "golden:\n  provision_env: {A: b}\n",
	    "config.yaml:2: golden.provision_env.A" NOTYET);
	BAD(R, "jetbrains:\n  enabled: true\n",
	    "config.yaml:2: jetbrains.enabled" NOTYET);
	BAD(R, "chrome: {url: 'http://x'}\n", "config.yaml:1: chrome.url"
	    NOTYET);
	BAD(R, "terminal:\n  kitty:\n    enabled: auto\n",
	    "config.yaml:3: terminal.kitty.enabled" NOTYET);
	BAD(R, "docker_registry_mirror: {extra_registries: [r.example]}\n",
	    "config.yaml:1: docker_registry_mirror.extra_registries" NOTYET);
	BAD(G, "docker_registry_mirror: {enabled: true}\n",
	    "global.yaml:1: docker_registry_mirror.enabled" NOTYET);
	BAD(R, "new: {background: true}\n", "config.yaml:1: new.background"
	    NOTYET);
	BAD(R, "new: {submodules: true}\n", "config.yaml:1: new.submodules"
	    NOTYET);
	BAD(R, "destroy: {background: true}\n",
	    "config.yaml:1: destroy.background" NOTYET);
	BAD(R, "after_new: tmux\n", "config.yaml:1: after_new" NOTYET);
	BAD(R, "confirm: {auto_target: true}\n",
	    "config.yaml:1: confirm.auto_target" NOTYET);
	BAD(R, "pull: {destroy_container: always}\n",
	    "config.yaml:1: pull.destroy_container" NOTYET);
	BAD(R, "push: {default_action: merge}\n",
	    "config.yaml:1: push.default_action" NOTYET);
	BAD(R, "ls: {fields: [name]}\n", "config.yaml:1: ls.fields" NOTYET);
	BAD(R, "dashboard: {hide: [x]}\n", "config.yaml:1: dashboard.hide"
	    NOTYET);
	BAD(G, "egress_proxy_always: true\n",
	    "global.yaml:1: egress_proxy_always" NOTYET);
	BAD(G, "gui: {wayland: always}\n", "global.yaml:1: gui.wayland"
	    NOTYET);
	BAD(G, "litellm: {port: 4000}\n", "global.yaml:1: litellm.port"
	    NOTYET);
	BAD(R, "ssh: {seed_from_host: false}\n",
	    "config.yaml:1: ssh.seed_from_host" NOTYET);
	BAD(R, "agents:\n  claude:\n    plugins_enabled: true\n",
	    "config.yaml:3: agents.claude.plugins_enabled" NOTYET);
	BAD(R, "claude:\n  ai_pr_model: opus\n",
	    "config.yaml:2: claude.ai_pr_model" NOTYET);
	/* below a key of the original, a misspelt key is still unknown */
	BAD(R, "jetbrains: {enabld: false}\n",
	    "config.yaml:1: jetbrains.enabld: unknown key (known: enabled "
	    "ide userprefs_from_host share_idea ai_enabled autostart "
	    "toolbox_host_path)");
	BAD(R, "agents:\n  codex:\n    plugins_enabled: false\n",
	    "config.yaml:3: agents.codex.plugins_enabled: unknown key "
	    "(known: enabled, autostart, command, install, install_check, "
	    "update, auto_update, install_network, shared, egress_allow, "
	    "packages, env)");
	/* refused with where it belongs, or its successor */
	BAD(G, "remote:\n  ssh: {restrict_host: true}\n",
	    "global.yaml:1: remote: the SSH server's settings (remote.ssh.*) "
	    "live in jailbeed.yaml (/etc/jailbee/jailbeed.yaml), which "
	    "jailbeed reads, not in this file");
	BAD(R, "merge: {}\n", "config.yaml:1: merge: retired by the "
	    "original: its settings moved to pull (pull.destroy_container, "
	    "pull.delete_branch)");
	BAD(R, "install_gie_skills: true\n", "config.yaml:1: "
	    "install_gie_skills: retired by the original: its successor is "
	    "agents.claude.install_jailbee_skills");
	/* the original's github.enabled is taken (github_settings) */
	{
		struct repoconf	c;

		fresh(&c);
		OK(G, "github: {enabled: true}\n", &c);
		ATF_CHECK_EQ(c.github_enabled, 1);
		repoconf_free(&c);
	}
#undef NOTYET
}

/*
 * Each npm-based preset installs its package into ~/.local and runs the
 * command the package installs: the bin names below are the packages'
 * own, from the npm registry's metadata (npm view PKG bin, December
 * 2026): @anthropic-ai/claude-code {claude}, @openai/codex {codex},
 * @google/gemini-cli {gemini}, opencode-ai {opencode},
 * @vibe-kit/grok-cli {grok}.
 */
ATF_TC_WITHOUT_HEAD(agents_preset_bins);
ATF_TC_BODY(agents_preset_bins, tc)
{
	static const struct {
		const char	*agent, *package, *bin;
	} known[] = {
		{ "claude", "@anthropic-ai/claude-code", "claude" },
		{ "codex", "@openai/codex", "codex" },
		{ "gemini", "@google/gemini-cli", "gemini" },
		{ "opencode", "opencode-ai", "opencode" },
		{ "grok", "@vibe-kit/grok-cli", "grok" },
	};
	struct repoconf		 c;
	const struct rc_agent	*a;
	char			 want[256];
	size_t			 i;

	fresh(&c);
	FINISH(&c);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		ATF_REQUIRE((a = agent(&c, known[i].agent)) != NULL);
		(void)snprintf(want, sizeof(want), "npm install -g --prefix "
		    "\"$HOME/.local\" %s", known[i].package);
		ATF_CHECK_STREQ(a->install, want);
		(void)snprintf(want, sizeof(want), "npm install -g --prefix "
		    "\"$HOME/.local\" %s@latest", known[i].package);
		ATF_CHECK_STREQ(a->update, want);
		ATF_CHECK_STREQ(a->command, known[i].bin);
		(void)snprintf(want, sizeof(want), "command -v %s",
		    known[i].bin);
		ATF_CHECK_STREQ(a->install_check, want);
		ATF_CHECK_STREQ(a->packages, "nodejs npm");
	}
	/* aider: pip's --user, into ~/.local too */
	ATF_REQUIRE((a = agent(&c, "aider")) != NULL);
	ATF_CHECK(strstr(a->install, "pip install --user ") != NULL);
	ATF_CHECK_STREQ(a->command, "aider");
	ATF_CHECK_STREQ(a->packages, "python3-pip");
	repoconf_free(&c);
}

/* packages: the preset's, then the layers', each once; [] empties */
ATF_TC_WITHOUT_HEAD(agents_packages);
ATF_TC_BODY(agents_packages, tc)
{
	struct repoconf		 c;
	const struct rc_agent	*a;

	fresh(&c);
	OK(G, "agents:\n  claude: {packages: [python3, npm]}\n", &c);
	OK(R, "agents:\n  claude: {packages: [jq]}\n"
	    "  mine: {command: m, packages: [ripgrep]}\n", &c);
	FINISH(&c);
	ATF_REQUIRE((a = agent(&c, "claude")) != NULL);
	ATF_CHECK_STREQ(a->packages, "nodejs npm python3 jq");
	ATF_REQUIRE((a = agent(&c, "mine")) != NULL);
	ATF_CHECK_STREQ(a->packages, "ripgrep");
	repoconf_free(&c);

	fresh(&c);
	OK(R, "agents:\n  codex: {packages: []}\n", &c);
	FINISH(&c);
	ATF_REQUIRE((a = agent(&c, "codex")) != NULL);
	ATF_CHECK_STREQ(a->packages, "");
	repoconf_free(&c);

	BAD(R, "agents:\n  x:\n    packages: [Node]\n",
	    "config.yaml:3: agents.x.packages[0]: \"Node\" is not a Debian "
	    "package name (a-z, 0-9, +, -, ., from 2 to 100 characters, "
	    "starting with a letter or digit)");
	BAD(R, "agents:\n  x:\n    packages: nodejs\n",
	    "config.yaml:3: agents.x.packages: expected a sequence of Debian "
	    "package names, got a string");
}

/* which image an agent's container starts from */
ATF_TC_WITHOUT_HEAD(agents_image);
ATF_TC_BODY(agents_image, tc)
{
	struct repoconf	c;
	char		alias[64], pkgs[1024];
	size_t		idx[2];

	/* no agent, or one without packages: the repo's own image */
	fresh(&c);
	OK(R, "agents:\n  mine: {command: m}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(repoconf_agent_image(&c, idx, 0, alias, sizeof(alias),
	    pkgs, sizeof(pkgs)), 0);
	ATF_CHECK_STREQ(alias, "jailbee-base");
	ATF_CHECK_STREQ(pkgs, "");
	idx[0] = (size_t)(repoconf_agent(&c, "mine") - c.agents.v);
	ATF_CHECK_EQ(repoconf_agent_image(&c, idx, 1, alias, sizeof(alias),
	    pkgs, sizeof(pkgs)), 0);
	ATF_CHECK_STREQ(alias, "jailbee-base");
	/*
	 * claude: nodejs and npm, under the alias of that set, the same
	 * for every repo: sha256("nodejs npm") begins ff842cbd0e69
	 */
	idx[0] = (size_t)(repoconf_agent(&c, "claude") - c.agents.v);
	ATF_CHECK_EQ(repoconf_agent_image(&c, idx, 1, alias, sizeof(alias),
	    pkgs, sizeof(pkgs)), 1);
	ATF_CHECK_STREQ(alias, "jailbee-base-ff842cbd0e69");
	ATF_CHECK_STREQ(pkgs, "nodejs npm");
	/* codex too: the same set, the same image */
	idx[1] = (size_t)(repoconf_agent(&c, "codex") - c.agents.v);
	ATF_CHECK_EQ(repoconf_agent_image(&c, idx, 2, alias, sizeof(alias),
	    pkgs, sizeof(pkgs)), 1);
	ATF_CHECK_STREQ(alias, "jailbee-base-ff842cbd0e69");
	repoconf_free(&c);

	/* with base.packages: their union, sorted, names the image */
	fresh(&c);
	OK(R, "base: {packages: [npm, git-lfs]}\n", &c);
	FINISH(&c);
	ATF_CHECK_STREQ(c.base_alias, "proj-base");
	idx[0] = (size_t)(repoconf_agent(&c, "claude") - c.agents.v);
	ATF_CHECK_EQ(repoconf_agent_image(&c, idx, 1, alias, sizeof(alias),
	    pkgs, sizeof(pkgs)), 1);
	ATF_CHECK_STREQ(pkgs, "git-lfs nodejs npm");
	ATF_CHECK_EQ(strncmp(alias, "jailbee-base-", 13), 0);
	ATF_CHECK_EQ(strlen(alias), 25);
	ATF_CHECK(strcmp(alias, "jailbee-base-ff842cbd0e69") != 0);
	repoconf_free(&c);

	/* base.alias names the image: it is used as it is */
	fresh(&c);
	OK(R, "base: {alias: mine}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(repoconf_agent_image(&c, idx, 1, alias, sizeof(alias),
	    pkgs, sizeof(pkgs)), 0);
	ATF_CHECK_STREQ(alias, "mine");
	ATF_CHECK_STREQ(pkgs, "");
	repoconf_free(&c);
}

ATF_TC_WITHOUT_HEAD(agents_presets);
ATF_TC_BODY(agents_presets, tc)
{
	struct repoconf		 c;
	const struct rc_agent	*a;
	static const char *const names[] = { "claude", "codex", "gemini",
		"aider", "opencode", "grok" };
	size_t			 i;

	/* the built-ins, complete, none enabled */
	fresh(&c);
	FINISH(&c);
	ATF_CHECK_EQ(c.agents.n, 6);
	for (i = 0; i < 6; i++) {
		ATF_REQUIRE_MSG((a = agent(&c, names[i])) != NULL, "%s",
		    names[i]);
		ATF_CHECK_EQ(a->enabled, 0);
		ATF_CHECK_EQ(a->autostart, 1);
		ATF_CHECK_EQ(a->auto_update, 1);
		ATF_CHECK(a->command[0] != '\0');
		ATF_CHECK(a->install[0] != '\0');
		ATF_CHECK(a->install_check[0] != '\0');
		ATF_CHECK(a->update[0] != '\0');
		ATF_CHECK_STREQ(a->install_network, "loose");
		ATF_CHECK(a->negress > 0);
		ATF_CHECK(a->nshared > 0);
	}
	/* grok: the Grok CLI's npm package and its bin */
	ATF_REQUIRE((a = agent(&c, "grok")) != NULL);
	ATF_CHECK_STREQ(a->command, "grok");
	ATF_CHECK_STREQ(a->install, "npm install -g --prefix \"$HOME/.local\" "
	    "@vibe-kit/grok-cli");
	ATF_CHECK_STREQ(a->install_check, "command -v grok");
	ATF_CHECK_STREQ(a->egress[0], "api.x.ai:443");
	ATF_CHECK_STREQ(a->shared[0].path, "~/.grok");
	repoconf_free(&c);

	/* key by key: global then repo over the preset; lists appended */
	fresh(&c);
	OK(G, "agents:\n  gemini:\n    command: g1\n"
	    "    egress_allow: [a.example]\n    env: {A: '1', B: '2'}\n", &c);
	OK(R, "agents:\n  gemini:\n    install_check: 'true'\n"
	    "    egress_allow: [b.example]\n    env: {B: null, C: '3'}\n"
	    "    shared:\n      - {subpath: g2, path: /x, type: file, "
	    "seed: '{}'}\n"
	    "  fake:\n    command: ./agent.sh\n    install: ./install.sh\n",
	    &c);
	FINISH(&c);
	ATF_REQUIRE((a = agent(&c, "gemini")) != NULL);
	ATF_CHECK_STREQ(a->command, "g1");
	ATF_CHECK_STREQ(a->install_check, "true");
	ATF_CHECK_STREQ(a->install, "npm install -g --prefix \"$HOME/.local\" "
	    "@google/gemini-cli");
	ATF_REQUIRE_EQ(a->negress, 6);
	ATF_CHECK_STREQ(a->egress[0], "generativelanguage.googleapis.com:443");
	ATF_CHECK_STREQ(a->egress[4], "a.example");
	ATF_CHECK_STREQ(a->egress[5], "b.example");
	ATF_REQUIRE_EQ(a->nenv, 2);
	ATF_CHECK_STREQ(a->env_name[0], "A");
	ATF_CHECK_STREQ(a->env_name[1], "C");
	ATF_REQUIRE_EQ(a->nshared, 2);
	ATF_CHECK_STREQ(a->shared[0].path, "~/.gemini");
	ATF_CHECK_STREQ(a->shared[1].seed, "{}");
	/* an agent of the user's: no preset, strict install */
	ATF_REQUIRE((a = agent(&c, "fake")) != NULL);
	ATF_CHECK_STREQ(a->command, "./agent.sh");
	ATF_CHECK_STREQ(a->install_network, "strict");
	ATF_CHECK_EQ(a->negress, 0);
	ATF_CHECK_EQ(a->nshared, 0);
	ATF_CHECK_EQ(c.agents.n, 7);
	repoconf_free(&c);

	/* null gives the preset back; the alias is agents.claude */
	fresh(&c);
	OK(G, "claude: {command: x}\n", &c);
	OK(R, "agents: {claude: null}\n", &c);
	FINISH(&c);
	ATF_REQUIRE((a = agent(&c, "claude")) != NULL);
	ATF_CHECK_STREQ(a->command, "claude");
	repoconf_free(&c);

	/* enabled: an agent runs with its shared entries; a command it needs */
	{
		char	err[RC_ERR_MAX] = "";

		fresh(&c);
		OK(R, "agents:\n  claude: {enabled: true}\n", &c);
		ATF_CHECK_MSG(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
		    sizeof(err)) == 0, "%s", err);
		ATF_REQUIRE((a = agent(&c, "claude")) != NULL);
		ATF_REQUIRE_EQ(a->nshared, 3);
		ATF_CHECK_STREQ(a->shared[0].subpath, "claude");
		ATF_CHECK_STREQ(a->shared[0].path, "~/.claude");
		ATF_CHECK_STREQ(a->shared[0].type, "dir");
		/*
		 * ~/.claude.json: a file of a mounted directory, reached by
		 * a link, never a bind-mounted single file
		 */
		ATF_CHECK_STREQ(a->shared[1].subpath, "claude-json");
		ATF_CHECK_STREQ(a->shared[1].path, "~/.claude-json");
		ATF_CHECK_STREQ(a->shared[1].type, "dir");
		ATF_CHECK_STREQ(a->shared[2].subpath,
		    "claude-json/.claude.json");
		ATF_CHECK_STREQ(a->shared[2].path, "~/.claude.json");
		ATF_CHECK_STREQ(a->shared[2].type, "link");
		ATF_CHECK_STREQ(a->shared[2].seed, "{}");
		ATF_CHECK_STREQ(a->shared[2].target,
		    "~/.claude-json/.claude.json");
		repoconf_free(&c);
		/* a link's file lies in one of the agent's directories */
		fresh(&c);
		OK(R, "agents:\n  x:\n    command: c\n    shared: [{subpath: "
		    "a/f, path: ~/f, type: link}, {subpath: b, path: ~/b}]\n",
		    &c);
		ATF_CHECK(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
		    sizeof(err)) == -1);
		ATF_CHECK_STREQ(err, "agents.x.shared[0]: type: link: a/f lies "
		    "in none of the agent's shared directories (type: dir); "
		    "share the directory that holds it too");
		repoconf_free(&c);
		/* a directory has no first content */
		fresh(&c);
		OK(R, "agents:\n  x:\n    command: c\n    shared: [{subpath: "
		    "a, path: /a, seed: hi}]\n", &c);
		ATF_CHECK(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
		    sizeof(err)) == -1);
		ATF_CHECK_STREQ(err, "agents.x.shared[0].seed: only a file's "
		    "first content (type: file or link); a directory starts "
		    "empty");
		repoconf_free(&c);
		/*
		 * its egress_allow joins the allowlist, install_network:
		 * loose opens the network for the install: no refusal
		 */
		fresh(&c);
		OK(R, "agents:\n  claude: {enabled: true, shared: []}\n", &c);
		ATF_CHECK_MSG(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
		    sizeof(err)) == 0, "%s", err);
		ATF_CHECK_STREQ(agent(&c, "claude")->install_network, "loose");
		ATF_CHECK(agent(&c, "claude")->negress > 0);
		repoconf_free(&c);
		fresh(&c);
		OK(R, "agents:\n  x: {enabled: true}\n", &c);
		ATF_CHECK(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
		    sizeof(err)) == -1);
		ATF_CHECK_STREQ(err, "agents.x.command: not set: an enabled "
		    "agent needs the command that launches it");
		repoconf_free(&c);
		fresh(&c);
		OK(R, "agents:\n  x: {enabled: true, command: ./a}\n", &c);
		FINISH(&c);
		ATF_REQUIRE((a = agent(&c, "x")) != NULL);
		ATF_CHECK_EQ(a->enabled, 1);
		ATF_CHECK(repoconf_agent(&c, "x") == a);
		ATF_CHECK(repoconf_agent(&c, "y") == NULL);
		repoconf_free(&c);
	}
	BAD(R, "claude: {command: a}\nagents: {claude: {command: b}}\n",
	    "config.yaml:1: claude: both claude and agents.claude are set: "
	    "keep agents.claude (claude is the original's older spelling)");
	BAD(R, "agents: {Bad: {}}\n", "config.yaml:1: agents.Bad: bad agent "
	    "name: 1 to 32 lowercase letters, digits, '_' and '-', starting "
	    "with a letter or digit");
	BAD(R, "agents: {x: {install_network: wide}}\n",
	    "config.yaml:1: agents.x.install_network: must be strict or "
	    "loose");
	BAD(R, "agents:\n  x:\n    shared: [{subpath: ../a, path: /a}]\n",
	    "config.yaml:3: agents.x.shared[0].subpath: must not hold empty, "
	    "\".\" or \"..\" components");
	BAD(R, "agents:\n  x:\n    shared: [{subpath: a}]\n",
	    "config.yaml:3: agents.x.shared[0].path: missing (this key is "
	    "required)");
	BAD(R, "agents:\n  x:\n    shared: [{subpath: /etc, path: /a}]\n",
	    "config.yaml:3: agents.x.shared[0].subpath: must be a relative "
	    "path below the shared directory");
	BAD(R, "agents:\n  x:\n    shared: [{subpath: a/../../b, path: "
	    "/a}]\n", "config.yaml:3: agents.x.shared[0].subpath: must not "
	    "hold empty, \".\" or \"..\" components");
	BAD(R, "agents:\n  x:\n    shared: [{subpath: a, path: ~/../b}]\n",
	    "config.yaml:3: agents.x.shared[0].path: must be ~/ and a path "
	    "without \".\" or \"..\"");
	BAD(R, "agents:\n  x:\n    shared: [{subpath: a, path: /a, type: "
	    "fifo}]\n", "config.yaml:3: agents.x.shared[0].type: must be dir, "
	    "file or link");
}

/* the effective agents print and read back to the same print */
ATF_TC_WITHOUT_HEAD(agents_roundtrip);
ATF_TC_BODY(agents_roundtrip, tc)
{
	struct repoconf	 c, d;
	char		*s, *t, err[RC_ERR_MAX];

	fresh(&c);
	OK(R, "agents:\n  fake: {command: 'a \"b\"', env: {X: y}}\n"
	    "  claude: {egress_allow: [z.example]}\n  codex: {shared: []}\n"
	    "  empty: {}\n", &c);
	s = dump(&c);
	ATF_CHECK_STREQ("agents:\n  fake:\n    command: \"a \\\"b\\\"\"\n"
	    "    env:\n      \"X\": \"y\"\n"
	    "  claude:\n    egress_allow:\n      - \"z.example\"\n"
	    "  codex:\n    shared: []\n  empty: {}\n", s);
	free(s);
	FINISH(&c);
	s = dump(&c);
	repoconf_init(&d);
	ATF_REQUIRE_MSG(repoconf_parse_layer(R, "dump", s, strlen(s), &d,
	    err, sizeof(err)) == 0, "%s\n%s", err, s);
	FINISH(&d);
	t = dump(&d);
	ATF_CHECK_STREQ(s, t);
	free(s);
	free(t);
	repoconf_free(&c);
	repoconf_free(&d);
}

/*
 * autostart: steps parse, layers append (null resets), env merges as
 * container.env < autostart.env < step env, what is not done is refused
 * naming the key, and the dump reads back to itself.
 */
ATF_TC_WITHOUT_HEAD(autostart_steps);
ATF_TC_BODY(autostart_steps, tc)
{
	struct repoconf		 c, d;
	const struct rc_step	*st;
	char			 out[8][RC_AGENT_ENVNAME_MAX +
				    RC_AGENT_ENVVAL_MAX + 2];
	char			*s, *t, err[RC_ERR_MAX];
	int			 n;

	fresh(&c);
	OK(G, "autostart:\n  env: {A: global, B: global}\n"
	    "  on_start:\n    - {name: g1, run: echo g}\n", &c);
	OK(R, "container: {env: {A: ctr, C: ctr}}\n"
	    "optional_mounts:\n  aws: {host: ~/.aws, container: /a}\n"
	    "  data: {host: /srv/d, container: /d}\n"
	    "autostart:\n  step_timeout: 30\n  env: {B: auto, D: null}\n"
	    "  on_create:\n    - name: deps\n      run: ./setup.sh --all\n"
	    "      network: loose\n      timeout: 5\n      mounts: [aws, data]\n"
	    "      env: {C: step}\n      working_dir: sub/dir\n"
	    "  on_start:\n    - {name: srv, run: ./serve, background: true,\n"
	    "       continue_on_error: true, mounts: []}\n", &c);
	FINISH(&c);
	ATF_REQUIRE_EQ(c.autostart.on_create.n, 1);
	ATF_REQUIRE_EQ(c.autostart.on_start.n, 2);
	st = &c.autostart.on_create.v[0];
	ATF_CHECK_STREQ(st->name, "deps");
	ATF_CHECK_STREQ(st->run, "./setup.sh --all");
	ATF_CHECK_STREQ(st->network, "loose");
	ATF_CHECK_STREQ(st->working_dir, "sub/dir");
	ATF_REQUIRE_EQ(st->nmounts, 2);
	ATF_CHECK_STREQ(st->mounts[0], "aws");
	ATF_CHECK_STREQ(st->mounts[1], "data");
	ATF_CHECK_EQ(c.autostart.on_start.v[1].nmounts, 0);
	ATF_CHECK_EQ(rc_step_timeout(&c.autostart, st), 5);
	ATF_CHECK_EQ(rc_step_timeout(&c.autostart,
	    &c.autostart.on_start.v[0]), 30);
	ATF_CHECK_STREQ(c.autostart.on_start.v[0].name, "g1");
	ATF_CHECK(c.autostart.on_start.v[1].background);
	ATF_CHECK(c.autostart.on_start.v[1].continue_on_error);
	/* container.env < autostart.env < step env */
	n = rc_step_env(&c.env, &c.autostart, st, out, 8);
	ATF_REQUIRE_EQ(n, 3);
	ATF_CHECK_STREQ(out[0], "A=global");
	ATF_CHECK_STREQ(out[1], "C=step");
	ATF_CHECK_STREQ(out[2], "B=auto");
	ATF_CHECK_EQ(rc_step_env(&c.env, &c.autostart, st, out, 2), -1);
	s = dump(&c);
	repoconf_init(&d);
	ATF_REQUIRE_MSG(repoconf_parse_layer(R, "dump", s, strlen(s), &d,
	    err, sizeof(err)) == 0, "%s\n%s", err, s);
	FINISH(&d);
	t = dump(&d);
	ATF_CHECK_STREQ(s, t);
	free(s);
	free(t);
	repoconf_free(&d);
	/* null resets a list; the default timeout is 600 */
	OK(R, "autostart: {on_start: null, step_timeout: null}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(c.autostart.on_start.n, 0);
	ATF_CHECK_EQ(c.autostart.on_create.n, 1);
	ATF_CHECK_EQ(rc_step_timeout(&c.autostart,
	    &c.autostart.on_create.v[0]), 5);
	repoconf_free(&c);

	BAD(R, "autostart:\n  on_start:\n    - {name: a, run: b}\n"
	    "    - {name: a, run: c}\n", "config.yaml:4: "
	    "autostart.on_start[1]: name: step \"a\" is named twice: names "
	    "are unique per trigger");
	BAD(R, "autostart:\n  on_start:\n    - {run: b}\n",
	    "config.yaml:3: autostart.on_start[0].name: missing (this key is "
	    "required)");
	BAD(R, "autostart:\n  on_create:\n    - {name: 'a b', run: b}\n",
	    "config.yaml:3: autostart.on_create[0].name: must be letters, "
	    "digits, '_', '.' and '-', not starting with '-' or '.'");
	BAD(R, "autostart:\n  on_create:\n    - {name: a, run: b, network: "
	    "open}\n", "config.yaml:3: autostart.on_create[0].network: must be "
	    "strict, loose or null");
	BAD(R, "autostart:\n  on_create:\n    - {name: a, run: b, "
	    "working_dir: ../x}\n", "config.yaml:3: "
	    "autostart.on_create[0].working_dir: a relative working_dir must "
	    "stay below the clone (no \"..\")");
	BAD(R, "autostart:\n  on_start:\n    - {name: a, run: b, network: "
	    "loose, background: true}\n", "config.yaml:3: autostart.on_start[0]: "
	    "network: loose on a background step is not supported yet by "
	    "JailBee (nothing would take the network back when it ends): run "
	    "it in the foreground");
	BAD(R, "autostart:\n  on_start:\n    - {name: a, run: b, mounts: "
	    "[x], background: true}\n", "config.yaml:3: "
	    "autostart.on_start[0]: mounts on a background step is not "
	    "supported by JailBee (nothing would detach them when it ends): "
	    "run it in the foreground");
	BAD(R, "autostart:\n  on_start:\n    - {name: a, run: b, mounts: "
	    "[x, x]}\n", "config.yaml:3: autostart.on_start[0].mounts[1]: "
	    "\"x\" is named twice");
	BAD(R, "autostart:\n  on_start:\n    - {name: a, run: b, mounts: "
	    "[../x]}\n", "config.yaml:3: autostart.on_start[0].mounts[0]: "
	    "expected the name of an optional_mounts entry "
	    "([a-z0-9][a-z0-9_-]*, at most 32 characters)");
	BAD(R, "autostart:\n  on_start:\n    - {name: a, run: b, mounts: "
	    "x}\n", "config.yaml:3: autostart.on_start[0].mounts: expected a "
	    "sequence of optional_mounts names, got a string");
	/* a step's mount names an optional_mounts entry */
	fresh(&c);
	OK(R, "autostart:\n  on_create:\n    - {name: a, run: b, mounts: "
	    "[nosuch]}\n", &c);
	ATF_CHECK(repoconf_finish(&c, "/src/proj", 1000, 1001, err,
	    sizeof(err)) == -1);
	ATF_CHECK_STREQ(err, "autostart.on_create a: mounts: nosuch: no such "
	    "optional_mounts entry (a step's mounts name entries of "
	    "optional_mounts)");
	repoconf_free(&c);
	BAD(R, "autostart: {step_timeout: 0}\n", "config.yaml:1: "
	    "autostart.step_timeout: must be between 1 and 86400");
	BAD(R, "autostart: {on_start: {a: b}}\n", "config.yaml:1: "
	    "autostart.on_start: expected a sequence of steps {name, run, "
	    "...}, got a mapping");
}

/* the escalation gate: what a branch's config grants that base's lacks */
ATF_TC_WITHOUT_HEAD(autostart_widening);
ATF_TC_BODY(autostart_widening, tc)
{
	struct repoconf	 c, b;
	char		 out[1024], small[20];

	fresh(&b);
	OK(R, "autostart:\n  on_start:\n    - {name: s, run: x, network: "
	    "loose}\n    - {name: t, run: x}\n"
	    "agents:\n  fake: {command: f, egress_allow: [a.test]}\n", &b);
	FINISH(&b);
	fresh(&c);
	OK(R, "autostart:\n  on_create:\n    - {name: s, run: x, network: "
	    "loose}\n  on_start:\n    - {name: s, run: y, network: loose}\n"
	    "    - {name: t, run: x, network: loose}\n"
	    "    - {name: u, run: x, network: strict}\n"
	    "agents:\n  fake: {command: f, egress_allow: [a.test, b.test],\n"
	    "    install_network: loose}\n"
	    "  other: {command: o, egress_allow: [c.test]}\n", &c);
	FINISH(&c);
	/* fake not enabled, not named: its grants do not count */
	ATF_CHECK_EQ(repoconf_widening(&c, &b, NULL, out, sizeof(out)), 2);
	ATF_CHECK_STREQ(out, "+ autostart.on_create s: network: loose (a new "
	    "step)\n+ autostart.on_start t: network: loose (strict on the "
	    "default branch)\n");
	ATF_CHECK_EQ(repoconf_widening(&c, &b, "fake", out, sizeof(out)), 4);
	ATF_CHECK(strstr(out, "+ agents.fake.install_network: loose\n"
	    "+ agents.fake.egress_allow: b.test\n") != NULL);
	ATF_CHECK(strstr(out, "a.test") == NULL);
	/* nothing wider than itself; a short buffer stays terminated */
	ATF_CHECK_EQ(repoconf_widening(&b, &b, "fake", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, "");
	ATF_CHECK_EQ(repoconf_widening(&c, &b, "other", small,
	    sizeof(small)), 3);
	ATF_CHECK_EQ(strlen(small), sizeof(small) - 1);
	repoconf_free(&c);
	repoconf_free(&b);

	/* a step's mounts, an agent's shared entries */
	fresh(&b);
	OK(R, "optional_mounts:\n  aws: {host: ~/.aws, container: /a}\n"
	    "  data: {host: /srv/d, container: /d}\n"
	    "autostart:\n  on_start:\n    - {name: s, run: x, mounts: "
	    "[aws]}\n"
	    "agents:\n  fake: {command: f, shared: [{subpath: f, path: "
	    "~/.f}]}\n", &b);
	FINISH(&b);
	fresh(&c);
	OK(R, "optional_mounts:\n  aws: {host: ~/.aws, container: /a}\n"
	    "  data: {host: /srv/d, container: /d, readonly: false}\n"
	    "autostart:\n  on_start:\n    - {name: s, run: x, mounts: "
	    "[aws, data]}\n"
	    "agents:\n  fake: {command: f, shared: [{subpath: f, path: "
	    "~/.f}, {subpath: g, path: ~/.g}]}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(repoconf_widening(&c, &b, "fake", out, sizeof(out)), 2);
	ATF_CHECK_STREQ(out, "+ autostart.on_start s: mounts: data (/srv/d "
	    "at /d, read-write; not the default branch's)\n"
	    "+ agents.fake.shared: g at ~/.g (dir, read-write)\n");
	ATF_CHECK_EQ(repoconf_widening(&b, &b, "fake", out, sizeof(out)), 0);
	repoconf_free(&c);
	/* the same step and kind, another source: wider */
	fresh(&c);
	OK(R, "optional_mounts:\n  aws: {host: ~/.ssh, container: /a}\n"
	    "autostart:\n  on_start:\n    - {name: s, run: x, mounts: "
	    "[aws]}\n", &c);
	FINISH(&c);
	ATF_CHECK_EQ(repoconf_widening(&c, &b, NULL, out, sizeof(out)), 1);
	ATF_CHECK_STREQ(out, "+ autostart.on_start s: mounts: aws (~/.ssh at "
	    "/a; its optional_mounts entry differs from the default "
	    "branch's)\n");
	repoconf_free(&c);
	repoconf_free(&b);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, defaults);
	ATF_TP_ADD_TC(tp, every_key);
	ATF_TP_ADD_TC(tp, container_limits);
	ATF_TP_ADD_TC(tp, storage_pool);
	ATF_TP_ADD_TC(tp, empty_layers);
	ATF_TP_ADD_TC(tp, layer_scalars);
	ATF_TP_ADD_TC(tp, layer_lists);
	ATF_TP_ADD_TC(tp, layer_maps);
	ATF_TP_ADD_TC(tp, github_token);
	ATF_TP_ADD_TC(tp, github_settings);
	ATF_TP_ADD_TC(tp, unknown_keys);
	ATF_TP_ADD_TC(tp, optional_mounts);
	ATF_TP_ADD_TC(tp, wrong_types);
	ATF_TP_ADD_TC(tp, prefixes);
	ATF_TP_ADD_TC(tp, durations);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, slugs);
	ATF_TP_ADD_TC(tp, finish_errors);
	ATF_TP_ADD_TC(tp, paths);
	ATF_TP_ADD_TC(tp, load);
	ATF_TP_ADD_TC(tp, load_xdg);
	ATF_TP_ADD_TC(tp, load_errors);
	ATF_TP_ADD_TC(tp, permissions);
	ATF_TP_ADD_TC(tp, load_layer);
	ATF_TP_ADD_TC(tp, dump_roundtrip);
	ATF_TP_ADD_TC(tp, host_ports);
	ATF_TP_ADD_TC(tp, template);
	ATF_TP_ADD_TC(tp, base_packages);
	ATF_TP_ADD_TC(tp, original_full_config);
	ATF_TP_ADD_TC(tp, original_not_yet);
	ATF_TP_ADD_TC(tp, agents_presets);
	ATF_TP_ADD_TC(tp, agents_preset_bins);
	ATF_TP_ADD_TC(tp, agents_packages);
	ATF_TP_ADD_TC(tp, agents_image);
	ATF_TP_ADD_TC(tp, agents_roundtrip);
	ATF_TP_ADD_TC(tp, autostart_steps);
	ATF_TP_ADD_TC(tp, autostart_widening);
	ATF_TP_ADD_TC(tp, secrets_where);
	ATF_TP_ADD_TC(tp, secrets_bad);
	ATF_TP_ADD_TC(tp, secrets_placeholder);
	return atf_no_error();
}
