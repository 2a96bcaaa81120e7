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
 * Free heap back to the kernel after a burst of work.  glibc keeps what
 * a process freed for its next allocations; after a listing of many
 * containers, a policy of thousands of entries or a drained refused-flow
 * set, that is megabytes no later request needs.  memtrim_soon arms a
 * one-shot timer (at most one pending); when it fires, malloc_trim gives
 * back the free pages, with brk and madvise, which every process's
 * filter allows.  A process may name one function that drops, just
 * before, what it keeps between bursts only to be quicker (a library's
 * context and cache), made again when next needed.
 */

#include <sys/types.h>

#include <event.h>
#include <malloc.h>

#include "memtrim.h"

#define MEMTRIM_SECS	1
/*
 * glibc's own threshold starts at 128 kB and rises to the size of the
 * largest mapped block freed: after jailbeed's 1 MB read of mountinfo at
 * start, every later block up to 1 MB came from the heap, where calloc
 * clears the whole of it (the repository registry, 258 kB, resident
 * though mostly unused) and where freeing it gives nothing back.  With
 * a fixed threshold a block that large, when the heap cannot hold it
 * without growing, is a mapping of its own: its pages are zero until
 * written, and all of it goes back when it is freed.
 */
#define MEMTRIM_MMAP_MIN	(64 * 1024)

static struct event	memtrim_ev;
static int		memtrim_set;
static void		(*memtrim_drop)(void);

static void
memtrim_fire(int fd, short ev, void *arg)
{
	if (memtrim_drop != NULL)
		memtrim_drop();
	(void)malloc_trim(0);
}

void
memtrim_init(void)
{
	(void)mallopt(M_MMAP_THRESHOLD, MEMTRIM_MMAP_MIN);
}

void
memtrim_dropper(void (*fn)(void))
{
	memtrim_drop = fn;
}

void
memtrim_soon(void)
{
	struct timeval	tv = { MEMTRIM_SECS, 0 };

	if (!memtrim_set) {
		evtimer_set(&memtrim_ev, memtrim_fire, NULL);
		memtrim_set = 1;
	}
	if (!evtimer_pending(&memtrim_ev, NULL))
		evtimer_add(&memtrim_ev, &tv);
}
