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
 * No key of the repo config is silently ignored.  The keys are every key
 * of the template `jbctl init` writes (its examples uncommented, read
 * from the template itself) and every key of the original's schema,
 * transcribed below.  Each must have a verdict: SEEN names the
 * integration case that observes what the key does (the program must
 * have the case and name the key), REFUSED gives a value that asks for
 * something and what the refusal must say.  A key without a verdict, or
 * a verdict for no key, fails the test: a new key must be observed or
 * refused.
 *
 * The tree's top comes as the config variable topdir.
 */

#include <sys/types.h>

#include <atf-c.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repoconf.h"
#include "yamltree.h"

/*
 * The original's repo and global config, key by key: the table of the
 * configuration schema (REFERENCE.md section 2).  A mapping of names
 * the user chooses is "*"; a list of mappings goes on with its items'
 * keys.
 */
static const char *const reference_keys[] = {
	"container_prefix", "container_user.uid", "container_user.gid",
	"container.env.*", "shared_dir", "share_local",
	"host_mounts.host", "host_mounts.container", "host_mounts.readonly",
	"optional_mounts.*.host", "optional_mounts.*.container",
	"optional_mounts.*.readonly", "optional_mounts.*.description",
	"optional_mounts.*.auto_unmount_after",
	"host_devices", "host_ports.name", "host_ports.port",
	"host_ports.host_port", "host_ports.proto", "host_ports.host_address",
	"host_ports.container_address", "shared_caches", "egress_allow",
	"loose_auto_revert.enabled", "loose_auto_revert.after",
	"mount_auto_revert.enabled", "mount_auto_revert.after",
	"defaults.memory", "defaults.cpu", "defaults.network",
	"defaults.storage_pool",
	"golden.alias", "golden.ubuntu_version", "golden.java", "golden.node",
	"golden.provision_script", "golden.provision_env",
	"golden.extra_apt_packages", "golden.enable_snippets",
	"golden.disable_snippets", "golden.stacks.java", "golden.stacks.node",
	"golden.stacks.python", "golden.stacks.docker", "golden.stacks.ecr",
	"gpg.enabled", "ssh.enabled", "ssh.seed_from_host",
	"jetbrains.enabled", "jetbrains.ide", "jetbrains.userprefs_from_host",
	"jetbrains.share_idea", "jetbrains.ai_enabled", "jetbrains.autostart",
	"jetbrains.toolbox_host_path",
	"chrome.enabled", "chrome.url", "chrome.dark_mode", "chrome.autostart",
	"chrome.host_path",
	"agents.*.enabled", "agents.*.autostart", "agents.*.command",
	"agents.*.install", "agents.*.install_check", "agents.*.update",
	"agents.*.auto_update", "agents.*.install_network", "agents.*.shared",
	"agents.*.egress_allow", "agents.*.env.*",
	"agents.claude.plugins_enabled", "agents.claude.install_jailbee_skills",
	"agents.claude.ai_pr_description", "agents.claude.ai_pr_branch",
	"agents.claude.ai_pr_model", "agents.claude.pr_prompt",
	"agents.claude.ai_pr_timeout", "claude",
	"github.enabled", "github.api_tokens", "github.token",
	"terminal.kitty.enabled", "terminal.kitty.host_terminfo_path",
	"autostart.on_create", "autostart.on_start", "autostart.step_timeout",
	"autostart.env.*", "autostart.on_create.name", "autostart.on_create.run",
	"autostart.on_create.network", "autostart.on_create.mounts",
	"autostart.on_create.env.*", "autostart.on_create.working_dir",
	"autostart.on_create.background", "autostart.on_create.timeout",
	"autostart.on_create.continue_on_error",
	"docker_registry_mirror.extra_registries",
	"docker_registry_mirror.enabled", "docker_registry_mirror.port",
	"docker_registry_mirror.image", "docker_registry_mirror.data_dir",
	"new.clone_from", "new.autofetch", "new.background", "new.submodules",
	"destroy.background", "after_new", "confirm.auto_target",
	"pull.destroy_container", "pull.delete_branch",
	"push.default_action", "push.default_source", "push.push_from",
	"push.autofetch", "ls.fields", "ls.hide", "dashboard.fields",
	"dashboard.hide", "remote.ssh", "egress_proxy_always", "gui.wayland",
	"litellm", "merge", "install_gie_skills",
	NULL
};

