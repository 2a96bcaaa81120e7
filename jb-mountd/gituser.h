/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GITUSER_H
#define JB_GITUSER_H

#include "jb_msg.h"
#include "gitdescribe.h"

/*
 * The owner's git identity: user.name and user.email from
 * their global git config, the files git itself reads for it and in its
 * order, ${XDG_CONFIG_HOME:-~/.config}/git/config then ~/.gitconfig, the
 * later winning (xdg: the caller's XDG_CONFIG_HOME, "" or relative: the
 * default).  Always answers: what is missing or unusable is left "" and
 * said once in out->note.
 */
void	gituser_read(const struct repo_owner *, const char *xdg,
	    struct jb_git_ident *out);

#endif /* JB_GITUSER_H */
