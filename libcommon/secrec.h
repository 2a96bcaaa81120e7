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
 * An instance's record of its secrets (the Incus key
 * user.jailbee.secrets), written at new and read back when the suite
 * starts or the container starts, to put the same secrets in again:
 *
 *	GLOBAL-CONFIG-PATH
 *	HOST-LOCAL-CONFIG-PATH
 *	NAME=PLACEHOLDER		one a line, in the config's order
 *	github.prefix=PREFIX		right after GH_TOKEN's line when it is
 *					github.token (a secret with no file)
 *
 * Every line ends in a newline.  Nothing in it is secret.  No secret
 * at all is the empty record.
 */

#ifndef JB_SECREC_H
#define JB_SECREC_H

#include <limits.h>
#include <stddef.h>

#include "names.h"
#include "repoconf_secrets.h"

/* the secret github.token is put in as */
#define SECREC_GITHUB		"GH_TOKEN"
#define SECREC_GH_PREFIX_KEY	"github.prefix"

struct secrec_entry {
	char	name[RC_SECRET_NAME_MAX + 1];
	char	ph[RC_PLACEHOLDER_LEN + 1];
	int	github;		/* github.token's, with no file */
};

struct secrec {
	char			global[PATH_MAX];
	char			local[PATH_MAX];
	/* the repo's prefix when an entry is github.token's, else "" */
	char			ghprefix[NAME_PREFIX_MAX + 1];
	struct secrec_entry	e[RC_SECRETS_MAX];
	int			n;
};

/*
 * r into buf as the record above ("" when r->n is 0): 0, or -1 and why
 * in err when r would not read back (the message says what to change)
 * or does not fit in len bytes.
 */
int	secrec_write(const struct secrec *r, char *buf, size_t len,
	    char *err, size_t errlen);
/*
 * The record in s (len bytes) into r: 0, or -1 and why in err when it
 * is malformed (then r->n is 0).
 */
int	secrec_read(const char *s, size_t len, struct secrec *r, char *err,
	    size_t errlen);

#endif /* JB_SECREC_H */
