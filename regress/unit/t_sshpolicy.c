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
 * The remote SSH command policy: every leaf classified for remote use,
 * the three modes, restrict_host, and option spellings parsed by the
 * command table's grammar (clusters, --opt=value, attached values).
 */

#include <stdint.h>
#include <string.h>

#include <atf-c.h>

#include "cmdtab.h"
#include "sshpolicy.h"
#include "srcclass.h"

static struct jb_ctl_cmd	cmd;
static struct sshp_result	res;

static int
decide(const struct sshp_conf *pc, const char *line)
{
	char	 buf[512], *argv[32], *p, *save;
	int	 argc = 0;

	strlcpy(buf, line, sizeof(buf));
	for (p = strtok_r(buf, " ", &save); p != NULL && argc < 31;
	    p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	argv[argc] = NULL;
	return sshpolicy_decide(pc, argc, argv, &cmd, &res);
}

static const struct sshp_conf full = { SSHP_FULL, 1, NULL, 0, 0, 0, 0 };
static const struct sshp_conf open_host = { SSHP_FULL, 0, NULL, 0, 0, 0, 0 };

ATF_TC_WITHOUT_HEAD(every_leaf_classified_for_remote);
ATF_TC_BODY(every_leaf_classified_for_remote, tc)
{
	char	name[64];
	int	i;

	for (i = 0; i < cmdtab_len; i++) {
		cmd_name(&cmdtab[i], name, sizeof(name));
		if (cmdtab[i].cls == CMD_INTERNAL)
			continue;
		ATF_CHECK_MSG(sshpolicy_host(cmdtab[i].id) !=
		    SSHP_HOST_UNKNOWN, "%s: not classified for remote use "
		    "(libcommon/sshpolicy.c)", name);
	}
}

ATF_TC_WITHOUT_HEAD(full_mode);
ATF_TC_BODY(full_mode, tc)
{
	ATF_REQUIRE(decide(&full, "ls") == 0);
	ATF_CHECK_EQ(cmd.id, CMD_LS);
	ATF_CHECK_STREQ(cmd.cwd, "/");
	ATF_REQUIRE(decide(&full, "exec box -- echo -a --all") == 0);
	ATF_CHECK_EQ(cmd.id, CMD_EXEC);
	ATF_CHECK_EQ(cmd.nargs, 4);
	ATF_CHECK_STREQ(cmd.argv, "box");
	ATF_CHECK_EQ(cmd.optset, 0);
	ATF_CHECK(decide(&full, "frobnicate") == -1);
	ATF_CHECK(strstr(res.err, "unknown command") != NULL);
	ATF_CHECK(decide(&full, "ls extra") == -1);
	ATF_CHECK(decide(&full, "ls --bogus") == -1);
}

ATF_TC_WITHOUT_HEAD(option_spellings);
ATF_TC_BODY(option_spellings, tc)
{
	static const char *const same[] = {
		"ls -a -o json", "ls -ao json", "ls -aojson", "ls --all "
		"--output=json", "ls --output json -a", "ls -a --output=json",
		NULL
	};
	int	i;

	for (i = 0; same[i] != NULL; i++) {
		ATF_REQUIRE_MSG(decide(&full, same[i]) == 0, "%s: %s",
		    same[i], res.err);
		ATF_CHECK_EQ_MSG(cmd.optset, 3, "%s", same[i]);
		ATF_CHECK_STREQ_MSG(cmd.opts[1], "json", "%s", same[i]);
	}
	ATF_CHECK(decide(&full, "ls -o yaml") == -1);
	ATF_CHECK(decide(&full, "ls --all=yes") == -1);
	ATF_CHECK(decide(&full, "ls -o") == -1);
}

ATF_TC_WITHOUT_HEAD(mount_unlocked_by_grant);
ATF_TC_BODY(mount_unlocked_by_grant, tc)
{
	struct sshp_conf	pc = full;

	/* refused while neither mounts nor mount_roots is set */
	ATF_CHECK(decide(&full, "mount aws box") == -1);
	ATF_CHECK_STREQ(res.err, "mount: refused over SSH unless "
	    "remote.ssh.mounts or remote.ssh.mount_roots grants it");
	ATF_CHECK_STREQ(res.reason, "restrict_host");
	/* a grant lets it through to jailbeed, which decides each mount */
	pc.mount_unlocked = 1;
	ATF_REQUIRE_MSG(decide(&pc, "mount aws box --for 1h") == 0, "%s",
	    res.err);
	ATF_CHECK_EQ(cmd.id, CMD_MOUNT);
	/* and nothing else that acts on the host */
	ATF_CHECK(decide(&pc, "apply box") == -1);
	/* unmount and mount ls never needed one */
	ATF_CHECK(decide(&full, "unmount aws box") == 0);
	ATF_CHECK(decide(&full, "mount ls box") == 0);
	/* restrict_host off: the host commands are the session's anyway */
	ATF_CHECK(decide(&open_host, "mount aws box") == 0);
}

/*
 * R24-R27: over SSH the git bridge moves refs only: fetch and pull
 * --into pass (restrict_host or not); pull without --into and checkout
 * are refused saying why and what to do; push, diff, log and the
 * transport stay with jbctl on the host
 */
ATF_TC_WITHOUT_HEAD(git_bridge_refs_only);
ATF_TC_BODY(git_bridge_refs_only, tc)
{
	static const char *const ok[] = {
		"git fetch box", "git fetch box feat", "git pull box --into side",
		"git pull --into=side box", NULL
	};
	static const struct {
		const char	*line, *reason, *says;
	} no[] = {
		{ "git pull box", "git refs only", "--into BRANCH" },
		{ "git checkout box", "git refs only", "git fetch NAME" },
		{ "git checkout box --as x", "git refs only", "check it out" },
		{ "git push box", "git refs only", "run it with jbctl" },
		{ "git diff box", "git refs only", "run it with jbctl" },
		{ "git log box", "git refs only", "run it with jbctl" },
		{ "git connect box upload-pack", "not remote",
		    "not available over SSH" },
		{ "git connect box receive-pack", "not remote",
		    "not available over SSH" },
	};
	size_t	i;

	for (i = 0; ok[i] != NULL; i++) {
		ATF_CHECK_MSG(decide(&full, ok[i]) == 0, "%s: %s", ok[i],
		    res.err);
		ATF_CHECK_MSG(decide(&open_host, ok[i]) == 0, "%s", ok[i]);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		ATF_CHECK_MSG(decide(&full, no[i].line) == -1, "%s",
		    no[i].line);
		ATF_CHECK_STREQ_MSG(res.reason, no[i].reason, "%s",
		    no[i].line);
		ATF_CHECK_MSG(strstr(res.err, no[i].says) != NULL, "%s: %s",
		    no[i].line, res.err);
		/* host restrictions off changes nothing */
		ATF_CHECK_MSG(decide(&open_host, no[i].line) == -1, "%s",
		    no[i].line);
	}
}

ATF_TC_WITHOUT_HEAD(mount_refused_every_spelling);
ATF_TC_BODY(mount_refused_every_spelling, tc)
{
	static const char *const bad[] = {
		"new x --mount", "new x -m", "new --mount x", "new -m x main",
		NULL
	};
	int	i;

	for (i = 0; bad[i] != NULL; i++) {
		ATF_CHECK_MSG(decide(&full, bad[i]) == -1, "%s", bad[i]);
		ATF_CHECK_MSG(decide(&open_host, bad[i]) == -1, "%s", bad[i]);
		ATF_CHECK(strstr(res.err, "--mount") != NULL);
		ATF_CHECK_STREQ(res.reason, "path option");
	}
	ATF_CHECK(decide(&full, "new x") == 0);
	/* after "--" a word is an argument, not an option */
	ATF_CHECK(decide(&full, "exec x -- -m") == 0);
}

/*
 * A positional that names a host path is refused in every mode, with
 * restrict_host off too, as a path option is; and every positional
 * whose usage word says it is a file, path or directory is marked so.
 */
ATF_TC_WITHOUT_HEAD(path_positionals);
ATF_TC_BODY(path_positionals, tc)
{
	static const char	 leaves[1][48] = { "base import" };
	struct sshp_conf	 allow = { SSHP_ALLOWLIST, 0, leaves, 1, 0, 0, 0 };
	const char	*w, *e;
	char		 name[64];
	size_t		 n;
	int		 i, k;

	ATF_CHECK(decide(&open_host, "base import /home/o/.ssh/id_ed25519")
	    == -1);
	ATF_CHECK_STREQ(res.reason, "path argument");
	ATF_CHECK_STREQ(res.err, "base import: argument 1 names a host path: "
	    "refused over SSH");
	ATF_CHECK(decide(&allow, "base import x.tar.gz --alias a") == -1);
	ATF_CHECK_STREQ(res.reason, "path argument");
	/* the secret path is not in what the journal or user is told */
	ATF_CHECK(strstr(res.err, "id_ed25519") == NULL);
	/* --help names no path */
	ATF_CHECK(decide(&open_host, "base import --help") == 0);
	for (i = 0; i < cmdtab_len; i++) {
		cmd_name(&cmdtab[i], name, sizeof(name));
		for (w = cmdtab[i].args, k = 0; *w != '\0'; w = e, k++) {
			w += strspn(w, " [");
			n = strcspn(w, " ]");
			e = w + n;
			e += strspn(e, " ]");
			if ((n == 4 && strncmp(w, "FILE", 4) == 0) ||
			    (n == 4 && strncmp(w, "PATH", 4) == 0) ||
			    (n == 3 && strncmp(w, "DIR", 3) == 0))
				ATF_CHECK_MSG(cmdtab[i].path_args &
				    (1U << k), "%s: positional %d (%.*s) "
				    "not marked as a host path", name, k + 1,
				    (int)n, w);
		}
	}
}

/*
 * The front door's sources: all of loopback is one (anyone on the host
 * can pick among 127/8), an IPv6 client is its /64, IPv4 itself
 */
ATF_TC_WITHOUT_HEAD(source_classes);
ATF_TC_BODY(source_classes, tc)
{
	static const char *const cases[][2] = {
		{ "127.0.0.1", "loopback" }, { "127.0.0.2", "loopback" },
		{ "127.255.1.9", "loopback" }, { "::1", "loopback" },
		{ "::ffff:127.0.0.3", "loopback" },
		{ "::ffff:192.0.2.7", "192.0.2.7" },
		{ "192.0.2.7", "192.0.2.7" }, { "128.0.0.1", "128.0.0.1" },
		{ "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64" },
		{ "2001:db8:1:2::ffff", "2001:db8:1:2::/64" },
		{ "not an address", "not an address" },
	};
	char	out[48];
	size_t	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		srcclass(cases[i][0], out, sizeof(out));
		ATF_CHECK_STREQ_MSG(out, cases[i][1], "%s", cases[i][0]);
	}
	ATF_CHECK(srcclass_loopback("loopback"));
	ATF_CHECK(!srcclass_loopback("127.0.0.1"));
}

