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
 * The mailbox between the suites of an Incus cluster.  They share
 * nothing but Incus, so a command typed on one member for a container
 * another member enforces, and that needs the enforcing jb-netd (net
 * log, net suggest, net refresh), is left as a request in that member's
 * own configuration: MEMBOX_ASK<id> = "<verb> <container> [<since>]".
 * Its suite, told by Incus's event, carries it out as if typed there
 * and leaves the replies beside it, MEMBOX_ANSWER<id>: one record a
 * line, each a tag and tab-separated fields, every byte below 0x20,
 * above 0x7e and '%' written %XX.  The asker reads them, replays them
 * to its user and takes them out.  Both sides read what the other
 * wrote as untrusted text.
 */

#ifndef JB_MEMBOX_H
#define JB_MEMBOX_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"

#define MEMBOX_ASK		"user.jailbee.ask."
#define MEMBOX_ANSWER		"user.jailbee.answer."
#define MEMBOX_KEY_MAX		160
#define MEMBOX_VAL_MAX		12288	/* an answer, in bytes */
#define MEMBOX_SINCE_MAX	16	/* net log --since, as typed */

#define MEMBOX_LOG		1
#define MEMBOX_SUGGEST		2
#define MEMBOX_REFRESH		3

/* "<asker>.<time>.<seq>": -1 when it does not fit or asker is no name */
int	membox_id(char *buf, size_t len, const char *asker, int64_t t,
	    uint32_t seq);
/* the asker and time of an id; -1 when it is not one */
int	membox_id_parse(const char *id, char *asker, size_t alen, int64_t *t);

/* a request's value; since may be "" (none) */
int	membox_ask_format(char *buf, size_t len, int verb, const char *name,
	    const char *since);
/* -1 when v is not a request: verb, container name and since checked */
int	membox_ask_parse(const char *v, int *verb, char *name, size_t nlen,
	    char *since, size_t slen);

/* an answer being written: at most MEMBOX_VAL_MAX - 1 bytes */
struct membox_out {
	char	 buf[MEMBOX_VAL_MAX];
	size_t	 len;
	size_t	 dropped;	/* records that did not fit */
};

/*
 * Append one reply of a job (IMSG_CTL_PROGRESS, _ERROR, _NET_BLOCK,
 * _NET_RESOLVED, _OUTPUT or _END, with its payload); another type is
 * left out.  A record that does not fit in what is left, less reserve,
 * is counted in dropped.  0 written, -1 dropped.
 */
int	membox_put(struct membox_out *, uint32_t type, const void *data,
	    size_t len, size_t reserve);

/* one reply read back */
struct membox_rec {
	uint32_t			 type;
	union {
		struct jb_ctl_text	 text;
		struct jb_net_block	 block;
		struct jb_net_resolved	 resolved;
		struct jb_output	 output;
	}				 u;
};

/*
 * The next record of an answer at *pos: 1 and rec (its strings NUL
 * terminated), 0 at the end, -1 when the line is not a record.
 */
int	membox_next(const char *answer, size_t *pos, struct membox_rec *rec);

#endif /* JB_MEMBOX_H */
