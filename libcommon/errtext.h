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
 * The reason a function failed, written into the caller's buffer: the
 * one helper every parser and builder that takes (char *err, size_t
 * errlen) uses, so that a failure reads "return errtext(err, errlen,
 * ...)".
 */

#ifndef JB_ERRTEXT_H
#define JB_ERRTEXT_H

#include <stddef.h>

/* fmt into err (nothing when err is NULL or errlen 0); always -1 */
int	errtext(char *err, size_t errlen, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif /* JB_ERRTEXT_H */