/* mappings whose keys the user names: their keys are "*" */
static const char *const named_maps[] = {
	"container.env", "optional_mounts", "agents", "agents.*.env",
	"autostart.env", "autostart.on_create.env", "autostart.on_start.env",
	NULL
};

enum how { SEEN, REFUSED };

#define NOT_YET		"not supported yet"
#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* the keys each integration case (program:case) observes */
static const struct seen {
	const char	*tcase;
	const char	*keys[11];	/* to the first NULL */
} seen[] = {
	{ "containers_test:init_and_config", { "container_prefix" } },
	{ "doctor_test:healthy_then_faults", { "container_user.uid",
	    "container_user.gid" } },
	{ "agent_test:autostart_steps", { "container.env.*",
	    "autostart.on_create", "autostart.on_start",
	    "autostart.env.*", "autostart.on_create.name",
	    "autostart.on_create.run", "autostart.on_create.network",
	    "autostart.on_create.env.*",
	    "autostart.on_create.working_dir",
	    "autostart.on_create.background" } },
	{ "mounts_test:host_mounts_ro_rw", { "host_mounts.host",
	    "host_mounts.container", "host_mounts.readonly" } },
	{ "mounts_test:optional_deadline", { "optional_mounts.*.host",
	    "optional_mounts.*.container",
	    "optional_mounts.*.description",
	    "optional_mounts.*.auto_unmount_after" } },
	{ "mounts_test:remount_norevert_unmount", {
	    "optional_mounts.*.readonly", "mount_auto_revert.enabled",
	    "mount_auto_revert.after" } },
	{ "port_test:host_ports", { "host_ports.name", "host_ports.port",
	    "host_ports.host_port" } },
	{ "configkeys_test:steps_agents_ports", { "host_ports.proto",
	    "host_ports.container_address", "agents.*.autostart",
	    "agents.*.update", "agents.*.auto_update",
	    "autostart.step_timeout",
	    "autostart.on_create.continue_on_error" } },
	{ "port_test:refusals", { "host_ports.host_address" } },
	{ "net_test:strict_allowlist", { "egress_allow" } },
	{ "configkeys_test:network_default", { "loose_auto_revert.enabled",
	    "loose_auto_revert.after", "defaults.network" } },
	{ "limits_test:new_and_apply", { "defaults.memory",
	    "defaults.cpu", "defaults.processes", "defaults.disk" } },
	{ "containers_test:new_storage_pool", { "defaults.storage_pool" } },
	{ "base_test:import_new_usage_prune", { "base.alias" } },
	{ "base_test:new_builds_packages", { "base.packages" } },
	{ "configkeys_test:original_spellings", { "golden.alias",
	    "golden.extra_apt_packages", "claude" } },
	{ "mounts_test:gpg_mounts", { "gpg.enabled" } },
	{ "mounts_test:ssh_shared", { "ssh.enabled" } },
	{ "mounts_test:github_env_token_mode", { "github.token" } },
	/* global.yaml's (the repo file takes no github mapping) */
	{ "netegress_test:github_origin", { "github.enabled" } },
	{ "doctor_test:github", { "github.api_tokens" } },
	{ "agent_test:start_enabled", { "agents.*.enabled" } },
	{ "agent_test:new_agent", { "agents.*.command",
	    "agents.*.install", "agents.*.install_check", "agents.*.env.*" } },
	{ "agent_test:install_network", { "agents.*.install_network" } },
	{ "agent_test:agent_shared", { "agents.*.shared",
	    "agents.*.shared.subpath", "agents.*.shared.path",
	    "agents.*.shared.type", "agents.*.shared.seed" } },
	{ "agent_test:agent_egress", { "agents.*.egress_allow" } },
	{ "agent_test:step_mounts", { "autostart.on_create.mounts",
	    "autostart.on_create.timeout" } },
};

/*
 * The original's keys that are not done, each refused when it asks for
 * something: the value that asks, and what the refusal says (NULL: "not
 * supported yet").  The YAML is the key's mappings around the value.
 */
