/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_AGENT_RUN_H
#define JAILBEED_AGENT_RUN_H

#include "capture.h"
#include "repoconf.h"

/* what agent_run does */
#define AGENT_INSTALL_LAUNCH	1	/* install, then launch */
#define AGENT_INSTALL		2	/* install only, silently */
#define AGENT_LAUNCH		3	/* launch only */
#define AGENT_NOLAUNCH		4	/* say it is not launched */

/*
 * How a command run in a window of the session autostart ends, its
 * status in $s: the window's terminal is closed a second before the
 * shell exits with that status (the hangup tmux sends as it closes its
 * side ignored).  Debian's tmux records each pane in utmp through
 * libutempter, whose helper runs with SIGCHLD at its default while tmux
 * takes a closed terminal's record out; a pane's process that exited
 * then would never be reaped, and its window would show it dead without
 * its "Pane is dead (status N, ...)" line.
 */
#define PANE_END \
    "trap \"\" HUP; exec </dev/null >/dev/null 2>&1; sleep 1; exit $s"

/*
 * Install (or update) agent a in the container and/or launch it (when
 * its autostart allows) in the tmux session autostart, as what says;
 * next gets the result.  0 sent, -1 could not be.
 */
int	agent_run(struct job *, const char *instance, const struct repoconf *,
	    const struct rc_agent *a, int what, capture_next next);
/*
 * The result as progress lines; 0 when it all went, else -1 and why
 * (the script's last line on stderr and its status).
 */
int	agent_result(struct job *, const char *agent, struct capture_result *,
	    char *err, size_t errlen);

#endif /* JAILBEED_AGENT_RUN_H */
