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
 * libFuzzer target for the repository configuration: the bytes as each
 * of the three layers, applied twice as layering does, then finished;
 * and as a directory name to slug.  Besides the sanitizers it checks the
 * promises: a refused layer leaves the struct untouched and says where,
 * an accepted one holds only valid values, what repoconf_dump() prints
 * reads back to the same print, and a token is never printed.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrlimits.h"
#include "repoconf.h"

#define NAME	"f.yaml"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
static void	check_secrets(const struct repoconf *);
static void	finish_refused(const struct repoconf *, const char *);

static int
terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static int
is_prefix(const char *s)
{
	size_t	len = strlen(s);

	return len > 0 && len <= NAME_PREFIX_MAX && s[0] != '-' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == len;
}

static int
tribool(int v)
{
	return v == RC_UNSET || v == 0 || v == 1;
}

static int
revert_ok(const struct rc_revert *r, int effective)
{
	if (effective)
		return (r->enabled == 0 || r->enabled == 1) && r->after >= 1 &&
		    r->after <= 86400;
	return tribool(r->enabled) && r->after >= 0 && r->after <= 86400;
}

/* agents: bounded, terminated; an effective enabled one can run */
static void
check_agents(const struct repoconf *c)
{
	const struct rc_agent	*a;
	size_t			 i;
	int			 j, eff = c->effective;

	if (c->agents.n > RC_AGENTS_MAX || (eff && c->agents.n < 5))
		abort();
	for (i = 0; i < c->agents.n; i++) {
		a = &c->agents.v[i];
		if (!terminated(a->name, sizeof(a->name)) || a->name[0] == '\0' ||
		    !terminated(a->command, sizeof(a->command)) ||
		    !terminated(a->install_network,
		    sizeof(a->install_network)) ||
		    !tribool(a->enabled) || !tribool(a->autostart) ||
		    !tribool(a->auto_update) ||
		    a->negress < 0 || a->negress > RC_AGENT_EGRESS_MAX ||
		    a->nshared < 0 || a->nshared > RC_AGENT_SHARED_MAX ||
		    a->nenv < 0 || a->nenv > RC_AGENT_ENV_MAX ||
		    !terminated(a->packages, sizeof(a->packages)))
			abort();
		/* packages: Debian names, one space apart */
		if (a->packages[0] != '\0') {
			char	w[RC_AGENT_PACKAGES_MAX + 1], *p, *q;

			memcpy(w, a->packages, sizeof(w));
			for (p = w; (q = strsep(&p, " ")) != NULL; )
				if (!repoconf_valid_package(q))
					abort();
		}
		/* an enabled agent runs: it has a command */
		if (eff && a->enabled == 1 && a->command[0] == '\0')
			abort();
		if (eff && (a->enabled == RC_UNSET ||
		    (strcmp(a->install_network, "strict") != 0 &&
		    strcmp(a->install_network, "loose") != 0)))
			abort();
		for (j = 0; j < a->nshared; j++)
			if (a->shared[j].subpath[0] == '/' ||
			    !terminated(a->shared[j].seed,
			    sizeof(a->shared[j].seed)) ||
			    (eff && strcmp(a->shared[j].type, "dir") != 0 &&
			    strcmp(a->shared[j].type, "file") != 0 &&
			    strcmp(a->shared[j].type, "link") != 0) ||
			    /* a link points into a directory of the agent's */
			    (eff && strcmp(a->shared[j].type, "link") == 0 &&
			    (!terminated(a->shared[j].target,
			    sizeof(a->shared[j].target)) ||
			    a->shared[j].target[0] == '\0')) ||
			    (eff && strcmp(a->shared[j].type, "dir") == 0 &&
			    a->shared[j].seed[0] != '\0') ||
			    (strstr(a->shared[j].subpath, "..") != NULL &&
			    (strcmp(a->shared[j].subpath, "..") == 0 ||
			    strncmp(a->shared[j].subpath, "../", 3) == 0 ||
			    strstr(a->shared[j].subpath, "/../") != NULL)))
				abort();
	}
}

