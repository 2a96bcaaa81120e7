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
 * The command table: every leaf classified (the router refuses one that
 * is not), every leaf reachable by its own words, options well formed.
 */

#include <stdint.h>
#include <string.h>

#include <atf-c.h>

#include "cmdtab.h"

ATF_TC_WITHOUT_HEAD(every_leaf_classified);
ATF_TC_BODY(every_leaf_classified, tc)
{
	char	name[64];
	int	i;

	ATF_REQUIRE(cmdtab_len > 0);
	for (i = 0; i < cmdtab_len; i++) {
		cmd_name(&cmdtab[i], name, sizeof(name));
		ATF_CHECK_MSG(cmdtab[i].cls == CMD_HOST ||
		    cmdtab[i].cls == CMD_CONTAINER ||
		    cmdtab[i].cls == CMD_INTERNAL,
		    "%s has no classification", name);
		ATF_CHECK_MSG(cmdtab[i].id != CMD_NONE, "%s has no id", name);
		ATF_CHECK_MSG(cmdtab[i].help != NULL &&
		    cmdtab[i].help[0] != '\0', "%s has no help", name);
		ATF_CHECK_MSG(cmdtab[i].args != NULL, "%s: args NULL", name);
		ATF_CHECK_MSG(cmdtab[i].min_args <= cmdtab[i].max_args,
		    "%s: min_args > max_args", name);
	}
}

ATF_TC_WITHOUT_HEAD(leaves_unique_and_reachable);
ATF_TC_BODY(leaves_unique_and_reachable, tc)
{
	char	*argv[CMD_MAXWORDS + 1], name[64];
	int	 i, j, w, n;

	for (i = 0; i < cmdtab_len; i++) {
		for (w = 0; w < CMD_MAXWORDS && cmdtab[i].words[w]; w++)
			argv[w] = (char *)(uintptr_t)cmdtab[i].words[w];
		argv[w] = NULL;
		cmd_name(&cmdtab[i], name, sizeof(name));
		ATF_CHECK_MSG(cmd_lookup(w, argv, &n) == &cmdtab[i] && n == w,
		    "%s does not look up to itself", name);
		for (j = 0; j < cmdtab_len; j++)
			ATF_CHECK_MSG(j == i || cmdtab[j].id != cmdtab[i].id,
			    "%s shares its id", name);
		ATF_CHECK(cmd_find(cmdtab[i].id) == &cmdtab[i]);
	}
}

ATF_TC_WITHOUT_HEAD(options_well_formed);
ATF_TC_BODY(options_well_formed, tc)
{
	const struct cmd_opt	*o;
	char			 name[64];
	int			 i, k, m;

	for (i = 0; i < cmdtab_len; i++) {
		cmd_name(&cmdtab[i], name, sizeof(name));
		for (k = 0; k < CMD_MAXOPTS && cmdtab[i].opts[k].lname; k++) {
			o = &cmdtab[i].opts[k];
			ATF_CHECK_MSG(o->help != NULL && o->help[0] != '\0',
			    "%s --%s has no help", name, o->lname);
			ATF_CHECK_MSG(o->choices == NULL || o->argname != NULL,
			    "%s --%s: choices on a flag", name, o->lname);
			for (m = 0; m < k; m++) {
				ATF_CHECK_MSG(strcmp(cmdtab[i].opts[m].lname,
				    o->lname) != 0, "%s: --%s twice", name,
				    o->lname);
				ATF_CHECK_MSG(o->sname == 0 ||
				    cmdtab[i].opts[m].sname != o->sname,
				    "%s: -%c twice", name, o->sname);
			}
		}
	}
}

/*
 * The remote gate looks up the container a command names before anything
 * else: every container command but new (whose NAME is a branch to make)
 * and ls names one, and the argument it points at is a NAME the command
 * cannot be given without.
 */
ATF_TC_WITHOUT_HEAD(container_named);
ATF_TC_BODY(container_named, tc)
{
	char		 name[64], args[128], *w, *save;
	int		 i, k;

	for (i = 0; i < cmdtab_len; i++) {
		cmd_name(&cmdtab[i], name, sizeof(name));
		if (cmdtab[i].cls == CMD_CONTAINER && cmdtab[i].id != CMD_NEW &&
		    cmdtab[i].id != CMD_LS)
			ATF_CHECK_MSG(cmdtab[i].name_arg > 0,
			    "%s names no container (name_arg)", name);
		if (cmdtab[i].name_arg == 0)
			continue;
		/*
		 * port ls and net status may leave NAME out (this repo's);
		 * over SSH the remote gate refuses it without one
		 */
		ATF_CHECK_MSG(cmdtab[i].name_arg <= cmdtab[i].min_args ||
		    cmdtab[i].id == CMD_PORT_LS ||
		    cmdtab[i].id == CMD_NET_STATUS,
		    "%s: name_arg %d is optional", name, cmdtab[i].name_arg);
		strlcpy(args, cmdtab[i].args, sizeof(args));
		for (k = 1, w = strtok_r(args, " ", &save); w != NULL &&
		    k < cmdtab[i].name_arg; k++)
			w = strtok_r(NULL, " ", &save);
		ATF_CHECK_MSG(w != NULL && (strcmp(w, "NAME") == 0 ||
		    (cmdtab[i].name_arg > cmdtab[i].min_args &&
		    strcmp(w, "[NAME]") == 0)),
		    "%s: argument %d is not NAME", name, cmdtab[i].name_arg);
	}
	/* the ones the security review found ungated */
	ATF_CHECK_EQ(cmd_find(CMD_NET_STATUS)->name_arg, 1);
	ATF_CHECK_EQ(cmd_find(CMD_NET_EGRESS_RM)->name_arg, 2);
	ATF_CHECK_EQ(cmd_find(CMD_MOUNT_LS)->name_arg, 1);
	ATF_CHECK_EQ(cmd_find(CMD_UNMOUNT)->name_arg, 2);
	ATF_CHECK_EQ(cmd_find(CMD_MOUNT)->name_arg, 2);
	ATF_CHECK_EQ(cmd_find(CMD_PORT_TO_CONTAINER)->name_arg, 1);
	ATF_CHECK_EQ(cmd_find(CMD_PORT_TO_HOST)->name_arg, 1);
	ATF_CHECK_EQ(cmd_find(CMD_PORT_RM)->name_arg, 2);
}

