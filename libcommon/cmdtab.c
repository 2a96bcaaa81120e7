/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmdtab.h"

const struct cmd cmdtab[] = {
	{ .words = { "status" }, .id = CMD_STATUS, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .opts = { { .lname = "output", .sname = 'o', .argname = "FORMAT",
	      .choices = "text|json",
	      .help = "print as text (default) or JSON" } },
	  .help = "show every process of the suite: pid, user, group, "
	  "capabilities and uptime, as each reports itself" },
	{ .words = { "version" }, .id = CMD_VERSION, .cls = CMD_HOST,
	  .args = "", .min_args = 0, .max_args = 0,
	  .help = "print the versions of jbctl and of the running jailbeed" },
	{ .words = { "help" }, .id = CMD_HELP, .cls = CMD_HOST,
	  .args = "[COMMAND...]", .min_args = 0, .max_args = CMD_MAXWORDS,
	  .help = "print the commands, or the usage of one command" },
#ifdef JB_TESTHOOKS
	{ .words = { "_test-attempt" }, .id = CMD_TEST_ATTEMPT,
	  .cls = CMD_INTERNAL, .args = "PROCESS read|write|connect|netlink PATH",
	  .min_args = 3, .max_args = 3,
	  .help = "test builds: make PROCESS try an operation its lock-down "
	  "forbids" },
#endif
};
const int cmdtab_len = sizeof(cmdtab) / sizeof(cmdtab[0]);

const struct cmd *
cmd_lookup(int argc, char *const argv[], int *nwords)
{
	const struct cmd	*best = NULL;
	int			 i, w, bestw = 0;

	for (i = 0; i < cmdtab_len; i++) {
		for (w = 0; w < CMD_MAXWORDS && cmdtab[i].words[w] != NULL;
		    w++)
			if (w >= argc || strcmp(argv[w], cmdtab[i].words[w]))
				break;
		if ((w == CMD_MAXWORDS || cmdtab[i].words[w] == NULL) &&
		    w > bestw) {
			best = &cmdtab[i];
			bestw = w;
		}
	}
	if (nwords != NULL)
		*nwords = bestw;
	return best;
}

const struct cmd *
cmd_find(enum cmd_id id)
{
	int	i;

	for (i = 0; i < cmdtab_len; i++)
		if (cmdtab[i].id == id)
			return &cmdtab[i];
	return NULL;
}

const char *
cmd_class_name(enum cmd_class cls)
{
	switch (cls) {
	case CMD_HOST:
		return "host";
	case CMD_CONTAINER:
		return "container";
	case CMD_INTERNAL:
		return "internal";
	case CMD_UNCLASSIFIED:
		break;
	}
	return "unclassified";
}

const char *
cmd_name(const struct cmd *c, char *buf, size_t len)
{
	int	w;

	buf[0] = '\0';
	for (w = 0; w < CMD_MAXWORDS && c->words[w] != NULL; w++) {
		if (w > 0)
			strlcat(buf, " ", len);
		strlcat(buf, c->words[w], len);
	}
	return buf;
}
