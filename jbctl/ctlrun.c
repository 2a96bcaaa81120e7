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
 * A command carried out by jailbeed: the checked command line goes over
 * the control socket, answers come back until CTL_END.  Progress goes to
 * stderr, results to stdout; an exec's streams arrive as fds and are
 * handed to the terminal session.  A reload that moves remote.ssh.listen
 * asks for the new listening socket (rebind.c).
 */

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "imsg.h"
#include "jbctl.h"
#include "term.h"
#include "termsafe.h"

/* the image jailbeed named in its last answer (base build, new) */
static struct jb_base_spec	spec;
static int			spec_got;
static int			escalation;	/* new's gate refused */

int
ctl_escalation(void)
{
	return escalation;
}

const struct jb_base_spec *
ctl_base_spec(void)
{
	return spec_got ? &spec : NULL;
}

/*
 * A connection to jailbeed's control socket, answers awaited at most
 * timeout seconds (0: forever); -1 with err saying why and what to do.
 */
int
ctl_dial(const char *sockpath, struct imsgbuf *ibuf, int timeout, char *err,
    size_t errlen)
{
	struct sockaddr_un	 sun;
	struct timeval		 tv = { timeout, 0 };
	int			 fd, e;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, sockpath, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path)) {
		snprintf(err, errlen, "socket %s: path too long", sockpath);
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		e = errno;
		close(fd);
		if (e == EACCES)
			snprintf(err, errlen, "cannot connect to %s: %s (only "
			    "the owner of the suite or root may use it)",
			    sockpath, strerror(e));
		else
			snprintf(err, errlen, "cannot connect to %s: %s (is "
			    "jailbeed running? start it as root with: "
			    "jailbeed)", sockpath, strerror(e));
		return -1;
	}
	if (timeout > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (imsgbuf_init(ibuf, fd) == -1) {
		snprintf(err, errlen, "imsgbuf_init: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int
build(struct jb_ctl_cmd *cmd, const struct parsed *p)
{
	struct winsize	 ws;
	const char	*s;
	size_t		 off = 0, l;
	int		 i, k;

	memset(cmd, 0, sizeof(*cmd));
	cmd->id = p->cmd->id;
	for (i = 0; i < p->nargs; i++) {
		if ((l = strlen(p->args[i]) + 1) > sizeof(cmd->argv) - off) {
			fprintf(stderr, "jbctl: the command line is too long "
			    "(%zu bytes at most)\n", sizeof(cmd->argv));
			return -1;
		}
		memcpy(cmd->argv + off, p->args[i], l);
		off += l;
		cmd->nargs++;
	}
	for (k = 0; k < CMD_MAXOPTS && p->cmd->opts[k].lname != NULL; k++) {
		if (p->optval[k] == NULL)
			continue;
		if (strlcpy(cmd->opts[k], p->optval[k], sizeof(cmd->opts[k]))
		    >= sizeof(cmd->opts[k])) {
			fprintf(stderr, "jbctl: --%s: value too long\n",
			    p->cmd->opts[k].lname);
			return -1;
		}
		cmd->optset |= 1U << k;
	}
	if (getcwd(cmd->cwd, sizeof(cmd->cwd)) == NULL) {
		fprintf(stderr, "jbctl: getcwd: %s\n", strerror(errno));
		return -1;
	}
	cmd->tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ||
	    ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) {
		cmd->cols = ws.ws_col;
		cmd->rows = ws.ws_row;
	}
	if ((s = getenv("TERM")) != NULL)
		strlcpy(cmd->term, s, sizeof(cmd->term));
	if ((s = getenv("XDG_CONFIG_HOME")) != NULL)
		strlcpy(cmd->xdg_config, s, sizeof(cmd->xdg_config));
	return 0;
}

int
ctl_run(struct imsgbuf *ibuf, const struct parsed *p,
    const struct output *out)
{
	struct jb_ctl_cmd	*cmd;
	struct imsg		 imsg;
	struct jb_ctl_text	 t;
	struct jb_instance	 in;
	struct jb_snapshot	 sn;
	struct jb_mount_entry	 me;
	struct jb_output	 o;
	struct jb_exec_fd	 f;
	struct jb_exit		 x;
	struct jb_image		 im;
	struct jb_port		 pt;
	struct jb_net_ctr	 nc;
	struct jb_net_allow	 na;
	struct jb_net_secret	 sc;
	struct jb_net_addr	 nd;
	struct jb_doctor_check	 dc;
	struct jb_net_block	 nb;
	struct jb_net_resolved	 rs;
	struct jb_ctl_listen	 la;
	char			 err[JB_ERR_TEXT_MAX];
	int			 n, done = 0, failed = 0, status = -1;
	int			 fd_io = -1, fd_err = -1, interactive, listed = 0;
	int			 asked = 0;

	if ((cmd = malloc(sizeof(*cmd))) == NULL || build(cmd, p) == -1) {
		free(cmd);
		return 1;
	}
	interactive = p->cmd->id == CMD_SHELL || p->cmd->id == CMD_TMUX ||
	    (p->cmd->id == CMD_EXEC && cmd->tty);
	imsgbuf_allow_fdpass(ibuf);
	if (imsg_compose(ibuf, IMSG_CTL_CMD, JB_CTL_VERSION, 0, -1, cmd,
	    sizeof(*cmd)) == -1 || imsgbuf_flush(ibuf) == -1) {
		fprintf(stderr, "jbctl: cannot send to jailbeed: %s\n",
		    strerror(errno));
		free(cmd);
		return 1;
	}
	free(cmd);
	spec_got = 0;
	escalation = 0;
	if (p->cmd->id == CMD_LS || p->cmd->id == CMD_SNAP_LS) {
		out->list_begin(p->cmd->id == CMD_LS ? "containers" :
		    "snapshots");
		listed = 1;
	}
	if (p->cmd->id == CMD_MOUNT_LS) {
		out->list_begin("mounts");
		listed = 1;
	}
	if (p->cmd->id == CMD_BASE_USAGE) {
		out->list_begin("images");
		listed = 1;
	}
	if (p->cmd->id == CMD_PORT_LS) {
		out->list_begin("ports");
		listed = 1;
	}
	if (p->cmd->id == CMD_NET_STATUS) {
		out->list_begin("net");
		listed = 1;
	}
	if (p->cmd->id == CMD_DOCTOR) {
		out->list_begin("checks");
		listed = 1;
	}
	if (p->cmd->id == CMD_NET_LOG) {
		out->list_begin("refused");
		listed = 1;
	}
	if (p->cmd->id == CMD_NET_EGRESS_LS || p->cmd->id == CMD_NET_REFRESH) {
		out->list_begin(p->cmd->id == CMD_NET_REFRESH ? "resolved" :
		    "egress");
		listed = 1;
	}
	while (!done) {
		if ((n = imsgbuf_read(ibuf)) == -1 && errno != EAGAIN &&
		    errno != ECONNRESET) {
			fprintf(stderr, "jbctl: reading from jailbeed: %s\n",
			    strerror(errno));
			return 1;
		}
		/* a reset is jailbeed gone with our last words unread */
		if (n == 0 || (n == -1 && errno == ECONNRESET)) {
			fprintf(stderr, "jbctl: jailbeed closed the connection "
			    "(see its log)\n");
			return 1;
		}
		while (!done && (n = jb_imsg_get(ibuf, &imsg, JB_PEER_PARENT,
		    JB_PEER_CTL)) > 0) {
			switch (imsg_get_type(&imsg)) {
			case IMSG_CTL_PROGRESS:
				if (imsg_get_data(&imsg, &t, sizeof(t)) == -1)
					goto bad;
				t.text[sizeof(t.text) - 1] = '\0';
				fprintf(stderr, "jbctl: %s\n",
				    termsafe(t.text));
				break;
			case IMSG_CTL_ERROR:
				if (imsg_get_data(&imsg, &t, sizeof(t)) == -1)
					goto bad;
				t.text[sizeof(t.text) - 1] = '\0';
				(void)termsafe(t.text);
				if (strncmp(t.text, JB_ESCALATION_MARK,
				    strlen(JB_ESCALATION_MARK)) == 0)
					escalation = 1;
				/* a missing image: the caller builds it */
				if (!spec_got || spec.exists)
					fprintf(stderr, "jbctl: %s\n", t.text);
				failed = 1;
				break;
			case IMSG_CTL_BASE_SPEC:
				if (imsg_get_data(&imsg, &spec,
				    sizeof(spec)) == -1)
					goto bad;
				spec.alias[sizeof(spec.alias) - 1] = '\0';
				spec.packages[sizeof(spec.packages) - 1] =
				    '\0';
				spec_got = 1;
				break;
			case IMSG_CTL_INSTANCE:
				if (imsg_get_data(&imsg, &in, sizeof(in)) == -1)
					goto bad;
				in.name[sizeof(in.name) - 1] = '\0';
				in.state[sizeof(in.state) - 1] = '\0';
				in.repo[sizeof(in.repo) - 1] = '\0';
				in.prefix[sizeof(in.prefix) - 1] = '\0';
				in.branch[sizeof(in.branch) - 1] = '\0';
				in.base[sizeof(in.base) - 1] = '\0';
				in.mode[sizeof(in.mode) - 1] = '\0';
				in.net[sizeof(in.net) - 1] = '\0';
				in.ipv4[sizeof(in.ipv4) - 1] = '\0';
				out->instance(&in);
				break;
			case IMSG_CTL_MOUNT:
				if (imsg_get_data(&imsg, &me, sizeof(me)) == -1)
					goto bad;
				me.name[sizeof(me.name) - 1] = '\0';
				me.device[sizeof(me.device) - 1] = '\0';
				me.source[sizeof(me.source) - 1] = '\0';
				me.path[sizeof(me.path) - 1] = '\0';
				out->mount(&me);
				break;
			case IMSG_CTL_PORT:
				if (imsg_get_data(&imsg, &pt, sizeof(pt)) == -1)
					goto bad;
				pt.name[sizeof(pt.name) - 1] = '\0';
				pt.device[sizeof(pt.device) - 1] = '\0';
				pt.proto[sizeof(pt.proto) - 1] = '\0';
				pt.container_address[
				    sizeof(pt.container_address) - 1] = '\0';
				pt.host_address[sizeof(pt.host_address) - 1] =
				    '\0';
				pt.prefix[sizeof(pt.prefix) - 1] = '\0';
				pt.state[sizeof(pt.state) - 1] = '\0';
				/* port ls lists; an added one is said on stderr */
				if (listed)
					out->port(&pt);
				break;
			case IMSG_CTL_NET_BLOCK:
				if (imsg_get_data(&imsg, &nb, sizeof(nb)) == -1)
					goto bad;
				nb.name[sizeof(nb.name) - 1] = '\0';
				nb.kind[sizeof(nb.kind) - 1] = '\0';
				nb.what[sizeof(nb.what) - 1] = '\0';
				out->net_block(&nb);
				break;
			case IMSG_CTL_DOCTOR:
				if (imsg_get_data(&imsg, &dc, sizeof(dc)) == -1)
					goto bad;
				dc.name[sizeof(dc.name) - 1] = '\0';
				dc.status[sizeof(dc.status) - 1] = '\0';
				dc.detail[sizeof(dc.detail) - 1] = '\0';
				dc.fix[sizeof(dc.fix) - 1] = '\0';
				out->doctor(&dc);
				break;
			case IMSG_CTL_NET_CTR:
				if (imsg_get_data(&imsg, &nc, sizeof(nc)) == -1)
					goto bad;
				nc.name[sizeof(nc.name) - 1] = '\0';
				nc.ipv4[sizeof(nc.ipv4) - 1] = '\0';
				nc.mode[sizeof(nc.mode) - 1] = '\0';
				nc.repo[sizeof(nc.repo) - 1] = '\0';
				nc.broken[sizeof(nc.broken) - 1] = '\0';
				out->net_ctr(&nc);
				break;
			case IMSG_CTL_NET_ALLOW:
				if (imsg_get_data(&imsg, &na, sizeof(na)) == -1)
					goto bad;
				na.name[sizeof(na.name) - 1] = '\0';
				na.entry[sizeof(na.entry) - 1] = '\0';
				na.origin[sizeof(na.origin) - 1] = '\0';
				out->net_allow(&na);
				break;
			case IMSG_CTL_NET_SECRET:
				if (imsg_get_data(&imsg, &sc, sizeof(sc)) == -1)
					goto bad;
				sc.name[sizeof(sc.name) - 1] = '\0';
				sc.secret[sizeof(sc.secret) - 1] = '\0';
				sc.hosts[sizeof(sc.hosts) - 1] = '\0';
				sc.header[sizeof(sc.header) - 1] = '\0';
				if (out->net_secret != NULL)
					out->net_secret(&sc);
				break;
			case IMSG_CTL_NET_RESOLVED:
				if (imsg_get_data(&imsg, &rs, sizeof(rs)) == -1)
					goto bad;
				rs.name[sizeof(rs.name) - 1] = '\0';
				rs.host[sizeof(rs.host) - 1] = '\0';
				out->net_resolved(&rs);
				break;
			case IMSG_CTL_NET_ADDR:
				if (imsg_get_data(&imsg, &nd, sizeof(nd)) == -1)
					goto bad;
				nd.name[sizeof(nd.name) - 1] = '\0';
				nd.host[sizeof(nd.host) - 1] = '\0';
				nd.ipv4[sizeof(nd.ipv4) - 1] = '\0';
				out->net_addr(&nd);
				break;
			case IMSG_CTL_SNAPSHOT:
				if (imsg_get_data(&imsg, &sn, sizeof(sn)) == -1)
					goto bad;
				sn.instance[sizeof(sn.instance) - 1] = '\0';
				sn.name[sizeof(sn.name) - 1] = '\0';
				out->snapshot(&sn);
				break;
			case IMSG_CTL_IMAGE:
				if (imsg_get_data(&imsg, &im, sizeof(im)) == -1)
					goto bad;
				im.fingerprint[sizeof(im.fingerprint) - 1] =
				    '\0';
				im.aliases[sizeof(im.aliases) - 1] = '\0';
				im.description[sizeof(im.description) - 1] =
				    '\0';
				im.repos[sizeof(im.repos) - 1] = '\0';
				out->image(&im);
				break;
			case IMSG_CTL_OUTPUT:
				if (imsg_get_data(&imsg, &o, sizeof(o)) == -1 ||
				    o.len > sizeof(o.data))
					goto bad;
				fwrite(o.data, 1, o.len, o.which == 2 ?
				    stderr : stdout);
				break;
			case IMSG_CTL_EXEC_FD:
				if (imsg_get_data(&imsg, &f, sizeof(f)) == -1)
					goto bad;
				if (f.which == 0 && fd_io == -1)
					fd_io = imsg_get_fd(&imsg);
				else if (f.which == 2 && fd_err == -1)
					fd_err = imsg_get_fd(&imsg);
				break;
			case IMSG_CTL_EXIT:
				if (imsg_get_data(&imsg, &x, sizeof(x)) == -1)
					goto bad;
				status = x.status;
				break;
			case IMSG_CTL_LISTEN_ASK:
				/* only reload asks, and only once */
				if (p->cmd->id != CMD_RELOAD || asked ||
				    imsg_get_data(&imsg, &la, sizeof(la)) == -1)
					goto bad;
				asked = 1;
				if (rebind_answer(ibuf, &la) == -1) {
					imsg_free(&imsg);
					fprintf(stderr, "jbctl: cannot send the "
					    "listening socket to jailbeed: %s\n",
					    strerror(errno));
					return 1;
				}
				break;
			case IMSG_CTL_END:
				done = 1;
				break;
			default:
				goto bad;
			}
			imsg_free(&imsg);
			/* the streams are here: the terminal takes over */
			if (fd_io != -1 && (interactive || fd_err != -1)) {
				status = term_session(ibuf, fd_io, fd_err,
				    interactive, err, sizeof(err));
				if (status == -1) {
					fprintf(stderr, "jbctl: %s\n", err);
					return 1;
				}
				return status;
			}
		}
		if (n == -1) {
			fprintf(stderr, "jbctl: malformed answer from "
			    "jailbeed\n");
			return 1;
		}
	}
	/* doctor's checks are printed also when one failed */
	if (listed && (!failed || p->cmd->id == CMD_DOCTOR))
		out->list_end();
	if (fd_io != -1)
		close(fd_io);
	if (fd_err != -1)
		close(fd_err);
	if (failed)
		return 1;
	return status >= 0 ? status : 0;
 bad:
	imsg_free(&imsg);
	fprintf(stderr, "jbctl: unexpected answer from jailbeed\n");
	return 1;
}
