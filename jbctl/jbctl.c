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
 * jbctl: the owner's control tool.  It holds nothing: it parses the
 * command line against the shared command table, asks jailbeed over the
 * control socket, and prints the answer as text or JSON.
 */

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdtab.h"
#include "config.h"
#include "imsg.h"
#include "jb_msg.h"
#include "jbctl.h"
#include "dash.h"
#include "termsafe.h"

#define JBCTL_TIMEOUT	30	/* seconds to wait for an answer */


static const char	*sockpath = JB_SOCKET_PATH;
static const struct output *out;

static void	usage_all(FILE *);
static void	usage_cmd(FILE *, const struct cmd *);

static __attribute__((__noreturn__, __format__(printf, 1, 2))) void
die(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "jbctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static void
usage_all(FILE *fp)
{
	char	name[64];
	int	i;

	fprintf(fp, "usage: jbctl [-s socket] COMMAND [ARGS...]\n\n"
	    "commands:\n");
	for (i = 0; i < cmdtab_len; i++)
		if (cmdtab[i].cls != CMD_INTERNAL)
			fprintf(fp, "  %-22s %s\n", cmd_name(&cmdtab[i], name,
			    sizeof(name)), cmdtab[i].help);
	fprintf(fp, "\n'jbctl help COMMAND' or 'jbctl COMMAND --help' shows "
	    "a command's options.\n");
}

/* argv's words, space-separated, as the user typed them */
static const char *
words_join(int argc, char *const argv[])
{
	static char	buf[256];
	int		i;

	buf[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i > 0)
			(void)strlcat(buf, " ", sizeof(buf));
		(void)strlcat(buf, argv[i], sizeof(buf));
	}
	return buf;
}

/* the commands of the group argv names (fp NULL: none printed); how many */
static int
usage_group(FILE *fp, int argc, char *const argv[])
{
	char	name[64];
	int	i, n = 0;

	for (i = 0; i < cmdtab_len; i++) {
		if (cmdtab[i].cls == CMD_INTERNAL ||
		    !cmd_in_group(&cmdtab[i], argc, argv))
			continue;
		if (fp == NULL) {
			n++;
			continue;
		}
		if (n++ == 0)
			fprintf(fp, "usage: jbctl %s COMMAND [ARGS...]\n\n"
			    "commands:\n", words_join(argc, argv));
		fprintf(fp, "  %-22s %s\n", cmd_name(&cmdtab[i], name,
		    sizeof(name)), cmdtab[i].help);
	}
	if (n > 0 && fp != NULL)
		fprintf(fp, "\n'jbctl help COMMAND' or 'jbctl COMMAND --help' "
		    "shows a command's options.\n");
	return n;
}

static void
usage_cmd(FILE *fp, const struct cmd *c)
{
	const struct cmd_opt	*o;
	char			 name[64], flag[64];
	int			 i;

	fprintf(fp, "usage: jbctl %s", cmd_name(c, name, sizeof(name)));
	for (i = 0; i < CMD_MAXOPTS && c->opts[i].lname != NULL; i++) {
		o = &c->opts[i];
		fprintf(fp, " [--%s%s%s]", o->lname, o->argname ? " " : "",
		    o->argname ? o->argname : "");
	}
	fprintf(fp, "%s%s\n\n%s\n", c->args[0] ? " " : "", c->args, c->help);
	if (c->opts[0].lname != NULL)
		fprintf(fp, "\noptions:\n");
	for (i = 0; i < CMD_MAXOPTS && c->opts[i].lname != NULL; i++) {
		o = &c->opts[i];
		if (o->sname)
			snprintf(flag, sizeof(flag), "-%c, --%s%s%s", o->sname,
			    o->lname, o->argname ? " " : "",
			    o->argname ? o->argname : "");
		else
			snprintf(flag, sizeof(flag), "--%s%s%s", o->lname,
			    o->argname ? " " : "", o->argname ? o->argname : "");
		fprintf(fp, "  %-24s %s%s%s%s\n", flag, o->help,
		    o->choices ? " (" : "", o->choices ? o->choices : "",
		    o->choices ? ")" : "");
	}
}