ATF_TC_WITHOUT_HEAD(restrict_host);
ATF_TC_BODY(restrict_host, tc)
{
	static const char *const host[] = {
		"init", "remote ssh status", "audit", "apply box",
		"base import /tmp/x",
		"base prune", "net loose box", "net loose box --for 5m",
		"new box --net loose", "new box --net=loose",
		"new box --memory 100%", "new box --cpu=64",
		"net egress add example.com:443 box",
		"port to-container box 5432",
		"port to-container box 5432 --host-port 15432",
		"port to-host box 8080 --host-address 0.0.0.0",
		"port to-host box 8080 --host-address=10.0.0.1", NULL
	};
	int	i;

	for (i = 0; host[i] != NULL; i++) {
		ATF_CHECK_MSG(decide(&full, host[i]) == -1, "%s", host[i]);
		ATF_CHECK(strstr(res.err, "restrict_host") != NULL);
		ATF_CHECK_STREQ(res.reason, "restrict_host");
	}
	/* the security page lists net refresh as the host's */
	ATF_CHECK(decide(&full, "net refresh box") == -1);
	ATF_CHECK_STREQ(res.reason, "restrict_host");
	/* what only narrows or reads a container stays */
	ATF_CHECK(decide(&full, "net strict box") == 0);
	ATF_CHECK(decide(&full, "net status box") == 0);
	ATF_CHECK(decide(&full, "new box --net strict") == 0);
	ATF_CHECK(decide(&full, "new box --memory 1GiB") == -1);
	ATF_CHECK(strstr(res.err, "defaults.memory and defaults.cpu apply") !=
	    NULL);
	ATF_CHECK(decide(&open_host, "new box --memory 1GiB --cpu 2") == 0);
	ATF_CHECK(decide(&full, "unmount aws box") == 0);
	ATF_CHECK(decide(&full, "mount ls box") == 0);
	/* container-scope egress rm narrows; ls and export read */
	ATF_CHECK(decide(&full, "net egress rm example.com:443 box") == 0);
	ATF_CHECK(decide(&full, "net egress ls box") == 0);
	ATF_CHECK(decide(&full, "net egress export box") == 0);
	/* doctor reads; refused only while repos are excluded */
	ATF_CHECK(decide(&full, "doctor") == 0);
	ATF_CHECK(decide(&full, "doctor -o json") == 0);
	/* a container service on the host's loopback; ls, rm */
	ATF_CHECK(decide(&full, "port to-host box 8080") == 0);
	ATF_CHECK(decide(&full, "port to-host box 8080 --host-port auto") ==
	    0);
	ATF_CHECK(decide(&full, "port ls box") == 0);
	ATF_CHECK(decide(&full, "port rm 8080 box") == 0);
	ATF_CHECK(decide(&open_host, "port to-container box 5432") == 0);
	/* add is a host command only while restrict_host is on */
	ATF_CHECK(decide(&open_host, "net egress add example.com:443 box")
	    == 0);
	/* a spelling that is not a choice is no way around it */
	ATF_CHECK(decide(&full, "new box --net LOOSE") == -1);
	/* off: the host commands the parent carries out are admitted */
	ATF_CHECK(decide(&open_host, "init") == 0);
	ATF_CHECK(decide(&open_host, "audit --since 5m") == 0);
	/* jbctl-local commands are never remote, restricted or not */
	ATF_CHECK(decide(&open_host, "config init") == -1);
	ATF_CHECK(decide(&open_host, "remote ssh key ls") == -1);
	ATF_CHECK(decide(&open_host, "base build") == -1);
}

