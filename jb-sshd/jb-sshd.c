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
 * jb-sshd: will hold the SSH front door.  It is the most exposed process,
 * so it gives up the most: a dedicated user, no capability, and an empty
 * chroot, entered before it reads a byte from anyone.
 */

#include <pwd.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct passwd		*pw;

	child_init(&c, "jb-sshd", argc, argv, &a);
	if ((pw = getpwnam(JB_USER_SSHD)) == NULL)
		fatalx("%s: user %s does not exist; run regress/setup-host "
		    "(make deps) to create it", c.name, JB_USER_SSHD);
	priv_drop(c.name, pw, JB_SSHD_CHROOT, NULL, 0);
	sandbox_jb_sshd();
	child_run(&c);
}
