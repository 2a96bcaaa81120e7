/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_BASE_SPEC_H
#define JB_BASE_SPEC_H

#include "jobs.h"

typedef void	(*base_spec_next)(struct job *, const struct jb_base_spec *);

/*
 * The image conf names (alias overrides base.alias; conf NULL: outside a
 * checkout, the suite-wide default), its packages (packages overrides
 * base.packages), and whether Incus has it; next gets the answer, or the
 * job ends when jb-incus cannot say.
 */
void	base_spec_ask(struct job *, const struct repoconf *, const char *alias,
	    const char *packages, base_spec_next);
/* tell jbctl what to build */
int	base_spec_send(struct job *, const struct jb_base_spec *);

#endif /* JB_BASE_SPEC_H */