/* argv after the command words: options anywhere, "--" ends them */
static void
parse_args(struct parsed *p, int argc, char **argv)
{
	const struct cmd	*c = p->cmd;
	const struct cmd_opt	*o;
	char			 name[64];
	const char		*a, *val, *eq;
	int			 i, k, dashdash = 0;
	size_t			 n;

	p->args = calloc(argc + 1, sizeof(char *));
	if (p->args == NULL)
		die("out of memory");
	for (i = 0; i < argc; i++) {
		a = argv[i];
		if (dashdash || a[0] != '-' || a[1] == '\0') {
			p->args[p->nargs++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage_cmd(stdout, c);
			exit(0);
		}
		o = NULL;
		val = NULL;
		for (k = 0; k < CMD_MAXOPTS && c->opts[k].lname != NULL; k++) {
			if (a[1] == '-') {
				eq = strchr(a + 2, '=');
				n = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
				if (strlen(c->opts[k].lname) == n &&
				    strncmp(c->opts[k].lname, a + 2, n) == 0) {
					o = &c->opts[k];
					val = eq ? eq + 1 : NULL;
					break;
				}
			} else if (a[1] == c->opts[k].sname && a[2] == '\0') {
				o = &c->opts[k];
				break;
			}
		}
		if (o == NULL)
			die("%s: unknown option %s; see 'jbctl %s --help'",
			    cmd_name(c, name, sizeof(name)), a, name);
		if (o->argname == NULL) {
			if (val != NULL)
				die("option --%s takes no value", o->lname);
			val = "";
		} else if (val == NULL) {
			if (i + 1 >= argc)
				die("option --%s needs a value (%s)", o->lname,
				    o->choices ? o->choices : o->argname);
			val = argv[++i];
		}
		if (o->choices != NULL && !cmd_choice_ok(o->choices, val))
			die("option --%s: \"%s\" is not one of %s", o->lname,
			    val, o->choices);
		p->optval[k] = val;
	}
	if (p->nargs < c->min_args || p->nargs > c->max_args)
		die("%s: wrong number of arguments; usage: jbctl %s %s",
		    cmd_name(c, name, sizeof(name)), name, c->args);
}

static const char *
optval(const struct parsed *p, const char *lname)
{
	int	k;

	for (k = 0; k < CMD_MAXOPTS && p->cmd->opts[k].lname != NULL; k++)
		if (strcmp(p->cmd->opts[k].lname, lname) == 0)
			return p->optval[k];
	return NULL;
}

static int
job_opt_given(const struct parsed *p, const char *lname)
{
	return optval(p, lname) != NULL;
}

static int
ctl_connect(struct imsgbuf *ibuf)
{
	char	err[PATH_MAX + 160];
	int	fd;

	if ((fd = ctl_dial(sockpath, ibuf, JBCTL_TIMEOUT, err,
	    sizeof(err))) == -1)
		die("%s", err);
	return fd;
}

/* send one request, hand every reply to cb until CTL_END */
static void
ctl_request(struct imsgbuf *ibuf, uint32_t type, const void *data, size_t len,
    void (*cb)(struct imsg *, void *), void *arg)
{
	struct imsg		 imsg;
	struct jb_ctl_text	 t;
	int			 n, done = 0, failed = 0;

	if (imsg_compose(ibuf, type, JB_CTL_VERSION, 0, -1, data, len) == -1)
		die("cannot compose a request: %s", strerror(errno));
	if (imsgbuf_flush(ibuf) == -1) {
		if (errno == EPIPE || errno == ECONNRESET)
			die("jailbeed closed the connection (see its log)");
		die("cannot send to jailbeed: %s", strerror(errno));
	}
	while (!done) {
		if ((n = imsgbuf_read(ibuf)) == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				die("no answer from jailbeed within %d s",
				    JBCTL_TIMEOUT);
			if (errno == ECONNRESET)
				die("jailbeed closed the connection (see its "
				    "log)");
			die("reading from jailbeed: %s", strerror(errno));
		}
		if (n == 0)
			die("jailbeed closed the connection (see its log)");
		for (;;) {
			if ((n = jb_imsg_get(ibuf, &imsg, JB_PEER_PARENT,
			    JB_PEER_CTL)) == -1)
				die("malformed answer from jailbeed");
			if (n == 0)
				break;
			switch (imsg_get_type(&imsg)) {
			case IMSG_CTL_END:
				done = 1;
				break;
			case IMSG_CTL_ERROR:
				if (imsg_get_data(&imsg, &t, sizeof(t)) == -1)
					die("malformed error from jailbeed");
				t.text[sizeof(t.text) - 1] = '\0';
				fprintf(stderr, "jbctl: %s\n",
				    termsafe(t.text));
				failed = 1;
				break;
			default:
				cb(&imsg, arg);
			}
			imsg_free(&imsg);
			if (done)
				break;
		}
	}
	imsgbuf_clear(ibuf);
	close(ibuf->fd);
	if (failed)
		exit(1);
}

static void
status_cb(struct imsg *imsg, void *arg)
{
	struct jb_proc_status	 st;

	if (imsg_get_type(imsg) != IMSG_CTL_STATUS_ENTRY ||
	    imsg_get_data(imsg, &st, sizeof(st)) == -1)
		die("unexpected answer from jailbeed");
	st.name[sizeof(st.name) - 1] = '\0';
	st.detail[sizeof(st.detail) - 1] = '\0';
	st.sandbox[sizeof(st.sandbox) - 1] = '\0';
	out->status_entry(&st, time(NULL));
}

static void
text_cb(struct imsg *imsg, void *arg)
{
	struct jb_ctl_text	t;

	if (imsg_get_type(imsg) != IMSG_CTL_TEST_RESULT ||
	    imsg_get_data(imsg, &t, sizeof(t)) == -1)
		die("unexpected answer from jailbeed");
	t.text[sizeof(t.text) - 1] = '\0';
	printf("%s\n", t.text);
}

static void
version_cb(struct imsg *imsg, void *arg)
{
	struct jb_ctl_text	*t = arg;

	if (imsg_get_type(imsg) != IMSG_CTL_VERSION_REPLY ||
	    imsg_get_data(imsg, t, sizeof(*t)) == -1)
		die("unexpected answer from jailbeed");
	t->text[sizeof(t->text) - 1] = '\0';
}

/* one command on a connection of its own; the spec it named is kept */
static int
run_once(const struct parsed *p)
{
	struct imsgbuf	 ibuf;
	int		 rv;

	ctl_connect(&ibuf);
	rv = ctl_run(&ibuf, p, out);
	imsgbuf_clear(&ibuf);
	close(ibuf.fd);
	return rv;
}

/*
 * Build the image spec names here, then import it as `base import` does.
 * The daemon must have answered before minutes go into a build.
 */
static int
base_build_spec(const struct jb_base_spec *spec, const char *keep)
{
	struct parsed	 ip;
	char		 dir[PATH_MAX], file[PATH_MAX];
	char		*args[2];
	int		 rv;

	if (keep != NULL && access(keep, F_OK) == 0)
		die("--keep %s: the file exists; remove it or choose another",
		    keep);
	if (base_build(spec->packages, dir, sizeof(dir), file,
	    sizeof(file)) == -1)
		return 1;
	memset(&ip, 0, sizeof(ip));
	ip.cmd = cmd_find(CMD_BASE_IMPORT);
	args[0] = file;
	args[1] = NULL;
	ip.args = args;
	ip.nargs = 1;
	ip.optval[0] = spec->alias;	/* import's --alias */
	rv = run_once(&ip);
	if (keep != NULL && base_keep(file, keep) == 0)
		fprintf(stderr, "jbctl: the image tarball is kept as %s\n",
		    keep);
	base_cleanup(dir);
	return rv;
}

/* base build: jailbeed says which alias and packages this checkout has */
static int
base_build_import(const struct parsed *bp)
{
	struct jb_base_spec		 spec;
	const struct jb_base_spec	*s;
	int				 rv;

	if ((rv = run_once(bp)) != 0)
		return rv;
	if ((s = ctl_base_spec()) == NULL)
		die("jailbeed named no image to build");
	spec = *s;
	fprintf(stderr, "jbctl: building %s%s%s\n", spec.alias,
	    spec.packages[0] ? " with base.packages: " : "", spec.packages);
	return base_build_spec(&spec, optval(bp, "keep"));
}

/*
 * new refused by its escalation gate, which printed what is wider:
 * on a terminal, ask, and on yes run it again with --yes.
 */
static int
new_gated(const struct parsed *p)
{
	struct parsed	 q;
	char		 line[16];
	int		 rv, i;

	if ((rv = run_once(p)) == 0 || !ctl_escalation() ||
	    !isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return rv;
	fprintf(stderr, "jbctl: create it with these privileges? [y/N] ");
	if (fgets(line, sizeof(line), stdin) == NULL ||
	    (strcmp(line, "y\n") != 0 && strcmp(line, "yes\n") != 0))
		return rv;
	q = *p;
	for (i = 0; i < CMD_MAXOPTS && q.cmd->opts[i].lname != NULL; i++)
		if (strcmp(q.cmd->opts[i].lname, "yes") == 0)
			q.optval[i] = "";
	return run_once(&q);
}

/*
 * new: when the image is missing, jailbeed has made nothing and says
 * what to build; build it, as base build does, and ask again once.
 */
static int
new_or_build(const struct parsed *p)
{
	struct jb_base_spec		 spec;
	const struct jb_base_spec	*s;
	int				 rv;

	rv = new_gated(p);
	if (rv == 0 || (s = ctl_base_spec()) == NULL || s->exists)
		return rv;
	spec = *s;
	fprintf(stderr, "jbctl: base image %s is missing: building it "
	    "first%s%s\n", spec.alias, spec.packages[0] ?
	    " with base.packages: " : "", spec.packages);
	if ((rv = base_build_spec(&spec, NULL)) != 0)
		return rv;
	return new_gated(p);
}

/* new for the dashboard, which steps aside for it as for a shell */
int
jbctl_new(const struct parsed *p)
{
	return new_or_build(p);
}

int
main(int argc, char *argv[])
{
	struct parsed		 p;
	const struct cmd	*c;
	struct jb_ctl_text	 t;
	struct imsgbuf		 ibuf;
	const char		*fmt;
	int			 ch, nwords;

	/* the streams we splice to must exist, or fds we get would take them */
	while ((ch = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1 && ch <= 2)
		(void)fcntl(ch, F_SETFD, 0);
	if (ch > 2)
		close(ch);
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		usage_all(stdout);
		exit(0);
	}
	while ((ch = getopt(argc, argv, "+hs:")) != -1) {
		switch (ch) {
		case 's':
			sockpath = optarg;
			break;
		case 'h':
			usage_all(stdout);
			exit(0);
		default:
			usage_all(stderr);
			exit(2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage_all(stderr);
		exit(2);
	}
	memset(&p, 0, sizeof(p));
	if ((p.cmd = cmd_lookup(argc, argv, &nwords)) == NULL) {
		/* a group alone ("jbctl net"): its commands */
		for (nwords = argc < CMD_MAXWORDS ? argc : CMD_MAXWORDS - 1;
		    nwords > 0; nwords--)
			if (usage_group(NULL, nwords, argv) > 0)
				break;
		if (nwords > 0 && nwords < argc &&
		    (strcmp(argv[nwords], "--help") == 0 ||
		    strcmp(argv[nwords], "-h") == 0)) {
			(void)usage_group(stdout, nwords, argv);
			exit(0);
		}
		if (nwords > 0 && nwords == argc)
			fprintf(stderr, "jbctl: \"%s\" is a group of commands; "
			    "give one\n\n", words_join(nwords, argv));
		else if (nwords > 0)
			fprintf(stderr, "jbctl: unknown command \"%s\"\n\n",
			    words_join(nwords + 1, argv));
		if (nwords > 0) {
			(void)usage_group(stderr, nwords, argv);
			exit(2);
		}
		fprintf(stderr, "jbctl: unknown command \"%s\"\n\n", argv[0]);
		usage_all(stderr);
		exit(2);
	}
	if (p.cmd->cls == CMD_UNCLASSIFIED)
		die("%s: command has no classification; refusing", argv[0]);
	parse_args(&p, argc - nwords, argv + nwords);

	fmt = optval(&p, "output");
	out = (fmt != NULL && strcmp(fmt, "json") == 0) ? &json_output :
	    &text_output;

	switch (p.cmd->id) {
	case CMD_HELP:
		if (p.nargs == 0)
			usage_all(stdout);
		else if ((c = cmd_lookup(p.nargs, p.args, &nwords)) != NULL &&
		    nwords == p.nargs) {
			usage_cmd(stdout, c);
			/* a command that also starts others ("mount ls") */
			if (usage_group(NULL, p.nargs, p.args) > 0) {
				fputc('\n', stdout);
				(void)usage_group(stdout, p.nargs, p.args);
			}
		} else if (usage_group(stdout, p.nargs, p.args) == 0)
			die("help: unknown command \"%s\"; 'jbctl help' lists "
			    "them", words_join(p.nargs, p.args));
		break;
	case CMD_STATUS:
		ctl_connect(&ibuf);
		out->status_begin();
		ctl_request(&ibuf, IMSG_CTL_STATUS, NULL, 0, status_cb, NULL);
		out->status_end();
		break;
	case CMD_VERSION:
		memset(&t, 0, sizeof(t));
		ctl_connect(&ibuf);
		ctl_request(&ibuf, IMSG_CTL_VERSION, NULL, 0, version_cb, &t);
		out->version(JB_VERSION, t.text);
		break;
	case CMD_TEST_ATTEMPT: {
		struct jb_test_attempt	a;

		memset(&a, 0, sizeof(a));
		strlcpy(a.proc, p.args[0], sizeof(a.proc));
		strlcpy(a.verb, p.args[1], sizeof(a.verb));
		strlcpy(a.path, p.args[2], sizeof(a.path));
		ctl_connect(&ibuf);
		ctl_request(&ibuf, IMSG_CTL_TEST_ATTEMPT, &a, sizeof(a),
		    text_cb, NULL);
		break;
	}
	case CMD_CONFIG_INIT:
		exit(local_config_init(job_opt_given(&p, "force")));
	case CMD_INIT:
		if (local_has_config() == 0 && local_config_init(0) != 0)
			exit(1);
		ctl_connect(&ibuf);
		exit(ctl_run(&ibuf, &p, out));
	case CMD_REMOTE_SSH_KEY_ADD:
	case CMD_REMOTE_SSH_KEY_RM:
	case CMD_REMOTE_SSH_KEY_LS:
		exit(local_ssh_key(p.cmd->id, p.nargs > 0 ? p.args[0] : NULL));
	case CMD_GIT_FETCH:
	case CMD_GIT_PULL:
	case CMD_GIT_PUSH:
	case CMD_GIT_DIFF:
	case CMD_GIT_LOG:
	case CMD_GIT_CHECKOUT:
		ctl_connect(&ibuf);
		exit(local_git(&ibuf, &p, sockpath));
	case CMD_BASE_BUILD:
		exit(base_build_import(&p));
	case CMD_NEW:
		exit(new_or_build(&p));
	case CMD_DASHBOARD:
		exit(dashboard(sockpath, job_opt_given(&p, "all")));
	case CMD_NONE:
		die("internal error: command without an id");
	default:
		/* every other command is jailbeed's, as the table says */
		if (p.cmd->flags & (CMD_LOCAL | CMD_NOJOB))
			die("internal error: %s has no handler in jbctl",
			    argv[0]);
		ctl_connect(&ibuf);
		exit(ctl_run(&ibuf, &p, out));
	}
	free(p.args);
	return 0;
}