/* autostart: bounded, terminated, named uniquely, nothing refused kept */
static void
check_steps(const struct rc_steplist *l)
{
	const struct rc_step	*st;
	size_t			 i, j;
	int			 k, m;

	if (l->n > RC_STEPS_MAX || (l->n > 0 && l->v == NULL))
		abort();
	for (i = 0; i < l->n; i++) {
		st = &l->v[i];
		if (!terminated(st->name, sizeof(st->name)) ||
		    st->name[0] == '\0' || st->name[0] == '-' ||
		    strchr(st->name, ' ') != NULL ||
		    !terminated(st->run, sizeof(st->run)) ||
		    !terminated(st->working_dir, sizeof(st->working_dir)) ||
		    (st->network[0] != '\0' &&
		    strcmp(st->network, "strict") != 0 &&
		    strcmp(st->network, "loose") != 0) ||
		    (st->background && strcmp(st->network, "loose") == 0) ||
		    st->timeout < 0 || st->timeout > RC_STEP_TIMEOUT_MAX ||
		    st->nenv < 0 || st->nenv > RC_STEP_ENV_MAX ||
		    (st->working_dir[0] != '/' &&
		    (strcmp(st->working_dir, "..") == 0 ||
		    strncmp(st->working_dir, "../", 3) == 0 ||
		    strstr(st->working_dir, "/../") != NULL)))
			abort();
		for (j = 0; j < i; j++)
			if (strcmp(l->v[j].name, st->name) == 0)
				abort();
		/* mounts: kinds, each once, never on a background step */
		if (st->nmounts < 0 || st->nmounts > RC_STEP_MOUNTS_MAX ||
		    (st->background && st->nmounts > 0))
			abort();
		for (k = 0; k < st->nmounts; k++) {
			if (!terminated(st->mounts[k], sizeof(st->mounts[k])) ||
			    st->mounts[k][0] == '\0' ||
			    strspn(st->mounts[k], "abcdefghijklmnopqrstuvwxyz"
			    "0123456789_-") != strlen(st->mounts[k]))
				abort();
			for (m = 0; m < k; m++)
				if (strcmp(st->mounts[m], st->mounts[k]) == 0)
					abort();
		}
	}
}

static void
check(const struct repoconf *c, enum repoconf_layer layer)
{
	size_t	i;
	int	eff = c->effective;

	if (!terminated(c->container_prefix, sizeof(c->container_prefix)) ||
	    !terminated(c->network, sizeof(c->network)) ||
	    !terminated(c->memory, sizeof(c->memory)) ||
	    !terminated(c->github_token, sizeof(c->github_token)) ||
	    !terminated(c->base_alias, sizeof(c->base_alias)))
		abort();
	if ((eff || c->container_prefix[0] != '\0') &&
	    !is_prefix(c->container_prefix))
		abort();
	if (layer == RC_LAYER_LOCAL && !eff && c->container_prefix[0] != '\0')
		abort();
	/* a token outside the host-local file only from the legacy map */
	if (layer != RC_LAYER_LOCAL && c->github_token[0] != '\0' &&
	    !(eff && c->github_token_legacy))
		abort();
	/* the repo's tracked file never declares a secret */
	if (layer == RC_LAYER_REPO && c->nsecrets != 0)
		abort();
	if (layer == RC_LAYER_REPO && (c->ngithub_api_tokens != 0 ||
	    c->github_enabled != (eff ? 0 : RC_UNSET)))
		abort();
	if (c->ngithub_api_tokens < 0 ||
	    c->ngithub_api_tokens > RC_GH_TOKENS_MAX)
		abort();
	if (c->container_uid < 0 || c->container_uid > RC_UID_MAX ||
	    c->container_gid < 0 || c->container_gid > RC_UID_MAX ||
	    (eff && (c->container_uid == 0 || c->container_gid == 0)))
		abort();
	if (c->env.n > RC_ENV_MAX)
		abort();
	for (i = 0; i < c->env.n; i++) {
		const char *n = c->env.v[i].name;

		if (n == NULL || c->env.v[i].value == NULL || n[0] == '\0' ||
		    (n[0] >= '0' && n[0] <= '9') ||
		    strlen(n) > RC_ENV_NAME_MAX ||
		    strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
		    "vwxyz0123456789_") != strlen(n) ||
		    strlen(c->env.v[i].value) > RC_ENV_VALUE_MAX)
			abort();
	}
	if (c->host_mounts.n > RC_MOUNTS_MAX)
		abort();
	for (i = 0; i < c->host_mounts.n; i++) {
		const struct rc_mount *m = &c->host_mounts.v[i];

		if (!terminated(m->host, sizeof(m->host)) ||
		    !terminated(m->container, sizeof(m->container)) ||
		    (m->host[0] != '/' && strncmp(m->host, "~/", 2) != 0) ||
		    strstr(m->host, "/../") != NULL ||
		    m->container[0] != '/' ||
		    strstr(m->container, "/../") != NULL ||
		    (m->readonly != 0 && m->readonly != 1))
			abort();
	}
	if (c->egress_allow.n > RC_EGRESS_MAX ||
	    (c->egress_allow.n > 0 &&
	    c->egress_allow.v[c->egress_allow.n] != NULL))
		abort();
	for (i = 0; i < c->egress_allow.n; i++)
		if (strlen(c->egress_allow.v[i]) > RC_EGRESS_LEN)
			abort();
	if ((eff || c->network[0] != '\0') &&
	    strcmp(c->network, "strict") != 0 &&
	    strcmp(c->network, "loose") != 0)
		abort();
	if ((eff && c->memory[0] == '\0') || c->cpu < 0 ||
	    c->cpu > RC_CPU_MAX || c->cpu_pct < 0 || c->cpu_pct > 100 ||
	    (c->cpu != 0 && c->cpu_pct != 0) ||
	    (eff && c->cpu == 0 && c->cpu_pct == 0))
		abort();
	if ((c->memory[0] != '\0' && !lim_size_ok(c->memory, 1)) ||
	    (c->disk[0] != '\0' && !lim_size_ok(c->disk, 0)) ||
	    (eff && (c->disk[0] == '\0' || c->processes == 0)) ||
	    (c->processes != 0 && (c->processes < LIM_PROCESSES_MIN ||
	    c->processes > LIM_PROCESSES_MAX)))
		abort();
	if (!revert_ok(&c->loose_auto_revert, eff) ||
	    !revert_ok(&c->mount_auto_revert, eff))
		abort();
	if (eff && c->base_alias[0] == '\0')
		abort();
	check_agents(c);
	check_secrets(c);
	check_steps(&c->autostart.on_create);
	check_steps(&c->autostart.on_start);
	if (c->autostart.step_timeout < 0 ||
	    c->autostart.step_timeout > RC_STEP_TIMEOUT_MAX ||
	    c->autostart.nenv < 0 || c->autostart.nenv > RC_STEP_ENV_MAX)
		abort();
}

