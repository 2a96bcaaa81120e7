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
 * jb-incus's bounds on the parent (bound.c): ids, host sources as
 * written, and the closed lists of config keys and device types.
 */

#include <string.h>

#include <atf-c.h>
#include <json.h>

#include "bound.h"

static struct bound	b;

static void
setup(void)
{
	char	why[256];

	ATF_REQUIRE(bound_set(&b, 1000, 1001, "/var/lib/jailbee",
	    "/srv/state/jailbee", "/run/jailbee", "/run/jailbee", why,
	    sizeof(why)) == 0);
}

/* refused, for a reason containing want */
static int
path_refused(const char *p, const char *want)
{
	char	why[512];

	why[0] = '\0';
	if (bound_path(&b, p, why, sizeof(why)))
		return 0;
	if (strstr(why, want) == NULL) {
		fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", p, why, want);
		return 0;
	}
	return 1;
}

static int
path_ok(const char *p)
{
	char	why[512];

	return bound_path(&b, p, why, sizeof(why));
}

ATF_TC_WITHOUT_HEAD(ids);
ATF_TC_BODY(ids, tc)
{
	char	why[256];

	setup();
	ATF_CHECK(bound_idmap(&b, 1000, 1001, why, sizeof(why)));
	ATF_CHECK(!bound_idmap(&b, 1000, 994, why, sizeof(why)));
	ATF_CHECK(strstr(why, "maps only the owner's ids (1000:1001)"));
	ATF_CHECK(!bound_idmap(&b, 0, 1001, why, sizeof(why)));
	ATF_CHECK(!bound_idmap(&b, 1001, 1001, why, sizeof(why)));
	ATF_CHECK(bound_exec_ids(&b, 0, 0, why, sizeof(why)));
	ATF_CHECK(bound_exec_ids(&b, 1000, 1001, why, sizeof(why)));
	ATF_CHECK(bound_exec_ids(&b, 0, 1001, why, sizeof(why)));
	ATF_CHECK(!bound_exec_ids(&b, 1000, 994, why, sizeof(why)));
	ATF_CHECK(strstr(why, "root (0) or as the owner (1000:1001)"));
	ATF_CHECK(!bound_exec_ids(&b, 1002, 1001, why, sizeof(why)));
	ATF_CHECK(bound_set(&b, 0, 0, "/a", "/a", "/b", "/b", why,
	    sizeof(why)) == -1);
}

ATF_TC_WITHOUT_HEAD(paths);
ATF_TC_BODY(paths, tc)
{
	setup();
	ATF_CHECK(path_refused("/", "the host's root directory"));
	ATF_CHECK(path_refused("etc", "not an absolute path"));
	ATF_CHECK(path_refused("/etc", "lies under /etc"));
	ATF_CHECK(path_refused("/etc/ssh", "lies under /etc"));
	ATF_CHECK(path_refused("/proc/1/root", "lies under /proc"));
	ATF_CHECK(path_refused("/sys/fs", "lies under /sys"));
	ATF_CHECK(path_refused("/dev/sda", "lies under /dev"));
	ATF_CHECK(path_refused("/run/docker.sock", "lies under /run"));
	ATF_CHECK(path_refused("/var/run/docker.sock", "lies under /var/run"));
	ATF_CHECK(path_refused("/boot", "lies under /boot"));
	ATF_CHECK(path_refused("/var/lib/incus", "lies under /var/lib/incus"));
	ATF_CHECK(path_refused("/var/lib/incus/unix.socket",
	    "lies under /var/lib/incus"));
	ATF_CHECK(path_refused("/root/.ssh", "lies under /root"));
	ATF_CHECK(path_refused("/usr/bin", "lies under /usr"));
	/* the state directory as written and as it really is */
	ATF_CHECK(path_refused("/srv/state/jailbee", "the suite's state "
	    "directory /var/lib/jailbee"));
	ATF_CHECK(path_refused("/srv/state/jailbee/audit.jsonl", "state "
	    "directory"));
	ATF_CHECK(path_refused("/srv/state/jailbee/mountsx", "state "
	    "directory"));
	ATF_CHECK(path_refused("/var/lib/jailbee/repos.tsv", "lies under"));
	/* but its mounts area is the owner's */
	ATF_CHECK(path_ok("/srv/state/jailbee/mounts"));
	ATF_CHECK(path_ok("/srv/state/jailbee/mounts/shared/jb/x"));
	/* the owner's gpg agent sockets, nobody else's */
	ATF_CHECK(path_ok("/run/user/1000/gnupg"));
	ATF_CHECK(path_refused("/run/user/1001/gnupg", "lies under /run"));
	ATF_CHECK(path_refused("/run/user/1000", "lies under /run"));
	/* a prefix is not a parent */
	ATF_CHECK(path_ok("/etcetera"));
	ATF_CHECK(path_ok("/srv/state/jailbeex"));
	ATF_CHECK(path_ok("/home/dev/src"));
	ATF_CHECK(path_ok("/srv/repos/a"));
	ATF_CHECK(path_ok("/tmp/x"));
	ATF_CHECK(path_ok("/var/tmp/x"));
}

