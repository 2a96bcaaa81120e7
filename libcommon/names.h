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
 * The syntax of the names the suite makes and takes, each in one place:
 * a repo's container prefix, a container (Incus instance) name, an image
 * alias.  Branch names are git's rules, in gitref.h.  Every process that
 * checks one of these asks here, so they cannot disagree.
 */

#ifndef JB_NAMES_H
#define JB_NAMES_H

#define NAME_PREFIX_MAX		40	/* a container prefix, characters */
#define NAME_PREFIX_FORM	"[a-z0-9][a-z0-9-]*, at most 40 characters"
#define NAME_INSTANCE_MAX	63	/* a DNS label, as Incus wants */
#define NAME_INSTANCE_FORM	"[a-z0-9]([a-z0-9-]*[a-z0-9])?, at most 63 " \
				"characters"
#define NAME_ALIAS_MAX		63
#define NAME_ALIAS_FORM		"[A-Za-z0-9][A-Za-z0-9._-]*, at most 63 " \
				"characters"

int	name_prefix_ok(const char *);
int	name_instance_ok(const char *);
int	name_alias_ok(const char *);
int	name_member_here(const char *, const char *);

#endif /* JB_NAMES_H */
