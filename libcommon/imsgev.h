/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_IMSGEV_H
#define JB_IMSGEV_H

#include <event.h>

#include "imsg.h"

/*
 * An imsgbuf driven by libevent.  Write interest is armed only while
 * messages are queued, so an idle channel never spins.
 */
struct imsgev {
	struct imsgbuf	 ibuf;
	struct event	 ev;
	void		(*handler)(int, short, void *);
	void		*data;
	short		 events;
};

int	imsgev_init(struct imsgev *, int, void (*)(int, short, void *),
	    void *);
void	imsgev_add(struct imsgev *);
int	imsgev_compose(struct imsgev *, uint32_t, uint32_t, pid_t, int,
	    const void *, size_t);
/* read and/or write as the event says: 1 fine, 0 peer gone, -1 error */
int	imsgev_io(struct imsgev *, short);
void	imsgev_clear(struct imsgev *);	/* removes the event, closes the fd */

#endif /* JB_IMSGEV_H */