ATF_TC_WITHOUT_HEAD(network_unlocked);
ATF_TC_BODY(network_unlocked, tc)
{
	struct sshp_conf	 net = full;
	static const char *const opened[] = {
		"net loose box", "net loose box --for 5m",
		"new box --net loose", "new box --net=loose",
		"net egress add example.com:443 box", NULL
	};
	int	i;

	/* off (the default): each names the key that would grant it */
	for (i = 0; opened[i] != NULL; i++) {
		ATF_CHECK_MSG(decide(&full, opened[i]) == -1, "%s", opened[i]);
		ATF_CHECK_STREQ(res.reason, "restrict_host");
		ATF_CHECK_MSG(strstr(res.err, "remote.ssh.network") != NULL,
		    "%s: %s", opened[i], res.err);
	}
	net.network_unlocked = 1;
	for (i = 0; opened[i] != NULL; i++)
		ATF_CHECK_MSG(decide(&net, opened[i]) == 0, "%s: %s",
		    opened[i], res.err);
	/* the repo layer stays the host's; the other host commands too */
	ATF_CHECK(decide(&net, "net egress add --repo example.com:443 box")
	    == -1);
	ATF_CHECK_STREQ(res.reason, "repo scope");
	ATF_CHECK(decide(&net, "net refresh box") == -1);
	ATF_CHECK_STREQ(res.reason, "restrict_host");
	ATF_CHECK(decide(&net, "port to-container box 5432") == -1);
	ATF_CHECK_STREQ(res.reason, "restrict_host");
	ATF_CHECK(decide(&net, "mount aws box") == -1);
	/* an allowlist still has the last word */
	net.mode = SSHP_ALLOWLIST;
	ATF_CHECK(decide(&net, "net loose box") == -1);
	ATF_CHECK_STREQ(res.reason, "allowlist");
}