/* secrets: valid names, files and hosts, only where a layer may set them */
static void
check_secrets(const struct repoconf *c)
{
	int	i, j;

	if (c->nsecrets < 0 || c->nsecrets > RC_SECRETS_MAX)
		abort();
	for (i = 0; i < c->nsecrets; i++) {
		if (!rc_secret_name_ok(c->secrets[i].name) ||
		    (c->secrets[i].file[0] != '/' &&
		    strncmp(c->secrets[i].file, "~/", 2) != 0) ||
		    c->secrets[i].nhosts < 1 ||
		    c->secrets[i].nhosts > RC_SECRET_HOSTS_MAX)
			abort();
		for (j = 0; j < c->secrets[i].nhosts; j++)
			if (!rc_secret_host_ok(c->secrets[i].hosts[j]))
				abort();
	}
}

/* does a step of l name a kind that optional_mounts lacks? */
static int
dangling_mount(const struct rc_steplist *l, const struct rc_optlist *opt)
{
	size_t	i, j;
	int	k;

	for (i = 0; i < l->n; i++)
		for (k = 0; k < l->v[i].nmounts; k++) {
			for (j = 0; j < opt->n; j++)
				if (strcmp(opt->v[j].kind,
				    l->v[i].mounts[k]) == 0)
					break;
			if (j == opt->n)
				return 1;
		}
	return 0;
}

/*
 * A layer read alone may be refused when finished, but only for what
 * another layer could have mended: a step's mount whose optional_mounts
 * entry is in none of them, a secret named as a container.env variable,
 * or agents past their bounds once the built-in ones are added.  The
 * message says which, and the cause is really there.
 */
static void
finish_refused(const struct repoconf *c, const char *err)
{
	size_t	i;
	int	j, clash = 0;

	for (j = 0; j < c->nsecrets; j++)
		for (i = 0; i < c->env.n; i++)
			if (strcmp(c->env.v[i].name, c->secrets[j].name) == 0)
				clash = 1;
	if (strncmp(err, "autostart.", 10) == 0 &&
	    strstr(err, ": no such optional_mounts entry") != NULL &&
	    (dangling_mount(&c->autostart.on_create, &c->optional_mounts) ||
	    dangling_mount(&c->autostart.on_start, &c->optional_mounts)))
		return;
	if (strncmp(err, "secrets.", 8) == 0 && clash &&
	    strstr(err, ": container.env also sets ") != NULL)
		return;
	if (strncmp(err, "agents", 6) == 0 && strstr(err, "more than") != NULL)
		return;
	fprintf(stderr, "finish refused: %s\n", err);
	abort();
}

