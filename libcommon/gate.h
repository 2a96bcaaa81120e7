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
 * The start gate.  Every suite container has a read-only disk device
 * whose source is <gate directory>/<container name>; Incus refuses to
 * start an instance whose disk source is missing, and only jb-netd makes
 * that directory, once the kernel holds the container's policy as Incus
 * has it, and takes it away when it forgets the container or ends.  So
 * a container whose suite is not running here, or has not read its
 * policy from Incus, does not start, whoever starts it.
 */

#ifndef JB_GATE_H
#define JB_GATE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define GATE_DEVICE	"jailbee-gate"		/* the device's name */
#define GATE_PATH	"/run/jailbee-gate"	/* where it is inside */
#define GATE_SUBDIR	"gate"	/* beside the control socket */
/*
 * "creator:T" (T: seconds since the epoch) while the suite that creates
 * a container on another cluster member is to add its gate, once the
 * creation has ended; the placing member's suite leaves the device to it
 * until GATE_CREATOR_SECS after T, and adds it itself after that (the
 * creator may have died before it could)
 */
#define GATE_KEY		"user.jailbee.gate"
#define GATE_BY_CREATOR		"creator:"
#define GATE_CREATOR_SECS	60

/*
 * 1 when value (GATE_KEY's, NULL none) leaves the gate to the creator at
 * now, with *until the time after which it no longer does; 0 otherwise
 * (anything else, too old, or from a clock more than GATE_CREATOR_SECS
 * ahead: the member adds the gate)
 */
int	gate_by_creator(const char *value, int64_t now, int64_t *until);

/* the gate directory for the control socket's path; -1: too long */
int	gate_dir(const char *socket, char *buf, size_t len);

/* one container's gate, the device's source; -1: too long */
int	gate_source(const char *socket, const char *name, char *buf,
	    size_t len);

/*
 * As root, before jb-netd starts: the control socket's directory (made
 * and checked as sockdir_open does, taken back from owner when it was
 * theirs: *taken says so) and the gate directory in it, root's 0755.
 * -1 and err.
 */
int	gate_prepare(const char *socket, uid_t owner, int *taken, char *err,
	    size_t errlen);

#endif /* JB_GATE_H */
