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

struct verdict {
	const char	*key;
	enum how	 how;
	const char	*a;	/* SEEN: program:case; REFUSED: the YAML */
	const char	*b;	/* REFUSED: what the message says */
};

static const struct verdict verdicts[] = {
	{ "container_prefix", SEEN, "containers_test:init_and_config", NULL },
	{ "container_user.uid", SEEN, "doctor_test:healthy_then_faults", NULL },
	{ "container_user.gid", SEEN, "doctor_test:healthy_then_faults", NULL },
	{ "container.env.*", SEEN, "agent_test:autostart_steps", NULL },
	{ "host_mounts.host", SEEN, "mounts_test:host_mounts_ro_rw", NULL },
	{ "host_mounts.container", SEEN, "mounts_test:host_mounts_ro_rw",
	  NULL },
	{ "host_mounts.readonly", SEEN, "mounts_test:host_mounts_ro_rw", NULL },
	{ "optional_mounts.*.host", SEEN, "mounts_test:optional_deadline",
	  NULL },
	{ "optional_mounts.*.container", SEEN, "mounts_test:optional_deadline",
	  NULL },
	{ "optional_mounts.*.readonly", SEEN,
	  "mounts_test:remount_norevert_unmount", NULL },
	{ "optional_mounts.*.description", SEEN,
	  "mounts_test:optional_deadline", NULL },
	{ "optional_mounts.*.auto_unmount_after", SEEN,
	  "mounts_test:optional_deadline", NULL },
	{ "host_ports.name", SEEN, "port_test:host_ports", NULL },
	{ "host_ports.port", SEEN, "port_test:host_ports", NULL },
	{ "host_ports.host_port", SEEN, "port_test:host_ports", NULL },
	{ "host_ports.proto", SEEN, "configkeys_test:steps_agents_ports",
	  NULL },
	{ "host_ports.host_address", SEEN, "port_test:refusals", NULL },
	{ "host_ports.container_address", SEEN,
	  "configkeys_test:steps_agents_ports", NULL },
	{ "egress_allow", SEEN, "net_test:strict_allowlist", NULL },
	{ "loose_auto_revert.enabled", SEEN, "configkeys_test:network_default",
	  NULL },
	{ "loose_auto_revert.after", SEEN, "configkeys_test:network_default",
	  NULL },
	{ "mount_auto_revert.enabled", SEEN,
	  "mounts_test:remount_norevert_unmount", NULL },
	{ "mount_auto_revert.after", SEEN,
	  "mounts_test:remount_norevert_unmount", NULL },
	{ "defaults.network", SEEN, "configkeys_test:network_default", NULL },
	{ "defaults.memory", SEEN, "limits_test:new_and_apply", NULL },
	{ "defaults.cpu", SEEN, "limits_test:new_and_apply", NULL },
	{ "defaults.processes", SEEN, "limits_test:new_and_apply", NULL },
	{ "defaults.disk", SEEN, "limits_test:new_and_apply", NULL },
	{ "base.alias", SEEN, "base_test:import_new_usage_prune", NULL },
	{ "base.packages", SEEN, "base_test:new_builds_packages", NULL },
	{ "golden.alias", SEEN, "configkeys_test:original_spellings", NULL },
	{ "golden.extra_apt_packages", SEEN,
	  "configkeys_test:original_spellings", NULL },
	{ "claude", SEEN, "configkeys_test:original_spellings", NULL },
	{ "gpg.enabled", SEEN, "mounts_test:gpg_mounts", NULL },
	{ "ssh.enabled", SEEN, "mounts_test:ssh_shared", NULL },
	{ "github.token", SEEN, "mounts_test:github_env_token_mode", NULL },
	/* global.yaml's (the repo file takes no github mapping) */
	{ "github.enabled", SEEN, "netegress_test:github_origin", NULL },
	{ "github.api_tokens", SEEN, "doctor_test:github", NULL },
	{ "agents.*.enabled", SEEN, "agent_test:start_enabled", NULL },
	{ "agents.*.autostart", SEEN, "configkeys_test:steps_agents_ports",
	  NULL },
	{ "agents.*.command", SEEN, "agent_test:new_agent", NULL },
	{ "agents.*.install", SEEN, "agent_test:new_agent", NULL },
	{ "agents.*.install_check", SEEN, "agent_test:new_agent", NULL },
	{ "agents.*.update", SEEN, "configkeys_test:steps_agents_ports", NULL },
	{ "agents.*.auto_update", SEEN, "configkeys_test:steps_agents_ports",
	  NULL },
	{ "agents.*.install_network", SEEN, "agent_test:install_network",
	  NULL },
	{ "agents.*.shared", SEEN, "agent_test:agent_shared", NULL },
	{ "agents.*.shared.subpath", SEEN, "agent_test:agent_shared", NULL },
	{ "agents.*.shared.path", SEEN, "agent_test:agent_shared", NULL },
	{ "agents.*.shared.type", SEEN, "agent_test:agent_shared", NULL },
	{ "agents.*.shared.seed", SEEN, "agent_test:agent_shared", NULL },
	{ "agents.*.egress_allow", SEEN, "agent_test:agent_egress", NULL },
	{ "agents.*.env.*", SEEN, "agent_test:new_agent", NULL },
	{ "autostart.on_create", SEEN, "agent_test:autostart_steps", NULL },
	{ "autostart.on_start", SEEN, "agent_test:autostart_steps", NULL },
	{ "autostart.env.*", SEEN, "agent_test:autostart_steps", NULL },
	{ "autostart.step_timeout", SEEN, "configkeys_test:steps_agents_ports",
	  NULL },
	{ "autostart.on_create.name", SEEN, "agent_test:autostart_steps",
	  NULL },
	{ "autostart.on_create.run", SEEN, "agent_test:autostart_steps", NULL },
	{ "autostart.on_create.network", SEEN, "agent_test:autostart_steps",
	  NULL },
	{ "autostart.on_create.mounts", SEEN, "agent_test:step_mounts", NULL },
	{ "autostart.on_create.env.*", SEEN, "agent_test:autostart_steps",
	  NULL },
	{ "autostart.on_create.working_dir", SEEN, "agent_test:autostart_steps",
	  NULL },
	{ "autostart.on_create.background", SEEN, "agent_test:autostart_steps",
	  NULL },
	{ "autostart.on_create.timeout", SEEN, "agent_test:step_mounts", NULL },
	{ "autostart.on_create.continue_on_error", SEEN,
	  "configkeys_test:steps_agents_ports", NULL },

	/* the original's, not done: refused when they ask for something */
	{ "shared_dir", REFUSED, "shared_dir: /srv/shared\n", NOT_YET },
	{ "share_local", REFUSED, "share_local: true\n", NOT_YET },
	{ "host_devices", REFUSED, "host_devices: [{path: /dev/kvm}]\n",
	  NOT_YET },
	{ "shared_caches", REFUSED, "shared_caches: [{name: m2}]\n", NOT_YET },
	{ "defaults.storage_pool", REFUSED, "defaults: {storage_pool: fast}\n",
	  NOT_YET },
	{ "golden.ubuntu_version", REFUSED, "golden: {ubuntu_version: '24.04'}\n",
	  NOT_YET },
	{ "golden.java", REFUSED, "golden: {java: '21'}\n", NOT_YET },
	{ "golden.node", REFUSED, "golden: {node: '24'}\n", NOT_YET },
	{ "golden.provision_script", REFUSED,
	  "golden: {provision_script: ./p.sh}\n", NOT_YET },
	{ "golden.provision_env", REFUSED, "golden: {provision_env: {A: b}}\n",
	  NOT_YET },
	{ "golden.enable_snippets", REFUSED, "golden: {enable_snippets: [x]}\n",
	  NOT_YET },
	{ "golden.disable_snippets", REFUSED,
	  "golden: {disable_snippets: [x]}\n", NOT_YET },
	{ "golden.stacks.java", REFUSED, "golden: {stacks: {java: true}}\n",
	  NOT_YET },
	{ "golden.stacks.node", REFUSED, "golden: {stacks: {node: true}}\n",
	  NOT_YET },
	{ "golden.stacks.python", REFUSED, "golden: {stacks: {python: true}}\n",
	  NOT_YET },
	{ "golden.stacks.docker", REFUSED, "golden: {stacks: {docker: true}}\n",
	  NOT_YET },
	{ "golden.stacks.ecr", REFUSED, "golden: {stacks: {ecr: true}}\n",
	  NOT_YET },
	{ "ssh.seed_from_host", REFUSED, "ssh: {seed_from_host: false}\n",
	  NOT_YET },
	{ "jetbrains.enabled", REFUSED, "jetbrains: {enabled: true}\n",
	  NOT_YET },
	{ "jetbrains.ide", REFUSED, "jetbrains: {ide: goland}\n", NOT_YET },
	{ "jetbrains.userprefs_from_host", REFUSED,
	  "jetbrains: {userprefs_from_host: true}\n", NOT_YET },
	{ "jetbrains.share_idea", REFUSED, "jetbrains: {share_idea: true}\n",
	  NOT_YET },
	{ "jetbrains.ai_enabled", REFUSED, "jetbrains: {ai_enabled: true}\n",
	  NOT_YET },
	{ "jetbrains.autostart", REFUSED, "jetbrains: {autostart: true}\n",
	  NOT_YET },
	{ "jetbrains.toolbox_host_path", REFUSED,
	  "jetbrains: {toolbox_host_path: /opt/tb}\n", NOT_YET },
	{ "chrome.enabled", REFUSED, "chrome: {enabled: true}\n", NOT_YET },
	{ "chrome.url", REFUSED, "chrome: {url: 'http://x'}\n", NOT_YET },
	{ "chrome.dark_mode", REFUSED, "chrome: {dark_mode: true}\n", NOT_YET },
	{ "chrome.autostart", REFUSED, "chrome: {autostart: true}\n", NOT_YET },
	{ "chrome.host_path", REFUSED, "chrome: {host_path: /opt/c}\n",
	  NOT_YET },
	{ "agents.claude.plugins_enabled", REFUSED,
	  "agents: {claude: {plugins_enabled: true}}\n", NOT_YET },
	{ "agents.claude.install_jailbee_skills", REFUSED,
	  "agents: {claude: {install_jailbee_skills: true}}\n", NOT_YET },
	{ "agents.claude.ai_pr_description", REFUSED,
	  "agents: {claude: {ai_pr_description: true}}\n", NOT_YET },
	{ "agents.claude.ai_pr_branch", REFUSED,
	  "agents: {claude: {ai_pr_branch: true}}\n", NOT_YET },
	{ "agents.claude.ai_pr_model", REFUSED,
	  "agents: {claude: {ai_pr_model: opus}}\n", NOT_YET },
	{ "agents.claude.pr_prompt", REFUSED,
	  "agents: {claude: {pr_prompt: write it}}\n", NOT_YET },
	{ "agents.claude.ai_pr_timeout", REFUSED,
	  "agents: {claude: {ai_pr_timeout: 60}}\n", NOT_YET },

	{ "terminal.kitty.enabled", REFUSED,
	  "terminal: {kitty: {enabled: true}}\n", NOT_YET },
	{ "terminal.kitty.host_terminfo_path", REFUSED,
	  "terminal: {kitty: {host_terminfo_path: /usr/share/terminfo}}\n",
	  NOT_YET },
	{ "docker_registry_mirror.extra_registries", REFUSED,
	  "docker_registry_mirror: {extra_registries: [r.example]}\n",
	  NOT_YET },
	{ "docker_registry_mirror.enabled", REFUSED,
	  "docker_registry_mirror: {enabled: true}\n", NOT_YET },
	{ "docker_registry_mirror.port", REFUSED,
	  "docker_registry_mirror: {port: 3128}\n", NOT_YET },
	{ "docker_registry_mirror.image", REFUSED,
	  "docker_registry_mirror: {image: 'x:1'}\n", NOT_YET },
	{ "docker_registry_mirror.data_dir", REFUSED,
	  "docker_registry_mirror: {data_dir: /srv/m}\n", NOT_YET },
	{ "new.clone_from", REFUSED, "new: {clone_from: origin}\n", NOT_YET },
	{ "new.autofetch", REFUSED, "new: {autofetch: true}\n", NOT_YET },
	{ "new.background", REFUSED, "new: {background: true}\n", NOT_YET },
	{ "new.submodules", REFUSED, "new: {submodules: true}\n", NOT_YET },
	{ "destroy.background", REFUSED, "destroy: {background: true}\n",
	  NOT_YET },
	{ "after_new", REFUSED, "after_new: shell\n", NOT_YET },
	{ "confirm.auto_target", REFUSED, "confirm: {auto_target: true}\n",
	  NOT_YET },
	{ "pull.destroy_container", REFUSED,
	  "pull: {destroy_container: always}\n", NOT_YET },
	{ "pull.delete_branch", REFUSED, "pull: {delete_branch: always}\n",
	  NOT_YET },
	{ "push.default_action", REFUSED, "push: {default_action: push}\n",
	  NOT_YET },
	{ "push.default_source", REFUSED, "push: {default_source: head}\n",
	  NOT_YET },
	{ "push.push_from", REFUSED, "push: {push_from: local}\n", NOT_YET },
	{ "push.autofetch", REFUSED, "push: {autofetch: true}\n", NOT_YET },
	{ "ls.fields", REFUSED, "ls: {fields: [name]}\n", NOT_YET },
	{ "ls.hide", REFUSED, "ls: {hide: [ip]}\n", NOT_YET },
	{ "dashboard.fields", REFUSED, "dashboard: {fields: [name]}\n",
	  NOT_YET },
	{ "dashboard.hide", REFUSED, "dashboard: {hide: [ip]}\n", NOT_YET },
	{ "egress_proxy_always", REFUSED, "egress_proxy_always: true\n",
	  NOT_YET },
	{ "gui.wayland", REFUSED, "gui: {wayland: always}\n", NOT_YET },
	{ "litellm", REFUSED, "litellm: {url: 'http://x'}\n", NOT_YET },
	{ "remote.ssh", REFUSED, "remote: {ssh: {restrict_host: false}}\n",
	  "live in jailbeed.yaml" },
	{ "merge", REFUSED, "merge: {delete_branch: true}\n",
	  "retired by the original" },
	{ "install_gie_skills", REFUSED, "install_gie_skills: true\n",
	  "retired by the original" },
	{ NULL, SEEN, NULL, NULL }
};

