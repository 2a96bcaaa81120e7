/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_OPS_PLACE_H
#define JB_OPS_PLACE_H

struct op_req;
struct place;

/*
 * The cluster member a container goes on when new names none: Incus's
 * members and their instance counts, asked one call at a time on
 * r->call, then placepick.h's choice.  done gets the member's name ("":
 * Incus is not clustered, so no member is named), or NULL and why (a
 * refusal in words, or Incus's error).  *pp holds the state until
 * place_free.
 */
void	place_ask(struct op_req *r, struct place **pp, const char *self,
	    void (*done)(struct op_req *, const char *, const char *));
void	place_free(struct place *);

#endif /* JB_OPS_PLACE_H */