static const struct refusal {
	const char	*key;
	const char	*value;
	const char	*says;
} refusals[] = {
	{ "shared_dir", "/srv/shared", NULL },
	{ "share_local", "true", NULL },
	{ "host_devices", "[{path: /dev/kvm}]", NULL },
	{ "shared_caches", "[{name: m2}]", NULL },
	{ "golden.ubuntu_version", "'24.04'", NULL },
	{ "golden.java", "'21'", NULL },
	{ "golden.node", "'24'", NULL },
	{ "golden.provision_script", "./p.sh", NULL },
	{ "golden.provision_env", "{A: b}", NULL },
	{ "golden.enable_snippets", "[x]", NULL },
	{ "golden.disable_snippets", "[x]", NULL },
	{ "golden.stacks.java", "true", NULL },
	{ "golden.stacks.node", "true", NULL },
	{ "golden.stacks.python", "true", NULL },
	{ "golden.stacks.docker", "true", NULL },
	{ "golden.stacks.ecr", "true", NULL },
	{ "ssh.seed_from_host", "false", NULL },
	{ "jetbrains.enabled", "true", NULL },
	{ "jetbrains.ide", "goland", NULL },
	{ "jetbrains.userprefs_from_host", "true", NULL },
	{ "jetbrains.share_idea", "true", NULL },
	{ "jetbrains.ai_enabled", "true", NULL },
	{ "jetbrains.autostart", "true", NULL },
	{ "jetbrains.toolbox_host_path", "/opt/tb", NULL },
	{ "chrome.enabled", "true", NULL },
	{ "chrome.url", "'http://x'", NULL },
	{ "chrome.dark_mode", "true", NULL },
	{ "chrome.autostart", "true", NULL },
	{ "chrome.host_path", "/opt/c", NULL },
	{ "agents.claude.plugins_enabled", "true", NULL },
	{ "agents.claude.install_jailbee_skills", "true", NULL },
	{ "agents.claude.ai_pr_description", "true", NULL },
	{ "agents.claude.ai_pr_branch", "true", NULL },
	{ "agents.claude.ai_pr_model", "opus", NULL },
	{ "agents.claude.pr_prompt", "write it", NULL },
	{ "agents.claude.ai_pr_timeout", "60", NULL },
	{ "terminal.kitty.enabled", "true", NULL },
	{ "terminal.kitty.host_terminfo_path", "/usr/share/terminfo", NULL },
	{ "docker_registry_mirror.extra_registries", "[r.example]", NULL },
	{ "docker_registry_mirror.enabled", "true", NULL },
	{ "docker_registry_mirror.port", "3128", NULL },
	{ "docker_registry_mirror.image", "'x:1'", NULL },
	{ "docker_registry_mirror.data_dir", "/srv/m", NULL },
	{ "new.clone_from", "origin", NULL },
	{ "new.autofetch", "true", NULL },
	{ "new.background", "true", NULL },
	{ "new.submodules", "true", NULL },
	{ "destroy.background", "true", NULL },
	{ "after_new", "shell", NULL },
	{ "confirm.auto_target", "true", NULL },
	{ "pull.destroy_container", "always", NULL },
	{ "pull.delete_branch", "always", NULL },
	{ "push.default_action", "push", NULL },
	{ "push.default_source", "head", NULL },
	{ "push.push_from", "local", NULL },
	{ "push.autofetch", "true", NULL },
	{ "ls.fields", "[name]", NULL },
	{ "ls.hide", "[ip]", NULL },
	{ "dashboard.fields", "[name]", NULL },
	{ "dashboard.hide", "[ip]", NULL },
	{ "egress_proxy_always", "true", NULL },
	{ "gui.wayland", "always", NULL },
	{ "litellm", "{url: 'http://x'}", NULL },
	{ "remote.ssh", "{restrict_host: false}", "live in jailbeed.yaml" },
	{ "merge", "{delete_branch: true}", "retired by the original" },
	{ "install_gie_skills", "true", "retired by the original" },
};

/* a key's verdict, from one of the two tables */
struct verdict {
	const char		*key;
	enum how		 how;
	const char		*tcase;		/* SEEN */
	const struct refusal	*r;		/* REFUSED */
};

#define KEYS_MAX	512

struct keyset {
	char	*v[KEYS_MAX];
	char	 from[KEYS_MAX][16];
	size_t	 n;
};

static int
known(const struct keyset *ks, const char *key)
{
	size_t	i;

	for (i = 0; i < ks->n; i++)
		if (strcmp(ks->v[i], key) == 0)
			return 1;
	return 0;
}

static void
keyset_add(struct keyset *ks, const char *key, const char *from)
{
	if (known(ks, key))
		return;
	ATF_REQUIRE(ks->n < KEYS_MAX);
	ATF_REQUIRE((ks->v[ks->n] = strdup(key)) != NULL);
	(void)strlcpy(ks->from[ks->n], from, sizeof(ks->from[ks->n]));
	ks->n++;
}

