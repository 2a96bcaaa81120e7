/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JBCTL_DASH_H
#define JBCTL_DASH_H

#include <stdint.h>

#include "imsg.h"
#include "jb_msg.h"
#include "jbctl.h"

#define DASH_TEXT	256
#define DASH_LINES	128	/* lines of a details panel */
#define DASH_REFUSED	32	/* refusals a details panel keeps */

/* one container: what ls says, and what its row adds */
struct dash_row {
	struct jb_instance	 in;		/* every string printable */
	char			 refused[DASH_TEXT];	/* last refused, "" */
	int64_t			 refused_at;
	char			 mounts[DASH_TEXT];	/* "aws 12m gpg ∞" */
	int64_t			 mount_until[4];	/* their deadlines */
	char			 mount_kind[4][48];
	int			 nmount;
	char			 windows[DASH_TEXT];	/* agent windows, "" */
};

/* a refusal the allow key may admit */
struct dash_refusal {
	char		what[256];
	char		allow[272];		/* "" when no entry admits it */
	uint64_t	count;
	int64_t		last;
};

/* the selected container's panel, as lines of text */
struct dash_detail {
	char			 name[JB_INSTANCE_MAX];
	char			 line[DASH_LINES][DASH_TEXT];
	int			 nline;
	struct dash_refusal	 ref[DASH_REFUSED];
	int			 nref;
	char			 kinds[8][48];	/* optional mounts attached */
	int			 nkind;
};

/* what the dashboard acts through: jailbeed's socket, the checkout */
struct dash_ctx {
	const char	*sockpath;
	char		 cwd[PATH_MAX];
	int		 all;		/* --all: every registered repo */
	int		 remote;	/* drawn by an SSH session */
	int		 withheld[32];	/* actions not offered (enum cmd_id) */
	int		 nwithheld;
};

/* the dashboard's state */
struct dash {
	struct dash_ctx		 ctx;
	struct dash_row		*rows;
	int			 nrows;
	int			 sel, top;
	int			 list_h;	/* screen lines of the list */
	struct dash_detail	 det;
	int			 det_ok;
	char			 status[DASH_TEXT];
	struct imsgbuf		 wbuf;		/* the subscription */
	int			 wfd;
	int			 quit;
};

/* dashdraw.c: the screen */
void	dash_draw(struct dash *);
/* a string at most w cells wide at row y, column x, padded with blanks */
void	dash_put(int y, int x, int w, const char *);
/* 1 while a countdown is on the screen: the clock ticks only then */
int	dash_countdown(const struct dash *);

/* dashdata.c: rows and panels, from the same requests ls & co make */
struct dash_row	*dash_rows(struct dash_ctx *, const struct dash_row *old,
		    int nold, const char *only, int *nrows, char *err,
		    size_t errlen);
int		 dash_detail(struct dash_ctx *, const struct dash_row *,
		    struct dash_detail *);
/* the text of a string from the container, made printable in place */
char		*dash_clean(char *);

/* dashact.c: a command, as jbctl runs it, its output caught */
struct output;
struct dash_cap {
	int	save0, save1, save2, fd1, null;
};
int	dash_cap_begin(struct dash_cap *);
/* stdin, stdout and stderr back; what the two got goes to out */
void	dash_cap_end(struct dash_cap *, char *out, size_t outlen);
/*
 * The command id with its arguments and options (pairs of long name and
 * value, ended by NULL), run as jbctl runs it: in the row's checkout
 * (the current directory when row is NULL), its replies to out (NULL:
 * jbctl's text) and what it prints caught in text (NULL: to the
 * terminal).  0 when it succeeded.
 */
int	dash_run(struct dash_ctx *, const struct dash_row *, int id,
	    char *const *args, int nargs, const char *const *opts,
	    const struct output *out, char *text, size_t textlen);

/* dashui.c: the keys, the same for jbctl and an SSH session */
void	dash_key(struct dash *, int ch);
/* the rows again; only: the container an event named ("" all) */
void	dash_reload(struct dash *, const char *only);
/* the actions a key may run (enum cmd_id), for the policy to judge */
int	dash_actions(int *ids, int max);
int	dash_offered(const struct dash_ctx *, int id);
/*
 * shell, tmux, new: the terminal is the command's until it ends (each
 * side its own: dashloop.c, jb-sshd/sshdash.c)
 */
int	dash_aside(struct dash *, int id, char *const *args, int nargs);

/* dashloop.c: jbctl dashboard */
int	dashboard(const char *sockpath, int all);

/* jbctl.c: new as the command line makes it, building a missing image */
int	jbctl_new(const struct parsed *);

#endif /* JBCTL_DASH_H */