static char *
dump(const struct repoconf *c)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		abort();
	if (repoconf_dump(c, fp) == -1)
		abort();
	if (fclose(fp) != 0)
		abort();
	return buf;
}

/* s, printed from a struct of layer, reads back to the same print */
static void
roundtrip(enum repoconf_layer layer, const char *s, int finish)
{
	struct repoconf	*d;
	char		 err[RC_ERR_MAX], *t;

	if ((d = malloc(sizeof(*d))) == NULL)
		abort();
	repoconf_init(d);
	if (repoconf_parse_layer(layer, "dump", s, strlen(s), d, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "%s\n%s\n", err, s);
		abort();
	}
	if (finish && repoconf_finish(d, "/src/Fuzz Repo", 1000, 1000, err,
	    sizeof(err)) == -1)
		abort();
	t = dump(d);
	if (strcmp(s, t) != 0) {
		fprintf(stderr, "first:\n%s\nsecond:\n%s\n", s, t);
		abort();
	}
	free(t);
	repoconf_free(d);
	free(d);
}

static void
fuzz_layer(enum repoconf_layer layer, const uint8_t *data, size_t len)
{
	struct repoconf	*c, *before;
	char		 err[RC_ERR_MAX], *s;
	int		 i;

	if ((c = malloc(sizeof(*c))) == NULL ||
	    (before = malloc(sizeof(*before))) == NULL)
		abort();
	repoconf_init(c);
	(void)strlcpy(c->paths.local, "/h/.config/jailbee/repos/p.yaml",
	    sizeof(c->paths.local));
	for (i = 0; i < 2; i++) {
		memcpy(before, c, sizeof(*c));
		err[0] = '\0';
		if (repoconf_parse_layer(layer, NAME, (const char *)data, len,
		    c, err, sizeof(err)) == -1) {
			if (memcmp(c, before, sizeof(*c)) != 0 ||
			    strncmp(err, NAME ":", strlen(NAME ":")) != 0)
				abort();
			break;
		}
		check(c, layer);
	}

	/* tokens print as "<set>", which reads back as no token */
	s = dump(c);
	if (c->github_token[0] == '\0' && c->ngithub_api_tokens == 0)
		roundtrip(layer, s, 0);
	else if (strstr(s, "\"<set>\"") == NULL)
		abort();
	free(s);

	/*
	 * whatever the layers left, finishing fills in the rest, or refuses
	 * what only the layers together show
	 */
	err[0] = '\0';
	if (repoconf_finish(c, "/src/Fuzz Repo", 1000, 1000, err,
	    sizeof(err)) == -1) {
		finish_refused(c, err);
		goto out;
	}
	check(c, layer);
	/*
	 * github and secrets are the host's: a print holding them is no
	 * repo file; one holding secrets alone reads back as global.yaml
	 */
	s = dump(c);
	if (c->github_token[0] == '\0' && c->ngithub_api_tokens == 0 &&
	    c->github_enabled != 1)
		roundtrip(c->nsecrets == 0 ? RC_LAYER_REPO : RC_LAYER_GLOBAL,
		    s, 1);
	free(s);
out:
	repoconf_free(c);
	free(c);
	free(before);
}

static void
fuzz_names(const uint8_t *data, size_t len)
{
	struct repoconf_paths	*p;
	char			*s, out[NAME_PREFIX_MAX + 1], err[RC_ERR_MAX];
	size_t			 i, n;

	if ((s = malloc(len + 1)) == NULL || (p = malloc(sizeof(*p))) == NULL)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	if (repoconf_slug(s, out, sizeof(out)) != NULL) {
		n = strlen(out);
		if (!is_prefix(out) || out[n - 1] == '-')
			abort();
		for (i = 1; i < n; i++)
			if (out[i] == '-' && out[i - 1] == '-')
				abort();
	}
	if (repoconf_paths(s, s, s, NULL, p, err, sizeof(err)) == 0 &&
	    (p->repo[0] != '/' || p->global[0] != '/' || p->local[0] != '\0'))
		abort();
	free(p);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_layer(RC_LAYER_GLOBAL, data, len);
	fuzz_layer(RC_LAYER_REPO, data, len);
	fuzz_layer(RC_LAYER_LOCAL, data, len);
	fuzz_names(data, len);
	return 0;
}
