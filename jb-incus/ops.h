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
 * jb-incus's request handlers: the closed set of operations the parent
 * may ask for (jb_msg.h, the parent <-> jb-incus block).  Every request
 * is checked before any Incus call, and every one ends with exactly one
 * IMSG_DONE carrying its request id, after its data messages.  A payload
 * of the wrong size, a string that is not NUL-terminated inside its
 * field, or a packed list that does not hold exactly the strings it
 * claims is a protocol error of the parent: fatal.  Everything else the
 * parent might pass on from a user (a bad name, an address outside the
 * bridge's subnet, an instance that is not ours) is refused in DONE.
 *
 * Requests never wait on each other, but for device changes of one
 * instance, which run one at a time: each is one struct op_req driven by
 * the callbacks of the asynchronous Incus client.
 */

#ifndef JB_OPS_H
#define JB_OPS_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "names.h"

struct child;
struct imsg;
struct incus;
struct incus_call;
struct exec_session;
struct json_object;

/* bridge: the Incus network the suite's containers join (-b) */
void	ops_init(struct child *, struct incus *, const char *);
/* the child's dispatch hook: -1 for a type that is not ours */
int	ops_dispatch(struct child *, struct imsg *);

/* Shared by ops.c, ops_action.c, ops_create.c and ops_exec.c. */

struct op_req;
typedef void	(*op_step)(struct op_req *, struct json_object *);

struct op_req {
	TAILQ_ENTRY(op_req)	 entry;
	uint32_t		 rid;		/* the parent's request id */
	uint32_t		 type;		/* IMSG_INCUS_* */
	char			 name[JB_INSTANCE_MAX];	/* "" when none */
	char			 what[160];	/* "create NAME": errors */
	struct incus_call	*call;		/* in flight, or NULL */
	struct exec_session	*xs;		/* a streamed exec, or NULL */
	op_step			 next;		/* after an instance check */
	void			(*net_next)(struct op_req *,
				    const struct jb_netinfo *, const char *);
	void			*priv;		/* the handler's own state */
	void			(*priv_free)(void *);
	/* device changes: the instance's version, one change at a time */
	char			*etag;		/* of the instance as read */
	op_step			 again;		/* rebuilds the change */
	void			(*wrote)(struct op_req *, struct json_object *,
				    const char *);
	int			 stale;		/* writes refused as stale */
	int			 devq;		/* DEVQ_* */
};
#define DEVQ_NONE	0
#define DEVQ_WAIT	1		/* another change of it runs */
#define DEVQ_HOLD	2		/* the one change of it running */
TAILQ_HEAD(op_reqs, op_req);

extern struct incus	*ops_ic;
extern char		 ops_bridge[16];
extern struct op_reqs	 ops_reqs;

struct op_req	*req_new(uint32_t, uint32_t, const char *);
struct op_req	*req_find(uint32_t, uint32_t);
void		 op_send(struct op_req *, uint32_t, int, const void *,
		    size_t);
void		 req_progress(struct op_req *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
/* sends DONE and frees the request with whatever it still holds */
void		 req_done(struct op_req *, int, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));
/* DONE ok=0: "WHAT: " and Incus's own words from the client's err */
void		 req_fail(struct op_req *, const char *);
/* an Incus call's callback: DONE ok, or req_fail with its error */
void		 req_call_done(void *, struct json_object *, const char *);
void		 incus_reason(char *, size_t, const char *);

/*
 * GET the request's instance; refuse (DONE) when it is missing or not
 * ours, otherwise go on with r->next(r, instance).
 */
void		 req_check_ours(struct op_req *, op_step);
/*
 * A change of the instance's devices: waits until no other change of
 * the same instance runs, then req_check_ours(r, next).  next builds
 * the change from the instance it is given and sends it with
 * req_write(); when Incus says the instance changed meanwhile, next
 * runs again on the instance read again.
 */
void		 req_device_turn(struct op_req *, op_step);
/* PUT or PATCH the request's instance if it is as next read it */
void		 req_write(struct op_req *, const char *, struct json_object *,
		    void (*)(struct op_req *, struct json_object *,
		    const char *));
void		 inst_each_ours(struct op_req *, struct json_object *,
		    const char *, op_step);
/* fetch the bridge: net_next gets jb_netinfo, or NULL and the reason */
void		 netinfo_get(struct op_req *, void (*)(struct op_req *,
		    const struct jb_netinfo *, const char *));

/* checks: 1 good, 0 not */
int		 valid_env_key(const char *, size_t);
int		 valid_abspath(const char *);
/* "K=V" entries with good, distinct names; else why, in the buffer */
int		 valid_env_list(const char *const *, char *, size_t);
/* fatal unless the field holds a NUL */
void		 must_string(const char *, const char *, size_t);
/*
 * The n strings packed in buf, proven: each ends inside buf and every
 * byte after the last is NUL.  Fatal otherwise.  Returns a
 * NULL-terminated array pointing into buf, to free().
 */
const char	**unpack_strings(const char *, const char *, size_t,
		    uint32_t);

/* JSON: a member of a type, or NULL */
const char	*jget_str(struct json_object *, const char *);
struct json_object *jnew(struct json_object *);
void		 jput(struct json_object *, const char *, const char *);
struct json_object *gate_device(const char *);
struct json_object *gate_patch(const char *);
struct json_object *jget_obj(struct json_object *, const char *);
int		 inst_ours(struct json_object *);
const char	*inst_nic_ipv4(struct json_object *, const char *);
/*
 * Make NIC device d the one jb-netd's bridge table lets send for address
 * ipv4: its host-side name and MAC named from the address (nicname.h),
 * and no security.ipv4_filtering (the suite filters, not Incus).  1 when
 * d changed, 0 when it already was, -1 when ipv4 is not an address.
 */
int		 nic_own(struct json_object *d, const char *ipv4);
int64_t		 parse_time(const char *);

/* the handlers */
void		 op_action(uint32_t, const struct jb_incus_action *);
void		 snap_restore(struct op_req *, struct json_object *);
void		 op_create(uint32_t, const struct jb_incus_create *);
void		 op_exec(uint32_t, const struct jb_incus_exec *);
void		 op_resize(uint32_t, const struct jb_winsize *);
void		 op_exec_kill(uint32_t);
void		 op_disk(uint32_t, uint32_t, const struct jb_disk *);
void		 op_disk_list(uint32_t, const struct jb_incus_target *);
/* the instance's own optional-<kind> disk devices */
uint32_t	 disk_count_optional(struct json_object *);
void		 op_image_import(uint32_t, const struct jb_image_import *, int);
/* IMSG_INCUS_IMAGES or IMSG_INCUS_IMAGE_PRUNE */
void		 op_images(uint32_t, uint32_t);
void		 op_image_alias(uint32_t, const struct jb_incus_target *);
void		 op_hosts(uint32_t, const struct jb_hosts_pin *);
void		 op_addrs(uint32_t);
/* "A.B.C.D-E.F.G.H[,...]" into ni's DHCP ranges: 0, or -1 */
int		 dhcp_ranges_parse(const char *, struct jb_netinfo *);
void		 op_sftp_helper(uint32_t, const struct jb_incus_target *, int);
void		 op_port_add(uint32_t, const struct jb_port *);
void		 op_port_remove(uint32_t, const struct jb_port *);
void		 op_port_list(uint32_t, const struct jb_incus_target *);
void		 op_limits_set(uint32_t, const struct jb_limits *);
void		 op_limits_get(uint32_t, const struct jb_incus_target *);
void		 op_policies(uint32_t, const struct jb_incus_target *);
/* follow Incus's event stream, telling the parent of each instance event */
void		 events_init(struct child *);
void		 events_follow(uint32_t);
void		 op_policy_set(uint32_t, const struct jb_policy *);
/*
 * CREATE_POLICY: kept for the CREATE of its name that follows, which
 * takes it (policy_for_create: the caller's to free, or NULL when none
 * was kept) and writes it with the instance (policy_keys)
 */
void		 op_create_policy(uint32_t, const struct jb_policy *);
struct jb_policy *policy_for_create(const char *);
void		 policy_keys(struct json_object *, const struct jb_policy *);
void		 op_gate_add(uint32_t, const struct jb_incus_target *);
void		 op_extra_set(uint32_t, const struct jb_incus_extra *);
/* IMSG_INCUS_MEMBOX_GET or _SET */
void		 op_membox(uint32_t, uint32_t, const struct jb_membox *);
/* an image alias: letters, digits, '.', '_', '-', not first */

#endif /* JB_OPS_H */