static int
named_map(const char *path)
{
	size_t	i;

	for (i = 0; named_maps[i] != NULL; i++)
		if (strcmp(named_maps[i], path) == 0)
			return 1;
	return 0;
}

/* every leaf below n, at path: a scalar, or a list of scalars */
static void
walk(const struct yt_node *n, const char *path, struct keyset *ks)
{
	char	sub[256];
	size_t	i;

	switch (n->kind) {
	case YT_MAPPING:
		for (i = 0; i < n->npairs; i++) {
			(void)snprintf(sub, sizeof(sub), "%s%s%s", path,
			    path[0] ? "." : "", named_map(path) ? "*" :
			    n->pairs[i].key->str);
			walk(n->pairs[i].val, sub, ks);
		}
		return;
	case YT_SEQUENCE:
		/* a list of mappings: every item's keys */
		for (i = 0; i < n->nitems; i++)
			if (n->items[i]->kind == YT_MAPPING)
				walk(n->items[i], path, ks);
		for (i = 0; i < n->nitems; i++)
			if (n->items[i]->kind == YT_MAPPING)
				return;
		/* FALLTHROUGH */
	case YT_SCALAR:
		keyset_add(ks, path, "template");
		return;
	}
}

/* the template with its examples uncommented, as t_repoconf:template */
static void
template_keys(struct keyset *ks)
{
	struct yt_node	*root = NULL;
	const char	*p, *nl;
	char		*yaml, *o, err[512];

	ATF_REQUIRE((yaml = malloc(strlen(repoconf_template) + 1)) != NULL);
	o = yaml;
	for (p = repoconf_template; *p != '\0'; p = nl + 1) {
		ATF_REQUIRE((nl = strchr(p, '\n')) != NULL);
		if (p[1] != ' ' || p[2] == ' ')
			p++;
		memcpy(o, p, (size_t)(nl - p + 1));
		o += nl - p + 1;
	}
	*o = '\0';
	ATF_REQUIRE_MSG(yt_load("template", yaml, strlen(yaml), &root, err,
	    sizeof(err)) == 0 && root != NULL, "%s", err);
	walk(root, "", ks);
	yt_free(root);
	free(yaml);
}

static int
verdict(const char *key, struct verdict *v)
{
	size_t	i, j;

	memset(v, 0, sizeof(*v));
	v->key = key;
	for (i = 0; i < NITEMS(seen); i++)
		for (j = 0; j < NITEMS(seen[i].keys) &&
		    seen[i].keys[j] != NULL; j++)
			if (strcmp(seen[i].keys[j], key) == 0) {
				v->how = SEEN;
				v->tcase = seen[i].tcase;
				return 1;
			}
	for (i = 0; i < NITEMS(refusals); i++)
		if (strcmp(refusals[i].key, key) == 0) {
			v->how = REFUSED;
			v->r = &refusals[i];
			return 1;
		}
	return 0;
}

/* key "a.b.c" and value v: "a: {b: {c: v}}\n" */
static void
refusal_yaml(const struct refusal *r, char *buf, size_t len)
{
	char	 key[256], *w, *s = key;
	size_t	 depth = 0;

	(void)strlcpy(key, r->key, sizeof(key));
	buf[0] = '\0';
	while ((w = strsep(&s, ".")) != NULL) {
		if (depth++ > 0)
			(void)strlcat(buf, "{", len);
		(void)strlcat(buf, w, len);
		(void)strlcat(buf, ": ", len);
	}
	(void)strlcat(buf, r->value, len);
	while (--depth > 0)
		(void)strlcat(buf, "}", len);
	(void)strlcat(buf, "\n", len);
}

static char *
slurp(const char *path)
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
	return buf;
}

/* word w in text, not as part of a longer name */
static int
has_word(const char *text, const char *w)
{
	const char	*p = text;
	size_t		 len = strlen(w);

	while ((p = strstr(p, w)) != NULL) {
		if ((p == text || (!isalnum((unsigned char)p[-1]) &&
		    p[-1] != '_')) && !isalnum((unsigned char)p[len]) &&
		    p[len] != '_')
			return 1;
		p += len;
	}
	return 0;
}

/* the key's first and last words, "*" and the like left out */
static void
key_words(const char *key, char *first, char *last, size_t len)
{
	char	 buf[256], *w, *s = buf;

	(void)strlcpy(buf, key, sizeof(buf));
	first[0] = last[0] = '\0';
	while ((w = strsep(&s, ".")) != NULL) {
		if (strcmp(w, "*") == 0)
			continue;
		if (first[0] == '\0')
			(void)strlcpy(first, w, len);
		(void)strlcpy(last, w, len);
	}
}

