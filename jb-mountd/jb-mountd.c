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
 * jb-mountd: sees the host filesystem exactly as the owner does, so it
 * runs as the owner, with no capability at all.
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

	child_init(&c, "jb-mountd", argc, argv, &a);
	if (a.owner == NULL)
		fatalx("%s: no owner given (-o)", c.name);
	if ((pw = getpwnam(a.owner)) == NULL)
		fatalx("%s: owner %s: no such user", c.name, a.owner);
	if (pw->pw_uid == 0)
		fatalx("%s: the owner must not be root", c.name);
	(void)snprintf(c.detail, sizeof(c.detail), "host view of %s",
	    pw->pw_name);
	priv_drop(c.name, pw, NULL, NULL, 0);
	child_run(&c);
}
