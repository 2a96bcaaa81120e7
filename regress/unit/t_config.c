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
 * jailbeed.yaml loading (config.c) and the YAML layer under it
 * (yamltree.c).  Every refusal is checked by its exact message, and every
 * failed parse must leave the output struct as it was.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "config.h"
#include "duration.h"
#include "yamltree.h"

/* a conf no parse would produce, to see whether a failure touched it */
static void
sentinel(struct jb_conf *c)
{
	memset(c, 0xa5, sizeof(*c));
	(void)strlcpy(c->owner, "sentinel", sizeof(c->owner));
	(void)strlcpy(c->socket, "/sentinel.sock", sizeof(c->socket));
	(void)strlcpy(c->state_dir, "/sentinel", sizeof(c->state_dir));
	(void)strlcpy(c->incus_url, "unix:/sentinel", sizeof(c->incus_url));
}

static void
check_defaults(int line, const struct jb_conf *c)
{
	ATF_CHECK_MSG(strcmp(c->owner, "") == 0, "line %d: owner %s", line,
	    c->owner);
	ATF_CHECK_MSG(strcmp(c->socket, JB_SOCKET_PATH) == 0,
	    "line %d: socket %s", line, c->socket);
	ATF_CHECK_MSG(strcmp(c->state_dir, JB_STATE_DIR) == 0,
	    "line %d: state_dir %s", line, c->state_dir);
	ATF_CHECK_MSG(strcmp(c->incus_url, JB_INCUS_URL) == 0,
	    "line %d: incus_url %s", line, c->incus_url);
}

/* parse buf (len bytes) as "x.yaml": the exact message, conf untouched */
static void
bad_len(int line, const char *buf, size_t len, const char *want)
{
	struct jb_conf	c, before;
	char		err[JB_ERR_MAX] = "";

	sentinel(&c);
	before = c;
	ATF_CHECK_MSG(conf_parse("x.yaml", buf, len, &c, err,
	    sizeof(err)) == -1, "line %d: accepted", line);
	ATF_CHECK_MSG(strcmp(err, want) == 0,
	    "line %d:\n got: %s\nwant: %s", line, err, want);
	ATF_CHECK_MSG(memcmp(&c, &before, sizeof(c)) == 0,
	    "line %d: conf changed by a failed parse", line);
}
#define BAD(yaml, want)	bad_len(__LINE__, (yaml), strlen(yaml), (want))

/* the message must start with want (for libyaml's or long texts) */
static void
bad_prefix(int line, const char *yaml, const char *want)
{
	struct jb_conf	c, before;
	char		err[JB_ERR_MAX] = "";

	sentinel(&c);
	before = c;
	ATF_CHECK_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == -1, "line %d: accepted", line);
	ATF_CHECK_MSG(strncmp(err, want, strlen(want)) == 0,
	    "line %d:\n got: %s\nwant: %s...", line, err, want);
	ATF_CHECK_MSG(memcmp(&c, &before, sizeof(c)) == 0,
	    "line %d: conf changed by a failed parse", line);
}
#define BADP(yaml, want)	bad_prefix(__LINE__, (yaml), (want))

static void
good(int line, const char *yaml, struct jb_conf *c)
{
	char	err[JB_ERR_MAX] = "";

	sentinel(c);
	ATF_CHECK_MSG(conf_parse("x.yaml", yaml, strlen(yaml), c, err,
	    sizeof(err)) == 0, "line %d: refused: %s", line, err);
}
#define GOOD(yaml, c)	good(__LINE__, (yaml), (c))

static void
write_file(const char *path, const char *data, size_t len)
{
	int	fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ATF_REQUIRE(fd != -1);
	ATF_REQUIRE((size_t)write(fd, data, len) == len);
	ATF_REQUIRE(close(fd) == 0);
}

/* "x: [[[...]]]" nested depth deep, or NULL */
static char *
nested(size_t depth)
{
	char	*s;
	size_t	 i;

	ATF_REQUIRE((s = malloc(2 * depth + 8)) != NULL);
	(void)strlcpy(s, "x: ", 4);
	for (i = 0; i < depth; i++)
		s[3 + i] = '[';
	for (i = 0; i < depth; i++)
		s[3 + depth + i] = ']';
	s[3 + 2 * depth] = '\0';
	return s;
}

ATF_TC_WITHOUT_HEAD(defaults);
ATF_TC_BODY(defaults, tc)
{
	struct jb_conf	c;

	sentinel(&c);
	conf_defaults(&c);
	check_defaults(__LINE__, &c);
}

ATF_TC_WITHOUT_HEAD(load_missing_ok);
ATF_TC_BODY(load_missing_ok, tc)
{
	struct jb_conf	c;
	char		err[JB_ERR_MAX];

	sentinel(&c);
	ATF_REQUIRE(conf_load("absent.yaml", 1, &c, err, sizeof(err)) == 0);
	check_defaults(__LINE__, &c);
}