ATF_TC_WITHOUT_HEAD(lookup);
ATF_TC_BODY(lookup, tc)
{
	char	*a1[] = { "status", "-o", "json", NULL };
	char	*a2[] = { "frobnicate", NULL };
	char	*a3[] = { NULL };
	int	 n = -1;

	ATF_CHECK(cmd_lookup(3, a1, &n) == cmd_find(CMD_STATUS) && n == 1);
	ATF_CHECK(cmd_lookup(1, a2, &n) == NULL && n == 0);
	ATF_CHECK(cmd_lookup(0, a3, &n) == NULL);
	ATF_CHECK_STREQ(cmd_class_name(CMD_HOST), "host");
	ATF_CHECK_STREQ(cmd_class_name(CMD_UNCLASSIFIED), "unclassified");
}

ATF_TC_WITHOUT_HEAD(choices);
ATF_TC_BODY(choices, tc)
{
	ATF_CHECK(cmd_choice_ok("strict|loose", "strict"));
	ATF_CHECK(cmd_choice_ok("strict|loose", "loose"));
	ATF_CHECK(cmd_choice_ok("text", "text"));
	/* exact words only: no prefix, no case folding, no empty word */
	ATF_CHECK(!cmd_choice_ok("strict|loose", "loos"));
	ATF_CHECK(!cmd_choice_ok("strict|loose", "looser"));
	ATF_CHECK(!cmd_choice_ok("strict|loose", "LOOSE"));
	ATF_CHECK(!cmd_choice_ok("strict|loose", ""));
	ATF_CHECK(!cmd_choice_ok("strict|loose", "strict|loose"));
}

/* help GROUP: the words that start leaves, and only those */
ATF_TC_WITHOUT_HEAD(groups);
ATF_TC_BODY(groups, tc)
{
	char		*net[] = { "net", NULL };
	char		*egress[] = { "net", "egress", NULL };
	char		*git[] = { "git", NULL };
	char		*status[] = { "status", NULL };
	char		*bogus[] = { "net", "bogus", NULL };
	char		 name[64];
	int		 i, nnet = 0, negress = 0, ngit = 0;

	for (i = 0; i < cmdtab_len; i++) {
		const struct cmd *c = &cmdtab[i];

		cmd_name(c, name, sizeof(name));
		if (cmd_in_group(c, 1, net)) {
			nnet++;
			ATF_CHECK_MSG(strncmp(name, "net ", 4) == 0, "%s", name);
		}
		if (cmd_in_group(c, 2, egress)) {
			negress++;
			ATF_CHECK_MSG(strncmp(name, "net egress ", 11) == 0,
			    "%s", name);
		}
		if (cmd_in_group(c, 1, git))
			ngit++;
		/* a leaf is no group, nor is a word that starts none */
		ATF_CHECK_MSG(!cmd_in_group(c, 1, status), "%s", name);
		ATF_CHECK_MSG(!cmd_in_group(c, 2, bogus), "%s", name);
		ATF_CHECK_MSG(!cmd_in_group(c, 0, net), "%s", name);
		/* every leaf of two words or more is in its first word's */
		if (c->words[1] != NULL) {
			char	*first[] = { (char *)(uintptr_t)c->words[0],
				    NULL };

			ATF_CHECK_MSG(cmd_in_group(c, 1, first), "%s", name);
		}
	}
	ATF_CHECK(nnet > negress && negress >= 4);
	ATF_CHECK(ngit >= 5);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_leaf_classified);
	ATF_TP_ADD_TC(tp, leaves_unique_and_reachable);
	ATF_TP_ADD_TC(tp, options_well_formed);
	ATF_TP_ADD_TC(tp, container_named);
	ATF_TP_ADD_TC(tp, lookup);
	ATF_TP_ADD_TC(tp, choices);
	ATF_TP_ADD_TC(tp, groups);
	return atf_no_error();
}