ATF_TC_WITHOUT_HEAD(egress_repo_never);
ATF_TC_BODY(egress_repo_never, tc)
{
	static const char	 allow[2][48] = { "net egress add",
	    "net egress rm" };
	struct sshp_conf	 list = { SSHP_ALLOWLIST, 0, allow, 2, 0, 0, 0 };
	static const char *const line[] = {
		"net egress add --repo example.com:443 box",
		"net egress add example.com:443 box --repo",
		"net egress rm --repo example.com:443 box",
		"net egress rm example.com:443 --repo box",
		"net egress rm --repo --help",
		"net egress add -h --repo",
		NULL
	};
	int	i;

	/* refused with restrict_host off and when allowlisted too */
	for (i = 0; line[i] != NULL; i++) {
		ATF_CHECK_MSG(decide(&open_host, line[i]) == -1, "%s",
		    line[i]);
		ATF_CHECK_STREQ(res.reason, "repo scope");
		ATF_CHECK(strstr(res.err, "--repo: changes every container")
		    != NULL);
		ATF_CHECK_MSG(decide(&list, line[i]) == -1, "%s", line[i]);
		ATF_CHECK_MSG(decide(&full, line[i]) == -1, "%s", line[i]);
	}
	/* other spellings are not options at all */
	ATF_CHECK(decide(&open_host, "net egress rm --repo=1 x box") == -1);
	ATF_CHECK_STREQ(res.reason, "usage");
	ATF_CHECK(decide(&open_host, "net egress rm --rep x box") == -1);
	ATF_CHECK(decide(&open_host, "net egress rm -r x box") == -1);
	ATF_CHECK(decide(&open_host, "net egress rm x box -- --repo") == -1);
	ATF_CHECK(decide(&open_host, "net egress rm -- --repo box") == 0);
	ATF_CHECK(cmd.optset == 0);
	/* --repo is no option of the reading commands */
	ATF_CHECK(decide(&open_host, "net egress ls --repo box") == -1);
	/* without it, container scope as before */
	ATF_CHECK(decide(&list, "net egress rm example.com:443 box") == 0);
	ATF_CHECK(decide(&list, "net egress add example.com:443 box") == 0);
}

