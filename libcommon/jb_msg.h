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
 * Every message between JailBee's processes, in one place.
 *
 * The topology is a star: jailbeed (the parent) talks to each child over a
 * socketpair on fd 3, and to jbctl over the control socket.  Children never
 * talk to each other.  Each type has exactly one payload (a fixed struct,
 * or none) named beside it; a receiver checks the exact size with
 * imsg_get_data() and treats any mismatch or unknown type as a fatal
 * protocol error of the sender (a control client is just dropped).
 *
 * Numbers are grouped in blocks per peer and are never renumbered: a new
 * message takes a new number at the end of its block.  Structs are zeroed
 * before they are filled, so padding never leaks memory.
 *
 * On the control socket the header's peerid carries JB_CTL_VERSION in
 * every message in both directions; a client of another version is told
 * so and dropped.  Header pid fields are informational only: the parent
 * identifies clients by SO_PEERCRED and routes by its own connection ids.
 */

#ifndef JB_MSG_H
#define JB_MSG_H

#include <stdint.h>

#define JB_CTL_VERSION		1
#define JB_NAME_MAX		16
#define JB_MSG_TEXT_MAX		256

enum jb_imsg_type {
	IMSG_NONE = 0,

	/* parent <-> every child: 100.. */
	IMSG_CHILD_READY = 100,	/* child -> parent, none: locked down, serving */
	IMSG_STATUS_REQ,	/* parent -> child, none; peerid = request id */
	IMSG_STATUS,		/* child -> parent, struct jb_proc_status */
	IMSG_TEST_ATTEMPT,	/* parent -> child, struct jb_test_attempt (test builds) */
	IMSG_TEST_RESULT,	/* child -> parent, struct jb_ctl_text (test builds) */

	/* jbctl <-> parent (control socket): 1000.. */
	IMSG_CTL_STATUS = 1000,	/* client -> parent, none */
	IMSG_CTL_STATUS_ENTRY,	/* parent -> client, struct jb_proc_status */
	IMSG_CTL_VERSION,	/* client -> parent, none */
	IMSG_CTL_VERSION_REPLY,	/* parent -> client, struct jb_ctl_text */
	IMSG_CTL_ERROR,		/* parent -> client, struct jb_ctl_text */
	IMSG_CTL_END,		/* parent -> client, none: reply complete */
	IMSG_CTL_TEST_ATTEMPT,	/* client -> parent, struct jb_test_attempt (test builds) */
	IMSG_CTL_TEST_RESULT,	/* parent -> client, struct jb_ctl_text (test builds) */
};

/* one process of the suite, as it reports itself */
struct jb_proc_status {
	char		name[JB_NAME_MAX];	/* "jailbeed", "jb-netd", ... */
	int32_t		pid;
	uint32_t	uid;		/* real, effective and saved agree */
	uint32_t	gid;
	uint32_t	ngroups;	/* supplementary groups */
	uint64_t	cap_eff;	/* effective capability bits */
	uint64_t	cap_prm;	/* permitted */
	uint64_t	cap_bnd;	/* bounding set */
	int64_t		started;	/* wall clock, seconds since the epoch */
	char		detail[JB_MSG_TEXT_MAX]; /* what the process serves */
	char		sandbox[JB_MSG_TEXT_MAX]; /* what its lock-down enforces */
};

struct jb_ctl_text {
	char		text[JB_MSG_TEXT_MAX];
};

/*
 * Only in builds made with -DJB_TESTHOOKS (make check): ask one process
 * to try an operation its lock-down forbids, to prove that it fails while
 * the suite keeps serving.  Release builds neither send nor accept these.
 */
struct jb_test_attempt {
	char		proc[JB_NAME_MAX];	/* "jailbeed", "jb-netd", ... */
	char		verb[16];		/* read, write, connect, netlink */
	char		path[JB_MSG_TEXT_MAX];
};

const char	*jb_imsg_name(uint32_t);

#endif /* JB_MSG_H */
