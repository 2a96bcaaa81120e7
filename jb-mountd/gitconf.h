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
 * git's config file syntax, read as git reads it (git-config(1),
 * CONFIGURATION FILE), and the one question jb-mountd asks of it: the
 * owner's user.name and user.email.  Pure: text in, entries
 * out.  [include] and [includeIf] are not followed, only noticed, so
 * that the user can be told why an identity kept there is not found.
 */

#ifndef JB_GITCONF_H
#define JB_GITCONF_H

#include <stddef.h>

#include "jb_msg.h"

#define GITCONF_FILE_MAX	(1024 * 1024)	/* larger is refused */

/*
 * One entry.  section and key are lower-cased (the old "[a.B]" form too,
 * as git does, and passed as "a.b"); subsection keeps its case and is
 * NULL when the header had none ("" for [s ""]).  value is NULL for a
 * key without '=' (git's boolean true), else vlen bytes, NUL-terminated,
 * which may hold a NUL of the file.  0 to go on, -1 to stop.
 */
typedef int	(*gitconf_cb)(const char *section, const char *subsection,
		    const char *key, const char *value, size_t vlen, void *);

/*
 * Every entry of the file to cb, in order: 0, or -1 when a line is not
 * git config syntax (err: "line N: why"; git refuses such a file too),
 * the file is larger than GITCONF_FILE_MAX, memory is short, or cb
 * stopped (err "").  Entries before a bad line have been given to cb.
 */
int	gitconf_parse(const char *buf, size_t len, gitconf_cb, void *,
	    char *err, size_t errlen);

/* one user.* value as the files so far leave it: last one wins */
struct gitconf_value {
	char		 v[JB_GIT_IDENT_MAX];	/* "" unset or unusable */
	const char	*bad;		/* NULL, or why it is unusable */
	int		 src;		/* the src of the file that set it */
};

struct gitconf_ident {
	struct gitconf_value	name;	/* user.name */
	struct gitconf_value	email;	/* user.email */
	int			includes; /* include(If).path seen */
	int			src;	/* the caller's tag for the next file */
};

/*
 * Read one file's user.name and user.email into id over what earlier
 * files gave (git reads ~/.config/git/config, then ~/.gitconfig).  A
 * file with a bad line changes nothing, as git would use none of it: -1
 * with err.  A value too long or holding a NUL is kept as unusable, with
 * why in bad; a key without '=' likewise (git refuses it for an ident).
 */
int	gitconf_ident(const char *buf, size_t len, struct gitconf_ident *id,
	    char *err, size_t errlen);

#endif /* JB_GITCONF_H */