#define KEYS_MAX	512

struct keyset {
	char	*v[KEYS_MAX];
	char	 from[KEYS_MAX][16];
	size_t	 n;
};

static void
keyset_add(struct keyset *ks, const char *key, const char *from)
{
	size_t	i;

	for (i = 0; i < ks->n; i++)
		if (strcmp(ks->v[i], key) == 0)
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

static const struct verdict *
verdict(const char *key)
{
	const struct verdict	*v;

	for (v = verdicts; v->key != NULL; v++)
		if (strcmp(v->key, key) == 0)
			return v;
	return NULL;
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
	const char	*colon = strchr(v->a, ':');
	char		 path[1024], tcase[256], first[64], last[64];
	char		*text;
	int		 ok;

	if (colon == NULL) {
		(void)snprintf(why, len, "%s: SEEN needs program:case", v->key);
		return 0;
	}
	(void)snprintf(path, sizeof(path), "%s/regress/integ/%.*s.sh", top,
	    (int)(colon - v->a), v->a);
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
	struct repoconf	c;
	char		err[RC_ERR_MAX] = "", first[64], last[64];
	int		rc;

	repoconf_init(&c);
	rc = repoconf_parse_layer(RC_LAYER_REPO, "config.yaml", v->a,
	    strlen(v->a), &c, err, sizeof(err));
	repoconf_free(&c);
	key_words(v->key, first, last, sizeof(first));
	if (rc == 0) {
		(void)snprintf(why, len, "%s: \"%s\" was accepted", v->key,
		    v->a);
		return 0;
	}
	if (strstr(err, v->b) == NULL || strstr(err, first) == NULL ||
	    strstr(err, last) == NULL) {
		(void)snprintf(why, len, "%s: refused, but not naming it and "
		    "\"%s\": %s", v->key, v->b, err);
		return 0;
	}
	return 1;
}

ATF_TC_WITHOUT_HEAD(every_key_observed_or_refused);
ATF_TC_BODY(every_key_observed_or_refused, tc)
{
	struct keyset		 ks;
	const struct verdict	*v;
	char			 why[2048];
	size_t			 i, seen = 0, refused = 0;

	memset(&ks, 0, sizeof(ks));
	template_keys(&ks);
	ATF_CHECK_MSG(ks.n > 30, "only %zu keys in the template", ks.n);
	for (i = 0; reference_keys[i] != NULL; i++)
		keyset_add(&ks, reference_keys[i], "REFERENCE");

	for (i = 0; i < ks.n; i++) {
		if ((v = verdict(ks.v[i])) == NULL) {
			ATF_CHECK_MSG(0, "%s (from the %s) is neither observed "
			    "by a test nor refused: add its verdict",
			    ks.v[i], ks.from[i]);
			continue;
		}
		if (v->how == SEEN) {
			ATF_CHECK_MSG(check_seen(tc, v, why, sizeof(why)),
			    "%s", why);
			seen++;
		} else {
			ATF_CHECK_MSG(check_refused(v, why, sizeof(why)),
			    "%s", why);
			refused++;
		}
	}
	/* no verdict for a key nobody can write */
	for (v = verdicts; v->key != NULL; v++) {
		for (i = 0; i < ks.n; i++)
			if (strcmp(ks.v[i], v->key) == 0)
				break;
		ATF_CHECK_MSG(i < ks.n, "verdict for %s, a key of neither the "
		    "template nor the original's schema", v->key);
	}
	ATF_CHECK(seen > 0 && refused > 0);
	for (i = 0; i < ks.n; i++)
		free(ks.v[i]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_key_observed_or_refused);
	return atf_no_error();
}