static int
check_seen(const atf_tc_t *tc, const struct verdict *v, char *why,
    size_t len)
{
	const char	*top = atf_tc_get_config_var_wd(tc, "topdir", "../..");
	const char	*colon = strchr(v->tcase, ':');
	char		 path[1024], tcase[256], first[64], last[64];
	char		*text;
	int		 ok;

	if (colon == NULL) {
		(void)snprintf(why, len, "%s: SEEN needs program:case", v->key);
		return 0;
	}
	(void)snprintf(path, sizeof(path), "%s/regress/integ/%.*s.sh", top,
	    (int)(colon - v->tcase), v->tcase);
	if ((text = slurp(path)) == NULL) {
		(void)snprintf(why, len, "%s: no integration program %s",
		    v->key, path);
		return 0;
	}
	(void)snprintf(tcase, sizeof(tcase), "atf_test_case %s ", colon + 1);
	key_words(v->key, first, last, sizeof(first));
	ok = strstr(text, tcase) != NULL && has_word(text, first) &&
	    has_word(text, last);
	if (!ok)
		(void)snprintf(why, len, "%s: %s has no case %s naming %s and "
		    "%s", v->key, path, colon + 1, first, last);
	free(text);
	return ok;
}

static int
check_refused(const struct verdict *v, char *why, size_t len)
{
	struct repoconf	 c;
	const char	*says = v->r->says != NULL ? v->r->says : NOT_YET;
	char		 yaml[512], err[RC_ERR_MAX] = "", first[64], last[64];
	int		 rc;

	refusal_yaml(v->r, yaml, sizeof(yaml));
	repoconf_init(&c);
	rc = repoconf_parse_layer(RC_LAYER_REPO, "config.yaml", yaml,
	    strlen(yaml), &c, err, sizeof(err));
	repoconf_free(&c);
	key_words(v->key, first, last, sizeof(first));
	if (rc == 0) {
		(void)snprintf(why, len, "%s: \"%s\" was accepted", v->key,
		    yaml);
		return 0;
	}
	if (strstr(err, says) == NULL || strstr(err, first) == NULL ||
	    strstr(err, last) == NULL) {
		(void)snprintf(why, len, "%s: refused, but not naming it and "
		    "\"%s\": %s", v->key, says, err);
		return 0;
	}
	return 1;
}

ATF_TC_WITHOUT_HEAD(every_key_observed_or_refused);
ATF_TC_BODY(every_key_observed_or_refused, tc)
{
	struct keyset		 ks;
	struct verdict		 v;
	char			 why[2048];
	size_t			 i, j, nseen = 0, nrefused = 0;

	memset(&ks, 0, sizeof(ks));
	template_keys(&ks);
	ATF_CHECK_MSG(ks.n > 30, "only %zu keys in the template", ks.n);
	for (i = 0; reference_keys[i] != NULL; i++)
		keyset_add(&ks, reference_keys[i], "REFERENCE");

	for (i = 0; i < ks.n; i++) {
		if (!verdict(ks.v[i], &v)) {
			ATF_CHECK_MSG(0, "%s (from the %s) is neither observed "
			    "by a test nor refused: add its verdict",
			    ks.v[i], ks.from[i]);
			continue;
		}
		if (v.how == SEEN) {
			ATF_CHECK_MSG(check_seen(tc, &v, why, sizeof(why)),
			    "%s", why);
			nseen++;
		} else {
			ATF_CHECK_MSG(check_refused(&v, why, sizeof(why)),
			    "%s", why);
			nrefused++;
		}
	}
	/* no verdict for a key nobody can write */
	for (i = 0; i < NITEMS(seen); i++)
		for (j = 0; j < NITEMS(seen[i].keys) &&
		    seen[i].keys[j] != NULL; j++)
			ATF_CHECK_MSG(known(&ks, seen[i].keys[j]), "verdict "
			    "for %s, a key of neither the template nor the "
			    "original's schema", seen[i].keys[j]);
	for (i = 0; i < NITEMS(refusals); i++)
		ATF_CHECK_MSG(known(&ks, refusals[i].key), "verdict for %s, "
		    "a key of neither the template nor the original's schema",
		    refusals[i].key);
	ATF_CHECK(nseen > 0 && nrefused > 0);
	for (i = 0; i < ks.n; i++)
		free(ks.v[i]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_key_observed_or_refused);
	return atf_no_error();
}
