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
 * One direction of a relayed connection, spliced by the kernel through
 * a pipe: the gateway's and the explicit proxy's connections both move
 * their bytes this way once they are admitted.
 */

#ifndef JB_PUMP_H
#define JB_PUMP_H

#include <stddef.h>

#include <event.h>

struct pump {
	void		*owner;
	/* the connection broke: free it */
	void		(*fail)(void *);
	/* this direction ended: 1 when that ended (and freed) the owner */
	int		(*ended)(void *);
	int		 from, to;
	int		 p[2];
	size_t		 inpipe;	/* bytes in the pipe */
	size_t		 cap;		/* what the pipe holds at most */
	int		 grown;		/* 1: asked for the bigger pipe, 2: has it */
	int		 eof, done;
	struct event	 rev, wev;
};

/* before anything else: no pipe, no descriptor, events that can be deleted */
void	pump_prepare(struct pump *);
/* the pipe and the events between from and to; -1 when no pipe */
int	pump_init(struct pump *, void *, void (*)(void *), int (*)(void *),
	    int, int);
/* moves what can move now; 1 when the owner was freed */
int	pump_run(struct pump *);
/* events off and the pipe closed (the sockets are the owner's) */
void	pump_stop(struct pump *);

#endif /* JB_PUMP_H */