ATF_TC_WITHOUT_HEAD(socket_dir);
ATF_TC_BODY(socket_dir, tc)
{
	char	why[256];

	ATF_REQUIRE(bound_set(&b, 1000, 1000, "/var/lib/jailbee",
	    "/var/lib/jailbee", "/home/o/.jb", "", why, sizeof(why)) == 0);
	ATF_CHECK(path_refused("/home/o/.jb", "the control socket's "
	    "directory /home/o/.jb"));
	ATF_CHECK(path_refused("/home/o/.jb/jailbeed.sock", "socket"));
	ATF_CHECK(path_ok("/home/o/src"));
}

static int
instance_refused(const char *json, const char *want)
{
	struct json_object	*o;
	char			 why[512];
	int			 rv;

	ATF_REQUIRE((o = json_tokener_parse(json)) != NULL);
	why[0] = '\0';
	rv = !bound_instance(&b, o, "jbbr0", why, sizeof(why)) &&
	    strstr(why, want) != NULL;
	if (!rv)
		fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", json, why, want);
	json_object_put(o);
	return rv;
}

ATF_TC_WITHOUT_HEAD(closed_lists);
ATF_TC_BODY(closed_lists, tc)
{
	struct json_object	*o;
	char			 why[512];

	ATF_REQUIRE(bound_set(&b, 1000, 1000, "/var/lib/jailbee",
	    "/var/lib/jailbee", "/run/jailbee", "/run/jailbee", why,
	    sizeof(why)) == 0);
	/* what CREATE builds */
	ATF_REQUIRE((o = json_tokener_parse("{\"name\":\"jb-a\",\"config\":{"
	    "\"security.nesting\":\"true\",\"raw.idmap\":\"both 1000 1000\","
	    "\"boot.autostart\":\"false\","
	    "\"user.jailbee.repo\":\"/tmp\",\"environment.A\":\"b\"},"
	    "\"devices\":{\"eth0\":{\"type\":\"nic\",\"network\":\"jbbr0\"},"
	    "\"p\":{\"type\":\"proxy\"},\"host-source\":{\"type\":\"disk\","
	    "\"source\":\"/tmp\",\"path\":\"/mnt/host-source\"}}}")) != NULL);
	ATF_CHECK_MSG(bound_instance(&b, o, "jbbr0", why, sizeof(why)), "%s",
	    why);
	json_object_put(o);

	ATF_CHECK(instance_refused("{\"config\":{\"security.privileged\":"
	    "\"true\"}}", "config key security.privileged is not one the "
	    "suite sets"));
	ATF_CHECK(instance_refused("{\"config\":{\"raw.lxc\":\"lxc.cap.drop"
	    "=\"}}", "config key raw.lxc is not one the suite sets"));
	ATF_CHECK(instance_refused("{\"config\":{\"security.nesting\":"
	    "\"false\"}}", "config key security.nesting is not one"));
	ATF_CHECK(instance_refused("{\"config\":{\"boot.autostart\":"
	    "\"true\"}}", "config key boot.autostart is not one"));
	/* the limits, in the one form the suite writes each */
	ATF_REQUIRE((o = json_tokener_parse("{\"config\":{\"limits.cpu\":"
	    "\"1\",\"limits.memory\":\"25%\",\"limits.processes\":\"4096\"},"
	    "\"devices\":{\"root\":{\"type\":\"disk\",\"path\":\"/\","
	    "\"pool\":\"default\",\"size\":\"20GiB\"}}}")) != NULL);
	ATF_CHECK_MSG(bound_instance(&b, o, "jbbr0", why, sizeof(why)), "%s",
	    why);
	json_object_put(o);
	ATF_CHECK(instance_refused("{\"config\":{\"limits.cpu\":\"0-3\"}}",
	    "config key limits.cpu: \"0-3\" is not a limit the suite sets"));
	ATF_CHECK(instance_refused("{\"config\":{\"limits.memory\":\"16\"}}",
	    "config key limits.memory: \"16\" is not a limit"));
	ATF_CHECK(instance_refused("{\"config\":{\"limits.processes\":"
	    "\"1\"}}", "config key limits.processes: \"1\" is not a limit"));
	ATF_CHECK(instance_refused("{\"config\":{\"limits.memory.enforce\":"
	    "\"soft\"}}", "config key limits.memory.enforce: \"soft\" is not "
	    "a limit"));
	ATF_CHECK(instance_refused("{\"devices\":{\"root\":{\"type\":"
	    "\"disk\",\"path\":\"/\",\"pool\":\"default\",\"source\":"
	    "\"/etc\"}}}", "device root: source is not what the suite sets"));
	ATF_CHECK(instance_refused("{\"devices\":{\"root\":{\"type\":"
	    "\"disk\",\"path\":\"/x\",\"pool\":\"default\"}}}",
	    "device root: path is not what the suite sets"));
	ATF_CHECK(instance_refused("{\"devices\":{\"root\":{\"type\":"
	    "\"disk\",\"path\":\"/\",\"pool\":\"default\",\"size\":"
	    "\"lots\"}}}", "device root: size is not what the suite sets"));
	ATF_CHECK(instance_refused("{\"devices\":{\"root\":{\"type\":"
	    "\"disk\",\"path\":\"/\"}}}", "device root: a path / on a pool "
	    "only"));
	ATF_CHECK(instance_refused("{\"config\":{\"raw.idmap\":\"both 0 0\"}}",
	    "raw.idmap \"both 0 0\" maps other ids than the owner's"));
	ATF_CHECK(instance_refused("{\"config\":{\"raw.idmap\":\"both 1000 "
	    "1000\\ngid 994 994\"}}", "maps other ids"));
	ATF_CHECK(instance_refused("{\"config\":{\"user.jailbee.x\":1}}",
	    "is not a string"));
	ATF_CHECK(instance_refused("{\"devices\":{\"g\":{\"type\":\"gpu\"}}}",
	    "device g of type gpu is not one the suite makes"));
	ATF_CHECK(instance_refused("{\"devices\":{\"u\":{\"type\":"
	    "\"unix-char\",\"source\":\"/dev/kvm\"}}}", "type unix-char"));
	ATF_CHECK(instance_refused("{\"devices\":{\"x\":{}}}",
	    "type (none)"));
	ATF_CHECK(instance_refused("{\"devices\":{\"e\":{\"type\":\"nic\","
	    "\"nictype\":\"physical\",\"parent\":\"eth0\"}}}",
	    "a nic on jbbr0 only"));
	ATF_CHECK(instance_refused("{\"devices\":{\"d\":{\"type\":\"disk\","
	    "\"source\":\"/etc\",\"path\":\"/x\"}}}", "lies under /etc"));
	ATF_CHECK(instance_refused("{\"devices\":{\"d\":{\"type\":\"disk\","
	    "\"pool\":\"default\",\"source\":\"v\",\"path\":\"/x\"}}}",
	    "a disk with a host source only"));
	/* the root disk on another pool (defaults.storage_pool), unsized */
	ATF_REQUIRE((o = json_tokener_parse("{\"devices\":{\"root\":{"
	    "\"type\":\"disk\",\"path\":\"/\",\"pool\":\"fast\"}}}")) != NULL);
	ATF_CHECK_MSG(bound_instance(&b, o, "jbbr0", why, sizeof(why)), "%s",
	    why);
	json_object_put(o);
	/* a disk on a pool under another name than root */
	ATF_CHECK(instance_refused("{\"devices\":{\"data\":{\"type\":\"disk\","
	    "\"path\":\"/\",\"pool\":\"fast\"}}}",
	    "device data: a disk with a host source only"));
	ATF_CHECK(instance_refused("{\"devices\":{\"root\":{\"type\":\"disk\","
	    "\"path\":\"/\",\"pool\":\"fast\",\"readonly\":\"false\"}}}",
	    "device root: readonly is not what the suite sets"));
	ATF_CHECK(instance_refused("{\"config\":[]}", "config is not an "
	    "object"));
}

