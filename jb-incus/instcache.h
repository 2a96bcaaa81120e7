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
 * The last whole list of instances (GET /1.0/instances?recursion=1),
 * kept while Incus's event stream is open so that a later list costs a
 * GET of each instance named since instead of one of all of them.
 * Pure bookkeeping: incus.c asks Incus and says what happened.
 *
 * It is given out only while every instance named since the list (by
 * an event, or by a change this process made) has been read again, and
 * only from a list asked after the stream was last opened.  A lost
 * stream, a rename, or a read that failed drops it.
 */

#ifndef JB_INSTCACHE_H
#define JB_INSTCACHE_H

#include <stdint.h>

#include <json.h>

struct instcache;

struct instcache *instcache_new(void);
void		 instcache_free(struct instcache *);

/* the stream is open, or lost: what is kept is dropped either way */
void		 instcache_open(struct instcache *);
void		 instcache_lost(struct instcache *);
void		 instcache_drop(struct instcache *);

/*
 * A whole list is being asked: a token for instcache_fill(), 0 when
 * none may be kept (the stream is not open).  Names given to
 * instcache_dirty() meanwhile are read again before it is given out.
 */
uint64_t	 instcache_asking(struct instcache *);
void		 instcache_fill(struct instcache *, uint64_t,
		    struct json_object *);

/* an instance to read again: an event named it, or a change of ours */
void		 instcache_dirty(struct instcache *, const char *);
/* one not being read yet, now marked as being read; NULL when none */
const char	*instcache_to_read(struct instcache *);
/*
 * its read: the instance, or NULL when Incus has it no more; the name
 * instcache_to_read() gave is no longer valid after this
 */
void		 instcache_read(struct instcache *, const char *,
		    struct json_object *);

/* its read failed: still to read (a drop usually follows) */
void		 instcache_unread(struct instcache *, const char *);

/* a list is kept, but names wait to be read again */
int		 instcache_waiting(const struct instcache *);
/* a copy of the list to give out, or NULL when none may be */
struct json_object *instcache_list(const struct instcache *);

#endif