ATF_TC_WITHOUT_HEAD(allowlist_exact_leaf);
ATF_TC_BODY(allowlist_exact_leaf, tc)
{
	static const char	 allow[2][48] = { "ls", "snapshot ls" };
	struct sshp_conf	 pc = { SSHP_ALLOWLIST, 1, allow, 2, 0, 0, 0 };

	ATF_CHECK(decide(&pc, "ls") == 0);
	ATF_CHECK(decide(&pc, "snapshot ls box") == 0);
	ATF_CHECK(decide(&pc, "snapshot create box") == -1);
	ATF_CHECK(strstr(res.err, "allowlist") != NULL);
	ATF_CHECK_STREQ(res.reason, "allowlist");
	ATF_CHECK(decide(&pc, "status") == -1);
	/* the group's --help, once a leaf under it is allowed */
	ATF_CHECK(decide(&pc, "snapshot --help") == 0 && res.help);
	ATF_CHECK(decide(&pc, "config --help") == -1);
	ATF_CHECK(decide(&pc, "ls --help") == 0 && res.help);
	ATF_CHECK(decide(&pc, "exec --help") == -1);
}

ATF_TC_WITHOUT_HEAD(disabled_mode);
ATF_TC_BODY(disabled_mode, tc)
{
	struct sshp_conf	pc = { SSHP_DISABLED, 1, NULL, 0, 0, 0, 0 };

	ATF_CHECK(decide(&pc, "ls") == -1);
	ATF_CHECK(strstr(res.err, "disabled") != NULL);
	ATF_CHECK_STREQ(res.reason, "disabled");
	ATF_CHECK(decide(&pc, "help") == -1);
}

ATF_TC_WITHOUT_HEAD(excluded_global_config);
ATF_TC_BODY(excluded_global_config, tc)
{
	struct sshp_conf	pc = { SSHP_FULL, 1, NULL, 0, 1, 0, 0 };

	ATF_CHECK(decide(&pc, "config show --layer global") == -1);
	ATF_CHECK(decide(&pc, "config show -lglobal") == -1);
	ATF_CHECK(strstr(res.err, "excluded") != NULL);
	ATF_CHECK(decide(&pc, "config show --layer repo") == 0);
	ATF_CHECK(decide(&full, "config show --layer global") == 0);
	/* the seed: doctor, while exclusions are active */
	ATF_CHECK(decide(&pc, "doctor") == -1);
	ATF_CHECK_STREQ(res.reason, "excluded_repos");
	ATF_CHECK(strstr(res.err, "doctor: refused over SSH while repos are "
	    "excluded") != NULL);
}