/* the start gate: exactly the instance's own, read-only */
ATF_TC_WITHOUT_HEAD(start_gate);
ATF_TC_BODY(start_gate, tc)
{
	struct json_object	*o;
	char			 why[512], src[PATH_MAX];

	ATF_REQUIRE(bound_set(&b, 1000, 1000, "/var/lib/jailbee",
	    "/var/lib/jailbee", "/run/jailbee", "/run/jailbee", why,
	    sizeof(why)) == 0);
	ATF_REQUIRE(bound_gate_source(&b, "jb-a", src, sizeof(src)) == 0);
	ATF_CHECK_STREQ(src, "/run/jailbee/gate/jb-a");
	ATF_CHECK(bound_gate_source(&b, "../x", src, sizeof(src)) == -1);
	ATF_CHECK(bound_gate_source(&b, "jb-a", src, 10) == -1);
	ATF_REQUIRE((o = json_tokener_parse("{\"name\":\"jb-a\","
	    "\"devices\":{\"jailbee-gate\":{\"type\":\"disk\",\"source\":"
	    "\"/run/jailbee/gate/jb-a\",\"path\":\"/run/jailbee-gate\","
	    "\"readonly\":\"true\"}}}")) != NULL);
	ATF_CHECK_MSG(bound_instance(&b, o, "jbbr0", why, sizeof(why)), "%s",
	    why);
	json_object_put(o);
	/* another instance's gate, read-write, elsewhere, or no name */
	ATF_CHECK(instance_refused("{\"name\":\"jb-a\",\"devices\":{"
	    "\"jailbee-gate\":{\"type\":\"disk\",\"source\":"
	    "\"/run/jailbee/gate/jb-b\",\"path\":\"/run/jailbee-gate\","
	    "\"readonly\":\"true\"}}}", "device jailbee-gate: only the "
	    "instance's own start gate, read-only at /run/jailbee-gate"));
	ATF_CHECK(instance_refused("{\"name\":\"jb-a\",\"devices\":{"
	    "\"jailbee-gate\":{\"type\":\"disk\",\"source\":"
	    "\"/run/jailbee/gate/jb-a\",\"path\":\"/run/jailbee-gate\","
	    "\"readonly\":\"false\"}}}", "only the instance's own"));
	ATF_CHECK(instance_refused("{\"name\":\"jb-a\",\"devices\":{"
	    "\"jailbee-gate\":{\"type\":\"disk\",\"source\":"
	    "\"/run/jailbee/gate/jb-a\",\"path\":\"/root\","
	    "\"readonly\":\"true\"}}}", "only the instance's own"));
	ATF_CHECK(instance_refused("{\"name\":\"jb-a\",\"devices\":{"
	    "\"jailbee-gate\":{\"type\":\"disk\",\"source\":"
	    "\"/run/jailbee/gate/jb-a\",\"path\":\"/run/jailbee-gate\"}}}",
	    "only the instance's own"));
	ATF_CHECK(instance_refused("{\"devices\":{\"jailbee-gate\":{"
	    "\"type\":\"disk\",\"source\":\"/run/jailbee/gate/jb-a\","
	    "\"path\":\"/run/jailbee-gate\",\"readonly\":\"true\"}}}",
	    "only the instance's own"));
	/* any other disk from the socket's directory stays refused */
	ATF_CHECK(instance_refused("{\"name\":\"jb-a\",\"devices\":{"
	    "\"g\":{\"type\":\"disk\",\"source\":"
	    "\"/run/jailbee/gate/jb-a\",\"path\":\"/run/jailbee-gate\","
	    "\"readonly\":\"true\"}}}", "lies under /run, which no container "
	    "gets"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ids);
	ATF_TP_ADD_TC(tp, paths);
	ATF_TP_ADD_TC(tp, socket_dir);
	ATF_TP_ADD_TC(tp, closed_lists);
	ATF_TP_ADD_TC(tp, start_gate);
	return atf_no_error();
}
