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
 * jb-netd: the only process that keeps a capability (CAP_NET_ADMIN), and
 * the only one that will touch the kernel packet filter.  It stays uid 0
 * because nftables netlink checks the capability, not the uid.
 */

#include <linux/capability.h>

#include "log.h"
#include "proc.h"

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	static const int	 keep[] = { CAP_NET_ADMIN };

	child_init(&c, "jb-netd", argc, argv, &a);
	priv_drop(c.name, NULL, NULL, keep, 1);
	child_run(&c);
}