ATF_TC_WITHOUT_HEAD(usage_text);
ATF_TC_BODY(usage_text, tc)
{
	char	buf[4096];

	ATF_REQUIRE(decide(&full, "snapshot --help") == 0);
	sshpolicy_usage(&res, buf, sizeof(buf));
	ATF_CHECK(strstr(buf, "snapshot ls") != NULL);
	ATF_CHECK(strstr(buf, "snapshot create") != NULL);
	ATF_REQUIRE(decide(&full, "ls -h") == 0 && res.help);
	sshpolicy_usage(&res, buf, sizeof(buf));
	ATF_CHECK(strstr(buf, "--output") != NULL);
}

/* what the SSH dashboard offers: the leaf as the policy judges it alone */
ATF_TC_WITHOUT_HEAD(dashboard_admits);
ATF_TC_BODY(dashboard_admits, tc)
{
	static const char	 allow[2][48] = { "ls", "net strict" };
	struct sshp_conf	 net = full, al = full, off = full;

	/* restrict_host: loose, egress add and mount withheld by default */
	ATF_CHECK(sshpolicy_admits(&full, CMD_NET_STRICT));
	ATF_CHECK(sshpolicy_admits(&full, CMD_START));
	ATF_CHECK(sshpolicy_admits(&full, CMD_SHELL));
	ATF_CHECK(sshpolicy_admits(&full, CMD_GIT_PULL));
	ATF_CHECK(!sshpolicy_admits(&full, CMD_NET_LOOSE));
	ATF_CHECK(!sshpolicy_admits(&full, CMD_NET_EGRESS_ADD));
	ATF_CHECK(!sshpolicy_admits(&full, CMD_MOUNT));
	/* never over SSH, whatever unlocks */
	ATF_CHECK(!sshpolicy_admits(&open_host, CMD_GIT_PUSH));
	ATF_CHECK(!sshpolicy_admits(&full, CMD_NONE));
	/* remote.ssh.network unlocks loose and egress add */
	net.network_unlocked = 1;
	ATF_CHECK(sshpolicy_admits(&net, CMD_NET_LOOSE));
	ATF_CHECK(sshpolicy_admits(&net, CMD_NET_EGRESS_ADD));
	net.mount_unlocked = 1;
	ATF_CHECK(sshpolicy_admits(&net, CMD_MOUNT));
	/* an allowlist: only its leaves */
	al.mode = SSHP_ALLOWLIST;
	al.allow = allow;
	al.nallow = 2;
	ATF_CHECK(sshpolicy_admits(&al, CMD_LS));
	ATF_CHECK(sshpolicy_admits(&al, CMD_NET_STRICT));
	ATF_CHECK(!sshpolicy_admits(&al, CMD_START));
	/* disabled: nothing */
	off.mode = SSHP_DISABLED;
	ATF_CHECK(!sshpolicy_admits(&off, CMD_LS));
	/* the same answer as a full line would get */
	ATF_CHECK_EQ(decide(&full, "net loose c --for 1m"), -1);
	ATF_CHECK_EQ(decide(&full, "net strict c"), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_leaf_classified_for_remote);
	ATF_TP_ADD_TC(tp, full_mode);
	ATF_TP_ADD_TC(tp, git_bridge_refs_only);
	ATF_TP_ADD_TC(tp, option_spellings);
	ATF_TP_ADD_TC(tp, mount_refused_every_spelling);
	ATF_TP_ADD_TC(tp, mount_unlocked_by_grant);
	ATF_TP_ADD_TC(tp, restrict_host);
	ATF_TP_ADD_TC(tp, path_positionals);
	ATF_TP_ADD_TC(tp, source_classes);
	ATF_TP_ADD_TC(tp, allowlist_exact_leaf);
	ATF_TP_ADD_TC(tp, disabled_mode);
	ATF_TP_ADD_TC(tp, excluded_global_config);
	ATF_TP_ADD_TC(tp, usage_text);
	ATF_TP_ADD_TC(tp, egress_repo_never);
	ATF_TP_ADD_TC(tp, network_unlocked);
	ATF_TP_ADD_TC(tp, dashboard_admits);
	return atf_no_error();
}