ATF_TC_WITHOUT_HEAD(load_errors);
ATF_TC_BODY(load_errors, tc)
{
	struct jb_conf	 c, before;
	char		 err[JB_ERR_MAX], *big;

	sentinel(&c);
	before = c;
	ATF_CHECK(conf_load("absent.yaml", 0, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("absent.yaml: No such file or directory", err);
	/* only a missing file is forgiven, not a missing directory's kin */
	write_file("plain", "", 0);
	ATF_CHECK(conf_load("plain/x.yaml", 1, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("plain/x.yaml: Not a directory", err);
	ATF_REQUIRE(mkdir("dir.yaml", 0755) == 0);
	ATF_CHECK(conf_load("dir.yaml", 1, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("dir.yaml: not a regular file", err);
	ATF_REQUIRE(mkfifo("fifo.yaml", 0644) == 0);
	ATF_CHECK(conf_load("fifo.yaml", 1, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("fifo.yaml: not a regular file", err);

	/* 1 MiB is the cap: exactly that much comment loads */
	ATF_REQUIRE((big = malloc(YT_FILE_MAX + 1)) != NULL);
	memset(big, '#', YT_FILE_MAX + 1);
	big[0] = '\n';
	write_file("big.yaml", big, YT_FILE_MAX + 1);
	ATF_CHECK(conf_load("big.yaml", 0, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("big.yaml: larger than 1048576 bytes", err);
	ATF_CHECK(memcmp(&c, &before, sizeof(c)) == 0);
	write_file("max.yaml", big, YT_FILE_MAX);
	ATF_CHECK_MSG(conf_load("max.yaml", 0, &c, err, sizeof(err)) == 0,
	    "%s", err);
	check_defaults(__LINE__, &c);
	free(big);

	/* a parse error carries the path as given */
	sentinel(&c);
	write_file("bad.yaml", "# x\n\nincus:\n  urll: x\n", 22);
	ATF_CHECK(conf_load("bad.yaml", 1, &c, err, sizeof(err)) == -1);
	ATF_CHECK_STREQ("bad.yaml:4: incus.urll: unknown key (known: url, "
	    "bridge, client_cert, client_key, server_cert)",
	    err);
	ATF_CHECK(memcmp(&c, &before, sizeof(c)) == 0);
}

ATF_TC_WITHOUT_HEAD(load_full);
ATF_TC_BODY(load_full, tc)
{
	static const char	 yaml[] =
	    "# jailbeed.yaml\n"
	    "owner: alice\n"
	    "socket: /run/jb/ctl.sock   # trailing comment\n"
	    "state_dir: '/srv/jail bee/state'\n"
	    "incus:\n"
	    "  url: \"https://incus.example.org:8443\"\n"
	    "  client_cert: /etc/jailbee/incus-client.crt\n"
	    "  client_key: /etc/jailbee/incus-client.key\n"
	    "  server_cert: /etc/jailbee/incus-server.crt\n";
	struct jb_conf		 c;
	char			 err[JB_ERR_MAX];

	write_file("full.yaml", yaml, sizeof(yaml) - 1);
	sentinel(&c);
	ATF_REQUIRE_MSG(conf_load("full.yaml", 0, &c, err, sizeof(err)) == 0,
	    "%s", err);
	ATF_CHECK_STREQ("alice", c.owner);
	ATF_CHECK_STREQ("/run/jb/ctl.sock", c.socket);
	ATF_CHECK_STREQ("/srv/jail bee/state", c.state_dir);
	ATF_CHECK_STREQ("https://incus.example.org:8443", c.incus_url);
	ATF_CHECK_STREQ("/etc/jailbee/incus-client.crt", c.incus_cert);
	ATF_CHECK_STREQ("/etc/jailbee/incus-client.key", c.incus_key);
	ATF_CHECK_STREQ("/etc/jailbee/incus-server.crt", c.incus_ca);
}

ATF_TC_WITHOUT_HEAD(parse_styles);
ATF_TC_BODY(parse_styles, tc)
{
	struct jb_conf	c;

	GOOD("{owner: bob, incus: {url: 'unix:/run/incus.sock'}}", &c);
	ATF_CHECK_STREQ("bob", c.owner);
	ATF_CHECK_STREQ("unix:/run/incus.sock", c.incus_url);
	ATF_CHECK_STREQ(JB_SOCKET_PATH, c.socket);

	GOOD("%YAML 1.1\n---\nsocket: |-\n  /run/a.sock\n...\n", &c);
	ATF_CHECK_STREQ("/run/a.sock", c.socket);
	GOOD("state_dir:\n  /var/lib/x\n", &c);
	ATF_CHECK_STREQ("/var/lib/x", c.state_dir);
	/* the standard tags are fine where they fit */
	GOOD("!!map {owner: !!str yes, incus: !!map {}}", &c);
	ATF_CHECK_STREQ("yes", c.owner);
	GOOD("owner: ! on\n", &c);
	ATF_CHECK_STREQ("on", c.owner);
	GOOD("\xef\xbb\xbfowner: bob\n", &c);	/* a UTF-8 BOM */
	ATF_CHECK_STREQ("bob", c.owner);
	/* an empty section is as good as none */
	GOOD("incus:\n# url: https://x\n", &c);
	ATF_CHECK_STREQ(JB_INCUS_URL, c.incus_url);
}

ATF_TC_WITHOUT_HEAD(empty);
ATF_TC_BODY(empty, tc)
{
	static const char	*e[] = { "", "\n\n", "# only a comment\n",
	    "---\n", "--- # c\n...\n", "~\n", "null", "{}" };
	struct jb_conf		 c;
	size_t			 i;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		GOOD(e[i], &c);
		check_defaults(__LINE__, &c);
	}
}

ATF_TC_WITHOUT_HEAD(syntax);
ATF_TC_BODY(syntax, tc)
{
	static const char	nul[] = "owner: a\nsocket: \0/x\n";

	BAD("owner: bob\n  socket: /x\n",
	    "x.yaml:2: syntax error: mapping values are not allowed in "
	    "this context");
	BAD("owner: bob\n- x\n",
	    "x.yaml:2: syntax error: did not find expected key (while "
	    "parsing a block mapping on line 1)");
	BAD("owner: [a\n",
	    "x.yaml:2: syntax error: did not find expected ',' or ']' "
	    "(while parsing a flow sequence on line 1)");
	BAD("incus:\n\turl: x\n",
	    "x.yaml:2: syntax error: found character that cannot start any "
	    "token (while scanning for the next token on line 2)");
	BAD("owner: \"abc\n",
	    "x.yaml:2: syntax error: found unexpected end of stream (while "
	    "scanning a quoted scalar on line 1)");
	/* bytes libyaml's reader refuses, with the line counted by us */
	bad_len(__LINE__, nul, sizeof(nul) - 1,
	    "x.yaml:2: bad input: control characters are not allowed");
	BAD("# \xff\n", "x.yaml:1: bad input: invalid leading UTF-8 octet");
	BAD("owner: \x1b\n",
	    "x.yaml:1: bad input: control characters are not allowed");
}

ATF_TC_WITHOUT_HEAD(remote_ssh);
ATF_TC_BODY(remote_ssh, tc)
{
	struct jb_conf	c;
	char		err[JB_ERR_MAX];
	const char	*yaml = "remote:\n  ssh:\n    listen: \"[::1]:2222\"\n"
	    "    restrict_host: true\n    commands:\n      mode: allowlist\n"
	    "      allow: [ls, snapshot ls]\n    excluded_repos: [secret]\n";

	conf_defaults(&c);
	ATF_CHECK_STREQ(c.ssh_listen, "127.0.0.1:8022");
	ATF_CHECK_EQ(c.ssh_restrict_host, 1);
	ATF_CHECK_STREQ(c.ssh_mode, "full");
	ATF_REQUIRE_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ(c.ssh_listen, "[::1]:2222");
	ATF_CHECK_EQ(c.ssh_restrict_host, 1);
	ATF_CHECK_STREQ(c.ssh_mode, "allowlist");
	ATF_CHECK_EQ(c.ssh_nallow, 2);
	ATF_CHECK_STREQ(c.ssh_allow[1], "snapshot ls");
	ATF_CHECK_EQ(c.ssh_nexcluded, 1);
	ATF_CHECK_STREQ(c.ssh_excluded[0], "secret");
	yaml = "remote: {ssh: {restrict_host: no, listen: \"off\"}}\n";
	ATF_REQUIRE_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.ssh_restrict_host, 0);
	ATF_CHECK_STREQ(c.ssh_listen, "off");
	BAD("remote: {ssh: {listen: 127.0.0.1}}\n",
	    "x.yaml:1: remote.ssh.listen: not ADDR:PORT (an IPv4 address or "
	    "[IPv6] address and a port 1-65535) nor off");
	BAD("remote: {ssh: {listen: \"1.2.3.4:0\"}}\n",
	    "x.yaml:1: remote.ssh.listen: not ADDR:PORT (an IPv4 address or "
	    "[IPv6] address and a port 1-65535) nor off");
	BAD("remote: {ssh: {commands: {mode: open}}}\n",
	    "x.yaml:1: remote.ssh.commands.mode: one of full, allowlist, "
	    "disabled");
	BAD("remote: {ssh: {commands: {allow: [\"ls  x\"]}}}\n",
	    "x.yaml:1: remote.ssh.commands.allow[0]: not a command (words "
	    "such as \"ls\" or \"snapshot ls\")");
	BAD("remote: {ssh: {excluded_repos: [Bad]}}\n",
	    "x.yaml:1: remote.ssh.excluded_repos[0]: not a container prefix "
	    "([a-z0-9][a-z0-9-]*, at most 40 characters)");
	/* the repository configuration's syntax: no leading '-' */
	BAD("remote: {ssh: {excluded_repos: [-x]}}\n",
	    "x.yaml:1: remote.ssh.excluded_repos[0]: not a container prefix "
	    "([a-z0-9][a-z0-9-]*, at most 40 characters)");
	BAD("remote: {ssh: {restrict_host: false, excluded_repos: [a]}}\n",
	    "x.yaml:1: remote.ssh: excluded_repos needs restrict_host: true");
	BAD("remote: {ssh: {excluded_repos: x}}\n",
	    "x.yaml:1: remote.ssh.excluded_repos: expected a list, found a "
	    "string");
}

/* the journal's rotation and the per-source limits */
ATF_TC_WITHOUT_HEAD(remote_flood_limits);
ATF_TC_BODY(remote_flood_limits, tc)
{
	struct jb_conf	c;
	char		err[JB_ERR_MAX];
	const char	*yaml = "remote:\n  ssh:\n    journal_max_kib: 64\n"
	    "    journal_keep: 3\n    max_unauthenticated_per_source: 4\n"
	    "    refusals_per_minute: 7\n";

	conf_defaults(&c);
	ATF_CHECK_EQ(c.ssh_journal_max_kib, 10240);
	ATF_CHECK_EQ(c.ssh_journal_keep, 5);
	ATF_CHECK_EQ(c.ssh_max_unauth, 128);
	ATF_CHECK_EQ(c.ssh_refusals_per_min, 60);
	ATF_REQUIRE_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.ssh_journal_max_kib, 64);
	ATF_CHECK_EQ(c.ssh_journal_keep, 3);
	ATF_CHECK_EQ(c.ssh_max_unauth, 4);
	ATF_CHECK_EQ(c.ssh_refusals_per_min, 7);
	BADP("remote: {ssh: {journal_keep: 0}}\n",
	    "x.yaml:1: remote.ssh.journal_keep: ");
	BADP("remote: {ssh: {journal_keep: 21}}\n",
	    "x.yaml:1: remote.ssh.journal_keep: ");
	BADP("remote: {ssh: {journal_max_kib: 1}}\n",
	    "x.yaml:1: remote.ssh.journal_max_kib: ");
	BADP("remote: {ssh: {max_unauthenticated_per_source: x}}\n",
	    "x.yaml:1: remote.ssh.max_unauthenticated_per_source: ");
	BADP("remote: {ssh: {refusals_per_minute: 0}}\n",
	    "x.yaml:1: remote.ssh.refusals_per_minute: ");
}

ATF_TC_WITHOUT_HEAD(remote_mount_roots);
ATF_TC_BODY(remote_mount_roots, tc)
{
	struct jb_conf	c;
	char		err[JB_ERR_MAX];
	const char	*yaml = "remote:\n  ssh:\n    mounts: true\n"
	    "    mount_roots:\n      - path: /srv/data\n"
	    "      - {path: /srv/rw, readonly: false, repos: [a, b-2]}\n";

	conf_defaults(&c);
	ATF_CHECK_EQ(c.ssh_mounts, 0);
	ATF_CHECK_EQ(c.ssh_nroots, 0);
	ATF_REQUIRE_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.ssh_mounts, 1);
	ATF_REQUIRE_EQ(c.ssh_nroots, 2);
	ATF_CHECK_STREQ(c.ssh_roots[0].path, "/srv/data");
	ATF_CHECK_EQ(c.ssh_roots[0].readonly, 1);	/* the default */
	ATF_CHECK_EQ(c.ssh_roots[0].nrepos, 0);
	ATF_CHECK_STREQ(c.ssh_roots[1].path, "/srv/rw");
	ATF_CHECK_EQ(c.ssh_roots[1].readonly, 0);
	ATF_REQUIRE_EQ(c.ssh_roots[1].nrepos, 2);
	ATF_CHECK_STREQ(c.ssh_roots[1].repos[1], "b-2");
	yaml = "remote: {ssh: {mount_roots: null}}\n";
	ATF_REQUIRE_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_EQ(c.ssh_nroots, 0);
	BAD("remote:\n  ssh:\n    restrict_host: false\n"
	    "    mount_roots: [{path: /srv}]\n",
	    "x.yaml:2: remote.ssh: mount_roots needs restrict_host: true");
	/* mounts alone does not need restrict_host */
	yaml = "remote: {ssh: {restrict_host: false, mounts: true}}\n";
	ATF_REQUIRE_MSG(conf_parse("x.yaml", yaml, strlen(yaml), &c, err,
	    sizeof(err)) == 0, "%s", err);
	BAD("remote:\n  ssh:\n    mount_roots:\n      - path: /srv\n"
	    "        readonly: true\n        read_only: false\n",
	    "x.yaml:6: remote.ssh.mount_roots[0].read_only: unknown key "
	    "(known: path, readonly, repos)");
	BAD("remote: {ssh: {mount_roots: [{readonly: true}]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[0].path: missing (this key is "
	    "required)");
	BAD("remote: {ssh: {mount_roots: [{path: srv}]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[0].path: must be an absolute "
	    "path");
	BAD("remote: {ssh: {mount_roots: [{path: /srv/}]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[0].path: not a resolved "
	    "directory path (no \"//\", \".\", trailing \"/\", not "
	    "\"/\"): it is compared exactly with a mount's real path");
	BAD("remote: {ssh: {mount_roots: [{path: /a//b}]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[0].path: not a resolved "
	    "directory path (no \"//\", \".\", trailing \"/\", not "
	    "\"/\"): it is compared exactly with a mount's real path");
	BAD("remote: {ssh: {mount_roots: [{path: /a}, {path: /a}]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[1].path: /a is listed twice");
	BAD("remote: {ssh: {mount_roots: [{path: /a, repos: [A]}]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[0].repos[0]: not a container "
	    "prefix ([a-z0-9][a-z0-9-]*, at most 40 characters)");
	BAD("remote: {ssh: {mount_roots: /a}}\n",
	    "x.yaml:1: remote.ssh.mount_roots: expected a list of {path, "
	    "readonly, repos}, found a string");
	BAD("remote: {ssh: {mount_roots: [/a]}}\n",
	    "x.yaml:1: remote.ssh.mount_roots[0]: expected a mapping {path, "
	    "readonly, repos}, found a string");
	BAD("remote: {ssh: {mounts: maybe}}\n",
	    "x.yaml:1: remote.ssh.mounts: expected true or false, got a "
	    "string");
}

ATF_TC_WITHOUT_HEAD(unknown_keys);
ATF_TC_BODY(unknown_keys, tc)
{
	BAD("owner: bob\nsockets: /x\n",
	    "x.yaml:2: sockets: unknown key (known: owner, socket, "
	    "state_dir, incus, resolver, network, remote, cluster)");
	BAD("incus:\n  url: unix:/x\n  urll: x\n",
	    "x.yaml:3: incus.urll: unknown key (known: url, "
	    "bridge, client_cert, client_key, server_cert)");
	BAD("incus: {urll: {a: b}}",
	    "x.yaml:1: incus.urll: unknown key (known: url, "
	    "bridge, client_cert, client_key, server_cert)");
	/* keys are escaped before they reach a terminal */
	BAD("\"\\e[2J\": 1\n",
	    "x.yaml:1: \\x1b[2J: unknown key (known: owner, socket, "
	    "state_dir, incus, resolver, network, remote, cluster)");
	BAD("\"\": 1\n",
	    "x.yaml:1: \"\": unknown key (known: owner, socket, state_dir, "
	    "incus, resolver, network, remote, cluster)");
	BAD("? [a]\n: b\n",
	    "x.yaml:1: a mapping key must be a scalar, not a sequence");
}

ATF_TC_WITHOUT_HEAD(wrong_types);
ATF_TC_BODY(wrong_types, tc)
{
	BAD("\nowner:\n  a: b\n",
	    "x.yaml:2: owner: expected a string, got a mapping");
	BAD("owner: [a]\n", "x.yaml:1: owner: expected a string, got a "
	    "sequence");
	BAD("owner:\n  - a\n", "x.yaml:1: owner: expected a string, got a "
	    "sequence");
	BAD("owner: yes\n", "x.yaml:1: owner: expected a string, got a "
	    "boolean (quote it if you mean the text)");
	BAD("owner:\n", "x.yaml:1: owner: expected a string, got null");
	BAD("socket: true\n", "x.yaml:1: socket: expected a path, got a "
	    "boolean");
	BAD("state_dir: ~\n", "x.yaml:1: state_dir: expected a path, got "
	    "null");
	BAD("state_dir: {a: 1}\n", "x.yaml:1: state_dir: expected a path, "
	    "got a mapping");
	BAD("incus: unix:/x\n", "x.yaml:1: incus: expected a mapping, got "
	    "a string");
	BAD("incus: [url]\n", "x.yaml:1: incus: expected a mapping, got a "
	    "sequence");
	BAD("incus:\n  url: off\n", "x.yaml:2: incus.url: expected a "
	    "string, got a boolean (quote it if you mean the text)");
	BAD("- owner: bob\n", "x.yaml:1: expected a mapping at the top "
	    "level, got a sequence");
	BAD("just text\n", "x.yaml:1: expected a mapping at the top level, "
	    "got a string");
	BAD("\n42\n", "x.yaml:2: expected a mapping at the top level, got "
	    "an integer");
}

ATF_TC_WITHOUT_HEAD(paths);
ATF_TC_BODY(paths, tc)
{
	struct jb_conf	 c;
	char		*y;
	size_t		 n;

	BAD("socket: run/x.sock\n", "x.yaml:1: socket: must be an "
	    "absolute path");
	BAD("state_dir: ''\n", "x.yaml:1: state_dir: must be an absolute "
	    "path");
	BAD("state_dir: ~/x\n", "x.yaml:1: state_dir: must be an absolute "
	    "path");
	BAD("state_dir: /var/../etc\n", "x.yaml:1: state_dir: must not "
	    "contain a \"..\" component");
	BAD("state_dir: /var/..\n", "x.yaml:1: state_dir: must not "
	    "contain a \"..\" component");
	BAD("state_dir: /..\n", "x.yaml:1: state_dir: must not contain a "
	    "\"..\" component");
	/* nothing is normalised, and names merely holding dots are fine */
	GOOD("state_dir: /var/..x/a..b/.../.\n", &c);
	ATF_CHECK_STREQ("/var/..x/a..b/.../.", c.state_dir);
	GOOD("socket: //run//x/\n", &c);
	ATF_CHECK_STREQ("//run//x/", c.socket);

	/* state_dir: PATH_MAX - 1 bytes fit, one more does not */
	n = strlen("state_dir: ") + PATH_MAX + 2;
	ATF_REQUIRE((y = malloc(n)) != NULL);
	(void)strlcpy(y, "state_dir: /", n);
	memset(y + 12, 'a', PATH_MAX - 2);
	y[12 + PATH_MAX - 2] = '\0';
	GOOD(y, &c);
	ATF_CHECK(strlen(c.state_dir) == PATH_MAX - 1);
	(void)strlcat(y, "a", n);
	BAD(y, "x.yaml:1: state_dir: too long (at most 4095 bytes)");
	free(y);

	/* the socket must fit in sun_path */
	GOOD("socket: /12345678901234567890123456789012345678901234567890"
	    "12345678901234567890123456789012345678901234567890123456\n", &c);
	ATF_CHECK(strlen(c.socket) == 107);
	BAD("socket: /12345678901234567890123456789012345678901234567890"
	    "123456789012345678901234567890123456789012345678901234567\n",
	    "x.yaml:1: socket: too long for a unix socket (at most 107 "
	    "bytes)");
}

ATF_TC_WITHOUT_HEAD(owner_names);
ATF_TC_BODY(owner_names, tc)
{
	static const char	*ok[] = { "bob", "_svc", "a-b_c9", "smb$",
	    "a", "_", "abcdefghijklmnopqrstuvwxyz012345" };
	static const char	*no[] = { "''", "Bob", "1bob", "-bob",
	    "'bo b'", "bob$x", "a$$", "'$'", "b.o", "bøb" };
	struct jb_conf		 c;
	char			 y[128], want[256];
	size_t			 i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		(void)snprintf(y, sizeof(y), "owner: %s\n", ok[i]);
		GOOD(y, &c);
		ATF_CHECK_STREQ(ok[i], c.owner);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		(void)snprintf(y, sizeof(y), "\nowner: %s\n", no[i]);
		(void)snprintf(want, sizeof(want), "x.yaml:2: owner: not a "
		    "login name ([a-z_][a-z0-9_-]*[$]?, at most 32 "
		    "characters)");
		BAD(y, want);
	}
	BAD("owner: abcdefghijklmnopqrstuvwxyz0123456\n",
	    "x.yaml:1: owner: too long (at most 32 bytes)");
}

/* jb-netd's upstream resolver: one IPv4 address */
ATF_TC_WITHOUT_HEAD(resolver_upstream);
ATF_TC_BODY(resolver_upstream, tc)
{
	struct jb_conf	c;
	char		err[JB_ERR_MAX] = "";
	static const char ok[] = "resolver:\n  upstream: 192.0.2.53\n";

	conf_defaults(&c);
	ATF_CHECK_STREQ(c.resolver_upstream, "");
	ATF_REQUIRE_MSG(conf_parse("x.yaml", ok, strlen(ok), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ(c.resolver_upstream, "192.0.2.53");
	BAD("resolver:\n  upstream: dns.example\n",
	    "x.yaml:2: resolver.upstream: not an IPv4 address (the resolver "
	    "jb-netd asks on port 53, e.g. 192.0.2.53)");
	BAD("resolver: {upstreams: 1}\n",
	    "x.yaml:1: resolver.upstreams: unknown key (known: upstream, "
	    "private_networks)");
}

/* cluster.member: the Incus member name this suite enforces */
ATF_TC_WITHOUT_HEAD(cluster_member);
ATF_TC_BODY(cluster_member, tc)
{
	struct jb_conf	c;
	char		err[JB_ERR_MAX] = "";
	static const char ok[] = "cluster:\n  member: m2\n";

	conf_defaults(&c);
	ATF_CHECK_STREQ(c.cluster_member, "");
	ATF_REQUIRE_MSG(conf_parse("x.yaml", ok, strlen(ok), &c, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ(c.cluster_member, "m2");
	BAD("cluster:\n  member: m_2\n",
	    "x.yaml:2: cluster.member: not an Incus cluster member name "
	    "(1-63 of letters, digits and '-', as `incus cluster list` "
	    "shows it)");
	BAD("cluster: {member: -m}\n",
	    "x.yaml:1: cluster.member: not an Incus cluster member name "
	    "(1-63 of letters, digits and '-', as `incus cluster list` "
	    "shows it)");
	BAD("cluster: {members: m2}\n",
	    "x.yaml:1: cluster.members: unknown key (known: member)");
}

/* ranges the resolver may admit from answers although not public */
ATF_TC_WITHOUT_HEAD(resolver_private_networks);
ATF_TC_BODY(resolver_private_networks, tc)
{
	struct jb_conf	c;
	FILE		*f;
	char		*buf = NULL;
	size_t		 len = 0;

	conf_defaults(&c);
	ATF_CHECK_EQ(c.resolver_nprivate, 0);
	GOOD("resolver:\n  private_networks: [10.1.0.0/16, "
	    "169.254.169.254/32]\n", &c);
	ATF_REQUIRE_EQ(c.resolver_nprivate, 2);
	ATF_CHECK_STREQ(c.resolver_private[0], "10.1.0.0/16");
	ATF_CHECK_STREQ(c.resolver_private[1], "169.254.169.254/32");
	/* printed as read back */
	ATF_REQUIRE((f = open_memstream(&buf, &len)) != NULL);
	conf_print(f, &c);
	fclose(f);
	ATF_CHECK_MSG(strstr(buf, "resolver:\n  private_networks: "
	    "[\"10.1.0.0/16\", \"169.254.169.254/32\"]\n") != NULL, "%s",
	    buf);
	free(buf);
	GOOD("resolver:\n  private_networks:\n", &c);
	ATF_CHECK_EQ(c.resolver_nprivate, 0);
	BAD("resolver:\n  private_networks: [10.1.0.1/16]\n",
	    "x.yaml:2: resolver.private_networks[0]: host bits are set: the "
	    "subnet is 10.1.0.0/16");
	BAD("resolver:\n  private_networks: [10.0.0.0/8, meta]\n",
	    "x.yaml:2: resolver.private_networks[1]: not a subnet A.B.C.D/N "
	    "(e.g. 10.213.0.0/24)");
	BAD("resolver:\n  private_networks: [0.0.0.0/0]\n",
	    "x.yaml:2: resolver.private_networks[0]: /0 is outside /4 to /32 "
	    "(a /32 holds 1 addresses, a /4 268435456)");
	BAD("resolver:\n  private_networks: 10.0.0.0/8\n",
	    "x.yaml:2: resolver.private_networks: expected a list, found a "
	    "string");
}

/* the bridge's subnet: default 10.213.0.0/24, /16 to /24, host bits clear */
ATF_TC_WITHOUT_HEAD(network_subnet);
ATF_TC_BODY(network_subnet, tc)
{
	struct jb_conf	c;

	conf_defaults(&c);
	ATF_CHECK_STREQ(c.subnet, "10.213.0.0/24");
	GOOD("network:\n  subnet: 10.214.16.0/20\n", &c);
	ATF_CHECK_STREQ(c.subnet, "10.214.16.0/20");
	GOOD("network: {subnet: 172.16.0.0/16}\n", &c);
	ATF_CHECK_STREQ(c.subnet, "172.16.0.0/16");
	BAD("network:\n  subnet: 10.214.17.0/20\n",
	    "x.yaml:2: network.subnet: host bits are set: the subnet is "
	    "10.214.16.0/20");
	BAD("network: {subnet: 10.0.0.0/8}\n",
	    "x.yaml:1: network.subnet: /8 is outside /16 to /24 (a /24 holds "
	    "256 addresses, a /16 65536)");
	BADP("network: {subnet: 10.213.0.0/28}\n",
	    "x.yaml:1: network.subnet: /28 is outside /16 to /24");
	BAD("network: {subnet: 10.213.0.0}\n",
	    "x.yaml:1: network.subnet: not a subnet A.B.C.D/N (e.g. "
	    "10.213.0.0/24)");
	BADP("network: {subnet: 10.213.000.0/24}\n",
	    "x.yaml:1: network.subnet: not a subnet A.B.C.D/N");
	BADP("network: {subnet: [10.213.0.0/24]}\n",
	    "x.yaml:1: network.subnet: expected");
	BAD("network: {subnets: 1}\n",
	    "x.yaml:1: network.subnets: unknown key (known: subnet, "
	    "trust_host_cas, gateway_ports, gateway_trust, proxy_port, "
	    "proxy_env)");
}

ATF_TC_WITHOUT_HEAD(gateway_ports);
ATF_TC_BODY(gateway_ports, tc)
{
	struct jb_conf	c;

	GOOD("owner: alice\n", &c);
	ATF_CHECK_EQ(c.gw_nports, 2);
	ATF_CHECK_STREQ(c.gw_ports[0], "443");
	ATF_CHECK_STREQ(c.gw_ports[1], "80");
	GOOD("network: {gateway_ports: [443, 8443]}\n", &c);
	ATF_CHECK_EQ(c.gw_nports, 2);
	ATF_CHECK_STREQ(c.gw_ports[1], "8443");
	GOOD("network: {gateway_ports: []}\n", &c);
	ATF_CHECK_EQ(c.gw_nports, 0);
	BAD("network: {gateway_ports: [443, 53]}\n",
	    "x.yaml:1: network.gateway_ports[1]: \"53\": a gateway port is a "
	    "TCP port 1-65535 other than 53 (e.g. 443)");
	BAD("network: {gateway_ports: [443, 443]}\n",
	    "x.yaml:1: network.gateway_ports: port 443 is listed twice");
	BAD("network: {gateway_ports: [1,2,3,4,5,6,7,8,9]}\n",
	    "x.yaml:1: network.gateway_ports: at most 8 gateway ports");
	BAD("network: {gateway_ports: [99999]}\n",
	    "x.yaml:1: network.gateway_ports[0]: \"99999\": a gateway port is "
	    "a TCP port 1-65535 other than 53 (e.g. 443)");
}

/* network.proxy_port: 3128 unless set, 0 for none; network.proxy_env */
ATF_TC_WITHOUT_HEAD(proxy_keys);
ATF_TC_BODY(proxy_keys, tc)
{
	struct jb_conf	c;

	GOOD("owner: alice\n", &c);
	ATF_CHECK_EQ(c.proxy_port, 3128);
	ATF_CHECK_EQ(c.proxy_env, 0);
	GOOD("network: {proxy_port: 8888, proxy_env: true}\n", &c);
	ATF_CHECK_EQ(c.proxy_port, 8888);
	ATF_CHECK_EQ(c.proxy_env, 1);
	GOOD("network: {proxy_port: 0}\n", &c);
	ATF_CHECK_EQ(c.proxy_port, 0);
	BAD("network: {proxy_port: 3129}\n",
	    "x.yaml:1: network.proxy_port: port 3129 is the suite's own on the "
	    "bridge address (DNS, the gateway, the resolver): choose another, "
	    "e.g. 3128");
	BAD("network: {proxy_port: 53}\n",
	    "x.yaml:1: network.proxy_port: port 53 is the suite's own on the "
	    "bridge address (DNS, the gateway, the resolver): choose another, "
	    "e.g. 3128");
	BAD("network: {proxy_port: 70000}\n",
	    "x.yaml:1: network.proxy_port: a TCP port 1-65535, or 0 for no "
	    "explicit proxy (default 3128)");
	BAD("network: {proxy_port: \"3128\"}\n",
	    "x.yaml:1: network.proxy_port: a TCP port 1-65535, or 0 for no "
	    "explicit proxy (default 3128)");
	BADP("network: {proxy_env: 1}\n",
	    "x.yaml:1: network.proxy_env: ");
}

/* network.trust_host_cas: off unless set, a boolean */
ATF_TC_WITHOUT_HEAD(network_trust_host_cas);
ATF_TC_BODY(network_trust_host_cas, tc)
{
	struct jb_conf	c;

	conf_defaults(&c);
	ATF_CHECK_EQ(c.trust_host_cas, 0);
	GOOD("network:\n  trust_host_cas: true\n", &c);
	ATF_CHECK_EQ(c.trust_host_cas, 1);
	GOOD("network: {trust_host_cas: false}\n", &c);
	ATF_CHECK_EQ(c.trust_host_cas, 0);
	BADP("network: {trust_host_cas: maybe}\n",
	    "x.yaml:1: network.trust_host_cas: ");
}

ATF_TC_WITHOUT_HEAD(incus_urls);
ATF_TC_BODY(incus_urls, tc)
{
	static const char	*ok[] = { "unix:/var/lib/incus/unix.socket",
	    "unix:/s", "https://incus", "https://incus.example.org",
	    "https://Incus-1.example.org:8443", "https://10.0.0.1",
	    "https://10.0.0.1:1", "https://[::1]", "https://[fd00::1]:65535",
	    "https://[::ffff:10.0.0.1]:443" };
	static const struct {
		const char	*url;
		const char	*why;
	} no[] = {
		{ "unix:relative", "unix: socket path must be an absolute "
		    "path" },
		{ "unix:", "unix: socket path must be an absolute path" },
		{ "unix:/a/../b", "unix: socket path must not contain a "
		    "\"..\" component" },
		{ "unix:/1234567890123456789012345678901234567890123456789"
		    "01234567890123456789012345678901234567890123456789012"
		    "34567", "unix: socket path too long (at most 107 bytes)" },
		{ "http://incus", "not a supported URL" },
		{ "HTTPS://incus", "not a supported URL" },
		{ "/var/lib/incus/unix.socket", "not a supported URL" },
		{ "incus:8443", "not a supported URL" },
		{ "https://", "no host" },
		{ "https://:8443", "no host" },
		{ "https://incus:0", "port must be 1-65535" },
		{ "https://incus:65536", "port must be 1-65535" },
		{ "https://incus:", "port must be 1-65535" },
		{ "https://incus:-1", "port must be 1-65535" },
		{ "https://incus:84a3", "port must be 1-65535" },
		{ "https://incus:000443", "port must be 1-65535" },
		{ "https://incus:8443/", "port must be 1-65535" },
		{ "https://incus/", "unexpected text after the host (no "
		    "path)" },
		{ "https://incus?x", "unexpected text after the host (no "
		    "path)" },
		{ "https://[::1]x", "unexpected text after the host (no "
		    "path)" },
		{ "https://user@incus", "bad host name" },
		{ "https://in_cus", "bad host name" },
		{ "https://-incus", "bad host name" },
		{ "https://incus-.org", "bad host name" },
		{ "https://incus.", "bad host name" },
		{ "https://a..b", "bad host name" },
		{ "https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaaaaaaaaaaaa.org", "bad host name" },
		{ "https://10.0.0.256", "bad IPv4 address" },
		{ "https://10.0.1", "bad IPv4 address" },
		{ "https://8443", "bad IPv4 address" },
		{ "https://[::1", "unclosed [ in the host" },
		{ "https://[::g]", "bad IPv6 address" },
		{ "https://[fe80::1%eth0]", "bad IPv6 address" },
		{ "https://[10.0.0.1]", "bad IPv6 address" },
		{ "https://::1", "no host" },
	};
	struct jb_conf	c;
	char		y[512], want[JB_ERR_MAX];
	size_t		i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		(void)snprintf(y, sizeof(y), "incus:\n  url: '%s'\n"
		    "  client_cert: /c.pem\n  client_key: /k.pem\n"
		    "  server_cert: /s.pem\n", ok[i]);
		GOOD(y, &c);
		ATF_CHECK_STREQ(ok[i], c.incus_url);
	}
	/* https without its three certificate files is refused */
	BAD("incus:\n  url: https://incus\n  client_cert: /c.pem\n",
	    "x.yaml:1: incus: an https url needs client_cert, client_key and "
	    "server_cert");
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		(void)snprintf(y, sizeof(y), "incus:\n  url: '%s'\n",
		    no[i].url);
		if (strncmp(no[i].why, "unix:", 5) == 0)
			(void)snprintf(want, sizeof(want),
			    "x.yaml:2: incus.url: %s", no[i].why);
		else
			(void)snprintf(want, sizeof(want),
			    "x.yaml:2: incus.url: %s (use unix:/absolute/path "
			    "or https://host[:port], the host a DNS name, an "
			    "IPv4 address or an [IPv6] address)", no[i].why);
		BAD(y, want);
	}
	/* a 63-byte label is the longest allowed */
	GOOD("incus: {url: 'https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaa.org', client_cert: /c, client_key: /k, "
	    "server_cert: /s}", &c);
}

ATF_TC_WITHOUT_HEAD(duplicates);
ATF_TC_BODY(duplicates, tc)
{
	BAD("owner: a\nsocket: /x\nowner: b\n",
	    "x.yaml:3: owner: duplicate key (first on line 1)");
	BAD("'owner': a\n\"owner\": b\n",
	    "x.yaml:2: owner: duplicate key (first on line 1)");
	BAD("incus:\n  url: unix:/a\n  url: unix:/b\n",
	    "x.yaml:3: incus.url: duplicate key (first on line 2)");
	BAD("{incus: {}, incus: {}}",
	    "x.yaml:1: incus: duplicate key (first on line 1)");
}

ATF_TC_WITHOUT_HEAD(anchors_aliases);
ATF_TC_BODY(anchors_aliases, tc)
{
	BAD("owner: &o bob\n",
	    "x.yaml:1: owner: anchors (&o) are not allowed");
	BAD("incus: &i\n  url: unix:/x\n",
	    "x.yaml:1: incus: anchors (&i) are not allowed");
	BAD("incus:\n  url: *u\n",
	    "x.yaml:2: incus.url: aliases (*u) are not allowed");
	BAD("&top {owner: bob}\n",
	    "x.yaml:1: anchors (&top) are not allowed");
	/* the classic billion laughs dies at its first anchor */
	BAD("a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a]\nc: [*b,*b]\n",
	    "x.yaml:1: a: anchors (&a) are not allowed");
	BAD("x: [a, &b c]\n", "x.yaml:1: x[1]: anchors (&b) are not allowed");
}

ATF_TC_WITHOUT_HEAD(tags);
ATF_TC_BODY(tags, tc)
{
	BAD("owner: !local bob\n", "x.yaml:1: owner: tag !local is not "
	    "allowed (only the standard !! types)");
	BAD("%TAG !e! tag:example.com,2000:\n---\nowner: !e!x bob\n",
	    "x.yaml:3: owner: tag tag:example.com,2000:x is not allowed "
	    "(only the standard !! types)");
	BAD("owner: !!binary aGk=\n", "x.yaml:1: owner: tag !!binary is "
	    "not allowed");
	BAD("owner: !!python/object:os.system x\n", "x.yaml:1: owner: tag "
	    "!!python/object:os.system is not allowed");
	BAD("owner: !!int bob\n", "x.yaml:1: owner: tag !!int does not "
	    "fit this value");
	BAD("owner: !!bool bob\n", "x.yaml:1: owner: tag !!bool does not "
	    "fit this value");
	BAD("owner: !!null bob\n", "x.yaml:1: owner: tag !!null does not "
	    "fit this value");
	BAD("incus: !!seq {}\n", "x.yaml:1: incus: tag !!seq is not allowed "
	    "here");
	BAD("incus: !!set {}\n", "x.yaml:1: incus: tag !!set is not allowed "
	    "here");
	BAD("incus: !!map []\n", "x.yaml:1: incus: tag !!map is not allowed "
	    "here");
	/* an explicit !!bool is refused by a string field like a plain one */
	BAD("socket: !!bool true\n", "x.yaml:1: socket: expected a path, "
	    "got a boolean");
}

ATF_TC_WITHOUT_HEAD(documents);
ATF_TC_BODY(documents, tc)
{
	BAD("owner: a\n---\nowner: b\n",
	    "x.yaml:2: only one YAML document is allowed");
	BAD("---\n---\n", "x.yaml:2: only one YAML document is allowed");
}

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct yt_node	*root;
	char		 err[JB_ERR_MAX], *y;
	size_t		 i, n;

	/* the top-level mapping is level 1: x plus 31 more fit */
	y = nested(YT_DEPTH_MAX - 1);
	ATF_CHECK_MSG(yt_load("x.yaml", y, strlen(y), &root, err,
	    sizeof(err)) == 0, "%s", err);
	yt_free(root);
	free(y);
	y = nested(YT_DEPTH_MAX);
	ATF_CHECK(yt_load("x.yaml", y, strlen(y), &root, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MATCH("^x\\.yaml:1: x(\\[0\\]){31}: nested deeper than 32 "
	    "levels$", err);
	free(y);
	y = nested(100000);
	ATF_CHECK(yt_load("x.yaml", y, strlen(y), &root, err,
	    sizeof(err)) == -1);
	ATF_CHECK_MATCH("^x\\.yaml:1: x(\\[0\\]){31}: nested deeper than 32 "
	    "levels$", err);
	BADP(y, "x.yaml:1: x[0][0]");
	free(y);

	/* YT_NODES_MAX nodes: the root, the key, the list, its items */
	n = 8 + 2 * YT_NODES_MAX;
	ATF_REQUIRE((y = malloc(n)) != NULL);
	(void)strlcpy(y, "x: [1", n);
	for (i = 1; i < YT_NODES_MAX - 3; i++)
		(void)strlcat(y, ",1", n);
	(void)strlcat(y, "]", n);
	ATF_CHECK_MSG(yt_load("x.yaml", y, strlen(y), &root, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK(root != NULL && root->pairs[0].val->nitems ==
	    YT_NODES_MAX - 3);
	yt_free(root);
	y[strlen(y) - 1] = '\0';
	(void)strlcat(y, ",1]", n);
	BAD(y, "x.yaml:1: x: more than 10000 nodes");
	free(y);

	/* any scalar over YT_SCALAR_MAX is refused while loading */
	n = YT_SCALAR_MAX + 16;
	ATF_REQUIRE((y = malloc(n)) != NULL);
	(void)strlcpy(y, "owner: ", n);
	memset(y + 7, 'a', YT_SCALAR_MAX + 1);
	y[7 + YT_SCALAR_MAX + 1] = '\0';
	BAD(y, "x.yaml:1: owner: value longer than 65535 bytes");
	y[7 + YT_SCALAR_MAX] = '\0';
	BAD(y, "x.yaml:1: owner: too long (at most 32 bytes)");
	free(y);

	BAD("owner: \"bo\\0b\"\n", "x.yaml:1: owner: value contains a NUL "
	    "byte");
	BAD("\"a\\0\": 1\n", "x.yaml:1: value contains a NUL byte");
}

ATF_TC_WITHOUT_HEAD(untouched_on_error);
ATF_TC_BODY(untouched_on_error, tc)
{
	struct jb_conf	c, before;
	char		err[JB_ERR_MAX];

	/* the good keys before the bad one must not leak through */
	BAD("owner: alice\nsocket: /run/a.sock\nstate_dir: rel\n",
	    "x.yaml:3: state_dir: must be an absolute path");
	BAD("owner: alice\nincus:\n  url: ftp://x\n",
	    "x.yaml:3: incus.url: not a supported URL (use unix:/absolute/"
	    "path or https://host[:port], the host a DNS name, an IPv4 "
	    "address or an [IPv6] address)");

	/* a tiny error buffer is filled, terminated and not overrun */
	sentinel(&c);
	before = c;
	memset(err, 'Z', sizeof(err));
	ATF_CHECK(conf_parse("x.yaml", "owner: 1", 8, &c, err, 12) == -1);
	ATF_CHECK_STREQ("x.yaml:1: o", err);
	ATF_CHECK(err[12] == 'Z');
	ATF_CHECK(conf_parse("x.yaml", "owner: 1", 8, &c, NULL, 0) == -1);
	ATF_CHECK(memcmp(&c, &before, sizeof(c)) == 0);
	/* not NUL-terminated input: only len bytes are read */
	ATF_CHECK(conf_parse("x.yaml", "owner: bobXXXX", 10, &c, err,
	    sizeof(err)) == 0);
	ATF_CHECK_STREQ("bob", c.owner);
}

/*
 * The generic layer: every field type of the schema, as the repository
 * config will use them.
 */
struct tconf {
	char			 name[8];
	char			 dir[64];
	char			 opt[16];
	int			 flag;
	int			 small;
	int64_t			 big;
	int64_t			 ttl;
	struct yt_strlist	 list;
	char			 req[8];
	int			 custom;
};

static int
valid_noz(const char *s, char *why, size_t whylen)
{
	if (strchr(s, 'z') == NULL)
		return 0;
	(void)strlcpy(why, "no z, please", whylen);
	return -1;
}

/* a custom field: a mapping {n: INT} or a bare integer */
static int
custom_fn(struct yt_ctx *ctx, const struct yt_node *n, void *dst)
{
	const struct yt_node	*v = n;
	int64_t			 i;
	size_t			 saved;
	int			 rc;

	if (n->kind == YT_MAPPING) {
		if ((v = yt_get(n, "n")) == NULL)
			return yt_error(ctx, n, "needs n");
		saved = yt_path_push(ctx, "n");
		rc = yt_get_int(ctx, v, 0, 9, &i);
		yt_path_pop(ctx, saved);
	} else
		rc = yt_get_int(ctx, v, 0, 9, &i);
	if (rc == 0)
		*(int *)dst = (int)i;
	return rc;
}

static const struct yt_field tsub[] = {
	{ .key = "req", .type = YT_STRING, .off = offsetof(struct tconf, req),
	  .size = sizeof(((struct tconf *)NULL)->req), .flags = YT_REQUIRED },
	{ .key = NULL }
};

static const struct yt_field tfields[] = {
	{ .key = "name", .type = YT_STRING,
	  .off = offsetof(struct tconf, name),
	  .size = sizeof(((struct tconf *)NULL)->name), .valid = valid_noz },
	{ .key = "dir", .type = YT_PATH, .off = offsetof(struct tconf, dir),
	  .size = sizeof(((struct tconf *)NULL)->dir) },
	{ .key = "opt", .type = YT_STRING, .off = offsetof(struct tconf, opt),
	  .size = sizeof(((struct tconf *)NULL)->opt), .flags = YT_NULL_OK },
	{ .key = "flag", .type = YT_BOOL, .off = offsetof(struct tconf, flag) },
	{ .key = "small", .type = YT_INT, .off = offsetof(struct tconf, small),
	  .size = sizeof(int), .min = -5, .max = 100 },
	{ .key = "big", .type = YT_INT, .off = offsetof(struct tconf, big),
	  .size = sizeof(int64_t), .min = INT64_MIN, .max = INT64_MAX },
	{ .key = "ttl", .type = YT_DURATION, .off = offsetof(struct tconf, ttl),
	  .min = 1, .max = DURATION_MAX_DEFAULT, .flags = YT_NULL_OK },
	{ .key = "list", .type = YT_STRLIST,
	  .off = offsetof(struct tconf, list), .size = 6, .max = 4,
	  .valid = valid_noz, .flags = YT_NULL_OK },
	{ .key = "sub", .type = YT_MAP, .sub = tsub },
	{ .key = "custom", .type = YT_CUSTOM,
	  .off = offsetof(struct tconf, custom), .fn = custom_fn },
	{ .key = NULL }
};

/* apply yaml onto *t; the req key is there unless the test is about it */
static int
tapply(const char *yaml, struct tconf *t, char *err, size_t errlen)
{
	struct yt_node	*root;
	struct yt_ctx	 ctx;
	int		 rc;

	if (yt_load("t.yaml", yaml, strlen(yaml), &root, err, errlen) == -1)
		return -1;
	yt_ctx_init(&ctx, "t.yaml", err, errlen);
	rc = yt_apply(&ctx, root, tfields, t);
	yt_free(root);
	/* the path is back where it started, whatever happened */
	ATF_CHECK(ctx.pathlen == 0 || rc == -1);
	return rc;
}

static void
tbad(int line, const char *yaml, const char *want)
{
	struct tconf	t;
	char		err[JB_ERR_MAX] = "";

	memset(&t, 0, sizeof(t));
	ATF_CHECK_MSG(tapply(yaml, &t, err, sizeof(err)) == -1,
	    "line %d: accepted", line);
	ATF_CHECK_MSG(strcmp(err, want) == 0, "line %d:\n got: %s\nwant: %s",
	    line, err, want);
	yt_strlist_free(&t.list);
}
#define TBAD(yaml, want)	tbad(__LINE__, (yaml), (want))

#define SUBOK	"sub: {req: r}\n"

ATF_TC_WITHOUT_HEAD(schema_types);
ATF_TC_BODY(schema_types, tc)
{
	struct tconf	t;
	char		err[JB_ERR_MAX];

	memset(&t, 0, sizeof(t));
	ATF_REQUIRE_MSG(tapply(SUBOK "name: abc\ndir: /d\nopt: o\n"
	    "flag: yes\nsmall: -5\nbig: -9223372036854775808\nttl: 1h30m\n"
	    "list: [a, 'b', \"c\"]\ncustom: {n: 7}\n", &t, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK_STREQ("abc", t.name);
	ATF_CHECK_STREQ("/d", t.dir);
	ATF_CHECK_STREQ("o", t.opt);
	ATF_CHECK_STREQ("r", t.req);
	ATF_CHECK(t.flag == 1);
	ATF_CHECK(t.small == -5);
	ATF_CHECK(t.big == INT64_MIN);
	ATF_CHECK(t.ttl == 5400);
	ATF_CHECK(t.list.n == 3 && strcmp(t.list.v[0], "a") == 0 &&
	    strcmp(t.list.v[2], "c") == 0 && t.list.v[3] == NULL);
	ATF_CHECK(t.custom == 7);

	/* layering: later scalars win, lists append, [] and null reset */
	ATF_REQUIRE_MSG(tapply(SUBOK "flag: Off\nbig: 9223372036854775807\n"
	    "ttl: 30\nlist: [d]\ncustom: 3\nopt: ~\n", &t, err,
	    sizeof(err)) == 0, "%s", err);
	ATF_CHECK(t.flag == 0);
	ATF_CHECK(t.big == INT64_MAX);
	ATF_CHECK(t.ttl == 1800);
	ATF_CHECK(t.custom == 3);
	ATF_CHECK_STREQ("", t.opt);
	ATF_CHECK_STREQ("abc", t.name);
	ATF_CHECK(t.list.n == 4 && strcmp(t.list.v[3], "d") == 0);
	ATF_REQUIRE(tapply(SUBOK "list: []\n", &t, err, sizeof(err)) == 0);
	ATF_CHECK(t.list.n == 0 && t.list.v == NULL);
	ATF_REQUIRE(tapply(SUBOK "list: [x]\nttl:\n", &t, err,
	    sizeof(err)) == 0);
	ATF_CHECK(t.list.n == 1 && t.ttl == 0);
	ATF_REQUIRE(tapply(SUBOK "list: null\n", &t, err, sizeof(err)) == 0);
	ATF_CHECK(t.list.n == 0);
	yt_strlist_free(&t.list);

	/*
	 * an empty document applies nothing; an absent or null section is
	 * not looked into for its required keys
	 */
	memset(&t, 0, sizeof(t));
	ATF_CHECK(tapply("", &t, err, sizeof(err)) == 0);
	ATF_CHECK(tapply("sub:\n", &t, err, sizeof(err)) == 0);
}

ATF_TC_WITHOUT_HEAD(schema_errors);
ATF_TC_BODY(schema_errors, tc)
{
	TBAD(SUBOK "name: toolong1\n",
	    "t.yaml:2: name: too long (at most 7 bytes)");
	TBAD(SUBOK "name: zed\n", "t.yaml:2: name: no z, please");
	TBAD(SUBOK "dir: d\n", "t.yaml:2: dir: must be an absolute path");
	TBAD(SUBOK "opt: [a]\n",
	    "t.yaml:2: opt: expected a string, got a sequence");
	TBAD(SUBOK "flag: maybe\n",
	    "t.yaml:2: flag: expected true or false, got a string");
	TBAD(SUBOK "flag: 'true'\n",
	    "t.yaml:2: flag: expected true or false, got a string");
	TBAD(SUBOK "flag: 1\n",
	    "t.yaml:2: flag: expected true or false, got an integer");
	TBAD(SUBOK "flag:\n", "t.yaml:2: flag: expected true or false, got "
	    "null");
	TBAD(SUBOK "small: 101\n",
	    "t.yaml:2: small: must be between -5 and 100");
	TBAD(SUBOK "small: -6\n",
	    "t.yaml:2: small: must be between -5 and 100");
	TBAD(SUBOK "small: '5'\n",
	    "t.yaml:2: small: expected an integer, got a string");
	TBAD(SUBOK "small: 1.5\n",
	    "t.yaml:2: small: expected an integer, got a number");
	TBAD(SUBOK "small: 0x10\n", "t.yaml:2: small: expected a decimal "
	    "integer without leading zeros");
	TBAD(SUBOK "small: 010\n", "t.yaml:2: small: expected a decimal "
	    "integer without leading zeros");
	TBAD(SUBOK "big: 9223372036854775808\n", "t.yaml:2: big: must be "
	    "between -9223372036854775808 and 9223372036854775807");
	TBAD(SUBOK "big: -9223372036854775809\n", "t.yaml:2: big: must be "
	    "between -9223372036854775808 and 9223372036854775807");
	TBAD(SUBOK "ttl: 25h\n", "t.yaml:2: ttl: duration \"25h\": must be "
	    "at most 24h (forms: 30s, 45m, 4h, 1h30m, or minutes as a bare "
	    "number)");
	TBAD(SUBOK "ttl: 0\n", "t.yaml:2: ttl: duration \"0\": must be at "
	    "least 1s (forms: 30s, 45m, 4h, 1h30m, or minutes as a bare "
	    "number)");
	TBAD(SUBOK "ttl: true\n",
	    "t.yaml:2: ttl: expected a duration, got a boolean");
	TBAD(SUBOK "ttl: {}\n",
	    "t.yaml:2: ttl: expected a duration, got a mapping");
	TBAD(SUBOK "list: a\n",
	    "t.yaml:2: list: expected a sequence of strings, got a string");
	TBAD(SUBOK "list:\n  - a\n  - [b]\n",
	    "t.yaml:4: list[1]: expected a string, got a sequence");
	TBAD(SUBOK "list: [a, no]\n", "t.yaml:2: list[1]: expected a "
	    "string, got a boolean");
	TBAD(SUBOK "list: [a, ~]\n", "t.yaml:2: list[1]: expected a "
	    "string, got null");
	TBAD(SUBOK "list: [a, abcdef]\n",
	    "t.yaml:2: list[1]: too long (at most 5 bytes)");
	TBAD(SUBOK "list: [a, b, z]\n", "t.yaml:2: list[2]: no z, please");
	TBAD(SUBOK "list: [a, b, c, d, e]\n",
	    "t.yaml:2: list: more than 4 items");
	TBAD("sub: {}\n", "t.yaml:1: sub.req: missing (this key is "
	    "required)");
	TBAD("sub: {req: [x]}\n",
	    "t.yaml:1: sub.req: expected a string, got a sequence");
	TBAD(SUBOK "sub2: {}\n", "t.yaml:2: sub2: unknown key (known: name, "
	    "dir, opt, flag, small, big, ttl, list, sub, custom)");
	TBAD("sub: {req: r, x: 1}\n",
	    "t.yaml:1: sub.x: unknown key (known: req)");
	TBAD(SUBOK "custom: {m: 1}\n", "t.yaml:2: custom: needs n");
	TBAD(SUBOK "custom:\n  n: 10\n",
	    "t.yaml:3: custom.n: must be between 0 and 9");
}

ATF_TC_WITHOUT_HEAD(tree_access);
ATF_TC_BODY(tree_access, tc)
{
	struct yt_node		*root;
	const struct yt_node	*v;
	char			 err[JB_ERR_MAX];
	static const char	 y[] =
	    "a: 1\n"
	    "b: [x, 'y', 2.5, ~, on]\n"
	    "c:\n"
	    "  d: |\n"
	    "    two\n"
	    "    lines\n"
	    "e: .inf\n";

	ATF_REQUIRE(yt_load("t.yaml", y, strlen(y), &root, err,
	    sizeof(err)) == 0);
	ATF_REQUIRE(root != NULL && root->kind == YT_MAPPING);
	ATF_CHECK(root->npairs == 4 && root->line == 1);
	ATF_CHECK((v = yt_get(root, "a")) != NULL &&
	    strcmp(yt_describe(v), "an integer") == 0 && v->line == 1);
	ATF_REQUIRE((v = yt_get(root, "b")) != NULL && v->nitems == 5);
	ATF_CHECK_STREQ("a sequence", yt_describe(v));
	ATF_CHECK_STREQ("a string", yt_describe(v->items[0]));
	ATF_CHECK_STREQ("a string", yt_describe(v->items[1]));
	ATF_CHECK_STREQ("a number", yt_describe(v->items[2]));
	ATF_CHECK_STREQ("null", yt_describe(v->items[3]));
	ATF_CHECK(yt_is_null(v->items[3]) && !yt_is_null(v->items[0]));
	ATF_CHECK_STREQ("a boolean", yt_describe(v->items[4]));
	/* a block mapping under a key is reported at its key */
	ATF_REQUIRE((v = yt_get(root, "c")) != NULL);
	ATF_CHECK(v->kind == YT_MAPPING && v->line == 3);
	ATF_REQUIRE((v = yt_get(v, "d")) != NULL);
	ATF_CHECK_STREQ("two\nlines\n", v->str);
	ATF_CHECK(v->len == 10 && v->line == 4);
	ATF_CHECK((v = yt_get(root, "e")) != NULL && v->line == 7 &&
	    strcmp(yt_describe(v), "a number") == 0);
	ATF_CHECK(yt_get(root, "zz") == NULL);
	ATF_CHECK(yt_get(NULL, "a") == NULL);
	yt_free(root);

	ATF_CHECK(yt_load("t.yaml", "", 0, &root, err, sizeof(err)) == 0);
	ATF_CHECK(root == NULL);
	yt_free(NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, defaults);
	ATF_TP_ADD_TC(tp, remote_ssh);
	ATF_TP_ADD_TC(tp, remote_mount_roots);
	ATF_TP_ADD_TC(tp, remote_flood_limits);
	ATF_TP_ADD_TC(tp, load_missing_ok);
	ATF_TP_ADD_TC(tp, load_errors);
	ATF_TP_ADD_TC(tp, load_full);
	ATF_TP_ADD_TC(tp, parse_styles);
	ATF_TP_ADD_TC(tp, empty);
	ATF_TP_ADD_TC(tp, syntax);
	ATF_TP_ADD_TC(tp, unknown_keys);
	ATF_TP_ADD_TC(tp, wrong_types);
	ATF_TP_ADD_TC(tp, paths);
	ATF_TP_ADD_TC(tp, owner_names);
	ATF_TP_ADD_TC(tp, incus_urls);
	ATF_TP_ADD_TC(tp, resolver_upstream);
	ATF_TP_ADD_TC(tp, cluster_member);
	ATF_TP_ADD_TC(tp, resolver_private_networks);
	ATF_TP_ADD_TC(tp, network_subnet);
	ATF_TP_ADD_TC(tp, network_trust_host_cas);
	ATF_TP_ADD_TC(tp, gateway_ports);
	ATF_TP_ADD_TC(tp, proxy_keys);
	ATF_TP_ADD_TC(tp, duplicates);
	ATF_TP_ADD_TC(tp, anchors_aliases);
	ATF_TP_ADD_TC(tp, tags);
	ATF_TP_ADD_TC(tp, documents);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, untouched_on_error);
	ATF_TP_ADD_TC(tp, schema_types);
	ATF_TP_ADD_TC(tp, schema_errors);
	ATF_TP_ADD_TC(tp, tree_access);
	return atf_no_error();
}
