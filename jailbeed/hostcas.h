/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_HOSTCAS_H
#define JAILBEED_HOSTCAS_H

#include "jobs.h"

typedef void	(*hostcas_cb)(struct job *, int ok, const char *err, void *);

/*
 * network.trust_host_cas: the host's local CAs into instance's trust
 * store (hostcas.c); cb at once when the key is off
 */
void	host_cas_apply(struct job *, const char *instance, hostcas_cb, void *);

#endif /* JAILBEED_HOSTCAS_H */
