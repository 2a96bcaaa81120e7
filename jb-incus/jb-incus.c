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
 * jb-incus: the only process that can reach the Incus API.  A dedicated
 * user whose one privilege is membership of Incus's admin group.
 */

#include <pwd.h>
#include <stdio.h>

#include "log.h"
#include "proc.h"

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct passwd		*pw;

	child_init(&c, "jb-incus", argc, argv, &a);
	if (a.endpoint == NULL)
		fatalx("%s: no Incus endpoint given (-e)", c.name);
	if ((pw = getpwnam(JB_USER_INCUS)) == NULL)
		fatalx("%s: user %s does not exist; run regress/setup-host "
		    "(make deps) to create it", c.name, JB_USER_INCUS);
	(void)snprintf(c.detail, sizeof(c.detail), "incus endpoint %s",
	    a.endpoint);
	priv_drop(c.name, pw, NULL, NULL, 0);
	child_run(&c);
}
