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
 * OpenSSL's configuration, read at start and applied at first use
 * (tlsconf.h).
 */

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/crypto.h>

#include "log.h"
#include "tlsconf.h"

#define CONF_MAX	(1 << 20)

/* the flags OpenSSL applies its own configuration file with */
#define CONF_FLAGS	(CONF_MFLAGS_DEFAULT_SECTION | \
			 CONF_MFLAGS_IGNORE_MISSING_FILE | \
			 CONF_MFLAGS_IGNORE_RETURN_CODES)

enum { CONF_DEFAULT, CONF_HELD, CONF_APPLIED };

static int	 state = CONF_DEFAULT;
static char	*text;
static size_t	 textlen;

/* key at the start of a line: the word before '=' or blank, lowercased */
static int
key_is(const char *p, const char *end, const char *key)
{
	size_t	n = strlen(key), i;

	if ((size_t)(end - p) < n)
		return 0;
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != key[i])
			return 0;
	p += n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p == end || *p == '=';
}

int
tlsconf_needs_files(const char *s, size_t len)
{
	const char	*p = s, *end = s + len, *eol;

	while (p < end) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		while (p < eol && isspace((unsigned char)*p))
			p++;
		if (p < eol && *p != '#') {
			/* .include path, .include = path, include-dir too */
			if ((size_t)(eol - p) >= 8 &&
			    strncmp(p, ".include", 8) == 0)
				return 1;
			if (key_is(p, eol, "providers") ||
			    key_is(p, eol, "engines"))
				return 1;
		}
		p = eol + (eol < end);
	}
	return 0;
}

static void
apply_now(void)
{
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1)
		fatalx("OpenSSL cannot start");
	state = CONF_APPLIED;
}

void
tlsconf_read(void)
{
	struct stat	 sb;
	char		*path;
	size_t		 off = 0;
	ssize_t		 r;
	int		 fd;

	if (state != CONF_DEFAULT)
		return;
	if ((path = CONF_get1_default_config_file()) == NULL)
		fatalx("OpenSSL cannot name its configuration file");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		/* missing: OpenSSL applies nothing; anything else: its way */
		if (errno == ENOENT)
			state = CONF_HELD;
		else
			apply_now();
		OPENSSL_free(path);
		return;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > CONF_MAX ||
	    (text = malloc((size_t)sb.st_size + 1)) == NULL)
		goto whole;
	while (off < (size_t)sb.st_size) {
		if ((r = read(fd, text + off, (size_t)sb.st_size - off)) == -1 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			goto whole;
		off += (size_t)r;
	}
	textlen = off;
	if (tlsconf_needs_files(text, textlen))
		goto whole;
	(void)close(fd);
	OPENSSL_free(path);
	state = CONF_HELD;
	return;
 whole:
	(void)close(fd);
	OPENSSL_free(path);
	free(text);
	text = NULL;
	textlen = 0;
	apply_now();
}

void
tlsconf_apply(void)
{
	CONF	*conf;
	BIO	*b;
	long	 eline = 0;

	if (state == CONF_APPLIED)
		return;
	if (state == CONF_DEFAULT) {
		apply_now();
		return;
	}
	state = CONF_APPLIED;
	/* the file is ours to apply: OpenSSL is not to look for it */
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		fatalx("OpenSSL cannot start");
	if (text == NULL)
		return;
	OPENSSL_load_builtin_modules();
	if ((conf = NCONF_new(NULL)) == NULL ||
	    (b = BIO_new_mem_buf(text, (int)textlen)) == NULL)
		fatalx("OpenSSL's configuration: out of memory");
	if (NCONF_load_bio(conf, b, &eline) <= 0)
		log_warnx("OpenSSL's configuration: line %ld cannot be read: "
		    "not applied", eline);
	else
		(void)CONF_modules_load(conf, NULL, CONF_FLAGS);
	BIO_free(b);
	NCONF_free(conf);
	free(text);
	text = NULL;
	textlen = 0;
}
